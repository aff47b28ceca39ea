/* layout.c: pane rectangles from the terminal size. Pure. */
#include "layout.h"

#include <string.h>

#define LAYOUT_BOXES_MIN_COLS 78 /* narrower: statistics as compact text rows */
#define LAYOUT_MEM_MAX 20
#define LAYOUT_OUT_MAX 12

static struct rect rect_make(int y, int x, int h, int w)
{
	struct rect r = {y, x, h > 0 ? h : 0, w > 0 ? w : 0};

	return r;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Splits a statistics area into boxes side by side: three, and the pressure
 * box where the terminal is wide enough. */
static void layout_boxes(struct layout *l, int y, int h, int cols)
{
	int four = cols >= LAYOUT_PSI_MIN_COLS;
	int w0 = cols * (four ? 24 : 30) / 100, w1 = cols * (four ? 27 : 35) / 100;
	int w2 = four ? cols * 25 / 100 : cols - w0 - w1, w3 = four ? cols - w0 - w1 - w2 : 0;
	int x[LAYOUT_NBOXES] = {0, w0, w0 + w1, w0 + w1 + w2};
	int w[LAYOUT_NBOXES] = {w0 - 1, w1 - 1, four ? w2 - 1 : w2, w3};
	int text_h = h >= 3 ? 2 : h - 1;

	l->nboxes = four ? 4 : 3;
	for (int i = 0; i < l->nboxes; i++) {
		struct layout_box *b = &l->box[i];

		b->all = rect_make(y, x[i], h, w[i]);
		b->title = rect_make(y, x[i], 1, w[i]);
		b->text = rect_make(y + 1, x[i], text_h, w[i]);
		b->graph = rect_make(y + 1 + text_h, x[i], h - 1 - text_h, w[i]);
	}
}

void layout_compute(const struct layout_opts *o, struct layout *l)
{
	int rows = o->rows, cols = o->cols;

	memset(l, 0, sizeof(*l));
	if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
		l->too_small = 1;
		l->header = rect_make(0, 0, rows > 0 ? 1 : 0, cols);
		return;
	}
	int y = 0;
	l->header = rect_make(y++, 0, 1, cols);
	if (o->notice && rows >= 24)
		l->notice = rect_make(y++, 0, 1, cols);
	l->status = rect_make(rows - 1, 0, 1, cols);
	int R = rows - 1 - y; /* rows between the header (and notice) and the status */

	/* statistics: boxes with graphs when wide and tall enough, else text rows */
	int stats_h;
	if (cols >= LAYOUT_BOXES_MIN_COLS && R >= 13) {
		stats_h = R >= 24 ? 5 : R >= 18 ? 4 : 3;
	} else {
		l->stats_compact = 1;
		stats_h = R >= 14 ? 2 : 1;
	}
	int out_h = 0;
	if (o->show_output)
		out_h = R < 14 ? 2 : clampi(R / 4, 3, LAYOUT_OUT_MAX);
	int rest = R - stats_h - out_h;
	int mem_h = clampi(R * 3 / 10, 4, LAYOUT_MEM_MAX); /* of R alone: grows with it */
	int plist_h = rest - mem_h;
	if (plist_h < 3) { /* title, column heads, one row */
		mem_h -= 3 - plist_h;
		plist_h = 3;
	}

	l->mem = rect_make(y, 0, mem_h, cols);
	l->mem_title = rect_make(y, 0, 1, cols);
	l->mem_yaxis = rect_make(y + 1, 0, mem_h - 2, LAYOUT_YAXIS_W);
	l->mem_graph = rect_make(y + 1, LAYOUT_YAXIS_W, mem_h - 2, cols - LAYOUT_YAXIS_W);
	l->mem_taxis = rect_make(y + mem_h - 1, LAYOUT_YAXIS_W, 1, cols - LAYOUT_YAXIS_W);
	y += mem_h;

	l->stats = rect_make(y, 0, stats_h, cols);
	if (!l->stats_compact)
		layout_boxes(l, y, stats_h, cols);
	y += stats_h;

	l->plist = rect_make(y, 0, plist_h, cols);
	l->plist_title = rect_make(y, 0, 1, cols);
	l->plist_head = rect_make(y + 1, 0, 1, cols);
	l->plist_body = rect_make(y + 2, 0, plist_h - 2, cols);
	y += plist_h;

	if (out_h) {
		l->out = rect_make(y, 0, out_h, cols);
		l->out_title = rect_make(y, 0, 1, cols);
		l->out_body = rect_make(y + 1, 0, out_h - 1, cols);
	}
}
