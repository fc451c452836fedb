/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deadline arithmetic of the edf qdisc (paper: edf-deadline-qos-two-vcs,
 * section 3.1), shared by sch_edf_main.c, the unit tests and the simulator.
 *
 * Times are nanoseconds on one local clock (the kernel's monotonic
 * clock); rates are bytes per second.  Every function saturates instead
 * of wrapping, so no input can move a deadline backwards.
 */
#ifndef FQ_EDF_CORE_H
#define FQ_EDF_CORE_H

#include "core_types.h"

#define EDF_NSEC_PER_SEC	1000000000ULL
#define EDF_TIME_MAX		(~(fq_u64)0)

/* Limits the qdisc accepts: 1 kbit/s .. 400 Gbit/s, packets up to 64 KB. */
#define EDF_RATE_MIN		125ULL			/* bytes/s */
#define EDF_RATE_MAX		50000000000ULL		/* bytes/s */
#define EDF_LEN_MAX		65536U

/* a + b, or EDF_TIME_MAX when that does not fit (an add and a move) */
static inline fq_u64 edf_add_sat(fq_u64 a, fq_u64 b)
{
	fq_u64 sum;

	return __builtin_add_overflow(a, b, &sum) ? EDF_TIME_MAX : sum;
}

static inline fq_u64 edf_max(fq_u64 a, fq_u64 b)
{
	return a > b ? a : b;
}

/*
 * Time to send @len bytes at @rate bytes/s, rounded up so that a flow
 * never gets more than its rate.  len * 1e9 fits in 64 bits for any
 * 32-bit length; a zero rate is treated as the slowest rate.
 */
static inline fq_u64 edf_tx_time(fq_u32 len, fq_u64 rate)
{
	fq_u64 bits = (fq_u64)len * EDF_NSEC_PER_SEC;

	if (!rate)
		rate = 1;
	return fq_div64(bits + rate - 1, rate);
}

/* Virtual clock: D(Pi) = max(D(Pi-1), now) + L(Pi) / rate. */
static inline fq_u64 edf_vclock_deadline(fq_u64 prev, fq_u64 now, fq_u32 len,
					 fq_u64 rate)
{
	return edf_add_sat(edf_max(prev, now), edf_tx_time(len, rate));
}

/*
 * The pacer (the qdisc's "rate"): the earliest time the packet after one
 * of @len bytes sent at @now may go, @prev the time this one was due.
 * Each packet waits its own length at @rate after the one before; but a
 * packet sent late, its timer having fired after @prev (a loaded CPU, a
 * softirq run late, a timer's slack), gets back up to half of its own
 * time from the next wait.  Counting every wait from the late send, as
 * the virtual clock above does, gave up each lateness for good: a pacer
 * whose wakeups ran 2 ms late sent 1.8-ms packets every 3.8 ms, half its
 * rate.  Never faster than @rate: the next packet is due at least
 * len / rate after this one was (@prev), as now + tx - min(tx / 2, now -
 * @prev) >= @prev + tx.  A packet after an idle spell gets the same half
 * (its @prev long past): one packet's half-length burst at most.
 */
static inline fq_u64 edf_pacer_next(fq_u64 prev, fq_u64 now, fq_u32 len,
				    fq_u64 rate)
{
	fq_u64 tx = edf_tx_time(len, rate);

	if (now > prev)
		tx -= now - prev < tx / 2 ? now - prev : tx / 2;
	return edf_add_sat(edf_max(prev, now), tx);
}

/*
 * A token bucket of @rate and @burst bytes on a virtual clock: a packet
 * whose deadline is D (edf_vclock_deadline() from the class's last) may
 * leave from D minus this, the time @burst takes at @rate.  The clock's
 * lead over now is the bucket's deficit, so a burst of @burst bytes
 * leaves at once and then the class keeps to @rate: the paper's token
 * buckets of Traditional 4 VCs.
 */
static inline fq_u64 edf_bucket_eligibility(fq_u32 burst, fq_u64 rate)
{
	return burst ? edf_tx_time(burst, rate) : 0;
}

/*
 * Frame deadlines: every packet of a frame of @parts packets adds
 * latency / parts, so a frame of any size completes about @latency after
 * it started.
 */
static inline fq_u64 edf_frame_deadline(fq_u64 prev, fq_u64 now,
					fq_u64 latency, fq_u32 parts)
{
	if (!parts)
		parts = 1;
	return edf_add_sat(edf_max(prev, now), fq_div64(latency, parts));
}

/* E = D - eligibility: a smoothed packet may not leave before E. */
static inline fq_u64 edf_eligible_time(fq_u64 deadline, fq_u64 eligibility)
{
	return deadline > eligibility ? deadline - eligibility : 0;
}

static inline bool edf_is_eligible(fq_u64 now, fq_u64 deadline,
				   fq_u64 eligibility)
{
	return now >= edf_eligible_time(deadline, eligibility);
}

/*
 * Explicit deadlines (SO_TXTIME) are believed only between @floor and
 * now + @horizon.  Further out is clamped to now + horizon, so that one
 * application cannot park a packet forever.  Earlier than @floor, the
 * VC's now (now itself for regulated classes, the service frontier for
 * best-effort ones, what a packet without a txtime would get), the
 * packet is already late, and taken at its word it would go ahead of
 * every packet that is due: any socket may stamp CLOCK_MONOTONIC 1 and
 * head its VC for as long as it keeps sending.  A late txtime is ordered
 * at @floor instead (the caller counts it: edf_txtime_is_late()).
 */
static inline bool edf_txtime_is_late(fq_u64 txtime, fq_u64 floor)
{
	return txtime < floor;
}

static inline fq_u64 edf_txtime_deadline(fq_u64 txtime, fq_u64 floor,
					 fq_u64 now, fq_u64 horizon)
{
	fq_u64 limit = edf_add_sat(now, horizon);

	if (txtime > limit)
		txtime = limit;
	return edf_max(txtime, floor);
}

/*
 * How far ahead of its start (now, or a best-effort VC's frontier) a
 * deadline may run.  A flow that sends faster than its rate on an idle
 * link is served at once while its virtual clock runs ahead by len / rate
 * per packet; unbounded, a slow class on a fast link would reach the end
 * of the 64-bit clock in weeks.  2^42 ns (73 min) is far beyond any
 * meaningful deadline and keeps every sum in range.
 */
#define EDF_MAX_LEAD_NS		(1ULL << 42)

static inline fq_u64 edf_cap_lead(fq_u64 deadline, fq_u64 start)
{
	fq_u64 limit = edf_add_sat(start, EDF_MAX_LEAD_NS);

	return deadline > limit ? limit : deadline;
}

/*
 * The best-effort clock of one VC: self-clocked fair queueing, so that
 * the classes' rates act as weights.  A best-effort packet's clock starts
 * from the VC's service frontier, the deadline of the last best-effort
 * packet that left (or now, if later), so that a class that wakes up
 * starts level with the ones that kept sending instead of far behind
 * them, where it would shut them out.
 *
 * The frontier runs ahead of real time whenever the backlogged classes'
 * rates add up to less than what they are served (one class of 10 Mbit/s
 * alone on a 10 Gbit/s link: 1000 times).  Deadlines are then in virtual
 * time, and only their order among the VC's best-effort packets means
 * anything; so their lead is capped from the frontier, not from now (a
 * cap from now would, once reached, give every class the same deadline:
 * arrival order, weights gone).  And when the VC has no best-effort
 * packet left, the frontier is forgotten and every clock of the VC with
 * it (@epoch): its next packets start from now, as on a new qdisc.
 */
struct edf_be_clock {
	fq_u64	frontier;	/* deadline of the last departure; 0: now */
	fq_u32	backlogged;	/* best-effort flows of the VC with packets */
	fq_u32	epoch;		/* the VC's idle times so far */
};

/*
 * A flow keeps the epoch of its last deadline in EDF_BE_EPOCH_BITS (the
 * room a flow has).  An epoch 2^24 idle times old reads as current: a
 * flow idle across exactly a multiple of that many (16.7 million; at a
 * million idle times a second, more than 16 s, when an idle flow of its
 * own has long been collected) starts from its old deadline.
 */
#define EDF_BE_EPOCH_BITS	24
#define EDF_BE_EPOCH_MASK	((1U << EDF_BE_EPOCH_BITS) - 1)

/* Where a best-effort packet's clock starts. */
static inline fq_u64 edf_be_start(const struct edf_be_clock *c, fq_u64 now)
{
	return edf_max(now, c->frontier);
}

/*
 * A best-effort flow's last deadline @last, given in @epoch (its low
 * EDF_BE_EPOCH_BITS), as its clock reads it now: 0 if the VC has been
 * idle since.
 */
static inline fq_u64 edf_be_prev(const struct edf_be_clock *c, fq_u64 last,
				 fq_u32 epoch)
{
	return ((epoch ^ c->epoch) & EDF_BE_EPOCH_MASK) ? 0 : last;
}

/* A best-effort flow of the VC got its first packet. */
static inline void edf_be_wake(struct edf_be_clock *c)
{
	c->backlogged++;
}

/* A best-effort flow of the VC has no packet left. */
static inline void edf_be_drain(struct edf_be_clock *c)
{
	if (c->backlogged && !--c->backlogged) {
		c->frontier = 0;
		c->epoch++;
	}
}

/*
 * A best-effort packet of deadline @deadline left, after its flow was
 * drained if it was its last (edf_be_drain()): the frontier moves only
 * while the VC has a backlog, so an idle VC starts again from now.
 */
static inline void edf_be_depart(struct edf_be_clock *c, fq_u64 deadline)
{
	if (c->backlogged)
		c->frontier = edf_max(c->frontier, deadline);
}

/* A flow's deadlines never go backwards, whatever the explicit times say. */
static inline fq_u64 edf_monotonic(fq_u64 prev, fq_u64 deadline)
{
	return edf_max(prev, deadline);
}

#endif /* FQ_EDF_CORE_H */
