/* leaderexit MIB HOLD_MS: the main thread starts a second thread and calls
 * pthread_exit; the second thread then maps MIB MiB of private anonymous
 * memory, writes every page, holds it HOLD_MS ms and returns, which ends the
 * process (exit status 0). Meanwhile /proc shows the leader as a zombie ('Z')
 * with 2 threads: the process goes on. Truth: 1 process, peak PSS about MIB. */
#define WORKLOAD_NAME "leaderexit"
#include "workload.h"

#include <pthread.h>

static long mib, hold_ms;

static void *work(void *arg)
{
	(void)arg;
	workload_sleep_ms(200); /* the leader is a zombie by now */
	if (!workload_fill((size_t)mib << 20, MAP_PRIVATE))
		exit(1);
	workload_sleep_ms(hold_ms);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc != 3) {
		fprintf(stderr, "usage: leaderexit MIB HOLD_MS\n");
		return 2;
	}
	mib = workload_arg_long(argv[1], 1, 1L << 20, "MIB");
	hold_ms = workload_arg_long(argv[2], 0, 3600000, "HOLD_MS");
	if (pthread_create(&th, NULL, work, NULL) != 0) {
		fprintf(stderr, WORKLOAD_NAME ": pthread_create failed\n");
		return 1;
	}
	pthread_exit(NULL);
}
