/* procfs: readers for /proc/PID files. Parsers take (buf, len) and never read
 * past len; they need no NUL terminator. */
#include "procfs.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A cursor over a byte range that is not NUL-terminated. */
struct cur {
	const char *p, *end;
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parses a run of decimal digits at the cursor into *v; fails on no digits or
 * on a value above UINT64_MAX. */
static int cur_u64(struct cur *c, uint64_t *v)
{
	uint64_t x = 0;
	const char *start = c->p;

	while (c->p < c->end && is_digit(*c->p)) {
		unsigned d = (unsigned)(*c->p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
		c->p++;
	}
	if (c->p == start)
		return -EINVAL;
	*v = x;
	return 0;
}

/* Parses a decimal pid (0 .. INT_MAX) at the cursor. */
static int cur_pid(struct cur *c, pid_t *pid)
{
	uint64_t v;

	if (cur_u64(c, &v) < 0 || v > INT_MAX)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

static void cur_skip_blank(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/* Matches one smaps_rollup line's key (the text before ':') to a field. */
static uint64_t *rollup_field(struct procfs_rollup *out, const char *key, size_t n,
			      uint32_t *bit)
{
	static const struct {
		const char *name;
		size_t off;
		uint32_t bit;
	} keys[] = {
		{ "Rss", offsetof(struct procfs_rollup, rss_kib), PROCFS_ROLLUP_RSS },
		{ "Pss", offsetof(struct procfs_rollup, pss_kib), PROCFS_ROLLUP_PSS },
		{ "Pss_Anon", offsetof(struct procfs_rollup, pss_anon_kib), 1u << 8 },
		{ "Pss_File", offsetof(struct procfs_rollup, pss_file_kib), 1u << 9 },
		{ "Pss_Shmem", offsetof(struct procfs_rollup, pss_shmem_kib), 1u << 10 },
		{ "Swap", offsetof(struct procfs_rollup, swap_kib), PROCFS_ROLLUP_SWAP },
		{ "Anonymous", offsetof(struct procfs_rollup, anon_kib), PROCFS_ROLLUP_ANON },
		{ "Private_Clean", offsetof(struct procfs_rollup, private_clean_kib), 1u << 11 },
		{ "Private_Dirty", offsetof(struct procfs_rollup, private_dirty_kib), 1u << 12 },
		{ "AnonHugePages", offsetof(struct procfs_rollup, thp_kib), PROCFS_ROLLUP_THP },
		{ "Locked", offsetof(struct procfs_rollup, locked_kib), PROCFS_ROLLUP_LOCKED },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i].name) == n && memcmp(keys[i].name, key, n) == 0) {
			*bit = keys[i].bit;
			return (uint64_t *)((char *)out + keys[i].off);
		}
	}
	return NULL;
}

/* Internal bits for the three parts of the split; folded into
 * PROCFS_ROLLUP_SPLIT once all three are seen. */
#define ROLLUP_SPLIT_PARTS (7u << 8)
#define ROLLUP_PRIVATE_PARTS (3u << 11)

/* Picks the Rss, Pss, Pss_Anon/File/Shmem, Anonymous, Private_*, Swap, AnonHugePages and Locked
 * lines out of smaps_rollup;
 * a wanted line with a malformed value fails the parse, never a wrong number. */
int procfs_parse_smaps_rollup(const char *buf, size_t len, struct procfs_rollup *out)
{
	struct cur c;
	uint32_t seen = 0;

	memset(out, 0, sizeof(*out));
	if (!buf)
		return -EINVAL;
	c.p = buf;
	c.end = buf + len;
	while (c.p < c.end) {
		const char *line = c.p, *nl = memchr(c.p, '\n', (size_t)(c.end - c.p));
		const char *eol = nl ? nl : c.end;
		const char *colon = memchr(line, ':', (size_t)(eol - line));
		uint64_t *field, v;
		uint32_t bit;

		c.p = nl ? nl + 1 : c.end;
		if (!colon)
			continue; /* the header line, or a blank one */
		field = rollup_field(out, line, (size_t)(colon - line), &bit);
		if (!field)
			continue;
		struct cur vc = { colon + 1, eol };

		cur_skip_blank(&vc);
		if (cur_u64(&vc, &v) < 0)
			goto bad;
		cur_skip_blank(&vc);
		if (vc.end - vc.p < 2 || memcmp(vc.p, "kB", 2) != 0)
			goto bad;
		vc.p += 2;
		cur_skip_blank(&vc);
		if (vc.p != vc.end || (seen & bit))
			goto bad;
		seen |= bit;
		*field = v;
	}
	if (!(seen & PROCFS_ROLLUP_PSS))
		goto bad;
	out->valid = seen & (PROCFS_ROLLUP_RSS | PROCFS_ROLLUP_PSS | PROCFS_ROLLUP_SWAP | PROCFS_ROLLUP_ANON |
			     PROCFS_ROLLUP_THP | PROCFS_ROLLUP_LOCKED);
	if ((seen & ROLLUP_SPLIT_PARTS) == ROLLUP_SPLIT_PARTS)
		out->valid |= PROCFS_ROLLUP_SPLIT;
	else
		out->pss_anon_kib = out->pss_file_kib = out->pss_shmem_kib = 0;
	if ((seen & ROLLUP_PRIVATE_PARTS) == ROLLUP_PRIVATE_PARTS) {
		if (out->private_clean_kib > UINT64_MAX - out->private_dirty_kib)
			goto bad; /* a sum past 2^64 KiB: no real process, never a wrapped number */
		out->valid |= PROCFS_ROLLUP_PRIVATE;
		out->private_kib = out->private_clean_kib + out->private_dirty_kib;
	} else {
		out->private_clean_kib = out->private_dirty_kib = 0;
	}
	return 0;
bad:
	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

/* Takes the next space-separated field of a stat line: [tok, tok + *n). */
static int stat_token(struct cur *c, const char **tok, size_t *n)
{
	if (c->p >= c->end || *c->p != ' ')
		return -EINVAL;
	c->p++;
	*tok = c->p;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\n')
		c->p++;
	*n = (size_t)(c->p - *tok);
	return *n ? 0 : -EINVAL;
}

/* Parses a whole token as an unsigned number. */
static int token_u64(const char *tok, size_t n, uint64_t *v)
{
	struct cur c = { tok, tok + n };

	if (cur_u64(&c, v) < 0 || c.p != c.end)
		return -EINVAL;
	return 0;
}

/* Checks that a field we skip is a (possibly negative) decimal number. */
static int token_is_int(const char *tok, size_t n)
{
	uint64_t v;

	if (n && tok[0] == '-')
		return token_u64(tok + 1, n - 1, &v);
	return token_u64(tok, n, &v);
}

/* Splits a stat line at the last ')' (comm is arbitrary bytes) and reads
 * fields 3 .. 24, checking that every field in between is a number. Its
 * length is stat's grammar, field after field (tests/structure.py lists it). */
int procfs_parse_stat(const char *buf, size_t len, struct procfs_stat *out)
{
	struct cur c;
	const char *lp, *rp = NULL;
	uint64_t v;

	memset(out, 0, sizeof(*out));
	if (!buf)
		return -EINVAL;
	c.p = buf;
	c.end = buf + len;
	if (cur_pid(&c, &out->pid) < 0 || c.end - c.p < 2 || memcmp(c.p, " (", 2) != 0)
		goto bad;
	lp = c.p + 2;
	for (const char *p = c.end; p > lp; p--) {
		if (p[-1] == ')') {
			rp = p - 1;
			break;
		}
	}
	if (!rp)
		goto bad;
	/* Kernel threads' names may be longer than TASK_COMM_LEN: keep 15 bytes. */
	size_t clen = (size_t)(rp - lp);

	if (clen > sizeof(out->comm) - 1)
		clen = sizeof(out->comm) - 1;
	memcpy(out->comm, lp, clen);
	out->comm[clen] = '\0';
	c.p = rp + 1;

	/* Fields 3 .. 24 of proc(5); the rest of the line is ignored. */
	for (int field = 3; field <= 24; field++) {
		const char *tok;
		size_t n;

		if (stat_token(&c, &tok, &n) < 0)
			goto bad;
		switch (field) {
		case 3:
			if (n != 1)
				goto bad;
			out->state = tok[0];
			continue;
		case 4:
			if (token_u64(tok, n, &v) < 0 || v > INT_MAX)
				goto bad;
			out->ppid = (pid_t)v;
			continue;
		case 5:
			if (token_u64(tok, n, &v) < 0 || v > INT_MAX)
				goto bad;
			out->pgrp = (pid_t)v;
			continue;
		case 7:
			if (token_u64(tok, n, &v) < 0 || v > UINT32_MAX)
				goto bad;
			out->tty_nr = (uint32_t)v;
			continue;
		case 10:
		case 12:
		case 14:
		case 15:
		case 20:
		case 22:
		case 24:
			break;
		default:
			if (token_is_int(tok, n) < 0)
				goto bad;
			continue;
		}
		if (token_u64(tok, n, &v) < 0)
			goto bad;
		switch (field) {
		case 10: out->minflt = v; break;
		case 12: out->majflt = v; break;
		case 14: out->utime_ticks = v; break;
		case 15: out->stime_ticks = v; break;
		case 20:
			if (v > UINT32_MAX)
				goto bad;
			out->num_threads = (uint32_t)v;
			break;
		case 22: out->starttime_ticks = v; break;
		case 24: out->rss_pages = v; break;
		}
	}
	/* Field 24 must be followed by more: otherwise the text may be cut short
	 * inside it and the number wrong. */
	if (c.p == c.end)
		goto bad;
	return 0;
bad:
	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

int procfs_parse_stat_args(const char *buf, size_t len, uint64_t *start, uint64_t *end)
{
	struct cur c;
	const char *rp = NULL;
	uint64_t v[2] = {0, 0};

	*start = *end = 0;
	if (!buf)
		return -EINVAL;
	for (const char *p = buf + len; p > buf; p--) {
		if (p[-1] == ')') {
			rp = p - 1;
			break;
		}
	}
	if (!rp)
		return -EINVAL;
	c.p = rp + 1;
	c.end = buf + len;
	/* fields 3 .. 49 after comm; 48 and 49 are arg_start and arg_end */
	for (int field = 3; field <= 49; field++) {
		const char *tok;
		size_t n;

		if (stat_token(&c, &tok, &n) < 0)
			return -EINVAL;
		if (field >= 48 && token_u64(tok, n, &v[field - 48]) < 0)
			return -EINVAL;
	}
	if (v[1] < v[0])
		return -EINVAL;
	*start = v[0];
	*end = v[1];
	return 0;
}

/* Reads the seven numbers of statm; anything else in the text is garbage. */
int procfs_parse_statm(const char *buf, size_t len, struct procfs_statm *out)
{
	struct cur c;
	uint64_t v[7];

	memset(out, 0, sizeof(*out));
	if (!buf)
		return -EINVAL;
	c.p = buf;
	c.end = buf + len;
	/* size resident shared text lib data dt: lib and dt are always 0. */
	for (int i = 0; i < 7; i++) {
		if (i > 0) {
			if (c.p >= c.end || *c.p != ' ')
				return -EINVAL;
			c.p++;
		}
		if (cur_u64(&c, &v[i]) < 0)
			return -EINVAL;
	}
	if (c.p != c.end && !(*c.p == '\n' && c.p + 1 == c.end))
		return -EINVAL;
	out->size_pages = v[0];
	out->resident_pages = v[1];
	out->shared_pages = v[2];
	out->text_pages = v[3];
	out->data_pages = v[5];
	return 0;
}

/* The value of a "Key:<blanks>N kB" line, the cursor just past the colon. */
static int status_kib(struct cur *c, uint64_t *v)
{
	cur_skip_blank(c);
	if (cur_u64(c, v) < 0)
		return -EINVAL;
	if (c->end - c->p < 3 || memcmp(c->p, " kB", 3) != 0)
		return -EINVAL;
	c->p += 3;
	if (c->p < c->end && *c->p != '\n')
		return -EINVAL;
	return 0;
}

int procfs_parse_status(const char *buf, size_t len, struct procfs_status *out)
{
	static const struct {
		const char *key;
		size_t off;
		unsigned bit;
	} keys[] = {
		{"VmHWM:", offsetof(struct procfs_status, hwm_kib), PROCFS_STATUS_HWM},
		{"VmRSS:", offsetof(struct procfs_status, rss_kib), PROCFS_STATUS_RSS},
		{"RssAnon:", offsetof(struct procfs_status, anon_kib), PROCFS_STATUS_SPLIT},
		{"RssFile:", offsetof(struct procfs_status, file_kib), PROCFS_STATUS_SPLIT},
		{"RssShmem:", offsetof(struct procfs_status, shmem_kib), PROCFS_STATUS_SPLIT},
	};
	unsigned split = 0, seen = 0;
	struct cur c;

	memset(out, 0, sizeof(*out));
	if (!buf)
		return -EINVAL;
	c.p = buf;
	c.end = buf + len;
	while (c.p < c.end) {
		const char *eol = memchr(c.p, '\n', (size_t)(c.end - c.p));
		const char *next = eol ? eol + 1 : c.end;

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t kl = strlen(keys[k].key);
			uint64_t v;
			if ((size_t)(c.end - c.p) < kl || memcmp(c.p, keys[k].key, kl) != 0)
				continue;
			if (seen & 1u << k)
				break; /* the first line of a key counts */
			seen |= 1u << k;
			c.p += kl;
			if (status_kib(&c, &v) < 0) {
				memset(out, 0, sizeof(*out));
				return -EINVAL;
			}
			memcpy((char *)out + keys[k].off, &v, sizeof(v));
			if (keys[k].bit == PROCFS_STATUS_SPLIT)
				split |= 1u << k;
			else
				out->valid |= keys[k].bit;
			break;
		}
		c.p = next;
	}
	/* the split only when all three came */
	if (split == (1u << 2 | 1u << 3 | 1u << 4))
		out->valid |= PROCFS_STATUS_SPLIT;
	else
		out->anon_kib = out->file_kib = out->shmem_kib = 0;
	return 0;
}

/* Counts every pid in a children file, storing the first max of them; each
 * pid must end with a space or newline, as the kernel writes them. */
int procfs_parse_children(const char *buf, size_t len, pid_t *out, size_t max)
{
	struct cur c;
	int n = 0;

	if (!buf || (!out && max))
		return len ? -EINVAL : 0;
	c.p = buf;
	c.end = buf + len;
	for (;;) {
		pid_t pid;

		while (c.p < c.end && (*c.p == ' ' || *c.p == '\n'))
			c.p++;
		if (c.p == c.end)
			return n;
		if (cur_pid(&c, &pid) < 0 || pid == 0 || n == INT_MAX)
			return -EINVAL;
		/* The kernel ends every pid with a space: a pid at the very end
		 * may have been cut short. */
		if (c.p == c.end || (*c.p != ' ' && *c.p != '\n'))
			return -EINVAL;
		if ((size_t)n < max)
			out[n] = pid;
		n++;
	}
}

/* Builds the /proc path and opens it; ENOENT means the task is gone. */
int procfs_open(pid_t pid, pid_t tid, const char *name)
{
	return procfs_open_at(NULL, pid, tid, name);
}

/* Opens ROOT/PID/NAME or ROOT/PID/task/TID/NAME. */
int procfs_open_at(const char *root, pid_t pid, pid_t tid, const char *name)
{
	char path[PATH_MAX];
	int n, fd;

	if (pid <= 0 || tid < 0 || !name || !*name)
		return -EINVAL;
	if (!root)
		root = "/proc";
	if (tid > 0)
		n = snprintf(path, sizeof(path), "%s/%d/task/%d/%s", root, (int)pid, (int)tid, name);
	else
		n = snprintf(path, sizeof(path), "%s/%d/%s", root, (int)pid, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Reads from offset 0 to EOF (or cap - 1 bytes) so a reused fd gives a fresh
 * snapshot each call. */
ssize_t procfs_pread(int fd, char *buf, size_t cap)
{
	size_t off = 0;

	if (fd < 0 || !buf || cap == 0 || cap > SSIZE_MAX)
		return -EINVAL;
	/* seq_file regenerates the text at offset 0, so each call sees fresh data;
	 * short reads are normal (one record per read), so loop to EOF. */
	while (off < cap - 1) {
		ssize_t r = pread(fd, buf + off, cap - 1 - off, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			buf[off] = '\0';
			return -errno;
		}
		if (r == 0)
			break;
		off += (size_t)r;
	}
	buf[off] = '\0';
	return (ssize_t)off;
}

ssize_t procfs_pread_once(int fd, char *buf, size_t cap)
{
	if (fd < 0 || !buf || cap == 0 || cap > SSIZE_MAX)
		return -EINVAL;
	for (;;) {
		ssize_t r = pread(fd, buf, cap - 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			buf[0] = '\0';
			return -errno;
		}
		if ((size_t)r < cap - 1) {
			buf[r] = '\0';
			return r; /* all of it: no read to see the end */
		}
		return procfs_pread(fd, buf, cap); /* filled: the slow way */
	}
}

ssize_t procfs_read(pid_t pid, const char *name, char *buf, size_t cap)
{
	return procfs_read_at(NULL, pid, name, buf, cap);
}

/* Opens ROOT/PID/NAME, reads it once and closes it. */
ssize_t procfs_read_at(const char *root, pid_t pid, const char *name, char *buf, size_t cap)
{
	ssize_t r;
	int fd = procfs_open_at(root, pid, 0, name);

	if (fd < 0)
		return fd;
	r = procfs_pread_once(fd, buf, cap);
	close(fd);
	return r;
}

/* Reads until a read leaves room in the buffer (so nothing was cut off),
 * doubling it in between, then parses into a pid array grown to fit. */
int procfs_read_children(int fd, char **buf, size_t *buf_cap, pid_t **pids, size_t *pids_cap)
{
	ssize_t len;
	int n;

	if (fd < 0 || !buf || !buf_cap || !pids || !pids_cap)
		return -EINVAL;
	for (;;) {
		if (*buf_cap < 4096 || !*buf) {
			char *b = realloc(*buf, 4096);
			if (!b)
				return -ENOMEM;
			*buf = b;
			*buf_cap = 4096;
		}
		len = procfs_pread(fd, *buf, *buf_cap);
		if (len < 0)
			return (int)len;
		if ((size_t)len < *buf_cap - 1)
			break;
		if (*buf_cap > SSIZE_MAX / 2)
			return -EFBIG;
		char *b = realloc(*buf, *buf_cap * 2);
		if (!b)
			return -ENOMEM;
		*buf = b;
		*buf_cap *= 2;
	}
	n = procfs_parse_children(*buf, (size_t)len, *pids, *pids_cap);
	if (n < 0 || (size_t)n <= *pids_cap)
		return n;
	pid_t *p = realloc(*pids, (size_t)n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*pids = p;
	*pids_cap = (size_t)n;
	return procfs_parse_children(*buf, (size_t)len, *pids, *pids_cap);
}

/* Clock ticks per second, looked up once. The value never changes; the
 * relaxed atomics only keep two threads racing on the first call well-defined. */
long procfs_hz(void)
{
	static long hz;
	long v = __atomic_load_n(&hz, __ATOMIC_RELAXED);

	if (v > 0)
		return v;
	v = sysconf(_SC_CLK_TCK);
	if (v <= 0)
		v = 100;
	__atomic_store_n(&hz, v, __ATOMIC_RELAXED);
	return v;
}

/* The page size in KiB, looked up once. */
long procfs_page_kib(void)
{
	static long kib;
	long v = __atomic_load_n(&kib, __ATOMIC_RELAXED);

	if (v > 0)
		return v;
	v = sysconf(_SC_PAGESIZE) / 1024;
	if (v <= 0)
		v = 4;
	__atomic_store_n(&kib, v, __ATOMIC_RELAXED);
	return v;
}

int procfs_started_near(uint64_t start_ticks, long hz, uint64_t boot_ns, uint64_t slack_ns)
{
	if (hz <= 0)
		return 1;
	uint64_t tick_ns = 1000000000ull / (uint64_t)hz;
	uint64_t lo = start_ticks * tick_ns; /* the start is in [lo, lo + tick_ns) */

	return lo <= boot_ns + slack_ns && lo + tick_ns + slack_ns >= boot_ns;
}

int procfs_stat_ended(const struct procfs_stat *ps)
{
	return (ps->state == 'Z' || ps->state == 'X' || ps->state == 'x') && ps->num_threads <= 1;
}
