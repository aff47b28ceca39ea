/* mapread: a process's memory map (smaps) read on demand, on a thread of its
 * own, so that a large process (40 ms for 4 GiB) never stalls the collector's
 * tick nor the dashboard. The map wanted is read again while it is wanted, no
 * more often than a share of one core allows (its CPU is spacetime's, so the
 * PSS budget counts it too). The last map taken of each recent process is
 * kept, with its time, for a process that has since exited. */
#ifndef SPACETIME_MAPREAD_H
#define SPACETIME_MAPREAD_H

#include <stdint.h>
#include <sys/types.h>

#include "smaps.h"

enum mapread_state {
	MAPREAD_NONE,    /* never asked for, or nothing kept */
	MAPREAD_READING, /* the first read is under way */
	MAPREAD_DONE,    /* a map, taken at read_ns */
	MAPREAD_GONE,    /* the process had exited before a map was taken */
	MAPREAD_DENIED,  /* this user may not read its memory map */
	MAPREAD_FAILED,  /* another error: err says which */
};

struct mapread_result {
	enum mapread_state state;
	int err;            /* -errno of the last failed read (0: none) */
	uint64_t id;        /* the process's id in the store */
	pid_t pid;
	uint64_t read_ns;   /* CLOCK_MONOTONIC when the map was taken */
	uint64_t cost_ns;   /* the read's CPU time */
	uint64_t seq;       /* grows with each new map */
	int reading;        /* a newer read is under way */
	struct smaps_view view; /* the caller's copy: smaps_view_free() it */
};

struct mapread;

/* Starts the reader (proc_root: the /proc to read, NULL for "/proc";
 * share: the part of one core its reads may take, e.g. 0.01). NULL + errno. */
struct mapread *mapread_new(const char *proc_root, double share);
void mapread_free(struct mapread *mr);

/* Wants the map of process id (pid): read at once, then again while wanted.
 * id 0 wants nothing (the map pane closed). */
void mapread_want(struct mapread *mr, uint64_t id, pid_t pid);

/* The newest map of process id (a copy, with its state). Returns the state. */
enum mapread_state mapread_get(struct mapread *mr, uint64_t id, struct mapread_result *out);

#endif
