/* attach: what spacetime -p needs to know of a running process before it
 * attaches: that it exists, is a process (not a thread), and that its memory
 * can be read (the kernel's ptrace read access); and its command line, which
 * names the run. Reads /proc only; prints nothing. */
#ifndef SPACETIME_ATTACH_H
#define SPACETIME_ATTACH_H

#include <sys/types.h>

struct attach_info {
	uid_t uid;   /* its real owner (when known) */
	pid_t tgid;  /* the process a thread id belongs to */
};

/* Checks that pid can be attached to. Returns 0; -ESRCH when there is no such
 * process (or it is a zombie: it has ended); -EISDIR when pid is a thread of
 * process ai->tgid; -EACCES when its memory cannot be read (another user's,
 * not dumpable) with ai->uid its owner; or another -errno. */
int attach_check(pid_t pid, struct attach_info *ai);

/* The command line of pid as a NULL-terminated argv in one allocation (free()
 * it), "[comm]" for a process without one (a kernel thread); NULL when it
 * cannot be read. */
char **attach_argv(pid_t pid);

/* Whether pid is spacetime's parent, or its parent's, and so on: a tree
 * that holds spacetime itself, which would wait for its own end. */
int attach_is_ancestor(pid_t pid);

/* Adds to pids (room for cap, *n used) the tops of process group pgid: its
 * live members whose parent is not one of them (the others are their
 * descendants), in /proc order, leaving out spacetime and its ancestors.
 * Returns how many were added, or -errno (-ENOSPC: more than cap tops). */
int attach_pgid(pid_t pgid, pid_t *pids, size_t *n, size_t cap);

#endif
