/* history: the recorded runs. The commands that read recordings (the
 * default one is recdir.h's): `spacetime runs`, `spacetime replay` (the
 * dashboard on a recorded run) and `spacetime export` of a recorded run. */
#ifndef SPACETIME_HISTORY_H
#define SPACETIME_HISTORY_H

#include <stddef.h>

/* Runs kept in the default recording (oldest pruned first), and its size. */
#define HISTORY_KEEP_RUNS 100
#define HISTORY_MAX_BYTES (512ull * 1024 * 1024)

struct runs_row;

/* Whether word names a history command (runs, replay, export, compare,
 * forecast, push). */
int history_is_command(const char *word);

/* Runs a history command: argv[0] is its name. Returns the exit status. */
struct config;
/* cfg: the user's defaults for the dashboard of a replay (may be NULL). */
int history_main(int argc, char **argv, const struct config *cfg);

/* A recorded run's argv as a NULL-terminated array (one allocation;
 * free()); "?" when the recording has none. NULL: out of memory. */
char **history_argv(const struct runs_row *r);

#endif
