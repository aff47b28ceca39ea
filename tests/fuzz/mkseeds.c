/* mkseeds.c: writes the generated seed inputs of tests/fuzz/seeds/taskstats
 * (replies laid out as kernel/taskstats.c mk_reply builds them, family 31)
 * and of outpane and jsonw. Run from the repository root, once; the output
 * is committed:
 *   cc -std=gnu11 -o /tmp/mkseeds tests/fuzz/mkseeds.c -lmnl && /tmp/mkseeds */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#define FAMILY 31
#define V16_LEN 564

static char buf[8192] __attribute__((aligned(8)));
static size_t len;

static void put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	mkdir("tests/fuzz/seeds", 0755);
	snprintf(path, sizeof(path), "tests/fuzz/seeds/%s", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "tests/fuzz/seeds/%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static struct nlmsghdr *msg_start(uint16_t family)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + len);
	struct genlmsghdr *g;

	nlh->nlmsg_type = family;
	nlh->nlmsg_seq = 9;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = TASKSTATS_CMD_NEW;
	g->version = TASKSTATS_GENL_VERSION;
	return nlh;
}

static void put_aggr(struct nlmsghdr *nlh, uint16_t aggr, uint32_t id, const void *stats, size_t n)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, aggr);

	nest->nla_type &= (uint16_t)~NLA_F_NESTED;
	mnl_attr_put_u32(nlh, aggr == TASKSTATS_TYPE_AGGR_PID ? TASKSTATS_TYPE_PID : TASKSTATS_TYPE_TGID, id);
	mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, n, stats);
	mnl_attr_nest_end(nlh, nest);
}

static void sample(char *blob, uint16_t version, uint32_t pid, uint32_t tgid, const char *comm)
{
	struct taskstats ts;

	memset(&ts, 0, sizeof(ts));
	ts.version = version;
	ts.ac_exitcode = 7 << 8;
	snprintf(ts.ac_comm, sizeof(ts.ac_comm), "%s", comm);
	ts.ac_pid = pid;
	ts.ac_ppid = 1;
	ts.ac_btime = 1700000000u;
	ts.ac_etime = 123456;
	ts.ac_utime = 40000;
	ts.ac_stime = 8000;
	ts.ac_minflt = 2100;
	ts.ac_majflt = 3;
	ts.hiwater_rss = 9000;
	ts.hiwater_vm = 20000;
	ts.read_bytes = 4096;
	ts.write_bytes = 8192;
	ts.nvcsw = 5;
	ts.nivcsw = 2;
	ts.ac_btime64 = 1800000000ull;
	ts.ac_tgid = tgid;
	memset(blob, 0xa5, V16_LEN);
	memcpy(blob, &ts, sizeof(ts) < V16_LEN ? sizeof(ts) : V16_LEN);
}

static void taskstats_seeds(void)
{
	char blob[V16_LEN];
	struct nlmsghdr *nlh;

	/* a single-threaded exit (version 16) */
	len = 0;
	nlh = msg_start(FAMILY);
	sample(blob, 16, 900, 900, "make");
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 900, blob, V16_LEN);
	len += nlh->nlmsg_len;
	put("taskstats", "single_v16", buf, len);

	/* the last thread of a process: its record and the process's, with the
	 * NULL padding attributes of some 64-bit kernels */
	len = 0;
	nlh = msg_start(FAMILY);
	sample(blob, 16, 902, 901, "worker");
	mnl_attr_put(nlh, TASKSTATS_TYPE_NULL, 0, "");
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 902, blob, V16_LEN);
	sample(blob, 16, 0, 0, "");
	mnl_attr_put(nlh, TASKSTATS_TYPE_NULL, 0, "");
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_TGID, 901, blob, V16_LEN);
	len += nlh->nlmsg_len;
	put("taskstats", "threaded_nullpad", buf, len);

	/* two messages, one of another family between: version 8, then a version
	 * 15 header on the version 16 layout (the parser reads it as 15) */
	len = 0;
	nlh = msg_start(FAMILY);
	sample(blob, 8, 910, 910, "v8");
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 910, blob, 328);
	len += nlh->nlmsg_len;
	nlh = msg_start(FAMILY + 1);
	mnl_attr_put_u32(nlh, 1, 5);
	len += nlh->nlmsg_len;
	nlh = msg_start(FAMILY);
	sample(blob, 15, 911, 911, "v15");
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 911, blob, V16_LEN);
	len += nlh->nlmsg_len;
	put("taskstats", "multi_v8_v15", buf, len);

	/* version 1 (delays only), short */
	len = 0;
	nlh = msg_start(FAMILY);
	sample(blob, 1, 920, 920, "");
	put_aggr(nlh, TASKSTATS_TYPE_AGGR_PID, 920, blob, 64);
	len += nlh->nlmsg_len;
	put("taskstats", "v1_short", buf, len);
}

static void text(const char *dir, const char *name, const char *s, size_t n)
{
	put(dir, name, s, n);
}

int main(void)
{
	taskstats_seeds();
	/* outpane: byte 0 = mode (bit 0 UTF-8, bits 1-3 lines - 1), byte 1 = split */
	static const char op1[] = "\x0f\x20" "cc -c foo.c\n\x1b[1;31merror:\x1b[0m bad\r\n"
				  "\x1b[32m[ 50%]\x1b[39m Building\x1b[K\rdone\t|\n";
	static const char op2[] = "\x0f\x05" "progress 10%\r\x1b[2Kprogress 90%\x1b[1G\x1b[3C!"
				  "\x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\x1b(B\x1b[?25l\n";
	static const char op3[] = "\x0f\x09" "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80 \xe4\xb8\xad\xe6\x96\x87"
				  " \xff\xc3 bad\xed\xa0\x80\n\x1b[38;5;9mred\x1b[38;2;1;2;3mrgb\x1b[90mgrey\b\b\x1b[D\n";
	static const char op4[] = "\x00\x03" "latin1 caf\xe9\n\x1bPdcs\x1b\\\x1b_apc\x1b\\\x1b[5Dx\x1b[1K\n";
	text("outpane", "build", op1, sizeof(op1) - 1);
	text("outpane", "progress", op2, sizeof(op2) - 1);
	text("outpane", "utf8", op3, sizeof(op3) - 1);
	text("outpane", "latin1", op4, sizeof(op4) - 1);
	/* jsonw: a cmdline (NUL-separated) and odd comm bytes */
	static const char j1[] = "gcc\0-O2\0-DNAME=\"x\\y\"\0foo bar.c\0-o\0\xc3\xa9t\xc3\xa9";
	static const char j2[] = "\x01\x1f\x7f\t\n\r\"\\/\xc0\xaf\xe0\x80\xaf\xed\xa0\x80\xf4\x90\x80\x80\xf0\x9f\x98\x80";
	static const char j3[] = "\0\0a\0";
	text("jsonw", "cmdline", j1, sizeof(j1) - 1);
	text("jsonw", "comm_odd", j2, sizeof(j2) - 1);
	text("jsonw", "empty_args", j3, sizeof(j3) - 1);
	return 0;
}
