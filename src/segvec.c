/* segvec: a growable array whose elements never move. */
#include "segvec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void segvec_init(struct segvec *v, size_t esize, unsigned shift0)
{
	memset(v, 0, sizeof(*v));
	v->esize = esize;
	v->shift0 = shift0;
}

void segvec_free(struct segvec *v)
{
	for (unsigned s = 0; s < v->nseg; s++)
		free(v->seg[s]);
	segvec_init(v, v->esize, v->shift0);
}

/* Elements in segments [0, nseg): first * (2^nseg - 1). */
static size_t segvec_elems_before(const struct segvec *v, unsigned nseg)
{
	return (((size_t)1 << nseg) - 1) << v->shift0;
}

size_t segvec_cap(const struct segvec *v)
{
	return segvec_elems_before(v, v->nseg);
}

size_t segvec_next_bytes(const struct segvec *v)
{
	unsigned s = v->nseg;

	if (s >= SEGVEC_MAXSEGS || s + v->shift0 >= sizeof(size_t) * 8 - 1)
		return 0;
	size_t n = (size_t)1 << (s + v->shift0);
	if (n > SIZE_MAX / v->esize)
		return 0;
	return n * v->esize;
}

void segvec_add_seg(struct segvec *v, void *seg)
{
	v->seg[v->nseg++] = seg;
}

/* Segment of element i is floor(log2(i / first + 1)); the rest is the offset. */
void *segvec_at(const struct segvec *v, size_t i)
{
	size_t q = (i >> v->shift0) + 1;
	unsigned s = (unsigned)(sizeof(unsigned long long) * 8 - 1) -
		     (unsigned)__builtin_clzll((unsigned long long)q);
	size_t off = i - segvec_elems_before(v, s);

	return (char *)v->seg[s] + off * v->esize;
}

void *segvec_push(struct segvec *v)
{
	if (v->len >= segvec_cap(v))
		return NULL;
	return segvec_at(v, v->len++);
}

size_t segvec_mem_bytes(const struct segvec *v)
{
	return segvec_cap(v) * v->esize;
}
