/* recdb_maps.c: the peak's memory maps in a recording (the peak_maps table):
 * written in place of a run's by the writer, read back bounded like every
 * value of a file from anywhere. */
#include "recdb_sql.h"

#include "peakmaps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The figure columns, in the order of enum smaps_field. */
#define RECDB_MAPS_FIGS                                                                        \
	"size_kib, rss_kib, pss_kib, shared_clean_kib, shared_dirty_kib, private_clean_kib,"   \
	" private_dirty_kib, anon_kib, swap_kib, swap_pss_kib, anon_huge_kib, file_pmd_kib,"    \
	" shmem_pmd_kib, locked_kib"

int recdb_maps_write(struct recdb *db, int64_t run_id, uint64_t base, const struct peakmaps_row *rows, size_t n)
{
	sqlite3_stmt *s = NULL;
	char sql[512];
	int rc;

	snprintf(sql, sizeof(sql), "DELETE FROM peak_maps WHERE run_id = %lld", (long long)run_id);
	if ((rc = recdb_sql_exec(db, sql, "writing the peak's maps")) < 0)
		return rc;
	rc = sqlite3_prepare_v2(db->db,
				"INSERT INTO peak_maps (run_id, proc_id, t_ns, kind, name, deleted, nmaps, " RECDB_MAPS_FIGS
				") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
				" ?17, ?18, ?19, ?20, ?21)",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return recdb_sql_fail(db, rc, "writing the peak's maps");
	rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct peakmaps_row *r = &rows[i];
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_int64(s, 2, (int64_t)r->id);
		sqlite3_bind_int64(s, 3, r->t_ns > base ? (int64_t)(r->t_ns - base) : 0);
		sqlite3_bind_int64(s, 4, r->g.kind);
		sqlite3_bind_blob(s, 5, r->g.name, (int)strnlen(r->g.name, sizeof(r->g.name)), SQLITE_STATIC);
		sqlite3_bind_int64(s, 6, r->g.deleted);
		sqlite3_bind_int64(s, 7, r->g.nmaps);
		for (int f = 0; f < SMAPS_FIELDS; f++)
			sqlite3_bind_int64(s, 8 + f, (int64_t)r->g.kib[f]);
		rc = recdb_sql_step(db, s, "writing the peak's maps");
	}
	sqlite3_finalize(s);
	return rc;
}

/* One row into r: each value within its bounds (rd says which is not). */
static void recdb_maps_row(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct peakmaps_row *r)
{
	size_t len = 0;

	memset(r, 0, sizeof(*r));
	r->id = (uint64_t)recdb_rd_int(rd, s, 0, 0, INT64_MAX, 0, "peak_maps.proc_id");
	r->t_ns = recdb_rd_time(rd, s, 1, base, "peak_maps.t_ns");
	r->g.kind = (enum smaps_kind)recdb_rd_int(rd, s, 2, 0, SMAPS_KINDS - 1, 0, "peak_maps.kind");
	const char *name = recdb_rd_blob(rd, s, 3, SMAPS_NAME_MAX - 1, &len);
	if (name)
		memcpy(r->g.name, name, len);
	r->g.deleted = (int)recdb_rd_int(rd, s, 4, 0, 1, 0, "peak_maps.deleted");
	r->g.nmaps = (uint32_t)recdb_rd_int(rd, s, 5, 0, UINT32_MAX, 0, "peak_maps.nmaps");
	for (int f = 0; f < SMAPS_FIELDS; f++)
		r->g.kib[f] = (uint64_t)recdb_rd_int(rd, s, 6 + f, 0, RECDB_SQL_KIB_MAX, 0, "peak_maps figures");
}

ssize_t recdb_peak_maps(struct recdb *db, int64_t run_id, struct peakmaps_row **out)
{
	struct recdb_rd rd;
	sqlite3_stmt *s;
	uint64_t base;
	size_t n = 0, cap = 0;
	int rc;

	*out = NULL;
	if ((rc = recdb_sql_run_base(db, run_id, &base)) < 0)
		return rc;
	rc = sqlite3_prepare_v2(db->db,
				"SELECT proc_id, t_ns, kind, name, deleted, nmaps, " RECDB_MAPS_FIGS
				" FROM peak_maps WHERE run_id = ?1 ORDER BY rowid",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return recdb_sql_fail(db, rc, "reading the peak's maps");
	sqlite3_bind_int64(s, 1, run_id);
	recdb_rd_init(&rd, db, run_id);
	while (!rd.bad && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct peakmaps_row *g = realloc(*out, ncap * sizeof(*g));
			if (!g) {
				rc = -ENOMEM;
				break;
			}
			*out = g;
			cap = ncap;
		}
		recdb_maps_row(&rd, s, base, &(*out)[n++]);
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE && !rd.bad)
		return (ssize_t)n;
	free(*out);
	*out = NULL;
	if (rd.bad)
		return -EBADMSG;
	return rc == -ENOMEM ? -ENOMEM : recdb_sql_fail(db, rc, "reading the peak's maps");
}
