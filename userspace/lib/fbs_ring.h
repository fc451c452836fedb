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

#endif
