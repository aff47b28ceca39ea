/* Unit tests for recvfs: a WAL written through it takes a system call per
 * commit, not two per page; every commit is whole in the file when another
 * connection (the default VFS, as `spacetime replay` in another process)
 * sees it; a write that fails at the commit (a file size limit, as a full
 * disk) fails the commit and leaves the database as it was; a commit that
 * rewrites checksums is whole in the file when COMMIT returns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recvfs.h"

#define ROWS 150 /* a transaction's rows: some twenty pages over four B-trees */

static char dir[64], path[128];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_recvfs.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.db", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static sqlite3 *open_db(const char *vfs)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	return db;
}

static void exec_ok(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &err);

	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, err ? err : "?");
}

static int64_t count_rows(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	int64_t n = -1;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*), sum(length(b)) FROM t", -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static void schema(sqlite3 *db)
{
	exec_ok(db, "PRAGMA journal_mode = WAL");
	exec_ok(db, "PRAGMA synchronous = NORMAL");
	exec_ok(db, "CREATE TABLE IF NOT EXISTS t (k INTEGER, v INTEGER, b BLOB);"
		    "CREATE INDEX IF NOT EXISTS t_k ON t (k);"
		    "CREATE INDEX IF NOT EXISTS t_v ON t (v, k);");
}

/* Rows k in [first, first + n), each with a 100-byte blob, in the
 * transaction open on db. */
static void insert_rows(sqlite3 *db, int first, int n)
{
	sqlite3_stmt *s = NULL;
	unsigned char blob[100];

	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO t (k, v, b) VALUES (?1, ?2, ?3)", -1, &s, NULL),
			 SQLITE_OK);
	for (int i = first; i < first + n; i++) {
		memset(blob, i & 0xff, sizeof(blob));
		sqlite3_bind_int(s, 1, i);
		sqlite3_bind_int(s, 2, (i * 7919) % 1000003);
		sqlite3_bind_blob(s, 3, blob, sizeof(blob), SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(s), SQLITE_DONE);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
}

/* One transaction of ROWS rows, numbered from first; the result of COMMIT. */
static int insert_batch(sqlite3 *db, int first)
{
	exec_ok(db, "BEGIN");
	insert_rows(db, first, ROWS);
	return sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}

/* The database made through recvfs, with one transaction in it. */
static void seed(void)
{
	sqlite3 *db = open_db(recvfs_name());

	schema(db);
	assert_int_equal(insert_batch(db, 0), SQLITE_OK);
	sqlite3_close(db);
}

static void check_intact(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;

	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 0), "ok");
	sqlite3_finalize(s);
}

/* Twenty commits through recvfs: each is read back whole by a connection of
 * the default VFS right after it, and the WAL's writes became about one
 * system call per commit. */
static void test_commit_per_call(void **state)
{
	struct recvfs_stats a, b;
	const char *vfs = recvfs_name();

	(void)state;
	assert_non_null(vfs);
	sqlite3 *w = open_db(vfs), *r = open_db(NULL);
	schema(w);
	recvfs_stats(&a);
	for (int t = 0; t < 20; t++) {
		assert_int_equal(insert_batch(w, t * ROWS), SQLITE_OK);
		assert_int_equal(count_rows(r), (int64_t)(t + 1) * ROWS);
	}
	recvfs_stats(&b);
	unsigned long long writes = b.writes - a.writes, flushes = b.flushes - a.flushes;
	/* two writes a page, several pages a commit; a call a commit (or two,
	 * when a commit outgrows the buffer) */
	assert_true(writes >= 20 * 2 * 4);
	assert_true(flushes >= 20);
	assert_true(flushes <= 20 * 2);
	check_intact(r);
	sqlite3_close(w);
	sqlite3_close(r);
	/* closed: checkpointed into the database file, which holds it all */
	sqlite3 *d = open_db(NULL);
	assert_int_equal(count_rows(d), 20 * ROWS);
	check_intact(d);
	sqlite3_close(d);
}

/* A write that fails at a commit fails the commit: in a child whose file size
 * limit stops the WAL's growth, ten commits go in, one fails; the database
 * then holds the ten, intact. */
static void test_failed_commit(void **state)
{
	(void)state;
	seed();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead */
		sqlite3 *c = open_db(recvfs_name());
		int ok = 1;
		for (int t = 1; t < 10; t++)
			ok &= insert_batch(c, t * ROWS) == SQLITE_OK;
		struct stat sb;
		char wal[160];
		snprintf(wal, sizeof(wal), "%s-wal", path);
		if (stat(wal, &sb) != 0)
			_exit(3);
		struct rlimit rl = {.rlim_cur = (rlim_t)sb.st_size + 4096, .rlim_max = RLIM_INFINITY};
		setrlimit(RLIMIT_FSIZE, &rl);
		int rc = insert_batch(c, 10 * ROWS);
		sqlite3_exec(c, "ROLLBACK", NULL, NULL, NULL);
		_exit(!ok ? 4 : rc == SQLITE_OK ? 5 : 0); /* no close: as if killed */
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	sqlite3 *d = open_db(NULL);
	assert_int_equal(count_rows(d), 10 * ROWS);
	check_intact(d);
	/* and it goes on: the next commit through recvfs lands */
	sqlite3_close(d);
	sqlite3 *db = open_db(recvfs_name());
	assert_int_equal(insert_batch(db, 10 * ROWS), SQLITE_OK);
	assert_int_equal(count_rows(db), 11 * ROWS);
	sqlite3_close(db);
}

/* A spilled page written again in the same transaction has the commit rewrite
 * the frames' checksums: all of that is in the file once COMMIT returns. A
 * writer killed right after it (no close), the WAL index lost (a reboot),
 * recovery from the WAL alone finds the transaction whole. */
static void test_commit_whole_in_file(void **state)
{
	(void)state;
	seed();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sqlite3 *c = open_db(recvfs_name());
		exec_ok(c, "PRAGMA synchronous = NORMAL"); /* as recdb: no sync at a commit */
		exec_ok(c, "PRAGMA cache_size = 8");
		exec_ok(c, "BEGIN");
		insert_rows(c, 100000, 600);                       /* spills */
		exec_ok(c, "UPDATE t SET v = -v WHERE k >= 100000"); /* and again */
		_exit(sqlite3_exec(c, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : 1);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	char shm[160];
	snprintf(shm, sizeof(shm), "%s-shm", path);
	assert_int_equal(unlink(shm), 0);
	sqlite3 *d = open_db(NULL);
	assert_int_equal(count_rows(d), ROWS + 600);
	check_intact(d);
	sqlite3_close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_commit_per_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_whole_in_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
