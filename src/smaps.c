/* smaps.c: /proc/PID/smaps parsed into pmap's groups. The parser never reads
 * past len and needs no NUL terminator; a text cut short (a process that
 * exited while read) loses its last mapping, never gives a wrong figure. */
#include "smaps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const field_keys[SMAPS_FIELDS] = {
	[SMAPS_SIZE] = "Size",
	[SMAPS_RSS] = "Rss",
	[SMAPS_PSS] = "Pss",
	[SMAPS_SHARED_CLEAN] = "Shared_Clean",
	[SMAPS_SHARED_DIRTY] = "Shared_Dirty",
	[SMAPS_PRIVATE_CLEAN] = "Private_Clean",
	[SMAPS_PRIVATE_DIRTY] = "Private_Dirty",
	[SMAPS_ANONYMOUS] = "Anonymous",
	[SMAPS_SWAP] = "Swap",
	[SMAPS_SWAP_PSS] = "SwapPss",
	[SMAPS_ANON_HUGE] = "AnonHugePages",
	[SMAPS_FILE_PMD] = "FilePmdMapped",
	[SMAPS_SHMEM_PMD] = "ShmemPmdMapped",
	[SMAPS_LOCKED] = "Locked",
};

static const char *const field_names[SMAPS_FIELDS] = {
	[SMAPS_SIZE] = "Size",
	[SMAPS_RSS] = "RSS",
	[SMAPS_PSS] = "PSS",
	[SMAPS_SHARED_CLEAN] = "Shr clean",
	[SMAPS_SHARED_DIRTY] = "Shr dirty",
	[SMAPS_PRIVATE_CLEAN] = "Priv clean",
	[SMAPS_PRIVATE_DIRTY] = "Priv dirty",
	[SMAPS_ANONYMOUS] = "Anon",
	[SMAPS_SWAP] = "Swap",
	[SMAPS_SWAP_PSS] = "Swap PSS",
	[SMAPS_ANON_HUGE] = "Huge anon",
	[SMAPS_FILE_PMD] = "Huge file",
	[SMAPS_SHMEM_PMD] = "Huge shmem",
	[SMAPS_LOCKED] = "Locked",
};

const char *smaps_field_name(enum smaps_field f)
{
	return (unsigned)f < SMAPS_FIELDS ? field_names[f] : "?";
}

const char *smaps_kind_name(enum smaps_kind k)
{
	static const char *const n[SMAPS_KINDS] = {"binary", "library", "heap", "stack",
						   "anonymous", "shared memory", "file", "kernel"};
	return (unsigned)k < SMAPS_KINDS ? n[k] : "?";
}

/* One mapping as parsed: its header's name and the figures seen so far. */
struct map {
	const char *name;
	size_t name_len;
	int shared; /* perms' 4th letter is 's' */
	uint64_t kib[SMAPS_FIELDS];
	uint32_t seen;
	int open; /* a header was read, its VmFlags (or next header) not yet */
};

struct parser {
	struct smaps_view *v;
	const char *exe;
	size_t exe_len;
	int vmflags; /* some mapping ended with VmFlags: every one must */
	size_t last; /* the group the previous mapping went to */
	struct map m;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Hex digits from *p (at least one): advances *p past them. */
static int hex_run(const char **p, const char *end)
{
	const char *s = *p;

	while (*p < end && hexval(**p) >= 0)
		(*p)++;
	return *p > s ? 0 : -1;
}

/* Whether the line is a mapping's header: "start-end perms offset dev inode [name]". */
static int is_header(const char *l, const char *eol)
{
	const char *p = l;

	return hex_run(&p, eol) == 0 && p < eol && *p == '-';
}

/* Parses a header into m: its perms and name ("" for anonymous memory). */
static int parse_header(const char *l, const char *eol, struct map *m)
{
	const char *p = l;

	memset(m, 0, sizeof(*m));
	if (hex_run(&p, eol) || p >= eol || *p++ != '-' || hex_run(&p, eol) || p >= eol || *p++ != ' ')
		return -EINVAL;
	if (eol - p < 5 || p[4] != ' ')
		return -EINVAL;
	m->shared = p[3] == 's';
	p += 5;
	/* offset, dev (major:minor), inode */
	if (hex_run(&p, eol) || p >= eol || *p++ != ' ')
		return -EINVAL;
	if (hex_run(&p, eol) || p >= eol || *p++ != ':' || hex_run(&p, eol) || p >= eol || *p++ != ' ')
		return -EINVAL;
	const char *inode = p;
	while (p < eol && *p >= '0' && *p <= '9')
		p++;
	if (p == inode || (p < eol && *p != ' '))
		return -EINVAL;
	while (p < eol && *p == ' ')
		p++;
	m->name = p;
	m->name_len = (size_t)(eol - p);
	m->open = 1;
	return 0;
}

/* The index of a "Key:" of a figure, -1 for a key spacetime does not use. */
static int field_of(const char *key, size_t n)
{
	for (int i = 0; i < SMAPS_FIELDS; i++)
		if (strlen(field_keys[i]) == n && memcmp(field_keys[i], key, n) == 0)
			return i;
	return -1;
}

/* "Key:   123 kB" into m; other lines of a mapping (VmFlags, THPeligible)
 * are left to the caller. */
static int parse_field(const char *l, const char *colon, const char *eol, struct map *m)
{
	int f = field_of(l, (size_t)(colon - l));
	const char *p = colon + 1;
	uint64_t v = 0;

	if (f < 0)
		return 0;
	while (p < eol && *p == ' ')
		p++;
	const char *d = p;
	for (; p < eol && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == d || eol - p < 3 || memcmp(p, " kB", 3) != 0 || (m->seen & (1u << f)))
		return -EINVAL;
	m->kib[f] = v;
	m->seen |= 1u << f;
	return 0;
}

/* Strips " (deleted)" off a name: returns 1 when it was there. */
static int strip_deleted(const char *name, size_t *len)
{
	static const char del[] = " (deleted)";
	size_t d = sizeof(del) - 1;

	if (*len >= d && memcmp(name + *len - d, del, d) == 0) {
		*len -= d;
		return 1;
	}
	return 0;
}

static int has_prefix(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);
	return n >= k && memcmp(s, pre, k) == 0;
}

/* A shared library: ".so" at the end of the name or before a '.' (libc.so.6). */
static int is_library(const char *s, size_t n)
{
	for (size_t i = 0; i + 3 <= n; i++)
		if (memcmp(s + i, ".so", 3) == 0 && (i + 3 == n || s[i + 3] == '.'))
			return 1;
	return 0;
}

/* The kind of a mapping, and the name its group goes by (into name). */
static enum smaps_kind classify(const struct parser *ps, const struct map *m, char *name, int *deleted)
{
	size_t n = m->name_len;
	const char *s = m->name;
	enum smaps_kind k;

	*deleted = strip_deleted(s, &n);
	if (n == 0) {
		snprintf(name, SMAPS_NAME_MAX, "%s", m->shared ? "[shared anon]" : "[anon]");
		return m->shared ? SMAPS_SHMEM : SMAPS_ANON;
	}
	if (s[0] == '[') {
		if (has_prefix(s, n, "[heap]"))
			k = SMAPS_HEAP;
		else if (has_prefix(s, n, "[stack"))
			k = SMAPS_STACK;
		else if (has_prefix(s, n, "[anon"))
			k = m->shared ? SMAPS_SHMEM : SMAPS_ANON;
		else
			k = SMAPS_KERNEL;
	} else if (has_prefix(s, n, "/SYSV") || has_prefix(s, n, "/dev/shm/") || has_prefix(s, n, "/memfd:") ||
		   has_prefix(s, n, "/dev/zero")) {
		k = SMAPS_SHMEM;
	} else if (ps->exe_len && n == ps->exe_len && memcmp(s, ps->exe, n) == 0) {
		k = SMAPS_BINARY;
	} else {
		k = is_library(s, n) ? SMAPS_LIB : SMAPS_FILE;
	}
	snprintf(name, SMAPS_NAME_MAX, "%.*s", (int)(n < SMAPS_NAME_MAX - 1 ? n : SMAPS_NAME_MAX - 1), s);
	return k;
}

/* The group of (kind, name), made when new: the previous mapping's first
 * (a library's mappings come one after another). */
static struct smaps_group *group_of(struct parser *ps, enum smaps_kind k, const char *name, int deleted)
{
	struct smaps_view *v = ps->v;

	if (ps->last < v->n && v->g[ps->last].kind == k && !strcmp(v->g[ps->last].name, name))
		return &v->g[ps->last];
	for (size_t i = 0; i < v->n; i++)
		if (v->g[i].kind == k && !strcmp(v->g[i].name, name)) {
			ps->last = i;
			return &v->g[i];
		}
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 32;
		struct smaps_group *g = realloc(v->g, cap * sizeof(*g));
		if (!g)
			return NULL;
		v->g = g;
		v->cap = cap;
	}
	struct smaps_group *g = &v->g[v->n];
	memset(g, 0, sizeof(*g));
	g->kind = k;
	g->deleted = deleted;
	snprintf(g->name, sizeof(g->name), "%s", name);
	ps->last = v->n++;
	return g;
}

/* The mapping read whole: into its group and the totals. */
static int map_done(struct parser *ps)
{
	char name[SMAPS_NAME_MAX];
	int deleted;
	struct map *m = &ps->m;
	enum smaps_kind k = classify(ps, m, name, &deleted);
	struct smaps_group *g = group_of(ps, k, name, deleted);

	if (!g)
		return -ENOMEM;
	for (int f = 0; f < SMAPS_FIELDS; f++) {
		g->kib[f] += m->kib[f];
		ps->v->total.kib[f] += m->kib[f];
	}
	g->nmaps++;
	ps->v->total.nmaps++;
	ps->v->nmaps++;
	ps->v->valid &= m->seen;
	m->open = 0;
	return 0;
}

/* One whole line of the text. */
static int parse_line(struct parser *ps, const char *l, const char *eol)
{
	int r;

	if (l == eol)
		return 0;
	if (is_header(l, eol)) {
		if (ps->m.open) {
			if (ps->vmflags)
				return -EINVAL; /* a mapping without its VmFlags, inside the text */
			if ((r = map_done(ps)) < 0)
				return r;
		}
		return parse_header(l, eol, &ps->m);
	}
	const char *colon = memchr(l, ':', (size_t)(eol - l));
	if (!colon || !ps->m.open)
		return -EINVAL;
	if (colon - l == 7 && !memcmp(l, "VmFlags", 7)) {
		ps->vmflags = 1;
		return map_done(ps);
	}
	return parse_field(l, colon, eol, &ps->m);
}

int smaps_parse(const char *buf, size_t len, const char *exe, struct smaps_view *out)
{
	struct parser ps = {.v = out, .exe = exe, .exe_len = exe ? strlen(exe) : 0, .last = (size_t)-1};
	const char *p = buf, *end = buf + len;
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->valid = (1u << SMAPS_FIELDS) - 1;
	if (ps.exe_len)
		strip_deleted(exe, &ps.exe_len);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) { /* a last line without its newline: cut short */
			out->truncated = 1;
			ps.m.open = 0;
			break;
		}
		if ((r = parse_line(&ps, p, nl)) < 0)
			goto fail;
		p = nl + 1;
	}
	if (ps.m.open) {
		if (ps.vmflags) /* its VmFlags never came: cut short */
			out->truncated = 1;
		else if ((r = map_done(&ps)) < 0)
			goto fail;
	}
	if (!out->nmaps)
		out->valid = 0;
	out->total.kind = SMAPS_KINDS;
	snprintf(out->total.name, sizeof(out->total.name), "total");
	return (int)(out->nmaps < (size_t)INT32_MAX ? out->nmaps : INT32_MAX);
fail:
	smaps_view_free(out);
	return r;
}

void smaps_view_free(struct smaps_view *v)
{
	free(v->g);
	memset(v, 0, sizeof(*v));
}

static enum smaps_field sort_field;

static int by_field(const void *a, const void *b)
{
	const struct smaps_group *x = a, *y = b;

	if (x->kib[sort_field] != y->kib[sort_field])
		return x->kib[sort_field] > y->kib[sort_field] ? -1 : 1;
	return strcmp(x->name, y->name);
}

void smaps_sort(struct smaps_view *v, enum smaps_field by)
{
	if ((unsigned)by >= SMAPS_FIELDS || v->n < 2)
		return;
	sort_field = by; /* qsort has no context argument: the UI thread alone sorts */
	qsort(v->g, v->n, sizeof(*v->g), by_field);
}

/* Reads an open file whole into a buffer that grows. */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 64 << 10, n = 0;
	char *b = malloc(cap);

	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			char *nb = cap < ((size_t)1 << 30) ? realloc(b, cap * 2) : NULL;
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(b);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

int smaps_pid_open(pid_t pid)
{
	int fd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;

	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

int smaps_pid_exited(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	return pidfd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}

int smaps_read(const char *dir, pid_t pid, char **buf, size_t *len, char *exe, size_t cap)
{
	char path[512];
	int fd, r;

	*buf = NULL;
	*len = 0;
	if (cap) {
		exe[0] = '\0';
		snprintf(path, sizeof(path), "%s/%d/exe", dir ? dir : "/proc", (int)pid);
		ssize_t n = readlink(path, exe, cap - 1);
		exe[n > 0 ? n : 0] = '\0';
	}
	snprintf(path, sizeof(path), "%s/%d/smaps", dir ? dir : "/proc", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read_all(fd, buf, len);
	close(fd);
	return r;
}
