/* coll_mem.c: memory left, each tick (see coll_mem.h). */
#include "collector_int.h"

#include "cglimit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads a whole small file at fd into buf (NUL-terminated); its length or -1. */
static ssize_t read_fd(int fd, char *buf, size_t cap)
{
	ssize_t n = fd >= 0 ? pread(fd, buf, cap - 1, 0) : -1;
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

void coll_mem_start(struct collector *c, pid_t pid)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/meminfo", c->cfg.proc_root ? c->cfg.proc_root : "/proc");
	c->mem.meminfo_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/vmstat", c->cfg.proc_root ? c->cfg.proc_root : "/proc");
	c->mem.vmstat_fd = open(path, O_RDONLY | O_CLOEXEC);
	/* the limits of the cgroups the command runs in (spacetime's: the
	 * command inherits them) */
	/* (a test's fake /proc holds its cgroups too) */
	c->mem.cg = cglimit_open(c->cfg.proc_root, c->cfg.proc_root ? c->cfg.proc_root : NULL, pid ? pid : getpid());
	c->sum.mem_by_cgroup = c->mem.cg != NULL;
	/* whether the kernel counts the time tasks wait (their taskstats
	 * records carry it): only with taskstats is it ours to sum */
	snprintf(path, sizeof(path), "%s/sys/kernel/task_delayacct", c->cfg.proc_root ? c->cfg.proc_root : "/proc");
	int fd = c->ts_fd >= 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	char b[8];
	ssize_t n = read_fd(fd, b, sizeof(b));
	c->sum.delayacct = n > 0 ? (b[0] == '0' ? 1 : 2) : 0;
	if (fd >= 0)
		close(fd);
}

/* Memory left now, and of how much: the lesser of the machine's available
 * memory and the room its cgroups leave (cglimit.h). Returns 0, or -1 when
 * neither is known. */
static int mem_left(struct collector *c, uint64_t *left, uint64_t *of)
{
	uint64_t total = 0, avail = 0, room, limit;
	ssize_t n = read_fd(c->mem.meminfo_fd, c->mem.buf, sizeof(c->mem.buf));
	int have = n > 0 && memwarn_parse_meminfo(c->mem.buf, (size_t)n, &total, &avail) == 0;

	*left = *of = 0;
	if (have) {
		*left = avail;
		*of = total;
	}
	if (c->mem.cg && cglimit_room(c->mem.cg, &room, &limit) == 0) {
		if (!have || room < *left) {
			*left = room;
			*of = limit;
		}
		have = 1;
	}
	return have ? 0 : -1;
}

/* The three live processes whose PSS grew fastest over COLL_MEM_GROW_NS,
 * into the summary while memory is low (kept from the last low tick after:
 * the summary names them). Each process's growth is measured from a base
 * taken every COLL_MEM_GROW_NS. */
static void mem_growers(struct collector *c, uint64_t now, int low)
{
	size_t n = ptable_count(c->pt);
	pid_t pid[STORE_MEM_GROWERS] = {0};
	uint64_t kib[STORE_MEM_GROWERS] = {0};

	for (size_t i = 0; i < n; i++) {
		struct pentry *e = ptable_at(c->pt, i);
		if (!e->grow_base_ns || now - e->grow_base_ns >= COLL_MEM_GROW_NS) {
			e->grow_kib = e->grow_base_ns && e->rec.pss_kib > e->grow_base_kib ? e->rec.pss_kib - e->grow_base_kib : 0;
			e->grow_base_kib = e->rec.pss_kib;
			e->grow_base_ns = now;
		}
		if (!low || !e->grow_kib)
			continue;
		int k = 0; /* its place among the fastest, largest first */
		while (k < STORE_MEM_GROWERS && pid[k] && kib[k] >= e->grow_kib)
			k++;
		if (k == STORE_MEM_GROWERS)
			continue;
		memmove(&pid[k + 1], &pid[k], (size_t)(STORE_MEM_GROWERS - 1 - k) * sizeof(pid[0]));
		memmove(&kib[k + 1], &kib[k], (size_t)(STORE_MEM_GROWERS - 1 - k) * sizeof(kib[0]));
		pid[k] = e->rec.pid;
		kib[k] = e->grow_kib;
	}
	if (!low)
		return;
	memcpy(c->sum.mem_grow_pid, pid, sizeof(pid));
	memcpy(c->sum.mem_grow_kib, kib, sizeof(kib));
}

/* The kernel's OOM kills since the last tick (/proc/vmstat oom_kill): each
 * new one counted, the first ones' times kept for naming their victims. */
static void mem_oom(struct collector *c, uint64_t now)
{
	ssize_t n = read_fd(c->mem.vmstat_fd, c->mem.buf, sizeof(c->mem.buf));
	const char *k = n > 0 ? strstr(c->mem.buf, "\noom_kill ") : NULL;
	unsigned long long v;

	if (!k || sscanf(k + 10, "%llu", &v) != 1)
		return;
	if (c->mem.oom_known && v > c->mem.oom_seen) {
		for (uint64_t i = c->sum.oom_kills; i < c->sum.oom_kills + (v - c->mem.oom_seen) && i < STORE_OOM_TIMES; i++)
			c->sum.oom_t_ns[i] = now;
		c->sum.oom_kills += v - c->mem.oom_seen;
	}
	c->mem.oom_seen = v;
	c->mem.oom_known = 1;
}

void coll_mem_tick(struct collector *c, struct sample *s, uint64_t now)
{
	uint64_t left = 0, of = 0;
	struct memwarn_state st;

	mem_oom(c, now);
	if (mem_left(c, &left, &of) < 0)
		return;
	s->mem_left_kib = left;
	s->valid |= SAMPLE_MEMLEFT;
	memwarn_push(&c->mem.hist, now, left, s->valid & SAMPLE_PSS ? s->pss_kib : 0);
	memwarn_eval(&c->mem.hist, of, s->valid & SAMPLE_PSI ? s->psi_mem_full_pm / 1000.0 : -1, &st);
	c->sum.mem_of_kib = of;
	if (!c->sum.mem_min_left_kib || left < c->sum.mem_min_left_kib) {
		c->sum.mem_min_left_kib = left;
		c->sum.mem_min_left_t_ns = now;
	}
	c->sum.mem_low = st.low;
	c->sum.mem_eta_ms = st.eta_s >= 0 && st.eta_s < 1e9 ? (uint64_t)(st.eta_s * 1000) : 0;
	if (st.low) {
		c->sum.mem_low_ticks++;
		if (!c->sum.mem_low_first_ns)
			c->sum.mem_low_first_ns = now;
	}
	mem_growers(c, now, st.low);
}

void coll_mem_free(struct collector *c)
{
	if (c->mem.meminfo_fd >= 0)
		close(c->mem.meminfo_fd);
	cglimit_close(c->mem.cg);
	c->mem.cg = NULL;
	if (c->mem.vmstat_fd >= 0)
		close(c->mem.vmstat_fd);
	c->mem.meminfo_fd = c->mem.vmstat_fd = -1;
}
