/* fuzz.h: shared helpers for the libFuzzer targets in tests/fuzz. */
#ifndef SPACETIME_FUZZ_H
#define SPACETIME_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An invariant of the parser under test: on failure, name it and abort, which
 * libFuzzer reports as a crash and saves the input. */
#define FUZZ_CHECK(cond)                                                              \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, \
				#cond);                                               \
			abort();                                                      \
		}                                                                     \
	} while (0)

/* A malloc'd copy of exactly size bytes (no NUL, no slack), so ASan reports
 * any read past the end. malloc aligns it as a recv() buffer is. */
static inline char *fuzz_copy(const uint8_t *data, size_t size)
{
	char *p = malloc(size ? size : 1);

	if (!p)
		abort();
	if (size)
		memcpy(p, data, size);
	return p;
}

/* The same with a NUL after the size bytes, for the checks that want a C
 * string (never for the parser under test, which takes (buf, len)). */
static inline char *fuzz_copy_str(const uint8_t *data, size_t size)
{
	char *p = malloc(size + 1);

	if (!p)
		abort();
	if (size)
		memcpy(p, data, size);
	p[size] = '\0';
	return p;
}

/* True when all bytes of the object are zero. */
static inline int fuzz_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

#endif
