/* nlwait: what nlproc and taskstats share: receiving a netlink answer with a
 * deadline (the connector's ack, the generic netlink replies) and checking a
 * message's length. */
#ifndef SPACETIME_NLWAIT_H
#define SPACETIME_NLWAIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Connects the netlink socket fd to the kernel (port 0): the kernel then
 * refuses (ECONNREFUSED) every datagram another process sends to our port,
 * so only the kernel's answers, broadcasts and records reach us. Binding or
 * group subscriptions are unchanged. Returns 0 or -errno. */
int nlwait_connect_kernel(int fd);
/* Receives one datagram from the non-blocking fd into buf: returns its length
 * and, when sender is non-NULL, sets *sender to the port it came from (0: the
 * kernel; UINT32_MAX when unknown);
 * 0 when nothing came yet (after waiting for it, up to what is left of wait_ms
 * since *t0: call again); -ETIMEDOUT once wait_ms have passed since *t0 with
 * nothing received; or another -errno. ENOBUFS (a listener's overrun) and
 * EINTR count as "nothing yet". */
ssize_t nlwait_recv(int fd, void *buf, size_t cap, const struct timespec *t0, int wait_ms,
		    uint32_t *sender);
/* Whether nlh is a whole message within the rem bytes left of a datagram.
 * mnl_nlmsg_ok() compares (int)nlmsg_len <= rem, so a length of 2^31 or
 * more passes it as negative; this checks the unsigned value as well. */
struct nlmsghdr;
int nlwait_msg_ok(const struct nlmsghdr *nlh, int rem);

#endif
