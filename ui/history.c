/* history.c: the recorded runs (history.h). */
#include "history.h"

#include "compare_ui.h"
#include "forecast_ui.h"

#include "exitcode.h"
#include "export.h"
#include "jsonw.h"
#include "recdir.h"
#include "report.h"
#include "run.h"
#include "runs.h"
#include "store.h"
#include "textsafe.h"
#include "tui.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HISTORY_EXIT_USAGE 2

/* The user's defaults, for a replay's dashboard (history_main's). */
static const struct config *history_cfg;
#define HISTORY_EXIT_FAIL 1

int history_is_command(const char *word)
{
	return word && (!strcmp(word, "runs") || !strcmp(word, "replay") || !strcmp(word, "export") ||
			!strcmp(word, "compare") || !strcmp(word, "forecast") || !strcmp(word, "push"));
}

/* Options of the history commands. */
struct hopts {
	const char *db;     /* --db FILE (default: the default recording) */
	const char *run;    /* ID or "last" */
	const char *at;     /* replay --at: "peak", or seconds into the run */
	const char *dir;    /* export -o DIR */
	unsigned formats;   /* export --format (runs: json) */
	int to_db;          /* export --format db: -o names the file */
	int no_output;      /* export --no-output */
	const char *against; /* replay, export --against: another run as a ghost line */
	int no_mouse;       /* replay --no-mouse */
	const char *filter[RUNS_LABELS_MAX]; /* runs KEY=VALUE...: runs carrying them all */
	size_t nfilter;
};

static void history_usage(FILE *f)
{
	fputs("usage: spacetime runs [KEY=VALUE...] [--format json] [--db FILE]\n"
	      "       spacetime replay [ID|last] [--at peak|SECONDS] [--against RUN] [--no-mouse] [--db FILE]\n"
	      "       spacetime export [ID|last] [--format LIST] [-o DIR] [--against RUN] [--db FILE]\n"
	      "       spacetime export [ID|last] --format db [-o FILE] [--no-output] [--db FILE]\n"
	      "The runs spacetime recorded (by default in $XDG_STATE_HOME/spacetime/runs.db,\n"
	      "i.e. ~/.local/state/spacetime/runs.db): listed, replayed in the dashboard (or,\n"
	      "without a terminal, summarized), or exported like a live run. --format db\n"
	      "writes the run to a new recording of its own (default spacetime-run-ID.db),\n"
	      "to share or to compare later; --no-output leaves its output and working\n"
	      "directory out. --against RUN (an id, last~N, FILE or FILE:ID, as compare\n"
	      "names a run) draws that run's tree PSS as a ghost line over this one's,\n"
	      "the two aligned at their starts, its peak marked: in the dashboard and the SVG.\n",
	      f);
}

static int history_die(const char *what, const char *arg)
{
	fprintf(stderr, "spacetime: ");
	fprintf(stderr, what, arg);
	fprintf(stderr, " (see spacetime %s --help)\n", "runs");
	return HISTORY_EXIT_USAGE;
}

/* Parses the options after the command's name. Returns 0, or the exit
 * status (-1: --help printed, exit 0). */
static int history_parse(int argc, char **argv, struct hopts *o)
{
	static const struct option lo[] = {
		{"db", required_argument, NULL, 'd'},     {"record", required_argument, NULL, 'd'},
		{"at", required_argument, NULL, 'a'},     {"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
		{"no-output", no_argument, NULL, 'n'},    {"against", required_argument, NULL, 'g'},
		{"no-mouse", no_argument, NULL, 'M'},     {0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'a': o->at = optarg; break;
		case 'o': o->dir = optarg; break;
		case 'n': o->no_output = 1; break;
		case 'g': o->against = optarg; break;
		case 'M': o->no_mouse = 1; break;
		case 'f':
			if (!strcmp(optarg, "db") && !strcmp(argv[0], "export")) {
				o->to_db = 1;
				break;
			}
			if (export_formats_parse(optarg, &o->formats) < 0)
				return history_die("invalid --format '%s': expected json,csv,trace,svg (or db)", optarg);
			break;
		case 'h': history_usage(stdout); return -1;
		case ':': return history_die("option '%s' needs a value", argv[optind - 1]);
		default: return history_die("unknown option '%s'", argv[optind - 1]);
		}
	}
	while (!strcmp(argv[0], "runs") && optind < argc) {
		if (!runs_label_ok(argv[optind]) || o->nfilter == RUNS_LABELS_MAX)
			return history_die("runs selects by labels: KEY=VALUE, not '%s'", argv[optind]);
		o->filter[o->nfilter++] = argv[optind++];
	}
	if (optind < argc)
		o->run = argv[optind++];
	if (optind < argc)
		return history_die("unexpected argument '%s'", argv[optind]);
	if (!strcmp(argv[0], "runs") && (o->run || o->at || o->dir || (o->formats && o->formats != EXPORT_F_JSON)))
		return history_die("%s takes only labels, --db and --format json", "runs");
	if (strcmp(argv[0], "replay") && o->at)
		return history_die("--at is for %s", "replay");
	if (strcmp(argv[0], "replay") && o->no_mouse)
		return history_die("--no-mouse is for %s", "replay");
	if (strcmp(argv[0], "export") && (o->dir || (o->formats && strcmp(argv[0], "runs"))))
		return history_die("-o and --format are for %s", "export");
	if (o->to_db && o->formats)
		return history_die("--format db writes %s: not with other formats", "a recording");
	if (o->against && (!strcmp(argv[0], "runs") || o->to_db))
		return history_die("--against is for %s", "replay and export");
	if (o->no_output && !o->to_db)
		return history_die("--no-output is for %s", "export --format db");
	return 0;
}

/* Opens the recording read-only, one line when it cannot be. */
static struct runs *history_open(const struct hopts *o, char *path, size_t cap)
{
	struct runs *rs = NULL;
	char msg[512];

	if (o->db) {
		snprintf(path, cap, "%s", o->db);
	} else if (recdir_default(path, cap, 0) < 0) {
		fprintf(stderr, "spacetime: no recordings: %s\n", path);
		return NULL;
	}
	if (access(path, F_OK) < 0 && errno == ENOENT) {
		fprintf(stderr, "spacetime: no recordings in %s%s\n", path,
			o->db ? "" : " yet (every run is recorded there unless --no-record)");
		return NULL;
	}
	if (runs_open(path, &rs, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "spacetime: %s\n", msg);
		return NULL;
	}
	return rs;
}

/* The command line of a run row as one line for a terminal: the arguments
 * separated by spaces, the recording's untrusted bytes by textsafe's rule
 * (utf8: the locale's charset is UTF-8), as much as cap holds. */
static void history_cmd(const struct runs_row *r, char *buf, size_t cap, int utf8)
{
	size_t k = textsafe_str(r->argv, r->argv ? r->argv_len : 0, buf, cap, utf8);

	while (k && buf[k - 1] == ' ')
		k--;
	buf[k] = 0;
}

/* spacetime runs: one line per recorded run, oldest first. */
/* Whether row r carries every label of o's filter. */
static int history_selected(const struct hopts *o, const struct runs_row *r)
{
	for (size_t i = 0; i < o->nfilter; i++)
		if (!runs_row_has(r, o->filter[i]))
			return 0;
	return 1;
}

/* A run row's labels as one line ("" when none): "k=v k=v". */
static void history_labels(const struct runs_row *r, char *buf, size_t cap, int utf8)
{
	size_t k = 0;
	buf[0] = 0;
	for (size_t i = 0; r->labels && i < r->labels_len && k + 2 < cap; i += strlen(r->labels + i) + 1) {
		if (k)
			buf[k++] = ' ';
		k += textsafe_str(r->labels + i, strlen(r->labels + i), buf + k, cap - k, utf8);
	}
}

/* One run row as a JSON object. */
static void history_row_json(const struct runs_row *r, int first)
{
	int in = 1;
	printf("%s{", first ? "" : ",");
	jsonw_i64(stdout, "id", r->id, &in);
	if (r->damage) {
		jsonw_key(stdout, "damage", &in);
		jsonw_str(stdout, r->damage, strlen(r->damage));
		putchar('}');
		return;
	}
	jsonw_u64(stdout, "start_wall_ns", r->start_wall_ns, &in);
	jsonw_u64(stdout, "wall_ns", r->wall_ns, &in);
	jsonw_u64(stdout, "peak_pss_kib", r->peak_pss_kib, &in);
	jsonw_key(stdout, "exit_status", &in);
	if (r->exit_known)
		printf("%d", exitcode_of(r->exit_status));
	else
		fputs("null", stdout);
	jsonw_key(stdout, "end", &in);
	jsonw_str(stdout, r->end, strlen(r->end));
	jsonw_key(stdout, "command", &in);
	size_t len = r->argv ? r->argv_len : 0;
	jsonw_argv(stdout, r->argv, len && !r->argv[len - 1] ? len - 1 : len);
	jsonw_key(stdout, "labels", &in);
	putchar('{');
	int lf = 1;
	for (size_t i = 0; r->labels && i < r->labels_len; i += strlen(r->labels + i) + 1) {
		const char *l = r->labels + i, *eq = strchr(l, '=');
		printf("%s", lf ? "" : ",");
		lf = 0;
		jsonw_str(stdout, l, (size_t)(eq - l));
		putchar(':');
		jsonw_str(stdout, eq + 1, strlen(eq + 1));
	}
	puts("}}");
}

/* A run row as one line of the listing. */
static void history_row_text(const struct runs_row *r, int utf8)
{
	char when[32] = "?", wall[16], peak[16], ex[24], cmd[512], labels[600];

	if (r->damage) { /* its values break their bounds: only the why */
		printf("%6" PRId64 "  %-16s  %9s  %9s  %-11s  %s\n", r->id, "?", "?", "?", "damaged", r->damage);
		return;
	}
	time_t t = (time_t)(r->start_wall_ns / 1000000000ull);
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	snprintf(wall, sizeof(wall), "%.1f s", (double)r->wall_ns / 1e9);
	report_size(peak, sizeof(peak), r->peak_pss_kib);
	if (r->unfinished)
		/* written a moment ago: being recorded; else its spacetime died */
		snprintf(ex, sizeof(ex), run_recording_live(r->updated_wall_ns) ? "running" : "unfinished");
	else if (r->detached)
		snprintf(ex, sizeof(ex), "detached");
	else if (r->attached)
		snprintf(ex, sizeof(ex), "ended");
	else if (r->exit_known)
		snprintf(ex, sizeof(ex), "%d%s", exitcode_of(r->exit_status), r->incomplete ? " (part)" : "");
	else
		snprintf(ex, sizeof(ex), "%s", r->end);
	history_cmd(r, cmd, sizeof(cmd), utf8);
	history_labels(r, labels, sizeof(labels), utf8);
	printf("%6" PRId64 "  %-16s  %9s  %9s  %-11s  %s%s%s%s%s\n", r->id, when, wall, peak, ex, r->attached ? "-p " : "",
	       cmd, labels[0] ? "  [" : "", labels, labels[0] ? "]" : "");
}

/* spacetime runs: one line per recorded run, oldest first (those carrying
 * the labels asked for); --format json: one object per run in an array. */
static int history_runs(const struct hopts *o)
{
	char path[4096];
	struct runs *rs = history_open(o, path, sizeof(path));
	struct runs_row *rows = NULL;
	const char *cs = nl_langinfo(CODESET);
	int utf8 = cs && !strcmp(cs, "UTF-8"), json = o->formats == EXPORT_F_JSON, shown = 0;

	if (!rs)
		return HISTORY_EXIT_FAIL;
	ssize_t n = runs_list(rs, &rows);
	if (n < 0) {
		fprintf(stderr, "spacetime: cannot read %s: %s\n", path, n == -ENOMEM ? "out of memory" : runs_errmsg(rs));
		runs_close(rs);
		return HISTORY_EXIT_FAIL;
	}
	if (json)
		putchar('[');
	else
		printf("%6s  %-16s  %9s  %9s  %-11s  %s\n", "ID", "START", "WALL", "PEAK PSS", "EXIT", "COMMAND [LABELS]");
	for (ssize_t i = 0; i < n; i++) {
		if (!history_selected(o, &rows[i]))
			continue;
		if (json)
			history_row_json(&rows[i], !shown);
		else
			history_row_text(&rows[i], utf8);
		shown++;
	}
	if (json)
		puts("]");
	else if (!shown)
		printf("(no runs%s in %s)\n", o->nfilter ? " with those labels" : "", path);
	runs_rows_free(rows, (size_t)n);
	runs_close(rs);
	return 0;
}

char **history_argv(const struct runs_row *r)
{
	size_t n = 0, len = r->argv ? r->argv_len : 0;

	for (size_t i = 0; i < len; i++)
		n += r->argv[i] == 0;
	if (len && r->argv[len - 1])
		n++;
	char **av = malloc((n + 2) * sizeof(char *) + len + 1);
	if (!av)
		return NULL;
	char *s = (char *)(av + n + 2);
	if (len)
		memcpy(s, r->argv, len);
	s[len] = 0;
	size_t k = 0;
	for (size_t i = 0; i < len; i += strlen(s + i) + 1)
		av[k++] = s + i;
	if (!k)
		av[k++] = "?";
	av[k] = NULL;
	return av;
}

/* Opens the run o->run names (default: the last) as a run: loaded into a
 * store, or followed when another spacetime still records it; the run
 * object, its argv and its row in *row_out. */
/* Opens the recording and names the run o->run (default: the last) in it.
 * Returns the recording (runs_close it) with *id, or NULL with *status
 * the exit status and one line said. */
static struct runs *history_resolve(const struct hopts *o, char *path, size_t cap, int64_t *id, int *status)
{
	struct runs *rs = history_open(o, path, cap);
	int r;

	*status = HISTORY_EXIT_FAIL;
	if (!rs)
		return NULL;
	const char *spec = o->run ? o->run : "last";
	if ((r = runs_resolve(rs, spec, id)) < 0) {
		if (r == -ENOENT)
			fprintf(stderr, "spacetime: no run %s in %s (spacetime runs lists them)\n", spec, path);
		else if (r == -EINVAL)
			fprintf(stderr, "spacetime: '%s' is not a run id: expected a number or 'last'\n", spec);
		else
			fprintf(stderr, "spacetime: cannot read %s: %s\n", path, runs_errmsg(rs));
		runs_close(rs);
		*status = r == -EINVAL ? HISTORY_EXIT_USAGE : HISTORY_EXIT_FAIL;
		return NULL;
	}
	return rs;
}

static int history_load(const struct hopts *o, struct run **run_out, char ***argv_out, struct runs_row *row_out)
{
	char path[4096], msg[512];
	int64_t id;
	int r;
	struct runs *rs = history_resolve(o, path, sizeof(path), &id, &r);

	*argv_out = NULL;
	if (!rs)
		return r;
	if ((r = runs_take(&rs, id, run_out, row_out, msg, sizeof(msg))) < 0) {
		fprintf(stderr, "spacetime: cannot read run %" PRId64 " of %s: %s\n", id, path, msg);
		return HISTORY_EXIT_FAIL;
	}
	if (msg[0]) /* the run opens without them */
		fprintf(stderr, "spacetime: run %" PRId64 " of %s: %s\n", id, path, msg);
	if (!(*argv_out = history_argv(row_out))) {
		fprintf(stderr, "spacetime: out of memory\n");
		run_free(*run_out);
		runs_row_free(row_out);
		return HISTORY_EXIT_FAIL;
	}
	return 0;
}

/* The run --against names (NULL without one): opened into *g with its
 * name in label. Returns 0, or the exit status (said). */
static int history_against(const struct hopts *o, struct run **g, char *label, size_t cap)
{
	char path[4096];
	struct runs_row row;

	*g = NULL;
	if (!o->against)
		return 0;
	/* a run that cannot be read, as for the run replayed */
	if (compare_open_run(o->against, o->db, g, &row, path, sizeof(path), "runs"))
		return HISTORY_EXIT_FAIL;
	snprintf(label, cap, "run %" PRId64, row.id);
	runs_row_free(&row);
	return 0;
}

/* Without a terminal, the ghost's line of the summary: its peak beside
 * this run's. */
static void history_against_line(struct run *run, struct run *g, const char *label)
{
	struct store_summary a, b;
	char pa[32], pb[32];

	store_summary_get(run_store(run), &a);
	store_summary_get(run_store(g), &b);
	report_size(pa, sizeof(pa), a.peak.pss_kib);
	report_size(pb, sizeof(pb), b.peak.pss_kib);
	printf("  against         %s: peak PSS %s at %.2f s (this run: %s at %.2f s); spacetime compare for the rest\n",
	       label, pb, b.peak.t_ns > b.start_ns ? (double)(b.peak.t_ns - b.start_ns) / 1e9 : 0.0, pa,
	       a.peak.t_ns > a.start_ns ? (double)(a.peak.t_ns - a.start_ns) / 1e9 : 0.0);
}

/* spacetime replay: the dashboard on a recorded run; without a terminal,
 * its summary. */
static int history_replay(const struct hopts *o)
{
	struct run *run;
	char **argv;
	struct runs_row row;
	int r = history_load(o, &run, &argv, &row);
	struct store_summary sum;
	struct run *ghost = NULL;
	char glabel[64] = "";

	if (r)
		return r;
	if ((r = history_against(o, &ghost, glabel, sizeof(glabel))) != 0)
		goto out;
	store_summary_get(run_store(run), &sum);
	uint64_t at = 0;
	if (o->at && !strcmp(o->at, "peak")) {
		at = sum.peak.t_ns;
	} else if (o->at) {
		char *end;
		double s = strtod(o->at, &end);
		if (end == o->at || *end || !(s >= 0) || !isfinite(s) || s > 1e9) {
			r = history_die("invalid --at '%s': expected 'peak' or seconds into the run", o->at);
			goto out;
		}
		at = row.base_ns + (uint64_t)(s * 1e9);
	}
	char notice[160], when[32] = "?";
	time_t t = (time_t)(row.start_wall_ns / 1000000000ull);
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	int tty = tui_probe();
	snprintf(notice, sizeof(notice), "replay of run %" PRId64 ", recorded %s%s", row.id, when,
		 run_following(run) && tty ? " (still being recorded: followed live)"
		 : run_following(run)  ? " (still being recorded: what was written so far)"
		 : row.incomplete ? " (incomplete: it ends where the recording stopped)"
				  : "");
	if (tty) {
		struct tui_ctx tc = {.run = run, .argv = argv, .cfg = history_cfg, .no_mouse = o->no_mouse,
				     .interval_ms = sum.interval_ms ? (unsigned)sum.interval_ms : STORE_INTERVAL_MS, .notice = notice,
				     .log_fd = -1, .export_dir = NULL, .cursor_ns = at,
				     .start_wall_ns = row.start_wall_ns, .against = ghost,
				     .against_label = ghost ? glabel : NULL};
		if ((r = tui_run(&tc)) < 0)
			fprintf(stderr, "spacetime: cannot start the dashboard (%s); the summary follows\n",
				strerror(-r));
		else
			goto out;
	}
	{
		const char *utf = nl_langinfo(CODESET);
		struct report_opts ro = {.utf8 = utf && !strcmp(utf, "UTF-8"), .notice = notice, .top = REPORT_TOP};
		r = report_text(stdout, run_store(run), argv, &ro) < 0 ? HISTORY_EXIT_FAIL : 0;
		if (ghost)
			history_against_line(run, ghost, glabel);
	}
out:
	runs_row_free(&row);
	free(argv);
	run_free(run);
	run_free(ghost);
	return r;
}

/* spacetime export --format db: the run in a recording of its own. */
static int history_export_db(const struct hopts *o)
{
	char path[4096], msg[4200], out[4096];
	int64_t id;
	int r;
	struct runs *rs = history_resolve(o, path, sizeof(path), &id, &r);

	if (!rs)
		return r;
	if (o->dir)
		snprintf(out, sizeof(out), "%s", o->dir);
	else
		snprintf(out, sizeof(out), "spacetime-run-%" PRId64 ".db", id);
	if (runs_copy(rs, id, out, o->no_output, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "spacetime: cannot write run %" PRId64 " to a file of its own: %s\n", id, msg);
		r = HISTORY_EXIT_FAIL;
	} else {
		fprintf(stderr, "spacetime: run %" PRId64 " written to %s%s\n", id, out,
			o->no_output ? " (without its output and working directory)" : "");
		r = 0;
	}
	runs_close(rs);
	return r;
}

/* spacetime export: the snapshot of a recorded run, as of a live one. */
static int history_export(const struct hopts *o)
{
	if (o->to_db)
		return history_export_db(o);
	struct run *run, *ghost = NULL;
	char **argv, glabel[64] = "";
	struct runs_row row;
	int r = history_load(o, &run, &argv, &row);

	if (r)
		return r;
	if ((r = history_against(o, &ghost, glabel, sizeof(glabel))) != 0) {
		runs_row_free(&row);
		free(argv);
		run_free(run);
		return r;
	}
	const char *dir = o->dir ? o->dir : ".";
	if ((r = export_dir_check(dir)) < 0) {
		fprintf(stderr, "spacetime: cannot export to %s: %s\n", dir, strerror(-r));
		r = HISTORY_EXIT_USAGE;
	} else {
		struct export_opts eo = {.dir = dir, .formats = o->formats, .start_wall_ns = row.start_wall_ns,
					 .against = ghost ? run_store(ghost) : NULL, .against_label = glabel};
		char msg[2048];
		if (export_snapshot(run_store(run), argv, &eo, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "spacetime: %s\n", msg);
			r = HISTORY_EXIT_FAIL;
		} else {
			fprintf(stderr, "spacetime: snapshot of run %" PRId64 " written: %s\n", row.id, msg);
			r = 0;
		}
	}
	runs_row_free(&row);
	free(argv);
	run_free(run);
	run_free(ghost);
	return r;
}

int history_main(int argc, char **argv, const struct config *cfg)
{
	history_cfg = cfg;
	struct hopts o;

	if (!strcmp(argv[0], "compare"))
		return compare_main(argc, argv);
	if (!strcmp(argv[0], "forecast"))
		return forecast_main(argc, argv);
	int r = history_parse(argc, argv, &o);

	if (r)
		return r < 0 ? 0 : r;
	if (!strcmp(argv[0], "runs"))
		return history_runs(&o);
	if (!strcmp(argv[0], "replay"))
		return history_replay(&o);
	return history_export(&o);
}
