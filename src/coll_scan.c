/* coll_scan.c: finding the tree in /proc through the children files. */
#include "collector_int.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Pushes onto the stack the orphans of the tree: spacetime's children (of
 * any of its threads) other than the command, adding those the table lacks
 * (their parent ended between two scans). */
static void scan_orphans(struct collector *c, uint64_t now, pid_t **stack, size_t *sp, size_t *stack_cap,
			 pid_t **kids, size_t *kids_cap, char **kbuf, size_t *kbuf_cap)
{
	char path[PATH_MAX];
	pid_t self = c->self;
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/%d/task", c->proc_root, (int)self);
	if (!(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		int fd = procfs_open_at(c->proc_root, self, (pid_t)atoi(de->d_name), "children");
		int k = fd >= 0 ? procfs_read_children(fd, kbuf, kbuf_cap, kids, kids_cap) : 0;
		if (fd >= 0)
			close(fd);
		for (int j = 0; j < k; j++) {
			pid_t pid = (*kids)[j];
			if (pid == c->root)
				continue;
			if (!ptable_get(c->pt, pid)) {
				struct pentry *e = coll_sample_add_proc(c, pid, self, now, NULL);
				if (!e)
					continue;
				if (c->sum.mode == COLLECTOR_POLL)
					coll_sample_note_exec(c, e, now);
				c->sum.rescans += c->sum.mode == COLLECTOR_NETLINK;
			}
			if (*sp == *stack_cap) {
				pid_t *ns = realloc(*stack, (*stack_cap * 2) * sizeof(*ns));
				if (!ns)
					continue;
				*stack = ns;
				*stack_cap *= 2;
			}
			(*stack)[(*sp)++] = pid;
		}
	}
	closedir(d);
}

/* Pushes onto the stack the tops of an attached tree: the processes whose
 * parent is not in it (the attached ones, and descendants whose parent ended
 * and which the kernel gave to init or a subreaper elsewhere: still ours). */
static void scan_tops(struct collector *c, pid_t **stack, size_t *sp, size_t *stack_cap)
{
	for (size_t i = 0; i < ptable_count(c->pt); i++) {
		const struct pentry *e = ptable_at(c->pt, i);
		if (ptable_get(c->pt, e->rec.ppid))
			continue;
		if (*sp == *stack_cap) {
			pid_t *ns = realloc(*stack, (*stack_cap * 2) * sizeof(*ns));
			if (!ns)
				return;
			*stack = ns;
			*stack_cap *= 2;
		}
		(*stack)[(*sp)++] = e->rec.pid;
	}
}

/* Finds every live process under root through the children files, adding the
 * ones missing from the table; marks found entries seen. The buffers grow to
 * any number of children: a file cut short would lose the whole subtree. */
/* A scan's working lists: the pids still to visit, and a children file's. */
struct scan {
	pid_t *stack, *kids;
	size_t sp, stack_cap, kids_cap, kbuf_cap;
	char *kbuf;
};

/* One child kid of pid found in a children file: added to the table when
 * new (not one retired, with events: a zombie not reaped yet), and visited
 * next. */
static void scan_kid(struct collector *c, struct scan *sc, pid_t pid, pid_t kid, uint64_t now,
		     coll_scan_found_fn found)
{
	if (kid == c->self)
		return; /* never its own tree's (attached to an ancestor) */
	struct pentry *ce = ptable_get(c->pt, kid);
	if (!ce && c->sum.mode == COLLECTOR_NETLINK && coll_proc_was_retired(c, kid))
		return;
	if (!ce) {
		struct pentry *e = ptable_get(c->pt, pid);
		e->forked_since_read = 1;
		ce = coll_sample_add_proc(c, kid, pid, now, e);
		if (!ce)
			return;
		/* polling cannot tell a new child from a new program; at the
		 * attach, neither is one */
		if (c->sum.mode == COLLECTOR_POLL && !c->attaching)
			coll_sample_note_exec(c, ce, now);
		/* its exec events, read before it was found */
		if (found && c->sum.mode == COLLECTOR_NETLINK && !c->attaching)
			found(c, kid, ce->rec.start_ns);
		if (!ptable_get(c->pt, kid))
			return;
		c->sum.rescans += c->sum.mode == COLLECTOR_NETLINK && !c->attaching;
	}
	if (sc->sp < sc->stack_cap)
		sc->stack[sc->sp++] = kid;
}

/* The children of task tid of pid. */
static void scan_task(struct collector *c, struct scan *sc, pid_t pid, pid_t tid, uint64_t now,
		      coll_scan_found_fn found)
{
	int fd = procfs_open_at(c->proc_root, pid, tid, "children");
	int k = fd >= 0 ? procfs_read_children(fd, &sc->kbuf, &sc->kbuf_cap, &sc->kids, &sc->kids_cap) : 0;
	if (fd >= 0)
		close(fd);
	if (k > 0 && sc->sp + (size_t)k > sc->stack_cap) {
		size_t cap = sc->sp + (size_t)k + sc->stack_cap;
		pid_t *ns = realloc(sc->stack, cap * sizeof(*ns));
		if (ns) {
			sc->stack = ns;
			sc->stack_cap = cap;
		}
	}
	for (int j = 0; j < k; j++)
		scan_kid(c, sc, pid, sc->kids[j], now, found);
}

/* The children of every task of pid (of its leader alone when it has one
 * thread). */
static void scan_proc(struct collector *c, struct scan *sc, pid_t pid, uint64_t now, coll_scan_found_fn found)
{
	char path[PATH_MAX];
	struct pentry *e = ptable_get(c->pt, pid);

	if (!e)
		return;
	e->seen = 1;
	if (e->rec.threads <= 1) {
		scan_task(c, sc, pid, pid, now, found);
		return;
	}
	snprintf(path, sizeof(path), "%s/%d/task", c->proc_root, pid);
	DIR *d = opendir(path);
	if (!d) {
		scan_task(c, sc, pid, pid, now, found);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			scan_task(c, sc, pid, (pid_t)atoi(de->d_name), now, found);
	closedir(d);
}

void coll_scan_tree(struct collector *c, uint64_t now, coll_scan_found_fn found)
{
	struct scan sc = {0};

	for (size_t i = 0; i < ptable_count(c->pt); i++)
		ptable_at(c->pt, i)->seen = 0;
	sc.stack = malloc(256 * sizeof(*sc.stack));
	if (!sc.stack)
		return;
	sc.stack_cap = 256;
	if (c->attach)
		scan_tops(c, &sc.stack, &sc.sp, &sc.stack_cap);
	else
		sc.stack[sc.sp++] = c->root;
	if (c->cfg.subreaper)
		scan_orphans(c, now, &sc.stack, &sc.sp, &sc.stack_cap, &sc.kids, &sc.kids_cap, &sc.kbuf, &sc.kbuf_cap);
	while (sc.sp)
		scan_proc(c, &sc, sc.stack[--sc.sp], now, found);
	free(sc.stack);
	free(sc.kids);
	free(sc.kbuf);
}
