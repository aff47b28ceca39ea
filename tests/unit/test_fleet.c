/* Unit tests for fleet: the Pushgateway's grouping key (label names made
 * Prometheus's, values base64url where they must be), the exposition body,
 * the OpenTelemetry environment's pairs and endpoints (a header cannot be
 * injected), and the spans' tree (a parent found by pid and time, across
 * a reused pid). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "fleet_int.h"
#include "store.h"

#define MS 1000000ull

static void test_prom_url(void **state)
{
	char u[1024];
	const char *labels[] = {"build_id=first", "branch=feat/x", "build.id=42", "job=a", "9lives=y", "e=",
				"._x=u", "rank=1", "stage=..", "v=.x"};
	char *argv[] = {"/usr/bin/make", "-j2", NULL};
	struct fleet_run r = {.argv = argv, .labels = labels, .nlabels = 10, .host = "ci-17"};

	(void)state;
	assert_int_equal(fleet_prom_url(&r, "http://gw:9091/", u, sizeof(u)), 0);
	/* feat/x in base64url is ZmVhdC94; an empty value is "=". build_id given
	 * twice (as build.id the second time): the last stands. A name that
	 * would start with __, or is one the body's series carry, gets label_;
	 * "." and ".." are path steps to a client: base64 ("Li4", "Lng") */
	assert_string_equal(u, "http://gw:9091/metrics/job/spacetime/branch@base64/ZmVhdC94/build_id/42"
			       "/label_job/a/label_9lives/y/e@base64/=/label___x/u/label_rank/1"
			       "/stage@base64/Li4=/v@base64/Lng=/host/ci-17");
	/* no labels: the command's name; padding of one and two bytes */
	const char *one[] = {"k=a"}, *two[] = {"k=a b"}, *pad1[] = {"k=a/"}, *pad2[] = {"k=/"};
	r.nlabels = 0;
	assert_int_equal(fleet_prom_url(&r, "http://gw", u, sizeof(u)), 0);
	assert_string_equal(u, "http://gw/metrics/job/spacetime/command/make/host/ci-17");
	r.labels = one;
	r.nlabels = 1;
	r.host = "a host";
	assert_int_equal(fleet_prom_url(&r, "http://gw", u, sizeof(u)), 0);
	assert_string_equal(u, "http://gw/metrics/job/spacetime/k/a/host@base64/YSBob3N0");
	r.labels = two;
	r.host = NULL;
	assert_int_equal(fleet_prom_url(&r, "http://gw", u, sizeof(u)), 0);
	assert_string_equal(u, "http://gw/metrics/job/spacetime/k@base64/YSBi");
	r.labels = pad1;
	assert_int_equal(fleet_prom_url(&r, "http://gw", u, sizeof(u)), 0);
	assert_string_equal(u, "http://gw/metrics/job/spacetime/k@base64/YS8=");
	r.labels = pad2;
	assert_int_equal(fleet_prom_url(&r, "http://gw", u, sizeof(u)), 0);
	assert_string_equal(u, "http://gw/metrics/job/spacetime/k@base64/Lw==");
	/* the user's host label stands for the host */
	const char *h[] = {"host=mine"};
	r.labels = h;
	r.host = "ci-17";
	assert_int_equal(fleet_prom_url(&r, "http://gw", u, sizeof(u)), 0);
	assert_string_equal(u, "http://gw/metrics/job/spacetime/host/mine");
	assert_int_equal(fleet_prom_url(&r, "http://gw", u, 30), -ENAMETOOLONG);
}

/* A store with a summary and three processes (one job name with a quote). */
static struct store *sample_store(void)
{
	struct store *st = store_new(NULL);
	struct store_summary s;

	assert_non_null(st);
	store_summary_get(st, &s);
	s.start_ns = 1000 * MS;
	s.end_ns = 3500 * MS;
	s.exited = 1;
	s.wait_status = 3 << 8;
	s.peak.pss_kib = 1000;
	s.peak.pss_anon_kib = 600;
	s.peak.pss_file_kib = 400;
	s.ru_utime_us = 1500000;
	s.ru_minflt = 77;
	s.ru_inblock = 2;
	s.last.total_procs = 3;
	s.peak_bound_unknown = 1;
	store_summary_set(st, &s);
	static const char a0[] = "sh\0-c\0x", a1[] = "cc1\0say \"hi\".c", a2[] = "as\0x.s";
	const char *av[] = {a0, a1, a2};
	size_t al[] = {sizeof(a0), sizeof(a1), sizeof(a2)};
	uint64_t peak[] = {100, 700, 300};
	for (int i = 0; i < 3; i++) {
		struct proc_rec p;
		memset(&p, 0, sizeof(p));
		p.id = (uint64_t)i + 1;
		p.pid = 100 + i;
		p.ppid = i ? 100 : 1;
		p.start_ns = (1000 + 10 * (uint64_t)i) * MS;
		p.end_ns = 3000 * MS;
		p.argv_id = store_str_intern(st, av[i], al[i]);
		memcpy(p.comm, av[i], strlen(av[i]));
		p.peak_pss_kib = peak[i];
		p.valid = PROC_V_ARGV | PROC_V_PSS | PROC_V_EXIT;
		p.exit_status = i == 2 ? 1 << 8 : 0;
		assert_int_equal(store_proc_update(st, &p), 0);
	}
	return st;
}

static void test_prom_body(void **state)
{
	struct store *st = sample_store();
	char *argv[] = {"sh", "-c", "x", NULL};
	struct fleet_run r = {.st = st, .argv = argv, .top = 2, .version = "9.9"};
	char *b = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(fleet_prom_body(&r, &b, &len), 0);
	assert_int_equal(strlen(b), len);
	assert_non_null(strstr(b, "# TYPE spacetime_peak_pss_bytes gauge\nspacetime_peak_pss_bytes 1024000\n"));
	assert_non_null(strstr(b, "\nspacetime_peak_pss_anon_bytes 614400\n"));
	assert_non_null(strstr(b, "\nspacetime_user_cpu_seconds 1.500000\n"));
	assert_non_null(strstr(b, "\nspacetime_wall_seconds 2.500000\n"));
	assert_non_null(strstr(b, "\nspacetime_exit_status 3\n"));
	assert_non_null(strstr(b, "\nspacetime_block_read_bytes 1024\n"));
	/* unknown: no line at all (not a 0) */
	assert_null(strstr(b, "peak_pss_bound_bytes"));
	assert_null(strstr(b, "start_time_seconds"));
	/* the two heaviest, heaviest first, a quote escaped */
	assert_non_null(strstr(b, "spacetime_job_peak_pss_bytes{rank=\"1\",job_name=\"cc1 say \\\"hi\\\".c\","
				  "program=\"cc1\"} 716800\n"
				  "spacetime_job_peak_pss_bytes{rank=\"2\",job_name=\"as x.s\",program=\"as\"} 307200\n"));
	assert_null(strstr(b, "rank=\"3\""));
	assert_non_null(strstr(b, "spacetime_info{version=\"9.9\",command_line=\"sh -c x\"} 1\n"));
	/* every line a comment or NAME[{...}] VALUE */
	for (char *l = b; *l; l = strchr(l, '\n') + 1) {
		char name[128];
		double v;
		if (*l == '#')
			continue;
		assert_int_equal(sscanf(l, "%127[a-z_]", name), 1);
		char *line = strndup(l, (size_t)(strchr(l, '\n') - l));
		assert_int_equal(sscanf(strrchr(line, ' '), " %lf", &v), 1);
		free(line);
	}
	free(b);
	/* OTLP: the same figures, 64-bit integers as strings */
	struct fleet_otlp_res res = {"team=a%2Cb", NULL};
	assert_int_equal(fleet_otlp_metrics(&r, &res, &b, &len), 0);
	assert_non_null(strstr(b, "\"name\":\"spacetime.peak_pss\",\"unit\":\"By\""));
	assert_non_null(strstr(b, "\"asInt\":\"1024000\""));
	assert_non_null(strstr(b, "{\"key\":\"team\",\"value\":{\"stringValue\":\"a,b\"}}"));
	assert_non_null(strstr(b, "{\"key\":\"process.exit.code\",\"value\":{\"intValue\":\"3\"}}"));
	assert_non_null(strstr(b, "\"startTimeUnixNano\":\"0\",\"timeUnixNano\":\"2500000000\""));
	free(b);
	store_free(st);
}

static void test_pairs(void **state)
{
	struct fleet_pairs p;

	(void)state;
	assert_int_equal(fleet_pairs_parse(" a=1, b = x%2Cy ,c=%41", &p), 0);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.key[1], "b");
	assert_string_equal(p.val[1], "x,y");
	assert_string_equal(p.val[2], "A");
	free(p.buf);
	assert_int_equal(fleet_pairs_parse(NULL, &p), 0);
	assert_int_equal(p.n, 0);
	const char *bad[] = {"a", "=x", "a=%4", "a=%zz", "a=1,b"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(fleet_pairs_parse(bad[i], &p), -EINVAL);
		assert_int_equal(p.n, 0);
	}
}

/* The environment of a test. */
static const char *env_vars[16][2];
static char *fake_getenv(const char *k)
{
	for (size_t i = 0; i < 16 && env_vars[i][0]; i++)
		if (!strcmp(env_vars[i][0], k))
			return (char *)env_vars[i][1];
	return NULL;
}

static void set_env(const char *k, const char *v)
{
	size_t i = 0;
	while (env_vars[i][0] && strcmp(env_vars[i][0], k))
		i++;
	env_vars[i][0] = k;
	env_vars[i][1] = v;
}

static void test_otlp_env(void **state)
{
	struct fleet_otlp_env e;
	char msg[256];

	(void)state;
	memset(env_vars, 0, sizeof(env_vars));
	assert_int_equal(fleet_otlp_env("env", 0, fake_getenv, &e, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "OTEL_EXPORTER_OTLP_ENDPOINT is not set"));
	assert_int_equal(fleet_otlp_env("ftp://x", 0, fake_getenv, &e, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(fleet_otlp_env("http://c:4318/", 1, fake_getenv, &e, msg, sizeof(msg)), 0);
	assert_string_equal(e.metrics, "http://c:4318/v1/metrics");
	assert_string_equal(e.traces, "http://c:4318/v1/traces");
	set_env("OTEL_EXPORTER_OTLP_ENDPOINT", "https://o:4318");
	set_env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://t/x/traces");
	set_env("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20abc,x-team=a");
	assert_int_equal(fleet_otlp_env("env", 1, fake_getenv, &e, msg, sizeof(msg)), 0);
	assert_string_equal(e.metrics, "https://o:4318/v1/metrics");
	assert_string_equal(e.traces, "https://t/x/traces");
	assert_int_equal(e.nheaders, 2);
	assert_string_equal(e.headers[0], "authorization: Bearer abc");
	assert_string_equal(e.headers[1], "x-team: a");
	/* without --otlp-traces: no traces endpoint */
	assert_int_equal(fleet_otlp_env("env", 0, fake_getenv, &e, msg, sizeof(msg)), 0);
	assert_string_equal(e.traces, "");
	/* a header that would inject another, a name that is not one */
	set_env("OTEL_EXPORTER_OTLP_HEADERS", "a=b%0D%0AHost: evil");
	assert_int_equal(fleet_otlp_env("env", 0, fake_getenv, &e, msg, sizeof(msg)), -EINVAL);
	set_env("OTEL_EXPORTER_OTLP_HEADERS", "a b=c");
	assert_int_equal(fleet_otlp_env("env", 0, fake_getenv, &e, msg, sizeof(msg)), -EINVAL);
	set_env("OTEL_EXPORTER_OTLP_HEADERS", "");
	set_env("OTEL_RESOURCE_ATTRIBUTES", "novalue");
	assert_int_equal(fleet_otlp_env("env", 0, fake_getenv, &e, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "OTEL_RESOURCE_ATTRIBUTES"));
	set_env("OTEL_RESOURCE_ATTRIBUTES", "");
	set_env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc");
	assert_int_equal(fleet_otlp_env("env", 0, fake_getenv, &e, msg, sizeof(msg)), -EINVAL);
	/* a URL given is spoken to over HTTP whatever the environment says */
	assert_int_equal(fleet_otlp_env("http://c:4318", 0, fake_getenv, &e, msg, sizeof(msg)), 0);
	set_env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
	set_env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc");
	assert_int_equal(fleet_otlp_env("env", 0, fake_getenv, &e, msg, sizeof(msg)), 0);
	assert_int_equal(fleet_otlp_env("env", 1, fake_getenv, &e, msg, sizeof(msg)), -EINVAL);
	set_env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json");
	set_env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json");
	assert_int_equal(fleet_otlp_env("env", 0, fake_getenv, &e, msg, sizeof(msg)), 0);
}

static void test_url_shown(void **state)
{
	char o[128];

	(void)state;
	fleet_url_shown("https://user:pw@gw:9091/x@y", o, sizeof(o));
	assert_string_equal(o, "https://gw:9091/x@y");
	fleet_url_shown("http://gw:9091/metrics", o, sizeof(o));
	assert_string_equal(o, "http://gw:9091/metrics");
}

/* A label or resource key given twice: sent once, the last value. */
static void test_otlp_last_key(void **state)
{
	struct store *st = sample_store();
	const char *labels[] = {"a=1", "b=x", "a=2"};
	struct fleet_run r = {.st = st, .labels = labels, .nlabels = 3};
	struct fleet_otlp_res res = {"c=1,c=2,b=env", NULL};
	char *b;
	size_t len;

	(void)state;
	assert_int_equal(fleet_otlp_metrics(&r, &res, &b, &len), 0);
	assert_null(strstr(b, "{\"key\":\"a\",\"value\":{\"stringValue\":\"1\"}}"));
	assert_non_null(strstr(b, "{\"key\":\"a\",\"value\":{\"stringValue\":\"2\"}}"));
	assert_null(strstr(b, "{\"key\":\"c\",\"value\":{\"stringValue\":\"1\"}}"));
	assert_non_null(strstr(b, "{\"key\":\"c\",\"value\":{\"stringValue\":\"2\"}}"));
	assert_null(strstr(b, "\"env\""));
	int n = 0;
	for (const char *q = b; (q = strstr(q, "{\"key\":\"a\"")); q++)
		n++;
	assert_int_equal(n, 1);
	free(b);
	store_free(st);
}

/* The nth span (0: the first) of pid in body: its id and its parent's
 * ("" for none). */
static int span_of(const char *body, int pid, int nth, char *id, char *parent)
{
	char want[64];
	snprintf(want, sizeof(want), "{\"key\":\"process.pid\",\"value\":{\"intValue\":\"%d\"}}", pid);
	const char *at = strstr(body, want);
	while (at && nth--)
		at = strstr(at + 1, want);
	if (!at)
		return -1;
	const char *s = body, *n;
	while ((n = strstr(s + 1, "{\"traceId\"")) && n < at)
		s = n;
	assert_int_equal(sscanf(strstr(s, "\"spanId\":\"") + 10, "%16[0-9a-f]", id), 1);
	const char *p = strstr(s, "\"parentSpanId\":\"");
	parent[0] = 0;
	if (p && p < strstr(s, "\"name\""))
		assert_int_equal(sscanf(p + 16, "%16[0-9a-f]", parent), 1);
	return 0;
}

static void test_spans_tree(void **state)
{
	struct store *st = store_new(NULL);
	struct store_summary s;
	/* pid, ppid, start ms, end ms: 102 ends and its pid is reused by a
	 * child of 101; 103 is the second 102's child */
	const int v[][4] = {{100, 1, 0, 900}, {101, 100, 10, 800}, {102, 100, 20, 50}, {102, 101, 60, 700},
			    {103, 102, 70, 600}};
	(void)state;
	store_summary_get(st, &s);
	s.end_ns = 1000 * MS;
	store_summary_set(st, &s);
	for (int i = 0; i < 5; i++) {
		struct proc_rec p;
		memset(&p, 0, sizeof(p));
		p.id = (uint64_t)i + 1;
		p.pid = v[i][0];
		p.ppid = v[i][1];
		p.start_ns = (uint64_t)v[i][2] * MS;
		p.end_ns = (uint64_t)v[i][3] * MS;
		assert_int_equal(store_proc_update(st, &p), 0);
	}
	struct fleet_run r = {.st = st, .start_wall_ns = 5000 * MS, .host = "h"};
	struct fleet_spans *sp;
	char *b;
	size_t len;
	assert_int_equal(fleet_spans_new(&r, &sp), 0);
	assert_int_equal(fleet_spans_count(sp), 6);
	assert_int_equal(fleet_otlp_traces(&r, sp, 0, 6, &(struct fleet_otlp_res){NULL, NULL}, &b, &len), 0);
	char id[6][17], par[6][17], run[17];
	for (int i = 0; i < 5; i++)
		assert_int_equal(span_of(b, v[i][0], i == 3, id[i], par[i]), 0);
	assert_int_equal(span_of(b, 102, 2, id[5], par[5]), -1); /* two of pid 102 */
	assert_int_equal(sscanf(strstr(b, "\"spanId\":\"") + 10, "%16[0-9a-f]", run), 1);
	assert_null(strstr(b, "\"parentSpanId\":\"\""));
	/* 100 under the run's span; 101 and the first 102 under 100; the
	 * second 102 under 101, and 103 under the second 102 */
	assert_string_equal(par[0], run);
	assert_string_equal(par[1], id[0]);
	assert_string_equal(par[2], id[0]);
	assert_string_equal(par[3], id[1]);
	assert_string_equal(par[4], id[3]);
	assert_string_not_equal(id[2], id[3]);
	/* times on the wall clock: the run began at 5 s */
	assert_non_null(strstr(b, "\"startTimeUnixNano\":\"5070000000\",\"endTimeUnixNano\":\"5600000000\""));
	/* in chunks: the run's span only in the first */
	free(b);
	assert_int_equal(fleet_otlp_traces(&r, sp, 3, 3, &(struct fleet_otlp_res){NULL, NULL}, &b, &len), 0);
	int spans = 0, parents = 0;
	for (const char *q = b; (q = strstr(q, "\"traceId\"")); q++)
		spans++;
	for (const char *q = b; (q = strstr(q, "\"parentSpanId\"")); q++)
		parents++;
	assert_int_equal(spans, 3);
	assert_int_equal(parents, 3);
	char id3[17], par3[17];
	assert_int_equal(span_of(b, 103, 0, id3, par3), 0);
	assert_string_equal(id3, id[4]);
	assert_string_equal(par3, id[3]);
	free(b);
	fleet_spans_free(sp);
	store_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prom_url),  cmocka_unit_test(test_prom_body), cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_otlp_env),  cmocka_unit_test(test_spans_tree), cmocka_unit_test(test_url_shown),
		cmocka_unit_test(test_otlp_last_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
