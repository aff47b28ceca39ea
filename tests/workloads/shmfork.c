/* shmfork MIB NCHILD CHILD_MIB [HOLD_MS]: the parent maps MIB MiB of
 * MAP_SHARED|MAP_ANONYMOUS memory and writes every 4 KiB page, then forks
 * NCHILD children; each reads every page of the shared region and writes
 * CHILD_MIB MiB of private anonymous memory of its own. When all are filled,
 * all hold together HOLD_MS ms (default 600), then the children exit and the
 * parent exits 0. Truth: NCHILD + 1 processes; tree peak PSS about
 * MIB + NCHILD * CHILD_MIB MiB (plus a small baseline per process), of which
 * MIB is Pss_Shmem; the RSS sum is about (NCHILD + 1) * MIB + NCHILD * CHILD_MIB. */
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
		fprintf(stderr, "shmfork: bad %s '%s'\n", what, s);
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

/* Maps bytes of anonymous memory with the given sharing and writes every
 * page (non-zero: a real page, never the shared zero page). */
static volatile char *fill(size_t bytes, int share)
{
	volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				share | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("shmfork: mmap");
		return NULL;
	}
	for (size_t off = 0; off < bytes; off += 4096)
		p[off] = 1;
	return p;
}

/* A child: reads every page of the shared region, fills its own, says so on
 * ready, and holds until the parent closes the release pipe. */
static int child(volatile char *shared, size_t bytes, size_t own, int ready, int release)
{
	unsigned sum = 0;
	for (size_t off = 0; off < bytes; off += 4096)
		sum += (unsigned char)shared[off];
	if (sum != bytes / 4096 || !fill(own, MAP_PRIVATE))
		return 1;
	char c = 'r';
	if (write(ready, &c, 1) != 1)
		return 1;
	while (read(release, &c, 1) < 0 && errno == EINTR)
		; /* EOF: the parent's hold is over */
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: shmfork MIB NCHILD CHILD_MIB [HOLD_MS]\n");
		return 2;
	}
	long mib = arg_long(argv[1], 1, 1L << 20, "MIB");
	long nchild = arg_long(argv[2], 1, 4096, "NCHILD");
	long child_mib = arg_long(argv[3], 0, 1L << 20, "CHILD_MIB");
	long hold_ms = argc > 4 ? arg_long(argv[4], 0, LONG_MAX / 1000, "HOLD_MS") : 600;
	size_t bytes = (size_t)mib << 20;

	volatile char *shared = fill(bytes, MAP_SHARED);
	int ready[2], release[2];
	if (!shared)
		return 1;
	if (pipe(ready) < 0 || pipe(release) < 0) {
		perror("shmfork: pipe");
		return 1;
	}
	for (long i = 0; i < nchild; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("shmfork: fork");
			return 1; /* the children see EOF on release and exit */
		}
		if (pid == 0) {
			close(ready[0]);
			close(release[1]);
			_exit(child(shared, bytes, (size_t)child_mib << 20, ready[1], release[0]));
		}
	}
	close(ready[1]);
	close(release[0]);
	int ok = 1;
	for (long i = 0; i < nchild; i++) {
		char c;
		ssize_t n;
		while ((n = read(ready[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n != 1) {
			fprintf(stderr, "shmfork: a child failed before the hold\n");
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
