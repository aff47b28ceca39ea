/* fuzz_status: procfs_parse_status() on arbitrary bytes: on failure nothing
 * is set; on success each field it sets is the number on its key's line, as
 * a naive scan of a NUL-terminated copy finds it. */
#include "fuzz.h"

#include <errno.h>
#include <limits.h>

#include "procfs.h"

/* The value on the first line starting with key, or -1 (no such line). */
static long long naive(const char *s, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, kl) == 0)
			return strtoll(p + kl, NULL, 10);
	}
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size);
	struct procfs_status st;
	int rc = procfs_parse_status(buf, size, &st);

	if (rc < 0) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(fuzz_zero(&st, sizeof(st)));
	} else if (!memchr(data, 0, size)) {
		char *s = fuzz_copy_str(data, size);

		FUZZ_CHECK(rc == 0);
		if ((st.valid & PROCFS_STATUS_HWM) && st.hwm_kib <= (uint64_t)LLONG_MAX)
			FUZZ_CHECK((long long)st.hwm_kib == naive(s, "VmHWM:"));
		else if (st.valid & PROCFS_STATUS_HWM)
			;
		else
			FUZZ_CHECK(st.hwm_kib == 0 && naive(s, "VmHWM:") < 0);
		if ((st.valid & PROCFS_STATUS_SPLIT) && st.anon_kib <= (uint64_t)LLONG_MAX &&
		    st.file_kib <= (uint64_t)LLONG_MAX && st.shmem_kib <= (uint64_t)LLONG_MAX)
			FUZZ_CHECK((long long)st.anon_kib == naive(s, "RssAnon:") &&
				   (long long)st.file_kib == naive(s, "RssFile:") &&
				   (long long)st.shmem_kib == naive(s, "RssShmem:"));
		free(s);
	}
	free(buf);
	return 0;
}
