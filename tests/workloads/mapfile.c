/* mapfile PATH MIB NPROC [HOLD_MS]: write a file PATH of MIB MiB (created or
 * truncated; non-zero bytes), then fork NPROC children that each map it
 * read-only (MAP_SHARED) and read every 4 KiB page; when all have read it,
 * all hold together HOLD_MS ms (default 600), then the children exit, the
 * parent (which never maps the file) unlinks PATH and exits 0. Truth: NPROC + 1
 * processes; tree peak PSS about MIB MiB (the page cache, shared NPROC ways;
 * plus a small baseline per process), of which MIB is Pss_File (Pss_Shmem on
 * tmpfs); the RSS sum is about NPROC * MIB. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
		fprintf(stderr, "mapfile: bad %s '%s'\n", what, s);
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

/* Writes mib MiB of non-zero bytes to fd. Returns 0 or -1 (errno set). */
static int write_file(int fd, long mib)
{
	static char buf[1 << 20];
	memset(buf, 1, sizeof(buf));
	for (long i = 0; i < mib; i++) {
		for (size_t done = 0; done < sizeof(buf);) {
			ssize_t n = write(fd, buf + done, sizeof(buf) - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return -1;
			done += (size_t)n;
		}
	}
	return 0;
}

/* A child: maps the file, reads every page, says so on ready, and holds
 * until the parent closes the release pipe. */
static int child(int fd, size_t bytes, int ready, int release)
{
	volatile const char *p = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mapfile: mmap");
		return 1;
	}
	unsigned sum = 0;
	for (size_t off = 0; off < bytes; off += 4096)
		sum += (unsigned char)p[off];
	if (sum != bytes / 4096)
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
		fprintf(stderr, "usage: mapfile PATH MIB NPROC [HOLD_MS]\n");
		return 2;
	}
	const char *path = argv[1];
	long mib = arg_long(argv[2], 1, 1L << 20, "MIB");
	long nproc = arg_long(argv[3], 1, 4096, "NPROC");
	long hold_ms = argc > 4 ? arg_long(argv[4], 0, LONG_MAX / 1000, "HOLD_MS") : 600;

	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "mapfile: cannot create %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (write_file(fd, mib) < 0) {
		fprintf(stderr, "mapfile: cannot write %s: %s\n", path, strerror(errno));
		unlink(path);
		return 1;
	}
	int ready[2], release[2];
	if (pipe(ready) < 0 || pipe(release) < 0) {
		perror("mapfile: pipe");
		unlink(path);
		return 1;
	}
	int ok = 1;
	long forked = 0;
	for (; forked < nproc; forked++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("mapfile: fork");
			ok = 0;
			break;
		}
		if (pid == 0) {
			close(ready[0]);
			close(release[1]);
			_exit(child(fd, (size_t)mib << 20, ready[1], release[0]));
		}
	}
	close(ready[1]);
	close(release[0]);
	for (long i = 0; ok && i < forked; i++) {
		char c;
		ssize_t n;
		while ((n = read(ready[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n != 1) {
			fprintf(stderr, "mapfile: a child failed before the hold\n");
			ok = 0;
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
	close(fd);
	unlink(path);
	return ok ? 0 : 1;
}
