/* fleet.c: a run's figures, and the Prometheus exposition of them (fleet.h). */
#include "fleet.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "exitcode.h"
#include "fleet_int.h"
#include "export_jobs.h"
#include "jobname.h"
#include "peak.h"
#include "jsonw.h"

static void fig_u(struct fleet_fig *f, const char *name, const char *help, int present, uint64_t v)
{
	*f = (struct fleet_fig){.name = name, .help = help, .present = present, .u = v};
}

static void fig_d(struct fleet_fig *f, const char *name, const char *help, int present, double v)
{
	*f = (struct fleet_fig){.name = name, .help = help, .present = present, .is_double = 1, .d = v};
}

/* The peak PSS and what it is made of, and its bound. */
static void figs_peak(const struct store_summary *s, struct fleet_fig *o)
{
	struct peak pk;
	int pss = s->peak.pss_kib > 0;

	peak_of(s, &pk);
	fig_u(&o[FLEET_PEAK_PSS], "peak_pss_bytes", "The process tree's peak PSS (proportional set size) in the run.",
	      pss, s->peak.pss_kib * 1024);
	fig_u(&o[FLEET_PEAK_ANON], "peak_pss_anon_bytes", "Anonymous memory in the peak PSS.", pss,
	      s->peak.pss_anon_kib * 1024);
	fig_u(&o[FLEET_PEAK_FILE], "peak_pss_file_bytes", "File-backed memory in the peak PSS.", pss,
	      s->peak.pss_file_kib * 1024);
	fig_u(&o[FLEET_PEAK_SHMEM], "peak_pss_shmem_bytes", "Shared memory (shmem, tmpfs) in the peak PSS.", pss,
	      s->peak.pss_shmem_kib * 1024);
	fig_u(&o[FLEET_PEAK_BOUND], "peak_pss_bound_bytes",
	      "No instant of the tree's PSS went above this (between samples included).", pss && pk.bound_known,
	      pk.bound_kib * 1024);
	fig_u(&o[FLEET_PEAK_RSS], "peak_rss_bytes", "The largest high-water RSS of one process of the tree.", 1,
	      compare_metric_of(s, CMP_PEAK_RSS) * 1024);
}

void fleet_figs(const struct fleet_run *r, struct fleet_fig o[FLEET_NFIGS])
{
	struct store_summary s;

	store_summary_get(r->st, &s);
	figs_peak(&s, o);
	fig_d(&o[FLEET_WALL], "wall_seconds", "The run's wall-clock time.", 1,
	      (double)compare_metric_of(&s, CMP_WALL) / 1e6);
	fig_d(&o[FLEET_USER], "user_cpu_seconds", "User CPU time of the whole tree.", 1,
	      (double)compare_metric_of(&s, CMP_USER) / 1e6);
	fig_d(&o[FLEET_SYS], "system_cpu_seconds", "System CPU time of the whole tree.", 1,
	      (double)compare_metric_of(&s, CMP_SYS) / 1e6);
	fig_u(&o[FLEET_PROCS], "processes", "Processes the run had, the command's included.", 1,
	      compare_metric_of(&s, CMP_PROCS));
	fig_u(&o[FLEET_THREADS], "threads", "Threads the run had.", 1, compare_metric_of(&s, CMP_THREADS));
	fig_u(&o[FLEET_EXECS], "execs", "Programs executed (execve calls).", 1, compare_metric_of(&s, CMP_EXECS));
	fig_u(&o[FLEET_MINFLT], "minor_faults", "Minor page faults of the tree.", 1,
	      compare_metric_of(&s, CMP_MINFLT));
	fig_u(&o[FLEET_MAJFLT], "major_faults", "Major page faults (read from disk) of the tree.", 1,
	      compare_metric_of(&s, CMP_MAJFLT));
	/* attached: only wait4 sums these over a tree */
	fig_u(&o[FLEET_NVCSW], "voluntary_context_switches", "Voluntary context switches of the tree.",
	      !s.attached, s.ru_nvcsw);
	fig_u(&o[FLEET_NIVCSW], "involuntary_context_switches", "Involuntary context switches of the tree.",
	      !s.attached, s.ru_nivcsw);
	fig_u(&o[FLEET_READ], "block_read_bytes", "Bytes the tree read from block devices.", !s.attached,
	      s.ru_inblock * 512);
	fig_u(&o[FLEET_WRITE], "block_write_bytes", "Bytes the tree wrote to block devices.", !s.attached,
	      s.ru_oublock * 512);
	fig_u(&o[FLEET_EXIT], "exit_status", "The command's exit status as a shell shows it (128+N: signal N).",
	      s.exited && !s.attached, (uint64_t)exitcode_of(s.wait_status));
	fig_d(&o[FLEET_START], "start_time_seconds", "When the run started, in seconds since the epoch.",
	      r->start_wall_ns > 0, (double)r->start_wall_ns / 1e9);
}

/* A label value escaped for the exposition (\\, \", \n), whatever the
 * locale: valid UTF-8 as it is, an invalid byte as U+FFFD. */
static void prom_esc(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = jsonw_utf8_len((const unsigned char *)s + i, len - i, &cp);
		if (!n) {
			fputs("\xef\xbf\xbd", f);
			i++;
			continue;
		}
		if (s[i] == '\\' || s[i] == '"')
			fputc('\\', f);
		if (s[i] == '\n')
			fputs("\\n", f);
		else
			fwrite(s + i, 1, n, f);
		i += n;
	}
}

static void prom_head(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP spacetime_%s %s\n# TYPE spacetime_%s gauge\n", name, help, name);
}

long fleet_top_jobs(const struct fleet_run *r, struct fleet_job **out)
{
	*out = NULL;
	if (r->top <= 0)
		return 0;
	struct proc_rec *top = calloc((size_t)r->top, sizeof(*top));
	struct fleet_job *j = calloc((size_t)r->top, sizeof(*j));
	long n = top && j ? export_top_procs(r->st, EXPORT_TOP_PSS, top, (size_t)r->top) : -ENOMEM;
	char *buf = NULL;
	size_t cap = 0;

	for (long i = 0; i < n; i++) {
		j[i].rec = top[i];
		j[i].len = export_proc_job(r->st, &top[i], &buf, &cap, j[i].name, sizeof(j[i].name));
	}
	free(buf);
	free(top);
	if (n <= 0) {
		free(j);
		return n;
	}
	*out = j;
	return n;
}

/* The heaviest jobs by peak PSS: a family labelled by rank, job name and
 * program (as many as --top: the labels stay few). */
static int prom_jobs(FILE *f, const struct fleet_run *r)
{
	struct fleet_job *j;
	long n = fleet_top_jobs(r, &j);

	if (n > 0)
		prom_head(f, "job_peak_pss_bytes", "Peak PSS of the run's heaviest processes (rank 1: the heaviest).");
	for (long i = 0; i < n; i++) {
		fprintf(f, "spacetime_job_peak_pss_bytes{rank=\"%ld\",job_name=\"", i + 1);
		prom_esc(f, j[i].name, j[i].len);
		fputs("\",program=\"", f);
		prom_esc(f, j[i].rec.comm, strnlen(j[i].rec.comm, sizeof(j[i].rec.comm)));
		fprintf(f, "\"} %llu\n", (unsigned long long)j[i].rec.peak_pss_kib * 1024);
	}
	free(j);
	return n < 0 ? (int)n : 0;
}

int fleet_prom_body(const struct fleet_run *r, char **out, size_t *len)
{
	struct fleet_fig fig[FLEET_NFIGS];
	FILE *f = open_memstream(out, len);

	if (!f)
		return -errno;
	fleet_figs(r, fig);
	for (int i = 0; i < FLEET_NFIGS; i++) {
		if (!fig[i].present)
			continue;
		prom_head(f, fig[i].name, fig[i].help);
		if (fig[i].is_double)
			fprintf(f, "spacetime_%s %.6f\n", fig[i].name, fig[i].d);
		else
			fprintf(f, "spacetime_%s %llu\n", fig[i].name, (unsigned long long)fig[i].u);
	}
	prom_head(f, "info", "The run: spacetime's version and the command line (value 1).");
	fprintf(f, "spacetime_info{version=\"");
	prom_esc(f, r->version ? r->version : "", r->version ? strlen(r->version) : 0);
	fputs("\",command_line=\"", f);
	for (size_t i = 0; r->argv && r->argv[i] && i < 32; i++) {
		if (i)
			fputc(' ', f);
		prom_esc(f, r->argv[i], strnlen(r->argv[i], 200));
	}
	fputs("\"} 1\n", f);
	int e = prom_jobs(f, r);
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

/* Label names the body's own series carry: a run's label of one of these
 * names would overwrite them (the Pushgateway puts the grouping key's
 * labels on every series pushed). */
static const char *const body_names[] = {"job", "version", "command_line", "rank", "job_name", "program"};

void fleet_prom_name(const char *key, size_t len, char *out, size_t cap)
{
	size_t n = 0;

	if (!cap)
		return;
	for (size_t i = 0; i < len && n + 1 < cap; i++)
		out[n++] = isalnum((unsigned char)key[i]) ? key[i] : '_';
	out[n] = 0;
	int clash = !n || isdigit((unsigned char)out[0]) || !strncmp(out, "__", 2);
	for (size_t i = 0; i < sizeof(body_names) / sizeof(body_names[0]); i++)
		clash |= !strcmp(out, body_names[i]);
	if (clash && n + 7 < cap) {
		memmove(out + 6, out, n + 1);
		memcpy(out, "label_", 6);
	}
}

/* One label of the grouping key: /name/value, the value as it is when it
 * is made of URL-safe characters, else base64url (name@base64). */
static int url_label(char *out, size_t cap, size_t *n, const char *name, const char *v, size_t vlen)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	/* "." and ".." would be path steps to the client: never plain */
	int plain = vlen > 0 && v[0] != '.';

	for (size_t i = 0; i < vlen; i++)
		plain &= isalnum((unsigned char)v[i]) || strchr("-._~", v[i]) != NULL;
	int k = snprintf(out + *n, cap - *n, "/%s%s/", name, plain ? "" : "@base64");
	if (k < 0 || (size_t)k >= cap - *n)
		return -ENAMETOOLONG;
	*n += (size_t)k;
	if (plain || !vlen) {
		/* an empty value: "=" says so in base64 */
		if (*n + (vlen ? vlen : 1) >= cap)
			return -ENAMETOOLONG;
		memcpy(out + *n, vlen ? v : "=", vlen ? vlen : 1);
		*n += vlen ? vlen : 1;
		out[*n] = 0;
		return 0;
	}
	for (size_t i = 0; i < vlen; i += 3) {
		uint32_t w = (uint32_t)(unsigned char)v[i] << 16;
		size_t m = vlen - i < 3 ? vlen - i : 3;
		if (m > 1)
			w |= (uint32_t)(unsigned char)v[i + 1] << 8;
		if (m > 2)
			w |= (unsigned char)v[i + 2];
		if (*n + 4 >= cap)
			return -ENAMETOOLONG;
		for (size_t j = 0; j < 4; j++)
			out[(*n)++] = j <= m ? b64[(w >> (18 - 6 * j)) & 63] : '=';
	}
	out[*n] = 0;
	return 0;
}

/* Whether a label after the i-th comes to name too (a key given twice, or
 * two keys that come to one name: the last one stands, as in OTLP). */
static int name_taken(const struct fleet_run *r, size_t i, const char *name)
{
	char other[80];

	for (size_t j = i + 1; j < r->nlabels; j++) {
		const char *eq = strchr(r->labels[j], '=');
		fleet_prom_name(r->labels[j], eq ? (size_t)(eq - r->labels[j]) : 0, other, sizeof(other));
		if (!strcmp(other, name))
			return 1;
	}
	return 0;
}

int fleet_prom_url(const struct fleet_run *r, const char *base, char *out, size_t cap)
{
	size_t bl = strlen(base), n;
	char name[80];
	int e = 0, host = 0;

	while (bl && base[bl - 1] == '/')
		bl--;
	int k = snprintf(out, cap, "%.*s/metrics/job/spacetime", (int)bl, base);
	if (k < 0 || (size_t)k >= cap)
		return -ENAMETOOLONG;
	n = (size_t)k;
	for (size_t i = 0; i < r->nlabels && !e; i++) {
		const char *eq = strchr(r->labels[i], '=');
		if (!eq)
			continue;
		fleet_prom_name(r->labels[i], (size_t)(eq - r->labels[i]), name, sizeof(name));
		if (name_taken(r, i, name))
			continue;
		host |= !strcmp(name, "host"); /* the user's host stands */
		e = url_label(out, cap, &n, name, eq + 1, strlen(eq + 1));
	}
	if (!e && !r->nlabels && r->argv && r->argv[0]) {
		const char *b = strrchr(r->argv[0], '/');
		b = b ? b + 1 : r->argv[0];
		e = url_label(out, cap, &n, "command", b, strlen(b));
	}
	if (!e && r->host && !host)
		e = url_label(out, cap, &n, "host", r->host, strlen(r->host));
	return e;
}
