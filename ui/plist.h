/* plist: the process list pane. Live processes as a tree (pid, PSS, RSS, CPU%,
 * faults, age, command line) or finished ones with their peak PSS and duration,
 * sortable and scrollable. Holds a copy of the records taken at the last
 * refresh, so a paused view stays still. */
#ifndef SPACETIME_PLIST_H
#define SPACETIME_PLIST_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "store.h"

enum plist_sort { PLIST_SORT_PSS, PLIST_SORT_CPU, PLIST_SORT_MAJFLT, PLIST_SORT_AGE, PLIST_SORT_PID, PLIST_NSORT };

struct plist;

struct plist *plist_new(void);
void plist_free(struct plist *pl);
/* Copies the live records (and the finished ones when that view is shown)
 * from the store. Returns 0 or -ENOMEM. */
int plist_refresh(struct plist *pl, struct store *st, uint64_t now_ns);
/* The live view of a recording: recs (n of them) are the processes alive at
 * t_ns (start_ns: the run's start), with their figures then; the finished
 * view is refreshed from st as usual. Returns 0 or -ENOMEM. */
int plist_refresh_at(struct plist *pl, struct store *st, const struct proc_rec *recs, size_t n,
		     uint64_t t_ns, uint64_t start_ns);
void plist_cycle_sort(struct plist *pl);
void plist_reverse(struct plist *pl);
/* Switches between the live tree and the finished list. */
void plist_toggle_finished(struct plist *pl);
int plist_finished_view(const struct plist *pl);
/* Command column: the job name (jobname.h: "cc1 src/x.c", the default) or
 * the whole command line as executed, argv[0]'s path included. */
void plist_toggle_cmdline(struct plist *pl);
int plist_cmdline(const struct plist *pl);
/* Moves the selection by delta rows (page: the visible height). */
void plist_move(struct plist *pl, long delta);
void plist_top(struct plist *pl);
size_t plist_live(const struct plist *pl);
size_t plist_finished(const struct plist *pl);
/* \\ (htop's key): only the processes whose job name or command line hold
 * text (case aside), as a list; "" shows them all again. Returns 0 or
 * -ENOMEM. */
int plist_set_filter(struct plist *pl, struct store *st, const char *text);
const char *plist_filter(const struct plist *pl);
/* / and n: selects the first row from the selection (next: after it),
 * wrapping, whose job name or command line holds text. Returns 1 when one
 * does, 0 when none. */
int plist_search(struct plist *pl, struct store *st, const char *text, int next);
/* x: folds or unfolds the subtree under the selected process (the live
 * tree). Returns 1 when it did, 0 when there is nothing to fold. */
int plist_toggle_fold(struct plist *pl);
/* A click: selects the row drawn on screen row y. Returns 1 when one is. */
int plist_select_at(struct plist *pl, const struct layout *l, int y);
/* The selected process (its record as last refreshed) and its job name
 * (job_cap bytes). Returns 1 when a row is selected, 0 when none is. */
int plist_selected(struct plist *pl, struct store *st, struct proc_rec *out, char *job, size_t job_cap);
/* The job name of the live process pid as the list last saw it (job_cap
 * bytes). Returns 1 when the list has it. */
int plist_job_of_pid(struct plist *pl, struct store *st, pid_t pid, char *job, size_t job_cap);
/* Draws the title, the column heads and the rows. */
void plist_draw(struct plist *pl, struct store *st, const struct layout *l, int focused);

#endif
