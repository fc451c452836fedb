// SPDX-License-Identifier: GPL-2.0
/*
 * qsim recn: RECN congestion isolation in a lossless two-level fabric
 * (recn_net.h), driven by a trace; Documentation/recn.rst.
 *
 * Input, one frame per line (blank lines and '#' comments skipped), in
 * non-decreasing time:
 *
 *	time_ns src dst len sl
 *
 * hosts numbered leaf by leaf.  Output: one line per flow (source,
 * destination, SL) and per SL with the throughput and latency of the
 * frames delivered in the measured window, RECN's counters summed over
 * the fabric, and, with --sample, the SAQs in use over time.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "qsim.h"
#include "recn_net.h"
#include "recn_trace.h"

_Static_assert(RT_SLS == RN_SLS, "a trace line's SL is one of the simulator's");

struct rq_flow {
	uint32_t src, dst;
	uint8_t sl;
	uint64_t frames, bytes, lat_sum, lat_max, next_seq, last_seq;
};

struct rq_run {
	struct rq_flow *flows;
	size_t nflows;
	uint64_t warmup, delivered, reordered, last_at;
};

static void rq_usage(FILE *out)
{
	fprintf(out,
		"usage: qsim recn [ --arch { fifo | voq | recn } ] [ --leaves N ] [ --hosts N ]\n"
		"                 [ --spines N ] [ --rate BYTES_PER_S ] [ --speedup N ] [ --latency NS ]\n"
		"                 [ --in-buffer BYTES ] [ --out-buffer BYTES ] [ --vcs { 2 | 8 } ]\n"
		"                 [ --vc0-sls N ]\n"
		"                 [ --saqs N ] [ --detect BYTES ] [ --xoff BYTES ] [ --xon BYTES ]\n"
		"                 [ --lease NS ] [ --refresh NS ] [ --idle NS ] [ --loss PERMILLE ]\n"
		"                 [ --seed N ] [ --step NS ] [ --warmup NS ] [ --until NS ]\n"
		"                 [ --sample NS ] [ FILE ]\n"
		"  reads frames \"time_ns src dst len sl\" (SL 0..7) from FILE or stdin; prints\n"
		"  \"flow SRC DST SL frames N bytes N rate_Bps N lat_avg_ns N lat_max_ns N\" per\n"
		"  flow, the same per SL (\"sl SL ...\"), \"recn ...\" counters, \"run ...\", and\n"
		"  with --sample \"saqs TIME_NS N\" lines.  Defaults: recn, 1 leaf of 4 hosts,\n"
		"  1000000000 B/s links, 100 ns delay, 16384-byte buffers per VC, 2 VCs with\n"
		"  SLs 0-3 on VC0 (8: a VC per SL), 8 SAQs, detect 2048, xoff 4096, xon 2048, lease 200000, refresh\n"
		"  50000, idle 1000000, step 10 ns, instant crossbar (--speedup 0).\n");
}

static struct rq_flow *rq_flow(struct rq_run *r, const struct rn_frame *f)
{
	return &r->flows[f->flow];
}

static void rq_deliver(void *ctx, const struct rn_frame *f, uint64_t now)
{
	struct rq_run *r = ctx;
	struct rq_flow *fl = rq_flow(r, f);
	uint64_t lat = now - f->offered;

	if (f->seq != fl->next_seq)
		r->reordered++;
	fl->next_seq = f->seq + 1;
	r->delivered++;
	r->last_at = now;
	if (now < r->warmup)
		return;
	fl->frames++;
	fl->bytes += f->len;
	fl->lat_sum += lat;
	if (lat > fl->lat_max)
		fl->lat_max = lat;
}

static int rq_flow_index(struct rq_run *r, size_t *cap, uint32_t src, uint32_t dst, uint8_t sl)
{
	size_t i;

	for (i = 0; i < r->nflows; i++)
		if (r->flows[i].src == src && r->flows[i].dst == dst && r->flows[i].sl == sl)
			return (int)i;
	if (qsim_reserve((void **)&r->flows, cap, r->nflows, sizeof(*r->flows)))
		return -1;
	r->flows[r->nflows] = (struct rq_flow){ .src = src, .dst = dst, .sl = sl };
	return (int)r->nflows++;
}

static void rq_print(const char *what, uint64_t frames, uint64_t bytes, uint64_t lat_sum,
		     uint64_t lat_max, uint64_t window)
{
	printf("%s frames %" PRIu64 " bytes %" PRIu64 " rate_Bps %" PRIu64
	       " lat_avg_ns %" PRIu64 " lat_max_ns %" PRIu64 "\n", what, frames, bytes,
	       window ? (uint64_t)((double)bytes * 1e9 / (double)window) : 0,
	       frames ? lat_sum / frames : 0, lat_max);
}

static int rq_opt(const char *name, const char *arg, uint64_t lo, uint64_t hi, uint64_t *v)
{
	if (!parse_u64(arg, 10, hi, v) || *v < lo) {
		fprintf(stderr, "qsim recn: bad --%s \"%s\" (%" PRIu64 "..%" PRIu64 ")\n",
			name, arg, lo, hi);
		return -1;
	}
	return 0;
}

static int rq_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "leaves", required_argument, NULL, 'L' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "spines", required_argument, NULL, 'S' },
		{ "rate", required_argument, NULL, 'r' },
		{ "latency", required_argument, NULL, 'd' },
		{ "speedup", required_argument, NULL, 'x' },
		{ "in-buffer", required_argument, NULL, 'i' },
		{ "out-buffer", required_argument, NULL, 'o' },
		{ "vc0-sls", required_argument, NULL, 'v' },
		{ "vcs", required_argument, NULL, 'V' },
		{ "saqs", required_argument, NULL, 'n' },
		{ "detect", required_argument, NULL, 'D' },
		{ "xoff", required_argument, NULL, 'X' },
		{ "xon", required_argument, NULL, 'Y' },
		{ "lease", required_argument, NULL, 'l' },
		{ "refresh", required_argument, NULL, 'R' },
		{ "idle", required_argument, NULL, 'I' },
		{ "loss", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "step", required_argument, NULL, 't' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "until", required_argument, NULL, 'u' },
		{ "sample", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const archs[] = { "fifo", "voq", "recn" };
	struct rn_params p = {
		.arch = RN_RECN, .leaves = 1, .hosts_per_leaf = 4, .spines = 0, .vc0_sls = 4, .vcs = 2,
		.rate = 1000000000, .speedup = 0, .latency_ns = 100, .in_buffer = 16384, .out_buffer = 16384,
		.seed = 1,
		.recn = { .nsaq = RECN_SAQ_DEFAULT, .detect = 2048, .xoff = 4096, .xon = 2048,
			  .lease_ns = 200000, .refresh_ns = 50000, .idle_ns = 1000000 },
	};
	uint64_t v, step = 10, until = 0, sample = 0, now, next_tick = 0, next_sample = 0, end;
	struct rq_run run = { 0 };
	struct rn_frame *fr = NULL;
	size_t nfr = 0, cap = 0, fcap = 0, next = 0, i;
	struct recn_stats st;
	unsigned int saqs_max = 0, sl, k;
	struct rn_net net;
	char line[512];
	FILE *in = stdin;
	unsigned long lineno = 0;
	int r;
	bool vc0_given = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		uint64_t *u64 = NULL;
		uint32_t *u32 = NULL;
		unsigned int *uint = NULL;
		uint64_t lo = 1, hi = UINT32_MAX;

		switch (c) {
		case 'a':
			for (k = 0; k < 3 && strcmp(optarg, archs[k]); k++)
				;
			if (k == 3) {
				fprintf(stderr, "qsim recn: unknown architecture \"%s\"\n", optarg);
				return 2;
			}
			p.arch = (enum rn_arch)k;
			continue;
		case 'L': uint = &p.leaves; hi = RN_MAX_PORTS; break;
		case 'H': uint = &p.hosts_per_leaf; hi = RN_MAX_PORTS; break;
		case 'S': uint = &p.spines; lo = 0; hi = RN_MAX_PORTS; break;
		case 'r': u64 = &p.rate; hi = 1000000000000ULL; break;
		case 'd': u64 = &p.latency_ns; lo = 0; hi = 1000000000; break;
		case 'x': uint = &p.speedup; lo = 0; hi = 16; break;
		case 'i': u32 = &p.in_buffer; lo = 64; break;
		case 'o': u32 = &p.out_buffer; lo = 64; break;
		case 'v': uint = &p.vc0_sls; lo = 0; hi = RN_SLS; vc0_given = true; break;
		case 'V': uint = &p.vcs; lo = 2; hi = RN_VCS_MAX; break;
		case 'n': u32 = &p.recn.nsaq; hi = RECN_SAQ_MAX; break;
		case 'D': u32 = &p.recn.detect; break;
		case 'X': u32 = &p.recn.xoff; break;
		case 'Y': u32 = &p.recn.xon; lo = 0; break;
		case 'l': u64 = &p.recn.lease_ns; hi = 10000000000ULL; break;
		case 'R': u64 = &p.recn.refresh_ns; hi = 10000000000ULL; break;
		case 'I': u64 = &p.recn.idle_ns; hi = 10000000000ULL; break;
		case 'p': u32 = &p.loss_permille; lo = 0; hi = 1000; break;
		case 's': u64 = &p.seed; lo = 0; hi = UINT64_MAX; break;
		case 't': u64 = &step; hi = 1000000; break;
		case 'w': u64 = &run.warmup; lo = 0; hi = UINT64_MAX / 2; break;
		case 'u': u64 = &until; hi = UINT64_MAX / 2; break;
		case 'm': u64 = &sample; hi = UINT64_MAX / 2; break;
		case 'h':
			rq_usage(stdout);
			return 0;
		default:
			rq_usage(stderr);
			return 2;
		}
		for (k = 0; opts[k].val != c; k++)
			;
		if (rq_opt(opts[k].name, optarg, lo, hi, &v))
			return 2;
		if (u64)
			*u64 = v;
		else if (u32)
			*u32 = (uint32_t)v;
		else
			*uint = (unsigned int)v;
	}
	if (p.vcs != 2 && p.vcs != RN_VCS_MAX) {
		fprintf(stderr, "qsim recn: --vcs is 2 or %d\n", RN_VCS_MAX);
		return 2;
	}
	if (vc0_given && p.vcs != 2) {
		fprintf(stderr, "qsim recn: --vc0-sls splits two VCs; with --vcs %u each SL has its own\n",
			p.vcs);
		return 2;
	}
	if (recn_cfg_check(&p.recn) != RECN_CFG_OK) {
		fprintf(stderr, "qsim recn: want xon < xoff, 0 < refresh < lease, idle >= refresh\n");
		return 2;
	}
	if (optind < argc) {
		in = fopen(argv[optind], "r");
		if (!in) {
			perror(argv[optind]);
			return 2;
		}
	}
	if (rn_net_init(&net, &p, NULL, 0))
		return 2;
	while ((r = read_line(line, sizeof(line), in))) {
		struct rt_frame f;
		int fi;

		lineno++;
		if (r < 0) {
			fprintf(stderr, "qsim recn: line %lu: longer than %zu characters\n",
				lineno, sizeof(line) - 1);
			return 1;
		}
		switch (rt_parse_line(line, &f)) {
		case RT_BLANK:
			continue;
		case RT_FRAME:
			if (f.src < net.nhosts && f.dst < net.nhosts && f.len <= p.in_buffer &&
			    f.len <= p.out_buffer)
				break;
			/* fall through */
		case RT_BAD:
			fprintf(stderr, "qsim recn: line %lu: want \"time_ns src dst len sl\", hosts 0..%u apart, len 1..the buffers, sl 0..%d\n",
				lineno, net.nhosts - 1, RN_SLS - 1);
			return 1;
		}
		if (nfr && f.t_ns < fr[nfr - 1].offered) {
			fprintf(stderr, "qsim recn: line %lu: time goes backwards\n", lineno);
			return 1;
		}
		fi = rq_flow_index(&run, &fcap, f.src, f.dst, f.sl);
		if (fi < 0 || qsim_reserve((void **)&fr, &cap, nfr, sizeof(*fr))) {
			fprintf(stderr, "qsim recn: out of memory\n");
			return 1;
		}
		fr[nfr] = (struct rn_frame){
			.offered = f.t_ns, .len = f.len, .src = f.src,
			.dst = f.dst, .sl = f.sl, .flow = (uint32_t)fi,
			.seq = run.flows[fi].last_seq++,
			.route = rn_route(&net, f.src, f.dst),
		};
		nfr++;
	}
	if (in != stdin)
		fclose(in);
	rn_net_free(&net);
	p.step_ns = step;
	if (rn_net_init(&net, &p, fr, nfr))
		return 2;
	net.deliver = rq_deliver;
	net.ctx = &run;
	end = until ? until : (nfr ? fr[nfr - 1].offered : 0) + 10000000000ULL;
	for (now = 0; now <= end; now += step) {
		while (next < nfr && fr[next].offered <= now)
			rn_offer(&net, (int32_t)next++, now);
		rn_step(&net, now);
		if (now >= next_tick) {
			rn_tick(&net, now);
			next_tick = now + p.recn.refresh_ns / 4;
			k = rn_saqs_in_use(&net);
			if (k > saqs_max)
				saqs_max = k;
		}
		if (sample && now >= next_sample) {
			printf("saqs %" PRIu64 " %u\n", now, rn_saqs_in_use(&net));
			next_sample = now + sample;
		}
		if (!until && next == nfr && run.delivered == nfr)
			break;
		/* stuck: all offered, nothing delivered for 100 ms */
		if (!until && next == nfr && now > (nfr ? fr[nfr - 1].offered : 0) + 100000000 &&
		    now > run.last_at + 100000000)
			break;
	}
	if (until)
		run.last_at = until;
	v = run.last_at > run.warmup ? run.last_at - run.warmup : 0;
	for (i = 0; i < run.nflows; i++) {
		const struct rq_flow *f = &run.flows[i];
		char what[64];

		snprintf(what, sizeof(what), "flow %u %u %u", f->src, f->dst, f->sl);
		rq_print(what, f->frames, f->bytes, f->lat_sum, f->lat_max, v);
	}
	for (sl = 0; sl < RN_SLS; sl++) {
		uint64_t frames = 0, bytes = 0, lat = 0, lmax = 0;
		char what[16];

		for (i = 0; i < run.nflows; i++) {
			const struct rq_flow *f = &run.flows[i];

			if (f->sl != sl)
				continue;
			frames += f->frames;
			bytes += f->bytes;
			lat += f->lat_sum;
			if (f->lat_max > lmax)
				lmax = f->lat_max;
		}
		if (!frames)
			continue;
		snprintf(what, sizeof(what), "sl %u", sl);
		rq_print(what, frames, bytes, lat, lmax, v);
	}
	rn_stats_sum(&net, &st);
	printf("recn saqs_max %u saq_max_bytes %u saq_alloc %" PRIu64 " saq_free %" PRIu64
	       " saq_idle_free %" PRIu64 " saq_full %" PRIu64 " notify %" PRIu64
	       " xoff %" PRIu64 " xon %" PRIu64 " release %" PRIu64
	       " full %" PRIu64 " lease_expired %" PRIu64 " root_full %" PRIu64 " stale %" PRIu64
	       " lost %" PRIu64 "\n", saqs_max, net.saq_max_bytes, (uint64_t)st.saq_alloc, (uint64_t)st.saq_free,
	       (uint64_t)st.saq_idle_free, (uint64_t)st.saq_full, (uint64_t)st.notify_tx,
	       (uint64_t)st.xoff_tx, (uint64_t)st.xon_tx, (uint64_t)st.release_tx,
	       (uint64_t)st.full_tx, (uint64_t)st.lease_expired, (uint64_t)st.root_full, (uint64_t)st.stale_rx,
	       net.lost_msgs);
	printf("run arch %s end_ns %" PRIu64 " offered %zu delivered %" PRIu64
	       " left %" PRIu64 " reordered %" PRIu64 "\n", archs[p.arch], run.last_at, nfr,
	       run.delivered, (uint64_t)nfr - run.delivered, run.reordered);
	rn_net_free(&net);
	free(fr);
	free(run.flows);
	if (!until && run.delivered != nfr) {
		fprintf(stderr, "qsim recn: stuck with %" PRIu64 " of %zu frames delivered\n",
			run.delivered, nfr);
		return 1;
	}
	return 0;
}

const struct qsim_cmd qsim_cmd_recn = {
	.name = "recn",
	.summary = "RECN congestion isolation in a two-level lossless fabric",
	.main = rq_main,
};
