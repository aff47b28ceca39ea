/* compare.c: `spacetime compare A B`, two recorded runs side by side (the
 * engine is src/compare.c): the totals with their change, the jobs that
 * changed most, and a gate for CI (--fail-above). */
#include "compare_ui.h"

#include "compare.h"
#include "exitcode.h"
#include "jsonw.h"
#include "recdir.h"
#include "report.h"
#include "run.h"
#include "runs.h"
#include "store.h"
#include "textsafe.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define COMPARE_EXIT_GATE 1
#define COMPARE_EXIT_USAGE 2
#define COMPARE_TOP 20

/* One side of the comparison: a recorded run, opened. */
struct side {
	char path[4096];
	struct run *run;
	struct runs_row row;
	struct store_summary sum;
};

/* One line for a usage error of command cmd (compare, or the command that
 * named a run through compare_open_run), pointing at its help. */
static int cmd_die(const char *cmd, const char *what, const char *arg)
{
	fprintf(stderr, "spacetime: ");
	fprintf(stderr, what, arg);
	fprintf(stderr, " (see spacetime %s --help)\n", cmd);
	return COMPARE_EXIT_USAGE;
}

static int compare_die(const char *what, const char *arg)
{
	return cmd_die("compare", what, arg);
}

static void compare_usage(FILE *f)
{
	fputs("usage: spacetime compare A B [--db FILE] [--fail-above METRIC=PCT[,...]] [--top N]\n"
	      "                         [--sort peak_pss|cpu|wall|faults] [--format text|markdown|json]\n"
	      "A and B name recorded runs: an id, last or last~N (the N-th before the last), or\n"
	      "N..M (several runs a side: medians, and changes within the noise marked ~), or\n"
	      "KEY=VALUE (the last five runs with that label, spacetime --label) in the\n"
	      "recording (--db FILE, or the default one), or a recording file (its last run;\n"
	      "FILE:ID, FILE:N..M or FILE:KEY=VALUE for others). Prints the totals of both\n"
	      "with the change, and the jobs matched across the runs by what they are (the\n"
	      "job names of the process lists), largest change in peak PSS first (--sort: in\n"
	      "CPU time, wall time or page faults). --fail-above exits 1 when a metric grew\n"
	      "from A to B by more than its percentage (and past the noise, with several runs\n"
	      "a side): wall, user, sys, peak_pss, peak_pss_anon, peak_pss_file,\n"
	      "peak_pss_shmem, peak_rss, processes, threads, execs, minflt, majflt,\n"
	      "ctx_switches, block_io. Exit status: 0, 1 (the gate), 2 (a usage error, or a\n"
	      "run that cannot be read).\n",
	      f);
}

/* Whether s is a run selector (an id, last, last~N) rather than a file. */
static int is_run_spec(const char *s)
{
	if (!strcmp(s, "last") || !strncmp(s, "last~", 5))
		return 1;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return *s != 0;
}

/* The id spec names in rs: "last~N" counted back from the newest, else
 * runs_resolve's. Returns 0, -ENOENT or -EINVAL. */
static int resolve(struct runs *rs, const char *spec, int64_t *id)
{
	if (strncmp(spec, "last~", 5))
		return runs_resolve(rs, spec, id);
	char *end;
	long back = strtol(spec + 5, &end, 10);
	if (*end || end == spec + 5 || back < 0)
		return -EINVAL;
	struct runs_row *rows = NULL;
	ssize_t n = runs_list(rs, &rows);
	int r = n > back ? 0 : n < 0 ? (int)n : -ENOENT;
	if (!r)
		*id = rows[n - 1 - back].id;
	runs_rows_free(rows, n > 0 ? (size_t)n : 0);
	return r;
}

/* Opens the run sel names into s (for command cmd: its help is named in a
 * usage error). Returns 0, or the exit status (the reason said in one
 * line). */
static int open_side(const char *sel, const char *db, struct side *s, const char *cmd)
{
	char spec[64] = "last", msg[512];
	const char *colon = strrchr(sel, ':');

	if (is_run_spec(sel)) {
		snprintf(spec, sizeof(spec), "%s", sel);
		if (db)
			snprintf(s->path, sizeof(s->path), "%s", db);
		else if (recdir_default(s->path, sizeof(s->path), 0) < 0)
			return cmd_die(cmd, "no recordings: %s", s->path);
	} else if (colon && access(sel, F_OK) < 0 && is_run_spec(colon + 1)) {
		snprintf(s->path, sizeof(s->path), "%.*s", (int)(colon - sel), sel);
		snprintf(spec, sizeof(spec), "%s", colon + 1);
	} else {
		snprintf(s->path, sizeof(s->path), "%s", sel);
	}
	if (access(s->path, F_OK) < 0)
		return cmd_die(cmd, "no recording %s (a run is an id, last, last~N, N..M, KEY=VALUE, FILE or FILE:ID)",
			       s->path);
	struct runs *rs = NULL;
	if (runs_open(s->path, &rs, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "spacetime: %s\n", msg);
		return COMPARE_EXIT_USAGE;
	}
	int64_t id;
	int r = resolve(rs, spec, &id);
	if (r < 0) {
		fprintf(stderr, "spacetime: no run %s in %s%s\n", spec, s->path,
			r == -EINVAL ? " (a run is an id, last or last~N)" : " (spacetime runs lists them)");
		runs_close(rs);
		return COMPARE_EXIT_USAGE;
	}
	if (runs_take(&rs, id, &s->run, &s->row, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "spacetime: cannot read run %" PRId64 " of %s: %s\n", id, s->path, msg);
		return COMPARE_EXIT_USAGE;
	}
	store_summary_get(run_store(s->run), &s->sum);
	return 0;
}

int compare_open_run(const char *sel, const char *db, struct run **run, struct runs_row *row, char *path,
		     size_t cap, const char *cmd)
{
	static struct side s;
	int r;

	memset(&s, 0, sizeof(s));
	if ((r = open_side(sel, db, &s, cmd)) != 0) {
		run_free(s.run);
		runs_row_free(&s.row);
		return r;
	}
	*run = s.run;
	*row = s.row;
	snprintf(path, cap, "%s", s.path);
	return 0;
}

/* The runs of one side: one, or a range of ids (N..M) for medians. */
#define COMPARE_RUNS_MAX 64
struct sides {
	struct side v[COMPARE_RUNS_MAX];
	size_t n;
};

/* Whether sel is a range of run ids "N..M" (N <= M), into *lo, *hi. */
static int is_range(const char *sel, long *lo, long *hi)
{
	char *end;
	const char *dots = strstr(sel, "..");
	if (!dots || dots == sel)
		return 0;
	*lo = strtol(sel, &end, 10);
	if (end != dots || *lo < 1)
		return 0;
	*hi = strtol(dots + 2, &end, 10);
	return *end == 0 && end != dots + 2 && *hi >= *lo;
}

/* Runs a label selects at most: its last ones. */
#define COMPARE_LABEL_RUNS 5

/* The ids of the last COMPARE_LABEL_RUNS runs carrying label, oldest first,
 * into ids. Returns how many, or the exit status negated (said). */
static int label_runs(const char *label, const char *db, int64_t *ids)
{
	char path[4096], msg[512];
	struct runs *rs = NULL;
	struct runs_row *rows = NULL;

	if (db)
		snprintf(path, sizeof(path), "%s", db);
	else if (recdir_default(path, sizeof(path), 0) < 0)
		return -compare_die("no recordings: %s", path);
	if (runs_open(path, &rs, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "spacetime: %s\n", msg);
		return -COMPARE_EXIT_USAGE;
	}
	ssize_t n = runs_list(rs, &rows);
	int k = 0;
	for (ssize_t i = n - 1; i >= 0 && k < COMPARE_LABEL_RUNS; i--)
		if (!rows[i].damage && runs_row_has(&rows[i], label))
			ids[k++] = rows[i].id;
	runs_rows_free(rows, n > 0 ? (size_t)n : 0);
	runs_close(rs);
	if (n < 0 || !k) {
		fprintf(stderr, "spacetime: no run with label %s in %s\n", label, path);
		return -COMPARE_EXIT_USAGE;
	}
	for (int i = 0; i < k / 2; i++) { /* oldest first */
		int64_t t = ids[i];
		ids[i] = ids[k - 1 - i];
		ids[k - 1 - i] = t;
	}
	return k;
}

/* Opens the runs sel names (a run, a range N..M of ids, or KEY=VALUE: the
 * last runs with that label) into ss. Returns 0, or the exit status (the
 * reason said in one line). */
static int open_sides(const char *sel, const char *db, struct sides *ss)
{
	long lo, hi;

	ss->n = 0;
	if (strchr(sel, '=') && runs_label_ok(sel)) {
		int64_t ids[COMPARE_LABEL_RUNS];
		int k = label_runs(sel, db, ids);
		if (k < 0)
			return -k;
		for (int i = 0; i < k; i++) {
			char one[24];
			snprintf(one, sizeof(one), "%" PRId64, ids[i]);
			int r = open_side(one, db, &ss->v[ss->n], "compare");
			if (r)
				return r;
			ss->n++;
		}
		return 0;
	}
	/* FILE:N..M and FILE:KEY=VALUE: the runs of that recording (the first
	 * colon after which they parse and before which a file is: a label's
	 * value may hold colons) */
	for (const char *colon = strchr(sel, ':'); colon && access(sel, F_OK) < 0; colon = strchr(colon + 1, ':')) {
		char file[4096];
		if (colon == sel || (size_t)(colon - sel) >= sizeof(file))
			continue;
		if (!is_range(colon + 1, &lo, &hi) && !(strchr(colon + 1, '=') && runs_label_ok(colon + 1)))
			continue;
		snprintf(file, sizeof(file), "%.*s", (int)(colon - sel), sel);
		if (access(file, F_OK) == 0)
			return open_sides(colon + 1, file, ss);
	}
	if (!is_range(sel, &lo, &hi)) {
		int r = open_side(sel, db, &ss->v[0], "compare");
		ss->n = r ? 0 : 1;
		return r;
	}
	if (hi - lo + 1 > COMPARE_RUNS_MAX)
		return compare_die("%s: at most 64 runs a side", sel);
	for (long id = lo; id <= hi; id++) {
		char one[24];
		snprintf(one, sizeof(one), "%ld", id);
		int r = open_side(one, db, &ss->v[ss->n], "compare");
		if (r)
			return r;
		ss->n++;
	}
	return 0;
}

/* A metric's value in words: seconds, a size, or a count. */
static void fmt_value(enum compare_metric m, uint64_t v, char *buf, size_t cap)
{
	const char *u = compare_metric_unit(m);
	if (!strcmp(u, "us"))
		snprintf(buf, cap, "%.2f s", (double)v / 1e6);
	else if (!strcmp(u, "KiB"))
		report_size(buf, cap, v);
	else
		snprintf(buf, cap, "%" PRIu64, v);
}

/* The change from a to b: absolute (in the metric's unit) and relative. */
void compare_fmt_change(enum compare_metric m, uint64_t a, uint64_t b, char *buf, size_t cap)
{
	char d[32];
	fmt_value(m, a > b ? a - b : b - a, d, sizeof(d));
	if (a == b)
		snprintf(buf, cap, "=");
	else if (a)
		snprintf(buf, cap, "%c%s (%+.1f%%)", b > a ? '+' : '-', d, ((double)b - (double)a) * 100 / (double)a);
	else
		snprintf(buf, cap, "+%s", d);
}

/* The run's command line as one line, its untrusted bytes made safe. */
void compare_fmt_cmd(const struct runs_row *r, char *buf, size_t cap, int utf8)
{
	size_t k = textsafe_str(r->argv, r->argv ? r->argv_len : 0, buf, cap, utf8);
	while (k && buf[k - 1] == ' ')
		k--;
	buf[k] = 0;
}

/* Whether a job found on both sides changed (compare_job_changed). */
static int job_changed(const struct compare_job *j)
{
	return compare_job_changed(j);
}

/* A job's cells for a sort other than the peak PSS: its figure in A and
 * B, and the change (or which run alone). */
static void job_cells_by(const struct compare_job *j, enum compare_sort by, char *va, char *vb, char *ch,
			 size_t vcap, size_t ccap)
{
	const struct compare_fig *x = &j->side[0], *y = &j->side[1];
	enum compare_metric m = compare_sort_metric(by);
	if (x->present)
		fmt_value(m, compare_fig_value(x, by), va, vcap);
	if (y->present)
		fmt_value(m, compare_fig_value(y, by), vb, vcap);
	if (x->present && y->present)
		compare_fmt_change(m, compare_fig_value(x, by), compare_fig_value(y, by), ch, ccap);
	else
		snprintf(ch, ccap, "%s", !x->present ? "(B only)" : "(A only)");
}

/* A job's cells: its figure (the sort's: the peak PSS by default) in A and
 * B, and the change (or which run alone). */
static void job_cells(const struct compare_job *j, enum compare_sort by, char *va, char *vb, char *ch, size_t vcap,
		      size_t ccap)
{
	const struct compare_fig *x = &j->side[0], *y = &j->side[1];
	if (by != CMP_SORT_PEAK_PSS) {
		job_cells_by(j, by, va, vb, ch, vcap, ccap);
		return;
	}
	if (x->present)
		snprintf(va, vcap, "?");
	if (y->present)
		snprintf(vb, vcap, "?");
	if (x->known)
		report_size(va, vcap, x->peak_pss_kib);
	if (y->known)
		report_size(vb, vcap, y->peak_pss_kib);
	if (x->known && y->known)
		compare_fmt_change(CMP_PEAK_PSS, x->peak_pss_kib, y->peak_pss_kib, ch, ccap);
	else
		snprintf(ch, ccap, "%s", !x->present ? "(B only)" : !y->present ? "(A only)" : "(not known)");
	if (x->known && y->known && x->peak_pss_kib != y->peak_pss_kib && !job_changed(j)) {
		size_t k = strlen(ch); /* not called a change: small, or within the noise */
		snprintf(ch + k, ccap - k, " ~");
	}
}

/* The options of compare. */
struct copts {
	const char *db, *gate; /* --db, --fail-above */
	long top;              /* --top: rows of jobs and of programs */
	int fmt;               /* --format: 0 text, 1 markdown, 2 json */
	int sort;              /* --sort: enum compare_sort */
	int utf8, color;       /* the locale's charset is UTF-8; the text in colour */
};

/* The respects in which the runs are not alike, a line each. */
#define COMPARE_NOTES 8
struct notes {
	char line[COMPARE_NOTES][600];
	int n;
};

static void note(struct notes *nt, const char *fmt, const char *x, const char *y)
{
	if (nt->n < COMPARE_NOTES)
		snprintf(nt->line[nt->n++], sizeof(nt->line[0]), fmt, x, y);
}

static void notes_of(const struct sides *as, const struct sides *bs, int utf8, struct notes *nt)
{
	char ca[256], cb[256], ia[24], ib[24];
	const struct side *a = &as->v[0], *b = &bs->v[0];
	nt->n = 0;
	compare_fmt_cmd(&a->row, ca, sizeof(ca), utf8);
	compare_fmt_cmd(&b->row, cb, sizeof(cb), utf8);
	if (strcmp(ca, cb))
		note(nt, "other command lines: %s / %s", ca, cb);
	if (a->row.host && b->row.host && strcmp(a->row.host, b->row.host))
		note(nt, "other machines: %s / %s", a->row.host, b->row.host);
	if (a->sum.mode != b->sum.mode)
		note(nt, "one run followed the tree by netlink events, the other polled /proc (short processes missed)%s%s",
		     "", "");
	if (a->row.attached != b->row.attached)
		note(nt, "one run was attached to (its figures partial), the other ran its command%s%s", "", "");
	if (a->sum.interval_ms != b->sum.interval_ms) {
		snprintf(ia, sizeof(ia), "%" PRIu64, a->sum.interval_ms);
		snprintf(ib, sizeof(ib), "%" PRIu64, b->sum.interval_ms);
		note(nt, "other sampling intervals: %s / %s ms", ia, ib);
	}
	if (as->n == 1 && bs->n == 1) {
		note(nt, "one run a side: how much these figures vary from run to run is not known%s%s", "", "");
	} else {
		snprintf(ia, sizeof(ia), "%zu", as->n);
		snprintf(ib, sizeof(ib), "%zu", bs->n);
		note(nt, "%s runs against %s: medians; a change within either side's spread (its most less its least, "
			 "from five runs on without the lowest and the highest) is marked as noise", ia, ib);
	}
}

/* What is compared: the totals, the jobs, the gate's verdict. */
struct result {
	uint64_t tot[2][CMP_NMETRICS]; /* the medians of each side */
	struct compare_stat st[2][CMP_NMETRICS];
	int noise[CMP_NMETRICS];       /* the change is within the noise */
	size_t nruns[2];
	struct compare_job *jobs;
	size_t njobs, both, only_a, only_b, changed;
	struct compare_prog *progs;
	size_t nprogs;
	int gate_set, gate_metric; /* gate_metric -1: passed */
	double gate_pct;
};

static const char *mname(int m)
{
	return compare_metric_name((enum compare_metric)m);
}

/* "run 41 of FILE", "runs 31..35 of FILE" (ids in a row), or "runs 3, 7,
 * 9 of FILE". */
static void side_label(const struct sides *ss, char *buf, size_t cap)
{
	int row = 1;
	for (size_t i = 1; i < ss->n; i++)
		row &= ss->v[i].row.id == ss->v[i - 1].row.id + 1;
	if (ss->n == 1) {
		snprintf(buf, cap, "run %" PRId64 " of %s", ss->v[0].row.id, ss->v[0].path);
	} else if (row) {
		snprintf(buf, cap, "runs %" PRId64 "..%" PRId64 " of %s", ss->v[0].row.id, ss->v[ss->n - 1].row.id,
			 ss->v[0].path);
	} else {
		size_t k = (size_t)snprintf(buf, cap, "runs");
		for (size_t i = 0; i < ss->n && k < cap; i++)
			k += (size_t)snprintf(buf + k, cap - k, "%s %" PRId64, i ? "," : "", ss->v[i].row.id);
		if (k < cap)
			snprintf(buf + k, cap - k, " of %s", ss->v[0].path);
	}
}

/* The change of metric m, marked when within the noise. */
static void fmt_change_r(const struct result *r, int m, char *buf, size_t cap)
{
	compare_fmt_change((enum compare_metric)m, r->tot[0][m], r->tot[1][m], buf, cap);
	if (r->noise[m] && r->tot[0][m] != r->tot[1][m]) {
		size_t k = strlen(buf); /* within the noise */
		snprintf(buf + k, cap - k, " ~");
	}
}

/* What the jobs are sorted by, in words. */
static const char *sort_words(int sort)
{
	static const char *const w[CMP_NSORTS] = {"peak PSS", "CPU time", "wall time", "page faults"};
	return sort >= 0 && sort < CMP_NSORTS ? w[sort] : "?";
}

/* A change cell, right-aligned in width (0: as it is), in colour when
 * color: growth red, a fall green, within the noise (~) dim. */
static void put_change(const char *ch, int width, int color)
{
	int pad = width - (int)strlen(ch);
	const char *sgr = !color ? NULL : strstr(ch, " ~") ? "2" : ch[0] == '+' ? "31" : ch[0] == '-' ? "32" : NULL;
	printf("%*s", pad > 0 ? pad : 0, "");
	if (sgr)
		printf("\033[%sm%s\033[0m", sgr, ch);
	else
		fputs(ch, stdout);
}

static void text_out(const struct sides *a, const struct sides *b, const struct notes *nt, const struct result *r,
		     const struct copts *o)
{
	long top = o->top;
	int utf8 = o->utf8;
	char la[4200], lb[4200];
	side_label(a, la, sizeof(la));
	side_label(b, lb, sizeof(lb));
	printf("spacetime compare: A = %s, B = %s\n", la, lb);
	for (int i = 0; i < nt->n; i++)
		printf("note: %s\n", nt->line[i]);
	printf("\n%-16s %14s %14s  %s\n", "", "A", "B", "change (B - A)");
	for (int m = 0; m < CMP_NMETRICS; m++) {
		char vx[32], vy[32], ch[48];
		fmt_value((enum compare_metric)m, r->tot[0][m], vx, sizeof(vx));
		fmt_value((enum compare_metric)m, r->tot[1][m], vy, sizeof(vy));
		fmt_change_r(r, m, ch, sizeof(ch));
		printf("%-16s %14s %14s  ", mname(m), vx, vy);
		put_change(ch, 0, o->color);
		putchar('\n');
	}
	printf("\njobs: %zu matched (%zu changed past the noise), %zu in A only, %zu in B only; by the change in %s:\n",
	       r->both, r->changed, r->only_a, r->only_b, sort_words(o->sort));
	printf("%22s %12s %12s  %s\n", "change", "A", "B", "job");
	for (size_t i = 0; i < r->njobs && (long)i < top; i++) {
		const struct compare_job *j = &r->jobs[i];
		char va[24] = "-", vb[24] = "-", ch[48], job[JOBNAME_MAX * 4];
		job_cells(j, (enum compare_sort)o->sort, va, vb, ch, sizeof(va), sizeof(ch));
		textsafe_str(j->key, strlen(j->key), job, sizeof(job), utf8);
		put_change(ch, 22, o->color);
		printf(" %12s %12s  %s\n", va, vb, job);
	}
	printf("\nprograms (their jobs together), by the change in memory-seconds:\n");
	printf("%-16s %11s %11s %11s %11s %11s %10s %10s\n", "program", "jobs A/B", "CPU A", "CPU B", "peak A",
	       "peak B", "MiB*s A", "MiB*s B");
	for (size_t i = 0; i < r->nprogs && (long)i < top; i++) {
		const struct compare_prog *p = &r->progs[i];
		char jobs[32], pa[24], pb[24], name[64];
		snprintf(jobs, sizeof(jobs), "%" PRIu64 "/%" PRIu64, p->side[0].count, p->side[1].count);
		report_size(pa, sizeof(pa), p->side[0].peak_pss_kib);
		report_size(pb, sizeof(pb), p->side[1].peak_pss_kib);
		textsafe_str(p->name, strlen(p->name), name, sizeof(name), utf8);
		printf("%-16s %11s %9.2f s %9.2f s %11s %11s %10.1f %10.1f\n", name, jobs, (double)p->side[0].cpu_us / 1e6,
		       (double)p->side[1].cpu_us / 1e6, pa, pb, (double)p->side[0].kib_s / 1024,
		       (double)p->side[1].kib_s / 1024);
	}
	if (r->gate_set && r->gate_metric >= 0) {
		char ch[48];
		compare_fmt_change((enum compare_metric)r->gate_metric, r->tot[0][r->gate_metric], r->tot[1][r->gate_metric], ch,
			   sizeof(ch));
		printf("\ngate: %s grew %s, more than %g%%: %sfailed%s\n", mname(r->gate_metric), ch, r->gate_pct,
		       o->color ? "\033[1;31m" : "", o->color ? "\033[0m" : "");
	} else if (r->gate_set) {
		printf("\ngate: no metric grew past its threshold\n");
	}
}

/* A markdown cell's text: its | escaped, nothing that makes markup. */
void compare_md_cell(const char *s, int utf8)
{
	char buf[JOBNAME_MAX * 4];
	textsafe_str(s, strlen(s), buf, sizeof(buf), utf8);
	for (const char *p = buf; *p; p++) {
		if (*p == '|' || *p == '`' || *p == '*' || *p == '_' || *p == '<' || *p == '[' || *p == ']')
			putchar('\\');
		putchar(*p);
	}
}

static void markdown_out(const struct sides *a, const struct sides *b, const struct notes *nt,
			 const struct result *r, const struct copts *o)
{
	long top = o->top;
	printf("### spacetime compare: run%s %" PRId64 " (A) and run%s %" PRId64 " (B)\n\n", a->n > 1 ? "s from" : "",
	       a->v[0].row.id, b->n > 1 ? "s from" : "", b->v[0].row.id);
	for (int i = 0; i < nt->n; i++) {
		printf("> ");
		compare_md_cell(nt->line[i], 1);
		printf("\n");
	}
	printf("\n| metric | A | B | change |\n|---|---:|---:|---:|\n");
	for (int m = 0; m < CMP_NMETRICS; m++) {
		char vx[32], vy[32], ch[48];
		fmt_value((enum compare_metric)m, r->tot[0][m], vx, sizeof(vx));
		fmt_value((enum compare_metric)m, r->tot[1][m], vy, sizeof(vy));
		fmt_change_r(r, m, ch, sizeof(ch));
		printf("| %s | %s | %s | %s |\n", mname(m), vx, vy, ch);
	}
	printf("\nJobs: %zu matched (%zu changed past the noise), %zu in A only, %zu in B only; by the change in "
	       "%s.\n\n", r->both, r->changed, r->only_a, r->only_b, sort_words(o->sort));
	printf("| job | A | B | change |\n|---|---:|---:|---:|\n");
	for (size_t i = 0; i < r->njobs && (long)i < top; i++) {
		char va[24] = "-", vb[24] = "-", ch[48];
		job_cells(&r->jobs[i], (enum compare_sort)o->sort, va, vb, ch, sizeof(va), sizeof(ch));
		printf("| ");
		compare_md_cell(r->jobs[i].key, 1);
		printf(" | %s | %s | %s |\n", va, vb, ch);
	}
	printf("\nPrograms (their jobs together), by the change in memory-seconds.\n\n");
	printf("| program | jobs A | jobs B | CPU A (s) | CPU B (s) | MiB·s A | MiB·s B |\n|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < r->nprogs && (long)i < top; i++) {
		const struct compare_prog *p = &r->progs[i];
		printf("| ");
		compare_md_cell(p->name, 1);
		printf(" | %" PRIu64 " | %" PRIu64 " | %.2f | %.2f | %.1f | %.1f |\n", p->side[0].count, p->side[1].count,
		       (double)p->side[0].cpu_us / 1e6, (double)p->side[1].cpu_us / 1e6, (double)p->side[0].kib_s / 1024,
		       (double)p->side[1].kib_s / 1024);
	}
	if (r->gate_set)
		printf("\n**Gate:** %s\n", r->gate_metric >= 0 ? "failed" : "passed");
}

static void json_fig(const struct compare_fig *f, const char *key, int *first)
{
	jsonw_key(stdout, key, first);
	if (!f->present) {
		fputs("null", stdout);
		return;
	}
	int in = 1;
	putchar('{');
	jsonw_u64(stdout, "runs", f->present, &in);
	jsonw_u64(stdout, "known", f->known, &in);
	jsonw_u64(stdout, "peak_pss_kib", f->peak_pss_kib, &in);
	jsonw_u64(stdout, "peak_lo_kib", f->peak_lo_kib, &in);
	jsonw_u64(stdout, "peak_hi_kib", f->peak_hi_kib, &in);
	jsonw_key(stdout, "peak_rss_kib", &in);
	if (f->rss_known)
		printf("%" PRIu64, f->peak_rss_kib);
	else
		fputs("null", stdout);
	jsonw_u64(stdout, "cpu_us", f->cpu_us, &in);
	jsonw_u64(stdout, "wall_us", f->wall_us, &in);
	jsonw_u64(stdout, "faults", f->faults, &in);
	putchar('}');
}

static void json_side(const struct sides *ss, const char *key, int *first)
{
	const struct side *s = &ss->v[0];
	int in = 1;
	jsonw_key(stdout, key, first);
	putchar('{');
	jsonw_i64(stdout, "run", s->row.id, &in);
	jsonw_key(stdout, "runs", &in);
	putchar('[');
	for (size_t i = 0; i < ss->n; i++)
		printf("%s%" PRId64, i ? "," : "", ss->v[i].row.id);
	putchar(']');
	jsonw_key(stdout, "file", &in);
	jsonw_str(stdout, s->path, strlen(s->path));
	jsonw_key(stdout, "command", &in);
	size_t len = s->row.argv ? s->row.argv_len : 0;
	if (len && !s->row.argv[len - 1])
		len--; /* the last argument's NUL: no empty one after it */
	jsonw_argv(stdout, s->row.argv, len);
	putchar('}');
}

static void json_totals(const struct result *r, int *firstp)
{
	jsonw_key(stdout, "totals", firstp);
	putchar('[');
	for (int m = 0; m < CMP_NMETRICS; m++) {
		int in = 1;
		printf("%s{", m ? "," : "");
		jsonw_key(stdout, "metric", &in);
		jsonw_str(stdout, mname(m), strlen(mname(m)));
		jsonw_key(stdout, "unit", &in);
		const char *u = compare_metric_unit((enum compare_metric)m);
		jsonw_str(stdout, u, strlen(u));
		jsonw_u64(stdout, "a", r->tot[0][m], &in);
		jsonw_u64(stdout, "b", r->tot[1][m], &in);
		jsonw_u64(stdout, "a_lo", r->st[0][m].lo, &in);
		jsonw_u64(stdout, "a_hi", r->st[0][m].hi, &in);
		jsonw_u64(stdout, "b_lo", r->st[1][m].lo, &in);
		jsonw_u64(stdout, "b_hi", r->st[1][m].hi, &in);
		jsonw_key(stdout, "noise", &in);
		fputs(r->noise[m] ? "true" : "false", stdout);
		jsonw_i64(stdout, "change", (int64_t)r->tot[1][m] - (int64_t)r->tot[0][m], &in);
		jsonw_key(stdout, "change_pct", &in);
		if (r->tot[0][m])
			printf("%.2f", ((double)r->tot[1][m] - (double)r->tot[0][m]) * 100 / (double)r->tot[0][m]);
		else
			fputs("null", stdout);
		putchar('}');
	}
	putchar(']');
}

static void json_jobs(const struct result *r, long top, int *firstp)
{
	jsonw_key(stdout, "jobs", firstp);
	putchar('[');
	for (size_t i = 0; i < r->njobs && (long)i < top; i++) {
		int in = 1;
		printf("%s{", i ? "," : "");
		jsonw_key(stdout, "job", &in);
		jsonw_str(stdout, r->jobs[i].key, strlen(r->jobs[i].key));
		json_fig(&r->jobs[i].side[0], "a", &in);
		json_fig(&r->jobs[i].side[1], "b", &in);
		jsonw_key(stdout, "changed", &in);
		fputs(job_changed(&r->jobs[i]) ? "true" : "false", stdout);
		putchar('}');
	}
	putchar(']');
}

static void json_programs(const struct result *r, long top, int *firstp)
{
	jsonw_key(stdout, "programs", firstp);
	putchar('[');
	for (size_t i = 0; i < r->nprogs && (long)i < top; i++) {
		int in = 1;
		printf("%s{", i ? "," : "");
		jsonw_key(stdout, "program", &in);
		jsonw_str(stdout, r->progs[i].name, strlen(r->progs[i].name));
		for (int k = 0; k < 2; k++) {
			const struct compare_prog_fig *f = &r->progs[i].side[k];
			int in2 = 1;
			jsonw_key(stdout, k ? "b" : "a", &in);
			putchar('{');
			jsonw_u64(stdout, "runs", f->runs, &in2);
			jsonw_u64(stdout, "jobs", f->count, &in2);
			jsonw_u64(stdout, "cpu_us", f->cpu_us, &in2);
			jsonw_u64(stdout, "peak_pss_kib", f->peak_pss_kib, &in2);
			jsonw_u64(stdout, "kib_s", f->kib_s, &in2);
			putchar('}');
		}
		putchar('}');
	}
	putchar(']');
}

static void json_out(const struct sides *a, const struct sides *b, const struct notes *nt, const struct result *r,
		     const struct copts *o)
{
	long top = o->top;
	int first = 1;
	putchar('{');
	json_side(a, "a", &first);
	json_side(b, "b", &first);
	jsonw_key(stdout, "notes", &first);
	putchar('[');
	for (int i = 0; i < nt->n; i++) {
		if (i)
			putchar(',');
		jsonw_str(stdout, nt->line[i], strlen(nt->line[i]));
	}
	putchar(']');
	json_totals(r, &first);
	jsonw_u64(stdout, "jobs_matched", r->both, &first);
	jsonw_u64(stdout, "jobs_changed", r->changed, &first);
	jsonw_u64(stdout, "jobs_a_only", r->only_a, &first);
	jsonw_u64(stdout, "jobs_b_only", r->only_b, &first);
	jsonw_key(stdout, "sort", &first);
	jsonw_str(stdout, compare_sort_name((enum compare_sort)o->sort), strlen(compare_sort_name((enum compare_sort)o->sort)));
	json_jobs(r, top, &first);
	json_programs(r, top, &first);
	jsonw_key(stdout, "gate", &first);
	if (!r->gate_set) {
		fputs("null", stdout);
	} else {
		int in = 1;
		putchar('{');
		jsonw_key(stdout, "failed", &in);
		fputs(r->gate_metric >= 0 ? "true" : "false", stdout);
		jsonw_key(stdout, "metric", &in);
		if (r->gate_metric >= 0)
			jsonw_str(stdout, mname(r->gate_metric), strlen(mname(r->gate_metric)));
		else
			fputs("null", stdout);
		putchar('}');
	}
	puts("}");
}

static void side_free(struct side *s)
{
	run_free(s->run);
	runs_row_free(&s->row);
	s->run = NULL;
}

static void sides_free(struct sides *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		side_free(&ss->v[i]);
	ss->n = 0;
}

/* The totals (each side's medians and spread), the jobs matched and the
 * gate's verdict into r. Returns 0 or -ENOMEM. */
static int result_of(const struct sides *a, const struct sides *b, const char *gate, const double *pct,
		     struct result *r)
{
	const struct sides *sd[2] = {a, b};
	struct store *st[2][COMPARE_RUNS_MAX];
	uint64_t v[COMPARE_RUNS_MAX];

	memset(r, 0, sizeof(*r));
	for (int k = 0; k < 2; k++) {
		r->nruns[k] = sd[k]->n;
		for (size_t i = 0; i < sd[k]->n; i++)
			st[k][i] = run_store(sd[k]->v[i].run);
		for (int m = 0; m < CMP_NMETRICS; m++) {
			for (size_t i = 0; i < sd[k]->n; i++)
				v[i] = compare_metric_of(&sd[k]->v[i].sum, (enum compare_metric)m);
			compare_stat_of(v, sd[k]->n, &r->st[k][m]);
			r->tot[k][m] = r->st[k][m].med;
		}
	}
	for (int m = 0; m < CMP_NMETRICS; m++)
		r->noise[m] = (a->n > 1 || b->n > 1) && !compare_past_noise(&r->st[0][m], &r->st[1][m]);
	ssize_t n = compare_jobs_n(st[0], a->n, st[1], b->n, &r->jobs);
	if (n < 0)
		return (int)n;
	r->njobs = (size_t)n;
	n = compare_programs(st[0], a->n, st[1], b->n, &r->progs);
	if (n < 0)
		return (int)n;
	r->nprogs = (size_t)n;
	for (size_t i = 0; i < r->njobs; i++) {
		r->both += r->jobs[i].side[0].present && r->jobs[i].side[1].present;
		r->only_a += r->jobs[i].side[0].present && !r->jobs[i].side[1].present;
		r->only_b += !r->jobs[i].side[0].present && r->jobs[i].side[1].present;
		r->changed += job_changed(&r->jobs[i]);
	}
	r->gate_set = gate != NULL;
	r->gate_metric = !gate ? -1
			 : a->n == 1 && b->n == 1 ? compare_gate(&a->v[0].sum, &b->v[0].sum, pct)
						  : compare_gate_stats(r->st[0], r->st[1], pct);
	r->gate_pct = r->gate_metric >= 0 ? pct[r->gate_metric] : 0;
	return 0;
}

/* The options. Returns -1 to go on, or the exit status. */
static int parse(int argc, char **argv, struct copts *o)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'},     {"fail-above", required_argument, NULL, 'f'},
		{"top", required_argument, NULL, 't'},    {"format", required_argument, NULL, 'F'},
		{"sort", required_argument, NULL, 's'},   {"help", no_argument, NULL, 'h'},
		{0},
	};
	char *end;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'f': o->gate = optarg; break;
		case 't':
			o->top = strtol(optarg, &end, 10);
			if (*end || end == optarg || o->top < 0 || o->top > 1000000)
				return compare_die("invalid --top '%s': a number of jobs", optarg);
			break;
		case 'F':
			o->fmt = !strcmp(optarg, "text") ? 0 : !strcmp(optarg, "markdown") ? 1 : !strcmp(optarg, "json") ? 2 : -1;
			if (o->fmt < 0)
				return compare_die("invalid --format '%s': text, markdown or json", optarg);
			break;
		case 's':
			if ((o->sort = compare_sort_parse(optarg)) < 0)
				return compare_die("invalid --sort '%s': peak_pss, cpu, wall or faults", optarg);
			break;
		case 'h': compare_usage(stdout); return 0;
		case ':': return compare_die("option '%s' needs a value", argv[optind - 1]);
		default: return compare_die("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return compare_die("%s", argc - optind < 2 ? "two runs to compare are needed" : "two runs at most");
	return -1;
}

/* Whether the text goes to a terminal that shows colour, and NO_COLOR
 * (no-color.org: set and not empty) does not turn it off. */
static int want_color(void)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	return isatty(STDOUT_FILENO) && !(nc && *nc) && term && *term && strcmp(term, "dumb");
}

int compare_main(int argc, char **argv)
{
	struct copts o = {.top = COMPARE_TOP, .sort = CMP_SORT_PEAK_PSS};
	double pct[CMP_NMETRICS];
	char bad[128];
	int r = parse(argc, argv, &o);

	if (r >= 0)
		return r;
	if (o.gate && compare_gate_parse(o.gate, pct, bad, sizeof(bad)) < 0)
		return compare_die("invalid --fail-above part '%s': expected METRIC=PCT%%, e.g. peak_pss=5%%", bad);
	static struct sides a, b;
	if ((r = open_sides(argv[optind], o.db, &a)) || (r = open_sides(argv[optind + 1], o.db, &b))) {
		sides_free(&a);
		sides_free(&b);
		return r;
	}
	const char *cs = nl_langinfo(CODESET);
	o.utf8 = cs && !strcmp(cs, "UTF-8");
	o.color = o.fmt == 0 && want_color();
	struct notes nt;
	struct result res;
	notes_of(&a, &b, o.utf8, &nt);
	if (result_of(&a, &b, o.gate, pct, &res) < 0) {
		fprintf(stderr, "spacetime: out of memory matching the jobs\n");
		r = COMPARE_EXIT_USAGE;
	} else {
		compare_jobs_sort(res.jobs, res.njobs, (enum compare_sort)o.sort);
		if (o.fmt == 2)
			json_out(&a, &b, &nt, &res, &o);
		else if (o.fmt == 1)
			markdown_out(&a, &b, &nt, &res, &o);
		else
			text_out(&a, &b, &nt, &res, &o);
		r = res.gate_metric >= 0 ? COMPARE_EXIT_GATE : 0;
	}
	free(res.jobs);
	free(res.progs);
	sides_free(&a);
	sides_free(&b);
	return r;
}
