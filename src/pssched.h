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

/* The CPU time PSS reads may spend: credited every tick at the budget's rate,
 * held up to a cap (an idle stretch does not buy a burst), and a read dearer
 * than what is left owes the rest, paid in full by the next credits. Nothing
 * else spacetime spends is charged to it: that work cannot be put off, and
 * charged it would leave the reads, on which the peak stands, nothing. */
struct pssched_budget {
	double tokens_ns;
};

/* Adds credit_ns of budget, holding at most cap_ns. */
void pssched_budget_credit(struct pssched_budget *b, double credit_ns, double cap_ns);
/* What PSS reads may spend now (> 0: read at least one). */
double pssched_budget_avail(const struct pssched_budget *b);
/* Pays cost_ns of PSS reads (an overdraft is owed). */
void pssched_budget_pay(struct pssched_budget *b, double cost_ns);

#endif
