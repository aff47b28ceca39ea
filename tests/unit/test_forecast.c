/* Unit tests for forecast: the slot simulation on hand-made job lists.
 * Each case's truth is worked out by hand in its comment: independent jobs
 * through 1, 2 and 3 slots, ties broken by the recorded order, one job
 * longer than the rest, dependencies and a barrier, CPU-bound jobs
 * stretched past the cores, file-backed pages shared by copies of one
 * program, the models refused, and a job's last step between two of the
 * clock's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "forecast.h"

#define MS 1000000ull
#define STEP (10 * MS)

/* A curve of n steps at kib each. */
static uint32_t flat[8][1000];

static const uint32_t *curve(int which, uint32_t kib, size_t n)
{
	for (size_t i = 0; i < n; i++)
		flat[which][i] = kib;
	return flat[which];
}

/* A job of dur_ms holding kib all along (its own, all anonymous), waiting
 * on nothing, not CPU-bound, of program 0. */
static struct forecast_job job(uint64_t dur_ms, const uint32_t *c)
{
	return (struct forecast_job){.dur_ns = dur_ms * MS, .pss_kib = c, .npss = (size_t)((dur_ms * MS + STEP - 1) / STEP),
				     .anon_share = 1, .file_mult = 0};
}

static struct forecast_model model(const struct forecast_job *j, size_t n)
{
	return (struct forecast_model){.jobs = j, .njobs = n, .nprogs = 4, .step_ns = STEP, .tool_kib = 500,
				       .head_ns = 50 * MS, .tail_ns = 20 * MS, .cores = 8};
}

static void assert_near(uint64_t got, uint64_t want, uint64_t tol)
{
	if (got + tol < want || got > want + tol)
		fail_msg("%llu, expected %llu within %llu", (unsigned long long)got, (unsigned long long)want,
			 (unsigned long long)tol);
}

/* Six jobs of 1 s and 10 MiB, independent: -j1 runs them one after another
 * (6 s and one job's memory), -j2 in three rounds (3 s, two jobs'), -j3 in
 * two (2 s, three jobs'); -j8 all at once (1 s, six jobs'). The head and
 * the tail (50 + 20 ms) and the tool (500 KiB) come on top. */
static void test_independent(void **state)
{
	(void)state;
	const uint32_t *c = curve(0, 10240, 100);
	struct forecast_job j[6];
	for (int i = 0; i < 6; i++)
		j[i] = job(1000, c);
	struct forecast_model m = model(j, 6);
	struct forecast_result r;
	static const struct {
		unsigned slots;
		uint64_t wall_ms, peak_kib;
	} want[] = {{1, 6000, 10240}, {2, 3000, 20480}, {3, 2000, 30720}, {8, 1000, 61440}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(forecast_run(&m, want[i].slots, &r), 0);
		assert_int_equal(r.slots, want[i].slots);
		assert_near(r.wall_ns, (want[i].wall_ms + 70) * MS, 1000);
		assert_int_equal(r.peak_kib, want[i].peak_kib + 500);
		assert_int_equal(r.most_running, want[i].slots < 6 ? want[i].slots : 6);
		assert_int_equal(r.running_at_peak, r.most_running);
		assert_int_equal(r.n_at_peak, r.most_running);
		/* the peak's jobs: each its 10 MiB, ties in the recorded order */
		for (size_t k = 0; k < r.n_at_peak; k++) {
			assert_int_equal(r.at_peak[k].pss_kib, 10240);
			assert_int_equal(r.at_peak[k].job, k);
		}
		/* the first peak: at the start, after the head */
		assert_int_equal(r.peak_t_ns, 50 * MS);
	}
}

/* Ties: four jobs of 1 s through two slots start in the recorded order,
 * the lowest index first: jobs 0 and 1 together, then 2 and 3. Job 2 is
 * the big one (30 MiB): the peak is jobs 2 and 3, at 1 s. */
static void test_ties(void **state)
{
	(void)state;
	struct forecast_job j[4] = {job(1000, curve(0, 1024, 100)), job(1000, curve(1, 2048, 100)),
				    job(1000, curve(2, 30720, 100)), job(1000, curve(3, 4096, 100))};
	struct forecast_model m = model(j, 4);
	struct forecast_result r;

	assert_int_equal(forecast_run(&m, 2, &r), 0);
	assert_int_equal(r.peak_kib, 30720 + 4096 + 500);
	assert_near(r.peak_t_ns, (50 + 1000) * MS, 1000);
	assert_int_equal(r.n_at_peak, 2);
	assert_int_equal(r.at_peak[0].job, 2);
	assert_int_equal(r.at_peak[0].pss_kib, 30720);
	assert_int_equal(r.at_peak[1].job, 3);
	assert_near(r.wall_ns, 2070 * MS, 1000);
}

/* One job longer than the rest: a 4 s job first, then four of 1 s. At -j2
 * the long one holds a slot all along while the four go through the
 * other: 4 s. At -j1: 8 s. At -j3: the four in two rounds beside it, still
 * 4 s, and the peak the long one with two others. */
static void test_one_long(void **state)
{
	(void)state;
	struct forecast_job j[5] = {job(4000, curve(0, 50000, 400))};
	for (int i = 1; i < 5; i++)
		j[i] = job(1000, curve(1, 1000, 100));
	struct forecast_model m = model(j, 5);
	struct forecast_result r;

	assert_int_equal(forecast_run(&m, 1, &r), 0);
	assert_near(r.wall_ns, 8070 * MS, 1000);
	assert_int_equal(r.peak_kib, 50500);
	assert_int_equal(forecast_run(&m, 2, &r), 0);
	assert_near(r.wall_ns, 4070 * MS, 1000);
	assert_int_equal(r.peak_kib, 51500);
	assert_int_equal(r.at_peak[0].job, 0);
	assert_int_equal(forecast_run(&m, 3, &r), 0);
	assert_near(r.wall_ns, 4070 * MS, 1000);
	assert_int_equal(r.peak_kib, 52500);
	assert_int_equal(r.most_running, 3);
}

/* Dependencies: job 2 waits on job 0 (1 s), job 3 on jobs 1 (2 s) and 2.
 * At -j4: 0 and 1 start at once; 2 at 1 s; 3 at max(2 s, 2's end at 2 s)
 * = 2 s, ends at 3 s. The two that wait never run beside what they wait
 * on: the peak is jobs 1 and 2 (2 and 8 MiB), from 1 s. */
static void test_deps(void **state)
{
	(void)state;
	static const uint32_t d2[] = {0}, d3[] = {1, 2};
	struct forecast_job j[4] = {job(1000, curve(0, 1024, 100)), job(2000, curve(1, 2048, 200)),
				    job(1000, curve(2, 8192, 100)), job(1000, curve(3, 4096, 100))};
	j[2].deps = d2;
	j[2].ndeps = 1;
	j[3].deps = d3;
	j[3].ndeps = 2;
	struct forecast_model m = model(j, 4);
	struct forecast_result r;

	assert_int_equal(forecast_run(&m, 4, &r), 0);
	assert_near(r.wall_ns, 3070 * MS, 1000);
	assert_int_equal(r.peak_kib, 2048 + 8192 + 500);
	assert_near(r.peak_t_ns, 1050 * MS, 1000);
	assert_int_equal(r.most_running, 2);
	/* at -j1 the order is kept: 0, 1, 2, 3 */
	assert_int_equal(forecast_run(&m, 1, &r), 0);
	assert_near(r.wall_ns, 5070 * MS, 1000);
	assert_int_equal(r.peak_kib, 8192 + 500);
	/* a job waiting on a later one is refused */
	static const uint32_t bad[] = {3};
	j[2].deps = bad;
	assert_int_equal(forecast_run(&m, 2, &r), -EINVAL);
}

/* A barrier: two sub-makes in one recipe's shell, one after the other.
 * Jobs 0 and 1 (the first's), the barrier 2 waiting on both, jobs 3 and 4
 * (the second's) waiting on it. At -j4 the second pair starts when the
 * first's longer job ends (1.5 s): 2.5 s in all; never four at once. */
static void test_barrier(void **state)
{
	(void)state;
	static const uint32_t db[] = {0, 1}, d[] = {2};
	struct forecast_job j[5] = {job(1000, curve(0, 1000, 100)), job(1500, curve(1, 1000, 150)),
				    {.flags = FORECAST_BARRIER, .deps = db, .ndeps = 2}, job(1000, curve(2, 1000, 100)),
				    job(1000, curve(3, 1000, 100))};
	j[3].deps = j[4].deps = d;
	j[3].ndeps = j[4].ndeps = 1;
	struct forecast_model m = model(j, 5);
	struct forecast_result r;

	assert_int_equal(forecast_run(&m, 4, &r), 0);
	assert_near(r.wall_ns, 2570 * MS, 1000);
	assert_int_equal(r.most_running, 2);
	assert_int_equal(r.peak_kib, 2500);
}

/* CPU-bound jobs (their CPU time their wall time) on 2 cores: four of 1 s
 * at -j4 ask for 4 CPUs, get 2: each runs at half speed, 2 s in all. At
 * -j2: two rounds of 1 s. Jobs that wait (no CPU) are not stretched: four
 * sleepers at -j4 take 1 s. A half-CPU job beside three CPU-bound ones:
 * they ask for 3.5, the stretch 1.75; its CPU half takes 0.875 s, its
 * other half 0.5 s: 1.375 s. */
static void test_cores(void **state)
{
	(void)state;
	struct forecast_job j[4];
	for (int i = 0; i < 4; i++) {
		j[i] = job(1000, curve(0, 1000, 100));
		j[i].cpu_ns = 1000 * MS;
	}
	struct forecast_model m = model(j, 4);
	m.cores = 2;
	m.head_ns = m.tail_ns = 0;
	struct forecast_result r;

	assert_int_equal(forecast_run(&m, 4, &r), 0);
	assert_near(r.wall_ns, 2000 * MS, 1000);
	assert_int_equal(forecast_run(&m, 2, &r), 0);
	assert_near(r.wall_ns, 2000 * MS, 1000);
	assert_int_equal(forecast_run(&m, 1, &r), 0);
	assert_near(r.wall_ns, 4000 * MS, 1000);
	for (int i = 0; i < 4; i++)
		j[i].cpu_ns = 0;
	assert_int_equal(forecast_run(&m, 4, &r), 0);
	assert_near(r.wall_ns, 1000 * MS, 1000);
	for (int i = 1; i < 4; i++)
		j[i].cpu_ns = 1000 * MS;
	j[0].cpu_ns = 500 * MS;
	assert_int_equal(forecast_run(&m, 4, &r), 0);
	/* job 0 ends at 1.375 s; the other three then share 2 cores (1.5x)
	 * for what is left: 1 - 1.375 / 1.75 = 3/14 of a second of work each,
	 * 9/28 s: 1.696 s in all */
	assert_near(r.wall_ns, 1696 * MS, 2 * MS);
}

/* File-backed pages of one program are shared by its copies: two cc1 of
 * 10 MiB, 6 of it their own and 4 of file-backed pages each, at once hold
 * 6 + 6 + 4; a job of another program with as much file does not share.
 * The peak's jobs: the first copy with its file part, the second without. */
static void test_shared_files(void **state)
{
	(void)state;
	struct forecast_job j[3] = {job(1000, curve(0, 10240, 100)), job(1000, curve(0, 10240, 100)),
				    job(1000, curve(0, 10240, 100))};
	for (int i = 0; i < 3; i++) {
		j[i].anon_share = 0.6f;
		j[i].file_mult = 0.4f;
		j[i].prog = 1;
	}
	j[2].prog = 2;
	struct forecast_model m = model(j, 3);
	m.tool_kib = 0;
	struct forecast_result r;

	assert_int_equal(forecast_run(&m, 2, &r), 0);
	assert_near(r.peak_kib, 6144 + 6144 + 4096, 1);
	assert_int_equal(r.at_peak[0].job, 0);
	assert_near(r.at_peak[0].pss_kib, 10240, 1);
	assert_near(r.at_peak[1].pss_kib, 6144, 1);
	assert_int_equal(forecast_run(&m, 3, &r), 0);
	assert_near(r.peak_kib, 3 * 6144 + 2 * 4096, 1);
	/* split in the recording (two copies at once: each's PSS counts half
	 * its file pages): file_mult above the file part's share restores it */
	j[0].file_mult = j[1].file_mult = 0.8f;
	assert_int_equal(forecast_run(&m, 1, &r), 0);
	assert_near(r.peak_kib, 6144 + 8192, 1);
}

/* A curve that climbs: the peak is found where the jobs' tops meet, not at
 * their starts; a job of no known PSS counts 0. */
static void test_curve(void **state)
{
	(void)state;
	static uint32_t up[100];
	for (int i = 0; i < 100; i++)
		up[i] = (uint32_t)(100 * (i + 1));
	struct forecast_job j[3] = {job(1000, up), job(1000, up), job(1000, NULL)};
	j[2].npss = 0;
	struct forecast_model m = model(j, 3);
	struct forecast_result r;

	assert_int_equal(forecast_run(&m, 3, &r), 0);
	assert_int_equal(r.peak_kib, 2 * 10000 + 500);
	assert_near(r.peak_t_ns, (50 + 990) * MS, STEP);
	assert_near(r.wall_ns, 1070 * MS, 1000);
}

/* A job's last, partial step: at -j1 a job of 5 ms, then one of 24 ms
 * whose last step (its 20th to 24th ms) holds 9000 KiB. It starts at 5 ms,
 * so the clock's steps (every 10 ms) meet it at 5 and 15 ms of its life,
 * and it ends at 29 ms, between two steps: the sum at its end counts its
 * last step (f182e9b left it out: a peak of 100 KiB). */
static void test_last_step(void **state)
{
	(void)state;
	static const uint32_t last[] = {100, 100, 9000};
	struct forecast_job j[2] = {job(5, curve(0, 100, 1)), job(24, last)};
	struct forecast_model m = model(j, 2);
	struct forecast_result r;

	m.head_ns = m.tail_ns = 0;
	assert_int_equal(forecast_run(&m, 1, &r), 0);
	assert_int_equal(r.peak_kib, 9000 + 500);
	assert_near(r.peak_t_ns, 29 * MS, 1000);
	assert_near(r.wall_ns, 29 * MS, 1000);
}

/* What is refused: no slot, too many, no step, no cores, a program out of
 * range. No job at all: the head and the tail, the tool's memory. */
static void test_refused(void **state)
{
	(void)state;
	struct forecast_job j[1] = {job(1000, curve(0, 1, 100))};
	struct forecast_model m = model(j, 1);
	struct forecast_result r;

	assert_int_equal(forecast_run(&m, 0, &r), -EINVAL);
	assert_int_equal(forecast_run(&m, FORECAST_SLOTS_MAX + 1, &r), -EINVAL);
	assert_int_equal(forecast_run(&m, FORECAST_SLOTS_MAX, &r), 0);
	m.step_ns = 0;
	assert_int_equal(forecast_run(&m, 1, &r), -EINVAL);
	m.step_ns = STEP;
	m.cores = 0;
	assert_int_equal(forecast_run(&m, 1, &r), -EINVAL);
	m.cores = 1;
	j[0].prog = 4;
	assert_int_equal(forecast_run(&m, 1, &r), -EINVAL);
	m.njobs = 0;
	assert_int_equal(forecast_run(&m, 3, &r), 0);
	assert_int_equal(r.wall_ns, 70 * MS);
	assert_int_equal(r.peak_kib, 500);
	assert_int_equal(r.n_at_peak, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_independent), cmocka_unit_test(test_ties),   cmocka_unit_test(test_one_long),
		cmocka_unit_test(test_deps),        cmocka_unit_test(test_barrier), cmocka_unit_test(test_cores),
		cmocka_unit_test(test_shared_files), cmocka_unit_test(test_curve),  cmocka_unit_test(test_refused),
		cmocka_unit_test(test_last_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
