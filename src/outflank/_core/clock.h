/*
 * clock.h - the core's one clock: monotonic seconds, for search deadlines,
 * elapsed times and the threads' bounded polling.
 */
#ifndef OUTFLANK_CLOCK_H
#define OUTFLANK_CLOCK_H

/* Seconds on the monotonic clock (not wall time: never jumps back). */
double clock_seconds(void);

#endif
