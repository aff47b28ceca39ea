/* smaps: a process's /proc/PID/smaps, parsed and grouped as pmap groups it:
 * the program's binary, each shared library, [heap], [stack], anonymous
 * memory, shared memory, other files and the kernel's own mappings. The
 * parser is pure (bytes in, groups out); smaps_read() reads the file. */
#ifndef SPACETIME_SMAPS_H
#define SPACETIME_SMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum smaps_kind {
	SMAPS_BINARY, /* the program's own executable */
	SMAPS_LIB,    /* a shared library (a path with ".so") */
	SMAPS_HEAP,   /* [heap] */
	SMAPS_STACK,  /* [stack] */
	SMAPS_ANON,   /* private anonymous memory (and [anon:NAME]) */
	SMAPS_SHMEM,  /* shared memory: SysV, /dev/shm, memfd, shared anonymous */
	SMAPS_FILE,   /* any other file */
	SMAPS_KERNEL, /* [vdso], [vvar], [vsyscall] */
	SMAPS_KINDS
};

/* The figures of a mapping or a group, in KiB. */
enum smaps_field {
	SMAPS_SIZE,
	SMAPS_RSS,
	SMAPS_PSS,
	SMAPS_SHARED_CLEAN,
	SMAPS_SHARED_DIRTY,
	SMAPS_PRIVATE_CLEAN,
	SMAPS_PRIVATE_DIRTY,
	SMAPS_ANONYMOUS,
	SMAPS_SWAP,
	SMAPS_SWAP_PSS,
	SMAPS_ANON_HUGE,  /* AnonHugePages: transparent huge pages */
	SMAPS_FILE_PMD,   /* FilePmdMapped: file pages mapped as huge pages */
	SMAPS_SHMEM_PMD,  /* ShmemPmdMapped */
	SMAPS_LOCKED,     /* Locked (mlock) */
	SMAPS_FIELDS
};

#define SMAPS_NAME_MAX 256

struct smaps_group {
	enum smaps_kind kind;
	char name[SMAPS_NAME_MAX]; /* the path, "[heap]", "[anon]" ... (" (deleted)" taken off) */
	int deleted;               /* the file was deleted while mapped */
	uint32_t nmaps;
	uint64_t kib[SMAPS_FIELDS];
};

struct smaps_view {
	struct smaps_group *g;
	size_t n, cap;
	struct smaps_group total; /* every group summed */
	size_t nmaps;
	int truncated;    /* the text ended inside a mapping: it is left out */
	uint32_t valid;   /* 1 << field for each field every mapping had */
};

/* Parses smaps text into groups (exe: the program's path, its mappings are
 * SMAPS_BINARY; NULL: none is). Returns the number of mappings, -EINVAL for
 * text that is not smaps (a malformed line or value), -ENOMEM. A text cut
 * inside a mapping (a read that ended early) is not an error: the mapping
 * is left out and truncated set. The view is emptied first; free it with
 * smaps_view_free. */
int smaps_parse(const char *buf, size_t len, const char *exe, struct smaps_view *out);
void smaps_view_free(struct smaps_view *v);

/* Orders the groups by field, largest first (ties by name). */
void smaps_sort(struct smaps_view *v, enum smaps_field by);

/* "binary", "library", "heap" ... and the figures' column names ("PSS"). */
const char *smaps_kind_name(enum smaps_kind k);
const char *smaps_field_name(enum smaps_field f);

/* A pidfd on process pid (pidfd_open), or -1: held across a read, it says
 * whether the process read is still the one asked for. */
int smaps_pid_open(pid_t pid);
/* Whether the process of pidfd has exited (then a map read of it may have
 * been cut at any mapping, and its pid may be another's): 1, else 0. */
int smaps_pid_exited(int pidfd);

/* Reads dir/PID/smaps (dir: the /proc root, NULL for "/proc") whole into
 * *buf (malloc'd, *len bytes) and the program's path into exe (cap bytes;
 * "" when it cannot be read). Returns 0, or -errno: -ENOENT/-ESRCH when the
 * process is gone, -EACCES when this user may not read it. */
int smaps_read(const char *dir, pid_t pid, char **buf, size_t *len, char *exe, size_t cap);

#endif
