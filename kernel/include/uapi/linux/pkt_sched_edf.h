/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * edf qdisc: netlink attributes and statistics shared by sch_edf.ko and
 * tc/q_edf.so.  Documented in Documentation/edf.rst.
 *
 * Units on the wire: rates in bytes per second, times in nanoseconds,
 * limits in packets.
 */
#ifndef _UAPI_LINUX_PKT_SCHED_EDF_H
#define _UAPI_LINUX_PKT_SCHED_EDF_H

#include <linux/types.h>
#include <linux/fabric_hdr.h>

#define TC_EDF_PRIO_BANDS	16	/* skb->priority values the priomap maps */

/* What the kernel takes; tc checks them too, to name the option refused. */
#define TC_EDF_LIMIT_MAX	1000000		/* limit, flow_limit: packets, from 1 */
#define TC_EDF_FLOWS_MAX	1048576		/* flows kept, from 1 */
#define TC_EDF_ELIG_MAX_NS	1000000000ULL	/* eligibility, from 0 */
#define TC_EDF_TIME_MIN_NS	1000ULL		/* horizon, a class's latency */
#define TC_EDF_TIME_MAX_NS	10000000000ULL
#define TC_EDF_BURST_MAX	(64 << 20)	/* bytes, a class's token bucket */

/* Qdisc options (TCA_OPTIONS of "tc qdisc ... edf"). */
enum {
	TCA_EDF_UNSPEC,
	TCA_EDF_PAD,
	TCA_EDF_RATE,		/* u64: link rate; pace output at it; 0: off */
	TCA_EDF_ELIGIBILITY,	/* u64: E = D - eligibility, ns */
	TCA_EDF_LIMIT,		/* u32: packets queued in the qdisc */
	TCA_EDF_FLOW_LIMIT,	/* u32: packets queued per flow */
	TCA_EDF_MAX_FLOWS,	/* u32: flows kept at once */
	TCA_EDF_TTD,		/* u8: push the fabric header at dequeue */
	TCA_EDF_HORIZON,	/* u64: txtime deadlines beyond now + this are clamped */
	TCA_EDF_DEFAULT,	/* u32: minor of the class for unclassified traffic */
	TCA_EDF_PRIOMAP,	/* binary: __u16[TC_EDF_PRIO_BANDS] class minors, 0: default */
	TCA_EDF_CREDITS,	/* u8: send only with the link's credits (fabric_hdr.h) */
	TCA_EDF_CREDIT_UNIT,	/* u32: bytes per credit, 1..65535 (64) */
	TCA_EDF_VCS,		/* u8: VCs the classes and the credit link use,
				 * 2 (default) .. 4 */
	TCA_EDF_RECN,		/* u8: RECN at the host: hold back frames the
				 * switch stops (needs credits; recn.rst) */
	TCA_EDF_RECN_SAQS,	/* u8: SAQs per VC, 1..16 (8) */
	TCA_EDF_RECN_LEASE,	/* u64: ns an Xoff holds unless repeated (200 us) */
	TCA_EDF_RECN_IDLE,	/* u64: ns a SAQ stays empty before it is freed (1 ms) */
	TCA_EDF_LINK_RATE,	/* u64: dump only: the link rate in use, bytes/s:
				 * TCA_EDF_RATE, else the device's speed (read
				 * again when the device comes up or changes),
				 * else 1 Gbit/s */
	__TCA_EDF_MAX,
};
#define TCA_EDF_MAX (__TCA_EDF_MAX - 1)

/* Class modes: how a class computes deadlines. */
enum {
	TC_EDF_MODE_RATE,	/* D = max(D', now) + len / rate */
	TC_EDF_MODE_CONTROL,	/* the same at the link rate */
	TC_EDF_MODE_FRAME,	/* D = max(D', now) + latency / parts of the frame */
	TC_EDF_MODE_TXTIME,	/* D = the packet's SO_TXTIME, within the horizon */
	__TC_EDF_MODE_MAX,
};
#define TC_EDF_MODE_MAX (__TC_EDF_MODE_MAX - 1)

/*
 * Virtual channels, as in the fabric header, each strictly before the
 * next.  VCs 2 and 3 need TCA_EDF_VCS 3 or 4 (the EDF paper's Traditional
 * 4 VCs); their clocks are best effort's, unless the class has a burst.
 */
enum {
	TC_EDF_VC_REGULATED,
	TC_EDF_VC_BESTEFFORT,
	TC_EDF_VC_2,
	TC_EDF_VC_3,
	__TC_EDF_VC_MAX,
};
#define TC_EDF_VC_MAX (__TC_EDF_VC_MAX - 1)

/* Class options (TCA_OPTIONS of "tc class ... edf"). */
enum {
	TCA_EDF_CLASS_UNSPEC,
	TCA_EDF_CLASS_PAD,
	TCA_EDF_CLASS_MODE,	/* u8: TC_EDF_MODE_* */
	TCA_EDF_CLASS_RATE,	/* u64: reserved rate (rate mode) or weight (besteffort) */
	TCA_EDF_CLASS_LATENCY,	/* u64: frame latency, ns (frame mode) */
	TCA_EDF_CLASS_VC,	/* u8: TC_EDF_VC_* */
	TCA_EDF_CLASS_SMOOTH,	/* u8: hold packets until eligible (regulated only) */
	TCA_EDF_CLASS_PERFLOW,	/* u8: deadlines per flow (1) or per class (0) */
	TCA_EDF_CLASS_BURST,	/* u32: bytes; rate mode: a token bucket of the
				 * class's rate and this depth; 0: none */
	__TCA_EDF_CLASS_MAX,
};
#define TCA_EDF_CLASS_MAX (__TCA_EDF_CLASS_MAX - 1)

/* Drop reasons, indexes of the drops[] arrays below. */
enum {
	TC_EDF_DROP_LIMIT,	/* qdisc limit reached */
	TC_EDF_DROP_FLOW_LIMIT,	/* flow_limit reached */
	TC_EDF_DROP_FLOWS,	/* no flow could be had: max_flows all busy */
	TC_EDF_DROP_OVERSIZE,	/* with ttd on: frame + header above the MTU */
	TC_EDF_DROP_NOMEM,	/* allocation or segmentation failed */
	__TC_EDF_DROP_MAX,
};
#define TC_EDF_DROP_REASONS __TC_EDF_DROP_MAX

/* Per class statistics (tc -s class show), via TCA_STATS_APP. */
struct tc_edf_class_stats {
	__u64	packets;	/* dequeued */
	__u64	bytes;
	__u64	drops[TC_EDF_DROP_REASONS];
	__u64	deadline_misses;	/* dequeued after their deadline */
	__u64	max_lateness_ns;	/* largest now - D at dequeue */
	__u64	held;		/* packets that waited for their eligible time */
	__u64	flows_created;
	__u64	flows_collected;
	__u32	active_flows;	/* flows with packets queued */
	__u32	flows;		/* flows kept (active or with state) */
	__u32	qlen;
	__u32	pad;
	__u64	backlog;	/* bytes queued */
	__u64	txtime_late;	/* SO_TXTIMEs before now, ordered at now */
};

/* Qdisc statistics (tc -s qdisc show), via TCA_STATS_APP. */
struct tc_edf_qd_stats {
	__u64	drops[TC_EDF_DROP_REASONS];
	__u64	deadline_misses;
	__u64	max_lateness_ns;
	__u64	held;
	__u64	flows_created;
	__u64	flows_collected;
	__u64	throttled;	/* dequeues held back by the rate pacer */
	__u64	gso_segmented;	/* GSO packets split at enqueue */
	__u64	unclassified;	/* packets sent to the default class */
	__u64	ttd_pushed;	/* fabric headers written */
	__u32	active_flows;
	__u32	flows;
	__u32	eligible_wait;	/* flows whose head waits for eligibility */
	__u32	ttd_skipped;	/* with ttd on: sent without the header */
	__u64	txtime_late;	/* SO_TXTIMEs before now, ordered at now */
	struct tc_fabric_credit_xstats credits;	/* credits on */
	/* credits on a link of more than two VCs: VC2's and VC3's */
	__u32	credit_vcs;		/* VCs the link carries; 0: credits off */
	__u32	credit_tx_credits_hi[2];
	__u32	pad_hi;
	__u64	credit_stalls_hi[2];
	__u64	direct_spills;	/* packets queued alone, then put in a heap
				 * when another came before they left */
	/* recn on: the link's SAQs, and the flows held back for them */
	struct tc_fabric_recn_xstats recn;
	__u64	recn_held;	/* times a flow was held behind a SAQ */
	__u32	recn_held_flows; /* flows held now */
	__u32	pad_recn;
};

#endif /* _UAPI_LINUX_PKT_SCHED_EDF_H */
