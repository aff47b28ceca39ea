/* peakmaps: what was in memory at the peak. Each time the tree's PSS makes a
 * new running maximum, the collector names the largest processes in it; a
 * thread of this module's own reads their memory maps (smaps.h) within a
 * share of one core, and keeps them in place of the previous peak's. The
 * recorder writes them with the run and a replay reads them back, so that a
 * map of the peak's processes can be shown after the fact. Thread-safe: its
 * own lock, held for copies only. */
#ifndef SPACETIME_PEAKMAPS_H
#define SPACETIME_PEAKMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "smaps.h"

#define PEAKMAPS_PROCS 4 /* the largest processes of a peak mapped */

struct peakmaps_proc {
	uint64_t id; /* the process's id in the store */
	pid_t pid;
	uint64_t pss_kib; /* its PSS in the peak (the largest are taken) */
};

/* One group of one process's map, taken at t_ns. */
struct peakmaps_row {
	uint64_t id;
	uint64_t t_ns;
	struct smaps_group g;
};

struct peakmaps;

/* A keeper of peak maps; with reader set, its thread reads the maps asked
 * for (proc_root: the /proc to read, NULL "/proc"; share: the part of one
 * core the reads may take). NULL + errno. */
struct peakmaps *peakmaps_new(const char *proc_root, double share, int reader);
void peakmaps_free(struct peakmaps *pm);

/* A new running maximum at t_ns made of these processes (n of them): the
 * largest PEAKMAPS_PROCS are to be mapped. Never waits: a request not yet
 * read is replaced by the newer one. */
void peakmaps_take(struct peakmaps *pm, uint64_t t_ns, const struct peakmaps_proc *p, size_t n);
/* Sets the maps kept (a replay's, from its recording). 0 or -ENOMEM. */
int peakmaps_set(struct peakmaps *pm, const struct peakmaps_row *rows, size_t n);
/* A copy of every row kept (*out malloc'd, NULL when none); *gen grows with
 * each change. Returns the count or -ENOMEM. */
ssize_t peakmaps_rows(struct peakmaps *pm, struct peakmaps_row **out, uint64_t *gen);
/* The map kept of process id as a view (smaps_view_free it), and when it was
 * taken. Returns 1 when there is one, 0 when not, -ENOMEM. */
int peakmaps_view(struct peakmaps *pm, uint64_t id, struct smaps_view *out, uint64_t *t_ns);
/* Reads a request still waiting for its budget at once, and waits until none
 * is pending or being read, PEAKMAPS_DRAIN_NS at most (the run's end: the
 * last peak's maps go into the recording; tests). */
void peakmaps_drain(struct peakmaps *pm);
#define PEAKMAPS_DRAIN_NS 2000000000ull
/* The maps' generation (peakmaps_rows' gen) without copying them. */
uint64_t peakmaps_gen(struct peakmaps *pm);

#endif
