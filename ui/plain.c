/* plain.c: waiting for a run without a dashboard (plain.h). */
#include "plain.h"

#include "run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

void plain_wait(struct run *r, int sig_fd)
{
	int attached = run_source(r) == RUN_ATTACHED;
	/* a pty (the dashboard could not start) is copied to stdout, so the
	 * command never blocks on a full pty */
	struct pollfd pf[3] = {{.fd = run_notify_fd(r), .events = POLLIN},
			       {.fd = sig_fd, .events = POLLIN},
			       {.fd = run_pty(r), .events = POLLIN}};
	int out_gone = 0;

	while (!run_finished(r)) {
		if (poll(pf, 3, 1000) < 0 && errno != EINTR)
			break;
		if (pf[2].revents & (POLLIN | POLLHUP)) {
			char buf[4096];
			ssize_t n = read(pf[2].fd, buf, sizeof(buf));
			if (n > 0 && !out_gone && write(STDOUT_FILENO, buf, (size_t)n) < 0)
				out_gone = 1; /* stdout gone: keep draining into nothing */
			if (n > 0)
				run_output(r, buf, (size_t)n);
			if (n <= 0)
				pf[2].fd = -1;
		}
		if (pf[0].revents & POLLIN)
			run_notify_clear(r);
		if (pf[1].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(sig_fd, &si, sizeof(si)) != sizeof(si))
				continue;
			int sig = (int)si.ssi_signo;
			if (attached && sig != SIGUSR1 && sig != SIGUSR2)
				return; /* detach: the caller's run_stop ends the run */
			if (!attached && sig != SIGINT && sig != SIGQUIT)
				run_signal(r, sig);
		}
	}
}
