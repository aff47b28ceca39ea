/* moment: the run at one instant, from its store, whatever the store was
 * filled from (the collector, live; a recording, loaded or followed): the
 * processes alive then with their figures as of then, how many had started
 * and ended by then, and the output printed up to then. Every pane that
 * shows an instant (the dashboard's list and output at its cursor, a
 * replay's, an export's) takes it from here. */
#ifndef SPACETIME_MOMENT_H
#define SPACETIME_MOMENT_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct moment {
	uint64_t t_ns;
	/* alive at t (started at or before it, not ended by it), in the order
	 * they were first seen; each with its last per-process sample at or
	 * before t (valid says which figures that gave: none when it had
	 * none), its command line, and no end */
	struct proc_rec *procs;
	size_t nprocs;
	int figures_cut;   /* samples older than the store keeps were let go of, and
			    * t is before the oldest kept: figures then are not known */
	uint32_t made;     /* processes started at or before t */
	uint32_t finished; /* of them, ended at or before t */
	/* the last lines printed at or before out_ns, oldest first; lines_cut:
	 * older ones were let go of (the store's bound) */
	struct outlog_line *lines;
	size_t nlines;
	int lines_cut;
};

/* Takes the run in st at t_ns, with at most max_lines lines of the output
 * printed up to out_ns (t_ns, or later: a view whose instant stands for a
 * span, the last column of a graph, shows what was printed in all of it).
 * Returns 0, or -ENOMEM (m holds nothing then). */
int moment_take(struct store *st, uint64_t t_ns, uint64_t out_ns, size_t max_lines, struct moment *m);
void moment_free(struct moment *m);

#endif
