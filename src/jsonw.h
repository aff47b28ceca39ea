/* jsonw: a small streaming JSON writer shared by the exports. Strings are
 * untrusted bytes: control characters are escaped and invalid UTF-8 becomes
 * U+FFFD, so the output always parses. */
#ifndef SPACETIME_JSONW_H
#define SPACETIME_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Decodes one UTF-8 sequence at s: its length (1-4) with the code point in
 * *cp, or 0 when the bytes are not valid UTF-8 (overlong, surrogate, cut). */
size_t jsonw_utf8_len(const unsigned char *s, size_t left, uint32_t *cp);
/* Writes bytes as a JSON string literal (with quotes). */
void jsonw_str(FILE *f, const char *s, size_t len);
/* Writes a NUL-separated argv blob as a JSON array of strings. */
void jsonw_argv(FILE *f, const char *blob, size_t len);
/* Writes "key": with a leading comma unless first. */
void jsonw_key(FILE *f, const char *key, int *first);
void jsonw_u64(FILE *f, const char *key, uint64_t v, int *first);
void jsonw_i64(FILE *f, const char *key, int64_t v, int *first);

#endif
