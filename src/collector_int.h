/* collector_int.h: the collector's private state and the functions its
 * modules share (collector.c and coll_*.c only; never included by ui/).
 * Each shared function carries the prefix of the file it lives in. */
#ifndef SPACETIME_COLLECTOR_INT_H
#define SPACETIME_COLLECTOR_INT_H

#include "collector.h"

#include "nlproc.h"
#include "taskstats.h"
#include "procfs.h"
#include "pssched.h"
#include "pssmodel.h"
#include "rssspan.h"
#include "rsstrace.h"
#include "coll_top.h"
#include "ptable.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#define COLLECTOR_NLBUF (64 * 1024)
/* Processes retired lately, remembered so a rescan does not count again a
 * zombie its parent has not reaped yet. */
#define COLLECTOR_RETIRED 4096
/* Descriptors left free below RLIMIT_NOFILE by kept /proc files. */
#define COLLECTOR_FD_RESERVE 64
#define COLLECTOR_ARGV_MAX (64 * 1024)
#define COLLECTOR_EARLY 256
#define COLLECTOR_PREFETCH 64 /* execs read ahead of their handling */
/* The collector's share of its budget per core the command keeps busy. */
#define COLLECTOR_TREE_SHARE 0.3
#define COLLECTOR_NLBATCH 64
/* One taskstats datagram (a record is about 450 bytes) and the records it holds. */
#define COLLECTOR_TSBUF 8192
#define COLLECTOR_TSREC 16
#define COLLECTOR_TSBATCH 16 /* datagrams per taskstats read */
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
/* A tick due within this share of its period when the collector is woken
 * anyway (an exec) comes then: a wakeup costs more here than the tick's
 * reads, and the sample's time is its own (the next tick keeps the phase). */
#define COLLECTOR_TICK_SLACK 0.5
#define COLLECTOR_NEAR_PEAK 0.95
/* A process left at a top that could bring the tree within this share of its
 * peak (the others may have grown since the last tick): its exit sample is
 * made at once (a tick taken then). */
#define COLLECTOR_TOP_NEAR 0.9
/* A record of a process under this size makes no tick at once, and a
 * wakeup with only such records disarms the records' wakeups (coll_ts_arm). */
#define COLLECTOR_TOP_MIN_KIB 4096
/* How long such a tick waits for the exit event, sent after the record once
 * the process's memory is freed (a few ms for hundreds of MiB). */
#define COLLECTOR_TOP_WAIT_NS (20 * 1000000ull)
/* The collector thread's slice: short, so that a wakeup preempts at once. */
#define COLLECTOR_SLICE_NS 100000ull
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
/* The collector's own CPU time in the summary is read this often. */
#define COLLECTOR_SELF_CPU_NS 1000000000ull
/* How much earlier than the clock read after epoll's look the exec socket
 * is taken to have been seen empty. */
#define COLLECTOR_NL_EMPTY_SLACK_NS (2 * 1000000ull)
/* The most pages one fault maps (fault-around: fault_around_bytes, 64 KiB by
 * default; memory madvised for transparent huge pages excepted), in KiB. */
#define COLL_SAMPLE_FAULT_KIB 64
/* Below this (its RSS, then and now, and what its faults can have added), a
 * process's memory is read from statm, not status: no high-water mark, the
 * faults bound what it can have had between. */
#define COLL_SAMPLE_SMALL_KIB 4096
/* With events, orphans are reaped when one of ours exits, and this often. */
#define COLLECTOR_REAP_NS 1000000000ull

struct prog_ratio {
	char comm[16]; /* "" = free */
	double anon, shared;
	uint64_t shared_kib; /* the most shared RSS a read of it saw */
	uint64_t file_kib;   /* the most file and shared memory RSS a tick saw of it */
	int file_seen;       /* file_kib holds: a tick saw one of its processes */
};
/* The shared RSS taken for a program never read, when one of its processes
 * left never seen by a tick (a dynamic program's libraries, about). */
#define COLL_PSS_SHARED_GUESS_KIB 2048

struct collector {
	struct store *st;
	struct collector_config cfg;
	int nl_fd, ep_fd, wake_fd, notify_fd, pidfd;
	uint64_t next_tick_ns;  /* when the next tick is due (collector_now_ns) */
	uint64_t tick_slack_ns; /* how early a tick may come when awake anyway */
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
	int end_due;            /* the run has ended (coll_end): collector_finish is due */
	uint64_t end_due_ns;
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
	uint64_t argv_vm_reads; /* command lines read from the process's memory */
	int argv_vm_refused;    /* reading it was refused (EPERM): not tried again */
	uint64_t cpu_read_ns;   /* when sum.collector_cpu_ns was last read */
	uint64_t sched_read_ns; /* when the PSS budget last read spacetime's CPU */
	int reap_due;           /* a process whose parent is us exited */
	int top_due;            /* a process left above what the ticks saw of it:
				 * its exit sample is best made as soon as its
				 * exit event comes (its record came first) */
	pid_t top_wait_pid;     /* that process */
	uint64_t top_due_ns;    /* the tick comes by then, the event come or not */
	uint64_t reap_ns;       /* the tick of the last reap */
	uint64_t nl_empty_ns;   /* the exec socket was seen empty then (0: not known);
				 * the tick's drain takes that for a read */
	/* exec events read at their wakeup (coll_events_exec_ahead), left in
	 * evs[0, wpend_n) for the next drain to handle in time order */
	size_t wpend_n;
	int wpend_more;         /* that read filled the batch: more may be queued */
	int wpend_rescan;       /* it reported an overrun: the drain rescans */
	uint64_t wpend_read_ns; /* when it read */
	struct coll_prefetch {  /* what those execs needed read while they ran */
		pid_t pid;
		uint64_t ts_ns;        /* its exec event's */
		uint64_t at_ns;        /* when it was read */
		struct procfs_stat ps; /* its stat then */
		uint32_t argv_id;      /* its command line (0: gone) */
		int fd;                /* its stat, open, or -1 */
	} pre[COLLECTOR_PREFETCH];
	size_t npre;
	uint64_t prefetch_used; /* execs handled with what was read ahead */
	struct store_proc_sample *ps; /* a tick's per-process samples */
	size_t ps_cap;
	size_t sched_cap;
	/* the PSS model: one entry per counted live process at a tick */
	struct pssmodel model;
	struct coll_top top;    /* the peak between samples (coll_top.h) */
	struct coll_top_live *top_live; /* the counted processes at the last tick (mp_cap) */
	uint64_t top_ghost_est, top_ghost_hi; /* the ghosts' part of its estimate, bound */
	uint64_t top_ghost_prev_est, top_ghost_prev_hi; /* the same at the tick before */
	uint64_t top_live_hi;  /* its bound, unread (exiting) processes at their last */
	struct pssmodel_proc *mp;
	uint32_t *mp_idx, *mp_pick;
	size_t mp_cap;
	size_t mp_n;        /* processes the last tick's model counted (mp_idx) */
	struct store_peak_proc *peak_procs; /* scratch for store_peak_procs_set */
	size_t peak_cap;
	struct prog_ratio progs[COLLECTOR_PROGS];
	struct sample peak_meas, peak_any; /* the highest measured and estimated samples */
	struct sample peak_exit;           /* the highest exit sample (have_exit) */
	struct sample peak_floor;          /* the highest tick floor (have_floor) */
	int have_floor;
	int floor_traced;                  /* it is a traced one (coll_rss.c) */
	uint64_t tick_lo_kib;              /* the last tick's floor (coll_pss_tick; 0: none) */
	int tick_moved;                    /* its sweep's processes moved as it read them */
	int tick_whole;                    /* the last tick's model counted every process */
	uint64_t tick_copied_kib;          /* what copy-on-write breaks can have added since the
					    * tick before (coll_top's copies, summed) */
	/* the RSS changes traced between ticks (coll_rss.c; rss NULL: none) */
	struct rsstrace *rss;
	struct rssspan *rss_span;
	struct rssspan_live *rss_live;
	size_t rss_live_cap;
	int rss_prev_lo_ok, rss_prev_hi_ok; /* the last tick's floor and bound hold */
	uint64_t rss_prev_lo_kib, rss_prev_hi_kib;
	int rss_skip;                      /* intervals left before the trace's counters are whole
					    * again (records were lost) */
	int rss_covered;                   /* this interval's tops are the trace's: no exit sample */
	const struct rsstrace_rec *rss_r;  /* the interval's records (coll_rss_begin) */
	size_t rss_n;
	uint64_t rss_lost;
	int rss_fwd;                       /* taken in with the opening tick's figures */
	struct rssspan_exits rss_exits;    /* its ends (none when not taken in) */
	int rss_reclaim;                   /* the kernel reclaimed or swapped pages in it */
	uint64_t rss_reclaim_seen;         /* /proc/vmstat's count of those at the last tick */
	char rss_vmstat[8192];
	struct coll_top_sample peak_exit_x; /* what it holds */
	int have_exit;
	int have_meas;
	double est_area, pss_area;         /* for sum.pss_est_share */
	int fast;           /* on fast ticks */
	uint64_t sweep_cpu_ns; /* what sweeps' reads cost */
	int near_peak;      /* the last tick found the tree near its peak, and moving */
	uint64_t prev_est_kib; /* the tree's estimate at the last tick */
	uint64_t last_push_ns; /* the last sample stored */
	uint64_t dil_cum_kib;   /* KiB newly mapped in the tree (new processes, shared growth) */
	const char *proc_root;  /* where /proc is (cfg.proc_root, or "/proc") */
	int fd_cache_below;     /* /proc fds numbered below this are kept open between reads */
	struct {
		pid_t pid, ppid;
		uint64_t start_ticks; /* 0: never read */
		uint64_t start_ns, end_ns;
		int fork_seen; /* start_ns is its fork event's */
		uint64_t exec_ns; /* its last exec (0: none seen) */
		uint64_t hwm_kib; /* its program's high-water RSS at its exit (taskstats; 0:
				   * unknown): the most a child it forked since that exec
				   * can have had of its pages */
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
	char tsbuf[COLLECTOR_TSBATCH][COLLECTOR_TSBUF] __attribute__((aligned(8)));
	struct taskstats_exit tsrec[COLLECTOR_TSREC];
	struct taskstats_exit tspend[COLLECTOR_TSPEND]; /* a ring; tgid 0: used */
	/* tspend's tgids alone, what each retire looks through (2 KiB, not the
	 * records' 72: its cache lines, and at the start its zero pages, each
	 * a fault that costs ~16 us here) */
	pid_t tspend_tgid[COLLECTOR_TSPEND];
	uint64_t tspend_ns[COLLECTOR_TSPEND];
	uint64_t tspend_after_ns[COLLECTOR_TSPEND]; /* the socket was empty then */
	size_t tspend_next;
	uint64_t tspend_swept_ns; /* when the full ring was last swept (coll_ts_apply) */
	int ts_events_held;       /* that sweep reads no netlink events (an orphan reaped,
				   * its entry still in the table: a fork event of its
				   * pid's next holder would be taken for its own) */
	/* the records in tspend of leader tasks whose parent was in the tree
	 * when they came, apart: the children a lost child's record can tell of
	 * (tspend fills with strangers' records on a busy machine) */
	struct taskstats_exit tskid[COLLECTOR_TSPEND];
	uint64_t tskid_ns[COLLECTOR_TSPEND];
	size_t tskid_next;
	uint64_t ts_empty_ns;  /* when the taskstats socket was last found empty */
	int ts_polled;         /* each record wakes the collector (coll_ts_arm) */
	int ts_useful;         /* this wakeup read a record of a process that can make a top */
	int ts_quiet;          /* the last records' wakeup was of small ones only: none until
				* the collector wakes for anything else */
	char rbuf[16384];
	char argv[COLLECTOR_ARGV_MAX];
};

/* coll_base.c: below every job */
/* The collector's "now": the injected clock, or CLOCK_MONOTONIC. */
uint64_t coll_base_clock(const struct collector *c);
uint64_t coll_base_thread_cpu_ns(void);
uint64_t coll_base_process_cpu_ns(void);
uint64_t coll_base_ticks_to_us(uint64_t t);
uint64_t coll_base_since(uint64_t v, uint64_t base);
uint64_t coll_base_early_ns(const struct collector *c);
void coll_base_notify(struct collector *c);
void coll_base_publish(struct collector *c, struct pentry *e);
/* Wakes for fork|exit events until the next tick's adjustment. */
void coll_base_quiet_wake(struct collector *c);

/* collector.c: the coordinator (a job never calls it; tests do) */
void collector_tick(struct collector *c);
/* Ends the run at now: the last reads, the last tick, the final summary. */
void collector_finish(struct collector *c, uint64_t now);

/* coll_sample.c */
/* As coll_sample_retire's last: stat is read there. */
extern const struct procfs_stat coll_sample_retire_read;
#define COLL_SAMPLE_RETIRE_READ (&coll_sample_retire_read)
uint32_t coll_sample_read_argv(struct collector *c, pid_t pid);
int coll_sample_prefetch_exec(struct collector *c, const struct nlproc_event *ev);
void coll_sample_prefetch_expire(struct collector *c, uint64_t now, int all);
uint32_t coll_sample_root_argv(struct collector *c);
void coll_sample_note_exec(struct collector *c, struct pentry *e, uint64_t t_ns);
struct pentry *coll_sample_add_proc(struct collector *c, pid_t pid, pid_t ppid, uint64_t t_ns,
					   const struct pentry *parent);
void coll_sample_retire(struct collector *c, struct pentry *e, uint64_t t_ns, int status, int known,
			const struct procfs_stat *last);
int coll_sample_retired_exec(struct collector *c, pid_t pid, uint64_t t_ns);
int coll_sample_cheap(struct collector *c, struct pentry *e, uint64_t now);
int coll_sample_proc_ended(struct collector *c, struct pentry *e, struct procfs_stat *ps, int *read);
void coll_sample_retire_exited(struct collector *c);

/* coll_tsrec.c: below sample, above the model */
/* Adds one task's exit record to its process's entry. */
void coll_tsrec_add(struct collector *c, struct pentry *e, const struct taskstats_exit *x);
/* Whether record x (received at read_ns, the socket found empty at
 * after_ns) is of a task of e. */
int coll_tsrec_fits(struct collector *c, const struct pentry *e, const struct taskstats_exit *x,
		    uint64_t after_ns, uint64_t read_ns);
/* Adds the record kept in slot k of tspend to e if it is one of its tasks'. */
void coll_tsrec_adopt_one(struct collector *c, struct pentry *e, size_t k, uint64_t now);
/* Adds to e the records of its tasks that came before it was in the table. */
void coll_tsrec_adopt(struct collector *c, struct pentry *e);

/* coll_proc.c: below sample, model and retire */
uint64_t coll_proc_boot_offset_ns(const struct collector *c);
int coll_proc_fd(struct collector *c, pid_t pid, int *slot, const char *name, int *own);
int coll_proc_read_stat(struct collector *c, struct pentry *e, struct procfs_stat *ps);
int coll_proc_identity(struct collector *c, struct pentry *e, const struct procfs_stat *ps);
int coll_proc_hwm_now(struct collector *c, struct pentry *e, uint64_t *hwm_kib);
void coll_proc_take_stat(struct pentry *e, const struct procfs_stat *ps);
int coll_proc_was_retired(struct collector *c, pid_t pid);
int coll_proc_retired_lately(const struct collector *c, pid_t pid);
uint64_t coll_proc_retired_hwm(const struct collector *c, pid_t ppid, uint64_t start_ns);
int coll_proc_before_first_exec(const struct collector *c, const struct pentry *e);
int coll_proc_vm_borrowed(const struct collector *c, const struct pentry *e);

/* coll_events.c */
void coll_events_replay(struct collector *c, pid_t pid, uint64_t at_ns);
void coll_events_on_event(struct collector *c, const struct nlproc_event *ev);
void coll_events_quiet_adjust(struct collector *c, int at_tick);
void coll_ts_arm(struct collector *c);
void coll_events_drain(struct collector *c);
void coll_events_exec_ahead(struct collector *c);

/* coll_scan.c */
/* found, when not NULL, is told of each process the scan adds with netlink
 * events on (its exec events, read before it was found, are its own: the
 * events' job replays them). */
typedef void (*coll_scan_found_fn)(struct collector *c, pid_t pid, uint64_t at_ns);
void coll_scan_tree(struct collector *c, uint64_t now, coll_scan_found_fn found);

/* coll_pss.c */
int coll_pss_counts(const struct collector *c, const struct pentry *e);
void coll_pss_leave(struct collector *c, const struct pentry *e);
int coll_pss_forks_known(const struct collector *c, const struct pentry *e);
uint64_t coll_pss_program_start(const struct pentry *e);
void coll_pss_gone(struct collector *c, const struct pentry *e, uint64_t t_ns, uint64_t hw_kib,
		   int have_hw, uint64_t dfaults, int by_exec);
uint64_t coll_pss_read(struct collector *c, struct pentry *e, uint64_t now, uint64_t *clk);
void coll_pss_schedule(struct collector *c, uint64_t now);
/* What the trace told of the interval's ends (coll_rss_ends): whether it
 * tells of them, and then whether the tree can have been above its peak
 * (coll_pss_peak_kib, as the interval began) just before one, and the last
 * such end's instant. */
struct coll_rss_ends {
	int told, top;
	uint64_t top_t_ns;
};
int coll_pss_tick(struct collector *c, struct sample *s, uint64_t now, const struct coll_rss_ends *ends);
void coll_pss_peak(struct collector *c, const struct sample *s, int sure, uint64_t now,
		   const struct coll_top_sample *x);
void coll_pss_peak_procs(struct collector *c, uint64_t t_ns);
void coll_pss_exit_sample(struct collector *c, const struct sample *s, uint64_t now);
void coll_pss_traced_floor(struct collector *c, const struct sample *fs);
/* The tree's peak so far: the model's measured one, or a floor above it. */
uint64_t coll_pss_peak_kib(const struct collector *c);
/* s as a floor: its PSS at lo_kib (its split scaled to it), its doubt how far
 * above it hi_kib is (no more than itself) */
void coll_pss_floor_of(const struct sample *s, uint64_t lo_kib, uint64_t hi_kib, struct sample *fs);
/* coll_rss.c: the interval since the last tick, from its traced RSS changes
 * (before coll_pss_exit_sample closes it) */
void coll_rss_begin(struct collector *c, uint64_t now);
void coll_rss_tick(struct collector *c, const struct sample *s, uint64_t now);
void coll_rss_ends(const struct collector *c, struct coll_rss_ends *x);
int coll_rss_start(struct collector *c);
void coll_rss_free(struct collector *c);

/* coll_ts.c */
void coll_ts_apply(struct collector *c, const struct taskstats_exit *x);
void coll_ts_lost_children(struct collector *c);
void coll_ts_drain(struct collector *c);

/* coll_end.c */
/* The run's end in two halves, its last tick between (collector_finish). */
void coll_end_last_reads(struct collector *c, uint64_t now);
void coll_end_close(struct collector *c);
int coll_end_attach_ended(struct collector *c);
/* Returns 1 when the run has ended (end_due set: collector_finish ends it). */
int coll_end_reap(struct collector *c);

#endif
