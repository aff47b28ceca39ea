/* mapfile PATH MIB NPROC [HOLD_MS]: write a file PATH of MIB MiB (created or
 * truncated; non-zero bytes), then fork NPROC children that each map it
 * read-only (MAP_SHARED) and read every 4 KiB page; when all have read it,
 * all hold together HOLD_MS ms (default 600), then the children exit, the
 * parent (which never maps the file) unlinks PATH and exits 0. Truth: NPROC + 1
 * processes; tree peak PSS about MIB MiB (the page cache, shared NPROC ways;
 * plus a small baseline per process), of which MIB is Pss_File (Pss_Shmem on
 * tmpfs); the RSS sum is about NPROC * MIB. */
#define WORKLOAD_NAME "mapfile"
#include <fcntl.h>
#include <string.h>
#include "workload.h"

struct mapping {
	int fd;
	size_t bytes;
};

/* A child's work: maps the file and reads every page. */
static int child(void *arg)
{
	const struct mapping *m = arg;
	volatile const char *p = mmap(NULL, m->bytes, PROT_READ, MAP_SHARED, m->fd, 0);
	if (p == MAP_FAILED) {
		perror("mapfile: mmap");
		return 1;
	}
	return workload_read_pages(p, m->bytes) < 0;
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: mapfile PATH MIB NPROC [HOLD_MS]\n");
		return 2;
	}
	const char *path = argv[1];
	long mib = workload_arg_long(argv[2], 1, 1L << 20, "MIB");
	long nproc = workload_arg_long(argv[3], 1, 4096, "NPROC");
	long hold_ms = argc > 4 ? workload_arg_long(argv[4], 0, LONG_MAX / 1000, "HOLD_MS") : 600;
	struct mapping m = { .bytes = (size_t)mib << 20 };
	struct workload_hold h;

	m.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (m.fd < 0) {
		fprintf(stderr, "mapfile: cannot create %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (workload_write_ones(m.fd, mib) < 0) {
		fprintf(stderr, "mapfile: cannot write %s: %s\n", path, strerror(errno));
		unlink(path);
		return 1;
	}
	if (workload_hold_open(&h) < 0) {
		unlink(path);
		return 1;
	}
	/* After a failed fork: no hold, but release and reap the forked ones. */
	long forked = workload_hold_fork(&h, nproc, child, &m);
	int ok = forked == nproc;
	if (workload_hold_await(&h, ok ? forked : 0) < 0)
		ok = 0;
	if (ok)
		workload_sleep_ms(hold_ms);
	if (workload_hold_end(&h) < 0)
		ok = 0;
	close(m.fd);
	unlink(path);
	return ok ? 0 : 1;
}
