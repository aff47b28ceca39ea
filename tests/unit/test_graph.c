/* Unit tests for the dashboard's pure graph code: graph_render (columns +
 * rectangle -> cells) in its three glyph tables, the axis helpers, the
 * bucket-to-column resampling and the timeline arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../ui/graph.c"
#include "../../ui/resample.c"
#include "../../ui/timeline.c"

#define SEC 1000000000ull
#define MS 1000000ull

enum { R_A = 1, R_B, R_C, R_LINE, R_CUR, R_EST, R_GHOST };

static struct graph_spec spec(int w, int h, enum graph_style st, int nl, double ymax)
{
	struct graph_spec s;

	memset(&s, 0, sizeof(s));
	s.w = w;
	s.h = h;
	s.style = st;
	s.nlayers = nl;
	s.ymax = ymax;
	s.layer_role[0] = R_A;
	s.layer_role[1] = R_B;
	s.layer_role[2] = R_C;
	s.line_role = R_LINE;
	s.cursor = -1;
	s.cursor_role = R_CUR;
	return s;
}

static struct graph_col col1(double v)
{
	struct graph_col c = {{v, 0, 0}, -1, 1, 0, 0};

	return c;
}

/* The cell at (row, x), row 0 at the top. */
static const struct graph_cell *at(const struct graph_cell *cells, int w, int row, int x)
{
	return &cells[row * w + x];
}

static void test_render_rejects_bad_input(void **state)
{
	(void)state;
	struct graph_cell cells[16];
	struct graph_col cols[8] = {{{0}, -1, 0, 0, 0}};
	struct graph_spec s = spec(4, 2, GRAPH_BRAILLE, 1, 10);

	assert_int_equal(graph_render(&s, cols, 4, cells), -EINVAL); /* needs 8 */
	assert_int_equal(graph_render(&s, cols, 8, cells), 0);
	s.w = 0;
	assert_int_equal(graph_render(&s, cols, 0, cells), -EINVAL);
	s = spec(4, 2, GRAPH_BLOCK, 1, 0);
	assert_int_equal(graph_render(&s, cols, 4, cells), -EINVAL);
	s = spec(4, 2, GRAPH_BLOCK, 4, 1);
	assert_int_equal(graph_render(&s, cols, 4, cells), -EINVAL);
}

/* Block glyphs: a full column, a half column, an empty one, an unknown one. */
static void test_render_block_levels(void **state)
{
	(void)state;
	struct graph_col cols[4] = {col1(10), col1(5), col1(0), {{9, 0, 0}, -1, 0, 0, 0}};
	struct graph_cell cells[8];
	struct graph_spec s = spec(4, 2, GRAPH_BLOCK, 1, 10);

	assert_int_equal(graph_render(&s, cols, 4, cells), 0);
	assert_int_equal(at(cells, 4, 0, 0)->ch, 0x2588);
	assert_int_equal(at(cells, 4, 1, 0)->ch, 0x2588);
	assert_int_equal(at(cells, 4, 0, 1)->ch, ' ');
	assert_int_equal(at(cells, 4, 1, 1)->ch, 0x2588);
	assert_int_equal(at(cells, 4, 0, 2)->ch, ' ');
	assert_int_equal(at(cells, 4, 1, 2)->ch, ' ');
	/* unknown is empty, not zero-height data; empty cells take role 0 (a
	 * reverse-video layer role would paint them) */
	assert_int_equal(at(cells, 4, 1, 3)->ch, ' ');
	assert_int_equal(at(cells, 4, 1, 3)->role, 0);
	assert_int_equal(at(cells, 4, 0, 1)->role, 0);
	assert_int_equal(at(cells, 4, 1, 0)->role, R_A);
	/* 3/16 of the height: one cell, 3 of its 8 eighths rounded from 3/16*16 */
	cols[0] = col1(10.0 * 3 / 16);
	assert_int_equal(graph_render(&s, cols, 4, cells), 0);
	assert_int_equal(at(cells, 4, 1, 0)->ch, 0x2583);
	/* a tiny but nonzero value stays visible */
	cols[0] = col1(0.001);
	assert_int_equal(graph_render(&s, cols, 4, cells), 0);
	assert_int_equal(at(cells, 4, 1, 0)->ch, 0x2581);
}

/* Braille: two data columns per cell, four dots high. */
static void test_render_braille_dots(void **state)
{
	(void)state;
	struct graph_col cols[4] = {col1(4), col1(2), col1(8), col1(0)};
	struct graph_cell cells[4];
	struct graph_spec s = spec(2, 2, GRAPH_BRAILLE, 1, 8); /* 8 dots high */

	assert_int_equal(graph_render(&s, cols, 4, cells), 0);
	/* bottom row, cell 0: left column 4 dots (all), right column 2 dots */
	assert_int_equal(at(cells, 2, 1, 0)->ch, 0x2800 + 0x40 + 0x04 + 0x02 + 0x01 + 0x80 + 0x20);
	/* top row, cell 0: nothing */
	assert_int_equal(at(cells, 2, 0, 0)->ch, ' ');
	/* cell 1: left column full height, right empty */
	assert_int_equal(at(cells, 2, 0, 1)->ch, 0x2800 + 0x47);
	assert_int_equal(at(cells, 2, 1, 1)->ch, 0x2800 + 0x47);
}

/* Stacked layers: the role of a cell is its majority layer; the line shows
 * above the stack in its own role. */
static void test_render_stack_and_line(void **state)
{
	(void)state;
	struct graph_col cols[2] = {{{4, 4, 0}, 12, 1, 0, 0}, {{4, 4, 0}, 12, 1, 0, 0}};
	struct graph_cell cells[4];
	struct graph_spec s = spec(1, 4, GRAPH_BRAILLE, 3, 16); /* 16 dots high */

	assert_int_equal(graph_render(&s, cols, 2, cells), 0);
	assert_int_equal(at(cells, 1, 3, 0)->role, R_A); /* dots 0-3 */
	assert_int_equal(at(cells, 1, 2, 0)->role, R_B); /* dots 4-7 */
	assert_int_equal(at(cells, 1, 3, 0)->ch, 0x28ff);
	assert_int_equal(at(cells, 1, 2, 0)->ch, 0x28ff);
	/* the line at 12 is dot 11, the top dot of cell row 1 */
	assert_int_equal(at(cells, 1, 1, 0)->role, R_LINE);
	assert_int_equal(at(cells, 1, 1, 0)->ch, 0x2800 + 0x01 + 0x08);
	assert_int_equal(at(cells, 1, 0, 0)->ch, ' ');

	/* block style: the line is a horizontal stroke in an empty cell */
	struct graph_spec b = spec(1, 4, GRAPH_BLOCK, 3, 32);
	struct graph_col c = {{8, 8, 0}, 28, 1, 0, 0};
	assert_int_equal(graph_render(&b, &c, 1, cells), 0);
	assert_int_equal(at(cells, 1, 3, 0)->role, R_A);
	assert_int_equal(at(cells, 1, 2, 0)->role, R_B);
	assert_int_equal(at(cells, 1, 0, 0)->ch, 0x2500);
	assert_int_equal(at(cells, 1, 0, 0)->role, R_LINE);
}

/* A line that moves by several units between two columns is drawn joined:
 * the later column covers the units between, so it reads as a line, not as
 * dots scattered over the height (issue 14). */
static void test_render_line_joined(void **state)
{
	(void)state;
	/* braille, 16 dots high, one cell wide: column 0's line at dot 1,
	 * column 1's at dot 13 */
	struct graph_col cols[2] = {{{0, 0, 0}, 2, 1, 0, 0}, {{0, 0, 0}, 14, 1, 0, 0}};
	struct graph_cell cells[4];
	struct graph_spec s = spec(1, 4, GRAPH_BRAILLE, 3, 16);

	assert_int_equal(graph_render(&s, cols, 2, cells), 0);
	/* every cell row has line dots in the right column (dots 2-13), and
	 * nothing is left blank between the two ends */
	for (int row = 0; row < 4; row++)
		assert_int_equal(at(cells, 1, row, 0)->role, R_LINE);
	/* the top row (dots 12-15): dots 12 and 13 of the right column */
	assert_int_equal(at(cells, 1, 0, 0)->ch, 0x2800 + 0x80 + 0x20);
	/* the bottom row (dots 0-3): dot 1 of the left column, dots 2 and 3
	 * of the right */
	assert_int_equal(at(cells, 1, 3, 0)->ch, 0x2800 + 0x04 + 0x10 + 0x08);
	/* a row in between: all four dots of the right column */
	assert_int_equal(at(cells, 1, 1, 0)->ch, 0x2800 + 0x80 + 0x20 + 0x10 + 0x08);
	/* falling back: column 1 at dot 1 after column 0 at dot 13 */
	struct graph_col back[2] = {{{0, 0, 0}, 14, 1, 0, 0}, {{0, 0, 0}, 2, 1, 0, 0}};
	assert_int_equal(graph_render(&s, back, 2, cells), 0);
	for (int row = 0; row < 4; row++)
		assert_int_equal(at(cells, 1, row, 0)->role, R_LINE);
	/* no join from a column with no data */
	struct graph_col gap[2] = {{{0}, -1, 0, 0, 0}, {{0, 0, 0}, 14, 1, 0, 0}};
	assert_int_equal(graph_render(&s, gap, 2, cells), 0);
	assert_int_equal(at(cells, 1, 3, 0)->ch, ' ');

	/* block style, 4 rows of 8 units: a climb from row 3 to row 0 draws
	 * vertical strokes in the rows between */
	struct graph_spec b = spec(2, 4, GRAPH_BLOCK, 3, 32);
	struct graph_col bc[2] = {{{0, 0, 0}, 4, 1, 0, 0}, {{0, 0, 0}, 30, 1, 0, 0}};
	struct graph_cell bcells[8];
	assert_int_equal(graph_render(&b, bc, 2, bcells), 0);
	assert_int_equal(at(bcells, 2, 3, 0)->ch, 0x2500);
	assert_int_equal(at(bcells, 2, 0, 1)->ch, 0x2500);
	assert_int_equal(at(bcells, 2, 1, 1)->ch, 0x2502);
	assert_int_equal(at(bcells, 2, 2, 1)->ch, 0x2502);
	assert_int_equal(at(bcells, 2, 3, 1)->ch, 0x2502); /* from unit 4 up */
	assert_int_equal(at(bcells, 2, 2, 0)->ch, ' ');
}

/* A cell shared by two layers takes the one filling most of it, ties going
 * to the lower layer, so a thin layer is not overstated. */
static void test_render_majority(void **state)
{
	(void)state;
	struct graph_cell cells[2];
	struct graph_spec s = spec(1, 2, GRAPH_BLOCK, 2, 16);
	struct graph_col c = {{7, 2, 0}, -1, 1, 0, 0};

	assert_int_equal(graph_render(&s, &c, 1, cells), 0);
	assert_int_equal(cells[1].role, R_A);   /* units 0-6 anon, 7 file */
	assert_int_equal(cells[0].role, R_B);   /* unit 8: file */
	assert_int_equal(cells[0].ch, 0x2581);
	s = spec(1, 1, GRAPH_ASCII, 2, 2);
	c = (struct graph_col){{1, 1, 0}, -1, 1, 0, 0};
	s.mono = 1;
	assert_int_equal(graph_render(&s, &c, 1, cells), 0);
	assert_int_equal(cells[0].ch, '#');
	assert_int_equal(cells[0].role, R_A);
}

/* Monochrome: the layers get different glyphs, not just different roles. */
static void test_render_mono_patterns(void **state)
{
	(void)state;
	struct graph_col c = {{8, 8, 8}, -1, 1, 0, 0};
	struct graph_cell cells[3];
	struct graph_spec s = spec(1, 3, GRAPH_BLOCK, 3, 24);

	s.mono = 1;
	assert_int_equal(graph_render(&s, &c, 1, cells), 0);
	assert_true(cells[0].ch != cells[1].ch && cells[1].ch != cells[2].ch &&
		    cells[0].ch != cells[2].ch);
	s.style = GRAPH_ASCII;
	assert_int_equal(graph_render(&s, &c, 1, cells), 0);
	assert_int_equal(cells[2].ch, '#');
	assert_int_equal(cells[1].ch, '%');
	assert_int_equal(cells[0].ch, ':');

	struct graph_col d[2] = {{{4, 4, 4}, -1, 1, 0, 0}, {{4, 4, 4}, -1, 1, 0, 0}};
	s = spec(1, 3, GRAPH_BRAILLE, 3, 12);
	s.mono = 1;
	assert_int_equal(graph_render(&s, d, 2, cells), 0);
	assert_int_equal(cells[2].ch, 0x28ff); /* anon: solid */
	assert_true(cells[1].ch != 0x28ff && cells[1].ch != ' ');
	assert_true(cells[0].ch != cells[1].ch);
}

/* Estimated columns: their stack takes est_role (a guess anywhere in a Braille
 * cell shows), their line keeps its role; mono draws them hollow (the top edge
 * only, a full top cell in a glyph no layer uses); est_role 0 draws them like
 * any other. */
static void test_render_estimated(void **state)
{
	(void)state;
	struct graph_col c[4] = {col1(10), col1(10), col1(10), col1(10)};
	struct graph_cell cells[8];
	struct graph_spec s = spec(4, 2, GRAPH_BLOCK, 1, 10);

	c[1].est = c[2].est = 1;
	c[2].v[0] = 4;
	c[2].line = 8;
	assert_int_equal(graph_render(&s, c, 4, cells), 0); /* est_role 0 */
	assert_int_equal(at(cells, 4, 1, 1)->role, R_A);
	s.est_role = R_EST;
	assert_int_equal(graph_render(&s, c, 4, cells), 0);
	assert_int_equal(at(cells, 4, 0, 0)->role, R_A);
	assert_int_equal(at(cells, 4, 0, 1)->role, R_EST);
	assert_int_equal(at(cells, 4, 1, 1)->role, R_EST);
	assert_int_equal(at(cells, 4, 0, 1)->ch, 0x2588);
	assert_int_equal(at(cells, 4, 1, 2)->role, R_EST);  /* its stack */
	assert_int_equal(at(cells, 4, 0, 2)->role, R_LINE); /* above: the line */
	assert_int_equal(at(cells, 4, 0, 2)->ch, 0x2500);

	/* mono: an estimated column shows only the cell holding its top edge */
	s.mono = 1;
	assert_int_equal(graph_render(&s, c, 4, cells), 0);
	assert_int_equal(at(cells, 4, 1, 0)->ch, 0x2588); /* measured: filled */
	assert_int_equal(at(cells, 4, 0, 1)->ch, 0x2580); /* estimated: top cell */
	assert_int_equal(at(cells, 4, 1, 1)->ch, ' ');    /* and nothing below */
	assert_int_equal(at(cells, 4, 1, 2)->ch, 0x2586); /* its top is in the low cell */
	s.style = GRAPH_ASCII;
	assert_int_equal(graph_render(&s, c, 4, cells), 0);
	assert_int_equal(at(cells, 4, 1, 0)->ch, '#');
	assert_int_equal(at(cells, 4, 1, 1)->ch, ' ');
	assert_int_equal(at(cells, 4, 0, 1)->ch, '~');
	assert_int_equal(at(cells, 4, 1, 2)->ch, '~');

	/* Braille: cell 0 measured, cell 1 half estimated */
	s = spec(2, 1, GRAPH_BRAILLE, 1, 4);
	s.est_role = R_EST;
	struct graph_col d[4] = {col1(4), col1(4), col1(4), col1(4)};
	d[3].est = 1;
	assert_int_equal(graph_render(&s, d, 4, cells), 0);
	assert_int_equal(cells[0].role, R_A);
	assert_int_equal(cells[1].role, R_EST);
	assert_int_equal(cells[1].ch, 0x28ff);
	s.mono = 1; /* hollow: the right column keeps its top dot only */
	assert_int_equal(graph_render(&s, d, 4, cells), 0);
	assert_int_equal(cells[0].ch, 0x28ff);
	assert_int_equal(cells[1].ch, 0x2800 + 0x47 + 0x08);
	assert_int_equal(cells[1].role, R_EST);
}

/* ASCII: two levels a cell, the cursor column is marked in its role. */
static void test_render_ascii_cursor(void **state)
{
	(void)state;
	struct graph_col cols[3] = {col1(1), col1(2), col1(0)};
	struct graph_cell cells[3];
	struct graph_spec s = spec(3, 1, GRAPH_ASCII, 1, 2);

	s.cursor = 2;
	assert_int_equal(graph_render(&s, cols, 3, cells), 0);
	assert_int_equal(cells[0].ch, '.');
	assert_int_equal(cells[1].ch, '#');
	assert_int_equal(cells[2].ch, '|');
	assert_int_equal(cells[2].role, R_CUR);
	assert_int_equal(cells[1].role, R_A);
}

/* Values above ymax clip to the top; the smallest rectangle works. */
static void test_render_clip_and_tiny(void **state)
{
	(void)state;
	struct graph_col c = col1(1e12);
	struct graph_cell cell;
	struct graph_spec s = spec(1, 1, GRAPH_BLOCK, 1, 1);

	assert_int_equal(graph_render(&s, &c, 1, &cell), 0);
	assert_int_equal(cell.ch, 0x2588);
	struct graph_col two[2] = {col1(1e12), col1(-5)};
	s.style = GRAPH_BRAILLE;
	assert_int_equal(graph_render(&s, two, 2, &cell), 0);
	assert_int_equal(cell.ch, 0x2847);
}

static void test_nice_scales(void **state)
{
	(void)state;
	assert_true(graph_nice_ceil(0) == 1);
	assert_true(graph_nice_ceil(7) == 8);
	assert_true(graph_nice_ceil(2.3) == 2.5);
	assert_true(graph_nice_ceil(3) == 4);
	assert_true(graph_nice_ceil(10) == 10);
	assert_true(graph_nice_ceil(11) == 20);
	assert_true(graph_nice_ceil(130) == 200);
	assert_true(graph_nice_ceil(420) == 500);
	assert_true(graph_nice_kib(700) == 800);
	assert_true(graph_nice_kib(950) == 1024);   /* 1 MiB, not "1000K" */
	assert_true(graph_nice_kib(400) == 400);
	assert_true(graph_nice_kib(1500) == 2048);             /* 2 MiB */
	assert_true(graph_nice_kib(900.0 * 1024) == 1024 * 1024); /* 1 GiB */
	assert_true(graph_nice_kib(300.0 * 1024) == 400 * 1024);
}

static void test_formats(void **state)
{
	(void)state;
	char b[32];

	graph_fmt_kib(b, sizeof(b), 0);
	assert_string_equal(b, "0");
	graph_fmt_kib(b, sizeof(b), 64);
	assert_string_equal(b, "64K");
	graph_fmt_kib(b, sizeof(b), 1024);
	assert_string_equal(b, "1M");
	graph_fmt_kib(b, sizeof(b), 1536);
	assert_string_equal(b, "1.5M");
	graph_fmt_kib(b, sizeof(b), 512.0 * 1024);
	assert_string_equal(b, "512M");
	graph_fmt_kib(b, sizeof(b), 12.0 * 1024 * 1024);
	assert_string_equal(b, "12G");
	graph_fmt_si(b, sizeof(b), 950);
	assert_string_equal(b, "950");
	graph_fmt_si(b, sizeof(b), 12300);
	assert_string_equal(b, "12k");
	graph_fmt_si(b, sizeof(b), 1200000);
	assert_string_equal(b, "1.2M");
	graph_fmt_si(b, sizeof(b), 0.5);
	assert_string_equal(b, "0.5");
	graph_fmt_elapsed(b, sizeof(b), 12500 * MS, 500 * MS);
	assert_string_equal(b, "12.5s");
	graph_fmt_elapsed(b, sizeof(b), 65 * SEC, SEC);
	assert_string_equal(b, "1:05");
	graph_fmt_elapsed(b, sizeof(b), 3723 * SEC, 60 * SEC);
	assert_string_equal(b, "1:02:03");
}

/* Ticks are round, ordered, inside the width and never overlap. */
static void test_time_ticks(void **state)
{
	(void)state;
	struct graph_tick t[32];
	uint64_t origin = 1000 * SEC;
	int n = graph_time_ticks(origin, origin + 60 * SEC, origin, 60, t, 32);

	assert_true(n >= 3);
	assert_int_equal(t[0].x, 0);
	assert_string_equal(t[0].label, "0:00");
	for (int i = 0; i < n; i++) {
		assert_true(t[i].x + (int)strlen(t[i].label) <= 60);
		if (i)
			assert_true(t[i].x > t[i - 1].x + (int)strlen(t[i - 1].label));
	}
	/* a narrow view of a late window: sub-second labels */
	n = graph_time_ticks(origin + 10 * SEC, origin + 12 * SEC, origin, 80, t, 32);
	assert_true(n >= 2);
	assert_non_null(strchr(t[0].label, 's'));
	/* degenerate inputs */
	assert_int_equal(graph_time_ticks(origin, origin, origin, 60, t, 32), 0);
	assert_int_equal(graph_time_ticks(origin, origin + SEC, origin, 0, t, 32), 0);
}

/* A tier-0 bucket holding one sample. */
static struct bucket bk(uint64_t t, uint64_t pss, uint64_t minflt)
{
	struct bucket b;

	memset(&b, 0, sizeof(b));
	b.t0_ns = b.t1_ns = t;
	b.n = 1;
	b.valid = SAMPLE_PSS | SAMPLE_FAULTS | SAMPLE_COUNTS;
	b.min.t_ns = b.max.t_ns = b.mean.t_ns = t;
	b.min.pss_kib = b.max.pss_kib = b.mean.pss_kib = pss;
	b.min.minflt = b.max.minflt = b.mean.minflt = minflt;
	return b;
}

/* Levels: the max bucket per column; narrow columns hold the previous value. */
static void test_resample_pick(void **state)
{
	(void)state;
	struct bucket b[4] = {bk(0, 10, 0), bk(100 * MS, 50, 0), bk(200 * MS, 20, 0),
			      bk(900 * MS, 30, 0)};
	int32_t idx[10];

	resample_pick(b, 4, 0, SEC, 10, RS_PSS, 150 * MS, idx);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 1);
	assert_int_equal(idx[2], 2);
	for (int c = 3; c < 9; c++)
		assert_int_equal(idx[c], 2); /* held: later data exists */
	assert_int_equal(idx[9], 3);
	/* two buckets in one column: the higher one wins */
	resample_pick(b, 4, 0, SEC, 2, RS_PSS, 0, idx);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 3);
	/* after the last sample, hold only for hold_ns */
	resample_pick(b, 3, 0, SEC, 10, RS_PSS, 150 * MS, idx);
	assert_int_equal(idx[3], 2);
	assert_int_equal(idx[5], -1);
	/* a gap holds the level the column before it ended on, not its highest:
	 * 50 then 20 in column 0, empty columns 1 to 3 show the 20 */
	b[2].t0_ns = b[2].t1_ns = 150 * MS;
	resample_pick(b, 4, 0, SEC, 5, RS_PSS, 0, idx);
	assert_int_equal(idx[0], 1);
	for (int c = 1; c < 4; c++)
		assert_int_equal(idx[c], 2);
	assert_int_equal(idx[4], 3);
	/* nor after the last one */
	resample_pick(b, 3, 0, SEC, 5, RS_PSS, 300 * MS, idx);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 2);
	assert_int_equal(idx[2], 2);
	assert_int_equal(idx[3], -1);
	b[2].t0_ns = b[2].t1_ns = 200 * MS;
	/* invalid buckets are unknown, not zero */
	b[1].valid = 0;
	resample_pick(b, 4, 0, SEC, 10, RS_PSS, 0, idx);
	assert_int_equal(idx[1], 0);
}

/* Rates interpolate the cumulative counter: 100 faults over 1 s is 100/s in
 * every column, at any zoom. */
static void test_resample_rate(void **state)
{
	(void)state;
	struct bucket b[11];
	double r[20];
	uint8_t k[20];

	for (int i = 0; i <= 10; i++)
		b[i] = bk((uint64_t)i * 100 * MS, 0, (uint64_t)i * 10);
	resample_rate(b, 11, 0, SEC, 20, RS_MINFLT, r, k);
	for (int c = 0; c < 20; c++) {
		assert_int_equal(k[c], 1);
		assert_true(r[c] > 99.9 && r[c] < 100.1);
	}
	/* beyond the data: unknown */
	resample_rate(b, 11, 0, 2 * SEC, 4, RS_MINFLT, r, k);
	assert_int_equal(k[0], 1);
	assert_int_equal(k[3], 0);
	/* a burst in one interval shows in the columns over it only */
	for (int i = 6; i <= 10; i++)
		b[i].min.minflt = b[i].max.minflt += 1000;
	resample_rate(b, 11, 0, SEC, 10, RS_MINFLT, r, k);
	assert_true(r[5] > 10000);
	assert_true(r[4] < 101 && r[7] < 101);
}

static void test_timeline(void **state)
{
	(void)state;
	struct timeline tl;
	uint64_t s = 100 * SEC, t0, t1;

	memset(&tl, 0, sizeof(tl));
	timeline_range(&tl, s, s + 60 * SEC, &t0, &t1);
	assert_true(t0 == s && t1 == s + 60 * SEC);
	/* zoom in: half the span, following the live edge */
	timeline_zoom(&tl, 1, s, s + 60 * SEC);
	timeline_range(&tl, s, s + 80 * SEC, &t0, &t1);
	assert_true(t1 == s + 80 * SEC && t1 - t0 == 30 * SEC);
	/* pause: the edge stays while the run goes on */
	timeline_pause(&tl, s, s + 80 * SEC);
	timeline_range(&tl, s, s + 95 * SEC, &t0, &t1);
	assert_true(t1 == s + 80 * SEC);
	/* pan back a quarter span, then forward again */
	timeline_pan(&tl, -1, s, s + 95 * SEC);
	timeline_range(&tl, s, s + 95 * SEC, &t0, &t1);
	assert_true(t1 == s + 80 * SEC - 30 * SEC / 4);
	timeline_pan(&tl, 1, s, s + 95 * SEC);
	timeline_range(&tl, s, s + 95 * SEC, &t0, &t1);
	assert_true(t1 == s + 80 * SEC);
	/* panning never goes before the start */
	for (int i = 0; i < 20; i++)
		timeline_pan(&tl, -1, s, s + 95 * SEC);
	timeline_range(&tl, s, s + 95 * SEC, &t0, &t1);
	assert_true(t0 == s && t1 - t0 == 30 * SEC);
	/* zoom out past the run: whole run; 0 returns to live */
	timeline_zoom(&tl, -1, s, s + 95 * SEC);
	timeline_zoom(&tl, -1, s, s + 95 * SEC);
	assert_true(tl.span_ns == 0);
	timeline_live(&tl);
	assert_false(tl.paused);
	/* zoom never below the minimum span */
	for (int i = 0; i < 40; i++)
		timeline_zoom(&tl, 1, s, s + 95 * SEC);
	assert_true(tl.span_ns == TIMELINE_MIN_SPAN_NS);
	/* paused whole run: zooming in and out again gives the same range */
	uint64_t a0, a1;
	timeline_live(&tl);
	timeline_pause(&tl, s, s + 40 * SEC);
	timeline_range(&tl, s, s + 50 * SEC, &a0, &a1);
	timeline_zoom(&tl, 1, s, s + 50 * SEC);
	timeline_range(&tl, s, s + 50 * SEC, &t0, &t1);
	assert_true(t1 == a1 && t1 - t0 == (a1 - a0) / 2);
	timeline_zoom(&tl, -1, s, s + 60 * SEC);
	timeline_range(&tl, s, s + 60 * SEC, &t0, &t1);
	assert_true(t0 == a0 && t1 == a1);
	/* a span longer than the run starts at the start */
	tl.span_ns = 60 * SEC;
	timeline_range(&tl, s, s + 10 * SEC, &t0, &t1);
	assert_true(t0 == s && t1 == s + 60 * SEC);
}

/* A growing run's live whole-run view ends at a round span: the same range
 * for every instant up to it (so a frame redraws only the new columns), never
 * before the newest instant, at most 1.5 times the run; paused or finished,
 * the view ends at the newest instant. */
static void test_timeline_growing(void **state)
{
	(void)state;
	struct timeline tl;
	uint64_t s = 100 * SEC, t0, t1, prev = 0, changes = 0;

	memset(&tl, 0, sizeof(tl));
	tl.growing = 1;
	for (uint64_t run = SEC / 10; run <= 30 * 3600 * SEC; run += run / 50 + 1) {
		timeline_range(&tl, s, s + run, &t0, &t1);
		assert_true(t0 == s);
		assert_true(t1 - t0 >= run);
		if (run >= SEC)
			assert_true((double)(t1 - t0) <= 1.5 * (double)run + 1);
		if (t1 != prev)
			changes++;
		prev = t1;
	}
	/* 30 hours in ~900 frames of growing run: about 60 round spans */
	assert_true(changes < 80);
	timeline_range(&tl, s, s + 7 * SEC, &t0, &t1);
	assert_true(t1 == s + 8 * SEC);
	timeline_range(&tl, s, s + 8 * SEC, &t0, &t1);
	assert_true(t1 == s + 8 * SEC);
	timeline_range(&tl, s, s + 8 * SEC + 1, &t0, &t1);
	assert_true(t1 == s + 10 * SEC);
	/* paused: the exact edge; zooming works from the run, not the room ahead */
	timeline_pause(&tl, s, s + 9 * SEC);
	timeline_range(&tl, s, s + 11 * SEC, &t0, &t1);
	assert_true(t1 == s + 9 * SEC);
	timeline_live(&tl);
	timeline_zoom(&tl, 1, s, s + 9 * SEC);
	assert_true(tl.span_ns == 9 * SEC / 2);
	/* finished: the whole run fills the width */
	timeline_live(&tl);
	tl.growing = 0;
	timeline_range(&tl, s, s + 9 * SEC, &t0, &t1);
	assert_true(t1 == s + 9 * SEC);
}

static void test_timeline_cursor(void **state)
{
	(void)state;
	struct timeline tl;
	uint64_t s = 0;

	memset(&tl, 0, sizeof(tl));
	timeline_cursor_toggle(&tl, s, 100 * SEC);
	assert_true(tl.cursor_on && tl.cursor_ns == 50 * SEC);
	timeline_cursor_move(&tl, 10, 100, s, 100 * SEC);
	assert_true(tl.cursor_ns == 60 * SEC);
	timeline_cursor_move(&tl, -1000, 100, s, 100 * SEC);
	assert_true(tl.cursor_ns == 0);
	/* zooming with the cursor keeps its instant in view and pauses */
	tl.cursor_ns = 30 * SEC;
	timeline_zoom(&tl, 1, s, 100 * SEC);
	uint64_t t0, t1;
	timeline_range(&tl, s, 120 * SEC, &t0, &t1);
	assert_true(tl.paused);
	assert_true(t0 <= 30 * SEC && 30 * SEC <= t1 && t1 - t0 == 50 * SEC);
	timeline_cursor_toggle(&tl, t0, t1);
	assert_false(tl.cursor_on);
}

/* The ghost line: drawn at its own height over an empty column and over the
 * stack, in a column with no data of its own, in its role; joined where it
 * climbs; none without ghost_role or with a value of 0; dotted in Braille
 * on a monochrome terminal. */
static void test_render_ghost(void **state)
{
	(void)state;
	struct graph_cell cells[4 * 4];
	struct graph_col cols[4] = {col1(4), col1(4), {{0}, -1, 0, 0, 0}, col1(0)};
	struct graph_spec s = spec(4, 4, GRAPH_BLOCK, 1, 16);

	cols[0].ghost = 14; /* row 0 (units 12..15) */
	cols[1].ghost = 2;  /* row 3, inside the stack; climbs from column 0's */
	cols[2].ghost = 14; /* a column without data of its own */
	cols[3].ghost = 0;  /* none */
	assert_int_equal(graph_render(&s, cols, 4, cells), 0);
	assert_int_equal(at(cells, 4, 0, 0)->role, 0); /* no role: no ghost drawn */
	s.ghost_role = R_GHOST;
	assert_int_equal(graph_render(&s, cols, 4, cells), 0);
	assert_int_equal(at(cells, 4, 0, 0)->ch, 0x2504);
	assert_int_equal(at(cells, 4, 0, 0)->role, R_GHOST);
	assert_int_equal(at(cells, 4, 1, 0)->role, 0);
	assert_int_equal(at(cells, 4, 3, 0)->role, R_A); /* the stack under it */
	/* column 1: down from row 0 to row 3, over the stack */
	assert_int_equal(at(cells, 4, 3, 1)->role, R_GHOST);
	assert_int_equal(at(cells, 4, 1, 1)->ch, 0x2506);
	assert_int_equal(at(cells, 4, 0, 2)->role, R_GHOST);
	for (int row = 0; row < 4; row++)
		assert_int_equal(at(cells, 4, row, 3)->role, 0);
	s.style = GRAPH_ASCII;
	assert_int_equal(graph_render(&s, cols, 4, cells), 0);
	assert_int_equal(at(cells, 4, 0, 2)->ch, '=');
	/* Braille: dotted where level (every other data column), its dots
	 * added to the cell's */
	struct graph_cell bc[2 * 2];
	struct graph_col b[4] = {col1(0), col1(0), col1(0), col1(0)};
	for (int i = 0; i < 4; i++)
		b[i].ghost = 7.5; /* unit 7: the top dot row of the top cell */
	s = spec(2, 2, GRAPH_BRAILLE, 1, 8);
	s.ghost_role = R_GHOST;
	assert_int_equal(graph_render(&s, b, 4, bc), 0);
	assert_int_equal(at(bc, 2, 0, 0)->role, R_GHOST);
	assert_int_equal(at(bc, 2, 0, 0)->ch, 0x2800 + (braille_bit[0][3] | braille_bit[1][3]));
	/* monochrome: data columns 0 and 2 drawn (the left dot of each cell),
	 * 1 and 3 not */
	s.mono = 1;
	assert_int_equal(graph_render(&s, b, 4, bc), 0);
	assert_int_equal(at(bc, 2, 0, 0)->ch, 0x2800 + braille_bit[0][3]);
	assert_int_equal(at(bc, 2, 0, 1)->ch, 0x2800 + braille_bit[0][3]);
	assert_int_equal(at(bc, 2, 1, 0)->role, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_rejects_bad_input),
		cmocka_unit_test(test_render_ghost),
		cmocka_unit_test(test_render_block_levels),
		cmocka_unit_test(test_render_braille_dots),
		cmocka_unit_test(test_render_stack_and_line),
		cmocka_unit_test(test_render_line_joined),
		cmocka_unit_test(test_render_majority),
		cmocka_unit_test(test_render_mono_patterns),
		cmocka_unit_test(test_render_estimated),
		cmocka_unit_test(test_render_ascii_cursor),
		cmocka_unit_test(test_render_clip_and_tiny),
		cmocka_unit_test(test_nice_scales),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_time_ticks),
		cmocka_unit_test(test_resample_pick),
		cmocka_unit_test(test_resample_rate),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_timeline_growing),
		cmocka_unit_test(test_timeline_cursor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
