/* multifill NPROC MIB [HOLD_MS]: fork NPROC children that each map MIB MiB of
 * private anonymous memory and write every 4 KiB page; when all are filled,
 * all hold together HOLD_MS ms (default 600), then the children exit and the
 * parent (which touches nothing large) exits 0. Truth: NPROC + 1 processes;
 * tree peak PSS and RSS sum both about NPROC * MIB MiB (plus a small baseline
 * per process), nothing shared. */
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
		fprintf(stderr, "multifill: bad %s '%s'\n", what, s);
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

/* A child: fills its own region, says so on ready, and holds until the
 * parent closes the release pipe. */
static int child(size_t bytes, int ready, int release)
{
	volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("multifill: mmap");
		return 1;
	}
	for (size_t off = 0; off < bytes; off += 4096)
		p[off] = 1; /* non-zero: a private page, never the shared zero page */
	char c = 'r';
	if (write(ready, &c, 1) != 1)
		return 1;
	while (read(release, &c, 1) < 0 && errno == EINTR)
		; /* EOF: the parent's hold is over */
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: multifill NPROC MIB [HOLD_MS]\n");
		return 2;
	}
	long nproc = arg_long(argv[1], 1, 4096, "NPROC");
	long mib = arg_long(argv[2], 1, 1L << 20, "MIB");
	long hold_ms = argc > 3 ? arg_long(argv[3], 0, LONG_MAX / 1000, "HOLD_MS") : 600;

	int ready[2], release[2];
	if (pipe(ready) < 0 || pipe(release) < 0) {
		perror("multifill: pipe");
		return 1;
	}
	for (long i = 0; i < nproc; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("multifill: fork");
			return 1; /* the children see EOF on release and exit */
		}
		if (pid == 0) {
			close(ready[0]);
			close(release[1]);
			_exit(child((size_t)mib << 20, ready[1], release[0]));
		}
	}
	close(ready[1]);
	close(release[0]);
	int ok = 1;
	for (long i = 0; i < nproc; i++) {
		char c;
		ssize_t n;
		while ((n = read(ready[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n != 1) {
			fprintf(stderr, "multifill: a child failed before the hold\n");
			ok = 0;
			break;
		}
	}
	if (ok)
		sleep_ms(hold_ms);
	close(release[1]);
	int st;
	pid_t pid;
	while ((pid = wait(&st)) > 0 || (pid < 0 && errno == EINTR))
		if (pid > 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			ok = 0;
	return ok ? 0 : 1;
}
