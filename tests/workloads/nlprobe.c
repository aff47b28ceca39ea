/* nlprobe: reports whether this process, with its current privileges, can
 * follow process events over the netlink proc connector. It subscribes,
 * forks one child and waits up to 2 s for that child's fork event. Prints
 * "netlink" if the event arrived, else "poll" (the reason on stderr); exits 0
 * either way. The unprivileged tests use it as the truth for spacetime's
 * mode: Linux >= 6.6 lets unprivileged users listen, older kernels need
 * CAP_NET_ADMIN. */
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int no(const char *why)
{
	fprintf(stderr, "nlprobe: %s: %s\n", why, strerror(errno));
	printf("poll\n");
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int main(void)
{
	int s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (s < 0)
		return no("socket");
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return no("bind");

	char req[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))]
		__attribute__((aligned(NLMSG_ALIGNTO)));
	memset(req, 0, sizeof(req));
	struct nlmsghdr *nh = (struct nlmsghdr *)req;
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op));
	nh->nlmsg_type = NLMSG_DONE;
	nh->nlmsg_pid = (unsigned)getpid();
	struct cn_msg *cn = NLMSG_DATA(nh);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(enum proc_cn_mcast_op);
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	memcpy(cn->data, &op, sizeof(op));
	if (send(s, req, nh->nlmsg_len, 0) < 0)
		return no("send PROC_CN_MCAST_LISTEN");

	pid_t child = fork();
	if (child < 0)
		return no("fork");
	if (child == 0)
		_exit(0);

	int found = 0;
	long deadline = now_ms() + 2000;
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	while (!found && now_ms() < deadline) {
		struct pollfd pfd = { .fd = s, .events = POLLIN };
		if (poll(&pfd, 1, (int)(deadline - now_ms())) <= 0)
			break;
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			break;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			struct cn_msg *m = NLMSG_DATA(h);
			if (m->id.idx != CN_IDX_PROC || m->id.val != CN_VAL_PROC)
				continue;
			struct proc_event *ev = (struct proc_event *)m->data;
			if (ev->what == PROC_EVENT_FORK && ev->event_data.fork.child_pid == child)
				found = 1;
		}
	}
	waitpid(child, NULL, 0);
	if (!found) {
		errno = ETIMEDOUT;
		return no("no fork event for my child");
	}
	printf("netlink\n");
	return 0;
}
