/* segvec: a growable array whose elements never move.
 *
 * Segment s holds (first << s) elements until a segment reaches
 * SEGVEC_SEG_MAX_BYTES; later ones are that size. So growing never copies, a
 * small array stays small, and at most one segment's worth is unused. The caller allocates a segment (its size is
 * segvec_next_bytes()) wherever it likes, e.g. outside a lock, and installs it
 * with segvec_add_seg(). Not thread-safe by itself. */
#ifndef SPACETIME_SEGVEC_H
#define SPACETIME_SEGVEC_H

#include <stddef.h>

#define SEGVEC_MAXSEGS 4096 /* so 1 GiB an array at least */
#define SEGVEC_SEG_MAX_BYTES ((size_t)256 << 10)

struct segvec {
	void *seg[SEGVEC_MAXSEGS];
	size_t esize;      /* bytes per element */
	unsigned shift0;   /* the first segment holds 1 << shift0 elements */
	unsigned shiftmax; /* the biggest holds 1 << shiftmax */
	unsigned nseg;     /* segments installed */
	size_t len;        /* elements in use */
};

/* The biggest segment holds the most elements that fit SEGVEC_SEG_MAX_BYTES,
 * rounded down to a power of two, but never fewer than the first. */
void segvec_init(struct segvec *v, size_t esize, unsigned shift0);
/* Frees every segment. */
void segvec_free(struct segvec *v);
/* Elements the installed segments can hold. */
size_t segvec_cap(const struct segvec *v);
/* Size in bytes of the next segment to install; 0 when no more can be added. */
size_t segvec_next_bytes(const struct segvec *v);
/* Installs seg, which must be segvec_next_bytes() long, as the next segment. */
void segvec_add_seg(struct segvec *v, void *seg);
/* Address of element i (i < segvec_cap()); inline, as readers call it per
 * element: floor(log2(i / first + 1)) among the doubling segments, then by
 * division among the biggest. */
static inline void *segvec_at(const struct segvec *v, size_t i)
{
	unsigned d = v->shiftmax - v->shift0 + 1, s;
	size_t doubled = (((size_t)1 << d) - 1) << v->shift0, before;

	if (i >= doubled) {
		s = d + (unsigned)((i - doubled) >> v->shiftmax);
		before = doubled + ((size_t)(s - d) << v->shiftmax);
	} else {
		s = (unsigned)(sizeof(unsigned long long) * 8 - 1) -
		    (unsigned)__builtin_clzll((unsigned long long)((i >> v->shift0) + 1));
		before = (((size_t)1 << s) - 1) << v->shift0;
	}
	return (char *)v->seg[s] + (i - before) * v->esize;
}
/* Appends one element (len < cap) and returns its address, or NULL when full. */
void *segvec_push(struct segvec *v);
/* Index where n contiguous elements (n <= 1 << shift0) would go: len, or the
 * start of the next installed segment when the current one has less room;
 * SIZE_MAX when the installed segments cannot take them. */
size_t segvec_contig(const struct segvec *v, size_t n);
/* Appends n contiguous elements at segvec_contig() (the elements skipped
 * before it stay unused) and returns the address of the first, with its index
 * in *at; NULL when there is no room. */
void *segvec_push_n(struct segvec *v, size_t n, size_t *at);
/* Drops the last element (len > 0). */
void segvec_pop(struct segvec *v);
/* Bytes held by the segments. */
size_t segvec_mem_bytes(const struct segvec *v);

#endif
