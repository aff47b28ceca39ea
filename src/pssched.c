/* pssched.c: budgeted choice of smaps_rollup reads. */
#include "pssched.h"

#include <stdlib.h>

double pssched_cost(double ns_per_kib, uint64_t rss_kib)
{
	return PSSCHED_COST_FIXED_NS + ns_per_kib * (double)rss_kib;
}

static double absdiff(uint64_t a, uint64_t b)
{
	return a > b ? (double)(a - b) : (double)(b - a);
}

double pssched_priority(const struct pssched_item *it, double ns_per_kib)
{
	if (!it->rss_kib)
		return -1;
	double cost = pssched_cost(ns_per_kib, it->rss_kib);
	if (it->never_read)
		return 1e12 / cost;
	double gain = absdiff(it->anon_rss_kib, it->rd_anon_rss_kib) +
		      absdiff(it->shared_rss_kib, it->rd_shared_rss_kib) +
		      (double)it->age_ns / 1e9 * 1024.0;
	return gain / cost;
}

struct ranked {
	double prio;
	uint32_t idx;
};

static int by_prio_desc(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio < y->prio ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

size_t pssched_pick(const struct pssched_item *items, size_t n, double tokens_ns,
		    double ns_per_kib, uint32_t *out, size_t max)
{
	struct ranked *r;
	size_t m = 0, k = 0;

	if (tokens_ns <= 0 || !n || !max || !(r = malloc(n * sizeof(*r))))
		return 0;
	for (size_t i = 0; i < n; i++) {
		double p = pssched_priority(&items[i], ns_per_kib);
		if (p > 0)
			r[m++] = (struct ranked){p, (uint32_t)i};
	}
	qsort(r, m, sizeof(*r), by_prio_desc);
	for (size_t i = 0; i < m && k < max && tokens_ns > 0; i++) {
		out[k++] = r[i].idx;
		tokens_ns -= pssched_cost(ns_per_kib, items[r[i].idx].rss_kib);
	}
	free(r);
	return k;
}

#define RESERVE 0.1

void pssched_budget_credit(struct pssched_budget *b, double credit_ns, double other_ns, double cap_ns)
{
	double main_cap = cap_ns * (1 - RESERVE), res_cap = cap_ns * RESERVE;
	/* Other work's debt is bounded (a burst at start-up must not silence
	 * PSS reads for long); what PSS reads owe is not, it is paid in full. */
	double floor = b->main_ns < -main_cap ? b->main_ns : -main_cap;

	b->main_ns += credit_ns * (1 - RESERVE) - other_ns;
	if (b->main_ns < floor)
		b->main_ns = floor;
	b->reserve_ns += credit_ns * RESERVE;
	/* A full main account pays off the reserve's overdraft. */
	if (b->main_ns > main_cap) {
		if (b->reserve_ns < 0) {
			double spill = b->main_ns - main_cap;
			b->reserve_ns += spill < -b->reserve_ns ? spill : -b->reserve_ns;
		}
		b->main_ns = main_cap;
	}
	if (b->reserve_ns > res_cap)
		b->reserve_ns = res_cap;
}

int pssched_budget_other_matters(const struct pssched_budget *b, double credit_ns)
{
	return b->main_ns + credit_ns * (1 - RESERVE) > 0;
}

double pssched_budget_avail(const struct pssched_budget *b)
{
	return b->reserve_ns + (b->main_ns > 0 ? b->main_ns : 0);
}

void pssched_budget_pay(struct pssched_budget *b, double cost_ns)
{
	double r = b->reserve_ns > 0 ? b->reserve_ns : 0;

	if (cost_ns <= r) {
		b->reserve_ns -= cost_ns;
		return;
	}
	b->reserve_ns -= r;
	cost_ns -= r;
	/* The rest, overdraft included, is owed by the account that allowed the
	 * read: the main one if it had anything, else the reserve. */
	if (b->main_ns > 0)
		b->main_ns -= cost_ns;
	else
		b->reserve_ns -= cost_ns;
}
