/* push.c: --push, --otlp and `spacetime push` (push.h). */
#include "push.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare_ui.h"
#include "export_jobs.h"
#include "history.h"
#include "run.h"
#include "runs.h"
#include "version.h"

#define PUSH_EXIT_USAGE 2
#define PUSH_EXIT_FAIL 1

uint64_t push_timeout_parse(const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.1 && v <= 600))
		return 0;
	return (uint64_t)(v * 1000);
}

int push_plan(const struct push_opts *o, struct push_plan *p)
{
	char msg[512];

	memset(p, 0, sizeof(*p));
	p->d.cancel_fd = -1;
	p->d.timeout_ms = o->timeout_ms ? o->timeout_ms : PUSH_TIMEOUT_MS;
	if (o->otlp_traces && !o->otlp_url) {
		fprintf(stderr, "spacetime: --otlp-traces needs --otlp URL\n");
		return -1;
	}
	if (o->push_url) {
		if (strncmp(o->push_url, "http://", 7) && strncmp(o->push_url, "https://", 8)) {
			fprintf(stderr, "spacetime: invalid --push '%s': expected the Pushgateway's http:// or https:// URL\n",
				o->push_url);
			return -1;
		}
		p->d.push_url = o->push_url;
	}
	if (o->otlp_url) {
		if (fleet_otlp_env(o->otlp_url, o->otlp_traces, getenv, &p->env, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "spacetime: %s\n", msg);
			return -1;
		}
		p->d.otlp_metrics = p->env.metrics;
		p->d.otlp_traces = p->env.traces[0] ? p->env.traces : NULL;
		p->d.headers = p->env.headers;
		p->d.nheaders = p->env.nheaders;
		p->d.res = (struct fleet_otlp_res){p->env.attrs, p->env.service};
	}
	p->any = p->d.push_url || p->d.otlp_metrics;
	return 0;
}

static void say(void *arg, int ok, const char *line)
{
	(void)arg;
	(void)ok;
	fprintf(stderr, "spacetime: %s\n", line);
}

int push_send(const struct push_plan *p, const struct fleet_run *r)
{
	if (!p->any)
		return 0;
	return fleet_send(r, &p->d, say, NULL);
}

static void push_usage(FILE *f)
{
	fputs("usage: spacetime push [RUN] [--push URL] [--otlp URL|env] [--otlp-traces]\n"
	      "                      [--push-timeout S] [--top N] [--label KEY=VALUE]... [--db FILE]\n"
	      "Sends a recorded run (default: the last; RUN as compare names one: an id,\n"
	      "last~N, FILE or FILE:ID) to a Prometheus Pushgateway (--push) and an\n"
	      "OpenTelemetry collector (--otlp, OTLP/HTTP JSON; 'env' takes the endpoint\n"
	      "from OTEL_EXPORTER_OTLP_ENDPOINT), as spacetime --push and --otlp do at a\n"
	      "run's end. The run's labels are its grouping key; --label adds to them.\n"
	      "Exit status: 0 sent everywhere, 1 an endpoint did not take it, 2 a usage\n"
	      "error or a run that cannot be read.\n",
	      f);
}

struct push_args {
	struct push_opts o;
	const char *db, *sel;
	int top;
	const char *labels[RUNS_LABELS_MAX];
	size_t nlabels;
};

static int push_parse(int argc, char **argv, struct push_args *a)
{
	static const struct option lo[] = {
		{"push", required_argument, NULL, 'P'}, {"otlp", required_argument, NULL, 'O'},
		{"otlp-traces", no_argument, NULL, 'T'}, {"push-timeout", required_argument, NULL, 't'},
		{"top", required_argument, NULL, 'n'}, {"label", required_argument, NULL, 'l'},
		{"db", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int c;

	memset(a, 0, sizeof(*a));
	a->top = 5;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'P': a->o.push_url = optarg; break;
		case 'O': a->o.otlp_url = optarg; break;
		case 'T': a->o.otlp_traces = 1; break;
		case 'd': a->db = optarg; break;
		case 't':
			if (!(a->o.timeout_ms = push_timeout_parse(optarg))) {
				fprintf(stderr, "spacetime push: invalid --push-timeout '%s': seconds, 0.1..600\n", optarg);
				return PUSH_EXIT_USAGE;
			}
			break;
		case 'n': {
			errno = 0;
			long v = strtol(optarg, &end, 10);
			a->top = v >= 0 && v <= 1000 ? (int)v : -1;
			if (errno || *end || end == optarg || a->top < 0) {
				fprintf(stderr, "spacetime push: invalid --top '%s': 0..1000\n", optarg);
				return PUSH_EXIT_USAGE;
			}
			break;
		}
		case 'l':
			if (!runs_label_ok(optarg) || a->nlabels == RUNS_LABELS_MAX) {
				fprintf(stderr, "spacetime push: invalid --label '%s' (KEY=VALUE, 16 at most)\n", optarg);
				return PUSH_EXIT_USAGE;
			}
			a->labels[a->nlabels++] = optarg;
			break;
		case 'h': push_usage(stdout); return -1;
		default: push_usage(stderr); return PUSH_EXIT_USAGE;
		}
	}
	if (optind < argc)
		a->sel = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "spacetime push: one run at a time ('%s' is one too many)\n", argv[optind]);
		return PUSH_EXIT_USAGE;
	}
	if (!a->o.push_url && !a->o.otlp_url) {
		fprintf(stderr, "spacetime push: nowhere to send: give --push URL or --otlp URL\n");
		return PUSH_EXIT_USAGE;
	}
	return 0;
}

/* The recording's labels, then those given (a key given replaces the
 * recording's). */
static size_t merge_labels(const struct runs_row *row, const struct push_args *a, const char **out)
{
	size_t n = 0;

	for (size_t i = 0; row->labels && i < row->labels_len && n < RUNS_LABELS_MAX;
	     i += strlen(row->labels + i) + 1) {
		const char *l = row->labels + i, *eq = strchr(l, '=');
		int given = 0;
		for (size_t j = 0; eq && j < a->nlabels; j++)
			given |= !strncmp(a->labels[j], l, (size_t)(eq - l) + 1);
		if (!given)
			out[n++] = l;
	}
	for (size_t j = 0; j < a->nlabels && n < RUNS_LABELS_MAX; j++)
		out[n++] = a->labels[j];
	return n;
}

int push_main(int argc, char **argv)
{
	struct push_args a;
	struct push_plan p;
	struct run *run = NULL;
	struct runs_row row;
	char path[4096];
	const char *labels[RUNS_LABELS_MAX];
	int r = push_parse(argc, argv, &a);

	if (r)
		return r < 0 ? 0 : r;
	if (push_plan(&a.o, &p) < 0)
		return PUSH_EXIT_USAGE;
	if ((r = compare_open_run(a.sel ? a.sel : "last", a.db, &run, &row, path, sizeof(path), "push")) != 0)
		return r;
	char **av = history_argv(&row);
	if (!av) {
		fprintf(stderr, "spacetime push: out of memory\n");
		r = PUSH_EXIT_USAGE;
	} else {
		struct fleet_run fr = {.st = run_store(run), .argv = av, .labels = labels,
				       .nlabels = merge_labels(&row, &a, labels), .host = row.host,
				       .start_wall_ns = row.start_wall_ns, .top = a.top, .version = SPACETIME_VERSION};
		r = push_send(&p, &fr) ? PUSH_EXIT_FAIL : 0;
	}
	free(av);
	runs_row_free(&row);
	run_free(run);
	return r;
}
