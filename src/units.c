/* units.c: sizes as people read them (units.h). */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void units_kib(char *buf, size_t cap, uint64_t kib)
{
	static const char *unit[] = {"KiB", "MiB", "GiB", "TiB"};
	double v = (double)kib;
	int u = 0;

	if (kib == 0) {
		snprintf(buf, cap, "0 B");
		return;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, cap, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, unit[u]);
}

int units_parse_kib(const char *s, uint64_t *kib)
{
	static const char units[] = "KMGT";
	char *end;

	if (!isdigit((unsigned char)*s) && *s != '.')
		return -EINVAL;
	double v = strtod(s, &end);
	if (end == s || !(v >= 0))
		return -EINVAL;
	while (*end == ' ')
		end++;
	const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
	if (!u)
		return -EINVAL;
	const char *rest = end + 1;
	if (strcasecmp(rest, "") && strcasecmp(rest, "B") && strcasecmp(rest, "iB"))
		return -EINVAL;
	for (const char *p = units; p < u; p++)
		v *= 1024; /* K: KiB already */
	if (v > (double)(1ull << 50))
		return -ERANGE;
	*kib = (uint64_t)(v + 0.5);
	return 0;
}
