/* coll_top.c: the tree's peak between samples (coll_top.h). */
#include "coll_top.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* What a process may add to one of the open interval's bounds (forward:
 * span, backward: bspan), while it was there. */
static void put_span(struct coll_top_span *sp, size_t *n, uint64_t open_ns, uint64_t from_ns, uint64_t to_ns,
		     uint64_t kib)
{
	if (!kib || *n >= COLL_TOP_SPANS)
		return;
	sp[*n].from_ns = from_ns > open_ns ? from_ns : open_ns;
	sp[*n].to_ns = to_ns;
	sp[*n].kib = kib;
	(*n)++;
}

static void add_span(struct coll_top *t, uint64_t from_ns, uint64_t to_ns, uint64_t kib)
{
	t->add_kib += kib;
	put_span(t->span, &t->nspan, t->open_ns, from_ns, to_ns, kib);
}

static void add_back_span(struct coll_top *t, uint64_t from_ns, uint64_t to_ns, uint64_t kib)
{
	t->back_add_kib += kib;
	put_span(t->bspan, &t->nbspan, t->open_ns, from_ns, to_ns, kib);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The run's bound: the intervals no longer kept (final), and each kept
 * one's lesser bound, its backward one taken from any later tick: the tree
 * at an instant is at most a later tick's bound plus what it let go of in
 * every interval up to there (a process's drop from an instant to a later
 * tick is no more than its drops from its most in each interval between). */
static void update_bound(struct coll_top *t)
{
	uint64_t best = t->final_kib, best_ns = t->final_ns, later = UINT64_MAX;

	for (uint64_t k = t->tick; k > 0 && t->tick - k < COLL_TOP_HIST; k--) {
		struct coll_top_hist *h = &t->hist[k % COLL_TOP_HIST];
		if (h->tick != k)
			break;
		/* (a traced one's bound is its own: what it let go of is not
		 * known apart from it) */
		uint64_t back = !h->traced && later != UINT64_MAX && later + h->loss_kib < h->back_kib
					? later + h->loss_kib
					: h->back_kib;
		h->eff_back_kib = back;
		/* one with tops unknown bounds nothing yet, and what it let go
		 * of is not known: the earlier ones are bounded from their own */
		later = h->nunknown ? UINT64_MAX : back;
		uint64_t b = min_u64(h->fwd_kib, back);
		if (!h->nunknown && b > best) {
			best = b;
			best_ns = h->end_ns;
		}
	}
	t->bound_kib = best;
	t->bound_t_ns = best_ns;
}

/* An interval with tops unknown waits for the run's end among the others
 * with as many: the highest of their own bounds is kept. */
static void pend(struct coll_top *t, const struct coll_top_hist *h)
{
	uint32_t n = h->nunknown < COLL_TOP_PEND ? h->nunknown : COLL_TOP_PEND;
	struct coll_top_pend *q = &t->pend[n - 1];
	uint64_t b = min_u64(h->fwd_kib, h->eff_back_kib);
	if (!q->set || b > q->base_kib) {
		q->base_kib = b;
		q->end_ns = h->end_ns;
	}
	if (h->nunknown > q->n)
		q->n = h->nunknown;
	q->set = 1;
}

/* The oldest interval kept leaves: its bound (as refined) is final, or
 * waits for the run's end. */
static void hist_leave(struct coll_top *t, const struct coll_top_hist *h)
{
	if (h->nunknown) {
		pend(t, h);
		return;
	}
	uint64_t b = min_u64(h->fwd_kib, h->eff_back_kib);
	if (b > t->final_kib) {
		t->final_kib = b;
		t->final_ns = h->end_ns;
	}
}

/* Adds gain to the open interval (while p was there: to to_ns) and to the
 * closed ones since p was last seen, both ways (their closing ticks counted
 * it at what it was last seen with): the most it had may lie in any of them. */
static void add_gain(struct coll_top *t, const struct coll_top_proc *p, uint64_t gain, uint64_t to_ns)
{
	add_span(t, t->open_ns, to_ns, gain);
	if (!gain || !p->tick || p->tick >= t->tick)
		return;
	for (size_t i = 0; i < COLL_TOP_HIST; i++) {
		if (!t->hist[i].tick || t->hist[i].tick <= p->tick || t->hist[i].traced)
			continue; /* closed at or before it was seen, or traced */
		t->hist[i].fwd_kib += gain;
		t->hist[i].back_kib += gain;
	}
	update_bound(t);
	/* seen before the oldest interval kept: no bound holds for those */
	if (t->tick - p->tick >= COLL_TOP_HIST)
		t->unknown = t->unresolved = 1;
}

void coll_top_seen(struct coll_top *t, struct coll_top_proc *p, const struct coll_top_look *l)
{
	if (!l->known)
		return;
	uint64_t rss = l->rss_kib, max = l->max_kib > rss ? l->max_kib : rss;
	/* backward: what it let go of since its most, in the open interval */
	if (max > rss)
		t->back_live_kib += max - rss + COLL_TOP_SLACK_KIB;
	if (p->tick) {
		/* its bound then, plus what it gained up to its most since, and
		 * the pages its writes can have copied */
		uint64_t gain = (max > p->rss_kib ? max - p->rss_kib : 0) + l->copied_kib;
		add_gain(t, p, gain ? gain + COLL_TOP_SLACK_KIB : 0, UINT64_MAX);
	} else {
		/* born (or first counted) since: its PSS never passed its RSS,
		 * nor its bound now plus the RSS it has lost since its most */
		uint64_t by_now = l->fig.hi_kib + (max - rss);
		add_span(t, l->start_ns, UINT64_MAX,
			 (by_now < max ? by_now : max) + l->copied_kib + COLL_TOP_SLACK_KIB);
	}
	*p = (struct coll_top_proc){.tick = t->tick + 1, .rss_kib = rss, .file_kib = l->file_kib, .fig = l->fig};
}

/* A process gone before the open interval began (told late): its most
 * counts in the intervals kept that it can have been in, both ways; one
 * older than those, or of an unknown most, leaves the run unresolved. */
static void gone_before(struct coll_top *t, const struct coll_top_leave *l, uint64_t kib)
{
	uint64_t oldest = UINT64_MAX;

	if (!l->top_known) {
		t->unknown = t->unresolved = 1;
		return;
	}
	for (size_t i = 0; i < COLL_TOP_HIST; i++) {
		struct coll_top_hist *h = &t->hist[i];
		if (!h->tick)
			continue;
		if (h->start_ns < oldest)
			oldest = h->start_ns;
		if (h->end_ns >= l->start_ns && h->start_ns <= l->t_ns && !h->traced) {
			h->fwd_kib += kib;
			h->back_kib += kib;
		}
	}
	if (oldest == UINT64_MAX || l->start_ns < oldest)
		t->unknown = t->unresolved = 1;
	update_bound(t);
}

void coll_top_gone(struct coll_top *t, const struct coll_top_proc *p, const struct coll_top_leave *l)
{
	struct coll_top_gone g = {.t_ns = l->t_ns, .pid = l->pid};

	if (l->t_ns < t->open_ns && !p->tick) {
		gone_before(t, l, l->top_kib + l->copied_kib + COLL_TOP_SLACK_KIB);
		return;
	}
	uint64_t to_ns = l->t_ns > t->open_ns ? l->t_ns : t->open_ns;
	if (!l->top_known) {
		/* its most is known at the run's end at best (coll_top_resolve):
		 * the intervals it was there in wait for it */
		put_span(t->uspan, &t->nuspan, t->open_ns, l->start_ns, to_ns, 1);
		t->uspan_all++;
		if (p->tick && p->tick < t->tick) {
			for (size_t i = 0; i < COLL_TOP_HIST; i++)
				if (t->hist[i].tick > p->tick && !t->hist[i].traced)
					t->hist[i].nunknown++;
			if (t->tick - p->tick >= COLL_TOP_HIST)
				t->unresolved = 1;
			update_bound(t);
		}
		t->unknown = 1;
		return;
	}
	if (p->tick) {
		uint64_t gain = (l->top_kib > p->rss_kib ? l->top_kib - p->rss_kib : 0) + l->copied_kib;
		g.prev_est_kib = p->fig.est_kib;
		g.prev_own_kib = p->fig.own_kib;
		/* its PSS never passed its RSS */
		g.hi_kib = p->fig.hi_kib + gain;
		if (g.hi_kib > l->top_kib + l->copied_kib)
			g.hi_kib = l->top_kib + l->copied_kib;
		g.est_kib = l->est_kib < g.hi_kib ? l->est_kib : g.hi_kib;
		g.lo_kib = l->lo_kib < g.est_kib ? l->lo_kib : g.est_kib;
		g.top = l->can_top && gain >= COLL_TOP_MIN_GAIN_KIB;
		add_gain(t, p, gain ? gain + COLL_TOP_SLACK_KIB : 0, to_ns);
		add_back_span(t, l->start_ns, to_ns, g.hi_kib + COLL_TOP_SLACK_KIB);
	} else {
		/* never seen by a tick: what it can have added, and the
		 * caller's figures of it at its top */
		uint64_t top = l->top_kib + l->copied_kib;
		g.hi_kib = top;
		g.est_kib = l->est_kib < top ? l->est_kib : top;
		g.lo_kib = l->lo_kib < g.est_kib ? l->lo_kib : g.est_kib;
		g.top = l->can_top && g.est_kib >= COLL_TOP_MIN_GAIN_KIB;
		add_span(t, l->start_ns, to_ns, top + COLL_TOP_SLACK_KIB);
		add_back_span(t, l->start_ns, to_ns, top + COLL_TOP_SLACK_KIB);
	}
	if (t->ngone < COLL_TOP_GONE)
		t->gone[t->ngone++] = g;
}

int coll_top_exit_sample(const struct coll_top *t, const struct coll_top_live *live, size_t nlive,
			 uint64_t now_ns, const struct coll_top_ghosts *g, struct coll_top_sample *out)
{
	int found = 0;

	/* each exit at a top the ticks missed is a candidate instant: just
	 * before it, it was at its most, what left later in the interval was
	 * at its last figures, and what lives was as the tick read it (or, the
	 * tick late, as the last one did) */
	for (size_t i = 0; i < t->ngone; i++) {
		const struct coll_top_gone *a = &t->gone[i];
		if (!a->top)
			continue;
		/* (one told during the tick's own reads was read after it) */
		int prompt = now_ns < a->t_ns || now_ns - a->t_ns <= COLL_TOP_PROMPT_NS;
		uint64_t ghost_est = prompt ? g->now_est_kib : g->prev_est_kib;
		uint64_t ghost_hi = prompt ? g->now_hi_kib : g->prev_hi_kib;
		struct coll_top_sample s = {.t_ns = a->t_ns, .est_kib = ghost_est + a->est_kib,
					    .lo_kib = a->lo_kib, .hi_kib = ghost_hi + a->hi_kib,
					    .pid = a->pid, .tops = 1};
		for (size_t j = 0; j < t->ngone; j++) {
			const struct coll_top_gone *b = &t->gone[j];
			if (j == i || b->t_ns < a->t_ns)
				continue; /* itself, or gone before it */
			/* in the estimate at its last figures; in the floor not
			 * at all: it may have let go of its pages before a's */
			s.est_kib += b->prev_est_kib;
			s.hi_kib += b->hi_kib;
		}
		for (size_t j = 0; j < nlive; j++) {
			const struct coll_top_live *l = &live[j];
			if (l->start_ns > a->t_ns)
				continue; /* not there yet */
			if (prompt) {
				s.est_kib += l->now.est_kib;
				s.lo_kib += l->now.lo_kib;
				s.hi_kib += l->now.hi_kib;
			} else if (l->seen) {
				/* no read at the exit: at least its floor now, less
				 * what its faults can have mapped since the last tick */
				s.est_kib += l->prev.est_kib;
				s.lo_kib += l->now.lo_kib > l->moved_kib ? l->now.lo_kib - l->moved_kib : 0;
				s.hi_kib += l->now.hi_kib > l->prev.hi_kib ? l->now.hi_kib : l->prev.hi_kib;
			} else {
				s.hi_kib += l->now.hi_kib; /* born since the last tick: not read then */
			}
		}
		if (!found || s.lo_kib > out->lo_kib)
			*out = s;
		found = 1;
	}
	return found;
}

uint64_t coll_top_exit_extra(const struct coll_top *t)
{
	uint64_t best = 0;

	for (size_t i = 0; i < t->ngone; i++) {
		if (!t->gone[i].top)
			continue;
		if (t->gone[i].est_kib > best)
			best = t->gone[i].est_kib;
	}
	return best;
}

/* The most the spans add at one instant: a sweep over their ends (an end
 * before a start at the same instant: the one gone, the other not yet). */
static uint64_t spans_max(const struct coll_top_span *sp, size_t nsp)
{
	struct ev {
		uint64_t ns;
		int64_t kib;
	} ev[2 * COLL_TOP_SPANS];
	size_t n = 0;
	uint64_t best = 0;
	int64_t sum = 0;

	for (size_t i = 0; i < nsp; i++) {
		ev[n++] = (struct ev){sp[i].from_ns, (int64_t)sp[i].kib};
		ev[n++] = (struct ev){sp[i].to_ns < sp[i].from_ns ? sp[i].from_ns : sp[i].to_ns, -(int64_t)sp[i].kib};
	}
	/* insertion sort: a tick's spans are a few dozen */
	for (size_t i = 1; i < n; i++) {
		struct ev x = ev[i];
		size_t j = i;
		while (j > 0 && (ev[j - 1].ns > x.ns || (ev[j - 1].ns == x.ns && ev[j - 1].kib > x.kib))) {
			ev[j] = ev[j - 1];
			j--;
		}
		ev[j] = x;
	}
	for (size_t i = 0; i < n; i++) {
		sum += ev[i].kib;
		if (sum > 0 && (uint64_t)sum > best)
			best = (uint64_t)sum;
	}
	return best;
}

void coll_top_close(struct coll_top *t, uint64_t hi_kib, uint64_t now_ns)
{
	/* what the processes may add, at the one instant they add the most */
	uint64_t fwd = t->prev_hi_kib + (t->nspan < COLL_TOP_SPANS ? spans_max(t->span, t->nspan) : t->add_kib);
	uint64_t back = hi_kib + t->back_live_kib +
			(t->nbspan < COLL_TOP_SPANS ? spans_max(t->bspan, t->nbspan) : t->back_add_kib);
	/* the trace's bound is the interval's, both ways: it holds every
	 * instant of it, its ends too, and every process the trace saw (the
	 * ticks' figures miss one begun as a tick read); a later interval's
	 * bound says nothing of it (update_bound) */
	int traced = t->traced_kib != 0;
	if (traced)
		fwd = back = t->traced_kib;
	t->traced_kib = 0;

	/* how many that left with their most unknown were there at once */
	uint32_t nunknown = (uint32_t)(t->nuspan < COLL_TOP_SPANS ? spans_max(t->uspan, t->nuspan) : t->uspan_all);
	if (traced)
		nunknown = 0; /* the trace saw their tops */
	t->tick++;
	struct coll_top_hist *h = &t->hist[t->tick % COLL_TOP_HIST];
	if (h->tick)
		hist_leave(t, h);
	*h = (struct coll_top_hist){.tick = t->tick, .start_ns = t->open_ns, .end_ns = now_ns, .fwd_kib = fwd, .back_kib = back,
				    .loss_kib = traced ? 0 : back - hi_kib, .eff_back_kib = back,
				    .nunknown = nunknown, .traced = traced};
	update_bound(t);
	t->prev_hi_kib = hi_kib;
	t->add_kib = 0;
	t->nspan = 0;
	t->back_add_kib = 0;
	t->back_live_kib = 0;
	t->nbspan = 0;
	t->open_ns = now_ns;
	t->nuspan = 0;
	t->uspan_all = 0;
	t->ngone = 0;
}

void coll_top_traced(struct coll_top *t, uint64_t kib)
{
	t->traced_kib = kib ? kib : 1;
}

void coll_top_resolve(struct coll_top *t, uint64_t max_rss_kib)
{
	if (!t->unknown || t->unresolved || !max_rss_kib)
		return;
	uint64_t each = max_rss_kib + COLL_TOP_SLACK_KIB;
	for (uint64_t k = t->tick; k > 0 && t->tick - k < COLL_TOP_HIST; k--) {
		struct coll_top_hist *h = &t->hist[k % COLL_TOP_HIST];
		if (h->tick == k && h->nunknown)
			pend(t, h);
	}
	for (uint32_t n = 1; n <= COLL_TOP_PEND; n++) {
		if (!t->pend[n - 1].set)
			continue;
		uint64_t b = t->pend[n - 1].base_kib + (uint64_t)t->pend[n - 1].n * each;
		if (b > t->final_kib) {
			t->final_kib = b;
			t->final_ns = t->pend[n - 1].end_ns;
		}
		t->pend[n - 1].set = 0;
	}
	/* the kept ones now bound them too: each at that, both ways, and in
	 * what the tree let go of (an earlier interval's backward bound goes
	 * through them) */
	for (uint64_t k = t->tick; k > 0 && t->tick - k < COLL_TOP_HIST; k--) {
		struct coll_top_hist *h = &t->hist[k % COLL_TOP_HIST];
		if (h->tick != k || !h->nunknown)
			continue;
		uint64_t add = (uint64_t)h->nunknown * each;
		h->fwd_kib += add;
		h->back_kib += add;
		h->loss_kib += add;
		h->nunknown = 0;
	}
	update_bound(t);
	t->unknown = 0;
}
