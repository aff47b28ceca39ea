/* coll_pss: the collector's job that estimates each process's PSS between
 * its smaps_rollup reads (pssmodel.h), spends the CPU budget on the reads
 * that matter most (pssched.h), sweeps the tree when it may be at a peak,
 * and keeps the peak; its state, and its part of the collector's API
 * (collector_int.h holds the shared state). */
#ifndef SPACETIME_COLL_PSS_H
#define SPACETIME_COLL_PSS_H

#include <stddef.h>
#include <stdint.h>

#include "coll_rss.h"
#include "coll_top.h"
#include "pssched.h"
#include "pssmodel.h"
#include "ptable.h"
#include "store.h"

struct collector;

/* Programs whose PSS/RSS ratios are learned from reads (a never-read process
 * is estimated from its program's). */
#define COLLECTOR_PROGS 256
/* The shared RSS taken for a program never read, when one of its processes
 * left never seen by a tick (a dynamic program's libraries, about). */
#define COLL_PSS_SHARED_GUESS_KIB 2048

struct prog_ratio {
	char comm[16]; /* "" = free */
	double anon, shared;
	uint64_t shared_kib; /* the most shared RSS a read of it saw */
	uint64_t file_kib;   /* the most file and shared memory RSS a tick saw of it */
	int file_seen;       /* file_kib holds: a tick saw one of its processes */
};

struct coll_pss {
	struct pssched_budget tokens; /* the PSS reads' budget */
	uint64_t sched_cpu_ns;  /* process CPU time when the last PSS round ended */
	uint64_t sched_read_ns; /* when the PSS budget last read spacetime's CPU */
	size_t sched_cap;
	/* the PSS model: one entry per counted live process at a tick */
	struct pssmodel model;
	uint64_t top_ghost_est, top_ghost_hi; /* the ghosts' part of its estimate, bound */
	uint64_t top_ghost_prev_est, top_ghost_prev_hi; /* the same at the tick before */
	uint64_t top_live_hi;  /* its bound, unread (exiting) processes at their last */
	size_t mp_cap;
	struct prog_ratio progs[COLLECTOR_PROGS];
	struct sample peak_meas;  /* the highest measured sample */
	struct sample peak_exit;  /* the highest exit sample (have_exit) */
	struct sample peak_floor; /* the highest tick floor (have_floor) */
	int have_floor;
	int floor_traced;         /* it is a traced one (coll_rss.c) */
	struct coll_top_sample peak_exit_x; /* what the exit sample holds */
	int have_exit;
	int have_meas;
	double est_area, pss_area; /* for sum.pss_est_share */
	uint64_t sweep_cpu_ns;     /* what sweeps' reads cost */
	uint64_t prev_est_kib;     /* the tree's estimate at the last tick */
	uint64_t dil_cum_kib;      /* KiB newly mapped in the tree (new processes, shared growth) */
	uint64_t ghost_cum_kib;    /* KiB of shared parts of processes gone or exec'd */
	uint64_t ghost_pending_kib; /* of those, the parts of processes whose memory left
				     * and whose exit event has not come: their pages may
				     * still be mapped (the kernel lets an mm go after the
				     * task's status stops showing it), so a read now
				     * cannot have inherited them yet */
};

int coll_pss_counts(const struct collector *c, const struct pentry *e);
uint64_t coll_pss_leave(struct collector *c, const struct pentry *e);
int coll_pss_forks_known(const struct collector *c, const struct pentry *e);
uint64_t coll_pss_program_start(const struct pentry *e);
void coll_pss_gone(struct collector *c, const struct pentry *e, uint64_t t_ns, uint64_t hw_kib,
		   int have_hw, uint64_t dfaults, int by_exec);
uint64_t coll_pss_read(struct collector *c, struct pentry *e, uint64_t now, uint64_t *clk);
void coll_pss_schedule(struct collector *c, uint64_t now);
int coll_pss_tick(struct collector *c, struct sample *s, uint64_t now, const struct coll_rss_ends *ends);
void coll_pss_peak(struct collector *c, const struct sample *s, int sure, uint64_t now,
		   const struct coll_top_sample *x);
void coll_pss_peak_procs(struct collector *c, uint64_t t_ns);
void coll_pss_exit_sample(struct collector *c, const struct sample *s, uint64_t now);
void coll_pss_traced_floor(struct collector *c, const struct sample *fs);
/* The tree's peak so far: the model's measured one, or a floor above it. */
uint64_t coll_pss_peak_kib(const struct collector *c);
/* s as a floor: its PSS at lo_kib (its split scaled to it), its doubt how far
 * above it hi_kib is (no more than itself) */
void coll_pss_floor_of(const struct sample *s, uint64_t lo_kib, uint64_t hi_kib, struct sample *fs);

#endif
