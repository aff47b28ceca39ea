/* fuzz_statm: procfs_parse_statm() on arbitrary bytes, checked against
 * strtoull() on a NUL-terminated copy. */
#include "fuzz.h"

#include <errno.h>

#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size);
	struct procfs_statm sm;
	int rc = procfs_parse_statm(buf, size, &sm);

	if (rc < 0) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(fuzz_zero(&sm, sizeof(sm)));
	} else {
		/* Seven numbers separated by single spaces, maybe a newline. */
		char *s = fuzz_copy_str(data, size), *p = s;
		unsigned long long v[7];

		FUZZ_CHECK(rc == 0);
		for (int i = 0; i < 7; i++) {
			char *end;

			FUZZ_CHECK(*p >= '0' && *p <= '9');
			errno = 0;
			v[i] = strtoull(p, &end, 10);
			FUZZ_CHECK(errno == 0);
			FUZZ_CHECK(i == 6 || *end == ' ');
			p = end + (i < 6);
		}
		FUZZ_CHECK(*p == '\0' || (p[0] == '\n' && p[1] == '\0'));
		FUZZ_CHECK(sm.size_pages == v[0] && sm.resident_pages == v[1] &&
			   sm.shared_pages == v[2] && sm.text_pages == v[3] && sm.data_pages == v[5]);
		free(s);
	}
	free(buf);
	return 0;
}
