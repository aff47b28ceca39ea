/* moment.c: see moment.h. */
#include "moment.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The records' ids, for finding one's place among them (qsort's context:
 * the records themselves stay in the order they were first seen). */
struct idx {
	uint64_t id;
	size_t at;
};

static int cmp_idx(const void *a, const void *b)
{
	const struct idx *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* The record of id, through ix (n, sorted by id), or NULL. */
static struct proc_rec *by_id(struct proc_rec *v, const struct idx *ix, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix[mid].id < id)
			lo = mid + 1;
		else if (ix[mid].id > id)
			hi = mid;
		else
			return &v[ix[mid].at];
	}
	return NULL;
}

/* A record as it was at t: alive, its figures not yet known (its samples
 * give them), its high-water marks none. */
static void as_alive(struct proc_rec *r)
{
	r->end_ns = 0;
	r->exit_status = 0;
	r->threads = 1;
	r->pss_kib = r->rss_kib = r->peak_pss_kib = r->peak_rss_kib = 0;
	r->peak_pss_t_ns = r->pss_age_ns = 0;
	r->utime_us = r->stime_us = r->minflt = r->majflt = 0;
	r->valid &= PROC_V_ARGV;
}

/* The processes alive at t, in the order first seen; made and finished
 * counted. Returns how many, or -ENOMEM. */
static ssize_t alive_at(struct store *st, uint64_t t, struct proc_rec **out, uint32_t *made, uint32_t *finished)
{
	size_t n = store_procs(st, STORE_PROCS_ALL, NULL, 0), k = 0;
	struct proc_rec *v = n ? malloc(n * sizeof(*v)) : NULL;

	*out = NULL;
	*made = *finished = 0;
	if (n && !v)
		return -ENOMEM;
	if (n) {
		size_t got = store_procs(st, STORE_PROCS_ALL, v, n);
		n = got < n ? got : n; /* more may have come since: not at t */
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i].start_ns > t)
			continue;
		(*made)++;
		if (v[i].end_ns && v[i].end_ns <= t) {
			(*finished)++;
			continue;
		}
		v[k] = v[i];
		as_alive(&v[k++]);
	}
	*out = v;
	return (ssize_t)k;
}

/* Gives each process of v (n) its last per-process sample at or before t
 * (when its figures are of kept in *seen, parallel to v). Returns 0 or
 * -ENOMEM. */
static int figures_at(struct store *st, uint64_t t, struct proc_rec *v, size_t n, int *cut)
{
	struct store_proc_sample buf[1024];
	uint64_t cursor = 0;
	size_t got;
	struct idx *ix = n ? malloc(n * sizeof(*ix)) : NULL;
	uint64_t *seen = n ? calloc(n, sizeof(*seen)) : NULL;

	if (n && (!ix || !seen)) {
		free(ix);
		free(seen);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		ix[i] = (struct idx){v[i].id, i};
	if (n)
		qsort(ix, n, sizeof(*ix), cmp_idx);
	uint64_t dropped = 0;
	int first = 1;
	*cut = 0;
	while (n && (got = store_proc_samples(st, &cursor, buf, sizeof(buf) / sizeof(buf[0]), first ? &dropped : NULL)) > 0) {
		if (first && dropped && buf[0].t_ns > t)
			*cut = 1;
		first = 0;
		for (size_t i = 0; i < got; i++) {
			const struct store_proc_sample *s = &buf[i];
			struct proc_rec *r;
			if (s->t_ns > t || !(r = by_id(v, ix, n, s->id)) || s->t_ns < seen[r - v])
				continue;
			seen[r - v] = s->t_ns;
			/* each figure the latest that has it: a sample of the PSS
			 * alone leaves the CPU and faults read a moment before */
			if (s->valid & PROC_V_PSS)
				r->pss_kib = r->peak_pss_kib = s->pss_kib;
			if (s->valid & PROC_V_RSS)
				r->rss_kib = r->peak_rss_kib = s->rss_kib;
			if (s->valid & PROC_V_CPU)
				r->utime_us = s->cpu_us;
			if (s->valid & PROC_V_FAULTS) {
				r->minflt = s->minflt;
				r->majflt = s->majflt;
			}
			r->valid |= s->valid & (PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS);
		}
	}
	free(ix);
	free(seen);
	return 0;
}

int moment_take(struct store *st, uint64_t t_ns, uint64_t out_ns, size_t max_lines, struct moment *m)
{
	memset(m, 0, sizeof(*m));
	m->t_ns = t_ns;
	ssize_t n = alive_at(st, t_ns, &m->procs, &m->made, &m->finished);
	if (n < 0)
		return (int)n;
	m->nprocs = (size_t)n;
	int r = figures_at(st, t_ns, m->procs, m->nprocs, &m->figures_cut);
	if (r < 0) {
		moment_free(m);
		return r;
	}
	ssize_t k = max_lines ? store_lines_to(st, out_ns, max_lines, &m->lines, &m->lines_cut) : 0;
	if (k < 0) {
		moment_free(m);
		return (int)k;
	}
	m->nlines = (size_t)k;
	return 0;
}

void moment_free(struct moment *m)
{
	free(m->procs);
	free(m->lines);
	memset(m, 0, sizeof(*m));
}
