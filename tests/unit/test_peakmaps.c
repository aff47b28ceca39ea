/* Unit tests for peakmaps: the peak's largest processes mapped on the
 * module's thread from a fake /proc of captured smaps; a newer peak's maps
 * replace the older's; a process gone is left out; maps set (a replay's)
 * are viewed as a process's map. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "peakmaps.h"

#define EXE "/work/main/build-x/workloads/mapkinds"

static char root[64];

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(p);
}

static void fake_proc(int pid, const char *fixture)
{
	char path[PATH_MAX];
	size_t n;
	char *buf = fixture_load(fixture, &n);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/exe", root, pid);
	unlink(path);
	assert_int_equal(symlink(EXE, path), 0);
	snprintf(path, sizeof(path), "%s/%d/smaps", root, pid);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
	free(buf);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/st-peakmaps-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* Of six processes in a peak, the four largest are mapped (the two small
 * ones, though they have maps, are not); one of the four is gone: left out. */
static void test_take(void **state)
{
	struct peakmaps *pm = peakmaps_new(root, 1.0, 1);
	struct peakmaps_proc p[6] = {
		{1, 4100001, 10}, {2, 4100002, 500}, {3, 4100003, 400},
		{4, 4100004, 300}, {5, 4100005, 20}, {6, 4100006, 200},
	};
	struct smaps_view v;
	struct peakmaps_row *rows;
	uint64_t t, gen;

	(void)state;
	assert_non_null(pm);
	for (int i = 0; i < 6; i++)
		if (p[i].pid != 4100004) /* 4 is gone */
			fake_proc(p[i].pid, i % 2 ? "mapkinds.smaps" : "swap.smaps");
	peakmaps_take(pm, 123, p, 6);
	peakmaps_drain(pm);
	ssize_t n = peakmaps_rows(pm, &rows, &gen);
	assert_true(n > 0);
	int seen[7] = {0};
	for (ssize_t i = 0; i < n; i++)
		seen[rows[i].id] = 1;
	free(rows);
	assert_true(seen[2] && seen[3] && seen[6]);
	assert_false(seen[1] || seen[4] || seen[5]);
	/* a process's map: its groups, totals as its smaps' */
	assert_int_equal(peakmaps_view(pm, 2, &v, &t), 1);
	assert_int_equal(v.total.kib[SMAPS_RSS], 117180);
	assert_int_equal(v.total.kib[SMAPS_LOCKED], 16384);
	assert_int_equal(v.nmaps, 29);
	assert_true(t > 0);
	smaps_view_free(&v);
	assert_int_equal(peakmaps_view(pm, 3, &v, NULL), 1);
	assert_int_equal(v.total.kib[SMAPS_SWAP], 2048);
	smaps_view_free(&v);
	assert_int_equal(peakmaps_view(pm, 1, &v, NULL), 0);
	smaps_view_free(&v);
	/* a newer peak of process 1 alone replaces them all */
	uint64_t gen2;
	peakmaps_take(pm, 456, p, 1);
	peakmaps_drain(pm);
	n = peakmaps_rows(pm, &rows, &gen2);
	assert_true(gen2 > gen);
	for (ssize_t i = 0; i < n; i++)
		assert_int_equal(rows[i].id, 1);
	free(rows);
	peakmaps_free(pm);
}

/* A replay's maps: set, viewed; no thread reads anything. */
static void test_set(void **state)
{
	struct peakmaps *pm = peakmaps_new(NULL, 0, 0);
	struct peakmaps_row r[3] = {{.id = 7, .t_ns = 99}, {.id = 7, .t_ns = 99}, {.id = 8, .t_ns = 99}};
	struct smaps_view v;
	uint64_t t = 0;

	(void)state;
	snprintf(r[0].g.name, sizeof(r[0].g.name), "[anon]");
	r[0].g.kind = SMAPS_ANON;
	r[0].g.kib[SMAPS_PSS] = 1000;
	r[0].g.nmaps = 3;
	snprintf(r[1].g.name, sizeof(r[1].g.name), "/usr/lib/libc.so.6");
	r[1].g.kind = SMAPS_LIB;
	r[1].g.kib[SMAPS_PSS] = 200;
	r[1].g.nmaps = 5;
	assert_int_equal(peakmaps_set(pm, r, 3), 0);
	assert_int_equal(peakmaps_view(pm, 7, &v, &t), 1);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.total.kib[SMAPS_PSS], 1200);
	assert_int_equal(v.nmaps, 8);
	assert_int_equal(t, 99);
	smaps_view_free(&v);
	peakmaps_drain(pm); /* nothing to wait for */
	peakmaps_free(pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_set),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
