/* recdb: the recording database, an SQLite file of runs.
 *
 * The schema is the one block below. A writer prepares its statements once
 * at open and writes each batch in one transaction; a reader checks the file
 * (SQLite, ours, not newer, not corrupt) before anything else. */
#include "recdb.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The whole schema, version RECDB_SCHEMA_VERSION. Times (*_ns but base_ns and
 * start_wall_ns) are ns relative to runs.base_ns; NULL is unknown. */
static const char recdb_schema[] =
	"CREATE TABLE meta (\n"
	"  key TEXT PRIMARY KEY,\n" /* 'application' = 'spacetime', 'schema_version' */
	"  value\n"
	");\n"
	"CREATE TABLE runs (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  start_wall_ns INTEGER NOT NULL,\n" /* CLOCK_REALTIME at the start */
	"  base_ns INTEGER NOT NULL,\n"       /* CLOCK_MONOTONIC origin of the run's times */
	"  argv BLOB,\n"                      /* command line, NUL-separated */
	"  cwd TEXT,\n"
	"  host TEXT,\n"
	"  source TEXT NOT NULL CHECK (source IN ('spawned', 'attached')),\n"
	"  end_state TEXT NOT NULL DEFAULT 'running',\n" /* running exited detached interrupted failed */
	"  incomplete INTEGER NOT NULL DEFAULT 1,\n"     /* 0 once finished with all written */
	"  note TEXT,\n"                                 /* why it is incomplete */
	"  wall_ns INTEGER,\n"
	"  peak_pss_kib INTEGER,\n"
	"  peak_t_ns INTEGER,\n"
	"  exit_status INTEGER,\n" /* wait(2) status of the command */
	"  ru_utime_us INTEGER, ru_stime_us INTEGER, ru_maxrss_kib INTEGER,\n"
	"  ru_minflt INTEGER, ru_majflt INTEGER,\n"
	"  total_procs INTEGER, total_threads INTEGER, total_execs INTEGER,\n"
	"  lost_events INTEGER,\n"
	"  mode INTEGER\n" /* enum collector_mode */
	");\n"
	/* every field of struct store_summary: key is its name, peak.* and last.*
	 * the fields of the peak and last samples, attach_pid.N the attached pids */
	"CREATE TABLE run_summary (\n"
	"  run_id INTEGER NOT NULL,\n"
	"  key TEXT NOT NULL,\n"
	"  value,\n"
	"  PRIMARY KEY (run_id, key)\n"
	") WITHOUT ROWID;\n"
	"CREATE TABLE samples (\n" /* struct sample, every fine sample */
	"  run_id INTEGER NOT NULL,\n"
	"  t_ns INTEGER NOT NULL,\n"
	"  pss_kib INTEGER, pss_anon_kib INTEGER, pss_file_kib INTEGER, pss_shmem_kib INTEGER,\n"
	"  pss_est_kib INTEGER, pss_hi_kib INTEGER,\n"
	"  rss_kib INTEGER,\n"
	"  minflt INTEGER, majflt INTEGER,\n"
	"  utime_us INTEGER, stime_us INTEGER,\n"
	"  live_procs INTEGER, live_threads INTEGER, total_procs INTEGER, total_threads INTEGER,\n"
	"  valid INTEGER NOT NULL\n" /* SAMPLE_PSS 1, RSS 2, FAULTS 4, CPU 8, COUNTS 16 */
	");\n"
	"CREATE INDEX samples_run_t ON samples (run_id, t_ns);\n"
	"CREATE TABLE processes (\n" /* struct proc_rec, last known state */
	"  run_id INTEGER NOT NULL,\n"
	"  id INTEGER NOT NULL,\n"  /* unique in the run */
	"  seq INTEGER NOT NULL,\n" /* insertion order */
	"  pid INTEGER, ppid INTEGER,\n"
	"  start_ns INTEGER, end_ns INTEGER,\n" /* end_ns NULL while alive */
	"  comm TEXT,\n"
	"  argv BLOB,\n"
	"  exit_status INTEGER,\n"
	"  threads INTEGER, nexec INTEGER,\n"
	"  pss_kib INTEGER, rss_kib INTEGER,\n"
	"  peak_pss_kib INTEGER, peak_pss_t_ns INTEGER, peak_rss_kib INTEGER,\n"
	"  pss_age_ns INTEGER,\n"
	"  utime_us INTEGER, stime_us INTEGER, minflt INTEGER, majflt INTEGER,\n"
	"  valid INTEGER NOT NULL,\n" /* PROC_V_* */
	"  PRIMARY KEY (run_id, id)\n"
	");\n"
	"CREATE INDEX processes_run_seq ON processes (run_id, seq);\n"
	"CREATE TABLE proc_samples (\n" /* a live process's figures at an instant */
	"  run_id INTEGER NOT NULL,\n"
	"  proc_id INTEGER NOT NULL,\n" /* processes.id */
	"  t_ns INTEGER NOT NULL,\n"
	"  pss_kib INTEGER, rss_kib INTEGER,\n"
	"  cpu_us INTEGER,\n" /* utime + stime */
	"  minflt INTEGER, majflt INTEGER\n"
	");\n"
	"CREATE INDEX proc_samples_run_t ON proc_samples (run_id, t_ns);\n"
	"CREATE INDEX proc_samples_proc_t ON proc_samples (run_id, proc_id, t_ns);\n"
	"CREATE TABLE events (\n" /* struct store_event */
	"  run_id INTEGER NOT NULL,\n"
	"  t_ns INTEGER NOT NULL,\n"
	"  type INTEGER NOT NULL,\n" /* fork 1, exec 2, exit 3, thread 4, lost 5, rescan 6 */
	"  pid INTEGER, ppid INTEGER,\n"
	"  arg INTEGER\n"
	");\n"
	"CREATE INDEX events_run_t ON events (run_id, t_ns);\n"
	"CREATE TABLE execs (\n" /* struct store_exec, every one */
	"  run_id INTEGER NOT NULL,\n"
	"  idx INTEGER NOT NULL,\n"
	"  t_ns INTEGER NOT NULL,\n"
	"  pid INTEGER, ppid INTEGER,\n"
	"  comm TEXT,\n"
	"  argv BLOB,\n"
	"  PRIMARY KEY (run_id, idx)\n"
	") WITHOUT ROWID;\n"
	"CREATE TABLE output (\n" /* the command's output, one row per line */
	"  run_id INTEGER NOT NULL,\n"
	"  t_ns INTEGER NOT NULL,\n"
	"  line BLOB NOT NULL\n" /* without the newline */
	");\n"
	"CREATE INDEX output_run_t ON output (run_id, t_ns);\n";

/* The run's tables, for pruning. */
static const char *const recdb_run_tables[] = {
	"run_summary", "samples", "processes", "proc_samples", "events", "execs", "output",
};

enum recdb_stmt {
	RS_BEGIN, RS_COMMIT, RS_ROLLBACK, RS_SAMPLE, RS_EVENT, RS_PROC, RS_EXEC, RS_PSAMPLE,
	RS_LINE, RS_SUM, RS_RUNSUM, RS_N
};

static const char *const recdb_stmt_sql[RS_N] = {
	[RS_BEGIN] = "BEGIN IMMEDIATE",
	[RS_COMMIT] = "COMMIT",
	[RS_ROLLBACK] = "ROLLBACK",
	[RS_SAMPLE] = "INSERT INTO samples (run_id, t_ns, pss_kib, pss_anon_kib, pss_file_kib,"
		      " pss_shmem_kib, pss_est_kib, pss_hi_kib, rss_kib, minflt, majflt, utime_us,"
		      " stime_us, live_procs, live_threads, total_procs, total_threads, valid)"
		      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
		      " ?16, ?17, ?18)",
	[RS_EVENT] = "INSERT INTO events (run_id, t_ns, type, pid, ppid, arg)"
		     " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[RS_PROC] = "INSERT INTO processes (run_id, id, seq, pid, ppid, start_ns, end_ns, comm,"
		    " argv, exit_status, threads, nexec, pss_kib, rss_kib, peak_pss_kib,"
		    " peak_pss_t_ns, peak_rss_kib, pss_age_ns, utime_us, stime_us, minflt,"
		    " majflt, valid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
		    " ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)"
		    " ON CONFLICT (run_id, id) DO UPDATE SET seq = excluded.seq,"
		    " pid = excluded.pid, ppid = excluded.ppid, start_ns = excluded.start_ns,"
		    " end_ns = excluded.end_ns, comm = excluded.comm,"
		    " argv = coalesce(excluded.argv, argv), exit_status = excluded.exit_status,"
		    " threads = excluded.threads, nexec = excluded.nexec,"
		    " pss_kib = excluded.pss_kib, rss_kib = excluded.rss_kib,"
		    " peak_pss_kib = excluded.peak_pss_kib, peak_pss_t_ns = excluded.peak_pss_t_ns,"
		    " peak_rss_kib = excluded.peak_rss_kib, pss_age_ns = excluded.pss_age_ns,"
		    " utime_us = excluded.utime_us, stime_us = excluded.stime_us,"
		    " minflt = excluded.minflt, majflt = excluded.majflt, valid = excluded.valid",
	[RS_EXEC] = "INSERT INTO execs (run_id, idx, t_ns, pid, ppid, comm, argv)"
		    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
		    " ON CONFLICT (run_id, idx) DO UPDATE SET t_ns = excluded.t_ns,"
		    " pid = excluded.pid, ppid = excluded.ppid, comm = excluded.comm,"
		    " argv = coalesce(excluded.argv, argv)",
	[RS_PSAMPLE] = "INSERT INTO proc_samples (run_id, proc_id, t_ns, pss_kib, rss_kib, cpu_us,"
		       " minflt, majflt) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[RS_LINE] = "INSERT INTO output (run_id, t_ns, line) VALUES (?1, ?2, ?3)",
	[RS_SUM] = "INSERT INTO run_summary (run_id, key, value) VALUES (?1, ?2, ?3)"
		   " ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value",
	[RS_RUNSUM] = "UPDATE runs SET wall_ns = ?2, peak_pss_kib = ?3, peak_t_ns = ?4,"
		      " exit_status = ?5, ru_utime_us = ?6, ru_stime_us = ?7, ru_maxrss_kib = ?8,"
		      " ru_minflt = ?9, ru_majflt = ?10, total_procs = ?11, total_threads = ?12,"
		      " total_execs = ?13, lost_events = ?14, mode = ?15 WHERE id = ?1",
};

struct recdb {
	sqlite3 *db;
	int rdonly;
	sqlite3_stmt *st[RS_N];
	char msg[256];
};

/* How a field of a summary or sample is stored. */
enum { RF_U64, RF_U32, RF_INT, RF_DBL, RF_TIME };

struct recdb_field {
	const char *name;
	size_t off;
	unsigned char kind;
};

#define RF(s, f, k) { #f, offsetof(struct s, f), k }
#define SMP(f, k) RF(sample, f, k)
/* struct sample in the order of the samples table's columns (t_ns first). */
static const struct recdb_field recdb_sample_fields[] = {
	SMP(t_ns, RF_TIME), SMP(pss_kib, RF_U64), SMP(pss_anon_kib, RF_U64),
	SMP(pss_file_kib, RF_U64), SMP(pss_shmem_kib, RF_U64), SMP(pss_est_kib, RF_U64),
	SMP(pss_hi_kib, RF_U64), SMP(rss_kib, RF_U64), SMP(minflt, RF_U64),
	SMP(majflt, RF_U64), SMP(utime_us, RF_U64), SMP(stime_us, RF_U64),
	SMP(live_procs, RF_U32), SMP(live_threads, RF_U32), SMP(total_procs, RF_U32),
	SMP(total_threads, RF_U32), SMP(valid, RF_U32),
};
#define RECDB_NSAMPLE_FIELDS (sizeof(recdb_sample_fields) / sizeof(recdb_sample_fields[0]))

#define SUM(f, k) RF(store_summary, f, k)
/* struct store_summary but its samples (peak, last) and attach_pid. */
static const struct recdb_field recdb_sum_fields[] = {
	SUM(start_ns, RF_TIME), SUM(end_ns, RF_TIME), SUM(root_end_ns, RF_TIME),
	SUM(exited, RF_INT), SUM(orphans_reaped, RF_U64), SUM(wait_status, RF_INT),
	SUM(ru_utime_us, RF_U64), SUM(ru_stime_us, RF_U64), SUM(ru_maxrss_kib, RF_U64),
	SUM(max_tree_rss_kib, RF_U64), SUM(ru_minflt, RF_U64), SUM(ru_majflt, RF_U64),
	SUM(ru_nvcsw, RF_U64), SUM(ru_nivcsw, RF_U64), SUM(ru_inblock, RF_U64),
	SUM(ru_oublock, RF_U64), SUM(peak_measured, RF_INT),
	SUM(peak_unconfirmed_kib, RF_U64), SUM(pss_est_share, RF_DBL),
	SUM(pss_sweeps, RF_U64), SUM(pss_sweep_reads, RF_U64),
	SUM(pss_sweeps_unstable, RF_U64), SUM(fast_ticks, RF_U64), SUM(lost_events, RF_U64),
	SUM(rescans, RF_U64), SUM(total_execs, RF_U32), SUM(mode, RF_U32),
	SUM(pss_reads, RF_U64), SUM(pss_cpu_ns, RF_U64), SUM(budget_ns, RF_U64),
	SUM(pss_max_age_ns, RF_U64), SUM(pss_mean_age_ns, RF_U64),
	SUM(collector_cpu_ns, RF_U64), SUM(self_cpu_ns, RF_U64), SUM(interval_ms, RF_U64),
	SUM(collector_wakeups, RF_U64), SUM(nl_events, RF_U64), SUM(taskstats, RF_INT),
	SUM(ts_records, RF_U64), SUM(ts_lost, RF_U64), SUM(attached, RF_INT),
	SUM(detached, RF_INT), SUM(attach_n, RF_U32), SUM(attach_prior_cpu_us, RF_U64),
};
#define RECDB_NSUM_FIELDS (sizeof(recdb_sum_fields) / sizeof(recdb_sum_fields[0]))

static const char *const recdb_end_names[] = {
	[RECDB_END_RUNNING] = "running", [RECDB_END_EXITED] = "exited",
	[RECDB_END_DETACHED] = "detached", [RECDB_END_INTERRUPTED] = "interrupted",
	[RECDB_END_FAILED] = "failed",
};

const char *recdb_end_name(enum recdb_end e)
{
	return (unsigned)e < sizeof(recdb_end_names) / sizeof(recdb_end_names[0])
		       ? recdb_end_names[e]
		       : "running";
}

static enum recdb_end recdb_end_parse(const char *s)
{
	for (unsigned i = 0; s && i < sizeof(recdb_end_names) / sizeof(recdb_end_names[0]); i++)
		if (strcmp(s, recdb_end_names[i]) == 0)
			return (enum recdb_end)i;
	return RECDB_END_RUNNING;
}

const char *recdb_errmsg(const struct recdb *db)
{
	return db ? db->msg : "";
}

/* Sets the one-line message and returns err (a -errno). */
static int recdb_say(struct recdb *db, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int recdb_say(struct recdb *db, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->msg, sizeof(db->msg), fmt, ap);
	va_end(ap);
	return err;
}

/* Maps an SQLite result to -errno and says "what: why" in a person's words. */
static int recdb_fail(struct recdb *db, int rc, const char *what)
{
	int sys = db->db ? sqlite3_system_errno(db->db) : 0;
	const char *detail = db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_FULL:
		return recdb_say(db, -ENOSPC, "%s: database is full (disk full)", what);
	case SQLITE_READONLY:
		return recdb_say(db, -EROFS, "%s: the database is read-only (%s)", what, detail);
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return recdb_say(db, -EACCES, "%s: permission denied", what);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return recdb_say(db, -EBUSY, "%s: the database is locked by another writer", what);
	case SQLITE_NOMEM:
		return recdb_say(db, -ENOMEM, "%s: out of memory", what);
	case SQLITE_NOTADB:
		return recdb_say(db, -EBADMSG, "%s: not an SQLite database", what);
	case SQLITE_CORRUPT:
		return recdb_say(db, -EBADMSG, "%s: the database is corrupt or truncated (%s)",
				 what, detail);
	case SQLITE_CANTOPEN:
		if (sys == ENOENT)
			return recdb_say(db, -ENOENT, "%s: no such file", what);
		if (sys == EACCES || sys == EPERM || sys == EROFS)
			return recdb_say(db, -sys, "%s: %s", what, strerror(sys));
		return recdb_say(db, -EIO, "%s: cannot open (%s)", what, detail);
	case SQLITE_IOERR:
		if (sys == ENOSPC)
			return recdb_say(db, -ENOSPC, "%s: database is full (disk full)", what);
		return recdb_say(db, -EIO, "%s: I/O error (%s)", what, sys ? strerror(sys) : detail);
	default:
		return recdb_say(db, -EIO, "%s: %s", what, detail);
	}
}

/* Runs one statement that returns no rows (or ignores them). */
static int recdb_exec(struct recdb *db, const char *sql, const char *what)
{
	int rc = sqlite3_exec(db->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : recdb_fail(db, rc, what);
}

/* One integer from a query with no parameters; -ENODATA when no row. */
static int recdb_int(struct recdb *db, const char *sql, int64_t *v, const char *what)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db->db, sql, -1, &s, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
		return 0;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return -ENODATA;
	return recdb_fail(db, rc, what);
}

/* Whether the file is ours and not newer: 1 when it has no tables at all
 * (new or empty), 0 when it is a spacetime recording we can read. */
static int recdb_check_meta(struct recdb *db)
{
	sqlite3_stmt *s = NULL;
	int64_t ntables = 0, version = 0;
	int rc, ours = 0, have_version = 0;

	rc = recdb_int(db, "SELECT count(*) FROM sqlite_schema", &ntables, "reading the database");
	if (rc < 0)
		return rc;
	if (ntables == 0)
		return 1;
	rc = sqlite3_prepare_v2(db->db, "SELECT key, value FROM meta", -1, &s, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(s);
		return recdb_say(db, -EMEDIUMTYPE,
				 "not a spacetime recording (an SQLite database of something else)");
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(s, 0);

		if (!k)
			continue;
		if (strcmp(k, "application") == 0) {
			const char *v = (const char *)sqlite3_column_text(s, 1);

			ours = v && strcmp(v, "spacetime") == 0;
		} else if (strcmp(k, "schema_version") == 0) {
			version = sqlite3_column_int64(s, 1);
			have_version = 1;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return recdb_fail(db, rc, "reading the database's meta table");
	if (!ours || !have_version)
		return recdb_say(db, -EMEDIUMTYPE,
				 "not a spacetime recording (an SQLite database of something else)");
	if (version > RECDB_SCHEMA_VERSION)
		return recdb_say(db, -EPROTONOSUPPORT,
				 "written by a newer spacetime (schema %" PRId64 " > %d); "
				 "use that version to read it", version, RECDB_SCHEMA_VERSION);
	if (version < 1)
		return recdb_say(db, -EBADMSG, "bad schema_version %" PRId64, version);
	return 0;
}

/* PRAGMA quick_check: "ok" or the first problem. */
static int recdb_quick_check(struct recdb *db)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db->db, "PRAGMA quick_check(1)", -1, &s, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(s, 0);

		if (v && strcmp(v, "ok") == 0) {
			sqlite3_finalize(s);
			return 0;
		}
		rc = recdb_say(db, -EBADMSG, "the recording is corrupt or truncated (%s)",
			       v ? v : "?");
		sqlite3_finalize(s);
		return rc;
	}
	sqlite3_finalize(s);
	return recdb_fail(db, rc, "checking the recording");
}

/* Creates the schema in one transaction (a concurrent creator wins cleanly). */
static int recdb_create(struct recdb *db)
{
	char sql[160];
	int rc;

	rc = recdb_exec(db, "BEGIN IMMEDIATE", "creating the database");
	if (rc < 0)
		return rc;
	rc = recdb_check_meta(db);
	if (rc == 1) {
		rc = recdb_exec(db, recdb_schema, "creating the database");
		snprintf(sql, sizeof(sql),
			 "INSERT INTO meta (key, value) VALUES ('application', 'spacetime'),"
			 " ('schema_version', %d)", RECDB_SCHEMA_VERSION);
		if (rc == 0)
			rc = recdb_exec(db, sql, "creating the database");
	}
	if (rc < 0) {
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return recdb_exec(db, "COMMIT", "creating the database");
}

/* The reader's checks, or the writer's setup: WAL, NORMAL sync, statements. */
static int recdb_setup(struct recdb *db, const char *path, unsigned flags)
{
	struct stat sb;
	int rc;

	sqlite3_extended_result_codes(db->db, 1);
	sqlite3_busy_timeout(db->db, 5000);
	if (db->rdonly) {
		if (stat(path, &sb) == 0 && sb.st_size == 0)
			return recdb_say(db, -EMEDIUMTYPE, "not a spacetime recording (empty file)");
		rc = recdb_check_meta(db);
		if (rc == 1)
			return recdb_say(db, -EMEDIUMTYPE, "not a spacetime recording (no tables)");
		if (rc == 0 && !(flags & RECDB_NOCHECK))
			rc = recdb_quick_check(db);
		return rc;
	}
	rc = recdb_check_meta(db);
	if (rc < 0)
		return rc;
	/* only a file without pages takes it (WAL mode writes the first page) */
	if (rc == 1)
		rc = recdb_exec(db, "PRAGMA auto_vacuum = INCREMENTAL", "creating the database");
	if (rc == 0)
		rc = recdb_exec(db, "PRAGMA journal_mode = WAL", "setting WAL mode");
	if (rc == 0)
		rc = recdb_exec(db, "PRAGMA synchronous = NORMAL", "setting synchronous mode");
	if (rc == 0 && recdb_check_meta(db) == 1)
		rc = recdb_create(db);
	if (rc < 0)
		return rc;
	for (int i = 0; i < RS_N; i++) {
		rc = sqlite3_prepare_v3(db->db, recdb_stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					&db->st[i], NULL);
		if (rc != SQLITE_OK)
			return recdb_fail(db, rc, "preparing statements");
	}
	return 0;
}

int recdb_open(const char *path, unsigned flags, struct recdb **out, char *msg, size_t msglen)
{
	struct recdb *db;
	int rc, oflags;

	*out = NULL;
	if (msg && msglen)
		msg[0] = '\0';
	db = calloc(1, sizeof(*db));
	if (!db) {
		if (msg && msglen)
			snprintf(msg, msglen, "%s: out of memory", path);
		return -ENOMEM;
	}
	db->rdonly = !!(flags & RECDB_RDONLY);
	oflags = db->rdonly ? SQLITE_OPEN_READONLY
			    : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(path, &db->db, oflags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		rc = recdb_fail(db, rc, "opening the database");
	else
		rc = recdb_setup(db, path, flags);
	if (rc < 0) {
		if (msg && msglen)
			snprintf(msg, msglen, "%s: %s", path, db->msg);
		recdb_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

void recdb_close(struct recdb *db)
{
	if (!db)
		return;
	for (int i = 0; i < RS_N; i++)
		sqlite3_finalize(db->st[i]);
	sqlite3_close_v2(db->db);
	free(db);
}

/* A time relative to the run's origin; 0 (unknown) is NULL. */
static void recdb_bind_time(sqlite3_stmt *s, int col, uint64_t t, uint64_t base)
{
	if (t)
		sqlite3_bind_int64(s, col, (int64_t)(t - base));
	else
		sqlite3_bind_null(s, col);
}

static uint64_t recdb_col_time(sqlite3_stmt *s, int col, uint64_t base)
{
	if (sqlite3_column_type(s, col) == SQLITE_NULL)
		return 0;
	return base + (uint64_t)sqlite3_column_int64(s, col);
}

/* Bytes as a BLOB: NULL pointer is NULL, zero length an empty BLOB. */
static void recdb_bind_bytes(sqlite3_stmt *s, int col, const char *p, size_t len)
{
	if (!p)
		sqlite3_bind_null(s, col);
	else if (!len)
		sqlite3_bind_zeroblob(s, col, 0);
	else
		sqlite3_bind_blob64(s, col, p, len, SQLITE_STATIC);
}

static void recdb_bind_comm(sqlite3_stmt *s, int col, const char comm[16])
{
	sqlite3_bind_text(s, col, comm, (int)strnlen(comm, 16), SQLITE_STATIC);
}

static void recdb_col_comm(sqlite3_stmt *s, int col, char comm[16])
{
	const void *p = sqlite3_column_text(s, col);
	int n = sqlite3_column_bytes(s, col);

	memset(comm, 0, 16);
	if (p)
		memcpy(comm, p, n < 16 ? (size_t)n : 16);
}

/* Binds field f of the struct at base to column col. */
static void recdb_bind_field(sqlite3_stmt *s, int col, const struct recdb_field *f,
			     const void *obj, uint64_t base)
{
	const char *p = (const char *)obj + f->off;

	switch (f->kind) {
	case RF_U64: {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		sqlite3_bind_int64(s, col, (int64_t)v);
		break;
	}
	case RF_TIME: {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		recdb_bind_time(s, col, v, base);
		break;
	}
	case RF_U32: {
		uint32_t v;

		memcpy(&v, p, sizeof(v));
		sqlite3_bind_int64(s, col, v);
		break;
	}
	case RF_INT: {
		int v;

		memcpy(&v, p, sizeof(v));
		sqlite3_bind_int(s, col, v);
		break;
	}
	case RF_DBL: {
		double v;

		memcpy(&v, p, sizeof(v));
		sqlite3_bind_double(s, col, v);
		break;
	}
	}
}

/* Reads column col into field f of the struct at obj. */
static void recdb_col_field(sqlite3_stmt *s, int col, const struct recdb_field *f, void *obj,
			    uint64_t base)
{
	char *p = (char *)obj + f->off;

	switch (f->kind) {
	case RF_U64: {
		uint64_t v = (uint64_t)sqlite3_column_int64(s, col);

		memcpy(p, &v, sizeof(v));
		break;
	}
	case RF_TIME: {
		uint64_t v = recdb_col_time(s, col, base);

		memcpy(p, &v, sizeof(v));
		break;
	}
	case RF_U32: {
		uint32_t v = (uint32_t)sqlite3_column_int64(s, col);

		memcpy(p, &v, sizeof(v));
		break;
	}
	case RF_INT: {
		int v = sqlite3_column_int(s, col);

		memcpy(p, &v, sizeof(v));
		break;
	}
	case RF_DBL: {
		double v = sqlite3_column_double(s, col);

		memcpy(p, &v, sizeof(v));
		break;
	}
	}
}

/* Steps a bound insert to completion and resets it for the next row. */
static int recdb_step(struct recdb *db, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : recdb_fail(db, rc, what);
}

/* Reads the run's time origin; -ENOENT when there is no such run. */
static int recdb_run_base(struct recdb *db, int64_t run_id, uint64_t *base)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db->db, "SELECT base_ns FROM runs WHERE id = ?1", -1, &s, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, run_id);
		rc = sqlite3_step(s);
	}
	if (rc == SQLITE_ROW) {
		*base = (uint64_t)sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
		return 0;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return recdb_say(db, -ENOENT, "no run %" PRId64 " in the recording", run_id);
	return recdb_fail(db, rc, "reading the runs");
}

int recdb_run_begin(struct recdb *db, const struct recdb_run_info *info, int64_t *run_id)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if (db->rdonly)
		return recdb_say(db, -EROFS, "the recording was opened read-only");
	rc = sqlite3_prepare_v2(db->db,
				"INSERT INTO runs (start_wall_ns, base_ns, argv, cwd, host, source)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &s, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(s);
		return recdb_fail(db, rc, "starting a run");
	}
	sqlite3_bind_int64(s, 1, (int64_t)info->start_wall_ns);
	sqlite3_bind_int64(s, 2, (int64_t)info->base_ns);
	recdb_bind_bytes(s, 3, info->argv, info->argv_len);
	if (info->cwd)
		sqlite3_bind_text(s, 4, info->cwd, -1, SQLITE_STATIC);
	if (info->host)
		sqlite3_bind_text(s, 5, info->host, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, info->attached ? "attached" : "spawned", -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return recdb_fail(db, rc, "starting a run");
	*run_id = sqlite3_last_insert_rowid(db->db);
	return 0;
}

/* The summary as key/value rows plus the runs table's headline columns. */
static int recdb_write_summary(struct recdb *db, int64_t run_id, uint64_t base,
			       const struct store_summary *sum)
{
	sqlite3_stmt *s = db->st[RS_SUM];
	char key[32];
	int rc = 0;

	for (size_t i = 0; i < RECDB_NSUM_FIELDS && rc == 0; i++) {
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_text(s, 2, recdb_sum_fields[i].name, -1, SQLITE_STATIC);
		recdb_bind_field(s, 3, &recdb_sum_fields[i], sum, base);
		rc = recdb_step(db, s, "writing the summary");
	}
	for (int k = 0; k < 2; k++) {
		const struct sample *smp = k ? &sum->last : &sum->peak;

		for (size_t i = 0; i < RECDB_NSAMPLE_FIELDS && rc == 0; i++) {
			snprintf(key, sizeof(key), "%s.%s", k ? "last" : "peak",
				 recdb_sample_fields[i].name);
			sqlite3_bind_int64(s, 1, run_id);
			sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
			recdb_bind_field(s, 3, &recdb_sample_fields[i], smp, base);
			rc = recdb_step(db, s, "writing the summary");
		}
	}
	for (uint32_t i = 0; i < sum->attach_n && i < STORE_ATTACH_MAX && rc == 0; i++) {
		snprintf(key, sizeof(key), "attach_pid.%u", i);
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 3, sum->attach_pid[i]);
		rc = recdb_step(db, s, "writing the summary");
	}
	if (rc < 0)
		return rc;
	s = db->st[RS_RUNSUM];
	sqlite3_bind_int64(s, 1, run_id);
	if (sum->start_ns) {
		uint64_t end = sum->end_ns ? sum->end_ns : sum->last.t_ns;

		sqlite3_bind_int64(s, 2, end > sum->start_ns ? (int64_t)(end - sum->start_ns) : 0);
	}
	sqlite3_bind_int64(s, 3, (int64_t)sum->peak.pss_kib);
	recdb_bind_time(s, 4, sum->peak.t_ns, base);
	if (sum->exited)
		sqlite3_bind_int(s, 5, sum->wait_status);
	sqlite3_bind_int64(s, 6, (int64_t)sum->ru_utime_us);
	sqlite3_bind_int64(s, 7, (int64_t)sum->ru_stime_us);
	sqlite3_bind_int64(s, 8, (int64_t)sum->ru_maxrss_kib);
	sqlite3_bind_int64(s, 9, (int64_t)sum->ru_minflt);
	sqlite3_bind_int64(s, 10, (int64_t)sum->ru_majflt);
	sqlite3_bind_int64(s, 11, sum->last.total_procs);
	sqlite3_bind_int64(s, 12, sum->last.total_threads);
	sqlite3_bind_int64(s, 13, sum->total_execs);
	sqlite3_bind_int64(s, 14, (int64_t)sum->lost_events);
	sqlite3_bind_int64(s, 15, sum->mode);
	return recdb_step(db, s, "writing the summary");
}

static int recdb_write_proc(struct recdb *db, int64_t run_id, uint64_t base,
			    const struct recdb_proc *p)
{
	sqlite3_stmt *s = db->st[RS_PROC];
	const struct proc_rec *r = &p->rec;

	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, (int64_t)r->id);
	sqlite3_bind_int64(s, 3, (int64_t)p->seq);
	sqlite3_bind_int64(s, 4, r->pid);
	sqlite3_bind_int64(s, 5, r->ppid);
	recdb_bind_time(s, 6, r->start_ns, base);
	recdb_bind_time(s, 7, r->end_ns, base);
	recdb_bind_comm(s, 8, r->comm);
	recdb_bind_bytes(s, 9, p->argv, p->argv_len);
	if (r->valid & PROC_V_EXIT)
		sqlite3_bind_int(s, 10, r->exit_status);
	sqlite3_bind_int64(s, 11, r->threads);
	sqlite3_bind_int64(s, 12, r->nexec);
	sqlite3_bind_int64(s, 13, (int64_t)r->pss_kib);
	sqlite3_bind_int64(s, 14, (int64_t)r->rss_kib);
	sqlite3_bind_int64(s, 15, (int64_t)r->peak_pss_kib);
	recdb_bind_time(s, 16, r->peak_pss_t_ns, base);
	sqlite3_bind_int64(s, 17, (int64_t)r->peak_rss_kib);
	sqlite3_bind_int64(s, 18, (int64_t)r->pss_age_ns);
	sqlite3_bind_int64(s, 19, (int64_t)r->utime_us);
	sqlite3_bind_int64(s, 20, (int64_t)r->stime_us);
	sqlite3_bind_int64(s, 21, (int64_t)r->minflt);
	sqlite3_bind_int64(s, 22, (int64_t)r->majflt);
	sqlite3_bind_int64(s, 23, r->valid);
	return recdb_step(db, s, "writing processes");
}

/* Every row of the batch, inside the caller's transaction. */
static int recdb_write_rows(struct recdb *db, int64_t run_id, uint64_t base,
			    const struct recdb_batch *b)
{
	sqlite3_stmt *s;
	int rc = 0;

	s = db->st[RS_SAMPLE];
	for (size_t i = 0; i < b->nsamples && rc == 0; i++) {
		sqlite3_bind_int64(s, 1, run_id);
		for (size_t f = 0; f < RECDB_NSAMPLE_FIELDS; f++)
			recdb_bind_field(s, (int)f + 2, &recdb_sample_fields[f], &b->samples[i], base);
		rc = recdb_step(db, s, "writing samples");
	}
	s = db->st[RS_EVENT];
	for (size_t i = 0; i < b->nevents && rc == 0; i++) {
		const struct store_event *e = &b->events[i];

		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_int64(s, 2, (int64_t)(e->t_ns - base));
		sqlite3_bind_int64(s, 3, e->type);
		sqlite3_bind_int64(s, 4, e->pid);
		sqlite3_bind_int64(s, 5, e->ppid);
		sqlite3_bind_int64(s, 6, e->arg);
		rc = recdb_step(db, s, "writing events");
	}
	for (size_t i = 0; i < b->nprocs && rc == 0; i++)
		rc = recdb_write_proc(db, run_id, base, &b->procs[i]);
	s = db->st[RS_EXEC];
	for (size_t i = 0; i < b->nexecs && rc == 0; i++) {
		const struct recdb_exec *x = &b->execs[i];

		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_int64(s, 2, (int64_t)x->idx);
		sqlite3_bind_int64(s, 3, (int64_t)(x->ex.t_ns - base));
		sqlite3_bind_int64(s, 4, x->ex.pid);
		sqlite3_bind_int64(s, 5, x->ex.ppid);
		recdb_bind_comm(s, 6, x->ex.comm);
		recdb_bind_bytes(s, 7, x->argv, x->argv_len);
		rc = recdb_step(db, s, "writing execs");
	}
	s = db->st[RS_PSAMPLE];
	for (size_t i = 0; i < b->npsamples && rc == 0; i++) {
		const struct recdb_proc_sample *p = &b->psamples[i];

		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_int64(s, 2, (int64_t)p->id);
		sqlite3_bind_int64(s, 3, (int64_t)(p->t_ns - base));
		if (p->valid & PROC_V_PSS)
			sqlite3_bind_int64(s, 4, (int64_t)p->pss_kib);
		if (p->valid & PROC_V_RSS)
			sqlite3_bind_int64(s, 5, (int64_t)p->rss_kib);
		if (p->valid & PROC_V_CPU)
			sqlite3_bind_int64(s, 6, (int64_t)p->cpu_us);
		if (p->valid & PROC_V_FAULTS) {
			sqlite3_bind_int64(s, 7, (int64_t)p->minflt);
			sqlite3_bind_int64(s, 8, (int64_t)p->majflt);
		}
		rc = recdb_step(db, s, "writing per-process samples");
	}
	s = db->st[RS_LINE];
	for (size_t i = 0; i < b->nlines && rc == 0; i++) {
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_int64(s, 2, (int64_t)(b->lines[i].t_ns - base));
		recdb_bind_bytes(s, 3, b->lines[i].bytes ? b->lines[i].bytes : "",
				 b->lines[i].len);
		rc = recdb_step(db, s, "writing output");
	}
	if (rc == 0 && b->summary)
		rc = recdb_write_summary(db, run_id, base, b->summary);
	return rc;
}

/* Rolls back what the failed transaction left open (SQLite may have already). */
static void recdb_rollback(struct recdb *db)
{
	if (!sqlite3_get_autocommit(db->db)) {
		sqlite3_step(db->st[RS_ROLLBACK]);
		sqlite3_reset(db->st[RS_ROLLBACK]);
	}
}

int recdb_write(struct recdb *db, int64_t run_id, const struct recdb_batch *b)
{
	uint64_t base;
	int rc;

	if (db->rdonly)
		return recdb_say(db, -EROFS, "the recording was opened read-only");
	rc = recdb_run_base(db, run_id, &base);
	if (rc < 0)
		return rc;
	rc = recdb_step(db, db->st[RS_BEGIN], "writing the recording");
	if (rc < 0)
		return rc;
	rc = recdb_write_rows(db, run_id, base, b);
	if (rc == 0)
		rc = recdb_step(db, db->st[RS_COMMIT], "writing the recording");
	if (rc < 0)
		recdb_rollback(db);
	return rc;
}

int recdb_run_finish(struct recdb *db, int64_t run_id, const struct store_summary *sum,
		     enum recdb_end end, int incomplete, const char *note)
{
	struct recdb_batch b = { .summary = sum };
	sqlite3_stmt *s = NULL;
	int rc;

	rc = recdb_write(db, run_id, &b);
	if (rc < 0)
		return rc;
	rc = sqlite3_prepare_v2(db->db,
				"UPDATE runs SET end_state = ?2, incomplete = ?3, note = ?4"
				" WHERE id = ?1", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_text(s, 2, recdb_end_name(end), -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 3, !!incomplete);
		if (note)
			sqlite3_bind_text(s, 4, note, -1, SQLITE_STATIC);
		rc = sqlite3_step(s);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : recdb_fail(db, rc, "finishing the run");
}

/* A malloc'd copy of a column's bytes, NUL-terminated; NULL for SQL NULL. */
static char *recdb_col_dup(sqlite3_stmt *s, int col, size_t *len)
{
	const void *p;
	size_t n;
	char *d;

	if (sqlite3_column_type(s, col) == SQLITE_NULL)
		return NULL;
	p = sqlite3_column_blob(s, col);
	n = (size_t)sqlite3_column_bytes(s, col);
	d = malloc(n + 1);
	if (!d)
		return NULL;
	if (n)
		memcpy(d, p, n);
	d[n] = '\0';
	if (len)
		*len = n;
	return d;
}

void recdb_runs_free(struct recdb_run_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].argv);
		free(rows[i].cwd);
		free(rows[i].host);
		free(rows[i].note);
	}
	free(rows);
}

ssize_t recdb_runs(struct recdb *db, struct recdb_run_row **out)
{
	struct recdb_run_row *rows = NULL, *r;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s = NULL;
	int rc;

	*out = NULL;
	rc = sqlite3_prepare_v2(db->db,
				"SELECT id, start_wall_ns, base_ns, argv, cwd, host, source, end_state,"
				" incomplete, note, wall_ns, peak_pss_kib, exit_status FROM runs"
				" ORDER BY id", -1, &s, NULL);
	while (rc == SQLITE_OK || rc == SQLITE_ROW) {
		const char *src;

		if ((rc = sqlite3_step(s)) != SQLITE_ROW)
			break;
		src = (const char *)sqlite3_column_text(s, 6);

		if (n == cap) {
			struct recdb_run_row *g;

			cap = cap ? cap * 2 : 16;
			g = realloc(rows, cap * sizeof(*rows));
			if (!g) {
				rc = SQLITE_NOMEM;
				break;
			}
			rows = g;
		}
		r = &rows[n++];
		memset(r, 0, sizeof(*r));
		r->id = sqlite3_column_int64(s, 0);
		r->start_wall_ns = (uint64_t)sqlite3_column_int64(s, 1);
		r->base_ns = (uint64_t)sqlite3_column_int64(s, 2);
		r->argv = recdb_col_dup(s, 3, &r->argv_len);
		r->cwd = recdb_col_dup(s, 4, NULL);
		r->host = recdb_col_dup(s, 5, NULL);
		r->attached = src && strcmp(src, "attached") == 0;
		r->end = recdb_end_parse((const char *)sqlite3_column_text(s, 7));
		r->incomplete = sqlite3_column_int(s, 8);
		r->note = recdb_col_dup(s, 9, NULL);
		r->wall_ns = (uint64_t)sqlite3_column_int64(s, 10);
		r->peak_pss_kib = (uint64_t)sqlite3_column_int64(s, 11);
		r->exit_known = sqlite3_column_type(s, 12) != SQLITE_NULL;
		r->exit_status = sqlite3_column_int(s, 12);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		recdb_runs_free(rows, n);
		return rc == SQLITE_NOMEM ? recdb_say(db, -ENOMEM, "listing runs: out of memory")
					  : recdb_fail(db, rc, "listing runs");
	}
	*out = rows;
	return (ssize_t)n;
}

int recdb_resolve(struct recdb *db, const char *spec, int64_t *run_id)
{
	uint64_t base;
	char *end;
	long long v;
	int rc;

	if (strcmp(spec, "last") == 0) {
		rc = recdb_int(db, "SELECT max(id) FROM runs WHERE id IS NOT NULL", run_id,
			       "reading the runs");
		if (rc == 0 && *run_id == 0)
			rc = -ENODATA;
		if (rc == -ENODATA)
			return recdb_say(db, -ENOENT, "the recording holds no run");
		return rc;
	}
	errno = 0;
	v = strtoll(spec, &end, 10);
	if (!*spec || *end || errno || v <= 0)
		return recdb_say(db, -EINVAL, "'%s' is not a run: give its number or 'last'", spec);
	rc = recdb_run_base(db, v, &base);
	if (rc == 0)
		*run_id = v;
	return rc;
}

/* Prepares sql with ?1 bound to the run id. */
static int recdb_prep_run(struct recdb *db, const char *sql, int64_t run_id, sqlite3_stmt **s)
{
	int rc = sqlite3_prepare_v2(db->db, sql, -1, s, NULL);

	if (rc != SQLITE_OK) {
		sqlite3_finalize(*s);
		*s = NULL;
		return recdb_fail(db, rc, "reading the recording");
	}
	sqlite3_bind_int64(*s, 1, run_id);
	return 0;
}

/* Interns a BLOB column (NULL: id 0). */
static uint32_t recdb_col_intern(struct store *st, sqlite3_stmt *s, int col)
{
	if (sqlite3_column_type(s, col) == SQLITE_NULL)
		return 0;
	return store_str_intern(st, sqlite3_column_blob(s, col),
				(size_t)sqlite3_column_bytes(s, col));
}

static int recdb_load_samples(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	sqlite3_stmt *s;
	int rc = recdb_prep_run(db,
				"SELECT t_ns, pss_kib, pss_anon_kib, pss_file_kib, pss_shmem_kib,"
				" pss_est_kib, pss_hi_kib, rss_kib, minflt, majflt, utime_us, stime_us,"
				" live_procs, live_threads, total_procs, total_threads, valid"
				" FROM samples WHERE run_id = ?1 ORDER BY t_ns, rowid", run_id, &s);

	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct sample smp;

		memset(&smp, 0, sizeof(smp));
		for (size_t f = 0; f < RECDB_NSAMPLE_FIELDS; f++)
			recdb_col_field(s, (int)f, &recdb_sample_fields[f], &smp, base);
		store_push_sample(st, &smp);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : recdb_fail(db, rc, "reading samples");
}

static int recdb_load_events(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	sqlite3_stmt *s;
	int rc = recdb_prep_run(db,
				"SELECT t_ns, type, pid, ppid, arg FROM events WHERE run_id = ?1"
				" ORDER BY t_ns, rowid", run_id, &s);

	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_event e;

		memset(&e, 0, sizeof(e));
		e.t_ns = base + (uint64_t)sqlite3_column_int64(s, 0);
		e.type = (uint32_t)sqlite3_column_int64(s, 1);
		e.pid = (pid_t)sqlite3_column_int64(s, 2);
		e.ppid = (pid_t)sqlite3_column_int64(s, 3);
		e.arg = sqlite3_column_int64(s, 4);
		store_push_event(st, &e);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : recdb_fail(db, rc, "reading events");
}

/* Exit order: by end time, then insertion order. */
static int recdb_cmp_end(const void *a, const void *b)
{
	const struct proc_rec *x = a, *y = b;

	if (x->end_ns != y->end_ns)
		return x->end_ns < y->end_ns ? -1 : 1;
	return 0;
}

/* Inserts every process live in insertion order, then ends the exited ones
 * in the order of their ends, so both store orders come back. */
static int recdb_load_procs(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	struct proc_rec *ended = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s;
	int rc = recdb_prep_run(db,
				"SELECT id, pid, ppid, start_ns, end_ns, comm, argv, exit_status,"
				" threads, nexec, pss_kib, rss_kib, peak_pss_kib, peak_pss_t_ns,"
				" peak_rss_kib, pss_age_ns, utime_us, stime_us, minflt, majflt, valid"
				" FROM processes WHERE run_id = ?1 ORDER BY seq", run_id, &s);

	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct proc_rec r;

		memset(&r, 0, sizeof(r));
		r.id = (uint64_t)sqlite3_column_int64(s, 0);
		r.pid = (pid_t)sqlite3_column_int64(s, 1);
		r.ppid = (pid_t)sqlite3_column_int64(s, 2);
		r.start_ns = recdb_col_time(s, 3, base);
		r.end_ns = recdb_col_time(s, 4, base);
		recdb_col_comm(s, 5, r.comm);
		r.argv_id = recdb_col_intern(st, s, 6);
		r.exit_status = sqlite3_column_int(s, 7);
		r.threads = (uint32_t)sqlite3_column_int64(s, 8);
		r.nexec = (uint32_t)sqlite3_column_int64(s, 9);
		r.pss_kib = (uint64_t)sqlite3_column_int64(s, 10);
		r.rss_kib = (uint64_t)sqlite3_column_int64(s, 11);
		r.peak_pss_kib = (uint64_t)sqlite3_column_int64(s, 12);
		r.peak_pss_t_ns = recdb_col_time(s, 13, base);
		r.peak_rss_kib = (uint64_t)sqlite3_column_int64(s, 14);
		r.pss_age_ns = (uint64_t)sqlite3_column_int64(s, 15);
		r.utime_us = (uint64_t)sqlite3_column_int64(s, 16);
		r.stime_us = (uint64_t)sqlite3_column_int64(s, 17);
		r.minflt = (uint64_t)sqlite3_column_int64(s, 18);
		r.majflt = (uint64_t)sqlite3_column_int64(s, 19);
		r.valid = (uint32_t)sqlite3_column_int64(s, 20);
		if (r.end_ns) {
			if (n == cap) {
				struct proc_rec *g;

				cap = cap ? cap * 2 : 64;
				g = realloc(ended, cap * sizeof(*ended));
				if (!g) {
					rc = SQLITE_NOMEM;
					break;
				}
				ended = g;
			}
			ended[n++] = r;
			r.end_ns = 0;
		}
		if (store_proc_update(st, &r) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE) {
		/* a stable insertion sort (ties keep insertion order); ends mostly
		 * come in order already, so it is near linear */
		for (size_t i = 1; i < n; i++) {
			struct proc_rec x = ended[i];
			size_t j = i;

			if (recdb_cmp_end(&ended[j - 1], &x) <= 0)
				continue;
			while (j > 0 && recdb_cmp_end(&ended[j - 1], &x) > 0) {
				ended[j] = ended[j - 1];
				j--;
			}
			ended[j] = x;
		}
		for (size_t i = 0; i < n && rc == SQLITE_DONE; i++)
			if (store_proc_update(st, &ended[i]) < 0)
				rc = SQLITE_NOMEM;
	}
	free(ended);
	if (rc == SQLITE_NOMEM)
		return recdb_say(db, -ENOMEM, "loading processes: out of memory");
	return rc == SQLITE_DONE ? 0 : recdb_fail(db, rc, "reading processes");
}

static int recdb_load_execs(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	sqlite3_stmt *s;
	int rc = recdb_prep_run(db,
				"SELECT t_ns, pid, ppid, comm, argv FROM execs WHERE run_id = ?1"
				" ORDER BY idx", run_id, &s);

	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_exec x;

		memset(&x, 0, sizeof(x));
		x.t_ns = base + (uint64_t)sqlite3_column_int64(s, 0);
		x.pid = (pid_t)sqlite3_column_int64(s, 1);
		x.ppid = (pid_t)sqlite3_column_int64(s, 2);
		recdb_col_comm(s, 3, x.comm);
		x.argv_id = recdb_col_intern(st, s, 4);
		store_push_exec(st, &x);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : recdb_fail(db, rc, "reading execs");
}

/* Sets the field named key of the summary from column 1 of s. */
static void recdb_sum_set(struct store_summary *sum, const char *key, sqlite3_stmt *s,
			  uint64_t base)
{
	const struct recdb_field *fields = recdb_sum_fields;
	size_t nf = RECDB_NSUM_FIELDS;
	void *obj = sum;

	if (strncmp(key, "attach_pid.", 11) == 0) {
		unsigned long i = strtoul(key + 11, NULL, 10);

		if (i < STORE_ATTACH_MAX)
			sum->attach_pid[i] = (pid_t)sqlite3_column_int64(s, 1);
		return;
	}
	if (strncmp(key, "peak.", 5) == 0 || strncmp(key, "last.", 5) == 0) {
		obj = key[0] == 'p' ? &sum->peak : &sum->last;
		fields = recdb_sample_fields;
		nf = RECDB_NSAMPLE_FIELDS;
		key += 5;
	}
	for (size_t i = 0; i < nf; i++)
		if (strcmp(fields[i].name, key) == 0) {
			recdb_col_field(s, 1, &fields[i], obj, base);
			return;
		}
}

/* The written summary, or, for a run that never wrote one, what the samples
 * tell: start, last sample and the highest PSS sample. */
static int recdb_load_summary(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	struct store_summary sum;
	sqlite3_stmt *s;
	int rc, rows = 0;

	memset(&sum, 0, sizeof(sum));
	rc = recdb_prep_run(db, "SELECT key, value FROM run_summary WHERE run_id = ?1", run_id, &s);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(s, 0);

		if (k)
			recdb_sum_set(&sum, k, s, base);
		rows++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return recdb_fail(db, rc, "reading the summary");
	if (!rows) {
		struct bucket bk;
		uint64_t t0, t1, cur = 0;
		struct sample smp;

		sum.start_ns = base;
		while (store_samples(st, &cur, &smp, 1, NULL) == 1) {
			if ((smp.valid & SAMPLE_PSS) && smp.pss_kib >= sum.peak.pss_kib)
				sum.peak = smp;
			sum.last = smp;
		}
		if (store_span(st, &t0, &t1) == 0 && store_query(st, t1, t1, &bk, 1) == 1)
			sum.last = bk.max;
	}
	store_summary_set(st, &sum);
	return 0;
}

int recdb_load(struct recdb *db, int64_t run_id, struct store **out)
{
	struct store_config cfg;
	int64_t nsamples = 0, nevents = 0;
	struct store *st;
	uint64_t base;
	sqlite3_stmt *s;
	int rc;

	*out = NULL;
	rc = recdb_run_base(db, run_id, &base);
	if (rc < 0)
		return rc;
	rc = recdb_prep_run(db, "SELECT (SELECT count(*) FROM samples WHERE run_id = ?1),"
			    " (SELECT count(*) FROM events WHERE run_id = ?1)", run_id, &s);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		nsamples = sqlite3_column_int64(s, 0);
		nevents = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return recdb_fail(db, rc, "reading the recording");
	memset(&cfg, 0, sizeof(cfg));
	/* every sample at full resolution; the store's defaults otherwise */
	cfg.tier0_len = nsamples > 4096 ? (uint32_t)(nsamples < UINT32_MAX ? nsamples : UINT32_MAX)
					: 4096;
	cfg.events_len = nevents > 65536 ? (uint32_t)(nevents < UINT32_MAX ? nevents : UINT32_MAX)
					 : 65536;
	st = store_new(&cfg);
	if (!st)
		return recdb_say(db, -ENOMEM, "loading run %" PRId64 ": out of memory", run_id);
	rc = recdb_load_samples(db, run_id, base, st);
	if (rc == 0)
		rc = recdb_load_events(db, run_id, base, st);
	if (rc == 0)
		rc = recdb_load_procs(db, run_id, base, st);
	if (rc == 0)
		rc = recdb_load_execs(db, run_id, base, st);
	if (rc == 0)
		rc = recdb_load_summary(db, run_id, base, st);
	if (rc < 0) {
		store_free(st);
		return rc;
	}
	*out = st;
	return 0;
}

ssize_t recdb_procs_at(struct recdb *db, int64_t run_id, uint64_t t_ns,
		       struct recdb_proc_at **out)
{
	struct recdb_proc_at *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s;
	uint64_t base;
	int rc;

	*out = NULL;
	rc = recdb_run_base(db, run_id, &base);
	if (rc < 0)
		return rc;
	rc = recdb_prep_run(db,
			    "SELECT p.id, p.pid, p.ppid, p.start_ns, p.comm, s.t_ns, s.pss_kib,"
			    " s.rss_kib, s.cpu_us, s.minflt, s.majflt FROM processes p"
			    " LEFT JOIN proc_samples s ON s.rowid = (SELECT rowid FROM proc_samples"
			    " WHERE run_id = p.run_id AND proc_id = p.id AND t_ns <= ?2"
			    " ORDER BY t_ns DESC LIMIT 1)"
			    " WHERE p.run_id = ?1 AND p.start_ns <= ?2"
			    " AND (p.end_ns IS NULL OR p.end_ns > ?2) ORDER BY p.seq", run_id, &s);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 2, (int64_t)(t_ns - base));
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct recdb_proc_at *p;

		if (n == cap) {
			struct recdb_proc_at *g;

			cap = cap ? cap * 2 : 64;
			g = realloc(v, cap * sizeof(*v));
			if (!g) {
				rc = SQLITE_NOMEM;
				break;
			}
			v = g;
		}
		p = &v[n++];
		memset(p, 0, sizeof(*p));
		p->id = p->s.id = (uint64_t)sqlite3_column_int64(s, 0);
		p->pid = (pid_t)sqlite3_column_int64(s, 1);
		p->ppid = (pid_t)sqlite3_column_int64(s, 2);
		p->start_ns = recdb_col_time(s, 3, base);
		recdb_col_comm(s, 4, p->comm);
		if (sqlite3_column_type(s, 5) == SQLITE_NULL)
			continue;
		p->s.t_ns = base + (uint64_t)sqlite3_column_int64(s, 5);
		if (sqlite3_column_type(s, 6) != SQLITE_NULL) {
			p->s.pss_kib = (uint64_t)sqlite3_column_int64(s, 6);
			p->s.valid |= PROC_V_PSS;
		}
		if (sqlite3_column_type(s, 7) != SQLITE_NULL) {
			p->s.rss_kib = (uint64_t)sqlite3_column_int64(s, 7);
			p->s.valid |= PROC_V_RSS;
		}
		if (sqlite3_column_type(s, 8) != SQLITE_NULL) {
			p->s.cpu_us = (uint64_t)sqlite3_column_int64(s, 8);
			p->s.valid |= PROC_V_CPU;
		}
		if (sqlite3_column_type(s, 9) != SQLITE_NULL) {
			p->s.minflt = (uint64_t)sqlite3_column_int64(s, 9);
			p->s.majflt = (uint64_t)sqlite3_column_int64(s, 10);
			p->s.valid |= PROC_V_FAULTS;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(v);
		return rc == SQLITE_NOMEM ? recdb_say(db, -ENOMEM, "processes: out of memory")
					  : recdb_fail(db, rc, "reading per-process samples");
	}
	*out = v;
	return (ssize_t)n;
}

void recdb_lines_free(struct recdb_line *lines, size_t n)
{
	for (size_t i = 0; lines && i < n; i++)
		free((void *)lines[i].bytes);
	free(lines);
}

ssize_t recdb_output_at(struct recdb *db, int64_t run_id, uint64_t t_ns, size_t max,
			struct recdb_line **out)
{
	struct recdb_line *v;
	size_t n = 0;
	sqlite3_stmt *s;
	uint64_t base;
	int rc;

	*out = NULL;
	rc = recdb_run_base(db, run_id, &base);
	if (rc < 0 || max == 0)
		return rc;
	v = calloc(max, sizeof(*v));
	if (!v)
		return recdb_say(db, -ENOMEM, "output: out of memory");
	rc = recdb_prep_run(db,
			    "SELECT t_ns, line FROM output WHERE run_id = ?1 AND t_ns <= ?2"
			    " ORDER BY t_ns DESC, rowid DESC LIMIT ?3", run_id, &s);
	if (rc < 0) {
		free(v);
		return rc;
	}
	sqlite3_bind_int64(s, 2, (int64_t)(t_ns - base));
	sqlite3_bind_int64(s, 3, max > INT64_MAX ? INT64_MAX : (int64_t)max);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct recdb_line *l = &v[max - 1 - n];

		l->t_ns = base + (uint64_t)sqlite3_column_int64(s, 0);
		l->bytes = recdb_col_dup(s, 1, &l->len);
		if (!l->bytes) {
			rc = SQLITE_NOMEM;
			break;
		}
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		recdb_lines_free(v, max);
		return rc == SQLITE_NOMEM ? recdb_say(db, -ENOMEM, "output: out of memory")
					  : recdb_fail(db, rc, "reading output");
	}
	/* filled from the end: move the newest-last block to the front */
	memmove(v, v + (max - n), n * sizeof(*v));
	*out = v;
	return (ssize_t)n;
}

/* Deletes one run's rows from every table, in one transaction. */
static int recdb_delete_run(struct recdb *db, int64_t run_id)
{
	char sql[96];
	int rc = recdb_exec(db, "BEGIN IMMEDIATE", "pruning");

	for (size_t i = 0; rc == 0 && i < sizeof(recdb_run_tables) / sizeof(recdb_run_tables[0]);
	     i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE run_id = %" PRId64,
			 recdb_run_tables[i], run_id);
		rc = recdb_exec(db, sql, "pruning");
	}
	if (rc == 0) {
		snprintf(sql, sizeof(sql), "DELETE FROM runs WHERE id = %" PRId64, run_id);
		rc = recdb_exec(db, sql, "pruning");
	}
	if (rc == 0)
		return recdb_exec(db, "COMMIT", "pruning");
	sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Pages in use (not free) times the page size. */
static int recdb_used_bytes(struct recdb *db, uint64_t *bytes)
{
	int64_t pages, freep, psize;
	int rc = recdb_int(db, "PRAGMA page_count", &pages, "pruning");

	if (rc == 0)
		rc = recdb_int(db, "PRAGMA freelist_count", &freep, "pruning");
	if (rc == 0)
		rc = recdb_int(db, "PRAGMA page_size", &psize, "pruning");
	if (rc == 0)
		*bytes = (uint64_t)(pages - freep) * (uint64_t)psize;
	return rc;
}

int recdb_prune(struct recdb *db, size_t keep_runs, uint64_t max_bytes)
{
	int64_t count, oldest, newest;
	int pruned = 0, rc;

	if (db->rdonly)
		return recdb_say(db, -EROFS, "the recording was opened read-only");
	for (;;) {
		uint64_t used = 0;
		int over;

		rc = recdb_int(db, "SELECT count(*) FROM runs", &count, "pruning");
		if (rc == 0)
			rc = recdb_int(db, "SELECT min(id) FROM runs", &oldest, "pruning");
		if (rc == 0)
			rc = recdb_int(db, "SELECT max(id) FROM runs", &newest, "pruning");
		if (rc == 0 && max_bytes)
			rc = recdb_used_bytes(db, &used);
		if (rc < 0)
			return rc;
		over = (keep_runs && (uint64_t)count > keep_runs) || (max_bytes && used > max_bytes);
		if (count < 2 || !over || oldest == newest)
			break;
		rc = recdb_delete_run(db, oldest);
		if (rc < 0)
			return rc;
		pruned++;
	}
	if (pruned) {
		/* give the freed pages back to the file system */
		recdb_exec(db, "PRAGMA incremental_vacuum", "pruning");
		sqlite3_wal_checkpoint_v2(db->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	}
	return pruned;
}
