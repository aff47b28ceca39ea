/* segvec: a growable array whose elements never move. */
#include "segvec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void segvec_init(struct segvec *v, size_t esize, unsigned shift0)
{
	/* seg[] is read only below nseg: left as it is, its 32 KiB are not
	 * touched (each of a store's arrays would fault in 8 pages) */
	v->nseg = 0;
	v->len = 0;
	v->esize = esize;
	v->shift0 = shift0;
	v->shiftmax = shift0;
	while (((size_t)2 << v->shiftmax) * esize <= SEGVEC_SEG_MAX_BYTES)
		v->shiftmax++;
}

void segvec_free(struct segvec *v)
{
	for (unsigned s = 0; s < v->nseg; s++)
		free(v->seg[s]);
	v->nseg = 0;
	v->len = 0;
}

/* Segments that double: shift0 .. shiftmax. */
static unsigned segvec_ndoubling(const struct segvec *v)
{
	return v->shiftmax - v->shift0 + 1;
}

/* Elements in segments [0, nseg): first * (2^nseg - 1) while they double,
 * then whole biggest segments. */
static size_t segvec_elems_before(const struct segvec *v, unsigned nseg)
{
	unsigned d = segvec_ndoubling(v);

	if (nseg <= d)
		return (((size_t)1 << nseg) - 1) << v->shift0;
	return ((((size_t)1 << d) - 1) << v->shift0) + ((size_t)(nseg - d) << v->shiftmax);
}

/* Segment holding element i: floor(log2(i / first + 1)) among the doubling
 * ones, then by division. */
static unsigned segvec_seg_of(const struct segvec *v, size_t i)
{
	size_t doubled = segvec_elems_before(v, segvec_ndoubling(v));

	if (i >= doubled)
		return segvec_ndoubling(v) + (unsigned)((i - doubled) >> v->shiftmax);
	size_t q = (i >> v->shift0) + 1;

	return (unsigned)(sizeof(unsigned long long) * 8 - 1) -
	       (unsigned)__builtin_clzll((unsigned long long)q);
}

size_t segvec_cap(const struct segvec *v)
{
	return segvec_elems_before(v, v->nseg);
}

size_t segvec_next_bytes(const struct segvec *v)
{
	unsigned s = v->nseg, shift;

	if (s >= SEGVEC_MAXSEGS)
		return 0;
	shift = s < segvec_ndoubling(v) ? v->shift0 + s : v->shiftmax;
	if (shift >= sizeof(size_t) * 8 - 1)
		return 0;
	size_t n = (size_t)1 << shift;
	if (n > SIZE_MAX / v->esize)
		return 0;
	return n * v->esize;
}

void segvec_add_seg(struct segvec *v, void *seg)
{
	v->seg[v->nseg++] = seg;
}

void *segvec_push(struct segvec *v)
{
	if (v->len >= segvec_cap(v))
		return NULL;
	return segvec_at(v, v->len++);
}

size_t segvec_contig(const struct segvec *v, size_t n)
{
	size_t at = v->len, end;

	if (at >= segvec_cap(v))
		return SIZE_MAX;
	end = segvec_elems_before(v, segvec_seg_of(v, at) + 1);
	if (end - at < n) {
		at = end; /* the next segment, at least 1 << shift0 long */
		if (at >= segvec_cap(v))
			return SIZE_MAX;
	}
	return at;
}

void *segvec_push_n(struct segvec *v, size_t n, size_t *at)
{
	size_t i = segvec_contig(v, n);

	if (i == SIZE_MAX)
		return NULL;
	v->len = i + n;
	*at = i;
	return segvec_at(v, i);
}

void segvec_pop(struct segvec *v)
{
	v->len--;
}

size_t segvec_mem_bytes(const struct segvec *v)
{
	return segvec_cap(v) * v->esize;
}
