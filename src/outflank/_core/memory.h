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

/* Zero a block from mem_alloc_large. A mapped block is handed back to the
 * kernel instead of written: it reads as zero again and takes memory only
 * where it is next written. */
void mem_clear_large(void *p, size_t size);

#endif
