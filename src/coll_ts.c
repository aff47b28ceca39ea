/* coll_ts.c: taskstats exit records applied to the right processes. */
#include "collector_int.h"

#include "clockns.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

/* Whether the next record kept would take the place of one kept since the
 * ring was last swept (ts_park_sweep), not yet too old: its process may be
 * in the tree (a record is adopted at its process's exit, coll_sample.c, and
 * a fork storm's exits come faster than the ticks). One kept before is a
 * stranger's, or its fork event was lost: it makes room. */
static int ts_park_full(const struct collector *c)
{
	size_t k = c->ts.pend_next % COLLECTOR_TSPEND;
	return c->tspend_tgid[k] && c->tspend_ns[k] >= c->ts.pend_swept_ns &&
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
	c->ts.pend_swept_ns = now;
	for (size_t k = 0; k < COLLECTOR_TSPEND; k++) {
		struct pentry *e = c->tspend_tgid[k] ? ptable_get(c->pt, c->tspend_tgid[k]) : NULL;
		if (e)
			coll_tsrec_adopt_one(c, e, k, now);
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
	if (e && !coll_tsrec_fits(c, e, x, c->ts_empty_ns, coll_base_clock(c))) {
		c->sum.ts_unfit++;
		return;
	}
	if (!e) {
		/* not in the tree, or its fork event is still unread */
		size_t k = c->ts.pend_next++ % COLLECTOR_TSPEND;
		c->tspend[k] = *x;
		c->tspend_tgid[k] = x->tgid;
		c->tspend_ns[k] = coll_base_clock(c);
		c->tspend_after_ns[k] = c->ts_empty_ns;
		if (x->pid == x->tgid && ptable_get(c->pt, x->ppid)) {
			/* the ring full of records not looked at yet (a storm of
			 * children with their events lost, and a late tick): look
			 * at them now, their fork events read first, rather than
			 * write over one */
			if (c->tskid_next - c->tskid_scan >= COLLECTOR_TSPEND && c->sum.mode == COLLECTOR_NETLINK) {
				if (c->nl_fd >= 0 && !c->ts_events_held)
					coll_events_drain(c);
				coll_ts_lost_children(c);
			}
			k = c->tskid_next++ % COLLECTOR_TSPEND;
			c->ts.kid[k] = *x;
			c->ts.kid_ns[k] = c->tspend_ns[(c->ts.pend_next - 1) % COLLECTOR_TSPEND];
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
		coll_tsrec_add(c, e, x);
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
	if (c->tskid_next - c->tskid_scan > COLLECTOR_TSPEND) { /* overwritten: lost, and said so */
		c->sum.ts_lost += c->tskid_next - COLLECTOR_TSPEND - c->tskid_scan;
		c->tskid_scan = c->tskid_next - COLLECTOR_TSPEND;
	}
	for (; c->tskid_scan < c->tskid_next; c->tskid_scan++) {
		size_t k = c->tskid_scan % COLLECTOR_TSPEND;
		struct taskstats_exit *x = &c->ts.kid[k];
		if (c->ts.kid_ns[k] >= c->nl_drain_ns)
			break; /* its fork event may be unread yet */
		if (ptable_get(c->pt, x->tgid))
			continue; /* its fork event came: the record was adopted */
		struct pentry *p = ptable_get(c->pt, x->ppid);
		/* when the record came: after the child ended, so its start
		 * reckoned from it is no earlier than the true one */
		uint64_t at = c->ts.kid_ns[k], life = x->etime_us * 1000;
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
		coll_tsrec_add(c, e, x);
		coll_tsrec_adopt(c, e);
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
			iov[i] = (struct iovec){.iov_base = c->ts.buf[i], .iov_len = COLLECTOR_TSBUF};
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
			int k = taskstats_parse(c->ts.buf[m], mm[m].msg_len, c->ts_family, c->ts.rec,
						COLLECTOR_TSREC, &ok);
			size_t cnt = k >= 0 ? (size_t)k : ok;
			for (size_t i = 0; i < cnt; i++) {
				c->ts.rec[i].seq = ++c->ts.seq;
				coll_ts_apply(c, &c->ts.rec[i]);
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
