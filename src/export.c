/* export.c: the snapshot driver: copy the store, run the writers, publish the
 * files without ever leaving a partial one or replacing an existing one. */
#include "clockns.h"
#include "export.h"

#include "jsonw.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export_csv.h"
#include "export_json.h"
#include "export_svg.h"
#include "export_trace.h"

/* Buckets asked of one store_query(): more than any default tier holds
 * (4096 + the open bucket), so a query never falls back to merging. */
#define EXPORT_QUERY_MAX 16384
#define EXPORT_STEM_MAX 160 /* bytes of a file name before the extension */
#define EXPORT_CMD_MAX 40   /* bytes of the command's name in a file name */
#define EXPORT_NAME_ALT 10000


uint64_t export_rel_us(const struct export_snap *sn, uint64_t t_ns)
{
	return t_ns > sn->start_ns ? (t_ns - sn->start_ns) / 1000 : 0;
}

uint64_t export_proc_end(const struct export_snap *sn, const struct proc_rec *p)
{
	uint64_t end = p->end_ns ? p->end_ns : sn->t1_ns;

	return end < p->start_ns ? p->start_ns : end;
}

ssize_t export_str(const struct export_snap *sn, uint32_t id, char **buf, size_t *cap)
{
	for (;;) {
		ssize_t len = store_str_get(sn->st, id, *buf, *cap);

		if (len < 0 || (size_t)len <= *cap)
			return len;
		char *nb = realloc(*buf, (size_t)len);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = (size_t)len;
	}
}

void export_proc_name(const struct export_snap *sn, const struct proc_rec *p, char *out,
		      size_t cap)
{
	char buf[512];
	ssize_t len = p->argv_id ? store_str_get(sn->st, p->argv_id, buf, sizeof(buf) - 1) : -1;

	if (cap == 0)
		return;
	out[0] = '\0';
	if (len > 0) {
		if ((size_t)len > sizeof(buf) - 1)
			len = sizeof(buf) - 1;
		buf[len] = '\0'; /* argv[0] ends at the first NUL */
		const char *slash = strrchr(buf, '/');
		const char *base = slash ? slash + 1 : buf;
		if (*base) {
			snprintf(out, cap, "%s", base);
			return;
		}
	}
	if (p->comm[0])
		snprintf(out, cap, "%.*s", (int)strnlen(p->comm, sizeof(p->comm)), p->comm);
	else
		snprintf(out, cap, "pid %d", (int)p->pid);
}

/* Orders processes by start, then by id (creation order for equal starts). */
static int export_cmp_proc(const void *a, const void *b)
{
	const struct proc_rec *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Appends n buckets to sn->rows. */
static int export_rows_add(struct export_snap *sn, size_t *cap, const struct bucket *b, size_t n)
{
	if (sn->nrows + n > *cap) {
		size_t nc = (sn->nrows + n) * 2;
		struct export_row *r = realloc(sn->rows, nc * sizeof(*r));
		if (!r)
			return -ENOMEM;
		sn->rows = r;
		*cap = nc;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&sn->rows[sn->nrows], 0, sizeof(sn->rows[0]));
		sn->rows[sn->nrows].b = b[i];
		sn->nrows++;
		sn->nsamples += b[i].n;
	}
	return 0;
}

/* Tells whether a finer tier holds the time where bucket b starts: the store
 * then answers a query for that instant with a shorter bucket. */
static int export_finer_at(struct store *st, const struct bucket *b)
{
	struct bucket probe[4];

	if (b->n <= 1)
		return 0;
	size_t m = store_query(st, b->t0_ns, b->t0_ns, probe, 4);
	return m && (probe[0].t1_ns < b->t1_ns || probe[0].n < b->n);
}

/* Fills sn->rows with the series over [t0, t1] at the finest resolution the
 * store has for each part: store_query() answers from the finest tier that
 * still holds the start of the range, so the range is walked forward, and
 * each time a finer tier takes over, the rest is asked again from there. */
static int export_rows_take(struct export_snap *sn, uint64_t t0, uint64_t t1)
{
	struct bucket *q = malloc(EXPORT_QUERY_MAX * sizeof(*q));
	size_t cap = 0;
	int rc = 0;

	if (!q)
		return -ENOMEM;
	for (int round = 0; round < 64 && t0 <= t1; round++) {
		size_t n = store_query(sn->st, t0, t1, q, EXPORT_QUERY_MAX), i;

		if (n == 0)
			break;
		for (i = 1; i < n; i++)
			if (export_finer_at(sn->st, &q[i]))
				break;
		if ((rc = export_rows_add(sn, &cap, q, i)) < 0)
			break;
		if (i >= n)
			break;
		t0 = q[i].t0_ns;
	}
	free(q);
	if (rc < 0)
		return rc;
	/* Rates between consecutive rows, from the cumulative counters' values at
	 * each bucket's end (their max: they only grow). */
	for (size_t i = 1; i < sn->nrows; i++) {
		const struct bucket *a = &sn->rows[i - 1].b, *b = &sn->rows[i].b;
		struct export_row *r = &sn->rows[i];
		const uint32_t need = SAMPLE_FAULTS | SAMPLE_CPU;

		if (b->t1_ns <= a->t1_ns || (a->valid & need) != need || (b->valid & need) != need)
			continue;
		double dt = (double)(b->t1_ns - a->t1_ns) / 1e9;
		uint64_t dmin = b->max.minflt > a->max.minflt ? b->max.minflt - a->max.minflt : 0;
		uint64_t dmaj = b->max.majflt > a->max.majflt ? b->max.majflt - a->max.majflt : 0;
		uint64_t cpu0 = a->max.utime_us + a->max.stime_us;
		uint64_t cpu1 = b->max.utime_us + b->max.stime_us;
		r->minflt_per_s = (double)dmin / dt;
		r->majflt_per_s = (double)dmaj / dt;
		r->cpu_pct = cpu1 > cpu0 ? (double)(cpu1 - cpu0) / 1e4 / dt : 0;
		r->has_rates = 1;
	}
	return 0;
}

/* Copies the process records overlapping the window, in start order. */
static int export_procs_take(struct export_snap *sn)
{
	size_t cap = 256, n, k = 0;
	struct proc_rec *p = NULL;

	for (;;) {
		struct proc_rec *np = realloc(p, cap * sizeof(*p));
		if (!np) {
			free(p);
			return -ENOMEM;
		}
		p = np;
		n = store_procs(sn->st, 0, p, cap);
		if (n <= cap)
			break;
		cap = n + n / 4 + 16;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t end = p[i].end_ns ? p[i].end_ns : UINT64_MAX;

		if (p[i].start_ns <= sn->t1_ns && end >= sn->t0_ns)
			p[k++] = p[i];
	}
	qsort(p, k, sizeof(*p), export_cmp_proc);
	sn->procs = p;
	sn->nprocs = k;
	return 0;
}

/* An event and the place it came in, for a stable sort. */
struct ev_at {
	struct store_event ev;
	size_t at;
};

static int cmp_ev_at(const void *a, const void *b)
{
	const struct ev_at *x = a, *y = b;
	if (x->ev.t_ns != y->ev.t_ns)
		return (x->ev.t_ns > y->ev.t_ns) - (x->ev.t_ns < y->ev.t_ns);
	return (x->at > y->at) - (x->at < y->at);
}

/* Puts events in time order, those of one instant in the order they came
 * (as a recording reads them back: ORDER BY t_ns, rowid). The collector
 * pushes an event when it learns of it, which can be after a later one (an
 * exit is dated when it happened, found at a tick). Returns 0 or -ENOMEM. */
static int events_in_order(struct store_event *ev, size_t n)
{
	size_t i = 1;
	while (i < n && ev[i].t_ns >= ev[i - 1].t_ns)
		i++;
	if (i >= n)
		return 0; /* in order already */
	struct ev_at *v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = (struct ev_at){ev[i], i};
	qsort(v, n, sizeof(*v), cmp_ev_at);
	for (i = 0; i < n; i++)
		ev[i] = v[i].ev;
	free(v);
	return 0;
}

/* Copies the events of the window that the store's ring still holds, in
 * time order. */
static int export_events_take(struct export_snap *sn)
{
	size_t cap = 1024, n = 0;
	uint64_t cursor = 0, dropped;
	struct store_event *ev = malloc(cap * sizeof(*ev));

	if (!ev)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			struct store_event *ne = realloc(ev, 2 * cap * sizeof(*ev));
			if (!ne) {
				free(ev);
				return -ENOMEM;
			}
			ev = ne;
			cap *= 2;
		}
		size_t got = store_events(sn->st, &cursor, ev + n, cap - n, &dropped);
		sn->events_dropped += dropped;
		if (got == 0)
			break;
		size_t keep = n;
		for (size_t i = n; i < n + got; i++)
			if (ev[i].t_ns >= sn->t0_ns && ev[i].t_ns <= sn->t1_ns)
				ev[keep++] = ev[i];
		n = keep;
	}
	if (events_in_order(ev, n) < 0) {
		free(ev);
		return -ENOMEM;
	}
	sn->events = ev;
	sn->nevents = n;
	return 0;
}

void export_snap_free(struct export_snap *sn)
{
	free(sn->rows);
	free(sn->procs);
	free(sn->events);
	free(sn->ghost);
	memset(sn, 0, sizeof(*sn));
}

/* Buckets of the ghost a snapshot takes at most (store_query takes a
 * coarser tier past that). */
#define EXPORT_GHOST_MAX 8192

int export_snap_ghost(struct export_snap *sn, struct store *g, const char *label)
{
	struct store_summary gs;
	uint64_t a = 0, b = 0;

	store_summary_get(g, &gs);
	int have = store_span(g, &a, &b) == 0;
	sn->ghost_label = label;
	sn->ghost_peak = gs.peak;
	sn->ghost_start_ns = gs.start_ns ? gs.start_ns : a;
	sn->ghost_end_ns = gs.end_ns > b ? gs.end_ns : have ? b : sn->ghost_start_ns;
	if (sn->ghost_end_ns < sn->ghost_start_ns)
		sn->ghost_end_ns = sn->ghost_start_ns;
	if (!have)
		return 0;
	uint64_t g0 = sn->ghost_start_ns, g1 = sn->ghost_end_ns;
	if (sn->windowed) {
		g0 = sn->ghost_start_ns + export_rel_us(sn, sn->t0_ns) * 1000;
		g1 = sn->ghost_start_ns + export_rel_us(sn, sn->t1_ns) * 1000;
	}
	if (!(sn->ghost = malloc(EXPORT_GHOST_MAX * sizeof(*sn->ghost))))
		return -ENOMEM;
	sn->nghost = store_query(g, g0, g1, sn->ghost, EXPORT_GHOST_MAX);
	return 0;
}

int export_snap_take(struct export_snap *sn, struct store *st, char *const argv[],
		     uint64_t t0_ns, uint64_t t1_ns, uint64_t start_wall_ns)
{
	uint64_t span0 = 0, span1 = 0, wall_now;
	int have = 0, rc;

	if (t1_ns < t0_ns)
		return -EINVAL;
	memset(sn, 0, sizeof(*sn));
	sn->st = st;
	sn->argv = argv;
	store_summary_get(st, &sn->sum);
	sn->now_ns = clockns_of(CLOCK_MONOTONIC);
	wall_now = clockns_of(CLOCK_REALTIME);
	have = store_span(st, &span0, &span1) == 0;
	sn->start_ns = sn->sum.start_ns ? sn->sum.start_ns : have ? span0 : sn->now_ns;
	if (start_wall_ns) {
		/* a recording: "now" is its end, on its own clock */
		sn->now_ns = sn->sum.end_ns ? sn->sum.end_ns : have ? span1 : sn->start_ns;
		if (have && span1 > sn->now_ns)
			sn->now_ns = span1;
	}
	uint64_t back = sn->now_ns > sn->start_ns ? sn->now_ns - sn->start_ns : 0;
	uint64_t wall_start = start_wall_ns ? start_wall_ns : wall_now > back ? wall_now - back : 0;
	sn->start_wall.tv_sec = (time_t)(wall_start / 1000000000ull);
	sn->start_wall.tv_nsec = (long)(wall_start % 1000000000ull);
	if (t0_ns || t1_ns) {
		sn->windowed = 1;
		sn->t0_ns = t0_ns;
		sn->t1_ns = t1_ns;
	} else {
		sn->t0_ns = have && span0 < sn->start_ns ? span0 : sn->start_ns;
		/* The end: the command's, or now while it runs; the last sample
		 * may come a little after the command's end. */
		sn->t1_ns = sn->sum.exited ? sn->sum.end_ns : sn->now_ns;
		if (have && span1 > sn->t1_ns)
			sn->t1_ns = span1;
		if (sn->t1_ns < sn->t0_ns)
			sn->t1_ns = sn->t0_ns;
	}
	if ((have && (rc = export_rows_take(sn, sn->t0_ns, sn->t1_ns)) < 0) ||
	    (rc = export_procs_take(sn)) < 0 || (rc = export_events_take(sn)) < 0) {
		export_snap_free(sn);
		return rc;
	}
	/* The copies above took several lock holds while the collector went
	 * on; the summary taken again now is at least as new as all of them,
	 * so its peak and counts cover every row, record and event copied. */
	store_summary_get(st, &sn->sum);
	return 0;
}

int export_formats_parse(const char *list, unsigned *formats)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
		{"json", EXPORT_F_JSON}, {"csv", EXPORT_F_CSV}, {"trace", EXPORT_F_TRACE},
		{"svg", EXPORT_F_SVG},   {"all", EXPORT_F_ALL},
	};
	unsigned bits = 0;
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (len == strlen(names[i].name) && !strncmp(p, names[i].name, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -EINVAL;
		bits |= names[i].bit;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!bits)
		return -EINVAL;
	*formats = bits;
	return 0;
}

/* A FILE that remembers the first write error of its fd, so a full disk is
 * reported as ENOSPC rather than a bare stdio error flag. */
struct export_sink {
	int fd;
	int err;
};

static ssize_t export_sink_write(void *cookie, const char *buf, size_t len)
{
	struct export_sink *s = cookie;
	size_t done = 0;

	while (!s->err && done < len) {
		ssize_t w = write(s->fd, buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			s->err = w < 0 ? errno : EIO;
		else
			done += (size_t)w;
	}
	return (ssize_t)done;
}

/* One output file: its temporary and, once linked, its final name. */
struct export_file {
	unsigned fmt;
	const char *ext, *what;
	int (*write)(FILE *f, const struct export_snap *sn);
	int fd;               /* the temporary, -1 when not open */
	char tmp[NAME_MAX + 1]; /* named temporary in the directory; "" for O_TMPFILE */
	char name[NAME_MAX + 1]; /* final name once linked; "" before */
};

/* Opens a temporary file in dirfd: unnamed (O_TMPFILE, so a crash leaves
 * nothing) where the file system and /proc allow, else a hidden name created
 * with O_EXCL. Returns 0 or -errno. */
static int export_tmp_open(int dirfd, struct export_file *ef)
{
	static unsigned seq;

	ef->tmp[0] = '\0';
	if (access("/proc/self/fd", X_OK) == 0) {
		ef->fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
		if (ef->fd >= 0)
			return 0;
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return -errno;
	}
	for (int tries = 0; tries < 100; tries++) {
		snprintf(ef->tmp, sizeof(ef->tmp), ".spacetime-%d-%u%s.tmp", (int)getpid(),
			 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED), ef->ext);
		ef->fd = openat(dirfd, ef->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (ef->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	int err = errno;
	ef->tmp[0] = '\0';
	return -err;
}

/* Writes one format into its (open) temporary file and makes it durable:
 * every write, the flush, the close and the fsync are checked. */
static int export_file_write(struct export_file *ef, const struct export_snap *sn)
{
	static const cookie_io_functions_t io = {.write = export_sink_write};
	struct export_sink sink;
	int rc;

	sink.fd = ef->fd;
	sink.err = 0;
	FILE *f = fopencookie(&sink, "w", io);
	if (!f)
		return -errno;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	rc = ef->write(f, sn);
	if (fflush(f) != 0 && !sink.err)
		sink.err = errno ? errno : EIO;
	if (ferror(f) && !sink.err)
		sink.err = EIO;
	if (fclose(f) != 0 && !sink.err)
		sink.err = errno ? errno : EIO;
	if (sink.err)
		return -sink.err;
	if (rc < 0)
		return rc;
	if (fsync(ef->fd) < 0 && errno != EINVAL)
		return -errno;
	return 0;
}

/* Gives the temporary its final name; fails with -EEXIST rather than replace
 * a file. Hard links where the file system has them, else renameat2 with
 * RENAME_NOREPLACE. */
static int export_file_link(int dirfd, struct export_file *ef, const char *name)
{
	int r;

	if (!ef->tmp[0]) {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", ef->fd);
		r = linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW);
	} else {
		r = linkat(dirfd, ef->tmp, dirfd, name, 0);
		if (r < 0 && (errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS)) {
			r = renameat2(dirfd, ef->tmp, dirfd, name, RENAME_NOREPLACE);
			if (r == 0)
				ef->tmp[0] = '\0';
		}
	}
	if (r < 0)
		return -errno;
	snprintf(ef->name, sizeof(ef->name), "%s", name);
	return 0;
}

/* Removes a final name this call created (on a later failure). */
static void export_file_unlink(int dirfd, struct export_file *ef)
{
	if (ef->name[0])
		unlinkat(dirfd, ef->name, 0);
	ef->name[0] = '\0';
}

/* Closes the temporary and removes its name if it has one. */
static void export_file_close(int dirfd, struct export_file *ef)
{
	if (ef->fd >= 0)
		close(ef->fd);
	ef->fd = -1;
	if (ef->tmp[0])
		unlinkat(dirfd, ef->tmp, 0);
	ef->tmp[0] = '\0';
}

/* The file name stem: the command's basename (characters safe in any shell
 * and file system; others become '_'), the start time, and the window. */
static void export_stem(const struct export_snap *sn, char *out, size_t cap)
{
	char cmd[EXPORT_CMD_MAX + 1], when[32] = "", win[64] = "";
	const char *a0 = sn->argv && sn->argv[0] ? sn->argv[0] : "";
	const char *slash = strrchr(a0, '/');
	size_t k = 0;
	struct tm tm;

	for (const char *p = slash ? slash + 1 : a0; *p && k < EXPORT_CMD_MAX; p++) {
		unsigned char c = (unsigned char)*p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '_' || c == '-' || c == '+' || (c == '.' && k > 0);
		cmd[k++] = ok ? (char)c : '_';
	}
	cmd[k] = '\0';
	if (!k)
		snprintf(cmd, sizeof(cmd), "run");
	if (localtime_r(&sn->start_wall.tv_sec, &tm))
		strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	if (sn->windowed)
		snprintf(win, sizeof(win), "-t%.1f-%.1f", (double)export_rel_us(sn, sn->t0_ns) / 1e6,
			 (double)export_rel_us(sn, sn->t1_ns) / 1e6);
	snprintf(out, cap, "%s-%s%s", cmd, when, win);
}

/* Appends to msg (a one-line, space-separated list), truncating. */
static void export_msg_add(char *msg, size_t cap, const char *dir, const char *name)
{
	size_t len = strlen(msg);

	if (len + 1 < cap)
		snprintf(msg + len, cap - len, "%s%s%s%s", len ? " " : "", dir,
			 dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

/* Links every temporary under one stem, the first STEM[-N] for which none of
 * the names exists. Returns 0, or -errno with the name that failed in bad. */
static int export_link_all(int dirfd, struct export_file *f, int nf, const char *stem,
			   char *bad, size_t badcap)
{
	char name[NAME_MAX + 1];

	for (int alt = 1; alt < EXPORT_NAME_ALT; alt++) {
		int i, err = 0;

		for (i = 0; i < nf; i++) {
			if (alt == 1)
				snprintf(name, sizeof(name), "%s%s", stem, f[i].ext);
			else
				snprintf(name, sizeof(name), "%s-%d%s", stem, alt, f[i].ext);
			if ((err = export_file_link(dirfd, &f[i], name)) < 0)
				break;
		}
		if (i == nf)
			return 0;
		for (int j = 0; j < i; j++)
			export_file_unlink(dirfd, &f[j]);
		if (err != -EEXIST) {
			snprintf(bad, badcap, "%s", name);
			return err;
		}
	}
	snprintf(bad, badcap, "%s", name);
	return -EEXIST;
}

int export_dir_check(const char *dir)
{
	int dirfd, fd, rc = 0;

	if (!dir || !dir[0])
		dir = ".";
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	/* an unnamed file vanishes on close: nothing is left in the directory */
	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		rc = -errno;
	else if (faccessat(dirfd, ".", W_OK | X_OK, AT_EACCESS) < 0)
		rc = -errno;
	close(dirfd);
	return rc;
}

int export_snapshot(struct store *st, char *const argv[], const struct export_opts *o,
		    char *msg, size_t cap)
{
	struct export_file f[] = {
		{EXPORT_F_JSON, ".json", "JSON", export_json_snapshot, -1, "", ""},
		{EXPORT_F_CSV, ".csv", "CSV", export_csv_write, -1, "", ""},
		{EXPORT_F_TRACE, ".trace.json", "trace", export_trace_write, -1, "", ""},
		{EXPORT_F_SVG, ".svg", "SVG", export_svg_write, -1, "", ""},
	};
	const int nall = (int)(sizeof(f) / sizeof(f[0]));
	const char *dir = o && o->dir && o->dir[0] ? o->dir : ".";
	unsigned formats = o && o->formats ? o->formats : EXPORT_F_ALL;
	char stem[EXPORT_STEM_MAX], bad[NAME_MAX + 1] = "";
	char dummy[1];
	struct export_snap sn;
	int nf = 0, rc, dirfd;

	if (!msg || !cap) {
		msg = dummy;
		cap = sizeof(dummy);
	}
	msg[0] = '\0';
	for (int i = 0; i < nall; i++)
		if (formats & f[i].fmt)
			f[nf++] = f[i];
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		rc = -errno;
		snprintf(msg, cap, "cannot export to %s: %s (no files written)", dir, strerror(-rc));
		return rc;
	}
	rc = export_snap_take(&sn, st, argv, o ? o->t0_ns : 0, o ? o->t1_ns : 0, o ? o->start_wall_ns : 0);
	if (rc == 0 && o && o->against && (formats & EXPORT_F_SVG) && (rc = export_snap_ghost(&sn, o->against, o->against_label)) < 0)
		export_snap_free(&sn);
	if (rc < 0) {
		snprintf(msg, cap, "cannot take a snapshot of the run: %s (no files written)",
			 strerror(-rc));
		close(dirfd);
		return rc;
	}
	for (int i = 0; i < nf; i++) {
		if ((rc = export_tmp_open(dirfd, &f[i])) < 0) {
			snprintf(msg, cap, "cannot create files in %s: %s (no files written)", dir,
				 strerror(-rc));
			goto out;
		}
		if ((rc = export_file_write(&f[i], &sn)) < 0) {
			snprintf(msg, cap, "writing the %s snapshot in %s failed: %s (no files written)",
				 f[i].what, dir, strerror(-rc));
			goto out;
		}
	}
	export_stem(&sn, stem, sizeof(stem));
	if ((rc = export_link_all(dirfd, f, nf, stem, bad, sizeof(bad))) < 0) {
		snprintf(msg, cap, "cannot create %s/%s: %s (no files written)", dir, bad,
			 strerror(-rc));
		goto out;
	}
	if (fsync(dirfd) < 0 && errno != EINVAL && errno != EBADF) {
		rc = -errno;
		for (int i = 0; i < nf; i++)
			export_file_unlink(dirfd, &f[i]);
		snprintf(msg, cap, "syncing %s failed: %s (no files written)", dir, strerror(-rc));
		goto out;
	}
	for (int i = 0; i < nf; i++)
		export_msg_add(msg, cap, dir, f[i].name);
	rc = nf;
out:
	for (int i = 0; i < nf; i++)
		export_file_close(dirfd, &f[i]);
	close(dirfd);
	export_snap_free(&sn);
	return rc;
}

void export_argv_json(FILE *f, const struct export_snap *sn, uint32_t id, char **buf, size_t *cap)
{
	ssize_t len = id ? export_str(sn, id, buf, cap) : -1;

	if (len >= 0)
		jsonw_argv(f, *buf, (size_t)len);
	else
		fputs("null", f);
}
