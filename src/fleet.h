/* fleet: a run sent where a team with many machines already looks. Its
 * figures (the ones compare compares: compare_metric_of) as Prometheus text
 * exposition 0.0.4 for the Pushgateway, and as OTLP/HTTP JSON metrics and
 * traces (one span per process) for OpenTelemetry. The same for a run just
 * ended and one read back from a recording: both are a store. Bodies are
 * built here (pure but for reading the store); fleet_send sends them
 * (http.h), bounded by one deadline. */
#ifndef SPACETIME_FLEET_H
#define SPACETIME_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* A run as the fleet sees it. */
struct fleet_run {
	struct store *st;
	char *const *argv;           /* the command (NULL-terminated; may be NULL) */
	const char *const *labels;   /* "KEY=VALUE" each (--label, or the recording's) */
	size_t nlabels;
	const char *host;            /* may be NULL */
	uint64_t start_wall_ns;      /* CLOCK_REALTIME at the run's start */
	int top;                     /* heaviest jobs by peak PSS to send */
	const char *version;         /* spacetime's */
};

/* The figures of a run every format sends: name (Prometheus, without the
 * spacetime_ prefix), help text, and the value; present 0 when unknown. */
struct fleet_fig {
	const char *name, *help;
	int present, is_double;
	uint64_t u;
	double d;
};
enum {
	FLEET_PEAK_PSS, FLEET_PEAK_ANON, FLEET_PEAK_FILE, FLEET_PEAK_SHMEM, FLEET_PEAK_BOUND,
	FLEET_PEAK_RSS, FLEET_WALL, FLEET_USER, FLEET_SYS, FLEET_PROCS, FLEET_THREADS, FLEET_EXECS,
	FLEET_MINFLT, FLEET_MAJFLT, FLEET_NVCSW, FLEET_NIVCSW, FLEET_READ, FLEET_WRITE,
	FLEET_EXIT, FLEET_START, FLEET_NFIGS
};
void fleet_figs(const struct fleet_run *r, struct fleet_fig out[FLEET_NFIGS]);

/* Prometheus: the body (text exposition, malloc'd in *out, *len bytes) and
 * the URL to PUT it to: base + /metrics/job/spacetime + the grouping key
 * (the labels, or command=NAME without any; and host). Return 0 or -errno
 * (-ENAMETOOLONG: the URL does not fit cap). */
int fleet_prom_body(const struct fleet_run *r, char **out, size_t *len);
int fleet_prom_url(const struct fleet_run *r, const char *base, char *out, size_t cap);
/* A label key as a Prometheus label name (letters, digits and _; not
 * starting with a digit, not "job", not __reserved): into out. */
void fleet_prom_name(const char *key, size_t len, char *out, size_t cap);

/* OpenTelemetry: OTLP/HTTP JSON. res_attrs: OTEL_RESOURCE_ATTRIBUTES's
 * form ("k=v,k2=v2", values percent-encoded; NULL: none), service: the
 * service.name (NULL: "spacetime"). */
struct fleet_otlp_res {
	const char *attrs;
	const char *service;
};
int fleet_otlp_metrics(const struct fleet_run *r, const struct fleet_otlp_res *res, char **out, size_t *len);

/* The process tree as spans: a span for the run, one for each process,
 * under its parent's (or the run's) span. */
struct fleet_spans;
int fleet_spans_new(const struct fleet_run *r, struct fleet_spans **out);
void fleet_spans_free(struct fleet_spans *sp);
/* Spans in all, the run's included. */
size_t fleet_spans_count(const struct fleet_spans *sp);
/* Spans [from, from + n) as one /v1/traces body. */
int fleet_otlp_traces(const struct fleet_run *r, const struct fleet_spans *sp, size_t from, size_t n,
		      const struct fleet_otlp_res *res, char **out, size_t *len);
/* Spans a body holds at most (a collector takes a few MiB a request). */
#define FLEET_SPANS_PER_BODY 1000

/* Where to send (NULL: not there) and how long all of it may take. */
struct fleet_dest {
	const char *push_url;        /* the Pushgateway's base URL */
	const char *otlp_metrics;    /* the OTLP endpoints, whole (…/v1/metrics) */
	const char *otlp_traces;
	const char *const *headers;  /* "Name: value" for the OTLP requests */
	size_t nheaders;
	struct fleet_otlp_res res;
	uint64_t timeout_ms;         /* each endpoint's */
	int cancel_fd;               /* > 0: readable (a signal), sending stops at once */
};
/* Sends the run to each destination; say(arg, line) is called once a
 * destination with what came of it ("pushed to ..." or why not, one line;
 * a URL's user and password left out). A signal on cancel_fd stops it,
 * the destinations left unsent. Returns how many destinations failed. */
int fleet_send(const struct fleet_run *r, const struct fleet_dest *d, void (*say)(void *, int ok, const char *),
	       void *arg);

/* url as it may be shown: a user:password@ in it left out. */
void fleet_url_shown(const char *url, char *out, size_t cap);

/* The OTLP destination from --otlp URL and the environment
 * (OTEL_EXPORTER_OTLP_ENDPOINT and its _METRICS_/_TRACES_ forms, _HEADERS,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME): url "env" takes the
 * endpoint from the environment. getenv_fn reads it (getenv). Fills
 * metrics/traces URLs (into bufs of cap bytes each) and headers (up to
 * FLEET_HEADERS_MAX, in hbuf). Returns 0, or -EINVAL with one line in msg. */
#define FLEET_HEADERS_MAX 16
struct fleet_otlp_env {
	char metrics[2048], traces[2048];
	char hbuf[4096];
	const char *headers[FLEET_HEADERS_MAX];
	size_t nheaders;
	const char *attrs, *service;
};
int fleet_otlp_env(const char *url, int traces, char *(*getenv_fn)(const char *), struct fleet_otlp_env *e,
		   char *msg, size_t cap);

#endif
