/* forkn N [exec]: N sequential children, each waited for before the next.
 * A child _exit(0)s at once, or with "exec" execs /bin/true. Truth: N+1
 * processes; with exec, N+1 execs (counting the command's own). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "exec"))) {
		fprintf(stderr, "usage: forkn N [exec]\n");
		return 2;
	}
	char *end;
	errno = 0;
	long n = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || n < 0) {
		fprintf(stderr, "forkn: bad N '%s'\n", argv[1]);
		return 2;
	}
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
		while (waitpid(pid, &st, 0) < 0) {
			if (errno != EINTR) {
				perror("forkn: waitpid");
				return 1;
			}
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "forkn: child %ld failed (status 0x%x)\n", i, st);
			return 1;
		}
	}
	return 0;
}
