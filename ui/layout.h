/* layout: where every pane of the dashboard goes, a pure function of the
 * terminal size and a few switches. Rerun on every resize. */
#ifndef SPACETIME_LAYOUT_H
#define SPACETIME_LAYOUT_H

#define LAYOUT_MIN_COLS 40
#define LAYOUT_MIN_ROWS 12
#define LAYOUT_YAXIS_W 6 /* "1.5G" + space + tee */
#define LAYOUT_NBOXES 4  /* tasks, faults, CPU, pressure (wide terminals only) */
#define LAYOUT_PSI_MIN_COLS 120 /* the pressure box from this width */

struct rect {
	int y, x, h, w;
};

struct layout_opts {
	int rows, cols;
	int show_output; /* the command's output pane */
	int notice;      /* a notice line under the header */
};

/* A small statistics box: a title row, text rows, then a graph (h may be 0). */
struct layout_box {
	struct rect all, title, text, graph;
};

struct layout {
	int too_small; /* below LAYOUT_MIN_COLS x LAYOUT_MIN_ROWS: only a message */
	struct rect header, notice, status;
	struct rect mem, mem_title, mem_yaxis, mem_graph, mem_taxis;
	struct rect stats;
	int stats_compact; /* one text row for all three boxes, no graphs */
	struct layout_box box[LAYOUT_NBOXES];
	int nboxes;        /* boxes laid out: 3, or 4 with the pressure box */
	struct rect plist, plist_title, plist_head, plist_body;
	struct rect out, out_title, out_body; /* h 0 when hidden */
};

void layout_compute(const struct layout_opts *o, struct layout *l);

#endif
