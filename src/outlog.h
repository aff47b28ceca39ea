/* outlog: the command's output as timestamped lines, a bounded ring (the
 * oldest let go of past a number of lines or of bytes). Not thread-safe: the
 * store holds it under its lock. */
#ifndef SPACETIME_OUTLOG_H
#define SPACETIME_OUTLOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One line (without its newline) and when it was printed. */
struct outlog_line {
	uint64_t t_ns;
	size_t len;
	char *bytes;
};

struct outlog;

/* A ring of at most max_lines lines and max_bytes bytes. NULL: no memory. */
struct outlog *outlog_new(size_t max_lines, size_t max_bytes);
void outlog_free(struct outlog *o);
/* Appends a line (lines come in time order: one older than the last is
 * dated as the last). Returns 0, or -ENOMEM (the line is not kept). */
int outlog_push(struct outlog *o, uint64_t t_ns, const char *bytes, size_t len);
/* The same with a copy of the line's bytes made by the caller (malloc'd,
 * len bytes, at least one allocated): the log owns it from now on (a store
 * copies outside its lock). Never fails. */
void outlog_push_own(struct outlog *o, uint64_t t_ns, char *copy, size_t len);
/* The last max lines printed at or before t_ns, oldest first, copied into
 * one block (*out; free() it, NULL when none); *cut says whether lines
 * before them were let go of (the ring's bound). Returns how many, or
 * -ENOMEM. */
ssize_t outlog_to(const struct outlog *o, uint64_t t_ns, size_t max, struct outlog_line **out, int *cut);
/* The same in two steps, so that a caller holding a lock allocates outside
 * it: the block outlog_to would make, in bytes (0: no line); then the lines
 * copied into a block of cap bytes (-ENOSPC when it is too small now: lines
 * came since; size it again). */
size_t outlog_size_to(const struct outlog *o, uint64_t t_ns, size_t max);
ssize_t outlog_copy_to(const struct outlog *o, uint64_t t_ns, size_t max, void *block, size_t cap, int *cut);
/* Lines kept now, and let go of so far. */
size_t outlog_count(const struct outlog *o);
uint64_t outlog_dropped(const struct outlog *o);

#endif
