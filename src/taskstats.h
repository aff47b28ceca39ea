/* taskstats: the kernel's per-task exit records (generic netlink family
 * "TASKSTATS"). taskstats_parse() is pure (bytes in, records out); the socket
 * functions register for the records of every CPU. */
#ifndef SPACETIME_TASKSTATS_H
#define SPACETIME_TASKSTATS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One exit record. The kernel sends an AGGR_PID record for every task that
 * ends, single-threaded processes included. When the last task of a process
 * that ever had several threads ends (not necessarily its main thread, which
 * may have ended earlier), the same message also carries an AGGR_TGID record:
 * its comm, exitcode, btime, faults, memory and I/O are always 0; utime,
 * stime, nvcsw and nivcsw are the sums over all the process's threads and
 * etime_us the sum of their lifetimes (not the process's wall time) on
 * kernels with "taskstats: retain dead thread stats in TGID queries" (2026,
 * in 6.18.44), 0 on older ones. */
struct taskstats_exit {
	pid_t pid, tgid;      /* the task; tgid its process (AGGR_TGID: both the process) */
	pid_t ppid;           /* ac_ppid: the process's parent when the task ended (0: unknown) */
	int aggr_tgid;        /* 1: a TASKSTATS_TYPE_AGGR_TGID record (a whole multi-threaded
			       * process ended); 0: TASKSTATS_TYPE_AGGR_PID (one task) */
	char comm[16];        /* ac_comm, NUL-terminated */
	uint32_t exitcode;    /* ac_exitcode: the task's wait(2) status (WEXITSTATUS, WTERMSIG) */
	uint64_t btime_s;     /* ac_btime64, else ac_btime: start, s since 1970 (0 if the
			       * record is too old a version to have it) */
	uint64_t etime_us;    /* ac_etime: elapsed wall time of the task */
	uint64_t utime_us, stime_us;   /* the task's own CPU time: the scheduler's exact
					* runtime (cpu_run_virtual_total), split as ac_utime
					* and ac_stime (whole ticks) split it */
	uint64_t minflt, majflt;       /* ac_minflt, ac_majflt */
	uint64_t hiwater_rss_kib, hiwater_vm_kib; /* hiwater_rss, hiwater_vm (KiB): peaks of
						   * the whole mm, shared by its threads */
	uint64_t read_bytes, write_bytes;        /* storage I/O bytes, rounded down to KiB */
	uint64_t nvcsw, nivcsw;                  /* context switches */
	/* time waited (ns), counted by the kernel only with delay accounting on
	 * (kernel.task_delayacct): for a CPU, block I/O, swapping in, reclaim
	 * (freepages), thrashing */
	uint64_t cpu_delay_ns, blkio_delay_ns, swapin_delay_ns, reclaim_delay_ns, thrashing_delay_ns;
	uint64_t seq;         /* the reader's: the record's rank on its socket (not parsed) */
};

/* Parses one datagram (may hold several netlink messages). Messages of other
 * families/types are skipped. Writes up to max records, returns how many, or
 * -EINVAL for a truncated/malformed buffer (records before the damage kept
 * and counted in *n_ok when n_ok != NULL), -ENOSPC when more than max
 * (likewise). Pure. buf must be 4-byte aligned, as any recv() buffer of a
 * netlink socket is. */
int taskstats_parse(const void *buf, size_t len, uint16_t family, struct taskstats_exit *out,
		    size_t max, size_t *n_ok);

/* What is known of the process a record's tgid names, to tell its own tasks'
 * records from those of another process that had, or has since, the same pid. */
struct taskstats_owner {
	uint64_t start_ns;   /* CLOCK_MONOTONIC: no task of it started more than
			      * TASKSTATS_SLACK_NS before this (its fork event); 0: unknown */
	uint64_t end_ns;     /* its exit event, no task of it started after; 0: none yet */
	pid_t ppid;          /* its parent */
	int parent_sure;     /* ppid is alive and still its parent: every task of it
			      * names ppid in ac_ppid */
	int ours;            /* the command spacetime started: no other process can have
			      * its pid until spacetime reaps it */
};

/* Clock readings and the kernel's work between a task's start and its fork
 * event, or its exit and the record's queueing, stay within this. */
#define TASKSTATS_SLACK_NS (20 * 1000000ull)

/* Whether exit record x can be a task of o. read_ns is when it was received,
 * after_ns when the socket was last found empty before that (0: unknown), both
 * CLOCK_MONOTONIC like the connector's events: the task ended in between, so
 * it started between after_ns - etime and read_ns - etime. Not o's if it
 * started before o was forked, started after o ended, or names another parent
 * while o's parent is known alive. Pure. */
int taskstats_belongs(const struct taskstats_exit *x, const struct taskstats_owner *o,
		      uint64_t after_ns, uint64_t read_ns);

/* Opens a non-blocking, close-on-exec generic netlink socket, resolves the
 * TASKSTATS family id (CTRL_CMD_GETFAMILY), sizes the receive buffer to
 * rcvbuf_bytes (SO_RCVBUFFORCE, else SO_RCVBUF), and registers for the exit
 * records of every online CPU (TASKSTATS_CMD_ATTR_REGISTER_CPUMASK with a
 * mask string such as "0-1" built from /sys/devices/system/cpu/online or
 * sysconf; a CPU brought online later is not covered), checking the kernel's ack (NLM_F_ACK). Needs CAP_NET_ADMIN: returns
 * -EPERM without it; -ENOENT when the kernel has no taskstats (or in a
 * non-initial network namespace, where the family is not visible);
 * -EOPNOTSUPP in a non-initial pid namespace, whose listeners the kernel
 * refuses; else the fd and *family set. A full receive buffer drops records and
 * makes the next recv() fail with ENOBUFS. */
/* rcvbuf_bytes passes rmem_max only with force (as nlproc_open). */
int taskstats_open(int rcvbuf_bytes, int force, uint16_t *family);
/* Deregisters (TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK) and closes. Without
 * CAP_NET_ADMIN (dropped since the open) the kernel refuses to deregister; it
 * then drops the listener itself at the first record that finds the socket
 * closed, on each CPU registered (the online ones). */
void taskstats_close(int fd, uint16_t family);

#endif
