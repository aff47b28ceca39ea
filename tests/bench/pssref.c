/* pssref [-i MS] [-o FILE] [-t TRACE] [-x] -- COMMAND...: the reference for a process tree's
 * PSS, at a cost spacetime could not afford. Every MS ms (default 5) while
 * COMMAND runs, walks the tree (the children files of its threads, from
 * COMMAND down), sums its processes' smaps_rollup, and walks it again. Only a stable sweep counts for the peak: the same live processes (an
 * exiting process drops its mm before it is a zombie) before and after, and
 * their file + shmem RSS (statm) moved by at most 0.25% of the Pss total;
 * otherwise a fork, exit or mapping in the middle counted shared pages at two
 * sharing ratios. At COMMAND's exit writes one JSON line to FILE (default
 * stderr): peak_pss_kib, peak_pss_{anon,file,shmem}_kib, peak_rss_sum_kib (of
 * the peak sweep), max_rss_sum_kib, peak_nproc, peak_t_ms (from the fork),
 * peak_any_pss_kib (stable or not), sweeps, unstable_sweeps, mean_sweep_us,
 * max_sweep_us, wall_ms, peak_procs (the peak sweep's processes: pid, comm, pss,
 * anon, file, rss KiB); exits with COMMAND's status (128 + N: signal N).
 * -x leaves COMMAND's own process out (pssref -x -- spacetime -s -- BUILD:
 * the reference and spacetime on the same run).
 * TRACE gets one line per sweep: ms since the fork, PSS KiB, RSS KiB, stable.
 * No subreaper, as in spacetime; an exec mid-sweep is not detected. */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct total {
	uint64_t pss_kib, anon_kib, file_kib, shmem_kib, rss_kib;
	unsigned nproc;
};

/* The processes of the tree, refilled by each walk. */
struct proc {
	pid_t pid;
	int live; /* still has its memory (not exiting, not a zombie) */
};
static struct proc *procs;
static size_t nprocs, cap_procs;

/* What a sweep read of each process; the peak sweep's kept for the report. */
struct readp {
	pid_t pid;
	char comm[16];
	uint64_t pss_kib, anon_kib, file_kib, rss_kib;
};
static struct readp *reads, *peak_reads;
static size_t nreads, cap_reads, npeak_reads, cap_peak_reads;

static int keep_read(pid_t pid, const struct procfs_rollup *ro)
{
	if (nreads == cap_reads) {
		size_t cap = cap_reads ? 2 * cap_reads : 64;
		struct readp *p = realloc(reads, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		reads = p;
		cap_reads = cap;
	}
	reads[nreads++] = (struct readp){ .pid = pid, .pss_kib = ro->pss_kib, .anon_kib = ro->pss_anon_kib,
					  .file_kib = ro->pss_file_kib, .rss_kib = ro->rss_kib };
	return 0;
}

/* A new peak: its sweep's reads, with their processes' names (read now: a
 * few reads on a new peak only). */
static int keep_peak(void)
{
	char buf[64];

	if (cap_peak_reads < nreads) {
		struct readp *p = realloc(peak_reads, nreads * sizeof(*p));

		if (!p)
			return -ENOMEM;
		peak_reads = p;
		cap_peak_reads = nreads;
	}
	memcpy(peak_reads, reads, nreads * sizeof(*reads));
	npeak_reads = nreads;
	for (size_t i = 0; i < nreads; i++) {
		ssize_t n = procfs_read(reads[i].pid, "comm", buf, sizeof(buf) - 1);
		size_t k = 0;

		while (n > 0 && k < (size_t)n && k < sizeof(peak_reads[i].comm) - 1 && buf[k] != '\n' &&
		       buf[k] >= ' ' && buf[k] != '"' && buf[k] != '\\') {
			peak_reads[i].comm[k] = buf[k];
			k++;
		}
		peak_reads[i].comm[k] = 0;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int add_proc(pid_t pid)
{
	char buf[1024];
	struct procfs_stat st;
	ssize_t n = procfs_read(pid, "stat", buf, sizeof(buf));

	if (n < 0 || procfs_parse_stat(buf, (size_t)n, &st) < 0)
		return 0; /* just exited and reaped */
	if (nprocs == cap_procs) {
		size_t cap = cap_procs ? 2 * cap_procs : 256;
		struct proc *p = realloc(procs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		procs = p;
		cap_procs = cap;
	}
	procs[nprocs++] = (struct proc){
		.pid = pid,
		.live = st.state != 'Z' && st.state != 'X' && st.rss_pages > 0,
	};
	return 0;
}

/* Lists root and its descendants by walking the children files of every
 * thread (a few reads per process of the tree, not a stat of every process
 * on the machine: the reference must weigh on the build as little as it can,
 * or it measures a slower build than the one spacetime is compared on). A
 * process reparented out of the tree (to init) is lost, as it would be by
 * parent links. Returns 0 or -errno. */
static int scan_procs(pid_t root)
{
	static char *kbuf;
	static size_t kbuf_cap, kids_cap;
	static pid_t *kids;
	char path[64];
	int r;

	nprocs = 0;
	if ((r = add_proc(root)) < 0)
		return r;
	for (size_t i = 0; i < nprocs; i++) {
		pid_t pid = procs[i].pid;
		DIR *d;
		struct dirent *de;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		if (!(d = opendir(path)))
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			int fd = procfs_open(pid, (pid_t)atoi(de->d_name), "children");
			int k = fd >= 0 ? procfs_read_children(fd, &kbuf, &kbuf_cap, &kids, &kids_cap) : 0;

			if (fd >= 0)
				close(fd);
			for (int j = 0; j < k; j++)
				if ((r = add_proc(kids[j])) < 0) {
					closedir(d);
					return r;
				}
		}
		closedir(d);
	}
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* -x: the command is a measuring tool (spacetime) running the tree to
 * measure: its own process is left out of the sums, so that both measure the
 * same run at the same time. */
static int exclude_root;

/* Scans /proc and lists the live processes of root's tree, sorted, into
 * *live (grown as needed), and sums their shared (file + shmem) RSS into
 * *shared_kib. Returns their number or -errno. */
static ssize_t live_tree(pid_t root, pid_t **live, size_t *cap, uint64_t *shared_kib)
{
	size_t n = 0;
	char buf[256];
	int r = scan_procs(root);

	if (r < 0)
		return r;
	if (*cap < nprocs) {
		pid_t *p = realloc(*live, nprocs * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*live = p;
		*cap = nprocs;
	}
	*shared_kib = 0;
	for (size_t i = 0; i < nprocs; i++) {
		struct procfs_statm sm;
		ssize_t len;

		if (!procs[i].live || (exclude_root && procs[i].pid == root))
			continue;
		(*live)[n++] = procs[i].pid;
		len = procfs_read(procs[i].pid, "statm", buf, sizeof(buf));
		if (len >= 0 && procfs_parse_statm(buf, (size_t)len, &sm) == 0)
			*shared_kib += sm.shared_pages * (uint64_t)procfs_page_kib();
	}
	qsort(*live, n, sizeof(**live), cmp_pid);
	return (ssize_t)n;
}

/* One sweep: the tree of root now and the sum of its smaps_rollup. Returns 1
 * when stable (the same live processes before and after), 0 when not, or
 * -errno. */
static int sweep(pid_t root, struct total *t)
{
	static pid_t *before, *after;
	static size_t cap_before, cap_after;
	char buf[4096];
	uint64_t sh_before, sh_after, moved;
	ssize_t nb = live_tree(root, &before, &cap_before, &sh_before), na;

	if (nb < 0)
		return (int)nb;
	memset(t, 0, sizeof(*t));
	nreads = 0;
	for (ssize_t i = 0; i < nb; i++) {
		struct procfs_rollup ro;
		ssize_t n = procfs_read(before[i], "smaps_rollup", buf, sizeof(buf));

		if (n < 0 || procfs_parse_smaps_rollup(buf, (size_t)n, &ro) < 0)
			continue; /* exited, or a zombie with no memory left */
		t->pss_kib += ro.pss_kib;
		t->anon_kib += ro.pss_anon_kib;
		t->file_kib += ro.pss_file_kib;
		t->shmem_kib += ro.pss_shmem_kib;
		t->rss_kib += ro.rss_kib;
		t->nproc++;
		if (keep_read(before[i], &ro) < 0)
			return -ENOMEM;
	}
	na = live_tree(root, &after, &cap_after, &sh_after);
	if (na < 0)
		return (int)na;
	moved = sh_after > sh_before ? sh_after - sh_before : sh_before - sh_after;
	return na == nb && !memcmp(before, after, (size_t)nb * sizeof(*before)) &&
	       moved * 400 <= t->pss_kib;
}

int main(int argc, char **argv)
{
	long interval_ms = 5;
	const char *out_path = NULL;
	int opt;
	FILE *trace = NULL;

	while ((opt = getopt(argc, argv, "+i:o:t:x")) != -1) {
		char *end;

		switch (opt) {
		case 'x':
			exclude_root = 1;
			break;
		case 'i':
			errno = 0;
			interval_ms = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || interval_ms < 0 || interval_ms > 60000) {
				fprintf(stderr, "pssref: bad interval '%s' (ms, 0..60000)\n", optarg);
				return 2;
			}
			break;
		case 't':
			trace = fopen(optarg, "w");
			if (!trace) {
				fprintf(stderr, "pssref: cannot write %s: %s\n", optarg, strerror(errno));
				return 2;
			}
			break;
		case 'o':
			out_path = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc) {
usage:
		fputs("usage: pssref [-i MS] [-o FILE] [-t TRACE] [-x] -- COMMAND...\n", stderr);
		return 2;
	}

	FILE *out = stderr;
	if (out_path && !(out = fopen(out_path, "we"))) {
		fprintf(stderr, "pssref: cannot write %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	uint64_t t0 = now_ns();
	pid_t pid = fork();
	if (pid < 0) {
		perror("pssref: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "pssref: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}

	struct total peak = { 0 }, t;
	uint64_t peak_t_ns = 0, sweeps = 0, unstable = 0, sweep_ns = 0, max_sweep_ns = 0;
	uint64_t max_rss_kib = 0, peak_any_kib = 0, next = now_ns();
	int st;

	for (;;) {
		uint64_t s0 = now_ns(), s1;
		int r = sweep(pid, &t);

		if (r < 0) {
			fprintf(stderr, "pssref: cannot scan /proc: %s\n", strerror(-r));
			return 1;
		}
		s1 = now_ns();
		sweeps++;
		sweep_ns += s1 - s0;
		if (s1 - s0 > max_sweep_ns)
			max_sweep_ns = s1 - s0;
		if (t.pss_kib > peak_any_kib)
			peak_any_kib = t.pss_kib;
		unstable += !r;
		if (trace)
			fprintf(trace, "%.1f %" PRIu64 " %" PRIu64 " %d\n", (s0 - t0) / 1e6, t.pss_kib,
				t.rss_kib, r);
		if (r && t.pss_kib > peak.pss_kib) {
			peak = t;
			if (keep_peak() < 0) {
				fputs("pssref: out of memory\n", stderr);
				return 1;
			}
			peak_t_ns = s0 - t0;
		}
		if (r && t.rss_kib > max_rss_kib)
			max_rss_kib = t.rss_kib;

		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("pssref: waitpid");
			return 1;
		}
		next += (uint64_t)interval_ms * 1000000u;
		if (next < s1)
			next = s1; /* the sweep overran: sweep again at once */
		struct timespec ts = { (time_t)(next / 1000000000u), (long)(next % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	uint64_t wall_ns = now_ns() - t0;

	fprintf(out,
		"{\"peak_pss_kib\":%" PRIu64 ",\"peak_pss_anon_kib\":%" PRIu64
		",\"peak_pss_file_kib\":%" PRIu64 ",\"peak_pss_shmem_kib\":%" PRIu64
		",\"peak_rss_sum_kib\":%" PRIu64 ",\"max_rss_sum_kib\":%" PRIu64
		",\"peak_nproc\":%u,\"peak_t_ms\":%.1f,\"peak_any_pss_kib\":%" PRIu64
		",\"sweeps\":%" PRIu64 ",\"unstable_sweeps\":%" PRIu64
		",\"mean_sweep_us\":%.1f,\"max_sweep_us\":%.1f,\"wall_ms\":%.1f,\"peak_procs\":[",
		peak.pss_kib, peak.anon_kib, peak.file_kib, peak.shmem_kib, peak.rss_kib,
		max_rss_kib, peak.nproc, peak_t_ns / 1e6, peak_any_kib, sweeps, unstable,
		sweeps ? sweep_ns / 1e3 / sweeps : 0.0, max_sweep_ns / 1e3, wall_ns / 1e6);
	for (size_t i = 0; i < npeak_reads; i++)
		fprintf(out,
			"%s{\"pid\":%d,\"comm\":\"%s\",\"pss_kib\":%" PRIu64 ",\"anon_kib\":%" PRIu64
			",\"file_kib\":%" PRIu64 ",\"rss_kib\":%" PRIu64 "}",
			i ? "," : "", (int)peak_reads[i].pid, peak_reads[i].comm, peak_reads[i].pss_kib,
			peak_reads[i].anon_kib, peak_reads[i].file_kib, peak_reads[i].rss_kib);
	fputs("]}\n", out);
	if (out != stderr && fclose(out) != 0) {
		fprintf(stderr, "pssref: cannot write %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
