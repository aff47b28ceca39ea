/* coll_ts: the collector's job that reads the taskstats exit records (each
 * task's exact CPU, faults and high-water RSS at its exit) and applies them
 * to their processes, or counts the children only their records tell of;
 * its state, and its part of the collector's API (collector_int.h holds the
 * shared state). */
#ifndef SPACETIME_COLL_TS_H
#define SPACETIME_COLL_TS_H

#include <stddef.h>
#include <stdint.h>

#include "taskstats.h"

/* One taskstats datagram (a record is about 450 bytes) and the records it holds. */
#define COLLECTOR_TSBUF 8192
#define COLLECTOR_TSREC 16
#define COLLECTOR_TSBATCH 16 /* datagrams per taskstats read */
/* Records of tasks not (yet) in the table, kept for a while: a process that
 * forks and ends between two reads has its record read before its fork event. */
#define COLLECTOR_TSPEND 512

struct collector;

struct coll_ts {
	uint64_t seq; /* taskstats records read */
	char buf[COLLECTOR_TSBATCH][COLLECTOR_TSBUF] __attribute__((aligned(8)));
	struct taskstats_exit rec[COLLECTOR_TSREC];
	size_t pend_next;        /* the next slot of the collector's tspend ring */
	uint64_t pend_swept_ns;  /* when the full ring was last swept (coll_ts_apply) */
	/* the records in tspend of leader tasks whose parent was in the tree
	 * when they came, apart: the children a lost child's record can tell of
	 * (tspend fills with strangers' records on a busy machine) */
	struct taskstats_exit kid[COLLECTOR_TSPEND];
	uint64_t kid_ns[COLLECTOR_TSPEND];
};

void coll_ts_arm(struct collector *c);
void coll_ts_apply(struct collector *c, const struct taskstats_exit *x);
void coll_ts_lost_children(struct collector *c);
void coll_ts_drain(struct collector *c);

#endif
