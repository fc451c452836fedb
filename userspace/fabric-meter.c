// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-meter: traffic generator and latency meter for QoS classes.
 *
 * A sender drives several traffic classes (control, multimedia,
 * best-effort, background, cbr: userspace/lib/traffic_model.h), each on
 * its own UDP socket with its own markings (SO_PRIORITY, DSCP,
 * SO_MAX_PACING_RATE, SO_TXTIME frame deadlines for the edf qdisc).  Every
 * datagram carries a header with its class, sequence number, message and
 * part, the time its message was generated and the time it was sent.  A
 * receiver computes per class the one-way latency of every packet and of
 * every message (multimedia: a video frame, from its generation to its
 * last packet) and prints sent, received, lost, mean, percentiles, max,
 * jitter, throughput, deadline misses and the CDF (userspace/lib/
 * latstats.h).  With a reflector at the far end the sender measures round
 * trips instead, on its own clock.
 *
 * Documentation/fabric-meter.rst describes every option and the output.
 *
 * Wire header, network byte order, at the start of every datagram:
 *
 *    0  u32 magic     FM_MAGIC
 *    4  u8  version   1
 *    5  u8  type      FM_T_*
 *    6  u8  flow      flow of the class, 0 .. 255
 *    7  u8  class     class index 0 .. 63
 *    8  u32 seq       per flow, one per datagram, from 0
 *   12  u32 msg       per flow, one per message, from 0
 *   16  u16 part      0 .. parts-1
 *   18  u16 parts     datagrams of the message
 *   20  u32 size      message size, bytes
 *   24  u64 gen_ns    message generation time (the run's clock)
 *   32  u64 send_ns   this datagram's send time (the run's clock)
 *   40  u64 echo_ns   reflector: its receive time; else 0
 *   48  payload (zeros), or the body of a FIN / HELLO / ACK
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "edf_frame.h"
#include "latstats.h"
#include "traffic_model.h"

#define PROG			"fabric-meter"

#define FM_MAGIC		0xFAB3E7E5U
#define FM_VERSION		1
#define FM_HDR_LEN		48
#define FM_T_DATA		1
#define FM_T_FIN		2	/* sender: a class is done; body: fm_fin */
#define FM_T_HELLO		3	/* sender: anyone there?  body: clock */
#define FM_T_ACK		4	/* receiver / reflector: yes; body: status */
#define FM_T_ECHO		5	/* reflector: a DATA datagram sent back */
#define FM_FIN_LEN		(FM_HDR_LEN + 64)
#define FM_NAME_LEN		16

#define EXIT_USAGE		2
#define EXIT_PEER		3

#define NSEC_PER_SEC		1000000000LL
#define MAX_CLASSES		64
#define MAX_FLOWS		256	/* per class, and in all on one sender */
#define MAX_DURATION_S		3600.0
/* Every run ends: this long after its --duration at the latest. */
#define HARD_CAP_EXTRA_S	30
#define DEFAULT_PORT		5201
#define DEFAULT_SEG		1400
#define MAX_SEG			65507
#define MAX_KEEP		1000000		/* kept samples per statistic */
#define PENDING_MAX		256		/* messages waiting per class */
#define RCVBUF_BYTES		(8 << 20)
#define RECV_BATCH		64
#define RECV_SNAP		(FM_FIN_LEN)
/* The end marks queue behind the class's data: let short queues drain first. */
#define FIN_GAP_NS		(50 * 1000000LL)
#define CDF_POINTS		400
#define HIST_BUCKETS		50

/* ---- small helpers ---------------------------------------------------------- */

static volatile sig_atomic_t stop_requested;
static clockid_t run_clock = CLOCK_REALTIME;
static const char *run_clock_name = "realtime";

static void on_signal(int sig)
{
	stop_requested = 1;
}

static void on_alarm(int sig)
{
	static const char msg[] = PROG ": hard time limit reached, exiting\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

/*
 * SIGINT / SIGTERM end a run early and still print results; SIGALRM is
 * the hard cap, armed at --duration + HARD_CAP_EXTRA_S.
 */
static void catch_signals(double duration_s)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned int)ceil(duration_s) + HARD_CAP_EXTRA_S);
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static int64_t now_ns(void)
{
	return clock_ns(run_clock);
}

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n" PROG ": try '" PROG " --help'\n", stderr);
	return EXIT_USAGE;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return p;
}

/* A number with an optional suffix from @units (name, factor); NULL-ended. */
struct unit { const char *name; double factor; };

static bool parse_with_unit(const char *s, const struct unit *units,
			    double def_factor, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (end == s || errno || !isfinite(x) || x < 0)
		return false;
	if (!*end) {
		*v = x * def_factor;
		return true;
	}
	for (; units->name; units++) {
		if (!strcasecmp(end, units->name)) {
			*v = x * units->factor;
			return true;
		}
	}
	return false;
}

static const struct unit rate_units[] = {
	{ "bit", 1 }, { "k", 1e3 }, { "kbit", 1e3 }, { "m", 1e6 }, { "mbit", 1e6 },
	{ "g", 1e9 }, { "gbit", 1e9 }, { NULL, 0 },
};

static const struct unit time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { NULL, 0 },
};

static const struct unit size_units[] = {
	{ "b", 1 }, { "k", 1024 }, { "kb", 1024 }, { "m", 1 << 20 }, { "mb", 1 << 20 },
	{ NULL, 0 },
};

static int resolve(const char *addr, uint16_t port, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_DGRAM,
		.ai_flags = AI_NUMERICSERV,
	};
	struct addrinfo *res;
	char serv[8];
	int err;

	snprintf(serv, sizeof(serv), "%u", port);
	err = getaddrinfo(addr, serv, &hints, &res);
	if (err) {
		fprintf(stderr, PROG ": cannot resolve '%s': %s\n", addr, gai_strerror(err));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static const char *addr_str(const struct sockaddr_storage *ss)
{
	static char buf[INET6_ADDRSTRLEN + 8];
	const void *a = ss->ss_family == AF_INET6 ?
		(const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr :
		(const void *)&((const struct sockaddr_in *)ss)->sin_addr;

	if (!inet_ntop(ss->ss_family, a, buf, sizeof(buf)))
		return "?";
	return buf;
}

static int set_clock(const char *name)
{
	if (!strcmp(name, "realtime"))
		run_clock = CLOCK_REALTIME;
	else if (!strcmp(name, "tai"))
		run_clock = CLOCK_TAI;
	else if (!strcmp(name, "monotonic"))
		run_clock = CLOCK_MONOTONIC;
	else
		return usage_error("invalid --clock '%s': want realtime, tai or monotonic", name);
	run_clock_name = name;
	return 0;
}

static uint8_t clock_code(void)
{
	return run_clock == CLOCK_REALTIME ? 0 : run_clock == CLOCK_TAI ? 1 : 2;
}

/* ---- wire header -------------------------------------------------------------- */

struct fm_hdr {
	uint8_t type, flow;
	uint16_t cls;
	uint32_t seq, msg;
	uint16_t part, parts;
	uint32_t size;
	uint64_t gen_ns, send_ns, echo_ns;
};

struct fm_fin {
	uint64_t sent_pkts, sent_msgs, sent_bytes, src_drops;
	int64_t target_ns;
	uint8_t kind;
	char name[FM_NAME_LEN + 1];
	uint16_t nflows;	/* flows of the class */
};

static void hdr_put(uint8_t *p, const struct fm_hdr *h)
{
	put32(p, FM_MAGIC);
	p[4] = FM_VERSION;
	p[5] = h->type;
	p[6] = h->flow;
	p[7] = (uint8_t)h->cls;
	put32(p + 8, h->seq);
	put32(p + 12, h->msg);
	put16(p + 16, h->part);
	put16(p + 18, h->parts);
	put32(p + 20, h->size);
	put64(p + 24, h->gen_ns);
	put64(p + 32, h->send_ns);
	put64(p + 40, h->echo_ns);
}

static bool hdr_get(const uint8_t *p, size_t len, struct fm_hdr *h)
{
	if (len < FM_HDR_LEN || get32(p) != FM_MAGIC || p[4] != FM_VERSION)
		return false;
	h->type = p[5];
	h->flow = p[6];
	h->cls = p[7];
	h->seq = get32(p + 8);
	h->msg = get32(p + 12);
	h->part = get16(p + 16);
	h->parts = get16(p + 18);
	h->size = get32(p + 20);
	h->gen_ns = get64(p + 24);
	h->send_ns = get64(p + 32);
	h->echo_ns = get64(p + 40);
	return h->cls < MAX_CLASSES;
}

static void fin_put(uint8_t *p, const struct fm_fin *f)
{
	p += FM_HDR_LEN;
	put64(p, f->sent_pkts);
	put64(p + 8, f->sent_msgs);
	put64(p + 16, f->sent_bytes);
	put64(p + 24, f->src_drops);
	put64(p + 32, (uint64_t)f->target_ns);
	p[40] = f->kind;
	memcpy(p + 41, f->name, FM_NAME_LEN);
	put16(p + 57, f->nflows);
}

static bool fin_get(const uint8_t *p, size_t len, struct fm_fin *f)
{
	if (len < FM_FIN_LEN)
		return false;
	p += FM_HDR_LEN;
	f->sent_pkts = get64(p);
	f->sent_msgs = get64(p + 8);
	f->sent_bytes = get64(p + 16);
	f->src_drops = get64(p + 24);
	f->target_ns = (int64_t)get64(p + 32);
	f->kind = p[40] < TM_KINDS ? p[40] : TM_CBR;
	memcpy(f->name, p + 41, FM_NAME_LEN);
	f->name[FM_NAME_LEN] = '\0';
	f->nflows = get16(p + 57);
	if (!f->nflows || f->nflows > MAX_FLOWS)
		f->nflows = 1;
	return true;
}

/* ---- per-class results, shared by the receiver and the round-trip sender ---- */

/* A flow of a class, as the receiver sees it. */
struct rflow {
	bool seen, have_fin;
	struct fm_fin fin;
	uint64_t next_seq;		/* highest seq + 1 */
	/* the message being reassembled */
	bool cur_valid;
	uint32_t cur_msg;
	uint16_t cur_got, cur_parts;
	uint64_t cur_gen;
};

/* A class: its flows' statistics together. */
struct result {
	bool seen, have_fin;		/* have_fin: from every flow */
	char name[FM_NAME_LEN + 1];
	int kind;
	int64_t target_ns;
	struct fm_fin fin;		/* the flows' end marks added up */
	uint64_t packets, bytes, reordered, late_old;
	int64_t first_rx, last_rx;
	struct ls_stats pkt, msg;
	uint64_t msgs_incomplete;
	double window;			/* in window: within target x (1 +- window) */
	struct rflow *fl;		/* MAX_FLOWS, allocated when first seen */
};

struct output_cfg {
	enum { OUT_TABLE, OUT_JSON, OUT_CSV } fmt;
	const char *file;
	const char *data_dir;
	double window;		/* in_window: message latency within target +- this */
};

static void result_init(struct result *r, int cls)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "class%d", cls);
	r->kind = -1;
	ls_init(&r->pkt, MAX_KEEP, 0);
	ls_init(&r->msg, MAX_KEEP, 0);
}

/*
 * Deadline misses and messages in the window, from the kept message
 * latencies: the receiver learns a class's target only from its end mark,
 * after the samples.  All samples are kept up to MAX_KEEP per class;
 * past that these are the fractions of a uniform pick.
 */
static double result_miss_ratio(const struct result *r)
{
	return r->msg.n ? 1.0 - ls_cdf_at(&r->msg, r->target_ns) : 0.0;
}

static double result_in_window(const struct result *r)
{
	int64_t lo = (int64_t)llround(r->target_ns * (1.0 - r->window));
	int64_t hi = (int64_t)llround(r->target_ns * (1.0 + r->window));

	return r->msg.n ? ls_cdf_at(&r->msg, hi) - ls_cdf_at(&r->msg, lo - 1) : 0.0;
}

static struct rflow *result_flow(struct result *r, unsigned int flow)
{
	if (!r->fl)
		r->fl = xcalloc(MAX_FLOWS, sizeof(*r->fl));
	return &r->fl[flow];
}

static void result_close_msg(struct result *r, struct rflow *f)
{
	if (!f->cur_valid)
		return;
	if (f->cur_got < f->cur_parts)
		r->msgs_incomplete++;
	f->cur_valid = false;
}

/* An end mark of one flow. */
static void result_fin(struct result *r, unsigned int flow, const struct fm_fin *fin)
{
	struct rflow *f = result_flow(r, flow);
	unsigned int i, n = 0;

	if (f->have_fin)
		return;
	f->have_fin = true;
	f->seen = true;
	f->fin = *fin;
	for (i = 0; i < MAX_FLOWS; i++)
		n += r->fl[i].have_fin;
	r->have_fin = n >= fin->nflows;
}

/* One DATA datagram: latency = @rx - send (packet), @rx - gen (message). */
static void result_add(struct result *r, const struct fm_hdr *h, size_t len,
		       int64_t rx, double window)
{
	struct rflow *f = result_flow(r, h->flow);
	int64_t lat;

	if (!r->seen) {
		r->seen = true;
		r->first_rx = rx;
	}
	f->seen = true;
	if (h->seq < f->next_seq) {
		/* older than the newest: reordered, or a duplicate */
		r->reordered++;
	} else {
		f->next_seq = (uint64_t)h->seq + 1;
	}
	r->packets++;
	r->bytes += len;
	r->last_rx = rx;
	ls_add(&r->pkt, rx - (int64_t)h->send_ns);

	if (f->cur_valid && f->cur_msg != h->msg) {
		if ((int32_t)(h->msg - f->cur_msg) < 0) {
			r->late_old++;	/* a part of an earlier message */
			return;
		}
		result_close_msg(r, f);
	}
	if (!f->cur_valid) {
		f->cur_valid = true;
		f->cur_msg = h->msg;
		f->cur_got = 0;
		f->cur_parts = h->parts ? h->parts : 1;
		f->cur_gen = h->gen_ns;
	}
	if (++f->cur_got == f->cur_parts) {
		lat = rx - (int64_t)f->cur_gen;
		ls_add(&r->msg, lat);
		r->window = window;
		f->cur_valid = false;
	}
}

/* Per flow: its end mark's count, else its highest sequence number + 1. */
static uint64_t result_sent(const struct result *r)
{
	uint64_t n = 0;
	int i;

	if (!r->fl)
		return 0;
	for (i = 0; i < MAX_FLOWS; i++)
		n += r->fl[i].have_fin ? r->fl[i].fin.sent_pkts : r->fl[i].next_seq;
	return n;
}

static uint64_t result_lost(const struct result *r)
{
	uint64_t sent = result_sent(r);

	return sent > r->packets ? sent - r->packets : 0;
}

static double result_tput(const struct result *r)
{
	int64_t span = r->last_rx - r->first_rx;

	return span > 0 ? r->bytes * 8e9 / (double)span : 0;
}

static const char *result_kind(const struct result *r)
{
	return r->kind >= 0 ? tm_kind_name(r->kind) : "unknown";
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
			fclose(f);
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
	if (fclose(f)) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int print_results(const struct output_cfg *o, struct result *res,
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
		fflush(stdout);
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

struct progress {
	bool on;
	int64_t start, next;
};

static void progress_init(struct progress *p, int64_t start, bool quiet)
{
	p->on = !quiet && isatty(STDERR_FILENO);
	p->start = start;
	p->next = start + NSEC_PER_SEC;
}

static void progress_show(struct progress *p, int64_t now, double duration_s,
			  const char *what, uint64_t n)
{
	if (!p->on || now < p->next)
		return;
	p->next = now + NSEC_PER_SEC;
	fprintf(stderr, "\r" PROG ": %5.1f / %.1f s  %s %" PRIu64 "   ",
		(now - p->start) / 1e9, duration_s, what, n);
}

static void progress_end(struct progress *p)
{
	if (p->on)
		fputs("\r\033[K", stderr);
}

/* ---- receiving sockets ------------------------------------------------------------ */

struct rx {
	struct mmsghdr mm[RECV_BATCH];
	struct iovec iov[RECV_BATCH];
	struct sockaddr_storage from[RECV_BATCH];
	uint8_t buf[RECV_BATCH][RECV_SNAP];
};

static void rx_prepare(struct rx *rx)
{
	int i;

	for (i = 0; i < RECV_BATCH; i++) {
		rx->iov[i] = (struct iovec){ rx->buf[i], RECV_SNAP };
		rx->mm[i].msg_hdr = (struct msghdr){
			.msg_name = &rx->from[i],
			.msg_namelen = sizeof(rx->from[i]),
			.msg_iov = &rx->iov[i],
			.msg_iovlen = 1,
		};
	}
}

static int open_bound(const struct sockaddr_storage *bind_ss, socklen_t len, bool big_buf)
{
	int one = 1, zero = 0, buf = RCVBUF_BYTES;
	int fd = socket(bind_ss->ss_family, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind_ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (big_buf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (bind(fd, (const struct sockaddr *)bind_ss, len)) {
		fprintf(stderr, PROG ": bind %s port %u: %s\n", addr_str(bind_ss),
			ntohs(((const struct sockaddr_in *)bind_ss)->sin_port), strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

struct listen_cfg {
	struct sockaddr_storage bind;
	socklen_t bind_len;
	uint16_t port, nports;
	double duration_s;
	const char *ready;
	bool quiet;
	int expect;		/* classes whose FIN ends the run; 0: any seen */
	double linger_s;
	struct output_cfg out;
};

static int open_listeners(struct listen_cfg *c, int *fds)
{
	int i;

	for (i = 0; i < c->nports; i++) {
		set_port(&c->bind, (uint16_t)(c->port + i));
		fds[i] = open_bound(&c->bind, c->bind_len, true);
		if (fds[i] < 0)
			return -1;
	}
	if (c->ready) {
		FILE *f = fopen(c->ready, "w");

		if (!f || fputs("ready\n", f) < 0 || fclose(f)) {
			fprintf(stderr, PROG ": --ready %s: %s\n", c->ready, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void send_ack(int fd, const struct sockaddr_storage *to, socklen_t len,
		     const struct fm_hdr *hello, uint8_t status)
{
	uint8_t b[FM_HDR_LEN + 4] = { 0 };
	struct fm_hdr h = *hello;

	h.type = FM_T_ACK;
	hdr_put(b, &h);
	b[FM_HDR_LEN] = status;
	sendto(fd, b, sizeof(b), 0, (const struct sockaddr *)to, len);
}

/* A HELLO: answer it; status 1 when the sender's clock differs from ours. */
static void answer_hello(int fd, struct mmsghdr *m, const uint8_t *p, unsigned int len,
			 const struct fm_hdr *h)
{
	uint8_t clk = len > FM_HDR_LEN ? p[FM_HDR_LEN] : 0;

	send_ack(fd, m->msg_hdr.msg_name, m->msg_hdr.msg_namelen, h,
		 clk == clock_code() ? 0 : 1);
}

/* ---- recv ------------------------------------------------------------------------ */

static int recv_loop(struct listen_cfg *c, int *fds, struct result *res, int64_t start)
{
	static struct rx rx;
	struct pollfd pfd[256];
	int64_t deadline = start + (int64_t)(c->duration_s * NSEC_PER_SEC);
	int64_t all_done = 0, now;
	uint64_t total = 0;
	struct progress prog;
	struct fm_hdr h;
	struct fm_fin fin;
	int i, n, k, fins, seen;

	progress_init(&prog, start, c->quiet);
	rx_prepare(&rx);
	for (i = 0; i < c->nports; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	while (!stop_requested) {
		now = now_ns();
		if (now >= deadline || (all_done && now >= all_done))
			break;
		progress_show(&prog, now, c->duration_s, "datagrams received", total);
		n = poll(pfd, c->nports, 100);
		if (n <= 0)
			continue;
		for (i = 0; i < c->nports; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			for (k = 0; k < RECV_BATCH; k++)
				rx.mm[k].msg_hdr.msg_namelen = sizeof(rx.from[k]);
			n = recvmmsg(fds[i], rx.mm, RECV_BATCH, MSG_TRUNC, NULL);
			if (n <= 0)
				continue;
			now = now_ns();
			for (k = 0; k < n; k++) {
				unsigned int len = rx.mm[k].msg_len;

				if (!hdr_get(rx.buf[k], len, &h))
					continue;
				switch (h.type) {
				case FM_T_DATA:
					result_add(&res[h.cls], &h, len, now, c->out.window);
					total++;
					break;
				case FM_T_HELLO:
					answer_hello(fds[i], &rx.mm[k], rx.buf[k], len, &h);
					break;
				case FM_T_FIN:
					if (!fin_get(rx.buf[k], len, &fin))
						break;
					result_fin(&res[h.cls], h.flow, &fin);
					/* the sender repeats its FIN until answered */
					send_ack(fds[i], rx.mm[k].msg_hdr.msg_name,
						 rx.mm[k].msg_hdr.msg_namelen, &h, 0);
					break;
				default:
					break;
				}
			}
		}
		/* every class that sent something said it is done: linger, stop */
		if (!all_done) {
			fins = seen = 0;
			for (i = 0; i < MAX_CLASSES; i++) {
				fins += res[i].have_fin;
				seen += res[i].seen || res[i].have_fin;
			}
			if (fins && fins == seen && (!c->expect || fins >= c->expect))
				all_done = now_ns() + (int64_t)(c->linger_s * NSEC_PER_SEC);
		}
	}
	progress_end(&prog);
	return 0;
}

/*
 * Results take names, kinds and targets from the sender's end marks, and
 * add up their counts.
 */
static void apply_fins(struct result *res)
{
	struct fm_fin *sum;
	int i, j;

	for (i = 0; i < MAX_CLASSES; i++) {
		struct result *r = &res[i];
		bool named = false;

		if (!r->fl)
			continue;
		sum = &r->fin;
		for (j = 0; j < MAX_FLOWS; j++) {
			struct rflow *f = &r->fl[j];

			result_close_msg(r, f);
			if (!f->have_fin)
				continue;
			if (!named && f->fin.name[0]) {
				snprintf(r->name, sizeof(r->name), "%s", f->fin.name);
				r->kind = f->fin.kind;
				r->target_ns = f->fin.target_ns;
				named = true;
			}
			sum->sent_pkts += f->fin.sent_pkts;
			sum->sent_msgs += f->fin.sent_msgs;
			sum->sent_bytes += f->fin.sent_bytes;
			sum->src_drops += f->fin.src_drops;
		}
	}
}

/* ---- common listener options ---------------------------------------------------- */

enum {
	OPT_BIND = 256, OPT_PORT, OPT_PORTS, OPT_DURATION, OPT_READY, OPT_JSON,
	OPT_CSV, OPT_OUT, OPT_DATA, OPT_QUIET, OPT_CLOCK, OPT_EXPECT, OPT_LINGER,
	OPT_DST, OPT_CLASS, OPT_CLASS_BASE, OPT_SEED, OPT_RTT, OPT_WAIT, OPT_WINDOW, OPT_TRACE_CHECK,
};

static int option_error(int o, char **argv)
{
	if (o == '?')
		return usage_error("unknown option '%s'", argv[optind - 1]);
	if (o == ':')
		return usage_error("option '%s' needs a value", argv[optind - 1]);
	return usage_error("unexpected option '%s'", argv[optind - 1]);
}

/* Options the roles share; 1 if @o was one of them, <0 on error (exit code). */
static int common_option(int o, const char *arg, struct output_cfg *out, bool *quiet)
{
	double d;
	int ret;

	switch (o) {
	case OPT_JSON:
		out->fmt = OUT_JSON;
		return 1;
	case OPT_CSV:
		out->fmt = OUT_CSV;
		return 1;
	case OPT_OUT:
		out->file = arg;
		return 1;
	case OPT_DATA:
		out->data_dir = arg;
		return 1;
	case OPT_QUIET:
		*quiet = true;
		return 1;
	case OPT_CLOCK:
		ret = set_clock(arg);
		return ret ? -ret : 1;
	case OPT_WINDOW:
		if (!parse_double(arg, 0, 1, &d))
			return -usage_error("invalid --window '%s': want a fraction 0 .. 1", arg);
		out->window = d;
		return 1;
	default:
		return 0;
	}
}

static int parse_listen_args(int argc, char **argv, struct listen_cfg *c, bool is_recv)
{
	static const struct option opts[] = {
		{ "bind",     required_argument, NULL, OPT_BIND },
		{ "port",     required_argument, NULL, OPT_PORT },
		{ "ports",    required_argument, NULL, OPT_PORTS },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "ready",    required_argument, NULL, OPT_READY },
		{ "json",     no_argument,	 NULL, OPT_JSON },
		{ "csv",      no_argument,	 NULL, OPT_CSV },
		{ "output",   required_argument, NULL, OPT_OUT },
		{ "data",     required_argument, NULL, OPT_DATA },
		{ "quiet",    no_argument,	 NULL, OPT_QUIET },
		{ "clock",    required_argument, NULL, OPT_CLOCK },
		{ "expect",   required_argument, NULL, OPT_EXPECT },
		{ "linger",   required_argument, NULL, OPT_LINGER },
		{ "window",   required_argument, NULL, OPT_WINDOW },
		{ "help",     no_argument,	 NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *bind_addr = "::";
	bool have_duration = false;
	uint64_t v;
	int o, ret;

	*c = (struct listen_cfg){ .port = DEFAULT_PORT, .nports = 1, .linger_s = 0.2,
				  .out.window = 0.1 };
	while ((o = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		if (o == 'q')
			o = OPT_QUIET;
		ret = common_option(o, optarg, &c->out, &c->quiet);
		if (ret < 0)
			return -ret;
		if (ret)
			continue;
		switch (o) {
		case OPT_BIND:
			bind_addr = optarg;
			break;
		case OPT_PORT:
			if (!parse_u64(optarg, 10, 65535, &v) || !v)
				return usage_error("invalid --port '%s': want 1 .. 65535", optarg);
			c->port = (uint16_t)v;
			break;
		case OPT_PORTS:
			if (!parse_u64(optarg, 10, 256, &v) || !v)
				return usage_error("invalid --ports '%s': want 1 .. 256", optarg);
			c->nports = (uint16_t)v;
			break;
		case OPT_DURATION:
			if (!parse_double(optarg, 0, MAX_DURATION_S, &c->duration_s) ||
			    c->duration_s <= 0)
				return usage_error("invalid --duration '%s': want seconds, > 0 and <= 3600", optarg);
			have_duration = true;
			break;
		case OPT_READY:
			c->ready = optarg;
			break;
		case OPT_EXPECT:
			if (!parse_u64(optarg, 10, MAX_CLASSES, &v))
				return usage_error("invalid --expect '%s': want 0 .. 64 classes", optarg);
			c->expect = (int)v;
			break;
		case OPT_LINGER:
			if (!parse_double(optarg, 0, 60, &c->linger_s))
				return usage_error("invalid --linger '%s': want seconds 0 .. 60", optarg);
			break;
		case 'h':
			return -1;
		default:
			return option_error(o, argv);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!have_duration)
		return usage_error("%s: --duration is required, so the run ends by itself",
				   is_recv ? "recv" : "reflect");
	if ((unsigned int)c->port + c->nports - 1 > 65535)
		return usage_error("--port + --ports go past port 65535");
	if (resolve(bind_addr, c->port, &c->bind, &c->bind_len))
		return EXIT_USAGE;
	return 0;
}

static void usage(FILE *f);

static int cmd_recv(int argc, char **argv)
{
	static struct result res[MAX_CLASSES];
	struct listen_cfg c;
	int fds[256], i, ret;
	int64_t start, end;
	uint64_t total = 0;

	ret = parse_listen_args(argc, argv, &c, true);
	if (ret < 0) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return ret;
	if (open_listeners(&c, fds))
		return 1;
	for (i = 0; i < MAX_CLASSES; i++)
		result_init(&res[i], i);
	catch_signals(c.duration_s);
	start = now_ns();
	recv_loop(&c, fds, res, start);
	end = now_ns();
	for (i = 0; i < c.nports; i++)
		close(fds[i]);
	apply_fins(res);
	for (i = 0; i < MAX_CLASSES; i++)
		total += res[i].packets;
	ret = print_results(&c.out, res, "recv", "oneway", (end - start) / 1e9);
	if (ret)
		return ret;
	if (!total) {
		fprintf(stderr, PROG ": nothing received on port %u%s\n", c.port,
			c.nports > 1 ? " and up" : "");
		return 1;
	}
	return 0;
}

/* ---- reflect ----------------------------------------------------------------------- */

static int cmd_reflect(int argc, char **argv)
{
	static struct rx rx;
	struct listen_cfg c;
	struct pollfd pfd[256];
	int fds[256], i, k, n, ret;
	int64_t start, deadline, now;
	uint64_t echoed = 0;
	struct progress prog;
	struct fm_hdr h;

	ret = parse_listen_args(argc, argv, &c, false);
	if (ret < 0) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return ret;
	if (open_listeners(&c, fds))
		return 1;
	catch_signals(c.duration_s);
	start = now_ns();
	deadline = start + (int64_t)(c.duration_s * NSEC_PER_SEC);
	progress_init(&prog, start, c.quiet);
	rx_prepare(&rx);
	for (i = 0; i < c.nports; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	while (!stop_requested && (now = now_ns()) < deadline) {
		progress_show(&prog, now, c.duration_s, "datagrams echoed", echoed);
		if (poll(pfd, c.nports, 100) <= 0)
			continue;
		for (i = 0; i < c.nports; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			/* whole datagrams: the echo has the size of the original */
			for (k = 0; k < RECV_BATCH; k++)
				rx.mm[k].msg_hdr.msg_namelen = sizeof(rx.from[k]);
			n = recvmmsg(fds[i], rx.mm, RECV_BATCH, MSG_TRUNC, NULL);
			now = now_ns();
			for (k = 0; k < n; k++) {
				unsigned int len = rx.mm[k].msg_len;
				static uint8_t out[MAX_SEG];

				if (!hdr_get(rx.buf[k], len, &h))
					continue;
				if (h.type == FM_T_HELLO) {
					answer_hello(fds[i], &rx.mm[k], rx.buf[k], len, &h);
					continue;
				}
				if (h.type != FM_T_DATA || len > MAX_SEG)
					continue;
				h.type = FM_T_ECHO;
				h.echo_ns = (uint64_t)now;
				memset(out, 0, len);
				hdr_put(out, &h);
				if (sendto(fds[i], out, len, 0, rx.mm[k].msg_hdr.msg_name,
					   rx.mm[k].msg_hdr.msg_namelen) == (ssize_t)len)
					echoed++;
			}
		}
	}
	progress_end(&prog);
	for (i = 0; i < c.nports; i++)
		close(fds[i]);
	if (c.out.fmt == OUT_JSON)
		printf("{\"tool\":\"" PROG "\",\"role\":\"reflect\",\"echoed\":%" PRIu64 "}\n", echoed);
	else
		printf("reflect: echoed %" PRIu64 " datagrams\n", echoed);
	return 0;
}

/* ---- send ---------------------------------------------------------------------------- */

struct pending {
	int64_t gen;		/* absolute generation time */
	uint32_t size, msg;
};

struct sclass {
	/* configuration */
	char name[FM_NAME_LEN + 1];
	struct tm_params tp;
	struct tm_trace trace;
	uint32_t seg;		/* datagram size, header included */
	uint32_t prio;
	bool have_prio;
	int dscp;		/* -1: unset */
	uint64_t pacing;	/* bytes/s, 0: unset */
	int64_t target_ns;
	int64_t txtime_ns;	/* SO_TXTIME frame latency, 0: off */
	uint16_t port;		/* 0: --port */
	uint8_t id, flow;	/* class id on the wire, flow in the class */
	uint8_t idx;		/* the --class it came from: this sender's results */
	bool have_dst;		/* dst= : its own destination, in dst */
	bool have_id;		/* id= : its own class id */
	uint16_t nflows;	/* this sender's flows of the class */
	uint16_t first_flow;	/* flow= : the first of them */
	uint16_t all_flows;	/* allflows= : of every sender, for the FIN */
	double offset_ns;	/* the flow's first message is this much later */
	/* state */
	struct tm_model model;
	int fd;
	struct sockaddr_storage dst;
	socklen_t dst_len;
	int64_t next_gen;	/* the next message: generation time, size */
	uint32_t next_size;
	bool gen_done;
	struct pending q[PENDING_MAX];
	unsigned int qhead, qlen;
	uint16_t part;		/* next part of q[qhead] */
	bool blocked;
	struct edf_frame_clock edf;
	uint32_t seq, msgs;
	uint64_t sent_pkts, sent_bytes, sent_msgs, src_drops, unsent, errors;
};

struct send_cfg {
	struct sockaddr_storage dst;
	socklen_t dst_len;
	const char *dst_name;
	uint16_t port;
	double duration_s, wait_s;
	uint64_t seed;
	bool have_seed, rtt, quiet;
	int nclasses;		/* flows of all classes: one socket each */
	int nspecs;		/* --class options */
	int class_base;		/* --class-base: id of the first class */
	struct sclass *cls[MAX_FLOWS];
	struct output_cfg out;
};

/* Defaults by kind: Table 1 sizes; multimedia targets 10 ms. */
static void class_defaults(struct sclass *s, enum tm_kind kind)
{
	memset(s, 0, sizeof(*s));
	tm_params_default(&s->tp, kind);
	s->seg = DEFAULT_SEG;
	s->nflows = 1;
	s->dscp = -1;
	s->fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", tm_kind_name(kind));
}

static int class_error(const char *spec, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": --class '%s': ", spec);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	return EXIT_USAGE;
}

/* KIND[,key=value]...: see usage() and Documentation/fabric-meter.rst. */
static int parse_class(const char *spec, struct sclass *s)
{
	char buf[512], *tok, *save = NULL, *val;
	double d;
	uint64_t v;
	int kind;
	FILE *f;
	char err[256];
	const char *trace = NULL;

	if (strlen(spec) >= sizeof(buf))
		return class_error(spec, "too long");
	strcpy(buf, spec);
	tok = strtok_r(buf, ",", &save);
	kind = tok ? tm_kind_parse(tok) : -1;
	if (kind < 0)
		return class_error(spec, "want KIND first: control, multimedia, besteffort, background or cbr");
	class_defaults(s, kind);
	if (kind == TM_MULTIMEDIA)
		s->target_ns = 10 * 1000000LL;
	while ((tok = strtok_r(NULL, ",", &save))) {
		val = strchr(tok, '=');
		if (!val)
			return class_error(spec, "want key=value, got '%s'", tok);
		*val++ = '\0';
		if (!strcmp(tok, "name")) {
			if (!*val || strlen(val) > FM_NAME_LEN || strspn(val,
			    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != strlen(val))
				return class_error(spec, "name: 1 .. 16 of [A-Za-z0-9_.-]");
			strcpy(s->name, val);
		} else if (!strcmp(tok, "rate")) {
			if (!parse_with_unit(val, rate_units, 1, &d) || d < 1000 || d > 400e9)
				return class_error(spec, "rate: want bit/s 1kbit .. 400gbit (suffixes k, m, g)");
			s->tp.rate_bps = d;
		} else if (!strcmp(tok, "min") || !strcmp(tok, "max") || !strcmp(tok, "size")) {
			if (!parse_with_unit(val, size_units, 1, &d) || d < FM_HDR_LEN || d > 16 << 20)
				return class_error(spec, "%s: want bytes 48 .. 16M", tok);
			if (strcmp(tok, "max"))		/* min, size */
				s->tp.min_size = (uint32_t)d;
			if (strcmp(tok, "min"))		/* max, size */
				s->tp.max_size = (uint32_t)d;
		} else if (!strcmp(tok, "interval")) {
			if (!parse_with_unit(val, time_units, 1e3, &d) || d < 1e3 || d > 10e9)
				return class_error(spec, "interval: want 1us .. 10s (bare number: us)");
			s->tp.interval_ns = d;
		} else if (!strcmp(tok, "trace")) {
			trace = val;
		} else if (!strcmp(tok, "alpha")) {
			if (!parse_double(val, 0.01, 10, &s->tp.alpha))
				return class_error(spec, "alpha: want 0.01 .. 10");
		} else if (!strcmp(tok, "burst")) {
			if (!parse_double(val, 1, 1e6, &s->tp.burst_mean))
				return class_error(spec, "burst: want 1 .. 1000000 messages");
		} else if (!strcmp(tok, "seg")) {
			if (!parse_u64(val, 10, MAX_SEG, &v) || v < FM_HDR_LEN)
				return class_error(spec, "seg: want 48 .. 65507 bytes");
			s->seg = (uint32_t)v;
		} else if (!strcmp(tok, "prio")) {
			if (!parse_prio(val, &v))
				return class_error(spec, "prio: want a 32-bit number or MAJ:MIN");
			s->prio = (uint32_t)v;
			s->have_prio = true;
		} else if (!strcmp(tok, "dscp")) {
			if (!parse_u64(val, 0, 63, &v))
				return class_error(spec, "dscp: want 0 .. 63");
			s->dscp = (int)v;
		} else if (!strcmp(tok, "pacing")) {
			if (!parse_with_unit(val, rate_units, 1, &d) || d < 8 || d > 400e9)
				return class_error(spec, "pacing: want bit/s 8 .. 400gbit");
			s->pacing = (uint64_t)(d / 8);
		} else if (!strcmp(tok, "target")) {
			if (!parse_with_unit(val, time_units, 1e3, &d) || d > 100e9)
				return class_error(spec, "target: want a time, 0 .. 100s (bare number: us)");
			s->target_ns = (int64_t)d;
		} else if (!strcmp(tok, "txtime")) {
			if (!parse_with_unit(val, time_units, 1e3, &d) || d < 1e3 || d > 10e9)
				return class_error(spec, "txtime: want a frame latency 1us .. 10s");
			s->txtime_ns = (int64_t)d;
		} else if (!strcmp(tok, "port")) {
			if (!parse_u64(val, 10, 65535, &v) || !v)
				return class_error(spec, "port: want 1 .. 65535");
			s->port = (uint16_t)v;
		} else if (!strcmp(tok, "dst")) {
			if (!*val || resolve(val, 0, &s->dst, &s->dst_len))
				return class_error(spec, "dst: want an IPv4 or IPv6 address");
			s->have_dst = true;
		} else if (!strcmp(tok, "id")) {
			if (!parse_u64(val, 10, MAX_CLASSES - 1, &v))
				return class_error(spec, "id: want 0 .. %d", MAX_CLASSES - 1);
			s->id = (uint8_t)v;
			s->have_id = true;
		} else if (!strcmp(tok, "flows")) {
			if (!parse_u64(val, 10, MAX_FLOWS, &v) || !v)
				return class_error(spec, "flows: want 1 .. 256");
			s->nflows = (uint16_t)v;
		} else if (!strcmp(tok, "flow")) {
			if (!parse_u64(val, 10, MAX_FLOWS - 1, &v))
				return class_error(spec, "flow: want 0 .. 255");
			s->first_flow = (uint16_t)v;
		} else if (!strcmp(tok, "allflows")) {
			if (!parse_u64(val, 10, MAX_FLOWS, &v) || !v)
				return class_error(spec, "allflows: want 1 .. 256");
			s->all_flows = (uint16_t)v;
		} else if (!strcmp(tok, "seed")) {
			if (!parse_u64(val, 0, UINT64_MAX, &v))
				return class_error(spec, "seed: want an unsigned number");
			s->tp.seed = v;
		} else {
			return class_error(spec, "unknown key '%s'", tok);
		}
	}
	if (!(s->tp.rate_bps > 0))
		return class_error(spec, "rate= is required");
	if (s->tp.min_size > s->tp.max_size)
		return class_error(spec, "min is above max");
	if (trace) {
		if (kind != TM_MULTIMEDIA)
			return class_error(spec, "trace= is for multimedia");
		f = fopen(trace, "r");
		if (!f)
			return class_error(spec, "trace %s: %s", trace, strerror(errno));
		if (tm_trace_parse(f, trace, &s->trace, err, sizeof(err))) {
			fclose(f);
			return class_error(spec, "%s", err);
		}
		fclose(f);
		s->tp.trace = &s->trace;
	}
	if (s->txtime_ns && kind != TM_MULTIMEDIA)
		return class_error(spec, "txtime= is for multimedia frames");
	/* flow ids are one byte on the wire */
	if (s->first_flow + s->nflows > MAX_FLOWS)
		return class_error(spec, "flow=%u with flows=%u: ids above 255",
				   s->first_flow, s->nflows);
	if (!s->all_flows)
		s->all_flows = (uint16_t)(s->first_flow + s->nflows);
	if (s->all_flows < s->first_flow + s->nflows)
		return class_error(spec, "allflows=%u is fewer than flow= + flows= (%u)",
				   s->all_flows, s->first_flow + s->nflows);
	return 0;
}

static int open_class_socket(struct send_cfg *c, struct sclass *s)
{
	int fd, tos, one = 1;
	struct sockaddr_storage any;

	if (!s->have_dst) {
		s->dst = c->dst;
		s->dst_len = c->dst_len;
	}
	any = (struct sockaddr_storage){ .ss_family = s->dst.ss_family };
	fd = socket(s->dst.ss_family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	if (s->have_prio &&
	    setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &s->prio, sizeof(s->prio))) {
		fprintf(stderr, PROG ": class %s: SO_PRIORITY %#x: %s%s\n", s->name, s->prio,
			strerror(errno), errno == EPERM ? " (above 6 needs CAP_NET_ADMIN)" : "");
		goto fail;
	}
	if (s->dscp >= 0) {
		tos = s->dscp << 2;
		if (s->dst.ss_family == AF_INET6 ?
		    setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)) :
		    setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos))) {
			fprintf(stderr, PROG ": class %s: DSCP %d: %s\n", s->name, s->dscp,
				strerror(errno));
			goto fail;
		}
	}
	if (s->pacing &&
	    setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &s->pacing, sizeof(s->pacing))) {
		fprintf(stderr, PROG ": class %s: SO_MAX_PACING_RATE: %s\n", s->name, strerror(errno));
		goto fail;
	}
	if (s->txtime_ns && edf_txtime_enable(fd)) {
		fprintf(stderr, PROG ": class %s: SO_TXTIME: %s\n", s->name, strerror(errno));
		goto fail;
	}
	if (c->rtt) {
		int buf = RCVBUF_BYTES;

		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	}
	/* bound, so echoes find us and ICMP errors are not reported per send */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&any, s->dst_len)) {
		fprintf(stderr, PROG ": bind: %s\n", strerror(errno));
		goto fail;
	}
	set_port(&s->dst, s->port ? s->port : c->port);
	s->fd = fd;
	return 0;
fail:
	close(fd);
	return -1;
}

/*
 * Is anyone there?  HELLO on a connected socket every 100 ms until an
 * ACK, for --wait seconds.  A connected socket sees ICMP errors: a port
 * nobody listens on is refused at once.
 */
static int probe_peer(struct send_cfg *c, const struct sockaddr_storage *to, socklen_t len)
{
	struct sockaddr_storage dst = *to;
	uint16_t port = get_port(to);
	uint8_t b[FM_HDR_LEN + 4] = { 0 }, in[FM_HDR_LEN + 4];
	struct fm_hdr h = { .type = FM_T_HELLO };
	int64_t end = now_ns() + (int64_t)(c->wait_s * NSEC_PER_SEC);
	struct pollfd pfd;
	int fd, err = 0;
	ssize_t n;

	fd = socket(dst.ss_family, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&dst, len)) {
		err = errno;
		goto out;
	}
	hdr_put(b, &h);
	b[FM_HDR_LEN] = clock_code();
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (!stop_requested && now_ns() < end) {
		if (send(fd, b, sizeof(b), 0) < 0 && errno != ECONNREFUSED) {
			err = errno;
			if (err != ENOBUFS && err != EAGAIN)
				goto out;
		}
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(fd, in, sizeof(in), 0);
		if (n < 0) {
			err = errno;	/* ECONNREFUSED: keep trying until --wait */
			continue;
		}
		if (!hdr_get(in, n, &h) || h.type != FM_T_ACK)
			continue;
		close(fd);
		if (n > FM_HDR_LEN && in[FM_HDR_LEN]) {
			fprintf(stderr, PROG ": the peer at %s port %u measures on another clock; give both ends the same --clock\n",
				addr_str(&dst), port);
			return EXIT_PEER;
		}
		return 0;
	}
out:
	if (fd >= 0)
		close(fd);
	if (stop_requested)
		return 1;
	fprintf(stderr, PROG ": no answer from %s port %u within %.1f s%s%s%s\n",
		addr_str(&dst), port, c->wait_s, err ? " (" : "",
		err ? strerror(err) : "", err ? ")" : "");
	fprintf(stderr, PROG ": is '" PROG " %s --port %u' running there and the path up?\n",
		c->rtt ? "reflect" : "recv", port);
	return EXIT_PEER;
}

static bool same_dst(const struct sclass *a, const struct sclass *b)
{
	return a->dst_len == b->dst_len && !memcmp(&a->dst, &b->dst, a->dst_len);
}

static uint8_t send_buf[MAX_SEG];

static int send_part(struct sclass *s, int cls, const struct pending *p, uint16_t parts,
		     int64_t *now)
{
	union {
		char buf[EDF_TXTIME_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
	uint32_t len = s->seg;
	struct fm_hdr h;
	struct iovec iov;
	struct msghdr m = { 0 };
	uint64_t d;

	if (s->part == parts - 1)
		len = p->size - (uint32_t)(parts - 1) * s->seg;
	if (len < FM_HDR_LEN)
		len = FM_HDR_LEN;
	*now = now_ns();
	h = (struct fm_hdr){
		.type = FM_T_DATA, .cls = s->id, .flow = s->flow, .seq = s->seq, .msg = p->msg,
		.part = s->part, .parts = parts, .size = p->size,
		.gen_ns = (uint64_t)p->gen, .send_ns = (uint64_t)*now,
	};
	hdr_put(send_buf, &h);
	iov = (struct iovec){ send_buf, len };
	m.msg_name = &s->dst;
	m.msg_namelen = s->dst_len;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (s->txtime_ns) {
		m.msg_control = ctl.buf;
		m.msg_controllen = 0;
		d = edf_frame_next_deadline(&s->edf, edf_now_ns(), (uint64_t)s->txtime_ns, parts);
		edf_txtime_cmsg_append(&m, d);
	}
	if (sendmsg(s->fd, &m, 0) < 0) {
		if (errno == EAGAIN || errno == ENOBUFS)
			return 1;	/* full: wait for room */
		s->errors++;
		return -1;
	}
	s->seq++;
	s->sent_pkts++;
	s->sent_bytes += len;
	return 0;
}

/* Send what is pending until the socket is full; returns -1 on a hard error. */
static int class_flush(struct sclass *s, int cls)
{
	struct pending *p;
	uint16_t parts;
	int64_t now;
	int ret;

	while (s->qlen) {
		p = &s->q[s->qhead];
		parts = (uint16_t)((p->size + s->seg - 1) / s->seg);
		ret = send_part(s, cls, p, parts, &now);
		if (ret > 0) {
			s->blocked = true;
			return 0;
		}
		if (ret < 0) {
			fprintf(stderr, PROG ": class %s: send to %s: %s\n", s->name,
				addr_str(&s->dst), strerror(errno));
			return -1;
		}
		if (++s->part == parts) {
			s->part = 0;
			s->sent_msgs++;
			s->qhead = (s->qhead + 1) % PENDING_MAX;
			s->qlen--;
		}
	}
	s->blocked = false;
	return 0;
}

/* Messages generated up to @now join the class's queue (or are dropped). */
static void class_generate(struct sclass *s, int64_t start, int64_t now, int64_t end)
{
	struct tm_msg msg;

	while (!s->gen_done && s->next_gen <= now) {
		if (s->qlen == PENDING_MAX) {
			s->src_drops++;
		} else {
			s->q[(s->qhead + s->qlen) % PENDING_MAX] = (struct pending){
				.gen = s->next_gen, .size = s->next_size, .msg = s->msgs,
			};
			s->qlen++;
		}
		s->msgs++;
		tm_model_next(&s->model, &msg);
		s->next_gen = start + (int64_t)(s->offset_ns + msg.at_ns);
		s->next_size = msg.size;
		if (s->next_gen >= end)
			s->gen_done = true;
	}
}

static void drain_echoes(struct send_cfg *c, struct result *res);

/*
 * Wait @ns; in round-trip mode read echoes meanwhile, as they come, so
 * their receive times are not those of a later read.
 */
static void wait_reading(struct send_cfg *c, struct result *res, int64_t ns)
{
	int64_t until = now_ns() + ns, left;
	struct pollfd pfd[MAX_FLOWS];
	struct timespec ts;
	int i;

	for (i = 0; i < c->nclasses; i++)
		pfd[i] = (struct pollfd){ .fd = c->cls[i]->fd, .events = POLLIN };
	while ((left = until - now_ns()) > 0) {
		ts = (struct timespec){ left / NSEC_PER_SEC, left % NSEC_PER_SEC };
		if (!c->rtt) {
			nanosleep(&ts, NULL);
			continue;
		}
		if (ppoll(pfd, c->nclasses, &ts, NULL) > 0)
			drain_echoes(c, res);
	}
}

static void send_fin(const struct sclass *s)
{
	uint8_t b[FM_FIN_LEN] = { 0 };
	struct fm_hdr h = {
		.type = FM_T_FIN, .cls = s->id, .flow = s->flow, .seq = s->seq,
		.send_ns = (uint64_t)now_ns(),
	};
	struct fm_fin f = {
		.sent_pkts = s->sent_pkts, .sent_msgs = s->sent_msgs,
		.sent_bytes = s->sent_bytes, .src_drops = s->src_drops,
		.target_ns = s->target_ns, .kind = (uint8_t)s->tp.kind,
		.nflows = s->all_flows,
	};

	hdr_put(b, &h);
	memcpy(f.name, s->name, FM_NAME_LEN);
	fin_put(b, &f);
	/* a full socket or a lost datagram: the next round sends it again */
	sendto(s->fd, b, sizeof(b), 0, (const struct sockaddr *)&s->dst, s->dst_len);
}

/* Reads the answers waiting on @s's socket; true once one is to its FIN. */
static bool fin_answered(const struct sclass *s)
{
	uint8_t in[FM_HDR_LEN + 4];
	struct fm_hdr h;
	bool yes = false;
	ssize_t n;

	while ((n = recv(s->fd, in, sizeof(in), MSG_DONTWAIT)) >= 0 ||
	       errno == ECONNREFUSED)
		if (n >= 0 && hdr_get(in, (unsigned int)n, &h) && h.type == FM_T_ACK &&
		    h.cls == s->id && h.flow == s->flow)
			yes = true;
	return yes;
}

/*
 * End marks.  The receiver names a class, and ends the run, only with
 * every flow's FIN, so each flow sends its FIN until the receiver answers
 * it (every FIN_GAP_NS, for at most --wait): at the end of a run a FIN
 * can meet a full socket (the class's queue is long) or be dropped on
 * the path like any datagram.  The first goes FIN_GAP_NS after the last
 * data so short queues drain first.  Round trips need none: the sender
 * measures them itself, and a reflector would not answer.
 */
static void send_fins(struct send_cfg *c, struct result *res)
{
	int64_t until = now_ns() + FIN_GAP_NS + (int64_t)(c->wait_s * NSEC_PER_SEC);
	int64_t now, next = 0;
	bool answered[MAX_FLOWS] = { false };
	struct pollfd pfd[MAX_FLOWS];
	int i, n, left = c->nclasses;

	wait_reading(c, res, FIN_GAP_NS);
	if (c->rtt)
		return;
	while (left && !stop_requested) {
		/* a round of FINs every FIN_GAP_NS, not at every answer */
		now = now_ns();
		if (now >= next) {
			for (i = 0; i < c->nclasses; i++)
				if (!answered[i])
					send_fin(c->cls[i]);
			if (now >= until)
				break;
			next = now + FIN_GAP_NS;
		}
		for (i = n = 0; i < c->nclasses; i++)
			if (!answered[i])
				pfd[n++] = (struct pollfd){ .fd = c->cls[i]->fd, .events = POLLIN };
		poll(pfd, n, (int)((next - now + 999999) / 1000000));
		for (i = 0; i < c->nclasses; i++)
			if (!answered[i] && fin_answered(c->cls[i])) {
				answered[i] = true;
				left--;
			}
	}
	for (i = 0; i < c->nclasses && left; i++)
		if (!answered[i])
			fprintf(stderr, PROG ": class %s flow %u: the receiver did not answer its end mark within %.1f s\n",
				c->cls[i]->name, c->cls[i]->flow, c->wait_s);
}

/* Round trip: drain echoes from every class socket into @res. */
static void drain_echoes(struct send_cfg *c, struct result *res)
{
	static struct rx rx;
	static bool prepared;
	struct fm_hdr h;
	int i, k, n;
	int64_t now;

	if (!prepared) {
		rx_prepare(&rx);
		prepared = true;
	}
	for (i = 0; i < c->nclasses; i++) {
		struct sclass *s = c->cls[i];

		do {
			for (k = 0; k < RECV_BATCH; k++)
				rx.mm[k].msg_hdr.msg_namelen = sizeof(rx.from[k]);
			n = recvmmsg(s->fd, rx.mm, RECV_BATCH, MSG_TRUNC, NULL);
			now = now_ns();
			for (k = 0; k < n; k++) {
				if (!hdr_get(rx.buf[k], rx.mm[k].msg_len, &h) ||
				    h.type != FM_T_ECHO || h.cls != s->id || h.flow != s->flow)
					continue;
				result_add(&res[s->idx], &h, rx.mm[k].msg_len, now, c->out.window);
			}
		} while (n == RECV_BATCH);
	}
}

static int send_loop(struct send_cfg *c, struct result *res, int64_t start)
{
	int64_t end = start + (int64_t)(c->duration_s * NSEC_PER_SEC);
	int64_t now, wake, t;
	struct pollfd pfd[MAX_CLASSES];
	struct progress prog;
	struct timespec ts;
	uint64_t sent;
	int i, n;

	progress_init(&prog, start, c->quiet);
	while (!stop_requested && (now = now_ns()) < end) {
		wake = end;
		sent = 0;
		for (i = 0; i < c->nclasses; i++) {
			struct sclass *s = c->cls[i];

			class_generate(s, start, now, end);
			if (!s->blocked && s->qlen && class_flush(s, i))
				return 1;
			if (!s->gen_done && s->next_gen < wake)
				wake = s->next_gen;
			sent += s->sent_pkts;
		}
		if (c->rtt)
			drain_echoes(c, res);
		progress_show(&prog, now, c->duration_s, "datagrams sent", sent);
		n = 0;
		for (i = 0; i < c->nclasses; i++) {
			struct sclass *s = c->cls[i];
			short ev = (s->blocked ? POLLOUT : 0) | (c->rtt ? POLLIN : 0);

			if (ev)
				pfd[n++] = (struct pollfd){ .fd = s->fd, .events = ev };
		}
		now = now_ns();
		if (wake <= now)
			continue;
		t = wake - now;
		ts = (struct timespec){ t / NSEC_PER_SEC, t % NSEC_PER_SEC };
		if (ppoll(pfd, n, &ts, NULL) > 0) {
			for (i = 0; i < c->nclasses; i++)
				c->cls[i]->blocked = false;	/* try again */
		}
	}
	progress_end(&prog);
	/* what is still queued at the end is not sent */
	for (i = 0; i < c->nclasses; i++) {
		c->cls[i]->unsent = c->cls[i]->qlen;
		c->cls[i]->qlen = 0;
	}
	return 0;
}

/*
 * A class of N flows is N sockets, each with rate / N.  Multimedia flows
 * start their frames interval / N apart and at different places of the
 * group of pictures (or trace), so their big frames do not coincide.
 */
static int add_class(struct send_cfg *c, const char *spec)
{
	struct sclass *t = xcalloc(1, sizeof(*t)), *s;
	int ret, j;

	ret = parse_class(spec, t);
	if (ret) {
		free(t);
		return ret;
	}
	if (c->nclasses + t->nflows > MAX_FLOWS) {
		free(t);
		return usage_error("at most %d flows in all classes", MAX_FLOWS);
	}
	t->idx = (uint8_t)c->nspecs;
	if (!t->have_id)
		t->id = (uint8_t)c->nspecs;
	t->tp.rate_bps /= t->nflows;
	for (j = 0; j < t->nflows; j++) {
		s = t;
		if (j) {
			s = xcalloc(1, sizeof(*s));
			*s = *t;
			s->tp.trace = t->tp.trace ? &t->trace : NULL;
		}
		/* flow ids, and the multimedia flows' spread over the frame
		 * interval, count across every sender of the class */
		s->flow = (uint8_t)(t->first_flow + j);
		if (t->tp.kind == TM_MULTIMEDIA) {
			s->offset_ns = t->tp.interval_ns * s->flow / t->all_flows;
			s->tp.phase = (unsigned int)s->flow * 5;
		}
		c->cls[c->nclasses++] = s;
	}
	c->nspecs++;
	return 0;
}

static int parse_send_args(int argc, char **argv, struct send_cfg *c)
{
	static const struct option opts[] = {
		{ "dst",      required_argument, NULL, OPT_DST },
		{ "port",     required_argument, NULL, OPT_PORT },
		{ "class",    required_argument, NULL, OPT_CLASS },
		{ "class-base", required_argument, NULL, OPT_CLASS_BASE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "seed",     required_argument, NULL, OPT_SEED },
		{ "rtt",      no_argument,	 NULL, OPT_RTT },
		{ "wait",     required_argument, NULL, OPT_WAIT },
		{ "json",     no_argument,	 NULL, OPT_JSON },
		{ "csv",      no_argument,	 NULL, OPT_CSV },
		{ "output",   required_argument, NULL, OPT_OUT },
		{ "data",     required_argument, NULL, OPT_DATA },
		{ "quiet",    no_argument,	 NULL, OPT_QUIET },
		{ "clock",    required_argument, NULL, OPT_CLOCK },
		{ "window",   required_argument, NULL, OPT_WINDOW },
		{ "help",     no_argument,	 NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_dst = false, have_duration = false;
	const char *dst = NULL;
	uint64_t v;
	int o, ret;

	*c = (struct send_cfg){ .port = DEFAULT_PORT, .wait_s = 2, .out.window = 0.1 };
	while ((o = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		if (o == 'q')
			o = OPT_QUIET;
		ret = common_option(o, optarg, &c->out, &c->quiet);
		if (ret < 0)
			return -ret;
		if (ret)
			continue;
		switch (o) {
		case OPT_DST:
			dst = optarg;
			have_dst = true;
			break;
		case OPT_PORT:
			if (!parse_u64(optarg, 10, 65535, &v) || !v)
				return usage_error("invalid --port '%s': want 1 .. 65535", optarg);
			c->port = (uint16_t)v;
			break;
		case OPT_CLASS:
			if (c->nspecs == MAX_CLASSES)
				return usage_error("at most %d classes", MAX_CLASSES);
			ret = add_class(c, optarg);
			if (ret)
				return ret;
			break;
		case OPT_DURATION:
			if (!parse_double(optarg, 0, MAX_DURATION_S, &c->duration_s) ||
			    c->duration_s <= 0)
				return usage_error("invalid --duration '%s': want seconds, > 0 and <= 3600", optarg);
			have_duration = true;
			break;
		case OPT_CLASS_BASE:
			if (!parse_u64(optarg, 10, MAX_CLASSES - 1, &v))
				return usage_error("invalid --class-base '%s': want 0 .. %d",
						   optarg, MAX_CLASSES - 1);
			c->class_base = (int)v;
			break;
		case OPT_SEED:
			if (!parse_u64(optarg, 0, UINT64_MAX, &c->seed))
				return usage_error("invalid --seed '%s'", optarg);
			c->have_seed = true;
			break;
		case OPT_RTT:
			c->rtt = true;
			break;
		case OPT_WAIT:
			if (!parse_double(optarg, 0, 60, &c->wait_s))
				return usage_error("invalid --wait '%s': want seconds 0 .. 60", optarg);
			break;
		case 'h':
			return -1;
		default:
			return option_error(o, argv);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	for (o = 0; !have_dst && o < c->nclasses; o++)
		if (!c->cls[o]->have_dst)
			return usage_error("send: --dst is required (or dst= in every --class)");
	if (!have_duration)
		return usage_error("send: --duration is required, so the run ends by itself");
	if (!c->nspecs)
		return usage_error("send: give at least one --class");
	if (c->class_base + c->nspecs > MAX_CLASSES)
		return usage_error("--class-base %d: %d classes do not fit below %d",
				   c->class_base, c->nspecs, MAX_CLASSES);
	for (o = 0; o < c->nclasses; o++)
		if (!c->cls[o]->have_id)
			c->cls[o]->id = (uint8_t)(c->cls[o]->id + c->class_base);
	c->dst_name = dst;
	if (have_dst && resolve(dst, c->port, &c->dst, &c->dst_len))
		return EXIT_USAGE;
	return 0;
}

static int cmd_send(int argc, char **argv)
{
	static struct result res[MAX_CLASSES];
	struct send_cfg c;
	char err[256];
	int64_t start, end;
	int i, j, ret;

	ret = parse_send_args(argc, argv, &c);
	if (ret < 0) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return ret;
	if (!c.have_seed)
		c.seed = (uint64_t)clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < c.nclasses; i++) {
		struct sclass *s = c.cls[i];

		for (j = 0; j < i && s->flow == s->first_flow; j++)
			if (!strcmp(c.cls[j]->name, s->name))
				return usage_error("two classes named '%s': give name=", s->name);
		if (!s->tp.seed)
			s->tp.seed = c.seed + (uint64_t)i * 0x9E3779B97F4A7C15ULL;
		else
			s->tp.seed += s->flow;
		if (tm_model_init(&s->model, &s->tp, err, sizeof(err)))
			return usage_error("class %s: %s", s->name, err);
		if (open_class_socket(&c, s))
			return 1;
		if (s->flow != s->first_flow)
			continue;
		result_init(&res[s->idx], s->id);
		snprintf(res[s->idx].name, sizeof(res[s->idx].name), "%s", s->name);
		res[s->idx].kind = s->tp.kind;
		res[s->idx].target_ns = s->target_ns;
	}
	catch_signals(c.duration_s + c.wait_s);
	/* at a destination (address and port) one class id is one class */
	for (i = 0; i < c.nclasses; i++)
		for (j = 0; j < i; j++)
			if (same_dst(c.cls[i], c.cls[j]) && c.cls[i]->id == c.cls[j]->id &&
			    c.cls[i]->idx != c.cls[j]->idx)
				return usage_error("classes %s and %s: one class id (%u) to one destination",
						   c.cls[j]->name, c.cls[i]->name, c.cls[i]->id);
	/* every destination must answer before the run starts */
	for (i = 0; i < c.nclasses; i++) {
		for (j = 0; j < i && !same_dst(c.cls[i], c.cls[j]); j++)
			;
		if (j < i)
			continue;
		ret = probe_peer(&c, &c.cls[i]->dst, c.cls[i]->dst_len);
		if (ret)
			return ret;
	}

	start = now_ns();
	for (i = 0; i < c.nclasses; i++) {
		struct tm_msg msg;
		struct sclass *s = c.cls[i];

		tm_model_next(&s->model, &msg);
		s->next_gen = start + (int64_t)(s->offset_ns + msg.at_ns);
		s->next_size = msg.size;
		s->gen_done = s->next_gen >= start + (int64_t)(c.duration_s * NSEC_PER_SEC);
	}
	ret = send_loop(&c, res, start);
	end = now_ns();
	send_fins(&c, res);
	if (c.rtt) {
		/* echoes still on their way back */
		wait_reading(&c, res, NSEC_PER_SEC / 2);
		for (i = 0; i < c.nclasses; i++) {
			struct sclass *s = c.cls[i];
			struct fm_fin f = {
				.sent_pkts = s->sent_pkts, .sent_msgs = s->sent_msgs,
				.sent_bytes = s->sent_bytes, .src_drops = s->src_drops,
				.target_ns = s->target_ns, .kind = (uint8_t)s->tp.kind,
				.nflows = s->nflows,
			};

			snprintf(f.name, sizeof(f.name), "%s", s->name);
			result_fin(&res[s->idx], s->flow, &f);
		}
		apply_fins(res);
		ret = print_results(&c.out, res, "send", "roundtrip", (end - start) / 1e9) || ret;
	} else {
		FILE *f = stdout;

		if (c.out.file && !(f = fopen(c.out.file, "w"))) {
			fprintf(stderr, PROG ": %s: %s\n", c.out.file, strerror(errno));
			return 1;
		}
		if (c.out.fmt == OUT_JSON)
			fprintf(f, "{\"tool\":\"" PROG "\",\"version\":1,\"role\":\"send\","
				"\"mode\":\"oneway\",\"clock\":\"%s\",\"duration_s\":%.3f,\"classes\":[",
				run_clock_name, (end - start) / 1e9);
		else if (c.out.fmt == OUT_CSV)
			fputs("class,name,kind,sent,bytes,messages,source_drops,unsent\n", f);
		else
			fprintf(f, "send oneway to %s, clock %s, %.3f s\n%-12s %-10s %9s %11s %9s %8s %7s\n",
				c.dst_name ? c.dst_name : "each class's dst", run_clock_name,
				(end - start) / 1e9, "class", "kind",
				"sent", "bytes", "messages", "srcdrop", "unsent");
		for (i = 0; i < c.nclasses; i++) {
			struct sclass *s = c.cls[i];
			const char *k = tm_kind_name(s->tp.kind);
			char nm[FM_NAME_LEN + 8];

			if (s->all_flows > 1)
				snprintf(nm, sizeof(nm), "%s/%u", s->name, s->flow);
			else
				snprintf(nm, sizeof(nm), "%s", s->name);

			if (c.out.fmt == OUT_JSON)
				fprintf(f, "%s{\"id\":%d,\"name\":\"%s\",\"kind\":\"%s\",\"sent\":%" PRIu64
					",\"bytes\":%" PRIu64 ",\"messages\":%" PRIu64
					",\"source_drops\":%" PRIu64 ",\"unsent\":%" PRIu64 "}",
					i ? "," : "", s->id, nm, k, s->sent_pkts, s->sent_bytes,
					s->sent_msgs, s->src_drops, s->unsent);
			else if (c.out.fmt == OUT_CSV)
				fprintf(f, "%d,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
					",%" PRIu64 "\n", s->id, nm, k, s->sent_pkts, s->sent_bytes,
					s->sent_msgs, s->src_drops, s->unsent);
			else
				fprintf(f, "%-12s %-10s %9" PRIu64 " %11" PRIu64 " %9" PRIu64 " %8"
					PRIu64 " %7" PRIu64 "\n", nm, k, s->sent_pkts,
					s->sent_bytes, s->sent_msgs, s->src_drops, s->unsent);
		}
		if (c.out.fmt == OUT_JSON)
			fputs("]}\n", f);
		if (f != stdout)
			fclose(f);
	}
	for (i = c.nclasses - 1; i >= 0; i--) {
		close(c.cls[i]->fd);
		if (c.cls[i]->flow == c.cls[i]->first_flow)
			tm_trace_free(&c.cls[i]->trace);
		free(c.cls[i]);
	}
	return ret;
}

/* ---- trace check --------------------------------------------------------------------- */

static int cmd_check_trace(int argc, char **argv)
{
	struct tm_trace t;
	char err[256];
	FILE *f;

	if (argc != 2)
		return usage_error("check-trace: want one FILE");
	f = fopen(argv[1], "r");
	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (tm_trace_parse(f, argv[1], &t, err, sizeof(err))) {
		fclose(f);
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	fclose(f);
	printf("%zu frames, mean %.0f bytes\n", t.n, t.mean);
	tm_trace_free(&t);
	return 0;
}

static void usage(FILE *f)
{
	fputs(
"Usage: " PROG " recv    --duration S [--port P] [--ports K] [--bind ADDR] [options]\n"
"       " PROG " send    --dst ADDR --duration S --class SPEC... [--port P] [--rtt] [options]\n"
"       " PROG " reflect --duration S [--port P] [--ports K] [--bind ADDR]\n"
"       " PROG " check-trace FILE\n"
"\n"
"Per-class traffic and latency.  send drives the classes; recv measures\n"
"one-way latency (both ends on the same or synchronised clocks); with\n"
"--rtt the sender measures round trips through a reflector.\n"
"\n"
"Class SPEC: KIND[,key=value]...   KIND: control, multimedia, besteffort,\n"
"  background, cbr.  Keys: rate=BIT/S (required; k, m, g), name=NAME,\n"
"  min=/max=/size=BYTES, interval=TIME (multimedia, default 40ms),\n"
"  trace=FILE (multimedia frame sizes), alpha=SHAPE, burst=MESSAGES,\n"
"  seg=BYTES (datagram size, default 1400), prio=N|MAJ:MIN (SO_PRIORITY),\n"
"  dscp=0..63, pacing=BIT/S (SO_MAX_PACING_RATE), target=TIME (deadline),\n"
"  txtime=TIME (SO_TXTIME frame deadlines for edf), port=P, seed=N,\n"
"  flows=N (N sockets sharing the rate), flow=F (their ids start at F,\n"
"  default 0), allflows=T (the class has T flows over all senders: the\n"
"  receiver waits for all their end marks; default F + N).\n"
"  TIME: ns, us, ms, s (bare number: us).\n"
"\n"
"Common options:\n"
"  --duration S     run time (required; hard cap S + 30 s)\n"
"  --port P         UDP port (default 5201)\n"
"  --clock C        realtime (default), tai or monotonic; same on both ends\n"
"  --json | --csv   output format (default: a table)\n"
"  --output FILE    write the results there instead of stdout\n"
"  --data DIR       also write DIR/results.json, results.csv and per class\n"
"                   CLASS.cdf, CLASS.msg.cdf, CLASS.msg.hist (for gnuplot)\n"
"  --window F       in-window: message latency within target +- F (0.1)\n"
"  -q, --quiet      no progress line (shown only on a terminal anyway)\n"
"send:  --dst ADDR, --class SPEC (repeat), --class-base B (id of the first\n"
"       class, 0), --seed N, --rtt, --wait S (peer answer timeout, default 2)\n"
"recv:  --ports K, --bind ADDR, --ready FILE, --expect N (classes whose\n"
"       end marks end the run), --linger S (after the last end mark, 0.2)\n"
"\n"
"Exit: 0 ok, 1 runtime error or nothing received, 2 bad arguments,\n"
"3 peer unreachable.  See Documentation/fabric-meter.rst.\n", f);
}

int main(int argc, char **argv)
{
	opterr = 0;
	if (argc < 2)
		return usage_error("missing role: send, recv, reflect or check-trace");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "recv"))
		return cmd_recv(argc - 1, argv + 1);
	if (!strcmp(argv[1], "send"))
		return cmd_send(argc - 1, argv + 1);
	if (!strcmp(argv[1], "reflect"))
		return cmd_reflect(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check-trace"))
		return cmd_check_trace(argc - 1, argv + 1);
	return usage_error("unknown role '%s' (want send, recv, reflect or check-trace)", argv[1]);
}
