/* run.c: a run's sequencing and state, whatever its source (run.h). */
#include "run.h"

#include "moment.h"

#include "clockns.h"
#include "collector.h"
#include "recdb.h"
#include "peakmaps.h"
#include "recorder.h"
#include "rsstrace.h"
#include "taskstats.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* taskstats' receive buffer: a burst of exits must not overrun it. */
#define RUN_TS_RCVBUF (16 * 1024 * 1024)
/* A followed recording with nothing new for this long has stopped (a live one
 * writes every second). */
#define RUN_FOLLOW_STALE_NS (5 * 1000000000ull)
/* The recording's final write gets this long after the run's end. */
#define RUN_RECORD_DEADLINE_MS 2000
/* An output line longer than this is recorded in pieces. */
#define RUN_LINE_MAX 4096
/* Per-process samples a recorded run's store keeps between two writes. */

struct run {
	struct run_config cfg;
	struct store *st;
	struct collector *col;
	struct spawn sp;
	int nl; /* the collector follows netlink events (else it polls /proc) */
	int started;
	/* the recording (rec NULL: none) */
	struct recdb *db;
	struct recorder *rec;
	int64_t rec_id;
	int rec_err, rec_pruned;
	uint64_t out_unrecorded; /* output lines the recording lacks, once it is closed */
	char rec_msg[320];
	struct recdb_follow fol; /* a recorded run still being recorded: followed */
	struct peakmaps *pm;     /* the peak's maps (a recorded run's, or read as it goes) */
	int following;
	char line[RUN_LINE_MAX]; /* the output line being assembled */
	size_t line_len;
	int line_split;          /* a piece of RUN_LINE_MAX bytes was just written */
	uint64_t line_t_ns;      /* when its first byte came */
};

void run_sockets_open(struct run_sockets *s, int rcvbuf, int force)
{
	memset(s, 0, sizeof(*s));
	s->nl_quiet_fd = -1;
	int fd = nlproc_open_split(rcvbuf, force, &s->nl_quiet_fd, &s->ni);
	s->nl_fd = fd >= 0 ? fd : -1;
	s->nl_err = fd >= 0 ? 0 : fd;
	/* exact per-process figures at exit; needs CAP_NET_ADMIN */
	fd = taskstats_open(RUN_TS_RCVBUF, force, &s->ts_family);
	s->ts_fd = fd >= 0 ? fd : -1;
	socklen_t sl = sizeof(s->ts_rcvbuf_bytes);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &s->ts_rcvbuf_bytes, &sl) < 0)
		s->ts_rcvbuf_bytes = 0;
	s->ts_err = fd >= 0 ? 0 : fd;
	/* the tree's RSS changes, for the processes this thread forks from now
	 * on: needs CAP_PERFMON */
	s->rss = rsstrace_open();
	s->rss_err = s->rss ? 0 : -errno;
}

void run_sockets_close(struct run_sockets *s, int err)
{
	if (s->ts_fd >= 0)
		taskstats_close(s->ts_fd, s->ts_family);
	if (s->nl_fd >= 0)
		nlproc_close(s->nl_fd);
	if (s->nl_quiet_fd >= 0)
		nlproc_close(s->nl_quiet_fd);
	rsstrace_close(s->rss);
	s->rss = NULL;
	s->nl_fd = s->nl_quiet_fd = s->ts_fd = -1;
	s->nl_err = s->ts_err = s->rss_err = err;
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
		.nl_quiet_fd = s->nl_quiet_fd, .ts_fd = s->ts_fd, .ts_family = s->ts_family, .rss = s->rss,
		.root_argv = spawned ? cfg->argv : NULL, .wait_tree = spawned && cfg->wait_tree,
		/* orphans of the tree become ours: followed, counted, reaped (an
		 * attached tree's orphans go to whoever reaps them now) */
		.subreaper = spawned && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0,
		.proc_samples = 1,
		.notify_end = cfg->notify_end, .test_lose_forks = cfg->test_lose_forks,
		.test_lose_exits = cfg->test_lose_exits};
	r->nl = s->nl_fd >= 0;
	errno = 0;
	/* per-process samples, for the processes at any instant (moment.h) and
	 * the recording: room for a few seconds' worth of thousands of live
	 * processes between two writes */
	struct store_config sc = {.proc_samples_len = RUN_PROC_SAMPLES};
	/* a recording keeps the maps of the peak's largest processes */
	if (cfg->record_path && !(r->pm = peakmaps_new(NULL, RUN_PEAKMAPS_SHARE, 1)))
		r->pm = NULL; /* no thread for it: the run goes on without them */
	cc.peakmaps = r->pm;
	r->st = store_new(&sc);
	if (r->st)
		r->col = collector_new(r->st, &cc);
	else
		run_sockets_close(s, -ENOMEM); /* never handed over */
	if (cfg->socks) /* the collector owns them now (or they were closed) */
		*cfg->socks = (struct run_sockets){.nl_fd = -1, .nl_quiet_fd = -1, .ts_fd = -1, .rss = NULL};
	if (!r->col) {
		int e = errno > 0 ? errno : ENOMEM;
		run_free(r);
		errno = e;
		return NULL;
	}
	return r;
}

/* A failure to record: the run goes on unrecorded, the reason kept for the
 * caller. */
static void run_record_fail(struct run *r, int e, const char *msg)
{
	r->rec_err = e;
	/* the recording named by --record stops the run: said so by the caller */
	snprintf(r->rec_msg, sizeof(r->rec_msg), "%s%s",
		 r->cfg.record_default || r->started ? "not recording: " : "cannot record into ",
		 msg && msg[0] ? msg : strerror(-e));
	recdb_close(r->db);
	r->db = NULL;
	r->rec_id = 0;
}

/* Opens the recording before the command starts (so a bad file is known
 * first). */
static void run_record_open(struct run *r)
{
	char msg[256] = "";
	int e;

	if (!r->cfg.record_path)
		return;
	if ((e = recdb_open(r->cfg.record_path, r->cfg.record_default ? RECDB_PRIVATE : 0, &r->db, msg,
			    sizeof(msg))) < 0) {
		run_record_fail(r, e, msg);
		return;
	}
}

/* Whether the run must stop before its command runs: the recording asked
 * for by name could not be opened. */
static int run_record_refused(const struct run *r)
{
	return r->cfg.record_path && !r->cfg.record_default && !r->db;
}

/* Begins the run in the recording (t0_ns: its start) and starts the
 * recorder thread. */
static void run_record_begin(struct run *r, uint64_t t0_ns)
{
	char msg[256] = "", argv[8192], cwd[4096], host[256];
	size_t len = 0;
	int e;

	if (!r->db)
		return;
	char *const *av = r->cfg.argv;
	for (size_t i = 0; av && av[i]; i++) {
		size_t n = strlen(av[i]) + 1;
		if (len + n > sizeof(argv))
			break;
		memcpy(argv + len, av[i], n);
		len += n;
	}
	struct recdb_run_info info = {.start_wall_ns = clockns_of(CLOCK_REALTIME) - (run_now_ns() - t0_ns),
				      .base_ns = t0_ns, .argv = len ? argv : NULL, .argv_len = len,
				      .cwd = getcwd(cwd, sizeof(cwd)),
				      .host = gethostname(host, sizeof(host)) == 0 ? host : NULL,
				      .attached = r->cfg.source == RUN_ATTACHED,
				      .labels = r->cfg.labels, .nlabels = r->cfg.nlabels};
	host[sizeof(host) - 1] = 0;
	if ((e = recdb_run_begin(r->db, &info, &r->rec_id)) < 0) {
		snprintf(msg, sizeof(msg), "%s", recdb_errmsg(r->db));
		goto fail;
	}
	/* bounded: the oldest runs go first (this one, the newest, never) */
	if (r->cfg.record_keep || r->cfg.record_max_bytes) {
		e = recdb_prune(r->db, r->cfg.record_keep, r->cfg.record_max_bytes);
		r->rec_pruned = e > 0 ? e : 0;
	}
	/* the writer thread inherits this thread's nice level: the user's, not
	 * the collector's boost */
	if (r->cfg.reset_nice)
		setpriority(PRIO_PROCESS, (id_t)gettid(), r->cfg.nice);
	struct recorder_config rc = {.peakmaps = r->pm};
	if (!(r->rec = recorder_start(r->st, r->db, r->rec_id, &rc))) {
		e = -errno;
		snprintf(msg, sizeof(msg), "cannot start the recorder: %s", strerror(errno));
		recdb_run_finish(r->db, r->rec_id, NULL, RECDB_END_FAILED, 1, msg);
		goto fail;
	}
	return;
fail:
	run_record_fail(r, e, msg);
}

/* Ends the recording: the rest of the data, the final summary and how the
 * run ended; the one line of a failure is kept. */
static void run_line(struct run *r, const char *bytes, size_t len);

static void run_record_end(struct run *r)
{
	if (r->line_len) { /* a last line without its newline */
		run_line(r, r->line, r->line_len);
		r->line_len = 0;
	}
	if (!r->rec) {
		recdb_close(r->db);
		r->db = NULL;
		return;
	}
	if (r->pm) /* a map being read of the last peak goes into the last write */
		peakmaps_drain(r->pm);
	enum run_state st = run_state(r);
	enum recdb_end end = st == RUN_DETACHED ? RECDB_END_DETACHED
			     : st == RUN_ENDED  ? RECDB_END_EXITED
						: RECDB_END_INTERRUPTED;
	uint64_t wait_ns = (uint64_t)(r->cfg.record_deadline_ms ? r->cfg.record_deadline_ms
								: RUN_RECORD_DEADLINE_MS) * 1000000ull;
	int e = recorder_finish_by(r->rec, end, run_now_ns() + wait_ns, r->cfg.record_cancel_fd);
	if (e < 0) {
		char msg[256];
		recorder_error(r->rec, msg, sizeof(msg));
		r->rec_err = e;
		snprintf(r->rec_msg, sizeof(r->rec_msg), "the recording of run %lld is incomplete: %s",
			 (long long)r->rec_id, msg);
	}
	r->out_unrecorded = run_output_unrecorded(r, NULL, 0);
	int left = recorder_abandoned(r->rec); /* its thread may still use the database */
	recorder_free(r->rec);
	r->rec = NULL;
	if (!left)
		recdb_close(r->db);
	r->db = NULL;
}

/* A line of the command's output (without its newline), printed from
 * t_ns: into the store, and the recording. */
static void run_line(struct run *r, const char *bytes, size_t len)
{
	store_push_line(r->st, r->line_t_ns, bytes, len);
	if (r->rec)
		recorder_output(r->rec, r->line_t_ns, bytes, len);
}

void run_output(struct run *r, const char *bytes, size_t len)
{
	uint64_t now = run_now_ns();
	for (size_t i = 0; i < len; i++) {
		char c = bytes[i];
		if (!r->line_len)
			r->line_t_ns = now;
		if (c == '\n') {
			size_t n = r->line_len;
			if (n && r->line[n - 1] == '\r')
				n--; /* a pty's CR LF */
			if (n || !r->line_split) /* not the end of a line already written in pieces */
				run_line(r, r->line, n);
			r->line_len = 0;
			r->line_split = 0;
			continue;
		}
		r->line[r->line_len++] = c;
		r->line_split = 0;
		if (r->line_len == sizeof(r->line)) {
			run_line(r, r->line, r->line_len);
			r->line_len = 0;
			r->line_split = 1;
		}
	}
}

int64_t run_recording(struct run *r, char *msg, size_t cap, int *pruned)
{
	if (msg && cap)
		snprintf(msg, cap, "%s", r->rec_msg);
	if (pruned)
		*pruned = r->rec_pruned;
	return r->rec_err < 0 ? r->rec_err : r->rec_id;
}

uint64_t run_output_unrecorded(struct run *r, char *msg, size_t cap)
{
	struct recorder_stats st;

	if (msg && cap)
		msg[0] = '\0';
	if (!r->rec)
		return r->out_unrecorded;
	if (msg)
		recorder_error(r->rec, msg, cap);
	recorder_stats(r->rec, &st);
	return st.lines_dropped;
}

/* Forks the command held, starts the collector before its release when
 * events are followed (its first exec is then seen) and after it when /proc
 * is polled (the tree then has something to poll). */
static int run_spawn(struct run *r, const struct spawn_opts *so, uint64_t t0, enum run_fail *fail)
{
	int e;

	if ((e = spawn_start(&r->sp, r->cfg.argv, so)) < 0) {
		*fail = RUN_FAIL_SPAWN;
		return e;
	}
	/* The recording is opened once the child is forked, before the command
	 * runs (a bad file is still known first): memory written before a fork
	 * is write-protected by it, and SQLite's, written again all along, took
	 * a fault per page after (~50 a run, ~16 us each here). */
	run_record_open(r);
	if (run_record_refused(r)) {
		e = r->rec_err;
		*fail = RUN_FAIL_RECORD;
		goto stop; /* held: it never ran */
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
stop:
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
	uint64_t t0 = r->cfg.start_ns ? r->cfg.start_ns : run_now_ns();
	if (r->cfg.source == RUN_SPAWNED) {
		e = run_spawn(r, so, t0, fail); /* opens the recording */
	} else {
		run_record_open(r);
		/* the running tree: found by one scan after the subscription,
		 * then followed by events (or polling) */
		if (run_record_refused(r)) {
			e = r->rec_err;
			*fail = RUN_FAIL_RECORD;
		} else if ((e = collector_attach(r->col, r->cfg.pids, r->cfg.npids, t0)) < 0) {
			*fail = e == -ESRCH ? RUN_FAIL_GONE : RUN_FAIL_COLLECTOR;
		} else {
			r->started = 1;
		}
	}
	/* recorded from the start (a command that could not start is not a run) */
	if (e == 0)
		run_record_begin(r, t0);
	else {
		recdb_close(r->db);
		r->db = NULL;
	}
	return e;
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
	if (r->following)
		return RUN_RUNNING;
	if (!r->col || collector_finished(r->col)) { /* a recording is over */
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
	return r->started && !r->following && (!r->col || collector_finished(r->col));
}

struct store *run_store(const struct run *r)
{
	return r->st;
}

int run_notify_fd(const struct run *r)
{
	return r->col ? collector_notify_fd(r->col) : -1;
}

void run_notify_clear(const struct run *r)
{
	uint64_t x;

	if (r->col && read(collector_notify_fd(r->col), &x, sizeof(x)) < 0) {
		/* nothing pending */
	}
}

int run_pty(const struct run *r)
{
	return r->sp.pty_master;
}

int run_signal_proc(struct run *r, pid_t pid, int sig)
{
	if (r->cfg.source != RUN_SPAWNED)
		return -EPERM;
	if (pid <= 0 || !r->started || collector_finished(r->col))
		return -ESRCH;
	size_t n = store_procs(r->st, STORE_PROCS_LIVE, NULL, 0), k;
	struct proc_rec *p = n ? calloc(n, sizeof(*p)) : NULL;
	int found = 0;
	if (n && !p)
		return -ENOMEM;
	n = store_procs(r->st, STORE_PROCS_LIVE, p, n);
	for (k = 0; k < n && !found; k++)
		found = p[k].pid == pid && !p[k].end_ns;
	free(p);
	if (!found)
		return -ESRCH;
	return kill(pid, sig) < 0 ? -errno : 0;
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
	if (r->col)
		collector_stop(r->col);
	run_record_end(r);
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

struct run *run_new_recorded(struct store *st, struct recdb *db, int64_t run_id)
{
	struct run *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->cfg.source = RUN_RECORDED;
	r->st = st;
	r->db = db;
	r->rec_id = run_id;
	r->started = 1;
	r->sp = (struct spawn){.pid = -1, .pidfd = -1, .pty_master = -1, .go_fd = -1, .err_fd = -1};
	/* its peak's maps, when it kept them (a damaged table: none) */
	struct peakmaps_row *rows;
	ssize_t n = recdb_peak_maps(db, run_id, &rows);
	if ((r->pm = peakmaps_new(NULL, 0, 0)) && n > 0)
		peakmaps_set(r->pm, rows, (size_t)n);
	free(rows);
	return r;
}

struct peakmaps *run_peakmaps(const struct run *r)
{
	return r->pm;
}

int run_recording_live(uint64_t updated_wall_ns)
{
	uint64_t wall = clockns_of(CLOCK_REALTIME);

	return updated_wall_ns && wall <= updated_wall_ns + RUN_FOLLOW_STALE_NS;
}

int run_follow(struct run *r)
{
	int e;

	if (r->cfg.source != RUN_RECORDED || !r->db)
		return -ENOTSUP;
	if (!r->fol.started)
		r->following = 1;
	if (!r->following)
		return 0;
	if ((e = recdb_follow(r->db, r->rec_id, r->st, &r->fol)) < 0)
		return e;
	/* over: finished in the file, or not written for a while (the
	 * spacetime recording it was killed: a live one writes every second,
	 * whatever its sampling interval) */
	if (r->fol.ended || !run_recording_live(r->fol.updated_wall_ns))
		r->following = 0;
	return e;
}

const char *run_errmsg(struct run *r)
{
	return r->db ? recdb_errmsg(r->db) : "not a recorded run";
}

int run_following(const struct run *r)
{
	return r->following;
}

int run_moment(struct run *r, uint64_t t_ns, uint64_t out_ns, size_t max_lines, struct moment *m)
{
	return moment_take(r->st, t_ns, out_ns, max_lines, m);
}

void run_free(struct run *r)
{
	if (!r)
		return;
	collector_free(r->col);
	run_record_end(r); /* after the collector: the final summary is written */
	peakmaps_free(r->pm);
	store_free(r->st);
	spawn_close(&r->sp);
	free(r);
}

uint64_t run_now_ns(void)
{
	return clockns_now();
}
