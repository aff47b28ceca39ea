/* ptywait: whether the command sits waiting for a person to type (a prompt).
 * A process of the pty's foreground process group blocked in read(2) on the
 * pty's terminal is waiting for input: `read a` in a shell, a password
 * prompt, apt's Y/n. Told from /proc (the syscall a process is blocked in, and
 * what its fd is), so it needs the same ptrace access as reading its memory. */
#ifndef SPACETIME_PTYWAIT_H
#define SPACETIME_PTYWAIT_H

#include <sys/types.h>

/* Parses /proc/PID/syscall ("NR ARG1 ARG2 ... SP PC", "running" or
 * "-1 SP PC"): the syscall number and its first argument. Returns 0, or
 * -EINVAL when it is not blocked in a syscall or the text is malformed. Pure. */
int ptywait_parse_syscall(const char *buf, size_t len, long *nr, unsigned long long *arg1);

/* Looks for a process of the foreground process group of the terminal whose
 * master is pty_master that is blocked reading that terminal: the group's
 * leader, then the npids processes of pids (the command's live tree: the pty
 * is its own), or, when pids is NULL, every process in /proc. Returns its pid
 * (> 0), 0 when none is, or -errno (the pty has no foreground group: the
 * command has ended). Costs a stat read per process looked at: call it when
 * the output has been quiet a while, not at every frame. */
pid_t ptywait_reader(int pty_master, const pid_t *pids, size_t npids);

#endif
