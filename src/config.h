/* config: the user's defaults, $XDG_CONFIG_HOME/spacetime/config (or
 * ~/.config/spacetime/config): a few "key = value" lines, # comments and
 * blank lines. A bad line is one warning naming the file and line, and is
 * ignored; a file that cannot be read is one warning too (none when there is
 * no file). Options given on the command line win over it. */
#ifndef SPACETIME_CONFIG_H
#define SPACETIME_CONFIG_H

#include <stddef.h>

/* Each field: -1 (or < 0) when the file does not set it. */
struct config {
	long interval_ms; /* interval = MS (10..60000) */
	double fps;       /* fps = N (0.2..30) */
	double budget;    /* budget = PCT (0.01..100) */
	long top;         /* top = N (0..1000): the summary's heaviest jobs */
	int color;        /* color = auto | never (0: never, as NO_COLOR) */
	int glyphs;       /* glyphs = braille | block | ascii (graph_style's order) */
	int rss_line;     /* rss_line = on | off */
	int output_pane;  /* output_pane = on | off */
	int mouse;        /* mouse = on | off (the dashboard's clicks and wheel) */
};

/* Parses text (len bytes) named name into *c (all unset first); warn(arg,
 * line) is called with one line for each bad line ("FILE:N: ..."). Returns
 * the number of warnings. */
int config_parse(const char *text, size_t len, const char *name, struct config *c,
		 void (*warn)(void *, const char *), void *arg);

/* The config file's path into buf ($XDG_CONFIG_HOME or the home's
 * .config, each only when it is the user's own): 0, or -1 when there is
 * none. */
int config_path(char *buf, size_t cap);

/* Reads the file at path into *c (unset when there is none). Returns the
 * number of warnings given. */
int config_load(const char *path, struct config *c, void (*warn)(void *, const char *), void *arg);

#endif
