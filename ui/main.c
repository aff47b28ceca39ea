/* main.c: options, privileges, mode dispatch and the exit status. */
#include "attach.h"
#include "caps.h"
#include "clockns.h"
#include "config.h"
#include "export.h"
#include "export_json.h"
#include "history.h"
#include "push.h"
#include "plain.h"
#include "recdir.h"
#include "report.h"
#include "run.h"
#include "runs.h"
#include "rsstrace.h"
#include "spawn.h"
#include "store.h"
#include "tui.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "version.h"

#define MAIN_EXIT_USAGE 2
/* spacetime -p: a process that exists but may not be watched by this user. */
#define MAIN_EXIT_DENIED 1
#define MAIN_EXIT_FAIL 125
#define MAIN_RCVBUF (16 * 1024 * 1024)
/* Nice levels the collector runs above the command when privileged. */
#define MAIN_COLLECTOR_BOOST 5

struct options {
	int summary, verbose, execs, no_mouse, no_netlink, no_rss_trace, caps, wait_tree;
	unsigned interval_ms;
	double fps;
	double budget;
	const char *output, *json;
	const char *output_log; /* --output-log FILE: the dashboard's command output, kept */
	const char *export_dir;
	unsigned export_formats;
	char **argv;
	int top; /* --top: heaviest jobs listed in the summary (-1: default) */
	const char *record; /* --record FILE (NULL: the default recording) */
	int no_record;
	long keep;          /* --keep N: runs the recording keeps (-1: default) */
	const char *labels[RUNS_LABELS_MAX]; /* --label KEY=VALUE */
	size_t nlabels;
	unsigned record_deadline_ms; /* --record-deadline (0: the default, 2 s) */
	/* -p / --pgid: attach to these running processes instead of a command */
	pid_t pids[STORE_ATTACH_MAX];
	size_t npids;
	pid_t pgid; /* 0: none */
	struct push_opts push; /* --push, --otlp: where the run goes at its end */
};

/* The attached process's command line, which stands for the command in the
 * summary and exports (freed by run_free). */
static char **main_attach_argv;

#define STR_(x) #x
#define STR(x) STR_(x)

static void usage(FILE *f)
{
	fputs("usage: spacetime [options] [--] COMMAND [ARGS...]\n"
	      "       spacetime [options] -p PID[,PID...] | --pgid PGID\n"
	      "Run COMMAND and show where its time and memory go, for its whole process tree,\n"
	      "or attach to running processes and their descendants, existing and future.\n"
	      "\n"
	      "  -p, --pid PID[,PID]  attach to running process(es) (repeatable, at most 64);\n"
	      "                       the run ends when they and all their descendants have\n"
	      "                       ended; q (dashboard) or ^C (-s) detaches and leaves\n"
	      "                       them running; nothing is signalled\n"
	      "      --pgid PGID      attach to every process of process group PGID\n"
	      "  -s, --summary        no dashboard: the command keeps the terminal and a\n"
	      "                       summary is printed on stderr when it ends\n"
	      "  -o, --output FILE    write the summary to FILE instead of stderr\n"
	      "      --json FILE      also write the summary as JSON to FILE\n"
	      "      --output-log FILE  in the dashboard, also write the command's output to\n"
	      "                       FILE (it is kept in the recording in any case)\n"
	      "      --export DIR     when the run ends, write a snapshot into DIR: JSON,\n"
	      "                       CSV, a Perfetto/Chrome trace and an SVG chart\n"
	      "      --export-format LIST  formats to export: json,csv,trace,svg (default all)\n"
	      "  -i, --interval MS    sampling interval in ms (default " STR(STORE_INTERVAL_MS) ", 10..60000)\n"
	      "      --budget PCT     CPU budget of spacetime, percent of one core\n"
	      "                       (default 1), and at most 0.3 times that per core the\n"
	      "                       command keeps busy; PSS reads are scheduled within it\n"
	      "      --no-mouse       no clicks or wheel in the dashboard (the terminal's own\n"
	      "                       text selection instead)\n"
	      "      --fps N          dashboard redraws per second while live (default 2,\n"
	      "                       0.2..30); keys always redraw at once\n"
	      "  -v, --verbose        list every program executed (EXEC lines) and the 20\n"
	      "                       heaviest jobs after the summary's figures\n"
	      "      --execs          list every program executed after the figures\n"
	      "      --top N          list the N heaviest jobs by peak PSS and by CPU time\n"
	      "                       in the summary (default 5, 20 with -v; 0: none)\n"
	      "      --wait-tree      end when the whole tree has ended, not when the command\n"
	      "                       has (processes it left behind are followed and reaped)\n"
	      "      --record FILE    record the run into the SQLite file FILE (default:\n"
	      "                       $XDG_STATE_HOME/spacetime/runs.db, or\n"
	      "                       ~/.local/state/spacetime/runs.db, keeping the last 100\n"
	      "                       runs and at most 512 MiB)\n"
	      "      --no-record      do not record the run\n"
	      "      --keep N         runs the recording keeps, oldest pruned first\n"
	      "      --label KEY=VALUE  a label stored with the recorded run (the branch, the\n"
	      "                       commit: spacetime runs and compare select by it); repeatable\n"
	      "      --record-deadline S  the recording's last write may take S seconds after\n"
	      "                       the run's end (default 2; a signal stops it at once);\n"
	      "                       past them the run is recorded as incomplete\n"
	      "      --push URL       at the run's end, PUT its figures to a Prometheus\n"
	      "                       Pushgateway at URL (grouped by the labels and host)\n"
	      "      --otlp URL       at the run's end, POST them as OTLP/HTTP JSON metrics to\n"
	      "                       URL/v1/metrics (env: OTEL_EXPORTER_OTLP_ENDPOINT's)\n"
	      "      --otlp-traces    with --otlp: the process tree as spans to URL/v1/traces\n"
	      "      --push-timeout S  the most each endpoint may take (default 5 s); a\n"
	      "                       failure is one line, never the exit status\n"
	      "      --no-netlink     follow the tree by polling /proc even if netlink works\n"
	      "                       (and use no taskstats exit records, nor the RSS trace)\n"
	      "      --no-rss-trace   do not trace the tree's RSS changes between samples\n"
	      "                       (kmem/rss_stat; needs CAP_PERFMON): the peak between\n"
	      "                       samples is then bounded from high-water marks alone\n"
	      "      --caps           print which features privileges enable, and exit\n"
	      "  -h, --help           this help\n"
	      "  -V, --version        print the version\n"
	      "\n"
	      "\n"
	      "       spacetime runs | replay [ID|last] | export [ID|last]   (see spacetime runs --help)\n"
	      "       spacetime compare A B [--fail-above METRIC=PCT]     (see spacetime compare --help)\n"
	      "       spacetime forecast [RUN] [-j N] [--ram SIZE]         (see spacetime forecast --help)\n"
	      "       spacetime push [RUN] --push URL | --otlp URL        (see spacetime push --help)\n"
	      "List the recorded runs, replay one in the dashboard, export one, compare two,\n"
	      "forecast what -j fits in how much memory from a recorded build, send one to\n"
	      "Prometheus or OpenTelemetry.\n"
	      "These words are commands: run a program of that name with spacetime -- NAME.\n"
	      "\n"
	      "Exit status: the command's (128+N if signal N killed it), 127 if it was\n"
	      "not found, 126 if it could not be executed, 2 for a usage error, 125 if\n"
	      "spacetime itself failed. Attached (-p): 0 when the processes ended or were\n"
	      "detached, 2 if a pid does not exist, 1 if this user may not read its memory.\n",
	      f);
}

/* Prints one error line and exits with the usage status. */
static void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "spacetime: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see spacetime --help)\n");
	exit(MAIN_EXIT_USAGE);
}

/* Adds the comma-separated pids of s to o, or exits with a usage error. */
static void parse_pids(const char *s, struct options *o)
{
	const char *p = s;

	for (;;) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || v <= 0 || v > INT_MAX)
			die_usage("invalid pid list '%s': expected PID[,PID...]", s);
		if (o->npids == STORE_ATTACH_MAX)
			die_usage("too many pids in '%s': at most 64 processes can be attached", s);
		o->pids[o->npids++] = (pid_t)v;
		if (!*end)
			return;
		p = end + 1;
	}
}

/* Parses a whole number within [lo, hi] or exits with a usage error. */
static long parse_int(const char *s, long lo, long hi, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);

	if (errno || end == s || *end || v < lo || v > hi) {
		char msg[128];
		snprintf(msg, sizeof(msg), "invalid %s '%%s': expected a whole number %ld..%ld", what, lo, hi);
		die_usage(msg, s);
	}
	return v;
}

/* Parses a number within [lo, hi] or exits with a usage error. */
static double parse_num(const char *s, double lo, double hi, const char *what)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);

	if (errno || end == s || *end || v < lo || v > hi) {
		char msg[128];
		snprintf(msg, sizeof(msg), "invalid %s '%%s': expected %g..%g", what, lo, hi);
		die_usage(msg, s);
	}
	return v;
}

/* The long options; those without a short one numbered past any character. */
enum { OPT_JSON = 256, OPT_BUDGET, OPT_NO_NETLINK, OPT_NO_RSS_TRACE, OPT_CAPS, OPT_EXPORT, OPT_EXPORT_FORMAT,
       OPT_FPS, OPT_WAIT_TREE,
       OPT_TOP, OPT_PGID, OPT_RECORD, OPT_NO_RECORD, OPT_KEEP, OPT_RECORD_DEADLINE, OPT_LABEL,
       OPT_PUSH, OPT_OTLP, OPT_OTLP_TRACES, OPT_PUSH_TIMEOUT, OPT_EXECS,
       OPT_OUTPUT_LOG, OPT_NO_MOUSE };
static const struct option main_long_opts[] = {
	{"summary", no_argument, NULL, 's'},
	{"output", required_argument, NULL, 'o'},
	{"json", required_argument, NULL, OPT_JSON},
	{"interval", required_argument, NULL, 'i'},
	{"budget", required_argument, NULL, OPT_BUDGET},
	{"fps", required_argument, NULL, OPT_FPS},
	{"verbose", no_argument, NULL, 'v'},
	{"no-netlink", no_argument, NULL, OPT_NO_NETLINK},
	{"no-rss-trace", no_argument, NULL, OPT_NO_RSS_TRACE},
	{"wait-tree", no_argument, NULL, OPT_WAIT_TREE},
	{"caps", no_argument, NULL, OPT_CAPS},
	{"export", required_argument, NULL, OPT_EXPORT},
	{"export-format", required_argument, NULL, OPT_EXPORT_FORMAT},
	{"top", required_argument, NULL, OPT_TOP},
	{"pid", required_argument, NULL, 'p'},
	{"pgid", required_argument, NULL, OPT_PGID},
	{"record", required_argument, NULL, OPT_RECORD},
	{"no-record", no_argument, NULL, OPT_NO_RECORD},
	{"keep", required_argument, NULL, OPT_KEEP},
	{"record-deadline", required_argument, NULL, OPT_RECORD_DEADLINE},
	{"label", required_argument, NULL, OPT_LABEL},
	{"execs", no_argument, NULL, OPT_EXECS},
	{"output-log", required_argument, NULL, OPT_OUTPUT_LOG},
	{"no-mouse", no_argument, NULL, OPT_NO_MOUSE},
	{"push", required_argument, NULL, OPT_PUSH},
	{"otlp", required_argument, NULL, OPT_OTLP},
	{"otlp-traces", no_argument, NULL, OPT_OTLP_TRACES},
	{"push-timeout", required_argument, NULL, OPT_PUSH_TIMEOUT},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{0},
};

/* Takes option c (its value in optarg) into o, or exits: --help and
 * --version print and exit 0, a bad value or option is a usage error. */
static void take_option(struct options *o, int c, char **argv)
{
	switch (c) {
	case 's': o->summary = 1; break;
	case 'o': o->output = optarg; break;
	case OPT_JSON: o->json = optarg; break;
	case 'i': o->interval_ms = (unsigned)parse_int(optarg, 10, 60000, "interval"); break;
	case OPT_BUDGET: o->budget = parse_num(optarg, 0.01, 100, "budget"); break;
	case OPT_FPS: o->fps = parse_num(optarg, 0.2, 30, "frame rate"); break;
	case 'v': o->verbose = 1; break;
	case OPT_NO_NETLINK: o->no_netlink = 1; break;
	case OPT_NO_RSS_TRACE: o->no_rss_trace = 1; break;
	case OPT_WAIT_TREE: o->wait_tree = 1; break;
	case OPT_CAPS: o->caps = 1; break;
	case 'p': parse_pids(optarg, o); break;
	case OPT_PGID: o->pgid = (pid_t)parse_int(optarg, 1, INT_MAX, "process group"); break;
	case OPT_EXPORT: o->export_dir = optarg; break;
	case OPT_EXPORT_FORMAT:
		if (export_formats_parse(optarg, &o->export_formats) < 0)
			die_usage("invalid --export-format '%s': expected json,csv,trace,svg", optarg);
		break;
	case OPT_RECORD: o->record = optarg; break;
	case OPT_NO_RECORD: o->no_record = 1; break;
	case OPT_KEEP: o->keep = parse_int(optarg, 1, 1000000, "number of runs to keep"); break;
	case OPT_RECORD_DEADLINE:
		o->record_deadline_ms = (unsigned)(parse_num(optarg, 0.1, 3600, "deadline") * 1000);
		break;
	case OPT_TOP: o->top = (int)parse_int(optarg, 0, 1000, "number of jobs"); break;
	case OPT_LABEL:
		if (!runs_label_ok(optarg))
			die_usage("invalid --label '%s': KEY=VALUE, a key of letters, digits, _ . - (up to 32), "
				  "a value of up to 200 bytes", optarg);
		if (o->nlabels == RUNS_LABELS_MAX)
			die_usage("too many labels ('%s'): 16 at most", optarg);
		o->labels[o->nlabels++] = optarg;
		break;
	case OPT_EXECS: o->execs = 1; break;
	case OPT_OUTPUT_LOG: o->output_log = optarg; break;
	case OPT_NO_MOUSE: o->no_mouse = 1; break;
	case OPT_PUSH: o->push.push_url = optarg; break;
	case OPT_OTLP: o->push.otlp_url = optarg; break;
	case OPT_OTLP_TRACES: o->push.otlp_traces = 1; break;
	case OPT_PUSH_TIMEOUT:
		if (!(o->push.timeout_ms = push_timeout_parse(optarg)))
			die_usage("invalid --push-timeout '%s': seconds, 0.1..600", optarg);
		break;
	case 'h': usage(stdout); exit(0);
	case 'V':
		printf("spacetime %s (commit %s)\n", SPACETIME_VERSION, *SPACETIME_COMMIT ? SPACETIME_COMMIT : "unknown");
		exit(0);
	case ':': die_usage("option '%s' needs a value", argv[optind - 1]); break;
	default:
		die_usage("unknown option '%s'", argv[optind - 1]);
	}
}

/* Options that cannot go together, or no command: usage errors. */
static void check_options(const struct options *o)
{
	if ((o->npids || o->pgid) && o->argv[0])
		die_usage("-p/--pgid attach to running processes: a command ('%s') cannot be given too",
			  o->argv[0]);
	if ((o->npids || o->pgid) && o->wait_tree)
		die_usage("--wait-tree is for a command spacetime runs: an attached run always lasts "
			  "until the whole tree has ended%s", "");
	if (o->record && o->no_record)
		die_usage("--record and --no-record: choose one%s", "");
	if (!o->caps && !o->npids && !o->pgid && !o->argv[0])
		die_usage("no command given%s", "");
}

static void parse_options(int argc, char **argv, struct options *o, const struct config *cfg)
{
	int c;

	memset(o, 0, sizeof(*o));
	/* the defaults, the config file's where it sets them */
	o->interval_ms = cfg->interval_ms > 0 ? (unsigned)cfg->interval_ms : STORE_INTERVAL_MS;
	o->budget = cfg->budget > 0 ? cfg->budget : 1.0;
	o->fps = cfg->fps > 0 ? cfg->fps : 0;
	o->top = cfg->top >= 0 ? (int)cfg->top : -1;
	o->keep = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:so:i:p:vhV", main_long_opts, NULL)) != -1)
		take_option(o, c, argv);
	o->argv = argv + optind;
	check_options(o);
}

/* The proc connector's receive buffer. Test only (tests/e2e/faults.bats):
 * SPACETIME_TEST_RCVBUF=BYTES asks for a tiny one, so that a burst of forks
 * overruns it and the loss counting and rescan can be checked. */
static int main_rcvbuf(void)
{
	const char *s = getenv("SPACETIME_TEST_RCVBUF");
	char *end;
	long v = s ? strtol(s, &end, 10) : 0;

	return s && *s && !*end && v > 0 && v < MAIN_RCVBUF ? (int)v : MAIN_RCVBUF;
}

/* Test only (tests/e2e/faults.bats): SPACETIME_TEST_LOSE_FORKS=N drops
 * every Nth fork event of the tree as an overrun would, without the error
 * that starts a rescan, so that short processes are found by their exit
 * events alone; with SPACETIME_TEST_LOSE_EXITS set, their exit events are
 * dropped too, and only their taskstats records tell. */
static uint32_t main_lose_forks(void)
{
	const char *s = getenv("SPACETIME_TEST_LOSE_FORKS");
	char *end;
	long v = s ? strtol(s, &end, 10) : 0;

	return s && *s && !*end && v > 0 && v < 1000000 ? (uint32_t)v : 0;
}

/* Prints what privileges enable (--caps). */
static int print_caps(const struct caps_state *cs, const struct run_sockets *so, int by_option)
{
	static const char *kind[] = {"unprivileged user", "sudo", "root", "file capabilities",
				     "set-user-ID"};
	char text[256];

	caps_text(text, sizeof(text));
	if (cs->kind == CAPS_SUDO && cs->var && strcmp(cs->var, "SUDO_UID"))
		printf("privileges:   %s (uid %d, from %s), capabilities %s\n", cs->var[0] == 'D' ? "doas" : "pkexec",
		       (int)getuid(), cs->var, text);
	else
		printf("privileges:   %s (uid %d), capabilities %s\n", kind[cs->kind], (int)getuid(), text);
	if (so->nl_err == 0)
		printf("netlink:      on: every fork, exec and exit is seen%s; receive buffer %d KiB%s\n",
		       so->ni.split      ? " (kernel-filtered: exec on one socket, fork|exit on another)"
		       : so->ni.filtered ? " (kernel-filtered to fork|exec|exit)"
				      : "",
		       so->ni.rcvbuf_bytes / 1024, so->ni.rcvbuf_forced ? " (forced)" : "");
	else
		printf("netlink:      off: %s;\n"
		       "              the tree is polled from /proc, processes shorter than the\n"
		       "              interval are missed\n",
		       run_nl_reason(so->nl_err, by_option));
	if (so->ts_err == 0)
		printf("taskstats:    on: exact CPU time, faults and peak RSS of every process at its exit;\n"
		       "              receive buffer %d KiB\n", so->ts_rcvbuf_bytes / 1024);
	else
		printf("taskstats:    off: %s;\n"
		       "              finished processes keep the figures of their last sample\n",
		       run_ts_reason(so->ts_err, by_option));
	if (so->rss)
		printf("RSS trace:    on: every change of the tree's RSS between samples (kmem/rss_stat)\n");
	else
		printf("RSS trace:    off: %s;\n"
		       "              the peak between samples is bounded from high-water marks\n",
		       so->rss_err == -ENOTSUP ? (by_option ? "--no-netlink" : "--no-rss-trace")
					       : rsstrace_reason(-so->rss_err));
	printf("command runs: as uid %d with no capabilities%s\n", (int)cs->uid,
	       cs->kind == CAPS_ROOT ? " dropped (really root: it keeps root, as without spacetime)" : "");
	printf("PSS:          smaps_rollup of your own processes, within a CPU budget\n");
	return 0;
}

/* Opens an output file as the (already unprivileged) user, or exits. */
static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f) {
		fprintf(stderr, "spacetime: cannot write %s: %s\n", path, strerror(errno));
		exit(MAIN_EXIT_USAGE);
	}
	return f;
}

/* The file the dashboard writes the command's output to: --output-log's
 * (made or emptied, readable by the user only, kept), or, when the run is
 * not recorded, one in $TMPDIR (or /tmp) made with O_EXCL and removed at
 * exit. The fd is kept and handed to the dashboard: the file is never
 * reopened by name. Returns the fd, or -errno (path: the directory). */
static int log_open(const char *given, char *path, size_t cap)
{
	const char *tmp = getenv("TMPDIR");

	if (given) {
		snprintf(path, cap, "%s", given);
		int fd = open(given, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOCTTY, 0600);
		if (fd < 0)
			return -errno;
		/* an existing file too: the output is the user's alone */
		struct stat sb;
		if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
			fchmod(fd, 0600);
		return fd;
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(path, cap, "%s/spacetime-output-XXXXXX.log", tmp);
	int fd = mkostemps(path, 4, O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(path, cap, "%s", tmp);
		return -e;
	}
	return fd;
}

/* After the dashboard: a file asked for is kept, and said when the dashboard
 * ran; a temporary one goes (the output is in the pane's lines only, as the
 * user chose no recording). */
static void log_close(int fd, const char *path, int keep, int ran)
{
	if (keep && ran)
		fprintf(stderr, "spacetime: the command's output is saved in %s\n", path);
	else if (!keep)
		unlink(path);
	close(fd);
}

/* Opens /dev/null on whichever of fds 0, 1 and 2 is closed, so that no file
 * spacetime opens (the JSON, a log, a socket) becomes one of them and gets the
 * summary or the command's output written into it. */
static void std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int n = open("/dev/null", O_RDWR);
		if (n >= 0 && n != fd) { /* a lower one was opened first: cannot be */
			close(n);
			return;
		}
	}
}

/* Checks the processes -p and --pgid name, one line for the first that
 * cannot be attached to, and names the run after the first one's command
 * line. Returns 0 or the exit status. Another user's processes need what the
 * kernel needs for their memory files (ptrace read access); spacetime never
 * uses privileges it held at startup for that. */
static int attach_prepare(struct options *o)
{
	struct attach_info ai;
	int r;

	if (o->pgid) {
		size_t before = o->npids;
		r = attach_pgid(o->pgid, o->pids, &o->npids, STORE_ATTACH_MAX);
		if (r == -ENOSPC) {
			fprintf(stderr, "spacetime: process group %d has more than %d processes whose parent is "
					"outside it; attach to some of them with -p\n", (int)o->pgid, STORE_ATTACH_MAX);
			return MAIN_EXIT_USAGE;
		}
		if (r <= 0 && o->npids == before) {
			fprintf(stderr, "spacetime: no process in process group %d\n", (int)o->pgid);
			return MAIN_EXIT_USAGE;
		}
	}
	for (size_t i = 0; i < o->npids; i++) {
		pid_t pid = o->pids[i];
		if (pid == getpid()) {
			fprintf(stderr, "spacetime: pid %d is spacetime itself\n", (int)pid);
			return MAIN_EXIT_USAGE;
		}
		r = attach_check(pid, &ai);
		if (r == -ESRCH) {
			fprintf(stderr, "spacetime: no process with pid %d\n", (int)pid);
			return MAIN_EXIT_USAGE;
		}
		if (r == -EISDIR) {
			fprintf(stderr, "spacetime: %d is a thread of process %d: attach to the process\n",
				(int)pid, (int)ai.tgid);
			return MAIN_EXIT_USAGE;
		}
		if (r == -EACCES) {
			fprintf(stderr, "spacetime: cannot attach to pid %d (uid %d): reading its memory "
					"needs ptrace access to it (its own user, or CAP_SYS_PTRACE); run "
					"spacetime as its user\n", (int)pid, (int)ai.uid);
			return MAIN_EXIT_DENIED;
		}
		if (r < 0) {
			fprintf(stderr, "spacetime: cannot attach to pid %d: %s\n", (int)pid, strerror(-r));
			return MAIN_EXIT_DENIED;
		}
		/* after the access check: a process one may not read is that first */
		if (attach_is_ancestor(pid)) {
			fprintf(stderr, "spacetime: pid %d is an ancestor of spacetime, whose tree would hold "
					"spacetime itself; attach from outside it (another terminal)\n", (int)pid);
			return MAIN_EXIT_USAGE;
		}
	}
	if (!(main_attach_argv = attach_argv(o->pids[0]))) {
		fprintf(stderr, "spacetime: no process with pid %d\n", (int)o->pids[0]);
		return MAIN_EXIT_USAGE;
	}
	o->argv = main_attach_argv;
	return 0;
}

/* The one-line message for a run that could not start, and the exit status
 * spacetime returns for it. */
static int start_failed(const struct options *o, struct run *run, enum run_fail fail, int err)
{
	char msg[512];

	switch (fail) {
	case RUN_FAIL_RECORD:
		run_recording(run, msg, sizeof(msg), NULL);
		fprintf(stderr, "spacetime: %s (%s)\n", msg,
			o->npids || o->pgid ? "nothing was attached to" : "the command was not started");
		return MAIN_EXIT_USAGE;
	case RUN_FAIL_GONE:
		fprintf(stderr, "spacetime: the processes ended before spacetime could attach\n");
		return MAIN_EXIT_USAGE;
	case RUN_FAIL_EXEC:
		if (err == -ENOENT) {
			fprintf(stderr, "spacetime: %s: command not found\n", o->argv[0]);
			return 127;
		}
		fprintf(stderr, "spacetime: %s: cannot execute: %s\n", o->argv[0], strerror(-err));
		return 126;
	case RUN_FAIL_SPAWN:
		fprintf(stderr, "spacetime: cannot start %s: %s\n", o->argv[0], strerror(-err));
		return MAIN_EXIT_FAIL;
	default:
		fprintf(stderr, "spacetime: cannot start the collector: %s\n", strerror(-err));
		return MAIN_EXIT_FAIL;
	}
}

/* Writes what the user asked for after the run: the summary, the JSON, the
 * snapshot. A failure is one line; the exit status stays the command's. */
static void write_outputs(const struct options *o, struct store *st, FILE *out, FILE *json,
			  const char *notice, const char *record)
{
	const char *utf = nl_langinfo(CODESET);
	struct report_opts ro = {.verbose = o->verbose, .execs = o->execs, .utf8 = utf && !strcmp(utf, "UTF-8"),
				 .notice = notice, .record = record};
	int r;

	ro.top = o->top >= 0 ? o->top : o->verbose ? REPORT_TOP_VERBOSE : REPORT_TOP;
	if (report_text(out, st, o->argv, &ro) < 0 || (out != stderr && fclose(out) != 0))
		fprintf(stderr, "spacetime: writing the summary to %s failed: %s\n",
			o->output ? o->output : "stderr", strerror(errno));
	if (json) {
		r = export_json_summary(json, st, o->argv);
		fputc('\n', json);
		if (r < 0 || fclose(json) != 0)
			fprintf(stderr, "spacetime: writing %s failed: %s\n", o->json, strerror(errno));
	}
	if (o->export_dir) {
		struct export_opts eo = {.dir = o->export_dir, .formats = o->export_formats};
		char msg[2048];

		if (export_snapshot(st, o->argv, &eo, msg, sizeof(msg)) < 0)
			fprintf(stderr, "spacetime: %s\n", msg);
		else
			fprintf(stderr, "spacetime: snapshot written: %s\n", msg);
	}
}

/* What main's phases hand each other. */
struct main_state {
	struct options o;
	struct caps_state cs;
	struct run_sockets socks;
	sigset_t ignored, orig_mask; /* as found: the command gets them back */
	int env_fd, user_nice, boosted;
	char **secure_env;
	FILE *out, *json;
	char notice[320];             /* what collection leaves out, in one line */
	char recp[4096], recmsg[512]; /* the recording's path, or why there is none */
	int sfd;                      /* the signals we take and pass on */
	int dash;
	struct winsize ws;
	char logp[4096];
	int lfd;
	struct run *run;
	int64_t rec_id;
	int pruned;
	struct push_plan push;
	struct config cfg; /* the user's defaults (config.h) */
	int dash_ran;      /* the dashboard ran (its output log was written) */
};

/* A SIGCHLD ignored by our parent would let the kernel reap the command
 * before we can: the command gets the dispositions and mask we found, we
 * take SIGCHLD back. A closed pipe on our stdout or stderr (spacetime -s
 * ... 2>&1 | head) must not kill us before the files are written and the
 * command's status returned: the write fails with EPIPE instead (the
 * command gets SIGPIPE back at its default, spawn.c, unless it was ignored
 * here). */
static void signals_found(struct main_state *m)
{
	std_fds_open();
	sigemptyset(&m->ignored);
	for (int s = 1; s < NSIG; s++) {
		struct sigaction sa;
		if (sigaction(s, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			sigaddset(&m->ignored, s);
	}
	sigprocmask(SIG_SETMASK, NULL, &m->orig_mask);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
}

/* While privileged: who to become (the elevation tool's variables, the
 * user's account), the netlink sockets, the nice boost, and the fd of our
 * own environment; then the drop. Nothing else is read or parsed before it:
 * not the locale, not the options (--no-netlink closes the sockets after
 * it). Returns 0 or the exit status to end with. */
static int privileged_phase(struct main_state *m)
{
	int r;

	if ((r = caps_probe(&m->cs)) < 0) {
		if (r == -ENOTUNIQ)
			fprintf(stderr, "spacetime: %s and %s name different users; refusing to run\n",
				m->cs.var2, m->cs.var);
		else if (r == -ESTALE)
			fprintf(stderr, "spacetime: %s names uid %d, but this session's login uid is %ld "
					"(a variable left in a root shell?); unset it to run as root\n",
				m->cs.var, (int)m->cs.uid, m->cs.login_uid);
		else
			fprintf(stderr, "spacetime: %s does not name a user; refusing to run\n",
				m->cs.var ? m->cs.var : "SUDO_UID/SUDO_GID");
		return MAIN_EXIT_FAIL;
	}
	if (m->cs.net_admin)
		caps_raise_net_admin();
	int root = m->cs.kind == CAPS_SUDO || m->cs.kind == CAPS_ROOT;
	/* past rmem_max only for root (really, or by sudo): a file capability
	 * must not let any user pin more kernel memory than the system allows */
	run_sockets_open(&m->socks, main_rcvbuf(), root);
	/* While privileged, raise our priority a little: the collector thread
	 * inherits it, so it reads a short program's command line before the
	 * program is gone. The command and the UI go back to the user's own. */
	errno = 0;
	m->user_nice = getpriority(PRIO_PROCESS, 0);
	m->boosted = errno == 0 && root && setpriority(PRIO_PROCESS, 0, m->user_nice - MAIN_COLLECTOR_BOOST) == 0;
	/* Started in secure mode: the command gets back the environment glibc
	 * pruned. Opened before the drop (a set-user-ID process's /proc files
	 * belong to root), read after it. */
	m->env_fd = spawn_secure_env_open();
	if ((r = caps_drop(&m->cs)) < 0) {
		fprintf(stderr, "spacetime: cannot drop privileges (%s); refusing to run the command\n",
			strerror(-r));
		return MAIN_EXIT_FAIL;
	}
	return 0;
}

/* The options taken: the sockets they turn off closed. Returns -1 to go on,
 * or the exit status to end with (--caps, a bad attach). */
static int options_phase(struct main_state *m, int argc, char **argv)
{
	int r;

	parse_options(argc, argv, &m->o, &m->cfg);
	m->secure_env = spawn_secure_env(m->env_fd);
	if (m->o.no_netlink)
		run_sockets_close(&m->socks, -ENOTSUP);
	if (m->o.no_rss_trace && m->socks.rss) {
		rsstrace_close(m->socks.rss);
		m->socks.rss = NULL;
		m->socks.rss_err = -ENOTSUP;
	}
	if (push_plan(&m->o.push, &m->push) < 0) {
		run_sockets_close(&m->socks, 0);
		return MAIN_EXIT_USAGE;
	}
	if (m->o.caps) {
		print_caps(&m->cs, &m->socks, m->o.no_netlink);
		run_sockets_close(&m->socks, 0);
		return 0;
	}
	/* -p / --pgid: no command; the sockets were subscribed above, before
	 * the collector's scan of the running tree */
	if ((m->o.npids || m->o.pgid) && (r = attach_prepare(&m->o)) != 0) {
		run_sockets_close(&m->socks, 0);
		return r;
	}
	return -1;
}

/* Every output path is checked before the command starts: a typo must not
 * cost a long build its summary or snapshot (what can still go wrong during
 * the run, a full disk, is reported when it is written). Then what
 * collection leaves out, in one line, and where the recording goes.
 * Returns -1 to go on, or the exit status to end with. */
static int outputs_phase(struct main_state *m)
{
	int r;

	m->out = m->o.output ? open_out(m->o.output) : stderr;
	m->json = m->o.json ? open_out(m->o.json) : NULL;
	if (m->o.export_dir && (r = export_dir_check(m->o.export_dir)) < 0) {
		fprintf(stderr, "spacetime: cannot export to %s: %s (the command was not started)\n",
			m->o.export_dir, strerror(-r));
		run_sockets_close(&m->socks, 0);
		return MAIN_EXIT_USAGE;
	}
	if (m->socks.nl_err < 0)
		snprintf(m->notice, sizeof(m->notice),
			 "%s: the tree was polled from /proc every %u ms, so processes that lived "
			 "shorter were missed and counts are lower bounds",
			 run_nl_reason(m->socks.nl_err, m->o.no_netlink), m->o.interval_ms);
	else if (m->socks.ts_err < 0)
		snprintf(m->notice, sizeof(m->notice),
			 "%s: finished processes show the CPU, faults and RSS of their last sample, "
			 "not the kernel's figures at their exit",
			 run_ts_reason(m->socks.ts_err, 0));
	/* the recording: the file given, or the user's default one, bounded */
	if (!m->o.no_record && m->o.record)
		snprintf(m->recp, sizeof(m->recp), "%s", m->o.record);
	else if (!m->o.no_record && recdir_default(m->recp, sizeof(m->recp), 1) < 0) {
		snprintf(m->recmsg, sizeof(m->recmsg), "not recording: %.480s", m->recp);
		m->recp[0] = 0;
	}
	return -1;
}

/* Terminal signals reach the command directly (same process group); the
 * others come through a signalfd, passed on; after the run, one stops the
 * recording's final write. */
static int signals_taken(void)
{
	sigset_t ss;
	int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};

	sigemptyset(&ss);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&ss, sigs[i]);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	return signalfd(-1, &ss, SFD_CLOEXEC);
}

/* The run as the options say. NULL (with the reason said): none. */
static struct run *run_phase_new(struct main_state *m)
{
	const struct options *o = &m->o;
	int attach = o->npids || o->pgid, default_db = !o->record;
	struct run_config rc = {.source = attach ? RUN_ATTACHED : RUN_SPAWNED, .argv = o->argv,
				.record_path = m->recp[0] ? m->recp : NULL, .record_default = default_db,
				.record_deadline_ms = o->record_deadline_ms, .record_cancel_fd = m->sfd,
				.record_keep = o->keep > 0 ? (size_t)o->keep : default_db ? HISTORY_KEEP_RUNS : 0,
				.record_max_bytes = default_db ? HISTORY_MAX_BYTES : 0,
				.labels = o->labels, .nlabels = o->nlabels,
				.reset_nice = m->boosted, .nice = m->user_nice,
				.pids = o->pids, .npids = o->npids, .socks = &m->socks,
				.interval_ms = o->interval_ms, .budget = o->budget / 100.0,
				.wait_tree = o->wait_tree,
				/* no dashboard: nothing reads before the end */
				.notify_end = !m->dash,
				.test_lose_forks = main_lose_forks(),
				.test_lose_exits = getenv("SPACETIME_TEST_LOSE_EXITS") != NULL};
	struct run *run = run_new(&rc);
	if (!run)
		fprintf(stderr, "spacetime: cannot set up the run: %s\n", strerror(errno));
	return run;
}

/* Where the dashboard's command output is kept, in words: the recording
 * (the run's lines), --output-log's file, or, unrecorded, a temporary file
 * made now and gone at exit (none when it cannot be made: the pane still
 * shows the last lines). */
static void output_where(struct main_state *m, int attach, char *where, size_t cap)
{
	where[0] = 0;
	if (attach)
		return;
	if (m->lfd < 0 && m->rec_id <= 0)
		m->lfd = log_open(NULL, m->logp, sizeof(m->logp));
	if (m->lfd >= 0 && m->o.output_log)
		snprintf(where, cap, "saved in %s", m->logp);
	else if (m->rec_id > 0)
		snprintf(where, cap, "kept in the recording (spacetime replay %lld)", (long long)m->rec_id);
	else if (m->lfd >= 0)
		snprintf(where, cap, "in %s until spacetime exits (not recorded)", m->logp);
}

/* The command started (or the processes attached to), watched by the
 * dashboard or waited for, and stopped. Returns -1, or the exit status to
 * end with (the start failed). */
static int watch_phase(struct main_state *m)
{
	const struct options *o = &m->o;
	int attach = o->npids || o->pgid, r;
	struct spawn_opts so = {.use_pty = m->dash, .rows = m->ws.ws_row, .cols = m->ws.ws_col,
				.set_nice = m->boosted, .nice = m->user_nice, .ignored = &m->ignored,
				.mask = &m->orig_mask, .envp = m->secure_env};
	enum run_fail fail;

	if ((r = run_start(m->run, &so, &fail)) < 0)
		return start_failed(o, m->run, fail, r);
	/* attached: the scan is done and events are followed, so from now on
	 * nothing the tree forks is missed (a script may wait for this line) */
	if (attach && !m->dash) {
		fprintf(stderr, "spacetime: attached to pid");
		for (size_t i = 0; i < o->npids; i++)
			fprintf(stderr, "%s %d", i ? "," : "", (int)o->pids[i]);
		fprintf(stderr, "; the summary comes when %s and %s descendants have ended, ^C "
				"detaches\n", o->npids > 1 ? "they" : "it", o->npids > 1 ? "their" : "its");
	}
	if (m->boosted)
		setpriority(PRIO_PROCESS, (id_t)gettid(), m->user_nice); /* the UI thread */
	m->rec_id = run_recording(m->run, m->recmsg[0] ? NULL : m->recmsg, sizeof(m->recmsg), &m->pruned);
	if (m->recmsg[0] && !m->dash)
		fprintf(stderr, "spacetime: %s\n", m->recmsg); /* one line, and the run goes on */
	if (m->dash) {
		char where[4200];
		output_where(m, attach, where, sizeof(where));
		struct tui_ctx tc = {.run = m->run, .argv = o->argv, .interval_ms = o->interval_ms, .fps = o->fps,
				     .cfg = &m->cfg, .no_mouse = o->no_mouse,
				     .notice = m->notice[0] ? m->notice : NULL,
				     .log_path = m->lfd >= 0 ? m->logp : NULL, .log_fd = m->lfd,
				     .out_where = where[0] ? where : NULL, .export_dir = o->export_dir,
				     .export_formats = o->export_formats};
		if ((r = tui_run(&tc)) >= 0) {
			m->dash_ran = 1;
		} else {
			fprintf(stderr, "spacetime: cannot start the dashboard (%s); waiting for the command\n",
				strerror(-r));
			m->dash = 0;
		}
	}
	if (!m->dash)
		plain_wait(m->run, m->sfd);
	/* q or a signal, attached: the summary so far, and the processes go on */
	run_stop(m->run);
	return -1;
}

/* The recording's one line: where the run is, or why it is not (all of it). */
static void recording_line(struct main_state *m, char *line, size_t n)
{
	char endmsg[512] = "";
	int64_t rec_end = run_recording(m->run, endmsg, sizeof(endmsg), NULL);

	line[0] = 0;
	if (rec_end < 0 && m->rec_id > 0) { /* it failed during the run */
		fprintf(stderr, "spacetime: %s\n", endmsg);
		snprintf(line, n, "%s", endmsg);
	} else if (m->recmsg[0]) {
		if (m->dash)
			fprintf(stderr, "spacetime: %s\n", m->recmsg);
		snprintf(line, n, "%s", m->recmsg);
	} else if (rec_end > 0) {
		int k = snprintf(line, n, "run %lld in %s (spacetime replay %lld)", (long long)rec_end, m->recp,
				 (long long)rec_end);
		if (m->pruned && k > 0 && (size_t)k < n)
			snprintf(line + k, n - (size_t)k, "; %d oldest run%s pruned to keep it bounded", m->pruned,
				 m->pruned > 1 ? "s" : "");
	}
}

/* The run sent where --push and --otlp say, after everything is written:
 * a slow or failing endpoint costs the run nothing. */
static void push_phase(struct main_state *m)
{
	char host[256];
	struct store_summary s;

	if (!m->push.any)
		return;
	store_summary_get(run_store(m->run), &s);
	uint64_t now = clockns_now(), wall = clockns_of(CLOCK_REALTIME);
	host[sizeof(host) - 1] = 0;
	struct fleet_run fr = {.st = run_store(m->run), .argv = m->o.argv, .labels = m->o.labels,
			       .nlabels = m->o.nlabels, .host = gethostname(host, sizeof(host) - 1) == 0 ? host : NULL,
			       .start_wall_ns = wall - (now > s.start_ns ? now - s.start_ns : 0),
			       .top = m->o.top >= 0 ? m->o.top : REPORT_TOP, .version = SPACETIME_VERSION};
	/* ^C or a CI's cancel stops a slow endpoint at once */
	m->push.d.cancel_fd = m->sfd;
	push_send(&m->push, &fr);
}

static void config_warn(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "spacetime: %s\n", line);
}

/* The user's defaults, read as the user (after the privileged phase): a bad
 * line is one warning, never a refusal to run. */
static void config_phase(struct main_state *m)
{
	char path[4096];

	config_parse("", 0, "", &m->cfg, config_warn, NULL);
	if (config_path(path, sizeof(path)) == 0)
		config_load(path, &m->cfg, config_warn, NULL);
}

int main(int argc, char **argv)
{
	static struct main_state m = {.lfd = -1, .sfd = -1, .env_fd = -1};
	int r;

	signals_found(&m);
	if ((r = privileged_phase(&m)) != 0)
		return r;
	setlocale(LC_ALL, "");
	config_phase(&m);
	/* spacetime runs | replay | export ...: the recorded runs (a command of
	 * that name runs with spacetime -- NAME) */
	if (argc > 1 && history_is_command(argv[1])) {
		run_sockets_close(&m.socks, 0);
		if (m.env_fd >= 0)
			close(m.env_fd);
		/* push reads a run through history's helpers: called from here,
		 * not from history, so that the two do not call each other */
		if (!strcmp(argv[1], "push"))
			return push_main(argc - 1, argv + 1);
		return history_main(argc - 1, argv + 1, &m.cfg);
	}
	if ((r = options_phase(&m, argc, argv)) >= 0 || (r = outputs_phase(&m)) >= 0)
		goto out;
	/* The dashboard: stdout is a terminal and -s was not given. */
	m.dash = !m.o.summary && tui_probe() && ioctl(STDOUT_FILENO, TIOCGWINSZ, &m.ws) == 0;
	/* --output-log: checked like -o before anything runs, in the dashboard
	 * only (otherwise the output is the terminal's or the caller's) */
	if (m.o.output_log && (!m.dash || m.o.npids || m.o.pgid))
		fprintf(stderr, "spacetime: --output-log ignored: %s\n",
			m.o.npids || m.o.pgid ? "an attached run has no output of its own"
					      : "no dashboard (-s, or no terminal): the output is the terminal's");
	if (m.dash && m.o.output_log && !m.o.npids && !m.o.pgid && (m.lfd = log_open(m.o.output_log, m.logp, sizeof(m.logp))) < 0) {
		fprintf(stderr, "spacetime: cannot write %s: %s (the command was not started)\n", m.o.output_log,
			strerror(-m.lfd));
		run_sockets_close(&m.socks, 0);
		r = MAIN_EXIT_USAGE;
		goto out;
	}
	m.sfd = signals_taken();
	if (!(m.run = run_phase_new(&m))) {
		r = MAIN_EXIT_FAIL;
		goto out;
	}
	if ((r = watch_phase(&m)) >= 0)
		goto out;
	r = run_exit_status(m.run);
	if (r < 0) {
		fprintf(stderr, "spacetime: the command's exit status is unknown (it was reaped by "
				"someone else, or never seen to end)\n");
		r = MAIN_EXIT_FAIL;
	}
	char recline[1024];
	recording_line(&m, recline, sizeof(recline));
	write_outputs(&m.o, run_store(m.run), m.out, m.json, m.notice[0] ? m.notice : NULL,
		      recline[0] ? recline : NULL);
	push_phase(&m);
out:
	if (m.lfd >= 0)
		log_close(m.lfd, m.logp, m.o.output_log != NULL, m.dash_ran);
	/* everything main allocated, on every way out: LeakSanitizer (make
	 * check-san) checks that nothing is left */
	run_free(m.run);
	free(m.secure_env);
	free(main_attach_argv);
	return r;
}
