/* export_csv.c: the time series as CSV. */
#include "export_csv.h"

#include <errno.h>
#include <inttypes.h>

#include "export.h"

/* The header: every column named with its unit (kib, s, per_s, pct) or as a
 * plain count. Mirrors the JSON snapshot's sample keys, in seconds. */
static const char export_csv_header[] =
	"time_s,bucket_start_s,bucket_end_s,samples,"
	"pss_kib,pss_max_kib,pss_min_kib,pss_anon_kib,pss_file_kib,pss_shmem_kib,"
	"pss_est_kib,pss_hi_kib,rss_kib,"
	"minflt,majflt,minflt_per_s,majflt_per_s,utime_s,stime_s,cpu_pct,"
	"live_procs,live_threads,total_procs,total_threads,swap_kib,thp_kib,locked_kib,"
	"psi_cpu_pct,psi_mem_pct,psi_mem_full_pct,psi_io_pct\n";

/* A ,value field, or an empty one when unknown. */
static void export_csv_u64(FILE *f, uint64_t v, int known)
{
	if (known)
		fprintf(f, ",%" PRIu64, v);
	else
		fputc(',', f);
}

static void export_csv_dbl(FILE *f, double v, int known)
{
	if (known)
		fprintf(f, ",%.3f", v);
	else
		fputc(',', f);
}

/* A ,seconds field from µs, exact, or an empty one when unknown. */
static void export_csv_us(FILE *f, uint64_t us, int known)
{
	if (known)
		fprintf(f, ",%" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
	else
		fputc(',', f);
}

/* Seconds after the start with µs precision. */
static void export_csv_time(FILE *f, const struct export_snap *sn, uint64_t t_ns, int comma)
{
	uint64_t us = export_rel_us(sn, t_ns);

	fprintf(f, "%s%" PRIu64 ".%06" PRIu64, comma ? "," : "", us / 1000000, us % 1000000);
}

int export_csv_write(FILE *f, const struct export_snap *sn)
{
	fputs(export_csv_header, f);
	for (size_t i = 0; i < sn->nrows; i++) {
		const struct export_row *r = &sn->rows[i];
		const struct bucket *b = &r->b;
		int pss = b->valid & SAMPLE_PSS, cpu = b->valid & SAMPLE_CPU;
		int flt = b->valid & SAMPLE_FAULTS, cnt = b->valid & SAMPLE_COUNTS;

		export_csv_time(f, sn, b->mean.t_ns, 0);
		export_csv_time(f, sn, b->t0_ns, 1);
		export_csv_time(f, sn, b->t1_ns, 1);
		fprintf(f, ",%" PRIu32, b->n);
		export_csv_u64(f, b->mean.pss_kib, pss);
		export_csv_u64(f, b->max.pss_kib, pss);
		export_csv_u64(f, b->min.pss_kib, pss);
		export_csv_u64(f, b->mean.pss_anon_kib, pss);
		export_csv_u64(f, b->mean.pss_file_kib, pss);
		export_csv_u64(f, b->mean.pss_shmem_kib, pss);
		export_csv_u64(f, b->max.pss_est_kib, pss);
		export_csv_u64(f, b->max.pss_hi_kib, pss);
		export_csv_u64(f, b->mean.rss_kib, b->valid & SAMPLE_RSS);
		export_csv_u64(f, b->max.minflt, flt);
		export_csv_u64(f, b->max.majflt, flt);
		export_csv_dbl(f, r->minflt_per_s, r->has_rates);
		export_csv_dbl(f, r->majflt_per_s, r->has_rates);
		export_csv_us(f, b->max.utime_us, cpu);
		export_csv_us(f, b->max.stime_us, cpu);
		export_csv_dbl(f, r->cpu_pct, r->has_rates);
		export_csv_u64(f, b->mean.live_procs, cnt);
		export_csv_u64(f, b->mean.live_threads, cnt);
		export_csv_u64(f, b->max.total_procs, cnt);
		export_csv_u64(f, b->max.total_threads, cnt);
		export_csv_u64(f, b->max.swap_kib, b->valid & SAMPLE_KINDS);
		export_csv_u64(f, b->max.thp_kib, b->valid & SAMPLE_KINDS);
		export_csv_u64(f, b->max.locked_kib, b->valid & SAMPLE_KINDS);
		export_csv_dbl(f, b->mean.psi_cpu_pm / 10.0, b->valid & SAMPLE_PSI);
		export_csv_dbl(f, b->mean.psi_mem_pm / 10.0, b->valid & SAMPLE_PSI);
		export_csv_dbl(f, b->mean.psi_mem_full_pm / 10.0, b->valid & SAMPLE_PSI);
		export_csv_dbl(f, b->mean.psi_io_pm / 10.0, b->valid & SAMPLE_PSI);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}
