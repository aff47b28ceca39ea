/* nlwait.c: one netlink datagram, or the news that the deadline passed. */
#include "nlwait.h"

#include <libmnl/libmnl.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>

#include <linux/netlink.h>

int nlwait_connect_kernel(int fd)
{
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

	return connect(fd, (struct sockaddr *)&kernel, sizeof(kernel)) < 0 ? -errno : 0;
}

ssize_t nlwait_recv(int fd, void *buf, size_t cap, const struct timespec *t0, int wait_ms,
		    uint32_t *sender)
{
	struct timespec t;
	struct sockaddr_nl from = {0};
	socklen_t fl = sizeof(from);
	ssize_t r = recvfrom(fd, buf, cap, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
	int e = errno;

	if (r > 0) {
		if (sender)
			*sender = fl >= sizeof(from) && from.nl_family == AF_NETLINK ? from.nl_pid
										     : UINT32_MAX;
		return r;
	}
	if (r < 0 && e != EAGAIN && e != EINTR && e != ENOBUFS)
		return -e;
	clock_gettime(CLOCK_MONOTONIC, &t);
	long waited = (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
	if (waited >= wait_ms)
		return -ETIMEDOUT;
	if (r < 0 && e == EAGAIN) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		(void)poll(&pfd, 1, (int)(wait_ms - waited));
	}
	return 0;
}

int nlwait_msg_ok(const struct nlmsghdr *nlh, int rem)
{
	return mnl_nlmsg_ok(nlh, rem) && nlh->nlmsg_len <= (uint32_t)rem;
}
