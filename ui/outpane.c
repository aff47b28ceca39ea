/* outpane.c: a tiny, safe terminal for the command's output. */
#include "outpane.h"

#include "term.h"
#include "textsafe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define OUTPANE_MAX_PARAMS 16

enum outpane_state { OP_TEXT, OP_ESC, OP_CSI, OP_OSC, OP_OSC_ESC, OP_SKIP1 };

struct out_line {
	struct out_cell *c;
	uint32_t len, cap;
};

struct outpane {
	struct out_line *lines; /* ring of max lines */
	size_t max, head, count; /* the newest line is (head + count - 1) % max */
	uint64_t total;
	int utf8;
	uint32_t col;            /* the cursor in the newest line */
	uint8_t fg, bold;        /* current SGR state */
	enum outpane_state st;
	int params[OUTPANE_MAX_PARAMS], nparams, priv;
	unsigned char pend[4];   /* a UTF-8 sequence begun, not yet complete */
	size_t npend;
};

struct outpane *outpane_new(size_t max_lines, int utf8)
{
	struct outpane *op = calloc(1, sizeof(*op));

	if (!op)
		return NULL;
	op->max = max_lines ? max_lines : 1;
	op->lines = calloc(op->max, sizeof(*op->lines));
	if (!op->lines) {
		free(op);
		errno = ENOMEM;
		return NULL;
	}
	op->utf8 = utf8;
	op->count = 1; /* an empty current line */
	op->total = 1;
	return op;
}

void outpane_free(struct outpane *op)
{
	if (!op)
		return;
	for (size_t i = 0; i < op->max; i++)
		free(op->lines[i].c);
	free(op->lines);
	free(op);
}

static struct out_line *outpane_cur(struct outpane *op)
{
	return &op->lines[(op->head + op->count - 1) % op->max];
}

/* Starts a new line, reusing the oldest one's memory when the ring is full. */
static void outpane_newline(struct outpane *op)
{
	if (op->count == op->max)
		op->head = (op->head + 1) % op->max;
	else
		op->count++;
	outpane_cur(op)->len = 0;
	op->col = 0;
	op->total++;
}

/* Writes one character at the cursor (overwriting, or appending). */
static void outpane_put(struct outpane *op, uint32_t ch)
{
	struct out_line *l = outpane_cur(op);

	if (op->col >= OUTPANE_LINE_MAX)
		return;
	if (op->col >= l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 64;
		while (cap <= op->col)
			cap *= 2;
		if (cap > OUTPANE_LINE_MAX)
			cap = OUTPANE_LINE_MAX;
		struct out_cell *c = realloc(l->c, cap * sizeof(*c));
		if (!c)
			return; /* out of memory: the log still has it */
		l->c = c;
		l->cap = cap;
	}
	while (l->len < op->col) /* the cursor moved past the end: pad */
		l->c[l->len++] = (struct out_cell){' ', 0, 0};
	l->c[op->col] = (struct out_cell){ch, op->fg, op->bold};
	op->col++;
	if (op->col > l->len)
		l->len = op->col;
}

/* Applies a Select Graphic Rendition sequence. */
static void outpane_sgr(struct outpane *op)
{
	if (op->nparams == 0) {
		op->fg = op->bold = 0;
		return;
	}
	for (int i = 0; i < op->nparams; i++) {
		int p = op->params[i];
		if (p == 0) {
			op->fg = op->bold = 0;
		} else if (p == 1) {
			op->bold = 1;
		} else if (p == 22) {
			op->bold = 0;
		} else if (p >= 30 && p <= 37) {
			op->fg = (uint8_t)(p - 30 + 1);
		} else if (p == 39) {
			op->fg = 0;
		} else if (p >= 90 && p <= 97) {
			op->fg = (uint8_t)(p - 90 + 1);
			op->bold = 1;
		} else if (p == 38 || p == 48) {
			/* 38;5;n or 38;2;r;g;b: keep the 16 basic colours only */
			if (i + 2 < op->nparams && op->params[i + 1] == 5) {
				int n = op->params[i + 2];
				if (p == 38 && n >= 0 && n < 16)
					op->fg = (uint8_t)(n % 8 + 1);
				i += 2;
			} else if (i + 1 < op->nparams && op->params[i + 1] == 2) {
				i += 4;
			}
		}
	}
}

/* Acts on a complete CSI sequence ending in final. */
static void outpane_csi(struct outpane *op, char final)
{
	int p0 = op->nparams ? op->params[0] : 0;
	struct out_line *l = outpane_cur(op);

	if (op->priv)
		return; /* private modes (cursor keys, alternate screen): never ours */
	switch (final) {
	case 'm':
		outpane_sgr(op);
		break;
	case 'K':
		if (p0 == 0 && l->len > op->col)
			l->len = op->col;
		else if (p0 == 2)
			l->len = 0;
		else if (p0 == 1)
			for (uint32_t i = 0; i < op->col && i < l->len; i++)
				l->c[i].ch = ' ';
		break;
	case 'G':
		op->col = p0 > 0 ? (uint32_t)p0 - 1 : 0;
		break;
	case 'C':
		op->col += p0 > 0 ? (uint32_t)p0 : 1;
		break;
	case 'D': {
		uint32_t n = p0 > 0 ? (uint32_t)p0 : 1;
		op->col = op->col > n ? op->col - n : 0;
		break;
	}
	default:
		break; /* cursor up/down, scrolling regions, clears: ignored */
	}
	if (op->col > OUTPANE_LINE_MAX)
		op->col = OUTPANE_LINE_MAX;
}

/* A decoded character in text state. */
static void outpane_char(struct outpane *op, uint32_t ch)
{
	switch (ch) {
	case '\n':
		outpane_newline(op);
		return;
	case '\r':
		op->col = 0;
		return;
	case '\b':
		if (op->col)
			op->col--;
		return;
	case '\t':
		do
			outpane_put(op, ' ');
		while (op->col % 8 && op->col < OUTPANE_LINE_MAX);
		return;
	case 0x07: /* bell */
		return;
	case 0x1b:
		op->st = OP_ESC;
		return;
	default:
		break;
	}
	outpane_put(op, textsafe_char(ch, op->utf8));
}

/* One byte through the escape-sequence state machine; returns 1 if it was
 * consumed there. */
static int outpane_escape(struct outpane *op, unsigned char c)
{
	switch (op->st) {
	case OP_TEXT:
		return 0;
	case OP_ESC:
		op->st = OP_TEXT;
		if (c == '[') {
			op->st = OP_CSI;
			op->nparams = 0;
			op->priv = 0;
			memset(op->params, 0, sizeof(op->params));
		} else if (c == ']' || c == 'P' || c == '_' || c == '^') {
			op->st = OP_OSC; /* strings: OSC, DCS, APC, PM */
		} else if (c == '(' || c == ')' || c == '*' || c == '+' || c == '#' || c == '%') {
			op->st = OP_SKIP1;
		}
		return 1;
	case OP_SKIP1:
		op->st = OP_TEXT;
		return 1;
	case OP_OSC:
		if (c == 0x07)
			op->st = OP_TEXT;
		else if (c == 0x1b)
			op->st = OP_OSC_ESC;
		return 1;
	case OP_OSC_ESC:
		op->st = c == '\\' ? OP_TEXT : OP_OSC;
		return 1;
	case OP_CSI:
		if (c >= '0' && c <= '9') {
			if (!op->nparams)
				op->nparams = 1;
			int *p = &op->params[op->nparams - 1];
			if (*p < 100000)
				*p = *p * 10 + (c - '0');
		} else if (c == ';' || c == ':') {
			if (!op->nparams)
				op->nparams = 1;
			if (op->nparams < OUTPANE_MAX_PARAMS)
				op->nparams++;
		} else if (c == '?' || c == '>' || c == '<' || c == '=') {
			op->priv = 1;
		} else if (c >= 0x40 && c <= 0x7e) {
			op->st = OP_TEXT;
			outpane_csi(op, (char)c);
		} else if (c < 0x20 || c > 0x7e) {
			op->st = OP_TEXT; /* broken sequence: drop it */
		}
		return 1;
	}
	return 0;
}

/* Adds byte c to the UTF-8 sequence begun (or begins one): shows the
 * character once complete, or one replacement for the bytes before c when c
 * cannot continue them. Returns 1 if c was taken, 0 if it is to be read
 * anew. */
static int outpane_utf8(struct outpane *op, unsigned char c)
{
	size_t len = op->npend + 1, n;
	uint32_t cp;

	op->pend[op->npend++] = c;
	n = textsafe_utf8(op->pend, len, &cp);
	if (!n)
		return 1; /* more to come */
	op->npend = 0;
	outpane_char(op, cp);
	return n == len;
}

void outpane_feed(struct outpane *op, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)b[i];

		if (op->npend && outpane_utf8(op, c))
			continue;
		if (outpane_escape(op, c))
			continue;
		if (c < 0x80 || !op->utf8)
			outpane_char(op, c < 0x80 ? c : TEXTSAFE_INVALID);
		else
			outpane_utf8(op, c);
	}
}

size_t outpane_count(const struct outpane *op)
{
	return op->count;
}

uint64_t outpane_total(const struct outpane *op)
{
	return op->total;
}

const struct out_cell *outpane_line(const struct outpane *op, size_t i, size_t *len)
{
	const struct out_line *l = &op->lines[(op->head + i) % op->max];

	*len = i < op->count ? l->len : 0;
	return l->c;
}

/* Display width of one cell. */
static int outpane_cw(const struct out_cell *c)
{
	int w = wcwidth((wchar_t)c->ch);

	return w < 0 ? 1 : w;
}

/* Rows a line of cells takes at width w. */
static int outpane_rows(const struct out_cell *c, size_t len, int w)
{
	int rows = 1, used = 0;

	for (size_t i = 0; i < len; i++) {
		int cw = outpane_cw(&c[i]);
		if (used + cw > w) {
			rows++;
			used = 0;
		}
		used += cw;
	}
	return rows;
}

/* Draws the rows [skip, skip + nrows) of a wrapped line starting at screen row y. */
static void outpane_draw_line(const struct out_cell *c, size_t len, int y, int x, int w, int skip,
			      int nrows, int color)
{
	int row = 0, used = 0;

	for (size_t i = 0; i < len; i++) {
		int cw = outpane_cw(&c[i]);
		if (used + cw > w) {
			row++;
			used = 0;
		}
		if (row >= skip + nrows)
			break;
		if (row >= skip) {
			enum role r = ROLE_NORMAL;
			if (c[i].fg && color)
				r = (enum role)(ROLE_OUT0 + (c[i].fg - 1) + (c[i].bold ? 8 : 0));
			else if (c[i].bold)
				r = (enum role)(ROLE_OUT0 + 8); /* default colour, bold */
			wchar_t s[2] = {(wchar_t)c[i].ch, 0};
			term_put(y + row - skip, x + used, cw, s, r);
		}
		used += cw;
	}
}

void outpane_draw(const struct outpane *op, int y, int x, int h, int w, size_t back, int color)
{
	size_t n = op->count;
	int bottom = y + h; /* first row below the rectangle */

	term_blank(y, x, h, w);
	if (w <= 0 || h <= 0)
		return;
	/* an empty line after the last newline is the cursor, not output */
	if (n && outpane_cur((struct outpane *)op)->len == 0)
		n--;
	if (back >= n)
		return;
	for (size_t i = n - back; i-- > 0 && bottom > y;) {
		size_t len;
		const struct out_cell *c = outpane_line(op, i, &len);
		int rows = outpane_rows(c, len, w), avail = bottom - y;
		int skip = rows > avail ? rows - avail : 0, shown = rows - skip;

		bottom -= shown;
		outpane_draw_line(c, len, bottom, x, w, skip, shown, color);
	}
}
