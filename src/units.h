/* units: sizes as people read them, the same in the summary, the dashboard
 * and the exports. */
#ifndef SPACETIME_UNITS_H
#define SPACETIME_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Formats kib as a size with three significant digits ("364 KiB",
 * "64.2 MiB", "3.29 GiB"; "0 B" for 0) into buf. */
void units_kib(char *buf, size_t cap, uint64_t kib);

#endif
