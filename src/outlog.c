/* outlog.c: see outlog.h. */
#include "outlog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct outlog {
	struct outlog_line *v;
	size_t cap;        /* slots; line i (a running count) sits at i % cap */
	uint64_t first, n; /* the oldest kept, and lines pushed so far */
	size_t bytes, max_bytes;
	uint64_t last_t_ns;
};

struct outlog *outlog_new(size_t max_lines, size_t max_bytes)
{
	struct outlog *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->cap = max_lines ? max_lines : 1;
	o->max_bytes = max_bytes;
	o->v = calloc(o->cap, sizeof(*o->v));
	if (!o->v) {
		free(o);
		return NULL;
	}
	return o;
}

void outlog_free(struct outlog *o)
{
	if (!o)
		return;
	for (uint64_t i = o->first; i < o->n; i++)
		free(o->v[i % o->cap].bytes);
	free(o->v);
	free(o);
}

/* Lets the oldest line go. */
static void drop_oldest(struct outlog *o)
{
	struct outlog_line *l = &o->v[o->first % o->cap];

	o->bytes -= l->len;
	free(l->bytes);
	l->bytes = NULL;
	o->first++;
}

int outlog_push(struct outlog *o, uint64_t t_ns, const char *bytes, size_t len)
{
	char *p = malloc(len ? len : 1);

	if (!p)
		return -ENOMEM;
	memcpy(p, bytes, len);
	while (o->n > o->first && (o->n - o->first >= o->cap || o->bytes + len > o->max_bytes))
		drop_oldest(o);
	if (t_ns < o->last_t_ns)
		t_ns = o->last_t_ns;
	o->last_t_ns = t_ns;
	o->v[o->n % o->cap] = (struct outlog_line){.t_ns = t_ns, .len = len, .bytes = p};
	o->n++;
	o->bytes += len;
	return 0;
}

/* The running index just past the last line printed at or before t_ns. */
static uint64_t end_at(const struct outlog *o, uint64_t t_ns)
{
	uint64_t lo = o->first, hi = o->n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (o->v[mid % o->cap].t_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

ssize_t outlog_to(const struct outlog *o, uint64_t t_ns, size_t max, struct outlog_line **out, int *cut)
{
	uint64_t end = end_at(o, t_ns), from = end - o->first > max ? end - max : o->first;
	size_t k = (size_t)(end - from), bytes = 0;

	*out = NULL;
	*cut = from == o->first && o->first > 0;
	if (!k)
		return 0;
	for (uint64_t i = from; i < end; i++)
		bytes += o->v[i % o->cap].len;
	struct outlog_line *v = malloc(k * sizeof(*v) + bytes + 1);
	if (!v)
		return -ENOMEM;
	char *p = (char *)(v + k);
	for (size_t j = 0; j < k; j++) {
		const struct outlog_line *l = &o->v[(from + j) % o->cap];
		v[j] = (struct outlog_line){.t_ns = l->t_ns, .len = l->len, .bytes = p};
		memcpy(p, l->bytes, l->len);
		p += l->len;
	}
	*out = v;
	return (ssize_t)k;
}

size_t outlog_count(const struct outlog *o)
{
	return (size_t)(o->n - o->first);
}

uint64_t outlog_dropped(const struct outlog *o)
{
	return o->first;
}
