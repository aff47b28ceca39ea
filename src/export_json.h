/* export_json: the run's summary as JSON (the --json file), and the full
 * snapshot (--export) that embeds it. Keys are stable and documented in
 * README.md. */
#ifndef SPACETIME_EXPORT_JSON_H
#define SPACETIME_EXPORT_JSON_H

#include <stdio.h>

#include "store.h"

#define EXPORT_JSON_VERSION 1

/* Writes the summary object (without a trailing newline) to f. Returns 0 or
 * -errno (a write error of f). */
int export_json_summary(FILE *f, struct store *st, char *const argv[]);
/* The same, for the summary sum (a snapshot's): the records, top jobs and
 * execs still come from st. */
int export_json_summary_of(FILE *f, struct store *st, const struct store_summary *sum,
			   char *const argv[]);

/* Schema version of the snapshot file (export_json_snapshot), documented in
 * README.md; changes when a key's meaning does. */
#define EXPORT_JSON_SNAPSHOT_VERSION 1

struct export_snap;

/* Writes the full snapshot object to f, ending with a newline: the summary
 * (the --json object), the samples, the process table and the event log.
 * Returns 0 or -errno. */
int export_json_snapshot(FILE *f, const struct export_snap *sn);

#endif
