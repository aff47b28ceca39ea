/* Unit tests for procfs: parsers fed from tests/fixtures/ (see its README.md
 * for where each file came from), plus the I/O helpers on our own process. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"
#include "fixture.h"

/* Loads a fixture (see fixture.h). */
static char *load(const char *name, size_t *len)
{
	return fixture_load(name, len);
}

/* Copies s without its NUL, for handwritten inputs. */
static char *dup_exact(const char *s, size_t *len)
{
	*len = strlen(s);
	char *b = malloc(*len ? *len : 1);

	memcpy(b, s, *len);
	return b;
}

static void test_stat_comm_with_space_and_paren(void **state)
{
	(void)state;
	struct procfs_stat st;
	size_t len;
	char *b = load("proc_space_paren.stat", &len);

	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	assert_int_equal(st.pid, 26113);
	assert_string_equal(st.comm, "a b) c");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.pgrp, 26103);
	assert_int_equal(st.tty_nr, 0);
	assert_int_equal(st.minflt, 130);
	assert_int_equal(st.majflt, 0);
	assert_int_equal(st.utime_ticks, 0);
	assert_int_equal(st.stime_ticks, 0);
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.starttime_ticks, 33452);
	assert_int_equal(st.rss_pages, 444);
	free(b);
}

/* The command-line area's bounds, fields 48 and 49: from a captured line
 * (a comm with a space and a parenthesis before them), 0 for a kernel thread,
 * refused for a line cut before them. */
static void test_stat_args(void **state)
{
	(void)state;
	uint64_t a, b;
	size_t len;
	char *t = load("proc_threads.stat", &len);

	assert_int_equal(procfs_parse_stat_args(t, len, &a, &b), 0);
	assert_int_equal(a, 140720723909266ull);
	assert_int_equal(b, 140720723909278ull);
	free(t);
	t = load("proc_space_paren.stat", &len);
	assert_int_equal(procfs_parse_stat_args(t, len, &a, &b), 0);
	assert_true(b > a);
	free(t);
	t = load("proc_kthread.stat", &len);
	assert_int_equal(procfs_parse_stat_args(t, len, &a, &b), 0);
	assert_int_equal(a, 0);
	assert_int_equal(b, 0);
	free(t);
	t = load("bad_stat_truncated.stat", &len);
	assert_int_equal(procfs_parse_stat_args(t, len, &a, &b), -EINVAL);
	assert_int_equal(a, 0);
	free(t);
	const char cut[] = "1 (x) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 9 10 11";
	assert_int_equal(procfs_parse_stat_args(cut, sizeof(cut) - 1, &a, &b), -EINVAL);
	assert_int_equal(procfs_parse_stat_args("no paren", 8, &a, &b), -EINVAL);
}

static void test_stat_threads(void **state)
{
	(void)state;
	struct procfs_stat st;
	size_t len;
	char *b = load("proc_threads.stat", &len);

	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	assert_int_equal(st.pid, 26115);
	assert_string_equal(st.comm, "wl");
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.minflt, 16510);
	assert_int_equal(st.stime_ticks, 2);
	assert_int_equal(st.num_threads, 4);
	assert_int_equal(st.starttime_ticks, 33452);
	assert_int_equal(st.rss_pages, 16687);
	free(b);

	b = load("proc_threads_task.stat", &len);
	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	assert_int_equal(st.pid, 26117);
	assert_int_equal(st.minflt, 2);
	assert_int_equal(st.num_threads, 4);
	assert_int_equal(st.starttime_ticks, 33455);
	free(b);
}

/* A zombie is an ended process only once all its threads are gone: a leader
 * that called pthread_exit (captured: 2 threads, state Z) goes on. */
static void test_stat_ended(void **state)
{
	(void)state;
	struct procfs_stat st;
	size_t len;
	char *b = load("proc_zombie_leader.stat", &len);

	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.num_threads, 2);
	assert_false(procfs_stat_ended(&st));
	free(b);

	b = load("proc_zombie.stat", &len);
	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.num_threads, 1);
	assert_true(procfs_stat_ended(&st));
	free(b);

	b = load("proc_threads.stat", &len);
	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	assert_false(procfs_stat_ended(&st)); /* running */
	free(b);
}

static void test_stat_kernel_threads(void **state)
{
	(void)state;
	struct procfs_stat st;
	size_t len;
	char *b = load("proc_kthread.stat", &len);

	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	assert_int_equal(st.pid, 2);
	assert_string_equal(st.comm, "kthreadd");
	assert_int_equal(st.ppid, 0);
	assert_int_equal(st.starttime_ticks, 21);
	assert_int_equal(st.rss_pages, 0);
	free(b);

	/* comm of 27 bytes: the first 15 are kept. */
	b = load("proc_kworker_longname.stat", &len);
	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	assert_int_equal(st.pid, 12);
	assert_string_equal(st.comm, "kworker/u8:0-ev");
	assert_int_equal(st.state, 'I');
	assert_int_equal(st.ppid, 2);
	assert_int_equal(st.stime_ticks, 8);
	assert_int_equal(st.num_threads, 1);
	free(b);
}

static void test_stat_bad(void **state)
{
	(void)state;
	static const char *const files[] = {
		"bad_stat_truncated.stat", "bad_stat_garbage.stat", "bad_stat_overflow.stat",
		"bad_stat_nocomm.stat", "bad_stat_hugepid.stat", "proc_threads.statm",
		"proc_threads.smaps_rollup", "empty.children",
	};
	/* Variants of a valid 24-field line, "1 (x) S 1 1 1 0 -1 0 11 0 12 0 13 14
	 * 0 0 20 0 1 0 15 16 17 " (test_stat_minimal). */
	static const char *const texts[] = {
		"", "1", "1 (", "1 ()", "1 (x) S", "1 (x)",
		"-1 (x) S 1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 17 ",
		"1 (x) S -1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 17 ",
		/* 24 fields but nothing after the last: may be cut short. */
		"1 (x) S 1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 17",
		/* 23 fields */
		"1 (x) S 1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 ",
		/* num_threads above UINT32_MAX */
		"1 (x) S 1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 4294967296 0 15 16 17 ",
		"1 (x) S 1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 17x ",
		"1 (x) S  1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 17 ",
		"1 (x) SS 1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 17 ",
		"1 (x) S 1 1 1 0 -1 0 -11 0 12 0 13 14 0 0 20 0 1 0 15 16 17 ",
		"1 (x) S 1 1 1 0 - 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 17 ",
		"1(x) S 1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 17 ",
		"1 x) S 1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 17 ",
	};
	struct procfs_stat st;
	size_t len;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *b = load(files[i], &len);

		assert_int_equal(procfs_parse_stat(b, len, &st), -EINVAL);
		assert_int_equal(st.pid, 0); /* nothing half-filled */
		free(b);
	}
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *b = dup_exact(texts[i], &len);

		if (procfs_parse_stat(b, len, &st) != -EINVAL)
			fail_msg("accepted: \"%s\"", texts[i]);
		free(b);
	}
	assert_int_equal(procfs_parse_stat(NULL, 10, &st), -EINVAL);
}

static void test_stat_minimal(void **state)
{
	(void)state;
	struct procfs_stat st;
	size_t len;
	char *b = dup_exact("1 (x) S 1 1 1 0 -1 0 11 0 12 0 13 14 0 0 20 0 1 0 15 16 17 ", &len);

	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	free(b);
	b = dup_exact("7 ((a)) R 3 1 1 0 -1 0 11 0 12 0 13 14 -5 0 20 -20 2 0 15 16 17 ", &len);

	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	assert_int_equal(st.pid, 7);
	assert_string_equal(st.comm, "(a)");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 3);
	assert_int_equal(st.minflt, 11);
	assert_int_equal(st.majflt, 12);
	assert_int_equal(st.utime_ticks, 13);
	assert_int_equal(st.stime_ticks, 14);
	assert_int_equal(st.num_threads, 2);
	assert_int_equal(st.starttime_ticks, 15);
	assert_int_equal(st.rss_pages, 17);
	free(b);

	b = dup_exact("7 (x) R 3 1 1 0 -1 0 18446744073709551615 0 12 0 13 14 -5 0 20 -20 2 0 "
		      "15 16 17 \n",
		      &len);
	assert_int_equal(procfs_parse_stat(b, len, &st), 0);
	assert_true(st.minflt == UINT64_MAX);
	free(b);
}

static void test_statm(void **state)
{
	(void)state;
	struct procfs_statm m;
	size_t len;
	char *b = load("proc_threads.statm", &len);

	assert_int_equal(procfs_parse_statm(b, len, &m), 0);
	assert_int_equal(m.size_pages, 23151);
	assert_int_equal(m.resident_pages, 16718);
	assert_int_equal(m.shared_pages, 303);
	assert_int_equal(m.text_pages, 1);
	assert_int_equal(m.data_pages, 22618);
	free(b);

	b = load("proc_space_paren.statm", &len);
	assert_int_equal(procfs_parse_statm(b, len, &m), 0);
	assert_int_equal(m.size_pages, 730);
	assert_int_equal(m.resident_pages, 471);
	assert_int_equal(m.shared_pages, 444);
	assert_int_equal(m.text_pages, 5);
	assert_int_equal(m.data_pages, 89);
	free(b);

	b = load("proc_kthread.statm", &len);
	assert_int_equal(procfs_parse_statm(b, len, &m), 0);
	assert_int_equal(m.size_pages, 0);
	assert_int_equal(m.resident_pages, 0);
	free(b);
}

/* status: the high-water RSS and the split; a kernel thread's and a
 * zombie's have none of them; an old kernel's (before RssAnon) no split. */
static void test_status(void **state)
{
	(void)state;
	struct procfs_status st;
	size_t len;
	char *b = load("proc_shrunk.status", &len);

	assert_int_equal(procfs_parse_status(b, len, &st), 0);
	assert_int_equal(st.valid, PROCFS_STATUS_HWM | PROCFS_STATUS_RSS | PROCFS_STATUS_SPLIT);
	assert_int_equal(st.hwm_kib, 78872);
	assert_int_equal(st.rss_kib, 21680);
	assert_int_equal(st.anon_kib, 15056);
	assert_int_equal(st.file_kib, 6624);
	assert_int_equal(st.shmem_kib, 0);
	free(b);
	const char *none[] = {"proc_kthread.status", "proc_zombie.status"};
	for (size_t i = 0; i < 2; i++) {
		b = load(none[i], &len);
		assert_int_equal(procfs_parse_status(b, len, &st), 0);
		assert_int_equal(st.valid, 0);
		free(b);
	}
	b = load("old_kernel.status", &len);
	assert_int_equal(procfs_parse_status(b, len, &st), 0);
	assert_int_equal(st.valid, PROCFS_STATUS_HWM | PROCFS_STATUS_RSS);
	assert_int_equal(st.anon_kib, 0);
	free(b);
	const char *bad[] = {"bad_status_truncated.status", "bad_status_overflow.status",
			     "bad_status_garbage.status"};
	for (size_t i = 0; i < 3; i++) {
		b = load(bad[i], &len);
		assert_int_equal(procfs_parse_status(b, len, &st), -EINVAL);
		assert_int_equal(st.valid, 0);
		/* and every prefix of it parses or fails, never reads past */
		for (size_t n = 0; n <= len; n++) {
			char *p = malloc(n ? n : 1);
			memcpy(p, b, n);
			int r = procfs_parse_status(p, n, &st);
			assert_true(r == 0 || r == -EINVAL);
			free(p);
		}
		free(b);
	}
}

static void test_statm_bad(void **state)
{
	(void)state;
	static const char *const files[] = {
		"bad_statm_truncated.statm", "bad_statm_garbage.statm", "bad_statm_overflow.statm",
		"proc_threads.stat", "empty.children",
	};
	static const char *const texts[] = {
		"1 2 3 4 5 6", "1 2 3 4 5 6 7 8", "1 2 3 4 5 6 7\n\n", "1  2 3 4 5 6 7", " 1 2 3 4 5 6 7",
		"1 2 3 4 5 6 -7",
	};
	struct procfs_statm m;
	size_t len;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *b = load(files[i], &len);

		assert_int_equal(procfs_parse_statm(b, len, &m), -EINVAL);
		free(b);
	}
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *b = dup_exact(texts[i], &len);

		if (procfs_parse_statm(b, len, &m) != -EINVAL)
			fail_msg("accepted: \"%s\"", texts[i]);
		free(b);
	}
}

static void test_rollup(void **state)
{
	(void)state;
	struct procfs_rollup r;
	size_t len;
	char *b = load("proc_threads.smaps_rollup", &len);

	assert_int_equal(procfs_parse_smaps_rollup(b, len, &r), 0);
	assert_int_equal(r.valid, PROCFS_ROLLUP_RSS | PROCFS_ROLLUP_PSS | PROCFS_ROLLUP_SPLIT |
					  PROCFS_ROLLUP_SWAP | PROCFS_ROLLUP_ANON | PROCFS_ROLLUP_PRIVATE |
					  PROCFS_ROLLUP_THP | PROCFS_ROLLUP_LOCKED);
	assert_int_equal(r.private_kib, 64); /* 0 clean + 64 dirty */
	assert_int_equal(r.thp_kib, 0);
	assert_int_equal(r.locked_kib, 0);
	free(b);
	/* mapkinds: 64 MiB in huge pages, 16 MiB locked */
	b = load("mapkinds.smaps_rollup", &len);
	assert_int_equal(procfs_parse_smaps_rollup(b, len, &r), 0);
	assert_int_equal(r.thp_kib, 65536);
	assert_int_equal(r.locked_kib, 16384);
	assert_int_equal(r.rss_kib, 117180);
	free(b);
	b = load("proc_threads.smaps_rollup", &len);
	assert_int_equal(procfs_parse_smaps_rollup(b, len, &r), 0);
	assert_int_equal(r.rss_kib, 66872);
	assert_int_equal(r.anon_kib, 65660);
	assert_int_equal(r.pss_kib, 22095);
	assert_int_equal(r.pss_anon_kib, 21926);
	assert_int_equal(r.pss_file_kib, 169);
	assert_int_equal(r.pss_shmem_kib, 0);
	assert_int_equal(r.swap_kib, 0);
	free(b);

	b = load("proc_space_paren.smaps_rollup", &len);
	assert_int_equal(procfs_parse_smaps_rollup(b, len, &r), 0);
	assert_int_equal(r.rss_kib, 1884);
	assert_int_equal(r.pss_kib, 430);
	assert_int_equal(r.pss_anon_kib, 108);
	assert_int_equal(r.pss_file_kib, 322);
	free(b);

	/* Before 5.7 there is no split: its bit stays clear. */
	b = load("old_kernel.smaps_rollup", &len);
	assert_int_equal(procfs_parse_smaps_rollup(b, len, &r), 0);
	assert_int_equal(r.valid, PROCFS_ROLLUP_RSS | PROCFS_ROLLUP_PSS | PROCFS_ROLLUP_SWAP |
					  PROCFS_ROLLUP_ANON | PROCFS_ROLLUP_PRIVATE | PROCFS_ROLLUP_THP |
					  PROCFS_ROLLUP_LOCKED);
	assert_int_equal(r.pss_kib, 22095);
	assert_int_equal(r.pss_anon_kib, 0);
	free(b);

	/* Only Pss: the rest unknown. Tabs and no final newline are fine. */
	b = dup_exact("Pss:\t18446744073709551615 kB", &len);
	assert_int_equal(procfs_parse_smaps_rollup(b, len, &r), 0);
	assert_int_equal(r.valid, PROCFS_ROLLUP_PSS);
	assert_true(r.pss_kib == UINT64_MAX);
	free(b);
}

static void test_rollup_bad(void **state)
{
	(void)state;
	static const char *const files[] = {
		"bad_rollup_truncated.smaps_rollup", "bad_rollup_nopss.smaps_rollup",
		"bad_rollup_overflow.smaps_rollup", "bad_rollup_empty.smaps_rollup",
		"bad_rollup_private_overflow.smaps_rollup", "proc_threads.stat",
	};
	static const char *const texts[] = {
		"Pss:", "Pss: kB", "Pss: 12", "Pss: 12 k", "Pss: 12 MB", "Pss: -12 kB", "Pss: 12 kB x",
		"Pss: 1 kB\nPss: 2 kB\n", "Rss: 1 kB\n", "Pss_Anon: 1 kB\n", "Pss: 12\0 kB",
	};
	static const size_t text_len[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12 };
	struct procfs_rollup r;
	size_t len;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *b = load(files[i], &len);

		assert_int_equal(procfs_parse_smaps_rollup(b, len, &r), -EINVAL);
		assert_int_equal(r.valid, 0);
		free(b);
	}
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		len = text_len[i] ? text_len[i] : strlen(texts[i]);
		char *b = malloc(len);

		memcpy(b, texts[i], len);
		if (procfs_parse_smaps_rollup(b, len, &r) != -EINVAL)
			fail_msg("accepted: \"%s\"", texts[i]);
		assert_true(r.rss_kib == 0 && r.pss_kib == 0 && r.valid == 0);
		free(b);
	}
}

static void test_children(void **state)
{
	(void)state;
	pid_t pids[4] = { 0 };
	size_t len;
	char *b = load("proc_threads.children", &len);

	assert_int_equal(procfs_parse_children(b, len, pids, 4), 2);
	assert_int_equal(pids[0], 26120);
	assert_int_equal(pids[1], 26121);
	/* More than max: counted, not stored. */
	memset(pids, 0, sizeof(pids));
	assert_int_equal(procfs_parse_children(b, len, pids, 1), 2);
	assert_int_equal(pids[0], 26120);
	assert_int_equal(pids[1], 0);
	assert_int_equal(procfs_parse_children(b, len, NULL, 0), 2);
	free(b);

	b = load("empty.children", &len);
	assert_int_equal(procfs_parse_children(b, len, pids, 4), 0);
	free(b);

	b = load("bad_children_garbage.children", &len);
	assert_int_equal(procfs_parse_children(b, len, pids, 4), -EINVAL);
	free(b);

	static const char *const bad[] = { "12 34", "0 ", "-1 ", "2147483648 ", "1,2 " };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = dup_exact(bad[i], &len);
		if (procfs_parse_children(b, len, pids, 4) != -EINVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
		free(b);
	}
	b = dup_exact("2147483647 \n", &len);
	assert_int_equal(procfs_parse_children(b, len, pids, 4), 1);
	assert_int_equal(pids[0], 2147483647);
	free(b);
}

/* Every prefix of a valid file either fails or gives exactly the full file's
 * values: a read cut short must never yield a wrong number. */
static void test_every_prefix(void **state)
{
	(void)state;
	static const char *const stats[] = {
		"proc_space_paren.stat", "proc_threads.stat", "proc_threads_task.stat",
		"proc_kthread.stat", "proc_kworker_longname.stat",
	};
	static const char *const statms[] = { "proc_threads.statm", "proc_space_paren.statm" };
	static const char *const rollups[] = { "proc_threads.smaps_rollup",
					       "proc_space_paren.smaps_rollup" };
	size_t len;

	for (size_t f = 0; f < sizeof(stats) / sizeof(stats[0]); f++) {
		char *b = load(stats[f], &len);
		struct procfs_stat full, st;

		assert_int_equal(procfs_parse_stat(b, len, &full), 0);
		for (size_t n = 0; n < len; n++) {
			char *p = malloc(n ? n : 1);

			memcpy(p, b, n);
			if (procfs_parse_stat(p, n, &st) == 0)
				assert_memory_equal(&st, &full, sizeof(st));
			free(p);
		}
		free(b);
	}
	for (size_t f = 0; f < sizeof(statms) / sizeof(statms[0]); f++) {
		char *b = load(statms[f], &len);
		struct procfs_statm full, m;

		assert_int_equal(procfs_parse_statm(b, len, &full), 0);
		for (size_t n = 0; n < len; n++) {
			char *p = malloc(n ? n : 1);

			memcpy(p, b, n);
			if (procfs_parse_statm(p, n, &m) == 0)
				assert_memory_equal(&m, &full, sizeof(m));
			free(p);
		}
		free(b);
	}
	for (size_t f = 0; f < sizeof(rollups) / sizeof(rollups[0]); f++) {
		char *b = load(rollups[f], &len);
		struct procfs_rollup full, r;

		assert_int_equal(procfs_parse_smaps_rollup(b, len, &full), 0);
		for (size_t n = 0; n < len; n++) {
			char *p = malloc(n ? n : 1);

			memcpy(p, b, n);
			if (procfs_parse_smaps_rollup(p, n, &r) == 0) {
				assert_true((r.valid & full.valid) == r.valid);
				if (r.valid & PROCFS_ROLLUP_RSS)
					assert_int_equal(r.rss_kib, full.rss_kib);
				assert_int_equal(r.pss_kib, full.pss_kib);
				if (r.valid & PROCFS_ROLLUP_SPLIT)
					assert_int_equal(r.pss_anon_kib, full.pss_anon_kib);
			}
			free(p);
		}
		free(b);
	}
	{
		char *b = load("proc_threads.children", &len);
		pid_t pids[4];

		for (size_t n = 0; n < len; n++) {
			char *p = malloc(n ? n : 1);
			int k;

			memcpy(p, b, n);
			k = procfs_parse_children(p, n, pids, 4);
			assert_true(k == -EINVAL || k == 0 || (k == 1 && pids[0] == 26120));
			free(p);
		}
		free(b);
	}
}

/* Writes the children text for pids base, base+1, ... (n of them) to a fresh
 * temporary file and returns it open for reading. */
static int children_file(pid_t base, int n)
{
	char path[] = "/tmp/test_procfs_children.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	unlink(path);
	f = fdopen(dup(fd), "w");
	assert_non_null(f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%d ", (int)(base + i));
	assert_int_equal(fclose(f), 0);
	return fd;
}

/* A children file past 8 KiB (1,500 seven-digit pids, 12 KiB) is read whole
 * and every pid comes back, with the buffers grown from nothing; a smaller
 * file then reuses them. */
static void test_read_children_large(void **state)
{
	(void)state;
	char *buf = NULL;
	pid_t *pids = NULL;
	size_t buf_cap = 0, pids_cap = 0;
	int fd = children_file(4000000, 1500);

	assert_int_equal(procfs_read_children(fd, &buf, &buf_cap, &pids, &pids_cap), 1500);
	assert_true(buf_cap > 12000);
	for (int i = 0; i < 1500; i++)
		assert_int_equal(pids[i], 4000000 + i);
	/* a fresh snapshot on each call, from offset 0 */
	assert_int_equal(procfs_read_children(fd, &buf, &buf_cap, &pids, &pids_cap), 1500);
	assert_int_equal(pids[1499], 4001499);
	close(fd);

	fd = children_file(300, 3);
	assert_int_equal(procfs_read_children(fd, &buf, &buf_cap, &pids, &pids_cap), 3);
	assert_int_equal(pids[0], 300);
	assert_int_equal(pids[2], 302);
	close(fd);

	fd = children_file(1, 0);
	assert_int_equal(procfs_read_children(fd, &buf, &buf_cap, &pids, &pids_cap), 0);
	close(fd);
	assert_int_equal(procfs_read_children(-1, &buf, &buf_cap, &pids, &pids_cap), -EINVAL);
	free(buf);
	free(pids);
}

/* Random bytes, and random damage to real files, never crash a parser (run
 * under -fsanitize=address,undefined to make "crash" mean any bad access). */
static void test_random_input(void **state)
{
	(void)state;
	static const char *const files[] = {
		"proc_threads.stat", "proc_threads.statm", "proc_threads.smaps_rollup",
		"proc_threads.children", "proc_space_paren.stat",
	};
	static const char alphabet[] = "0123456789 ()\n:kBPsRSwa_-\t";
	struct procfs_rollup r;
	struct procfs_stat st;
	struct procfs_statm m;
	pid_t pids[8];
	unsigned seed = 12345;

	for (int iter = 0; iter < 20000; iter++) {
		size_t len = (size_t)(rand_r(&seed) % 300);
		char *b = malloc(len ? len : 1);

		for (size_t i = 0; i < len; i++)
			b[i] = (iter & 1) ? (char)rand_r(&seed)
					  : alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
		(void)procfs_parse_stat(b, len, &st);
		(void)procfs_parse_statm(b, len, &m);
		(void)procfs_parse_smaps_rollup(b, len, &r);
		(void)procfs_parse_children(b, len, pids, 8);
		free(b);
	}
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t len;
		char *orig = load(files[f], &len);

		for (int iter = 0; iter < 2000; iter++) {
			char *b = malloc(len);

			memcpy(b, orig, len);
			for (int k = 1 + rand_r(&seed) % 4; k > 0; k--)
				b[(size_t)rand_r(&seed) % len] = (char)rand_r(&seed);
			(void)procfs_parse_stat(b, len, &st);
			(void)procfs_parse_statm(b, len, &m);
			(void)procfs_parse_smaps_rollup(b, len, &r);
			(void)procfs_parse_children(b, len, pids, 8);
			free(b);
		}
		free(orig);
	}
}

/* The I/O helpers on this process: no fixture can stand in for open/pread. */
static void test_read_self(void **state)
{
	(void)state;
	char buf[4096];
	struct procfs_stat st;
	ssize_t n = procfs_read(getpid(), "stat", buf, sizeof(buf));
	int fd;

	assert_true(n > 0);
	assert_int_equal(buf[n], '\0');
	assert_int_equal(procfs_parse_stat(buf, (size_t)n, &st), 0);
	assert_int_equal(st.pid, getpid());
	assert_int_equal(st.ppid, getppid());

	/* A reused fd reads from offset 0 every time. */
	fd = procfs_open(getpid(), getpid(), "stat");
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	for (int i = 0; i < 3; i++) {
		n = procfs_pread(fd, buf, sizeof(buf));
		assert_true(n > 0);
		assert_int_equal(procfs_parse_stat(buf, (size_t)n, &st), 0);
		assert_int_equal(st.pid, getpid());
	}
	/* A small buffer: cap - 1 bytes and a NUL. */
	n = procfs_pread(fd, buf, 8);
	assert_int_equal(n, 7);
	assert_int_equal(strlen(buf), 7);
	n = procfs_pread(fd, buf, 1);
	assert_int_equal(n, 0);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(procfs_pread(fd, buf, 0), -EINVAL);
	close(fd);

	/* smaps_rollup, read whole. */
	n = procfs_read(getpid(), "smaps_rollup", buf, sizeof(buf));
	assert_true(n > 0);
	struct procfs_rollup r;

	assert_int_equal(procfs_parse_smaps_rollup(buf, (size_t)n, &r), 0);
	assert_true(r.valid & PROCFS_ROLLUP_PSS);
	assert_true(r.pss_kib > 0);
}

/* The names of the lines of a "Key: value" file, in order. */
static void line_keys(const char *buf, char *out, size_t cap)
{
	size_t k = 0;

	for (const char *p = buf; *p && k + 1 < cap; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		const char *colon = strchr(p, ':');
		const char *nl = strchr(p, '\n');
		if (colon && (!nl || colon < nl)) {
			size_t n = (size_t)(colon - p);
			if (k + n + 2 >= cap)
				break;
			memcpy(out + k, p, n);
			k += n;
			out[k++] = ',';
		}
	}
	out[k] = '\0';
}

static void test_read_once_is_whole(void **state)
{
	(void)state;
	char a[8192], b[8192], ka[2048], kb[2048];
	int fd = procfs_open(getpid(), 0, "smaps_rollup");

	/* One read gives every line a read to the end gives. */
	assert_true(fd >= 0);
	ssize_t n1 = procfs_pread_once(fd, a, sizeof(a));
	ssize_t n2 = procfs_pread(fd, b, sizeof(b));
	assert_true(n1 > 0 && n2 > 0);
	line_keys(a, ka, sizeof(ka));
	line_keys(b, kb, sizeof(kb));
	assert_string_equal(ka, kb);
	assert_true(strstr(ka, "Pss,") != NULL);
	/* A buffer too small for the text: the first cap - 1 bytes, as before. */
	assert_int_equal(procfs_pread_once(fd, a, 10), 9);
	assert_int_equal(strlen(a), 9);
	assert_int_equal(memcmp(a, b, 9), 0);
	assert_int_equal(procfs_pread_once(fd, a, 0), -EINVAL);
	close(fd);

	/* A command line of several pages comes whole from one read. */
	static char big[20000];
	memset(big, 'x', sizeof(big) - 1);
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	pid_t child = fork();
	if (child == 0) {
		dup2(pfd[0], 0);
		close(pfd[1]);
		execl("/bin/cat", "cat", "-", big, (char *)NULL);
		_exit(127);
	}
	assert_true(child > 0);
	close(pfd[0]);
	static char cmd[32768];
	ssize_t want = (ssize_t)(strlen("cat") + 1 + strlen("-") + 1 + strlen(big) + 1);
	ssize_t n = 0;
	for (int i = 0; i < 500 && n != want; i++) { /* until it has exec'd */
		n = procfs_read(child, "cmdline", cmd, sizeof(cmd));
		if (n != want)
			usleep(2000);
	}
	assert_int_equal(n, want);
	assert_string_equal(cmd + n - 1 - strlen(big), big);
	close(pfd[1]); /* cat reads end of input, fails on "xxx..." and exits */
	assert_int_equal(waitpid(child, NULL, 0), child);
}

static void test_read_gone(void **state)
{
	(void)state;
	char buf[512];
	pid_t child = fork();
	int fd;

	if (child == 0)
		_exit(0);
	assert_true(child > 0);
	fd = procfs_open(child, 0, "stat");
	assert_true(fd >= 0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	/* Reaped: an open fd reads ESRCH, a new open finds nothing. */
	assert_int_equal(procfs_pread(fd, buf, sizeof(buf)), -ESRCH);
	assert_int_equal(procfs_pread_once(fd, buf, sizeof(buf)), -ESRCH);
	close(fd);
	assert_int_equal(procfs_open(child, 0, "stat"), -ENOENT);
	assert_int_equal(procfs_read(child, "statm", buf, sizeof(buf)), -ENOENT);

	assert_int_equal(procfs_open(0, 0, "stat"), -EINVAL);
	assert_int_equal(procfs_open(1, -1, "stat"), -EINVAL);
	assert_int_equal(procfs_open(1, 0, ""), -EINVAL);
	assert_int_equal(procfs_open(1, 0, NULL), -EINVAL);
	assert_int_equal(procfs_pread(-1, buf, sizeof(buf)), -EINVAL);
}

static void test_constants(void **state)
{
	(void)state;
	assert_int_equal(procfs_hz(), sysconf(_SC_CLK_TCK));
	assert_int_equal(procfs_hz(), sysconf(_SC_CLK_TCK));
	assert_int_equal(procfs_page_kib(), sysconf(_SC_PAGESIZE) / 1024);
}

/* procfs_started_near on numbers: hz 100, a process forked at 5.0234 s of
 * boot time has starttime 502 (rounded down to the tick). */
static void test_started_near(void **state)
{
	(void)state;
	const uint64_t ms = 1000000ull, slack = 20 * ms;

	assert_true(procfs_started_near(502, 100, 5023400000ull, slack));
	assert_true(procfs_started_near(502, 100, 5020000000ull, slack));
	assert_true(procfs_started_near(502, 100, 5049000000ull, slack));
	/* the pid went to a process forked 60 ms later, or was another's 60 ms before */
	assert_false(procfs_started_near(508, 100, 5023400000ull, slack));
	assert_false(procfs_started_near(496, 100, 5023400000ull, slack));
	/* hz 250: tick 4 ms */
	assert_true(procfs_started_near(1255, 250, 5023400000ull, slack));
	assert_false(procfs_started_near(1275, 250, 5023400000ull, slack));
}

/* And on a real process: the start /proc shows for a child fits the time
 * around its fork (CLOCK_MONOTONIC plus the boot offset, as the collector
 * converts a fork event's time), and does not fit 100 ms later. */
static void test_started_near_live(void **state)
{
	(void)state;
	struct timespec m0, m1, b0, b1;
	char buf[1024];
	struct procfs_stat ps;

	clock_gettime(CLOCK_BOOTTIME, &b0);
	clock_gettime(CLOCK_MONOTONIC, &m0);
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &m1);
	clock_gettime(CLOCK_BOOTTIME, &b1);
	assert_true(pid > 0);
	ssize_t n = procfs_read(pid, "stat", buf, sizeof(buf));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_true(n > 0);
	assert_int_equal(procfs_parse_stat(buf, (size_t)n, &ps), 0);
	uint64_t mono = ((uint64_t)m0.tv_sec * 1000000000ull + (uint64_t)m0.tv_nsec +
			 (uint64_t)m1.tv_sec * 1000000000ull + (uint64_t)m1.tv_nsec) / 2;
	uint64_t off = (uint64_t)b0.tv_sec * 1000000000ull + (uint64_t)b0.tv_nsec -
		       ((uint64_t)m0.tv_sec * 1000000000ull + (uint64_t)m0.tv_nsec);
	assert_true(procfs_started_near(ps.starttime_ticks, procfs_hz(), mono + off, 20000000ull));
	assert_false(procfs_started_near(ps.starttime_ticks, procfs_hz(), mono + off + 100000000ull,
					 20000000ull));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_comm_with_space_and_paren),
		cmocka_unit_test(test_stat_threads),
		cmocka_unit_test(test_stat_args),
		cmocka_unit_test(test_stat_ended),
		cmocka_unit_test(test_stat_kernel_threads),
		cmocka_unit_test(test_stat_bad),
		cmocka_unit_test(test_stat_minimal),
		cmocka_unit_test(test_statm),
		cmocka_unit_test(test_statm_bad),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_rollup),
		cmocka_unit_test(test_rollup_bad),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_read_children_large),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_random_input),
		cmocka_unit_test(test_read_self),
		cmocka_unit_test(test_read_once_is_whole),
		cmocka_unit_test(test_read_gone),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_started_near),
		cmocka_unit_test(test_started_near_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
