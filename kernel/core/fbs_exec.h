/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The FBS slot executor (paper: fm-qos-feedback-based-synchronization,
 * sections 3.3 and 5.2.2), portable: qsim fbs runs it today, a host's
 * qdisc will run the same code.
 *
 * A node walks a cyclic table of slots on its own clock.  It moves to
 * the next slot when its clock says the slot is over and, when it sent
 * in the slot, once the frame was accepted downstream (the credits came
 * back, or the wormhole drained).  A node that is ahead finds its frame
 * held by back-pressure and so starts its next slot late: that stall is
 * the feedback that keeps every node at the pace of the slowest.
 *
 * The clock may run fast or slow by @drift_ppb parts per 10^9 (positive:
 * fast, its slots end early): namespaces share one clock, so drift is
 * configured to be reproduced.  A slot of slot_ns nominal lasts
 * slot_ns x 10^9 / (10^9 + drift) real nanoseconds; the remainder is
 * carried from slot to slot so that a thousand slots drift by exactly a
 * thousand times as much, not by the rounding of each.
 */
#ifndef FQ_FBS_EXEC_H
#define FQ_FBS_EXEC_H

#include "core_types.h"

#define FBS_EXEC_PPB		1000000000LL
#define FBS_EXEC_MAX_DRIFT	100000000LL	/* 10 %: beyond any real clock */
#define FBS_EXEC_MAX_SLOT_NS	1000000000ULL	/* 1 s keeps slot x 10^9 in 64 bits */

struct fbs_exec {
	/* configuration */
	fq_u64 slot_ns;		/* nominal slot: a maximum-size frame at the link rate */
	fq_s64 drift_ppb;	/* the clock's error */
	fq_u32 slots;		/* the period */
	/* state */
	fq_u32 slot;		/* current slot */
	fq_u64 slot_start;	/* real time it began */
	fq_u64 rem;		/* carried remainder of slot lengths, of 10^9 + drift */
	/* statistics */
	fq_u64 executed;	/* slots completed */
	fq_u64 stalls;		/* slots that ended late, held by back-pressure */
	fq_u64 stall_ns;	/* their total lateness */
};

/* false: a configuration the executor refuses (the caller says why) */
static inline bool fbs_exec_init(struct fbs_exec *e, fq_u64 slot_ns, fq_s64 drift_ppb,
				 fq_u32 slots, fq_u64 now)
{
	if (!slot_ns || slot_ns > FBS_EXEC_MAX_SLOT_NS || !slots ||
	    drift_ppb > FBS_EXEC_MAX_DRIFT || drift_ppb < -FBS_EXEC_MAX_DRIFT)
		return false;
	e->slot_ns = slot_ns;
	e->drift_ppb = drift_ppb;
	e->slots = slots;
	e->slot = 0;
	e->slot_start = now;
	e->rem = 0;
	e->executed = e->stalls = e->stall_ns = 0;
	return true;
}

/* The real length of the current slot on this clock, and the carry. */
static inline fq_u64 fbs_exec_slot_len(const struct fbs_exec *e, fq_u64 *rem)
{
	fq_u64 den = (fq_u64)(FBS_EXEC_PPB + e->drift_ppb);
	fq_u64 num = e->slot_ns * (fq_u64)FBS_EXEC_PPB;
	fq_u64 q = fq_div64(num, den);
	fq_u64 r = num - q * den + e->rem;

	if (r >= den) {
		q++;
		r -= den;
	}
	*rem = r;
	return q;
}

/* When this node's clock ends the current slot. */
static inline fq_u64 fbs_exec_due(const struct fbs_exec *e)
{
	fq_u64 rem;

	return e->slot_start + fbs_exec_slot_len(e, &rem);
}

/*
 * End the current slot and start the next.  @accepted: when the slot's
 * frame was accepted downstream, 0 when the node sent nothing (or the
 * executor ignores feedback).  The next slot starts when the clock says
 * or when the frame was accepted, whichever is later; a start held back
 * re-phases the clock from there (the carry restarts with it).  Returns
 * the next slot's start.
 */
static inline fq_u64 fbs_exec_advance(struct fbs_exec *e, fq_u64 accepted)
{
	fq_u64 rem, due = e->slot_start + fbs_exec_slot_len(e, &rem);

	if (accepted > due) {
		e->stalls++;
		e->stall_ns += accepted - due;
		e->slot_start = accepted;
		e->rem = 0;
	} else {
		e->slot_start = due;
		e->rem = rem;
	}
	e->slot = e->slot + 1 == e->slots ? 0 : e->slot + 1;
	e->executed++;
	return e->slot_start;
}

#endif /* FQ_FBS_EXEC_H */
