/* compare.c: `spacetime compare A B`, two recorded runs side by side (the
 * engine is src/compare.c): the totals with their change, the jobs that
 * changed most, and a gate for CI (--fail-above). */
#include "compare_ui.h"

#include "compare.h"
#include "exitcode.h"
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

static int compare_die(const char *what, const char *arg)
{
	fprintf(stderr, "spacetime: ");
	fprintf(stderr, what, arg);
	fprintf(stderr, " (see spacetime compare --help)\n");
	return COMPARE_EXIT_USAGE;
}

static void compare_usage(FILE *f)
{
	fputs("usage: spacetime compare A B [--db FILE] [--fail-above METRIC=PCT[,...]] [--top N]\n"
	      "A and B name recorded runs: an id, last or last~N (the N-th before the last) in\n"
	      "the recording (--db FILE, or the default one), or a recording file (its last\n"
	      "run; FILE:ID for another). Prints the totals of both with the change, and the\n"
	      "jobs matched across the runs by what they are (the job names of the process\n"
	      "lists), largest change in peak PSS first. --fail-above exits 1 when a metric\n"
	      "grew from A to B by more than its percentage: wall, user, sys, peak_pss,\n"
	      "peak_pss_anon, peak_pss_file, peak_pss_shmem, peak_rss, processes, threads,\n"
	      "execs, minflt, majflt, ctx_switches, block_io. Exit status: 0, 1 (the gate), 2\n"
	      "(a usage error, or a run that cannot be read).\n",
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

/* Opens the run sel names into s. Returns 0, or the exit status (the
 * reason said in one line). */
static int open_side(const char *sel, const char *db, struct side *s)
{
	char spec[64] = "last", msg[512];
	const char *colon = strrchr(sel, ':');

	if (is_run_spec(sel)) {
		snprintf(spec, sizeof(spec), "%s", sel);
		if (db)
			snprintf(s->path, sizeof(s->path), "%s", db);
		else if (recdir_default(s->path, sizeof(s->path), 0) < 0)
			return compare_die("no recordings: %s", s->path);
	} else if (colon && access(sel, F_OK) < 0 && is_run_spec(colon + 1)) {
		snprintf(s->path, sizeof(s->path), "%.*s", (int)(colon - sel), sel);
		snprintf(spec, sizeof(spec), "%s", colon + 1);
	} else {
		snprintf(s->path, sizeof(s->path), "%s", sel);
	}
	if (access(s->path, F_OK) < 0)
		return compare_die("no recording %s (a run is an id, last, last~N, FILE or FILE:ID)", s->path);
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
static void fmt_change(enum compare_metric m, uint64_t a, uint64_t b, char *buf, size_t cap)
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
static void fmt_cmd(const struct runs_row *r, char *buf, size_t cap, int utf8)
{
	size_t k = textsafe_str(r->argv, r->argv ? r->argv_len : 0, buf, cap, utf8);
	while (k && buf[k - 1] == ' ')
		k--;
	buf[k] = 0;
}

/* One line for each respect in which the runs are not alike. */
static void put_notes(const struct side *a, const struct side *b, int utf8)
{
	char ca[256], cb[256];
	fmt_cmd(&a->row, ca, sizeof(ca), utf8);
	fmt_cmd(&b->row, cb, sizeof(cb), utf8);
	if (strcmp(ca, cb))
		printf("note: other command lines: %s / %s\n", ca, cb);
	if (a->row.host && b->row.host && strcmp(a->row.host, b->row.host))
		printf("note: other machines: %s / %s\n", a->row.host, b->row.host);
	if (a->sum.mode != b->sum.mode)
		printf("note: one run followed the tree by netlink events, the other polled /proc (short processes missed)\n");
	if (a->row.attached != b->row.attached)
		printf("note: one run was attached to (its figures partial), the other ran its command\n");
	if (a->sum.interval_ms != b->sum.interval_ms)
		printf("note: other sampling intervals: %" PRIu64 " / %" PRIu64 " ms\n", a->sum.interval_ms,
		       b->sum.interval_ms);
	printf("note: one run a side: how much these figures vary from run to run is not known\n");
}

static void put_totals(const struct side *a, const struct side *b)
{
	printf("\n%-16s %14s %14s  %s\n", "", "A", "B", "change (B - A)");
	for (int m = 0; m < CMP_NMETRICS; m++) {
		uint64_t x = compare_metric_of(&a->sum, (enum compare_metric)m);
		uint64_t y = compare_metric_of(&b->sum, (enum compare_metric)m);
		char vx[32], vy[32], ch[48];
		fmt_value((enum compare_metric)m, x, vx, sizeof(vx));
		fmt_value((enum compare_metric)m, y, vy, sizeof(vy));
		fmt_change((enum compare_metric)m, x, y, ch, sizeof(ch));
		printf("%-16s %14s %14s  %s\n", compare_metric_name((enum compare_metric)m), vx, vy, ch);
	}
}

/* The jobs, largest change in peak PSS first (top of them). */
static int put_jobs(const struct side *a, const struct side *b, long top, int utf8)
{
	struct compare_job *v = NULL;
	ssize_t n = compare_jobs(run_store(a->run), run_store(b->run), &v);
	size_t both = 0, only_a = 0, only_b = 0;

	if (n < 0) {
		fprintf(stderr, "spacetime: out of memory matching the jobs\n");
		return -1;
	}
	for (ssize_t i = 0; i < n; i++) {
		both += v[i].side[0].present && v[i].side[1].present;
		only_a += v[i].side[0].present && !v[i].side[1].present;
		only_b += !v[i].side[0].present && v[i].side[1].present;
	}
	printf("\njobs: %zu matched, %zu in A only, %zu in B only; by the change in peak PSS:\n", both, only_a, only_b);
	printf("%22s %12s %12s  %s\n", "change", "A", "B", "job");
	for (ssize_t i = 0; i < n && i < top; i++) {
		const struct compare_fig *x = &v[i].side[0], *y = &v[i].side[1];
		char va[24] = "-", vb[24] = "-", ch[48], job[JOBNAME_MAX * 4];
		if (x->present)
			report_size(va, sizeof(va), x->peak_pss_kib);
		if (y->present)
			report_size(vb, sizeof(vb), y->peak_pss_kib);
		if (x->present && y->present)
			fmt_change(CMP_PEAK_PSS, x->peak_pss_kib, y->peak_pss_kib, ch, sizeof(ch));
		else
			snprintf(ch, sizeof(ch), "%s", x->present ? "(A only)" : "(B only)");
		textsafe_str(v[i].key, strlen(v[i].key), job, sizeof(job), utf8);
		printf("%22s %12s %12s  %s\n", ch, va, vb, job);
	}
	free(v);
	return 0;
}

static void side_free(struct side *s)
{
	run_free(s->run);
	runs_row_free(&s->row);
}

int compare_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'},       {"fail-above", required_argument, NULL, 'f'},
		{"top", required_argument, NULL, 't'},      {"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *db = NULL, *gate = NULL;
	long top = COMPARE_TOP;
	double pct[CMP_NMETRICS];
	char bad[128], *end;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'f': gate = optarg; break;
		case 't':
			top = strtol(optarg, &end, 10);
			if (*end || end == optarg || top < 0 || top > 1000000)
				return compare_die("invalid --top '%s': a number of jobs", optarg);
			break;
		case 'h': compare_usage(stdout); return 0;
		case ':': return compare_die("option '%s' needs a value", argv[optind - 1]);
		default: return compare_die("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return compare_die("%s", argc - optind < 2 ? "two runs to compare are needed" : "two runs at most");
	if (gate && compare_gate_parse(gate, pct, bad, sizeof(bad)) < 0)
		return compare_die("invalid --fail-above part '%s': expected METRIC=PCT%%, e.g. peak_pss=5%%", bad);
	static struct side a, b;
	int r = open_side(argv[optind], db, &a);
	if (r || (r = open_side(argv[optind + 1], db, &b))) {
		side_free(&a);
		return r;
	}
	const char *cs = nl_langinfo(CODESET);
	int utf8 = cs && !strcmp(cs, "UTF-8");
	printf("spacetime compare: A = run %" PRId64 " of %s, B = run %" PRId64 " of %s\n", a.row.id, a.path,
	       b.row.id, b.path);
	put_notes(&a, &b, utf8);
	put_totals(&a, &b);
	r = put_jobs(&a, &b, top, utf8) < 0 ? COMPARE_EXIT_USAGE : 0;
	if (!r && gate) {
		int m = compare_gate(&a.sum, &b.sum, pct);
		if (m >= 0) {
			uint64_t x = compare_metric_of(&a.sum, (enum compare_metric)m);
			uint64_t y = compare_metric_of(&b.sum, (enum compare_metric)m);
			char ch[48];
			fmt_change((enum compare_metric)m, x, y, ch, sizeof(ch));
			printf("\ngate: %s grew %s, more than %g%%: failed\n", compare_metric_name((enum compare_metric)m), ch,
			       pct[m]);
			r = COMPARE_EXIT_GATE;
		} else {
			printf("\ngate: no metric grew past its threshold\n");
		}
	}
	side_free(&a);
	side_free(&b);
	return r;
}
