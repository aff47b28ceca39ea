/* export_trace: the snapshot as a Chrome trace event file (JSON), which
 * ui.perfetto.dev and chrome://tracing open. Every process is a complete
 * slice ("X") under one trace process (the run), on a lane (a trace thread)
 * where slices nest, parent around child, and never partially overlap;
 * counters ("C") carry tree PSS, live processes and threads, fault rates and
 * CPU. */
#ifndef SPACETIME_EXPORT_TRACE_H
#define SPACETIME_EXPORT_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct export_snap;

#define EXPORT_TRACE_NOPARENT SIZE_MAX

/* A slice to place: [start, end] and the index of its parent slice (or
 * EXPORT_TRACE_NOPARENT). */
struct export_trace_span {
	uint64_t start, end;
	size_t parent;
};

/* Assigns each span a lane (0, 1, ...) so that on any one lane two spans are
 * either disjoint or one contains the other: a span goes to its parent's lane
 * when it nests there, else to the first lane where it starts after the
 * others end or nests in an ancestor, else the first where it nests at all,
 * else a new lane. Returns the number of lanes, or -ENOMEM. */
int export_trace_lanes(const struct export_trace_span *sp, size_t n, uint32_t *lane);

/* Writes the trace object to f. Times are µs after the command's start.
 * Returns 0 or -errno. */
int export_trace_write(FILE *f, const struct export_snap *sn);

#endif
