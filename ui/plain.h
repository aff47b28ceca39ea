/* plain: the front end without a dashboard. The command keeps the terminal
 * (or, when a dashboard was meant but could not start, its pty is copied to
 * stdout); spacetime waits for the run to end and forwards signals. */
#ifndef SPACETIME_PLAIN_H
#define SPACETIME_PLAIN_H

struct run;

/* Waits until the run is over. sig_fd is a signalfd for SIGINT, SIGQUIT,
 * SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2: a spawned command gets SIGTERM,
 * SIGHUP, SIGUSR1 and SIGUSR2 passed on (SIGINT and SIGQUIT reach it from
 * the terminal directly); an attached run is detached by SIGINT, SIGQUIT,
 * SIGTERM or SIGHUP, and its processes get nothing. */
void plain_wait(struct run *r, int sig_fd);

#endif
