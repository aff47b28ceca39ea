/* recdb_sql: what the recording database's writer (recdb.c) and reader
 * (recdb_read.c) share: the handle, SQLite errors in a person's words, the
 * field tables of struct sample and struct store_summary, and binding and
 * reading columns (times relative to the run's origin, comm, bytes). Private
 * to recdb; the public API is recdb.h. */
#ifndef SPACETIME_RECDB_SQL_H
#define SPACETIME_RECDB_SQL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "recdb.h"

#define RECDB_SQL_MAXSTMT 16
/* The longest string or BLOB a recording may hold (SQLITE_LIMIT_LENGTH). */
#define RECDB_SQL_MAXLEN (64 << 20)

struct recdb {
	sqlite3 *db;
	int rdonly;
	/* recdb_abort(): set from another thread, read by SQLite's busy and
	 * progress handlers on the one using db */
	int abort;
	int busy; /* waiting for another connection's lock now */
	sqlite3_stmt *st[RECDB_SQL_MAXSTMT]; /* the writer's, prepared once */
	char msg[256];
	char warn[320]; /* what recdb_load left out of a run it loaded ("": nothing) */
	/* the writer's memory of its run: its base (fixed at its start), and
	 * the summary the database holds for it, so that a write sends only
	 * the summary's rows that changed */
	int64_t w_run;
	uint64_t w_base;
	int w_sum_held;
	int w_last_held; /* the summary's last.* rows are w_sum.last's */
	struct store_summary w_sum;
};

/* How a field of a summary or sample is stored. */
enum { RECDB_SQL_U64, RECDB_SQL_U32, RECDB_SQL_INT, RECDB_SQL_DBL, RECDB_SQL_TIME };

struct recdb_sql_field {
	const char *name; /* its column, or its key in run_summary */
	size_t off;
	unsigned char kind;
	int64_t max; /* the largest value a reader takes in (TIME: see recdb_rd_time) */
};

/* Bounds of what a reader takes in: no value spacetime writes comes near
 * them, and none of them overflows a sum or a time made from it. */
#define RECDB_SQL_T_MAX 1000000000000000000ll /* ns, 31 years */
#define RECDB_SQL_BASE_MAX (1ll << 62)        /* a run's CLOCK_MONOTONIC origin */
#define RECDB_SQL_KIB_MAX (1ll << 40)         /* 1 PiB */
#define RECDB_SQL_COUNT_MAX (1ll << 53)       /* faults, us of CPU, ... (exact in a double) */
#define RECDB_SQL_PID_MAX 4194304             /* the kernel's PID_MAX_LIMIT */
#define RECDB_SQL_STATUS_MAX 0xffff           /* a wait(2) status */
#define RECDB_SQL_LINE_MAX 65536              /* an output line (spacetime writes <= 4 KiB) */

/* struct sample in the order of the samples table's columns (t_ns first). */
extern const struct recdb_sql_field recdb_sql_sample_fields[];
extern const size_t recdb_sql_nsample_fields;
/* struct store_summary but its samples (peak, last) and attach_pid. */
extern const struct recdb_sql_field recdb_sql_sum_fields[];
extern const size_t recdb_sql_nsum_fields;

/* recdb_schema.c: triggers, views and untrusted schema off, defensive on
 * (before anything reads the file); 0 or the one line why not. */
int recdb_schema_harden(struct recdb *db);
/* Whether the file holds exactly spacetime's schema of the version its meta
 * names (*version): 1 when it holds nothing at all (new), 0 when it does,
 * or -errno with the one line why not. */
int recdb_schema_check(struct recdb *db, int64_t *version);
/* Creates the current schema and its meta rows (in the caller's transaction). */
int recdb_schema_create(struct recdb *db);
/* Migrates a file of an older version to the current one (in the caller's
 * transaction). */
int recdb_schema_migrate(struct recdb *db, int64_t version);

enum recdb_end recdb_sql_end_parse(const char *s);
/* Sets the one-line message and returns err (a -errno). */
int recdb_sql_say(struct recdb *db, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* SQLite's words about a file can quote it (a table's name in "malformed
 * database schema (NAME)", an index's in quick_check's): untrusted text.
 * Returns s in buf as printable ASCII by textsafe's rule ('?' for the rest:
 * the message goes to a terminal of any locale). */
const char *recdb_sql_plain(const char *s, char *buf, size_t cap);
/* Maps an SQLite result to -errno and says "what: why" (why made plain). */
int recdb_sql_fail(struct recdb *db, int rc, const char *what);
/* Runs SQL that returns no rows (or ignores them). */
int recdb_sql_exec(struct recdb *db, const char *sql, const char *what);
/* One integer from a query without parameters; -ENODATA when no row. */
int recdb_sql_int(struct recdb *db, const char *sql, int64_t *v, const char *what);
/* A time relative to base; 0 (unknown) is NULL. */
void recdb_sql_bind_time(sqlite3_stmt *s, int col, uint64_t t, uint64_t base);
/* Bytes as a BLOB: a NULL pointer is NULL, zero length an empty BLOB. */
void recdb_sql_bind_bytes(sqlite3_stmt *s, int col, const char *p, size_t len);
void recdb_sql_bind_comm(sqlite3_stmt *s, int col, const char comm[16]);
void recdb_sql_bind_field(sqlite3_stmt *s, int col, const struct recdb_sql_field *f,
			  const void *obj, uint64_t base);
/* Steps a bound insert to completion and resets it for the next row. */
int recdb_sql_step(struct recdb *db, sqlite3_stmt *s, const char *what);
/* The run's time origin; -ENOENT when there is no such run. */
int recdb_sql_run_base(struct recdb *db, int64_t run_id, uint64_t *base);


/* recdb_rd.c: a reader's checked reads of a run's rows. Each value is taken
 * in only within its bound and of its type; the first one that is not sets
 * bad and says, in db's message, which run, table and column, and why. */
struct recdb_rd {
	struct recdb *db;
	int64_t run_id;
	int bad;   /* a value broke its bound (-EBADMSG) */
	int nomem; /* a copy could not be made (-ENOMEM) */
};
void recdb_rd_init(struct recdb_rd *rd, struct recdb *db, int64_t run_id);
/* 0, or the -errno of the first failure (its message in db). */
int recdb_rd_status(const struct recdb_rd *rd);
/* An integer in [lo, hi]; NULL is 0 when null_ok. name NULL: the column's. */
int64_t recdb_rd_int(struct recdb_rd *rd, sqlite3_stmt *s, int col, int64_t lo, int64_t hi,
		     int null_ok, const char *name);
/* A time relative to the run's origin, absolute (base + value, never below
 * 0 nor past RECDB_SQL_T_MAX after base); NULL is 0 (unknown). */
uint64_t recdb_rd_time(struct recdb_rd *rd, sqlite3_stmt *s, int col, uint64_t base,
		       const char *name);
/* A BLOB or TEXT of at most max bytes (NULL: SQL NULL, or bad); points into
 * the statement's row. */
const void *recdb_rd_blob(struct recdb_rd *rd, sqlite3_stmt *s, int col, size_t max, size_t *len);
/* A malloc'd NUL-terminated copy of it (NULL for SQL NULL, bad or no memory). */
char *recdb_rd_dup(struct recdb_rd *rd, sqlite3_stmt *s, int col, size_t max, size_t *len);
/* A process name (at most 16 bytes: longer is bad). */
void recdb_rd_comm(struct recdb_rd *rd, sqlite3_stmt *s, int col, char comm[16]);
/* Field f of the struct at obj from column col (name NULL: the field's). */
void recdb_rd_field(struct recdb_rd *rd, sqlite3_stmt *s, int col, const struct recdb_sql_field *f,
		    void *obj, uint64_t base, const char *name);

/* recdb_maps.c: the peak's maps of a run replaced by rows (in the caller's
 * transaction). 0 or -errno. */
int recdb_maps_write(struct recdb *db, int64_t run_id, uint64_t base, const struct peakmaps_row *rows, size_t n);

/* recdb_read.c's row readers, shared with recdb_follow.c: each takes a row of
 * the columns its SELECT lists, through rd. */
#define RECDB_SQL_SAMPLE_COLS                                                             \
	"t_ns, pss_kib, pss_anon_kib, pss_file_kib, pss_shmem_kib, pss_est_kib, pss_hi_kib," \
	" rss_kib, minflt, majflt, utime_us, stime_us, live_procs, live_threads,"          \
	" total_procs, total_threads, valid, swap_kib, thp_kib, locked_kib, psi_cpu_pm,"  \
	" psi_mem_pm, psi_mem_full_pm, psi_io_pm, mem_left_kib"
/* Prepares sql with ?1 bound to the run id; 0 or -errno. */
int recdb_read_prep(struct recdb *db, const char *sql, int64_t run_id, sqlite3_stmt **s);
void recdb_read_sample(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct sample *smp);
/* t_ns, type, pid, ppid, arg */
void recdb_read_event(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store_event *e);
/* A per-process sample row (proc_id, t_ns, pss_kib, rss_kib, cpu_us, minflt,
 * majflt): a NULL figure is one not known. */
void recdb_read_psample(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store_proc_sample *ps);
/* An output row (t_ns, line) into the store. Returns 0, -EBADMSG (rd says
 * which value) or -ENOMEM. */
int recdb_read_line(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store *st);
/* t_ns, pid, ppid, comm, argv (interned into st) */
void recdb_read_exec(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store *st,
		     struct store_exec *x);
/* id, pid, ppid, start_ns, end_ns, comm, argv, exit_status, threads, nexec,
 * pss_kib, rss_kib, peak_pss_kib, peak_pss_t_ns, peak_rss_kib, pss_age_ns,
 * utime_us, stime_us, minflt, majflt, valid, wait_cpu_us, wait_io_us */
void recdb_read_proc(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store *st,
		     struct proc_rec *r);
/* The run's summary into st (the written one, or what its samples tell). */
int recdb_read_summary(struct recdb *db, int64_t run_id, uint64_t base, struct store *st);

#endif
