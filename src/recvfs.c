/* recvfs: WAL frames gathered into one write per transaction (see recvfs.h). */
#include "recvfs.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RECVFS_NAME "spacetime-wal"
#define RECVFS_FRAME_HDR 24 /* a WAL frame's header; the WAL's own is 32 */

/* An open file: ours first, the default VFS's after it. */
struct recvfs_file {
	sqlite3_file base;
	sqlite3_file *real;
	int wal;              /* a WAL file: its writes are gathered */
	int commit_next;      /* the next write is a commit frame's page */
	unsigned char *buf;   /* RECVFS_BUF_BYTES, allocated at the first write */
	size_t len;           /* bytes gathered */
	sqlite3_int64 off;    /* where they go */
	sqlite3_int64 end;    /* the end of what was written or gathered since the
			       * WAL's header was last written */
	struct recvfs_file *link; /* a WAL's database file, or a database's WAL */
};

static sqlite3_vfs *recvfs_real;
static sqlite3_vfs recvfs_vfs;
static const char *recvfs_registered;
static pthread_once_t recvfs_once = PTHREAD_ONCE_INIT;
static unsigned long long recvfs_nwrites, recvfs_nflushes;

#define REAL(f) (((struct recvfs_file *)(f))->real)
#define RM(f) (REAL(f)->pMethods)

/* Writes what was gathered; the buffer is empty after it, even on error (the
 * transaction that wrote it is rolled back). */
static int recvfs_flush(struct recvfs_file *p)
{
	if (!p->len)
		return SQLITE_OK;
	int rc = p->real->pMethods->xWrite(p->real, p->buf, (int)p->len, p->off);
	__atomic_add_fetch(&recvfs_nflushes, 1, __ATOMIC_RELAXED);
	p->len = 0;
	p->commit_next = 0;
	return rc;
}

static int recvfs_close(sqlite3_file *f)
{
	struct recvfs_file *p = (struct recvfs_file *)f;
	int rc = recvfs_flush(p);

	if (p->link && p->link->link == p)
		p->link->link = NULL;
	p->link = NULL;
	int rc2 = p->real->pMethods ? p->real->pMethods->xClose(p->real) : SQLITE_OK;

	free(p->buf);
	p->buf = NULL;
	return rc != SQLITE_OK ? rc : rc2;
}

static int recvfs_read(sqlite3_file *f, void *b, int amt, sqlite3_int64 off)
{
	int rc = recvfs_flush((struct recvfs_file *)f);

	return rc != SQLITE_OK ? rc : RM(f)->xRead(REAL(f), b, amt, off);
}

/* Whether a frame header says its frame ends a transaction: its second field,
 * the database's size after the commit, is not 0. */
static int recvfs_commit_hdr(const unsigned char *h)
{
	return h[4] | h[5] | h[6] | h[7];
}

static int recvfs_write(sqlite3_file *f, const void *b, int amt, sqlite3_int64 off)
{
	struct recvfs_file *p = (struct recvfs_file *)f;
	int rc;

	if (!p->wal)
		return RM(f)->xWrite(p->real, b, amt, off);
	__atomic_add_fetch(&recvfs_nwrites, 1, __ATOMIC_RELAXED);
	if (off == 0)
		p->end = 0; /* the header: the WAL starts over */
	if (off < p->end && !(p->len && off == p->off + (sqlite3_int64)p->len)) {
		/* a write over what was written (a page written twice in one
		 * transaction, checksums rewritten at its commit): straight
		 * through, in order, its error the caller's */
		if ((rc = recvfs_flush(p)) != SQLITE_OK)
			return rc;
		__atomic_add_fetch(&recvfs_nflushes, 1, __ATOMIC_RELAXED);
		return RM(f)->xWrite(p->real, b, amt, off);
	}
	if (off + amt > p->end)
		p->end = off + amt;
	if (p->len && (off != p->off + (sqlite3_int64)p->len || p->len + (size_t)amt > RECVFS_BUF_BYTES)) {
		int commit = p->commit_next;
		if ((rc = recvfs_flush(p)) != SQLITE_OK)
			return rc;
		p->commit_next = commit;
	}
	if (!p->buf && amt > 0 && (size_t)amt <= RECVFS_BUF_BYTES)
		p->buf = malloc(RECVFS_BUF_BYTES);
	if (!p->buf || amt <= 0 || (size_t)amt > RECVFS_BUF_BYTES) {
		/* no buffer, or too big for it: straight through */
		p->commit_next = 0;
		__atomic_add_fetch(&recvfs_nflushes, 1, __ATOMIC_RELAXED);
		return RM(f)->xWrite(p->real, b, amt, off);
	}
	if (!p->len)
		p->off = off;
	memcpy(p->buf + p->len, b, (size_t)amt);
	p->len += (size_t)amt;
	if (p->commit_next)
		return recvfs_flush(p); /* the commit frame is whole: out it goes */
	p->commit_next = amt == RECVFS_FRAME_HDR && off >= 32 && recvfs_commit_hdr(b);
	return SQLITE_OK;
}

static int recvfs_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	int rc = recvfs_flush((struct recvfs_file *)f);

	return rc != SQLITE_OK ? rc : RM(f)->xTruncate(REAL(f), size);
}

static int recvfs_sync(sqlite3_file *f, int flags)
{
	int rc = recvfs_flush((struct recvfs_file *)f);

	return rc != SQLITE_OK ? rc : RM(f)->xSync(REAL(f), flags);
}

static int recvfs_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	int rc = recvfs_flush((struct recvfs_file *)f);

	return rc != SQLITE_OK ? rc : RM(f)->xFileSize(REAL(f), size);
}

static int recvfs_lock(sqlite3_file *f, int level)
{
	int rc = recvfs_flush((struct recvfs_file *)f);

	return rc != SQLITE_OK ? rc : RM(f)->xLock(REAL(f), level);
}

static int recvfs_unlock(sqlite3_file *f, int level)
{
	int rc = recvfs_flush((struct recvfs_file *)f);

	return rc != SQLITE_OK ? rc : RM(f)->xUnlock(REAL(f), level);
}

static int recvfs_check_reserved(sqlite3_file *f, int *out)
{
	return RM(f)->xCheckReservedLock(REAL(f), out);
}

static int recvfs_file_control(sqlite3_file *f, int op, void *arg)
{
	int rc = recvfs_flush((struct recvfs_file *)f);

	return rc != SQLITE_OK ? rc : RM(f)->xFileControl(REAL(f), op, arg);
}

static int recvfs_sector_size(sqlite3_file *f)
{
	return RM(f)->xSectorSize(REAL(f));
}

static int recvfs_device_chars(sqlite3_file *f)
{
	return RM(f)->xDeviceCharacteristics(REAL(f));
}

static int recvfs_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp)
{
	if (RM(f)->iVersion < 2 || !RM(f)->xShmMap)
		return SQLITE_IOERR_SHMMAP;
	return RM(f)->xShmMap(REAL(f), pg, pgsz, extend, pp);
}

/* The WAL's write lock (its first shared-memory lock). */
#define RECVFS_WAL_WRITE_LOCK 0

static int recvfs_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	struct recvfs_file *p = (struct recvfs_file *)f;

	if (RM(f)->iVersion < 2 || !RM(f)->xShmLock)
		return SQLITE_IOERR_SHMLOCK;
	/* the write transaction is over: a commit left nothing gathered; what
	 * is left is a rolled-back one's (pages it spilled), never to be
	 * written, least of all once another writer may use those offsets */
	if (p->link && (flags & SQLITE_SHM_UNLOCK) && (flags & SQLITE_SHM_EXCLUSIVE) &&
	    offset <= RECVFS_WAL_WRITE_LOCK && offset + n > RECVFS_WAL_WRITE_LOCK) {
		p->link->len = 0;
		p->link->commit_next = 0;
	}
	return RM(f)->xShmLock(REAL(f), offset, n, flags);
}

static void recvfs_shm_barrier(sqlite3_file *f)
{
	struct recvfs_file *p = (struct recvfs_file *)f;

	/* before a commit is published (the WAL index's header): all of the
	 * WAL is in the file (it is already, unless a write escaped the rules
	 * above; an error here cannot be returned, the commit's was) */
	if (p->link)
		recvfs_flush(p->link);
	if (RM(f)->iVersion >= 2 && RM(f)->xShmBarrier)
		RM(f)->xShmBarrier(REAL(f));
}

static int recvfs_shm_unmap(sqlite3_file *f, int del)
{
	if (RM(f)->iVersion < 2 || !RM(f)->xShmUnmap)
		return SQLITE_OK;
	return RM(f)->xShmUnmap(REAL(f), del);
}

static int recvfs_fetch(sqlite3_file *f, sqlite3_int64 off, int amt, void **pp)
{
	*pp = NULL;
	if (RM(f)->iVersion < 3 || !RM(f)->xFetch)
		return SQLITE_OK; /* no mapping: SQLite reads instead */
	int rc = recvfs_flush((struct recvfs_file *)f);

	return rc != SQLITE_OK ? rc : RM(f)->xFetch(REAL(f), off, amt, pp);
}

static int recvfs_unfetch(sqlite3_file *f, sqlite3_int64 off, void *pg)
{
	if (RM(f)->iVersion < 3 || !RM(f)->xUnfetch)
		return SQLITE_OK;
	return RM(f)->xUnfetch(REAL(f), off, pg);
}

static const sqlite3_io_methods recvfs_methods = {
	.iVersion = 3,
	.xClose = recvfs_close,
	.xRead = recvfs_read,
	.xWrite = recvfs_write,
	.xTruncate = recvfs_truncate,
	.xSync = recvfs_sync,
	.xFileSize = recvfs_file_size,
	.xLock = recvfs_lock,
	.xUnlock = recvfs_unlock,
	.xCheckReservedLock = recvfs_check_reserved,
	.xFileControl = recvfs_file_control,
	.xSectorSize = recvfs_sector_size,
	.xDeviceCharacteristics = recvfs_device_chars,
	.xShmMap = recvfs_shm_map,
	.xShmLock = recvfs_shm_lock,
	.xShmBarrier = recvfs_shm_barrier,
	.xShmUnmap = recvfs_shm_unmap,
	.xFetch = recvfs_fetch,
	.xUnfetch = recvfs_unfetch,
};

/* The default VFS's file lives right after ours, aligned. */
static size_t recvfs_real_off(void)
{
	return (sizeof(struct recvfs_file) + 15) & ~(size_t)15;
}

static int recvfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
	struct recvfs_file *p = (struct recvfs_file *)f;

	(void)vfs;
	memset(p, 0, sizeof(*p));
	p->real = (sqlite3_file *)((char *)f + recvfs_real_off());
	p->wal = !!(flags & SQLITE_OPEN_WAL);
	int rc = recvfs_real->xOpen(recvfs_real, name, p->real, flags, out_flags);
	/* SQLite closes a file whose open failed only if it has methods */
	p->base.pMethods = rc == SQLITE_OK && p->real->pMethods ? &recvfs_methods : NULL;
	/* a WAL and its database, each the other's: the database's
	 * shared-memory calls tell when a commit is published and when a write
	 * transaction ends */
	if (p->base.pMethods && p->wal && name) {
		sqlite3_file *db = sqlite3_database_file_object(name);
		if (db && db->pMethods == &recvfs_methods) {
			p->link = (struct recvfs_file *)db;
			p->link->link = p;
		}
	}
	return rc;
}

/* The rest is the default VFS's, called with itself. */
static int recvfs_delete(sqlite3_vfs *v, const char *name, int sync)
{
	(void)v;
	return recvfs_real->xDelete(recvfs_real, name, sync);
}

static int recvfs_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
	(void)v;
	return recvfs_real->xAccess(recvfs_real, name, flags, out);
}

static int recvfs_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out)
{
	(void)v;
	return recvfs_real->xFullPathname(recvfs_real, name, n, out);
}

static void *recvfs_dlopen(sqlite3_vfs *v, const char *name)
{
	(void)v;
	return recvfs_real->xDlOpen(recvfs_real, name);
}

static void recvfs_dlerror(sqlite3_vfs *v, int n, char *msg)
{
	(void)v;
	recvfs_real->xDlError(recvfs_real, n, msg);
}

static void (*recvfs_dlsym(sqlite3_vfs *v, void *h, const char *sym))(void)
{
	(void)v;
	return recvfs_real->xDlSym(recvfs_real, h, sym);
}

static void recvfs_dlclose(sqlite3_vfs *v, void *h)
{
	(void)v;
	recvfs_real->xDlClose(recvfs_real, h);
}

static int recvfs_randomness(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	return recvfs_real->xRandomness(recvfs_real, n, out);
}

static int recvfs_sleep(sqlite3_vfs *v, int us)
{
	(void)v;
	return recvfs_real->xSleep(recvfs_real, us);
}

static int recvfs_current_time(sqlite3_vfs *v, double *out)
{
	(void)v;
	return recvfs_real->xCurrentTime(recvfs_real, out);
}

static int recvfs_last_error(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	return recvfs_real->xGetLastError ? recvfs_real->xGetLastError(recvfs_real, n, out) : 0;
}

static int recvfs_current_time64(sqlite3_vfs *v, sqlite3_int64 *out)
{
	(void)v;
	return recvfs_real->xCurrentTimeInt64(recvfs_real, out);
}

static void recvfs_register(void)
{
	if (sqlite3_initialize() != SQLITE_OK || !(recvfs_real = sqlite3_vfs_find(NULL)))
		return;
	recvfs_vfs = (sqlite3_vfs){
		.iVersion = 2, /* no system-call overrides: those stay the default VFS's */
		.szOsFile = (int)(recvfs_real_off() + (size_t)recvfs_real->szOsFile),
		.mxPathname = recvfs_real->mxPathname,
		.zName = RECVFS_NAME,
		.xOpen = recvfs_open,
		.xDelete = recvfs_delete,
		.xAccess = recvfs_access,
		.xFullPathname = recvfs_full_pathname,
		.xDlOpen = recvfs_dlopen,
		.xDlError = recvfs_dlerror,
		.xDlSym = recvfs_dlsym,
		.xDlClose = recvfs_dlclose,
		.xRandomness = recvfs_randomness,
		.xSleep = recvfs_sleep,
		.xCurrentTime = recvfs_current_time,
		.xGetLastError = recvfs_last_error,
		.xCurrentTimeInt64 = recvfs_current_time64,
	};
	if (recvfs_real->iVersion < 2 || !recvfs_real->xCurrentTimeInt64)
		return;
	if (sqlite3_vfs_register(&recvfs_vfs, 0) == SQLITE_OK)
		recvfs_registered = RECVFS_NAME;
}

const char *recvfs_name(void)
{
	pthread_once(&recvfs_once, recvfs_register);
	return recvfs_registered;
}

void recvfs_stats(struct recvfs_stats *out)
{
	out->writes = __atomic_load_n(&recvfs_nwrites, __ATOMIC_RELAXED);
	out->flushes = __atomic_load_n(&recvfs_nflushes, __ATOMIC_RELAXED);
}
