/* recdir: where the user's recordings are kept by default.
 *
 * $XDG_STATE_HOME/spacetime/runs.db, or ~/.local/state/spacetime/runs.db.
 * XDG_STATE_HOME and HOME are taken only when they are the user's own (or,
 * not made yet, the nearest directory above them that exists is): root with a
 * user's environment (`su -m`, `sudo -E`) never writes into that user's home,
 * and falls back to its account's. The directory is made 0700, and one that
 * exists must be the user's, writable by nobody else. */
#ifndef SPACETIME_RECDIR_H
#define SPACETIME_RECDIR_H

#include <stddef.h>

#define RECDIR_PATH_MAX 4096

/* Puts the default recording's path into path (making its directory when
 * create), or one line saying why there is none, and returns 0 or -errno. */
int recdir_default(char *path, size_t cap, int create);

/* Whether dir (or, not made yet, the nearest directory above it that
 * exists) is the user's own. */
int recdir_ours(const char *dir);
/* The user's home: HOME when it is theirs, else their account's when that
 * is theirs; NULL when neither is. The config file is read from there too. */
const char *recdir_home(void);

#endif
