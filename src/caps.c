/* caps.c: privilege probing and dropping with libcap. */
#include "caps.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Parses a decimal id from the environment; -EINVAL when malformed. */
static int env_id(const char *name, unsigned long *out)
{
	const char *v = getenv(name);
	char *end;

	if (!v || !*v)
		return -ENOENT;
	errno = 0;
	unsigned long x = strtoul(v, &end, 10);
	if (errno || *end || x >= UINT32_MAX)
		return -EINVAL;
	*out = x;
	return 0;
}

/* Tells whether cap is in the given set of the current process. */
static int have_cap(cap_value_t cap, cap_flag_t set)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t c = cap_get_proc();

	if (!c)
		return 0;
	cap_get_flag(c, cap, set, &v);
	cap_free(c);
	return v == CAP_SET;
}

int caps_probe(struct caps_state *cs)
{
	unsigned long su, sg;

	memset(cs, 0, sizeof(*cs));
	cs->uid = getuid();
	cs->gid = getgid();
	cs->net_admin = have_cap(CAP_NET_ADMIN, CAP_PERMITTED);
	if (getuid() == 0) {
		int r = env_id("SUDO_UID", &su);
		if (r == -EINVAL)
			return -EINVAL;
		if (r == 0 && su != 0) {
			if (env_id("SUDO_GID", &sg) != 0) {
				struct passwd *pw = getpwuid((uid_t)su);
				if (!pw)
					return -EINVAL;
				sg = pw->pw_gid;
			}
			cs->kind = CAPS_SUDO;
			cs->uid = (uid_t)su;
			cs->gid = (gid_t)sg;
			const char *u = getenv("SUDO_USER");
			if (u)
				snprintf(cs->user, sizeof(cs->user), "%s", u);
			return 0;
		}
		cs->kind = CAPS_ROOT;
		return 0;
	}
	if (geteuid() != getuid() || getegid() != getgid())
		cs->kind = CAPS_SETUID;
	else
		cs->kind = cs->net_admin ? CAPS_FILE : CAPS_NONE;
	return 0;
}

int caps_raise_net_admin(void)
{
	cap_value_t v = CAP_NET_ADMIN;
	cap_t c = cap_get_proc();
	int r = 0;

	if (!c)
		return -errno;
	if (cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET) || cap_set_proc(c))
		r = -EPERM;
	cap_free(c);
	return r;
}

/* Sets the supplementary groups of the invoking user (or just gid), however
 * many: getgrouplist says how many there are when the array is too small. */
static int set_user_groups(const struct caps_state *cs)
{
	struct passwd *pw = getpwuid(cs->uid);
	gid_t *groups = NULL;
	int n = 256, r;

	for (int tries = 0; pw && tries < 4; tries++) {
		gid_t *g = realloc(groups, (size_t)n * sizeof(*g));
		if (!g) {
			free(groups);
			return -ENOMEM;
		}
		groups = g;
		int want = n;
		if (getgrouplist(pw->pw_name, cs->gid, groups, &n) >= 0) {
			r = setgroups((size_t)n, groups) ? -errno : 0;
			free(groups);
			return r;
		}
		if (n <= want) /* no count to retry with */
			n = want * 2;
	}
	free(groups);
	return setgroups(1, &cs->gid) ? -errno : 0;
}

void caps_clear_inheritable(void)
{
	cap_t c = cap_get_proc();

	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (c) {
		cap_clear_flag(c, CAP_INHERITABLE);
		cap_set_proc(c);
		cap_free(c);
	}
}

/* Tells whether the permitted, effective and ambient sets are all empty. */
static int caps_empty(void)
{
	cap_t c = cap_get_proc();
	cap_t e = cap_init();
	int empty = c && e && cap_compare(c, e) == 0;

	cap_free(c);
	cap_free(e);
	for (int i = 0; empty && i <= CAP_LAST_CAP; i++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, i, 0, 0) == 1)
			empty = 0;
	return empty;
}

int caps_drop(struct caps_state *cs)
{
	int r;

	switch (cs->kind) {
	case CAPS_ROOT:
		return 0;
	case CAPS_SUDO:
		if ((r = set_user_groups(cs)) < 0)
			return r;
		if (setresgid(cs->gid, cs->gid, cs->gid) || setresuid(cs->uid, cs->uid, cs->uid))
			return -errno;
		/* Leaving uid 0 cleared permitted and effective; clear the rest. */
		caps_clear_inheritable();
		if (setuid(0) == 0)
			return -EPERM; /* root could be regained: refuse to go on */
		break;
	case CAPS_SETUID:
		if (setresgid(cs->gid, cs->gid, cs->gid) || setresuid(cs->uid, cs->uid, cs->uid))
			return -errno;
		/* then clear whatever capabilities are left */
		__attribute__((fallthrough));
	case CAPS_FILE:
	case CAPS_NONE: {
		cap_t c = cap_init();
		if (!c)
			return -errno;
		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
		r = cap_set_proc(c) ? -errno : 0;
		cap_free(c);
		if (r < 0)
			return r;
		break;
	}
	}
	/* The sockets opened with privilege stay open for the whole run (the
	 * taskstats one sees every task's exit on the machine): stay undumpable,
	 * so no other process of the user can ptrace us or pidfd_getfd() them.
	 * Changing uid made us undumpable only if fs.suid_dumpable is 0. The
	 * command gets its own dumpable flag when it execs. */
	if (cs->kind != CAPS_ROOT && cs->kind != CAPS_NONE &&
	    (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0))
		return -EPERM;
	if (!caps_empty() || geteuid() != cs->uid || getegid() != cs->gid || getuid() != cs->uid ||
	    (cs->uid != 0 && setuid(0) == 0))
		return -EPERM;
	cs->dropped = 1;
	return 0;
}

void caps_text(char *buf, size_t cap)
{
	cap_t c = cap_get_proc();
	char *t = c ? cap_to_text(c, NULL) : NULL;

	snprintf(buf, cap, "%s", t ? t : "?");
	cap_free(t);
	cap_free(c);
}
