/* rssmark: reads of a process's memory taken between two ticks (its
 * smaps_rollup's Private_Clean + Private_Dirty: the pages it alone maps), as
 * the walk of the interval's traced RSS changes (rssspan.h) passes them.
 * Pure.
 *
 * A page private to P at an instant counts in full in the tree's PSS then,
 * and in no other process's part of a floor. After the read, P's private
 * pages can only fall by what P lets go of, and by pages others map that
 * may be P's (any file or shared-memory page another mm of the tree maps,
 * any page a fork copies): what is left of the read after those is still
 * private to P (sharers outside the tree are not seen: rssspan.h). A read
 * spans [t0, t1]: the changes in it count against it too. */
#ifndef SPACETIME_RSSMARK_H
#define SPACETIME_RSSMARK_H

#include <stddef.h>
#include <stdint.h>

#define RSSMARK_MAX 16

enum { RSSMARK_PENDING = 0, RSSMARK_ACTIVE = 1, RSSMARK_DONE = 2 };
/* How a change ends a process's mm (rssmark_step's ended). */
enum { RSSMARK_KEPT = 0, RSSMARK_EXEC = 1, RSSMARK_EXIT = 2 };

struct rssmark {
	uint64_t t0_ns, t1_ns;
	int32_t pid;
	uint64_t priv_kib;
	uint64_t dec_kib; /* what may have left its private pages since t0 */
	uint8_t state;
	/* it forked after the read: a child of its pages met at no record of
	 * its own would count them twice in a backward floor before the fork */
	uint8_t forked;
};

struct rssmarks {
	struct rssmark m[RSSMARK_MAX];
	size_t n;
};

/* Adds a read (t0 <= t1). Returns 0, or -ENOSPC when the interval has
 * RSSMARK_MAX of them (the read is not used), -EINVAL for a bad span. */
int rssmark_add(struct rssmarks *k, uint64_t t0_ns, uint64_t t1_ns, int32_t pid, uint64_t priv_kib);
/* A traced change at t_ns: by process pid (own: in its own mm; member the
 * counter, d its change), or its mm gone (ended: RSSMARK_EXIT, or
 * RSSMARK_EXEC, an exec's switch to a new mm). An exit ends its process's
 * reads taken after it too (of another process given its pid). */
void rssmark_step(struct rssmarks *k, uint64_t t_ns, int32_t pid, int own, int member, int64_t d, int ended);
/* Whether pid's reads are of no use to a backward floor (it forked after
 * one). */
int rssmark_forked(const struct rssmarks *k, int32_t pid);
/* The pending read whose span ended before t_ns (made active by the call),
 * or NULL when none. */
struct rssmark *rssmark_due(struct rssmarks *k, uint64_t t_ns);
/* What is left of a read: its private pages less what may have left them. */
uint64_t rssmark_left(const struct rssmark *m);
/* The active read with the most left (NULL: none). */
const struct rssmark *rssmark_best(const struct rssmarks *k);

#endif
