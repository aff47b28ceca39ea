/* term: the terminal under the dashboard. Sets up and restores ncurses, maps
 * the colour roles once (colour, or attributes alone with NO_COLOR or on a
 * monochrome terminal), restores the terminal on every exit path (atexit, and
 * a SIGSEGV/SIGABRT/SIGBUS/SIGFPE/SIGILL handler that restores and re-raises),
 * and offers the few clipped drawing primitives every pane uses. The only
 * module of the dashboard that includes <curses.h>, with keys.c for key names. */
#ifndef SPACETIME_TERM_H
#define SPACETIME_TERM_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "roles.h"

#define TERM_FN 0x40000000 /* or'ed with a curses KEY_* code in a key code */
#define TERM_REPLACEMENT 0xFFFD

/* Line-drawing and other glyphs, Unicode in UTF-8 locales, ASCII otherwise. */
struct term_glyphs {
	wchar_t hline, vline, tee, corner, ellipsis, branch, last, up, down, left, right, bullet;
	wchar_t replacement; /* U+FFFD, or '?' */
};

/* Whether curses can drive the terminal named by $TERM (a terminfo entry with
 * cursor addressing), checked without writing to the terminal. */
int term_probe(void);
/* Starts curses on in_fd/out_fd (both the terminal). Returns 0 or -errno. */
int term_start(int in_fd, int out_fd);
/* No colours whatever the terminal (the config's color = never); before
 * term_start. */
void term_set_no_color(int on);
/* Mouse events on (the default) or off; before term_start. */
void term_set_mouse(int on);
/* Restores the terminal; safe to call twice. */
void term_stop(void);
int term_utf8(void);
int term_mono(void);
const struct term_glyphs *term_glyph(void);
/* The current size; term_resize() first reads it from the terminal. */
void term_size(int *rows, int *cols);
void term_resize(void);
/* Reads one key without blocking: returns 1 and sets *code (a character, or
 * TERM_FN | KEY_*), or 0 when none is pending. */
int term_key(int *code);
/* Drawing, clipped to the screen and to w columns. */
void term_blank(int y, int x, int h, int w);
void term_fill(int y, int x, int w, wchar_t ch, enum role r);
void term_cell(int y, int x, uint32_t ch, enum role r);
/* Wide text; returns the columns used (wide characters count 2). */
int term_put(int y, int x, int w, const wchar_t *s, enum role r);
/* Text, ours or not, by textsafe's rule; returns the columns used. */
int term_puts(int y, int x, int w, const char *s, enum role r);
/* term_puts cuts a text at a blank, so no word shows cut; term_printf
 * writes its text whole or not at all (a figure and its label or unit). */
int term_printf(int y, int x, int w, enum role r, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Display width of a wide string (non-printables count 1: they become U+FFFD). */
int term_width(const wchar_t *s);
/* One doupdate() for everything drawn since the last call. */
void term_flush(void);
/* Full repaint on the next flush (Ctrl-L, after a resize). */
void term_invalidate(void);

#endif
