// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the FBS bootstrap ring (userspace/lib/fbs_ring.c): rings
 * of 2 to 8 hosts that start at different times, over a network that
 * delays and loses messages, every host resending until acknowledged.
 */
#include "unit.h"
#include "fbs_ring.c"

#define MAXN	8
#define MAXQ	4096

struct msg {
	uint64_t at;		/* delivered then */
	uint32_t to, from, round;
	enum fbs_ring_type type;
};

static struct msg q[MAXQ];
static unsigned int nq;

static void post(uint64_t at, uint32_t to, uint32_t from, enum fbs_ring_type type,
		 uint32_t round, unsigned int loss_pct)
{
	if (unit_rnd() % 100 < loss_pct || nq == MAXQ)
		return;		/* lost (or the network is full: lost too) */
	q[nq++] = (struct msg){ at, to, from, round, type };
}

UNIT_TEST(rings_complete_only_once_everyone_ran)
{
	unsigned int trial;

	unit_rnd_state = 0xb0075ULL;
	for (trial = 0; trial < 4000; trial++) {
		uint32_t n = 2 + unit_rnd() % (MAXN - 1), rounds = n + unit_rnd() % 4, i;
		uint64_t start[MAXN], finish[MAXN], round_start[MAXN][MAXN + 4];
		uint64_t next_send[MAXN], t, last_start = 0;
		unsigned int loss = unit_rnd() % 30, maxd = 1 + unit_rnd() % 20;
		struct fbs_ring r[MAXN];
		bool all;

		nq = 0;
		for (i = 0; i < n; i++) {
			fbs_ring_init(&r[i], rounds);
			start[i] = unit_rnd() % 500;
			finish[i] = 0;
			next_send[i] = start[i];
			round_start[i][0] = start[i];
			if (start[i] > last_start)
				last_start = start[i];
		}
		for (t = 0; t < 200000; t++) {
			unsigned int k;

			/* deliveries due now, to hosts that run */
			for (k = 0; k < nq; k++) {
				struct msg m = q[k];
				uint32_t ack, before;

				if (m.at > t)
					continue;
				q[k--] = q[--nq];
				if (t < start[m.to])
					continue;	/* not listening yet: lost */
				before = r[m.to].round;
				if (fbs_ring_receive(&r[m.to], m.type, m.round, &ack))
					post(t + 1 + unit_rnd() % maxd, m.from, m.to,
					     FBS_RING_ACK, ack, loss);
				if (r[m.to].round != before) {
					if (fbs_ring_done(&r[m.to]))
						finish[m.to] = t;
					else
						round_start[m.to][r[m.to].round] = t;
				}
			}
			/* each running host (re)sends to its left every 10 ticks */
			all = true;
			for (i = 0; i < n; i++) {
				uint32_t round;

				all &= fbs_ring_done(&r[i]);
				if (t < start[i] || t < next_send[i] || !fbs_ring_to_send(&r[i], &round))
					continue;
				post(t + 1 + unit_rnd() % maxd, (i + 1) % n, i, FBS_RING_ROUND,
				     round, loss);
				next_send[i] = t + 10;
			}
			if (all)
				break;
		}
		ASSERT_TRUE(all);
		for (i = 0; i < n; i++) {
			uint32_t right = (i + n - 1) % n, k;

			/* nobody is done before everybody ran */
			EXPECT_TRUE(finish[i] >= last_start);
			/* a round ends only after the right began it */
			for (k = 1; k < rounds; k++)
				EXPECT_TRUE(round_start[i][k] >= round_start[right][k - 1]);
		}
		if (*unit_failed) {
			printf("#   trial %u: %u hosts, %u rounds, loss %u %%\n", trial, n, rounds, loss);
			return;
		}
	}
}

UNIT_TEST(resent_and_stray_messages)
{
	struct fbs_ring r;
	uint32_t ack = 99, round;

	fbs_ring_init(&r, 2);
	ASSERT_TRUE(fbs_ring_to_send(&r, &round));
	EXPECT_EQ(round, 0);
	/* an ack of another round changes nothing */
	EXPECT_TRUE(!fbs_ring_receive(&r, FBS_RING_ACK, 1, &ack));
	EXPECT_TRUE(fbs_ring_to_send(&r, &round));
	/* the right ahead: its round 0 and 1 before our own ack */
	EXPECT_TRUE(fbs_ring_receive(&r, FBS_RING_ROUND, 0, &ack));
	EXPECT_EQ(ack, 0);
	EXPECT_TRUE(fbs_ring_receive(&r, FBS_RING_ROUND, 1, &ack));
	EXPECT_EQ(ack, 1);
	/* a resend of round 0: acknowledged again, counted once */
	EXPECT_TRUE(fbs_ring_receive(&r, FBS_RING_ROUND, 0, &ack));
	EXPECT_EQ(r.right_seen, 2);
	EXPECT_TRUE(!fbs_ring_receive(&r, FBS_RING_ACK, 0, &ack));
	EXPECT_EQ(r.round, 1);
	EXPECT_TRUE(!fbs_ring_receive(&r, FBS_RING_ACK, 1, &ack));
	EXPECT_TRUE(fbs_ring_done(&r));
	EXPECT_TRUE(!fbs_ring_to_send(&r, &round));
}

/*
 * Which start signals a follower takes: in its ring's last round or
 * after it, from the leader's address when it was given one, claiming
 * at most FBS_GO_AFTER_MAX_NS after the first copy.
 */
UNIT_TEST(start_signal_taken_only_from_the_leader_within_a_second)
{
	static const uint8_t leader[6] = { 2, 0xfa, 0, 0, 0, 0 };
	static const uint8_t other[6] = { 2, 0xfa, 0, 0, 0, 9 };
	struct fbs_go_rule anyone = { .have_leader = false };
	struct fbs_go_rule known = { .have_leader = true };
	struct fbs_ring r;
	uint32_t ack;

	memcpy(known.leader, leader, sizeof(leader));
	fbs_ring_init(&r, 3);
	EXPECT_EQ(fbs_go_check(&r, &known, leader, 0), FBS_GO_EARLY);
	EXPECT_TRUE(fbs_ring_receive(&r, FBS_RING_ROUND, 0, &ack));
	EXPECT_TRUE(!fbs_ring_receive(&r, FBS_RING_ACK, 0, &ack));
	EXPECT_EQ(fbs_go_check(&r, &known, leader, 0), FBS_GO_EARLY);
	EXPECT_TRUE(fbs_ring_receive(&r, FBS_RING_ROUND, 1, &ack));
	EXPECT_TRUE(!fbs_ring_receive(&r, FBS_RING_ACK, 1, &ack));
	ASSERT_EQ(r.round, 2);
	/* the last round, and done: the same answers */
	for (int pass = 0; pass < 2; pass++) {
		EXPECT_EQ(fbs_go_check(&r, &known, leader, 0), FBS_GO_TAKE);
		EXPECT_EQ(fbs_go_check(&r, &known, leader, 20000000), FBS_GO_TAKE);
		EXPECT_EQ(fbs_go_check(&r, &known, leader, FBS_GO_AFTER_MAX_NS), FBS_GO_TAKE);
		EXPECT_EQ(fbs_go_check(&r, &known, leader, FBS_GO_AFTER_MAX_NS + 1),
			  FBS_GO_TOO_LATE);
		EXPECT_EQ(fbs_go_check(&r, &known, leader, UINT32_MAX), FBS_GO_TOO_LATE);
		EXPECT_EQ(fbs_go_check(&r, &known, other, 0), FBS_GO_STRANGER);
		EXPECT_EQ(fbs_go_check(&r, &anyone, other, 0), FBS_GO_TAKE);
		EXPECT_EQ(fbs_go_check(&r, &anyone, other, UINT32_MAX), FBS_GO_TOO_LATE);
		EXPECT_TRUE(fbs_ring_receive(&r, FBS_RING_ROUND, 2, &ack));
		EXPECT_TRUE(!fbs_ring_receive(&r, FBS_RING_ACK, 2, &ack));
		EXPECT_TRUE(fbs_ring_done(&r));
	}
}

int main(void)
{
	return unit_run();
}
