/* fuzz_smaps_rollup: procfs_parse_smaps_rollup() on arbitrary bytes. */
#include "fuzz.h"

#include <errno.h>

#include "procfs.h"

#define ROLLUP_ALL                                                                      \
	(PROCFS_ROLLUP_RSS | PROCFS_ROLLUP_PSS | PROCFS_ROLLUP_SPLIT | PROCFS_ROLLUP_SWAP | \
	 PROCFS_ROLLUP_ANON | PROCFS_ROLLUP_PRIVATE | PROCFS_ROLLUP_THP | PROCFS_ROLLUP_LOCKED)

static void check(const struct procfs_rollup *r, int rc)
{
	if (rc < 0) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(fuzz_zero(r, sizeof(*r)));
		return;
	}
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(r->valid & PROCFS_ROLLUP_PSS);
	FUZZ_CHECK((r->valid & ~(uint32_t)ROLLUP_ALL) == 0);
	/* A field without its valid bit is 0. */
	if (!(r->valid & PROCFS_ROLLUP_RSS))
		FUZZ_CHECK(r->rss_kib == 0);
	if (!(r->valid & PROCFS_ROLLUP_SWAP))
		FUZZ_CHECK(r->swap_kib == 0);
	if (!(r->valid & PROCFS_ROLLUP_ANON))
		FUZZ_CHECK(r->anon_kib == 0);
	if (!(r->valid & PROCFS_ROLLUP_THP))
		FUZZ_CHECK(r->thp_kib == 0);
	if (!(r->valid & PROCFS_ROLLUP_LOCKED))
		FUZZ_CHECK(r->locked_kib == 0);
	if (!(r->valid & PROCFS_ROLLUP_SPLIT))
		FUZZ_CHECK(r->pss_anon_kib == 0 && r->pss_file_kib == 0 && r->pss_shmem_kib == 0);
	if (r->valid & PROCFS_ROLLUP_PRIVATE) {
		/* The sum is the sum, never a wrapped one. */
		FUZZ_CHECK(r->private_kib >= r->private_clean_kib);
		FUZZ_CHECK(r->private_kib - r->private_clean_kib == r->private_dirty_kib);
	} else {
		FUZZ_CHECK(r->private_kib == 0 && r->private_clean_kib == 0 &&
			   r->private_dirty_kib == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size);
	struct procfs_rollup r, r2;
	int rc = procfs_parse_smaps_rollup(buf, size, &r);

	check(&r, rc);
	free(buf);

	/* A trailing newline is an empty line: the same result. */
	buf = malloc(size + 1);
	FUZZ_CHECK(buf != NULL);
	memcpy(buf, data, size);
	buf[size] = '\n';
	FUZZ_CHECK(procfs_parse_smaps_rollup(buf, size + 1, &r2) == rc);
	FUZZ_CHECK(memcmp(&r, &r2, sizeof(r)) == 0);
	free(buf);
	return 0;
}
