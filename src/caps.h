/* caps: what privileges spacetime holds, what they enable, and dropping them
 * (least privilege) before anything else is parsed or the command is forked. */
#ifndef SPACETIME_CAPS_H
#define SPACETIME_CAPS_H

#include <stddef.h>
#include <sys/types.h>

enum caps_kind {
	CAPS_NONE = 0, /* an ordinary user: no capabilities */
	CAPS_SUDO,     /* real uid 0 with SUDO_UID naming another user */
	CAPS_ROOT,     /* really root (no sudo): the command runs as root */
	CAPS_FILE,     /* a non-root user holding file capabilities */
	CAPS_SETUID,   /* a set-user-ID or set-group-ID binary: back to the real ids */
};

struct caps_state {
	enum caps_kind kind;
	int net_admin;   /* CAP_NET_ADMIN is effective or can be raised */
	uid_t uid;       /* who the command will run as */
	gid_t gid;
	char user[64];   /* SUDO_USER when kind == CAPS_SUDO */
	int dropped;     /* caps_drop() succeeded */
};

/* Finds out who we are and what we hold. Returns 0 or -errno (-EINVAL for a
 * SUDO_UID/SUDO_GID that does not parse). */
int caps_probe(struct caps_state *cs);
/* Raises CAP_NET_ADMIN into the effective set if it is permitted (file caps may
 * be permitted but not effective). Returns 0 or -EPERM. */
int caps_raise_net_admin(void);
/* Drops every privilege the command must not have: under sudo become the
 * invoking user (with that user's groups), with file capabilities clear all
 * sets and ambient capabilities; real root keeps root. Verifies the result.
 * Returns 0 or -errno. */
int caps_drop(struct caps_state *cs);
/* Clears ambient and inheritable capabilities (used in the child before exec). */
void caps_clear_inheritable(void);
/* The effective capability set as text ("=" when empty); buf gets NUL. */
void caps_text(char *buf, size_t cap);

#endif
