/* fixture.h: loading captured /proc files and netlink datagrams for the unit
 * tests (include after <cmocka.h>). */
#ifndef SPACETIME_TEST_FIXTURE_H
#define SPACETIME_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

/* Loads a fixture into a malloc'd buffer of exactly its size: no NUL
 * terminator, so ASan catches any read past len, and malloc aligns it as
 * recv() buffers are. ST_FIXTURES overrides the directory. */
static inline void *fixture_load(const char *name, size_t *len)
{
	const char *dir = getenv("ST_FIXTURES");
	char path[1024];
	FILE *f;
	long n;
	void *buf;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures", name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open fixture %s (run from the repo root or set ST_FIXTURES)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

#endif
