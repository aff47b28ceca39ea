/* shmfork MIB NCHILD CHILD_MIB [HOLD_MS]: the parent maps MIB MiB of
 * MAP_SHARED|MAP_ANONYMOUS memory and writes every 4 KiB page, then forks
 * NCHILD children; each reads every page of the shared region and writes
 * CHILD_MIB MiB of private anonymous memory of its own. When all are filled,
 * all hold together HOLD_MS ms (default 600), then the children exit and the
 * parent exits 0. Truth: NCHILD + 1 processes; tree peak PSS about
 * MIB + NCHILD * CHILD_MIB MiB (plus a small baseline per process), of which
 * MIB is Pss_Shmem; the RSS sum is about (NCHILD + 1) * MIB + NCHILD * CHILD_MIB. */
#define WORKLOAD_NAME "shmfork"
#include "workload.h"

struct regions {
	volatile const char *shared;
	size_t bytes, own;
};

/* A child's work: reads every page of the shared region, then fills its own. */
static int child(void *arg)
{
	const struct regions *r = arg;
	return workload_read_pages(r->shared, r->bytes) < 0 || !workload_fill(r->own, MAP_PRIVATE);
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: shmfork MIB NCHILD CHILD_MIB [HOLD_MS]\n");
		return 2;
	}
	long mib = workload_arg_long(argv[1], 1, 1L << 20, "MIB");
	long nchild = workload_arg_long(argv[2], 1, 4096, "NCHILD");
	long child_mib = workload_arg_long(argv[3], 0, 1L << 20, "CHILD_MIB");
	long hold_ms = argc > 4 ? workload_arg_long(argv[4], 0, LONG_MAX / 1000, "HOLD_MS") : 600;
	struct regions r = { .bytes = (size_t)mib << 20, .own = (size_t)child_mib << 20 };
	struct workload_hold h;

	r.shared = workload_fill(r.bytes, MAP_SHARED);
	if (!r.shared || workload_hold_open(&h) < 0)
		return 1;
	if (workload_hold_fork(&h, nchild, child, &r) < nchild)
		return 1; /* the children see EOF on release and exit */
	return workload_hold_children(&h, nchild, hold_ms);
}
