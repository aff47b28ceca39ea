/* timeline.c: pause, zoom and pan arithmetic. Pure. */
#include "timeline.h"

#include <string.h>

/* The right edge of the view. */
static uint64_t timeline_end(const struct timeline *tl, uint64_t start_ns, uint64_t live_ns)
{
	uint64_t e = tl->paused && tl->end_ns < live_ns ? tl->end_ns : live_ns;

	return e < start_ns ? start_ns : e;
}

uint64_t timeline_round_span(uint64_t run_ns)
{
	/* tenths of a second; beyond the table, steps of 1.5 and 4/3 alternate */
	static const uint64_t steps[] = {
		10, 15, 20, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 450, 600,
		/* minutes */
		900, 1200, 1500, 1800, 2400, 3000, 3600, 4800, 6000, 7200, 9000, 12000, 15000,
		18000, 24000, 27000, 36000,
		/* hours */
		54000, 72000, 90000, 108000, 144000, 180000, 216000, 288000, 360000, 432000,
		576000, 720000, 864000,
	};
	const uint64_t tenth = 100000000ull;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * tenth >= run_ns)
			return steps[i] * tenth;
	uint64_t span = steps[sizeof(steps) / sizeof(steps[0]) - 1] * tenth;
	for (int k = 0; span < run_ns && span < UINT64_MAX / 2; k++)
		span = k % 2 ? span / 3 * 4 : span / 2 * 3;
	return span < run_ns ? run_ns : span;
}

void timeline_range(const struct timeline *tl, uint64_t start_ns, uint64_t live_ns,
		    uint64_t *t0_ns, uint64_t *t1_ns)
{
	uint64_t end = timeline_end(tl, start_ns, live_ns);

	if (live_ns < start_ns)
		live_ns = start_ns;
	if (!tl->span_ns) {
		*t0_ns = start_ns;
		if (tl->growing && !tl->paused)
			*t1_ns = start_ns + timeline_round_span(end - start_ns);
		else
			*t1_ns = end > start_ns ? end : start_ns + TIMELINE_MIN_SPAN_NS;
		return;
	}
	if (end - start_ns < tl->span_ns) {
		*t0_ns = start_ns;
		*t1_ns = start_ns + tl->span_ns;
		return;
	}
	*t0_ns = end - tl->span_ns;
	*t1_ns = end;
}

void timeline_pause(struct timeline *tl, uint64_t start_ns, uint64_t live_ns)
{
	if (tl->paused) {
		tl->paused = 0;
		return;
	}
	tl->paused = 1;
	tl->end_ns = live_ns > start_ns ? live_ns : start_ns;
}

void timeline_zoom(struct timeline *tl, int dir, uint64_t start_ns, uint64_t live_ns)
{
	uint64_t t0, t1, end = timeline_end(tl, start_ns, live_ns), run = end - start_ns;
	struct timeline exact = *tl;

	exact.growing = 0; /* zoom from what has run, not the room ahead */
	timeline_range(&exact, start_ns, live_ns, &t0, &t1);
	uint64_t span = t1 - t0;
	if (dir > 0) {
		span /= 2;
		if (span < TIMELINE_MIN_SPAN_NS)
			span = TIMELINE_MIN_SPAN_NS;
	} else {
		span *= 2;
		/* within 0.1%: halving an odd span and doubling it back loses a ns */
		if (span >= run - run / 1000 && !tl->cursor_on) {
			tl->span_ns = 0; /* the whole run (up to the paused edge) */
			return;
		}
	}
	tl->span_ns = span;
	if (tl->cursor_on) {
		/* keep the cursor's instant in the middle */
		uint64_t e = tl->cursor_ns + span / 2;
		tl->paused = 1;
		tl->end_ns = e > live_ns ? live_ns : e < start_ns + span ? start_ns + span : e;
	}
}

void timeline_pan(struct timeline *tl, int dir, uint64_t start_ns, uint64_t live_ns)
{
	uint64_t t0, t1;

	timeline_range(tl, start_ns, live_ns, &t0, &t1);
	uint64_t span = t1 - t0, step = span / 4 ? span / 4 : 1;
	uint64_t end = t1 < live_ns ? t1 : live_ns;

	if (!tl->span_ns) /* whole run: zoom in to give panning room */
		return;
	if (dir < 0) {
		end = end > start_ns + span + step ? end - step : start_ns + span;
		if (end > live_ns)
			end = live_ns;
		tl->paused = 1;
		tl->end_ns = end;
	} else if (tl->paused) {
		end += step;
		tl->end_ns = end > live_ns ? live_ns : end;
	}
}

void timeline_live(struct timeline *tl)
{
	tl->paused = 0;
	tl->span_ns = 0;
	tl->end_ns = 0;
}

void timeline_cursor_toggle(struct timeline *tl, uint64_t t0_ns, uint64_t t1_ns)
{
	tl->cursor_on = !tl->cursor_on;
	tl->cursor_ns = t0_ns + (t1_ns - t0_ns) / 2;
}

void timeline_cursor_move(struct timeline *tl, int cols, int w, uint64_t t0_ns, uint64_t t1_ns)
{
	if (!tl->cursor_on || w <= 0)
		return;
	double per = (double)(t1_ns - t0_ns) / w;
	double t = (double)tl->cursor_ns + per * cols;

	tl->cursor_ns = t < (double)t0_ns ? t0_ns : t > (double)t1_ns ? t1_ns : (uint64_t)t;
}

void timeline_clamp_cursor(struct timeline *tl, uint64_t t0_ns, uint64_t t1_ns)
{
	if (tl->cursor_ns < t0_ns)
		tl->cursor_ns = t0_ns;
	if (tl->cursor_ns > t1_ns)
		tl->cursor_ns = t1_ns;
}

void timeline_window(struct timeline *tl, uint64_t a_ns, uint64_t b_ns, uint64_t start_ns, uint64_t live_ns)
{
	if (a_ns > b_ns) {
		uint64_t x = a_ns;
		a_ns = b_ns;
		b_ns = x;
	}
	/* within the run: both ends (a drag in the room ahead of the live edge,
	 * or before the start, is the run's nearest part) */
	if (live_ns < start_ns)
		live_ns = start_ns;
	a_ns = a_ns < start_ns ? start_ns : a_ns > live_ns ? live_ns : a_ns;
	b_ns = b_ns < start_ns ? start_ns : b_ns > live_ns ? live_ns : b_ns;
	if (b_ns - a_ns < TIMELINE_MIN_SPAN_NS) {
		uint64_t mid = a_ns / 2 + b_ns / 2;
		a_ns = mid > start_ns + TIMELINE_MIN_SPAN_NS / 2 ? mid - TIMELINE_MIN_SPAN_NS / 2 : start_ns;
		b_ns = a_ns + TIMELINE_MIN_SPAN_NS;
		if (b_ns > live_ns && live_ns - start_ns >= TIMELINE_MIN_SPAN_NS) {
			b_ns = live_ns;
			a_ns = b_ns - TIMELINE_MIN_SPAN_NS;
		}
	}
	tl->paused = 1;
	tl->end_ns = b_ns;
	tl->span_ns = b_ns - a_ns;
}
