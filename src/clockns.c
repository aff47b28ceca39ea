/* clockns.c: clocks read as ns (clockns.h). */
#include "clockns.h"

uint64_t clockns_ts(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

uint64_t clockns_of(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return clockns_ts(&ts);
}

uint64_t clockns_now(void)
{
	return clockns_of(CLOCK_MONOTONIC);
}
