/* exitcode.c: see exitcode.h. */
#include "exitcode.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

int exitcode_of(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}

int exitcode_signal(int st)
{
	return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

void exitcode_words(int st, char *buf, size_t n)
{
	if (!n)
		return;
	if (WIFSIGNALED(st))
		snprintf(buf, n, "killed by signal %d (%s)%s, exit %d", WTERMSIG(st), strsignal(WTERMSIG(st)),
			 WCOREDUMP(st) ? ", core dumped" : "", exitcode_of(st));
	else
		snprintf(buf, n, "exited %d", exitcode_of(st));
}
