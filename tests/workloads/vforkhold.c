/* vforkhold MIB HOLD_MS: the parent maps MIB MiB of private anonymous memory
 * and writes every page, then starts a child with clone(CLONE_VM|CLONE_VFORK),
 * as posix_spawn does: the child runs in the parent's memory (the parent is
 * suspended) for HOLD_MS ms, then exits. Truth: 2 processes and one memory:
 * tree peak PSS about MIB MiB, though each process's statm (and smaps_rollup)
 * shows all of it, so the RSS sum is about 2 * MIB. */
#define WORKLOAD_NAME "vforkhold"
#include "workload.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

static long hold_ms;

/* Runs in the parent's memory: only system calls, no libc state touched. */
static int child(void *arg)
{
	(void)arg;
	struct timespec ts = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
	while (syscall(SYS_nanosleep, &ts, &ts) < 0)
		;
	syscall(SYS_exit, 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: vforkhold MIB HOLD_MS\n");
		return 2;
	}
	long mib = workload_arg_long(argv[1], 1, 1L << 20, "MIB");
	hold_ms = workload_arg_long(argv[2], 0, 3600000, "HOLD_MS");
	size_t stack_bytes = 64 * 1024;
	char *stack = malloc(stack_bytes);
	int status;

	if (!stack || !workload_fill((size_t)mib << 20, MAP_PRIVATE))
		return 1;
	pid_t pid = clone(child, stack + stack_bytes, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	if (pid < 0) {
		perror(WORKLOAD_NAME ": clone");
		return 1;
	}
	if (workload_wait(pid, &status) < 0)
		return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
