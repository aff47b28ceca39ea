/* Live tests for taskstats: register with the kernel (root only: they skip
 * otherwise), make tasks of known CPU time and memory end, and read their exit
 * records back. The parser on built datagrams: test_taskstats.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "taskstats.h"

/* Busy-loops until the calling thread has used ms of CPU. */
static void burn_cpu_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* Reads exit records from fd for up to 2 s, keeping those of process tgid,
 * until want of them have come. Returns how many were kept. */
static int collect(int fd, uint16_t family, pid_t tgid, struct taskstats_exit *kept, int want)
{
	struct timespec t0, t;
	int n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		static char buf[65536] __attribute__((aligned(8)));
		struct taskstats_exit e[16];
		ssize_t r;
		int got;

		if (poll(&p, 1, 200) <= 0)
			goto next;
		r = recv(fd, buf, sizeof(buf), 0);
		if (r <= 0)
			goto next; /* ENOBUFS: records lost; the test may fail */
		got = taskstats_parse(buf, (size_t)r, family, e, 16, NULL);
		assert_true(got >= 0);
		for (int i = 0; i < got; i++)
			if (e[i].tgid == tgid && n < want)
				kept[n++] = e[i];
next:
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (n < want && t.tv_sec - t0.tv_sec < 2);
	return n;
}

/* Opens the live socket, or skips when this process may not. */
static int open_or_skip(uint16_t *family)
{
	int fd = taskstats_open(4 << 20, 1, family);

	if (fd == -EPERM || fd == -ENOENT || fd == -EOPNOTSUPP) {
		print_message("taskstats_open: %s; live test skipped\n", strerror(-fd));
		skip();
	}
	assert_true(fd >= 0);
	assert_true(*family >= GENL_MIN_ID);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	return fd;
}

/* A child that burns 60 ms of CPU, touches 8 MiB and exits with 7: its one
 * AGGR_PID record says so. */
static void test_live(void **state)
{
	(void)state;
	struct taskstats_exit e[2];
	uint16_t family = 0;
	int fd, status;
	pid_t child;

	if (geteuid() != 0)
		skip();
	fd = open_or_skip(&family);
	child = fork();
	if (child == 0) {
		size_t size = 8u << 20;
		char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			_exit(1);
		memset(m, 1, size);
		burn_cpu_ms(60);
		_exit(7);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(collect(fd, family, child, e, 1), 1);
	taskstats_close(fd, family);

	print_message("exit record: pid %d comm %s exitcode %#x utime %llu stime %llu us "
		      "hiwater_rss %llu KiB etime %llu us\n",
		      (int)e[0].pid, e[0].comm, e[0].exitcode, (unsigned long long)e[0].utime_us,
		      (unsigned long long)e[0].stime_us, (unsigned long long)e[0].hiwater_rss_kib,
		      (unsigned long long)e[0].etime_us);
	assert_int_equal(e[0].pid, child);
	assert_int_equal(e[0].tgid, child);
	assert_int_equal(e[0].aggr_tgid, 0);
	assert_true(e[0].exitcode == (uint32_t)status); /* the wait(2) status */
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	assert_true(e[0].utime_us + e[0].stime_us >= 40000);
	assert_true(e[0].hiwater_rss_kib >= 8192);
	assert_true(e[0].hiwater_vm_kib >= e[0].hiwater_rss_kib);
	assert_true(e[0].etime_us >= 40000);
	assert_true(e[0].btime_s > 1600000000u && e[0].btime_s <= (uint64_t)time(NULL));
	assert_true(strlen(e[0].comm) > 0);

	/* A second open after close works: the kernel forgot the first port. */
	fd = open_or_skip(&family);
	taskstats_close(fd, family);
}

static void *thread_burn(void *arg)
{
	(void)arg;
	burn_cpu_ms(40);
	return NULL;
}

/* A two-threaded child: a record per thread, and one for the process. */
static void test_live_threads(void **state)
{
	(void)state;
	struct taskstats_exit e[4];
	uint16_t family = 0;
	int fd, status, n, threads = 0, procs = 0;
	pid_t child;

	if (geteuid() != 0)
		skip();
	fd = open_or_skip(&family);
	child = fork();
	if (child == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread_burn, NULL) != 0)
			_exit(1);
		pthread_join(t, NULL);
		_exit(3);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	n = collect(fd, family, child, e, 3);
	taskstats_close(fd, family);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		if (e[i].aggr_tgid) {
			procs++;
			assert_int_equal(e[i].pid, child);
			assert_string_equal(e[i].comm, "");
			assert_true(e[i].exitcode == 0 && e[i].hiwater_rss_kib == 0);
		} else if (e[i].pid == child) {
			assert_true(e[i].exitcode == (uint32_t)status);
		} else {
			threads++;
			assert_true(e[i].exitcode == 0); /* returned from its function */
			assert_true(e[i].utime_us + e[i].stime_us >= 20000);
		}
	}
	assert_int_equal(procs, 1);
	assert_int_equal(threads, 1);
}

/* As nobody with no capabilities: refused with -EPERM. */
static void test_live_unprivileged(void **state)
{
	(void)state;
	int status;
	pid_t child;

	if (geteuid() != 0)
		skip(); /* already unprivileged: the live tests skipped on -EPERM */
	child = fork();
	if (child == 0) {
		uint16_t family = 0;

		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(77);
		int fd = taskstats_open(1 << 16, 1, &family);

		_exit(fd == -EPERM ? 0 : fd == -ENOENT ? 77 : 20);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Runs taskstats_open in a child made by fork after unshare(flags) (a
 * grandchild for a new pid namespace, which only children enter) and
 * returns its result, or 1 when the namespace cannot be made. */
static int open_in_namespace(int flags)
{
	int status;
	pid_t child = fork();

	if (child == 0) {
		uint16_t family = 0;
		pid_t inner;
		int fd;

		if (unshare(flags) < 0)
			_exit(1);
		inner = fork();
		if (inner == 0) {
			fd = taskstats_open(1 << 16, 1, &family);
			_exit(fd >= 0 ? 2 : -fd);
		}
		if (inner < 0 || waitpid(inner, &status, 0) != inner || !WIFEXITED(status))
			_exit(3);
		_exit(WEXITSTATUS(status));
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status) == 1 ? 1 : -WEXITSTATUS(status);
}

/* The kernel's namespace limits: the family lives in the initial network
 * namespace only, and listeners must be in the initial pid namespace. */
static void test_live_namespaces(void **state)
{
	(void)state;
	int r;

	if (geteuid() != 0)
		skip();
	r = open_in_namespace(CLONE_NEWNET);
	if (r == 1)
		skip();
	assert_int_equal(r, -ENOENT);
	r = open_in_namespace(CLONE_NEWPID);
	if (r == 1)
		skip();
	assert_int_equal(r, -EOPNOTSUPP);
}

/* The registered socket is connected to the kernel: another process cannot
 * send it anything (a forged record, or a forged answer while it registers). */
static void test_live_forged_refused(void **state)
{
	(void)state;
	struct sockaddr_nl me = {0}, to = {.nl_family = AF_NETLINK};
	socklen_t sl = sizeof(me);
	uint16_t family = 0;
	int fd = taskstats_open(1 << 16, 1, &family);
	char junk[64] __attribute__((aligned(8))) = {0};
	struct nlmsghdr *nlh = (struct nlmsghdr *)junk;

	if (fd < 0) {
		print_message("taskstats_open: %s; live test skipped\n", strerror(-fd));
		skip();
	}
	assert_int_equal(getsockname(fd, (struct sockaddr *)&me, &sl), 0);
	int forger = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	assert_true(forger >= 0);
	nlh->nlmsg_len = sizeof(junk);
	nlh->nlmsg_type = family;
	to.nl_pid = me.nl_pid;
	errno = 0;
	assert_int_equal(sendto(forger, junk, sizeof(junk), 0, (struct sockaddr *)&to, sizeof(to)), -1);
	assert_int_equal(errno, ECONNREFUSED);
	close(forger);
	taskstats_close(fd, family);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_live_threads),
		cmocka_unit_test(test_live_unprivileged),
		cmocka_unit_test(test_live_namespaces),
		cmocka_unit_test(test_live_forged_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
