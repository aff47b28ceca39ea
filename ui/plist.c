/* plist.c: the process list: records -> a sorted tree or list -> rows. */
#include "plist.h"

#include "graph.h"
#include "jobname.h"
#include "oomkill.h"
#include "report.h"
#include "term.h"
#include "textsafe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define PLIST_MAX_DEPTH 24
#define PLIST_ARGV_MAX 4096
#define PLIST_JOB_ARGV_MAX 65536 /* a compiler's file can follow 4 KiB of options */
#define PLIST_JOB_CACHE 64
#define PLIST_MIN_AGE_NS 500000000ull /* CPU% of a new process: over at least this */

/* One shown row: a record and its place in the tree. */
struct plist_row {
	uint32_t rec;
	uint16_t depth;
	uint32_t last_bits; /* bit d: the ancestor at depth d was its parent's last child */
	uint8_t folded;     /* its subtree is folded (x): a count of what it hides */
};

/* Subtrees folded at most (their roots' ids). */
#define PLIST_FOLDS 64
#define PLIST_FIND_MAX 64

/* CPU time seen at the previous refresh, for CPU%. */
struct plist_prev {
	uint64_t id, cpu_us;
};

struct plist {
	struct proc_rec *recs; /* live, or finished in the finished view */
	struct store_summary sum; /* the run's, at the last refresh */
	size_t n, cap;
	double *cpu_pct;       /* per record (live view) */
	struct plist_prev *prev, *cur;
	size_t nprev, prev_cap, cur_cap, cpu_cap;
	uint64_t prev_ns, now_ns;
	struct plist_row *rows;
	size_t nrows, rows_cap;
	size_t live, finished; /* counts at the last refresh */
	enum plist_sort sort;
	int reverse, finished_view, cmdline;
	int at;                /* the live view is a recording's processes at at_s */
	double at_s;
	size_t sel, top;
	uint64_t sel_id;
	char filter[PLIST_FIND_MAX]; /* \\: only the processes whose job or command line hold it */
	uint8_t *match;              /* per record: it holds the filter */
	size_t match_cap;
	/* the filter's answer by command line (argv_id), worked out once: a
	 * refresh of 20,000 records does not read every command line again */
	struct plist_mc {
		uint32_t argv_id;
		uint8_t holds;
	} *mc;
	size_t mc_cap, mc_n;
	uint64_t folded[PLIST_FOLDS]; /* ids of the processes whose subtrees are folded */
	size_t nfolded;
	/* job names drawn, by command line: one is worked out once, not at
	 * every frame for every row */
	struct plist_job {
		const struct store *st;
		uint32_t argv_id;
		char comm[16];
		size_t n;
		char job[JOBNAME_MAX + 1];
	} jobs[PLIST_JOB_CACHE];
};

static int plist_match_all(struct plist *pl, struct store *st);

struct plist *plist_new(void)
{
	return calloc(1, sizeof(struct plist));
}

void plist_free(struct plist *pl)
{
	if (!pl)
		return;
	free(pl->recs);
	free(pl->cpu_pct);
	free(pl->prev);
	free(pl->cur);
	free(pl->rows);
	free(pl->match);
	free(pl->mc);
	free(pl);
}

/* Grows an array to hold n elements. Returns 0 or -ENOMEM. */
static int plist_grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < n)
		c *= 2;
	void *q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static uint64_t plist_cpu_us(const struct proc_rec *r)
{
	return r->utime_us + r->stime_us;
}

static int plist_cmp_prev(const void *a, const void *b)
{
	const struct plist_prev *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Whether a finished process lived less than one sampling interval (no
 * tick could read its PSS at its largest). */
static int plist_short_lived(const struct plist *pl, const struct proc_rec *r)
{
	uint64_t every = pl->sum.interval_ms ? pl->sum.interval_ms * 1000000ull : 100000000ull;
	return r->end_ns && r->end_ns > r->start_ns && r->end_ns - r->start_ns < every;
}

/* The sort key of record i: larger sorts first (before reversing). */
static double plist_key(const struct plist *pl, size_t i)
{
	const struct proc_rec *r = &pl->recs[i];

	switch (pl->sort) {
	case PLIST_SORT_PSS: /* what the column shows: a short life's high-water RSS */
		if (pl->finished_view && plist_short_lived(pl, r) && (r->valid & PROC_V_RSS) && r->peak_rss_kib)
			return (double)r->peak_rss_kib;
		return (double)(pl->finished_view ? r->peak_pss_kib : r->pss_kib);
	case PLIST_SORT_CPU:
		return pl->finished_view ? (double)plist_cpu_us(r) : pl->cpu_pct[i];
	case PLIST_SORT_MAJFLT: /* unknown below every count */
		return r->valid & PROC_V_FAULTS ? (double)r->majflt : -1;
	case PLIST_SORT_AGE: {
		uint64_t end = r->end_ns ? r->end_ns : pl->now_ns;
		return end > r->start_ns ? (double)(end - r->start_ns) : 0;
	}
	case PLIST_SORT_PID:
	default:
		return -(double)r->pid; /* ascending pids */
	}
}

static int plist_cmp_idx(const void *a, const void *b, void *arg)
{
	const struct plist *pl = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	double x = plist_key(pl, i), y = plist_key(pl, j);
	int c = x > y ? -1 : x < y ? 1 : (pl->recs[i].pid > pl->recs[j].pid) - (pl->recs[i].pid < pl->recs[j].pid);

	return pl->reverse ? -c : c;
}

static int plist_cmp_pid(const void *a, const void *b, void *arg)
{
	const struct plist *pl = arg;
	pid_t x = pl->recs[*(const uint32_t *)a].pid, y = pl->recs[*(const uint32_t *)b].pid;

	return (x > y) - (x < y);
}

/* Index of the record with this pid, via the pid-sorted index, or -1. */
static long plist_find(const struct plist *pl, const uint32_t *bypid, pid_t pid)
{
	size_t lo = 0, hi = pl->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		pid_t p = pl->recs[bypid[mid]].pid;
		if (p == pid)
			return bypid[mid];
		if (p < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int plist_is_folded(const struct plist *pl, uint64_t id)
{
	for (size_t i = 0; i < pl->nfolded; i++)
		if (pl->folded[i] == id)
			return 1;
	return 0;
}

/* Builds the rows: the finished list sorted, or the live tree with each
 * level's children sorted (a folded one's hidden); with a filter, only the
 * processes that hold it, as a list. */
static int plist_build(struct plist *pl)
{
	size_t n = pl->n;
	uint32_t *idx = malloc((n + 1) * sizeof(*idx)), *bypid = malloc((n + 1) * sizeof(*bypid));
	uint32_t *first = calloc(n + 2, sizeof(*first)), *kids = malloc((n + 1) * sizeof(*kids));
	uint32_t *stack = malloc((n + 1) * sizeof(*stack));
	uint16_t *sdepth = malloc((n + 1) * sizeof(*sdepth));
	uint32_t *sbits = malloc((n + 1) * sizeof(*sbits));
	long *parent = malloc((n + 1) * sizeof(*parent));
	int rc = -ENOMEM;

	if (!idx || !bypid || !first || !kids || !stack || !sdepth || !sbits || !parent ||
	    plist_grow((void **)&pl->rows, &pl->rows_cap, n + 1, sizeof(*pl->rows)))
		goto out;
	pl->nrows = 0;
	for (size_t i = 0; i < n; i++)
		idx[i] = bypid[i] = (uint32_t)i;
	qsort_r(idx, n, sizeof(*idx), plist_cmp_idx, pl);
	/* the finished list, or a filter's matches: a flat list in sort order */
	if (pl->finished_view || pl->filter[0]) {
		for (size_t i = 0; i < n; i++)
			if (!pl->filter[0] || pl->match[idx[i]])
				pl->rows[pl->nrows++] = (struct plist_row){idx[i], 0, 0, 0};
		rc = 0;
		goto out;
	}
	/* children lists (CSR), each in sort order because idx is */
	qsort_r(bypid, n, sizeof(*bypid), plist_cmp_pid, pl);
	for (size_t i = 0; i < n; i++) {
		long p = plist_find(pl, bypid, pl->recs[i].ppid);
		parent[i] = p == (long)i ? -1 : p;
		first[(parent[i] < 0 ? n : (size_t)parent[i]) + 1]++;
	}
	for (size_t i = 1; i <= n + 1; i++)
		first[i] += first[i - 1];
	uint32_t *fill = bypid; /* no longer needed by pid: reused as fill cursors */
	memset(fill, 0, (n + 1) * sizeof(*fill));
	for (size_t k = 0; k < n; k++) {
		uint32_t i = idx[k];
		size_t p = parent[i] < 0 ? n : (size_t)parent[i];
		kids[first[p] + fill[p]++] = i;
	}
	/* depth-first from the roots (children of the virtual node n) */
	size_t sp = 0;
	for (size_t k = first[n + 1]; k-- > first[n];) {
		stack[sp] = kids[k];
		sdepth[sp] = 0;
		sbits[sp] = k + 1 == first[n + 1] ? 1u : 0u;
		sp++;
	}
	while (sp && pl->nrows < n) {
		sp--;
		uint32_t i = stack[sp];
		uint16_t d = sdepth[sp];
		uint32_t bits = sbits[sp];
		int folded = plist_is_folded(pl, pl->recs[i].id) && first[i + 1] > first[i];
		pl->rows[pl->nrows++] = (struct plist_row){i, d, bits, (uint8_t)folded};
		if (d + 1 >= PLIST_MAX_DEPTH || folded)
			continue;
		for (size_t k = first[i + 1]; k-- > first[i] && sp < n;) {
			stack[sp] = kids[k];
			sdepth[sp] = (uint16_t)(d + 1);
			sbits[sp] = bits | (k + 1 == first[i + 1] ? 1u << (d + 1) : 0u);
			sp++;
		}
	}
	rc = 0;
out:
	free(idx);
	free(bypid);
	free(first);
	free(kids);
	free(stack);
	free(sdepth);
	free(sbits);
	free(parent);
	return rc;
}

/* Puts the selection back on the same process after a rebuild. */
static void plist_reselect(struct plist *pl)
{
	for (size_t r = 0; r < pl->nrows; r++)
		if (pl->recs[pl->rows[r].rec].id == pl->sel_id) {
			pl->sel = r;
			return;
		}
	if (pl->sel >= pl->nrows)
		pl->sel = pl->nrows ? pl->nrows - 1 : 0;
}

int plist_refresh(struct plist *pl, struct store *st, uint64_t now_ns)
{
	int which = pl->finished_view ? 2 : 1;
	size_t total;

	/* copy; when the count grew meanwhile, grow and copy again */
	for (int tries = 0;; tries++) {
		total = store_procs(st, which, pl->recs, pl->cap);
		if (total <= pl->cap || tries == 3)
			break;
		if (plist_grow((void **)&pl->recs, &pl->cap, total + total / 4 + 16, sizeof(*pl->recs)))
			return -ENOMEM;
	}
	pl->n = total < pl->cap ? total : pl->cap;
	pl->at = 0;
	store_summary_get(st, &pl->sum); /* its OOM kills name the killed */
	pl->live = which == 1 ? total : store_procs(st, 1, NULL, 0);
	pl->finished = which == 2 ? total : store_procs(st, 2, NULL, 0);
	pl->now_ns = now_ns;
	if (plist_grow((void **)&pl->cpu_pct, &pl->cpu_cap, pl->n + 1, sizeof(*pl->cpu_pct)))
		return -ENOMEM;
	if (!pl->finished_view) {
		/* CPU% from the CPU time since the previous refresh */
		if (plist_grow((void **)&pl->cur, &pl->cur_cap, pl->n + 1, sizeof(*pl->cur)) ||
		    plist_grow((void **)&pl->prev, &pl->prev_cap, pl->n + 1, sizeof(*pl->prev)))
			return -ENOMEM;
		double dt = pl->prev_ns && now_ns > pl->prev_ns ? (double)(now_ns - pl->prev_ns) : 0;
		for (size_t i = 0; i < pl->n; i++) {
			const struct proc_rec *r = &pl->recs[i];
			struct plist_prev key = {r->id, 0}, *p = NULL;
			if (pl->nprev)
				p = bsearch(&key, pl->prev, pl->nprev, sizeof(key), plist_cmp_prev);
			/* since the previous refresh; a new process over its age, at
			 * least the refresh period (start times are jiffy-coarse) */
			double span = p && dt > 0 ? dt
				      : now_ns > r->start_ns + PLIST_MIN_AGE_NS ? (double)(now_ns - r->start_ns)
										: (double)PLIST_MIN_AGE_NS;
			uint64_t used = p && plist_cpu_us(r) >= p->cpu_us ? plist_cpu_us(r) - p->cpu_us
									  : plist_cpu_us(r);
			double pct = (double)used * 1000 / span * 100;
			double cap = 100.0 * (r->threads ? r->threads : 1);
			pl->cpu_pct[i] = (r->valid & PROC_V_CPU) ? (pct > cap ? cap : pct) : -1;
			pl->cur[i] = (struct plist_prev){r->id, plist_cpu_us(r)};
		}
		qsort(pl->cur, pl->n, sizeof(*pl->cur), plist_cmp_prev);
		struct plist_prev *t = pl->prev;
		size_t tc = pl->prev_cap;
		pl->prev = pl->cur;
		pl->prev_cap = pl->cur_cap;
		pl->cur = t;
		pl->cur_cap = tc;
		pl->nprev = pl->n;
		pl->prev_ns = now_ns;
	}
	if (plist_match_all(pl, st) || plist_build(pl))
		return -ENOMEM;
	plist_reselect(pl);
	return 0;
}

int plist_refresh_at(struct plist *pl, struct store *st, const struct proc_rec *recs, size_t n,
		     uint64_t t_ns, uint64_t start_ns)
{
	if (pl->finished_view)
		return plist_refresh(pl, st, 0);
	if (plist_grow((void **)&pl->recs, &pl->cap, n + 1, sizeof(*pl->recs)) ||
	    plist_grow((void **)&pl->cpu_pct, &pl->cpu_cap, n + 1, sizeof(*pl->cpu_pct)))
		return -ENOMEM;
	if (n)
		memcpy(pl->recs, recs, n * sizeof(*recs));
	pl->n = n;
	pl->live = n;
	pl->finished = store_procs(st, STORE_PROCS_EXITED, NULL, 0);
	pl->at = 1;
	pl->at_s = t_ns > start_ns ? (double)(t_ns - start_ns) / 1e9 : 0;
	pl->now_ns = t_ns; /* ages as of then */
	for (size_t i = 0; i < n; i++)
		pl->cpu_pct[i] = -1; /* a rate needs two instants: not shown */
	if (plist_match_all(pl, st) || plist_build(pl))
		return -ENOMEM;
	plist_reselect(pl);
	return 0;
}

void plist_cycle_sort(struct plist *pl)
{
	pl->sort = (pl->sort + 1) % PLIST_NSORT;
	pl->reverse = 0;
	plist_build(pl);
	plist_reselect(pl);
}

void plist_reverse(struct plist *pl)
{
	pl->reverse = !pl->reverse;
	plist_build(pl);
	plist_reselect(pl);
}

void plist_toggle_finished(struct plist *pl)
{
	pl->finished_view = !pl->finished_view;
	pl->n = pl->nrows = 0;
	pl->sel = pl->top = 0;
	pl->nprev = 0;
	pl->prev_ns = 0;
}

int plist_finished_view(const struct plist *pl)
{
	return pl->finished_view;
}

void plist_toggle_cmdline(struct plist *pl)
{
	pl->cmdline = !pl->cmdline;
}

int plist_cmdline(const struct plist *pl)
{
	return pl->cmdline;
}

void plist_move(struct plist *pl, long delta)
{
	long s = (long)pl->sel + delta;

	if (s >= (long)pl->nrows)
		s = (long)pl->nrows - 1;
	if (s < 0)
		s = 0;
	pl->sel = (size_t)s;
	if (pl->nrows)
		pl->sel_id = pl->recs[pl->rows[pl->sel].rec].id;
}

void plist_top(struct plist *pl)
{
	plist_move(pl, -(long)pl->nrows);
}

size_t plist_live(const struct plist *pl)
{
	return pl->live;
}

size_t plist_finished(const struct plist *pl)
{
	return pl->finished;
}

/* Columns: which show depends on the width; the command takes the rest. */
enum { COL_PID, COL_PSS, COL_RSS, COL_CPU, COL_MINFLT, COL_MAJFLT, COL_AGE, COL_EXIT, NCOLS };
static const struct {
	int w;
	const char *live, *fin;
	int prio; /* lower shows first as the terminal widens */
} plist_cols[NCOLS] = {
	[COL_PID] = {7, "PID", "PID", 0},      [COL_PSS] = {9, "PSS", "PEAK PSS", 0},
	[COL_RSS] = {9, "RSS", "PEAK RSS", 4}, [COL_CPU] = {6, "CPU%", "CPU s", 1},
	[COL_MINFLT] = {7, "MINFLT", "MINFLT", 5}, [COL_MAJFLT] = {6, "MAJFLT", "MAJFLT", 3},
	[COL_AGE] = {7, "AGE", "TIME", 2},     [COL_EXIT] = {6, "EXIT", "EXIT", 2},
};

/* Chooses the columns for a width, keeping at least 16 for the command. */
static void plist_columns(int w, int fin, int on[NCOLS])
{
	int used = 0;

	for (int c = 0; c < NCOLS; c++)
		on[c] = 0;
	for (int p = 0; p <= 5; p++)
		for (int c = 0; c < NCOLS; c++) {
			if (plist_cols[c].prio != p || (c == COL_EXIT && !fin))
				continue;
			if (used + plist_cols[c].w + 1 + 16 <= w || p == 0) {
				on[c] = 1;
				used += plist_cols[c].w + 1;
			}
		}
}

/* Duration as "0.4s", "12s", "3m05", "1h02". */
static void plist_fmt_dur(char *b, size_t cap, uint64_t ns)
{
	uint64_t s = ns / 1000000000ull;

	if (s < 10)
		snprintf(b, cap, "%.1fs", (double)ns / 1e9);
	else if (s < 60)
		snprintf(b, cap, "%us", (unsigned)s);
	else if (s < 3600)
		snprintf(b, cap, "%um%02u", (unsigned)(s / 60), (unsigned)(s % 60));
	else
		snprintf(b, cap, "%uh%02u", (unsigned)(s / 3600), (unsigned)(s / 60 % 60));
}

/* The text of one column of a record. */
static void plist_cell(const struct plist *pl, size_t i, int c, char *b, size_t cap)
{
	const struct proc_rec *r = &pl->recs[i];
	int fin = pl->finished_view;
	uint64_t end = r->end_ns ? r->end_ns : pl->now_ns;

	switch (c) {
	case COL_PID:
		snprintf(b, cap, "%d", (int)r->pid);
		break;
	case COL_PSS:
		if (fin && plist_short_lived(pl, r) && (r->valid & PROC_V_RSS) && r->peak_rss_kib) {
			/* lived less than an interval: its high-water RSS (exact,
			 * taskstats), said as RSS, not a PSS no read could take */
			char s[24];
			graph_fmt_kib(s, sizeof(s), (double)r->peak_rss_kib);
			snprintf(b, cap, "RSS %s", s);
		} else if (!(r->valid & PROC_V_PSS)) {
			snprintf(b, cap, "n/a");
		} else {
			char s[24];
			report_size(s, sizeof(s), fin ? r->peak_pss_kib : r->pss_kib);
			/* the ~ of an estimate only where the column has room for it */
			int est = (r->valid & PROC_V_PSS_EST) && !fin && strlen(s) < (size_t)plist_cols[COL_PSS].w;
			snprintf(b, cap, "%s%s", est ? "~" : "", s);
		}
		break;
	case COL_RSS:
		if (r->valid & PROC_V_RSS)
			report_size(b, cap, fin ? r->peak_rss_kib : r->rss_kib);
		else
			snprintf(b, cap, "n/a");
		break;
	case COL_CPU:
		if (!(r->valid & PROC_V_CPU))
			snprintf(b, cap, "n/a");
		else if (fin) /* within the column's 6: fewer decimals as it grows */
			snprintf(b, cap, plist_cpu_us(r) < 100000000 ? "%.2f" : plist_cpu_us(r) < 1000000000 ? "%.1f" : "%.0f",
				 (double)plist_cpu_us(r) / 1e6);
		else if (pl->cpu_pct[i] < 0)
			snprintf(b, cap, "n/a"); /* a replay's instant: no rate */
		else
			snprintf(b, cap, "%.1f", pl->cpu_pct[i]);
		break;
	case COL_MINFLT:
	case COL_MAJFLT:
		if (r->valid & PROC_V_FAULTS)
			graph_fmt_si(b, cap, (double)(c == COL_MINFLT ? r->minflt : r->majflt));
		else
			snprintf(b, cap, "n/a");
		break;
	case COL_AGE:
		plist_fmt_dur(b, cap, end > r->start_ns ? end - r->start_ns : 0);
		break;
	case COL_EXIT:
		if (!(r->valid & PROC_V_EXIT))
			snprintf(b, cap, "n/a");
		else if (oomkill_of(&pl->sum, r))
			snprintf(b, cap, "oom"); /* the kernel's OOM killer's SIGKILL */
		else if (WIFSIGNALED(r->exit_status))
			snprintf(b, cap, "sig%d", WTERMSIG(r->exit_status));
		else
			snprintf(b, cap, "%d", WEXITSTATUS(r->exit_status));
		break;
	}
}

/* The tree prefix of a row ("│ ├ " ...) as wide characters. */
static size_t plist_prefix(const struct plist_row *row, wchar_t *out, size_t cap)
{
	const struct term_glyphs *g = term_glyph();
	size_t k = 0;

	for (int d = 1; d <= row->depth && k + 3 < cap; d++) {
		int last = (row->last_bits >> d) & 1;
		if (d < row->depth) {
			out[k++] = (row->last_bits >> d) & 1 ? ' ' : g->vline;
			out[k++] = ' ';
		} else {
			out[k++] = last ? g->last : g->branch;
			out[k++] = g->hline;
		}
	}
	out[k] = 0;
	return k;
}

static const char *plist_sort_name(const struct plist *pl)
{
	static const char *live[] = {"PSS", "CPU%", "major faults", "age", "pid"};
	static const char *fin[] = {"peak PSS", "CPU time", "major faults", "duration", "pid"};

	return (pl->finished_view ? fin : live)[pl->sort];
}

/* The title line: what the list shows, its sort, the f key's other view. */
static void draw_title(const struct plist *pl, const struct rect *t, int focused)
{
	const struct term_glyphs *g = term_glyph();
	enum role tr = focused ? ROLE_FOCUS : ROLE_TITLE;
	char txt[64];
	int x;

	term_fill(t->y, t->x, t->w, g->hline, ROLE_TITLE);
	if (pl->finished_view)
		snprintf(txt, sizeof(txt), " Finished processes: %zu (%zu live) ", pl->finished, pl->live);
	else if (pl->at)
		snprintf(txt, sizeof(txt), " Processes at %.1f s: %zu alive ", pl->at_s, pl->live);
	else
		snprintf(txt, sizeof(txt), " Processes: %zu live, %zu finished ", pl->live, pl->finished);
	x = t->x + 1 + term_puts(t->y, t->x + 1, t->w - 1, txt, tr);
	snprintf(txt, sizeof(txt), " sort %s%s ", plist_sort_name(pl), pl->reverse ? " (reversed)" : "");
	x += term_printf(t->y, x + 1, t->x + t->w - x - 1, ROLE_TITLE, "%s", txt) + 1;
	if (pl->filter[0]) {
		char f[PLIST_FIND_MAX + 24];
		int n = snprintf(f, sizeof(f), " filter: %s ", pl->filter);
		if (x + 1 + n < t->x + t->w)
			x += term_puts(t->y, x + 1, t->x + t->w - x - 1, f, ROLE_PAUSED) + 1;
	}
	term_printf(t->y, x + 1, t->x + t->w - x - 1, ROLE_DIM, "%s", pl->finished_view ? " f: live tree " : " f: finished ");
}

/* The column heads of the columns on. */
static void draw_heads(const struct plist *pl, const struct rect *h, const int *on)
{
	int x = h->x;

	term_blank(h->y, h->x, 1, h->w);
	for (int c = 0; c < NCOLS; c++) {
		if (!on[c])
			continue;
		const char *name = pl->finished_view ? plist_cols[c].fin : plist_cols[c].live;
		term_printf(h->y, x, plist_cols[c].w, ROLE_DIM, "%*s", plist_cols[c].w, name);
		x += plist_cols[c].w + 1;
	}
	term_puts(h->y, x, h->x + h->w - x, pl->cmdline ? "COMMAND LINE" : "JOB", ROLE_DIM);
}

/* A row's job name (cc1 src/x.c, not cc1 -quiet -I ...), from the cache of
 * names made; its length, 0 when none can be made. */
static size_t job_of(struct plist *pl, struct store *st, const struct proc_rec *rec, const char **job)
{
	struct plist_job *j = &pl->jobs[rec->argv_id % PLIST_JOB_CACHE];
	if (j->st != st || j->argv_id != rec->argv_id || strncmp(j->comm, rec->comm, sizeof(j->comm))) {
		static char whole[PLIST_JOB_ARGV_MAX];
		ssize_t len = store_str_get(st, rec->argv_id, whole, sizeof(whole));
		if (len > (ssize_t)sizeof(whole))
			len = sizeof(whole);
		j->n = len > 0 ? jobname(whole, (size_t)len, rec->comm, j->job, sizeof(j->job)) : 0;
		j->st = st;
		j->argv_id = rec->argv_id;
		memcpy(j->comm, rec->comm, sizeof(j->comm));
	}
	*job = j->job;
	return j->n;
}

/* A row's command: its job name, its command line, or [comm] when neither
 * is known; untrusted bytes, sanitized, after the tree prefix. */
static void draw_command(struct plist *pl, struct store *st, const struct plist_row *row, int y, int x,
			 int right, enum role role)
{
	static char argv[PLIST_ARGV_MAX];
	static wchar_t line[PLIST_ARGV_MAX + 2 * PLIST_MAX_DEPTH + 8];
	const struct proc_rec *rec = &pl->recs[row->rec];
	size_t k = plist_prefix(row, line, 2 * PLIST_MAX_DEPTH + 4);
	if (row->folded) { /* its children hidden (x unfolds) */
		line[k++] = '+';
		line[k++] = ' ';
	}
	if (!rec->end_ns && (rec->valid & PROC_V_STOPPED)) /* paused (z, or another SIGSTOP) */
		for (const wchar_t *s = L"(stopped) "; *s; s++)
			line[k++] = *s;
	size_t room = sizeof(line) / sizeof(line[0]) - k;
	ssize_t len = -1;
	int known = rec->argv_id && (rec->valid & PROC_V_ARGV);
	const char *job;
	size_t n;

	if (known && !pl->cmdline && (n = job_of(pl, st, rec, &job)) > 0) {
		textsafe_wcs(job, n, line + k, room, term_utf8());
		term_put(y, x, right - x, line, role);
		return;
	}
	if (known && pl->cmdline)
		len = store_str_get(st, rec->argv_id, argv, sizeof(argv));
	if (len > (ssize_t)sizeof(argv))
		len = sizeof(argv);
	if (len > 0) {
		while (len > 0 && argv[len - 1] == '\0')
			len--;
		textsafe_wcs(argv, (size_t)len, line + k, room, term_utf8());
	} else {
		char comm[24];
		snprintf(comm, sizeof(comm), "[%.16s]", rec->comm);
		textsafe_wcs(comm, strlen(comm), line + k, room, term_utf8());
	}
	term_put(y, x, right - x, line, role);
}

/* Row r of the body: its cells, then its command. */
static void draw_row(struct plist *pl, struct store *st, const struct rect *b, const int *on, size_t r,
		     int focused)
{
	const struct plist_row *row = &pl->rows[pl->top + r];
	const struct proc_rec *rec = &pl->recs[row->rec];
	int y = b->y + (int)r, sel = focused && pl->top + r == pl->sel, x = b->x;
	enum role role = sel ? ROLE_SELECTED : ROLE_NORMAL;
	char txt[64];

	if (sel)
		term_fill(y, b->x, b->w, ' ', ROLE_SELECTED);
	for (int c = 0; c < NCOLS; c++) {
		if (!on[c])
			continue;
		plist_cell(pl, row->rec, c, txt, sizeof(txt));
		enum role cr = role;
		if (!sel && c == COL_MAJFLT && rec->majflt && (rec->valid & PROC_V_FAULTS))
			cr = ROLE_MAJOR;
		if (!sel && c == COL_EXIT && strcmp(txt, "0") && strcmp(txt, "n/a"))
			cr = ROLE_BAD;
		term_printf(y, x, plist_cols[c].w, cr, "%*s", plist_cols[c].w, txt);
		x += plist_cols[c].w + 1;
	}
	draw_command(pl, st, row, y, x, b->x + b->w, role);
}

void plist_draw(struct plist *pl, struct store *st, const struct layout *l, int focused)
{
	const struct rect *b = &l->plist_body;
	int on[NCOLS];

	draw_title(pl, &l->plist_title, focused);
	plist_columns(b->w, pl->finished_view, on);
	draw_heads(pl, &l->plist_head, on);
	/* rows, with the selection kept visible */
	size_t rows = (size_t)(b->h > 0 ? b->h : 0);
	if (pl->sel < pl->top)
		pl->top = pl->sel;
	if (rows && pl->sel >= pl->top + rows)
		pl->top = pl->sel - rows + 1;
	if (pl->top + rows > pl->nrows)
		pl->top = pl->nrows > rows ? pl->nrows - rows : 0;
	term_blank(b->y, b->x, b->h, b->w);
	if (!pl->nrows && rows)
		term_puts(b->y, b->x + 2, b->w - 2,
			  pl->finished_view ? "no process has finished yet" : "no live process", ROLE_DIM);
	for (size_t r = 0; r < rows && pl->top + r < pl->nrows; r++)
		draw_row(pl, st, b, on, r, focused);
}

/* Whether record rec holds text (case aside) in its job name or its
 * command line (arguments joined by blanks). */
static int plist_holds(struct plist *pl, struct store *st, const struct proc_rec *rec, const char *text)
{
	static char argv[PLIST_ARGV_MAX];
	const char *job;
	size_t n;

	if (rec->argv_id && (rec->valid & PROC_V_ARGV) && (n = job_of(pl, st, rec, &job)) > 0) {
		char j[JOBNAME_MAX + 1];
		memcpy(j, job, n);
		j[n] = 0;
		if (strcasestr(j, text))
			return 1;
	}
	ssize_t len = rec->argv_id && (rec->valid & PROC_V_ARGV) ? store_str_get(st, rec->argv_id, argv, sizeof(argv) - 1)
								   : -1;
	if (len > (ssize_t)sizeof(argv) - 1)
		len = sizeof(argv) - 1;
	if (len > 0) {
		for (ssize_t i = 0; i < len; i++)
			if (!argv[i])
				argv[i] = ' ';
		argv[len] = 0;
		return strcasestr(argv, text) != NULL;
	}
	char comm[sizeof(rec->comm) + 1];
	memcpy(comm, rec->comm, sizeof(rec->comm));
	comm[sizeof(rec->comm)] = 0;
	return strcasestr(comm, text) != NULL;
}

/* The cache's slot for argv_id (open addressing; mc_cap a power of two). */
static struct plist_mc *mc_slot(struct plist *pl, uint32_t argv_id)
{
	size_t i = (argv_id * 2654435761u) & (pl->mc_cap - 1);
	while (pl->mc[i].argv_id && pl->mc[i].argv_id != argv_id)
		i = (i + 1) & (pl->mc_cap - 1);
	return &pl->mc[i];
}

/* Room for n more answers (the table at most half full). */
static int mc_room(struct plist *pl, size_t n)
{
	if ((pl->mc_n + n) * 2 <= pl->mc_cap)
		return 0;
	size_t cap = pl->mc_cap ? pl->mc_cap : 256;
	while ((pl->mc_n + n) * 2 > cap)
		cap *= 2;
	struct plist_mc *old = pl->mc;
	size_t ocap = pl->mc_cap;
	if (!(pl->mc = calloc(cap, sizeof(*pl->mc)))) {
		pl->mc = old;
		return -ENOMEM;
	}
	pl->mc_cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].argv_id)
			*mc_slot(pl, old[i].argv_id) = old[i];
	free(old);
	return 0;
}

/* The filter's match of every record. */
static int plist_match_all(struct plist *pl, struct store *st)
{
	if (!pl->filter[0])
		return 0;
	if (plist_grow((void **)&pl->match, &pl->match_cap, pl->n + 1, 1) || mc_room(pl, pl->n))
		return -ENOMEM;
	for (size_t i = 0; i < pl->n; i++) {
		const struct proc_rec *r = &pl->recs[i];
		if (!r->argv_id || !(r->valid & PROC_V_ARGV)) { /* its name alone: cheap */
			pl->match[i] = (uint8_t)plist_holds(pl, st, r, pl->filter);
			continue;
		}
		struct plist_mc *m = mc_slot(pl, r->argv_id);
		if (!m->argv_id) {
			*m = (struct plist_mc){r->argv_id, (uint8_t)plist_holds(pl, st, r, pl->filter)};
			pl->mc_n++;
		}
		pl->match[i] = m->holds;
	}
	return 0;
}

int plist_set_filter(struct plist *pl, struct store *st, const char *text)
{
	snprintf(pl->filter, sizeof(pl->filter), "%s", text ? text : "");
	/* the answers were another filter's */
	if (pl->mc)
		memset(pl->mc, 0, pl->mc_cap * sizeof(*pl->mc));
	pl->mc_n = 0;
	if (plist_match_all(pl, st) || plist_build(pl))
		return -ENOMEM;
	plist_reselect(pl);
	return 0;
}

const char *plist_filter(const struct plist *pl)
{
	return pl->filter;
}

/* Record i's index among the records by pid (its parent's: ppid), or -1. */
static long rec_of_pid(const struct plist *pl, pid_t pid)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->recs[i].pid == pid)
			return (long)i;
	return -1;
}

/* A match hidden in a folded subtree: its ancestors unfolded, the rows
 * rebuilt. Returns 1 when one was. */
static int unfold_match(struct plist *pl, struct store *st, const char *text)
{
	for (size_t i = 0; i < pl->n && pl->nfolded; i++) {
		if (!plist_holds(pl, st, &pl->recs[i], text))
			continue;
		int hidden = 1;
		for (size_t r = 0; r < pl->nrows && hidden; r++)
			hidden = pl->rows[r].rec != i;
		if (!hidden)
			continue;
		long a = rec_of_pid(pl, pl->recs[i].ppid);
		for (int depth = 0; a >= 0 && depth < PLIST_MAX_DEPTH; depth++) {
			for (size_t f = 0; f < pl->nfolded; f++)
				if (pl->folded[f] == pl->recs[a].id)
					pl->folded[f--] = pl->folded[--pl->nfolded];
			a = rec_of_pid(pl, pl->recs[a].ppid);
		}
		pl->sel_id = pl->recs[i].id;
		plist_build(pl);
		plist_reselect(pl);
		return 1;
	}
	return 0;
}

int plist_search(struct plist *pl, struct store *st, const char *text, int next)
{
	if (!text[0] || !pl->nrows)
		return 0;
	for (size_t k = next ? 1 : 0; k <= pl->nrows; k++) {
		size_t r = (pl->sel + k) % pl->nrows;
		if (plist_holds(pl, st, &pl->recs[pl->rows[r].rec], text)) {
			pl->sel = r;
			pl->sel_id = pl->recs[pl->rows[r].rec].id;
			return 1;
		}
	}
	/* none shown: one folded away is unfolded to be shown */
	return unfold_match(pl, st, text);
}

int plist_toggle_fold(struct plist *pl)
{
	if (pl->finished_view || pl->filter[0] || !pl->nrows)
		return 0;
	uint64_t id = pl->recs[pl->rows[pl->sel].rec].id;
	for (size_t i = 0; i < pl->nfolded; i++)
		if (pl->folded[i] == id) {
			pl->folded[i] = pl->folded[--pl->nfolded];
			plist_build(pl);
			plist_reselect(pl);
			return 1;
		}
	/* a leaf has nothing to fold: the rows after it are no children */
	if (pl->sel + 1 >= pl->nrows || pl->rows[pl->sel + 1].depth <= pl->rows[pl->sel].depth)
		return 0;
	if (pl->nfolded == PLIST_FOLDS)
		memmove(pl->folded, pl->folded + 1, (PLIST_FOLDS - 1) * sizeof(pl->folded[0])), pl->nfolded--;
	pl->folded[pl->nfolded++] = id;
	pl->sel_id = id;
	plist_build(pl);
	plist_reselect(pl);
	return 1;
}

int plist_select_at(struct plist *pl, const struct layout *l, int y)
{
	const struct rect *b = &l->plist_body;
	if (y < b->y || y >= b->y + b->h || pl->top + (size_t)(y - b->y) >= pl->nrows)
		return 0;
	pl->sel = pl->top + (size_t)(y - b->y);
	pl->sel_id = pl->recs[pl->rows[pl->sel].rec].id;
	return 1;
}

int plist_selected(struct plist *pl, struct store *st, struct proc_rec *out, char *job, size_t job_cap)
{
	const char *j = NULL;

	if (!pl->nrows || pl->sel >= pl->nrows)
		return 0;
	*out = pl->recs[pl->rows[pl->sel].rec];
	size_t n = job_of(pl, st, out, &j);
	if (job_cap)
		snprintf(job, job_cap, "%.*s", (int)n, n ? j : "");
	return 1;
}

int plist_job_of_pid(struct plist *pl, struct store *st, pid_t pid, char *job, size_t job_cap)
{
	const char *j = NULL;

	for (size_t i = 0; i < pl->n; i++) {
		if (pl->recs[i].pid != pid || pl->recs[i].end_ns)
			continue;
		size_t n = job_of(pl, st, &pl->recs[i], &j);
		snprintf(job, job_cap, "%.*s", (int)n, n ? j : pl->recs[i].comm);
		return 1;
	}
	return 0;
}
