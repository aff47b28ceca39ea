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
#include <sys/stat.h>
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

/* The elevation tools and what each leaves in the command's environment
 * about who ran it: sudo and systemd's run0 set SUDO_UID (with SUDO_GID and
 * SUDO_USER), pkexec sets PKEXEC_UID, doas sets DOAS_USER (a name). */
enum { CLAIM_SUDO, CLAIM_PKEXEC, CLAIM_DOAS, CLAIMS };
static const char *const claim_var[CLAIMS] = {"SUDO_UID", "PKEXEC_UID", "DOAS_USER"};

/* Reads one tool's claim: 0 with *uid and *gid set, -ENOENT when absent, -EINVAL
 * when it names no user. */
static int claim_read(int which, uid_t *uid, gid_t *gid)
{
	unsigned long id, g;
	struct passwd *pw;
	int r;

	if (which == CLAIM_DOAS) {
		const char *name = getenv("DOAS_USER");
		if (!name || !*name)
			return -ENOENT;
		if (!(pw = getpwnam(name)))
			return -EINVAL;
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
		return 0;
	}
	if ((r = env_id(claim_var[which], &id)) < 0)
		return r;
	*uid = (uid_t)id;
	if (which == CLAIM_SUDO && (r = env_id("SUDO_GID", &g)) != -ENOENT) {
		if (r < 0)
			return -EINVAL;
		*gid = (gid_t)g;
		return 0;
	}
	if (id == 0) {
		*gid = 0;
		return 0;
	}
	if (!(pw = getpwuid((uid_t)id)))
		return -EINVAL;
	*gid = pw->pw_gid;
	return 0;
}

/* The audit login uid of this session (/proc/self/loginuid): who logged in,
 * kept across sudo, su and doas; CAPS_NO_LOGINUID when unset or unknown. */
#define CAPS_NO_LOGINUID UINT32_MAX
static uint32_t login_uid(void)
{
	char buf[16] = "";
	FILE *f = fopen("/proc/self/loginuid", "re");
	unsigned long v;
	char *end;

	if (!f)
		return CAPS_NO_LOGINUID;
	int ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	errno = 0;
	v = ok ? strtoul(buf, &end, 10) : ULONG_MAX;
	if (!ok || errno || end == buf || v > UINT32_MAX)
		return CAPS_NO_LOGINUID;
	return (uint32_t)v;
}

/* Whether our parent is an elevation tool running as root (sudo and pkexec
 * stay as the parent of what they run unless told otherwise). */
static int parent_is_tool(void)
{
	char path[64], comm[32] = "";
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d", (int)getppid());
	if (stat(path, &st) < 0 || st.st_uid != 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)getppid());
	if (!(f = fopen(path, "re")))
		return 0;
	int ok = fgets(comm, sizeof(comm), f) != NULL;
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return ok && (!strcmp(comm, "sudo") || !strcmp(comm, "doas") || !strcmp(comm, "pkexec"));
}

int caps_probe(struct caps_state *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->uid = getuid();
	cs->gid = getgid();
	cs->login_uid = -1;
	cs->net_admin = have_cap(CAP_NET_ADMIN, CAP_PERMITTED);
	if (getuid() == 0) {
		int found = -1;
		uid_t u = 0;
		gid_t g = 0;

		for (int i = 0; i < CLAIMS; i++) {
			uid_t ui;
			gid_t gi;
			int r = claim_read(i, &ui, &gi);
			if (r == -ENOENT)
				continue;
			cs->var = claim_var[i];
			if (r < 0)
				return -EINVAL;
			if (found >= 0 && ui != u) {
				cs->var2 = claim_var[found];
				return -ENOTUNIQ;
			}
			if (found < 0) {
				found = i;
				u = ui;
				g = gi;
			}
		}
		if (found < 0 || u == 0) {
			cs->var = NULL;
			cs->kind = CAPS_ROOT;
			return 0;
		}
		cs->var = claim_var[found];
		cs->uid = u;
		/* A claim is only an environment variable, and a root shell
		 * keeps the ones of the sudo that started it (or of anything
		 * before): trust it when the session's login uid agrees, when
		 * there is none (no audit, a container), or when our parent is
		 * the tool itself. A stale one would give root's command, its
		 * environment and its files to that user: refuse. */
		uint32_t l = login_uid();
		if (l != CAPS_NO_LOGINUID && l != (uint32_t)u && !parent_is_tool()) {
			cs->login_uid = (long)l;
			return -ESTALE;
		}
		cs->kind = CAPS_SUDO;
		cs->gid = g;
		const char *name = found == CLAIM_SUDO ? getenv("SUDO_USER") :
				   found == CLAIM_DOAS ? getenv("DOAS_USER") : NULL;
		if (name)
			snprintf(cs->user, sizeof(cs->user), "%s", name);
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
