/* Unit tests for cglimit on a fake /proc and cgroup tree: the smallest room
 * over the leaf and its ancestors (working set: usage less inactive file
 * pages), a container's own root cgroup ("0::/" in a cgroup namespace),
 * cgroup v1's hierarchical limit, none when nothing is limited. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cglimit.h"
#include "fakeproc.h"

#define MIB (1024ull * 1024)

static void test_v2_ancestors(void **state)
{
	struct fakeproc *f = fp_new(1);
	char cg[128];
	uint64_t room, limit;

	(void)state;
	snprintf(cg, sizeof(cg), "%s/cg", f->root);
	fp_printf(f, "4000001/cgroup", "0::/runner/job\n");
	fp_printf(f, "cg/cgroup.controllers", "cpu memory\n");
	/* the runner: 1 GiB, 900 MiB used of which 300 MiB inactive file */
	fp_printf(f, "cg/runner/memory.max", "%llu\n", 1024 * MIB);
	fp_printf(f, "cg/runner/memory.current", "%llu\n", 900 * MIB);
	fp_printf(f, "cg/runner/memory.stat", "anon 500000\ninactive_file %llu\nactive_file 1\n", 300 * MIB);
	/* the job: no limit of its own */
	fp_printf(f, "cg/runner/job/memory.max", "max\n");
	fp_printf(f, "cg/runner/job/memory.current", "%llu\n", 100 * MIB);
	struct cglimit *cl = cglimit_open(f->root, cg, 4000001);
	assert_non_null(cl);
	assert_int_equal(cglimit_room(cl, &room, &limit), 0);
	assert_int_equal(limit, 1024 * 1024);
	assert_int_equal(room, (1024 - 600) * 1024); /* 1 GiB less the 600 MiB working set */
	cglimit_close(cl);
	/* the job limited to 512 MiB with 400 used: its room binds (112 MiB) */
	fp_printf(f, "cg/runner/job/memory.max", "%llu\n", 512 * MIB);
	fp_printf(f, "cg/runner/job/memory.current", "%llu\n", 400 * MIB);
	cl = cglimit_open(f->root, cg, 4000001);
	assert_int_equal(cglimit_room(cl, &room, &limit), 0);
	assert_int_equal(limit, 512 * 1024);
	assert_int_equal(room, 112 * 1024);
	cglimit_close(cl);
	fp_free(f);
}

static void test_namespace_root_and_v1(void **state)
{
	struct fakeproc *f = fp_new(1);
	char cg[128];
	uint64_t room, limit;

	(void)state;
	snprintf(cg, sizeof(cg), "%s/cg", f->root);
	/* in a container's cgroup namespace: "/" is its own, limited */
	fp_printf(f, "4000002/cgroup", "0::/\n");
	fp_printf(f, "cg/cgroup.controllers", "memory\n");
	fp_printf(f, "cg/memory.max", "%llu\n", 2048 * MIB);
	fp_printf(f, "cg/memory.current", "%llu\n", 48 * MIB);
	struct cglimit *cl = cglimit_open(f->root, cg, 4000002);
	assert_non_null(cl);
	assert_int_equal(cglimit_room(cl, &room, &limit), 0);
	assert_int_equal(room, 2000 * 1024);
	cglimit_close(cl);
	/* no limit anywhere: none */
	fp_printf(f, "cg/memory.max", "max\n");
	errno = 0;
	assert_null(cglimit_open(f->root, cg, 4000002));
	assert_int_equal(errno, ENOENT);
	/* cgroup v1: the hierarchy's limit, usage less total_inactive_file */
	fp_printf(f, "4000003/cgroup", "4:memory:/ci/job\n0::/\n");
	fp_printf(f, "cg1/memory/ci/job/memory.stat",
		  "cache 1\nhierarchical_memory_limit %llu\ntotal_inactive_file %llu\n", 256 * MIB, 56 * MIB);
	fp_printf(f, "cg1/memory/ci/job/memory.usage_in_bytes", "%llu\n", 200 * MIB);
	snprintf(cg, sizeof(cg), "%s/cg1", f->root);
	cl = cglimit_open(f->root, cg, 4000003);
	assert_non_null(cl);
	assert_int_equal(cglimit_room(cl, &room, &limit), 0);
	assert_int_equal(limit, 256 * 1024);
	assert_int_equal(room, 112 * 1024);
	cglimit_close(cl);
	fp_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2_ancestors),
		cmocka_unit_test(test_namespace_root_and_v1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
