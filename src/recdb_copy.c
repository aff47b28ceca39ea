/* recdb_copy: one recorded run written to a new recording of its own (spacetime
 * export ID --format db), the file a CI job keeps as an artifact and compare
 * reads back. The rows are copied as they are, table by table, from one read
 * of the source (a run still being recorded is copied as of that read); the
 * new file is made by recdb_open like any recording (private, the current
 * schema), so its reader checks it exactly as it checks the one it came
 * from. */
#include "recdb_sql.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The tables of a run, each with the column naming the run. */
static const struct {
	const char *table, *run_col;
} recdb_copy_tables[] = {
	{"runs", "id"},		{"run_summary", "run_id"}, {"samples", "run_id"}, {"processes", "run_id"},
	{"proc_samples", "run_id"}, {"events", "run_id"}, {"execs", "run_id"},	 {"output", "run_id"},
	{"peak_maps", "run_id"},
};

/* Copies table t's rows of run_id from src to dst, the columns named in
 * blank (NULL-terminated) as NULL. */
static int recdb_copy_table(struct recdb *src, struct recdb *dst, size_t t, int64_t run_id,
			    const char *const *blank)
{
	char sql[256];
	sqlite3_stmt *rd = NULL, *wr = NULL;
	int rc, ncol;

	snprintf(sql, sizeof(sql), "SELECT * FROM %s WHERE %s = ?1", recdb_copy_tables[t].table,
		 recdb_copy_tables[t].run_col);
	if ((rc = recdb_read_prep(src, sql, run_id, &rd)) < 0)
		return rc;
	ncol = sqlite3_column_count(rd);
	size_t k = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (", recdb_copy_tables[t].table);
	for (int c = 0; c < ncol && k + 4 < sizeof(sql); c++)
		k += (size_t)snprintf(sql + k, sizeof(sql) - k, "%s?", c ? "," : "");
	snprintf(sql + k, sizeof(sql) - k, ")");
	if ((rc = sqlite3_prepare_v2(dst->db, sql, -1, &wr, NULL)) != SQLITE_OK) {
		rc = recdb_sql_fail(dst, rc, "writing the copy");
		goto out;
	}
	while ((rc = sqlite3_step(rd)) == SQLITE_ROW) {
		for (int c = 0; c < ncol; c++) {
			int nul = 0;
			for (size_t b = 0; blank && blank[b]; b++)
				nul |= !strcmp(sqlite3_column_name(rd, c), blank[b]);
			if (nul)
				sqlite3_bind_null(wr, c + 1);
			else
				sqlite3_bind_value(wr, c + 1, sqlite3_column_value(rd, c));
		}
		if ((rc = sqlite3_step(wr)) != SQLITE_DONE) {
			rc = recdb_sql_fail(dst, rc, "writing the copy");
			goto out;
		}
		sqlite3_reset(wr);
	}
	rc = rc == SQLITE_DONE ? 0 : recdb_sql_fail(src, rc, "reading the recording");
out:
	sqlite3_finalize(rd);
	sqlite3_finalize(wr);
	return rc;
}

/* Every table of the run, in one transaction of each side. */
static int recdb_copy_all(struct recdb *src, struct recdb *dst, int64_t run_id, unsigned flags)
{
	static const char *const no_output[] = {"cwd", NULL};
	int rc;

	if ((rc = sqlite3_exec(src->db, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK)
		return recdb_sql_fail(src, rc, "reading the recording");
	if ((rc = sqlite3_exec(dst->db, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK) {
		sqlite3_exec(src->db, "ROLLBACK", NULL, NULL, NULL);
		return recdb_sql_fail(dst, rc, "writing the copy");
	}
	rc = 0;
	for (size_t t = 0; rc == 0 && t < sizeof(recdb_copy_tables) / sizeof(recdb_copy_tables[0]); t++) {
		int skip = (flags & RECDB_COPY_NO_OUTPUT) && !strcmp(recdb_copy_tables[t].table, "output");
		if (!skip)
			rc = recdb_copy_table(src, dst, t, run_id,
					      (flags & RECDB_COPY_NO_OUTPUT) && t == 0 ? no_output : NULL);
	}
	if (rc == 0 && (rc = sqlite3_exec(dst->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		rc = recdb_sql_fail(dst, rc, "writing the copy");
	if (rc < 0)
		sqlite3_exec(dst->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(src->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Removes path and its -wal and -shm (the files this call made). */
static void recdb_copy_unlink(const char *path)
{
	char side[4096];

	unlink(path);
	for (int i = 0; i < 2; i++)
		if (snprintf(side, sizeof(side), "%s-%s", path, i ? "shm" : "wal") < (int)sizeof(side))
			unlink(side);
}

/* Makes path, new (nothing of that name, nor its -wal or -shm). Returns 0,
 * or -errno with one line in msg. */
static int recdb_copy_create(const char *path, char *msg, size_t cap)
{
	char side[4096];
	struct stat sb;

	for (int i = 0; i < 2; i++) {
		if (snprintf(side, sizeof(side), "%s-%s", path, i ? "shm" : "wal") >= (int)sizeof(side)) {
			snprintf(msg, cap, "%s: its path is too long", path);
			return -ENAMETOOLONG;
		}
		if (lstat(side, &sb) == 0) {
			snprintf(msg, cap, "%s exists: a run is written only to a new file (remove it, or name another)", side);
			return -EEXIST;
		}
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		if (e == EEXIST)
			snprintf(msg, cap, "%s exists: a run is written only to a new file (remove it, or name another)", path);
		else
			snprintf(msg, cap, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	close(fd);
	return 0;
}

int recdb_copy_run(struct recdb *src, int64_t run_id, const char *path, unsigned flags, char *msg, size_t cap)
{
	struct recdb *dst = NULL;
	uint64_t base;
	int rc;

	msg[0] = 0;
	if ((rc = recdb_sql_run_base(src, run_id, &base)) < 0) {
		snprintf(msg, cap, "%s", src->msg);
		return rc;
	}
	/* the file made here, so that whatever fails after, it alone is removed */
	if ((rc = recdb_copy_create(path, msg, cap)) < 0)
		return rc;
	if ((rc = recdb_open(path, 0, &dst, msg, cap)) < 0) {
		recdb_copy_unlink(path);
		return rc;
	}
	if ((rc = recdb_copy_all(src, dst, run_id, flags)) < 0)
		snprintf(msg, cap, "%s: %s", path, dst->msg[0] ? dst->msg : src->msg);
	/* one file, not three: its readers then leave no -wal and -shm beside
	 * it (a writer that opens it later turns WAL back on) */
	else if ((rc = recdb_sql_exec(dst, "PRAGMA journal_mode = DELETE", "closing the copy")) < 0)
		snprintf(msg, cap, "%s: %s", path, dst->msg);
	recdb_close(dst);
	if (rc < 0)
		recdb_copy_unlink(path); /* nothing of it is left half written */
	return rc;
}
