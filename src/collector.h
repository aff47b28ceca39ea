/* collector: the thread that follows the command's process tree and fills the
 * store. epoll over the netlink socket (its timeout the next sampling tick), the command's
 * pidfd and a wakeup eventfd. It never waits for the UI. */
#ifndef SPACETIME_COLLECTOR_H
#define SPACETIME_COLLECTOR_H

#include <stdint.h>
#include <sys/types.h>

#include "store.h"

enum collector_mode {
	COLLECTOR_NETLINK = STORE_MODE_NETLINK, /* exact: every fork, exec and exit is seen */
	COLLECTOR_POLL = STORE_MODE_POLL,       /* /proc children polled each tick */
};

struct rsstrace;

struct collector_config {
	uint32_t interval_ms; /* sampling tick (0: STORE_INTERVAL_MS) */
	double budget;        /* collector CPU budget, fraction of one core (default 0.01) */
	int nl_fd;            /* subscribed netlink socket, or -1 to poll /proc */
	int nl_quiet_fd;      /* with nl_fd carrying exec events only, the fork|exit
			       * socket (nlproc_open_split), read at each tick and
			       * exec rather than woken for; else -1 */
	int ts_fd;            /* registered taskstats socket (taskstats_open), or -1 */
	uint16_t ts_family;   /* its generic netlink family */
	struct rsstrace *rss; /* the tree's RSS changes (rsstrace_open, before the
			       * command's fork), or NULL */
	char *const *root_argv; /* the command as started: its argv if it ends before
				 * /proc shows it (may be NULL) */
	int subreaper;        /* spacetime is the tree's subreaper: orphans are ours to reap */
	int wait_tree;        /* the run ends when the whole tree has ended, not the command */
	int proc_samples;     /* push per-process samples to the store (store.h):
			       * a recording keeps them */
	int notify_end;       /* wake the notify fd only when the command has ended
			       * (the summary mode reads nothing before: a wakeup
			       * per sample is CPU spent for nothing) */
	uint32_t test_lose_forks; /* test only: every Nth fork event of the tree is
				   * dropped as a lost one would be, unnoticed (0: none) */
	int test_lose_exits;      /* test only: and those children's exit events too */
	const char *proc_root;    /* the /proc the collector reads (NULL: "/proc"); a
				   * test's fake tree. Must outlive the collector. */
	uint64_t (*clock_ns)(void *ctx); /* the collector's "now", ns (NULL:
					  * CLOCK_MONOTONIC); an injected clock is taken
					  * as boot time too (no suspend offset) */
	void *clock_ctx;          /* its argument */
	struct peakmaps *peakmaps; /* told the largest processes of each new peak, to
				    * map them (peakmaps.h; NULL: none). Must outlive
				    * the collector. */
};

struct collector;
struct peakmaps;

/* Creates a collector writing into st; takes ownership of cfg->nl_fd,
 * cfg->nl_quiet_fd, cfg->ts_fd and cfg->rss. */
struct collector *collector_new(struct store *st, const struct collector_config *cfg);
/* Starts the thread following the tree rooted at pid (already forked, not yet
 * exec'd); pidfd may be -1. start_ns is the command's start. Returns 0 or
 * -errno. Signals are blocked in the new thread. */
int collector_start(struct collector *c, pid_t pid, int pidfd, uint64_t start_ns);
/* Attaches to the running processes pids[0..n) (at most STORE_ATTACH_MAX)
 * and all their descendants, existing and future, and starts the thread.
 * cfg->nl_fd must have been subscribed before: the /proc scan made here finds
 * the descendants forked before, the events those forked after. The run ends
 * when every one of them has ended (or on collector_detach); nothing is
 * reaped or signalled. start_ns is the attach. Returns 0, -ESRCH when every
 * process was gone, or -errno. */
int collector_attach(struct collector *c, const pid_t *pids, size_t n, uint64_t start_ns);
/* Ends an attached run now (the processes go on), with its final sample and
 * summary, and joins the thread. */
void collector_detach(struct collector *c);
/* An fd that becomes readable when the store has new data (unless
 * cfg->notify_end) or the command ended; read 8 bytes to clear it. */
int collector_notify_fd(const struct collector *c);
/* Tells whether the command has been reaped (the summary is final). */
int collector_finished(struct collector *c);
/* Stops the thread (if running) and joins it. */
void collector_stop(struct collector *c);
void collector_free(struct collector *c);
/* The current time on the one clock (CLOCK_MONOTONIC), ns. */
uint64_t collector_now_ns(void);

#endif
