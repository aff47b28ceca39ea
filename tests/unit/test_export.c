/* Unit tests for the exports: format list parsing, trace lane placement, the
 * snapshot of a tiered store (finest resolution per part, peak kept), and the
 * file publishing (names, no overwrite, no leftovers, errors). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "export_svg.h"
#include "export_trace.h"
#include "store.h"
#include "units.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define T0 (5000 * SEC)

static struct sample mk(uint64_t t_ns, uint64_t pss, uint64_t i)
{
	struct sample s;

	memset(&s, 0, sizeof(s));
	s.t_ns = t_ns;
	s.pss_kib = pss;
	s.pss_anon_kib = pss / 2;
	s.pss_file_kib = pss - pss / 2;
	s.rss_kib = pss + 100;
	s.minflt = i * 10;
	s.majflt = i / 10;
	s.utime_us = i * 1000;
	s.stime_us = i * 500;
	s.live_procs = 2;
	s.live_threads = 3;
	s.total_procs = 2;
	s.total_threads = 3;
	s.valid = SAMPLE_PSS | SAMPLE_RSS | SAMPLE_FAULTS | SAMPLE_CPU | SAMPLE_COUNTS;
	return s;
}

/* A store with n samples every 100 ms from T0, one spike of peak_kib at
 * sample spike, two processes, a summary, and events. */
static struct store *mkstore(const struct store_config *cfg, size_t n, size_t spike,
			     uint64_t peak_kib, const char *argv_blob, size_t argv_len)
{
	struct store *st = store_new(cfg);
	struct store_summary sum;
	struct proc_rec r;

	assert_non_null(st);
	memset(&sum, 0, sizeof(sum));
	for (size_t i = 0; i < n; i++) {
		struct sample s = mk(T0 + i * 100 * MS, i == spike ? peak_kib : 1000 + i % 7, i);
		store_push_sample(st, &s);
		if (i == spike)
			sum.peak = s;
		sum.last = s;
	}
	sum.start_ns = T0;
	sum.end_ns = T0 + (n - 1) * 100 * MS;
	sum.exited = 1;
	sum.mode = 1;
	store_summary_set(st, &sum);

	memset(&r, 0, sizeof(r));
	r.id = 1;
	r.pid = 100;
	r.ppid = 1;
	r.start_ns = T0;
	r.end_ns = sum.end_ns;
	memcpy(r.comm, "root", 5);
	r.argv_id = store_str_intern(st, "root\0arg", 8);
	r.valid = PROC_V_ARGV | PROC_V_EXIT | PROC_V_PSS;
	r.peak_pss_kib = peak_kib;
	assert_int_equal(store_proc_update(st, &r), 0);
	r.id = 2;
	r.pid = 101;
	r.ppid = 100;
	r.start_ns = T0 + 50 * MS;
	r.end_ns = T0 + 150 * MS;
	r.exit_status = 3 << 8;
	memcpy(r.comm, "child", 6);
	r.argv_id = store_str_intern(st, argv_blob, argv_len);
	assert_int_equal(store_proc_update(st, &r), 0);

	struct store_event ev = {.t_ns = T0 + 50 * MS, .type = STORE_EV_FORK, .pid = 101, .ppid = 100};
	store_push_event(st, &ev);
	ev.t_ns = T0 + 150 * MS;
	ev.type = STORE_EV_EXIT;
	ev.arg = 3 << 8;
	store_push_event(st, &ev);
	return st;
}

/* Events pushed out of time order (an exit dated when it happened, learned
 * of at a later tick) come out of a snapshot sorted, those of one instant
 * in the order they came, as a recording's do. */
static void test_snapshot_events_sorted(void **state)
{
	struct store *st = store_new(NULL);
	struct export_snap sn;
	char *argv[] = {"x", NULL};
	/* times in ms, pids telling the order they were pushed in */
	const uint64_t t_ms[] = {10, 30, 20, 20, 50, 5, 40, 40, 60};
	const size_t n = sizeof(t_ms) / sizeof(t_ms[0]);
	struct store_summary sum = {.start_ns = T0, .end_ns = T0 + 100 * MS, .exited = 1, .mode = 1};

	(void)state;
	assert_non_null(st);
	store_summary_set(st, &sum);
	for (size_t i = 0; i < n; i++) {
		struct store_event ev = {.t_ns = T0 + t_ms[i] * MS, .type = STORE_EV_FORK, .pid = (int)(100 + i), .ppid = 1};
		store_push_event(st, &ev);
	}
	assert_int_equal(export_snap_take(&sn, st, argv, 0, 0, 0), 0);
	assert_int_equal(sn.nevents, n);
	const int want[] = {105, 100, 102, 103, 101, 106, 107, 104, 108};
	for (size_t i = 0; i < n; i++)
		assert_int_equal(sn.events[i].pid, want[i]);
	export_snap_free(&sn);
	store_free(st);
}

static void test_formats_parse(void **state)
{
	unsigned f = 0;

	(void)state;
	assert_int_equal(export_formats_parse("json", &f), 0);
	assert_int_equal(f, EXPORT_F_JSON);
	assert_int_equal(export_formats_parse("csv,trace,svg", &f), 0);
	assert_int_equal(f, EXPORT_F_CSV | EXPORT_F_TRACE | EXPORT_F_SVG);
	assert_int_equal(export_formats_parse("all", &f), 0);
	assert_int_equal(f, EXPORT_F_ALL);
	assert_int_equal(export_formats_parse("json,,svg", &f), -EINVAL);
	assert_int_equal(export_formats_parse("", &f), -EINVAL);
	assert_int_equal(export_formats_parse("pdf", &f), -EINVAL);
	assert_int_equal(export_formats_parse("json,jsonx", &f), -EINVAL);
}

static void test_units_kib(void **state)
{
	char b[32];

	(void)state;
	units_kib(b, sizeof(b), 364);
	assert_string_equal(b, "364 KiB");
	units_kib(b, sizeof(b), 65743);
	assert_string_equal(b, "64.2 MiB");
	units_kib(b, sizeof(b), 3 * 1024 * 1024 + 300 * 1024);
	assert_string_equal(b, "3.29 GiB");
	/* the summary's and the dashboard's rounding, the same in the SVG */
	units_kib(b, sizeof(b), 0);
	assert_string_equal(b, "0 B");
	units_kib(b, sizeof(b), 5);
	assert_string_equal(b, "5.00 KiB");
	units_kib(b, sizeof(b), 150 * 1024);
	assert_string_equal(b, "150 MiB");
}

/* On every lane, any two spans are disjoint or nested. */
static void check_lanes(const struct export_trace_span *sp, size_t n, const uint32_t *lane,
			int nl)
{
	assert_true(nl >= 0);
	for (size_t i = 0; i < n; i++) {
		assert_true((int)lane[i] < nl);
		for (size_t j = 0; j < n; j++) {
			if (i == j || lane[i] != lane[j])
				continue;
			const struct export_trace_span *a = &sp[i], *b = &sp[j];
			int disjoint = a->end <= b->start || b->end <= a->start;
			int nested = (a->start <= b->start && b->end <= a->end) ||
				     (b->start <= a->start && a->end <= b->end);
			if (!disjoint && !nested)
				fail_msg("spans %zu [%lu,%lu] and %zu [%lu,%lu] overlap on lane %u", i,
					 (unsigned long)a->start, (unsigned long)a->end, j,
					 (unsigned long)b->start, (unsigned long)b->end, lane[i]);
		}
	}
}

static void test_lanes_family(void **state)
{
	const size_t NP = EXPORT_TRACE_NOPARENT;
	struct export_trace_span sp[] = {
		{0, 100, NP}, /* 0 root */
		{10, 50, 0},  /* 1 child */
		{40, 90, 0},  /* 2 child overlapping 1 */
		{15, 20, 1},  /* 3 grandchild in 1 */
		{60, 70, 0},  /* 4 child after 1 ended */
		{95, 120, 0}, /* 5 child outliving the root */
		{45, 60, 2},  /* 6 grandchild in 2 */
	};
	uint32_t lane[7];
	int nl;

	(void)state;
	nl = export_trace_lanes(sp, 7, lane);
	check_lanes(sp, 7, lane, nl);
	assert_int_equal(lane[1], lane[0]); /* nests in its parent */
	assert_int_equal(lane[3], lane[1]);
	assert_int_not_equal(lane[2], lane[1]);
	assert_int_equal(lane[6], lane[2]);
	assert_int_equal(lane[4], lane[0]);
	assert_int_not_equal(lane[5], lane[0]);
	assert_int_equal(nl, 2);
	assert_int_equal(export_trace_lanes(sp, 0, lane), 0);
}

/* Random trees, children mostly inside their parents, some outliving them. */
static void test_lanes_random(void **state)
{
	enum { N = 400 };
	struct export_trace_span sp[N];
	uint32_t lane[N];

	(void)state;
	srand(7);
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < N; i++) {
			if (i == 0 || rand() % 20 == 0) {
				sp[i].start = (uint64_t)(rand() % 1000);
				sp[i].parent = EXPORT_TRACE_NOPARENT;
			} else {
				size_t p = (size_t)rand() % i;
				sp[i].parent = p;
				sp[i].start = sp[p].start + (uint64_t)(rand() % 50);
			}
			sp[i].end = sp[i].start + (uint64_t)(rand() % 200);
		}
		int nl = export_trace_lanes(sp, N, lane);
		check_lanes(sp, N, lane, nl);
	}
}

/* A store whose fine tier has lost the start: the snapshot takes the coarse
 * buckets for old time and the finer ones where they exist, with no gap or
 * overlap, every sample counted once, and the spike's max kept. */
static void test_snapshot_tiers(void **state)
{
	struct store_config c = {.tier0_len = 16, .ntiers = 3, .tier_factor = 10, .tier_len = 16,
				 .base_ns = 100 * MS};
	char *argv[] = {"prog", NULL};
	struct store *st = mkstore(&c, 500, 37, 999999, "child", 5);
	struct export_snap sn;
	uint64_t maxpss = 0;

	(void)state;
	assert_int_equal(export_snap_take(&sn, st, argv, 0, 0, 0), 0);
	assert_int_equal(sn.nsamples, 500);
	assert_true(sn.nrows < 500);
	if (getenv("TEST_EXPORT_DEBUG"))
		for (size_t i = 0; i < sn.nrows; i++)
			fprintf(stderr, "row %zu: %.1f-%.1f n=%u\n", i, (double)(sn.rows[i].b.t0_ns - T0) / 1e9,
				(double)(sn.rows[i].b.t1_ns - T0) / 1e9, sn.rows[i].b.n);
	for (size_t i = 0; i < sn.nrows; i++) {
		if (i)
			assert_true(sn.rows[i].b.t0_ns > sn.rows[i - 1].b.t1_ns);
		if (sn.rows[i].b.max.pss_kib > maxpss)
			maxpss = sn.rows[i].b.max.pss_kib;
	}
	assert_int_equal(maxpss, 999999);
	/* Tier 0 holds the newest 16 samples (48.4 s on), but the 1 s bucket from
	 * 48.0 s must stay whole: then one row per sample from 49.0 s. */
	for (size_t i = sn.nrows - 10; i < sn.nrows; i++)
		assert_int_equal(sn.rows[i].b.n, 1);
	assert_int_equal(sn.rows[sn.nrows - 11].b.n, 10);
	assert_int_equal(sn.rows[sn.nrows - 11].b.t0_ns, T0 + 480 * 100 * MS);
	/* The oldest rows come from tier 2 (10 s slots, 100 samples). */
	assert_int_equal(sn.rows[0].b.n, 100);
	/* Rates from the cumulative counters: minflt grows 10 per 100 ms. */
	const struct export_row *last = &sn.rows[sn.nrows - 1];
	assert_true(last->has_rates);
	assert_true(last->minflt_per_s > 99.9 && last->minflt_per_s < 100.1);
	assert_true(last->cpu_pct > 1.49 && last->cpu_pct < 1.51);
	assert_false(sn.rows[0].has_rates);
	assert_int_equal(sn.nprocs, 2);
	assert_int_equal(sn.nevents, 2);
	export_snap_free(&sn);

	/* A window: rows and processes inside it only. */
	assert_int_equal(export_snap_take(&sn, st, argv, T0 + 480 * 100 * MS, T0 + 490 * 100 * MS, 0), 0);
	assert_true(sn.windowed);
	/* 48.0 s is only in tier 1 (fine samples start at 48.4 s): its 1 s bucket,
	 * then the fine sample at 49.0 s. */
	assert_int_equal(sn.nrows, 2);
	assert_int_equal(sn.rows[0].b.n, 10);
	assert_int_equal(sn.rows[1].b.n, 1);
	assert_int_equal(sn.nsamples, 11);
	assert_int_equal(sn.nprocs, 1);
	assert_int_equal(sn.nevents, 0);
	export_snap_free(&sn);
	assert_int_equal(export_snap_take(&sn, st, argv, 2, 1, 0), -EINVAL);
	store_free(st);
}

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* Names in dir, sorted, joined with '|'. */
static void list_dir(const char *dir, char *out, size_t cap, int *count)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	size_t k = 0;

	assert_true(n >= 0);
	*count = 0;
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, "..")) {
			k += (size_t)snprintf(out + k, cap - k, "%s|", ents[i]->d_name);
			(*count)++;
		}
		free(ents[i]);
	}
	free(ents);
}

static void rm_dir(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	char path[4096];

	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			unlink(path);
		}
		free(ents[i]);
	}
	free(ents);
	rmdir(dir);
}

/* Four files, named after the command; a second export of the same run never
 * replaces them; untrusted bytes are escaped in the JSON. */
static void test_snapshot_files(void **state)
{
	static const char weird[] = "we\"ird\\na\nme\tx\xff\x01y\0arg two";
	char *argv[] = {"/usr/bin/my prog", "a\"b", NULL};
	struct store *st = mkstore(NULL, 30, 12, 4242, weird, sizeof(weird) - 1);
	char dir[] = "/tmp/test_export.XXXXXX", msg[4096], names[4096];
	struct export_opts o = {.dir = dir};
	int count;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(export_snapshot(st, argv, &o, msg, sizeof(msg)), 4);
	list_dir(dir, names, sizeof(names), &count);
	assert_int_equal(count, 4);
	assert_non_null(strstr(msg, dir));
	assert_non_null(strstr(names, "my_prog-"));
	assert_non_null(strstr(names, ".trace.json|"));
	assert_non_null(strstr(names, ".csv|"));
	assert_non_null(strstr(names, ".svg|"));

	/* The same run again: same stem, so "-2"; the first files unchanged. */
	char first_json[256];
	char *end = strstr(names, ".csv|");
	size_t stem_len = (size_t)(end - names);
	snprintf(first_json, sizeof(first_json), "%.*s.json", (int)stem_len, names);
	size_t len1, len2;
	char *a = slurp(dir, first_json, &len1);
	assert_int_equal(export_snapshot(st, argv, &o, msg, sizeof(msg)), 4);
	assert_non_null(strstr(msg, "-2.json"));
	list_dir(dir, names, sizeof(names), &count);
	assert_int_equal(count, 8);
	char *b = slurp(dir, first_json, &len2);
	assert_int_equal(len1, len2);
	assert_memory_equal(a, b, len1);

	/* Escaping: the bytes survive as JSON escapes, never raw. */
	assert_non_null(strstr(a, "\"we\\\"ird\\\\na\\nme\\tx\\ufffd\\u0001y\""));
	assert_non_null(strstr(a, "\"arg two\""));
	assert_non_null(strstr(a, "\"a\\\"b\""));
	assert_null(strstr(a, "\xff"));
	assert_non_null(strstr(a, "\"version\":1"));
	assert_non_null(strstr(a, "\"samples_count\":30"));
	free(a);
	free(b);

	/* Formats subset, and a window in the name. */
	o.formats = EXPORT_F_CSV;
	o.t0_ns = T0 + 1 * SEC;
	o.t1_ns = T0 + 2 * SEC;
	assert_int_equal(export_snapshot(st, argv, &o, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "-t1.0-2.0.csv"));
	char *slash = strrchr(msg, '/');
	char *csv = slurp(dir, slash + 1, NULL);
	int lines = 0;
	for (char *p = csv; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 1 + 11); /* header + samples at 1.0, 1.1, ... 2.0 s */
	assert_non_null(strstr(csv, "time_s,"));
	free(csv);
	rm_dir(dir);
	store_free(st);
}

/* A directory that is missing, or not a directory: one message, no files. */
static void test_snapshot_errors(void **state)
{
	char *argv[] = {"prog", NULL};
	struct store *st = mkstore(NULL, 5, 2, 100, "x", 1);
	char dir[] = "/tmp/test_export.XXXXXX", path[4200], msg[4096], names[4096];
	struct export_opts o = {.dir = path};
	int count;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(export_snapshot(st, argv, &o, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, path));
	assert_non_null(strstr(msg, strerror(ENOENT)));
	assert_null(strchr(msg, '\n'));

	snprintf(path, sizeof(path), "%s/file", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(export_snapshot(st, argv, &o, msg, sizeof(msg)), -ENOTDIR);
	list_dir(dir, names, sizeof(names), &count);
	assert_int_equal(count, 1);

	/* NULL message buffer and default formats are fine too. */
	o.dir = dir;
	assert_int_equal(export_snapshot(st, argv, &o, NULL, 0), 4);
	list_dir(dir, names, sizeof(names), &count);
	assert_int_equal(count, 5);
	rm_dir(dir);
	store_free(st);
}

/* export_dir_check: what a run would meet, found before it, leaving nothing. */
static void test_dir_check(void **state)
{
	char dir[] = "/tmp/test_export.XXXXXX", path[4200], names[4096];
	int count;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(export_dir_check(path), -ENOENT);
	snprintf(path, sizeof(path), "%s/file", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(export_dir_check(path), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/d", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(export_dir_check(path), 0);
	list_dir(path, names, sizeof(names), &count);
	assert_int_equal(count, 0); /* the check left nothing */
	if (geteuid() != 0) { /* root writes anywhere */
		chmod(path, 0500);
		assert_int_equal(export_dir_check(path), -EACCES);
		chmod(path, 0700);
	}
	rmdir(path);
	rm_dir(dir);
}

/* A store with nothing in it, and a window holding no sample: still files. */
static void test_snapshot_empty(void **state)
{
	char *argv[] = {"", NULL};
	struct store *st = store_new(NULL);
	char dir[] = "/tmp/test_export.XXXXXX", msg[4096], names[4096];
	struct export_opts o = {.dir = dir};
	struct export_snap sn;
	int count;

	(void)state;
	assert_non_null(st);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(export_snapshot(st, argv, &o, msg, sizeof(msg)), 4);
	list_dir(dir, names, sizeof(names), &count);
	assert_int_equal(count, 4);
	assert_non_null(strstr(names, "run-")); /* no command name: "run" */
	store_free(st);

	st = mkstore(NULL, 10, 3, 500, "x", 1);
	assert_int_equal(export_snap_take(&sn, st, argv, T0 + 100 * SEC, T0 + 200 * SEC, 0), 0);
	assert_int_equal(sn.nrows, 0);
	assert_int_equal(sn.nprocs, 0);
	export_snap_free(&sn);
	rm_dir(dir);
	store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats_parse),
		cmocka_unit_test(test_units_kib),
		cmocka_unit_test(test_lanes_family),
		cmocka_unit_test(test_lanes_random),
		cmocka_unit_test(test_snapshot_tiers),
		cmocka_unit_test(test_snapshot_files),
		cmocka_unit_test(test_snapshot_errors),
		cmocka_unit_test(test_snapshot_empty),
		cmocka_unit_test(test_snapshot_events_sorted),
		cmocka_unit_test(test_dir_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
