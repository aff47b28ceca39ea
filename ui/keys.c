/* keys.c: the key table and what is derived from it. */
#include "keys.h"

#include "term.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#define CTRL(c) ((c) & 0x1f)
#define FN(k) (TERM_FN | (k))

static const struct key_binding keys[] = {
	{'q', ACT_QUIT, "q", "quit (asks first while the command runs; then SIGTERM, SIGKILL after 5 s)", "quit", 0, 0},
	{CTRL('c'), ACT_INTERRUPT, "^C", "send SIGINT to the command's process group, as without spacetime", NULL, 0,
	 KEYS_SPAWNED},
	{'?', ACT_HELP, "?", "this help (from the same table that drives the keys)", "help", 0, 0},
	{FN(KEY_F(1)), ACT_HELP, "F1", NULL, NULL, 0, 0},
	{' ', ACT_PAUSE, "space", "pause / resume the view; collection never stops", "pause", 0, 0},
	{'+', ACT_ZOOM_IN, "+", "zoom in: halve the visible time span", "zoom", 1, 0},
	{'=', ACT_ZOOM_IN, "=", NULL, NULL, 0, 0},
	{'-', ACT_ZOOM_OUT, "-", "zoom out: double the span, up to the whole run", "zoom", 1, 0},
	{FN(KEY_LEFT), ACT_PAN_LEFT, "Left", "pan back by a quarter span (pauses the view)", "pan", 2, 0},
	{FN(KEY_RIGHT), ACT_PAN_RIGHT, "Right", "pan forward by a quarter span", "pan", 2, 0},
	{'0', ACT_LIVE, "0", "back to live: the whole run in view, the cursor off, every pane at the present", "live", 0,
	 KEYS_LIVE},
	{FN(KEY_END), ACT_LIVE, "End", NULL, NULL, 0, KEYS_LIVE},
	{'0', ACT_LIVE, "0", "the whole run in view, the cursor off: every pane at the run's end", "whole", 0,
	 KEYS_REPLAY},
	{FN(KEY_END), ACT_LIVE, "End", NULL, NULL, 0, KEYS_REPLAY},
	{'c', ACT_CURSOR, "c", "timeline cursor on/off: every pane (header, boxes, processes, output) at its instant",
	 "cursor", 0, 0},
	{'P', ACT_PEAK, "P", "cursor on the run's peak PSS: the processes that made it up, and the output then", NULL, 0, 0},
	{',', ACT_CURSOR_LEFT, ",", "cursor one column back", NULL, 0, 0},
	{'.', ACT_CURSOR_RIGHT, ".", "cursor one column forward", NULL, 0, 0},
	{'<', ACT_CURSOR_LEFT_FAR, "<", "cursor ten columns back", NULL, 0, 0},
	{'>', ACT_CURSOR_RIGHT_FAR, ">", "cursor ten columns forward", NULL, 0, 0},
	{'\t', ACT_FOCUS_NEXT, "tab", "focus the next pane: timeline, processes, output", "focus", 0, 0},
	{FN(KEY_BTAB), ACT_FOCUS_PREV, "shift-tab", "focus the previous pane", NULL, 0, 0},
	{FN(KEY_UP), ACT_UP, "Up", "processes: select the row above; output: scroll back", NULL, 0, 0},
	{'k', ACT_UP, "k", NULL, NULL, 0, 0},
	{FN(KEY_DOWN), ACT_DOWN, "Down", "processes: select the row below; output: scroll on", NULL, 0, 0},
	{'j', ACT_DOWN, "j", NULL, NULL, 0, 0},
	{FN(KEY_PPAGE), ACT_PAGE_UP, "PgUp", "scroll the focused pane a page back", NULL, 0, 0},
	{FN(KEY_NPAGE), ACT_PAGE_DOWN, "PgDn", "scroll the focused pane a page on", NULL, 0, 0},
	{FN(KEY_HOME), ACT_TOP, "Home", "first process / oldest output kept", NULL, 0, 0},
	{'e', ACT_EXPORT, "e", "export a snapshot (JSON, CSV, trace, SVG) of the run, or of the view when zoomed", "export", 0, 0},
	{'s', ACT_SORT, "s", "sort processes by PSS, CPU, major faults, age, pid (cycles)", "sort", 0, 0},
	{'S', ACT_SORT_REVERSE, "S", "reverse the sort order", NULL, 0, 0},
	{'f', ACT_FINISHED, "f", "live processes (a tree) or finished ones (peak PSS, duration)", "finished", 0, 0},
	{'p', ACT_CMDLINE, "p", "processes: job names (cc1 src/x.c) or full command lines", NULL, 0, 0},
	{'/', ACT_SEARCH, "/", "search the processes (job name, command line): type, Enter; Esc cancels", "search", 0, 0},
	{'n', ACT_SEARCH_NEXT, "n", "the next process the search finds", NULL, 0, 0},
	{'\\', ACT_FILTER, "\\", "filter the processes: only those holding the text (Enter; empty: all)", NULL, 0, 0},
	{'x', ACT_FOLD, "x", "fold / unfold the subtree under the selected process", NULL, 0, 0},
	{'m', ACT_MAPS, "m",
	 "memory map of the selected process: its mappings grouped (program, libraries, heap, stack, anonymous, files) "
	 "with RSS, PSS, swap, huge pages, locked memory (a replay: the largest ones' at the peak)",
	 NULL, 0, 0},
	{'o', ACT_OUTPUT, "o", "show / hide the command's output pane", "output", 0, 0},
	{'r', ACT_RSS, "r", "show / hide the line over the stacked PSS (RSS unless w chose another)", NULL, 0, 0},
	{'z', ACT_PAUSE_JOB, "z",
	 "pause (SIGSTOP) or resume (SIGCONT) the selected process, after a y: to let the others through when "
	 "memory runs low",
	 NULL, 0, KEYS_SPAWNED},
	{'w', ACT_LINE, "w", "the line over the stacked PSS: RSS, swapped out, huge pages, locked (cycles)", NULL, 0, 0},
	{'g', ACT_GLYPHS, "g", "graph glyphs: Braille, blocks, ASCII (UTF-8 locales)", NULL, 0, 0},
	{CTRL('l'), ACT_REDRAW, "^L", "redraw the whole screen", NULL, 0, 0},
	{'i', ACT_TYPE, "i", "type to the command (a prompt waiting): keys go to its terminal until Esc Esc or ^]", "type", 0,
	 KEYS_SPAWNED},
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* Whether binding b is offered in a run of kind. */
static int offered(const struct key_binding *b, unsigned kind)
{
	return !b->kinds || (b->kinds & kind);
}
#define KEYS_NAME_W 14

const struct key_binding *keys_table(size_t *n)
{
	*n = NKEYS;
	return keys;
}

enum key_action keys_lookup(int key)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].key == key)
			return keys[i].action;
	return ACT_NONE;
}

void keys_names(enum key_action a, unsigned kind, char *buf, size_t cap)
{
	size_t len = 0;

	if (cap)
		buf[0] = 0;
	for (size_t i = 0; i < NKEYS; i++) {
		if (keys[i].action != a || !offered(&keys[i], kind))
			continue;
		int n = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", keys[i].name);
		if (n < 0 || (size_t)n >= cap - len)
			break;
		len += (size_t)n;
	}
}

size_t keys_help_line(unsigned kind, size_t line, char *buf, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < NKEYS; i++) {
		if (!keys[i].help || !offered(&keys[i], kind))
			continue;
		if (buf && n == line) {
			char names[64];
			keys_names(keys[i].action, kind, names, sizeof(names));
			snprintf(buf, cap, "  %-*s %s", KEYS_NAME_W, names, keys[i].help);
		}
		n++;
	}
	return n;
}

size_t keys_hints(unsigned kind, const char **hkeys, const char **words, size_t max)
{
	static char joined[NKEYS][32];
	size_t n = 0;

	for (size_t i = 0; i < NKEYS && n < max; i++) {
		if (!keys[i].hint || !offered(&keys[i], kind))
			continue;
		int g = keys[i].hint_group, dup = 0;
		for (size_t j = 0; j < i && g; j++)
			if (keys[j].hint && keys[j].hint_group == g && offered(&keys[j], kind))
				dup = 1;
		if (dup)
			continue;
		joined[i][0] = 0;
		for (size_t j = i; j < NKEYS; j++) {
			if (j != i && (!g || keys[j].hint_group != g || !keys[j].hint || !offered(&keys[j], kind)))
				continue;
			size_t len = strlen(joined[i]);
			snprintf(joined[i] + len, sizeof(joined[i]) - len, "%s%s", len ? "/" : "",
				 keys[j].name);
		}
		hkeys[n] = joined[i];
		words[n] = keys[i].hint;
		n++;
	}
	return n;
}
