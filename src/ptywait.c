/* ptywait: whether the command sits waiting for a person to type. */
#include "ptywait.h"

#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

int ptywait_parse_syscall(const char *buf, size_t len, long *nr, unsigned long long *arg1)
{
	char tmp[256];
	char *end, *p;

	if (!buf || len == 0)
		return -EINVAL;
	if (len >= sizeof(tmp))
		len = sizeof(tmp) - 1;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	errno = 0;
	long n = strtol(tmp, &end, 10);
	if (end == tmp || errno || n < 0 || *end != ' ')
		return -EINVAL; /* "running", or "-1 SP PC": not in a syscall */
	p = end + 1;
	if (strncmp(p, "0x", 2) != 0)
		return -EINVAL;
	unsigned long long a = strtoull(p + 2, &end, 16);
	if (end == p + 2 || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -EINVAL;
	*nr = n;
	*arg1 = a;
	return 0;
}

/* Whether process pid is blocked in read(2) on an fd that is the terminal
 * whose device number is tty_rdev. */
static int reads_tty(pid_t pid, dev_t tty_rdev)
{
	char buf[1024], path[64];
	long nr;
	unsigned long long fd;
	struct stat st;
	ssize_t n = procfs_read(pid, "syscall", buf, sizeof(buf));

	if (n <= 0 || ptywait_parse_syscall(buf, (size_t)n, &nr, &fd) < 0)
		return 0;
	if (nr != SYS_read || fd > 1u << 20)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/fd/%llu", (int)pid, fd);
	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
		return 0;
	if (st.st_rdev == tty_rdev)
		return 1;
	/* /dev/tty (a password prompt: sudo, ssh, git): the process's
	 * controlling terminal, if that is the pty */
	if (st.st_rdev != makedev(5, 0))
		return 0;
	struct procfs_stat ps;
	n = procfs_read(pid, "stat", buf, sizeof(buf));
	return n > 0 && procfs_parse_stat(buf, (size_t)n, &ps) == 0 && (dev_t)ps.tty_nr == tty_rdev;
}

/* Whether pid, not fg itself, is of process group fg and blocked reading the
 * terminal tty_rdev. */
static int member_reads_tty(pid_t pid, pid_t fg, dev_t tty_rdev)
{
	char buf[1024];
	struct procfs_stat ps;

	if (pid <= 0 || pid == fg)
		return 0;
	ssize_t n = procfs_read(pid, "stat", buf, sizeof(buf));
	if (n <= 0 || procfs_parse_stat(buf, (size_t)n, &ps) < 0 || ps.pgrp != fg)
		return 0;
	return reads_tty(pid, tty_rdev);
}

pid_t ptywait_reader(int pty_master, const pid_t *pids, size_t npids)
{
	char name[64];
	struct stat st;
	pid_t fg, found = 0;
	int ptn;
	DIR *d;
	struct dirent *de;

	if (ioctl(pty_master, TIOCGPTN, &ptn) < 0)
		return -errno;
	snprintf(name, sizeof(name), "/dev/pts/%d", ptn);
	if (stat(name, &st) < 0)
		return -errno;
	fg = tcgetpgrp(pty_master);
	if (fg <= 0)
		return -ENOTTY;
	/* the group's leader first: it is the usual reader (a shell's read) */
	if (reads_tty(fg, st.st_rdev))
		return fg;
	if (pids) {
		for (size_t i = 0; i < npids; i++)
			if (member_reads_tty(pids[i], fg, st.st_rdev))
				return pids[i];
		return 0;
	}
	if (!(d = opendir("/proc")))
		return -errno;
	while (!found && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (!*end && pid > 0 && pid <= INT_MAX && member_reads_tty((pid_t)pid, fg, st.st_rdev))
			found = (pid_t)pid;
	}
	closedir(d);
	return found;
}
