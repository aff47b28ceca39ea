/* forecast_tree.c: a recorded run's tree read as a build (forecast_tree.h):
 * the records and their links, the tools, the jobs, the barriers, the
 * order, the recorded -j and the dependencies seen. The file-backed shares
 * are in forecast_share.c. */
#include "forecast_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forecast_rec.h"
#include "proctree.h"

/* The ends that are one (forecast_tree.h refill_ns): this part of the
 * window when the times are exact (10 ms of 50). */
#define FT_REFILL_DIV 5

/* Build tools: what runs recipes in slots. */
static const char *const tools[] = {"make", "gmake", "remake", "bmake", "ninja", "samu", "cargo"};

/* Whether name (a comm, or an argv[0]'s base name) is a build tool's. */
static int tool_name(const char *name, size_t len)
{
	for (size_t k = 0; k < sizeof(tools) / sizeof(tools[0]); k++)
		if (strlen(tools[k]) == len && !memcmp(tools[k], name, len))
			return 1;
	return 0;
}

/* Process i's argv (NUL-separated) into buf, its length or 0. */
static size_t argv_of(const struct forecast_tree *t, size_t i, char *buf, size_t cap)
{
	const struct proc_rec *p = &t->p[i];
	ssize_t len = p->argv_id && (p->valid & PROC_V_ARGV) ? store_str_get(t->st, p->argv_id, buf, cap) : 0;
	return len <= 0 ? 0 : (size_t)len < cap ? (size_t)len : cap;
}

/* Whether process i is a build tool, by its kernel name or its argv[0]. */
static int is_tool(const struct forecast_tree *t, size_t i)
{
	char a0[256];
	if (tool_name(t->p[i].comm, strnlen(t->p[i].comm, sizeof(t->p[i].comm))))
		return 1;
	size_t len = argv_of(t, i, a0, sizeof(a0) - 1);
	a0[len] = 0;
	const char *slash = strrchr(a0, '/');
	const char *base = slash ? slash + 1 : a0;
	return tool_name(base, strlen(base));
}

static int load_procs(struct forecast_tree *t)
{
	size_t n = 0, got;
	while ((got = store_procs(t->st, STORE_PROCS_ALL, t->p, n)) > n) {
		free(t->p);
		n = got + 64;
		if (!(t->p = calloc(n, sizeof(*t->p))))
			return -ENOMEM;
	}
	t->n = got;
	return 0;
}

static int by_start(const void *a, const void *b, void *arg)
{
	const struct proc_rec *p = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	if (p[i].start_ns != p[j].start_ns)
		return p[i].start_ns < p[j].start_ns ? -1 : 1;
	return (i > j) - (i < j);
}

/* The walk from root r, depth first, children by start: each process its
 * number on the way down (tin, walk) and the last number under it (tout).
 * A process numbered already is not entered again. */
static void walk_from(struct forecast_tree *t, size_t r, size_t *stack, size_t *clock)
{
	size_t sp = 0, *next = t->tout; /* a cursor per node while walking */

	t->walk[*clock] = r;
	t->tin[r] = (*clock)++;
	next[r] = t->kid_off[r];
	stack[sp++] = r;
	while (sp) {
		size_t v = stack[sp - 1];
		if (next[v] == t->kid_off[v + 1]) {
			next[v] = *clock - 1; /* done: tout is the last number under it */
			sp--;
			continue;
		}
		size_t c = t->kids[next[v]++];
		if (t->tin[c] != SIZE_MAX)
			continue;
		t->walk[*clock] = c;
		t->tin[c] = (*clock)++;
		next[c] = t->kid_off[c];
		stack[sp++] = c;
	}
}

/* Parents, children by start, and the tree walk's numbering (roots by
 * start: the command first). A process the walk did not reach (a circle of
 * parents: proctree.h allows none, but this walk does not lean on it) is
 * taken as a root. Returns 0 or -ENOMEM. */
static int tree_links(struct forecast_tree *t)
{
	size_t n = t->n, *order = malloc((n + 1) * sizeof(*order)), *stack = malloc((n + 1) * sizeof(*stack));
	int r = -ENOMEM;

	t->parent = malloc((n + 1) * sizeof(*t->parent));
	t->kid_off = calloc(n + 2, sizeof(*t->kid_off));
	t->kids = malloc((n + 1) * sizeof(*t->kids));
	t->tin = malloc((n + 1) * sizeof(*t->tin));
	t->tout = malloc((n + 1) * sizeof(*t->tout));
	t->walk = malloc((n + 1) * sizeof(*t->walk));
	if (!order || !stack || !t->parent || !t->kid_off || !t->kids || !t->tin || !t->tout || !t->walk ||
	    proctree_parents(t->p, n, t->parent) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), by_start, t->p);
	for (size_t i = 0; i < n; i++)
		if (t->parent[i] != PROCTREE_NONE)
			t->kid_off[t->parent[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		t->kid_off[i + 1] += t->kid_off[i];
	size_t *fill = t->tin; /* as a cursor while the children are placed */
	memcpy(fill, t->kid_off, n * sizeof(*fill));
	for (size_t k = 0; k < n; k++)
		if (t->parent[order[k]] != PROCTREE_NONE)
			t->kids[fill[t->parent[order[k]]]++] = order[k];
	for (size_t i = 0; i < n; i++)
		t->tin[i] = SIZE_MAX;
	size_t clock = 0;
	for (size_t k = 0; k < n; k++)
		if (t->parent[order[k]] == PROCTREE_NONE)
			walk_from(t, order[k], stack, &clock);
	for (size_t k = 0; k < n; k++)
		if (t->tin[order[k]] == SIZE_MAX) {
			t->parent[order[k]] = PROCTREE_NONE;
			walk_from(t, order[k], stack, &clock);
		}
	r = 0;
out:
	free(order);
	free(stack);
	return r;
}

/* The tools (1), and the processes that run one (2); with none, the
 * command is taken as the tool. The outermost tool's name. Children before
 * their parents (the walk backwards): linear however deep the tools nest. */
static void mark_tools(struct forecast_tree *t)
{
	size_t top = FORECAST_TREE_NONE;
	for (size_t i = 0; i < t->n; i++) {
		if (!is_tool(t, i))
			continue;
		t->tool[i] = 1;
		if (top == FORECAST_TREE_NONE || t->tin[i] < t->tin[top])
			top = i;
	}
	for (size_t k = t->n; k-- > 0;) {
		size_t i = t->walk[k], a = t->parent[i];
		if (t->tool[i] && a != PROCTREE_NONE && !t->tool[a])
			t->tool[a] = 2;
	}
	if (top != FORECAST_TREE_NONE) {
		snprintf(t->tool_name, sizeof(t->tool_name), "%.15s", t->p[top].comm);
		return;
	}
	if (t->n)
		t->tool[t->walk[0]] = 1;
}

/* A process's end (a recording cut short: the run's), never before its start. */
static uint64_t end_of(const struct forecast_tree *t, size_t i)
{
	uint64_t e = t->p[i].end_ns ? t->p[i].end_ns : t->run_end;
	return e > t->p[i].start_ns ? e : t->p[i].start_ns;
}

static int job_add(struct forecast_tree *t, size_t *cap, struct forecast_tree_job j)
{
	if (t->nj == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		struct forecast_tree_job *v = realloc(t->jobs, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->jobs = v;
		*cap = nc;
	}
	t->jobs[t->nj++] = j;
	return 0;
}

/* The jobs: each process that is not the tool's side and whose parent is
 * (or that has none) roots one; the others belong to their parent's. In
 * walk order, so the jobs are numbered by their roots' places in it.
 * Returns 0 or -ENOMEM. */
static int find_jobs(struct forecast_tree *t, size_t *cap)
{
	for (size_t k = 0; k < t->n; k++) {
		size_t i = t->walk[k], par = t->parent[i];
		t->owner[i] = FORECAST_TREE_NONE;
		if (t->tool[i])
			continue;
		if (par == PROCTREE_NONE || t->tool[par]) {
			struct forecast_tree_job j = {.root = i, .heavy = i, .start_ns = t->p[i].start_ns};
			if (job_add(t, cap, j) < 0)
				return -ENOMEM;
			t->owner[i] = t->nj - 1;
		} else {
			t->owner[i] = t->owner[par];
		}
		struct forecast_tree_job *j = &t->jobs[t->owner[i]];
		const struct proc_rec *h = &t->p[j->heavy], *p = &t->p[i];
		if (end_of(t, i) > j->end_ns)
			j->end_ns = end_of(t, i);
		j->cpu_ns += (p->valid & PROC_V_CPU) ? (p->utime_us + p->stime_us) * 1000 : 0;
		if (p->peak_pss_kib > h->peak_pss_kib ||
		    (p->peak_pss_kib == h->peak_pss_kib && p->utime_us + p->stime_us > h->utime_us + h->stime_us))
			j->heavy = i;
	}
	t->njobs = t->nj;
	return 0;
}

/* The jobs under process c: [*lo, *hi) of the jobs numbered in walk order. */
static void jobs_under(const struct forecast_tree *t, size_t c, size_t *lo, size_t *hi)
{
	size_t a = 0, b = t->njobs;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (t->tin[t->jobs[m].root] < t->tin[c])
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	b = t->njobs;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (t->tin[t->jobs[m].root] <= t->tout[c])
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

/* Process w runs a tool but is none (a recipe's shell): what it ran one
 * after another stays in that order. Each time all it had run ended before
 * its next child began, a barrier waits on their jobs (and the barrier
 * before), and the jobs of every later child wait on it. Returns 0 or
 * -ENOMEM. */
static int barriers_of(struct forecast_tree *t, size_t w, size_t *jcap, size_t *ecap)
{
	size_t cur = FORECAST_TREE_NONE, g0 = t->kid_off[w], lo, hi;
	uint64_t max_end = 0;
	int group = 0; /* children with jobs since the last barrier */

	for (size_t k = t->kid_off[w]; k < t->kid_off[w + 1]; k++) {
		size_t c = t->kids[k];
		jobs_under(t, c, &lo, &hi);
		if (lo == hi)
			continue;
		if (group && max_end <= t->p[c].start_ns) {
			struct forecast_tree_job b = {FORECAST_TREE_NONE, FORECAST_TREE_NONE, max_end, max_end, 0};
			if (job_add(t, jcap, b) < 0 ||
			    (cur != FORECAST_TREE_NONE && forecast_tree_edge_add(t, ecap, t->nj - 1, cur) < 0))
				return -ENOMEM;
			cur = t->nj - 1;
			for (size_t q = g0; q < k; q++) {
				size_t l2, h2;
				jobs_under(t, t->kids[q], &l2, &h2);
				for (size_t j = l2; j < h2; j++)
					if (forecast_tree_edge_add(t, ecap, cur, j) < 0)
						return -ENOMEM;
			}
			g0 = k;
		}
		group = 1;
		for (size_t j = lo; j < hi && cur != FORECAST_TREE_NONE; j++)
			if (forecast_tree_edge_add(t, ecap, j, cur) < 0)
				return -ENOMEM;
		uint64_t e = end_of(t, c);
		for (size_t j = lo; j < hi; j++)
			e = t->jobs[j].end_ns > e ? t->jobs[j].end_ns : e;
		max_end = e > max_end ? e : max_end;
	}
	return 0;
}

static int by_ready(const void *a, const void *b, void *arg)
{
	const struct forecast_tree_job *v = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	if (v[i].start_ns != v[j].start_ns)
		return v[i].start_ns < v[j].start_ns ? -1 : 1;
	int bi = v[i].root == FORECAST_TREE_NONE, bj = v[j].root == FORECAST_TREE_NONE;
	if (bi != bj) /* a barrier before the jobs that wait on it */
		return bj - bi;
	return (i > j) - (i < j);
}

/* The jobs in the order they became ready (by start), the edges and the
 * owners renumbered. Returns 0 or -ENOMEM. */
static int order_jobs(struct forecast_tree *t)
{
	size_t *ord = malloc((t->nj + 1) * sizeof(*ord)), *rank = malloc((t->nj + 1) * sizeof(*rank));
	struct forecast_tree_job *v = malloc((t->nj + 1) * sizeof(*v));
	if (!ord || !rank || !v) {
		free(ord);
		free(rank);
		free(v);
		return -ENOMEM;
	}
	for (size_t j = 0; j < t->nj; j++)
		ord[j] = j;
	qsort_r(ord, t->nj, sizeof(*ord), by_ready, t->jobs);
	for (size_t k = 0; k < t->nj; k++) {
		rank[ord[k]] = k;
		v[k] = t->jobs[ord[k]];
	}
	for (size_t e = 0; e < t->ne; e++) {
		t->edges[e].job = (uint32_t)rank[t->edges[e].job];
		t->edges[e].on = (uint32_t)rank[t->edges[e].on];
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->owner[i] != FORECAST_TREE_NONE)
			t->owner[i] = rank[t->owner[i]];
	free(t->jobs);
	t->jobs = v;
	free(ord);
	free(rank);
	return 0;
}

void forecast_tree_free(struct forecast_tree *t)
{
	if (!t)
		return;
	free(t->p);
	free(t->parent);
	free(t->kid_off);
	free(t->kids);
	free(t->tin);
	free(t->tout);
	free(t->walk);
	free(t->tool);
	free(t->owner);
	free(t->jobs);
	free(t->edges);
	free(t);
}

/* The tools, jobs, barriers and their order. Returns 0, -ENODATA or -ENOMEM. */
static int tree_jobs(struct forecast_tree *t, size_t *ecap)
{
	size_t jcap = 0;
	int r;

	if (!(t->tool = calloc(t->n + 1, 1)) || !(t->owner = malloc((t->n + 1) * sizeof(*t->owner))))
		return -ENOMEM;
	mark_tools(t);
	if ((r = find_jobs(t, &jcap)) < 0)
		return r;
	if (!t->njobs)
		return -ENODATA;
	for (size_t i = 0; i < t->n; i++)
		if (t->tool[i] == 2 && (r = barriers_of(t, i, &jcap, ecap)) < 0)
			return r;
	return order_jobs(t);
}

int forecast_tree_new(struct store *st, uint64_t window_ns, struct forecast_tree **out)
{
	struct forecast_tree *t = calloc(1, sizeof(*t));
	size_t ecap = 0;
	int r = -ENOMEM;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->st = st;
	store_summary_get(st, &t->sum);
	t->run_start = t->sum.start_ns;
	t->run_end = t->sum.end_ns ? t->sum.end_ns : t->sum.last.t_ns;
	if (t->run_end < t->run_start)
		t->run_end = t->run_start;
	/* polling /proc sees starts and ends a tick late at worst */
	uint64_t poll_ns = t->sum.mode != STORE_MODE_POLL ? 0
			   : t->sum.interval_ms > FORECAST_TREE_WINDOW_MAX / 2000000 ? FORECAST_TREE_WINDOW_MAX
									     : 2 * t->sum.interval_ms * 1000000;
	t->window_ns = poll_ns > window_ns ? poll_ns : window_ns;
	if (t->window_ns > FORECAST_TREE_WINDOW_MAX)
		t->window_ns = FORECAST_TREE_WINDOW_MAX;
	/* ends this close are one: the tool reaps a job and starts the next
	 * within a millisecond or so (a tick, polling) */
	t->refill_ns = t->window_ns > window_ns ? t->window_ns / 2 : t->window_ns / FT_REFILL_DIV;
	if ((r = load_procs(t)) < 0 || (r = tree_links(t)) < 0 || (r = tree_jobs(t, &ecap)) < 0 ||
	    (r = forecast_tree_slots(t)) < 0 || (r = forecast_tree_deps(t)) < 0) {
		forecast_tree_free(t);
		return r;
	}
	*out = t;
	return 0;
}

int forecast_tree_job_procs(const struct forecast_tree *t, size_t **procs, size_t **off)
{
	*procs = malloc((t->n + 1) * sizeof(**procs));
	*off = calloc(t->nj + 2, sizeof(**off));
	if (!*procs || !*off)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		if (t->owner[i] != FORECAST_TREE_NONE)
			(*off)[t->owner[i] + 1]++;
	for (size_t j = 0; j < t->nj; j++)
		(*off)[j + 1] += (*off)[j];
	size_t *fill = malloc((t->nj + 1) * sizeof(*fill));
	if (!fill)
		return -ENOMEM;
	memcpy(fill, *off, (t->nj + 1) * sizeof(*fill));
	for (size_t i = 0; i < t->n; i++)
		if (t->owner[i] != FORECAST_TREE_NONE)
			(*procs)[fill[t->owner[i]]++] = i;
	free(fill);
	return 0;
}
