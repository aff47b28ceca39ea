/* recdir: where the user's recordings are kept by default (recdir.h). */
#include "recdir.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether dir, or when it does not exist yet the nearest directory above it
 * that does, is this user's: the rule for HOME and XDG_STATE_HOME alike (a
 * root shell keeping a user's environment, `su -m`, must not write there). */
int recdir_ours(const char *dir)
{
	char p[RECDIR_PATH_MAX];
	struct stat sb;

	if (dir[0] != '/' || snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return 0;
	for (;;) {
		if (stat(p, &sb) == 0)
			return S_ISDIR(sb.st_mode) && sb.st_uid == getuid();
		if (errno != ENOENT)
			return 0;
		char *slash = strrchr(p, '/');
		if (!slash || slash == p)
			return 0; /* up to / without one existing: none */
		*slash = '\0';
	}
}

const char *recdir_home(void)
{
	const char *h = getenv("HOME");

	if (h && recdir_ours(h))
		return h;
	struct passwd *pw = getpwuid(getuid());
	return pw && pw->pw_dir && recdir_ours(pw->pw_dir) ? pw->pw_dir : NULL;
}

/* Makes dir and its missing parents (mode 0700); a parent that exists below
 * the first one made must be this user's (never write into another's). */
static int recdir_mkdirs(char *dir, char *msg, size_t cap)
{
	for (char *p = dir + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		struct stat sb;
		*p = 0;
		int r = mkdir(dir, 0700), e = errno;
		if (r < 0 && e == EEXIST && stat(dir, &sb) == 0 && c && sb.st_uid != getuid() &&
		    sb.st_uid != 0) {
			snprintf(msg, cap, "%s belongs to uid %u, not to you (use --record FILE, or --no-record)",
				 dir, (unsigned)sb.st_uid);
			*p = c;
			return -EPERM;
		}
		*p = c;
		if (r < 0 && e != EEXIST) {
			snprintf(msg, cap, "cannot create %s: %s (use --record FILE, or --no-record)", dir,
				 strerror(e));
			return -e;
		}
		if (!c)
			return 0;
	}
}

/* The state directory itself, when it exists: a directory of this user's
 * that nobody else may write. */
static int recdir_safe(const char *dir, char *msg, size_t cap)
{
	struct stat sb;

	if (stat(dir, &sb) < 0) {
		if (errno == ENOENT)
			return 0;
		int e = errno;
		snprintf(msg, cap, "cannot use %s: %s (use --record FILE, or --no-record)", dir, strerror(e));
		return -e;
	}
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != getuid() || (sb.st_mode & 022)) {
		snprintf(msg, cap, "%s is not safe to record into (%s; it should be your own directory, "
				   "mode 0700): fix it, or use --record FILE or --no-record",
			 dir, !S_ISDIR(sb.st_mode) ? "not a directory"
			      : sb.st_uid != getuid() ? "another user's"
						      : "others may write into it");
		return -EPERM;
	}
	return 0;
}

int recdir_default(char *path, size_t cap, int create)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	char dir[RECDIR_PATH_MAX];
	int n;

	/* XDG_STATE_HOME only when it is the user's (as HOME) */
	if (xdg && xdg[0] == '/' && recdir_ours(xdg)) {
		n = snprintf(dir, sizeof(dir), "%s/spacetime", xdg);
	} else {
		const char *home = recdir_home();
		if (!home) {
			snprintf(path, cap, "no home directory of yours to keep it in (set XDG_STATE_HOME, "
					    "or use --record FILE)");
			return -ENOENT;
		}
		n = snprintf(dir, sizeof(dir), "%s/.local/state/spacetime", home);
	}
	if (n < 0 || (size_t)n >= sizeof(dir)) {
		snprintf(path, cap, "the state directory's path is too long");
		return -ENAMETOOLONG;
	}
	int r = recdir_safe(dir, path, cap);
	if (r == 0 && create)
		r = recdir_mkdirs(dir, path, cap);
	if (r == 0)
		r = recdir_safe(dir, path, cap);
	if (r < 0)
		return r;
	snprintf(path, cap, "%s/runs.db", dir);
	return 0;
}
