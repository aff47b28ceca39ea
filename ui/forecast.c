/* forecast.c: `spacetime forecast RUN`: the recorded build replayed
 * through -j1 .. -j(2 x cores) and the recorded -j (the engine:
 * src/forecast.c, its job list src/forecast_rec.c), the predicted peak PSS
 * and wall time of each, and with --ram the largest -j that fits. */
#include "forecast_ui.h"

#include "compare_ui.h"
#include "forecast.h"
#include "forecast_rec.h"
#include "jsonw.h"
#include "report.h"
#include "run.h"
#include "runs.h"
#include "textsafe.h"
#include "units.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORECAST_EXIT_NOFIT 1
#define FORECAST_EXIT_USAGE 2
/* -j lines at most (-j1 .. -j(2 x cores) up to 128 cores, the recorded one,
 * all the jobs at once, the largest that fits between). */
#define FORECAST_LINES 259
#define FORECAST_MARGIN_PCT 10.0
/* Other recordings whose dependencies are taken (--deps) at most. */
#define FORECAST_DEPS_MAX 8

/* The options of forecast. */
struct fopts {
	const char *db, *run;  /* --db, the run (default last) */
	const char *deps[FORECAST_DEPS_MAX]; /* --deps RUN: other recordings of the build */
	size_t ndeps;
	unsigned jobs;         /* -j N (0: the range) */
	double cores;          /* --cores (0: this machine's) */
	uint64_t ram_kib;      /* --ram (0: the cgroup's or the machine's) */
	double margin_pct;     /* --margin */
	int fmt;               /* --format: 0 text, 1 markdown, 2 json */
	int utf8;
};

/* What was forecast: the run, its job list, each -j's figures, the verdict. */
struct fc {
	char path[4096];
	struct run *run;
	struct runs_row row;
	struct forecast_rec *fr;
	const struct forecast_rec_info *in;
	struct run *more[FORECAST_DEPS_MAX]; /* the --deps runs */
	struct runs_row more_row[FORECAST_DEPS_MAX];
	size_t nmore;
	struct forecast_model m;
	struct forecast_result res[FORECAST_LINES];
	size_t nres;
	int recorded;            /* res[recorded]: at the recorded -j (-1: none) */
	unsigned recorded_slots; /* the slots it was run with */
	int cores_opt;           /* the cores: --cores (1) or this machine's */
	int ram_from;            /* the memory: 0 --ram, 1 the cgroup's, 2 the machine's */
	uint64_t ram_kib;
	int fits;                /* the largest fitting line (-1: none) */
	int all_fit;             /* every line fits, and all the jobs at once too */
	int all_line;            /* res[all_line]: all the jobs at once (-1: not run) */
	unsigned nofit;          /* the -j found not to fit just past res[fits] (0: none found) */
};

static int forecast_die(const char *what, const char *arg)
{
	fprintf(stderr, "spacetime: ");
	fprintf(stderr, what, arg);
	fprintf(stderr, " (see spacetime forecast --help)\n");
	return FORECAST_EXIT_USAGE;
}

static void forecast_usage(FILE *f)
{
	fputs("usage: spacetime forecast [RUN] [-j N] [--ram SIZE] [--margin PCT] [--cores N]\n"
	      "                          [--deps RUN]... [--db FILE] [--format text|markdown|json]\n"
	      "Replays a recorded build (RUN: an id, last (the default), last~N, a recording\n"
	      "file or FILE:ID, as compare takes them) through N job slots, as make and ninja\n"
	      "run it, on this machine's cores, and prints for each N the predicted peak PSS,\n"
	      "the wall time and the jobs at the peak: -j1 .. -j(2 x cores) and the recorded\n"
	      "-j, whose forecast stands beside what was measured (how far to trust it).\n"
	      "  -j, --jobs N     forecast this -j only (and the recorded one)\n"
	      "  --ram SIZE       the memory to fit in (16G, 512M, 1.5GiB; default: the\n"
	      "                   cgroup's memory.max, else the machine's memory): the\n"
	      "                   largest -j whose peak plus the margin fits\n"
	      "  --margin PCT     the margin over the predicted peak (default 10%)\n"
	      "  --cores N        the CPUs the jobs share (default: this machine's; a\n"
	      "                   fraction for a machine another load keeps busy: 1.5)\n"
	      "  --deps RUN       another recording of the build (at -jN): the dependencies it\n"
	      "                   shows are added, its jobs matched as compare matches them\n"
	      "Jobs, dependencies and the model's assumptions: see README, Forecasting -j.\n"
	      "Exit status: 0; 1 when --ram was given and no -j tried fits (with -j N: N\n"
	      "does not); 2 for a usage error or a run that cannot be read or forecast.\n",
	      f);
}

/* A whole number lo..hi for option opt, or -1 (said). */
static long parse_count(const char *s, long lo, long hi, const char *opt)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || end == s || v < lo || v > hi) {
		char what[128];
		snprintf(what, sizeof(what), "invalid %s '%%s': a whole number %ld..%ld", opt, lo, hi);
		forecast_die(what, s);
		return -1;
	}
	return v;
}

/* --margin: "10", "10%", "2.5%". Returns 0 or the exit status (said). */
static int parse_margin(const char *s, double *pct)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || (*end && strcmp(end, "%")) || !(v >= 0) || v > 1000)
		return forecast_die("invalid --margin '%s': a percentage 0..1000, e.g. 10%%", s);
	*pct = v;
	return 0;
}

/* One option's value. Returns -1 to go on, or the exit status. */
static int parse_opt(int c, const char *arg, struct fopts *o)
{
	long v;
	int r;
	switch (c) {
	case 'd': o->db = arg; break;
	case 'j':
		if ((v = parse_count(arg, 1, FORECAST_SLOTS_MAX, "-j")) < 0)
			return FORECAST_EXIT_USAGE;
		o->jobs = (unsigned)v;
		break;
	case 'c': {
		char *end;
		o->cores = strtod(arg, &end);
		if (*end || end == arg || !(o->cores >= 0.1) || o->cores > FORECAST_SLOTS_MAX)
			return forecast_die("invalid --cores '%s': a number of CPUs 0.1..4096", arg);
		break;
	}
	case 'r':
		if (units_parse_kib(arg, &o->ram_kib) < 0 || !o->ram_kib)
			return forecast_die("invalid --ram '%s': a size with its unit, e.g. 16G, 512M, 1.5GiB", arg);
		break;
	case 'm':
		if ((r = parse_margin(arg, &o->margin_pct)) != 0)
			return r;
		break;
	case 'D':
		if (o->ndeps == FORECAST_DEPS_MAX)
			return forecast_die("too many --deps ('%s'): 8 at most", arg);
		o->deps[o->ndeps++] = arg;
		break;
	case 'F':
		o->fmt = !strcmp(arg, "text") ? 0 : !strcmp(arg, "markdown") ? 1 : !strcmp(arg, "json") ? 2 : -1;
		if (o->fmt < 0)
			return forecast_die("invalid --format '%s': text, markdown or json", arg);
		break;
	}
	return -1;
}

/* The options. Returns -1 to go on, or the exit status. */
static int parse(int argc, char **argv, struct fopts *o)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'},     {"jobs", required_argument, NULL, 'j'},
		{"ram", required_argument, NULL, 'r'},    {"margin", required_argument, NULL, 'm'},
		{"cores", required_argument, NULL, 'c'},  {"format", required_argument, NULL, 'F'},
		{"deps", required_argument, NULL, 'D'},   {"help", no_argument, NULL, 'h'},
		{0},
	};
	int c, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj:", lo, NULL)) != -1) {
		switch (c) {
		case 'h': forecast_usage(stdout); return 0;
		case ':': return forecast_die("option '%s' needs a value", argv[optind - 1]);
		case '?': return forecast_die("unknown option '%s'", argv[optind - 1]);
		default:
			if ((r = parse_opt(c, optarg, o)) >= 0)
				return r;
		}
	}
	if (argc - optind > 1)
		return forecast_die("one run at most: '%s' is one too many", argv[optind + 1]);
	o->run = argc - optind == 1 ? argv[optind] : "last";
	return -1;
}

/* Opens the run sel names into *run and *row, refusing one still being
 * recorded. Returns 0 or the exit status (said in one line). */
static int open_one(const struct fopts *o, const char *sel, struct run **run, struct runs_row *row, char *path,
		    size_t cap)
{
	int r = compare_open_run(sel, o->db, run, row, path, cap, "forecast");
	if (r)
		return r;
	if (row->unfinished && run_recording_live(row->updated_wall_ns)) {
		fprintf(stderr, "spacetime: run %" PRId64 " of %s is still being recorded: forecast it once it has ended\n",
			row->id, path);
		return FORECAST_EXIT_USAGE;
	}
	return 0;
}

/* Opens the run and the --deps runs, builds its job list. Returns 0 or the
 * exit status (said in one line). */
static int open_run(const struct fopts *o, struct fc *f)
{
	struct store *more[FORECAST_DEPS_MAX];
	char path[4096];
	int r = open_one(o, o->run, &f->run, &f->row, f->path, sizeof(f->path));

	for (size_t i = 0; r == 0 && i < o->ndeps; i++, f->nmore++) {
		r = open_one(o, o->deps[i], &f->more[i], &f->more_row[i], path, sizeof(path));
		more[i] = f->more[i] ? run_store(f->more[i]) : NULL;
	}
	if (r)
		return r;
	r = forecast_rec_build(run_store(f->run), more, f->nmore, &f->fr);
	if (r == -ENODATA) {
		fprintf(stderr, "spacetime: run %" PRId64 " of %s ran no jobs: nothing under its command to forecast\n",
			f->row.id, f->path);
		return FORECAST_EXIT_USAGE;
	}
	if (r < 0) {
		fprintf(stderr, "spacetime: cannot forecast run %" PRId64 " of %s: %s\n", f->row.id, f->path, strerror(-r));
		return FORECAST_EXIT_USAGE;
	}
	f->in = forecast_rec_info(f->fr);
	f->m = *forecast_rec_model(f->fr);
	return 0;
}

/* Slots for "all the jobs at once". */
static unsigned all_slots(const struct fc *f)
{
	return f->in->njobs < FORECAST_SLOTS_MAX ? (unsigned)f->in->njobs : FORECAST_SLOTS_MAX;
}

/* Runs one line; returns 0 or the exit status (said). */
static int line(struct fc *f, unsigned slots)
{
	if (f->nres == FORECAST_LINES)
		return 0;
	int r = forecast_run(&f->m, slots, &f->res[f->nres]);
	if (r < 0) {
		fprintf(stderr, "spacetime: cannot forecast -j%u: %s\n", slots, strerror(-r));
		return FORECAST_EXIT_USAGE;
	}
	f->nres++;
	return 0;
}

static int by_slots(const void *x, const void *y)
{
	const struct forecast_result *a = x, *b = y;
	return (a->slots > b->slots) - (a->slots < b->slots);
}

/* The lines, by -j: -j N alone or 1 .. 2 x cores, and the recorded -j.
 * Returns 0 or the exit status. */
static int lines(const struct fopts *o, struct fc *f, unsigned cores)
{
	unsigned lo = o->jobs ? o->jobs : 1, hi = o->jobs ? o->jobs : 2 * cores;
	int r;

	if (!o->jobs && hi > FORECAST_LINES - 3)
		hi = FORECAST_LINES - 3; /* room for the recorded, all at once, the largest between */
	f->recorded_slots = f->in->recorded_slots ? f->in->recorded_slots : all_slots(f);
	for (unsigned n = lo; n <= hi; n++)
		if ((r = line(f, n)) != 0)
			return r;
	if ((f->recorded_slots < lo || f->recorded_slots > hi) && (r = line(f, f->recorded_slots)) != 0)
		return r;
	qsort(f->res, f->nres, sizeof(f->res[0]), by_slots);
	for (size_t k = 0; k < f->nres; k++)
		if (f->res[k].slots == f->recorded_slots)
			f->recorded = (int)k;
	return 0;
}

/* Whether line k's peak with the margin fits. */
static int fits(const struct fc *f, const struct fopts *o, size_t k)
{
	return (double)f->res[k].peak_kib * (1 + o->margin_pct / 100) <= (double)f->ram_kib;
}

/* Every line tried fits, all the jobs at once do not: the largest -j that
 * fits between (a bisection: the simulation is cheap), its line added
 * after the others (the largest shown). Returns 0 or the exit status. */
static int bisect(const struct fopts *o, struct fc *f)
{
	unsigned lo = f->res[f->fits].slots, hi = f->res[f->all_line].slots;
	struct forecast_result r, best;
	int have = 0;

	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;
		int e = forecast_run(&f->m, mid, &r);
		if (e < 0) {
			fprintf(stderr, "spacetime: cannot forecast -j%u: %s\n", mid, strerror(-e));
			return FORECAST_EXIT_USAGE;
		}
		if ((double)r.peak_kib * (1 + o->margin_pct / 100) <= (double)f->ram_kib) {
			lo = mid;
			best = r;
			have = 1;
		} else {
			hi = mid;
		}
	}
	if (have && f->nres == FORECAST_LINES)
		return 0; /* no room (lines() leaves it): the largest tried stands */
	f->nofit = hi;
	if (have) {
		f->res[f->nres] = best;
		f->fits = (int)f->nres++;
	}
	return 0;
}

/* --ram's answer: the largest -j that fits; when every line tried fits,
 * all the jobs at once too, else the largest between. Returns 0 or the
 * exit status. */
static int verdict(const struct fopts *o, struct fc *f)
{
	f->fits = -1;
	f->all_fit = 0;
	f->all_line = -1;
	f->nofit = 0;
	/* with -j N, whether N fits; else the most that does */
	for (size_t k = 0; k < f->nres; k++)
		if (fits(f, o, k) && (!o->jobs || f->res[k].slots == o->jobs) &&
		    (f->fits < 0 || f->res[k].slots > f->res[f->fits].slots))
			f->fits = (int)k;
	int every = 1;
	for (size_t k = 0; k < f->nres; k++)
		every &= fits(f, o, k);
	if (!every || o->jobs)
		return 0;
	unsigned most = 0;
	for (size_t k = 0; k < f->nres; k++)
		most = f->res[k].slots > most ? f->res[k].slots : most;
	if (most >= all_slots(f)) {
		f->all_fit = 1;
		return 0;
	}
	int r = line(f, all_slots(f));
	if (r)
		return r;
	f->all_line = (int)f->nres - 1;
	f->all_fit = fits(f, o, (size_t)f->all_line);
	return f->all_fit ? 0 : bisect(o, f);
}

/* What the reader needs to know of the model, a line each: room for every
 * one that can be said at once (two of the recorded -j, eight of
 * notes_of's own). */
#define FORECAST_NOTES 10
struct notes {
	char line[FORECAST_NOTES][400];
	int n;
};

#define NOTE(nt, ...) \
	do { \
		if ((nt)->n < FORECAST_NOTES) \
			snprintf((nt)->line[(nt)->n++], sizeof((nt)->line[0]), __VA_ARGS__); \
	} while (0)

/* The recorded -j: where it was read. */
static void note_slots(const struct fc *f, struct notes *nt)
{
	const struct forecast_rec_info *in = f->in;
	if (!in->tool[0])
		NOTE(nt, "no build tool (make, ninja, cargo) in the run: the command's children are its jobs; "
			 "the recorded -j is the most that ran at once, %u", in->most_at_once);
	else if (in->slots_from == FORECAST_FROM_ARGV && !in->recorded_slots)
		NOTE(nt, "recorded with no limit to -j (%s's command line: %s): forecast there with a slot for "
			 "every job (%u)", in->tool, in->slots_word, f->recorded_slots);
	else if (in->slots_from == FORECAST_FROM_ARGV && in->most_at_once > in->slots_said)
		NOTE(nt, "recorded at -j%u: %s's command line says %s, but %u jobs ran at once", in->recorded_slots,
		     in->tool, in->slots_word, in->most_at_once);
	else if (in->slots_from == FORECAST_FROM_ARGV)
		NOTE(nt, "recorded at -j%u (%s's command line: %s)", in->recorded_slots, in->tool, in->slots_word);
	else
		NOTE(nt, "recorded at -j%u: the most jobs that ran at once (%s's command line names no -j)",
		     in->recorded_slots, in->tool);
	if (in->slots_over)
		NOTE(nt, "%u jobs ran at once in the recording, more than the %u slots a forecast runs at most: "
			 "the recorded -j is forecast at -j%u", in->slots_over, FORECAST_SLOTS_MAX, in->recorded_slots);
}

static void notes_of(const struct fc *f, struct notes *nt)
{
	const struct forecast_rec_info *in = f->in;
	char sz[32];
	nt->n = 0;
	note_slots(f, nt);
	if (in->recorded_slots == 1)
		NOTE(nt, "dependencies: none seen (a -j1 recording): the jobs under one %s are taken as independent",
		     in->tool[0] ? in->tool : "command");
	else
		NOTE(nt, "dependencies: %zu seen (a job that started within %" PRIu64 " ms of another's end, while a "
			 "slot was free, waited on it)", in->ndeps_seen, in->dep_window_ns / 1000000);
	if (f->nmore) {
		char ids[128];
		size_t k = 0;
		for (size_t i = 0; i < f->nmore && k < sizeof(ids); i++)
			k += (size_t)snprintf(ids + k, sizeof(ids) - k, "%s%" PRId64, i ? ", " : "", f->more_row[i].id);
		NOTE(nt, "dependencies from run%s %s: %zu more (their jobs matched to these by name, as compare matches "
			 "them)", f->nmore > 1 ? "s" : "", ids, in->ndeps_runs);
	}
	if (in->nbarriers)
		NOTE(nt, "sub-makes a recipe's shell ran one after another: kept in that order (%zu point%s)",
		     in->nbarriers, in->nbarriers == 1 ? "" : "s");
	report_size(sz, sizeof(sz), in->tool_kib);
	NOTE(nt, "the build tool's own processes%s%s%s: %s at most, added as a constant", in->tool[0] ? " (" : "",
	     in->tool, in->tool[0] ? ")" : "", sz);
	NOTE(nt, "%g cores (%s): past them, the CPU-bound part of each running job is stretched by the CPU the "
		 "jobs ask for over the cores", f->m.cores, f->cores_opt ? "--cores" : "this machine's");
	NOTE(nt, "file-backed pages: %.0f%% of the jobs' PSS; copies of one program running at once share them "
		 "(counted once)", in->file_share * 100);
	if (in->unknown_pss)
		NOTE(nt, "%zu process%s of the jobs had no PSS read (gone between two samples): counted as 0",
		     in->unknown_pss, in->unknown_pss == 1 ? "" : "es");
	if (in->dropped_samples)
		NOTE(nt, "%" PRIu64 " per-process samples were let go of when the run was loaded: their processes' "
			 "curves are the peaks alone", in->dropped_samples);
}

/* The jobs of line k's peak, the largest first: at most `most` of them,
 * "+N more" after. */
static void peak_jobs(const struct fc *f, size_t k, size_t most, int utf8, char *buf, size_t cap)
{
	const struct forecast_result *r = &f->res[k];
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < r->n_at_peak && i < most && len < cap; i++) {
		char name[JOBNAME_MAX * 4], sz[32];
		const char *job = forecast_rec_job(f->fr, r->at_peak[i].job);
		textsafe_str(job, strlen(job), name, sizeof(name), utf8);
		report_size(sz, sizeof(sz), r->at_peak[i].pss_kib);
		len += (size_t)snprintf(buf + len, cap - len, "%s%s %s", i ? ", " : "", name, sz);
	}
	size_t shown = r->n_at_peak < most ? r->n_at_peak : most;
	if (r->running_at_peak > shown && len < cap)
		snprintf(buf + len, cap - len, ", +%zu more", (size_t)r->running_at_peak - shown);
}

/* The forecast at the recorded -j against what was measured. */
static void recorded_cells(const struct fc *f, char *peak, char *wall, size_t cap)
{
	const struct forecast_result *r = &f->res[f->recorded];
	compare_fmt_change(CMP_PEAK_PSS, f->in->measured_peak_kib, r->peak_kib, peak, cap);
	compare_fmt_change(CMP_WALL, f->in->measured_wall_ns / 1000, r->wall_ns / 1000, wall, cap);
}

/* --ram's answer in one line. */
static void verdict_line(const struct fc *f, const struct fopts *o, char *buf, size_t cap)
{
	char ram[32], need[32];
	report_size(ram, sizeof(ram), f->ram_kib);
	static const char *const from[] = {"--ram", "the cgroup's memory.max", "the machine's memory"};
	int n = snprintf(buf, cap, "%s (%s), margin %g%%: ", ram, from[f->ram_from], o->margin_pct);
	size_t k = n > 0 && (size_t)n < cap ? (size_t)n : 0;
	const struct forecast_result *best = f->fits >= 0 ? &f->res[f->fits] : NULL;
	if (best)
		report_size(need, sizeof(need), (uint64_t)((double)best->peak_kib * (1 + o->margin_pct / 100)));
	if (o->jobs)
		snprintf(buf + k, cap - k, "-j%u %s", o->jobs, best ? "fits" : "does not fit");
	else if (!best)
		snprintf(buf + k, cap - k, "no -j fits: even -j1 needs more");
	else if (f->all_fit)
		snprintf(buf + k, cap - k, "every -j fits: all %zu jobs at once too", f->in->njobs);
	else if (f->nofit)
		snprintf(buf + k, cap - k, "-j%u at most (%s with the margin; -j%u does not fit)", best->slots, need,
			 f->nofit);
	else
		snprintf(buf + k, cap - k, "-j%u at most (%s with the margin)", best->slots, need);
}

static void text_out(const struct fc *f, const struct fopts *o, const struct notes *nt)
{
	char cmd[256], peak[64], wall[64], jobs[512], sz[32], szm[32];
	compare_fmt_cmd(&f->row, cmd, sizeof(cmd), o->utf8);
	printf("spacetime forecast: run %" PRId64 " of %s: %s\n", f->row.id, f->path, cmd);
	printf("%zu jobs\n", f->in->njobs);
	for (int i = 0; i < nt->n; i++)
		printf("note: %s\n", nt->line[i]);
	printf("\n%6s %11s %11s %10s  %s\n", "-j", "peak PSS", "+margin", "wall", "jobs at the peak");
	for (size_t k = 0; k < f->nres; k++) {
		const struct forecast_result *r = &f->res[k];
		if ((int)k == f->all_line)
			continue;
		report_size(sz, sizeof(sz), r->peak_kib);
		report_size(szm, sizeof(szm), (uint64_t)((double)r->peak_kib * (1 + o->margin_pct / 100)));
		peak_jobs(f, k, 3, o->utf8, jobs, sizeof(jobs));
		printf("%5u%c %11s %11s %8.2f s  %s\n", r->slots, (int)k == f->recorded ? '*' : ' ', sz, szm,
		       (double)r->wall_ns / 1e9, jobs);
	}
	const struct forecast_result *r = &f->res[f->recorded];
	recorded_cells(f, peak, wall, sizeof(peak));
	report_size(sz, sizeof(sz), f->in->measured_peak_kib);
	printf("\n* the recorded -j%u: measured peak %s, wall %.2f s; the forecast %s and %s off\n", r->slots, sz,
	       (double)f->in->measured_wall_ns / 1e9, peak, wall);
	verdict_line(f, o, jobs, sizeof(jobs));
	printf("\nfits in %s\n", jobs);
}

static void markdown_out(const struct fc *f, const struct fopts *o, const struct notes *nt)
{
	char cmd[256], peak[64], wall[64], jobs[512], sz[32], szm[32];
	compare_fmt_cmd(&f->row, cmd, sizeof(cmd), 1);
	printf("### spacetime forecast: run %" PRId64 " (", f->row.id);
	compare_md_cell(cmd, 1);
	printf("), %zu jobs\n\n", f->in->njobs);
	for (int i = 0; i < nt->n; i++) {
		printf("> ");
		compare_md_cell(nt->line[i], 1);
		printf("\n");
	}
	printf("\n| -j | peak PSS | +%g%% | wall | jobs at the peak |\n|---:|---:|---:|---:|---|\n", o->margin_pct);
	for (size_t k = 0; k < f->nres; k++) {
		const struct forecast_result *r = &f->res[k];
		if ((int)k == f->all_line)
			continue;
		report_size(sz, sizeof(sz), r->peak_kib);
		report_size(szm, sizeof(szm), (uint64_t)((double)r->peak_kib * (1 + o->margin_pct / 100)));
		peak_jobs(f, k, 3, 1, jobs, sizeof(jobs));
		printf("| %u%s | %s | %s | %.2f s | ", r->slots, (int)k == f->recorded ? " (recorded)" : "", sz, szm,
		       (double)r->wall_ns / 1e9);
		compare_md_cell(jobs, 1);
		printf(" |\n");
	}
	recorded_cells(f, peak, wall, sizeof(peak));
	report_size(sz, sizeof(sz), f->in->measured_peak_kib);
	printf("\n**The recorded -j%u:** measured peak %s, wall %.2f s; the forecast %s and %s off.\n",
	       f->res[f->recorded].slots, sz, (double)f->in->measured_wall_ns / 1e9, peak, wall);
	verdict_line(f, o, jobs, sizeof(jobs));
	printf("\n**Fits in** %s\n", jobs);
}

static void json_str(const char *key, const char *s, int *first)
{
	jsonw_key(stdout, key, first);
	jsonw_str(stdout, s, strlen(s));
}

/* Line k: its figures, whether it fits, the jobs at its peak. */
static void json_line(const struct fc *f, const struct fopts *o, size_t k)
{
	const struct forecast_result *r = &f->res[k];
	int in = 1;
	putchar('{');
	jsonw_u64(stdout, "jobs", r->slots, &in);
	jsonw_u64(stdout, "peak_pss_kib", r->peak_kib, &in);
	jsonw_u64(stdout, "with_margin_kib", (uint64_t)((double)r->peak_kib * (1 + o->margin_pct / 100)), &in);
	jsonw_u64(stdout, "wall_us", r->wall_ns / 1000, &in);
	jsonw_u64(stdout, "peak_at_us", r->peak_t_ns / 1000, &in);
	jsonw_u64(stdout, "running_at_peak", r->running_at_peak, &in);
	jsonw_u64(stdout, "most_running", r->most_running, &in);
	jsonw_key(stdout, "recorded", &in);
	fputs((int)k == f->recorded ? "true" : "false", stdout);
	jsonw_key(stdout, "fits", &in);
	fputs(fits(f, o, k) ? "true" : "false", stdout);
	jsonw_key(stdout, "at_peak", &in);
	putchar('[');
	for (size_t i = 0; i < r->n_at_peak; i++) {
		int in2 = 1;
		printf("%s{", i ? "," : "");
		json_str("job", forecast_rec_job(f->fr, r->at_peak[i].job), &in2);
		jsonw_u64(stdout, "pss_kib", r->at_peak[i].pss_kib, &in2);
		putchar('}');
	}
	fputs("]}", stdout);
}

/* The run and the model's figures. */
static void json_head(const struct fc *f, int *first)
{
	const struct forecast_rec_info *in = f->in;
	jsonw_i64(stdout, "run", f->row.id, first);
	json_str("file", f->path, first);
	jsonw_key(stdout, "command", first);
	size_t len = f->row.argv ? f->row.argv_len : 0;
	if (len && !f->row.argv[len - 1])
		len--;
	jsonw_argv(stdout, f->row.argv, len);
	json_str("tool", in->tool, first);
	jsonw_u64(stdout, "jobs", in->njobs, first);
	jsonw_key(stdout, "recorded_jobs", first);
	if (in->recorded_slots)
		printf("%u", in->recorded_slots);
	else
		fputs("null", stdout);
	json_str("recorded_jobs_from", in->slots_from == FORECAST_FROM_ARGV ? "command_line" : "most_at_once", first);
	json_str("recorded_jobs_word", in->slots_word, first);
	jsonw_u64(stdout, "most_at_once", in->most_at_once, first);
	jsonw_u64(stdout, "dependencies_seen", in->ndeps_seen, first);
	jsonw_u64(stdout, "dependencies_from_runs", in->ndeps_runs, first);
	jsonw_key(stdout, "deps_runs", first);
	putchar('[');
	for (size_t i = 0; i < f->nmore; i++)
		printf("%s%" PRId64, i ? "," : "", f->more_row[i].id);
	putchar(']');
	jsonw_u64(stdout, "barriers", in->nbarriers, first);
	jsonw_key(stdout, "cores", first);
	printf("%g", f->m.cores);
	json_str("cores_from", f->cores_opt ? "option" : "machine", first);
	jsonw_u64(stdout, "tool_pss_kib", in->tool_kib, first);
	jsonw_key(stdout, "file_share", first);
	printf("%.4f", in->file_share);
	jsonw_u64(stdout, "step_us", in->step_ns / 1000, first);
	jsonw_u64(stdout, "pss_unknown_processes", in->unknown_pss, first);
	jsonw_key(stdout, "measured", first);
	int m = 1;
	putchar('{');
	jsonw_u64(stdout, "jobs", f->recorded_slots, &m);
	jsonw_u64(stdout, "peak_pss_kib", in->measured_peak_kib, &m);
	jsonw_u64(stdout, "wall_us", in->measured_wall_ns / 1000, &m);
	putchar('}');
}

static void json_out(const struct fc *f, const struct fopts *o, const struct notes *nt)
{
	int first = 1, in = 1;
	putchar('{');
	json_head(f, &first);
	jsonw_key(stdout, "forecasts", &first);
	putchar('[');
	for (size_t k = 0, n = 0; k < f->nres; k++)
		if ((int)k != f->all_line) {
			printf("%s", n++ ? "," : "");
			json_line(f, o, k);
		}
	putchar(']');
	jsonw_key(stdout, "recorded", &first);
	json_line(f, o, (size_t)f->recorded);
	jsonw_key(stdout, "ram", &first);
	putchar('{');
	jsonw_u64(stdout, "ram_kib", f->ram_kib, &in);
	static const char *const from[] = {"option", "cgroup", "machine"};
	json_str("from", from[f->ram_from], &in);
	jsonw_key(stdout, "margin_pct", &in);
	printf("%g", o->margin_pct);
	jsonw_key(stdout, "largest_jobs", &in);
	if (f->fits >= 0)
		printf("%u", f->res[f->fits].slots);
	else
		fputs("null", stdout);
	jsonw_key(stdout, "all_fit", &in);
	fputs(f->all_fit ? "true" : "false", stdout);
	putchar('}');
	jsonw_key(stdout, "notes", &first);
	putchar('[');
	for (int i = 0; i < nt->n; i++) {
		if (i)
			putchar(',');
		jsonw_str(stdout, nt->line[i], strlen(nt->line[i]));
	}
	puts("]}");
}

/* The machine's figures, or the options': cores and the memory to fit in.
 * Returns 0 or the exit status (said). */
static int machine(const struct fopts *o, struct fc *f)
{
	uint64_t ram = 0;
	unsigned cpus = 1;
	int by_cg = 0, r = forecast_rec_machine(&ram, &by_cg, &cpus);

	f->m.cores = o->cores ? o->cores : cpus;
	f->cores_opt = o->cores > 0;
	f->ram_kib = o->ram_kib ? o->ram_kib : ram;
	f->ram_from = o->ram_kib ? 0 : by_cg ? 1 : 2;
	if (!o->ram_kib && r < 0) {
		fprintf(stderr, "spacetime: cannot read this machine's memory (%s): give --ram SIZE\n", strerror(-r));
		return FORECAST_EXIT_USAGE;
	}
	return 0;
}

int forecast_main(int argc, char **argv)
{
	struct fopts o = {.margin_pct = FORECAST_MARGIN_PCT};
	static struct fc f;
	int r = parse(argc, argv, &o);

	if (r >= 0)
		return r;
	memset(&f, 0, sizeof(f));
	const char *cs = nl_langinfo(CODESET);
	o.utf8 = cs && !strcmp(cs, "UTF-8");
	if ((r = open_run(&o, &f)) == 0 && (r = machine(&o, &f)) == 0 && (r = lines(&o, &f, (unsigned)ceil(f.m.cores))) == 0 &&
	    (r = verdict(&o, &f)) == 0) {
		struct notes nt;
		notes_of(&f, &nt);
		if (o.fmt == 2)
			json_out(&f, &o, &nt);
		else if (o.fmt == 1)
			markdown_out(&f, &o, &nt);
		else
			text_out(&f, &o, &nt);
		r = o.ram_kib && f.fits < 0 ? FORECAST_EXIT_NOFIT : 0;
	}
	forecast_rec_free(f.fr);
	run_free(f.run);
	runs_row_free(&f.row);
	for (size_t i = 0; i < f.nmore; i++) {
		run_free(f.more[i]);
		runs_row_free(&f.more_row[i]);
	}
	return r;
}
