/* fill MIB [HOLD_MS]: map MIB MiB of anonymous memory, write one byte to every
 * 4 KiB page, hold it HOLD_MS ms (default 600) and exit 0. Truth: MIB MiB of
 * private anonymous PSS in one process. MIB "env" takes it from $FILL_MIB:
 * one command line, a size that differs from run to run (compare.bats). */
#define WORKLOAD_NAME "fill"
#include "workload.h"

#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: fill MIB [HOLD_MS]\n");
		return 2;
	}
	const char *size = strcmp(argv[1], "env") ? argv[1] : getenv("FILL_MIB");
	long mib = workload_arg_long(size ? size : "", 1, 1L << 20, "MIB");
	long hold_ms = argc > 2 ? workload_arg_long(argv[2], 0, LONG_MAX / 1000, "HOLD_MS") : 600;

	if (!workload_fill((size_t)mib << 20, MAP_PRIVATE))
		return 1;
	workload_sleep_ms(hold_ms);
	return 0;
}
