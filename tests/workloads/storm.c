/* storm N P: P parallel spawner processes fork N children between them (N/P
 * each, the remainder spread one per spawner) as fast as they can; children
 * _exit(0) at once and spawners reap them, keeping at most STORM_INFLIGHT
 * unreaped. Truth: N+P+1 processes. */
#define WORKLOAD_NAME "storm"
#include "workload.h"

enum { STORM_INFLIGHT = 256 };

/* Reaps one child, blocking; returns 0 if it exited 0. */
static int reap_one(void)
{
	int st;
	while (wait(&st) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* One spawner: fork n children, reaping as it goes. */
static int spawn(long n)
{
	long inflight = 0, failed = 0;
	for (long i = 0; i < n; i++) {
		if (inflight >= STORM_INFLIGHT) {
			failed += reap_one() < 0;
			inflight--;
		}
		pid_t pid = fork();
		if (pid < 0) {
			if (errno == EAGAIN && inflight > 0) {
				failed += reap_one() < 0;
				inflight--;
				i--;
				continue;
			}
			perror("storm: fork");
			return 1;
		}
		if (pid == 0)
			_exit(0);
		inflight++;
	}
	while (inflight-- > 0)
		failed += reap_one() < 0;
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: storm N P\n");
		return 2;
	}
	long n = workload_arg_long(argv[1], 0, 100000000, "N");
	long p = workload_arg_long(argv[2], 1, 4096, "P");

	for (long i = 0; i < p; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("storm: fork spawner");
			return 1;
		}
		if (pid == 0)
			_exit(spawn(n / p + (i < n % p)));
	}
	int failed = 0;
	for (long i = 0; i < p; i++)
		failed += reap_one() < 0;
	return failed ? 1 : 0;
}
