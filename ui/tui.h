/* tui: the ncurses dashboard for a run (spacetime -- make -j8 on a terminal).
 *
 * Shows the whole run live: memory, tasks, faults, CPU, the process tree, the
 * command's own output; pause, zoom, pan, a cursor; stays up after the command
 * ends until the user quits. Reads only the store (copies) and the command's
 * pty; never /proc. */
#ifndef SPACETIME_TUI_H
#define SPACETIME_TUI_H

#include "config.h"
#include <stdint.h>

struct run;

/* Live redraws per second unless told otherwise; keys redraw at once. */
#define TUI_FPS_DEFAULT 2

struct tui_ctx {
	struct run *run; /* what the dashboard shows: its store, state and command */
	char *const *argv;
	unsigned interval_ms;
	double fps;           /* live redraws per second (0: TUI_FPS_DEFAULT) */
	const char *notice;   /* one line: what collection leaves out, or NULL */
	const char *log_path; /* the file the command's output is written to, or NULL */
	int log_fd;           /* that file, open for appending (-1: none); the caller closes it */
	const struct config *cfg; /* the user's defaults (glyphs, colour, panes), or NULL */
	int no_mouse;             /* --no-mouse: the terminal's own selection, no clicks */
	const char *out_where; /* where the output is kept, in words ("saved in FILE", "kept
				* in the recording, run 12"), or NULL */
	const char *export_dir;  /* where `e` writes snapshots (NULL: the current directory) */
	unsigned export_formats; /* EXPORT_F_* bits, 0 = all */
	uint64_t cursor_ns;      /* start with the timeline cursor on this instant (0: off) */
	uint64_t start_wall_ns;  /* a replay: the recorded run's start (CLOCK_REALTIME), for
				  * the exports' names and dates (0: a live run) */
	struct run *against;       /* replay --against: another run drawn as a ghost line (NULL: none) */
	const char *against_label; /* its name ("run 41") */
};

/* Runs the dashboard until the user quits; the command's pty output is read
 * here, shown in the output pane and appended to log_fd. Returns 0, or
 * -errno if the terminal could not be set up. */
int tui_run(struct tui_ctx *ctx);

/* Whether the dashboard can run here: stdout is a terminal curses can drive.
 * Call before spawning the command with a pty. */
int tui_probe(void);

/* Frames drawn by the last tui_run() (for the benchmark). */
uint64_t tui_frames(void);

#endif
