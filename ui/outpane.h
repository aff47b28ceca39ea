/* outpane: the command's own output, as the dashboard shows it.
 *
 * Bytes from the pseudo-terminal go through a small parser: UTF-8 decoding,
 * \r \b \t and \n, SGR colours kept, erase-line honoured, every other escape
 * or control sequence swallowed, and each character left shown by textsafe's
 * rule (invalid UTF-8, C1 and other controls as U+FFFD), so nothing the
 * command prints can move the dashboard's cursor or change its modes. The last
 * max_lines lines are kept; the full output goes to the log file (tui.c). */
#ifndef SPACETIME_OUTPANE_H
#define SPACETIME_OUTPANE_H

#include <stddef.h>
#include <stdint.h>

#define OUTPANE_LINE_MAX 1024 /* cells kept per line; the log keeps the rest */

struct out_cell {
	uint32_t ch;
	uint8_t fg;   /* 0: default, 1..8: colour 0..7 */
	uint8_t bold;
};

struct outpane;

/* Returns NULL + errno. utf8: decode UTF-8 (else bytes >= 0x80 show as '?'). */
struct outpane *outpane_new(size_t max_lines, int utf8);
void outpane_free(struct outpane *op);
void outpane_feed(struct outpane *op, const char *b, size_t n);
/* Lines kept, the newest (possibly unterminated) one included. */
size_t outpane_count(const struct outpane *op);
/* Lines ever started. */
uint64_t outpane_total(const struct outpane *op);
/* Line i of outpane_count(), oldest first; returns its cells and sets *len. */
const struct out_cell *outpane_line(const struct outpane *op, size_t i, size_t *len);
/* Draws the tail into the rectangle, wrapping long lines, with the newest
 * `back` lines scrolled off the bottom; color: use the command's colours. */
void outpane_draw(const struct outpane *op, int y, int x, int h, int w, size_t back, int color);

#endif
