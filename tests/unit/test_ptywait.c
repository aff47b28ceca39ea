/* test_ptywait: telling that the command waits for a person to type, on a
 * real pty: a child that reads its terminal is found, one that sleeps or
 * reads something else is not, and one that got its line is no longer; a
 * reader that is not its group's leader is found among the pids given (the
 * tree's), or in /proc when none are, and not when the list leaves it out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/ptywait.h"

static void test_parse_syscall(void **state)
{
	(void)state;
	long nr;
	unsigned long long a;
	const char *blocked = "0 0x3 0x7ffd1c 0x1 0x0 0x0 0x0 0x7ffd18 0x7f12\n";
	const char *poll = "7 0x5581a0 0x2 0xffffffffffffffff 0x0 0x0 0x0 0x7ffe 0x7f1\n";

	assert_int_equal(ptywait_parse_syscall(blocked, strlen(blocked), &nr, &a), 0);
	assert_int_equal(nr, 0);
	assert_int_equal(a, 3);
	assert_int_equal(ptywait_parse_syscall(poll, strlen(poll), &nr, &a), 0);
	assert_int_equal(nr, 7);
	assert_int_equal(a, 0x5581a0);
	/* not in a syscall: running, or "-1 SP PC" */
	assert_int_equal(ptywait_parse_syscall("running\n", 8, &nr, &a), -EINVAL);
	assert_int_equal(ptywait_parse_syscall("-1 0x7ffd 0x7f1\n", 16, &nr, &a), -EINVAL);
	/* malformed */
	assert_int_equal(ptywait_parse_syscall("", 0, &nr, &a), -EINVAL);
	assert_int_equal(ptywait_parse_syscall("0 3\n", 4, &nr, &a), -EINVAL);
	assert_int_equal(ptywait_parse_syscall("0 0x\n", 5, &nr, &a), -EINVAL);
	assert_int_equal(ptywait_parse_syscall("0 0xzz\n", 7, &nr, &a), -EINVAL);
	assert_int_equal(ptywait_parse_syscall("x 0x1\n", 6, &nr, &a), -EINVAL);
}

enum { KID_READ_TTY, KID_SLEEP, KID_READ_PIPE, KID_READ_DEVTTY, KID_MEMBER_READS };

/* A new pty: returns its master; *name gets its slave's path. */
static int new_pty(const char **name)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	assert_true(m >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	*name = ptsname(m);
	assert_non_null(*name);
	return m;
}

/* In a forked child: a new session whose controlling terminal is the pty
 * name; returns the slave's fd (exits 2 when it cannot be opened). */
static int child_session(const char *name)
{
	setsid();
	int s = open(name, O_RDWR);
	if (s < 0)
		_exit(2);
	return s;
}

/* A child in a new session on the pty's slave: reads it, sleeps, reads a
 * pipe nobody writes, or (KID_MEMBER_READS) waits for its own child, of its
 * group, that reads it, as make does while a recipe prompts (*reader gets
 * that child). Returns its pid; *master gets the master. */
static pid_t kid(int what, int *master, int *pipe_w, pid_t *reader)
{
	const char *name;
	int m = new_pty(&name), p[2];

	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[64];
		int s = child_session(name);
		close(m);
		if (what == KID_MEMBER_READS) {
			close(p[0]);
			pid_t c = fork();
			if (c == 0)
				_exit(read(s, buf, sizeof(buf)) > 0 ? 0 : 3);
			if (write(p[1], &c, sizeof(c)) != (ssize_t)sizeof(c))
				_exit(4);
			int st;
			_exit(c > 0 && waitpid(c, &st, 0) == c ? 0 : 5);
		}
		close(p[1]);
		if (what == KID_READ_TTY)
			_exit(read(s, buf, sizeof(buf)) > 0 ? 0 : 3);
		if (what == KID_READ_DEVTTY) { /* as a password prompt does */
			int t = open("/dev/tty", O_RDWR);
			_exit(t >= 0 && read(t, buf, sizeof(buf)) > 0 ? 0 : 3);
		}
		if (what == KID_READ_PIPE)
			_exit(read(p[0], buf, sizeof(buf)) >= 0 ? 0 : 3);
		struct timespec ts = {30, 0};
		nanosleep(&ts, NULL);
		_exit(0);
	}
	if (what == KID_MEMBER_READS)
		assert_int_equal(read(p[0], reader, sizeof(*reader)), (ssize_t)sizeof(*reader));
	close(p[0]);
	*master = m;
	*pipe_w = p[1];
	return pid;
}

/* Polls until ptywait_reader (looking in /proc) gives want (or 2 s pass): the
 * child needs a moment to get into its read. */
static pid_t wait_for(int master, pid_t want)
{
	pid_t r = 0;

	for (int i = 0; i < 200; i++) {
		r = ptywait_reader(master, NULL, 0);
		if (r == want)
			return r;
		struct timespec ts = {0, 10 * 1000000L};
		nanosleep(&ts, NULL);
	}
	return r;
}

static void test_reader_found(void **state)
{
	(void)state;
	/* its terminal as its stdin, or opened as /dev/tty (a password prompt) */
	int whats[] = {KID_READ_TTY, KID_READ_DEVTTY};

	for (size_t i = 0; i < 2; i++) {
		int m, pw, status;
		pid_t pid = kid(whats[i], &m, &pw, NULL);

		assert_int_equal(wait_for(m, pid), pid);
		/* a line typed: it reads it and ends; nobody waits any more */
		assert_int_equal(write(m, "y\n", 2), 2);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		assert_true(ptywait_reader(m, NULL, 0) <= 0);
		close(m);
		close(pw);
	}
}

static void test_not_reading(void **state)
{
	(void)state;
	int whats[] = {KID_SLEEP, KID_READ_PIPE};

	for (size_t i = 0; i < 2; i++) {
		int m, pw, status;
		pid_t pid = kid(whats[i], &m, &pw, NULL);
		struct timespec ts = {0, 200 * 1000000L};
		nanosleep(&ts, NULL); /* in its sleep or read by now */
		assert_int_equal(ptywait_reader(m, NULL, 0), 0);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		close(m);
		close(pw);
	}
}

static void test_reader_among_pids(void **state)
{
	(void)state;
	int m, pw, status;
	pid_t reader = 0, leader = kid(KID_MEMBER_READS, &m, &pw, &reader);
	pid_t other = getpid();

	assert_true(reader > 0);
	/* found in /proc, once it is in its read */
	assert_int_equal(wait_for(m, reader), reader);
	/* among the given pids: the list is looked through, not /proc */
	pid_t both[] = {leader, other, reader};
	assert_int_equal(ptywait_reader(m, both, 3), reader);
	assert_int_equal(ptywait_reader(m, both, 2), 0);
	assert_int_equal(ptywait_reader(m, both, 0), 0);
	/* a line typed: the child reads it and ends, the leader with it */
	assert_int_equal(write(m, "y\n", 2), 2);
	assert_int_equal(waitpid(leader, &status, 0), leader);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(m);
	close(pw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_syscall),
		cmocka_unit_test(test_reader_found),
		cmocka_unit_test(test_not_reading),
		cmocka_unit_test(test_reader_among_pids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
