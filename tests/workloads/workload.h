/* Helpers shared by the workload programs, each of which is built alone from
 * its one .c file. Define WORKLOAD_NAME (the program's name, a string literal)
 * before including this header: it starts every error message. */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#ifndef WORKLOAD_NAME
#error "define WORKLOAD_NAME before including workload.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WORKLOAD_PAGE = 4096 };

/* Parses a decimal argument in [min, max]; exits 2 with a message naming it if it is not one. */
static inline long workload_arg_long(const char *s, long min, long max, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, WORKLOAD_NAME ": bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

/* Sleeps ms milliseconds, resuming after signal interruptions. */
static inline void workload_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Waits for child pid, retrying on EINTR; returns 0, or -1 after reporting the failure. */
static inline int workload_wait(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			perror(WORKLOAD_NAME ": waitpid");
			return -1;
		}
	}
	return 0;
}

/* Maps bytes of anonymous memory shared or private (share is MAP_SHARED or MAP_PRIVATE) and
 * writes 1 to every page, so each is a real page, never the shared zero page; NULL if mmap fails. */
static inline volatile char *workload_fill(size_t bytes, int share)
{
	volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, share | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror(WORKLOAD_NAME ": mmap");
		return NULL;
	}
	for (size_t off = 0; off < bytes; off += WORKLOAD_PAGE)
		p[off] = 1;
	return p;
}

/* Writes mib MiB of bytes 1 to fd (what workload_read_pages reads back).
 * Returns 0, or -1 (errno set). */
static inline int workload_write_ones(int fd, long mib)
{
	static char buf[1 << 20];
	memset(buf, 1, sizeof(buf));
	for (long i = 0; i < mib; i++)
		for (size_t done = 0; done < sizeof(buf);) {
			ssize_t n = write(fd, buf + done, sizeof(buf) - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return -1;
			done += (size_t)n;
		}
	return 0;
}

/* Reads one byte of every page of a region workload_fill wrote; returns 0 if each read 1, else -1. */
static inline int workload_read_pages(volatile const char *p, size_t bytes)
{
	unsigned sum = 0;
	for (size_t off = 0; off < bytes; off += WORKLOAD_PAGE)
		sum += (unsigned char)p[off];
	return sum == bytes / WORKLOAD_PAGE ? 0 : -1;
}

/* A barrier between a parent and its children: each child writes a byte on ready when it has
 * done its work, then blocks on release until the parent closes its end (EOF) after the hold. */
struct workload_hold {
	int ready[2];
	int release[2];
};

/* Opens the barrier's two pipes; returns 0, or -1 after reporting the failure. */
static inline int workload_hold_open(struct workload_hold *h)
{
	if (pipe(h->ready) < 0 || pipe(h->release) < 0) {
		perror(WORKLOAD_NAME ": pipe");
		return -1;
	}
	return 0;
}

/* In a child: says it is ready and blocks until the release; returns the child's exit status. */
static inline int workload_hold_ready(struct workload_hold *h)
{
	char c = 'r';
	if (write(h->ready[1], &c, 1) != 1)
		return 1;
	while (read(h->release[0], &c, 1) < 0 && errno == EINTR)
		; /* EOF: the parent's hold is over */
	return 0;
}

/* Forks n children; each runs work(arg), which returns 0 when done, then says ready and holds,
 * and exits 1 if either failed. Returns how many were forked: fewer than n after a reported
 * fork failure (the forked children see EOF on release once the parent exits or releases). */
static inline long workload_hold_fork(struct workload_hold *h, long n, int (*work)(void *), void *arg)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror(WORKLOAD_NAME ": fork");
			return i;
		}
		if (pid == 0) {
			close(h->ready[0]);
			close(h->release[1]);
			_exit(work(arg) ? 1 : workload_hold_ready(h));
		}
	}
	return n;
}

/* In the parent: closes the children's pipe ends and reads n ready bytes; returns 0, or -1
 * after reporting that a child failed (exited without saying ready). */
static inline int workload_hold_await(struct workload_hold *h, long n)
{
	close(h->ready[1]);
	close(h->release[0]);
	for (long i = 0; i < n; i++) {
		char c;
		ssize_t got;
		while ((got = read(h->ready[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (got != 1) {
			fprintf(stderr, WORKLOAD_NAME ": a child failed before the hold\n");
			return -1;
		}
	}
	return 0;
}

/* In the parent: releases the children and reaps every child; returns 0 if all exited 0, else -1. */
static inline int workload_hold_end(struct workload_hold *h)
{
	int ok = 1, st;
	pid_t pid;
	close(h->release[1]);
	while ((pid = wait(&st)) > 0 || (pid < 0 && errno == EINTR))
		if (pid > 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			ok = 0;
	return ok ? 0 : -1;
}

/* In the parent: awaits n ready children, holds them hold_ms ms if all were ready, then
 * releases and reaps them; returns the parent's exit status, 0 if every child succeeded. */
static inline int workload_hold_children(struct workload_hold *h, long n, long hold_ms)
{
	int ok = workload_hold_await(h, n) == 0;
	if (ok)
		workload_sleep_ms(hold_ms);
	if (workload_hold_end(h) < 0)
		ok = 0;
	return ok ? 0 : 1;
}

#endif
