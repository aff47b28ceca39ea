/* burn N MS MIB: N sequential children, each touches MIB MiB, burns MS ms of
 * its own CPU time, and exits with status 3; the parent waits for each before
 * the next. Truth: N+1 processes; each child used at least MS ms of CPU
 * (user + system) and had at least MIB MiB resident. With MS under the
 * sampling interval most children live between two samples. */
#define WORKLOAD_NAME "burn"
#include "workload.h"

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void child(long ms, long mib)
{
	size_t len = (size_t)mib << 20;
	char *p = len ? malloc(len) : NULL;

	if (len && !p)
		_exit(1);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = (char)i;
	double t0 = cpu_ms();
	volatile unsigned long x = 0;
	while (cpu_ms() - t0 < (double)ms)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
	_exit(3);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: burn N MS MIB\n");
		return 2;
	}
	long n = workload_arg_long(argv[1], 0, LONG_MAX, "N");
	long ms = workload_arg_long(argv[2], 0, LONG_MAX, "MS");
	long mib = workload_arg_long(argv[3], 0, LONG_MAX, "MIB");

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("burn: fork");
			return 1;
		}
		if (pid == 0)
			child(ms, mib);
		int st;
		if (workload_wait(pid, &st) < 0)
			return 1;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 3) {
			fprintf(stderr, "burn: child %ld failed (status 0x%x)\n", i, st);
			return 1;
		}
	}
	return 0;
}
