/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the soft switch believes of a frame from an untrusted port
 * (Documentation/trust.rst), shared by kernel/vcsw_main.c and the unit tests.
 *
 * A fabric header claims a VC and a time to deadline (TTD).  On an
 * untrusted port the TTD is held to the port's [ttd_min, ttd_max], and
 * regulated (VC0) frames are policed to a rate with a burst tolerance; a
 * VC0 frame over it is dropped or carried as best effort (VC1), as the
 * port's exceed setting says.  Best-effort frames are not policed: VC1 is
 * served only when VC0 is empty, so they claim nothing that others lose.
 *
 * Nothing here locks: the caller serialises the calls on one policer.
 */
#ifndef FQ_VCSW_TRUST_H
#define FQ_VCSW_TRUST_H

#include "core_types.h"
#include "edf_core.h"
#include "../include/uapi/linux/vcsw.h"

/*
 * The policer is a GCRA (the virtual-scheduling form of a token bucket):
 * a frame conforms if the theoretical arrival time @tat, advanced by the
 * frame's time at the rate, stays within @tolerance = burst / rate of now.
 * Frames that do not conform do not advance @tat.  A rate of 0 admits
 * nothing.
 */
struct vcsw_police {
	fq_u64	rate;		/* bytes/s */
	fq_u64	tolerance;	/* ns */
	fq_u64	tat;		/* ns */
};

static inline void vcsw_police_init(struct vcsw_police *pc, fq_u64 rate,
				    fq_u32 burst)
{
	pc->rate = rate;
	pc->tolerance = rate ? edf_tx_time(burst, rate) : 0;
	pc->tat = 0;
}

/* Does a @len-byte frame arriving at @now conform?  If so it is charged. */
static inline bool vcsw_police_conform(struct vcsw_police *pc, fq_u32 len,
				       fq_u64 now)
{
	fq_u64 tat;

	if (!pc->rate)
		return false;
	tat = edf_add_sat(edf_max(pc->tat, now), edf_tx_time(len, pc->rate));
	if (tat - now > pc->tolerance)
		return false;
	pc->tat = tat;
	return true;
}

/* A time to deadline held to [@lo, @hi] (lo <= hi). */
static inline fq_s64 vcsw_ttd_clamp(fq_s64 ttd, fq_s64 lo, fq_s64 hi)
{
	return ttd < lo ? lo : ttd > hi ? hi : ttd;
}

/* A port's trust settings, besides its policer. */
struct vcsw_trust {
	fq_s32	ttd_min;	/* ns */
	fq_s32	ttd_max;	/* ns, not below ttd_min */
	fq_u8	exceed;		/* VCSW_EXCEED_*: what VC0 over the rate gets */
};

/*
 * What vcsw_trust_ingress() did to a frame: a mask, one bit per port
 * counter, since a frame can have its TTD clamped and be policed too.
 */
enum {
	VCSW_TRUST_CLAMPED	= 1 << 0,	/* TTD held to the range */
	VCSW_TRUST_DEMOTED	= 1 << 1,	/* VC0 over the rate, now VC1 */
	VCSW_TRUST_DROP		= 1 << 2,	/* VC0 over the rate: drop it */
};

/*
 * A @len-byte frame arriving at @now on a port with settings @t and
 * policer @pc, claiming *@ttd and *@vc (0 regulated, else best effort):
 * the TTD is held to the range first, so the deadline, and the TTD the
 * next hop sees, are the clamped ones; a VC0 frame is then charged to the
 * policer, and one over the rate is demoted (*@vc = 1) if the port says
 * demote, else to be dropped.  Returns VCSW_TRUST_* bits; 0 when the
 * frame passes as it came.
 */
static inline unsigned int vcsw_trust_ingress(const struct vcsw_trust *t,
					      struct vcsw_police *pc,
					      fq_u32 len, fq_u64 now,
					      fq_s64 *ttd, fq_u8 *vc)
{
	fq_s64 held = vcsw_ttd_clamp(*ttd, t->ttd_min, t->ttd_max);
	unsigned int r = 0;

	if (held != *ttd) {
		*ttd = held;
		r |= VCSW_TRUST_CLAMPED;
	}
	if (*vc != 0 || vcsw_police_conform(pc, len, now))
		return r;
	if (t->exceed == VCSW_EXCEED_DEMOTE) {
		*vc = 1;
		return r | VCSW_TRUST_DEMOTED;
	}
	return r | VCSW_TRUST_DROP;
}

#endif /* FQ_VCSW_TRUST_H */
