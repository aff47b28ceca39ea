/* bench_store: a simulated 24-hour run at 100 ms ticks fed into the store,
 * then the figures that matter to the UI: memory, and query cost for the
 * whole run and for 10-second zooms. Prints one line per figure. */
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

/* Builds a ~100-byte argv with NUL separators; about 3 in 4 are distinct. */
static size_t bench_argv(char *buf, size_t cap, uint64_t i, uint64_t *rng)
{
	uint64_t variant = bench_rand(rng) % 4 ? i : i % 1000;
	int n = snprintf(buf, cap,
			 "/usr/lib/gcc/x86_64-linux-gnu/12/cc1%c-quiet%c-Iinclude%c"
			 "src/module_%06llu.c%c-o%c/tmp/cc%08llx.s",
			 0, 0, 0, (unsigned long long)variant, 0, 0,
			 (unsigned long long)(variant * 2654435761u));
	return n < 0 ? 0 : (size_t)n;
}

/* Times BENCH_RUNS queries of [t0, t1] and returns the mean in milliseconds. */
static double bench_query(struct store *st, uint64_t t0, uint64_t t1, struct bucket *out,
			  size_t *nout)
{
	uint64_t start = bench_now_ns();

	for (int r = 0; r < BENCH_RUNS; r++) {
		*nout = store_query(st, t0, t1, out, BENCH_MAX_OUT);
		bench_sink += *nout ? out[*nout - 1].max.pss_kib : 0;
	}
	return (double)(bench_now_ns() - start) / BENCH_RUNS / 1e6;
}

int main(void)
{
	struct store *st = store_new(NULL);
	struct bucket *out = calloc(BENCH_MAX_OUT, sizeof(*out));
	struct proc_rec *recs = calloc(BENCH_PROCS, sizeof(*recs));
	uint64_t rng = 0x9e3779b97f4a7c15ull, base = 12345 * BENCH_TICK_NS;
	uint64_t next_proc = 0, t0, t1, feed_start, feed_ns;
	char argv[160];
	struct rusage ru;
	size_t n;

	if (!st || !out || !recs) {
		fprintf(stderr, "bench_store: out of memory\n");
		return 1;
	}
	/* feed: one sample per tick; procs start spread over the run, each lives ~50 ticks */
	feed_start = bench_now_ns();
	for (uint64_t i = 0; i < BENCH_TICKS; i++) {
		uint64_t t = base + i * BENCH_TICK_NS;
		struct sample s;

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
		s.live_procs = 8;
		s.total_procs = (uint32_t)next_proc + 1;
		s.valid = SAMPLE_PSS | SAMPLE_RSS | SAMPLE_FAULTS | SAMPLE_CPU | SAMPLE_COUNTS;
		store_push_sample(st, &s);

		while (next_proc < BENCH_PROCS && next_proc * BENCH_TICKS / BENCH_PROCS <= i) {
			struct proc_rec *r = &recs[next_proc];
			struct store_exec ex;
			struct store_event ev = { .t_ns = t, .type = STORE_EV_FORK,
						  .pid = (pid_t)(1000 + next_proc), .ppid = 1 };
			size_t len = bench_argv(argv, sizeof(argv), next_proc, &rng);

			r->id = (uint64_t)(1000 + next_proc) << 32 | (i & 0xffffffff);
			r->pid = ev.pid;
			r->ppid = 1;
			r->start_ns = t;
			r->argv_id = store_str_intern(st, argv, len);
			r->valid = PROC_V_ARGV;
			snprintf(r->comm, sizeof(r->comm), "cc1");
			store_proc_update(st, r);
			store_push_event(st, &ev);
			memset(&ex, 0, sizeof(ex));
			ex.t_ns = t;
			ex.pid = r->pid;
			ex.ppid = 1;
			ex.argv_id = r->argv_id;
			memcpy(ex.comm, r->comm, sizeof(ex.comm));
			store_push_exec(st, &ex);
			next_proc++;
		}
		/* the process started 50 ticks ago exits */
		uint64_t k = (i >= 50 ? i - 50 : 0) * BENCH_PROCS / BENCH_TICKS;
		if (i >= 50 && k < next_proc && recs[k].end_ns == 0) {
			struct store_event ev = { .t_ns = t, .type = STORE_EV_EXIT, .pid = recs[k].pid };

			recs[k].end_ns = t;
			recs[k].pss_kib = recs[k].peak_pss_kib = 12000;
			recs[k].valid |= PROC_V_EXIT | PROC_V_PSS;
			store_proc_update(st, &recs[k]);
			store_push_event(st, &ev);
		}
	}
	feed_ns = bench_now_ns() - feed_start;

	if (store_span(st, &t0, &t1) != 0) {
		fprintf(stderr, "bench_store: no data\n");
		return 1;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("store: fed %llu samples, %llu procs, %zu execs, %zu live procs in %.2f s "
	       "(%.2f us per tick)\n",
	       (unsigned long long)BENCH_TICKS, (unsigned long long)BENCH_PROCS,
	       store_execs(st, 0, NULL, 0), store_procs(st, 1, NULL, 0), (double)feed_ns / 1e9,
	       (double)feed_ns / 1e3 / BENCH_TICKS);
	printf("store: memory %.1f MiB (store_mem_bytes)\n",
	       (double)store_mem_bytes(st) / (1 << 20));
	printf("store: process peak RSS %.1f MiB (ru_maxrss, includes the bench's own %.1f MiB "
	       "of records)\n",
	       (double)ru.ru_maxrss / 1024, (double)(BENCH_PROCS * sizeof(*recs)) / (1 << 20));
	printf("store: strings dropped %llu\n", (unsigned long long)store_str_dropped(st));

	double ms = bench_query(st, t0, t1, out, &n);
	uint64_t mx = 0;
	for (size_t i = 0; i < n; i++)
		mx = out[i].max.pss_kib > mx ? out[i].max.pss_kib : mx;
	printf("store: whole-run query %.4f ms, %zu bucket(s), peak %s (target < 1 ms)\n", ms, n,
	       mx == 9000000 ? "kept" : "LOST");
	static const char *const where[] = { "start", "middle", "end" };
	uint64_t zoom[] = { t0, t0 + (t1 - t0) / 2, t1 - 10000000000ull };
	for (int z = 0; z < 3; z++) {
		ms = bench_query(st, zoom[z], zoom[z] + 10000000000ull, out, &n);
		printf("store: 10-second zoom query at the %s %.4f ms, %zu bucket(s), the first of %u samples "
		       "(target < 1 ms)\n",
		       where[z], ms, n, n ? out[0].n : 0);
	}

	struct proc_rec *copy = malloc(BENCH_PROCS * sizeof(*copy));
	uint64_t start = bench_now_ns();
	n = store_procs(st, 0, copy, BENCH_PROCS);
	printf("store: copying all %zu proc records %.3f ms\n", n,
	       (double)(bench_now_ns() - start) / 1e6);
	free(copy);
	free(recs);
	free(out);
	store_free(st);
	return 0;
}
