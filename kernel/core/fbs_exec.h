/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The FBS slot executor (paper: fm-qos-feedback-based-synchronization,
 * sections 3.3 and 5.2.2), portable: a host's fbs qdisc (sch_fbs.c) and
 * qsim fbs run the same code.
 *
 * A node walks a cyclic table of slots on its own clock.  It moves to
 * the next slot when its clock says the slot is over and, when it sent
 * in the slot, once the frame was accepted downstream (the credits came
 * back, or the wormhole drained).  A node that is ahead finds its frame
 * held by back-pressure and so starts its next slot late, by as long as
 * it was held: that stall is the feedback that keeps every node at the
 * pace of the slowest.
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
/*
 * The jitter allowed a host, a 64th of a slot: how late a frame may start
 * beyond the room its slot leaves, and how long a hold may be before it
 * counts as feedback (a host's timers and its link's round trip wobble;
 * acting on that would push every clock later on average).
 */
#define FBS_EXEC_JITTER_DIV	64
/*
 * ... and at least this late a frame may start: a host's timer and
 * softirq come that late now and then, and a slot that leaves no room
 * (one frame at the link's rate exactly) would otherwise send nothing
 */
#define FBS_EXEC_MIN_LATE_NS	50000ULL

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
 * End the current slot and start the next.  @held_ns: how far
 * back-pressure pushed the slot's frame, as fbs_feedback_held() tells it
 * (0 when the node sent nothing, was not held, or ignores feedback).
 * The next slot starts that much after the clock says: the node re-phases
 * its clock to the instant the network let its frame go, which is the
 * instant the node it waited for (the slower one) ended its own frame.
 * The carry restarts with a re-phase.  Returns the next slot's start.
 */
static inline fq_u64 fbs_exec_advance(struct fbs_exec *e, fq_u64 held_ns)
{
	fq_u64 rem, due = e->slot_start + fbs_exec_slot_len(e, &rem);

	if (held_ns) {
		e->stalls++;
		e->stall_ns += held_ns;
		e->slot_start = due + held_ns;
		e->rem = 0;
	} else {
		e->slot_start = due;
		e->rem = rem;
	}
	e->slot = e->slot + 1 == e->slots ? 0 : e->slot + 1;
	e->executed++;
	return e->slot_start;
}

/*
 * Telling back-pressure from the link's own delay.  A host learns that
 * its frame left the switch when the frame's credits come back: the
 * frame's time on the wire and a round trip after it went, when nothing
 * held it.  Only what comes on top of that is the feedback; the round
 * trip itself must not slow the clock, or every host would run slow by
 * it and the one that is really ahead would not stand out.  The unheld
 * round trip is learnt as the least seen over the last windows of
 * frames whose credits were back within their slot: in a schedule in
 * step most frames are, none can come back sooner than the link allows,
 * and a frame held into the next slot is left out, so that a node that
 * runs ahead, held a little more each period, cannot teach the minimum
 * its holds.  It is capped at what a slot
 * leaves after a largest frame: a link slower than that cannot keep the
 * schedule, and what it adds is a hold like any other (the clock then
 * follows the link, as the paper's network interface would).
 */
#define FBS_FEEDBACK_WINDOW	64	/* frames per window of the minimum */

/*
 * The most one hold pushes the clock of a node in step (one whose frames
 * came back within their slots lately): half a slot.  Feedback keeps
 * nodes together only while none is half a slot or more off another (the
 * paper's Eq. 1, section 4.4), so such a node held longer was not merely
 * ahead of a slower one: its frame or its credits were delayed by
 * something else, such as a millisecond in which the host's or the
 * switch's work did not run.  Followed in full, such a hold put a host
 * most of a slot behind the rest.  The hosts it then held were pushed as
 * far in turn, one after another around the ring, and one boot in forty
 * (vm/fbs_eight) ended with two neighbours a slot either side of the
 * others, sending in each other's slots: conflict-free, so no feedback
 * ever mended it.  Beyond the cap the node keeps to its clock, and the
 * slots that end meanwhile pass unused (the caller's catch-up, as for a
 * host not run).  A node whose link never brings credits back within a
 * slot is not in step: its clock follows the link, hold by hold.
 */
#define FBS_FEEDBACK_MAX_PUSH_DIV	2

struct fbs_feedback {
	fq_u64 base[2];		/* least round trip, this window and the last */
	fq_u32 seen;		/* frames in this window */
	fq_u64 cap_ns;		/* the most a round trip may be */
};

/* @cap_ns: a slot less a largest frame's time on the wire */
static inline void fbs_feedback_init(struct fbs_feedback *f, fq_u64 cap_ns)
{
	f->base[0] = f->base[1] = ~(fq_u64)0;
	f->seen = 0;
	f->cap_ns = cap_ns;
}

/* Whether a frame's credits came back within its slot lately (two windows). */
static inline bool fbs_feedback_in_step(const struct fbs_feedback *f)
{
	return f->base[0] != ~(fq_u64)0 || f->base[1] != ~(fq_u64)0;
}

/* @push, cut to half a slot of @e if the node is in step */
static inline fq_u64 fbs_feedback_cap(const struct fbs_feedback *f, const struct fbs_exec *e,
				      fq_u64 push)
{
	fq_u64 most = e->slot_ns / FBS_FEEDBACK_MAX_PUSH_DIV;

	return push > most && fbs_feedback_in_step(f) ? most : push;
}

/*
 * The round trip taken for the link's own: the least seen, capped; the
 * cap before the first frame's credits came back within their slot.
 */
static inline fq_u64 fbs_feedback_base(const struct fbs_feedback *f)
{
	fq_u64 b = f->base[0] < f->base[1] ? f->base[0] : f->base[1];

	return b < f->cap_ns ? b : f->cap_ns;
}

/*
 * The frame of the current slot of @e went at @sent, spent @wire_ns on
 * the wire, and its credits were back at @back.  Returns how far its
 * slot is to be pushed (for fbs_exec_advance()): 0 when nothing held the
 * frame; when something did, the hold and whatever the frame had already
 * lost before it went, since the slot is to start where the frame could
 * have, up to half a slot for a node in step (FBS_FEEDBACK_MAX_PUSH_DIV).
 * @back before @sent: the credits never ran out, nothing held it.
 *
 * @gated_ns: how much of what the frame lost before it went (@sent after
 * the slot's start) it spent waiting for credits, the previous frame's
 * or its own.  That is back-pressure as well: a hold under the allowance
 * is not acted on, but the next frame of a node that sends in every slot
 * waits for it, and without this such holds would pile up from slot to
 * slot, each too small to count, until frames left their slots with no
 * clock ever re-phased.  It counts with the hold against the allowance;
 * the rest of the lateness, the host's own timers, does not.
 */
static inline fq_u64 fbs_feedback_held(struct fbs_feedback *f, const struct fbs_exec *e,
				       fq_u64 sent, fq_u64 back, fq_u64 wire_ns,
				       fq_u64 gated_ns)
{
	fq_u64 trip, base, hold, late = sent > e->slot_start ? sent - e->slot_start : 0;

	if (gated_ns > late)
		gated_ns = late;
	if (back < sent + wire_ns)
		return gated_ns > e->slot_ns / FBS_EXEC_JITTER_DIV ? fbs_feedback_cap(f, e, late) : 0;
	trip = back - sent - wire_ns;
	if (back <= fbs_exec_due(e)) {
		if (trip < f->base[0])
			f->base[0] = trip;
		if (++f->seen == FBS_FEEDBACK_WINDOW) {
			f->base[1] = f->base[0];
			f->base[0] = ~(fq_u64)0;
			f->seen = 0;
		}
	}
	base = fbs_feedback_base(f);
	hold = trip > base ? trip - base : 0;
	if (hold + gated_ns <= e->slot_ns / FBS_EXEC_JITTER_DIV)
		return 0;
	return fbs_feedback_cap(f, e, hold + late);
}

/*
 * A node that waits for its last frame's credits before it sends again:
 * how much of a slot went to that wait, which is back-pressure as well
 * (fbs_feedback_held()'s @gated_ns).  A push cut to half a slot
 * (fbs_feedback_cap()) leaves the held frame's credits back after the
 * next slot began, and the wait for them there is the hold already
 * answered, not back-pressure anew, or that slot would be pushed the
 * rest of the way; so is any later wait up to that time (a frame the
 * wait made late, whose credits then came back late).  sch_fbs and qsim's
 * FBS both keep it here.
 */
struct fbs_credit_wait {
	fq_u64 back;		/* the last frame's credits were back */
	fq_u64 answered;	/* waiting until then was a hold answered */
};

/* A frame's credits are back at @back (or are due then). */
static inline void fbs_credit_wait_back(struct fbs_credit_wait *w, fq_u64 back)
{
	w->back = back;
}

/* After fbs_exec_advance(@e, @held): a push, cut, that left them to come. */
static inline void fbs_credit_wait_advanced(struct fbs_credit_wait *w,
					    const struct fbs_exec *e, fq_u64 held)
{
	if (held && w->back > e->slot_start)
		w->answered = w->back;
}

/* How much of the current slot, up to @now, went waiting and counts. */
static inline fq_u64 fbs_credit_wait_gated(const struct fbs_credit_wait *w,
					   const struct fbs_exec *e, fq_u64 now)
{
	fq_u64 end = now < w->back ? now : w->back;
	fq_u64 from = w->answered > e->slot_start ? w->answered : e->slot_start;

	return end > from ? end - from : 0;
}

/*
 * The latest a frame @wire_ns long on the wire may start in the current
 * slot: it must end within the slot (but for the jitter allowed, at
 * least FBS_EXEC_MIN_LATE_NS), or it would run into the next slot's
 * frames, which the schedule kept apart.
 */
static inline fq_u64 fbs_exec_send_by(const struct fbs_exec *e, fq_u64 wire_ns)
{
	fq_u64 rem, len = fbs_exec_slot_len(e, &rem);
	fq_u64 late = e->slot_ns / FBS_EXEC_JITTER_DIV;

	return e->slot_start + (len > wire_ns ? len - wire_ns : 0) +
	       (late > FBS_EXEC_MIN_LATE_NS ? late : FBS_EXEC_MIN_LATE_NS);
}

/*
 * How many whole slots of this clock fit between the current slot's start
 * and @now: what an idle node passes without sending.  At most one short
 * of the truth (the carry is left out), never more.
 */
static inline fq_u64 fbs_exec_slots_until(const struct fbs_exec *e, fq_u64 now)
{
	fq_u64 den = (fq_u64)(FBS_EXEC_PPB + e->drift_ppb);

	if (now <= e->slot_start)
		return 0;
	return fq_mul_div64(now - e->slot_start, den, e->slot_ns * (fq_u64)FBS_EXEC_PPB);
}

/*
 * Pass @n slots at once, nothing sent in them: a node that was idle a
 * long while keeps its place in the schedule without a step per slot.
 * The carry restarts (under a nanosecond lost per jump).
 */
static inline void fbs_exec_jump(struct fbs_exec *e, fq_u64 n)
{
	fq_u64 den = (fq_u64)(FBS_EXEC_PPB + e->drift_ppb);

	e->slot_start += fq_mul_div64(n, e->slot_ns * (fq_u64)FBS_EXEC_PPB, den);
	e->rem = 0;
	e->slot = (fq_u32)((e->slot + n - fq_div64(e->slot + n, e->slots) * e->slots));
	e->executed += n;
}

/*
 * The slot this clock is in at @t: from the current slot, forward over
 * slots an idle node has not stepped through yet, or back for a time
 * before the current slot began.
 */
static inline fq_u32 fbs_exec_slot_at(const struct fbs_exec *e, fq_u64 t)
{
	fq_u64 den = (fq_u64)(FBS_EXEC_PPB + e->drift_ppb);
	fq_u64 num = e->slot_ns * (fq_u64)FBS_EXEC_PPB, n;

	if (t >= e->slot_start) {
		n = fq_mod64(fq_mul_div64(t - e->slot_start, den, num), e->slots);
		return (fq_u32)fq_mod64(e->slot + n, e->slots);
	}
	/* the slot that began at or before t: ceil of the distance back */
	n = fq_mod64(fq_mul_div64(e->slot_start - t - 1, den, num) + 1, e->slots);
	return (fq_u32)fq_mod64(e->slot + e->slots - n, e->slots);
}

enum fbs_verdict {
	FBS_IN_SLOT,
	FBS_EARLY,	/* the frame's slot is still to come here */
	FBS_LATE,	/* ... or has passed */
};

/*
 * A frame sent in slot @k, judged by its receiver at @t (the frame's
 * middle, as the receiver's clock tells it): in its slot, or early or
 * late, whichever is the shorter way round the period.
 */
static inline enum fbs_verdict fbs_exec_judge(const struct fbs_exec *e, fq_u32 k, fq_u64 t)
{
	fq_u32 cur = fbs_exec_slot_at(e, t), ahead;

	if (cur == k)
		return FBS_IN_SLOT;
	ahead = (fq_u32)fq_mod64((fq_u64)k + e->slots - cur, e->slots);
	return ahead <= e->slots / 2 ? FBS_EARLY : FBS_LATE;
}

/*
 * How long after its slot began at its sender a slot-tagged frame was in
 * at its receiver.  The sender gave the frame a time to deadline that
 * ends @window_ns after its slot's start (sch_fbs: the expected arrival
 * plus half a slot) and every hop took its own time out of it, so what is
 * left on arrival, @ttd_ns, tells the time since that start without a
 * clock shared with the sender.  @wire_ns, the frame's own time on the
 * receiver's link, is added: the emulated switch hands a frame on as its
 * first byte goes, a real link delivers its last.
 */
static inline fq_u64 fbs_arrival_ns(fq_u64 window_ns, fq_s32 ttd_ns, fq_u64 wire_ns)
{
	fq_s64 since = (fq_s64)window_ns - ttd_ns;

	return (since > 0 ? (fq_u64)since : 0) + wire_ns;
}

/*
 * The arrival histogram: FBS_LAT_PER_SLOT buckets per slot of @slot_ns,
 * FBS_LAT_BUCKETS in all, the last for everything beyond.
 */
#define FBS_LAT_BUCKETS		64
#define FBS_LAT_PER_SLOT	4

static inline unsigned int fbs_lat_bucket(fq_u64 lat_ns, fq_u64 slot_ns)
{
	/* slot_ns under 2^30: lat_ns past 2^60 is beyond every bucket */
	if (lat_ns >= (fq_u64)1 << 60)
		return FBS_LAT_BUCKETS - 1;
	lat_ns = fq_div64(lat_ns * FBS_LAT_PER_SLOT, slot_ns);
	return lat_ns < FBS_LAT_BUCKETS - 1 ? (unsigned int)lat_ns : FBS_LAT_BUCKETS - 1;
}

#endif /* FQ_FBS_EXEC_H */
