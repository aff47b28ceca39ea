/* forkn N [exec]: N sequential children, each waited for before the next.
 * A child _exit(0)s at once, or with "exec" execs /bin/true. Truth: N+1
 * processes; with exec, N+1 execs (counting the command's own). */
#define WORKLOAD_NAME "forkn"
#include <string.h>
#include "workload.h"

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "exec"))) {
		fprintf(stderr, "usage: forkn N [exec]\n");
		return 2;
	}
	long n = workload_arg_long(argv[1], 0, LONG_MAX, "N");
	int do_exec = argc == 3;

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("forkn: fork");
			return 1;
		}
		if (pid == 0) {
			if (do_exec) {
				execl("/bin/true", "/bin/true", (char *)NULL);
				_exit(127);
			}
			_exit(0);
		}
		int st;
		if (workload_wait(pid, &st) < 0)
			return 1;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "forkn: child %ld failed (status 0x%x)\n", i, st);
			return 1;
		}
	}
	return 0;
}
