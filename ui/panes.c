/* panes.c: the panes of the dashboard, drawn from store copies. */
#include "panes.h"

#include "run.h"
#include "keys.h"
#include "report.h"
#include "resample.h"
#include "exitcode.h"
#include "term.h"
#include "textsafe.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define PANES_MIN_BUCKETS 2048
#define PANES_AT_MAX 64
#define PANES_MSG_NS (4 * 1000000000ull)
/* PSS is drawn as a guess where the part of it estimated passes this share */
#define PANES_EST_SHARE 0.02

enum graph_style panes_default_style(void)
{
	return term_utf8() ? GRAPH_BRAILLE : GRAPH_ASCII;
}

void panes_free(struct panes *p)
{
	free(p->bk);
	free(p->gcol);
	free(p->cells);
	free(p->idx);
	free(p->rate_a);
	free(p->rate_b);
	free(p->known_a);
	free(p->known_b);
	free(p->gbk);
	free(p->gidx);
	p->gbk = NULL;
	p->gidx = NULL;
	p->gbk_cap = p->gidx_cap = 0;
	p->bk = NULL;
	p->gcol = NULL;
	p->cells = NULL;
	p->idx = NULL;
	p->rate_a = p->rate_b = NULL;
	p->known_a = p->known_b = NULL;
	p->bk_cap = p->col_cap = p->cell_cap = 0;
}

void panes_message(struct panes *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	p->msg_until_ns = run_now_ns() + PANES_MSG_NS;
}

/* Grows the per-column scratch arrays to n columns. Returns 0 or -1. */
int panes_cols(struct panes *p, size_t n)
{
	if (n <= p->col_cap)
		return 0;
	free(p->gcol);
	free(p->idx);
	free(p->rate_a);
	free(p->rate_b);
	free(p->known_a);
	free(p->known_b);
	p->gcol = calloc(n, sizeof(*p->gcol));
	p->idx = calloc(n, sizeof(*p->idx));
	p->rate_a = calloc(n, sizeof(*p->rate_a));
	p->rate_b = calloc(n, sizeof(*p->rate_b));
	p->known_a = calloc(n, 1);
	p->known_b = calloc(n, 1);
	if (!p->gcol || !p->idx || !p->rate_a || !p->rate_b || !p->known_a || !p->known_b) {
		p->col_cap = 0;
		return -1;
	}
	p->col_cap = n;
	return 0;
}

void panes_begin(struct panes *p, uint64_t now_ns)
{
	uint64_t a, b;

	store_summary_get(p->st, &p->sum);
	p->now_ns = now_ns;
	p->have_data = store_span(p->st, &a, &b) == 0;
	p->start_ns = p->sum.start_ns ? p->sum.start_ns : p->have_data ? a : now_ns;
	/* attached: no command to reap, the run ends when the tree has */
	p->finished = p->recorded || p->sum.exited || (p->sum.attached && p->sum.end_ns);
	p->live_ns = now_ns;
	if (p->finished)
		p->live_ns = p->sum.end_ns > p->sum.last.t_ns ? p->sum.end_ns : p->sum.last.t_ns;
	/* a ghost that lasted longer: the axis goes on to its end (the run's
	 * own end stays run_end_ns) */
	p->run_end_ns = p->live_ns;
	if (p->finished && p->ghost && p->start_ns + panes_ghost_span(p) > p->live_ns)
		p->live_ns = p->start_ns + panes_ghost_span(p);
	p->tl.growing = !p->finished;
	timeline_range(&p->tl, p->start_ns, p->live_ns, &p->t0_ns, &p->t1_ns);
	if (p->tl.cursor_on) /* not past the newest instant, into the room ahead */
		timeline_clamp_cursor(&p->tl, p->t0_ns, p->t1_ns < p->live_ns ? p->t1_ns : p->live_ns);
}

/* How long a column value holds across empty columns. */
static uint64_t panes_hold(const struct panes *p)
{
	return 3ull * p->interval_ms * 1000000ull;
}

/* The hold after the newest data: never past the newest instant, so a live
 * view with room ahead (a growing run) is not painted into the future, nor
 * past a finished run's end (the axis may go on to a longer ghost's). */
uint64_t panes_hold_tail(const struct panes *p)
{
	uint64_t h = panes_hold(p), last = p->nbk ? p->bk[p->nbk - 1].t1_ns : 0;
	uint64_t end = p->finished ? p->run_end_ns : p->live_ns;

	if (!p->nbk || (p->tl.paused && !p->finished))
		return h;
	if (end <= last)
		return 0;
	return end - last < h ? end - last : h;
}

void panes_query(struct panes *p)
{
	size_t want = (size_t)(p->lay.mem_graph.w > 0 ? p->lay.mem_graph.w : 1) * 8;
	uint64_t hold = panes_hold(p);

	if (want < PANES_MIN_BUCKETS)
		want = PANES_MIN_BUCKETS;
	if (want > p->bk_cap) {
		free(p->bk);
		p->bk = malloc(want * sizeof(*p->bk));
		p->bk_cap = p->bk ? want : 0;
	}
	p->nbk = 0;
	if (p->bk && p->have_data)
		p->nbk = store_query(p->st, p->t0_ns > hold ? p->t0_ns - hold : 0, p->t1_ns, p->bk,
				     p->bk_cap);
}

/* At the peak's instant (P), its PSS is the peak itself, which may fall
 * between samples (before the first one, even). */
static void panes_at_peak(const struct panes *p, uint64_t t, struct panes_at *at)
{
	const struct sample *pk = &p->sum.peak;
	if (!t || t != pk->t_ns || !pk->pss_kib)
		return;
	at->ok = at->exact = 1;
	at->s.t_ns = t;
	at->s.pss_kib = pk->pss_kib;
	at->s.pss_anon_kib = pk->pss_anon_kib;
	at->s.pss_file_kib = pk->pss_file_kib;
	at->s.pss_shmem_kib = pk->pss_shmem_kib;
	at->s.pss_est_kib = pk->pss_est_kib;
	at->s.pss_hi_kib = pk->pss_hi_kib;
	at->s.valid |= SAMPLE_PSS;
}

/* The values at instant t: those of the last bucket at or before it (so a
 * paused view never takes in later samples); exact when that bucket is one
 * sample. */
void panes_at(struct panes *p, uint64_t t, struct panes_at *at)
{
	struct bucket b[PANES_AT_MAX];
	uint64_t w = panes_hold(p);
	size_t n = store_query(p->st, t > w ? t - w : 0, t, b, PANES_AT_MAX), k = 0;

	memset(at, 0, sizeof(*at));
	at->minflt_s = at->majflt_s = at->user_cores = at->sys_cores = NAN;
	if (!n) {
		panes_at_peak(p, t, at);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (b[i].t0_ns / 2 + b[i].t1_ns / 2 <= t)
			k = i;
	at->ok = 1;
	at->exact = b[k].n == 1;
	at->s = b[k].n == 1 ? b[k].max : b[k].mean;
	at->s.valid = b[k].valid;
	size_t i0 = k ? k - 1 : k, i1 = k ? k : k + 1;
	/* over at least half an interval: a last sample a few ms after the one
	 * before (the run's end, with the reaped children's CPU added) would
	 * read as several cores */
	while (i0 > 0 && i1 < n && b[i1].t1_ns - b[i0].t1_ns < (uint64_t)p->interval_ms * 500000ull)
		i0--;
	if (i1 < n && b[i1].t1_ns > b[i0].t1_ns) {
		double dt = (double)(b[i1].t1_ns - b[i0].t1_ns) / 1e9;
		const struct sample *x = &b[i0].max, *y = &b[i1].max;
		if (b[i0].valid & b[i1].valid & SAMPLE_FAULTS) {
			at->minflt_s = (double)(y->minflt - x->minflt) / dt;
			at->majflt_s = (double)(y->majflt - x->majflt) / dt;
		}
		if (b[i0].valid & b[i1].valid & SAMPLE_CPU) {
			at->user_cores = (double)(y->utime_us - x->utime_us) / 1e6 / dt;
			at->sys_cores = (double)(y->stime_us - x->stime_us) / 1e6 / dt;
		}
	}
	panes_at_peak(p, t, at);
}

/* The instant the statistics describe: the cursor, the paused edge, or now. */
uint64_t panes_instant(const struct panes *p)
{
	if (p->tl.cursor_on)
		return p->tl.cursor_ns;
	if (p->tl.paused)
		return p->t1_ns < p->run_end_ns ? p->t1_ns : p->run_end_ns;
	return p->run_end_ns;
}

int panes_snap_fits(const struct panes *p)
{
	if (!p->snap_ok)
		return 0;
	if (!p->snap_at_ns)
		return !p->tl.cursor_on && !p->tl.paused;
	return panes_instant(p) == p->snap_at_ns;
}

/* Renders columns into a rectangle and blits the cells. */
void panes_blit(struct panes *p, const struct rect *r, const struct graph_spec *sp,
		       size_t ncols)
{
	size_t n = (size_t)r->w * (size_t)r->h;

	if (!n)
		return;
	if (n > p->cell_cap) {
		free(p->cells);
		p->cells = malloc(n * sizeof(*p->cells));
		p->cell_cap = p->cells ? n : 0;
		if (!p->cells)
			return;
	}
	if (graph_render(sp, p->gcol, ncols, p->cells) < 0)
		return;
	for (int y = 0; y < r->h; y++)
		for (int x = 0; x < r->w; x++) {
			const struct graph_cell *c = &p->cells[(size_t)y * (size_t)r->w + (size_t)x];
			term_cell(r->y + y, r->x + x, c->ch, (enum role)c->role);
		}
}

/* A graph_spec for a rectangle with the current style. */
struct graph_spec panes_spec(const struct panes *p, const struct rect *r, int nlayers,
				    double ymax)
{
	struct graph_spec s;

	memset(&s, 0, sizeof(s));
	s.w = r->w;
	s.h = r->h;
	s.style = p->style;
	s.nlayers = nlayers;
	s.ymax = ymax > 0 ? ymax : 1;
	s.cursor = -1;
	s.cursor_role = ROLE_CURSOR;
	s.mono = term_mono();
	if (p->tl.cursor_on && p->t1_ns > p->t0_ns && r->w > 0) {
		double f = (double)(p->tl.cursor_ns - p->t0_ns) / (double)(p->t1_ns - p->t0_ns);
		s.cursor = (int)(f * r->w);
		if (s.cursor >= r->w)
			s.cursor = r->w - 1;
	}
	return s;
}

/* Whether a sample's PSS is more guess than PANES_EST_SHARE allows. */
static int panes_est(const struct sample *s)
{
	return (double)s->pss_est_kib > PANES_EST_SHARE * (double)s->pss_kib;
}

/* A layer swatch: the glyph a full cell of that layer gets (estimated: est). */
static uint32_t panes_swatch(const struct panes *p, int layer, int est)
{
	struct graph_spec s;
	struct graph_col c[2];
	struct graph_cell cell;

	memset(&s, 0, sizeof(s));
	memset(c, 0, sizeof(c));
	s.w = s.h = 1;
	s.style = p->style;
	s.nlayers = layer + 1;
	s.ymax = 1;
	s.cursor = -1;
	s.mono = term_mono();
	s.est_role = ROLE_EST;
	for (int i = 0; i < 2; i++) {
		c[i].v[layer] = 1;
		c[i].line = -1;
		c[i].known = 1;
		c[i].est = est;
	}
	if (graph_render(&s, c, (size_t)graph_xres(p->style), &cell) < 0)
		return '#';
	return cell.ch;
}

/* Writes "size" text, returns columns used. */
static int panes_size(int y, int x, int w, uint64_t kib, enum role r)
{
	char b[32];

	report_size(b, sizeof(b), kib);
	return term_printf(y, x, w, r, "%s", b);
}

/* The header's swap mark: memory swapped out now (live), or at its most (a
 * finished run); "" when none. */
static void panes_swap_mark(const struct panes *p, char *buf, size_t cap)
{
	uint64_t sw = p->finished || p->recorded ? p->sum.max_swap_kib : p->sum.last.swap_kib;
	char sz[24];

	buf[0] = '\0';
	if (!sw || !p->sum.kinds_known)
		return;
	report_size(sz, sizeof(sz), sw);
	snprintf(buf, cap, " %s %s ", p->finished || p->recorded ? "swapped" : "SWAP", sz);
}

void panes_header(struct panes *p)
{
	const struct rect *r = &p->lay.header;
	char right[160], el[32], buf[64];
	uint64_t end = p->finished ? p->run_end_ns : p->now_ns;
	uint64_t elapsed = end > p->start_ns ? end - p->start_ns : 0;
	enum role state_role = ROLE_HEADER_HI;

	term_fill(r->y, r->x, r->w, ' ', ROLE_HEADER);
	graph_fmt_elapsed(el, sizeof(el), elapsed, elapsed < 60000000000ull ? 1 : 1000000000ull);
	if (p->quit == QUIT_STOPPING && !p->finished) {
		snprintf(buf, sizeof(buf), "stopping (%s sent)", p->kill_sent ? "SIGKILL" : "SIGTERM");
		state_role = ROLE_BAD;
	} else if (p->finished && p->sum.attached) {
		snprintf(buf, sizeof(buf), "%s", p->sum.detached ? "detached" : "ended (attached)");
		state_role = ROLE_OK;
	} else if (p->recorded && !p->sum.exited) {
		snprintf(buf, sizeof(buf), "recording ends here (incomplete)");
		state_role = ROLE_BAD;
	} else if (p->finished) {
		int code = exitcode_of(p->sum.wait_status);
		if (exitcode_signal(p->sum.wait_status))
			snprintf(buf, sizeof(buf), "finished, exit %d (signal %d)", code,
				 exitcode_signal(p->sum.wait_status));
		else
			snprintf(buf, sizeof(buf), "finished, exit %d", code);
		state_role = code ? ROLE_BAD : ROLE_OK;
	} else {
		snprintf(buf, sizeof(buf), p->sum.attached ? "attached" : "running");
	}
	const char *mode = p->sum.mode == STORE_MODE_NETLINK ? "netlink"
			   : p->sum.mode == STORE_MODE_POLL  ? "polling"
							    : "starting";
	char lost[48] = "";
	if (p->sum.lost_events)
		snprintf(lost, sizeof(lost), " %llu lost", (unsigned long long)p->sum.lost_events);
	snprintf(right, sizeof(right), "%s  %s  %s%s  %ums ", el, buf, mode, lost, p->interval_ms);
	/* the PAUSED mark comes first, then the live edge keeps moving beside it */
	char paused[48] = "";
	if (p->tl.paused) {
		char at[32];
		uint64_t v = p->t1_ns > p->start_ns ? p->t1_ns - p->start_ns : 0;
		graph_fmt_elapsed(at, sizeof(at), v, v < 60000000000ull ? 1 : 1000000000ull);
		snprintf(paused, sizeof(paused), " PAUSED at %s ", at);
	}
	char swapm[48];
	panes_swap_mark(p, swapm, sizeof(swapm));
	int rw = (int)strlen(right) + (int)strlen(paused) + (int)strlen(swapm) + 1;
	if (rw > r->w)
		rw = r->w;
	int x = r->x + r->w - rw;
	if (swapm[0])
		x += term_puts(r->y, x, r->x + r->w - x, swapm, ROLE_BAD) + 1;
	if (paused[0])
		x += term_puts(r->y, x, r->x + r->w - x, paused, ROLE_PAUSED) + 1;
	/* draw the right part piecewise for roles */
	x += term_printf(r->y, x, r->x + r->w - x, ROLE_HEADER, "%s  ", el);
	x += term_puts(r->y, x, r->x + r->w - x, buf, state_role);
	x += term_printf(r->y, x, r->x + r->w - x, ROLE_HEADER, "  %s", mode);
	if (lost[0])
		x += term_puts(r->y, x, r->x + r->w - x, lost, ROLE_PAUSED);
	term_printf(r->y, x, r->x + r->w - x, ROLE_HEADER, "  %ums ", p->interval_ms);
	/* the command, sanitized, in what is left */
	int cw = r->w - rw - 1;
	if (cw > 2 && p->argv) {
		wchar_t cmd[512];
		size_t k = 0;
		for (int i = 0; p->argv[i] && k + 2 < sizeof(cmd) / sizeof(cmd[0]); i++) {
			if (i)
				cmd[k++] = ' ';
			k += textsafe_wcs(p->argv[i], strlen(p->argv[i]), cmd + k,
					  sizeof(cmd) / sizeof(cmd[0]) - k, term_utf8());
		}
		cmd[k] = 0;
		int used = term_put(r->y, r->x + 1, cw - 1, cmd, ROLE_HEADER_HI);
		if (term_width(cmd) > cw - 1 && used > 0)
			term_cell(r->y, r->x + used, term_glyph()->ellipsis, ROLE_HEADER_HI);
	}
}

void panes_notice(struct panes *p)
{
	const struct rect *r = &p->lay.notice;

	if (!r->h)
		return;
	term_blank(r->y, r->x, 1, r->w);
	char note[400];
	snprintf(note, sizeof(note), "note: %s", p->notice ? p->notice : "");
	term_puts(r->y, r->x + 1, r->w - 1, note, ROLE_WARN); /* cut at a blank when long */
}

/* The ghost's entry in the memory pane's title: its line's glyph, its name
 * and its PSS at the instant (its peak without a cursor). Returns the next
 * column. */
static int panes_ghost_legend(struct panes *p, uint64_t inst, int y, int x, int end)
{
	uint64_t kib;
	if (!p->ghost || x >= end - 12)
		return x;
	x += term_puts(y, x, end - x, "  ", ROLE_NORMAL);
	term_cell(y, x++, term_utf8() ? 0x2504 : '=', ROLE_GHOST);
	x += term_printf(y, x, end - x, ROLE_GHOST, "%s ", p->ghost_label ? p->ghost_label : "ghost");
	if (!p->tl.cursor_on) {
		x += term_puts(y, x, end - x, "peak ", ROLE_NORMAL);
		x += panes_size(y, x, end - x, p->ghost_sum.peak.pss_kib, ROLE_NORMAL);
	} else if (panes_ghost_at(p, inst, &kib)) {
		x += panes_size(y, x, end - x, kib, ROLE_NORMAL);
	} else {
		x += term_puts(y, x, end - x, "-", ROLE_DIM);
	}
	return x;
}

/* The line over the stacked PSS (w cycles it), by its name in the title. */
static const char *const panes_line_names[PANES_LINES] = {"RSS", "swap", "huge pages", "locked"};

/* The line's value in s, and whether s knows it. */
static uint64_t panes_line_of(const struct panes *p, const struct sample *s, int *known)
{
	if (known)
		*known = (s->valid & (p->line_kind ? SAMPLE_KINDS : SAMPLE_RSS)) != 0;
	switch (p->line_kind) {
	case 1:
		return s->swap_kib;
	case 2:
		return s->thp_kib;
	case 3:
		return s->locked_kib;
	default:
		return s->rss_kib;
	}
}

/* The memory pane's title: legend and current values, or the cursor readout;
 * an estimated PSS reads "~" (the cursor adds its doubt), and a view showing
 * estimated columns gets their swatch in the legend. */
static void panes_mem_title(struct panes *p, double peak_kib, int est_in_view)
{
	const struct rect *r = &p->lay.mem_title;
	static const enum role lr[3] = {ROLE_ANON, ROLE_FILE, ROLE_SHMEM};
	static const char *ln[3] = {"anon", "file", "shmem"};
	struct panes_at at;
	enum role tr = p->focus == FOCUS_TIMELINE ? ROLE_FOCUS : ROLE_TITLE;
	int x = r->x + 1, end = r->x + r->w;
	uint64_t inst = panes_instant(p);

	term_fill(r->y, r->x, r->w, term_glyph()->hline, ROLE_TITLE);
	panes_at(p, inst, &at);
	if (p->tl.cursor_on) {
		char t[32];
		graph_fmt_elapsed(t, sizeof(t), inst > p->start_ns ? inst - p->start_ns : 0, 1);
		x += term_printf(r->y, x, end - x, ROLE_CURSOR, " at %s%s ", t, at.exact ? "" : " (mean)");
	} else {
		x += term_puts(r->y, x, end - x, " Memory ", tr);
	}
	if (!at.ok || !(at.s.valid & SAMPLE_PSS)) {
		term_puts(r->y, x, end - x, " PSS n/a ", ROLE_DIM);
		return;
	}
	int est = panes_est(&at.s);
	/* an estimate whose range is as large as half of it says nothing */
	int vague = est && p->tl.cursor_on && at.s.pss_est_kib * 2 >= at.s.pss_kib;
	if (vague)
		x += term_puts(r->y, x, end - x, " PSS not measured yet", ROLE_DIM);
	else
		x += term_puts(r->y, x, end - x, est ? " PSS ~" : " PSS ", ROLE_NORMAL);
	if (!vague)
		x += panes_size(r->y, x, end - x, at.s.pss_kib, ROLE_NORMAL);
	if (est && !vague && p->tl.cursor_on) {
		x += term_puts(r->y, x, end - x, term_utf8() ? " \u00b1" : " +-", ROLE_EST);
		x += panes_size(r->y, x, end - x, at.s.pss_est_kib, ROLE_EST);
	}
	const uint64_t v[3] = {at.s.pss_anon_kib, at.s.pss_file_kib, at.s.pss_shmem_kib};
	for (int i = 0; !vague && i < 3; i++) {
		char sz[24], lab[48];
		report_size(sz, sizeof(sz), v[i]);
		int n = snprintf(lab, sizeof(lab), "%s %s", ln[i], sz);
		if (x + 2 + n > end) /* the swatch, its name and size whole, or none */
			break;
		x += term_puts(r->y, x, end - x, " ", ROLE_NORMAL);
		term_cell(r->y, x++, panes_swatch(p, i, 0), lr[i]);
		x += term_puts(r->y, x, end - x, lab, ROLE_NORMAL);
	}
	if (est_in_view && x < end - 12) {
		x += term_puts(r->y, x, end - x, " ", ROLE_NORMAL);
		term_cell(r->y, x++, panes_swatch(p, 0, 1), ROLE_EST);
		x += term_puts(r->y, x, end - x, "estimated", ROLE_NORMAL);
	}
	char rss[48];
	int lknown;
	uint64_t lv = panes_line_of(p, &at.s, &lknown);
	report_size(rss, sizeof(rss), lv);
	int rn = (int)strlen(rss) + (int)strlen(panes_line_names[p->line_kind]) + 1;
	if (p->show_rss && lknown && x + 3 + rn <= end) {
		x += term_puts(r->y, x, end - x, "  ", ROLE_NORMAL);
		term_cell(r->y, x++, term_utf8() ? 0x2500 : '-', ROLE_RSS);
		x += term_printf(r->y, x, end - x, ROLE_NORMAL, "%s %s", panes_line_names[p->line_kind], rss);
		if (p->rss_off_scale && x < end - 12)
			x += term_puts(r->y, x, end - x, term_utf8() ? " \u2191off scale" : " ^off scale", ROLE_RSS);
	}
	x = panes_ghost_legend(p, inst, r->y, x, end);
	if (!p->tl.cursor_on && x < end - 24) {
		x += term_puts(r->y, x, end - x, "  peak in view ", ROLE_DIM);
		x += panes_size(r->y, x, end - x, (uint64_t)peak_kib, ROLE_DIM);
	}
	/* how fresh PSS is (live view only: a paused view stays frozen) */
	char age[40];
	int al = snprintf(age, sizeof(age), "  PSS read %.1fs ago", (double)p->sum.pss_mean_age_ns / 1e9);
	/* whole or not at all */
	if (!p->tl.cursor_on && !p->tl.paused && p->sum.pss_reads && x + al < end - 1)
		x += term_puts(r->y, x, end - x, age, ROLE_DIM);
	term_puts(r->y, x, end - x, " ", ROLE_NORMAL);
}

/* Resets graph column c (empty, no line) and returns the bucket resample
 * picked for it, or NULL when the column has no data. */
const struct bucket *panes_col(struct panes *p, size_t c, struct graph_col **gc)
{
	*gc = &p->gcol[c];
	memset(*gc, 0, sizeof(**gc));
	(*gc)->line = -1;
	return p->idx[c] < 0 ? NULL : &p->bk[p->idx[c]];
}

/* The run's peak marked over its column, in the graph's top row (above the
 * highest value but for the graph's own nice ceiling: P moves the cursor
 * there). A paused view keeps the peak it had when paused: a new peak
 * since is after the view's end, and the mark must not leave it. */
static void panes_peak_mark(struct panes *p, const struct rect *g)
{
	if (!p->tl.paused)
		p->peak_mark_ns = p->sum.peak.t_ns;
	uint64_t t = p->peak_mark_ns;

	if (!t || t < p->t0_ns || t > p->t1_ns || p->t1_ns <= p->t0_ns || g->w <= 0 || g->h < 3)
		return;
	int x = (int)((double)(t - p->t0_ns) / (double)(p->t1_ns - p->t0_ns) * g->w);
	if (x >= g->w)
		x = g->w - 1;
	term_cell(g->y, g->x + x, term_utf8() ? 0x25BC : 'v', ROLE_WARN);
}

/* A mark on the time axis under each column in which the tree took major
 * faults (pages read from disk: it waited for I/O there). */
static void panes_majflt_marks(struct panes *p, const struct rect *ta)
{
	size_t ncols = (size_t)ta->w;

	if (!ncols || panes_cols(p, ncols))
		return;
	resample_rate(p->bk, p->nbk, p->t0_ns, p->t1_ns, ncols, RS_MAJFLT, p->rate_a, p->known_a);
	for (size_t c = 0; c < ncols; c++)
		if (p->known_a[c] && p->rate_a[c] > 0)
			term_cell(ta->y, ta->x + (int)c, term_utf8() ? 0x25B4 : '^', ROLE_MAJOR);
}

/* The memory graph's axes: y (top, middle and zero) and time (elapsed since
 * the start; marks where pages were read from disk, under the labels). */
static void panes_mem_axes(struct panes *p, double ymax)
{
	const struct rect *ya = &p->lay.mem_yaxis, *ta = &p->lay.mem_taxis;
	char lab[16];

	for (int y = 0; y < ya->h; y++) {
		lab[0] = 0;
		if (y == 0)
			graph_fmt_kib(lab, sizeof(lab), ymax);
		else if (y == ya->h - 1)
			snprintf(lab, sizeof(lab), "0");
		else if (ya->h >= 4 && y == ya->h / 2) /* the value at the row's top edge */
			graph_fmt_kib(lab, sizeof(lab), ymax * (ya->h - y) / ya->h);
		term_printf(ya->y + y, ya->x, ya->w - 1, ROLE_DIM, "%*s", ya->w - 1, lab);
		term_cell(ya->y + y, ya->x + ya->w - 1,
			  lab[0] ? term_glyph()->tee : term_glyph()->vline, ROLE_DIM);
	}
	struct graph_tick ticks[32];
	int nt = graph_time_ticks(p->t0_ns, p->t1_ns, p->start_ns, ta->w, ticks, 32);
	term_fill(ta->y, ta->x - 1, 1, term_glyph()->corner, ROLE_DIM);
	panes_majflt_marks(p, ta);
	for (int i = 0; i < nt; i++)
		term_puts(ta->y, ta->x + ticks[i].x, ta->w - ticks[i].x, ticks[i].label, ROLE_DIM);
}

void panes_mem(struct panes *p)
{
	const struct rect *g = &p->lay.mem_graph, *ya = &p->lay.mem_yaxis, *ta = &p->lay.mem_taxis;
	int xres = graph_xres(p->style);
	size_t ncols = (size_t)g->w * (size_t)xres;
	double ymax = 0, peak = 0, line_max = 0;
	int est_in_view = 0;

	term_blank(ya->y, ya->x, ya->h, ya->w);
	term_blank(ta->y, 0, 1, ta->x + ta->w);
	if (!ncols || panes_cols(p, ncols)) {
		panes_mem_title(p, 0, 0);
		return;
	}
	resample_pick(p->bk, p->nbk, p->t0_ns, p->t1_ns, ncols, RS_PSS, panes_hold_tail(p), p->idx);
	for (size_t c = 0; c < ncols; c++) {
		struct graph_col *gc;
		const struct bucket *b = panes_col(p, c, &gc);
		if (!b)
			continue;
		double top = (double)b->max.pss_kib, mean = (double)b->mean.pss_kib;
		double scale = mean > 0 ? top / mean : 1;
		gc->known = 1;
		gc->v[0] = (double)b->mean.pss_anon_kib * scale;
		gc->v[1] = (double)b->mean.pss_file_kib * scale;
		gc->v[2] = (double)b->mean.pss_shmem_kib * scale;
		gc->est = panes_est(&b->mean);
		est_in_view |= gc->est;
		uint64_t lv = panes_line_of(p, &b->max, NULL);
		if (p->show_rss && (b->valid & (p->line_kind ? SAMPLE_KINDS : SAMPLE_RSS)))
			gc->line = (double)lv;
		if (top > peak)
			peak = top;
		if (top > ymax)
			ymax = top;
		if (gc->line > line_max)
			line_max = gc->line;
	}
	panes_ghost_cols(p, ncols, &ymax);
	/* the scale is PSS's (what the graph is about): an RSS line above it
	 * is drawn along the top, and the title says it goes off the scale */
	if (!(ymax > 0))
		ymax = line_max;
	ymax = graph_nice_kib(ymax);
	p->rss_off_scale = line_max > ymax;
	panes_mem_title(p, peak, est_in_view);
	struct graph_spec s = panes_spec(p, g, 3, ymax);
	s.layer_role[0] = ROLE_ANON;
	s.layer_role[1] = ROLE_FILE;
	s.layer_role[2] = ROLE_SHMEM;
	s.line_role = ROLE_RSS;
	s.est_role = ROLE_EST;
	s.ghost_role = p->ghost ? ROLE_GHOST : 0;
	panes_blit(p, g, &s, ncols);
	panes_ghost_mark(p, g);
	panes_peak_mark(p, g);
	if (!p->have_data)
		term_puts(g->y + g->h / 2, g->x + 2, g->w - 2, "waiting for the first sample", ROLE_DIM);
	panes_mem_axes(p, ymax);
}

void panes_output_title(struct panes *p, uint64_t lines, int eof, uint64_t unrecorded)
{
	const struct rect *r = &p->lay.out_title;
	enum role tr = p->focus == FOCUS_OUTPUT ? ROLE_FOCUS : ROLE_TITLE;

	if (!r->h)
		return;
	term_fill(r->y, r->x, r->w, term_glyph()->hline, ROLE_TITLE);
	int x = r->x + 1 + term_puts(r->y, r->x + 1, r->w - 1, " Output ", tr);
	if (p->out_back)
		x += term_printf(r->y, x, r->x + r->w - x, ROLE_PAUSED, " %zu lines back ", p->out_back);
	x += term_printf(r->y, x, r->x + r->w - x, ROLE_DIM, " %llu lines%s ", (unsigned long long)lines,
			 eof ? ", ended" : "");
	if (unrecorded) /* shown here, missing from the recording (its queue full, or it failed) */
		term_printf(r->y, x, r->x + r->w - x, ROLE_WARN, " %llu of them not in the recording ",
			    (unsigned long long)unrecorded);
	else if (p->out_where)
		term_printf(r->y, x, r->x + r->w - x, ROLE_DIM, " %s ", p->out_where);
}

/* A line of text in the status bar. Too long: up to its last clause that
 * fits ("the command finished; q quits and ..." is "the command
 * finished"), else its last list item that fits, else cut at a blank. */
static void panes_status_text(const struct rect *r, const char *text, enum role role)
{
	char m[320];

	snprintf(m, sizeof(m), "%s", text);
	if ((int)strlen(m) > r->w - 1) {
		char *cut = NULL;
		for (int sep = 0; sep < 2 && !cut; sep++) { /* a clause, else a list's item */
			const char *by = sep ? ", " : "; ";
			for (char *s = strstr(m, by); s && s - m <= r->w - 1; s = strstr(s + 1, by))
				cut = s;
		}
		if (cut)
			*cut = 0;
	}
	term_puts(r->y, r->x + 1, r->w - 1, m, role);
}

void panes_status(struct panes *p)
{
	const struct rect *r = &p->lay.status;
	const char *hk[32], *hw[32];
	static const char *focus_name[FOCUS_COUNT] = {"timeline", "processes", "output"};

	term_blank(r->y, r->x, 1, r->w);
	if (p->quit == QUIT_CONFIRM) {
		static const char *ask[] = {
			" The command is still running. Stop it and quit? y: SIGTERM now, SIGKILL after 5 s; any other key: no ",
			" The command is still running. Stop it and quit? y: SIGTERM, SIGKILL after 5 s; other keys: no ",
			" The command is still running. Stop it and quit? y: yes; any other key: no ",
			" Still running: stop it and quit? y/n ",
		};
		size_t k = 0;
		while (k + 1 < sizeof(ask) / sizeof(ask[0]) && (int)strlen(ask[k]) > r->w)
			k++;
		term_puts(r->y, r->x, r->w, ask[k], ROLE_PAUSED);
		return;
	}
	if (p->ask[0]) { /* whole, or its short form: never a question cut off */
		panes_status_text(r, (int)strlen(p->ask) <= r->w - 1 ? p->ask : p->ask_short, ROLE_PAUSED);
		return;
	}
	if (p->prompt) {
		int x = r->x + term_puts(r->y, r->x, r->w, p->prompt == '/' ? " search: " : " filter: ", ROLE_PAUSED);
		x += term_puts(r->y, x, r->x + r->w - x, p->prompt_buf, ROLE_NORMAL);
		term_puts(r->y, x, r->x + r->w - x, "_   Enter: done  Esc: cancel", ROLE_DIM);
		return;
	}
	if (p->typing) {
		term_puts(r->y, r->x, r->w,
			  p->waiting ? " TYPING to the command, which waits for input: Enter sends the line; Esc Esc or ^] comes back "
				     : " TYPING to the command: keys go to its terminal; Esc Esc or ^] comes back ",
			  ROLE_PAUSED);
		return;
	}
	if (p->msg[0] && p->now_ns < p->msg_until_ns) {
		panes_status_text(r, p->msg, ROLE_WARN);
		return;
	}
	if (p->memlow[0]) { /* running out of memory: said until it is not */
		panes_status_text(r, p->memlow, ROLE_BAD);
		return;
	}
	if (p->waiting) {
		term_puts(r->y, r->x, r->w, " The command waits for input: press i to type to it (Esc Esc comes back) ",
			  ROLE_WARN);
		return;
	}
	int nfw = (int)strlen(focus_name[p->focus]) + 3;
	size_t n = keys_hints(p->kind, hk, hw, 32);
	int x = r->x + 1, end = r->x + r->w - nfw;
	for (size_t i = 0; i < n; i++) {
		int need = (int)(strlen(hk[i]) + strlen(hw[i])) + 3;
		if (x + need > end)
			break;
		x += term_puts(r->y, x, end - x, hk[i], ROLE_KEY);
		x += term_printf(r->y, x, end - x, ROLE_NORMAL, " %s  ", hw[i]);
	}
	term_printf(r->y, r->x + r->w - nfw, nfw, ROLE_DIM, "[%s]", focus_name[p->focus]);
}

/* Help text after the key lines: paragraphs, wrapped to the screen. */
static const char *panes_help_extra[] = {
	"",
	"Memory: PSS of the whole tree stacked as anon, file and shmem; RSS as a line (r).",
	"Estimates: grey columns (without colour: hollow, their top edge only) and a ~ before PSS; "
	"over 2% of that PSS is a guess between smaps_rollup reads.",
	"Tasks: live processes (filled) and threads (line). Faults: minor fault rate, major faults "
	"(needed I/O) in their own row. CPU: cores in use, user and system.",
	"Processes: ~ marks a PSS estimated since the last smaps_rollup read.",
	"The cursor (c) sets the instant of every pane: header, boxes, processes, output; 0 brings them "
	"back to the present (a replay's: its end). The run's peak is marked over its column at the "
	"graph's top; P puts the cursor on it.",
	"replay --against RUN: that run's PSS (cyan) over this one's, from the same start.",
	"Pausing or zooming changes only the view: collection never stops.",
};

#define PANES_HELP_MAX 256 /* screen lines of help at most */
#define PANES_HELP_W 88    /* paragraphs no wider than this */

struct help_line {
	char s[256];
	enum role r;
};

/* Wraps text into lines of at most width columns at blanks (a word longer
 * than a line is cut): the first line starts at column indent, the others
 * at hang. Appends to out[*n..max). */
static void panes_help_wrap(const char *text, int indent, int hang, int width, enum role r,
			    struct help_line *out, size_t *n, size_t max)
{
	size_t len = strlen(text), i = 0;
	int first = 1;

	do {
		int at = first ? indent : hang, room = width - at;
		size_t take = len - i;
		if (room < 8)
			room = 8;
		if (take > (size_t)room) { /* end at the last blank that fits */
			size_t k = (size_t)room;
			while (k > 0 && text[i + k] != ' ')
				k--;
			take = k ? k : (size_t)room;
		}
		if (*n < max) {
			snprintf(out[*n].s, sizeof(out[*n].s), "%*s%.*s", at, "", (int)take, text + i);
			out[(*n)++].r = r;
		}
		i += take;
		while (i < len && text[i] == ' ')
			i++;
		first = 0;
	} while (i < len);
}

/* The help as screen lines for a screen cols wide: each key with its words
 * (wrapped under the words), the paragraphs, the notice and the output's
 * place. Returns the count. */
static size_t panes_help_lines(const struct panes *p, int cols, struct help_line *out, size_t max)
{
	char line[256], what[320];
	size_t n = 0, nkeys = keys_help_line(p->kind, 0, NULL, 0);
	int w = cols - 1 < PANES_HELP_W ? cols - 1 : PANES_HELP_W;

	for (size_t k = 0; k < nkeys; k++) {
		keys_help_line(p->kind, k, line, sizeof(line));
		/* the words start after the key names' column: continuation there */
		const char *d = strstr(line + 2, "  ");
		int hang = d ? (int)(d - line) : 2;
		while (d && *d == ' ')
			d++;
		hang = d ? (int)(d - line) : hang;
		if (hang > (cols - 1) / 2)
			hang = 4;
		/* (no wider than a line holds: a wide screen wraps it too) */
		int kw = cols - 1 < (int)sizeof(out[0].s) - 1 ? cols - 1 : (int)sizeof(out[0].s) - 1;
		panes_help_wrap(line, 0, hang, kw, ROLE_NORMAL, out, &n, max);
	}
	for (size_t k = 0; k < sizeof(panes_help_extra) / sizeof(panes_help_extra[0]); k++)
		panes_help_wrap(panes_help_extra[k], 2, 2, w, ROLE_NORMAL, out, &n, max);
	if (p->notice) {
		panes_help_wrap("", 0, 0, w, ROLE_NORMAL, out, &n, max);
		snprintf(what, sizeof(what), "note: %s", p->notice);
		panes_help_wrap(what, 2, 4, w, ROLE_WARN, out, &n, max);
	}
	if (p->out_where) {
		snprintf(what, sizeof(what), "The command's output is %s", p->out_where);
		panes_help_wrap(what, 2, 4, w, ROLE_NORMAL, out, &n, max);
	}
	return n;
}

void panes_help(struct panes *p)
{
	static struct help_line lines[PANES_HELP_MAX];
	int rows, cols;

	term_size(&rows, &cols);
	size_t total = panes_help_lines(p, cols, lines, PANES_HELP_MAX);
	term_blank(0, 0, rows, cols);
	term_fill(0, 0, cols, ' ', ROLE_HEADER);
	term_puts(0, 1, cols - 1, cols > 54 ? "spacetime help: Up/Down scroll, any other key closes" : "Up/Down scroll, any other key closes",
		  ROLE_HEADER_HI);
	size_t body = rows > 1 ? (size_t)rows - 1 : 0;
	if (p->help_top + body > total)
		p->help_top = total > body ? total - body : 0;
	for (size_t i = 0; i < body && p->help_top + i < total; i++)
		term_puts((int)i + 1, 0, cols, lines[p->help_top + i].s, lines[p->help_top + i].r);
}

/* Below the smallest layout: the message, its words wrapped to the
 * screen so that it shows whole on any size it can (30x8 and up). */
void panes_too_small(struct panes *p, int rows, int cols)
{
	char msg[160];
	int y = 0, len = snprintf(msg, sizeof(msg), "Terminal too small (%dx%d): spacetime needs %dx%d. q quits.", cols,
				  rows, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);

	(void)p;
	term_blank(0, 0, rows, cols);
	for (int i = 0; i < len && y < rows && cols > 0;) {
		int n = len - i <= cols ? len - i : cols;
		if (i + n < len) { /* end the line at a blank, if one fits */
			int k = n;
			while (k > 0 && msg[i + k] != ' ')
				k--;
			if (k > 0)
				n = k;
		}
		term_printf(y++, 0, cols, ROLE_WARN, "%.*s", n, msg + i);
		i += n;
		while (i < len && msg[i] == ' ')
			i++;
	}
}
