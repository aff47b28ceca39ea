/* graph: the one graph renderer of the dashboard, pure.
 *
 * graph_render() turns columns of values (stacked layers plus an optional
 * line, and another run's ghost line) and a rectangle into cells: a glyph and a colour role each. It never
 * draws; the caller blits the cells. Columns marked as estimates get a role of
 * their own (and are hollow on a monochrome terminal). One renderer, three
 * glyph tables: Braille (2x4 dots a cell, UTF-8 locales), eighth blocks
 * (UTF-8) and ASCII. The axis helpers (nice scales, time ticks, short number
 * formats) live here too. */
#ifndef SPACETIME_GRAPH_H
#define SPACETIME_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#define GRAPH_LAYERS 3

enum graph_style {
	GRAPH_BRAILLE = 0, /* 2 columns x 4 rows of dots per cell */
	GRAPH_BLOCK,       /* 1 column x 8 levels per cell */
	GRAPH_ASCII,       /* 1 column x 2 levels per cell */
};

/* One column of data. Layers stack bottom first; line < 0 means no line. */
struct graph_col {
	double v[GRAPH_LAYERS];
	double line;
	int known; /* 0: no data here (drawn empty, never as zero) */
	int est;   /* the stack is a guess, not a measurement (see est_role) */
	double ghost; /* another run's value, drawn dotted over the rest (ghost_role);
		       * <= 0 or NaN: none. Drawn whether or not the column is known. */
};

struct graph_spec {
	int w, h;                /* the rectangle, in cells */
	enum graph_style style;
	int nlayers;             /* 1..GRAPH_LAYERS */
	double ymax;             /* the value at the top edge (> 0) */
	uint8_t layer_role[GRAPH_LAYERS];
	uint8_t line_role;
	int cursor;              /* cell column of the cursor, or -1 */
	uint8_t cursor_role;
	int mono;                /* tell layers apart by pattern, not only colour */
	/* Role of an estimated column's stack (its line keeps line_role), or 0
	 * to draw it like any other. With mono, an estimated stack is drawn
	 * hollow as well: only its top edge (the top dot; or the top cell, a
	 * full one as an upper half block, in ASCII as '~'). */
	uint8_t est_role;
	uint8_t ghost_role; /* the ghost line's role */
};

struct graph_cell {
	uint32_t ch; /* a Unicode code point; ' ' (role 0) when empty */
	uint8_t role;
};

/* Data columns per cell column: 2 for Braille, 1 otherwise. */
int graph_xres(enum graph_style style);
/* Renders ncols = w * graph_xres() columns into w * h cells (row 0 at the top).
 * Returns 0, or -EINVAL for a bad rectangle or column count. */
int graph_render(const struct graph_spec *sp, const struct graph_col *cols, size_t ncols,
		 struct graph_cell *cells);

/* The smallest 1, 2, 2.5, 4, 5 or 8 times a power of ten that is >= v (1 for
 * v <= 1): round labels, and the graph still uses most of its height. */
double graph_nice_ceil(double v);
/* Like graph_nice_ceil in KiB, counted in binary units (..., 800 KiB, 1 MiB,
 * 2 MiB, 2.5 MiB, ...). */
double graph_nice_kib(double kib);
/* Short size for axis labels: "0", "64K", "1.5M", "12G" (at most 5 chars). */
void graph_fmt_kib(char *buf, size_t cap, double kib);
/* Short count or rate: "0", "950", "12.3k", "1.2M" (at most 5 chars). */
void graph_fmt_si(char *buf, size_t cap, double v);
/* Elapsed time for labels: "12.5s" when step_ns < 1 s, "1:05", "1:02:03". */
void graph_fmt_elapsed(char *buf, size_t cap, uint64_t ns, uint64_t step_ns);

struct graph_tick {
	int x;          /* cell column where the label starts */
	char label[16];
};
/* Places time labels (elapsed since origin_ns) on w cells spanning [t0, t1], at
 * a round step chosen so labels do not touch. Returns how many (<= max). */
int graph_time_ticks(uint64_t t0_ns, uint64_t t1_ns, uint64_t origin_ns, int w,
		     struct graph_tick *out, int max);

#endif
