/* killself SIG: die from signal SIG under its default disposition (core dumps
 * disabled so signals like SIGSEGV leave no core file). Exits 1 if the signal
 * did not kill it (e.g. SIGCHLD, whose default is to ignore). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: killself SIG\n");
		return 2;
	}
	char *end;
	errno = 0;
	long sig = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || sig < 1 || sig >= NSIG) {
		fprintf(stderr, "killself: bad SIG '%s'\n", argv[1]);
		return 2;
	}
	struct rlimit no_core = { 0, 0 };
	setrlimit(RLIMIT_CORE, &no_core);

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, (int)sig);
	signal((int)sig, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise((int)sig);
	fprintf(stderr, "killself: signal %ld did not kill me\n", sig);
	return 1;
}
