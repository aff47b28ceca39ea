/* proctree.c: see proctree.h. */
#include "proctree.h"

#include <errno.h>
#include <stdlib.h>

/* Whether x comes before y in the order of records: by start, then id. */
static int before(const struct proc_rec *x, const struct proc_rec *y)
{
	return x->start_ns < y->start_ns || (x->start_ns == y->start_ns && x->id < y->id);
}

/* Orders record indices by pid, then start, then id. */
static int by_pid_start(const void *a, const void *b, void *arg)
{
	const struct proc_rec *p = arg;
	const struct proc_rec *x = &p[*(const size_t *)a], *y = &p[*(const size_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return before(y, x) - before(x, y);
}

int proctree_parents(const struct proc_rec *p, size_t n, size_t *parent)
{
	size_t *ix = malloc((n ? n : 1) * sizeof(*ix));

	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof(*ix), by_pid_start, (void *)p);
	for (size_t i = 0; i < n; i++) {
		const struct proc_rec *c = &p[i];
		size_t lo = 0, hi = n;

		/* the first record of a pid above ppid, or of it not before c: a
		 * parent comes strictly before its child, so that no chain of
		 * parents (a recording's ppids may say anything) comes back */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct proc_rec *m = &p[ix[mid]];
			if (m->pid < c->ppid || (m->pid == c->ppid && before(m, c)))
				lo = mid + 1;
			else
				hi = mid;
		}
		parent[i] = PROCTREE_NONE;
		if (lo > 0) {
			const struct proc_rec *q = &p[ix[lo - 1]];
			if (q->pid == c->ppid && (!q->end_ns || q->end_ns >= c->start_ns))
				parent[i] = ix[lo - 1];
		}
	}
	free(ix);
	return 0;
}
