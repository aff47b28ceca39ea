/* fleet_send.c: a run sent to the fleet's endpoints (fleet.h), each within
 * its own deadline, each said in one line. */
#include "fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clockns.h"
#include "http.h"

void fleet_url_shown(const char *url, char *out, size_t cap)
{
	const char *host = strstr(url, "://");
	host = host ? host + 3 : url;
	size_t hl = strcspn(host, "/?#");
	const char *at = memrchr(host, '@', hl);
	if (at)
		snprintf(out, cap, "%.*s%s", (int)(host - url), url, at + 1);
	else
		snprintf(out, cap, "%s", url);
}

static int send_prom(const struct fleet_run *r, const struct fleet_dest *d, char *line, size_t cap)
{
	char url[4096], msg[512], shown[4096];
	char *body = NULL;
	size_t len = 0;

	if (fleet_prom_url(r, d->push_url, url, sizeof(url)) < 0) {
		fleet_url_shown(d->push_url, shown, sizeof(shown));
		snprintf(line, cap, "--push %.200s: the grouping key's URL is too long", shown);
		return -1;
	}
	if (fleet_prom_body(r, &body, &len) < 0) {
		snprintf(line, cap, "--push: out of memory");
		return -1;
	}
	struct http_req q = {.method = "PUT", .url = url, .content_type = "text/plain; version=0.0.4; charset=utf-8",
			     .body = body, .len = len, .deadline_ns = clockns_now() + d->timeout_ms * 1000000,
			     .cancel_fd = d->cancel_fd};
	int rc = http_send(&q, msg, sizeof(msg));
	free(body);
	fleet_url_shown(url, shown, sizeof(shown));
	if (rc < 0)
		snprintf(line, cap, "push to %.300s failed: %s", shown, msg);
	else
		snprintf(line, cap, "pushed to %.300s", shown);
	return rc;
}

static int post_json(const struct fleet_dest *d, const char *url, char *body, size_t len, uint64_t deadline,
		     char *msg, size_t cap)
{
	struct http_req q = {.method = "POST", .url = url, .content_type = "application/json", .body = body,
			     .len = len, .headers = d->headers, .nheaders = d->nheaders, .deadline_ns = deadline,
			     .cancel_fd = d->cancel_fd};
	int rc = http_send(&q, msg, cap);
	free(body);
	return rc;
}

static int send_metrics(const struct fleet_run *r, const struct fleet_dest *d, char *line, size_t cap)
{
	char *body = NULL, msg[512], shown[2048];
	size_t len = 0;

	fleet_url_shown(d->otlp_metrics, shown, sizeof(shown));
	if (fleet_otlp_metrics(r, &d->res, &body, &len) < 0) {
		snprintf(line, cap, "--otlp: out of memory");
		return -1;
	}
	int rc = post_json(d, d->otlp_metrics, body, len, clockns_now() + d->timeout_ms * 1000000, msg, sizeof(msg));
	if (rc < 0)
		snprintf(line, cap, "OTLP metrics to %.300s failed: %s", shown, msg);
	else
		snprintf(line, cap, "OTLP metrics sent to %.300s", shown);
	return rc;
}

static int send_traces(const struct fleet_run *r, const struct fleet_dest *d, char *line, size_t cap)
{
	struct fleet_spans *sp;
	char msg[512] = "out of memory", shown[2048];
	uint64_t deadline = clockns_now() + d->timeout_ms * 1000000;
	size_t sent = 0, total;
	int rc = 0;

	if (fleet_spans_new(r, &sp) < 0) {
		snprintf(line, cap, "--otlp-traces: out of memory");
		return -1;
	}
	total = fleet_spans_count(sp);
	while (sent < total && rc == 0) {
		size_t n = total - sent < FLEET_SPANS_PER_BODY ? total - sent : FLEET_SPANS_PER_BODY;
		char *body = NULL;
		size_t len = 0;
		if (fleet_otlp_traces(r, sp, sent, n, &d->res, &body, &len) < 0)
			rc = -1;
		else if ((rc = post_json(d, d->otlp_traces, body, len, deadline, msg, sizeof(msg))) == 0)
			sent += n;
	}
	fleet_spans_free(sp);
	fleet_url_shown(d->otlp_traces, shown, sizeof(shown));
	if (rc < 0)
		snprintf(line, cap, "OTLP traces to %.300s failed after %zu of %zu spans: %s", shown, sent, total,
			 msg);
	else
		snprintf(line, cap, "OTLP traces sent to %.300s (%zu spans)", shown, total);
	return rc;
}

int fleet_send(const struct fleet_run *r, const struct fleet_dest *d, void (*say)(void *, int, const char *),
	       void *arg)
{
	char line[1024];
	int failed = 0, rc;

	int (*const step[3])(const struct fleet_run *, const struct fleet_dest *, char *, size_t) = {
		send_prom, send_metrics, send_traces};
	const char *const to[3] = {d->push_url, d->otlp_metrics, d->otlp_traces};
	int stopped = 0;

	for (int i = 0; i < 3; i++) {
		if (!to[i] || !to[i][0])
			continue;
		if (stopped) { /* a signal: the rest is not sent, and said so */
			char shown[2048];
			fleet_url_shown(to[i], shown, sizeof(shown));
			snprintf(line, sizeof(line), "not sent to %.300s: stopped by a signal", shown);
			say(arg, 0, line);
			failed++;
			continue;
		}
		rc = step[i](r, d, line, sizeof(line));
		failed += rc < 0;
		stopped = rc == -2;
		say(arg, rc == 0, line);
	}
	return failed;
}
