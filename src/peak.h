/* peak: what a run's peak PSS figure is, for every reader alike (the summary,
 * the JSON, the dashboard): the figure, how it was had, and how far the true
 * peak can be from it. The figure is read (a sum of reads) or a floor (an
 * exit sample, or a tick whose estimate passed every sum of reads and no
 * sweep could settle: the least it had), never an estimate while any was
 * read. */
#ifndef SPACETIME_PEAK_H
#define SPACETIME_PEAK_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct peak {
	uint64_t kib;         /* the figure (0: none: nothing was measured) */
	uint64_t t_ns;        /* its instant */
	uint64_t doubt_kib;   /* how much of it is estimated (not read) */
	uint64_t bound_kib;   /* no instant of the tree went above this */
	int bound_known;      /* bound_kib holds (taskstats gave every high-water mark) */
	int sum_of_reads;     /* the figure's instant was a tick whose reads made it
			       * (PSSMODEL_SURE), not an exit sample */
	int read;             /* and the true peak's instant is that one: the bound is
			       * within the figure's own doubt (peak_pss_measured) */
	int floor;            /* an unsure tick's floor: its processes' lower bounds */
	int traced;           /* of it, a traced floor: an instant between two ticks, from
			       * their figures and the RSS changes traced between them */
	int at_exit_pid;      /* an exit sample: the first process held at its top */
	uint32_t at_exit_tops;
};

/* The peak of the summary s. */
void peak_of(const struct store_summary *s, struct peak *out);
/* How far above the figure the bound is, in percent (-1: unknown). */
double peak_bound_pct(const struct peak *p);
/* The figure and its bound in a few words, for a status line: "95.2 MiB,
 * at most 96.8 MiB (+1.7%)", "..., at pid N's exit", "..., may be higher
 * (no taskstats)". */
void peak_brief(const struct peak *p, char *buf, size_t cap);

#endif
