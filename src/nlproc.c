/* nlproc: the netlink process-events connector (drivers/connector/cn_proc.c).
 *
 * Every event is its own datagram: an nlmsghdr of type NLMSG_DONE carrying a
 * struct cn_msg whose data is a struct proc_event. The proc_event sits at
 * offset 36 of the datagram, so its 8-byte timestamp is misaligned: it is
 * always copied out with memcpy, never read in place. */
#include "nlproc.h"

#include "nlwait.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

/* The subscription message of kernels >= 6.6 (struct proc_input, absent from
 * older userspace headers): the op and a mask of the events to deliver. */
struct nlproc_input {
	uint32_t mcast_op;
	uint32_t event_type;
};

/* How long nlproc_open waits for the kernel's ack before concluding it was
 * ignored. */
#define NLPROC_ACK_WAIT_MS 100

/* Bytes of struct proc_event before event_data: what, cpu, timestamp_ns. */
#define NLPROC_EV_HDR ((size_t)offsetof(struct proc_event, event_data))

/* Copies the cn_msg header and the proc_event of one connector message into
 * cn and ev (zero-filling what the message lacks) and returns how many event
 * bytes it carried, or -EINVAL when the cn_msg is damaged; 0 means "not a
 * process event". */
static int nlproc_event_copy(const struct nlmsghdr *nlh, struct cn_msg *cn, struct proc_event *ev)
{
	const char *payload = mnl_nlmsg_get_payload(nlh);
	size_t plen = mnl_nlmsg_get_payload_len(nlh);

	if (plen < sizeof(*cn))
		return -EINVAL;
	memcpy(cn, payload, sizeof(*cn));
	if (cn->len > plen - sizeof(*cn))
		return -EINVAL;
	if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
		return 0;
	if (cn->len < NLPROC_EV_HDR)
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	memcpy(ev, payload + sizeof(*cn), cn->len < sizeof(*ev) ? cn->len : sizeof(*ev));
	return cn->len;
}

/* Maps one kernel proc_event onto an nlproc_event. Returns 1 when mapped, 0
 * for kinds spacetime ignores, -EINVAL when the event is too short for its
 * kind. */
static int nlproc_event_map(const struct proc_event *ev, size_t have, struct nlproc_event *out)
{
	const size_t hdr = NLPROC_EV_HDR;

	memset(out, 0, sizeof(*out));
	out->ts_ns = ev->timestamp_ns;
	switch (ev->what) {
	case PROC_EVENT_NONE:
		if (have < hdr + sizeof(ev->event_data.ack))
			return -EINVAL;
		out->type = NLPROC_ACK;
		out->exit_code = ev->event_data.ack.err; /* 0, or a positive errno */
		return 1;
	case PROC_EVENT_FORK:
		if (have < hdr + sizeof(ev->event_data.fork))
			return -EINVAL;
		out->type = NLPROC_FORK;
		out->pid = ev->event_data.fork.child_pid;
		out->tgid = ev->event_data.fork.child_tgid;
		out->ppid = ev->event_data.fork.parent_pid;
		out->ptgid = ev->event_data.fork.parent_tgid;
		return 1;
	case PROC_EVENT_EXEC:
		if (have < hdr + sizeof(ev->event_data.exec))
			return -EINVAL;
		out->type = NLPROC_EXEC;
		out->pid = ev->event_data.exec.process_pid;
		out->tgid = ev->event_data.exec.process_tgid;
		return 1;
	case PROC_EVENT_EXIT:
		/* Before 4.18 the exit event ended after exit_signal. */
		if (have < hdr + offsetof(struct exit_proc_event, parent_pid))
			return -EINVAL;
		out->type = NLPROC_EXIT;
		out->pid = ev->event_data.exit.process_pid;
		out->tgid = ev->event_data.exit.process_tgid;
		out->exit_code = ev->event_data.exit.exit_code;
		out->exit_signal = ev->event_data.exit.exit_signal;
		if (have >= hdr + sizeof(ev->event_data.exit)) {
			out->ppid = ev->event_data.exit.parent_pid;
			out->ptgid = ev->event_data.exit.parent_tgid;
		}
		return 1;
	default:
		return 0;
	}
}

/* Walks the datagram with libmnl, checking every length before use; stops at
 * the first damaged message, keeping what was parsed before it. The buffer
 * must be 4-byte aligned, as recv() buffers are (netlink's own alignment). */
int nlproc_parse(const void *buf, size_t len, struct nlproc_event *out, size_t max,
		 size_t *n_ok)
{
	const struct nlmsghdr *nlh = buf;
	size_t n = 0;
	int rem, err = 0;

	if (n_ok)
		*n_ok = 0;
	if (!buf || len > INT_MAX || ((uintptr_t)buf & (NLMSG_ALIGNTO - 1)) || (!out && max))
		return -EINVAL;
	rem = (int)len;
	for (; nlwait_msg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		struct nlproc_event one;
		struct proc_event ev;
		struct cn_msg cn;
		int have, r;

		if (nlh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr e;

			if (mnl_nlmsg_get_payload_len(nlh) < sizeof(e)) {
				err = -EINVAL;
				goto out;
			}
			memcpy(&e, mnl_nlmsg_get_payload(nlh), sizeof(e));
			if (e.error == 0)
				continue; /* a netlink-level ack */
			err = (e.error < 0 && e.error > -4096) ? e.error : -EINVAL;
			goto out;
		}
		/* The connector sends its messages as NLMSG_DONE. */
		if (nlh->nlmsg_type != NLMSG_DONE || mnl_nlmsg_get_payload_len(nlh) == 0)
			continue;
		have = nlproc_event_copy(nlh, &cn, &ev);
		if (have < 0) {
			err = have;
			goto out;
		}
		if (have == 0)
			continue;
		r = nlproc_event_map(&ev, (size_t)have, &one);
		if (r < 0) {
			err = r;
			goto out;
		}
		if (r == 0)
			continue;
		if (n == max) {
			err = -ENOSPC;
			goto out;
		}
		out[n++] = one;
	}
	/* Bytes left over that do not hold a whole message: truncation. */
	if (rem > 0)
		err = -EINVAL;
out:
	if (n_ok)
		*n_ok = n;
	return err < 0 ? err : (int)n;
}

/* True when the running kernel takes struct proc_input (6.6 and later). */
static int nlproc_kernel_filters(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 6);
}

/* Sends a listen or ignore op to the connector, in the 8-byte filtered form
 * or the 4-byte form older kernels require (they drop any other length). The
 * kernel answers with an ack whose cn_msg.ack is cookie + 1. */
static int nlproc_send_op(int fd, uint32_t op, int filtered, uint32_t cookie, uint32_t events)
{
	char buf[MNL_ALIGN(sizeof(struct nlmsghdr)) + MNL_ALIGN(sizeof(struct cn_msg)) +
		 MNL_ALIGN(sizeof(struct nlproc_input))] __attribute__((aligned(8)));
	struct nlproc_input in = { .mcast_op = op, .event_type = events };
	size_t in_len = filtered ? sizeof(in) : sizeof(in.mcast_op);
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nlh;
	struct cn_msg *cn;
	ssize_t r;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_seq = 1;
	cn = mnl_nlmsg_put_extra_header(nlh, sizeof(*cn) + in_len);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->seq = 1;
	cn->ack = cookie;
	cn->len = (uint16_t)in_len;
	memcpy(cn->data, &in, in_len);
	do
		r = sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == ECONNREFUSED ? -EOPNOTSUPP : -errno; /* no connector in this netns */
	return r == (ssize_t)nlh->nlmsg_len ? 0 : -EIO;
}

int nlproc_ack_find(const void *buf, size_t len, uint32_t sender, uint32_t cookie)
{
	const struct nlmsghdr *nlh = buf;
	int rem;

	/* Only the kernel (port 0) answers a subscription: anyone may send a
	 * datagram to our port, and a forged refusal would turn netlink off. */
	if (!buf || sender != 0 || len > INT_MAX || ((uintptr_t)buf & (NLMSG_ALIGNTO - 1)))
		return -EAGAIN;
	for (rem = (int)len; nlwait_msg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		struct proc_event ev;
		struct cn_msg cn;
		int have;

		if (nlh->nlmsg_type != NLMSG_DONE)
			continue;
		have = nlproc_event_copy(nlh, &cn, &ev);
		if (have < (int)(NLPROC_EV_HDR + sizeof(ev.event_data.ack)))
			continue;
		if (ev.what != PROC_EVENT_NONE || cn.ack != cookie + 1)
			continue;
		if (ev.event_data.ack.err == 0)
			return 0;
		return ev.event_data.ack.err < 4096 ? -(int)ev.event_data.ack.err : -EPROTO;
	}
	return -EAGAIN;
}

/* Reads datagrams until the kernel's ack to cookie arrives. The kernel acks
 * inside sendto(), so it is normally queued already; the wait only covers
 * kernels that defer the callback. Returns 0, the ack's -errno (setting
 * *refused), or -EOPNOTSUPP when no ack comes: the kernel ignores
 * subscriptions from non-initial user and pid namespaces without a word.
 * Events read here predate the caller's /proc scan, so dropping them loses
 * nothing. */
static int nlproc_await_ack(int fd, uint32_t cookie, int *refused)
{
	char buf[1024] __attribute__((aligned(8)));
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		uint32_t sender = UINT32_MAX;
		ssize_t r = nlwait_recv(fd, buf, sizeof(buf), &t0, NLPROC_ACK_WAIT_MS, &sender);

		if (r == -ETIMEDOUT)
			return -EOPNOTSUPP;
		if (r < 0)
			return (int)r;
		int err = nlproc_ack_find(buf, (size_t)r, sender, cookie);
		if (err == -EAGAIN)
			continue;
		if (err < 0)
			*refused = 1;
		return err;
	}
}

/* Sizes the receive buffer before binding so no early event is dropped;
 * SO_RCVBUFFORCE passes rmem_max but needs CAP_NET_ADMIN, and is tried only
 * when force (never for a user holding a file capability: a user could not
 * have set more without it). */
static void nlproc_size_rcvbuf(int fd, int bytes, int force, struct nlproc_info *info)
{
	socklen_t sl = sizeof(info->rcvbuf_bytes);

	if (bytes > 0) {
		if (force && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) == 0)
			info->rcvbuf_forced = 1;
		else
			(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
	}
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &info->rcvbuf_bytes, &sl) < 0)
		info->rcvbuf_bytes = 0;
}

/* A value to recognise our own ack among other listeners' acks (they are
 * broadcast to every listener): the socket's port id, unique while it lives.
 * The kernel overwrites cn_msg.seq, so only cn_msg.ack can carry it. */
static uint32_t nlproc_cookie(int fd)
{
	struct sockaddr_nl sa;
	socklen_t sl = sizeof(sa);

	if (getsockname(fd, (struct sockaddr *)&sa, &sl) < 0)
		return (uint32_t)getpid();
	return sa.nl_pid;
}

/* The kernel's event bits for a NLPROC_WANT_* mask. */
static uint32_t nlproc_events(unsigned want)
{
	return ((want & NLPROC_WANT_FORK) ? (uint32_t)PROC_EVENT_FORK : 0) |
	       ((want & NLPROC_WANT_EXEC) ? (uint32_t)PROC_EVENT_EXEC : 0) |
	       ((want & NLPROC_WANT_EXIT) ? (uint32_t)PROC_EVENT_EXIT : 0);
}

int nlproc_open(int rcvbuf_bytes, int force, struct nlproc_info *info)
{
	return nlproc_open_want(rcvbuf_bytes, force, NLPROC_WANT_ALL, info);
}

int nlproc_open_split(int rcvbuf_bytes, int force, int *quiet_fd, struct nlproc_info *info)
{
	struct nlproc_info qi;
	int fd;

	*quiet_fd = -1;
	if (!nlproc_kernel_filters())
		return nlproc_open(rcvbuf_bytes, force, info);
	fd = nlproc_open_want(rcvbuf_bytes, force, NLPROC_WANT_EXEC, info);
	if (fd < 0)
		return fd;
	if (info && !info->filtered) {
		/* it gets everything anyway */
		return fd;
	}
	int q = nlproc_open_want(rcvbuf_bytes, force, NLPROC_WANT_FORK | NLPROC_WANT_EXIT, &qi);
	if (q >= 0 && qi.filtered) {
		*quiet_fd = q;
		if (info)
			info->split = 1;
		return fd;
	}
	/* no second filtered socket: one socket with everything */
	if (q >= 0)
		nlproc_close(q);
	nlproc_close(fd);
	return nlproc_open(rcvbuf_bytes, force, info);
}

/* Opens, binds and subscribes, confirming through the kernel's ack. */
int nlproc_open_want(int rcvbuf_bytes, int force, unsigned want, struct nlproc_info *info)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct nlproc_info local;
	uint32_t cookie;
	int fd, err, refused = 0;

	memset(&local, 0, sizeof(local));
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	nlproc_size_rcvbuf(fd, rcvbuf_bytes, force, &local);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		goto out;
	}
	if ((err = nlwait_connect_kernel(fd)) < 0)
		goto out;
	/* The 4-byte listen is acked on every kernel (an 8-byte, filtered one
	 * never is: the ack's kind is outside the mask), so subscribe with it
	 * first to learn whether the kernel took us, then narrow the events. */
	cookie = nlproc_cookie(fd);
	err = nlproc_send_op(fd, PROC_CN_MCAST_LISTEN, 0, cookie, 0);
	if (err < 0)
		goto out;
	err = nlproc_await_ack(fd, cookie, &refused);
	if (err == 0 && nlproc_kernel_filters()) {
		err = nlproc_send_op(fd, PROC_CN_MCAST_LISTEN, 1, cookie + 2, nlproc_events(want));
		local.filtered = err == 0;
	}
	/* Unless the kernel refused in its ack, it may have counted us: undo. */
	if (err < 0 && !refused)
		(void)nlproc_send_op(fd, PROC_CN_MCAST_IGNORE, 0, 0, 0);
out:
	if (err < 0 && fd >= 0) {
		close(fd);
		fd = -1;
	}
	if (info)
		*info = local;
	return err < 0 ? err : fd;
}

/* Tells the kernel we stop listening, then closes. Before 6.6 the kernel
 * counts listeners only through these ops, and takes them only from a sender
 * with CAP_NET_ADMIN: after spacetime's drop the IGNORE is refused (EPERM),
 * so the count stays one too high and the kernel keeps building events for
 * nobody until the next reboot (a cost, not a leak: nobody receives them).
 * From 6.6 the kernel also counts the socket's close, and anyone may send. */
void nlproc_close(int fd)
{
	if (fd < 0)
		return;
	(void)nlproc_send_op(fd, PROC_CN_MCAST_IGNORE, 0, 0, 0);
	close(fd);
}
