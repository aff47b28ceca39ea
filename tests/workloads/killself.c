/* killself SIG: die from signal SIG under its default disposition (core dumps
 * disabled so signals like SIGSEGV leave no core file). Exits 1 if the signal
 * did not kill it (e.g. SIGCHLD, whose default is to ignore). */
#define WORKLOAD_NAME "killself"
#include <signal.h>
#include <sys/resource.h>
#include "workload.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: killself SIG\n");
		return 2;
	}
	long sig = workload_arg_long(argv[1], 1, NSIG - 1, "SIG");
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
