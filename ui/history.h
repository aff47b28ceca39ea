/* history: the recorded runs. Where the default recording lives, and the
 * commands that read recordings: `spacetime runs`, `spacetime replay` (the
 * dashboard on a recorded run) and `spacetime export` of a recorded run. */
#ifndef SPACETIME_HISTORY_H
#define SPACETIME_HISTORY_H

#include <stddef.h>

/* Runs kept in the default recording (oldest pruned first), and its size. */
#define HISTORY_KEEP_RUNS 100
#define HISTORY_MAX_BYTES (512ull * 1024 * 1024)

/* The default recording's path: $XDG_STATE_HOME/spacetime/runs.db, else
 * ~/.local/state/spacetime/runs.db of the user spacetime runs as (a HOME
 * that is not that user's, as under sudo, is not used). With create, the
 * directories are made (mode 0700). Returns 0, or -errno with one line in
 * path saying what failed. */
int history_db_path(char *path, size_t cap, int create);

/* Whether word names a history command (runs, replay, export). */
int history_is_command(const char *word);

/* Runs a history command: argv[0] is its name. Returns the exit status. */
int history_main(int argc, char **argv);

#endif
