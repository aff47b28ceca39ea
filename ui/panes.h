/* panes: the dashboard's state for one frame and the panes drawn from it:
 * header, memory graph with its axes and cursor readout, the statistics boxes
 * (tasks, faults, CPU: statpanes.c), the output pane's title, the status
 * line and help.
 * Graph data comes from store_query() copies only; rendering goes through the
 * pure graph_render() and is blitted here. tui.c owns the loop. */
#ifndef SPACETIME_PANES_H
#define SPACETIME_PANES_H

#define PANES_LINES 4 /* kinds of line over the stacked PSS: RSS, swap, huge pages, locked */

#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "layout.h"
#include "store.h"
#include "timeline.h"

enum panes_focus { FOCUS_TIMELINE, FOCUS_PROCS, FOCUS_OUTPUT, FOCUS_COUNT };
enum panes_quit { QUIT_NONE, QUIT_CONFIRM, QUIT_STOPPING };

struct panes {
	/* fixed for the run */
	struct store *st;
	char *const *argv;
	const char *notice, *out_where;
	unsigned interval_ms;
	int rss_off_scale; /* the RSS line in view goes above the PSS scale */
	int line_kind;     /* the line over the PSS: 0 RSS, 1 swap, 2 huge pages, 3 locked (w) */
	uint64_t peak_mark_ns; /* the peak the graph marks (as it was when the view paused) */
	/* view state */
	struct layout lay;
	struct timeline tl;
	enum graph_style style;
	int show_rss, show_output, help;
	size_t help_top;
	enum panes_focus focus;
	enum panes_quit quit;
	int kill_sent;
	size_t out_back; /* output lines scrolled back */
	int typing;      /* keys go to the command's terminal (i) */
	int prompt;      /* '/' or '\\': the search or filter being typed (0: none) */
	char prompt_buf[64];
	size_t prompt_len;
	char search[64]; /* the last search (n finds the next) */
	int waiting;     /* the command waits for a person to type (ptywait) */
	char msg[200];   /* a transient status message */
	char memlow[300]; /* running out of memory: the warning the status bar keeps ("": none) */
	char ask[200];    /* a question waiting for y (z: pause a process), "": none */
	char ask_short[64]; /* the same in a few words, for a narrow status bar */
	uint64_t msg_until_ns;
	/* this frame */
	struct store_summary sum;
	uint64_t now_ns, start_ns, live_ns, t0_ns, t1_ns;
	uint64_t run_end_ns;   /* live_ns but for a longer ghost (the axis goes on to its end) */
	int have_data, finished;
	int recorded;          /* a replay: over from the start, on its own clock */
	unsigned kind;         /* KEYS_SPAWNED, KEYS_ATTACHED or KEYS_REPLAY: the keys offered */
	/* the process list's counts (the Tasks box says the same): processes
	 * alive and made by the list's instant */
	int snap_ok;
	uint32_t snap_live, snap_made;
	uint64_t snap_at_ns;   /* the instant they are of (0: the present) */
	/* replay --against: another run's tree PSS drawn as a ghost line on the
	 * same time axis, aligned at the start (panes_ghost.c) */
	struct store *ghost;     /* NULL: none */
	const char *ghost_label; /* "run 41" */
	uint64_t ghost_start_ns, ghost_end_ns; /* on its own clock */
	struct store_summary ghost_sum;
	/* scratch, grown as needed, never shrunk */
	struct bucket *bk;
	size_t nbk, bk_cap;
	struct graph_col *gcol;
	struct graph_cell *cells;
	int32_t *idx;
	double *rate_a, *rate_b;
	uint8_t *known_a, *known_b;
	size_t col_cap, cell_cap;
	struct bucket *gbk; /* the ghost's buckets of the view */
	size_t gbk_cap;
	int32_t *gidx;
	size_t gidx_cap;
};

/* Frees the scratch buffers. */
void panes_free(struct panes *p);
/* Reads the summary and the time range for this frame (one store copy). */
void panes_begin(struct panes *p, uint64_t now_ns);
/* Whether the process list's counts (snap_*) are of the instant the panes
 * show (panes_instant): then the Tasks box says them. */
int panes_snap_fits(const struct panes *p);
/* Queries the buckets of the visible range (shared by every graph). */
void panes_query(struct panes *p);
void panes_header(struct panes *p);
void panes_notice(struct panes *p);
void panes_mem(struct panes *p);
/* The output pane's title: lines, the end, and lines the recording lacks. */
void panes_output_title(struct panes *p, uint64_t lines, int eof, uint64_t unrecorded);
void panes_status(struct panes *p);
void panes_help(struct panes *p);
void panes_too_small(struct panes *p, int rows, int cols);
/* Sets the transient status message for a few seconds. */
void panes_message(struct panes *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The glyph style for the locale: Braille in UTF-8, ASCII otherwise. */
enum graph_style panes_default_style(void);

/* For the panes drawn in other files (statpanes.c). */
/* Values at one instant: a sample, fault and CPU rates, and whether exact. */
struct panes_at {
	struct sample s;
	double minflt_s, majflt_s, user_cores, sys_cores; /* NAN when unknown */
	int ok, exact;
};
/* The values at instant t: those of the last bucket at or before it. */
void panes_at(struct panes *p, uint64_t t, struct panes_at *at);
/* The instant the statistics describe: the cursor, the paused edge, or now. */
uint64_t panes_instant(const struct panes *p);
/* Grows the per-column scratch arrays to n columns. Returns 0 or -1. */
int panes_cols(struct panes *p, size_t n);
/* Resets graph column c and returns the bucket resample picked for it, or NULL. */
const struct bucket *panes_col(struct panes *p, size_t c, struct graph_col **gc);
/* How long the newest column value holds (never past the newest instant). */
uint64_t panes_hold_tail(const struct panes *p);
/* A graph_spec for a rectangle with the current style and cursor. */
struct graph_spec panes_spec(const struct panes *p, const struct rect *r, int nlayers, double ymax);
/* The ghost (panes_ghost.c). Sets it up from its run's store: its span and
 * summary (call once). */
void panes_ghost_init(struct panes *p, struct store *ghost, const char *label);
/* How long the ghost's run lasted (0: no ghost). */
uint64_t panes_ghost_span(const struct panes *p);
/* Fills gcol[c].ghost for the ncols columns of the view with the ghost's PSS
 * at the same time from its start (the largest in each column); raises
 * *ymax to its largest. */
void panes_ghost_cols(struct panes *p, size_t ncols, double *ymax);
/* The ghost's PSS at the view's instant t (the same time from its start):
 * 1 with *kib, or 0 when it has none then. */
int panes_ghost_at(struct panes *p, uint64_t t, uint64_t *kib);
/* The ghost's peak marked over its column in the graph's top row. */
void panes_ghost_mark(const struct panes *p, const struct rect *g);
/* Renders p->gcol into a rectangle and blits the cells. */
void panes_blit(struct panes *p, const struct rect *r, const struct graph_spec *sp, size_t ncols);

#endif
