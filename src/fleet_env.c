/* fleet_env.c: the OpenTelemetry environment (fleet.h, fleet_int.h). */
#include "fleet.h"
#include "fleet_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

/* Decodes s[0..len) (blanks around taken off, %XX decoded) into out.
 * Returns its length, or -1 for a bad %XX. */
static ssize_t decode(const char *s, size_t len, char *out)
{
	size_t n = 0;

	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '%') {
			out[n++] = s[i];
			continue;
		}
		int a = i + 1 < len ? hexval((unsigned char)s[i + 1]) : -1;
		int b = i + 2 < len ? hexval((unsigned char)s[i + 2]) : -1;
		int h = a < 0 || b < 0 ? -1 : a * 16 + b;
		if (h < 0)
			return -1;
		out[n++] = (char)h;
		i += 2;
	}
	out[n] = 0;
	return (ssize_t)n;
}

int fleet_pairs_parse(const char *s, struct fleet_pairs *p)
{
	size_t len = s ? strlen(s) : 0;

	p->n = 0;
	p->buf = NULL;
	if (!len)
		return 0;
	if (!(p->buf = malloc(len + 2)))
		return -ENOMEM;
	char *w = p->buf;
	for (const char *e = s; *e;) {
		size_t item = strcspn(e, ",");
		const char *eq = memchr(e, '=', item);
		ssize_t kl, vl;
		if (!eq || p->n == FLEET_PAIRS_MAX || (kl = decode(e, (size_t)(eq - e), w)) <= 0)
			goto bad;
		p->key[p->n] = w;
		w += kl + 1;
		if ((vl = decode(eq + 1, item - (size_t)(eq + 1 - e), w)) < 0)
			goto bad;
		p->val[p->n++] = w;
		w += vl + 1;
		e += item;
		if (*e == ',')
			e++;
	}
	return 0;
bad:
	free(p->buf);
	p->buf = NULL;
	p->n = 0;
	return -EINVAL;
}

/* An endpoint whole: base with path appended, or as given. */
static int endpoint(char *out, size_t cap, const char *base, const char *path)
{
	size_t bl = strlen(base);
	while (bl && base[bl - 1] == '/')
		bl--;
	int k = snprintf(out, cap, "%.*s%s", (int)bl, base, path);
	return k < 0 || (size_t)k >= cap ? -ENAMETOOLONG : 0;
}

static int is_url(const char *u)
{
	return u && (!strncmp(u, "http://", 7) || !strncmp(u, "https://", 8)) && u[strcspn(u, " \t\r\n")] == 0;
}

static int env_urls(const char *url, char *(*get)(const char *), struct fleet_otlp_env *e, char *msg,
		    size_t cap)
{
	const char *base = url, *m = NULL, *t = NULL;

	if (!strcmp(url, "env")) {
		base = get("OTEL_EXPORTER_OTLP_ENDPOINT");
		m = get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
		t = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
		if (!base && !m) {
			snprintf(msg, cap, "--otlp env: OTEL_EXPORTER_OTLP_ENDPOINT is not set");
			return -EINVAL;
		}
	}
	const char *bad = base && !is_url(base) ? base : m && !is_url(m) ? m : t && !is_url(t) ? t : NULL;
	if (bad) {
		snprintf(msg, cap, "invalid OTLP endpoint '%.200s': expected an http:// or https:// URL", bad);
		return -EINVAL;
	}
	int r = m ? endpoint(e->metrics, sizeof(e->metrics), m, "") :
		    endpoint(e->metrics, sizeof(e->metrics), base, "/v1/metrics");
	if (!r)
		r = t ? endpoint(e->traces, sizeof(e->traces), t, "") :
			base ? endpoint(e->traces, sizeof(e->traces), base, "/v1/traces") : 0;
	if (r)
		snprintf(msg, cap, "the OTLP endpoint is too long");
	return r ? -EINVAL : 0;
}

/* OTEL_EXPORTER_OTLP_HEADERS as "Name: value" lines: a name of token
 * characters, a value with no control character (no header injected). */
static int env_headers(const char *s, struct fleet_otlp_env *e, char *msg, size_t cap)
{
	struct fleet_pairs p;
	size_t n = 0;

	if (fleet_pairs_parse(s, &p) < 0) {
		snprintf(msg, cap, "OTEL_EXPORTER_OTLP_HEADERS is not key=value,... (values percent-encoded)");
		return -EINVAL;
	}
	int r = 0;
	for (size_t i = 0; i < p.n && !r; i++) {
		int ok = p.key[i][strspn(p.key[i], "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"
						  "ABCDEFGHIJKLMNOPQRSTUVWXYZ")] == 0;
		for (const char *c = p.val[i]; ok && *c; c++)
			ok = (unsigned char)*c >= 0x20 && *c != 0x7f;
		int k = ok && e->nheaders < FLEET_HEADERS_MAX ?
				snprintf(e->hbuf + n, sizeof(e->hbuf) - n, "%s: %s", p.key[i], p.val[i]) : -1;
		if (k < 0 || (size_t)k >= sizeof(e->hbuf) - n) {
			snprintf(msg, cap, "OTEL_EXPORTER_OTLP_HEADERS: header '%.60s' %s", p.key[i],
				 ok ? "does not fit" : "is not a valid header");
			r = -EINVAL;
			break;
		}
		e->headers[e->nheaders++] = e->hbuf + n;
		n += (size_t)k + 1;
	}
	free(p.buf);
	return r;
}

int fleet_otlp_env(const char *url, int traces, char *(*get)(const char *), struct fleet_otlp_env *e, char *msg,
		   size_t cap)
{
	struct fleet_pairs p;

	memset(e, 0, sizeof(*e));
	msg[0] = 0;
	/* the endpoint from the environment is gRPC's when its protocol says
	 * so; a URL given is spacetime's to speak HTTP to, whatever it says */
	static const char *const protos[] = {"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
					     "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"};
	for (size_t i = 0; !strcmp(url, "env") && i < 3; i++) {
		const char *proto = get(protos[i]);
		if (proto && !strcmp(proto, "grpc") && (i != 2 || traces)) {
			snprintf(msg, cap, "%s=grpc: spacetime sends OTLP over HTTP (JSON) only", protos[i]);
			return -EINVAL;
		}
	}
	if (env_urls(url, get, e, msg, cap) < 0 || env_headers(get("OTEL_EXPORTER_OTLP_HEADERS"), e, msg, cap) < 0)
		return -EINVAL;
	if (traces && !e->traces[0]) {
		snprintf(msg, cap, "--otlp-traces: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not set");
		return -EINVAL;
	}
	if (!traces)
		e->traces[0] = 0;
	e->attrs = get("OTEL_RESOURCE_ATTRIBUTES");
	if (fleet_pairs_parse(e->attrs, &p) < 0) {
		snprintf(msg, cap, "OTEL_RESOURCE_ATTRIBUTES is not key=value,... (values percent-encoded)");
		return -EINVAL;
	}
	free(p.buf);
	e->service = get("OTEL_SERVICE_NAME");
	return 0;
}
