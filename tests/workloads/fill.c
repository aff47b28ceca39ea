/* fill MIB [HOLD_MS]: map MIB MiB of anonymous memory, write one byte to every
 * 4 KiB page, hold it HOLD_MS ms (default 600) and exit 0. Truth: MIB MiB of
 * private anonymous PSS in one process. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static long arg_long(const char *s, long min, long max, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "fill: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

/* Sleeps ms milliseconds, resuming after signal interruptions. */
static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: fill MIB [HOLD_MS]\n");
		return 2;
	}
	long mib = arg_long(argv[1], 1, 1L << 20, "MIB");
	long hold_ms = argc > 2 ? arg_long(argv[2], 0, LONG_MAX / 1000, "HOLD_MS") : 600;
	size_t bytes = (size_t)mib << 20;

	volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("fill: mmap");
		return 1;
	}
	for (size_t off = 0; off < bytes; off += 4096)
		p[off] = 1; /* non-zero: a private page, never the shared zero page */
	sleep_ms(hold_ms);
	return 0;
}
