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
#include "coll_events.h"
#include "coll_mem.h"
#include "coll_psi.h"
#include "coll_rss.h"
#include "coll_pss.h"
#include "coll_sample.h"
#include "coll_ts.h"
#include "ptable.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/* Processes retired lately, remembered so a rescan does not count again a
 * zombie its parent has not reaped yet. */
#define COLLECTOR_RETIRED 4096
/* Descriptors left free below RLIMIT_NOFILE by kept /proc files. */
#define COLLECTOR_FD_RESERVE 64
/* The collector's share of its budget per core the command keeps busy. */
#define COLLECTOR_TREE_SHARE 0.3
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
	pid_t root;
	pthread_t th;
	int started;
	atomic_int finished;
	int end_due;            /* the run has ended (coll_end): collector_finish is due */
	uint64_t end_due_ns;
	int final_tick;         /* the run's last tick (collector_finish): its sample is stored */
	struct ptable *pt;
	/* totals over the tree */
	uint32_t total_procs, total_threads, total_execs;
	uint64_t gone_minflt, gone_majflt, gone_utime_us, gone_stime_us;
	/* PSS budget */
	struct coll_pss pm;     /* the PSS job's own (coll_pss.h) */
	double cost_ns_per_kib, shared_ratio;
	struct pssched_item *sched_items;
	uint32_t *sched_picks;
	uint64_t cpu_read_ns;   /* when sum.collector_cpu_ns was last read */
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
	struct coll_events ev;  /* the events' job's own (coll_events.h) */
	struct coll_sample sm;  /* the sampling job's own (coll_sample.h) */
	struct store_proc_sample *ps; /* a tick's per-process samples, pushed at its end */
	size_t ps_n, ps_cap;
	uint64_t ps_pushed_ns; /* the latest instant of a per-process sample pushed */
	struct coll_top top;    /* the peak between samples (coll_top.h) */
	struct coll_top_live *top_live; /* the counted processes at the last tick (mp_cap) */
	struct pssmodel_proc *mp;
	uint32_t *mp_idx, *mp_pick;
	size_t mp_n;        /* processes the last tick's model counted (mp_idx) */
	struct sample peak_any;            /* the highest estimated sample */
	uint64_t tick_lo_kib;              /* the last tick's floor (coll_pss_tick; 0: none) */
	int tick_moved;                    /* its sweep's processes moved as it read them */
	int tick_whole;                    /* the last tick's model counted every process */
	uint64_t tick_copied_kib;          /* what copy-on-write breaks can have added since the
					    * tick before (coll_top's copies, summed) */
	/* the RSS changes traced between ticks (coll_rss.c; rss NULL: none) */
	struct rsstrace *rss;
	struct coll_rss rt;                /* the trace's job's own (coll_rss.h) */
	struct coll_psi psi;               /* the pressure job's own (coll_psi.h) */
	struct coll_mem mem;               /* the memory-left job's own (coll_mem.h) */
	int rss_covered;                   /* this interval's tops are the trace's: no exit sample */
	int fast;           /* on fast ticks */
	int near_peak;      /* the last tick found the tree near its peak, and moving */
	uint64_t last_push_ns; /* the last sample stored */
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
	double tree_cores;     /* CPU the tree used over the last tick, in cores */
	double ncpu;           /* online CPUs: the most the tree can keep busy */
	uint64_t tree_cpu_us;  /* the tree's cumulative CPU at the last tick */
	pid_t self;          /* spacetime's pid */
	size_t tskid_scan;   /* the next record in tskid to look at for a lost child */
	uint64_t nl_drain_ns; /* when the last netlink drain began */
	uint64_t last_tick_ns;
	uint64_t age_sum_ns, age_n;
	struct store_summary sum;
	struct coll_ts ts;   /* the taskstats job's own (coll_ts.h) */
	struct taskstats_exit tspend[COLLECTOR_TSPEND]; /* a ring; tgid 0: used */
	/* tspend's tgids alone, what each retire looks through (2 KiB, not the
	 * records' 72: its cache lines, and at the start its zero pages, each
	 * a fault that costs ~16 us here) */
	pid_t tspend_tgid[COLLECTOR_TSPEND];
	uint64_t tspend_ns[COLLECTOR_TSPEND];
	uint64_t tspend_after_ns[COLLECTOR_TSPEND]; /* the socket was empty then */
	int ts_events_held;       /* that sweep reads no netlink events (an orphan reaped,
				   * its entry still in the table: a fork event of its
				   * pid's next holder would be taken for its own) */
	size_t tskid_next;
	uint64_t ts_empty_ns;  /* when the taskstats socket was last found empty */
	int ts_polled;         /* each record wakes the collector (coll_ts_arm) */
	int ts_useful;         /* this wakeup read a record of a process that can make a top */
	int ts_quiet;          /* the last records' wakeup was of small ones only: none until
				* the collector wakes for anything else */
	char rbuf[16384];
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
/* Room in c->ps for n samples (the room there is when there cannot be more). */
void coll_base_ps_room(struct collector *c, size_t n);
/* Wakes for fork|exit events until the next tick's adjustment. */
void coll_base_quiet_wake(struct collector *c);

/* collector.c: the coordinator (a job never calls it; tests do) */
void collector_tick(struct collector *c);
/* Ends the run at now: the last reads, the last tick, the final summary. */
void collector_finish(struct collector *c, uint64_t now);

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

/* coll_scan.c */
/* found, when not NULL, is told of each process the scan adds with netlink
 * events on (its exec events, read before it was found, are its own: the
 * events' job replays them). */
typedef void (*coll_scan_found_fn)(struct collector *c, pid_t pid, uint64_t at_ns);
void coll_scan_tree(struct collector *c, uint64_t now, coll_scan_found_fn found);

/* coll_end.c */
/* The run's end in two halves, its last tick between (collector_finish). */
void coll_end_last_reads(struct collector *c, uint64_t now);
void coll_end_close(struct collector *c);
int coll_end_attach_ended(struct collector *c);
/* Returns 1 when the run has ended (end_due set: collector_finish ends it). */
int coll_end_reap(struct collector *c);

#endif
