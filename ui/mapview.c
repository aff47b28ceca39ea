/* mapview.c: the memory-map screen. Columns by priority: the narrower the
 * terminal, the fewer (PSS and RSS always, then private, swap, huge pages,
 * locked, size, shared, anonymous, and on wide screens private and shared
 * split clean / dirty, huge pages by kind, swap's PSS), the group's name
 * taking what is left. */
#include "mapview.h"

#include "term.h"
#include "textsafe.h"
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MV_COL_W 10   /* a figure's column */
#define MV_NAME_MIN 24 /* the name keeps at least this much, columns give way */
#define MV_KIND_W 8

/* A column: one field, or the sum of two (private clean + dirty ...). */
struct mv_col {
	const char *head;
	enum smaps_field f[3];
	int nf;
};

/* In the order they give way last to first: the first ones stay longest. */
static const struct mv_col mv_cols[] = {
	{"PSS", {SMAPS_PSS}, 1},
	{"RSS", {SMAPS_RSS}, 1},
	{"Private", {SMAPS_PRIVATE_CLEAN, SMAPS_PRIVATE_DIRTY}, 2},
	{"Swap", {SMAPS_SWAP}, 1},
	{"Huge", {SMAPS_ANON_HUGE, SMAPS_FILE_PMD, SMAPS_SHMEM_PMD}, 3},
	{"Locked", {SMAPS_LOCKED}, 1},
	{"Size", {SMAPS_SIZE}, 1},
	{"Shared", {SMAPS_SHARED_CLEAN, SMAPS_SHARED_DIRTY}, 2},
	{"Anon", {SMAPS_ANONYMOUS}, 1},
	/* wide screens: private and shared split clean / dirty, huge pages by kind */
	{"Priv cln", {SMAPS_PRIVATE_CLEAN}, 1},
	{"Priv drt", {SMAPS_PRIVATE_DIRTY}, 1},
	{"Shr cln", {SMAPS_SHARED_CLEAN}, 1},
	{"Shr drt", {SMAPS_SHARED_DIRTY}, 1},
	{"THP anon", {SMAPS_ANON_HUGE}, 1},
	{"THP file", {SMAPS_FILE_PMD}, 1},
	{"Swap PSS", {SMAPS_SWAP_PSS}, 1},
};
#define MV_NCOLS (int)(sizeof(mv_cols) / sizeof(mv_cols[0]))

struct mapview {
	struct mapread *mr;
	struct peakmaps *pm;
	int peak;          /* the map shown is the one taken at the peak */
	uint64_t peak_t_ns;
	struct proc_rec rec;
	char job[128];
	uint64_t start_ns;
	struct mapread_result res;
	uint64_t seq;
	int have;
	int sort, reverse; /* the column sorted by, largest first unless reversed */
	size_t top;
	int shown;         /* columns shown at the last draw */
	uint64_t drawn_s;  /* the "read N s ago" last drawn */
	enum mapread_state drawn_state;
};

struct mapview *mapview_open(struct mapread *mr, struct peakmaps *pm, const struct proc_rec *rec, const char *job,
			     uint64_t start_ns)
{
	struct mapview *mv = calloc(1, sizeof(*mv));

	if (!mv)
		return NULL;
	mv->mr = mr;
	mv->pm = pm;
	mv->rec = *rec;
	snprintf(mv->job, sizeof(mv->job), "%s", job && job[0] ? job : rec->comm);
	mv->start_ns = start_ns;
	mv->shown = MV_NCOLS;
	mv->drawn_state = MAPREAD_NONE;
	/* an exited process: only the map kept of it, never a read of its pid */
	if (mr && !rec->end_ns)
		mapread_want(mr, rec->id, rec->pid);
	return mv;
}

void mapview_close(struct mapview *mv)
{
	if (!mv)
		return;
	if (mv->mr)
		mapread_want(mv->mr, 0, 0);
	smaps_view_free(&mv->res.view);
	free(mv);
}

static uint64_t mv_value(const struct smaps_group *g, const struct mv_col *c)
{
	uint64_t v = 0;
	for (int i = 0; i < c->nf; i++)
		v += g->kib[c->f[i]];
	return v;
}

static const struct mv_col *mv_sort_col;

static int mv_by_col(const void *a, const void *b)
{
	uint64_t x = mv_value(a, mv_sort_col), y = mv_value(b, mv_sort_col);
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(((const struct smaps_group *)a)->name, ((const struct smaps_group *)b)->name);
}

/* Orders the groups by the sort column (the UI thread alone sorts). */
static void mv_order(struct mapview *mv)
{
	struct smaps_view *v = &mv->res.view;

	mv_sort_col = &mv_cols[mv->sort];
	if (v->n > 1)
		qsort(v->g, v->n, sizeof(*v->g), mv_by_col);
	if (mv->reverse)
		for (size_t i = 0; i < v->n / 2; i++) {
			struct smaps_group t = v->g[i];
			v->g[i] = v->g[v->n - 1 - i];
			v->g[v->n - 1 - i] = t;
		}
}

/* The map taken at the peak, for a process with none read (exited, or a
 * replay): shown as such. Returns whether there is one. */
static int mv_peak_map(struct mapview *mv)
{
	struct smaps_view v;

	if (!mv->pm || peakmaps_view(mv->pm, mv->rec.id, &v, &mv->peak_t_ns) <= 0)
		return 0;
	smaps_view_free(&mv->res.view);
	memset(&mv->res, 0, sizeof(mv->res));
	mv->res.view = v;
	mv->res.state = MAPREAD_DONE;
	mv->res.read_ns = mv->peak_t_ns;
	mv->have = mv->peak = 1;
	mv_order(mv);
	return 1;
}

int mapview_poll(struct mapview *mv, uint64_t now_ns)
{
	struct mapread_result r;

	if (mv->peak)
		return 0; /* the peak's map: it does not change */
	if (!mv->mr) /* a replay: the one taken at the peak, if any */
		return mv_peak_map(mv);
	enum mapread_state st = mapread_get(mv->mr, mv->rec.id, &r);
	/* exited with none read: the one taken at the peak, if any */
	if (mv->rec.end_ns && st != MAPREAD_DONE && mv_peak_map(mv)) {
		smaps_view_free(&r.view);
		return 1;
	}
	int changed = st != mv->drawn_state || r.seq != mv->seq || r.err != mv->res.err || r.reading != mv->res.reading;

	if (changed || (st == MAPREAD_DONE && !mv->have)) {
		smaps_view_free(&mv->res.view);
		mv->res = r;
		mv->seq = r.seq;
		mv->have = st == MAPREAD_DONE;
		mv_order(mv);
		return 1;
	}
	smaps_view_free(&r.view);
	/* the age shown moves once a second */
	return mv->have && (now_ns - mv->res.read_ns) / 1000000000ull != mv->drawn_s;
}

int mapview_key(struct mapview *mv, enum key_action a, int key)
{
	size_t n = mv->res.view.n;

	switch (a) {
	case ACT_UP:
		mv->top = mv->top ? mv->top - 1 : 0;
		return 1;
	case ACT_DOWN:
		mv->top = mv->top + 1 < n ? mv->top + 1 : mv->top;
		return 1;
	case ACT_PAGE_UP:
		mv->top = mv->top > 10 ? mv->top - 10 : 0;
		return 1;
	case ACT_PAGE_DOWN:
		mv->top = mv->top + 10 < n ? mv->top + 10 : (n ? n - 1 : 0);
		return 1;
	case ACT_TOP:
		mv->top = 0;
		return 1;
	case ACT_SORT:
		mv->sort = (mv->sort + 1) % (mv->shown > 0 ? mv->shown : 1);
		mv_order(mv);
		return 1;
	case ACT_SORT_REVERSE:
		mv->reverse = !mv->reverse;
		mv_order(mv);
		return 1;
	case ACT_REDRAW:
		return 1;
	default:
		return !(key == 'q' || key == 'm' || key == 27 || a == ACT_MAPS || a == ACT_QUIT);
	}
}

/* The header: whose map, and when it was taken (or why there is none). */
static void mv_header(struct mapview *mv, int cols, uint64_t now_ns)
{
	const struct mapread_result *r = &mv->res;
	char when[160];

	term_fill(0, 0, cols, ' ', ROLE_HEADER);
	int x = 1 + term_printf(0, 1, cols - 1, ROLE_HEADER_HI, "Memory map of %d ", (int)mv->rec.pid);
	x += term_puts(0, x, cols - x, mv->job, ROLE_HEADER_HI);
	when[0] = 0;
	if (mv->have) {
		uint64_t age = now_ns > r->read_ns ? now_ns - r->read_ns : 0;
		mv->drawn_s = age / 1000000000ull;
		if (mv->peak)
			snprintf(when, sizeof(when), "at the peak: taken at %.1f s",
				 r->read_ns > mv->start_ns ? (double)(r->read_ns - mv->start_ns) / 1e9 : 0.0);
		else if (r->err == -ESRCH || mv->rec.end_ns)
			snprintf(when, sizeof(when), "exited; map taken at %.1f s",
				 r->read_ns > mv->start_ns ? (double)(r->read_ns - mv->start_ns) / 1e9 : 0.0);
		else
			snprintf(when, sizeof(when), "read %.0f s ago in %.1f ms%s", (double)mv->drawn_s,
				 (double)r->cost_ns / 1e6, r->view.truncated ? ", cut short as it ended" : "");
	}
	int w = (int)strlen(when);
	if (w && x + 2 + w < cols)
		term_puts(0, cols - w - 1, w, when, ROLE_HEADER);
}

/* Why there is no map to show, in the body's first row. */
static void mv_none(const struct mapview *mv, int y, int cols)
{
	const char *why;

	switch (mv->res.state) {
	case MAPREAD_READING:
		why = "reading...";
		break;
	case MAPREAD_GONE:
		why = "the process ended before its map was read";
		break;
	case MAPREAD_DENIED:
		why = "this user may not read the process's memory map";
		break;
	case MAPREAD_FAILED:
		why = strerror(-mv->res.err);
		break;
	default:
		why = !mv->mr ? "no map was recorded of this process: a recording keeps the largest ones' at the peak"
		      : mv->rec.end_ns ? "no map was taken of this process while it ran"
				       : "reading...";
		break;
	}
	term_puts(y, 1, cols - 1, why, ROLE_DIM);
}

/* A name in w columns: its end kept (a path's file name), "…" before it. */
static void mv_name(int y, int x, int w, const char *name, int deleted)
{
	wchar_t ws[SMAPS_NAME_MAX + 16];
	char full[SMAPS_NAME_MAX + 16];

	snprintf(full, sizeof(full), "%s%s", name, deleted ? " (deleted)" : "");
	textsafe_wcs(full, strlen(full), ws, sizeof(ws) / sizeof(ws[0]), term_utf8());
	const wchar_t *s = ws;
	if (term_width(s) > w && w > 1) {
		while (*s && term_width(s) > w - 1)
			s++;
		term_cell(y, x, term_glyph()->ellipsis, ROLE_DIM);
		x++;
		w--;
	}
	term_put(y, x, w, s, ROLE_NORMAL);
}

/* One row: the figures of the columns shown, the kind, the name. */
static void mv_row(const struct mapview *mv, int y, int cols, const struct smaps_group *g, int total)
{
	int x = 0;
	char b[32];

	for (int c = 0; c < mv->shown; c++) {
		uint64_t v = mv_value(g, &mv_cols[c]);
		if (v)
			units_kib(b, sizeof(b), v);
		else
			snprintf(b, sizeof(b), "0");
		term_printf(y, x, MV_COL_W, v ? (total ? ROLE_TITLE : ROLE_NORMAL) : ROLE_DIM, "%*s", MV_COL_W - 1, b);
		x += MV_COL_W;
	}
	x++;
	if (cols - x >= MV_NAME_MIN + MV_KIND_W) {
		static const char *const shortk[SMAPS_KINDS] = {"binary", "library", "heap", "stack",
								 "anon", "shmem", "file", "kernel"};
		term_puts(y, x, MV_KIND_W, total || (unsigned)g->kind >= SMAPS_KINDS ? "" : shortk[g->kind], ROLE_DIM);
		x += MV_KIND_W + 1;
	}
	if (total)
		term_printf(y, x, cols - x, ROLE_TITLE, "total, %zu mappings", mv->res.view.nmaps);
	else
		mv_name(y, x, cols - x, g->name, g->deleted);
}

void mapview_draw(struct mapview *mv, uint64_t now_ns)
{
	int rows, cols;

	term_size(&rows, &cols);
	term_blank(0, 0, rows, cols);
	mv_header(mv, cols, now_ns);
	mv->drawn_state = mv->res.state;
	/* as many columns as leave the name its room, PSS and RSS at least */
	mv->shown = MV_NCOLS;
	while (mv->shown > 2 && cols - mv->shown * MV_COL_W - 1 < MV_NAME_MIN)
		mv->shown--;
	if (mv->sort >= mv->shown)
		mv->sort = 0;
	int x = 0;
	for (int c = 0; c < mv->shown; c++, x += MV_COL_W) {
		term_printf(1, x, MV_COL_W - 1, c == mv->sort ? ROLE_FOCUS : ROLE_DIM, "%*s", MV_COL_W - 2, mv_cols[c].head);
		if (c == mv->sort) /* the sort's direction after its head */
			term_cell(1, x + MV_COL_W - 2, mv->reverse ? term_glyph()->up : term_glyph()->down, ROLE_FOCUS);
	}
	term_puts(1, x + 1, cols - x - 1, cols - x - 1 >= MV_NAME_MIN + MV_KIND_W ? "KIND     MAPPING" : "MAPPING",
		  ROLE_DIM);
	if (!mv->have) {
		mv_none(mv, 2, cols);
	} else {
		mv_row(mv, 2, cols, &mv->res.view.total, 1);
		size_t n = mv->res.view.n;
		if (mv->top >= n)
			mv->top = n ? n - 1 : 0;
		for (int y = 3; y < rows - 1 && mv->top + (size_t)(y - 3) < n; y++)
			mv_row(mv, y, cols, &mv->res.view.g[mv->top + (size_t)(y - 3)], 0);
	}
	term_fill(rows - 1, 0, cols, ' ', ROLE_NORMAL);
	int hx = 1;
	static const char *hint[][2] = {{"m", "close"}, {"s", "sort"}, {"S", "reverse"}, {"Up/Down", "scroll"}};
	for (size_t i = 0; i < sizeof(hint) / sizeof(hint[0]); i++) {
		int need = (int)(strlen(hint[i][0]) + strlen(hint[i][1])) + 3;
		if (hx + need > cols)
			break;
		hx += term_puts(rows - 1, hx, cols - hx, hint[i][0], ROLE_KEY);
		hx += term_printf(rows - 1, hx, cols - hx, ROLE_NORMAL, " %s  ", hint[i][1]);
	}
}
