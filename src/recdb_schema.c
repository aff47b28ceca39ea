/* recdb_schema: the recording's schema, and the checks that a file holds
 * exactly it before anything else is read.
 *
 * A recording is data from anywhere (a CI artifact, a bug report's
 * attachment): every connection has triggers, views and untrusted schema
 * functions off and SQLite's defensive mode on (recdb_schema_harden), and a
 * file is read only once its sqlite_schema is, object for object, the one
 * spacetime writes for the version its meta table names. The schema of
 * version k is made by running step 1 (the base, below) then the steps that
 * migrate each version to the next, up to k, on an empty in-memory database:
 * a file migrated in place and a file created new hold the same text. */
#include "recdb_sql.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole schema, version 1, the base of every later one. Times (*_ns but base_ns and
 * start_wall_ns) are ns relative to runs.base_ns; NULL is unknown. */
static const char recdb_schema_v1[] =
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
	"  updated_wall_ns INTEGER,\n" /* CLOCK_REALTIME of the last write: a run still
					 * being recorded is rewritten every second */
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
	 * the fields of the peak and last samples (last.* once the run has ended:
	 * until then the last row of samples is its last sample), attach_pid.N
	 * the attached pids */
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
	/* by process only: the process list at an instant looks each one up, and
	 * an index by time alone would be one more B-tree each commit writes */
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

/* recdb_schema_steps[k] takes a file from version k-1 to k ([1]: creates
 * version 1 from nothing). A new version adds its step (ALTER TABLE ... ADD
 * COLUMN, CREATE TABLE ...) here and raises RECDB_SCHEMA_VERSION: an older
 * file is then migrated by the writer, and an older spacetime refuses the
 * newer file in one line naming both versions. */
/* Version 2: the kinds of the tree's memory, the pressure stalls and the
 * memory left in each sample (0 and the SAMPLE_KINDS, SAMPLE_PSI,
 * SAMPLE_MEMLEFT bits clear in a run recorded before: unknown), and the
 * memory maps of the peak's largest processes. */
static const char recdb_schema_v2[] =
	"ALTER TABLE samples ADD COLUMN swap_kib INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE samples ADD COLUMN thp_kib INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE samples ADD COLUMN locked_kib INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE samples ADD COLUMN psi_cpu_pm INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE samples ADD COLUMN psi_mem_pm INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE samples ADD COLUMN psi_mem_full_pm INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE samples ADD COLUMN psi_io_pm INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE samples ADD COLUMN mem_left_kib INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE processes ADD COLUMN wait_cpu_us INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE processes ADD COLUMN wait_io_us INTEGER NOT NULL DEFAULT 0;\n"
	"CREATE TABLE peak_maps (\n" /* the memory maps of the peak's largest processes (peakmaps.h) */
	"  run_id INTEGER NOT NULL,\n"
	"  proc_id INTEGER NOT NULL,\n" /* processes.id */
	"  t_ns INTEGER NOT NULL,\n"    /* when it was read */
	"  kind INTEGER NOT NULL,\n"    /* enum smaps_kind */
	"  name BLOB NOT NULL,\n"
	"  deleted INTEGER NOT NULL,\n"
	"  nmaps INTEGER NOT NULL,\n"
	"  size_kib INTEGER, rss_kib INTEGER, pss_kib INTEGER, shared_clean_kib INTEGER,\n"
	"  shared_dirty_kib INTEGER, private_clean_kib INTEGER, private_dirty_kib INTEGER,\n"
	"  anon_kib INTEGER, swap_kib INTEGER, swap_pss_kib INTEGER, anon_huge_kib INTEGER,\n"
	"  file_pmd_kib INTEGER, shmem_pmd_kib INTEGER, locked_kib INTEGER\n"
	");\n"
	"CREATE INDEX peak_maps_run ON peak_maps (run_id, proc_id);\n";

static const char *const recdb_schema_steps[RECDB_SCHEMA_VERSION + 1] = {
	[1] = recdb_schema_v1,
	[2] = recdb_schema_v2,
};

/* One object of a schema: its sqlite_schema row. */
struct recdb_schema_obj {
	char *name; /* the row, "type\037name\037tbl_name\037sql" after the name's NUL */
	const char *row;
};

/* A schema's objects, sorted by name. */
struct recdb_schema_set {
	struct recdb_schema_obj *v;
	size_t n;
};

static void recdb_schema_set_free(struct recdb_schema_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* Reads the objects of db's main schema, by name. Returns SQLITE_OK or an
 * SQLite result (SQLITE_NOMEM for memory). */
static int recdb_schema_read(sqlite3 *db, struct recdb_schema_set *out)
{
	sqlite3_stmt *s = NULL;
	size_t cap = 0;
	int rc = sqlite3_prepare_v2(db,
				    "SELECT name, type, tbl_name, sql FROM main.sqlite_schema"
				    " ORDER BY name", -1, &s, NULL);

	memset(out, 0, sizeof(*out));
	if (rc == SQLITE_OK)
		rc = SQLITE_ROW;
	while (rc == SQLITE_ROW && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *f[4];
		size_t len[4], total = 0;

		for (int i = 0; i < 4; i++) {
			f[i] = (const char *)sqlite3_column_text(s, i);
			len[i] = f[i] ? (size_t)sqlite3_column_bytes(s, i) : 0;
			total += len[i] + 2;
		}
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			struct recdb_schema_obj *g = realloc(out->v, ncap * sizeof(*g));
			if (!g) {
				rc = SQLITE_NOMEM;
				break;
			}
			out->v = g;
			cap = ncap;
		}
		char *p = malloc(total + 1);
		if (!p) {
			rc = SQLITE_NOMEM;
			break;
		}
		/* name NUL, then the row; NULL (an index SQLite made) is \036 */
		memcpy(p, f[0] ? f[0] : "", len[0]);
		p[len[0]] = '\0';
		char *row = p + len[0] + 1, *w = row;
		for (int i = 1; i < 4; i++) {
			if (f[i])
				memcpy(w, f[i], len[i]);
			else
				*w++ = '\036';
			w += f[i] ? len[i] : 0;
			*w++ = i < 3 ? '\037' : '\0';
		}
		out->v[out->n++] = (struct recdb_schema_obj){.name = p, .row = row};
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return SQLITE_OK;
	recdb_schema_set_free(out);
	return rc;
}

/* The schema spacetime writes for version k, built once in memory. */
static struct recdb_schema_set recdb_schema_known[RECDB_SCHEMA_VERSION + 1];
static pthread_once_t recdb_schema_once = PTHREAD_ONCE_INIT;

static void recdb_schema_build(void)
{
	sqlite3 *mem = NULL;

	if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		sqlite3_close(mem);
		return;
	}
	for (int k = 1; k <= RECDB_SCHEMA_VERSION; k++) {
		if (sqlite3_exec(mem, recdb_schema_steps[k], NULL, NULL, NULL) != SQLITE_OK ||
		    recdb_schema_read(mem, &recdb_schema_known[k]) != SQLITE_OK)
			break;
	}
	sqlite3_close(mem);
}

/* The known schema of version k (NULL: out of memory). */
static const struct recdb_schema_set *recdb_schema_of(int64_t k)
{
	pthread_once(&recdb_schema_once, recdb_schema_build);
	if (k < 1 || k > RECDB_SCHEMA_VERSION || !recdb_schema_known[k].n)
		return NULL;
	return &recdb_schema_known[k];
}

/* The object named name in a sorted set, or NULL. */
static const struct recdb_schema_obj *recdb_schema_find(const struct recdb_schema_set *s,
							const char *name)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->v[mid].name, name);
		if (c == 0)
			return &s->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Says in one line how a file's schema differs from the known one (names
 * from the file quoted as plain ASCII). */
static int recdb_schema_differs(struct recdb *db, const struct recdb_schema_set *file,
				const struct recdb_schema_set *known, int64_t version)
{
	char name[72];

	for (size_t i = 0; i < file->n; i++) {
		const struct recdb_schema_obj *k = recdb_schema_find(known, file->v[i].name);
		recdb_sql_plain(file->v[i].name, name, sizeof(name));
		if (!k)
			return recdb_sql_say(db, -EMEDIUMTYPE,
					     "not a spacetime recording: it holds '%s', which spacetime's "
					     "schema %" PRId64 " has not (changed by another program?)",
					     name, version);
		if (strcmp(k->row, file->v[i].row) != 0)
			return recdb_sql_say(db, -EMEDIUMTYPE,
					     "not a spacetime recording: its '%s' is not the one spacetime's "
					     "schema %" PRId64 " defines (changed by another program?)",
					     name, version);
	}
	for (size_t i = 0; i < known->n; i++)
		if (!recdb_schema_find(file, known->v[i].name))
			return recdb_sql_say(db, -EMEDIUMTYPE,
					     "not a spacetime recording: it lacks '%.64s' of spacetime's "
					     "schema %" PRId64, known->v[i].name, version);
	return 0;
}

/* Reads meta's application and schema_version (meta is known to be our
 * table); 0 when both are there and ours, or the one line why not. */
static int recdb_schema_meta(struct recdb *db, int64_t *version)
{
	sqlite3_stmt *s = NULL;
	int rc, ours = 0, have_version = 0;

	rc = sqlite3_prepare_v2(db->db, "SELECT key, value FROM main.meta", -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = SQLITE_ROW;
	while (rc == SQLITE_ROW && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(s, 0);

		if (k && strcmp(k, "application") == 0) {
			const char *v = (const char *)sqlite3_column_text(s, 1);
			ours = sqlite3_column_type(s, 1) == SQLITE_TEXT && v && strcmp(v, "spacetime") == 0;
		} else if (k && strcmp(k, "schema_version") == 0) {
			have_version = sqlite3_column_type(s, 1) == SQLITE_INTEGER;
			*version = sqlite3_column_int64(s, 1);
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return recdb_sql_fail(db, rc, "reading the database's meta table");
	if (!ours || !have_version)
		return recdb_sql_say(db, -EMEDIUMTYPE,
				     "not a spacetime recording (an SQLite database of something else)");
	if (*version > RECDB_SCHEMA_VERSION)
		return recdb_sql_say(db, -EPROTONOSUPPORT,
				     "written by a newer spacetime (schema %" PRId64 "; this one reads "
				     "schema %d and older): use that version to read it",
				     *version, RECDB_SCHEMA_VERSION);
	if (*version < 1)
		return recdb_sql_say(db, -EBADMSG, "bad schema_version %" PRId64, *version);
	return 0;
}

int recdb_schema_check(struct recdb *db, int64_t *version)
{
	struct recdb_schema_set file;
	const struct recdb_schema_set *known = recdb_schema_of(RECDB_SCHEMA_VERSION);
	int rc;

	*version = 0;
	if (!known)
		return recdb_sql_say(db, -ENOMEM, "checking the recording: out of memory");
	rc = recdb_schema_read(db->db, &file);
	if (rc != SQLITE_OK)
		return recdb_sql_fail(db, rc, "reading the database");
	if (file.n == 0) {
		recdb_schema_set_free(&file);
		return 1;
	}
	/* meta is read only when it is our very table (not a view, nor a
	 * table of another shape) */
	const struct recdb_schema_obj *m = recdb_schema_find(&file, "meta");
	const struct recdb_schema_obj *km = recdb_schema_find(known, "meta");
	if (!m || !km || strcmp(m->row, km->row) != 0)
		rc = recdb_sql_say(db, -EMEDIUMTYPE,
				   "not a spacetime recording (an SQLite database of something else)");
	else if ((rc = recdb_schema_meta(db, version)) == 0) {
		const struct recdb_schema_set *want = recdb_schema_of(*version);
		rc = want ? recdb_schema_differs(db, &file, want, *version)
			  : recdb_sql_say(db, -ENOMEM, "checking the recording: out of memory");
	}
	recdb_schema_set_free(&file);
	return rc;
}

int recdb_schema_create(struct recdb *db)
{
	char sql[160];
	int rc = 0;

	for (int k = 1; k <= RECDB_SCHEMA_VERSION && rc == 0; k++)
		rc = recdb_sql_exec(db, recdb_schema_steps[k], "creating the database");
	snprintf(sql, sizeof(sql),
		 "INSERT INTO meta (key, value) VALUES ('application', 'spacetime'),"
		 " ('schema_version', %d)", RECDB_SCHEMA_VERSION);
	return rc ? rc : recdb_sql_exec(db, sql, "creating the database");
}

int recdb_schema_migrate(struct recdb *db, int64_t version)
{
	char sql[96];
	int rc = 0;

	if (version >= RECDB_SCHEMA_VERSION)
		return 0;
	for (int64_t k = version + 1; k <= RECDB_SCHEMA_VERSION && rc == 0; k++)
		rc = recdb_sql_exec(db, recdb_schema_steps[k], "migrating the recording");
	snprintf(sql, sizeof(sql), "UPDATE meta SET value = %d WHERE key = 'schema_version'",
		 RECDB_SCHEMA_VERSION);
	return rc ? rc : recdb_sql_exec(db, sql, "migrating the recording");
}

int recdb_schema_harden(struct recdb *db)
{
	static const int off[] = {SQLITE_DBCONFIG_ENABLE_TRIGGER, SQLITE_DBCONFIG_ENABLE_VIEW,
				  SQLITE_DBCONFIG_TRUSTED_SCHEMA,
				  SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION};
	int v = -1;

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (sqlite3_db_config(db->db, off[i], 0, &v) != SQLITE_OK || v != 0)
			return recdb_sql_say(db, -EIO, "cannot make the recording data only (SQLite %s)",
					     sqlite3_libversion());
	if (sqlite3_db_config(db->db, SQLITE_DBCONFIG_DEFENSIVE, 1, &v) != SQLITE_OK || v != 1)
		return recdb_sql_say(db, -EIO, "cannot make the recording data only (SQLite %s)",
				     sqlite3_libversion());
	/* no value spacetime writes comes near these (an argv is at most a few
	 * MiB): a larger one is a forged file, refused by SQLite itself */
	sqlite3_limit(db->db, SQLITE_LIMIT_LENGTH, RECDB_SQL_MAXLEN);
	sqlite3_limit(db->db, SQLITE_LIMIT_ATTACHED, 0);
	/* a page whose cells point outside it is corrupt: said, not followed */
	return recdb_sql_exec(db, "PRAGMA cell_size_check = ON", "opening the database");
}
