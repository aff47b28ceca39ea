/* export_json: the run's summary as JSON (the --json file). Keys are stable and
 * documented in README.md. */
#ifndef SPACETIME_EXPORT_JSON_H
#define SPACETIME_EXPORT_JSON_H

#include <stdio.h>

#include "store.h"

#define EXPORT_JSON_VERSION 1

/* Writes the summary object (without a trailing newline) to f. Returns 0 or
 * -errno (a write error of f). */
int export_json_summary(FILE *f, struct store *st, char *const argv[]);

#endif
