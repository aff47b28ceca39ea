/* Unit tests for memwarn (meminfo and cgroup numbers parsed; the verdict
 * from a history of memory left and the tree's PSS) and the collector's
 * memory-left job (coll_mem) on a fake /proc whose meminfo the test writes
 * tick by tick: the warning comes when little is left while the tree grows,
 * names the process growing fastest, and the time left at the rate. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "fakeproc.h"
#include "memwarn.h"

#define MS 1000000ull
#define MIB 1024ull

static void test_parse(void **state)
{
	static const char mi[] = "MemTotal:       24684092 kB\nMemFree:        22304000 kB\n"
				 "MemAvailable:   23833548 kB\nBuffers:           12 kB\n";
	uint64_t t, a, b;

	(void)state;
	assert_int_equal(memwarn_parse_meminfo(mi, sizeof(mi) - 1, &t, &a), 0);
	assert_int_equal(t, 24684092);
	assert_int_equal(a, 23833548);
	/* before 3.14 there is no MemAvailable: nothing to say */
	assert_int_equal(memwarn_parse_meminfo(mi, 55, &t, &a), -EINVAL);
	assert_int_equal(memwarn_parse_meminfo("MemTotal: 12x kB\nMemAvailable: 1 kB\n", 36, &t, &a), -EINVAL);
	assert_int_equal(memwarn_parse_bytes("max\n", 4, &b), 0);
	assert_int_equal(b, UINT64_MAX);
	assert_int_equal(memwarn_parse_bytes("1073741824\n", 11, &b), 0);
	assert_int_equal(b, 1073741824);
	assert_int_equal(memwarn_parse_bytes("12 \n", 4, &b), -EINVAL);
	assert_int_equal(memwarn_parse_bytes("", 0, &b), -EINVAL);
	assert_int_equal(memwarn_parse_bytes("99999999999999999999999\n", 24, &b), -EINVAL);
}

/* The verdict: little left while growing is low, with the time left; little
 * left but still is not; plenty left never is; every task stalled on memory
 * is, with a little more left; figures older than the window do not count. */
static void test_eval(void **state)
{
	struct memwarn_hist h;
	struct memwarn_state st;
	uint64_t of = 16384 * MIB;

	(void)state;
	memset(&h, 0, sizeof(h));
	/* 1 GiB left of 16 GiB (6%), shrinking 100 MiB/s while the tree grows */
	for (int i = 0; i <= 10; i++)
		memwarn_push(&h, (uint64_t)i * 100 * MS, (1024 + 100 - 10 * (uint64_t)i) * MIB, (1000 + 10 * (uint64_t)i) * MIB);
	memwarn_eval(&h, of, -1, &st);
	assert_true(st.low);
	assert_int_equal(st.left_kib, 1024 * MIB);
	assert_true(fabs(st.left_kib_s + 100 * MIB) < 1);
	assert_true(fabs(st.pss_kib_s - 100 * MIB) < 1);
	assert_true(fabs(st.eta_s - 10.24) < 0.01);
	/* the same left, flat, the tree flat: not running out */
	memset(&h, 0, sizeof(h));
	for (int i = 0; i <= 10; i++)
		memwarn_push(&h, (uint64_t)i * 100 * MS, 1024 * MIB, 1000 * MIB);
	memwarn_eval(&h, of, -1, &st);
	assert_false(st.low);
	assert_true(st.eta_s < 0);
	/* ... unless every task waits on memory 20% of the time, 15% left */
	memset(&h, 0, sizeof(h));
	memwarn_push(&h, 0, 2458 * MIB, 1000 * MIB);
	memwarn_eval(&h, of, 0.2, &st);
	assert_true(st.low);
	/* plenty left while growing fast: not low */
	memset(&h, 0, sizeof(h));
	for (int i = 0; i <= 10; i++)
		memwarn_push(&h, (uint64_t)i * 100 * MS, (8000 - 100 * (uint64_t)i) * MIB, (1000 + 100 * (uint64_t)i) * MIB);
	memwarn_eval(&h, of, 0, &st);
	assert_false(st.low);
	assert_true(st.eta_s > 0);
	/* a fall long ago, flat over the last 5 s: flat */
	memset(&h, 0, sizeof(h));
	memwarn_push(&h, 0, 4000 * MIB, 0);
	for (int i = 0; i <= 5; i++)
		memwarn_push(&h, 6000 * MS + (uint64_t)i * 1000 * MS, 1000 * MIB, 500 * MIB);
	memwarn_eval(&h, of, -1, &st);
	assert_true(fabs(st.left_kib_s) < 1e-6);
	assert_false(st.low);
	/* more figures than the ring holds: the newest stay */
	for (int i = 0; i < 3 * MEMWARN_HIST; i++)
		memwarn_push(&h, 20000 * MS + (uint64_t)i * 10 * MS, (uint64_t)i, 0);
	memwarn_eval(&h, of, -1, &st);
	assert_int_equal(st.left_kib, 3 * MEMWARN_HIST - 1);
}

static void meminfo(struct fakeproc *f, uint64_t total_kib, uint64_t avail_kib)
{
	fp_printf(f, "meminfo", "MemTotal:       %" PRIu64 " kB\nMemFree:         1 kB\nMemAvailable:   %" PRIu64 " kB\n",
		  total_kib, avail_kib);
}

/* A fake machine of 8 GiB whose available memory falls 200 MiB a tick
 * (100 ms) while one process grows: low once under 10%, the grower named,
 * the lowest kept; the sample carries what is left. */
static void test_coll_mem(void **state)
{
	struct fakeproc *f = fp_new(1);
	struct sample s;
	uint64_t total = 8192 * MIB;

	(void)state;
	meminfo(f, total, 4096 * MIB);
	coll_mem_free(f->c);
	coll_mem_start(f->c, 0);
	struct pentry *e = coll_sample_add_proc(f->c, FP_PID, 1, f->now_ns, NULL);
	assert_non_null(e);
	struct pentry *idle = coll_sample_add_proc(f->c, FP_PID + 1, 1, f->now_ns, NULL);
	assert_non_null(idle);
	idle->rec.pss_kib = 500 * MIB;
	uint64_t low_at = 0;
	for (int i = 0; i < 40; i++) {
		uint64_t avail = 4096 * MIB - (uint64_t)i * 100 * MIB;
		meminfo(f, total, avail);
		e->rec.pss_kib = 100 * MIB + (uint64_t)i * 100 * MIB;
		memset(&s, 0, sizeof(s));
		s.valid = SAMPLE_PSS;
		s.pss_kib = e->rec.pss_kib + idle->rec.pss_kib;
		coll_mem_tick(f->c, &s, f->now_ns);
		assert_true(s.valid & SAMPLE_MEMLEFT);
		assert_int_equal(s.mem_left_kib, avail);
		if (f->c->sum.mem_low && !low_at)
			low_at = f->now_ns;
		/* low only under 10% of 8 GiB (819 MiB) */
		assert_int_equal(f->c->sum.mem_low, avail < total / 10);
		f->now_ns += 100 * MS;
	}
	assert_true(low_at);
	assert_int_equal(f->c->sum.mem_low_first_ns, low_at);
	assert_int_equal(f->c->sum.mem_of_kib, total);
	assert_int_equal(f->c->sum.mem_min_left_kib, 4096 * MIB - 39 * 100 * MIB);
	assert_false(f->c->sum.mem_by_cgroup);
	/* 196 MiB left, falling 1000 MiB/s: about 0.2 s */
	assert_true(f->c->sum.mem_eta_ms > 150 && f->c->sum.mem_eta_ms < 250);
	/* the one growing is named, the idle one not */
	assert_int_equal(f->c->sum.mem_grow_pid[0], FP_PID);
	assert_true(f->c->sum.mem_grow_kib[0] >= 1000 * MIB);
	assert_int_equal(f->c->sum.mem_grow_pid[1], 0);
	/* memory back: no longer low, the ones named while it was are kept */
	for (int i = 0; i < 30; i++) {
		meminfo(f, total, 6000 * MIB);
		memset(&s, 0, sizeof(s));
		coll_mem_tick(f->c, &s, f->now_ns);
		f->now_ns += 100 * MS;
	}
	assert_false(f->c->sum.mem_low);
	assert_int_equal(f->c->sum.mem_grow_pid[0], FP_PID);
	fp_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_coll_mem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
