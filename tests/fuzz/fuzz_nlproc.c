/* fuzz_nlproc: nlproc_parse() on arbitrary datagrams (proc connector
 * messages), with room for 8 events and for 1. */
#include "fuzz.h"

#include <errno.h>

#include "nlproc.h"

#define ROOM 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size);
	struct nlproc_event ev[ROOM], one[1];
	size_t ok = 99, ok1 = 99;
	int n, n1;

	/* zeroed: padding compares equal */
	memset(ev, 0, sizeof(ev));
	memset(one, 0, sizeof(one));
	n = nlproc_parse(buf, size, ev, ROOM, &ok);
	n1 = nlproc_parse(buf, size, one, 1, &ok1);

	if (n >= 0) {
		FUZZ_CHECK(n <= ROOM && ok == (size_t)n);
	} else {
		/* -EINVAL, -ENOSPC, or an NLMSG_ERROR's errno (1 .. 4095) */
		FUZZ_CHECK(n > -4096 && ok <= ROOM);
	}
	for (size_t i = 0; i < ok; i++) {
		FUZZ_CHECK(ev[i].type >= NLPROC_FORK && ev[i].type <= NLPROC_ACK);
		if (ev[i].type == NLPROC_ACK)
			FUZZ_CHECK(ev[i].pid == 0 && ev[i].tgid == 0);
	}
	/* Less room: the same first event, then -ENOSPC if there were more. */
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
