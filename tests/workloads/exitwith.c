/* exitwith CODE: exit with CODE (0..255). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: exitwith CODE\n");
		return 2;
	}
	char *end;
	errno = 0;
	long code = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || code < 0 || code > 255) {
		fprintf(stderr, "exitwith: bad CODE '%s'\n", argv[1]);
		return 2;
	}
	return (int)code;
}
