/* config.c: the user's defaults (config.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recdir.h"
#include "textsafe.h"

/* The file is small: more than this is not a config file. */
#define CONFIG_MAX_BYTES 65536

static const char *const onoff[] = {"off", "on", NULL};
static const char *const colors[] = {"never", "auto", NULL};
static const char *const glyphs[] = {"braille", "block", "ascii", NULL};

/* A key: a number within [lo, hi] (words NULL), or one of words (its
 * index). */
struct config_key {
	const char *name;
	const char *const *words;
	double lo, hi;
	int integer;
};
static const struct config_key keys[] = {
	{"interval", NULL, 10, 60000, 1}, {"fps", NULL, 0.2, 30, 0},     {"budget", NULL, 0.01, 100, 0},
	{"top", NULL, 0, 1000, 1},        {"color", colors, 0, 0, 0},    {"glyphs", glyphs, 0, 0, 0},
	{"rss_line", onoff, 0, 0, 0},     {"output_pane", onoff, 0, 0, 0}, {"mouse", onoff, 0, 0, 0},
};

static void store_value(struct config *c, size_t k, double v)
{
	switch (k) {
	case 0: c->interval_ms = (long)v; break;
	case 1: c->fps = v; break;
	case 2: c->budget = v; break;
	case 3: c->top = (long)v; break;
	case 4: c->color = (int)v; break;
	case 5: c->glyphs = (int)v; break;
	case 6: c->rss_line = (int)v; break;
	case 7: c->output_pane = (int)v; break;
	default: c->mouse = (int)v; break;
	}
}

/* The value of key k in v: 0 with *out, or -1 with why in msg. */
static int parse_value(const struct config_key *k, const char *v, double *out, char *msg, size_t cap)
{
	if (k->words) {
		for (int i = 0; k->words[i]; i++)
			if (!strcmp(v, k->words[i])) {
				*out = i;
				return 0;
			}
		int n = snprintf(msg, cap, "expected");
		for (int i = 0; k->words[i] && n > 0 && (size_t)n < cap; i++)
			n += snprintf(msg + n, cap - (size_t)n, "%s %s", i ? " or" : "", k->words[i]);
		return -1;
	}
	char *end;
	errno = 0;
	double d = k->integer ? (double)strtol(v, &end, 10) : strtod(v, &end);
	if (errno || end == v || *end || !(d >= k->lo && d <= k->hi)) {
		snprintf(msg, cap, "expected %s from %g to %g", k->integer ? "a whole number" : "a number", k->lo, k->hi);
		return -1;
	}
	*out = d;
	return 0;
}

/* One line (NUL-terminated, no newline): 0, or -1 with why in msg. */
static int parse_line(char *line, struct config *c, char *msg, size_t cap)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	char *s = line, *e = line + strlen(line);
	while (isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	if (!*s)
		return 0;
	char *eq = strchr(s, '=');
	if (!eq) {
		snprintf(msg, cap, "not key = value");
		return -1;
	}
	char *ke = eq, *v = eq + 1;
	while (ke > s && isspace((unsigned char)ke[-1]))
		ke--;
	*ke = 0;
	while (isspace((unsigned char)*v))
		v++;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (strcmp(s, keys[k].name))
			continue;
		double d;
		char why[96];
		if (parse_value(&keys[k], v, &d, why, sizeof(why)) < 0) {
			char shown[48];
			textsafe_str(v, strlen(v), shown, sizeof(shown), 0);
			snprintf(msg, cap, "%s = '%s': %s", keys[k].name, shown, why);
			return -1;
		}
		store_value(c, k, d);
		return 0;
	}
	char shown[48];
	textsafe_str(s, strlen(s), shown, sizeof(shown), 0);
	snprintf(msg, cap, "unknown key '%s'", shown);
	return -1;
}

int config_parse(const char *text, size_t len, const char *name, struct config *c,
		 void (*warn)(void *, const char *), void *arg)
{
	int warnings = 0, lineno = 0;

	*c = (struct config){-1, -1, -1, -1, -1, -1, -1, -1, -1};
	for (size_t i = 0; i < len;) {
		size_t n = 0;
		while (i + n < len && text[i + n] != '\n')
			n++;
		lineno++;
		char line[512], msg[256], out[1024];
		if (n >= sizeof(line) || memchr(text + i, 0, n)) {
			snprintf(msg, sizeof(msg), "%s", n >= sizeof(line) ? "a line too long" : "a NUL byte");
		} else {
			memcpy(line, text + i, n);
			line[n] = 0;
			msg[0] = 0;
			parse_line(line, c, msg, sizeof(msg));
		}
		if (msg[0]) {
			snprintf(out, sizeof(out), "%s:%d: %s (ignored)", name, lineno, msg);
			warn(arg, out);
			warnings++;
		}
		i += n + 1;
	}
	return warnings;
}

int config_path(char *buf, size_t cap)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h;
	int n;

	/* as the recordings' directory: only the user's own (root with a user's
	 * environment, a user with root's HOME read neither's) */
	struct stat sb;
	if (x && *x == '/' && stat(x, &sb) == 0 && recdir_ours(x))
		n = snprintf(buf, cap, "%s/spacetime/config", x);
	else if ((h = recdir_home()))
		n = snprintf(buf, cap, "%s/.config/spacetime/config", h);
	else
		return -1;
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

int config_load(const char *path, struct config *c, void (*warn)(void *, const char *), void *arg)
{
	char msg[1200];
	struct stat sb;

	*c = (struct config){-1, -1, -1, -1, -1, -1, -1, -1, -1};
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(msg, sizeof(msg), "%s: cannot read it: %s (ignored)", path, strerror(errno));
		warn(arg, msg);
		return 1;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size > CONFIG_MAX_BYTES) {
		snprintf(msg, sizeof(msg), "%s: not a regular file of at most 64 KiB (ignored)", path);
		close(fd);
		warn(arg, msg);
		return 1;
	}
	/* the user's own, or root's, and written by no one else */
	if ((sb.st_uid != getuid() && sb.st_uid != 0) || (sb.st_mode & 022)) {
		snprintf(msg, sizeof(msg), "%s: %s (ignored)", path,
			 sb.st_mode & 022 ? "others may write it" : "not yours");
		close(fd);
		warn(arg, msg);
		return 1;
	}
	char *text = malloc((size_t)sb.st_size + 1);
	ssize_t got = text ? read(fd, text, (size_t)sb.st_size) : -1;
	close(fd);
	int r = got >= 0 ? config_parse(text, (size_t)got, path, c, warn, arg) : 0;
	if (got < 0) {
		snprintf(msg, sizeof(msg), "%s: cannot read it (ignored)", path);
		warn(arg, msg);
		r = 1;
	}
	free(text);
	return r;
}
