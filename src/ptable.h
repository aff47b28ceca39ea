/* ptable: the collector's table of live processes in the watched tree, keyed
 * by pid and start time, with the open /proc fds reused for every tick. */
#ifndef SPACETIME_PTABLE_H
#define SPACETIME_PTABLE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "coll_top.h"
#include "store.h"

struct pentry {
	struct proc_rec rec;      /* what is published to the store */
	uint64_t start_ticks;     /* stat starttime: with pid, the identity */
	int fork_seen;            /* rec.start_ns is its fork event's time (netlink),
				   * not when it was found */
	int fd_stat, fd_statm, fd_status, fd_smaps;
	/* PSS bookkeeping: the last smaps_rollup read and the RSS at that time */
	uint64_t pss_t_ns;        /* 0: never read */
	uint64_t rd_pss_anon, rd_pss_file, rd_pss_shmem;
	uint64_t rd_anon_rss, rd_shared_rss;
	uint64_t rd_private_kib, rd_faults; /* Private_* of the read; minflt + majflt then */
	uint64_t rd_swap, rd_thp, rd_locked; /* Swap, AnonHugePages, Locked of the read */
	uint64_t grow_base_kib, grow_base_ns, grow_kib; /* PSS growth over the last COLL_MEM_GROW_NS */
	uint64_t ts_wait_cpu_ns, ts_wait_io_ns; /* its tasks' delays, from their records */
	int rd_ok;                /* the rd_ fields hold a successful read */
	uint64_t rd_t_ns;         /* when it was made */
	/* what the rest of the tree did since the read (pssmodel.h): the
	 * collector's running totals of pages newly mapped and of shared parts
	 * of exits at the read, and this one's own part of the former since */
	uint64_t rd_dil_cum_kib, rd_ghost_cum_kib, own_dil_kib;
	/* what it stopped sharing since its read, already passed on as a ghost,
	 * and the ghosts it made itself (not its to inherit) */
	uint64_t released_given_kib, own_ghost_kib;
	int pss_denied;           /* smaps_rollup refused (ptrace access) */
	uint64_t prev_shared_kib;     /* shared RSS at the last tick */
	int dil_seen;             /* its pages are in the running total */
	int mm_gone;              /* a zombie: its memory has left the model */
	int mem_left;             /* exiting, its memory let go of (no RSS in its status
				   * before it is a zombie): left the model too */
	uint64_t left_part_kib;   /* its shares passed on then, pending its exit event */
	int vm_state;             /* PTABLE_VM_*: whether it runs in its parent's memory */
	int forked_since_read;    /* it forked a child since: its pages are shared now */
	uint64_t anon_rss, shared_rss; /* from the latest status, KiB */
	uint64_t mem_at_rss_pages;     /* stat's rss when status was last read */
	uint64_t mem_at_faults;        /* and its minflt + majflt */
	uint64_t inherit_max_kib;      /* not exec'd: at most this much of its anonymous RSS is
					* its parent's (UINT64_MAX: not known) */
	uint64_t exec_ns;              /* its last exec's time (0: none seen) */
	uint64_t hwm_kib;              /* no less than the most RSS of its program's life, up to its
					* last memory read (status: VmHWM; statm: that, and what it
					* had plus its faults' pages since) */
	uint64_t top_max_kib;          /* the most RSS it can have had since the last read */
	int mem_known;                 /* this tick read its memory (not exiting, not gone) */
	struct coll_top_proc top;      /* coll_top's: what the last tick saw of it */
	int top_gone;                  /* it left coll_top's reckoning (its record came) */
	uint64_t top_faults;           /* its minflt + majflt when coll_top last saw it */
	int hwm_read;                  /* hwm_kib holds (a status read, or its exec, since) */
	uint64_t est_anon_kib, est_file_kib, est_shmem_kib; /* the current estimate */
	uint32_t max_threads;
	int thread_forked;        /* a fork event told of a thread of it */
	int seen;                 /* poll mode: found in this scan */
	uint64_t gone_ns;         /* when /proc first failed to read it, or 0 */
	int exit_pending;         /* an exit event came; retired once /proc agrees */
	int exit_late;            /* its leader exited while threads lived on: the
				   * process ends when /proc says, not at the event */
	int exit_status_pending;
	uint64_t exit_ns;
	/* taskstats exit records of its tasks, summed (exact, unlike samples) */
	int ts_leader;            /* the main thread's record came: the figures hold */
	uint64_t ts_leader_seq;   /* its rank on the socket: a record after it whose
				   * parent is this pid is a later holder's child */
	uint64_t ts_utime_us, ts_stime_us, ts_minflt, ts_majflt, ts_hiwater_kib;
	char ts_comm[16];
	/* attached (collector_attach): its counters when it was found, so that
	 * the tree's CPU and faults count from the attach, not from its start */
	uint64_t base_utime_us, base_stime_us, base_minflt, base_majflt;
	/* its last per-process sample (store_push_proc_samples; 0: none yet) */
	uint64_t ps_t_ns, ps_pss_kib, ps_rss_kib;
	size_t unread_exec;       /* 1 + store index of its last exec if that exec's
				   * argv could not be read (named at the exit), else 0 */
};

/* A child started with CLONE_VM (vfork, posix_spawn) runs in its parent's
 * memory until it execs or exits: that memory is counted once, in the parent. */
enum { PTABLE_VM_UNKNOWN, PTABLE_VM_PARENTS, PTABLE_VM_OWN };

struct ptable;

struct ptable *ptable_new(void);
/* Closes every fd and frees the table. */
void ptable_free(struct ptable *pt);
/* The live entry for pid, or NULL. */
struct pentry *ptable_get(struct ptable *pt, pid_t pid);
/* Adds a zeroed entry for pid (fds -1); NULL + errno on failure. The pointer is
 * valid until the next add or remove. */
struct pentry *ptable_add(struct ptable *pt, pid_t pid);
/* Removes pid's entry, closing its fds. */
void ptable_remove(struct ptable *pt, pid_t pid);
/* Number of live entries and access by index (0..n-1) for iteration. */
size_t ptable_count(const struct ptable *pt);
struct pentry *ptable_at(struct ptable *pt, size_t i);
/* Closes the fds of an entry. */
void ptable_close_fds(struct pentry *e);

#endif
