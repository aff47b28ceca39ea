/* coll_rss: the collector's job that takes the tree's RSS changes traced
 * between ticks (rsstrace.h) and bounds the tree's PSS in each interval
 * with them (rssspan.h): its state, and its part of the collector's API
 * (collector_int.h holds the shared state). */
#ifndef SPACETIME_COLL_RSS_H
#define SPACETIME_COLL_RSS_H

#include <stddef.h>
#include <stdint.h>

#include "rssspan.h"

/* After a read for a process's growth, the walk looks again this soon: the
 * end of a burst of pages wakes nobody. */
#define COLL_RSS_RECHECK_NS 2000000ull
/* The trace's fds the collector waits on (its rings, then its wake
 * events: two per CPU, the first so many; the others wait for a tick or
 * another wakeup). */
#define COLL_RSS_WAKE_RINGS 128
#include "rsstrace.h"

struct collector;
struct sample;

struct coll_rss {
	struct rssspan *span;
	struct rssspan_live *live;
	size_t live_cap;
	int prev_lo_ok, prev_hi_ok; /* the last tick's floor and bound hold */
	uint64_t prev_lo_kib, prev_hi_kib;
	int skip;                      /* intervals left before the trace's counters are whole
					* again (records were lost) */
	uint64_t lost;
	int fwd;                       /* taken in with the opening tick's figures */
	int open;                      /* the interval's walk began (at a wakeup, or its tick) */
	int broken;                    /* records lost in it: no walk until its tick */
	uint64_t recheck_ns;           /* a wakeup due then (clockns_now): a process
					* read for its growth may grow on (0: none) */
	struct rssspan_exits exits;    /* its ends (none when not taken in) */
	int reclaim;                   /* the kernel reclaimed or swapped pages in it */
	uint64_t reclaim_seen;         /* /proc/vmstat's count of those at the last tick */
	char vmstat[8192];
};

/* What the trace told of the interval's ends (coll_rss_ends): whether it
 * tells of them, and then whether the tree can have been above its peak
 * (coll_pss_peak_kib, as the interval began) just before one, and the last
 * such end's instant. */
struct coll_rss_ends {
	int told, top;
	uint64_t top_t_ns;
};
/* The interval since the last tick, from its traced RSS changes (before
 * coll_pss_exit_sample closes it). */
void coll_rss_begin(struct collector *c, uint64_t now);
/* Between ticks (any wakeup): the records so far taken in, and the
 * processes whose file pages grew read, when the tree may be above its
 * peak now (their private pages count in the interval's floors). */
void coll_rss_wake(struct collector *c);
void coll_rss_tick(struct collector *c, const struct sample *s, uint64_t now);
/* Whether the tree can be, or have been just before an end, above its peak
 * now, from the records so far (taken in): a process's exit there is worth
 * a tick at once, before the next jobs' processes map the pages the others
 * share and lower their shares. 0 when the trace cannot tell. */
int coll_rss_top_now(struct collector *c);
void coll_rss_ends(const struct collector *c, struct coll_rss_ends *x);
int coll_rss_start(struct collector *c);
void coll_rss_free(struct collector *c);

#endif
