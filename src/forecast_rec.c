/* forecast_rec.c: a recorded run as the forecast's job list
 * (forecast_rec.h). The phases, in order: the process tree, the tool's
 * processes and the jobs, the barriers of recipes' shells, the order and
 * the dependencies, the recorded -j, the curves, the file-backed shares. */
#include "forecast_rec.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cglimit.h"
#include "export_jobs.h"
#include "forecast_curve.h"
#include "forecast_match.h"
#include "forecast_tree.h"
#include "memwarn.h"

/* The curves' step at the finest, and the bins of all jobs at most (past
 * them the step grows). */
#define FR_STEP_NS 10000000ull
#define FR_BINS_MAX 4000000ull
#define FR_STEP_MAX (1ull << 62)
/* A start this soon after an end may have waited on it (netlink: exact
 * times; polling /proc: two intervals). */
#define FR_DEP_WINDOW_NS 50000000ull

struct forecast_rec {
	struct forecast_model model;
	struct forecast_rec_info info;
	struct forecast_job *jobs;
	uint32_t *pss, *deps;
	char (*names)[JOBNAME_MAX + 1];
};

const struct forecast_model *forecast_rec_model(const struct forecast_rec *fr)
{
	return &fr->model;
}

const struct forecast_rec_info *forecast_rec_info(const struct forecast_rec *fr)
{
	return &fr->info;
}

const char *forecast_rec_job(const struct forecast_rec *fr, size_t j)
{
	return j < fr->model.njobs ? fr->names[j] : "";
}

void forecast_rec_free(struct forecast_rec *fr)
{
	if (!fr)
		return;
	free(fr->jobs);
	free(fr->pss);
	free(fr->deps);
	free(fr->names);
	free(fr);
}

static int cmp_edge(const void *x, const void *y)
{
	const struct forecast_tree_edge *a = x, *b = y;
	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	return (a->on > b->on) - (a->on < b->on);
}

/* The jobs' dependencies, from the edges (job indices in the sorted order),
 * into fr->deps and each job's deps. Returns 0 or -ENOMEM. */
static int model_deps(struct forecast_rec *fr, struct forecast_tree *t)
{
	if (t->ne)
		qsort(t->edges, t->ne, sizeof(*t->edges), cmp_edge);
	if (!(fr->deps = malloc((t->ne + 1) * sizeof(*fr->deps))))
		return -ENOMEM;
	size_t k = 0;
	for (size_t e = 0; e < t->ne; e++) {
		const struct forecast_tree_edge *g = &t->edges[e];
		if (g->on >= g->job || (k && e && g->job == t->edges[e - 1].job && g->on == t->edges[e - 1].on))
			continue; /* not before it (cannot be), or said twice */
		struct forecast_job *jb = &fr->jobs[g->job];
		if (!jb->ndeps)
			jb->deps = fr->deps + k;
		jb->ndeps++;
		fr->deps[k++] = g->on;
	}
	return 0;
}

/* The bins of the jobs' curves on a step, together (saturating). */
static uint64_t bins_of(const struct forecast_tree *t, uint64_t step)
{
	uint64_t total = 0;
	for (size_t j = 0; j < t->nj; j++) {
		uint64_t nb = (t->jobs[j].end_ns - t->jobs[j].start_ns) / step + 1;
		total = total > UINT64_MAX - nb ? UINT64_MAX : total + nb;
	}
	return total;
}

/* The step of the curves: FR_STEP_NS, or more when the jobs are long, so
 * that their bins together are FR_BINS_MAX at most past one a job however
 * long a recording says they ran (the sum of their times taken as a
 * double: four jobs of 5.6e18 ns wrapped a uint64_t). FR_STEP_MAX at most,
 * so that a bin's end never wraps. */
static uint64_t step_of(const struct forecast_tree *t)
{
	double total = 0;
	for (size_t j = 0; j < t->nj; j++)
		total += (double)(t->jobs[j].end_ns - t->jobs[j].start_ns);
	uint64_t step = FR_STEP_NS;
	if (total / (double)step > (double)FR_BINS_MAX) {
		double ms = ceil(total / (double)FR_BINS_MAX / 1e6);
		step = ms * 1e6 >= (double)FR_STEP_MAX ? FR_STEP_MAX : (uint64_t)ms * 1000000;
	}
	while (step < FR_STEP_MAX && bins_of(t, step) > FR_BINS_MAX + t->nj) /* the double's rounding */
		step = step > FR_STEP_MAX / 2 ? FR_STEP_MAX : 2 * step;
	return step;
}

/* Each job's curve (the sum of its processes', on the step) into
 * fr->pss. Returns 0 or -ENOMEM. */
static int model_curves(struct forecast_rec *fr, struct forecast_tree *t, const struct forecast_curve *c)
{
	uint64_t step = fr->model.step_ns;
	size_t total = 0;
	for (size_t j = 0; j < t->nj; j++)
		total += t->jobs[j].root == FORECAST_TREE_NONE ? 0
									: (size_t)((t->jobs[j].end_ns - t->jobs[j].start_ns) / step + 1);
	size_t *procs = NULL, *off = NULL;
	if (!(fr->pss = malloc((total + 1) * sizeof(*fr->pss))) || forecast_tree_job_procs(t, &procs, &off) < 0) {
		free(procs);
		free(off);
		return -ENOMEM;
	}
	size_t k = 0;
	int r = 0;
	for (size_t j = 0; j < t->nj && r == 0; j++) {
		const struct forecast_tree_job *fj = &t->jobs[j];
		if (fj->root == FORECAST_TREE_NONE)
			continue;
		size_t nb = (size_t)((fj->end_ns - fj->start_ns) / step + 1);
		r = forecast_curve_bins(c, procs + off[j], off[j + 1] - off[j], fj->start_ns, fj->end_ns, step,
					fr->pss + k, nb);
		fr->jobs[j].pss_kib = fr->pss + k;
		fr->jobs[j].npss = nb;
		k += nb;
		for (size_t q = off[j]; q < off[j + 1]; q++)
			fr->info.unknown_pss += !forecast_curve_known(c, procs[q]);
	}
	free(procs);
	free(off);
	return r;
}

static int by_comm(const void *x, const void *y, void *arg)
{
	const char (*comm)[17] = arg;
	return strcmp(comm[*(const size_t *)x], comm[*(const size_t *)y]);
}

/* The jobs' names and programs (their heaviest processes'; a program's
 * jobs share an id). Returns 0 or -ENOMEM. */
static int model_names(struct forecast_rec *fr, struct forecast_tree *t)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	char (*comm)[17] = malloc((t->nj + 1) * sizeof(*comm));
	size_t *ix = malloc((t->nj + 1) * sizeof(*ix));

	if (!(fr->names = calloc(t->nj + 1, sizeof(*fr->names))) || !comm || !ix) {
		free(comm);
		free(ix);
		return -ENOMEM;
	}
	for (size_t j = 0; j < t->nj; j++) {
		const struct forecast_tree_job *fj = &t->jobs[j];
		comm[j][0] = 0;
		if (fj->root == FORECAST_TREE_NONE)
			continue;
		const struct proc_rec *h = &t->p[fj->heavy];
		export_proc_job(t->st, h, &buf, &cap, fr->names[j], sizeof(fr->names[j]));
		snprintf(comm[j], sizeof(comm[j]), "%.16s", h->comm);
		ix[n++] = j;
	}
	qsort_r(ix, n, sizeof(*ix), by_comm, comm);
	uint32_t id = 0;
	for (size_t k = 0; k < n; k++) {
		if (k && strcmp(comm[ix[k]], comm[ix[k - 1]]))
			id++;
		fr->jobs[ix[k]].prog = id;
	}
	fr->model.nprogs = id + 1;
	free(buf);
	free(comm);
	free(ix);
	return 0;
}

/* The dependencies the other recordings show, carried over. Returns 0 or
 * -ENOMEM. */
static int model_more(struct forecast_rec *fr, struct forecast_tree *t, struct store *const *more, size_t nmore)
{
	for (size_t i = 0; i < nmore; i++) {
		ssize_t k = forecast_match_deps(t, (const char(*)[JOBNAME_MAX + 1])fr->names, more[i], FR_DEP_WINDOW_NS);
		if (k < 0)
			return (int)k;
		fr->info.ndeps_runs += (size_t)k;
	}
	return 0;
}

/* The model of the tree's jobs, in fr. Returns 0 or -ENOMEM. */
static int model_of(struct forecast_rec *fr, struct forecast_tree *t, const struct forecast_curve *c,
		    struct store *const *more, size_t nmore)
{
	if (!(fr->jobs = calloc(t->nj + 1, sizeof(*fr->jobs))))
		return -ENOMEM;
	for (size_t j = 0; j < t->nj; j++) {
		const struct forecast_tree_job *fj = &t->jobs[j];
		fr->jobs[j] = (struct forecast_job){.dur_ns = fj->end_ns - fj->start_ns, .cpu_ns = fj->cpu_ns,
						    .anon_share = 1,
						    .flags = fj->root == FORECAST_TREE_NONE ? FORECAST_BARRIER : 0};
		if (fj->root == FORECAST_TREE_NONE)
			fr->jobs[j].dur_ns = 0;
	}
	fr->model.jobs = fr->jobs;
	fr->model.njobs = t->nj;
	fr->model.step_ns = step_of(t);
	fr->model.cores = 1;
	int r;
	if ((r = model_names(fr, t)) < 0 || (r = model_more(fr, t, more, nmore)) < 0 || (r = model_deps(fr, t)) < 0 ||
	    (r = model_curves(fr, t, c)) < 0)
		return r;
	return forecast_tree_shares(t, c, fr->jobs, fr->model.nprogs, &fr->model.tool_kib, &fr->info.file_share);
}

/* The run's figures: measured peak and wall, head and tail around the
 * jobs. */
static void model_times(struct forecast_rec *fr, const struct forecast_tree *t)
{
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t j = 0; j < t->nj; j++) {
		if (t->jobs[j].root == FORECAST_TREE_NONE)
			continue;
		if (t->jobs[j].start_ns < first)
			first = t->jobs[j].start_ns;
		if (t->jobs[j].end_ns > last)
			last = t->jobs[j].end_ns;
	}
	fr->model.head_ns = first > t->run_start && first != UINT64_MAX ? first - t->run_start : 0;
	fr->model.tail_ns = t->run_end > last ? t->run_end - last : 0;
	fr->info.measured_wall_ns = t->run_end - t->run_start;
	fr->info.measured_peak_kib = t->sum.peak.pss_kib;
}

int forecast_rec_build(struct store *st, struct store *const *more, size_t nmore, struct forecast_rec **out)
{
	struct forecast_rec *fr = calloc(1, sizeof(*fr));
	struct forecast_tree *t = NULL;
	struct forecast_curve *c = NULL;
	int r = -ENOMEM;

	*out = NULL;
	if (!fr)
		return -ENOMEM;
	if ((r = forecast_tree_new(st, FR_DEP_WINDOW_NS, &t)) < 0)
		goto out;
	if (!(c = forecast_curve_new(st, t->p, t->n, t->run_end))) {
		r = -errno;
		goto out;
	}
	if ((r = model_of(fr, t, c, more, nmore)) < 0)
		goto out;
	model_times(fr, t);
	fr->info.njobs = t->njobs;
	fr->info.ndeps_seen = t->ndeps_seen;
	fr->info.nbarriers = t->nj - t->njobs;
	/* the dependencies were read at the recorded -j; the forecast runs
	 * FORECAST_SLOTS_MAX at most */
	fr->info.recorded_slots = t->slots > FORECAST_SLOTS_MAX ? FORECAST_SLOTS_MAX : t->slots;
	fr->info.slots_over = t->slots > FORECAST_SLOTS_MAX ? t->slots : 0;
	fr->info.slots_from = t->slots_from;
	fr->info.slots_said = t->slots_said;
	snprintf(fr->info.slots_word, sizeof(fr->info.slots_word), "%s", t->slots_word);
	fr->info.most_at_once = t->most;
	snprintf(fr->info.tool, sizeof(fr->info.tool), "%s", t->tool_name);
	fr->info.tool_kib = fr->model.tool_kib;
	fr->info.step_ns = fr->model.step_ns;
	fr->info.dep_window_ns = t->window_ns;
	fr->info.dropped_samples = forecast_curve_dropped(c);
	*out = fr;
	fr = NULL;
	r = 0;
out:
	forecast_curve_free(c);
	forecast_tree_free(t);
	forecast_rec_free(fr);
	return r;
}

int forecast_rec_machine(uint64_t *ram_kib, int *by_cgroup, unsigned *cpus)
{
	cpu_set_t set;
	long n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
	*cpus = n > 0 ? (unsigned)n : 1;
	*by_cgroup = 0;
	/* a cgroup's memory.max binds before the machine's memory */
	struct cglimit *cl = cglimit_open(NULL, NULL, getpid());
	uint64_t room, limit;
	int have = cl && cglimit_room(cl, &room, &limit) == 0 && limit;
	cglimit_close(cl);
	if (have) {
		*ram_kib = limit;
		*by_cgroup = 1;
		return 0;
	}
	char buf[4096];
	int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	int e = errno;
	if (fd >= 0)
		close(fd);
	uint64_t avail;
	if (len <= 0)
		return -(len < 0 ? e : EIO);
	return memwarn_parse_meminfo(buf, (size_t)len, ram_kib, &avail);
}
