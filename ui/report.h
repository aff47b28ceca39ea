/* report: the text summary printed after a run (no ncurses). */
#ifndef SPACETIME_REPORT_H
#define SPACETIME_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "store.h"

struct report_opts {
	int verbose;       /* every EXEC line, and more heaviest jobs */
	int execs;         /* every EXEC line (--execs) */
	int utf8;          /* block glyphs in the chart */
	const char *notice; /* one line about what collection left out, or NULL */
	int top;           /* heaviest jobs listed by peak PSS and by CPU (0: none) */
	const char *record; /* one line on the run's recording, or NULL */
};

#define REPORT_TOP 5          /* heaviest jobs listed by default */
#define REPORT_TOP_VERBOSE 20 /* with -v */

/* Writes the whole summary to f. Returns 0 or -EIO. */
int report_text(FILE *f, struct store *st, char *const argv[], const struct report_opts *o);
/* Formats kib as a human size ("1.00 GiB") into buf. */
void report_size(char *buf, size_t cap, uint64_t kib);

#endif
