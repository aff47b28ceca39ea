/* Unit tests for coll_events.c: netlink events handled in order, on a fake
 * /proc. An exec that comes before its process's fork event waits and is
 * replayed once the fork comes; a child whose fork event was lost is counted
 * from its exit event; strangers' events change nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fakeproc.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#define R FP_PID
#define K (FP_PID + 1)
#define L (FP_PID + 2)
#define S (FP_PID + 8)
#define SP (FP_PID + 9) /* a stranger's parent */
#define MS 1000000ull

/* Netlink mode, following R (exec'd); K's /proc files say it runs cc1. */
static struct fakeproc *follow_root(void)
{
	struct fakeproc *f = fp_new(1);

	fp_stat(f, R, &(struct fp_stat){.ppid = 1, .comm = "make", .start_ticks = 10});
	fp_statm(f, R, 1000, 100, 10);
	fp_stat(f, K, &(struct fp_stat){.ppid = R, .comm = "cc1", .start_ticks = fp_ticks(f->now_ns)});
	fp_statm(f, K, 1000, 100, 10);
	fp_cmdline(f, K, "cc1\0-O2\0x.c\0", 12);
	f->c->root = R;
	struct pentry *e = coll_sample_add_proc(f->c, R, 1, f->now_ns, NULL);
	assert_non_null(e);
	e->rec.nexec = 1;
	f->c->total_procs = 1;
	return f;
}

static void event(struct fakeproc *f, enum nlproc_type type, pid_t pid, pid_t parent, uint64_t ts)
{
	struct nlproc_event ev = {.type = type, .pid = pid, .tgid = pid, .ppid = parent, .ptgid = parent,
				  .ts_ns = ts, .exit_code = type == NLPROC_EXIT ? 3 << 8 : 0};

	coll_events_on_event(f->c, &ev);
}

/* An exec read before its fork event is kept, then replayed once the fork
 * comes: the child is one exec'd process, named by its new program. */
static void test_events_exec_before_fork(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;

	event(f, NLPROC_EXEC, K, 0, t + 2 * MS);
	assert_null(ptable_get(f->c->pt, K));
	assert_int_equal(f->c->ev.nearly, 1);
	assert_int_equal(f->c->total_execs, 0);
	event(f, NLPROC_FORK, K, R, t + 1 * MS);
	const struct pentry *e = ptable_get(f->c->pt, K);
	assert_non_null(e);
	assert_int_equal(e->rec.ppid, R);
	assert_int_equal(e->rec.start_ns, t + 1 * MS);
	assert_int_equal(e->rec.nexec, 1);
	assert_string_equal(e->rec.comm, "cc1");
	assert_int_equal(f->c->ev.nearly, 0);
	assert_int_equal(f->c->total_execs, 1);
	assert_int_equal(f->c->total_procs, 2);
	struct store_exec ex[4];
	assert_int_equal(store_execs(f->st, 0, ex, 4), 1);
	assert_int_equal(ex[0].pid, K);
	assert_int_equal(ex[0].t_ns, t + 2 * MS);
	char argv[64];
	assert_int_equal(store_str_get(f->st, ex[0].argv_id, argv, sizeof(argv)), 11);
	assert_memory_equal(argv, "cc1\0-O2\0x.c", 11);
	fp_free(f);
}

/* An early exec too old to belong to the fork that comes (a former holder
 * of the pid) is dropped, not replayed. */
static void test_events_stale_early(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;

	event(f, NLPROC_EXEC, K, 0, t);
	event(f, NLPROC_FORK, K, R, t + 200 * MS);
	assert_non_null(ptable_get(f->c->pt, K));
	assert_int_equal(ptable_get(f->c->pt, K)->rec.nexec, 0);
	assert_int_equal(f->c->total_execs, 0);
	assert_int_equal(f->c->ev.nearly, 0);
	fp_free(f);
}

/* A child of the tree whose fork event was lost is counted from its exit
 * event: added under its parent, ended at the event with its status, its
 * exec (read first, on the other socket) replayed; counted as a repair. */
static void test_events_lost_fork(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;

	event(f, NLPROC_EXEC, L, 0, t + 3 * MS);
	event(f, NLPROC_EXIT, L, R, t + 5 * MS);
	const struct pentry *e = ptable_get(f->c->pt, L);
	assert_non_null(e);
	assert_int_equal(e->rec.ppid, R);
	assert_true(e->exit_pending);
	assert_int_equal(e->exit_ns, t + 5 * MS);
	assert_int_equal(e->exit_status_pending, 3 << 8);
	assert_int_equal(e->rec.nexec, 1);
	assert_int_equal(f->c->total_procs, 2);
	assert_int_equal(f->c->sum.rescans, 1);
	/* a second exit of the pid (its next holder's) changes nothing */
	event(f, NLPROC_EXIT, L, R, t + 9 * MS);
	assert_int_equal(ptable_get(f->c->pt, L)->exit_ns, t + 5 * MS);
	assert_int_equal(f->c->total_procs, 2);
	fp_free(f);
}

/* A lost child's exec event read after its exit event retired it (the exec
 * comes on the other socket): counted then, as an exec of that process. An
 * exec of the pid from before its life (an earlier holder's) is not. */
static void test_events_exec_after_retire(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;

	event(f, NLPROC_EXIT, L, R, t + 5 * MS);
	assert_non_null(ptable_get(f->c->pt, L));
	assert_int_equal(f->c->total_execs, 0);
	coll_sample_retire_exited(f->c); /* no /proc/L: gone */
	assert_null(ptable_get(f->c->pt, L));
	event(f, NLPROC_EXEC, L, 0, t + 3 * MS);
	assert_int_equal(f->c->total_execs, 1);
	assert_int_equal(f->c->ev.nearly, 0);
	struct store_exec ex[2];
	assert_int_equal(store_execs(f->st, 0, ex, 2), 1);
	assert_int_equal(ex[0].pid, L);
	assert_int_equal(ex[0].ppid, R);
	assert_int_equal(ex[0].t_ns, t + 3 * MS);
	/* long before its end: not its exec, kept waiting for its own fork */
	event(f, NLPROC_EXEC, L, 0, t - 2000 * MS);
	assert_int_equal(f->c->total_execs, 1);
	assert_int_equal(f->c->ev.nearly, 1);
	fp_free(f);
}

/* A lost child's exec replayed as its exit event adds it leaves the exit be,
 * and reads nothing of the pid's next holder (a stranger started after it
 * ended): it stays ended, not renamed. */
static void test_events_replay_keeps_exit(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;

	fp_stat(f, L, &(struct fp_stat){.ppid = 1, .comm = "stranger",
					 .start_ticks = fp_ticks(t + 3000 * MS)});
	fp_statm(f, L, 1000, 100, 10);
	event(f, NLPROC_EXEC, L, 0, t + 3 * MS);
	event(f, NLPROC_EXIT, L, R, t + 5 * MS);
	const struct pentry *e = ptable_get(f->c->pt, L);
	assert_non_null(e);
	assert_true(e->exit_pending);
	assert_int_equal(e->exit_ns, t + 5 * MS);
	assert_int_equal(e->rec.nexec, 1);
	assert_string_not_equal(e->rec.comm, "stranger");
	assert_int_equal(f->c->total_execs, 1);
	fp_free(f);
}

/* Strangers: the exit of a child of a process outside the tree, and a late
 * exit of a child retired already, add nothing; a fork by a later holder of
 * a parent's pid (after the parent's exit event) neither. */
static void test_events_strangers(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;

	event(f, NLPROC_EXIT, S, SP, t + 1 * MS);
	assert_null(ptable_get(f->c->pt, S));
	assert_int_equal(f->c->ev.nearly, 1); /* kept: its fork may come */

	event(f, NLPROC_FORK, K, R, t + 2 * MS);
	coll_sample_retire(f->c, ptable_get(f->c->pt, K), t + 3 * MS, 0, 1, NULL);
	event(f, NLPROC_EXIT, K, R, t + 4 * MS);
	assert_null(ptable_get(f->c->pt, K));
	assert_int_equal(f->c->total_procs, 2);

	event(f, NLPROC_EXIT, R, 1, t + 5 * MS);
	event(f, NLPROC_FORK, L, R, t + 6 * MS);
	assert_null(ptable_get(f->c->pt, L));
	assert_int_equal(f->c->total_procs, 2);
	assert_int_equal(f->c->sum.rescans, 0);
	fp_free(f);
}

/* A thread's fork counts a thread of its process, not a process. */
static void test_events_thread(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	struct nlproc_event ev = {.type = NLPROC_FORK, .pid = R + 50, .tgid = R, .ppid = R, .ptgid = R,
				  .ts_ns = f->now_ns};
	uint32_t threads = f->c->total_threads;

	coll_events_on_event(f->c, &ev);
	assert_int_equal(f->c->total_threads, threads + 1);
	assert_int_equal(f->c->total_procs, 1);
	assert_null(ptable_get(f->c->pt, R + 50));
	fp_free(f);
}

/* Sends one connector event, as the kernel does, on fd. */
static void send_event(int fd, unsigned what, pid_t pid, pid_t parent, uint64_t ts)
{
	struct {
		struct nlmsghdr nlh;
		struct cn_msg cn;
		struct proc_event ev;
	} __attribute__((packed)) m;

	memset(&m, 0, sizeof(m));
	m.nlh.nlmsg_len = sizeof(m);
	m.nlh.nlmsg_type = NLMSG_DONE;
	m.cn.id.idx = CN_IDX_PROC;
	m.cn.id.val = CN_VAL_PROC;
	m.cn.len = sizeof(m.ev);
	m.ev.what = what;
	m.ev.timestamp_ns = ts;
	if (what == PROC_EVENT_FORK) {
		m.ev.event_data.fork.parent_pid = m.ev.event_data.fork.parent_tgid = parent;
		m.ev.event_data.fork.child_pid = m.ev.event_data.fork.child_tgid = pid;
	} else if (what == PROC_EVENT_EXEC) {
		m.ev.event_data.exec.process_pid = m.ev.event_data.exec.process_tgid = pid;
	} else {
		m.ev.event_data.exit.process_pid = m.ev.event_data.exit.process_tgid = pid;
		m.ev.event_data.exit.parent_pid = m.ev.event_data.exit.parent_tgid = parent;
	}
	assert_int_equal(send(fd, &m, sizeof(m), 0), (ssize_t)sizeof(m));
}

/* The split subscription's two sockets, as socket pairs the test writes to:
 * w[1] for exec events, q[1] for fork and exit events. */
static void split_sockets(struct fakeproc *f, int w[2], int q[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, w), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, q), 0);
	f->c->nl_fd = w[0];
	f->c->nl_quiet_fd = q[0];
}

static void split_sockets_close(struct fakeproc *f, int w[2], int q[2])
{
	f->c->nl_fd = f->c->nl_quiet_fd = -1;
	close(w[0]);
	close(w[1]);
	close(q[0]);
	close(q[1]);
}

/* Two sockets (exec events; fork and exit events) are drained in the order
 * things happened: K's fork, its exec, its exit. Handled socket by socket,
 * the exec would come after the exit and take it back (as a thread's exec
 * does), leaving K running forever. */
static void test_events_drain_merge(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;
	int w[2], q[2];

	split_sockets(f, w, q);
	send_event(w[1], PROC_EVENT_EXEC, K, 0, t + 2 * MS);
	send_event(q[1], PROC_EVENT_FORK, K, R, t + 1 * MS);
	send_event(q[1], PROC_EVENT_EXIT, K, R, t + 3 * MS);
	f->now_ns = t + 10 * MS;
	coll_events_drain(f->c);
	const struct pentry *e = ptable_get(f->c->pt, K);
	assert_non_null(e);
	assert_int_equal(e->rec.nexec, 1);
	assert_true(e->exit_pending);
	assert_int_equal(e->exit_ns, t + 3 * MS);
	assert_int_equal(f->c->ev.nearly, 0);
	assert_int_equal(f->c->sum.nl_events, 3);
	assert_int_equal(f->c->nl_drain_ns, t + 10 * MS);
	split_sockets_close(f, w, q);
	fp_free(f);
}

/* A tick whose wakeup saw the exec socket empty (nl_empty_ns) does not read
 * it, but still reads it when the fork|exit socket holds events newer than
 * that look: K's exec, sent after the look, is merged between its fork and
 * exit; an exec older than the look (it cannot be, epoll said empty) is left
 * for the next drain. */
static void test_events_drain_known_empty(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;
	int w[2], q[2];
	char buf[256];

	split_sockets(f, w, q);
	/* nothing newer than the look on the other socket: not read */
	send_event(w[1], PROC_EVENT_EXEC, R, 0, t + 1 * MS);
	f->c->nl_empty_ns = t + 2 * MS;
	f->now_ns = t + 3 * MS;
	coll_events_drain(f->c);
	assert_int_equal(f->c->sum.nl_events, 0);
	assert_int_equal(f->c->nl_empty_ns, 0); /* taken once */
	assert_true(recv(w[0], buf, sizeof(buf), MSG_DONTWAIT) > 0); /* still there */
	/* K's fork and exit after the look: the exec socket is read for them */
	send_event(w[1], PROC_EVENT_EXEC, K, 0, t + 5 * MS);
	send_event(q[1], PROC_EVENT_FORK, K, R, t + 4 * MS);
	send_event(q[1], PROC_EVENT_EXIT, K, R, t + 6 * MS);
	f->c->nl_empty_ns = t + 3 * MS;
	f->now_ns = t + 10 * MS;
	coll_events_drain(f->c);
	const struct pentry *e = ptable_get(f->c->pt, K);
	assert_non_null(e);
	assert_int_equal(e->rec.nexec, 1);
	assert_true(e->exit_pending);
	assert_int_equal(e->exit_ns, t + 6 * MS);
	assert_int_equal(f->c->sum.nl_events, 3);
	split_sockets_close(f, w, q);
	fp_free(f);
}

/* At an exec's wakeup only the exec socket is read: K's stat and command line
 * are read then (its parent R is in the table), and the exec waits for the
 * next drain, which handles it after K's fork event, in time order, with what
 * was read ahead (K has ended by then: its /proc files are gone). An exec
 * whose parent is not known has the drain run at once, as before. */
static void test_events_exec_ahead(void **state)
{
	(void)state;
	struct fakeproc *f = follow_root();
	uint64_t t = f->now_ns;
	int w[2], q[2];
	char buf[256];

	split_sockets(f, w, q);
	send_event(q[1], PROC_EVENT_FORK, K, R, t);
	send_event(w[1], PROC_EVENT_EXEC, K, 0, t + 1 * MS);
	f->now_ns = t + 2 * MS;
	coll_events_exec_ahead(f->c);
	assert_null(ptable_get(f->c->pt, K)); /* not handled yet */
	assert_int_equal(f->c->sm.npre, 1);
	assert_int_equal(f->c->wpend_n, 1);
	assert_true(recv(q[0], buf, sizeof(buf), MSG_DONTWAIT | MSG_PEEK) > 0); /* the fork, unread */
	fp_gone(f, K);
	f->now_ns = t + 100 * MS;
	coll_events_drain(f->c);
	const struct pentry *e = ptable_get(f->c->pt, K);
	assert_non_null(e);
	assert_int_equal(e->rec.nexec, 1);
	assert_string_equal(e->rec.comm, "cc1");
	assert_true(e->rec.valid & PROC_V_ARGV);
	assert_int_equal(store_str_get(f->st, e->rec.argv_id, buf, sizeof(buf)), 11);
	assert_memory_equal(buf, "cc1\0-O2\0x.c", 11);
	assert_true(e->fd_stat >= 0); /* the fd opened ahead, kept for the ticks */
	assert_int_equal(f->c->sm.prefetch_used, 1);
	assert_int_equal(f->c->sm.npre, 0);
	assert_int_equal(f->c->wpend_n, 0);

	/* a stranger's exec (its parent not the tree's): drained now */
	fp_stat(f, S, &(struct fp_stat){.ppid = SP, .comm = "ls", .start_ticks = fp_ticks(f->now_ns)});
	send_event(q[1], PROC_EVENT_FORK, S, SP, t + 101 * MS);
	send_event(w[1], PROC_EVENT_EXEC, S, 0, t + 102 * MS);
	f->now_ns = t + 103 * MS;
	coll_events_exec_ahead(f->c);
	assert_int_equal(f->c->wpend_n, 0);
	assert_int_equal(f->c->sm.npre, 0);
	assert_true(recv(q[0], buf, sizeof(buf), MSG_DONTWAIT) < 0); /* read */
	assert_null(ptable_get(f->c->pt, S));
	split_sockets_close(f, w, q);
	fp_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_exec_before_fork),
		cmocka_unit_test(test_events_stale_early),
		cmocka_unit_test(test_events_lost_fork),
		cmocka_unit_test(test_events_exec_after_retire),
		cmocka_unit_test(test_events_replay_keeps_exit),
		cmocka_unit_test(test_events_strangers),
		cmocka_unit_test(test_events_thread),
		cmocka_unit_test(test_events_drain_merge),
		cmocka_unit_test(test_events_drain_known_empty),
		cmocka_unit_test(test_events_exec_ahead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
