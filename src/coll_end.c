/* coll_end.c: reaping and the run's end. */
#include "collector_int.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/wait.h>

static int tree_left(struct collector *c);

/* The run has ended at now: the coordinator ends it (collector.c). */
static void end_due(struct collector *c, uint64_t now)
{
	if (!c->end_due) {
		c->end_due = 1;
		c->end_due_ns = now;
	}
}

/* The run's end, before its last tick: the execs read ahead, and (attached)
 * the zombies whose parents, not us, have not reaped them yet. */
void coll_end_last_reads(struct collector *c, uint64_t now)
{
	if (c->wpend_n)
		coll_events_drain(c); /* execs read ahead: theirs before any retire */
	c->sum.end_ns = now;
	/* attached: zombies whose parents (not us) have not reaped them yet
	 * have ended all the same (with their records, sent before they became
	 * zombies, read first) */
	if (c->attach)
		coll_ts_drain(c);
	for (size_t i = 0; c->attach && i < ptable_count(c->pt);) {
		struct pentry *e = ptable_at(c->pt, i);
		if (e->mm_gone && !e->exit_pending) {
			coll_sample_retire(c, e, now, 0, 0, COLL_SAMPLE_RETIRE_READ);
			continue;
		}
		i++;
	}
}

/* The run's end, after its last tick: the peak's bound, spacetime's own CPU,
 * the final summary; then the UI is told. */
void coll_end_close(struct collector *c)
{
	/* processes that left between ticks with their most unknown (no
	 * taskstats) had at most the most RSS wait4 tells (the command's, which
	 * covers every process its parent waited for, and the orphans' we
	 * reaped), when nothing of the tree is left to tell more */
	coll_top_resolve(&c->top, !c->attach && c->root_done && c->cfg.subreaper && !tree_left(c)
					  ? c->sum.ru_maxrss_kib
					  : 0);
	c->sum.peak_bound_kib = c->top.bound_kib;
	c->sum.peak_bound_unknown = c->top.unknown;
	if (c->attach) {
		/* no wait4: what the processes seen used since the attach */
		c->sum.ru_utime_us = c->sum.last.utime_us;
		c->sum.ru_stime_us = c->sum.last.stime_us;
		c->sum.ru_minflt = c->sum.last.minflt;
		c->sum.ru_majflt = c->sum.last.majflt;
		c->sum.detached = atomic_load(&c->detach_req);
	}
	c->sum.collector_cpu_ns = coll_base_thread_cpu_ns();
	struct rusage self;
	if (getrusage(RUSAGE_SELF, &self) == 0)
		c->sum.self_cpu_ns = ((uint64_t)self.ru_utime.tv_sec + (uint64_t)self.ru_stime.tv_sec) * 1000000000u +
				     ((uint64_t)self.ru_utime.tv_usec + (uint64_t)self.ru_stime.tv_usec) * 1000u;
	store_summary_set(c->st, &c->sum);
	atomic_store(&c->finished, 1);
	coll_base_notify(c);
}

/* Adds a wait4 rusage to the tree's totals. */
static void ru_add(struct collector *c, const struct rusage *ru)
{
	c->sum.ru_utime_us += (uint64_t)ru->ru_utime.tv_sec * 1000000u + (uint64_t)ru->ru_utime.tv_usec;
	c->sum.ru_stime_us += (uint64_t)ru->ru_stime.tv_sec * 1000000u + (uint64_t)ru->ru_stime.tv_usec;
	if ((uint64_t)ru->ru_maxrss > c->sum.ru_maxrss_kib)
		c->sum.ru_maxrss_kib = (uint64_t)ru->ru_maxrss;
	c->sum.ru_minflt += (uint64_t)ru->ru_minflt;
	c->sum.ru_majflt += (uint64_t)ru->ru_majflt;
	c->sum.ru_nvcsw += (uint64_t)ru->ru_nvcsw;
	c->sum.ru_nivcsw += (uint64_t)ru->ru_nivcsw;
	c->sum.ru_inblock += (uint64_t)ru->ru_inblock;
	c->sum.ru_oublock += (uint64_t)ru->ru_oublock;
}

/* Whether a process other than the command is still alive in the tree (a
 * zombie has ended: we reap it). */
static int tree_left(struct collector *c)
{
	for (size_t i = 0; i < ptable_count(c->pt); i++) {
		const struct pentry *e = ptable_at(c->pt, i);
		if (e->rec.pid != c->root && !e->mm_gone && !e->exit_pending)
			return 1;
	}
	return 0;
}

/* Whether every attached process and descendant has ended: there is nothing
 * to wait4, so /proc and the exit events say (a zombie has ended; one whose
 * exit event came is waited for until /proc shows it ended, which follows at
 * once). */
int coll_end_attach_ended(struct collector *c)
{
	for (size_t i = 0; i < ptable_count(c->pt); i++) {
		struct pentry *e = ptable_at(c->pt, i);
		struct procfs_stat ps;
		int read;
		if (!e->mm_gone && !e->exit_pending)
			return 0;
		if (e->exit_pending && !coll_sample_proc_ended(c, e, &ps, &read))
			return 0;
	}
	return 1;
}

/* The command has ended with status and ru. */
static void root_ended(struct collector *c, int status, const struct rusage *ru)
{
	uint64_t now = coll_base_clock(c);

	c->root_done = 1;
	c->sum.root_end_ns = now;
	c->sum.wait_status = status;
	ru_add(c, ru);
	if (c->pidfd >= 0 && c->ep_fd >= 0)
		epoll_ctl(c->ep_fd, EPOLL_CTL_DEL, c->pidfd, NULL); /* readable from now on */
	if (c->nl_fd >= 0)
		coll_events_drain(c);
	coll_ts_drain(c);
	/* the records of its last children, while it is in the table to be
	 * their parent: their fork events, had they come, are read by now */
	if (c->nl_fd >= 0) {
		coll_events_drain(c);
		coll_ts_drain(c); /* the records of the exits it read */
	}
	coll_ts_lost_children(c);
	coll_sample_retire_exited(c);
	struct pentry *e = ptable_get(c->pt, c->root);
	if (e)
		coll_sample_retire(c, e, now, status, 1, COLL_SAMPLE_RETIRE_READ);
	c->sum.exited = 1;
	/* Polling sees an end late: those that ended before it end now, not
	 * after it (only the ones alive now outlived it). Netlink's exit events
	 * have said when, and with what status. */
	for (size_t i = 0; c->sum.mode == COLLECTOR_POLL && i < ptable_count(c->pt);) {
		struct pentry *o = ptable_at(c->pt, i);
		struct procfs_stat ps;
		int read;
		if (coll_sample_proc_ended(c, o, &ps, &read)) {
			coll_sample_retire(c, o, o->exit_pending ? o->exit_ns : now, o->exit_status_pending,
					   o->exit_pending, read ? &ps : NULL);
			continue;
		}
		i++;
	}
	/* what it left behind that no scan has seen yet: ours now */
	if (c->sum.mode == COLLECTOR_POLL && c->cfg.subreaper)
		coll_scan_tree(c, now, NULL);
	if (!c->cfg.wait_tree || !tree_left(c))
		end_due(c, now);
}

/* Reaps what has ended: the command, and (spacetime being the subreaper)
 * the orphans of the tree, whose figures then count in the totals. Returns 1
 * when the run has ended. */
int coll_end_reap(struct collector *c)
{
	/* execs read ahead are handled before a process they name is retired */
	if (c->wpend_n)
		coll_events_drain(c);
	for (;;) {
		struct rusage ru;
		int status;
		/* only the command, unless orphans can be ours */
		pid_t r = wait4(c->cfg.subreaper ? -1 : c->root, &status, WNOHANG, &ru);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == ECHILD && !c->root_done) {
			/* reaped behind our back (SIGCHLD ignored): ended, status unknown */
			end_due(c, coll_base_clock(c));
			return 1;
		}
		if (r <= 0)
			break;
		if (r == c->root) {
			root_ended(c, status, &ru);
			if (c->end_due)
				return 1;
			continue;
		}
		/* an orphan that ended: its exit is ours to record */
		ru_add(c, &ru);
		c->sum.orphans_reaped++;
		struct pentry *e = ptable_get(c->pt, r);
		if (e) {
			/* its record, sent before it became a zombie, may be
			 * unread: read before it leaves the table */
			if (!e->ts_leader) {
				c->ts_events_held = 1;
				coll_ts_drain(c);
				c->ts_events_held = 0;
			}
			if ((e = ptable_get(c->pt, r)))
				coll_sample_retire(c, e, coll_base_clock(c), status, 1, COLL_SAMPLE_RETIRE_READ);
		}
	}
	if (c->root_done && !c->end_due && !atomic_load(&c->finished) && !tree_left(c)) {
		end_due(c, coll_base_clock(c));
		return 1;
	}
	return c->end_due || atomic_load(&c->finished);
}
