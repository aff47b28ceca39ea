/* caps: what privileges spacetime holds, what they enable, and dropping them
 * (least privilege) before the options are parsed or the command is forked. */
#ifndef SPACETIME_CAPS_H
#define SPACETIME_CAPS_H

#include <stddef.h>
#include <sys/types.h>

enum caps_kind {
	CAPS_NONE = 0, /* an ordinary user: no capabilities */
	CAPS_SUDO,     /* real uid 0 run by sudo, run0, doas or pkexec for another user */
	CAPS_ROOT,     /* really root (no sudo): the command runs as root */
	CAPS_FILE,     /* a non-root user holding file capabilities */
	CAPS_SETUID,   /* a set-user-ID or set-group-ID binary: back to the real ids */
};

struct caps_state {
	enum caps_kind kind;
	int net_admin;   /* CAP_NET_ADMIN is effective or can be raised */
	uid_t uid;       /* who the command will run as */
	gid_t gid;
	char user[64];   /* SUDO_USER or DOAS_USER when kind == CAPS_SUDO */
	const char *var; /* the variable that named the user (SUDO_UID, PKEXEC_UID,
			  * DOAS_USER), or at fault when caps_probe failed */
	const char *var2; /* -ENOTUNIQ: the other variable */
	long login_uid;  /* -ESTALE: the session's login uid */
	int dropped;     /* caps_drop() succeeded */
};

/* Finds out who we are and what we hold. As root, the user to become is the
 * one the elevation tool's variables name: SUDO_UID (sudo, run0; SUDO_GID,
 * else that user's group), PKEXEC_UID (pkexec) or DOAS_USER (doas, a name).
 * Such a claim is trusted only when the session's login uid
 * (/proc/self/loginuid) is unset or the same user, or the parent process is
 * sudo, doas or pkexec running as root. Returns 0 or -errno: -EINVAL when
 * cs->var does not parse or name a user, -ENOTUNIQ when cs->var and cs->var2
 * name different users, -ESTALE when the login uid (cs->login_uid) is
 * another user's: a variable left in a root shell's environment. */
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
