/* Unit tests for moment: the run at an instant from a store, whatever
 * filled it: who was alive then, their figures then, the counts, and what
 * it says when the store let the figures or the output of then go. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "moment.h"
#include "store.h"

#define MS 1000000ull

static void add_proc(struct store *st, uint64_t id, uint64_t start, uint64_t end)
{
	struct proc_rec r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.pid = (pid_t)(100 + id);
	r.start_ns = start;
	r.end_ns = end;
	snprintf(r.comm, sizeof(r.comm), "p%u", (unsigned)id);
	r.pss_kib = r.peak_pss_kib = 999; /* now: not what it had at an instant */
	r.valid = PROC_V_PSS | (end ? PROC_V_EXIT : 0);
	assert_int_equal(store_proc_update(st, &r), 0);
}

static void sample(struct store *st, uint64_t id, uint64_t t, uint64_t pss)
{
	struct store_proc_sample ps = {.id = id, .t_ns = t, .pss_kib = pss, .valid = PROC_V_PSS};
	store_push_proc_samples(st, &ps, 1);
}

/* Alive at t: started at or before it, not ended by it; figures of the
 * last sample at or before t; made and finished counted. */
static void test_alive_and_figures(void **state)
{
	struct store_config sc = {.proc_samples_len = 64};
	struct store *st = store_new(&sc);
	struct moment m;

	(void)state;
	add_proc(st, 1, 0, 0);
	add_proc(st, 2, 10 * MS, 50 * MS);
	add_proc(st, 3, 60 * MS, 0);
	sample(st, 1, 5 * MS, 10);
	sample(st, 2, 20 * MS, 20);
	sample(st, 1, 30 * MS, 11);
	sample(st, 2, 40 * MS, 21);
	/* 35 ms: 1 and 2 alive, at their 30 and 20 ms samples */
	assert_int_equal(moment_take(st, 35 * MS, 35 * MS, 0, &m), 0);
	assert_int_equal(m.nprocs, 2);
	assert_int_equal(m.made, 2);
	assert_int_equal(m.finished, 0);
	assert_int_equal(m.procs[0].id, 1);
	assert_int_equal(m.procs[0].pss_kib, 11);
	assert_int_equal(m.procs[1].pss_kib, 20);
	assert_int_equal(m.procs[1].end_ns, 0);
	assert_false(m.figures_cut);
	moment_free(&m);
	/* 50 ms: 2 ended then; 3 not started */
	assert_int_equal(moment_take(st, 50 * MS, 50 * MS, 0, &m), 0);
	assert_int_equal(m.nprocs, 1);
	assert_int_equal(m.finished, 1);
	moment_free(&m);
	/* 60 ms: 3 alive, with no sample yet: its figures not known */
	assert_int_equal(moment_take(st, 60 * MS, 60 * MS, 0, &m), 0);
	assert_int_equal(m.nprocs, 2);
	assert_int_equal(m.made, 3);
	assert_int_equal(m.procs[1].id, 3);
	assert_false(m.procs[1].valid & PROC_V_PSS);
	moment_free(&m);
	store_free(st);
}

/* Each figure at t is the latest sample that has it: a read of the PSS
 * alone after one of everything leaves the CPU and faults of the first. */
static void test_figures_latest_each(void **state)
{
	struct store_config sc = {.proc_samples_len = 64};
	struct store *st = store_new(&sc);
	struct store_proc_sample all = {.id = 1, .t_ns = 10 * MS, .pss_kib = 100, .rss_kib = 120, .cpu_us = 7000,
					.minflt = 900, .majflt = 3,
					.valid = PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS};
	struct store_proc_sample pss = {.id = 1, .t_ns = 20 * MS, .pss_kib = 150, .rss_kib = 160,
					.valid = PROC_V_PSS | PROC_V_RSS};
	struct moment m;

	(void)state;
	add_proc(st, 1, 0, 0);
	store_push_proc_samples(st, &all, 1);
	store_push_proc_samples(st, &pss, 1);
	assert_int_equal(moment_take(st, 25 * MS, 25 * MS, 0, &m), 0);
	assert_int_equal(m.nprocs, 1);
	assert_int_equal(m.procs[0].pss_kib, 150);
	assert_int_equal(m.procs[0].rss_kib, 160);
	assert_int_equal(m.procs[0].utime_us, 7000);
	assert_int_equal(m.procs[0].minflt, 900);
	assert_int_equal(m.procs[0].majflt, 3);
	assert_int_equal(m.procs[0].valid & (PROC_V_CPU | PROC_V_FAULTS), PROC_V_CPU | PROC_V_FAULTS);
	moment_free(&m);
	/* before any sample with them: unknown */
	assert_int_equal(moment_take(st, 5 * MS, 5 * MS, 0, &m), 0);
	assert_int_equal(m.procs[0].valid & (PROC_V_PSS | PROC_V_CPU | PROC_V_FAULTS), 0);
	moment_free(&m);
	store_free(st);
}

/* A ring of 4 per-process samples that let older ones go: an instant before
 * the oldest kept says its figures are not kept; a later one has them. */
static void test_figures_cut(void **state)
{
	struct store_config sc = {.proc_samples_len = 4};
	struct store *st = store_new(&sc);
	struct moment m;

	(void)state;
	add_proc(st, 1, 0, 0);
	for (uint64_t i = 1; i <= 10; i++)
		sample(st, 1, i * 10 * MS, 100 + i);
	assert_int_equal(moment_take(st, 25 * MS, 25 * MS, 0, &m), 0);
	assert_int_equal(m.nprocs, 1);
	assert_true(m.figures_cut);
	assert_false(m.procs[0].valid & PROC_V_PSS);
	moment_free(&m);
	assert_int_equal(moment_take(st, 95 * MS, 95 * MS, 0, &m), 0);
	assert_false(m.figures_cut);
	assert_int_equal(m.procs[0].pss_kib, 109);
	moment_free(&m);
	store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alive_and_figures),
		cmocka_unit_test(test_figures_cut),
		cmocka_unit_test(test_figures_latest_each),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
