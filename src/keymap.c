/* keymap: open-addressing hash table from a 64-bit key to a nonzero uint32. */
#include "keymap.h"

int keymap_full(const struct keymap *m)
{
	return m->cap == 0 || (m->used + 1) * 4 > m->cap * 3;
}

/* Growing from 3/4 to 3/5 is a factor of 1.25: the table stays between 60 and
 * 75 percent full, short probes, little empty space. */
size_t keymap_grown_cap(const struct keymap *m)
{
	size_t want = (m->used + 1) * 5 / 3 + 1;

	if (want < KEYMAP_MIN_CAP)
		want = KEYMAP_MIN_CAP;
	return want >= (size_t)UINT32_MAX ? 0 : want;
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

/* Home slot from the low half of the hash scaled to cap (no modulo, any cap). */
static size_t keymap_home(const struct keymap *m, uint64_t h)
{
	return (size_t)(((h & 0xffffffffu) * (uint64_t)m->cap) >> 32);
}

void keymap_put(struct keymap *m, uint64_t key, uint32_t val)
{
	uint64_t h = keymap_mix(key);
	size_t pos = keymap_home(m, h);

	while (m->slots[pos].val != 0)
		pos = pos + 1 == m->cap ? 0 : pos + 1;
	m->slots[pos].tag = (uint32_t)(h >> 32);
	m->slots[pos].val = val;
	m->used++;
}

/* Linear probing from the key's home slot; the table always has an empty slot
 * (load <= 3/4), so the walk ends. */
uint32_t keymap_next(const struct keymap *m, uint64_t key, size_t *iter)
{
	if (m->cap == 0)
		return 0;
	uint64_t h = keymap_mix(key);
	uint32_t tag = (uint32_t)(h >> 32);
	size_t pos = *iter ? *iter - 1 : keymap_home(m, h);

	while (m->slots[pos].val != 0) {
		size_t here = pos;

		pos = pos + 1 == m->cap ? 0 : pos + 1;
		if (m->slots[here].tag == tag) {
			*iter = pos + 1;
			return m->slots[here].val;
		}
	}
	*iter = pos + 1;
	return 0;
}

size_t keymap_mem_bytes(const struct keymap *m)
{
	return m->cap * sizeof(*m->slots);
}
