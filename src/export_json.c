/* export_json.c: the summary JSON object and the full snapshot. */
#include "export_json.h"
#include "peak.h"

#include "export.h"
#include "exitcode.h"
#include "export_jobs.h"
#include "jobname.h"
#include "compare.h"
#include "jsonw.h"
#include "oomkill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

/* Writes "job": the job name of an argv blob (or of comm), null when
 * neither is known. */
static void write_job(FILE *f, const char *argv, size_t len, const char comm[16], int *first)
{
	char c[17], job[JOBNAME_MAX + 1];

	memcpy(c, comm, 16);
	c[16] = '\0';
	size_t n = jobname(argv, len, c, job, sizeof(job));
	jsonw_key(f, "job", first);
	if (n)
		jsonw_str(f, job, n);
	else
		fputs("null", f);
}

/* Writes the execs array, reading argv strings from the pool. */
static void write_execs(FILE *f, struct store *st, uint64_t start_ns)
{
	struct store_exec ex[256];
	char *buf = malloc(65536);
	size_t total = store_execs(st, 0, NULL, 0);

	fputc('[', f);
	for (size_t i = 0; i < total && buf;) {
		size_t n = store_execs(st, i, ex, 256);
		if (n > 256)
			n = 256;
		if (i + n > total)
			n = total - i;
		for (size_t j = 0; j < n; j++) {
			int first = 1;
			fputs(i + j ? ",{" : "{", f);
			jsonw_i64(f, "pid", ex[j].pid, &first);
			jsonw_i64(f, "ppid", ex[j].ppid, &first);
			jsonw_u64(f, "t_us", ex[j].t_ns > start_ns ? (ex[j].t_ns - start_ns) / 1000 : 0,
				  &first);
			jsonw_key(f, "comm", &first);
			jsonw_str(f, ex[j].comm, strnlen(ex[j].comm, sizeof(ex[j].comm)));
			jsonw_key(f, "argv", &first);
			ssize_t len = ex[j].argv_id ? store_str_get(st, ex[j].argv_id, buf, 65536) : -1;
			if (len > 65536)
				len = 65536;
			if (len >= 0)
				jsonw_argv(f, buf, (size_t)len);
			else
				fputs("null", f);
			write_job(f, len > 0 ? buf : NULL, len > 0 ? (size_t)len : 0, ex[j].comm, &first);
			fputc('}', f);
		}
		if (n == 0)
			break;
		i += n;
	}
	fputc(']', f);
	free(buf);
}

/* Writes "key":v, or "key":null when the value is unknown. */
static void snap_u64(FILE *f, const char *key, uint64_t v, int known, int *first)
{
	if (known)
		jsonw_u64(f, key, v, first);
	else {
		jsonw_key(f, key, first);
		fputs("null", f);
	}
}

/* "pressure": the share of the run's wall time stalled (PSI), where from;
 * null where the kernel has no PSI or the run was recorded without it. */
static void write_pressure(FILE *f, const struct store_summary *s, uint64_t end, int *first)
{
	double wall_us = end > s->start_ns ? (double)(end - s->start_ns) / 1e3 : 0;

	jsonw_key(f, "pressure", first);
	if (!s->psi || !(wall_us > 0)) {
		fputs("null", f);
		return;
	}
	fprintf(f,
		"{\"source\": \"%s\", \"memory_some_pct\": %.3f, \"memory_full_pct\": %.3f, \"memory_max_pct\": %.1f, "
		"\"cpu_some_pct\": %.3f, \"io_some_pct\": %.3f}",
		s->psi == 2 ? "cgroup" : "machine", 100.0 * (double)s->psi_mem_us / wall_us,
		100.0 * (double)s->psi_mem_full_us / wall_us, s->psi_mem_max_pm / 10.0,
		100.0 * (double)s->psi_cpu_us / wall_us, 100.0 * (double)s->psi_io_us / wall_us);
}

/* "memory_left": what was left before the machine or the cgroup's limit ran
 * out, at the least, and whether it ran low (null: not known). */
static void write_memleft(FILE *f, const struct store_summary *s, int *first)
{
	int in = 1;

	jsonw_key(f, "memory_left", first);
	if (!s->mem_of_kib) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	jsonw_key(f, "by", &in);
	fputs(s->mem_by_cgroup ? "\"cgroup\"" : "\"machine\"", f);
	jsonw_u64(f, "of_kib", s->mem_of_kib, &in);
	jsonw_u64(f, "min_kib", s->mem_min_left_kib, &in);
	jsonw_u64(f, "min_us", s->mem_min_left_t_ns > s->start_ns ? (s->mem_min_left_t_ns - s->start_ns) / 1000 : 0, &in);
	jsonw_u64(f, "low_ticks", s->mem_low_ticks, &in);
	snap_u64(f, "low_first_us", s->mem_low_first_ns > s->start_ns ? (s->mem_low_first_ns - s->start_ns) / 1000 : 0,
		 s->mem_low_first_ns != 0, &in);
	jsonw_key(f, "growing", &in);
	fputc('[', f);
	for (int k = 0; k < STORE_MEM_GROWERS && s->mem_grow_pid[k]; k++)
		fprintf(f, "%s{\"pid\": %d, \"grew_kib\": %llu}", k ? ", " : "", (int)s->mem_grow_pid[k],
			(unsigned long long)s->mem_grow_kib[k]);
	fputs("]}", f);
}

/* Writes the processes of the tree the OOM killer killed (oomkill.h):
 * [{pid, comm, job, end_us}]. */
static void write_oom_killed(FILE *f, struct store *st, const struct store_summary *s)
{
	size_t n = s->oom_kills ? store_procs(st, STORE_PROCS_ALL, NULL, 0) : 0, k = 0;
	struct proc_rec *p = n ? calloc(n, sizeof(*p)) : NULL;
	enum { CAP = 65536 };
	char *buf = n ? malloc(CAP) : NULL;

	fputc('[', f);
	n = p && buf ? store_procs(st, STORE_PROCS_ALL, p, n) : 0;
	for (size_t i = 0; i < n; i++) {
		const struct proc_rec *r = &p[i];
		int first = 1;
		if (!oomkill_of(s, r))
			continue;
		fputs(k++ ? ",{" : "{", f);
		jsonw_u64(f, "pid", (uint64_t)r->pid, &first);
		jsonw_key(f, "comm", &first);
		jsonw_str(f, r->comm, strnlen(r->comm, sizeof(r->comm)));
		ssize_t len = r->argv_id && (r->valid & PROC_V_ARGV) ? store_str_get(st, r->argv_id, buf, CAP) : -1;
		write_job(f, len > 0 ? buf : NULL, len > 0 ? ((size_t)len < CAP ? (size_t)len : CAP) : 0, r->comm,
			  &first);
		jsonw_u64(f, "end_us", r->end_ns > s->start_ns ? (r->end_ns - s->start_ns) / 1000 : 0, &first);
		fputc('}', f);
	}
	fputc(']', f);
	free(buf);
	free(p);
}

/* "programs": each program's processes together, by memory-seconds (their
 * PSS over their lives, summed): [{name, processes, cpu_us, peak_pss_kib,
 * pss_mib_s}], the EXPORT_TOP_JSON largest. */
static void write_programs(FILE *f, struct store *st)
{
	struct compare_prog *p = NULL;
	struct store *const one[1] = {st};
	ssize_t n = compare_programs(one, 1, NULL, 0, &p);

	fputc('[', f);
	for (ssize_t i = 0; i < n && i < EXPORT_TOP_JSON; i++) {
		const struct compare_prog_fig *g = &p[i].side[0];
		int first = 1;
		fputs(i ? ",{" : "{", f);
		jsonw_key(f, "name", &first);
		jsonw_str(f, p[i].name, strnlen(p[i].name, sizeof(p[i].name)));
		jsonw_u64(f, "processes", g->count, &first);
		jsonw_u64(f, "cpu_us", g->cpu_us, &first);
		jsonw_u64(f, "peak_pss_kib", g->peak_pss_kib, &first);
		jsonw_key(f, "pss_mib_s", &first);
		fprintf(f, "%.3f", (double)g->kib_s / 1024);
		fputc('}', f);
	}
	fputc(']', f);
	free(p);
}

/* Writes the processes that outlived the command: [{pid, comm, argv, peak_pss_kib,
 * start_us, end_us (null: running when the run ended)}]. */
static void write_outlived(FILE *f, struct store *st, const struct store_summary *s)
{
	size_t n = store_procs(st, STORE_PROCS_ALL, NULL, 0), k = 0;
	struct proc_rec *p = n ? calloc(n, sizeof(*p)) : NULL;
	enum { CAP = 65536 };
	char *buf = malloc(CAP);

	fputc('[', f);
	if (p && buf && s->root_end_ns) {
		n = store_procs(st, STORE_PROCS_ALL, p, n);
		for (size_t i = 0; i < n; i++) {
			const struct proc_rec *r = &p[i];
			int first = 1;
			if (r->end_ns && r->end_ns <= s->root_end_ns)
				continue;
			fputs(k++ ? ",{" : "{", f);
			jsonw_u64(f, "pid", (uint64_t)r->pid, &first);
			jsonw_key(f, "comm", &first);
			jsonw_str(f, r->comm, strnlen(r->comm, sizeof(r->comm)));
			jsonw_key(f, "argv", &first);
			ssize_t len = r->argv_id ? store_str_get(st, r->argv_id, buf, CAP) : -1;
			if (len >= 0)
				jsonw_argv(f, buf, (size_t)len < CAP ? (size_t)len : CAP);
			else
				fputs("null", f);
			if (!(r->valid & PROC_V_ARGV))
				len = -1; /* the parent's, inherited: not its job */
			write_job(f, len > 0 ? buf : NULL, len > 0 ? ((size_t)len < CAP ? (size_t)len : CAP) : 0,
				  r->comm, &first);
			snap_u64(f, "peak_pss_kib", r->peak_pss_kib, (r->valid & PROC_V_PSS) != 0, &first); /* null: never read */
			jsonw_u64(f, "start_us", r->start_ns > s->start_ns ? (r->start_ns - s->start_ns) / 1000 : 0, &first);
			snap_u64(f, "end_us", r->end_ns > s->start_ns ? (r->end_ns - s->start_ns) / 1000 : 0, r->end_ns != 0,
				 &first);
			fputc('}', f);
		}
	}
	fputc(']', f);
	free(buf);
	free(p);
}

/* The heaviest processes by peak PSS or CPU time: [{job, pid, peak_pss_kib,
 * cpu_us}], heaviest first, an unknown figure null. */
/* Each of the n processes' memory-seconds (its PSS over its life), MiB-s. */
static void top_mib_seconds(struct store *st, const struct proc_rec *top, long n, double *mib_s)
{
	uint64_t ids[EXPORT_TOP_JSON], ends[EXPORT_TOP_JSON];
	double kib_s[EXPORT_TOP_JSON] = {0};
	long order[EXPORT_TOP_JSON];

	/* compare_kib_seconds takes the ids sorted */
	for (long i = 0; i < n; i++)
		order[i] = i;
	for (long i = 1; i < n; i++)
		for (long j = i; j > 0 && top[order[j - 1]].id > top[order[j]].id; j--) {
			long x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (long i = 0; i < n; i++) {
		ids[i] = top[order[i]].id;
		ends[i] = top[order[i]].end_ns;
	}
	if (n > 0 && compare_kib_seconds(st, ids, ends, (size_t)n, kib_s) < 0)
		memset(kib_s, 0, sizeof(kib_s));
	for (long i = 0; i < n; i++)
		mib_s[order[i]] = kib_s[i] / 1024;
}

static void write_top_jobs(FILE *f, struct store *st, enum export_top_by by)
{
	struct proc_rec top[EXPORT_TOP_JSON];
	long n = export_top_procs(st, by, top, EXPORT_TOP_JSON);
	char *buf = NULL, job[JOBNAME_MAX + 1];
	size_t cap = 0;
	double mib_s[EXPORT_TOP_JSON];

	top_mib_seconds(st, top, n, mib_s);
	fputc('[', f);
	for (long i = 0; i < n; i++) {
		const struct proc_rec *r = &top[i];
		int first = 1;
		size_t len = export_proc_job(st, r, &buf, &cap, job, sizeof(job));
		fputs(i ? ",{" : "{", f);
		jsonw_key(f, "job", &first);
		if (len)
			jsonw_str(f, job, len);
		else
			fputs("null", f);
		jsonw_i64(f, "pid", r->pid, &first);
		snap_u64(f, "peak_pss_kib", r->peak_pss_kib, r->valid & PROC_V_PSS, &first);
		snap_u64(f, "cpu_us", r->utime_us + r->stime_us, r->valid & PROC_V_CPU, &first);
		snap_u64(f, "majflt", r->majflt, r->valid & PROC_V_FAULTS, &first);
		jsonw_key(f, "pss_mib_s", &first);
		fprintf(f, "%.3f", mib_s[i]);
		fputc('}', f);
	}
	fputc(']', f);
	free(buf);
}

/* Where the rusage figures come from and how far they go: "wait4" (exact:
 * the kernel's sum over the command and what it waited for) or "attached"
 * (partial: the processes seen, since the attach; unknown: what only wait4
 * has); the attached pids, and whether the run ended by a detach. */
static void write_rusage_source(FILE *f, const struct store_summary *s, int *first)
{
	static const char *keys[] = {"user_us", "sys_us", "minflt", "majflt", "peak_rss_kib",
				     "nvcsw", "nivcsw", "inblock", "oublock"};
	int kf = 1;

	jsonw_key(f, "rusage_source", first);
	fputs(s->attached ? "\"attached\"" : "\"wait4\"", f);
	jsonw_key(f, "rusage_figures", first);
	fputc('{', f);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		jsonw_key(f, keys[i], &kf);
		fputs(!s->attached ? "\"exact\"" : i < 5 ? "\"partial\"" : "\"unknown\"", f);
	}
	fputc('}', f);
	jsonw_key(f, "attached", first);
	fputs(s->attached ? "true" : "false", f);
	jsonw_key(f, "attached_pids", first);
	fputc('[', f);
	for (uint32_t i = 0; i < s->attach_n && i < STORE_ATTACH_MAX; i++)
		fprintf(f, "%s%d", i ? "," : "", (int)s->attach_pid[i]);
	fputc(']', f);
	jsonw_key(f, "detached", first);
	fputs(s->detached ? "true" : "false", f);
	snap_u64(f, "cpu_before_attach_us", s->attach_prior_cpu_us, s->attached, first);
}

int export_json_summary(FILE *f, struct store *st, char *const argv[])
{
	struct store_summary s;

	store_summary_get(st, &s);
	return export_json_summary_of(f, st, &s, argv);
}

/* The run: the command, how it was watched, how it ended, its times. */
static void write_run(FILE *f, const struct store_summary *sp, char *const argv[], int *first)
{
	const struct store_summary s = *sp;
	uint64_t end = s.end_ns ? s.end_ns : s.last.t_ns;

	jsonw_u64(f, "version", EXPORT_JSON_VERSION, first);
	jsonw_key(f, "command", first);
	fputc('[', f);
	for (int i = 0; argv[i]; i++) {
		if (i)
			fputc(',', f);
		jsonw_str(f, argv[i], strlen(argv[i]));
	}
	fputc(']', f);
	jsonw_key(f, "mode", first);
	fputs(s.mode == STORE_MODE_NETLINK ? "\"netlink\"" : "\"poll\"", f);
	jsonw_key(f, "finished", first);
	fputs(s.exited || (s.attached && s.end_ns && !s.detached) ? "true" : "false", f);
	jsonw_key(f, "exit_status", first);
	if (s.exited)
		fprintf(f, "%d", exitcode_of(s.wait_status));
	else
		fputs("null", f);
	jsonw_key(f, "signal", first);
	if (s.exited && WIFSIGNALED(s.wait_status))
		fprintf(f, "%d", WTERMSIG(s.wait_status));
	else
		fputs("null", f);
	jsonw_u64(f, "wall_us", end > s.start_ns ? (end - s.start_ns) / 1000 : 0, first);
	jsonw_u64(f, "user_us", s.exited ? s.ru_utime_us : s.last.utime_us, first);
	jsonw_u64(f, "sys_us", s.exited ? s.ru_stime_us : s.last.stime_us, first);
}

/* The peak PSS: its figure, split and instant, what kind of figure it is
 * and how far the truth can be from it (peak.h). */
static void write_peak(FILE *f, const struct store_summary *sp, int *first)
{
	const struct store_summary s = *sp;

	/* a command that ended before any sample saw it has no measured PSS */
	int pss = s.peak.pss_kib > 0;
	snap_u64(f, "peak_pss_bytes", s.peak.pss_kib * 1024, pss, first);
	snap_u64(f, "peak_pss_t_us", s.peak.t_ns > s.start_ns ? (s.peak.t_ns - s.start_ns) / 1000 : 0,
		 pss, first);
	snap_u64(f, "peak_pss_anon_bytes", s.peak.pss_anon_kib * 1024, pss, first);
	snap_u64(f, "peak_pss_file_bytes", s.peak.pss_file_kib * 1024, pss, first);
	snap_u64(f, "peak_pss_shmem_bytes", s.peak.pss_shmem_kib * 1024, pss, first);
	struct peak pk;
	peak_of(&s, &pk);
	/* true only when the true peak's instant was read (peak.h) */
	jsonw_key(f, "peak_pss_measured", first);
	fputs(!pss ? "null" : pk.read ? "true" : "false", f);
	jsonw_key(f, "peak_pss_sum_of_reads", first);
	fputs(!pss ? "null" : pk.sum_of_reads ? "true" : "false", f);
	/* no instant of the tree above it, between samples included (null:
	 * unknown, processes left between samples without taskstats) */
	snap_u64(f, "peak_pss_bound_bytes", pk.bound_kib * 1024, pss && pk.bound_known, first);
	jsonw_key(f, "peak_pss_at_exit", first);
	if (pss && pk.at_exit_pid)
		fprintf(f, "{\"pid\": %d, \"processes\": %u}", pk.at_exit_pid, pk.at_exit_tops);
	else
		fputs("null", f);
	/* the figure is an unsure tick's floor (peak.h) */
	jsonw_key(f, "peak_pss_floor", first);
	fputs(!pss ? "null" : pk.floor ? "true" : "false", f);
	/* of it, a traced floor: an instant between two ticks (rssspan.h) */
	jsonw_key(f, "peak_pss_traced", first);
	fputs(!pss ? "null" : pk.traced ? "true" : "false", f);
	/* the tree's RSS changes were traced between samples: records read,
	 * records the kernel lost, intervals the trace bounded of all */
	jsonw_key(f, "rss_trace", first);
	if (s.rss_traced)
		fprintf(f, "{\"records\": %llu, \"lost\": %llu, \"intervals\": %llu, \"bounded\": %llu, "
			   "\"conflicts\": %llu, \"reads\": %llu}",
			(unsigned long long)s.rss_records, (unsigned long long)s.rss_lost,
			(unsigned long long)s.rss_intervals, (unsigned long long)s.rss_complete,
			(unsigned long long)s.rss_conflicts, (unsigned long long)s.rss_reads);
	else
		fputs("null", f);
	snap_u64(f, "peak_pss_estimated_bytes", s.peak.pss_est_kib * 1024, pss, first);
	snap_u64(f, "peak_pss_upper_bytes", s.peak.pss_hi_kib * 1024, pss, first);
	snap_u64(f, "peak_pss_unconfirmed_bytes", s.peak_unconfirmed_kib * 1024,
		 pss && s.peak_unconfirmed_kib, first);
	jsonw_key(f, "pss_estimated_share", first);
	if (pss)
		fprintf(f, "%.4f", s.pss_est_share);
	else
		fputs("null", f);
}

/* The collector's sweeps and ticks, and the tree's counts. */
static void write_counts(FILE *f, const struct store_summary *sp, int *first)
{
	const struct store_summary s = *sp;
	uint64_t end = s.end_ns ? s.end_ns : s.last.t_ns;

	jsonw_u64(f, "pss_sweeps", s.pss_sweeps, first);
	jsonw_u64(f, "pss_sweep_reads", s.pss_sweep_reads, first);
	jsonw_u64(f, "pss_sweep_skips", s.pss_sweep_skips, first);
	jsonw_u64(f, "pss_sweeps_unstable", s.pss_sweeps_unstable, first);
	jsonw_u64(f, "fast_ticks", s.fast_ticks, first);
	jsonw_u64(f, "exit_ticks", s.exit_ticks, first);
	jsonw_u64(f, "exit_samples", s.exit_samples, first);
	jsonw_u64(f, "peak_rss_kib", s.ru_maxrss_kib, first);
	jsonw_u64(f, "peak_tree_rss_kib", s.peak.rss_kib, first);
	jsonw_u64(f, "max_tree_rss_kib", s.max_tree_rss_kib, first);
	/* the kinds of the tree's memory at their highest (null: not known) */
	snap_u64(f, "max_swap_kib", s.max_swap_kib, s.kinds_known, first);
	snap_u64(f, "max_swap_us", s.max_swap_t_ns > s.start_ns ? (s.max_swap_t_ns - s.start_ns) / 1000 : 0,
		 s.kinds_known && s.max_swap_kib, first);
	snap_u64(f, "max_thp_kib", s.max_thp_kib, s.kinds_known, first);
	snap_u64(f, "max_locked_kib", s.max_locked_kib, s.kinds_known, first);
	write_pressure(f, &s, end, first);
	write_memleft(f, &s, first);
	/* the time the tree's tasks waited (delay accounting): null where the
	 * kernel did not count it */
	jsonw_key(f, "waiting", first);
	if (s.delayacct == 2)
		fprintf(f, "{\"cpu_us\": %llu, \"blkio_us\": %llu, \"swapin_us\": %llu, \"reclaim_us\": %llu, "
			   "\"thrashing_us\": %llu}",
			(unsigned long long)(s.delay_cpu_ns / 1000), (unsigned long long)(s.delay_blkio_ns / 1000),
			(unsigned long long)(s.delay_swapin_ns / 1000), (unsigned long long)(s.delay_reclaim_ns / 1000),
			(unsigned long long)(s.delay_thrashing_ns / 1000));
	else
		fputs("null", f);
	jsonw_u64(f, "processes", s.last.total_procs, first);
	jsonw_u64(f, "threads", s.last.total_threads, first);
	jsonw_u64(f, "execs_count", s.total_execs, first);
	jsonw_u64(f, "minflt", s.exited ? s.ru_minflt : s.last.minflt, first);
	jsonw_u64(f, "majflt", s.exited ? s.ru_majflt : s.last.majflt, first);
	/* attached: only wait4 sums these over a tree, so unknown */
	snap_u64(f, "nvcsw", s.ru_nvcsw, !s.attached, first);
	snap_u64(f, "nivcsw", s.ru_nivcsw, !s.attached, first);
	snap_u64(f, "inblock", s.ru_inblock, !s.attached, first);
	snap_u64(f, "oublock", s.ru_oublock, !s.attached, first);
	write_rusage_source(f, &s, first);
}

/* What the collector did and cost. */
static void write_collector(FILE *f, const struct store_summary *sp, int *first)
{
	const struct store_summary s = *sp;

	jsonw_u64(f, "lost_events", s.lost_events, first);
	jsonw_u64(f, "interval_ms", s.interval_ms, first);
	jsonw_u64(f, "pss_reads", s.pss_reads, first);
	jsonw_u64(f, "pss_read_cpu_us", s.pss_cpu_ns / 1000, first);
	jsonw_u64(f, "budget_cpu_us", s.budget_ns / 1000, first);
	jsonw_u64(f, "pss_refresh_mean_age_us", s.pss_mean_age_ns / 1000, first);
	jsonw_u64(f, "pss_refresh_max_age_us", s.pss_max_age_ns / 1000, first);
	jsonw_u64(f, "collector_cpu_us", s.collector_cpu_ns / 1000, first);
	jsonw_u64(f, "spacetime_cpu_us", s.self_cpu_ns / 1000, first);
	jsonw_u64(f, "collector_wakeups", s.collector_wakeups, first);
	jsonw_u64(f, "netlink_events", s.nl_events, first);
	jsonw_key(f, "taskstats", first);
	fputs(s.taskstats ? "true" : "false", f);
	jsonw_u64(f, "taskstats_records", s.ts_records, first);
	jsonw_u64(f, "taskstats_lost", s.ts_lost, first);
	jsonw_u64(f, "taskstats_unmatched", s.ts_unfit, first);
	snap_u64(f, "command_end_us", (s.root_end_ns - s.start_ns) / 1000, s.root_end_ns > s.start_ns, first);
	jsonw_u64(f, "orphans_reaped", s.orphans_reaped, first);
}

int export_json_summary_of(FILE *f, struct store *st, const struct store_summary *sum,
			   char *const argv[])
{
	struct store_summary s = *sum;
	int first = 1;

	fputc('{', f);
	write_run(f, &s, argv, &first);
	write_peak(f, &s, &first);
	write_counts(f, &s, &first);
	write_collector(f, &s, &first);
	jsonw_key(f, "top_jobs_by_peak_pss", &first);
	write_top_jobs(f, st, EXPORT_TOP_PSS);
	jsonw_key(f, "top_jobs_by_cpu", &first);
	write_top_jobs(f, st, EXPORT_TOP_CPU);
	jsonw_key(f, "top_jobs_by_major_faults", &first);
	write_top_jobs(f, st, EXPORT_TOP_MAJFLT);
	jsonw_key(f, "programs", &first);
	write_programs(f, st);
	jsonw_key(f, "outlived", &first);
	write_outlived(f, st, &s);
	jsonw_u64(f, "oom_kills", s.oom_kills, &first);
	jsonw_key(f, "oom_killed", &first);
	write_oom_killed(f, st, &s);
	jsonw_key(f, "execs", &first);
	write_execs(f, st, s.start_ns);
	fputc('}', f);
	return ferror(f) ? -EIO : 0;
}


/* Writes "key":v with three decimals, or null. */
static void snap_rate(FILE *f, const char *key, double v, int known, int *first)
{
	jsonw_key(f, key, first);
	if (known)
		fprintf(f, "%.3f", v);
	else
		fputs("null", f);
}

/* The command's start as ISO 8601 local time with its UTC offset. */
static void snap_start_time(FILE *f, const struct export_snap *sn)
{
	struct tm tm;
	char buf[64], zone[8];

	if (!localtime_r(&sn->start_wall.tv_sec, &tm)) {
		fputs("null", f);
		return;
	}
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm); /* +hhmm */
	fprintf(f, "\"%s.%03ld%.3s:%.2s\"", buf, sn->start_wall.tv_nsec / 1000000, zone,
		strlen(zone) >= 5 ? zone + 3 : "00");
}

/* One row of the series: times, the mean of each gauge, the max of PSS (and
 * of its estimated part and upper bound), the cumulative counters at the
 * bucket's end, and rates. */
static void snap_sample(FILE *f, const struct export_snap *sn, const struct export_row *r)
{
	const struct bucket *b = &r->b;
	int first = 1;
	int pss = b->valid & SAMPLE_PSS, rss = b->valid & SAMPLE_RSS;
	int flt = b->valid & SAMPLE_FAULTS, cpu = b->valid & SAMPLE_CPU;
	int cnt = b->valid & SAMPLE_COUNTS;

	fputc('{', f);
	jsonw_u64(f, "t_us", export_rel_us(sn, b->mean.t_ns), &first);
	jsonw_u64(f, "t0_us", export_rel_us(sn, b->t0_ns), &first);
	jsonw_u64(f, "t1_us", export_rel_us(sn, b->t1_ns), &first);
	jsonw_u64(f, "n", b->n, &first);
	snap_u64(f, "pss_kib", b->mean.pss_kib, pss, &first);
	snap_u64(f, "pss_max_kib", b->max.pss_kib, pss, &first);
	snap_u64(f, "pss_min_kib", b->min.pss_kib, pss, &first);
	snap_u64(f, "pss_anon_kib", b->mean.pss_anon_kib, pss, &first);
	snap_u64(f, "pss_file_kib", b->mean.pss_file_kib, pss, &first);
	snap_u64(f, "pss_shmem_kib", b->mean.pss_shmem_kib, pss, &first);
	snap_u64(f, "pss_est_kib", b->max.pss_est_kib, pss, &first);
	snap_u64(f, "pss_hi_kib", b->max.pss_hi_kib, pss, &first);
	snap_u64(f, "rss_kib", b->mean.rss_kib, rss, &first);
	snap_u64(f, "minflt", b->max.minflt, flt, &first);
	snap_u64(f, "majflt", b->max.majflt, flt, &first);
	snap_rate(f, "minflt_per_s", r->minflt_per_s, r->has_rates, &first);
	snap_rate(f, "majflt_per_s", r->majflt_per_s, r->has_rates, &first);
	snap_u64(f, "utime_us", b->max.utime_us, cpu, &first);
	snap_u64(f, "stime_us", b->max.stime_us, cpu, &first);
	snap_rate(f, "cpu_pct", r->cpu_pct, r->has_rates, &first);
	snap_u64(f, "live_procs", b->mean.live_procs, cnt, &first);
	snap_u64(f, "live_threads", b->mean.live_threads, cnt, &first);
	snap_u64(f, "total_procs", b->max.total_procs, cnt, &first);
	snap_u64(f, "total_threads", b->max.total_threads, cnt, &first);
	snap_u64(f, "swap_kib", b->max.swap_kib, b->valid & SAMPLE_KINDS, &first);
	snap_u64(f, "thp_kib", b->max.thp_kib, b->valid & SAMPLE_KINDS, &first);
	snap_u64(f, "locked_kib", b->max.locked_kib, b->valid & SAMPLE_KINDS, &first);
	/* pressure stalls over the row, percent of its time */
	snap_rate(f, "psi_cpu_pct", b->mean.psi_cpu_pm / 10.0, b->valid & SAMPLE_PSI, &first);
	snap_rate(f, "psi_mem_pct", b->mean.psi_mem_pm / 10.0, b->valid & SAMPLE_PSI, &first);
	snap_rate(f, "psi_mem_full_pct", b->mean.psi_mem_full_pm / 10.0, b->valid & SAMPLE_PSI, &first);
	snap_rate(f, "psi_io_pct", b->mean.psi_io_pm / 10.0, b->valid & SAMPLE_PSI, &first);
	fputc('}', f);
}

/* One process record; unknown fields are null. */
static void snap_proc(FILE *f, const struct export_snap *sn, const struct proc_rec *p,
		      char **buf, size_t *cap)
{
	char name[256];
	int first = 1;

	fputc('{', f);
	jsonw_i64(f, "pid", p->pid, &first);
	jsonw_i64(f, "ppid", p->ppid, &first);
	export_proc_name(sn, p, name, sizeof(name));
	jsonw_key(f, "name", &first);
	jsonw_str(f, name, strlen(name));
	size_t jl = export_proc_job(sn->st, p, buf, cap, name, sizeof(name));
	jsonw_key(f, "job", &first);
	if (jl)
		jsonw_str(f, name, jl);
	else
		fputs("null", f);
	jsonw_key(f, "comm", &first);
	jsonw_str(f, p->comm, strnlen(p->comm, sizeof(p->comm)));
	jsonw_key(f, "argv", &first);
	export_argv_json(f, sn, p->argv_id, buf, cap);
	jsonw_u64(f, "start_us", export_rel_us(sn, p->start_ns), &first);
	snap_u64(f, "end_us", export_rel_us(sn, p->end_ns), p->end_ns != 0, &first);
	jsonw_key(f, "alive", &first);
	fputs(p->end_ns ? "false" : "true", f);
	jsonw_key(f, "exit_status", &first);
	if (p->valid & PROC_V_EXIT)
		fprintf(f, "%d", exitcode_of(p->exit_status));
	else
		fputs("null", f);
	jsonw_key(f, "signal", &first);
	if ((p->valid & PROC_V_EXIT) && WIFSIGNALED(p->exit_status))
		fprintf(f, "%d", WTERMSIG(p->exit_status));
	else
		fputs("null", f);
	jsonw_u64(f, "threads", p->threads, &first);
	jsonw_u64(f, "execs", p->nexec, &first);
	snap_u64(f, "peak_pss_kib", p->peak_pss_kib, p->valid & PROC_V_PSS, &first);
	snap_u64(f, "peak_pss_t_us", export_rel_us(sn, p->peak_pss_t_ns),
		 (p->valid & PROC_V_PSS) && p->peak_pss_t_ns, &first);
	snap_u64(f, "peak_rss_kib", p->peak_rss_kib, p->valid & PROC_V_RSS, &first);
	/* it lived less than an interval: no tick could read it at its largest
	 * (its peak_rss_kib, a taskstats high-water mark where privileged, is) */
	uint64_t every = sn->sum.interval_ms ? sn->sum.interval_ms * 1000000ull : 100000000ull;
	jsonw_key(f, "short_lived", &first);
	fputs(p->end_ns && p->end_ns > p->start_ns && p->end_ns - p->start_ns < every ? "true" : "false", f);
	snap_u64(f, "utime_us", p->utime_us, p->valid & PROC_V_CPU, &first);
	snap_u64(f, "stime_us", p->stime_us, p->valid & PROC_V_CPU, &first);
	snap_u64(f, "minflt", p->minflt, p->valid & PROC_V_FAULTS, &first);
	snap_u64(f, "majflt", p->majflt, p->valid & PROC_V_FAULTS, &first);
	/* what its tasks waited (delay accounting on, at its exit) */
	snap_u64(f, "wait_cpu_us", p->wait_cpu_us, p->valid & PROC_V_WAIT, &first);
	snap_u64(f, "wait_io_us", p->wait_io_us, p->valid & PROC_V_WAIT, &first);
	fputc('}', f);
}

static const char *snap_event_type(uint32_t type)
{
	switch (type) {
	case STORE_EV_FORK: return "fork";
	case STORE_EV_EXEC: return "exec";
	case STORE_EV_EXIT: return "exit";
	case STORE_EV_THREAD: return "thread";
	case STORE_EV_LOST: return "lost";
	case STORE_EV_RESCAN: return "rescan";
	}
	return "unknown";
}

static void snap_event(FILE *f, const struct export_snap *sn, const struct store_event *e)
{
	int first = 1;
	const char *type = snap_event_type(e->type);

	fputc('{', f);
	jsonw_u64(f, "t_us", export_rel_us(sn, e->t_ns), &first);
	jsonw_key(f, "type", &first);
	jsonw_str(f, type, strlen(type));
	jsonw_i64(f, "pid", e->pid, &first);
	jsonw_i64(f, "ppid", e->ppid, &first);
	if (e->type == STORE_EV_EXIT) {
		int ws = (int)e->arg;
		jsonw_i64(f, "exit_status", exitcode_of(ws), &first);
		jsonw_key(f, "signal", &first);
		if (WIFSIGNALED(ws))
			fprintf(f, "%d", WTERMSIG(ws));
		else
			fputs("null", f);
	} else if (e->type == STORE_EV_LOST) {
		jsonw_i64(f, "count", e->arg, &first);
	}
	fputc('}', f);
}

int export_json_snapshot(FILE *f, const struct export_snap *sn)
{
	char *buf = malloc(4096);
	size_t cap = buf ? 4096 : 0;
	int first = 1, rc;

	fputc('{', f);
	jsonw_u64(f, "version", EXPORT_JSON_SNAPSHOT_VERSION, &first);
	jsonw_key(f, "kind", &first);
	fputs("\"spacetime-snapshot\"", f);
	jsonw_key(f, "start_time", &first);
	snap_start_time(f, sn);
	jsonw_key(f, "window", &first);
	{
		int wf = 1;
		fputc('{', f);
		jsonw_u64(f, "t0_us", export_rel_us(sn, sn->t0_ns), &wf);
		jsonw_u64(f, "t1_us", export_rel_us(sn, sn->t1_ns), &wf);
		jsonw_key(f, "whole_run", &wf);
		fputs(sn->windowed ? "false" : "true", f);
		fputc('}', f);
	}
	jsonw_key(f, "summary", &first);
	rc = export_json_summary_of(f, sn->st, &sn->sum, sn->argv);
	jsonw_u64(f, "samples_count", sn->nrows, &first);
	jsonw_u64(f, "samples_aggregated", sn->nsamples, &first);
	jsonw_key(f, "samples", &first);
	fputc('[', f);
	for (size_t i = 0; i < sn->nrows; i++) {
		fputs(i ? ",\n" : "\n", f);
		snap_sample(f, sn, &sn->rows[i]);
	}
	fputs("],\n", f);
	first = 1;
	jsonw_key(f, "processes", &first);
	fputc('[', f);
	for (size_t i = 0; i < sn->nprocs; i++) {
		fputs(i ? ",\n" : "\n", f);
		snap_proc(f, sn, &sn->procs[i], &buf, &cap);
	}
	fputs("],\n", f);
	first = 1;
	jsonw_u64(f, "events_dropped", sn->events_dropped, &first);
	jsonw_key(f, "events", &first);
	fputc('[', f);
	for (size_t i = 0; i < sn->nevents; i++) {
		fputs(i ? ",\n" : "\n", f);
		snap_event(f, sn, &sn->events[i]);
	}
	fputs("]}\n", f);
	free(buf);
	if (rc < 0)
		return rc;
	return ferror(f) ? -EIO : 0;
}
