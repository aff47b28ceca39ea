/* coll_proc.c: a process's /proc files, read with its identity checked (a
 * pid another process took since is not it), and what is known of the
 * processes retired lately. Below the jobs that sample, model and retire. */
#include "collector_int.h"

#include "clockns.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* CLOCK_BOOTTIME - CLOCK_MONOTONIC: the time the machine was suspended (0
 * with an injected clock, which is boot time too). */
uint64_t coll_proc_boot_offset_ns(const struct collector *c)
{
	if (c->cfg.clock_ns)
		return 0;
	uint64_t mono = clockns_now();
	uint64_t boot = clockns_of(CLOCK_BOOTTIME);
	return boot > mono ? boot - mono : 0;
}

/* The fd of /proc/PID/NAME for a process: *slot, its kept one, or a new
 * one, kept in *slot when numbered below c->fd_cache_below, else used once
 * (*own set: the caller closes it). Returns the fd or -errno. */
int coll_proc_fd(struct collector *c, pid_t pid, int *slot, const char *name, int *own)
{
	*own = 0;
	if (*slot >= 0)
		return *slot;
	int fd = procfs_open_at(c->proc_root, pid, 0, name);
	if (fd < 0)
		return fd;
	if (fd < c->fd_cache_below)
		*slot = fd;
	else
		*own = 1;
	return fd;
}

/* Whether ppid can be the parent of e, a forked child read for the first
 * time: the one that forked it, or anyone once that one has ended (an orphan
 * goes to a subreaper or init). A stranger that got e's pid within the
 * start-time slack (one clock tick is 10 ms) while e's parent lives has
 * another parent. */
static int parent_plausible(struct collector *c, const struct pentry *e, pid_t ppid)
{
	const struct pentry *p = ptable_get(c->pt, e->rec.ppid);

	return ppid == e->rec.ppid || !p || p->exit_pending || p->mm_gone;
}

/* Whether a stat starttime (clock ticks since boot, rounded down) is later
 * than t_ns on the collector's clock, beyond the slack of two clocks. */
static int started_after(const struct collector *c, uint64_t start_ticks, uint64_t t_ns)
{
	uint64_t start = start_ticks * (1000000000ull / (uint64_t)procfs_hz());

	return start > t_ns + coll_proc_boot_offset_ns(c) + TASKSTATS_SLACK_NS;
}

/* Whether a stat read of e's pid is e's (0), or another process's that got
 * the pid (-ESRCH); takes its start time on e's first read. */
int coll_proc_identity(struct collector *c, struct pentry *e, const struct procfs_stat *ps)
{
	if (e->start_ticks && ps->starttime_ticks != e->start_ticks)
		return -ESRCH; /* the pid now belongs to another process */
	/* The first read of a forked child: it may have ended and its pid
	 * gone to another process already; its start must be its fork's. */
	if (!e->start_ticks && e->fork_seen &&
	    (!procfs_started_near(ps->starttime_ticks, procfs_hz(), e->rec.start_ns + coll_proc_boot_offset_ns(c),
				  TASKSTATS_SLACK_NS) ||
	     !parent_plausible(c, e, ps->ppid)))
		return -ESRCH;
	/* The first read of one whose exit event came (an entry added from a
	 * lost event has only that): a process does not start after its end,
	 * so a stat that does is the pid's next holder's. */
	if (!e->start_ticks && e->exit_pending && started_after(c, ps->starttime_ticks, e->exit_ns))
		return -ESRCH;
	e->start_ticks = ps->starttime_ticks;
	return 0;
}

/* Reads stat for e, checking identity; returns 0, -ESRCH when gone or reused. */
int coll_proc_read_stat(struct collector *c, struct pentry *e, struct procfs_stat *ps)
{
	int own, fd = coll_proc_fd(c, e->rec.pid, &e->fd_stat, "stat", &own);

	if (fd == -ENOENT || fd == -ESRCH)
		return -ESRCH;
	if (fd < 0)
		return fd; /* out of fds, say: not a reason to think it gone */
	ssize_t n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
	if (own)
		close(fd);
	if (n <= 0 || procfs_parse_stat(c->rbuf, (size_t)n, ps) < 0)
		return -ESRCH;
	return coll_proc_identity(c, e, ps);
}

/* Copies the cumulative counters of a stat read into the record. */
void coll_proc_take_stat(struct pentry *e, const struct procfs_stat *ps)
{
	e->rec.utime_us = coll_base_ticks_to_us(ps->utime_ticks);
	e->rec.stime_us = coll_base_ticks_to_us(ps->stime_ticks);
	e->rec.minflt = ps->minflt;
	e->rec.majflt = ps->majflt;
	e->rec.threads = ps->num_threads;
	if (ps->num_threads > e->max_threads)
		e->max_threads = ps->num_threads;
	e->rec.valid |= PROC_V_CPU | PROC_V_FAULTS;
	if (ps->state == 'T' || ps->state == 't')
		e->rec.valid |= PROC_V_STOPPED;
	else
		e->rec.valid &= ~PROC_V_STOPPED;
	if (!e->rec.comm[0])
		memcpy(e->rec.comm, ps->comm, sizeof(e->rec.comm));
}

/* e's high-water RSS now (status's VmHWM, or its RSS), in *hwm_kib: 0, or
 * negative when it cannot be read (gone, exiting). */
int coll_proc_hwm_now(struct collector *c, struct pentry *e, uint64_t *hwm_kib)
{
	struct procfs_status st;
	int own, fd = coll_proc_fd(c, e->rec.pid, &e->fd_status, "status", &own);

	if (fd < 0)
		return fd;
	ssize_t n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
	if (own)
		close(fd);
	if (n <= 0 || procfs_parse_status(c->rbuf, (size_t)n, &st) < 0 || !(st.valid & PROCFS_STATUS_RSS))
		return -ESRCH;
	*hwm_kib = (st.valid & PROCFS_STATUS_HWM) && st.hwm_kib > st.rss_kib ? st.hwm_kib : st.rss_kib;
	return 0;
}

/* Whether a process found by a rescan is one already retired: a zombie
 * whose exit event came before the rescan and whose parent has not reaped
 * it yet (children files list zombies). Matched on pid and start time, on
 * the pid alone for one retired before any stat read. */
int coll_proc_was_retired(struct collector *c, pid_t pid)
{
	struct procfs_stat ps;
	size_t n = c->nretired < COLLECTOR_RETIRED ? c->nretired : COLLECTOR_RETIRED;
	int have = 0;

	for (size_t i = 0; i < n; i++) {
		if (c->retired[i].pid != pid)
			continue;
		if (!have) {
			ssize_t len = procfs_read_at(c->proc_root, pid, "stat", c->rbuf, sizeof(c->rbuf));
			if (len <= 0 || procfs_parse_stat(c->rbuf, (size_t)len, &ps) < 0)
				return 1; /* gone already: nothing to count either way */
			have = 1;
		}
		if (!c->retired[i].start_ticks || c->retired[i].start_ticks == ps.starttime_ticks)
			return 1;
	}
	return 0;
}

/* The high-water RSS at its exit of ppid's program, retired lately, that
 * forked a child at start_ns (alive then, with no exec since): the most of
 * its pages the child can have had. UINT64_MAX when not known. */
uint64_t coll_proc_retired_hwm(const struct collector *c, pid_t ppid, uint64_t start_ns)
{
	size_t n = c->nretired < COLLECTOR_RETIRED ? c->nretired : COLLECTOR_RETIRED;

	for (size_t j = 0; j < n; j++) {
		size_t i = (c->nretired - 1 - j) % COLLECTOR_RETIRED; /* newest first */
		if (c->retired[i].pid != ppid || !c->retired[i].fork_seen)
			continue;
		if (start_ns < c->retired[i].start_ns || start_ns > c->retired[i].end_ns)
			continue; /* another holder of the pid */
		if (c->retired[i].exec_ns > start_ns || !c->retired[i].hwm_kib)
			return UINT64_MAX;
		return c->retired[i].hwm_kib;
	}
	return UINT64_MAX;
}

/* Whether pid is one of the processes retired lately (the pid alone: it may
 * have a new holder by now): an event or record of it that comes late is no
 * sign of a process missed. */
int coll_proc_retired_lately(const struct collector *c, pid_t pid)
{
	size_t n = c->nretired < COLLECTOR_RETIRED ? c->nretired : COLLECTOR_RETIRED;

	for (size_t i = 0; i < n; i++)
		if (c->retired[i].pid == pid)
			return 1;
	return 0;
}

/* The command between our fork and its first exec: its memory is a copy of
 * spacetime's, not the command's; it counts once it has exec'd. */
int coll_proc_before_first_exec(const struct collector *c, const struct pentry *e)
{
	return e->rec.pid == c->root && !e->rec.nexec && c->sum.mode == COLLECTOR_NETLINK;
}

/* Whether e's memory is another's: the command's before its first exec
 * (spacetime's), or a vfork child's before it execs (its parent's, counted
 * there: statm and smaps_rollup of both show the same pages). */
int coll_proc_vm_borrowed(const struct collector *c, const struct pentry *e)
{
	return coll_proc_before_first_exec(c, e) || e->vm_state == PTABLE_VM_PARENTS;
}
