/* statpanes.c: the tasks, faults and CPU boxes. */
#include "statpanes.h"

#include "resample.h"
#include "term.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A box's title row with a right-aligned note. */
static void statpanes_box_title(const struct rect *r, const char *title, const char *note)
{
	term_fill(r->y, r->x, r->w, term_glyph()->hline, ROLE_TITLE);
	int x = r->x + 1 + term_printf(r->y, r->x + 1, r->w - 1, ROLE_TITLE, " %s ", title);
	int nw = (int)strlen(note) + 2;
	if (note[0] && r->x + r->w - nw > x)
		term_printf(r->y, r->x + r->w - nw, nw, ROLE_DIM, " %s ", note);
}

/* "12k" for a rate, or "n/a". */
static void statpanes_rate(char *b, size_t cap, double v)
{
	if (isnan(v))
		snprintf(b, cap, "n/a");
	else
		graph_fmt_si(b, cap, v);
}

/* A count row of the Tasks box: "procs   3 live, 151 made", shorter forms
 * ("3/151 made", "3/151") where the box is narrow, never a name alone. */
static void statpanes_count(const struct rect *t, int row, const char *name, enum role r, unsigned live,
			    unsigned made)
{
	char v[3][48];
	int w = t->w - 1;

	snprintf(v[0], sizeof(v[0]), "%u live, %u made", live, made);
	snprintf(v[1], sizeof(v[1]), "%u/%u made", live, made);
	snprintf(v[2], sizeof(v[2]), "%u/%u", live, made);
	int k = 0;
	while (k < 2 && (int)(strlen(name) + strlen(v[k])) > w)
		k++;
	int x = t->x + 1 + term_puts(t->y + row, t->x + 1, w, name, r);
	term_puts(t->y + row, x, t->x + t->w - x, v[k], ROLE_NORMAL);
}

/* The tasks box: live and created counts, and a graph of live counts. */
static void statpanes_tasks(struct panes *p, const struct layout_box *bx, const struct panes_at *at)
{
	const struct rect *g = &bx->graph, *t = &bx->text;
	size_t ncols = (size_t)g->w * (size_t)graph_xres(p->style);
	double ymax = 1;
	char note[32];

	if (g->h > 0 && !panes_cols(p, ncols)) {
		resample_pick(p->bk, p->nbk, p->t0_ns, p->t1_ns, ncols, RS_LIVE_THREADS, panes_hold_tail(p),
			      p->idx);
		for (size_t c = 0; c < ncols; c++) {
			struct graph_col *gc;
			const struct bucket *b = panes_col(p, c, &gc);
			if (!b)
				continue;
			gc->known = 1;
			gc->v[0] = b->max.live_procs;
			gc->line = b->max.live_threads;
			if (gc->line > ymax)
				ymax = gc->line;
		}
		ymax = graph_nice_ceil(ymax);
	}
	note[0] = 0;
	if (g->h > 0)
		snprintf(note, sizeof(note), "graph to %.0f", ymax);
	statpanes_box_title(&bx->title, "Tasks", note);
	term_blank(t->y, t->x, t->h, t->w);
	if (at->ok && (at->s.valid & SAMPLE_COUNTS)) {
		/* the process list's snapshot when there is one: both say the same */
		int snap = panes_snap_fits(p);
		statpanes_count(t, 0, "procs   ", ROLE_PROCS, snap ? p->snap_live : at->s.live_procs,
				snap ? p->snap_made : at->s.total_procs);
		if (t->h > 1)
			statpanes_count(t, 1, "threads ", ROLE_THREADS, at->s.live_threads, at->s.total_threads);
	} else {
		term_puts(t->y, t->x + 1, t->w - 1, "counts n/a", ROLE_DIM);
	}
	if (g->h > 0) {
		struct graph_spec s = panes_spec(p, g, 1, ymax);
		s.layer_role[0] = ROLE_PROCS;
		s.line_role = ROLE_THREADS;
		panes_blit(p, g, &s, ncols);
	}
}

/* Fills graph columns from up to two rate arrays (stacked), scaled by div;
 * returns the largest stacked value. */
static double statpanes_rate_cols(struct panes *p, size_t ncols, int two, double div)
{
	double top = 0;

	for (size_t c = 0; c < ncols; c++) {
		struct graph_col *gc = &p->gcol[c];
		memset(gc, 0, sizeof(*gc));
		gc->line = -1;
		gc->known = p->known_a[c];
		gc->v[0] = p->rate_a[c] / div;
		gc->v[1] = two ? p->rate_b[c] / div : 0;
		if (gc->known && gc->v[0] + gc->v[1] > top)
			top = gc->v[0] + gc->v[1];
	}
	return top;
}

/* The faults box: minor and major rates and totals, the minor share; the graph
 * shows minor faults, with major faults in their own row below. */
static void statpanes_faults(struct panes *p, const struct layout_box *bx, const struct panes_at *at)
{
	const struct rect *g = &bx->graph, *t = &bx->text;
	size_t ncols = (size_t)g->w * (size_t)graph_xres(p->style);
	char a[16], b[16], note[48] = "";

	/* the share of faults that needed no I/O, in words (shorter when the
	 * title is narrow) */
	if (at->ok && (at->s.valid & SAMPLE_FAULTS) && at->s.minflt + at->s.majflt) {
		double pct = 100.0 * (double)at->s.minflt / (double)(at->s.minflt + at->s.majflt);
		snprintf(note, sizeof(note), bx->title.w >= 48 ? "%.1f%% of faults served from memory" : "%.0f%% from memory",
			 pct);
	}
	/* no pressure box (a narrower screen): tasks stalled on memory say so here */
	if (p->lay.nboxes < 4 && at->ok && (at->s.valid & SAMPLE_PSI) && at->s.psi_mem_pm >= 5)
		snprintf(note, sizeof(note), "memory stalled %.0f%%", at->s.psi_mem_pm / 10.0);
	statpanes_box_title(&bx->title, "Faults", note);
	term_blank(t->y, t->x, t->h, t->w);
	if (at->ok && (at->s.valid & SAMPLE_FAULTS)) {
		statpanes_rate(a, sizeof(a), at->minflt_s);
		graph_fmt_si(b, sizeof(b), (double)at->s.minflt);
		int x = t->x + 1 + term_puts(t->y, t->x + 1, t->w - 1, "minor ", ROLE_MINOR);
		term_printf(t->y, x, t->x + t->w - x, ROLE_NORMAL, "%s/s, %s total", a, b);
		if (t->h > 1) {
			statpanes_rate(a, sizeof(a), at->majflt_s);
			graph_fmt_si(b, sizeof(b), (double)at->s.majflt);
			x = t->x + 1 + term_puts(t->y + 1, t->x + 1, t->w - 1, "major ", ROLE_MAJOR);
			term_printf(t->y + 1, x, t->x + t->w - x, at->s.majflt ? ROLE_MAJOR : ROLE_NORMAL,
				    "%s/s, %s total", a, b);
		}
	} else {
		term_puts(t->y, t->x + 1, t->w - 1, "faults n/a", ROLE_DIM);
	}
	if (g->h <= 0 || panes_cols(p, ncols))
		return;
	struct rect minor = *g, major = *g;
	if (g->h >= 2) {
		minor.h = g->h - 1;
		major.y = g->y + g->h - 1;
		major.h = 1;
	} else {
		major.h = 0;
	}
	resample_rate(p->bk, p->nbk, p->t0_ns, p->t1_ns, ncols, RS_MINFLT, p->rate_a, p->known_a);
	double top = graph_nice_ceil(statpanes_rate_cols(p, ncols, 0, 1));
	struct graph_spec s = panes_spec(p, &minor, 1, top);
	s.layer_role[0] = ROLE_MINOR;
	panes_blit(p, &minor, &s, ncols);
	if (major.h) {
		resample_rate(p->bk, p->nbk, p->t0_ns, p->t1_ns, ncols, RS_MAJFLT, p->rate_a, p->known_a);
		top = graph_nice_ceil(statpanes_rate_cols(p, ncols, 0, 1));
		s = panes_spec(p, &major, 1, top);
		s.layer_role[0] = ROLE_MAJOR;
		panes_blit(p, &major, &s, ncols);
	}
}

/* The CPU box: cores in use, user and system, stacked. */
static void statpanes_cpu(struct panes *p, const struct layout_box *bx, const struct panes_at *at)
{
	const struct rect *g = &bx->graph, *t = &bx->text;
	size_t ncols = (size_t)g->w * (size_t)graph_xres(p->style);
	double top = 1;
	char note[32] = "";

	if (g->h > 0 && !panes_cols(p, ncols)) {
		resample_rate(p->bk, p->nbk, p->t0_ns, p->t1_ns, ncols, RS_UTIME, p->rate_a, p->known_a);
		resample_rate(p->bk, p->nbk, p->t0_ns, p->t1_ns, ncols, RS_STIME, p->rate_b, p->known_b);
		top = graph_nice_ceil(statpanes_rate_cols(p, ncols, 1, 1e6));
		snprintf(note, sizeof(note), "graph to %g core%s", top, top == 1 ? "" : "s");
	}
	statpanes_box_title(&bx->title, "CPU", note);
	term_blank(t->y, t->x, t->h, t->w);
	if (at->ok && (at->s.valid & SAMPLE_CPU)) {
		int x = t->x + 1;
		if (isnan(at->user_cores)) {
			x += term_puts(t->y, x, t->x + t->w - x, "cores n/a", ROLE_DIM);
		} else {
			x += term_printf(t->y, x, t->x + t->w - x, ROLE_NORMAL, "%.2f cores: ",
					 at->user_cores + at->sys_cores);
			x += term_printf(t->y, x, t->x + t->w - x, ROLE_USER, "user %.2f ", at->user_cores);
			term_printf(t->y, x, t->x + t->w - x, ROLE_SYS, "sys %.2f", at->sys_cores);
		}
		if (t->h > 1)
			term_printf(t->y + 1, t->x + 1, t->w - 1, ROLE_NORMAL, "time %.1fs user, %.1fs sys",
				    (double)at->s.utime_us / 1e6, (double)at->s.stime_us / 1e6);
	} else {
		term_puts(t->y, t->x + 1, t->w - 1, "CPU n/a", ROLE_DIM);
	}
	if (g->h > 0 && p->col_cap >= ncols) {
		struct graph_spec s = panes_spec(p, g, 2, top);
		s.layer_role[0] = ROLE_USER;
		s.layer_role[1] = ROLE_SYS;
		panes_blit(p, g, &s, ncols);
	}
}

/* The pressure box (wide terminals): the share of the time some task was
 * stalled waiting for memory (some, and all of them: full), CPU and I/O
 * since the previous sample; a graph of the memory stall (filled) and the
 * CPU's (line), 0 to 100%. Without PSI in the kernel, it says so. */
static void statpanes_psi(struct panes *p, const struct layout_box *bx, const struct panes_at *at)
{
	const struct rect *g = &bx->graph, *t = &bx->text;
	size_t ncols = (size_t)g->w * (size_t)graph_xres(p->style);

	statpanes_box_title(&bx->title, "Pressure", p->sum.psi == 2 ? "stalled, the cgroup" : "stalled");
	term_blank(t->y, t->x, t->h, t->w);
	if (!p->sum.psi) {
		term_puts(t->y, t->x + 1, t->w - 1, "n/a: no PSI in this kernel", ROLE_DIM);
		return;
	}
	if (at->ok && (at->s.valid & SAMPLE_PSI)) {
		int x = t->x + 1 + term_puts(t->y, t->x + 1, t->w - 1, "memory ", ROLE_MAJOR);
		term_printf(t->y, x, t->x + t->w - x, ROLE_NORMAL, "%.1f%%, all %.1f%%", at->s.psi_mem_pm / 10.0,
			    at->s.psi_mem_full_pm / 10.0);
		if (t->h > 1) {
			x = t->x + 1 + term_puts(t->y + 1, t->x + 1, t->w - 1, "cpu ", ROLE_USER);
			x += term_printf(t->y + 1, x, t->x + t->w - x, ROLE_NORMAL, "%.1f%%  ", at->s.psi_cpu_pm / 10.0);
			x += term_puts(t->y + 1, x, t->x + t->w - x, "io ", ROLE_SYS);
			term_printf(t->y + 1, x, t->x + t->w - x, ROLE_NORMAL, "%.1f%%", at->s.psi_io_pm / 10.0);
		}
	} else {
		term_puts(t->y, t->x + 1, t->w - 1, "stalls n/a yet", ROLE_DIM);
	}
	if (g->h <= 0 || panes_cols(p, ncols))
		return;
	resample_pick(p->bk, p->nbk, p->t0_ns, p->t1_ns, ncols, RS_PSI_MEM, panes_hold_tail(p), p->idx);
	for (size_t c = 0; c < ncols; c++) {
		struct graph_col *gc;
		const struct bucket *b = panes_col(p, c, &gc);
		if (!b || !(b->valid & SAMPLE_PSI))
			continue;
		gc->known = 1;
		gc->v[0] = b->max.psi_mem_pm / 10.0;
		gc->line = b->max.psi_cpu_pm / 10.0;
	}
	struct graph_spec s = panes_spec(p, g, 1, 100);
	s.layer_role[0] = ROLE_MAJOR;
	s.line_role = ROLE_USER;
	panes_blit(p, g, &s, ncols);
}

/* Figures with their names, each whole or not at all, from x on row y up
 * to end, a blank between; stops at the first that does not fit. Returns
 * the column after the last one drawn. */
static int put_pieces(int y, int x, int end, char (*pc)[48], int n, enum role r)
{
	for (int i = 0; i < n; i++) {
		int w = (int)strlen(pc[i]);
		if (x + w > end)
			break;
		x += term_printf(y, x, end - x, r, "%s", pc[i]) + 1;
	}
	return x;
}

/* Narrow terminals: the statistics as one or two text rows. */
static void statpanes_compact(struct panes *p, const struct panes_at *at)
{
	const struct rect *r = &p->lay.stats;
	char a[16], b[16], pc[6][48];

	term_blank(r->y, r->x, r->h, r->w);
	if (!at->ok) {
		term_puts(r->y, r->x + 1, r->w - 1, "no sample yet", ROLE_DIM);
		return;
	}
	statpanes_rate(a, sizeof(a), at->minflt_s);
	statpanes_rate(b, sizeof(b), at->majflt_s);
	double share = at->s.minflt + at->s.majflt
			       ? 100.0 * (double)at->s.minflt / (double)(at->s.minflt + at->s.majflt)
			       : 100;
	snprintf(pc[0], sizeof(pc[0]), "procs %u/%u", panes_snap_fits(p) ? p->snap_live : at->s.live_procs,
		 panes_snap_fits(p) ? p->snap_made : at->s.total_procs);
	snprintf(pc[1], sizeof(pc[1]), "threads %u/%u", at->s.live_threads, at->s.total_threads);
	snprintf(pc[2], sizeof(pc[2]), "cores %.1f", isnan(at->user_cores) ? 0 : at->user_cores + at->sys_cores);
	snprintf(pc[3], sizeof(pc[3]), "minor faults %s/s", a);
	snprintf(pc[4], sizeof(pc[4]), "major %s/s", b);
	snprintf(pc[5], sizeof(pc[5]), "%.0f%% from memory", share);
	int end = r->x + r->w;
	enum role fr = at->s.majflt ? ROLE_MAJOR : ROLE_NORMAL;
	if (r->h >= 2) {
		put_pieces(r->y, r->x + 1, end, pc, 3, ROLE_NORMAL);
		put_pieces(r->y + 1, r->x + 1, end, pc + 3, 3, fr);
	} else {
		int x = put_pieces(r->y, r->x + 1, end, pc, 3, ROLE_NORMAL);
		put_pieces(r->y, x + 1, end, pc + 3, 3, fr);
	}
}

void statpanes_draw(struct panes *p)
{
	struct panes_at at;

	panes_at(p, panes_instant(p), &at);
	if (p->lay.stats_compact) {
		statpanes_compact(p, &at);
		return;
	}
	statpanes_tasks(p, &p->lay.box[0], &at);
	statpanes_faults(p, &p->lay.box[1], &at);
	statpanes_cpu(p, &p->lay.box[2], &at);
	if (p->lay.nboxes > 3)
		statpanes_psi(p, &p->lay.box[3], &at);
}
