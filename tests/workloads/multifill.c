/* multifill NPROC MIB [HOLD_MS]: fork NPROC children that each map MIB MiB of
 * private anonymous memory and write every 4 KiB page; when all are filled,
 * all hold together HOLD_MS ms (default 600), then the children exit and the
 * parent (which touches nothing large) exits 0. Truth: NPROC + 1 processes;
 * tree peak PSS and RSS sum both about NPROC * MIB MiB (plus a small baseline
 * per process), nothing shared. */
#define WORKLOAD_NAME "multifill"
#include "workload.h"

/* A child's work: fills a region of its own. */
static int child(void *arg)
{
	const size_t *bytes = arg;
	return !workload_fill(*bytes, MAP_PRIVATE);
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: multifill NPROC MIB [HOLD_MS]\n");
		return 2;
	}
	long nproc = workload_arg_long(argv[1], 1, 4096, "NPROC");
	long mib = workload_arg_long(argv[2], 1, 1L << 20, "MIB");
	long hold_ms = argc > 3 ? workload_arg_long(argv[3], 0, LONG_MAX / 1000, "HOLD_MS") : 600;
	size_t bytes = (size_t)mib << 20;
	struct workload_hold h;

	if (workload_hold_open(&h) < 0)
		return 1;
	if (workload_hold_fork(&h, nproc, child, &bytes) < nproc)
		return 1; /* the children see EOF on release and exit */
	return workload_hold_children(&h, nproc, hold_ms);
}
