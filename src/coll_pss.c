/* coll_pss.c: the PSS model, the budgeted smaps_rollup reads and sweeps, the peak. */
#include "collector_int.h"

#include "peakmaps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether e counts in the tree's PSS: past the command's first exec, with
 * memory of its own (a zombie's is gone). */
int coll_pss_counts(const struct collector *c, const struct pentry *e)
{
	return !coll_proc_vm_borrowed(c, e) && (e->rec.valid & PROC_V_RSS) && !e->mm_gone && !e->mem_left;
}

/* The program ratios slot for comm: found, or a free one when add (NULL when
 * the table is full or comm is unknown). */
static struct prog_ratio *prog_slot(struct collector *c, const char *comm, int add)
{
	uint32_t h = 2166136261u;

	if (!comm[0])
		return NULL;
	for (size_t i = 0; i < 16 && comm[i]; i++)
		h = (h ^ (unsigned char)comm[i]) * 16777619u;
	for (size_t k = 0; k < COLLECTOR_PROGS; k++) {
		struct prog_ratio *r = &c->pm.progs[(h + k) % COLLECTOR_PROGS];
		if (!r->comm[0]) {
			if (!add)
				return NULL;
			memcpy(r->comm, comm, sizeof(r->comm));
			r->comm[15] = '\0';
			r->anon = r->shared = -1;
			r->shared_kib = r->file_kib = 0;
			r->file_seen = 0;
			return r;
		}
		if (strncmp(r->comm, comm, 15) == 0)
			return r;
	}
	return NULL;
}

/* Learns e's program's PSS/RSS ratios from its read (a fresh exec's: a child
 * that has not exec'd shares its parent's pages, which says nothing about
 * the program). */
static void prog_learn(struct collector *c, const struct pentry *e)
{
	struct prog_ratio *r = e->rec.nexec ? prog_slot(c, e->rec.comm, 1) : NULL;

	if (!r)
		return;
	if (e->rd_anon_rss > 256) {
		double a = (double)e->rd_pss_anon / (double)e->rd_anon_rss;
		r->anon = r->anon < 0 ? a : 0.5 * r->anon + 0.5 * a;
	}
	if (e->rd_shared_rss > 256) {
		double sh = (double)(e->rd_pss_file + e->rd_pss_shmem) / (double)e->rd_shared_rss;
		r->shared = r->shared < 0 ? sh : 0.5 * r->shared + 0.5 * sh;
	}
	if (e->rd_shared_rss > r->shared_kib)
		r->shared_kib = e->rd_shared_rss;
}

/* Learns e's program's file pages from a tick's look at its memory (the
 * most any of its processes held: what a process of it can still map). */
static void prog_learn_file(struct collector *c, const struct pentry *e)
{
	struct prog_ratio *r = e->rec.nexec ? prog_slot(c, e->rec.comm, 1) : NULL;

	if (r && (!r->file_seen || e->shared_rss > r->file_kib))
		r->file_kib = e->shared_rss;
	if (r)
		r->file_seen = 1;
}

/* Whether every fork of e since its exec is known: its fork event came, and
 * none was lost since. */
int coll_pss_forks_known(const struct collector *c, const struct pentry *e)
{
	return c->sum.mode == COLLECTOR_NETLINK && !c->sum.lost_events && e->fork_seen;
}

/* When e's program started: its last exec, or its fork. */
uint64_t coll_pss_program_start(const struct pentry *e)
{
	return e->exec_ns > e->rec.start_ns ? e->exec_ns : e->rec.start_ns;
}

/* Describes e to the PSS model and estimates it. */
static void model_fill(struct collector *c, const struct pentry *e, struct pssmodel_proc *p)
{
	*p = (struct pssmodel_proc){
		.anon_rss_kib = e->anon_rss, .shared_rss_kib = e->shared_rss, .faults = e->rec.minflt + e->rec.majflt,
		.read = e->rd_ok, .rd_pss_anon_kib = e->rd_pss_anon, .rd_pss_file_kib = e->rd_pss_file,
		.rd_pss_shmem_kib = e->rd_pss_shmem, .rd_anon_rss_kib = e->rd_anon_rss,
		.rd_shared_rss_kib = e->rd_shared_rss, .rd_private_kib = e->rd_private_kib,
		.rd_faults = e->rd_faults, .forked = e->forked_since_read,
		.prog_anon_ratio = -1, .prog_shared_ratio = c->shared_ratio};
	if (e->rd_ok) {
		uint64_t d = c->pm.dil_cum_kib - e->rd_dil_cum_kib;
		p->diluted_kib = d > e->own_dil_kib ? d - e->own_dil_kib : 0;
		uint64_t g = c->pm.ghost_cum_kib - e->rd_ghost_cum_kib;
		p->ghosted_kib = g > e->own_ghost_kib ? g - e->own_ghost_kib : 0;
	}
	p->fork_only = !e->rec.nexec;
	p->forks_known = coll_pss_forks_known(c, e);
	p->inherit_max_kib = e->inherit_max_kib;
	p->unreadable = e->pss_denied;
	if (!e->rd_ok) {
		const struct prog_ratio *r = e->rec.nexec ? prog_slot(c, e->rec.comm, 0) : NULL;
		if (r) {
			p->prog_anon_ratio = r->anon;
			if (r->shared >= 0)
				p->prog_shared_ratio = r->shared;
		}
	}
	pssmodel_estimate(p, (uint64_t)procfs_page_kib());
}

/* e's pages leave the tree (exit or exec): its share of the pages others
 * map passes to them, perhaps in the tree. */
uint64_t coll_pss_leave(struct collector *c, const struct pentry *e)
{
	struct pssmodel_proc p;

	model_fill(c, e, &p);
	uint64_t part = pssmodel_shared_part(&p);
	part = part > e->released_given_kib ? part - e->released_given_kib : 0; /* not twice */
	c->pm.ghost_cum_kib += part;
	pssmodel_add_ghost(&c->pm.model, part);
	return part;
}

/* The most RSS e's parent can have given it at its fork: the parent's
 * high-water RSS read now (after the fork), if it runs the program it ran
 * then; gone, its high-water RSS at its exit (its record), in the table still
 * or retired; exiting, its memory gone from its status and its record not
 * read yet, the most it had at its last memory read and a fault-around's
 * pages per fault since (its stat); UINT64_MAX when not known. */
static uint64_t parent_hwm_now(struct collector *c, const struct pentry *e)
{
	struct pentry *p = ptable_get(c->pt, e->rec.ppid);
	uint64_t hwm;

	if (!e->fork_seen)
		return UINT64_MAX;
	if (!p)
		return coll_proc_retired_hwm(c, e->rec.ppid, e->rec.start_ns);
	if (p->rec.start_ns > e->rec.start_ns || p->exec_ns > e->rec.start_ns)
		return UINT64_MAX;
	if (coll_proc_hwm_now(c, p, &hwm) == 0)
		return hwm;
	/* (a record of its program's: not of an older one left by a thread's
	 * exec, which may have been smaller) */
	if (p->ts_leader && p->ts_hiwater_kib && p->rec.nexec <= 1)
		return p->ts_hiwater_kib;
	struct procfs_stat ps;
	if (!p->hwm_read || coll_proc_read_stat(c, p, &ps) < 0)
		return UINT64_MAX;
	uint64_t f = ps.minflt + ps.majflt, since = f > p->mem_at_faults ? f - p->mem_at_faults : 0;
	return p->hwm_kib + since * COLL_SAMPLE_FAULT_KIB;
}

/* e's program ends at t_ns, seen by a tick or not, for the peak between
 * samples (coll_top.h). At an exit, hw_kib (have_hw) is its high-water RSS
 * (taskstats), of its program's whole life: the most it had since the tick
 * that last saw it only when it rose past what that tick read of it (a
 * forked child's starts at its parent's), else no more than what it had then
 * plus a fault-around's pages per fault since (dfaults). What it gained is
 * its own new pages and file pages it mapped; the file pages are no more than
 * its program's processes ever held (prog_ratio.file_kib, from their status)
 * less what it held when seen, and those may be others' too: its PSS at its
 * top is its figures then plus the gain, the file part at its program's
 * shared ratio; its own pages then (the exit sample's floor) its own when
 * seen plus the gain beyond the file part, counted only when it rose. One
 * never seen by a tick is taken at its high-water RSS less the shared part
 * its program does not pay for, as a read of it would say; a child that
 * never exec'd shares its parent's pages and added at most what it faulted
 * in since it was forked (a page each for copies and allocations, a
 * fault-around's for file pages). At an exec (by_exec), the old program's
 * high-water mark is gone with it: what it had when last read and a
 * fault-around's pages per fault since (dfaults; by_exec 2: its faults are
 * not known) bound it, and it makes no top. */
/* Whether another process of the tree runs e's program now. */
static int program_alive_besides(const struct collector *c, const struct pentry *e)
{
	for (size_t i = 0; i < ptable_count(c->pt); i++) {
		const struct pentry *q = ptable_at(c->pt, i);
		if (q != e && q->rec.nexec && !q->top_gone && strncmp(q->rec.comm, e->rec.comm, sizeof(q->rec.comm)) == 0)
			return 1;
	}
	return 0;
}

/* The pages e's writes can have copied since coll_top last saw it (dfaults
 * faults since): a page a fault, no more than the anonymous pages it shared
 * then; a child never seen that never exec'd, no more than its anonymous
 * pages now (its parent's, shared). 0 for any other never seen. */
static uint64_t copies_since(const struct pentry *e, uint64_t dfaults)
{
	uint64_t most = dfaults * (uint64_t)procfs_page_kib(), shared = 0;

	if (e->top.tick) {
		uint64_t anon = e->top.rss_kib > e->top.file_kib ? e->top.rss_kib - e->top.file_kib : 0;
		shared = anon > e->top.fig.own_kib ? anon - e->top.fig.own_kib : 0;
	} else if (!e->rec.nexec) {
		shared = e->anon_rss;
	}
	return most < shared ? most : shared;
}

void coll_pss_gone(struct collector *c, const struct pentry *e, uint64_t t_ns, uint64_t hw_kib,
		   int have_hw, uint64_t dfaults, int by_exec)
{
	uint64_t pk = (uint64_t)procfs_page_kib();
	int seen = e->top.tick != 0;
	struct coll_top_leave l = {.pid = e->rec.pid, .t_ns = t_ns, .start_ns = coll_pss_program_start(e),
				   .top_known = 1, .can_top = 1};

	if (coll_proc_vm_borrowed(c, e) || coll_proc_before_first_exec(c, e))
		return;
	const struct prog_ratio *r = e->rec.nexec ? prog_slot(c, e->rec.comm, 0) : NULL;
	double ratio = r && r->shared >= 0 ? r->shared : c->shared_ratio;
	if (ratio < 0)
		ratio = 0;
	if (ratio > 1)
		ratio = 1;
	/* pages its writes can have copied since it was seen */
	if (seen)
		l.copied_kib = copies_since(e, dfaults);
	if (have_hw && !by_exec) {
		l.top_kib = hw_kib;
		if (seen) {
			uint64_t then = e->top.rss_kib, by_faults = then + dfaults * COLL_SAMPLE_FAULT_KIB;
			int rose = e->hwm_read && hw_kib > e->hwm_kib;
			if (!rose)
				l.top_kib = by_faults < hw_kib ? by_faults : hw_kib;
			if (l.top_kib < then)
				l.top_kib = then;
			uint64_t gain = l.top_kib - then, own_gain = rose ? gain : 0;
			/* a child that never exec'd runs its parent's program: what
			 * it gains is its own pages (copies, allocations) */
			uint64_t room = r && r->file_kib > e->top.file_kib ? r->file_kib - e->top.file_kib : 0;
			uint64_t file = !e->rec.nexec ? 0 : !r || !r->file_seen ? gain : room < gain ? room : gain;
			l.est_kib = e->top.fig.est_kib + (gain - file) + (uint64_t)((double)file * ratio);
			/* its private file pages when read are another's too once a
			 * process of its program runs (its text, mapped again) */
			uint64_t own = e->top.fig.own_kib;
			if (program_alive_besides(c, e))
				own -= e->top.fig.own_file_kib < own ? e->top.fig.own_file_kib : own;
			l.lo_kib = own + (own_gain > file ? own_gain - file : 0);
		} else if (!e->rec.nexec) {
			/* a child that never exec'd, never seen: what it has beyond
			 * its parent's pages at the fork (no more than the parent's
			 * high-water RSS now) is its own, as far as its faults
			 * go (a page each: new, or copied on a write; a file page
			 * it faulted in would be counted as its own, 4 KiB each) */
			uint64_t by_faults = dfaults * COLL_SAMPLE_FAULT_KIB, own = dfaults * pk;
			l.top_kib = by_faults < hw_kib ? by_faults : hw_kib;
			l.est_kib = own < l.top_kib ? own : l.top_kib;
			uint64_t inherit = parent_hwm_now(c, e);
			l.lo_kib = inherit == UINT64_MAX ? 0 : hw_kib > inherit ? hw_kib - inherit : 0;
			if (l.lo_kib > l.est_kib)
				l.lo_kib = l.est_kib;
		} else {
			/* its program's file pages, as ticks saw them (or all of it);
			 * the rest is its own when it forked no child to share it */
			uint64_t top = l.top_kib, shared = r && r->file_seen ? r->file_kib : top;
			if (shared > top)
				shared = top;
			l.est_kib = top - (uint64_t)((double)shared * (1.0 - ratio));
			l.lo_kib = coll_pss_forks_known(c, e) && !e->forked_since_read ? top - shared : 0;
		}
	} else if (by_exec) {
		l.top_kib = (seen ? e->top.rss_kib : 0) + dfaults * COLL_SAMPLE_FAULT_KIB;
		l.est_kib = l.lo_kib = seen ? e->top.fig.est_kib : 0;
		l.can_top = 0;
		l.top_known = by_exec != 2;
	} else {
		l.top_known = 0;
	}
	coll_top_gone(&c->top, &e->top, &l);
}

/* Adds to the running total what e started mapping since the last tick: all
 * of a new process's pages (a forked child's are its parent's too; a new
 * program's shared ones may be others'), then its shared RSS growth. */
static void model_dilute(struct collector *c, struct pentry *e)
{
	uint64_t add;

	if (!e->dil_seen) {
		/* a new program's anonymous pages are its own (polling cannot
		 * tell a new program from a forked child: it counts them too) */
		int exec_known = c->sum.mode == COLLECTOR_NETLINK && e->rec.nexec;
		add = e->shared_rss + (exec_known ? 0 : e->anon_rss);
		e->dil_seen = 1;
	} else {
		add = e->shared_rss > e->prev_shared_kib ? e->shared_rss - e->prev_shared_kib : 0;
	}
	e->prev_shared_kib = e->shared_rss;
	c->pm.dil_cum_kib += add;
	e->own_dil_kib += add;
}

/* Takes the model's estimate of e into its record. */
static void model_apply(struct pentry *e, const struct pssmodel_proc *p, uint64_t now)
{
	e->est_anon_kib = p->est_anon_kib;
	e->est_file_kib = p->est_file_kib;
	e->est_shmem_kib = p->est_shmem_kib;
	e->rec.pss_kib = p->est_kib;
	e->rec.valid |= PROC_V_PSS;
	if (!pssmodel_doubt(p))
		e->rec.valid &= ~PROC_V_PSS_EST;
	else
		e->rec.valid |= PROC_V_PSS_EST;
	e->rec.pss_age_ns = e->pss_t_ns ? now - e->pss_t_ns : 0;
	if (e->rec.pss_kib > e->rec.peak_pss_kib) {
		e->rec.peak_pss_kib = e->rec.pss_kib;
		e->rec.peak_pss_t_ns = now;
	}
}

/* Reads smaps_rollup of e; returns the thread CPU time it cost. clk, if not
 * NULL, chains reads made one after the other: a non-zero *clk is the thread's
 * CPU time at the start (the end of the read before), and *clk gets the time
 * at the end (the clock is a system call here). */
uint64_t coll_pss_read(struct collector *c, struct pentry *e, uint64_t now, uint64_t *clk)
{
	struct procfs_rollup r;
	uint64_t t0 = clk && *clk ? *clk : coll_base_thread_cpu_ns();
	ssize_t n = -1;
	int own, fd = coll_proc_fd(c, e->rec.pid, &e->fd_smaps, "smaps_rollup", &own);

	/* ptrace access refused (another user's, or not dumpable): a sweep
	 * cannot settle it, and will not try */
	if (fd == -EACCES || fd == -EPERM)
		e->pss_denied = 1;
	if (fd >= 0)
		n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
	if (own)
		close(fd);
	uint64_t t1 = coll_base_thread_cpu_ns(), cost = t1 - t0;
	if (clk)
		*clk = t1;
	e->pss_t_ns = now; /* even a failed read waits its turn again */
	if (n <= 0 || procfs_parse_smaps_rollup(c->rbuf, (size_t)n, &r) < 0) {
		/* Unreadable (gone, or an fd from before an exec): reopen it at
		 * its next turn; the estimate keeps scaling the last good read
		 * (or RSS, if none), never passing RSS off as a measured PSS. */
		if (e->fd_smaps >= 0)
			close(e->fd_smaps);
		e->fd_smaps = -1;
		e->rec.valid |= PROC_V_PSS_EST;
		return cost;
	}
	c->sum.pss_reads++;
	e->rd_swap = r.valid & PROCFS_ROLLUP_SWAP ? r.swap_kib : 0;
	e->rd_thp = r.valid & PROCFS_ROLLUP_THP ? r.thp_kib : 0;
	e->rd_locked = r.valid & PROCFS_ROLLUP_LOCKED ? r.locked_kib : 0;
	if (r.valid & PROCFS_ROLLUP_SPLIT) {
		e->rd_pss_anon = r.pss_anon_kib;
		e->rd_pss_file = r.pss_file_kib;
		e->rd_pss_shmem = r.pss_shmem_kib;
	} else {
		e->rd_pss_anon = r.pss_kib;
		e->rd_pss_file = e->rd_pss_shmem = 0;
	}
	/* The RSS the PSS figures go with comes from the same read: memory that
	 * grows between the statm and the smaps_rollup read must not skew the ratio. */
	if ((r.valid & (PROCFS_ROLLUP_RSS | PROCFS_ROLLUP_ANON)) == (PROCFS_ROLLUP_RSS | PROCFS_ROLLUP_ANON) &&
	    r.anon_kib <= r.rss_kib) {
		e->rd_anon_rss = r.anon_kib;
		e->rd_shared_rss = r.rss_kib - r.anon_kib;
	} else {
		e->rd_anon_rss = e->anon_rss;
		e->rd_shared_rss = e->shared_rss;
	}
	e->rd_private_kib = (r.valid & PROCFS_ROLLUP_PRIVATE) ? r.private_kib : 0;
	e->rd_faults = e->rec.minflt + e->rec.majflt;
	e->forked_since_read = 0;
	e->rd_ok = 1;
	e->rd_dil_cum_kib = c->pm.dil_cum_kib;
	/* (the shares of processes whose pages may still be mapped are not
	 * in this read: it may inherit them after) */
	e->rd_ghost_cum_kib = c->pm.ghost_cum_kib - c->pm.ghost_pending_kib;
	e->own_dil_kib = 0;
	e->own_ghost_kib = 0;
	e->released_given_kib = 0;
	e->rd_t_ns = now;
	if (e->rd_shared_rss > 256) {
		double ratio = (double)(e->rd_pss_file + e->rd_pss_shmem) / (double)e->rd_shared_rss;
		c->shared_ratio = 0.8 * c->shared_ratio + 0.2 * ratio;
	}
	prog_learn(c, e);
	uint64_t kib = r.rss_kib ? r.rss_kib : 1;
	if (cost > PSSCHED_COST_FIXED_NS) {
		double per = ((double)cost - PSSCHED_COST_FIXED_NS) / (double)kib;
		c->cost_ns_per_kib = 0.9 * c->cost_ns_per_kib + 0.1 * per;
	}
	return cost;
}

/* Spends what is left of spacetime's CPU budget on the most useful
 * smaps_rollup reads. The budget covers all of spacetime: everything its
 * threads spent since the last call that was not a PSS read (events, cheap
 * reads, publishing, the dashboard's drawing) is owed first, and PSS reads
 * keep a tenth of it whatever the rest costs (pssched_budget). */
void coll_pss_schedule(struct collector *c, uint64_t now)
{
	double dt = c->last_tick_ns ? (double)(now - c->last_tick_ns) : c->cfg.interval_ms * 1e6;
	/* At most the budget of one core, and at most COLLECTOR_TREE_SHARE of it
	 * per core the command itself keeps busy: with the default 1% the
	 * collector aims at 0.3% of the command's CPU, leaving room for what the
	 * budget cannot defer (events, cheap reads, the dashboard) under 0.5%;
	 * down to a tenth of the budget for an idle command. */
	double frac = c->cfg.budget * c->tree_cores * COLLECTOR_TREE_SHARE;
	if (frac > c->cfg.budget)
		frac = c->cfg.budget;
	if (frac < c->cfg.budget / 10)
		frac = c->cfg.budget / 10;
	double budget = dt * frac;
	c->sum.budget_ns += (uint64_t)budget;
	uint64_t cpu = c->pm.sched_cpu_ns;
	double other = 0;
	uint64_t spent = 0; /* on PSS reads this round */
	size_t n = ptable_count(c->pt), k = 0;
	if (pssched_budget_avail(&c->pm.tokens) + budget <= 0 || !n)
		goto credit;
	if (n > c->pm.sched_cap) {
		size_t cap = n * 2;
		struct pssched_item *it = realloc(c->sched_items, cap * sizeof(*it));
		uint32_t *pk = it ? realloc(c->sched_picks, cap * sizeof(*pk)) : NULL;
		if (it)
			c->sched_items = it;
		if (pk)
			c->sched_picks = pk;
		if (!it || !pk)
			goto credit;
		c->pm.sched_cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pentry *e = ptable_at(c->pt, i);
		c->sched_items[i] = (struct pssched_item){
			.rss_kib = (e->rec.valid & PROC_V_RSS) ? e->rec.rss_kib : 0,
			.anon_rss_kib = e->anon_rss, .shared_rss_kib = e->shared_rss,
			.rd_anon_rss_kib = e->rd_anon_rss, .rd_shared_rss_kib = e->rd_shared_rss,
			.age_ns = e->pss_t_ns ? now - e->pss_t_ns : 0, .never_read = !e->pss_t_ns};
	}
	/* whether a read would be picked with all this tick's credit and no debt */
	k = pssched_pick(c->sched_items, n, pssched_budget_avail(&c->pm.tokens) + budget, c->cost_ns_per_kib,
			 c->sched_picks, n);
credit:
	/* What the rest cost is a system call to learn: learnt when a read
	 * could be bought and that cost could say it cannot, and once a second;
	 * in between it is owed, charged at the next (before any read the main
	 * account pays). */
	if (!c->pm.sched_cpu_ns || (k > 0 && pssched_budget_other_matters(&c->pm.tokens, budget)) ||
	    now - c->pm.sched_read_ns >= COLLECTOR_SELF_CPU_NS) {
		cpu = coll_base_process_cpu_ns();
		other = c->pm.sched_cpu_ns ? (double)(cpu - c->pm.sched_cpu_ns) : 0;
		c->pm.sched_read_ns = now;
	}
	pssched_budget_credit(&c->pm.tokens, budget, other, frac * 5e9);
	if (!k || pssched_budget_avail(&c->pm.tokens) <= 0)
		goto out;
	k = pssched_pick(c->sched_items, n, pssched_budget_avail(&c->pm.tokens), c->cost_ns_per_kib, c->sched_picks, n);
	/* Read in priority order, paying the real cost, while tokens last. */
	uint64_t clk = 0;
	for (size_t i = 0; i < k && pssched_budget_avail(&c->pm.tokens) > 0; i++) {
		struct pentry *e = ptable_at(c->pt, c->sched_picks[i]);
		if (!coll_proc_vm_borrowed(c, e)) {
			uint64_t cost = coll_pss_read(c, e, now, &clk);
			pssched_budget_pay(&c->pm.tokens, (double)cost);
			c->sum.pss_cpu_ns += cost;
			spent += cost;
		}
	}
out:
	/* everything since cpu was read but the reads themselves (choosing
	 * them, other threads meanwhile) is other work, owed next round */
	c->pm.sched_cpu_ns = cpu + spent;
}

/* Room for n processes in the model's arrays. */
static int model_room(struct collector *c, size_t n)
{
	if (n <= c->pm.mp_cap)
		return 0;
	size_t cap = n * 2;
	struct pssmodel_proc *mp = realloc(c->mp, cap * sizeof(*mp));
	if (mp)
		c->mp = mp;
	uint32_t *ix = realloc(c->mp_idx, cap * sizeof(*ix));
	if (ix)
		c->mp_idx = ix;
	uint32_t *pk = realloc(c->mp_pick, cap * sizeof(*pk));
	if (pk)
		c->mp_pick = pk;
	struct coll_top_live *tl = realloc(c->top_live, cap * sizeof(*tl));
	if (tl)
		c->top_live = tl;
	if (!mp || !ix || !pk || !tl)
		return -ENOMEM;
	c->pm.mp_cap = cap;
	return 0;
}

/* Whether the processes a sweep read held still while it read them: their
 * RSS now (status, ~6 us each) against the RSS in their reads, moved by no
 * more than PSSMODEL_SURE of the total. A sweep takes a while; a process that
 * maps, unmaps or exits meanwhile makes its reads' shares inconsistent (the
 * same shared pages counted at two ratios), and such a sum is no measurement
 * (the trace's floor takes the reads one by one, less what each moved as
 * the tick read: coll_rss.c). */
static int sweep_stable(struct collector *c, size_t k, uint64_t total_kib, uint64_t now)
{
	uint64_t moved = 0, pk = (uint64_t)procfs_page_kib();

	for (size_t j = 0; j < k; j++) {
		struct pentry *e = ptable_at(c->pt, c->mp_idx[c->mp_pick[j]]);
		struct procfs_status st;
		if (!e->rd_ok || e->rd_t_ns != now)
			return 0; /* its read failed: gone, or going */
		int own, fd = coll_proc_fd(c, e->rec.pid, &e->fd_status, "status", &own);
		if (fd < 0)
			return 0;
		ssize_t n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
		if (own)
			close(fd);
		if (n <= 0 || procfs_parse_status(c->rbuf, (size_t)n, &st) < 0 || !(st.valid & PROCFS_STATUS_RSS))
			return 0;
		uint64_t res = st.rss_kib, then = e->rd_anon_rss + e->rd_shared_rss;
		moved += res > then ? res - then : then - res;
	}
	/* the RSS counters are per-CPU batched: a few pages of slack per process */
	return (double)moved <= (double)total_kib * PSSMODEL_SURE + (double)(k * 16 * pk);
}

/* A sweep's read of the x-th counted process (pssmodel_sweep). Each read
 * takes its own clock: the choosing between rounds is not a read's cost. */
struct sweep_ctx {
	struct collector *c;
	uint64_t now, spent;
};

static void sweep_read(void *ctx, uint32_t x)
{
	struct sweep_ctx *sw = ctx;
	struct collector *c = sw->c;
	struct pentry *e = ptable_at(c->pt, c->mp_idx[x]);

	sw->spent += coll_pss_read(c, e, sw->now, NULL);
	c->sum.pss_sweep_reads++;
	model_fill(c, e, &c->mp[x]);
}

/* The model's upper bounds of the m processes counted, summed. */
static uint64_t sum_hi_model(const struct collector *c, size_t m)
{
	uint64_t hi = 0;

	for (size_t j = 0; j < m; j++)
		hi += c->mp[j].hi_kib;
	return hi;
}

/* A forked child that has not exec'd inherited at most the RSS its parent had
 * at the fork: no more than the parent's high-water RSS read now (after the
 * fork), if the parent runs the same program (its high-water mark is its
 * program's). Kept from the first tick that can tell. */
static void inherit_bound(struct collector *c, struct pentry *e)
{
	if (e->rec.nexec || e->inherit_max_kib != UINT64_MAX || !e->fork_seen)
		return;
	struct pentry *p = ptable_get(c->pt, e->rec.ppid);
	uint64_t hwm;
	if (p && p->rec.start_ns <= e->rec.start_ns && p->exec_ns <= e->rec.start_ns &&
	    coll_proc_hwm_now(c, p, &hwm) == 0)
		e->inherit_max_kib = hwm;
}

/* Tells coll_top what this tick saw of e, the j-th counted process: for
 * the exit samples its figures at the last tick and now (one this tick
 * could not read, exiting, stands at what was last read of it; one whose
 * record came has left the reckoning, at its top: no instant of it counts
 * it among the living), and for the bound its RSS, its most since and its
 * copies. Returns its upper bound now. */
static uint64_t top_feed(struct collector *c, struct pentry *e, size_t j)
{
	int seen_now = e->mem_known || !e->top.tick;
	struct coll_top_fig f = {c->mp[j].est_kib, c->mp[j].lo_kib, c->mp[j].hi_kib, c->mp[j].own_kib,
				 c->mp[j].own_file_kib};
	uint64_t faults = e->rec.minflt + e->rec.majflt;
	uint64_t df = faults > e->top_faults ? faults - e->top_faults : 0;

	c->top_live[j] = (struct coll_top_live){
		.start_ns = e->top_gone ? UINT64_MAX : coll_pss_program_start(e),
		.seen = e->top.tick && e->top.tick == c->top.tick, .prev = e->top.fig,
		.now = seen_now ? f : e->top.fig, .moved_kib = df * COLL_SAMPLE_FAULT_KIB};
	if (e->mem_known)
		prog_learn_file(c, e);
	struct coll_top_look look = {.rss_kib = e->rec.rss_kib, .file_kib = e->shared_rss,
				     .max_kib = e->top_max_kib, .copied_kib = copies_since(e, df),
				     .start_ns = coll_pss_program_start(e),
				     .known = e->mem_known && !e->top_gone, .fig = f};
	coll_top_seen(&c->top, &e->top, &look);
	c->tick_copied_kib += look.copied_kib;
	if (look.known)
		e->top_faults = faults;
	return c->top_live[j].now.hi_kib;
}

uint64_t coll_pss_peak_kib(const struct collector *c)
{
	return c->sum.peak.pss_kib > c->pm.model.peak_kib ? c->sum.peak.pss_kib : c->pm.model.peak_kib;
}

/* Whether an end since the last tick can have been a top above the peak:
 * then the live processes are read now, as for a new peak, so that the
 * tree before it is bounded from their reads. The trace, when it bounds the
 * interval, tells from the tree's bound just before each end (coll_rss.c),
 * and when the last such end was (*since: the processes begun after it were
 * not there then, and their reads are no use to it); else an exit at a top
 * (its high-water mark) may make this instant's tree, with it, a new peak
 * (*since: 0, every process is read). */
static int exit_top(struct collector *c, const struct pssmodel_total *t, const struct coll_rss_ends *ends,
		    uint64_t *since)
{
	*since = 0;
	if (!t->doubt_kib)
		return 0;
	if (ends->told) {
		*since = ends->top_t_ns;
		return ends->top;
	}
	struct pssmodel_total tx = *t;
	uint64_t extra = coll_top_exit_extra(&c->top);
	tx.est_kib += extra;
	tx.hi_kib += extra;
	return extra && pssmodel_need_sweep(&c->pm.model, &tx);
}

/* Marks the counted processes begun after t_ns as not for the sweep to read;
 * returns how many. */
static size_t skip_after(struct collector *c, size_t m, uint64_t t_ns)
{
	size_t k = 0;

	for (size_t j = 0; j < m; j++) {
		const struct pentry *e = ptable_at(c->pt, c->mp_idx[j]);
		if (coll_pss_program_start(e) > t_ns) {
			c->mp[j].skip = 1;
			k++;
		}
	}
	c->sum.pss_sweep_skips += k;
	return k;
}

/* Estimates every counted process; when the tree may be at a new peak, sweeps:
 * reads the processes in doubt, most first, so that the sample is a sum of
 * reads. Fills the sample's PSS and RSS fields; returns 1 when it is measured. */
/* The processes to count this tick, into the model's arrays (mp_idx), each
 * estimated after all the dilution (a process early in the table is diluted
 * by one later in it), and again when some stopped sharing since their
 * reads (that passes to the others, as an exit's ghost does). Returns how
 * many; *whole: every process of the table is among them. */
static size_t model_fill_all(struct collector *c, int *whole)
{
	size_t n = ptable_count(c->pt), m = 0;

	if (model_room(c, n) < 0)
		n = c->pm.mp_cap; /* no memory: the first ones only, and not sure */
	*whole = n == ptable_count(c->pt);
	for (size_t i = 0; i < n; i++) {
		const struct pentry *e = ptable_at(c->pt, i);
		if (!coll_pss_counts(c, e))
			continue;
		c->mp_idx[m++] = (uint32_t)i;
		model_dilute(c, ptable_at(c->pt, i));
		inherit_bound(c, ptable_at(c->pt, i));
	}
	for (size_t j = 0; j < m; j++)
		model_fill(c, ptable_at(c->pt, c->mp_idx[j]), &c->mp[j]);
	int released = 0;
	for (size_t j = 0; j < m; j++) {
		struct pentry *e = ptable_at(c->pt, c->mp_idx[j]);
		if (c->mp[j].released_kib > e->released_given_kib) {
			uint64_t inc = c->mp[j].released_kib - e->released_given_kib;
			c->pm.ghost_cum_kib += inc;
			pssmodel_add_ghost(&c->pm.model, inc);
			e->own_ghost_kib += inc;
			e->released_given_kib = c->mp[j].released_kib;
			released = 1;
		}
	}
	if (released)
		for (size_t j = 0; j < m; j++)
			model_fill(c, ptable_at(c->pt, c->mp_idx[j]), &c->mp[j]);
	return m;
}

/* The sweep, when the tree may be at a new peak or an end may have been a
 * top: reads the processes in doubt, most first, into t. Returns whether the
 * tick is sure; *trusted stays whole unless the reads moved. */
static int tick_sweep(struct collector *c, struct pssmodel_total *t, size_t m, uint64_t now, int whole,
		      const struct coll_rss_ends *ends, int *trusted)
{
	uint64_t since = 0;
	int climb = pssmodel_need_sweep(&c->pm.model, t);

	*trusted = whole;
	c->tick_moved = 0;
	if (!climb && !exit_top(c, t, ends, &since))
		return pssmodel_observe(&c->pm.model, t, whole, 0);
	struct sweep_ctx sw = {c, now, 0};
	/* for an end alone, the processes there at its instant */
	size_t skipped = climb || !since ? 0 : skip_after(c, m, since);
	size_t k = pssmodel_sweep(&c->pm.model, c->mp, m, t, c->mp_pick, sweep_read, &sw);
	int stable = sweep_stable(c, k, t->est_kib, now);
	if (!stable)
		c->sum.pss_sweeps_unstable++;
	c->tick_moved = !stable;
	*trusted = stable && whole;
	/* one that left some unread tried no level (pssmodel_observe) */
	int sure = pssmodel_observe(&c->pm.model, t, *trusted, !skipped);
	/* a sweep is never put off for the budget, but it is paid from it */
	pssched_budget_pay(&c->pm.tokens, (double)sw.spent);
	c->sum.pss_cpu_ns += sw.spent;
	c->pm.sched_cpu_ns += sw.spent;
	c->pm.sweep_cpu_ns += sw.spent;
	c->sum.pss_sweeps += k > 0;
	return sure;
}

/* The sample's PSS and RSS from the m counted processes and the model's
 * total t (half of the ghosts is in the estimate: spread over the split),
 * and what coll_top is told of each. Returns whether any had memory to tell
 * of (one exiting tells nothing of it); sets the ghosts' figures. */
static int sample_fill(struct collector *c, struct sample *s, const struct pssmodel_total *t, size_t m,
		       int whole, uint64_t now)
{
	uint64_t sum = 0, sum_hi = 0;
	int have_mem = 0;
	for (size_t j = 0; j < m; j++) {
		struct pentry *e = ptable_at(c->pt, c->mp_idx[j]);
		model_apply(e, &c->mp[j], now);
		sum_hi += top_feed(c, e, j);
		s->pss_anon_kib += e->est_anon_kib;
		s->pss_file_kib += e->est_file_kib;
		s->pss_shmem_kib += e->est_shmem_kib;
		s->rss_kib += e->rec.rss_kib;
		if (e->rd_ok) { /* the kinds as last read */
			s->swap_kib += e->rd_swap;
			s->thp_kib += e->rd_thp;
			s->locked_kib += e->rd_locked;
		}
		sum += c->mp[j].est_kib;
		have_mem |= e->rd_ok || e->anon_rss + e->shared_rss > 0;
	}
	uint64_t g = t->est_kib > sum ? t->est_kib - sum : 0;
	if (g && sum) {
		uint64_t ga = (uint64_t)((double)g * (double)s->pss_anon_kib / (double)sum);
		uint64_t gs = (uint64_t)((double)g * (double)s->pss_shmem_kib / (double)sum);
		s->pss_anon_kib += ga;
		s->pss_shmem_kib += gs;
		s->pss_file_kib += g - ga - gs;
	} else {
		s->pss_file_kib += g;
	}
	s->pss_kib = t->est_kib;
	s->pss_est_kib = !whole ? t->est_kib : t->doubt_kib < t->est_kib ? t->doubt_kib : t->est_kib;
	s->pss_hi_kib = t->hi_kib;
	/* the ghosts as the model counts them (half in the estimate, all in
	 * the bound) */
	uint64_t mh = sum_hi_model(c, m);
	c->pm.top_ghost_prev_est = c->pm.top_ghost_est; /* the last tick's: exits since are the samples' */
	c->pm.top_ghost_prev_hi = c->pm.top_ghost_hi;
	c->pm.top_ghost_est = g;
	c->pm.top_ghost_hi = t->hi_kib > mh ? t->hi_kib - mh : 0;
	c->pm.top_live_hi = sum_hi + c->pm.top_ghost_hi;
	return have_mem;
}

int coll_pss_tick(struct collector *c, struct sample *s, uint64_t now, const struct coll_rss_ends *ends)
{
	struct pssmodel_total t;
	int whole, trusted;

	c->tick_copied_kib = 0;
	c->pm.model.pending_kib = c->pm.ghost_pending_kib;
	size_t m = model_fill_all(c, &whole);
	c->tick_whole = whole;
	pssmodel_total(&c->pm.model, c->mp, m, &t);
	c->pm.model.thrifty = (double)c->pm.sweep_cpu_ns >
			   COLLECTOR_SWEEP_ALLOW_NS + COLLECTOR_SWEEP_SHARE * 1000.0 * (double)c->tree_cpu_us;
	int sure = tick_sweep(c, &t, m, now, whole, ends, &trusted);
	int have_mem = sample_fill(c, s, &t, m, whole, now);
	/* near the peak and moving (a plateau needs no fast ticks) */
	c->near_peak = c->pm.model.peak_kib && t.est_kib > 1024 &&
		       (double)t.est_kib >= (double)c->pm.model.peak_kib * COLLECTOR_NEAR_PEAK &&
		       (double)llabs((long long)t.est_kib - (long long)c->pm.prev_est_kib) >
			       (double)t.est_kib * 0.001;
	c->pm.prev_est_kib = t.est_kib;
	c->mp_n = m;
	c->model_seen |= have_mem;
	/* the least the tree had now, whatever the estimates: every process
	 * counted, at its lower bound (one read, its read); none when a sweep's
	 * reads moved (a process that exited as they were made leaves shared
	 * pages counted at two ratios: more than the tree had) */
	c->tick_lo_kib = trusted && have_mem ? t.lo_kib : 0;
	/* a tree with no process left is 0, but that is no measurement of it */
	return sure && have_mem;
}

/* An unsure tick's sample s (its estimate in doubt by more than
 * PSSMODEL_SURE: processes unread, or read while they moved) at its floor,
 * the least the tree had then (c->tick_lo_kib: each process at its lower
 * bound, the ones read at their reads; none after a sweep that moved), kept
 * when the highest such. Its doubt is how far above the floor the tree may
 * have been. */
void coll_pss_floor_of(const struct sample *s, uint64_t lo_kib, uint64_t hi_kib, struct sample *fs)
{
	*fs = *s;
	fs->pss_kib = lo_kib;
	if (s->pss_kib) {
		double k = (double)lo_kib / (double)s->pss_kib;
		fs->pss_anon_kib = (uint64_t)((double)s->pss_anon_kib * k);
		fs->pss_shmem_kib = (uint64_t)((double)s->pss_shmem_kib * k);
	} else {
		fs->pss_anon_kib = lo_kib;
		fs->pss_shmem_kib = 0;
	}
	uint64_t as = fs->pss_anon_kib + fs->pss_shmem_kib;
	fs->pss_file_kib = lo_kib > as ? lo_kib - as : 0;
	uint64_t up = hi_kib > lo_kib ? hi_kib - lo_kib : 0;
	fs->pss_est_kib = up < lo_kib ? up : lo_kib;
	fs->pss_hi_kib = hi_kib;
}

static void floor_keep(struct collector *c, const struct sample *s)
{
	uint64_t lo = c->tick_lo_kib < s->pss_kib ? c->tick_lo_kib : s->pss_kib;

	if (!lo || (c->pm.have_floor && lo <= c->pm.peak_floor.pss_kib))
		return;
	struct sample fs;
	coll_pss_floor_of(s, lo, s->pss_hi_kib, &fs);
	c->pm.peak_floor = fs;
	c->pm.have_floor = 1;
	c->pm.floor_traced = 0;
}

/* The run's peak from what is kept: the highest measured sample (or the
 * highest estimate while none was measured), a floor above it, an exit
 * sample above both. */
static void peak_pick(struct collector *c)
{
	const struct sample *pk = c->pm.have_meas ? &c->pm.peak_meas : &c->peak_any;
	/* a traced floor within a measured peak's own error is that peak, read */
	uint64_t within = c->pm.floor_traced && c->pm.have_meas ? pk->pss_est_kib : 0;
	int at_floor = c->pm.have_floor && (!pk->t_ns || c->pm.peak_floor.pss_kib > pk->pss_kib + within);
	if (at_floor)
		pk = &c->pm.peak_floor;
	int at_exit = c->pm.have_exit && (!pk->t_ns || c->pm.peak_exit.pss_kib > pk->pss_kib);
	c->sum.peak = at_exit ? c->pm.peak_exit : *pk;
	c->sum.peak_measured = c->pm.have_meas && !at_exit && !at_floor;
	c->sum.peak_floor = at_floor && !at_exit;
	c->sum.peak_traced = c->sum.peak_floor && c->pm.floor_traced;
	c->sum.peak_exit_pid = at_exit ? c->pm.peak_exit_x.pid : 0;
	c->sum.peak_exit_tops = at_exit ? (uint32_t)c->pm.peak_exit_x.tops : 0;
	c->sum.peak_unconfirmed_kib =
		c->pm.have_meas && (double)c->peak_any.pss_kib >
					(double)c->sum.peak.pss_kib * (1.0 + STORE_PEAK_EST_MARGIN)
			? c->peak_any.pss_kib
			: 0;
}

/* Keeps the run's peak: the highest measured sample (a real figure: the true
 * peak is at least that), or the highest estimate while none was measured;
 * an estimate that passed the measured peak but could not be confirmed is
 * kept apart, as such, and its floor (floor_keep) is the peak when higher
 * than every measured one: the tree was at least that high (a climb that
 * reads could not catch still, processes left unread). An exit
 * sample (x non-NULL: the tree just before a process left at a top the
 * ticks missed, coll_top.h) is a floor too, the least the tree had at that
 * instant: it is the peak when it is higher (no tick could have read that
 * instant). The summary says which it is. And the estimated share of the
 * series. */
void coll_pss_peak(struct collector *c, const struct sample *s, int sure, uint64_t now,
		   const struct coll_top_sample *x)
{
	if (x) {
		if (sure && (!c->pm.have_exit || s->pss_kib > c->pm.peak_exit.pss_kib)) {
			c->pm.peak_exit = *s;
			c->pm.peak_exit_x = *x;
			c->pm.have_exit = 1;
		}
	} else {
		if (!sure)
			floor_keep(c, s);
		double dt = c->last_tick_ns && now > c->last_tick_ns ? (double)(now - c->last_tick_ns)
								     : c->cfg.interval_ms * 1e6;
		c->pm.est_area += (double)s->pss_est_kib * dt;
		c->pm.pss_area += (double)s->pss_kib * dt;
		c->sum.pss_est_share = c->pm.pss_area > 0 ? c->pm.est_area / c->pm.pss_area : 0;
		if (sure && (!c->pm.have_meas || s->pss_kib > c->pm.peak_meas.pss_kib)) {
			c->pm.peak_meas = *s;
			c->pm.have_meas = 1;
		}
		if (!c->peak_any.t_ns || s->pss_kib > c->peak_any.pss_kib)
			c->peak_any = *s;
	}
	peak_pick(c);
}

/* A traced floor fs (coll_rss.c: the least the tree had at an instant
 * between two ticks) is kept as the tick floors are: the peak when higher
 * than every measured one. */
void coll_pss_traced_floor(struct collector *c, const struct sample *fs)
{
	if (c->pm.have_floor && fs->pss_kib <= c->pm.peak_floor.pss_kib)
		return;
	c->pm.peak_floor = *fs;
	c->pm.have_floor = 1;
	c->pm.floor_traced = 1;
	peak_pick(c);
}

/* The tree just before processes that left since the last tick at tops the
 * ticks did not see (coll_top.h): with the live processes' figures of this
 * tick's sample s, an exit sample at the first of those exits. When it is
 * the run's new peak it goes to the store, before s. Then the interval
 * closes: the tree's upper bound now is s's. */
void coll_pss_exit_sample(struct collector *c, const struct sample *s, uint64_t now)
{
	struct coll_top_sample x;
	struct coll_top_ghosts g = {c->pm.top_ghost_prev_est, c->pm.top_ghost_prev_hi, c->pm.top_ghost_est,
				    c->pm.top_ghost_hi};
	int got = (s->valid & SAMPLE_PSS) && !c->rss_covered && coll_top_exit_sample(&c->top, c->top_live, c->mp_n, now, &g, &x);
	/* an exit the last tick did not hear of yet (it came as the tick read)
	 * is placed just after it, one this tick heard of as it began just
	 * before it: the series' samples stay in time order */
	if (got && x.t_ns >= now)
		x.t_ns = now - 1;
	if (got && x.t_ns <= c->last_tick_ns)
		x.t_ns = c->last_tick_ns + 1;
	if (got && x.t_ns < now) {
		/* the sample is its floor: what the tree had at least */
		struct sample xs = *s;
		uint64_t add = x.lo_kib > s->pss_kib ? x.lo_kib - s->pss_kib : 0; /* new pages, anonymous */
		xs.t_ns = x.t_ns;
		xs.pss_kib = x.lo_kib;
		xs.pss_anon_kib += add;
		xs.rss_kib += x.hi_kib > s->pss_hi_kib ? x.hi_kib - s->pss_hi_kib : 0;
		xs.pss_est_kib = x.hi_kib > x.lo_kib ? x.hi_kib - x.lo_kib : 0;
		if (xs.pss_est_kib > x.lo_kib)
			xs.pss_est_kib = x.lo_kib;
		xs.pss_hi_kib = x.hi_kib;
		xs.live_procs += (uint32_t)x.tops;
		uint64_t peak_t = c->sum.peak.t_ns;
		int sure = 1; /* a floor: no guess */
		coll_pss_peak(c, &xs, sure, now, &x);
		if (c->sum.peak.t_ns != peak_t) {
			if (c->sum.peak.t_ns == xs.t_ns)
				coll_pss_peak_procs(c, xs.t_ns);
			store_push_sample(c->st, &xs);
			c->sum.exit_samples++;
		}
	}
	coll_top_close(&c->top, s->valid & SAMPLE_PSS ? c->pm.top_live_hi : 0, now);
	c->sum.peak_bound_kib = c->top.bound_kib;
	c->sum.peak_bound_unknown = c->top.unknown;
}

/* The largest live processes of the peak (the model's n), off to be mapped
 * on peakmaps' thread. */
static void peak_maps_ask(struct collector *c, uint64_t t_ns, size_t n)
{
	struct peakmaps_proc p[PEAKMAPS_PROCS];
	size_t k = 0;

	for (size_t j = 0; j < n; j++) {
		const struct pentry *e = ptable_at(c->pt, c->mp_idx[j]);
		if (e->rec.end_ns || e->mm_gone)
			continue;
		size_t at;
		if (k < PEAKMAPS_PROCS)
			at = k++;
		else if (e->rec.pss_kib > p[PEAKMAPS_PROCS - 1].pss_kib)
			at = PEAKMAPS_PROCS - 1; /* the smallest's place */
		else
			continue;
		p[at] = (struct peakmaps_proc){e->rec.id, e->rec.pid, e->rec.pss_kib};
		while (at > 0 && p[at - 1].pss_kib < p[at].pss_kib) {
			struct peakmaps_proc x = p[at - 1];
			p[at - 1] = p[at];
			p[at] = x;
			at--;
		}
	}
	peakmaps_take(c->cfg.peakmaps, t_ns, p, k);
}

/* The peak moved to t_ns: the processes the model counted in it, with the
 * PSS and RSS they had in it, join the tick's per-process samples (a
 * process list at the peak, live or replayed, shows them), each one only
 * where a reader at t_ns would not see those figures already. */
void coll_pss_peak_procs(struct collector *c, uint64_t t_ns)
{
	size_t n = c->mp_n;

	coll_base_ps_room(c, c->ps_n + n);
	for (size_t j = 0; j < n && c->ps_n < c->ps_cap; j++) {
		struct pentry *e = ptable_at(c->pt, c->mp_idx[j]);
		uint32_t v = e->rec.valid & (PROC_V_PSS | PROC_V_RSS);
		if (!v || (e->ps_t_ns && e->ps_t_ns <= t_ns && e->ps_pss_kib == e->rec.pss_kib &&
			   e->ps_rss_kib == e->rec.rss_kib))
			continue;
		/* the store may hold a later sample of it (an earlier tick's
		 * peak after its own instant): a sample goes in after its
		 * process's last one, as a recording gives them back */
		if (t_ns < c->ps_pushed_ns && e->ps_t_ns > t_ns)
			continue;
		c->ps[c->ps_n++] = (struct store_proc_sample){.id = e->rec.id, .t_ns = t_ns, .pss_kib = e->rec.pss_kib,
							      .rss_kib = e->rec.rss_kib, .valid = v};
		if (t_ns >= e->ps_t_ns) {
			e->ps_t_ns = t_ns;
			e->ps_pss_kib = e->rec.pss_kib;
			e->ps_rss_kib = e->rec.rss_kib;
		}
	}
	if (c->cfg.peakmaps)
		peak_maps_ask(c, t_ns, n);
}
