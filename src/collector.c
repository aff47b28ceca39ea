/* collector.c: follows the command's process tree and samples it into the store.
 *
 * Netlink mode tracks tree membership from fork/exec/exit events (exact); poll
 * mode rediscovers the tree from /proc/PID/task/TID/children every tick. Each
 * tick reads the cheap counters (stat, statm) of every live process and spends
 * what is left of a CPU budget on smaps_rollup reads, chosen by priority; in
 * between, each process's PSS is estimated from its last read and the change
 * of its counters (pssmodel.h). When the tree's estimate passes the highest
 * measured total, a sweep reads the processes whose figures are in doubt, so
 * that a new peak is a sum of reads, whatever the budget; near the peak, ticks
 * come every COLLECTOR_FAST_TICK_MS.
 *
 * This file, the coordinator, holds the thread, its epoll loop, the tick and
 * the public API. Calls go down, never back up (tests/structure.py checks
 * that the files call each other in no circle); from the top:
 *   coll_end.c     reaping, the run's end (it says the end is due; the
 *                  coordinator runs the last tick: collector_finish)
 *   coll_ts.c      taskstats records read, lost children counted
 *   coll_events.c  netlink events merged in time order, the early buffer
 *   coll_scan.c    the /proc tree scan (the events' job replays the early
 *                  events of what it finds, through a callback)
 *   coll_sample.c  processes added, their execs, cheap samples, retired
 *   coll_rss.c     the traced RSS between ticks (tells the PSS job of the
 *                  interval's ends: coll_rss_ends, handed down by the tick)
 *   coll_tsrec.c   a taskstats record added to its process, or adopted later
 *   coll_pss.c     the PSS model, its reads and sweeps, the peak
 *   coll_proc.c    a process's /proc files with its identity checked, the
 *                  processes retired lately
 *   coll_base.c    the clock, CPU accounting, publishing, waking the UI
 * sharing their state in collector_int.h. */
#include "collector_int.h"

#include "clockns.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint64_t collector_now_ns(void)
{
	return clockns_now();
}

struct collector *collector_new(struct store *st, const struct collector_config *cfg)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->st = st;
	c->cfg = *cfg;
	c->self = getpid();
	c->proc_root = cfg->proc_root ? cfg->proc_root : "/proc";
	if (!c->cfg.interval_ms)
		c->cfg.interval_ms = STORE_INTERVAL_MS;
	if (c->cfg.budget <= 0)
		c->cfg.budget = 0.01;
	c->nl_fd = cfg->nl_fd;
	c->nl_quiet_fd = cfg->nl_fd >= 0 ? cfg->nl_quiet_fd : -1;
	c->ts_fd = cfg->ts_fd;
	c->ts_family = cfg->ts_family;
	c->rss = cfg->rss;
	c->ep_fd = c->wake_fd = c->notify_fd = c->pidfd = -1;
	/* (a failure below frees the collector: no fd of a job not started yet
	 * may read as 0, stdin) */
	c->mem.meminfo_fd = c->mem.vmstat_fd = -1;
	c->cost_ns_per_kib = PSSCHED_COST_NS_PER_KIB;
	c->shared_ratio = 1.0;
	c->pt = ptable_new();
	c->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!c->pt || c->notify_fd < 0 || c->wake_fd < 0) {
		int e = errno ? errno : ENOMEM;
		collector_free(c);
		errno = e;
		return NULL;
	}
	/* Kept /proc files stay COLLECTOR_FD_RESERVE below the fd limit: with
	 * thousands of processes (or ulimit -n 32) they would otherwise take every
	 * descriptor, and the children files that find the tree, the exports and
	 * the command's own pipes could not be opened. */
	struct rlimit rl;
	rlim_t lim = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
	c->fd_cache_below = lim == RLIM_INFINITY || lim > INT_MAX ? INT_MAX - COLLECTOR_FD_RESERVE
			    : (int)lim - COLLECTOR_FD_RESERVE;
	c->sum.mode = c->nl_fd >= 0 ? COLLECTOR_NETLINK : COLLECTOR_POLL;
	c->sum.taskstats = c->ts_fd >= 0;
	if (coll_rss_start(c) < 0)
		coll_rss_free(c); /* no memory for it: the ticks alone */
	coll_psi_start(c, 0); /* spacetime's cgroup: the command's too */
	coll_mem_start(c, 0);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	c->ncpu = ncpu > 0 ? (double)ncpu : 1.0;
	c->sum.interval_ms = c->cfg.interval_ms;
	return c;
}

/* Appends to c->ps a per-process sample of e at now when it is live and new
 * to the store, its PSS or RSS moved, or its last one is STORE_PS_EVERY_NS
 * old (store.h). */
static void proc_sample(struct collector *c, struct pentry *e, uint64_t now)
{
	uint32_t v = e->rec.valid & (PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS);

	if (e->rec.end_ns || !v || c->ps_n >= c->ps_cap)
		return;
	if (e->ps_t_ns && now - e->ps_t_ns < STORE_PS_EVERY_NS &&
	    !store_ps_moved(e->ps_pss_kib, e->rec.pss_kib) && !store_ps_moved(e->ps_rss_kib, e->rec.rss_kib))
		return;
	c->ps[c->ps_n++] = (struct store_proc_sample){
		.id = e->rec.id, .t_ns = now, .pss_kib = e->rec.pss_kib, .rss_kib = e->rec.rss_kib,
		.cpu_us = e->rec.utime_us + e->rec.stime_us, .minflt = e->rec.minflt,
		.majflt = e->rec.majflt, .valid = v};
	e->ps_t_ns = now;
	e->ps_pss_kib = e->rec.pss_kib;
	e->ps_rss_kib = e->rec.rss_kib;
}

/* Sets when the next tick comes (the epoll wait's deadline, on the real
 * clock: no timer fd to read at every tick): soon while the tree is near its
 * peak, else an interval after the last one due, or after now when late by
 * more than an interval or back from fast ticks. */
static void tick_pace(struct collector *c)
{
	int fast = c->near_peak && c->cfg.interval_ms > COLLECTOR_FAST_TICK_MS;
	uint64_t now = collector_now_ns(), iv = (uint64_t)c->cfg.interval_ms * 1000000ull;

	if (fast) {
		c->next_tick_ns = now + COLLECTOR_FAST_TICK_MS * 1000000ull;
		c->sum.fast_ticks++;
	} else if (c->fast || !c->next_tick_ns || c->next_tick_ns + iv <= now) {
		c->next_tick_ns = now + iv;
	} else if (c->next_tick_ns <= now + c->tick_slack_ns) {
		c->next_tick_ns += iv; /* due, or taken early: its slot is done */
	}
	c->fast = fast;
	c->tick_slack_ns = (uint64_t)((double)(fast ? COLLECTOR_FAST_TICK_MS * 1000000ull : iv) * COLLECTOR_TICK_SLACK);
}

/* Waits for events until the next tick is due; returns what epoll returned. */
static int wait_events(struct collector *c, struct epoll_event *evs, int max)
{
	uint64_t now = collector_now_ns();
	uint64_t at = c->top_due && c->top_due_ns < c->next_tick_ns ? c->top_due_ns : c->next_tick_ns;
	if (c->rt.recheck_ns && c->rt.recheck_ns < at)
		at = c->rt.recheck_ns;
	uint64_t left = at > now ? at - now : 0;
	struct timespec ts = {.tv_sec = (time_t)(left / 1000000000ull),
			      .tv_nsec = (long)(left % 1000000000ull)};

	int n = epoll_pwait2(c->ep_fd, evs, max, &ts, NULL);
	if (n < 0 && errno == ENOSYS) /* a kernel before 5.11: ms, rounded up */
		n = epoll_wait(c->ep_fd, evs, max, (int)((left + 999999) / 1000000));
	return n;
}

/* The tick's first step: what the events, the scan and the taskstats
 * records say changed since the last one; the processes known to have
 * ended leave the table. */
static void tick_changes(struct collector *c, uint64_t now)
{
	if (c->sum.mode == COLLECTOR_POLL)
		coll_scan_tree(c, now, NULL);
	if (c->nl_fd >= 0) {
		coll_events_drain(c); /* exits first: a process gone now has its event queued */
		coll_events_quiet_adjust(c, 1);
	}
	coll_ts_drain(c); /* a task's record is sent before its exit event */
	/* records of children not in the table: their fork events, had they
	 * come, are read by a drain begun after the records came; now, while
	 * their parents are still in the table to be parents */
	if (c->tskid_scan < c->tskid_next && c->nl_fd >= 0) {
		coll_events_drain(c);
		/* and the records of the exits that drain read (each sent
		 * before its exit event): a process retired below with its
		 * record unread would never get it */
		coll_ts_drain(c);
	}
	coll_ts_lost_children(c);
	coll_sample_prefetch_expire(c, now, 0);
	coll_sample_retire_exited(c);
}

/* The cheap counters of every live process; one gone without an exit event
 * leaves the table. */
static void tick_cheap(struct collector *c, uint64_t now)
{
	for (size_t i = 0; i < ptable_count(c->pt);) {
		struct pentry *e = ptable_at(c->pt, i);
		if (coll_sample_cheap(c, e, now) == -ESRCH && e->rec.pid != c->root) {
			/* Gone without an exit event: in netlink mode its event may
			 * still be on the way (give it a second); when polling, or
			 * after lost events, this is how a process is seen to end. */
			if (!e->gone_ns)
				e->gone_ns = now;
			if (c->sum.mode == COLLECTOR_POLL || now - e->gone_ns > 1000000000ull) {
				coll_sample_retire(c, e, e->gone_ns, 0, 0, NULL);
				continue;
			}
		}
		i++;
	}
}

/* The tree's counters in s (those of the processes gone, and the live
 * ones' since their base), the refresh ages; when due, every record to the
 * store, with per-process samples. */
static void tick_totals(struct collector *c, struct sample *s, uint64_t now, int due)
{
	s->minflt = c->gone_minflt;
	s->majflt = c->gone_majflt;
	s->utime_us = c->gone_utime_us;
	s->stime_us = c->gone_stime_us;
	if (due && c->cfg.proc_samples)
		coll_base_ps_room(c, c->ps_n + ptable_count(c->pt));
	for (size_t i = 0; i < ptable_count(c->pt); i++) {
		struct pentry *e = ptable_at(c->pt, i);
		s->minflt += coll_base_since(e->rec.minflt, e->base_minflt);
		s->majflt += coll_base_since(e->rec.majflt, e->base_majflt);
		s->utime_us += coll_base_since(e->rec.utime_us, e->base_utime_us);
		s->stime_us += coll_base_since(e->rec.stime_us, e->base_stime_us);
		if (c->attach && e->rec.peak_rss_kib > c->sum.ru_maxrss_kib)
			c->sum.ru_maxrss_kib = e->rec.peak_rss_kib;
		s->live_threads += e->rec.threads;
		if (e->pss_t_ns) {
			c->age_sum_ns += now - e->pss_t_ns;
			c->age_n++;
			if (now - e->pss_t_ns > c->sum.pss_max_age_ns)
				c->sum.pss_max_age_ns = now - e->pss_t_ns;
		}
		if (due) {
			coll_base_publish(c, e);
			if (c->cfg.proc_samples)
				proc_sample(c, e, now);
		}
	}
}

static int cmp_ps_time(const void *x, const void *y)
{
	const struct store_proc_sample *a = x, *b = y;
	if (a->t_ns != b->t_ns)
		return (a->t_ns > b->t_ns) - (a->t_ns < b->t_ns);
	return (a->id > b->id) - (a->id < b->id);
}

/* The tick's per-process samples to the store, in time order (the peak's,
 * between ticks, come before the tick's own): each process's in the order
 * a recording gives them back. */
static void tick_proc_samples(struct collector *c, uint64_t now)
{
	int sorted = 1;

	for (size_t i = 0; i < c->ps_n && sorted; i++)
		sorted = c->ps[i].t_ns == now;
	if (!sorted)
		qsort(c->ps, c->ps_n, sizeof(*c->ps), cmp_ps_time);
	if (c->ps_n && c->ps[c->ps_n - 1].t_ns > c->ps_pushed_ns)
		c->ps_pushed_ns = c->ps[c->ps_n - 1].t_ns;
	store_push_proc_samples(c->st, c->ps, c->ps_n);
	c->ps_n = 0;
}

/* How many cores the tree kept busy since the last tick, the counts, and
 * which of s's figures hold. */
static void tick_counts(struct collector *c, struct sample *s, uint64_t now)
{
	uint64_t tree_cpu = s->utime_us + s->stime_us;
	if (c->last_tick_ns && now > c->last_tick_ns && tree_cpu >= c->tree_cpu_us)
		c->tree_cores = (double)(tree_cpu - c->tree_cpu_us) * 1000.0 / (double)(now - c->last_tick_ns);
	/* A process's exact CPU (taskstats) lands at its exit, all in one tick:
	 * never count more cores than there are. */
	if (c->tree_cores > c->ncpu)
		c->tree_cores = c->ncpu;
	c->tree_cpu_us = tree_cpu;
	s->live_procs = (uint32_t)ptable_count(c->pt);
	s->total_procs = c->total_procs;
	s->total_threads = c->total_threads;
	s->valid = SAMPLE_FAULTS | SAMPLE_CPU | SAMPLE_COUNTS;
	/* no process counted yet (the command not exec'd, or gone before any
	 * read): its memory is unknown, not 0; once all have gone, it is 0 */
	if (c->model_seen)
		s->valid |= SAMPLE_PSS | SAMPLE_RSS | SAMPLE_KINDS;
	if ((s->valid & SAMPLE_RSS) && s->rss_kib > c->sum.max_tree_rss_kib)
		c->sum.max_tree_rss_kib = s->rss_kib;
	if (s->valid & SAMPLE_KINDS) {
		c->sum.kinds_known = 1;
		if (s->swap_kib > c->sum.max_swap_kib) {
			c->sum.max_swap_kib = s->swap_kib;
			c->sum.max_swap_t_ns = s->t_ns;
		}
		if (s->thp_kib > c->sum.max_thp_kib)
			c->sum.max_thp_kib = s->thp_kib;
		if (s->locked_kib > c->sum.max_locked_kib)
			c->sum.max_locked_kib = s->locked_kib;
	}
}

/* The interval's traced floor, the exit samples and the peak; returns
 * whether s is to be stored (a new peak, or an interval since the last). */
static int tick_peak(struct collector *c, struct sample *s, int sure, uint64_t now, uint64_t every)
{
	uint64_t peak_t = c->sum.peak.t_ns, any_t = c->peak_any.t_ns;
	coll_rss_tick(c, s, now);        /* before the exit sample: it closes the interval */
	coll_pss_exit_sample(c, s, now); /* before s: it is older */
	coll_pss_peak(c, s, sure, now, NULL);
	if (c->sum.peak.t_ns != peak_t && c->sum.peak.t_ns == s->t_ns)
		coll_pss_peak_procs(c, s->t_ns);
	/* and every sample that is the run's peak, measured or the highest
	 * estimate (an unconfirmed peak is one of the series' samples too) */
	return !c->last_push_ns || c->final_tick || c->sum.peak.t_ns != peak_t || c->peak_any.t_ns != any_t ||
	       now - c->last_push_ns >= every;
}

/* The tick's last step: the summary so far, when the next tick comes, and
 * (pushed) the UI told. */
static void tick_close(struct collector *c, const struct sample *s, uint64_t now, int push)
{
	c->sum.last = *s;
	c->sum.total_execs = c->total_execs;
	c->sum.pss_mean_age_ns = c->age_n ? c->age_sum_ns / c->age_n : 0;
	/* its own CPU time is a system call here: read once a second (and at
	 * the end, coll_end), not at every tick */
	if (!c->cpu_read_ns || now - c->cpu_read_ns >= COLLECTOR_SELF_CPU_NS) {
		c->sum.collector_cpu_ns = coll_base_thread_cpu_ns();
		c->cpu_read_ns = now;
	}
	c->last_tick_ns = now;
	tick_pace(c);
	coll_ts_arm(c);
	if (push) {
		store_summary_set(c->st, &c->sum);
		if (!c->cfg.notify_end)
			coll_base_notify(c);
	}
}

/* One sampling tick: cheap counters for all, PSS within budget, a sample. */
void collector_tick(struct collector *c)
{
	uint64_t now = coll_base_clock(c);
	struct sample s = {.t_ns = now};

	tick_changes(c, now);
	tick_cheap(c, now);
	coll_rss_begin(c, now); /* an exit at a top there has the tick read the others */
	coll_pss_schedule(c, now);
	struct coll_rss_ends ends;
	coll_rss_ends(c, &ends);
	int sure = coll_pss_tick(c, &s, now, &ends);
	/* records reach the store at the interval (a fast tick between two
	 * changes nothing the UI shows at its frame rate); a tick taken early
	 * (COLLECTOR_TICK_SLACK) is the interval's */
	uint64_t every = c->cfg.interval_ms * 900000ull;
	every = every > c->tick_slack_ns ? every - c->tick_slack_ns : 0;
	int due = !c->last_push_ns || now - c->last_push_ns >= every;
	tick_totals(c, &s, now, due);
	tick_counts(c, &s, now);
	coll_psi_tick(c, &s, now);
	coll_mem_tick(c, &s, now); /* after the pressure: it weighs memory stalls */
	int push = tick_peak(c, &s, sure, now, every);
	tick_proc_samples(c, now);
	if (push) {
		store_push_sample(c->st, &s);
		c->last_push_ns = now;
	}
	tick_close(c, &s, now, push);
}

void collector_finish(struct collector *c, uint64_t now)
{
	c->end_due = 0;
	coll_end_last_reads(c, now);
	c->final_tick = 1; /* its sample is stored: the run at its end */
	collector_tick(c);
	coll_end_close(c);
}

/* Ends the run when coll_end said it has ended. */
static void finish_if_due(struct collector *c)
{
	if (c->end_due && !atomic_load(&c->finished))
		collector_finish(c, c->end_due_ns);
}

/* An exit at a top is due for its sample: its exit event came (the entry
 * is pending its retirement, or gone), or it waited long enough. */
static int top_ready(struct collector *c, uint64_t now)
{
	if (!c->top_due)
		return 0;
	const struct pentry *e = ptable_get(c->pt, c->top_wait_pid);
	return !e || e->exit_pending || e->top_gone || now >= c->top_due_ns;
}

/* sched_setattr(2)'s argument (not in glibc's headers). */
struct collector_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

/* Asks for a short slice (kernels from 6.12, no privilege needed): the
 * thread woken by a record, when a process exits at its top, then runs at
 * once, before the others of a busy machine have used their slices up (a
 * few ms, the others growing all the while), and reads them at that
 * instant. Its nice value is kept. An older kernel ignores it or says no:
 * the tick is then as late as the scheduler makes it, and the exit sample
 * counts that (coll_top.h). */
static void short_slice(void)
{
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0); /* this thread's */
	if (errno)
		return;
	struct collector_sched_attr a = {.size = sizeof(a), .policy = 0 /* SCHED_OTHER */, .nice = nice,
					 .runtime = COLLECTOR_SLICE_NS};
	(void)syscall(SYS_sched_setattr, 0, &a, 0);
}

/* Handles the fds epoll found ready. Returns 1 when the thread is to stop
 * (the UI asked: wake_fd). */
static int on_ready(struct collector *c, const struct epoll_event *evs, int n)
{
	for (int i = 0; i < n; i++) {
		int fd = evs[i].data.fd;
		if (fd == c->ts_fd) {
			coll_ts_drain(c);
		} else if (fd == c->nl_fd) {
			coll_events_exec_ahead(c);
		} else if (fd == c->nl_quiet_fd) {
			coll_events_drain(c);
		} else if (fd == c->pidfd) {
			coll_end_reap(c);
			finish_if_due(c);
		} else if (fd == c->wake_fd) {
			if (atomic_load(&c->detach_req) && !atomic_load(&c->finished))
				collector_finish(c, coll_base_clock(c));
			return 1;
		}
	}
	return 0;
}

/* The tick, when due, or nearly and awake anyway (n events), or an exit at
 * a top is; then the orphans' reaping. nl_empty: when the exec socket was
 * last found empty. */
static void tick_if_due(struct collector *c, int n, uint64_t nl_empty)
{
	uint64_t now = collector_now_ns();
	if (atomic_load(&c->finished) ||
	    !(now >= c->next_tick_ns || top_ready(c, now) || (n > 0 && now + c->tick_slack_ns >= c->next_tick_ns)))
		return;
	/* a regular tick before the awaited exit event leaves it due */
	if (now < c->next_tick_ns && top_ready(c, now))
		c->sum.exit_ticks++;
	c->top_due = c->top_due && !top_ready(c, now);
	c->nl_empty_ns = nl_empty;
	collector_tick(c);
	/* the exit it drained was sampled by it */
	if (c->top_due && top_ready(c, collector_now_ns()))
		c->top_due = 0;
	c->nl_empty_ns = 0;
	/* orphans: no pidfd tells when they end, nor when the tree left
	 * behind has (--wait-tree); with events, when one of ours exited (and
	 * once a second, for an exit event lost) */
	if ((c->cfg.subreaper || c->root_done) && c->pidfd >= 0 &&
	    (c->root_done || c->sum.mode == COLLECTOR_POLL || c->reap_due ||
	     c->last_tick_ns - c->reap_ns >= COLLECTOR_REAP_NS)) {
		c->reap_due = 0;
		c->reap_ns = c->last_tick_ns;
		coll_end_reap(c);
		finish_if_due(c);
	}
}

/* Whether the run has ended: attached, when every process has (unless a
 * fork not yet read says otherwise: one that forked, then ended, in this
 * tick); without a pidfd, when the command has been reaped. */
static void end_if_over(struct collector *c)
{
	if (atomic_load(&c->finished))
		return;
	if (c->attach) {
		if (coll_end_attach_ended(c)) {
			if (c->nl_fd >= 0)
				coll_events_drain(c);
			if (coll_end_attach_ended(c))
				collector_finish(c, coll_base_clock(c));
		}
	} else if (c->pidfd < 0) {
		coll_end_reap(c);
		finish_if_due(c);
	}
}

static void *collector_main(void *arg)
{
	struct collector *c = arg;
	struct epoll_event evs[8];

	short_slice();
	/* the first sample soon after the command starts, so one that runs for
	 * a few ms still has its memory seen; then every interval */
	collector_tick(c);
	if (c->cfg.interval_ms > COLLECTOR_FIRST_TICK_MS) {
		c->next_tick_ns = collector_now_ns() + COLLECTOR_FIRST_TICK_MS * 1000000ull;
		c->tick_slack_ns = 0; /* the first one, at its time */
	}
	while (!atomic_load(&c->finished)) {
		int n = wait_events(c, evs, 8);
		if (n < 0 && errno != EINTR)
			break;
		if (n < 0)
			n = 0;
		c->sum.collector_wakeups++;
		/* the exec socket not ready now: it was empty, and a tick need
		 * not read it to learn that (a system call saved per tick) */
		int nl_ready = 0, by_ts = 0, by_other = 0;
		for (int i = 0; i < n; i++) {
			nl_ready |= evs[i].data.fd == c->nl_fd;
			by_ts |= evs[i].data.fd == c->ts_fd;
			by_other |= evs[i].data.fd != c->ts_fd;
		}
		c->ts_useful = 0;
		/* stamped a little before now: an exec queued between epoll's
		 * look and this clock read is older than the stamp, and a
		 * fork|exit event newer than the stamp has it read */
		uint64_t nl_empty = nl_ready || c->nl_fd < 0 ? 0 : coll_base_clock(c);
		nl_empty = nl_empty > COLLECTOR_NL_EMPTY_SLACK_NS ? nl_empty - COLLECTOR_NL_EMPTY_SLACK_NS : 0;
		if (on_ready(c, evs, n))
			return NULL;
		/* records of small processes only: theirs wait for the next
		 * other wakeup; any other wakeup arms them again */
		c->ts_quiet = by_ts && !by_other && !c->ts_useful;
		coll_ts_arm(c);
		coll_rss_wake(c);
		tick_if_due(c, n, nl_empty);
		end_if_over(c);
	}
	return NULL;
}

static int ep_add(int ep, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return fd < 0 ? 0 : epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* Raises the fd limit: three /proc fds are kept per live process. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int start_thread(struct collector *c);

int collector_start(struct collector *c, pid_t pid, int pidfd, uint64_t start_ns)
{
	raise_nofile();
	c->root = pid;
	c->pidfd = pidfd;
	c->sum.start_ns = start_ns;
	struct pentry *e = coll_sample_add_proc(c, pid, getpid(), start_ns, NULL);
	if (!e)
		return -ENOMEM;
	if (c->sum.mode == COLLECTOR_POLL) {
		coll_sample_note_exec(c, e, start_ns);
	} else if ((e->rec.argv_id = coll_sample_root_argv(c)) != 0) {
		/* until its exec is seen, show what it is about to run, not us */
		const char *a0 = c->cfg.root_argv[0], *slash = strrchr(a0, '/');
		snprintf(e->rec.comm, sizeof(e->rec.comm), "%.15s", slash ? slash + 1 : a0);
		e->rec.valid |= PROC_V_ARGV;
	}
	return start_thread(c);
}

/* Takes what an attached process has already used as its base, and names it
 * (its command line, its program): it was found, not seen to exec. Returns
 * -ESRCH when it is gone already. */
static int attach_base(struct collector *c, struct pentry *e)
{
	struct procfs_stat ps;

	if (coll_proc_read_stat(c, e, &ps) < 0)
		return -ESRCH;
	coll_proc_take_stat(e, &ps);
	memcpy(e->rec.comm, ps.comm, sizeof(e->rec.comm));
	e->rec.comm[sizeof(e->rec.comm) - 1] = '\0';
	e->rec.ppid = ps.ppid ? ps.ppid : e->rec.ppid;
	e->base_utime_us = e->rec.utime_us;
	e->base_stime_us = e->rec.stime_us;
	e->base_minflt = e->rec.minflt;
	e->base_majflt = e->rec.majflt;
	c->sum.attach_prior_cpu_us += e->rec.utime_us + e->rec.stime_us;
	/* its threads were there before: counted as found, as polling does */
	e->rec.threads = ps.num_threads ? ps.num_threads : 1;
	if (e->rec.threads > e->max_threads)
		e->max_threads = e->rec.threads;
	if ((e->rec.argv_id = coll_sample_read_argv(c, e->rec.pid)) != 0)
		e->rec.valid |= PROC_V_ARGV;
	else
		e->rec.valid &= ~PROC_V_ARGV;
	return 0;
}

int collector_attach(struct collector *c, const pid_t *pids, size_t n, uint64_t start_ns)
{
	raise_nofile();
	c->attach = 1;
	c->root = -1; /* no command: every process ends by its exit, not by wait4 */
	c->sum.start_ns = start_ns;
	c->sum.attached = 1;
	/* the trace follows only what spacetime forks */
	coll_rss_free(c);
	c->sum.rss_traced = 0;
	for (size_t i = 0; i < n && i < STORE_ATTACH_MAX; i++) {
		struct procfs_stat ps;
		ssize_t len = procfs_read_at(c->proc_root, pids[i], "stat", c->rbuf, sizeof(c->rbuf));
		if (ptable_get(c->pt, pids[i]))
			continue; /* named twice */
		c->sum.attach_pid[c->sum.attach_n++] = pids[i];
		pid_t ppid = len > 0 && procfs_parse_stat(c->rbuf, (size_t)len, &ps) == 0 ? ps.ppid : 0;
		if (!coll_sample_add_proc(c, pids[i], ppid, start_ns, NULL))
			return -ENOMEM;
	}
	/* The netlink socket was subscribed before this scan: a child forked
	 * from now on has its fork event queued, one forked before is found
	 * here, and one both ways is added once (on_event skips a pid the
	 * table holds). An attached process that is also a descendant of
	 * another is found twice, and kept once. */
	c->attaching = 1;
	coll_scan_tree(c, start_ns, NULL);
	c->attaching = 0;
	/* gone since it was found: it was never watched, and is not counted */
	for (size_t i = 0; i < ptable_count(c->pt);) {
		struct pentry *e = ptable_at(c->pt, i);
		if (attach_base(c, e) < 0) {
			ptable_remove(c->pt, e->rec.pid);
			continue;
		}
		i++;
	}
	c->total_procs = c->total_threads = 0;
	for (size_t i = 0; i < ptable_count(c->pt); i++) {
		struct pentry *e = ptable_at(c->pt, i);
		c->total_procs++;
		c->total_threads += e->max_threads;
		coll_base_publish(c, e);
	}
	if (!ptable_count(c->pt))
		return -ESRCH;
	return start_thread(c);
}

void collector_detach(struct collector *c)
{
	uint64_t one = 1;

	if (!c->started)
		return;
	atomic_store(&c->detach_req, 1);
	if (write(c->wake_fd, &one, sizeof(one)) < 0) {
		/* cannot fail for a fresh eventfd */
	}
	pthread_join(c->th, NULL);
	c->started = 0;
}

/* Sets up the collector's fds and starts its thread. */
static int start_thread(struct collector *c)
{
	sigset_t all, old;
	int r;

	c->ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (c->ep_fd < 0)
		return -errno;
	if (c->nl_quiet_fd >= 0) {
		/* read at ticks and execs; woken for only on overflow or when fast
		 * (or always, when ticks are rare) */
		c->quiet_polled = c->cfg.interval_ms > COLLECTOR_QUIET_MAX_INTERVAL_MS;
		struct epoll_event qev = {.events = c->quiet_polled ? EPOLLIN : 0,
					  .data.fd = c->nl_quiet_fd};
		int bytes = 0;
		socklen_t sl = sizeof(bytes);
		if (epoll_ctl(c->ep_fd, EPOLL_CTL_ADD, c->nl_quiet_fd, &qev) < 0)
			return -errno;
		if (getsockopt(c->nl_quiet_fd, SOL_SOCKET, SO_RCVBUF, &bytes, &sl) < 0 || bytes <= 0)
			bytes = 256 * 1024;
		c->quiet_cap = bytes / COLLECTOR_NL_EVENT_BYTES;
	}
	if (c->ts_fd >= 0) {
		/* read at ticks; an overflow (EPOLLERR) wakes us, and with rare
		 * ticks, or a process big enough to make a top (coll_ts_arm),
		 * every record does */
		c->ts_polled = c->cfg.interval_ms > COLLECTOR_QUIET_MAX_INTERVAL_MS;
		struct epoll_event tev = {.events = c->ts_polled ? EPOLLIN : 0, .data.fd = c->ts_fd};
		if (epoll_ctl(c->ep_fd, EPOLL_CTL_ADD, c->ts_fd, &tev) < 0)
			return -errno;
	}
	if ((r = ep_add(c->ep_fd, c->nl_fd)) < 0 || (r = ep_add(c->ep_fd, c->pidfd)) < 0 || (r = ep_add(c->ep_fd, c->wake_fd)) < 0)
		return r;
	/* a ring filling, or a burst of file pages mapped in the tree, wakes
	 * us between ticks */
	int rfd[COLL_RSS_WAKE_RINGS];
	size_t nr = rsstrace_fds(c->rss, rfd, COLL_RSS_WAKE_RINGS);
	for (size_t i = 0; i < nr; i++)
		if ((r = ep_add(c->ep_fd, rfd[i])) < 0)
			return r;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&c->th, NULL, collector_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r == 0)
		c->started = 1;
	return r;
}

int collector_notify_fd(const struct collector *c)
{
	return c->notify_fd;
}

int collector_finished(struct collector *c)
{
	return atomic_load(&c->finished);
}

void collector_stop(struct collector *c)
{
	uint64_t one = 1;

	if (!c->started)
		return;
	if (write(c->wake_fd, &one, sizeof(one)) < 0) {
		/* cannot fail for a fresh eventfd */
	}
	pthread_join(c->th, NULL);
	c->started = 0;
}

void collector_free(struct collector *c)
{
	if (!c)
		return;
	collector_stop(c);
	coll_sample_prefetch_expire(c, 0, 1);
	ptable_free(c->pt);
	free(c->sched_items);
	free(c->sched_picks);
	free(c->ps);
	free(c->mp);
	free(c->mp_idx);
	free(c->mp_pick);
	free(c->top_live);
	coll_rss_free(c);
	coll_psi_free(c);
	coll_mem_free(c);
	if (c->nl_fd >= 0)
		nlproc_close(c->nl_fd); /* unsubscribes: the kernel counts listeners */
	if (c->nl_quiet_fd >= 0)
		nlproc_close(c->nl_quiet_fd);
	if (c->ts_fd >= 0)
		taskstats_close(c->ts_fd, c->ts_family);
	int fds[] = {c->ep_fd, c->wake_fd, c->notify_fd};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(c);
}
