/* compare.c: see compare.h. */
#include "compare.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
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
		/* a process gone before any read of it has no peak PSS: unknown,
		 * not 0 */
		v[i].f.known = (r[i].valid & PROC_V_PSS) && r[i].peak_pss_kib;
		v[i].f.peak_pss_kib = r[i].peak_pss_kib;
		v[i].f.rss_known = (r[i].valid & PROC_V_RSS) && r[i].peak_rss_kib;
		v[i].f.peak_rss_kib = r[i].peak_rss_kib;
		v[i].f.cpu_us = r[i].utime_us + r[i].stime_us;
		v[i].f.faults = r[i].minflt + r[i].majflt;
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

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

void compare_stat_of(uint64_t *v, size_t n, struct compare_stat *out)
{
	*out = (struct compare_stat){0, 0, 0};
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	/* the spread without the lowest and the highest run, from five on: one
	 * run whose compilers happened to overlap is no measure of the rest */
	size_t cut = n >= 5 ? 1 : 0;
	out->lo = v[cut];
	out->hi = v[n - 1 - cut];
	out->med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int compare_past_noise(const struct compare_stat *a, const struct compare_stat *b)
{
	uint64_t d = a->med > b->med ? a->med - b->med : b->med - a->med;
	uint64_t sa = a->hi - a->lo, sb = b->hi - b->lo;
	return d > sa && d > sb;
}

static const struct {
	const char *name;
	enum compare_metric unit;
} compare_sorts[CMP_NSORTS] = {
	[CMP_SORT_PEAK_PSS] = {"peak_pss", CMP_PEAK_PSS},
	[CMP_SORT_CPU] = {"cpu", CMP_USER},
	[CMP_SORT_WALL] = {"wall", CMP_WALL},
	[CMP_SORT_FAULTS] = {"faults", CMP_MINFLT},
};

const char *compare_sort_name(enum compare_sort s)
{
	return s < CMP_NSORTS ? compare_sorts[s].name : "?";
}

enum compare_metric compare_sort_metric(enum compare_sort s)
{
	return s < CMP_NSORTS ? compare_sorts[s].unit : CMP_PEAK_PSS;
}

int compare_sort_parse(const char *name)
{
	for (int s = 0; s < CMP_NSORTS; s++)
		if (!strcmp(name, compare_sorts[s].name))
			return s;
	return -1;
}

uint64_t compare_fig_value(const struct compare_fig *f, enum compare_sort s)
{
	if (!f->present)
		return 0;
	switch (s) {
	case CMP_SORT_CPU: return f->cpu_us;
	case CMP_SORT_WALL: return f->wall_us;
	case CMP_SORT_FAULTS: return f->faults;
	default: return f->peak_pss_kib;
	}
}

/* How much a job changed in s (a job of one side only: its figure). */
static uint64_t change_of(const struct compare_job *j, enum compare_sort s)
{
	uint64_t a = compare_fig_value(&j->side[0], s), b = compare_fig_value(&j->side[1], s);
	return a > b ? a - b : b - a;
}

static int cmp_change(const void *x, const void *y, void *by)
{
	enum compare_sort s = *(const enum compare_sort *)by;
	uint64_t a = change_of(x, s), b = change_of(y, s);
	if (a != b)
		return (a < b) - (a > b);
	return strcmp(((const struct compare_job *)x)->key, ((const struct compare_job *)y)->key);
}

void compare_jobs_sort(struct compare_job *jobs, size_t n, enum compare_sort s)
{
	if (n)
		qsort_r(jobs, n, sizeof(*jobs), cmp_change, &s);
}

/* A job of one run, tagged with its side. */
struct tagged {
	struct run_job j;
	int side;
};

static int cmp_tagged(const void *x, const void *y)
{
	const struct tagged *a = x, *b = y;
	int c = strcmp(a->j.key, b->j.key);
	if (c)
		return c;
	return (a->j.f.nth > b->j.f.nth) - (a->j.f.nth < b->j.f.nth);
}

/* The jobs of every run of both sides, tagged, sorted by key and k-th. */
static ssize_t all_jobs(struct store *const *a, size_t na, struct store *const *b, size_t nb, struct tagged **out)
{
	struct tagged *v = NULL;
	size_t n = 0;

	*out = NULL;
	for (size_t r = 0; r < na + nb; r++) {
		struct run_job *j = NULL;
		ssize_t k = run_jobs(r < na ? a[r] : b[r - na], &j);
		struct tagged *g = k < 0 ? NULL : realloc(v, (n + (size_t)k + 1) * sizeof(*v));
		if (!g) {
			free(j);
			free(v);
			return -ENOMEM;
		}
		v = g;
		for (ssize_t i = 0; i < k; i++)
			v[n++] = (struct tagged){j[i], r >= na};
		free(j);
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_tagged);
	*out = v;
	return (ssize_t)n;
}

/* The median over side s of the group v[0..n) of the figure at offset off
 * of struct compare_fig (a uint64_t). */
static uint64_t side_med(const struct tagged *v, size_t n, int s, uint64_t *scratch, size_t off)
{
	struct compare_stat st;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].side == s)
			memcpy(&scratch[k++], (const char *)&v[i].j.f + off, sizeof(uint64_t));
	compare_stat_of(scratch, k, &st);
	return st.med;
}

/* The figures of side s of the group v[0..n) (one key and k-th). */
static void side_fig(const struct tagged *v, size_t n, int s, uint64_t *scratch, struct compare_fig *f)
{
	struct compare_stat st;
	size_t k = 0;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < n; i++)
		f->present += v[i].side == s;
	if (!f->present)
		return;
	f->nth = v[0].j.f.nth;
	/* its peak over the runs where it is known */
	for (size_t i = 0; i < n; i++)
		if (v[i].side == s && v[i].j.f.known)
			scratch[k++] = v[i].j.f.peak_pss_kib;
	f->known = (uint32_t)k;
	compare_stat_of(scratch, k, &st);
	f->peak_pss_kib = st.med;
	f->peak_lo_kib = st.lo;
	f->peak_hi_kib = st.hi;
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].side == s && v[i].j.f.rss_known)
			scratch[k++] = v[i].j.f.peak_rss_kib;
	f->rss_known = (uint32_t)k;
	compare_stat_of(scratch, k, &st);
	f->peak_rss_kib = st.med;
	f->rss_lo_kib = st.lo;
	f->rss_hi_kib = st.hi;
	f->cpu_us = side_med(v, n, s, scratch, offsetof(struct compare_fig, cpu_us));
	f->wall_us = side_med(v, n, s, scratch, offsetof(struct compare_fig, wall_us));
	f->faults = side_med(v, n, s, scratch, offsetof(struct compare_fig, faults));
}

ssize_t compare_jobs_n(struct store *const *a, size_t na, struct store *const *b, size_t nb, struct compare_job **out)
{
	struct tagged *v = NULL;
	ssize_t n = all_jobs(a, na, b, nb, &v);
	struct compare_job *jobs = n < 0 ? NULL : calloc((size_t)n + 1, sizeof(*jobs));
	uint64_t *scratch = n < 0 ? NULL : malloc(((size_t)n + 1) * sizeof(*scratch));
	size_t k = 0;

	*out = NULL;
	if (n < 0 || !jobs || !scratch) {
		free(v);
		free(jobs);
		free(scratch);
		return -ENOMEM;
	}
	for (size_t i = 0; i < (size_t)n;) {
		size_t e = i + 1;
		while (e < (size_t)n && !cmp_tagged(&v[i], &v[e]))
			e++;
		snprintf(jobs[k].key, sizeof(jobs[k].key), "%s", v[i].j.key);
		side_fig(v + i, e - i, 0, scratch, &jobs[k].side[0]);
		side_fig(v + i, e - i, 1, scratch, &jobs[k].side[1]);
		k++;
		i = e;
	}
	free(v);
	free(scratch);
	compare_jobs_sort(jobs, k, CMP_SORT_PEAK_PSS);
	*out = jobs;
	return (ssize_t)k;
}

/* Whether a figure moved from a to b by more than COMPARE_JOB_PCT of a and
 * past the noise. */
static int moved(const struct compare_stat *a, const struct compare_stat *b)
{
	uint64_t d = a->med > b->med ? a->med - b->med : b->med - a->med;
	return (double)d > (double)a->med * COMPARE_JOB_PCT / 100 && compare_past_noise(a, b);
}

int compare_job_changed(const struct compare_job *j)
{
	const struct compare_fig *x = &j->side[0], *y = &j->side[1];
	struct compare_stat pa = {x->peak_pss_kib, x->peak_lo_kib, x->peak_hi_kib};
	struct compare_stat pb = {y->peak_pss_kib, y->peak_lo_kib, y->peak_hi_kib};
	struct compare_stat ra = {x->peak_rss_kib, x->rss_lo_kib, x->rss_hi_kib};
	struct compare_stat rb = {y->peak_rss_kib, y->rss_lo_kib, y->rss_hi_kib};

	if (!x->known || !y->known || !moved(&pa, &pb))
		return 0;
	/* its high-water RSS, where known, must say so too */
	return !x->rss_known || !y->rss_known || moved(&ra, &rb);
}

ssize_t compare_jobs(struct store *a, struct store *b, struct compare_job **out)
{
	return compare_jobs_n(&a, 1, &b, 1, out);
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

int compare_gate_stats(const struct compare_stat a[CMP_NMETRICS], const struct compare_stat b[CMP_NMETRICS],
		       const double pct[CMP_NMETRICS])
{
	for (int m = 0; m < CMP_NMETRICS; m++) {
		if (pct[m] < 0 || b[m].med <= a[m].med)
			continue;
		if ((double)b[m].med > (double)a[m].med * (1 + pct[m] / 100) && compare_past_noise(&a[m], &b[m]))
			return m;
	}
	return -1;
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

/* One process, as its program's part in one run. */
struct prog_run {
	char name[16];
	int side;
	size_t run;
	uint64_t count, cpu_us, peak_pss_kib, kib_s;
};

/* Index of a process id among the n ids sorted, or -1. */
static ssize_t id_at(const uint64_t *ids, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ids[mid] < id)
			lo = mid + 1;
		else if (ids[mid] > id)
			hi = mid;
		else
			return (ssize_t)mid;
	}
	return -1;
}

int compare_kib_seconds(struct store *st, const uint64_t *ids, const uint64_t *end_ns, size_t n, double *kib_s)
{
	struct store_proc_sample buf[512];
	uint64_t cursor = 0;
	uint64_t *last_t = calloc(n + 1, sizeof(*last_t)), *last_v = calloc(n + 1, sizeof(*last_v));
	char *seen = calloc(n + 1, 1);
	size_t got;

	if (!last_t || !last_v || !seen) {
		free(last_t);
		free(last_v);
		free(seen);
		return -ENOMEM;
	}
	while ((got = store_proc_samples(st, &cursor, buf, sizeof(buf) / sizeof(buf[0]), NULL)) > 0)
		for (size_t i = 0; i < got; i++) {
			ssize_t k = (buf[i].valid & PROC_V_PSS) ? id_at(ids, n, buf[i].id) : -1;
			if (k < 0)
				continue;
			if (seen[k] && buf[i].t_ns > last_t[k])
				kib_s[k] += (double)last_v[k] * (double)(buf[i].t_ns - last_t[k]) / 1e9;
			seen[k] = 1;
			last_t[k] = buf[i].t_ns;
			last_v[k] = buf[i].pss_kib;
		}
	for (size_t k = 0; k < n; k++)
		if (seen[k] && end_ns[k] > last_t[k])
			kib_s[k] += (double)last_v[k] * (double)(end_ns[k] - last_t[k]) / 1e9;
	free(last_t);
	free(last_v);
	free(seen);
	return 0;
}

static int cmp_rec_id(const void *x, const void *y)
{
	const struct proc_rec *a = x, *b = y;
	return (a->id > b->id) - (a->id < b->id);
}

/* The processes of run `run` (of side `side`) appended to *v. Returns 0 or
 * -ENOMEM. */
static int run_procs(struct store *st, int side, size_t run, struct prog_run **v, size_t *nv)
{
	size_t n = store_procs(st, STORE_PROCS_ALL, NULL, 0);
	struct proc_rec *r = malloc((n + 1) * sizeof(*r));
	uint64_t *ids = malloc((n + 1) * sizeof(*ids)), *ends = malloc((n + 1) * sizeof(*ends));
	double *ks = calloc(n + 1, sizeof(*ks));
	struct prog_run *g = NULL;
	int e = -ENOMEM;

	if (!r || !ids || !ends || !ks)
		goto out;
	size_t got = n ? store_procs(st, STORE_PROCS_ALL, r, n) : 0;
	n = got < n ? got : n;
	if (n)
		qsort(r, n, sizeof(*r), cmp_rec_id);
	for (size_t i = 0; i < n; i++) {
		ids[i] = r[i].id;
		ends[i] = r[i].end_ns;
	}
	if (compare_kib_seconds(st, ids, ends, n, ks) < 0 || !(g = realloc(*v, (*nv + n + 1) * sizeof(**v))))
		goto out;
	*v = g;
	for (size_t i = 0; i < n; i++)
		(*v)[(*nv)++] = (struct prog_run){.side = side, .run = run, .count = 1,
						  .cpu_us = r[i].utime_us + r[i].stime_us,
						  .peak_pss_kib = r[i].peak_pss_kib, .kib_s = (uint64_t)ks[i]};
	for (size_t i = 0; i < n; i++)
		snprintf((*v)[*nv - n + i].name, sizeof((*v)[0].name), "%.15s", r[i].comm[0] ? r[i].comm : "?");
	e = 0;
out:
	free(r);
	free(ids);
	free(ends);
	free(ks);
	return e;
}

static int cmp_prog_run(const void *x, const void *y)
{
	const struct prog_run *a = x, *b = y;
	int c = strcmp(a->name, b->name);
	return c ? c : (a->run > b->run) - (a->run < b->run);
}

/* v[0..n) of one program, sorted by run: its figures on side s (the medians
 * over the side's runs that ran it). */
static void prog_side(const struct prog_run *v, size_t n, int s, uint64_t *scratch, struct compare_prog_fig *f)
{
	/* per run first: the sums (the peak: the largest) */
	struct prog_run per[COMPARE_PROG_RUNS];
	size_t k = 0;
	struct compare_stat st;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < n; i++) {
		if (v[i].side != s)
			continue;
		if (!k || per[k - 1].run != v[i].run) {
			if (k == COMPARE_PROG_RUNS)
				break;
			per[k] = v[i];
			per[k++].count = 0;
			per[k - 1].cpu_us = per[k - 1].peak_pss_kib = per[k - 1].kib_s = 0;
		}
		struct prog_run *p = &per[k - 1];
		p->count++;
		p->cpu_us += v[i].cpu_us;
		p->kib_s += v[i].kib_s;
		if (v[i].peak_pss_kib > p->peak_pss_kib)
			p->peak_pss_kib = v[i].peak_pss_kib;
	}
	f->runs = (uint32_t)k;
	for (int m = 0; m < 4 && k; m++) {
		for (size_t i = 0; i < k; i++)
			scratch[i] = m == 0 ? per[i].count : m == 1 ? per[i].cpu_us : m == 2 ? per[i].peak_pss_kib : per[i].kib_s;
		compare_stat_of(scratch, k, &st);
		*(m == 0 ? &f->count : m == 1 ? &f->cpu_us : m == 2 ? &f->peak_pss_kib : &f->kib_s) = st.med;
	}
}

static uint64_t prog_change(const struct compare_prog *p)
{
	uint64_t a = p->side[0].kib_s, b = p->side[1].kib_s;
	return a > b ? a - b : b - a;
}

static int cmp_prog_change(const void *x, const void *y)
{
	uint64_t a = prog_change(x), b = prog_change(y);
	if (a != b)
		return (a < b) - (a > b);
	return strcmp(((const struct compare_prog *)x)->name, ((const struct compare_prog *)y)->name);
}

ssize_t compare_programs(struct store *const *a, size_t na, struct store *const *b, size_t nb,
			 struct compare_prog **out)
{
	struct prog_run *v = NULL;
	size_t n = 0, k = 0;
	uint64_t scratch[COMPARE_PROG_RUNS];

	*out = NULL;
	for (size_t r = 0; r < na + nb; r++)
		if (run_procs(r < na ? a[r] : b[r - na], r >= na, r, &v, &n) < 0) {
			free(v);
			return -ENOMEM;
		}
	if (n)
		qsort(v, n, sizeof(*v), cmp_prog_run);
	struct compare_prog *p = calloc(n + 1, sizeof(*p));
	if (!p) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;
		while (e < n && !strcmp(v[e].name, v[i].name))
			e++;
		snprintf(p[k].name, sizeof(p[k].name), "%s", v[i].name);
		prog_side(v + i, e - i, 0, scratch, &p[k].side[0]);
		prog_side(v + i, e - i, 1, scratch, &p[k].side[1]);
		k++;
		i = e;
	}
	free(v);
	qsort(p, k, sizeof(*p), cmp_prog_change);
	*out = p;
	return (ssize_t)k;
}
