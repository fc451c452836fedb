// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/lib/traffic_model.c: the traffic classes of
 * fabric-meter.  The unit-test build links no library, so the model's
 * source is compiled in here.
 */
#include <math.h>

#include "unit.h"
#include "traffic_model.c"

#define EXPECT_NEAR(a, b, rel)						\
	do {								\
		double unit_x = (a), unit_y = (b);			\
		if (!(fabs(unit_x - unit_y) <= (rel) * fabs(unit_y)))	\
			UNIT_FAIL("%s ~ %s: %g vs %g (want within %g %%)", \
				  #a, #b, unit_x, unit_y, (rel) * 100.0); \
	} while (0)

/* Run @n messages of a model; mean offered rate in bit/s, sizes checked. */
static double run_model(struct tm_model *m, unsigned int n, uint32_t *min,
			uint32_t *max, double *mean_size)
{
	struct tm_msg msg, last = { 0 };
	double bytes = 0;
	unsigned int i;

	*min = UINT32_MAX;
	*max = 0;
	*mean_size = 0;
	for (i = 0; i < n; i++) {
		tm_model_next(m, &msg);
		if (msg.at_ns < last.at_ns)
			return -1;	/* time went backwards */
		last = msg;
		bytes += msg.size;
		if (msg.size < *min)
			*min = msg.size;
		if (msg.size > *max)
			*max = msg.size;
	}
	*mean_size = bytes / n;
	/* the last message's bytes belong to the time after it */
	return (bytes - last.size) * 8e9 / last.at_ns;
}

static void init_kind(struct tm_model *m, enum tm_kind kind, double rate, int *unit_failed)
{
	struct tm_params p;
	char err[128];

	tm_params_default(&p, kind);
	p.rate_bps = rate;
	p.seed = 42;
	if (tm_model_init(m, &p, err, sizeof(err)))
		UNIT_FAIL("init %s: %s", tm_kind_name(kind), err);
}

UNIT_TEST(control_mean_rate_sizes_and_poisson_gaps)
{
	struct tm_model m;
	struct tm_msg msg;
	uint32_t lo, hi;
	double rate, mean, prev = 0, gap, sum = 0, sum2 = 0;
	unsigned int i, n = 100000;

	init_kind(&m, TM_CONTROL, 10e6, unit_failed);
	rate = run_model(&m, 200000, &lo, &hi, &mean);
	EXPECT_NEAR(rate, 10e6, 0.02);
	EXPECT_TRUE(lo >= 128 && hi <= 2048);
	EXPECT_TRUE(lo < 140 && hi > 2030);	/* the whole range is used */
	EXPECT_NEAR(mean, 1088, 0.01);

	/* exponential gaps: standard deviation equals the mean */
	init_kind(&m, TM_CONTROL, 10e6, unit_failed);
	for (i = 0; i < n; i++) {
		tm_model_next(&m, &msg);
		gap = msg.at_ns - prev;
		prev = msg.at_ns;
		sum += gap;
		sum2 += gap * gap;
	}
	mean = sum / n;
	EXPECT_NEAR(mean, 1088 * 8e9 / 10e6, 0.02);
	EXPECT_NEAR(sqrt(sum2 / n - mean * mean), mean, 0.03);
}

UNIT_TEST(cbr_is_exact)
{
	struct tm_model m;
	struct tm_params p;
	struct tm_msg msg;
	char err[128];
	unsigned int i;

	tm_params_default(&p, TM_CBR);
	p.min_size = p.max_size = 500;
	p.rate_bps = 4e6;		/* 1000 messages/s */
	ASSERT_EQ(tm_model_init(&m, &p, err, sizeof(err)), 0);
	for (i = 0; i < 1000; i++) {
		tm_model_next(&m, &msg);
		EXPECT_EQ(msg.size, 500);
		EXPECT_EQ(llround(msg.at_ns), (long long)i * 1000000);
	}
}

UNIT_TEST(multimedia_gop_frames_every_40ms)
{
	struct tm_model m;
	struct tm_msg msg;
	uint32_t lo, hi;
	double rate, mean;
	unsigned int i;

	/* 3 MB/s as in the paper: a 120 KB mean frame would clamp; use 1 MB/s */
	init_kind(&m, TM_MULTIMEDIA, 8e6, unit_failed);
	for (i = 0; i < 24; i++) {
		tm_model_next(&m, &msg);
		EXPECT_EQ(llround(msg.at_ns), (long long)i * 40000000);
	}
	init_kind(&m, TM_MULTIMEDIA, 8e6, unit_failed);
	rate = run_model(&m, 12000, &lo, &hi, &mean);
	EXPECT_NEAR(mean, 8e6 * 0.04 / 8, 0.02);
	EXPECT_NEAR(rate, 8e6, 0.02);
	EXPECT_TRUE(lo >= 1024 && hi <= 120 * 1024);
	/* I frames are the big ones: the first frame of every group */
	init_kind(&m, TM_MULTIMEDIA, 8e6, unit_failed);
	tm_model_next(&m, &msg);
	EXPECT_TRUE(msg.size > 2.5 * 40000);
	tm_model_next(&m, &msg);
	EXPECT_TRUE(msg.size < 0.8 * 40000);

	/* phase 3 starts at the first P frame of the group */
	{
		struct tm_params p;
		char err[128];

		tm_params_default(&p, TM_MULTIMEDIA);
		p.rate_bps = 8e6;
		p.phase = 3 + 12;
		ASSERT_EQ(tm_model_init(&m, &p, err, sizeof(err)), 0);
		tm_model_next(&m, &msg);
		EXPECT_TRUE(msg.size > 1.5 * 40000 / (19.0 / 12) &&
			    msg.size < 2.5 * 40000 / (19.0 / 12));
	}
}

UNIT_TEST(multimedia_rejects_a_rate_outside_the_frame_sizes)
{
	struct tm_model m;
	struct tm_params p;
	char err[128];

	tm_params_default(&p, TM_MULTIMEDIA);
	p.rate_bps = 100e6;		/* 500 KB frames */
	EXPECT_EQ(tm_model_init(&m, &p, err, sizeof(err)), -1);
	EXPECT_TRUE(strstr(err, "outside") != NULL);
	p.rate_bps = 0;
	EXPECT_EQ(tm_model_init(&m, &p, err, sizeof(err)), -1);
}

UNIT_TEST(multimedia_trace_scaled_to_the_rate)
{
	static const char text[] = "# frame sizes\nI 9000\nB 1000\n\nP 3000\n  B 1000\n";
	struct tm_trace t;
	struct tm_model m;
	struct tm_params p;
	struct tm_msg msg;
	char err[128];
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(tm_trace_parse(f, "t", &t, err, sizeof(err)), 0);
	fclose(f);
	ASSERT_EQ(t.n, 4);
	EXPECT_EQ(t.size[0], 9000);
	EXPECT_EQ(t.size[3], 1000);
	EXPECT_EQ(llround(t.mean), 3500);

	tm_params_default(&p, TM_MULTIMEDIA);
	p.trace = &t;
	p.rate_bps = 1.4e6;		/* 7000-byte frames on average: x2 */
	ASSERT_EQ(tm_model_init(&m, &p, err, sizeof(err)), 0);
	tm_model_next(&m, &msg);
	EXPECT_EQ(msg.size, 18000);
	tm_model_next(&m, &msg);
	EXPECT_EQ(msg.size, 2000);
	tm_model_next(&m, &msg);
	EXPECT_EQ(msg.size, 6000);
	tm_model_next(&m, &msg);
	tm_model_next(&m, &msg);	/* wraps around */
	EXPECT_EQ(msg.size, 18000);
	tm_trace_free(&t);
}

/* Parse @text; expect failure and @want in the message. */
static void expect_trace_error(const char *text, const char *want, int *unit_failed)
{
	struct tm_trace t;
	char err[160] = "";
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	if (!f) {
		UNIT_FAIL("fmemopen");
		return;
	}
	if (tm_trace_parse(f, "clip.txt", &t, err, sizeof(err)) != -1)
		UNIT_FAIL("trace \"%s\" accepted", text);
	else if (!strstr(err, want))
		UNIT_FAIL("error \"%s\" lacks \"%s\"", err, want);
	EXPECT_TRUE(t.size == NULL && t.n == 0);
	fclose(f);
}

UNIT_TEST(trace_errors_name_the_line)
{
	expect_trace_error("1000\n2000\nabc\n", "clip.txt:3: want", unit_failed);
	expect_trace_error("1000\n\n# c\n20x0\n", "clip.txt:4: trailing", unit_failed);
	expect_trace_error("I 1000\nP 0\n", "clip.txt:2: frame size 0 out of range", unit_failed);
	expect_trace_error("99999999\n", "clip.txt:1: frame size 99999999", unit_failed);
	expect_trace_error("-5\n", "clip.txt:1: want", unit_failed);
	expect_trace_error("X 100\n", "clip.txt:1: want", unit_failed);
	expect_trace_error("1000 2000\n", "clip.txt:1: trailing", unit_failed);
	expect_trace_error("# only comments\n\n", "no frame sizes", unit_failed);
	expect_trace_error("", "clip.txt:0: no frame sizes", unit_failed);
}

UNIT_TEST(pareto_bounds_mean_and_tail)
{
	struct tm_rng r;
	double lo = 128, hi = 100 * 1024, a = 1.2, x, sum = 0;
	double probes[] = { 256, 1024, 8192, 65536 };
	unsigned int above[4] = { 0 }, i, j, n = 400000;

	tm_rng_seed(&r, 7);
	for (i = 0; i < n; i++) {
		x = tm_pareto(&r, a, lo, hi);
		if (x < lo || x > hi) {
			UNIT_FAIL("sample %g outside [%g, %g]", x, lo, hi);
			return;
		}
		sum += x;
		for (j = 0; j < 4; j++)
			above[j] += x > probes[j];
	}
	EXPECT_NEAR(sum / n, tm_pareto_mean(a, lo, hi), 0.03);
	/*
	 * The tail follows (lo/x)^a: heavy, but bounded.  Counts above a
	 * probe are binomial: allow 4 standard deviations.
	 */
	for (j = 0; j < 4; j++) {
		double want = tm_pareto_tail(a, lo, hi, probes[j]) * n;

		if (fabs(above[j] - want) > 4 * sqrt(want))
			UNIT_FAIL("%u samples above %g, want %.0f +- %.0f",
				  above[j], probes[j], want, 4 * sqrt(want));
	}
	/* a known value: P(X > 1024) = (8^-1.2 - 800^-1.2) / (1 - 800^-1.2) */
	EXPECT_NEAR(tm_pareto_tail(a, lo, hi, 1024), 0.0821, 0.01);
	EXPECT_NEAR(tm_pareto_mean(1.0, 1, M_E), M_E / (M_E - 1), 1e-9);
}

UNIT_TEST(selfsimilar_bursts_keep_the_mean_rate)
{
	struct tm_model m;
	struct tm_msg msg;
	uint32_t lo, hi;
	double rate, mean, prev = -1;
	unsigned int i, same = 0, n = 300000;
	enum tm_kind k;

	for (k = TM_BESTEFFORT; k <= TM_BACKGROUND; k++) {
		init_kind(&m, k, 20e6, unit_failed);
		rate = run_model(&m, n, &lo, &hi, &mean);
		EXPECT_NEAR(rate, 20e6, 0.03);
		EXPECT_TRUE(lo >= 128 && hi <= 100 * 1024);
		EXPECT_TRUE(hi > 50 * 1024);	/* the tail is reached */
		EXPECT_NEAR(mean, tm_pareto_mean(1.2, 128, 100 * 1024), 0.05);
	}
	/* messages come in bursts: many share a generation time */
	init_kind(&m, TM_BESTEFFORT, 20e6, unit_failed);
	for (i = 0; i < 10000; i++) {
		tm_model_next(&m, &msg);
		same += msg.at_ns == prev;
		prev = msg.at_ns;
	}
	EXPECT_TRUE(same > 10000 * 0.7);
}

UNIT_TEST(same_seed_same_sequence)
{
	struct tm_model a, b;
	struct tm_msg x, y;
	unsigned int i;

	init_kind(&a, TM_BESTEFFORT, 1e6, unit_failed);
	init_kind(&b, TM_BESTEFFORT, 1e6, unit_failed);
	for (i = 0; i < 1000; i++) {
		tm_model_next(&a, &x);
		tm_model_next(&b, &y);
		EXPECT_EQ(x.size, y.size);
		EXPECT_TRUE(x.at_ns == y.at_ns);
	}
}

UNIT_TEST(kind_names)
{
	EXPECT_EQ(tm_kind_parse("control"), TM_CONTROL);
	EXPECT_EQ(tm_kind_parse("background"), TM_BACKGROUND);
	EXPECT_EQ(tm_kind_parse("video"), -1);
	EXPECT_TRUE(!strcmp(tm_kind_name(TM_MULTIMEDIA), "multimedia"));
}

int main(void)
{
	return unit_run();
}
