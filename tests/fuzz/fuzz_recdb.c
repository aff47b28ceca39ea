/* fuzz_recdb: a recording as a reader finds it. The input is an SQLite
 * database image, written to a file of this process's own directory and
 * opened read-only by recdb_open() (the product's open and checks: header,
 * meta, schema version, quick_check). Then what the readers do: the list of
 * runs, "last" and each id resolved, the first FUZZ_RECDB_RUNS runs loaded,
 * and on each loaded store what the front ends read (summary, samples,
 * buckets, events, process records, execs, their command lines), the text
 * report, the JSON summary, the snapshot's four formats, the process list
 * and output at the start, the peak and the end, the forecast of it (its
 * job list, with itself as another recording of the build, replayed at
 * -j1, the recorded -j and all the jobs at once), and a follow into a fresh
 * store. Invariants besides memory safety: the codes recdb.h documents, a
 * one-line message with each failure, JSON output that parses, counts
 * within what was asked. SQLite is the system's uninstrumented library:
 * coverage guides by spacetime's code only, and a fault inside SQLite is
 * not seen by ASan (see README.md). */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "export.h"
#include "export_csv.h"
#include "export_json.h"
#include "export_svg.h"
#include "export_trace.h"
#include "forecast.h"
#include "forecast_rec.h"
#include "moment.h"
#include "peakmaps.h"
#include "recdb.h"
#include "report.h"

/* Runs loaded per input: the seeds hold three kinds (ended, attached and
 * detached, still running); a reader loads one, and more would only repeat
 * the work. */
#define FUZZ_RECDB_RUNS 3
/* Lines of output asked for at an instant (the dashboard's pane asks 200). */
#define FUZZ_RECDB_LINES 8
#define FUZZ_RECDB_PREFIX "spacetime-fuzz-recdb."

static char dir[PATH_MAX], dbpath[PATH_MAX + 16];
static FILE *devnull;
/* Findings not fixed yet (README.md, "recdb: open findings") are stepped
 * around when FUZZ_RECDB_SKIP_KNOWN is set, so that a long run looks for
 * others past them; each fix removes its skip. make fuzz never sets it. */
static int skip_known;

/* Removes path and its -wal, -shm and -journal files (gone already: fine). */
static void rm_db(const char *path)
{
	static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
	char p[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
		unlink(p);
	}
}

static void cleanup(void)
{
	rm_db(dbpath);
	rmdir(dir);
}

/* Removes the directories of earlier runs of this target whose process is
 * gone (a crash leaves its directory behind). */
static void sweep_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[PATH_MAX];
		long pid;

		if (strncmp(e->d_name, FUZZ_RECDB_PREFIX, strlen(FUZZ_RECDB_PREFIX)) != 0)
			continue;
		pid = strtol(e->d_name + strlen(FUZZ_RECDB_PREFIX), NULL, 10);
		if (pid <= 0 || pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(p, sizeof(p), "%s/%s/rec.db", base, e->d_name);
		rm_db(p);
		snprintf(p, sizeof(p), "%s/%s", base, e->d_name);
		rmdir(p);
	}
	closedir(d);
}

/* One directory per process, made once: in $TMPDIR when set, else on tmpfs
 * (/dev/shm) when there is one, else in /tmp. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *base = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	if (!base || !*base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	sweep_stale(base);
	snprintf(dir, sizeof(dir), "%s/" FUZZ_RECDB_PREFIX "%ld", base, (long)getpid());
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "fuzz_recdb: cannot make %s: %s\n", dir, strerror(errno));
		abort();
	}
	snprintf(dbpath, sizeof(dbpath), "%s/rec.db", dir);
	devnull = fopen("/dev/null", "w");
	FUZZ_CHECK(devnull != NULL);
	skip_known = getenv("FUZZ_RECDB_SKIP_KNOWN") != NULL;
	atexit(cleanup);
	return 0;
}

/* Writes the image to dbpath, with no -wal or -shm of an earlier input. */
static void put_image(const uint8_t *data, size_t size)
{
	int fd;

	rm_db(dbpath);
	fd = open(dbpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	FUZZ_CHECK(fd >= 0);
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);

		FUZZ_CHECK(n > 0);
		off += (size_t)n;
	}
	FUZZ_CHECK(close(fd) == 0);
}

/* A failure as recdb.h promises it: one of its codes and a one-line message. */
static void check_fail(struct recdb *db, int rc, const char *msg)
{
	if (!msg)
		msg = recdb_errmsg(db);
	FUZZ_CHECK(rc == -EBADMSG || rc == -EMEDIUMTYPE || rc == -EPROTONOSUPPORT ||
		   rc == -ENOSPC || rc == -EROFS || rc == -EACCES || rc == -EBUSY ||
		   rc == -ENOENT || rc == -EIO || rc == -ENOMEM || rc == -EINVAL);
	FUZZ_CHECK(msg[0] != '\0');
	/* never out of memory: under ASan a failed allocation aborts, so an
	 * -ENOMEM is a misreport (known: a NULL output line reads as one, and
	 * SQLite's SQLITE_NOMEM for a file whose size fields it cannot trust,
	 * passed on at open as "out of memory") */
	FUZZ_CHECK(rc != -ENOMEM ||
		   (skip_known && (strcmp(msg, "output: out of memory") == 0 ||
				   strstr(msg, ": reading the database: out of memory"))));
	/* known: quick_check's report, several lines, is put in the message */
	if (skip_known && strstr(msg, "corrupt or truncated ("))
		return;
	FUZZ_CHECK(strchr(msg, '\n') == NULL);
}

/* JSON (RFC 8259) as the exports write it: one value, then nothing but
 * whitespace. A structural reader, so "nan", "inf" or a stray comma fail;
 * strings are checked by fuzz_jsonw. */
struct jrd {
	const char *p, *end;
	int depth;
};

static void j_ws(struct jrd *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

static int j_lit(struct jrd *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0)
		return 0;
	j->p += n;
	return 1;
}

static void j_digits(struct jrd *j)
{
	FUZZ_CHECK(j->p < j->end && *j->p >= '0' && *j->p <= '9');
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
}

static void j_number(struct jrd *j)
{
	if (*j->p == '-')
		j->p++;
	FUZZ_CHECK(j->p < j->end);
	if (*j->p == '0')
		j->p++;
	else
		j_digits(j);
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		j_digits(j);
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		j_digits(j);
	}
}

static void j_string(struct jrd *j)
{
	j->p++;
	for (;;) {
		FUZZ_CHECK(j->p < j->end);
		unsigned char c = (unsigned char)*j->p++;

		if (c == '"')
			return;
		FUZZ_CHECK(c >= 0x20);
		if (c == '\\') {
			FUZZ_CHECK(j->p < j->end && strchr("\"\\/bfnrtu", *j->p));
			j->p++;
		}
	}
}

static void j_value(struct jrd *j)
{
	j_ws(j);
	FUZZ_CHECK(j->p < j->end);
	char c = *j->p;

	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';

		FUZZ_CHECK(++j->depth < 64);
		j->p++;
		j_ws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			j->depth--;
			return;
		}
		for (;;) {
			if (c == '{') {
				j_ws(j);
				FUZZ_CHECK(j->p < j->end && *j->p == '"');
				j_string(j);
				j_ws(j);
				FUZZ_CHECK(j->p < j->end && *j->p == ':');
				j->p++;
			}
			j_value(j);
			j_ws(j);
			FUZZ_CHECK(j->p < j->end);
			if (*j->p == close)
				break;
			FUZZ_CHECK(*j->p == ',');
			j->p++;
		}
		j->p++;
		j->depth--;
	} else if (c == '"') {
		j_string(j);
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		j_number(j);
	} else {
		FUZZ_CHECK(j_lit(j, "true") || j_lit(j, "false") || j_lit(j, "null"));
	}
}

static void check_json(const char *text, size_t len)
{
	struct jrd j = {.p = text, .end = text + len};

	j_value(&j);
	j_ws(&j);
	FUZZ_CHECK(j.p == j.end);
}

/* The run's argv as the replay makes it (ui/history.c history_argv): the
 * row's NUL-separated bytes as a NULL-terminated array, "?" when none. */
static char **row_argv(const struct recdb_run_row *r)
{
	size_t n = 0, len = r->argv ? r->argv_len : 0;

	for (size_t i = 0; i < len; i++)
		n += r->argv[i] == 0;
	if (len && r->argv[len - 1])
		n++;
	char **av = malloc((n + 2) * sizeof(char *) + len + 1);
	FUZZ_CHECK(av != NULL);
	char *s = (char *)(av + n + 2);
	if (len)
		memcpy(s, r->argv, len);
	s[len] = 0;
	size_t k = 0;
	for (size_t i = 0; i < len; i += strlen(s + i) + 1)
		av[k++] = s + i;
	if (!k)
		av[k++] = "?";
	av[k] = NULL;
	return av;
}

/* Copies interned string id as the front ends do; an id a record holds is
 * in the pool. */
static void read_str(struct store *st, uint32_t id)
{
	char small[16], *big;
	ssize_t n;

	if (!id)
		return;
	n = store_str_get(st, id, small, sizeof(small));
	FUZZ_CHECK(n >= 0);
	if ((size_t)n <= sizeof(small))
		return;
	big = malloc((size_t)n);
	FUZZ_CHECK(big != NULL);
	FUZZ_CHECK(store_str_get(st, id, big, (size_t)n) == n);
	free(big);
}

/* What the dashboard, plain mode and exports read from a store. */
static void read_store(struct store *st)
{
	struct store_summary sum;
	struct sample smp[64];
	struct store_event ev[64];
	struct bucket bk[128];
	struct store_proc_sample ps[16];
	uint64_t cur = 0, dropped, t0, t1;
	size_t n, total;

	store_summary_get(st, &sum);
	while ((n = store_samples(st, &cur, smp, 64, &dropped)) > 0)
		FUZZ_CHECK(n <= 64);
	if (store_span(st, &t0, &t1) == 0) {
		FUZZ_CHECK(t0 <= t1);
		FUZZ_CHECK(store_query(st, t0, t1, bk, 128) <= 128);
		FUZZ_CHECK(store_query(st, t0, t0 + (t1 - t0) / 2, bk, 7) <= 7);
	}
	cur = 0;
	while ((n = store_events(st, &cur, ev, 64, &dropped)) > 0)
		FUZZ_CHECK(n <= 64);
	cur = 0;
	while ((n = store_proc_samples(st, &cur, ps, 16, &dropped)) > 0)
		FUZZ_CHECK(n <= 16);

	for (int which = STORE_PROCS_ALL; which <= STORE_PROCS_EXITED; which++) {
		total = store_procs(st, which, NULL, 0);
		struct proc_rec *v = calloc(total ? total : 1, sizeof(*v));
		FUZZ_CHECK(v != NULL);
		n = store_procs(st, which, v, total);
		FUZZ_CHECK(n == total);
		for (size_t i = 0; i < n; i++) {
			FUZZ_CHECK(which != STORE_PROCS_LIVE || v[i].end_ns == 0);
			FUZZ_CHECK(which != STORE_PROCS_EXITED || v[i].end_ns != 0);
			read_str(st, v[i].argv_id);
		}
		free(v);
	}
	total = store_execs(st, 0, NULL, 0);
	struct store_exec *x = calloc(total ? total : 1, sizeof(*x));
	FUZZ_CHECK(x != NULL);
	FUZZ_CHECK(store_execs(st, 0, x, total) == total);
	for (size_t i = 0; i < total; i++)
		read_str(st, x[i].argv_id);
	free(x);
}

/* Writes with w into memory and checks it is JSON (json) or just written. */
static void put_mem(int json, int (*w)(FILE *, void *), void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	FUZZ_CHECK(f != NULL);
	FUZZ_CHECK(w(f, arg) == 0);
	FUZZ_CHECK(fclose(f) == 0);
	if (json)
		check_json(text, len);
	free(text);
}

struct sum_arg {
	struct store *st;
	char **argv;
};

static int w_summary(FILE *f, void *a)
{
	struct sum_arg *s = a;

	return export_json_summary(f, s->st, s->argv);
}

static int w_snapshot(FILE *f, void *a)
{
	return export_json_snapshot(f, a);
}

static int w_trace(FILE *f, void *a)
{
	return export_trace_write(f, a);
}

/* The summary, text and JSON, and the snapshot's formats (spacetime
 * replay without a terminal, spacetime export). */
static void write_exports(struct store *st, char **argv, const struct recdb_run_row *row, int k)
{
	struct report_opts ro = {.verbose = k & 1, .utf8 = !(k & 2), .top = REPORT_TOP,
				 .notice = "replay of run 1"};
	struct sum_arg sa = {.st = st, .argv = argv};
	struct store_summary sum;
	struct export_snap sn;
	int json = 1;

	store_summary_get(st, &sum);
	/* known: attach_n is not bounded by STORE_ATTACH_MAX when read back,
	 * and the report and the JSON loop over attach_pid[] by it */
	if (skip_known && sum.attach_n > STORE_ATTACH_MAX)
		return;
	/* known: a share read back as infinite is written as "inf" */
	if (skip_known && !isfinite(sum.pss_est_share))
		json = 0;
	FUZZ_CHECK(report_text(devnull, st, argv, &ro) == 0);
	put_mem(json, w_summary, &sa);
	/* the whole run: it fails only out of memory, which aborts under ASan */
	FUZZ_CHECK(export_snap_take(&sn, st, argv, 0, 0, row->start_wall_ns) == 0);
	put_mem(json, w_snapshot, &sn);
	put_mem(1, w_trace, &sn);
	FUZZ_CHECK(export_csv_write(devnull, &sn) == 0);
	FUZZ_CHECK(export_svg_write(devnull, &sn) == 0);
	export_snap_free(&sn);
}

/* The run at instant t, as every pane at the cursor takes it (moment.h:
 * src/run.c run_moment, ui/tui.c tui_refresh_at): each process alive then,
 * with its command line, and the output up to then. */
static void read_at(struct store *st, uint64_t t)
{
	struct moment m;

	FUZZ_CHECK(moment_take(st, t, t, FUZZ_RECDB_LINES, &m) == 0);
	FUZZ_CHECK(m.nprocs <= m.made);
	for (size_t i = 0; i < m.nprocs; i++)
		read_str(st, m.procs[i].argv_id);
	FUZZ_CHECK(m.nlines <= FUZZ_RECDB_LINES);
	for (size_t i = 0; i < m.nlines; i++)
		FUZZ_CHECK(m.lines[i].bytes != NULL);
	moment_free(&m);
}

/* What spacetime forecast does with a run (ui/forecast.c): its job list,
 * with itself as another recording of the build (--deps), replayed at -j1,
 * at the recorded -j and with all the jobs at once. A job list is a model
 * forecast_run takes: it fails only out of memory. */
static void forecast_store(struct store *st)
{
	struct forecast_rec *fr;
	struct forecast_result res;
	int rc = forecast_rec_build(st, &st, 1, &fr);

	if (rc < 0) {
		FUZZ_CHECK(fr == NULL && (rc == -ENODATA || rc == -ENOMEM));
		return;
	}
	const struct forecast_rec_info *in = forecast_rec_info(fr);
	struct forecast_model m = *forecast_rec_model(fr);
	unsigned all = in->njobs < FORECAST_SLOTS_MAX ? (unsigned)in->njobs : FORECAST_SLOTS_MAX;
	unsigned slots[] = {1, in->recorded_slots ? in->recorded_slots : all, all ? all : 1};

	FUZZ_CHECK(in->njobs > 0 && m.njobs >= in->njobs);
	m.cores = 2;
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
		rc = forecast_run(&m, slots[i], &res);
		FUZZ_CHECK(rc == 0 || rc == -ENOMEM);
		FUZZ_CHECK(rc < 0 || res.n_at_peak <= FORECAST_PEAK_JOBS);
		for (size_t k = 0; rc == 0 && k < res.n_at_peak; k++)
			FUZZ_CHECK(res.at_peak[k].job < m.njobs && forecast_rec_job(fr, res.at_peak[k].job) != NULL);
	}
	forecast_rec_free(fr);
}

/* Loads run row and does what the replay and export of it do. */
static void load_run(struct recdb *db, const struct recdb_run_row *row, int k)
{
	struct store *st = NULL;
	struct store_summary sum;
	int rc = recdb_load(db, row->id, &st);

	if (rc < 0) {
		FUZZ_CHECK(st == NULL);
		check_fail(db, rc, NULL);
		return;
	}
	FUZZ_CHECK(st != NULL);
	/* what it left out, if anything, in one line */
	FUZZ_CHECK(strchr(recdb_warning(db), '\n') == NULL);
	read_store(st);
	char **argv = row_argv(row);
	write_exports(st, argv, row, k);
	free(argv);
	store_summary_get(st, &sum);
	read_at(st, sum.start_ns);
	read_at(st, sum.peak.t_ns);
	read_at(st, sum.end_ns > sum.last.t_ns ? sum.end_ns : sum.last.t_ns);
	forecast_store(st);
	store_free(st);
	/* the peak's maps, as a replay's m reads them: bounded names and kinds */
	struct peakmaps_row *maps;
	ssize_t nm = recdb_peak_maps(db, row->id, &maps);
	if (nm < 0) {
		FUZZ_CHECK(maps == NULL);
		check_fail(db, (int)nm, NULL);
	}
	for (ssize_t i = 0; i < nm; i++) {
		FUZZ_CHECK(maps[i].g.kind < SMAPS_KINDS);
		FUZZ_CHECK(memchr(maps[i].g.name, 0, sizeof(maps[i].g.name)) != NULL);
	}
	free(maps);
}

/* A run still being recorded, read as it grows: two polls into a new store
 * (smaller than the replay's default one: the reads are the same, and each
 * input makes FUZZ_RECDB_RUNS of them, megabytes that ASan poisons). */
static void follow_run(struct recdb *db, int64_t id)
{
	struct store_config cfg = {.tier0_len = 512, .tier_len = 256, .events_len = 1024};
	struct recdb_follow f;
	struct store *st = store_new(&cfg);

	FUZZ_CHECK(st != NULL);
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < 2; i++) {
		int rc = recdb_follow(db, id, st, &f);

		if (rc < 0) {
			check_fail(db, rc, NULL);
			break;
		}
		FUZZ_CHECK(rc <= 1);
	}
	read_store(st);
	store_free(st);
}

/* The structure-aware half of the mutations: the input opened as an
 * in-memory database (sqlite3_deserialize), one row of a recording's table
 * changed to a value a writer never writes, or deleted, or copied, and the
 * image taken back (sqlite3_serialize). Byte mutations mostly make a file
 * that SQLite refuses before any of spacetime's reading runs; these keep it
 * sound and reach the reader with odd values. The other half are libFuzzer's
 * own byte mutations. */
struct mut_table {
	const char *name, *key; /* key: the columns that name a row */
	const char *cols;       /* its columns, space-separated */
};

static const struct mut_table mut_tables[] = {
	{"meta", "rowid", "key value"},
	{"runs", "rowid", "id start_wall_ns base_ns argv cwd host source end_state incomplete note "
			  "wall_ns updated_wall_ns peak_pss_kib peak_t_ns exit_status ru_utime_us "
			  "ru_stime_us ru_maxrss_kib ru_minflt ru_majflt total_procs total_threads "
			  "total_execs lost_events mode"},
	{"run_summary", "run_id, key", "run_id key value value value value"},
	{"samples", "rowid", "run_id t_ns pss_kib pss_anon_kib pss_file_kib pss_shmem_kib "
			     "pss_est_kib pss_hi_kib rss_kib minflt majflt utime_us stime_us "
			     "live_procs live_threads total_procs total_threads valid"},
	{"processes", "rowid", "run_id id seq pid ppid start_ns end_ns comm argv exit_status threads "
			       "nexec pss_kib rss_kib peak_pss_kib peak_pss_t_ns peak_rss_kib "
			       "pss_age_ns utime_us stime_us minflt majflt valid"},
	{"proc_samples", "rowid", "run_id proc_id t_ns pss_kib rss_kib cpu_us minflt majflt"},
	{"events", "rowid", "run_id t_ns type pid ppid arg"},
	{"execs", "run_id, idx", "run_id idx t_ns pid ppid comm argv"},
	{"output", "rowid", "run_id t_ns line"},
};

static const int64_t mut_ints[] = {
	0, 1, -1, 2, 3, 7, 16, 17, 63, 64, 65, 127, 128, 255, 256, 1000, 4095, 4096, 65535, 65536,
	100000000, 1000000000, INT32_MAX, INT32_MIN, UINT32_MAX, (int64_t)UINT32_MAX + 1,
	1000000000000000000, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
	INT64_MAX / 1024 + 1, INT64_MAX / 1000 + 1,
};

static const char *const mut_texts[] = {
	"", "x", "-1", "12abc", "running", "exited", "detached", "interrupted", "failed",
	"spawned", "attached", "spacetime", "schema_version", "application", "attach_pid.64",
	"last.t_ns", "peak.pss_kib", "attach_n", "\xff\xfe\x00z",
};

/* Summary keys a mutation may add: real ones and what a reader may meet. */
static const char *const mut_keys[] = {
	"attach_n", "attach_pid.0", "attach_pid.63", "attach_pid.64", "attach_pid.65",
	"attach_pid.4294967295", "attach_pid.-1", "attach_pid.", "attached", "detached",
	"start_ns", "end_ns", "root_end_ns", "exited", "wait_status", "interval_ms", "mode",
	"total_execs", "pss_est_share", "peak_measured", "peak.t_ns", "peak.pss_kib",
	"peak.pss_est_kib", "peak.valid", "last.t_ns", "last.live_procs", "last.total_procs",
	"last.valid", "last.", "peak.nosuch", "taskstats", "ts_records",
};

static uint64_t mut_rng(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Binds parameter i to an odd value: NULL, an edge integer, a random one, a
 * real (infinities too), text or bytes. */
static void mut_bind(sqlite3_stmt *s, int i, uint64_t *x)
{
	unsigned char b[24];
	size_t n;

	switch (mut_rng(x) % 8) {
	case 0:
		sqlite3_bind_null(s, i);
		break;
	case 1:
	case 2:
	case 3:
		sqlite3_bind_int64(s, i, mut_ints[mut_rng(x) % (sizeof(mut_ints) / sizeof(mut_ints[0]))]);
		break;
	case 4:
		sqlite3_bind_int64(s, i, (int64_t)(mut_rng(x) >> (mut_rng(x) % 64)));
		break;
	case 5: {
		static const double d[] = {INFINITY, -INFINITY, 0.5, -0.5, 1e300, -1e300, 1.8e19, 9.3e18};

		sqlite3_bind_double(s, i, d[mut_rng(x) % (sizeof(d) / sizeof(d[0]))]);
		break;
	}
	case 6:
		n = mut_rng(x) % (sizeof(mut_texts) / sizeof(mut_texts[0]));
		sqlite3_bind_text(s, i, mut_texts[n], -1, SQLITE_STATIC);
		break;
	default:
		n = mut_rng(x) % sizeof(b);
		for (size_t k = 0; k < n; k++)
			b[k] = (unsigned char)(mut_rng(x) % 3 == 0 ? 0 : mut_rng(x));
		sqlite3_bind_blob(s, i, b, (int)n, SQLITE_TRANSIENT);
	}
}

/* The n-th word of a space-separated list (n taken modulo their count). */
static void mut_word(const char *list, uint64_t n, char *out, size_t cap)
{
	size_t words = 1, len;
	const char *p = list, *e;

	for (const char *c = list; *c; c++)
		words += *c == ' ';
	for (n %= words; n; n--)
		p = strchr(p, ' ') + 1;
	e = strchr(p, ' ');
	len = e ? (size_t)(e - p) : strlen(p);
	snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), p);
}

/* One change of the database db, by the random state x; 0 when it ran. */
static int mut_sql(sqlite3 *db, uint64_t *x)
{
	const struct mut_table *t = &mut_tables[mut_rng(x) % (sizeof(mut_tables) / sizeof(mut_tables[0]))];
	char sql[512], col[32];
	sqlite3_stmt *s = NULL;
	int64_t rows = 0;
	int rc, op = (int)(mut_rng(x) % 16);

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", t->name);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK || sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return -1;
	}
	rows = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	mut_word(t->cols, mut_rng(x), col, sizeof(col));
	if (op == 0 && strcmp(t->name, "run_summary") == 0)
		snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO run_summary VALUES"
			 " ((SELECT run_id FROM run_summary LIMIT 1 OFFSET ?2), ?3, ?1)");
	else if (rows == 0)
		return -1;
	else if (op == 0)
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE (%s) IN (SELECT %s FROM %s LIMIT 1 OFFSET ?2)",
			 t->name, t->key, t->key, t->name);
	else if (op == 1)
		snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO %s SELECT * FROM %s LIMIT 1 OFFSET ?2",
			 t->name, t->name);
	else if (op <= 3)
		/* near the value there: an off-by-one, a sign, a scale */
		snprintf(sql, sizeof(sql), "UPDATE OR IGNORE %s SET %s = %s %s WHERE (%s) IN"
			 " (SELECT %s FROM %s LIMIT 1 OFFSET ?2)", t->name, col, col,
			 op == 2 ? "+ (?1 % 3)" : "* -1", t->key, t->key, t->name);
	else
		snprintf(sql, sizeof(sql), "UPDATE OR IGNORE %s SET %s = ?1 WHERE (%s) IN"
			 " (SELECT %s FROM %s LIMIT 1 OFFSET ?2)", t->name, col, t->key, t->key, t->name);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return -1;
	}
	if (op == 2)
		sqlite3_bind_int64(s, 1, (int64_t)(mut_rng(x) % 7) - 3);
	else
		mut_bind(s, 1, x);
	sqlite3_bind_int64(s, 2, rows ? (int64_t)(mut_rng(x) % (uint64_t)rows) : 0);
	if (sqlite3_bind_parameter_count(s) >= 3)
		sqlite3_bind_text(s, 3, mut_keys[mut_rng(x) % (sizeof(mut_keys) / sizeof(mut_keys[0]))],
				  -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint64_t x = (uint64_t)seed * 0x9e3779b97f4a7c15ull | 1;
	sqlite3 *db = NULL;
	unsigned char *img, *out;
	sqlite3_int64 outlen = 0;
	size_t n = 0;

	if (mut_rng(&x) % 2 == 0 || size < 512)
		return LLVMFuzzerMutate(data, size, max_size);
	img = sqlite3_malloc64(size);
	if (img && sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		memcpy(img, data, size);
		/* the connection owns img from here, whatever the result */
		if (sqlite3_deserialize(db, "main", img, (sqlite3_int64)size, (sqlite3_int64)size,
					SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) ==
			    SQLITE_OK &&
		    mut_sql(db, &x) == 0) {
			out = sqlite3_serialize(db, "main", &outlen, 0);
			if (out && outlen > 0 && (size_t)outlen <= max_size) {
				memcpy(data, out, (size_t)outlen);
				n = (size_t)outlen;
			}
			sqlite3_free(out);
		}
		img = NULL;
	}
	sqlite3_free(img);
	sqlite3_close(db);
	return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

/* recdb_resolve of a spec: a run that exists, or one of its two refusals. */
static void resolve(struct recdb *db, const char *spec)
{
	int64_t id = 0;
	int rc = recdb_resolve(db, spec, &id);

	if (rc < 0)
		check_fail(db, rc, NULL);
	else
		FUZZ_CHECK(rc == 0);
}

/* Whether the file at dbpath has a view: known, SQLite runs a view of a
 * recording when the reader reads it as its table, and one of a billion
 * rows (or a recursion that never ends) hangs the reader. */
static int has_view(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int found = 0;

	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type = 'view'", -1, &s,
			       NULL) == SQLITE_OK)
		found = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	sqlite3_close(db);
	return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recdb *db = NULL;
	struct recdb_run_row *rows = NULL;
	char msg[512], spec[32];
	ssize_t n;
	int rc;

	put_image(data, size);
	if (skip_known && has_view())
		return 0;
	rc = recdb_open(dbpath, RECDB_RDONLY, &db, msg, sizeof(msg));
	if (rc < 0) {
		FUZZ_CHECK(db == NULL);
		check_fail(NULL, rc, msg);
		return 0;
	}
	FUZZ_CHECK(rc == 0 && db != NULL);

	n = recdb_runs(db, &rows);
	if (n < 0) {
		check_fail(db, (int)n, NULL);
		n = 0;
	}
	resolve(db, "last");
	resolve(db, "0");
	resolve(db, "x");
	for (ssize_t i = 0; i < n && i < FUZZ_RECDB_RUNS; i++) {
		snprintf(spec, sizeof(spec), "%" PRId64, rows[i].id);
		resolve(db, spec);
		load_run(db, &rows[i], (int)i);
		follow_run(db, rows[i].id);
	}
	recdb_runs_free(rows, n > 0 ? (size_t)n : 0);
	recdb_close(db);
	return 0;
}
