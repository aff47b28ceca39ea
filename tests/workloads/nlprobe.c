/* nlprobe [events|filter|taskstats]: asks the kernel, not spacetime, what this
 * process may do with its current privileges, so that a test's skip is
 * decided by the machine and never by the product under test. Each mode
 * proves the feature by using it on a child of its own and waits up to 2 s;
 * it prints one word and exits 0 either way (the reason for a no on stderr).
 *
 *   events     (the default) subscribes to the netlink proc connector, forks
 *              a child and waits for its fork event: "netlink", else "poll".
 *              Linux >= 6.6 lets unprivileged users listen, older kernels
 *              need CAP_NET_ADMIN.
 *   filter     subscribes with a filter for exit events only (struct
 *              proc_input, Linux >= 6.6), forks a child that exits at once:
 *              "filtered" when the child's exit event comes and its fork
 *              event does not, else "unfiltered" (the kernel ignored the
 *              filter, or sent nothing).
 *   taskstats  looks up the TASKSTATS generic netlink family, registers for
 *              the exit records of the online CPUs (CAP_NET_ADMIN), forks a
 *              child that exits at once and waits for its record:
 *              "taskstats", else "none". */
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROBE_WAIT_MS 2000

/* The subscription of kernels >= 6.6 (struct proc_input), which older
 * headers lack: the op and the events wanted. */
struct probe_proc_input {
	uint32_t mcast_op;
	uint32_t event_type;
};

static const char *no_word = "poll";

static int no(const char *why)
{
	fprintf(stderr, "nlprobe: %s: %s\n", why, strerror(errno));
	printf("%s\n", no_word);
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* A child that exits at once (its fork and exit are what is looked for). */
static pid_t fork_child(void)
{
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	return child;
}

/* Receives into buf (size bytes) until deadline; returns the byte count, or
 * -1 with errno set (ETIMEDOUT when the time ran out). ENOBUFS (events lost
 * to a full buffer) and EINTR are retried. */
static ssize_t recv_until(int s, char *buf, size_t size, long deadline)
{
	for (;;) {
		long left = deadline - now_ms();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		struct pollfd pfd = { .fd = s, .events = POLLIN };
		int r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno != EINTR)
			return -1;
		if (r <= 0)
			continue;
		ssize_t n = recv(s, buf, size, 0);
		if (n >= 0 || (errno != EINTR && errno != ENOBUFS))
			return n;
	}
}

/* Opens the proc connector and subscribes: all events (filter_events 0) or
 * only those in filter_events, in the 8-byte form. Returns the socket or -1. */
static int proc_connector(uint32_t filter_events)
{
	int s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (s < 0)
		return -1;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;

	struct probe_proc_input in = { .mcast_op = PROC_CN_MCAST_LISTEN, .event_type = filter_events };
	size_t in_len = filter_events ? sizeof(in) : sizeof(in.mcast_op);
	char req[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(in))] __attribute__((aligned(NLMSG_ALIGNTO)));
	memset(req, 0, sizeof(req));
	struct nlmsghdr *nh = (struct nlmsghdr *)req;
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + in_len);
	nh->nlmsg_type = NLMSG_DONE;
	nh->nlmsg_pid = (unsigned)getpid();
	struct cn_msg *cn = NLMSG_DATA(nh);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = (uint16_t)in_len;
	memcpy(cn->data, &in, in_len);
	if (send(s, req, nh->nlmsg_len, 0) < 0)
		goto fail;
	return s;
fail:;
	int e = errno;
	close(s);
	errno = e;
	return -1;
}

/* Reads proc connector events for child until the one that ends the look
 * (its fork event in events mode, its exit event in filter mode) or the
 * deadline. Sets *forked and *exited to what was seen of child. */
static void watch_child(int s, pid_t child, int until_exit, int *forked, int *exited)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	long deadline = now_ms() + PROBE_WAIT_MS;

	*forked = *exited = 0;
	while (!(until_exit ? *exited : *forked)) {
		ssize_t n = recv_until(s, buf, sizeof(buf), deadline);
		if (n < 0)
			return;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			struct cn_msg *m = NLMSG_DATA(h);
			if (m->id.idx != CN_IDX_PROC || m->id.val != CN_VAL_PROC)
				continue;
			struct proc_event *ev = (struct proc_event *)m->data;
			if (ev->what == PROC_EVENT_FORK && ev->event_data.fork.child_pid == child)
				*forked = 1;
			if (ev->what == PROC_EVENT_EXIT && ev->event_data.exit.process_pid == child)
				*exited = 1;
		}
	}
}

static int probe_events(void)
{
	int s = proc_connector(0), forked, exited;
	if (s < 0)
		return no("subscribing to the proc connector");
	pid_t child = fork_child();
	if (child < 0)
		return no("fork");
	watch_child(s, child, 0, &forked, &exited);
	waitpid(child, NULL, 0);
	if (!forked) {
		errno = ETIMEDOUT;
		return no("no fork event for my child");
	}
	printf("netlink\n");
	return 0;
}

static int probe_filter(void)
{
	no_word = "unfiltered";
	int s = proc_connector(PROC_EVENT_EXIT), forked, exited;
	if (s < 0)
		return no("subscribing to the proc connector's exit events");
	pid_t child = fork_child();
	if (child < 0)
		return no("fork");
	watch_child(s, child, 1, &forked, &exited);
	waitpid(child, NULL, 0);
	if (forked) {
		errno = EINVAL;
		return no("asked for exit events only, my child's fork event came too");
	}
	if (!exited) {
		errno = ETIMEDOUT;
		return no("no exit event for my child");
	}
	printf("filtered\n");
	return 0;
}

/* A generic netlink request under construction. */
struct gnl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[256];
} __attribute__((aligned(NLMSG_ALIGNTO)));

static void gnl_init(struct gnl_req *r, uint16_t type, uint8_t cmd, uint32_t seq)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = type;
	r->n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	r->n.nlmsg_seq = seq;
	r->g.cmd = cmd;
	r->g.version = 1;
}

static void gnl_put(struct gnl_req *r, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)&r->n + NLMSG_ALIGN(r->n.nlmsg_len));
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* The first attribute of type in [p, p + len), or NULL. */
static const struct nlattr *gnl_find(const char *p, size_t len, uint16_t type)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		size_t step = NLA_ALIGN(a->nla_len);
		if (step >= len)
			return NULL;
		p += step;
		len -= step;
	}
	return NULL;
}

/* Sends r and reads up to its ack; returns 0 or -1 with errno (the kernel's
 * error, or ETIMEDOUT). When reply is not NULL, the last message before the
 * ack that is not an error is copied there (reply_size bytes at most). */
static int gnl_call(int s, struct gnl_req *r, char *reply, size_t reply_size)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	long deadline = now_ms() + PROBE_WAIT_MS;

	if (send(s, r, r->n.nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv_until(s, buf, sizeof(buf), deadline);
		if (n < 0)
			return -1;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != r->n.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				if (e->error == 0)
					return 0;
				errno = -e->error;
				return -1;
			}
			if (reply && h->nlmsg_len <= reply_size)
				memcpy(reply, h, h->nlmsg_len);
		}
	}
}

/* The online CPUs as the kernel writes them ("0-1"), for the cpumask. */
static int online_cpus(char *mask, size_t size)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f)
		return -1;
	char *ok = fgets(mask, (int)size, f);
	fclose(f);
	if (!ok) {
		errno = EIO;
		return -1;
	}
	mask[strcspn(mask, "\n")] = '\0';
	return 0;
}

/* Whether the TASKSTATS_CMD_NEW message h carries the record of pid. */
static int record_of(const struct nlmsghdr *h, uint16_t family, pid_t pid)
{
	if (h->nlmsg_type != family || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return 0;
	const struct genlmsghdr *g = NLMSG_DATA(h);
	if (g->cmd != TASKSTATS_CMD_NEW)
		return 0;
	const char *p = (const char *)g + GENL_HDRLEN;
	size_t len = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	const struct nlattr *aggr = gnl_find(p, len, TASKSTATS_TYPE_AGGR_PID);
	if (!aggr)
		return 0;
	const struct nlattr *a = gnl_find((const char *)aggr + NLA_HDRLEN, aggr->nla_len - NLA_HDRLEN,
					  TASKSTATS_TYPE_PID);
	uint32_t v;
	if (!a || a->nla_len < NLA_HDRLEN + sizeof(v))
		return 0;
	memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v == (uint32_t)pid;
}

static int probe_taskstats(void)
{
	no_word = "none";
	struct gnl_req r;
	char reply[1024] __attribute__((aligned(NLMSG_ALIGNTO)));
	char mask[128];

	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s < 0)
		return no("socket NETLINK_GENERIC");
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return no("bind");
	int rcvbuf = 1 << 20;
	(void)setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));

	/* the family's id */
	gnl_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	gnl_put(&r, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME));
	memset(reply, 0, sizeof(reply));
	if (gnl_call(s, &r, reply, sizeof(reply)) < 0)
		return no("looking up the " TASKSTATS_GENL_NAME " family");
	const struct nlmsghdr *h = (const struct nlmsghdr *)reply;
	const struct nlattr *id = NULL;
	if (h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN))
		id = gnl_find((const char *)NLMSG_DATA(h) + GENL_HDRLEN, h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
			      CTRL_ATTR_FAMILY_ID);
	uint16_t family;
	if (!id || id->nla_len < NLA_HDRLEN + sizeof(family)) {
		errno = ENOENT;
		return no("no family id in the reply");
	}
	memcpy(&family, (const char *)id + NLA_HDRLEN, sizeof(family));

	/* the exit records of every online CPU */
	if (online_cpus(mask, sizeof(mask)) < 0)
		return no("reading the online CPUs");
	gnl_init(&r, family, TASKSTATS_CMD_GET, 2);
	gnl_put(&r, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask, strlen(mask) + 1);
	if (gnl_call(s, &r, NULL, 0) < 0)
		return no("registering for the exit records");

	pid_t child = fork_child();
	if (child < 0)
		return no("fork");
	int found = 0;
	char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	long deadline = now_ms() + PROBE_WAIT_MS;
	while (!found) {
		ssize_t n = recv_until(s, buf, sizeof(buf), deadline);
		if (n < 0)
			break;
		for (struct nlmsghdr *m = (struct nlmsghdr *)buf; NLMSG_OK(m, (size_t)n); m = NLMSG_NEXT(m, n))
			found |= record_of(m, family, child);
	}
	waitpid(child, NULL, 0);
	gnl_init(&r, family, TASKSTATS_CMD_GET, 3);
	gnl_put(&r, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, mask, strlen(mask) + 1);
	(void)gnl_call(s, &r, NULL, 0);
	close(s);
	if (!found) {
		errno = ETIMEDOUT;
		return no("no exit record for my child");
	}
	printf("taskstats\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "events";

	if (argc > 2 || (strcmp(mode, "events") && strcmp(mode, "filter") && strcmp(mode, "taskstats"))) {
		fprintf(stderr, "usage: nlprobe [events|filter|taskstats]\n");
		return 2;
	}
	if (!strcmp(mode, "filter"))
		return probe_filter();
	if (!strcmp(mode, "taskstats"))
		return probe_taskstats();
	return probe_events();
}
