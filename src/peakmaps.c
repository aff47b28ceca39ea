/* peakmaps.c: the peak's maps, read on a thread of their own (peakmaps.h). */
#include "peakmaps.h"

#include "clockns.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct peakmaps {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int started, stop, busy;
	char root[256];
	double share;
	/* the newest request not yet read */
	int has;
	struct peakmaps_proc req[PEAKMAPS_PROCS];
	int req_fd[PEAKMAPS_PROCS]; /* pidfds taken with the request (-1: none) */
	size_t nreq;
	uint64_t due_ns; /* the budget's: the next read not before */
	/* the maps kept */
	struct peakmaps_row *rows;
	size_t nrows;
	uint64_t gen;
};

/* Reads one process's map into rows appended at *rows (grown); 0, or -errno
 * (a process gone, or one this user may not read, is left out: its pidfd,
 * taken with the request, says whether it is still the process named and
 * was not cut short by its end). */
static int read_proc(const struct peakmaps *pm, const struct peakmaps_proc *p, int pidfd, uint64_t t_ns,
		     struct peakmaps_row **rows, size_t *n)
{
	char *buf = NULL, exe[512];
	size_t len = 0;
	struct smaps_view v;

	if (smaps_pid_exited(pidfd))
		return -ESRCH;
	int r = smaps_read(pm->root[0] ? pm->root : NULL, p->pid, &buf, &len, exe, sizeof(exe));
	if (r == 0)
		r = smaps_parse(buf, len, exe, &v);
	free(buf);
	if (r > 0 && smaps_pid_exited(pidfd)) {
		smaps_view_free(&v);
		r = -ESRCH;
	}
	if (r <= 0)
		return r < 0 ? r : -ESRCH;
	struct peakmaps_row *g = realloc(*rows, (*n + v.n + 1) * sizeof(**rows));
	if (!g) {
		smaps_view_free(&v);
		return -ENOMEM;
	}
	*rows = g;
	for (size_t i = 0; i < v.n; i++)
		g[(*n)++] = (struct peakmaps_row){.id = p->id, .t_ns = t_ns, .g = v.g[i]};
	smaps_view_free(&v);
	return 0;
}

/* Waits (locked) for a request whose time has come; 0 at the stop. */
static int wait_request(struct peakmaps *pm)
{
	for (;;) {
		if (pm->stop)
			return 0;
		uint64_t now = clockns_now();
		if (pm->has && now >= pm->due_ns)
			return 1;
		if (!pm->has) {
			pthread_cond_wait(&pm->cond, &pm->lock);
		} else {
			struct timespec ts = {(time_t)(pm->due_ns / 1000000000ull), (long)(pm->due_ns % 1000000000ull)};
			pthread_cond_timedwait(&pm->cond, &pm->lock, &ts);
		}
	}
}

static void *peakmaps_main(void *arg)
{
	struct peakmaps *pm = arg;

	pthread_mutex_lock(&pm->lock);
	while (wait_request(pm)) {
		struct peakmaps_proc req[PEAKMAPS_PROCS];
		int fd[PEAKMAPS_PROCS];
		size_t n = pm->nreq, nrows = 0;
		struct peakmaps_row *rows = NULL;

		memcpy(req, pm->req, n * sizeof(*req));
		memcpy(fd, pm->req_fd, n * sizeof(*fd));
		pm->nreq = 0; /* the fds are this read's now */
		pm->has = 0;
		pm->busy = 1;
		pthread_mutex_unlock(&pm->lock);
		uint64_t c0 = clockns_of(CLOCK_THREAD_CPUTIME_ID), t = clockns_now();
		for (size_t i = 0; i < n; i++) {
			read_proc(pm, &req[i], fd[i], t, &rows, &nrows);
			if (fd[i] >= 0)
				close(fd[i]);
		}
		uint64_t cost = clockns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
		pthread_mutex_lock(&pm->lock);
		if (nrows) { /* the new peak's maps replace the last one's */
			struct peakmaps_row *old = pm->rows;
			pm->rows = rows;
			pm->nrows = nrows;
			pm->gen++;
			rows = old;
		}
		free(rows);
		pm->busy = 0;
		pm->due_ns = clockns_now() + (pm->share > 0 ? (uint64_t)((double)cost / pm->share) : 0);
		pthread_cond_broadcast(&pm->cond);
	}
	pthread_mutex_unlock(&pm->lock);
	return NULL;
}

struct peakmaps *peakmaps_new(const char *proc_root, double share, int reader)
{
	struct peakmaps *pm = calloc(1, sizeof(*pm));
	pthread_condattr_t ca;
	sigset_t all, old;

	if (!pm)
		return NULL;
	if (proc_root)
		snprintf(pm->root, sizeof(pm->root), "%s", proc_root);
	pm->share = share;
	pthread_mutex_init(&pm->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pm->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (!reader)
		return pm;
	sigfillset(&all); /* signals go to the UI thread only */
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int e = pthread_create(&pm->thread, NULL, peakmaps_main, pm);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		peakmaps_free(pm);
		errno = e;
		return NULL;
	}
	pm->started = 1;
	return pm;
}

void peakmaps_free(struct peakmaps *pm)
{
	if (!pm)
		return;
	pthread_mutex_lock(&pm->lock);
	pm->stop = 1;
	pthread_cond_broadcast(&pm->cond);
	pthread_mutex_unlock(&pm->lock);
	if (pm->started)
		pthread_join(pm->thread, NULL);
	for (size_t i = 0; i < pm->nreq; i++)
		if (pm->req_fd[i] >= 0)
			close(pm->req_fd[i]);
	free(pm->rows);
	pthread_cond_destroy(&pm->cond);
	pthread_mutex_destroy(&pm->lock);
	free(pm);
}

void peakmaps_take(struct peakmaps *pm, uint64_t t_ns, const struct peakmaps_proc *p, size_t n)
{
	struct peakmaps_proc top[PEAKMAPS_PROCS];
	size_t k = 0;

	(void)t_ns;
	/* the largest few, largest first */
	for (size_t i = 0; i < n; i++) {
		size_t j;
		if (k < PEAKMAPS_PROCS)
			j = k++;
		else if (p[i].pss_kib > top[PEAKMAPS_PROCS - 1].pss_kib)
			j = PEAKMAPS_PROCS - 1; /* the smallest's place */
		else
			continue;
		while (j > 0 && top[j - 1].pss_kib < p[i].pss_kib) {
			top[j] = top[j - 1];
			j--;
		}
		top[j] = p[i];
	}
	/* pidfds now, while the collector knows them alive: what is read later
	 * is these processes' or nothing */
	int fd[PEAKMAPS_PROCS], old[PEAKMAPS_PROCS];
	size_t nold;
	for (size_t i = 0; i < k; i++)
		fd[i] = pm->started ? smaps_pid_open(top[i].pid) : -1;
	pthread_mutex_lock(&pm->lock);
	nold = pm->nreq; /* a request not read yet: replaced, its fds closed */
	memcpy(old, pm->req_fd, nold * sizeof(*old));
	memcpy(pm->req, top, k * sizeof(*top));
	memcpy(pm->req_fd, fd, k * sizeof(*fd));
	pm->nreq = k;
	pm->has = k > 0;
	pthread_cond_broadcast(&pm->cond);
	pthread_mutex_unlock(&pm->lock);
	for (size_t i = 0; i < nold; i++)
		if (old[i] >= 0)
			close(old[i]);
}

int peakmaps_set(struct peakmaps *pm, const struct peakmaps_row *rows, size_t n)
{
	struct peakmaps_row *c = n ? malloc(n * sizeof(*c)) : NULL, *old;

	if (n && !c)
		return -ENOMEM;
	if (n)
		memcpy(c, rows, n * sizeof(*c));
	pthread_mutex_lock(&pm->lock);
	old = pm->rows;
	pm->rows = c;
	pm->nrows = n;
	pm->gen++;
	pthread_mutex_unlock(&pm->lock);
	free(old);
	return 0;
}

ssize_t peakmaps_rows(struct peakmaps *pm, struct peakmaps_row **out, uint64_t *gen)
{
	*out = NULL;
	for (;;) { /* allocated outside the lock, for as many as there are */
		pthread_mutex_lock(&pm->lock);
		size_t n = pm->nrows;
		uint64_t g = pm->gen;
		pthread_mutex_unlock(&pm->lock);
		struct peakmaps_row *c = n ? malloc(n * sizeof(*c)) : NULL;
		if (n && !c)
			return -ENOMEM;
		pthread_mutex_lock(&pm->lock);
		int same = pm->gen == g;
		if (same && n)
			memcpy(c, pm->rows, n * sizeof(*c));
		pthread_mutex_unlock(&pm->lock);
		if (same) {
			*out = c;
			if (gen)
				*gen = g;
			return (ssize_t)n;
		}
		free(c);
	}
}

int peakmaps_view(struct peakmaps *pm, uint64_t id, struct smaps_view *out, uint64_t *t_ns)
{
	struct peakmaps_row *rows;
	ssize_t n = peakmaps_rows(pm, &rows, NULL);

	memset(out, 0, sizeof(*out));
	if (n < 0)
		return (int)n;
	for (ssize_t i = 0; i < n; i++) {
		if (rows[i].id != id)
			continue;
		if (out->n == out->cap) {
			size_t cap = out->cap ? out->cap * 2 : 16;
			struct smaps_group *g = realloc(out->g, cap * sizeof(*g));
			if (!g) {
				smaps_view_free(out);
				free(rows);
				return -ENOMEM;
			}
			out->g = g;
			out->cap = cap;
		}
		out->g[out->n++] = rows[i].g;
		out->nmaps += rows[i].g.nmaps;
		for (int f = 0; f < SMAPS_FIELDS; f++)
			out->total.kib[f] += rows[i].g.kib[f];
		if (t_ns)
			*t_ns = rows[i].t_ns;
	}
	free(rows);
	out->total.nmaps = (uint32_t)out->nmaps;
	out->total.kind = SMAPS_KINDS;
	snprintf(out->total.name, sizeof(out->total.name), "total");
	out->valid = out->n ? (1u << SMAPS_FIELDS) - 1 : 0;
	return out->n > 0;
}

void peakmaps_drain(struct peakmaps *pm)
{
	uint64_t until = clockns_now() + PEAKMAPS_DRAIN_NS;

	pthread_mutex_lock(&pm->lock);
	pm->due_ns = 0; /* the last peak's maps: read now, whatever the budget */
	pthread_cond_broadcast(&pm->cond);
	while (pm->started && (pm->has || pm->busy) && !pm->stop && clockns_now() < until) {
		struct timespec ts = {(time_t)(until / 1000000000ull), (long)(until % 1000000000ull)};
		pthread_cond_timedwait(&pm->cond, &pm->lock, &ts);
	}
	pthread_mutex_unlock(&pm->lock);
}

uint64_t peakmaps_gen(struct peakmaps *pm)
{
	pthread_mutex_lock(&pm->lock);
	uint64_t g = pm->gen;
	pthread_mutex_unlock(&pm->lock);
	return g;
}
