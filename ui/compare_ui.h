/* compare_ui: `spacetime compare A B`, two recorded runs side by side (the
 * engine: src/compare.h). */
#ifndef SPACETIME_COMPARE_UI_H
#define SPACETIME_COMPARE_UI_H

/* Runs the command: argv[0] is "compare". Returns the exit status: 0, 1
 * when --fail-above's gate failed, 2 on a usage error or a run that cannot
 * be read. */
int compare_main(int argc, char **argv);

#include <stddef.h>

struct run;
struct runs_row;

/* Opens the one run sel names as compare names a side: an id, last or
 * last~N of the recording db (NULL: the default one), a recording file (its
 * last run) or FILE:ID. *path gets the recording's path (cap bytes).
 * Returns 0 with *run and *row (run_free, runs_row_free), or the exit status
 * 2 with the reason said in one line. */
int compare_open_run(const char *sel, const char *db, struct run **run, struct runs_row *row, char *path,
		     size_t cap);

#endif
