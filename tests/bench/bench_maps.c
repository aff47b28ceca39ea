/* bench_maps: what the memory-map pane (m) costs. A child maps and touches
 * MIB MiB (default 1 GiB) in 4 KiB pages, huge pages refused (the kernel's
 * walk of its page tables is what smaps costs: the worst case); the bench
 * times smaps_read and smaps_parse of it, the median of 7, and prints it per
 * GiB of RSS. Whether the collector keeps its pace while a map is read is
 * run-bench.sh's half (it needs the spacetime binary). Usage: bench_maps [MIB] */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "smaps.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 1024;
	int ready[2];
	uint64_t t[7];

	if (mib <= 0 || pipe(ready) < 0)
		return 2;
	pid_t pid = fork();
	if (pid == 0) { /* touches mib MiB, 4 KiB pages, then waits */
		size_t bytes = (size_t)mib << 20;
		char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		madvise(p, bytes, MADV_NOHUGEPAGE);
		for (size_t i = 0; i < bytes; i += 4096)
			p[i] = 1;
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char c;
	if (pid < 0 || read(ready[0], &c, 1) != 1)
		return 1;
	uint64_t rss = 0;
	for (int i = 0; i < 7; i++) {
		char *buf, exe[256];
		size_t len;
		struct smaps_view v;
		uint64_t t0 = now_ns();
		if (smaps_read(NULL, pid, &buf, &len, exe, sizeof(exe)) < 0 || smaps_parse(buf, len, exe, &v) < 0) {
			kill(pid, SIGKILL);
			return 1;
		}
		t[i] = now_ns() - t0;
		rss = v.total.kib[SMAPS_RSS];
		smaps_view_free(&v);
		free(buf);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	qsort(t, 7, sizeof(t[0]), cmp_u64);
	double ms = (double)t[3] / 1e6, gib = (double)rss / (1024.0 * 1024.0);
	printf("maps: a %.2f GiB process's map read and grouped in %.1f ms (median of 7): %.1f ms per GiB of RSS"
	       " (the pane reads it at most once a second, within 1%% of a core)\n",
	       gib, ms, gib > 0 ? ms / gib : 0);
	return 0;
}
