/* showcreds: print one line with this process's credentials, read from
 * /proc/self/status:
 *   uid=U gid=G groups=G1,G2 CapInh=X CapPrm=X CapEff=X CapBnd=X CapAmb=X
 * uid and gid are the real ids; when the real, effective, saved and
 * filesystem ids differ, all four are printed (uid=R,E,S,F) so a half-done
 * privilege drop is visible. Cap values are the kernel's hex masks. */
#include <stdio.h>
#include <string.h>

/* Returns the ids on a Uid:/Gid: line as "R" or "R,E,S,F". */
static void ids(const char *val, char *out, size_t cap)
{
	unsigned long r, e, s, f;
	if (sscanf(val, "%lu %lu %lu %lu", &r, &e, &s, &f) != 4) {
		snprintf(out, cap, "?");
		return;
	}
	if (r == e && e == s && s == f)
		snprintf(out, cap, "%lu", r);
	else
		snprintf(out, cap, "%lu,%lu,%lu,%lu", r, e, s, f);
}

int main(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f) {
		perror("showcreds: /proc/self/status");
		return 1;
	}
	char uid[96] = "?", gid[96] = "?", groups[4096] = "";
	char cap[5][32] = { "?", "?", "?", "?", "?" };
	static const char *cap_names[5] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *val = colon + 1;
		val += strspn(val, " \t");
		if (!strcmp(line, "Uid")) {
			ids(val, uid, sizeof(uid));
		} else if (!strcmp(line, "Gid")) {
			ids(val, gid, sizeof(gid));
		} else if (!strcmp(line, "Groups")) {
			size_t n = 0;
			for (char *tok = strtok(val, " \t"); tok; tok = strtok(NULL, " \t"))
				n += (size_t)snprintf(groups + n, sizeof(groups) - n, "%s%s",
						      n ? "," : "", tok);
		} else {
			for (int i = 0; i < 5; i++)
				if (!strcmp(line, cap_names[i]))
					snprintf(cap[i], sizeof(cap[i]), "%s", val);
		}
	}
	fclose(f);
	printf("uid=%s gid=%s groups=%s", uid, gid, groups);
	for (int i = 0; i < 5; i++)
		printf(" %s=%s", cap_names[i], cap[i]);
	printf("\n");
	return fflush(stdout) ? 1 : 0;
}
