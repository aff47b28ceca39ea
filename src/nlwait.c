/* nlwait.c: one netlink datagram, or the news that the deadline passed. */
#include "nlwait.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

ssize_t nlwait_recv(int fd, void *buf, size_t cap, const struct timespec *t0, int wait_ms)
{
	struct timespec t;
	ssize_t r = recv(fd, buf, cap, MSG_DONTWAIT);
	int e = errno;

	if (r > 0)
		return r;
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
