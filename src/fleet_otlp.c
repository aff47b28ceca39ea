/* fleet_otlp.c: a run's figures as OTLP/HTTP JSON metrics, the resource
 * they describe, and the OpenTelemetry environment (fleet.h). The JSON
 * follows the OTLP encoding: lowerCamelCase keys, 64-bit integers as
 * strings, enums as numbers. */
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

/* A metric sent: its name (the semantic conventions' where one exists),
 * unit, description, and up to two figures, each a data point (with an
 * attribute telling them apart when there are two). */
struct otlp_metric {
	const char *name, *unit, *desc;
	int sum; /* a cumulative monotonic sum over the run (else a gauge) */
	int fig[2];
	const char *attr, *val[2];
};
static const struct otlp_metric metrics[] = {
	{"spacetime.peak_pss", "By", "The process tree's peak PSS in the run", 0, {FLEET_PEAK_PSS, -1}, NULL, {0}},
	{"spacetime.peak_pss.anonymous", "By", "Anonymous memory in the peak PSS", 0, {FLEET_PEAK_ANON, -1}, NULL,
	 {0}},
	{"spacetime.peak_pss.file", "By", "File-backed memory in the peak PSS", 0, {FLEET_PEAK_FILE, -1}, NULL, {0}},
	{"spacetime.peak_pss.shmem", "By", "Shared memory in the peak PSS", 0, {FLEET_PEAK_SHMEM, -1}, NULL, {0}},
	{"spacetime.peak_pss.bound", "By", "No instant of the tree's PSS went above this", 0, {FLEET_PEAK_BOUND, -1},
	 NULL, {0}},
	{"spacetime.peak_rss", "By", "The largest high-water RSS of one process", 0, {FLEET_PEAK_RSS, -1}, NULL, {0}},
	{"process.uptime", "s", "The run's wall-clock time", 0, {FLEET_WALL, -1}, NULL, {0}},
	{"process.cpu.time", "s", "CPU time of the whole tree", 1, {FLEET_USER, FLEET_SYS}, "cpu.mode",
	 {"user", "system"}},
	{"process.paging.faults", "{fault}", "Page faults of the whole tree", 1, {FLEET_MINFLT, FLEET_MAJFLT},
	 "system.paging.type", {"minor", "major"}},
	{"process.context_switches", "{context_switch}", "Context switches of the whole tree", 1,
	 {FLEET_NVCSW, FLEET_NIVCSW}, "process.context_switch_type", {"voluntary", "involuntary"}},
	{"process.disk.io", "By", "Bytes the tree read and wrote on block devices", 1, {FLEET_READ, FLEET_WRITE},
	 "disk.io.direction", {"read", "write"}},
	{"spacetime.processes", "{process}", "Processes the run had", 1, {FLEET_PROCS, -1}, NULL, {0}},
	{"spacetime.threads", "{thread}", "Threads the run had", 1, {FLEET_THREADS, -1}, NULL, {0}},
	{"spacetime.execs", "{exec}", "Programs executed", 1, {FLEET_EXECS, -1}, NULL, {0}},
	{"spacetime.exit_status", "1", "The command's exit status as a shell shows it", 0, {FLEET_EXIT, -1}, NULL,
	 {0}},
};

/* {"key":KEY,"value":{ with a comma before it unless first. */
static void attr_open(FILE *f, const char *key, int *first)
{
	if (!*first)
		fputc(',', f);
	*first = 0;
	fputs("{\"key\":", f);
	jsonw_str(f, key, strlen(key));
	fputs(",\"value\":{", f);
}

void fleet_json_attr_str(FILE *f, const char *key, const char *v, size_t len, int *first)
{
	attr_open(f, key, first);
	fputs("\"stringValue\":", f);
	jsonw_str(f, v, len);
	fputs("}}", f);
}

void fleet_json_attr_int(FILE *f, const char *key, int64_t v, int *first)
{
	attr_open(f, key, first);
	fprintf(f, "\"intValue\":\"%lld\"}}", (long long)v);
}

void fleet_json_attr_argv(FILE *f, const char *key, const char *blob, size_t len, int *first)
{
	attr_open(f, key, first);
	fputs("\"arrayValue\":{\"values\":[", f);
	for (size_t i = 0, k = 0; i < len; k++) {
		size_t n = strnlen(blob + i, len - i);
		fprintf(f, "%s{\"stringValue\":", k ? "," : "");
		jsonw_str(f, blob + i, n);
		fputc('}', f);
		i += n + 1;
	}
	fputs("]}}}", f);
}

/* Whether key is among the pairs (fleet_pairs_parse's). */
static int pairs_have(const struct fleet_pairs *p, const char *key, size_t len)
{
	for (size_t i = 0; i < p->n; i++)
		if (strlen(p->key[i]) == len && !memcmp(p->key[i], key, len))
			return 1;
	return 0;
}

static int labels_have(const struct fleet_run *r, const char *key)
{
	size_t len = strlen(key);
	for (size_t i = 0; i < r->nlabels; i++)
		if (!strncmp(r->labels[i], key, len) && r->labels[i][len] == '=')
			return 1;
	return 0;
}

/* The command as one blob (NUL after each argument). */
static size_t argv_blob(char *const *argv, char *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; argv && argv[i]; i++) {
		size_t l = strlen(argv[i]) + 1;
		if (n + l > cap)
			break;
		memcpy(out + n, argv[i], l);
		n += l;
	}
	return n;
}

/* What spacetime knows of the run, unless the environment or a label says
 * otherwise. */
static void resource_own(FILE *f, const struct fleet_run *r, const struct fleet_pairs *env, int *first)
{
	struct store_summary s;
	char blob[4096];

	store_summary_get(r->st, &s);
#define OWN(k) (!pairs_have(env, k, strlen(k)) && !labels_have(r, k))
	if (OWN("host.name") && r->host)
		fleet_json_attr_str(f, "host.name", r->host, strlen(r->host), first);
	if (OWN("process.executable.name") && r->argv && r->argv[0]) {
		const char *b = strrchr(r->argv[0], '/');
		b = b ? b + 1 : r->argv[0];
		fleet_json_attr_str(f, "process.executable.name", b, strlen(b), first);
	}
	if (OWN("process.command_args") && r->argv)
		fleet_json_attr_argv(f, "process.command_args", blob, argv_blob(r->argv, blob, sizeof(blob)), first);
	if (OWN("process.exit.code") && s.exited && !s.attached)
		fleet_json_attr_int(f, "process.exit.code", exitcode_of(s.wait_status), first);
#undef OWN
}

int fleet_otlp_resource(FILE *f, const struct fleet_run *r, const struct fleet_otlp_res *res)
{
	struct fleet_pairs env;
	int first = 1;

	if (fleet_pairs_parse(res->attrs, &env) < 0)
		env.n = 0;
	fputs("\"resource\":{\"attributes\":[", f);
	const char *svc = res->service && *res->service ? res->service : NULL;
	if (svc || (!pairs_have(&env, "service.name", 12) && !labels_have(r, "service.name")))
		fleet_json_attr_str(f, "service.name", svc ? svc : "spacetime", strlen(svc ? svc : "spacetime"),
				    &first);
	resource_own(f, r, &env, &first);
	for (size_t i = 0; i < env.n; i++) {
		int svc_dup = svc && !strcmp(env.key[i], "service.name");
		struct fleet_pairs later = env;
		later.key[i] = ""; /* a key given twice: the last one stands */
		for (size_t j = 0; j <= i; j++)
			later.key[j] = "";
		if (!svc_dup && !labels_have(r, env.key[i]) && !pairs_have(&later, env.key[i], strlen(env.key[i])))
			fleet_json_attr_str(f, env.key[i], env.val[i], strlen(env.val[i]), &first);
	}
	for (size_t i = 0; i < r->nlabels; i++) {
		const char *eq = strchr(r->labels[i], '=');
		char key[64];
		if (!eq || (size_t)(eq - r->labels[i]) >= sizeof(key))
			continue;
		memcpy(key, r->labels[i], (size_t)(eq - r->labels[i]));
		key[eq - r->labels[i]] = 0;
		int later = 0; /* a key given twice: the last one stands */
		for (size_t j = i + 1; j < r->nlabels; j++)
			later |= !strncmp(r->labels[j], key, strlen(key)) && r->labels[j][strlen(key)] == '=';
		if (!later && !(svc && !strcmp(key, "service.name")))
			fleet_json_attr_str(f, key, eq + 1, strlen(eq + 1), &first);
	}
	fputs("]}", f);
	free(env.buf);
	return 0;
}

static void point(FILE *f, const struct fleet_fig *g, const struct otlp_metric *m, int k, uint64_t t0,
		  uint64_t t1, int first)
{
	fprintf(f, "%s{", first ? "" : ",");
	if (m->sum)
		fprintf(f, "\"startTimeUnixNano\":\"%llu\",", (unsigned long long)t0);
	fprintf(f, "\"timeUnixNano\":\"%llu\",", (unsigned long long)t1);
	if (g->is_double)
		fprintf(f, "\"asDouble\":%.6f", g->d);
	else
		fprintf(f, "\"asInt\":\"%llu\"", (unsigned long long)g->u);
	if (m->attr) {
		int a = 1;
		fputs(",\"attributes\":[", f);
		fleet_json_attr_str(f, m->attr, m->val[k], strlen(m->val[k]), &a);
		fputc(']', f);
	}
	fputc('}', f);
}

static void metric_head(FILE *f, const char *name, const char *unit, const char *desc, int sum, int *first)
{
	fprintf(f, "%s{\"name\":\"%s\",\"unit\":\"%s\",\"description\":\"%s\",", *first ? "" : ",", name, unit, desc);
	*first = 0;
	if (sum)
		fputs("\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,\"dataPoints\":[", f);
	else
		fputs("\"gauge\":{\"dataPoints\":[", f);
}

/* The heaviest jobs by peak PSS, a data point each. */
static int otlp_jobs(FILE *f, const struct fleet_run *r, uint64_t t1, int *first)
{
	struct fleet_job *j;
	long n = fleet_top_jobs(r, &j);

	if (n > 0)
		metric_head(f, "spacetime.job.peak_pss", "By", "Peak PSS of the run's heaviest processes", 0, first);
	for (long i = 0; i < n; i++) {
		const struct proc_rec *p = &j[i].rec;
		int a = 1;
		fprintf(f, "%s{\"timeUnixNano\":\"%llu\",\"asInt\":\"%llu\",\"attributes\":[", i ? "," : "",
			(unsigned long long)t1, (unsigned long long)p->peak_pss_kib * 1024);
		fleet_json_attr_int(f, "spacetime.job.rank", i + 1, &a);
		fleet_json_attr_str(f, "spacetime.job.name", j[i].name, j[i].len, &a);
		fleet_json_attr_str(f, "process.executable.name", p->comm, strnlen(p->comm, sizeof(p->comm)), &a);
		fleet_json_attr_int(f, "process.pid", p->pid, &a);
		fputs("]}", f);
	}
	if (n > 0)
		fputs("]}}", f);
	free(j);
	return n < 0 ? (int)n : 0;
}

int fleet_otlp_metrics(const struct fleet_run *r, const struct fleet_otlp_res *res, char **out, size_t *len)
{
	struct fleet_fig g[FLEET_NFIGS];
	FILE *f = open_memstream(out, len);
	int first = 1;

	if (!f)
		return -errno;
	fleet_figs(r, g);
	uint64_t t0 = r->start_wall_ns, t1 = t0 + (uint64_t)(g[FLEET_WALL].d * 1e9);
	fputs("{\"resourceMetrics\":[{", f);
	fleet_otlp_resource(f, r, res);
	fprintf(f, ",\"scopeMetrics\":[{\"scope\":{\"name\":\"spacetime\",\"version\":\"%s\"},\"metrics\":[",
		r->version ? r->version : "");
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		const struct otlp_metric *m = &metrics[i];
		int any = 0;
		for (int k = 0; k < 2; k++)
			any |= m->fig[k] >= 0 && g[m->fig[k]].present;
		if (!any)
			continue;
		metric_head(f, m->name, m->unit, m->desc, m->sum, &first);
		for (int k = 0, p = 1; k < 2; k++)
			if (m->fig[k] >= 0 && g[m->fig[k]].present) {
				point(f, &g[m->fig[k]], m, k, t0, t1, p);
				p = 0;
			}
		fputs("]}}", f);
	}
	int e = otlp_jobs(f, r, t1, &first);
	fputs("]}]}]}", f);
	if (ferror(f) && !e)
		e = -EIO;
	if (fclose(f) != 0 && !e)
		e = -ENOMEM;
	if (e) {
		free(*out);
		*out = NULL;
	}
	return e;
}
