/* Unit tests for the forecast's reading of a recording (forecast_rec.h and
 * the tree, dependencies and curves under it), on hand-made stores: each
 * case's records are made to show one thing, and its truth is worked out
 * in its comment. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "forecast.h"
#include "forecast_rec.h"
#include "forecast_tree.h"

#define MS 1000000ull
#define US 1000ull

/* A store of a run from 0 to end_ns, recorded by netlink (exact times). */
static struct store *run_new(uint64_t end_ns)
{
	struct store_config cfg = {.proc_samples_len = 1024};
	struct store *st = store_new(&cfg);
	struct store_summary sum;

	assert_non_null(st);
	memset(&sum, 0, sizeof(sum));
	sum.start_ns = 0;
	sum.end_ns = end_ns;
	sum.exited = 1;
	sum.mode = STORE_MODE_NETLINK;
	store_summary_set(st, &sum);
	return st;
}

/* When the next process's peak was (0: at its start). */
static uint64_t peak_at_ns;

/* A process: argv its words, NUL-separated (len bytes; its comm the first
 * word's base name), from start_ns to end_ns, its PSS peak_kib. */
static void proc(struct store *st, uint64_t id, pid_t pid, pid_t ppid, uint64_t start_ns, uint64_t end_ns,
		 const char *argv, size_t len, uint64_t peak_kib)
{
	struct proc_rec r;
	const char *slash = strrchr(argv, '/');

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.pid = pid;
	r.ppid = ppid;
	r.start_ns = start_ns;
	r.end_ns = end_ns;
	snprintf(r.comm, sizeof(r.comm), "%.15s", slash ? slash + 1 : argv);
	r.argv_id = store_str_intern(st, argv, len);
	r.peak_pss_kib = peak_kib;
	r.peak_pss_t_ns = peak_at_ns ? peak_at_ns : start_ns;
	r.valid = PROC_V_ARGV | PROC_V_PSS | PROC_V_EXIT;
	assert_int_equal(store_proc_update(st, &r), 0);
}

#define PROC(st, id, pid, ppid, s, e, lit, kib) proc(st, id, pid, ppid, s, e, lit, sizeof(lit) - 1, kib)

/* The job list of st, forecast at slots; returns forecast_rec_build's code. */
static int forecast(struct store *st, struct store *const *more, size_t nmore, unsigned slots,
		    struct forecast_result *res, struct forecast_rec_info *info)
{
	struct forecast_rec *fr;
	int r = forecast_rec_build(st, more, nmore, &fr);
	if (r < 0)
		return r;
	*info = *forecast_rec_info(fr);
	struct forecast_model m = *forecast_rec_model(fr);
	m.cores = 64;
	if (slots)
		assert_int_equal(forecast_run(&m, slots, res), 0);
	forecast_rec_free(fr);
	return 0;
}

/* Two records whose ppids point at each other, begun at the same time
 * (the reviewer's cyc1.db: make, pid 7252, ppid 7256; a fill, pid 7256,
 * ppid 7252; both at 0): they were each other's parent, a circle the tree
 * walk never reached, and the jobs were read from unset numbers (SIGSEGV).
 * Now the make (the lower id) is the root and the fill one of its two
 * jobs. Both make (cyc2.db): the ancestor loop never ended; now the inner
 * make is the outer's child, its fill the one job. */
static void test_parent_circle(void **state)
{
	(void)state;
	struct forecast_result res;
	struct forecast_rec_info in;
	struct store *st = run_new(400 * MS);

	PROC(st, 1, 7252, 7256, 0, 336 * MS, "make\0-j2", 0);
	PROC(st, 3, 7256, 7252, 0, 118 * MS, "fill\0" "8", 8000);
	PROC(st, 4, 7257, 7252, 13 * MS, 119 * MS, "fill\0" "8", 8000);
	assert_int_equal(forecast(st, NULL, 0, 2, &res, &in), 0);
	assert_int_equal(in.njobs, 2);
	assert_string_equal(in.tool, "make");
	assert_int_equal(res.peak_kib, 16000);
	store_free(st);

	st = run_new(400 * MS);
	PROC(st, 1, 7252, 7256, 0, 336 * MS, "make\0-j2", 0);
	PROC(st, 3, 7256, 7252, 0, 118 * MS, "make\0-j2", 0);
	PROC(st, 4, 7257, 7256, 13 * MS, 119 * MS, "fill\0" "8", 8000);
	assert_int_equal(forecast(st, NULL, 0, 2, &res, &in), 0);
	assert_int_equal(in.njobs, 1);
	assert_int_equal(in.recorded_slots, 2);
	assert_int_equal(res.peak_kib, 8000);
	store_free(st);
}

/* Jobs ending close together (the reviewer's two.db, run 2: make -j3 of
 * six independent fills of 8 MB): the first three end at 115.011991,
 * 115.014710 and 120.490 ms; the next three start at 115.25, 115.46 and
 * 120.65 ms, each in a slot one of them left. At the second end (2.7 us
 * after the first) only two jobs ran: a slot looked free, and every job
 * starting in the next 50 ms was taken as waiting on that job (3 false
 * dependencies; -j4 ran three at once, a peak of 24000 KiB instead of
 * 32000). The two ends are one: three jobs ran before them, the slots were
 * full. No dependency; at -j4 four fills at once. */
static void test_close_ends(void **state)
{
	(void)state;
	struct forecast_result res;
	struct forecast_rec_info in;
	struct store *st = run_new(226 * MS);

	PROC(st, 1, 100, 1, 0, 226 * MS, "make\0-j3", 500);
	PROC(st, 3, 103, 100, 8860 * US, 115014710, "fill\0" "8", 8000);
	PROC(st, 4, 104, 100, 9342 * US, 115011991, "fill\0" "8", 8000);
	PROC(st, 5, 105, 100, 13574 * US, 120490 * US, "fill\0" "8", 8000);
	PROC(st, 6, 106, 100, 115252 * US, 221432 * US, "fill\0" "8", 8000);
	PROC(st, 7, 107, 100, 115464 * US, 221465 * US, "fill\0" "8", 8000);
	PROC(st, 8, 108, 100, 120649 * US, 225888 * US, "fill\0" "8", 8000);
	assert_int_equal(forecast(st, NULL, 0, 4, &res, &in), 0);
	assert_int_equal(in.recorded_slots, 3);
	assert_int_equal(in.njobs, 6);
	assert_int_equal(in.ndeps_seen, 0);
	assert_int_equal(res.peak_kib, 4 * 8000 + 500);
	assert_int_equal(res.most_running, 4);
	store_free(st);
}

/* What a -jN recording still shows: at -j4, three compiles; two end 3 us
 * apart at 100 ms, with a slot free before them (three ran, of four): the
 * link starting 0.5 ms later waited on both; the third compile, ending at
 * 300 ms, is not waited on. At -j2, two running, one ends and the next
 * starts in its slot 0.3 ms later: no dependency (no slot was free). */
static void test_deps_seen(void **state)
{
	(void)state;
	struct forecast_result res;
	struct forecast_rec_info in;
	struct store *st = run_new(700 * MS);

	PROC(st, 1, 100, 1, 0, 700 * MS, "make\0-j4", 0);
	PROC(st, 2, 102, 100, 1 * MS, 100 * MS, "cc\0a.c", 1000);
	PROC(st, 3, 103, 100, 1 * MS, 100 * MS + 3 * US, "cc\0b.c", 1000);
	PROC(st, 4, 104, 100, 1 * MS, 300 * MS, "cc\0c.c", 1000);
	PROC(st, 5, 105, 100, 100500 * US, 600 * MS, "ld\0prog", 5000);
	assert_int_equal(forecast(st, NULL, 0, 4, &res, &in), 0);
	assert_int_equal(in.ndeps_seen, 2);
	/* the link after a.c and b.c, beside c.c: 5000 + 1000 */
	assert_int_equal(res.peak_kib, 6000);
	store_free(st);

	st = run_new(400 * MS);
	PROC(st, 1, 100, 1, 0, 400 * MS, "make\0-j2", 0);
	PROC(st, 2, 102, 100, 1 * MS, 100 * MS, "cc\0a.c", 1000);
	PROC(st, 3, 103, 100, 1 * MS, 200 * MS, "cc\0b.c", 1000);
	PROC(st, 4, 104, 100, 100300 * US, 300 * MS, "cc\0c.c", 1000);
	assert_int_equal(forecast(st, NULL, 0, 3, &res, &in), 0);
	assert_int_equal(in.ndeps_seen, 0);
	assert_int_equal(res.peak_kib, 3000);
	store_free(st);
}

/* More jobs at once than a forecast runs slots (the reviewer's h1.db: 5002
 * jobs under a make): the recorded -j was 5002 and forecast_run refused it
 * ("cannot forecast -j5002: Invalid argument", exit 2). It is capped at
 * FORECAST_SLOTS_MAX, the -j it was recorded at kept to say so. */
static void test_slots_capped(void **state)
{
	(void)state;
	enum { N = FORECAST_SLOTS_MAX + 4 };
	struct forecast_result res;
	struct forecast_rec_info in;
	struct store *st = run_new(300 * MS);

	PROC(st, 1, 100, 1, 0, 300 * MS, "make", 0);
	for (uint64_t i = 0; i < N; i++)
		PROC(st, 2 + i, (pid_t)(1000 + i), 100, 1 * MS + i, 200 * MS, "fill\0" "1", 10);
	assert_int_equal(forecast(st, NULL, 0, 0, &res, &in), 0);
	assert_int_equal(in.njobs, N);
	assert_int_equal(in.most_at_once, N);
	assert_int_equal(in.recorded_slots, FORECAST_SLOTS_MAX);
	assert_int_equal(in.slots_over, N);
	assert_int_equal(forecast(st, NULL, 0, in.recorded_slots, &res, &in), 0);
	assert_int_equal(res.most_running, FORECAST_SLOTS_MAX);
	store_free(st);
}

/* Jobs that ran for ages by a recording's word (the reviewer's h2.db: four
 * of about 5.6e18 ns): the sum of their times wrapped, the step stayed
 * 10 ms, and the curves asked for 1.8e12 bins ("Cannot allocate memory").
 * Now the bins of all the jobs are 4,000,000 at most past one a job, and
 * the forecast's wall time saturates rather than wraps. */
static void test_long_jobs(void **state)
{
	(void)state;
	const uint64_t dur = 5600000000000000000ull;
	struct forecast_rec *fr;
	struct store *st = run_new(dur + 2 * MS);

	PROC(st, 1, 100, 1, 0, dur + 2 * MS, "make\0-j4", 0);
	for (uint64_t i = 0; i < 4; i++)
		PROC(st, 2 + i, (pid_t)(200 + i), 100, 1 * MS + i, dur, "fill\0" "1", 1000);
	PROC(st, 6, 300, 100, 1 * MS, 2 * MS, "true", 1);
	assert_int_equal(forecast_rec_build(st, NULL, 0, &fr), 0);
	const struct forecast_model *m = forecast_rec_model(fr);
	size_t bins = 0;
	for (size_t j = 0; j < m->njobs; j++)
		bins += m->jobs[j].npss;
	assert_true(bins <= 4000000 + m->njobs);
	assert_true(m->step_ns >= 4 * (dur / 4000000));
	struct forecast_model mm = *m;
	struct forecast_result res;
	mm.cores = 4;
	assert_int_equal(forecast_run(&mm, 4, &res), 0);
	assert_int_equal(res.peak_kib, 4000); /* the short job ends before the fourth fill starts */
	assert_int_equal(forecast_run(&mm, 1, &res), 0);
	assert_true(res.wall_ns == UINT64_MAX); /* 4 x 5.6e18 ns: past 2^64 */
	forecast_rec_free(fr);
	store_free(st);
}

/* A job's curve on the 10 ms step: a shell holding 100 KiB from 0 to
 * 100 ms, running five children one after another, child i from 20i + 10
 * to 20i + 15 ms at 1000 (i + 1) KiB from its start. Each bin is the most
 * of the processes alive in it: 100 alone, 100 + 1000 (i + 1) in the bins
 * of the children. */
static void test_curve_bins(void **state)
{
	(void)state;
	struct forecast_rec *fr;
	struct store *st = run_new(101 * MS);

	PROC(st, 1, 100, 1, 0, 101 * MS, "make", 0);
	PROC(st, 2, 101, 100, 0, 100 * MS, "sh\0-c\0steps", 100);
	for (uint64_t i = 0; i < 5; i++)
		PROC(st, 3 + i, (pid_t)(200 + i), 101, (20 * i + 10) * MS, (20 * i + 15) * MS, "step", 1000 * (i + 1));
	assert_int_equal(forecast_rec_build(st, NULL, 0, &fr), 0);
	const struct forecast_model *m = forecast_rec_model(fr);
	assert_int_equal(m->njobs, 1);
	assert_int_equal(m->step_ns, 10 * MS);
	assert_int_equal(m->jobs[0].npss, 11);
	for (size_t b = 0; b < 11; b++)
		assert_int_equal(m->jobs[0].pss_kib[b], b % 2 ? 100 + 1000 * (b / 2 + 1) : 100);
	forecast_rec_free(fr);
	store_free(st);
}

/* The window of the dependencies and their number. Polling /proc an hour
 * apart (the reviewer's e20000.db: 20,000 jobs) made the window two hours
 * and every job wait on every other: 200M edges, 36 s, 1.6 GB. The window
 * is 1 s at most. And a job starting as 100 others ended (no limit to -j:
 * every slot free) waits on the 32 that ended last, not on all 100. */
static void test_deps_bounded(void **state)
{
	(void)state;
	struct forecast_result res;
	struct forecast_rec_info in;
	struct store *st = run_new(60 * MS);
	struct store_summary sum;

	PROC(st, 1, 100, 1, 0, 60 * MS, "make\0-j", 0);
	for (uint64_t i = 0; i < 100; i++)
		PROC(st, 2 + i, (pid_t)(200 + i), 100, 1 * MS, 10 * MS + i * US, "cc", 10);
	PROC(st, 200, 400, 100, 20 * MS, 50 * MS, "ld", 500);
	assert_int_equal(forecast(st, NULL, 0, 0, &res, &in), 0);
	assert_int_equal(in.recorded_slots, 0);
	assert_int_equal(in.ndeps_seen, FORECAST_TREE_DEPS_MAX);
	assert_int_equal(in.dep_window_ns, 50 * MS);
	store_summary_get(st, &sum);
	sum.mode = STORE_MODE_POLL;
	sum.interval_ms = 3600000;
	store_summary_set(st, &sum);
	assert_int_equal(forecast(st, NULL, 0, 0, &res, &in), 0);
	assert_int_equal(in.dep_window_ns, FORECAST_TREE_WINDOW_MAX);
	sum.interval_ms = UINT64_MAX / 1000; /* 2 x interval in ns: past 2^64 */
	store_summary_set(st, &sum);
	assert_int_equal(forecast(st, NULL, 0, 0, &res, &in), 0);
	assert_int_equal(in.dep_window_ns, FORECAST_TREE_WINDOW_MAX);
	store_free(st);
}

/* One command line's -j: forecast_tree_jobs_arg's answer (1, slots, the
 * words that said it) or none (0). */
static void jobs_arg(const char *tool, const char *line, int said, unsigned slots, const char *word)
{
	char buf[256], w[32] = "";
	const char *argv[16];
	size_t argc = 0;
	unsigned got = 12345;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok(buf, "|"); t && argc < 16; t = strtok(NULL, "|"))
		argv[argc++] = t;
	int r = forecast_tree_jobs_arg(tool, argv, argc, &got, w, sizeof(w));
	if (r != said || (said && (got != slots || strcmp(w, word))))
		fail_msg("%s: %d, -j%u (%s); expected %d, -j%u (%s)", line, r, got, w, said, slots, word);
}

/* The command lines the README says are read (words split at |): make's
 * -j8, -j 8, -kj8, --jobs=8, --jobs 8, -j alone (no limit), a -C dir
 * before, -Cj4 (j4 is -C's directory), MAKEFLAGS=... words ("-s
 * objdir=x": no -j; f182e9b read objdir's j as -j alone), "--" ending the
 * options; ninja's -j0 (no limit) and -j 12; cargo's --jobs=3 and --jobs
 * 3; a -j past the most a forecast runs, capped. */
static void test_jobs_arg(void **state)
{
	(void)state;
	jobs_arg("make", "make|-j8", 1, 8, "-j8");
	jobs_arg("make", "make|-j|8|all", 1, 8, "-j 8");
	jobs_arg("make", "make|-kj8", 1, 8, "-kj8");
	jobs_arg("make", "make|--jobs=8", 1, 8, "--jobs=8");
	jobs_arg("make", "make|--jobs|8", 1, 8, "--jobs 8");
	jobs_arg("make", "make|-j|all", 1, 0, "-j");
	jobs_arg("make", "make|-C|dir|-j3", 1, 3, "-j3");
	jobs_arg("make", "make|-Cj4", 0, 0, "");
	jobs_arg("make", "make|all", 0, 0, "");
	jobs_arg("make", "make|--|-j4", 0, 0, "");
	jobs_arg("make", "make|MAKEFLAGS=-j4", 1, 4, "MAKEFLAGS=-j4");
	jobs_arg("make", "make|MAKEFLAGS=j4", 1, 4, "MAKEFLAGS=j4");
	jobs_arg("make", "make|MAKEFLAGS=ks -j3 --jobserver-auth=3,4", 1, 3, "MAKEFLAGS=ks -j3 --jobse");
	jobs_arg("make", "make|MAKEFLAGS=-j 5", 1, 5, "MAKEFLAGS=-j 5");
	jobs_arg("make", "make|MAKEFLAGS=--jobs=6", 1, 6, "MAKEFLAGS=--jobs=6");
	jobs_arg("make", "make|MAKEFLAGS=-s objdir=x", 0, 0, "");
	jobs_arg("make", "make|MAKEFLAGS=objdir=x", 0, 0, "");
	jobs_arg("make", "make|MAKEFLAGS=-s -- JOBS=j4", 0, 0, "");
	jobs_arg("make", "make|-j99999", 1, FORECAST_SLOTS_MAX, "-j99999");
	jobs_arg("ninja", "ninja|-j0", 1, 0, "-j0");
	jobs_arg("ninja", "ninja|-C|build|-j|12", 1, 12, "-j 12");
	jobs_arg("ninja", "ninja|-kj8", 0, 0, "");
	jobs_arg("cargo", "cargo|build|--jobs=3", 1, 3, "--jobs=3");
	jobs_arg("cargo", "cargo|build|--jobs|3", 1, 3, "--jobs 3");
}

/* A sample of the tree at t_ms: its PSS and the file-backed part of it. */
static void tree_sample(struct store *st, uint64_t t_ms, uint64_t pss_kib, uint64_t file_kib)
{
	struct sample s;
	memset(&s, 0, sizeof(s));
	s.t_ns = t_ms * MS;
	s.pss_kib = pss_kib;
	s.pss_file_kib = file_kib;
	s.pss_anon_kib = pss_kib - file_kib;
	s.valid = SAMPLE_PSS;
	store_push_sample(st, &s);
}

/* The file-backed share of a job is the tree's at the instants of its
 * life, weighed by the job's PSS then. Two fills of 20000 KiB of their own
 * (anonymous), under a make of 1000 KiB, 900 of them file-backed: a sample
 * of the tree as the fills begin (1000 KiB, 90% file: make's) and two
 * while they run (41000 KiB, 1000 file: 2.4%). Each fill reaches its
 * 20000 KiB 9 ms in, so its curve's first step holds 20000: weighed by
 * that, the first sample made the fills 31.6% file-backed (f182e9b), and
 * that part of the second copy was not counted at -j2. Weighed by their
 * PSS at the instant (0 as they begin): 2.4%. */
static void test_file_share(void **state)
{
	(void)state;
	struct forecast_result res;
	struct forecast_rec_info in;
	struct store *st = run_new(400 * MS);

	PROC(st, 1, 100, 1, 0, 400 * MS, "make\0-j2", 1000);
	peak_at_ns = 109 * MS;
	PROC(st, 2, 101, 100, 100 * MS, 300 * MS, "fill\0a", 20000);
	PROC(st, 3, 102, 100, 100 * MS, 300 * MS, "fill\0b", 20000);
	peak_at_ns = 0;
	tree_sample(st, 100, 1000, 900);
	tree_sample(st, 150, 41000, 1000);
	tree_sample(st, 250, 41000, 1000);
	struct store_proc_sample ps[2] = {{.id = 2, .t_ns = 109 * MS, .pss_kib = 20000, .valid = PROC_V_PSS},
					  {.id = 3, .t_ns = 109 * MS, .pss_kib = 20000, .valid = PROC_V_PSS}};
	store_push_proc_samples(st, ps, 2);
	assert_int_equal(forecast(st, NULL, 0, 2, &res, &in), 0);
	if (in.file_share > 0.03)
		fail_msg("file share %.3f, expected 0.024", in.file_share);
	assert_true(res.peak_kib > 2 * 20000 * 0.97 + 1000);
	store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parent_circle),
		cmocka_unit_test(test_close_ends),
		cmocka_unit_test(test_deps_seen),
		cmocka_unit_test(test_slots_capped),
		cmocka_unit_test(test_long_jobs),
		cmocka_unit_test(test_curve_bins),
		cmocka_unit_test(test_deps_bounded),
		cmocka_unit_test(test_jobs_arg),
		cmocka_unit_test(test_file_share),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
