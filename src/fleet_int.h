/* fleet_int: what fleet's files share (not for other readers). */
#ifndef SPACETIME_FLEET_INT_H
#define SPACETIME_FLEET_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fleet.h"
#include "jobname.h"

/* "k=v,k2=v2" as the OpenTelemetry environment writes pairs (W3C Baggage
 * without properties: values percent-encoded, blanks around ignored). */
#define FLEET_PAIRS_MAX 64
struct fleet_pairs {
	char *buf; /* malloc'd: the pairs decoded */
	const char *key[FLEET_PAIRS_MAX], *val[FLEET_PAIRS_MAX];
	size_t n;
};
/* s NULL or "": no pairs. Returns 0, or -EINVAL (an entry without "=",
 * an empty key, a bad %XX, too many) with p->n 0, or -ENOMEM. */
int fleet_pairs_parse(const char *s, struct fleet_pairs *p);

/* One of the run's heaviest jobs by peak PSS: its record and job name. */
struct fleet_job {
	struct proc_rec rec;
	char name[JOBNAME_MAX + 1];
	size_t len;
};
/* The --top heaviest jobs, heaviest first (*out malloc'd, NULL for none).
 * Returns how many, or -ENOMEM. */
long fleet_top_jobs(const struct fleet_run *r, struct fleet_job **out);

/* An OTLP attribute ({"key":...,"value":{...}}), with a comma unless first. */
void fleet_json_attr_str(FILE *f, const char *key, const char *v, size_t len, int *first);
void fleet_json_attr_int(FILE *f, const char *key, int64_t v, int *first);
void fleet_json_attr_argv(FILE *f, const char *key, const char *blob, size_t len, int *first);
/* "resource":{...}: the run's, the environment's and the labels'. */
int fleet_otlp_resource(FILE *f, const struct fleet_run *r, const struct fleet_otlp_res *res);

#endif
