/* Unit tests for recpack: exited records packed and unpacked exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "recpack.h"

/* A cheap deterministic generator (xorshift64). */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A value of a random magnitude: zero, small, or any 64 bits. */
static uint64_t rnd_val(uint64_t *s)
{
	uint64_t v = rnd(s);

	switch (v % 4) {
	case 0:
		return 0;
	case 1:
		return v >> 57;
	case 2:
		return v >> (v % 64);
	default:
		return rnd(s);
	}
}

/* Packs r, unpacks it and checks every field but the ones not kept. */
static size_t roundtrip(const struct proc_rec *r, uint32_t comm_id, uint64_t base)
{
	uint8_t buf[RECPACK_MAX + 16];
	struct proc_rec got, want = *r;
	uint32_t cid = 12345;
	size_t n;

	memset(buf, 0xee, sizeof(buf));
	n = recpack_encode(r, comm_id, base, buf);
	assert_true(n >= 1 && n <= RECPACK_MAX);
	assert_int_equal(buf[n], 0xee); /* nothing written past the length */
	memset(&got, 0x5a, sizeof(got));
	assert_int_equal(recpack_decode(buf, base, &got, &cid), n);
	assert_int_equal(cid, comm_id);
	/* left for the caller: id and comm */
	assert_memory_equal(got.comm, "ZZZZZZZZZZZZZZZZ", 16);
	got.id = want.id;
	memcpy(got.comm, want.comm, sizeof(want.comm));
	want.pss_kib = want.rss_kib = want.pss_age_ns = 0;
	assert_int_equal(got.pid, want.pid);
	assert_int_equal(got.ppid, want.ppid);
	assert_true(got.start_ns == want.start_ns);
	assert_true(got.end_ns == want.end_ns);
	assert_true(got.peak_pss_t_ns == want.peak_pss_t_ns);
	assert_int_equal(got.exit_status, want.exit_status);
	assert_memory_equal(&got.argv_id, &want.argv_id, sizeof(got.argv_id));
	assert_true(got.peak_pss_kib == want.peak_pss_kib);
	assert_true(got.utime_us == want.utime_us);
	assert_true(got.minflt == want.minflt);
	assert_int_equal(got.pss_kib, 0);
	assert_int_equal(got.rss_kib, 0);
	assert_int_equal(got.pss_age_ns, 0);
	/* and the whole struct, padding aside */
	assert_memory_equal(&got, &want, offsetof(struct proc_rec, valid) + sizeof(want.valid));
	return n;
}

static void test_typical(void **state)
{
	(void)state;
	struct proc_rec r;
	uint64_t base = 3600ull * 1000000000ull;

	memset(&r, 0, sizeof(r));
	r.id = 4242;
	r.pid = 123456;
	r.ppid = 123400;
	r.start_ns = base + 5400ull * 1000000000ull + 123; /* 1.5 h into the run */
	r.end_ns = r.start_ns + 7000000000ull;            /* lived 7 s */
	r.argv_id = 70000;
	r.exit_status = 1 << 8;
	r.threads = 4;
	r.nexec = 1;
	r.pss_kib = 99999;
	r.rss_kib = 99999;
	r.pss_age_ns = 99999;
	r.peak_pss_kib = 150000;
	r.peak_pss_t_ns = r.start_ns + 3000000000ull;
	r.peak_rss_kib = 180000;
	r.utime_us = 6500000;
	r.stime_us = 400000;
	r.minflt = 120000;
	r.majflt = 3;
	r.valid = PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS | PROC_V_EXIT |
		  PROC_V_ARGV;
	size_t n = roundtrip(&r, 7, base);
	print_message("    a typical exited process packs into %zu bytes\n", n);
	assert_true(n <= 56); /* every field known, none zero: still well under 72 */
	/* nothing known: the header only */
	memset(&r, 0, sizeof(r));
	assert_int_equal(roundtrip(&r, 0, base), 1);
}

static void test_extremes(void **state)
{
	(void)state;
	struct proc_rec r;

	memset(&r, 0xff, sizeof(r)); /* every bit set: -1 pids, UINT64_MAX times */
	assert_true(roundtrip(&r, UINT32_MAX, 0) <= RECPACK_MAX);
	assert_true(roundtrip(&r, UINT32_MAX, UINT64_MAX) <= RECPACK_MAX);
	memset(&r, 0, sizeof(r));
	r.pid = INT32_MIN;
	r.ppid = INT32_MAX;
	r.start_ns = 1;
	r.end_ns = UINT64_MAX; /* the largest difference either way */
	r.peak_pss_t_ns = 2;
	r.exit_status = INT32_MIN;
	roundtrip(&r, 1, UINT64_MAX);
	r.start_ns = UINT64_MAX;
	r.end_ns = 1; /* before the start */
	roundtrip(&r, 1, 0);
}

static void test_random(void **state)
{
	(void)state;
	uint64_t s = 0x123456789abcdefull;

	for (int k = 0; k < 200000; k++) {
		struct proc_rec r;

		memset(&r, 0, sizeof(r));
		r.id = rnd(&s);
		r.pid = (pid_t)rnd_val(&s);
		r.ppid = (pid_t)rnd_val(&s);
		r.start_ns = rnd_val(&s);
		r.end_ns = rnd_val(&s);
		r.argv_id = (uint32_t)rnd_val(&s);
		r.exit_status = (int)rnd_val(&s);
		r.threads = (uint32_t)rnd_val(&s);
		r.nexec = (uint32_t)rnd_val(&s);
		r.pss_kib = rnd_val(&s);
		r.rss_kib = rnd_val(&s);
		r.peak_pss_kib = rnd_val(&s);
		r.peak_pss_t_ns = rnd_val(&s);
		r.peak_rss_kib = rnd_val(&s);
		r.pss_age_ns = rnd_val(&s);
		r.utime_us = rnd_val(&s);
		r.stime_us = rnd_val(&s);
		r.minflt = rnd_val(&s);
		r.majflt = rnd_val(&s);
		r.wait_cpu_us = rnd_val(&s);
		r.wait_io_us = rnd_val(&s);
		r.valid = (uint32_t)rnd_val(&s);
		roundtrip(&r, (uint32_t)rnd_val(&s), rnd_val(&s));
	}
}

/* Records packed one after another decode one after another. */
static void test_stream(void **state)
{
	(void)state;
	uint8_t buf[64 * RECPACK_MAX];
	size_t off[64], pos = 0;
	struct proc_rec r, got;
	uint32_t cid;

	for (int i = 0; i < 64; i++) {
		memset(&r, 0, sizeof(r));
		r.pid = i;
		r.start_ns = 1000 + (uint64_t)i;
		r.end_ns = r.start_ns + (uint64_t)i * 1000000007ull;
		r.minflt = (uint64_t)1 << i;
		off[i] = pos;
		pos += recpack_encode(&r, (uint32_t)i, 1000, buf + pos);
	}
	for (int i = 63; i >= 0; i--) {
		size_t n = recpack_decode(buf + off[i], 1000, &got, &cid);

		assert_int_equal(off[i] + n, i == 63 ? pos : off[i + 1]);
		assert_int_equal(got.pid, i);
		assert_int_equal(cid, i);
		assert_true(got.minflt == (uint64_t)1 << i);
		assert_true(got.end_ns == 1000 + (uint64_t)i + (uint64_t)i * 1000000007ull);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_typical),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
