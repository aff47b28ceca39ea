/* reusepid: a pid of the tree goes to a stranger (root only).
 *
 *   reusepid tree DIR      sleeps 100 ms, forks a child that exits at once, reaps it, writes
 *                          its pid to the fifo DIR/pid, waits for a line on the
 *                          fifo DIR/go, sleeps 300 ms and exits 0. One child in
 *                          all: the tree is 2 processes.
 *   reusepid stranger PID  makes the next pid PID (/proc/sys/kernel/ns_last_pid)
 *                          and forks the stranger: if it got PID, it forks 3
 *                          children that exit at once, then sleeps 1500 ms.
 *                          Prints "got PID" or "missed PID (got N)" and exits 0
 *                          without waiting for it.
 */
#define WORKLOAD_NAME "reusepid"
#include "workload.h"

#include <fcntl.h>
#include <string.h>

static int tree(const char *dir)
{
	char path[4096], line[32];

	workload_sleep_ms(100);
	pid_t c = fork();

	if (c < 0) {
		perror("reusepid: fork");
		return 1;
	}
	if (c == 0)
		_exit(0);
	if (workload_wait(c, NULL) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/pid", dir);
	FILE *f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", (int)c) < 0 || fclose(f) != 0) {
		perror("reusepid: pid fifo");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/go", dir);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		perror("reusepid: go fifo");
		return 1;
	}
	fclose(f);
	workload_sleep_ms(300);
	return 0;
}

static int stranger(pid_t want)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	int n = snprintf(buf, sizeof(buf), "%d", (int)want - 1);

	if (fd < 0 || write(fd, buf, (size_t)n) != n) {
		perror("reusepid: ns_last_pid");
		return 1;
	}
	close(fd);
	pid_t s = fork();
	if (s < 0) {
		perror("reusepid: fork");
		return 1;
	}
	if (s == 0) {
		if (getpid() != want)
			_exit(0);
		for (int i = 0; i < 3; i++) {
			pid_t k = fork();
			if (k == 0)
				_exit(0);
			if (k > 0)
				workload_wait(k, NULL);
		}
		workload_sleep_ms(1500);
		_exit(0);
	}
	if (s == want)
		printf("got %d\n", (int)want);
	else
		printf("missed %d (got %d)\n", (int)want, (int)s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "tree"))
		return tree(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "stranger"))
		return stranger((pid_t)workload_arg_long(argv[2], 2, 1L << 22, "pid"));
	fprintf(stderr, "usage: reusepid tree DIR | reusepid stranger PID\n");
	return 2;
}
