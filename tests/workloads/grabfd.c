/* grabfd PID FD...: what another process of the same user can take from PID.
 * Prints one line:
 *   ptrace=R getfd:FD=R ...
 * R is "ok" when the operation succeeded, else the errno's name (EPERM...).
 * ptrace: PTRACE_ATTACH (detached again at once); getfd: pidfd_getfd(2) of
 * each FD (the duplicate is closed at once). Always exits 0 when the
 * arguments parse: the caller judges the results. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static const char *res(int r, int e)
{
	if (r >= 0)
		return "ok";
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ESRCH: return "ESRCH";
	case EBADF: return "EBADF";
	default: return strerror(e);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: grabfd PID [FD...]\n");
		return 2;
	}
	pid_t pid = (pid_t)atoi(argv[1]);
	long r = ptrace(PTRACE_ATTACH, pid, 0, 0);
	int e = errno;
	printf("ptrace=%s", res((int)r, e));
	if (r == 0) {
		waitpid(pid, NULL, __WALL);
		ptrace(PTRACE_DETACH, pid, 0, 0);
	}
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (int i = 2; i < argc; i++) {
		int fd = pfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pfd, atoi(argv[i]), 0) : -1;
		e = pfd >= 0 ? errno : ESRCH;
		printf(" getfd:%s=%s", argv[i], res(fd, e));
		if (fd >= 0)
			close(fd);
	}
	printf("\n");
	return 0;
}
