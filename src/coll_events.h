/* coll_events: the collector's job that reads the netlink process events
 * (fork, exec, exit) and handles them in the order they happened, keeping
 * those that came before their process's fork event; its state, and its
 * part of the collector's API (collector_int.h holds the shared state). */
#ifndef SPACETIME_COLL_EVENTS_H
#define SPACETIME_COLL_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nlproc.h"

#define COLLECTOR_NLBUF (64 * 1024)
#define COLLECTOR_EARLY 256
#define COLLECTOR_NLBATCH 64

struct collector;

struct coll_events {
	uint64_t quiet_read;   /* fork|exit events read since the last tick */
	/* the exec events read at their wakeup (coll_events_exec_ahead) */
	int wpend_more;         /* that read filled the batch: more may be queued */
	int wpend_rescan;       /* it reported an overrun: the drain rescans */
	uint64_t wpend_read_ns; /* when it read */
	/* exec/exit events that came before their process's fork event (the
	 * kernel sends the fork event after the child may already have run) */
	struct nlproc_event early[COLLECTOR_EARLY];
	size_t nearly;
	uint32_t test_forks; /* fork events of the tree seen (cfg.test_lose_forks) */
	pid_t test_lost[64]; /* the children whose fork events were dropped (a ring) */
	size_t test_nlost;
	/* one batch of netlink events from each socket */
	struct nlproc_event evs[COLLECTOR_NLBATCH], qevs[COLLECTOR_NLBATCH];
	char nlbuf[COLLECTOR_NLBUF], qbuf[COLLECTOR_NLBUF];
};

/* A process added without its fork event (found by a rescan, or by its
 * taskstats record, at at_ns): its exec events waiting in the early buffer
 * are its own, replayed. */
void coll_events_replay(struct collector *c, pid_t pid, uint64_t at_ns);
/* Handles one netlink event. */
void coll_events_on_event(struct collector *c, const struct nlproc_event *ev);
/* Whether the fork|exit socket wakes the collector (at_tick: a tick's look). */
void coll_events_quiet_adjust(struct collector *c, int at_tick);
/* Reads every pending netlink event and handles them in the order they
 * happened. */
void coll_events_drain(struct collector *c);
/* Reads the exec events at their wakeup, for the next drain. */
void coll_events_exec_ahead(struct collector *c);

#endif
