/* export_json.c: the summary JSON object. */
#include "export_json.h"

#include "collector.h"
#include "jsonw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Exit code as a shell shows it. */
static int shell_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}

/* Writes the execs array, reading argv strings from the pool. */
static void write_execs(FILE *f, struct store *st, uint64_t start_ns)
{
	struct store_exec ex[256];
	char *buf = malloc(65536);
	size_t total = store_execs(st, 0, NULL, 0);

	fputc('[', f);
	for (size_t i = 0; i < total && buf;) {
		size_t n = store_execs(st, i, ex, 256);
		if (n > 256)
			n = 256;
		if (i + n > total)
			n = total - i;
		for (size_t j = 0; j < n; j++) {
			int first = 1;
			fputs(i + j ? ",{" : "{", f);
			jsonw_i64(f, "pid", ex[j].pid, &first);
			jsonw_i64(f, "ppid", ex[j].ppid, &first);
			jsonw_u64(f, "t_us", ex[j].t_ns > start_ns ? (ex[j].t_ns - start_ns) / 1000 : 0,
				  &first);
			jsonw_key(f, "comm", &first);
			jsonw_str(f, ex[j].comm, strnlen(ex[j].comm, sizeof(ex[j].comm)));
			jsonw_key(f, "argv", &first);
			ssize_t len = ex[j].argv_id ? store_str_get(st, ex[j].argv_id, buf, 65536) : -1;
			if (len > 65536)
				len = 65536;
			if (len >= 0)
				jsonw_argv(f, buf, (size_t)len);
			else
				fputs("null", f);
			fputc('}', f);
		}
		if (n == 0)
			break;
		i += n;
	}
	fputc(']', f);
	free(buf);
}

int export_json_summary(FILE *f, struct store *st, char *const argv[])
{
	struct store_summary s;
	int first = 1;
	uint64_t end;

	store_summary_get(st, &s);
	end = s.end_ns ? s.end_ns : s.last.t_ns;
	fputc('{', f);
	jsonw_u64(f, "version", EXPORT_JSON_VERSION, &first);
	jsonw_key(f, "command", &first);
	fputc('[', f);
	for (int i = 0; argv[i]; i++) {
		if (i)
			fputc(',', f);
		jsonw_str(f, argv[i], strlen(argv[i]));
	}
	fputc(']', f);
	jsonw_key(f, "mode", &first);
	fputs(s.mode == COLLECTOR_NETLINK ? "\"netlink\"" : "\"poll\"", f);
	jsonw_key(f, "finished", &first);
	fputs(s.exited ? "true" : "false", f);
	jsonw_key(f, "exit_status", &first);
	if (s.exited)
		fprintf(f, "%d", shell_status(s.wait_status));
	else
		fputs("null", f);
	jsonw_key(f, "signal", &first);
	if (s.exited && WIFSIGNALED(s.wait_status))
		fprintf(f, "%d", WTERMSIG(s.wait_status));
	else
		fputs("null", f);
	jsonw_u64(f, "wall_us", end > s.start_ns ? (end - s.start_ns) / 1000 : 0, &first);
	jsonw_u64(f, "user_us", s.exited ? s.ru_utime_us : s.last.utime_us, &first);
	jsonw_u64(f, "sys_us", s.exited ? s.ru_stime_us : s.last.stime_us, &first);
	jsonw_u64(f, "peak_pss_bytes", s.peak.pss_kib * 1024, &first);
	jsonw_u64(f, "peak_pss_t_us", s.peak.t_ns > s.start_ns ? (s.peak.t_ns - s.start_ns) / 1000 : 0,
		  &first);
	jsonw_u64(f, "peak_pss_anon_bytes", s.peak.pss_anon_kib * 1024, &first);
	jsonw_u64(f, "peak_pss_file_bytes", s.peak.pss_file_kib * 1024, &first);
	jsonw_u64(f, "peak_pss_shmem_bytes", s.peak.pss_shmem_kib * 1024, &first);
	jsonw_u64(f, "peak_rss_kib", s.ru_maxrss_kib, &first);
	jsonw_u64(f, "peak_tree_rss_kib", s.peak.rss_kib, &first);
	jsonw_u64(f, "processes", s.last.total_procs, &first);
	jsonw_u64(f, "threads", s.last.total_threads, &first);
	jsonw_u64(f, "execs_count", s.total_execs, &first);
	jsonw_u64(f, "minflt", s.exited ? s.ru_minflt : s.last.minflt, &first);
	jsonw_u64(f, "majflt", s.exited ? s.ru_majflt : s.last.majflt, &first);
	jsonw_u64(f, "nvcsw", s.ru_nvcsw, &first);
	jsonw_u64(f, "nivcsw", s.ru_nivcsw, &first);
	jsonw_u64(f, "inblock", s.ru_inblock, &first);
	jsonw_u64(f, "oublock", s.ru_oublock, &first);
	jsonw_u64(f, "lost_events", s.lost_events, &first);
	jsonw_u64(f, "interval_ms", s.interval_ms, &first);
	jsonw_u64(f, "pss_reads", s.pss_reads, &first);
	jsonw_u64(f, "pss_refresh_mean_age_us", s.pss_mean_age_ns / 1000, &first);
	jsonw_u64(f, "pss_refresh_max_age_us", s.pss_max_age_ns / 1000, &first);
	jsonw_u64(f, "collector_cpu_us", s.collector_cpu_ns / 1000, &first);
	jsonw_u64(f, "spacetime_cpu_us", s.self_cpu_ns / 1000, &first);
	jsonw_key(f, "execs", &first);
	write_execs(f, st, s.start_ns);
	fputc('}', f);
	return ferror(f) ? -EIO : 0;
}
