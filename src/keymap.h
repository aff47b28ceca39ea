/* keymap: open-addressing hash table from a 64-bit key to a nonzero uint32.
 *
 * Several values may share a key (the string pool keys by content hash and
 * compares the bytes itself); keymap_next() walks them. The caller allocates
 * the slot array, so a bigger table can be built outside a lock and swapped in.
 * Not thread-safe by itself. */
#ifndef SPACETIME_KEYMAP_H
#define SPACETIME_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

struct keymap_slot {
	uint64_t key;
	uint32_t val; /* 0 = empty */
};

struct keymap {
	struct keymap_slot *slots; /* cap entries, zeroed when empty */
	size_t cap;                /* a power of two, or 0 */
	size_t used;
};

/* Whether one more value would load the table beyond 3/4 (always when cap is 0). */
int keymap_full(const struct keymap *m);
/* Capacity to grow to: double, at least KEYMAP_MIN_CAP. */
size_t keymap_grown_cap(const struct keymap *m);
#define KEYMAP_MIN_CAP 1024
/* Adds key -> val (val != 0); the table must not be full. */
void keymap_put(struct keymap *m, uint64_t key, uint32_t val);
/* Returns the next value stored under key, or 0 when there are no more. *iter
 * starts at 0 and carries the position between calls. */
uint32_t keymap_next(const struct keymap *m, uint64_t key, size_t *iter);
/* Spreads the bits of a key over the table (also a fair integer hash). */
uint64_t keymap_mix(uint64_t key);

#endif
