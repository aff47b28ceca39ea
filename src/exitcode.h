/* exitcode: a wait(2) status in the words and numbers a shell uses, for
 * every reader of a run (summary, dashboard, exports), live or recorded. */
#ifndef SPACETIME_EXITCODE_H
#define SPACETIME_EXITCODE_H

#include <stddef.h>

/* The exit code a shell would show: the status, or 128+N for signal N
 * (255 for a status that is neither). */
int exitcode_of(int wait_status);
/* The signal that ended it, or 0 when it exited. */
int exitcode_signal(int wait_status);
/* "exited N", or "killed by signal N (Name)[, core dumped], exit 128+N",
 * into buf (always terminated). */
void exitcode_words(int wait_status, char *buf, size_t n);

#endif
