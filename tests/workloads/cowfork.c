/* cowfork MIB NCHILD [HOLD_MS]: the parent maps MIB MiB of private anonymous
 * memory and writes every 4 KiB page, then forks NCHILD children that only
 * read it (copy-on-write pages that are never copied). When all have read
 * it, all hold together HOLD_MS ms (default 600), then the children exit and
 * the parent exits 0. Truth: NCHILD + 1 processes; tree peak PSS about MIB MiB
 * (plus a small baseline per process), all of it Pss_Anon; the RSS sum is
 * about (NCHILD + 1) * MIB. */
#define WORKLOAD_NAME "cowfork"
#include "workload.h"

struct region {
	volatile const char *p;
	size_t bytes;
};

/* A child's work: reads every page it inherited, writing none. */
static int child(void *arg)
{
	const struct region *r = arg;
	return workload_read_pages(r->p, r->bytes) < 0;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: cowfork MIB NCHILD [HOLD_MS]\n");
		return 2;
	}
	long mib = workload_arg_long(argv[1], 1, 1L << 20, "MIB");
	long nchild = workload_arg_long(argv[2], 1, 4096, "NCHILD");
	long hold_ms = argc > 3 ? workload_arg_long(argv[3], 0, LONG_MAX / 1000, "HOLD_MS") : 600;
	struct region r = { .bytes = (size_t)mib << 20 };
	struct workload_hold h;

	r.p = workload_fill(r.bytes, MAP_PRIVATE);
	if (!r.p || workload_hold_open(&h) < 0)
		return 1;
	if (workload_hold_fork(&h, nchild, child, &r) < nchild)
		return 1; /* the children see EOF on release and exit */
	return workload_hold_children(&h, nchild, hold_ms);
}
