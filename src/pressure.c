/* pressure.c: PSI files parsed and read (see pressure.h). */
#include "pressure.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pressure {
	int fd[PRESSURE_NRES];
};

static const char *const pressure_files[PRESSURE_NRES] = {"cpu", "memory", "io"};

/* "total=N" in a line [p, end): N into *v. */
static int total_of(const char *p, const char *end, uint64_t *v)
{
	static const char key[] = "total=";
	for (; p + sizeof(key) - 1 <= end; p++) {
		if (memcmp(p, key, sizeof(key) - 1) != 0)
			continue;
		const char *d = p + sizeof(key) - 1, *s = d;
		uint64_t x = 0;
		for (; d < end && *d >= '0' && *d <= '9'; d++) {
			if (x > (UINT64_MAX - 9) / 10)
				return -EINVAL;
			x = x * 10 + (uint64_t)(*d - '0');
		}
		if (d == s || (d < end && *d != ' ' && *d != '\n'))
			return -EINVAL;
		*v = x;
		return 0;
	}
	return -EINVAL;
}

int pressure_parse(const char *buf, size_t len, struct pressure_line *out)
{
	const char *p = buf, *end = buf + len;
	int some = 0;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		if (eol - p >= 5 && !memcmp(p, "some ", 5)) {
			if (some || total_of(p + 5, eol, &out->some_us))
				return -EINVAL;
			some = 1;
		} else if (eol - p >= 5 && !memcmp(p, "full ", 5)) {
			if (out->has_full || total_of(p + 5, eol, &out->full_us))
				return -EINVAL;
			out->has_full = 1;
		} else if (eol > p) {
			return -EINVAL;
		}
		p = nl ? nl + 1 : end;
	}
	return some ? 0 : -EINVAL;
}

/* Opens dir/NAME.pressure (cgroup) or dir/NAME (/proc/pressure) for each
 * resource, and reads each once: all three or none. */
static int open_all(struct pressure *pr, const char *dir, const char *suffix)
{
	char path[512], buf[256];

	for (int i = 0; i < PRESSURE_NRES; i++) {
		snprintf(path, sizeof(path), "%s/%s%s", dir, pressure_files[i], suffix);
		pr->fd[i] = open(path, O_RDONLY | O_CLOEXEC);
		/* opening succeeds with psi=0 on the command line: reading fails */
		ssize_t n = pr->fd[i] >= 0 ? pread(pr->fd[i], buf, sizeof(buf), 0) : -1;
		struct pressure_line l;
		if (n <= 0 || pressure_parse(buf, (size_t)n, &l) < 0) {
			int e = pr->fd[i] < 0 || n < 0 ? errno : EINVAL;
			for (int j = 0; j <= i; j++)
				if (pr->fd[j] >= 0)
					close(pr->fd[j]);
			return -(e == EOPNOTSUPP ? ENOENT : e ? e : ENOENT);
		}
	}
	return 0;
}

struct pressure *pressure_open(const char *proc_root, const char *cgroup_dir, char *where, size_t cap)
{
	struct pressure *pr = calloc(1, sizeof(*pr));
	char dir[512];
	int r = -ENOENT;

	if (!pr)
		return NULL;
	if (cgroup_dir && (r = open_all(pr, cgroup_dir, ".pressure")) == 0) {
		snprintf(where, cap, "cgroup %s", cgroup_dir);
		return pr;
	}
	snprintf(dir, sizeof(dir), "%s/pressure", proc_root ? proc_root : "/proc");
	if ((r = open_all(pr, dir, "")) == 0) {
		snprintf(where, cap, "%s", dir);
		return pr;
	}
	free(pr);
	errno = -r;
	return NULL;
}

int pressure_read(struct pressure *pr, struct pressure_line out[PRESSURE_NRES])
{
	char buf[256];

	for (int i = 0; i < PRESSURE_NRES; i++) {
		ssize_t n = pread(pr->fd[i], buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		if (pressure_parse(buf, (size_t)n, &out[i]) < 0)
			return -EINVAL;
	}
	return 0;
}

void pressure_close(struct pressure *pr)
{
	if (!pr)
		return;
	for (int i = 0; i < PRESSURE_NRES; i++)
		close(pr->fd[i]);
	free(pr);
}

int pressure_cgroup_dir(const char *proc_root, int pid, const char *cgroup_mnt, char *dir, size_t cap)
{
	static const char *const mnts[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
	char path[256], line[1024];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root ? proc_root : "/proc", pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			found = 1;
			break;
		}
	fclose(f);
	if (!found || !strcmp(line + 3, "/") || line[3] != '/')
		return -ENOENT;
	for (size_t i = 0; i < (cgroup_mnt ? 1 : sizeof(mnts) / sizeof(mnts[0])); i++) {
		struct stat sb;
		snprintf(dir, cap, "%s%s", cgroup_mnt ? cgroup_mnt : mnts[i], line + 3);
		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		if (stat(path, &sb) == 0)
			return 0;
	}
	return -ENOENT;
}
