/* Unit tests for taskstats_parse(): datagrams built here with libmnl in the
 * kernel's layout (kernel/taskstats.c mk_reply: a nest holding the id, then
 * STATS, without NLA_F_NESTED). The live socket: test_taskstats_live.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "taskstats.h"

#define FAMILY 31   /* any dynamic generic netlink id */
#define BUFSZ 8192

#define TS_OFF(field) offsetof(struct taskstats, field)
#define TS_END(field) (TS_OFF(field) + sizeof(((struct taskstats *)0)->field))

/* The STATS length a 6.18 kernel (version 16) sends. */
#define V16_LEN 564

/* A datagram under construction, 8-byte aligned as a recv() buffer is. */
struct dgram {
	char buf[BUFSZ] __attribute__((aligned(8)));
	size_t len;
};

/* Starts a generic netlink message of family and cmd at the end of d. */
static struct nlmsghdr *msg_start(struct dgram *d, uint16_t family, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(d->buf + d->len);
	struct genlmsghdr *g;

	nlh->nlmsg_type = family;
	nlh->nlmsg_seq = 9;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = TASKSTATS_GENL_VERSION;
	return nlh;
}

/* Closes the message begun by msg_start. */
static void msg_end(struct dgram *d, struct nlmsghdr *nlh)
{
	d->len += nlh->nlmsg_len;
}

/* Appends an AGGR_PID or AGGR_TGID nest: the id, then len bytes of STATS.
 * The kernel's nla_nest_start_noflag() leaves NLA_F_NESTED clear. */
static void put_aggr(struct nlmsghdr *nlh, uint16_t aggr, uint32_t id, const void *stats,
		     size_t len)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, aggr);

	nest->nla_type &= (uint16_t)~NLA_F_NESTED;
	mnl_attr_put_u32(nlh, aggr == TASKSTATS_TYPE_AGGR_PID ? TASKSTATS_TYPE_PID : TASKSTATS_TYPE_TGID,
			 id);
	mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, len, stats);
	mnl_attr_nest_end(nlh, nest);
}

/* A task's statistics as the kernel fills them (kernel/tsacct.c). ac_btime
 * and ac_btime64 differ so a test can tell which was read. */
static void sample(struct taskstats *ts, uint16_t version, uint32_t pid, uint32_t tgid,
		   const char *comm)
{
	memset(ts, 0, sizeof(*ts));
	ts->version = version;
	ts->ac_exitcode = 7 << 8;
	snprintf(ts->ac_comm, sizeof(ts->ac_comm), "%s", comm);
	ts->ac_pid = pid;
	ts->ac_ppid = 1;
	ts->ac_btime = 1700000000u;
	ts->ac_etime = 123456;
	ts->ac_utime = 40000;
	ts->ac_stime = 8000;
	ts->ac_minflt = 2100;
	ts->ac_majflt = 3;
	ts->hiwater_rss = 9000;
	ts->hiwater_vm = 20000;
	ts->read_bytes = 4096;
	ts->write_bytes = 8192;
	ts->nvcsw = 5;
	ts->nivcsw = 2;
	ts->ac_btime64 = 1800000000ull;
	ts->ac_tgid = tgid;
}

/* A version 16 STATS blob: the struct of our header, then the fields newer
 * kernels append (filled with junk the parser must ignore). */
static size_t blob_v16(char *out, const struct taskstats *ts)
{
	memset(out, 0xa5, V16_LEN);
	memcpy(out, ts, sizeof(*ts) < V16_LEN ? sizeof(*ts) : V16_LEN);
	return V16_LEN;
}

/* The one message a single-threaded exit sends. */
static void put_single(struct dgram *d, uint32_t pid, const char *comm)
{
	struct nlmsghdr *nlh = msg_start(d, FAMILY, TASKSTATS_CMD_NEW);
	struct taskstats ts;
	char blob[V16_LEN];

	sample(&ts, 16, pid, pid, comm);
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, pid, blob, blob_v16(blob, &ts));
	msg_end(d, nlh);
}

/* The message of a single-threaded exit with these statistics. */
static void put_stats(struct dgram *d, const struct taskstats *ts)
{
	struct nlmsghdr *nlh = msg_start(d, FAMILY, TASKSTATS_CMD_NEW);
	char blob[V16_LEN];

	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, ts->ac_pid, blob, blob_v16(blob, ts));
	msg_end(d, nlh);
}

/* The message of the last thread of a multi-threaded process: its own record,
 * then the process's, whose STATS hold only the group totals (here, as from a
 * kernel without the 2026 fix, only the version). 64-bit kernels without
 * efficient unaligned access put a NULL attribute before each nest. */
static void put_threaded(struct dgram *d, uint32_t pid, uint32_t tgid, int null_pad)
{
	struct nlmsghdr *nlh = msg_start(d, FAMILY, TASKSTATS_CMD_NEW);
	struct taskstats ts;
	char blob[V16_LEN];

	sample(&ts, 16, pid, tgid, "worker");
	if (null_pad)
		mnl_attr_put(nlh, TASKSTATS_TYPE_NULL, 0, "");
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, pid, blob, blob_v16(blob, &ts));
	memset(&ts, 0, sizeof(ts));
	ts.version = 16;
	ts.cpu_count = 12;
	memset(blob, 0, sizeof(blob));
	memcpy(blob, &ts, sizeof(ts));
	if (null_pad)
		mnl_attr_put(nlh, TASKSTATS_TYPE_NULL, 0, "");
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_TGID, tgid, blob, V16_LEN);
	msg_end(d, nlh);
}

/* Checks every field of a record made from sample(). */
static void check_sample(const struct taskstats_exit *e, pid_t pid, pid_t tgid, const char *comm,
			 uint64_t btime)
{
	assert_int_equal(e->pid, pid);
	assert_int_equal(e->tgid, tgid);
	assert_int_equal(e->aggr_tgid, 0);
	assert_string_equal(e->comm, comm);
	assert_true(WIFEXITED((int)e->exitcode) && WEXITSTATUS((int)e->exitcode) == 7);
	assert_true(e->btime_s == btime);
	assert_true(e->etime_us == 123456);
	assert_true(e->utime_us == 40000);
	assert_true(e->stime_us == 8000);
	assert_true(e->minflt == 2100);
	assert_true(e->majflt == 3);
	assert_true(e->hiwater_rss_kib == 9000);
	assert_true(e->hiwater_vm_kib == 20000);
	assert_true(e->read_bytes == 4096);
	assert_true(e->write_bytes == 8192);
	assert_true(e->nvcsw == 5);
	assert_true(e->nivcsw == 2);
}

/* Parses d, which must hold exactly n records (n <= 4). */
static void parse_n(const struct dgram *d, int n, struct taskstats_exit *out)
{
	size_t n_ok = 99;

	assert_int_equal(taskstats_parse(d->buf, d->len, FAMILY, out, 4, &n_ok), n);
	assert_int_equal(n_ok, (size_t)n);
}

static void test_single(void **state)
{
	(void)state;
	struct dgram d = { .len = 0 };
	struct taskstats_exit e[4];

	put_single(&d, 4242, "sleep");
	parse_n(&d, 1, e);
	check_sample(&e[0], 4242, 4242, "sleep", 1800000000ull);

	/* comm is cut to 15 characters and terminated. */
	d.len = 0;
	put_single(&d, 4243, "a-very-long-command-name");
	parse_n(&d, 1, e);
	assert_string_equal(e[0].comm, "a-very-long-com");
}

/* CPU time: the scheduler's exact runtime, split as the ticks split it;
 * the ticks alone when the kernel did not fill it. */
static void test_cputime(void **state)
{
	(void)state;
	struct taskstats ts;
	struct taskstats_exit e[2];
	struct dgram d = { .len = 0 };

	sample(&ts, 16, 77, 77, "burn");
	ts.ac_utime = 40000; /* 48 ms of ticks */
	ts.ac_stime = 8000;
	ts.cpu_run_virtual_total = 60000123ull; /* 60 ms run */
	put_stats(&d, &ts);
	parse_n(&d, 1, e);
	assert_int_equal(e[0].utime_us + e[0].stime_us, 60000);
	assert_int_equal(e[0].stime_us, 10000);
	/* no tick at all (a burst shorter than one): all of it user time */
	d.len = 0;
	ts.ac_utime = ts.ac_stime = 0;
	ts.cpu_run_virtual_total = 3000000;
	put_stats(&d, &ts);
	parse_n(&d, 1, e);
	assert_int_equal(e[0].utime_us, 3000);
	assert_int_equal(e[0].stime_us, 0);
	/* system ticks only */
	d.len = 0;
	ts.ac_stime = 4000;
	put_stats(&d, &ts);
	parse_n(&d, 1, e);
	assert_int_equal(e[0].stime_us, 3000);
	assert_int_equal(e[0].utime_us, 0);
	/* not filled: the ticks */
	d.len = 0;
	ts.ac_utime = 4000;
	ts.cpu_run_virtual_total = 0;
	put_stats(&d, &ts);
	parse_n(&d, 1, e);
	assert_int_equal(e[0].utime_us, 4000);
	assert_int_equal(e[0].stime_us, 4000);
}

static void test_threaded(void **state)
{
	(void)state;
	struct dgram d = { .len = 0 };
	struct taskstats_exit e[4];

	for (int pad = 0; pad <= 1; pad++) {
		d.len = 0;
		put_threaded(&d, 501, 500, pad);
		parse_n(&d, 2, e);
		check_sample(&e[0], 501, 500, "worker", 1800000000ull);
		assert_int_equal(e[1].pid, 500);
		assert_int_equal(e[1].tgid, 500);
		assert_int_equal(e[1].aggr_tgid, 1);
		assert_string_equal(e[1].comm, "");
		assert_true(e[1].exitcode == 0 && e[1].utime_us == 0 && e[1].hiwater_rss_kib == 0);
	}

	/* NLA_F_NESTED set (libmnl's own nests) parses the same. */
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct taskstats ts;

	d.len = 0;
	nlh = msg_start(&d, FAMILY, TASKSTATS_CMD_NEW);
	sample(&ts, 13, 77, 70, "x");
	nest = mnl_attr_nest_start(nlh, TASKSTATS_TYPE_AGGR_PID);
	assert_true(nest->nla_type & NLA_F_NESTED);
	mnl_attr_put_u32(nlh, TASKSTATS_TYPE_PID, 77);
	mnl_attr_put(nlh, 9, 3, "abc"); /* an inner attribute from the future */
	mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, sizeof(ts), &ts);
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_put_u64(nlh, 42, 1); /* an outer one too */
	msg_end(&d, nlh);
	parse_n(&d, 1, e);
	check_sample(&e[0], 77, 70, "x", 1800000000ull);
}

/* Other families, other commands and control messages are skipped. */
static void test_skipped(void **state)
{
	(void)state;
	struct dgram d = { .len = 0 };
	struct taskstats_exit e[4];
	struct nlmsghdr *nlh;
	struct nlmsgerr *err;
	char blob[V16_LEN];
	struct taskstats ts;

	sample(&ts, 16, 600, 600, "other");
	nlh = msg_start(&d, FAMILY + 1, TASKSTATS_CMD_NEW); /* another family */
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 600, blob, blob_v16(blob, &ts));
	msg_end(&d, nlh);
	nlh = msg_start(&d, FAMILY, TASKSTATS_CMD_GET); /* a request, not an exit */
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 601, blob, blob_v16(blob, &ts));
	msg_end(&d, nlh);
	nlh = mnl_nlmsg_put_header(d.buf + d.len); /* an ack */
	nlh->nlmsg_type = NLMSG_ERROR;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	err->error = -EPERM;
	msg_end(&d, nlh);
	nlh = msg_start(&d, FAMILY, TASKSTATS_CMD_NEW); /* an exit with no record */
	msg_end(&d, nlh);
	parse_n(&d, 0, e);
	assert_int_equal(taskstats_parse(d.buf, d.len, FAMILY, NULL, 0, NULL), 0);

	put_single(&d, 602, "kept");
	parse_n(&d, 1, e);
	assert_int_equal(e[0].pid, 602);
	/* The same bytes read with another family id hold nothing. */
	assert_int_equal(taskstats_parse(d.buf, d.len, FAMILY + 2, e, 4, NULL), 0);
}

static void test_multi_and_control(void **state)
{
	(void)state;
	struct dgram d = { .len = 0 };
	struct taskstats_exit e[4];
	size_t n_ok = 99;

	put_single(&d, 700, "one");
	put_threaded(&d, 702, 701, 0);
	put_single(&d, 703, "three");
	parse_n(&d, 4, e);
	assert_int_equal(e[0].pid, 700);
	assert_int_equal(e[1].pid, 702);
	assert_int_equal(e[2].aggr_tgid, 1);
	assert_int_equal(e[3].pid, 703);

	/* More records than room: the first max kept, -ENOSPC, also mid-message. */
	memset(e, 0, sizeof(e));
	assert_int_equal(taskstats_parse(d.buf, d.len, FAMILY, e, 2, &n_ok), -ENOSPC);
	assert_int_equal(n_ok, 2);
	assert_int_equal(e[1].pid, 702);
	assert_int_equal(e[2].pid, 0);
	assert_int_equal(taskstats_parse(d.buf, d.len, FAMILY, e, 3, &n_ok), -ENOSPC);
	assert_int_equal(n_ok, 3);
	assert_int_equal(taskstats_parse(d.buf, d.len, FAMILY, NULL, 0, &n_ok), -ENOSPC);
	assert_int_equal(n_ok, 0);

	/* Misaligned input is refused, not read. */
	char *copy = malloc(d.len + 1);

	memcpy(copy + 1, d.buf, d.len);
	assert_int_equal(taskstats_parse(copy + 1, d.len, FAMILY, e, 4, &n_ok), -EINVAL);
	assert_int_equal(n_ok, 0);
	free(copy);

	assert_int_equal(taskstats_parse(d.buf, 0, FAMILY, e, 4, &n_ok), 0);
	assert_int_equal(taskstats_parse(NULL, 64, FAMILY, e, 4, &n_ok), -EINVAL);
	assert_int_equal(taskstats_parse(d.buf, d.len, FAMILY, NULL, 4, &n_ok), -EINVAL);
}

/* Parses one AGGR_PID record for pid 900 whose STATS are len bytes of blob. */
static int parse_stats(const void *blob, size_t len, struct taskstats_exit *e)
{
	static struct dgram d;
	struct nlmsghdr *nlh;

	d.len = 0;
	nlh = msg_start(&d, FAMILY, TASKSTATS_CMD_NEW);
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 900, blob, len);
	msg_end(&d, nlh);
	return taskstats_parse(d.buf, d.len, FAMILY, e, 1, NULL);
}

/* Lays out a version 16 struct as version 15 (6.15-rc) did: a delay max/min
 * pair after each of cpu, blkio, swapin, freepages, thrashing, compact and
 * wpcopy delay totals. Returns the length. */
static size_t blob_v15(char *out, size_t size, const struct taskstats *ts)
{
	static const size_t gaps[] = {
		TS_OFF(blkio_count), TS_OFF(swapin_count), TS_OFF(cpu_run_real_total),
		TS_OFF(thrashing_count), TS_OFF(ac_btime64), TS_OFF(ac_tgid), TS_OFF(wpcopy_delay_total) + 8,
	};
	size_t start = 0, shift = 0;

	memset(out, 0x5a, size);
	for (size_t i = 0; i < sizeof(gaps) / sizeof(gaps[0]); i++) {
		memcpy(out + start + shift, (const char *)ts + start, gaps[i] - start);
		start = gaps[i];
		shift += 16;
	}
	assert_true(start + shift <= size);
	return start + shift;
}

/* Older and newer struct versions, each as long as its kernel's struct. */
static void test_versions(void **state)
{
	(void)state;
	char blob[1024] __attribute__((aligned(8)));
	struct taskstats_exit e;
	struct taskstats ts;
	size_t len;

	/* Version 8 (4.x): ends before thrashing; no btime64, no tgid. */
	sample(&ts, 8, 900, 800, "v8");
	assert_int_equal(parse_stats(&ts, TS_OFF(thrashing_count), &e), 1);
	check_sample(&e, 900, 900, "v8", 1700000000u);

	/* Version 9 has no btime64, even if the bytes were there. */
	sample(&ts, 9, 900, 800, "v9");
	assert_int_equal(parse_stats(&ts, sizeof(ts), &e), 1);
	check_sample(&e, 900, 900, "v9", 1700000000u);

	/* Version 10: btime64 but no tgid (bytes past the end are not read,
	 * though sample() set them). */
	sample(&ts, 10, 900, 800, "v10");
	assert_int_equal(parse_stats(&ts, TS_OFF(compact_count), &e), 1);
	check_sample(&e, 900, 900, "v10", 1800000000ull);

	/* Version 11 claims no tgid even if the bytes were there. */
	sample(&ts, 11, 900, 800, "v11");
	assert_int_equal(parse_stats(&ts, sizeof(ts), &e), 1);
	check_sample(&e, 900, 900, "v11", 1800000000ull);

	/* Version 12: tgid; a zero tgid (a kernel thread's) falls back to pid. */
	sample(&ts, 12, 900, 800, "v12");
	assert_int_equal(parse_stats(&ts, TS_OFF(wpcopy_count), &e), 1);
	check_sample(&e, 900, 800, "v12", 1800000000ull);
	sample(&ts, 12, 900, 0, "v12");
	assert_int_equal(parse_stats(&ts, TS_OFF(wpcopy_count), &e), 1);
	assert_int_equal(e.tgid, 900);

	/* Version 15's misplaced fields are found where it put them. */
	sample(&ts, 15, 900, 800, "v15");
	len = blob_v15(blob, sizeof(blob), &ts);
	assert_int_equal(parse_stats(blob, len, &e), 1);
	check_sample(&e, 900, 800, "v15", 1800000000ull);

	/* A future version, longer than our struct. */
	sample(&ts, 40, 900, 800, "v40");
	memset(blob, 0x33, sizeof(blob));
	memcpy(blob, &ts, sizeof(ts));
	assert_int_equal(parse_stats(blob, sizeof(blob), &e), 1);
	check_sample(&e, 900, 800, "v40", 1800000000ull);

	/* Version 5: basic accounting only as far as the record goes. */
	sample(&ts, 5, 900, 800, "v5");
	assert_int_equal(parse_stats(&ts, TS_END(ac_majflt), &e), 1);
	assert_string_equal(e.comm, "v5");
	assert_true(e.utime_us == 40000 && e.minflt == 2100 && e.btime_s == 1700000000u);
	assert_true(e.hiwater_rss_kib == 0 && e.nvcsw == 0);

	/* Version 1 (delays only) and 0 (old kernels' AGGR_TGID): ids only. */
	for (uint16_t v = 0; v <= 1; v++) {
		sample(&ts, v, 900, 800, "old");
		assert_int_equal(parse_stats(&ts, TS_OFF(ac_comm), &e), 1);
		assert_int_equal(e.pid, 900);
		assert_int_equal(e.tgid, 900);
		assert_string_equal(e.comm, "");
		assert_true(e.exitcode == 0 && e.utime_us == 0 && e.btime_s == 0);
	}

	/* Shorter than the version promises: refused. */
	sample(&ts, 16, 900, 800, "short");
	assert_int_equal(parse_stats(&ts, TS_END(ac_majflt), &e), -EINVAL);
	sample(&ts, 3, 900, 800, "short");
	assert_int_equal(parse_stats(&ts, TS_OFF(ac_majflt), &e), -EINVAL);
	sample(&ts, 15, 900, 800, "short");
	assert_int_equal(parse_stats(&ts, TS_END(nivcsw), &e), -EINVAL);
	assert_int_equal(parse_stats(&ts, 1, &e), -EINVAL);
	assert_int_equal(parse_stats(&ts, 0, &e), -EINVAL);
}

/* Every STATS length of a version 16 record: refused below the fields a
 * version >= 8 record must carry, read from there on. */
static void test_every_stats_len(void **state)
{
	(void)state;
	char blob[V16_LEN];
	struct taskstats_exit e;
	struct taskstats ts;

	sample(&ts, 16, 900, 800, "cut");
	blob_v16(blob, &ts);
	for (size_t len = 0; len <= V16_LEN; len++) {
		char *p = malloc(len ? len : 1);
		int r;

		memcpy(p, blob, len);
		r = parse_stats(p, len, &e);
		if (len < TS_END(nivcsw))
			assert_int_equal(r, -EINVAL);
		else
			assert_int_equal(r, 1);
		if (r == 1)
			assert_int_equal(e.tgid, len >= TS_END(ac_tgid) ? 800 : 900);
		free(p);
	}
}

/* Damaged messages: refused, with the records before them kept. */
static void test_damaged(void **state)
{
	(void)state;
	struct dgram d = { .len = 0 };
	struct taskstats_exit e[4];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct taskstats ts;
	size_t n_ok;

	sample(&ts, 13, 900, 900, "bad");
	for (int kind = 0; kind < 10; kind++) {
		d.len = 0;
		put_single(&d, 899, "good");
		nlh = msg_start(&d, FAMILY, TASKSTATS_CMD_NEW);
		switch (kind) {
		case 0: /* no STATS */
			nest = mnl_attr_nest_start(nlh, TASKSTATS_TYPE_AGGR_PID);
			mnl_attr_put_u32(nlh, TASKSTATS_TYPE_PID, 900);
			mnl_attr_nest_end(nlh, nest);
			break;
		case 1: /* no PID */
			nest = mnl_attr_nest_start(nlh, TASKSTATS_TYPE_AGGR_PID);
			mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, sizeof(ts), &ts);
			mnl_attr_nest_end(nlh, nest);
			break;
		case 2: /* the TGID id in an AGGR_PID nest */
			nest = mnl_attr_nest_start(nlh, TASKSTATS_TYPE_AGGR_PID);
			mnl_attr_put_u32(nlh, TASKSTATS_TYPE_TGID, 900);
			mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, sizeof(ts), &ts);
			mnl_attr_nest_end(nlh, nest);
			break;
		case 3: /* a PID of 8 bytes */
			nest = mnl_attr_nest_start(nlh, TASKSTATS_TYPE_AGGR_PID);
			mnl_attr_put_u64(nlh, TASKSTATS_TYPE_PID, 900);
			mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, sizeof(ts), &ts);
			mnl_attr_nest_end(nlh, nest);
			break;
		case 4: /* two STATS */
			nest = mnl_attr_nest_start(nlh, TASKSTATS_TYPE_AGGR_PID);
			mnl_attr_put_u32(nlh, TASKSTATS_TYPE_PID, 900);
			mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, sizeof(ts), &ts);
			mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, sizeof(ts), &ts);
			mnl_attr_nest_end(nlh, nest);
			break;
		case 5: /* an inner attribute longer than its nest */
			put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 900, &ts, sizeof(ts));
			nest = (struct nlattr *)((char *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN);
			((struct nlattr *)mnl_attr_get_payload(nest))->nla_len = 200;
			break;
		case 6: /* an outer attribute longer than its message */
			put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 900, &ts, sizeof(ts));
			nest = (struct nlattr *)((char *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN);
			nest->nla_len = (uint16_t)(nest->nla_len + 4);
			break;
		case 7: /* trailing bytes that are no attribute */
			put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 900, &ts, sizeof(ts));
			memset(mnl_nlmsg_get_payload_tail(nlh), 0, 4);
			nlh->nlmsg_len += 4;
			break;
		case 9: /* two PIDs */
			nest = mnl_attr_nest_start(nlh, TASKSTATS_TYPE_AGGR_PID);
			mnl_attr_put_u32(nlh, TASKSTATS_TYPE_PID, 900);
			mnl_attr_put_u32(nlh, TASKSTATS_TYPE_PID, 901);
			mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, sizeof(ts), &ts);
			mnl_attr_nest_end(nlh, nest);
			break;
		case 8: /* the same inside the nest */
			nest = mnl_attr_nest_start(nlh, TASKSTATS_TYPE_AGGR_PID);
			mnl_attr_put_u32(nlh, TASKSTATS_TYPE_PID, 900);
			mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, sizeof(ts), &ts);
			memset(mnl_nlmsg_get_payload_tail(nlh), 0, 4);
			nlh->nlmsg_len += 4;
			mnl_attr_nest_end(nlh, nest);
			break;
		}
		msg_end(&d, nlh);
		n_ok = 99;
		if (taskstats_parse(d.buf, d.len, FAMILY, e, 4, &n_ok) != -EINVAL)
			fail_msg("damage %d was not refused", kind);
		/* The nest before the trailing bytes was whole: kept too. */
		assert_int_equal(n_ok, kind == 7 ? 2 : 1);
		assert_int_equal(e[0].pid, 899);
	}

	/* Our family with no room for the genetlink header. */
	d.len = 0;
	nlh = mnl_nlmsg_put_header(d.buf);
	nlh->nlmsg_type = FAMILY;
	msg_end(&d, nlh);
	assert_int_equal(taskstats_parse(d.buf, d.len, FAMILY, e, 4, &n_ok), -EINVAL);
	assert_int_equal(n_ok, 0);
}

/* Every prefix of a two-message datagram (3 records): whole messages parse,
 * a cut one is -EINVAL with the whole ones before it kept. Each prefix sits
 * in a buffer of exactly its size, so ASan catches any read past it. */
static void test_every_prefix(void **state)
{
	(void)state;
	struct dgram d = { .len = 0 };
	struct taskstats_exit e[4];
	size_t first, n_ok;

	put_single(&d, 1000, "first");
	first = d.len;
	put_threaded(&d, 1002, 1001, 1);
	for (size_t n = 0; n <= d.len; n++) {
		void *p = malloc(n ? n : 1);
		int r;

		memcpy(p, d.buf, n);
		r = taskstats_parse(p, n, FAMILY, e, 4, &n_ok);
		if (n == 0)
			assert_int_equal(r, 0);
		else if (n == first)
			assert_int_equal(r, 1);
		else if (n == d.len)
			assert_int_equal(r, 3);
		else
			assert_int_equal(r, -EINVAL);
		assert_int_equal(n_ok, n == d.len ? 3 : n >= first ? 1 : 0);
		free(p);
	}

	/* The same cuts with nlmsg_len cut too, so the attributes run off the
	 * end of their message: refused, or no record at all. */
	for (size_t n = NLMSG_HDRLEN; n < first; n++) {
		char *p = malloc(n);
		struct nlmsghdr *nlh = (struct nlmsghdr *)p;
		int r;

		memcpy(p, d.buf, n);
		nlh->nlmsg_len = (uint32_t)n;
		r = taskstats_parse(p, n, FAMILY, e, 4, &n_ok);
		if (n == NLMSG_HDRLEN + GENL_HDRLEN)
			assert_int_equal(r, 0);
		else
			assert_int_equal(r, -EINVAL);
		assert_int_equal(n_ok, 0);
		free(p);
	}
}

/* Random bytes, and random damage to real datagrams, never crash the parser
 * (run under -fsanitize=address,undefined). */
static void test_random_input(void **state)
{
	(void)state;
	struct taskstats_exit e[8];
	struct dgram d = { .len = 0 };
	unsigned seed = 4242;
	size_t n_ok;

	for (int iter = 0; iter < 50000; iter++) {
		size_t len = (size_t)(rand_r(&seed) % 1400);
		unsigned char *b = malloc(len ? len : 1);

		for (size_t i = 0; i < len; i++)
			b[i] = (unsigned char)rand_r(&seed);
		/* Half the time make the headers plausible so parsing goes deeper. */
		if ((iter & 1) && len >= 28) {
			uint32_t l = (uint32_t)(16 + rand_r(&seed) % (len - 15));
			uint16_t t = FAMILY, a = (uint16_t)(4 + rand_r(&seed) % (len - 23));

			memcpy(b, &l, 4);
			memcpy(b + 4, &t, 2);
			b[16] = TASKSTATS_CMD_NEW;
			memcpy(b + 20, &a, 2);
			b[22] = (unsigned char)(4 + rand_r(&seed) % 2);
			b[23] = 0;
		}
		int r = taskstats_parse(b, len, FAMILY, e, 8, &n_ok);

		assert_true(r == -EINVAL || r == -ENOSPC || (r >= 0 && r <= 8));
		assert_true(n_ok <= 8);
		free(b);
	}
	put_single(&d, 1100, "a");
	put_threaded(&d, 1102, 1101, 1);
	for (int iter = 0; iter < 20000; iter++) {
		unsigned char *b = malloc(d.len);

		memcpy(b, d.buf, d.len);
		for (int k = 1 + rand_r(&seed) % 3; k > 0; k--) {
			/* Mostly in the headers, where the lengths are. */
			size_t at = (size_t)rand_r(&seed) % (rand_r(&seed) % 4 ? 64 : d.len);

			b[at % d.len] = (unsigned char)rand_r(&seed);
		}
		(void)taskstats_parse(b, d.len, FAMILY, e, 8, &n_ok);
		assert_true(n_ok <= 8);
		free(b);
	}
}

/* taskstats_belongs: a record names a pid; is it a task of the process the
 * collector knows under that pid, or of a stranger that had the pid before
 * the process was forked or got it after the process ended? Times in ms. */
#define MS 1000000ull
static void test_belongs(void **state)
{
	(void)state;
	/* forked at 10 s, exit event at 12 s, parent 500 alive */
	struct taskstats_owner o = {.start_ns = 10000 * MS, .end_ns = 0, .ppid = 500, .parent_sure = 1};
	struct taskstats_exit x = {.pid = 600, .tgid = 600, .ppid = 500, .etime_us = 300 * 1000};

	/* its own task: lived 300 ms, read at 10.4 s (started at 10.1 at the latest) */
	assert_int_equal(taskstats_belongs(&x, &o, 10350 * MS, 10400 * MS), 1);
	/* read before the fork: a record of whoever had the pid before */
	assert_int_equal(taskstats_belongs(&x, &o, 9000 * MS, 9900 * MS), 0);
	x.etime_us = 1000;
	assert_int_equal(taskstats_belongs(&x, &o, 9000 * MS, 9970 * MS), 0);
	/* ... within the clocks' slack of the fork it may be its own */
	assert_int_equal(taskstats_belongs(&x, &o, 9000 * MS, 9990 * MS), 1);
	/* read after the fork, but lived longer than the process has: a stranger's */
	x.etime_us = 2000 * 1000;
	assert_int_equal(taskstats_belongs(&x, &o, 10900 * MS, 11000 * MS), 0);
	assert_int_equal(taskstats_belongs(&x, &o, 11900 * MS, 12000 * MS), 1);
	/* another parent while ours is alive: not its task */
	x.etime_us = 300 * 1000;
	x.ppid = 501;
	assert_int_equal(taskstats_belongs(&x, &o, 10350 * MS, 10400 * MS), 0);
	/* the parent may have died (reparented): the times decide */
	o.parent_sure = 0;
	assert_int_equal(taskstats_belongs(&x, &o, 10350 * MS, 10400 * MS), 1);
	x.ppid = 0; /* unknown */
	o.parent_sure = 1;
	assert_int_equal(taskstats_belongs(&x, &o, 10350 * MS, 10400 * MS), 1);
	x.ppid = 500;
	/* it ended at 12 s: a task that started after (the socket was empty at
	 * 12.5 s and the task lived 100 ms) got the pid since */
	o.end_ns = 12000 * MS;
	x.etime_us = 100 * 1000;
	assert_int_equal(taskstats_belongs(&x, &o, 12500 * MS, 12600 * MS), 0);
	/* when the socket was last empty is unknown: nothing to tell by */
	assert_int_equal(taskstats_belongs(&x, &o, 0, 12600 * MS), 1);
	/* its own last thread, ended just before the exit event */
	assert_int_equal(taskstats_belongs(&x, &o, 11990 * MS, 12010 * MS), 1);
	/* the command spacetime started is its own whatever the figures */
	o.ours = 1;
	assert_int_equal(taskstats_belongs(&x, &o, 12500 * MS, 12600 * MS), 1);
	x.etime_us = 100000 * 1000;
	assert_int_equal(taskstats_belongs(&x, &o, 9000 * MS, 9900 * MS), 1);
	/* nothing known (start 0, no end, parent unsure): accepted */
	struct taskstats_owner none = {0};
	assert_int_equal(taskstats_belongs(&x, &none, 9000 * MS, 9900 * MS), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_threaded),
		cmocka_unit_test(test_cputime),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_multi_and_control),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_every_stats_len),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_random_input),
		cmocka_unit_test(test_belongs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
