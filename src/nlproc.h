/* nlproc: the netlink process-events connector. nlproc_parse() is pure (bytes
 * in, events out); the socket functions set up a subscription. */
#ifndef SPACETIME_NLPROC_H
#define SPACETIME_NLPROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum nlproc_type {
	NLPROC_NONE = 0,
	NLPROC_FORK,  /* a process or a thread was created */
	NLPROC_EXEC,
	NLPROC_EXIT,  /* a task (thread or process) ended */
	NLPROC_ACK,   /* the subscription was acknowledged */
};

struct nlproc_event {
	enum nlproc_type type;
	uint64_t ts_ns;      /* kernel CLOCK_MONOTONIC timestamp */
	pid_t pid, tgid;     /* fork: the child; exec/exit: the task */
	pid_t ppid, ptgid;   /* fork: the parent; exit: the parent (kernel >= 4.18) */
	uint32_t exit_code;  /* exit: wait(2) status; ack: the kernel's errno (0 = ok) */
	uint32_t exit_signal;
};

/* Parses one datagram of netlink messages. Writes up to max events to out and
 * returns how many; unknown event kinds are skipped. Returns -EINVAL on a
 * truncated or malformed buffer (events parsed before the damage are kept in
 * out and counted in *n_ok when n_ok is non-NULL), -ENOSPC when it holds more
 * than max events (likewise), or an NLMSG_ERROR's -errno. buf must be 4-byte
 * aligned, as any recv() buffer of a netlink socket is. */
int nlproc_parse(const void *buf, size_t len, struct nlproc_event *out, size_t max,
		 size_t *n_ok);

/* Looks in one datagram, received from netlink port sender (0: the kernel),
 * for the kernel's ack to a subscription sent with cookie (its cn_msg.ack is
 * cookie + 1). Returns 0 when it was taken, the ack's -errno when refused, or
 * -EAGAIN when the datagram holds no such ack; whatever another process sent
 * (a nonzero sender) is never an ack. Pure. */
int nlproc_ack_find(const void *buf, size_t len, uint32_t sender, uint32_t cookie);

/* Event kinds a socket asks for. Kernels >= 6.6 filter; older ones send all. */
#define NLPROC_WANT_FORK 1u
#define NLPROC_WANT_EXEC 2u
#define NLPROC_WANT_EXIT 4u
#define NLPROC_WANT_ALL (NLPROC_WANT_FORK | NLPROC_WANT_EXEC | NLPROC_WANT_EXIT)

/* What nlproc_open managed to set up. */
struct nlproc_info {
	int filtered;        /* the kernel filters to the kinds asked for (>= 6.6) */
	int split;           /* nlproc_open_split: exec events have a socket of their own */
	int rcvbuf_forced;   /* SO_RCVBUFFORCE worked */
	int rcvbuf_bytes;    /* the buffer size the kernel reports */
};

/* Opens a non-blocking, close-on-exec connector socket, sizes its receive buffer
 * to rcvbuf_bytes (past rmem_max with SO_RCVBUFFORCE only when force: root,
 * never a file capability; else up to rmem_max), binds to the
 * process-events group and subscribes. Returns the fd or -errno: -EPERM when
 * CAP_NET_ADMIN is missing (kernels before 6.6; from 6.6 anyone may listen),
 * -EOPNOTSUPP when the kernel ignores us (a non-initial user, pid or network
 * namespace, e.g. a container). */
int nlproc_open(int rcvbuf_bytes, int force, struct nlproc_info *info);
/* nlproc_open for the kinds in want (NLPROC_WANT_*) only. */
int nlproc_open_want(int rcvbuf_bytes, int force, unsigned want, struct nlproc_info *info);
/* Two sockets, so a reader can sleep through fork and exit events and still
 * wake for each exec (whose command line must be read while the program
 * lives): returns the exec socket and sets *quiet_fd to the fork|exit one.
 * Where the kernel cannot filter, or the second socket fails, returns one
 * socket with all events and *quiet_fd = -1 (info->split says which). */
int nlproc_open_split(int rcvbuf_bytes, int force, int *quiet_fd, struct nlproc_info *info);
/* Unsubscribes and closes. Kernels before 6.6 refuse the unsubscription
 * from a process without CAP_NET_ADMIN (spacetime after its drop): their
 * listener count then stays raised (see nlproc.c). */
void nlproc_close(int fd);

#endif
