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
void coll_scan_tree(struct collector *c, uint64_t now)
{
	pid_t *stack = NULL, *kids = NULL;
	size_t sp = 0, stack_cap = 0, kids_cap = 0, kbuf_cap = 0;
	char *kbuf = NULL;
	char path[PATH_MAX];

	for (size_t i = 0; i < ptable_count(c->pt); i++)
		ptable_at(c->pt, i)->seen = 0;
	stack = malloc(256 * sizeof(*stack));
	if (!stack)
		return;
	stack_cap = 256;
	if (c->attach)
		scan_tops(c, &stack, &sp, &stack_cap);
	else
		stack[sp++] = c->root;
	if (c->cfg.subreaper)
		scan_orphans(c, now, &stack, &sp, &stack_cap, &kids, &kids_cap, &kbuf, &kbuf_cap);
	while (sp) {
		pid_t pid = stack[--sp];
		struct pentry *e = ptable_get(c->pt, pid);
		if (!e)
			continue;
		e->seen = 1;
		snprintf(path, sizeof(path), "%s/%d/task", c->proc_root, pid);
		DIR *d = e->rec.threads > 1 ? opendir(path) : NULL;
		struct dirent *de;
		pid_t tid = pid;
		do {
			if (d) {
				de = readdir(d);
				if (!de)
					break;
				if (de->d_name[0] == '.')
					continue;
				tid = (pid_t)atoi(de->d_name);
			}
			int fd = procfs_open_at(c->proc_root, pid, tid, "children");
			int k = fd >= 0 ? procfs_read_children(fd, &kbuf, &kbuf_cap, &kids, &kids_cap) : 0;
			if (fd >= 0)
				close(fd);
			if (k > 0 && sp + (size_t)k > stack_cap) {
				size_t cap = sp + (size_t)k + stack_cap;
				pid_t *ns = realloc(stack, cap * sizeof(*ns));
				if (ns) {
					stack = ns;
					stack_cap = cap;
				}
			}
			for (int j = 0; j < k; j++) {
				if (kids[j] == c->self)
					continue; /* never its own tree's (attached to an ancestor) */
				struct pentry *ce = ptable_get(c->pt, kids[j]);
				if (!ce && c->sum.mode == COLLECTOR_NETLINK && coll_proc_was_retired(c, kids[j]))
					continue;
				if (!ce) {
					e->forked_since_read = 1;
					ce = coll_sample_add_proc(c, kids[j], pid, now, e);
					if (!ce)
						continue;
					/* polling cannot tell a new child from a new
					 * program; at the attach, neither is one */
					if (c->sum.mode == COLLECTOR_POLL && !c->attaching)
						coll_sample_note_exec(c, ce, now);
					/* its exec events, read before it was found */
					if (c->sum.mode == COLLECTOR_NETLINK && !c->attaching)
						coll_events_replay(c, kids[j], ce->rec.start_ns);
					ce = ptable_get(c->pt, kids[j]);
					if (!ce)
						continue;
					c->sum.rescans += c->sum.mode == COLLECTOR_NETLINK && !c->attaching;
					e = ptable_get(c->pt, pid); /* add may move entries */
				}
				if (sp < stack_cap)
					stack[sp++] = kids[j];
			}
		} while (d);
		if (d)
			closedir(d);
	}
	free(stack);
	free(kids);
	free(kbuf);
}
