/* coll_ts.c: taskstats exit records applied to the right processes. */
#include "collector_int.h"

#include "clockns.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

/* When the task of record x (of e) ended: its start (its fork event's time)
 * plus its lifetime, when both are known, never after now; else now (the
 * record read at once: the socket wakes the collector, coll_ts_arm). */
static uint64_t exit_ns(struct collector *c, const struct pentry *e, const struct taskstats_exit *x)
{
	uint64_t now = coll_base_clock(c);

	/* not known: no earlier than when the socket was last found empty
	 * (the earliest it can have been: a late tick's sample is no prompt
	 * one) */
	if (!e->fork_seen || !x->etime_us)
		return c->ts_empty_ns && c->ts_empty_ns < now ? c->ts_empty_ns : now;
	uint64_t t = e->rec.start_ns + x->etime_us * 1000u;
	return t < now ? t : now;
}

/* Adds one task's exit record to its process's entry, if it is in the tree.
 * A process's figures are the sum over its tasks (the per-thread records);
 * a thread group's aggregate record is not needed. */
static void ts_add(struct collector *c, struct pentry *e, const struct taskstats_exit *x)
{
	e->ts_utime_us += x->utime_us;
	e->ts_stime_us += x->stime_us;
	e->ts_minflt += x->minflt;
	e->ts_majflt += x->majflt;
	if (x->hiwater_rss_kib > e->ts_hiwater_kib)
		e->ts_hiwater_kib = x->hiwater_rss_kib;
	/* it went above what the ticks saw of it, with the tree near enough to
	 * its peak that the others, grown since the last tick too, may have
	 * made one with it: the exit sample is best made now, with the others
	 * read now */
	uint64_t seen = e->top.tick ? e->top.rss_kib : 0, peak = c->sum.peak.pss_kib;
	/* (its high-water mark is its program's whole life's: past what a tick
	 * read of it only if it rose since; the main thread's record only) */
	int rose = !e->top.tick || (e->hwm_read && x->hiwater_rss_kib > e->hwm_kib);
	if (x->pid == x->tgid && rose && x->hiwater_rss_kib >= seen + COLL_TOP_MIN_GAIN_KIB &&
	    !coll_proc_before_first_exec(c, e) &&
	    x->hiwater_rss_kib >= COLLECTOR_TOP_MIN_KIB &&
	    (double)(c->sum.last.pss_kib + (x->hiwater_rss_kib - seen)) >= (double)peak * COLLECTOR_TOP_NEAR)
	{
		if (!c->top_due) {
			c->top_due = 1;
			c->top_due_ns = clockns_now() + COLLECTOR_TOP_WAIT_NS;
		}
		c->top_wait_pid = e->rec.pid;
		coll_events_quiet_wake(c);
	}
	if (x->pid == x->tgid) {
		e->ts_leader = 1;
		e->ts_leader_seq = x->seq;
		memcpy(e->ts_comm, x->comm, sizeof(e->ts_comm));
		e->ts_comm[sizeof(e->ts_comm) - 1] = '\0';
		/* a process of one thread ends with its record, sent as its
		 * memory is let go of (its exit event only once it is freed): it
		 * leaves the peak's reckoning now, at its most, and the tick
		 * taken at once reads the others at that instant */
		if (e->max_threads == 1 && !e->thread_forked && !e->top_gone) {
			uint64_t f = e->ts_minflt + e->ts_majflt;
			coll_pss_gone(c, e, exit_ns(c, e, x), e->ts_hiwater_kib, e->ts_hiwater_kib != 0,
				      f > e->mem_at_faults ? f - e->mem_at_faults : 0, 0);
			e->top_gone = 1;
		}
	}
	c->sum.ts_records++;
}

/* Whether record x, received at read_ns with the socket found empty at
 * after_ns, is of a task of e (taskstats_belongs): not of a stranger that had
 * e's pid before e's fork or got it after e ended. */
static int ts_fits(struct collector *c, const struct pentry *e, const struct taskstats_exit *x,
		   uint64_t after_ns, uint64_t read_ns)
{
	const struct pentry *p = ptable_get(c->pt, e->rec.ppid);
	struct taskstats_owner o = {.end_ns = e->exit_pending ? e->exit_ns : 0, .ppid = e->rec.ppid,
				    .parent_sure = p && !p->exit_pending, .ours = e->rec.pid == c->root};

	if (e->fork_seen) {
		o.start_ns = e->rec.start_ns;
	} else if (e->start_ticks) {
		/* found by polling: its stat start, rounded down to a tick */
		uint64_t boot = e->start_ticks * (1000000000ull / (uint64_t)procfs_hz());
		uint64_t off = coll_proc_boot_offset_ns(c);
		o.start_ns = boot > off ? boot - off : 0;
	}
	return taskstats_belongs(x, &o, after_ns, read_ns);
}

/* Adds the record kept in slot k of tspend, of e's pid, to e if it is one of
 * its tasks' and not too old; the slot is free then. */
static void ts_adopt_one(struct collector *c, struct pentry *e, size_t k, uint64_t now)
{
	struct taskstats_exit *x = &c->tspend[k];
	if (c->tspend_ns[k] + COLLECTOR_TSPEND_NS >= now &&
	    ts_fits(c, e, x, c->tspend_after_ns[k], c->tspend_ns[k])) {
		ts_add(c, e, x);
		x->tgid = c->tspend_tgid[k] = 0;
	}
}

/* Whether the next record kept would take the place of one kept since the
 * ring was last swept (ts_park_sweep), not yet too old: its process may be
 * in the tree (a record is adopted at its process's exit, coll_sample.c, and
 * a fork storm's exits come faster than the ticks). One kept before is a
 * stranger's, or its fork event was lost: it makes room. */
static int ts_park_full(const struct collector *c)
{
	size_t k = c->tspend_next % COLLECTOR_TSPEND;
	return c->tspend_tgid[k] && c->tspend_ns[k] >= c->tspend_swept_ns &&
	       c->tspend_ns[k] + COLLECTOR_TSPEND_NS >= coll_base_clock(c);
}

/* Makes room in the ring: reads the netlink events (the fork events of the
 * records kept; not while ts_events_held) and gives each record kept whose
 * process is in the tree now to it, at most once a ring's worth of records. */
static void ts_park_sweep(struct collector *c)
{
	if (c->nl_fd >= 0 && !c->ts_events_held)
		coll_events_drain(c);
	uint64_t now = coll_base_clock(c);
	c->tspend_swept_ns = now;
	for (size_t k = 0; k < COLLECTOR_TSPEND; k++) {
		struct pentry *e = c->tspend_tgid[k] ? ptable_get(c->pt, c->tspend_tgid[k]) : NULL;
		if (e)
			ts_adopt_one(c, e, k, now);
	}
}

/* Applies one record to its process in the tree, or keeps it for a while
 * (its fork event may be unread, or it tells of a lost child). */
void coll_ts_apply(struct collector *c, const struct taskstats_exit *x)
{
	struct pentry *e;

	if (x->hiwater_rss_kib >= COLLECTOR_TOP_MIN_KIB)
		c->ts_useful = 1;

	if (x->aggr_tgid)
		return;
	e = ptable_get(c->pt, x->tgid);
	if (!e && ts_park_full(c)) {
		ts_park_sweep(c);
		e = ptable_get(c->pt, x->tgid);
	}
	if (e && !ts_fits(c, e, x, c->ts_empty_ns, coll_base_clock(c))) {
		c->sum.ts_unfit++;
		return;
	}
	if (!e) {
		/* not in the tree, or its fork event is still unread */
		size_t k = c->tspend_next++ % COLLECTOR_TSPEND;
		c->tspend[k] = *x;
		c->tspend_tgid[k] = x->tgid;
		c->tspend_ns[k] = coll_base_clock(c);
		c->tspend_after_ns[k] = c->ts_empty_ns;
		if (x->pid == x->tgid && ptable_get(c->pt, x->ppid)) {
			k = c->tskid_next++ % COLLECTOR_TSPEND;
			c->tskid[k] = *x;
			c->tskid_ns[k] = c->tspend_ns[(c->tspend_next - 1) % COLLECTOR_TSPEND];
			/* a child born and gone between ticks, big enough to make
			 * a top: the tick reads its fork event now */
			if (c->ts_polled && x->hiwater_rss_kib >= COLLECTOR_TOP_MIN_KIB && !c->top_due) {
				c->top_due = 1;
				c->top_wait_pid = 0;
				c->top_due_ns = clockns_now();
			}
		}
		return;
	}
	if (!coll_proc_before_first_exec(c, e))
		ts_add(c, e, x);
}

/* Adds to e the records of its tasks that came before it was in the table. */
void coll_ts_adopt(struct collector *c, struct pentry *e)
{
	uint64_t now = coll_base_clock(c);

	for (size_t k = 0; k < COLLECTOR_TSPEND; k++)
		if (c->tspend_tgid[k] == e->rec.pid)
			ts_adopt_one(c, e, k, now);
}

/* Counts the children of the tree that only their taskstats records tell of:
 * their fork and exit events were both lost (an overrun drops every event
 * until the socket is empty) and they ended before a rescan. A record is
 * looked at once a netlink drain begun after it came has ended, so that the
 * fork event, had it come, was handled. It must be a process's leader task,
 * its parent then a process of the tree, and its pid not one retired lately. */
void coll_ts_lost_children(struct collector *c)
{
	if (c->sum.mode != COLLECTOR_NETLINK)
		return;
	if (c->tskid_next - c->tskid_scan > COLLECTOR_TSPEND)
		c->tskid_scan = c->tskid_next - COLLECTOR_TSPEND; /* overwritten */
	for (; c->tskid_scan < c->tskid_next; c->tskid_scan++) {
		size_t k = c->tskid_scan % COLLECTOR_TSPEND;
		struct taskstats_exit *x = &c->tskid[k];
		if (c->tskid_ns[k] >= c->nl_drain_ns)
			break; /* its fork event may be unread yet */
		if (ptable_get(c->pt, x->tgid))
			continue; /* its fork event came: the record was adopted */
		struct pentry *p = ptable_get(c->pt, x->ppid);
		/* when the record came: after the child ended, so its start
		 * reckoned from it is no earlier than the true one */
		uint64_t at = c->tskid_ns[k], life = x->etime_us * 1000;
		uint64_t start = at > life ? at - life : 0;
		/* the parent was there before the child, and the child is not
		 * a later holder's of the parent's pid (reaped, its entry still
		 * here until the tick retires it): records come in the order
		 * tasks end, so one after the parent's own came after it ended;
		 * without the parent's record, a child that may have started
		 * after the parent's exit is left out */
		if (!p || coll_proc_before_first_exec(c, p) || p->rec.start_ns > start)
			continue;
		if (p->ts_leader ? x->seq > p->ts_leader_seq : p->exit_pending && start >= p->exit_ns)
			continue;
		if (coll_proc_retired_lately(c, x->pid))
			continue; /* a child retired before its record came */
		struct pentry *e = coll_sample_add_proc(c, x->pid, x->ppid, start, p);
		if (!e)
			continue;
		c->sum.rescans++;
		/* its program is the record's, not the parent's it was forked as */
		memcpy(e->rec.comm, x->comm, sizeof(e->rec.comm));
		e->rec.comm[sizeof(e->rec.comm) - 1] = '\0';
		e->rec.argv_id = 0;
		e->rec.valid &= ~PROC_V_ARGV;
		e->exit_pending = 1;
		e->exit_status_pending = (int)x->exitcode;
		e->exit_ns = at;
		coll_base_publish(c, e);
		/* its exec events, read before its record (their command line
		 * gone: the record's name stays) */
		coll_events_replay(c, x->pid, start);
		if ((e = ptable_get(c->pt, x->pid)) && !e->rec.comm[0]) {
			memcpy(e->rec.comm, x->comm, sizeof(e->rec.comm));
			e->rec.comm[sizeof(e->rec.comm) - 1] = '\0';
			coll_base_publish(c, e);
		}
		/* this record (its copy in tspend spent), then its threads' */
		for (size_t j = 0; j < COLLECTOR_TSPEND; j++)
			if (c->tspend_tgid[j] == x->pid && c->tspend[j].pid == x->pid)
				c->tspend[j].tgid = c->tspend_tgid[j] = 0;
		ts_add(c, e, x);
		coll_ts_adopt(c, e);
	}
}

/* Reads every pending taskstats record (one datagram each), a batch of
 * datagrams per system call. */
void coll_ts_drain(struct collector *c)
{
	if (c->ts_fd < 0)
		return;
	for (;;) {
		struct mmsghdr mm[COLLECTOR_TSBATCH];
		struct iovec iov[COLLECTOR_TSBATCH];
		uint64_t before = coll_base_clock(c);

		for (size_t i = 0; i < COLLECTOR_TSBATCH; i++) {
			iov[i] = (struct iovec){.iov_base = c->tsbuf[i], .iov_len = COLLECTOR_TSBUF};
			mm[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
		}
		int n = recvmmsg(c->ts_fd, mm, COLLECTOR_TSBATCH, MSG_DONTWAIT, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			c->sum.ts_lost++; /* those processes keep their sampled figures */
			continue;
		}
		if (n <= 0) {
			c->ts_empty_ns = before; /* what comes later ended after this */
			return;
		}
		for (int m = 0; m < n; m++) {
			size_t ok = 0;
			int k = taskstats_parse(c->tsbuf[m], mm[m].msg_len, c->ts_family, c->tsrec,
						COLLECTOR_TSREC, &ok);
			size_t cnt = k >= 0 ? (size_t)k : ok;
			for (size_t i = 0; i < cnt; i++) {
				c->tsrec[i].seq = ++c->ts_seq;
				coll_ts_apply(c, &c->tsrec[i]);
			}
		}
		if (n < COLLECTOR_TSBATCH) {
			/* the call stopped at an empty socket */
			c->ts_empty_ns = before;
			return;
		}
	}
}

/* Wakes the collector at each record (each exit) while a process of the
 * tree lives that can be at a top (any but one in its parent's pages, or
 * one whose record came): whether its exit can make the peak only its
 * record tells (its high-water mark); one read small at the last tick may
 * have grown to hundreds of MiB since, and its exit event, the other
 * wakeup, comes only once its memory is freed, ms later. A wakeup whose
 * records were all of small processes (under COLLECTOR_TOP_MIN_KIB) leaves
 * them to wait until the collector wakes for anything else (a tick, an
 * exec): a fork storm's tiny processes cost a wakeup a tick, not one each.
 * With rare ticks every record always does. (An overflow wakes it too:
 * EPOLLERR.) */
void coll_ts_arm(struct collector *c)
{
	if (c->ts_fd < 0 || c->ep_fd < 0 || c->cfg.interval_ms > COLLECTOR_QUIET_MAX_INTERVAL_MS)
		return;
	int on = 0;
	for (size_t i = 0; i < ptable_count(c->pt) && !on && !c->ts_quiet; i++) {
		const struct pentry *e = ptable_at(c->pt, i);
		on = !e->top_gone && !coll_proc_vm_borrowed(c, e);
	}
	if (on == c->ts_polled)
		return;
	struct epoll_event ev = {.events = on ? EPOLLIN : 0, .data.fd = c->ts_fd};
	if (epoll_ctl(c->ep_fd, EPOLL_CTL_MOD, c->ts_fd, &ev) == 0)
		c->ts_polled = on;
}
