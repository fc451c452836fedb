/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fbs_ring: one host's state in the FBS bootstrap ring (paper: fm-qos-
 * feedback-based-synchronization, Fig. 11), apart from how messages
 * travel, so that fbs-boot and its unit tests run the same logic.
 *
 * Each round a host sends a message to its left, waits for the message
 * of its right, and waits until its own was received (here: acknowledged;
 * the paper's "send done").  Every message received is acknowledged, a
 * resent one again.  The right may be a round ahead: its message for the
 * next round counts once this round is over.
 */
#ifndef FQ_FBS_RING_H
#define FQ_FBS_RING_H

#include <stdbool.h>
#include <stdint.h>

enum fbs_ring_type {
	FBS_RING_ROUND = 1,	/* "round r from your right" */
	FBS_RING_ACK = 2,	/* "your round r arrived" */
};

struct fbs_ring {
	uint32_t rounds;	/* to run */
	uint32_t round;		/* the current one; rounds when done */
	uint32_t right_seen;	/* the right's rounds heard: 0 .. right_seen - 1 */
	bool acked;		/* our message of this round was received */
};

void fbs_ring_init(struct fbs_ring *r, uint32_t rounds);
static inline bool fbs_ring_done(const struct fbs_ring *r)
{
	return r->round >= r->rounds;
}
/*
 * The message our left is waiting for: true and its round while this
 * round's was not acknowledged (send it now, and again until it is).
 */
bool fbs_ring_to_send(const struct fbs_ring *r, uint32_t *round);
/*
 * A message arrived (from the right: a round; from the left: an ack).
 * Returns true when it must be acknowledged, with the round in *ack.
 */
bool fbs_ring_receive(struct fbs_ring *r, enum fbs_ring_type type, uint32_t round,
		      uint32_t *ack);

/*
 * The leader's start signal (fbs-boot --leader, --follow): sent three
 * times, 10 ms apart, each copy saying in ns how long after the first it
 * went, so that a follower that takes a later copy still begins slot 0
 * when the first went.  Any host can send one: a follower that took a
 * forged copy would begin its slot 0 where the forger chose, for good.
 * So a copy counts only from the leader's address when the follower was
 * given it, and only if it claims to have gone within a second of the
 * first (a claim of up to 4.3 s set the slot 0 of every follower that
 * much earlier).  An address can be forged too (trust.rst).
 */
#define FBS_GO_AFTER_MAX_NS	1000000000u

enum fbs_go_verdict {
	FBS_GO_TAKE,		/* slot 0 began when the first copy went */
	FBS_GO_EARLY,		/* our ring is not in its last round: another boot's */
	FBS_GO_STRANGER,	/* not from the leader's address */
	FBS_GO_TOO_LATE,	/* claims to have gone too long after the first */
};

struct fbs_go_rule {
	bool have_leader;	/* the leader's address is known */
	uint8_t leader[6];
};

enum fbs_go_verdict fbs_go_check(const struct fbs_ring *r, const struct fbs_go_rule *rule,
				 const uint8_t *src, uint32_t after_ns);

#endif
