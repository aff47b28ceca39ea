/* store: the one object shared between the collector and the UI.
 *
 * One mutex guards everything; it is held only for bounded copies. Growing
 * tables (process records, execs, strings, hash maps) never allocate under it:
 * a writer notes what is missing, unlocks, allocates (and rebuilds a hash map
 * from write-once key arrays), relocks and installs what is still missing,
 * then retries. Arrays are segmented (segvec), so nothing already stored moves. */
#include "store.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "segvec.h"
#include "series.h"

#define STORE_DEF_TIER0_LEN 4096
#define STORE_DEF_NTIERS 4
#define STORE_DEF_TIER_FACTOR 10
#define STORE_DEF_TIER_LEN 4096
#define STORE_DEF_EVENTS_LEN 65536
#define STORE_DEF_BASE_NS 100000000ull
#define STORE_DEF_STRPOOL_MAX ((size_t)64 << 20)
#define STORE_CHUNK_BYTES ((size_t)256 << 10)

/* One interned string. Entries are written once, so a map rebuild may read
 * them outside the lock. */
struct store_str {
	const char *p; /* in a chunk; NULL when len is 0 */
	uint64_t hash;
	uint32_t len;
};

/* String bytes live in chunks that are never moved or freed before the store. */
struct store_chunk {
	struct store_chunk *next;
	size_t cap, used;
	char data[];
};

struct store {
	pthread_mutex_t lock;
	struct series *series;

	struct store_event *events;
	uint32_t events_len;
	uint64_t nevents; /* pushed so far; event i sits at i % events_len */

	struct segvec recs;    /* struct proc_rec, in insertion order */
	struct segvec ids;     /* uint64_t recs[i].id, written once */
	struct keymap procmap; /* id -> index + 1 */
	size_t nlive;          /* records with end_ns == 0 */

	struct segvec execs; /* struct store_exec */

	struct segvec strs;    /* struct store_str; id = index + 1 */
	struct keymap strmap;  /* content hash -> id */
	struct store_chunk *chunks; /* newest first; bytes are appended to the head */
	size_t chunk_bytes, str_bytes, str_max;
	uint64_t str_dropped;

	struct store_summary summary;
};

/* Memory a writer allocated outside the lock for one insertion: up to two
 * array segments, a rebuilt hash map, a string chunk. Whatever is not
 * installed (another writer got there first) is freed after unlocking. */
#define STORE_NSEGS 2
struct store_need {
	void *seg[STORE_NSEGS];
	size_t seg_bytes[STORE_NSEGS]; /* to allocate; 0 = nothing */
	unsigned seg_no[STORE_NSEGS];  /* the segment index it becomes */

	size_t map_cap;       /* to build; 0 = nothing */
	struct segvec keys;   /* snapshot of the key array to build it from */
	size_t map_from;      /* keys [0, map_from) went into map */
	uint64_t (*key)(const void *elem);
	struct keymap map;

	size_t chunk_size; /* to allocate; 0 = nothing */
	struct store_chunk *chunk;
};

static uint64_t store_key_id(const void *elem)
{
	return *(const uint64_t *)elem;
}

static uint64_t store_key_str(const void *elem)
{
	return ((const struct store_str *)elem)->hash;
}

/* Under the lock, before working out what is missing: forgets earlier asks. */
static void store_need_begin(struct store_need *nd)
{
	memset(nd->seg_bytes, 0, sizeof(nd->seg_bytes));
	nd->map_cap = 0;
	nd->chunk_size = 0;
}

/* Outside the lock: frees whatever was allocated and not installed. */
static void store_need_release(struct store_need *nd)
{
	for (int i = 0; i < STORE_NSEGS; i++) {
		free(nd->seg[i]);
		nd->seg[i] = NULL;
	}
	free(nd->map.slots);
	memset(&nd->map, 0, sizeof(nd->map));
	free(nd->chunk);
	nd->chunk = NULL;
}

/* Under the lock: asks for the next segment of v if v is full. Returns 1 when
 * one is needed, 0 when not, -ENOMEM when v cannot grow. */
static int store_need_seg(struct store_need *nd, int i, const struct segvec *v)
{
	if (v->len < segvec_cap(v))
		return 0;
	if (v->len >= UINT32_MAX || !segvec_next_bytes(v))
		return -ENOMEM;
	nd->seg_bytes[i] = segvec_next_bytes(v);
	nd->seg_no[i] = v->nseg;
	return 1;
}

/* Under the lock: asks for a bigger map if m is full, to be built from the
 * first keys->len entries of keys (a snapshot: those entries never change). */
static int store_need_map(struct store_need *nd, const struct keymap *m,
			  const struct segvec *keys, uint64_t (*key)(const void *))
{
	if (!keymap_full(m))
		return 0;
	nd->map_cap = keymap_grown_cap(m);
	nd->keys = *keys;
	nd->map_from = keys->len;
	nd->key = key;
	return 1;
}

/* Outside the lock: drops leftovers, allocates what was asked for and fills
 * the new map. */
static int store_need_alloc(struct store_need *nd)
{
	store_need_release(nd);
	for (int i = 0; i < STORE_NSEGS; i++) {
		if (nd->seg_bytes[i] && !(nd->seg[i] = malloc(nd->seg_bytes[i])))
			return -ENOMEM;
	}
	if (nd->map_cap) {
		nd->map.slots = calloc(nd->map_cap, sizeof(*nd->map.slots));
		if (!nd->map.slots)
			return -ENOMEM;
		nd->map.cap = nd->map_cap;
		for (size_t i = 0; i < nd->map_from; i++)
			keymap_put(&nd->map, nd->key(segvec_at(&nd->keys, i)), (uint32_t)(i + 1));
	}
	if (nd->chunk_size) {
		nd->chunk = malloc(sizeof(*nd->chunk) + nd->chunk_size);
		if (!nd->chunk)
			return -ENOMEM;
		nd->chunk->cap = nd->chunk_size;
		nd->chunk->used = 0;
	}
	return 0;
}

/* Under the lock: installs segment i into v if v still lacks exactly it. */
static void store_install_seg(struct store_need *nd, int i, struct segvec *v)
{
	if (nd->seg[i] && v->nseg == nd->seg_no[i]) {
		segvec_add_seg(v, nd->seg[i]);
		nd->seg[i] = NULL;
	}
}

/* Under the lock: swaps in the rebuilt map if it is still the bigger one,
 * first adding the entries appended since the snapshot. The old slots go back
 * into nd to be freed after unlocking. */
static void store_install_map(struct store_need *nd, struct keymap *m, const struct segvec *keys)
{
	struct keymap old;

	if (!nd->map.slots || nd->map.cap <= m->cap)
		return;
	for (size_t i = nd->map_from; i < keys->len; i++)
		keymap_put(&nd->map, nd->key(segvec_at(keys, i)), (uint32_t)(i + 1));
	old = *m;
	*m = nd->map;
	nd->map = old;
}

void store_free(struct store *st)
{
	if (!st)
		return;
	series_free(st->series);
	free(st->events);
	segvec_free(&st->recs);
	segvec_free(&st->ids);
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
	segvec_init(&st->recs, sizeof(struct proc_rec), 8);
	segvec_init(&st->ids, sizeof(uint64_t), 8);
	segvec_init(&st->execs, sizeof(struct store_exec), 8);
	segvec_init(&st->strs, sizeof(struct store_str), 10);
	st->str_max = c.strpool_max_bytes ? c.strpool_max_bytes : STORE_DEF_STRPOOL_MAX;
	st->events_len = c.events_len ? c.events_len : STORE_DEF_EVENTS_LEN;
	st->events = calloc(st->events_len, sizeof(*st->events));
	st->series = series_new(&sc);
	if (!st->events || !st->series) {
		err = st->events ? errno : ENOMEM;
		store_free(st);
		errno = err;
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

/* A cursor behind the ring's oldest event jumps forward and the gap is reported
 * as dropped; a cursor beyond the newest copies nothing. */
size_t store_events(struct store *st, uint64_t *cursor, struct store_event *out, size_t max,
		    uint64_t *dropped)
{
	uint64_t c = *cursor, skipped = 0, oldest, n;
	size_t k = 0;

	pthread_mutex_lock(&st->lock);
	n = st->nevents;
	oldest = n > st->events_len ? n - st->events_len : 0;
	if (c > n)
		c = n;
	if (c < oldest) {
		skipped = oldest - c;
		c = oldest;
	}
	for (; k < max && c + k < n; k++)
		out[k] = st->events[(c + k) % st->events_len];
	pthread_mutex_unlock(&st->lock);
	*cursor = c + k;
	if (dropped)
		*dropped = skipped;
	return k;
}

/* Index + 1 of the record with this id, or 0. Under the lock. */
static uint32_t store_proc_find(const struct store *st, uint64_t id)
{
	size_t it = 0;

	return keymap_next(&st->procmap, id, &it);
}

/* An update of a known id is one lookup and one copy; an insert may first go
 * round the allocate-outside-the-lock loop. */
int store_proc_update(struct store *st, const struct proc_rec *rec)
{
	struct store_need nd;
	int rc = 0;

	memset(&nd, 0, sizeof(nd));
	pthread_mutex_lock(&st->lock);
	for (;;) {
		uint32_t idx = store_proc_find(st, rec->id);
		int need;

		if (idx) {
			struct proc_rec *r = segvec_at(&st->recs, idx - 1);

			if (r->end_ns == 0 && rec->end_ns != 0)
				st->nlive--;
			else if (r->end_ns != 0 && rec->end_ns == 0)
				st->nlive++;
			*r = *rec;
			break;
		}
		store_install_seg(&nd, 0, &st->recs);
		store_install_seg(&nd, 1, &st->ids);
		store_install_map(&nd, &st->procmap, &st->ids);
		store_need_begin(&nd);
		need = store_need_seg(&nd, 0, &st->recs);
		if (need >= 0)
			need |= store_need_seg(&nd, 1, &st->ids);
		if (need >= 0)
			need |= store_need_map(&nd, &st->procmap, &st->ids, store_key_id);
		if (need < 0) {
			rc = -ENOMEM;
			break;
		}
		if (!need) {
			*(struct proc_rec *)segvec_push(&st->recs) = *rec;
			*(uint64_t *)segvec_push(&st->ids) = rec->id;
			keymap_put(&st->procmap, rec->id, (uint32_t)st->recs.len);
			st->nlive += rec->end_ns == 0;
			break;
		}
		pthread_mutex_unlock(&st->lock);
		rc = store_need_alloc(&nd);
		pthread_mutex_lock(&st->lock);
		if (rc)
			break;
	}
	pthread_mutex_unlock(&st->lock);
	store_need_release(&nd);
	return rc;
}

/* Copies in insertion order and stops as soon as max, or every match, is
 * copied; a which other than 0, 1, 2 matches nothing. */
size_t store_procs(struct store *st, int which, struct proc_rec *out, size_t max)
{
	size_t total, copied = 0;

	pthread_mutex_lock(&st->lock);
	switch (which) {
	case 0:
		total = st->recs.len;
		break;
	case 1:
		total = st->nlive;
		break;
	case 2:
		total = st->recs.len - st->nlive;
		break;
	default:
		total = 0;
	}
	for (size_t i = 0; i < st->recs.len && copied < max && copied < total; i++) {
		const struct proc_rec *r = segvec_at(&st->recs, i);

		if (which == 0 || (which == 1) == (r->end_ns == 0))
			out[copied++] = *r;
	}
	pthread_mutex_unlock(&st->lock);
	return total;
}

/* Appends; without memory the exec is lost (the call cannot fail). */
void store_push_exec(struct store *st, const struct store_exec *ex)
{
	struct store_need nd;

	memset(&nd, 0, sizeof(nd));
	pthread_mutex_lock(&st->lock);
	for (;;) {
		int need;

		store_install_seg(&nd, 0, &st->execs);
		store_need_begin(&nd);
		need = store_need_seg(&nd, 0, &st->execs);
		if (need < 0)
			break; /* no memory: the exec is lost, the run goes on */
		if (!need) {
			*(struct store_exec *)segvec_push(&st->execs) = *ex;
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
}

size_t store_execs(struct store *st, size_t from, struct store_exec *out, size_t max)
{
	size_t total;

	pthread_mutex_lock(&st->lock);
	total = st->execs.len;
	for (size_t i = 0; i < max && from < total && i < total - from; i++)
		out[i] = *(const struct store_exec *)segvec_at(&st->execs, from + i);
	pthread_mutex_unlock(&st->lock);
	return total;
}

/* FNV-1a over the bytes, NULs included. */
static uint64_t store_hash(const char *bytes, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)bytes[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Id of the string with these bytes, or 0. Under the lock. */
static uint32_t store_str_find(const struct store *st, uint64_t h, const char *bytes,
			       size_t len)
{
	size_t it = 0;
	uint32_t id;

	while ((id = keymap_next(&st->strmap, h, &it)) != 0) {
		const struct store_str *e = segvec_at(&st->strs, id - 1);

		if (e->len == len && (len == 0 || memcmp(e->p, bytes, len) == 0))
			return id;
	}
	return 0;
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

/* The bytes are hashed outside the lock; the copy into the pool is under it
 * (a bounded copy of the caller's bytes). */
uint32_t store_str_intern(struct store *st, const char *bytes, size_t len)
{
	struct store_need nd;
	uint64_t h;
	uint32_t id = 0;

	if (len > UINT32_MAX || (!bytes && len))
		return 0;
	h = store_hash(bytes, len);
	memset(&nd, 0, sizeof(nd));
	pthread_mutex_lock(&st->lock);
	for (;;) {
		int need;

		id = store_str_find(st, h, bytes, len);
		if (id)
			break;
		if (len > st->str_max - st->str_bytes) {
			st->str_dropped++;
			break;
		}
		store_install_seg(&nd, 0, &st->strs);
		store_install_map(&nd, &st->strmap, &st->strs);
		store_install_chunk(&nd, st, len);
		store_need_begin(&nd);
		need = store_need_seg(&nd, 0, &st->strs);
		if (need >= 0)
			need |= store_need_map(&nd, &st->strmap, &st->strs, store_key_str);
		if (need >= 0)
			need |= store_need_chunk(&nd, st, len);
		if (need < 0) {
			st->str_dropped++;
			break;
		}
		if (!need) {
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
			id = (uint32_t)st->strs.len;
			keymap_put(&st->strmap, h, id);
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

		if (e->len)
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
	n += segvec_mem_bytes(&st->recs) + segvec_mem_bytes(&st->ids);
	n += segvec_mem_bytes(&st->execs) + segvec_mem_bytes(&st->strs);
	n += (st->procmap.cap + st->strmap.cap) * sizeof(struct keymap_slot);
	n += st->chunk_bytes;
	pthread_mutex_unlock(&st->lock);
	return n;
}
