// SPDX-License-Identifier: GPL-2.0
/*
 * qsim lanes: the lane schedulers of kernel/core/aoq_core.h at flit level
 * (paper: aoq-anchored-opportunity-queueing, section 5).
 *
 * One output port with N virtual lanes.  Each lane has a source queue
 * (packets generated at random, unbounded) and an input buffer of B
 * flits.  Every cycle each lane may move one flit of its oldest packet
 * from the source into the buffer if there is room (the upstream link),
 * except that with probability --bubble the upstream link skips the cycle:
 * a pipeline bubble.  Then the scheduler sends at most one flit.  The
 * delay of a packet is the number of cycles from its generation to the
 * departure of its tail flit.
 *
 * This is one switch port, not the paper's 8x8 Banyan: bubbles come from
 * the --bubble model instead of from contention upstream.  The curves keep
 * the paper's shape (FBRR above the anchored disciplines, the gap growing
 * with packet size and lane count), not its absolute numbers.
 *
 * Fairness is measured as the paper defines it (Definition 4): the core's
 * relative fairness measure gives max_rf, the largest difference of the
 * opportunities two lanes were offered over an interval in which both
 * were active, in every mode; max_m is M, the most opportunities one
 * packet took.  Packets are never cut here (no message bound): the model
 * is the paper's.
 *
 *   qsim lanes --example            the worked example of section 2
 *   qsim lanes [options]            one run, one CSV line
 *   qsim lanes --sweep              the data of Figs. 7 and 8 as CSV
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "core/aoq_core.h"
#include "qsim.h"

#define LANES_QCAP	4096	/* source queue per lane, packets */

static const char *const lanes_mode_names[AOQ_MODE_COUNT] = {
	[AOQ_MODE_AOQ] = "aoq",
	[AOQ_MODE_FBRR] = "fbrr",
	[AOQ_MODE_ARR] = "arr",
	[AOQ_MODE_PBRR] = "pbrr",
};

struct lanes_pkt {
	unsigned long long born;
	unsigned int size, injected, sent;
};

struct lanes_lane {
	struct lanes_pkt q[LANES_QCAP];
	unsigned int head, tail;	/* ring of packets not fully sent */
	unsigned int buffered;		/* flits in the input buffer */
	unsigned int inject;		/* index of the packet being injected */
};

struct lanes_sim {
	struct lanes_lane *lane;
	unsigned int nlanes, buf, smin, smax;
	double load, bubble;
	unsigned long long now, cycles, warmup;
	unsigned long long delivered, delay_sum, flits_sent, overflow;
	unsigned long long rng;		/* arrivals: the same in every mode */
	unsigned long long rng_bubble;	/* bubbles */
	fq_u64 max_spread, max_rf, max_m;
};

/* xorshift64*, uniform in [0, 1) */
static double lanes_rand01(unsigned long long *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return (double)((*x * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static unsigned int lanes_qlen(const struct lanes_lane *l)
{
	return (l->tail - l->head) % LANES_QCAP;
}

static bool lanes_backlogged(void *ctx, unsigned int lane)
{
	struct lanes_sim *s = ctx;
	struct lanes_lane *l = &s->lane[lane];

	return l->head != l->tail && l->q[l->head].injected > l->q[l->head].sent;
}

static enum aoq_tx lanes_send(void *ctx, unsigned int lane)
{
	struct lanes_sim *s = ctx;
	struct lanes_lane *l = &s->lane[lane];
	struct lanes_pkt *p;

	if (!lanes_backlogged(ctx, lane))
		return AOQ_TX_NONE;
	p = &l->q[l->head];
	p->sent++;
	l->buffered--;
	s->flits_sent++;
	if (p->sent < p->size)
		return AOQ_TX_UNIT;
	if (p->born >= s->warmup) {
		s->delivered++;
		s->delay_sum += s->now - p->born + 1;
	}
	if (l->inject == l->head)
		l->inject = (l->inject + 1) % LANES_QCAP;
	l->head = (l->head + 1) % LANES_QCAP;
	return AOQ_TX_TAIL;
}

static const struct aoq_ops lanes_ops = {
	.send = lanes_send,
	.backlogged = lanes_backlogged,
};

static void lanes_add(struct lanes_sim *s, unsigned int lane, unsigned int size,
		      unsigned long long born)
{
	struct lanes_lane *l = &s->lane[lane];

	if (lanes_qlen(l) == LANES_QCAP - 1) {
		s->overflow++;	/* saturated: the source queue is full */
		return;
	}
	l->q[l->tail] = (struct lanes_pkt){ .born = born, .size = size };
	l->tail = (l->tail + 1) % LANES_QCAP;
}

/* The upstream link of a lane: one flit per cycle, unless a bubble. */
static void lanes_inject(struct lanes_sim *s, unsigned int lane)
{
	struct lanes_lane *l = &s->lane[lane];
	struct lanes_pkt *p;

	while (l->inject != l->tail && l->q[l->inject].injected == l->q[l->inject].size)
		l->inject = (l->inject + 1) % LANES_QCAP;
	if (l->inject == l->tail || l->buffered >= s->buf)
		return;
	if (s->bubble > 0 && lanes_rand01(&s->rng_bubble) < s->bubble)
		return;
	p = &l->q[l->inject];
	p->injected++;
	l->buffered++;
}

static void lanes_run(struct lanes_sim *s, struct aoq_sched *sch)
{
	double mean = (s->smin + s->smax) / 2.0;
	/* packets per lane per cycle for the offered load in flits/cycle */
	double rate = s->load / (mean * s->nlanes);
	unsigned int i;

	for (s->now = 0; s->now < s->cycles; s->now++) {
		for (i = 0; i < s->nlanes; i++) {
			if (lanes_rand01(&s->rng) < rate) {
				unsigned int size = s->smin +
					(unsigned int)(lanes_rand01(&s->rng) * (s->smax - s->smin + 1));

				if (size > s->smax)
					size = s->smax;
				lanes_add(s, i, size, s->now);
			}
			lanes_inject(s, i);
			if (lanes_backlogged(s, i))
				aoq_lane_arrive(sch, i);
		}
		aoq_dequeue(sch, s->now, &lanes_ops, s);
	}
	s->max_spread = aoq_max_spread(sch);
	s->max_rf = sch->rf ? sch->rf->max / AOQ_OC_UNIT : 0;
	s->max_m = sch->max_msg_opps;
}

static int lanes_one(enum aoq_mode mode, unsigned int nlanes, unsigned int smin,
		     unsigned int smax, double load, double bubble,
		     unsigned int buf, unsigned long long cycles,
		     unsigned long long seed, FILE *out)
{
	struct lanes_sim s = {
		.nlanes = nlanes, .buf = buf, .smin = smin, .smax = smax,
		.load = load, .bubble = bubble, .cycles = cycles,
		.warmup = cycles / 10, .rng = seed ? seed : 1,
		.rng_bubble = (seed ? seed : 1) ^ 0x9e3779b97f4a7c15ULL,
	};
	static struct aoq_sched sch;
	static struct aoq_rf rf;

	s.lane = calloc(nlanes, sizeof(*s.lane));
	if (!s.lane) {
		perror("qsim lanes");
		return 1;
	}
	aoq_init(&sch, mode, nlanes);
	sch.msg_limit = 0;
	memset(&rf, 0, sizeof(rf));
	sch.rf = &rf;
	lanes_run(&s, &sch);
	fprintf(out, "%u,%u,%u,%.2f,%.3f,%s,%.2f,%.4f,%llu,%llu,%llu,%llu,%llu\n",
		nlanes, smin, smax, load, bubble, lanes_mode_names[mode],
		s.delivered ? (double)s.delay_sum / s.delivered : 0.0,
		(double)s.flits_sent / s.cycles, s.delivered,
		(unsigned long long)s.max_spread, s.overflow,
		(unsigned long long)s.max_rf, (unsigned long long)s.max_m);
	free(s.lane);
	return 0;
}

static const char lanes_csv_header[] =
	"lanes,size_min,size_max,load,bubble,mode,avg_delay,throughput,packets,max_spread,overflow,max_rf,max_m\n";

/* The worked example: four 10-flit packets in four lanes at cycle 0. */
static int lanes_example(FILE *out)
{
	enum aoq_mode mode;
	unsigned int i;

	fprintf(out, "mode,lane,completed_at_cycle\n");
	for (mode = AOQ_MODE_AOQ; mode < AOQ_MODE_COUNT; mode++) {
		struct lanes_sim s = { .nlanes = 4, .buf = 512 };
		static struct aoq_sched sch;
		unsigned int done[4] = { 0 };

		s.lane = calloc(4, sizeof(*s.lane));
		if (!s.lane)
			return 1;
		aoq_init(&sch, mode, 4);
		for (i = 0; i < 4; i++) {
			lanes_add(&s, i, 10, 0);
			s.lane[i].q[0].injected = 10;	/* all flits buffered */
			s.lane[i].buffered = 10;
			aoq_lane_arrive(&sch, i);
		}
		for (s.now = 1; s.now <= 100; s.now++) {
			int lane = aoq_dequeue(&sch, s.now, &lanes_ops, &s);

			if (lane >= 0 && s.lane[lane].head == 1 && !done[lane])
				done[lane] = (unsigned int)s.now;
		}
		for (i = 0; i < 4; i++)
			fprintf(out, "%s,%u,%u\n", lanes_mode_names[mode], i, done[i]);
		free(s.lane);
	}
	return 0;
}

static int lanes_sweep(unsigned int buf, double bubble,
		       unsigned long long cycles, unsigned long long seed,
		       FILE *out)
{
	static const unsigned int lanes[] = { 4, 8 };
	static const unsigned int range[][2] = { { 1, 50 }, { 1, 100 }, { 50, 100 } };
	static const enum aoq_mode modes[] = {
		AOQ_MODE_FBRR, AOQ_MODE_ARR, AOQ_MODE_AOQ, AOQ_MODE_PBRR,
	};
	unsigned int a, b, c, m;

	fputs(lanes_csv_header, out);
	for (a = 0; a < 2; a++)
		for (b = 0; b < 3; b++)
			for (c = 50; c <= 95; c += 5)
				for (m = 0; m < 4; m++)
					if (lanes_one(modes[m], lanes[a], range[b][0],
						      range[b][1], c / 100.0, bubble,
						      buf, cycles, seed, out))
						return 1;
	return 0;
}

static void lanes_usage(FILE *f)
{
	fprintf(f,
		"usage: qsim lanes [--mode aoq|fbrr|arr|pbrr] [--lanes N] [--size MIN-MAX]\n"
		"                  [--load L] [--bubble P] [--buffer FLITS] [--cycles N]\n"
		"                  [--seed S] [--no-header]\n"
		"       qsim lanes --example\n"
		"       qsim lanes --sweep [--bubble P] [--buffer FLITS] [--cycles N] [--seed S]\n"
		"\n"
		"Flit-level model of one output port with virtual lanes.  One run prints\n"
		"one CSV line: %s"
		"--sweep prints the data of the paper's Figs. 7 and 8 (4 and 8 lanes,\n"
		"sizes 1-50, 1-100, 50-100 flits, loads 0.50..0.95, all four modes).\n"
		"Defaults: mode aoq, 4 lanes, size 1-50, load 0.8, bubble 0.1,\n"
		"buffer 512 flits, 200000 cycles, seed 1.\n", lanes_csv_header);
}

/* through parse_u64(): strtoull() took a sign, --cycles -18446744073709551615 was 1 */
static int lanes_parse_ull(const char *arg, unsigned long long lo,
			   unsigned long long hi, unsigned long long *v)
{
	uint64_t x;

	if (!parse_u64(arg, 0, hi, &x) || x < lo)
		return -1;
	*v = x;
	return 0;
}

static int lanes_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "lanes", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "load", required_argument, NULL, 'l' },
		{ "bubble", required_argument, NULL, 'b' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "cycles", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 'S' },
		{ "example", no_argument, NULL, 'e' },
		{ "sweep", no_argument, NULL, 'w' },
		{ "no-header", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	enum aoq_mode mode = AOQ_MODE_AOQ;
	unsigned long long nlanes = 4, buf = 512, cycles = 200000, seed = 1, v;
	unsigned int smin = 1, smax = 50;
	double load = 0.8, bubble = 0.1;
	bool example = false, sweep = false, header = true;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			for (v = 0; v < AOQ_MODE_COUNT; v++)
				if (!strcmp(optarg, lanes_mode_names[v]))
					break;
			if (v == AOQ_MODE_COUNT) {
				fprintf(stderr, "qsim lanes: unknown mode '%s'\n", optarg);
				return 2;
			}
			mode = (enum aoq_mode)v;
			break;
		case 'n':
			if (lanes_parse_ull(optarg, 1, AOQ_MAX_LANES, &nlanes)) {
				fprintf(stderr, "qsim lanes: --lanes 1..%d\n", AOQ_MAX_LANES);
				return 2;
			}
			break;
		case 's':
			/* not sscanf()'s "%u-%u": 4294967297-50 was 1-50 */
			if (!parse_uint_pair(optarg, '-', 100000, 100000, &smin, &smax) ||
			    !smin || smin > smax) {
				fprintf(stderr, "qsim lanes: --size MIN-MAX, 1 <= MIN <= MAX\n");
				return 2;
			}
			break;
		case 'l':
			/* !(x > 0): NaN too */
			if (!parse_double(optarg, 0, 1.5, &load) || !(load > 0)) {
				fprintf(stderr, "qsim lanes: --load in (0, 1.5]\n");
				return 2;
			}
			break;
		case 'b':
			if (!parse_double(optarg, 0, 1, &bubble) || !(bubble < 1)) {
				fprintf(stderr, "qsim lanes: --bubble in [0, 1)\n");
				return 2;
			}
			break;
		case 'B':
			if (lanes_parse_ull(optarg, 1, 1 << 20, &buf)) {
				fprintf(stderr, "qsim lanes: --buffer 1..1048576 flits\n");
				return 2;
			}
			break;
		case 'c':
			if (lanes_parse_ull(optarg, 1, 1ULL << 40, &cycles)) {
				fprintf(stderr, "qsim lanes: bad --cycles\n");
				return 2;
			}
			break;
		case 'S':
			if (lanes_parse_ull(optarg, 0, ~0ULL, &seed)) {
				fprintf(stderr, "qsim lanes: bad --seed\n");
				return 2;
			}
			break;
		case 'e':
			example = true;
			break;
		case 'w':
			sweep = true;
			break;
		case 'H':
			header = false;
			break;
		case 'h':
			lanes_usage(stdout);
			return 0;
		default:
			lanes_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "qsim lanes: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (example)
		return lanes_example(stdout);
	if (sweep)
		return lanes_sweep(buf, bubble, cycles, seed, stdout);
	if (header)
		fputs(lanes_csv_header, stdout);
	return lanes_one(mode, nlanes, smin, smax, load, bubble, buf, cycles,
			 seed, stdout);
}

const struct qsim_cmd qsim_cmd_lanes = {
	.name = "lanes",
	.summary = "lane schedulers at flit level (aoq / fbrr / arr / pbrr)",
	.main = lanes_main,
};
