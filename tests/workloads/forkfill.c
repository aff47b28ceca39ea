/* forkfill MIB [HOLD_MS]: fork one child that maps MIB MiB of anonymous
 * memory, writes every 4 KiB page and holds it HOLD_MS ms (default 600); the
 * parent touches nothing large and only waits. Truth: 2 processes, peak PSS
 * about MIB MiB (all of it in the child). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long arg_long(const char *s, long min, long max, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "forkfill: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The child's whole job: the same as the fill workload. */
static int fill(size_t bytes, long hold_ms)
{
	volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("forkfill: mmap");
		return 1;
	}
	for (size_t off = 0; off < bytes; off += 4096)
		p[off] = 1;
	sleep_ms(hold_ms);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: forkfill MIB [HOLD_MS]\n");
		return 2;
	}
	long mib = arg_long(argv[1], 1, 1L << 20, "MIB");
	long hold_ms = argc > 2 ? arg_long(argv[2], 0, LONG_MAX / 1000, "HOLD_MS") : 600;

	pid_t pid = fork();
	if (pid < 0) {
		perror("forkfill: fork");
		return 1;
	}
	if (pid == 0)
		_exit(fill((size_t)mib << 20, hold_ms));

	int st;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			perror("forkfill: waitpid");
			return 1;
		}
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
