/* procfs: readers for /proc/PID files. The parse functions are pure (bytes in,
 * struct out) so they are tested from fixtures; the I/O helpers reuse fds. */
#ifndef SPACETIME_PROCFS_H
#define SPACETIME_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* From smaps_rollup. Fields absent from the text keep their valid bit clear. */
enum {
	PROCFS_ROLLUP_RSS = 1u << 0,
	PROCFS_ROLLUP_PSS = 1u << 1,
	PROCFS_ROLLUP_SPLIT = 1u << 2, /* Pss_Anon/Pss_File/Pss_Shmem (kernel >= 5.7) */
	PROCFS_ROLLUP_SWAP = 1u << 3,
	PROCFS_ROLLUP_ANON = 1u << 4,  /* anon_kib: the Anonymous line */
	PROCFS_ROLLUP_PRIVATE = 1u << 5, /* private_kib: Private_Clean + Private_Dirty */
	PROCFS_ROLLUP_THP = 1u << 6,   /* thp_kib: AnonHugePages */
	PROCFS_ROLLUP_LOCKED = 1u << 7, /* locked_kib: Locked */
};
struct procfs_rollup {
	uint64_t rss_kib, pss_kib, pss_anon_kib, pss_file_kib, pss_shmem_kib, swap_kib;
	uint64_t anon_kib; /* resident anonymous memory: Rss - anon_kib is file + shmem */
	uint64_t private_clean_kib, private_dirty_kib;
	uint64_t private_kib; /* pages only this process maps: Pss - private_kib is its
			       * share of pages others map too */
	uint64_t thp_kib, locked_kib; /* in transparent huge pages; mlock()ed */
	uint32_t valid;
};
/* Parses smaps_rollup text. Returns 0, or -EINVAL when no Pss line is present. */
int procfs_parse_smaps_rollup(const char *buf, size_t len, struct procfs_rollup *out);

/* From /proc/PID/stat (the fields spacetime uses). Times in clock ticks. */
struct procfs_stat {
	pid_t pid, ppid, pgrp;
	char comm[16];
	char state;
	uint32_t tty_nr; /* the controlling terminal's device number (0: none) */
	uint64_t minflt, majflt;
	uint64_t utime_ticks, stime_ticks;
	uint32_t num_threads;
	uint64_t starttime_ticks;
	uint64_t rss_pages;
};
/* Whether the process of a parsed stat has ended: a zombie (or dead) whose
 * threads are all gone. A zombie leader with live threads is a process that
 * goes on: its main thread called pthread_exit, or another thread is in
 * exec (the leader's "exit" comes first, then the exec takes its pid). */
int procfs_stat_ended(const struct procfs_stat *ps);
/* Parses a stat line; comm may hold spaces and parentheses (the last ')' ends
 * it). Returns 0 or -EINVAL. */
int procfs_parse_stat(const char *buf, size_t len, struct procfs_stat *out);

/* The bounds of the command-line area in the process's memory (stat fields
 * 48 and 49, arg_start and arg_end: 0 when the reader may not see them).
 * Returns 0 or -EINVAL (a line without them). */
int procfs_parse_stat_args(const char *buf, size_t len, uint64_t *start, uint64_t *end);

struct procfs_statm {
	uint64_t size_pages, resident_pages, shared_pages, text_pages, data_pages;
};
/* Parses /proc/PID/statm. Returns 0 or -EINVAL. */
int procfs_parse_statm(const char *buf, size_t len, struct procfs_statm *out);

/* What /proc/PID/status says of memory (KiB); a field whose bit is clear was
 * not there (a kernel thread, a zombie: no Vm* lines at all). */
enum {
	PROCFS_STATUS_HWM = 1u << 0,   /* hwm_kib: VmHWM, the high-water RSS of its life */
	PROCFS_STATUS_RSS = 1u << 1,   /* rss_kib: VmRSS */
	PROCFS_STATUS_SPLIT = 1u << 2, /* anon, file, shmem (RssAnon, RssFile, RssShmem) */
};
struct procfs_status {
	uint64_t hwm_kib, rss_kib, anon_kib, file_kib, shmem_kib;
	unsigned valid;
};
/* Parses /proc/PID/status: the lines above, each "Key:<blanks>N kB"; other
 * lines are skipped. Returns 0 (valid says what was found) or -EINVAL for a
 * malformed line of those. Pure. */
int procfs_parse_status(const char *buf, size_t len, struct procfs_status *out);

/* Parses a children file ("12 34 56 "): up to max pids into out. Returns the
 * number found (may exceed max), or -EINVAL on garbage. */
int procfs_parse_children(const char *buf, size_t len, pid_t *out, size_t max);

/* Opens /proc/PID/NAME (or /proc/PID/task/TID/NAME when tid > 0) read-only,
 * close-on-exec. Returns the fd or -errno (-ENOENT: the process is gone). */
int procfs_open(pid_t pid, pid_t tid, const char *name);
/* The same under root, a directory laid out as /proc (NULL: "/proc"): a
 * test's fake /proc tree. */
int procfs_open_at(const char *root, pid_t pid, pid_t tid, const char *name);
/* Reads the whole file behind fd from offset 0 into buf (NUL-terminated, at
 * most cap - 1 bytes). Returns the length or -errno (-ESRCH: the process is
 * gone). */
ssize_t procfs_pread(int fd, char *buf, size_t cap);
/* The same for a file the kernel writes whole in one read when the buffer is
 * big enough (stat, statm, smaps_rollup, cmdline; not children, maps or
 * smaps): a read that returns less than asked is all of it, which saves the
 * read that would only see the end. */
ssize_t procfs_pread_once(int fd, char *buf, size_t cap);
/* One-shot read of /proc/PID/NAME (a file of the kind procfs_pread_once
 * reads) into buf. Returns the length or -errno. */
ssize_t procfs_read(pid_t pid, const char *name, char *buf, size_t cap);
/* The same under root (NULL: "/proc"). */
ssize_t procfs_read_at(const char *root, pid_t pid, const char *name, char *buf, size_t cap);

/* Reads the whole children file behind fd (any size: 1,000 children pass
 * 8 KiB) and parses it. *buf and *pids are grown with realloc as needed
 * (*buf_cap bytes, *pids_cap pids; both may start NULL and 0) and kept for
 * the next call; the caller frees them. Returns the number of pids, all in
 * *pids, or -errno (-EINVAL on garbage, -ENOMEM). */
int procfs_read_children(int fd, char **buf, size_t *buf_cap, pid_t **pids, size_t *pids_cap);

/* Clock ticks per second and page size, looked up once. */
long procfs_hz(void);
/* Whether a stat starttime (start_ticks, clock ticks of hz since boot) fits a
 * process forked at boot_ns (CLOCK_BOOTTIME ns, e.g. a connector fork event's
 * CLOCK_MONOTONIC time plus BOOTTIME - MONOTONIC), within slack_ns: the kernel
 * stores the start in ns and /proc rounds it down to a tick. A process that
 * got the pid later (the one forked ended, the pid was reused) does not fit.
 * Pure. */
int procfs_started_near(uint64_t start_ticks, long hz, uint64_t boot_ns, uint64_t slack_ns);
long procfs_page_kib(void);

#endif
