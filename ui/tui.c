/* tui.c: the dashboard's loop. poll() over the keyboard, the collector's
 * notify fd (only when a frame is due), the command's pty and a signalfd;
 * dirty flags; at most one doupdate() per pass; live redraws at the frame
 * rate (TUI_FPS_DEFAULT, --fps), keys at once. */
#include "tui.h"
#include "peak.h"

#include "clockns.h"
#include "run.h"
#include "export.h"
#include "keys.h"
#include "layout.h"
#include "mapview.h"
#include "outpane.h"
#include "panes.h"
#include "plist.h"
#include "report.h"
#include "ptywait.h"
#include "moment.h"
#include "statpanes.h"
#include "store.h"
#include "term.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define TUI_GRACE_NS (5 * 1000000000ull)   /* SIGTERM, then SIGKILL after this */
#define TUI_GIVEUP_NS (5 * 1000000000ull)  /* after SIGKILL, stop waiting */
#define TUI_ESC_NS (400 * 1000000ull)       /* typing: an Esc alone after this is the program's */
#define TUI_QUIET_NS (300 * 1000000ull)     /* output quiet this long: maybe a prompt */
#define TUI_WAIT_CHECK_NS (700 * 1000000ull) /* then looked for this often */
#define TUI_FOLLOW_NS (1000 * 1000000ull)     /* a replay followed live: read this often */
#define TUI_PLIST_MIN_NS 500000000ull      /* process list refresh, at most 2/s */
#define TUI_PLIST_COST_FACTOR 100          /* ... and using at most 1% of a core */
#define TUI_OUT_LINES 4000
#define TUI_MAP_SHARE 0.01 /* memory-map reads: at most 1% of a core */
#define TUI_PTY_READS 8

enum {
	D_HEADER = 1u << 0,
	D_NOTICE = 1u << 1,
	D_MEM = 1u << 2,
	D_STATS = 1u << 3,
	D_PLIST = 1u << 4,
	D_OUT = 1u << 5,
	D_STATUS = 1u << 6,
	D_LAYOUT = 1u << 7,
	D_ALL = 0x7f,
};

struct tui {
	struct tui_ctx *ctx;
	struct panes p;
	struct plist *pl;
	struct outpane *op;    /* the command's output as it comes (a live run's) */
	struct outpane *op_at; /* the output up to the instant shown (tui_at_instant) */
	int recorded;        /* a replay: no present, every pane at an instant */
	uint64_t follow_due_ns; /* a replay followed live: the next read */
	uint64_t rec_at_ns;  /* the instant the list and output show now (0: none) */
	int at_lines_cut;    /* output older than the store keeps was let go of */
	uint64_t unrecorded; /* output lines the recording lacks, as last shown */
	int rec_failed;      /* the recording's failure was said */
	int in_fd, out_fd, tty_fd, sig_fd, log_fd, pty_fd;
	int stop_sig; /* the signal that started stopping the command */
	int pty_eof, tty_gone, done, finished;
	unsigned dirty;
	int urgent;                /* input changed the screen: draw now */
	uint64_t next_frame_ns, plist_due_ns, term_sent_ns, kill_sent_ns;
	uint64_t frame_ns;         /* live redraw period: 1 s / fps */
	unsigned short pty_rows, pty_cols;
	/* typing to the command (i): a first Esc waits for a second one */
	int esc_pending;
	uint64_t esc_ns;
	int drag_x;                /* a button pressed over the graph: its column (-1: none) */
	struct mapread *mr;        /* the memory-map reader, started at the first m */
	struct mapview *mv;        /* the memory map shown over the screen (NULL: none) */
	pid_t ask_pid;             /* z: the process the question is about, */
	int ask_sig;               /* and the signal y sends it */
	uint64_t out_ns, wait_check_ns; /* last output; next look for a prompt */
	uint64_t wait_every_ns;         /* how often, doubled while none is found */
};

static uint64_t tui_nframes;

uint64_t tui_frames(void)
{
	return tui_nframes;
}

/* Attached to running processes: q detaches at once, nothing is ever signalled. */
static int tui_attached(const struct tui *t)
{
	return run_source(t->ctx->run) == RUN_ATTACHED;
}

/* Nothing here is ours to stop (attached, or a replay, even one followed
 * live): q leaves at once, without a question or a signal. */
static int tui_hands_off(const struct tui *t)
{
	return run_source(t->ctx->run) != RUN_SPAWNED;
}

/* A process of the command's terminal blocked reading it (ptywait): looked
 * for among the tree's live processes, which the store knows, not among all
 * of /proc (hundreds on a desktop, each a stat read). The store learns of a
 * fork at a tick: when ticks may come later than the quiet time that starts
 * a look (polling, or a long interval), /proc is looked through as before. */
static pid_t tui_prompt_reader(struct tui *t)
{
	if (t->p.sum.mode == STORE_MODE_POLL || (uint64_t)t->p.interval_ms * 1000000ull >= TUI_QUIET_NS)
		return ptywait_reader(t->pty_fd, NULL, 0);
	pid_t few[256], *pids = few;
	size_t n = store_live_pids(t->p.st, few, 256);
	if (n > 256) {
		/* room for some more forked since; the 256 had when out of memory */
		size_t cap = n + 64;
		pids = malloc(cap * sizeof(*pids));
		n = pids ? store_live_pids(t->p.st, pids, cap) : 256;
		if (!pids)
			pids = few;
		else if (n > cap)
			n = cap;
	}
	pid_t r = ptywait_reader(t->pty_fd, pids, n);
	if (pids != few)
		free(pids);
	return r;
}

/* Monotonic CPU time of this thread, ns. */
static uint64_t tui_cpu_ns(void)
{
	return clockns_of(CLOCK_THREAD_CPUTIME_ID);
}

/* Recomputes the layout and tells the command's pty the output pane's width. */
static void tui_layout(struct tui *t)
{
	int rows, cols;
	struct layout_opts o;

	term_size(&rows, &cols);
	o.rows = rows;
	o.cols = cols;
	o.show_output = t->p.show_output;
	o.notice = t->ctx->notice != NULL;
	layout_compute(&o, &t->p.lay);
	erase();
	term_invalidate();
	t->dirty = D_ALL;
	if (t->pty_fd >= 0 && cols > 0 && rows > 0 &&
	    (t->pty_rows != (unsigned short)rows || t->pty_cols != (unsigned short)cols)) {
		struct winsize ws = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
		ioctl(t->pty_fd, TIOCSWINSZ, &ws);
		t->pty_rows = ws.ws_row;
		t->pty_cols = ws.ws_col;
	}
}

/* Whether every pane shows one instant of the run rather than its present:
 * the cursor is on, or it is a replay (no present: its end, without one). */
static int tui_at_instant(const struct tui *t)
{
	return t->recorded || t->p.tl.cursor_on;
}

/* The instant the process list and output show (tui_at_instant): the
 * cursor's, or a replay's newest one (its end; followed live, its last). */
static uint64_t tui_rec_at(const struct tui *t, const struct store_summary *s)
{
	const struct timeline *tl = &t->p.tl;

	if (tl->cursor_on)
		return tl->cursor_ns;
	if (run_following(t->ctx->run))
		return s->last.t_ns;
	return s->end_ns > s->last.t_ns ? s->end_ns : s->last.t_ns;
}

/* The output pane's lines: those up to the instant shown, or as they come. */
static struct outpane *tui_op(const struct tui *t)
{
	return tui_at_instant(t) && t->op_at ? t->op_at : t->op;
}

/* The run at an instant (the cursor's, or a replay's): the processes alive
 * then with their figures then, and the output printed up to then. */
static void tui_refresh_at(struct tui *t)
{
	struct panes *p = &t->p;
	struct store_summary s;
	store_summary_get(p->st, &s);
	uint64_t at = tui_rec_at(t, &s);
	struct moment m;

	t->rec_at_ns = at;
	/* in the graph's last column: all of the output, the lines the command
	 * printed as it ended included */
	uint64_t end = s.end_ns > s.last.t_ns ? s.end_ns : s.last.t_ns;
	uint64_t col = p->lay.mem_graph.w > 0 && p->t1_ns > p->t0_ns ? (p->t1_ns - p->t0_ns) / (uint64_t)p->lay.mem_graph.w : 0;
	int r = run_moment(t->ctx->run, at, at + col >= end ? UINT64_MAX : at, TUI_OUT_LINES, &m);
	if (r < 0) {
		panes_message(p, "cannot take the run at that instant: %s", strerror(-r));
		return;
	}
	if (plist_refresh_at(t->pl, p->st, m.procs, m.nprocs, at, s.start_ns) < 0)
		panes_message(p, "cannot show the processes at that instant: %s", strerror(ENOMEM));
	p->snap_ok = 1;
	p->snap_live = (uint32_t)m.nprocs;
	p->snap_made = m.made;
	p->snap_at_ns = at;
	t->at_lines_cut = m.lines_cut;
	if (m.figures_cut)
		panes_message(p, "the processes' figures this far back are not kept (the oldest samples were let go of)");
	struct outpane *op = outpane_new(TUI_OUT_LINES, term_utf8());
	if (op) {
		for (size_t i = 0; i < m.nlines; i++) {
			outpane_feed(op, m.lines[i].bytes, m.lines[i].len);
			outpane_feed(op, "\n", 1);
		}
		outpane_free(t->op_at);
		t->op_at = op;
	}
	moment_free(&m);
	t->dirty |= D_PLIST | D_OUT;
}

/* Copies the process records, no more often than they are cheap to copy. */
static void tui_refresh_plist(struct tui *t, uint64_t now)
{
	uint64_t c0 = tui_cpu_ns();

	if (tui_at_instant(t)) {
		tui_refresh_at(t);
		/* a replay changes with the cursor only; a live run's instant
		 * can still learn of its processes (an exit told late), no more
		 * often than the present's list is refreshed for what it costs */
		uint64_t wait = (tui_cpu_ns() - c0) * TUI_PLIST_COST_FACTOR;
		t->plist_due_ns = t->recorded ? UINT64_MAX : now + (wait > TUI_PLIST_MIN_NS ? wait : TUI_PLIST_MIN_NS);
		return;
	}
	if (t->rec_at_ns) { /* back to the present: the output as it comes */
		t->rec_at_ns = 0;
		t->dirty |= D_OUT;
	}
	if (plist_refresh(t->pl, run_store(t->ctx->run), now) < 0)
		panes_message(&t->p, "out of memory for the process list");
	t->p.snap_ok = 1;
	t->p.snap_at_ns = 0;
	t->p.snap_live = (uint32_t)plist_live(t->pl);
	t->p.snap_made = (uint32_t)(plist_live(t->pl) + plist_finished(t->pl));
	uint64_t cost = tui_cpu_ns() - c0, wait = cost * TUI_PLIST_COST_FACTOR;
	t->plist_due_ns = now + (wait > TUI_PLIST_MIN_NS ? wait : TUI_PLIST_MIN_NS);
	t->dirty |= D_PLIST;
}

/* Starts stopping the command: sig now, SIGKILL after the grace period. */
static void tui_stop_command(struct tui *t, int sig, uint64_t now)
{
	if (t->finished || tui_hands_off(t)) {
		t->done = 1; /* attached or a replay: nothing to stop */
		return;
	}
	run_signal(t->ctx->run, sig);
	t->p.quit = QUIT_STOPPING;
	t->stop_sig = sig;
	t->term_sent_ns = now;
	t->dirty |= D_HEADER | D_STATUS;
	panes_message(&t->p, "%s sent to the command; SIGKILL follows in %llu s if it does not end",
		      strsignal(sig), (unsigned long long)(TUI_GRACE_NS / 1000000000ull));
}

/* Sends SIGKILL now (grace over, or asked twice). */
static void tui_kill_command(struct tui *t, uint64_t now)
{
	if (t->p.kill_sent || run_source(t->ctx->run) != RUN_SPAWNED)
		return;
	run_signal(t->ctx->run, SIGKILL);
	t->p.kill_sent = 1;
	t->kill_sent_ns = now;
	t->dirty |= D_HEADER;
	panes_message(&t->p, "SIGKILL sent to the command");
}

static void tui_scroll(struct tui *t, long delta);

static int in_rect(const struct rect *r, int y, int x)
{
	return r->h > 0 && r->w > 0 && y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w;
}

/* The instant under screen column x of the memory graph. */
static uint64_t graph_instant(const struct panes *p, int x)
{
	const struct rect *g = &p->lay.mem_graph;
	/* a release off the graph (on the axis): its nearest column */
	int c = x < g->x ? 0 : x >= g->x + g->w ? g->w - 1 : x - g->x;
	double f = ((double)c + 0.5) / (double)(g->w > 0 ? g->w : 1);
	return p->t0_ns + (uint64_t)(f * (double)(p->t1_ns - p->t0_ns));
}

/* A press: on the graph the cursor goes there (and a drag may begin); on a
 * process row it is selected, the list focused; on the output, it focused. */
static void mouse_press(struct tui *t, int y, int x)
{
	struct panes *p = &t->p;

	if (in_rect(&p->lay.mem_graph, y, x)) {
		p->tl.cursor_on = 1;
		p->tl.cursor_ns = graph_instant(p, x);
		p->focus = FOCUS_TIMELINE;
		t->drag_x = x;
		t->plist_due_ns = 0;
		t->dirty |= D_HEADER | D_MEM | D_STATS | D_OUT | D_PLIST;
	} else if (in_rect(&p->lay.plist, y, x)) {
		plist_select_at(t->pl, &p->lay, y);
		p->focus = FOCUS_PROCS;
		t->dirty |= D_PLIST | D_MEM;
	} else if (in_rect(&p->lay.out, y, x)) {
		p->focus = FOCUS_OUTPUT;
		t->dirty |= D_OUT | D_PLIST | D_MEM;
	}
}

/* Mouse events (ncurses'): a press and a release (a drag over the graph
 * zooms to it), the wheel (scrolls the list or output under the pointer,
 * zooms the graph). */
static void tui_mouse(struct tui *t)
{
	struct panes *p = &t->p;
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return;
	t->dirty |= D_STATUS;
	int wheel = ev.bstate & BUTTON4_PRESSED ? -1 : ev.bstate & BUTTON5_PRESSED ? 1 : 0;
	if (ev.bstate & BUTTON1_PRESSED) {
		mouse_press(t, ev.y, ev.x);
	} else if (ev.bstate & BUTTON1_RELEASED) {
		if (t->drag_x >= 0 && abs(ev.x - t->drag_x) >= 2 && in_rect(&p->lay.mem, ev.y, ev.x)) {
			timeline_window(&p->tl, graph_instant(p, t->drag_x), graph_instant(p, ev.x), p->start_ns, p->live_ns);
			p->tl.cursor_on = 0;
			t->plist_due_ns = 0; /* the list and output back at the present */
			t->dirty |= D_ALL;
		}
		t->drag_x = -1;
	} else if (wheel && in_rect(&p->lay.mem, ev.y, ev.x)) {
		timeline_zoom(&p->tl, -wheel, p->start_ns, p->live_ns);
		t->dirty |= D_ALL;
	} else if (wheel && (in_rect(&p->lay.plist, ev.y, ev.x) || in_rect(&p->lay.out, ev.y, ev.x))) {
		enum panes_focus was = p->focus;
		p->focus = in_rect(&p->lay.out, ev.y, ev.x) ? FOCUS_OUTPUT : FOCUS_PROCS;
		tui_scroll(t, 3 * wheel);
		p->focus = was;
	}
}

/* Scrolls the focused list or the output. */
static void tui_scroll(struct tui *t, long delta)
{
	struct panes *p = &t->p;

	if (p->focus == FOCUS_OUTPUT) {
		long back = (long)p->out_back - delta, max = (long)outpane_count(tui_op(t)) - 1;
		p->out_back = (size_t)(back < 0 ? 0 : back > max ? (max > 0 ? max : 0) : back);
		t->dirty |= D_OUT;
	} else {
		plist_move(t->pl, delta);
		t->dirty |= D_PLIST;
	}
}

/* Acts on one key. */
/* Writes bytes to the command's terminal, as typed there. */
static void tui_type_bytes(struct tui *t, const char *b, size_t n)
{
	while (n && t->pty_fd >= 0 && !t->pty_eof) {
		ssize_t w = write(t->pty_fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* its input is full: a person typing can't overrun it */
		b += w;
		n -= (size_t)w;
	}
}

/* Code point c as UTF-8 into b (4 bytes at most): its length (0 past
 * U+10FFFF). */
static size_t utf8_of(unsigned c, char *b)
{
	size_t n = 0;

	if (c < 0x80) {
		b[n++] = (char)c;
	} else if (c < 0x800) {
		b[n++] = (char)(0xc0 | (c >> 6));
		b[n++] = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		b[n++] = (char)(0xe0 | (c >> 12));
		b[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[n++] = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x110000) {
		b[n++] = (char)(0xf0 | (c >> 18));
		b[n++] = (char)(0x80 | ((c >> 12) & 0x3f));
		b[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[n++] = (char)(0x80 | (c & 0x3f));
	}
	return n;
}

/* One key typed to the command: the bytes a terminal sends for it. */
static void tui_type_key(struct tui *t, int key)
{
	static const struct {
		int key;
		const char *seq;
	} fn[] = {
		{KEY_UP, "\033[A"},     {KEY_DOWN, "\033[B"},  {KEY_RIGHT, "\033[C"}, {KEY_LEFT, "\033[D"},
		{KEY_HOME, "\033[H"},   {KEY_END, "\033[F"},   {KEY_DC, "\033[3~"},   {KEY_PPAGE, "\033[5~"},
		{KEY_NPAGE, "\033[6~"}, {KEY_BACKSPACE, "\177"}, {KEY_ENTER, "\r"},   {KEY_BTAB, "\033[Z"},
	};
	char b[8];
	size_t n = 0;

	if (key & TERM_FN) {
		for (size_t i = 0; i < sizeof(fn) / sizeof(fn[0]); i++)
			if (fn[i].key == (key & ~TERM_FN))
				tui_type_bytes(t, fn[i].seq, strlen(fn[i].seq));
		return;
	}
	unsigned c = (unsigned)key;
	if (c == '\n')
		c = '\r'; /* Enter, as a terminal sends it (the pty turns it to \n) */
	n = utf8_of(c, b);
	tui_type_bytes(t, b, n);
}

/* Leaves typing mode. */
static void tui_type_end(struct tui *t)
{
	t->p.typing = 0;
	t->esc_pending = 0;
	t->dirty |= D_STATUS;
}

/* A key while typing to the command: Esc Esc or ^] come back; ^C is
 * SIGINT to its process group as ever; the rest goes to its terminal, which
 * echoes it (or not: a password prompt turns echo off). Returns 1 when the
 * key was taken. */
static int tui_typing_key(struct tui *t, int key, uint64_t now)
{
	if (key == 0x1d) { /* ^] */
		tui_type_end(t);
		return 1;
	}
	if (key == 0x1b) {
		if (t->esc_pending) {
			tui_type_end(t);
			return 1;
		}
		t->esc_pending = 1;
		t->esc_ns = now;
		return 1;
	}
	if (keys_lookup(key) == ACT_INTERRUPT)
		return 0;
	if (t->esc_pending) { /* a lone Esc then a key: Alt-key, or Esc for the program */
		t->esc_pending = 0;
		tui_type_bytes(t, "\033", 1);
	}
	tui_type_key(t, key);
	return 1;
}

/* One handler per action of the key table (keys.h): t's state changes and
 * what is to be drawn again. */
typedef void (*tui_act_fn)(struct tui *t, enum key_action a, uint64_t now);

static void act_quit(struct tui *t, enum key_action a, uint64_t now)
{
	(void)a;
	/* attached: the processes are not ours to stop, q detaches; a replay
	 * (followed live or not): q quits */
	/* the header says the command has ended (its exit read) a moment
	 * before the run is finished: there is nothing to stop then either */
	if (t->finished || t->p.finished || tui_hands_off(t))
		t->done = 1;
	else if (t->p.quit == QUIT_STOPPING)
		tui_kill_command(t, now);
	else
		t->p.quit = QUIT_CONFIRM;
}

static void act_help(struct tui *t, enum key_action a, uint64_t now)
{
	(void)a, (void)now;
	t->p.help = 1;
	t->p.help_top = 0;
	erase();
}

static void act_pause(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	(void)a, (void)now;
	timeline_pause(&p->tl, p->start_ns, p->live_ns);
	t->dirty |= D_HEADER | D_MEM | D_STATS;
	if (!p->tl.paused)
		t->plist_due_ns = 0;
}

static void act_zoom(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	(void)now;
	timeline_zoom(&p->tl, a == ACT_ZOOM_IN ? 1 : -1, p->start_ns, p->live_ns);
	t->dirty |= D_HEADER | D_MEM | D_STATS;
}

static void act_pan(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	(void)now;
	if (!p->tl.span_ns)
		panes_message(p, "the whole run is in view: zoom in (+) to pan");
	timeline_pan(&p->tl, a == ACT_PAN_LEFT ? -1 : 1, p->start_ns, p->live_ns);
	t->dirty |= D_HEADER | D_MEM | D_STATS;
}

/* 0: the whole run in view, the cursor off: every pane at the present (a
 * replay's: its end). */
static void act_live(struct tui *t, enum key_action a, uint64_t now)
{
	(void)a, (void)now;
	timeline_live(&t->p.tl);
	t->p.tl.cursor_on = 0;
	t->p.out_back = 0;
	t->plist_due_ns = 0;
	t->dirty |= D_HEADER | D_MEM | D_STATS | D_OUT;
}

static void act_cursor(struct tui *t, enum key_action a, uint64_t now)
{
	(void)a, (void)now;
	timeline_cursor_toggle(&t->p.tl, t->p.t0_ns, t->p.t1_ns);
	t->plist_due_ns = 0; /* the list and output at the instant, or the present, now */
	t->dirty |= D_HEADER | D_MEM | D_STATS | D_OUT;
}

static void act_peak(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	struct peak pk;
	char brief[128], msg[256];
	(void)a, (void)now;
	if (!p->sum.peak.t_ns) {
		panes_message(p, "no peak yet");
		return;
	}
	/* the whole run in view, the cursor on its peak */
	timeline_live(&p->tl);
	if (!t->finished)
		p->tl.paused = 1;
	p->tl.cursor_on = 1;
	p->tl.cursor_ns = p->sum.peak.t_ns;
	t->dirty |= D_HEADER | D_MEM | D_STATS;
	peak_of(&p->sum, &pk);
	peak_brief(&pk, brief, sizeof(brief));
	snprintf(msg, sizeof(msg), "cursor on the peak: %s", brief);
	panes_message(p, "%s", msg);
}

static void act_cursor_move(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	int step = a == ACT_CURSOR_LEFT ? -1 : a == ACT_CURSOR_RIGHT ? 1 : a == ACT_CURSOR_LEFT_FAR ? -10 : 10;
	(void)now;
	if (!p->tl.cursor_on)
		timeline_cursor_toggle(&p->tl, p->t0_ns, p->t1_ns);
	timeline_cursor_move(&p->tl, step, p->lay.mem_graph.w, p->t0_ns, p->t1_ns);
	t->dirty |= D_MEM | D_STATS;
}

static void act_focus(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	int d = a == ACT_FOCUS_NEXT ? 1 : FOCUS_COUNT - 1;
	(void)now;
	p->focus = (enum panes_focus)((p->focus + d) % FOCUS_COUNT);
	if (p->focus == FOCUS_OUTPUT && !p->show_output)
		p->focus = (enum panes_focus)((p->focus + d) % FOCUS_COUNT);
	t->dirty |= D_MEM | D_PLIST | D_OUT;
}

static void act_plist(struct tui *t, enum key_action a, uint64_t now)
{
	if (a == ACT_SORT)
		plist_cycle_sort(t->pl);
	else if (a == ACT_SORT_REVERSE)
		plist_reverse(t->pl);
	else if (a == ACT_CMDLINE)
		plist_toggle_cmdline(t->pl);
	if (a == ACT_FINISHED) {
		plist_toggle_finished(t->pl);
		tui_refresh_plist(t, now);
	}
	t->dirty |= D_PLIST;
}

/* / and \\: a line typed on the status line (tui_prompt_key); n: the next
 * match of the last search; x: a subtree folded. The list gets the focus. */
static void act_find(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	(void)now;
	p->focus = FOCUS_PROCS;
	t->dirty |= D_PLIST | D_STATUS;
	if (a == ACT_SEARCH || a == ACT_FILTER) {
		p->prompt = a == ACT_SEARCH ? '/' : '\\';
		p->prompt_len = 0;
		p->prompt_buf[0] = 0;
		if (a == ACT_FILTER) { /* the filter in force, to edit */
			p->prompt_len = (size_t)snprintf(p->prompt_buf, sizeof(p->prompt_buf), "%s", plist_filter(t->pl));
			if (p->prompt_len >= sizeof(p->prompt_buf))
				p->prompt_len = sizeof(p->prompt_buf) - 1;
		}
	} else if (a == ACT_SEARCH_NEXT) {
		if (!p->search[0])
			panes_message(p, "no search yet: / searches the processes");
		else if (!plist_search(t->pl, p->st, p->search, 1))
			panes_message(p, "no process holds '%s'", p->search);
	} else if (!plist_toggle_fold(t->pl)) {
		panes_message(p, "%s", plist_filter(t->pl)[0] ? "no folding while a filter is on" :
				       "nothing to fold: the selected process has no children shown");
	}
}

/* A key while a search or filter is typed: printable text, Backspace,
 * Enter (done: the search finds, the filter applies), Esc (cancelled). */
static void tui_prompt_key(struct tui *t, int key)
{
	struct panes *p = &t->p;

	t->dirty |= D_STATUS | D_PLIST;
	if (key == 27 || key == 3) { /* Esc or ^C: cancelled */
		p->prompt = 0;
		return;
	}
	if (key == '\n' || key == '\r' || key == (TERM_FN | KEY_ENTER)) {
		if (p->prompt == '\\') {
			plist_set_filter(t->pl, p->st, p->prompt_buf);
		} else if (p->prompt_len) {
			snprintf(p->search, sizeof(p->search), "%s", p->prompt_buf);
			if (!plist_search(t->pl, p->st, p->search, 0))
				panes_message(p, "no process holds '%s'", p->search);
		}
		p->prompt = 0;
		return;
	}
	if ((key == 127 || key == 8 || key == (TERM_FN | KEY_BACKSPACE)) && p->prompt_len) {
		/* a character: its continuation bytes with it */
		while (p->prompt_len && ((unsigned char)p->prompt_buf[--p->prompt_len] & 0xc0) == 0x80)
			;
		p->prompt_buf[p->prompt_len] = 0;
		return;
	}
	/* the text is the user's: printable characters (no C0, DEL or C1), as
	 * UTF-8 */
	if ((key & TERM_FN) || key < 0x20 || (key >= 0x7f && key < 0xa0) || key >= 0x110000)
		return;
	char b[4];
	size_t n = utf8_of((unsigned)key, b);
	if (p->prompt_len + n < sizeof(p->prompt_buf)) {
		memcpy(p->prompt_buf + p->prompt_len, b, n);
		p->prompt_len += n;
		p->prompt_buf[p->prompt_len] = 0;
	}
}

static void act_output(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	(void)a, (void)now;
	p->show_output = !p->show_output;
	if (!p->show_output && p->focus == FOCUS_OUTPUT)
		p->focus = FOCUS_TIMELINE;
	t->dirty |= D_LAYOUT;
}

static void act_rss(struct tui *t, enum key_action a, uint64_t now)
{
	(void)a, (void)now;
	t->p.show_rss = !t->p.show_rss;
	t->dirty |= D_MEM;
}

static void act_glyphs(struct tui *t, enum key_action a, uint64_t now)
{
	(void)a, (void)now;
	if (!term_utf8())
		panes_message(&t->p, "Braille and block graphs need a UTF-8 locale");
	else
		t->p.style = (enum graph_style)((t->p.style + 1) % 3);
	t->dirty |= D_MEM | D_STATS;
}

static void act_scroll(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	long page = p->focus == FOCUS_OUTPUT ? p->lay.out_body.h : p->lay.plist_body.h;
	(void)now;
	if (a == ACT_UP || a == ACT_DOWN)
		tui_scroll(t, a == ACT_UP ? -1 : 1);
	else if (a == ACT_PAGE_UP || a == ACT_PAGE_DOWN)
		tui_scroll(t, a == ACT_PAGE_UP ? -page : page);
	else
		tui_scroll(t, -(long)(outpane_count(tui_op(t)) + plist_live(t->pl) + plist_finished(t->pl)));
}

static void act_interrupt(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	(void)a, (void)now;
	if (t->finished) {
		t->done = 1;
	} else if (run_source(t->ctx->run) == RUN_SPAWNED) {
		run_signal(t->ctx->run, SIGINT);
		panes_message(p, "SIGINT sent to the command's process group");
	} else if (tui_attached(t)) {
		panes_message(p, "attached: nothing is sent to the processes; q detaches");
	} else {
		panes_message(p, "a replay: nothing runs here to interrupt; q quits");
	}
}

/* A snapshot of the whole run, or just the visible window when zoomed in. */
static void act_export(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	struct export_opts eo = {.dir = t->ctx->export_dir, .formats = t->ctx->export_formats,
				 .start_wall_ns = t->ctx->start_wall_ns,
				 .against = t->ctx->against ? run_store(t->ctx->against) : NULL,
				 .against_label = t->ctx->against_label};
	char msg[1024];
	(void)a, (void)now;
	if (p->tl.span_ns) {
		eo.t0_ns = p->t0_ns;
		eo.t1_ns = p->t1_ns;
	}
	if (export_snapshot(run_store(t->ctx->run), t->ctx->argv, &eo, msg, sizeof(msg)) < 0)
		panes_message(p, "export failed: %.180s", msg);
	else
		panes_message(p, "wrote %.190s", msg);
}

static void act_type(struct tui *t, enum key_action a, uint64_t now)
{
	struct panes *p = &t->p;
	(void)a, (void)now;
	if (t->finished || t->pty_fd < 0 || t->pty_eof) {
		panes_message(p, "the command has no terminal to type to%s", t->finished ? ": it has ended" : "");
		return;
	}
	/* its output in view, at its end, where the prompt is: every pane at
	 * the present (the cursor off) */
	p->typing = 1;
	p->out_back = 0;
	if (p->tl.cursor_on) {
		p->tl.cursor_on = 0;
		t->plist_due_ns = 0;
		t->dirty |= D_HEADER | D_STATS;
	}
	if (!p->show_output) {
		p->show_output = 1;
		t->dirty |= D_LAYOUT;
	}
	p->focus = FOCUS_OUTPUT;
	t->dirty |= D_OUT | D_PLIST | D_MEM;
}

static void act_redraw(struct tui *t, enum key_action a, uint64_t now)
{
	(void)a, (void)now;
	term_invalidate();
	t->dirty |= D_ALL;
}

/* The selected process as it is now: the list at the cursor's instant holds
 * it as it was then (alive, its flags then), and what m reads and z signals
 * must be the process's present. Returns 1 when a row is selected. */
static int tui_selected_now(struct tui *t, struct proc_rec *rec, char *job, size_t cap)
{
	if (!plist_selected(t->pl, t->p.st, rec, job, cap))
		return 0;
	if (!tui_at_instant(t) || t->recorded)
		return 1;
	size_t n = store_procs(t->p.st, STORE_PROCS_ALL, NULL, 0);
	struct proc_rec *all = n ? calloc(n, sizeof(*all)) : NULL;
	n = all ? store_procs(t->p.st, STORE_PROCS_ALL, all, n) : 0;
	for (size_t i = 0; i < n; i++)
		if (all[i].id == rec->id) {
			*rec = all[i];
			break;
		}
	free(all);
	return 1;
}

/* z: asks whether to pause (SIGSTOP) the selected process, or resume
 * (SIGCONT) it when it is stopped; y sends it (tui_ask_key). Only a command
 * spacetime started: attached processes are never signalled. */
static void act_pause_job(struct tui *t, enum key_action a, uint64_t now)
{
	struct proc_rec rec;
	char job[96];
	(void)a, (void)now;

	if (run_source(t->ctx->run) != RUN_SPAWNED) {
		panes_message(&t->p, "%s", t->recorded ? "a replay: nothing runs to pause"
							: "attached: spacetime never signals processes it did not start");
		return;
	}
	if (!tui_selected_now(t, &rec, job, sizeof(job)) || rec.end_ns) {
		panes_message(&t->p, "no live process selected: Up/Down select one, z pauses it");
		return;
	}
	t->ask_pid = rec.pid;
	t->ask_sig = rec.valid & PROC_V_STOPPED ? SIGCONT : SIGSTOP;
	snprintf(t->p.ask, sizeof(t->p.ask), " %s %s (pid %d) with %s? y: yes; any other key: no ",
		 t->ask_sig == SIGSTOP ? "Pause" : "Resume", job[0] ? job : rec.comm, (int)rec.pid,
		 t->ask_sig == SIGSTOP ? "SIGSTOP" : "SIGCONT");
	snprintf(t->p.ask_short, sizeof(t->p.ask_short), "%s pid %d? y/n", t->ask_sig == SIGSTOP ? "Pause" : "Resume",
		 (int)rec.pid);
	t->dirty |= D_STATUS;
}

/* The answer to z's question: y sends the signal, any other key does not. */
static void tui_ask_key(struct tui *t, int key)
{
	struct panes *p = &t->p;

	p->ask[0] = '\0';
	t->dirty |= D_STATUS | D_PLIST;
	if (key != 'y' && key != 'Y')
		return;
	int r = run_signal_proc(t->ctx->run, t->ask_pid, t->ask_sig);
	if (r < 0)
		panes_message(p, "could not signal pid %d: %s", (int)t->ask_pid,
			      r == -ESRCH ? "it is no longer a live process of the command" : strerror(-r));
	else
		panes_message(p, "pid %d %s (%s sent)%s", (int)t->ask_pid, t->ask_sig == SIGSTOP ? "paused" : "resumed",
			      t->ask_sig == SIGSTOP ? "SIGSTOP" : "SIGCONT",
			      t->ask_sig == SIGSTOP ? "; z on it again resumes it" : "");
}

/* w: the line over the stacked PSS cycles RSS, swap, huge pages, locked. */
static void act_line(struct tui *t, enum key_action a, uint64_t now)
{
	static const char *const said[PANES_LINES] = {
		"the line is the tree's RSS", "the line is the tree's memory swapped out",
		"the line is the tree's memory in transparent huge pages", "the line is the tree's locked memory (mlock)"};
	(void)a, (void)now;
	t->p.line_kind = (t->p.line_kind + 1) % PANES_LINES;
	t->p.show_rss = 1;
	panes_message(&t->p, "%s (w: the next)", said[t->p.line_kind]);
	t->dirty |= D_MEM | D_STATUS;
}

/* m: the selected process's memory map over the screen, read on the map
 * reader's thread (started the first time); an exited process's, or a
 * replay's, the one taken at the peak (peakmaps.h). */
static void act_maps(struct tui *t, enum key_action a, uint64_t now)
{
	struct proc_rec rec;
	char job[128];
	(void)a, (void)now;

	if (!tui_selected_now(t, &rec, job, sizeof(job))) {
		panes_message(&t->p, "no process selected: Up/Down select one, m shows its memory map");
		return;
	}
	/* a replay: no process to read, the maps taken at the peak */
	if (!t->recorded && !t->mr && !(t->mr = mapread_new(NULL, TUI_MAP_SHARE))) {
		panes_message(&t->p, "cannot read memory maps: %s", strerror(errno));
		return;
	}
	if (!(t->mv = mapview_open(t->recorded ? NULL : t->mr, run_peakmaps(t->ctx->run), &rec, job, t->p.start_ns))) {
		panes_message(&t->p, "cannot show the memory map: %s", strerror(errno));
		return;
	}
	t->dirty |= D_ALL;
}

/* A key over the memory map: its own, or it closes. */
static void tui_map_key(struct tui *t, enum key_action a, int key)
{
	if (!mapview_key(t->mv, a, key)) {
		mapview_close(t->mv);
		t->mv = NULL;
		erase();
	}
	t->dirty |= D_ALL;
}

static const tui_act_fn tui_acts[ACT_COUNT] = {
	[ACT_QUIT] = act_quit,           [ACT_HELP] = act_help,
	[ACT_PAUSE] = act_pause,         [ACT_ZOOM_IN] = act_zoom,
	[ACT_ZOOM_OUT] = act_zoom,       [ACT_PAN_LEFT] = act_pan,
	[ACT_PAN_RIGHT] = act_pan,       [ACT_LIVE] = act_live,
	[ACT_CURSOR] = act_cursor,       [ACT_PEAK] = act_peak,
	[ACT_CURSOR_LEFT] = act_cursor_move, [ACT_CURSOR_RIGHT] = act_cursor_move,
	[ACT_CURSOR_LEFT_FAR] = act_cursor_move, [ACT_CURSOR_RIGHT_FAR] = act_cursor_move,
	[ACT_FOCUS_NEXT] = act_focus,    [ACT_FOCUS_PREV] = act_focus,
	[ACT_SORT] = act_plist,          [ACT_SORT_REVERSE] = act_plist,
	[ACT_FINISHED] = act_plist,      [ACT_CMDLINE] = act_plist,
	[ACT_OUTPUT] = act_output,       [ACT_RSS] = act_rss,
	[ACT_GLYPHS] = act_glyphs,       [ACT_UP] = act_scroll,
	[ACT_DOWN] = act_scroll,         [ACT_PAGE_UP] = act_scroll,
	[ACT_PAGE_DOWN] = act_scroll,    [ACT_TOP] = act_scroll,
	[ACT_INTERRUPT] = act_interrupt, [ACT_EXPORT] = act_export,
	[ACT_TYPE] = act_type,           [ACT_REDRAW] = act_redraw,
	[ACT_SEARCH] = act_find,         [ACT_SEARCH_NEXT] = act_find,
	[ACT_FILTER] = act_find,         [ACT_FOLD] = act_find,
	[ACT_MAPS] = act_maps,           [ACT_LINE] = act_line,
	[ACT_PAUSE_JOB] = act_pause_job,
};

/* A key on the help screen: scrolls it, any other closes it. */
static void help_key(struct tui *t, enum key_action a)
{
	struct panes *p = &t->p;
	if (a == ACT_UP || a == ACT_PAGE_UP)
		p->help_top = p->help_top > (a == ACT_UP ? 1u : 10u) ? p->help_top - (a == ACT_UP ? 1 : 10) : 0;
	else if (a == ACT_DOWN || a == ACT_PAGE_DOWN)
		p->help_top += a == ACT_DOWN ? 1 : 10;
	else
		p->help = 0;
	t->dirty |= D_ALL;
	erase();
}

static void tui_key(struct tui *t, int key, uint64_t now)
{
	struct panes *p = &t->p;
	enum key_action a = keys_lookup(key);

	t->urgent = 1;
	if (key == (TERM_FN | KEY_RESIZE)) {
		/* curses has resized already (resizeterm queues this key) */
		t->dirty |= D_LAYOUT;
		return;
	}
	if (p->typing && tui_typing_key(t, key, now))
		return;
	if (p->prompt) {
		tui_prompt_key(t, key);
		return;
	}
	if (key == (TERM_FN | KEY_MOUSE)) {
		if (!p->help && !t->mv && p->quit != QUIT_CONFIRM)
			tui_mouse(t);
		return;
	}
	if (p->ask[0]) {
		tui_ask_key(t, key);
		return;
	}
	if (t->mv && p->quit != QUIT_CONFIRM) {
		tui_map_key(t, a, key);
		return;
	}
	if (p->help) {
		help_key(t, a);
		return;
	}
	if (p->quit == QUIT_CONFIRM) {
		p->quit = QUIT_NONE;
		t->dirty |= D_STATUS;
		if (key == 'y' || key == 'Y')
			tui_stop_command(t, SIGTERM, now);
		return;
	}
	t->dirty |= D_STATUS;
	/* keys batched before a frame: act on the view as the last key left it */
	timeline_range(&p->tl, p->start_ns, p->live_ns, &p->t0_ns, &p->t1_ns);
	if (a > ACT_NONE && a < ACT_COUNT && tui_acts[a])
		tui_acts[a](t, a, now);
}

/* Reads what the command wrote: into the output pane and the log. */
static void tui_pty(struct tui *t)
{
	static char buf[65536];
	uint64_t before = outpane_total(t->op);

	for (int i = 0; i < TUI_PTY_READS; i++) {
		ssize_t n = read(t->pty_fd, buf, sizeof(buf));
		if (n > 0) {
			outpane_feed(t->op, buf, (size_t)n);
			run_output(t->ctx->run, buf, (size_t)n);
			if (t->log_fd >= 0) {
				for (ssize_t off = 0; off < n;) {
					ssize_t w = write(t->log_fd, buf + off, (size_t)(n - off));
					if (w < 0 && errno == EINTR)
						continue;
					if (w <= 0) {
						panes_message(&t->p, "cannot save the command's output in %s: %s",
							      t->ctx->log_path, strerror(errno));
						t->log_fd = -1; /* the caller's to close */
						break;
					}
					off += w;
				}
			}
			t->dirty |= D_OUT;
			t->out_ns = run_now_ns();
			t->wait_every_ns = TUI_WAIT_CHECK_NS; /* output: a prompt may follow */
			t->wait_check_ns = 0;
			if (t->p.waiting) { /* answered, or more to read: look again when quiet */
				t->p.waiting = 0;
				t->dirty |= D_STATUS;
			}
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		t->pty_eof = 1; /* EIO: every writer has gone */
		t->dirty |= D_OUT;
		break;
	}
	/* keep a scrolled-back view on the same lines */
	if (t->p.out_back)
		if (tui_op(t) == t->op) /* a pane at an instant stays where it is */
			t->p.out_back += outpane_total(t->op) - before;
}

/* Handles signals sent to spacetime itself. */
static void tui_signals(struct tui *t, uint64_t now)
{
	struct signalfd_siginfo si;

	while (read(t->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;
		if (sig == SIGWINCH || sig == SIGCONT) { /* resized, or back from a stop */
			term_resize();
			term_invalidate();
			t->dirty |= D_LAYOUT;
			t->urgent = 1;
		} else if (tui_hands_off(t) && (sig == SIGTERM || sig == SIGHUP || sig == SIGINT)) {
			t->done = 1; /* detach: the attached processes go on untouched */
		} else if (sig == SIGTERM || sig == SIGHUP) {
			/* the dashboard goes, the command goes with it; a closed
			 * terminal comes as SIGHUP and as a hangup on its fd, one
			 * event: only a second, different request is insistence */
			if (t->p.quit != QUIT_STOPPING)
				tui_stop_command(t, sig, now);
			else if (!(sig == SIGHUP && t->stop_sig == SIGHUP))
				tui_kill_command(t, now);
		} else if (!t->finished) {
			run_signal(t->ctx->run, sig); /* SIGINT, SIGQUIT: pass on (not when attached) */
		}
	}
}

/* The low-memory warning the status bar keeps while the run is running out
 * (the collector's verdict, coll_mem.h): how much is left of what, the time
 * left at this rate, the processes growing fastest, what to do. Returns
 * whether it changed. */
static int tui_memlow(struct tui *t)
{
	struct panes *p = &t->p;
	const struct store_summary *s = &p->sum;
	char m[sizeof(p->memlow)], a[24], b[24], eta[48] = "", job[96];
	int n = 0;

	m[0] = '\0';
	if (s->mem_low && !p->finished && !p->recorded) {
		report_size(a, sizeof(a), p->sum.last.mem_left_kib);
		report_size(b, sizeof(b), s->mem_of_kib);
		if (s->mem_eta_ms)
			snprintf(eta, sizeof(eta), ", out in ~%.0f s at this rate", (double)s->mem_eta_ms / 1000);
		n = snprintf(m, sizeof(m), "MEMORY LOW: %s left of %s (%s)%s", a, b,
			     s->mem_by_cgroup ? "the cgroup's limit" : "the machine's", eta);
		for (int k = 0; k < STORE_MEM_GROWERS && s->mem_grow_pid[k] && n > 0 && (size_t)n < sizeof(m); k++) {
			if (!plist_job_of_pid(t->pl, p->st, s->mem_grow_pid[k], job, sizeof(job)))
				snprintf(job, sizeof(job), "pid %d", (int)s->mem_grow_pid[k]);
			n += snprintf(m + n, sizeof(m) - (size_t)n, "%s %s", k ? "," : "; growing:", job);
		}
		if (n > 0 && (size_t)n < sizeof(m) && t->ctx->run && run_source(t->ctx->run) == RUN_SPAWNED)
			snprintf(m + n, sizeof(m) - (size_t)n, "; z pauses the selected job");
	}
	if (!strcmp(m, p->memlow))
		return 0;
	snprintf(p->memlow, sizeof(p->memlow), "%s", m);
	return 1;
}

/* Draws what is dirty and updates the terminal once. */
static void tui_draw(struct tui *t, uint64_t now)
{
	struct panes *p = &t->p;
	int rows, cols;

	if (t->dirty & D_LAYOUT)
		tui_layout(t);
	term_size(&rows, &cols);
	if (p->lay.too_small) {
		panes_too_small(p, rows, cols);
	} else if (p->help) {
		panes_help(p);
	} else if (t->mv && p->quit != QUIT_CONFIRM) {
		mapview_draw(t->mv, now);
	} else {
		panes_begin(p, now);
		if (tui_memlow(t))
			t->dirty |= D_STATUS;
		if (t->dirty & (D_MEM | D_STATS))
			panes_query(p);
		if (t->dirty & D_HEADER)
			panes_header(p);
		if (t->dirty & D_NOTICE)
			panes_notice(p);
		if (t->dirty & D_MEM)
			panes_mem(p);
		if (t->dirty & D_STATS)
			statpanes_draw(p);
		if (t->dirty & D_PLIST)
			plist_draw(t->pl, run_store(t->ctx->run), &p->lay, p->focus == FOCUS_PROCS);
		if ((t->dirty & D_OUT) && p->lay.out.h) {
			struct outpane *op = tui_op(t);
			panes_output_title(p, outpane_total(op) - 1, t->pty_eof, t->recorded ? 0 : t->unrecorded);
			if (t->pty_fd < 0 && !t->recorded)
				term_puts(p->lay.out_body.y, 1, p->lay.out_body.w - 1,
					  "the command's output is not captured", ROLE_DIM);
			else if (tui_at_instant(t) && !outpane_total(op))
				term_puts(p->lay.out_body.y, 1, p->lay.out_body.w - 1,
					  t->at_lines_cut ? "the output up to here is not kept (the oldest lines were let go of)"
					  : t->recorded ? "no output recorded up to here (runs with -s keep none)"
							: "no output printed up to here", ROLE_DIM);
			else
				outpane_draw(op, p->lay.out_body.y, p->lay.out_body.x, p->lay.out_body.h,
					     p->lay.out_body.w, p->out_back, !term_mono());
		}
		if (t->dirty & D_STATUS)
			panes_status(p);
	}
	term_flush();
	tui_nframes++;
	t->dirty = 0;
	t->urgent = 0;
	/* only a timed frame moves the frame clock: keys held down must not
	 * keep the live view from its frames */
	if (now >= t->next_frame_ns)
		t->next_frame_ns = now + t->frame_ns;
}

/* A prompt: output quiet a while, a process of its terminal's foreground
 * group blocked reading it; looked for less and less often while nobody
 * reads. */
static void tui_prompt_look(struct tui *t, uint64_t now)
{
	struct panes *p = &t->p;

	/* (out_ns is read after now was: now - out_ns would wrap around) */
	if (!t->finished && t->pty_fd >= 0 && !t->pty_eof && now >= t->wait_check_ns &&
	    now >= t->out_ns + TUI_QUIET_NS) {
		int w = tui_prompt_reader(t) > 0;
		/* a look reads a file or two of each live process: less and
		 * less often while output is quiet and nobody reads (a build
		 * whose make prints nothing) */
		if (w || t->wait_every_ns < TUI_WAIT_CHECK_NS)
			t->wait_every_ns = TUI_WAIT_CHECK_NS;
		else if (t->wait_every_ns < 8 * TUI_WAIT_CHECK_NS)
			t->wait_every_ns *= 2;
		t->wait_check_ns = now + t->wait_every_ns;
		if (w != p->waiting) {
			p->waiting = w;
			t->dirty |= D_STATUS;
		}
	}
}

/* The recording's trouble while the run goes on: its failure said once (the
 * summary says it again), output lines it lacks counted in the output's title. */
static void tui_recording_check(struct tui *t)
{
	char msg[256];
	uint64_t unrec = run_output_unrecorded(t->ctx->run, t->rec_failed ? NULL : msg, sizeof(msg));

	if (!t->rec_failed && msg[0]) {
		t->rec_failed = 1;
		panes_message(&t->p, "%s; the run goes on", msg);
		t->dirty |= D_STATUS;
	}
	if (unrec != t->unrecorded) {
		t->unrecorded = unrec;
		t->dirty |= D_OUT;
	}
}

/* Work due on the clock: frames, process list, messages, the quit sequence. */
static void tui_tick(struct tui *t, uint64_t now, int data)
{
	struct panes *p = &t->p;

	/* a replay of a run still being recorded: read what is new each second */
	if (t->recorded && run_following(t->ctx->run) && now >= t->follow_due_ns) {
		int r = run_follow(t->ctx->run);
		if (r > 0) {
			data = 1;
			t->rec_at_ns = 0; /* the list and output at the instant, again */
		} else if (r < 0) {
			panes_message(p, "cannot read the recording: %s", strerror(-r));
		}
		t->follow_due_ns = now + TUI_FOLLOW_NS;
	}
	p->recorded = t->recorded && !run_following(t->ctx->run);
	int fin = run_finished(t->ctx->run);

	if (fin && !t->finished) {
		t->finished = 1;
		t->dirty |= D_ALL;
		t->plist_due_ns = 0;
		/* a q that asked to stop the command as it ended: it has */
		if (p->quit == QUIT_STOPPING || p->quit == QUIT_CONFIRM) {
			t->done = 1;
			return;
		}
		p->quit = QUIT_NONE;
		panes_message(p, t->recorded    ? "replay: c cursor, , . < > move it, P the peak; processes and "
						  "output follow the cursor; q quits"
				 : tui_attached(t) ? "the attached processes have ended; q quits and prints the summary"
						   : "the command finished; q quits and prints the summary");
	}
	if (data)
		t->dirty |= D_MEM | D_STATS | D_HEADER;
	tui_recording_check(t);
	if (t->mv && mapview_poll(t->mv, now))
		t->dirty |= D_ALL;
	if (!t->finished && now >= t->next_frame_ns) {
		t->dirty |= D_HEADER; /* the elapsed time and live edge move */
		if (!p->tl.paused)
			t->dirty |= D_MEM | D_STATS;
	}
	if ((!p->tl.paused || !t->plist_due_ns) && now >= t->plist_due_ns &&
	    (data || !t->plist_due_ns))
		tui_refresh_plist(t, now);
	else if (tui_at_instant(t) && tui_rec_at(t, &p->sum) != t->rec_at_ns)
		tui_refresh_at(t); /* the cursor moved */
	if (t->esc_pending && now - t->esc_ns >= TUI_ESC_NS) {
		t->esc_pending = 0; /* one Esc alone: the program's */
		tui_type_bytes(t, "\033", 1);
	}
	tui_prompt_look(t, now);
	if (t->finished && (p->typing || p->waiting)) {
		p->typing = p->waiting = 0;
		t->dirty |= D_STATUS;
	}
	if (p->msg_until_ns && now >= p->msg_until_ns) {
		p->msg_until_ns = 0;
		p->msg[0] = 0;
		t->dirty |= D_STATUS;
	}
	if (p->quit == QUIT_STOPPING && !t->finished) {
		if (!p->kill_sent && now - t->term_sent_ns >= TUI_GRACE_NS)
			tui_kill_command(t, now);
		else if (p->kill_sent && now - t->kill_sent_ns >= TUI_GIVEUP_NS)
			t->done = 1;
	}
}

/* Milliseconds poll() may sleep. */
static int tui_timeout(const struct tui *t, uint64_t now)
{
	uint64_t due = UINT64_MAX;

	if (t->urgent)
		return 0;
	if (!t->finished || t->dirty || t->p.quit == QUIT_STOPPING)
		due = t->next_frame_ns;
	if (t->p.msg_until_ns && t->p.msg_until_ns < due)
		due = t->p.msg_until_ns;
	if (due == UINT64_MAX)
		return -1;
	return due <= now ? 0 : (int)((due - now + 999999) / 1000000);
}

/* Opens the terminal fds, the signalfd and the log. Returns 0 or -errno. */
static int tui_open(struct tui *t, sigset_t *old)
{
	sigset_t ss;
	int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGWINCH, SIGCONT};

	t->tty_fd = t->log_fd = t->sig_fd = -1;
	t->drag_x = -1;
	t->in_fd = isatty(0) ? 0 : -1;
	t->out_fd = isatty(1) ? 1 : -1;
	if (t->in_fd < 0 || t->out_fd < 0) {
		t->tty_fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
		if (t->tty_fd < 0)
			return -ENOTTY;
		if (t->in_fd < 0)
			t->in_fd = t->tty_fd;
		if (t->out_fd < 0)
			t->out_fd = t->tty_fd;
	}
	sigemptyset(&ss);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&ss, sigs[i]);
	pthread_sigmask(SIG_BLOCK, &ss, old);
	t->sig_fd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK);
	if (t->sig_fd < 0)
		return -errno;
	/* the caller's fd: the log is never reopened by name */
	t->log_fd = t->ctx->log_path ? t->ctx->log_fd : -1;
	t->pty_fd = run_pty(t->ctx->run);
	if (t->pty_fd >= 0)
		fcntl(t->pty_fd, F_SETFL, fcntl(t->pty_fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

int tui_probe(void)
{
	return isatty(STDOUT_FILENO) && term_probe();
}

/* The dashboard's state before its first frame, from ctx. */
static void tui_init(struct tui *t, struct tui_ctx *ctx)
{
	memset(t, 0, sizeof(*t));
	t->ctx = ctx;
	t->p.st = run_store(ctx->run);
	t->p.argv = ctx->argv;
	t->p.notice = ctx->notice;
	t->p.out_where = ctx->out_where;
	t->p.interval_ms = ctx->interval_ms ? ctx->interval_ms : STORE_INTERVAL_MS;
	panes_ghost_init(&t->p, ctx->against ? run_store(ctx->against) : NULL, ctx->against_label);
	t->p.show_rss = 1;
	t->p.show_output = 1;
	t->p.focus = FOCUS_PROCS;
	tui_nframes = 0;
}

/* The settings that need the terminal started: the graph style, the kind of
 * run, the cursor asked for, the frame rate. */
static void tui_settle(struct tui *t, const struct tui_ctx *ctx)
{
	const struct config *c = ctx->cfg;
	t->p.style = c && c->glyphs >= 0 ? (enum graph_style)c->glyphs : panes_default_style();
	/* braille or blocks need UTF-8; ASCII is all a terminal without it shows */
	if (!term_utf8())
		t->p.style = GRAPH_ASCII;
	if (c && c->rss_line >= 0)
		t->p.show_rss = c->rss_line;
	if (c && c->output_pane >= 0)
		t->p.show_output = c->output_pane;
	t->recorded = run_source(ctx->run) == RUN_RECORDED;
	t->p.kind = t->recorded ? KEYS_REPLAY : run_source(ctx->run) == RUN_ATTACHED ? KEYS_ATTACHED : KEYS_SPAWNED;
	t->p.recorded = t->recorded && !run_following(ctx->run);
	if (ctx->cursor_ns) {
		t->p.tl.cursor_on = 1;
		t->p.tl.cursor_ns = ctx->cursor_ns;
	}
	t->frame_ns = (uint64_t)(1e9 / (ctx->fps > 0 ? ctx->fps : TUI_FPS_DEFAULT));
	term_resize();
	t->dirty = D_LAYOUT;
	t->urgent = 1;
}

/* Test only (tests/ui/restore.bats): SPACETIME_TEST_UI_ABORT=N makes the UI
 * abort() after the first frame it draws N seconds (1..60) into the
 * dashboard, a crash the terminal must survive; the delay lets the command
 * set up what the test watches. Returns when (0: never). */
static uint64_t test_abort_at(void)
{
	const char *test_abort = getenv("SPACETIME_TEST_UI_ABORT");
	if (test_abort && atoi(test_abort) >= 1 && atoi(test_abort) <= 60)
		return run_now_ns() + (uint64_t)atoi(test_abort) * 1000000000ull;
	return 0;
}

/* One turn of the dashboard's loop: waits for a key, a signal, the
 * command's output or a frame's time, handles what came, draws when due.
 * Returns -1 when poll failed. */
static int tui_turn(struct tui *t, uint64_t abort_at_ns)
{
	struct tui_ctx *ctx = t->ctx;
	int due = t->finished || run_now_ns() >= t->next_frame_ns;
	struct pollfd pf[4] = {
		{.fd = t->tty_gone ? -1 : t->in_fd, .events = POLLIN},
		{.fd = t->sig_fd, .events = POLLIN},
		/* the collector's ticks are looked at when a frame is due, not
		 * woken for: new data shows at the frame rate anyway */
		{.fd = run_notify_fd(ctx->run), .events = due ? POLLIN : 0},
		{.fd = t->pty_eof ? -1 : t->pty_fd, .events = POLLIN},
	};
	uint64_t now = run_now_ns();
	int key, data = 0;

	if (poll(pf, 4, tui_timeout(t, now)) < 0 && errno != EINTR)
		return -1;
	now = run_now_ns();
	if (pf[1].revents & POLLIN)
		tui_signals(t, now);
	if (pf[0].revents & (POLLIN | POLLHUP | POLLERR))
		while (!t->done && term_key(&key))
			tui_key(t, key, now);
	if (pf[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
		t->tty_gone = 1; /* the terminal went away: stop the command, then go */
		if (t->p.quit != QUIT_STOPPING)
			tui_stop_command(t, SIGHUP, now);
	}
	if (pf[3].revents & (POLLIN | POLLHUP | POLLERR))
		tui_pty(t);
	if ((pf[2].revents & POLLIN) || t->finished || now >= t->next_frame_ns) {
		uint64_t x;
		data = read(run_notify_fd(ctx->run), &x, sizeof(x)) == (ssize_t)sizeof(x);
	}
	tui_tick(t, now, data);
	if (t->dirty && (t->urgent || now >= t->next_frame_ns)) {
		tui_draw(t, now);
		if (abort_at_ns && now >= abort_at_ns)
			abort();
	}
	return 0;
}

int tui_run(struct tui_ctx *ctx)
{
	struct tui t;
	sigset_t old;
	int rc;

	tui_init(&t, ctx);
	sigprocmask(SIG_SETMASK, NULL, &old);
	if ((rc = tui_open(&t, &old)) < 0)
		goto out;
	t.pl = plist_new();
	term_set_no_color(ctx->cfg && ctx->cfg->color == 0);
	term_set_mouse(!ctx->no_mouse && !(ctx->cfg && ctx->cfg->mouse == 0));
	if ((rc = term_start(t.in_fd, t.out_fd)) < 0)
		goto out;
	t.op = outpane_new(TUI_OUT_LINES, term_utf8());
	if (!t.pl || !t.op) {
		rc = -ENOMEM;
		goto out_term;
	}
	tui_settle(&t, ctx);
	uint64_t abort_at_ns = test_abort_at();
	while (!t.done && tui_turn(&t, abort_at_ns) == 0)
		;
	rc = 0;
out_term:
	term_stop();
out:
	if (t.sig_fd >= 0)
		close(t.sig_fd);
	if (t.tty_fd >= 0)
		close(t.tty_fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	outpane_free(t.op);
	outpane_free(t.op_at);
	plist_free(t.pl);
	mapview_close(t.mv);
	mapread_free(t.mr);
	panes_free(&t.p);
	return rc;
}
