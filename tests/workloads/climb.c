/* climb NPROC MIB CLIMB_MS OVERLAP_MS: fork NPROC children that climb to MIB
 * MiB of private anonymous memory each, at different rates, and meet at their
 * tops: child i (0-based) starts CLIMB_MS * (i + 1) / NPROC ms before an
 * instant T shared by all and writes its pages at an even pace until T, so all
 * reach their tops at T; they hold them OVERLAP_MS ms together and each exits
 * at its largest (nothing freed), as a compiler does. The parent touches
 * nothing large and exits 0 once all have. Truth: NPROC + 1 processes; the
 * tree's peak PSS is about NPROC * MIB MiB (plus a small baseline per
 * process), for OVERLAP_MS ms; before T it is lower by what the children have
 * still to climb. */
#define WORKLOAD_NAME "climb"
#include "workload.h"

#include <stdint.h>
#include <time.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = {.tv_sec = (time_t)(t_ns / 1000000000ull), .tv_nsec = (long)(t_ns % 1000000000ull)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* A child's life: from start_ns, the region written page by page so that
 * its last page is written at top_ns; held until end_ns; then _exit. */
static void child(size_t bytes, uint64_t start_ns, uint64_t top_ns, uint64_t end_ns)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const size_t step = 1 << 20; /* paced per MiB */

	if (p == MAP_FAILED)
		_exit(1);
	sleep_until(start_ns);
	for (size_t off = 0; off < bytes; off += step) {
		size_t end = off + step < bytes ? off + step : bytes;
		for (size_t q = off; q < end; q += 4096)
			p[q] = 1;
		/* the pace: this MiB done at its share of the climb */
		sleep_until(start_ns + (uint64_t)((double)(top_ns - start_ns) * (double)end / (double)bytes));
	}
	sleep_until(end_ns);
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: climb NPROC MIB CLIMB_MS OVERLAP_MS\n");
		return 2;
	}
	long nproc = workload_arg_long(argv[1], 1, 256, "NPROC");
	long mib = workload_arg_long(argv[2], 1, 1L << 16, "MIB");
	long climb_ms = workload_arg_long(argv[3], 1, 600000, "CLIMB_MS");
	long overlap_ms = workload_arg_long(argv[4], 0, 600000, "OVERLAP_MS");
	/* time for the forks before the first child starts climbing */
	uint64_t t0 = mono_ns() + 20000000ull;
	uint64_t top = t0 + (uint64_t)climb_ms * 1000000ull, end = top + (uint64_t)overlap_ms * 1000000ull;

	for (long i = 0; i < nproc; i++) {
		uint64_t start = top - (uint64_t)((double)climb_ms * 1e6 * (double)(i + 1) / (double)nproc);
		pid_t pid = fork();
		if (pid < 0) {
			perror("climb: fork");
			return 1;
		}
		if (pid == 0)
			child((size_t)mib << 20, start, top, end);
	}
	int ok = 1;
	for (long i = 0; i < nproc; i++) {
		int status;
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			ok = 0;
	}
	return ok ? 0 : 1;
}
