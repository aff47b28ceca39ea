/* coll_top: the tree's peak between samples, the collector's job that owns
 * it. Pure: the collector tells it, at each tick, what every counted process
 * looked like (its RSS, the most RSS it can have had since the last tick, and
 * the PSS model's figures), and, as processes leave, the most RSS they had
 * (the kernel's high-water mark at their exit); it keeps two things.
 *
 * 1. An upper bound of the tree's PSS over the whole run, between samples
 *    included. Over the interval between two ticks, a process's PSS is at most
 *    its upper bound at the first tick plus the RSS it gained up to its most
 *    in the interval (new pages count in full; a share of pages already
 *    mapped only falls as others map them, and a share passed on by an exit
 *    leaves the exiting process as it reaches the others: the tree's total
 *    does not rise by it). A process born in the interval adds at most its
 *    most RSS. So the interval's bound is the tree's bound at its first tick
 *    plus what each process gained; the run's is the highest of them. A
 *    process that left with its most RSS unknown (no taskstats) makes the
 *    run's bound unknown.
 * 2. Exit samples: the tree just before a process exited at its largest,
 *    above anything a tick saw of it. Its high-water RSS tells how far it
 *    went: it is counted at its figures of its last tick plus the RSS it
 *    gained, in full (a program's new pages are its own: the model counts
 *    growth between reads so), or, never seen by a tick, at its high-water
 *    RSS less the shared part its program's processes did not pay for. The
 *    live processes are read by the tick after the exit (taken at once when
 *    the exit can make a new peak); those that exited later in the interval,
 *    and those the tick could not read (exiting), count at their last
 *    figures: they were alive then, at least that large as far as anything
 *    read says. Every RSS figure may lag the pages by the kernel's per-CPU
 *    counter batches: the bound allows COLL_TOP_SLACK_KIB a process that
 *    moved. */
#ifndef SPACETIME_COLL_TOP_H
#define SPACETIME_COLL_TOP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Departures an interval keeps for its exit samples (past it, the bound
 * still counts them, the samples do without). */
#define COLL_TOP_GONE 64
/* An exit's top counts when it passed what the ticks saw of it by this much. */
#define COLL_TOP_MIN_GAIN_KIB 256
/* How far a process's RSS counters may lag its pages (per-CPU batches of
 * 32 pages, two CPUs here: the bound takes four). */
#define COLL_TOP_SLACK_KIB 512
/* Closed intervals whose bounds a late-known gain can still raise (a process
 * whose reads failed, exiting, is known again by its high-water mark). */
#define COLL_TOP_HIST 32

/* What the job keeps of one process (in its collector entry). */
struct coll_top_proc {
	uint64_t tick;     /* the interval it was last seen closing (coll_top.tick + 1 then;
			    * 0: never) */
	uint64_t rss_kib;  /* its RSS then */
	uint64_t est_kib, lo_kib, hi_kib; /* the model's PSS figures then */
};

/* A process that left during the open interval. */
struct coll_top_gone {
	uint64_t t_ns;                       /* when */
	uint64_t prev_est_kib, prev_lo_kib;  /* its figures at its last tick (0: never seen) */
	uint64_t est_kib, lo_kib, hi_kib;    /* at its top */
	int top;                             /* it went above what the ticks saw of it */
	pid_t pid;
};

struct coll_top {
	uint64_t tick;         /* ticks closed so far */
	uint64_t prev_hi_kib;  /* the tree's upper bound at the last tick */
	uint64_t add_kib;      /* what the open interval may add above it */
	int open_unknown;      /* a process left the open interval with no bound */
	uint64_t bound_kib;    /* no instant of the run's tree above this (while known) */
	uint64_t bound_t_ns;   /* the end of the interval (or the tick) that set it */
	int unknown;           /* the run's bound is unknown (a process left between ticks
				* with no high-water mark: no taskstats record) */
	struct coll_top_gone gone[COLL_TOP_GONE];
	size_t ngone;
	struct {
		uint64_t tick;  /* the interval closed by tick number tick */
		uint64_t kib;   /* its bound */
	} hist[COLL_TOP_HIST];
};

/* A tick saw p: rss_kib now, max_kib the most RSS it can have had since it
 * was last seen (>= rss_kib: its high-water mark, or its RSS when nothing
 * moved), and the model's figures now. known 0: its memory could not be read
 * (it is exiting): it keeps the figures it was last seen with, and what it
 * gained since counts when it is seen again or leaves. */
void coll_top_seen(struct coll_top *t, struct coll_top_proc *p, uint64_t rss_kib, uint64_t max_kib,
		   uint64_t est_kib, uint64_t lo_kib, uint64_t hi_kib, int known);
/* p left the tree at t_ns (its exit, or an exec replacing its program):
 * top_kib the most it can have added to the tree (its high-water RSS; for a
 * child that never exec'd, the pages it copied or allocated), when
 * top_known. For one never seen by a tick, est_kib and lo_kib: its PSS at
 * its top as the caller estimates it, and a lower figure; and can_top:
 * whether it can have made a top the ticks missed (not a child still in its
 * parent's pages). */
void coll_top_gone(struct coll_top *t, const struct coll_top_proc *p, pid_t pid, uint64_t t_ns,
		   uint64_t top_kib, int top_known, uint64_t est_kib, uint64_t lo_kib, int can_top);

/* The tree just before the exits of a tick's interval (coll_top.h, 2.). */
struct coll_top_sample {
	uint64_t t_ns, est_kib, lo_kib, hi_kib;
	pid_t pid;   /* the first process of the exits it holds at their tops */
	int tops;    /* how many it holds */
};
/* The highest exit sample of the open interval, given the live processes'
 * figures now: 1 and *out, or 0 when no process left at a top. */
int coll_top_exit_sample(const struct coll_top *t, uint64_t live_est_kib, uint64_t live_lo_kib,
			 uint64_t live_hi_kib, struct coll_top_sample *out);
/* Closes the tick's interval at now_ns: the tree's upper bound now is hi_kib. */
void coll_top_close(struct coll_top *t, uint64_t hi_kib, uint64_t now_ns);

#endif
