/*
 * clock.c - monotonic seconds (clock.h). The lowest file of the core, so
 * that every file that times something reads the same clock.
 */
#define _POSIX_C_SOURCE 199309L
#include "clock.h"

#include <time.h>

double clock_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
