/* export_svg.c: the SVG chart. Data is binned to one column per pixel, each
 * column keeping the highest values of the rows in it, so no peak is lost. */
#include "export_svg.h"

#include "jsonw.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "export.h"
#include "exitcode.h"
#include "units.h"

#define SVG_W 960
#define SVG_ML 80 /* left margin: y labels */
#define SVG_MR 24
#define SVG_PW (SVG_W - SVG_ML - SVG_MR)
#define SVG_TITLE_MAX 110 /* bytes of the command line in the title */
#define SVG_FONT "DejaVu Sans, Helvetica, Arial, sans-serif"

/* Plot panels: top edge and height. */
enum { SVG_P1_Y = 96, SVG_P1_H = 240, SVG_P2_Y = 392, SVG_P2_H = 120, SVG_P3_Y = 568,
       SVG_P3_H = 120, SVG_H = 740 };

/* Colours: PSS anon, file, shmem, max line; processes, threads; minor, major. */
static const char *const svg_col[] = {"#4e79a7", "#f28e2b", "#e15759", "#222222",
				      "#59a14f", "#b07aa1", "#76b7b2", "#9c6b00"};

/* What one pixel column shows: the highest values of the rows in it. */
struct svg_col {
	int has;
	uint64_t pss_max, anon, file, shmem; /* the split of the row with the highest PSS */
	uint32_t procs, threads;
	double minr, majr;
};

/* Length of the next character if XML allows it in text (valid UTF-8, not a
 * control character nor U+FFFE/U+FFFF), else 0. */
static size_t svg_utf8_len(const unsigned char *s, size_t left)
{
	uint32_t cp;
	size_t n = jsonw_utf8_len(s, left, &cp);

	if (n == 1 && (cp < 0x20 || cp == 0x7f))
		return 0;
	if (n == 3 && cp >= 0xfffe)
		return 0;
	return n;
}

/* Writes untrusted bytes as XML character data: markup characters escaped,
 * tabs and newlines as spaces, anything else not allowed (control bytes,
 * invalid UTF-8) as U+FFFD. */
static void svg_text(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = svg_utf8_len(p + i, len - i);

		if (n == 0) {
			fputs(p[i] == '\t' || p[i] == '\n' ? " " : "\xef\xbf\xbd", f);
			n = 1;
		} else if (p[i] == '&') {
			fputs("&amp;", f);
		} else if (p[i] == '<') {
			fputs("&lt;", f);
		} else if (p[i] == '>') {
			fputs("&gt;", f);
		} else {
			fwrite(p + i, 1, n, f);
		}
		i += n;
	}
}

/* A step of 1, 2 or 5 times a power of ten giving about target ticks. */
static double svg_nice_step(double range, int target)
{
	double raw = range / target, mag = pow(10, floor(log10(raw)));
	double r = raw / mag;

	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* Writes a number without trailing zeros ("2.5", "10", "0.05"). */
static void svg_num(FILE *f, double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.6f", v);
	char *e = buf + strlen(buf) - 1;
	while (*e == '0')
		*e-- = '\0';
	if (*e == '.')
		*e = '\0';
	fputs(strcmp(buf, "-0") ? buf : "0", f);
}

/* A time axis under a panel, with labels in seconds. */
static void svg_time_axis(FILE *f, int y, double t0_s, double t1_s, int label)
{
	double step = svg_nice_step(t1_s - t0_s, 10);

	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", SVG_ML, y,
		SVG_ML + SVG_PW, y);
	for (double t = ceil(t0_s / step) * step; t <= t1_s + step * 1e-9; t += step) {
		double x = SVG_ML + (t - t0_s) / (t1_s - t0_s) * SVG_PW;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>", x, y,
			x, y + 4);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x, y + 16);
		svg_num(f, t);
		fputs("</text>\n", f);
	}
	if (label)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since start (s)</text>\n",
			SVG_ML + SVG_PW / 2, y + 34);
}

/* A linear y axis from 0 to ymax (in unit), with grid lines; returns the
 * axis's top value. */
static double svg_lin_axis(FILE *f, int top, int h, double ymax, int integer)
{
	double step = svg_nice_step(ymax > 0 ? ymax : 1, 4);

	if (integer && step < 1)
		step = 1;
	double top_v = ceil((ymax > 0 ? ymax : 1) / step) * step;
	for (double v = 0; v <= top_v + step * 1e-9; v += step) {
		double y = top + h - v / top_v * h;
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>", SVG_ML,
			y, SVG_ML + SVG_PW, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", SVG_ML - 6, y + 4);
		svg_num(f, v);
		fputs("</text>\n", f);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", SVG_ML, top,
		SVG_ML, top + h);
	return top_v;
}

/* A panel's title on the left above it and a legend on the right. */
static void svg_panel_head(FILE *f, int top, const char *title, const char *const *names,
			   const int *cols, int n)
{
	int x = SVG_ML + SVG_PW;

	fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", SVG_ML, top - 10,
		title);
	for (int i = n - 1; i >= 0; i--) {
		x -= 12 + 7 * (int)strlen(names[i]) + 14;
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>", x,
			top - 19, svg_col[cols[i]]);
		fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>\n", x + 14, top - 10, names[i]);
	}
}

/* A step line (or the top edge of a band) through the columns from c0 on:
 * val(c) mapped by the caller into y pixels. Points only where y changes. */
static void svg_steps(FILE *f, const double *y, int c0, int c1)
{
	double prev = y[c0];

	fprintf(f, "%d,%.1f", SVG_ML + c0, prev);
	for (int c = c0 + 1; c < c1; c++) {
		if (y[c] != prev) {
			fprintf(f, " %d,%.1f %d,%.1f", SVG_ML + c, prev, SVG_ML + c, y[c]);
			prev = y[c];
		}
	}
	fprintf(f, " %d,%.1f", SVG_ML + c1, prev);
}

/* A filled band between two step edges, columns [c0, c1). */
static void svg_band(FILE *f, const double *lo, const double *hi, int c0, int c1, const char *fill)
{
	fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.85\" points=\"", fill);
	svg_steps(f, hi, c0, c1);
	/* back along the lower edge, right to left */
	double prev = lo[c1 - 1];
	fprintf(f, " %d,%.1f", SVG_ML + c1, prev);
	for (int c = c1 - 1; c > c0; c--) {
		if (lo[c - 1] != prev) {
			fprintf(f, " %d,%.1f %d,%.1f", SVG_ML + c, prev, SVG_ML + c, lo[c - 1]);
			prev = lo[c - 1];
		}
	}
	fprintf(f, " %d,%.1f\"/>\n", SVG_ML + c0, prev);
}

static void svg_polyline(FILE *f, const double *y, int c0, int c1, const char *stroke,
			 int dashed)
{
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"", stroke,
		dashed ? " stroke-dasharray=\"5 3\"" : "");
	svg_steps(f, y, c0, c1);
	fputs("\"/>\n", f);
}

/* Bins the rows into pixel columns over [t0_s, t1_s], then carries each value
 * forward over empty columns (a sample holds until the next). Returns the
 * first column with data, or SVG_PW when there is none. */
static int svg_bin(const struct export_snap *sn, struct svg_col *col, double t0_s, double t1_s)
{
	int first = SVG_PW, prev = -1;

	memset(col, 0, SVG_PW * sizeof(*col));
	for (size_t i = 0; i < sn->nrows; i++) {
		const struct export_row *r = &sn->rows[i];
		const struct bucket *b = &r->b;
		double t = (double)export_rel_us(sn, b->mean.t_ns) / 1e6;
		int c = (int)((t - t0_s) / (t1_s - t0_s) * SVG_PW);
		struct svg_col *k;

		c = c < 0 ? 0 : c >= SVG_PW ? SVG_PW - 1 : c;
		k = &col[c];
		if ((b->valid & SAMPLE_PSS) && (!k->has || b->max.pss_kib > k->pss_max)) {
			k->pss_max = b->max.pss_kib;
			k->anon = b->mean.pss_anon_kib;
			k->file = b->mean.pss_file_kib;
			k->shmem = b->mean.pss_shmem_kib;
		}
		if ((b->valid & SAMPLE_COUNTS) && b->max.live_procs > k->procs)
			k->procs = b->max.live_procs;
		if ((b->valid & SAMPLE_COUNTS) && b->max.live_threads > k->threads)
			k->threads = b->max.live_threads;
		/* A rate holds over the interval since the previous row. */
		for (int j = r->has_rates && prev >= 0 && prev < c ? prev + 1 : c; j <= c; j++) {
			if (r->has_rates && r->minflt_per_s > col[j].minr)
				col[j].minr = r->minflt_per_s;
			if (r->has_rates && r->majflt_per_s > col[j].majr)
				col[j].majr = r->majflt_per_s;
		}
		prev = c;
		k->has = 1;
		if (c < first)
			first = c;
	}
	/* carried on to the window's end, not past it (a longer ghost's
	 * axis goes on: the run had ended) */
	double end_s = (double)export_rel_us(sn, sn->t1_ns) / 1e6;
	double end_f = (end_s - t0_s) / (t1_s - t0_s) * SVG_PW;
	int end_c = end_f >= SVG_PW - 1 ? SVG_PW - 1 : end_f < 0 ? 0 : (int)end_f;
	for (int c = first + 1; c <= end_c; c++) {
		if (!col[c].has) {
			double minr = col[c].minr, majr = col[c].majr; /* set by the next row */

			col[c] = col[c - 1];
			col[c].minr = minr;
			col[c].majr = majr;
		}
	}
	return first;
}

/* Bins the ghost's buckets into pixel columns over [t0_s, t1_s] of its own
 * time from its start (the largest PSS in each), carried forward over empty
 * columns up to its end; -1 where it has none. Returns its largest. */
static double svg_ghost_bin(const struct export_snap *sn, double *g, double t0_s, double t1_s)
{
	double top = 0, end_s = (double)(sn->ghost_end_ns - sn->ghost_start_ns) / 1e9;
	int last = -1;

	for (int c = 0; c < SVG_PW; c++)
		g[c] = -1;
	for (size_t i = 0; i < sn->nghost; i++) {
		const struct bucket *b = &sn->ghost[i];
		if (!(b->valid & SAMPLE_PSS) || b->mean.t_ns < sn->ghost_start_ns)
			continue;
		double t = (double)(b->mean.t_ns - sn->ghost_start_ns) / 1e9;
		int c = (int)((t - t0_s) / (t1_s - t0_s) * SVG_PW);
		if (c < 0 || c >= SVG_PW)
			continue;
		if ((double)b->max.pss_kib > g[c])
			g[c] = (double)b->max.pss_kib;
		last = c > last ? c : last;
	}
	double end_f = (end_s - t0_s) / (t1_s - t0_s) * SVG_PW;
	int end_c = end_f >= SVG_PW ? SVG_PW : end_f < 0 ? 0 : (int)end_f;
	for (int c = 1; c < SVG_PW && c <= (end_c > last ? end_c : last); c++)
		if (g[c] < 0 && g[c - 1] >= 0)
			g[c] = g[c - 1];
	for (int c = 0; c < SVG_PW; c++)
		top = g[c] > top ? g[c] : top;
	return top;
}

/* The ghost drawn over panel 1: a dashed line through the columns it has
 * (y pixels: base - kib * k), its peak circled, and a legend line. */
static void svg_ghost(FILE *f, const struct export_snap *sn, const double *g, double *y, double k, double base,
		      double t0_s, double t1_s)
{
	int c0 = 0, c1;
	char peak[32];

	while (c0 < SVG_PW && g[c0] < 0)
		c0++;
	for (c1 = c0; c1 < SVG_PW && g[c1] >= 0; c1++)
		y[c1] = base - g[c1] * k;
	if (c1 > c0)
		svg_polyline(f, y, c0, c1, "#000000", 1);
	units_kib(peak, sizeof(peak), sn->ghost_peak.pss_kib);
	const char *label = sn->ghost_label ? sn->ghost_label : "the other run";
	fprintf(f, "<text x=\"%d\" y=\"70\" text-anchor=\"end\">", SVG_ML + SVG_PW);
	fputs("dashed: ", f);
	svg_text(f, label, strlen(label));
	if (sn->ghost_peak.pss_kib && sn->ghost_peak.t_ns >= sn->ghost_start_ns) {
		double t = (double)(sn->ghost_peak.t_ns - sn->ghost_start_ns) / 1e9;
		fprintf(f, ", its peak %s at %.2f s", peak, t);
		if (t >= t0_s && t <= t1_s)
			fprintf(f, "</text>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"none\" stroke=\"#000\" "
				   "stroke-dasharray=\"2 2\"/>\n",
				SVG_ML + (t - t0_s) / (t1_s - t0_s) * SVG_PW, base - (double)sn->ghost_peak.pss_kib * k);
		else
			fputs("</text>\n", f);
	} else {
		fputs("</text>\n", f);
	}
}

/* The title block: command line, then date, wall time, peak, exit, counts. */
static void svg_title(FILE *f, const struct export_snap *sn, double t0_s, double t1_s)
{
	const struct store_summary *s = &sn->sum;
	char peak[32], date[64] = "", line[SVG_TITLE_MAX + 8];
	size_t k = 0;
	struct tm tm;

	for (int i = 0; sn->argv && sn->argv[i] && k < SVG_TITLE_MAX; i++) {
		if (i)
			line[k++] = ' ';
		for (const char *p = sn->argv[i]; *p && k < SVG_TITLE_MAX; p++)
			line[k++] = *p;
	}
	fprintf(f, "<text x=\"%d\" y=\"30\" font-size=\"17\" font-weight=\"bold\">spacetime: ",
		SVG_ML);
	svg_text(f, line, k);
	if (k >= SVG_TITLE_MAX)
		fputs("\xe2\x80\xa6", f);
	fputs("</text>\n", f);

	if (localtime_r(&sn->start_wall.tv_sec, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %Z", &tm);
	units_kib(peak, sizeof(peak), s->peak.pss_kib);
	uint64_t end = s->end_ns ? s->end_ns : sn->t1_ns;
	fprintf(f, "<text x=\"%d\" y=\"52\" font-size=\"13\">", SVG_ML);
	svg_text(f, date, strlen(date));
	fprintf(f, " \xc2\xb7 wall %.2f s \xc2\xb7 ", (double)(end > s->start_ns ? end - s->start_ns : 0) / 1e9);
	/* as in the JSON: a run no read saw has no peak, not one of 0 */
	if (s->peak.pss_kib)
		fprintf(f, "peak PSS %s at %.2f s \xc2\xb7 ", peak, (double)export_rel_us(sn, s->peak.t_ns) / 1e6);
	else
		fputs("peak PSS not measured \xc2\xb7 ", f);
	if (s->exited && WIFSIGNALED(s->wait_status))
		fprintf(f, "killed by signal %d", WTERMSIG(s->wait_status));
	else if (s->exited)
		fprintf(f, "exit %d", exitcode_of(s->wait_status));
	else
		fputs("still running", f);
	fprintf(f, " \xc2\xb7 %" PRIu32 " processes, %" PRIu32 " threads%s</text>\n",
		s->last.total_procs, s->last.total_threads,
		s->mode == STORE_MODE_POLL ? " (polled: lower bounds)" : "");
	if (sn->windowed)
		fprintf(f, "<text x=\"%d\" y=\"70\" font-size=\"12\">window %.2f\xe2\x80\x93%.2f s</text>\n",
			SVG_ML, t0_s, t1_s);
}

/* Panel 1: stacked PSS split, the max line, the peak marked. */
static void svg_pss(FILE *f, const struct export_snap *sn, const struct svg_col *col, int c0,
		    double *y0, double *y1, double *y2, double *y3, double *ym, const double *gy, double t0_s,
		    double t1_s)
{
	static const char *const names[] = {"anon", "file", "shmem", "total (max)"};
	static const int cols[] = {0, 1, 2, 3};
	uint64_t ymax = 0;
	double div;
	const char *unit;
	char title[64];

	for (int c = c0; c < SVG_PW; c++) {
		uint64_t sum = col[c].anon + col[c].file + col[c].shmem;
		ymax = col[c].pss_max > ymax ? col[c].pss_max : ymax;
		ymax = sum > ymax ? sum : ymax;
		if (gy && gy[c] > (double)ymax)
			ymax = (uint64_t)gy[c];
	}
	for (int c = 0; gy && c < c0; c++)
		ymax = gy[c] > (double)ymax ? (uint64_t)gy[c] : ymax;
	div = ymax >= 1024 * 1024 ? 1024.0 * 1024 : ymax >= 1024 ? 1024 : 1;
	unit = div > 1024 ? "GiB" : div > 1 ? "MiB" : "KiB";
	snprintf(title, sizeof(title), "PSS of the process tree (%s)", unit);
	svg_panel_head(f, SVG_P1_Y, title, names, cols, 4);
	double top = svg_lin_axis(f, SVG_P1_Y, SVG_P1_H, (double)ymax / div, 0);
	double k = SVG_P1_H / top / div, base = SVG_P1_Y + SVG_P1_H;
	for (int c = c0; c < SVG_PW; c++) {
		y0[c] = base;
		y1[c] = base - (double)col[c].anon * k;
		y2[c] = base - (double)(col[c].anon + col[c].file) * k;
		y3[c] = base - (double)(col[c].anon + col[c].file + col[c].shmem) * k;
		ym[c] = base - (double)col[c].pss_max * k;
	}
	if (c0 < SVG_PW) {
		svg_band(f, y0, y1, c0, SVG_PW, svg_col[0]);
		svg_band(f, y1, y2, c0, SVG_PW, svg_col[1]);
		svg_band(f, y2, y3, c0, SVG_PW, svg_col[2]);
		svg_polyline(f, ym, c0, SVG_PW, svg_col[3], 0);
	}
	if (gy)
		svg_ghost(f, sn, gy, y0, k, base, t0_s, t1_s);
	svg_time_axis(f, SVG_P1_Y + SVG_P1_H, t0_s, t1_s, 0);

	/* The run's peak, if it lies in the window. */
	const struct sample *pk = &sn->sum.peak;
	if (pk->t_ns >= sn->t0_ns && pk->t_ns <= sn->t1_ns && pk->pss_kib) {
		char peak[32];
		double t = (double)export_rel_us(sn, pk->t_ns) / 1e6;
		double x = SVG_ML + (t - t0_s) / (t1_s - t0_s) * SVG_PW;
		double y = base - (double)pk->pss_kib * k;
		int right = x > SVG_ML + SVG_PW * 0.6;

		units_kib(peak, sizeof(peak), pk->pss_kib);
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"#000\"/>\n", x, y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">peak %s at %.2f s</text>\n",
			right ? x - 8 : x + 8, y < SVG_P1_Y + 14 ? y + 16 : y - 6, right ? "end" : "start",
			peak, t);
	}
}

/* Panel 2: live processes and threads. */
static void svg_counts(FILE *f, const struct svg_col *col, int c0, double *ya, double *yb,
		       double t0_s, double t1_s)
{
	static const char *const names[] = {"processes", "threads"};
	static const int cols[] = {4, 5};
	uint32_t ymax = 0;

	for (int c = c0; c < SVG_PW; c++) {
		ymax = col[c].procs > ymax ? col[c].procs : ymax;
		ymax = col[c].threads > ymax ? col[c].threads : ymax;
	}
	svg_panel_head(f, SVG_P2_Y, "Live processes and threads (count)", names, cols, 2);
	double top = svg_lin_axis(f, SVG_P2_Y, SVG_P2_H, ymax, 1);
	double base = SVG_P2_Y + SVG_P2_H;
	for (int c = c0; c < SVG_PW; c++) {
		ya[c] = base - col[c].procs / top * SVG_P2_H;
		yb[c] = base - col[c].threads / top * SVG_P2_H;
	}
	if (c0 < SVG_PW) {
		/* threads dashed over processes: both show where they are equal */
		svg_polyline(f, ya, c0, SVG_PW, svg_col[4], 0);
		svg_polyline(f, yb, c0, SVG_PW, svg_col[5], 1);
	}
	svg_time_axis(f, base, t0_s, t1_s, 0);
}

/* Panel 3: minor and major fault rates on a log scale (1 to a power of ten;
 * zero sits on the axis). */
static void svg_faults(FILE *f, const struct svg_col *col, int c0, double *ya, double *yb,
		       double t0_s, double t1_s)
{
	static const char *const names[] = {"minor", "major"};
	static const int cols[] = {6, 7};
	static const char *const lab[] = {"1", "10", "100", "1k", "10k", "100k", "1M", "10M",
					  "100M", "1G", "10G", "100G"};
	double ymax = 10;
	int dec;

	for (int c = c0; c < SVG_PW; c++) {
		ymax = col[c].minr > ymax ? col[c].minr : ymax;
		ymax = col[c].majr > ymax ? col[c].majr : ymax;
	}
	dec = (int)ceil(log10(ymax));
	if (dec > 11)
		dec = 11;
	svg_panel_head(f, SVG_P3_Y, "Page faults (per second, log scale)", names, cols, 2);
	double base = SVG_P3_Y + SVG_P3_H;
	for (int d = 0; d <= dec; d++) {
		double y = base - (double)d / dec * SVG_P3_H;
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>", SVG_ML,
			y, SVG_ML + SVG_PW, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", SVG_ML - 6,
			y + 4, lab[d]);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.0f\" stroke=\"#444\"/>\n", SVG_ML,
		SVG_P3_Y, SVG_ML, base);
	for (int c = c0; c < SVG_PW; c++) {
		double a = col[c].minr > 1 ? log10(col[c].minr) : 0;
		double b = col[c].majr > 1 ? log10(col[c].majr) : 0;
		ya[c] = base - (a > dec ? dec : a) / dec * SVG_P3_H;
		yb[c] = base - (b > dec ? dec : b) / dec * SVG_P3_H;
	}
	if (c0 < SVG_PW) {
		svg_polyline(f, ya, c0, SVG_PW, svg_col[6], 0);
		svg_polyline(f, yb, c0, SVG_PW, svg_col[7], 0);
	}
	svg_time_axis(f, (int)base, t0_s, t1_s, 1);
}

int export_svg_write(FILE *f, const struct export_snap *sn)
{
	struct svg_col *col = malloc(SVG_PW * sizeof(*col));
	double *y = malloc(6 * SVG_PW * sizeof(*y)), *gy = y ? y + 5 * SVG_PW : NULL;
	double t0_s = (double)export_rel_us(sn, sn->t0_ns) / 1e6;
	double t1_s = (double)export_rel_us(sn, sn->t1_ns) / 1e6;
	char peak[32];

	if (!col || !y) {
		free(col);
		free(y);
		return -ENOMEM;
	}
	/* a ghost that lasted longer: the axis goes on to its end */
	if (sn->ghost_label && !sn->windowed && (double)(sn->ghost_end_ns - sn->ghost_start_ns) / 1e9 > t1_s)
		t1_s = (double)(sn->ghost_end_ns - sn->ghost_start_ns) / 1e9;
	if (t1_s - t0_s < 0.1)
		t1_s = t0_s + 0.1;
	int c0 = svg_bin(sn, col, t0_s, t1_s);
	if (sn->ghost_label)
		svg_ghost_bin(sn, gy, t0_s, t1_s);
	else
		gy = NULL;
	units_kib(peak, sizeof(peak), sn->sum.peak.pss_kib);

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"%s\" font-size=\"12\">\n",
		SVG_W, SVG_H, SVG_W, SVG_H, SVG_FONT);
	fputs("<title>spacetime: ", f);
	for (int i = 0; sn->argv && sn->argv[i] && i < 8; i++) {
		fputs(i ? " " : "", f);
		svg_text(f, sn->argv[i], strnlen(sn->argv[i], SVG_TITLE_MAX));
	}
	fprintf(f, "</title>\n<desc>Peak PSS %s (%" PRIu64 " KiB). Generated by spacetime.</desc>\n",
		peak, sn->sum.peak.pss_kib);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", SVG_W, SVG_H);
	svg_title(f, sn, t0_s, t1_s);
	svg_pss(f, sn, col, c0, y, y + SVG_PW, y + 2 * SVG_PW, y + 3 * SVG_PW, y + 4 * SVG_PW, gy,
		t0_s, t1_s);
	svg_counts(f, col, c0, y, y + SVG_PW, t0_s, t1_s);
	svg_faults(f, col, c0, y, y + SVG_PW, t0_s, t1_s);
	fputs("</svg>\n", f);
	free(col);
	free(y);
	return ferror(f) ? -EIO : 0;
}
