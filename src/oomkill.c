/* oomkill.c: see oomkill.h. */
#include "oomkill.h"

#include <signal.h>
#include <sys/wait.h>

int oomkill_of(const struct store_summary *s, const struct proc_rec *r)
{
	if (!s->oom_kills || !r->end_ns || !(r->valid & PROC_V_EXIT) || !WIFSIGNALED(r->exit_status) ||
	    WTERMSIG(r->exit_status) != SIGKILL)
		return 0;
	/* a kill's time is the tick's that saw the count rise: the kill came in
	 * the interval before it */
	uint64_t every = (s->interval_ms ? s->interval_ms : 100) * 1000000ull;
	for (uint64_t i = 0; i < s->oom_kills && i < STORE_OOM_TIMES; i++) {
		uint64_t t = s->oom_t_ns[i];
		if (r->end_ns + every + OOMKILL_NEAR_NS >= t && r->end_ns <= t + OOMKILL_NEAR_NS)
			return 1;
	}
	return 0;
}
