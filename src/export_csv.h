/* export_csv: the snapshot's time series as CSV (RFC 4180, comma-separated,
 * one header row naming each column's unit), for spreadsheets and pandas. */
#ifndef SPACETIME_EXPORT_CSV_H
#define SPACETIME_EXPORT_CSV_H

#include <stdio.h>

struct export_snap;

/* Writes the header and one row per row of sn (the same rows as the JSON
 * snapshot's samples); unknown values are empty fields. Returns 0 or -errno. */
int export_csv_write(FILE *f, const struct export_snap *sn);

#endif
