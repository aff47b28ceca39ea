/* Unit tests for the store: multi-resolution series, events, process records,
 * execs, string pool, and a two-thread smoke test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#define MS 1000000ull
#define SEC 1000000000ull

/* A sample with every field known, derived from pss so each field is checkable. */
static struct sample mk(uint64_t t_ns, uint64_t pss)
{
	struct sample s;

	memset(&s, 0, sizeof(s));
	s.t_ns = t_ns;
	s.pss_kib = pss;
	s.pss_anon_kib = pss / 2;
	s.pss_file_kib = pss / 4;
	s.pss_shmem_kib = pss / 8;
	s.rss_kib = pss + 100;
	s.minflt = pss * 3;
	s.majflt = 7;
	s.utime_us = pss * 5;
	s.stime_us = 11;
	s.live_procs = 3;
	s.live_threads = 9;
	s.total_procs = 4;
	s.total_threads = 12;
	s.valid = SAMPLE_PSS | SAMPLE_RSS | SAMPLE_FAULTS | SAMPLE_CPU | SAMPLE_COUNTS;
	return s;
}

/* What was pushed, for checking queries against the truth. */
struct ref {
	uint64_t *t, *pss;
	size_t n;
};

/* First reference index with t >= a. */
static size_t ref_lower(const struct ref *r, uint64_t a)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->t[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Samples with a <= t <= b: count, max and min of pss. */
static size_t ref_range(const struct ref *r, uint64_t a, uint64_t b, uint64_t *mx, uint64_t *mn)
{
	size_t n = 0;

	*mx = 0;
	*mn = UINT64_MAX;
	for (size_t i = ref_lower(r, a); i < r->n && r->t[i] <= b; i++, n++) {
		if (r->pss[i] > *mx)
			*mx = r->pss[i];
		if (r->pss[i] < *mn)
			*mn = r->pss[i];
	}
	return n;
}

/* Checks a query result against the reference: at most max_out buckets, in
 * order, each overlapping [a, b], together holding exactly the samples of
 * their span, with the true max and min of that span; and the max covers the
 * true max of [a, b]. Returns the largest bucket's n (which tier served). */
static uint32_t check_query(struct store *st, const struct ref *r, uint64_t a, uint64_t b,
			    size_t max_out)
{
	struct bucket *out = calloc(max_out ? max_out : 1, sizeof(*out));
	size_t n = store_query(st, a, b, out, max_out);
	uint64_t inmax, inmin, spanmax, spanmin, qmax = 0, qmin = UINT64_MAX, sumn = 0;
	size_t inrange = ref_range(r, a, b, &inmax, &inmin);
	uint32_t widest = 0;

	assert_non_null(out);
	assert_true(n <= max_out);
	if (inrange == 0 || max_out == 0) {
		assert_int_equal(n, 0);
		free(out);
		return 0;
	}
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		const struct bucket *bk = &out[i];

		assert_true(bk->n > 0);
		assert_true(bk->t0_ns <= bk->t1_ns);
		assert_true(bk->t1_ns >= a && bk->t0_ns <= b);
		if (i)
			assert_true(out[i - 1].t1_ns < bk->t0_ns);
		assert_true(bk->min.pss_kib <= bk->mean.pss_kib);
		assert_true(bk->mean.pss_kib <= bk->max.pss_kib);
		assert_int_equal(bk->min.t_ns, bk->t0_ns);
		assert_int_equal(bk->max.t_ns, bk->t1_ns);
		assert_int_equal(ref_range(r, bk->t0_ns, bk->t1_ns, &spanmax, &spanmin), bk->n);
		assert_int_equal(bk->max.pss_kib, spanmax);
		assert_int_equal(bk->min.pss_kib, spanmin);
		if (bk->max.pss_kib > qmax)
			qmax = bk->max.pss_kib;
		if (bk->min.pss_kib < qmin)
			qmin = bk->min.pss_kib;
		if (bk->n > widest)
			widest = bk->n;
		sumn += bk->n;
	}
	assert_int_equal(ref_range(r, out[0].t0_ns, out[n - 1].t1_ns, &spanmax, &spanmin), sumn);
	assert_int_equal(qmax, spanmax);
	assert_int_equal(qmin, spanmin);
	assert_true(qmax >= inmax);
	assert_true(qmin <= inmin);
	free(out);
	return widest;
}

static void test_defaults_and_empty(void **state)
{
	(void)state;
	struct store *st = store_new(NULL);
	struct bucket b[4];
	uint64_t t0, t1, cur = 0;
	struct store_event ev;
	struct proc_rec pr;
	struct store_exec ex;
	struct store_summary sum;

	assert_non_null(st);
	assert_int_equal(store_span(st, &t0, &t1), -ENODATA);
	assert_int_equal(store_query(st, 0, UINT64_MAX, b, 4), 0);
	assert_int_equal(store_events(st, &cur, &ev, 1, NULL), 0);
	assert_int_equal(store_procs(st, 0, &pr, 1), 0);
	assert_int_equal(store_execs(st, 0, &ex, 1), 0);
	assert_int_equal(store_str_get(st, 1, NULL, 0), -ENOENT);
	assert_int_equal(store_str_get(st, 0, NULL, 0), -ENOENT);
	store_summary_get(st, &sum);
	assert_int_equal(sum.start_ns, 0);
	/* defaults: 4096 samples + 3 x 4096 buckets + 65536 events */
	assert_true(store_mem_bytes(st) > 4096 * sizeof(struct sample) + 65536 * sizeof(ev));
	store_free(st);
	store_free(NULL);
}

/* The peak's processes: none at first, then exactly what was set last,
 * copied (the caller's array may change), cut to the reader's room. */
static void test_bad_config(void **state)
{
	(void)state;
	struct store_config c = { .ntiers = 17 };

	errno = 0;
	assert_null(store_new(&c));
	assert_int_equal(errno, EINVAL);
	memset(&c, 0, sizeof(c));
	c.base_ns = UINT64_MAX / 4; /* tier 1 slot would need more than 64 bits */
	errno = 0;
	assert_null(store_new(&c));
	assert_int_equal(errno, EINVAL);
}

/* 100k samples of baseline ~1000 with one spike of 10000: every tier, and the
 * on-the-fly merge of the coarsest, shows the spike in a whole-range query, and
 * the trough too. Tier 0 holds all 100k here; tier 1 (1 s slots) only the last
 * 4096 s, so it serves only the recent range. */
static void run_spike(size_t spike_at)
{
	struct store_config c = { .tier0_len = 131072, .ntiers = 4, .tier_factor = 10,
				  .tier_len = 4096 };
	struct store *st = store_new(&c);
	const size_t N = 100000;
	struct ref r = { calloc(N, 8), calloc(N, 8), N };
	uint64_t base = 5 * SEC + 123, a, b;
	static const size_t max_outs[] = { 200000, 100000, 99999, 5000, 1000, 999, 200,
					   100, 99, 37, 2, 1 };
	uint32_t seen = 0; /* bit per tier 0..3, bit 4 for merged */

	assert_non_null(st);
	for (size_t i = 0; i < N; i++) {
		r.t[i] = base + i * 100 * MS;
		r.pss[i] = 1000 + (i * 7919) % 37;
		if (i == spike_at)
			r.pss[i] = 10000;
		if (i == N / 3)
			r.pss[i] = 5; /* a trough */
		struct sample s = mk(r.t[i], r.pss[i]);
		store_push_sample(st, &s);
	}
	assert_int_equal(store_span(st, &a, &b), 0);
	assert_int_equal(a, base);
	assert_int_equal(b, r.t[N - 1]);
	for (size_t k = 0; k < sizeof(max_outs) / sizeof(max_outs[0]); k++) {
		struct bucket *out = calloc(max_outs[k], sizeof(*out));
		size_t n = store_query(st, a, b, out, max_outs[k]);
		uint64_t mx = 0, mn = UINT64_MAX, sumn = 0;
		uint32_t w = check_query(st, &r, a, b, max_outs[k]);

		for (size_t i = 0; i < n; i++) {
			mx = out[i].max.pss_kib > mx ? out[i].max.pss_kib : mx;
			mn = out[i].min.pss_kib < mn ? out[i].min.pss_kib : mn;
			sumn += out[i].n;
		}
		assert_int_equal(mx, 10000);
		assert_int_equal(mn, 5);
		assert_int_equal(sumn, N);
		seen |= w == 1 ? 1u : w == 10 ? 2u : w == 100 ? 4u : w == 1000 ? 8u : 16u;
		/* the last 4000 s: tier 1 fits 5000 buckets */
		w = check_query(st, &r, b - 4000 * SEC, b, max_outs[k]);
		if (max_outs[k] == 5000)
			assert_int_equal(w, 10);
		seen |= w == 1 ? 1u : w == 10 ? 2u : w == 100 ? 4u : w == 1000 ? 8u : 16u;
		free(out);
	}
	assert_int_equal(seen, 0x1f);
	/* random ranges against the truth */
	srand(42);
	for (int q = 0; q < 300; q++) {
		uint64_t x = a + (uint64_t)rand() % (b - a + 2 * SEC) - SEC;
		uint64_t y = x + (uint64_t)rand() % (3000 * SEC);
		size_t m = 1 + (size_t)rand() % 3000;

		check_query(st, &r, x, y, m);
	}
	store_free(st);
	free(r.t);
	free(r.pss);
}

static void test_spike_every_tier(void **state)
{
	(void)state;
	run_spike(0);         /* the very first sample */
	run_spike(50000);     /* the middle */
	run_spike(9 * 10000); /* 9000 s after start: slot-aligned at tiers 1-3 */
	run_spike(99999);     /* the last sample, in the open buckets */
}

static void test_query_boundaries(void **state)
{
	(void)state;
	/* tier 0: 16 samples; tier 1: 1 s slots x 8; tier 2: 10 s slots x 8 */
	struct store_config c = { .tier0_len = 16, .ntiers = 3, .tier_factor = 10,
				  .tier_len = 8 };
	struct store *st = store_new(&c);
	struct bucket out[64];
	uint64_t a, b;
	size_t n;

	assert_non_null(st);
	for (int i = 0; i < 50; i++) { /* 10.0 s .. 14.9 s: starts on a slot edge */
		struct sample s = mk(10 * SEC + (uint64_t)i * 100 * MS, 100 + (uint64_t)i);
		store_push_sample(st, &s);
	}
	/* a range that starts exactly on a 1 s slot edge: tier 0 lost it, tier 1 */
	n = store_query(st, 12 * SEC, 12 * SEC + 950 * MS, out, 64);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].t0_ns, 12 * SEC);
	assert_int_equal(out[0].t1_ns, 12 * SEC + 900 * MS);
	assert_int_equal(out[0].n, 10);
	assert_int_equal(out[0].min.pss_kib, 120);
	assert_int_equal(out[0].max.pss_kib, 129);
	assert_int_equal(out[0].mean.pss_kib, 124); /* 124.5 truncated */
	assert_int_equal(out[0].mean.t_ns, 12 * SEC + 450 * MS);
	/* ends exactly on a bucket's first sample, starts on the previous one's last */
	n = store_query(st, 11 * SEC + 900 * MS, 12 * SEC, out, 64);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].t0_ns, 11 * SEC);
	assert_int_equal(out[1].t0_ns, 12 * SEC);
	/* in a gap between two buckets' samples: nothing */
	assert_int_equal(store_query(st, 11 * SEC + 901 * MS, 11 * SEC + 999 * MS, out, 64), 0);
	/* before the first sample */
	assert_int_equal(store_query(st, 0, 10 * SEC - 1, out, 64), 0);
	n = store_query(st, 0, 10 * SEC, out, 64);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].t0_ns, 10 * SEC);
	/* after the last sample */
	assert_int_equal(store_query(st, 14 * SEC + 900 * MS + 1, UINT64_MAX, out, 64), 0);
	n = store_query(st, 14 * SEC + 900 * MS, UINT64_MAX, out, 64);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].n, 1); /* tier 0 still holds it */
	assert_int_equal(out[0].max.pss_kib, 149);
	/* t0 > t1, max_out 0 */
	assert_int_equal(store_query(st, 13 * SEC, 12 * SEC, out, 64), 0);
	assert_int_equal(store_query(st, 10 * SEC, 13 * SEC, out, 0), 0);
	/* max_out 1: the whole run in one bucket */
	n = store_query(st, 0, UINT64_MAX, out, 1);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].n, 50);
	assert_int_equal(out[0].t0_ns, 10 * SEC);
	assert_int_equal(out[0].t1_ns, 14 * SEC + 900 * MS);
	assert_int_equal(out[0].min.pss_kib, 100);
	assert_int_equal(out[0].max.pss_kib, 149);
	assert_int_equal(out[0].mean.pss_kib, 124);
	/* the open bucket of a coarse tier is returned: 5 buckets, the last still open */
	n = store_query(st, 10 * SEC, 15 * SEC, out, 5);
	assert_int_equal(n, 5);
	assert_int_equal(out[4].t0_ns, 14 * SEC);
	assert_int_equal(out[4].t1_ns, 14 * SEC + 900 * MS);
	assert_int_equal(out[4].n, 10);
	assert_int_equal(out[4].max.pss_kib, 149);

	/* run on to 200 s: tier 2 keeps 8 closed 10 s buckets plus the open one */
	for (int i = 50; i < 1900; i++) {
		struct sample s = mk(10 * SEC + (uint64_t)i * 100 * MS, 100 + (uint64_t)i);
		store_push_sample(st, &s);
	}
	assert_int_equal(store_span(st, &a, &b), 0);
	assert_int_equal(a, 110 * SEC); /* 200 s bucket open, 110..190 closed */
	assert_int_equal(b, 199 * SEC + 900 * MS);
	/* a range starting before the retained data gets the coarsest tier */
	n = store_query(st, 0, UINT64_MAX, out, 64);
	assert_int_equal(n, 9);
	assert_int_equal(out[0].t0_ns, 110 * SEC);
	assert_int_equal(out[0].n, 100);
	assert_int_equal(out[8].t0_ns, 190 * SEC);
	assert_int_equal(out[8].max.pss_kib, 100 + 1899);
	n = store_query(st, 0, UINT64_MAX, out, 1);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].n, 900);
	/* a range tier 1 still covers (last 8 s + open) uses tier 1 */
	n = store_query(st, 192 * SEC, 199 * SEC, out, 64);
	assert_int_equal(n, 8);
	assert_int_equal(out[0].n, 10);
	/* a range tier 0 covers: single samples */
	n = store_query(st, 199 * SEC, 199 * SEC + 500 * MS, out, 64);
	assert_int_equal(n, 6);
	assert_int_equal(out[0].n, 1);

	/* out-of-order samples keep the series ordered */
	struct sample s = mk(5 * SEC, 1);
	store_push_sample(st, &s);
	assert_int_equal(store_span(st, &a, &b), 0);
	assert_int_equal(b, 199 * SEC + 900 * MS);
	n = store_query(st, b, b, out, 64);
	assert_int_equal(n, 2);
	assert_int_equal(out[1].min.pss_kib, 1);
	store_free(st);
}

/* Sums beyond 64 bits, unknown fields kept out of min/max/mean, and the
 * n-weighted mean when the coarsest tier is merged. */
static void test_mean(void **state)
{
	(void)state;
	/* 1 us base: tier 1 = 10 us slots, tier 2 = 100 us slots */
	struct store_config c = { .ntiers = 3, .tier_factor = 10, .base_ns = 1000 };
	struct store *st = store_new(&c);
	struct bucket out[8];
	const uint64_t big = 1ull << 62;
	size_t n;

	assert_non_null(st);
	/* slot [100 us, 200 us): 1000 samples at 100 ns steps of big + i */
	for (uint64_t i = 0; i < 1000; i++) {
		struct sample s = mk(100000 + i * 100, 1000 + i);

		s.utime_us = big + i;
		store_push_sample(st, &s);
	}
	/* one more in the same slot with CPU unknown and a wild value */
	struct sample odd = mk(199999, 1000);
	odd.utime_us = UINT64_MAX;
	odd.valid &= ~(uint32_t)SAMPLE_CPU;
	store_push_sample(st, &odd);
	/* next slot: 10 samples of 0 .. 9 */
	for (uint64_t i = 0; i < 10; i++) {
		struct sample s = mk(200000 + i, i);

		s.utime_us = i;
		store_push_sample(st, &s);
	}
	n = store_query(st, 0, UINT64_MAX, out, 2);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].n, 1001);
	assert_int_equal(out[0].mean.utime_us, big + 499); /* 499.5 truncated */
	assert_int_equal(out[0].max.utime_us, big + 999);
	assert_int_equal(out[0].min.utime_us, big);
	assert_false(out[0].valid & SAMPLE_CPU);
	assert_true(out[0].valid & SAMPLE_PSS);
	assert_int_equal(out[0].mean.pss_kib, (1499500 + 1000) / 1001);
	assert_int_equal(out[1].n, 10);
	assert_int_equal(out[1].mean.utime_us, 4);
	assert_true(out[1].valid & SAMPLE_CPU);
	/* merged: (1000 * (big + 499) + 10 * 4) / 1010, computed without overflow */
	n = store_query(st, 0, UINT64_MAX, out, 1);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].n, 1011);
	assert_int_equal(out[0].max.utime_us, big + 999);
	assert_int_equal(out[0].min.utime_us, 0);
	unsigned __int128 want = ((unsigned __int128)(big + 499) * 1000 + 40) / 1010;
	assert_true(out[0].mean.utime_us == (uint64_t)want);
	store_free(st);
}

static void test_events(void **state)
{
	(void)state;
	struct store_config c = { .events_len = 8 };
	struct store *st = store_new(&c);
	struct store_event out[16];
	uint64_t cur = 0, dropped = 99;
	size_t n;

	assert_non_null(st);
	for (int i = 0; i < 5; i++) {
		struct store_event ev = { .t_ns = (uint64_t)i, .type = STORE_EV_FORK, .pid = i };
		store_push_event(st, &ev);
	}
	n = store_events(st, &cur, out, 3, &dropped);
	assert_int_equal(n, 3);
	assert_int_equal(dropped, 0);
	assert_int_equal(cur, 3);
	assert_int_equal(out[2].pid, 2);
	for (int i = 5; i < 20; i++) {
		struct store_event ev = { .t_ns = (uint64_t)i, .type = STORE_EV_EXIT, .pid = i };
		store_push_event(st, &ev);
	}
	/* the ring holds 12..19; the cursor at 3 lost 9 */
	n = store_events(st, &cur, out, 16, &dropped);
	assert_int_equal(dropped, 9);
	assert_int_equal(n, 8);
	assert_int_equal(cur, 20);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(out[i].t_ns, 12 + i);
	n = store_events(st, &cur, out, 16, &dropped);
	assert_int_equal(n, 0);
	assert_int_equal(dropped, 0);
	cur = 1000; /* from the future: nothing, clamped */
	assert_int_equal(store_events(st, &cur, out, 16, NULL), 0);
	assert_int_equal(cur, 20);
	store_free(st);
}

static struct proc_rec mkproc(uint64_t id, pid_t pid, uint64_t end_ns)
{
	struct proc_rec r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.pid = pid;
	r.end_ns = end_ns;
	r.pss_kib = id * 10;
	snprintf(r.comm, sizeof(r.comm), "p%d", (int)pid);
	return r;
}

/* Whether out[0..n) holds exactly the pids want[0..n), in any order. */
static int same_pids(const struct proc_rec *out, const pid_t *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t hits = 0;

		for (size_t j = 0; j < n; j++)
			hits += out[j].pid == want[i];
		if (hits != 1)
			return 0;
	}
	return 1;
}

static void test_procs(void **state)
{
	(void)state;
	struct store *st = store_new(NULL);
	struct proc_rec out[8], r;
	const size_t N = 20000;

	assert_non_null(st);
	for (uint64_t i = 1; i <= 3; i++) {
		r = mkproc(i << 32 | 77, (pid_t)(100 + i), 0);
		assert_int_equal(store_proc_update(st, &r), 0);
	}
	assert_int_equal(store_procs(st, 0, out, 8), 3);
	assert_int_equal(store_procs(st, 1, out, 8), 3);
	assert_int_equal(store_procs(st, 2, out, 8), 0);
	/* the first exits: it keeps its place in the insertion order */
	r = mkproc(1ull << 32 | 77, 101, 555);
	r.exit_status = 256;
	r.valid = PROC_V_EXIT;
	assert_int_equal(store_proc_update(st, &r), 0);
	assert_int_equal(store_procs(st, 0, out, 8), 3);
	assert_int_equal(out[0].pid, 101);
	assert_int_equal(out[0].exit_status, 256);
	assert_int_equal(out[0].end_ns, 555);
	assert_int_equal(out[0].id, 1ull << 32 | 77);
	assert_int_equal(out[0].pss_kib, 0); /* not kept once exited */
	assert_string_equal(out[0].comm, "p101");
	assert_int_equal(out[1].pid, 102);
	assert_int_equal(out[1].pss_kib, (2ull << 32 | 77) * 10);
	assert_int_equal(out[2].pid, 103);
	/* live: the last one moved into the hole, in no set order */
	assert_int_equal(store_procs(st, 1, out, 8), 2);
	assert_true(same_pids(out, (pid_t[]){ 102, 103 }, 2));
	assert_int_equal(store_procs(st, 2, out, 8), 1);
	assert_int_equal(out[0].pid, 101);
	/* exit order, not insertion order */
	r = mkproc(3ull << 32 | 77, 103, 600);
	assert_int_equal(store_proc_update(st, &r), 0);
	assert_int_equal(store_procs(st, 2, out, 8), 2);
	assert_int_equal(out[0].pid, 101);
	assert_int_equal(out[1].pid, 103);
	assert_int_equal(store_procs(st, 1, out, 8), 1);
	assert_int_equal(out[0].pid, 102);
	/* max smaller than the matches: copies max, returns the total */
	assert_int_equal(store_procs(st, 0, out, 1), 3);
	assert_int_equal(out[0].pid, 101);
	assert_int_equal(store_procs(st, 7, out, 8), 0);
	assert_int_equal(store_procs(st, -1, out, 8), 0);
	/* an exited record stays exited: an update is kept in place, and an end of
	 * 0 keeps the end already known */
	r = mkproc(3ull << 32 | 77, 103, 0);
	r.peak_pss_kib = 4242;
	assert_int_equal(store_proc_update(st, &r), 0);
	assert_int_equal(store_procs(st, 1, out, 8), 1);
	assert_int_equal(store_procs(st, 2, out, 8), 2);
	assert_int_equal(out[1].pid, 103);
	assert_int_equal(out[1].end_ns, 600);
	assert_int_equal(out[1].peak_pss_kib, 4242);
	/* and an update that packs longer than before moves it, keeping its places */
	r.end_ns = 700;
	r.peak_pss_kib = UINT64_MAX;
	r.utime_us = UINT64_MAX - 1;
	snprintf(r.comm, sizeof(r.comm), "renamed-later");
	assert_int_equal(store_proc_update(st, &r), 0);
	assert_int_equal(store_procs(st, 2, out, 8), 2);
	assert_int_equal(out[1].end_ns, 700);
	assert_true(out[1].peak_pss_kib == UINT64_MAX);
	assert_true(out[1].utime_us == UINT64_MAX - 1);
	assert_string_equal(out[1].comm, "renamed-later");
	assert_int_equal(store_procs(st, 0, out, 8), 3);
	assert_int_equal(out[2].pid, 103);
	assert_int_equal(out[2].end_ns, 700);

	/* many records: growth of the arrays, the arena and the map */
	for (size_t i = 0; i < N; i++) {
		r = mkproc(1000 + i, (pid_t)(1000 + i), i % 2 ? 1 : 0);
		assert_int_equal(store_proc_update(st, &r), 0);
	}
	for (size_t i = 0; i < N; i += 3) { /* update every third: all exit */
		r = mkproc(1000 + i, (pid_t)(1000 + i), 42);
		r.rss_kib = i;
		r.peak_rss_kib = i + 1;
		assert_int_equal(store_proc_update(st, &r), 0);
	}
	struct proc_rec *all = calloc(N + 3, sizeof(*all));
	assert_int_equal(store_procs(st, 0, all, N + 3), N + 3);
	size_t live = 0;
	for (size_t i = 0; i < N; i++) {
		const struct proc_rec *p = &all[3 + i];

		assert_int_equal(p->id, 1000 + i);
		assert_int_equal(p->pid, 1000 + i);
		if (i % 3 == 0) {
			assert_int_equal(p->end_ns, 42);
			assert_int_equal(p->rss_kib, 0);
			assert_int_equal(p->peak_rss_kib, i + 1);
		} else {
			assert_int_equal(p->end_ns, i % 2 ? 1 : 0);
		}
		live += p->end_ns == 0;
	}
	assert_int_equal(store_procs(st, 1, all, N + 3), live + 1);
	for (size_t i = 0; i < live + 1; i++)
		assert_int_equal(all[i].end_ns, 0);
	assert_int_equal(store_procs(st, 2, all, N + 3), N + 3 - live - 1);
	for (size_t i = 0; i < N + 2 - live; i++)
		assert_true(all[i].end_ns != 0);
	free(all);
	store_free(st);
}

/* A record with every field set, distinct, in realistic ranges. */
static struct proc_rec mkfull(uint64_t id, uint64_t t0)
{
	struct proc_rec r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.pid = (pid_t)(4000000 + id % 100000);
	r.ppid = (pid_t)(id % 7 + 1);
	r.start_ns = t0 + id * 1234567;
	r.argv_id = (uint32_t)(id % 5000 + 1);
	snprintf(r.comm, sizeof(r.comm), "cc1plus-%llu", (unsigned long long)(id % 13));
	r.threads = 3;
	r.nexec = 2;
	r.pss_kib = 70000 + id;
	r.rss_kib = 90000 + id;
	r.peak_pss_kib = 123456 + id;
	r.peak_pss_t_ns = r.start_ns + 777777;
	r.peak_rss_kib = 234567 + id;
	r.pss_age_ns = 5000000;
	r.utime_us = 4321000 + id;
	r.stime_us = 654000 + id;
	r.minflt = 98765 + id;
	r.majflt = 12 + id % 3;
	r.valid = PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS | PROC_V_ARGV |
		  PROC_V_PSS_EST;
	return r;
}

/* Whether a copy of an exited record equals what went in, but for the fields
 * that are not kept (pss_kib, rss_kib, pss_age_ns come back 0). */
static void assert_exited_equal(const struct proc_rec *got, const struct proc_rec *in)
{
	struct proc_rec want = *in;

	want.pss_kib = 0;
	want.rss_kib = 0;
	want.pss_age_ns = 0;
	assert_int_equal(got->id, want.id);
	assert_int_equal(got->pid, want.pid);
	assert_int_equal(got->ppid, want.ppid);
	assert_int_equal(got->start_ns, want.start_ns);
	assert_int_equal(got->end_ns, want.end_ns);
	assert_int_equal(got->argv_id, want.argv_id);
	assert_memory_equal(got->comm, want.comm, sizeof(want.comm));
	assert_int_equal(got->exit_status, want.exit_status);
	assert_int_equal(got->threads, want.threads);
	assert_int_equal(got->nexec, want.nexec);
	assert_int_equal(got->peak_pss_kib, want.peak_pss_kib);
	assert_int_equal(got->peak_pss_t_ns, want.peak_pss_t_ns);
	assert_int_equal(got->peak_rss_kib, want.peak_rss_kib);
	assert_int_equal(got->utime_us, want.utime_us);
	assert_int_equal(got->stime_us, want.stime_us);
	assert_int_equal(got->minflt, want.minflt);
	assert_int_equal(got->majflt, want.majflt);
	assert_int_equal(got->valid, want.valid);
	assert_int_equal(got->pss_kib, 0);
	assert_int_equal(got->rss_kib, 0);
	assert_int_equal(got->pss_age_ns, 0);
}

/* Live in full, then the exit: what the exports read comes back exactly. */
static void test_proc_compaction(void **state)
{
	(void)state;
	struct store *st = store_new(NULL);
	struct proc_rec r = mkfull(7, 3600 * SEC), out[4];

	assert_non_null(st);
	assert_int_equal(store_proc_update(st, &r), 0);
	assert_int_equal(store_procs(st, 1, out, 4), 1);
	assert_memory_equal(&out[0], &r, sizeof(r)); /* live: the struct as given */
	/* the exit update: new values everywhere, as the collector sends it */
	r.end_ns = r.start_ns + 2 * 3600 * SEC + 17; /* a 2-hour process */
	r.exit_status = 0x8b; /* SIGSEGV, core dumped */
	r.threads = 9;
	r.peak_pss_kib += 1000;
	r.peak_pss_t_ns = r.end_ns - 5;
	r.peak_rss_kib += 2000;
	r.utime_us += 7;
	r.stime_us += 8;
	r.minflt += 9;
	r.majflt += 10;
	r.valid |= PROC_V_EXIT;
	assert_int_equal(store_proc_update(st, &r), 0);
	assert_int_equal(store_procs(st, 1, out, 4), 0);
	assert_int_equal(store_procs(st, 2, out, 4), 1);
	assert_exited_equal(&out[0], &r);
	assert_int_equal(store_procs(st, 0, out, 4), 1);
	assert_exited_equal(&out[0], &r);

	/* awkward values: before the first record's start, negative pids, a comm
	 * filling all 16 bytes, extremes, an end before the start */
	struct proc_rec odd;
	memset(&odd, 0, sizeof(odd));
	odd.id = UINT64_MAX;
	odd.pid = -1;
	odd.ppid = INT32_MIN;
	odd.start_ns = 5;
	odd.end_ns = 4;
	odd.peak_pss_t_ns = UINT64_MAX;
	memcpy(odd.comm, "0123456789abcdef", 16);
	odd.exit_status = -1;
	odd.threads = UINT32_MAX;
	odd.nexec = UINT32_MAX;
	odd.argv_id = UINT32_MAX;
	odd.peak_pss_kib = UINT64_MAX;
	odd.minflt = 1ull << 63;
	odd.valid = UINT32_MAX;
	assert_int_equal(store_proc_update(st, &odd), 0);
	assert_int_equal(store_procs(st, 2, out, 4), 2);
	assert_exited_equal(&out[1], &odd);
	/* a record that was never live, with almost nothing known */
	struct proc_rec bare;
	memset(&bare, 0, sizeof(bare));
	bare.id = 99;
	bare.end_ns = 1;
	assert_int_equal(store_proc_update(st, &bare), 0);
	assert_int_equal(store_procs(st, 2, out, 4), 3);
	assert_exited_equal(&out[2], &bare);
	assert_string_equal(out[2].comm, "");
	store_free(st);
}

/* Chunks of every size concatenate to the one-call copy; which counts add up;
 * ranges past the end copy nothing. */
static void test_procs_range(void **state)
{
	(void)state;
	struct store *st = store_new(NULL);
	const size_t N = 3000;
	struct proc_rec *one = calloc(N, sizeof(*one)), *cat = calloc(N, sizeof(*cat));
	static const size_t chunks[] = { 1, 2, 7, 64, 999, 4096 };

	assert_non_null(st);
	for (size_t i = 0; i < N; i++) {
		struct proc_rec r = mkfull(i, SEC);

		assert_int_equal(store_proc_update(st, &r), 0);
		if (i % 3 == 2) { /* i exits, then i - 2: an order of their own */
			for (size_t k = 0; k <= 2; k += 2) {
				struct proc_rec e = mkfull(i - k, SEC);

				e.end_ns = e.start_ns + (10 + k) * MS;
				assert_int_equal(store_proc_update(st, &e), 0);
			}
		}
	}
	size_t nall = store_procs(st, 0, NULL, 0), nlive = store_procs(st, 1, NULL, 0);
	size_t nexit = store_procs(st, 2, NULL, 0);
	assert_int_equal(nall, N);
	assert_int_equal(nlive + nexit, N);
	assert_int_equal(nexit, N / 3 * 2);
	for (int which = 0; which <= 2; which++) {
		size_t total = store_procs(st, which, one, N);

		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			size_t from = 0, got;

			memset(cat, 0xa5, N * sizeof(*cat));
			while (from < total) {
				got = store_procs_range(st, which, from, cat + from, chunks[c]);
				assert_int_equal(got, total);
				from += chunks[c] < total - from ? chunks[c] : total - from;
			}
			assert_memory_equal(cat, one, total * sizeof(*one));
		}
		/* past the end: nothing copied, the total still told */
		cat[0].id = 12345;
		assert_int_equal(store_procs_range(st, which, total, cat, 10), total);
		assert_int_equal(store_procs_range(st, which, total + 5, cat, 10), total);
		assert_int_equal(store_procs_range(st, which, SIZE_MAX, cat, 10), total);
		assert_int_equal(cat[0].id, 12345);
		/* a window in the middle */
		assert_int_equal(store_procs_range(st, which, total / 2, cat, 3), total);
		assert_memory_equal(cat, one + total / 2, 3 * sizeof(*one));
	}
	/* the exit order: exit times in order of the updates, not of insertion */
	assert_int_equal(store_procs(st, 2, one, N), nexit);
	assert_int_equal(one[0].id, 2);
	assert_int_equal(one[1].id, 0);
	free(one);
	free(cat);
	store_free(st);
}

/* Comms are interned: one copy of each name however many records and execs
 * carry it. */
static void test_comm_interning(void **state)
{
	(void)state;
	struct store *st = store_new(NULL);
	struct proc_rec r, out[2];
	struct store_exec ex, exo;

	assert_non_null(st);
	for (uint64_t i = 1; i <= 1000; i++) {
		r = mkproc(i, (pid_t)i, 0);
		snprintf(r.comm, sizeof(r.comm), "%s", i % 2 ? "make" : "cc1");
		assert_int_equal(store_proc_update(st, &r), 0);
		r.end_ns = i;
		assert_int_equal(store_proc_update(st, &r), 0);
		memset(&ex, 0, sizeof(ex));
		ex.t_ns = i;
		ex.pid = (pid_t)i;
		memcpy(ex.comm, r.comm, sizeof(ex.comm));
		store_push_exec(st, &ex);
	}
	/* two names, so the next string gets id 3 */
	assert_int_equal(store_str_intern(st, "x", 1), 3);
	assert_int_equal(store_procs_range(st, 2, 998, out, 2), 1000);
	assert_string_equal(out[0].comm, "make"); /* pid 999 */
	assert_string_equal(out[1].comm, "cc1");
	assert_int_equal(store_execs(st, 998, &exo, 1), 1000);
	assert_string_equal(exo.comm, "make");
	/* no comm: "" and nothing interned */
	memset(&ex, 0, sizeof(ex));
	store_push_exec(st, &ex);
	assert_int_equal(store_execs(st, 1000, &exo, 1), 1001);
	assert_string_equal(exo.comm, "");
	assert_int_equal(store_str_intern(st, "y", 1), 4);
	store_free(st);
}

/* 100,000 exited processes, each with every field known: the packed records
 * (about 44 bytes each here), their index arrays (16), the id map (about 12)
 * and the arrays' unused tails stay under 88 bytes a process; a live record
 * alone is 152. */
static void test_proc_memory(void **state)
{
	(void)state;
	struct store *st = store_new(NULL);
	const size_t N = 100000;
	size_t m0, m1;

	assert_non_null(st);
	m0 = store_mem_bytes(st);
	for (size_t i = 0; i < N; i++) {
		struct proc_rec r = mkfull(i + 1, 1000 * SEC);

		assert_int_equal(store_proc_update(st, &r), 0);
		r.end_ns = r.start_ns + 5 * SEC + i;
		r.valid |= PROC_V_EXIT;
		assert_int_equal(store_proc_update(st, &r), 0);
	}
	m1 = store_mem_bytes(st);
	print_message("    100000 exited records: %zu bytes of store (%.1f a process)\n", m1 - m0,
		      (double)(m1 - m0) / (double)N);
	assert_true(m1 - m0 <= 88 * N);
	assert_int_equal(store_procs(st, 2, NULL, 0), N);
	assert_int_equal(store_procs(st, 1, NULL, 0), 0);
	store_free(st);
}

static void test_execs(void **state)
{
	(void)state;
	struct store *st = store_new(NULL);
	struct store_exec out[10];
	const size_t N = 3000;

	assert_non_null(st);
	for (size_t i = 0; i < N; i++) {
		struct store_exec ex = { .t_ns = i, .pid = (pid_t)i, .argv_id = (uint32_t)i };

		snprintf(ex.comm, sizeof(ex.comm), "c%zu", i);
		store_push_exec(st, &ex);
	}
	assert_int_equal(store_execs(st, 0, out, 10), N);
	assert_int_equal(out[9].pid, 9);
	assert_int_equal(store_execs(st, 2995, out, 10), N);
	assert_int_equal(out[0].t_ns, 2995);
	assert_int_equal(out[4].t_ns, 2999);
	assert_string_equal(out[4].comm, "c2999");
	out[5].t_ns = 12345; /* beyond the end: untouched */
	assert_int_equal(store_execs(st, 2995, out, 10), N);
	assert_int_equal(out[5].t_ns, 12345);
	assert_int_equal(store_execs(st, N + 5, out, 10), N);
	for (size_t i = 0; i < N; i += 257) {
		assert_int_equal(store_execs(st, i, out, 1), N);
		assert_int_equal(out[0].argv_id, i);
	}
	store_free(st);
}

static void test_strings(void **state)
{
	(void)state;
	struct store *st = store_new(NULL);
	char buf[64];
	static const char a1[] = "make\0-j8\0all", a2[] = "make\0-j8\0alm";

	assert_non_null(st);
	uint32_t x = store_str_intern(st, a1, sizeof(a1) - 1);
	uint32_t y = store_str_intern(st, a2, sizeof(a2) - 1);
	uint32_t z = store_str_intern(st, "make", 4);
	uint32_t e = store_str_intern(st, "", 0);
	assert_true(x > 0 && y > 0 && z > 0 && e > 0);
	assert_true(x != y && x != z && y != z && e != z);
	assert_int_equal(store_str_intern(st, a1, sizeof(a1) - 1), x);
	assert_int_equal(store_str_intern(st, "make\0-j8\0all", 12), x);
	assert_int_equal(store_str_intern(st, "make", 4), z);
	assert_int_equal(store_str_intern(st, NULL, 0), e);
	assert_int_equal(store_str_intern(st, NULL, 3), 0);
	assert_int_equal(store_str_get(st, x, buf, sizeof(buf)), 12);
	assert_memory_equal(buf, a1, 12);
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(store_str_get(st, y, buf, 5), 12); /* truncated copy, full length */
	assert_memory_equal(buf, "make\0X", 6);
	assert_int_equal(store_str_get(st, e, buf, sizeof(buf)), 0);
	assert_int_equal(store_str_get(st, 9999, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(store_str_dropped(st), 0);

	/* many distinct strings: ids stable, content intact, dedup across growth */
	enum { M = 60000 };
	uint32_t *ids = calloc(M, sizeof(*ids));
	for (int i = 0; i < M; i++) {
		int len = snprintf(buf, sizeof(buf), "/usr/bin/cc%c-c%cfile%d.c", 0, 0, i);

		ids[i] = store_str_intern(st, buf, (size_t)len);
		assert_true(ids[i] > 0);
	}
	for (int i = 0; i < M; i += 7) {
		char want[64];
		int len = snprintf(want, sizeof(want), "/usr/bin/cc%c-c%cfile%d.c", 0, 0, i);

		assert_int_equal(store_str_intern(st, want, (size_t)len), ids[i]);
		assert_int_equal(store_str_get(st, ids[i], buf, sizeof(buf)), len);
		assert_memory_equal(buf, want, (size_t)len);
	}
	free(ids);
	store_free(st);

	/* the cap: 6400 bytes, of which the last 100 (1/64) only for strings of
	 * up to 16 bytes (comm names) */
	struct store_config c = { .strpool_max_bytes = 6400 };
	st = store_new(&c);
	char s100[100];
	uint32_t got[70];
	for (int i = 0; i < 70; i++) {
		memset(s100, 'A' + i, sizeof(s100));
		got[i] = store_str_intern(st, s100, sizeof(s100));
	}
	for (int i = 0; i < 63; i++)
		assert_true(got[i] > 0);
	for (int i = 63; i < 70; i++)
		assert_int_equal(got[i], 0);
	assert_int_equal(store_str_dropped(st), 7);
	memset(s100, 'A', sizeof(s100)); /* already in: still found when full */
	assert_int_equal(store_str_intern(st, s100, sizeof(s100)), got[0]);
	assert_true(store_str_intern(st, "x", 1) > 0); /* 6301 bytes */
	for (int i = 0; i < 7; i++) {
		char name[17];

		snprintf(name, sizeof(name), "comm-%011d", i);
		if (i < 6)
			assert_true(store_str_intern(st, name, 16) > 0);
		else
			assert_int_equal(store_str_intern(st, name, 16), 0); /* 6397 + 16 */
	}
	assert_int_equal(store_str_dropped(st), 8);
	assert_true(store_str_intern(st, "abc", 3) > 0); /* exactly full */
	assert_int_equal(store_str_intern(st, "d", 1), 0);
	assert_int_equal(store_str_dropped(st), 9);
	assert_int_equal(store_str_truncated(st), 0);
	store_free(st);
}

/* String i of test_strings_truncated(): 2 KiB of one letter, i in front. */
static void long_str(char *s, size_t len, int i)
{
	memset(s, 'a' + i % 26, len);
	for (int k = 5, v = i; k >= 0; k--, v /= 10)
		s[k] = (char)('0' + v % 10);
}

/* Past half the pool, strings over 1 KiB are kept as their first 1 KiB. */
static void test_strings_truncated(void **state)
{
	(void)state;
	struct store_config c = { .strpool_max_bytes = 65536 }; /* reserve 1 KiB */
	struct store *st = store_new(&c);
	char s[2048], buf[2048];
	uint32_t ids[50];

	assert_non_null(st);
	for (int i = 0; i < 50; i++) {
		long_str(s, sizeof(s), i);
		ids[i] = store_str_intern(st, s, sizeof(s));
	}
	/* 16 whole (32 KiB, half), then 31 cut to 1 KiB (to 63 KiB), then none */
	for (int i = 0; i < 47; i++) {
		long_str(s, sizeof(s), i);
		assert_true(ids[i] > 0);
		ssize_t want = i < 16 ? 2048 : 1024;
		assert_int_equal(store_str_get(st, ids[i], buf, sizeof(buf)), want);
		assert_memory_equal(buf, s, (size_t)want);
	}
	for (int i = 47; i < 50; i++)
		assert_int_equal(ids[i], 0);
	assert_int_equal(store_str_truncated(st), 31);
	assert_int_equal(store_str_dropped(st), 3);
	/* the same bytes, the same id: whole ones whole, cut ones by their prefix */
	long_str(s, sizeof(s), 0);
	assert_int_equal(store_str_intern(st, s, sizeof(s)), ids[0]);
	long_str(s, sizeof(s), 20);
	assert_int_equal(store_str_intern(st, s, sizeof(s)), ids[20]);
	assert_int_equal(store_str_truncated(st), 32);
	s[1500] = '!'; /* differs after the first 1 KiB: that prefix's id too */
	assert_int_equal(store_str_intern(st, s, sizeof(s)), ids[20]);
	assert_int_equal(store_str_truncated(st), 33);
	/* strings of up to 1 KiB are never cut */
	assert_int_equal(store_str_intern(st, s, 1024), ids[20]);
	assert_int_equal(store_str_truncated(st), 33);
	store_free(st);
}

/* The sample cursor: every sample once, in order, exactly; a cursor the ring
 * has passed skips forward and counts what it missed. */
static void test_samples_cursor(void **state)
{
	struct store_config cfg = { .tier0_len = 8 };
	struct store *st = store_new(&cfg);
	struct sample out[16];
	uint64_t cur = 0, dropped = 99;
	size_t n;

	(void)state;
	assert_non_null(st);
	assert_int_equal(store_samples(st, &cur, out, 16, &dropped), 0);
	assert_int_equal(dropped, 0);
	for (uint64_t i = 0; i < 5; i++) {
		struct sample s = mk((i + 1) * MS, 100 + i);

		store_push_sample(st, &s);
	}
	n = store_samples(st, &cur, out, 3, &dropped);
	assert_int_equal(n, 3);
	assert_int_equal(cur, 3);
	for (size_t i = 0; i < n; i++) {
		struct sample s = mk((i + 1) * MS, 100 + i);

		assert_memory_equal(&out[i], &s, sizeof(s));
	}
	n = store_samples(st, &cur, out, 16, &dropped);
	assert_int_equal(n, 2);
	assert_int_equal(out[1].pss_kib, 104);
	assert_int_equal(cur, 5);
	/* 10 more: samples 5..14 pushed, the ring (8) holds 7..14 */
	for (uint64_t i = 5; i < 15; i++) {
		struct sample s = mk((i + 1) * MS, 100 + i);

		store_push_sample(st, &s);
	}
	n = store_samples(st, &cur, out, 16, &dropped);
	assert_int_equal(dropped, 2);
	assert_int_equal(n, 8);
	assert_int_equal(out[0].pss_kib, 107);
	assert_int_equal(out[7].pss_kib, 114);
	assert_int_equal(cur, 15);
	cur = 1000; /* beyond the newest: nothing, and back to the count */
	assert_int_equal(store_samples(st, &cur, out, 16, NULL), 0);
	assert_int_equal(cur, 15);
	store_free(st);
}

static void test_summary_and_mem(void **state)
{
	(void)state;
	struct store *st = store_new(NULL);
	struct store_summary in, out;
	size_t m0;

	assert_non_null(st);
	memset(&in, 0, sizeof(in));
	in.start_ns = 5;
	in.exited = 1;
	in.wait_status = 3 << 8;
	in.peak = mk(77, 12345);
	in.interval_ms = 100;
	store_summary_set(st, &in);
	store_summary_get(st, &out);
	assert_memory_equal(&in, &out, sizeof(in));
	m0 = store_mem_bytes(st);
	for (uint64_t i = 1; i <= 5000; i++) {
		struct proc_rec r = mkproc(i, (pid_t)i, 0);
		assert_int_equal(store_proc_update(st, &r), 0);
	}
	assert_true(store_mem_bytes(st) >= m0 + 5000 * sizeof(struct proc_rec));
	store_free(st);
}

/* Two threads: a writer pushing 200k samples (pss = sample index, so every
 * bucket's min and max are known from its times), events, records and
 * strings; a reader querying meanwhile. Checks invariants, not timings. */
#define TS_N 200000
#define TS_BASE (1000 * SEC)
#define TS_DT (100 * MS)

struct ts_ctx {
	struct store *st;
	int done;
	pthread_mutex_t mu;
};

static void *ts_writer(void *arg)
{
	struct ts_ctx *cx = arg;
	char buf[32];

	for (uint64_t i = 0; i < TS_N; i++) {
		struct sample s = mk(TS_BASE + i * TS_DT, i);

		store_push_sample(cx->st, &s);
		if (i % 10 == 0) {
			struct store_event ev = { .t_ns = i, .type = STORE_EV_FORK };
			store_push_event(cx->st, &ev);
		}
		if (i % 50 == 0) {
			struct proc_rec r = mkproc(i / 50 % 2000, 1, i % 100 ? 0 : 9);
			struct store_exec ex = { .t_ns = i };
			int len = snprintf(buf, sizeof(buf), "argv%" PRIu64, i / 50 % 3000);

			store_proc_update(cx->st, &r);
			store_push_exec(cx->st, &ex);
			store_str_intern(cx->st, buf, (size_t)len);
		}
	}
	pthread_mutex_lock(&cx->mu);
	cx->done = 1;
	pthread_mutex_unlock(&cx->mu);
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	struct ts_ctx cx = { .st = store_new(NULL), .done = 0 };
	struct bucket out[300];
	struct store_event evs[256];
	uint64_t cursor = 0, last_t1 = 0;
	size_t queries = 0;
	pthread_t th;
	int done = 0;

	assert_non_null(cx.st);
	pthread_mutex_init(&cx.mu, NULL);
	assert_int_equal(pthread_create(&th, NULL, ts_writer, &cx), 0);
	while (!done) {
		uint64_t a, b, dropped;
		size_t n;

		pthread_mutex_lock(&cx.mu);
		done = cx.done;
		pthread_mutex_unlock(&cx.mu);
		if (store_span(cx.st, &a, &b) != 0)
			continue;
		assert_true(b >= last_t1);
		n = store_query(cx.st, 0, UINT64_MAX, out, 300);
		assert_true(n >= 1 && n <= 300);
		uint64_t sumn = 0;
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(out[i].min.pss_kib, (out[i].t0_ns - TS_BASE) / TS_DT);
			assert_int_equal(out[i].max.pss_kib, (out[i].t1_ns - TS_BASE) / TS_DT);
			assert_true(out[i].min.pss_kib <= out[i].mean.pss_kib);
			assert_true(out[i].mean.pss_kib <= out[i].max.pss_kib);
			if (i)
				assert_true(out[i - 1].t1_ns < out[i].t0_ns);
			sumn += out[i].n;
		}
		/* nothing lost or doubled: 200k samples stay within the coarsest tier */
		assert_int_equal(out[0].t0_ns, TS_BASE);
		assert_int_equal(sumn, (out[n - 1].t1_ns - TS_BASE) / TS_DT + 1);
		assert_true(out[n - 1].t1_ns >= b);
		last_t1 = out[n - 1].t1_ns;
		/* a zoom on that second: whatever tier serves it (tier 0 unless the
		 * writer ran 4096 samples ahead meanwhile), the last sample shows */
		n = store_query(cx.st, last_t1 - SEC, last_t1, out, 300);
		assert_true(n >= 1 && n <= 11);
		assert_true(out[0].t1_ns >= last_t1 - SEC && out[n - 1].t0_ns <= last_t1);
		assert_true(out[n - 1].min.pss_kib <= (last_t1 - TS_BASE) / TS_DT);
		assert_true(out[n - 1].max.pss_kib >= (last_t1 - TS_BASE) / TS_DT);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(out[i].min.pss_kib, (out[i].t0_ns - TS_BASE) / TS_DT);
			assert_int_equal(out[i].max.pss_kib, (out[i].t1_ns - TS_BASE) / TS_DT);
		}
		/* events arrive in order (event j has t_ns 10 j), gaps reported as dropped */
		uint64_t before = cursor;
		n = store_events(cx.st, &cursor, evs, 256, &dropped);
		assert_int_equal(before + dropped + n, cursor);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(evs[i].t_ns, 10 * (cursor - n + i));
		queries++;
	}
	pthread_join(th, NULL);
	assert_true(queries > 0);
	uint64_t a, b;
	assert_int_equal(store_span(cx.st, &a, &b), 0);
	assert_int_equal(b, TS_BASE + (TS_N - 1) * TS_DT);
	assert_int_equal(store_procs(cx.st, 0, NULL, 0), 2000);
	assert_int_equal(store_execs(cx.st, 0, NULL, 0), TS_N / 50);
	/* 3000 argvs and one comm ("p1"): "argv7" is found, a new string is the 3002nd */
	uint32_t id7 = store_str_intern(cx.st, "argv7", 5);
	assert_true(id7 > 0 && id7 <= 3001);
	assert_int_equal(store_str_intern(cx.st, "brand new", 9), 3002);
	pthread_mutex_destroy(&cx.mu);
	store_free(cx.st);
}

/* Two writers at once (the store allows it though the collector is the only
 * one): overlapping process ids and strings race through the grow-outside-the-
 * lock paths; every id ends up once, every string with one id. */
#define TW_N 30000

struct tw_ctx {
	struct store *st;
	int which;
	uint32_t *ids; /* string id per index */
};

static void *tw_writer(void *arg)
{
	struct tw_ctx *cx = arg;
	char buf[48];

	for (int k = 0; k < TW_N; k++) {
		/* writer 0 takes 0 .. N-1, writer 1 N/2 .. 3N/2 - 1, in opposite orders */
		int i = cx->which ? TW_N / 2 + (TW_N - 1 - k) : k;
		struct proc_rec r = mkproc((uint64_t)i, (pid_t)i, 0);
		int len = snprintf(buf, sizeof(buf), "cmd%c%d", 0, i);

		assert_int_equal(store_proc_update(cx->st, &r), 0);
		cx->ids[i] = store_str_intern(cx->st, buf, (size_t)len);
		assert_true(cx->ids[i] > 0);
	}
	return NULL;
}

static void test_two_writers(void **state)
{
	(void)state;
	struct store *st = store_new(NULL);
	const size_t total = TW_N + TW_N / 2;
	struct tw_ctx cx[2] = { { st, 0, calloc(total, 4) }, { st, 1, calloc(total, 4) } };
	pthread_t th[2];
	struct proc_rec *all = calloc(total + 1, sizeof(*all));
	char *seen = calloc(total, 1);
	char buf[48];

	assert_non_null(st);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, tw_writer, &cx[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(store_procs(st, 0, all, total + 1), total);
	for (size_t i = 0; i < total; i++) {
		assert_true(all[i].id < total);
		assert_false(seen[all[i].id]);
		seen[all[i].id] = 1;
	}
	for (size_t i = TW_N / 2; i < TW_N; i++) /* interned by both: one id */
		assert_int_equal(cx[0].ids[i], cx[1].ids[i]);
	for (size_t i = 0; i < total; i++) {
		uint32_t id = i < TW_N ? cx[0].ids[i] : cx[1].ids[i];
		int len = snprintf(buf, sizeof(buf), "cmd%c%zu", 0, i);
		char got[48];

		assert_int_equal(store_str_get(st, id, got, sizeof(got)), len);
		assert_memory_equal(got, buf, (size_t)len);
	}
	assert_int_equal(store_str_intern(st, "new", 3), total + 1);
	free(all);
	free(seen);
	free(cx[0].ids);
	free(cx[1].ids);
	store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_empty),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_spike_every_tier),
		cmocka_unit_test(test_query_boundaries),
		cmocka_unit_test(test_mean),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_procs),
		cmocka_unit_test(test_proc_compaction),
		cmocka_unit_test(test_procs_range),
		cmocka_unit_test(test_comm_interning),
		cmocka_unit_test(test_proc_memory),
		cmocka_unit_test(test_execs),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_strings_truncated),
		cmocka_unit_test(test_samples_cursor),
		cmocka_unit_test(test_summary_and_mem),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_two_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
