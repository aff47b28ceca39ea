/* threads N [LIVE_MS]: start N pthreads that each live LIVE_MS ms (default
 * 300), all alive at once, then join them. Truth: N+1 threads, 1 process. */
#define WORKLOAD_NAME "threads"
#include <pthread.h>
#include "workload.h"

static pthread_barrier_t all_started;
static long live_ms = 300;

/* Waits until every thread exists, then sleeps, so all N+1 overlap. */
static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&all_started);
	workload_sleep_ms(live_ms);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: threads N [LIVE_MS]\n");
		return 2;
	}
	long n = workload_arg_long(argv[1], 1, 10000, "N");
	if (argc > 2)
		live_ms = workload_arg_long(argv[2], 0, LONG_MAX / 1000, "LIVE_MS");

	pthread_t *tids = calloc((size_t)n, sizeof(*tids));
	if (!tids || pthread_barrier_init(&all_started, NULL, (unsigned)n + 1)) {
		fprintf(stderr, "threads: out of memory\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		int err = pthread_create(&tids[i], NULL, worker, NULL);
		if (err) {
			errno = err;
			perror("threads: pthread_create");
			return 1;
		}
	}
	pthread_barrier_wait(&all_started);
	for (long i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	return 0;
}
