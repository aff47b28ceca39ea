/* store: the one object shared between the collector and the UI.
 *
 * A multi-resolution time series (fine samples for the recent past, coarser
 * min/max/mean buckets for older time), an event log, the process records and
 * the run's summary state. The lock is private; every reader gets a copy. */
#ifndef SPACETIME_STORE_H
#define SPACETIME_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The sampling interval when none is given (ms): the one place it is said
 * (the collector's default, --help's, a replay's of a run that says none). */
#define STORE_INTERVAL_MS 100

#include "outlog.h"

/* Bits of struct sample.valid: a field whose bit is clear is unknown, not zero. */
enum {
	SAMPLE_PSS = 1u << 0,     /* pss_kib and its anon/file/shmem split */
	SAMPLE_RSS = 1u << 1,     /* rss_kib */
	SAMPLE_FAULTS = 1u << 2,  /* minflt, majflt */
	SAMPLE_CPU = 1u << 3,     /* utime_us, stime_us */
	SAMPLE_COUNTS = 1u << 4,  /* live/total processes and threads */
	SAMPLE_KINDS = 1u << 5,   /* swap_kib, thp_kib, locked_kib */
	SAMPLE_PSI = 1u << 6,     /* psi_*_pm */
	SAMPLE_MEMLEFT = 1u << 7, /* mem_left_kib */
};

/* One instant of the whole tree. Cumulative fields only grow. */
struct sample {
	uint64_t t_ns; /* CLOCK_MONOTONIC, absolute */
	uint64_t pss_kib, pss_anon_kib, pss_file_kib, pss_shmem_kib;
	/* how sure pss_kib is (pssmodel.h): the part of it estimated rather than
	 * read (0: all of it measured), and an upper bound of the tree's PSS */
	uint64_t pss_est_kib, pss_hi_kib;
	uint64_t rss_kib;
	uint64_t minflt, majflt;    /* cumulative over the tree (live + exited) */
	uint64_t utime_us, stime_us; /* cumulative over the tree (live + exited) */
	uint32_t live_procs, live_threads;
	uint32_t total_procs, total_threads; /* created so far, root included */
	uint32_t valid;
	/* kinds of the tree's memory, from each live process's last smaps_rollup
	 * read: swapped out, in transparent huge pages (anonymous), locked */
	uint64_t swap_kib, thp_kib, locked_kib;
	/* pressure stalls since the previous sample, per mille of the time: some
	 * task waited for CPU, memory, or I/O; every task for memory (full) */
	uint32_t psi_cpu_pm, psi_mem_pm, psi_mem_full_pm, psi_io_pm;
	/* memory left before the machine, or the cgroup that binds the run, runs
	 * out (coll_mem.h) */
	uint64_t mem_left_kib;
};

/* An estimate that passes the highest measured sample by more than this share
 * is kept as an unconfirmed peak (store_summary.peak_unconfirmed_kib). */
#define STORE_PEAK_EST_MARGIN 0.01

/* Fields aggregated over a bucket: every numeric field of struct sample. */
#define STORE_NFIELDS 23

/* A time bucket: min, max and mean of every field over the samples in it.
 * At the finest tier a bucket holds one sample and min == max == mean.
 * A field is aggregated over the samples where it was known; valid is the AND,
 * so a bucket mixing known and unknown readings has the bit clear.
 * min.t_ns = t0_ns, max.t_ns = t1_ns, mean.t_ns = their midpoint. */
struct bucket {
	uint64_t t0_ns, t1_ns; /* first and last sample time in the bucket */
	uint32_t n;            /* samples aggregated */
	uint32_t valid;        /* AND of the samples' valid bits */
	struct sample min, max, mean;
};

enum store_event_type {
	STORE_EV_FORK = 1,
	STORE_EV_EXEC,
	STORE_EV_EXIT,
	STORE_EV_THREAD,
	STORE_EV_LOST,    /* netlink lost events (ENOBUFS); arg = count */
	STORE_EV_RESCAN,  /* /proc rescanned to repair the tree */
};

struct store_event {
	uint64_t t_ns;
	uint32_t type; /* enum store_event_type */
	pid_t pid, ppid;
	int64_t arg; /* exit: wait status; lost: count */
};

/* Bits of struct proc_rec.valid. */
enum {
	PROC_V_PSS = 1u << 0,
	PROC_V_RSS = 1u << 1,
	PROC_V_CPU = 1u << 2,
	PROC_V_FAULTS = 1u << 3,
	PROC_V_EXIT = 1u << 4,   /* exit_status known */
	PROC_V_ARGV = 1u << 5,   /* argv_id names the real command line */
	PROC_V_PSS_EST = 1u << 6, /* pss_kib scaled from RSS since last smaps_rollup */
	PROC_V_STOPPED = 1u << 7, /* stopped (SIGSTOP, z) at its last stat read */
	PROC_V_WAIT = 1u << 8,    /* wait_cpu_us, wait_io_us: its tasks' delays were counted */
};

/* What the UI and the exports know of one process, live or exited.
 * The store keeps a live process (end_ns == 0) as this struct; the update that
 * sets end_ns compacts it (40 to 55 bytes, see recpack.h), and a copy of an
 * exited record has every field back exactly except pss_kib, rss_kib and
 * pss_age_ns, which are 0 (use the peaks), and comm, which comes from the
 * string pool ("" if the pool refused it). */
struct proc_rec {
	uint64_t id;       /* unique in the run (pid + start time key) */
	pid_t pid, ppid;
	uint64_t start_ns, end_ns; /* end_ns == 0 while alive */
	uint32_t argv_id;          /* store_str_get(); 0 = none */
	char comm[16];
	int exit_status;           /* wait(2) status, valid with PROC_V_EXIT */
	uint32_t threads;          /* live threads now (peak when exited) */
	uint32_t nexec;            /* execs performed */
	uint64_t pss_kib, rss_kib; /* now (last known when exited) */
	uint64_t peak_pss_kib, peak_pss_t_ns, peak_rss_kib;
	uint64_t pss_age_ns;       /* how old the last smaps_rollup read is */
	uint64_t utime_us, stime_us, minflt, majflt;
	/* time its tasks waited (delay accounting, at its exit): for a CPU; for
	 * block I/O, swapping in, reclaim and thrashing together */
	uint64_t wait_cpu_us, wait_io_us;
	uint32_t valid;
};

/* How the tree was followed (store_summary.mode). */
enum store_mode {
	STORE_MODE_NETLINK = 1, /* exact: every fork, exec and exit is seen */
	STORE_MODE_POLL = 2,    /* /proc children polled each tick: short lives missed */
};

/* The run as a whole: set by the collector, read by report and exports. */
/* OOM kills whose times the summary keeps. */
#define STORE_OOM_TIMES 4

/* The processes growing fastest a low-memory warning names. */
#define STORE_MEM_GROWERS 3

/* Processes spacetime attaches to at most (spacetime -p). */
#define STORE_ATTACH_MAX 64

struct store_summary {
	uint64_t start_ns, end_ns; /* command start and the run's end; end 0 while running */
	uint64_t root_end_ns;      /* when the command ended (0: not yet); the run ends
				    * then, or when its whole tree has (--wait-tree) */
	int exited;                /* the command has been reaped */
	uint64_t orphans_reaped;   /* processes of the tree spacetime reaped as their
				    * subreaper (their parents had ended) */
	int wait_status;           /* wait(2) status of the command */
	/* rusage of the command and the descendants it waited for, plus the
	 * orphans spacetime reaped and theirs (wait4) */
	uint64_t ru_utime_us, ru_stime_us, ru_maxrss_kib;
	uint64_t max_tree_rss_kib; /* the highest RSS sum of the tree at a tick: what
				    * summing RSS would call the peak */
	/* the kinds of the tree's memory at their highest over the run (samples'
	 * swap_kib, thp_kib, locked_kib), when the first swap was seen;
	 * kinds_known: some sample had them (a run recorded before did not) */
	uint64_t max_swap_kib, max_thp_kib, max_locked_kib, max_swap_t_ns;
	int kinds_known;
	/* pressure stalls over the run (coll_psi.h): where they were read (0 not
	 * at all: no PSI; 1 the machine's; 2 the command's cgroup), the time
	 * some task waited for CPU, memory, I/O, and all for memory, and the
	 * highest memory stall between two samples (per mille) */
	int psi;
	uint64_t psi_cpu_us, psi_mem_us, psi_mem_full_us, psi_io_us;
	uint32_t psi_mem_max_pm;
	/* memory left (coll_mem.h): of how much (the machine's memory, or the
	 * cgroup's limit: mem_by_cgroup), its lowest and when, whether it is low
	 * now (little left while the tree grows), when it first was and for how
	 * many ticks, the time left at the rate it went (ms, 0: not shrinking),
	 * and the processes growing fastest while low (pid 0: none) */
	uint64_t mem_of_kib, mem_min_left_kib, mem_min_left_t_ns;
	int mem_by_cgroup, mem_low;
	uint64_t mem_low_first_ns, mem_low_ticks, mem_eta_ms;
	pid_t mem_grow_pid[STORE_MEM_GROWERS];
	uint64_t mem_grow_kib[STORE_MEM_GROWERS];
	/* the kernel's OOM kills during the run (/proc/vmstat oom_kill: the
	 * machine's, any process), and when the first STORE_OOM_TIMES came: a
	 * process of the tree killed by SIGKILL then was the OOM killer's
	 * (oomkill.h) */
	uint64_t oom_kills;
	uint64_t oom_t_ns[STORE_OOM_TIMES];
	/* time the tree's tasks waited, from their taskstats exit records: for a
	 * CPU, block I/O, swapping in, reclaim, thrashing (ns); delayacct: 2 the
	 * kernel counted it (kernel.task_delayacct on), 1 it did not (off), 0
	 * not known */
	int delayacct;
	uint64_t delay_cpu_ns, delay_blkio_ns, delay_swapin_ns, delay_reclaim_ns, delay_thrashing_ns;
	uint64_t ru_minflt, ru_majflt, ru_nvcsw, ru_nivcsw, ru_inblock, ru_oublock;
	struct sample peak;        /* the sample with the highest tree PSS: the highest
				    * measured one, or the highest estimate while none
				    * was measured */
	int peak_measured;         /* peak is a sum of reads (pss_est_kib within PSSMODEL_SURE) */
	int peak_floor;            /* peak is a tick's floor: an estimate above every sum of
				    * reads, no sweep could confirm, at the least its
				    * processes' lower bounds say */
	uint64_t peak_unconfirmed_kib; /* the highest estimate, when it passed the measured
					* peak by more than STORE_PEAK_EST_MARGIN and no
					* sweep could confirm it (0: none) */
	double pss_est_share;      /* share of the PSS series (its area) that was estimated */
	/* the peak between samples (coll_top.h): no instant of the tree went
	 * above peak_bound_kib, unless peak_bound_unknown (processes left
	 * between samples with their high-water RSS unknown: no taskstats);
	 * peak_exit_pid, when the peak is an exit sample, the first of the
	 * peak_exit_tops processes held there at their high-water marks */
	uint64_t peak_bound_kib;
	int peak_bound_unknown;
	int peak_exit_pid;
	uint32_t peak_exit_tops;
	uint64_t pss_sweeps;       /* confirmation sweeps: reads made because the tree
				    * might be at a new peak */
	uint64_t pss_sweep_reads;  /* smaps_rollup reads those sweeps made */
	uint64_t pss_sweep_skips;  /* processes a sweep for an end left unread: begun after it */
	uint64_t pss_sweeps_unstable; /* sweeps whose processes moved while read (no measurement) */
	uint64_t fast_ticks;       /* ticks brought forward because the tree was near its peak */
	uint64_t exit_ticks;       /* ticks taken at once for an exit at a top (coll_top.h) */
	uint64_t exit_samples;     /* samples stored between two ticks (an exit's, the trace's
				    * floor): each a new peak */
	/* the RSS changes traced between ticks (kmem/rss_stat: rsstrace.h, rssspan.h) */
	int rss_traced;            /* on for this run */
	int peak_traced;           /* peak is a traced floor: the least the tree had at an
				    * instant between two ticks, by the pages it mapped and let
				    * go of from a tick's figures */
	uint64_t rss_records;      /* records read */
	uint64_t rss_lost;         /* records the kernel could not keep */
	uint64_t rss_intervals, rss_complete; /* intervals, and those the trace bounded */
	uint64_t rss_conflicts;    /* intervals whose floor came out above their bound: neither
				    * taken (the model's figures, or pages moved unseen) */
	uint64_t rss_reads;        /* reads between ticks of a process whose file pages grew
				    * (their private pages count in the floors: rssspan_read) */
	struct sample last;        /* the newest sample */
	uint64_t lost_events;      /* netlink ENOBUFS occurrences */
	uint64_t rescans;
	uint32_t total_execs;
	uint32_t mode;             /* enum store_mode */
	uint64_t pss_reads;        /* smaps_rollup reads performed */
	uint64_t pss_cpu_ns;       /* CPU time those reads cost */
	uint64_t budget_ns;        /* CPU time the budget allowed spacetime so far */
	uint64_t pss_max_age_ns;   /* worst refresh age of a live process seen at a tick */
	uint64_t pss_mean_age_ns;  /* mean refresh age over live processes and ticks */
	uint64_t collector_cpu_ns; /* the collector thread's own CPU time */
	uint64_t self_cpu_ns;      /* spacetime's whole process (all threads), at the end */
	uint64_t interval_ms;
	uint64_t collector_wakeups; /* times the collector thread woke up */
	uint64_t nl_events;        /* netlink events read */
	int taskstats;             /* exact per-process exit figures (taskstats) */
	uint64_t ts_records;       /* taskstats records applied to the tree's processes */
	uint64_t ts_lost;          /* taskstats overruns (figures then sampled) */
	uint64_t ts_unfit;         /* records naming a tree process's pid that did not fit it
				    * (by its fork and exit times, or its parent): taken as
				    * another holder's of the pid, not applied */
	/* attached to running processes (spacetime -p) rather than a command:
	 * no wait4, so the ru_ figures are the sums of what the processes seen
	 * used since the attach (partial), ctx switches and block I/O unknown */
	int attached;
	int detached;              /* the run ended by a detach, processes still running */
	uint32_t attach_n;         /* the pids attached to */
	pid_t attach_pid[STORE_ATTACH_MAX];
	uint64_t attach_prior_cpu_us; /* CPU the processes found at the attach had used
				       * before it (not in ru_utime_us/ru_stime_us) */
};

struct store;

struct store_config {
	uint32_t tier0_len;     /* fine samples kept (default 4096) */
	uint32_t ntiers;        /* tiers including tier 0 (default 4) */
	uint32_t tier_factor;   /* each tier's bucket spans this many of the previous (default 10) */
	uint32_t tier_len;      /* buckets per coarser tier (default 4096) */
	uint32_t events_len;    /* event ring length (default 65536) */
	uint32_t proc_samples_len; /* per-process sample ring length (default 0: none
				    * kept, store_push_proc_samples() does nothing) */
	uint32_t lines_len;     /* output lines kept at most (default STORE_LINES) */
	size_t lines_bytes;     /* and their bytes (default STORE_LINES_BYTES) */
	uint64_t base_ns;       /* tier k >= 1 buckets are time slots of base_ns * factor^k
				 * (default 100 ms) */
	size_t strpool_max_bytes; /* string bytes interned at most (default 12 MiB); past
				   * half of it, strings over 1 KiB keep their first
				   * 1 KiB; the last 1/64 is kept for names of up to 16
				   * bytes (comm) */
};

/* Creates a store; cfg may be NULL for defaults. Memory for series and events is
 * allocated here, once. Returns NULL + errno. */
struct store *store_new(const struct store_config *cfg);
void store_free(struct store *st);

/* Collector side. */
void store_push_sample(struct store *st, const struct sample *s);
void store_push_event(struct store *st, const struct store_event *ev);
/* Inserts or updates the record with rec->id. An update with end_ns != 0 makes
 * the record exited, and it stays so: a later update of it is stored compacted,
 * and an end_ns of 0 there keeps the end already known. Returns 0 or -ENOMEM. */
int store_proc_update(struct store *st, const struct proc_rec *rec);
void store_summary_set(struct store *st, const struct store_summary *sum);
/* Interns a byte string (argv with NUL separators); returns its id (>0) or 0 on
 * failure. The same bytes always give the same id; once the pool is half full,
 * a string over 1 KiB not yet interned gets the id of its first 1 KiB (counted,
 * see store_str_truncated()). */
uint32_t store_str_intern(struct store *st, const char *bytes, size_t len);

/* One program executed in the tree (execve). Every exec is kept, unlike the
 * bounded event ring, because the summary lists them all. */
struct store_exec {
	uint64_t t_ns;
	pid_t pid, ppid;
	uint32_t argv_id; /* 0 when the process was gone before its argv was read */
	char comm[16];    /* from the kernel (or "" if unknown); stored interned, so ""
			   * too if the string pool refused it */
};
/* Returns the exec's index, or SIZE_MAX when there was no memory for it. */
size_t store_push_exec(struct store *st, const struct store_exec *ex);
/* Names exec idx's program after the fact (its argv could not be read, and
 * the kernel told its name at the exit). */
void store_exec_set_comm(struct store *st, size_t idx, const char comm[16]);

/* A live process's figures at a tick (a per-process sample): the collector
 * pushes one when a process is first published, when its PSS or RSS moved by
 * more than STORE_PS_MOVE of itself (and STORE_PS_MOVE_KIB), and at least every
 * STORE_PS_EVERY_NS, so a recording can show the process list as of any
 * instant. */
struct store_proc_sample {
	uint64_t id, t_ns;
	uint64_t pss_kib, rss_kib, cpu_us, minflt, majflt;
	uint32_t valid; /* PROC_V_PSS, PROC_V_RSS, PROC_V_CPU, PROC_V_FAULTS */
};
#define STORE_PS_MOVE 0.02
#define STORE_PS_MOVE_KIB 256
#define STORE_PS_EVERY_NS 1000000000ull
/* Whether a figure moved enough since the last per-process sample of it. */
int store_ps_moved(uint64_t was, uint64_t now);
/* Appends n per-process samples to the ring (one lock hold); nothing when the
 * store keeps none (store_config.proc_samples_len 0). */
void store_push_proc_samples(struct store *st, const struct store_proc_sample *v, size_t n);

/* The command's output, line by line (without the newline), when each was
 * printed; the oldest let go of past the store's bound. Returns 0 or
 * -ENOMEM. */
#define STORE_LINES 200000
#define STORE_LINES_BYTES (32u << 20)
int store_push_line(struct store *st, uint64_t t_ns, const char *bytes, size_t len);

/* Reader side: every call copies under the lock and returns. */
/* The last max output lines printed at or before t_ns, oldest first, in one
 * block (*out, free() it); *cut: older ones were let go of. Returns how
 * many, or -ENOMEM. */
ssize_t store_lines_to(struct store *st, uint64_t t_ns, size_t max, struct outlog_line **out, int *cut);
/* Copies execs [from, from + max); returns the total number of execs. */
size_t store_execs(struct store *st, size_t from, struct store_exec *out, size_t max);
void store_summary_get(struct store *st, struct store_summary *out);
/* Buckets covering [t0_ns, t1_ns], at most max_out of them, from the finest tier
 * that both covers the start of the range and fits max_out; returns how many
 * were written (oldest first). Cost is O(buckets returned + log n). */
size_t store_query(struct store *st, uint64_t t0_ns, uint64_t t1_ns, struct bucket *out,
		   size_t max_out);
/* Copies the fine samples numbered >= *cursor (a running count of samples
 * pushed), exactly as stored, oldest first; advances *cursor. Samples already
 * gone from the finest tier are skipped and counted in *dropped if non-NULL
 * (this call's count). Returns the number copied. */
size_t store_samples(struct store *st, uint64_t *cursor, struct sample *out, size_t max,
		     uint64_t *dropped);
/* Time span of the stored series (first and last sample). Returns 0, or -ENODATA. */
int store_span(struct store *st, uint64_t *t0_ns, uint64_t *t1_ns);
/* Which records store_procs() and store_procs_range() copy, and their order:
 *   0 all, in insertion order (a record keeps its place when it exits);
 *   1 live only, in no set order (an exit moves the last live record into the
 *     hole it leaves);
 *   2 exited only, in exit order.
 * Orders 0 and 2 only ever grow at the end, so chunks copied one after another
 * concatenate to the list as it was (records in the states they had when each
 * chunk was copied); order 1 can move between chunks. */
enum { STORE_PROCS_ALL, STORE_PROCS_LIVE, STORE_PROCS_EXITED };
/* Copies matching records [from, from + max) and returns the total number
 * matching now (a which other than 0, 1, 2 matches nothing). One lock hold,
 * O(max) whatever the total. */
size_t store_procs_range(struct store *st, int which, size_t from, struct proc_rec *out,
			 size_t max);
/* Copies the record at insertion index idx[i] into out[i], for i in [0, n),
 * in one lock hold (an index past the end gives a zeroed record: id 0);
 * returns how many were records. */
size_t store_procs_at(struct store *st, const uint32_t *idx, size_t n, struct proc_rec *out);
/* Copies up to max records and returns the total number matching (may exceed
 * max). Live records are copied in one lock hold; all and exited ones in
 * chunks of STORE_PROCS_CHUNK, unlocking between them, so a big run does not
 * stall the collector. */
size_t store_procs(struct store *st, int which, struct proc_rec *out, size_t max);
#define STORE_PROCS_CHUNK 4096
/* Copies the pids of up to max live records into out (in no set order) and
 * returns the number of live records now (may exceed max), in one lock hold. */
size_t store_live_pids(struct store *st, pid_t *out, size_t max);
/* Copies events with index >= *cursor (a running count); advances *cursor.
 * Returns the number copied; events older than the ring are skipped and counted
 * in *dropped if non-NULL (set to this call's count, 0 when none). */
size_t store_events(struct store *st, uint64_t *cursor, struct store_event *out, size_t max,
		    uint64_t *dropped);
/* The same for per-process samples. */
size_t store_proc_samples(struct store *st, uint64_t *cursor, struct store_proc_sample *out,
			  size_t max, uint64_t *dropped);
/* Copies interned string id into buf (up to cap bytes); returns its full length,
 * or -ENOENT. */
ssize_t store_str_get(struct store *st, uint32_t id, char *buf, size_t cap);
/* Strings refused by store_str_intern() (pool full or out of memory). */
uint64_t store_str_dropped(struct store *st);
/* Calls of store_str_intern() answered with the id of a 1 KiB prefix. */
uint64_t store_str_truncated(struct store *st);

/* Bytes of memory the store holds now (for the benchmarks). */
size_t store_mem_bytes(struct store *st);

#endif
