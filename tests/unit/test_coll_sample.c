/* Unit tests for coll_sample.c (and the tick that sums its samples) on a
 * fake /proc: the figures of a sample are the sums of what the fake stat,
 * statm and smaps_rollup files say; a process whose pid changed hands is not
 * sampled as the new holder; the injected clock dates what has no event. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fakeproc.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define P1 FP_PID
#define P2 (FP_PID + 1)
#define X (FP_PID + 2)

/* The one exited record of the store (the test retires one at a time). */
static struct proc_rec exited_one(struct fakeproc *f)
{
	struct proc_rec r[4];

	assert_int_equal(store_procs(f->st, STORE_PROCS_EXITED, r, 4), 1);
	return r[0];
}

/* A netlink-mode collector following P1 (exec'd: its memory counts) and its
 * child P2, with known stat and statm. */
static struct fakeproc *two_procs(void)
{
	struct fakeproc *f = fp_new(1);

	fp_stat(f, P1, &(struct fp_stat){.ppid = 1, .comm = "make", .minflt = 1000, .majflt = 3,
					  .utime_ticks = 150, .stime_ticks = 50, .start_ticks = 10,
					  .rss_pages = 300});
	fp_statm(f, P1, 5000, 300, 100);
	fp_stat(f, P2, &(struct fp_stat){.ppid = P1, .comm = "cc1", .minflt = 500, .majflt = 1,
					  .utime_ticks = 20, .stime_ticks = 10, .threads = 3,
					  .start_ticks = 20, .rss_pages = 200});
	fp_statm(f, P2, 4000, 200, 50);
	f->c->root = P1;
	struct pentry *e = coll_sample_add_proc(f->c, P1, 1, f->now_ns, NULL);
	assert_non_null(e);
	e->rec.nexec = 1;
	assert_non_null(coll_sample_add_proc(f->c, P2, P1, f->now_ns, NULL));
	return f;
}

/* A tick's sample sums the processes' stat (CPU, faults, threads) and statm
 * (RSS) figures; each record holds its own. */
static void test_sample_sums(void **state)
{
	(void)state;
	struct fakeproc *f = two_procs();
	uint64_t pk = (uint64_t)procfs_page_kib(), hz = (uint64_t)procfs_hz();

	collector_tick(f->c);
	const struct sample *s = &f->c->sum.last;
	assert_int_equal(s->t_ns, f->now_ns);
	assert_int_equal(s->minflt, 1500);
	assert_int_equal(s->majflt, 4);
	assert_int_equal(s->utime_us, (150 + 20) * 1000000 / hz);
	assert_int_equal(s->stime_us, (50 + 10) * 1000000 / hz);
	assert_int_equal(s->rss_kib, (300 + 200) * pk);
	assert_int_equal(s->live_procs, 2);
	assert_int_equal(s->live_threads, 1 + 3);
	assert_true(s->valid & SAMPLE_RSS);
	const struct pentry *e = ptable_get(f->c->pt, P2);
	assert_int_equal(e->rec.rss_kib, 200 * pk);
	assert_int_equal(e->anon_rss, 150 * pk);
	assert_int_equal(e->shared_rss, 50 * pk);
	assert_string_equal(e->rec.comm, "cc1");
	fp_free(f);
}

/* Once both processes' smaps_rollup are read, the tree's PSS is exactly the
 * sum of their Pss figures, and measured. */
static void test_sample_pss_read(void **state)
{
	(void)state;
	struct fakeproc *f = two_procs();
	uint64_t pk = (uint64_t)procfs_page_kib();

	/* consistent with statm: Rss = resident, Anonymous = resident - shared */
	fp_rollup(f, P1, 300 * pk, 200 * pk, 700, 90, 10, 600);
	fp_rollup(f, P2, 200 * pk, 150 * pk, 500, 40, 0, 450);
	collector_tick(f->c); /* the counters */
	f->now_ns += 100000000;
	uint64_t reads = f->c->sum.pss_reads;
	for (size_t i = 0; i < ptable_count(f->c->pt); i++)
		coll_pss_read(f->c, ptable_at(f->c->pt, i), f->now_ns, NULL);
	assert_int_equal(f->c->sum.pss_reads, reads + 2);
	collector_tick(f->c);
	const struct sample *s = &f->c->sum.last;
	assert_int_equal(s->pss_kib, 700 + 90 + 10 + 500 + 40);
	assert_int_equal(s->pss_anon_kib, 700 + 500);
	assert_int_equal(s->pss_file_kib, 90 + 40);
	assert_int_equal(s->pss_shmem_kib, 10);
	assert_int_equal(ptable_get(f->c->pt, P1)->rec.pss_kib, 800);
	assert_int_equal(ptable_get(f->c->pt, P2)->rec.pss_kib, 540);
	assert_false(ptable_get(f->c->pt, P2)->rec.valid & PROC_V_PSS_EST);
	fp_free(f);
}

/* A pid that changed hands (another start time in stat): the entry is not
 * sampled as the new process, which keeps its own counters. */
static void test_sample_reused_pid(void **state)
{
	(void)state;
	struct fakeproc *f = two_procs();
	struct pentry *e = ptable_get(f->c->pt, P2);

	assert_int_equal(coll_sample_cheap(f->c, e, f->now_ns), 0);
	assert_int_equal(e->rec.minflt, 500);
	fp_stat(f, P2, &(struct fp_stat){.ppid = 1, .comm = "other", .minflt = 99999, .start_ticks = 80});
	assert_int_equal(coll_sample_cheap(f->c, e, f->now_ns), -ESRCH);
	assert_int_equal(e->rec.minflt, 500);
	assert_string_equal(e->rec.comm, "cc1");
	fp_free(f);
}

/* A child whose fork event was lost, known only by its exit event: when its
 * pid's /proc entry is a later process's (started after that exit), it is
 * retired with no figures of the stranger's; when it is the child's zombie,
 * with the zombie's. */
static void test_sample_lost_child_identity(void **state)
{
	(void)state;
	struct fakeproc *f = two_procs();
	uint64_t t_exit = 3000000000ull;
	struct nlproc_event ev = {.type = NLPROC_EXIT, .pid = X, .tgid = X, .ppid = P1, .ptgid = P1,
				  .ts_ns = t_exit, .exit_code = 0};

	f->now_ns = t_exit + 100000000;
	coll_events_on_event(f->c, &ev);
	assert_non_null(ptable_get(f->c->pt, X));
	/* a stranger has X's pid now, alive, started 1 s after the exit */
	fp_stat(f, X, &(struct fp_stat){.ppid = 1, .comm = "stranger", .minflt = 77777,
					 .start_ticks = fp_ticks(t_exit + 1000000000ull)});
	fp_statm(f, X, 100, 10, 1);
	coll_sample_retire_exited(f->c);
	assert_null(ptable_get(f->c->pt, X));
	struct proc_rec r = exited_one(f);
	assert_int_equal(r.pid, X);
	assert_int_equal(r.end_ns, t_exit);
	assert_int_equal(r.minflt, 0);
	assert_string_not_equal(r.comm, "stranger");
	assert_int_equal(f->c->gone_minflt, 0);
	fp_free(f);

	/* the same, but /proc shows the child's own zombie */
	f = two_procs();
	f->now_ns = t_exit + 100000000;
	coll_events_on_event(f->c, &ev);
	fp_stat(f, X, &(struct fp_stat){.ppid = P1, .comm = "child", .state = 'Z', .minflt = 321,
					 .start_ticks = fp_ticks(t_exit - 500000000ull)});
	coll_sample_retire_exited(f->c);
	assert_null(ptable_get(f->c->pt, X));
	r = exited_one(f);
	assert_int_equal(r.minflt, 321);
	assert_int_equal(f->c->gone_minflt, 321);
	fp_free(f);
}

/* The injected clock dates what has no event time: a leader that ended
 * before its threads ends when /proc shows the last gone, and an entry
 * retired without a time ends now. */
static void test_sample_clock(void **state)
{
	(void)state;
	struct fakeproc *f = two_procs();
	struct pentry *e = ptable_get(f->c->pt, P2);

	e->exit_pending = 1;
	e->exit_ns = 2000000000ull;
	/* a zombie leader whose threads live on */
	fp_stat(f, P2, &(struct fp_stat){.ppid = P1, .state = 'Z', .threads = 2, .start_ticks = 20});
	coll_sample_retire_exited(f->c);
	assert_non_null(ptable_get(f->c->pt, P2));
	f->now_ns = 7000000000ull;
	fp_stat(f, P2, &(struct fp_stat){.ppid = P1, .state = 'Z', .threads = 1, .start_ticks = 20});
	coll_sample_retire_exited(f->c);
	assert_null(ptable_get(f->c->pt, P2));
	assert_int_equal(exited_one(f).end_ns, 7000000000ull);
	fp_free(f);

	f = two_procs();
	f->now_ns = 5500000000ull;
	coll_sample_retire(f->c, ptable_get(f->c->pt, P2), 0, 0, 0, NULL);
	assert_int_equal(exited_one(f).end_ns, 5500000000ull);
	fp_free(f);
}

/* The per-process samples pushed at ticks (collector_config.proc_samples):
 * every live process at its first tick, then only one whose RSS moved by more
 * than STORE_PS_MOVE (and STORE_PS_MOVE_KIB), and each at least every
 * STORE_PS_EVERY_NS, with the figures its record had then; and when the
 * peak moves, the PSS and RSS of each process in it that a sample does not
 * hold yet (a process list at the peak shows them). */
static void test_sample_proc_samples(void **state)
{
	(void)state;
	struct fakeproc *f = two_procs();
	struct store_proc_sample ps[16];
	uint64_t cur = 0, pk = (uint64_t)procfs_page_kib(), t0 = f->now_ns;
	uint64_t id2 = ptable_get(f->c->pt, P2)->rec.id;
	/* P2 at 20000 pages, then 1% less (past STORE_PS_MOVE_KIB, short of
	 * STORE_PS_MOVE: the peak stays), then 10% more (a new peak), then 1%
	 * more (a new peak too) */
	const uint64_t rss[4] = {20000, 19800, 22000, 22200};

	for (int k = 0; k < 4; k++) {
		fp_stat(f, P2, &(struct fp_stat){.ppid = P1, .comm = "cc1", .minflt = 500 + (uint64_t)k,
						  .majflt = 1, .utime_ticks = 20, .stime_ticks = 10,
						  .threads = 3, .start_ticks = 20, .rss_pages = rss[k]});
		fp_statm(f, P2, 40000, rss[k], 50);
		if (k == 0) {
			f->c->cfg.proc_samples = 1;
			collector_tick(f->c);
			assert_int_equal(store_proc_samples(f->st, &cur, ps, 16, NULL), 2);
			assert_int_equal(ps[0].t_ns, t0);
			assert_int_equal(ps[1].id, id2);
			assert_int_equal(ps[1].rss_kib, rss[0] * pk);
			assert_int_equal(ps[1].minflt, 500);
			assert_true(ps[1].valid & PROC_V_RSS);
			/* still: nothing */
			f->now_ns += 100000000;
			collector_tick(f->c);
			assert_int_equal(store_proc_samples(f->st, &cur, ps, 16, NULL), 0);
			continue;
		}
		f->now_ns += 100000000;
		collector_tick(f->c);
		if (k == 1) {
			assert_int_equal(store_proc_samples(f->st, &cur, ps, 16, NULL), 0);
			continue;
		}
		/* a sample of its own (the figures at the peak are its) */
		assert_int_equal(store_proc_samples(f->st, &cur, ps, 16, NULL), 1);
		assert_int_equal(ps[0].id, id2);
		assert_int_equal(ps[0].t_ns, f->now_ns);
		assert_int_equal(ps[0].rss_kib, rss[k] * pk);
		if (k == 2) {
			assert_int_equal(ps[0].minflt, 502);
			assert_true(ps[0].valid & PROC_V_CPU);
		} else { /* moved too little for one: the peak's figures alone */
			assert_int_equal(ps[0].valid, PROC_V_PSS | PROC_V_RSS);
			assert_int_equal(ps[0].minflt, 0);
		}
	}
	/* a second after its last one, each has one more, moved or not: P1
	 * now, P2 (sampled later) not yet */
	f->now_ns = t0 + 1000000000ull + 100000000;
	collector_tick(f->c);
	assert_int_equal(store_proc_samples(f->st, &cur, ps, 16, NULL), 1);
	assert_int_equal(ps[0].id, ptable_get(f->c->pt, P1)->rec.id);
	fp_free(f);
}

/* statm is read again only when stat's rss moved since the last statm read
 * (the two differ by a few pages, being read differently): a tick of an idle
 * process reads stat alone. */
static void test_sample_statm_skipped(void **state)
{
	(void)state;
	struct fakeproc *f = two_procs();
	uint64_t pk = (uint64_t)procfs_page_kib();
	const struct pentry *e = ptable_get(f->c->pt, P2);
	struct fp_stat st = {.ppid = P1, .comm = "cc1", .minflt = 500, .majflt = 1, .utime_ticks = 20,
			     .stime_ticks = 10, .threads = 3, .start_ticks = 20, .rss_pages = 190};

	fp_stat(f, P2, &st); /* stat says 190 pages, statm 200 */
	collector_tick(f->c);
	assert_int_equal(e->rec.rss_kib, 200 * pk);
	fp_statm(f, P2, 4000, 260, 50); /* statm alone moves: not read */
	f->now_ns += 100000000;
	collector_tick(f->c);
	assert_int_equal(e->rec.rss_kib, 200 * pk);
	st.rss_pages = 250; /* stat moves: statm read */
	fp_stat(f, P2, &st);
	f->now_ns += 100000000;
	collector_tick(f->c);
	assert_int_equal(e->rec.rss_kib, 260 * pk);
	assert_int_equal(e->anon_rss, 210 * pk);
	fp_free(f);
}

/* A real child, stopped until killed: it execs /bin/sleep with argv (rewrite
 * 0), or, forked without exec, rewrites the end of its command-line area as
 * setproctitle does (rewrite 1). Returns once /proc shows it ready. */
static pid_t real_child(int rewrite)
{
	int p[2];
	char c;

	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test leaves no child behind */
		if (!rewrite) {
			fcntl(p[1], F_SETFD, FD_CLOEXEC); /* closed by the exec: ready */
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
			_exit(127);
		}
		char buf[1024];
		uint64_t a, b;
		ssize_t n = procfs_read(getpid(), "stat", buf, sizeof(buf));
		if (n <= 0 || procfs_parse_stat_args(buf, (size_t)n, &a, &b) < 0 || b <= a)
			_exit(126);
		*(char *)(uintptr_t)(b - 1) = 'X'; /* the last NUL gone */
		close(p[1]);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 0);
	close(p[0]);
	/* the pipe closes early in the exec, before its argument area is set:
	 * wait until stat shows the new program with its bounds */
	for (int i = 0; i < 2000; i++) {
		char buf[1024];
		struct procfs_stat ps;
		uint64_t a, b;
		ssize_t n = procfs_read(pid, "stat", buf, sizeof(buf));
		if (n > 0 && procfs_parse_stat(buf, (size_t)n, &ps) == 0 &&
		    procfs_parse_stat_args(buf, (size_t)n, &a, &b) == 0 && b > a &&
		    (rewrite || strcmp(ps.comm, "sleep") == 0))
			break;
		usleep(1000);
	}
	return pid;
}

/* At an exec the command line is read from the process's memory, between the
 * bounds its stat gives, and is what /proc/PID/cmdline says; an area whose
 * end was rewritten is read from cmdline instead. On the real /proc. */
static void test_sample_exec_argv(void **state)
{
	(void)state;
	for (int rewrite = 0; rewrite < 2; rewrite++) {
		struct store *st = store_new(NULL);
		struct collector_config cc = {.interval_ms = 100, .budget = 0.01, .nl_fd = -1,
					      .nl_quiet_fd = -1, .ts_fd = -1};
		struct collector *c = collector_new(st, &cc);
		pid_t pid = real_child(rewrite);
		char want[4096], got[4096];
		struct store_exec ex;

		assert_non_null(c);
		if (!rewrite) {
			/* where reading another process's memory is refused
			 * (seccomp, yama 3), there is nothing to test */
			char x;
			struct iovec l = {&x, 1}, r = {(void *)&x, 1};
			if (process_vm_readv(pid, &l, 1, &r, 1, 0) < 0 && (errno == EPERM || errno == ENOSYS)) {
				kill(pid, SIGKILL);
				waitpid(pid, NULL, 0);
				collector_free(c);
				store_free(st);
				skip();
			}
		}
		c->sum.mode = COLLECTOR_NETLINK;
		struct pentry *e = coll_sample_add_proc(c, pid, getpid(), collector_now_ns(), NULL);
		assert_non_null(e);
		coll_sample_note_exec(c, e, collector_now_ns());
		ssize_t wn = procfs_read(pid, "cmdline", want, sizeof(want));
		assert_true(wn > 0);
		if (want[wn - 1] == '\0')
			wn--;
		assert_int_equal(store_execs(st, 0, &ex, 1), 1);
		ssize_t gn = store_str_get(st, ex.argv_id, got, sizeof(got));
		assert_int_equal(gn, wn);
		assert_memory_equal(got, want, (size_t)wn);
		if (!rewrite)
			assert_memory_equal(got, "sleep\0" "30", 8);
		assert_int_equal(c->sm.argv_vm_reads, rewrite ? 0 : 1);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		collector_free(c);
		store_free(st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_sums),
		cmocka_unit_test(test_sample_pss_read),
		cmocka_unit_test(test_sample_reused_pid),
		cmocka_unit_test(test_sample_lost_child_identity),
		cmocka_unit_test(test_sample_clock),
		cmocka_unit_test(test_sample_proc_samples),
		cmocka_unit_test(test_sample_exec_argv),
		cmocka_unit_test(test_sample_statm_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
