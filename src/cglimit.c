/* cglimit.c: the cgroups' room (see cglimit.h). */
#include "cglimit.h"

#include "memwarn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cglimit_level {
	uint64_t limit_kib;
	int usage_fd, stat_fd;
	int v1; /* memory.stat's keys: v1 total_inactive_file, v2 inactive_file */
};

struct cglimit {
	struct cglimit_level l[CGLIMIT_LEVELS];
	int n;
};

/* Reads a small file whole (NUL-terminated) from fd, or path when fd < 0. */
static ssize_t slurp(int fd, const char *path, char *buf, size_t cap)
{
	int own = fd < 0;
	if (own && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	ssize_t n = pread(fd, buf, cap - 1, 0);
	if (own)
		close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* The value of "key N" in a memory.stat text (bytes), 0 when absent. */
static uint64_t stat_value(const char *text, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, k) && p[k] == ' ')
			return strtoull(p + k + 1, NULL, 10);
	return 0;
}

/* Adds the cgroup in dir when it has a limit (file: its limit's name). */
static void add_level(struct cglimit *cl, const char *dir, const char *limit_file, const char *usage_file, int v1)
{
	char path[768], b[4096];
	uint64_t limit;

	if (cl->n == CGLIMIT_LEVELS)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, limit_file);
	ssize_t n = slurp(-1, path, b, sizeof(b));
	if (n <= 0)
		return;
	if (v1) /* the hierarchy's: its own or an ancestor's, the least */
		limit = stat_value(b, "hierarchical_memory_limit");
	else if (memwarn_parse_bytes(b, (size_t)n, &limit) < 0)
		return;
	if (!limit || limit >= (1ull << 60)) /* "max", or v1's page-rounded 2^63 */
		return;
	struct cglimit_level *l = &cl->l[cl->n];
	snprintf(path, sizeof(path), "%s/%s", dir, usage_file);
	l->usage_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	l->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (l->usage_fd < 0) {
		if (l->stat_fd >= 0)
			close(l->stat_fd);
		return;
	}
	l->limit_kib = limit / 1024;
	l->v1 = v1;
	cl->n++;
}

/* Process pid's cgroup path in hierarchy (line prefix "0::" for v2,
 * ":memory:" for v1) into path; 0 or -ENOENT. */
static int cg_path(const char *proc_root, pid_t pid, int v1, char *path, size_t cap)
{
	char file[256], line[1024];
	FILE *f;
	int r = -ENOENT;

	snprintf(file, sizeof(file), "%s/%d/cgroup", proc_root ? proc_root : "/proc", (int)pid);
	if (!(f = fopen(file, "re")))
		return -errno;
	while (r && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		const char *p = v1 ? strstr(line, ":memory:/") : !strncmp(line, "0::/", 4) ? line + 2 : NULL;
		if (!p)
			continue;
		snprintf(path, cap, "%s", v1 ? p + 8 : p + 1);
		r = 0;
	}
	fclose(f);
	return r;
}

/* cgroup v2: the leaf and each ancestor up to the mount's root (in a cgroup
 * namespace, "/" is the container's own cgroup: its memory.max counts). */
static void open_v2(struct cglimit *cl, const char *proc_root, const char *root, pid_t pid)
{
	char mnt[512], dir[1024], rel[768], probe[1100];
	struct stat sb;

	if (cg_path(proc_root, pid, 0, rel, sizeof(rel)) < 0)
		return;
	for (int m = 0; m < 2; m++) { /* pure v2, or hybrid's unified */
		snprintf(mnt, sizeof(mnt), "%s%s", root, m ? "/unified" : "");
		snprintf(probe, sizeof(probe), "%s/cgroup.controllers", mnt);
		if (stat(probe, &sb) == 0)
			break;
		mnt[0] = '\0';
	}
	if (!mnt[0])
		return;
	snprintf(dir, sizeof(dir), "%s%s", mnt, strcmp(rel, "/") ? rel : "");
	for (;;) {
		add_level(cl, dir, "memory.max", "memory.current", 0);
		char *slash = strrchr(dir, '/');
		if (strlen(dir) <= strlen(mnt) || !slash)
			break;
		*slash = '\0';
	}
}

struct cglimit *cglimit_open(const char *proc_root, const char *cg_root, pid_t pid)
{
	struct cglimit *cl = calloc(1, sizeof(*cl));
	const char *root = cg_root ? cg_root : "/sys/fs/cgroup";
	char rel[768], dir[1024];

	if (!cl)
		return NULL;
	open_v2(cl, proc_root, root, pid);
	if (!cl->n && cg_path(proc_root, pid, 1, rel, sizeof(rel)) == 0) {
		snprintf(dir, sizeof(dir), "%s/memory%s", root, strcmp(rel, "/") ? rel : "");
		add_level(cl, dir, "memory.stat", "memory.usage_in_bytes", 1);
	}
	if (!cl->n) {
		free(cl);
		errno = ENOENT;
		return NULL;
	}
	return cl;
}

int cglimit_room(struct cglimit *cl, uint64_t *room_kib, uint64_t *limit_kib)
{
	char b[8192];
	int got = 0;

	for (int i = 0; i < cl->n; i++) {
		const struct cglimit_level *l = &cl->l[i];
		uint64_t usage, inactive = 0;
		ssize_t n = slurp(l->usage_fd, NULL, b, 64);
		if (n <= 0 || memwarn_parse_bytes(b, (size_t)n, &usage) < 0)
			continue;
		if (l->stat_fd >= 0 && slurp(l->stat_fd, NULL, b, sizeof(b)) > 0)
			inactive = stat_value(b, l->v1 ? "total_inactive_file" : "inactive_file");
		uint64_t ws = (usage > inactive ? usage - inactive : 0) / 1024;
		uint64_t room = l->limit_kib > ws ? l->limit_kib - ws : 0;
		if (!got || room < *room_kib) {
			*room_kib = room;
			*limit_kib = l->limit_kib;
		}
		got = 1;
	}
	return got ? 0 : -EIO;
}

void cglimit_close(struct cglimit *cl)
{
	if (!cl)
		return;
	for (int i = 0; i < cl->n; i++) {
		close(cl->l[i].usage_fd);
		if (cl->l[i].stat_fd >= 0)
			close(cl->l[i].stat_fd);
	}
	free(cl);
}
