/* recpack: the compact form of an exited process record.
 *
 * A header of presence bits, then one LEB128 varint per field that is not
 * zero. Times are kept exactly, as differences: start from a base the store
 * picks once, end and the peak's time from start (signed, zigzag). Every
 * other field of struct proc_rec is kept exactly too, except:
 *   - id: the store keeps it beside the packed bytes;
 *   - comm: replaced by comm_id, an interned string id (0 = none);
 *   - pss_kib, rss_kib, pss_age_ns: the current values of a live process,
 *     not kept (they decode as 0).
 * An exited process with every field known takes 40 to 55 bytes (a struct
 * proc_rec is 152). Pure functions, no state. */
#ifndef SPACETIME_RECPACK_H
#define SPACETIME_RECPACK_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* The longest packed record: a 3-byte header and 19 fields of at most 10 bytes. */
#define RECPACK_MAX 193

/* Packs r (with comm_id instead of r->comm) into out, which holds RECPACK_MAX
 * bytes; returns the length. */
size_t recpack_encode(const struct proc_rec *r, uint32_t comm_id, uint64_t base_ns,
		      uint8_t *out);
/* Unpacks a record recpack_encode() wrote with the same base_ns into r, all
 * but r->id and r->comm, which are left for the caller. Returns the packed
 * length. */
size_t recpack_decode(const uint8_t *in, uint64_t base_ns, struct proc_rec *r,
		      uint32_t *comm_id);

#endif
