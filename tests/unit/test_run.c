/* test_run: the run object's states and sequencing, on real processes whose
 * truth the test knows: a command that leaves a child behind goes through
 * starting, running, root exited and ended, with its own exit status; a
 * command that does not exist fails at the exec; an attached process is
 * never signalled, and a detach leaves it running. Each is run with netlink
 * (when this user may open it) and by polling /proc. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/moment.h"
#include "../../src/recdb.h"
#include "../../src/run.h"

#define WAIT_MS 10000

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* A run config following the tree by netlink when nl and it can be opened,
 * else by polling. */
static struct run *new_run(struct run_config *rc, struct run_sockets *s, int nl)
{
	if (nl) {
		run_sockets_open(s, 1 << 20, 1);
		if (s->nl_fd < 0) {
			run_sockets_close(s, 0);
			return NULL;
		}
		rc->socks = s;
	}
	rc->interval_ms = 20;
	return run_new(rc);
}

/* Waits until the run reaches state (or WAIT_MS); records every state seen. */
static enum run_state wait_state(struct run *r, enum run_state want, unsigned *seen)
{
	enum run_state st = run_state(r);

	for (int ms = 0; st != want && ms < WAIT_MS; ms += 2) {
		*seen |= 1u << st;
		sleep_ms(2);
		st = run_state(r);
	}
	*seen |= 1u << st;
	return st;
}

/* `sh -c 'sleep 0.5 & exit 3'` with --wait-tree: the command ends first, its
 * child half a second later; the run ends then, with status 3. */
static void spawned_states(int nl)
{
	char *argv[] = {"sh", "-c", "sleep 0.5 & exit 3", NULL};
	struct run_config rc = {.source = RUN_SPAWNED, .argv = argv, .wait_tree = 1};
	struct run_sockets s;
	struct run *r = new_run(&rc, &s, nl);
	unsigned seen = 0;
	enum run_fail fail;

	if (!r && nl)
		skip();
	assert_non_null(r);
	assert_int_equal(run_source(r), RUN_SPAWNED);
	assert_int_equal(run_state(r), RUN_STARTING);
	assert_int_equal(run_signal(r, 0), -ESRCH); /* nothing started */
	assert_int_equal(run_start(r, NULL, &fail), 0);
	assert_int_equal(fail, RUN_FAIL_NONE);
	assert_int_equal(run_start(r, NULL, &fail), -EALREADY);
	assert_int_equal(wait_state(r, RUN_ROOT_EXITED, &seen), RUN_ROOT_EXITED);
	assert_false(run_finished(r));
	assert_int_equal(wait_state(r, RUN_ENDED, &seen), RUN_ENDED);
	assert_true(run_finished(r));
	assert_false(seen & (1u << RUN_DETACHED));
	assert_int_equal(run_exit_status(r), 3);
	assert_int_equal(run_signal(r, SIGTERM), -ESRCH); /* over: never a stranger */

	struct store_summary sum;
	store_summary_get(run_store(r), &sum);
	assert_true(sum.root_end_ns > sum.start_ns);
	/* the child outlived the command by about 0.5 s */
	assert_true(sum.end_ns >= sum.root_end_ns + 300000000ull);
	assert_true(sum.last.total_procs >= 2);
	run_stop(r);
	run_free(r);
}

static void test_spawned_states_netlink(void **state)
{
	(void)state;
	spawned_states(1);
}

static void test_spawned_states_poll(void **state)
{
	(void)state;
	spawned_states(0);
}

/* Without --wait-tree the run ends with the command, the child still alive. */
static void test_spawned_ends_with_command(void **state)
{
	(void)state;
	char path[] = "/tmp/spacetime-test-run-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	char script[128];
	snprintf(script, sizeof(script), "sleep 2 & echo $! >%s; exit 5", path);
	char *argv[] = {"sh", "-c", script, NULL};
	struct run_config rc = {.source = RUN_SPAWNED, .argv = argv};
	struct run_sockets s;
	struct run *r = new_run(&rc, &s, 0);
	unsigned seen = 0;

	assert_non_null(r);
	assert_int_equal(run_start(r, NULL, NULL), 0);
	assert_int_equal(wait_state(r, RUN_ENDED, &seen), RUN_ENDED);
	assert_int_equal(run_exit_status(r), 5);
	char buf[32] = "";
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	unlink(path);
	pid_t child = (pid_t)atoi(buf);
	assert_true(child > 0);
	assert_int_equal(kill(child, 0), 0); /* it outlived the run */
	kill(child, SIGKILL);
	run_stop(r);
	run_free(r);
	/* we are its subreaper: it is ours to reap */
	assert_int_equal(waitpid(child, NULL, 0), child);
}

/* A command that does not exist fails at the exec, with -ENOENT. */
static void test_not_found(void **state)
{
	(void)state;
	for (int nl = 0; nl <= 1; nl++) {
		char *argv[] = {"/nonexistent/spacetime-test", NULL};
		struct run_config rc = {.source = RUN_SPAWNED, .argv = argv};
		struct run_sockets s;
		struct run *r = new_run(&rc, &s, nl);
		enum run_fail fail = RUN_FAIL_NONE;

		if (!r && nl)
			continue;
		assert_non_null(r);
		assert_int_equal(run_start(r, NULL, &fail), -ENOENT);
		assert_int_equal(fail, RUN_FAIL_EXEC);
		run_free(r);
	}
}

static void test_bad_config(void **state)
{
	(void)state;
	struct run_config none = {.source = RUN_SPAWNED};
	struct run_config many = {.source = RUN_ATTACHED, .npids = STORE_ATTACH_MAX + 1};
	struct run_config rec = {.source = RUN_RECORDED};

	errno = 0;
	assert_null(run_new(&none));
	assert_int_equal(errno, EINVAL);
	assert_null(run_new(&many));
	assert_null(run_new(&rec)); /* a recording is opened otherwise */
	assert_null(run_new(NULL));
}

/* An attached process: running, never signalled, left running by a detach;
 * the run's exit status is 0. */
static void attached(int nl)
{
	pid_t kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		for (;;)
			pause();
	}
	struct run_config rc = {.source = RUN_ATTACHED, .pids = &kid, .npids = 1};
	struct run_sockets s;
	struct run *r = new_run(&rc, &s, nl);
	unsigned seen = 0;

	if (!r && nl) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
		skip();
	}
	assert_non_null(r);
	assert_int_equal(run_source(r), RUN_ATTACHED);
	assert_int_equal(run_start(r, NULL, NULL), 0);
	assert_int_equal(run_state(r), RUN_RUNNING);
	assert_int_equal(run_signal(r, SIGTERM), -EPERM);
	assert_int_equal(run_pty(r), -1);
	sleep_ms(100);
	run_detach(r);
	assert_int_equal(wait_state(r, RUN_DETACHED, &seen), RUN_DETACHED);
	assert_true(run_finished(r));
	assert_int_equal(run_exit_status(r), 0);
	/* untouched: still running, not stopped */
	int st;
	assert_int_equal(waitpid(kid, &st, WNOHANG), 0);
	assert_int_equal(kill(kid, 0), 0);
	run_stop(r);
	run_free(r);
	kill(kid, SIGKILL);
	assert_int_equal(waitpid(kid, &st, 0), kid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

static void test_attached_netlink(void **state)
{
	(void)state;
	attached(1);
}

static void test_attached_poll(void **state)
{
	(void)state;
	attached(0);
}

/* Attaching to a process that has gone fails as such. */
static void test_attached_gone(void **state)
{
	(void)state;
	pid_t kid = fork();
	assert_true(kid >= 0);
	if (kid == 0)
		_exit(0);
	assert_int_equal(waitpid(kid, NULL, 0), kid);
	struct run_config rc = {.source = RUN_ATTACHED, .pids = &kid, .npids = 1};
	struct run_sockets s;
	struct run *r = new_run(&rc, &s, 0);
	enum run_fail fail;

	assert_non_null(r);
	assert_int_equal(run_start(r, NULL, &fail), -ESRCH);
	assert_int_equal(fail, RUN_FAIL_GONE);
	assert_int_equal(run_state(r), RUN_STARTING);
	run_free(r);
}

/* A recorded run: the output handed to it is cut into lines (CR LF as one
 * end, a line of 4096 bytes and more in pieces with no empty line after
 * them, the last line without its newline kept), and the run is in the file
 * with the command's status. */
static void test_recorded_output(void **state)
{
	(void)state;
	char path[] = "/tmp/spacetime-test-run-db-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path); /* a name for the database to create */
	char *argv[] = {"sh", "-c", "sleep 0.3; exit 4", NULL};
	struct run_config rc = {.source = RUN_SPAWNED, .argv = argv, .record_path = path};
	struct run_sockets s;
	struct run *r = new_run(&rc, &s, 0);
	unsigned seen = 0;
	char msg[256];
	static char big[4096 + 1 + 4096];

	assert_non_null(r);
	assert_int_equal(run_start(r, NULL, NULL), 0);
	int64_t id = run_recording(r, msg, sizeof(msg), NULL);
	assert_true(id > 0);
	assert_string_equal(msg, "");
	run_output(r, "first\r\nsec", 10);
	run_output(r, "ond\n", 4);
	memset(big, 'x', 4096);
	big[4096] = '\n'; /* exactly one piece, then its end */
	memset(big + 4097, 'y', 4096);
	run_output(r, big, sizeof(big)); /* and a piece of 4096 y, no end yet */
	run_output(r, "z\nlast", 6);
	assert_int_equal(wait_state(r, RUN_ENDED, &seen), RUN_ENDED);
	assert_int_equal(run_exit_status(r), 4);
	run_stop(r);
	assert_int_equal(run_recording(r, msg, sizeof(msg), NULL), id);
	run_free(r);

	struct recdb *db = NULL;
	struct store *back = NULL;
	struct moment m;
	assert_int_equal(recdb_open(path, RECDB_RDONLY, &db, msg, sizeof(msg)), 0);
	assert_int_equal(recdb_load(db, id, &back), 0);
	assert_int_equal(moment_take(back, UINT64_MAX / 2, UINT64_MAX / 2, 100, &m), 0);
	struct outlog_line *lines = m.lines;
	assert_int_equal(m.nlines, 6);
	assert_int_equal(lines[0].len, 5);
	assert_memory_equal(lines[0].bytes, "first", 5);
	assert_int_equal(lines[1].len, 6);
	assert_memory_equal(lines[1].bytes, "second", 6);
	assert_int_equal(lines[2].len, 4096);
	assert_int_equal(lines[2].bytes[4095], 'x');
	assert_int_equal(lines[3].len, 4096);
	assert_int_equal(lines[3].bytes[0], 'y');
	assert_int_equal(lines[4].len, 1);
	assert_memory_equal(lines[4].bytes, "z", 1);
	assert_int_equal(lines[5].len, 4);
	assert_memory_equal(lines[5].bytes, "last", 4);
	moment_free(&m);
	store_free(back);
	struct recdb_run_row *rows = NULL;
	assert_int_equal(recdb_runs(db, &rows), 1);
	assert_int_equal(rows[0].id, id);
	assert_true(rows[0].exit_known);
	assert_int_equal(WEXITSTATUS(rows[0].exit_status), 4);
	assert_int_equal(rows[0].end, RECDB_END_EXITED);
	assert_false(rows[0].incomplete);
	recdb_runs_free(rows, 1);
	recdb_close(db);
	unlink(path);
	char wal[64];
	snprintf(wal, sizeof(wal), "%s-wal", path);
	unlink(wal);
	snprintf(wal, sizeof(wal), "%s-shm", path);
	unlink(wal);
}

/* A file that cannot be a recording. As the default recording, the run goes
 * on, unrecorded, and says why in one line; named (--record FILE), the run
 * stops before its command runs. */
static void test_record_refused(void **state)
{
	(void)state;
	char path[] = "/tmp/spacetime-test-run-bad-XXXXXX";
	char mark[] = "/tmp/spacetime-test-run-ran-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "this is not a database, not at all; not even close to one\n", 58), 58);
	close(fd);
	fd = mkstemp(mark);
	assert_true(fd >= 0);
	close(fd);
	unlink(mark);
	char *argv[] = {"sh", "-c", "touch \"$0\"; exit 9", mark, NULL};
	struct run_config rc = {.source = RUN_SPAWNED, .argv = argv, .record_path = path,
				.record_default = 1};
	struct run_sockets s;
	struct run *r = new_run(&rc, &s, 0);
	unsigned seen = 0;
	char msg[256];

	assert_non_null(r);
	assert_int_equal(run_start(r, NULL, NULL), 0);
	assert_true(run_recording(r, msg, sizeof(msg), NULL) < 0);
	assert_true(strncmp(msg, "not recording: ", 15) == 0);
	assert_null(strchr(msg, '\n'));
	run_output(r, "ignored\n", 8);
	assert_int_equal(wait_state(r, RUN_ENDED, &seen), RUN_ENDED);
	assert_int_equal(run_exit_status(r), 9);
	run_stop(r);
	run_free(r);
	assert_int_equal(access(mark, F_OK), 0); /* it ran */
	unlink(mark);

	enum run_fail fail = RUN_FAIL_NONE;
	rc.record_default = 0;
	r = new_run(&rc, &s, 0);
	assert_non_null(r);
	assert_true(run_start(r, NULL, &fail) < 0);
	assert_int_equal(fail, RUN_FAIL_RECORD);
	assert_true(run_recording(r, msg, sizeof(msg), NULL) < 0);
	assert_true(strncmp(msg, "cannot record into ", 19) == 0);
	assert_non_null(strstr(msg, "not an SQLite database"));
	run_free(r);
	usleep(200000);
	assert_int_equal(access(mark, F_OK), -1); /* it never ran */
	unlink(path);
}

/* Whether a recording is live: written within the last 5 s. */
static void test_recording_live(void **state)
{
	(void)state;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;

	assert_true(run_recording_live(now));
	assert_true(run_recording_live(now - 4000000000ull));
	assert_false(run_recording_live(now - 6000000000ull));
	assert_false(run_recording_live(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_attached_netlink),
		cmocka_unit_test(test_attached_poll),
		cmocka_unit_test(test_attached_gone),
		cmocka_unit_test(test_spawned_states_netlink),
		cmocka_unit_test(test_spawned_states_poll),
		cmocka_unit_test(test_spawned_ends_with_command),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_recorded_output),
		cmocka_unit_test(test_record_refused),
		cmocka_unit_test(test_recording_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
