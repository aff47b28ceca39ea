/* coll_top.c: the tree's peak between samples (coll_top.h). */
#include "coll_top.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds gain to the open interval and to the closed ones since p was last
 * seen: the most it had may lie in any of them. */
static void add_gain(struct coll_top *t, const struct coll_top_proc *p, uint64_t gain)
{
	t->add_kib += gain;
	if (!gain || !p->tick || p->tick >= t->tick)
		return;
	for (size_t i = 0; i < COLL_TOP_HIST; i++) {
		if (!t->hist[i].tick || t->hist[i].tick <= p->tick)
			continue; /* closed at or before it was seen */
		t->hist[i].kib += gain;
		if (t->hist[i].kib > t->bound_kib)
			t->bound_kib = t->hist[i].kib;
	}
	/* seen before the oldest interval kept: no bound holds for those */
	if (t->tick - p->tick >= COLL_TOP_HIST)
		t->unknown = 1;
}

void coll_top_seen(struct coll_top *t, struct coll_top_proc *p, uint64_t rss_kib, uint64_t max_kib,
		   uint64_t est_kib, uint64_t lo_kib, uint64_t hi_kib, int known)
{
	if (!known)
		return;
	if (max_kib < rss_kib)
		max_kib = rss_kib;
	if (p->tick) {
		/* its bound then, plus what it gained up to its most since */
		uint64_t gain = max_kib > p->rss_kib ? max_kib - p->rss_kib : 0;
		add_gain(t, p, gain ? gain + COLL_TOP_SLACK_KIB : 0);
	} else {
		/* born (or first counted) since: its PSS never passed its RSS,
		 * nor its bound now plus the RSS it has lost since its most */
		uint64_t by_now = hi_kib + (max_kib - rss_kib);
		t->add_kib += (by_now < max_kib ? by_now : max_kib) + COLL_TOP_SLACK_KIB;
	}
	*p = (struct coll_top_proc){.tick = t->tick + 1, .rss_kib = rss_kib, .est_kib = est_kib,
				    .lo_kib = lo_kib, .hi_kib = hi_kib};
}

void coll_top_gone(struct coll_top *t, const struct coll_top_proc *p, pid_t pid, uint64_t t_ns,
		   uint64_t top_kib, int top_known, uint64_t est_kib, uint64_t lo_kib, int can_top)
{
	struct coll_top_gone g = {.t_ns = t_ns, .pid = pid};

	if (!top_known) {
		t->open_unknown = 1;
		return;
	}
	if (p->tick) {
		uint64_t gain = top_kib > p->rss_kib ? top_kib - p->rss_kib : 0;
		g.prev_est_kib = p->est_kib;
		g.prev_lo_kib = p->lo_kib;
		g.est_kib = p->est_kib + gain;
		g.lo_kib = p->lo_kib + gain;
		g.hi_kib = p->hi_kib + gain;
		g.top = can_top && gain >= COLL_TOP_MIN_GAIN_KIB;
		add_gain(t, p, gain ? gain + COLL_TOP_SLACK_KIB : 0);
	} else {
		/* never seen by a tick: what it can have added, and the
		 * caller's figures of it at its top */
		g.hi_kib = top_kib;
		g.est_kib = est_kib < top_kib ? est_kib : top_kib;
		g.lo_kib = lo_kib < g.est_kib ? lo_kib : g.est_kib;
		g.top = can_top && g.est_kib >= COLL_TOP_MIN_GAIN_KIB;
		t->add_kib += top_kib + COLL_TOP_SLACK_KIB;
	}
	if (t->ngone < COLL_TOP_GONE)
		t->gone[t->ngone++] = g;
}

int coll_top_exit_sample(const struct coll_top *t, uint64_t live_est_kib, uint64_t live_lo_kib,
			 uint64_t live_hi_kib, struct coll_top_sample *out)
{
	int found = 0;

	/* each exit at a top the ticks missed is a candidate instant: just
	 * before it, it was at its most, and what left later in the interval
	 * was at its last figures */
	for (size_t i = 0; i < t->ngone; i++) {
		const struct coll_top_gone *a = &t->gone[i];
		if (!a->top)
			continue;
		struct coll_top_sample s = {.t_ns = a->t_ns, .est_kib = live_est_kib + a->est_kib,
					    .lo_kib = live_lo_kib + a->lo_kib, .hi_kib = live_hi_kib + a->hi_kib,
					    .pid = a->pid, .tops = 1};
		for (size_t j = 0; j < t->ngone; j++) {
			const struct coll_top_gone *b = &t->gone[j];
			if (j == i || b->t_ns < a->t_ns)
				continue; /* itself, or gone before it */
			s.est_kib += b->prev_est_kib;
			s.lo_kib += b->prev_lo_kib;
			s.hi_kib += b->hi_kib;
		}
		if (!found || s.est_kib > out->est_kib)
			*out = s;
		found = 1;
	}
	return found;
}

void coll_top_close(struct coll_top *t, uint64_t hi_kib, uint64_t now_ns)
{
	uint64_t interval = t->prev_hi_kib + t->add_kib;

	if (t->open_unknown)
		t->unknown = 1;
	if (interval > t->bound_kib || hi_kib > t->bound_kib) {
		t->bound_kib = interval > hi_kib ? interval : hi_kib;
		t->bound_t_ns = now_ns;
	}
	t->tick++;
	t->hist[t->tick % COLL_TOP_HIST].tick = t->tick;
	t->hist[t->tick % COLL_TOP_HIST].kib = interval;
	t->prev_hi_kib = hi_kib;
	t->add_kib = 0;
	t->open_unknown = 0;
	t->ngone = 0;
}
