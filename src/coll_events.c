/* coll_events.c: netlink events merged in time order, the early-event
 * buffer and lost-event repair. */
#include "collector_int.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

/* Keeps an exec or exit event of a pid not (yet) in the tree: its fork event
 * may still be on the way. The oldest is dropped when full. */
static void keep_early(struct collector *c, const struct nlproc_event *ev)
{
	size_t k = 0;

	for (size_t i = 0; i < c->ev.nearly; i++)
		if (c->ev.early[i].ts_ns + coll_base_early_ns(c) >= ev->ts_ns)
			c->ev.early[k++] = c->ev.early[i];
	c->ev.nearly = k;
	if (c->ev.nearly == COLLECTOR_EARLY) {
		memmove(c->ev.early, c->ev.early + 1, (COLLECTOR_EARLY - 1) * sizeof(c->ev.early[0]));
		c->ev.nearly--;
	}
	c->ev.early[c->ev.nearly++] = *ev;
}

/* Replays, in order, the early events of the process just added at
 * fork->ts_ns: those of its pid from at most window_ns before (exec events
 * only, with exec_only: the caller handles its end); every other early event
 * of that pid is dropped (an earlier holder's), and those of other pids too
 * old to wait longer. */
static void replay_early(struct collector *c, const struct nlproc_event *fork, uint64_t window_ns,
			 int exec_only)
{
	size_t k = 0;
	struct nlproc_event mine[COLLECTOR_EARLY];
	size_t nmine = 0;

	for (size_t i = 0; i < c->ev.nearly; i++) {
		const struct nlproc_event *ev = &c->ev.early[i];
		if (ev->tgid == fork->pid) {
			if (ev->ts_ns + window_ns >= fork->ts_ns && (!exec_only || ev->type == NLPROC_EXEC))
				mine[nmine++] = *ev;
		} else if (ev->ts_ns + coll_base_early_ns(c) >= fork->ts_ns) {
			c->ev.early[k++] = *ev;
		}
	}
	c->ev.nearly = k;
	for (size_t i = 0; i < nmine; i++)
		coll_events_on_event(c, &mine[i]);
}

/* A process added without its fork event (found by a rescan, or by its
 * taskstats record, at at_ns): its exec events waiting in the early buffer
 * (read up to the early window before) are its own, replayed; its other
 * early events are an earlier holder's, dropped. */
void coll_events_replay(struct collector *c, pid_t pid, uint64_t at_ns)
{
	struct nlproc_event fork = {.type = NLPROC_FORK, .pid = pid, .tgid = pid, .ts_ns = at_ns};

	if (c->ev.nearly)
		replay_early(c, &fork, coll_base_early_ns(c), 1);
}

/* A fork event: a thread counted, or a child of the tree added. */
static void on_fork_event(struct collector *c, const struct nlproc_event *ev)
{
	struct pentry *e, *p;

	if (ev->pid != ev->tgid) {
		if ((e = ptable_get(c->pt, ev->tgid))) {
			c->total_threads++;
			e->thread_forked = 1;
		}
		return;
	}
	p = ptable_get(c->pt, ev->ptgid);
	if (!p || ptable_get(c->pt, ev->pid))
		return;
	/* Forked after the parent's exit event: by another process that got
	 * its pid (a thread's exec, whose leader "exit" comes first, has
	 * cleared exit_pending with its exec event by now: events are handled
	 * in time order). */
	if (p->exit_pending && ev->ts_ns > p->exit_ns)
		return;
	if (c->cfg.test_lose_forks && ++c->ev.test_forks % c->cfg.test_lose_forks == 0) {
		c->ev.test_lost[c->ev.test_nlost++ % 64] = ev->pid;
		return;
	}
	p->forked_since_read = 1; /* its pages are shared with the child now */
	pid_t parent_pid = p->rec.pid;
	e = coll_sample_add_proc(c, ev->pid, ev->ptgid, ev->ts_ns, p);
	if (e) {
		e->fork_seen = 1;
		struct store_event se = {.t_ns = ev->ts_ns, .type = STORE_EV_FORK,
					 .pid = ev->pid, .ppid = parent_pid};
		store_push_event(c->st, &se);
		coll_base_publish(c, e);
		/* its exec (and exit) events, read before its fork event; within
		 * COLLECTOR_EARLY_NS of it (the kernel sends the fork event after
		 * the child may have run) */
		replay_early(c, ev, COLLECTOR_EARLY_NS, 0);
	}
}

/* An exec event: of a process of the tree, of one retired already, or
 * kept (its fork event may still be on the way). */
static void on_exec_event(struct collector *c, const struct nlproc_event *ev)
{
	struct pentry *e = ptable_get(c->pt, ev->tgid);

	if (e) {
		/* the leader's "exit" was a thread's exec (it comes before the
		 * exec event); an exec replayed from before a real exit leaves
		 * the exit be */
		if (!e->exit_pending || ev->ts_ns >= e->exit_ns) {
			e->exit_pending = 0;
			e->exit_late = 0;
		}
		coll_sample_note_exec(c, e, ev->ts_ns);
	} else if (!coll_sample_retired_exec(c, ev->tgid, ev->ts_ns)) {
		keep_early(c, ev);
	}
}

/* A child of the tree whose fork event was lost (fork and exit come on one
 * socket, in order) and that ended before a rescan could find it: counted
 * now, its figures unknown but for those its taskstats record brings. */
static void on_lost_child_exit(struct collector *c, const struct nlproc_event *ev, struct pentry *p)
{
	struct pentry *e = coll_sample_add_proc(c, ev->pid, ev->ptgid, ev->ts_ns, p);

	if (!e)
		return;
	c->sum.rescans++;
	/* ended: before its exec events are replayed, so that they leave the
	 * exit be and read no stranger's stat */
	e->exit_pending = 1;
	e->exit_status_pending = (int)ev->exit_code;
	e->exit_ns = ev->ts_ns;
	coll_base_publish(c, e);
	/* its exec events, which came on the other socket, first */
	struct nlproc_event fork = {.type = NLPROC_FORK, .pid = ev->pid, .tgid = ev->pid, .ts_ns = ev->ts_ns};
	replay_early(c, &fork, coll_base_early_ns(c), 1);
}

/* An exit event: a process of the tree is due to retire (at the next tick,
 * once /proc shows it gone), a lost child is counted, or it is kept. */
static void on_exit_event(struct collector *c, const struct nlproc_event *ev)
{
	struct pentry *e, *p;

	/* a task of an orphan of ours: its last one leaves a zombie to reap
	 * (the main thread is not always the last) */
	if (ev->ptgid == c->self)
		c->reap_due = 1;
	if (ev->pid != ev->tgid)
		return;
	for (size_t i = 0; c->cfg.test_lose_exits && i < 64 && i < c->ev.test_nlost; i++)
		if (c->ev.test_lost[i] == ev->pid)
			return;
	e = ptable_get(c->pt, ev->pid);
	if (e) {
		/* Retired at the next tick once /proc shows it gone: a thread
		 * that execs also sends the old leader's exit, and an early
		 * event may be a stranger's whose pid the tree reused. */
		if (e->exit_pending)
			return; /* the pid's next holder ended too: ours ended first */
		e->exit_pending = 1;
		e->exit_status_pending = (int)ev->exit_code;
		e->exit_ns = ev->ts_ns;
	} else if ((p = ptable_get(c->pt, ev->ptgid)) && !(p->exit_pending && ev->ts_ns > p->exit_ns) &&
		   !coll_proc_retired_lately(c, ev->pid)) {
		on_lost_child_exit(c, ev, p);
	} else {
		keep_early(c, ev);
	}
}

/* Handles one netlink event. */
void coll_events_on_event(struct collector *c, const struct nlproc_event *ev)
{
	if (ev->type == NLPROC_FORK)
		on_fork_event(c, ev);
	else if (ev->type == NLPROC_EXEC)
		on_exec_event(c, ev);
	else if (ev->type == NLPROC_EXIT)
		on_exit_event(c, ev);
}

/* One netlink socket being drained: a batch of its events and where we are. */
struct nlsrc {
	int fd;
	char *buf;
	struct nlproc_event *evs;
	size_t n;    /* events in the batch */
	int more;    /* the last read filled the batch: more may be queued */
	int fd_read; /* read at least once */
	uint64_t read_ns; /* when it was last read: what happened before is in the batch */
	int rescan_due; /* an overrun was reported: rescan once the socket is empty */
	size_t cap;     /* room in evs (0: COLLECTOR_NLBATCH) */
};

/* Rescans the tree after an overrun of src, once src is empty. */
static void rescan_if_due(struct collector *c, struct nlsrc *src)
{
	if (!src->rescan_due)
		return;
	src->rescan_due = 0;
	struct store_event ev = {.t_ns = coll_base_clock(c), .type = STORE_EV_RESCAN};
	store_push_event(c->st, &ev);
	coll_scan_tree(c, ev.t_ns, coll_events_replay);
}

/* Reads one batch of datagrams from src into its events; counts and repairs
 * lost events (ENOBUFS). Sets src->more when the socket may hold more.
 * The kernel reports an overrun once: until a read empties the socket it
 * drops further events silently (the socket stays "congested"). So the rescan
 * that finds the processes whose fork events were lost waits for the read
 * that empties the socket; a short process gone by then is counted by its
 * exit event (on_event). */
static void nl_read(struct collector *c, struct nlsrc *src)
{
	struct mmsghdr mm[COLLECTOR_NLBATCH];
	struct iovec iov[COLLECTOR_NLBATCH];
	size_t slot = COLLECTOR_NLBUF / COLLECTOR_NLBATCH;
	size_t cap = src->cap && src->cap < COLLECTOR_NLBATCH ? src->cap : COLLECTOR_NLBATCH;
	int n;

	src->n = 0;
	src->more = 0;
	src->fd_read = 1;
	src->read_ns = coll_base_clock(c);
	for (;;) {
		for (size_t i = 0; i < COLLECTOR_NLBATCH; i++) {
			iov[i] = (struct iovec){.iov_base = src->buf + i * slot, .iov_len = slot};
			mm[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
		}
		n = recvmmsg(src->fd, mm, (unsigned)cap, MSG_DONTWAIT, NULL);
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != ENOBUFS) {
			if (errno == EAGAIN)
				rescan_if_due(c, src);
			return;
		}
		struct store_event ev = {.t_ns = coll_base_clock(c), .type = STORE_EV_LOST, .arg = 1};
		c->sum.lost_events++;
		store_push_event(c->st, &ev);
		src->rescan_due = 1;
	}
	/* one event per datagram: at most cap events */
	for (int i = 0; i < n && src->n < cap; i++) {
		size_t ok = 0;
		int k = nlproc_parse(iov[i].iov_base, mm[i].msg_len, src->evs + src->n, cap - src->n, &ok);
		src->n += k >= 0 ? (size_t)k : ok;
	}
	src->more = n == (int)cap;
	c->sum.nl_events += src->n;
	if (!src->more)
		rescan_if_due(c, src); /* the read stopped at an empty socket */
}

/* Turns waking for fork|exit events on when they come fast enough to
 * threaten the quiet socket's buffer between ticks (a quarter of it in one
 * tick's time), off again when they slow down (under a 16th). at_tick: the
 * tick's decision, which may also turn it off. */
void coll_events_quiet_adjust(struct collector *c, int at_tick)
{
	int on = c->quiet_polled;

	if (c->nl_quiet_fd < 0 || c->ep_fd < 0 || c->cfg.interval_ms > COLLECTOR_QUIET_MAX_INTERVAL_MS)
		return;
	if (c->ev.quiet_read > (uint64_t)c->quiet_cap / 4)
		on = 1;
	else if (at_tick && c->ev.quiet_read < (uint64_t)c->quiet_cap / 16)
		on = 0;
	if (at_tick)
		c->ev.quiet_read = 0;
	if (c->top_due)
		on = 1; /* an exit event awaited (coll_base_quiet_wake) */
	if (on == c->quiet_polled)
		return;
	/* with no EPOLLIN an overflow (EPOLLERR) still wakes us */
	struct epoll_event ev = {.events = on ? EPOLLIN : 0, .data.fd = c->nl_quiet_fd};
	if (epoll_ctl(c->ep_fd, EPOLL_CTL_MOD, c->nl_quiet_fd, &ev) == 0)
		c->quiet_polled = on;
}

/* Reads every pending netlink event and handles them in the order they
 * happened. With two sockets (exec; fork|exit) both are read batch by batch
 * and merged by kernel timestamp, so a fork is handled before the exec that
 * follows it (an exec that still comes first waits in the early list). */
void coll_events_drain(struct collector *c)
{
	c->nl_drain_ns = coll_base_clock(c);
	struct nlsrc w = {.fd = c->nl_fd, .buf = c->ev.nlbuf, .evs = c->ev.evs};
	struct nlsrc q = {.fd = c->nl_quiet_fd, .buf = c->ev.qbuf, .evs = c->ev.qevs};
	size_t wi = 0, qi = 0;

	/* the exec events read ahead at their wakeups come first, as a read */
	if (c->wpend_n) {
		w.n = c->wpend_n;
		w.fd_read = 1;
		w.read_ns = c->ev.wpend_read_ns;
		w.more = c->ev.wpend_more;
		c->wpend_n = 0;
	}
	w.rescan_due = c->ev.wpend_rescan;
	c->ev.wpend_rescan = 0;
	/* seen empty by epoll just now: as good as a read that found nothing
	 * (what came since is read when the other socket's events are newer) */
	if (c->nl_empty_ns) {
		w.fd_read = 1;
		if (c->nl_empty_ns > w.read_ns)
			w.read_ns = c->nl_empty_ns;
		w.more = 0;
		c->nl_empty_ns = 0;
		if (c->nl_quiet_fd < 0)
			return;
	}
	if (c->nl_quiet_fd < 0) {
		do {
			nl_read(c, &w);
			for (size_t i = 0; i < w.n; i++)
				coll_events_on_event(c, &w.evs[i]);
		} while (w.more);
		return;
	}
	for (;;) {
		/* a batch used up while its socket may hold more: read on first,
		 * its next event may be older than the other batch's */
		if (wi == w.n && (w.more || !w.fd_read)) {
			nl_read(c, &w);
			wi = 0;
		}
		if (qi == q.n && (q.more || !q.fd_read)) {
			nl_read(c, &q);
			c->ev.quiet_read += q.n;
			qi = 0;
		}
		if (wi == w.n && qi == q.n) {
			coll_events_quiet_adjust(c, 0);
			return;
		}
		int from_q = qi < q.n && (wi == w.n || q.evs[qi].ts_ns <= w.evs[wi].ts_ns);
		const struct nlproc_event *ev = from_q ? &q.evs[qi] : &w.evs[wi];
		/* the other socket's batch is used up and was read before this
		 * event happened: what it got since may come first */
		struct nlsrc *other = from_q ? &w : &q;
		if ((from_q ? wi == w.n : qi == q.n) && ev->ts_ns > other->read_ns) {
			nl_read(c, other);
			if (other == &q)
				c->ev.quiet_read += q.n;
			*(from_q ? &wi : &qi) = 0;
			if (other->n)
				continue;
		}
		coll_events_on_event(c, ev);
		if (from_q)
			qi++;
		else
			wi++;
	}
}

/* At an exec's wakeup (split subscription): reads the exec socket and, for
 * each exec, what must be read while the program runs (its stat, its command
 * line: coll_sample_prefetch_exec), leaving the events to the next drain,
 * which handles them in time order with the fork|exit socket's. So that
 * socket is not read at every exec, only at ticks. An exec whose parent is
 * not known (its fork event unread, its parent no exec read ahead), the
 * command's first, no room left, or an overrun the read did not end by
 * emptying the socket (nl_read rescans once it does): the drain runs now,
 * as it did at every exec. */
void coll_events_exec_ahead(struct collector *c)
{
	if (c->nl_quiet_fd < 0 || c->wpend_n >= COLLECTOR_NLBATCH) {
		coll_events_drain(c);
		return;
	}
	size_t first = c->wpend_n;
	struct nlsrc w = {.fd = c->nl_fd, .buf = c->ev.nlbuf, .evs = c->ev.evs + first,
			  .cap = COLLECTOR_NLBATCH - first};

	nl_read(c, &w);
	c->wpend_n = first + w.n;
	c->ev.wpend_more = w.more;
	c->ev.wpend_read_ns = w.read_ns;
	c->ev.wpend_rescan |= w.rescan_due;
	int now = w.rescan_due;
	for (size_t i = first; i < c->wpend_n && !now; i++)
		if (c->ev.evs[i].type == NLPROC_EXEC && !coll_sample_prefetch_exec(c, &c->ev.evs[i]))
			now = 1;
	if (now)
		coll_events_drain(c);
}
