/* coll_psi: the collector's job that samples the kernel's pressure-stall
 * information each tick (pressure.h): the share of the interval some task
 * waited for CPU, memory (some, and full: all of them) or I/O, into the
 * sample, and the run's stall totals into the summary. */
#ifndef SPACETIME_COLL_PSI_H
#define SPACETIME_COLL_PSI_H

#include <stdint.h>

#include "pressure.h"

struct collector;
struct sample;

struct coll_psi {
	struct pressure *pr;
	struct pressure_line first[PRESSURE_NRES], last[PRESSURE_NRES];
	uint64_t last_ns; /* the last read's instant (0: none yet) */
	uint32_t pm[4];   /* the last shares (cpu, memory, memory full, io), for fast ticks */
	int pm_ok;
	char where[600];  /* "/proc/pressure", or "cgroup DIR" */
};

/* Opens the PSI files (the cgroup of pid, the command, if it has one of its
 * own; pid 0: spacetime's own), and says where in the summary (psi: 0 none,
 * 1 the machine's, 2 a cgroup's). */
void coll_psi_start(struct collector *c, int pid);
/* The stall shares since the last tick into s (SAMPLE_PSI), the run's totals
 * and highest memory stall into the summary. */
void coll_psi_tick(struct collector *c, struct sample *s, uint64_t now);
void coll_psi_free(struct collector *c);

#endif
