/* Unit tests for segvec (segments that double, then stay at the biggest size)
 * and keymap (tagged slots, any capacity). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "segvec.h"

/* Installs the next segment; returns its size in bytes. */
static size_t grow(struct segvec *v)
{
	size_t n = segvec_next_bytes(v);
	void *seg = n ? malloc(n) : NULL;

	assert_non_null(seg);
	segvec_add_seg(v, seg);
	return n;
}

/* Elements land where segvec_at says, across the doubling segments and the
 * capped ones, and never move. */
static void test_segvec_layout(void **state)
{
	(void)state;
	struct segvec v;
	const size_t N = 300000;
	size_t bytes = 0;

	segvec_init(&v, sizeof(uint64_t), 4);
	/* 16, 32, ... up to 256 KiB of uint64_t (32768), then 32768 each */
	assert_int_equal(v.shiftmax, 15);
	assert_int_equal(segvec_cap(&v), 0);
	assert_null(segvec_push(&v));
	while (segvec_cap(&v) < N)
		bytes += grow(&v);
	assert_int_equal(bytes, segvec_mem_bytes(&v));
	assert_int_equal(segvec_next_bytes(&v), (size_t)32768 * 8);
	/* doubling: 16 * (2^12 - 1) = 65520 elements in 12 segments; then 8 of 32768 */
	assert_int_equal(v.nseg, 12 + 8);
	assert_int_equal(segvec_cap(&v), 65520 + 8 * 32768);
	for (size_t i = 0; i < N; i++) {
		uint64_t *p = segvec_push(&v);

		assert_non_null(p);
		assert_ptr_equal(p, segvec_at(&v, i));
		*p = i * 3;
	}
	for (size_t i = 0; i < N; i++)
		assert_int_equal(*(uint64_t *)segvec_at(&v, i), i * 3);
	/* neighbours within a segment are adjacent; across a boundary they need not be */
	assert_ptr_equal((uint64_t *)segvec_at(&v, 65520 + 32768 + 5) + 1,
			 segvec_at(&v, 65520 + 32768 + 6));
	segvec_pop(&v);
	assert_int_equal(v.len, N - 1);
	segvec_free(&v);
	assert_int_equal(segvec_cap(&v), 0);
	assert_int_equal(v.shiftmax, 15);

	/* elements bigger than the cap's share: the first segment size stays */
	segvec_init(&v, (size_t)1 << 20, 0);
	assert_int_equal(v.shiftmax, 0);
	assert_int_equal(segvec_next_bytes(&v), (size_t)1 << 20);
}

/* Contiguous runs never straddle segments: the tail of a segment too short is
 * skipped. */
static void test_segvec_contig(void **state)
{
	(void)state;
	struct segvec v;
	size_t at, total = 0;

	segvec_init(&v, 1, 4); /* bytes: 16, 32, 64, ... */
	assert_int_equal(segvec_contig(&v, 1), SIZE_MAX);
	grow(&v);
	assert_non_null(segvec_push_n(&v, 10, &at));
	assert_int_equal(at, 0);
	assert_int_equal(segvec_contig(&v, 6), 10);
	assert_int_equal(segvec_contig(&v, 7), SIZE_MAX); /* 6 left, no next segment */
	grow(&v);
	assert_int_equal(segvec_contig(&v, 7), 16); /* skips to the next */
	assert_non_null(segvec_push_n(&v, 7, &at));
	assert_int_equal(at, 16);
	assert_int_equal(v.len, 23);
	assert_int_equal(segvec_contig(&v, 25), 23); /* segment 1 is [16, 48) */
	assert_int_equal(segvec_contig(&v, 26), SIZE_MAX);
	segvec_free(&v);

	/* many runs of 1..16 bytes: each contiguous, in order, none lost */
	segvec_init(&v, 1, 4);
	for (size_t k = 0; k < 20000; k++) {
		size_t n = 1 + k % 16;
		uint8_t *p;

		if (segvec_contig(&v, n) == SIZE_MAX)
			grow(&v);
		p = segvec_push_n(&v, n, &at);
		assert_non_null(p);
		assert_true(at >= total);
		for (size_t j = 0; j < n; j++)
			assert_ptr_equal(p + j, segvec_at(&v, at + j));
		memset(p, (int)(k & 0xff), n);
		total = at + n;
	}
	assert_int_equal(v.len, total);
	segvec_free(&v);
}

/* Every key is found among its candidates, absent keys mostly get none, and
 * the table holds to its load at any capacity. */
static void test_keymap(void **state)
{
	(void)state;
	struct keymap m = { 0 };
	const uint32_t N = 100000;
	uint64_t *keys = calloc(N + 1, sizeof(*keys));

	assert_true(keymap_full(&m));
	assert_int_equal(keymap_grown_cap(&m), KEYMAP_MIN_CAP);
	for (uint32_t i = 1; i <= N; i++) {
		keys[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull;
		if (keymap_full(&m)) {
			/* rebuild at the grown capacity, as the store does */
			struct keymap g = { 0 };

			g.cap = keymap_grown_cap(&m);
			assert_true(g.cap > m.cap);
			g.slots = calloc(g.cap, sizeof(*g.slots));
			for (uint32_t j = 1; j < i; j++)
				keymap_put(&g, keys[j], j);
			free(m.slots);
			m = g;
			assert_true(m.used * 5 <= m.cap * 3 + 5); /* about 3/5 after growing */
		}
		keymap_put(&m, keys[i], i);
		assert_true(m.used * 4 <= m.cap * 3);
	}
	assert_int_equal(keymap_mem_bytes(&m), m.cap * 8);
	assert_true(m.cap < (size_t)N * 5 / 3 * 5 / 4 + 2); /* never more than 1.25 x 5/3 */
	size_t false_hits = 0;
	for (uint32_t i = 1; i <= N; i++) {
		size_t it = 0;
		uint32_t v, found = 0;

		while ((v = keymap_next(&m, keys[i], &it)) != 0)
			found |= v == i;
		assert_true(found);
		it = 0;
		while ((v = keymap_next(&m, keys[i] + 1, &it)) != 0)
			false_hits++;
	}
	assert_true(false_hits < 10); /* a 32-bit tag: about N * probes / 2^32 */
	/* duplicate keys: every value comes back */
	struct keymap d = { calloc(KEYMAP_MIN_CAP, sizeof(struct keymap_slot)), KEYMAP_MIN_CAP, 0 };
	for (uint32_t i = 1; i <= 5; i++)
		keymap_put(&d, 42, i);
	size_t it = 0;
	uint32_t sum = 0, v;
	while ((v = keymap_next(&d, 42, &it)) != 0)
		sum += v;
	assert_int_equal(sum, 15);
	free(d.slots);
	free(m.slots);
	free(keys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segvec_layout),
		cmocka_unit_test(test_segvec_contig),
		cmocka_unit_test(test_keymap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
