/* run: one run of spacetime, whatever feeds it. A run owns the store, the
 * collector and (for a spawned command) the command, and sequences them:
 * the netlink sockets are opened while privileged, the command is forked
 * held, the collector starts before its release when events are followed
 * (so its first exec is seen) and after it when /proc is polled. The front
 * ends (dashboard, summary, exports) read the store and ask the run for its
 * state, whatever its source: a command spawned, processes attached to, and
 * (later) a recording. */
#ifndef SPACETIME_RUN_H
#define SPACETIME_RUN_H

#include <stdint.h>
#include <sys/types.h>

#include "nlproc.h"
#include "spawn.h"
#include "store.h"

enum run_source {
	RUN_SPAWNED = 1, /* a command spacetime forked and waits for */
	RUN_ATTACHED,    /* running processes (spacetime -p): nothing is reaped or signalled */
	RUN_RECORDED,    /* a run read back from a recording: nothing runs */
};

enum run_state {
	RUN_STARTING,    /* created: nothing followed yet */
	RUN_RUNNING,     /* the command, or an attached process, is running */
	RUN_ROOT_EXITED, /* the command has ended and part of its tree goes on */
	RUN_ENDED,       /* over: the summary is final */
	RUN_DETACHED,    /* an attached run ended by a detach; its processes go on */
};

/* What is opened while privileged: the proc connector (one socket, or an
 * exec socket and a fork|exit one) and taskstats. An fd that could not be
 * opened is -1, and its *_err says why (-errno; 0 when open). */
struct run_sockets {
	int nl_fd, nl_quiet_fd, ts_fd;
	uint16_t ts_family;
	struct nlproc_info ni;
	int ts_rcvbuf_bytes; /* taskstats' receive buffer as the kernel set it */
	struct rsstrace *rss; /* the RSS trace (rsstrace.h), on the opening thread */
	int nl_err, ts_err, rss_err;
};

/* Opens the sockets (call while CAP_NET_ADMIN is effective, if held);
 * rcvbuf is the proc connector's receive buffer, past rmem_max only when
 * force (root: a user holding a file capability gets no more than the
 * system lets every user have). */
void run_sockets_open(struct run_sockets *s, int rcvbuf, int force);
/* Closes what is open and marks every socket off with err (-errno). */
void run_sockets_close(struct run_sockets *s, int err);

/* Why netlink / taskstats is off, in words a user can act on (a static
 * string; by_option: --no-netlink). */
const char *run_nl_reason(int err, int by_option);
const char *run_ts_reason(int err, int by_option);

struct run_config {
	enum run_source source;
	char *const *argv;        /* RUN_SPAWNED: the command */
	const pid_t *pids;        /* RUN_ATTACHED: the processes, at most STORE_ATTACH_MAX */
	size_t npids;
	struct run_sockets *socks; /* taken over by the run (NULL: poll /proc) */
	uint32_t interval_ms;     /* the sampling tick */
	double budget;            /* the collector's CPU budget, fraction of a core */
	int wait_tree;            /* RUN_SPAWNED: the run ends when the whole tree has */
	int notify_end;           /* the notify fd wakes only at the end (nothing reads before) */
	const char *record_path;  /* record the run into this SQLite file (NULL: not) */
	int record_default;       /* it is the user's default recording: made private, and
				   * when unusable the run goes on unrecorded; otherwise
				   * (--record FILE) an unusable file stops the run before
				   * the command runs (RUN_FAIL_RECORD) */
	uint32_t record_deadline_ms; /* the final write's time after the run's end (0: 2 s);
				   * past it the recording is marked incomplete */
	int record_cancel_fd;     /* > 0: readable (a signal), the final write stops at once */
	size_t record_keep;       /* runs the file keeps at most, oldest pruned first (0: all) */
	uint64_t record_max_bytes; /* and bytes (0: no limit) */
	const char *const *labels; /* --label KEY=VALUE, stored with the recording */
	size_t nlabels;
	int reset_nice, nice;     /* the thread calling run_start runs boosted: the
				   * recorder's thread gets nice level nice instead */
	uint64_t start_ns;        /* the run's start on the one clock (0: when run_start is
				   * called; earlier for a store filled beforehand, as in
				   * the benchmarks) */
	uint32_t test_lose_forks; /* test only, see collector.h */
	int test_lose_exits;
};

struct run;
struct peakmaps;

/* Creates a run (its store and collector; nothing is started). A spawned
 * run makes spacetime the subreaper of the tree, so orphans stay in it.
 * Returns NULL + errno. */
struct run *run_new(const struct run_config *cfg);

/* Where run_start failed, for the caller's message and exit status. */
enum run_fail {
	RUN_FAIL_NONE,
	RUN_FAIL_SPAWN,     /* the command could not be forked (or its pty opened) */
	RUN_FAIL_EXEC,      /* it could not be executed: -ENOENT not found, else not executable */
	RUN_FAIL_COLLECTOR, /* the collector could not start (the command never ran) */
	RUN_FAIL_GONE,      /* attached: every process ended before the attach */
	RUN_FAIL_RECORD,    /* the recording given (not the default one) cannot be
			     * used: nothing ran (run_recording() says why) */
};

/* Starts the run: forks and releases the command with so (RUN_SPAWNED), or
 * attaches to the processes and scans their tree (RUN_ATTACHED). Returns 0,
 * or -errno with *fail saying where (the run can then only be freed). */
int run_start(struct run *r, const struct spawn_opts *so, enum run_fail *fail);

enum run_source run_source(const struct run *r);
enum run_state run_state(struct run *r);
/* Whether the run is over (ended or detached): the summary is final. */
int run_finished(struct run *r);
/* The store the run fills (owned by the run). */
struct store *run_store(const struct run *r);
/* An fd that becomes readable when the store has new data or the run ended;
 * run_notify_clear() reads it. */
int run_notify_fd(const struct run *r);
void run_notify_clear(const struct run *r);
/* The command's pseudo-terminal master (-1: none). */
int run_pty(const struct run *r);
/* Sends sig to the command's process group. Returns 0, or -EPERM when the
 * run's processes are not ours to signal (attached, recorded), -ESRCH when
 * the command has ended. */
int run_signal(struct run *r, int sig);
/* Sends sig to one process of the command's tree (live in the store): a
 * pause (SIGSTOP) or resume (SIGCONT) a person asked for. Returns 0, -EPERM
 * when the run's processes are not ours (attached, recorded), -ESRCH when
 * pid is no live process of the tree, or kill's -errno. */
int run_signal_proc(struct run *r, pid_t pid, int sig);
/* Ends an attached run now, leaving its processes running (no-op otherwise,
 * or when it is over). */
void run_detach(struct run *r);
/* Stops following (detaching an attached run still going) and joins the
 * collector; the store keeps everything. */
void run_stop(struct run *r);
/* The exit status spacetime returns: the command's as a shell shows it
 * (128+N for a signal); 0 for an attached run (their statuses are their
 * parents'). Returns -ENOENT when the command was never seen to end. */
int run_exit_status(struct run *r);
/* Hands the run one chunk of the command's output (a pty read): it is cut
 * into lines, each timed, for the recording. */
void run_output(struct run *r, const char *bytes, size_t len);

/* The recording, after run_start: returns its run id (> 0) in the file, or
 * 0 when the run is not recorded, -errno when recording failed (to open, or
 * later: then the run in the file is incomplete). msg gets one line saying
 * what happened ("" when all is well), pruned how many old runs were
 * deleted to keep the file bounded. */
int64_t run_recording(struct run *r, char *msg, size_t cap, int *pruned);
/* Output lines the recording had no room or no way to keep so far (its queue
 * full, or it failed): the dashboard shows them but the recording lacks them.
 * msg (when not NULL) gets the recording's failure while the run goes on
 * ("" when it has none). */
uint64_t run_output_unrecorded(struct run *r, char *msg, size_t cap);

/* The maps of the peak's largest processes (peakmaps.h): read as the run
 * goes when it is recorded, a replay's from its recording; NULL: none. */
struct peakmaps *run_peakmaps(const struct run *r);

/* A recorded run, read back: st (loaded by recdb_load) and db are the
 * run's now. It is over from the start; nothing runs or is signalled. */
struct recdb;
struct moment;
/* The per-process samples a run's store keeps (a live run's, a followed
 * recording's): the processes at any instant of the last part of the run. */
#define RUN_PROC_SAMPLES 262144
/* The peak's maps: read within this part of one core (peakmaps.h). */
#define RUN_PEAKMAPS_SHARE 0.002
struct run *run_new_recorded(struct store *st, struct recdb *db, int64_t run_id);
/* Follows a recorded run that another spacetime is still recording: the
 * first call reads all of it into the run's store (which must be empty),
 * later ones what was written since. The run is running until the file says
 * it finished, or was not written for 5 s (its recorder was killed).
 * Returns 1 when something new came, 0 when nothing did, or -errno. */
int run_follow(struct run *r);
/* Whether a recording last written at updated_wall_ns (CLOCK_REALTIME) is
 * still being written: its recorder writes every second. */
int run_recording_live(uint64_t updated_wall_ns);
/* Why a recorded run's last read (run_follow) failed, in one line. */
const char *run_errmsg(struct run *r);
/* Whether run_follow() still follows the run. */
int run_following(const struct run *r);
/* The run at t_ns (moment.h), whatever its source: the processes alive then
 * with their figures then, the counts, the last max_lines lines of the
 * output printed up to out_ns. Free with moment_free(). Returns 0 or
 * -ENOMEM. */
int run_moment(struct run *r, uint64_t t_ns, uint64_t out_ns, size_t max_lines, struct moment *m);

/* Frees the run: collector, store, and what spawn opened. NULL is a no-op. */
void run_free(struct run *r);

/* The one clock (CLOCK_MONOTONIC), ns: what the store's times are on. */
uint64_t run_now_ns(void);

#endif
