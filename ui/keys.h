/* keys: the one key table {key, action, help}. It drives the key handling,
 * the help screen and the hint line, so they cannot disagree. */
#ifndef SPACETIME_KEYS_H
#define SPACETIME_KEYS_H

#include <stddef.h>

enum key_action {
	ACT_NONE = 0,
	ACT_QUIT,
	ACT_HELP,
	ACT_PAUSE,
	ACT_ZOOM_IN,
	ACT_ZOOM_OUT,
	ACT_PAN_LEFT,
	ACT_PAN_RIGHT,
	ACT_LIVE,
	ACT_CURSOR,
	ACT_CURSOR_LEFT,
	ACT_CURSOR_RIGHT,
	ACT_CURSOR_LEFT_FAR,
	ACT_CURSOR_RIGHT_FAR,
	ACT_FOCUS_NEXT,
	ACT_FOCUS_PREV,
	ACT_SORT,
	ACT_SORT_REVERSE,
	ACT_FINISHED,
	ACT_OUTPUT,
	ACT_RSS,
	ACT_GLYPHS,
	ACT_CMDLINE,
	ACT_UP,
	ACT_DOWN,
	ACT_PAGE_UP,
	ACT_PAGE_DOWN,
	ACT_TOP,
	ACT_INTERRUPT,
	ACT_REDRAW,
	ACT_EXPORT,
	ACT_TYPE,
	ACT_PEAK,
	ACT_SEARCH,
	ACT_SEARCH_NEXT,
	ACT_FILTER,
	ACT_FOLD,
	ACT_MAPS,
	ACT_LINE,
	ACT_PAUSE_JOB,
	ACT_COUNT /* not an action: how many there are */
};

/* The kinds of run a key acts in (a key offered only where it can act). */
enum {
	KEYS_SPAWNED = 1,  /* a command spawned: live, with a present */
	KEYS_ATTACHED = 2, /* processes attached to: live, not ours */
	KEYS_REPLAY = 4,   /* a recording: no present */
	KEYS_LIVE = KEYS_SPAWNED | KEYS_ATTACHED,
	KEYS_ALL = KEYS_LIVE | KEYS_REPLAY,
};

struct key_binding {
	int key;                /* a character, or TERM_FN | KEY_* */
	enum key_action action;
	const char *name;       /* how the help writes the key */
	const char *help;       /* one line for the help screen, NULL for aliases */
	const char *hint;       /* a word for the hint line, or NULL */
	int hint_group;         /* bindings sharing a group share one hint: "+/- zoom" */
	unsigned kinds;         /* KEYS_*: the runs it is offered in (0: all) */
};

/* The table, in help order. */
const struct key_binding *keys_table(size_t *n);
/* The action bound to a key code, or ACT_NONE (in any kind of run: a key
 * not offered in this one says why it cannot act). */
enum key_action keys_lookup(int key);
/* The key names bound to an action in a run of kind, joined by ", " (for
 * prompts and help). */
void keys_names(enum key_action a, unsigned kind, char *buf, size_t cap);
/* The help screen of a run of kind: line i of n (key names padded, then the
 * help text). Returns the number of lines when buf is NULL. */
size_t keys_help_line(unsigned kind, size_t i, char *buf, size_t cap);
/* The hint line of a run of kind: "q quit  ? help  space pause ..." as
 * pairs; returns the number of hints and fills keys[i] / words[i] (pointers
 * into static text). */
size_t keys_hints(unsigned kind, const char **keys, const char **words, size_t max);

#endif
