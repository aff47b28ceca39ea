/* http.c: one request through libcurl (http.h). */
#include "http.h"

#include <curl/curl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "clockns.h"
#include "textsafe.h"

/* The start of the answer's body, for an error's line. */
struct answer {
	char buf[160];
	size_t len;
};

static size_t keep_start(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t len = size * n, room = sizeof(a->buf) - 1 - a->len;
	size_t k = len < room ? len : room;

	memcpy(a->buf + a->len, p, k);
	a->len += k;
	a->buf[a->len] = 0;
	return len;
}

/* The answer's first line, printable, or "" */
static void answer_line(const struct answer *a, char *out, size_t cap)
{
	size_t n = strcspn(a->buf, "\r\n");
	textsafe_str(a->buf, n, out, cap, 0);
}

/* libcurl's progress callback: a signal on the cancel fd stops the request. */
static int cancelled(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	const struct http_req *q = arg;
	struct pollfd p = {.fd = q->cancel_fd, .events = POLLIN};

	(void)a, (void)b, (void)c, (void)d;
	return q->cancel_fd > 0 && poll(&p, 1, 0) > 0;
}

static int set_request(CURL *c, const struct http_req *q, struct curl_slist **hl, struct answer *a,
		       long ms)
{
	char ct[128];

	snprintf(ct, sizeof(ct), "Content-Type: %s", q->content_type);
	struct curl_slist *l = curl_slist_append(NULL, ct);
	/* no "Expect: 100-continue" wait before a large body */
	if (l)
		l = curl_slist_append(l, "Expect:");
	for (size_t i = 0; l && i < q->nheaders; i++)
		l = curl_slist_append(l, q->headers[i]);
	*hl = l;
	if (!l)
		return -1;
	int e = curl_easy_setopt(c, CURLOPT_URL, q->url) || curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) ||
#if LIBCURL_VERSION_NUM >= 0x075500
		curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") ||
#else
		curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)) ||
#endif
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, cancelled) ||
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, q) || curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L) ||
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, q->method) ||
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body) ||
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)q->len) ||
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, l) || curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms) ||
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ms) ||
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_start) ||
		curl_easy_setopt(c, CURLOPT_WRITEDATA, a) ||
		curl_easy_setopt(c, CURLOPT_USERAGENT, "spacetime");
	return e ? -1 : 0;
}

int http_send(const struct http_req *q, char *msg, size_t cap)
{
	uint64_t now = clockns_now();
	struct answer a = {.len = 0};
	struct curl_slist *hl = NULL;
	int rc = -1;

	msg[0] = 0;
	if (now >= q->deadline_ns) {
		snprintf(msg, cap, "no time left before the deadline");
		return -1;
	}
	long ms = (long)((q->deadline_ns - now) / 1000000) + 1;
	static int inited;
	if (!inited && curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
		snprintf(msg, cap, "libcurl could not start");
		return -1;
	}
	inited = 1;
	CURL *c = curl_easy_init();
	if (!c || set_request(c, q, &hl, &a, ms) < 0) {
		snprintf(msg, cap, "libcurl could not make the request");
		goto out;
	}
	CURLcode e = curl_easy_perform(c);
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (e == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(msg, cap, "stopped by a signal");
		rc = -2;
	} else if (e == CURLE_OPERATION_TIMEDOUT) {
		snprintf(msg, cap, "no answer within %.1f s", (double)ms / 1000);
	} else if (e != CURLE_OK) {
		snprintf(msg, cap, "%s", curl_easy_strerror(e));
	} else if (status < 200 || status > 299) {
		char line[sizeof(a.buf)];
		answer_line(&a, line, sizeof(line));
		snprintf(msg, cap, "HTTP %ld%s%s", status, line[0] ? ": " : "", line);
	} else {
		rc = 0;
	}
out:
	curl_slist_free_all(hl);
	if (c)
		curl_easy_cleanup(c);
	return rc;
}
