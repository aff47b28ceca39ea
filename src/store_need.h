/* store_need: the store's way of growing without allocating under its lock.
 *
 * Under the lock a writer works out what is missing (array segments, a bigger
 * hash map, a string chunk) into a struct store_need; it unlocks, allocates
 * (building the new map from a snapshot of write-once keys), relocks, installs
 * what is still missing, and retries. Whatever is not installed (another
 * writer got there first) is freed after unlocking. Private to store.c. */
#ifndef SPACETIME_STORE_NEED_H
#define SPACETIME_STORE_NEED_H

#include <stddef.h>
#include <stdint.h>

#include "keymap.h"
#include "segvec.h"

/* String bytes live in chunks that are never moved or freed before the store. */
struct store_chunk {
	struct store_chunk *next;
	size_t cap, used;
	char data[];
};

/* Memory a writer asks for, then holds, for one insertion: array segments
 * (each caller gives every segvec it grows a fixed index), a rebuilt hash map,
 * a string chunk. */
#define STORE_NEED_NSEGS 5
struct store_need {
	void *seg[STORE_NEED_NSEGS];
	size_t seg_bytes[STORE_NEED_NSEGS]; /* to allocate; 0 = nothing */
	unsigned seg_no[STORE_NEED_NSEGS];  /* the segment index it becomes */

	size_t map_cap;       /* to build; 0 = nothing */
	const struct segvec *keys; /* the key array to build it from: its first
				    * map_from entries, and their segments, never change */
	size_t map_from;      /* keys [0, map_from) went into map */
	uint64_t (*key)(const void *elem);
	struct keymap map;

	size_t chunk_size; /* to allocate; 0 = nothing */
	struct store_chunk *chunk;
};

/* Under the lock, before working out what is missing: forgets earlier asks. */
void store_need_begin(struct store_need *nd);

/* Outside the lock: frees whatever was allocated and not installed. */
void store_need_release(struct store_need *nd);

/* Under the lock: asks for the next segment of v if n more contiguous
 * elements do not fit. Returns 1 when one is needed, 0 when not, -ENOMEM when
 * v cannot grow. */
int store_need_seg(struct store_need *nd, int i, const struct segvec *v, size_t n);

/* Under the lock: asks for a bigger map if m is full, to be built outside it
 * from the first keys->len entries of keys (written once, they never change). */
int store_need_map(struct store_need *nd, const struct keymap *m,
		   const struct segvec *keys, uint64_t (*key)(const void *));

/* Folds one ask into the running answer: the first -ENOMEM sticks. */
int store_need_or(int need, int one);

/* Outside the lock: drops leftovers, allocates what was asked for and fills
 * the new map. */
int store_need_alloc(struct store_need *nd);

/* Under the lock: installs segment i into v if v still lacks exactly it. */
void store_need_install_seg(struct store_need *nd, int i, struct segvec *v);

/* Under the lock: swaps in the rebuilt map if it is still the bigger one,
 * first adding the entries appended since the snapshot. The old slots go back
 * into nd to be freed after unlocking. */
void store_need_install_map(struct store_need *nd, struct keymap *m,
			    const struct segvec *keys);

#endif
