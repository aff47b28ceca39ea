/* compare_ui: `spacetime compare A B`, two recorded runs side by side (the
 * engine: src/compare.h). */
#ifndef SPACETIME_COMPARE_UI_H
#define SPACETIME_COMPARE_UI_H

/* Runs the command: argv[0] is "compare". Returns the exit status: 0, 1
 * when --fail-above's gate failed, 2 on a usage error or a run that cannot
 * be read. */
int compare_main(int argc, char **argv);

#include <stddef.h>
#include <stdint.h>

#include "compare.h"

struct run;
struct runs_row;

/* Opens the one run sel names as compare names a side: an id, last or
 * last~N of the recording db (NULL: the default one), a recording file (its
 * last run) or FILE:ID. *path gets the recording's path (cap bytes).
 * Returns 0 with *run and *row (run_free, runs_row_free), or the exit status
 * 2 with the reason said in one line (a usage error pointing at
 * `spacetime CMD --help`). */
int compare_open_run(const char *sel, const char *db, struct run **run, struct runs_row *row, char *path,
		     size_t cap, const char *cmd);

/* The writers compare's outputs share with forecast's. */
/* The change from a to b in metric m's unit, absolute and relative
 * ("+1.20 MiB (+3.1%)", "-0.25 s (-2.0%)", "="). */
void compare_fmt_change(enum compare_metric m, uint64_t a, uint64_t b, char *buf, size_t cap);
/* A recorded run's command line as one line, its untrusted bytes made safe. */
void compare_fmt_cmd(const struct runs_row *r, char *buf, size_t cap, int utf8);
/* Writes s to stdout as a markdown table cell: made safe, | and the
 * characters that make markup escaped. */
void compare_md_cell(const char *s, int utf8);

#endif
