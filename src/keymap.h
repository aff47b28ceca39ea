/* keymap: open-addressing hash table from a 64-bit key to a nonzero uint32.
 *
 * A slot is 8 bytes: 32 bits of the key's hash (a tag) and the value; the key
 * itself stays with the caller, who checks each candidate keymap_next()
 * returns (values whose tag matches, so several keys may answer). The caller
 * allocates the slot array, so a bigger table can be built outside a lock and
 * swapped in. The capacity is any size, not a power of two, so a table can be
 * sized to the load it will hold. Not thread-safe by itself. */
#ifndef SPACETIME_KEYMAP_H
#define SPACETIME_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

struct keymap_slot {
	uint32_t tag; /* high half of keymap_mix(key) */
	uint32_t val; /* 0 = empty */
};

struct keymap {
	struct keymap_slot *slots; /* cap entries, zeroed when empty */
	size_t cap;                /* < 2^32, or 0 */
	size_t used;
};

#define KEYMAP_MIN_CAP 1024
/* Whether one more value would load the table beyond 3/4 (always when cap is 0). */
int keymap_full(const struct keymap *m);
/* Capacity to grow to: a load of 3/5 for what it holds plus one, at least
 * KEYMAP_MIN_CAP; 0 when that would reach 2^32 slots. */
size_t keymap_grown_cap(const struct keymap *m);
/* Adds key -> val (val != 0); the table must not be full. */
void keymap_put(struct keymap *m, uint64_t key, uint32_t val);
/* Returns the next value whose tag matches key's, or 0 when there are no more.
 * *iter starts at 0 and carries the position between calls. The caller checks
 * that the value really belongs to key. */
uint32_t keymap_next(const struct keymap *m, uint64_t key, size_t *iter);
/* Spreads the bits of a key over 64 bits (also a fair integer hash). */
uint64_t keymap_mix(uint64_t key);
/* Bytes held by the slots. */
size_t keymap_mem_bytes(const struct keymap *m);

#endif
