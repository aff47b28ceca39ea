/* rssmark.c: reads between ticks as the interval's walk passes them (rssmark.h). */
#include "rssmark.h"

#include <errno.h>

#include "rsstrace.h"

int rssmark_add(struct rssmarks *k, uint64_t t0_ns, uint64_t t1_ns, int32_t pid, uint64_t priv_kib)
{
	if (t1_ns < t0_ns || pid <= 0)
		return -EINVAL;
	if (k->n >= RSSMARK_MAX)
		return -ENOSPC;
	k->m[k->n++] = (struct rssmark){t0_ns, t1_ns, pid, priv_kib, 0, RSSMARK_PENDING, 0};
	return 0;
}

int rssmark_forked(const struct rssmarks *k, int32_t pid)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->m[i].pid == pid && k->m[i].forked)
			return 1;
	return 0;
}

void rssmark_step(struct rssmarks *k, uint64_t t_ns, int32_t pid, int own, int member, int64_t d, int ended)
{
	for (size_t i = 0; i < k->n; i++) {
		struct rssmark *m = &k->m[i];
		if (m->pid == pid && ended == RSSMARK_EXIT) {
			/* its end, even one traced before the read: then the read
			 * was of another process (its pid reused) */
			m->state = RSSMARK_DONE;
			continue;
		}
		if (m->state == RSSMARK_DONE || (m->state == RSSMARK_PENDING && t_ns <= m->t0_ns))
			continue;
		if (m->pid == pid && (ended || (!own && d > 0))) {
			/* gone, or its pages now shared with a fork's child */
			if (ended)
				m->state = RSSMARK_DONE;
			else {
				m->dec_kib += (uint64_t)d;
				m->forked = 1;
			}
		} else if (m->pid == pid && own) {
			if (d < 0)
				m->dec_kib += (uint64_t)-d;
		} else if (d > 0 && (!own || member != RSSTRACE_ANON)) {
			/* a page another maps, perhaps one of P's */
			m->dec_kib += (uint64_t)d;
		}
		if (m->dec_kib >= m->priv_kib)
			m->state = RSSMARK_DONE;
	}
}

struct rssmark *rssmark_due(struct rssmarks *k, uint64_t t_ns)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->m[i].state == RSSMARK_PENDING && k->m[i].t1_ns < t_ns) {
			k->m[i].state = RSSMARK_ACTIVE;
			return &k->m[i];
		}
	return NULL;
}

uint64_t rssmark_left(const struct rssmark *m)
{
	return m->priv_kib > m->dec_kib ? m->priv_kib - m->dec_kib : 0;
}

const struct rssmark *rssmark_best(const struct rssmarks *k)
{
	const struct rssmark *b = NULL;
	for (size_t i = 0; i < k->n; i++)
		if (k->m[i].state == RSSMARK_ACTIVE && (!b || rssmark_left(&k->m[i]) > rssmark_left(b)))
			b = &k->m[i];
	return b;
}
