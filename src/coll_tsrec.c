/* coll_tsrec.c: a taskstats exit record added to its process's entry, and
 * the records kept for a process whose fork event had not come yet adopted
 * by it. Below the jobs that add and retire processes (coll_sample.c) and
 * read the records (coll_ts.c). */
#include "collector_int.h"

#include "clockns.h"

#include <string.h>

/* When the task of record x (of e) ended: its start (its fork event's time)
 * plus its lifetime, when both are known, never after now; else now (the
 * record read at once: the socket wakes the collector, coll_ts_arm). */
static uint64_t exit_ns(struct collector *c, const struct pentry *e, const struct taskstats_exit *x)
{
	uint64_t now = coll_base_clock(c);

	/* not known: no earlier than when the socket was last found empty
	 * (the earliest it can have been: a late tick's sample is no prompt
	 * one) */
	if (!e->fork_seen || !x->etime_us)
		return c->ts_empty_ns && c->ts_empty_ns < now ? c->ts_empty_ns : now;
	uint64_t t = e->rec.start_ns + x->etime_us * 1000u;
	return t < now ? t : now;
}

/* Adds one task's exit record to its process's entry, if it is in the tree.
 * A process's figures are the sum over its tasks (the per-thread records);
 * a thread group's aggregate record is not needed. */
void coll_tsrec_add(struct collector *c, struct pentry *e, const struct taskstats_exit *x)
{
	e->ts_utime_us += x->utime_us;
	e->ts_stime_us += x->stime_us;
	e->ts_minflt += x->minflt;
	e->ts_majflt += x->majflt;
	/* the time the tree's tasks waited (delay accounting on) */
	c->sum.delay_cpu_ns += x->cpu_delay_ns;
	c->sum.delay_blkio_ns += x->blkio_delay_ns;
	c->sum.delay_swapin_ns += x->swapin_delay_ns;
	c->sum.delay_reclaim_ns += x->reclaim_delay_ns;
	c->sum.delay_thrashing_ns += x->thrashing_delay_ns;
	e->ts_wait_cpu_ns += x->cpu_delay_ns;
	e->ts_wait_io_ns += x->blkio_delay_ns + x->swapin_delay_ns + x->reclaim_delay_ns + x->thrashing_delay_ns;
	if (x->hiwater_rss_kib > e->ts_hiwater_kib)
		e->ts_hiwater_kib = x->hiwater_rss_kib;
	/* it went above what the ticks saw of it, with the tree near enough to
	 * its peak that the others, grown since the last tick too, may have
	 * made one with it: the exit sample is best made now, with the others
	 * read now */
	uint64_t seen = e->top.tick ? e->top.rss_kib : 0, peak = c->sum.peak.pss_kib;
	/* (its high-water mark is its program's whole life's: past what a tick
	 * read of it only if it rose since; the main thread's record only) */
	int rose = !e->top.tick || (e->hwm_read && x->hiwater_rss_kib > e->hwm_kib);
	if (x->pid == x->tgid && rose && x->hiwater_rss_kib >= seen + COLL_TOP_MIN_GAIN_KIB &&
	    !coll_proc_before_first_exec(c, e) &&
	    x->hiwater_rss_kib >= COLLECTOR_TOP_MIN_KIB &&
	    ((double)(c->sum.last.pss_kib + (x->hiwater_rss_kib - seen)) >= (double)peak * COLLECTOR_TOP_NEAR ||
	     coll_rss_top_now(c)))
	{
		if (!c->top_due) {
			c->top_due = 1;
			c->top_due_ns = clockns_now() + COLLECTOR_TOP_WAIT_NS;
		}
		c->top_wait_pid = e->rec.pid;
		coll_base_quiet_wake(c);
	}
	if (x->pid == x->tgid) {
		e->ts_leader = 1;
		e->ts_leader_seq = x->seq;
		memcpy(e->ts_comm, x->comm, sizeof(e->ts_comm));
		e->ts_comm[sizeof(e->ts_comm) - 1] = '\0';
		/* a process of one thread ends with its record, sent as its
		 * memory is let go of (its exit event only once it is freed): it
		 * leaves the peak's reckoning now, at its most, and the tick
		 * taken at once reads the others at that instant */
		if (e->max_threads == 1 && !e->thread_forked && !e->top_gone) {
			uint64_t f = e->ts_minflt + e->ts_majflt;
			coll_pss_gone(c, e, exit_ns(c, e, x), e->ts_hiwater_kib, e->ts_hiwater_kib != 0,
				      f > e->mem_at_faults ? f - e->mem_at_faults : 0, 0);
			e->top_gone = 1;
		}
	}
	c->sum.ts_records++;
}

/* Whether record x, received at read_ns with the socket found empty at
 * after_ns, is of a task of e (taskstats_belongs): not of a stranger that had
 * e's pid before e's fork or got it after e ended. */
int coll_tsrec_fits(struct collector *c, const struct pentry *e, const struct taskstats_exit *x,
		   uint64_t after_ns, uint64_t read_ns)
{
	const struct pentry *p = ptable_get(c->pt, e->rec.ppid);
	struct taskstats_owner o = {.end_ns = e->exit_pending ? e->exit_ns : 0, .ppid = e->rec.ppid,
				    .parent_sure = p && !p->exit_pending, .ours = e->rec.pid == c->root};

	if (e->fork_seen) {
		o.start_ns = e->rec.start_ns;
	} else if (e->start_ticks) {
		/* found by polling: its stat start, rounded down to a tick */
		uint64_t boot = e->start_ticks * (1000000000ull / (uint64_t)procfs_hz());
		uint64_t off = coll_proc_boot_offset_ns(c);
		o.start_ns = boot > off ? boot - off : 0;
	}
	return taskstats_belongs(x, &o, after_ns, read_ns);
}

/* Adds the record kept in slot k of tspend, of e's pid, to e if it is one of
 * its tasks' and not too old; the slot is free then. */
void coll_tsrec_adopt_one(struct collector *c, struct pentry *e, size_t k, uint64_t now)
{
	struct taskstats_exit *x = &c->tspend[k];
	if (c->tspend_ns[k] + COLLECTOR_TSPEND_NS >= now &&
	    coll_tsrec_fits(c, e, x, c->tspend_after_ns[k], c->tspend_ns[k])) {
		coll_tsrec_add(c, e, x);
		x->tgid = c->tspend_tgid[k] = 0;
	}
}

/* Adds to e the records of its tasks that came before it was in the table. */
void coll_tsrec_adopt(struct collector *c, struct pentry *e)
{
	uint64_t now = coll_base_clock(c);

	for (size_t k = 0; k < COLLECTOR_TSPEND; k++)
		if (c->tspend_tgid[k] == e->rec.pid)
			coll_tsrec_adopt_one(c, e, k, now);
}
