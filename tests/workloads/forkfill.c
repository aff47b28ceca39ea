/* forkfill MIB [HOLD_MS]: fork one child that maps MIB MiB of anonymous
 * memory, writes every 4 KiB page and holds it HOLD_MS ms (default 600); the
 * parent touches nothing large and only waits. Truth: 2 processes, peak PSS
 * about MIB MiB (all of it in the child). */
#define WORKLOAD_NAME "forkfill"
#include "workload.h"

/* The child's whole job: the same as the fill workload. */
static int fill(size_t bytes, long hold_ms)
{
	if (!workload_fill(bytes, MAP_PRIVATE))
		return 1;
	workload_sleep_ms(hold_ms);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: forkfill MIB [HOLD_MS]\n");
		return 2;
	}
	long mib = workload_arg_long(argv[1], 1, 1L << 20, "MIB");
	long hold_ms = argc > 2 ? workload_arg_long(argv[2], 0, LONG_MAX / 1000, "HOLD_MS") : 600;

	pid_t pid = fork();
	if (pid < 0) {
		perror("forkfill: fork");
		return 1;
	}
	if (pid == 0)
		_exit(fill((size_t)mib << 20, hold_ms));

	int st;
	if (workload_wait(pid, &st) < 0)
		return 1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
