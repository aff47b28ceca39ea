/* coll_rss.c: the tree between two ticks from its traced RSS changes
 * (rsstrace.h, rssspan.h): a floor at the instant the tree was highest, and
 * the interval's bound. */
#include "collector_int.h"
#include "clockns.h"
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

/* Pages the kernel reclaimed or swapped so far (/proc/vmstat); the same
 * value at each call when it cannot be read. */
static uint64_t reclaim_count(struct collector *c)
{
	static const char *const keys[] = {"pswpin ", "pswpout ", "pgsteal_kswapd ", "pgsteal_direct ",
					   "pgsteal_khugepaged ", "thp_collapse_alloc "};
	char path[256];
	snprintf(path, sizeof(path), "%s/vmstat", c->proc_root);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return c->rt.reclaim_seen;
	ssize_t n = read(fd, c->rt.vmstat, sizeof(c->rt.vmstat) - 1);
	close(fd);
	if (n <= 0)
		return c->rt.reclaim_seen;
	c->rt.vmstat[n] = '\0';
	uint64_t sum = 0;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const char *p = strstr(c->rt.vmstat, keys[k]);
		if (p && (p == c->rt.vmstat || p[-1] == '\n'))
			sum += strtoull(p + strlen(keys[k]), NULL, 10);
	}
	return sum;
}

/* The processes the tick's model counted, with their lower bounds; when its
 * sweep's processes moved as it read them, those it read, at their reads
 * (each true of its instant: the backward walk takes off what they mapped
 * since, and the ends among them count at their own pages), and the others
 * at nothing (a process gone as the tick looked stays at its last figures).
 * Sets *lo_kib to their sum. */
static int live_list(struct collector *c, uint64_t now, size_t *n, uint64_t *lo_kib)
{
	size_t m = c->mp_n;

	if (m > c->rt.live_cap) {
		struct rssspan_live *l = realloc(c->rt.live, m * sizeof(*l));
		if (!l)
			return -ENOMEM;
		c->rt.live = l;
		c->rt.live_cap = m;
	}
	*lo_kib = 0;
	for (size_t j = 0; j < m; j++) {
		const struct pentry *e = ptable_at(c->pt, c->mp_idx[j]);
		uint64_t lo = c->mp[j].lo_kib;
		if (c->tick_moved && !(e->rd_ok && e->rd_t_ns == now))
			lo = 0;
		c->rt.live[j] = (struct rssspan_live){e->rec.pid, lo, coll_pss_program_start(e)};
		*lo_kib += lo;
	}
	*n = m;
	return 0;
}

/* The records up to now, counted in the run's summary (*lost: those the
 * kernel could not keep). */
static size_t read_records(struct collector *c, uint64_t now, const struct rsstrace_rec **r, uint64_t *lost)
{
	size_t n;

	*lost = 0;
	n = rsstrace_read(c->rss, now, c->self, r, lost);
	c->sum.rss_records += n;
	c->sum.rss_lost += *lost;
	return n;
}

/* Takes the records up to now into the interval's walk (opening it with
 * the last tick's figures at the first call). Returns 0, or -1 when records
 * were lost or memory ran out (the walk is reset: nothing until the tick). */
static int take(struct collector *c, uint64_t now)
{
	const struct rsstrace_rec *r;
	uint64_t lost;
	size_t n = read_records(c, now, &r, &lost);
	int e = -1;

	c->rt.lost += lost;
	if (!lost && !c->rt.open) {
		struct rssspan_in in = {.open_ns = c->last_tick_ns, .close_ns = now,
					.prev_lo_ok = c->rt.prev_lo_ok, .lo_prev_kib = c->rt.prev_lo_kib,
					.prev_hi_ok = c->rt.prev_hi_ok, .hi_prev_kib = c->rt.prev_hi_kib,
					.over_kib = coll_pss_peak_kib(c)};
		e = rssspan_forward(c->rt.span, r, n, &in, &c->rt.exits);
		c->rt.open = 1;
	} else if (!lost) {
		e = rssspan_more(c->rt.span, r, n, &c->rt.exits);
	}
	if (e < 0) {
		/* the counters' last values are not the kernel's any more */
		rssspan_reset(c->rt.span);
		c->rt.skip = 2;
		c->rt.exits = (struct rssspan_exits){0, 0, 0, 0};
		c->rt.broken = 1;
		return -1;
	}
	return 0;
}

/* Reads the private pages of the processes whose file pages grew, when
 * the tree may be above its peak now: the walk counts them from the read
 * on (rssspan_read). */
static void read_wanted(struct collector *c)
{
	int32_t pids[RSSSPAN_WANT_MAX];
	size_t n = rssspan_wants(c->rt.span, pids, RSSSPAN_WANT_MAX);

	c->rt.recheck_ns = 0;
	if (!n || rssspan_hi_now(c->rt.span) <= coll_pss_peak_kib(c))
		return;
	c->rt.recheck_ns = clockns_now() + COLL_RSS_RECHECK_NS;
	for (size_t i = 0; i < n; i++) {
		struct procfs_rollup ro;
		const struct pentry *e = ptable_get(c->pt, pids[i]);
		if (!e || e->rec.end_ns || e->mm_gone)
			continue; /* not the tree's, or gone: the walk's exit record may be on its way */
		int fd = procfs_open_at(c->proc_root, pids[i], 0, "smaps_rollup");
		if (fd < 0)
			continue;
		uint64_t t0 = coll_base_clock(c);
		ssize_t got = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
		uint64_t t1 = coll_base_clock(c);
		close(fd);
		c->sum.rss_reads++;
		if (got > 0 && procfs_parse_smaps_rollup(c->rbuf, (size_t)got, &ro) == 0 &&
		    (ro.valid & PROCFS_ROLLUP_PRIVATE))
			rssspan_read(c->rt.span, t0, t1, pids[i], ro.private_kib);
	}
}

/* Reads the records up to now and lets them go: the interval's walk is
 * broken (nothing until the tick), but the rings must not fill. */
static void drain(struct collector *c, uint64_t now)
{
	const struct rsstrace_rec *r;
	uint64_t lost;

	read_records(c, now, &r, &lost);
	c->rt.lost += lost;
}

void coll_rss_wake(struct collector *c)
{
	if (!c->rss || !c->last_tick_ns)
		return;
	/* a wake event's records, or a read's recheck due: else nothing new */
	int due = rsstrace_woken(c->rss) || (c->rt.recheck_ns && clockns_now() >= c->rt.recheck_ns);
	if (!due)
		return;
	c->rt.recheck_ns = 0;
	if (c->rt.broken)
		drain(c, coll_base_clock(c));
	else if (take(c, coll_base_clock(c)) == 0)
		read_wanted(c);
}

int coll_rss_top_now(struct collector *c)
{
	if (!c->rss || !c->last_tick_ns || c->rt.broken || c->rt.skip || take(c, coll_base_clock(c)) < 0)
		return 0;
	uint64_t hi = rssspan_hi_now(c->rt.span), peak = coll_pss_peak_kib(c);
	/* (an interval that met counters it did not know has a top at every
	 * end: that tells nothing) */
	return (c->rt.exits.top && c->rt.exits.hi_kib != UINT64_MAX) || (hi != UINT64_MAX && hi > peak);
}

/* The interval's records, taken in with the opening tick's figures, before
 * the tick reads: an end with the tree above its peak may have been a top,
 * and then the tick reads the others (coll_pss_tick) so that the floor
 * before it holds what they had. */
void coll_rss_begin(struct collector *c, uint64_t now)
{
	c->rt.fwd = 0;
	if (!c->rss) {
		c->rt.exits = (struct rssspan_exits){0, 0, 0, 0};
		return;
	}
	/* the kernel's own reclaim and swap move the tree's pages with no
	 * record: an interval with any bounds nothing */
	uint64_t moved = reclaim_count(c);
	c->rt.reclaim = moved != c->rt.reclaim_seen;
	c->rt.reclaim_seen = moved;
	c->sum.rss_intervals++;
	if (c->rt.broken)
		drain(c, now);
	if (c->rt.broken || take(c, now) < 0) {
		c->rt.exits = (struct rssspan_exits){0, 0, 0, 0};
		return;
	}
	c->rt.fwd = 1;
}

void coll_rss_ends(const struct collector *c, struct coll_rss_ends *x)
{
	const struct rssspan_exits *ex = &c->rt.exits;

	*x = (struct coll_rss_ends){0, 0, 0};
	/* the trace tells of this interval's ends only when it will bound it */
	if (!c->rt.fwd || c->rt.skip || c->rt.reclaim || !c->last_tick_ns || ex->hi_kib == UINT64_MAX)
		return;
	x->told = 1;
	x->top = ex->top;
	x->top_t_ns = ex->top_t_ns;
}

static void tick_interval(struct collector *c, const struct sample *s, uint64_t now);

void coll_rss_tick(struct collector *c, const struct sample *s, uint64_t now)
{
	c->rss_covered = 0;
	if (!c->rss)
		return;
	tick_interval(c, s, now);
	/* the next interval's walk opens at its first wakeup */
	c->rt.open = c->rt.broken = 0;
	c->rt.recheck_ns = 0;
	c->rt.lost = 0;
	c->rt.exits = (struct rssspan_exits){0, 0, 0, 0};
}

/* The interval the tick closes: its floor and bound. */
static void tick_interval(struct collector *c, const struct sample *s, uint64_t now)
{
	size_t nlive = 0;

	int has_pss = (s->valid & SAMPLE_PSS) != 0;
	struct rssspan_in in = {
		.open_ns = c->last_tick_ns, .close_ns = now,
		.prev_lo_ok = c->rt.prev_lo_ok, .lo_prev_kib = c->rt.prev_lo_kib,
		.prev_hi_ok = c->rt.prev_hi_ok, .hi_prev_kib = c->rt.prev_hi_kib,
		.now_lo_ok = has_pss && (c->tick_lo_kib != 0 || (c->tick_moved && c->tick_whole)),
		.lo_now_kib = c->tick_lo_kib, .now_lo_moved = c->tick_moved,
		.now_hi_ok = has_pss && c->tick_whole, .hi_now_kib = s->pss_hi_kib,
		.cow_kib = c->tick_copied_kib};
	struct rssspan_out o;
	/* the records that came as the tick read: the tick's figures hold
	 * them, the next interval starts after them */
	if (c->rt.fwd) {
		const struct rsstrace_rec *r2;
		uint64_t lost;
		size_t n2 = read_records(c, coll_base_clock(c), &r2, &lost);
		if (lost || rssspan_more(c->rt.span, r2, n2, NULL) < 0) {
			rssspan_reset(c->rt.span);
			c->rt.skip = 2;
			c->rt.lost += lost ? lost : 1;
			c->rt.fwd = 0;
		}
	}
	/* even when skipped: lo_last */
	uint64_t lo_sum = 0;
	int listed = !(in.now_lo_ok || in.now_hi_ok) || live_list(c, now, &nlive, &lo_sum) == 0;
	if (c->tick_moved)
		in.lo_now_kib = lo_sum;
	in.now_lo_ok &= in.lo_now_kib != 0;
	int ok = c->rt.fwd && !c->rt.skip && c->last_tick_ns && listed && !c->rt.reclaim;
	in.live = c->rt.live;
	in.nlive = nlive;
	if (c->rt.fwd && rssspan_backward(c->rt.span, &in, &o) < 0) {
		rssspan_reset(c->rt.span);
		c->rt.skip = 2;
		ok = 0;
	}
	if (ok && o.conflict)
		c->sum.rss_conflicts++;
	if (c->rt.skip && !c->rt.lost)
		c->rt.skip--;
	c->rt.prev_lo_ok = in.now_lo_ok;
	c->rt.prev_lo_kib = c->rt.fwd ? o.lo_now_kib : in.lo_now_kib;
	c->rt.prev_hi_ok = in.now_hi_ok && listed;
	c->rt.prev_hi_kib = c->rt.fwd ? o.hi_now_kib : in.hi_now_kib;
	if (!ok)
		return;
	/* every record of the interval came and it bounds the tree: its tops
	 * are the trace's, exits' included (an exit sample from a high-water
	 * mark counts a leaver's shares the others took over twice); else the
	 * exit samples stand (an mm of unknown pages, a floor above its bound) */
	c->rss_covered = o.floor_ok || o.bound_ok;
	if (o.bound_ok) {
		c->sum.rss_complete++;
		coll_top_traced(&c->top, o.bound_kib);
	}
	if (o.floor_ok && o.floor_kib > c->sum.peak.pss_kib) {
		struct sample fs;
		coll_pss_floor_of(s, o.floor_kib, o.floor_hi_kib, &fs);
		fs.t_ns = o.floor_t_ns;
		coll_pss_traced_floor(c, &fs);
		if (c->sum.peak.t_ns == fs.t_ns) {
			coll_pss_peak_procs(c, fs.t_ns);
			store_push_sample(c->st, &fs);
			c->sum.exit_samples++; /* a sample between ticks, as an exit's */
		}
	}
}

int coll_rss_start(struct collector *c)
{
	if (!c->rss)
		return 0;
	if (!(c->rt.span = rssspan_new()))
		return -ENOMEM;
	c->sum.rss_traced = 1;
	return 0;
}

void coll_rss_free(struct collector *c)
{
	rsstrace_close(c->rss);
	rssspan_free(c->rt.span);
	free(c->rt.live);
	c->rss = NULL;
	c->rt.span = NULL;
	c->rt.live = NULL;
}
