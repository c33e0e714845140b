/*
 * LD_PRELOAD shim for comparing a traced frame with an untraced one in apps
 * animated by the wall clock (std::chrono::system_clock / high_resolution_clock,
 * gettimeofday, time): CLOCK_REALTIME reads the same instant every time, so
 * such an app renders the same frame N in every run. CLOCK_MONOTONIC and the
 * other clocks are untouched (drivers and the layer time waits with them).
 * Build: cc -shared -fPIC -O2 -o frozen-wall-clock.so frozen-wall-clock.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <sys/time.h>
#include <time.h>

static const time_t kFrozenSeconds = 1767225600; /* 2026-01-01T00:00:00Z */

int clock_gettime(clockid_t clock, struct timespec *ts) {
  if (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE) {
    ts->tv_sec = kFrozenSeconds;
    ts->tv_nsec = 0;
    return 0;
  }
  static int (*next)(clockid_t, struct timespec *);
  if (!next) next = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  return next(clock, ts);
}

int gettimeofday(struct timeval *tv, void *tz) {
  (void)tz;
  if (tv) tv->tv_sec = kFrozenSeconds, tv->tv_usec = 0;
  return 0;
}

time_t time(time_t *out) {
  if (out) *out = kFrozenSeconds;
  return kFrozenSeconds;
}
