/* keymap: open-addressing hash table from a 64-bit key to a nonzero uint32. */
#include "keymap.h"

int keymap_full(const struct keymap *m)
{
	return m->cap == 0 || (m->used + 1) * 4 > m->cap * 3;
}

size_t keymap_grown_cap(const struct keymap *m)
{
	return m->cap < KEYMAP_MIN_CAP ? KEYMAP_MIN_CAP : m->cap * 2;
}

/* The splitmix64 finalizer: cheap, and every input bit reaches every output bit. */
uint64_t keymap_mix(uint64_t key)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebull;
	key ^= key >> 31;
	return key;
}

void keymap_put(struct keymap *m, uint64_t key, uint32_t val)
{
	size_t mask = m->cap - 1;
	size_t pos = (size_t)keymap_mix(key) & mask;

	while (m->slots[pos].val != 0)
		pos = (pos + 1) & mask;
	m->slots[pos].key = key;
	m->slots[pos].val = val;
	m->used++;
}

/* Linear probing from the key's home slot; the table always has an empty slot
 * (load <= 3/4), so the walk ends. */
uint32_t keymap_next(const struct keymap *m, uint64_t key, size_t *iter)
{
	if (m->cap == 0)
		return 0;
	size_t mask = m->cap - 1;
	size_t pos = *iter ? *iter - 1 : (size_t)keymap_mix(key) & mask;

	while (m->slots[pos].val != 0) {
		size_t here = pos;

		pos = (pos + 1) & mask;
		if (m->slots[here].key == key) {
			*iter = pos + 1;
			return m->slots[here].val;
		}
	}
	*iter = pos + 1;
	return 0;
}
