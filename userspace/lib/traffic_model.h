/* SPDX-License-Identifier: GPL-2.0 */
/*
 * traffic_model.h: the traffic classes of the measurement tool as plain C
 * (Documentation/fabric-meter.rst, "Traffic models").  A model turns a
 * class's parameters into a sequence of messages, each a size and the
 * time it is generated, relative to the start of the run.  No I/O except
 * the frame-size trace parser; unit-tested on the host
 * (selftests/unit/test_traffic_model.c).
 *
 *   control     sizes uniform in [min, max] (128 B .. 2 KB), Poisson
 *               arrivals at the mean rate
 *   multimedia  one frame every interval (40 ms); sizes from a frame-size
 *               trace scaled to the mean rate, or from a synthetic MPEG-like
 *               group of pictures (IBBPBBPBBPBB); clamped to [min, max]
 *   besteffort  self-similar: bursts of back-to-back messages to one
 *   background  destination, burst lengths and sizes bounded-Pareto
 *               (sizes in [min, max], 128 B .. 100 KB); the next burst
 *               starts when the previous one's bytes at the mean rate are
 *               used up, so the mean rate holds over any long run
 *   cbr         fixed size at fixed intervals
 */
#ifndef FQ_TRAFFIC_MODEL_H
#define FQ_TRAFFIC_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum tm_kind {
	TM_CONTROL,
	TM_MULTIMEDIA,
	TM_BESTEFFORT,
	TM_BACKGROUND,
	TM_CBR,
	TM_KINDS,
};

/* xorshift64*: seedable, cheap, the same sequence on every machine. */
struct tm_rng {
	uint64_t s;
};

void tm_rng_seed(struct tm_rng *r, uint64_t seed);
uint64_t tm_rng_next(struct tm_rng *r);
/* Uniform in (0, 1]: log() of it is finite. */
double tm_rng_unit(struct tm_rng *r);
/* Exponential with @mean. */
double tm_exp(struct tm_rng *r, double mean);
/* Pareto with shape @alpha bounded to [@lo, @hi] (inverse CDF). */
double tm_pareto(struct tm_rng *r, double alpha, double lo, double hi);
/* Mean and tail P(X > x) of that distribution. */
double tm_pareto_mean(double alpha, double lo, double hi);
double tm_pareto_tail(double alpha, double lo, double hi, double x);

/* A frame-size trace: one frame size in bytes per entry. */
struct tm_trace {
	uint32_t *size;
	size_t n;
	double mean;
};

#define TM_TRACE_MAX_FRAMES	1000000
#define TM_TRACE_MAX_SIZE	(16u << 20)

/*
 * Parse a trace: one frame per line, "SIZE" or "TYPE SIZE" (TYPE one of
 * I, P, B; ignored), SIZE in bytes 1 .. 16 MiB; blank lines and lines
 * starting with '#' are skipped.  On error returns -1 and writes
 * "NAME:LINE: what" into @err; the trace is then empty.
 */
int tm_trace_parse(FILE *f, const char *name, struct tm_trace *t,
		   char *err, size_t errlen);
void tm_trace_free(struct tm_trace *t);

struct tm_params {
	enum tm_kind kind;
	double rate_bps;	/* mean offered load, bits/s of message bytes */
	uint32_t min_size;	/* bytes; cbr: the size */
	uint32_t max_size;
	double interval_ns;	/* multimedia: frame interval */
	double alpha;		/* besteffort/background: size shape */
	double burst_mean;	/* besteffort/background: mean messages per burst */
	const struct tm_trace *trace;	/* multimedia: sizes, or NULL (GOP) */
	unsigned int phase;	/* multimedia: first trace / GOP position */
	uint64_t seed;
};

/* Defaults of a kind: sizes, interval, shapes of Table 1; rate unset. */
void tm_params_default(struct tm_params *p, enum tm_kind kind);

struct tm_model {
	struct tm_params p;
	struct tm_rng rng;
	double next_ns;		/* generation time of the next message */
	double mean_size;	/* bytes, before clamping (model's target) */
	double gap_ns;		/* cbr interval */
	/* multimedia */
	size_t pos;		/* trace index or GOP position */
	double scale;		/* trace or GOP size per weight unit */
	/* bursts */
	uint32_t burst_left;
	double burst_bytes;
	double burst_alpha;	/* shape of the burst lengths */
};

struct tm_msg {
	double at_ns;		/* generation time from the start of the run */
	uint32_t size;		/* bytes */
};

/* 0, or -1 with a reason in @err for parameters out of range. */
int tm_model_init(struct tm_model *m, const struct tm_params *p,
		  char *err, size_t errlen);
void tm_model_next(struct tm_model *m, struct tm_msg *msg);

const char *tm_kind_name(enum tm_kind kind);
/* -1 for an unknown name. */
int tm_kind_parse(const char *name);

#endif /* FQ_TRAFFIC_MODEL_H */
