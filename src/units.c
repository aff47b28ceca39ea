/* units.c: sizes as people read them (units.h). */
#include "units.h"

#include <stdio.h>

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
