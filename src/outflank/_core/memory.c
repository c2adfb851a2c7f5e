/* memory.c - see memory.h. */
#define _DEFAULT_SOURCE /* madvise */
#include "memory.h"

#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

#define CACHE_LINE 64
#define HUGE_PAGE ((size_t)2 << 20)

void *mem_alloc_large(size_t size) {
    size_t align = size >= HUGE_PAGE ? HUGE_PAGE : CACHE_LINE;
    size_t rounded = (size + align - 1) / align * align; /* aligned_alloc wants a multiple */
    if (rounded < size) return NULL;
    void *p = aligned_alloc(align, rounded);
    if (!p) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align == HUGE_PAGE) madvise(p, rounded, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
    memset(p, 0, rounded);
    return p;
}
