/* recvfs: an SQLite VFS, over the default one, that writes a transaction's
 * WAL frames in one system call.
 *
 * SQLite appends each WAL frame with two writes (its 24-byte header, then the
 * page), and a recording's commit dirties some thirty pages: sixty system
 * calls a second, which on a virtual machine cost more than the rest of the
 * writing. Here the writes to a WAL file that follow one another are gathered
 * in a buffer and written at once when the transaction's commit frame is
 * complete, or before anything else touches the file (a read, a sync, a
 * truncation, a lock, its size, its close), or when the buffer is full.
 * A write over what was already written (a page written twice in one
 * transaction, checksums rewritten at a commit) goes straight through. So a
 * commit's frames are in the file before it is published (the WAL index's
 * header; the database file's barrier before it also writes anything left),
 * and readers and checkpoints never see a frame that is not; an error (a full
 * disk) is returned by the write of the commit frame, as SQLite expects, and
 * the transaction rolls back. What a rolled-back transaction gathered (pages
 * it spilled) is dropped when it releases the WAL's write lock, never written
 * where another writer may be writing next. Other files (the database, its
 * shared memory, a journal) pass straight through. */
#ifndef SPACETIME_RECVFS_H
#define SPACETIME_RECVFS_H

#include <stddef.h>

/* The buffer's size: a bigger run of writes goes out in several calls. The
 * default VFS writes at most 128 KiB - 1 bytes a call (it masks the length). */
#define RECVFS_BUF_BYTES (((size_t)128 << 10) - 1)

/* Registers the VFS (once, thread-safe; not as the default) and returns its
 * name for sqlite3_open_v2(), or NULL if it could not be (the default VFS
 * then serves: correct, with more system calls). */
const char *recvfs_name(void);

/* Counters of the WAL writes, for tests and the benchmark. */
struct recvfs_stats {
	unsigned long long writes;  /* xWrite calls on WAL files */
	unsigned long long flushes; /* system calls they became */
};
void recvfs_stats(struct recvfs_stats *out);

#endif
