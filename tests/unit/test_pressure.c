/* Unit tests for pressure (PSI files parsed, opened, a cgroup found) and the
 * collector's pressure job (coll_psi) on a fake /proc with the injected
 * clock: stall shares per mille of the interval, the run's totals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fakeproc.h"
#include "pressure.h"

#define MS 1000000ull

static void test_parse(void **state)
{
	struct pressure_line l;
	static const char mem[] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=290931779\n"
				  "full avg10=0.00 avg60=0.00 avg300=0.00 total=208943317\n";
	static const char cpu_old[] = "some avg10=2.38 avg60=1.85 avg300=3.08 total=9820154218\n";
	static const char *bad[] = {
		"", "hello\n", "full avg10=0.00 total=1\n", /* no some line */
		"some avg10=0.00 avg60=0.00 avg300=0.00\n", /* no total */
		"some avg10=0.00 total=12x\n", "some total=99999999999999999999999\n",
		"some total=1\nsome total=2\n", "some total=1\nfull total=2\nfull total=3\n",
	};

	(void)state;
	assert_int_equal(pressure_parse(mem, sizeof(mem) - 1, &l), 0);
	assert_int_equal(l.some_us, 290931779);
	assert_int_equal(l.full_us, 208943317);
	assert_true(l.has_full);
	/* before 5.13 cpu has no full line */
	assert_int_equal(pressure_parse(cpu_old, sizeof(cpu_old) - 1, &l), 0);
	assert_int_equal(l.some_us, 9820154218ull);
	assert_false(l.has_full);
	assert_int_equal(l.full_us, 0);
	/* without its last newline, cut after the number */
	assert_int_equal(pressure_parse(mem, 55, &l), 0);
	assert_int_equal(l.some_us, 290931779);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pressure_parse(bad[i], strlen(bad[i]), &l), -EINVAL);
}

/* Writes the three PSI files under root/pressure: cpu, memory (some, full), io. */
static void psi_files(struct fakeproc *f, uint64_t cpu, uint64_t mem, uint64_t mem_full, uint64_t io)
{
	fp_printf(f, "pressure/cpu", "some avg10=0.00 avg60=0.00 avg300=0.00 total=%" PRIu64 "\n"
				      "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", cpu);
	fp_printf(f, "pressure/memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=%" PRIu64 "\n"
					"full avg10=0.00 avg60=0.00 avg300=0.00 total=%" PRIu64 "\n", mem, mem_full);
	fp_printf(f, "pressure/io", "some avg10=0.00 avg60=0.00 avg300=0.00 total=%" PRIu64 "\n"
				     "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", io);
}

/* Each tick: the share of the interval stalled; the summary: the run's totals
 * since the first read and the highest memory stall. No PSI: none, said. */
static void test_coll_psi(void **state)
{
	struct fakeproc *f = fp_new(1);
	struct sample s;

	(void)state;
	assert_int_equal(f->c->sum.psi, 0); /* no files: the kernel has no PSI */
	psi_files(f, 1000000, 500000, 100000, 7000);
	coll_psi_free(f->c);
	coll_psi_start(f->c, 0);
	assert_int_equal(f->c->sum.psi, 1);
	memset(&s, 0, sizeof(s));
	coll_psi_tick(f->c, &s, f->now_ns);
	assert_int_equal(s.valid & SAMPLE_PSI, 0); /* the first read: nothing to compare */
	/* 100 ms later: cpu stalled 50 ms, memory 20 ms (all tasks 5 ms), io 0 */
	f->now_ns += 100 * MS;
	psi_files(f, 1050000, 520000, 105000, 7000);
	memset(&s, 0, sizeof(s));
	coll_psi_tick(f->c, &s, f->now_ns);
	assert_true(s.valid & SAMPLE_PSI);
	assert_int_equal(s.psi_cpu_pm, 500);
	assert_int_equal(s.psi_mem_pm, 200);
	assert_int_equal(s.psi_mem_full_pm, 50);
	assert_int_equal(s.psi_io_pm, 0);
	/* a fast tick 20 ms on, memory stalled all of it: noise over so short
	 * a time, the last shares stand (the totals take it) */
	f->now_ns += 20 * MS;
	psi_files(f, 1050000, 540000, 105000, 7000);
	memset(&s, 0, sizeof(s));
	coll_psi_tick(f->c, &s, f->now_ns);
	assert_int_equal(s.psi_mem_pm, 200);
	assert_int_equal(f->c->sum.psi_mem_us, 40000);
	f->now_ns -= 20 * MS;
	psi_files(f, 1050000, 520000, 105000, 7000);
	/* 200 ms more: memory stalled 10 ms; a counter past the interval is 100% */
	f->now_ns += 200 * MS;
	psi_files(f, 1050000 + 900000, 530000, 105000, 7000);
	memset(&s, 0, sizeof(s));
	coll_psi_tick(f->c, &s, f->now_ns);
	assert_int_equal(s.psi_mem_pm, 50);
	assert_int_equal(s.psi_cpu_pm, 1000);
	assert_int_equal(f->c->sum.psi_mem_us, 30000);
	assert_int_equal(f->c->sum.psi_mem_full_us, 5000);
	assert_int_equal(f->c->sum.psi_cpu_us, 950000);
	assert_int_equal(f->c->sum.psi_io_us, 0);
	assert_int_equal(f->c->sum.psi_mem_max_pm, 200);
	fp_free(f);
}

/* The command's own cgroup (v2): found from its cgroup file under a mount
 * that has it; the root cgroup or v1 only: none. */
static void test_cgroup_dir(void **state)
{
	struct fakeproc *f = fp_new(1);
	char dir[512], mnt[128], where[600];

	(void)state;
	snprintf(mnt, sizeof(mnt), "%s/cg", f->root);
	fp_printf(f, "4000001/cgroup", "4:memory:/x\n0::/build/job\n");
	fp_printf(f, "cg/build/job/cgroup.procs", "4000001\n");
	assert_int_equal(pressure_cgroup_dir(f->root, 4000001, mnt, dir, sizeof(dir)), 0);
	assert_non_null(strstr(dir, "/cg/build/job"));
	/* its pressure files are read first */
	fp_printf(f, "cg/build/job/cpu.pressure", "some total=1\nfull total=0\n");
	fp_printf(f, "cg/build/job/memory.pressure", "some total=2\nfull total=1\n");
	fp_printf(f, "cg/build/job/io.pressure", "some total=3\nfull total=0\n");
	struct pressure *pr = pressure_open(f->root, dir, where, sizeof(where));
	assert_non_null(pr);
	assert_non_null(strstr(where, "cgroup "));
	struct pressure_line l[PRESSURE_NRES];
	assert_int_equal(pressure_read(pr, l), 0);
	assert_int_equal(l[PRESSURE_MEMORY].some_us, 2);
	pressure_close(pr);
	/* the root cgroup, and v1 only: none of its own */
	fp_printf(f, "4000002/cgroup", "0::/\n");
	assert_int_equal(pressure_cgroup_dir(f->root, 4000002, mnt, dir, sizeof(dir)), -ENOENT);
	fp_printf(f, "4000003/cgroup", "4:memory:/x\n");
	assert_int_equal(pressure_cgroup_dir(f->root, 4000003, mnt, dir, sizeof(dir)), -ENOENT);
	/* no PSI anywhere */
	errno = 0;
	assert_null(pressure_open(f->root, NULL, where, sizeof(where)));
	assert_int_equal(errno, ENOENT);
	fp_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_coll_psi),
		cmocka_unit_test(test_cgroup_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
