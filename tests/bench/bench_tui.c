/* bench_tui: what the dashboard costs to redraw, late in a long run.
 *
 * Fills a store with one hour of history (a sample every 100 ms, 20000
 * finished compiler-like processes, a dozen live ones), then runs the real
 * tui_run() on a 100x30 pseudo-terminal against a real command (a shell loop
 * printing 20 lines/s through the command's own pty) followed by a real
 * collector. Measures the UI thread's CPU time, frames/s and bytes sent to the
 * terminal in two phases: the whole-run view, then zoomed in. Prints one line
 * per phase and a final "tui_cpu_percent N" line. BENCH_TUI_FPS sets the
 * frame rate (default: the dashboard's default).
 *
 * The ui/ sources are compiled in here (the Makefile links bench programs with
 * libspacetime.a only). */
#include "../../ui/graph.c"
#include "../../ui/keys.c"
#include "../../ui/layout.c"
#include "../../ui/outpane.c"
#include "../../ui/panes.c"
#include "../../ui/panes_ghost.c"
#include "../../ui/mapview.c"
#include "../../ui/plist.c"
#include "../../ui/resample.c"
#include "../../ui/statpanes.c"
#include "../../ui/term.c"
#include "../../ui/timeline.c"
#include "../../ui/tui.c"
#include "../../ui/report.c"

#include <locale.h>
#include <pty.h>
#include <stdatomic.h>

#define SEC 1000000000ull
#define HISTORY_S 3600
#define FINISHED 20000
#define LIVE 12

static int master_fd;
static atomic_ullong drained;
static atomic_int stop_drain;
static pthread_t ui_thread;
static unsigned phase_s = 10;
static unsigned history_s = HISTORY_S; /* less when the machine has been up for less */

/* Reads everything the dashboard writes, as a terminal would. */
static void *drain(void *arg)
{
	char buf[65536];

	(void)arg;
	while (!atomic_load(&stop_drain)) {
		struct pollfd pf = {.fd = master_fd, .events = POLLIN};
		if (poll(&pf, 1, 100) <= 0)
			continue;
		ssize_t n = read(master_fd, buf, sizeof(buf));
		if (n > 0)
			atomic_fetch_add(&drained, (unsigned long long)n);
		else if (n < 0 && errno != EINTR && errno != EAGAIN)
			break;
	}
	return NULL;
}

static uint64_t ui_cpu_ns(void)
{
	clockid_t cid;
	struct timespec ts;

	if (pthread_getcpuclockid(ui_thread, &cid) || clock_gettime(cid, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

struct mark {
	uint64_t wall, cpu, frames, bytes;
};

static struct mark mark_now(void)
{
	struct mark m = {run_now_ns(), ui_cpu_ns(), tui_frames(), atomic_load(&drained)};

	return m;
}

static double report_phase(FILE *f, const char *name, struct mark a, struct mark b)
{
	double wall = (double)(b.wall - a.wall) / 1e9;
	double cpu = 100.0 * (double)(b.cpu - a.cpu) / (double)(b.wall - a.wall);

	fprintf(f, "bench_tui: %-22s %5.1f frames/s, UI thread %.2f%% of one core, %.1f KiB/s to the terminal (%.0f s)\n",
		name, (double)(b.frames - a.frames) / wall, cpu, (double)(b.bytes - a.bytes) / 1024 / wall, wall);
	return cpu;
}

static FILE *result;

/* Drives the keys: whole-run view, then zoomed in, then quit. */
static void *driver(void *arg)
{
	(void)arg;
	sleep(2);
	struct mark m0 = mark_now();
	sleep(phase_s);
	struct mark m1 = mark_now();
	if (write(master_fd, "+++", 3) != 3)
		return NULL;
	sleep(1);
	struct mark m2 = mark_now();
	sleep(phase_s);
	struct mark m3 = mark_now();
	double a = report_phase(result, "whole run in view:", m0, m1);
	double b = report_phase(result, "zoomed in 8x:", m2, m3);
	double all = 100.0 * (double)((m1.cpu - m0.cpu) + (m3.cpu - m2.cpu)) /
		     (double)((m1.wall - m0.wall) + (m3.wall - m2.wall));
	(void)a;
	(void)b;
	fprintf(result, "tui_cpu_percent %.2f\n", all);
	fflush(result);
	if (write(master_fd, "qy", 2) != 2)
		return NULL;
	return NULL;
}

/* One hour of a parallel build: PSS sawtooth, steady faults and CPU. */
static void prefill(struct store *st, uint64_t t0)
{
	struct sample s;
	char argv[256];

	memset(&s, 0, sizeof(s));
	for (uint64_t i = 0; i < history_s * 10ull; i++) {
		double phase = (double)(i % 3000) / 3000.0;
		uint64_t pss = 200 * 1024 + (uint64_t)(1536.0 * 1024 * phase) + (i * 7919 % 20480);
		s.t_ns = t0 + i * SEC / 10;
		s.pss_kib = pss;
		s.pss_anon_kib = pss * 70 / 100;
		s.pss_file_kib = pss * 25 / 100;
		s.pss_shmem_kib = pss - s.pss_anon_kib - s.pss_file_kib;
		s.rss_kib = pss * 13 / 10;
		s.minflt += 5000 + i % 977;
		s.majflt += i % 500 == 0 ? 12 : 0;
		s.utime_us += 550000;
		s.stime_us += 50000;
		s.live_procs = 8 + (uint32_t)(i % 9);
		s.live_threads = s.live_procs * 2;
		s.total_procs = (uint32_t)(i * FINISHED / (history_s * 10ull));
		s.total_threads = s.total_procs * 2;
		s.valid = SAMPLE_PSS | SAMPLE_RSS | SAMPLE_FAULTS | SAMPLE_CPU | SAMPLE_COUNTS;
		store_push_sample(st, &s);
	}
	for (int i = 0; i < FINISHED + LIVE; i++) {
		struct proc_rec r;
		int n = snprintf(argv, sizeof(argv), "cc%c-O2%c-c%csrc/module%d.c%c-o%cobj/module%d.o", 0, 0,
				 0, i, 0, 0, i);
		memset(&r, 0, sizeof(r));
		r.id = 1000000 + (uint64_t)i;
		r.pid = 100000 + i;
		r.ppid = 99999;
		r.start_ns = t0 + (uint64_t)i * (history_s * SEC / (FINISHED + LIVE));
		r.end_ns = i < FINISHED ? r.start_ns + 2 * SEC + (uint64_t)(i % 50) * SEC / 10 : 0;
		r.argv_id = store_str_intern(st, argv, (size_t)n + 1);
		snprintf(r.comm, sizeof(r.comm), "cc1");
		r.threads = 1;
		r.pss_kib = r.peak_pss_kib = 50000 + (uint64_t)(i * 37 % 200000);
		r.rss_kib = r.peak_rss_kib = r.pss_kib * 13 / 10;
		r.utime_us = 1500000;
		r.stime_us = 100000;
		r.minflt = 30000;
		r.majflt = i % 100 == 0;
		r.exit_status = 0;
		r.valid = PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS | PROC_V_ARGV |
			  (i < FINISHED ? PROC_V_EXIT : 0);
		store_proc_update(st, &r);
	}
}

int main(void)
{
	const char *ps = getenv("BENCH_TUI_SECONDS");
	struct winsize ws = {.ws_row = 30, .ws_col = 100};
	int slave;
	pthread_t dr, drv;

	setlocale(LC_ALL, "C.UTF-8");
	setenv("TERM", "xterm-256color", 0);
	if (ps && atoi(ps) > 0)
		phase_s = (unsigned)atoi(ps);
	/* BENCH_TUI_TTY=1: draw on the real terminal instead (to look at it) */
	int on_tty = getenv("BENCH_TUI_TTY") != NULL;
	/* BENCH_TUI_FPS: the dashboard's frame rate (default: the dashboard's own) */
	const char *fps_s = getenv("BENCH_TUI_FPS");
	double fps = fps_s && atof(fps_s) > 0 ? atof(fps_s) : TUI_FPS_DEFAULT;
	result = on_tty ? fopen("/dev/null", "w") : fdopen(dup(1), "w");
	if (!result || openpty(&master_fd, &slave, NULL, NULL, &ws) < 0) {
		perror("bench_tui: openpty");
		return 1;
	}
	/* the one clock is CLOCK_MONOTONIC: history cannot start before boot */
	uint64_t now = run_now_ns();
	if (now / SEC < HISTORY_S + 10)
		history_s = (unsigned)(now / SEC) - 10;
	uint64_t start = now - (uint64_t)history_s * SEC;
	/* the command: 20 lines/s of compiler-like output through its pty */
	char *argv[] = {"sh", "-c",
			"i=0; while :; do i=$((i+1)); echo \"CC src/module$i.c\"; sleep 0.05; done", NULL};
	struct run_config cfg = {.source = RUN_SPAWNED, .argv = argv, .interval_ms = 100, .budget = 0.01,
				.start_ns = start};
	struct run *run = run_new(&cfg);
	if (!run) {
		fprintf(stderr, "bench_tui: cannot create the run\n");
		return 1;
	}
	struct store *st = run_store(run);
	prefill(st, start);
	fprintf(result, "bench_tui: store filled with %u s of history, %d finished and %d live processes (%zu KiB)%s\n",
		history_s, FINISHED, LIVE, store_mem_bytes(st) / 1024,
		history_s < HISTORY_S ? " (shorter than 1 h: the machine booted less than an hour ago)" : "");

	struct spawn_opts so = {.use_pty = 1, .rows = 30, .cols = 100};
	if (run_start(run, &so, NULL) < 0) {
		fprintf(stderr, "bench_tui: cannot start the command\n");
		return 1;
	}
	/* the dashboard's terminal is the pty's slave side */
	if (!on_tty) {
		dup2(slave, 0);
		dup2(slave, 1);
	}
	close(slave);
	ui_thread = pthread_self();
	pthread_create(&dr, NULL, drain, NULL);
	pthread_create(&drv, NULL, driver, NULL);
	fprintf(result, "bench_tui: dashboard at %g frames/s\n", fps);
	struct tui_ctx ctx = {.run = run, .argv = argv, .interval_ms = 100, .fps = fps,
			      .notice = NULL, .log_path = "/dev/null",
			      .log_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)};
	int rc = tui_run(&ctx);
	pthread_join(drv, NULL);
	atomic_store(&stop_drain, 1);
	pthread_join(dr, NULL);
	run_signal(run, SIGKILL);
	run_stop(run);
	run_free(run);
	if (rc < 0) {
		fprintf(stderr, "bench_tui: tui_run failed: %s\n", strerror(-rc));
		return 1;
	}
	return 0;
}
