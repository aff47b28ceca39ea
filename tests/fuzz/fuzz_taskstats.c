/* fuzz_taskstats: taskstats_parse() on arbitrary datagrams (generic netlink
 * TASKSTATS replies of family 31, the id the seeds and unit tests use), with
 * room for 8 records and for 1. */
#include "fuzz.h"

#include <errno.h>

#include "taskstats.h"

#define ROOM 8
#define FAMILY 31

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size);
	struct taskstats_exit ev[ROOM], one[1];
	size_t ok = 99, ok1 = 99;
	int n, n1;

	/* zeroed: padding compares equal */
	memset(ev, 0, sizeof(ev));
	memset(one, 0, sizeof(one));
	n = taskstats_parse(buf, size, FAMILY, ev, ROOM, &ok);
	n1 = taskstats_parse(buf, size, FAMILY, one, 1, &ok1);

	if (n >= 0)
		FUZZ_CHECK(n <= ROOM && ok == (size_t)n);
	else
		FUZZ_CHECK((n == -EINVAL || n == -ENOSPC) && ok <= ROOM);
	for (size_t i = 0; i < ok; i++) {
		FUZZ_CHECK(ev[i].aggr_tgid == 0 || ev[i].aggr_tgid == 1);
		if (ev[i].aggr_tgid)
			FUZZ_CHECK(ev[i].pid == ev[i].tgid);
		FUZZ_CHECK(memchr(ev[i].comm, '\0', sizeof(ev[i].comm)) != NULL);
	}
	if (ok >= 1) {
		FUZZ_CHECK(ok1 == 1);
		FUZZ_CHECK(memcmp(&one[0], &ev[0], sizeof(ev[0])) == 0);
		if (ok > 1 || n == -ENOSPC)
			FUZZ_CHECK(n1 == -ENOSPC);
		else
			FUZZ_CHECK(n1 == n);
	} else {
		FUZZ_CHECK(ok1 == 0 && n1 == n);
	}
	free(buf);
	return 0;
}
