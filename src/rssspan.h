/* rssspan: the tree's PSS between two ticks, from the RSS changes traced in
 * between (rsstrace.h). Pure: the collector gives it the interval's records
 * and what the PSS model said at its two ticks; it keeps, across intervals,
 * each mm's counters (a record carries a counter's new value) and which mm is
 * each process's own.
 *
 * The tree's PSS T at an instant t of the interval is bounded from the model
 * at either tick and the pages the tree mapped and let go of in between:
 * - a new anonymous page of a process's own mm is a page of its own: T rises
 *   by it exactly; any other new page (a file's, shared memory's) raises T
 *   by at most a page, perhaps nothing (others of the tree map it);
 * - a page let go of lowers T by at most a page (less when it is shared);
 * - a fork copies the parent's counters into the child's mm (records on an
 *   mm not the recording task's own): T does not move (the pages are
 *   shared); an exec puts its arguments in the new mm the same way: those
 *   count in the upper bound, up to RSSSPAN_EXEC_ARGS_KIB per mm;
 * - copy-on-write breaks change no counter: the collector's fault counts
 *   bound them (cow_kib);
 * Forward from the opening tick: T(t) >= lo_prev + own anonymous pages
 * mapped - pages let go of, up to t; T(t) <= hi_prev + cow + pages mapped.
 * Backward from the closing tick: T(t) <= hi_now + pages let go of after t;
 * T(t) >= the sum over the processes then of the larger of (their lower
 * bound now less the pages they mapped after t) and (their anonymous pages
 * then, when those are their own: exec'd, no fork since), a process born
 * after t counting nothing (a leaver's shares pass to the others: counting
 * the leaver's own pages alone counts nothing twice). The floor at t is the
 * larger of the two, the bound the lesser; the interval's floor and bound
 * are their highest. Sharers outside the tree (a library's pages) and the
 * kernel's own reclaim (kswapd) move pages unseen: the collector says an
 * interval with reclaim is not complete. */
#ifndef SPACETIME_RSSSPAN_H
#define SPACETIME_RSSSPAN_H

#include <stddef.h>
#include <stdint.h>

#include "rssmark.h"
#include "rsstrace.h"

#define RSSSPAN_EXEC_ARGS_KIB 512
/* A process whose file and shared-memory pages grew by this much since it
 * was last asked for is worth a read between ticks (rssspan_wants): the
 * floors count those pages only from a read (rssspan_read). */
#define RSSSPAN_WANT_STEP_KIB (4 * 1024)
#define RSSSPAN_WANT_MAX 8
/* The ticks read the counters over a few milliseconds: changes in that time
 * can count on either side; the bound allows this much for them. */
#define RSSSPAN_SLACK_KIB 512

/* A process the model counted at the closing tick, with its lower bound (the
 * list is of every process in its bound, hi_now_kib, whenever that holds;
 * a process with pages in the trace and not in it, or in it with another
 * program than the trace saw, adds its resident pages to that bound). */
struct rssspan_live {
	int32_t pid;
	uint64_t lo_kib;
	/* when the program the model has for it began (its exec, or its
	 * fork): one the trace saw exec after that is another program than
	 * the model's figures are of (its exec event was still on its way) */
	uint64_t start_ns;
};

struct rssspan_in {
	uint64_t open_ns, close_ns;
	/* T at the opening tick: at least lo_prev (when prev_lo_ok), at most
	 * hi_prev (prev_hi_ok); at the closing tick the same, live[] holding
	 * the processes that make lo_now */
	int prev_lo_ok, prev_hi_ok;
	uint64_t lo_prev_kib, hi_prev_kib;
	int now_lo_ok, now_hi_ok;
	uint64_t lo_now_kib, hi_now_kib;
	int now_lo_moved;             /* the closing tick's processes moved as it read them:
				       * each counts at its lower bound less all it mapped
				       * and let go of as the tick read, and one that ended
				       * in the interval at its own anonymous pages only
				       * (the others' reads may hold its shares already) */
	uint64_t cow_kib;             /* what copy-on-write breaks can have added in the interval */
	uint64_t over_kib;            /* rssspan_forward: an end above this is a top (rssspan_exits) */
	const struct rssspan_live *live;
	size_t nlive;
};

struct rssspan_out {
	int floor_ok;                 /* a floor was found (an instant between the ticks) */
	uint64_t floor_kib, floor_t_ns;
	uint64_t floor_hi_kib;        /* the bound at that instant */
	int bound_ok;                 /* bound_kib bounds T over the whole interval (both
				       * ticks' bounds hold) */
	int conflict;                 /* a floor came out above the bound at its instant:
				       * neither is taken (floor_ok, bound_ok 0) */
	uint64_t bound_kib, bound_t_ns;
	/* the closing tick's bound with the pages of the processes it did not
	 * count (begun as it read, or counted as the program they had before an
	 * exec the trace saw since): the next interval's hi_prev_kib */
	uint64_t hi_now_kib;
	/* its floor as the walk took it (its processes' lower bounds, less what
	 * the trace says they may not hold): the next interval's lo_prev_kib */
	uint64_t lo_now_kib;
};

struct rssspan;

struct rssspan *rssspan_new(void);
void rssspan_free(struct rssspan *s);
/* Takes the interval's records (time order) and bounds the tree in it.
 * Returns 0, or -ENOMEM (out says nothing then, and the counters are lost:
 * call rssspan_reset). */
int rssspan_interval(struct rssspan *s, const struct rsstrace_rec *r, size_t n, const struct rssspan_in *in,
		     struct rssspan_out *out);
/* What the forward half saw of the interval's exits (and execs' teardowns
 * do not count: their process lives on). */
struct rssspan_exits {
	uint64_t most_kib; /* the most pages one process's end let go of */
	/* the most the tree can have had just before an end of pages: the
	 * opening tick's bound and the pages mapped since, or the resident
	 * pages of its mms, the lesser (UINT64_MAX: neither holds, or the
	 * interval met counters it did not know; 0: no end of a process with
	 * an mm of its own) */
	uint64_t hi_kib;
	/* whether that bound passed in->over_kib (a peak) before an end, and
	 * the last such end's instant (the processes begun after it were not
	 * there then) */
	int top;
	uint64_t top_t_ns;
};

/* The same in parts, for a tick that reads between them: the records up to
 * the tick's instant, taken in with the opening tick's figures (in: the
 * prev_ fields), which tells the interval's exits (ex: a top may have been
 * at one; the tick reads the others before it closes, unless the tree was
 * no higher then than its peak); then those that came as the tick read
 * (rssspan_more: the tick's figures were taken after them, so the floor
 * before takes them off, and the next interval starts after them); then the
 * closing tick's figures (in: all of it). The interval's instants are those
 * of its records. */
int rssspan_forward(struct rssspan *s, const struct rsstrace_rec *r, size_t n, const struct rssspan_in *in,
		    struct rssspan_exits *ex);
int rssspan_more(struct rssspan *s, const struct rsstrace_rec *r, size_t n, struct rssspan_exits *ex);

/* Between ticks: after rssspan_forward, the records that come are taken in
 * by rssspan_more (ex: the interval's exits so far, added to). A read of
 * process pid's smaps_rollup over [t0_ns, t1_ns] (after every record taken
 * in), its private pages priv_kib, counts in the floors from t1_ns on:
 * - forward, when pid made its own mm in this interval (an exec) and the
 *   opening tick did not count it: the tree then holds at least what it held
 *   without pid plus pid's private pages (pid's own anonymous pages, counted
 *   already, taken off), and from there on as the records move it;
 * - backward, pid's part at an instant is at least what is left of the read
 *   then (rssmark.h).
 * Returns 0, or -ENOSPC (too many this interval), -EINVAL. */
int rssspan_read(struct rssspan *s, uint64_t t0_ns, uint64_t t1_ns, int32_t pid, uint64_t priv_kib);
/* The processes whose own file and shared-memory pages grew by
 * RSSSPAN_WANT_STEP_KIB since they were last asked for (at most max; each
 * asked for once a step), taken out. */
size_t rssspan_wants(struct rssspan *s, int32_t *pids, size_t max);
/* The most the tree can hold now: its mms' resident pages, each once, or
 * the forward bound, the lesser (UINT64_MAX: unknown). */
uint64_t rssspan_hi_now(const struct rssspan *s);
int rssspan_backward(struct rssspan *s, const struct rssspan_in *in, struct rssspan_out *out);

/* Forgets every counter (records were lost: the next values are not deltas
 * of the last ones). An mm met after it may be older than the watch: its
 * first record of each counter is taken as that counter's baseline, and an
 * interval with such a record (or an end of such an mm) bounds nothing. */
void rssspan_reset(struct rssspan *s);
/* How many mm counters it keeps (a test's check that it forgets the gone). */
size_t rssspan_mms(const struct rssspan *s);

#endif
