/* Unit tests for runs: a recording's runs listed for the front ends, named
 * ("last", an id, anything else refused), and opened as a run whose store
 * holds what was written; a damaged row is told, not opened. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fixture.h"
#include "recdb.h"
#include "run.h"
#include "runs.h"
#include "store.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define BASE (1000 * SEC)

static char dir[64], path[128];

static int setup_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_runs.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/runs.db", dir);
	return 0;
}

static int teardown_dir(void **state)
{
	(void)state;
	unlink(path);
	char p[160];
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
	rmdir(dir);
	return 0;
}

/* A run of `argv` with n samples, PSS 100 * (i + 1) KiB, ended with status. */
static void write_run(struct recdb *db, const char *argv, size_t argv_len, size_t n, int status)
{
	struct recdb_run_info info = {.start_wall_ns = 1700000000 * SEC, .base_ns = BASE, .argv = argv,
				      .argv_len = argv_len, .cwd = "/src", .host = "box"};
	struct sample smp[16];
	struct store_summary sum;
	int64_t id;

	memset(&sum, 0, sizeof(sum));
	for (size_t i = 0; i < n; i++) {
		memset(&smp[i], 0, sizeof(smp[i]));
		smp[i].t_ns = BASE + i * 100 * MS;
		smp[i].pss_kib = smp[i].pss_anon_kib = 100 * (i + 1);
		smp[i].valid = SAMPLE_PSS;
		if (smp[i].pss_kib > sum.peak.pss_kib)
			sum.peak = smp[i];
	}
	sum.start_ns = BASE;
	sum.end_ns = BASE + n * 100 * MS;
	sum.last = smp[n - 1];
	sum.exited = 1;
	sum.wait_status = status;
	struct recdb_batch b = {.samples = smp, .nsamples = n, .summary = &sum, .final = 1};
	assert_int_equal(recdb_run_begin(db, &info, &id), 0);
	assert_int_equal(recdb_write(db, id, &b), 0);
	assert_int_equal(recdb_run_finish(db, id, &sum, RECDB_END_EXITED, 0, NULL), 0);
}

static void raw_sql(const char *sql)
{
	sqlite3 *s;

	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
}

static void test_list_resolve_take(void **state)
{
	char msg[256];
	struct recdb *db;
	struct runs *rs;
	struct runs_row *rows, row;
	struct run *run;
	int64_t id;

	(void)state;
	assert_int_equal(recdb_open(path, 0, &db, msg, sizeof(msg)), 0);
	write_run(db, "make\0-j2", 8, 5, 0);
	write_run(db, "cc\0x.c", 6, 8, 3 << 8);
	recdb_close(db);

	assert_int_equal(runs_open(path, &rs, msg, sizeof(msg)), 0);
	assert_int_equal(runs_list(rs, &rows), 2);
	assert_int_equal(rows[0].id, 1);
	assert_int_equal(rows[0].argv_len, 8);
	assert_memory_equal(rows[0].argv, "make\0-j2", 8);
	assert_string_equal(rows[0].host, "box");
	assert_int_equal(rows[0].peak_pss_kib, 500);
	assert_false(rows[0].unfinished);
	assert_string_equal(rows[1].end, "exited");
	assert_true(rows[1].exit_known);
	assert_int_equal(WEXITSTATUS(rows[1].exit_status), 3);
	assert_null(rows[1].damage);
	runs_rows_free(rows, 2);

	assert_int_equal(runs_resolve(rs, "last", &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(runs_resolve(rs, "1", &id), 0);
	assert_int_equal(id, 1);
	assert_int_equal(runs_resolve(rs, "7", &id), -ENOENT);
	assert_int_equal(runs_resolve(rs, "x7", &id), -EINVAL);

	/* run 2 opened: its store holds its samples, its peak; the row comes along */
	assert_int_equal(runs_take(&rs, 2, &run, &row, msg, sizeof(msg)), 0);
	assert_string_equal(msg, ""); /* nothing left out */
	assert_null(rs);
	assert_non_null(run);
	assert_int_equal(row.id, 2);
	assert_memory_equal(row.argv, "cc\0x.c", 6);
	struct store_summary sum;
	store_summary_get(run_store(run), &sum);
	assert_int_equal(sum.peak.pss_kib, 800);
	assert_int_equal(run_source(run), RUN_RECORDED);
	assert_false(run_following(run));
	uint64_t cur = 0;
	struct sample got[16];
	assert_int_equal(store_samples(run_store(run), &cur, got, 16, NULL), 8);
	runs_row_free(&row);
	run_free(run);

	/* no such run: said, and the recording closed all the same */
	assert_int_equal(runs_open(path, &rs, msg, sizeof(msg)), 0);
	assert_int_equal(runs_take(&rs, 9, &run, &row, msg, sizeof(msg)), -ENOENT);
	assert_null(rs);
	assert_null(run);
	assert_string_equal(msg, "no such run");

	/* a damaged row: its damage is why, nothing opened */
	raw_sql("UPDATE runs SET wall_ns = -5 WHERE id = 1");
	assert_int_equal(runs_open(path, &rs, msg, sizeof(msg)), 0);
	assert_int_equal(runs_list(rs, &rows), 2);
	assert_non_null(rows[0].damage);
	assert_null(rows[0].argv);
	runs_rows_free(rows, 2);
	assert_int_equal(runs_take(&rs, 1, &run, &row, msg, sizeof(msg)), -EBADMSG);
	assert_null(run);
	assert_non_null(strstr(msg, "runs.wall_ns = -5"));
}

/* Not a recording: one line, no object. */
static void test_not_a_recording(void **state)
{
	char msg[256], p[160];
	struct runs *rs = (struct runs *)1;

	(void)state;
	snprintf(p, sizeof(p), "%s/junk", dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("this is not an SQLite database, not even close to one\n", f);
	fclose(f);
	assert_true(runs_open(p, &rs, msg, sizeof(msg)) < 0);
	assert_null(rs);
	assert_true(strlen(msg) > 0);
	unlink(p);
}

/* An older spacetime's recording (schema 1), which this user may write: read
 * after it is brought to this version, its runs all there. */
static void test_older_migrated(void **state)
{
	char msg[256], p[160];
	size_t len;
	char *v1 = fixture_load("recording_v1.db", &len);
	struct runs *rs;
	struct runs_row *rows;

	(void)state;
	snprintf(p, sizeof(p), "%s/v1.db", dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(v1, 1, len, f), len);
	fclose(f);
	free(v1);
	assert_int_equal(runs_open(p, &rs, msg, sizeof(msg)), 0);
	ssize_t n = runs_list(rs, &rows);
	assert_int_equal(n, 3);
	runs_rows_free(rows, (size_t)n);
	runs_close(rs);
	/* the file is at this version now */
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), RECDB_SCHEMA_VERSION);
	sqlite3_finalize(st);
	sqlite3_close(db);
	for (const char *ext = ""; ext; ext = !*ext ? "-wal" : !strcmp(ext, "-wal") ? "-shm" : NULL) {
		char q[192];
		snprintf(q, sizeof(q), "%s%s", p, ext);
		unlink(q);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_resolve_take),
		cmocka_unit_test(test_not_a_recording),
		cmocka_unit_test(test_older_migrated),
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
