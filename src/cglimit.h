/* cglimit: the room the command's cgroups leave it. Inside a container or a
 * CI runner the limit that binds is a cgroup's, not the machine's: the
 * leaf's or any ancestor's memory.max (cgroup v2; in a cgroup namespace the
 * mount's root is the container's own), or v1's hierarchical limit. Each
 * one's room is its limit less its working set (usage less inactive file
 * pages, which reclaim takes first: what kubelet and docker count); the
 * smallest binds. */
#ifndef SPACETIME_CGLIMIT_H
#define SPACETIME_CGLIMIT_H

#include <stdint.h>
#include <sys/types.h>

#define CGLIMIT_LEVELS 8 /* limited cgroups followed at most, leaf first */

struct cglimit;

/* The limited cgroups of process pid (proc_root/PID/cgroup; cg_root: where
 * cgroups are mounted, NULL "/sys/fs/cgroup"). NULL + errno (ENOENT: none
 * has a limit). */
struct cglimit *cglimit_open(const char *proc_root, const char *cg_root, pid_t pid);
/* The smallest room now (KiB) and the limit of the cgroup it is in. Returns
 * 0, or -errno when none could be read. */
int cglimit_room(struct cglimit *cl, uint64_t *room_kib, uint64_t *limit_kib);
void cglimit_close(struct cglimit *cl);

#endif
