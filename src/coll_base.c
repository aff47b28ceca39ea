/* coll_base.c: what every collector job shares, below them all: the clock,
 * CPU accounting, publishing to the store and waking the UI. A job calls
 * down to it, never up to the coordinator (collector.c). */
#include "collector_int.h"

#include "clockns.h"

#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

/* The injected clock, or CLOCK_MONOTONIC: every "now" of the collector. */
uint64_t coll_base_clock(const struct collector *c)
{
	return c->cfg.clock_ns ? c->cfg.clock_ns(c->cfg.clock_ctx) : clockns_now();
}

/* The collector thread's CPU time: what a PSS read cost. */
uint64_t coll_base_thread_cpu_ns(void)
{
	return clockns_of(CLOCK_THREAD_CPUTIME_ID);
}

/* All of spacetime's threads: the budget covers the dashboard too. */
uint64_t coll_base_process_cpu_ns(void)
{
	return clockns_of(CLOCK_PROCESS_CPUTIME_ID);
}

/* Clock ticks (stat's CPU times) in microseconds. */
uint64_t coll_base_ticks_to_us(uint64_t t)
{
	return t * 1000000u / (uint64_t)procfs_hz();
}

/* v counted from base (an attached process's counter when it was found). */
uint64_t coll_base_since(uint64_t v, uint64_t base)
{
	return v > base ? v - base : 0;
}

/* How far back an early event may lie before the event it waits for: the
 * fork|exit socket of a split subscription is read at ticks, so an exec can
 * wait for its process's fork or exit event that long, and more. */
uint64_t coll_base_early_ns(const struct collector *c)
{
	uint64_t ms = c->cfg.interval_ms < COLLECTOR_QUIET_MAX_INTERVAL_MS ? c->cfg.interval_ms
									   : COLLECTOR_QUIET_MAX_INTERVAL_MS;
	return COLLECTOR_EARLY_NS + (c->nl_quiet_fd >= 0 ? 2 * ms * 1000000ull : 0);
}

/* Wakes the UI (notify fd). */
void coll_base_notify(struct collector *c)
{
	uint64_t one = 1;

	if (write(c->notify_fd, &one, sizeof(one)) < 0) {
		/* counter saturated or closed: the UI will poll anyway */
	}
}

/* Publishes an entry's record to the store. */
void coll_base_publish(struct collector *c, struct pentry *e)
{
	store_proc_update(c->st, &e->rec);
}

/* Wakes for fork|exit events until the next tick's adjustment: an exit
 * awaited (a top's, collector.c) is read as it comes. */
void coll_base_quiet_wake(struct collector *c)
{
	if (c->nl_quiet_fd < 0 || c->ep_fd < 0 || c->quiet_polled)
		return;
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = c->nl_quiet_fd};
	if (epoll_ctl(c->ep_fd, EPOLL_CTL_MOD, c->nl_quiet_fd, &ev) == 0)
		c->quiet_polled = 1;
}

void coll_base_ps_room(struct collector *c, size_t n)
{
	if (n <= c->ps_cap)
		return;
	struct store_proc_sample *p = realloc(c->ps, n * 2 * sizeof(*p));
	if (p) {
		c->ps = p;
		c->ps_cap = n * 2;
	}
}
