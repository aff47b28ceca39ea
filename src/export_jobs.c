/* export_jobs.c: job names from the store, and the heaviest processes. */
#include "export_jobs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobname.h"

size_t export_job_name(struct store *st, uint32_t argv_id, const char *comm, char **buf, size_t *bufcap,
		       char *out, size_t cap)
{
	ssize_t len = -1;

	/* the whole argv: a compiler's source file can come after 4 KiB of options */
	while (argv_id) {
		len = store_str_get(st, argv_id, *buf, *bufcap);
		if (len < 0 || (size_t)len <= *bufcap)
			break;
		char *nb = realloc(*buf, (size_t)len);
		if (!nb) {
			len = *bufcap ? (ssize_t)*bufcap : -1; /* the part copied names it too */
			break;
		}
		*buf = nb;
		*bufcap = (size_t)len;
	}
	return jobname(len > 0 ? *buf : NULL, len > 0 ? (size_t)len : 0, comm, out, cap);
}

size_t export_proc_job(struct store *st, const struct proc_rec *p, char **buf, size_t *bufcap, char *out,
		       size_t cap)
{
	char comm[sizeof(p->comm) + 1];

	memcpy(comm, p->comm, sizeof(p->comm));
	comm[sizeof(p->comm)] = '\0';
	return export_job_name(st, (p->valid & PROC_V_ARGV) ? p->argv_id : 0, comm, buf, bufcap, out, cap);
}

static uint64_t export_top_key(const struct proc_rec *p, enum export_top_by by)
{
	return by == EXPORT_TOP_PSS ? p->peak_pss_kib : by == EXPORT_TOP_CPU ? p->utime_us + p->stime_us : p->majflt;
}

static int export_top_cmp(const void *a, const void *b, void *arg)
{
	const struct proc_rec *x = a, *y = b;
	enum export_top_by by = *(const enum export_top_by *)arg;
	uint64_t kx = export_top_key(x, by), ky = export_top_key(y, by);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

long export_top_procs(struct store *st, enum export_top_by by, struct proc_rec *out, size_t n)
{
	uint32_t need = by == EXPORT_TOP_PSS ? PROC_V_PSS : by == EXPORT_TOP_CPU ? PROC_V_CPU : PROC_V_FAULTS;
	size_t total = store_procs(st, STORE_PROCS_ALL, NULL, 0), k = 0;
	struct proc_rec *all;

	if (!n || !total)
		return 0;
	/* a few more than counted: the run may still be adding records */
	total += 64;
	all = malloc(total * sizeof(*all));
	if (!all)
		return -ENOMEM;
	size_t got = store_procs(st, STORE_PROCS_ALL, all, total);
	if (got > total)
		got = total;
	/* an unknown figure is not a zero: it takes no place in the ranking */
	for (size_t i = 0; i < got; i++)
		if ((all[i].valid & need) && (by != EXPORT_TOP_MAJFLT || all[i].majflt))
			all[k++] = all[i];
	qsort_r(all, k, sizeof(*all), export_top_cmp, &by);
	if (k > n)
		k = n;
	memcpy(out, all, k * sizeof(*all));
	free(all);
	return (long)k;
}
