/* recdb_sql: what the recording database's writer and reader share. */
#include "recdb_sql.h"

#include "textsafe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RF(s, f, k) { #f, offsetof(struct s, f), RECDB_SQL_##k }
#define SMP(f, k) RF(sample, f, k)
/* struct sample in the order of the samples table's columns (t_ns first). */
const struct recdb_sql_field recdb_sql_sample_fields[] = {
	SMP(t_ns, TIME), SMP(pss_kib, U64), SMP(pss_anon_kib, U64),
	SMP(pss_file_kib, U64), SMP(pss_shmem_kib, U64), SMP(pss_est_kib, U64),
	SMP(pss_hi_kib, U64), SMP(rss_kib, U64), SMP(minflt, U64),
	SMP(majflt, U64), SMP(utime_us, U64), SMP(stime_us, U64),
	SMP(live_procs, U32), SMP(live_threads, U32), SMP(total_procs, U32),
	SMP(total_threads, U32), SMP(valid, U32),
};
const size_t recdb_sql_nsample_fields =
	sizeof(recdb_sql_sample_fields) / sizeof(recdb_sql_sample_fields[0]);

#define SUM(f, k) RF(store_summary, f, k)
/* struct store_summary but its samples (peak, last) and attach_pid. */
const struct recdb_sql_field recdb_sql_sum_fields[] = {
	SUM(start_ns, TIME), SUM(end_ns, TIME), SUM(root_end_ns, TIME),
	SUM(exited, INT), SUM(orphans_reaped, U64), SUM(wait_status, INT),
	SUM(ru_utime_us, U64), SUM(ru_stime_us, U64), SUM(ru_maxrss_kib, U64),
	SUM(max_tree_rss_kib, U64), SUM(ru_minflt, U64), SUM(ru_majflt, U64),
	SUM(ru_nvcsw, U64), SUM(ru_nivcsw, U64), SUM(ru_inblock, U64),
	SUM(ru_oublock, U64), SUM(peak_measured, INT),
	SUM(peak_unconfirmed_kib, U64), SUM(pss_est_share, DBL),
	SUM(pss_sweeps, U64), SUM(pss_sweep_reads, U64),
	SUM(pss_sweeps_unstable, U64), SUM(fast_ticks, U64), SUM(lost_events, U64),
	SUM(rescans, U64), SUM(total_execs, U32), SUM(mode, U32),
	SUM(pss_reads, U64), SUM(pss_cpu_ns, U64), SUM(budget_ns, U64),
	SUM(pss_max_age_ns, U64), SUM(pss_mean_age_ns, U64),
	SUM(collector_cpu_ns, U64), SUM(self_cpu_ns, U64), SUM(interval_ms, U64),
	SUM(collector_wakeups, U64), SUM(nl_events, U64), SUM(taskstats, INT),
	SUM(ts_records, U64), SUM(ts_lost, U64), SUM(ts_unfit, U64), SUM(attached, INT),
	SUM(detached, INT), SUM(attach_n, U32), SUM(attach_prior_cpu_us, U64),
};
const size_t recdb_sql_nsum_fields = sizeof(recdb_sql_sum_fields) / sizeof(recdb_sql_sum_fields[0]);

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

enum recdb_end recdb_sql_end_parse(const char *s)
{
	for (unsigned i = 0; s && i < sizeof(recdb_end_names) / sizeof(recdb_end_names[0]); i++)
		if (strcmp(s, recdb_end_names[i]) == 0)
			return (enum recdb_end)i;
	return RECDB_END_RUNNING;
}

/* Sets the one-line message and returns err (a -errno). */
int recdb_sql_say(struct recdb *db, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->msg, sizeof(db->msg), fmt, ap);
	va_end(ap);
	return err;
}

const char *recdb_sql_plain(const char *s, char *buf, size_t cap)
{
	textsafe_str(s, strlen(s), buf, cap, 0);
	return buf;
}

/* Maps an SQLite result to -errno and says "what: why" in a person's words. */
int recdb_sql_fail(struct recdb *db, int rc, const char *what)
{
	int sys = db->db ? sqlite3_system_errno(db->db) : 0;
	char plain[sizeof(db->msg)];
	const char *detail = recdb_sql_plain(db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc), plain,
					     sizeof(plain));

	switch (rc & 0xff) {
	case SQLITE_FULL:
		return recdb_sql_say(db, -ENOSPC, "%s: database is full (disk full)", what);
	case SQLITE_READONLY:
		return recdb_sql_say(db, -EROFS, "%s: the database is read-only (%s)", what, detail);
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return recdb_sql_say(db, -EACCES, "%s: permission denied", what);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return recdb_sql_say(db, -EBUSY, "%s: the database is locked by another writer", what);
	case SQLITE_NOMEM:
		return recdb_sql_say(db, -ENOMEM, "%s: out of memory", what);
	case SQLITE_NOTADB:
		return recdb_sql_say(db, -EBADMSG, "%s: not an SQLite database", what);
	case SQLITE_CORRUPT:
		return recdb_sql_say(db, -EBADMSG, "%s: the database is corrupt or truncated (%s)",
				 what, detail);
	case SQLITE_CANTOPEN:
		if (sys == ENOENT)
			return recdb_sql_say(db, -ENOENT, "%s: no such file", what);
		if (sys == EACCES || sys == EPERM || sys == EROFS)
			return recdb_sql_say(db, -sys, "%s: %s", what, strerror(sys));
		return recdb_sql_say(db, -EIO, "%s: cannot open (%s)", what, detail);
	case SQLITE_IOERR:
		if (sys == ENOSPC)
			return recdb_sql_say(db, -ENOSPC, "%s: database is full (disk full)", what);
		return recdb_sql_say(db, -EIO, "%s: I/O error (%s)", what, sys ? strerror(sys) : detail);
	default:
		return recdb_sql_say(db, -EIO, "%s: %s", what, detail);
	}
}

/* Runs one statement that returns no rows (or ignores them). */
int recdb_sql_exec(struct recdb *db, const char *sql, const char *what)
{
	int rc = sqlite3_exec(db->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : recdb_sql_fail(db, rc, what);
}

/* One integer from a query with no parameters; -ENODATA when no row. */
int recdb_sql_int(struct recdb *db, const char *sql, int64_t *v, const char *what)
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
	return recdb_sql_fail(db, rc, what);
}

/* A time relative to the run's origin; 0 (unknown) is NULL. */
void recdb_sql_bind_time(sqlite3_stmt *s, int col, uint64_t t, uint64_t base)
{
	if (t)
		sqlite3_bind_int64(s, col, (int64_t)(t - base));
	else
		sqlite3_bind_null(s, col);
}

uint64_t recdb_sql_col_time(sqlite3_stmt *s, int col, uint64_t base)
{
	if (sqlite3_column_type(s, col) == SQLITE_NULL)
		return 0;
	return base + (uint64_t)sqlite3_column_int64(s, col);
}

/* Bytes as a BLOB: NULL pointer is NULL, zero length an empty BLOB. */
void recdb_sql_bind_bytes(sqlite3_stmt *s, int col, const char *p, size_t len)
{
	if (!p)
		sqlite3_bind_null(s, col);
	else if (!len)
		sqlite3_bind_zeroblob(s, col, 0);
	else
		sqlite3_bind_blob64(s, col, p, len, SQLITE_STATIC);
}

void recdb_sql_bind_comm(sqlite3_stmt *s, int col, const char comm[16])
{
	sqlite3_bind_text(s, col, comm, (int)strnlen(comm, 16), SQLITE_STATIC);
}

void recdb_sql_col_comm(sqlite3_stmt *s, int col, char comm[16])
{
	const void *p = sqlite3_column_text(s, col);
	int n = sqlite3_column_bytes(s, col);

	memset(comm, 0, 16);
	if (p)
		memcpy(comm, p, n < 16 ? (size_t)n : 16);
}

/* Binds field f of the struct at base to column col. */
void recdb_sql_bind_field(sqlite3_stmt *s, int col, const struct recdb_sql_field *f,
			     const void *obj, uint64_t base)
{
	const char *p = (const char *)obj + f->off;

	switch (f->kind) {
	case RECDB_SQL_U64: {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		sqlite3_bind_int64(s, col, (int64_t)v);
		break;
	}
	case RECDB_SQL_TIME: {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		recdb_sql_bind_time(s, col, v, base);
		break;
	}
	case RECDB_SQL_U32: {
		uint32_t v;

		memcpy(&v, p, sizeof(v));
		sqlite3_bind_int64(s, col, v);
		break;
	}
	case RECDB_SQL_INT: {
		int v;

		memcpy(&v, p, sizeof(v));
		sqlite3_bind_int(s, col, v);
		break;
	}
	case RECDB_SQL_DBL: {
		double v;

		memcpy(&v, p, sizeof(v));
		sqlite3_bind_double(s, col, v);
		break;
	}
	}
}

/* Reads column col into field f of the struct at obj. */
void recdb_sql_col_field(sqlite3_stmt *s, int col, const struct recdb_sql_field *f, void *obj,
			    uint64_t base)
{
	char *p = (char *)obj + f->off;

	switch (f->kind) {
	case RECDB_SQL_U64: {
		uint64_t v = (uint64_t)sqlite3_column_int64(s, col);

		memcpy(p, &v, sizeof(v));
		break;
	}
	case RECDB_SQL_TIME: {
		uint64_t v = recdb_sql_col_time(s, col, base);

		memcpy(p, &v, sizeof(v));
		break;
	}
	case RECDB_SQL_U32: {
		uint32_t v = (uint32_t)sqlite3_column_int64(s, col);

		memcpy(p, &v, sizeof(v));
		break;
	}
	case RECDB_SQL_INT: {
		int v = sqlite3_column_int(s, col);

		memcpy(p, &v, sizeof(v));
		break;
	}
	case RECDB_SQL_DBL: {
		double v = sqlite3_column_double(s, col);

		memcpy(p, &v, sizeof(v));
		break;
	}
	}
}

/* Steps a bound insert to completion and resets it for the next row. */
int recdb_sql_step(struct recdb *db, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, what);
}

/* Reads the run's time origin; -ENOENT when there is no such run. */
int recdb_sql_run_base(struct recdb *db, int64_t run_id, uint64_t *base)
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
		return recdb_sql_say(db, -ENOENT, "no run %" PRId64 " in the recording", run_id);
	return recdb_sql_fail(db, rc, "reading the runs");
}

/* A malloc'd copy of a column's bytes, NUL-terminated; NULL for SQL NULL. */
char *recdb_sql_col_dup(sqlite3_stmt *s, int col, size_t *len)
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
