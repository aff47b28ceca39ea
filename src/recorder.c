/* recorder: the thread that copies a running store into a recording.
 *
 * Cursors say what was copied: samples and events by their running counts,
 * execs by index, process records by insertion index with a digest of what
 * was last written for each (a record is written again only when it
 * changed). A pass looks at the records new since the last one and at those
 * still open (live, or exited less than settle_ns ago: their exit figures may
 * still come), by index; a record settled is not looked at again until the
 * final pass, which looks at everything. So a pass costs the live part of the
 * list, not the whole run, however long a process from the start lives. Per-process samples come from the
 * store's ring, pushed by the collector at its ticks (this thread wakes only
 * to write). Output lines go into one of two buffers under a small lock; the
 * thread swaps them and writes the full one. */
#include "recorder.h"

#include "peakmaps.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define RECORDER_DEF_INTERVAL_MS 1000
/* The longest note on an incomplete run. */
#define RECORDER_NOTE_MAX 320
#define RECORDER_DEF_OUTPUT_BYTES ((size_t)16 << 20)
#define RECORDER_OUTPUT_FIRST ((size_t)256 << 10) /* each buffer's first size: grown as needed */
#define RECORDER_DEF_SETTLE_NS 5000000000ull
#define RECORDER_CHUNK 1024 /* samples, events, per-process samples copied per store call */
/* Process records copied per store call: 256 (~40 KiB) reused chunk by chunk;
 * a buffer for 4096 had each final pass, which looks at them all, touch a
 * fresh page every 27 processes (a fault, ~16 us here). */
#define RECORDER_PROCS_CHUNK 256

/* A queued line's header in the output buffer; the bytes follow. */
struct recorder_qline {
	uint64_t t_ns;
	uint32_t len;
};

/* A growable array of fixed-size elements. */
struct recorder_vec {
	void *p;
	size_t len, cap, size;
};

struct recorder {
	struct store *st;
	struct recdb *db;
	int64_t run_id;
	struct recorder_config cfg;
	pthread_t thread;
	int started;
	int done_fd;   /* eventfd the thread writes as it ends */
	int abandoned; /* recorder_finish_by left the thread behind */

	pthread_mutex_t lock; /* guards everything below, held briefly */
	pthread_cond_t cond;
	int stop, kick, finished;
	int aborted; /* the final write was stopped: its deadline (ETIMEDOUT) or a
		      * cancel (ECANCELED) */
	enum recdb_end end;
	char *qbuf[2];
	size_t qlen[2], qcap[2]; /* qcap grows up to cfg.output_bytes */
	int qfill; /* the buffer recorder_output() appends to */
	struct recorder_stats stats;
	char msg[256];
	int err;

	/* the thread's own state */
	uint64_t scur, ecur, pcur, xcur; /* samples, events, per-process samples, execs copied */
	uint64_t last_t;           /* newest sample time seen */
	size_t seen;               /* records [0, seen) looked at by a pass */
	struct recorder_vec open;  /* uint32_t indexes < seen of records not settled */
	uint64_t looked;           /* records copied to compare (stats.procs_looked) */
	struct recorder_vec digest; /* uint64_t per record: what was written (0: nothing) */
	struct recorder_vec argv_id; /* uint32_t per record: argv id written */
	struct recorder_vec pending_execs; /* uint64_t exec indexes written without a comm */
	struct recorder_vec samples, events, procs, psamples, execs, lines, owned;
	struct proc_rec *chunk;
	struct peakmaps_row *pm_rows;  /* the peak's maps this batch writes (NULL: none) */
	size_t pm_n;
	uint64_t pm_gen, pm_next_gen;  /* the maps' generation written, and this batch's */
};

static void recorder_vec_init(struct recorder_vec *v, size_t size)
{
	memset(v, 0, sizeof(*v));
	v->size = size;
}

/* Room for n more elements; returns a pointer to the first, or NULL. */
static void *recorder_vec_grow(struct recorder_vec *v, size_t n)
{
	if (v->len + n > v->cap) {
		size_t cap = v->cap ? v->cap : 64;
		void *p;

		while (cap < v->len + n)
			cap *= 2;
		p = realloc(v->p, cap * v->size);
		if (!p)
			return NULL;
		v->p = p;
		v->cap = cap;
	}
	return (char *)v->p + v->len * v->size;
}

static void *recorder_vec_push(struct recorder_vec *v)
{
	void *e = recorder_vec_grow(v, 1);

	if (e)
		v->len++;
	return e;
}

static uint64_t recorder_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One word into a running digest (multiply and fold: a change detector). */
static uint64_t recorder_mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* A digest of every field written for a record (never 0). */
static uint64_t recorder_digest(const struct proc_rec *r)
{
	uint64_t h = 0xcbf29ce484222325ull, c[2];

	memcpy(c, r->comm, sizeof(c));
	h = recorder_mix(h, r->id);
	h = recorder_mix(h, (uint64_t)r->pid << 32 | (uint32_t)r->ppid);
	h = recorder_mix(h, r->start_ns);
	h = recorder_mix(h, r->end_ns);
	h = recorder_mix(h, r->argv_id);
	h = recorder_mix(h, c[0]);
	h = recorder_mix(h, c[1]);
	h = recorder_mix(h, (uint64_t)(uint32_t)r->exit_status << 32 | r->valid);
	h = recorder_mix(h, (uint64_t)r->threads << 32 | r->nexec);
	h = recorder_mix(h, r->pss_kib);
	h = recorder_mix(h, r->rss_kib);
	h = recorder_mix(h, r->peak_pss_kib);
	h = recorder_mix(h, r->peak_pss_t_ns);
	h = recorder_mix(h, r->peak_rss_kib);
	h = recorder_mix(h, r->pss_age_ns);
	h = recorder_mix(h, r->utime_us);
	h = recorder_mix(h, r->stime_us);
	h = recorder_mix(h, r->minflt);
	h = recorder_mix(h, r->majflt);
	return h ? h : 1;
}

/* A malloc'd copy of string id, kept in owned until the batch is written. */
static const char *recorder_str(struct recorder *r, uint32_t id, size_t *len)
{
	ssize_t n = store_str_get(r->st, id, NULL, 0);
	char *p, **slot;

	*len = 0;
	if (n < 0)
		return NULL;
	p = malloc((size_t)n + 1);
	slot = p ? recorder_vec_push(&r->owned) : NULL;
	if (!slot) {
		free(p);
		return NULL;
	}
	*slot = p;
	n = store_str_get(r->st, id, p, (size_t)n); /* same bytes: strings never change */
	*len = n < 0 ? 0 : (size_t)n;
	return p;
}

static void recorder_batch_reset(struct recorder *r)
{
	free(r->pm_rows);
	r->pm_rows = NULL;
	r->pm_n = 0;
	for (size_t i = 0; i < r->owned.len; i++)
		free(((char **)r->owned.p)[i]);
	r->owned.len = 0;
	r->samples.len = r->events.len = r->procs.len = 0;
	r->psamples.len = r->execs.len = r->lines.len = 0;
}

/* Copies new samples and events. Returns 0 or -ENOMEM. */
static int recorder_copy_series(struct recorder *r)
{
	uint64_t missed = 0, m;
	size_t n;

	do {
		struct sample *s = recorder_vec_grow(&r->samples, RECORDER_CHUNK);

		if (!s)
			return -ENOMEM;
		n = store_samples(r->st, &r->scur, s, RECORDER_CHUNK, &m);
		missed += m;
		r->samples.len += n;
		if (n)
			r->last_t = s[n - 1].t_ns;
	} while (n == RECORDER_CHUNK);
	pthread_mutex_lock(&r->lock); /* recorder_stats() reads them */
	r->stats.samples_missed += missed;
	pthread_mutex_unlock(&r->lock);
	missed = 0;
	do {
		struct store_event *e = recorder_vec_grow(&r->events, RECORDER_CHUNK);

		if (!e)
			return -ENOMEM;
		n = store_events(r->st, &r->ecur, e, RECORDER_CHUNK, &m);
		missed += m;
		r->events.len += n;
	} while (n == RECORDER_CHUNK);
	pthread_mutex_lock(&r->lock);
	r->stats.events_missed += missed;
	pthread_mutex_unlock(&r->lock);
	missed = 0;
	do {
		struct store_proc_sample *p = recorder_vec_grow(&r->psamples, RECORDER_CHUNK);

		if (!p)
			return -ENOMEM;
		n = store_proc_samples(r->st, &r->pcur, p, RECORDER_CHUNK, &m);
		missed += m;
		r->psamples.len += n;
	} while (n == RECORDER_CHUNK);
	pthread_mutex_lock(&r->lock);
	r->stats.psamples_missed += missed;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

/* Adds record i if it changed since written. */
static int recorder_add_proc(struct recorder *r, size_t i, const struct proc_rec *rec)
{
	uint64_t d = recorder_digest(rec), *dig;
	uint32_t *aid;
	struct recdb_proc *p;
	size_t more = i >= r->digest.len ? i + 1 - r->digest.len : 0;

	if (!recorder_vec_grow(&r->digest, more) || !recorder_vec_grow(&r->argv_id, more))
		return -ENOMEM;
	while (r->digest.len <= i) {
		((uint64_t *)r->digest.p)[r->digest.len++] = 0;
		((uint32_t *)r->argv_id.p)[r->argv_id.len++] = 0;
	}
	dig = (uint64_t *)r->digest.p + i;
	aid = (uint32_t *)r->argv_id.p + i;
	if (*dig == d)
		return 0;
	p = recorder_vec_push(&r->procs);
	if (!p)
		return -ENOMEM;
	p->rec = *rec;
	p->seq = i;
	p->argv = NULL;
	p->argv_len = 0;
	if (rec->argv_id && rec->argv_id != *aid)
		p->argv = recorder_str(r, rec->argv_id, &p->argv_len);
	/* noted as written now; a failed write stops the recorder anyway */
	*dig = d;
	if (p->argv)
		*aid = rec->argv_id;
	return 0;
}

/* The peak's maps, when they changed since the last write (peakmaps.h).
 * Returns 0 or -ENOMEM. */
static int recorder_copy_maps(struct recorder *r)
{
	uint64_t gen;
	ssize_t n;

	if (!r->cfg.peakmaps || peakmaps_gen(r->cfg.peakmaps) == r->pm_gen)
		return 0;
	n = peakmaps_rows(r->cfg.peakmaps, &r->pm_rows, &gen);
	if (n < 0)
		return (int)n;
	if (gen == r->pm_gen) { /* unchanged: nothing to write */
		free(r->pm_rows);
		r->pm_rows = NULL;
		return 0;
	}
	r->pm_n = (size_t)n;
	r->pm_next_gen = gen;
	return 0;
}

/* Adds record i if changed; an unsettled one goes back on the open list. */
static int recorder_pass_proc(struct recorder *r, size_t i, const struct proc_rec *rec, uint64_t t_ns)
{
	int rc = recorder_add_proc(r, i, rec);

	if (rc == 0 && (!rec->end_ns || rec->end_ns + r->cfg.settle_ns > t_ns)) {
		uint32_t *o = recorder_vec_push(&r->open);

		if (!o)
			return -ENOMEM;
		*o = (uint32_t)i;
	}
	return rc;
}

/* Copies the open records, then those new since the last pass (all of them
 * when final), in chunks, each one lock hold of the store. */
static int recorder_copy_procs(struct recorder *r, int final)
{
	uint64_t t_ns = r->last_t ? r->last_t : recorder_now();
	size_t from = final ? 0 : r->seen, total, nopen = final ? 0 : r->open.len;
	int rc = 0;

	/* the open list is rebuilt as it is looked at: entries go first
	 * to a copy of it (chunk by chunk), the still open back onto it */
	uint32_t *idx = nopen ? malloc(nopen * sizeof(*idx)) : NULL;
	if (nopen && !idx)
		return -ENOMEM;
	if (nopen)
		memcpy(idx, r->open.p, nopen * sizeof(*idx));
	r->open.len = 0;
	for (size_t at = 0; at < nopen && rc == 0; at += RECORDER_PROCS_CHUNK) {
		size_t want = nopen - at < RECORDER_PROCS_CHUNK ? nopen - at : RECORDER_PROCS_CHUNK;
		r->looked += store_procs_at(r->st, idx + at, want, r->chunk);
		for (size_t k = 0; k < want && rc == 0; k++)
			if (r->chunk[k].id) /* none is past the end: all are < seen */
				rc = recorder_pass_proc(r, idx[at + k], &r->chunk[k], t_ns);
	}
	free(idx);
	for (; rc == 0;) {
		size_t n;

		total = store_procs_range(r->st, STORE_PROCS_ALL, from, r->chunk, RECORDER_PROCS_CHUNK);
		n = total > from ? total - from : 0;
		if (n > RECORDER_PROCS_CHUNK)
			n = RECORDER_PROCS_CHUNK;
		r->looked += n;
		for (size_t k = 0; k < n && rc == 0; k++)
			rc = final ? recorder_add_proc(r, from + k, &r->chunk[k])
				   : recorder_pass_proc(r, from + k, &r->chunk[k], t_ns);
		from += n;
		if (n < RECORDER_PROCS_CHUNK)
			break;
	}
	if (!final)
		r->seen = from;
	return rc;
}

/* Copies new execs, and those written without a name that have one now. */
static int recorder_copy_execs(struct recorder *r)
{
	struct store_exec x[64];
	size_t keep = 0, n;

	for (size_t i = 0; i < r->pending_execs.len; i++) {
		uint64_t idx = ((uint64_t *)r->pending_execs.p)[i];
		struct recdb_exec *e;

		if (store_execs(r->st, idx, x, 1) <= idx)
			continue;
		if (!x[0].comm[0]) {
			((uint64_t *)r->pending_execs.p)[keep++] = idx;
			continue;
		}
		e = recorder_vec_push(&r->execs);
		if (!e)
			return -ENOMEM;
		e->ex = x[0];
		e->idx = idx;
		e->argv = NULL; /* written already */
		e->argv_len = 0;
	}
	r->pending_execs.len = keep;
	do {
		size_t total = store_execs(r->st, r->xcur, x, 64);

		n = total > r->xcur ? total - r->xcur : 0;
		if (n > 64)
			n = 64;
		for (size_t k = 0; k < n; k++) {
			struct recdb_exec *e = recorder_vec_push(&r->execs);

			if (!e)
				return -ENOMEM;
			e->ex = x[k];
			e->idx = r->xcur + k;
			e->argv = x[k].argv_id ? recorder_str(r, x[k].argv_id, &e->argv_len) : NULL;
			if (!e->argv)
				e->argv_len = 0;
			if (!x[k].comm[0]) {
				uint64_t *pi = recorder_vec_push(&r->pending_execs);

				if (!pi)
					return -ENOMEM;
				*pi = e->idx;
			}
		}
		r->xcur += n;
	} while (n == 64);
	return 0;
}

/* Swaps the output buffers and lists the lines of the full one. Returns the
 * index of the buffer to empty afterwards. */
static int recorder_take_output(struct recorder *r)
{
	int drain;
	size_t off = 0;

	pthread_mutex_lock(&r->lock);
	drain = r->qfill;
	r->qfill = !drain;
	pthread_mutex_unlock(&r->lock);
	while (off < r->qlen[drain]) {
		struct recorder_qline h;
		struct recdb_line *l;

		memcpy(&h, r->qbuf[drain] + off, sizeof(h));
		l = recorder_vec_push(&r->lines);
		if (!l)
			break; /* lost with the batch's memory; the write reports the rest */
		l->t_ns = h.t_ns;
		l->bytes = r->qbuf[drain] + off + sizeof(h);
		l->len = h.len;
		off += sizeof(h) + h.len;
	}
	return drain;
}

/* Keeps the first failure and its message. */
static void recorder_fail(struct recorder *r, int err, const char *what)
{
	pthread_mutex_lock(&r->lock);
	if (!r->err) {
		r->err = err;
		snprintf(r->msg, sizeof(r->msg), "%s", what);
		r->stats.failed = 1;
	}
	pthread_mutex_unlock(&r->lock);
}

/* Why the run's recording is incomplete (empty: it is not): the failure, or
 * what was lost before it was written. Under the lock. */
static void recorder_note(struct recorder *r, char *note, size_t cap)
{
	note[0] = '\0';
	if (r->err)
		snprintf(note, cap, "%s", r->msg);
	else if (r->stats.samples_missed || r->stats.events_missed || r->stats.psamples_missed ||
		 r->stats.lines_dropped)
		snprintf(note, cap,
			 "lost before written: %llu samples, %llu events, %llu per-process samples,"
			 " %llu output lines",
			 (unsigned long long)r->stats.samples_missed,
			 (unsigned long long)r->stats.events_missed,
			 (unsigned long long)r->stats.psamples_missed,
			 (unsigned long long)r->stats.lines_dropped);
}

/* One pass: copy, write in one transaction, count. After a failure only the
 * output queue is emptied (its lines are counted as dropped). The last pass
 * (end) writes the run's end state in the same transaction; returns 1 when
 * it did. */
/* The batch's figures into the recorder's stats (under its lock): written,
 * or the output lines dropped. t0..t1 was the copy; the write ended now. */
static void recorder_count(struct recorder *r, int written, uint64_t t0, uint64_t t1)
{
	r->stats.copy_ns += t1 - t0;
	r->stats.procs_looked = r->looked;
	if (written) {
		r->stats.write_ns += recorder_now() - t1;
		r->stats.batches++;
		r->stats.samples += r->samples.len;
		r->stats.events += r->events.len;
		r->stats.procs += r->procs.len;
		r->stats.psamples += r->psamples.len;
		r->stats.execs += r->execs.len;
		r->stats.lines += r->lines.len;
	} else {
		r->stats.lines_dropped += r->lines.len;
		for (size_t i = 0; i < r->lines.len; i++)
			r->stats.bytes_dropped += ((struct recdb_line *)r->lines.p)[i].len;
	}
}

static int recorder_flush(struct recorder *r, int final, int end)
{
	struct store_summary sum;
	struct recdb_end_info ei;
	struct recdb_batch b;
	char note[RECORDER_NOTE_MAX];
	uint64_t t0, t1;
	int drain, rc, failed;

	pthread_mutex_lock(&r->lock);
	failed = r->err != 0;
	pthread_mutex_unlock(&r->lock);
	recorder_batch_reset(r);
	t0 = recorder_now();
	rc = failed ? 0 : recorder_copy_series(r);
	if (rc == 0 && !failed)
		rc = recorder_copy_procs(r, final);
	if (rc == 0 && !failed)
		rc = recorder_copy_execs(r);
	if (rc == 0 && !failed)
		rc = recorder_copy_maps(r);
	drain = recorder_take_output(r);
	store_summary_get(r->st, &sum);
	t1 = recorder_now();
	if (rc < 0)
		recorder_fail(r, rc, "recording stopped: out of memory");
	failed = failed || rc < 0;
	if (!failed) {
		memset(&b, 0, sizeof(b));
		b.samples = r->samples.p;
		b.nsamples = r->samples.len;
		b.events = r->events.p;
		b.nevents = r->events.len;
		b.procs = r->procs.p;
		b.nprocs = r->procs.len;
		b.execs = r->execs.p;
		b.nexecs = r->execs.len;
		b.psamples = r->psamples.p;
		b.npsamples = r->psamples.len;
		b.lines = r->lines.p;
		b.peak_maps_set = r->pm_rows != NULL;
		b.peak_maps = r->pm_rows;
		b.npeak_maps = r->pm_n;
		b.nlines = r->lines.len;
		b.summary = &sum;
		b.final = final;
		if (end) {
			/* what the copies above missed is counted by now */
			pthread_mutex_lock(&r->lock);
			recorder_note(r, note, sizeof(note));
			pthread_mutex_unlock(&r->lock);
			ei = (struct recdb_end_info){.end = r->end, .incomplete = note[0] != '\0',
						     .note = note[0] ? note : NULL};
			b.end = &ei;
		}
		rc = recdb_write(r->db, r->run_id, &b);
		if (rc == 0 && r->pm_rows)
			r->pm_gen = r->pm_next_gen;
		if (rc < 0) {
			char what[256];

			snprintf(what, sizeof(what), "recording stopped: %s", recdb_errmsg(r->db));
			recorder_fail(r, rc, what);
		}
	}
	pthread_mutex_lock(&r->lock);
	recorder_count(r, !failed && rc == 0, t0, t1);
	r->qlen[drain] = 0;
	pthread_mutex_unlock(&r->lock);
	recorder_batch_reset(r);
	return end && !failed && rc == 0;
}

/* The final update: summary, end state, and whether anything was lost (when
 * the last pass could not write them with its data). */
static void recorder_end(struct recorder *r)
{
	struct store_summary sum;
	char note[RECORDER_NOTE_MAX];
	int incomplete, rc;

	store_summary_get(r->st, &sum);
	pthread_mutex_lock(&r->lock);
	recorder_note(r, note, sizeof(note));
	incomplete = note[0] != '\0';
	pthread_mutex_unlock(&r->lock);
	rc = recdb_run_finish(r->db, r->run_id, &sum, r->end, incomplete, note[0] ? note : NULL);
	if (rc < 0) {
		char what[256];

		snprintf(what, sizeof(what), "recording not finished: %s", recdb_errmsg(r->db));
		recorder_fail(r, rc, what);
	}
}

/* After the final write was stopped: the run's end state alone, marked
 * incomplete, if the file takes it before the caller's grace runs out (it
 * aborts the database again then). */
static void recorder_end_aborted(struct recorder *r)
{
	char note[RECORDER_NOTE_MAX];

	pthread_mutex_lock(&r->lock);
	recdb_abort(r->db, 0);
	snprintf(note, sizeof(note), "%s", r->msg);
	pthread_mutex_unlock(&r->lock);
	recdb_run_finish(r->db, r->run_id, NULL, r->end, 1, note);
}

/* Waits for the interval (or a kick, or the stop), writes, and at the stop
 * writes everything left and the end. */
static void *recorder_main(void *arg)
{
	struct recorder *r = arg;
	struct timespec dl;

	uint64_t next_write = recorder_now() + (uint64_t)r->cfg.interval_ms * 1000000ull;

	pthread_mutex_lock(&r->lock);
	while (!r->stop) {
		int timed_out = 0;

		/* a write every interval, or when kicked */
		dl.tv_sec = (time_t)(next_write / 1000000000ull);
		dl.tv_nsec = (long)(next_write % 1000000000ull);
		while (!r->stop && !r->kick && !timed_out)
			timed_out = pthread_cond_timedwait(&r->cond, &r->lock, &dl) == ETIMEDOUT;
		r->kick = 0;
		if (r->stop)
			break;
		pthread_mutex_unlock(&r->lock);
		recorder_flush(r, 0, 0);
		next_write = recorder_now() + (uint64_t)r->cfg.interval_ms * 1000000ull;
		pthread_mutex_lock(&r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	/* the last pass, with the end state: one transaction. Lines queued
	 * during it (output from another thread than the one that stopped us)
	 * take one more pass, and the end is written again after them. */
	int ended = recorder_flush(r, 1, 1);
	pthread_mutex_lock(&r->lock);
	int more = r->qlen[r->qfill] != 0, aborted = r->aborted;
	pthread_mutex_unlock(&r->lock);
	if (aborted && !ended)
		recorder_end_aborted(r);
	else if (more || !ended) {
		recorder_flush(r, 1, 0);
		recorder_end(r);
	}
	uint64_t one = 1;
	if (write(r->done_fd, &one, sizeof(one)) < 0) {
		/* an eventfd of ours takes it */
	}
	return NULL;
}

static void recorder_release(struct recorder *r)
{
	recorder_batch_reset(r);
	free(r->qbuf[0]);
	free(r->qbuf[1]);
	free(r->digest.p);
	free(r->argv_id.p);
	free(r->open.p);
	free(r->pending_execs.p);
	free(r->samples.p);
	free(r->events.p);
	free(r->procs.p);
	free(r->psamples.p);
	free(r->execs.p);
	free(r->lines.p);
	free(r->owned.p);
	free(r->chunk);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	if (r->done_fd >= 0)
		close(r->done_fd);
	free(r);
}

struct recorder *recorder_start(struct store *st, struct recdb *db, int64_t run_id,
				const struct recorder_config *cfg)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	struct recorder *r;
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->st = st;
	r->db = db;
	r->run_id = run_id;
	r->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (cfg)
		r->cfg = *cfg;
	if (!r->cfg.interval_ms)
		r->cfg.interval_ms = RECORDER_DEF_INTERVAL_MS;
	if (!r->cfg.output_bytes)
		r->cfg.output_bytes = RECORDER_DEF_OUTPUT_BYTES;
	if (!r->cfg.settle_ns)
		r->cfg.settle_ns = RECORDER_DEF_SETTLE_NS;
	recorder_vec_init(&r->digest, sizeof(uint64_t));
	recorder_vec_init(&r->argv_id, sizeof(uint32_t));
	recorder_vec_init(&r->open, sizeof(uint32_t));
	recorder_vec_init(&r->pending_execs, sizeof(uint64_t));
	recorder_vec_init(&r->samples, sizeof(struct sample));
	recorder_vec_init(&r->events, sizeof(struct store_event));
	recorder_vec_init(&r->procs, sizeof(struct recdb_proc));
	recorder_vec_init(&r->psamples, sizeof(struct store_proc_sample));
	recorder_vec_init(&r->execs, sizeof(struct recdb_exec));
	recorder_vec_init(&r->lines, sizeof(struct recdb_line));
	recorder_vec_init(&r->owned, sizeof(char *));
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cond, &ca);
	pthread_condattr_destroy(&ca);
	for (int i = 0; i < 2; i++) {
		r->qcap[i] = r->cfg.output_bytes < RECORDER_OUTPUT_FIRST ? r->cfg.output_bytes : RECORDER_OUTPUT_FIRST;
		r->qbuf[i] = malloc(r->qcap[i]);
	}
	r->chunk = malloc(RECORDER_PROCS_CHUNK * sizeof(*r->chunk));
	if (!r->qbuf[0] || !r->qbuf[1] || !r->chunk || r->done_fd < 0) {
		recorder_release(r);
		errno = ENOMEM;
		return NULL;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&r->thread, NULL, recorder_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		recorder_release(r);
		errno = err;
		return NULL;
	}
	r->started = 1;
	return r;
}

/* The buffer being filled made room for want bytes, doubling up to the
 * configured capacity (a failed allocation leaves it as it was). Under the
 * lock: the recorder's thread only reads the other buffer. */
static void recorder_qgrow(struct recorder *r, size_t want)
{
	size_t cap = r->qcap[r->qfill];

	if (want <= cap || cap >= r->cfg.output_bytes)
		return;
	while (cap < want && cap < r->cfg.output_bytes)
		cap = cap * 2 < r->cfg.output_bytes ? cap * 2 : r->cfg.output_bytes;
	char *b = realloc(r->qbuf[r->qfill], cap);
	if (b) {
		r->qbuf[r->qfill] = b;
		r->qcap[r->qfill] = cap;
	}
}

void recorder_output(struct recorder *r, uint64_t t_ns, const char *bytes, size_t len)
{
	struct recorder_qline h = { .t_ns = t_ns, .len = (uint32_t)len };
	size_t need = sizeof(h) + len;

	pthread_mutex_lock(&r->lock);
	if (len <= UINT32_MAX && !r->err)
		recorder_qgrow(r, r->qlen[r->qfill] + need);
	if (len > UINT32_MAX || r->qlen[r->qfill] + need > r->qcap[r->qfill] || r->err) {
		r->stats.lines_dropped++;
		r->stats.bytes_dropped += len;
	} else {
		char *dst = r->qbuf[r->qfill] + r->qlen[r->qfill];

		memcpy(dst, &h, sizeof(h));
		if (len)
			memcpy(dst + sizeof(h), bytes, len);
		r->qlen[r->qfill] += need;
		/* half full: written now rather than at the interval, so that a
		 * command printing fast fills the other buffer meanwhile, not this */
		if (r->qlen[r->qfill] > RECORDER_OUTPUT_FIRST / 2 && !r->kick) {
			r->kick = 1;
			pthread_cond_signal(&r->cond);
		}
	}
	pthread_mutex_unlock(&r->lock);
}

void recorder_kick(struct recorder *r)
{
	pthread_mutex_lock(&r->lock);
	r->kick = 1;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

int recorder_finish(struct recorder *r, enum recdb_end end)
{
	return recorder_finish_by(r, end, 0, -1);
}

/* Waits until the thread says it is done, the deadline (0: none) passes or
 * cancel_fd (> 0) is readable. Returns 1 when done, 0 past the deadline, -1
 * when cancelled. */
static int recorder_wait_done(struct recorder *r, uint64_t deadline_ns, int cancel_fd)
{
	struct pollfd pf[2] = {{.fd = r->done_fd, .events = POLLIN},
			       {.fd = cancel_fd > 0 ? cancel_fd : -1, .events = POLLIN}};

	for (;;) {
		int ms = -1;
		if (deadline_ns) {
			uint64_t now = recorder_now();
			if (now >= deadline_ns)
				return 0;
			ms = (int)((deadline_ns - now + 999999) / 1000000);
		}
		int n = poll(pf, 2, ms);
		if (n < 0 && errno != EINTR)
			return 1; /* cannot wait: join */
		if (n > 0 && (pf[0].revents & POLLIN))
			return 1;
		if (n > 0 && pf[1].revents)
			return -1;
	}
}

/* Stops the final write: the reason becomes the recorder's failure. */
static void recorder_abort(struct recorder *r, int why, uint64_t waited_ns)
{
	char was[sizeof(r->msg)];

	pthread_mutex_lock(&r->lock);
	r->aborted = why;
	snprintf(was, sizeof(was), "%s",
		 r->err ? r->msg : recdb_waiting_lock(r->db) ? "the recording is locked by another program" : "");
	if (why == ETIMEDOUT)
		snprintf(r->msg, sizeof(r->msg), "its final write did not finish within %.1f s%s%.160s",
			 (double)waited_ns / 1e9, was[0] ? ": " : "", was);
	else
		snprintf(r->msg, sizeof(r->msg), "its final write was stopped by a signal%s%.160s",
			 was[0] ? ": " : "", was);
	r->err = -why;
	r->stats.failed = 1;
	recdb_abort(r->db, 1);
	pthread_mutex_unlock(&r->lock);
}

int recorder_finish_by(struct recorder *r, enum recdb_end end, uint64_t deadline_ns, int cancel_fd)
{
	uint64_t t0 = recorder_now();
	int err;

	pthread_mutex_lock(&r->lock);
	if (!r->finished) {
		r->end = end;
		r->stop = 1;
		pthread_cond_signal(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
	if (r->started && !r->finished && !r->abandoned) {
		int w = recorder_wait_done(r, deadline_ns, cancel_fd);
		if (w <= 0) {
			/* stopped; the end state gets half the grace, then the
			 * database is stopped again for the other half */
			uint64_t half = RECORDER_ABORT_GRACE_MS / 2 * 1000000ull;
			recorder_abort(r, w == 0 ? ETIMEDOUT : ECANCELED, recorder_now() - t0);
			if (recorder_wait_done(r, recorder_now() + half, -1) == 0) {
				pthread_mutex_lock(&r->lock);
				recdb_abort(r->db, 1);
				pthread_mutex_unlock(&r->lock);
				if (recorder_wait_done(r, recorder_now() + half, -1) == 0)
					r->abandoned = 1;
			}
		}
		if (!r->abandoned) {
			pthread_join(r->thread, NULL);
			r->finished = 1;
		}
	}
	pthread_mutex_lock(&r->lock);
	err = r->err;
	pthread_mutex_unlock(&r->lock);
	return err;
}

void recorder_error(struct recorder *r, char *buf, size_t cap)
{
	if (!cap)
		return;
	pthread_mutex_lock(&r->lock);
	snprintf(buf, cap, "%s", r->err ? r->msg : "");
	pthread_mutex_unlock(&r->lock);
}

void recorder_stats(struct recorder *r, struct recorder_stats *out)
{
	pthread_mutex_lock(&r->lock);
	*out = r->stats;
	pthread_mutex_unlock(&r->lock);
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	recorder_finish(r, RECDB_END_INTERRUPTED);
	if (r->abandoned)
		return; /* its thread may still use it: the process's end frees it */
	recorder_release(r);
}

int recorder_abandoned(const struct recorder *r)
{
	return r && r->abandoned;
}
