/* pssched: which processes get a smaps_rollup read this tick. Pure: the
 * collector describes its live processes, this picks within a CPU budget. */
#ifndef SPACETIME_PSSCHED_H
#define SPACETIME_PSSCHED_H

#include <stddef.h>
#include <stdint.h>

/* Fixed cost of one smaps_rollup read and the default cost per KiB of RSS
 * (~10 us per MiB, measured on kernel 6.x); the collector learns the latter. */
#define PSSCHED_COST_FIXED_NS 5000.0
#define PSSCHED_COST_NS_PER_KIB 10.0

struct pssched_item {
	uint64_t rss_kib;       /* now */
	uint64_t anon_rss_kib, shared_rss_kib;       /* now */
	uint64_t rd_anon_rss_kib, rd_shared_rss_kib; /* at the last read */
	uint64_t age_ns;        /* since the last read */
	int never_read;
};

/* The expected cost in ns of reading a process of rss_kib. */
double pssched_cost(double ns_per_kib, uint64_t rss_kib);
/* How much a fresh read would improve the estimate, per ns of cost: never-read
 * processes first (small before large), then RSS change plus 1 MiB per second
 * of staleness. Negative: nothing to read (no RSS). */
double pssched_priority(const struct pssched_item *it, double ns_per_kib);
/* Writes to out (up to max) the indices of the items to read, best first,
 * while the expected costs fit in tokens_ns: the first pick is always made
 * when tokens_ns > 0, even if it costs more (the debt is paid by later ticks).
 * Returns how many were picked. O(n log n). */
size_t pssched_pick(const struct pssched_item *items, size_t n, double tokens_ns,
		    double ns_per_kib, uint32_t *out, size_t max);

/* The CPU time PSS reads may spend, in two accounts. Everything spacetime
 * spends besides PSS reads is owed by the main account, and a debt carries
 * over (a burst of other work, such as a frame of the dashboard, is paid back
 * by later ticks, not forgiven); a tenth of each credit goes to a reserve only
 * PSS reads draw on, so they go on at that rate however costly the rest is.
 * Over time spacetime spends max(credit, other + credit / 10). */
struct pssched_budget {
	double main_ns, reserve_ns;
};

/* Adds credit_ns of budget, takes other_ns off. Each account holds at most its
 * share of cap_ns; other work's debt stops at the main account's share (what
 * PSS reads owe is paid in full), and what the main account would get past
 * its share pays off the reserve's overdraft. */
void pssched_budget_credit(struct pssched_budget *b, double credit_ns, double other_ns, double cap_ns);
/* Whether other work taken off with credit_ns could change what PSS reads may
 * spend after it: not while the main account stays empty even without it
 * (the reserve alone pays), so its cost need not be learnt yet. */
int pssched_budget_other_matters(const struct pssched_budget *b, double credit_ns);
/* What PSS reads may spend now (> 0: read at least one). */
double pssched_budget_avail(const struct pssched_budget *b);
/* Pays cost_ns of PSS reads: from the reserve first; the rest, an overdraft
 * included, from the main account if it had anything, else the reserve. */
void pssched_budget_pay(struct pssched_budget *b, double cost_ns);

#endif
