/* export_trace.c: the Chrome trace event file. */
#include "export_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "export.h"
#include "export_jobs.h"
#include "jsonw.h"
#include "exitcode.h"
#include "proctree.h"

#define TRACE_ANCESTRY_MAX 256 /* parent links followed at most */
#define TRACE_TITLE_MAX 200    /* bytes of the command line in the process name */

/* One lane: the stack of spans open on it, outermost first. */
struct trace_lane {
	size_t *stk;
	size_t len, cap;
};

/* Start first; for equal starts the longer span first, so it can hold the
 * shorter; then by index, for a stable result. */
static int trace_cmp(const void *a, const void *b, void *arg)
{
	const struct export_trace_span *sp = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (sp[i].start != sp[j].start)
		return sp[i].start < sp[j].start ? -1 : 1;
	if (sp[i].end != sp[j].end)
		return sp[i].end > sp[j].end ? -1 : 1;
	return (i > j) - (i < j);
}

/* Whether a is an ancestor of i (through parent links). */
static int trace_is_ancestor(const struct export_trace_span *sp, size_t a, size_t i)
{
	size_t j = sp[i].parent;

	for (int k = 0; k < TRACE_ANCESTRY_MAX && j != EXPORT_TRACE_NOPARENT; k++) {
		if (j == a)
			return 1;
		j = sp[j].parent;
	}
	return 0;
}

/* Drops the spans of lane l that ended by span i's start (spans come in start
 * order, so they can hold nothing later), then tells whether i fits: 2 when
 * the lane is free or i nests in an ancestor, 1 when i nests in an unrelated
 * span, 0 when it would partially overlap. */
static int trace_lane_fit(struct trace_lane *l, const struct export_trace_span *sp, size_t i)
{
	while (l->len && sp[l->stk[l->len - 1]].end <= sp[i].start)
		l->len--;
	if (!l->len)
		return 2;
	size_t top = l->stk[l->len - 1];
	if (sp[i].end > sp[top].end)
		return 0;
	return trace_is_ancestor(sp, top, i) ? 2 : 1;
}

static int trace_lane_push(struct trace_lane *l, size_t i)
{
	if (l->len == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 8;
		size_t *ns = realloc(l->stk, nc * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		l->stk = ns;
		l->cap = nc;
	}
	l->stk[l->len++] = i;
	return 0;
}

/* Greedy placement in start order; the lane count stays at most the largest
 * number of spans that overlap without nesting, plus the nesting ones that
 * found no lane of their own. */
int export_trace_lanes(const struct export_trace_span *sp, size_t n, uint32_t *lane)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	struct trace_lane *lanes = calloc(n ? n : 1, sizeof(*lanes));
	size_t nl = 0;
	int rc = 0;

	if (!order || !lanes) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), trace_cmp, (void *)sp);
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k], par = sp[i].parent, best = nl;
		int fit = 0;

		/* The parent's lane, if the parent was placed and i nests there. */
		if (par != EXPORT_TRACE_NOPARENT && par < n && trace_cmp(&par, &i, (void *)sp) < 0 &&
		    trace_lane_fit(&lanes[lane[par]], sp, i))
			best = lane[par], fit = 2;
		for (size_t l = 0; l < nl && fit < 2; l++) {
			int f = trace_lane_fit(&lanes[l], sp, i);
			if (f > fit)
				best = l, fit = f;
		}
		if ((rc = trace_lane_push(&lanes[best], i)) < 0)
			goto out;
		lane[i] = (uint32_t)best;
		if (best == nl)
			nl++;
	}
	rc = (int)nl;
out:
	if (lanes)
		for (size_t l = 0; l < nl; l++)
			free(lanes[l].stk);
	free(lanes);
	free(order);
	return rc;
}

/* The parent of each process (proctree.h). */
static int trace_parents(const struct export_snap *sn, struct export_trace_span *sp)
{
	size_t n = sn->nprocs;
	size_t *par = malloc((n ? n : 1) * sizeof(*par));

	if (!par || proctree_parents(sn->procs, n, par) < 0) {
		free(par);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		sp[i].parent = par[i] == PROCTREE_NONE ? EXPORT_TRACE_NOPARENT : par[i];
	free(par);
	return 0;
}

/* The run's name for the trace process: the command line, shortened. */
static void trace_title(FILE *f, const struct export_snap *sn)
{
	char buf[TRACE_TITLE_MAX + 4];
	size_t k = 0;

	for (int i = 0; sn->argv && sn->argv[i] && k < TRACE_TITLE_MAX; i++) {
		if (i)
			buf[k++] = ' ';
		for (const char *p = sn->argv[i]; *p && k < TRACE_TITLE_MAX; p++)
			buf[k++] = *p;
	}
	if (sn->argv && sn->argv[0] && k >= TRACE_TITLE_MAX) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	jsonw_str(f, buf, k);
}

/* A metadata event naming the trace process or one lane. */
static void trace_meta(FILE *f, const char *what, int pid, uint32_t tid)
{
	fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%" PRIu32 ",\"args\":", what,
		pid, tid);
}

/* One process as a complete slice; args carry its real (unclipped) times. */
static void trace_slice(FILE *f, const struct export_snap *sn, const struct proc_rec *p,
			const struct export_trace_span *s, int pid, uint32_t tid, char **buf,
			size_t *cap)
{
	char name[256];
	int first = 1;

	/* the job (cc1 src/x.c), so the timeline reads as the dashboard does */
	if (!export_proc_job(sn->st, p, buf, cap, name, sizeof(name)))
		export_proc_name(sn, p, name, sizeof(name));
	fputs(",\n{\"ph\":\"X\",\"cat\":\"process\",\"name\":", f);
	jsonw_str(f, name, strlen(name));
	fprintf(f, ",\"pid\":%d,\"tid\":%" PRIu32 ",\"ts\":%" PRIu64 ",\"dur\":%" PRIu64 ",\"args\":{",
		pid, tid, s->start, s->end - s->start);
	jsonw_i64(f, "pid", p->pid, &first);
	jsonw_i64(f, "ppid", p->ppid, &first);
	jsonw_key(f, "argv", &first);
	export_argv_json(f, sn, p->argv_id, buf, cap);
	if (p->valid & PROC_V_PSS)
		jsonw_u64(f, "peak_pss_kib", p->peak_pss_kib, &first);
	if (p->valid & PROC_V_CPU) {
		jsonw_u64(f, "cpu_user_us", p->utime_us, &first);
		jsonw_u64(f, "cpu_sys_us", p->stime_us, &first);
	}
	if (p->valid & PROC_V_FAULTS) {
		jsonw_u64(f, "minflt", p->minflt, &first);
		jsonw_u64(f, "majflt", p->majflt, &first);
	}
	jsonw_u64(f, "threads", p->threads, &first);
	jsonw_u64(f, "start_us", export_rel_us(sn, p->start_ns), &first);
	if (p->end_ns)
		jsonw_u64(f, "end_us", export_rel_us(sn, p->end_ns), &first);
	else {
		jsonw_key(f, "alive", &first);
		fputs("true", f);
	}
	if (p->valid & PROC_V_EXIT)
		jsonw_i64(f, "exit_status", exitcode_of(p->exit_status), &first);
	fputs("}}", f);
}

/* The counter tracks, one point per row of the series. Tree PSS is the
 * bucket's max, so the track's maximum is the run's peak. */
static void trace_counters(FILE *f, const struct export_snap *sn, int pid)
{
	for (size_t i = 0; i < sn->nrows; i++) {
		const struct export_row *r = &sn->rows[i];
		const struct bucket *b = &r->b;
		uint64_t ts = export_rel_us(sn, b->t0_ns);
		const char *head = ",\n{\"ph\":\"C\",\"pid\":%d,\"ts\":%" PRIu64 ",\"name\":";

		if (b->valid & SAMPLE_PSS) {
			fprintf(f, head, pid, ts);
			fprintf(f, "\"tree PSS\",\"args\":{\"KiB\":%" PRIu64 "}}", b->max.pss_kib);
			fprintf(f, head, pid, ts);
			fprintf(f,
				"\"PSS split\",\"args\":{\"anon KiB\":%" PRIu64 ",\"file KiB\":%" PRIu64
				",\"shmem KiB\":%" PRIu64 "}}",
				b->mean.pss_anon_kib, b->mean.pss_file_kib, b->mean.pss_shmem_kib);
		}
		if (b->valid & SAMPLE_COUNTS) {
			fprintf(f, head, pid, ts);
			fprintf(f, "\"live\",\"args\":{\"processes\":%" PRIu32 ",\"threads\":%" PRIu32 "}}",
				b->mean.live_procs, b->mean.live_threads);
		}
		if (r->has_rates) {
			fprintf(f, head, pid, ts);
			fprintf(f, "\"faults/s\",\"args\":{\"minor\":%.3f,\"major\":%.3f}}",
				r->minflt_per_s, r->majflt_per_s);
			fprintf(f, head, pid, ts);
			fprintf(f, "\"CPU\",\"args\":{\"%% of one core\":%.3f}}", r->cpu_pct);
		}
	}
}

int export_trace_write(FILE *f, const struct export_snap *sn)
{
	size_t n = sn->nprocs, cap = 4096;
	struct export_trace_span *sp = calloc(n ? n : 1, sizeof(*sp));
	uint32_t *lane = calloc(n ? n : 1, sizeof(*lane));
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	char *buf = malloc(cap);
	int pid = n ? (int)sn->procs[0].pid : 1, nl, rc = 0;

	if (!sp || !lane || !order || !buf) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct proc_rec *p = &sn->procs[i];
		uint64_t s = p->start_ns > sn->t0_ns ? p->start_ns : sn->t0_ns;
		uint64_t e = export_proc_end(sn, p);

		if (e > sn->t1_ns)
			e = sn->t1_ns;
		sp[i].start = export_rel_us(sn, s);
		sp[i].end = export_rel_us(sn, e);
		if (sp[i].end < sp[i].start)
			sp[i].end = sp[i].start;
	}
	if ((rc = trace_parents(sn, sp)) < 0 || (nl = export_trace_lanes(sp, n, lane)) < 0) {
		rc = rc < 0 ? rc : -ENOMEM;
		goto out;
	}
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"spacetime\",\"command\":", f);
	trace_title(f, sn);
	fputs("},\n\"traceEvents\":[\n", f);
	fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":",
		pid);
	trace_title(f, sn);
	fputs("}}", f);
	for (int l = 0; l < nl; l++) {
		trace_meta(f, "thread_name", pid, (uint32_t)l + 1);
		fprintf(f, "{\"name\":\"lane %d\"}}", l + 1);
		trace_meta(f, "thread_sort_index", pid, (uint32_t)l + 1);
		fprintf(f, "{\"sort_index\":%d}}", l + 1);
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), trace_cmp, sp);
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		trace_slice(f, sn, &sn->procs[i], &sp[i], pid, lane[i] + 1, &buf, &cap);
	}
	trace_counters(f, sn, pid);
	fputs("\n]}\n", f);
	rc = ferror(f) ? -EIO : 0;
out:
	free(sp);
	free(lane);
	free(order);
	free(buf);
	return rc;
}
