/* forecast_share.c: the jobs' file-backed shares and the tool's own memory
 * (forecast_tree.h), from the tree's samples: each sample splits the
 * tree's PSS into anonymous and file-backed pages; the jobs alive then
 * are given the tree's file-backed share of their PSS, as a copy of their
 * program alone would hold it (times the copies that split it then). */
#include "forecast_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "forecast_curve.h"

/* What is alive at the instants of a sweep forward in time: items by
 * start (order), each with its span. */
struct live {
	const size_t *order;
	size_t n, next;
	size_t *act, nact;
};

/* Moves the sweep to t: items begun by t in, items ended before t out. */
static void live_to(struct live *l, uint64_t t, const uint64_t *start, const uint64_t *end)
{
	while (l->next < l->n && start[l->order[l->next]] <= t)
		l->act[l->nact++] = l->order[l->next++];
	for (size_t k = 0; k < l->nact;)
		if (end[l->act[k]] < t)
			l->act[k] = l->act[--l->nact];
		else
			k++;
}

/* The sums over the samples, a job each. */
struct sums {
	double *file, *pss, *copies; /* a job each: file-backed part, PSS, copies alive, summed */
	double *now;                 /* a job each: its processes' PSS at the sample */
	double *prog_file, *prog_pss; /* a program each: its jobs' file and pss */
	uint32_t *count; /* per program: its jobs alive now */
	uint64_t tool_max;
	int any;
};

/* The sweeps over the samples: the jobs, the tool's processes, the jobs'
 * processes; the spans of jobs (js, je) and of processes (ps, pe). */
struct sweeps {
	struct live lj, lt, lp;
	const uint64_t *js, *je, *ps, *pe;
};

/* One sample of the tree: its file-backed share to the jobs alive, each
 * weighed by its PSS at that instant (its processes' curves there: a job's
 * binned curve holds the most of each step, high already where the tree's
 * sample, taken as the job began, was mostly the tool's file pages). */
static void one_sample(const struct forecast_tree *t, const struct forecast_curve *c, struct forecast_job *jobs,
		       const struct sample *s, struct sweeps *w, struct sums *u)
{
	double ratio = (double)s->pss_file_kib / (double)s->pss_kib, tool = 0;
	if (ratio > 1)
		ratio = 1;
	live_to(&w->lj, s->t_ns, w->js, w->je);
	live_to(&w->lt, s->t_ns, w->ps, w->pe);
	live_to(&w->lp, s->t_ns, w->ps, w->pe);
	for (size_t k = 0; k < w->lt.nact; k++)
		tool += forecast_curve_at(c, w->lt.act[k], s->t_ns);
	if ((uint64_t)tool > u->tool_max)
		u->tool_max = (uint64_t)tool;
	u->any = 1;
	for (size_t k = 0; k < w->lp.nact; k++)
		u->now[t->owner[w->lp.act[k]]] += forecast_curve_at(c, w->lp.act[k], s->t_ns);
	for (size_t k = 0; k < w->lj.nact; k++)
		u->count[jobs[w->lj.act[k]].prog]++;
	for (size_t k = 0; k < w->lj.nact; k++) {
		size_t j = w->lj.act[k];
		double v = u->now[j];
		u->file[j] += ratio * v;
		u->pss[j] += v;
		u->copies[j] += u->count[jobs[j].prog] * v;
	}
	for (size_t k = 0; k < w->lj.nact; k++)
		u->count[jobs[w->lj.act[k]].prog] = 0;
	for (size_t k = 0; k < w->lp.nact; k++)
		u->now[t->owner[w->lp.act[k]]] = 0;
}

/* Each job's shares from the sums: its own where it was seen, else its
 * program's, else all jobs'. */
static void set_shares(const struct forecast_tree *t, struct forecast_job *jobs, struct sums *u,
		       double *file_share)
{
	double *pf = u->prog_file, *pp = u->prog_pss, f = 0, p = 0;

	for (size_t j = 0; j < t->nj; j++) {
		pf[jobs[j].prog] += u->file[j];
		pp[jobs[j].prog] += u->pss[j];
		f += u->file[j];
		p += u->pss[j];
	}
	*file_share = p > 0 ? f / p : 0;
	for (size_t j = 0; j < t->nj; j++) {
		double phi = u->pss[j] > 0 ? u->file[j] / u->pss[j] : pp[jobs[j].prog] > 0 ? pf[jobs[j].prog] / pp[jobs[j].prog]
											 : *file_share;
		double copies = u->pss[j] > 0 ? u->copies[j] / u->pss[j] : 1;
		jobs[j].anon_share = (float)(1 - phi);
		jobs[j].file_mult = (float)(phi * (copies < 1 ? 1 : copies));
	}
}

static int by_start(const void *a, const void *b, void *arg)
{
	const uint64_t *s = arg;
	uint64_t x = s[*(const size_t *)a], y = s[*(const size_t *)b];
	return (x > y) - (x < y);
}

/* The sweeps' spans: the jobs' (barriers never alive), the processes' of
 * the tool's side (po) and of the jobs (pj), and their orders. */
static void spans_of(const struct forecast_tree *t, uint64_t *js, uint64_t *je, uint64_t *ps, uint64_t *pe,
		     size_t *jo, size_t *njo, size_t *po, size_t *npo, size_t *pj, size_t *npj)
{
	*njo = 0;
	for (size_t j = 0; j < t->nj; j++) {
		js[j] = t->jobs[j].start_ns;
		je[j] = t->jobs[j].end_ns;
		if (t->jobs[j].root != FORECAST_TREE_NONE)
			jo[(*njo)++] = j; /* in start order already */
	}
	*npo = *npj = 0;
	for (size_t i = 0; i < t->n; i++) {
		ps[i] = t->p[i].start_ns;
		pe[i] = t->p[i].end_ns ? t->p[i].end_ns : t->run_end;
		if (t->owner[i] == FORECAST_TREE_NONE)
			po[(*npo)++] = i;
		else
			pj[(*npj)++] = i;
	}
	qsort_r(po, *npo, sizeof(*po), by_start, ps);
	qsort_r(pj, *npj, sizeof(*pj), by_start, ps);
}

int forecast_tree_shares(const struct forecast_tree *t, const struct forecast_curve *c, struct forecast_job *jobs,
			 uint32_t nprogs, uint64_t *tool_kib, double *file_share)
{
	size_t nj = t->nj + 1, np = t->n + 1, npo, njo, npj;
	uint64_t *sp = malloc((2 * nj + 2 * np) * sizeof(*sp));
	size_t *ix = malloc((2 * nj + 4 * np) * sizeof(*ix));
	struct sums u = {calloc(nj, sizeof(double)), calloc(nj, sizeof(double)), calloc(nj, sizeof(double)),
			 calloc(nj, sizeof(double)), calloc((size_t)nprogs + 1, sizeof(double)),
			 calloc((size_t)nprogs + 1, sizeof(double)), calloc((size_t)nprogs + 1, sizeof(uint32_t)), 0, 0};
	struct sample buf[256];
	int r = -ENOMEM;

	if (!sp || !ix || !u.file || !u.pss || !u.copies || !u.now || !u.prog_file || !u.prog_pss || !u.count)
		goto out;
	uint64_t *js = sp, *je = js + nj, *ps = je + nj, *pe = ps + np;
	size_t *po = ix + 2 * nj, *pj = po + 2 * np;
	spans_of(t, js, je, ps, pe, ix, &njo, po, &npo, pj, &npj);
	struct sweeps w = {{ix, njo, 0, ix + nj, 0}, {po, npo, 0, po + np, 0}, {pj, npj, 0, pj + np, 0}, js, je, ps, pe};
	uint64_t cursor = 0;
	size_t got;
	while ((got = store_samples(t->st, &cursor, buf, sizeof(buf) / sizeof(buf[0]), NULL)) > 0)
		for (size_t k = 0; k < got; k++)
			if ((buf[k].valid & SAMPLE_PSS) && buf[k].pss_kib)
				one_sample(t, c, jobs, &buf[k], &w, &u);
	set_shares(t, jobs, &u, file_share);
	*tool_kib = u.tool_max;
	if (!u.any) /* no sample of the tree: the tool's processes' peaks, summed */
		for (size_t k = 0; k < npo; k++)
			*tool_kib += t->p[po[k]].peak_pss_kib;
	r = 0;
out:
	free(sp);
	free(ix);
	free(u.file);
	free(u.pss);
	free(u.copies);
	free(u.now);
	free(u.prog_file);
	free(u.prog_pss);
	free(u.count);
	return r;
}
