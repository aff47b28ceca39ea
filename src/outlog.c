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
	outlog_push_own(o, t_ns, p, len);
	return 0;
}

void outlog_push_own(struct outlog *o, uint64_t t_ns, char *p, size_t len)
{
	while (o->n > o->first && (o->n - o->first >= o->cap || o->bytes + len > o->max_bytes))
		drop_oldest(o);
	if (t_ns < o->last_t_ns)
		t_ns = o->last_t_ns;
	o->last_t_ns = t_ns;
	o->v[o->n % o->cap] = (struct outlog_line){.t_ns = t_ns, .len = len, .bytes = p};
	o->n++;
	o->bytes += len;
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

/* The span of lines outlog_to takes: [*from, end), and their bytes. */
static size_t span_to(const struct outlog *o, uint64_t t_ns, size_t max, uint64_t *from, uint64_t *end)
{
	size_t bytes = 0;

	*end = end_at(o, t_ns);
	*from = *end - o->first > max ? *end - max : o->first;
	for (uint64_t i = *from; i < *end; i++)
		bytes += o->v[i % o->cap].len;
	return bytes;
}

size_t outlog_size_to(const struct outlog *o, uint64_t t_ns, size_t max)
{
	uint64_t from, end;
	size_t bytes = span_to(o, t_ns, max, &from, &end);

	return end > from ? (size_t)(end - from) * sizeof(struct outlog_line) + bytes + 1 : 0;
}

ssize_t outlog_copy_to(const struct outlog *o, uint64_t t_ns, size_t max, void *block, size_t cap, int *cut)
{
	uint64_t from, end;
	size_t bytes = span_to(o, t_ns, max, &from, &end), k = (size_t)(end - from);

	*cut = from == o->first && o->first > 0;
	if (!k)
		return 0;
	if (k * sizeof(struct outlog_line) + bytes + 1 > cap)
		return -ENOSPC;
	struct outlog_line *v = block;
	char *p = (char *)(v + k);
	for (size_t j = 0; j < k; j++) {
		const struct outlog_line *l = &o->v[(from + j) % o->cap];
		v[j] = (struct outlog_line){.t_ns = l->t_ns, .len = l->len, .bytes = p};
		memcpy(p, l->bytes, l->len);
		p += l->len;
	}
	return (ssize_t)k;
}

ssize_t outlog_to(const struct outlog *o, uint64_t t_ns, size_t max, struct outlog_line **out, int *cut)
{
	size_t cap = outlog_size_to(o, t_ns, max);
	void *block = cap ? malloc(cap) : NULL;

	*out = NULL;
	if (cap && !block)
		return -ENOMEM;
	ssize_t k = outlog_copy_to(o, t_ns, max, block, cap, cut);
	if (k <= 0) {
		free(block);
		return k;
	}
	*out = block;
	return k;
}

size_t outlog_count(const struct outlog *o)
{
	return (size_t)(o->n - o->first);
}

uint64_t outlog_dropped(const struct outlog *o)
{
	return o->first;
}
