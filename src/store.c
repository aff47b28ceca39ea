/* store: the one object shared between the collector and the UI.
 *
 * One mutex guards everything; it is held only for bounded copies. Growing
 * tables (process records, execs, strings, hash maps) never allocate under it:
 * a writer notes what is missing, unlocks, allocates (and rebuilds a hash map
 * from write-once key arrays), relocks and installs what is still missing,
 * then retries. Arrays are segmented (segvec), so nothing already stored moves.
 *
 * Process records: each gets an insertion index, its place in ids and loc. A
 * live one is a struct proc_rec in the dense live array. The update that ends
 * it packs it (recpack) into the arena, appends its index to the exit order
 * and moves the last live record into the slot it leaves. */
#include "store.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "recpack.h"
#include "segvec.h"
#include "series.h"
#include "store_need.h"

#define STORE_DEF_TIER0_LEN 4096
#define STORE_DEF_NTIERS 4
#define STORE_DEF_TIER_FACTOR 10
#define STORE_DEF_TIER_LEN 4096
#define STORE_DEF_EVENTS_LEN 65536
#define STORE_DEF_BASE_NS 100000000ull
#define STORE_DEF_STRPOOL_MAX ((size_t)12 << 20)
#define STORE_CHUNK_BYTES ((size_t)256 << 10)
#define STORE_STR_TRUNC 1024 /* past half the pool, longer strings keep this much */
#define STORE_STR_SHORT 16   /* strings this short (comm) may use the pool's reserve */
#define STORE_ARENA_SHIFT 16 /* the arena's first segment: 64 KiB */
#define STORE_LOC_LIVE 0x80000000u

/* One interned string. Entries are written once, so a map rebuild may read
 * them outside the lock. */
struct store_str {
	const char *p; /* in a chunk; NULL when len is 0 */
	uint32_t len;
	uint32_t hash; /* store_hash() */
};


/* A live process: its record and its insertion index. */
struct store_live {
	struct proc_rec rec;
	uint32_t seq;
};

/* The stored form of an exec: comm is a string id. */
struct store_exec_rec {
	uint64_t t_ns;
	pid_t pid, ppid;
	uint32_t argv_id, comm_id;
};
_Static_assert(sizeof(struct store_exec_rec) == 24, "an exec costs 24 bytes");

struct store {
	pthread_mutex_t lock;
	struct series *series;

	struct store_event *events;
	uint32_t events_len;
	uint64_t nevents; /* pushed so far; event i sits at i % events_len */
	struct outlog *lines; /* the command's output */
	struct store_proc_sample *psamples; /* the same ring for per-process samples */
	uint32_t psamples_len;
	uint64_t npsamples;

	struct segvec ids;     /* uint64_t id per insertion index, written once */
	struct segvec loc;     /* uint32_t per insertion index: STORE_LOC_LIVE | live
				* slot, or the offset of the packed record in arena */
	struct keymap procmap; /* id -> insertion index + 1 */
	struct segvec live;    /* struct store_live, dense, in no set order */
	struct segvec exited;  /* uint32_t insertion index, in exit order */
	struct segvec arena;   /* bytes: packed exited records */
	uint64_t base_ns;      /* recpack base: the first record's start */
	int base_set;

	struct segvec execs; /* struct store_exec_rec */

	struct segvec strs;    /* struct store_str; id = index + 1 */
	struct keymap strmap;  /* hash -> id */
	struct store_chunk *chunks; /* newest first; bytes are appended to the head */
	size_t chunk_bytes, str_bytes, str_max;
	uint64_t str_dropped, str_truncated;

	struct store_summary summary;
	/* the processes that made up the peak sample, at it */
};

static uint64_t store_key_id(const void *elem)
{
	return *(const uint64_t *)elem;
}

static uint64_t store_key_str(const void *elem)
{
	return ((const struct store_str *)elem)->hash;
}

void store_free(struct store *st)
{
	if (!st)
		return;
	series_free(st->series);
	free(st->events);
	free(st->psamples);
	outlog_free(st->lines);
	segvec_free(&st->ids);
	segvec_free(&st->loc);
	segvec_free(&st->live);
	segvec_free(&st->exited);
	segvec_free(&st->arena);
	segvec_free(&st->execs);
	segvec_free(&st->strs);
	free(st->procmap.slots);
	free(st->strmap.slots);
	while (st->chunks) {
		struct store_chunk *next = st->chunks->next;

		free(st->chunks);
		st->chunks = next;
	}
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* Fills in the defaults, then allocates the series and the event ring; the
 * growable tables start empty. */
struct store *store_new(const struct store_config *cfg)
{
	struct store_config c;
	struct series_config sc;
	struct store *st;
	int err;

	memset(&c, 0, sizeof(c));
	if (cfg)
		c = *cfg;
	sc.tier0_len = c.tier0_len ? c.tier0_len : STORE_DEF_TIER0_LEN;
	sc.ntiers = c.ntiers ? c.ntiers : STORE_DEF_NTIERS;
	sc.tier_factor = c.tier_factor ? c.tier_factor : STORE_DEF_TIER_FACTOR;
	sc.tier_len = c.tier_len ? c.tier_len : STORE_DEF_TIER_LEN;
	sc.base_ns = c.base_ns ? c.base_ns : STORE_DEF_BASE_NS;

	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	err = pthread_mutex_init(&st->lock, NULL);
	if (err) {
		free(st);
		errno = err;
		return NULL;
	}
	segvec_init(&st->ids, sizeof(uint64_t), 10);
	segvec_init(&st->loc, sizeof(uint32_t), 10);
	segvec_init(&st->live, sizeof(struct store_live), 6);
	segvec_init(&st->exited, sizeof(uint32_t), 10);
	segvec_init(&st->arena, 1, STORE_ARENA_SHIFT);
	segvec_init(&st->execs, sizeof(struct store_exec_rec), 10);
	segvec_init(&st->strs, sizeof(struct store_str), 10);
	st->str_max = c.strpool_max_bytes ? c.strpool_max_bytes : STORE_DEF_STRPOOL_MAX;
	st->events_len = c.events_len ? c.events_len : STORE_DEF_EVENTS_LEN;
	st->events = calloc(st->events_len, sizeof(*st->events));
	st->psamples_len = c.proc_samples_len;
	if (st->psamples_len)
		st->psamples = calloc(st->psamples_len, sizeof(*st->psamples));
	st->series = series_new(&sc);
	if (!st->events || !st->series || (st->psamples_len && !st->psamples)) {
		/* the series says why it failed; a ring, out of memory */
		err = !st->series && st->events && (st->psamples || !st->psamples_len) ? errno : ENOMEM;
		store_free(st);
		errno = err;
		return NULL;
	}
	st->lines = outlog_new(c.lines_len ? c.lines_len : STORE_LINES, c.lines_bytes ? c.lines_bytes : STORE_LINES_BYTES);
	if (!st->lines) {
		store_free(st);
		errno = ENOMEM;
		return NULL;
	}
	return st;
}

void store_push_sample(struct store *st, const struct sample *s)
{
	pthread_mutex_lock(&st->lock);
	series_push(st->series, s);
	pthread_mutex_unlock(&st->lock);
}

size_t store_query(struct store *st, uint64_t t0_ns, uint64_t t1_ns, struct bucket *out,
		   size_t max_out)
{
	size_t n;

	pthread_mutex_lock(&st->lock);
	n = series_query(st->series, t0_ns, t1_ns, out, max_out);
	pthread_mutex_unlock(&st->lock);
	return n;
}

size_t store_samples(struct store *st, uint64_t *cursor, struct sample *out, size_t max,
		     uint64_t *dropped)
{
	size_t n;

	pthread_mutex_lock(&st->lock);
	n = series_samples(st->series, cursor, out, max, dropped);
	pthread_mutex_unlock(&st->lock);
	return n;
}

int store_span(struct store *st, uint64_t *t0_ns, uint64_t *t1_ns)
{
	int rc;

	pthread_mutex_lock(&st->lock);
	rc = series_span(st->series, t0_ns, t1_ns);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

void store_push_event(struct store *st, const struct store_event *ev)
{
	pthread_mutex_lock(&st->lock);
	st->events[st->nevents % st->events_len] = *ev;
	st->nevents++;
	pthread_mutex_unlock(&st->lock);
}

/* Under the lock: copies ring elements numbered >= *cursor of the n pushed
 * so far (element i at i % len) into out, advancing *cursor. A cursor behind
 * the ring's oldest element jumps forward and the gap is reported as dropped;
 * a cursor beyond the newest copies nothing. */
static size_t store_ring_copy(const void *ring, size_t size, uint32_t len, uint64_t n,
			      uint64_t *cursor, void *out, size_t max, uint64_t *dropped)
{
	uint64_t c = *cursor, skipped = 0, oldest = n > len ? n - len : 0;
	size_t k = 0;

	if (c > n)
		c = n;
	if (c < oldest) {
		skipped = oldest - c;
		c = oldest;
	}
	for (; k < max && c + k < n; k++)
		memcpy((char *)out + k * size, (const char *)ring + ((c + k) % len) * size, size);
	*cursor = c + k;
	if (dropped)
		*dropped = skipped;
	return k;
}

size_t store_events(struct store *st, uint64_t *cursor, struct store_event *out, size_t max,
		    uint64_t *dropped)
{
	size_t k;

	pthread_mutex_lock(&st->lock);
	k = store_ring_copy(st->events, sizeof(*out), st->events_len, st->nevents, cursor, out, max,
			    dropped);
	pthread_mutex_unlock(&st->lock);
	return k;
}

int store_ps_moved(uint64_t was, uint64_t now)
{
	uint64_t d = was > now ? was - now : now - was;

	return d > STORE_PS_MOVE_KIB && (double)d > STORE_PS_MOVE * (double)(was > now ? was : now);
}

void store_push_proc_samples(struct store *st, const struct store_proc_sample *v, size_t n)
{
	if (!st->psamples_len || !n)
		return;
	pthread_mutex_lock(&st->lock);
	for (size_t i = 0; i < n; i++)
		st->psamples[st->npsamples++ % st->psamples_len] = v[i];
	pthread_mutex_unlock(&st->lock);
}

int store_push_line(struct store *st, uint64_t t_ns, const char *bytes, size_t len)
{
	char *copy = malloc(len ? len : 1); /* outside the lock: the collector takes it */

	if (!copy)
		return -ENOMEM;
	memcpy(copy, bytes, len);
	pthread_mutex_lock(&st->lock);
	outlog_push_own(st->lines, t_ns, copy, len);
	pthread_mutex_unlock(&st->lock);
	return 0;
}

ssize_t store_lines_to(struct store *st, uint64_t t_ns, size_t max, struct outlog_line **out, int *cut)
{
	/* sized under the lock, allocated outside it, copied under it again
	 * (lines that came between size it again) */
	*out = NULL;
	*cut = 0;
	for (;;) {
		pthread_mutex_lock(&st->lock);
		size_t cap = outlog_size_to(st->lines, t_ns, max);
		pthread_mutex_unlock(&st->lock);
		void *block = cap ? malloc(cap) : NULL;
		if (cap && !block)
			return -ENOMEM;
		pthread_mutex_lock(&st->lock);
		ssize_t k = outlog_copy_to(st->lines, t_ns, max, block, cap, cut);
		pthread_mutex_unlock(&st->lock);
		if (k == -ENOSPC) {
			free(block);
			continue;
		}
		if (k <= 0)
			free(block);
		else
			*out = block;
		return k;
	}
}

size_t store_proc_samples(struct store *st, uint64_t *cursor, struct store_proc_sample *out,
			  size_t max, uint64_t *dropped)
{
	size_t k = 0;

	pthread_mutex_lock(&st->lock);
	if (st->psamples_len)
		k = store_ring_copy(st->psamples, sizeof(*out), st->psamples_len, st->npsamples,
				    cursor, out, max, dropped);
	else if (dropped)
		*dropped = 0;
	pthread_mutex_unlock(&st->lock);
	return k;
}

/* Under the lock: fills comm from string id, zero-padded ("" for none). */
static void store_str_comm(const struct store *st, uint32_t id, char comm[16])
{
	memset(comm, 0, 16);
	if (id > 0 && id <= st->strs.len) {
		const struct store_str *e = segvec_at(&st->strs, id - 1);

		if (e->len)
			memcpy(comm, e->p, e->len < 16 ? e->len : 16);
	}
}

/* Interns a kernel comm (up to 16 bytes, NUL-padded); 0 for "". */
static uint32_t store_comm_intern(struct store *st, const char comm[16])
{
	size_t len = strnlen(comm, 16);

	return len ? store_str_intern(st, comm, len) : 0;
}

/* Insertion index + 1 of the record with this id, or 0. Under the lock. */
static uint32_t store_proc_find(const struct store *st, uint64_t id)
{
	size_t it = 0;
	uint32_t v;

	while ((v = keymap_next(&st->procmap, id, &it)) != 0)
		if (*(const uint64_t *)segvec_at(&st->ids, v - 1) == id)
			return v;
	return 0;
}

static struct store_live *store_live_at(const struct store *st, uint32_t slot)
{
	return segvec_at(&st->live, slot);
}

/* Under the lock: removes live slot; the last live record moves into it. */
static void store_live_remove(struct store *st, uint32_t slot)
{
	uint32_t last = (uint32_t)st->live.len - 1;

	if (slot != last) {
		struct store_live *to = store_live_at(st, slot);

		*to = *store_live_at(st, last);
		*(uint32_t *)segvec_at(&st->loc, to->seq) = STORE_LOC_LIVE | slot;
	}
	segvec_pop(&st->live);
}

/* Under the lock: stores rec if the memory for it is there. Segment indexes
 * in nd: 0 ids, 1 loc, 2 live, 3 exited, 4 arena. Returns 0 when stored, 1 when
 * nd lists memory to allocate first, 2 when comm_id is wanted first (an update
 * of an exited record that does not end it), or -ENOMEM. */
static int store_proc_apply(struct store *st, struct store_need *nd, const struct proc_rec *rec,
			    uint32_t comm_id, int have_comm)
{
	uint32_t seq1 = store_proc_find(st, rec->id), seq;
	uint32_t *loc = seq1 ? segvec_at(&st->loc, seq1 - 1) : NULL;
	int was_live = loc && (*loc & STORE_LOC_LIVE), need = 0;
	uint8_t pk[RECPACK_MAX], *dst;
	size_t len = 0, oldlen = 0, at;
	struct proc_rec r = *rec;

	if (was_live && !rec->end_ns) {
		store_live_at(st, *loc & ~STORE_LOC_LIVE)->rec = *rec;
		return 0;
	}
	if (loc && !was_live) {
		/* exited already: stays exited, updated in place when it fits */
		struct proc_rec prev;
		uint32_t prev_comm;

		if (!have_comm)
			return 2;
		oldlen = recpack_decode(segvec_at(&st->arena, *loc), st->base_ns, &prev, &prev_comm);
		if (!r.end_ns)
			r.end_ns = prev.end_ns;
	}
	if (r.end_ns) {
		len = recpack_encode(&r, comm_id, st->base_ns, pk);
		if (oldlen && len <= oldlen) {
			memcpy(segvec_at(&st->arena, *loc), pk, len);
			return 0;
		}
		need = store_need_or(need, store_need_seg(nd, 4, &st->arena, len));
		if (!oldlen)
			need = store_need_or(need, store_need_seg(nd, 3, &st->exited, 1));
	}
	if (!loc) {
		need = store_need_or(need, store_need_seg(nd, 0, &st->ids, 1));
		need = store_need_or(need, store_need_seg(nd, 1, &st->loc, 1));
		need = store_need_or(need, store_need_map(nd, &st->procmap, &st->ids, store_key_id));
		if (!r.end_ns)
			need = store_need_or(need, store_need_seg(nd, 2, &st->live, 1));
	}
	if (need)
		return need;
	if (len && segvec_contig(&st->arena, len) + len >= STORE_LOC_LIVE)
		return -ENOMEM; /* 2 GiB of packed records */
	if (!loc) {
		seq = (uint32_t)st->ids.len;
		*(uint64_t *)segvec_push(&st->ids) = r.id;
		loc = segvec_push(&st->loc);
		keymap_put(&st->procmap, r.id, seq + 1);
		if (!r.end_ns) {
			struct store_live *lv = segvec_push(&st->live);

			lv->rec = r;
			lv->seq = seq;
			*loc = STORE_LOC_LIVE | (uint32_t)(st->live.len - 1);
			return 0;
		}
	} else {
		seq = seq1 - 1;
	}
	dst = segvec_push_n(&st->arena, len, &at);
	memcpy(dst, pk, len);
	if (was_live)
		store_live_remove(st, *loc & ~STORE_LOC_LIVE);
	if (!oldlen)
		*(uint32_t *)segvec_push(&st->exited) = seq;
	*loc = (uint32_t)at;
	return 0;
}

/* An update of a live record is one lookup and one copy; an exit packs the
 * record (its comm interned before locking); either may first go round the
 * allocate-outside-the-lock loop. */
int store_proc_update(struct store *st, const struct proc_rec *rec)
{
	struct store_need nd;
	uint32_t comm_id = 0;
	int have_comm = 0, rc;

	if (rec->end_ns) {
		comm_id = store_comm_intern(st, rec->comm);
		have_comm = 1;
	}
	memset(&nd, 0, sizeof(nd));
	pthread_mutex_lock(&st->lock);
	if (!st->base_set) {
		st->base_ns = rec->start_ns;
		st->base_set = 1;
	}
	for (;;) {
		store_need_install_seg(&nd, 0, &st->ids);
		store_need_install_seg(&nd, 1, &st->loc);
		store_need_install_seg(&nd, 2, &st->live);
		store_need_install_seg(&nd, 3, &st->exited);
		store_need_install_seg(&nd, 4, &st->arena);
		store_need_install_map(&nd, &st->procmap, &st->ids);
		store_need_begin(&nd);
		rc = store_proc_apply(st, &nd, rec, comm_id, have_comm);
		if (rc <= 0)
			break;
		pthread_mutex_unlock(&st->lock);
		if (rc == 2) {
			comm_id = store_comm_intern(st, rec->comm);
			have_comm = 1;
			rc = 0;
		} else {
			rc = store_need_alloc(&nd);
		}
		pthread_mutex_lock(&st->lock);
		if (rc)
			break;
	}
	pthread_mutex_unlock(&st->lock);
	store_need_release(&nd);
	return rc;
}

/* Under the lock: the record at insertion index seq, expanded. */
static void store_proc_get(const struct store *st, uint32_t seq, struct proc_rec *out)
{
	uint32_t loc = *(const uint32_t *)segvec_at(&st->loc, seq), comm_id;

	if (loc & STORE_LOC_LIVE) {
		*out = store_live_at(st, loc & ~STORE_LOC_LIVE)->rec;
		return;
	}
	memset(out, 0, sizeof(*out));
	recpack_decode(segvec_at(&st->arena, loc), st->base_ns, out, &comm_id);
	out->id = *(const uint64_t *)segvec_at(&st->ids, seq);
	store_str_comm(st, comm_id, out->comm);
}

size_t store_procs_range(struct store *st, int which, size_t from, struct proc_rec *out,
			 size_t max)
{
	size_t total, k = 0;

	pthread_mutex_lock(&st->lock);
	switch (which) {
	case STORE_PROCS_ALL:
		total = st->ids.len;
		break;
	case STORE_PROCS_LIVE:
		total = st->live.len;
		break;
	case STORE_PROCS_EXITED:
		total = st->exited.len;
		break;
	default:
		total = 0;
	}
	for (; k < max && from < total && k < total - from; k++) {
		size_t i = from + k;

		if (which == STORE_PROCS_LIVE)
			out[k] = store_live_at(st, (uint32_t)i)->rec;
		else if (which == STORE_PROCS_ALL)
			store_proc_get(st, (uint32_t)i, &out[k]);
		else
			store_proc_get(st, *(const uint32_t *)segvec_at(&st->exited, i), &out[k]);
	}
	pthread_mutex_unlock(&st->lock);
	return total;
}

size_t store_live_pids(struct store *st, pid_t *out, size_t max)
{
	pthread_mutex_lock(&st->lock);
	size_t total = st->live.len;
	for (size_t i = 0; i < max && i < total; i++)
		out[i] = store_live_at(st, (uint32_t)i)->rec.pid;
	pthread_mutex_unlock(&st->lock);
	return total;
}

size_t store_procs_at(struct store *st, const uint32_t *idx, size_t n, struct proc_rec *out)
{
	size_t k = 0;

	pthread_mutex_lock(&st->lock);
	for (size_t i = 0; i < n; i++) {
		if (idx[i] < st->ids.len) {
			store_proc_get(st, idx[i], &out[i]);
			k++;
		} else {
			memset(&out[i], 0, sizeof(out[i]));
		}
	}
	pthread_mutex_unlock(&st->lock);
	return k;
}

/* Chunks for the orders that only grow at the end; the live order can move
 * between chunks, and live processes are few, so one hold. */
size_t store_procs(struct store *st, int which, struct proc_rec *out, size_t max)
{
	size_t copied = 0, total;

	if (which == STORE_PROCS_LIVE)
		return store_procs_range(st, which, 0, out, max);
	for (;;) {
		size_t n = max - copied < STORE_PROCS_CHUNK ? max - copied : STORE_PROCS_CHUNK;

		total = store_procs_range(st, which, copied, out ? out + copied : NULL, n);
		if (total <= copied)
			break;
		copied += total - copied < n ? total - copied : n;
		if (copied >= max || copied >= total)
			break;
	}
	return total;
}

/* Appends; without memory the exec is lost (the call cannot fail). */
size_t store_push_exec(struct store *st, const struct store_exec *ex)
{
	struct store_exec_rec r = { .t_ns = ex->t_ns, .pid = ex->pid, .ppid = ex->ppid,
				    .argv_id = ex->argv_id };
	struct store_need nd;
	size_t idx = SIZE_MAX;

	r.comm_id = store_comm_intern(st, ex->comm);
	memset(&nd, 0, sizeof(nd));
	pthread_mutex_lock(&st->lock);
	for (;;) {
		int need;

		store_need_install_seg(&nd, 0, &st->execs);
		store_need_begin(&nd);
		need = store_need_seg(&nd, 0, &st->execs, 1);
		if (need < 0)
			break; /* no memory: the exec is lost, the run goes on */
		if (!need) {
			*(struct store_exec_rec *)segvec_push(&st->execs) = r;
			idx = st->execs.len - 1;
			break;
		}
		pthread_mutex_unlock(&st->lock);
		need = store_need_alloc(&nd);
		pthread_mutex_lock(&st->lock);
		if (need)
			break;
	}
	pthread_mutex_unlock(&st->lock);
	store_need_release(&nd);
	return idx;
}

void store_exec_set_comm(struct store *st, size_t idx, const char comm[16])
{
	uint32_t id = store_comm_intern(st, comm);

	if (!id)
		return; /* the pool refused it: keep whatever name there was */
	pthread_mutex_lock(&st->lock);
	if (idx < st->execs.len)
		((struct store_exec_rec *)segvec_at(&st->execs, idx))->comm_id = id;
	pthread_mutex_unlock(&st->lock);
}

size_t store_execs(struct store *st, size_t from, struct store_exec *out, size_t max)
{
	size_t total;

	pthread_mutex_lock(&st->lock);
	total = st->execs.len;
	for (size_t i = 0; i < max && from < total && i < total - from; i++) {
		const struct store_exec_rec *r = segvec_at(&st->execs, from + i);

		memset(&out[i], 0, sizeof(out[i]));
		out[i].t_ns = r->t_ns;
		out[i].pid = r->pid;
		out[i].ppid = r->ppid;
		out[i].argv_id = r->argv_id;
		store_str_comm(st, r->comm_id, out[i].comm);
	}
	pthread_mutex_unlock(&st->lock);
	return total;
}

/* FNV-1a over the bytes, NULs included, folded to 32 bits; *prefix gets the
 * same of the first STORE_STR_TRUNC bytes, from the same pass. */
static uint32_t store_hash(const char *bytes, size_t len, uint32_t *prefix)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		if (i == STORE_STR_TRUNC)
			*prefix = (uint32_t)(h ^ h >> 32);
		h ^= (unsigned char)bytes[i];
		h *= 0x100000001b3ull;
	}
	if (len <= STORE_STR_TRUNC)
		*prefix = (uint32_t)(h ^ h >> 32);
	return (uint32_t)(h ^ h >> 32);
}

/* Id of the string with these bytes, or 0. Under the lock. */
static uint32_t store_str_find(const struct store *st, uint32_t h, const char *bytes,
			       size_t len)
{
	size_t it = 0;
	uint32_t id;

	while ((id = keymap_next(&st->strmap, h, &it)) != 0) {
		const struct store_str *e = segvec_at(&st->strs, id - 1);

		if (e->hash == h && e->len == len && (len == 0 || memcmp(e->p, bytes, len) == 0))
			return id;
	}
	return 0;
}

/* Whether len more bytes may enter the pool: short strings (a comm) may use
 * the last 1/64 of it, which longer ones leave free. */
static int store_str_room(const struct store *st, size_t len)
{
	size_t limit = len <= STORE_STR_SHORT ? st->str_max : st->str_max - st->str_max / 64;

	return st->str_bytes <= limit && len <= limit - st->str_bytes;
}

/* Under the lock: asks for a chunk when the newest one cannot take len bytes. */
static int store_need_chunk(struct store_need *nd, const struct store *st, size_t len)
{
	if (len == 0 || (st->chunks && st->chunks->cap - st->chunks->used >= len))
		return 0;
	nd->chunk_size = len > STORE_CHUNK_BYTES ? len : STORE_CHUNK_BYTES;
	return 1;
}

/* Under the lock: makes the prepared chunk the newest if it is still needed. */
static void store_install_chunk(struct store_need *nd, struct store *st, size_t len)
{
	if (!nd->chunk || !store_need_chunk(nd, st, len))
		return;
	nd->chunk->next = st->chunks;
	st->chunks = nd->chunk;
	st->chunk_bytes += sizeof(*nd->chunk) + nd->chunk->cap;
	nd->chunk = NULL;
}

/* Under the lock: appends a string the pool has room for (as checked). */
static uint32_t store_str_add(struct store *st, uint32_t h, const char *bytes, size_t len)
{
	struct store_str *e = segvec_push(&st->strs);

	e->p = NULL;
	if (len) {
		e->p = st->chunks->data + st->chunks->used;
		memcpy(st->chunks->data + st->chunks->used, bytes, len);
		st->chunks->used += len;
	}
	e->hash = h;
	e->len = (uint32_t)len;
	st->str_bytes += len;
	keymap_put(&st->strmap, h, (uint32_t)st->strs.len);
	return (uint32_t)st->strs.len;
}

/* The bytes are hashed outside the lock; the copy into the pool is under it
 * (a bounded copy of the caller's bytes). Once the pool is half full, a long
 * string not interned whole before is looked up, or added, as its first
 * STORE_STR_TRUNC bytes. */
uint32_t store_str_intern(struct store *st, const char *bytes, size_t len)
{
	struct store_need nd;
	uint32_t h, hp = 0, id = 0;

	if (len > UINT32_MAX || (!bytes && len))
		return 0;
	h = store_hash(bytes, len, &hp);
	memset(&nd, 0, sizeof(nd));
	pthread_mutex_lock(&st->lock);
	for (;;) {
		size_t use = len;
		uint32_t uh = h;
		int need;

		id = store_str_find(st, h, bytes, len);
		if (id)
			break;
		if (len > STORE_STR_TRUNC && st->str_bytes >= st->str_max / 2) {
			use = STORE_STR_TRUNC;
			uh = hp;
			id = store_str_find(st, uh, bytes, use);
			if (id) {
				st->str_truncated++;
				break;
			}
		}
		if (!store_str_room(st, use)) {
			st->str_dropped++;
			break;
		}
		store_need_install_seg(&nd, 0, &st->strs);
		store_need_install_map(&nd, &st->strmap, &st->strs);
		store_install_chunk(&nd, st, use);
		store_need_begin(&nd);
		need = store_need_seg(&nd, 0, &st->strs, 1);
		need = store_need_or(need, store_need_map(&nd, &st->strmap, &st->strs, store_key_str));
		need = store_need_or(need, store_need_chunk(&nd, st, use));
		if (need < 0) {
			st->str_dropped++;
			break;
		}
		if (!need) {
			id = store_str_add(st, uh, bytes, use);
			st->str_truncated += use < len;
			break;
		}
		pthread_mutex_unlock(&st->lock);
		need = store_need_alloc(&nd);
		pthread_mutex_lock(&st->lock);
		if (need) {
			st->str_dropped++;
			break;
		}
	}
	pthread_mutex_unlock(&st->lock);
	store_need_release(&nd);
	return id;
}

/* Copies at most cap bytes but reports the full length, so a caller can retry. */
ssize_t store_str_get(struct store *st, uint32_t id, char *buf, size_t cap)
{
	ssize_t n = -ENOENT;

	pthread_mutex_lock(&st->lock);
	if (id > 0 && id <= st->strs.len) {
		const struct store_str *e = segvec_at(&st->strs, id - 1);

		if (e->len && cap) /* a caller may ask the length alone (NULL, 0) */
			memcpy(buf, e->p, e->len < cap ? e->len : cap);
		n = e->len;
	}
	pthread_mutex_unlock(&st->lock);
	return n;
}

uint64_t store_str_dropped(struct store *st)
{
	uint64_t n;

	pthread_mutex_lock(&st->lock);
	n = st->str_dropped;
	pthread_mutex_unlock(&st->lock);
	return n;
}

uint64_t store_str_truncated(struct store *st)
{
	uint64_t n;

	pthread_mutex_lock(&st->lock);
	n = st->str_truncated;
	pthread_mutex_unlock(&st->lock);
	return n;
}

void store_summary_set(struct store *st, const struct store_summary *sum)
{
	pthread_mutex_lock(&st->lock);
	st->summary = *sum;
	pthread_mutex_unlock(&st->lock);
}

void store_summary_get(struct store *st, struct store_summary *out)
{
	pthread_mutex_lock(&st->lock);
	*out = st->summary;
	pthread_mutex_unlock(&st->lock);
}

size_t store_mem_bytes(struct store *st)
{
	size_t n;

	pthread_mutex_lock(&st->lock);
	n = sizeof(*st) + series_mem_bytes(st->series);
	n += (size_t)st->events_len * sizeof(*st->events);
	n += (size_t)st->psamples_len * sizeof(*st->psamples);
	n += segvec_mem_bytes(&st->ids) + segvec_mem_bytes(&st->loc);
	n += segvec_mem_bytes(&st->live) + segvec_mem_bytes(&st->exited);
	n += segvec_mem_bytes(&st->arena);
	n += segvec_mem_bytes(&st->execs) + segvec_mem_bytes(&st->strs);
	n += keymap_mem_bytes(&st->procmap) + keymap_mem_bytes(&st->strmap);
	n += st->chunk_bytes;
	pthread_mutex_unlock(&st->lock);
	return n;
}
