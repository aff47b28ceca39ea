/* spawn: fork and exec the command. The child waits on a pipe until the
 * collector is ready, so its first exec is already seen; exec failures come
 * back through a close-on-exec pipe as an errno. */
#ifndef SPACETIME_SPAWN_H
#define SPACETIME_SPAWN_H

#include <signal.h>
#include <sys/types.h>

struct spawn {
	pid_t pid;
	int pidfd;      /* -1 if pidfd_open is unavailable */
	int pty_master; /* -1 unless use_pty */
	int go_fd;      /* write end: closing it lets the child exec */
	int err_fd;     /* read end: errno of a failed exec, or EOF on success */
};

struct spawn_opts {
	int use_pty;        /* give the command a new pseudo-terminal (dashboard) */
	unsigned short rows, cols; /* its size when use_pty */
	int set_nice, nice;        /* run the command at this nice level */
	const sigset_t *ignored;   /* signals to leave ignored (as found at startup) */
	const sigset_t *mask;      /* the signal mask to give the command */
	char *const *envp;         /* its environment (NULL: environ) */
};

/* The environment spacetime was started with, when it was started in secure
 * mode (file capabilities, set-user-ID): glibc then removed variables such as
 * LD_LIBRARY_PATH, LD_PRELOAD and TMPDIR from environ, but the command runs
 * unprivileged and must see what it would see without spacetime. Read from
 * /proc/self/environ, which keeps the strings the kernel passed: opened by
 * spawn_secure_env_open() while privileged (a secure-mode process's /proc
 * files belong to root), read by spawn_secure_env(fd) after the drop, which
 * closes fd. spawn_secure_env_open returns -1 when not in secure mode;
 * spawn_secure_env NULL when fd < 0 or it cannot be read (environ is then
 * used). The array and its strings are one allocation: free() it. */
int spawn_secure_env_open(void);
char **spawn_secure_env(int fd);

/* Forks the child, which waits for spawn_release() before exec. Returns 0 or
 * -errno. */
int spawn_start(struct spawn *sp, char *const argv[], const struct spawn_opts *opts);
/* Lets the child exec and waits until it has: returns 0, or -errno of the
 * failed exec (-ENOENT: not found, -EACCES: not executable). */
int spawn_release(struct spawn *sp);
/* Maps a wait(2) status to the exit code a shell would show (128+N for a
 * signal). */
int spawn_exit_code(int wait_status);
/* Sends sig to the command's process group (or the command if it has none). */
int spawn_signal(const struct spawn *sp, int sig);
/* Closes what spawn_start opened, the pty master included. */
void spawn_close(struct spawn *sp);

#endif
