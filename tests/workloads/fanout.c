/* fanout N [HOLD_MS]: fork N children that touch nothing and all hold
 * together HOLD_MS ms (default 600), then exit; the parent exits 0. Truth:
 * N + 1 processes, N of them children of the command at once (1,500 make a
 * children file of more than 8 KiB). */
#define WORKLOAD_NAME "fanout"
#include "workload.h"

/* A child's work: none. */
static int child(void *arg)
{
	(void)arg;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: fanout N [HOLD_MS]\n");
		return 2;
	}
	long n = workload_arg_long(argv[1], 1, 65536, "N");
	long hold_ms = argc > 2 ? workload_arg_long(argv[2], 0, LONG_MAX / 1000, "HOLD_MS") : 600;
	struct workload_hold h;

	if (workload_hold_open(&h) < 0)
		return 1;
	if (workload_hold_fork(&h, n, child, NULL) < n)
		return 1; /* the children see EOF on release and exit */
	return workload_hold_children(&h, n, hold_ms);
}
