/* spawn.c: fork/exec of the command with privileges already dropped. */
#include "spawn.h"

#include "exitcode.h"

#include "caps.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* Opens a pty pair; returns the master fd and the slave path in name. */
static int pty_open(char *name, size_t cap, unsigned short rows, unsigned short cols)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (m < 0)
		return -errno;
	if (grantpt(m) || unlockpt(m) || ptsname_r(m, name, cap)) {
		int e = errno;
		close(m);
		return -e;
	}
	if (rows && cols) {
		struct winsize ws = {.ws_row = rows, .ws_col = cols};
		ioctl(m, TIOCSWINSZ, &ws);
	}
	return m;
}

/* Tells whether a file named name exists in some directory of $PATH. */
static int path_has(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", name) < (int)sizeof(buf) &&
		    access(buf, F_OK) == 0)
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}

/* The child: reset what it inherited, wait for the go signal, exec. Never
 * returns; an exec failure is written to errfd as an int. */
static void child_run(char *const argv[], int gofd, int errfd, const char *pty_name,
		      const struct spawn_opts *opts)
{
	sigset_t none;
	char c;
	int e;

	/* What spacetime changed goes back to what the command would have had:
	 * signals found ignored stay ignored (nohup), the rest default. */
	sigemptyset(&none);
	for (int s = 1; s < NSIG; s++)
		signal(s, opts && opts->ignored && sigismember(opts->ignored, s) == 1 ? SIG_IGN : SIG_DFL);
	sigprocmask(SIG_SETMASK, opts && opts->mask ? opts->mask : &none, NULL);
	caps_clear_inheritable();
	if (opts && opts->set_nice)
		setpriority(PRIO_PROCESS, 0, opts->nice);
	if (pty_name) {
		setsid();
		int s = open(pty_name, O_RDWR);
		if (s < 0)
			goto fail;
		ioctl(s, TIOCSCTTY, 0);
		dup2(s, 0);
		dup2(s, 1);
		dup2(s, 2);
		if (s > 2)
			close(s);
	}
	while (read(gofd, &c, 1) < 0 && errno == EINTR)
		;
	close(gofd);
	if (opts && opts->envp)
		execvpe(argv[0], argv, opts->envp);
	else
		execvp(argv[0], argv);
	e = errno;
	/* execvp says EACCES when a PATH directory is unsearchable even if the
	 * command is nowhere: a shell calls that "not found", and so do we. */
	if (e == EACCES && !strchr(argv[0], '/') && !path_has(argv[0]))
		e = ENOENT;
	goto report;
fail:
	e = errno;
report:
	while (write(errfd, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(127);
}

int spawn_secure_env_open(void)
{
	if (!getauxval(AT_SECURE))
		return -1;
	return open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
}

char **spawn_secure_env(int fd)
{
	size_t len = 0, cap = 64 * 1024, n = 0;
	char *buf = NULL, **env;
	ssize_t got;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (len + 1 >= cap || !buf) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				goto fail;
			buf = nb;
		}
		got = read(fd, buf + len, cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	fd = -1;
	buf[len] = '\0';
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		n++;
	/* one block: the pointers, then the strings */
	env = malloc((n + 1) * sizeof(char *) + len + 1);
	if (!env)
		goto fail;
	char *str = (char *)(env + n + 1);
	memcpy(str, buf, len + 1);
	free(buf);
	n = 0;
	for (size_t i = 0; i < len; i += strlen(str + i) + 1)
		env[n++] = str + i;
	env[n] = NULL;
	return env;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

int spawn_start(struct spawn *sp, char *const argv[], const struct spawn_opts *opts)
{
	int go[2] = {-1, -1}, err[2] = {-1, -1};
	char pty_name[128];
	int r;

	memset(sp, 0, sizeof(*sp));
	sp->pidfd = sp->pty_master = sp->go_fd = sp->err_fd = -1;
	if (opts && opts->use_pty) {
		sp->pty_master = pty_open(pty_name, sizeof(pty_name), opts->rows, opts->cols);
		if (sp->pty_master < 0)
			return sp->pty_master;
	}
	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		r = -errno;
		goto out;
	}
	sp->pid = fork();
	if (sp->pid < 0) {
		r = -errno;
		goto out;
	}
	if (sp->pid == 0) {
		close(go[1]);
		close(err[0]);
		child_run(argv, go[0], err[1], sp->pty_master >= 0 ? pty_name : NULL, opts);
	}
	close(go[0]);
	close(err[1]);
	sp->go_fd = go[1];
	sp->err_fd = err[0];
	sp->pidfd = (int)syscall(SYS_pidfd_open, sp->pid, 0);
	if (sp->pidfd >= 0)
		fcntl(sp->pidfd, F_SETFD, FD_CLOEXEC);
	return 0;
out:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	if (sp->pty_master >= 0)
		close(sp->pty_master);
	sp->pty_master = -1;
	return r;
}

int spawn_release(struct spawn *sp)
{
	int e = 0;
	ssize_t n;

	if (sp->go_fd >= 0) {
		close(sp->go_fd);
		sp->go_fd = -1;
	}
	do
		n = read(sp->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(sp->err_fd);
	sp->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? -e : 0;
}

int spawn_exit_code(int st)
{
	return exitcode_of(st);
}

int spawn_signal(const struct spawn *sp, int sig)
{
	if (sp->pid <= 0)
		return -ESRCH;
	if (sp->pty_master >= 0 && kill(-sp->pid, sig) == 0)
		return 0;
	return kill(sp->pid, sig) ? -errno : 0;
}

void spawn_close(struct spawn *sp)
{
	if (sp->pty_master >= 0)
		close(sp->pty_master);
	sp->pty_master = -1;
	if (sp->pidfd >= 0)
		close(sp->pidfd);
	if (sp->go_fd >= 0)
		close(sp->go_fd);
	if (sp->err_fd >= 0)
		close(sp->err_fd);
	sp->pidfd = sp->go_fd = sp->err_fd = -1;
}
