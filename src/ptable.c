/* ptable.c: a dense array of entries plus an open-addressing pid index. */
#include "ptable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ptable {
	struct pentry *v;
	size_t n, cap;
	int32_t *idx;   /* pid slot -> index into v, -1 empty, -2 deleted */
	pid_t *keys;
	size_t nslots;  /* power of two */
	size_t used;    /* slots not empty (live + deleted) */
};

struct ptable *ptable_new(void)
{
	struct ptable *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return NULL;
	pt->nslots = 1024;
	pt->idx = malloc(pt->nslots * sizeof(*pt->idx));
	pt->keys = malloc(pt->nslots * sizeof(*pt->keys));
	if (!pt->idx || !pt->keys) {
		free(pt->idx);
		free(pt->keys);
		free(pt);
		errno = ENOMEM;
		return NULL;
	}
	memset(pt->idx, 0xff, pt->nslots * sizeof(*pt->idx));
	return pt;
}

void ptable_close_fds(struct pentry *e)
{
	int *fds[] = {&e->fd_stat, &e->fd_statm, &e->fd_status, &e->fd_smaps};

	for (size_t i = 0; i < 4; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

void ptable_free(struct ptable *pt)
{
	if (!pt)
		return;
	for (size_t i = 0; i < pt->n; i++)
		ptable_close_fds(&pt->v[i]);
	free(pt->v);
	free(pt->idx);
	free(pt->keys);
	free(pt);
}

static size_t slot_of(const struct ptable *pt, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (pt->nslots - 1);
}

/* Finds the slot holding pid, or -1. */
static long find_slot(const struct ptable *pt, pid_t pid)
{
	for (size_t i = slot_of(pt, pid), k = 0; k < pt->nslots; k++, i = (i + 1) & (pt->nslots - 1)) {
		if (pt->idx[i] == -1)
			return -1;
		if (pt->idx[i] >= 0 && pt->keys[i] == pid)
			return (long)i;
	}
	return -1;
}

static void insert_slot(struct ptable *pt, pid_t pid, int32_t ix)
{
	size_t i = slot_of(pt, pid);

	while (pt->idx[i] >= 0)
		i = (i + 1) & (pt->nslots - 1);
	if (pt->idx[i] == -1)
		pt->used++;
	pt->idx[i] = ix;
	pt->keys[i] = pid;
}

/* Rebuilds the index with room for the live entries (drops deleted slots). */
static int rehash(struct ptable *pt)
{
	size_t ns = pt->nslots;

	while (ns < pt->n * 4)
		ns *= 2;
	int32_t *idx = malloc(ns * sizeof(*idx));
	pid_t *keys = malloc(ns * sizeof(*keys));
	if (!idx || !keys) {
		free(idx);
		free(keys);
		return -ENOMEM;
	}
	free(pt->idx);
	free(pt->keys);
	pt->idx = idx;
	pt->keys = keys;
	pt->nslots = ns;
	pt->used = 0;
	memset(idx, 0xff, ns * sizeof(*idx));
	for (size_t i = 0; i < pt->n; i++)
		insert_slot(pt, pt->v[i].rec.pid, (int32_t)i);
	return 0;
}

struct pentry *ptable_get(struct ptable *pt, pid_t pid)
{
	long s = find_slot(pt, pid);

	return s < 0 ? NULL : &pt->v[pt->idx[s]];
}

struct pentry *ptable_add(struct ptable *pt, pid_t pid)
{
	if (ptable_get(pt, pid))
		ptable_remove(pt, pid);
	if (pt->n == pt->cap) {
		size_t nc = pt->cap ? pt->cap * 2 : 64;
		struct pentry *v = realloc(pt->v, nc * sizeof(*v));
		if (!v) {
			errno = ENOMEM;
			return NULL;
		}
		pt->v = v;
		pt->cap = nc;
	}
	if ((pt->used + 1) * 2 > pt->nslots && rehash(pt) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	struct pentry *e = &pt->v[pt->n];
	memset(e, 0, sizeof(*e));
	e->fd_stat = e->fd_statm = e->fd_status = e->fd_smaps = -1;
	e->rec.pid = pid;
	insert_slot(pt, pid, (int32_t)pt->n);
	pt->n++;
	return e;
}

void ptable_remove(struct ptable *pt, pid_t pid)
{
	long s = find_slot(pt, pid);

	if (s < 0)
		return;
	size_t ix = (size_t)pt->idx[s];
	ptable_close_fds(&pt->v[ix]);
	pt->idx[s] = -2;
	pt->n--;
	if (ix != pt->n) {
		pt->v[ix] = pt->v[pt->n];
		long m = find_slot(pt, pt->v[ix].rec.pid);
		pt->idx[m] = (int32_t)ix;
	}
}

size_t ptable_count(const struct ptable *pt)
{
	return pt->n;
}

struct pentry *ptable_at(struct ptable *pt, size_t i)
{
	return i < pt->n ? &pt->v[i] : NULL;
}
