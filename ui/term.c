/* term.c: curses setup and teardown, colour roles, crash-safe restore, and
 * clipped drawing primitives. */
#include "term.h"

#include "textsafe.h"

#include <curses.h>

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#define TERM_RESTORE_MAX 256

static struct {
	SCREEN *scr;
	FILE *in, *out;
	int in_fd, out_fd;
	int active, utf8, mono;
	struct termios saved;
	int have_saved;
	attr_t attr[ROLE_COUNT];
	short pair[ROLE_COUNT];
	char restore[TERM_RESTORE_MAX]; /* what endwin() would send, precomputed */
	size_t restore_len;
	struct sigaction old[5];
} T;

static const int term_crash_sigs[5] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};

static const struct term_glyphs term_uni = {
	.hline = 0x2500, .vline = 0x2502, .tee = 0x2524, .corner = 0x2514, .ellipsis = 0x2026,
	.branch = 0x251c, .last = 0x2514, .up = 0x25b2, .down = 0x25bc, .left = 0x2190,
	.right = 0x2192, .bullet = 0x25cf, .replacement = TERM_REPLACEMENT,
};
static const struct term_glyphs term_ascii = {
	.hline = '-', .vline = '|', .tee = '|', .corner = '+', .ellipsis = '~', .branch = '|',
	.last = '`', .up = '^', .down = 'v', .left = '<', .right = '>', .bullet = '*',
	.replacement = '?',
};

int term_utf8(void)
{
	return T.utf8;
}

int term_mono(void)
{
	return T.mono;
}

const struct term_glyphs *term_glyph(void)
{
	return T.utf8 ? &term_uni : &term_ascii;
}

/* Puts the terminal back with async-signal-safe calls only: what endwin()
 * sends (precomputed), then the saved tty modes. */
static void term_emergency_restore(void)
{
	if (!T.active)
		return;
	T.active = 0;
	if (T.restore_len) {
		ssize_t r = write(T.out_fd, T.restore, T.restore_len);
		(void)r;
	}
	if (T.have_saved)
		tcsetattr(T.in_fd, TCSANOW, &T.saved);
}

/* A crash in the UI: restore the terminal, then die of the same signal. */
static void term_crash(int sig)
{
	term_emergency_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* exit() while curses is active (from anywhere): end curses properly. */
static void term_atexit(void)
{
	if (T.active && !isendwin())
		endwin();
	term_emergency_restore();
}

/* Appends a terminfo capability to the emergency restore string. */
static void term_add_cap(const char *name)
{
	char *s = tigetstr(name);

	if (!s || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (T.restore_len + n < TERM_RESTORE_MAX) {
		memcpy(T.restore + T.restore_len, s, n);
		T.restore_len += n;
	}
}

/* Maps every role to attributes once: colour pairs, or plain attributes. */
static void term_roles(void)
{
	struct {
		short fg, bg;
		attr_t color_attr, mono_attr;
	} map[ROLE_COUNT] = {
		[ROLE_NORMAL] = {-1, -1, A_NORMAL, A_NORMAL},
		[ROLE_HEADER] = {COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_REVERSE},
		[ROLE_HEADER_HI] = {COLOR_YELLOW, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD},
		[ROLE_TITLE] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
		[ROLE_FOCUS] = {COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD},
		[ROLE_PAUSED] = {COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_REVERSE | A_BOLD},
		[ROLE_OK] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
		[ROLE_BAD] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE},
		[ROLE_WARN] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
		[ROLE_DIM] = {-1, -1, A_DIM, A_DIM},
		[ROLE_KEY] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
		[ROLE_SELECTED] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
		[ROLE_CURSOR] = {COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE},
		[ROLE_ANON] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
		[ROLE_FILE] = {COLOR_BLUE, -1, A_BOLD, A_NORMAL},
		[ROLE_SHMEM] = {COLOR_MAGENTA, -1, A_NORMAL, A_NORMAL},
		/* grey on a dark terminal, and on a light one; graph.c also draws
		 * it hollow when mono */
		[ROLE_EST] = {-1, -1, A_DIM, A_DIM},
		[ROLE_RSS] = {COLOR_YELLOW, -1, A_NORMAL, A_BOLD},
		[ROLE_PROCS] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
		[ROLE_THREADS] = {COLOR_BLUE, -1, A_BOLD, A_BOLD},
		[ROLE_MINOR] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
		[ROLE_MAJOR] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_REVERSE},
		[ROLE_USER] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
		[ROLE_SYS] = {COLOR_RED, -1, A_NORMAL, A_BOLD},
		/* a colour none of the memory graph's others has (the stack's green,
		 * blue, magenta and grey, the RSS's yellow) */
		[ROLE_GHOST] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
	};
	for (int i = 0; i < 16; i++) {
		/* black would vanish on dark terminals: it shows in the default colour */
		map[ROLE_OUT0 + i].fg = i % 8 ? (short)(i % 8) : -1;
		map[ROLE_OUT0 + i].bg = -1;
		map[ROLE_OUT0 + i].color_attr = i >= 8 ? A_BOLD : A_NORMAL;
		map[ROLE_OUT0 + i].mono_attr = i >= 8 ? A_BOLD : A_NORMAL;
	}
	for (int r = 0; r < ROLE_COUNT; r++) {
		T.pair[r] = 0;
		if (T.mono) {
			T.attr[r] = map[r].mono_attr;
			continue;
		}
		T.attr[r] = map[r].color_attr;
		if (map[r].fg >= 0 || map[r].bg >= 0) {
			/* one pair per role, numbered after the role */
			if (init_pair((short)(r + 1), map[r].fg, map[r].bg) == OK)
				T.pair[r] = (short)(r + 1);
			else
				T.attr[r] = map[r].mono_attr;
		}
	}
}

int term_probe(void)
{
	const char *t = getenv("TERM");
	FILE *null = fopen("/dev/null", "r+");
	int ok = 0;

	if (!t || !*t || !strcmp(t, "dumb") || !null)
		goto out;
	SCREEN *s = newterm(t, null, null);
	if (!s)
		goto out;
	char *cup = tigetstr("cup");
	ok = cup && cup != (char *)-1;
	delscreen(s);
out:
	if (null)
		fclose(null);
	return ok;
}

/* The config file's color = never, as NO_COLOR. */
static int term_never_color;
/* Mouse events asked of the terminal (--no-mouse, mouse = off: none). */
static int term_mouse = 1;

void term_set_mouse(int on)
{
	term_mouse = on;
}

void term_set_no_color(int on)
{
	term_never_color = on;
}

/* What a crash writes to give the terminal back: attributes off, the
 * cursor shown, the keypad and the alternate screen left, and the mouse
 * reports off (the normal and SGR modes ncurses asked for), so that no shell
 * receives clicks as text. */
static void term_restore_seq(void)
{
	static const char off[] = "\033[?1000l\033[?1002l\033[?1006l";

	term_add_cap("sgr0");
	term_add_cap("cnorm");
	term_add_cap("rmkx");
	term_add_cap("rmcup");
	if (term_mouse && T.restore_len + sizeof(off) - 1 < TERM_RESTORE_MAX) {
		memcpy(T.restore + T.restore_len, off, sizeof(off) - 1);
		T.restore_len += sizeof(off) - 1;
	}
}

/* Keys raw, unechoed, without waiting; the mouse: clicks as a press and a
 * release (a drag), no click resolution's wait, the wheel as buttons 4 and
 * 5. */
static void term_input_modes(void)
{
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	if (term_mouse) {
		mouseinterval(0);
		mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	}
	set_escdelay(25);
}

int term_start(int in_fd, int out_fd)
{
	const char *cs = nl_langinfo(CODESET);
	const char *nc = getenv("NO_COLOR");
	int e;

	memset(&T, 0, sizeof(T));
	T.in_fd = in_fd;
	T.out_fd = out_fd;
	T.utf8 = cs && !strcmp(cs, "UTF-8");
	if (tcgetattr(in_fd, &T.saved) == 0)
		T.have_saved = 1;
	int fi = dup(in_fd), fo = dup(out_fd);
	T.in = fi >= 0 ? fdopen(fi, "r") : NULL;
	T.out = fo >= 0 ? fdopen(fo, "w") : NULL;
	if (!T.in || !T.out) {
		e = errno ? errno : ENOMEM;
		goto fail;
	}
	T.scr = newterm(NULL, T.out, T.in);
	if (!T.scr) {
		e = ENOTTY;
		goto fail;
	}
	set_term(T.scr);
	T.active = 1;
	/* One write per frame. A screen newterm() made stays "initial" to
	 * ncurses until it has been suspended and resumed, and until then every
	 * cursor movement flushes its output: a frame went out in ~40 writes of
	 * 7-30 bytes, each waking the terminal (tmux woke ~40 times a second at
	 * 2 frames/s). endwin() then doupdate() before anything is drawn puts
	 * it in its running state. No typeahead check either: it polled the
	 * keyboard between lines; a frame takes a few ms, a key waits for it. */
	typeahead(-1);
	endwin();
	doupdate();
	term_input_modes();
	curs_set(0);
	leaveok(stdscr, TRUE);
	T.mono = (nc && nc[0]) || term_never_color || !has_colors();
	if (!T.mono) {
		start_color();
		use_default_colors();
		if (COLORS < 8)
			T.mono = 1;
	}
	term_roles();
	term_restore_seq();
	for (int i = 0; i < 5; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = term_crash;
		sa.sa_flags = SA_RESETHAND | SA_NODEFER;
		sigaction(term_crash_sigs[i], &sa, &T.old[i]);
	}
	static int registered;
	if (!registered++)
		atexit(term_atexit);
	erase();
	return 0;
fail:
	if (T.in)
		fclose(T.in);
	else if (fi >= 0)
		close(fi);
	if (T.out)
		fclose(T.out);
	else if (fo >= 0)
		close(fo);
	T.in = T.out = NULL;
	return -e;
}

void term_stop(void)
{
	if (!T.active)
		return;
	endwin();
	T.active = 0;
	for (int i = 0; i < 5; i++)
		sigaction(term_crash_sigs[i], &T.old[i], NULL);
	if (T.have_saved)
		tcsetattr(T.in_fd, TCSANOW, &T.saved);
	delscreen(T.scr);
	T.scr = NULL;
	fclose(T.in);
	fclose(T.out);
	T.in = T.out = NULL;
}

void term_size(int *rows, int *cols)
{
	*rows = LINES;
	*cols = COLS;
}

void term_resize(void)
{
	struct winsize ws;

	if (ioctl(T.out_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0 &&
	    is_term_resized(ws.ws_row, ws.ws_col))
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
}

/* A mouse report curses did not ask for: a terminal sends one with its
 * reports on when curses has them off (left on by a program that crashed,
 * or --no-mouse). Curses knows the report's start ("\e[<", terminfo's kmous)
 * and gives KEY_MOUSE, or nothing of it and gives the Esc; either way the
 * rest ("B;X;YM" or "...m", SGR 1006) is read and dropped here: its letters
 * are no keys. esc: the report's "[<" is still to come. Anything that does
 * not fit is put back. Returns whether a report was dropped. */
static int term_mouse_report(int esc)
{
	wint_t seq[24];
	int n = 0, r = OK, skip = esc ? 2 : 0;

	while (n < (int)(sizeof(seq) / sizeof(seq[0])) && (r = wget_wch(stdscr, &seq[n])) != ERR) {
		if (r == KEY_CODE_YES)
			break; /* a key of its own: not a report */
		wint_t c = seq[n++];
		int ok = n <= skip ? c == (n == 1 ? '[' : '<') : (c >= '0' && c <= '9') || c == ';' || c == 'M' || c == 'm';
		if (!ok)
			break;
		if (n > skip + 1 && (c == 'M' || c == 'm'))
			return 1;
	}
	if (r == KEY_CODE_YES) /* (seq[n] holds its code: put it back first) */
		ungetch((int)seq[n]);
	while (n > 0)
		unget_wch(seq[--n]);
	return 0;
}

int term_key(int *code)
{
	wint_t wc;
	int r = wget_wch(stdscr, &wc);

	if (r == ERR)
		return 0;
	if (!term_mouse && ((r == OK && wc == 27) || (r == KEY_CODE_YES && wc == KEY_MOUSE)) &&
	    term_mouse_report(r == OK))
		return term_key(code); /* the key after it, if one came */
	*code = r == KEY_CODE_YES ? TERM_FN | (int)wc : (int)wc;
	return 1;
}

/* A cchar_t for one character in a role. */
static void term_cc(cchar_t *cc, wchar_t ch, enum role r)
{
	wchar_t w[2] = {ch, 0};

	setcchar(cc, w, T.attr[r], T.pair[r], NULL);
}

void term_blank(int y, int x, int h, int w)
{
	term_fill(y, x, w, ' ', ROLE_NORMAL);
	for (int i = 1; i < h; i++)
		term_fill(y + i, x, w, ' ', ROLE_NORMAL);
}

void term_fill(int y, int x, int w, wchar_t ch, enum role r)
{
	cchar_t cc;

	if (y < 0 || y >= LINES || x < 0)
		return;
	if (x + w > COLS)
		w = COLS - x;
	if (w <= 0)
		return;
	term_cc(&cc, ch, r);
	mvhline_set(y, x, &cc, w);
}

void term_cell(int y, int x, uint32_t ch, enum role r)
{
	cchar_t cc;

	if (y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	term_cc(&cc, (wchar_t)ch, r);
	mvadd_wch(y, x, &cc);
}

int term_width(const wchar_t *s)
{
	int n = 0;

	for (; *s; s++) {
		int cw = wcwidth(*s);
		n += cw < 0 ? 1 : cw;
	}
	return n;
}

int term_put(int y, int x, int w, const wchar_t *s, enum role r)
{
	int used = 0;
	cchar_t cc;

	if (y < 0 || y >= LINES || x < 0 || x >= COLS)
		return 0;
	if (x + w > COLS)
		w = COLS - x;
	for (; *s && used < w; s++) {
		wchar_t ch = *s;
		int cw = wcwidth(ch);
		if (cw < 0) {
			ch = term_glyph()->replacement;
			cw = 1;
		}
		if (cw == 0)
			continue; /* combining marks: dropped rather than mis-measured */
		if (used + cw > w)
			break;
		term_cc(&cc, ch, r);
		mvadd_wch(y, x + used, &cc);
		used += cw;
	}
	return used;
}

/* A label cut to width w at a blank, so that no word shows cut ("64 mad",
 * "RS"): what fits up to the last blank that fits, or nothing. */
static void whole_words(wchar_t *buf, int w)
{
	int used = 0, cut = -1;

	for (int i = 0; buf[i]; i++) {
		int cw = wcwidth(buf[i]);
		if (buf[i] == ' ' && used <= w)
			cut = i;
		used += cw > 0 ? cw : cw < 0;
		if (used > w) {
			/* a blank right after what fits ends a whole word too */
			buf[cut >= 0 ? cut : 0] = 0;
			return;
		}
	}
}

int term_puts(int y, int x, int w, const char *s, enum role r)
{
	wchar_t buf[512];

	textsafe_wcs(s, strlen(s), buf, sizeof(buf) / sizeof(buf[0]), T.utf8);
	if (x >= 0 && x < COLS)
		whole_words(buf, x + w > COLS ? COLS - x : w);
	return term_put(y, x, w, buf, r);
}

int term_printf(int y, int x, int w, enum role r, const char *fmt, ...)
{
	char buf[512];
	wchar_t wb[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* a figure with its label or unit ("sys 0.02", "0 B"): whole or not at all */
	textsafe_wcs(buf, strlen(buf), wb, sizeof(wb) / sizeof(wb[0]), T.utf8);
	int need = 0;
	for (int i = 0; wb[i]; i++) {
		int cw = wcwidth(wb[i]);
		need += cw > 0 ? cw : cw < 0;
	}
	if (x < 0 || x >= COLS || need > (x + w > COLS ? COLS - x : w))
		return 0;
	return term_put(y, x, w, wb, r);
}

void term_flush(void)
{
	wnoutrefresh(stdscr);
	doupdate();
}

void term_invalidate(void)
{
	clearok(curscr, TRUE);
}
