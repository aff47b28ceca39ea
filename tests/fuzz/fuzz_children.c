/* fuzz_children: procfs_parse_children() on arbitrary bytes with several
 * capacities, and procfs_read_children() on the same bytes in a memfd (its
 * buffer and pid array growth). */
#include "fuzz.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "procfs.h"

static int memfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = memfd_create("fuzz_children", MFD_CLOEXEC);
	if (memfd < 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size);
	int n0 = procfs_parse_children(buf, size, NULL, 0);
	pid_t few[4], *all = NULL;
	int n4 = procfs_parse_children(buf, size, few, 4);

	FUZZ_CHECK(n0 >= 0 || n0 == -EINVAL);
	FUZZ_CHECK(n4 == n0); /* the count does not depend on the room */
	if (n0 > 0) {
		all = malloc((size_t)n0 * sizeof(*all));
		FUZZ_CHECK(all != NULL);
		FUZZ_CHECK(procfs_parse_children(buf, size, all, (size_t)n0) == n0);
		for (int i = 0; i < n0; i++) {
			FUZZ_CHECK(all[i] > 0);
			if (i < 4)
				FUZZ_CHECK(all[i] == few[i]);
		}
	}

	/* The reader, from a file of these bytes, starting from nothing. */
	char *rbuf = NULL;
	pid_t *pids = NULL;
	size_t rcap = 0, pcap = 0;
	FUZZ_CHECK(ftruncate(memfd, 0) == 0);
	FUZZ_CHECK(pwrite(memfd, data, size, 0) == (ssize_t)size);
	int nr = procfs_read_children(memfd, &rbuf, &rcap, &pids, &pcap);
	FUZZ_CHECK(nr == n0);
	if (n0 > 0) {
		FUZZ_CHECK(pcap >= (size_t)n0);
		FUZZ_CHECK(memcmp(pids, all, (size_t)n0 * sizeof(*all)) == 0);
	}
	free(rbuf);
	free(pids);
	free(all);
	free(buf);
	return 0;
}
