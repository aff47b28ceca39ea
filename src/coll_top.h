/* coll_top: the tree's peak between samples, the collector's job that owns
 * it. Pure: the collector tells it, at each tick, what every counted process
 * looked like (its RSS, the most RSS it can have had since the last tick, and
 * the PSS model's figures), and, as processes leave, the most RSS they had
 * (the kernel's high-water mark at their exit); it keeps two things.
 *
 * 1. An upper bound of the tree's PSS over the whole run, between samples
 *    included, the highest of two bounds of each interval between two ticks,
 *    the lesser of the two. Forward: a process's PSS is at most its upper
 *    bound at the first tick plus the RSS it gained up to its most in the
 *    interval (new pages count in full; a share of pages already mapped only
 *    falls as others map them, and a share passed on by an exit leaves the
 *    exiting process as it reaches the others: the tree's total does not
 *    rise by it); a process born in the interval adds at most its most RSS.
 *    Backward: the tree's PSS at an instant is at most its bound at the
 *    closing tick plus what it let go of since: the RSS each process lost
 *    from its most (a page the tree maps counts in full at most, however
 *    many of its processes map it, and stops counting only when the last
 *    one lets it go), and the processes that left, at their most. (Sharers
 *    outside the tree that map the tree's pages within the interval lower
 *    its shares unseen: a library's pages, a little.) Forward is the tighter
 *    when processes are born and grow, backward when they map memory others
 *    of the tree already had (shared memory, copy-on-write pages). A
 *    process that left with its most RSS unknown (no taskstats) makes the
 *    run's bound unknown.
 * 2. Exit samples: the tree just before a process exited at its largest,
 *    above anything a tick saw of it, as a floor: the least the tree had
 *    then (lo), with an estimate and an upper bound beside it. Its
 *    high-water RSS tells how far it went: it is counted at its figures of
 *    its last tick plus the RSS it gained, its own new pages in full (the
 *    floor leaves out the file pages it mapped since), or, never seen by a
 *    tick, at its high-water RSS less its program's file pages. The live
 *    processes are read by the tick after the exit, taken as soon as the
 *    exit event follows the record when the exit can make a new peak. An
 *    exit passes the leaver's share of each page others map on to them
 *    (a page's shares in the tree never rise when a mapper leaves), so the
 *    tree just before it is at least the tree read just after plus the
 *    leaver's own pages. Those that exited later in the interval, and those
 *    the tick could not read (exiting), count at their last figures: they
 *    were alive then, at least that large as far as anything read says
 *    (a late tick: the least of the two ticks'). Every RSS figure may lag
 *    the pages by the kernel's per-CPU counter batches: the bound allows
 *    COLL_TOP_SLACK_KIB a process that moved. */
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
/* What each process may add within an interval is kept with when it was
 * there: processes that never coexisted (a shell, then the compiler it ran,
 * then the assembler) are not summed. Past this many, they are. */
#define COLL_TOP_SPANS 256
/* Intervals with processes' most unknown are kept apart by how many, up to
 * this many (past it, with the most of them). */
#define COLL_TOP_PEND 16
/* Closed intervals kept: a late-known gain can still raise their bounds (a
 * process whose reads failed, exiting, is known again by its high-water
 * mark), a later tick lower them. */
#define COLL_TOP_HIST 32

/* The PSS model's figures of a process at a tick (pssmodel.h): its
 * estimate, its bounds, and its own anonymous pages at least. */
struct coll_top_fig {
	uint64_t est_kib, lo_kib, hi_kib, own_kib;
	uint64_t own_file_kib; /* of own_kib, file pages it alone mapped when read (another
				* process mapping the file since makes them shared) */
};

/* What the job keeps of one process (in its collector entry). */
struct coll_top_proc {
	uint64_t tick;     /* the interval it was last seen closing (coll_top.tick + 1 then;
			    * 0: never) */
	uint64_t rss_kib;  /* its RSS then */
	uint64_t file_kib; /* of it, file and shared memory pages */
	struct coll_top_fig fig; /* the model's figures then */
};

/* A process that left during the open interval. */
struct coll_top_gone {
	uint64_t t_ns;                       /* when */
	uint64_t prev_est_kib, prev_own_kib; /* its figures at its last tick (0: never seen) */
	uint64_t est_kib, lo_kib, hi_kib;    /* at its top (lo: its own pages) */
	int top;                             /* it went above what the ticks saw of it */
	pid_t pid;
};

/* A closed interval, kept for a while: late-known gains (a process whose
 * reads failed, exiting, known again by its high-water mark) raise it, later
 * ticks lower its backward bound. */
struct coll_top_hist {
	uint64_t tick;     /* the interval closed by tick number tick (0: none) */
	uint64_t start_ns, end_ns; /* when */
	uint64_t fwd_kib;  /* its forward bound */
	uint64_t back_kib; /* its backward bound from its closing tick */
	uint64_t loss_kib; /* of that, what the tree let go of in it */
	uint64_t eff_back_kib; /* its backward bound from any later tick (update_bound) */
	uint32_t nunknown; /* processes there with their most unknown, at once at most */
	int traced;        /* its bound is the trace's: what is learnt late of a
			    * process (its most, at its end) changes nothing of it */
};

/* Intervals with n processes' most unknown, the highest of their bounds
 * without them: resolved at the run's end (coll_top_resolve). */
struct coll_top_pend {
	int set;
	uint32_t n;
	uint64_t base_kib, end_ns;
};

/* What a process may add to an interval's bound while it was there. */
struct coll_top_span {
	uint64_t from_ns, to_ns, kib;
};

struct coll_top {
	uint64_t tick;         /* ticks closed so far */
	uint64_t prev_hi_kib;  /* the tree's upper bound at the last tick */
	uint64_t open_ns;      /* when the open interval began (the last tick) */
	/* forward: what the open interval may add above prev_hi_kib */
	struct coll_top_span span[COLL_TOP_SPANS];
	size_t nspan;
	uint64_t add_kib;      /* the same, summed */
	/* backward: what the tree let go of in the open interval, above its
	 * bound at the tick that closes it: the processes that left, and the
	 * RSS the others lost from their most */
	struct coll_top_span bspan[COLL_TOP_SPANS];
	size_t nbspan;
	uint64_t back_add_kib; /* the processes that left, summed */
	uint64_t back_live_kib;
	/* those that left the open interval with their most unknown */
	struct coll_top_span uspan[COLL_TOP_SPANS];
	size_t nuspan, uspan_all;
	uint64_t bound_kib;    /* no instant of the run's tree above this (while known) */
	uint64_t bound_t_ns;   /* the end of the interval (or the tick) that set it */
	int unknown;           /* the run's bound is unknown (a process left between ticks
				* with no high-water mark: no taskstats record) */
	int unresolved;        /* and the run's end cannot tell it */
	struct coll_top_pend pend[COLL_TOP_PEND];
	struct coll_top_gone gone[COLL_TOP_GONE];
	size_t ngone;
	struct coll_top_hist hist[COLL_TOP_HIST];
	uint64_t final_kib, final_ns; /* the highest bound of the intervals no longer kept */
	uint64_t traced_kib;   /* the open interval's bound from its traced RSS changes
				* (coll_top_traced; 0: none) */
};

/* What a tick saw of a process: its RSS now, of it its file and shared
 * memory pages, the most RSS it can have had since it was last seen
 * (>= rss_kib: its high-water mark, or its RSS and its faults' pages), what
 * it can have copied on writes since (a page a fault, no more than the
 * anonymous pages it shared: a copy is a page more in the tree, whichever
 * sharer pays; a written page of a private file mapping, a library's data,
 * is within the slack), when
 * it started, and the model's figures now. known 0: its memory could not be
 * read (it is exiting): it keeps the figures it was last seen with, and what
 * it gained since counts when it is seen again or leaves. */
struct coll_top_look {
	uint64_t rss_kib, file_kib, max_kib, copied_kib, start_ns;
	int known;
	struct coll_top_fig fig;
};
void coll_top_seen(struct coll_top *t, struct coll_top_proc *p, const struct coll_top_look *l);
/* The open interval is bounded by kib from its traced RSS changes
 * (rssspan.h): that is its bound, forward and backward. */
void coll_top_traced(struct coll_top *t, uint64_t kib);
/* A process leaving the tree (its exit, or an exec replacing its program),
 * at t_ns: top_kib the most RSS it can have had since it was seen (for a
 * child that never exec'd, seen by no tick: what it can have added, its
 * parent's pages aside), when top_known; est_kib its PSS at its top as the
 * caller figures it, lo_kib its own pages then at least (the exit sample's
 * floor); copied_kib as for coll_top_look; can_top: whether it can have made
 * a top the ticks missed (not a child still in its parent's pages, nor an
 * exec). */
struct coll_top_leave {
	pid_t pid;
	uint64_t t_ns, start_ns, top_kib, est_kib, lo_kib, copied_kib;
	int top_known, can_top;
};
void coll_top_gone(struct coll_top *t, const struct coll_top_proc *p, const struct coll_top_leave *l);

/* The tree just before the exits of a tick's interval (coll_top.h, 2.). */
struct coll_top_sample {
	uint64_t t_ns, est_kib, lo_kib, hi_kib;
	pid_t pid;   /* the process it holds at its top */
	int tops;    /* how many it holds */
};
/* A process alive at the tick: when it started (its program: its last exec),
 * its figures at the last tick (seen 0: it was not seen then) and now, and
 * what its faults since the last tick can have mapped (its floor at any
 * instant since is its floor now less that). */
struct coll_top_live {
	uint64_t start_ns;
	int seen;
	struct coll_top_fig prev, now;
	uint64_t moved_kib;
};
/* The ghosts' part of the tree (pages of processes gone, that others pay for
 * unread) at the last tick and at this one, as the PSS model counts them. */
struct coll_top_ghosts {
	uint64_t prev_est_kib, prev_hi_kib;
	uint64_t now_est_kib, now_hi_kib;
};
/* The highest exit sample of the open interval, given the live processes at
 * the tick (now_ns) and the ghosts. A process alive at the exit counts at its
 * figures now when the tick came within COLL_TOP_PROMPT_NS of the exit, or
 * the exit was told as the tick began (it was read at the exit, near enough;
 * the ghosts then are this tick's: what the reads now do not show), else at
 * its last tick's estimate, and at least its floor now less what its faults
 * can have mapped since the last tick (no read says more of it then; the
 * ghosts the last tick's); one started after the exit not at all, nor, in
 * the floor, one that left later in the interval (it may have let go of its
 * pages first). 1 and *out, or 0 when no process left at a top. */
int coll_top_exit_sample(const struct coll_top *t, const struct coll_top_live *live, size_t nlive,
			 uint64_t now_ns, const struct coll_top_ghosts *g, struct coll_top_sample *out);
/* How soon after an exit a tick reads the others at it. */
#define COLL_TOP_PROMPT_NS 2000000ull
/* What the open interval's exits at tops add to the tree at their
 * instants, at most, by the estimate (to tell a tick that its exit sample
 * may be a new peak, worth reading the others exactly for: the floor counts
 * them as read, and with them the shares the leaver passed on to them). */
uint64_t coll_top_exit_extra(const struct coll_top *t);
/* Closes the tick's interval at now_ns: the tree's upper bound now is hi_kib. */
void coll_top_close(struct coll_top *t, uint64_t hi_kib, uint64_t now_ns);
/* At the run's end, the most RSS any process of the tree had (max_rss_kib:
 * the wait4 rusage of the command and of the orphans reaped, which covers
 * every process its parent waited for; 0: not known): each process that
 * left with its most unknown had at most that; the run's bound is known
 * again, unless an interval it was in is no longer kept (unresolved). */
void coll_top_resolve(struct coll_top *t, uint64_t max_rss_kib);

#endif
