/* recdb_rd: a reader's checked reads of a recording's rows (recdb_sql.h).
 *
 * A recording is data from anywhere. Every value a reader takes in goes
 * through here: of the column's type, within the bound of what it fills
 * (a count, an index, a length, a time), or the reader stops and says, in
 * one line, which run and which field broke which bound. */
#include "recdb_sql.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void recdb_rd_init(struct recdb_rd *rd, struct recdb *db, int64_t run_id)
{
	memset(rd, 0, sizeof(*rd));
	rd->db = db;
	rd->run_id = run_id;
}

int recdb_rd_status(const struct recdb_rd *rd)
{
	return rd->bad ? -EBADMSG : rd->nomem ? -ENOMEM : 0;
}

/* The column's table.column as a reader names it. */
static const char *recdb_rd_name(sqlite3_stmt *s, int col, const char *name, char *buf, size_t cap)
{
	const char *t = sqlite3_column_table_name(s, col), *c = sqlite3_column_origin_name(s, col);

	if (name)
		snprintf(buf, cap, "%s", name);
	else if (t && c)
		snprintf(buf, cap, "%s.%s", t, c);
	else
		snprintf(buf, cap, "%s", sqlite3_column_name(s, col) ? sqlite3_column_name(s, col) : "?");
	return buf;
}

/* Notes the first bad value: what, and its run. */
static void recdb_rd_bad(struct recdb_rd *rd, sqlite3_stmt *s, int col, const char *name,
			 const char *why)
{
	char field[96];

	if (rd->bad)
		return;
	rd->bad = 1;
	recdb_rd_name(s, col, name, field, sizeof(field));
	if (rd->run_id)
		recdb_sql_say(rd->db, -EBADMSG, "run %" PRId64 ": %s %s (a forged or damaged recording)",
			      rd->run_id, field, why);
	else
		recdb_sql_say(rd->db, -EBADMSG, "%s %s (a forged or damaged recording)", field, why);
}

static const char *recdb_rd_type(int type)
{
	switch (type) {
	case SQLITE_INTEGER: return "an integer";
	case SQLITE_FLOAT: return "a real";
	case SQLITE_TEXT: return "text";
	case SQLITE_BLOB: return "a blob";
	default: return "NULL";
	}
}

int64_t recdb_rd_int(struct recdb_rd *rd, sqlite3_stmt *s, int col, int64_t lo, int64_t hi,
		     int null_ok, const char *name)
{
	int type = sqlite3_column_type(s, col);
	char why[128];

	if (type == SQLITE_NULL && null_ok)
		return 0;
	if (type != SQLITE_INTEGER) {
		snprintf(why, sizeof(why), "is %s, not an integer", recdb_rd_type(type));
		recdb_rd_bad(rd, s, col, name, why);
		return 0;
	}
	int64_t v = sqlite3_column_int64(s, col);
	if (v < lo || v > hi) {
		snprintf(why, sizeof(why), "= %" PRId64 " is out of bounds (%" PRId64 "..%" PRId64 ")", v,
			 lo, hi);
		recdb_rd_bad(rd, s, col, name, why);
		return 0;
	}
	return v;
}

uint64_t recdb_rd_time(struct recdb_rd *rd, sqlite3_stmt *s, int col, uint64_t base,
		       const char *name)
{
	/* base is at most RECDB_SQL_BASE_MAX (recdb_sql_run_base): the sum
	 * stays far below 2^63 */
	int64_t v = recdb_rd_int(rd, s, col, -(int64_t)base, RECDB_SQL_T_MAX, 1, name);

	if (sqlite3_column_type(s, col) == SQLITE_NULL)
		return 0;
	return base + (uint64_t)v;
}

const void *recdb_rd_blob(struct recdb_rd *rd, sqlite3_stmt *s, int col, size_t max, size_t *len)
{
	int type = sqlite3_column_type(s, col);
	char why[128];

	if (len)
		*len = 0;
	if (type == SQLITE_NULL)
		return NULL;
	if (type != SQLITE_BLOB && type != SQLITE_TEXT) {
		snprintf(why, sizeof(why), "is %s, not text", recdb_rd_type(type));
		recdb_rd_bad(rd, s, col, NULL, why);
		return NULL;
	}
	const void *p = type == SQLITE_BLOB ? sqlite3_column_blob(s, col) : sqlite3_column_text(s, col);
	size_t n = (size_t)sqlite3_column_bytes(s, col);
	if (n > max) {
		snprintf(why, sizeof(why), "is %zu bytes long (at most %zu)", n, max);
		recdb_rd_bad(rd, s, col, NULL, why);
		return NULL;
	}
	if (!p && n == 0)
		p = ""; /* an empty BLOB */
	if (!p) {
		rd->nomem = 1;
		recdb_sql_say(rd->db, -ENOMEM, "reading the recording: out of memory");
		return NULL;
	}
	if (len)
		*len = n;
	return p;
}

char *recdb_rd_dup(struct recdb_rd *rd, sqlite3_stmt *s, int col, size_t max, size_t *len)
{
	size_t n = 0;
	const void *p = recdb_rd_blob(rd, s, col, max, &n);
	char *d;

	if (len)
		*len = 0;
	if (!p)
		return NULL;
	d = malloc(n + 1);
	if (!d) {
		rd->nomem = 1;
		recdb_sql_say(rd->db, -ENOMEM, "reading the recording: out of memory");
		return NULL;
	}
	memcpy(d, p, n);
	d[n] = '\0';
	if (len)
		*len = n;
	return d;
}

void recdb_rd_comm(struct recdb_rd *rd, sqlite3_stmt *s, int col, char comm[16])
{
	size_t n = 0;
	const void *p = recdb_rd_blob(rd, s, col, 16, &n);

	memset(comm, 0, 16);
	if (p)
		memcpy(comm, p, n);
}

void recdb_rd_field(struct recdb_rd *rd, sqlite3_stmt *s, int col, const struct recdb_sql_field *f,
		    void *obj, uint64_t base, const char *name)
{
	char *p = (char *)obj + f->off;

	switch (f->kind) {
	case RECDB_SQL_U64: {
		uint64_t v = (uint64_t)recdb_rd_int(rd, s, col, 0, f->max, 0, name);
		memcpy(p, &v, sizeof(v));
		break;
	}
	case RECDB_SQL_TIME: {
		uint64_t v = recdb_rd_time(rd, s, col, base, name);
		memcpy(p, &v, sizeof(v));
		break;
	}
	case RECDB_SQL_U32: {
		uint32_t v = (uint32_t)recdb_rd_int(rd, s, col, 0, f->max, 0, name);
		memcpy(p, &v, sizeof(v));
		break;
	}
	case RECDB_SQL_INT: {
		int v = (int)recdb_rd_int(rd, s, col, 0, f->max, 0, name);
		memcpy(p, &v, sizeof(v));
		break;
	}
	case RECDB_SQL_DBL: {
		int type = sqlite3_column_type(s, col);
		double v = sqlite3_column_double(s, col);
		if ((type != SQLITE_FLOAT && type != SQLITE_INTEGER) || !isfinite(v) || v < 0 ||
		    v > (double)f->max) {
			recdb_rd_bad(rd, s, col, name, "is not a number within its bounds");
			v = 0;
		}
		memcpy(p, &v, sizeof(v));
		break;
	}
	}
}
