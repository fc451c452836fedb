// SPDX-License-Identifier: GPL-2.0
/*
 * qsim table: an output link scheduled by a table discipline (dtable,
 * sbt, rr) of kernel/core/dtable_core.h, fed by synthetic sources or a
 * trace.  Prints per class the packets and bytes sent, the byte and
 * packet shares, and the latency (arrival to last bit on the wire).
 *
 *   qsim table --mode dtable --rate 8000000 --credit 64 --mtu 128,256 \
 *        --table "0:7 1:39 0:7 ..." --class 128:0.09 --class 256:sat \
 *        --duration 2 [--limit 1000] [--seed 1] [--trace FILE] [--json]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "core/dtable_core.h"
#include "qsim.h"

#define TS_NS		1000000000ULL
#define TS_INF		UINT64_MAX
/* the options' bounds: a run's times stay far below 2^64 ns */
#define TS_MAX_LEN	65536		/* bytes, a packet */
#define TS_MIN_LOAD	1e-6		/* of the link, a class */
#define TS_MAX_LOAD	1000.0
#define TS_MAX_RATE	1000000000000ULL	/* bytes/s */
#define TS_MAX_LIMIT	1000000		/* packets queued per class */
#define TS_MAX_DURATION	1e6		/* s */

enum ts_kind { TS_CBR, TS_POISSON, TS_SAT, TS_TRACE };

struct ts_pkt {
	uint64_t arrival;
	uint32_t len;
};

struct ts_class {
	/* source */
	enum ts_kind kind;
	uint32_t len;
	double load;		/* fraction of the link */
	uint64_t next;		/* next arrival, ns */
	/* queue: a ring */
	struct ts_pkt *q;
	uint32_t head, count;
	/* results */
	uint64_t drops;
	uint64_t *lat;
	size_t nlat, cap;
};

static struct {
	uint8_t mode;
	uint64_t rate;		/* bytes per second */
	uint32_t credit;
	uint32_t mtu[DT_MAX_CLASSES];
	int nmtu;
	struct dt_entry table[DT_MAX_ENTRIES];
	uint32_t n;
	struct ts_class cls[DT_MAX_CLASSES];
	uint32_t ncls;
	uint32_t limit;
	double duration;
	uint64_t seed;
	FILE *trace;
	int json;
} ts = { .credit = 1, .limit = 1000, .duration = 1.0, .seed = 1 };

static double ts_rand(void)
{
	ts.seed = ts.seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((ts.seed >> 11) + 0.5) / 9007199254740992.0;
}

static void ts_usage(FILE *f)
{
	fprintf(f,
"Usage: qsim table --mode {dtable|sbt|rr} --rate BYTES_PER_S --table \"C:W ...\"\n"
"                  --class LEN:{LOAD|LOAD:poisson|sat} [--class ...] | --trace FILE\n"
"                  [--credit BYTES] [--mtu B[,B...]] [--limit PKTS] [--duration S]\n"
"                  [--seed N] [--json]\n"
"  --class   one per class, in class order: packets of LEN bytes at LOAD (a fraction\n"
"            of the link) evenly spaced, or Poisson, or saturated (always backlogged)\n"
"  --trace   lines \"TIME_NS CLASS LEN\" in time order instead of --class sources\n"
"            (give --classes N with it); TIME_NS at most 2^62\n"
"  --mtu     per class packet size for dtable (default: the largest --class LEN)\n"
"  --limit   packets queued per class (default 1000, at most 1000000); more are\n"
"            dropped\n"
"LEN: 1..65536 bytes; LOAD: 0.000001..1000; --rate up to 10^12; --duration up to\n"
"10^6 s.\n");
}

/*
 * --table "C:W C:W ...", by blanks or commas, each entry through
 * parse_uint_pair(): strtoul() kept the low 32 bits of W (0:4294967297
 * was weight 1) and took a sign and blanks before either number.  The
 * words are cut from a copy: the usage error quotes the option whole.
 */
static int ts_parse_table(const char *s)
{
	static const char sep[] = "," QSIM_BLANKS;
	char *buf = strdup(s), *save, *e;
	unsigned int c, w;
	int r = -1;

	if (!buf)
		return -1;
	for (e = strtok_r(buf, sep, &save); e; e = strtok_r(NULL, sep, &save)) {
		if (ts.n >= DT_MAX_ENTRIES ||
		    !parse_uint_pair(e, ':', DT_MAX_CLASSES - 1, UINT32_MAX, &c, &w))
			goto out;
		ts.table[ts.n].cls = (fq_u16)c;
		ts.table[ts.n].weight = w;
		ts.n++;
	}
	r = ts.n ? 0 : -1;
out:
	free(buf);
	return r;
}

/*
 * LEN:LOAD, LEN:LOAD:poisson or LEN:sat; LEN 1..TS_MAX_LEN bytes, LOAD
 * a finite TS_MIN_LOAD .. TS_MAX_LOAD of the link (a gap between packets
 * is then some ns and far from 2^64)
 */
static int ts_parse_class(const char *s)
{
	struct ts_class *c = &ts.cls[ts.ncls];
	char num[64], *colon;
	uint64_t len;
	size_t n;

	if (ts.ncls >= DT_MAX_CLASSES)
		return -1;
	colon = strchr(s, ':');
	n = colon ? (size_t)(colon - s) : 0;
	if (!n || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	if (!parse_u64(num, 10, TS_MAX_LEN, &len) || !len)
		return -1;
	c->len = (uint32_t)len;
	s = colon + 1;
	if (!strcmp(s, "sat")) {
		c->kind = TS_SAT;
	} else {
		const char *kind = strchr(s, ':');

		n = kind ? (size_t)(kind - s) : strlen(s);
		if (!n || n >= sizeof(num))
			return -1;
		memcpy(num, s, n);
		num[n] = '\0';
		if (!parse_double(num, TS_MIN_LOAD, TS_MAX_LOAD, &c->load))
			return -1;
		if (!kind)
			c->kind = TS_CBR;
		else if (!strcmp(kind, ":poisson"))
			c->kind = TS_POISSON;
		else
			return -1;
	}
	ts.ncls++;
	return 0;
}

static uint64_t ts_gap(struct ts_class *c)
{
	double mean = (double)c->len / (c->load * (double)ts.rate) * TS_NS;

	if (c->kind == TS_POISSON)
		return (uint64_t)(-log(ts_rand()) * mean) + 1;
	return (uint64_t)mean + 1;
}

static struct dt_sched ts_sched;
static bool ts_running;

static int ts_push(struct ts_class *c, uint64_t t, uint32_t len)
{
	if (c->count >= ts.limit) {
		c->drops++;
		return -1;
	}
	c->q[(c->head + c->count) % ts.limit] = (struct ts_pkt){ t, len };
	c->count++;
	if (ts_running)
		dt_class_active(&ts_sched, c - ts.cls);
	return 0;
}

static int ts_head(void *ctx, fq_u32 cls)
{
	struct ts_class *c = &ts.cls[cls];

	return c->count ? (int)c->q[c->head].len : DT_IDLE;
}

/*
 * trace: the next line's arrival, class and length; 0 at the end.  A
 * time is at most QSIM_TIME_MAX: TS_INF, past it, says the trace ended.
 */
static int ts_trace_next(uint64_t *t, uint32_t *cls, uint32_t *len)
{
	char line[256], words[256], *w[3];
	uint64_t tt, c, l;
	int r;

	while ((r = read_line(line, sizeof(line), ts.trace))) {
		if (r < 0) {
			fprintf(stderr, "qsim table: a trace line longer than %zu characters\n",
				sizeof(line) - 1);
			return -1;
		}
		if (line[0] == '#' || line[0] == '\n')
			continue;
		/* split a copy: the message quotes the line */
		strcpy(words, line);
		if (split_words(words, QSIM_BLANKS, w, 3) != 3 ||
		    !parse_u64(w[0], 10, QSIM_TIME_MAX, &tt) ||
		    !parse_u64(w[1], 10, ts.ncls - 1, &c) ||
		    !parse_u64(w[2], 10, UINT32_MAX, &l) || !l) {
			fprintf(stderr, "qsim table: bad trace line: %s", line);
			return -1;
		}
		*t = tt;
		*cls = (uint32_t)c;
		*len = (uint32_t)l;
		return 1;
	}
	return 0;
}

static int ts_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double ts_pct(struct ts_class *c, double p)
{
	size_t i;

	if (!c->nlat)
		return 0;
	i = (size_t)(p * (double)(c->nlat - 1) + 0.5);
	return c->lat[i] / 1000.0;
}

static int ts_run(void)
{
	static struct dt_class dc[DT_MAX_CLASSES];
	uint64_t end = (uint64_t)(ts.duration * TS_NS), link_free = 0, backlog = 0;
	uint64_t tr_t = TS_INF, total_bytes = 0, total_pkts = 0;
	uint32_t tr_c = 0, tr_len = 0, i, bad;
	struct dt_sched *sp = &ts_sched;
	int r;

	for (i = 0; i < ts.ncls; i++) {
		struct ts_class *c = &ts.cls[i];

		dc[i].mtu = ts.nmtu == 1 ? ts.mtu[0] : ts.nmtu ? ts.mtu[i] : 0;
		c->q = calloc(ts.limit, sizeof(*c->q));
		if (!c->q)
			return 1;
		if (c->kind == TS_SAT) {
			while (c->count < ts.limit)
				ts_push(c, 0, c->len);
			backlog += c->count;
			c->next = TS_INF;
		} else if (c->kind != TS_TRACE) {
			c->next = (uint64_t)(ts_rand() * ts_gap(c));
		} else {
			c->next = TS_INF;
		}
	}
	if (!ts.nmtu) {
		uint32_t m = 0;

		for (i = 0; i < ts.ncls; i++)
			m = ts.cls[i].len > m ? ts.cls[i].len : m;
		for (i = 0; i < ts.ncls; i++)
			dc[i].mtu = m ? m : 1500;
	}
	{
		fq_u32 mtus[DT_MAX_CLASSES];

		for (i = 0; i < ts.ncls; i++)
			mtus[i] = dc[i].mtu;
		r = dt_table_check(ts.table, ts.n, ts.mode, ts.credit, mtus, ts.ncls, &bad);
	}
	if (r != DT_TABLE_OK) {
		fprintf(stderr, "qsim table: %s (entry or class %u)\n", dt_table_strerror(r), bad);
		return 2;
	}
	dt_init(sp, dc, ts.ncls, ts.table, ts.n, ts.mode, ts.credit);
	ts_running = true;
	for (i = 0; i < ts.ncls; i++)
		if (ts.cls[i].count)
			dt_class_active(sp, i);
	if (ts.trace) {
		r = ts_trace_next(&tr_t, &tr_c, &tr_len);
		if (r < 0)
			return 2;
		if (!r)
			tr_t = TS_INF;
	}

	for (;;) {
		uint64_t t_arr = tr_t;
		int who = -1;

		for (i = 0; i < ts.ncls; i++) {
			if (ts.cls[i].next < t_arr) {
				t_arr = ts.cls[i].next;
				who = i;
			}
		}
		if (t_arr != TS_INF && t_arr > end)
			t_arr = TS_INF;
		if (backlog && link_free <= t_arr) {
			struct ts_class *c;
			struct ts_pkt p;
			uint64_t tx;
			int k = dt_pick(sp, ts_head, NULL);

			if (k < 0 || link_free > end)
				break;
			c = &ts.cls[k];
			p = c->q[c->head];
			c->head = (c->head + 1) % ts.limit;
			c->count--;
			backlog--;
			tx = (uint64_t)p.len * TS_NS / ts.rate;
			dt_sent(sp, k, p.len, c->count != 0);
			link_free += tx;
			total_bytes += p.len;
			total_pkts++;
			if (c->kind == TS_SAT) {
				ts_push(c, link_free - tx, c->len);
				backlog++;
			} else {
				if (c->nlat == c->cap) {
					c->cap = c->cap ? 2 * c->cap : 1024;
					c->lat = realloc(c->lat, c->cap * sizeof(*c->lat));
					if (!c->lat)
						return 1;
				}
				c->lat[c->nlat++] = link_free - p.arrival;
			}
		} else if (t_arr != TS_INF) {
			struct ts_class *c;
			uint32_t len;

			if (who < 0) {
				c = &ts.cls[tr_c];
				len = tr_len;
				r = ts_trace_next(&tr_t, &tr_c, &tr_len);
				if (r < 0)
					return 2;
				if (!r)
					tr_t = TS_INF;
			} else {
				c = &ts.cls[who];
				len = c->len;
				c->next += ts_gap(c);
			}
			if (!backlog && link_free < t_arr)
				link_free = t_arr;
			if (!ts_push(c, t_arr, len))
				backlog++;
		} else {
			break;
		}
	}

	if (ts.json)
		printf("{\"mode\":\"%s\",\"bytes\":%" PRIu64 ",\"walks\":%" PRIu64
		       ",\"resets\":%" PRIu64 ",\"lone_sends\":%" PRIu64 ",\"classes\":[\n",
		       ts.mode == DT_MODE_SBT ? "sbt" : ts.mode == DT_MODE_RR ? "rr" : "dtable",
		       total_bytes, sp->walks, sp->resets, sp->lone_sends);
	else
		printf("%-5s %10s %12s %7s %7s %8s %9s %9s %9s %9s\n", "class", "packets",
		       "bytes", "share", "pshare", "drops", "mean_us", "p50_us",
		       "p99_us", "max_us");
	for (i = 0; i < ts.ncls; i++) {
		struct ts_class *c = &ts.cls[i];
		double mean = 0, share, pshare;
		size_t j;

		qsort(c->lat, c->nlat, sizeof(*c->lat), ts_cmp_u64);
		for (j = 0; j < c->nlat; j++)
			mean += c->lat[j] / 1000.0;
		if (c->nlat)
			mean /= (double)c->nlat;
		share = total_bytes ? 100.0 * dc[i].bytes / total_bytes : 0;
		pshare = total_pkts ? 100.0 * dc[i].packets / total_pkts : 0;
		if (ts.json)
			printf(" {\"class\":%u,\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64
			       ",\"share\":%.3f,\"packet_share\":%.3f,\"drops\":%" PRIu64
			       ",\"lat_mean_us\":%.1f,\"lat_p50_us\":%.1f,\"lat_p99_us\":%.1f"
			       ",\"lat_max_us\":%.1f}%s\n", i, dc[i].packets, dc[i].bytes,
			       share, pshare, c->drops, mean, ts_pct(c, 0.5), ts_pct(c, 0.99),
			       ts_pct(c, 1.0), i + 1 < ts.ncls ? "," : "");
		else
			printf("%-5u %10" PRIu64 " %12" PRIu64 " %7.2f %7.2f %8" PRIu64
			       " %9.1f %9.1f %9.1f %9.1f\n", i, dc[i].packets, dc[i].bytes,
			       share, pshare, c->drops, mean, ts_pct(c, 0.5),
			       ts_pct(c, 0.99), ts_pct(c, 1.0));
		free(c->q);
		free(c->lat);
	}
	if (ts.json)
		printf("]}\n");
	return 0;
}

static int ts_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "rate", required_argument, NULL, 'r' },
		{ "credit", required_argument, NULL, 'c' },
		{ "mtu", required_argument, NULL, 'u' },
		{ "table", required_argument, NULL, 't' },
		{ "class", required_argument, NULL, 'C' },
		{ "classes", required_argument, NULL, 'N' },
		{ "trace", required_argument, NULL, 'T' },
		{ "limit", required_argument, NULL, 'l' },
		{ "duration", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o, rc;
	uint64_t u;
	char *e;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'm':
			if (!strcmp(optarg, "dtable"))
				ts.mode = DT_MODE_DTABLE;
			else if (!strcmp(optarg, "sbt"))
				ts.mode = DT_MODE_SBT;
			else if (!strcmp(optarg, "rr"))
				ts.mode = DT_MODE_RR;
			else
				goto bad;
			break;
		case 'r':
			if (!parse_u64(optarg, 10, TS_MAX_RATE, &ts.rate) || !ts.rate)
				goto bad;
			break;
		case 'c':
			if (!parse_u64(optarg, 10, DT_MAX_CREDIT, &u) || !u)
				goto bad;
			ts.credit = (uint32_t)u;
			break;
		case 'u':
			for (e = optarg; *e; ) {
				if (ts.nmtu >= DT_MAX_CLASSES || *e < '0' || *e > '9')
					goto bad;
				errno = 0;
				u = strtoull(e, &e, 10);
				if (errno || !u || u > TS_MAX_LEN)
					goto bad;
				ts.mtu[ts.nmtu++] = (uint32_t)u;
				if (*e == ',')
					e++;
				else if (*e)
					goto bad;
			}
			break;
		case 't':
			if (ts_parse_table(optarg))
				goto bad;
			break;
		case 'C':
			if (ts_parse_class(optarg))
				goto bad;
			break;
		case 'N':
			if (!parse_u64(optarg, 10, DT_MAX_CLASSES, &u) || !u)
				goto bad;
			ts.ncls = (unsigned int)u;
			for (rc = 0; rc < (int)ts.ncls; rc++)
				ts.cls[rc].kind = TS_TRACE;
			break;
		case 'T':
			ts.trace = !strcmp(optarg, "-") ? stdin : fopen(optarg, "r");
			if (!ts.trace) {
				fprintf(stderr, "qsim table: %s: %s\n", optarg, strerror(errno));
				return 2;
			}
			break;
		case 'l':
			if (!parse_u64(optarg, 10, TS_MAX_LIMIT, &u) || !u)
				goto bad;
			ts.limit = (uint32_t)u;
			break;
		case 'd':
			if (!parse_double(optarg, 0, TS_MAX_DURATION, &ts.duration) ||
			    !(ts.duration > 0))
				goto bad;
			break;
		case 's':
			if (!parse_u64(optarg, 10, UINT64_MAX, &ts.seed))
				goto bad;
			break;
		case 'j':
			ts.json = 1;
			break;
		case 'h':
			ts_usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (!ts.rate || !ts.ncls || (ts.nmtu > 1 && ts.nmtu != (int)ts.ncls)) {
		fprintf(stderr, "qsim table: --rate and --class (or --classes with --trace) are required; --mtu takes one value or one per class\n");
		ts_usage(stderr);
		return 2;
	}
	if (!ts.n) {	/* default: one entry per class */
		for (ts.n = 0; ts.n < ts.ncls; ts.n++) {
			ts.table[ts.n].cls = ts.n;
			ts.table[ts.n].weight = 1;
		}
		if (ts.mode == DT_MODE_DTABLE) {
			fprintf(stderr, "qsim table: dtable needs --table\n");
			return 2;
		}
	}
	rc = ts_run();
	if (ts.trace && ts.trace != stdin)
		fclose(ts.trace);
	return rc;
bad:
	fprintf(stderr, "qsim table: bad %s\n", optind > 1 ? argv[optind - 1] : "option");
	ts_usage(stderr);
	return 2;
}

const struct qsim_cmd qsim_cmd_table = {
	.name = "table",
	.summary = "table schedulers: dtable / sbt / rr (omni-path-qos-sbt-dtable)",
	.main = ts_main,
};
