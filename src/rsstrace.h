/* rsstrace: every change of the tree's RSS counters as it happens, from the
 * kernel's kmem/rss_stat tracepoint (perf_event_open). Opened while
 * privileged (raw tracepoint samples need CAP_PERFMON, CAP_SYS_ADMIN or
 * perf_event_paranoid -1; the event's id is read from tracefs), on the
 * calling thread with inherit: every process it forks afterwards, and theirs,
 * is traced from its first page (a process attached to is not). One event and
 * ring per CPU; the collector drains them at its ticks. Records come with the
 * pid and thread of the task that changed a counter, the mm whose counter it
 * is (a hash of its address, as the kernel gives it: curr says whether it is
 * that task's own mm), which counter and its new value; and, from
 * sched:sched_process_exit in the same rings, each process's end (its mm is
 * torn down then, silently). */
#ifndef SPACETIME_RSSTRACE_H
#define SPACETIME_RSSTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The mm counters, as the kernel numbers them. */
enum { RSSTRACE_FILE = 0, RSSTRACE_ANON = 1, RSSTRACE_SWAP = 2, RSSTRACE_SHMEM = 3, RSSTRACE_MEMBERS = 4 };
/* A record that is no counter's: the process's last thread exited (the
 * kernel tears its mm down without a record of the counters falling). */
#define RSSTRACE_EXIT 4

struct rsstrace_rec {
	uint64_t t_ns;    /* CLOCK_MONOTONIC */
	int32_t pid;      /* the task's process (thread group) */
	uint32_t mm;      /* the mm's id */
	uint8_t curr;     /* mm is the task's own (else another's, or its own being torn down) */
	uint8_t member;   /* RSSTRACE_FILE .. RSSTRACE_SHMEM, or RSSTRACE_EXIT */
	uint8_t self;     /* the collector's own process: not the tree's (its copies
			   * into a child's mm tell that mm's first pages) */
	int64_t size_kib; /* the counter's new value */
};

/* Where the tracepoint's fields are in its raw record (from its format file:
 * kernels have moved them). */
struct rsstrace_fmt {
	int mm_off, mm_size, curr_off, curr_size, member_off, member_size, size_off, size_size;
	int raw_size; /* the record's fixed size */
	int id;       /* the tracepoint's id (common_type) */
};
/* Parses a tracefs format text. Returns 0, or -EINVAL when a field is
 * missing or not where it can be read. Pure. */
int rsstrace_fmt_parse(const char *text, struct rsstrace_fmt *f);
/* Where sched_process_exit's format has group_dead (the last thread of the
 * process exits), or -1 when it has none (a process then ends with its
 * leader thread). Pure. */
int rsstrace_group_dead_off(const char *text);
/* Decodes one raw record (n bytes) into r (t_ns and pid left as they are).
 * Returns 0, or -EINVAL when it is too short or names no counter. Pure. */
int rsstrace_decode(const struct rsstrace_fmt *f, const unsigned char *raw, size_t n, struct rsstrace_rec *r);

struct rsstrace;

#define RSSTRACE_WAKE_RECORDS 128

/* Opens the trace for the calling thread and every task it creates from now
 * on. Returns it, or NULL with errno: EACCES/EPERM (not privileged: no
 * CAP_PERFMON), ENOENT (no tracefs, or no such tracepoint), ENOMEM. */
struct rsstrace *rsstrace_open(void);
/* Drains the records of times up to until_ns (later ones stay for the next
 * call), marking those of pid self (the collector's own process), and
 * points *out at them, in time order (valid until the next call). Adds to
 * *lost the records the kernel could not keep (a ring full) or that found no
 * room here: an interval with any is not complete. Returns how many. */
size_t rsstrace_read(struct rsstrace *t, uint64_t until_ns, pid_t self, const struct rsstrace_rec **out,
		     uint64_t *lost);
/* The fds the collector waits on (at most max) into *fds: each CPU's ring,
 * readable each half ring written (a process touching anonymous memory as
 * fast as it can fills one in ~40 ms, and a ring full loses records: the
 * interval then bounds nothing), and the wake
 * events, one per CPU where the kernel takes a tracepoint filter, each
 * readable once RSSTRACE_WAKE_RECORDS records of a process's own file or
 * shared-memory pages came on its CPU since the last (a burst of them, as a
 * program maps a large library, wakes the collector between ticks;
 * anonymous pages and a fork's copies wake nobody but a ring filling).
 * CPU by CPU, whole CPUs only. Returns how many. */
size_t rsstrace_fds(const struct rsstrace *t, int *fds, size_t max);
/* Empties the wake events' rings (their records tell nothing more);
 * returns whether any held records, or a ring is a quarter full. */
int rsstrace_woken(struct rsstrace *t);
/* Stops tracing (every inherited copy with it) and frees t. NULL is fine. */
void rsstrace_close(struct rsstrace *t);
/* Why the trace could not be opened, in words a user can act on. */
const char *rsstrace_reason(int err);

#endif
