/* mapread.c: the memory-map reader's thread. It reads only what the map pane
 * wants, one process at a time; the kept maps are copied out under its lock,
 * which is never held across a read. */
#include "mapread.h"

#include "clockns.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAPREAD_KEEP 16                       /* maps kept, of the processes last wanted */
#define MAPREAD_MIN_EVERY_NS 1000000000ull    /* a wanted map read again at most once a second */
#define MAPREAD_EXE_MAX 512

struct slot {
	uint64_t id;
	pid_t pid;
	int pidfd; /* on the process while its slot lasts (-1: none could be had) */
	enum mapread_state state;
	int err, reading, ended;
	uint64_t read_ns, cost_ns, seq, used;
	struct smaps_view view;
};

struct mapread {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int started, stop;
	char root[256];
	double share;
	uint64_t want_id;
	pid_t want_pid;
	uint64_t due_ns; /* the wanted map's next read */
	uint64_t uses;   /* a clock for the least recently used slot */
	struct slot slots[MAPREAD_KEEP];
};

static struct slot *slot_find(struct mapread *mr, uint64_t id)
{
	for (int i = 0; i < MAPREAD_KEEP; i++)
		if (mr->slots[i].id == id && id)
			return &mr->slots[i];
	return NULL;
}

/* The slot of id, made from the least recently used one when new. Locked. */
static struct slot *slot_take(struct mapread *mr, uint64_t id, pid_t pid)
{
	struct slot *s = slot_find(mr, id), *old = &mr->slots[0];

	if (!s) {
		for (int i = 1; i < MAPREAD_KEEP; i++)
			if (mr->slots[i].used < old->used)
				old = &mr->slots[i];
		smaps_view_free(&old->view);
		if (old->id && old->pidfd >= 0)
			close(old->pidfd);
		memset(old, 0, sizeof(*old));
		old->id = id;
		old->pid = pid;
		old->pidfd = smaps_pid_open(pid);
		old->state = MAPREAD_READING;
		s = old;
	}
	s->used = ++mr->uses;
	return s;
}

/* One read of the wanted process, outside the lock: its text parsed. A
 * process that exited before or while it was read (its pidfd says) gives no
 * map: its text may end at any mapping, its pid may be another's. */
static int read_one(const struct mapread *mr, pid_t pid, int pidfd, struct smaps_view *v, uint64_t *cost_ns)
{
	char *buf = NULL, exe[MAPREAD_EXE_MAX];
	size_t len = 0;
	uint64_t c0 = clockns_of(CLOCK_THREAD_CPUTIME_ID);
	memset(v, 0, sizeof(*v));
	if (smaps_pid_exited(pidfd)) {
		*cost_ns = 0;
		return -ESRCH;
	}
	int r = smaps_read(mr->root[0] ? mr->root : NULL, pid, &buf, &len, exe, sizeof(exe));

	if (r == 0) {
		r = smaps_parse(buf, len, exe, v);
		/* an empty map: a kernel thread, or a process gone as it was read */
		if (r == 0 && len == 0)
			r = -ESRCH;
		if (r > 0)
			r = 0;
		if (r == 0 && smaps_pid_exited(pidfd)) { /* ended as it was read */
			smaps_view_free(v);
			r = -ESRCH;
		}
	}
	free(buf);
	*cost_ns = clockns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
	return r;
}

/* A read's outcome into the slot (locked): a new map, or why none. A process
 * gone keeps the map taken before, and is not read again. */
static void slot_store(struct mapread *mr, struct slot *s, int r, struct smaps_view *v, uint64_t cost_ns)
{
	uint64_t now = clockns_now();
	int gone = r == -ENOENT || r == -ESRCH || (r == 0 && v->truncated && s->state == MAPREAD_DONE);

	s->reading = 0;
	s->cost_ns = cost_ns;
	if (r == 0 && !gone) {
		smaps_view_free(&s->view);
		s->ended = v->truncated; /* cut short: it was ending */
		s->view = *v;
		memset(v, 0, sizeof(*v));
		s->state = MAPREAD_DONE;
		s->read_ns = now;
		s->seq++;
		s->err = 0;
	} else {
		smaps_view_free(v);
		s->err = gone ? -ESRCH : r;
		s->ended = 1;
		if (s->state != MAPREAD_DONE)
			s->state = gone ? MAPREAD_GONE : (r == -EACCES || r == -EPERM) ? MAPREAD_DENIED : MAPREAD_FAILED;
	}
	double every = mr->share > 0 ? (double)cost_ns / mr->share : 0;
	mr->due_ns = now + (every > MAPREAD_MIN_EVERY_NS ? (uint64_t)every : MAPREAD_MIN_EVERY_NS);
}

/* Waits (locked) until a read is due: a map wanted and not read yet, or its
 * refresh time come. Returns 0 at the stop. */
static int wait_due(struct mapread *mr)
{
	for (;;) {
		if (mr->stop)
			return 0;
		struct slot *s = mr->want_id ? slot_find(mr, mr->want_id) : NULL;
		if (mr->want_id && (!s || s->state == MAPREAD_READING))
			return 1;
		if (mr->want_id && !s->ended && clockns_now() >= mr->due_ns)
			return 1;
		if (!mr->want_id || s->ended) {
			pthread_cond_wait(&mr->cond, &mr->lock);
		} else {
			struct timespec ts = {(time_t)(mr->due_ns / 1000000000ull), (long)(mr->due_ns % 1000000000ull)};
			pthread_cond_timedwait(&mr->cond, &mr->lock, &ts);
		}
	}
}

static void *mapread_main(void *arg)
{
	struct mapread *mr = arg;

	pthread_mutex_lock(&mr->lock);
	while (wait_due(mr)) {
		uint64_t id = mr->want_id, cost = 0;
		pid_t pid = mr->want_pid;
		struct slot *s = slot_take(mr, id, pid);
		struct smaps_view v;

		s->reading = 1;
		int pidfd = s->pidfd;
		pthread_mutex_unlock(&mr->lock);
		int r = read_one(mr, pid, pidfd, &v, &cost);
		pthread_mutex_lock(&mr->lock);
		/* the slot may have gone to another process meanwhile: only this
		 * thread takes slots, so it is still id's */
		slot_store(mr, s, r, &v, cost);
	}
	pthread_mutex_unlock(&mr->lock);
	return NULL;
}

struct mapread *mapread_new(const char *proc_root, double share)
{
	struct mapread *mr = calloc(1, sizeof(*mr));
	pthread_condattr_t ca;
	sigset_t all, old;

	if (!mr)
		return NULL;
	if (proc_root)
		snprintf(mr->root, sizeof(mr->root), "%s", proc_root);
	mr->share = share;
	pthread_mutex_init(&mr->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&mr->cond, &ca);
	pthread_condattr_destroy(&ca);
	/* signals go to the UI thread only */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int e = pthread_create(&mr->thread, NULL, mapread_main, mr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		pthread_cond_destroy(&mr->cond);
		pthread_mutex_destroy(&mr->lock);
		free(mr);
		errno = e;
		return NULL;
	}
	mr->started = 1;
	return mr;
}

void mapread_free(struct mapread *mr)
{
	if (!mr)
		return;
	pthread_mutex_lock(&mr->lock);
	mr->stop = 1;
	pthread_cond_signal(&mr->cond);
	pthread_mutex_unlock(&mr->lock);
	if (mr->started)
		pthread_join(mr->thread, NULL);
	for (int i = 0; i < MAPREAD_KEEP; i++) {
		smaps_view_free(&mr->slots[i].view);
		if (mr->slots[i].id && mr->slots[i].pidfd >= 0)
			close(mr->slots[i].pidfd);
	}
	pthread_cond_destroy(&mr->cond);
	pthread_mutex_destroy(&mr->lock);
	free(mr);
}

void mapread_want(struct mapread *mr, uint64_t id, pid_t pid)
{
	pthread_mutex_lock(&mr->lock);
	if (id != mr->want_id) {
		mr->want_id = id;
		mr->want_pid = pid;
		mr->due_ns = 0; /* a new process: read at once */
		pthread_cond_signal(&mr->cond);
	}
	pthread_mutex_unlock(&mr->lock);
}

/* A deep copy of a view (its groups); the copy is empty when memory runs out. */
static void view_copy(struct smaps_view *dst, const struct smaps_view *src)
{
	*dst = *src;
	dst->g = NULL;
	dst->cap = 0;
	if (src->n && (dst->g = malloc(src->n * sizeof(*src->g))) != NULL) {
		memcpy(dst->g, src->g, src->n * sizeof(*src->g));
		dst->cap = src->n;
	} else {
		dst->n = 0;
	}
}

enum mapread_state mapread_get(struct mapread *mr, uint64_t id, struct mapread_result *out)
{
	memset(out, 0, sizeof(*out));
	out->id = id;
	pthread_mutex_lock(&mr->lock);
	struct slot *s = slot_find(mr, id);
	if (s) {
		out->state = s->state;
		out->err = s->err;
		out->pid = s->pid;
		out->read_ns = s->read_ns;
		out->cost_ns = s->cost_ns;
		out->seq = s->seq;
		out->reading = s->reading;
		if (s->state == MAPREAD_DONE)
			view_copy(&out->view, &s->view);
	} else if (id && id == mr->want_id) {
		out->state = MAPREAD_READING;
		out->pid = mr->want_pid;
		out->reading = 1;
	}
	pthread_mutex_unlock(&mr->lock);
	return out->state;
}
