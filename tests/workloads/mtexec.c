/* mtexec PROG ARGS...: a second thread (not the main one) execs PROG. The
 * kernel then kills the old main thread, which the process connector reports
 * as an exit of pid == tgid although the process goes on. Truth: one process
 * before the exec, and whatever PROG creates after it; 2 execs. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static char **prog;

static void *run(void *arg)
{
	(void)arg;
	usleep(100000); /* let the collector see the process first */
	execv(prog[0], prog);
	perror("mtexec: execv");
	_exit(127);
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2) {
		fprintf(stderr, "usage: mtexec PROG [ARGS...]\n");
		return 2;
	}
	prog = argv + 1;
	if (pthread_create(&t, NULL, run, NULL)) {
		fprintf(stderr, "mtexec: cannot start a thread\n");
		return 1;
	}
	for (;;)
		pause();
}
