/* taskstats: per-task exit records from the kernel (kernel/taskstats.c,
 * kernel/tsacct.c).
 *
 * A listener registers its port for the exits on a set of CPUs; from then on
 * every task that ends on one of them sends it a TASKSTATS_CMD_NEW message
 * whose attributes are an AGGR_PID nest (PID u32 + STATS) and, when the last
 * task of a process that ever had several threads ends, an AGGR_TGID nest
 * (TGID u32 + STATS). Some 64-bit architectures put a NULL attribute first.
 *
 * STATS is a struct taskstats of the kernel's version: it grows at the end
 * (the attribute is as long as the kernel's struct), except version 15
 * (6.15-rc kernels), which inserted delay max/min pairs in the middle; version
 * 16 moved them to the end. Unless a NULL attribute precedes its nest, it
 * sits 4 bytes past an 8-byte boundary, so it is always copied out with
 * memcpy, never read in place. */
#include "taskstats.h"

#include "nlwait.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#if TASKSTATS_VERSION < 12 || TASKSTATS_VERSION == 15
#error "needs <linux/taskstats.h> of version 12 or later, but not the misordered version 15"
#endif

/* How long taskstats_open waits for a reply the kernel queues inside sendto(). */
#define TASKSTATS_REPLY_WAIT_MS 1000

/* Room for the CPU list; the kernel takes up to 100 + 6 * NR_CPUS. */
#define TASKSTATS_MASK_MAX 256

/* Room for one request: headers and the CPU list or the family name. */
#define TASKSTATS_REQ_MAX 512

#define TS_OFF(field) offsetof(struct taskstats, field)
#define TS_END(field) (TS_OFF(field) + sizeof(((struct taskstats *)0)->field))

/* Where version 15 put each 16-byte delay max/min pair: before these fields
 * (in the layout of every other version). The pairs after ac_tgid shift only
 * fields spacetime does not read. */
static const size_t taskstats_v15_gaps[] = {
	TS_OFF(blkio_count),   TS_OFF(swapin_count), TS_OFF(cpu_run_real_total),
	TS_OFF(thrashing_count), TS_OFF(ac_btime64), TS_OFF(ac_tgid),
};
#define TASKSTATS_V15_GAPS (sizeof(taskstats_v15_gaps) / sizeof(taskstats_v15_gaps[0]))

/* Copies the STATS payload p of len bytes into a zeroed *ts in the layout of
 * <linux/taskstats.h>, undoing version 15's insertions, and returns how many
 * leading bytes of *ts the record held. */
static size_t taskstats_copy(const char *p, size_t len, uint16_t version, struct taskstats *ts)
{
	size_t start = 0, shift = 0;

	memset(ts, 0, sizeof(*ts));
	if (version != 15) {
		len = len < sizeof(*ts) ? len : sizeof(*ts);
		memcpy(ts, p, len);
		return len;
	}
	/* Segment by segment, each one 16 bytes further along than the last. */
	for (size_t i = 0; i <= TASKSTATS_V15_GAPS; i++) {
		size_t end = i < TASKSTATS_V15_GAPS ? taskstats_v15_gaps[i] : TS_END(ac_tgid);

		if (start + shift >= len)
			return start;
		if (end + shift > len) {
			memcpy((char *)ts + start, p + start + shift, len - shift - start);
			return len - shift;
		}
		memcpy((char *)ts + start, p + start + shift, end - start);
		start = end;
		shift += 16;
	}
	return start;
}

/* The task's CPU time. ac_utime and ac_stime are the tick-sampled counts
 * (whole ticks without VIRT_CPU_ACCOUNTING: a 30 ms burst beside another busy
 * task can read 10 ms); cpu_run_virtual_total is the scheduler's exact
 * runtime (ns), filled whatever delay accounting says. Their sum is taken
 * from it, split as the ticks split it, as /proc/PID/stat does
 * (cputime_adjust). */
static void taskstats_cputime(const struct taskstats *ts, size_t have, struct taskstats_exit *e)
{
	uint64_t u = ts->ac_utime, s = ts->ac_stime;

	if (have >= TS_END(cpu_run_virtual_total) && ts->cpu_run_virtual_total) {
		uint64_t rt = ts->cpu_run_virtual_total / 1000;
		if (!s) {
			u = rt;
		} else if (!u) {
			s = rt;
		} else {
			/* (the sum in 128 bits: two fields near 2^64 must not
			 * wrap it to 0) */
			s = (uint64_t)((unsigned __int128)rt * s / ((unsigned __int128)u + s));
			u = rt - s;
		}
	}
	e->utime_us = u;
	e->stime_us = s;
}

/* Fills one record from an AGGR nest's id and STATS attributes. Returns 0, or
 * -EINVAL when STATS is too short for the version it claims. */
static int taskstats_fill(uint32_t id, const struct nlattr *stats, int aggr_tgid,
			  struct taskstats_exit *e)
{
	const char *p = mnl_attr_get_payload(stats);
	size_t len = mnl_attr_get_payload_len(stats), have;
	struct taskstats ts;
	uint16_t version;

	memset(e, 0, sizeof(*e));
	e->pid = e->tgid = (pid_t)id;
	e->aggr_tgid = aggr_tgid;
	if (len < sizeof(version))
		return -EINVAL;
	memcpy(&version, p, sizeof(version));
	have = taskstats_copy(p, len, version, &ts);
	/* Version 0: the AGGR_TGID record of kernels that left its version
	 * unset (it held delay totals only); version 1 had nothing but delays. */
	if (version < 2)
		return 0;
	/* Version 2 added basic accounting; by version 8 the struct holds
	 * every field read below. */
	if (have < TS_END(ac_majflt) || (version >= 8 && have < TS_END(nivcsw)))
		return -EINVAL;
	if (!aggr_tgid && version >= 12 && have >= TS_END(ac_tgid) && ts.ac_tgid != 0)
		e->tgid = (pid_t)ts.ac_tgid;
	e->ppid = (pid_t)ts.ac_ppid;
	memcpy(e->comm, ts.ac_comm, strnlen(ts.ac_comm, sizeof(e->comm) - 1));
	e->exitcode = ts.ac_exitcode;
	if (version >= 10 && have >= TS_END(ac_btime64))
		e->btime_s = ts.ac_btime64;
	else
		e->btime_s = ts.ac_btime;
	e->etime_us = ts.ac_etime;
	taskstats_cputime(&ts, have, e);
	e->minflt = ts.ac_minflt;
	e->majflt = ts.ac_majflt;
	/* Older versions: what their (shorter) struct held; the rest stays 0. */
	e->hiwater_rss_kib = ts.hiwater_rss;
	e->hiwater_vm_kib = ts.hiwater_vm;
	e->read_bytes = ts.read_bytes;
	e->write_bytes = ts.write_bytes;
	e->nvcsw = ts.nvcsw;
	e->nivcsw = ts.nivcsw;
	e->cpu_delay_ns = ts.cpu_delay_total;
	e->blkio_delay_ns = ts.blkio_delay_total;
	e->swapin_delay_ns = ts.swapin_delay_total;
	if (version >= 6 && have >= TS_END(thrashing_delay_total))
		e->thrashing_delay_ns = ts.thrashing_delay_total;
	if (have >= TS_END(freepages_delay_total))
		e->reclaim_delay_ns = ts.freepages_delay_total;
	return 0;
}

/* What one AGGR_PID or AGGR_TGID nest holds. */
struct taskstats_nest {
	uint16_t id_type;            /* TASKSTATS_TYPE_PID or _TGID, the one expected */
	const struct nlattr *id, *stats;
	size_t used;                 /* payload bytes the attributes walked cover */
	int err;
};

/* Collects the id and STATS of a nest; other attributes are skipped. */
static int taskstats_nest_cb(const struct nlattr *attr, void *data)
{
	struct taskstats_nest *n = data;
	uint16_t type = mnl_attr_get_type(attr);

	n->used += (size_t)MNL_ALIGN(attr->nla_len);
	if (type == n->id_type) {
		if (n->id || mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			goto bad;
		n->id = attr;
	} else if (type == TASKSTATS_TYPE_STATS) {
		if (n->stats)
			goto bad;
		n->stats = attr;
	}
	return MNL_CB_OK;
bad:
	n->err = -EINVAL;
	return MNL_CB_ERROR;
}

/* Where the records of one datagram go. */
struct taskstats_out {
	struct taskstats_exit *out;
	size_t max, n;
	size_t used;                 /* message payload bytes the attributes walked cover */
	int err;
};

/* Turns each AGGR nest of a message into a record; other attributes (the
 * NULL padding, anything newer) are skipped. */
static int taskstats_msg_cb(const struct nlattr *attr, void *data)
{
	struct taskstats_out *o = data;
	uint16_t type = mnl_attr_get_type(attr);
	struct taskstats_nest n = { .id_type = TASKSTATS_TYPE_PID };
	struct taskstats_exit e;

	o->used += (size_t)MNL_ALIGN(attr->nla_len);
	if (type != TASKSTATS_TYPE_AGGR_PID && type != TASKSTATS_TYPE_AGGR_TGID)
		return MNL_CB_OK;
	if (type == TASKSTATS_TYPE_AGGR_TGID)
		n.id_type = TASKSTATS_TYPE_TGID;
	if (mnl_attr_parse_nested(attr, taskstats_nest_cb, &n) < 0 && n.err == 0)
		n.err = -EINVAL;
	/* Bytes the walk stopped short of: a damaged inner attribute. */
	if (n.err == 0 && n.used < mnl_attr_get_payload_len(attr))
		n.err = -EINVAL;
	if (n.err == 0 && (!n.id || !n.stats))
		n.err = -EINVAL;
	if (n.err == 0)
		n.err = taskstats_fill(mnl_attr_get_u32(n.id), n.stats,
				       type == TASKSTATS_TYPE_AGGR_TGID, &e);
	if (n.err == 0 && o->n == o->max)
		n.err = -ENOSPC;
	if (n.err < 0) {
		o->err = n.err;
		return MNL_CB_ERROR;
	}
	o->out[o->n++] = e;
	return MNL_CB_OK;
}

/* Walks the datagram with libmnl, checking every length before use: the
 * attributes of a message are walked within its exact payload, never past it
 * to its aligned end. Stops at the first damaged message or record, keeping
 * what was parsed before it. */
int taskstats_parse(const void *buf, size_t len, uint16_t family, struct taskstats_exit *out,
		    size_t max, size_t *n_ok)
{
	struct taskstats_out o = { .out = out, .max = max };
	const struct nlmsghdr *nlh = buf;
	int rem;

	if (n_ok)
		*n_ok = 0;
	if (!buf || len > INT_MAX || ((uintptr_t)buf & (NLMSG_ALIGNTO - 1)) || (!out && max))
		return -EINVAL;
	rem = (int)len;
	for (; nlwait_msg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		size_t plen = mnl_nlmsg_get_payload_len(nlh);
		const struct genlmsghdr *genl;

		if (nlh->nlmsg_type != family)
			continue;
		if (plen < GENL_HDRLEN) {
			o.err = -EINVAL;
			goto out;
		}
		genl = mnl_nlmsg_get_payload(nlh);
		if (genl->cmd != TASKSTATS_CMD_NEW)
			continue;
		o.used = 0;
		if (mnl_attr_parse_payload((const char *)genl + GENL_HDRLEN, plen - GENL_HDRLEN,
					   taskstats_msg_cb, &o) < 0 && o.err == 0)
			o.err = -EINVAL;
		if (o.err == 0 && o.used < plen - GENL_HDRLEN)
			o.err = -EINVAL;
		if (o.err < 0)
			goto out;
	}
	/* Bytes left over that do not hold a whole message: truncation. */
	if (rem > 0)
		o.err = -EINVAL;
out:
	if (n_ok)
		*n_ok = o.n;
	return o.err < 0 ? o.err : (int)o.n;
}

int taskstats_belongs(const struct taskstats_exit *x, const struct taskstats_owner *o,
		      uint64_t after_ns, uint64_t read_ns)
{
	uint64_t lived = x->etime_us * 1000ull;

	if (o->ours)
		return 1;
	/* started at the latest read_ns - lived: before o's fork, a stranger
	 * that had the pid before (a record read before o's fork event, or
	 * one too long-lived to fit since) */
	if (o->start_ns && (lived > read_ns || read_ns - lived + TASKSTATS_SLACK_NS < o->start_ns))
		return 0;
	/* started at the earliest after_ns - lived: after o ended, a process
	 * that got the pid since */
	if (o->end_ns && after_ns > lived + TASKSTATS_SLACK_NS &&
	    after_ns - lived - TASKSTATS_SLACK_NS > o->end_ns + TASKSTATS_SLACK_NS)
		return 0;
	if (o->parent_sure && x->ppid != 0 && x->ppid != o->ppid)
		return 0;
	return 1;
}

/* Writes the online-CPU list ("0-1", "0-3,8-11") into mask: the kernel's own
 * list, else 0..n-1 for the online CPUs (the kernel refuses a mask that is
 * not a subset of the possible ones). */
static int taskstats_cpumask(char *mask, size_t size)
{
	/* online, not possible, CPUs: deregistering needs CAP_NET_ADMIN, which
	 * is gone by the time we close, so the kernel drops our listener when a
	 * record bounces off the closed socket, and only online CPUs send any */
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	long ncpu;

	if (f) {
		int ok = fgets(mask, (int)size, f) != NULL;
		size_t n = ok ? strcspn(mask, "\n") : 0;

		fclose(f);
		mask[n] = '\0';
		if (n > 0 && strspn(mask, "0123456789,-") == n)
			return 0;
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		return -EIO;
	if (ncpu == 1)
		snprintf(mask, size, "0");
	else
		snprintf(mask, size, "0-%ld", ncpu - 1);
	return 0;
}

/* Sends one request to the kernel. */
static int taskstats_send(int fd, const struct nlmsghdr *nlh)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t r;

	do
		r = sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r == (ssize_t)nlh->nlmsg_len ? 0 : -EIO;
}

/* Sends a TASKSTATS_CMD_GET that registers or deregisters the CPUs in mask.
 * The kernel reads the attribute as a string of nla_len - 1 characters, so
 * it must carry its NUL. */
static int taskstats_send_mask(int fd, uint16_t family, uint16_t attr, const char *mask,
			       uint32_t seq, uint16_t flags)
{
	char buf[TASKSTATS_REQ_MAX] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = TASKSTATS_CMD_GET;
	genl->version = TASKSTATS_GENL_VERSION;
	mnl_attr_put_strz(nlh, attr, mask);
	return taskstats_send(fd, nlh);
}

/* Takes the family id out of a CTRL_CMD_NEWFAMILY reply. */
static int taskstats_family_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) == 0)
		*(uint16_t *)data = mnl_attr_get_u16(attr);
	return MNL_CB_OK;
}

/* Reads datagrams until the answer to request seq arrives: an NLMSG_ERROR
 * (0 is the ack) or, when family is non-NULL, a controller reply naming the
 * family id. Exit records read meanwhile predate the caller's first look at
 * the system, so dropping them loses nothing. Returns 0 or -errno; -ETIMEDOUT
 * when nothing answers. */
static int taskstats_await(int fd, uint32_t seq, uint16_t *family)
{
	char buf[8192] __attribute__((aligned(8)));
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		uint32_t sender = UINT32_MAX;
		ssize_t r = nlwait_recv(fd, buf, sizeof(buf), &t0, TASKSTATS_REPLY_WAIT_MS, &sender);
		int rem;

		if (r < 0)
			return (int)r;
		if (sender != 0)
			continue; /* not the kernel's answer, whatever it says */
		for (rem = (int)r; nlwait_msg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr e;

				if (mnl_nlmsg_get_payload_len(nlh) < sizeof(e))
					return -EPROTO;
				memcpy(&e, mnl_nlmsg_get_payload(nlh), sizeof(e));
				return e.error <= 0 && e.error > -4096 ? e.error : -EPROTO;
			}
			if (family && nlh->nlmsg_type == GENL_ID_CTRL &&
			    mnl_nlmsg_get_payload_len(nlh) >= GENL_HDRLEN) {
				uint16_t id = 0;

				(void)mnl_attr_parse(nlh, GENL_HDRLEN, taskstats_family_cb, &id);
				if (id == 0)
					return -EPROTO;
				*family = id;
				return 0;
			}
		}
	}
}

/* Asks the generic netlink controller for the TASKSTATS family id: -ENOENT
 * when the kernel was built without CONFIG_TASKSTATS, or in a network
 * namespace other than the initial one (the family is not netns-aware). */
static int taskstats_resolve(int fd, uint32_t seq, uint16_t *family)
{
	char buf[TASKSTATS_REQ_MAX] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;
	int err;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME);
	err = taskstats_send(fd, nlh);
	if (err == 0)
		err = taskstats_await(fd, seq, family);
	return err == 0 && *family == 0 ? -EPROTO : err;
}

/* Opens, resolves, sizes and registers, confirming through the kernel's ack. */
int taskstats_open(int rcvbuf_bytes, int force, uint16_t *family)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char mask[TASKSTATS_MASK_MAX];
	uint16_t id = 0;
	uint32_t seq = (uint32_t)time(NULL);
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	/* Sized before registering, so no early record is dropped;
	 * SO_RCVBUFFORCE passes rmem_max but needs CAP_NET_ADMIN. */
	if (rcvbuf_bytes > 0 &&
	    (!force || setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf_bytes, sizeof(rcvbuf_bytes)) < 0))
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf_bytes, sizeof(rcvbuf_bytes));
	/* The kernel registers the sender's port id: bind to get one. */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		goto out;
	}
	/* No other process can send to us then: a forged family id would send
	 * our privileged request to another family. */
	if ((err = nlwait_connect_kernel(fd)) < 0)
		goto out;
	err = taskstats_resolve(fd, seq, &id);
	if (err < 0)
		goto out;
	err = taskstats_cpumask(mask, sizeof(mask));
	if (err < 0)
		goto out;
	err = taskstats_send_mask(fd, id, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask, seq + 1,
				  NLM_F_ACK);
	if (err == 0)
		err = taskstats_await(fd, seq + 1, NULL);
	/* With CAP_NET_ADMIN and a mask of online CPUs, the kernel's only
	 * other EINVAL is a caller outside the initial pid (or user) namespace. */
	if (err == -EINVAL)
		err = -EOPNOTSUPP;
out:
	if (err < 0 && fd >= 0) {
		close(fd);
		fd = -1;
	}
	if (err == 0 && family)
		*family = id;
	return err < 0 ? err : fd;
}

/* Tells the kernel to forget our port, then closes. Without it the kernel
 * drops the listener only when a record to the closed port bounces. */
void taskstats_close(int fd, uint16_t family)
{
	char mask[TASKSTATS_MASK_MAX];

	if (fd < 0)
		return;
	if (taskstats_cpumask(mask, sizeof(mask)) == 0)
		(void)taskstats_send_mask(fd, family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, mask, 0,
					  0);
	close(fd);
}
