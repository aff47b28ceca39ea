/* memwarn: how much memory the run has left before the machine, or the
 * cgroup that binds it (a container's, a CI runner's memory.max), runs out,
 * and whether it is running out while the tree grows. Pure: figures in, a
 * verdict out; the collector's coll_mem job reads the files. */
#ifndef SPACETIME_MEMWARN_H
#define SPACETIME_MEMWARN_H

#include <stddef.h>
#include <stdint.h>

#define MEMWARN_HIST 512          /* figures kept: the last ones, one a tick (fast ticks: 20 ms) */
#define MEMWARN_WINDOW_NS 5000000000ull /* trends over the last 5 s */
#define MEMWARN_LOW_SHARE 0.10    /* low: less than this share of the memory left */
#define MEMWARN_FULL_SHARE 0.10   /* or every task stalled on memory this share of the time */

/* MemTotal and MemAvailable (KiB) from /proc/meminfo's text. Returns 0, or
 * -EINVAL when either is missing or malformed. */
int memwarn_parse_meminfo(const char *buf, size_t len, uint64_t *total_kib, uint64_t *avail_kib);
/* A cgroup file's one number (memory.max, memory.current, memory.limit_in_bytes):
 * bytes, or UINT64_MAX for "max" (no limit). Returns 0 or -EINVAL. */
int memwarn_parse_bytes(const char *buf, size_t len, uint64_t *bytes);

/* The recent figures: memory left and the tree's PSS, at each tick. */
struct memwarn_hist {
	struct {
		uint64_t t_ns, left_kib, pss_kib;
	} v[MEMWARN_HIST];
	size_t head, n;
};
void memwarn_push(struct memwarn_hist *h, uint64_t t_ns, uint64_t left_kib, uint64_t pss_kib);

struct memwarn_state {
	int low;              /* running out: little left while the tree grows (or stalls) */
	uint64_t left_kib;    /* memory left now */
	uint64_t of_kib;      /* of this much (the machine's, or the cgroup's limit) */
	double left_kib_s;    /* its trend (KiB/s; negative: shrinking), over the window */
	double pss_kib_s;     /* the tree's PSS trend */
	double eta_s;         /* seconds until nothing is left at this rate (negative: not shrinking) */
};
/* The verdict from the history (the newest figure last pushed), of_kib, and
 * the share of the last interval every task stalled on memory (PSI full;
 * negative: unknown). */
void memwarn_eval(const struct memwarn_hist *h, uint64_t of_kib, double full_share, struct memwarn_state *out);

#endif
