/* recdb: the recording database, an SQLite file of runs; this file holds the
 * schema, opening and checking a file, the writer and pruning (the reader is
 * recdb_read.c, what both share recdb_sql.c).
 *
 * The schema is the one block below. A writer prepares its statements once
 * at open and writes each batch in one transaction; a reader checks the file
 * (SQLite, ours, not newer, not corrupt) before anything else. */
#include "recdb.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recdb_sql.h"
#include "recvfs.h"

/* The run's tables, for pruning. */
static const char *const recdb_run_tables[] = {
	"run_summary", "samples", "processes", "proc_samples", "events", "execs", "output", "peak_maps",
};

enum recdb_stmt {
	RS_BEGIN, RS_COMMIT, RS_ROLLBACK, RS_SAMPLE, RS_EVENT, RS_PROC, RS_EXEC, RS_PSAMPLE,
	RS_LINE, RS_SUM, RS_RUNSUM, RS_END, RS_N
};
_Static_assert(RS_N <= RECDB_SQL_MAXSTMT, "room for the writer's statements");

static const char *const recdb_stmt_sql[RS_N] = {
	[RS_BEGIN] = "BEGIN IMMEDIATE",
	[RS_COMMIT] = "COMMIT",
	[RS_ROLLBACK] = "ROLLBACK",
	[RS_SAMPLE] = "INSERT INTO samples (run_id, t_ns, pss_kib, pss_anon_kib, pss_file_kib,"
		      " pss_shmem_kib, pss_est_kib, pss_hi_kib, rss_kib, minflt, majflt, utime_us,"
		      " stime_us, live_procs, live_threads, total_procs, total_threads, valid,"
		      " swap_kib, thp_kib, locked_kib, psi_cpu_pm, psi_mem_pm, psi_mem_full_pm, psi_io_pm,"
		      " mem_left_kib)"
		      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
		      " ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
	[RS_EVENT] = "INSERT INTO events (run_id, t_ns, type, pid, ppid, arg)"
		     " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[RS_PROC] = "INSERT INTO processes (run_id, id, seq, pid, ppid, start_ns, end_ns, comm,"
		    " argv, exit_status, threads, nexec, pss_kib, rss_kib, peak_pss_kib,"
		    " peak_pss_t_ns, peak_rss_kib, pss_age_ns, utime_us, stime_us, minflt,"
		    " majflt, valid, wait_cpu_us, wait_io_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
		    " ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)"
		    " ON CONFLICT (run_id, id) DO UPDATE SET seq = excluded.seq,"
		    " pid = excluded.pid, ppid = excluded.ppid, start_ns = excluded.start_ns,"
		    " end_ns = excluded.end_ns, comm = excluded.comm,"
		    " argv = coalesce(excluded.argv, argv), exit_status = excluded.exit_status,"
		    " threads = excluded.threads, nexec = excluded.nexec,"
		    " pss_kib = excluded.pss_kib, rss_kib = excluded.rss_kib,"
		    " peak_pss_kib = excluded.peak_pss_kib, peak_pss_t_ns = excluded.peak_pss_t_ns,"
		    " peak_rss_kib = excluded.peak_rss_kib, pss_age_ns = excluded.pss_age_ns,"
		    " utime_us = excluded.utime_us, stime_us = excluded.stime_us,"
		    " minflt = excluded.minflt, majflt = excluded.majflt, valid = excluded.valid,"
		    " wait_cpu_us = excluded.wait_cpu_us, wait_io_us = excluded.wait_io_us",
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
		      " total_execs = ?13, lost_events = ?14, mode = ?15, updated_wall_ns = ?16"
		      " WHERE id = ?1",
	[RS_END] = "UPDATE runs SET end_state = ?2, incomplete = ?3, note = ?4 WHERE id = ?1",
};

const char *recdb_errmsg(const struct recdb *db)
{
	return db ? db->msg : "";
}

const char *recdb_warning(const struct recdb *db)
{
	return db ? db->warn : "";
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
		char plain[sizeof(db->msg)];
		rc = recdb_sql_say(db, -EBADMSG, "the recording is corrupt or truncated (%s)",
				   recdb_sql_plain(v ? v : "?", plain, sizeof(plain)));
		sqlite3_finalize(s);
		return rc;
	}
	sqlite3_finalize(s);
	return recdb_sql_fail(db, rc, "checking the recording");
}

/* Creates the schema, or migrates an older one, in one transaction under
 * the write lock, checking the file again there (a concurrent creator wins
 * cleanly). */
static int recdb_create(struct recdb *db)
{
	int64_t version = 0;
	int rc;

	rc = recdb_sql_exec(db, "BEGIN IMMEDIATE", "creating the database");
	if (rc < 0)
		return rc;
	rc = recdb_schema_check(db, &version);
	if (rc == 1)
		rc = recdb_schema_create(db);
	else if (rc == 0)
		rc = recdb_schema_migrate(db, version);
	if (rc < 0) {
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return recdb_sql_exec(db, "COMMIT", "creating the database");
}

/* How long a statement waits for another connection's lock, at most. */
#define RECDB_BUSY_MS 5000

/* SQLite's busy handler: waits for another writer's lock in growing steps up
 * to RECDB_BUSY_MS, or not at all once aborted. */
static int recdb_busy(void *arg, int n)
{
	struct recdb *db = arg;
	int step = n < 4 ? 1 << n : 10; /* ms: 1, 2, 4, 8, then 10 */
	int waited = n < 4 ? (1 << n) - 1 : 15 + (n - 4) * 10;

	int go_on = !__atomic_load_n(&db->abort, __ATOMIC_RELAXED) && waited < RECDB_BUSY_MS;

	__atomic_store_n(&db->busy, go_on, __ATOMIC_RELAXED);
	if (!go_on)
		return 0;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = step * 1000000L};
	nanosleep(&ts, NULL);
	return 1;
}

int recdb_waiting_lock(struct recdb *db)
{
	return __atomic_load_n(&db->busy, __ATOMIC_RELAXED);
}

/* SQLite's progress handler: a statement stops once aborted (with the
 * interrupt, which a statement starting after it would miss). */
static int recdb_progress(void *arg)
{
	struct recdb *db = arg;

	return __atomic_load_n(&db->abort, __ATOMIC_RELAXED);
}

void recdb_abort(struct recdb *db, int on)
{
	__atomic_store_n(&db->abort, on, __ATOMIC_RELAXED);
	if (on)
		sqlite3_interrupt(db->db);
}

/* The reader's checks, or the writer's setup: WAL, NORMAL sync, statements. */
static int recdb_setup(struct recdb *db, const char *path, unsigned flags)
{
	struct stat sb;
	int rc;

	int64_t version = 0;

	sqlite3_extended_result_codes(db->db, 1);
	sqlite3_busy_handler(db->db, recdb_busy, db);
	sqlite3_progress_handler(db->db, 1000, recdb_progress, db);
	if ((rc = recdb_schema_harden(db)) < 0)
		return rc;
	if (db->rdonly) {
		if (stat(path, &sb) == 0 && sb.st_size == 0)
			return recdb_sql_say(db, -EMEDIUMTYPE, "not a spacetime recording (empty file)");
		rc = recdb_schema_check(db, &version);
		if (rc == 0 && version < RECDB_SCHEMA_VERSION)
			rc = recdb_sql_say(db, -ENOPROTOOPT,
					   "written by an older spacetime (schema %" PRId64 "): record one "
					   "run into it to bring it to schema %d", version, RECDB_SCHEMA_VERSION);
		if (rc == 1)
			return recdb_sql_say(db, -EMEDIUMTYPE, "not a spacetime recording (no tables)");
		if (rc == 0 && !(flags & RECDB_NOCHECK))
			rc = recdb_quick_check(db);
		return rc;
	}
	rc = recdb_schema_check(db, &version);
	if (rc < 0)
		return rc;
	int empty = rc == 1;
	/* only a file without pages takes it (WAL mode writes the first page) */
	if (empty)
		rc = recdb_sql_exec(db, "PRAGMA auto_vacuum = INCREMENTAL", "creating the database");
	if (rc == 0)
		rc = recdb_sql_exec(db, "PRAGMA journal_mode = WAL", "setting WAL mode");
	if (rc == 0)
		rc = recdb_sql_exec(db, "PRAGMA synchronous = NORMAL", "setting synchronous mode");
	/* the writer appends: it needs the right edge of each B-tree, not the
	 * default 2 MiB of cache, which it would fill with every page it ever
	 * wrote, each a fresh page of memory (a fault, ~16 us here; about 100
	 * of them in a bench build) */
	if (rc == 0)
		rc = recdb_sql_exec(db, "PRAGMA cache_size = -256", "setting the cache size");
	/* created (unless another spacetime did meanwhile: it checks again),
	 * or brought to this version */
	if (rc == 0 && (empty || version < RECDB_SCHEMA_VERSION))
		rc = recdb_create(db);
	if (rc < 0)
		return rc;
	for (int i = 0; i < RS_N; i++) {
		rc = sqlite3_prepare_v3(db->db, recdb_stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					&db->st[i], NULL);
		if (rc != SQLITE_OK)
			return recdb_sql_fail(db, rc, "preparing statements");
	}
	return 0;
}

/* SQLite's process-wide settings, before anything initializes it: no memory
 * statistics (nothing here reads them; each allocation would take a global
 * mutex to keep them, a tenth of the writer's work per row). */
static void recdb_sqlite_setup(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_initialize();
}

/* Checks one of the writer's files (the database, its -wal or -shm): absent,
 * or a regular file of this user's that is not a link; with RECDB_PRIVATE
 * one that others could read is made the user's alone. */
static int recdb_file_ok(struct recdb *db, const char *path, unsigned flags)
{
	struct stat sb;

	if (lstat(path, &sb) < 0)
		return errno == ENOENT ? 0 : recdb_sql_say(db, -errno, "%s", strerror(errno));
	if (S_ISLNK(sb.st_mode))
		return recdb_sql_say(db, -ELOOP, "%s is a symbolic link: spacetime records only into "
					      "a file itself, not through a link (give the file's own path)", path);
	if (!S_ISREG(sb.st_mode))
		return recdb_sql_say(db, -EINVAL, "%s is not a regular file", path);
	if (sb.st_uid != geteuid())
		return recdb_sql_say(db, -EPERM, "%s belongs to uid %u: spacetime records only into its "
					      "own user's files", path, (unsigned)sb.st_uid);
	if ((flags & RECDB_PRIVATE) && (sb.st_mode & 077) && chmod(path, sb.st_mode & 0700) < 0)
		return recdb_sql_say(db, -errno, "cannot make %s private: %s", path, strerror(errno));
	return 0;
}

/* The writer's files before SQLite opens them: the database is created 0600
 * (whatever the umask; its -wal and -shm take its mode) without following a
 * link, and the three are checked (a -wal another user left would be replayed
 * into the recording). */
static int recdb_files_check(struct recdb *db, const char *path, unsigned flags)
{
	char side[PATH_MAX + 8];
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc;

	if (fd >= 0) {
		rc = fchmod(fd, 0600) < 0 ? -errno : 0;
		close(fd);
		if (rc < 0)
			return recdb_sql_say(db, rc, "cannot make it private: %s", strerror(-rc));
	} else if (errno != EEXIST) {
		rc = -errno;
		if (rc == -ELOOP)
			return recdb_sql_say(db, rc, "%s is a symbolic link: spacetime records only into "
						     "a file itself, not through a link (give the file's own path)", path);
		return recdb_sql_say(db, rc, "cannot create it: %s", strerror(-rc));
	}
	if ((rc = recdb_file_ok(db, path, flags)) < 0)
		return rc;
	for (int i = 0; i < 2; i++) {
		if (snprintf(side, sizeof(side), "%s-%s", path, i ? "shm" : "wal") >= (int)sizeof(side))
			return recdb_sql_say(db, -ENAMETOOLONG, "its path is too long");
		if ((rc = recdb_file_ok(db, side, flags)) < 0)
			return rc;
	}
	return 0;
}

int recdb_open(const char *path, unsigned flags, struct recdb **out, char *msg, size_t msglen)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	struct recdb *db;
	int rc, oflags;

	pthread_once(&once, recdb_sqlite_setup);
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
	rc = db->rdonly ? 0 : recdb_files_check(db, path, flags);
	/* a writer's WAL frames go out one write per commit (recvfs.h) */
	if (rc == 0 && (rc = sqlite3_open_v2(path, &db->db, oflags | SQLITE_OPEN_NOMUTEX,
					     db->rdonly ? NULL : recvfs_name())) != SQLITE_OK)
		rc = recdb_sql_fail(db, rc, "opening the database");
	else if (rc == 0)
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

int recdb_run_begin(struct recdb *db, const struct recdb_run_info *info, int64_t *run_id)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if (db->rdonly)
		return recdb_sql_say(db, -EROFS, "the recording was opened read-only");
	rc = sqlite3_prepare_v2(db->db,
				"INSERT INTO runs (start_wall_ns, base_ns, argv, cwd, host, source,"
				" updated_wall_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &s, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(s);
		return recdb_sql_fail(db, rc, "starting a run");
	}
	sqlite3_bind_int64(s, 1, (int64_t)info->start_wall_ns);
	sqlite3_bind_int64(s, 2, (int64_t)info->base_ns);
	recdb_sql_bind_bytes(s, 3, info->argv, info->argv_len);
	if (info->cwd)
		sqlite3_bind_text(s, 4, info->cwd, -1, SQLITE_STATIC);
	if (info->host)
		sqlite3_bind_text(s, 5, info->host, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, info->attached ? "attached" : "spawned", -1, SQLITE_STATIC);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	sqlite3_bind_int64(s, 7, (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return recdb_sql_fail(db, rc, "starting a run");
	*run_id = sqlite3_last_insert_rowid(db->db);
	for (size_t i = 0; i < info->nlabels && i < RECDB_LABELS_MAX; i++) {
		const char *eq = strchr(info->labels[i], '=');
		char key[8 + RECDB_LABEL_KEY_MAX];
		if (!eq || !recdb_label_ok(info->labels[i]))
			continue;
		snprintf(key, sizeof(key), "label.%.*s", (int)(eq - info->labels[i]), info->labels[i]);
		s = db->st[RS_SUM];
		sqlite3_bind_int64(s, 1, *run_id);
		sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 3, eq + 1, -1, SQLITE_TRANSIENT);
		if ((rc = recdb_sql_step(db, s, "writing the run's labels")) < 0)
			return rc;
	}
	return 0;
}

int recdb_label_ok(const char *label)
{
	const char *eq = strchr(label, '=');
	size_t k = eq ? (size_t)(eq - label) : 0;

	if (!k || k > RECDB_LABEL_KEY_MAX || strlen(eq + 1) > RECDB_LABEL_VALUE_MAX)
		return 0;
	for (size_t i = 0; i < k; i++)
		if (!isalnum((unsigned char)label[i]) && label[i] != '_' && label[i] != '.' && label[i] != '-')
			return 0;
	for (const unsigned char *v = (const unsigned char *)eq + 1; *v; v++)
		if (*v < 0x20 || *v == 0x7f)
			return 0;
	return 1;
}

/* Whether field f of a and b differ (b NULL: all do). */
static int recdb_field_changed(const struct recdb_sql_field *f, const void *a, const void *b)
{
	size_t size = f->kind == RECDB_SQL_U32 || f->kind == RECDB_SQL_INT ? 4 : 8;

	return !b || memcmp((const char *)a + f->off, (const char *)b + f->off, size) != 0;
}

/* The summary as key/value rows, those that changed since was (NULL: all),
 * plus the runs table's headline columns. */
static int recdb_write_summary(struct recdb *db, int64_t run_id, uint64_t base,
			       const struct store_summary *sum, const struct store_summary *was,
			       int final)
{
	sqlite3_stmt *s = db->st[RS_SUM];
	char key[32];
	int rc = 0;

	for (size_t i = 0; i < recdb_sql_nsum_fields && rc == 0; i++) {
		if (!recdb_field_changed(&recdb_sql_sum_fields[i], sum, was))
			continue;
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_text(s, 2, recdb_sql_sum_fields[i].name, -1, SQLITE_STATIC);
		recdb_sql_bind_field(s, 3, &recdb_sql_sum_fields[i], sum, base);
		rc = recdb_sql_step(db, s, "writing the summary");
	}
	for (int k = 0; k < 2; k++) {
		const struct sample *smp = k ? &sum->last : &sum->peak;
		const struct sample *wsmp = !was ? NULL : k ? &was->last : &was->peak;

		if (k && !final)
			break;
		if (k && !db->w_last_held)
			wsmp = NULL;

		for (size_t i = 0; i < recdb_sql_nsample_fields && rc == 0; i++) {
			if (!recdb_field_changed(&recdb_sql_sample_fields[i], smp, wsmp))
				continue;
			snprintf(key, sizeof(key), "%s.%s", k ? "last" : "peak",
				 recdb_sql_sample_fields[i].name);
			sqlite3_bind_int64(s, 1, run_id);
			sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
			recdb_sql_bind_field(s, 3, &recdb_sql_sample_fields[i], smp, base);
			rc = recdb_sql_step(db, s, "writing the summary");
		}
	}
	for (uint32_t i = 0; i < sum->attach_n && i < STORE_ATTACH_MAX && rc == 0; i++) {
		if (was && i < was->attach_n && was->attach_pid[i] == sum->attach_pid[i])
			continue;
		snprintf(key, sizeof(key), "attach_pid.%u", i);
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 3, sum->attach_pid[i]);
		rc = recdb_sql_step(db, s, "writing the summary");
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
	recdb_sql_bind_time(s, 4, sum->peak.t_ns, base);
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
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	sqlite3_bind_int64(s, 16, (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec);
	rc = recdb_sql_step(db, s, "writing the summary");
	/* gone (pruned by another spacetime): the batch is rolled back */
	if (rc == 0 && sqlite3_changes(db->db) == 0)
		rc = recdb_sql_say(db, -ENOENT, "no run %" PRId64 " in the recording", run_id);
	return rc;
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
	recdb_sql_bind_time(s, 6, r->start_ns, base);
	recdb_sql_bind_time(s, 7, r->end_ns, base);
	recdb_sql_bind_comm(s, 8, r->comm);
	recdb_sql_bind_bytes(s, 9, p->argv, p->argv_len);
	if (r->valid & PROC_V_EXIT)
		sqlite3_bind_int(s, 10, r->exit_status);
	sqlite3_bind_int64(s, 11, r->threads);
	sqlite3_bind_int64(s, 12, r->nexec);
	sqlite3_bind_int64(s, 13, (int64_t)r->pss_kib);
	sqlite3_bind_int64(s, 14, (int64_t)r->rss_kib);
	sqlite3_bind_int64(s, 15, (int64_t)r->peak_pss_kib);
	recdb_sql_bind_time(s, 16, r->peak_pss_t_ns, base);
	sqlite3_bind_int64(s, 17, (int64_t)r->peak_rss_kib);
	sqlite3_bind_int64(s, 18, (int64_t)r->pss_age_ns);
	sqlite3_bind_int64(s, 19, (int64_t)r->utime_us);
	sqlite3_bind_int64(s, 20, (int64_t)r->stime_us);
	sqlite3_bind_int64(s, 21, (int64_t)r->minflt);
	sqlite3_bind_int64(s, 22, (int64_t)r->majflt);
	sqlite3_bind_int64(s, 23, r->valid);
	sqlite3_bind_int64(s, 24, (int64_t)r->wait_cpu_us);
	sqlite3_bind_int64(s, 25, (int64_t)r->wait_io_us);
	return recdb_sql_step(db, s, "writing processes");
}

/* Every row of the batch, inside the caller's transaction. */
/* The batch's execs and per-process samples. */
static int write_execs_psamples(struct recdb *db, int64_t run_id, uint64_t base, const struct recdb_batch *b)
{
	sqlite3_stmt *s;
	int rc = 0;

	s = db->st[RS_EXEC];
	for (size_t i = 0; i < b->nexecs && rc == 0; i++) {
		const struct recdb_exec *x = &b->execs[i];

		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_int64(s, 2, (int64_t)x->idx);
		sqlite3_bind_int64(s, 3, (int64_t)(x->ex.t_ns - base));
		sqlite3_bind_int64(s, 4, x->ex.pid);
		sqlite3_bind_int64(s, 5, x->ex.ppid);
		recdb_sql_bind_comm(s, 6, x->ex.comm);
		recdb_sql_bind_bytes(s, 7, x->argv, x->argv_len);
		rc = recdb_sql_step(db, s, "writing execs");
	}
	s = db->st[RS_PSAMPLE];
	for (size_t i = 0; i < b->npsamples && rc == 0; i++) {
		const struct store_proc_sample *p = &b->psamples[i];

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
		rc = recdb_sql_step(db, s, "writing per-process samples");
	}
	return rc;
}

static int recdb_write_rows(struct recdb *db, int64_t run_id, uint64_t base,
			    const struct recdb_batch *b)
{
	sqlite3_stmt *s;
	int rc = 0;

	s = db->st[RS_SAMPLE];
	for (size_t i = 0; i < b->nsamples && rc == 0; i++) {
		sqlite3_bind_int64(s, 1, run_id);
		for (size_t f = 0; f < recdb_sql_nsample_fields; f++)
			recdb_sql_bind_field(s, (int)f + 2, &recdb_sql_sample_fields[f], &b->samples[i], base);
		rc = recdb_sql_step(db, s, "writing samples");
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
		rc = recdb_sql_step(db, s, "writing events");
	}
	for (size_t i = 0; i < b->nprocs && rc == 0; i++)
		rc = recdb_write_proc(db, run_id, base, &b->procs[i]);
	if (rc == 0 && b->peak_maps_set)
		rc = recdb_maps_write(db, run_id, base, b->peak_maps, b->npeak_maps);
	if (rc == 0)
		rc = write_execs_psamples(db, run_id, base, b);
	s = db->st[RS_LINE];
	for (size_t i = 0; i < b->nlines && rc == 0; i++) {
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_int64(s, 2, (int64_t)(b->lines[i].t_ns - base));
		recdb_sql_bind_bytes(s, 3, b->lines[i].bytes ? b->lines[i].bytes : "",
				 b->lines[i].len);
		rc = recdb_sql_step(db, s, "writing output");
	}
	if (rc == 0 && b->summary)
		rc = recdb_write_summary(db, run_id, base, b->summary,
					 db->w_sum_held && db->w_run == run_id ? &db->w_sum : NULL,
					 b->final);
	if (rc == 0 && b->end) {
		s = db->st[RS_END];
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_text(s, 2, recdb_end_name(b->end->end), -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 3, !!b->end->incomplete);
		if (b->end->note)
			sqlite3_bind_text(s, 4, b->end->note, -1, SQLITE_STATIC);
		rc = recdb_sql_step(db, s, "finishing the run");
	}
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
		return recdb_sql_say(db, -EROFS, "the recording was opened read-only");
	if (db->w_run != run_id) {
		rc = recdb_sql_run_base(db, run_id, &base);
		if (rc < 0)
			return rc;
		db->w_run = run_id;
		db->w_base = base;
		db->w_sum_held = db->w_last_held = 0;
	}
	base = db->w_base;
	rc = recdb_sql_step(db, db->st[RS_BEGIN], "writing the recording");
	if (rc < 0)
		return rc;
	rc = recdb_write_rows(db, run_id, base, b);
	if (rc == 0)
		rc = recdb_sql_step(db, db->st[RS_COMMIT], "writing the recording");
	if (rc < 0) {
		recdb_rollback(db);
		db->w_sum_held = 0; /* what the database holds is not known */
	} else if (b->summary) {
		db->w_sum = *b->summary;
		db->w_sum_held = 1;
		db->w_last_held = b->final;
	}
	return rc;
}

int recdb_run_finish(struct recdb *db, int64_t run_id, const struct store_summary *sum,
		     enum recdb_end end, int incomplete, const char *note)
{
	struct recdb_end_info e = {.end = end, .incomplete = incomplete, .note = note};
	struct recdb_batch b = {.summary = sum, .final = 1, .end = &e};

	return recdb_write(db, run_id, &b);
}

/* Deletes one run's rows from every table, in one transaction. */
static int recdb_delete_run(struct recdb *db, int64_t run_id)
{
	char sql[96];
	int rc = recdb_sql_exec(db, "BEGIN IMMEDIATE", "pruning");

	for (size_t i = 0; rc == 0 && i < sizeof(recdb_run_tables) / sizeof(recdb_run_tables[0]);
	     i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE run_id = %" PRId64,
			 recdb_run_tables[i], run_id);
		rc = recdb_sql_exec(db, sql, "pruning");
	}
	if (rc == 0) {
		snprintf(sql, sizeof(sql), "DELETE FROM runs WHERE id = %" PRId64, run_id);
		rc = recdb_sql_exec(db, sql, "pruning");
	}
	if (rc == 0)
		return recdb_sql_exec(db, "COMMIT", "pruning");
	sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* The runs (how many, the oldest, the newest) and the bytes of the pages in
 * use (not free), in one statement. */
static int recdb_prune_state(struct recdb *db, int64_t *count, int64_t *oldest, int64_t *newest,
			     uint64_t *used)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db->db,
				    "SELECT (SELECT count(*) FROM runs), (SELECT min(id) FROM runs),"
				    " (SELECT max(id) FROM runs),"
				    " (SELECT page_count FROM pragma_page_count()),"
				    " (SELECT freelist_count FROM pragma_freelist_count()),"
				    " (SELECT page_size FROM pragma_page_size())", -1, &s, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*count = sqlite3_column_int64(s, 0);
		*oldest = sqlite3_column_int64(s, 1);
		*newest = sqlite3_column_int64(s, 2);
		int64_t pages = sqlite3_column_int64(s, 3), freep = sqlite3_column_int64(s, 4);
		*used = pages > freep ? (uint64_t)(pages - freep) * (uint64_t)sqlite3_column_int64(s, 5) : 0;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : recdb_sql_fail(db, rc, "pruning");
}

int recdb_prune(struct recdb *db, size_t keep_runs, uint64_t max_bytes)
{
	int64_t count = 0, oldest = 0, newest = 0;
	int pruned = 0, rc;

	if (db->rdonly)
		return recdb_sql_say(db, -EROFS, "the recording was opened read-only");
	for (;;) {
		uint64_t used = 0;
		int over;

		rc = recdb_prune_state(db, &count, &oldest, &newest, &used);
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
		recdb_sql_exec(db, "PRAGMA incremental_vacuum", "pruning");
		sqlite3_wal_checkpoint_v2(db->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	}
	return pruned;
}
