/* coll_sample.c: processes added and retired, their identity, cheap samples
 * (stat, statm) and execs. */
#include "clockns.h"
#include "collector_int.h"

#include <errno.h>
#include <linux/kcmp.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Reads the command line of pid into the string pool; 0 if it is gone. */
uint32_t coll_sample_read_argv(struct collector *c, pid_t pid)
{
	ssize_t n = procfs_read_at(c->proc_root, pid, "cmdline", c->sm.argv, sizeof(c->sm.argv));

	if (n <= 0)
		return 0;
	if (c->sm.argv[n - 1] == '\0')
		n--; /* drop the final separator: args are NUL-separated */
	return store_str_intern(c->st, c->sm.argv, (size_t)n);
}

/* Reads the command line of pid at its exec, its stat just read into c->rbuf:
 * from its memory, between the bounds stat gives, when we may read it (one
 * system call, where cmdline costs an open and a close); else, or when the
 * area does not end its last argument (rewritten, as setproctitle does),
 * from /proc/PID/cmdline. A fake /proc root has no memory to read. */
static uint32_t read_exec_argv(struct collector *c, pid_t pid)
{
	uint64_t a, b;

	if (!c->cfg.proc_root && !c->sm.argv_vm_refused &&
	    procfs_parse_stat_args(c->rbuf, strlen(c->rbuf), &a, &b) == 0 && a && b > a) {
		size_t want = b - a < sizeof(c->sm.argv) - 1 ? (size_t)(b - a) : sizeof(c->sm.argv) - 1;
		struct iovec l = {c->sm.argv, want}, r = {(void *)(uintptr_t)a, want};
		ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

		/* not ours to read (yama, seccomp, another user's processes
		 * attached to): cmdline from now on, a call saved per exec */
		if (n < 0 && (errno == EPERM || errno == ENOSYS))
			c->sm.argv_vm_refused = 1;

		if (n == (ssize_t)want && (want < b - a || c->sm.argv[want - 1] == '\0')) {
			c->sm.argv_vm_reads++;
			return store_str_intern(c->st, c->sm.argv, c->sm.argv[want - 1] ? want : want - 1);
		}
	}
	return coll_sample_read_argv(c, pid);
}

/* Interns the argv the command was started with. */
uint32_t coll_sample_root_argv(struct collector *c)
{
	size_t n = 0;

	if (!c->cfg.root_argv)
		return 0;
	for (char *const *a = c->cfg.root_argv; *a; a++) {
		size_t l = strlen(*a) + 1;
		if (n + l > sizeof(c->sm.argv))
			break;
		memcpy(c->sm.argv + n, *a, l);
		n += l;
	}
	return n ? store_str_intern(c->st, c->sm.argv, n - 1) : 0;
}

static void prefetch_drop(struct collector *c, size_t i, int keep);
static void mem_settled(struct collector *c, struct pentry *e);
static void mem_zero(struct pentry *e);

/* At e's exec (ps: its stat after it, or NULL), the old image's shared
 * pages pass to the others that map them; the most it had since the last
 * tick: what it had then, and a fault's pages for each fault since (its
 * high-water mark went with it; its faults too when its stat could not be
 * read: then not known). A memory found gone before was the old image's (a
 * thread's exec lets the old leader's go first): the new one counts. */
static void old_image_leaves(struct collector *c, struct pentry *e, uint64_t t_ns, const struct procfs_stat *ps)
{
	uint64_t f = ps ? ps->minflt + ps->majflt : 0;
	uint64_t df = f > e->mem_at_faults ? f - e->mem_at_faults : 0;
	if (coll_pss_counts(c, e))
		coll_pss_leave(c, e);
	if (!e->mm_gone)
		coll_pss_gone(c, e, t_ns, 0, 0, df, ps ? 1 : 2);
	mem_settled(c, e);
	e->mem_left = 0;
}

/* Records an exec by e (netlink event or detected by polling). */
void coll_sample_note_exec(struct collector *c, struct pentry *e, uint64_t t_ns)
{
	struct store_exec ex = {.t_ns = t_ns, .pid = e->rec.pid, .ppid = e->rec.ppid};
	struct store_event ev = {.t_ns = t_ns, .type = STORE_EV_EXEC, .pid = e->rec.pid,
				 .ppid = e->rec.ppid};
	struct procfs_stat ps;

	/* the new program's name from stat, whose fd the ticks then reuse
	 * (cheaper than opening comm, then stat at the next tick); its command
	 * line once stat has said the pid is still this process's: both read
	 * at the exec's wakeup if it was read ahead, else now */
	int stat_ok;
	size_t k = 0;
	while (k < c->sm.npre && (c->sm.pre[k].pid != e->rec.pid || c->sm.pre[k].ts_ns != t_ns))
		k++;
	if (k < c->sm.npre) {
		ps = c->sm.pre[k].ps;
		stat_ok = coll_proc_identity(c, e, &ps) == 0;
		ex.argv_id = stat_ok ? c->sm.pre[k].argv_id : 0;
		int adopt = stat_ok && c->sm.pre[k].fd >= 0 && e->fd_stat < 0 && c->sm.pre[k].fd < c->fd_cache_below;
		if (adopt)
			e->fd_stat = c->sm.pre[k].fd;
		prefetch_drop(c, k, adopt);
		c->sm.prefetch_used++;
	} else {
		stat_ok = coll_proc_read_stat(c, e, &ps) == 0;
		ex.argv_id = stat_ok ? read_exec_argv(c, e->rec.pid) : 0;
	}
	if (!ex.argv_id && e->rec.pid == c->root && !e->rec.nexec)
		ex.argv_id = coll_sample_root_argv(c); /* we started it: we know what it ran */
	if (!ex.argv_id)
		e->rec.comm[0] = '\0'; /* gone already: the parent's name would be wrong */
	if (stat_ok) {
		memcpy(e->rec.comm, ps.comm, sizeof(e->rec.comm));
		e->rec.comm[sizeof(e->rec.comm) - 1] = '\0';
	}
	memcpy(ex.comm, e->rec.comm, sizeof(ex.comm));
	e->rec.argv_id = ex.argv_id;
	if (ex.argv_id)
		e->rec.valid |= PROC_V_ARGV;
	else
		e->rec.valid &= ~PROC_V_ARGV;
	c->total_execs++;
	old_image_leaves(c, e, t_ns, stat_ok ? &ps : NULL);
	/* (the image before the command's first exec was never counted) */
	e->rec.nexec++;
	e->top = (struct coll_top_proc){0};
	e->top_gone = 0; /* a thread's exec: its leader's record was no exit */
	/* a new memory: its high-water mark starts at nothing */
	e->hwm_kib = 0;
	e->hwm_read = 1;
	e->mem_at_faults = stat_ok ? ps.minflt + ps.majflt : e->mem_at_faults;
	if (c->sum.mode == COLLECTOR_NETLINK)
		e->vm_state = PTABLE_VM_OWN; /* a new program has a memory of its own */
	e->dil_seen = 0;
	/* A new program has a new address space: the old smaps fd shows the old one. */
	if (e->fd_smaps >= 0) {
		close(e->fd_smaps);
		e->fd_smaps = -1;
	}
	e->pss_t_ns = 0;
	e->rd_ok = 0;
	/* and new ptrace access: the command, forked by a spacetime that stays
	 * non-dumpable after its drop, becomes its user's own at exec */
	e->pss_denied = 0;
	e->forked_since_read = 0;
	e->exec_ns = t_ns;
	size_t idx = store_push_exec(c->st, &ex);
	e->unread_exec = !ex.argv_id && idx != SIZE_MAX ? idx + 1 : 0;
	store_push_event(c->st, &ev);
}

/* Whether an exec of pid was read ahead (its parent, then, is the tree's). */
static int prefetched(const struct collector *c, pid_t pid)
{
	for (size_t i = 0; i < c->sm.npre; i++)
		if (c->sm.pre[i].pid == pid)
			return 1;
	return 0;
}

/* Drops read-ahead entry i, closing its stat fd unless keep. */
static void prefetch_drop(struct collector *c, size_t i, int keep)
{
	if (!keep && c->sm.pre[i].fd >= 0)
		close(c->sm.pre[i].fd);
	c->sm.pre[i] = c->sm.pre[--c->sm.npre];
}

/* Reads ahead, for exec ev, what must be read while its program runs: its
 * stat (identity, name) and its command line, kept for coll_sample_note_exec.
 * Returns 1 when done, or when there is nothing to read (gone); 0 when the
 * events must be handled now: its parent is neither in the table nor an exec
 * read ahead (a stranger's exec, or a child of a fork not read yet), or no
 * room is left. */
int coll_sample_prefetch_exec(struct collector *c, const struct nlproc_event *ev)
{
	pid_t pid = ev->tgid;
	struct pentry *e = ptable_get(c->pt, pid);

	if (c->sm.npre == COLLECTOR_PREFETCH)
		return 0;
	for (size_t i = 0; i < c->sm.npre; i++)
		if (c->sm.pre[i].pid == pid && c->sm.pre[i].ts_ns == ev->ts_ns)
			return 1; /* read already */
	struct coll_prefetch *p = &c->sm.pre[c->sm.npre];
	*p = (struct coll_prefetch){.pid = pid, .ts_ns = ev->ts_ns, .at_ns = coll_base_clock(c), .fd = -1};
	/* the command's first exec: handled now, its records (coll_ts_apply)
	 * kept only once it has exec'd */
	if (e && coll_proc_before_first_exec(c, e))
		return 0;
	int fd = e && e->fd_stat >= 0 ? e->fd_stat : procfs_open_at(c->proc_root, pid, 0, "stat");
	if (fd < 0)
		return 1; /* gone (or no fd left): nothing read ahead, note_exec tries */
	ssize_t n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
	int own = !e || fd != e->fd_stat;
	if (n <= 0 || procfs_parse_stat(c->rbuf, (size_t)n, &p->ps) < 0) {
		if (own)
			close(fd);
		return 1;
	}
	/* the tree's only if its parent is: in the table, or read ahead; else
	 * its fork event must be read now to tell */
	if (!e && !ptable_get(c->pt, p->ps.ppid) && !prefetched(c, p->ps.ppid)) {
		close(fd);
		return 0;
	}
	p->argv_id = read_exec_argv(c, pid);
	/* kept for the ticks if note_exec can adopt it */
	p->fd = own && fd < c->fd_cache_below ? fd : -1;
	if (own && p->fd < 0)
		close(fd);
	c->sm.npre++;
	return 1;
}

/* Drops what was read ahead for execs not handled within the early window
 * (strangers', or gone with their events), or all of it. */
void coll_sample_prefetch_expire(struct collector *c, uint64_t now, int all)
{
	for (size_t i = 0; i < c->sm.npre;)
		if (all || c->sm.pre[i].at_ns + coll_base_early_ns(c) < now)
			prefetch_drop(c, i, 0);
		else
			i++;
}

/* Adds a process of the tree to the table; parent may be NULL (the root). */
struct pentry *coll_sample_add_proc(struct collector *c, pid_t pid, pid_t ppid, uint64_t t_ns,
					   const struct pentry *parent)
{
	struct procfs_stat ps;
	char comm[16] = "";
	uint32_t argv_id = 0, argv_valid = 0;
	int forked = parent != NULL;

	/* Copy what the child inherits first: adding may move the parent's entry. */
	if (parent) {
		argv_id = parent->rec.argv_id;
		argv_valid = parent->rec.valid & PROC_V_ARGV;
		memcpy(comm, parent->rec.comm, sizeof(comm));
		parent = NULL;
	}
	struct pentry *e = ptable_add(c->pt, pid);
	if (!e)
		return NULL;
	e->rec.id = ++c->sm.next_id;
	e->rec.ppid = ppid;
	e->inherit_max_kib = UINT64_MAX;
	e->rec.start_ns = t_ns;
	e->rec.exit_status = -1;
	e->rec.argv_id = argv_id;
	e->rec.valid |= argv_valid;
	memcpy(e->rec.comm, comm, sizeof(e->rec.comm));
	/* A forked child is read at the next tick: reading it here would delay
	 * the events behind this one, and a short process's exec with them. */
	if ((!forked || c->sum.mode == COLLECTOR_POLL) && coll_proc_read_stat(c, e, &ps) == 0) {
		coll_proc_take_stat(e, &ps);
		/* Counters a forked child starts with were counted in its parent. */
		e->rec.threads = ps.num_threads ? ps.num_threads : 1;
	}
	e->max_threads = e->rec.threads ? e->rec.threads : 1;
	c->total_procs++;
	/* A new process has one thread; one found by polling has what it has. */
	c->total_threads += c->sum.mode == COLLECTOR_POLL ? e->max_threads : 1;
	return e;
}

/* The address that tells coll_sample_retire to read stat itself. */
const struct procfs_stat coll_sample_retire_read;

/* Moves e out of the live table: final counters, exit status, published.
 * last: its stat just read (a zombie's final counters), or NULL when it was
 * just found gone; otherwise (COLL_SAMPLE_RETIRE_READ) stat is read here. */
void coll_sample_retire(struct collector *c, struct pentry *e, uint64_t t_ns, int status, int known,
			const struct procfs_stat *last)
{
	struct procfs_stat ps;
	struct store_event ev = {.t_ns = t_ns, .type = STORE_EV_EXIT, .pid = e->rec.pid,
				 .ppid = e->rec.ppid, .arg = status};

	mem_settled(c, e);

	if (last == COLL_SAMPLE_RETIRE_READ && coll_proc_read_stat(c, e, &ps) == 0)
		last = &ps;
	if (last && last != COLL_SAMPLE_RETIRE_READ)
		coll_proc_take_stat(e, last);
	if (c->ts_fd >= 0)
		coll_tsrec_adopt(c, e); /* its tasks' records read before its fork event */
	if (e->ts_leader) {
		/* exact at the exit, where samples saw it last up to a tick before */
		if (e->ts_utime_us + e->ts_stime_us >= e->rec.utime_us + e->rec.stime_us) {
			e->rec.utime_us = e->ts_utime_us;
			e->rec.stime_us = e->ts_stime_us;
		}
		if (e->ts_minflt + e->ts_majflt >= e->rec.minflt + e->rec.majflt) {
			e->rec.minflt = e->ts_minflt;
			e->rec.majflt = e->ts_majflt;
		}
		if (e->ts_hiwater_kib > e->rec.peak_rss_kib)
			e->rec.peak_rss_kib = e->ts_hiwater_kib;
		if (c->sum.delayacct == 2) { /* the kernel counted its waits */
			e->rec.wait_cpu_us = e->ts_wait_cpu_ns / 1000;
			e->rec.wait_io_us = e->ts_wait_io_ns / 1000;
			e->rec.valid |= PROC_V_WAIT;
		}
		if (!e->rec.comm[0])
			memcpy(e->rec.comm, e->ts_comm, sizeof(e->rec.comm));
		/* gone before its command line was read: the kernel names it now */
		if (e->unread_exec && e->ts_comm[0])
			store_exec_set_comm(c->st, e->unread_exec - 1, e->ts_comm);
		e->rec.valid |= PROC_V_CPU | PROC_V_FAULTS | PROC_V_RSS;
	}
	if (coll_pss_counts(c, e)) {
		/* its share of pages others map passes to them */
		coll_pss_leave(c, e);
	}
	/* its high-water RSS (taskstats) bounds what it had up to its exit
	 * (told already when its record came: coll_ts.c) */
	if (!e->top_gone) {
		uint64_t f = e->ts_leader ? e->ts_minflt + e->ts_majflt : 0;
		coll_pss_gone(c, e, t_ns ? t_ns : coll_base_clock(c), e->ts_hiwater_kib,
			      e->ts_leader && e->ts_hiwater_kib, f > e->mem_at_faults ? f - e->mem_at_faults : 0, 0);
	}
	c->gone_minflt += coll_base_since(e->rec.minflt, e->base_minflt);
	c->gone_majflt += coll_base_since(e->rec.majflt, e->base_majflt);
	c->gone_utime_us += coll_base_since(e->rec.utime_us, e->base_utime_us);
	c->gone_stime_us += coll_base_since(e->rec.stime_us, e->base_stime_us);
	if (c->attach && e->rec.peak_rss_kib > c->sum.ru_maxrss_kib)
		c->sum.ru_maxrss_kib = e->rec.peak_rss_kib; /* no wait4: the largest seen */
	e->rec.end_ns = t_ns ? t_ns : coll_base_clock(c);
	e->rec.threads = e->max_threads;
	if (known) {
		e->rec.exit_status = status;
		e->rec.valid |= PROC_V_EXIT;
	}
	coll_base_publish(c, e);
	store_push_event(c->st, &ev);
	size_t k = c->nretired++ % COLLECTOR_RETIRED;
	c->retired[k].pid = e->rec.pid;
	c->retired[k].ppid = e->rec.ppid;
	c->retired[k].start_ticks = e->start_ticks;
	c->retired[k].start_ns = e->rec.start_ns;
	c->retired[k].end_ns = e->rec.end_ns;
	c->retired[k].fork_seen = e->fork_seen;
	c->retired[k].exec_ns = e->exec_ns;
	c->retired[k].hwm_kib = e->ts_leader && e->rec.nexec <= 1 ? e->ts_hiwater_kib : 0;
	ptable_remove(c->pt, e->rec.pid);
}

/* An exec event of a process already retired: one whose exit event, read
 * from the other socket first (split netlink), retired it before its exec
 * event was read (a child whose fork event was lost, counted by its exit).
 * The exec, made between its start and its end, is counted now, its command
 * line gone with it. Returns 1 when it was such an exec. */
int coll_sample_retired_exec(struct collector *c, pid_t pid, uint64_t t_ns)
{
	size_t n = c->nretired < COLLECTOR_RETIRED ? c->nretired : COLLECTOR_RETIRED;

	for (size_t j = 0; j < n; j++) {
		size_t i = (c->nretired - 1 - j) % COLLECTOR_RETIRED; /* newest first */
		if (c->retired[i].pid != pid)
			continue;
		/* within its life: from its fork event, or (added by its exit
		 * event, its start unknown) the early window before its end */
		uint64_t from = c->retired[i].fork_seen ? c->retired[i].start_ns
				: c->retired[i].end_ns > coll_base_early_ns(c) ? c->retired[i].end_ns - coll_base_early_ns(c)
										  : 0;
		if (t_ns < from || t_ns > c->retired[i].end_ns)
			continue; /* another holder of the pid */
		struct store_exec ex = {.t_ns = t_ns, .pid = pid, .ppid = c->retired[i].ppid};
		struct store_event ev = {.t_ns = t_ns, .type = STORE_EV_EXEC, .pid = pid,
					 .ppid = c->retired[i].ppid};
		store_push_exec(c->st, &ex);
		store_push_event(c->st, &ev);
		c->total_execs++;
		return 1;
	}
	return 0;
}

/* Updates e->vm_state until it is known to be its own: kcmp(2) tells
 * whether e runs in its parent's memory (a child forked without CLONE_VM
 * never will; one with it has its own once it execs). */
static void vm_check(struct collector *c, struct pentry *e)
{
	if (e->vm_state == PTABLE_VM_OWN || e->rec.pid == c->root)
		return;
	/* an error (no kcmp, no ptrace access, the parent gone): its own */
	long k = syscall(SYS_kcmp, e->rec.pid, e->rec.ppid, KCMP_VM, 0, 0);
	e->vm_state = k == 0 ? PTABLE_VM_PARENTS : PTABLE_VM_OWN;
}

/* Reads stat and statm of e and updates its record and PSS estimate. Returns
 * -ESRCH when the process is gone. */
static int mem_read(struct collector *c, struct pentry *e, const struct procfs_stat *ps);

int coll_sample_cheap(struct collector *c, struct pentry *e, uint64_t now)
{
	struct procfs_stat ps;
	char comm[16];

	memcpy(comm, e->rec.comm, sizeof(comm));
	uint32_t max_threads = e->max_threads;
	e->mem_known = 0;
	int r = coll_proc_read_stat(c, e, &ps);
	if (r < 0)
		return r;
	coll_proc_take_stat(e, &ps);
	/* Polling sees no thread creation: count threads seen alive at once. */
	if (c->sum.mode == COLLECTOR_POLL && e->max_threads > max_threads)
		c->total_threads += e->max_threads - max_threads;
	if (c->sum.mode == COLLECTOR_POLL && e->rec.nexec && strncmp(comm, ps.comm, 16) != 0) {
		memcpy(e->rec.comm, ps.comm, sizeof(e->rec.comm));
		coll_sample_note_exec(c, e, now); /* the program changed: an exec we did not see */
	}
	if (procfs_stat_ended(&ps)) {
		/* its memory is gone: its pages are no longer its to pay for */
		if (!e->mm_gone && coll_pss_counts(c, e))
			coll_pss_leave(c, e);
		mem_settled(c, e);
		/* (its high-water mark comes with its record: at its retire) */
		e->mm_gone = 1;
		mem_zero(e);
		return 0;
	}
	vm_check(c, e);
	return mem_read(c, e, &ps);
}

/* The most RSS a process can have had between two reads of its memory:
 * its high-water mark when that rose since (a new most of its life, which
 * is the interval's), else what it had then plus a fault-around's pages
 * (COLL_SAMPLE_FAULT_KIB) per fault since, below its high-water mark. */
static uint64_t mem_max(uint64_t rss_then, uint64_t hwm_then, uint64_t hwm_now, uint64_t faults)
{
	if (hwm_now > hwm_then)
		return hwm_now;
	uint64_t by_faults = rss_then + faults * COLL_SAMPLE_FAULT_KIB;
	return by_faults < hwm_now ? by_faults : hwm_now;
}

/* e's pages are surely let go of (its exit event came, it is a zombie, or
 * it exec'd: a thread's exec lets the old leader's mm go first): reads
 * from here on hold what the others inherited of them. */
static void mem_settled(struct collector *c, struct pentry *e)
{
	uint64_t p = c->pm.ghost_pending_kib;
	c->pm.ghost_pending_kib -= e->left_part_kib < p ? e->left_part_kib : p;
	e->left_part_kib = 0;
}

/* e's figures once its memory is gone: nothing (out of the model, the
 * model's estimate of it is not taken any more). */
static void mem_zero(struct pentry *e)
{
	e->anon_rss = e->shared_rss = 0;
	e->rec.rss_kib = 0;
	e->rec.pss_kib = 0;
	e->est_anon_kib = e->est_file_kib = e->est_shmem_kib = 0;
}

/* e has no memory (exiting: its mm let go of, its exit event on its way;
 * or a kernel thread): its share of the pages others map passed to them
 * then, from the figures it had at the last tick. Left to its exit event,
 * those figures would be gone: the others' bounds would miss what they
 * inherit (a compiler's text, shared with the one that just ended). */
static void mem_left(struct collector *c, struct pentry *e)
{
	if (coll_pss_counts(c, e)) {
		e->left_part_kib = coll_pss_leave(c, e);
		c->pm.ghost_pending_kib += e->left_part_kib;
	}
	e->mem_left = 1;
	mem_zero(e);
	e->top_max_kib = 0;
}

/* A small process's memory from statm (a seventh of status's cost): RSS and
 * its split, no high-water mark; the most it can have had since the last
 * read is what it had then plus a fault-around's pages per fault, which the
 * caller made sure stays small (COLL_SAMPLE_SMALL_KIB). */
static int mem_read_small(struct collector *c, struct pentry *e, const struct procfs_stat *ps, uint64_t then,
			  uint64_t df)
{
	struct procfs_statm sm;
	uint64_t pk = (uint64_t)procfs_page_kib();
	int own, fd = coll_proc_fd(c, e->rec.pid, &e->fd_statm, "statm", &own);

	if (fd == -ENOENT || fd == -ESRCH)
		return -ESRCH;
	if (fd < 0)
		return fd;
	ssize_t n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
	if (own)
		close(fd);
	if (n < 0)
		return -ESRCH;
	/* (no mm: the kernel writes all its fields 0; one that lives has a size) */
	if (n == 0 || procfs_parse_statm(c->rbuf, (size_t)n, &sm) < 0 || !sm.size_pages) {
		mem_left(c, e);
		return 0;
	}
	uint64_t res = sm.resident_pages * pk, shr = sm.shared_pages * pk;
	if (shr > res)
		shr = res;
	uint64_t most = then + df * COLL_SAMPLE_FAULT_KIB;
	e->top_max_kib = most > res ? most : res;
	/* its high-water mark can have risen to that since */
	if (e->top_max_kib > e->hwm_kib)
		e->hwm_kib = e->top_max_kib;
	e->anon_rss = res - shr;
	e->shared_rss = shr;
	e->rec.rss_kib = res;
	e->mem_at_rss_pages = ps->rss_pages;
	e->mem_at_faults = ps->minflt + ps->majflt;
	if (res > e->rec.peak_rss_kib && !coll_proc_vm_borrowed(c, e))
		e->rec.peak_rss_kib = res;
	e->mem_known = 1;
	return 0;
}

/* Reads e's memory (status: RSS, its split, the high-water mark) when stat
 * says it moved since the last read: its RSS, or its faults (a page mapped
 * and let go between two ticks leaves its faults). Unmoved, the most it can
 * have had since the last tick is what it has. */
static int mem_read(struct collector *c, struct pentry *e, const struct procfs_stat *ps)
{
	struct procfs_status st;
	uint64_t faults = ps->minflt + ps->majflt;

	if ((e->rec.valid & PROC_V_RSS) && ps->rss_pages == e->mem_at_rss_pages && faults == e->mem_at_faults) {
		e->top_max_kib = e->rec.rss_kib;
		e->mem_known = 1;
		return 0;
	}
	uint64_t pk = (uint64_t)procfs_page_kib(), then = (e->rec.valid & PROC_V_RSS) ? e->rec.rss_kib : 0;
	uint64_t df = faults > e->mem_at_faults ? faults - e->mem_at_faults : 0;
	if ((e->rec.valid & PROC_V_RSS) && ps->rss_pages * pk < COLL_SAMPLE_SMALL_KIB && then < COLL_SAMPLE_SMALL_KIB &&
	    df * COLL_SAMPLE_FAULT_KIB < COLL_SAMPLE_SMALL_KIB)
		return mem_read_small(c, e, ps, then, df);
	int own, fd = coll_proc_fd(c, e->rec.pid, &e->fd_status, "status", &own);
	if (fd == -ENOENT || fd == -ESRCH)
		return -ESRCH;
	if (fd < 0)
		return fd; /* out of fds: not gone */
	ssize_t n = procfs_pread_once(fd, c->rbuf, sizeof(c->rbuf));
	if (own)
		close(fd);
	if (n < 0)
		return -ESRCH;
	if (n == 0 || procfs_parse_status(c->rbuf, (size_t)n, &st) < 0 ||
	    !(st.valid & PROCFS_STATUS_RSS)) {
		/* exiting, a zombie or a kernel thread: no memory */
		mem_left(c, e);
		return 0;
	}
	uint64_t res = st.rss_kib, shr = st.file_kib + st.shmem_kib;
	if (!(st.valid & PROCFS_STATUS_SPLIT) || shr > res)
		shr = shr > res ? res : shr; /* an old kernel's: all of it taken as its own */
	uint64_t hwm = (st.valid & PROCFS_STATUS_HWM) && st.hwm_kib >= res ? st.hwm_kib : res;
	if (e->rec.valid & PROC_V_RSS)
		e->top_max_kib = mem_max(then, e->hwm_kib, hwm, df);
	else if (!e->rec.nexec && e->fork_seen)
		/* a forked child's high-water mark starts at its parent's: what
		 * it has and what its faults since the fork can have added */
		e->top_max_kib = res + df * COLL_SAMPLE_FAULT_KIB < hwm ? res + df * COLL_SAMPLE_FAULT_KIB : hwm;
	else
		e->top_max_kib = hwm;
	if (e->top_max_kib < res)
		e->top_max_kib = res;
	e->anon_rss = res - shr;
	e->shared_rss = shr;
	e->rec.rss_kib = res;
	e->hwm_kib = hwm;
	e->hwm_read = 1;
	e->mem_at_rss_pages = ps->rss_pages;
	e->mem_at_faults = faults;
	e->rec.valid |= PROC_V_RSS;
	if (res > e->rec.peak_rss_kib && !coll_proc_vm_borrowed(c, e))
		e->rec.peak_rss_kib = res;
	e->mem_known = 1;
	return 0;
}

/* Tells whether /proc shows the process ended (gone, zombie or dead). */
int coll_sample_proc_ended(struct collector *c, struct pentry *e, struct procfs_stat *ps, int *read)
{
	int r = coll_proc_read_stat(c, e, ps);
	*read = r == 0;
	if (r < 0)
		return r == -ESRCH;
	return procfs_stat_ended(ps);
}

/* Whether e's exit event surely is its end, with nothing /proc would add:
 * it never had a second thread (so none exec'd, which also sends the
 * leader's exit) and its taskstats record came (exact figures at the exit).
 * A process is born with one thread (its fork event came) and an exec leaves
 * one; any other is told by a fork event, unless events were lost. Saves a
 * system call per process. */
static int exit_sure(const struct collector *c, const struct pentry *e)
{
	if (c->ts_fd < 0 || !e->ts_leader || e->thread_forked || e->exit_late || c->sum.lost_events ||
	    e->rec.pid == c->root)
		return 0;
	return e->fork_seen || (e->start_ticks && e->rec.threads == 1 && e->max_threads == 1);
}

/* Retires the processes whose exit event came, if /proc agrees they ended;
 * one still running had a thread exec, or the event was another's. */
void coll_sample_retire_exited(struct collector *c)
{
	for (size_t i = 0; i < ptable_count(c->pt);) {
		struct pentry *e = ptable_at(c->pt, i);
		struct procfs_stat ps;
		int read = 0;
		/* its records may have come before its fork event: kept apart
		 * until now (coll_sample_retire adopts them too) */
		if (e->exit_pending && !e->ts_leader && c->ts_fd >= 0)
			coll_tsrec_adopt(c, e);
		/* its record, sent before its exit event, is unread yet when the
		 * taskstats socket was last found empty before that event: it
		 * waits a tick for it, which would come to no one once it is
		 * gone (a guard: the callers read the records after the events) */
		if (e->exit_pending && !e->ts_leader && c->ts_fd >= 0 && e->exit_ns >= c->ts_empty_ns) {
			i++;
			continue;
		}
		if (e->exit_pending && (exit_sure(c, e) || coll_sample_proc_ended(c, e, &ps, &read))) {
			/* a leader that exited before its threads: it ended now */
			coll_sample_retire(c, e, e->exit_late ? coll_base_clock(c) : e->exit_ns,
					   e->exit_status_pending, 1, read ? &ps : NULL);
			continue;
		}
		/* still alive in /proc: the exit event is sent before the process
		 * is a zombie, so it stays pending (only an exec, a thread's,
		 * takes it back); a zombie leader's threads live on */
		if (e->exit_pending && read && ps.state == 'Z')
			e->exit_late = 1;
		i++;
	}
}
