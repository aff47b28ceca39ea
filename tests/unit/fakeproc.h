/* fakeproc.h: a fake /proc tree for the collector modules' unit tests (a
 * temporary directory laid out as /proc, passed as collector_config.proc_root)
 * and a clock the test sets. Header-only: each test file includes it once.
 *
 * Fake pids are above any pid_max in use here, so no real process answers
 * for them (kcmp(2) on them fails: their memory counts as their own). */
#ifndef SPACETIME_TEST_FAKEPROC_H
#define SPACETIME_TEST_FAKEPROC_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector_int.h"

#define FP_PID 4000000 /* fake pids start here: above any real one */

struct fakeproc {
	char root[64];
	uint64_t now_ns; /* the injected clock */
	struct store *st;
	struct collector *c;
};

/* The test's clock: whatever the test set. */
static inline uint64_t fp_clock(void *ctx)
{
	return ((struct fakeproc *)ctx)->now_ns;
}

/* mkdir -p for a path under the root (the last component included). */
static inline void fp_mkdirs(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

/* Writes ROOT/REL (its directories made) with len bytes of data. */
static inline void fp_write(struct fakeproc *f, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX], dir[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", f->root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	fp_mkdirs(dir);
	FILE *fp = fopen(path, "w");
	if (!fp)
		abort();
	fwrite(data, 1, len, fp);
	fclose(fp);
}

/* Writes a file from a format. */
__attribute__((format(printf, 3, 4)))
static inline void fp_printf(struct fakeproc *f, const char *rel, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fp_write(f, rel, buf, (size_t)n);
}

/* What a fake process's stat says. */
struct fp_stat {
	pid_t ppid;
	const char *comm;
	char state;           /* 0: 'S' */
	uint64_t minflt, majflt, utime_ticks, stime_ticks;
	uint32_t threads;     /* 0: 1 */
	uint64_t start_ticks; /* since boot, on the fake clock */
	uint64_t rss_pages;
};

/* Writes PID/stat in the kernel's layout (52 fields). */
static inline void fp_stat(struct fakeproc *f, pid_t pid, const struct fp_stat *s)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
	fp_printf(f, rel,
		  "%d (%s) %c %d %d %d 0 -1 4194304 %" PRIu64 " 0 %" PRIu64 " 0 %" PRIu64 " %" PRIu64
		  " 0 0 20 0 %u 0 %" PRIu64 " 2990080 %" PRIu64
		  " 18446744073709551615 1 1 1 0 0 0 0 6 0 1 0 0 17 1 0 0 0 0 0 1 1 1 1 1 1 1 0\n",
		  (int)pid, s->comm ? s->comm : "fake", s->state ? s->state : 'S', (int)s->ppid, (int)pid,
		  (int)pid, s->minflt, s->majflt, s->utime_ticks, s->stime_ticks, s->threads ? s->threads : 1,
		  s->start_ticks, s->rss_pages);
}

/* Writes PID/status with these figures (KiB): RSS and its split, and the
 * high-water mark. */
static inline void fp_status(struct fakeproc *f, pid_t pid, uint64_t rss, uint64_t file, uint64_t hwm)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/status", (int)pid);
	fp_printf(f, rel,
		  "Name:\tfake\nState:\tS (sleeping)\nVmHWM:\t%8" PRIu64 " kB\nVmRSS:\t%8" PRIu64
		  " kB\nRssAnon:\t%8" PRIu64 " kB\nRssFile:\t%8" PRIu64 " kB\nRssShmem:\t       0 kB\n",
		  hwm > rss ? hwm : rss, rss, rss - file, file);
}

/* Writes PID/statm, and PID/status to match (pages; the high-water mark is
 * the RSS: a process that only grows). */
static inline void fp_statm(struct fakeproc *f, pid_t pid, uint64_t size, uint64_t resident, uint64_t shared)
{
	char rel[64];
	uint64_t pk = (uint64_t)procfs_page_kib();

	snprintf(rel, sizeof(rel), "%d/statm", (int)pid);
	fp_printf(f, rel, "%" PRIu64 " %" PRIu64 " %" PRIu64 " 5 0 89 0\n", size, resident, shared);
	fp_status(f, pid, resident * pk, (shared > resident ? resident : shared) * pk, resident * pk);
}

/* Writes PID/smaps_rollup with these figures (KiB). */
static inline void fp_rollup(struct fakeproc *f, pid_t pid, uint64_t rss, uint64_t anon, uint64_t pss_anon,
			     uint64_t pss_file, uint64_t pss_shmem, uint64_t private_kib)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/smaps_rollup", (int)pid);
	fp_printf(f, rel,
		  "5652a31dc000-7ffc18c2e000 ---p 00000000 00:00 0                          [rollup]\n"
		  "Rss:            %8" PRIu64 " kB\nPss:            %8" PRIu64 " kB\n"
		  "Pss_Anon:       %8" PRIu64 " kB\nPss_File:       %8" PRIu64 " kB\n"
		  "Pss_Shmem:      %8" PRIu64 " kB\nShared_Clean:          0 kB\n"
		  "Private_Clean:         0 kB\nPrivate_Dirty:  %8" PRIu64 " kB\n"
		  "Anonymous:      %8" PRIu64 " kB\nSwap:                  0 kB\n",
		  rss, pss_anon + pss_file + pss_shmem, pss_anon, pss_file, pss_shmem, private_kib, anon);
}

/* Writes PID/task/TID/children (a space-separated list, as the kernel's). */
static inline void fp_children(struct fakeproc *f, pid_t pid, pid_t tid, const char *kids)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "%d/task/%d/children", (int)pid, (int)tid);
	fp_printf(f, rel, "%s", kids);
}

/* Writes PID/cmdline from NUL-separated args. */
static inline void fp_cmdline(struct fakeproc *f, pid_t pid, const char *args, size_t len)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/cmdline", (int)pid);
	fp_write(f, rel, args, len);
}

/* Removes a file or directory, emptying a file first: the collector may
 * keep it open, and a kept fd of a process gone reads nothing. */
static int fp_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_F && truncate(path, 0) < 0)
		return -1;
	return remove(path);
}

/* Removes ROOT/PID: the process is gone. */
static inline void fp_gone(struct fakeproc *f, pid_t pid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%d", f->root, (int)pid);
	nftw(path, fp_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Makes the fake root and a collector reading it on the fake clock, in
 * netlink or poll mode (no socket: the mode is set, the thread never runs). */
static inline struct fakeproc *fp_new(int netlink)
{
	struct fakeproc *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	snprintf(f->root, sizeof(f->root), "/tmp/st-fakeproc-XXXXXX");
	if (!mkdtemp(f->root))
		abort();
	f->now_ns = 1000000000ull; /* 1 s after boot */
	/* per-process samples kept (a test sets c->cfg.proc_samples to push them) */
	f->st = store_new(&(struct store_config){.proc_samples_len = 1024});
	struct collector_config cc = {.interval_ms = 100, .budget = 0.01, .nl_fd = -1, .nl_quiet_fd = -1,
				      .ts_fd = -1, .proc_root = f->root, .clock_ns = fp_clock, .clock_ctx = f};
	f->c = collector_new(f->st, &cc);
	if (!f->st || !f->c)
		abort();
	if (netlink)
		f->c->sum.mode = COLLECTOR_NETLINK;
	return f;
}

static inline void fp_free(struct fakeproc *f)
{
	collector_free(f->c);
	store_free(f->st);
	nftw(f->root, fp_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
}

/* Clock ticks of the fake clock at t_ns (stat's starttime). */
static inline uint64_t fp_ticks(uint64_t t_ns)
{
	return t_ns / (1000000000ull / (uint64_t)procfs_hz());
}

#endif
