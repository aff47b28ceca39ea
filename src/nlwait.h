/* nlwait: receiving a netlink answer with a deadline (the connector's ack in
 * nlproc, the generic netlink replies in taskstats). */
#ifndef SPACETIME_NLWAIT_H
#define SPACETIME_NLWAIT_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* Receives one datagram from the non-blocking fd into buf: returns its length;
 * 0 when nothing came yet (after waiting for it, up to what is left of wait_ms
 * since *t0: call again); -ETIMEDOUT once wait_ms have passed since *t0 with
 * nothing received; or another -errno. ENOBUFS (a listener's overrun) and
 * EINTR count as "nothing yet". */
ssize_t nlwait_recv(int fd, void *buf, size_t cap, const struct timespec *t0, int wait_ms);

#endif
