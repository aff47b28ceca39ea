/* panes_ghost: another recorded run's tree PSS over this one's (replay
 * --against), a ghost line on the same time axis, the two aligned at their
 * starts: an instant of this run at t from its start shows the other's PSS at
 * t from its own. Read from the other run's store like the main graph, by the
 * same resampling (the largest value of each column), so a peak survives any
 * zoom in both. */
#include "panes.h"

#include "resample.h"
#include "term.h"

#include <stdlib.h>
#include <string.h>

void panes_ghost_init(struct panes *p, struct store *ghost, const char *label)
{
	uint64_t a = 0, b = 0;

	p->ghost = ghost;
	p->ghost_label = label;
	if (!ghost)
		return;
	store_summary_get(ghost, &p->ghost_sum);
	int have = store_span(ghost, &a, &b) == 0;
	p->ghost_start_ns = p->ghost_sum.start_ns ? p->ghost_sum.start_ns : a;
	p->ghost_end_ns = p->ghost_sum.end_ns > b ? p->ghost_sum.end_ns : have ? b : p->ghost_start_ns;
	if (p->ghost_end_ns < p->ghost_start_ns)
		p->ghost_end_ns = p->ghost_start_ns;
}

uint64_t panes_ghost_span(const struct panes *p)
{
	return p->ghost ? p->ghost_end_ns - p->ghost_start_ns : 0;
}

/* Instant t of this run on the ghost's clock (0: before its start). */
static uint64_t ghost_time(const struct panes *p, uint64_t t)
{
	if (t >= p->start_ns)
		return p->ghost_start_ns + (t - p->start_ns);
	return p->start_ns - t < p->ghost_start_ns ? p->ghost_start_ns - (p->start_ns - t) : 0;
}

/* Grows the ghost's scratch: want buckets, ncols column indices. */
static int ghost_scratch(struct panes *p, size_t want, size_t ncols)
{
	if (want > p->gbk_cap) {
		free(p->gbk);
		p->gbk = malloc(want * sizeof(*p->gbk));
		p->gbk_cap = p->gbk ? want : 0;
	}
	if (ncols > p->gidx_cap) {
		free(p->gidx);
		p->gidx = malloc(ncols * sizeof(*p->gidx));
		p->gidx_cap = p->gidx ? ncols : 0;
	}
	return p->gbk && p->gidx ? 0 : -1;
}

void panes_ghost_cols(struct panes *p, size_t ncols, double *ymax)
{
	if (!p->ghost || !ncols || ghost_scratch(p, p->bk_cap > 2048 ? p->bk_cap : 2048, ncols) < 0)
		return;
	uint64_t g0 = ghost_time(p, p->t0_ns), g1 = ghost_time(p, p->t1_ns);
	uint64_t hold = 3ull * p->interval_ms * 1000000ull;
	size_t n = store_query(p->ghost, g0 > hold ? g0 - hold : 0, g1, p->gbk, p->gbk_cap);

	resample_pick(p->gbk, n, g0, g1, ncols, RS_PSS, hold, p->gidx);
	for (size_t c = 0; c < ncols; c++) {
		const struct bucket *b = p->gidx[c] < 0 ? NULL : &p->gbk[p->gidx[c]];
		if (!b || !(b->valid & SAMPLE_PSS) || b->t0_ns > p->ghost_end_ns + hold)
			continue;
		p->gcol[c].ghost = (double)b->max.pss_kib;
		if (p->gcol[c].ghost > *ymax)
			*ymax = p->gcol[c].ghost;
	}
}

int panes_ghost_at(struct panes *p, uint64_t t, uint64_t *kib)
{
	struct bucket b[64];
	uint64_t g = ghost_time(p, t), hold = 3ull * p->interval_ms * 1000000ull;
	size_t n, k = 0;

	if (!p->ghost || t < p->start_ns || g > p->ghost_end_ns)
		return 0;
	n = store_query(p->ghost, g > hold ? g - hold : 0, g, b, 64);
	for (size_t i = 0; i < n; i++)
		if (b[i].t0_ns / 2 + b[i].t1_ns / 2 <= g && (b[i].valid & SAMPLE_PSS))
			k = i + 1;
	if (!k)
		return 0;
	*kib = b[k - 1].n == 1 ? b[k - 1].max.pss_kib : b[k - 1].mean.pss_kib;
	return 1;
}

void panes_ghost_mark(const struct panes *p, const struct rect *g)
{
	uint64_t pk = p->ghost_sum.peak.t_ns;

	if (!p->ghost || !pk || !p->ghost_sum.peak.pss_kib || pk < p->ghost_start_ns || g->w <= 0 || g->h < 3)
		return;
	uint64_t t = p->start_ns + (pk - p->ghost_start_ns);
	if (t < p->t0_ns || t > p->t1_ns || p->t1_ns <= p->t0_ns)
		return;
	int x = (int)((double)(t - p->t0_ns) / (double)(p->t1_ns - p->t0_ns) * g->w);
	if (x >= g->w)
		x = g->w - 1;
	term_cell(g->y, g->x + x, term_utf8() ? 0x25BD : 'o', ROLE_GHOST);
}
