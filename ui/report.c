/* report.c: the time(1)-like summary, with EXEC lines and a PSS chart. */
#include "report.h"

#include "exitcode.h"
#include "peak.h"

#include "units.h"

#include "export_jobs.h"
#include "compare.h"
#include "jobname.h"
#include "oomkill.h"
#include "textsafe.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define REPORT_CHART_W 60
#define REPORT_CHART_H 8

void report_size(char *buf, size_t cap, uint64_t kib)
{
	units_kib(buf, cap, kib);
}

/* Writes a count with thousands separators. */
static void put_count(FILE *f, uint64_t n)
{
	char d[32];
	int len = snprintf(d, sizeof(d), "%" PRIu64, n);

	for (int i = 0; i < len; i++) {
		fputc(d[i], f);
		if ((len - i - 1) % 3 == 0 && i != len - 1)
			fputc(',', f);
	}
}

/* Prints the EXEC lines: every one with -v or --execs, else none (the
 * figures say how many, and --json keeps them). */
static void put_execs(FILE *f, struct store *st, uint64_t start_ns, const struct report_opts *o)
{
	struct store_exec ex[64];
	size_t total = store_execs(st, 0, NULL, 0);
	size_t show = o->verbose || o->execs ? total : 0;
	char *buf = malloc(65536);

	for (size_t i = 0; i < show && buf;) {
		size_t n = store_execs(st, i, ex, 64);
		if (n > 64)
			n = 64;
		if (i + n > show)
			n = show - i;
		if (!n)
			break;
		for (size_t j = 0; j < n; j++) {
			double t = ex[j].t_ns > start_ns ? (double)(ex[j].t_ns - start_ns) / 1e9 : 0;
			fprintf(f, "EXEC %9.3fs %7d %7d  ", t, (int)ex[j].pid, (int)ex[j].ppid);
			ssize_t len = ex[j].argv_id ? store_str_get(st, ex[j].argv_id, buf, 65536) : -1;
			if (len > 65536)
				len = 65536;
			if (len >= 0)
				textsafe_fput(f, buf, (size_t)len, o->utf8);
			else {
				/* the name is the program's own choice: untrusted too */
				fputc('[', f);
				textsafe_fput(f, ex[j].comm, strnlen(ex[j].comm, sizeof(ex[j].comm)), o->utf8);
				fputs("] (exited before its command line was read)", f);
			}
			fputc('\n', f);
		}
		i += n;
	}
	free(buf);
}

/* Draws the PSS-over-time chart: REPORT_CHART_H rows of columns, each the max
 * of its time bucket, y axis in human units, time axis below. */
static void put_chart(FILE *f, struct store *st, uint64_t t0, uint64_t t1, int utf8)
{
	static const char *blocks[] = {" ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
				       "\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87",
				       "\xe2\x96\x88"};
	static const char *ascii[] = {" ", ".", ".", "_", "_", "o", "o", "#", "#"};
	struct bucket *b = calloc(REPORT_CHART_W * 4, sizeof(*b));
	uint64_t col[REPORT_CHART_W] = {0}, top = 0;
	char lab[32];

	if (!b)
		return;
	size_t n = t1 > t0 ? store_query(st, t0, t1, b, REPORT_CHART_W * 4) : 0;
	if (n == 0) {
		free(b);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t mid = b[i].t0_ns / 2 + b[i].t1_ns / 2;
		size_t x = mid <= t0 ? 0 : (size_t)((double)(mid - t0) * REPORT_CHART_W / (double)(t1 - t0 + 1));
		if (x >= REPORT_CHART_W)
			x = REPORT_CHART_W - 1;
		if (b[i].max.pss_kib > col[x])
			col[x] = b[i].max.pss_kib;
	}
	/* carry the last value across empty columns so the line has no holes */
	for (size_t x = 1; x < REPORT_CHART_W; x++)
		if (!col[x] && col[x - 1] && x * (t1 - t0) / REPORT_CHART_W < t1 - t0)
			col[x] = col[x - 1];
	for (size_t x = 0; x < REPORT_CHART_W; x++)
		top = col[x] > top ? col[x] : top;
	free(b);
	if (!top)
		return;
	fprintf(f, "\nPSS of the whole tree over time (max per column)\n");
	for (int row = REPORT_CHART_H - 1; row >= 0; row--) {
		if (row == REPORT_CHART_H - 1)
			report_size(lab, sizeof(lab), top);
		else if (row == REPORT_CHART_H / 2 - 1)
			report_size(lab, sizeof(lab), top / 2);
		else
			lab[0] = '\0';
		fprintf(f, "%10s %s", lab, utf8 ? "\xe2\x94\xa4" : "|");
		for (size_t x = 0; x < REPORT_CHART_W; x++) {
			double h = (double)col[x] * REPORT_CHART_H / (double)top - row;
			int k = h >= 1 ? 8 : h <= 0 ? 0 : (int)(h * 8 + 0.5);
			fputs(utf8 ? blocks[k] : ascii[k], f);
		}
		fputc('\n', f);
	}
	fprintf(f, "%10s %s", "0", utf8 ? "\xe2\x94\x94" : "+");
	for (size_t x = 0; x < REPORT_CHART_W; x++)
		fputs(utf8 ? "\xe2\x94\x80" : "-", f);
	fprintf(f, "\n%12s%-*s%.1fs\n", "0s", REPORT_CHART_W - 4, "", (double)(t1 - t0) / 1e9);
}

/* How the peak was had (a sum of reads, an exit sample, an estimate), how
 * much of it is estimated, and how far the true peak can be above it (the
 * bound between samples, peak.h). */
static void put_peak_doubt(FILE *f, const struct store_summary *s, int utf8)
{
	struct peak pk;
	double pct;
	char hi[32];

	peak_of(s, &pk);
	pct = 100.0 * (double)pk.doubt_kib / (double)pk.kib;
	if (pk.at_exit_pid)
		fprintf(f, "at least, at pid %d's exit: its own pages at its kernel high-water mark, the rest read then",
			pk.at_exit_pid);
	else if (pk.traced)
		fprintf(f, "at least: between two samples, from their reads and the RSS changes "
			   "traced in between");
	else if (pk.floor)
		fprintf(f, "at least: an estimate above every sum of reads, at its processes' lower bounds "
			   "(those read at their reads)");
	else if (pk.sum_of_reads)
		fprintf(f, "measured: sum of reads, %s%.*f%%", utf8 ? "\u00b1" : "+-",
			pct < 0.1 && pct > 0 ? 2 : 1, pct);
	else
		fprintf(f, "estimated: %s%.*f%%", utf8 ? "\u00b1" : "+-", pct < 0.1 ? 2 : 1, pct);
	if (!pk.bound_known) {
		fprintf(f, "; the true peak may be higher: processes ended between samples without "
			   "taskstats records (privileges) to tell their high-water marks, nor could wait4");
	} else if (pk.read) {
		fprintf(f, "; no instant between samples went higher");
	} else {
		report_size(hi, sizeof(hi), pk.bound_kib);
		fprintf(f, "; the true peak is at most %s (%+.1f%%)", hi, peak_bound_pct(&pk));
	}
	if (s->peak_unconfirmed_kib) {
		report_size(hi, sizeof(hi), s->peak_unconfirmed_kib);
		fprintf(f, "; an estimate of %s was not confirmed", hi);
	}
}

/* Describes how the command ended. */
static void put_status(FILE *f, const struct store_summary *s)
{
	if (s->attached) {
		fprintf(f, "  attached        pid");
		for (uint32_t i = 0; i < s->attach_n && i < STORE_ATTACH_MAX; i++)
			fprintf(f, "%s %d", i ? "," : "", (int)s->attach_pid[i]);
		fprintf(f, " and %s descendants, from the attach on\n", s->attach_n > 1 ? "their" : "its");
		if (s->detached)
			fprintf(f, "  status          detached: %u process%s still running, left untouched\n",
				s->last.live_procs, s->last.live_procs == 1 ? "" : "es");
		else
			fprintf(f, "  status          ended (their exit statuses went to their parents)\n");
	} else if (!s->exited)
		fprintf(f, "  status          still running\n");
	else {
		char w[96];
		exitcode_words(s->wait_status, w, sizeof(w));
		fprintf(f, "  status          %s\n", w);
	}
}

/* Lists the processes that outlived the command: still running when the run
 * ended (they go on without spacetime), or ended after it (--wait-tree). */
static void put_outlived(FILE *f, struct store *st, const struct store_summary *s, const struct report_opts *o)
{
	enum { SHOW = 10 };
	size_t n = store_procs(st, STORE_PROCS_ALL, NULL, 0), shown = 0, total = 0;
	struct proc_rec *p = n ? calloc(n, sizeof(*p)) : NULL;
	uint64_t end = s->end_ns ? s->end_ns : s->last.t_ns;
	char buf[256], size[32];

	if (!s->root_end_ns || !p) {
		free(p);
		return;
	}
	n = store_procs(st, STORE_PROCS_ALL, p, n);
	for (size_t i = 0; i < n; i++)
		total += p[i].end_ns == 0 || p[i].end_ns > s->root_end_ns;
	if (total)
		fprintf(f, "  outlived        %zu process%s outlived the command (it ended at %.3f s)%s\n", total,
			total == 1 ? "" : "es", (double)(s->root_end_ns - s->start_ns) / 1e9,
			s->end_ns > s->root_end_ns ? "" : "; still running when spacetime ended");
	for (size_t i = 0; i < n && shown < SHOW; i++) {
		const struct proc_rec *r = &p[i];
		if (r->end_ns && r->end_ns <= s->root_end_ns)
			continue;
		ssize_t len = r->argv_id ? store_str_get(st, r->argv_id, buf, sizeof(buf)) : -1;
		/* never read: unknown, not 0 B */
		if (r->valid & PROC_V_PSS)
			report_size(size, sizeof(size), r->peak_pss_kib);
		else
			snprintf(size, sizeof(size), "n/a");
		fprintf(f, "    %7d  peak PSS %-9s ", (int)r->pid, size);
		if (r->end_ns)
			fprintf(f, "ended at %.3f s  ", (double)(r->end_ns - s->start_ns) / 1e9);
		else
			fprintf(f, "running, %.1f s old  ", (double)(end - r->start_ns) / 1e9);
		if (len > 0) {
			size_t l = (size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf);
			textsafe_fput(f, buf, l > 60 ? 60 : l, o->utf8);
		} else {
			textsafe_fput(f, r->comm, strnlen(r->comm, sizeof(r->comm)), o->utf8);
		}
		fputc('\n', f);
		shown++;
	}
	if (total > shown)
		fprintf(f, "    (%zu more: --json lists them all)\n", total - shown);
	free(p);
}

/* The heaviest jobs: by peak PSS and by CPU time, each line the figure, the
 * job name and the pid. Processes whose figure is unknown are not ranked. */
static void put_top_jobs(FILE *f, struct store *st, const struct report_opts *o)
{
	struct proc_rec *top = o->top > 0 ? calloc((size_t)o->top, sizeof(*top)) : NULL;
	char *buf = NULL, job[JOBNAME_MAX + 1], fig[32];
	size_t cap = 0;

	struct store_summary sum;
	store_summary_get(st, &sum);
	for (int by = EXPORT_TOP_PSS; top && by <= EXPORT_TOP_MAJFLT; by++) {
		/* major faults: the few that had any (each is a wait for I/O) */
		long n = export_top_procs(st, (enum export_top_by)by, top,
					  by == EXPORT_TOP_MAJFLT && o->top > 3 ? 3 : (size_t)o->top);
		if (n <= 0)
			continue;
		/* attached: a process's CPU is its whole life's, not since the attach */
		fprintf(f, "\nheaviest jobs by %s\n",
			by == EXPORT_TOP_PSS       ? "peak PSS"
			: by == EXPORT_TOP_MAJFLT ? "major faults (pages read from disk: waits for I/O)"
			: sum.attached            ? "CPU time (user + system, whole lifetime, before the attach too)"
						  : "CPU time (user + system)");
		for (long i = 0; i < n; i++) {
			const struct proc_rec *r = &top[i];
			size_t len = export_proc_job(st, r, &buf, &cap, job, sizeof(job));
			if (by == EXPORT_TOP_PSS)
				report_size(fig, sizeof(fig), r->peak_pss_kib);
			else if (by == EXPORT_TOP_MAJFLT)
				snprintf(fig, sizeof(fig), "%llu", (unsigned long long)r->majflt);
			else
				snprintf(fig, sizeof(fig), "%.3f s", (double)(r->utime_us + r->stime_us) / 1e6);
			fprintf(f, "  %10s  ", fig);
			if (len)
				textsafe_fput(f, job, len, o->utf8);
			else
				fputs("?", f);
			fprintf(f, "  (pid %d)\n", (int)r->pid);
		}
	}
	free(buf);
	free(top);
}

/* The programs by memory-seconds (each of their processes' PSS over its life,
 * summed: what a runner's memory is sized by), with their counts, CPU and
 * largest peak. */
static void put_programs(FILE *f, struct store *st, const struct report_opts *o)
{
	struct compare_prog *p = NULL;
	struct store *const one[1] = {st};
	ssize_t n = o->top > 0 ? compare_programs(one, 1, NULL, 0, &p) : 0;
	int shown = 0;

	for (ssize_t i = 0; i < n && shown < o->top; i++) {
		const struct compare_prog_fig *g = &p[i].side[0];
		char sz[32], pk[32];
		if (!g->kib_s)
			continue;
		if (!shown++)
			fprintf(f, "\nprograms by memory-seconds (PSS over each process's life, summed)\n");
		report_size(sz, sizeof(sz), g->kib_s);
		report_size(pk, sizeof(pk), g->peak_pss_kib);
		fprintf(f, "  %10s%s  ", sz, o->utf8 ? "\u00b7s" : "*s");
		textsafe_fput(f, p[i].name, strnlen(p[i].name, sizeof(p[i].name)), o->utf8);
		fprintf(f, "  (%llu process%s, %.3f s CPU, largest %s)\n", (unsigned long long)g->count,
			g->count == 1 ? "" : "es", (double)g->cpu_us / 1e6, pk);
	}
	free(p);
}

/* The pressure stalls over the run (PSI): the share of the wall time some
 * task waited for memory (and all of them), CPU, I/O; where the kernel has
 * none, one line says so (a run recorded before spacetime read PSI: none). */
static void put_pressure(FILE *f, const struct store_summary *s)
{
	uint64_t end = s->end_ns ? s->end_ns : s->last.t_ns;
	double wall_us = end > s->start_ns ? (double)(end - s->start_ns) / 1e3 : 0;

	if (!s->kinds_known)
		return;
	if (!s->psi) {
		fprintf(f, "  pressure        n/a: this kernel gives no pressure-stall information (PSI)\n");
		return;
	}
	if (!(wall_us > 0))
		return;
	fprintf(f, "  pressure        memory stalled %.1f%% of the run (all tasks %.1f%%; at most %.1f%% between "
		   "samples), CPU %.1f%%, I/O %.1f%% (%s)\n",
		100.0 * (double)s->psi_mem_us / wall_us, 100.0 * (double)s->psi_mem_full_us / wall_us,
		s->psi_mem_max_pm / 10.0, 100.0 * (double)s->psi_cpu_us / wall_us,
		100.0 * (double)s->psi_io_us / wall_us, s->psi == 2 ? "the command's cgroup" : "the whole machine");
}

/* The job name of the newest process that had pid, shown safe ("?" when
 * the store has none). */
static void report_job_of_pid(struct store *st, pid_t pid, char *job, size_t cap, int utf8)
{
	size_t n = store_procs(st, STORE_PROCS_ALL, NULL, 0), bcap = 0;
	struct proc_rec *p = n ? calloc(n, sizeof(*p)) : NULL;
	char *buf = NULL, raw[JOBNAME_MAX + 1];
	size_t len = 0;

	snprintf(job, cap, "?");
	if (!p)
		return;
	n = store_procs(st, STORE_PROCS_ALL, p, n);
	for (size_t i = n; i-- > 0;)
		if (p[i].pid == pid) {
			len = export_proc_job(st, &p[i], &buf, &bcap, raw, sizeof(raw));
			break;
		}
	if (len)
		textsafe_str(raw, len, job, cap, utf8);
	free(buf);
	free(p);
}

/* The memory left before the machine (or the cgroup's limit) ran out: its
 * lowest, and whether and when it ran low while the tree grew, with the
 * processes growing fastest then. */
static void put_memleft(FILE *f, struct store *st, const struct store_summary *s, int utf8)
{
	char a[32], b[32];

	if (!s->mem_of_kib)
		return;
	report_size(a, sizeof(a), s->mem_min_left_kib);
	report_size(b, sizeof(b), s->mem_of_kib);
	const char *by = s->mem_by_cgroup ? "the cgroup's limit" : "the machine's memory";
	double at = s->mem_min_left_t_ns > s->start_ns ? (double)(s->mem_min_left_t_ns - s->start_ns) / 1e9 : 0;
	if (!s->mem_low_ticks) {
		fprintf(f, "  memory left     %s of %s at the least, at %.3f s (%s): never low\n", a, b, at, by);
		return;
	}
	fprintf(f, "  memory left     RAN LOW from %.3f s: %s of %s at the least, at %.3f s (%s)",
		s->mem_low_first_ns > s->start_ns ? (double)(s->mem_low_first_ns - s->start_ns) / 1e9 : 0, a, b, at,
		by);
	for (int k = 0; k < STORE_MEM_GROWERS && s->mem_grow_pid[k]; k++) {
		char job[4 * JOBNAME_MAX + 1];
		report_job_of_pid(st, s->mem_grow_pid[k], job, sizeof(job), utf8);
		report_size(a, sizeof(a), s->mem_grow_kib[k]);
		fprintf(f, "%s %s (pid %d) +%s", k ? "," : "; growing:", job, (int)s->mem_grow_pid[k], a);
	}
	fputc('\n', f);
}

/* The kernel's OOM kills during the run, and the processes of the tree they
 * were (oomkill.h): none, nothing said. */
static void put_oom(FILE *f, struct store *st, const struct store_summary *s, int utf8)
{
	enum { SHOW = 5 };
	size_t n = s->oom_kills ? store_procs(st, STORE_PROCS_ALL, NULL, 0) : 0, shown = 0;
	struct proc_rec *p = n ? calloc(n, sizeof(*p)) : NULL;

	if (!s->oom_kills)
		return;
	fprintf(f, "  OOM kills       %llu during the run (the kernel's count, every process)",
		(unsigned long long)s->oom_kills);
	n = p ? store_procs(st, STORE_PROCS_ALL, p, n) : 0;
	for (size_t i = 0; i < n && shown < SHOW; i++) {
		char job[4 * JOBNAME_MAX + 1];
		if (!oomkill_of(s, &p[i]))
			continue;
		report_job_of_pid(st, p[i].pid, job, sizeof(job), utf8);
		fprintf(f, "%s %s (pid %d) at %.3f s", shown++ ? "," : "; of the command's:", job, (int)p[i].pid,
			p[i].end_ns > s->start_ns ? (double)(p[i].end_ns - s->start_ns) / 1e9 : 0);
	}
	fputc('\n', f);
	free(p);
}

/* The time the tree's tasks waited (delay accounting, from their taskstats
 * exit records): shown only where the kernel counted it; where it did not,
 * one line says how to turn it on (spacetime changes no system setting). */
static void put_delays(FILE *f, const struct store_summary *s)
{
	if (!s->delayacct)
		return;
	if (s->delayacct == 1) {
		fprintf(f, "  time waiting    n/a: the kernel does not count it (sysctl kernel.task_delayacct=1 "
			   "turns delay accounting on)\n");
		return;
	}
	fprintf(f, "  time waiting    for a CPU %.3f s, block I/O %.3f s, swap-in %.3f s, reclaim %.3f s, "
		   "thrashing %.3f s (the tree's tasks, summed)\n",
		(double)s->delay_cpu_ns / 1e9, (double)s->delay_blkio_ns / 1e9, (double)s->delay_swapin_ns / 1e9,
		(double)s->delay_reclaim_ns / 1e9, (double)s->delay_thrashing_ns / 1e9);
}

/* The times: wall, user, system, and the share of a core. */
static void put_times(FILE *f, const struct store_summary *sp)
{
	const struct store_summary s = *sp;
	uint64_t end = s.end_ns ? s.end_ns : s.last.t_ns;
	double wall = end > s.start_ns ? (double)(end - s.start_ns) / 1e9 : 0;
	double user = (double)(s.exited ? s.ru_utime_us : s.last.utime_us) / 1e6;
	double sys = (double)(s.exited ? s.ru_stime_us : s.last.stime_us) / 1e6;

	fprintf(f, "  wall            %.6f s\n", wall);
	/* attached: no wait4 of the tree, only the processes seen */
	const char *part = s.attached ? "  (partial: since the attach, from the processes seen)" : "";
	fprintf(f, "  user            %.6f s%s\n", user, part);
	fprintf(f, "  system          %.6f s%s\n", sys, part);
	if (s.attached)
		fprintf(f, "  cpu before      %.6f s used by the processes found at the attach, before it "
			   "(not counted above)\n", (double)s.attach_prior_cpu_us / 1e6);
	if (wall > 0)
		fprintf(f, "  cpu             %.0f%% of one core\n", (user + sys) * 100 / wall);
}

/* The kinds of the tree's memory at their highest: swap always (a build that
 * swapped must show it), huge pages and locked memory when there were some. */
static void put_kinds(FILE *f, const struct store_summary *s)
{
	char a[32];

	if (!s->kinds_known)
		return;
	report_size(a, sizeof(a), s->max_swap_kib);
	if (s->max_swap_kib)
		fprintf(f, "  swapped out     %s at most, at %.3f s: the machine ran short of memory\n", a,
			s->max_swap_t_ns > s->start_ns ? (double)(s->max_swap_t_ns - s->start_ns) / 1e9 : 0);
	else
		fprintf(f, "  swapped out     none\n");
	report_size(a, sizeof(a), s->max_thp_kib);
	if (s->max_thp_kib)
		fprintf(f, "  huge pages      %s at most (transparent, anonymous)\n", a);
	report_size(a, sizeof(a), s->max_locked_kib);
	if (s->max_locked_kib)
		fprintf(f, "  locked          %s at most (mlock)\n", a);
}

/* The peak PSS with its doubt and split, and the peak RSS. */
static void put_peaks(FILE *f, const struct store_summary *s, int utf8)
{
	char a[32], b[32], c[32], d[32];

	report_size(a, sizeof(a), s->peak.pss_kib);
	report_size(b, sizeof(b), s->peak.pss_anon_kib);
	report_size(c, sizeof(c), s->peak.pss_file_kib);
	report_size(d, sizeof(d), s->peak.pss_shmem_kib);
	if (s->peak.pss_kib) {
		fprintf(f, "  peak PSS        %s at %.3f s (", a,
			s->peak.t_ns > s->start_ns ? (double)(s->peak.t_ns - s->start_ns) / 1e9 : 0);
		put_peak_doubt(f, s, utf8);
		fprintf(f, "; anon %s, file %s, shmem %s)\n", b, c, d);
	} else
		fprintf(f, "  peak PSS        not measured: the command ended before a sample saw it\n");
	report_size(a, sizeof(a), s->ru_maxrss_kib);
	report_size(b, sizeof(b), s->peak.rss_kib);
	fprintf(f, "  peak RSS        %s largest process (%s)", a,
		s->attached ? "partial: sampled, of the processes seen" : "rusage");
	/* no PSS peak, no tree at it: said as nothing, not as 0 B */
	if (s->peak.pss_kib)
		fprintf(f, "; tree %s at the PSS peak", b);
	fputc('\n', f);
	put_kinds(f, s);
}

/* Threads, execs, faults, context switches and block I/O. */
static void put_counts(FILE *f, const struct store_summary *s, int listed)
{
	uint64_t minflt = s->exited ? s->ru_minflt : s->last.minflt;
	uint64_t majflt = s->exited ? s->ru_majflt : s->last.majflt;

	fprintf(f, "  threads         ");
	put_count(f, s->last.total_threads);
	fprintf(f, " created\n  execs           ");
	put_count(f, s->total_execs);
	if (!listed && s->total_execs)
		fprintf(f, " (-v or --execs lists them)");
	fprintf(f, "\n  minor faults    ");
	put_count(f, minflt);
	if (minflt + majflt)
		fprintf(f, " (%.1f%% of faults: served from memory, no I/O)", 100.0 * (double)minflt / (double)(minflt + majflt));
	fprintf(f, "\n  major faults    ");
	put_count(f, majflt);
	fprintf(f, " (needed I/O)%s\n", s->attached ? " (minor and major: partial, since the attach)" : "");
	if (s->attached) {
		/* only wait4 sums them over a tree */
		fprintf(f, "  ctx switches    n/a (unknown when attached)\n");
		fprintf(f, "  block I/O       n/a (unknown when attached)\n");
		return;
	}
	fprintf(f, "  ctx switches    ");
	put_count(f, s->ru_nvcsw);
	fprintf(f, " voluntary, ");
	put_count(f, s->ru_nivcsw);
	fprintf(f, " involuntary\n  block I/O       ");
	put_count(f, s->ru_inblock);
	fprintf(f, " in, ");
	put_count(f, s->ru_oublock);
	fprintf(f, " out (512-byte blocks)\n");
}

/* How the run was collected, and what it cost. */
static void put_collection(FILE *f, const struct store_summary *sp)
{
	const struct store_summary s = *sp;

	fprintf(f, "  collection      %s, every %" PRIu64 " ms, %" PRIu64 " lost events; %" PRIu64
		   " PSS reads (%" PRIu64 " in %" PRIu64 " sweeps, %" PRIu64 " moved while read), "
		   "%.1f%% of the PSS series estimated, refresh age mean %.2f s max %.2f s; "
		   "collector CPU %.3f s (PSS reads %.3f s)\n",
		s.mode == STORE_MODE_NETLINK ? (s.taskstats ? "netlink and taskstats" : "netlink")
		: s.taskstats		    ? "polling /proc, and taskstats"
					    : "polling /proc",
		s.interval_ms, s.lost_events, s.pss_reads, s.pss_sweep_reads, s.pss_sweeps,
		s.pss_sweeps_unstable, 100.0 * s.pss_est_share, (double)s.pss_mean_age_ns / 1e9,
		(double)s.pss_max_age_ns / 1e9, (double)s.collector_cpu_ns / 1e9,
		(double)s.pss_cpu_ns / 1e9);
	if (s.lost_events)
		fprintf(f, "  warning         %" PRIu64 " netlink overruns: the tree was rescanned from /proc, counts are a lower bound\n", s.lost_events);
}

static int report_put(FILE *f, struct store *st, char *const argv[], const struct report_opts *o)
{
	struct store_summary s;

	store_summary_get(st, &s);
	uint64_t end = s.end_ns ? s.end_ns : s.last.t_ns;
	/* the figures first, then how they came about: the chart, the
	 * heaviest jobs, and the programs executed when asked for */
	fprintf(f, "spacetime:");
	for (int i = 0; argv[i]; i++) {
		fputc(' ', f);
		textsafe_fput(f, argv[i], strlen(argv[i]), o->utf8);
	}
	fputc('\n', f);
	put_status(f, &s);
	put_times(f, &s);
	put_peaks(f, &s, o->utf8);
	fprintf(f, "  processes       ");
	put_count(f, s.last.total_procs);
	fprintf(f, " created\n");
	put_outlived(f, st, &s, o);
	put_counts(f, &s, o->verbose || o->execs);
	put_pressure(f, &s);
	put_memleft(f, st, &s, o->utf8);
	put_oom(f, st, &s, o->utf8);
	put_delays(f, &s);
	put_collection(f, &s);
	if (o->notice)
		fprintf(f, "  note            %s\n", o->notice);
	if (o->record)
		fprintf(f, "  recording       %s\n", o->record);
	put_chart(f, st, s.start_ns, end, o->utf8);
	put_top_jobs(f, st, o);
	put_programs(f, st, o);
	if (o->verbose || o->execs)
		fputc('\n', f);
	put_execs(f, st, s.start_ns, o);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

/* The report is built in memory and written at once: stderr is unbuffered,
 * and byte by byte it took a system call per character (3,000 for a small
 * build's EXEC lines). */
int report_text(FILE *f, struct store *st, char *const argv[], const struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return report_put(f, st, argv, o);
	int r = report_put(m, st, argv, o);
	if (fclose(m) != 0) {
		free(buf);
		return report_put(f, st, argv, o);
	}
	if (len && fwrite(buf, 1, len, f) != len)
		r = -EIO;
	free(buf);
	if (fflush(f) != 0 || ferror(f))
		r = -EIO;
	return r;
}
