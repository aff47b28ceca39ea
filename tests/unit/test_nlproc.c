/* Unit tests for nlproc: nlproc_parse() fed captured connector datagrams
 * (tests/fixtures/README.md lists what each holds), then the live socket. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "nlproc.h"
#include "fixture.h"

#define DATAGRAM 76 /* nlmsghdr 16 + cn_msg 20 + proc_event 40 */

/* Loads a fixture (see fixture.h). */
static void *load(const char *name, size_t *len)
{
	return fixture_load(name, len);
}

/* Parses a fixture that must hold exactly one event. */
static struct nlproc_event parse_one(const char *name)
{
	struct nlproc_event ev[2];
	size_t len, n_ok = 99;
	void *b = load(name, &len);

	assert_int_equal(len, DATAGRAM);
	assert_int_equal(nlproc_parse(b, len, ev, 2, &n_ok), 1);
	assert_int_equal(n_ok, 1);
	free(b);
	return ev[0];
}

static void test_fork_exec_exit(void **state)
{
	(void)state;
	struct nlproc_event e = parse_one("nl_fork.bin");

	assert_int_equal(e.type, NLPROC_FORK);
	assert_int_equal(e.pid, 25977);
	assert_int_equal(e.tgid, 25977);
	assert_int_equal(e.ppid, 25976);
	assert_int_equal(e.ptgid, 25976);
	assert_true(e.ts_ns == 318904637890ull);

	e = parse_one("nl_exec.bin");
	assert_int_equal(e.type, NLPROC_EXEC);
	assert_int_equal(e.pid, 25977);
	assert_int_equal(e.tgid, 25977);
	assert_int_equal(e.ppid, 0);
	assert_true(e.ts_ns == 318904865815ull);

	e = parse_one("nl_exit.bin");
	assert_int_equal(e.type, NLPROC_EXIT);
	assert_int_equal(e.pid, 25977);
	assert_int_equal(e.tgid, 25977);
	assert_int_equal(e.exit_code, 0);
	assert_int_equal(e.exit_signal, SIGCHLD);
	assert_int_equal(e.ppid, 25976);
	assert_int_equal(e.ptgid, 25976);
	assert_true(e.ts_ns == 318905682578ull);

	e = parse_one("nl_exit_status3.bin");
	assert_int_equal(e.type, NLPROC_EXIT);
	assert_int_equal(e.pid, 25978);
	assert_true(WIFEXITED(e.exit_code) && WEXITSTATUS(e.exit_code) == 3);

	e = parse_one("nl_exit_sigkill.bin");
	assert_int_equal(e.type, NLPROC_EXIT);
	assert_int_equal(e.pid, 25979);
	assert_true(WIFSIGNALED(e.exit_code) && WTERMSIG(e.exit_code) == SIGKILL);
	assert_int_equal(e.exit_signal, SIGCHLD);
}

static void test_threads(void **state)
{
	(void)state;
	struct nlproc_event e = parse_one("nl_thread_fork0.bin");

	/* A thread: pid != tgid, and the "parent" is the process's parent. */
	assert_int_equal(e.type, NLPROC_FORK);
	assert_int_equal(e.pid, 25980);
	assert_int_equal(e.tgid, 25976);
	assert_int_equal(e.ppid, 25925);
	assert_int_equal(e.ptgid, 25925);
	e = parse_one("nl_thread_fork1.bin");
	assert_int_equal(e.pid, 25981);
	assert_int_equal(e.tgid, 25976);

	e = parse_one("nl_thread_exit0.bin");
	assert_int_equal(e.type, NLPROC_EXIT);
	assert_int_equal(e.pid, 25981);
	assert_int_equal(e.tgid, 25976);
	assert_true(e.exit_signal == UINT32_MAX); /* -1: threads signal nobody */
	assert_int_equal(e.ppid, 0);
	e = parse_one("nl_thread_exit1.bin");
	assert_int_equal(e.pid, 25980);
}

static void test_ack_and_skipped(void **state)
{
	(void)state;
	struct nlproc_event ev[2];
	struct nlproc_event e = parse_one("nl_ack.bin");
	size_t len, n_ok = 99;
	void *b;

	assert_int_equal(e.type, NLPROC_ACK);
	assert_int_equal(e.exit_code, 0);
	assert_true(e.ts_ns == 327131381910ull);
	e = parse_one("nl_ack_einval.bin");
	assert_int_equal(e.type, NLPROC_ACK);
	assert_int_equal(e.exit_code, EINVAL);

	/* A kind spacetime does not use is skipped, not an error. */
	b = load("nl_comm.bin", &len);
	assert_int_equal(nlproc_parse(b, len, ev, 2, &n_ok), 0);
	assert_int_equal(n_ok, 0);
	assert_int_equal(nlproc_parse(b, len, NULL, 0, NULL), 0);
	free(b);
}

/* Only the kernel's ack counts: the same refusal from another process's port
 * (anyone may send to ours) must not turn netlink off. The fixtures' cn_msg.ack
 * is 42, the answer to cookie 41. */
static void test_ack_sender(void **state)
{
	(void)state;
	size_t len;
	void *ok = load("nl_ack.bin", &len);
	void *einval = load("nl_ack_einval.bin", &len);

	assert_int_equal(nlproc_ack_find(ok, len, 0, 41), 0);
	assert_int_equal(nlproc_ack_find(einval, len, 0, 41), -EINVAL);
	/* another listener's ack (another cookie) is not ours */
	assert_int_equal(nlproc_ack_find(einval, len, 0, 40), -EAGAIN);
	/* forged: a user process's port */
	assert_int_equal(nlproc_ack_find(einval, len, 4242, 41), -EAGAIN);
	assert_int_equal(nlproc_ack_find(ok, len, 4242, 41), -EAGAIN);
	assert_int_equal(nlproc_ack_find(einval, len, UINT32_MAX, 41), -EAGAIN);
	/* an event is no ack */
	void *fork = load("nl_fork.bin", &len);
	assert_int_equal(nlproc_ack_find(fork, len, 0, 41), -EAGAIN);
	free(ok);
	free(einval);
	free(fork);
}

static void test_multi_and_control(void **state)
{
	(void)state;
	struct nlproc_event ev[4];
	size_t len, n_ok = 99;
	void *b = load("nl_multi.bin", &len);

	assert_int_equal(nlproc_parse(b, len, ev, 4, &n_ok), 3);
	assert_int_equal(n_ok, 3);
	assert_int_equal(ev[0].type, NLPROC_FORK);
	assert_int_equal(ev[1].type, NLPROC_EXEC);
	assert_int_equal(ev[2].type, NLPROC_EXIT);
	assert_int_equal(ev[2].pid, 25977);

	/* More events than room: the first max kept, -ENOSPC. */
	memset(ev, 0, sizeof(ev));
	assert_int_equal(nlproc_parse(b, len, ev, 2, &n_ok), -ENOSPC);
	assert_int_equal(n_ok, 2);
	assert_int_equal(ev[1].type, NLPROC_EXEC);
	assert_int_equal(ev[2].type, NLPROC_NONE);
	assert_int_equal(nlproc_parse(b, len, NULL, 0, &n_ok), -ENOSPC);
	assert_int_equal(n_ok, 0);

	/* Misaligned input is refused, not read. */
	char *copy = malloc(len + 1);

	memcpy(copy + 1, b, len);
	assert_int_equal(nlproc_parse(copy + 1, len, ev, 4, &n_ok), -EINVAL);
	free(copy);
	free(b);

	b = load("nl_noop_fork.bin", &len);
	assert_int_equal(nlproc_parse(b, len, ev, 4, NULL), 1);
	assert_int_equal(ev[0].type, NLPROC_FORK);
	assert_int_equal(ev[0].pid, 25977);
	free(b);

	b = load("nl_error_enobufs.bin", &len);
	assert_int_equal(nlproc_parse(b, len, ev, 4, &n_ok), -ENOBUFS);
	assert_int_equal(n_ok, 0);
	free(b);

	assert_int_equal(nlproc_parse(ev, 0, ev, 4, &n_ok), 0);
	assert_int_equal(nlproc_parse(NULL, 76, ev, 4, &n_ok), -EINVAL);
	assert_int_equal(nlproc_parse(ev, 76, NULL, 4, &n_ok), -EINVAL);
}

static void test_damaged(void **state)
{
	(void)state;
	static const char *const files[] = {
		"bad_nl_truncated.bin", "bad_nl_garbage.bin", "bad_nl_cnlen.bin",
		"bad_nl_short_event.bin", "bad_nl_nlmsglen.bin",
	};
	struct nlproc_event ev[4];
	size_t len, n_ok;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		void *b = load(files[i], &len);

		n_ok = 99;
		if (nlproc_parse(b, len, ev, 4, &n_ok) != -EINVAL)
			fail_msg("%s was not refused", files[i]);
		assert_int_equal(n_ok, 0);
		free(b);
	}

	/* Damage after a good message keeps the good one. */
	void *b = load("bad_nl_multi_truncated.bin", &len);

	assert_int_equal(nlproc_parse(b, len, ev, 4, &n_ok), -EINVAL);
	assert_int_equal(n_ok, 1);
	assert_int_equal(ev[0].type, NLPROC_FORK);
	assert_int_equal(ev[0].pid, 25977);
	free(b);
}

/* Every prefix of a three-message buffer: whole messages parse, a cut one is
 * -EINVAL with the whole ones before it kept. */
static void test_every_prefix(void **state)
{
	(void)state;
	struct nlproc_event ev[4];
	size_t len, n_ok;
	char *b = load("nl_multi.bin", &len);

	for (size_t n = 0; n <= len; n++) {
		void *p = malloc(n ? n : 1);
		int r;

		memcpy(p, b, n);
		r = nlproc_parse(p, n, ev, 4, &n_ok);
		if (n % DATAGRAM == 0)
			assert_int_equal(r, (int)(n / DATAGRAM));
		else
			assert_int_equal(r, -EINVAL);
		assert_int_equal(n_ok, n / DATAGRAM);
		free(p);
	}
	free(b);
}

/* Random bytes, and random damage to real datagrams, never crash the parser
 * (run under -fsanitize=address,undefined). */
static void test_random_input(void **state)
{
	(void)state;
	static const char *const files[] = { "nl_multi.bin", "nl_ack.bin", "nl_thread_exit0.bin" };
	struct nlproc_event ev[8];
	unsigned seed = 4242;
	size_t n_ok;

	for (int iter = 0; iter < 50000; iter++) {
		size_t len = (size_t)(rand_r(&seed) % 400);
		unsigned char *b = malloc(len ? len : 1);

		for (size_t i = 0; i < len; i++)
			b[i] = (unsigned char)rand_r(&seed);
		/* Half the time make the header plausible so parsing goes deeper. */
		if ((iter & 1) && len >= 16) {
			uint32_t l = (uint32_t)(16 + rand_r(&seed) % (len - 15));
			uint16_t t = 3;

			memcpy(b, &l, 4);
			memcpy(b + 4, &t, 2);
		}
		int r = nlproc_parse(b, len, ev, 8, &n_ok);

		assert_true(r >= -4095 && r <= 8);
		assert_true(n_ok <= 8);
		free(b);
	}
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t len;
		unsigned char *orig = load(files[f], &len);

		for (int iter = 0; iter < 5000; iter++) {
			unsigned char *b = malloc(len);

			memcpy(b, orig, len);
			for (int k = 1 + rand_r(&seed) % 3; k > 0; k--)
				b[(size_t)rand_r(&seed) % len] = (unsigned char)rand_r(&seed);
			(void)nlproc_parse(b, len, ev, 8, &n_ok);
			assert_true(n_ok <= 8);
			free(b);
		}
		free(orig);
	}
}

static int kernel_at_least(unsigned major, unsigned minor)
{
	struct utsname u;
	unsigned a = 0, b = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &a, &b) != 2)
		return 0;
	return a > major || (a == major && b >= minor);
}

/* Subscribes, forks a child that exits with 5 and waits up to 2 s for its
 * fork and exit events. Returns 0 when both were seen, 1 when not, or
 * nlproc_open's -errno. */
static int live_roundtrip(int *filtered, int *acks)
{
	struct nlproc_info info;
	int fd = nlproc_open(1 << 20, 1, &info);
	int saw_fork = 0, saw_exit = 0;
	struct timespec t0, t;
	pid_t child;

	*acks = 0;
	if (fd < 0)
		return fd;
	*filtered = info.filtered;
	if (info.rcvbuf_bytes <= 0 || !(fcntl(fd, F_GETFL) & O_NONBLOCK) ||
	    !(fcntl(fd, F_GETFD) & FD_CLOEXEC))
		return 2;
	child = fork();
	if (child == 0)
		_exit(5);
	waitpid(child, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[4096] __attribute__((aligned(8)));
		struct nlproc_event ev[16];
		ssize_t r;
		int n;

		if (poll(&p, 1, 200) <= 0)
			goto next;
		r = recv(fd, buf, sizeof(buf), 0);
		if (r <= 0)
			goto next;
		n = nlproc_parse(buf, (size_t)r, ev, 16, NULL);
		for (int i = 0; i < n; i++) {
			if (ev[i].type == NLPROC_ACK)
				(*acks)++;
			if (ev[i].type == NLPROC_FORK && ev[i].pid == child && ev[i].tgid == child &&
			    ev[i].ptgid == getpid())
				saw_fork = 1;
			if (ev[i].type == NLPROC_EXIT && ev[i].pid == child &&
			    WEXITSTATUS(ev[i].exit_code) == 5 && ev[i].exit_signal == SIGCHLD)
				saw_exit = 1;
		}
next:
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!(saw_fork && saw_exit) && t.tv_sec - t0.tv_sec < 2);
	nlproc_close(fd);
	return saw_fork && saw_exit ? 0 : 1;
}

static void test_live(void **state)
{
	(void)state;
	int filtered = 0, acks = 0;
	int r = live_roundtrip(&filtered, &acks);

	if (r == -EPERM || r == -EOPNOTSUPP) {
		print_message("nlproc_open: %s; live test skipped\n", strerror(-r));
		skip();
	}
	assert_int_equal(r, 0);
	assert_int_equal(filtered, kernel_at_least(6, 6));
	if (filtered)
		assert_int_equal(acks, 0); /* acks are outside the fork|exec|exit mask */
}

/* As nobody with no capabilities: refused before 6.6, allowed from 6.6. */
static void test_live_unprivileged(void **state)
{
	(void)state;
	int status, filtered = 0, acks = 0;
	pid_t child;

	if (geteuid() != 0)
		skip(); /* already unprivileged: test_live covered it */
	child = fork();
	if (child == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(77);
		int r = live_roundtrip(&filtered, &acks);

		_exit(r == -EPERM ? 10 : r == 0 ? 0 : 20);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), kernel_at_least(6, 6) ? 0 : 10);
}

/* The subscribed socket is connected to the kernel: a datagram another
 * process sends to its port (a forged ack or event) is refused. */
static void test_live_forged_refused(void **state)
{
	(void)state;
	struct sockaddr_nl me = {0}, to = {.nl_family = AF_NETLINK};
	socklen_t sl = sizeof(me);
	size_t len;
	int fd = nlproc_open(1 << 16, 1, NULL);

	if (fd == -EPERM || fd == -EOPNOTSUPP) {
		print_message("nlproc_open: %s; live test skipped\n", strerror(-fd));
		skip();
	}
	assert_true(fd >= 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&me, &sl), 0);
	assert_true(me.nl_pid != 0);
	int forger = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	assert_true(forger >= 0);
	void *b = load("nl_ack_einval.bin", &len);
	to.nl_pid = me.nl_pid;
	errno = 0;
	assert_int_equal(sendto(forger, b, len, 0, (struct sockaddr *)&to, sizeof(to)), -1);
	assert_int_equal(errno, ECONNREFUSED);
	/* and nothing arrived */
	char buf[256] __attribute__((aligned(8)));
	ssize_t r;
	while ((r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		struct nlproc_event ev[4];
		int n = nlproc_parse(buf, (size_t)r, ev, 4, NULL);
		for (int i = 0; i < n; i++)
			assert_false(ev[i].type == NLPROC_ACK && ev[i].exit_code == EINVAL);
	}
	free(b);
	close(forger);
	nlproc_close(fd);
}

/* In a new user namespace the kernel ignores the subscription silently;
 * nlproc_open must notice (no ack) and say so. */
static void test_live_userns(void **state)
{
	(void)state;
	int status;
	pid_t child = fork();

	if (child == 0) {
		if (unshare(CLONE_NEWUSER) < 0)
			_exit(77);
		int fd = nlproc_open(1 << 16, 1, NULL);

		_exit(fd == -EOPNOTSUPP ? 0 : fd == -EPERM ? 10 : 20);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		print_message("unshare(CLONE_NEWUSER) refused here; user namespace test skipped\n");
		skip();
	}
	/* Before 6.6 bind itself needs CAP_NET_ADMIN in the initial namespace. */
	assert_int_equal(WEXITSTATUS(status), kernel_at_least(6, 6) ? 0 : 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_exec_exit),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_ack_and_skipped),
		cmocka_unit_test(test_ack_sender),
		cmocka_unit_test(test_multi_and_control),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_random_input),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_live_unprivileged),
		cmocka_unit_test(test_live_userns),
		cmocka_unit_test(test_live_forged_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
