// SPDX-License-Identifier: GPL-2.0
/*
 * fbs_ring: one host's state in the FBS bootstrap ring (fbs_ring.h).
 */
#include <string.h>

#include "fbs_ring.h"

void fbs_ring_init(struct fbs_ring *r, uint32_t rounds)
{
	r->rounds = rounds;
	r->round = 0;
	r->right_seen = 0;
	r->acked = false;
}

bool fbs_ring_to_send(const struct fbs_ring *r, uint32_t *round)
{
	if (fbs_ring_done(r) || r->acked)
		return false;
	*round = r->round;
	return true;
}

bool fbs_ring_receive(struct fbs_ring *r, enum fbs_ring_type type, uint32_t round,
		      uint32_t *ack)
{
	bool reply = false;

	if (type == FBS_RING_ACK) {
		if (!fbs_ring_done(r) && round == r->round)
			r->acked = true;
	} else if (type == FBS_RING_ROUND) {
		/* every one, a resend too: our earlier ack may be lost */
		*ack = round;
		reply = true;
		if (round == r->right_seen)
			r->right_seen++;
	}
	/* the round ends when both happened, in either order */
	if (!fbs_ring_done(r) && r->acked && r->right_seen > r->round) {
		r->round++;
		r->acked = false;
	}
	return reply;
}

enum fbs_go_verdict fbs_go_check(const struct fbs_ring *r, const struct fbs_go_rule *rule,
				 const uint8_t *src, uint32_t after_ns)
{
	if (r->round + 1 < r->rounds)
		return FBS_GO_EARLY;
	if (rule->have_leader && memcmp(src, rule->leader, sizeof(rule->leader)))
		return FBS_GO_STRANGER;
	if (after_ns > FBS_GO_AFTER_MAX_NS)
		return FBS_GO_TOO_LATE;
	return FBS_GO_TAKE;
}
