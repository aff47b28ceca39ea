/* Unit tests for the collector thread against a real, short process tree,
 * while this thread reads the store the way the dashboard does (summary,
 * series, live and exited records, events) in a loop. Built with TSan by
 * make check-san: the collector writing and the reader copying race here if
 * anywhere.
 *
 * The tree (forked by the test, so its truth is known): the root waits for a
 * go, execs this binary again, forks KIDS children, maps and touches
 * ROOT_MIB; each child maps and touches KID_MIB and waits; once all have, the
 * root holds HOLD_MS, lets them exit (with 10 + their index), reaps them,
 * holds HOLD_MS more and exits with ROOT_EXIT. So the tree has 1 + KIDS
 * processes, all alive at once with ROOT_MIB + KIDS * KID_MIB of their own
 * anonymous memory for HOLD_MS. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "nlproc.h"
#include "store.h"

#define KIDS 3
#define ROOT_MIB 32
#define KID_MIB 16
#define HOLD_MS 400
#define ROOT_EXIT 7
#define TREE_MIB (ROOT_MIB + KIDS * KID_MIB)
/* What a forked copy of this test may hold besides the memory it touches
 * (libc, cmocka, the sanitizer runtimes' own pages), per process. */
#define SLACK_MIB 8

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Maps mib MiB of private anonymous memory and writes every page (mmap, not
 * malloc: the sanitizers' allocators would add their own pages; not
 * instrumented: TSan would write a shadow page for each page touched). */
__attribute__((no_sanitize("address", "thread", "undefined")))
static void touch_mib(size_t mib)
{
	size_t len = mib << 20;
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(99);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = (char)(i >> 12 | 1);
}

/* The root of the tree, once it has exec'd (this binary, with argument
 * "tree-root": the collector counts the command from its first exec, as
 * spawn runs it); never returns. */
static void tree_root(void)
{
	pid_t kids[KIDS];
	int ok = 1, hold[2], ready[2];
	char x;

	/* the children hold their memory until the root has held its own (and
	 * theirs) HOLD_MS: the whole tree is at its peak that long */
	if (pipe(hold) < 0 || pipe(ready) < 0)
		_exit(94);
	for (int i = 0; i < KIDS; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			close(hold[1]);
			close(ready[0]);
			touch_mib(KID_MIB);
			if (write(ready[1], "r", 1) != 1 || read(hold[0], &x, 1) != 0)
				_exit(93);
			_exit(10 + i);
		}
		if (kids[i] < 0)
			_exit(97);
	}
	close(hold[0]);
	close(ready[1]);
	touch_mib(ROOT_MIB);
	for (int i = 0; i < KIDS; i++)
		if (read(ready[0], &x, 1) != 1)
			_exit(92);
	sleep_ms(HOLD_MS);
	close(hold[1]);
	for (int i = 0; i < KIDS; i++) {
		int st;
		ok &= waitpid(kids[i], &st, 0) == kids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 10 + i;
	}
	sleep_ms(HOLD_MS);
	_exit(ok ? ROOT_EXIT : 96);
}

/* What the reader saw while the collector ran. */
struct seen {
	unsigned loops;       /* reader iterations before the collector finished */
	uint64_t max_pss_kib; /* highest tree PSS in any bucket max */
	uint32_t max_live;    /* most live records copied at once */
	uint32_t max_total;   /* highest total_procs in a summary */
	uint64_t events;      /* events copied */
};

/* One pass of everything a front end reads, checking what must always hold. */
static void read_store(struct store *st, struct seen *sn, uint64_t *cursor, uint64_t *last_t)
{
	struct store_summary sum;
	struct bucket b[64];
	struct proc_rec recs[2 * (KIDS + 1)];
	struct store_event ev[64];
	uint64_t t0, t1;

	store_summary_get(st, &sum);
	assert_true(sum.last.total_procs <= KIDS + 1);
	if (sum.last.total_procs > sn->max_total)
		sn->max_total = sum.last.total_procs;
	if (store_span(st, &t0, &t1) == 0) {
		assert_true(t0 <= t1);
		assert_true(t1 >= *last_t); /* the series only grows */
		*last_t = t1;
		size_t n = store_query(st, t0, t1, b, 64);
		assert_true(n >= 1 && n <= 64);
		for (size_t i = 0; i < n; i++) {
			assert_true(b[i].t0_ns <= b[i].t1_ns);
			assert_true(i == 0 || b[i - 1].t1_ns <= b[i].t0_ns);
			if ((b[i].valid & SAMPLE_PSS) && b[i].max.pss_kib > sn->max_pss_kib)
				sn->max_pss_kib = b[i].max.pss_kib;
		}
	}
	size_t live = store_procs(st, STORE_PROCS_LIVE, recs, 2 * (KIDS + 1));
	assert_true(live <= KIDS + 1);
	if (live > sn->max_live)
		sn->max_live = (uint32_t)live;
	size_t all = store_procs(st, STORE_PROCS_ALL, recs, 2 * (KIDS + 1));
	assert_true(all <= KIDS + 1);
	sn->events += store_events(st, cursor, ev, 64, NULL);
}

/* Runs the tree under a collector with nl_fd (-1: polling /proc) and the
 * command's pidfd or -1, reading the store all along; checks the figures. */
static void run_tree(int nl_fd, int nl_quiet, int use_pidfd)
{
	struct store *st = store_new(NULL);
	int go[2];

	assert_non_null(st);
	struct collector_config cc = {.interval_ms = 20, .budget = 0.5, .nl_fd = nl_fd,
				      .nl_quiet_fd = nl_quiet, .ts_fd = -1};
	struct collector *c = collector_new(st, &cc);
	assert_non_null(c);
	assert_int_equal(pipe(go), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char x;

		close(go[1]);
		if (read(go[0], &x, 1) != 0) /* EOF: the collector is running */
			_exit(98);
		execl("/proc/self/exe", "test_collector", "tree-root", (char *)NULL);
		_exit(95);
	}
	close(go[0]);
	int pidfd = use_pidfd ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	if (use_pidfd)
		assert_true(pidfd >= 0);
	assert_int_equal(collector_start(c, pid, pidfd, collector_now_ns()), 0);
	close(go[1]); /* go */

	struct seen sn = {0};
	uint64_t cursor = 0, last_t = 0;
	struct timespec a, z;
	clock_gettime(CLOCK_MONOTONIC, &a);
	while (!collector_finished(c)) {
		read_store(st, &sn, &cursor, &last_t);
		sn.loops++;
		clock_gettime(CLOCK_MONOTONIC, &z);
		if (z.tv_sec - a.tv_sec > 30) {
			kill(pid, SIGKILL);
			fail_msg("the collector did not see the tree end in 30 s");
		}
	}
	read_store(st, &sn, &cursor, &last_t);
	collector_stop(c);

	struct store_summary sum;
	store_summary_get(st, &sum);
	print_message("%s, pidfd %s: %u reads while running; peak PSS %" PRIu64 " KiB (tree touched %d MiB); "
		      "%u processes, %" PRIu64 " events; peak measured %d, its RSS %" PRIu64
		      " KiB, unconfirmed %" PRIu64 " KiB, %" PRIu64 " PSS reads; %" PRIu64 " sweeps (%" PRIu64
		      " unstable), %" PRIu64 " fast ticks\n",
		      nl_fd >= 0 ? "netlink" : "poll", use_pidfd ? "yes" : "no", sn.loops,
		      sum.peak.pss_kib, TREE_MIB, sum.last.total_procs, sn.events, sum.peak_measured,
		      sum.peak.rss_kib, sum.peak_unconfirmed_kib, sum.pss_reads, sum.pss_sweeps,
		      sum.pss_sweeps_unstable, sum.fast_ticks);
	assert_true(sn.loops > 0);
	assert_true(sum.exited);
	assert_true(WIFEXITED(sum.wait_status));
	assert_int_equal(WEXITSTATUS(sum.wait_status), ROOT_EXIT);
	assert_int_equal(sum.mode, nl_fd >= 0 ? COLLECTOR_NETLINK : COLLECTOR_POLL);
	/* every process lived HOLD_MS, 20 ticks: even polling sees them all */
	assert_int_equal(sum.last.total_procs, KIDS + 1);
	assert_int_equal(sn.max_total, KIDS + 1);
	assert_int_equal(sn.max_live, KIDS + 1);
	/* the peak holds all that was touched, and not much else */
	assert_true(sum.peak.pss_kib >= (uint64_t)TREE_MIB * 1024);
	assert_true(sum.peak.pss_kib <= (uint64_t)(TREE_MIB + (KIDS + 1) * SLACK_MIB) * 1024);
	assert_true(sn.max_pss_kib >= (uint64_t)TREE_MIB * 1024);
	/* the series' highest is the peak, or an estimate above the measured
	 * peak: within STORE_PEAK_EST_MARGIN, or past it and then reported as
	 * unconfirmed (store.h) */
	if (sum.peak_unconfirmed_kib)
		assert_true(sn.max_pss_kib <= sum.peak_unconfirmed_kib);
	else
		assert_true((double)sn.max_pss_kib <= (double)sum.peak.pss_kib * (1.0 + STORE_PEAK_EST_MARGIN) + 1);

	/* the records: the root and each child, with their exit statuses */
	struct proc_rec recs[2 * (KIDS + 1)];
	size_t n = store_procs(st, STORE_PROCS_EXITED, recs, 2 * (KIDS + 1));
	assert_int_equal(n, KIDS + 1);
	assert_int_equal(store_procs(st, STORE_PROCS_LIVE, recs + n, KIDS + 1), 0);
	int seen_exit[KIDS + 1] = {0};
	for (size_t i = 0; i < n; i++) {
		assert_true(recs[i].end_ns >= recs[i].start_ns);
		if (recs[i].pid == pid) {
			assert_int_equal(recs[i].exit_status, sum.wait_status);
			assert_true(recs[i].peak_pss_kib >= ROOT_MIB * 1024);
			seen_exit[KIDS]++;
			continue;
		}
		assert_int_equal(recs[i].ppid, pid);
		assert_true(recs[i].peak_pss_kib >= KID_MIB * 1024);
		if (recs[i].valid & PROC_V_EXIT) {
			int k = WEXITSTATUS(recs[i].exit_status) - 10;
			assert_true(k >= 0 && k < KIDS);
			seen_exit[k]++;
		} else {
			/* polling cannot know a child's status: its parent reaped it */
			assert_true(nl_fd < 0);
		}
	}
	assert_int_equal(seen_exit[KIDS], 1);
	if (nl_fd >= 0)
		for (int k = 0; k < KIDS; k++)
			assert_int_equal(seen_exit[k], 1);
	collector_free(c);
	if (pidfd >= 0)
		close(pidfd);
	store_free(st);
}

static void test_poll(void **state)
{
	(void)state;
	run_tree(-1, -1, 0);
}

static void test_poll_pidfd(void **state)
{
	(void)state;
	run_tree(-1, -1, 1);
}

/* Netlink process events: root, or anyone from Linux 6.6. */
static void test_netlink(void **state)
{
	(void)state;
	int quiet = -1;
	int fd = nlproc_open_split(1 << 20, 1, &quiet, NULL);

	if (fd < 0) {
		print_message("nlproc_open_split: %s; netlink test skipped\n", strerror(-fd));
		skip();
	}
	run_tree(fd, quiet, 1);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "tree-root"))
		tree_root();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poll),
		cmocka_unit_test(test_poll_pidfd),
		cmocka_unit_test(test_netlink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
