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
 * How far ahead of now a deadline may run.  A flow that sends faster than
 * its rate on an idle link is served at once while its virtual clock runs
 * ahead by len / rate per packet; unbounded, a slow class on a fast link
 * would reach the end of the 64-bit clock in weeks.  2^42 ns (73 min) is
 * far beyond any meaningful deadline and keeps every sum in range.
 */
#define EDF_MAX_LEAD_NS		(1ULL << 42)

static inline fq_u64 edf_cap_lead(fq_u64 deadline, fq_u64 now)
{
	fq_u64 limit = edf_add_sat(now, EDF_MAX_LEAD_NS);

	return deadline > limit ? limit : deadline;
}

/* A flow's deadlines never go backwards, whatever the explicit times say. */
static inline fq_u64 edf_monotonic(fq_u64 prev, fq_u64 deadline)
{
	return edf_max(prev, deadline);
}

#endif /* FQ_EDF_CORE_H */
