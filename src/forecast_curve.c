/* forecast_curve.c: processes' PSS curves from per-process samples
 * (forecast_curve.h). */
#include "forecast_curve.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct fc_point {
	size_t proc;
	uint64_t t_ns, kib;
};

struct forecast_curve {
	size_t n;
	uint64_t *start, *end;
	size_t *off; /* process i's points: pt[off[i]..off[i + 1]) */
	struct fc_point *pt;
	uint64_t dropped;
};

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

static int cmp_point(const void *x, const void *y)
{
	const struct fc_point *a = x, *b = y;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	return (a->t_ns > b->t_ns) - (a->t_ns < b->t_ns);
}

/* Points gathered, growing. */
struct fc_pts {
	struct fc_point *v;
	size_t n, cap;
};

static int pts_add(struct fc_pts *p, size_t proc, uint64_t t_ns, uint64_t kib)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 1024;
		struct fc_point *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = (struct fc_point){proc, t_ns, kib};
	return 0;
}

static int cmp_id(const void *x, const void *y, void *arg)
{
	const struct proc_rec *p = arg;
	uint64_t a = p[*(const size_t *)x].id, b = p[*(const size_t *)y].id;
	return (a > b) - (a < b);
}

/* The index of the record with id among by (sorted by id), or n. */
static size_t find_id(const struct proc_rec *p, const size_t *by, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p[by[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && p[by[lo]].id == id ? by[lo] : n;
}

/* Every per-process sample of a known PSS, then each record's peak (at its
 * time, or at its start when the time is not known), into pts. */
static int gather(struct store *st, const struct proc_rec *p, size_t n, struct fc_pts *pts, uint64_t *dropped)
{
	struct store_proc_sample buf[512];
	size_t *by = malloc((n + 1) * sizeof(*by)), got;
	uint64_t cursor = 0, lost = 0;
	int r = 0;

	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		by[i] = i;
	qsort_r(by, n, sizeof(*by), cmp_id, (void *)p);
	while (r == 0 && (got = store_proc_samples(st, &cursor, buf, sizeof(buf) / sizeof(buf[0]), &lost)) > 0) {
		*dropped += lost;
		for (size_t k = 0; k < got && r == 0; k++) {
			size_t i = (buf[k].valid & PROC_V_PSS) ? find_id(p, by, n, buf[k].id) : n;
			if (i < n)
				r = pts_add(pts, i, buf[k].t_ns, buf[k].pss_kib);
		}
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		if (!(p[i].valid & PROC_V_PSS) || !p[i].peak_pss_kib)
			continue;
		uint64_t t = p[i].peak_pss_t_ns;
		int when = t >= p[i].start_ns && (!p[i].end_ns || t <= p[i].end_ns);
		r = pts_add(pts, i, when ? t : p[i].start_ns, p[i].peak_pss_kib);
	}
	free(by);
	return r;
}

struct forecast_curve *forecast_curve_new(struct store *st, const struct proc_rec *p, size_t n, uint64_t end_ns)
{
	struct forecast_curve *c = calloc(1, sizeof(*c));
	struct fc_pts pts = {0};
	int e = ENOMEM;

	if (!c || !(c->start = malloc((n + 1) * sizeof(*c->start))) || !(c->end = malloc((n + 1) * sizeof(*c->end))) ||
	    !(c->off = calloc(n + 2, sizeof(*c->off))))
		goto fail;
	c->n = n;
	for (size_t i = 0; i < n; i++) {
		c->start[i] = p[i].start_ns;
		c->end[i] = p[i].end_ns ? p[i].end_ns : end_ns > p[i].start_ns ? end_ns : p[i].start_ns;
	}
	if (gather(st, p, n, &pts, &c->dropped) < 0)
		goto fail;
	if (pts.n)
		qsort(pts.v, pts.n, sizeof(*pts.v), cmp_point);
	for (size_t k = 0; k < pts.n; k++)
		c->off[pts.v[k].proc + 1]++;
	for (size_t i = 0; i < n; i++)
		c->off[i + 1] += c->off[i];
	c->pt = pts.v;
	return c;
fail:
	free(pts.v);
	forecast_curve_free(c);
	errno = e;
	return NULL;
}

void forecast_curve_free(struct forecast_curve *c)
{
	if (!c)
		return;
	free(c->start);
	free(c->end);
	free(c->off);
	free(c->pt);
	free(c);
}

int forecast_curve_known(const struct forecast_curve *c, size_t i)
{
	return i < c->n && c->off[i + 1] > c->off[i];
}

uint64_t forecast_curve_dropped(const struct forecast_curve *c)
{
	return c->dropped;
}

double forecast_curve_at(const struct forecast_curve *c, size_t i, uint64_t t_ns)
{
	if (i >= c->n || t_ns < c->start[i] || t_ns > c->end[i])
		return 0;
	const struct fc_point *v = c->pt + c->off[i];
	size_t n = c->off[i + 1] - c->off[i], lo = 0, hi = n;
	/* the first point after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].t_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t t0 = lo ? v[lo - 1].t_ns : c->start[i], k0 = lo ? v[lo - 1].kib : 0;
	if (lo == n || v[lo].kib <= k0 || v[lo].t_ns <= t0)
		return (double)k0;
	/* climbing: a straight line to the next point */
	return (double)k0 + (double)(v[lo].kib - k0) * (double)(t_ns - t0) / (double)(v[lo].t_ns - t0);
}

/* What is alive at the instants of a sweep forward in time: the processes
 * by start (order[next..n) still to come), those begun (act[0..nact)). */
struct fc_sweep {
	const struct forecast_curve *c;
	size_t *order, n, next;
	size_t *act, nact;
};

static int by_start(const void *a, const void *b, void *arg)
{
	const uint64_t *start = arg;
	uint64_t x = start[*(const size_t *)a], y = start[*(const size_t *)b];
	return (x > y) - (x < y);
}

/* The sum of the processes alive at t (t never before the last one's),
 * into its bin if the bin is one of out's; the ones ended before t leave
 * the sweep for good. */
static void sweep_at(struct fc_sweep *w, uint64_t start_ns, uint64_t step_ns, uint64_t t, uint32_t *out,
		     size_t nout)
{
	const struct forecast_curve *c = w->c;
	while (w->next < w->n && c->start[w->order[w->next]] <= t)
		w->act[w->nact++] = w->order[w->next++];
	double v = 0;
	for (size_t k = 0; k < w->nact;) {
		if (c->end[w->act[k]] < t) {
			w->act[k] = w->act[--w->nact];
			continue;
		}
		v += forecast_curve_at(c, w->act[k], t);
		k++;
	}
	if (t < start_ns || (t - start_ns) / step_ns >= nout)
		return;
	size_t b = (size_t)((t - start_ns) / step_ns);
	uint32_t kib = v >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)(v + 0.5);
	if (kib > out[b])
		out[b] = kib;
}

/* The instants the sum may be at its most between the bins' edges: the
 * processes' starts, ends and points up to end_ns, sorted, into *ts.
 * Returns how many, or -ENOMEM. */
static ssize_t instants(const struct forecast_curve *c, const size_t *procs, size_t np, uint64_t end_ns,
			uint64_t **ts)
{
	size_t n = 0, cap = 2 * np + 1;
	for (size_t k = 0; k < np; k++)
		cap += procs[k] < c->n ? c->off[procs[k] + 1] - c->off[procs[k]] : 0;
	if (!(*ts = malloc(cap * sizeof(**ts))))
		return -ENOMEM;
	for (size_t k = 0; k < np; k++) {
		size_t i = procs[k];
		if (i >= c->n)
			continue;
		(*ts)[n++] = c->start[i];
		(*ts)[n++] = c->end[i];
		for (size_t q = c->off[i]; q < c->off[i + 1]; q++)
			if (c->pt[q].t_ns <= end_ns)
				(*ts)[n++] = c->pt[q].t_ns;
	}
	qsort(*ts, n, sizeof(**ts), cmp_u64);
	return (ssize_t)n;
}

int forecast_curve_bins(const struct forecast_curve *c, const size_t *procs, size_t np, uint64_t start_ns,
			uint64_t end_ns, uint64_t step_ns, uint32_t *out, size_t nout)
{
	struct fc_sweep w = {.c = c, .order = malloc((np + 1) * sizeof(size_t)), .act = malloc((np + 1) * sizeof(size_t))};
	uint64_t *ts = NULL;
	ssize_t nt = w.order && w.act ? instants(c, procs, np, end_ns, &ts) : -ENOMEM;
	int r = nt < 0 ? -ENOMEM : 0;

	memset(out, 0, nout * sizeof(*out));
	for (size_t k = 0; r == 0 && k < np; k++)
		if (procs[k] < c->n)
			w.order[w.n++] = procs[k];
	if (r == 0)
		qsort_r(w.order, w.n, sizeof(*w.order), by_start, c->start);
	/* the sum is straight between the processes' points, starts and
	 * ends: its most in a bin is at one of them, or at the bin's edges;
	 * the instants in time order, each bin's first edge, the instants in
	 * it, its last edge */
	size_t q = 0;
	for (size_t b = 0; r == 0 && step_ns && end_ns >= start_ns && b < nout; b++) {
		uint64_t t0 = start_ns + b * step_ns, t1 = t0 + step_ns - 1;
		if (t0 > end_ns)
			break;
		t1 = t1 < end_ns ? t1 : end_ns;
		while (q < (size_t)nt && ts[q] < t0)
			q++; /* before the job's start: outside every bin */
		sweep_at(&w, start_ns, step_ns, t0, out, nout);
		for (; q < (size_t)nt && ts[q] <= t1; q++)
			sweep_at(&w, start_ns, step_ns, ts[q], out, nout);
		sweep_at(&w, start_ns, step_ns, t1, out, nout);
	}
	free(ts);
	free(w.order);
	free(w.act);
	return r;
}
