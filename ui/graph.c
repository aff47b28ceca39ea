/* graph.c: columns of values -> cells, with three glyph tables. Pure. */
#include "graph.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define GRAPH_MAX_DOTS 4 /* vertical dots per Braille cell */

/* Braille dot bits, bottom dot first, for the left and the right dot column. */
static const uint8_t braille_bit[2][GRAPH_MAX_DOTS] = {{0x40, 0x04, 0x02, 0x01},
						       {0x80, 0x20, 0x10, 0x08}};
/* Eighth blocks U+2581..U+2588 by filled eighths (index 0 unused). */
static const uint32_t block_eighth[9] = {' ',    0x2581, 0x2582, 0x2583, 0x2584,
					 0x2585, 0x2586, 0x2587, 0x2588};
/* Full cells per layer when colour cannot tell layers apart. */
static const uint32_t block_mono_full[GRAPH_LAYERS] = {0x2588, 0x2593, 0x2591};
static const uint32_t ascii_full[GRAPH_LAYERS] = {'#', '%', ':'};
static const uint32_t ascii_half[GRAPH_LAYERS] = {'.', '.', '.'};

int graph_xres(enum graph_style style)
{
	return style == GRAPH_BRAILLE ? 2 : 1;
}

/* Units per cell row: Braille dots, eighths, or ASCII halves. */
static int graph_yres(enum graph_style style)
{
	return style == GRAPH_BRAILLE ? 4 : style == GRAPH_BLOCK ? 8 : 2;
}

/* Converts a value to units of height, rounded, within [0, H]. */
static int graph_units(double v, double ymax, int H)
{
	if (!(v > 0))
		return 0;
	double u = v / ymax * H + 0.5;

	return u >= H ? H : (int)u;
}

/* Stack boundaries of one column in units: top[k] is the top of layer k (so
 * layer k fills [top[k-1], top[k])); *line is the line's unit or -1. A visible
 * total never rounds down to nothing. Returns 0 for an unknown column. */
static int graph_stack(const struct graph_spec *sp, const struct graph_col *c, int H,
		       int top[GRAPH_LAYERS], int *line)
{
	double sum = 0;
	int prev = 0;

	*line = -1;
	if (!c->known)
		return 0;
	for (int k = 0; k < sp->nlayers; k++) {
		if (c->v[k] > 0)
			sum += c->v[k];
		top[k] = graph_units(sum, sp->ymax, H);
		if (top[k] < prev)
			top[k] = prev;
		prev = top[k];
	}
	if (sum > 0 && top[sp->nlayers - 1] == 0)
		top[sp->nlayers - 1] = 1;
	if (c->line >= 0 && !isnan(c->line)) {
		int u = graph_units(c->line, sp->ymax, H);
		*line = u > 0 ? u - 1 : c->line > 0 ? 0 : -1;
	}
	return 1;
}

/* Layer filling unit d of a column, or -1 above the stack. */
static int graph_layer_at(const struct graph_spec *sp, const int top[GRAPH_LAYERS], int d)
{
	for (int k = 0; k < sp->nlayers; k++)
		if (d < top[k])
			return k;
	return -1;
}

/* Whether a mono pattern shows the dot (x, d) of layer k: solid, checker,
 * sparse; the top dot of a layer always shows so heights stay readable. */
static int graph_pattern(int k, int x, int d, int is_top)
{
	if (is_top || k == 0)
		return 1;
	if (k == 1)
		return ((x + d) & 1) == 0;
	return (d & 1) == 0 && (x & 1) == 0;
}

/* The units the line covers in data column x: its own, and down or up to
 * the unit next to the previous column's, so that a line that moves by
 * several units between columns is drawn joined, not as scattered dots.
 * *lo > *hi when there is no line. */
static void graph_line_span(const struct graph_spec *sp, const struct graph_col *cols, int x, int H,
			    int line, int *lo, int *hi)
{
	int ptop[GRAPH_LAYERS], pline;

	*lo = line;
	*hi = line;
	if (line < 0) {
		*lo = 1;
		*hi = 0;
		return;
	}
	if (x > 0 && graph_stack(sp, &cols[x - 1], H, ptop, &pline) && pline >= 0) {
		if (pline > line + 1)
			*hi = pline - 1;
		else if (pline < line - 1)
			*lo = pline + 1;
	}
}

/* The units the ghost line covers in data column x, joined to the previous
 * column's as the line is (graph_line_span); *lo > *hi when it has none
 * there. */
static void graph_ghost_span(const struct graph_spec *sp, const struct graph_col *cols, int x, int H, int *lo,
			     int *hi)
{
	double g = cols[x].ghost;
	int u = g > 0 ? graph_units(g, sp->ymax, H) : -1;
	int unit = u > 0 ? u - 1 : g > 0 ? 0 : -1;

	*lo = 1;
	*hi = 0;
	if (unit < 0)
		return;
	*lo = *hi = unit;
	if (x > 0 && cols[x - 1].ghost > 0) {
		int pu = graph_units(cols[x - 1].ghost, sp->ymax, H);
		int prev = pu > 0 ? pu - 1 : 0;
		if (prev > unit + 1)
			*hi = prev - 1;
		else if (prev < unit - 1)
			*lo = prev + 1;
	}
}

/* The ghost's dots in a Braille cell; on a monochrome terminal dotted where
 * it runs level (every other data column), whole where it climbs or falls. */
static uint8_t graph_ghost_bits(const struct graph_spec *sp, const struct graph_col *cols, int cx, int row)
{
	int H = sp->h * 4, dots_base = (sp->h - 1 - row) * 4;
	uint8_t bits = 0;

	for (int sx = 0; sx < 2; sx++) {
		int x = cx * 2 + sx, lo, hi;
		graph_ghost_span(sp, cols, x, H, &lo, &hi);
		if (sp->mono && lo == hi && (x & 1))
			continue; /* no colour to tell it from the RSS line: dotted */
		for (int i = 0; i < 4; i++)
			if (dots_base + i >= lo && dots_base + i <= hi)
				bits |= braille_bit[sx][i];
	}
	return bits;
}

/* Draws the ghost over a cell already filled: its dots added to a Braille
 * cell, its dashes over a block or ASCII one; the cell takes its role. */
static void graph_ghost_cell(const struct graph_spec *sp, const struct graph_col *cols, int cx, int row,
			     struct graph_cell *out)
{
	if (sp->style == GRAPH_BRAILLE) {
		uint8_t g = graph_ghost_bits(sp, cols, cx, row);
		if (g) {
			uint8_t had = out->ch >= 0x2800 && out->ch <= 0x28FF ? (uint8_t)(out->ch - 0x2800) : 0;
			out->ch = 0x2800u + (had | g);
			out->role = sp->ghost_role;
		}
		return;
	}
	int Y = graph_yres(sp->style), base = (sp->h - 1 - row) * Y, lo, hi;
	graph_ghost_span(sp, cols, cx, sp->h * Y, &lo, &hi);
	if (lo > hi || hi < base || lo >= base + Y)
		return;
	int level = lo == hi || (lo >= base && hi < base + Y);
	out->ch = sp->style == GRAPH_ASCII ? '=' : level ? 0x2504 : 0x2506;
	out->role = sp->ghost_role;
}

/* Fills one Braille cell from its two data columns. */
static void graph_braille_cell(const struct graph_spec *sp, const struct graph_col *cols,
			       int cx, int row, struct graph_cell *out)
{
	int H = sp->h * 4, dots_base = (sp->h - 1 - row) * 4;
	int count[GRAPH_LAYERS] = {0}, line_dots = 0, est_dots = 0;
	uint8_t bits = 0;

	for (int sx = 0; sx < 2; sx++) {
		int x = cx * 2 + sx, top[GRAPH_LAYERS], line, lo, hi;
		int est = cols[x].est && sp->est_role;

		if (!graph_stack(sp, &cols[x], H, top, &line))
			continue;
		graph_line_span(sp, cols, x, H, line, &lo, &hi);
		for (int i = 0; i < 4; i++) {
			int d = dots_base + i, k = graph_layer_at(sp, top, d);

			if (k >= 0) {
				if (sp->mono && est && d != top[sp->nlayers - 1] - 1)
					continue; /* hollow: the top edge only */
				if (sp->mono && !est && !graph_pattern(k, x, d, d == top[k] - 1))
					continue;
				bits |= braille_bit[sx][i];
				count[k]++;
				est_dots += est;
			} else if (d >= lo && d <= hi) {
				bits |= braille_bit[sx][i];
				line_dots++;
			}
		}
	}
	out->ch = bits ? 0x2800u + bits : ' ';
	out->role = sp->layer_role[0];
	if (line_dots && !count[0] && !count[1] && !count[2]) {
		out->role = sp->line_role;
		return;
	}
	int best = -1; /* the majority layer; ties to the lower */
	for (int k = 0; k < sp->nlayers; k++)
		if (count[k] && (best < 0 || count[k] > count[best]))
			best = k;
	if (best >= 0)
		out->role = sp->layer_role[best];
	if (est_dots) /* a guess anywhere in the cell shows */
		out->role = sp->est_role;
}

/* Fills one block or ASCII cell from its data column. */
static void graph_block_cell(const struct graph_spec *sp, const struct graph_col *cols, int cx, int row,
			     struct graph_cell *out)
{
	int Y = graph_yres(sp->style), H = sp->h * Y, base = (sp->h - 1 - row) * Y;
	int top[GRAPH_LAYERS], line, lo, hi;
	const struct graph_col *col = &cols[cx];

	out->ch = ' ';
	out->role = sp->layer_role[0];
	if (!graph_stack(sp, col, H, top, &line))
		return;
	graph_line_span(sp, cols, cx, H, line, &lo, &hi);
	int total = top[sp->nlayers - 1], level = total - base;
	int est = col->est && sp->est_role;

	if (level > Y && est && sp->mono)
		level = 0; /* hollow: only the cell with the top edge */
	if (level <= 0) {
		if (line >= base && line < base + Y) {
			out->ch = sp->style == GRAPH_ASCII ? '-' : 0x2500;
			out->role = sp->line_role;
		} else if (lo <= hi && lo < base + Y && hi >= base) {
			/* where the line climbs or falls to the next column's */
			out->ch = sp->style == GRAPH_ASCII ? '|' : 0x2502;
			out->role = sp->line_role;
		}
		return;
	}
	if (level > Y)
		level = Y;
	/* the layer holding most of the cell's filled units; ties to the lower */
	int count[GRAPH_LAYERS] = {0}, k = 0;
	for (int u = base; u < base + level; u++) {
		int l = graph_layer_at(sp, top, u);
		count[l < 0 ? 0 : l]++;
	}
	for (int i = 1; i < sp->nlayers; i++)
		if (count[i] > count[k])
			k = i;
	out->role = est ? sp->est_role : sp->layer_role[k];
	if (sp->style == GRAPH_ASCII && est && sp->mono)
		out->ch = '~'; /* an estimate's top edge, as "~" marks estimates in text */
	else if (sp->style == GRAPH_ASCII)
		out->ch = level == Y ? ascii_full[k] : ascii_half[k];
	else if (level == Y && sp->mono)
		out->ch = est ? 0x2580 : block_mono_full[k]; /* an estimate's: the upper half */
	else
		out->ch = block_eighth[level];
}

int graph_render(const struct graph_spec *sp, const struct graph_col *cols, size_t ncols,
		 struct graph_cell *cells)
{
	if (!sp || !cells || sp->w <= 0 || sp->h <= 0 || sp->nlayers < 1 ||
	    sp->nlayers > GRAPH_LAYERS || !(sp->ymax > 0) ||
	    ncols != (size_t)sp->w * (size_t)graph_xres(sp->style) || (ncols && !cols))
		return -EINVAL;
	for (int row = 0; row < sp->h; row++) {
		for (int cx = 0; cx < sp->w; cx++) {
			struct graph_cell *out = &cells[(size_t)row * (size_t)sp->w + (size_t)cx];

			if (sp->style == GRAPH_BRAILLE)
				graph_braille_cell(sp, cols, cx, row, out);
			else
				graph_block_cell(sp, cols, cx, row, out);
			if (out->ch == ' ')
				out->role = 0; /* empty: the normal role, whatever the layer's */
			if (sp->ghost_role)
				graph_ghost_cell(sp, cols, cx, row, out);
			if (cx == sp->cursor) {
				if (out->ch == ' ')
					out->ch = sp->style == GRAPH_ASCII ? '|' : 0x2502;
				out->role = sp->cursor_role;
			}
		}
	}
	return 0;
}

double graph_nice_ceil(double v)
{
	static const double steps[] = {1, 2, 2.5, 4, 5, 8, 10};

	if (!(v > 1))
		return 1;
	double p = pow(10, floor(log10(v)));
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * p >= v * (1 - 1e-12))
			return steps[i] * p;
	return 10 * p;
}

double graph_nice_kib(double kib)
{
	double unit = 1;

	if (!(kib > 1))
		return 1;
	while (kib / unit > 1000 && unit < 1024.0 * 1024 * 1024 * 1024)
		unit *= 1024;
	double n = graph_nice_ceil(kib / unit);
	/* 1000 of a unit reads better as 1 of the next one */
	if (n >= 1000 && unit < 1024.0 * 1024 * 1024 * 1024)
		return unit * 1024;
	return n * unit;
}

/* Formats v / div with suffix in at most 5 chars: "1.5M", "12M", "512M". */
static void graph_fmt_unit(char *buf, size_t cap, double v, const char *suffix)
{
	if (v < 9.95)
		snprintf(buf, cap, "%.1f%s", v, suffix);
	else
		snprintf(buf, cap, "%.0f%s", v, suffix);
	/* "1.0M" -> "1M" */
	char *dot = strstr(buf, ".0");
	if (dot && dot[2] && strchr("KMGTPk", dot[2]))
		memmove(dot, dot + 2, strlen(dot + 2) + 1);
}

void graph_fmt_kib(char *buf, size_t cap, double kib)
{
	static const char *suf[] = {"K", "M", "G", "T", "P"};
	int u = 0;

	if (!(kib > 0)) {
		snprintf(buf, cap, "0");
		return;
	}
	while (kib >= 999.5 && u < 4) {
		kib /= 1024;
		u++;
	}
	graph_fmt_unit(buf, cap, kib, suf[u]);
}

void graph_fmt_si(char *buf, size_t cap, double v)
{
	static const char *suf[] = {"", "k", "M", "G", "T"};
	int u = 0;

	if (!(v > 0)) {
		snprintf(buf, cap, "0");
		return;
	}
	if (v < 9.95 && v != floor(v)) {
		snprintf(buf, cap, "%.1f", v);
		return;
	}
	while (v >= 999.5 && u < 4) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, cap, "%.0f", v);
	else
		graph_fmt_unit(buf, cap, v, suf[u]);
}

void graph_fmt_elapsed(char *buf, size_t cap, uint64_t ns, uint64_t step_ns)
{
	uint64_t s = ns / 1000000000ull;

	if (step_ns < 1000000000ull && s < 60)
		snprintf(buf, cap, "%.1fs", (double)ns / 1e9);
	else if (s < 3600)
		snprintf(buf, cap, "%u:%02u", (unsigned)(s / 60), (unsigned)(s % 60));
	else
		snprintf(buf, cap, "%u:%02u:%02u", (unsigned)(s / 3600), (unsigned)(s / 60 % 60),
			 (unsigned)(s % 60));
}

int graph_time_ticks(uint64_t t0_ns, uint64_t t1_ns, uint64_t origin_ns, int w,
		     struct graph_tick *out, int max)
{
	static const uint64_t steps_ms[] = {100,    200,     500,     1000,    2000,    5000,
					    10000,  15000,   30000,   60000,   120000,  300000,
					    600000, 900000,  1800000, 3600000, 7200000, 21600000,
					    43200000, 86400000};
	const size_t nsteps = sizeof(steps_ms) / sizeof(steps_ms[0]);
	int n = 0;

	if (w <= 0 || t1_ns <= t0_ns || max <= 0)
		return 0;
	double span = (double)(t1_ns - t0_ns), per_cell = span / w;
	uint64_t step = steps_ms[nsteps - 1] * 1000000ull;
	for (size_t i = 0; i < nsteps; i++) {
		uint64_t s = steps_ms[i] * 1000000ull;
		char probe[16];

		graph_fmt_elapsed(probe, sizeof(probe), t1_ns > origin_ns ? t1_ns - origin_ns : 0, s);
		if ((double)s / per_cell >= (double)strlen(probe) + 3) {
			step = s;
			break;
		}
	}
	/* ticks at multiples of step in elapsed time */
	uint64_t e0 = t0_ns > origin_ns ? t0_ns - origin_ns : 0;
	uint64_t k = (e0 + step - 1) / step;
	int last_end = -1;
	for (;; k++) {
		uint64_t t = origin_ns + k * step;
		if (t > t1_ns || n >= max)
			break;
		if (t < t0_ns)
			continue;
		int x = (int)((double)(t - t0_ns) / per_cell);
		graph_fmt_elapsed(out[n].label, sizeof(out[n].label), k * step, step);
		int len = (int)strlen(out[n].label);
		if (x + len > w || x <= last_end)
			continue;
		out[n].x = x;
		last_end = x + len;
		n++;
	}
	return n;
}
