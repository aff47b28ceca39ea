/* segvec: a growable array whose elements never move.
 *
 * Segment s holds (first << s) elements, so a handful of segments cover any
 * size and growing never copies. The caller allocates a segment (its size is
 * segvec_next_bytes()) wherever it likes, e.g. outside a lock, and installs it
 * with segvec_add_seg(). Not thread-safe by itself. */
#ifndef SPACETIME_SEGVEC_H
#define SPACETIME_SEGVEC_H

#include <stddef.h>

#define SEGVEC_MAXSEGS 40

struct segvec {
	void *seg[SEGVEC_MAXSEGS];
	size_t esize;    /* bytes per element */
	unsigned shift0; /* the first segment holds 1 << shift0 elements */
	unsigned nseg;   /* segments installed */
	size_t len;      /* elements in use */
};

void segvec_init(struct segvec *v, size_t esize, unsigned shift0);
/* Frees every segment. */
void segvec_free(struct segvec *v);
/* Elements the installed segments can hold. */
size_t segvec_cap(const struct segvec *v);
/* Size in bytes of the next segment to install; 0 when no more can be added. */
size_t segvec_next_bytes(const struct segvec *v);
/* Installs seg, which must be segvec_next_bytes() long, as the next segment. */
void segvec_add_seg(struct segvec *v, void *seg);
/* Address of element i (i < segvec_cap()). */
void *segvec_at(const struct segvec *v, size_t i);
/* Appends one element (len < cap) and returns its address, or NULL when full. */
void *segvec_push(struct segvec *v);
/* Bytes held by the segments. */
size_t segvec_mem_bytes(const struct segvec *v);

#endif
