/* memory.c - see memory.h. */
#define _DEFAULT_SOURCE /* mmap flags, madvise */
#include "memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

#define CACHE_LINE 64
#define HUGE_PAGE ((size_t)2 << 20)

static size_t round_up(size_t size, size_t align) { return (size + align - 1) / align * align; }

#ifdef __linux__
/* Map size bytes (a multiple of HUGE_PAGE) on a HUGE_PAGE boundary: map one
 * huge page more than needed and unmap the ends. Fresh mappings read as
 * zero and take memory only where written. */
static void *map_huge(size_t size) {
    size_t span = size + HUGE_PAGE;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    char *p = (char *)round_up((size_t)(uintptr_t)raw, HUGE_PAGE);
    if (p > raw) munmap(raw, (size_t)(p - raw));
    size_t tail = (size_t)(raw + span - (p + size));
    if (tail) munmap(p + size, tail);
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
    return p;
}
#endif

void *mem_alloc_large(size_t size) {
    if (size == 0 || size > SIZE_MAX - HUGE_PAGE) return NULL;
#ifdef __linux__
    if (size >= HUGE_PAGE) return map_huge(round_up(size, HUGE_PAGE));
#endif
    size_t rounded = round_up(size, CACHE_LINE); /* aligned_alloc wants a multiple */
    void *p = aligned_alloc(CACHE_LINE, rounded);
    if (p) memset(p, 0, rounded);
    return p;
}

void mem_free_large(void *p, size_t size) {
    if (!p) return;
#ifdef __linux__
    if (size >= HUGE_PAGE) {
        munmap(p, round_up(size, HUGE_PAGE));
        return;
    }
#endif
    (void)size;
    free(p);
}

void mem_clear_large(void *p, size_t size) {
    if (p) memset(p, 0, size);
}
