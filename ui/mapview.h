/* mapview: the memory map of one process, over the whole screen (m in the
 * process list): its mappings grouped as pmap groups them, each group's
 * size, RSS, PSS, private and shared pages, swap, huge pages and locked
 * memory, the totals first, sortable. The map comes from mapread (src/),
 * read on its own thread; the view says when it was taken. */
#ifndef SPACETIME_MAPVIEW_H
#define SPACETIME_MAPVIEW_H

#include <stdint.h>

#include "keys.h"
#include "mapread.h"
#include "peakmaps.h"
#include "store.h"

struct mapview;

/* Opens the view of process rec (job: its job name): a live one's map read
 * by mr (NULL: none), else the one taken of it at the peak (pm, NULL: none);
 * start_ns is the run's start (times are shown from it). NULL + errno. */
struct mapview *mapview_open(struct mapread *mr, struct peakmaps *pm, const struct proc_rec *rec, const char *job,
			     uint64_t start_ns);
/* Stops wanting the map and frees the view. */
void mapview_close(struct mapview *mv);
/* Takes the newest map: returns 1 when the screen should be drawn again. */
int mapview_poll(struct mapview *mv, uint64_t now_ns);
/* A key: scrolls, sorts; returns 0 when it closes the view. */
int mapview_key(struct mapview *mv, enum key_action a, int key);
/* Draws the whole screen. */
void mapview_draw(struct mapview *mv, uint64_t now_ns);

#endif
