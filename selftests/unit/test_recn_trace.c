// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/lib/recn_trace.c: the trace lines qsim recn and
 * fabric-replay read, the probe fabric-replay puts in each datagram, and
 * the receiver's window.
 */
#include "unit.h"
#include "recn_trace.c"

UNIT_TEST(trace_lines_taken_and_refused)
{
	static const char *const bad[] = {
		"1 2 3 4", "1 2 3 4 5 6", "1 2 2 100 0", "1 0 1 0 0", "1 0 1 100 8",
		"-1 0 1 100 0", "1 +0 1 100 0", "1 0 1 100 0x", "1 0 1 1e3 0",
		"1 0 4294967296 100 0", "1 0 1 4294967296 0", "1 0 1 100 0 # late",
		"x", "1,0,1,100,0",
		/* past RT_TIME_MAX, and past 2^64 (which sscanf saturates) */
		"4611686018427387905 0 1 100 0", "99999999999999999999999 0 1 100 0",
	};
	struct rt_frame f;
	size_t i;

	ASSERT_EQ(rt_parse_line("12345 3 7 1442 5\n", &f), RT_FRAME);
	EXPECT_EQ(f.t_ns, 12345);
	EXPECT_EQ(f.src, 3);
	EXPECT_EQ(f.dst, 7);
	EXPECT_EQ(f.len, 1442);
	EXPECT_EQ(f.sl, 5);
	ASSERT_EQ(rt_parse_line("  \t0 0 1 64 7  \n", &f), RT_FRAME);
	EXPECT_EQ(f.sl, 7);
	EXPECT_EQ(f.len, 64);
	ASSERT_EQ(rt_parse_line("4611686018427387904 4294967295 0 4294967295 0", &f), RT_FRAME);
	EXPECT_EQ(f.t_ns, RT_TIME_MAX);
	EXPECT_EQ(f.src, UINT32_MAX);
	EXPECT_EQ(rt_parse_line("\n", &f), RT_BLANK);
	EXPECT_EQ(rt_parse_line("", &f), RT_BLANK);
	EXPECT_EQ(rt_parse_line("  # a comment 1 0 1 64 0\n", &f), RT_BLANK);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f.len = 99;
		if (rt_parse_line(bad[i], &f) != RT_BAD) {
			printf("# taken: \"%s\"\n", bad[i]);
			*unit_failed = 1;
		}
		EXPECT_EQ(f.len, 99);	/* untouched */
	}
}

UNIT_TEST(probe_round_trip_and_refusals)
{
	struct rt_probe p = { .src = 65532, .sl = 7, .seq = 0xfedcba98, .len = 1442,
			      .offered_ns = 0x0123456789abcdefULL }, q;
	uint8_t buf[RT_PROBE_LEN + 4];
	int i;

	memset(buf, 0xee, sizeof(buf));
	rt_probe_put(buf, &p);
	EXPECT_EQ(buf[RT_PROBE_LEN], 0xee);	/* writes no more than a probe */
	ASSERT_TRUE(rt_probe_get(buf, RT_PROBE_LEN, &q));
	EXPECT_EQ(q.src, p.src);
	EXPECT_EQ(q.sl, p.sl);
	EXPECT_EQ(q.seq, p.seq);
	EXPECT_EQ(q.len, p.len);
	EXPECT_EQ(q.offered_ns, p.offered_ns);
	EXPECT_TRUE(!rt_probe_get(buf, RT_PROBE_LEN - 1, &q));
	/* any byte of the magic, the SL, the reserved bytes or a zero length */
	for (i = 0; i < RT_PROBE_LEN; i++) {
		bool must_refuse = i < 4 || i >= 24;

		rt_probe_put(buf, &p);
		buf[i] ^= i == 24 ? 0x08 : 0x01;
		if (rt_probe_get(buf, RT_PROBE_LEN, &q) == must_refuse) {
			printf("# byte %d changed: %s\n", i, must_refuse ? "taken" : "refused");
			*unit_failed = 1;
		}
	}
	p.len = 0;
	rt_probe_put(buf, &p);
	EXPECT_TRUE(!rt_probe_get(buf, RT_PROBE_LEN, &q));
}

UNIT_TEST(payload_makes_the_frame_len)
{
	EXPECT_EQ(rt_payload_len(1442), 1400);
	EXPECT_EQ(rt_payload_len(RT_FRAME_MIN), RT_PROBE_LEN);
	EXPECT_EQ(rt_payload_len(RT_FRAME_MIN + 1), RT_PROBE_LEN + 1);
	/* shorter frames still carry a whole probe */
	EXPECT_EQ(rt_payload_len(64), RT_PROBE_LEN);
	EXPECT_EQ(rt_payload_len(1), RT_PROBE_LEN);
}

UNIT_TEST(window_counts_inside_only)
{
	struct rt_window w = { .lo = 1000, .hi = 2000 };
	struct rt_probe p = { .sl = 3, .len = 500, .offered_ns = 900 };
	uint64_t t;

	/* 0 .. 2999 in steps of 10: 100 arrivals inside, 200 outside */
	for (t = 0; t < 3000; t += 10)
		rt_account(&w, &p, t);
	EXPECT_EQ(w.sl[3].frames, 100);
	EXPECT_EQ(w.sl[3].bytes, 50000);
	EXPECT_EQ(w.sl[3].outside, 200);
	EXPECT_EQ(w.sl[3].lat_max_ns, 1990 - 900);
	/* arrivals 1000 .. 1990: latencies 100 .. 1090, mean 595 */
	EXPECT_EQ(w.sl[3].lat_sum_ns / w.sl[3].frames, 595);
	EXPECT_EQ(w.sl[2].frames + w.sl[4].frames + w.sl[2].outside, 0);
	/* the window's ends: lo inside, hi not */
	p.sl = 0;
	rt_account(&w, &p, 1000);
	rt_account(&w, &p, 2000);
	EXPECT_EQ(w.sl[0].frames, 1);
	EXPECT_EQ(w.sl[0].outside, 1);
	/* offered after its arrival (a clock stepped back): no wait */
	p.offered_ns = 1500;
	rt_account(&w, &p, 1200);
	EXPECT_EQ(w.sl[0].frames, 2);
	EXPECT_EQ(w.sl[0].lat_max_ns, 100);
}

/* A frame offered before the run began is an earlier run's: not counted. */
UNIT_TEST(window_leaves_out_an_earlier_runs_frames)
{
	struct rt_window w = { .start = 500, .lo = 1000, .hi = 2000 };
	struct rt_probe p = { .sl = 1, .len = 100, .offered_ns = 499 };

	rt_account(&w, &p, 1500);
	EXPECT_EQ(w.stale, 1);
	EXPECT_EQ(w.sl[1].frames + w.sl[1].outside, 0);
	p.offered_ns = 500;
	rt_account(&w, &p, 1500);
	EXPECT_EQ(w.stale, 1);
	EXPECT_EQ(w.sl[1].frames, 1);
	EXPECT_EQ(w.sl[1].lat_max_ns, 1000);
}

int main(void)
{
	return unit_run();
}
