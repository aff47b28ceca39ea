/* attachfill GO N MIB PRE HOLD_MS EXIT [BURN_MS]: a tree to attach to.
 * Forks PRE children at once, then waits for one byte on the fifo GO (the
 * test attaches meanwhile), then forks N more. Every child (PRE and N)
 * burns BURN_MS ms of its own CPU time once released (default 0), maps MIB
 * MiB of private anonymous memory and writes every page; when all of them
 * have, they hold it HOLD_MS ms together, then exit 0; the parent waits for
 * them and exits with status EXIT. Truth: 1+PRE+N processes, PRE of them
 * (and the parent) there before the release; peak PSS about (PRE+N)*MIB MiB;
 * at least (PRE+N)*BURN_MS ms of CPU used after the release. */
#define WORKLOAD_NAME "attachfill"
#include "workload.h"

#include <fcntl.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Reads one byte from fd, retrying on EINTR; 0 at EOF or on error. */
static int read_byte(int fd)
{
	char c;
	ssize_t n;

	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return n == 1;
}

/* A child: waits for the release (released closed or written), burns, fills,
 * tells the parent (filled), holds until the parent lets go (hold EOF). */
static int child(int released, int filled, int hold, long burn_ms, long mib)
{
	read_byte(released);
	double t0 = cpu_ms();
	volatile unsigned long x = 0;
	while (cpu_ms() - t0 < (double)burn_ms)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
	if (!workload_fill((size_t)mib << 20, MAP_PRIVATE))
		return 1;
	if (write(filled, "f", 1) != 1)
		return 1;
	read_byte(hold); /* EOF when the parent closes its end */
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 7 || argc > 8) {
		fprintf(stderr, "usage: attachfill GO N MIB PRE HOLD_MS EXIT [BURN_MS]\n");
		return 2;
	}
	long n = workload_arg_long(argv[2], 0, 10000, "N");
	long mib = workload_arg_long(argv[3], 0, 1L << 20, "MIB");
	long pre = workload_arg_long(argv[4], 0, 10000, "PRE");
	long hold_ms = workload_arg_long(argv[5], 0, LONG_MAX / 1000, "HOLD_MS");
	long code = workload_arg_long(argv[6], 0, 255, "EXIT");
	long burn_ms = argc > 7 ? workload_arg_long(argv[7], 0, LONG_MAX / 1000, "BURN_MS") : 0;
	int rel[2], fil[2], hold[2];

	if (pipe(rel) < 0 || pipe(fil) < 0 || pipe(hold) < 0) {
		perror("attachfill: pipe");
		return 1;
	}
	for (long i = 0; i <= n + pre; i++) {
		if (i == pre) {
			/* the PRE children are there: wait for the test */
			int go = open(argv[1], O_RDONLY | O_CLOEXEC);
			if (go < 0 || !read_byte(go)) {
				perror("attachfill: GO");
				return 1;
			}
			close(go);
		}
		if (i == n + pre)
			break;
		pid_t pid = fork();
		if (pid < 0) {
			perror("attachfill: fork");
			return 1;
		}
		if (pid == 0) {
			close(rel[1]);
			close(fil[0]);
			close(hold[1]);
			_exit(child(rel[0], fil[1], hold[0], burn_ms, mib));
		}
	}
	close(rel[1]); /* every child released at once */
	close(fil[1]);
	close(hold[0]);
	for (long i = 0; i < n + pre; i++)
		if (!read_byte(fil[0])) {
			fprintf(stderr, "attachfill: a child failed\n");
			return 1;
		}
	workload_sleep_ms(hold_ms);
	close(hold[1]);
	int failed = 0;
	for (long i = 0; i < n + pre; i++) {
		int st;
		if (wait(&st) < 0)
			return 1;
		failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	return failed ? 1 : (int)code;
}
