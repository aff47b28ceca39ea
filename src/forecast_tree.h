/* forecast_tree: a recorded run's process tree read as a build, for the
 * forecast (forecast_rec.h says the rules): which processes are the build
 * tool's, which are jobs and what each job holds, in what order the jobs
 * became ready and what each waited on, and the recorded -j. Reads the
 * store's records and tree samples; pure otherwise. */
#ifndef SPACETIME_FORECAST_TREE_H
#define SPACETIME_FORECAST_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "forecast.h"
#include "store.h"

struct forecast_curve;

#define FORECAST_TREE_NONE SIZE_MAX
/* How soon after a job's end another's start may have waited on it, at
 * most (a poll of /proc an hour apart would make it two hours: every job
 * waiting on every other), and the jobs one is seen waiting on, at most. */
#define FORECAST_TREE_WINDOW_MAX 1000000000ull
#define FORECAST_TREE_DEPS_MAX 32

/* A job: the process at its root (FORECAST_TREE_NONE: a barrier, no
 * process), its span, its CPU, its heaviest process. */
struct forecast_tree_job {
	size_t root, heavy;
	uint64_t start_ns, end_ns, cpu_ns;
};

/* Job `job` waits on job `on` (indices in the jobs' order). */
struct forecast_tree_edge {
	uint32_t job, on;
};

struct forecast_tree {
	struct store *st;
	struct store_summary sum;
	struct proc_rec *p; /* the run's records */
	size_t n;
	size_t *parent;          /* proctree.h */
	size_t *kid_off, *kids;  /* process i's children, by start: kids[kid_off[i]..kid_off[i + 1]) */
	size_t *tin, *tout;      /* the tree walk: j under i iff tin[i] <= tin[j] <= tout[i] */
	size_t *walk;            /* the processes in the walk's order: walk[tin[i]] == i */
	unsigned char *tool;     /* 1: a build tool; 2: no tool, but runs one */
	size_t *owner;           /* each process's job (FORECAST_TREE_NONE: the tool's side) */
	struct forecast_tree_job *jobs; /* in the order they became ready (by start) */
	size_t nj, njobs;        /* with the barriers, and without */
	struct forecast_tree_edge *edges;
	size_t ne, ndeps_seen;
	uint64_t run_start, run_end, window_ns;
	uint64_t refill_ns;      /* ends this close, no start between: one (forecast_tree_deps) */
	unsigned slots, most;    /* the recorded -j (0: unlimited), the most jobs at once */
	int slots_from;          /* enum forecast_slots_from (forecast_rec.h) */
	unsigned slots_said;     /* the -j the command line says (FORECAST_FROM_ARGV; 0: unlimited) */
	char slots_word[32];
	char tool_name[16];      /* the outermost tool ("": none) */
};

/* The tree of the recorded run in st, read as a build; window_ns: how soon
 * after a job's end another's start may have waited on it (more when the
 * run polled /proc: two intervals, FORECAST_TREE_WINDOW_MAX at most).
 * Returns 0, -ENODATA (no job) or -ENOMEM. */
int forecast_tree_new(struct store *st, uint64_t window_ns, struct forecast_tree **out);
void forecast_tree_free(struct forecast_tree *t);

/* forecast_tree_new's last phases: the recorded -j (and the most jobs at
 * once), then the dependencies a -jN recording shows. Return 0 or -ENOMEM. */
int forecast_tree_slots(struct forecast_tree *t);
int forecast_tree_deps(struct forecast_tree *t);

/* Adds "job `job` waits on job `on`" to t's edges (cap: their room).
 * Returns 0 or -ENOMEM. */
int forecast_tree_edge_add(struct forecast_tree *t, size_t *cap, size_t job, size_t on);

/* The processes of each job: procs[off[j]..off[j + 1]) (malloc'd both).
 * Returns 0 or -ENOMEM. */
int forecast_tree_job_procs(const struct forecast_tree *t, size_t **procs, size_t **off);

/* Each job's file-backed share (anon_share, file_mult of jobs[], in the
 * tree's order), from the tree's samples at the instants of its life, and
 * the tool's own processes at their highest sum into *tool_kib; the jobs'
 * file-backed part over their PSS into *file_share. Returns 0 or -ENOMEM. */
int forecast_tree_shares(const struct forecast_tree *t, const struct forecast_curve *c, struct forecast_job *jobs,
			 uint32_t nprogs, uint64_t *tool_kib, double *file_share);

/* The -j of argv[0..argc), the command line of build tool tool (make and
 * its kin, ninja, samu, cargo): -jN, -j N, --jobs=N, --jobs N, a cluster
 * (-kj4), a MAKEFLAGS=... word. Returns 1 with *slots (0: unlimited, -j
 * alone) and the words that said it in word, 0 when it says none. */
int forecast_tree_jobs_arg(const char *tool, const char *const *argv, size_t argc, unsigned *slots, char *word,
			   size_t cap);

#endif
