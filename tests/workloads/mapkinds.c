/* mapkinds LOCK_MIB HUGE_MIB FILE FILE_MIB HOLD_MS: memory of the kinds the
 * drill-down tells apart, each of a known size, held HOLD_MS ms, then exit 0.
 *  - LOCK_MIB MiB of anonymous memory, touched and mlock()ed (Locked);
 *  - HUGE_MIB MiB of anonymous memory aligned to 2 MiB, madvise(MADV_HUGEPAGE)
 *    and touched (AnonHugePages, where transparent huge pages are on);
 *  - FILE (created, FILE_MIB MiB of non-zero bytes) mapped read-only, then
 *    unlinked (the mapping shows as "FILE (deleted)") and read whole (file
 *    pages in the page cache, freed at exit).
 * Prints "huge: N kB", the huge pages the kernel gave (from its own
 * smaps_rollup: it may give fewer, or none, on fragmented memory).
 * A size of 0 leaves that kind out (FILE "-" too), but for FILE_MIB 0 with a
 * FILE that exists: it is mapped whole as it is, without readahead
 * (MADV_RANDOM), and every page read: one major fault a page when the page
 * cache does not hold the file. Prints "ready" on stdout
 * once everything is in place. Truth: the sizes given; whether huge pages were
 * obtained is the kernel's (mapkinds says "huge: N kB" from its own smaps). */
#define WORKLOAD_NAME "mapkinds"
#include <fcntl.h>
#include <string.h>
#include "workload.h"

#define HUGE (2ul << 20)

/* A new file at path of mib MiB of 1s; returns its fd, or -1. */
static int make_file(const char *path, long mib)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	return fd >= 0 && workload_write_ones(fd, mib) == 0 ? fd : -1;
}

/* Anonymous memory of bytes aligned to 2 MiB, asked for as huge pages, touched. */
static int huge_fill(size_t bytes)
{
	char *raw = mmap(NULL, bytes + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return -1;
	char *p = (char *)(((unsigned long)raw + HUGE - 1) & ~(HUGE - 1));
	if (madvise(p, bytes, MADV_HUGEPAGE) < 0)
		perror("mapkinds: madvise(MADV_HUGEPAGE)");
	for (size_t i = 0; i < bytes; i += WORKLOAD_PAGE)
		p[i] = 1;
	return 0;
}

/* Maps an existing file whole, read-only, and touches every page. */
static int map_existing(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	if (size <= 0)
		return -1;
	volatile const char *f = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	if (f == MAP_FAILED)
		return -1;
	/* no readahead: each page a fault of its own (a major one when cold) */
	madvise((void *)f, (size_t)size, MADV_RANDOM);
	unsigned sum = 0;
	for (off_t off = 0; off < size; off += WORKLOAD_PAGE)
		sum += (unsigned char)f[off];
	return sum == 0x7fffffff ? -1 : 0; /* (the sum is used: the reads stay) */
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: mapkinds LOCK_MIB HUGE_MIB FILE FILE_MIB HOLD_MS\n");
		return 2;
	}
	long lock_mib = workload_arg_long(argv[1], 0, 1L << 20, "LOCK_MIB");
	long huge_mib = workload_arg_long(argv[2], 0, 1L << 20, "HUGE_MIB");
	const char *path = argv[3];
	long file_mib = workload_arg_long(argv[4], 0, 1L << 20, "FILE_MIB");
	long hold_ms = workload_arg_long(argv[5], 0, LONG_MAX / 1000, "HOLD_MS");
	int fd = -1;

	if (lock_mib) {
		volatile char *l = workload_fill((size_t)lock_mib << 20, MAP_PRIVATE);
		if (!l || mlock((const void *)l, (size_t)lock_mib << 20) < 0) {
			perror("mapkinds: mlock");
			return 1;
		}
	}
	if (huge_mib && huge_fill((size_t)huge_mib << 20) < 0) {
		perror("mapkinds: mmap");
		return 1;
	}
	if (!file_mib && strcmp(path, "-") && map_existing(path) < 0) {
		perror("mapkinds: the existing file");
		return 1;
	}
	if (file_mib && strcmp(path, "-")) {
		fd = make_file(path, file_mib);
		volatile const char *f = fd >= 0 ? mmap(NULL, (size_t)file_mib << 20, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
		/* unlinked once mapped: the mapping stays, named "FILE (deleted)" */
		if (fd >= 0)
			unlink(path);
		if (f == MAP_FAILED || workload_read_pages(f, (size_t)file_mib << 20) < 0) {
			perror("mapkinds: file");
			return 1;
		}
	}
	/* the huge pages the kernel gave (it may give none: fragmented memory) */
	FILE *r = fopen("/proc/self/smaps_rollup", "re");
	char line[256];
	unsigned long huge = 0;
	while (r && fgets(line, sizeof(line), r))
		if (sscanf(line, "AnonHugePages: %lu kB", &huge) == 1)
			break;
	if (r)
		fclose(r);
	printf("huge: %lu kB\n", huge);
	printf("ready\n");
	fflush(stdout);
	workload_sleep_ms(hold_ms);
	return 0;
}
