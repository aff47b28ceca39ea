/* push: a run sent to the fleet's endpoints (src/fleet.h): --push and
 * --otlp at a run's end, and `spacetime push RUN` for a recorded one. */
#ifndef SPACETIME_PUSH_H
#define SPACETIME_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "fleet.h"

/* The options, as given. */
struct push_opts {
	const char *push_url;  /* --push URL: the Pushgateway */
	const char *otlp_url;  /* --otlp URL, or "env" */
	int otlp_traces;       /* --otlp-traces */
	uint64_t timeout_ms;   /* --push-timeout (0: the default) */
};
#define PUSH_TIMEOUT_MS 5000

/* Where a run goes, checked before anything runs. */
struct push_plan {
	struct fleet_dest d;
	struct fleet_otlp_env env;
	int any;
};

/* Checks the options and the OpenTelemetry environment into *p. Returns 0,
 * or -1 with one line said (a usage error). */
int push_plan(const struct push_opts *o, struct push_plan *p);
/* Parses --push-timeout's seconds. Returns ms, or 0 when invalid. */
uint64_t push_timeout_parse(const char *s);

/* Sends run r as planned, a line on stderr for each endpoint. Returns how
 * many failed. */
int push_send(const struct push_plan *p, const struct fleet_run *r);

/* spacetime push RUN ...: argv[0] is "push". Returns the exit status: 0
 * when every endpoint took the run, 1 when one did not, 2 for a usage
 * error or a run that cannot be read. */
int push_main(int argc, char **argv);

#endif
