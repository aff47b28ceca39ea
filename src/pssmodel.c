/* pssmodel.c: the PSS estimate, its bounds and the sweep trigger (see pssmodel.h). */
#include "pssmodel.h"

#include <stdlib.h>

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t mul(uint64_t x, double r)
{
	if (r <= 0)
		return 0;
	return (uint64_t)((double)x * r + 0.5);
}

static double ratio(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 1.0;
	return part >= whole ? 1.0 : (double)part / (double)whole;
}

/* A never-read process: its program's ratios, or all of its RSS. A child
 * that has not exec'd shares its anonymous pages with its parent until it
 * writes them: half is the likelier guess, RSS the bound. Its anonymous pages
 * are surely its own (private: a MAP_SHARED anonymous one is shmem) when
 * it has not forked since its exec, and a child that has not exec'd owns
 * what it has beyond what it can have inherited: the lower bound. */
static void estimate_unread(struct pssmodel_proc *p)
{
	double ar = p->prog_anon_ratio >= 0 ? p->prog_anon_ratio : p->fork_only ? 0.5 : 1.0;
	double sr = p->prog_shared_ratio >= 0 ? p->prog_shared_ratio : 1.0;
	uint64_t shared = mul(p->shared_rss_kib, sr);
	uint64_t own = 0;

	if (p->forks_known && !p->forked)
		own = p->fork_only ? sub0(p->anon_rss_kib, p->inherit_max_kib) : p->anon_rss_kib;
	p->est_anon_kib = mul(p->anon_rss_kib, ar);
	if (p->est_anon_kib < own)
		p->est_anon_kib = own;
	p->est_file_kib = shared; /* file or shmem: unknown until read; file is likelier */
	p->est_shmem_kib = 0;
	p->hi_kib = p->anon_rss_kib + p->shared_rss_kib;
	p->lo_kib = own;
	p->unpaid_kib = 0; /* never read: its doubt is already all of it */
	p->inherit_kib = 0;
	p->released_kib = 0;
	p->exact = 0;
}

/* Its own pages, at least (pssmodel_proc.own_kib). Read: its private
 * anonymous pages then (a shared one counts half at most in its PSS, so
 * at least 2 PSS - RSS of them are private; and private pages that are not
 * file or shmem ones), less the anonymous RSS lost since, plus the anonymous
 * RSS gained (new pages are its own); and its private file pages then (its
 * private pages beyond its anonymous RSS) while no process mapped anything
 * new since (dilution: they may be others' now) nor did it unmap any. Never
 * read: the lower bound, which counts only its own anonymous pages. Nothing
 * once it forked: its pages are a child's too. */
static uint64_t own_pages(struct pssmodel_proc *p)
{
	p->own_file_kib = 0;
	if (p->forked)
		return 0;
	if (!p->read)
		return p->lo_kib;
	uint64_t by_share = sub0(2 * p->rd_pss_anon_kib, p->rd_anon_rss_kib);
	uint64_t by_private = sub0(p->rd_private_kib, p->rd_pss_file_kib + p->rd_pss_shmem_kib);
	uint64_t priv = by_share > by_private ? by_share : by_private;
	if (priv > p->rd_anon_rss_kib)
		priv = p->rd_anon_rss_kib;
	uint64_t anon = sub0(priv, sub0(p->rd_anon_rss_kib, p->anon_rss_kib)) +
			sub0(p->anon_rss_kib, p->rd_anon_rss_kib);
	uint64_t file = sub0(p->rd_private_kib, p->rd_anon_rss_kib);
	if (p->diluted_kib || p->shared_rss_kib < p->rd_shared_rss_kib)
		file = 0;
	/* (no more than its file RSS then: a climb between the two reads
	 * makes private pages past anon RSS that are anonymous) */
	p->own_file_kib = file < p->rd_shared_rss_kib ? file : p->rd_shared_rss_kib;
	return anon + file;
}

/* What a read process stopped sharing since its read passes to the others
 * that map it: its share of the pages it broke copy-on-write on
 * (unexplained faults), unmapped or freed; never more than it shared. */
static uint64_t released(const struct pssmodel_proc *p, uint64_t unexplained, uint64_t down_a, uint64_t down_s,
			 double ar, double sr)
{
	uint64_t rd_shared_pss = p->rd_pss_file_kib + p->rd_pss_shmem_kib;
	uint64_t q_a = sub0(p->rd_pss_anon_kib, p->rd_private_kib);
	uint64_t rel = (unexplained < q_a ? unexplained : q_a) + mul(down_s, sr) + (q_a ? mul(down_a, ar) : 0);
	uint64_t q_all = sub0(p->rd_pss_anon_kib + rd_shared_pss, p->rd_private_kib);
	return rel < q_all ? rel : q_all;
}

/* The estimate and bounds of a process read before, from its read and the
 * change of its counters since. */
static void estimate_read(struct pssmodel_proc *p, uint64_t page_kib)
{
	uint64_t rd_shared_pss = p->rd_pss_file_kib + p->rd_pss_shmem_kib;
	uint64_t up_a = sub0(p->anon_rss_kib, p->rd_anon_rss_kib);
	uint64_t down_a = sub0(p->rd_anon_rss_kib, p->anon_rss_kib);
	uint64_t up_s = sub0(p->shared_rss_kib, p->rd_shared_rss_kib);
	uint64_t down_s = sub0(p->rd_shared_rss_kib, p->shared_rss_kib);
	double ar = ratio(p->rd_pss_anon_kib, p->rd_anon_rss_kib);
	double sr = ratio(rd_shared_pss, p->rd_shared_rss_kib);
	uint64_t unpaid_a = sub0(p->rd_anon_rss_kib, p->rd_pss_anon_kib);
	uint64_t unpaid_s = sub0(p->rd_shared_rss_kib, rd_shared_pss);

	/* Faults the growth does not explain: copy-on-write breaks at most, each
	 * a page this process (and the tree, by as much again) now pays more
	 * for; never more than the anonymous pages it shared. */
	uint64_t faults_kib = p->faults > p->rd_faults ? (p->faults - p->rd_faults) * page_kib : 0;
	uint64_t unexplained = sub0(faults_kib, up_a + up_s);
	uint64_t cow = unexplained < unpaid_a + unpaid_s ? unexplained : unpaid_a + unpaid_s;
	if (cow > p->rd_anon_rss_kib)
		cow = p->rd_anon_rss_kib;

	/* anonymous: growth in full, shrinking by the ratio (bounds: all of it
	 * private or all of it shared) */
	uint64_t est_a = p->rd_pss_anon_kib + up_a + cow / 2;
	uint64_t sh_a = mul(down_a, ar);
	est_a = sub0(est_a, sh_a);
	uint64_t hi_a = p->rd_pss_anon_kib + up_a + cow;
	uint64_t lo_a = sub0(p->rd_pss_anon_kib + up_a, down_a);
	/* shared: both ways by the ratio; bounds: the change in full, or none */
	uint64_t est_s = sub0(rd_shared_pss + mul(up_s, sr), mul(down_s, sr));
	uint64_t hi_s = rd_shared_pss + up_s;
	uint64_t lo_s = sub0(rd_shared_pss, down_s);
	if (p->forked) {
		/* its pages are shared with a child now: as low as a share of them */
		lo_a /= 2;
		lo_s /= 2;
	}
	/* Others mapping its pages lower its share of them, by half of what they
	 * mapped at most: any file or shmem page (even one it mapped alone when
	 * read), and the anonymous pages it already shared (copy-on-write from a
	 * fork: a new sibling's fork shares them once more). The estimate moves
	 * half way down. */
	uint64_t q_a = sub0(p->rd_pss_anon_kib, p->rd_private_kib);
	p->released_kib = released(p, unexplained, down_a, down_s, ar, sr);
	uint64_t half = p->diluted_kib / 2;
	uint64_t dil_s = half < rd_shared_pss ? half : rd_shared_pss;
	uint64_t dil_a = half - dil_s < q_a ? half - dil_s : q_a;
	lo_a = sub0(lo_a, dil_a);
	lo_s = sub0(lo_s, dil_s);
	est_a = sub0(est_a, dil_a / 2);
	est_s = sub0(est_s, dil_s / 2);
	uint64_t dil = dil_a + dil_s;
	if (est_a > hi_a)
		est_a = hi_a;
	if (est_a < lo_a)
		est_a = lo_a;
	p->est_anon_kib = est_a;
	uint64_t shmem = rd_shared_pss ? mul(est_s, (double)p->rd_pss_shmem_kib / (double)rd_shared_pss) : 0;
	p->est_shmem_kib = shmem;
	p->est_file_kib = est_s - shmem;
	p->hi_kib = hi_a + hi_s;
	p->lo_kib = lo_a + lo_s;
	p->unpaid_kib = unpaid_a + unpaid_s;
	p->inherit_kib = p->ghosted_kib < p->unpaid_kib ? p->ghosted_kib : p->unpaid_kib;
	/* Exact: nothing changed but anonymous growth of a process that shared
	 * no anonymous pages (new pages are its own), and nothing others did
	 * can have moved its share. */
	p->exact = !p->forked && !up_s && !down_s && !cow && !down_a && (!up_a || !unpaid_a) && !dil &&
		   !p->inherit_kib;
}

void pssmodel_estimate(struct pssmodel_proc *p, uint64_t page_kib)
{
	if (p->read)
		estimate_read(p, page_kib);
	else
		estimate_unread(p);
	p->est_kib = p->est_anon_kib + p->est_file_kib + p->est_shmem_kib;
	if (p->hi_kib < p->est_kib)
		p->hi_kib = p->est_kib;
	if (p->lo_kib > p->est_kib)
		p->lo_kib = p->est_kib;
	if (p->exact)
		p->hi_kib = p->lo_kib = p->est_kib;
	p->own_kib = own_pages(p);
	if (p->own_kib > p->lo_kib)
		p->own_kib = p->lo_kib;
	if (p->own_file_kib > p->own_kib)
		p->own_file_kib = p->own_kib;
}

uint64_t pssmodel_doubt(const struct pssmodel_proc *p)
{
	return p->hi_kib - p->lo_kib + p->inherit_kib;
}

uint64_t pssmodel_shared_part(const struct pssmodel_proc *p)
{
	if (!p->read) /* a new program's anonymous pages are its own */
		return p->est_file_kib + p->est_shmem_kib + (p->fork_only ? p->est_anon_kib : 0);
	uint64_t rd_pss = p->rd_pss_anon_kib + p->rd_pss_file_kib + p->rd_pss_shmem_kib;
	return sub0(rd_pss, p->rd_private_kib);
}

void pssmodel_exit(struct pssmodel *m, const struct pssmodel_proc *p)
{
	pssmodel_add_ghost(m, pssmodel_shared_part(p));
}

void pssmodel_add_ghost(struct pssmodel *m, uint64_t kib)
{
	m->ghost_kib += kib;
}

void pssmodel_total(const struct pssmodel *m, const struct pssmodel_proc *procs, size_t n,
		    struct pssmodel_total *out)
{
	uint64_t est = 0, hi = 0, lo = 0, doubt = 0, inherit = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pssmodel_proc *p = &procs[i];
		est += p->est_kib;
		hi += p->hi_kib;
		lo += p->lo_kib;
		doubt += pssmodel_doubt(p);
		/* the most the living can have inherited since their reads */
		inherit += p->inherit_kib;
	}
	uint64_t ghost = m->ghost_kib < inherit ? m->ghost_kib : inherit;
	out->ghost_kib = ghost;
	out->est_kib = est + ghost / 2;
	out->hi_kib = hi + ghost;
	out->doubt_kib = doubt;
	out->lo_kib = lo;
}

int pssmodel_need_sweep(const struct pssmodel *m, const struct pssmodel_total *t)
{
	uint64_t base = m->peak_kib > m->tried_kib ? m->peak_kib : m->tried_kib;
	double est = (double)t->est_kib, hi = (double)t->hi_kib;

	if (!t->doubt_kib || t->hi_kib <= m->peak_kib + PSSMODEL_MIN_KIB)
		return 0;
	/* a plateau above the measured peak (not the one swept last): the
	 * processes hold still now, so a sweep can measure what a climb's could not */
	double settled = (double)m->settled_kib, last = (double)m->last_est_kib;
	int still = est <= last && est >= last * (1.0 - PSSMODEL_SETTLE / 2);
	if (t->est_kib > m->peak_kib + PSSMODEL_MIN_KIB && est > (double)m->peak_kib * (1.0 + PSSMODEL_SETTLE) &&
	    still && (est > settled * (1.0 + PSSMODEL_SETTLE) || est < settled * (1.0 - PSSMODEL_SETTLE)))
		return 1;
	/* a climb: past the peak, or past what the last unsure sweep tried */
	if (t->hi_kib <= base + PSSMODEL_MIN_KIB)
		return 0;
	if (hi > (double)base * (1.0 + PSSMODEL_EPS_HI))
		return 1;
	double eps = m->thrifty ? PSSMODEL_EPS_THRIFTY : PSSMODEL_EPS;
	return t->est_kib > base + PSSMODEL_MIN_KIB && est > (double)base * (1.0 + eps);
}

struct ranked {
	uint64_t doubt;
	uint32_t idx;
};

static int by_doubt_desc(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->doubt != y->doubt)
		return x->doubt < y->doubt ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

size_t pssmodel_pick(const struct pssmodel *m, const struct pssmodel_proc *procs, size_t n,
		     const struct pssmodel_total *t, uint32_t *out)
{
	struct ranked *r = n ? malloc(n * sizeof(*r)) : NULL;
	uint64_t left = 0, kept = 0;
	size_t k = 0, j = 0;
	double sure = (double)t->est_kib * PSSMODEL_SURE;
	(void)m;
	for (size_t i = 0; i < n; i++)
		if (procs[i].swept && !procs[i].skip) /* a second read now would not settle it */
			kept += pssmodel_doubt(&procs[i]);
	/* more than the sample may leave in doubt whatever else is read (one
	 * that exited or forked as it was read): reading the rest is no use */
	if ((double)kept > sure) {
		free(r);
		return 0;
	}
	left = kept;
	for (size_t i = 0; i < n; i++) {
		uint64_t d = pssmodel_doubt(&procs[i]);
		if (!d || procs[i].unreadable || procs[i].swept || procs[i].skip)
			continue;
		left += d;
		if (r)
			r[j++] = (struct ranked){d, (uint32_t)i};
		else
			out[k++] = (uint32_t)i; /* no memory to rank: read them all */
	}
	if (!r)
		return k;
	qsort(r, j, sizeof(*r), by_doubt_desc);
	for (size_t i = 0; i < j && (double)left > sure; i++) {
		out[k++] = r[i].idx;
		left -= r[i].doubt;
	}
	free(r);
	return k;
}

size_t pssmodel_sweep(const struct pssmodel *m, struct pssmodel_proc *procs, size_t n, struct pssmodel_total *t,
		      uint32_t *out, void (*read)(void *ctx, uint32_t i), void *ctx)
{
	size_t k = 0;

	for (int pass = 0; pass < PSSMODEL_SWEEP_PASSES; pass++) {
		/* never picks one marked swept: room for them all after k */
		size_t more = pssmodel_pick(m, procs, n, t, out + k);
		for (size_t j = k; j < k + more; j++) {
			read(ctx, out[j]);
			procs[out[j]].swept = 1;
		}
		k += more;
		pssmodel_total(m, procs, n, t);
		if (!more || pssmodel_sure(t))
			break;
	}
	return k;
}

int pssmodel_sure(const struct pssmodel_total *t)
{
	return (double)t->doubt_kib <= (double)t->est_kib * PSSMODEL_SURE;
}

int pssmodel_observe(struct pssmodel *m, const struct pssmodel_total *t, int trusted, int swept)
{
	int sure = trusted && pssmodel_sure(t);

	if (!t->ghost_kib) /* nobody alive can have inherited them, yet */
		m->ghost_kib = m->pending_kib < m->ghost_kib ? m->pending_kib : m->ghost_kib;
	m->last_est_kib = t->est_kib;
	if (swept && trusted)
		m->settled_kib = t->est_kib; /* a sweep that moved may be tried again */
	if (sure) {
		m->tried_kib = 0;
		if (t->est_kib > m->peak_kib)
			m->peak_kib = t->est_kib;
	} else if (swept) {
		if (t->est_kib > m->tried_kib)
			m->tried_kib = t->est_kib;
	} else if ((double)t->est_kib < (double)m->tried_kib * 0.9) {
		m->tried_kib = 0; /* that moment has passed */
	}
	return sure;
}
