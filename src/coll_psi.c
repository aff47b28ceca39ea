/* coll_psi.c: pressure-stall figures each tick (see coll_psi.h). */
#include "collector_int.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Per mille of dt_ns that d_us of stall is, at most 1000. */
static uint32_t per_mille(uint64_t d_us, uint64_t dt_ns)
{
	double pm = dt_ns ? (double)d_us * 1e6 / (double)dt_ns : 0;
	return pm > 1000 ? 1000 : (uint32_t)(pm + 0.5);
}

static uint64_t since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

void coll_psi_start(struct collector *c, int pid)
{
	char dir[512];
	const char *cg = pressure_cgroup_dir(c->cfg.proc_root, pid ? pid : (int)getpid(), NULL, dir, sizeof(dir)) == 0
				 ? dir : NULL;

	c->psi.pr = pressure_open(c->cfg.proc_root, cg, c->psi.where, sizeof(c->psi.where));
	c->sum.psi = !c->psi.pr ? 0 : c->psi.where[0] == 'c' ? 2 : 1;
}

/* The run's stall totals: from the first read to l. */
static void psi_totals(struct collector *c, const struct pressure_line *l)
{
	c->sum.psi_cpu_us = since(l[PRESSURE_CPU].some_us, c->psi.first[PRESSURE_CPU].some_us);
	c->sum.psi_mem_us = since(l[PRESSURE_MEMORY].some_us, c->psi.first[PRESSURE_MEMORY].some_us);
	c->sum.psi_mem_full_us = since(l[PRESSURE_MEMORY].full_us, c->psi.first[PRESSURE_MEMORY].full_us);
	c->sum.psi_io_us = since(l[PRESSURE_IO].some_us, c->psi.first[PRESSURE_IO].some_us);
}

void coll_psi_tick(struct collector *c, struct sample *s, uint64_t now)
{
	struct pressure_line l[PRESSURE_NRES];

	if (!c->psi.pr || pressure_read(c->psi.pr, l) < 0)
		return;
	if (!c->psi.last_ns) { /* the first read: the totals' origin */
		memcpy(c->psi.first, l, sizeof(l));
		memcpy(c->psi.last, l, sizeof(l));
		c->psi.last_ns = now;
		return;
	}
	psi_totals(c, l);
	uint64_t dt = since(now, c->psi.last_ns);
	if (dt < c->cfg.interval_ms * 900000ull) {
		/* a fast tick: a share over a few ms is noise; the last one's stands */
		s->psi_cpu_pm = c->psi.pm[0], s->psi_mem_pm = c->psi.pm[1];
		s->psi_mem_full_pm = c->psi.pm[2], s->psi_io_pm = c->psi.pm[3];
		s->valid |= c->psi.pm_ok ? SAMPLE_PSI : 0;
		return;
	}
	s->psi_cpu_pm = per_mille(since(l[PRESSURE_CPU].some_us, c->psi.last[PRESSURE_CPU].some_us), dt);
	s->psi_mem_pm = per_mille(since(l[PRESSURE_MEMORY].some_us, c->psi.last[PRESSURE_MEMORY].some_us), dt);
	s->psi_mem_full_pm = per_mille(since(l[PRESSURE_MEMORY].full_us, c->psi.last[PRESSURE_MEMORY].full_us), dt);
	s->psi_io_pm = per_mille(since(l[PRESSURE_IO].some_us, c->psi.last[PRESSURE_IO].some_us), dt);
	s->valid |= SAMPLE_PSI;
	c->psi.pm[0] = s->psi_cpu_pm, c->psi.pm[1] = s->psi_mem_pm;
	c->psi.pm[2] = s->psi_mem_full_pm, c->psi.pm[3] = s->psi_io_pm;
	c->psi.pm_ok = 1;
	if (s->psi_mem_pm > c->sum.psi_mem_max_pm)
		c->sum.psi_mem_max_pm = s->psi_mem_pm;
	memcpy(c->psi.last, l, sizeof(l));
	c->psi.last_ns = now;
}

void coll_psi_free(struct collector *c)
{
	pressure_close(c->psi.pr);
	c->psi.pr = NULL;
}
