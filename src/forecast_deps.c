/* forecast_deps.c: the recorded -j and the dependencies a -jN recording
 * shows (forecast_tree.h). */
#include "forecast_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forecast_rec.h"

#define FD_ARGS 1024

/* A whole number at s (the rest ignored), FORECAST_SLOTS_MAX + 1 past it
 * (a -j of 99999 is one past the most a forecast runs, not none), or -1. */
static long number(const char *s)
{
	long v = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((v = v * 10 + (*s - '0')) > FORECAST_SLOTS_MAX)
			v = FORECAST_SLOTS_MAX + 1;
	return v;
}

/* The value of -j in a MAKEFLAGS value ("-j4 -s", "j4", "ks -j4
 * --jobserver-auth=3,4", "--jobs=4", "-j 4"): the first word's letters are
 * short options with or without a dash (GNU make writes them so), any
 * other word is an option only when it begins with a dash (objdir=x is a
 * variable, its j no -j), and "--" ends the options. Returns the slots (0:
 * unlimited) or -1 for none. */
static long makeflags_jobs(const char *v)
{
	char next[16];
	for (const char *w = v; *w; w += strcspn(w, " \"'")) {
		int first = w == v;
		w += strspn(w, " \"'");
		size_t len = strcspn(w, " \"'");
		if (!len || (len == 2 && !strncmp(w, "--", 2)))
			break;
		/* the word after, for -j 4 and --jobs 4 */
		const char *n = w + len + strspn(w + len, " \"'");
		snprintf(next, sizeof(next), "%.*s", (int)strcspn(n, " \"'"), n);
		if (!strncmp(w, "--jobs=", 7))
			return number(w + 7);
		if (len == 6 && !strncmp(w, "--jobs", 6))
			return number(next) >= 0 ? number(next) : 0;
		if (w[0] == '-' ? w[1] == '-' : !first || memchr(w, '=', len))
			continue; /* a long option, a variable, a word of neither */
		for (const char *c = w[0] == '-' ? w + 1 : w; c < w + len; c++) {
			if (*c == 'j' && c + 1 < w + len)
				return c[1] >= '0' && c[1] <= '9' ? number(c + 1) : 0;
			if (*c == 'j')
				return number(next) >= 0 ? number(next) : 0;
			if (w[0] == '-' && strchr("CfIoWEl", *c))
				break; /* the rest is that option's value */
		}
	}
	return -1;
}

/* -j in one word of make's command line (a cluster of short options:
 * -kj4, -j, -j4; --jobs, --jobs=4), the next word the value when apart.
 * Returns the slots (0: unlimited), -1 for none; *used: the next word
 * was its value. */
static long make_word(const char *w, const char *next, int *used)
{
	*used = 0;
	if (!strncmp(w, "--jobs=", 7))
		return number(w + 7);
	if (!strcmp(w, "--jobs") || (w[0] == '-' && w[1] != '-')) {
		const char *c = w[1] == '-' ? w + 6 : w + 1;
		for (; w[1] != '-' && *c && *c != 'j'; c++)
			if (strchr("CfIoWEl", *c))
				return -1; /* the rest is that option's value */
		if (w[1] != '-' && *c != 'j')
			return -1;
		if (w[1] != '-' && c[1])
			return number(c + 1);
		if (next && number(next) >= 0) {
			*used = 1;
			return number(next);
		}
		return 0;
	}
	return -1;
}

/* -j N, -jN (ninja, samu, cargo), --jobs N and --jobs=N (cargo). */
static long other_word(const char *w, const char *next, int *used)
{
	*used = 0;
	if (!strncmp(w, "--jobs=", 7))
		return number(w + 7);
	if (!strncmp(w, "-j", 2) && w[2])
		return number(w + 2);
	if ((!strcmp(w, "-j") || !strcmp(w, "--jobs")) && next) {
		*used = 1;
		return number(next);
	}
	return -1;
}

int forecast_tree_jobs_arg(const char *tool, const char *const *argv, size_t argc, unsigned *slots, char *word,
			   size_t cap)
{
	int is_make = strstr(tool, "make") != NULL;

	for (size_t i = 1; i < argc; i++) {
		const char *w = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(w, "--"))
			break;
		int used = 0;
		long v = !strncmp(w, "MAKEFLAGS=", 10) ? makeflags_jobs(w + 10)
			 : is_make                    ? make_word(w, next, &used)
						      : other_word(w, next, &used);
		if (v < 0)
			continue;
		*slots = v > FORECAST_SLOTS_MAX ? FORECAST_SLOTS_MAX : (unsigned)v;
		snprintf(word, cap, "%.24s%s%.6s", w, used ? " " : "", used ? next : "");
		return 1;
	}
	return 0;
}

/* Process i's argv split into words (pointers into buf). Returns how many. */
static size_t words_of(const struct forecast_tree *t, size_t i, char *buf, size_t cap, const char **w)
{
	const struct proc_rec *p = &t->p[i];
	ssize_t len = p->argv_id && (p->valid & PROC_V_ARGV) ? store_str_get(t->st, p->argv_id, buf, cap - 1) : 0;
	size_t n = 0, l = len <= 0 ? 0 : (size_t)len < cap - 1 ? (size_t)len : cap - 1;

	buf[l] = 0;
	for (size_t k = 0; k < l && n < FD_ARGS; k += strlen(buf + k) + 1)
		w[n++] = buf + k;
	return n;
}

/* The -j of the outermost tool's command line, or a MAKEFLAGS=... in its
 * ancestors' (env MAKEFLAGS=-j4 make; sh -c 'MAKEFLAGS=-j4 make'). */
static int slots_said(struct forecast_tree *t, unsigned *slots)
{
	static char buf[65536];
	static const char *w[FD_ARGS];
	size_t top = FORECAST_TREE_NONE;

	for (size_t i = 0; i < t->n; i++)
		if (t->tool[i] == 1 && (top == FORECAST_TREE_NONE || t->tin[i] < t->tin[top]))
			top = i;
	if (!t->tool_name[0] || top == FORECAST_TREE_NONE)
		return 0;
	size_t n = words_of(t, top, buf, sizeof(buf), w);
	if (forecast_tree_jobs_arg(t->tool_name, w, n, slots, t->slots_word, sizeof(t->slots_word)))
		return 1;
	/* n steps at most: the links form no circle (proctree.h), and this
	 * walk does not lean on it */
	size_t steps = 0;
	for (size_t a = t->parent[top]; a != FORECAST_TREE_NONE && steps++ < t->n; a = t->parent[a]) {
		n = words_of(t, a, buf, sizeof(buf), w);
		for (size_t k = 0; k < n; k++) {
			const char *m = strstr(w[k], "MAKEFLAGS=");
			long v = m ? makeflags_jobs(m + 10) : -1;
			if (v >= 0) {
				*slots = v > FORECAST_SLOTS_MAX ? FORECAST_SLOTS_MAX : (unsigned)v;
				snprintf(t->slots_word, sizeof(t->slots_word), "%.31s", m);
				char *sp = strchr(t->slots_word, ' ');
				if (sp)
					*sp = 0;
				return 1;
			}
		}
	}
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/* The jobs' starts and ends, each sorted (barriers left out). Returns how
 * many jobs, or -ENOMEM. */
static ssize_t spans(const struct forecast_tree *t, uint64_t **starts, uint64_t **ends)
{
	size_t k = 0;
	*starts = malloc((t->nj + 1) * sizeof(**starts));
	*ends = malloc((t->nj + 1) * sizeof(**ends));
	if (!*starts || !*ends)
		return -ENOMEM;
	for (size_t j = 0; j < t->nj; j++)
		if (t->jobs[j].root != FORECAST_TREE_NONE) {
			(*starts)[k] = t->jobs[j].start_ns;
			(*ends)[k++] = t->jobs[j].end_ns;
		}
	qsort(*starts, k, sizeof(**starts), cmp_u64);
	qsort(*ends, k, sizeof(**ends), cmp_u64);
	return (ssize_t)k;
}

/* How many of the sorted v[0..n) are below x. */
static size_t below(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (v[m] < x)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

int forecast_tree_slots(struct forecast_tree *t)
{
	uint64_t *s = NULL, *e = NULL;
	ssize_t n = spans(t, &s, &e);
	unsigned said = 0;

	if (n < 0) {
		free(s);
		free(e);
		return (int)n;
	}
	/* the most at once: just after some start */
	t->most = 0;
	for (ssize_t k = 0; k < n; k++) {
		size_t run = below(s, (size_t)n, s[k] + 1) - below(e, (size_t)n, s[k] + 1);
		if (run > t->most)
			t->most = (unsigned)run;
	}
	free(s);
	free(e);
	if (slots_said(t, &said)) {
		t->slots_from = FORECAST_FROM_ARGV;
		t->slots_said = said;
		t->slots = said && t->most > said ? t->most : said;
	} else {
		t->slots_from = FORECAST_FROM_MOST;
		t->slots = t->most ? t->most : 1;
	}
	return 0;
}

/* Whether a slot was free when each of the ends e[0..n) (sorted) came:
 * fewer jobs than the slots ran just before it, into fr[k]. Ends close
 * together with no start between (each within refill_ns of the next) are
 * one: a slot the first of them freed microseconds before the last is not
 * free, the tool has not had the time to refill it; so the jobs running
 * are counted before the first of them. */
static void slots_free(const struct forecast_tree *t, const uint64_t *s, const uint64_t *e, size_t n,
		       unsigned char *fr)
{
	uint64_t c = 0; /* where the cluster of e[k] began */
	for (size_t k = 0; k < n; k++) {
		if (!k || e[k] - e[k - 1] > t->refill_ns || below(s, n, e[k]) != below(s, n, e[k - 1]))
			c = e[k];
		size_t run = below(s, n, c) - below(e, n, c); /* the job ending at e[k] counted */
		fr[k] = t->slots == 0 || run < t->slots;
	}
}

static int by_end(const void *x, const void *y, void *arg)
{
	const struct forecast_tree_job *v = arg;
	uint64_t a = v[*(const size_t *)x].end_ns, b = v[*(const size_t *)y].end_ns;
	return (a > b) - (a < b);
}

int forecast_tree_edge_add(struct forecast_tree *t, size_t *cap, size_t job, size_t on)
{
	if (t->ne == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		struct forecast_tree_edge *v = realloc(t->edges, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->edges = v;
		*cap = nc;
	}
	t->edges[t->ne++] = (struct forecast_tree_edge){(uint32_t)job, (uint32_t)on};
	return 0;
}

int forecast_tree_deps(struct forecast_tree *t)
{
	uint64_t *s = NULL, *e = NULL;
	ssize_t n = spans(t, &s, &e);
	size_t cap = t->ne, *by = n < 0 ? NULL : malloc((t->nj + 1) * sizeof(*by)), nb = 0;
	unsigned char *fr = n < 0 ? NULL : malloc(t->nj + 1);
	int r = n < 0 || !by || !fr ? -ENOMEM : 0;

	t->ndeps_seen = 0;
	for (size_t j = 0; r == 0 && j < t->nj; j++)
		if (t->jobs[j].root != FORECAST_TREE_NONE)
			by[nb++] = j;
	if (r == 0) {
		qsort_r(by, nb, sizeof(*by), by_end, t->jobs);
		slots_free(t, s, e, nb, fr); /* fr[q]: job by[q]'s end, e[q] */
	}
	/* a -j1 recording shows no dependency: each job followed the one
	 * before; at -jN, a job that started as another ended while a slot was
	 * free had waited on it (on the FORECAST_TREE_DEPS_MAX that ended last
	 * at most: the edges stay linear in the jobs) */
	for (size_t j = 0; r == 0 && t->slots != 1 && j < t->nj; j++) {
		const struct forecast_tree_job *a = &t->jobs[j];
		if (a->root == FORECAST_TREE_NONE)
			continue;
		uint64_t from = a->start_ns > t->window_ns ? a->start_ns - t->window_ns : 0;
		size_t lo = below(e, nb, from), q = a->start_ns < UINT64_MAX ? below(e, nb, a->start_ns + 1) : nb, k = 0;
		while (q-- > lo && k < FORECAST_TREE_DEPS_MAX && r == 0)
			if (by[q] < j && fr[q] && (r = forecast_tree_edge_add(t, &cap, j, by[q])) == 0) {
				t->ndeps_seen++;
				k++;
			}
	}
	free(fr);
	free(by);
	free(s);
	free(e);
	return r;
}
