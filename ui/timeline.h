/* timeline: the dashboard's view of time (pause, zoom, pan, cursor), pure.
 *
 * The view belongs to the UI; the collector never pauses. Live, the right
 * edge follows the newest instant; paused, it stays where it was while the
 * run goes on. span_ns 0 is the whole run. */
#ifndef SPACETIME_TIMELINE_H
#define SPACETIME_TIMELINE_H

#include <stdint.h>

#define TIMELINE_MIN_SPAN_NS 1000000000ull /* zoom in no further than 1 s */

struct timeline {
	int paused;         /* the view is detached from the live edge */
	uint64_t end_ns;    /* the right edge while paused */
	uint64_t span_ns;   /* visible span; 0: the whole run */
	int cursor_on;
	uint64_t cursor_ns; /* the instant under the cursor */
	int growing;        /* the run goes on: a live whole-run view ends at a
			     * round span past the newest instant (see
			     * timeline_round_span), so the graph fills in from
			     * the left instead of rescaling every frame */
};

/* The round span (1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, ... s; minutes
 * and hours alike, each step at most 1.5 times the last) at or above run_ns. */
uint64_t timeline_round_span(uint64_t run_ns);

/* The visible range [*t0, *t1] for a run that started at start_ns, with live_ns
 * its newest instant. While the run is shorter than the span the range starts
 * at start_ns and the live edge moves across it; likewise for the live
 * whole-run view of a growing run. */
void timeline_range(const struct timeline *tl, uint64_t start_ns, uint64_t live_ns,
		    uint64_t *t0_ns, uint64_t *t1_ns);
/* Space: pause at the live edge, or resume following it. */
void timeline_pause(struct timeline *tl, uint64_t start_ns, uint64_t live_ns);
/* Halves (dir > 0) or doubles (dir < 0) the span; zooms around the cursor when
 * it is on (which pauses the view there). Zooming out past the whole run gives
 * the whole-run view. */
void timeline_zoom(struct timeline *tl, int dir, uint64_t start_ns, uint64_t live_ns);
/* Moves the view by a quarter of its span; panning back pauses the view. */
void timeline_pan(struct timeline *tl, int dir, uint64_t start_ns, uint64_t live_ns);
/* Back to live, whole-run view (cursor kept on, clamped later). */
void timeline_live(struct timeline *tl);
/* Cursor on (in the middle of the view) or off. */
void timeline_cursor_toggle(struct timeline *tl, uint64_t t0_ns, uint64_t t1_ns);
/* Moves the cursor by cols columns of a view w columns wide. */
void timeline_cursor_move(struct timeline *tl, int cols, int w, uint64_t t0_ns, uint64_t t1_ns);
/* Zooms to [a, b] (a drag over the graph): paused there, no narrower than
 * TIMELINE_MIN_SPAN_NS, within the run. */
void timeline_window(struct timeline *tl, uint64_t a_ns, uint64_t b_ns, uint64_t start_ns, uint64_t live_ns);
/* Keeps the cursor inside [t0, t1]. */
void timeline_clamp_cursor(struct timeline *tl, uint64_t t0_ns, uint64_t t1_ns);

#endif
