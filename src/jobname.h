/* jobname: what a person would call a process, from its command line.
 *
 * A parallel build's processes mostly read "cc1 -quiet -I include ...": the
 * part that tells them apart (the file compiled, the directory a sub-make
 * works in) is far down the line. jobname() picks it out with one rule table
 * (compilers and assemblers: the source file, else the output; make: its
 * directory or goals; sh -c: the script's first real command; interpreters:
 * the script) and writes "PROGRAM DISTINCTIVE-PART", e.g. "cc1 src/store.c",
 * "make drivers/net", "as build/caps.o". Pure: bytes in, a name out. */
#ifndef SPACETIME_JOBNAME_H
#define SPACETIME_JOBNAME_H

#include <stddef.h>

/* Bytes of a job name at most, without the NUL. */
#define JOBNAME_MAX 64
/* Arguments jobname() looks at at most (later ones are ignored). */
#define JOBNAME_MAX_ARGS 1024

/* Writes the job name of argv[0..argc) into out (at most cap - 1 bytes, and
 * never more than JOBNAME_MAX, plus a NUL): never a control character, never
 * a cut UTF-8 sequence. comm (the kernel's name, may be NULL) serves when
 * argc is 0 or argv[0] is empty. Returns the length written. */
size_t jobname_argv(const char *const *argv, size_t argc, const char *comm, char *out, size_t cap);

/* The same from argv as the store keeps it: len bytes of NUL-separated
 * strings (a trailing NUL or not). blob may be NULL (len 0): comm alone. */
size_t jobname(const char *blob, size_t len, const char *comm, char *out, size_t cap);

#endif
