/* filetop HOLD_MIB FILE_MIB ROUNDS TOP_MS: an archiver loading its plugin
 * beside a compiler, in small. A child holds HOLD_MIB MiB of private
 * anonymous memory the whole run; meanwhile, ROUNDS times, a child execs
 * (an mm of its own), maps a file of FILE_MIB MiB that no other process maps
 * (written by the parent to $TMPDIR, or /tmp, then unlinked at the end),
 * reads every page of it at once, holds it TOP_MS ms and exits at its top;
 * the rounds are spaced by gaps of 23-71 ms, so the tops fall anywhere
 * between two samples. Truth: the tree's PSS at each top is HOLD_MIB +
 * FILE_MIB MiB (the file's pages are the mapper's alone: private, counted
 * in full) plus each process's small baseline; printed on stderr as
 * "filetop: peak N KiB". ROUNDS + 2 processes. */
#define WORKLOAD_NAME "filetop"
#include "workload.h"

#include <fcntl.h>
#include <string.h>

/* The exec'd child: maps the file, reads every page, holds, exits. */
static int top_child(int fd, long mib, long top_ms)
{
	size_t bytes = (size_t)mib << 20;
	volatile const char *p = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("filetop: mmap");
		return 1;
	}
	if (workload_read_pages(p, bytes) < 0)
		return 1;
	workload_sleep_ms(top_ms);
	_exit(0); /* at its top: nothing unmapped */
}

/* The holder: HOLD_MIB MiB written, a byte on ready, then held until the
 * parent closes the pipe. */
static void holder(long mib, int ready, int until)
{
	if (!workload_fill((size_t)mib << 20, MAP_PRIVATE))
		_exit(1);
	if (write(ready, "x", 1) != 1)
		_exit(1);
	char b;
	while (read(until, &b, 1) > 0)
		;
	_exit(0);
}

static int run_round(int fd, long file_mib, long top_ms)
{
	char sfd[16], smib[24], sms[24];
	snprintf(sfd, sizeof(sfd), "%d", fd);
	snprintf(smib, sizeof(smib), "%ld", file_mib);
	snprintf(sms, sizeof(sms), "%ld", top_ms);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl("/proc/self/exe", "filetop", "--top", sfd, smib, sms, (char *)NULL);
		_exit(127);
	}
	int status;
	return workload_wait(pid, &status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ? -1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--top"))
		return top_child((int)workload_arg_long(argv[2], 0, 1 << 20, "FD"),
				 workload_arg_long(argv[3], 1, 1L << 16, "FILE_MIB"),
				 workload_arg_long(argv[4], 0, 600000, "TOP_MS"));
	if (argc != 5) {
		fprintf(stderr, "usage: filetop HOLD_MIB FILE_MIB ROUNDS TOP_MS\n");
		return 2;
	}
	long hold = workload_arg_long(argv[1], 0, 1L << 16, "HOLD_MIB");
	long file_mib = workload_arg_long(argv[2], 1, 1L << 16, "FILE_MIB");
	long rounds = workload_arg_long(argv[3], 1, 10000, "ROUNDS");
	long top_ms = workload_arg_long(argv[4], 0, 600000, "TOP_MS");
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	snprintf(path, sizeof(path), "%s/filetop.XXXXXX", dir);
	int fd = mkstemp(path);
	int ready[2], until[2];
	if (fd < 0 || pipe(ready) < 0 || pipe(until) < 0) {
		perror("filetop: file or pipe");
		return 1;
	}
	if (workload_write_ones(fd, file_mib) < 0)
		return 1;
	pid_t h = fork();
	if (h == 0) {
		close(until[1]);
		holder(hold, ready[1], until[0]);
	}
	close(until[0]);
	close(ready[1]); /* a holder that failed: EOF, not a wait forever */
	char b;
	int ok = h > 0 && read(ready[0], &b, 1) == 1;
	for (long r = 0; ok && r < rounds; r++) {
		ok = run_round(fd, file_mib, top_ms) == 0;
		workload_sleep_ms(23 + (r * 37) % 49);
	}
	close(until[1]);
	int status;
	if (h > 0 && (workload_wait(h, &status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)))
		ok = 0;
	unlink(path);
	fprintf(stderr, "filetop: peak %llu KiB\n", (unsigned long long)(hold + file_mib) * 1024ull);
	return ok ? 0 : 1;
}
