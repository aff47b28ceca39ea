/* compare.c: see compare.h. */
#include "compare.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name, *unit;
} metrics[CMP_NMETRICS] = {
	[CMP_WALL] = {"wall", "us"},         [CMP_USER] = {"user", "us"},
	[CMP_SYS] = {"sys", "us"},           [CMP_PEAK_PSS] = {"peak_pss", "KiB"},
	[CMP_PEAK_ANON] = {"peak_pss_anon", "KiB"}, [CMP_PEAK_FILE] = {"peak_pss_file", "KiB"},
	[CMP_PEAK_SHMEM] = {"peak_pss_shmem", "KiB"}, [CMP_PEAK_RSS] = {"peak_rss", "KiB"},
	[CMP_PROCS] = {"processes", ""},     [CMP_THREADS] = {"threads", ""},
	[CMP_EXECS] = {"execs", ""},         [CMP_MINFLT] = {"minflt", ""},
	[CMP_MAJFLT] = {"majflt", ""},       [CMP_CSW] = {"ctx_switches", ""},
	[CMP_BLOCK_IO] = {"block_io", ""},
};

const char *compare_metric_name(enum compare_metric m)
{
	return m < CMP_NMETRICS ? metrics[m].name : "?";
}

const char *compare_metric_unit(enum compare_metric m)
{
	return m < CMP_NMETRICS ? metrics[m].unit : "";
}

uint64_t compare_metric_of(const struct store_summary *s, enum compare_metric m)
{
	uint64_t end = s->end_ns ? s->end_ns : s->last.t_ns;
	switch (m) {
	case CMP_WALL: return end > s->start_ns ? (end - s->start_ns) / 1000 : 0;
	case CMP_USER: return s->exited ? s->ru_utime_us : s->last.utime_us;
	case CMP_SYS: return s->exited ? s->ru_stime_us : s->last.stime_us;
	case CMP_PEAK_PSS: return s->peak.pss_kib;
	case CMP_PEAK_ANON: return s->peak.pss_anon_kib;
	case CMP_PEAK_FILE: return s->peak.pss_file_kib;
	case CMP_PEAK_SHMEM: return s->peak.pss_shmem_kib;
	case CMP_PEAK_RSS: return s->ru_maxrss_kib;
	case CMP_PROCS: return s->last.total_procs;
	case CMP_THREADS: return s->last.total_threads;
	case CMP_EXECS: return s->total_execs;
	case CMP_MINFLT: return s->exited ? s->ru_minflt : s->last.minflt;
	case CMP_MAJFLT: return s->exited ? s->ru_majflt : s->last.majflt;
	case CMP_CSW: return s->ru_nvcsw + s->ru_nivcsw;
	case CMP_BLOCK_IO: return s->ru_inblock + s->ru_oublock;
	default: return 0;
	}
}

/* Whether p[0..n) looks like mkstemp's six random characters: letters and
 * digits, with a digit or a case change in them (a word does not). */
static int random6(const char *p, size_t n)
{
	int digit = 0, upper = 0, lower = 0;

	if (n < 6)
		return 0;
	for (size_t i = 0; i < 6; i++) {
		if (!isalnum((unsigned char)p[i]))
			return 0;
		digit |= isdigit((unsigned char)p[i]) != 0;
		upper |= isupper((unsigned char)p[i]) != 0;
		lower |= islower((unsigned char)p[i]) != 0;
	}
	return digit || (upper && lower);
}

size_t compare_key(const char *job, char *out, size_t cap)
{
	size_t k = 0, n = strlen(job);

	if (!cap)
		return 0;
	for (size_t i = 0; i < n && k + 1 < cap;) {
		/* a component's start: cc or tmp. (gcc's, mktemp's) and six random */
		int start = i == 0 || job[i - 1] == '/' || job[i - 1] == ' ';
		size_t pre = !start ? 0 : !strncmp(job + i, "cc", 2) ? 2 : !strncmp(job + i, "tmp.", 4) ? 4 : 0;
		if (pre && random6(job + i + pre, n - i - pre) &&
		    (i + pre + 6 == n || !isalnum((unsigned char)job[i + pre + 6]))) {
			for (size_t j = 0; j < pre && k + 1 < cap; j++)
				out[k++] = job[i + j];
			if (k + 1 < cap)
				out[k++] = '*';
			i += pre + 6;
			continue;
		}
		out[k++] = job[i++];
	}
	out[k] = 0;
	return k;
}

/* One run's jobs: key, figures, in start order. */
struct run_job {
	char key[JOBNAME_MAX + 16];
	uint64_t start_ns;
	struct compare_fig f;
};

static int cmp_key_start(const void *x, const void *y)
{
	const struct run_job *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	if (c)
		return c;
	return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
}

/* The jobs of a run, sorted by key then start, each with its k-th. */
static ssize_t run_jobs(struct store *st, struct run_job **out)
{
	size_t n = store_procs(st, STORE_PROCS_ALL, NULL, 0);
	struct proc_rec *r = n ? malloc(n * sizeof(*r)) : NULL;
	struct run_job *v = n ? calloc(n, sizeof(*v)) : NULL;
	static char argv[8192];

	*out = NULL;
	if (n && (!r || !v)) {
		free(r);
		free(v);
		return -ENOMEM;
	}
	size_t got = n ? store_procs(st, STORE_PROCS_ALL, r, n) : 0;
	n = got < n ? got : n;
	for (size_t i = 0; i < n; i++) {
		char job[JOBNAME_MAX + 1];
		ssize_t len = r[i].argv_id && (r[i].valid & PROC_V_ARGV) ? store_str_get(st, r[i].argv_id, argv, sizeof(argv)) : 0;
		if (len > (ssize_t)sizeof(argv))
			len = sizeof(argv);
		jobname(len > 0 ? argv : NULL, len > 0 ? (size_t)len : 0, r[i].comm, job, sizeof(job));
		compare_key(job, v[i].key, sizeof(v[i].key));
		v[i].start_ns = r[i].start_ns;
		v[i].f.present = 1;
		v[i].f.peak_pss_kib = r[i].peak_pss_kib;
		v[i].f.cpu_us = r[i].utime_us + r[i].stime_us;
		v[i].f.wall_us = r[i].end_ns > r[i].start_ns ? (r[i].end_ns - r[i].start_ns) / 1000 : 0;
	}
	free(r);
	if (n)
		qsort(v, n, sizeof(*v), cmp_key_start);
	for (size_t i = 0; i < n; i++)
		v[i].f.nth = i && !strcmp(v[i].key, v[i - 1].key) ? v[i - 1].f.nth + 1 : 0;
	*out = v;
	return (ssize_t)n;
}

/* How much a job changed: the peak's difference (a job of one run: its peak). */
static uint64_t change_of(const struct compare_job *j)
{
	uint64_t a = j->side[0].present ? j->side[0].peak_pss_kib : 0;
	uint64_t b = j->side[1].present ? j->side[1].peak_pss_kib : 0;
	return a > b ? a - b : b - a;
}

static int cmp_change(const void *x, const void *y)
{
	uint64_t a = change_of(x), b = change_of(y);
	if (a != b)
		return (a < b) - (a > b);
	return strcmp(((const struct compare_job *)x)->key, ((const struct compare_job *)y)->key);
}

ssize_t compare_jobs(struct store *a, struct store *b, struct compare_job **out)
{
	struct run_job *ja = NULL, *jb = NULL;
	ssize_t na = run_jobs(a, &ja), nb = na < 0 ? -ENOMEM : run_jobs(b, &jb);
	struct compare_job *v = NULL;
	size_t k = 0, i = 0, j = 0;

	*out = NULL;
	if (na < 0 || nb < 0 || !(v = calloc((size_t)(na + nb) + 1, sizeof(*v)))) {
		free(ja);
		free(jb);
		return -ENOMEM;
	}
	/* both sorted by key then k-th: a merge */
	while (i < (size_t)na || j < (size_t)nb) {
		int c = i >= (size_t)na ? 1 : j >= (size_t)nb ? -1 : strcmp(ja[i].key, jb[j].key);
		if (!c)
			c = (ja[i].f.nth > jb[j].f.nth) - (ja[i].f.nth < jb[j].f.nth);
		struct compare_job *x = &v[k++];
		if (c <= 0) {
			snprintf(x->key, sizeof(x->key), "%s", ja[i].key);
			x->side[0] = ja[i++].f;
		}
		if (c >= 0) {
			snprintf(x->key, sizeof(x->key), "%s", jb[j].key);
			x->side[1] = jb[j++].f;
		}
	}
	free(ja);
	free(jb);
	qsort(v, k, sizeof(*v), cmp_change);
	*out = v;
	return (ssize_t)k;
}

int compare_gate_parse(const char *spec, double pct[CMP_NMETRICS], char *bad, size_t cap)
{
	for (int m = 0; m < CMP_NMETRICS; m++)
		pct[m] = -1;
	const char *p = spec;
	while (p && *p) {
		const char *comma = strchr(p, ','), *eq = strchr(p, '=');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int m = -1;
		if (eq && (size_t)(eq - p) < len)
			for (int k = 0; k < CMP_NMETRICS; k++)
				if (strlen(metrics[k].name) == (size_t)(eq - p) && !strncmp(p, metrics[k].name, (size_t)(eq - p)))
					m = k;
		char num[32], *end;
		size_t nl = eq && (size_t)(eq - p) < len ? len - (size_t)(eq - p) - 1 : 0;
		double v = -1;
		if (m >= 0 && nl > 1 && nl < sizeof(num) && eq[nl] == '%') {
			memcpy(num, eq + 1, nl - 1);
			num[nl - 1] = 0;
			v = strtod(num, &end);
			if (*end || end == num || !(v >= 0) || v > 1e6)
				v = -1;
		}
		if (v < 0) {
			snprintf(bad, cap, "%.*s", (int)(len < 100 ? len : 100), p);
			return -EINVAL;
		}
		pct[m] = v;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

int compare_gate(const struct store_summary *a, const struct store_summary *b, const double pct[CMP_NMETRICS])
{
	for (int m = 0; m < CMP_NMETRICS; m++) {
		if (pct[m] < 0)
			continue;
		double x = (double)compare_metric_of(a, (enum compare_metric)m);
		double y = (double)compare_metric_of(b, (enum compare_metric)m);
		if (y > x * (1 + pct[m] / 100) && y > x)
			return m;
	}
	return -1;
}
