// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-meter: what the tool writes: the results as a table, JSON or CSV,
 * the gnuplot data files, and the progress line on stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabric-meter.h"

#define CDF_POINTS		400
#define HIST_BUCKETS		50

int fm_output_close(FILE *f, const char *what)
{
	bool bad = ferror(f);

	errno = 0;
	if (f == stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (!bad)
		return 0;
	fprintf(stderr, PROG ": %s: %s\n", what, errno ? strerror(errno) : "write error");
	return -1;
}

static void json_stats(FILE *f, const char *key, const struct ls_stats *s)
{
	fprintf(f, "\"%s\":{\"count\":%" PRIu64 ",\"mean\":%.3f,\"min\":%.3f,"
		"\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f,"
		"\"jitter\":%.3f}", key, s->count, ls_mean(s) / 1e3,
		s->count ? s->min / 1e3 : 0.0,
		ls_percentile(s, 0.5) / 1e3, ls_percentile(s, 0.9) / 1e3,
		ls_percentile(s, 0.99) / 1e3, ls_percentile(s, 0.999) / 1e3,
		s->count ? s->max / 1e3 : 0.0, ls_jitter(s) / 1e3);
}

static void json_cdf(FILE *f, const char *key, const struct ls_stats *s)
{
	static struct ls_point pts[CDF_POINTS];
	size_t n = ls_cdf(s, pts, CDF_POINTS), i;

	fprintf(f, "\"%s\":[", key);
	for (i = 0; i < n; i++)
		fprintf(f, "%s[%.3f,%.6f]", i ? "," : "", pts[i].value / 1e3, pts[i].frac);
	fputc(']', f);
}

static void hist_bounds(const struct ls_stats *s, int64_t *lo, int64_t *width)
{
	int64_t hi = s->n ? s->v[s->n - 1] : 1;

	*lo = s->n ? s->v[0] : 0;
	*width = (hi - *lo) / HIST_BUCKETS + 1;
}

static void json_hist(FILE *f, const char *key, const struct ls_stats *s)
{
	uint64_t b[HIST_BUCKETS];
	int64_t lo, width;
	int i;

	hist_bounds(s, &lo, &width);
	ls_histogram(s, lo, width, b, HIST_BUCKETS);
	fprintf(f, "\"%s\":{\"lo_us\":%.3f,\"width_us\":%.3f,\"counts\":[", key,
		lo / 1e3, width / 1e3);
	for (i = 0; i < HIST_BUCKETS; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", b[i]);
	fputs("]}", f);
}

static void json_class(FILE *f, int cls, const struct result *r, bool have_sent)
{
	uint64_t sent = result_sent(r), lost = result_lost(r);

	fprintf(f, "{\"id\":%d,\"name\":\"%s\",\"kind\":\"%s\",", cls, r->name, result_kind(r));
	if (r->target_ns > 0)
		fprintf(f, "\"target_us\":%.3f,", r->target_ns / 1e3);
	else
		fputs("\"target_us\":null,", f);
	fprintf(f, "\"sent\":%" PRIu64 ",\"received\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"loss_ratio\":%.6f,\"sent_exact\":%s,\"bytes\":%" PRIu64
		",\"reordered\":%" PRIu64 ",\"throughput_bps\":%.0f,",
		sent, r->packets, lost, sent ? (double)lost / sent : 0.0,
		have_sent ? "true" : "false", r->bytes, r->reordered, result_tput(r));
	if (r->have_fin)
		fprintf(f, "\"source_drops\":%" PRIu64 ",", r->fin.src_drops);
	json_stats(f, "latency_us", &r->pkt);
	fputc(',', f);
	fprintf(f, "\"messages\":{\"sent\":%" PRIu64 ",\"complete\":%" PRIu64
		",\"incomplete\":%" PRIu64 ",", r->have_fin ? r->fin.sent_msgs : 0,
		r->msg.count, r->msgs_incomplete);
	if (r->target_ns > 0)
		fprintf(f, "\"deadline_miss_ratio\":%.6f,\"in_window_ratio\":%.6f,",
			result_miss_ratio(r), result_in_window(r));
	else
		fputs("\"deadline_miss_ratio\":null,\"in_window_ratio\":null,", f);
	json_stats(f, "latency_us", &r->msg);
	fputc(',', f);
	json_cdf(f, "cdf", &r->msg);
	fputc(',', f);
	json_hist(f, "histogram", &r->msg);
	fputs("},", f);
	json_cdf(f, "cdf", &r->pkt);
	fputc('}', f);
}

static const char *csv_header =
	"class,name,kind,sent,received,lost,loss_ratio,bytes,throughput_bps,"
	"lat_mean_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,lat_max_us,jitter_us,"
	"msgs,msg_mean_us,msg_p50_us,msg_p99_us,msg_max_us,target_us,deadline_miss_ratio,"
	"in_window_ratio,msg_p90_us,msg_p999_us,msg_jitter_us\n";

static void csv_class(FILE *f, int cls, const struct result *r)
{
	uint64_t sent = result_sent(r), lost = result_lost(r);
	const struct ls_stats *p = &r->pkt, *m = &r->msg;

	fprintf(f, "%d,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,%" PRIu64 ",%.0f,"
		"%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%" PRIu64 ",%.3f,%.3f,%.3f,%.3f,",
		cls, r->name, result_kind(r), sent, r->packets, lost,
		sent ? (double)lost / sent : 0.0, r->bytes, result_tput(r),
		ls_mean(p) / 1e3, ls_percentile(p, 0.5) / 1e3, ls_percentile(p, 0.9) / 1e3,
		ls_percentile(p, 0.99) / 1e3, ls_percentile(p, 0.999) / 1e3,
		p->count ? p->max / 1e3 : 0.0, ls_jitter(p) / 1e3,
		m->count, ls_mean(m) / 1e3, ls_percentile(m, 0.5) / 1e3,
		ls_percentile(m, 0.99) / 1e3, m->count ? m->max / 1e3 : 0.0);
	if (r->target_ns > 0)
		fprintf(f, "%.3f,%.6f,%.6f,", r->target_ns / 1e3, result_miss_ratio(r),
			result_in_window(r));
	else
		fputs(",,,", f);
	fprintf(f, "%.3f,%.3f,%.3f\n", ls_percentile(m, 0.9) / 1e3,
		ls_percentile(m, 0.999) / 1e3, ls_jitter(m) / 1e3);
}

static void table_print(FILE *f, struct result *res, const char *what)
{
	int i;

	fprintf(f, "%-12s %-10s %9s %9s %7s %9s %9s %9s %9s %9s %9s %9s %6s\n",
		"class", "kind", "sent", "received", "lost", "Mbit/s", "mean_us",
		"p50_us", "p99_us", "p99.9_us", "max_us", "jitter_us", "miss%");
	for (i = 0; i < MAX_CLASSES; i++) {
		struct result *r = &res[i];
		const struct ls_stats *s = &r->pkt;

		if (!r->seen && !r->have_fin)
			continue;
		fprintf(f, "%-12s %-10s %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %9.3f "
			"%9.1f %9.1f %9.1f %9.1f %9.1f %9.1f ",
			r->name, result_kind(r), result_sent(r), r->packets, result_lost(r),
			result_tput(r) / 1e6, ls_mean(s) / 1e3, ls_percentile(s, 0.5) / 1e3,
			ls_percentile(s, 0.99) / 1e3, ls_percentile(s, 0.999) / 1e3,
			s->count ? s->max / 1e3 : 0.0, ls_jitter(s) / 1e3);
		if (r->target_ns > 0)
			fprintf(f, "%6.2f\n", 100.0 * result_miss_ratio(r));
		else
			fprintf(f, "%6s\n", "-");
	}
	fprintf(f, "\nmessages (%s):\n", what);
	fprintf(f, "%-12s %9s %10s %9s %9s %9s %9s %9s %9s\n", "class", "complete",
		"incomplete", "mean_us", "p50_us", "p90_us", "p99_us", "max_us", "target_us");
	for (i = 0; i < MAX_CLASSES; i++) {
		struct result *r = &res[i];
		const struct ls_stats *s = &r->msg;

		if (!r->seen && !r->have_fin)
			continue;
		fprintf(f, "%-12s %9" PRIu64 " %10" PRIu64 " %9.1f %9.1f %9.1f %9.1f %9.1f ",
			r->name, s->count, r->msgs_incomplete, ls_mean(s) / 1e3,
			ls_percentile(s, 0.5) / 1e3, ls_percentile(s, 0.9) / 1e3,
			ls_percentile(s, 0.99) / 1e3, s->count ? s->max / 1e3 : 0.0);
		if (r->target_ns > 0)
			fprintf(f, "%9.1f\n", r->target_ns / 1e3);
		else
			fprintf(f, "%9s\n", "-");
	}
}

/* DIR/NAME.cdf, NAME.msg.cdf, NAME.msg.hist: gnuplot-ready columns. */
static int write_data_files(const char *dir, struct result *res)
{
	static struct ls_point pts[CDF_POINTS];
	char path[PATH_MAX];
	uint64_t b[HIST_BUCKETS];
	int64_t lo, width;
	size_t n, j;
	FILE *f;
	int i, k;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, PROG ": mkdir %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < MAX_CLASSES; i++) {
		struct result *r = &res[i];

		if (!r->seen)
			continue;
		for (k = 0; k < 3; k++) {
			static const char *const ext[] = { "cdf", "msg.cdf", "msg.hist" };
			const struct ls_stats *s = k ? &r->msg : &r->pkt;

			snprintf(path, sizeof(path), "%s/%s.%s", dir, r->name, ext[k]);
			f = fopen(path, "w");
			if (!f) {
				fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
				return -1;
			}
			if (k < 2) {
				fputs("# latency_us fraction\n", f);
				n = ls_cdf(s, pts, CDF_POINTS);
				for (j = 0; j < n; j++)
					fprintf(f, "%.3f %.6f\n", pts[j].value / 1e3, pts[j].frac);
			} else {
				fputs("# bucket_start_us bucket_width_us count\n", f);
				hist_bounds(s, &lo, &width);
				ls_histogram(s, lo, width, b, HIST_BUCKETS);
				for (j = 0; j < HIST_BUCKETS && s->n; j++)
					fprintf(f, "%.3f %.3f %" PRIu64 "\n",
						(lo + (int64_t)j * width) / 1e3, width / 1e3, b[j]);
			}
			if (fm_output_close(f, path))
				return -1;
		}
	}
	return 0;
}

static void write_results(FILE *f, int fmt, struct result *res, const char *role,
			  const char *mode, double duration_s)
{
	bool first = true;
	int i;

	switch (fmt) {
	case OUT_JSON:
		fprintf(f, "{\"tool\":\"" PROG "\",\"version\":1,\"role\":\"%s\","
			"\"mode\":\"%s\",\"clock\":\"%s\",\"duration_s\":%.3f,\"classes\":[",
			role, mode, run_clock_name, duration_s);
		for (i = 0; i < MAX_CLASSES; i++) {
			if (!res[i].seen && !res[i].have_fin)
				continue;
			if (!first)
				fputc(',', f);
			first = false;
			json_class(f, i, &res[i], res[i].have_fin);
		}
		fputs("]}\n", f);
		break;
	case OUT_CSV:
		fputs(csv_header, f);
		for (i = 0; i < MAX_CLASSES; i++)
			if (res[i].seen || res[i].have_fin)
				csv_class(f, i, &res[i]);
		break;
	default:
		fprintf(f, "%s %s, clock %s, %.3f s; latency per packet%s\n", role, mode,
			run_clock_name, duration_s,
			strcmp(mode, "roundtrip") ? " (one-way)" : " (round trip)");
		table_print(f, res, strcmp(mode, "roundtrip") ?
			    "generated to last packet received" :
			    "generated to last packet reflected back");
		break;
	}
}

/* Write the results in @fmt to @path; 0 or -1 with a message. */
static int write_results_file(const char *path, int fmt, struct result *res,
			      const char *role, const char *mode, double duration_s)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	write_results(f, fmt, res, role, mode, duration_s);
	return fm_output_close(f, path);
}

int print_results(const struct output_cfg *o, struct result *res,
		  const char *role, const char *mode, double duration_s)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < MAX_CLASSES; i++) {
		ls_finish(&res[i].pkt);
		ls_finish(&res[i].msg);
	}
	if (o->file) {
		if (write_results_file(o->file, o->fmt, res, role, mode, duration_s))
			return 1;
	} else {
		write_results(stdout, o->fmt, res, role, mode, duration_s);
		if (fm_output_close(stdout, "stdout"))
			return 1;
	}
	if (!o->data_dir)
		return 0;
	if (write_data_files(o->data_dir, res))
		return 1;
	snprintf(path, sizeof(path), "%s/results.json", o->data_dir);
	if (write_results_file(path, OUT_JSON, res, role, mode, duration_s))
		return 1;
	snprintf(path, sizeof(path), "%s/results.csv", o->data_dir);
	if (write_results_file(path, OUT_CSV, res, role, mode, duration_s))
		return 1;
	return 0;
}

/* ---- progress line -------------------------------------------------------------- */

void progress_init(struct progress *p, int64_t start, bool quiet)
{
	p->on = !quiet && isatty(STDERR_FILENO);
	p->start = start;
	p->next = start + NSEC_PER_SEC;
}

void progress_show(struct progress *p, int64_t now, double duration_s,
		   const char *what, uint64_t n)
{
	if (!p->on || now < p->next)
		return;
	p->next = now + NSEC_PER_SEC;
	fprintf(stderr, "\r" PROG ": %5.1f / %.1f s  %s %" PRIu64 "   ",
		(now - p->start) / 1e9, duration_s, what, n);
}

void progress_end(struct progress *p)
{
	if (p->on)
		fputs("\r\033[K", stderr);
}
