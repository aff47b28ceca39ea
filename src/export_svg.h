/* export_svg: the snapshot as one SVG page for a bug report: tree PSS over
 * time (stacked anon / file / shmem, with the max as a line and the peak
 * marked), live processes and threads, and fault rates, on time axes with
 * units, under a title naming the command, the date and the peak. */
#ifndef SPACETIME_EXPORT_SVG_H
#define SPACETIME_EXPORT_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct export_snap;


/* Writes the SVG document to f. Returns 0 or -errno. */
int export_svg_write(FILE *f, const struct export_snap *sn);

#endif
