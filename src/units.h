/* units: sizes as people read them, the same in the summary, the dashboard
 * and the exports. */
#ifndef SPACETIME_UNITS_H
#define SPACETIME_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Formats kib as a size with three significant digits ("364 KiB",
 * "64.2 MiB", "3.29 GiB"; "0 B" for 0) into buf. */
void units_kib(char *buf, size_t cap, uint64_t kib);

/* Parses a size a person writes ("16G", "512M", "1.5GiB", "64 MiB",
 * "2048k"): a number, a fraction allowed, and its unit, K, M, G or T, with
 * or without B or iB after it, any case; every unit is a power of 1024.
 * Into *kib (rounded to the nearest KiB). Returns 0, -EINVAL (no number,
 * no unit, something after it) or -ERANGE (past 2^50 KiB). */
int units_parse_kib(const char *s, uint64_t *kib);

#endif
