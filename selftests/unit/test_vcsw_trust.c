// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of what the soft switch believes of an untrusted port
 * (kernel/core/vcsw_trust.h): the policer and the TTD clamp alone, then
 * every outcome of the ingress decision, and the rate it admits over
 * thousands of frames.
 */
#include "unit.h"
#include "core/vcsw_trust.h"

/* ---- the policer and the clamp ------------------------------------------- */

UNIT_TEST(police_burst_then_rate)
{
	struct vcsw_police pc;
	int i, ok = 0;

	/* 1e6 bytes/s, 3000-byte burst: three 1000-byte frames at once */
	vcsw_police_init(&pc, 1000000, 3000);
	EXPECT_EQ(pc.tolerance, 3000000);
	for (i = 0; i < 5; i++)
		ok += vcsw_police_conform(&pc, 1000, 0);
	EXPECT_EQ(ok, 3);
	/* 1 ms later one more frame's worth has come back, not two */
	EXPECT_TRUE(vcsw_police_conform(&pc, 1000, 1000000));
	EXPECT_TRUE(!vcsw_police_conform(&pc, 1000, 1000000));
	/* a frame larger than the burst never conforms */
	EXPECT_TRUE(!vcsw_police_conform(&pc, 3001, 1000000000));
	/* an idle bucket fills to the burst, no more */
	ok = 0;
	for (i = 0; i < 10; i++)
		ok += vcsw_police_conform(&pc, 1000, 2000000000);
	EXPECT_EQ(ok, 3);
}

UNIT_TEST(police_rate_zero_admits_nothing)
{
	struct vcsw_police pc;

	vcsw_police_init(&pc, 0, 16384);
	EXPECT_TRUE(!vcsw_police_conform(&pc, 64, 0));
	EXPECT_TRUE(!vcsw_police_conform(&pc, 64, 1000000000000ULL));
}

/*
 * Ten times the rate offered for 10 s in random frame sizes and gaps: what
 * conforms is within one burst of rate x time, and never above it.
 */
UNIT_TEST(police_long_run_admits_rate_plus_burst)
{
	const fq_u64 rate = 1250000, burst = 16384;	/* 10 Mbit/s */
	fq_u64 now = 0, admitted = 0, offered = 0, x = 12345;
	struct vcsw_police pc;

	vcsw_police_init(&pc, rate, burst);
	while (now < 10000000000ULL) {
		/* its own generator: the random traces below keep theirs */
		fq_u32 len;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		len = 64 + (fq_u32)(x >> 33) % 1451;

		offered += len;
		if (vcsw_police_conform(&pc, len, now))
			admitted += len;
		/* mean gap: a tenth of the frame's time at the rate */
		now += edf_tx_time(len, rate) / 10 * ((x >> 20) % 3);
	}
	printf("# offered %llu bytes, admitted %llu, rate x time %llu\n",
	       (unsigned long long)offered, (unsigned long long)admitted,
	       (unsigned long long)(rate * 10));
	EXPECT_TRUE(admitted <= rate * 10 + burst + 1514);
	EXPECT_TRUE(admitted >= rate * 10 - 1514);
}

UNIT_TEST(ttd_clamp)
{
	EXPECT_EQ(vcsw_ttd_clamp(-2147483648LL, 0, 100000000), 0);
	EXPECT_EQ(vcsw_ttd_clamp(2147483647LL, 0, 100000000), 100000000);
	EXPECT_EQ(vcsw_ttd_clamp(5000, 0, 100000000), 5000);
	EXPECT_EQ(vcsw_ttd_clamp(-5, -10, 10), -5);
}

/* ---- the ingress decision ------------------------------------------------ */

/* the defaults of a port: TTD 0 .. 100 ms */
#define TTD_MIN		0
#define TTD_MAX		100000000

static const struct vcsw_trust drop_port = {
	.ttd_min = TTD_MIN, .ttd_max = TTD_MAX, .exceed = VCSW_EXCEED_DROP,
};

static const struct vcsw_trust demote_port = {
	.ttd_min = TTD_MIN, .ttd_max = TTD_MAX, .exceed = VCSW_EXCEED_DEMOTE,
};

/* vcsw_trust_ingress(), short enough for one expectation a line */
static unsigned int ingress(const struct vcsw_trust *t, struct vcsw_police *pc,
			    fq_u32 len, fq_u64 now, fq_s64 *ttd, fq_u8 *vc)
{
	return vcsw_trust_ingress(t, pc, len, now, ttd, vc);
}

UNIT_TEST(trust_clamp_low)
{
	const struct vcsw_trust t = {
		.ttd_min = 5000, .ttd_max = TTD_MAX, .exceed = VCSW_EXCEED_DROP,
	};
	struct vcsw_police pc;
	fq_s64 ttd = -2147483648LL;
	fq_u8 vc = 1;

	vcsw_police_init(&pc, 0, 16384);
	EXPECT_EQ(ingress(&t, &pc, 100, 0, &ttd, &vc), VCSW_TRUST_CLAMPED);
	EXPECT_EQ(ttd, 5000);
	EXPECT_EQ(vc, 1);
	ttd = 4999;
	EXPECT_EQ(ingress(&t, &pc, 100, 0, &ttd, &vc), VCSW_TRUST_CLAMPED);
	EXPECT_EQ(ttd, 5000);
	ttd = -1;
	EXPECT_EQ(ingress(&drop_port, &pc, 100, 0, &ttd, &vc), VCSW_TRUST_CLAMPED);
	EXPECT_EQ(ttd, 0);
}

UNIT_TEST(trust_clamp_high)
{
	struct vcsw_police pc;
	fq_s64 ttd = 2147483647LL;
	fq_u8 vc = 1;

	vcsw_police_init(&pc, 0, 16384);
	EXPECT_EQ(ingress(&drop_port, &pc, 100, 0, &ttd, &vc), VCSW_TRUST_CLAMPED);
	EXPECT_EQ(ttd, TTD_MAX);
	EXPECT_EQ(vc, 1);
	ttd = TTD_MAX + 1;
	EXPECT_EQ(ingress(&drop_port, &pc, 100, 0, &ttd, &vc), VCSW_TRUST_CLAMPED);
	EXPECT_EQ(ttd, TTD_MAX);
}

UNIT_TEST(trust_clamp_none)
{
	const struct vcsw_trust neg = {
		.ttd_min = -10, .ttd_max = 10, .exceed = VCSW_EXCEED_DROP,
	};
	const fq_s64 inside[] = { TTD_MIN, 1, 5000, TTD_MAX - 1, TTD_MAX };
	struct vcsw_police pc;
	unsigned int i;
	fq_s64 ttd;
	fq_u8 vc = 1;

	vcsw_police_init(&pc, 0, 16384);
	for (i = 0; i < sizeof(inside) / sizeof(inside[0]); i++) {
		ttd = inside[i];
		EXPECT_EQ(ingress(&drop_port, &pc, 100, 0, &ttd, &vc), 0);
		EXPECT_EQ(ttd, inside[i]);
	}
	/* a range below zero: the operator may let a port claim urgency */
	ttd = -10;
	EXPECT_EQ(ingress(&neg, &pc, 100, 0, &ttd, &vc), 0);
	EXPECT_EQ(ttd, -10);
	ttd = -11;
	EXPECT_EQ(ingress(&neg, &pc, 100, 0, &ttd, &vc), VCSW_TRUST_CLAMPED);
	EXPECT_EQ(ttd, -10);
}

/* Best effort passes untouched and charges nothing, whatever the bucket. */
UNIT_TEST(trust_vc1_never_policed)
{
	struct vcsw_police pc;
	fq_s64 ttd;
	fq_u8 vc;
	int i;

	/* rate 0: the policer admits nothing at all */
	vcsw_police_init(&pc, 0, 16384);
	for (i = 0; i < 1000; i++) {
		ttd = 1000;
		vc = 1;
		EXPECT_EQ(ingress(&drop_port, &pc, 1514, (fq_u64)i * 10, &ttd, &vc), 0);
		EXPECT_EQ(vc, 1);
	}
	EXPECT_EQ(pc.tat, 0);

	/* a bucket with room stays full after any amount of VC1 */
	vcsw_police_init(&pc, 1000000, 3000);
	for (i = 0; i < 1000; i++) {
		ttd = -5;
		vc = 1;
		EXPECT_EQ(ingress(&demote_port, &pc, 1514, 0, &ttd, &vc),
			  VCSW_TRUST_CLAMPED);
		EXPECT_EQ(vc, 1);
	}
	EXPECT_EQ(pc.tat, 0);
	for (i = 0; i < 3; i++) {
		vc = 0;
		EXPECT_EQ(ingress(&drop_port, &pc, 1000, 0, &ttd, &vc), 0);
	}
}

UNIT_TEST(trust_conform)
{
	struct vcsw_police pc;
	fq_s64 ttd = 2000;
	fq_u8 vc;
	int i;

	/* 1e6 bytes/s, 3000-byte burst: three 1000-byte frames at once */
	vcsw_police_init(&pc, 1000000, 3000);
	for (i = 0; i < 3; i++) {
		vc = 0;
		EXPECT_EQ(ingress(&drop_port, &pc, 1000, 0, &ttd, &vc), 0);
		EXPECT_EQ(vc, 0);
		EXPECT_EQ(ttd, 2000);
		/* each is charged its time at the rate */
		EXPECT_EQ(pc.tat, (fq_u64)(i + 1) * 1000000);
	}
}

/* A bucket of three 1000-byte frames at 1e6 bytes/s, emptied at 0. */
static void empty_bucket(struct vcsw_police *pc)
{
	fq_s64 ttd = 0;
	fq_u8 vc;
	int i;

	vcsw_police_init(pc, 1000000, 3000);
	for (i = 0; i < 3; i++) {
		vc = 0;
		ingress(&drop_port, pc, 1000, 0, &ttd, &vc);
	}
}

UNIT_TEST(trust_exceed_demote)
{
	struct vcsw_police pc;
	fq_s64 ttd = 2000;
	fq_u8 vc = 0;

	empty_bucket(&pc);
	EXPECT_EQ(ingress(&demote_port, &pc, 1000, 0, &ttd, &vc), VCSW_TRUST_DEMOTED);
	EXPECT_EQ(vc, 1);
	EXPECT_EQ(ttd, 2000);
	/* the excess is not charged: the next slot is still 1 ms away */
	EXPECT_EQ(pc.tat, 3000000);
	/* clamped and demoted: both counted */
	ttd = -2147483648LL;
	vc = 0;
	EXPECT_EQ(ingress(&demote_port, &pc, 1000, 999999, &ttd, &vc),
		  VCSW_TRUST_CLAMPED | VCSW_TRUST_DEMOTED);
	EXPECT_EQ(vc, 1);
	EXPECT_EQ(ttd, TTD_MIN);
	vc = 0;
	EXPECT_EQ(ingress(&demote_port, &pc, 1000, 1000000, &ttd, &vc), 0);
	EXPECT_EQ(vc, 0);
}

UNIT_TEST(trust_exceed_drop)
{
	const struct vcsw_trust odd = {
		.ttd_min = TTD_MIN, .ttd_max = TTD_MAX, .exceed = 7,
	};
	struct vcsw_police pc;
	fq_s64 ttd = 2000;
	fq_u8 vc = 0;

	empty_bucket(&pc);
	EXPECT_EQ(ingress(&drop_port, &pc, 1000, 0, &ttd, &vc), VCSW_TRUST_DROP);
	EXPECT_EQ(vc, 0);
	EXPECT_EQ(ttd, 2000);
	EXPECT_EQ(pc.tat, 3000000);
	/* clamped and dropped: both counted, the TTD clamped all the same */
	ttd = 2147483647LL;
	EXPECT_EQ(ingress(&drop_port, &pc, 1000, 0, &ttd, &vc),
		  VCSW_TRUST_CLAMPED | VCSW_TRUST_DROP);
	EXPECT_EQ(ttd, TTD_MAX);
	/* anything but demote drops */
	ttd = 2000;
	EXPECT_EQ(ingress(&odd, &pc, 1000, 0, &ttd, &vc), VCSW_TRUST_DROP);
	EXPECT_EQ(vc, 0);
	/* rate 0 admits no VC0 frame, however idle the port */
	vcsw_police_init(&pc, 0, 16384);
	EXPECT_EQ(ingress(&drop_port, &pc, 64, 1000000000000ULL, &ttd, &vc),
		  VCSW_TRUST_DROP);
}

/*
 * Twice the rate offered in random frame sizes, 20,000 frames, at three
 * rates: what stays in VC0 is rate x time plus the burst, less at most
 * one frame (the bucket ends within one frame of empty) and the
 * rounding of each frame's time up to a ns; the rest is demoted, none
 * lost.
 */
UNIT_TEST(trust_long_run_admits_the_rate)
{
	const fq_u64 rates[] = { 64000, 1250000, 125000000 };	/* 512k..1G bit/s */
	const fq_u32 burst = 16384, maxlen = 1514;
	unsigned int r, i;

	unit_rnd_state = 0x2545f4914f6cdd1dULL;
	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		fq_u64 rate = rates[r], now = 0, kept = 0, demoted = 0;
		fq_u64 offered = 0, round_bytes;
		struct vcsw_police pc;

		vcsw_police_init(&pc, rate, burst);
		for (i = 0; i < 20000; i++) {
			fq_u32 len = 64 + unit_rnd() % (maxlen - 64 + 1);
			fq_s64 ttd = 1000;
			fq_u8 vc = 0;
			unsigned int res;

			/* frames a half of their time apart, give or take */
			now += edf_tx_time(len, rate) / 4 * (1 + unit_rnd() % 3);
			offered += len;
			res = ingress(&demote_port, &pc, len, now, &ttd, &vc);
			if (res == 0 && vc == 0)
				kept += len;
			else if (res == VCSW_TRUST_DEMOTED && vc == 1)
				demoted += len;
			else
				UNIT_FAIL("frame %u: result %u, vc %u", i, res, vc);
		}
		/* a frame's time is rounded up to a ns: bytes the rate owes */
		round_bytes = fq_div64((fq_u64)i * rate + 999999999, 1000000000);
		printf("# rate %llu: kept %llu of %llu bytes in %llu ns\n",
		       (unsigned long long)rate, (unsigned long long)kept,
		       (unsigned long long)offered, (unsigned long long)now);
		EXPECT_EQ(kept + demoted, offered);
		EXPECT_TRUE(kept <= fq_div64(rate * now, 1000000000) + burst);
		EXPECT_TRUE(kept + maxlen + round_bytes >=
			    fq_div64(rate * now, 1000000000) + burst);
	}
}

/* A sender within its contract loses nothing, however long it sends. */
UNIT_TEST(trust_within_rate_keeps_all)
{
	const fq_u64 rate = 1250000;
	struct vcsw_police pc;
	fq_u64 now = 0;
	unsigned int i;

	unit_rnd_state = 0x9e3779b97f4a7c15ULL;
	vcsw_police_init(&pc, rate, 1514);
	for (i = 0; i < 20000; i++) {
		fq_u32 len = 64 + unit_rnd() % 1451;
		fq_s64 ttd = 1000;
		fq_u8 vc = 0;

		ASSERT_EQ(ingress(&drop_port, &pc, len, now, &ttd, &vc), 0);
		/* the next frame after this one's time at the rate, or later */
		now += edf_tx_time(len, rate) + unit_rnd() % 1000;
	}
}

int main(void)
{
	return unit_run();
}
