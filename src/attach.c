/* attach.c: checks and names processes spacetime -p attaches to. */
#include "attach.h"

#include "procfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ATTACH_CMDLINE_MAX (64 * 1024)

/* Reads "Tgid:" and the real "Uid:" from /proc/PID/status (readable by
 * anyone, unlike the memory files). */
static int read_status(pid_t pid, struct attach_info *ai, char *state)
{
	char buf[4096];
	ssize_t n = procfs_read(pid, "status", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	buf[n < (ssize_t)sizeof(buf) ? n : (ssize_t)sizeof(buf) - 1] = '\0';
	const char *t = strstr(buf, "\nTgid:"), *u = strstr(buf, "\nUid:"), *s = strstr(buf, "\nState:");
	if (!t || !u)
		return -EINVAL;
	ai->tgid = (pid_t)strtol(t + 6, NULL, 10);
	ai->uid = (uid_t)strtoul(u + 5, NULL, 10);
	*state = '?';
	if (s) {
		for (s += 7; *s == ' ' || *s == '\t'; s++)
			;
		*state = *s;
	}
	return 0;
}

int attach_check(pid_t pid, struct attach_info *ai)
{
	char state;
	int r;

	memset(ai, 0, sizeof(*ai));
	if (pid <= 0)
		return -ESRCH;
	if ((r = read_status(pid, ai, &state)) < 0)
		return r == -ENOENT ? -ESRCH : r;
	if (state == 'Z' || state == 'X')
		return -ESRCH; /* it has ended: nothing to watch */
	if (ai->tgid != pid)
		return -EISDIR; /* /proc/TID answers for a thread too */
	/* The check the kernel makes for smaps_rollup (PTRACE_MODE_READ) is made
	 * at open. A kernel thread has no memory and opens fine. */
	int fd = procfs_open(pid, 0, "smaps_rollup");
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd == -EPERM ? -EACCES : fd;
	close(fd);
	return 0;
}

char **attach_argv(pid_t pid)
{
	char *buf = malloc(ATTACH_CMDLINE_MAX);
	ssize_t n = buf ? procfs_read(pid, "cmdline", buf, ATTACH_CMDLINE_MAX) : -ENOMEM;
	size_t argc = 0;

	if (n <= 0 && buf) {
		/* no command line (a kernel thread, or exiting): its name */
		struct procfs_stat ps;
		ssize_t k = procfs_read(pid, "stat", buf, ATTACH_CMDLINE_MAX);
		if (k <= 0 || procfs_parse_stat(buf, (size_t)k, &ps) < 0) {
			free(buf);
			return NULL;
		}
		n = snprintf(buf, ATTACH_CMDLINE_MAX, "[%.16s]", ps.comm) + 1;
	}
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	if (buf[n - 1] != '\0')
		buf[n < ATTACH_CMDLINE_MAX ? n++ : n - 1] = '\0';
	for (ssize_t i = 0; i < n; i++)
		argc += buf[i] == '\0';
	/* the pointers first, then the strings, in one block */
	char **argv = malloc((argc + 1) * sizeof(*argv) + (size_t)n);
	if (!argv) {
		free(buf);
		return NULL;
	}
	char *strs = (char *)(argv + argc + 1);
	memcpy(strs, buf, (size_t)n);
	free(buf);
	size_t k = 0;
	for (ssize_t i = 0; i < n && k < argc; i += (ssize_t)strlen(strs + i) + 1)
		argv[k++] = strs + i;
	argv[k] = NULL;
	return argv;
}

int attach_is_ancestor(pid_t pid)
{
	char buf[1024];
	pid_t cur = getppid();

	/* a chain of parents ends at 0 (init's) within pid_max steps; a loop
	 * cannot be, but a bound costs nothing */
	for (int i = 0; cur > 0 && i < 4096; i++) {
		struct procfs_stat ps;
		if (cur == pid)
			return 1;
		ssize_t k = procfs_read(cur, "stat", buf, sizeof(buf));
		if (k <= 0 || procfs_parse_stat(buf, (size_t)k, &ps) < 0)
			return 0;
		cur = ps.ppid;
	}
	return 0;
}

int attach_pgid(pid_t pgid, pid_t *pids, size_t *n, size_t cap)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char buf[1024];
	struct member {
		pid_t pid, ppid;
	} *m = NULL;
	size_t nm = 0, mcap = 0;
	int added = 0, r = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct procfs_stat ps;
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid == getpid())
			continue;
		ssize_t k = procfs_read(pid, "stat", buf, sizeof(buf));
		if (k <= 0 || procfs_parse_stat(buf, (size_t)k, &ps) < 0 || ps.pgrp != pgid)
			continue;
		if (ps.state == 'Z' || ps.state == 'X' || attach_is_ancestor(pid))
			continue;
		if (nm == mcap) {
			size_t nc = mcap ? 2 * mcap : 64;
			struct member *x = realloc(m, nc * sizeof(*x));
			if (!x) {
				r = -ENOMEM;
				goto out;
			}
			m = x;
			mcap = nc;
		}
		m[nm++] = (struct member){pid, ps.ppid};
	}
	/* only the group's tops: the others are their descendants, followed
	 * anyway (a make -j16's group holds hundreds) */
	for (size_t i = 0; i < nm; i++) {
		size_t j = 0;
		while (j < nm && m[j].pid != m[i].ppid)
			j++;
		if (j < nm)
			continue;
		if (*n == cap) {
			r = -ENOSPC;
			goto out;
		}
		pids[(*n)++] = m[i].pid;
		added++;
	}
	r = added;
out:
	closedir(d);
	free(m);
	return r;
}
