/* fuzz_stat: procfs_parse_stat() and procfs_parse_stat_args() on arbitrary
 * bytes. */
#include "fuzz.h"

#include <errno.h>
#include <limits.h>

#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size);
	struct procfs_stat st;
	int rc = procfs_parse_stat(buf, size, &st);

	if (rc < 0) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(fuzz_zero(&st, sizeof(st)));
	} else {
		const char *lp, *rp = NULL;
		size_t clen;

		FUZZ_CHECK(rc == 0);
		FUZZ_CHECK(st.pid >= 0 && st.ppid >= 0);
		FUZZ_CHECK(st.state != ' ' && st.state != '\n');
		/* comm: the bytes between the first " (" and the last ')', cut to
		 * 15 and NUL-terminated. */
		FUZZ_CHECK(memchr(st.comm, '\0', sizeof(st.comm)) != NULL);
		lp = memchr(buf, '(', size);
		FUZZ_CHECK(lp && lp > buf && lp[-1] == ' ');
		lp++;
		for (const char *p = buf + size; p > lp; p--)
			if (p[-1] == ')') {
				rp = p - 1;
				break;
			}
		FUZZ_CHECK(rp != NULL);
		clen = (size_t)(rp - lp) < sizeof(st.comm) - 1 ? (size_t)(rp - lp) : sizeof(st.comm) - 1;
		FUZZ_CHECK(memcmp(st.comm, lp, clen) == 0);
		/* The pid is the leading decimal number. */
		char *s = fuzz_copy_str(data, size), *end;
		unsigned long long pid = strtoull(s, &end, 10);
		FUZZ_CHECK(s[0] >= '0' && s[0] <= '9' && end - s == lp - 2 - buf && pid == (unsigned long long)st.pid);
		free(s);
	}
	{
		uint64_t a = 1, b = 1;
		int ra = procfs_parse_stat_args(buf, size, &a, &b);

		/* refused: both 0; taken: an area that does not end before it starts */
		FUZZ_CHECK(ra == 0 || ra == -EINVAL);
		FUZZ_CHECK(ra == 0 ? a <= b : (a == 0 && b == 0));
		/* the args bounds lie past what parse_stat reads: a line it
		 * refuses for a bad comm is refused here too */
		if (ra == 0)
			FUZZ_CHECK(memchr(buf, ')', size) != NULL);
	}
	free(buf);
	return 0;
}
