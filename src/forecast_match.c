/* forecast_match.c: dependencies carried over from another recording
 * (forecast_match.h). */
#include "forecast_match.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "export_jobs.h"

/* A job as compare matches jobs across runs. */
struct fm_key {
	char key[JOBNAME_MAX + 16];
	uint32_t nth, job;
};

static int by_key_job(const void *x, const void *y)
{
	const struct fm_key *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	if (c)
		return c;
	return (a->job > b->job) - (a->job < b->job);
}

static int by_key_nth(const void *x, const void *y)
{
	const struct fm_key *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	if (c)
		return c;
	return (a->nth > b->nth) - (a->nth < b->nth);
}

/* The keys of t's jobs (names[j] job j's name; NULL: named from its
 * heaviest process), sorted by key and k-th. Returns how many, or -ENOMEM. */
static ssize_t keys_of(const struct forecast_tree *t, const char (*names)[JOBNAME_MAX + 1], struct fm_key **out)
{
	struct fm_key *v = malloc((t->nj + 1) * sizeof(*v));
	char *buf = NULL, name[JOBNAME_MAX + 1];
	size_t cap = 0, n = 0;

	if (!(*out = v))
		return -ENOMEM;
	for (size_t j = 0; j < t->nj; j++) {
		if (t->jobs[j].root == FORECAST_TREE_NONE)
			continue;
		if (names)
			memcpy(name, names[j], sizeof(name));
		else
			export_proc_job(t->st, &t->p[t->jobs[j].heavy], &buf, &cap, name, sizeof(name));
		compare_key(name, v[n].key, sizeof(v[n].key));
		v[n].job = (uint32_t)j;
		n++;
	}
	free(buf);
	/* the jobs are in start order: the k-th of a key by start */
	qsort(v, n, sizeof(*v), by_key_job);
	for (size_t k = 0; k < n; k++)
		v[k].nth = k && !strcmp(v[k].key, v[k - 1].key) ? v[k - 1].nth + 1 : 0;
	return (ssize_t)n;
}

/* Each of u's jobs' match among t's keys (SIZE_MAX: none) into map. */
static void match(const struct fm_key *ka, size_t na, const struct fm_key *kb, size_t nb, size_t *map, size_t nmap)
{
	for (size_t j = 0; j < nmap; j++)
		map[j] = SIZE_MAX;
	for (size_t k = 0; k < nb; k++) {
		const struct fm_key *hit = bsearch(&kb[k], ka, na, sizeof(*ka), by_key_nth);
		if (hit)
			map[kb[k].job] = hit->job;
	}
}

ssize_t forecast_match_deps(struct forecast_tree *t, const char (*names)[JOBNAME_MAX + 1], struct store *other,
			    uint64_t window_ns)
{
	struct forecast_tree *u = NULL;
	struct fm_key *ka = NULL, *kb = NULL;
	size_t *map = NULL;
	ssize_t added = 0, na, nb;
	int r = forecast_tree_new(other, window_ns, &u);

	if (r < 0)
		return r == -ENODATA ? 0 : r;
	if ((na = keys_of(t, names, &ka)) < 0 || (nb = keys_of(u, NULL, &kb)) < 0 ||
	    !(map = malloc((u->nj + 1) * sizeof(*map)))) {
		added = -ENOMEM;
		goto out;
	}
	match(ka, (size_t)na, kb, (size_t)nb, map, u->nj);
	struct forecast_tree_edge *e = realloc(t->edges, (t->ne + u->ne + 1) * sizeof(*e));
	if (!e) {
		added = -ENOMEM;
		goto out;
	}
	t->edges = e;
	for (size_t k = 0; k < u->ne; k++) {
		size_t j = map[u->edges[k].job], on = map[u->edges[k].on];
		/* a barrier has no match; the one waited on first in t too, or the
		 * orders disagree and the edge was a coincidence */
		if (j == SIZE_MAX || on == SIZE_MAX || on >= j)
			continue;
		t->edges[t->ne++] = (struct forecast_tree_edge){(uint32_t)j, (uint32_t)on};
		added++;
	}
out:
	free(ka);
	free(kb);
	free(map);
	forecast_tree_free(u);
	return added;
}
