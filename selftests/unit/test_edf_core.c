// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the edf deadline arithmetic (paper section 3.1). */
#include "unit.h"
#include "core/edf_core.h"

UNIT_TEST(vclock_formula)
{
	/* 1500 B at 1 Gbit/s (125e6 B/s) is 12 us */
	EXPECT_EQ(edf_tx_time(1500, 125000000), 12000);
	/* idle flow: starts from now */
	EXPECT_EQ(edf_vclock_deadline(0, 1000000, 1500, 125000000), 1012000);
	/* backlogged flow: starts from its previous deadline */
	EXPECT_EQ(edf_vclock_deadline(2000000, 1000000, 1500, 125000000), 2012000);
}

UNIT_TEST(tx_time_rounds_up)
{
	/* 1 byte at 3 B/s: 333333333.3 ns -> 333333334 */
	EXPECT_EQ(edf_tx_time(1, 3), 333333334);
	EXPECT_EQ(edf_tx_time(0, 1000), 0);
	EXPECT_EQ(edf_tx_time(1, 0), EDF_NSEC_PER_SEC);
}

UNIT_TEST(rate_and_length_extremes_do_not_overflow)
{
	/* 64 KB at 1 kbit/s: 524.288 s */
	EXPECT_EQ(edf_tx_time(EDF_LEN_MAX, EDF_RATE_MIN), 524288000000ULL);
	/* 64 B at 400 Gbit/s: 1.28 ns -> 2 */
	EXPECT_EQ(edf_tx_time(64, EDF_RATE_MAX), 2);
	/* 64 KB at 400 Gbit/s: 1310.72 ns -> 1311 */
	EXPECT_EQ(edf_tx_time(EDF_LEN_MAX, EDF_RATE_MAX), 1311);
	/* the largest 32-bit length at the lowest rate still fits */
	EXPECT_EQ(edf_tx_time(0xffffffffU, EDF_RATE_MIN), 34359738360000000ULL);
	/* near the end of time deadlines saturate rather than wrap */
	EXPECT_EQ(edf_vclock_deadline(EDF_TIME_MAX - 5, 0, 1500, EDF_RATE_MIN),
		  EDF_TIME_MAX);
	EXPECT_EQ(edf_frame_deadline(EDF_TIME_MAX - 1, 0, 10000000, 1), EDF_TIME_MAX);
}

UNIT_TEST(deadlines_never_go_backwards)
{
	fq_u64 d = 0, now = 0;
	fq_u32 len;

	for (len = 1; len <= EDF_LEN_MAX; len = len * 3 + 1) {
		fq_u64 next = edf_vclock_deadline(d, now, len, EDF_RATE_MAX);

		EXPECT_TRUE(next > d);
		d = next;
		now += 7;
	}
	EXPECT_EQ(edf_monotonic(100, 50), 100);
	EXPECT_EQ(edf_monotonic(100, 150), 150);
}

UNIT_TEST(frame_of_any_size_takes_the_latency)
{
	fq_u64 d = 0, now = 5000000, latency = 10000000;
	fq_u32 parts, i;

	for (parts = 1; parts <= 80; parts *= 3) {
		d = 0;
		for (i = 0; i < parts; i++)
			d = edf_frame_deadline(d, now, latency, parts);
		/* last packet due about LATENCY after the frame arrived */
		EXPECT_TRUE(d <= now + latency);
		EXPECT_TRUE(d + parts >= now + latency);
	}
	EXPECT_EQ(edf_frame_deadline(0, 7, 10, 0), 17);
}

UNIT_TEST(paper_fig1_eligibility)
{
	/* eligibility factor 3: a packet due at 7 may leave from time 4 */
	EXPECT_EQ(edf_eligible_time(7, 3), 4);
	EXPECT_TRUE(!edf_is_eligible(3, 7, 3));
	EXPECT_TRUE(edf_is_eligible(4, 7, 3));
	EXPECT_TRUE(edf_is_eligible(9, 7, 3));
	/* deadlines earlier than the eligibility are eligible at once */
	EXPECT_EQ(edf_eligible_time(2, 3), 0);
	/* 20 us default: due at 1 ms, eligible from 980 us */
	EXPECT_EQ(edf_eligible_time(1000000, 20000), 980000);
}

/* edf_txtime_deadline(txtime, floor, now, horizon) */
UNIT_TEST(txtime_horizon)
{
	EXPECT_EQ(edf_txtime_deadline(5000, 1000, 1000, 10000), 5000);
	EXPECT_EQ(edf_txtime_deadline(50000, 1000, 1000, 10000), 11000);
	EXPECT_EQ(edf_txtime_deadline(EDF_TIME_MAX, EDF_TIME_MAX - 2, EDF_TIME_MAX - 2, 10),
		  EDF_TIME_MAX);
}

/*
 * A txtime in the past is ordered at the floor (now; for best effort the
 * service frontier), never before it.  Taken as it was, tstamp 1 headed
 * its VC for as long as the socket kept sending.
 */
UNIT_TEST(txtime_in_the_past_is_ordered_at_now)
{
	fq_u64 now = 5000000000ULL, other = now + 100, prev = 0, t, d;
	int ahead = 0, off_clock = 0;

	EXPECT_EQ(edf_txtime_deadline(500, 1000, 1000, 10000), 1000);
	EXPECT_EQ(edf_txtime_deadline(1, now, now, 10000), now);
	EXPECT_TRUE(edf_txtime_is_late(1, now));
	EXPECT_TRUE(edf_txtime_is_late(now - 1, now));
	EXPECT_TRUE(!edf_txtime_is_late(now, now));
	/* best effort: the frontier ahead of now is the floor, even past
	 * the horizon (what a packet without a txtime would get) */
	EXPECT_EQ(edf_txtime_deadline(now + 10, now + 500, now, 10000), now + 500);
	EXPECT_EQ(edf_txtime_deadline(now + 1, now + 50000, now, 10000), now + 50000);
	/* a flow stamping 1 on every packet, one every 10 ns for 10 us,
	 * while another flow's packet is due at now + 100: only what the
	 * stamping flow sent before now + 100 goes first */
	for (t = now; t < now + 10000; t += 10) {
		d = edf_monotonic(prev, edf_txtime_deadline(1, t, t, 10000000));
		off_clock += d != t;
		ahead += d < other;
		prev = d;
	}
	EXPECT_EQ(off_clock, 0);
	EXPECT_EQ(ahead, 10);
}

UNIT_TEST(lead_is_capped)
{
	fq_u64 now = 5000000000ULL, d = now;
	int i;

	EXPECT_EQ(edf_cap_lead(now + 10, now), now + 10);
	EXPECT_EQ(edf_cap_lead(now + EDF_MAX_LEAD_NS + 1, now), now + EDF_MAX_LEAD_NS);
	EXPECT_EQ(edf_cap_lead(EDF_TIME_MAX, EDF_TIME_MAX - 1), EDF_TIME_MAX);
	/* 1 kbit/s flow sending 64 KB packets forever stays within the cap */
	for (i = 0; i < 100000; i++)
		d = edf_cap_lead(edf_vclock_deadline(d, now, EDF_LEN_MAX, EDF_RATE_MIN), now);
	EXPECT_EQ(d, now + EDF_MAX_LEAD_NS);
}

int main(void)
{
	return unit_run();
}
