/* resample.c: buckets to columns. Pure. */
#include "resample.h"

double resample_value(const struct sample *s, enum resample_field f)
{
	switch (f) {
	case RS_PSS: return (double)s->pss_kib;
	case RS_ANON: return (double)s->pss_anon_kib;
	case RS_FILE: return (double)s->pss_file_kib;
	case RS_SHMEM: return (double)s->pss_shmem_kib;
	case RS_RSS: return (double)s->rss_kib;
	case RS_MINFLT: return (double)s->minflt;
	case RS_MAJFLT: return (double)s->majflt;
	case RS_UTIME: return (double)s->utime_us;
	case RS_STIME: return (double)s->stime_us;
	case RS_LIVE_PROCS: return (double)s->live_procs;
	case RS_LIVE_THREADS: return (double)s->live_threads;
	case RS_TOTAL_PROCS: return (double)s->total_procs;
	case RS_TOTAL_THREADS: return (double)s->total_threads;
	case RS_PSI_MEM: return (double)s->psi_mem_pm;
	case RS_PSI_CPU: return (double)s->psi_cpu_pm;
	}
	return 0;
}

uint32_t resample_valid_bit(enum resample_field f)
{
	switch (f) {
	case RS_PSS: case RS_ANON: case RS_FILE: case RS_SHMEM: return SAMPLE_PSS;
	case RS_RSS: return SAMPLE_RSS;
	case RS_MINFLT: case RS_MAJFLT: return SAMPLE_FAULTS;
	case RS_UTIME: case RS_STIME: return SAMPLE_CPU;
	case RS_PSI_MEM: case RS_PSI_CPU: return SAMPLE_PSI;
	default: return SAMPLE_COUNTS;
	}
}

/* The column a time falls in, or -1 before t0 and ncols after t1. */
static long resample_col(uint64_t t, uint64_t t0, uint64_t t1, size_t ncols)
{
	if (t < t0)
		return -1;
	if (t > t1)
		return (long)ncols;
	long c = (long)((double)(t - t0) * (double)ncols / (double)(t1 - t0));
	return c >= (long)ncols ? (long)ncols - 1 : c;
}

void resample_pick(const struct bucket *b, size_t n, uint64_t t0, uint64_t t1, size_t ncols,
		   enum resample_field f, uint64_t hold_ns, int32_t *idx)
{
	uint32_t bit = resample_valid_bit(f);
	int32_t latest = -1; /* the newest bucket so far: what a gap holds */
	long cur = -1;       /* the column of the newest bucket */

	for (size_t c = 0; c < ncols; c++)
		idx[c] = -1;
	if (t1 <= t0 || !ncols)
		return;
	for (size_t i = 0; i < n; i++) {
		if (!(b[i].valid & bit))
			continue;
		uint64_t mid = b[i].t0_ns / 2 + b[i].t1_ns / 2;
		long c = resample_col(mid, t0, t1, ncols);
		if (c < 0) {
			latest = (int32_t)i;
			continue;
		}
		if (c >= (long)ncols)
			break;
		/* columns between two buckets hold the older one's last value
		 * (later data exists), not its column's highest */
		for (long k = cur + 1; k < c && latest >= 0; k++)
			idx[k] = latest;
		cur = c;
		if (idx[c] < 0 || resample_value(&b[i].max, f) >= resample_value(&b[idx[c]].max, f))
			idx[c] = (int32_t)i;
		latest = (int32_t)i;
	}
	if (latest < 0)
		return;
	/* after the newest bucket: hold while it still covers the column, then
	 * for hold_ns only */
	uint64_t last_t = b[latest].t1_ns;
	double dt = (double)(t1 - t0) / (double)ncols;
	for (long c = cur + 1; c < (long)ncols; c++) {
		uint64_t cs = t0 + (uint64_t)(dt * (double)c);
		if (cs < last_t || cs - last_t <= hold_ns)
			idx[c] = latest;
	}
}

/* Point k of the cumulative curve: each bucket gives (t0, min) and (t1, max). */
static void resample_point(const struct bucket *b, size_t k, enum resample_field f, double *t,
			   double *v)
{
	const struct bucket *x = &b[k / 2];

	if (k % 2 == 0) {
		*t = (double)x->t0_ns;
		*v = resample_value(&x->min, f);
	} else {
		*t = (double)x->t1_ns;
		*v = resample_value(&x->max, f);
	}
}

/* The cumulative value at time t by linear interpolation; *k is a cursor that
 * only moves forward (t never decreases between calls). */
static double resample_interp(const struct bucket *b, size_t np, enum resample_field f, double t,
			      size_t *k)
{
	double ta, va, tb, vb;

	while (*k + 2 < np) {
		resample_point(b, *k + 1, f, &tb, &vb);
		if (tb >= t)
			break;
		(*k)++;
	}
	resample_point(b, *k, f, &ta, &va);
	resample_point(b, *k + 1 < np ? *k + 1 : *k, f, &tb, &vb);
	if (tb <= ta || t <= ta)
		return t <= ta ? va : vb;
	if (t >= tb)
		return vb;
	return va + (vb - va) * (t - ta) / (tb - ta);
}

void resample_rate(const struct bucket *b, size_t n, uint64_t t0, uint64_t t1, size_t ncols,
		   enum resample_field f, double *rate, uint8_t *known)
{
	uint32_t bit = resample_valid_bit(f);
	size_t first = 0, k = 0;

	for (size_t c = 0; c < ncols; c++) {
		rate[c] = 0;
		known[c] = 0;
	}
	/* the curve uses the run of valid buckets at the end of the result */
	for (size_t i = 0; i < n; i++)
		if (!(b[i].valid & bit))
			first = i + 1;
	if (first >= n || t1 <= t0 || !ncols)
		return;
	b += first;
	n -= first;
	size_t np = 2 * n;
	double lo = (double)b[0].t0_ns, hi = (double)b[n - 1].t1_ns;
	double dt = (double)(t1 - t0) / (double)ncols;
	for (size_t c = 0; c < ncols; c++) {
		double a = (double)t0 + dt * (double)c, e = a + dt;
		if (a < lo)
			a = lo;
		if (e > hi)
			e = hi;
		if (e - a <= dt * 0.01)
			continue;
		double va = resample_interp(b, np, f, a, &k);
		size_t k2 = k;
		double ve = resample_interp(b, np, f, e, &k2);
		double r = (ve - va) / (e - a) * 1e9;
		rate[c] = r > 0 ? r : 0;
		known[c] = 1;
	}
}
