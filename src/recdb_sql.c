/* recdb_sql: what the recording database's writer and reader share. */
#include "recdb_sql.h"

#include "textsafe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RF(s, f, k, max) { #f, offsetof(struct s, f), RECDB_SQL_##k, max }
#define SMP(f, k, max) RF(sample, f, k, max)
#define KIB RECDB_SQL_KIB_MAX
#define CNT RECDB_SQL_COUNT_MAX
#define U32M ((int64_t)UINT32_MAX)
/* struct sample in the order of the samples table's columns (t_ns first),
 * each with the largest value a reader takes in. */
const struct recdb_sql_field recdb_sql_sample_fields[] = {
	SMP(t_ns, TIME, 0), SMP(pss_kib, U64, KIB), SMP(pss_anon_kib, U64, KIB),
	SMP(pss_file_kib, U64, KIB), SMP(pss_shmem_kib, U64, KIB), SMP(pss_est_kib, U64, KIB),
	SMP(pss_hi_kib, U64, KIB), SMP(rss_kib, U64, KIB), SMP(minflt, U64, CNT),
	SMP(majflt, U64, CNT), SMP(utime_us, U64, CNT), SMP(stime_us, U64, CNT),
	SMP(live_procs, U32, U32M), SMP(live_threads, U32, U32M), SMP(total_procs, U32, U32M),
	SMP(total_threads, U32, U32M),
	SMP(valid, U32,
	    SAMPLE_PSS | SAMPLE_RSS | SAMPLE_FAULTS | SAMPLE_CPU | SAMPLE_COUNTS | SAMPLE_KINDS | SAMPLE_PSI |
		    SAMPLE_MEMLEFT),
	SMP(swap_kib, U64, KIB), SMP(thp_kib, U64, KIB), SMP(locked_kib, U64, KIB),
	SMP(psi_cpu_pm, U32, 1000), SMP(psi_mem_pm, U32, 1000), SMP(psi_mem_full_pm, U32, 1000),
	SMP(psi_io_pm, U32, 1000), SMP(mem_left_kib, U64, KIB),
};
const size_t recdb_sql_nsample_fields =
	sizeof(recdb_sql_sample_fields) / sizeof(recdb_sql_sample_fields[0]);

#define SUM(f, k, max) RF(store_summary, f, k, max)
#define NS RECDB_SQL_T_MAX
/* struct store_summary but its samples (peak, last) and attach_pid. */
const struct recdb_sql_field recdb_sql_sum_fields[] = {
	SUM(start_ns, TIME, 0), SUM(end_ns, TIME, 0), SUM(root_end_ns, TIME, 0),
	SUM(exited, INT, 1), SUM(orphans_reaped, U64, CNT), SUM(wait_status, INT, 0xffff),
	SUM(ru_utime_us, U64, CNT), SUM(ru_stime_us, U64, CNT), SUM(ru_maxrss_kib, U64, KIB),
	SUM(max_tree_rss_kib, U64, KIB), SUM(max_swap_kib, U64, KIB), SUM(max_thp_kib, U64, KIB),
	SUM(max_locked_kib, U64, KIB), SUM(max_swap_t_ns, TIME, 0), SUM(kinds_known, INT, 1),
	SUM(psi, INT, 2), SUM(psi_cpu_us, U64, CNT), SUM(psi_mem_us, U64, CNT), SUM(psi_mem_full_us, U64, CNT),
	SUM(psi_io_us, U64, CNT), SUM(psi_mem_max_pm, U32, 1000),
	SUM(mem_of_kib, U64, KIB), SUM(mem_min_left_kib, U64, KIB), SUM(mem_min_left_t_ns, TIME, 0),
	SUM(mem_by_cgroup, INT, 1), SUM(mem_low, INT, 1), SUM(mem_low_first_ns, TIME, 0),
	SUM(mem_low_ticks, U64, CNT), SUM(mem_eta_ms, U64, CNT), SUM(oom_kills, U64, CNT),
	SUM(mem_grow_pid[0], INT, RECDB_SQL_PID_MAX), SUM(mem_grow_pid[1], INT, RECDB_SQL_PID_MAX),
	SUM(mem_grow_pid[2], INT, RECDB_SQL_PID_MAX), SUM(mem_grow_kib[0], U64, KIB), SUM(mem_grow_kib[1], U64, KIB),
	SUM(mem_grow_kib[2], U64, KIB),
	SUM(delayacct, INT, 2), SUM(delay_cpu_ns, U64, CNT), SUM(delay_blkio_ns, U64, CNT),
	SUM(delay_swapin_ns, U64, CNT), SUM(delay_reclaim_ns, U64, CNT), SUM(delay_thrashing_ns, U64, CNT),
	SUM(oom_t_ns[0], TIME, 0), SUM(oom_t_ns[1], TIME, 0), SUM(oom_t_ns[2], TIME, 0), SUM(oom_t_ns[3], TIME, 0),
	SUM(ru_minflt, U64, CNT), SUM(ru_majflt, U64, CNT),
	SUM(ru_nvcsw, U64, CNT), SUM(ru_nivcsw, U64, CNT), SUM(ru_inblock, U64, CNT),
	SUM(ru_oublock, U64, CNT), SUM(peak_measured, INT, 1), SUM(peak_floor, INT, 1),
	SUM(peak_unconfirmed_kib, U64, KIB), SUM(pss_est_share, DBL, 1),
	SUM(pss_sweeps, U64, CNT), SUM(pss_sweep_reads, U64, CNT), SUM(pss_sweep_skips, U64, CNT),
	SUM(pss_sweeps_unstable, U64, CNT), SUM(fast_ticks, U64, CNT), SUM(exit_ticks, U64, CNT), SUM(exit_samples, U64, CNT), SUM(lost_events, U64, CNT),
	SUM(rescans, U64, CNT), SUM(total_execs, U32, U32M), SUM(mode, U32, STORE_MODE_POLL),
	SUM(pss_reads, U64, CNT), SUM(pss_cpu_ns, U64, NS), SUM(budget_ns, U64, NS),
	SUM(pss_max_age_ns, U64, NS), SUM(pss_mean_age_ns, U64, NS),
	SUM(collector_cpu_ns, U64, NS), SUM(self_cpu_ns, U64, NS), SUM(interval_ms, U64, 3600000),
	SUM(collector_wakeups, U64, CNT), SUM(nl_events, U64, CNT), SUM(taskstats, INT, 1),
	SUM(ts_records, U64, CNT), SUM(ts_lost, U64, CNT), SUM(ts_unfit, U64, CNT),
	SUM(attached, INT, 1), SUM(detached, INT, 1), SUM(attach_n, U32, STORE_ATTACH_MAX),
	SUM(attach_prior_cpu_us, U64, CNT), SUM(peak_bound_kib, U64, KIB),
	SUM(peak_bound_unknown, INT, 1), SUM(peak_exit_pid, INT, RECDB_SQL_PID_MAX),
	SUM(peak_exit_tops, U32, U32M), SUM(rss_traced, INT, 1), SUM(peak_traced, INT, 1),
	SUM(rss_records, U64, CNT), SUM(rss_lost, U64, CNT), SUM(rss_intervals, U64, CNT),
	SUM(rss_complete, U64, CNT), SUM(rss_conflicts, U64, CNT), SUM(rss_reads, U64, CNT),
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
	case SQLITE_INTERRUPT:
		return recdb_sql_say(db, -ECANCELED, "%s: stopped before it was done", what);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return recdb_sql_say(db, -EBUSY, "%s: the database is locked by another writer", what);
	case SQLITE_NOMEM:
		/* SQLite says so too of some damaged pages */
		return recdb_sql_say(db, -ENOMEM, "%s: out of memory (or a damaged recording)", what);
	case SQLITE_NOTADB:
		return recdb_sql_say(db, -EBADMSG, "%s: not an SQLite database", what);
	case SQLITE_CORRUPT:
		return recdb_sql_say(db, -EBADMSG, "%s: the database is corrupt or truncated (%s)",
				 what, detail);
	case SQLITE_CANTOPEN:
		if (rc == SQLITE_CANTOPEN_SYMLINK)
			return recdb_sql_say(db, -ELOOP, "%s: its path holds a symbolic link, which spacetime "
					     "does not follow to write (give the file's own path)", what);
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
		int64_t v = sqlite3_column_int64(s, 0);
		int ok = sqlite3_column_type(s, 0) == SQLITE_INTEGER && v >= 0 && v <= RECDB_SQL_BASE_MAX;

		sqlite3_finalize(s);
		*base = ok ? (uint64_t)v : 0;
		return ok ? 0
			  : recdb_sql_say(db, -EBADMSG,
					  "run %" PRId64 ": runs.base_ns is out of bounds (a forged or "
					  "damaged recording)", run_id);
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return recdb_sql_say(db, -ENOENT, "no run %" PRId64 " in the recording", run_id);
	return recdb_sql_fail(db, rc, "reading the runs");
}
