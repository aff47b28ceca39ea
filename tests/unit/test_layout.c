/* Unit tests for layout_compute(): for every size from the smallest supported
 * (40x12) to large ones, every pane lies on the screen, no two overlap, every
 * row is used once, and the minimum sizes hold; below the minimum only the
 * "too small" line is laid out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../ui/layout.c"

/* Marks a rectangle on a grid, failing on overlap or when off the screen. */
static void mark(unsigned char *grid, int rows, int cols, const struct rect *r, int id)
{
	if (r->h == 0 || r->w == 0)
		return;
	assert_true(r->y >= 0 && r->x >= 0 && r->h > 0 && r->w > 0);
	assert_true(r->y + r->h <= rows);
	assert_true(r->x + r->w <= cols);
	for (int y = r->y; y < r->y + r->h; y++)
		for (int x = r->x; x < r->x + r->w; x++) {
			if (grid[y * cols + x])
				fail_msg("%dx%d: pane %d overlaps pane %d at %d,%d", cols, rows, id,
					 grid[y * cols + x], y, x);
			grid[y * cols + x] = (unsigned char)id;
		}
}

/* Whether r lies inside outer. */
static int inside(const struct rect *r, const struct rect *outer)
{
	return r->h == 0 || (r->y >= outer->y && r->x >= outer->x && r->y + r->h <= outer->y + outer->h &&
			     r->x + r->w <= outer->x + outer->w);
}

static void check_size(int rows, int cols, int show_output, int notice)
{
	struct layout_opts o = {rows, cols, show_output, notice};
	struct layout l;
	static unsigned char grid[200 * 400];

	layout_compute(&o, &l);
	assert_false(l.too_small);
	memset(grid, 0, sizeof(grid));
	/* the leaf panes tile the screen */
	mark(grid, rows, cols, &l.header, 1);
	mark(grid, rows, cols, &l.notice, 2);
	mark(grid, rows, cols, &l.mem_title, 3);
	mark(grid, rows, cols, &l.mem_yaxis, 4);
	mark(grid, rows, cols, &l.mem_graph, 5);
	mark(grid, rows, cols, &l.mem_taxis, 6);
	if (l.stats_compact) {
		mark(grid, rows, cols, &l.stats, 7);
	} else {
		for (int i = 0; i < l.nboxes; i++) {
			mark(grid, rows, cols, &l.box[i].title, 8 + 3 * i);
			mark(grid, rows, cols, &l.box[i].text, 9 + 3 * i);
			mark(grid, rows, cols, &l.box[i].graph, 10 + 3 * i);
			assert_true(inside(&l.box[i].all, &l.stats));
			assert_true(l.box[i].text.h >= 1);
		}
	}
	mark(grid, rows, cols, &l.plist_title, 20);
	mark(grid, rows, cols, &l.plist_head, 21);
	mark(grid, rows, cols, &l.plist_body, 22);
	mark(grid, rows, cols, &l.out_title, 23);
	mark(grid, rows, cols, &l.out_body, 24);
	mark(grid, rows, cols, &l.status, 25);
	/* every row is used by some pane (no garbage left undrawn) */
	for (int y = 0; y < rows; y++)
		assert_true(grid[y * cols] != 0 || grid[y * cols + cols - 1] != 0);
	/* minimums */
	assert_int_equal(l.header.y, 0);
	assert_int_equal(l.status.y, rows - 1);
	assert_true(l.mem_graph.h >= 2);
	assert_true(l.mem_graph.w >= cols - LAYOUT_YAXIS_W);
	assert_true(l.plist_body.h >= 1);
	assert_true(l.stats.h >= 1);
	assert_true(inside(&l.mem_graph, &l.mem) && inside(&l.mem_taxis, &l.mem));
	assert_true(inside(&l.plist_body, &l.plist));
	assert_int_equal(l.mem_yaxis.y, l.mem_graph.y);
	assert_int_equal(l.mem_yaxis.h, l.mem_graph.h);
	assert_int_equal(l.mem_taxis.x, l.mem_graph.x);
	if (show_output) {
		assert_true(l.out_body.h >= 1);
		assert_true(inside(&l.out_body, &l.out));
	} else {
		assert_int_equal(l.out.h, 0);
	}
	if (notice)
		assert_int_equal(l.notice.h, rows >= 24 ? 1 : 0);
}

static void test_all_sizes(void **state)
{
	(void)state;
	for (int rows = LAYOUT_MIN_ROWS; rows <= 80; rows++)
		for (int cols = LAYOUT_MIN_COLS; cols <= 260; cols += rows % 7 + 1)
			for (int f = 0; f < 4; f++)
				check_size(rows, cols, f & 1, f & 2);
}

/* The smallest size: every pane present, the graph at least 2 rows. */
static void test_smallest(void **state)
{
	(void)state;
	struct layout_opts o = {LAYOUT_MIN_ROWS, LAYOUT_MIN_COLS, 1, 1};
	struct layout l;

	check_size(LAYOUT_MIN_ROWS, LAYOUT_MIN_COLS, 1, 1);
	layout_compute(&o, &l);
	assert_int_equal(l.mem_graph.h, 2);
	assert_int_equal(l.mem_graph.w, LAYOUT_MIN_COLS - LAYOUT_YAXIS_W);
	assert_true(l.stats_compact);
	assert_int_equal(l.plist_body.h, 1);
	assert_int_equal(l.out_body.h, 1);
}

/* The test size 100x30: boxes with graphs, a graph of several rows. */
static void test_100x30(void **state)
{
	(void)state;
	struct layout_opts o = {30, 100, 1, 0};
	struct layout l;

	layout_compute(&o, &l);
	assert_false(l.stats_compact);
	assert_true(l.mem_graph.h >= 5);
	assert_true(l.box[0].graph.h >= 2);
	assert_true(l.plist_body.h >= 5);
	assert_true(l.out_body.h >= 4);
	/* hiding the output gives its rows to the others */
	struct layout m;
	o.show_output = 0;
	layout_compute(&o, &m);
	assert_true(m.plist_body.h + m.mem_graph.h > l.plist_body.h + l.mem_graph.h);
}

static void test_too_small(void **state)
{
	(void)state;
	struct layout l;
	int sizes[][2] = {{11, 40}, {12, 39}, {1, 1}, {0, 0}, {5, 200}, {100, 10}};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct layout_opts o = {sizes[i][0], sizes[i][1], 1, 1};
		layout_compute(&o, &l);
		assert_true(l.too_small);
		assert_int_equal(l.mem_graph.h, 0);
		assert_int_equal(l.plist.h, 0);
		assert_true(l.header.h <= 1);
		assert_int_equal(l.header.w, sizes[i][1]);
	}
}

/* Growing the terminal never shrinks the graph. */
static void test_monotonic(void **state)
{
	(void)state;
	int prev = 0;

	for (int rows = LAYOUT_MIN_ROWS; rows <= 80; rows++) {
		struct layout_opts o = {rows, 100, 1, 0};
		struct layout l;
		layout_compute(&o, &l);
		assert_true(l.mem_graph.h >= prev);
		prev = l.mem_graph.h;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_sizes),
		cmocka_unit_test(test_smallest),
		cmocka_unit_test(test_100x30),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_monotonic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
