/* run.c: a run's sequencing and state, whatever its source (run.h). */
#include "run.h"

#include "clockns.h"
#include "collector.h"
#include "taskstats.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* taskstats' receive buffer: a burst of exits must not overrun it. */
#define RUN_TS_RCVBUF (16 * 1024 * 1024)

struct run {
	struct run_config cfg;
	struct store *st;
	struct collector *col;
	struct spawn sp;
	int nl; /* the collector follows netlink events (else it polls /proc) */
	int started;
};

void run_sockets_open(struct run_sockets *s, int rcvbuf)
{
	memset(s, 0, sizeof(*s));
	s->nl_quiet_fd = -1;
	int fd = nlproc_open_split(rcvbuf, &s->nl_quiet_fd, &s->ni);
	s->nl_fd = fd >= 0 ? fd : -1;
	s->nl_err = fd >= 0 ? 0 : fd;
	/* exact per-process figures at exit; needs CAP_NET_ADMIN */
	fd = taskstats_open(RUN_TS_RCVBUF, &s->ts_family);
	s->ts_fd = fd >= 0 ? fd : -1;
	s->ts_err = fd >= 0 ? 0 : fd;
}

void run_sockets_close(struct run_sockets *s, int err)
{
	if (s->ts_fd >= 0)
		taskstats_close(s->ts_fd, s->ts_family);
	if (s->nl_fd >= 0)
		nlproc_close(s->nl_fd);
	if (s->nl_quiet_fd >= 0)
		nlproc_close(s->nl_quiet_fd);
	s->nl_fd = s->nl_quiet_fd = s->ts_fd = -1;
	s->nl_err = s->ts_err = err;
	memset(&s->ni, 0, sizeof(s->ni));
}

const char *run_nl_reason(int err, int by_option)
{
	static char buf[128];

	if (by_option)
		return "--no-netlink";
	if (err == -EPERM || err == -EACCES)
		return "netlink process events need CAP_NET_ADMIN (run `make setcap` or use sudo)";
	if (err == -EOPNOTSUPP || err == -ECONNREFUSED)
		return "the kernel ignores process-event subscriptions here (a container or namespace)";
	snprintf(buf, sizeof(buf), "netlink process events unavailable (%s)", strerror(-err));
	return buf;
}

const char *run_ts_reason(int err, int by_option)
{
	if (by_option)
		return "--no-netlink";
	if (err == -EPERM || err == -EACCES)
		return "taskstats needs CAP_NET_ADMIN (`make setcap` or sudo)";
	if (err == -EOPNOTSUPP || err == -ENOENT)
		return "the kernel offers no taskstats here (a container or namespace, or a kernel without it)";
	return strerror(-err);
}

struct run *run_new(const struct run_config *cfg)
{
	if (!cfg || (cfg->source != RUN_SPAWNED && cfg->source != RUN_ATTACHED) ||
	    (cfg->source == RUN_SPAWNED && (!cfg->argv || !cfg->argv[0])) ||
	    (cfg->source == RUN_ATTACHED && (!cfg->npids || cfg->npids > STORE_ATTACH_MAX))) {
		errno = EINVAL;
		return NULL;
	}
	struct run *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->cfg = *cfg;
	r->cfg.socks = NULL;
	r->sp = (struct spawn){.pid = -1, .pidfd = -1, .pty_master = -1, .go_fd = -1, .err_fd = -1};
	struct run_sockets none = {.nl_fd = -1, .nl_quiet_fd = -1, .ts_fd = -1};
	struct run_sockets *s = cfg->socks ? cfg->socks : &none;
	int spawned = cfg->source == RUN_SPAWNED;
	struct collector_config cc = {
		.interval_ms = cfg->interval_ms, .budget = cfg->budget, .nl_fd = s->nl_fd,
		.nl_quiet_fd = s->nl_quiet_fd, .ts_fd = s->ts_fd, .ts_family = s->ts_family,
		.root_argv = spawned ? cfg->argv : NULL, .wait_tree = spawned && cfg->wait_tree,
		/* orphans of the tree become ours: followed, counted, reaped (an
		 * attached tree's orphans go to whoever reaps them now) */
		.subreaper = spawned && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0,
		.notify_end = cfg->notify_end, .test_lose_forks = cfg->test_lose_forks,
		.test_lose_exits = cfg->test_lose_exits};
	r->nl = s->nl_fd >= 0;
	r->st = store_new(NULL);
	if (r->st)
		r->col = collector_new(r->st, &cc);
	else
		run_sockets_close(s, -ENOMEM); /* never handed over */
	if (cfg->socks) /* the collector owns them now (or they were closed) */
		*cfg->socks = (struct run_sockets){.nl_fd = -1, .nl_quiet_fd = -1, .ts_fd = -1};
	if (!r->col) {
		int e = errno ? errno : ENOMEM;
		run_free(r);
		errno = e;
		return NULL;
	}
	return r;
}

/* Forks the command held, starts the collector before its release when
 * events are followed (its first exec is then seen) and after it when /proc
 * is polled (the tree then has something to poll). */
static int run_spawn(struct run *r, const struct spawn_opts *so, enum run_fail *fail)
{
	uint64_t t0 = r->cfg.start_ns ? r->cfg.start_ns : run_now_ns();
	int e;

	if ((e = spawn_start(&r->sp, r->cfg.argv, so)) < 0) {
		*fail = RUN_FAIL_SPAWN;
		return e;
	}
	if (r->nl && (e = collector_start(r->col, r->sp.pid, r->sp.pidfd, t0)) < 0)
		goto kill; /* the command has not run yet: stop it before it does */
	r->started = r->nl;
	if ((e = spawn_release(&r->sp)) < 0) {
		*fail = RUN_FAIL_EXEC;
		return e; /* the child has exited; the collector reaps it */
	}
	if (!r->nl && (e = collector_start(r->col, r->sp.pid, r->sp.pidfd, t0)) < 0)
		goto kill;
	r->started = 1;
	return 0;
kill:
	*fail = RUN_FAIL_COLLECTOR;
	kill(r->sp.pid, SIGKILL);
	waitpid(r->sp.pid, NULL, 0);
	return e;
}

int run_start(struct run *r, const struct spawn_opts *so, enum run_fail *fail)
{
	enum run_fail none;
	int e;

	if (!fail)
		fail = &none;
	*fail = RUN_FAIL_NONE;
	if (r->started)
		return -EALREADY;
	if (r->cfg.source == RUN_SPAWNED)
		return run_spawn(r, so, fail);
	/* the running tree: found by one scan after the subscription, then
	 * followed by events (or polling) */
	if ((e = collector_attach(r->col, r->cfg.pids, r->cfg.npids,
				  r->cfg.start_ns ? r->cfg.start_ns : run_now_ns())) < 0) {
		*fail = e == -ESRCH ? RUN_FAIL_GONE : RUN_FAIL_COLLECTOR;
		return e;
	}
	r->started = 1;
	return 0;
}

enum run_source run_source(const struct run *r)
{
	return r->cfg.source;
}

enum run_state run_state(struct run *r)
{
	struct store_summary s;

	if (!r->started)
		return RUN_STARTING;
	if (collector_finished(r->col)) {
		store_summary_get(r->st, &s);
		return s.detached ? RUN_DETACHED : RUN_ENDED;
	}
	if (r->cfg.source == RUN_SPAWNED) {
		store_summary_get(r->st, &s);
		if (s.root_end_ns)
			return RUN_ROOT_EXITED;
	}
	return RUN_RUNNING;
}

int run_finished(struct run *r)
{
	return r->started && collector_finished(r->col);
}

struct store *run_store(const struct run *r)
{
	return r->st;
}

int run_notify_fd(const struct run *r)
{
	return collector_notify_fd(r->col);
}

void run_notify_clear(const struct run *r)
{
	uint64_t x;

	if (read(collector_notify_fd(r->col), &x, sizeof(x)) < 0) {
		/* nothing pending */
	}
}

int run_pty(const struct run *r)
{
	return r->sp.pty_master;
}

int run_signal(struct run *r, int sig)
{
	if (r->cfg.source != RUN_SPAWNED)
		return -EPERM;
	if (r->sp.pid <= 0 || !r->started || collector_finished(r->col))
		return -ESRCH;
	return spawn_signal(&r->sp, sig);
}

void run_detach(struct run *r)
{
	if (r->cfg.source == RUN_ATTACHED && r->started && !collector_finished(r->col))
		collector_detach(r->col);
}

void run_stop(struct run *r)
{
	run_detach(r);
	collector_stop(r->col);
}

int run_exit_status(struct run *r)
{
	struct store_summary s;

	if (r->cfg.source == RUN_ATTACHED)
		return 0;
	store_summary_get(r->st, &s);
	if (!s.exited)
		return -ENOENT;
	return spawn_exit_code(s.wait_status);
}

void run_free(struct run *r)
{
	if (!r)
		return;
	collector_free(r->col);
	store_free(r->st);
	spawn_close(&r->sp);
	free(r);
}

uint64_t run_now_ns(void)
{
	return clockns_now();
}
