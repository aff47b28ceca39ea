/* Unit tests for smaps: a captured smaps (huge pages, mlock, a deleted file
 * with spaces in its name, [vsyscall]) parsed into pmap's groups, with totals
 * equal to the smaps_rollup captured with it; swap; text cut short; garbage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "procfs.h"
#include "smaps.h"

#define EXE "/work/main/build-x/workloads/mapkinds"

static const struct smaps_group *find(const struct smaps_view *v, enum smaps_kind k, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->g[i].kind == k && !strcmp(v->g[i].name, name))
			return &v->g[i];
	return NULL;
}

/* mapkinds 16 64 FILE 32: the groups pmap would show, and the totals of
 * smaps_rollup read at the same stop. */
static void test_groups_and_totals(void **state)
{
	size_t len, rlen;
	char *buf = fixture_load("mapkinds.smaps", &len);
	char *rbuf = fixture_load("mapkinds.smaps_rollup", &rlen);
	struct procfs_rollup ru;
	struct smaps_view v;
	const struct smaps_group *g;

	(void)state;
	assert_int_equal(procfs_parse_smaps_rollup(rbuf, rlen, &ru), 0);
	assert_int_equal(smaps_parse(buf, len, EXE, &v), 29);
	assert_int_equal(v.truncated, 0);
	assert_int_equal(v.valid, (1u << SMAPS_FIELDS) - 1);
	/* totals: the rollup's, its PSS within a KiB a mapping (each rounds down) */
	assert_int_equal(v.total.kib[SMAPS_RSS], ru.rss_kib);
	assert_int_equal(v.total.kib[SMAPS_ANONYMOUS], ru.anon_kib);
	assert_int_equal(v.total.kib[SMAPS_PRIVATE_CLEAN] + v.total.kib[SMAPS_PRIVATE_DIRTY], ru.private_kib);
	assert_true(v.total.kib[SMAPS_PSS] <= ru.pss_kib && v.total.kib[SMAPS_PSS] + 29 >= ru.pss_kib);
	assert_int_equal(v.total.kib[SMAPS_ANON_HUGE], 65536);
	assert_int_equal(v.total.kib[SMAPS_LOCKED], 16384);
	assert_int_equal(v.total.kib[SMAPS_SWAP], 0);
	assert_int_equal(v.total.nmaps, 29);
	/* the groups */
	assert_non_null(g = find(&v, SMAPS_BINARY, EXE));
	assert_int_equal(g->nmaps, 5);
	assert_non_null(g = find(&v, SMAPS_LIB, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_int_equal(g->nmaps, 5);
	assert_non_null(find(&v, SMAPS_LIB, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));
	assert_non_null(find(&v, SMAPS_HEAP, "[heap]"));
	assert_non_null(find(&v, SMAPS_STACK, "[stack]"));
	assert_non_null(find(&v, SMAPS_KERNEL, "[vsyscall]"));
	assert_non_null(find(&v, SMAPS_KERNEL, "[vdso]"));
	assert_non_null(find(&v, SMAPS_KERNEL, "[vvar_vclock]"));
	/* the file: its name with spaces, deleted, 32 MiB resident */
	assert_non_null(g = find(&v, SMAPS_FILE, "/tmp/map kinds.dat"));
	assert_int_equal(g->deleted, 1);
	assert_int_equal(g->kib[SMAPS_SIZE], 32768);
	assert_int_equal(g->kib[SMAPS_RSS], 32768);
	/* the anonymous memory: 16 MiB locked, 64 MiB in huge pages among it */
	assert_non_null(g = find(&v, SMAPS_ANON, "[anon]"));
	assert_int_equal(g->kib[SMAPS_LOCKED], 16384);
	assert_int_equal(g->kib[SMAPS_ANON_HUGE], 65536);
	assert_true(g->kib[SMAPS_ANONYMOUS] >= 16384 + 65536);
	/* the groups add up to the total */
	uint64_t sum[SMAPS_FIELDS] = {0};
	for (size_t i = 0; i < v.n; i++)
		for (int f = 0; f < SMAPS_FIELDS; f++)
			sum[f] += v.g[i].kib[f];
	for (int f = 0; f < SMAPS_FIELDS; f++)
		assert_int_equal(sum[f], v.total.kib[f]);
	/* sorted by PSS: the anonymous memory first, the rest in order */
	smaps_sort(&v, SMAPS_PSS);
	assert_string_equal(v.g[0].name, "[anon]");
	for (size_t i = 1; i < v.n; i++)
		assert_true(v.g[i - 1].kib[SMAPS_PSS] >= v.g[i].kib[SMAPS_PSS]);
	smaps_view_free(&v);
	/* without the program's path its mappings are a file's */
	assert_int_equal(smaps_parse(buf, len, NULL, &v), 29);
	assert_non_null(find(&v, SMAPS_FILE, EXE));
	smaps_view_free(&v);
	free(buf);
	free(rbuf);
}

/* Swapped-out pages: in the anonymous group and the total. */
static void test_swap(void **state)
{
	size_t len;
	char *buf = fixture_load("swap.smaps", &len);
	struct smaps_view v;

	(void)state;
	assert_int_equal(smaps_parse(buf, len, EXE, &v), 29);
	assert_int_equal(v.total.kib[SMAPS_SWAP], 2048);
	assert_int_equal(v.total.kib[SMAPS_SWAP_PSS], 2048);
	assert_int_equal(find(&v, SMAPS_ANON, "[anon]")->kib[SMAPS_SWAP], 2048);
	smaps_view_free(&v);
	free(buf);
}

/* The offset of the k-th (0-based) mapping's header line. */
static size_t header_at(const char *buf, size_t len, int k)
{
	int seen = -1;
	for (size_t i = 0; i < len; i++)
		if ((i == 0 || buf[i - 1] == '\n') && strchr("0123456789abcdef", buf[i]) &&
		    memchr(buf + i, '-', len - i < 20 ? len - i : 20) && ++seen == k)
			return i;
	fail_msg("no mapping %d", k);
	return 0;
}

/* A read cut short (the process exited while read): the mapping it was in is
 * left out and said; cut between two mappings, the first ones are whole. */
static void test_truncated(void **state)
{
	size_t len;
	char *buf = fixture_load("mapkinds.smaps", &len);
	struct smaps_view v;
	size_t at10 = header_at(buf, len, 10);

	(void)state;
	/* in the middle of a line of the 11th mapping */
	assert_int_equal(smaps_parse(buf, at10 + 100, EXE, &v), 10);
	assert_int_equal(v.truncated, 1);
	smaps_view_free(&v);
	/* after a whole line of it, before its VmFlags */
	const char *nl = memchr(buf + at10 + 100, '\n', len - at10 - 100);
	assert_int_equal(smaps_parse(buf, (size_t)(nl + 1 - buf), EXE, &v), 10);
	assert_int_equal(v.truncated, 1);
	smaps_view_free(&v);
	/* between the 10th and the 11th */
	assert_int_equal(smaps_parse(buf, at10, EXE, &v), 10);
	assert_int_equal(v.truncated, 0);
	smaps_view_free(&v);
	/* every length: never a crash, never more than the whole */
	for (size_t n = 0; n <= len; n += 7) {
		int r = smaps_parse(buf, n, EXE, &v);
		assert_true(r >= 0 && r <= 29);
		assert_true(v.total.kib[SMAPS_RSS] <= 117180);
		smaps_view_free(&v);
	}
	free(buf);
}

/* Not smaps: refused, never a figure. */
static void test_garbage(void **state)
{
	static const char *bad[] = {
		"hello\n",
		"Rss: 12 kB\n", /* a figure before any mapping */
		"00400000-00401000 r-xp 00000000 08:01 12 /bin/x\nRss: 12x kB\nVmFlags: rd\n",
		"00400000-00401000 r-xp 00000000 08:01 12 /bin/x\nRss: 99999999999999999999999 kB\nVmFlags: rd\n",
		"00400000-00401000 r-xp 00000000 08:01 12 /bin/x\nRss: 1 kB\nRss: 2 kB\nVmFlags: rd\n",
		"00400000-00401000 r-xp\n",
		"00400000-00401000 r-xp 00000000 08:01 12 /bin/x\nRss: 1 kB\nVmFlags: rd\n"
		"00401000-00402000 r-xp 00000000 08:01 12 /bin/x\nRss: 1 kB\n"
		"00402000-00403000 r-xp 00000000 08:01 12 /bin/x\nRss: 1 kB\nVmFlags: rd\n", /* one without VmFlags */
	};
	struct smaps_view v;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(smaps_parse(bad[i], strlen(bad[i]), NULL, &v), -EINVAL);
		assert_null(v.g);
	}
	assert_int_equal(smaps_parse("", 0, NULL, &v), 0);
	assert_int_equal(v.valid, 0);
	smaps_view_free(&v);
	/* an old kernel's smaps, without VmFlags: each mapping ends at the next */
	static const char old[] = "00400000-00401000 r-xp 00000000 08:01 12 /bin/x\nRss: 4 kB\nPss: 4 kB\n"
				  "00601000-00602000 rw-p 00000000 00:00 0\nRss: 4 kB\nPss: 2 kB\n";
	assert_int_equal(smaps_parse(old, sizeof(old) - 1, "/bin/x", &v), 2);
	assert_int_equal(v.total.kib[SMAPS_PSS], 6);
	assert_int_equal(v.valid, (1u << SMAPS_RSS) | (1u << SMAPS_PSS));
	assert_non_null(find(&v, SMAPS_BINARY, "/bin/x"));
	assert_non_null(find(&v, SMAPS_ANON, "[anon]"));
	smaps_view_free(&v);
}

/* Reading a live process: this one, and one that does not exist. */
static void test_read(void **state)
{
	char *buf, exe[256];
	size_t len;
	struct smaps_view v;

	(void)state;
	assert_int_equal(smaps_read(NULL, getpid(), &buf, &len, exe, sizeof(exe)), 0);
	assert_true(strstr(exe, "test_smaps") != NULL);
	assert_true(smaps_parse(buf, len, exe, &v) > 3);
	assert_int_equal(v.truncated, 0);
	assert_true(v.total.kib[SMAPS_RSS] > 0);
	assert_true(v.g[0].kind == SMAPS_BINARY || find(&v, SMAPS_BINARY, exe));
	smaps_view_free(&v);
	free(buf);
	assert_int_equal(smaps_read(NULL, 0x7ffffff0, &buf, &len, exe, sizeof(exe)), -ENOENT);
	assert_null(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_and_totals),
		cmocka_unit_test(test_swap),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
