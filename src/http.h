/* http: one request with a body, for the fleet exports (fleet.h), through
 * libcurl (http and https, its TLS). Every wait is bounded by a deadline,
 * and a failure of any kind is one line: the endpoint not there, refused,
 * answering an error, or too slow. Never a signal, never a retry. */
#ifndef SPACETIME_HTTP_H
#define SPACETIME_HTTP_H

#include <stddef.h>
#include <stdint.h>

struct http_req {
	const char *method;       /* "PUT" or "POST" */
	const char *url;
	const char *content_type;
	const char *body;
	size_t len;
	const char *const *headers; /* "Name: value" each (NULL: none) */
	size_t nheaders;
	uint64_t deadline_ns;     /* clockns_now()'s: the request ends by then */
	int cancel_fd;            /* > 0: readable (a signal), the request stops at once */
};

/* Sends req. Returns 0 on a 2xx answer, or -1 with one line in msg: why
 * (with the answer's status and the start of its body for an HTTP error);
 * -2 when cancel_fd stopped it. */
int http_send(const struct http_req *req, char *msg, size_t cap);

#endif
