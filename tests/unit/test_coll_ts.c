/* Unit tests for coll_ts.c: taskstats exit records applied to the right
 * process, on a fake /proc and the injected clock. A record goes to the
 * process it fits (its task started after the fork, ended before the exit),
 * waits when its process's fork event has not come yet, and tells of a child
 * whose fork and exit events were both lost; a later holder of a pid gets
 * nothing of it; a process gone waits for its record still unread. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fakeproc.h"

#define R FP_PID
#define K (FP_PID + 1)
#define L (FP_PID + 2)
#define MS 1000000ull

/* Netlink mode, following R (exec'd). */
static struct fakeproc *follow_root(void)
{
	struct fakeproc *f = fp_new(1);

	fp_stat(f, R, &(struct fp_stat){.ppid = 1, .comm = "make", .start_ticks = 10});
	fp_statm(f, R, 1000, 100, 10);
	f->c->root = R;
	struct pentry *e = coll_sample_add_proc(f->c, R, 1, f->now_ns, NULL);
	assert_non_null(e);
	e->rec.nexec = 1;
	return f;
}

static void fork_event(struct fakeproc *f, pid_t pid, pid_t parent, uint64_t ts)
{
	struct nlproc_event ev = {.type = NLPROC_FORK, .pid = pid, .tgid = pid, .ppid = parent,
				  .ptgid = parent, .ts_ns = ts};

	coll_events_on_event(f->c, &ev);
}

/* The leader task's record of pid, child of ppid, that lived lived_ns. */
static struct taskstats_exit record(pid_t pid, pid_t ppid, uint64_t lived_ns, uint64_t seq)
{
	return (struct taskstats_exit){.pid = pid, .tgid = pid, .ppid = ppid, .comm = "cc1",
				       .exitcode = 1 << 8, .etime_us = lived_ns / 1000, .utime_us = 41000,
				       .stime_us = 9000, .minflt = 4321, .majflt = 7,
				       .hiwater_rss_kib = 8888, .seq = seq};
}

/* The one exited record of the store. */
static struct proc_rec exited_one(struct fakeproc *f)
{
	struct proc_rec r[4];

	assert_int_equal(store_procs(f->st, STORE_PROCS_EXITED, r, 4), 1);
	return r[0];
}

/* A record that fits K (started after K's fork, read after) is K's: its
 * exact figures are K's at its exit, over the sampled ones. */
static void test_ts_applied(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;

	fork_event(f, K, R, t);
	f->c->ts_empty_ns = t + 50 * MS;
	f->now_ns = t + 100 * MS;
	struct taskstats_exit x = record(K, R, 60 * MS, 1);
	coll_ts_apply(f->c, &x);
	const struct pentry *e = ptable_get(f->c->pt, K);
	assert_true(e->ts_leader);
	assert_int_equal(e->ts_minflt, 4321);
	assert_int_equal(e->ts_utime_us, 41000);
	assert_int_equal(f->c->sum.ts_records, 1);
	coll_sample_retire(f->c, ptable_get(f->c->pt, K), f->now_ns, 1 << 8, 1, NULL);
	struct proc_rec r = exited_one(f);
	assert_int_equal(r.minflt, 4321);
	assert_int_equal(r.majflt, 7);
	assert_int_equal(r.utime_us, 41000);
	assert_int_equal(r.stime_us, 9000);
	assert_int_equal(r.peak_rss_kib, 8888);
	fp_free(f);
}

/* Records K's pid cannot have: of a task that started before K's fork (a
 * former holder of the pid), and of one that started after K's exit event
 * (a later holder). Neither is K's, and neither is kept. */
static void test_ts_refused(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;

	fork_event(f, K, R, t);
	f->now_ns = t + 100 * MS;
	struct taskstats_exit old = record(K, R, 5000 * MS, 1); /* lived 5 s: began before t */
	coll_ts_apply(f->c, &old);
	assert_false(ptable_get(f->c->pt, K)->ts_leader);

	struct pentry *e = ptable_get(f->c->pt, K);
	e->exit_pending = 1;
	e->exit_ns = t + 10 * MS;
	/* the socket was empty 500 ms after K's exit; the task lived 10 ms */
	f->c->ts_empty_ns = t + 510 * MS;
	f->now_ns = t + 520 * MS;
	struct taskstats_exit later = record(K, R, 10 * MS, 2);
	coll_ts_apply(f->c, &later);
	assert_false(ptable_get(f->c->pt, K)->ts_leader);
	assert_int_equal(ptable_get(f->c->pt, K)->ts_minflt, 0);
	assert_int_equal(f->c->sum.ts_records, 0);
	assert_int_equal(f->c->sum.ts_unfit, 2);
	assert_int_equal(f->c->ts.pend_next, 0);
	fp_free(f);
}

/* A record read before its process's fork event waits, and is the
 * process's once the fork has come (adopted when it is retired, as
 * coll_sample_retire does with a taskstats socket). */
static void test_ts_adopted(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;

	f->c->ts_empty_ns = t + 5 * MS;
	f->now_ns = t + 20 * MS;
	struct taskstats_exit x = record(K, R, 10 * MS, 1);
	coll_ts_apply(f->c, &x);
	assert_null(ptable_get(f->c->pt, K));
	fork_event(f, K, R, t + 8 * MS);
	assert_false(ptable_get(f->c->pt, K)->ts_leader);
	coll_tsrec_adopt(f->c, ptable_get(f->c->pt, K));
	assert_true(ptable_get(f->c->pt, K)->ts_leader);
	coll_sample_retire(f->c, ptable_get(f->c->pt, K), t + 18 * MS, 1 << 8, 1, NULL);
	assert_int_equal(exited_one(f).minflt, 4321);
	assert_int_equal(f->c->sum.ts_records, 1);
	fp_free(f);
}

/* A fork storm's records, read before their fork events, faster than the
 * ticks retire (and adopt) their processes: more than the ring holds. Once
 * it is full of records whose processes are in the tree now (their fork
 * events read since), the next record makes room by giving them to their
 * processes; none is lost. */
static void test_ts_ring_full_of_ours(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;
	enum { N = COLLECTOR_TSPEND + COLLECTOR_TSPEND / 2 };

	f->c->ts_empty_ns = t + 5 * MS;
	f->now_ns = t + 20 * MS;
	for (pid_t i = 0; i < N; i++) {
		struct taskstats_exit x = record(K + i, R, 10 * MS, (uint64_t)i + 1);
		coll_ts_apply(f->c, &x);
		/* its fork event is read a while after its record */
		if (i >= 64)
			fork_event(f, K + i - 64, R, t + 8 * MS);
	}
	for (pid_t i = N - 64; i < N; i++)
		fork_event(f, K + i, R, t + 8 * MS);
	for (pid_t i = 0; i < N; i++) {
		struct pentry *e = ptable_get(f->c->pt, K + i);
		assert_non_null(e);
		coll_tsrec_adopt(f->c, e);
		assert_true(e->ts_leader);
		assert_int_equal(e->ts_minflt, 4321);
	}
	assert_int_equal(f->c->sum.ts_records, N);
	fp_free(f);
}

/* A child of R whose fork and exit events were both lost is counted from
 * its record once a netlink drain begun after the record has ended: named
 * by the record, ended when the record came, started its lifetime before. */
static void test_ts_lost_child(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns + 1000 * MS;

	f->now_ns = t;
	struct taskstats_exit x = record(L, R, 30 * MS, 1);
	coll_ts_apply(f->c, &x);
	assert_null(ptable_get(f->c->pt, L));
	/* no drain since the record came: its fork event may be unread */
	f->c->nl_drain_ns = t - 1 * MS;
	coll_ts_lost_children(f->c);
	assert_null(ptable_get(f->c->pt, L));
	f->c->nl_drain_ns = t + 1 * MS;
	coll_ts_lost_children(f->c);
	const struct pentry *e = ptable_get(f->c->pt, L);
	assert_non_null(e);
	assert_int_equal(e->rec.ppid, R);
	assert_string_equal(e->rec.comm, "cc1");
	assert_true(e->exit_pending);
	assert_int_equal(e->exit_ns, t);
	assert_int_equal(e->rec.start_ns, t - 30 * MS);
	assert_int_equal(e->ts_minflt, 4321);
	assert_int_equal(f->c->sum.rescans, 1);
	fp_free(f);
}

/* A record of a child of a later holder of R's pid (it came after R's own
 * record: R had ended) is no child of the tree. */
static void test_ts_lost_child_of_later_parent(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns + 1000 * MS;

	f->now_ns = t;
	struct taskstats_exit rx = record(R, 1, 1000 * MS, 1);
	coll_ts_apply(f->c, &rx);
	assert_true(ptable_get(f->c->pt, R)->ts_leader);
	struct taskstats_exit x = record(L, R, 1 * MS, 2);
	coll_ts_apply(f->c, &x);
	f->c->nl_drain_ns = t + 1 * MS;
	coll_ts_lost_children(f->c);
	assert_null(ptable_get(f->c->pt, L));
	assert_int_equal(f->c->sum.rescans, 0);
	fp_free(f);
}

/* An exit event with its process's record: for a process that never had a
 * second thread, that is its end, and /proc is not asked (a system call saved
 * per process); here /proc still shows them all alive. One whose fork event
 * told of a thread (which may have exec'd: the old leader's exit comes too),
 * or whose record has not come, waits for /proc to agree. */
static void test_ts_exit_sure(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;
	const pid_t M = FP_PID + 3, T = FP_PID + 4;

	f->c->ts_fd = 1000; /* a taskstats socket: only its being there matters */
	for (pid_t p = K; p <= M; p++) {
		fork_event(f, p, R, t);
		fp_stat(f, p, &(struct fp_stat){.ppid = R, .comm = "cc1", .start_ticks = fp_ticks(t)});
	}
	struct nlproc_event th = {.type = NLPROC_FORK, .pid = T, .tgid = L, .ppid = L, .ptgid = L,
				  .ts_ns = t + 5 * MS};
	coll_events_on_event(f->c, &th);
	f->c->ts_empty_ns = t + 50 * MS;
	f->now_ns = t + 100 * MS;
	for (pid_t p = K; p <= L; p++) {
		struct taskstats_exit x = record(p, R, 60 * MS, (uint64_t)(p - K + 1));
		coll_ts_apply(f->c, &x);
	}
	for (pid_t p = K; p <= M; p++) {
		struct nlproc_event ex = {.type = NLPROC_EXIT, .pid = p, .tgid = p, .ppid = R, .ptgid = R,
					  .exit_code = 1 << 8, .ts_ns = t + 90 * MS};
		coll_events_on_event(f->c, &ex);
	}
	/* the socket found empty after their exits: M's record is not coming */
	f->c->ts_empty_ns = t + 95 * MS;
	coll_sample_retire_exited(f->c);
	assert_null(ptable_get(f->c->pt, K));
	struct proc_rec r = exited_one(f);
	assert_int_equal(r.pid, K);
	assert_int_equal(r.end_ns, t + 90 * MS);
	assert_int_equal(r.exit_status, 1 << 8);
	assert_int_equal(r.minflt, 4321);
	assert_non_null(ptable_get(f->c->pt, L)); /* a thread: /proc decides */
	assert_non_null(ptable_get(f->c->pt, M)); /* no record: /proc decides */
	/* gone from /proc: retired */
	fp_stat(f, L, &(struct fp_stat){.ppid = R, .comm = "cc1", .state = 'Z', .start_ticks = fp_ticks(t)});
	fp_stat(f, M, &(struct fp_stat){.ppid = R, .comm = "cc1", .state = 'Z', .start_ticks = fp_ticks(t)});
	coll_sample_retire_exited(f->c);
	assert_null(ptable_get(f->c->pt, L));
	assert_null(ptable_get(f->c->pt, M));
	f->c->ts_fd = -1;
	fp_free(f);
}

/* An exit event read after the taskstats socket was last found empty (a
 * tick's second drain of the events, after its read of the records): the
 * process's record, sent before its exit event, is still in the socket. The
 * process is gone from /proc, but it waits for the next read of the records
 * rather than being retired without them (the record would then come to no
 * one): its exact figures are the exited record's. */
static void test_ts_record_after_exit_event(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;

	f->c->ts_fd = 1000; /* a taskstats socket: only its being there matters */
	fork_event(f, K, R, t);
	fp_stat(f, K, &(struct fp_stat){.ppid = R, .comm = "cc1", .state = 'Z', .start_ticks = fp_ticks(t)});
	f->c->ts_empty_ns = t + 50 * MS;
	struct nlproc_event ex = {.type = NLPROC_EXIT, .pid = K, .tgid = K, .ppid = R, .ptgid = R,
				  .exit_code = 1 << 8, .ts_ns = t + 60 * MS};
	coll_events_on_event(f->c, &ex);
	f->now_ns = t + 70 * MS;
	coll_sample_retire_exited(f->c);
	assert_non_null(ptable_get(f->c->pt, K));
	/* the next tick: the record, then the socket empty */
	f->now_ns = t + 100 * MS;
	struct taskstats_exit x = record(K, R, 60 * MS, 1);
	coll_ts_apply(f->c, &x);
	f->c->ts_empty_ns = t + 101 * MS;
	coll_sample_retire_exited(f->c);
	assert_null(ptable_get(f->c->pt, K));
	struct proc_rec r = exited_one(f);
	assert_int_equal(r.end_ns, t + 60 * MS);
	assert_int_equal(r.minflt, 4321);
	assert_int_equal(r.utime_us, 41000);
	assert_int_equal(r.peak_rss_kib, 8888);
	assert_int_equal(f->c->sum.ts_records, 1);
	f->c->ts_fd = -1;
	fp_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ts_applied),
		cmocka_unit_test(test_ts_refused),
		cmocka_unit_test(test_ts_adopted),
		cmocka_unit_test(test_ts_ring_full_of_ours),
		cmocka_unit_test(test_ts_lost_child),
		cmocka_unit_test(test_ts_lost_child_of_later_parent),
		cmocka_unit_test(test_ts_exit_sure),
		cmocka_unit_test(test_ts_record_after_exit_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
