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

struct recdb {
	sqlite3 *db;
	int rdonly;
	sqlite3_stmt *st[RECDB_SQL_MAXSTMT]; /* the writer's, prepared once */
	char msg[256];
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
};

/* struct sample in the order of the samples table's columns (t_ns first). */
extern const struct recdb_sql_field recdb_sql_sample_fields[];
extern const size_t recdb_sql_nsample_fields;
/* struct store_summary but its samples (peak, last) and attach_pid. */
extern const struct recdb_sql_field recdb_sql_sum_fields[];
extern const size_t recdb_sql_nsum_fields;

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
uint64_t recdb_sql_col_time(sqlite3_stmt *s, int col, uint64_t base);
/* Bytes as a BLOB: a NULL pointer is NULL, zero length an empty BLOB. */
void recdb_sql_bind_bytes(sqlite3_stmt *s, int col, const char *p, size_t len);
void recdb_sql_bind_comm(sqlite3_stmt *s, int col, const char comm[16]);
void recdb_sql_col_comm(sqlite3_stmt *s, int col, char comm[16]);
void recdb_sql_bind_field(sqlite3_stmt *s, int col, const struct recdb_sql_field *f,
			  const void *obj, uint64_t base);
void recdb_sql_col_field(sqlite3_stmt *s, int col, const struct recdb_sql_field *f, void *obj,
			 uint64_t base);
/* Steps a bound insert to completion and resets it for the next row. */
int recdb_sql_step(struct recdb *db, sqlite3_stmt *s, const char *what);
/* The run's time origin; -ENOENT when there is no such run. */
int recdb_sql_run_base(struct recdb *db, int64_t run_id, uint64_t *base);
/* A malloc'd NUL-terminated copy of a column's bytes; NULL for SQL NULL. */
char *recdb_sql_col_dup(sqlite3_stmt *s, int col, size_t *len);

#endif
