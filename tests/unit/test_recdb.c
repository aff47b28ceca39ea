/* Unit tests for the recording database: a store written and read back field
 * by field, the process list and output as of an instant, the files a reader
 * must refuse, run ids and pruning. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "moment.h"
#include "outlog.h"
#include "peakmaps.h"
#include "recdb.h"
#include "store.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define BASE (1000 * SEC) /* the run's monotonic origin */
#define NSAMPLES 50

static char dir[64];

static int setup_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_recdb.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", dir, name);
}

/* Sample i: every field distinct from every other field and sample. */
static struct sample mk_sample(uint64_t i)
{
	struct sample s;

	memset(&s, 0, sizeof(s));
	s.t_ns = BASE + i * 10 * MS;
	s.pss_kib = 1000 * i + 1;
	s.pss_anon_kib = 1000 * i + 2;
	s.pss_file_kib = 1000 * i + 3;
	s.pss_shmem_kib = 1000 * i + 4;
	s.pss_est_kib = 1000 * i + 5;
	s.pss_hi_kib = 1000 * i + 6;
	s.rss_kib = 1000 * i + 7;
	s.minflt = 1000 * i + 8;
	s.majflt = 1000 * i + 9;
	s.utime_us = 1000 * i + 10;
	s.stime_us = 1000 * i + 11;
	s.live_procs = (uint32_t)(1000 * i + 12);
	s.live_threads = (uint32_t)(1000 * i + 13);
	s.total_procs = (uint32_t)(1000 * i + 14);
	s.total_threads = (uint32_t)(1000 * i + 15);
	s.swap_kib = 1000 * i + 16;
	s.thp_kib = 1000 * i + 17;
	s.locked_kib = 1000 * i + 18;
	s.psi_cpu_pm = (uint32_t)(i % 1001);
	s.psi_mem_pm = (uint32_t)((i + 1) % 1001);
	s.psi_mem_full_pm = (uint32_t)((i + 2) % 1001);
	s.psi_io_pm = (uint32_t)((i + 3) % 1001);
	s.mem_left_kib = 1000 * i + 19;
	s.valid = (uint32_t)(i % 256); /* every combination of valid bits */
	return s;
}

static void assert_sample_equal(const struct sample *a, const struct sample *b)
{
	assert_int_equal(a->t_ns, b->t_ns);
	assert_int_equal(a->pss_kib, b->pss_kib);
	assert_int_equal(a->pss_anon_kib, b->pss_anon_kib);
	assert_int_equal(a->pss_file_kib, b->pss_file_kib);
	assert_int_equal(a->pss_shmem_kib, b->pss_shmem_kib);
	assert_int_equal(a->pss_est_kib, b->pss_est_kib);
	assert_int_equal(a->pss_hi_kib, b->pss_hi_kib);
	assert_int_equal(a->rss_kib, b->rss_kib);
	assert_int_equal(a->minflt, b->minflt);
	assert_int_equal(a->majflt, b->majflt);
	assert_int_equal(a->utime_us, b->utime_us);
	assert_int_equal(a->stime_us, b->stime_us);
	assert_int_equal(a->live_procs, b->live_procs);
	assert_int_equal(a->live_threads, b->live_threads);
	assert_int_equal(a->total_procs, b->total_procs);
	assert_int_equal(a->total_threads, b->total_threads);
	assert_int_equal(a->swap_kib, b->swap_kib);
	assert_int_equal(a->thp_kib, b->thp_kib);
	assert_int_equal(a->locked_kib, b->locked_kib);
	assert_int_equal(a->psi_cpu_pm, b->psi_cpu_pm);
	assert_int_equal(a->psi_mem_pm, b->psi_mem_pm);
	assert_int_equal(a->psi_mem_full_pm, b->psi_mem_full_pm);
	assert_int_equal(a->psi_io_pm, b->psi_io_pm);
	assert_int_equal(a->mem_left_kib, b->mem_left_kib);
	assert_int_equal(a->valid, b->valid);
}

/* A process: id, times, argv (NUL-separated) or NULL. */
static struct proc_rec mk_proc(struct store *st, uint64_t id, uint64_t start, uint64_t end,
			       const char *argv, size_t argv_len)
{
	struct proc_rec r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.pid = (pid_t)(100 + id);
	r.ppid = (pid_t)(99 + id);
	r.start_ns = start;
	r.end_ns = end;
	r.argv_id = argv ? store_str_intern(st, argv, argv_len) : 0;
	snprintf(r.comm, sizeof(r.comm), "proc%u", (unsigned)id);
	r.threads = (uint32_t)(3 + id);
	r.nexec = (uint32_t)(1 + id);
	r.pss_kib = end ? 0 : 500 + id;
	r.rss_kib = end ? 0 : 600 + id;
	r.peak_pss_kib = 700 + id;
	r.peak_pss_t_ns = start + 5 * MS;
	r.peak_rss_kib = 800 + id;
	r.pss_age_ns = end ? 0 : 900 + id;
	r.utime_us = 1100 + id;
	r.stime_us = 1200 + id;
	r.minflt = 1300 + id;
	r.majflt = 1400 + id;
	r.valid = PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS | (argv ? PROC_V_ARGV : 0);
	if (end) {
		r.exit_status = (int)(id << 8);
		r.valid |= PROC_V_EXIT | PROC_V_WAIT;
		r.wait_cpu_us = 1500 + id;
		r.wait_io_us = 1600 + id;
	}
	return r;
}

static void assert_str_same(struct store *a, uint32_t ida, struct store *b, uint32_t idb)
{
	char ba[256], bb[256];
	ssize_t na, nb;

	assert_int_equal(ida == 0, idb == 0);
	if (!ida)
		return;
	na = store_str_get(a, ida, ba, sizeof(ba));
	nb = store_str_get(b, idb, bb, sizeof(bb));
	assert_int_equal(na, nb);
	assert_true(na >= 0);
	assert_memory_equal(ba, bb, (size_t)na);
}

static void assert_proc_equal(struct store *sa, const struct proc_rec *a, struct store *sb,
			      const struct proc_rec *b)
{
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->ppid, b->ppid);
	assert_int_equal(a->start_ns, b->start_ns);
	assert_int_equal(a->end_ns, b->end_ns);
	assert_str_same(sa, a->argv_id, sb, b->argv_id);
	assert_memory_equal(a->comm, b->comm, 16);
	assert_int_equal(a->exit_status, b->exit_status);
	assert_int_equal(a->threads, b->threads);
	assert_int_equal(a->nexec, b->nexec);
	assert_int_equal(a->pss_kib, b->pss_kib);
	assert_int_equal(a->rss_kib, b->rss_kib);
	assert_int_equal(a->peak_pss_kib, b->peak_pss_kib);
	assert_int_equal(a->peak_pss_t_ns, b->peak_pss_t_ns);
	assert_int_equal(a->peak_rss_kib, b->peak_rss_kib);
	assert_int_equal(a->pss_age_ns, b->pss_age_ns);
	assert_int_equal(a->utime_us, b->utime_us);
	assert_int_equal(a->stime_us, b->stime_us);
	assert_int_equal(a->minflt, b->minflt);
	assert_int_equal(a->majflt, b->majflt);
	assert_int_equal(a->wait_cpu_us, b->wait_cpu_us);
	assert_int_equal(a->wait_io_us, b->wait_io_us);
	assert_int_equal(a->valid, b->valid);
}

/* Every field of the summary set, each to its own value. */
static void mk_summary(struct store_summary *s)
{
	uint64_t v = 1;

	memset(s, 0, sizeof(*s));
	s->start_ns = BASE + 1 * MS;
	s->end_ns = BASE + 2 * SEC;
	s->root_end_ns = BASE + 1900 * MS;
	s->exited = 1;
	s->orphans_reaped = v++;
	s->wait_status = 3 << 8;
	s->ru_utime_us = v++;
	s->ru_stime_us = v++;
	s->ru_maxrss_kib = v++;
	s->max_tree_rss_kib = v++;
	s->max_swap_kib = v++;
	s->max_thp_kib = v++;
	s->max_locked_kib = v++;
	s->max_swap_t_ns = BASE + 1500 * MS;
	s->kinds_known = 1;
	s->psi = 2;
	s->psi_cpu_us = v++;
	s->psi_mem_us = v++;
	s->psi_mem_full_us = v++;
	s->psi_io_us = v++;
	s->psi_mem_max_pm = 999;
	s->ru_minflt = v++;
	s->ru_majflt = v++;
	s->ru_nvcsw = v++;
	s->ru_nivcsw = v++;
	s->ru_inblock = v++;
	s->ru_oublock = v++;
	s->peak = mk_sample(17);
	s->peak_measured = 1;
	s->peak_floor = 1;
	s->peak_unconfirmed_kib = v++;
	s->pss_est_share = 0.1234567890123;
	s->pss_sweeps = v++;
	s->pss_sweep_reads = v++;
	s->pss_sweeps_unstable = v++;
	s->fast_ticks = v++;
	s->exit_ticks = v++;
	s->exit_samples = v++;
	s->last = mk_sample(NSAMPLES - 1);
	s->lost_events = v++;
	s->rescans = v++;
	s->total_execs = (uint32_t)v++;
	s->mode = 2;
	s->pss_reads = v++;
	s->pss_cpu_ns = v++;
	s->budget_ns = v++;
	s->pss_max_age_ns = v++;
	s->pss_mean_age_ns = v++;
	s->collector_cpu_ns = v++;
	s->self_cpu_ns = v++;
	s->interval_ms = v++;
	s->collector_wakeups = v++;
	s->nl_events = v++;
	s->taskstats = 1;
	s->ts_records = v++;
	s->ts_lost = v++;
	s->ts_unfit = v++;
	s->attached = 1;
	s->detached = 1;
	s->attach_n = 3;
	s->attach_pid[0] = 4242;
	s->attach_pid[1] = 4343;
	s->attach_pid[2] = 4444;
	s->attach_prior_cpu_us = v++;
}

static void assert_summary_equal(const struct store_summary *a, const struct store_summary *b)
{
	assert_int_equal(a->start_ns, b->start_ns);
	assert_int_equal(a->end_ns, b->end_ns);
	assert_int_equal(a->root_end_ns, b->root_end_ns);
	assert_int_equal(a->exited, b->exited);
	assert_int_equal(a->orphans_reaped, b->orphans_reaped);
	assert_int_equal(a->wait_status, b->wait_status);
	assert_int_equal(a->ru_utime_us, b->ru_utime_us);
	assert_int_equal(a->max_swap_kib, b->max_swap_kib);
	assert_int_equal(a->max_thp_kib, b->max_thp_kib);
	assert_int_equal(a->max_locked_kib, b->max_locked_kib);
	assert_int_equal(a->max_swap_t_ns, b->max_swap_t_ns);
	assert_int_equal(a->kinds_known, b->kinds_known);
	assert_int_equal(a->psi, b->psi);
	assert_int_equal(a->psi_cpu_us, b->psi_cpu_us);
	assert_int_equal(a->psi_mem_us, b->psi_mem_us);
	assert_int_equal(a->psi_mem_full_us, b->psi_mem_full_us);
	assert_int_equal(a->psi_io_us, b->psi_io_us);
	assert_int_equal(a->psi_mem_max_pm, b->psi_mem_max_pm);
	assert_int_equal(a->ru_stime_us, b->ru_stime_us);
	assert_int_equal(a->ru_maxrss_kib, b->ru_maxrss_kib);
	assert_int_equal(a->max_tree_rss_kib, b->max_tree_rss_kib);
	assert_int_equal(a->ru_minflt, b->ru_minflt);
	assert_int_equal(a->ru_majflt, b->ru_majflt);
	assert_int_equal(a->ru_nvcsw, b->ru_nvcsw);
	assert_int_equal(a->ru_nivcsw, b->ru_nivcsw);
	assert_int_equal(a->ru_inblock, b->ru_inblock);
	assert_int_equal(a->ru_oublock, b->ru_oublock);
	assert_sample_equal(&a->peak, &b->peak);
	assert_int_equal(a->peak_measured, b->peak_measured);
	assert_int_equal(a->peak_floor, b->peak_floor);
	assert_int_equal(a->peak_unconfirmed_kib, b->peak_unconfirmed_kib);
	assert_true(a->pss_est_share == b->pss_est_share);
	assert_int_equal(a->pss_sweeps, b->pss_sweeps);
	assert_int_equal(a->pss_sweep_reads, b->pss_sweep_reads);
	assert_int_equal(a->pss_sweeps_unstable, b->pss_sweeps_unstable);
	assert_int_equal(a->fast_ticks, b->fast_ticks);
	assert_int_equal(a->exit_ticks, b->exit_ticks);
	assert_int_equal(a->exit_samples, b->exit_samples);
	assert_sample_equal(&a->last, &b->last);
	assert_int_equal(a->lost_events, b->lost_events);
	assert_int_equal(a->rescans, b->rescans);
	assert_int_equal(a->total_execs, b->total_execs);
	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->pss_reads, b->pss_reads);
	assert_int_equal(a->pss_cpu_ns, b->pss_cpu_ns);
	assert_int_equal(a->budget_ns, b->budget_ns);
	assert_int_equal(a->pss_max_age_ns, b->pss_max_age_ns);
	assert_int_equal(a->pss_mean_age_ns, b->pss_mean_age_ns);
	assert_int_equal(a->collector_cpu_ns, b->collector_cpu_ns);
	assert_int_equal(a->self_cpu_ns, b->self_cpu_ns);
	assert_int_equal(a->interval_ms, b->interval_ms);
	assert_int_equal(a->collector_wakeups, b->collector_wakeups);
	assert_int_equal(a->nl_events, b->nl_events);
	assert_int_equal(a->taskstats, b->taskstats);
	assert_int_equal(a->ts_records, b->ts_records);
	assert_int_equal(a->ts_lost, b->ts_lost);
	assert_int_equal(a->ts_unfit, b->ts_unfit);
	assert_int_equal(a->attached, b->attached);
	assert_int_equal(a->detached, b->detached);
	assert_int_equal(a->attach_n, b->attach_n);
	for (int i = 0; i < STORE_ATTACH_MAX; i++)
		assert_int_equal(a->attach_pid[i], b->attach_pid[i]);
	assert_int_equal(a->attach_prior_cpu_us, b->attach_prior_cpu_us);
}

static const char argv_a[] = "make\0-j8\0all"; /* sizeof - 1 bytes with the NULs */
static const char argv_b[] = "cc\0-c\0x.c";
static const char argv_c[] = "sh\0-c\0echo hi";

/* The store every test writes: samples, events, 4 processes (2 exited, in an
 * exit order other than their insertion order), 3 execs, a summary. */
static struct store *mk_store(void)
{
	struct store *st = store_new(NULL);
	struct store_summary sum;
	struct proc_rec r;
	struct store_exec x;

	assert_non_null(st);
	for (uint64_t i = 0; i < NSAMPLES; i++) {
		struct sample s = mk_sample(i);

		store_push_sample(st, &s);
	}
	for (uint32_t i = 0; i < 12; i++) {
		struct store_event e = { .t_ns = BASE + i * 7 * MS, .type = 1 + i % 6,
					 .pid = (pid_t)(200 + i), .ppid = (pid_t)(300 + i),
					 .arg = -(int64_t)i * 1000 };

		store_push_event(st, &e);
	}
	/* 1 live from 0; 2 exits at 1.5 s; 3 exits at 0.8 s; 4 live from 2.5 s */
	r = mk_proc(st, 1, BASE, 0, argv_a, sizeof(argv_a) - 1);
	assert_int_equal(store_proc_update(st, &r), 0);
	r = mk_proc(st, 2, BASE + 100 * MS, 0, argv_b, sizeof(argv_b) - 1);
	assert_int_equal(store_proc_update(st, &r), 0);
	r = mk_proc(st, 3, BASE + 200 * MS, 0, NULL, 0);
	assert_int_equal(store_proc_update(st, &r), 0);
	r = mk_proc(st, 3, BASE + 200 * MS, BASE + 800 * MS, NULL, 0);
	assert_int_equal(store_proc_update(st, &r), 0);
	r = mk_proc(st, 2, BASE + 100 * MS, BASE + 1500 * MS, argv_b, sizeof(argv_b) - 1);
	assert_int_equal(store_proc_update(st, &r), 0);
	r = mk_proc(st, 4, BASE + 2500 * MS, 0, argv_c, sizeof(argv_c) - 1);
	assert_int_equal(store_proc_update(st, &r), 0);
	memset(&x, 0, sizeof(x));
	x.t_ns = BASE + 1 * MS;
	x.pid = 101;
	x.ppid = 100;
	x.argv_id = store_str_intern(st, argv_a, sizeof(argv_a) - 1);
	strcpy(x.comm, "make");
	store_push_exec(st, &x);
	x.t_ns = BASE + 101 * MS;
	x.pid = 102;
	x.argv_id = store_str_intern(st, argv_b, sizeof(argv_b) - 1);
	strcpy(x.comm, "cc");
	store_push_exec(st, &x);
	memset(&x, 0, sizeof(x)); /* gone before its argv was read, no comm */
	x.t_ns = BASE + 300 * MS;
	x.pid = 103;
	x.ppid = 102;
	store_push_exec(st, &x);
	mk_summary(&sum);
	store_summary_set(st, &sum);
	return st;
}

/* Copies the bytes of string id (static buffer per slot). */
static const char *str_bytes(struct store *st, uint32_t id, size_t *len, char *buf, size_t cap)
{
	ssize_t n;

	*len = 0;
	if (!id)
		return NULL;
	n = store_str_get(st, id, buf, cap);
	assert_true(n >= 0 && (size_t)n <= cap);
	*len = (size_t)n;
	return buf;
}

/* Writes everything in st to run *run_id of db, as the recorder would, plus
 * per-process samples and output lines with known times. */
static void write_store(struct recdb *db, struct store *st, int64_t *run_id)
{
	struct recdb_run_info info = { .start_wall_ns = 1700000000 * SEC, .base_ns = BASE,
				       .argv = argv_a, .argv_len = sizeof(argv_a) - 1,
				       .cwd = "/src", .host = "box" };
	static struct sample smp[NSAMPLES];
	struct store_event ev[32];
	struct proc_rec recs[8];
	struct recdb_proc procs[8];
	struct store_exec ex[8];
	struct recdb_exec execs[8];
	static char abuf[16][256];
	struct store_summary sum;
	uint64_t cur = 0;
	size_t np, nx;
	struct store_proc_sample ps[] = {
		{ .id = 1, .t_ns = BASE + 1 * SEC, .pss_kib = 100, .rss_kib = 110, .cpu_us = 120,
		  .minflt = 130, .majflt = 140, .valid = PROC_V_PSS | PROC_V_RSS | PROC_V_CPU |
							  PROC_V_FAULTS },
		{ .id = 1, .t_ns = BASE + 2 * SEC, .pss_kib = 200, .rss_kib = 210, .cpu_us = 220,
		  .valid = PROC_V_PSS | PROC_V_RSS | PROC_V_CPU },
		{ .id = 2, .t_ns = BASE + 1 * SEC, .pss_kib = 300, .rss_kib = 310,
		  .valid = PROC_V_PSS | PROC_V_RSS },
		{ .id = 3, .t_ns = BASE + 500 * MS, .pss_kib = 400, .valid = PROC_V_PSS },
	};
	struct recdb_line lines[] = {
		{ BASE + 100 * MS, "one", 3 },
		{ BASE + 200 * MS, "two\0bin", 7 },
		{ BASE + 200 * MS, "", 0 },
		{ BASE + 3 * SEC, "three", 5 },
	};
	struct recdb_batch b;

	assert_int_equal(recdb_run_begin(db, &info, run_id), 0);
	memset(&b, 0, sizeof(b));
	b.samples = smp;
	b.nsamples = store_samples(st, &cur, smp, NSAMPLES, NULL);
	assert_int_equal(b.nsamples, NSAMPLES);
	cur = 0;
	b.events = ev;
	b.nevents = store_events(st, &cur, ev, 32, NULL);
	np = store_procs(st, STORE_PROCS_ALL, recs, 8);
	for (size_t i = 0; i < np; i++) {
		procs[i].rec = recs[i];
		procs[i].seq = i;
		procs[i].argv = str_bytes(st, recs[i].argv_id, &procs[i].argv_len, abuf[i], 256);
	}
	nx = store_execs(st, 0, ex, 8);
	for (size_t i = 0; i < nx; i++) {
		execs[i].ex = ex[i];
		execs[i].idx = i;
		execs[i].argv = str_bytes(st, ex[i].argv_id, &execs[i].argv_len, abuf[8 + i], 256);
	}
	/* the first batch: half the processes, and a summary to be replaced */
	b.procs = procs;
	b.nprocs = 2;
	b.execs = execs;
	b.nexecs = nx;
	b.psamples = ps;
	b.npsamples = sizeof(ps) / sizeof(ps[0]);
	b.lines = lines;
	b.nlines = sizeof(lines) / sizeof(lines[0]);
	store_summary_get(st, &sum);
	sum.ru_utime_us = 999;
	b.summary = &sum;
	assert_int_equal(recdb_write(db, *run_id, &b), 0);
	/* the second: every process again (upserts), argv omitted for one */
	memset(&b, 0, sizeof(b));
	procs[0].argv = NULL;
	b.procs = procs;
	b.nprocs = np;
	assert_int_equal(recdb_write(db, *run_id, &b), 0);
	store_summary_get(st, &sum);
	assert_int_equal(recdb_run_finish(db, *run_id, &sum, RECDB_END_EXITED, 0, NULL), 0);
}

/* Compares two stores: samples at the finest tier, events, processes in
 * all three orders, execs and the summary. */
static void assert_store_equal(struct store *a, struct store *b)
{
	struct bucket ba[NSAMPLES + 1], bb[NSAMPLES + 1];
	struct store_event ea[32], eb[32];
	struct proc_rec pa[8], pb[8];
	struct store_exec xa[8], xb[8];
	struct store_summary sa, sb;
	uint64_t ca = 0, cb = 0;
	size_t na, nb;

	na = store_query(a, 0, UINT64_MAX, ba, NSAMPLES + 1);
	nb = store_query(b, 0, UINT64_MAX, bb, NSAMPLES + 1);
	assert_int_equal(na, NSAMPLES);
	assert_int_equal(nb, na);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(bb[i].n, 1);
		assert_int_equal(ba[i].valid, bb[i].valid);
		assert_sample_equal(&ba[i].mean, &bb[i].mean);
	}
	na = store_events(a, &ca, ea, 32, NULL);
	nb = store_events(b, &cb, eb, 32, NULL);
	assert_int_equal(na, 12);
	assert_int_equal(nb, na);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(ea[i].t_ns, eb[i].t_ns);
		assert_int_equal(ea[i].type, eb[i].type);
		assert_int_equal(ea[i].pid, eb[i].pid);
		assert_int_equal(ea[i].ppid, eb[i].ppid);
		assert_int_equal(ea[i].arg, eb[i].arg);
	}
	for (int which = STORE_PROCS_ALL; which <= STORE_PROCS_EXITED; which++) {
		na = store_procs(a, which, pa, 8);
		nb = store_procs(b, which, pb, 8);
		assert_int_equal(na, which == STORE_PROCS_ALL ? 4 : 2);
		assert_int_equal(nb, na);
		if (which == STORE_PROCS_LIVE && pa[0].id != pb[0].id) {
			struct proc_rec t = pb[0]; /* no set order: compare as a set */

			pb[0] = pb[1];
			pb[1] = t;
		}
		for (size_t i = 0; i < na; i++)
			assert_proc_equal(a, &pa[i], b, &pb[i]);
	}
	na = store_execs(a, 0, xa, 8);
	nb = store_execs(b, 0, xb, 8);
	assert_int_equal(na, 3);
	assert_int_equal(nb, na);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(xa[i].t_ns, xb[i].t_ns);
		assert_int_equal(xa[i].pid, xb[i].pid);
		assert_int_equal(xa[i].ppid, xb[i].ppid);
		assert_str_same(a, xa[i].argv_id, b, xb[i].argv_id);
		assert_memory_equal(xa[i].comm, xb[i].comm, 16);
	}
	store_summary_get(a, &sa);
	store_summary_get(b, &sb);
	assert_summary_equal(&sa, &sb);
}

static void test_roundtrip(void **state)
{
	char path[128], msg[256];
	struct recdb *db, *rd;
	struct store *st, *back;
	struct recdb_run_row *rows;
	int64_t run_id, id;
	ssize_t n;

	(void)state;
	path_of(path, sizeof(path), "round.db");
	st = mk_store();
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	write_store(db, st, &run_id);
	assert_int_equal(run_id, 1);

	/* read while the writer is still open (WAL: a reader beside a writer) */
	assert_int_equal(recdb_open(path, RECDB_RDONLY, &rd, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_resolve(rd, "last", &id), 0);
	assert_int_equal(id, run_id);
	assert_int_equal(recdb_load(rd, id, &back), 0);
	assert_store_equal(st, back);
	store_free(back);

	n = recdb_runs(rd, &rows);
	if (n < 0)
		fprintf(stderr, "%s\n", recdb_errmsg(rd));
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].id, 1);
	assert_int_equal(rows[0].start_wall_ns, 1700000000 * SEC);
	assert_int_equal(rows[0].argv_len, sizeof(argv_a) - 1);
	assert_memory_equal(rows[0].argv, argv_a, sizeof(argv_a) - 1);
	assert_string_equal(rows[0].cwd, "/src");
	assert_string_equal(rows[0].host, "box");
	assert_int_equal(rows[0].attached, 0);
	assert_int_equal(rows[0].incomplete, 0);
	assert_int_equal(rows[0].end, RECDB_END_EXITED);
	assert_int_equal(rows[0].wall_ns, 2 * SEC - 1 * MS);
	assert_int_equal(rows[0].peak_pss_kib, mk_sample(17).pss_kib);
	assert_int_equal(rows[0].exit_known, 1);
	assert_int_equal(rows[0].exit_status, 3 << 8);
	recdb_runs_free(rows, (size_t)n);
	recdb_close(rd);
	recdb_close(db);
	store_free(st);
}

/* A run that never finished (no summary): loadable, incomplete, with the
 * summary rebuilt from its samples. */
static void test_unfinished(void **state)
{
	struct recdb_run_info info = { .start_wall_ns = 5, .base_ns = BASE, .attached = 1 };
	struct sample smp[3] = { mk_sample(1), mk_sample(9), mk_sample(4) };
	struct recdb_batch b = { .samples = smp, .nsamples = 3 };
	struct recdb_run_row *rows;
	struct store_summary sum;
	char path[128], msg[256];
	struct store *back;
	struct recdb *db;
	int64_t run_id;
	ssize_t n;

	(void)state;
	path_of(path, sizeof(path), "unfinished.db");
	for (int i = 0; i < 3; i++)
		smp[i].valid |= SAMPLE_PSS;
	smp[1].t_ns = smp[0].t_ns + 1;
	smp[2].t_ns = smp[0].t_ns + 2;
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_run_begin(db, &info, &run_id), 0);
	assert_int_equal(recdb_write(db, run_id, &b), 0);
	n = recdb_runs(db, &rows);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].incomplete, 1);
	assert_int_equal(rows[0].attached, 1);
	assert_int_equal(rows[0].end, RECDB_END_RUNNING);
	assert_int_equal(rows[0].exit_known, 0);
	assert_null(rows[0].argv);
	recdb_runs_free(rows, (size_t)n);
	assert_int_equal(recdb_load(db, run_id, &back), 0);
	store_summary_get(back, &sum);
	assert_int_equal(sum.start_ns, BASE);
	assert_int_equal(sum.peak.pss_kib, smp[1].pss_kib);
	assert_int_equal(sum.last.t_ns, smp[2].t_ns);
	store_free(back);
	recdb_close(db);
}

/* The summary's last sample goes in with the final write only: until then a
 * reader takes the last of the samples, and afterwards the summary's own,
 * even when a write during the run had the same one. */
static void test_last_at_end(void **state)
{
	struct recdb_run_info info = { .start_wall_ns = 5, .base_ns = BASE };
	struct sample smp[3] = { mk_sample(1), mk_sample(4), mk_sample(9) };
	struct store_summary sum, got;
	struct recdb_batch b = { .samples = smp, .nsamples = 3, .summary = &sum };
	char path[128], msg[256];
	struct store *back;
	struct recdb *db;
	int64_t run_id;

	(void)state;
	path_of(path, sizeof(path), "lastend.db");
	mk_summary(&sum);
	sum.last = mk_sample(30); /* not one of the samples */
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_run_begin(db, &info, &run_id), 0);
	assert_int_equal(recdb_write(db, run_id, &b), 0);
	assert_int_equal(recdb_load(db, run_id, &back), 0);
	store_summary_get(back, &got);
	assert_sample_equal(&got.last, &smp[2]);
	assert_sample_equal(&got.peak, &sum.peak); /* the rest is the summary's */
	assert_int_equal(got.collector_wakeups, sum.collector_wakeups);
	store_free(back);

	assert_int_equal(recdb_run_finish(db, run_id, &sum, RECDB_END_EXITED, 0, NULL), 0);
	assert_int_equal(recdb_load(db, run_id, &back), 0);
	store_summary_get(back, &got);
	assert_sample_equal(&got.last, &sum.last);
	store_free(back);
	recdb_close(db);
}

/* A recording loaded back answers for any instant (moment.h): the processes
 * alive then with their last per-process sample at or before it, and the
 * output printed up to it. */
static void test_procs_and_output_at(void **state)
{
	char path[128], msg[256];
	struct moment m;
	struct store *st, *back;
	struct recdb *db;
	int64_t run_id;

	(void)state;
	path_of(path, sizeof(path), "at.db");
	st = mk_store();
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	write_store(db, st, &run_id);
	assert_int_equal(recdb_load(db, run_id, &back), 0);

	/* 0.1 s: 1 (no sample yet) and 2 alive; 3 not started */
	assert_int_equal(moment_take(back, BASE + 100 * MS, BASE + 100 * MS, 0, &m), 0);
	assert_int_equal(m.nprocs, 2);
	assert_int_equal(m.procs[0].id, 1);
	assert_int_equal(m.procs[0].pid, 101);
	assert_string_equal(m.procs[0].comm, "proc1");
	assert_int_equal(m.procs[0].valid & ~PROC_V_ARGV, 0);
	assert_int_equal(m.procs[1].id, 2);
	assert_int_equal(m.made, 2);
	moment_free(&m);
	/* 0.6 s: 3 has its 0.5 s sample (PSS only) */
	assert_int_equal(moment_take(back, BASE + 600 * MS, BASE + 600 * MS, 0, &m), 0);
	assert_int_equal(m.nprocs, 3);
	assert_int_equal(m.procs[2].id, 3);
	assert_int_equal(m.procs[2].valid & ~PROC_V_ARGV, PROC_V_PSS);
	assert_int_equal(m.procs[2].pss_kib, 400);
	moment_free(&m);
	/* 1.2 s: 3 has exited; 1 and 2 at their 1 s samples */
	assert_int_equal(moment_take(back, BASE + 1200 * MS, BASE + 1200 * MS, 0, &m), 0);
	assert_int_equal(m.nprocs, 2);
	assert_int_equal(m.finished, 1);
	assert_int_equal(m.procs[0].pss_kib, 100);
	assert_int_equal(m.procs[0].rss_kib, 110);
	assert_int_equal(m.procs[0].utime_us, 120);
	assert_int_equal(m.procs[0].minflt, 130);
	assert_int_equal(m.procs[0].majflt, 140);
	assert_int_equal(m.procs[0].valid & ~PROC_V_ARGV, PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS);
	assert_int_equal(m.procs[1].id, 2);
	assert_int_equal(m.procs[1].pss_kib, 300);
	moment_free(&m);
	/* 2 s exactly: 1's 2 s sample counts (at or before), its faults (not in
	 * it) the 1 s sample's; 2 ended at 1.5 s */
	assert_int_equal(moment_take(back, BASE + 2 * SEC, BASE + 2 * SEC, 0, &m), 0);
	assert_int_equal(m.nprocs, 1);
	assert_int_equal(m.procs[0].pss_kib, 200);
	assert_int_equal(m.procs[0].minflt, 130);
	assert_int_equal(m.procs[0].valid & ~PROC_V_ARGV, PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS);
	moment_free(&m);
	/* 3 s: 1 (still at 200) and 4 (no sample) */
	assert_int_equal(moment_take(back, BASE + 3 * SEC, BASE + 3 * SEC, 0, &m), 0);
	assert_int_equal(m.nprocs, 2);
	assert_int_equal(m.procs[0].pss_kib, 200);
	assert_int_equal(m.procs[1].id, 4);
	assert_int_equal(m.procs[1].valid & ~PROC_V_ARGV, 0);
	moment_free(&m);

	assert_int_equal(moment_take(back, BASE + 1 * SEC, BASE + 1 * SEC, 10, &m), 0);
	assert_int_equal(m.nlines, 3);
	assert_int_equal(m.lines[0].len, 3);
	assert_memory_equal(m.lines[0].bytes, "one", 3);
	assert_int_equal(m.lines[1].len, 7);
	assert_memory_equal(m.lines[1].bytes, "two\0bin", 7);
	assert_int_equal(m.lines[1].t_ns, BASE + 200 * MS);
	assert_int_equal(m.lines[2].len, 0);
	moment_free(&m);
	assert_int_equal(moment_take(back, BASE + 1 * SEC, BASE + 1 * SEC, 2, &m), 0);
	assert_int_equal(m.nlines, 2);
	assert_memory_equal(m.lines[0].bytes, "two\0bin", 7);
	moment_free(&m);
	assert_int_equal(moment_take(back, BASE + 10 * SEC, BASE + 10 * SEC, 1, &m), 0);
	assert_int_equal(m.nlines, 1);
	assert_memory_equal(m.lines[0].bytes, "three", 5);
	moment_free(&m);
	assert_int_equal(moment_take(back, BASE, BASE, 5, &m), 0);
	assert_int_equal(m.nlines, 0);
	moment_free(&m);
	store_free(back);

	assert_int_equal(recdb_load(db, 77, &back), -ENOENT);
	assert_true(strstr(recdb_errmsg(db), "77") != NULL);
	recdb_close(db);
	store_free(st);
}

/* Opens path read-only, expecting err and a message. */
static void expect_refused(const char *path, unsigned flags, int err, const char *needle)
{
	char msg[256];
	struct recdb *db = (struct recdb *)1;
	int rc = recdb_open(path, flags, &db, msg, sizeof(msg));

	if (rc != err)
		fprintf(stderr, "%s: got %d (%s), want %d\n", path, rc, msg, err);
	assert_int_equal(rc, err);
	assert_null(db);
	assert_true(strlen(msg) > strlen(path) + 2);
	if (needle && !strstr(msg, needle))
		fail_msg("message '%s' lacks '%s'", msg, needle);
	for (size_t i = 0; msg[i]; i++)
		if ((unsigned char)msg[i] < 0x20 || (unsigned char)msg[i] >= 0x7f)
			fail_msg("message '%s' holds byte 0x%02x", msg, (unsigned char)msg[i]);
}

static void write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}

/* Runs SQL on a file with SQLite directly (to make foreign and newer files). */
static void raw_sql(const char *path, const char *sql)
{
	sqlite3 *s;

	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
}

static void test_refused(void **state)
{
	char path[128], msg[256], junk[8192];
	struct recdb_batch b;
	struct sample smp[500];
	struct recdb *db;
	int64_t run_id;
	off_t size;
	int fd;

	(void)state;
	/* no file */
	path_of(path, sizeof(path), "missing.db");
	expect_refused(path, RECDB_RDONLY, -ENOENT, "no such file");

	/* random bytes */
	path_of(path, sizeof(path), "random.db");
	srand(7);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)rand();
	write_file(path, junk, sizeof(junk));
	expect_refused(path, RECDB_RDONLY, -EBADMSG, "not an SQLite database");
	expect_refused(path, 0, -EBADMSG, "not an SQLite database");

	/* empty */
	path_of(path, sizeof(path), "empty.db");
	write_file(path, "", 0);
	expect_refused(path, RECDB_RDONLY, -EMEDIUMTYPE, "(empty file)");

	/* foreign */
	path_of(path, sizeof(path), "foreign.db");
	raw_sql(path, "CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x')");
	expect_refused(path, RECDB_RDONLY, -EMEDIUMTYPE, "not a spacetime recording");
	expect_refused(path, 0, -EMEDIUMTYPE, "not a spacetime recording");
	path_of(path, sizeof(path), "foreign2.db"); /* a meta table, someone else's */
	raw_sql(path, "CREATE TABLE meta (key TEXT, value); INSERT INTO meta VALUES"
		      " ('application', 'other'), ('schema_version', 1)");
	expect_refused(path, RECDB_RDONLY, -EMEDIUMTYPE, "not a spacetime recording");

	/* newer */
	path_of(path, sizeof(path), "newer.db");
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	recdb_close(db);
	raw_sql(path, "UPDATE meta SET value = 7 WHERE key = 'schema_version'");
	expect_refused(path, RECDB_RDONLY, -EPROTONOSUPPORT,
		       "newer spacetime (schema 7; this one reads schema 2 and older)");
	expect_refused(path, 0, -EPROTONOSUPPORT, "(schema 7; this one reads schema 2");

	/* SQLite's messages quote the file: a table's name holding ESC and a C1
	 * CSI (U+009B), in a broken schema row, or in a NOT NULL column holding
	 * a NULL (quick_check names it), is quoted as plain ASCII */
	path_of(path, sizeof(path), "quoting.db");
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	recdb_close(db);
	raw_sql(path, "CREATE TABLE \"\x1b[31mT\xc2\x9b\" (x); INSERT INTO \"\x1b[31mT\xc2\x9b\" VALUES (NULL);"
		      "PRAGMA writable_schema = ON;"
		      "UPDATE sqlite_master SET sql = replace(sql, '(x)', '(x NOT NULL)') WHERE name GLOB '*T*'");
	/* (the schema check refuses the table before quick_check could name it) */
	expect_refused(path, RECDB_RDONLY, -EMEDIUMTYPE, "holds '?[31mT?" "?'");
	path_of(path, sizeof(path), "schema.db");
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	recdb_close(db);
	raw_sql(path, "PRAGMA writable_schema = ON; INSERT INTO sqlite_master VALUES"
		      " ('table', char(27) || '[31mE' || char(155), 'E', 99, 'CREATE TABLE e(')");
	expect_refused(path, RECDB_RDONLY, -EBADMSG, "malformed database schema (?[31mE?" "?)");

	/* truncated to half */
	path_of(path, sizeof(path), "trunc.db");
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	{
		struct recdb_run_info info = { .start_wall_ns = 1, .base_ns = BASE };

		assert_int_equal(recdb_run_begin(db, &info, &run_id), 0);
	}
	for (int k = 0; k < 10; k++) {
		for (int i = 0; i < 500; i++)
			smp[i] = mk_sample((uint64_t)(k * 500 + i));
		memset(&b, 0, sizeof(b));
		b.samples = smp;
		b.nsamples = 500;
		assert_int_equal(recdb_write(db, run_id, &b), 0);
	}
	recdb_close(db);
	/* a copy with a page in the middle scribbled over: only quick_check sees it */
	{
		char cmd[320], copy[128];

		path_of(copy, sizeof(copy), "scribbled.db");
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path, copy);
		assert_int_equal(system(cmd), 0);
		fd = open(copy, O_RDWR);
		assert_true(fd >= 0);
		size = lseek(fd, 0, SEEK_END);
		memset(junk, 0x5a, 4096);
		assert_int_equal(pwrite(fd, junk, 4096, size / 2 / 4096 * 4096), 4096);
		close(fd);
		expect_refused(copy, RECDB_RDONLY, -EBADMSG, "recording is corrupt");
		assert_int_equal(recdb_open(copy, RECDB_RDONLY | RECDB_NOCHECK, &db, msg,
					    sizeof(msg)), 0);
		recdb_close(db);
	}
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	size = lseek(fd, 0, SEEK_END);
	assert_true(size > 64 * 1024);
	assert_int_equal(ftruncate(fd, size / 2), 0);
	close(fd);
	expect_refused(path, RECDB_RDONLY, -EBADMSG, "corrupt or truncated");
}

/* The database's size in pages, as a second connection sees it. */
static int64_t page_count(const char *path)
{
	sqlite3_stmt *q;
	sqlite3 *s;
	int64_t n;

	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(s, "PRAGMA page_count", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(s);
	return n;
}

static void test_resolve_and_prune(void **state)
{
	struct recdb_run_info info = { .start_wall_ns = 1, .base_ns = BASE };
	char path[128], msg[256];
	struct recdb_run_row *rows;
	struct sample smp[200];
	struct recdb_batch b;
	struct recdb *db;
	int64_t id;
	ssize_t n;

	(void)state;
	path_of(path, sizeof(path), "prune.db");
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_resolve(db, "last", &id), -ENOENT);
	assert_true(recdb_errmsg(db)[0] != '\0');
	for (int r = 0; r < 5; r++) {
		assert_int_equal(recdb_run_begin(db, &info, &id), 0);
		assert_int_equal(id, r + 1);
		for (int i = 0; i < 200; i++)
			smp[i] = mk_sample((uint64_t)i);
		memset(&b, 0, sizeof(b));
		b.samples = smp;
		b.nsamples = 200;
		assert_int_equal(recdb_write(db, id, &b), 0);
	}
	assert_int_equal(recdb_resolve(db, "last", &id), 0);
	assert_int_equal(id, 5);
	assert_int_equal(recdb_resolve(db, "3", &id), 0);
	assert_int_equal(id, 3);
	assert_int_equal(recdb_resolve(db, "9", &id), -ENOENT);
	assert_int_equal(recdb_resolve(db, "x3", &id), -EINVAL);
	assert_int_equal(recdb_resolve(db, "", &id), -EINVAL);
	assert_int_equal(recdb_write(db, 9, &b), -ENOENT);

	assert_int_equal(recdb_prune(db, 0, 0), 0);
	{
		/* the freed pages go back to the file system */
		int64_t before = page_count(path), after;
		struct stat sb;
		char wal[160];

		assert_int_equal(recdb_prune(db, 2, 0), 3);
		after = page_count(path);
		if (after >= before * 3 / 4)
			fail_msg("%lld pages before pruning 3 runs of 5, %lld after",
				 (long long)before, (long long)after);
		assert_int_equal(stat(path, &sb), 0);
		assert_int_equal(sb.st_size, after * 4096);
		snprintf(wal, sizeof(wal), "%s-wal", path);
		assert_int_equal(stat(wal, &sb), 0);
		assert_int_equal(sb.st_size, 0);
	}
	n = recdb_runs(db, &rows);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].id, 4);
	assert_int_equal(rows[1].id, 5);
	recdb_runs_free(rows, (size_t)n);
	assert_int_equal(recdb_resolve(db, "1", &id), -ENOENT);
	/* a size below any run: everything but the newest */
	assert_int_equal(recdb_prune(db, 0, 1), 1);
	n = recdb_runs(db, &rows);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].id, 5);
	recdb_runs_free(rows, (size_t)n);
	/* the pruned runs' rows are gone from every table */
	{
		struct store *back;
		struct recdb *rd;

		recdb_close(db);
		assert_int_equal(recdb_open(path, RECDB_RDONLY, &rd, msg, sizeof(msg)), 0);
		assert_int_equal(recdb_load(rd, 4, &back), -ENOENT);
		assert_int_equal(recdb_load(rd, 5, &back), 0);
		{
			uint64_t cur = 0;

			assert_int_equal(store_samples(back, &cur, smp, 200, NULL), 200);
			assert_int_equal(smp[199].pss_kib, mk_sample(199).pss_kib);
		}
		store_free(back);
		recdb_close(rd);
	}
	{
		sqlite3 *s;
		sqlite3_stmt *q;

		assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(s, "SELECT count(DISTINCT run_id) FROM samples",
						    -1, &q, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(q, 0), 1);
		sqlite3_finalize(q);
		sqlite3_close(s);
	}
}

/* A writer remembers its run's base and what summary rows it wrote; a run
 * pruned meanwhile by another spacetime (another connection) is not written
 * into: the write fails with one line and leaves no rows of it behind. */
static void test_pruned_while_written(void **state)
{
	struct recdb_run_info info = { .start_wall_ns = 1, .base_ns = BASE };
	char path[128], msg[256];
	struct store_summary sum;
	struct sample smp = mk_sample(1);
	struct recdb_batch b = { .samples = &smp, .nsamples = 1, .summary = &sum };
	struct recdb *db, *other;
	int64_t id, id2;

	(void)state;
	path_of(path, sizeof(path), "pruned.db");
	mk_summary(&sum);
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_run_begin(db, &info, &id), 0);
	assert_int_equal(recdb_write(db, id, &b), 0);
	assert_int_equal(recdb_open(path, 0, &other, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_run_begin(other, &info, &id2), 0);
	assert_int_equal(recdb_prune(other, 1, 0), 1);
	sum.ru_utime_us++;
	assert_int_equal(recdb_write(db, id, &b), -ENOENT);
	assert_non_null(strstr(recdb_errmsg(db), "no run"));
	recdb_close(db);
	recdb_close(other);
	{
		sqlite3 *s;
		sqlite3_stmt *q;

		assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(s, "SELECT (SELECT count(*) FROM samples) +"
						    " (SELECT count(*) FROM run_summary)", -1, &q, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(q, 0), 0);
		sqlite3_finalize(q);
		sqlite3_close(s);
	}
}


/* A good recording of the test store at path, made anew. */
static void mk_good(const char *path)
{
	char msg[256], p2[160];
	struct recdb *db;
	struct store *st = mk_store();
	int64_t run_id;

	unlink(path);
	snprintf(p2, sizeof(p2), "%s-wal", path);
	unlink(p2);
	snprintf(p2, sizeof(p2), "%s-shm", path);
	unlink(p2);
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	write_store(db, st, &run_id);
	recdb_close(db);
	store_free(st);
}

/* A file whose schema is not exactly spacetime's is refused, by the reader
 * and by the writer, naming the object; one that is, is read. */
static void test_schema_exact(void **state)
{
	static const struct {
		const char *sql, *name;
	} bad[] = {
		{"CREATE VIEW v AS SELECT 1", "'v'"},
		/* a name from the file is quoted as plain ASCII */
		{"CREATE VIEW \"\033[2J\302\233v\" AS SELECT 1", "holds '?[2J?" "?v'"},
		{"CREATE TRIGGER t AFTER INSERT ON samples BEGIN DELETE FROM runs; END", "'t'"},
		{"CREATE INDEX extra ON samples (pss_kib)", "'extra'"},
		{"DROP INDEX samples_run_t", "lacks 'samples_run_t'"},
		{"ALTER TABLE runs ADD COLUMN x INTEGER", "'runs' is not the one"},
		/* the recursive view named runs: refused before anything reads it */
		{"ALTER TABLE runs RENAME TO runs0; CREATE VIEW runs AS WITH RECURSIVE c(x) AS"
		 " (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS id FROM c", "'runs'"},
	};
	char path[128], msg[256];
	struct recdb *db;

	(void)state;
	path_of(path, sizeof(path), "schema.db");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mk_good(path);
		assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
		recdb_close(db);
		raw_sql(path, bad[i].sql);
		expect_refused(path, RECDB_RDONLY, -EMEDIUMTYPE, bad[i].name);
		expect_refused(path, 0, -EMEDIUMTYPE, bad[i].name);
	}
}

/* A recording of schema 1 (an older spacetime's: three runs, no memory kinds
 * in its samples): a reader refuses it in one line; the writer brings it to
 * the schema of now, whole, its samples' kinds unknown; a run recorded into
 * it then keeps its kinds. */
static void test_migrate_v1(void **state)
{
	char path[128], msg[256];
	size_t len;
	char *v1 = fixture_load("recording_v1.db", &len);
	struct recdb *db;
	struct recdb_run_row *rows;
	struct store *back;
	struct sample sm[64];
	int64_t run_id;

	(void)state;
	path_of(path, sizeof(path), "v1.db");
	write_file(path, v1, len);
	free(v1);
	expect_refused(path, RECDB_RDONLY, -ENOPROTOOPT, "written by an older spacetime (schema 1)");
	/* the writer migrates it */
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	recdb_close(db);
	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	ssize_t n = recdb_runs(db, &rows);
	assert_int_equal(n, 3);
	recdb_runs_free(rows, (size_t)n);
	assert_int_equal(recdb_load(db, 1, &back), 0);
	uint64_t cur = 0;
	size_t ns = store_samples(back, &cur, sm, 64, NULL);
	assert_true(ns > 0);
	for (size_t i = 0; i < ns; i++) {
		assert_int_equal(sm[i].valid & SAMPLE_KINDS, 0);
		assert_int_equal(sm[i].swap_kib + sm[i].thp_kib + sm[i].locked_kib, 0);
	}
	assert_true(sm[ns - 1].valid & SAMPLE_PSS); /* the rest as recorded */
	store_free(back);
	recdb_close(db);
	/* a new run in it keeps its kinds */
	struct store *st = mk_store();
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	write_store(db, st, &run_id);
	assert_int_equal(recdb_load(db, run_id, &back), 0);
	assert_store_equal(st, back);
	store_free(back);
	store_free(st);
	recdb_close(db);
}

/* The peak's maps: written with a run (in place of the last written), read
 * back exactly; a value out of its bounds refused, naming it. */
static void test_peak_maps(void **state)
{
	char path[128], msg[256];
	struct recdb *db;
	int64_t run_id;
	struct peakmaps_row rows[3], *back;
	struct store *st = mk_store();

	(void)state;
	path_of(path, sizeof(path), "maps.db");
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	write_store(db, st, &run_id);
	memset(rows, 0, sizeof(rows));
	for (int i = 0; i < 3; i++) {
		rows[i].id = 1 + (uint64_t)(i / 2);
		rows[i].t_ns = BASE + 500 * MS;
		rows[i].g.kind = i ? SMAPS_LIB : SMAPS_ANON;
		snprintf(rows[i].g.name, sizeof(rows[i].g.name), i ? "/usr/lib/lib %d.so (x)" : "[anon]", i);
		rows[i].g.deleted = i == 2;
		rows[i].g.nmaps = 3 + (uint32_t)i;
		for (int f = 0; f < SMAPS_FIELDS; f++)
			rows[i].g.kib[f] = 100 * (uint64_t)i + (uint64_t)f;
	}
	struct recdb_batch b = {.peak_maps_set = 1, .peak_maps = rows, .npeak_maps = 3};
	assert_int_equal(recdb_write(db, run_id, &b), 0);
	/* a later peak's, of one process: in place of them */
	b.npeak_maps = 2;
	assert_int_equal(recdb_write(db, run_id, &b), 0);
	b.npeak_maps = 3;
	assert_int_equal(recdb_write(db, run_id, &b), 0);
	ssize_t n = recdb_peak_maps(db, run_id, &back);
	assert_int_equal(n, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(back[i].id, rows[i].id);
		assert_int_equal(back[i].t_ns, rows[i].t_ns);
		assert_int_equal(back[i].g.kind, rows[i].g.kind);
		assert_string_equal(back[i].g.name, rows[i].g.name);
		assert_int_equal(back[i].g.deleted, rows[i].g.deleted);
		assert_int_equal(back[i].g.nmaps, rows[i].g.nmaps);
		assert_memory_equal(back[i].g.kib, rows[i].g.kib, sizeof(rows[i].g.kib));
	}
	free(back);
	recdb_close(db);
	/* a kind that is none */
	raw_sql(path, "UPDATE peak_maps SET kind = 99 WHERE rowid = (SELECT min(rowid) FROM peak_maps)");
	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_peak_maps(db, run_id, &back), -EBADMSG);
	assert_null(back);
	assert_non_null(strstr(recdb_errmsg(db), "peak_maps.kind"));
	recdb_close(db);
	store_free(st);
}

/* Loads run 1 of path, expecting it refused with a message holding each
 * needle. */
static void expect_load_bad(const char *path, const char *n1, const char *n2)
{
	char msg[256];
	struct recdb *db;
	struct store *st = NULL;

	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	int rc = recdb_load(db, 1, &st);
	if (rc != -EBADMSG || !strstr(recdb_errmsg(db), n1) || (n2 && !strstr(recdb_errmsg(db), n2)))
		fail_msg("load gave %d (%s), want -EBADMSG naming %s %s", rc, recdb_errmsg(db), n1,
			 n2 ? n2 : "");
	assert_null(st);
	recdb_close(db);
}

/* Every value a reader takes in is within its bound and of its type, or the
 * run is refused in one line naming it and the field. */
static void test_bounds(void **state)
{
	static const struct {
		const char *sql, *n1, *n2;
	} bad[] = {
		{"INSERT OR REPLACE INTO run_summary VALUES (1, 'attach_n', 100000000)", "run 1",
		 "attach_n = 100000000 is out of bounds (0..64)"},
		{"INSERT OR REPLACE INTO run_summary VALUES (1, 'attach_n', 65)", "run 1", "attach_n"},
		{"INSERT OR REPLACE INTO run_summary VALUES (1, 'pss_est_share', 1e308 * 10)", "run 1",
		 "pss_est_share"},
		{"INSERT OR REPLACE INTO run_summary VALUES (1, 'mode', 7)", "run 1", "mode"},
		{"INSERT OR REPLACE INTO run_summary VALUES (1, 'peak.t_ns', -2000000000000)", "run 1",
		 "peak.t_ns"},
		{"UPDATE samples SET t_ns = -1000000000001 WHERE rowid = 3", "run 1", "samples.t_ns"},
		{"UPDATE samples SET t_ns = 4000000000000000000 WHERE rowid = 3", "run 1", "samples.t_ns"},
		{"UPDATE samples SET pss_kib = 'lots' WHERE rowid = 2", "samples.pss_kib", "text"},
		{"UPDATE samples SET rss_kib = 1.5 WHERE rowid = 2", "samples.rss_kib", "a real"},
		{"UPDATE samples SET valid = 256 WHERE rowid = 2", "samples.valid", "out of bounds"},
		{"UPDATE events SET type = 99 WHERE rowid = 1", "events.type", "out of bounds"},
		{"UPDATE events SET pid = -3 WHERE rowid = 1", "events.pid", "out of bounds"},
		{"UPDATE processes SET valid = 4096 WHERE seq = 0", "processes.valid", NULL},
		{"UPDATE processes SET wait_io_us = -1 WHERE seq = 0", "processes.wait_io_us", NULL},
		{"UPDATE processes SET comm = 'abcdefghijklmnopqrstuvwxyz' WHERE seq = 0",
		 "processes.comm", "26 bytes long (at most 16)"},
		{"UPDATE processes SET exit_status = 70000 WHERE seq = 0", "processes.exit_status", NULL},
		{"UPDATE execs SET ppid = 99999999 WHERE idx = 0", "execs.ppid", NULL},
		{"UPDATE runs SET base_ns = -1", "run 1", "base_ns"},
	};
	char path[128], msg[256];
	struct recdb *db;
	struct store *st;

	(void)state;
	path_of(path, sizeof(path), "bounds.db");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mk_good(path);
		assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
		assert_int_equal(recdb_load(db, 1, &st), 0);
		store_free(st);
		recdb_close(db);
		raw_sql(path, bad[i].sql);
		expect_load_bad(path, bad[i].n1, bad[i].n2);
	}

	/* a damaged row of runs is listed with its id and why, the others whole */
	mk_good(path);
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	{
		struct recdb_run_info info = { .start_wall_ns = 1, .base_ns = BASE };
		int64_t id;

		assert_int_equal(recdb_run_begin(db, &info, &id), 0);
		assert_int_equal(id, 2);
	}
	recdb_close(db);
	raw_sql(path, "UPDATE runs SET wall_ns = -5 WHERE id = 1");
	struct recdb_run_row *rows;
	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_runs(db, &rows), 2);
	assert_int_equal(rows[0].id, 1);
	assert_non_null(rows[0].damage);
	assert_non_null(strstr(rows[0].damage, "runs.wall_ns = -5 is out of bounds"));
	assert_null(rows[0].argv);
	assert_int_equal(rows[1].id, 2);
	assert_null(rows[1].damage);
	recdb_runs_free(rows, 2);

	/* the per-process samples and the output, loaded for the run at any
	 * instant, check theirs too */
	struct store *back;
	recdb_close(db);
	raw_sql(path, "UPDATE runs SET wall_ns = 5 WHERE id = 1");
	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_load(db, 1, &back), 0);
	store_free(back);
	recdb_close(db);
	raw_sql(path, "INSERT INTO proc_samples SELECT 1, id, 5000000000, -7, 1, 1, 1, 1"
		      " FROM processes WHERE run_id = 1 AND start_ns <= 5000000000 AND"
		      " (end_ns IS NULL OR end_ns > 5000000000)");
	/* a row that breaks a bound is left out, not the run: said in one line */
	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_load(db, 1, &back), 0);
	assert_non_null(strstr(recdb_warning(db), "per-process sample"));
	assert_non_null(strstr(recdb_warning(db), "proc_samples.pss_kib = -7"));
	{
		struct moment m;
		assert_int_equal(moment_take(back, BASE + 5 * SEC, BASE + 5 * SEC, 0, &m), 0);
		for (size_t i = 0; i < m.nprocs; i++)
			assert_true(m.procs[i].pss_kib != (uint64_t)-7);
		moment_free(&m);
	}
	store_free(back);
	recdb_close(db);
	raw_sql(path, "INSERT INTO output VALUES (1, 0, zeroblob(70000));"
		      "INSERT INTO output VALUES (1, 1, 'kept')");
	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_load(db, 1, &back), 0);
	assert_non_null(strstr(recdb_warning(db), "1 output line left out"));
	assert_non_null(strstr(recdb_warning(db), "proc_samples.pss_kib = -7"));
	{
		struct moment m;
		assert_int_equal(moment_take(back, UINT64_MAX / 2, UINT64_MAX / 2, 10, &m), 0);
		assert_true(m.nlines >= 1);
		for (size_t i = 0; i < m.nlines; i++)
			assert_true(m.lines[i].len < 70000);
		moment_free(&m);
	}
	store_free(back);
	/* a run loaded clean says nothing */
	assert_int_equal(recdb_load(db, 2, &back), 0);
	assert_string_equal(recdb_warning(db), "");
	store_free(back);
	recdb_close(db);
}

/* Labels: stored with a run, listed with it, left alone by the summary's
 * writes; one in the file that is no label damages its run's row. */
static void test_labels(void **state)
{
	const char *labels[] = {"branch=main", "commit=abc123", "note=a note, with spaces"};
	struct recdb_run_info info = {.start_wall_ns = 1, .base_ns = BASE, .labels = labels, .nlabels = 3};
	struct recdb_run_info plain = {.start_wall_ns = 2, .base_ns = BASE};
	struct store_summary sum;
	struct recdb_run_row *rows;
	char path[128], msg[256];
	struct recdb *db;
	int64_t id;

	(void)state;
	assert_true(recdb_label_ok("branch=main"));
	assert_true(recdb_label_ok("k.1_-=") );
	assert_false(recdb_label_ok("=v"));
	assert_false(recdb_label_ok("bad key=v"));
	assert_false(recdb_label_ok("k=a\tb"));
	assert_false(recdb_label_ok("nokey"));
	path_of(path, sizeof(path), "labels.db");
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_run_begin(db, &info, &id), 0);
	mk_summary(&sum);
	assert_int_equal(recdb_run_finish(db, id, &sum, RECDB_END_EXITED, 0, NULL), 0);
	assert_int_equal(recdb_run_begin(db, &plain, &id), 0);
	recdb_close(db);
	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_runs(db, &rows), 2);
	assert_non_null(rows[0].labels);
	/* in key order, each NUL-terminated */
	const char want[] = "branch=main\0commit=abc123\0note=a note, with spaces";
	assert_int_equal(rows[0].labels_len, sizeof(want));
	assert_memory_equal(rows[0].labels, want, sizeof(want));
	assert_null(rows[1].labels);
	recdb_runs_free(rows, 2);
	/* its summary loads as ever: the label rows are no field of it */
	struct store *st;
	assert_int_equal(recdb_load(db, 1, &st), 0);
	store_free(st);
	recdb_close(db);
	raw_sql(path, "INSERT INTO run_summary VALUES (2, 'label.x', 'a' || char(27) || 'b')");
	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_runs(db, &rows), 2);
	assert_null(rows[0].damage);
	assert_non_null(rows[1].damage);
	assert_non_null(strstr(rows[1].damage, "label.x"));
	assert_null(rows[1].labels);
	recdb_runs_free(rows, 2);
	recdb_close(db);
}

/* A run written to a file of its own: the copy loads as the run it came
 * from, alone in its file (private, one file, no -wal); without its output it
 * has no output lines and no working directory; an existing file is refused
 * and left as it was. */
static void test_copy(void **state)
{
	char path[128], out[128], bare[128], side[160], msg[512];
	struct store *st, *orig, *back;
	struct recdb *db, *cp;
	struct recdb_run_row *rows;
	struct outlog_line *lines;
	struct stat sb;
	int64_t a, b;
	int cut;

	(void)state;
	path_of(path, sizeof(path), "copysrc.db");
	path_of(out, sizeof(out), "copy.db");
	path_of(bare, sizeof(bare), "bare.db");
	st = mk_store();
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	write_store(db, st, &a);
	write_store(db, st, &b); /* the one copied: not the first */
	assert_int_equal(recdb_copy_run(db, 99, out, 0, msg, sizeof(msg)), -ENOENT);
	assert_int_equal(stat(out, &sb), -1);
	assert_int_equal(recdb_copy_run(db, b, out, 0, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_copy_run(db, b, bare, RECDB_COPY_NO_OUTPUT, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_copy_run(db, a, out, 0, msg, sizeof(msg)), -EEXIST);
	assert_non_null(strstr(msg, "exists"));
	/* a -wal of that name already there: refused, nothing made, it kept */
	char other[128], otherwal[160];
	path_of(other, sizeof(other), "other.db");
	snprintf(otherwal, sizeof(otherwal), "%s-wal", other);
	int wfd = open(otherwal, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(wfd >= 0);
	close(wfd);
	assert_int_equal(recdb_copy_run(db, a, other, 0, msg, sizeof(msg)), -EEXIST);
	assert_non_null(strstr(msg, "-wal exists"));
	assert_int_equal(stat(other, &sb), -1);
	assert_int_equal(stat(otherwal, &sb), 0);
	assert_int_equal(recdb_load(db, b, &orig), 0);
	recdb_close(db);

	assert_int_equal(stat(out, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	snprintf(side, sizeof(side), "%s-wal", out);
	assert_int_equal(stat(side, &sb), -1);
	assert_int_equal(recdb_open(out, RECDB_RDONLY, &cp, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_runs(cp, &rows), 1);
	assert_int_equal(rows[0].id, b);
	assert_string_equal(rows[0].cwd, "/src");
	assert_int_equal(rows[0].end, RECDB_END_EXITED);
	recdb_runs_free(rows, 1);
	assert_int_equal(recdb_load(cp, b, &back), 0);
	assert_store_equal(orig, back);
	assert_int_equal(store_lines_to(back, UINT64_MAX, 10, &lines, &cut), 4);
	free(lines);
	store_free(back);
	recdb_close(cp);
	/* a reader leaves the copy one file */
	assert_int_equal(stat(side, &sb), -1);

	assert_int_equal(recdb_open(bare, RECDB_RDONLY, &cp, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_runs(cp, &rows), 1);
	assert_null(rows[0].cwd);
	assert_string_equal(rows[0].host, "box");
	recdb_runs_free(rows, 1);
	assert_int_equal(recdb_load(cp, b, &back), 0);
	assert_store_equal(orig, back);
	assert_int_equal(store_lines_to(back, UINT64_MAX, 10, &lines, &cut), 0);
	free(lines);
	store_free(back);
	recdb_close(cp);
	store_free(orig);
	store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_unfinished),
		cmocka_unit_test(test_last_at_end),
		cmocka_unit_test(test_procs_and_output_at),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_resolve_and_prune),
		cmocka_unit_test(test_pruned_while_written),
		cmocka_unit_test(test_schema_exact),
		cmocka_unit_test(test_migrate_v1),
		cmocka_unit_test(test_peak_maps),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
