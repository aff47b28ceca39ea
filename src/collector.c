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
 * come every COLLECTOR_FAST_TICK_MS. */
#include "collector.h"

#include "nlproc.h"
#include "taskstats.h"
#include "procfs.h"
#include "pssched.h"
#include "pssmodel.h"
#include "ptable.h"

#include <dirent.h>
#include <limits.h>
#include <linux/kcmp.h>
#include <sys/syscall.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define COLLECTOR_NLBUF (64 * 1024)
/* Processes retired lately, remembered so a rescan does not count again a
 * zombie its parent has not reaped yet. */
#define COLLECTOR_RETIRED 4096
/* Descriptors left free below RLIMIT_NOFILE by kept /proc files. */
#define COLLECTOR_FD_RESERVE 64
#define COLLECTOR_ARGV_MAX (64 * 1024)
#define COLLECTOR_EARLY 256
/* The collector's share of its budget per core the command keeps busy. */
#define COLLECTOR_TREE_SHARE 0.3
#define COLLECTOR_NLBATCH 64
/* One taskstats datagram (a record is about 450 bytes) and the records it holds. */
#define COLLECTOR_TSBUF 8192
#define COLLECTOR_TSREC 16
/* Records of tasks not (yet) in the table, kept for a while: a process that
 * forks and ends between two reads has its record read before its fork event. */
#define COLLECTOR_TSPEND 512
#define COLLECTOR_TSPEND_NS (2 * 1000000000ull)
/* The first tick after the command starts (ms). */
#define COLLECTOR_FIRST_TICK_MS 10
/* While the tree's PSS may be within COLLECTOR_NEAR_PEAK of its peak, ticks
 * come every COLLECTOR_FAST_TICK_MS: a build's peak is two compilers at their
 * largest at once, for some tens of ms, which 100 ms ticks mostly miss. Such
 * a tick stores a sample only when it is a new peak or an interval has passed. */
#define COLLECTOR_FAST_TICK_MS 20
#define COLLECTOR_NEAR_PEAK 0.95
/* Sweeps may cost this much CPU time, plus this share of the tree's CPU time,
 * before a climb is read less often (PSSMODEL_EPS_THRIFTY). */
#define COLLECTOR_SWEEP_ALLOW_NS 50000000ull
#define COLLECTOR_SWEEP_SHARE 0.0025
/* Above this sampling interval the fork|exit socket is woken for like the
 * exec one: between rare ticks a burst could fill its buffer. */
#define COLLECTOR_QUIET_MAX_INTERVAL_MS 250
/* Bytes of receive buffer one connector event takes (skb overhead included),
 * to tell how many fork|exit events the quiet socket holds. */
#define COLLECTOR_NL_EVENT_BYTES 1024
/* How far back an early event may lie before the fork event it belongs to. */
#define COLLECTOR_EARLY_NS (50 * 1000000ull)
/* Programs whose PSS/RSS ratios are learned from reads (a never-read process
 * is estimated from its program's). */
#define COLLECTOR_PROGS 256

struct prog_ratio {
	char comm[16]; /* "" = free */
	double anon, shared;
};

struct collector {
	struct store *st;
	struct collector_config cfg;
	int nl_fd, ep_fd, timer_fd, wake_fd, notify_fd, pidfd;
	int nl_quiet_fd;       /* fork|exit events, not woken for (or -1) */
	int ts_fd;             /* taskstats exit records, read at ticks (or -1) */
	uint16_t ts_family;
	int quiet_cap;         /* events its receive buffer holds, roughly */
	int model_seen;        /* a tick's model has counted a process */
	int root_done;         /* the command has been reaped (its tree may go on) */
	int attach;            /* attached to running processes: no command, no wait4;
				* the run ends when they and their descendants have */
	int attaching;         /* the scan at the attach: what it finds was not exec'd */
	atomic_int detach_req; /* collector_detach: end the run now, leave them running */
	int quiet_polled;      /* its EPOLLIN is on: the event rate is high */
	uint64_t quiet_read;   /* fork|exit events read since the last tick */
	pid_t root;
	pthread_t th;
	int started;
	atomic_int finished;
	struct ptable *pt;
	uint64_t next_id;
	/* totals over the tree */
	uint32_t total_procs, total_threads, total_execs;
	uint64_t gone_minflt, gone_majflt, gone_utime_us, gone_stime_us;
	/* PSS budget */
	struct pssched_budget tokens;
	double cost_ns_per_kib, shared_ratio;
	uint64_t sched_cpu_ns; /* process CPU time when the last PSS round ended */
	struct pssched_item *sched_items;
	uint32_t *sched_picks;
	size_t sched_cap;
	/* the PSS model: one entry per counted live process at a tick */
	struct pssmodel model;
	struct pssmodel_proc *mp;
	uint32_t *mp_idx, *mp_pick;
	size_t mp_cap;
	size_t mp_n;        /* processes the last tick's model counted (mp_idx) */
	struct store_peak_proc *peak_procs; /* scratch for store_peak_procs_set */
	size_t peak_cap;
	struct prog_ratio progs[COLLECTOR_PROGS];
	struct sample peak_meas, peak_any; /* the highest measured and estimated samples */
	int have_meas;
	double est_area, pss_area;         /* for sum.pss_est_share */
	int fast;           /* the timer is on fast ticks */
	uint64_t sweep_cpu_ns; /* what sweeps' reads cost */
	int near_peak;      /* the last tick found the tree near its peak, and moving */
	uint64_t prev_est_kib; /* the tree's estimate at the last tick */
	uint64_t last_push_ns; /* the last sample stored */
	uint64_t dil_cum_kib;   /* KiB newly mapped in the tree (new processes, shared growth) */
	int fd_cache_below;     /* /proc fds numbered below this are kept open between reads */
	struct {
		pid_t pid;
		uint64_t start_ticks; /* 0: never read */
	} retired[COLLECTOR_RETIRED]; /* a ring, the last retired */
	size_t nretired;        /* retired ever; the next slot is nretired % COLLECTOR_RETIRED */
	uint64_t ghost_cum_kib; /* KiB of shared parts of processes gone or exec'd */
	double tree_cores;     /* CPU the tree used over the last tick, in cores */
	double ncpu;           /* online CPUs: the most the tree can keep busy */
	uint64_t tree_cpu_us;  /* the tree's cumulative CPU at the last tick */
	/* exec/exit events that came before their process's fork event (the
	 * kernel sends the fork event after the child may already have run) */
	struct nlproc_event early[COLLECTOR_EARLY];
	size_t nearly;
	pid_t self;          /* spacetime's pid */
	uint32_t test_forks; /* fork events of the tree seen (cfg.test_lose_forks) */
	pid_t test_lost[64]; /* the children whose fork events were dropped (a ring) */
	size_t test_nlost;
	size_t tskid_scan;   /* the next record in tskid to look at for a lost child */
	uint64_t ts_seq;     /* taskstats records read */
	uint64_t nl_drain_ns; /* when the last netlink drain began */
	/* one batch of netlink events from each socket */
	struct nlproc_event evs[COLLECTOR_NLBATCH], qevs[COLLECTOR_NLBATCH];
	uint64_t last_tick_ns;
	uint64_t age_sum_ns, age_n;
	struct store_summary sum;
	char nlbuf[COLLECTOR_NLBUF], qbuf[COLLECTOR_NLBUF];
	char tsbuf[COLLECTOR_TSBUF] __attribute__((aligned(8)));
	struct taskstats_exit tsrec[COLLECTOR_TSREC];
	struct taskstats_exit tspend[COLLECTOR_TSPEND]; /* a ring; tgid 0: used */
	uint64_t tspend_ns[COLLECTOR_TSPEND];
	uint64_t tspend_after_ns[COLLECTOR_TSPEND]; /* the socket was empty then */
	size_t tspend_next;
	/* the records in tspend of leader tasks whose parent was in the tree
	 * when they came, apart: the children a lost child's record can tell of
	 * (tspend fills with strangers' records on a busy machine) */
	struct taskstats_exit tskid[COLLECTOR_TSPEND];
	uint64_t tskid_ns[COLLECTOR_TSPEND];
	size_t tskid_next;
	uint64_t ts_empty_ns;  /* when the taskstats socket was last found empty */
	char rbuf[16384];
	char argv[COLLECTOR_ARGV_MAX];
};

uint64_t collector_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	return cpu_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* All of spacetime's threads: the budget covers the dashboard too. */
static uint64_t process_cpu_ns(void)
{
	return cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static uint64_t ticks_to_us(uint64_t t)
{
	return t * 1000000u / (uint64_t)procfs_hz();
}

/* v counted from base (an attached process's counter when it was found). */
static uint64_t since_base(uint64_t v, uint64_t base)
{
	return v > base ? v - base : 0;
}

struct collector *collector_new(struct store *st, const struct collector_config *cfg)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->st = st;
	c->cfg = *cfg;
	c->self = getpid();
	if (!c->cfg.interval_ms)
		c->cfg.interval_ms = 100;
	if (c->cfg.budget <= 0)
		c->cfg.budget = 0.01;
	c->nl_fd = cfg->nl_fd;
	c->nl_quiet_fd = cfg->nl_fd >= 0 ? cfg->nl_quiet_fd : -1;
	c->ts_fd = cfg->ts_fd;
	c->ts_family = cfg->ts_family;
	c->ep_fd = c->timer_fd = c->wake_fd = c->notify_fd = c->pidfd = -1;
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
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	c->ncpu = ncpu > 0 ? (double)ncpu : 1.0;
	c->sum.interval_ms = c->cfg.interval_ms;
	return c;
}

static void notify(struct collector *c)
{
	uint64_t one = 1;

	if (write(c->notify_fd, &one, sizeof(one)) < 0) {
		/* counter saturated or closed: the UI will poll anyway */
	}
}

/* Publishes an entry's record to the store. */
static void publish(struct collector *c, struct pentry *e)
{
	store_proc_update(c->st, &e->rec);
}

/* Reads the command line of pid into the string pool; 0 if it is gone. */
static uint32_t read_argv(struct collector *c, pid_t pid)
{
	ssize_t n = procfs_read(pid, "cmdline", c->argv, sizeof(c->argv));

	if (n <= 0)
		return 0;
	if (c->argv[n - 1] == '\0')
		n--; /* drop the final separator: args are NUL-separated */
	return store_str_intern(c->st, c->argv, (size_t)n);
}

/* Interns the argv the command was started with. */
static uint32_t root_argv(struct collector *c)
{
	size_t n = 0;

	if (!c->cfg.root_argv)
		return 0;
	for (char *const *a = c->cfg.root_argv; *a; a++) {
		size_t l = strlen(*a) + 1;
		if (n + l > sizeof(c->argv))
			break;
		memcpy(c->argv + n, *a, l);
		n += l;
	}
	return n ? store_str_intern(c->st, c->argv, n - 1) : 0;
}

static int read_stat(struct collector *c, struct pentry *e, struct procfs_stat *ps);
static void model_leave(struct collector *c, const struct pentry *e);
static int model_counts(const struct collector *c, const struct pentry *e);

/* Records an exec by e (netlink event or detected by polling). */
static void note_exec(struct collector *c, struct pentry *e, uint64_t t_ns)
{
	struct store_exec ex = {.t_ns = t_ns, .pid = e->rec.pid, .ppid = e->rec.ppid};
	struct store_event ev = {.t_ns = t_ns, .type = STORE_EV_EXEC, .pid = e->rec.pid,
				 .ppid = e->rec.ppid};
	struct procfs_stat ps;

	ex.argv_id = read_argv(c, e->rec.pid);
	if (!ex.argv_id && e->rec.pid == c->root && !e->rec.nexec)
		ex.argv_id = root_argv(c); /* we started it: we know what it ran */
	if (!ex.argv_id)
		e->rec.comm[0] = '\0'; /* gone already: the parent's name would be wrong */
	/* the new program's name from stat, whose fd the ticks then reuse
	 * (cheaper than opening comm, then stat at the next tick) */
	if (read_stat(c, e, &ps) == 0) {
		memcpy(e->rec.comm, ps.comm, sizeof(e->rec.comm));
		e->rec.comm[sizeof(e->rec.comm) - 1] = '\0';
	}
	memcpy(ex.comm, e->rec.comm, sizeof(ex.comm));
	e->rec.argv_id = ex.argv_id;
	if (ex.argv_id)
		e->rec.valid |= PROC_V_ARGV;
	else
		e->rec.valid &= ~PROC_V_ARGV;
	e->rec.nexec++;
	c->total_execs++;
	/* The old image's shared pages pass to the others that map them. */
	if (model_counts(c, e))
		model_leave(c, e);
	if (c->sum.mode == COLLECTOR_NETLINK)
		e->vm_state = PTABLE_VM_OWN; /* a new program has a memory of its own */
	e->dil_seen = 0;
	/* A new program has a new address space: the old smaps fd shows the old one. */
	if (e->fd_smaps >= 0) {
		close(e->fd_smaps);
		e->fd_smaps = -1;
	}
	e->pss_t_ns = 0;
	e->rd_ok = 0;
	/* and new ptrace access: the command, forked by a spacetime that stays
	 * non-dumpable after its drop, becomes its user's own at exec */
	e->pss_denied = 0;
	e->forked_since_read = 0;
	size_t idx = store_push_exec(c->st, &ex);
	e->unread_exec = !ex.argv_id && idx != SIZE_MAX ? idx + 1 : 0;
	store_push_event(c->st, &ev);
}

/* CLOCK_BOOTTIME - CLOCK_MONOTONIC: the time the machine was suspended. */
static uint64_t boot_offset_ns(void)
{
	uint64_t mono = collector_now_ns();
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	uint64_t boot = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return boot > mono ? boot - mono : 0;
}

/* The fd of /proc/PID/NAME for a process: *slot, its kept one, or a new
 * one, kept in *slot when numbered below c->fd_cache_below, else used once
 * (*own set: the caller closes it). Returns the fd or -errno. */
static int proc_fd(struct collector *c, pid_t pid, int *slot, const char *name, int *own)
{
	*own = 0;
	if (*slot >= 0)
		return *slot;
	int fd = procfs_open(pid, 0, name);
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

/* Reads stat for e, checking identity; returns 0, -ESRCH when gone or reused. */
static int read_stat(struct collector *c, struct pentry *e, struct procfs_stat *ps)
{
	int own, fd = proc_fd(c, e->rec.pid, &e->fd_stat, "stat", &own);

	if (fd == -ENOENT || fd == -ESRCH)
		return -ESRCH;
	if (fd < 0)
		return fd; /* out of fds, say: not a reason to think it gone */
	ssize_t n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
	if (own)
		close(fd);
	if (n <= 0 || procfs_parse_stat(c->rbuf, (size_t)n, ps) < 0)
		return -ESRCH;
	if (e->start_ticks && ps->starttime_ticks != e->start_ticks)
		return -ESRCH; /* the pid now belongs to another process */
	/* The first read of a forked child: it may have ended and its pid
	 * gone to another process already; its start must be its fork's. */
	if (!e->start_ticks && e->fork_seen &&
	    (!procfs_started_near(ps->starttime_ticks, procfs_hz(), e->rec.start_ns + boot_offset_ns(),
				  TASKSTATS_SLACK_NS) ||
	     !parent_plausible(c, e, ps->ppid)))
		return -ESRCH;
	e->start_ticks = ps->starttime_ticks;
	return 0;
}

/* Copies the cumulative counters of a stat read into the record. */
static void take_stat(struct pentry *e, const struct procfs_stat *ps)
{
	e->rec.utime_us = ticks_to_us(ps->utime_ticks);
	e->rec.stime_us = ticks_to_us(ps->stime_ticks);
	e->rec.minflt = ps->minflt;
	e->rec.majflt = ps->majflt;
	e->rec.threads = ps->num_threads;
	if (ps->num_threads > e->max_threads)
		e->max_threads = ps->num_threads;
	e->rec.valid |= PROC_V_CPU | PROC_V_FAULTS;
	if (!e->rec.comm[0])
		memcpy(e->rec.comm, ps->comm, sizeof(e->rec.comm));
}

/* Adds a process of the tree to the table; parent may be NULL (the root). */
static struct pentry *add_proc(struct collector *c, pid_t pid, pid_t ppid, uint64_t t_ns,
			       const struct pentry *parent)
{
	struct procfs_stat ps;
	char comm[16] = "";
	uint32_t argv_id = 0, argv_valid = 0;
	int forked = parent != NULL;

	/* Copy what the child inherits first: adding may move the parent's entry. */
	if (parent) {
		argv_id = parent->rec.argv_id;
		argv_valid = parent->rec.valid & PROC_V_ARGV;
		memcpy(comm, parent->rec.comm, sizeof(comm));
		parent = NULL;
	}
	struct pentry *e = ptable_add(c->pt, pid);
	if (!e)
		return NULL;
	e->rec.id = ++c->next_id;
	e->rec.ppid = ppid;
	e->rec.start_ns = t_ns;
	e->rec.exit_status = -1;
	e->rec.argv_id = argv_id;
	e->rec.valid |= argv_valid;
	memcpy(e->rec.comm, comm, sizeof(e->rec.comm));
	/* A forked child is read at the next tick: reading it here would delay
	 * the events behind this one, and a short process's exec with them. */
	if ((!forked || c->sum.mode == COLLECTOR_POLL) && read_stat(c, e, &ps) == 0) {
		take_stat(e, &ps);
		/* Counters a forked child starts with were counted in its parent. */
		e->rec.threads = ps.num_threads ? ps.num_threads : 1;
	}
	e->max_threads = e->rec.threads ? e->rec.threads : 1;
	c->total_procs++;
	/* A new process has one thread; one found by polling has what it has. */
	c->total_threads += c->sum.mode == COLLECTOR_POLL ? e->max_threads : 1;
	return e;
}

static void ts_adopt(struct collector *c, struct pentry *e);

/* Moves e out of the live table: final counters, exit status, published.
 * last: its stat just read (a zombie's final counters), or NULL when it was
 * just found gone; otherwise (RETIRE_READ) stat is read here. */
static const struct procfs_stat retire_read;
#define RETIRE_READ (&retire_read)
static void retire(struct collector *c, struct pentry *e, uint64_t t_ns, int status, int known,
		   const struct procfs_stat *last)
{
	struct procfs_stat ps;
	struct store_event ev = {.t_ns = t_ns, .type = STORE_EV_EXIT, .pid = e->rec.pid,
				 .ppid = e->rec.ppid, .arg = status};

	if (last == RETIRE_READ && read_stat(c, e, &ps) == 0)
		last = &ps;
	if (last && last != RETIRE_READ)
		take_stat(e, last);
	if (c->ts_fd >= 0)
		ts_adopt(c, e); /* its tasks' records read before its fork event */
	if (e->ts_leader) {
		/* exact at the exit, where samples saw it last up to a tick before */
		if (e->ts_utime_us + e->ts_stime_us >= e->rec.utime_us + e->rec.stime_us) {
			e->rec.utime_us = e->ts_utime_us;
			e->rec.stime_us = e->ts_stime_us;
		}
		if (e->ts_minflt + e->ts_majflt >= e->rec.minflt + e->rec.majflt) {
			e->rec.minflt = e->ts_minflt;
			e->rec.majflt = e->ts_majflt;
		}
		if (e->ts_hiwater_kib > e->rec.peak_rss_kib)
			e->rec.peak_rss_kib = e->ts_hiwater_kib;
		if (!e->rec.comm[0])
			memcpy(e->rec.comm, e->ts_comm, sizeof(e->rec.comm));
		/* gone before its command line was read: the kernel names it now */
		if (e->unread_exec && e->ts_comm[0])
			store_exec_set_comm(c->st, e->unread_exec - 1, e->ts_comm);
		e->rec.valid |= PROC_V_CPU | PROC_V_FAULTS | PROC_V_RSS;
	}
	if (model_counts(c, e)) {
		/* its share of pages others map passes to them */
		model_leave(c, e);
	}
	c->gone_minflt += since_base(e->rec.minflt, e->base_minflt);
	c->gone_majflt += since_base(e->rec.majflt, e->base_majflt);
	c->gone_utime_us += since_base(e->rec.utime_us, e->base_utime_us);
	c->gone_stime_us += since_base(e->rec.stime_us, e->base_stime_us);
	if (c->attach && e->rec.peak_rss_kib > c->sum.ru_maxrss_kib)
		c->sum.ru_maxrss_kib = e->rec.peak_rss_kib; /* no wait4: the largest seen */
	e->rec.end_ns = t_ns ? t_ns : collector_now_ns();
	e->rec.threads = e->max_threads;
	if (known) {
		e->rec.exit_status = status;
		e->rec.valid |= PROC_V_EXIT;
	}
	publish(c, e);
	store_push_event(c->st, &ev);
	size_t k = c->nretired++ % COLLECTOR_RETIRED;
	c->retired[k].pid = e->rec.pid;
	c->retired[k].start_ticks = e->start_ticks;
	ptable_remove(c->pt, e->rec.pid);
}

/* Whether a process found by a rescan is one already retired: a zombie
 * whose exit event came before the rescan and whose parent has not reaped
 * it yet (children files list zombies). Matched on pid and start time, on
 * the pid alone for one retired before any stat read. */
static int was_retired(struct collector *c, pid_t pid)
{
	struct procfs_stat ps;
	size_t n = c->nretired < COLLECTOR_RETIRED ? c->nretired : COLLECTOR_RETIRED;
	int have = 0;

	for (size_t i = 0; i < n; i++) {
		if (c->retired[i].pid != pid)
			continue;
		if (!have) {
			ssize_t len = procfs_read(pid, "stat", c->rbuf, sizeof(c->rbuf));
			if (len <= 0 || procfs_parse_stat(c->rbuf, (size_t)len, &ps) < 0)
				return 1; /* gone already: nothing to count either way */
			have = 1;
		}
		if (!c->retired[i].start_ticks || c->retired[i].start_ticks == ps.starttime_ticks)
			return 1;
	}
	return 0;
}

/* Whether pid is one of the processes retired lately (the pid alone: it may
 * have a new holder by now): an event or record of it that comes late is no
 * sign of a process missed. */
static int retired_lately(const struct collector *c, pid_t pid)
{
	size_t n = c->nretired < COLLECTOR_RETIRED ? c->nretired : COLLECTOR_RETIRED;

	for (size_t i = 0; i < n; i++)
		if (c->retired[i].pid == pid)
			return 1;
	return 0;
}

/* Keeps an exec or exit event of a pid not (yet) in the tree: its fork event
 * may still be on the way. The oldest is dropped when full. */
static void keep_early(struct collector *c, const struct nlproc_event *ev)
{
	size_t k = 0;

	for (size_t i = 0; i < c->nearly; i++)
		if (c->early[i].ts_ns + COLLECTOR_EARLY_NS >= ev->ts_ns)
			c->early[k++] = c->early[i];
	c->nearly = k;
	if (c->nearly == COLLECTOR_EARLY) {
		memmove(c->early, c->early + 1, (COLLECTOR_EARLY - 1) * sizeof(c->early[0]));
		c->nearly--;
	}
	c->early[c->nearly++] = *ev;
}

static void on_event(struct collector *c, const struct nlproc_event *ev);

/* Replays, in order, the early events of the process a fork event just added;
 * drops early events too old to belong to any fork still to come. */
static void replay_early(struct collector *c, const struct nlproc_event *fork)
{
	size_t k = 0;
	struct nlproc_event mine[COLLECTOR_EARLY];
	size_t nmine = 0;

	for (size_t i = 0; i < c->nearly; i++) {
		const struct nlproc_event *ev = &c->early[i];
		if (ev->tgid == fork->pid && ev->ts_ns + COLLECTOR_EARLY_NS >= fork->ts_ns)
			mine[nmine++] = *ev;
		else if (ev->ts_ns + COLLECTOR_EARLY_NS >= fork->ts_ns)
			c->early[k++] = *ev;
	}
	c->nearly = k;
	for (size_t i = 0; i < nmine; i++)
		on_event(c, &mine[i]);
}

/* Handles one netlink event. */
static void on_event(struct collector *c, const struct nlproc_event *ev)
{
	struct pentry *e, *p;

	switch (ev->type) {
	case NLPROC_FORK:
		if (ev->pid != ev->tgid) {
			if (ptable_get(c->pt, ev->tgid))
				c->total_threads++;
			return;
		}
		p = ptable_get(c->pt, ev->ptgid);
		if (!p || ptable_get(c->pt, ev->pid))
			return;
		/* Forked after the parent's exit event: by another process that
		 * got its pid (a thread's exec, whose leader "exit" comes first,
		 * has cleared exit_pending with its exec event by now: events are
		 * handled in time order). */
		if (p->exit_pending && ev->ts_ns > p->exit_ns)
			return;
		if (c->cfg.test_lose_forks && ++c->test_forks % c->cfg.test_lose_forks == 0) {
			c->test_lost[c->test_nlost++ % 64] = ev->pid;
			return;
		}
		p->forked_since_read = 1; /* its pages are shared with the child now */
		pid_t parent_pid = p->rec.pid;
		e = add_proc(c, ev->pid, ev->ptgid, ev->ts_ns, p);
		if (e) {
			e->fork_seen = 1;
			struct store_event se = {.t_ns = ev->ts_ns, .type = STORE_EV_FORK,
						 .pid = ev->pid, .ppid = parent_pid};
			store_push_event(c->st, &se);
			publish(c, e);
			replay_early(c, ev);
		}
		return;
	case NLPROC_EXEC:
		e = ptable_get(c->pt, ev->tgid);
		if (e) {
			e->exit_pending = 0; /* the leader's "exit" was a thread's exec */
			e->exit_late = 0;
			note_exec(c, e, ev->ts_ns);
		} else {
			keep_early(c, ev);
		}
		return;
	case NLPROC_EXIT:
		if (ev->pid != ev->tgid)
			return;
		for (size_t i = 0; c->cfg.test_lose_exits && i < 64 && i < c->test_nlost; i++)
			if (c->test_lost[i] == ev->pid)
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
			   !retired_lately(c, ev->pid)) {
			/* A child of the tree whose fork event was lost (fork and exit
			 * come on one socket, in order) and that ended before a
			 * rescan could find it: counted now, its figures unknown but
			 * for those its taskstats record brings. */
			e = add_proc(c, ev->pid, ev->ptgid, ev->ts_ns, p);
			if (!e)
				return;
			c->sum.rescans++;
			publish(c, e);
			/* its exec events, which came on the other socket, first */
			struct nlproc_event fork = {.type = NLPROC_FORK, .pid = ev->pid, .tgid = ev->pid,
						    .ts_ns = ev->ts_ns};
			replay_early(c, &fork);
			if (!(e = ptable_get(c->pt, ev->pid)))
				return;
			e->exit_pending = 1;
			e->exit_status_pending = (int)ev->exit_code;
			e->exit_ns = ev->ts_ns;
		} else {
			keep_early(c, ev);
		}
		return;
	default:
		return;
	}
}

/* Pushes onto the stack the orphans of the tree: spacetime's children (of
 * any of its threads) other than the command, adding those the table lacks
 * (their parent ended between two scans). */
static void scan_orphans(struct collector *c, uint64_t now, pid_t **stack, size_t *sp, size_t *stack_cap,
			 pid_t **kids, size_t *kids_cap, char **kbuf, size_t *kbuf_cap)
{
	char path[64];
	pid_t self = getpid();
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)self);
	if (!(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		int fd = procfs_open(self, (pid_t)atoi(de->d_name), "children");
		int k = fd >= 0 ? procfs_read_children(fd, kbuf, kbuf_cap, kids, kids_cap) : 0;
		if (fd >= 0)
			close(fd);
		for (int j = 0; j < k; j++) {
			pid_t pid = (*kids)[j];
			if (pid == c->root)
				continue;
			if (!ptable_get(c->pt, pid)) {
				struct pentry *e = add_proc(c, pid, self, now, NULL);
				if (!e)
					continue;
				if (c->sum.mode == COLLECTOR_POLL)
					note_exec(c, e, now);
				c->sum.rescans += c->sum.mode == COLLECTOR_NETLINK;
			}
			if (*sp == *stack_cap) {
				pid_t *ns = realloc(*stack, (*stack_cap * 2) * sizeof(*ns));
				if (!ns)
					continue;
				*stack = ns;
				*stack_cap *= 2;
			}
			(*stack)[(*sp)++] = pid;
		}
	}
	closedir(d);
}

/* Pushes onto the stack the tops of an attached tree: the processes whose
 * parent is not in it (the attached ones, and descendants whose parent ended
 * and which the kernel gave to init or a subreaper elsewhere: still ours). */
static void scan_tops(struct collector *c, pid_t **stack, size_t *sp, size_t *stack_cap)
{
	for (size_t i = 0; i < ptable_count(c->pt); i++) {
		const struct pentry *e = ptable_at(c->pt, i);
		if (ptable_get(c->pt, e->rec.ppid))
			continue;
		if (*sp == *stack_cap) {
			pid_t *ns = realloc(*stack, (*stack_cap * 2) * sizeof(*ns));
			if (!ns)
				return;
			*stack = ns;
			*stack_cap *= 2;
		}
		(*stack)[(*sp)++] = e->rec.pid;
	}
}

/* Finds every live process under root through the children files, adding the
 * ones missing from the table; marks found entries seen. The buffers grow to
 * any number of children: a file cut short would lose the whole subtree. */
static void scan_tree(struct collector *c, uint64_t now)
{
	pid_t *stack = NULL, *kids = NULL;
	size_t sp = 0, stack_cap = 0, kids_cap = 0, kbuf_cap = 0;
	char *kbuf = NULL;
	char path[64];

	for (size_t i = 0; i < ptable_count(c->pt); i++)
		ptable_at(c->pt, i)->seen = 0;
	stack = malloc(256 * sizeof(*stack));
	if (!stack)
		return;
	stack_cap = 256;
	if (c->attach)
		scan_tops(c, &stack, &sp, &stack_cap);
	else
		stack[sp++] = c->root;
	if (c->cfg.subreaper)
		scan_orphans(c, now, &stack, &sp, &stack_cap, &kids, &kids_cap, &kbuf, &kbuf_cap);
	while (sp) {
		pid_t pid = stack[--sp];
		struct pentry *e = ptable_get(c->pt, pid);
		if (!e)
			continue;
		e->seen = 1;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		DIR *d = e->rec.threads > 1 ? opendir(path) : NULL;
		struct dirent *de;
		pid_t tid = pid;
		do {
			if (d) {
				de = readdir(d);
				if (!de)
					break;
				if (de->d_name[0] == '.')
					continue;
				tid = (pid_t)atoi(de->d_name);
			}
			int fd = procfs_open(pid, tid, "children");
			int k = fd >= 0 ? procfs_read_children(fd, &kbuf, &kbuf_cap, &kids, &kids_cap) : 0;
			if (fd >= 0)
				close(fd);
			if (k > 0 && sp + (size_t)k > stack_cap) {
				size_t cap = sp + (size_t)k + stack_cap;
				pid_t *ns = realloc(stack, cap * sizeof(*ns));
				if (ns) {
					stack = ns;
					stack_cap = cap;
				}
			}
			for (int j = 0; j < k; j++) {
				if (kids[j] == c->self)
					continue; /* never its own tree's (attached to an ancestor) */
				struct pentry *ce = ptable_get(c->pt, kids[j]);
				if (!ce && c->sum.mode == COLLECTOR_NETLINK && was_retired(c, kids[j]))
					continue;
				if (!ce) {
					e->forked_since_read = 1;
					ce = add_proc(c, kids[j], pid, now, e);
					if (!ce)
						continue;
					/* polling cannot tell a new child from a new
					 * program; at the attach, neither is one */
					if (c->sum.mode == COLLECTOR_POLL && !c->attaching)
						note_exec(c, ce, now);
					c->sum.rescans += c->sum.mode == COLLECTOR_NETLINK && !c->attaching;
					e = ptable_get(c->pt, pid); /* add may move entries */
				}
				if (sp < stack_cap)
					stack[sp++] = kids[j];
			}
		} while (d);
		if (d)
			closedir(d);
	}
	free(stack);
	free(kids);
	free(kbuf);
}

/* The command between our fork and its first exec: its memory is a copy of
 * spacetime's, not the command's; it counts once it has exec'd. */
static int before_first_exec(const struct collector *c, const struct pentry *e)
{
	return e->rec.pid == c->root && !e->rec.nexec && c->sum.mode == COLLECTOR_NETLINK;
}

/* Whether e's memory is another's: the command's before its first exec
 * (spacetime's), or a vfork child's before it execs (its parent's, counted
 * there: statm and smaps_rollup of both show the same pages). */
static int vm_borrowed(const struct collector *c, const struct pentry *e)
{
	return before_first_exec(c, e) || e->vm_state == PTABLE_VM_PARENTS;
}

/* Updates e->vm_state until it is known to be its own: kcmp(2) tells
 * whether e runs in its parent's memory (a child forked without CLONE_VM
 * never will; one with it has its own once it execs). */
static void vm_check(struct collector *c, struct pentry *e)
{
	if (e->vm_state == PTABLE_VM_OWN || e->rec.pid == c->root)
		return;
	/* an error (no kcmp, no ptrace access, the parent gone): its own */
	long k = syscall(SYS_kcmp, e->rec.pid, e->rec.ppid, KCMP_VM, 0, 0);
	e->vm_state = k == 0 ? PTABLE_VM_PARENTS : PTABLE_VM_OWN;
}

/* Whether e counts in the tree's PSS: past the command's first exec, with
 * memory of its own (a zombie's is gone). */
static int model_counts(const struct collector *c, const struct pentry *e)
{
	return !vm_borrowed(c, e) && (e->rec.valid & PROC_V_RSS) && !e->mm_gone;
}

/* Reads stat and statm of e and updates its record and PSS estimate. Returns
 * -ESRCH when the process is gone. */
static int sample_cheap(struct collector *c, struct pentry *e, uint64_t now)
{
	struct procfs_stat ps;
	struct procfs_statm sm;
	char comm[16];

	memcpy(comm, e->rec.comm, sizeof(comm));
	uint32_t max_threads = e->max_threads;
	int r = read_stat(c, e, &ps);
	if (r < 0)
		return r;
	take_stat(e, &ps);
	/* Polling sees no thread creation: count threads seen alive at once. */
	if (c->sum.mode == COLLECTOR_POLL && e->max_threads > max_threads)
		c->total_threads += e->max_threads - max_threads;
	if (c->sum.mode == COLLECTOR_POLL && e->rec.nexec && strncmp(comm, ps.comm, 16) != 0) {
		memcpy(e->rec.comm, ps.comm, sizeof(e->rec.comm));
		note_exec(c, e, now); /* the program changed: an exec we did not see */
	}
	/* stat's rss is statm's resident: unchanged, statm would say the same
	 * (its anon/shared split aside), so the idle save a read */
	uint64_t pk = (uint64_t)procfs_page_kib();
	if (procfs_stat_ended(&ps)) {
		/* its memory is gone: its pages are no longer its to pay for */
		if (!e->mm_gone && model_counts(c, e))
			model_leave(c, e);
		e->mm_gone = 1;
		e->anon_rss = e->shared_rss = 0;
		e->rec.rss_kib = 0;
		return 0;
	}
	vm_check(c, e);
	if ((e->rec.valid & PROC_V_RSS) && ps.rss_pages * pk == e->rec.rss_kib)
		return 0;
	int own, fd = proc_fd(c, e->rec.pid, &e->fd_statm, "statm", &own);
	if (fd == -ENOENT || fd == -ESRCH)
		return -ESRCH;
	if (fd < 0)
		return fd; /* out of fds: not gone */
	ssize_t n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
	if (own)
		close(fd);
	if (n < 0)
		return -ESRCH;
	if (n == 0 || procfs_parse_statm(c->rbuf, (size_t)n, &sm) < 0) {
		/* exiting, a zombie or a kernel thread: no memory */
		e->anon_rss = e->shared_rss = 0;
		return 0;
	}
	uint64_t res = sm.resident_pages * pk, shr = sm.shared_pages * pk;
	if (shr > res)
		shr = res;
	e->anon_rss = res - shr;
	e->shared_rss = shr;
	e->rec.rss_kib = res;
	e->rec.valid |= PROC_V_RSS;
	if (res > e->rec.peak_rss_kib && !vm_borrowed(c, e))
		e->rec.peak_rss_kib = res;
	return 0;
}

/* The program ratios slot for comm: found, or a free one when add (NULL when
 * the table is full or comm is unknown). */
static struct prog_ratio *prog_slot(struct collector *c, const char *comm, int add)
{
	uint32_t h = 2166136261u;

	if (!comm[0])
		return NULL;
	for (size_t i = 0; i < 16 && comm[i]; i++)
		h = (h ^ (unsigned char)comm[i]) * 16777619u;
	for (size_t k = 0; k < COLLECTOR_PROGS; k++) {
		struct prog_ratio *r = &c->progs[(h + k) % COLLECTOR_PROGS];
		if (!r->comm[0]) {
			if (!add)
				return NULL;
			memcpy(r->comm, comm, sizeof(r->comm));
			r->comm[15] = '\0';
			r->anon = r->shared = -1;
			return r;
		}
		if (strncmp(r->comm, comm, 15) == 0)
			return r;
	}
	return NULL;
}

/* Learns e's program's PSS/RSS ratios from its read (a fresh exec's: a child
 * that has not exec'd shares its parent's pages, which says nothing about
 * the program). */
static void prog_learn(struct collector *c, const struct pentry *e)
{
	struct prog_ratio *r = e->rec.nexec ? prog_slot(c, e->rec.comm, 1) : NULL;

	if (!r)
		return;
	if (e->rd_anon_rss > 256) {
		double a = (double)e->rd_pss_anon / (double)e->rd_anon_rss;
		r->anon = r->anon < 0 ? a : 0.5 * r->anon + 0.5 * a;
	}
	if (e->rd_shared_rss > 256) {
		double sh = (double)(e->rd_pss_file + e->rd_pss_shmem) / (double)e->rd_shared_rss;
		r->shared = r->shared < 0 ? sh : 0.5 * r->shared + 0.5 * sh;
	}
}

/* Describes e to the PSS model and estimates it. */
static void model_fill(struct collector *c, const struct pentry *e, struct pssmodel_proc *p)
{
	*p = (struct pssmodel_proc){
		.anon_rss_kib = e->anon_rss, .shared_rss_kib = e->shared_rss, .faults = e->rec.minflt + e->rec.majflt,
		.read = e->rd_ok, .rd_pss_anon_kib = e->rd_pss_anon, .rd_pss_file_kib = e->rd_pss_file,
		.rd_pss_shmem_kib = e->rd_pss_shmem, .rd_anon_rss_kib = e->rd_anon_rss,
		.rd_shared_rss_kib = e->rd_shared_rss, .rd_private_kib = e->rd_private_kib,
		.rd_faults = e->rd_faults, .forked = e->forked_since_read,
		.prog_anon_ratio = -1, .prog_shared_ratio = c->shared_ratio};
	if (e->rd_ok) {
		uint64_t d = c->dil_cum_kib - e->rd_dil_cum_kib;
		p->diluted_kib = d > e->own_dil_kib ? d - e->own_dil_kib : 0;
		uint64_t g = c->ghost_cum_kib - e->rd_ghost_cum_kib;
		p->ghosted_kib = g > e->own_ghost_kib ? g - e->own_ghost_kib : 0;
	}
	p->fork_only = !e->rec.nexec;
	p->unreadable = e->pss_denied;
	if (!e->rd_ok) {
		const struct prog_ratio *r = e->rec.nexec ? prog_slot(c, e->rec.comm, 0) : NULL;
		if (r) {
			p->prog_anon_ratio = r->anon;
			if (r->shared >= 0)
				p->prog_shared_ratio = r->shared;
		}
	}
	pssmodel_estimate(p, (uint64_t)procfs_page_kib());
}

/* e's pages leave the tree (exit or exec): its share of the pages others
 * map passes to them, perhaps in the tree. */
static void model_leave(struct collector *c, const struct pentry *e)
{
	struct pssmodel_proc p;

	model_fill(c, e, &p);
	uint64_t part = pssmodel_shared_part(&p);
	part = part > e->released_given_kib ? part - e->released_given_kib : 0; /* not twice */
	c->ghost_cum_kib += part;
	pssmodel_add_ghost(&c->model, part);
}

/* Adds to the running total what e started mapping since the last tick: all
 * of a new process's pages (a forked child's are its parent's too; a new
 * program's shared ones may be others'), then its shared RSS growth. */
static void model_dilute(struct collector *c, struct pentry *e)
{
	uint64_t add;

	if (!e->dil_seen) {
		/* a new program's anonymous pages are its own (polling cannot
		 * tell a new program from a forked child: it counts them too) */
		int exec_known = c->sum.mode == COLLECTOR_NETLINK && e->rec.nexec;
		add = e->shared_rss + (exec_known ? 0 : e->anon_rss);
		e->dil_seen = 1;
	} else {
		add = e->shared_rss > e->prev_shared_kib ? e->shared_rss - e->prev_shared_kib : 0;
	}
	e->prev_shared_kib = e->shared_rss;
	c->dil_cum_kib += add;
	e->own_dil_kib += add;
}

/* Takes the model's estimate of e into its record. */
static void model_apply(struct pentry *e, const struct pssmodel_proc *p, uint64_t now)
{
	e->est_anon_kib = p->est_anon_kib;
	e->est_file_kib = p->est_file_kib;
	e->est_shmem_kib = p->est_shmem_kib;
	e->rec.pss_kib = p->est_kib;
	e->rec.valid |= PROC_V_PSS;
	if (!pssmodel_doubt(p))
		e->rec.valid &= ~PROC_V_PSS_EST;
	else
		e->rec.valid |= PROC_V_PSS_EST;
	e->rec.pss_age_ns = e->pss_t_ns ? now - e->pss_t_ns : 0;
	if (e->rec.pss_kib > e->rec.peak_pss_kib) {
		e->rec.peak_pss_kib = e->rec.pss_kib;
		e->rec.peak_pss_t_ns = now;
	}
}

/* Reads smaps_rollup of e; returns the thread CPU time it cost. */
static uint64_t read_pss(struct collector *c, struct pentry *e, uint64_t now)
{
	struct procfs_rollup r;
	uint64_t t0 = thread_cpu_ns();
	ssize_t n = -1;
	int own, fd = proc_fd(c, e->rec.pid, &e->fd_smaps, "smaps_rollup", &own);

	/* ptrace access refused (another user's, or not dumpable): a sweep
	 * cannot settle it, and will not try */
	if (fd == -EACCES || fd == -EPERM)
		e->pss_denied = 1;
	if (fd >= 0)
		n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
	if (own)
		close(fd);
	uint64_t cost = thread_cpu_ns() - t0;
	e->pss_t_ns = now; /* even a failed read waits its turn again */
	if (n <= 0 || procfs_parse_smaps_rollup(c->rbuf, (size_t)n, &r) < 0) {
		/* Unreadable (gone, or an fd from before an exec): reopen it at
		 * its next turn; the estimate keeps scaling the last good read
		 * (or RSS, if none), never passing RSS off as a measured PSS. */
		if (e->fd_smaps >= 0)
			close(e->fd_smaps);
		e->fd_smaps = -1;
		e->rec.valid |= PROC_V_PSS_EST;
		return cost;
	}
	c->sum.pss_reads++;
	if (r.valid & PROCFS_ROLLUP_SPLIT) {
		e->rd_pss_anon = r.pss_anon_kib;
		e->rd_pss_file = r.pss_file_kib;
		e->rd_pss_shmem = r.pss_shmem_kib;
	} else {
		e->rd_pss_anon = r.pss_kib;
		e->rd_pss_file = e->rd_pss_shmem = 0;
	}
	/* The RSS the PSS figures go with comes from the same read: memory that
	 * grows between the statm and the smaps_rollup read must not skew the ratio. */
	if ((r.valid & (PROCFS_ROLLUP_RSS | PROCFS_ROLLUP_ANON)) == (PROCFS_ROLLUP_RSS | PROCFS_ROLLUP_ANON) &&
	    r.anon_kib <= r.rss_kib) {
		e->rd_anon_rss = r.anon_kib;
		e->rd_shared_rss = r.rss_kib - r.anon_kib;
	} else {
		e->rd_anon_rss = e->anon_rss;
		e->rd_shared_rss = e->shared_rss;
	}
	e->rd_private_kib = (r.valid & PROCFS_ROLLUP_PRIVATE) ? r.private_kib : 0;
	e->rd_faults = e->rec.minflt + e->rec.majflt;
	e->forked_since_read = 0;
	e->rd_ok = 1;
	e->rd_dil_cum_kib = c->dil_cum_kib;
	e->rd_ghost_cum_kib = c->ghost_cum_kib;
	e->own_dil_kib = 0;
	e->own_ghost_kib = 0;
	e->released_given_kib = 0;
	e->rd_t_ns = now;
	if (e->rd_shared_rss > 256) {
		double ratio = (double)(e->rd_pss_file + e->rd_pss_shmem) / (double)e->rd_shared_rss;
		c->shared_ratio = 0.8 * c->shared_ratio + 0.2 * ratio;
	}
	prog_learn(c, e);
	uint64_t kib = r.rss_kib ? r.rss_kib : 1;
	if (cost > PSSCHED_COST_FIXED_NS) {
		double per = ((double)cost - PSSCHED_COST_FIXED_NS) / (double)kib;
		c->cost_ns_per_kib = 0.9 * c->cost_ns_per_kib + 0.1 * per;
	}
	return cost;
}

/* Spends what is left of spacetime's CPU budget on the most useful
 * smaps_rollup reads. The budget covers all of spacetime: everything its
 * threads spent since the last call that was not a PSS read (events, cheap
 * reads, publishing, the dashboard's drawing) is owed first, and PSS reads
 * keep a tenth of it whatever the rest costs (pssched_budget). */
static void schedule_pss(struct collector *c, uint64_t now)
{
	double dt = c->last_tick_ns ? (double)(now - c->last_tick_ns) : c->cfg.interval_ms * 1e6;
	/* At most the budget of one core, and at most COLLECTOR_TREE_SHARE of it
	 * per core the command itself keeps busy: with the default 1% the
	 * collector aims at 0.3% of the command's CPU, leaving room for what the
	 * budget cannot defer (events, cheap reads, the dashboard) under 0.5%;
	 * down to a tenth of the budget for an idle command. */
	double frac = c->cfg.budget * c->tree_cores * COLLECTOR_TREE_SHARE;
	if (frac > c->cfg.budget)
		frac = c->cfg.budget;
	if (frac < c->cfg.budget / 10)
		frac = c->cfg.budget / 10;
	double budget = dt * frac;
	c->sum.budget_ns += (uint64_t)budget;
	uint64_t cpu = process_cpu_ns();
	double other = c->sched_cpu_ns ? (double)(cpu - c->sched_cpu_ns) : 0;
	pssched_budget_credit(&c->tokens, budget, other, frac * 5e9);
	uint64_t spent = 0; /* on PSS reads this round */
	size_t n = ptable_count(c->pt);
	if (pssched_budget_avail(&c->tokens) <= 0 || !n)
		goto out;
	if (n > c->sched_cap) {
		size_t cap = n * 2;
		struct pssched_item *it = realloc(c->sched_items, cap * sizeof(*it));
		uint32_t *pk = it ? realloc(c->sched_picks, cap * sizeof(*pk)) : NULL;
		if (it)
			c->sched_items = it;
		if (pk)
			c->sched_picks = pk;
		if (!it || !pk)
			goto out;
		c->sched_cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pentry *e = ptable_at(c->pt, i);
		c->sched_items[i] = (struct pssched_item){
			.rss_kib = (e->rec.valid & PROC_V_RSS) ? e->rec.rss_kib : 0,
			.anon_rss_kib = e->anon_rss, .shared_rss_kib = e->shared_rss,
			.rd_anon_rss_kib = e->rd_anon_rss, .rd_shared_rss_kib = e->rd_shared_rss,
			.age_ns = e->pss_t_ns ? now - e->pss_t_ns : 0, .never_read = !e->pss_t_ns};
	}
	size_t k = pssched_pick(c->sched_items, n, pssched_budget_avail(&c->tokens), c->cost_ns_per_kib, c->sched_picks, n);
	/* Read in priority order, paying the real cost, while tokens last. */
	for (size_t i = 0; i < k && pssched_budget_avail(&c->tokens) > 0; i++) {
		struct pentry *e = ptable_at(c->pt, c->sched_picks[i]);
		if (!vm_borrowed(c, e)) {
			uint64_t cost = read_pss(c, e, now);
			pssched_budget_pay(&c->tokens, (double)cost);
			c->sum.pss_cpu_ns += cost;
			spent += cost;
		}
	}
out:
	/* everything since cpu was read but the reads themselves (choosing
	 * them, other threads meanwhile) is other work, owed next round */
	c->sched_cpu_ns = cpu + spent;
}

/* Tells whether /proc shows the process ended (gone, zombie or dead). */
static int proc_ended(struct collector *c, struct pentry *e, struct procfs_stat *ps, int *read)
{
	int r = read_stat(c, e, ps);
	*read = r == 0;
	if (r < 0)
		return r == -ESRCH;
	return procfs_stat_ended(ps);
}

/* Retires the processes whose exit event came, if /proc agrees they ended;
 * one still running had a thread exec, or the event was another's. */
static void retire_exited(struct collector *c)
{
	for (size_t i = 0; i < ptable_count(c->pt);) {
		struct pentry *e = ptable_at(c->pt, i);
		struct procfs_stat ps;
		int read;
		if (e->exit_pending && proc_ended(c, e, &ps, &read)) {
			/* a leader that exited before its threads: it ended now */
			retire(c, e, e->exit_late ? collector_now_ns() : e->exit_ns, e->exit_status_pending, 1,
			       read ? &ps : NULL);
			continue;
		}
		/* still alive in /proc: the exit event is sent before the process
		 * is a zombie, so it stays pending (only an exec, a thread's,
		 * takes it back); a zombie leader's threads live on */
		if (e->exit_pending && read && ps.state == 'Z')
			e->exit_late = 1;
		i++;
	}
}

static void drain_netlink(struct collector *c);
static void quiet_adjust(struct collector *c, int at_tick);

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
	if (x->pid == x->tgid) {
		e->ts_leader = 1;
		e->ts_leader_seq = x->seq;
		memcpy(e->ts_comm, x->comm, sizeof(e->ts_comm));
		e->ts_comm[sizeof(e->ts_comm) - 1] = '\0';
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
		uint64_t boot = e->start_ticks * (1000000000ull / (uint64_t)procfs_hz()), off = boot_offset_ns();
		o.start_ns = boot > off ? boot - off : 0;
	}
	return taskstats_belongs(x, &o, after_ns, read_ns);
}

static void ts_apply(struct collector *c, const struct taskstats_exit *x)
{
	struct pentry *e;

	if (x->aggr_tgid)
		return;
	e = ptable_get(c->pt, x->tgid);
	if (e && !ts_fits(c, e, x, c->ts_empty_ns, collector_now_ns()))
		return;
	if (!e) {
		/* not in the tree, or its fork event is still unread */
		size_t k = c->tspend_next++ % COLLECTOR_TSPEND;
		c->tspend[k] = *x;
		c->tspend_ns[k] = collector_now_ns();
		c->tspend_after_ns[k] = c->ts_empty_ns;
		if (x->pid == x->tgid && ptable_get(c->pt, x->ppid)) {
			k = c->tskid_next++ % COLLECTOR_TSPEND;
			c->tskid[k] = *x;
			c->tskid_ns[k] = c->tspend_ns[(c->tspend_next - 1) % COLLECTOR_TSPEND];
		}
		return;
	}
	if (!before_first_exec(c, e))
		ts_add(c, e, x);
}

/* Adds to e the records of its tasks that came before it was in the table. */
static void ts_adopt(struct collector *c, struct pentry *e)
{
	uint64_t now = collector_now_ns();

	for (size_t k = 0; k < COLLECTOR_TSPEND; k++) {
		struct taskstats_exit *x = &c->tspend[k];
		if (x->tgid == e->rec.pid && c->tspend_ns[k] + COLLECTOR_TSPEND_NS >= now &&
		    ts_fits(c, e, x, c->tspend_after_ns[k], c->tspend_ns[k])) {
			ts_add(c, e, x);
			x->tgid = 0;
		}
	}
}

/* Counts the children of the tree that only their taskstats records tell of:
 * their fork and exit events were both lost (an overrun drops every event
 * until the socket is empty) and they ended before a rescan. A record is
 * looked at once a netlink drain begun after it came has ended, so that the
 * fork event, had it come, was handled. It must be a process's leader task,
 * its parent then a process of the tree, and its pid not one retired lately. */
static void ts_lost_children(struct collector *c)
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
		if (!p || before_first_exec(c, p) || p->rec.start_ns > start)
			continue;
		if (p->ts_leader ? x->seq > p->ts_leader_seq : p->exit_pending && start >= p->exit_ns)
			continue;
		if (retired_lately(c, x->pid))
			continue; /* a child retired before its record came */
		struct pentry *e = add_proc(c, x->pid, x->ppid, start, p);
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
		publish(c, e);
		/* this record (its copy in tspend spent), then its threads' */
		for (size_t j = 0; j < COLLECTOR_TSPEND; j++)
			if (c->tspend[j].tgid == x->pid && c->tspend[j].pid == x->pid)
				c->tspend[j].tgid = 0;
		ts_add(c, e, x);
		ts_adopt(c, e);
	}
}

/* Reads every pending taskstats record (one datagram each). */
static void drain_taskstats(struct collector *c)
{
	if (c->ts_fd < 0)
		return;
	for (;;) {
		uint64_t before = collector_now_ns();
		ssize_t n = recv(c->ts_fd, c->tsbuf, sizeof(c->tsbuf), MSG_DONTWAIT);
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
		size_t ok = 0;
		int k = taskstats_parse(c->tsbuf, (size_t)n, c->ts_family, c->tsrec, COLLECTOR_TSREC, &ok);
		size_t cnt = k >= 0 ? (size_t)k : ok;
		for (size_t i = 0; i < cnt; i++) {
			c->tsrec[i].seq = ++c->ts_seq;
			ts_apply(c, &c->tsrec[i]);
		}
	}
}

/* Room for n processes in the model's arrays. */
static int model_room(struct collector *c, size_t n)
{
	if (n <= c->mp_cap)
		return 0;
	size_t cap = n * 2;
	struct pssmodel_proc *mp = realloc(c->mp, cap * sizeof(*mp));
	if (mp)
		c->mp = mp;
	uint32_t *ix = realloc(c->mp_idx, cap * sizeof(*ix));
	if (ix)
		c->mp_idx = ix;
	uint32_t *pk = realloc(c->mp_pick, cap * sizeof(*pk));
	if (pk)
		c->mp_pick = pk;
	if (!mp || !ix || !pk)
		return -ENOMEM;
	c->mp_cap = cap;
	return 0;
}

/* Whether the processes a sweep read held still while it read them: their
 * RSS now (statm, ~2 us each) against the RSS in their reads, moved by no
 * more than PSSMODEL_SURE of the total. A sweep takes a while; a process that
 * maps, unmaps or exits meanwhile makes its reads' shares inconsistent (the
 * same shared pages counted at two ratios), and such a sum is no measurement. */
static int sweep_stable(struct collector *c, size_t k, uint64_t total_kib, uint64_t now)
{
	uint64_t moved = 0, pk = (uint64_t)procfs_page_kib();

	for (size_t j = 0; j < k; j++) {
		struct pentry *e = ptable_at(c->pt, c->mp_idx[c->mp_pick[j]]);
		struct procfs_statm sm;
		if (!e->rd_ok || e->rd_t_ns != now)
			return 0; /* its read failed: gone, or going */
		int own, fd = proc_fd(c, e->rec.pid, &e->fd_statm, "statm", &own);
		if (fd < 0)
			return 0;
		ssize_t n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
		if (own)
			close(fd);
		if (n <= 0 || procfs_parse_statm(c->rbuf, (size_t)n, &sm) < 0)
			return 0;
		uint64_t res = sm.resident_pages * pk, then = e->rd_anon_rss + e->rd_shared_rss;
		moved += res > then ? res - then : then - res;
	}
	/* statm's counters are per-CPU batched: a few pages of slack per process */
	return (double)moved <= (double)total_kib * PSSMODEL_SURE + (double)(k * 16 * pk);
}

/* Estimates every counted process; when the tree may be at a new peak, sweeps:
 * reads the processes in doubt, most first, so that the sample is a sum of
 * reads. Fills the sample's PSS and RSS fields; returns 1 when it is measured. */
static int model_tick(struct collector *c, struct sample *s, uint64_t now)
{
	size_t n = ptable_count(c->pt), m = 0;
	struct pssmodel_total t;
	int sure;

	if (model_room(c, n) < 0)
		n = c->mp_cap; /* no memory: the first ones only, and not sure */
	for (size_t i = 0; i < n; i++) {
		const struct pentry *e = ptable_at(c->pt, i);
		if (!model_counts(c, e))
			continue;
		c->mp_idx[m++] = (uint32_t)i;
		model_dilute(c, ptable_at(c->pt, i));
	}
	/* after all the dilution: a process early in the table is diluted by
	 * one later in it */
	for (size_t j = 0; j < m; j++)
		model_fill(c, ptable_at(c->pt, c->mp_idx[j]), &c->mp[j]);
	/* what processes stopped sharing since their reads passes to the others,
	 * as an exit's ghost does; then they are estimated again with it */
	int released = 0;
	for (size_t j = 0; j < m; j++) {
		struct pentry *e = ptable_at(c->pt, c->mp_idx[j]);
		if (c->mp[j].released_kib > e->released_given_kib) {
			uint64_t inc = c->mp[j].released_kib - e->released_given_kib;
			c->ghost_cum_kib += inc;
			pssmodel_add_ghost(&c->model, inc);
			e->own_ghost_kib += inc;
			e->released_given_kib = c->mp[j].released_kib;
			released = 1;
		}
	}
	if (released)
		for (size_t j = 0; j < m; j++)
			model_fill(c, ptable_at(c->pt, c->mp_idx[j]), &c->mp[j]);
	int whole = n == ptable_count(c->pt); /* every process counted */
	pssmodel_total(&c->model, c->mp, m, &t);
	c->model.thrifty = (double)c->sweep_cpu_ns >
			   COLLECTOR_SWEEP_ALLOW_NS + COLLECTOR_SWEEP_SHARE * 1000.0 * (double)c->tree_cpu_us;
	if (pssmodel_need_sweep(&c->model, &t)) {
		size_t k = pssmodel_pick(&c->model, c->mp, m, &t, c->mp_pick);
		uint64_t spent = 0;
		for (size_t j = 0; j < k; j++) {
			uint32_t x = c->mp_pick[j];
			struct pentry *e = ptable_at(c->pt, c->mp_idx[x]);
			spent += read_pss(c, e, now);
			c->sum.pss_sweep_reads++;
			model_fill(c, e, &c->mp[x]);
		}
		pssmodel_total(&c->model, c->mp, m, &t);
		int stable = sweep_stable(c, k, t.est_kib, now);
		if (!stable)
			c->sum.pss_sweeps_unstable++;
		sure = pssmodel_observe(&c->model, &t, stable && whole, 1);
		/* a sweep is never put off for the budget, but it is paid from it */
		pssched_budget_pay(&c->tokens, (double)spent);
		c->sum.pss_cpu_ns += spent;
		c->sched_cpu_ns += spent;
		c->sweep_cpu_ns += spent;
		c->sum.pss_sweeps += k > 0;
	} else {
		sure = pssmodel_observe(&c->model, &t, whole, 0);
	}
	uint64_t sum = 0;
	for (size_t j = 0; j < m; j++) {
		struct pentry *e = ptable_at(c->pt, c->mp_idx[j]);
		model_apply(e, &c->mp[j], now);
		s->pss_anon_kib += e->est_anon_kib;
		s->pss_file_kib += e->est_file_kib;
		s->pss_shmem_kib += e->est_shmem_kib;
		s->rss_kib += e->rec.rss_kib;
		sum += c->mp[j].est_kib;
	}
	/* half of the ghosts is in the estimate: spread over the split */
	uint64_t g = t.est_kib > sum ? t.est_kib - sum : 0;
	if (g && sum) {
		uint64_t ga = (uint64_t)((double)g * (double)s->pss_anon_kib / (double)sum);
		uint64_t gs = (uint64_t)((double)g * (double)s->pss_shmem_kib / (double)sum);
		s->pss_anon_kib += ga;
		s->pss_shmem_kib += gs;
		s->pss_file_kib += g - ga - gs;
	} else {
		s->pss_file_kib += g;
	}
	s->pss_kib = t.est_kib;
	s->pss_est_kib = !whole ? t.est_kib : t.doubt_kib < t.est_kib ? t.doubt_kib : t.est_kib;
	s->pss_hi_kib = t.hi_kib;
	/* near the peak and moving (a plateau needs no fast ticks) */
	c->near_peak = c->model.peak_kib && t.est_kib > 1024 &&
		       (double)t.est_kib >= (double)c->model.peak_kib * COLLECTOR_NEAR_PEAK &&
		       (double)llabs((long long)t.est_kib - (long long)c->prev_est_kib) >
			       (double)t.est_kib * 0.001;
	c->prev_est_kib = t.est_kib;
	c->mp_n = m;
	c->model_seen |= m > 0;
	/* a tree with no process left is 0, but that is no measurement of it */
	return sure && m > 0;
}

/* Keeps the run's peak: the highest measured sample (a real figure: the true
 * peak is at least that), or the highest estimate while none was measured;
 * an estimate that passed the measured peak but could not be confirmed is
 * kept apart, as such. And the estimated share of the series. */
static void model_peak(struct collector *c, const struct sample *s, int sure, uint64_t now)
{
	double dt = c->last_tick_ns && now > c->last_tick_ns ? (double)(now - c->last_tick_ns)
							     : c->cfg.interval_ms * 1e6;
	c->est_area += (double)s->pss_est_kib * dt;
	c->pss_area += (double)s->pss_kib * dt;
	c->sum.pss_est_share = c->pss_area > 0 ? c->est_area / c->pss_area : 0;
	if (sure && (!c->have_meas || s->pss_kib > c->peak_meas.pss_kib)) {
		c->peak_meas = *s;
		c->have_meas = 1;
	}
	if (!c->peak_any.t_ns || s->pss_kib > c->peak_any.pss_kib)
		c->peak_any = *s;
	c->sum.peak = c->have_meas ? c->peak_meas : c->peak_any;
	c->sum.peak_measured = c->have_meas;
	c->sum.peak_unconfirmed_kib =
		c->have_meas && (double)c->peak_any.pss_kib >
					(double)c->peak_meas.pss_kib * (1.0 + STORE_PEAK_EST_MARGIN)
			? c->peak_any.pss_kib
			: 0;
}

/* The peak moved to this tick's sample: the processes the model counted in
 * it, with the PSS and RSS they had in it, go to the store (a replay's
 * process list at the peak shows them). */
static void model_peak_procs(struct collector *c, uint64_t t_ns)
{
	size_t n = c->mp_n;

	if (n > c->peak_cap) {
		struct store_peak_proc *p = realloc(c->peak_procs, n * sizeof(*p));
		if (!p)
			return; /* kept as it was: the previous peak's */
		c->peak_procs = p;
		c->peak_cap = n;
	}
	for (size_t j = 0; j < n; j++) {
		const struct pentry *e = ptable_at(c->pt, c->mp_idx[j]);
		c->peak_procs[j] = (struct store_peak_proc){e->rec.id, e->rec.pss_kib, e->rec.rss_kib};
	}
	store_peak_procs_set(c->st, t_ns, c->peak_procs, n);
}

/* Sets when the next tick comes: soon while the tree is near its peak, else
 * at the interval (the timer is only reprogrammed when it must change). */
static void tick_pace(struct collector *c)
{
	int fast = c->near_peak && c->cfg.interval_ms > COLLECTOR_FAST_TICK_MS;
	struct itimerspec its = {0};

	if (!fast && !c->fast)
		return;
	its.it_interval.tv_sec = c->cfg.interval_ms / 1000;
	its.it_interval.tv_nsec = (long)(c->cfg.interval_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (fast) {
		its.it_value.tv_sec = 0;
		its.it_value.tv_nsec = COLLECTOR_FAST_TICK_MS * 1000000L;
	}
	if (c->timer_fd >= 0 && timerfd_settime(c->timer_fd, 0, &its, NULL) == 0) {
		c->fast = fast;
		c->sum.fast_ticks += fast;
	}
}

/* One sampling tick: cheap counters for all, PSS within budget, a sample. */
static void tick(struct collector *c)
{
	uint64_t now = collector_now_ns();
	struct sample s = {.t_ns = now};

	if (c->sum.mode == COLLECTOR_POLL)
		scan_tree(c, now);
	if (c->nl_fd >= 0) {
		drain_netlink(c); /* exits first: a process gone now has its event queued */
		quiet_adjust(c, 1);
	}
	drain_taskstats(c); /* a task's record is sent before its exit event */
	/* records of children not in the table: their fork events, had they
	 * come, are read by a drain begun after the records came; now, while
	 * their parents are still in the table to be parents */
	if (c->tskid_scan < c->tskid_next && c->nl_fd >= 0)
		drain_netlink(c);
	ts_lost_children(c);
	retire_exited(c);
	for (size_t i = 0; i < ptable_count(c->pt);) {
		struct pentry *e = ptable_at(c->pt, i);
		if (sample_cheap(c, e, now) == -ESRCH && e->rec.pid != c->root) {
			/* Gone without an exit event: in netlink mode its event may
			 * still be on the way (give it a second); when polling, or
			 * after lost events, this is how a process is seen to end. */
			if (!e->gone_ns)
				e->gone_ns = now;
			if (c->sum.mode == COLLECTOR_POLL || now - e->gone_ns > 1000000000ull) {
				retire(c, e, e->gone_ns, 0, 0, NULL);
				continue;
			}
		}
		i++;
	}
	schedule_pss(c, now);
	int sure = model_tick(c, &s, now);
	s.minflt = c->gone_minflt;
	s.majflt = c->gone_majflt;
	s.utime_us = c->gone_utime_us;
	s.stime_us = c->gone_stime_us;
	/* records reach the store at the interval (a fast tick between two
	 * changes nothing the UI shows at its frame rate) */
	int due = !c->last_push_ns || now - c->last_push_ns >= c->cfg.interval_ms * 900000ull;
	for (size_t i = 0; i < ptable_count(c->pt); i++) {
		struct pentry *e = ptable_at(c->pt, i);
		s.minflt += since_base(e->rec.minflt, e->base_minflt);
		s.majflt += since_base(e->rec.majflt, e->base_majflt);
		s.utime_us += since_base(e->rec.utime_us, e->base_utime_us);
		s.stime_us += since_base(e->rec.stime_us, e->base_stime_us);
		if (c->attach && e->rec.peak_rss_kib > c->sum.ru_maxrss_kib)
			c->sum.ru_maxrss_kib = e->rec.peak_rss_kib;
		s.live_threads += e->rec.threads;
		if (e->pss_t_ns) {
			c->age_sum_ns += now - e->pss_t_ns;
			c->age_n++;
			if (now - e->pss_t_ns > c->sum.pss_max_age_ns)
				c->sum.pss_max_age_ns = now - e->pss_t_ns;
		}
		if (due)
			publish(c, e);
	}
	uint64_t tree_cpu = s.utime_us + s.stime_us;
	if (c->last_tick_ns && now > c->last_tick_ns && tree_cpu >= c->tree_cpu_us)
		c->tree_cores = (double)(tree_cpu - c->tree_cpu_us) * 1000.0 / (double)(now - c->last_tick_ns);
	/* A process's exact CPU (taskstats) lands at its exit, all in one tick:
	 * never count more cores than there are. */
	if (c->tree_cores > c->ncpu)
		c->tree_cores = c->ncpu;
	c->tree_cpu_us = tree_cpu;
	s.live_procs = (uint32_t)ptable_count(c->pt);
	s.total_procs = c->total_procs;
	s.total_threads = c->total_threads;
	s.valid = SAMPLE_FAULTS | SAMPLE_CPU | SAMPLE_COUNTS;
	/* no process counted yet (the command not exec'd, or gone before any
	 * read): its memory is unknown, not 0; once all have gone, it is 0 */
	if (c->model_seen)
		s.valid |= SAMPLE_PSS | SAMPLE_RSS;
	uint64_t peak_t = c->sum.peak.t_ns;
	if ((s.valid & SAMPLE_RSS) && s.rss_kib > c->sum.max_tree_rss_kib)
		c->sum.max_tree_rss_kib = s.rss_kib;
	model_peak(c, &s, sure, now);
	if (c->sum.peak.t_ns != peak_t && c->sum.peak.t_ns == s.t_ns)
		model_peak_procs(c, s.t_ns);
	int push = !c->last_push_ns || c->sum.peak.t_ns != peak_t ||
		   now - c->last_push_ns >= c->cfg.interval_ms * 900000ull;
	if (push) {
		store_push_sample(c->st, &s);
		c->last_push_ns = now;
	}
	c->sum.last = s;
	c->sum.total_execs = c->total_execs;
	c->sum.pss_mean_age_ns = c->age_n ? c->age_sum_ns / c->age_n : 0;
	c->sum.collector_cpu_ns = thread_cpu_ns();
	c->last_tick_ns = now;
	tick_pace(c);
	if (push) {
		store_summary_set(c->st, &c->sum);
		if (!c->cfg.notify_end)
			notify(c);
	}
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
};

/* Rescans the tree after an overrun of src, once src is empty. */
static void rescan_if_due(struct collector *c, struct nlsrc *src)
{
	if (!src->rescan_due)
		return;
	src->rescan_due = 0;
	struct store_event ev = {.t_ns = collector_now_ns(), .type = STORE_EV_RESCAN};
	store_push_event(c->st, &ev);
	scan_tree(c, ev.t_ns);
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
	int n;

	src->n = 0;
	src->more = 0;
	src->fd_read = 1;
	src->read_ns = collector_now_ns();
	for (;;) {
		for (size_t i = 0; i < COLLECTOR_NLBATCH; i++) {
			iov[i] = (struct iovec){.iov_base = src->buf + i * slot, .iov_len = slot};
			mm[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
		}
		n = recvmmsg(src->fd, mm, COLLECTOR_NLBATCH, MSG_DONTWAIT, NULL);
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != ENOBUFS) {
			if (errno == EAGAIN)
				rescan_if_due(c, src);
			return;
		}
		struct store_event ev = {.t_ns = collector_now_ns(), .type = STORE_EV_LOST, .arg = 1};
		c->sum.lost_events++;
		store_push_event(c->st, &ev);
		src->rescan_due = 1;
	}
	/* one event per datagram: at most COLLECTOR_NLBATCH events */
	for (int i = 0; i < n && src->n < COLLECTOR_NLBATCH; i++) {
		size_t ok = 0;
		int k = nlproc_parse(iov[i].iov_base, mm[i].msg_len, src->evs + src->n,
				     COLLECTOR_NLBATCH - src->n, &ok);
		src->n += k >= 0 ? (size_t)k : ok;
	}
	src->more = n == COLLECTOR_NLBATCH;
	c->sum.nl_events += src->n;
	if (!src->more)
		rescan_if_due(c, src); /* the read stopped at an empty socket */
}

/* Turns waking for fork|exit events on when they come fast enough to
 * threaten the quiet socket's buffer between ticks (a quarter of it in one
 * tick's time), off again when they slow down (under a 16th). at_tick: the
 * tick's decision, which may also turn it off. */
static void quiet_adjust(struct collector *c, int at_tick)
{
	int on = c->quiet_polled;

	if (c->nl_quiet_fd < 0 || c->ep_fd < 0 || c->cfg.interval_ms > COLLECTOR_QUIET_MAX_INTERVAL_MS)
		return;
	if (c->quiet_read > (uint64_t)c->quiet_cap / 4)
		on = 1;
	else if (at_tick && c->quiet_read < (uint64_t)c->quiet_cap / 16)
		on = 0;
	if (at_tick)
		c->quiet_read = 0;
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
static void drain_netlink(struct collector *c)
{
	c->nl_drain_ns = collector_now_ns();
	struct nlsrc w = {.fd = c->nl_fd, .buf = c->nlbuf, .evs = c->evs};
	struct nlsrc q = {.fd = c->nl_quiet_fd, .buf = c->qbuf, .evs = c->qevs};
	size_t wi = 0, qi = 0;

	if (c->nl_quiet_fd < 0) {
		do {
			nl_read(c, &w);
			for (size_t i = 0; i < w.n; i++)
				on_event(c, &w.evs[i]);
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
			c->quiet_read += q.n;
			qi = 0;
		}
		if (wi == w.n && qi == q.n) {
			quiet_adjust(c, 0);
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
				c->quiet_read += q.n;
			*(from_q ? &wi : &qi) = 0;
			if (other->n)
				continue;
		}
		on_event(c, ev);
		if (from_q)
			qi++;
		else
			wi++;
	}
}

/* Ends the run: the last tick, spacetime's own CPU, the final summary. */
static void finish(struct collector *c, uint64_t now)
{
	c->sum.end_ns = now;
	/* attached: zombies whose parents (not us) have not reaped them yet
	 * have ended all the same */
	for (size_t i = 0; c->attach && i < ptable_count(c->pt);) {
		struct pentry *e = ptable_at(c->pt, i);
		if (e->mm_gone && !e->exit_pending) {
			retire(c, e, now, 0, 0, RETIRE_READ);
			continue;
		}
		i++;
	}
	tick(c);
	if (c->attach) {
		/* no wait4: what the processes seen used since the attach */
		c->sum.ru_utime_us = c->sum.last.utime_us;
		c->sum.ru_stime_us = c->sum.last.stime_us;
		c->sum.ru_minflt = c->sum.last.minflt;
		c->sum.ru_majflt = c->sum.last.majflt;
		c->sum.detached = atomic_load(&c->detach_req);
	}
	struct rusage self;
	if (getrusage(RUSAGE_SELF, &self) == 0)
		c->sum.self_cpu_ns = ((uint64_t)self.ru_utime.tv_sec + (uint64_t)self.ru_stime.tv_sec) * 1000000000u +
				     ((uint64_t)self.ru_utime.tv_usec + (uint64_t)self.ru_stime.tv_usec) * 1000u;
	store_summary_set(c->st, &c->sum);
	atomic_store(&c->finished, 1);
	notify(c);
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
static int attach_ended(struct collector *c)
{
	for (size_t i = 0; i < ptable_count(c->pt); i++) {
		struct pentry *e = ptable_at(c->pt, i);
		struct procfs_stat ps;
		int read;
		if (!e->mm_gone && !e->exit_pending)
			return 0;
		if (e->exit_pending && !proc_ended(c, e, &ps, &read))
			return 0;
	}
	return 1;
}

/* The command has ended with status and ru. */
static void root_ended(struct collector *c, int status, const struct rusage *ru)
{
	uint64_t now = collector_now_ns();

	c->root_done = 1;
	c->sum.root_end_ns = now;
	c->sum.wait_status = status;
	ru_add(c, ru);
	if (c->pidfd >= 0 && c->ep_fd >= 0)
		epoll_ctl(c->ep_fd, EPOLL_CTL_DEL, c->pidfd, NULL); /* readable from now on */
	if (c->nl_fd >= 0)
		drain_netlink(c);
	drain_taskstats(c);
	/* the records of its last children, while it is in the table to be
	 * their parent: their fork events, had they come, are read by now */
	if (c->nl_fd >= 0)
		drain_netlink(c);
	ts_lost_children(c);
	retire_exited(c);
	struct pentry *e = ptable_get(c->pt, c->root);
	if (e)
		retire(c, e, now, status, 1, RETIRE_READ);
	c->sum.exited = 1;
	/* Polling sees an end late: those that ended before it end now, not
	 * after it (only the ones alive now outlived it). Netlink's exit events
	 * have said when, and with what status. */
	for (size_t i = 0; c->sum.mode == COLLECTOR_POLL && i < ptable_count(c->pt);) {
		struct pentry *o = ptable_at(c->pt, i);
		struct procfs_stat ps;
		int read;
		if (proc_ended(c, o, &ps, &read)) {
			retire(c, o, o->exit_pending ? o->exit_ns : now, o->exit_status_pending, o->exit_pending,
			       read ? &ps : NULL);
			continue;
		}
		i++;
	}
	/* what it left behind that no scan has seen yet: ours now */
	if (c->sum.mode == COLLECTOR_POLL && c->cfg.subreaper)
		scan_tree(c, now);
	if (!c->cfg.wait_tree || !tree_left(c))
		finish(c, now);
}

/* Reaps what has ended: the command, and (spacetime being the subreaper)
 * the orphans of the tree, whose figures then count in the totals. Returns 1
 * when the run has ended. */
static int reap(struct collector *c)
{
	for (;;) {
		struct rusage ru;
		int status;
		/* only the command, unless orphans can be ours */
		pid_t r = wait4(c->cfg.subreaper ? -1 : c->root, &status, WNOHANG, &ru);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == ECHILD && !c->root_done) {
			/* reaped behind our back (SIGCHLD ignored): ended, status unknown */
			finish(c, collector_now_ns());
			return 1;
		}
		if (r <= 0)
			break;
		if (r == c->root) {
			root_ended(c, status, &ru);
			if (atomic_load(&c->finished))
				return 1;
			continue;
		}
		/* an orphan that ended: its exit is ours to record */
		ru_add(c, &ru);
		c->sum.orphans_reaped++;
		struct pentry *e = ptable_get(c->pt, r);
		if (e)
			retire(c, e, collector_now_ns(), status, 1, RETIRE_READ);
	}
	if (c->root_done && !atomic_load(&c->finished) && !tree_left(c)) {
		finish(c, collector_now_ns());
		return 1;
	}
	return atomic_load(&c->finished);
}

static void *collector_main(void *arg)
{
	struct collector *c = arg;
	struct epoll_event evs[8];

	tick(c);
	while (!atomic_load(&c->finished)) {
		int n = epoll_wait(c->ep_fd, evs, 8, c->pidfd < 0 ? (int)c->cfg.interval_ms : -1);
		if (n < 0 && errno != EINTR)
			break;
		c->sum.collector_wakeups++;
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			if (fd == c->ts_fd) {
				drain_taskstats(c);
			} else if (fd == c->nl_fd || fd == c->nl_quiet_fd) {
				drain_netlink(c);
			} else if (fd == c->timer_fd) {
				uint64_t x;
				if (read(fd, &x, sizeof(x)) > 0) {
					tick(c);
					/* orphans: no pidfd tells when they end, nor
					 * when the tree left behind has (--wait-tree) */
					if ((c->cfg.subreaper || c->root_done) && c->pidfd >= 0)
						reap(c);
				}
			} else if (fd == c->pidfd) {
				reap(c);
			} else if (fd == c->wake_fd) {
				if (atomic_load(&c->detach_req) && !atomic_load(&c->finished))
					finish(c, collector_now_ns());
				return NULL;
			}
		}
		if (c->attach) {
			/* all ended: unless a fork not yet read says otherwise (a
			 * process that forked, then ended, in this tick) */
			if (!atomic_load(&c->finished) && attach_ended(c)) {
				if (c->nl_fd >= 0)
					drain_netlink(c);
				if (attach_ended(c))
					finish(c, collector_now_ns());
			}
		} else if (c->pidfd < 0 && !atomic_load(&c->finished)) {
			reap(c);
		}
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
	struct pentry *e = add_proc(c, pid, getpid(), start_ns, NULL);
	if (!e)
		return -ENOMEM;
	if (c->sum.mode == COLLECTOR_POLL) {
		note_exec(c, e, start_ns);
	} else if ((e->rec.argv_id = root_argv(c)) != 0) {
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

	if (read_stat(c, e, &ps) < 0)
		return -ESRCH;
	take_stat(e, &ps);
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
	if ((e->rec.argv_id = read_argv(c, e->rec.pid)) != 0)
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
	for (size_t i = 0; i < n && i < STORE_ATTACH_MAX; i++) {
		struct procfs_stat ps;
		ssize_t len = procfs_read(pids[i], "stat", c->rbuf, sizeof(c->rbuf));
		if (ptable_get(c->pt, pids[i]))
			continue; /* named twice */
		c->sum.attach_pid[c->sum.attach_n++] = pids[i];
		pid_t ppid = len > 0 && procfs_parse_stat(c->rbuf, (size_t)len, &ps) == 0 ? ps.ppid : 0;
		if (!add_proc(c, pids[i], ppid, start_ns, NULL))
			return -ENOMEM;
	}
	/* The netlink socket was subscribed before this scan: a child forked
	 * from now on has its fork event queued, one forked before is found
	 * here, and one both ways is added once (on_event skips a pid the
	 * table holds). An attached process that is also a descendant of
	 * another is found twice, and kept once. */
	c->attaching = 1;
	scan_tree(c, start_ns);
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
		publish(c, e);
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
	struct itimerspec its = {0};
	sigset_t all, old;
	int r;

	c->ep_fd = epoll_create1(EPOLL_CLOEXEC);
	c->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c->ep_fd < 0 || c->timer_fd < 0)
		return -errno;
	its.it_interval.tv_sec = c->cfg.interval_ms / 1000;
	its.it_interval.tv_nsec = (long)(c->cfg.interval_ms % 1000) * 1000000L;
	/* the first sample soon after the command starts, so one that runs for
	 * a few ms still has its memory seen; then every interval */
	its.it_value = its.it_interval;
	if (c->cfg.interval_ms > COLLECTOR_FIRST_TICK_MS) {
		its.it_value.tv_sec = 0;
		its.it_value.tv_nsec = COLLECTOR_FIRST_TICK_MS * 1000000L;
	}
	if (timerfd_settime(c->timer_fd, 0, &its, NULL))
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
		 * ticks every record does */
		struct epoll_event tev = {
			.events = c->cfg.interval_ms > COLLECTOR_QUIET_MAX_INTERVAL_MS ? EPOLLIN : 0,
			.data.fd = c->ts_fd};
		if (epoll_ctl(c->ep_fd, EPOLL_CTL_ADD, c->ts_fd, &tev) < 0)
			return -errno;
	}
	if ((r = ep_add(c->ep_fd, c->nl_fd)) < 0 || (r = ep_add(c->ep_fd, c->timer_fd)) < 0 ||
	    (r = ep_add(c->ep_fd, c->pidfd)) < 0 || (r = ep_add(c->ep_fd, c->wake_fd)) < 0)
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
	ptable_free(c->pt);
	free(c->sched_items);
	free(c->sched_picks);
	free(c->mp);
	free(c->mp_idx);
	free(c->mp_pick);
	free(c->peak_procs);
	if (c->nl_fd >= 0)
		nlproc_close(c->nl_fd); /* unsubscribes: the kernel counts listeners */
	if (c->nl_quiet_fd >= 0)
		nlproc_close(c->nl_quiet_fd);
	if (c->ts_fd >= 0)
		taskstats_close(c->ts_fd, c->ts_family);
	int fds[] = {c->ep_fd, c->timer_fd, c->wake_fd, c->notify_fd};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(c);
}
