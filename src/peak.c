/* peak.c: a run's peak PSS figure and its bounds (peak.h). */
#include "peak.h"

#include <stdio.h>
#include <string.h>

#include "units.h"

void peak_of(const struct store_summary *s, struct peak *out)
{
	memset(out, 0, sizeof(*out));
	out->kib = s->peak.pss_kib;
	if (!out->kib)
		return;
	out->t_ns = s->peak.t_ns;
	out->doubt_kib = s->peak.pss_est_kib;
	out->at_exit_pid = s->peak_exit_pid;
	out->at_exit_tops = s->peak_exit_tops;
	out->floor = s->peak_floor && !s->peak_exit_pid;
	out->traced = out->floor && s->peak_traced;
	out->sum_of_reads = s->peak_measured && !s->peak_exit_pid;
	/* the bound: the run's, as it is. A sum of reads is no single instant
	 * (a sweep reads one process after the other): a bound below it by no
	 * more than its own error is the figure; below by more would be a
	 * fault of the bound, shown as such, not hidden. A tick's floor has no
	 * such error (its doubt is how far above it the tree may have been):
	 * a bound below it is shown as it is */
	out->bound_known = s->peak_bound_kib && !s->peak_bound_unknown;
	out->bound_kib = s->peak_bound_kib;
	if (!out->floor && out->bound_kib < out->kib && out->kib - out->bound_kib <= out->doubt_kib)
		out->bound_kib = out->kib;
	out->read = out->sum_of_reads && out->bound_known &&
		    out->bound_kib <= out->kib + out->doubt_kib + out->kib / 100;
}

double peak_bound_pct(const struct peak *p)
{
	if (!p->kib || !p->bound_known)
		return -1;
	return 100.0 * ((double)p->bound_kib - (double)p->kib) / (double)p->kib;
}

void peak_brief(const struct peak *p, char *buf, size_t cap)
{
	char fig[32], bound[32], at[48] = "";

	if (!p->kib) {
		snprintf(buf, cap, "none yet");
		return;
	}
	units_kib(fig, sizeof(fig), p->kib);
	units_kib(bound, sizeof(bound), p->bound_kib);
	if (p->at_exit_pid)
		snprintf(at, sizeof(at), ", at pid %d's exit", p->at_exit_pid);
	else if (p->floor)
		snprintf(at, sizeof(at), " at least");
	if (!p->bound_known)
		snprintf(buf, cap, "%s%s, may be higher (no taskstats)", fig, at);
	else if (p->read)
		snprintf(buf, cap, "%s%s, read: none higher between samples", fig, at);
	else
		snprintf(buf, cap, "%s%s, at most %s (%+.1f%%)", fig, at, bound, peak_bound_pct(p));
}
