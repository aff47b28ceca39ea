/* clockns: clocks read as ns. CLOCK_MONOTONIC is the one clock every time in
 * the store is on; the CPU-time clocks measure spacetime's own cost. */
#ifndef SPACETIME_CLOCKNS_H
#define SPACETIME_CLOCKNS_H

#include <stdint.h>
#include <time.h>

/* A timespec as ns. */
uint64_t clockns_ts(const struct timespec *ts);
/* Clock id now, ns (0 if it cannot be read). */
uint64_t clockns_of(clockid_t id);
/* CLOCK_MONOTONIC now, ns. */
uint64_t clockns_now(void);

#endif
