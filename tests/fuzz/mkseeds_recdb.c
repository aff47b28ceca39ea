/* mkseeds_recdb: writes a small recording with the real writer (recdb.c), the
 * base of the recdb fuzz target's seeds; tests/fuzz/mkseeds-recdb.sh makes
 * its variants and the seed files (make fuzz-seeds). Three runs, each with
 * samples, events, processes (exited and live), execs, per-process samples
 * and output lines, all times fixed, so the file's rows are the same every
 * time (but runs.updated_wall_ns, the writer's clock, which the script sets):
 *   1  spawned, exited 3 with its summary and last sample (RECDB_END_EXITED)
 *   2  attached to two pids, detached (attach_pid.0, attach_pid.1)
 *   3  spawned, still running: no end, no last.* rows, one process alive
 * Usage: mkseeds_recdb FILE (FILE must not exist). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recdb.h"

#define BASE_NS 5000000000000ull     /* CLOCK_MONOTONIC origin of run 1 */
#define WALL_NS 1700000000000000000ull /* CLOCK_REALTIME of run 1's start */
#define TICK_NS 100000000ull           /* 100 ms between samples */
#define NSAMPLES 6

static const char *argv0 = "mkseeds_recdb";

static void die(const char *what, struct recdb *db, int rc)
{
	fprintf(stderr, "%s: %s: %s (%s)\n", argv0, what, db ? recdb_errmsg(db) : "", strerror(-rc));
	recdb_close(db);
	exit(1);
}

/* Sample i of a run starting at base: PSS rising to a peak at i = 3. */
static struct sample mk_sample(uint64_t base, int i)
{
	static const uint64_t pss[NSAMPLES] = {1200, 5400, 9800, 12400, 7000, 3100};
	struct sample s;

	memset(&s, 0, sizeof(s));
	s.t_ns = base + (uint64_t)(i + 1) * TICK_NS;
	s.pss_kib = pss[i];
	s.pss_anon_kib = pss[i] * 3 / 4;
	s.pss_file_kib = pss[i] - s.pss_anon_kib - 16;
	s.pss_shmem_kib = 16;
	s.pss_est_kib = i == 2 ? 300 : 0;
	s.pss_hi_kib = pss[i] + s.pss_est_kib;
	s.rss_kib = pss[i] * 2;
	s.minflt = 400 * (uint64_t)(i + 1);
	s.majflt = (uint64_t)i / 2;
	s.utime_us = 30000 * (uint64_t)(i + 1);
	s.stime_us = 5000 * (uint64_t)(i + 1);
	s.live_procs = i < 4 ? 3 : 1;
	s.live_threads = s.live_procs + 1;
	s.total_procs = 3;
	s.total_threads = 4;
	s.valid = i == 0 ? SAMPLE_RSS | SAMPLE_COUNTS
			 : SAMPLE_PSS | SAMPLE_RSS | SAMPLE_FAULTS | SAMPLE_CPU | SAMPLE_COUNTS;
	return s;
}

/* Process k of a run: 1 the command (sh), 2 make, 3 cc1 (alive when live). */
static struct recdb_proc mk_proc(uint64_t base, int k, int live)
{
	static const char *const comm[] = {"", "sh", "make", "cc1"};
	static const char argv1[] = "sh\0-c\0make -j2 all", argv2[] = "make\0-j2\0all",
			  argv3[] = "/usr/lib/gcc/x86_64-linux-gnu/12/cc1\0-quiet\0main.c";
	struct recdb_proc p;

	memset(&p, 0, sizeof(p));
	p.rec.id = 0x10000 + (uint64_t)k;
	p.seq = (uint64_t)k - 1;
	p.rec.pid = 4000 + k;
	p.rec.ppid = k == 1 ? 3999 : 4000 + k - 1;
	p.rec.start_ns = base + (uint64_t)k * 1000000;
	if (!(live && k == 3))
		p.rec.end_ns = base + (uint64_t)(NSAMPLES + 1 - k) * TICK_NS;
	snprintf(p.rec.comm, sizeof(p.rec.comm), "%s", comm[k]);
	p.argv = k == 1 ? argv1 : k == 2 ? argv2 : argv3;
	p.argv_len = k == 1 ? sizeof(argv1) - 1 : k == 2 ? sizeof(argv2) - 1 : sizeof(argv3) - 1;
	p.rec.threads = k == 2 ? 2 : 1;
	p.rec.nexec = 1;
	p.rec.pss_kib = 1000 * (uint64_t)k;
	p.rec.rss_kib = 2000 * (uint64_t)k;
	p.rec.peak_pss_kib = 4000 * (uint64_t)k;
	p.rec.peak_pss_t_ns = base + 4 * TICK_NS;
	p.rec.peak_rss_kib = 8000 * (uint64_t)k;
	p.rec.pss_age_ns = 20000000;
	p.rec.utime_us = 10000 * (uint64_t)k;
	p.rec.stime_us = 2000 * (uint64_t)k;
	p.rec.minflt = 100 * (uint64_t)k;
	p.rec.majflt = (uint64_t)k - 1;
	p.rec.valid = PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS | PROC_V_ARGV;
	if (p.rec.end_ns) {
		p.rec.exit_status = k == 1 ? 3 << 8 : 0;
		p.rec.valid |= PROC_V_EXIT;
	}
	return p;
}

/* The summary of a run of base with samples smp. */
static struct store_summary mk_summary(uint64_t base, const struct sample *smp, int attached,
				       int ended)
{
	struct store_summary s;

	memset(&s, 0, sizeof(s));
	s.start_ns = base;
	if (ended) {
		s.end_ns = s.root_end_ns = smp[NSAMPLES - 1].t_ns + TICK_NS / 2;
		s.exited = !attached;
		s.wait_status = attached ? 0 : 3 << 8;
	}
	s.ru_utime_us = 180000;
	s.ru_stime_us = 30000;
	s.ru_maxrss_kib = 24000;
	s.max_tree_rss_kib = 24800;
	s.ru_minflt = 2400;
	s.ru_majflt = 2;
	s.ru_nvcsw = 40;
	s.ru_nivcsw = 7;
	s.ru_inblock = 8;
	s.ru_oublock = 64;
	s.peak = smp[3];
	s.peak_measured = 1;
	s.peak_unconfirmed_kib = attached ? 13000 : 0;
	s.pss_est_share = 0.0125;
	s.pss_sweeps = 2;
	s.pss_sweep_reads = 5;
	s.pss_sweeps_unstable = 1;
	s.fast_ticks = 3;
	s.last = smp[NSAMPLES - 1];
	s.lost_events = attached;
	s.rescans = attached;
	s.total_execs = 3;
	s.mode = attached ? STORE_MODE_POLL : STORE_MODE_NETLINK;
	s.pss_reads = 17;
	s.pss_cpu_ns = 900000;
	s.budget_ns = 6000000;
	s.pss_max_age_ns = 200000000;
	s.pss_mean_age_ns = 60000000;
	s.collector_cpu_ns = 2500000;
	s.self_cpu_ns = 4000000;
	s.interval_ms = 100;
	s.collector_wakeups = 9;
	s.nl_events = attached ? 0 : 11;
	s.taskstats = !attached;
	s.ts_records = attached ? 0 : 3;
	s.attached = attached;
	if (attached) {
		s.detached = 1;
		s.attach_n = 2;
		s.attach_pid[0] = 4001;
		s.attach_pid[1] = 4077;
		s.attach_prior_cpu_us = 52000;
	}
	return s;
}

/* Writes run k (1, 2 or 3, see the top) in two batches, as the recorder
 * does: everything but the last sample, then the rest with the end. */
static void mk_run(struct recdb *db, int k)
{
	/* an attached run's command line is its first pid's (ui/main.c) */
	static const char argv_spawned[] = "make\0-j2\0all", argv_attached[] = "python3\0serve.py";
	static const char *const out[] = {"cc -c main.c", "main.c:3:1: warning: \xe2\x80\x98x\xe2\x80\x99 unused",
					  "\x1b[1mdone\x1b[0m", "bad utf-8 \xff\xfe", ""};
	uint64_t base = BASE_NS + (uint64_t)(k - 1) * 60 * 1000000000ull;
	int attached = k == 2, ended = k != 3;
	struct recdb_run_info info = {
		.start_wall_ns = WALL_NS + (uint64_t)(k - 1) * 60 * 1000000000ull,
		.base_ns = base,
		.argv = attached ? argv_attached : argv_spawned,
		.argv_len = attached ? sizeof(argv_attached) - 1 : sizeof(argv_spawned) - 1,
		.cwd = k == 3 ? NULL : "/home/dev/src/hello",
		.host = "buildbox",
		.attached = attached,
	};
	struct sample smp[NSAMPLES];
	struct store_event ev[6];
	struct recdb_proc procs[3];
	struct recdb_exec ex[3];
	struct store_proc_sample ps[6];
	struct recdb_line lines[5];
	struct store_summary sum;
	int64_t id;
	int rc;

	if ((rc = recdb_run_begin(db, &info, &id)) < 0)
		die("starting a run", db, rc);
	for (int i = 0; i < NSAMPLES; i++)
		smp[i] = mk_sample(base, i);
	for (int i = 0; i < 3; i++) {
		procs[i] = mk_proc(base, i + 1, !ended);
		memset(&ex[i], 0, sizeof(ex[i]));
		ex[i].idx = (uint64_t)i;
		ex[i].ex.t_ns = procs[i].rec.start_ns + 500000;
		ex[i].ex.pid = procs[i].rec.pid;
		ex[i].ex.ppid = procs[i].rec.ppid;
		memcpy(ex[i].ex.comm, procs[i].rec.comm, sizeof(ex[i].ex.comm));
		/* the last exec's argv was not read (its process was gone) */
		ex[i].argv = i == 2 ? NULL : procs[i].argv;
		ex[i].argv_len = i == 2 ? 0 : procs[i].argv_len;
	}
	for (int i = 0; i < 6; i++) {
		const struct recdb_proc *p = &procs[i % 3];

		ev[i] = (struct store_event){
			.t_ns = i < 3 ? p->rec.start_ns : p->rec.end_ns ? p->rec.end_ns : base + TICK_NS,
			.type = i < 3 ? (i == 0 ? STORE_EV_EXEC : STORE_EV_FORK) : STORE_EV_EXIT,
			.pid = p->rec.pid,
			.ppid = p->rec.ppid,
			.arg = i < 3 ? 0 : p->rec.exit_status,
		};
		if (i == 5 && attached)
			ev[i] = (struct store_event){.t_ns = base + 2 * TICK_NS, .type = STORE_EV_LOST,
						     .arg = 4};
		ps[i] = (struct store_proc_sample){
			.id = p->rec.id,
			.t_ns = base + (uint64_t)(i / 3 + 1) * 2 * TICK_NS,
			.pss_kib = 3000 + 1000 * (uint64_t)i,
			.rss_kib = 6000 + 1000 * (uint64_t)i,
			.cpu_us = 7000 * (uint64_t)i,
			.minflt = 50 * (uint64_t)i,
			.majflt = (uint64_t)i % 2,
			.valid = i == 4 ? PROC_V_RSS : PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS,
		};
	}
	for (int i = 0; i < 5; i++)
		lines[i] = (struct recdb_line){.t_ns = base + (uint64_t)(i + 1) * TICK_NS + 7,
					       .bytes = out[i], .len = strlen(out[i])};
	sum = mk_summary(base, smp, attached, ended);

	struct recdb_batch b = {
		.samples = smp, .nsamples = NSAMPLES - 1, .events = ev, .nevents = 3,
		.procs = procs, .nprocs = 3, .execs = ex, .nexecs = 3, .psamples = ps,
		.npsamples = 4, .lines = lines, .nlines = 3, .summary = &sum,
	};
	if ((rc = recdb_write(db, id, &b)) < 0)
		die("writing a run", db, rc);
	if (!ended)
		return;
	struct recdb_end_info end = {.end = attached ? RECDB_END_DETACHED : RECDB_END_EXITED};
	b = (struct recdb_batch){
		.samples = smp + NSAMPLES - 1, .nsamples = 1, .events = ev + 3, .nevents = 3,
		.procs = procs, .nprocs = 3, .psamples = ps + 4, .npsamples = 2,
		.lines = lines + 3, .nlines = 2, .summary = &sum, .final = 1, .end = &end,
	};
	if ((rc = recdb_write(db, id, &b)) < 0)
		die("finishing a run", db, rc);
}

int main(int argc, char **argv)
{
	struct recdb *db;
	char msg[512];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv0);
		return 2;
	}
	if ((rc = recdb_open(argv[1], 0, &db, msg, sizeof(msg))) < 0) {
		fprintf(stderr, "%s: %s\n", argv0, msg);
		return 1;
	}
	for (int k = 1; k <= 3; k++)
		mk_run(db, k);
	recdb_close(db);
	return 0;
}
