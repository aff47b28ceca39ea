/* exitwith CODE: exit with CODE (0..255). */
#define WORKLOAD_NAME "exitwith"
#include "workload.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: exitwith CODE\n");
		return 2;
	}
	return (int)workload_arg_long(argv[1], 0, 255, "CODE");
}
