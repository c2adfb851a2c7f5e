/*
 * memory.h - large tables (transposition table, evaluation weights) in
 * memory that is cheap to address at random.
 */
#ifndef OUTFLANK_MEMORY_H
#define OUTFLANK_MEMORY_H

#include <stddef.h>

/* size zeroed bytes aligned to a 64-byte cache line, or NULL when out of
 * memory; release with free(). Blocks of 2 MiB and more are aligned to
 * 2 MiB and, on Linux, offered to the kernel for huge pages: random probes
 * into a 256 MiB table then miss the TLB far less often. */
void *mem_alloc_large(size_t size);

#endif
