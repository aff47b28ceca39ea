/* pssmodel: the tree's PSS between smaps_rollup reads, how sure it is, and
 * when to confirm it with a sweep. Pure: the collector describes its live
 * processes (cheap counters now, the last read), this estimates each one,
 * bounds it from above, and picks what a sweep must read so that a sample
 * that may be a new peak is a sum of reads, not a guess.
 *
 * The model, per process:
 * - read and unchanged since (same anonymous and shared RSS, no faults past
 *   what the RSS growth explains, no fork): its PSS is the read's;
 * - anonymous growth is counted in full (new pages are private); a process
 *   whose read showed no sharing and that only grew anonymous memory is known
 *   exactly (its PSS grows page for page with its RSS);
 * - shrinking anonymous memory, and shared (file, shmem) changes, are scaled
 *   by the read's PSS/RSS ratio, and bounded above by the change in full;
 * - faults the RSS growth does not explain may be copy-on-write breaks of
 *   shared pages: each can move up to a page into the tree's total;
 * - a never-read process is estimated from its program's ratios (learned from
 *   reads of the same program in this run) and bounded by its RSS;
 * - when a process that shared pages exits, its share of them passes to the
 *   processes still mapping them, perhaps in the tree: a "ghost" of it is kept
 *   in the upper bound (half in the estimate) until a sweep re-reads them;
 * - when other processes start mapping pages (a fork, a new program, shared
 *   memory read), a process's share of the pages it shares may fall: its
 *   lower bound falls by as much as half of what they mapped.
 * A sample may be a new peak when the tree's estimate passes the highest
 * measured total (or its upper bound passes it by far); a sweep then reads
 * processes, most uncertain first, until what is left unread is known to
 * within PSSMODEL_SURE of the total. */
#ifndef SPACETIME_PSSMODEL_H
#define SPACETIME_PSSMODEL_H

#include <stddef.h>
#include <stdint.h>

/* A sweep stops when the unread processes' uncertainty is under this share of
 * the tree's total; a sample that meets it counts as measured. */
#define PSSMODEL_SURE 0.005
/* A sweep starts when the tree's estimate passes the measured peak by
 * PSSMODEL_EPS, or by PSSMODEL_SETTLE once it stops rising (a plateau is
 * read exactly, a climb not at every tick), or when its upper bound passes
 * the peak by PSSMODEL_EPS_HI (an estimate far too low is not trusted); and
 * by PSSMODEL_MIN_KIB. */
#define PSSMODEL_EPS 0.01
#define PSSMODEL_SETTLE 0.002
#define PSSMODEL_EPS_HI 0.5
/* When sweeps have cost more than their allowance (pssmodel.thrifty), a
 * climb is read only every PSSMODEL_EPS_THRIFTY; a plateau still exactly. */
#define PSSMODEL_EPS_THRIFTY 0.05
#define PSSMODEL_MIN_KIB 64

struct pssmodel_proc {
	/* in: now, from statm and stat */
	uint64_t anon_rss_kib, shared_rss_kib; /* shared: file + shmem */
	uint64_t faults;          /* page faults, minor + major (a copy-on-write
				   * break of a swapped-out page is a major one) */
	/* in: the last smaps_rollup read (when read != 0) */
	int read;
	uint64_t rd_pss_anon_kib, rd_pss_file_kib, rd_pss_shmem_kib;
	uint64_t rd_anon_rss_kib, rd_shared_rss_kib; /* RSS in the same read */
	uint64_t rd_private_kib;  /* Private_Clean + Private_Dirty */
	uint64_t rd_faults;       /* faults when read */
	int forked;               /* it forked since the read: its pages are now shared */
	/* in: what others did since its read: pages they started mapping (new
	 * processes' RSS, others' growth of shared RSS), which may be its pages
	 * and lower its share; and shared parts of processes that exited, which
	 * it may inherit */
	uint64_t diluted_kib, ghosted_kib;
	/* in: for a never-read process, the PSS/RSS ratios of its program's reads
	 * (anonymous, shared), or negative when none was read */
	double prog_anon_ratio, prog_shared_ratio;
	int fork_only;            /* it has not exec'd: its anonymous pages are its parent's too */
	int forks_known;          /* every fork is seen (netlink, none lost): forked tells
				   * whether it forked since its exec, when never read */
	uint64_t inherit_max_kib; /* a child that has not exec'd: at most this much of its
				   * anonymous RSS came from its parent (its parent's
				   * high-water RSS after the fork); UINT64_MAX: unknown */
	int unreadable;           /* its smaps_rollup is refused: a sweep cannot settle it */
	int swept;                /* read by the sweep under way (pssmodel_sweep sets it;
				   * filling the struct anew clears it) */
	int skip;                 /* not for the sweep under way to read (its instant is
				   * before this process began): neither picked nor its
				   * doubt counted */
	/* out (pssmodel_estimate) */
	uint64_t est_anon_kib, est_file_kib, est_shmem_kib;
	uint64_t est_kib;  /* the estimate: the three above */
	uint64_t hi_kib;   /* an upper bound of its PSS now */
	uint64_t lo_kib;   /* a lower bound */
	uint64_t own_file_kib; /* of own_kib, private file pages of its read (others may
				* map them since) */
	uint64_t own_kib;  /* a lower bound of its own pages, mapped by no other
			    * process: what leaves the tree with it, where its
			    * shares of the rest pass to their other mappers */
	uint64_t unpaid_kib; /* RSS it does not pay for: what it could inherit */
	uint64_t inherit_kib; /* what it may have inherited from ghosts since its read */
	uint64_t released_kib; /* its share of pages it stopped sharing since its read
				* (copy-on-write breaks, shared memory unmapped): others
				* may now pay for it, as for an exit's ghost */
	int exact;         /* est_kib is its PSS now, as a read would say */
};

/* Estimates p from its counters and last read (fills the out fields). */
void pssmodel_estimate(struct pssmodel_proc *p, uint64_t page_kib);
/* How much a read of p would settle: hi - lo, plus what it may inherit from
 * processes gone since its read (the RSS it did not pay for). */
uint64_t pssmodel_doubt(const struct pssmodel_proc *p);
/* Its share of pages others map too, at its last read (or all of its
 * estimate when never read): what its exit can pass on to others. */
uint64_t pssmodel_shared_part(const struct pssmodel_proc *p);

/* The tree. */
struct pssmodel {
	uint64_t peak_kib;     /* the highest measured total so far */
	uint64_t ghost_kib;    /* shared parts of processes gone, not yet re-read */
	uint64_t last_est_kib; /* the estimate at the last observed sample */
	uint64_t tried_kib;    /* the estimate of the last sweep that could not make its
				* sample sure (0: none since a sure one); the next
				* sweep waits for the estimate to pass it */
	uint64_t settled_kib;  /* the estimate at the last sweep that held still: a
				* plateau is swept once */
	int thrifty;           /* set by the caller: sweeps have spent their allowance */
	uint64_t pending_kib;  /* set by the caller: of ghost_kib, those whose pages may
				* still be mapped (their process's exit not yet seen
				* through): kept even when nobody alive can inherit them
				* yet (a read before they go may inherit them after) */
};

/* A process left the tree: keeps its shared part as a ghost. */
void pssmodel_exit(struct pssmodel *m, const struct pssmodel_proc *p);
/* Adds kib of shared pages a process gave up (an exit's part, or what it
 * stopped sharing: released_kib) to the ghosts. */
void pssmodel_add_ghost(struct pssmodel *m, uint64_t kib);

/* The tree's totals at one tick, from the live processes' estimates. */
struct pssmodel_total {
	uint64_t est_kib;   /* estimate: the sum, plus half the ghosts */
	uint64_t hi_kib;    /* upper bound: the sum of bounds, plus the ghosts */
	uint64_t doubt_kib; /* how far est_kib may be off: the processes' doubt (hi - lo
			     * and what they may have inherited) */
	uint64_t lo_kib;    /* a lower bound: the sum of the processes' (no ghost, which
			     * may have passed to no one alive) */
	uint64_t ghost_kib; /* ghosts in effect (no more than the living can have inherited) */
};
void pssmodel_total(const struct pssmodel *m, const struct pssmodel_proc *procs, size_t n,
		    struct pssmodel_total *out);
/* Whether the tree may be at a new peak that the reads have not confirmed. */
int pssmodel_need_sweep(const struct pssmodel *m, const struct pssmodel_total *t);
/* Writes to out the indices of the processes a sweep reads, most doubt first,
 * until the doubt left unread is under PSSMODEL_SURE of the total, counting
 * the doubt that those it already read (.swept, not picked again) kept: none
 * when that alone is past it. Those marked .skip are neither picked nor
 * counted. Returns how many. O(n log n); out holds n. */
size_t pssmodel_pick(const struct pssmodel *m, const struct pssmodel_proc *procs, size_t n,
		     const struct pssmodel_total *t, uint32_t *out);
/* A sweep: reads the processes pssmodel_pick picks, through read (which
 * re-estimates procs[i] from a fresh smaps_rollup read), and totals them
 * again into t. Reads move the total, and what may be left unread with it:
 * when the total fell so far that the doubt left is past PSSMODEL_SURE of it,
 * it picks again from the processes it has not read, up to
 * PSSMODEL_SWEEP_PASSES rounds in all. Writes to out (holds n) the indices
 * read; returns how many. */
#define PSSMODEL_SWEEP_PASSES 3
size_t pssmodel_sweep(const struct pssmodel *m, struct pssmodel_proc *procs, size_t n, struct pssmodel_total *t,
		      uint32_t *out, void (*read)(void *ctx, uint32_t i), void *ctx);
/* Takes a sample's totals: when it is measured (trusted: its reads held
 * still and every process was counted; and the doubt left within
 * PSSMODEL_SURE) and higher than the measured peak, it is the new peak. A
 * sweep (swept) that could not make it sure raises the level the next sweep
 * waits for, so reads that cannot settle a doubt are not repeated at every
 * tick. Returns 1 when measured. */
int pssmodel_observe(struct pssmodel *m, const struct pssmodel_total *t, int trusted, int swept);
/* Whether a sample's estimate is measured: its doubt is within PSSMODEL_SURE. */
int pssmodel_sure(const struct pssmodel_total *t);

#endif
