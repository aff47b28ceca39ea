/* Unit tests for the recorder thread: everything pushed to a store while it
 * runs reaches the database; a full output queue drops and says so; a full
 * disk stops the recording without stopping the caller. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "recdb.h"
#include "moment.h"
#include "recorder.h"
#include "store.h"

#define MS 1000000ull
#define SEC 1000000000ull

static char dir[64];

static int setup_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_recorder.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "%s/tiny", dir);
	umount2(cmd, MNT_DETACH); /* left mounted by a failed test_full_disk */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

static struct sample mk_sample(uint64_t t, uint64_t i)
{
	struct sample s;

	memset(&s, 0, sizeof(s));
	s.t_ns = t;
	s.pss_kib = 10 * i + 1;
	s.pss_anon_kib = 10 * i + 2;
	s.rss_kib = 10 * i + 3;
	s.minflt = 10 * i + 4;
	s.utime_us = 10 * i + 5;
	s.live_procs = (uint32_t)i;
	s.total_procs = (uint32_t)i + 1;
	s.valid = SAMPLE_PSS | SAMPLE_RSS | SAMPLE_FAULTS | SAMPLE_CPU | SAMPLE_COUNTS;
	return s;
}

static struct proc_rec mk_proc(struct store *st, uint64_t id, uint64_t t)
{
	struct proc_rec r;
	char argv[32];
	int n = snprintf(argv, sizeof(argv), "job%u%c--n=%u", (unsigned)id, 0, (unsigned)id);

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.pid = (pid_t)(1000 + id);
	r.ppid = 1000;
	r.start_ns = t;
	r.argv_id = store_str_intern(st, argv, (size_t)n);
	snprintf(r.comm, sizeof(r.comm), "job%u", (unsigned)id);
	r.threads = 1;
	r.valid = PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS | PROC_V_ARGV;
	return r;
}

/* Pushes samples, events, processes (started, updated, ended), per-process
 * samples, execs and output for about 1.2 s with a 50 ms recorder; then
 * checks the database holds every sample exactly, every event, every process
 * in its final state, every per-process sample, every exec (one named after
 * the fact) and every output line. */
static void test_records_everything(void **state)
{
	struct recorder_config cfg = { .interval_ms = 50, .settle_ns = 100 * MS };
	enum { NS = 3000, NP = 40 };
	static struct sample pushed[NS], got[NS + 1];
	struct recdb_run_info info = { .start_wall_ns = 1, .attached = 0 };
	struct proc_rec procs[NP], a[NP], b[NP];
	struct store_summary sum;
	struct recorder_stats stats;
	struct recdb_run_row *rows;
	struct store_exec ex[NP], ey[NP];
	char path[128], msg[256];
	struct store *st, *back;
	struct recorder *r;
	struct recdb *db;
	uint64_t t0 = now_ns(), cur = 0;
	int64_t run_id;
	size_t nexecs = 0, nps = 0;
	ssize_t n;
	/* room for every per-process sample: the live store then holds all the
	 * recording does, and both answer alike at any instant */
	struct store_config sc = { .proc_samples_len = 65536 };

	(void)state;
	snprintf(path, sizeof(path), "%s/rec.db", dir);
	st = store_new(&sc);
	assert_non_null(st);
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	info.base_ns = t0;
	assert_int_equal(recdb_run_begin(db, &info, &run_id), 0);
	r = recorder_start(st, db, run_id, &cfg);
	assert_non_null(r);
	for (uint64_t i = 0; i < NS; i++) {
		uint64_t t = t0 + i * 400000; /* 0.4 ms apart: 1.2 s of samples */
		struct store_event e = { .t_ns = t, .type = STORE_EV_FORK, .pid = (pid_t)i,
					 .ppid = 1, .arg = (int64_t)i };
		char line[64];
		int len;

		pushed[i] = mk_sample(t, i);
		store_push_sample(st, &pushed[i]);
		if (i % 10 == 0)
			store_push_event(st, &e);
		if (i % 75 == 0 && i / 75 < NP) { /* a process starts, execs */
			size_t k = i / 75;
			struct store_exec x;

			procs[k] = mk_proc(st, k + 1, t);
			assert_int_equal(store_proc_update(st, &procs[k]), 0);
			memset(&x, 0, sizeof(x));
			x.t_ns = t;
			x.pid = procs[k].pid;
			x.ppid = 1000;
			x.argv_id = procs[k].argv_id;
			if (k != 5)
				memcpy(x.comm, procs[k].comm, 16);
			store_push_exec(st, &x);
			nexecs++;
		}
		if (i == 2000)
			store_exec_set_comm(st, 5, "late-name\0\0\0\0\0\0");
		if (i % 7 == 0) { /* the live ones move; some end */
			for (size_t k = 0; k < NP && k * 75 <= i; k++) {
				if (procs[k].end_ns)
					continue;
				procs[k].pss_kib = i + k;
				procs[k].rss_kib = 2 * i + k;
				procs[k].utime_us = i;
				procs[k].minflt = i / 2;
				if (procs[k].pss_kib > procs[k].peak_pss_kib) {
					procs[k].peak_pss_kib = procs[k].pss_kib;
					procs[k].peak_pss_t_ns = t;
				}
				if (k % 3 == 0 && i > k * 75 + 300) {
					procs[k].end_ns = t;
					procs[k].exit_status = (int)k;
					procs[k].valid |= PROC_V_EXIT;
				}
				assert_int_equal(store_proc_update(st, &procs[k]), 0);
				if (!procs[k].end_ns) { /* as the collector does at its ticks */
					struct store_proc_sample ps = {
						.id = procs[k].id, .t_ns = t, .pss_kib = procs[k].pss_kib,
						.rss_kib = procs[k].rss_kib, .cpu_us = procs[k].utime_us,
						.valid = PROC_V_PSS | PROC_V_RSS | PROC_V_CPU};
					store_push_proc_samples(st, &ps, 1);
					nps++;
				}
			}
		}
		len = snprintf(line, sizeof(line), "line %u", (unsigned)i);
		recorder_output(r, t, line, (size_t)len); /* as run_output() does */
		assert_int_equal(store_push_line(st, t, line, (size_t)len), 0);
		if (i % 100 == 0)
			usleep(40000);
	}
	/* a late update of a record settled long ago (exit figures come after
	 * the exit): only the final pass looks at it */
	usleep(200000);
	assert_true(procs[0].end_ns != 0);
	procs[0].utime_us = 987654;
	assert_int_equal(store_proc_update(st, &procs[0]), 0);
	store_summary_get(st, &sum);
	sum.start_ns = t0;
	sum.end_ns = pushed[NS - 1].t_ns;
	sum.exited = 1;
	sum.peak = pushed[NS - 1];
	sum.last = pushed[NS - 1];
	sum.total_execs = (uint32_t)nexecs;
	store_summary_set(st, &sum);
	assert_int_equal(recorder_finish(r, RECDB_END_EXITED), 0);
	recorder_error(r, msg, sizeof(msg));
	assert_string_equal(msg, "");
	recorder_stats(r, &stats);
	assert_true(stats.batches >= 10); /* it wrote while the run went on */
	assert_int_equal(stats.samples, NS);
	assert_int_equal(stats.samples_missed, 0);
	assert_int_equal(stats.psamples, nps);
	assert_int_equal(stats.psamples_missed, 0);
	assert_int_equal(stats.lines, NS);
	assert_int_equal(stats.lines_dropped, 0);
	assert_false(stats.failed);
	recorder_free(r);
	recdb_close(db);

	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_load(db, run_id, &back), 0);
	assert_int_equal(store_samples(back, &cur, got, NS + 1, NULL), NS);
	for (size_t i = 0; i < NS; i++) {
		assert_int_equal(got[i].t_ns, pushed[i].t_ns);
		assert_int_equal(got[i].pss_kib, pushed[i].pss_kib);
		assert_int_equal(got[i].pss_anon_kib, pushed[i].pss_anon_kib);
		assert_int_equal(got[i].rss_kib, pushed[i].rss_kib);
		assert_int_equal(got[i].minflt, pushed[i].minflt);
		assert_int_equal(got[i].utime_us, pushed[i].utime_us);
		assert_int_equal(got[i].live_procs, pushed[i].live_procs);
		assert_int_equal(got[i].valid, pushed[i].valid);
	}
	{
		struct store_event ev[NS];
		uint64_t c = 0;

		assert_int_equal(store_events(back, &c, ev, NS, NULL), NS / 10);
		assert_int_equal(ev[NS / 10 - 1].arg, NS - 10);
	}
	assert_int_equal(store_procs(st, STORE_PROCS_ALL, a, NP), NP);
	assert_int_equal(store_procs(back, STORE_PROCS_ALL, b, NP), NP);
	for (size_t k = 0; k < NP; k++) {
		char sa[64], sb[64];
		ssize_t la = store_str_get(st, a[k].argv_id, sa, sizeof(sa));
		ssize_t lb = store_str_get(back, b[k].argv_id, sb, sizeof(sb));

		assert_int_equal(a[k].id, b[k].id);
		assert_int_equal(a[k].end_ns, b[k].end_ns);
		assert_int_equal(a[k].pss_kib, b[k].pss_kib);
		assert_int_equal(a[k].peak_pss_kib, b[k].peak_pss_kib);
		assert_int_equal(a[k].peak_pss_t_ns, b[k].peak_pss_t_ns);
		assert_int_equal(a[k].utime_us, b[k].utime_us);
		assert_int_equal(a[k].exit_status, b[k].exit_status);
		assert_int_equal(a[k].valid, b[k].valid);
		assert_string_equal(a[k].comm, b[k].comm);
		assert_int_equal(la, lb);
		assert_memory_equal(sa, sb, (size_t)la);
	}
	assert_int_equal(store_execs(back, 0, ey, NP), nexecs);
	store_execs(st, 0, ex, NP);
	for (size_t k = 0; k < nexecs; k++) {
		assert_int_equal(ex[k].t_ns, ey[k].t_ns);
		assert_string_equal(ex[k].comm, ey[k].comm);
	}
	assert_string_equal(ey[5].comm, "late-name");
	/* the run at a dozen instants: the same from the store filled live and
	 * from the one loaded from its recording */
	for (int k = 0; k < 12; k++) {
		uint64_t at = t0 + (uint64_t)k * 110 * MS;
		struct moment ml, mr;
		assert_int_equal(moment_take(st, at, at, 50, &ml), 0);
		assert_int_equal(moment_take(back, at, at, 50, &mr), 0);
		assert_int_equal(ml.nprocs, mr.nprocs);
		assert_int_equal(ml.made, mr.made);
		assert_int_equal(ml.finished, mr.finished);
		assert_true(k == 0 || ml.nprocs > 0);
		for (size_t j = 0; j < ml.nprocs; j++) {
			assert_int_equal(ml.procs[j].id, mr.procs[j].id);
			assert_int_equal(ml.procs[j].pid, mr.procs[j].pid);
			assert_int_equal(ml.procs[j].start_ns, mr.procs[j].start_ns);
			assert_int_equal(ml.procs[j].pss_kib, mr.procs[j].pss_kib);
			assert_int_equal(ml.procs[j].rss_kib, mr.procs[j].rss_kib);
			assert_int_equal(ml.procs[j].utime_us, mr.procs[j].utime_us);
			assert_int_equal(ml.procs[j].valid, mr.procs[j].valid);
			assert_int_equal(ml.procs[j].end_ns, 0);
		}
		/* a process's figures are its last sample's at or before then:
		 * pss i + (id - 1) at the push of tick i, every 7th tick */
		for (size_t j = 0; j < mr.nprocs; j++)
			if (mr.procs[j].valid & PROC_V_PSS) {
				uint64_t i = mr.procs[j].pss_kib - (mr.procs[j].id - 1);
				assert_true(t0 + i * 400000 <= at && (t0 + (i + 7) * 400000 > at || i + 7 >= NS));
			}
		assert_int_equal(ml.nlines, mr.nlines);
		assert_int_equal(ml.nlines, at >= t0 ? (size_t)((at - t0) / 400000 + 1 < 50 ? (at - t0) / 400000 + 1 : 50) : 0);
		for (size_t j = 0; j < ml.nlines; j++) {
			assert_int_equal(ml.lines[j].t_ns, mr.lines[j].t_ns);
			assert_int_equal(ml.lines[j].len, mr.lines[j].len);
			assert_memory_equal(ml.lines[j].bytes, mr.lines[j].bytes, ml.lines[j].len);
		}
		moment_free(&ml);
		moment_free(&mr);
	}
	{
		struct store_summary sl, sr;
		store_summary_get(st, &sl);
		store_summary_get(back, &sr);
		assert_int_equal(sl.peak.pss_kib, sr.peak.pss_kib);
		assert_int_equal(sl.peak.t_ns, sr.peak.t_ns);
		assert_int_equal(sl.end_ns, sr.end_ns);
		assert_int_equal(sl.exited, sr.exited);
		assert_int_equal(sl.total_execs, sr.total_execs);
		assert_int_equal(sl.last.total_procs, sr.last.total_procs);
	}
	store_free(back);

	n = recdb_runs(db, &rows);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].incomplete, 0);
	assert_int_equal(rows[0].end, RECDB_END_EXITED);
	recdb_runs_free(rows, (size_t)n);
	recdb_close(db);
	store_free(st);
}

/* A queue too small for the output drops lines, a ring too small for the
 * per-process samples loses the oldest; both are counted, and the run is
 * marked incomplete with a note. */
static void test_output_drops(void **state)
{
	struct recorder_config cfg = { .interval_ms = 60000, .output_bytes = 256 };
	struct recdb_run_info info = { .start_wall_ns = 1, .base_ns = 1 };
	struct recorder_stats stats;
	struct recdb_run_row *rows;
	char path[128], msg[256];
	struct store_config sc = { .proc_samples_len = 4 };
	struct store *st = store_new(&sc);
	struct recorder *r;
	struct recdb *db;
	int64_t run_id;
	ssize_t n;

	(void)state;
	snprintf(path, sizeof(path), "%s/drops.db", dir);
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_run_begin(db, &info, &run_id), 0);
	r = recorder_start(st, db, run_id, &cfg);
	assert_non_null(r);
	for (int i = 0; i < 100; i++)
		recorder_output(r, 10 + (uint64_t)i, "0123456789012345678901234567890123456789", 40);
	/* and a per-process sample ring of 4 overrun by 10 before the write */
	for (uint64_t i = 0; i < 10; i++) {
		struct store_proc_sample ps = {.id = 1, .t_ns = 10 + i, .pss_kib = i, .valid = PROC_V_PSS};
		store_push_proc_samples(st, &ps, 1);
	}
	assert_int_equal(recorder_finish(r, RECDB_END_INTERRUPTED), 0);
	recorder_stats(r, &stats);
	assert_true(stats.lines > 0);
	assert_true(stats.lines_dropped > 0);
	assert_int_equal(stats.lines + stats.lines_dropped, 100);
	assert_int_equal(stats.bytes_dropped, stats.lines_dropped * 40);
	assert_int_equal(stats.psamples, 4);
	assert_int_equal(stats.psamples_missed, 6);
	recorder_free(r);
	n = recdb_runs(db, &rows);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].incomplete, 1);
	assert_int_equal(rows[0].end, RECDB_END_INTERRUPTED);
	assert_non_null(rows[0].note);
	assert_non_null(strstr(rows[0].note, "output lines"));
	assert_non_null(strstr(rows[0].note, "6 per-process samples"));
	recdb_runs_free(rows, (size_t)n);
	recdb_close(db);
	store_free(st);
}

/* A burst of output far larger than the queue's first buffers (256 KiB):
 * they grow, and 200,000 lines (11 MB) pushed at once, faster than any
 * write, are all recorded, none dropped. */
static void test_output_burst(void **state)
{
	struct recorder_config cfg = { .interval_ms = 60000 };
	struct recdb_run_info info = { .start_wall_ns = 1, .base_ns = 1 };
	struct recorder_stats stats;
	char path[128], msg[256], line[48];
	struct store *st = store_new(NULL);
	struct recorder *r;
	struct recdb *db;
	int64_t run_id;
	enum { N = 200000 };

	(void)state;
	snprintf(path, sizeof(path), "%s/burst.db", dir);
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_run_begin(db, &info, &run_id), 0);
	r = recorder_start(st, db, run_id, &cfg);
	assert_non_null(r);
	for (int i = 0; i < N; i++) {
		int n = snprintf(line, sizeof(line), "line %09d of the burst, 40 bytes", i);
		recorder_output(r, 10 + (uint64_t)i, line, (size_t)n);
	}
	assert_int_equal(recorder_finish(r, RECDB_END_EXITED), 0);
	recorder_stats(r, &stats);
	assert_int_equal(stats.lines_dropped, 0);
	assert_int_equal(stats.lines, N);
	recorder_free(r);
	recdb_close(db);
	store_free(st);
}

/* A database on a tiny tmpfs: the recorder reports the full disk, the
 * caller's pushes and output calls go on without waiting, finish returns
 * -ENOSPC with a message. */
static void test_full_disk(void **state)
{
	struct recorder_config cfg = { .interval_ms = 20 };
	struct recdb_run_info info = { .start_wall_ns = 1 };
	struct recorder_stats stats;
	char mnt[128], path[160], msg[256];
	uint64_t t0 = now_ns(), worst = 0, deadline;
	struct store *st;
	struct recorder *r;
	struct recdb *db;
	int64_t run_id;
	int rc;
	uint64_t i = 0, after = 0;
	char line[512];

	(void)state;
	snprintf(mnt, sizeof(mnt), "%s/tiny", dir);
	assert_int_equal(mkdir(mnt, 0755), 0);
	if (mount("none", mnt, "tmpfs", 0, "size=256k") != 0) {
		print_message("cannot mount a tmpfs (needs root, CAP_SYS_ADMIN): %s\n",
			      strerror(errno));
		rmdir(mnt);
		skip();
	}
	snprintf(path, sizeof(path), "%s/full.db", mnt);
	st = store_new(NULL);
	assert_non_null(st);
	rc = recdb_open(path, 0, &db, msg, sizeof(msg));
	if (rc != 0)
		fprintf(stderr, "%s\n", msg);
	assert_int_equal(rc, 0);
	info.base_ns = t0;
	assert_int_equal(recdb_run_begin(db, &info, &run_id), 0);
	r = recorder_start(st, db, run_id, &cfg);
	assert_non_null(r);
	memset(line, 'x', sizeof(line));
	deadline = now_ns() + 20 * SEC;
	/* push until the recorder has failed, then 2000 samples more */
	for (;;) {
		struct sample s = mk_sample(t0 + i * MS, i);
		uint64_t c0 = now_ns(), c1;

		store_push_sample(st, &s);
		if (i >= 200) /* first a few batches of samples alone */
			recorder_output(r, s.t_ns, line, sizeof(line));
		else
			usleep(1000);
		c1 = now_ns() - c0;
		if (c1 > worst)
			worst = c1;
		i++;
		recorder_stats(r, &stats);
		if (stats.failed && ++after >= 2000)
			break;
		if (i % 200 == 0)
			usleep(5000);
		assert_true(now_ns() < deadline); /* the disk never filled: a test defect */
	}
	recorder_error(r, msg, sizeof(msg));
	assert_non_null(strstr(msg, "full"));
	assert_int_equal(recorder_finish(r, RECDB_END_EXITED), -ENOSPC);
	recorder_stats(r, &stats);
	assert_true(stats.lines_dropped > 0);
	/* the caller's calls only ever copy: far below any disk wait */
	assert_true(worst < 200 * MS);
	recorder_free(r);
	recdb_close(db);
	/* what was written before the disk filled is intact and readable */
	{
		struct recdb_run_row *rows;
		struct store *back;
		uint64_t cur = 0, n = 0;
		struct sample smp;
		ssize_t nr;

		rc = recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg));
		if (rc != 0)
			fail_msg("%s", msg);
		nr = recdb_runs(db, &rows);
		assert_int_equal(nr, 1);
		assert_int_equal(rows[0].incomplete, 1);
		recdb_runs_free(rows, (size_t)nr);
		assert_int_equal(recdb_load(db, run_id, &back), 0);
		while (store_samples(back, &cur, &smp, 1, NULL) == 1) {
			assert_int_equal(smp.pss_kib, mk_sample(smp.t_ns, n).pss_kib);
			n++;
		}
		assert_int_equal(n, stats.samples);
		assert_true(n > 0);
		store_free(back);
		recdb_close(db);
	}
	store_free(st);
	assert_int_equal(umount(mnt), 0);
	rmdir(mnt);
}

/* A process that lives from the start does not make every pass look at the
 * whole list: each pass looks at the open records and the new ones, the
 * final pass at all. 1,000 short processes come after one long one, over
 * about 20 passes. */
static void test_pass_cost(void **state)
{
	struct recorder_config cfg = { .interval_ms = 20, .settle_ns = 1 };
	struct recdb_run_info info = { .start_wall_ns = 1, .base_ns = 1 };
	struct recorder_stats stats;
	char path[128], msg[256];
	struct store *st = store_new(NULL);
	struct proc_rec p;
	struct recorder *r;
	struct recdb *db;
	int64_t run_id;
	uint64_t t0 = now_ns();
	enum { NP = 1000 };

	(void)state;
	snprintf(path, sizeof(path), "%s/pass.db", dir);
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	info.base_ns = t0;
	assert_int_equal(recdb_run_begin(db, &info, &run_id), 0);
	p = mk_proc(st, 1, t0); /* lives throughout */
	assert_int_equal(store_proc_update(st, &p), 0);
	r = recorder_start(st, db, run_id, &cfg);
	assert_non_null(r);
	for (uint64_t i = 0; i < NP; i++) {
		struct sample smp = mk_sample(t0 + i * 1000, i);

		p = mk_proc(st, 2 + i, t0 + i * 1000);
		p.end_ns = p.start_ns + 1; /* settled by the next pass */
		assert_int_equal(store_proc_update(st, &p), 0);
		store_push_sample(st, &smp); /* the passes' clock */
		if (i % 50 == 49)
			usleep(25000);
	}
	assert_int_equal(recorder_finish(r, RECDB_END_EXITED), 0);
	recorder_stats(r, &stats);
	assert_true(stats.batches >= 10);
	/* each record once or twice by the passes, all once more by the final
	 * one (a second only for output queued during it: none here); every
	 * pass looking at all would be over 10,000 */
	assert_true(stats.procs_looked >= 2 * (NP + 1));
	assert_true(stats.procs_looked <= 4 * (NP + 1));
	assert_int_equal(stats.procs, NP + 1);
	recorder_free(r);
	recdb_close(db);
	store_free(st);
}


/* A recorder over a new file with its run begun and samples to write. */
static struct recorder *start_on(const char *name, struct store **st, struct recdb **db,
				 char *path, size_t cap)
{
	struct recdb_run_info info = {.start_wall_ns = 1, .base_ns = 1000 * SEC};
	char msg[256];
	int64_t id;

	snprintf(path, cap, "%s/%s", dir, name);
	*st = store_new(NULL);
	assert_non_null(*st);
	for (uint64_t i = 0; i < 50; i++) {
		struct sample s = mk_sample(1000 * SEC + i * MS, i);
		store_push_sample(*st, &s);
	}
	assert_int_equal(recdb_open(path, 0, db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_run_begin(*db, &info, &id), 0);
	struct recorder *r = recorder_start(*st, *db, id, NULL);
	assert_non_null(r);
	return r;
}

/* Another program holding the recording's write lock (sqlite3 with BEGIN
 * IMMEDIATE), as a foreign process or a slow disk would hold the writer. */
static sqlite3 *lock_file(const char *path)
{
	sqlite3 *s;

	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, "BEGIN IMMEDIATE; UPDATE meta SET value = value", NULL, NULL,
				      NULL), SQLITE_OK);
	return s;
}

/* The final write cannot hold the run: past its deadline it stops, and a
 * cancel (a readable fd: spacetime's signals) stops it at once; the run
 * stays marked incomplete. Without a lock the same call writes it all. */
static void test_finish_deadline(void **state)
{
	char path[128], msg[256];
	struct store *st;
	struct recdb *db;
	(void)state;

	/* the deadline: 300 ms, then the grace */
	struct recorder *r = start_on("deadline.db", &st, &db, path, sizeof(path));
	usleep(100000);
	sqlite3 *lk = lock_file(path);
	uint64_t t0 = now_ns();
	assert_int_equal(recorder_finish_by(r, RECDB_END_EXITED, t0 + 300 * MS, -1), -ETIMEDOUT);
	uint64_t took = now_ns() - t0;
	recorder_error(r, msg, sizeof(msg));
	assert_non_null(strstr(msg, "did not finish within 0.3 s"));
	assert_non_null(strstr(msg, "locked by another program"));
	/* stopped at the deadline and its grace, not at the lock's 5 s */
	assert_true(took >= 300 * MS && took < 300 * MS + RECORDER_ABORT_GRACE_MS * MS + SEC);
	assert_false(recorder_abandoned(r));
	recorder_free(r);
	recdb_close(db);
	sqlite3_exec(lk, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(lk);
	store_free(st);
	{
		struct recdb *rd;
		struct recdb_run_row *rows;
		assert_int_equal(recdb_open(path, RECDB_RDONLY, &rd, msg, sizeof(msg)), 0);
		assert_int_equal(recdb_runs(rd, &rows), 1);
		assert_int_equal(rows[0].incomplete, 1);
		recdb_runs_free(rows, 1);
		recdb_close(rd);
	}

	/* a cancel, with a deadline a minute away */
	int p[2];
	assert_int_equal(pipe(p), 0);
	r = start_on("cancel.db", &st, &db, path, sizeof(path));
	usleep(100000);
	lk = lock_file(path);
	assert_int_equal(write(p[1], "x", 1), 1);
	t0 = now_ns();
	assert_int_equal(recorder_finish_by(r, RECDB_END_EXITED, t0 + 60 * SEC, p[0]), -ECANCELED);
	took = now_ns() - t0;
	recorder_error(r, msg, sizeof(msg));
	assert_non_null(strstr(msg, "stopped by a signal"));
	assert_true(took < RECORDER_ABORT_GRACE_MS * MS + SEC);
	recorder_free(r);
	recdb_close(db);
	sqlite3_exec(lk, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(lk);
	store_free(st);

	/* nothing in the way: all written within the deadline, the cancel fd
	 * quiet */
	char b;
	assert_int_equal(read(p[0], &b, 1), 1);
	r = start_on("free.db", &st, &db, path, sizeof(path));
	assert_int_equal(recorder_finish_by(r, RECDB_END_EXITED, now_ns() + 60 * SEC, p[0]), 0);
	recorder_free(r);
	recdb_close(db);
	store_free(st);
	close(p[0]);
	close(p[1]);
	{
		struct recdb *rd;
		struct recdb_run_row *rows;
		assert_int_equal(recdb_open(path, RECDB_RDONLY, &rd, msg, sizeof(msg)), 0);
		assert_int_equal(recdb_runs(rd, &rows), 1);
		assert_int_equal(rows[0].incomplete, 0);
		assert_int_equal(rows[0].end, RECDB_END_EXITED);
		recdb_runs_free(rows, 1);
		recdb_close(rd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_everything),
		cmocka_unit_test(test_output_drops),
		cmocka_unit_test(test_output_burst),
		cmocka_unit_test(test_full_disk),
		cmocka_unit_test(test_pass_cost),
		cmocka_unit_test(test_finish_deadline),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
