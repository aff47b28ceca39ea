/* rsstrace.c: the tree's RSS counter changes from kmem/rss_stat (rsstrace.h). */
#include "rsstrace.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Data pages of each CPU's ring, tried from the first down (a user holding
 * only CAP_PERFMON is held to perf_event_mlock_kb). A record is 64 bytes; a
 * compile changes its counters ~30,000 times a second, a process touching
 * memory as fast as it can (the climb workload: 200 MiB in 60 ms) ~850,000:
 * 512 pages hold 32,768 records, ~40 ms of that one, so the collector is
 * woken to drain a ring before it fills (rsstrace_fds). */
#define RSSTRACE_PAGES_MAX 512
#define RSSTRACE_PAGES_MIN 16
#define RSSTRACE_PINNED_PAGES 8192 /* 32 MiB over all CPUs */
#define RSSTRACE_CPUS 1024
/* A ring with less room than this left is taken as full (a lost record's
 * notice and a record or two). */
#define RSSTRACE_ROOM 512

static const char *const fmt_roots[] = {
	"/sys/kernel/tracing/events/",
	"/sys/kernel/debug/tracing/events/",
};

struct ring {
	int fd, xfd; /* the rss_stat event, sched_process_exit's (its output here) */
	void *base;
	size_t len;      /* of the mapping: a header page, then data_size */
	uint64_t size;   /* data bytes, a power of two */
	unsigned char *data;
	/* the wake event: rss_stat again, filtered to a process's own file
	 * and shared-memory pages, its records thrown away (-1: none) */
	int wfd;
	void *wbase;
	size_t wlen;
};

/* The wake event's filter (the tracepoint's own fields: a process's own
 * file or shared-memory pages, once it has many, not spacetime's main
 * thread; common_pid is a thread's id, and the threads spacetime starts
 * later inherit the event: a page fault of theirs in a file mapping past
 * the size is a record too, a spurious wakeup at worst) and its ring. */
#define RSSTRACE_WAKE_FILTER "curr == 1 && (member == 0 || member == 3) && size >= %llu && common_pid != %d"
#define RSSTRACE_WAKE_MIN_BYTES (8ull << 20)
#define RSSTRACE_WAKE_PAGES 1

/* sched_process_exit's fields: the whole group's end when group_dead is there */
struct exit_fmt {
	int id, dead_off, raw_size;
};

struct rsstrace {
	struct rsstrace_fmt fmt;
	struct exit_fmt xf;
	struct ring *rings;
	size_t nrings;
	struct rsstrace_rec *buf, *tmp; /* the records; the merge's room (cap each) */
	size_t cap;
	size_t *runs;   /* where each ring's records begin in buf (nrings + 1) */
};

/* One "field:TYPE NAME;\toffset:N;\tsize:M;" line's offset and size. */
static int fmt_field(const char *text, const char *name, int *off, int *size)
{
	size_t nl = strlen(name);

	for (const char *p = text; (p = strstr(p, "field:")) != NULL; p++) {
		const char *semi = strchr(p, ';');
		if (!semi)
			break;
		/* the name ends the declaration, just before its ';' */
		if ((size_t)(semi - p) < nl + 1 || memcmp(semi - nl, name, nl) != 0 ||
		    (semi[-(long)nl - 1] != ' ' && semi[-(long)nl - 1] != '\t'))
			continue;
		const char *o = strstr(semi, "offset:"), *s = strstr(semi, "size:");
		const char *eol = strchr(semi, '\n');
		if (!o || !s || (eol && (o > eol || s > eol)))
			return -EINVAL;
		char *end;
		long ov = strtol(o + 7, &end, 10), sv = strtol(s + 5, &end, 10);
		if (ov < 0 || ov > 4096 || (sv != 1 && sv != 4 && sv != 8))
			return -EINVAL;
		*off = (int)ov;
		*size = (int)sv;
		return 0;
	}
	return -EINVAL;
}

/* sched_process_exit's fields. */
static void exit_fmt_parse(const char *text, struct exit_fmt *f)
{
	f->dead_off = rsstrace_group_dead_off(text);
	f->raw_size = f->dead_off >= 0 ? f->dead_off + 1 : 8;
}

int rsstrace_group_dead_off(const char *text)
{
	int off, size;

	return fmt_field(text, "group_dead", &off, &size) == 0 && size == 1 ? off : -1;
}

int rsstrace_fmt_parse(const char *text, struct rsstrace_fmt *f)
{
	memset(f, 0, sizeof(*f));
	if (!text || fmt_field(text, "mm_id", &f->mm_off, &f->mm_size) < 0 ||
	    fmt_field(text, "curr", &f->curr_off, &f->curr_size) < 0 ||
	    fmt_field(text, "member", &f->member_off, &f->member_size) < 0 ||
	    fmt_field(text, "size", &f->size_off, &f->size_size) < 0)
		return -EINVAL;
	if (f->mm_size == 1 || f->curr_size == 1 || f->member_size == 1 || f->size_size == 1)
		return -EINVAL;
	int end = 0;
	const int o[4] = {f->mm_off + f->mm_size, f->curr_off + f->curr_size, f->member_off + f->member_size,
			  f->size_off + f->size_size};
	for (int i = 0; i < 4; i++)
		end = o[i] > end ? o[i] : end;
	f->raw_size = end;
	return 0;
}

static int64_t field(const unsigned char *raw, int off, int size)
{
	if (size == 8) {
		int64_t v;
		memcpy(&v, raw + off, 8);
		return v;
	}
	int32_t v;
	memcpy(&v, raw + off, 4);
	return v;
}

int rsstrace_decode(const struct rsstrace_fmt *f, const unsigned char *raw, size_t n, struct rsstrace_rec *r)
{
	if (!f->raw_size || n < (size_t)f->raw_size)
		return -EINVAL;
	int64_t member = field(raw, f->member_off, f->member_size);
	if (member < 0 || member >= RSSTRACE_MEMBERS)
		return -EINVAL;
	int64_t size = field(raw, f->size_off, f->size_size);
	r->mm = (uint32_t)field(raw, f->mm_off, f->mm_size);
	r->curr = field(raw, f->curr_off, f->curr_size) != 0;
	r->member = (uint8_t)member;
	r->size_kib = size > 0 ? size / 1024 : 0;
	return 0;
}

/* Copies file path to fd (a child's: system calls only). */
static void copy_to(const char *path, int fd, char *buf, size_t cap)
{
	int in = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (in < 0)
		return;
	while ((n = read(in, buf, cap)) > 0)
		if (write(fd, buf, (size_t)n) != n)
			break;
	close(in);
}

/* The same from a tracefs no one else sees, where none is mounted (a
 * container's /sys): a child in a mount namespace of its own (root's
 * CAP_SYS_ADMIN) mounts it, writes the id and the format down a pipe and
 * ends; the machine's mounts stay as they were. */
static int tp_read_private(const char *name, char *fmt, size_t cap, long *id)
{
	char idp[160], fp[160], buf[512], *all = malloc(cap + 32);
	int pfd[2];
	size_t got = 0;
	ssize_t n;

	snprintf(idp, sizeof(idp), "/sys/kernel/tracing/events/%s/id", name);
	snprintf(fp, sizeof(fp), "/sys/kernel/tracing/events/%s/format", name);
	if (!all || pipe2(pfd, O_CLOEXEC) < 0) {
		free(all);
		return -ENOENT;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
		    mount("tracefs", "/sys/kernel/tracing", "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0) {
			copy_to(idp, pfd[1], buf, sizeof(buf));
			copy_to(fp, pfd[1], buf, sizeof(buf));
		}
		_exit(0);
	}
	close(pfd[1]);
	while (pid > 0 && got < cap + 31 && (n = read(pfd[0], all + got, cap + 31 - got)) > 0)
		got += (size_t)n;
	close(pfd[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	all[got] = '\0';
	char *end = NULL;
	*id = strtol(all, &end, 10);
	int ok = end && end != all && *end == '\n' && *id > 0 && strlen(end + 1) > 0;
	if (ok)
		snprintf(fmt, cap, "%s", end + 1);
	free(all);
	return ok ? 0 : -ENOENT;
}

/* A tracepoint's id and its format ("kmem/rss_stat"), from tracefs. */
static int tp_read(const char *name, char *fmt, size_t cap, long *id)
{
	int err = -ENOENT;

	for (size_t i = 0; i < sizeof(fmt_roots) / sizeof(fmt_roots[0]); i++) {
		char path[160];
		snprintf(path, sizeof(path), "%s%s/id", fmt_roots[i], name);
		FILE *f = fopen(path, "re");
		if (!f) {
			if (errno == EACCES || errno == EPERM)
				err = -EACCES;
			continue;
		}
		int ok = fscanf(f, "%ld", id) == 1;
		fclose(f);
		snprintf(path, sizeof(path), "%s%s/format", fmt_roots[i], name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (!ok || fd < 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		ssize_t n = read(fd, fmt, cap - 1);
		close(fd);
		if (n <= 0)
			continue;
		fmt[n] = '\0';
		return 0;
	}
	if (err == -ENOENT && tp_read_private(name, fmt, cap, id) == 0)
		return 0;
	return err;
}

static int event_open(long id, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.sample_period = 1; /* every change: a top is a change */
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a.inherit = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The wake event of a CPU (r->wfd -1 when the kernel takes no filter:
 * the ticks alone read the rings then). */
static void wake_open(struct ring *r, long id, int cpu)
{
	struct perf_event_attr a;
	long pg = sysconf(_SC_PAGESIZE);

	r->wfd = -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID;
	a.inherit = 1;
	a.wakeup_events = RSSTRACE_WAKE_RECORDS;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;
	size_t len = (RSSTRACE_WAKE_PAGES + 1) * (size_t)pg;
	/* not spacetime's own: its libraries pass the size */
	char filter[160];
	snprintf(filter, sizeof(filter), RSSTRACE_WAKE_FILTER, RSSTRACE_WAKE_MIN_BYTES, (int)getpid());
	void *m = ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0
			  ? MAP_FAILED
			  : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return;
	}
	r->wfd = fd;
	r->wbase = m;
	r->wlen = len;
}

static int ring_open(struct ring *r, long id, long xid, int cpu)
{
	int fd = event_open(id, cpu);
	if (fd < 0)
		return fd;
	r->xfd = -1;
	long pg = sysconf(_SC_PAGESIZE);
	/* no more than RSSTRACE_PINNED_PAGES pinned in all */
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	size_t most = RSSTRACE_PAGES_MAX;
	while (ncpu > 0 && most > RSSTRACE_PAGES_MIN && most * (size_t)ncpu > RSSTRACE_PINNED_PAGES)
		most /= 2;
	for (size_t pages = most; pages >= RSSTRACE_PAGES_MIN; pages /= 2) {
		size_t len = (pages + 1) * (size_t)pg;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			continue;
		struct perf_event_mmap_page *h = m;
		r->fd = fd;
		r->base = m;
		r->len = len;
		r->size = h->data_size ? h->data_size : pages * (uint64_t)pg;
		r->data = (unsigned char *)m + (h->data_offset ? h->data_offset : (uint64_t)pg);
		/* the exits into the same ring, in time order with the rest */
		int x = event_open(xid, cpu);
		if (x < 0 || ioctl(x, PERF_EVENT_IOC_SET_OUTPUT, fd) < 0) {
			int e = x < 0 ? x : -errno;
			if (x >= 0)
				close(x);
			munmap(m, len);
			close(fd);
			return e;
		}
		r->xfd = x;
		wake_open(r, id, cpu);
		return 0;
	}
	int e = -errno;
	close(fd);
	return e;
}

struct rsstrace *rsstrace_open(void)
{
	static char fmt[8192];
	long id, xid;
	int e = tp_read("sched/sched_process_exit", fmt, sizeof(fmt), &xid);
	struct rsstrace *t = NULL;
	struct exit_fmt xf = {.id = (int)xid};

	if (e < 0)
		goto fail;
	exit_fmt_parse(fmt, &xf);
	if ((e = tp_read("kmem/rss_stat", fmt, sizeof(fmt), &id)) < 0)
		goto fail;
	if (!(t = calloc(1, sizeof(*t)))) {
		e = -ENOMEM;
		goto fail;
	}
	if ((e = rsstrace_fmt_parse(fmt, &t->fmt)) < 0) {
		e = -ENOENT;
		goto fail;
	}
	t->fmt.id = (int)id;
	t->xf = xf;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu < 1 || ncpu > RSSTRACE_CPUS)
		ncpu = ncpu < 1 ? 1 : RSSTRACE_CPUS;
	if (!(t->rings = calloc((size_t)ncpu, sizeof(*t->rings))) ||
	    !(t->runs = calloc((size_t)ncpu + 1, sizeof(*t->runs)))) {
		e = -ENOMEM;
		goto fail;
	}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int r = ring_open(&t->rings[t->nrings], id, xid, cpu);
		if (r == -ENODEV || r == -EINVAL)
			continue; /* an offline CPU */
		if (r < 0) {
			e = r;
			goto fail;
		}
		t->nrings++;
	}
	if (!t->nrings) {
		e = -ENOENT;
		goto fail;
	}
	return t;
fail:
	rsstrace_close(t);
	errno = -e;
	return NULL;
}

/* A process's end, from a sched_process_exit record: 0 when it is one and
 * the process's last thread (a thread's own end is no record). */
static int exit_decode(const struct exit_fmt *f, const unsigned char *raw, size_t n, int leader,
		       struct rsstrace_rec *r)
{
	uint16_t type;

	if (n < 2 || n < (size_t)f->raw_size)
		return -EINVAL;
	memcpy(&type, raw, 2);
	if (type != f->id)
		return -EINVAL;
	int dead = f->dead_off >= 0 ? raw[f->dead_off] != 0 : leader;
	if (!dead)
		return -EAGAIN;
	r->member = RSSTRACE_EXIT;
	r->mm = 0;
	r->curr = 0;
	r->size_kib = 0;
	return 0;
}

/* Either tracepoint's record, by its type. */
static int raw_decode(const struct rsstrace *t, const unsigned char *raw, size_t n, int leader,
		      struct rsstrace_rec *r)
{
	uint16_t type;

	if (n < 2)
		return -EINVAL;
	memcpy(&type, raw, 2);
	if (type == t->xf.id)
		return exit_decode(&t->xf, raw, n, leader, r);
	return type == t->fmt.id ? rsstrace_decode(&t->fmt, raw, n, r) : -EINVAL;
}

/* Copies len bytes at offset pos of r's data (wrapping) into dst. */
static void ring_copy(const struct ring *r, uint64_t pos, void *dst, size_t len)
{
	uint64_t off = pos & (r->size - 1);
	size_t first = len < r->size - off ? len : (size_t)(r->size - off);
	memcpy(dst, r->data + off, first);
	if (first < len)
		memcpy((unsigned char *)dst + first, r->data, len - first);
}

static int push(struct rsstrace *t, size_t n, const struct rsstrace_rec *rec)
{
	if (n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		struct rsstrace_rec *b = realloc(t->buf, cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		t->buf = b;
		struct rsstrace_rec *m = realloc(t->tmp, cap * sizeof(*m));
		if (!m)
			return -ENOMEM; /* buf is larger, cap still what tmp holds */
		t->tmp = m;
		t->cap = cap;
	}
	t->buf[n] = *rec;
	return 0;
}

/* One ring's records up to until_ns, appended from n; returns the new n. */
static size_t ring_drain(struct rsstrace *t, struct ring *r, uint64_t until_ns, pid_t self, size_t n, uint64_t *lost)
{
	struct perf_event_mmap_page *h = r->base;
	uint64_t head = __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = h->data_tail;
	unsigned char rec[512];

	/* a ring found (nearly) full lost records: the kernel says how many
	 * only once it has room again, after this drain */
	if (head - tail + RSSTRACE_ROOM > r->size)
		(*lost)++;

	while (tail < head) {
		struct perf_event_header eh;
		ring_copy(r, tail, &eh, sizeof(eh));
		if (eh.size < sizeof(eh) || eh.size > head - tail)
			break; /* torn: never, but never loop on it */
		size_t len = eh.size < sizeof(rec) ? eh.size : sizeof(rec);
		ring_copy(r, tail, rec, len);
		if (eh.type == PERF_RECORD_SAMPLE && len >= sizeof(eh) + 20) {
			uint32_t pid, raw_len;
			uint64_t time;
			memcpy(&pid, rec + 8, 4);
			memcpy(&time, rec + 16, 8);
			memcpy(&raw_len, rec + 24, 4);
			if (time > until_ns)
				break; /* the next interval's */
			uint32_t tid;
			memcpy(&tid, rec + 12, 4);
			struct rsstrace_rec x = {.t_ns = time, .pid = (int32_t)pid};
			if (28 + (size_t)raw_len <= len && raw_decode(t, rec + 28, raw_len, tid == pid, &x) == 0) {
				x.self = (pid_t)pid == self;
				if (push(t, n, &x) == 0)
					n++;
				else
					(*lost)++;
			}
		} else if (eh.type == PERF_RECORD_LOST && len >= sizeof(eh) + 16) {
			uint64_t k;
			memcpy(&k, rec + 16, 8);
			*lost += k;
		}
		tail += eh.size;
	}
	__atomic_store_n(&h->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

/* Merges the sorted runs a[r[0]..r[1]), a[r[1]..r[2]), ... (k of them)
 * pairwise until one is left, through tmp; returns where the result is. */
static struct rsstrace_rec *merge_runs(struct rsstrace_rec *a, struct rsstrace_rec *tmp, size_t *r, size_t k)
{
	while (k > 1) {
		size_t w = 0, j = 0;
		for (size_t i = 0; i < k; i += 2) {
			size_t lo = r[i], mid = r[i + 1], hi = i + 2 <= k ? r[i + 2] : mid;
			size_t x = lo, y = mid, o = lo;
			while (x < mid && y < hi)
				tmp[o++] = a[y].t_ns < a[x].t_ns ? a[y++] : a[x++];
			while (x < mid)
				tmp[o++] = a[x++];
			while (y < hi)
				tmp[o++] = a[y++];
			r[j++] = lo;
			w = hi;
		}
		r[j] = w;
		k = j;
		struct rsstrace_rec *sw = a;
		a = tmp;
		tmp = sw;
	}
	return a;
}

size_t rsstrace_read(struct rsstrace *t, uint64_t until_ns, pid_t self, const struct rsstrace_rec **out,
		     uint64_t *lost)
{
	size_t n = 0;

	/* each ring's records are in time order: their runs are merged */
	for (size_t i = 0; i < t->nrings; i++) {
		t->runs[i] = n;
		n = ring_drain(t, &t->rings[i], until_ns, self, n, lost);
	}
	t->runs[t->nrings] = n;
	*out = t->nrings > 1 && n > 1 ? merge_runs(t->buf, t->tmp, t->runs, t->nrings) : t->buf;
	return n;
}

size_t rsstrace_fds(const struct rsstrace *t, int *fds, size_t max)
{
	size_t n = 0;
	/* per CPU, its ring and its wake event: a cap cuts whole CPUs */
	for (size_t i = 0; t && i < t->nrings && n + 2 <= max; i++) {
		fds[n++] = t->rings[i].fd;
		if (t->rings[i].wfd >= 0)
			fds[n++] = t->rings[i].wfd;
	}
	return n;
}

int rsstrace_woken(struct rsstrace *t)
{
	int any = 0;

	for (size_t i = 0; t && i < t->nrings; i++) {
		struct perf_event_mmap_page *h = t->rings[i].base;
		/* the kernel wakes us each half ring written, whatever was
		 * read since: a ring a quarter full is drained then, so it
		 * never holds more than three quarters */
		uint64_t held = __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE) - h->data_tail;
		any |= held >= t->rings[i].size / 4;
		if (t->rings[i].wfd < 0)
			continue;
		h = t->rings[i].wbase;
		uint64_t head = __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE);
		any |= head != h->data_tail;
		__atomic_store_n(&h->data_tail, head, __ATOMIC_RELEASE);
	}
	return any;
}

void rsstrace_close(struct rsstrace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrings; i++) {
		if (t->rings[i].wfd >= 0) {
			munmap(t->rings[i].wbase, t->rings[i].wlen);
			close(t->rings[i].wfd);
		}
		munmap(t->rings[i].base, t->rings[i].len);
		close(t->rings[i].xfd);
		close(t->rings[i].fd);
	}
	free(t->rings);
	free(t->runs);
	free(t->buf);
	free(t->tmp);
	free(t);
}

const char *rsstrace_reason(int err)
{
	if (err == EACCES || err == EPERM)
		return "tracing RSS changes needs CAP_PERFMON (sudo)";
	if (err == ENOENT)
		return "the kernel offers no kmem/rss_stat tracepoint here (no tracefs)";
	return strerror(err);
}
