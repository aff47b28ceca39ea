/* Unit tests for mapread: the map reader's thread on a fake /proc root holding
 * captured smaps: a map wanted is read and kept, read again while wanted, kept
 * with its time once its process is gone; a process that never was is said. */
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
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "mapread.h"

#define EXE "/work/main/build-x/workloads/mapkinds"

static char root[64];

static void put(const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* A fake process pid whose smaps is the fixture name (its first len bytes,
 * all when len is 0) and whose program is EXE. */
static void fake_proc(int pid, const char *name, size_t len)
{
	char rel[64], path[PATH_MAX];
	size_t n;
	char *buf = fixture_load(name, &n);

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/exe", root, pid);
	unlink(path);
	assert_int_equal(symlink(EXE, path), 0);
	snprintf(rel, sizeof(rel), "%d/smaps", pid);
	put(rel, buf, len ? len : n);
	free(buf);
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(p);
}

static void gone(int pid)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%d", root, pid);
	nftw(path, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/st-mapread-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* Polls until id's state is want and (seq > after), for up to 5 s. */
static void wait_for(struct mapread *mr, uint64_t id, enum mapread_state want, uint64_t after,
		     struct mapread_result *out)
{
	for (int i = 0; i < 500; i++) {
		if (mapread_get(mr, id, out) == want && (want != MAPREAD_DONE || out->seq > after))
			return;
		smaps_view_free(&out->view);
		usleep(10000);
	}
	fail_msg("process %llu: state %d, not %d after 5 s", (unsigned long long)id, out->state, want);
}

/* Wanted: read, its groups and totals; read again (a second later at the
 * soonest) with what changed; once gone, the last map kept with its time. */
static void test_read_refresh_gone(void **state)
{
	struct mapread *mr = mapread_new(root, 0.01);
	struct mapread_result r;

	(void)state;
	assert_non_null(mr);
	fake_proc(4000001, "mapkinds.smaps", 0);
	assert_int_equal(mapread_get(mr, 7, &r), MAPREAD_NONE);
	mapread_want(mr, 7, 4000001);
	wait_for(mr, 7, MAPREAD_DONE, 0, &r);
	assert_int_equal(r.view.nmaps, 29);
	assert_int_equal(r.view.total.kib[SMAPS_RSS], 117180);
	assert_int_equal(r.view.total.kib[SMAPS_LOCKED], 16384);
	assert_true(r.read_ns > 0);
	assert_int_equal(r.pid, 4000001);
	/* the program's own mappings are its binary's */
	int bin = 0;
	for (size_t i = 0; i < r.view.n; i++)
		bin += r.view.g[i].kind == SMAPS_BINARY;
	assert_int_equal(bin, 1);
	uint64_t seq = r.seq, at = r.read_ns;
	smaps_view_free(&r.view);
	/* it swaps out 2 MiB: the next read (not before a second) says so */
	fake_proc(4000001, "swap.smaps", 0);
	wait_for(mr, 7, MAPREAD_DONE, seq, &r);
	assert_int_equal(r.view.total.kib[SMAPS_SWAP], 2048);
	assert_true(r.read_ns >= at + 1000000000ull);
	seq = r.seq;
	at = r.read_ns;
	smaps_view_free(&r.view);
	/* gone: the last map stays, with its time, and says the process ended */
	gone(4000001);
	for (int i = 0; i < 300 && (mapread_get(mr, 7, &r), r.err == 0); i++) {
		smaps_view_free(&r.view);
		usleep(10000);
	}
	assert_int_equal(r.state, MAPREAD_DONE);
	assert_int_equal(r.err, -ESRCH);
	assert_int_equal(r.seq, seq);
	assert_int_equal(r.read_ns, at);
	assert_int_equal(r.view.total.kib[SMAPS_SWAP], 2048);
	smaps_view_free(&r.view);
	/* no longer wanted: still kept */
	mapread_want(mr, 0, 0);
	assert_int_equal(mapread_get(mr, 7, &r), MAPREAD_DONE);
	smaps_view_free(&r.view);
	mapread_free(mr);
}

/* A process that is not there: gone, no map. One whose map was cut short
 * as it was read (it exited): the part read, said to be cut, not read again. */
static void test_never_and_cut(void **state)
{
	struct mapread *mr = mapread_new(root, 0.01);
	struct mapread_result r;
	size_t n;
	char *buf = fixture_load("mapkinds.smaps", &n);

	(void)state;
	mapread_want(mr, 9, 4000009);
	wait_for(mr, 9, MAPREAD_GONE, 0, &r);
	assert_null(r.view.g);
	/* cut in the middle of the file */
	fake_proc(4000010, "mapkinds.smaps", n / 2);
	mapread_want(mr, 10, 4000010);
	wait_for(mr, 10, MAPREAD_DONE, 0, &r);
	assert_int_equal(r.view.truncated, 1);
	assert_true(r.view.nmaps > 0 && r.view.nmaps < 29);
	smaps_view_free(&r.view);
	free(buf);
	mapread_free(mr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_refresh_gone),
		cmocka_unit_test(test_never_and_cut),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
