/* Unit tests for compare: job keys (temporary names made stable), jobs
 * matched across two runs (reordered arguments, two alike in one run, one
 * run's only), the --fail-above gate. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "store.h"

#define MS 1000000ull

static void test_key(void **state)
{
	char k[128];

	(void)state;
	compare_key("as /tmp/ccAbC123.s", k, sizeof(k));
	assert_string_equal(k, "as /tmp/cc*.s");
	compare_key("cc1 /tmp/cc9xYz7Q.i", k, sizeof(k));
	assert_string_equal(k, "cc1 /tmp/cc*.i");
	compare_key("sh /tmp/tmp.Qw3rTy", k, sizeof(k));
	assert_string_equal(k, "sh /tmp/tmp.*");
	/* words are not random: a file named like one stays */
	compare_key("cc1 src/ccache.c", k, sizeof(k));
	assert_string_equal(k, "cc1 src/ccache.c");
	compare_key("cc1 src/ccmain.c", k, sizeof(k));
	assert_string_equal(k, "cc1 src/ccmain.c");
	compare_key("make -C lib", k, sizeof(k));
	assert_string_equal(k, "make -C lib");
	/* a small buffer: cut, terminated */
	assert_int_equal(compare_key("as /tmp/ccAbC123.s", k, 5), 4);
	assert_string_equal(k, "as /");
}

/* A process of argv (NUL-separated, len bytes) with a peak, started at t. */
static void add(struct store *st, uint64_t id, const char *argv, size_t len, uint64_t t, uint64_t peak)
{
	struct proc_rec r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.pid = (pid_t)(1000 + id);
	r.start_ns = t;
	r.end_ns = t + 100 * MS;
	r.argv_id = store_str_intern(st, argv, len);
	r.peak_pss_kib = peak;
	r.utime_us = 1000 * id;
	r.valid = PROC_V_ARGV | PROC_V_PSS | PROC_V_EXIT;
	assert_int_equal(store_proc_update(st, &r), 0);
}

#define ADD(st, id, lit, t, peak) add(st, id, lit, sizeof(lit) - 1, t, peak)

static const struct compare_job *find(const struct compare_job *v, size_t n, const char *key, uint32_t nth)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].key, key) &&
		    ((v[i].side[0].present && v[i].side[0].nth == nth) || (v[i].side[1].present && v[i].side[1].nth == nth)))
			return &v[i];
	return NULL;
}

static void test_match(void **state)
{
	struct store *a = store_new(NULL), *b = store_new(NULL);
	struct compare_job *v;

	(void)state;
	/* run A: two compiles, an assembler on a temporary file, the same
	 * script twice, a link */
	ADD(a, 1, "cc1\0-quiet\0-O2\0-I\0inc\0src/x.c\0-o\0/tmp/ccAbC123.s", 0, 1000);
	ADD(a, 2, "cc1\0-quiet\0src/y.c\0-o\0/tmp/ccQq9Ww8.s", 10 * MS, 2000);
	ADD(a, 3, "as\0-o\0x.o\0/tmp/ccAbC123.s", 20 * MS, 300);
	ADD(a, 4, "sh\0gen.sh", 30 * MS, 50);
	ADD(a, 5, "sh\0gen.sh", 40 * MS, 60);
	ADD(a, 6, "ld\0-o\0prog\0x.o", 50 * MS, 700);
	/* run B: x.c's arguments reordered and its peak +500; y.c gone; the
	 * scripts swapped in size; a new step */
	ADD(b, 1, "cc1\0-I\0inc\0-O2\0-quiet\0src/x.c\0-o\0/tmp/ccZz0Yy1.s", 0, 1500);
	ADD(b, 3, "as\0-o\0x.o\0/tmp/ccZz0Yy1.s", 20 * MS, 310);
	ADD(b, 4, "sh\0gen.sh", 30 * MS, 70);
	ADD(b, 5, "sh\0gen.sh", 40 * MS, 50);
	ADD(b, 6, "ld\0-o\0prog\0x.o", 50 * MS, 700);
	ADD(b, 7, "strip\0prog", 60 * MS, 40);
	ssize_t n = compare_jobs(a, b, &v);
	assert_int_equal(n, 7); /* x.c, y.c, as, sh 0, sh 1, ld, strip */
	/* the largest change first: y.c's 2000 gone */
	assert_string_equal(v[0].key, "cc1 src/y.c");
	assert_true(v[0].side[0].present);
	assert_false(v[0].side[1].present);
	assert_string_equal(v[1].key, "cc1 src/x.c");
	assert_int_equal(v[1].side[0].peak_pss_kib, 1000);
	assert_int_equal(v[1].side[1].peak_pss_kib, 1500);
	const struct compare_job *j = find(v, (size_t)n, "as x.o", 0);
	assert_non_null(j);
	assert_true(j->side[0].present && j->side[1].present);
	/* two alike in one run: the first with the first, by start */
	j = find(v, (size_t)n, "sh gen.sh", 0);
	assert_non_null(j);
	assert_int_equal(j->side[0].peak_pss_kib, 50);
	assert_int_equal(j->side[1].peak_pss_kib, 70);
	j = find(v, (size_t)n, "sh gen.sh", 1);
	assert_non_null(j);
	assert_int_equal(j->side[0].peak_pss_kib, 60);
	assert_int_equal(j->side[1].peak_pss_kib, 50);
	j = find(v, (size_t)n, "strip prog", 0);
	assert_non_null(j);
	assert_false(j->side[0].present);
	assert_int_equal(j->side[1].peak_pss_kib, 40);
	j = find(v, (size_t)n, "ld prog", 0);
	assert_non_null(j);
	assert_int_equal(j->side[0].peak_pss_kib, j->side[1].peak_pss_kib);
	free(v);
	/* a run with nothing against one with all: every job one side's */
	struct store *e = store_new(NULL);
	assert_int_equal(compare_jobs(e, b, &v), 6);
	for (int i = 0; i < 6; i++)
		assert_false(v[i].side[0].present);
	free(v);
	store_free(e);
	store_free(a);
	store_free(b);
}

static void test_gate(void **state)
{
	double pct[CMP_NMETRICS];
	char bad[64];
	struct store_summary a, b;

	(void)state;
	assert_int_equal(compare_gate_parse("peak_pss=5%,wall=10%", pct, bad, sizeof(bad)), 0);
	assert_true(pct[CMP_PEAK_PSS] == 5 && pct[CMP_WALL] == 10 && pct[CMP_USER] < 0);
	assert_int_equal(compare_gate_parse("peak=5%", pct, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "peak=5%");
	assert_int_equal(compare_gate_parse("peak_pss=5", pct, bad, sizeof(bad)), -EINVAL);
	assert_int_equal(compare_gate_parse("peak_pss=-1%", pct, bad, sizeof(bad)), -EINVAL);
	assert_int_equal(compare_gate_parse("wall=10%,x", pct, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "x");
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.peak.pss_kib = 1000;
	b.peak.pss_kib = 1049; /* +4.9% */
	assert_int_equal(compare_gate_parse("peak_pss=5%", pct, bad, sizeof(bad)), 0);
	assert_int_equal(compare_gate(&a, &b, pct), -1);
	b.peak.pss_kib = 1051; /* +5.1% */
	assert_int_equal(compare_gate(&a, &b, pct), CMP_PEAK_PSS);
	/* shrinking never fails it */
	assert_int_equal(compare_gate(&b, &a, pct), -1);
}

/* Medians and spreads over several runs a side; a change called one only
 * past 5% and the noise, in peak PSS and high-water RSS both. */
static void test_several(void **state)
{
	uint64_t v[] = {100, 103, 101, 250, 102};
	struct compare_stat st, a, b;

	(void)state;
	compare_stat_of(v, 5, &st);
	assert_int_equal(st.med, 102);
	assert_int_equal(st.lo, 101); /* the lowest and highest of five left out */
	assert_int_equal(st.hi, 103);
	uint64_t w[] = {7, 3, 5};
	compare_stat_of(w, 3, &st);
	assert_true(st.med == 5 && st.lo == 3 && st.hi == 7);
	a = (struct compare_stat){100, 95, 105};
	b = (struct compare_stat){108, 104, 112};
	assert_false(compare_past_noise(&a, &b)); /* 8 within b's spread of 8 */
	b = (struct compare_stat){120, 118, 122};
	assert_true(compare_past_noise(&a, &b));

	struct store *sa[3], *sb[3];
	for (int i = 0; i < 3; i++) {
		sa[i] = store_new(NULL);
		sb[i] = store_new(NULL);
		/* a job that varies a little each run, and one 20% bigger in B */
		ADD(sa[i], 1, "cc1\0src/a.c", 0, 1000 + 10 * (uint64_t)i);
		ADD(sb[i], 1, "cc1\0src/a.c", 0, 1005 + 10 * (uint64_t)i);
		ADD(sa[i], 2, "fill\0env", 0, 2000 + (uint64_t)i);
		ADD(sb[i], 2, "fill\0env", 0, 2400 + (uint64_t)i);
	}
	struct compare_job *j;
	ssize_t n = compare_jobs_n(sa, 3, sb, 3, &j);
	assert_int_equal(n, 2);
	assert_string_equal(j[0].key, "fill env");
	assert_int_equal(j[0].side[0].present, 3);
	assert_int_equal(j[0].side[0].peak_pss_kib, 2001);
	assert_int_equal(j[0].side[1].peak_pss_kib, 2401);
	assert_true(compare_job_changed(&j[0]));
	assert_string_equal(j[1].key, "cc1 src/a.c");
	assert_int_equal(j[1].side[0].peak_pss_kib, 1010);
	assert_false(compare_job_changed(&j[1])); /* 0.5%, within the noise */
	free(j);
	for (int i = 0; i < 3; i++) {
		store_free(sa[i]);
		store_free(sb[i]);
	}
}

/* A process of program comm, its life [start, end), with per-process
 * samples of PSS (t, kib) pairs. */
static void add_sampled(struct store *st, uint64_t id, const char *comm, uint64_t start, uint64_t end,
			const uint64_t *t, const uint64_t *kib, size_t n)
{
	struct proc_rec r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.pid = (pid_t)(2000 + id);
	r.start_ns = start;
	r.end_ns = end;
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	r.utime_us = 1000;
	r.valid = PROC_V_PSS | PROC_V_EXIT;
	for (size_t i = 0; i < n; i++) {
		struct store_proc_sample ps = {.id = id, .t_ns = t[i], .pss_kib = kib[i], .valid = PROC_V_PSS};
		store_push_proc_samples(st, &ps, 1);
		if (kib[i] > r.peak_pss_kib)
			r.peak_pss_kib = kib[i];
	}
	assert_int_equal(store_proc_update(st, &r), 0);
}

/* Programs together: jobs counted, CPU summed, the largest peak, and the
 * memory-seconds the samples tell (each held until the next, the last until
 * the end). */
static void test_programs(void **state)
{
	struct store_config sc = {.proc_samples_len = 64};
	struct store *a = store_new(&sc), *b = store_new(&sc);
	const uint64_t t2[] = {0, 1000 * MS}, k2[] = {1000, 2000}, t1[] = {0}, k1[] = {500};
	const uint64_t kb[] = {3000, 2000};
	struct compare_prog *p;

	(void)state;
	add_sampled(a, 1, "cc1", 0, 2000 * MS, t2, k2, 2);  /* 1000 + 2000 KiB*s */
	add_sampled(a, 2, "cc1", 0, 1000 * MS, t1, k1, 1);  /* 500 */
	add_sampled(a, 3, "make", 0, 2000 * MS, t1, k1, 1); /* 1000 */
	add_sampled(b, 1, "cc1", 0, 2000 * MS, t2, kb, 2);  /* 3000 + 2000 */
	add_sampled(b, 3, "make", 0, 2000 * MS, t1, k1, 1);
	ssize_t n = compare_programs(&a, 1, &b, 1, &p);
	assert_int_equal(n, 2);
	assert_string_equal(p[0].name, "cc1"); /* 3500 to 5000: the larger change */
	assert_int_equal(p[0].side[0].count, 2);
	assert_int_equal(p[0].side[1].count, 1);
	assert_int_equal(p[0].side[0].kib_s, 3500);
	assert_int_equal(p[0].side[1].kib_s, 5000);
	assert_int_equal(p[0].side[0].peak_pss_kib, 2000);
	assert_int_equal(p[0].side[1].peak_pss_kib, 3000);
	assert_int_equal(p[0].side[0].cpu_us, 2000);
	assert_string_equal(p[1].name, "make");
	assert_int_equal(p[1].side[0].kib_s, 1000);
	assert_int_equal(p[1].side[1].kib_s, 1000);
	free(p);
	store_free(a);
	store_free(b);
}

/* --sort: the jobs by the size of the change in the figure named, largest
 * first, a job of one side only counting its whole figure; names parsed. */
static void test_sort(void **state)
{
	struct compare_job j[3];

	(void)state;
	memset(j, 0, sizeof(j));
	snprintf(j[0].key, sizeof(j[0].key), "cc1 a.c");
	snprintf(j[1].key, sizeof(j[1].key), "cc1 b.c");
	snprintf(j[2].key, sizeof(j[2].key), "ld x");
	/* a.c: PSS +10, CPU +5, wall -300, faults +1 */
	j[0].side[0] = (struct compare_fig){.present = 1, .peak_pss_kib = 100, .cpu_us = 50, .wall_us = 1000, .faults = 10};
	j[0].side[1] = (struct compare_fig){.present = 1, .peak_pss_kib = 110, .cpu_us = 55, .wall_us = 700, .faults = 11};
	/* b.c: PSS -50, CPU +100, wall +10, faults -2 */
	j[1].side[0] = (struct compare_fig){.present = 1, .peak_pss_kib = 200, .cpu_us = 100, .wall_us = 100, .faults = 20};
	j[1].side[1] = (struct compare_fig){.present = 1, .peak_pss_kib = 150, .cpu_us = 200, .wall_us = 110, .faults = 18};
	/* ld: in B only: PSS 30, CPU 20, wall 50, faults 500 */
	j[2].side[1] = (struct compare_fig){.present = 1, .peak_pss_kib = 30, .cpu_us = 20, .wall_us = 50, .faults = 500};
	compare_jobs_sort(j, 3, CMP_SORT_PEAK_PSS);
	assert_string_equal(j[0].key, "cc1 b.c");
	assert_string_equal(j[1].key, "ld x");
	assert_string_equal(j[2].key, "cc1 a.c");
	/* each sort from the order the one before left: every one moves rows */
	compare_jobs_sort(j, 3, CMP_SORT_WALL);
	assert_string_equal(j[0].key, "cc1 a.c");
	assert_string_equal(j[1].key, "ld x");
	assert_string_equal(j[2].key, "cc1 b.c");
	compare_jobs_sort(j, 3, CMP_SORT_CPU);
	assert_string_equal(j[0].key, "cc1 b.c");
	assert_string_equal(j[1].key, "ld x");
	assert_string_equal(j[2].key, "cc1 a.c");
	compare_jobs_sort(j, 3, CMP_SORT_FAULTS);
	assert_string_equal(j[0].key, "ld x");
	assert_string_equal(j[1].key, "cc1 b.c");
	assert_string_equal(j[2].key, "cc1 a.c");
	assert_int_equal(compare_fig_value(&j[0].side[0], CMP_SORT_FAULTS), 0);
	for (int s = 0; s < CMP_NSORTS; s++)
		assert_int_equal(compare_sort_parse(compare_sort_name((enum compare_sort)s)), s);
	assert_int_equal(compare_sort_parse("pss"), -1);
	assert_int_equal(compare_sort_parse(""), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_several),
		cmocka_unit_test(test_programs),
		cmocka_unit_test(test_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
