/* store_need: the store's way of growing without allocating under its lock. */
#include "store_need.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Under the lock, before working out what is missing: forgets earlier asks. */
void store_need_begin(struct store_need *nd)
{
	memset(nd->seg_bytes, 0, sizeof(nd->seg_bytes));
	nd->map_cap = 0;
	nd->chunk_size = 0;
}

/* Outside the lock: frees whatever was allocated and not installed. */
void store_need_release(struct store_need *nd)
{
	for (int i = 0; i < STORE_NEED_NSEGS; i++) {
		free(nd->seg[i]);
		nd->seg[i] = NULL;
	}
	free(nd->map.slots);
	memset(&nd->map, 0, sizeof(nd->map));
	free(nd->chunk);
	nd->chunk = NULL;
}

/* Under the lock: asks for the next segment of v if n more contiguous
 * elements do not fit. Returns 1 when one is needed, 0 when not, -ENOMEM when
 * v cannot grow. */
int store_need_seg(struct store_need *nd, int i, const struct segvec *v, size_t n)
{
	if (segvec_contig(v, n) != SIZE_MAX)
		return 0;
	if (v->len >= UINT32_MAX || !segvec_next_bytes(v))
		return -ENOMEM;
	nd->seg_bytes[i] = segvec_next_bytes(v);
	nd->seg_no[i] = v->nseg;
	return 1;
}

/* Under the lock: asks for a bigger map if m is full, to be built outside it
 * from the first keys->len entries of keys (written once, they never change). */
int store_need_map(struct store_need *nd, const struct keymap *m,
		   const struct segvec *keys, uint64_t (*key)(const void *))
{
	if (!keymap_full(m))
		return 0;
	nd->map_cap = keymap_grown_cap(m);
	if (!nd->map_cap)
		return -ENOMEM;
	nd->keys = keys;
	nd->map_from = keys->len;
	nd->key = key;
	return 1;
}

/* Folds one ask into the running answer: the first -ENOMEM sticks. */
int store_need_or(int need, int one)
{
	return need < 0 ? need : one < 0 ? one : need | one;
}

/* Outside the lock: drops leftovers, allocates what was asked for and fills
 * the new map. */
int store_need_alloc(struct store_need *nd)
{
	store_need_release(nd);
	for (int i = 0; i < STORE_NEED_NSEGS; i++) {
		if (nd->seg_bytes[i] && !(nd->seg[i] = malloc(nd->seg_bytes[i])))
			return -ENOMEM;
	}
	if (nd->map_cap) {
		/* cleared here, not by calloc: fresh memory calloc leaves
		 * untouched, and the probes below would read each page (a fault
		 * mapping the zero page) before writing it (a second fault) */
		nd->map.slots = malloc(nd->map_cap * sizeof(*nd->map.slots));
		if (!nd->map.slots)
			return -ENOMEM;
		memset(nd->map.slots, 0, nd->map_cap * sizeof(*nd->map.slots));
		nd->map.cap = nd->map_cap;
		for (size_t i = 0; i < nd->map_from; i++)
			keymap_put(&nd->map, nd->key(segvec_at(nd->keys, i)), (uint32_t)(i + 1));
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
void store_need_install_seg(struct store_need *nd, int i, struct segvec *v)
{
	if (nd->seg[i] && v->nseg == nd->seg_no[i]) {
		segvec_add_seg(v, nd->seg[i]);
		nd->seg[i] = NULL;
	}
}

/* Under the lock: swaps in the rebuilt map if it is still the bigger one,
 * first adding the entries appended since the snapshot. The old slots go back
 * into nd to be freed after unlocking. */
void store_need_install_map(struct store_need *nd, struct keymap *m,
			    const struct segvec *keys)
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

