/* series: the multi-resolution time series behind the store. */
#include "series.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Field groups, one per bit of struct sample.valid (SAMPLE_PSS .. SAMPLE_MEMLEFT). */
#define SERIES_NGROUPS 8

/* Sums of up to 2^32 values of up to 2^64 need more than 64 bits. */
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 series_sum;
#else
typedef long double series_sum;
#endif

/* Where each aggregated field lives in struct sample and which valid bit covers it. */
static const struct series_field {
	size_t off;
	unsigned char wide;  /* uint64_t, else uint32_t */
	unsigned char group; /* bit index in sample.valid */
} series_fields[STORE_NFIELDS] = {
	{ offsetof(struct sample, pss_kib), 1, 0 },
	{ offsetof(struct sample, pss_anon_kib), 1, 0 },
	{ offsetof(struct sample, pss_file_kib), 1, 0 },
	{ offsetof(struct sample, pss_shmem_kib), 1, 0 },
	{ offsetof(struct sample, pss_est_kib), 1, 0 },
	{ offsetof(struct sample, pss_hi_kib), 1, 0 },
	{ offsetof(struct sample, rss_kib), 1, 1 },
	{ offsetof(struct sample, minflt), 1, 2 },
	{ offsetof(struct sample, majflt), 1, 2 },
	{ offsetof(struct sample, utime_us), 1, 3 },
	{ offsetof(struct sample, stime_us), 1, 3 },
	{ offsetof(struct sample, live_procs), 0, 4 },
	{ offsetof(struct sample, live_threads), 0, 4 },
	{ offsetof(struct sample, total_procs), 0, 4 },
	{ offsetof(struct sample, total_threads), 0, 4 },
	{ offsetof(struct sample, swap_kib), 1, 5 },
	{ offsetof(struct sample, thp_kib), 1, 5 },
	{ offsetof(struct sample, locked_kib), 1, 5 },
	{ offsetof(struct sample, psi_cpu_pm), 0, 6 },
	{ offsetof(struct sample, psi_mem_pm), 0, 6 },
	{ offsetof(struct sample, psi_mem_full_pm), 0, 6 },
	{ offsetof(struct sample, psi_io_pm), 0, 6 },
	{ offsetof(struct sample, mem_left_kib), 1, 7 },
};

/* A closed bucket, plus how many of its samples knew each field group (the
 * weights for merging means). */
struct series_cell {
	struct bucket b;
	uint32_t gn[SERIES_NGROUPS];
};

/* A bucket being built, from samples or from cells: exact sums for the mean. */
struct series_acc {
	uint64_t t0_ns, t1_ns;
	uint64_t n;
	uint32_t valid;
	uint64_t min[STORE_NFIELDS], max[STORE_NFIELDS];
	series_sum sum[STORE_NFIELDS];
	uint64_t gn[SERIES_NGROUPS];
};

struct series_tier {
	uint64_t width_ns;          /* slot width; 0 at tier 0 */
	uint32_t len, head, count;  /* ring capacity, oldest element, elements held */
	uint64_t dropped;           /* elements evicted: the oldest's sequence number */
	uint64_t evicted_t1;        /* last sample time of the newest evicted element */
	struct sample *samples;     /* tier 0 ring */
	struct series_cell *cells;  /* tier >= 1 ring of closed buckets */
	int open;                   /* acc holds the bucket of slot open_slot */
	uint64_t open_slot;
	struct series_acc acc;
};

struct series {
	uint32_t ntiers;
	uint64_t nsamples, last_ns;
	struct series_tier tier[];
};

static uint64_t series_get(const struct sample *s, int f)
{
	const char *p = (const char *)s + series_fields[f].off;

	return series_fields[f].wide ? *(const uint64_t *)(const void *)p
				     : *(const uint32_t *)(const void *)p;
}

static void series_set(struct sample *s, int f, uint64_t v)
{
	char *p = (char *)s + series_fields[f].off;

	if (series_fields[f].wide)
		*(uint64_t *)(void *)p = v;
	else
		*(uint32_t *)(void *)p = (uint32_t)v;
}

/* Allocates every ring once; slot widths base * factor^k must fit 64 bits. */
struct series *series_new(const struct series_config *cfg)
{
	if (!cfg->tier0_len || !cfg->ntiers || cfg->ntiers > SERIES_MAXTIERS ||
	    !cfg->tier_factor || !cfg->tier_len || !cfg->base_ns) {
		errno = EINVAL;
		return NULL;
	}
	struct series *se = calloc(1, sizeof(*se) + cfg->ntiers * sizeof(se->tier[0]));
	if (!se)
		return NULL;
	se->ntiers = cfg->ntiers;
	uint64_t w = cfg->base_ns;
	for (uint32_t k = 0; k < cfg->ntiers; k++) {
		struct series_tier *t = &se->tier[k];

		if (k == 0) {
			t->len = cfg->tier0_len;
			t->samples = calloc(t->len, sizeof(*t->samples));
		} else {
			if (w > UINT64_MAX / cfg->tier_factor) {
				series_free(se);
				errno = EINVAL;
				return NULL;
			}
			w *= cfg->tier_factor;
			t->width_ns = w;
			t->len = cfg->tier_len;
			t->cells = calloc(t->len, sizeof(*t->cells));
		}
		if (!t->samples && !t->cells) {
			series_free(se);
			errno = ENOMEM;
			return NULL;
		}
	}
	return se;
}

void series_free(struct series *se)
{
	if (!se)
		return;
	for (uint32_t k = 0; k < se->ntiers; k++) {
		free(se->tier[k].samples);
		free(se->tier[k].cells);
	}
	free(se);
}

size_t series_mem_bytes(const struct series *se)
{
	size_t n = sizeof(*se) + se->ntiers * sizeof(se->tier[0]);

	n += se->tier[0].len * sizeof(struct sample);
	for (uint32_t k = 1; k < se->ntiers; k++)
		n += se->tier[k].len * sizeof(struct series_cell);
	return n;
}

static void series_acc_reset(struct series_acc *a)
{
	memset(a, 0, sizeof(*a));
}

/* Folds one sample into a bucket; a field counts only where its valid bit is set. */
static void series_acc_add_sample(struct series_acc *a, const struct sample *s)
{
	if (a->n == 0) {
		a->t0_ns = s->t_ns;
		a->valid = s->valid;
	} else {
		a->valid &= s->valid;
	}
	a->t1_ns = s->t_ns;
	a->n++;
	for (int f = 0; f < STORE_NFIELDS; f++) {
		unsigned g = series_fields[f].group;
		uint64_t v;

		if (!(s->valid & (1u << g)))
			continue;
		v = series_get(s, f);
		if (a->gn[g] == 0 || v < a->min[f])
			a->min[f] = v;
		if (a->gn[g] == 0 || v > a->max[f])
			a->max[f] = v;
		a->sum[f] += v;
	}
	for (unsigned g = 0; g < SERIES_NGROUPS; g++)
		a->gn[g] += (s->valid >> g) & 1u;
}

/* Folds a whole bucket into a bigger one: min of mins, max of maxes, and the
 * mean weighted by how many samples knew the field. */
static void series_acc_add_cell(struct series_acc *a, const struct series_cell *c)
{
	if (a->n == 0) {
		a->t0_ns = c->b.t0_ns;
		a->valid = c->b.valid;
	} else {
		a->valid &= c->b.valid;
	}
	a->t1_ns = c->b.t1_ns;
	a->n += c->b.n;
	for (int f = 0; f < STORE_NFIELDS; f++) {
		unsigned g = series_fields[f].group;
		uint64_t mn, mx;

		if (c->gn[g] == 0)
			continue;
		mn = series_get(&c->b.min, f);
		mx = series_get(&c->b.max, f);
		if (a->gn[g] == 0 || mn < a->min[f])
			a->min[f] = mn;
		if (a->gn[g] == 0 || mx > a->max[f])
			a->max[f] = mx;
		a->sum[f] += (series_sum)series_get(&c->b.mean, f) * c->gn[g];
	}
	for (unsigned g = 0; g < SERIES_NGROUPS; g++)
		a->gn[g] += c->gn[g];
}

/* Turns a built bucket into a cell; counts beyond 32 bits saturate. */
static void series_acc_cell(const struct series_acc *a, struct series_cell *c)
{
	memset(c, 0, sizeof(*c));
	c->b.t0_ns = a->t0_ns;
	c->b.t1_ns = a->t1_ns;
	c->b.n = a->n > UINT32_MAX ? UINT32_MAX : (uint32_t)a->n;
	c->b.valid = a->valid;
	for (int f = 0; f < STORE_NFIELDS; f++) {
		uint64_t gn = a->gn[series_fields[f].group];

		if (gn == 0)
			continue;
		series_set(&c->b.min, f, a->min[f]);
		series_set(&c->b.max, f, a->max[f]);
		series_set(&c->b.mean, f, (uint64_t)(a->sum[f] / gn));
	}
	for (unsigned g = 0; g < SERIES_NGROUPS; g++)
		c->gn[g] = a->gn[g] > UINT32_MAX ? UINT32_MAX : (uint32_t)a->gn[g];
	c->b.min.t_ns = a->t0_ns;
	c->b.max.t_ns = a->t1_ns;
	c->b.mean.t_ns = a->t0_ns + (a->t1_ns - a->t0_ns) / 2;
	c->b.min.valid = c->b.max.valid = c->b.mean.valid = a->valid;
}

/* Ring slot of the i-th oldest element. */
static uint32_t series_slot(const struct series_tier *t, uint64_t i)
{
	uint64_t idx = t->head + i;

	return (uint32_t)(idx >= t->len ? idx - t->len : idx);
}

/* Elements a query can see: the closed ones and the open bucket. */
static uint64_t series_elems(const struct series_tier *t)
{
	return (uint64_t)t->count + (t->open ? 1 : 0);
}

static void series_times(const struct series_tier *t, uint64_t i, uint64_t *t0, uint64_t *t1)
{
	if (t->samples) {
		*t0 = *t1 = t->samples[series_slot(t, i)].t_ns;
	} else if (i < t->count) {
		const struct series_cell *c = &t->cells[series_slot(t, i)];

		*t0 = c->b.t0_ns;
		*t1 = c->b.t1_ns;
	} else {
		*t0 = t->acc.t0_ns;
		*t1 = t->acc.t1_ns;
	}
}

/* Copies element i of a tier as a cell (a tier 0 sample is a bucket of one). */
static void series_cell_at(const struct series_tier *t, uint64_t i, struct series_cell *c)
{
	if (t->samples) {
		const struct sample *s = &t->samples[series_slot(t, i)];

		c->b.t0_ns = c->b.t1_ns = s->t_ns;
		c->b.n = 1;
		c->b.valid = s->valid;
		c->b.min = c->b.max = c->b.mean = *s;
		for (unsigned g = 0; g < SERIES_NGROUPS; g++)
			c->gn[g] = (s->valid >> g) & 1u;
	} else if (i < t->count) {
		*c = t->cells[series_slot(t, i)];
	} else {
		series_acc_cell(&t->acc, c);
	}
}

/* Closes the open bucket into the ring, evicting the oldest when full. */
static void series_close(struct series_tier *t)
{
	struct series_cell c;

	series_acc_cell(&t->acc, &c);
	if (t->count == t->len) {
		t->evicted_t1 = t->cells[t->head].b.t1_ns;
		t->dropped++;
		t->cells[t->head] = c;
		t->head = series_slot(t, 1);
	} else {
		t->cells[series_slot(t, t->count)] = c;
		t->count++;
	}
	t->open = 0;
}

/* Stores the sample in tier 0 and folds it into each coarser tier's open
 * bucket, closing that bucket first when the sample starts a new slot. */
void series_push(struct series *se, const struct sample *s)
{
	struct sample x = *s;
	struct series_tier *t = &se->tier[0];

	if (se->nsamples && x.t_ns < se->last_ns)
		x.t_ns = se->last_ns;
	if (t->count == t->len) {
		t->evicted_t1 = t->samples[t->head].t_ns;
		t->dropped++;
		t->samples[t->head] = x;
		t->head = series_slot(t, 1);
	} else {
		t->samples[series_slot(t, t->count)] = x;
		t->count++;
	}
	for (uint32_t k = 1; k < se->ntiers; k++) {
		uint64_t slot = x.t_ns / se->tier[k].width_ns;

		t = &se->tier[k];
		if (t->open && slot != t->open_slot)
			series_close(t);
		if (!t->open) {
			series_acc_reset(&t->acc);
			t->open = 1;
			t->open_slot = slot;
		}
		series_acc_add_sample(&t->acc, &x);
	}
	se->nsamples++;
	se->last_ns = x.t_ns;
}

/* Binary search: the first element whose end is >= ts (by_end), or whose start
 * is > ts (!by_end). Both times never decrease along a tier. */
static uint64_t series_search(const struct series_tier *t, uint64_t ts, int by_end)
{
	uint64_t lo = 0, hi = series_elems(t);

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, a, b;
		int before;

		series_times(t, mid, &a, &b);
		before = by_end ? b < ts : a <= ts;
		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Merges elements [lo, hi) into at most max_out buckets. Groups are aligned to
 * the elements' sequence numbers, so the same data gives the same groups as the
 * view pans and grows: size ceil(c / max_out), or ceil(c / (max_out - 1)) when
 * alignment would cost one group too many. */
static size_t series_merge(const struct series_tier *t, uint64_t lo, uint64_t hi,
			   struct bucket *out, size_t max_out)
{
	uint64_t c = hi - lo, s0 = t->dropped + lo, s1 = t->dropped + hi - 1;
	uint64_t g = c, cur = 0;
	struct series_acc a;
	struct series_cell cell;
	size_t n = 0;

	if (max_out > 1) {
		g = (c + max_out - 1) / max_out;
		if (s1 / g - s0 / g + 1 > max_out)
			g = (c + max_out - 2) / (max_out - 1);
	}
	series_acc_reset(&a);
	for (uint64_t i = lo; i < hi; i++) {
		uint64_t key = max_out > 1 ? (t->dropped + i) / g : 0;

		if (a.n && key != cur) {
			series_acc_cell(&a, &cell);
			out[n++] = cell.b;
			series_acc_reset(&a);
		}
		cur = key;
		series_cell_at(t, i, &cell);
		series_acc_add_cell(&a, &cell);
	}
	series_acc_cell(&a, &cell);
	out[n++] = cell.b;
	return n;
}

/* Walks from the finest tier: a tier qualifies when it still holds every sample
 * from t0_ns on (nothing at or after t0_ns evicted) and its buckets in the range
 * fit max_out. The coarsest tier is the fallback, merged down if needed. Each
 * bucket keeps the max and min of its samples, so peaks survive at every tier. */
size_t series_query(const struct series *se, uint64_t t0_ns, uint64_t t1_ns,
		    struct bucket *out, size_t max_out)
{
	if (!out || max_out == 0 || t0_ns > t1_ns || se->nsamples == 0)
		return 0;
	for (uint32_t k = 0; k < se->ntiers; k++) {
		const struct series_tier *t = &se->tier[k];
		int coarsest = k + 1 == se->ntiers;
		uint64_t lo, hi;

		if (!coarsest && t->dropped && t0_ns <= t->evicted_t1)
			continue;
		lo = series_search(t, t0_ns, 1);
		hi = series_search(t, t1_ns, 0);
		if (hi <= lo)
			return 0;
		if (hi - lo <= max_out) {
			struct series_cell cell;

			for (uint64_t i = lo; i < hi; i++) {
				series_cell_at(t, i, &cell);
				out[i - lo] = cell.b;
			}
			return hi - lo;
		}
		if (coarsest)
			return series_merge(t, lo, hi, out, max_out);
	}
	return 0;
}

/* Sample number i (counted from the first pushed) sits in tier 0 while
 * i >= dropped; a cursor behind that skips forward. */
size_t series_samples(const struct series *se, uint64_t *cursor, struct sample *out,
		      size_t max, uint64_t *dropped)
{
	const struct series_tier *t = &se->tier[0];
	uint64_t c = *cursor, skipped = 0;
	size_t k = 0;

	if (c > se->nsamples)
		c = se->nsamples;
	if (c < t->dropped) {
		skipped = t->dropped - c;
		c = t->dropped;
	}
	for (; k < max && c + k < se->nsamples; k++)
		out[k] = t->samples[series_slot(t, c + k - t->dropped)];
	*cursor = c + k;
	if (dropped)
		*dropped = skipped;
	return k;
}

/* The oldest time any tier still holds, and the newest sample's time. */
int series_span(const struct series *se, uint64_t *t0_ns, uint64_t *t1_ns)
{
	uint64_t first = UINT64_MAX;

	if (se->nsamples == 0)
		return -ENODATA;
	for (uint32_t k = 0; k < se->ntiers; k++) {
		uint64_t a, b;

		if (series_elems(&se->tier[k]) == 0)
			continue;
		series_times(&se->tier[k], 0, &a, &b);
		if (a < first)
			first = a;
	}
	*t0_ns = first;
	*t1_ns = se->last_ns;
	return 0;
}
