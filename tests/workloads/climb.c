/* climb NPROC MIB CLIMB_MS OVERLAP_MS: fork NPROC children that climb to MIB
 * MiB of private anonymous memory each, at different rates, and meet at their
 * tops: child i (0-based) starts CLIMB_MS * (i + 1) / NPROC ms before an
 * instant T shared by all and writes its pages at an even pace until T, so all
 * reach their tops at T; they hold them OVERLAP_MS ms together and each exits
 * at its largest (nothing freed), as a compiler does. A single child holds
 * its top OVERLAP_MS ms from when it got there, late or not (a top held is
 * what a reference reading the tree every few ms can see: the bench's
 * short-compile build counts on it). The parent touches
 * nothing large and exits 0 once all have.
 * A loaded machine makes a child late to its top: each child logs when each
 * MiB of it was written and when it exited, and the parent prints what the
 * children really held together at their most, on stderr: "climb: peak N KiB
 * at T ms" (N: the most of their written memory alive at one instant; the
 * truth a measuring tool is compared with, less each process's small
 * baseline of program and libraries). NPROC + 1 processes. */
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

/* Each child's log, in memory shared with the parent: when each MiB was
 * written (the first page of the next one not yet), and its exit. */
struct climb_log {
	uint64_t mib_ns[1 << 16];
	uint64_t exit_ns;
};

/* A child's life: from start_ns, the region written page by page so that
 * its last page is written at top_ns; held until end_ns (alone: held for
 * end_ns - top_ns from when its last page was written, if that is later);
 * then _exit. */
static void child(size_t bytes, uint64_t start_ns, uint64_t top_ns, uint64_t end_ns, int alone,
		  struct climb_log *log)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const size_t step = 1 << 20; /* paced per MiB */

	if (p == MAP_FAILED)
		_exit(1);
	sleep_until(start_ns);
	for (size_t off = 0, k = 0; off < bytes; off += step, k++) {
		size_t end = off + step < bytes ? off + step : bytes;
		for (size_t q = off; q < end; q += 4096)
			p[q] = 1;
		log->mib_ns[k] = mono_ns();
		/* the pace: this MiB done at its share of the climb */
		sleep_until(start_ns + (uint64_t)((double)(top_ns - start_ns) * (double)end / (double)bytes));
	}
	uint64_t reached = mono_ns();
	if (alone && reached + (end_ns - top_ns) > end_ns)
		end_ns = reached + (end_ns - top_ns);
	sleep_until(end_ns);
	log->exit_ns = mono_ns();
	_exit(0);
}

/* The most the children held at one instant, from their logs: at each
 * logged time, every child's MiB written by then and not yet exited. */
static uint64_t truth_kib(const struct climb_log *logs, long nproc, long mib, uint64_t *at_ns)
{
	uint64_t best = 0;

	*at_ns = 0;
	for (long i = 0; i < nproc; i++)
		for (long k = 0; k < mib; k++) {
			uint64_t t = logs[i].mib_ns[k], kib = 0;
			for (long j = 0; j < nproc; j++) {
				if (logs[j].exit_ns && logs[j].exit_ns < t)
					continue;
				for (long m = 0; m < mib && logs[j].mib_ns[m] && logs[j].mib_ns[m] <= t; m++)
					kib += 1024;
			}
			if (kib > best) {
				best = kib;
				*at_ns = t;
			}
		}
	return best;
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
	struct climb_log *logs = mmap(NULL, (size_t)nproc * sizeof(*logs), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (logs == MAP_FAILED) {
		perror("climb: mmap");
		return 1;
	}
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
			child((size_t)mib << 20, start, top, end, nproc == 1, &logs[i]);
	}
	int ok = 1;
	for (long i = 0; i < nproc; i++) {
		int status;
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			ok = 0;
	}
	uint64_t at = 0, kib = truth_kib(logs, nproc, mib, &at);
	fprintf(stderr, "climb: peak %llu KiB at %.1f ms\n", (unsigned long long)kib,
		at > t0 ? (double)(at - t0) / 1e6 : 0.0);
	return ok ? 0 : 1;
}
