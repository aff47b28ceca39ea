/* memwarn.c: memory left, its trend, and the verdict (see memwarn.h). */
#include "memwarn.h"

#include <errno.h>
#include <string.h>

/* The number after "Key:" in a meminfo line [p, eol), in kB. */
static int meminfo_value(const char *p, const char *eol, uint64_t *v)
{
	uint64_t x = 0;

	while (p < eol && *p == ' ')
		p++;
	const char *d = p;
	for (; p < eol && *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (p == d || eol - p < 3 || memcmp(p, " kB", 3))
		return -EINVAL;
	*v = x;
	return 0;
}

int memwarn_parse_meminfo(const char *buf, size_t len, uint64_t *total_kib, uint64_t *avail_kib)
{
	const char *p = buf, *end = buf + len;
	int seen = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		if (eol - p > 9 && !memcmp(p, "MemTotal:", 9)) {
			if (meminfo_value(p + 9, eol, total_kib))
				return -EINVAL;
			seen |= 1;
		} else if (eol - p > 13 && !memcmp(p, "MemAvailable:", 13)) {
			if (meminfo_value(p + 13, eol, avail_kib))
				return -EINVAL;
			seen |= 2;
		}
		p = nl ? nl + 1 : end;
	}
	return seen == 3 ? 0 : -EINVAL;
}

int memwarn_parse_bytes(const char *buf, size_t len, uint64_t *bytes)
{
	uint64_t x = 0;
	size_t i = 0;

	if (len >= 3 && !memcmp(buf, "max", 3) && (len == 3 || buf[3] == '\n')) {
		*bytes = UINT64_MAX;
		return 0;
	}
	for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(buf[i] - '0');
	}
	if (i == 0 || (i < len && buf[i] != '\n'))
		return -EINVAL;
	*bytes = x;
	return 0;
}

void memwarn_push(struct memwarn_hist *h, uint64_t t_ns, uint64_t left_kib, uint64_t pss_kib)
{
	size_t at = (h->head + h->n) % MEMWARN_HIST;

	if (h->n == MEMWARN_HIST) {
		at = h->head;
		h->head = (h->head + 1) % MEMWARN_HIST;
	} else {
		h->n++;
	}
	h->v[at].t_ns = t_ns;
	h->v[at].left_kib = left_kib;
	h->v[at].pss_kib = pss_kib;
}

/* Least-squares slopes (per second) of left and pss over the figures of the
 * last MEMWARN_WINDOW_NS; 0 with fewer than two. */
static void memwarn_slopes(const struct memwarn_hist *h, double *left_s, double *pss_s)
{
	uint64_t t_last = h->v[(h->head + h->n - 1) % MEMWARN_HIST].t_ns;
	double st = 0, sl = 0, sp = 0, stt = 0, stl = 0, stp = 0;
	size_t k = 0;

	for (size_t i = 0; i < h->n; i++) {
		const size_t j = (h->head + i) % MEMWARN_HIST;
		if (t_last - h->v[j].t_ns > MEMWARN_WINDOW_NS)
			continue;
		double t = (double)(h->v[j].t_ns - (t_last - MEMWARN_WINDOW_NS)) / 1e9;
		st += t, sl += (double)h->v[j].left_kib, sp += (double)h->v[j].pss_kib;
		stt += t * t, stl += t * (double)h->v[j].left_kib, stp += t * (double)h->v[j].pss_kib;
		k++;
	}
	double den = (double)k * stt - st * st;
	*left_s = *pss_s = 0;
	if (k < 2 || !(den > 0))
		return;
	*left_s = ((double)k * stl - st * sl) / den;
	*pss_s = ((double)k * stp - st * sp) / den;
}

void memwarn_eval(const struct memwarn_hist *h, uint64_t of_kib, double full_share, struct memwarn_state *out)
{
	memset(out, 0, sizeof(*out));
	out->eta_s = -1;
	out->of_kib = of_kib;
	if (!h->n)
		return;
	out->left_kib = h->v[(h->head + h->n - 1) % MEMWARN_HIST].left_kib;
	memwarn_slopes(h, &out->left_kib_s, &out->pss_kib_s);
	if (out->left_kib_s < 0)
		out->eta_s = (double)out->left_kib / -out->left_kib_s;
	double left_share = of_kib ? (double)out->left_kib / (double)of_kib : 1;
	int growing = out->pss_kib_s > 0 || out->left_kib_s < 0;
	out->low = (left_share < MEMWARN_LOW_SHARE && growing) ||
		   (full_share >= MEMWARN_FULL_SHARE && left_share < 2 * MEMWARN_LOW_SHARE);
}
