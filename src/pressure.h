/* pressure: the kernel's pressure-stall information (PSI): how long tasks
 * waited for CPU, memory or I/O. Read from the command's own cgroup (cgroup
 * v2: its cpu.pressure, memory.pressure, io.pressure) where it has one of its
 * own, else from /proc/pressure (the whole machine). The parser is pure. */
#ifndef SPACETIME_PRESSURE_H
#define SPACETIME_PRESSURE_H

#include <stddef.h>
#include <stdint.h>

enum pressure_res { PRESSURE_CPU, PRESSURE_MEMORY, PRESSURE_IO, PRESSURE_NRES };

/* One file's totals: microseconds some task (some), or every task (full),
 * was stalled, since boot (or the cgroup's creation). */
struct pressure_line {
	uint64_t some_us, full_us;
	int has_full; /* the "full" line was there (cpu's is only since 5.13) */
};

/* Parses a PSI file's text ("some avg10=... total=N\nfull ..."). Returns 0,
 * or -EINVAL when it holds no well-formed "some" line. */
int pressure_parse(const char *buf, size_t len, struct pressure_line *out);

struct pressure;

/* Opens the three files: the cgroup's (cgroup_dir, its directory; NULL: none)
 * when they can be read, else proc_root/pressure (proc_root NULL: /proc).
 * where gets "cgroup DIR" or "/proc/pressure". NULL + errno (ENOENT: the
 * kernel has no PSI, or it is off: psi=0). */
struct pressure *pressure_open(const char *proc_root, const char *cgroup_dir, char *where, size_t cap);
/* Reads the three files now. Returns 0 or -errno. */
int pressure_read(struct pressure *pr, struct pressure_line out[PRESSURE_NRES]);
void pressure_close(struct pressure *pr);

/* The cgroup v2 directory of process pid (from proc_root/PID/cgroup's "0::"
 * line, under cgroup_mnt, e.g. /sys/fs/cgroup), into dir; 0, or -ENOENT when
 * it has none of its own (the root cgroup, or cgroup v1 only). */
int pressure_cgroup_dir(const char *proc_root, int pid, const char *cgroup_mnt, char *dir, size_t cap);

#endif
