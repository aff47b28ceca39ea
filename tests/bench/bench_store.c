/* bench_store: a simulated 24-hour run at 100 ms ticks fed straight into the
 * store, then the figures that matter: memory (the store's own count and the
 * process's peak RSS), query cost for the whole run and for 10-second zooms,
 * and how long a reader holds the lock to copy the process records in chunks.
 * Processes are made on the fly (the bench keeps only the live ones): each is
 * forked, execs a 100-200 byte command line (3 in 4 distinct), is updated
 * three times while it runs and exits. Prints one line per figure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "store.h"

#define BENCH_TICKS 864000ull /* 24 h at 100 ms */
#define BENCH_TICK_NS 100000000ull
#define BENCH_PROCS 100000ull
#define BENCH_RUNS 1000
#define BENCH_MAX_OUT 200
#define BENCH_LIVE_MAX 256 /* live processes at once, at most */
#define BENCH_RSS_TARGET_MIB 32.0

/* Query results are folded in here so the compiler keeps the queries. */
static volatile uint64_t bench_sink;

static uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A cheap deterministic generator (xorshift64), so runs are comparable. */
static uint64_t bench_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Builds the argv of process k: 100 to 200 bytes with NUL separators; 3 in 4
 * are its own, the rest one of 1000 common ones (the same bytes each time). */
static size_t bench_argv(char *buf, size_t cap, uint64_t k, uint64_t *rng)
{
	uint64_t variant = bench_rand(rng) % 4 ? k : k % 1000;
	uint64_t h = variant * 0x9e3779b97f4a7c15ull;
	size_t want = 100 + (size_t)(h >> 33) % 101;
	int n = snprintf(buf, cap,
			 "/usr/lib/gcc/x86_64-linux-gnu/12/cc1%c-quiet%c-Iinclude%c"
			 "src/module_%06llu.c%c-o%c/tmp/cc%08llx.s%c-O2",
			 0, 0, 0, (unsigned long long)variant, 0, 0,
			 (unsigned long long)(h >> 32), 0);
	size_t len = n < 0 ? 0 : (size_t)n;

	for (; len < want && len + 1 < cap; len++) /* -DFEATURE_xxx... up to the length */
		buf[len] = len % 24 == 0 ? '\0' : (char)('A' + (variant + len) % 26);
	return len;
}

/* One live process of the simulation: its record and what happens next. */
struct bench_proc {
	struct proc_rec rec;
	uint64_t start_tick, end_tick, next_tick;
	int step; /* 0 exec, 1..3 updates, 4 exit */
};

/* Advances p at tick i: the exec, the three updates, then the exit, spread
 * over its life. Returns 1 when it exited. */
static int bench_step(struct store *st, struct bench_proc *p, uint64_t i, uint64_t t,
		      uint64_t *rng)
{
	struct proc_rec *r = &p->rec;
	char argv[256];

	if (p->step == 0) {
		struct store_exec ex;
		struct store_event ev = { .t_ns = t, .type = STORE_EV_EXEC, .pid = r->pid,
					  .ppid = r->ppid };
		size_t len = bench_argv(argv, sizeof(argv), r->id, rng);

		r->argv_id = store_str_intern(st, argv, len);
		r->valid |= r->argv_id ? PROC_V_ARGV : 0;
		r->nexec = 1;
		memset(r->comm, 0, sizeof(r->comm));
		memcpy(r->comm, "cc1", 3);
		memset(&ex, 0, sizeof(ex));
		ex.t_ns = t;
		ex.pid = r->pid;
		ex.ppid = r->ppid;
		ex.argv_id = r->argv_id;
		memcpy(ex.comm, r->comm, sizeof(ex.comm));
		store_push_exec(st, &ex);
		store_push_event(st, &ev);
	}
	/* every step: memory and CPU grow */
	r->pss_kib = 20000 + bench_rand(rng) % 200000;
	r->rss_kib = r->pss_kib + 4000;
	if (r->pss_kib > r->peak_pss_kib) {
		r->peak_pss_kib = r->pss_kib;
		r->peak_pss_t_ns = t;
	}
	if (r->rss_kib > r->peak_rss_kib)
		r->peak_rss_kib = r->rss_kib;
	r->utime_us += 10000 + bench_rand(rng) % 400000;
	r->stime_us += 1000 + bench_rand(rng) % 40000;
	r->minflt += 500 + bench_rand(rng) % 50000;
	r->majflt += bench_rand(rng) % 16 == 0;
	r->pss_age_ns = 30000000;
	r->valid |= PROC_V_PSS | PROC_V_RSS | PROC_V_CPU | PROC_V_FAULTS;
	if (p->step == 4) {
		struct store_event ev = { .t_ns = t, .type = STORE_EV_EXIT, .pid = r->pid,
					  .ppid = r->ppid };

		r->end_ns = t;
		r->exit_status = bench_rand(rng) % 50 == 0 ? 1 << 8 : 0;
		r->valid |= PROC_V_EXIT;
		store_proc_update(st, r);
		store_push_event(st, &ev);
		return 1;
	}
	store_proc_update(st, r);
	p->step++;
	p->next_tick = p->start_tick + (p->end_tick - p->start_tick) * (uint64_t)p->step / 4;
	if (p->next_tick <= i)
		p->next_tick = i + 1;
	return 0;
}

/* Times BENCH_RUNS queries of [t0, t1]; returns the mean in milliseconds and
 * the slowest in *worst. */
static double bench_query(struct store *st, uint64_t t0, uint64_t t1, struct bucket *out,
			  size_t *nout, double *worst)
{
	uint64_t start = bench_now_ns(), slowest = 0;

	for (int r = 0; r < BENCH_RUNS; r++) {
		uint64_t q0 = bench_now_ns();

		*nout = store_query(st, t0, t1, out, BENCH_MAX_OUT);
		bench_sink += *nout ? out[*nout - 1].max.pss_kib : 0;
		if (bench_now_ns() - q0 > slowest)
			slowest = bench_now_ns() - q0;
	}
	*worst = (double)slowest / 1e6;
	return (double)(bench_now_ns() - start) / BENCH_RUNS / 1e6;
}

/* Copies every record of a kind in chunks of STORE_PROCS_CHUNK, as a reader
 * should; prints the total time and the longest chunk (the lock hold). */
static void bench_copy(struct store *st, int which, const char *what, struct proc_rec *buf)
{
	uint64_t start = bench_now_ns(), longest = 0;
	size_t from = 0, total, chunks = 0;

	do {
		uint64_t c0 = bench_now_ns();

		total = store_procs_range(st, which, from, buf, STORE_PROCS_CHUNK);
		if (bench_now_ns() - c0 > longest)
			longest = bench_now_ns() - c0;
		bench_sink += buf[0].pid;
		from += STORE_PROCS_CHUNK;
		chunks++;
	} while (from < total);
	printf("store: copying all %zu %s records in %zu chunks of %d: %.3f ms, longest chunk "
	       "(lock hold) %.3f ms\n",
	       total, what, chunks, STORE_PROCS_CHUNK, (double)(bench_now_ns() - start) / 1e6,
	       (double)longest / 1e6);
}

int main(void)
{
	struct store *st = store_new(NULL);
	struct bucket *out = calloc(BENCH_MAX_OUT, sizeof(*out));
	struct bench_proc *live = calloc(BENCH_LIVE_MAX, sizeof(*live));
	uint64_t rng = 0x9e3779b97f4a7c15ull, base = 12345 * BENCH_TICK_NS;
	uint64_t next_proc = 0, t0, t1, feed_start, feed_ns, maxlive = 0;
	size_t nlive = 0, n;
	struct rusage ru;
	double worst;

	if (!st || !out || !live) {
		fprintf(stderr, "bench_store: out of memory\n");
		return 1;
	}
	feed_start = bench_now_ns();
	for (uint64_t i = 0; i < BENCH_TICKS; i++) {
		uint64_t t = base + i * BENCH_TICK_NS;
		struct sample s;

		/* processes due now are forked: a live record, then their events */
		while (next_proc < BENCH_PROCS && next_proc * BENCH_TICKS / BENCH_PROCS <= i &&
		       nlive < BENCH_LIVE_MAX) {
			struct bench_proc *p = &live[nlive++];
			struct proc_rec *r = &p->rec;
			struct store_event ev = { .t_ns = t, .type = STORE_EV_FORK };
			/* most live 2 to 12 s; one in 500 for an hour */
			uint64_t life = next_proc % 500 == 7 ? 36000 : 20 + bench_rand(&rng) % 100;

			memset(p, 0, sizeof(*p));
			r->id = next_proc + 2;
			r->pid = (pid_t)(300 + (next_proc * 7) % 4000000);
			r->ppid = (pid_t)(200 + next_proc % 16);
			r->start_ns = t;
			r->threads = 1;
			memcpy(r->comm, "make", 4);
			p->start_tick = i;
			p->end_tick = i + life;
			p->next_tick = i + 1;
			store_proc_update(st, r);
			ev.pid = r->pid;
			ev.ppid = r->ppid;
			store_push_event(st, &ev);
			next_proc++;
		}
		for (size_t k = 0; k < nlive;) {
			if (live[k].next_tick <= i && bench_step(st, &live[k], i, t, &rng)) {
				live[k] = live[--nlive];
				continue;
			}
			k++;
		}
		maxlive = nlive > maxlive ? nlive : maxlive;

		memset(&s, 0, sizeof(s));
		s.t_ns = t;
		s.pss_kib = 200000 + (i % 36000) * 10 + bench_rand(&rng) % 5000;
		if (i == BENCH_TICKS / 3)
			s.pss_kib = 9000000; /* one spike */
		s.pss_anon_kib = s.pss_kib / 2;
		s.rss_kib = s.pss_kib + 50000;
		s.minflt = i * 40;
		s.utime_us = i * 90000;
		s.stime_us = i * 10000;
		s.live_procs = (uint32_t)nlive;
		s.total_procs = (uint32_t)next_proc + 1;
		s.valid = SAMPLE_PSS | SAMPLE_RSS | SAMPLE_FAULTS | SAMPLE_CPU | SAMPLE_COUNTS;
		store_push_sample(st, &s);
	}
	feed_ns = bench_now_ns() - feed_start;

	if (store_span(st, &t0, &t1) != 0) {
		fprintf(stderr, "bench_store: no data\n");
		return 1;
	}
	printf("store: fed %llu samples, %zu processes (%zu still live, at most %llu at once), "
	       "%zu execs in %.2f s (%.2f us per tick)\n",
	       (unsigned long long)BENCH_TICKS, store_procs(st, 0, NULL, 0),
	       store_procs(st, 1, NULL, 0), (unsigned long long)maxlive,
	       store_execs(st, 0, NULL, 0), (double)feed_ns / 1e9,
	       (double)feed_ns / 1e3 / BENCH_TICKS);
	printf("store: memory %.1f MiB (store_mem_bytes, allocated)\n",
	       (double)store_mem_bytes(st) / (1 << 20));
	printf("store: strings dropped %llu, truncated to 1 KiB %llu (pool default 12 MiB)\n",
	       (unsigned long long)store_str_dropped(st),
	       (unsigned long long)store_str_truncated(st));

	double ms = bench_query(st, t0, t1, out, &n, &worst);
	uint64_t mx = 0;
	for (size_t i = 0; i < n; i++)
		mx = out[i].max.pss_kib > mx ? out[i].max.pss_kib : mx;
	printf("store: whole-run query %.4f ms mean, %.4f ms worst, %zu bucket(s), peak %s "
	       "(target < 1 ms)\n",
	       ms, worst, n, mx == 9000000 ? "kept" : "LOST");
	static const char *const where[] = { "start", "middle", "end" };
	uint64_t zoom[] = { t0, t0 + (t1 - t0) / 2, t1 - 10000000000ull };
	for (int z = 0; z < 3; z++) {
		ms = bench_query(st, zoom[z], zoom[z] + 10000000000ull, out, &n, &worst);
		printf("store: 10-second zoom at the %s %.4f ms mean, %.4f ms worst, %zu bucket(s), "
		       "the first of %u samples (target < 1 ms)\n",
		       where[z], ms, worst, n, n ? out[0].n : 0);
	}

	struct proc_rec *buf = malloc(STORE_PROCS_CHUNK * sizeof(*buf));
	if (!buf) {
		fprintf(stderr, "bench_store: out of memory\n");
		return 1;
	}
	bench_copy(st, STORE_PROCS_ALL, "process", buf);
	bench_copy(st, STORE_PROCS_EXITED, "exited", buf);
	bench_copy(st, STORE_PROCS_LIVE, "live", buf);

	getrusage(RUSAGE_SELF, &ru);
	printf("store: process peak RSS %.1f MiB (ru_maxrss: the store, the program and the "
	       "bench's %.1f MiB chunk buffer) (target <= %.0f MiB) %s\n",
	       (double)ru.ru_maxrss / 1024,
	       (double)(STORE_PROCS_CHUNK * sizeof(*buf)) / (1 << 20), BENCH_RSS_TARGET_MIB,
	       (double)ru.ru_maxrss / 1024 <= BENCH_RSS_TARGET_MIB ? "met" : "MISSED");
	free(buf);
	free(live);
	free(out);
	store_free(st);
	return 0;
}
