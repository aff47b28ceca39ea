/* fleet_spans.c: the process tree as OTLP spans (fleet.h): one trace per
 * run, a span for the run, one for each process under its parent's. Ids
 * come from the run (its start and host) and the process's own id, so the
 * same recording pushed twice is the same trace. */
#include "fleet.h"
#include "fleet_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "export_jobs.h"
#include "jobname.h"
#include "jsonw.h"
#include "proctree.h"

struct fleet_spans {
	struct proc_rec *p;
	size_t n;
	size_t *parent; /* index + 1 of its parent's record, 0: the run's span */
	uint64_t trace[2], run_span;
	struct store_summary sum;
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x ? x : 1;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Each record's parent (proctree.h), as the index + 1 of its record, 0 for
 * the run's span. */
static int link_parents(struct fleet_spans *sp)
{
	if (proctree_parents(sp->p, sp->n, sp->parent) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < sp->n; i++)
		sp->parent[i] = sp->parent[i] == PROCTREE_NONE ? 0 : sp->parent[i] + 1;
	return 0;
}

int fleet_spans_new(const struct fleet_run *r, struct fleet_spans **out)
{
	struct fleet_spans *sp = calloc(1, sizeof(*sp));
	size_t n = 0, got;

	if (!sp)
		return -ENOMEM;
	/* the run may still grow between the count and the copy */
	while ((got = store_procs(r->st, STORE_PROCS_ALL, sp->p, n)) > n) {
		free(sp->p);
		n = got + 64;
		if (!(sp->p = calloc(n, sizeof(*sp->p)))) {
			free(sp);
			return -ENOMEM;
		}
	}
	sp->n = got;
	store_summary_get(r->st, &sp->sum);
	if (!(sp->parent = calloc(sp->n ? sp->n : 1, sizeof(*sp->parent))) || link_parents(sp) < 0) {
		fleet_spans_free(sp);
		return -ENOMEM;
	}
	sp->trace[0] = mix(r->start_wall_ns ^ hash_str(r->host));
	sp->trace[1] = mix(sp->trace[0] ^ (sp->n ? (uint64_t)sp->p[0].pid : 0));
	sp->run_span = mix(sp->trace[1] ^ 0x5eedull);
	*out = sp;
	return 0;
}

void fleet_spans_free(struct fleet_spans *sp)
{
	if (!sp)
		return;
	free(sp->p);
	free(sp->parent);
	free(sp);
}

size_t fleet_spans_count(const struct fleet_spans *sp)
{
	return sp->n + 1;
}

static uint64_t span_id(const struct fleet_spans *sp, size_t i)
{
	return mix(sp->trace[1] + (sp->p[i].id + 1) * 0x9e3779b97f4a7c15ull);
}

/* A store instant as ns since the epoch. */
static uint64_t wall_of(const struct fleet_run *r, const struct fleet_spans *sp, uint64_t t)
{
	return r->start_wall_ns + (uint64_t)((int64_t)(t - sp->sum.start_ns));
}

static uint64_t run_end(const struct fleet_spans *sp)
{
	return sp->sum.end_ns ? sp->sum.end_ns : sp->sum.last.t_ns;
}

static void span_open(FILE *f, const struct fleet_spans *sp, uint64_t id, uint64_t parent, int first)
{
	fprintf(f, "%s{\"traceId\":\"%016llx%016llx\",\"spanId\":\"%016llx\",", first ? "" : ",",
		(unsigned long long)sp->trace[0], (unsigned long long)sp->trace[1], (unsigned long long)id);
	if (parent)
		fprintf(f, "\"parentSpanId\":\"%016llx\",", (unsigned long long)parent);
}

static void span_times(FILE *f, uint64_t t0, uint64_t t1)
{
	fprintf(f, ",\"kind\":1,\"startTimeUnixNano\":\"%llu\",\"endTimeUnixNano\":\"%llu\",\"attributes\":[",
		(unsigned long long)t0, (unsigned long long)(t1 > t0 ? t1 : t0));
}

/* Closes the attributes; an exit other than 0 is the span's error. */
static void span_close(FILE *f, int exit_known, int wait_status)
{
	fputc(']', f);
	if (exit_known && exitcode_of(wait_status) != 0) {
		char w[96];
		exitcode_words(wait_status, w, sizeof(w));
		fputs(",\"status\":{\"code\":2,\"message\":", f);
		jsonw_str(f, w, strlen(w));
		fputc('}', f);
	}
	fputc('}', f);
}

static void run_span(FILE *f, const struct fleet_run *r, const struct fleet_spans *sp, int first)
{
	char name[160] = "";
	size_t n = 0;
	int a = 1;

	for (size_t i = 0; r->argv && r->argv[i] && n + 1 < sizeof(name); i++)
		n += (size_t)snprintf(name + n, sizeof(name) - n, "%s%s", i ? " " : "", r->argv[i]);
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	span_open(f, sp, sp->run_span, 0, first);
	fputs("\"name\":", f);
	jsonw_str(f, n ? name : "spacetime", n ? n : 9);
	span_times(f, wall_of(r, sp, sp->sum.start_ns), wall_of(r, sp, run_end(sp)));
	if (sp->sum.peak.pss_kib)
		fleet_json_attr_int(f, "spacetime.peak_pss", (int64_t)(sp->sum.peak.pss_kib * 1024), &a);
	fleet_json_attr_int(f, "spacetime.processes", sp->sum.last.total_procs, &a);
	int known = sp->sum.exited && !sp->sum.attached;
	if (known)
		fleet_json_attr_int(f, "process.exit.code", exitcode_of(sp->sum.wait_status), &a);
	span_close(f, known, sp->sum.wait_status);
}

struct span_buf {
	char *argv, job[JOBNAME_MAX + 1];
	size_t cap;
};

static void proc_attrs(FILE *f, const struct fleet_run *r, const struct proc_rec *p, struct span_buf *b)
{
	int a = 1;

	fleet_json_attr_int(f, "process.pid", p->pid, &a);
	fleet_json_attr_int(f, "process.parent_pid", p->ppid, &a);
	fleet_json_attr_str(f, "process.executable.name", p->comm, strnlen(p->comm, sizeof(p->comm)), &a);
	size_t jl = export_proc_job(r->st, p, &b->argv, &b->cap, b->job, sizeof(b->job));
	fleet_json_attr_str(f, "spacetime.job.name", b->job, jl, &a);
	ssize_t al = (p->valid & PROC_V_ARGV) ? store_str_get(r->st, p->argv_id, b->argv, b->cap) : -1;
	if (al > 0 && (size_t)al <= b->cap)
		fleet_json_attr_argv(f, "process.command_args", b->argv, (size_t)al, &a);
	if (p->valid & PROC_V_PSS)
		fleet_json_attr_int(f, "spacetime.peak_pss", (int64_t)(p->peak_pss_kib * 1024), &a);
	if (p->peak_rss_kib)
		fleet_json_attr_int(f, "spacetime.peak_rss", (int64_t)(p->peak_rss_kib * 1024), &a);
	if (p->valid & PROC_V_CPU) {
		fleet_json_attr_int(f, "spacetime.cpu.user_us", (int64_t)p->utime_us, &a);
		fleet_json_attr_int(f, "spacetime.cpu.system_us", (int64_t)p->stime_us, &a);
	}
	if (p->valid & PROC_V_EXIT)
		fleet_json_attr_int(f, "process.exit.code", exitcode_of(p->exit_status), &a);
}

static void proc_span(FILE *f, const struct fleet_run *r, const struct fleet_spans *sp, size_t i,
		      struct span_buf *b, int first)
{
	const struct proc_rec *p = &sp->p[i];
	uint64_t parent = sp->parent[i] ? span_id(sp, sp->parent[i] - 1) : sp->run_span;

	span_open(f, sp, span_id(sp, i), parent, first);
	fputs("\"name\":", f);
	size_t jl = export_proc_job(r->st, p, &b->argv, &b->cap, b->job, sizeof(b->job));
	if (!jl) /* neither argv nor comm known */
		jl = (size_t)snprintf(b->job, sizeof(b->job), "pid %d", (int)p->pid);
	jsonw_str(f, b->job, jl);
	span_times(f, wall_of(r, sp, p->start_ns), wall_of(r, sp, p->end_ns ? p->end_ns : run_end(sp)));
	proc_attrs(f, r, p, b);
	span_close(f, (p->valid & PROC_V_EXIT) != 0, p->exit_status);
}

int fleet_otlp_traces(const struct fleet_run *r, const struct fleet_spans *sp, size_t from, size_t n,
		      const struct fleet_otlp_res *res, char **out, size_t *len)
{
	FILE *f = open_memstream(out, len);
	struct span_buf b = {NULL, "", 0};

	if (!f)
		return -errno;
	fputs("{\"resourceSpans\":[{", f);
	fleet_otlp_resource(f, r, res);
	fprintf(f, ",\"scopeSpans\":[{\"scope\":{\"name\":\"spacetime\",\"version\":\"%s\"},\"spans\":[",
		r->version ? r->version : "");
	for (size_t k = from; k < from + n && k < sp->n + 1; k++) {
		if (k == 0)
			run_span(f, r, sp, 1);
		else
			proc_span(f, r, sp, k - 1, &b, k == from);
	}
	fputs("]}]}]}", f);
	free(b.argv);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}
