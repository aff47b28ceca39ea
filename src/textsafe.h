/* textsafe: untrusted text made safe for a terminal. Command lines, process
 * names and a command's output come from programs, and recordings from
 * anywhere; the summary, `spacetime runs` and the dashboard all show them
 * through this one rule, character by character:
 *
 *  - NUL (what separates a command line's arguments), tab, newline and
 *    carriage return: a space;
 *  - the other C0 controls, DEL, C1 controls (U+0080..U+009F, as UTF-8 or
 *    as raw bytes), invalid UTF-8 (overlong forms, surrogates, past
 *    U+10FFFF, cut sequences: each maximal ill-formed subpart once, as
 *    Unicode recommends), the bidirectional controls (text that reorders
 *    the line around it), and what iswprint() or wcwidth() call
 *    non-printable: U+FFFD;
 *  - every other character as it is.
 *
 * U+FFFD and not the Control Pictures (U+2400..): each picture's UTF-8
 * holds C1 bytes (ESC's is e2 90 9b, DCS and CSI to a terminal that does
 * not decode UTF-8), U+FFFD's (ef bf bd) none. Without utf8 (the locale's
 * charset is not UTF-8) only printable ASCII passes, and every other byte
 * becomes '?'. Printability and
 * width come from the C library's tables for the locale (LC_CTYPE): a
 * caller with utf8 set runs in a UTF-8 locale. Pure: no curses; the FILE
 * adapter writes only where it is told. */
#ifndef SPACETIME_TEXTSAFE_H
#define SPACETIME_TEXTSAFE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <wchar.h>

#define TEXTSAFE_REPLACEMENT 0xFFFD
/* Not a character: what textsafe_utf8() gives for ill-formed bytes. */
#define TEXTSAFE_INVALID 0xFFFFFFFFu

/* Decodes the UTF-8 sequence at b[0..len): returns its length (1..4) with
 * the code point in *cp; for ill-formed bytes, the length of their maximal
 * subpart (1..3) with *cp = TEXTSAFE_INVALID; 0 when len is 0, or when all
 * len bytes begin a well-formed sequence that they cut short (more bytes
 * may complete it). */
size_t textsafe_utf8(const unsigned char *b, size_t len, uint32_t *cp);

/* The character the rule shows for cp (TEXTSAFE_INVALID included). */
uint32_t textsafe_char(uint32_t cp, int utf8);

/* The next character of b[0..len) as shown, in *out: returns the bytes it
 * takes (0 only when len is 0). A sequence cut by the end of b is one
 * replacement. */
size_t textsafe_next(const char *b, size_t len, int utf8, uint32_t *out);

/* The adapters, one per kind of output. Each returns what it wrote, and
 * never a cut character. */
/* Wide characters for the dashboard's cells; out is always terminated
 * (cap > 0). Returns the characters written. */
size_t textsafe_wcs(const char *b, size_t len, wchar_t *out, size_t cap, int utf8);
/* A string (UTF-8, or ASCII without utf8); out is always terminated
 * (cap > 0). Returns the bytes written. */
size_t textsafe_str(const char *b, size_t len, char *out, size_t cap, int utf8);
/* Writes to f; returns the bytes written. */
size_t textsafe_fput(FILE *f, const char *b, size_t len, int utf8);

#endif
