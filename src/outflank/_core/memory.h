/*
 * memory.h - large tables (transposition table, evaluation weights) in
 * memory that is cheap to address at random.
 */
#ifndef OUTFLANK_MEMORY_H
#define OUTFLANK_MEMORY_H

#include <stddef.h>

/* size zeroed bytes aligned to a 64-byte cache line, or NULL when out of
 * memory; release with mem_free_large(p, size). On Linux, blocks of 2 MiB
 * and more are mapped 2 MiB-aligned and offered to the kernel for huge
 * pages (random probes into a 256 MiB table then miss the TLB far less
 * often), and their pages are only committed when first touched. */
void *mem_alloc_large(size_t size);

void mem_free_large(void *p, size_t size);

/* Zero a block from mem_alloc_large in place. Its pages stay mapped: handing
 * them back to the kernel (madvise) would make the next search fault every
 * page in again, about 10 ms for 64 MiB, inside that search's time. */
void mem_clear_large(void *p, size_t size);

#endif
