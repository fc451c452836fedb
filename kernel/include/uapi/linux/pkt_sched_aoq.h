/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * aoq qdisc: netlink attributes and statistics shared by sch_aoq.ko and
 * tc/q_aoq.so.  Documented in Documentation/aoq.rst.
 *
 * Units on the wire: times in nanoseconds.  Lanes are the classes
 * <handle>:1 .. <handle>:TC_AOQ_MAX_LANES; lane = minor - 1.
 */
#ifndef _UAPI_LINUX_PKT_SCHED_AOQ_H
#define _UAPI_LINUX_PKT_SCHED_AOQ_H

#include <linux/types.h>
#include <linux/fabric_hdr.h>

#define TC_AOQ_MAX_LANES	64
#define TC_AOQ_MAX_WEIGHT	256
#define TC_AOQ_MAX_MESSAGE	65535	/* frames: the largest message_limit */
#define TC_AOQ_MIN_STALL_NS	1000000ULL		/* stall: 1 ms .. */
#define TC_AOQ_MAX_STALL_NS	60000000000ULL		/* .. 60 s */

/* Disciplines. */
enum {
	TC_AOQ_MODE_AOQ,	/* anchored opportunity queueing */
	TC_AOQ_MODE_FBRR,	/* frame-by-frame round robin */
	TC_AOQ_MODE_ARR,	/* anchored round robin */
	TC_AOQ_MODE_PBRR,	/* message-by-message round robin */
	__TC_AOQ_MODE_MAX,
};
#define TC_AOQ_MODE_MAX (__TC_AOQ_MODE_MAX - 1)

/* Qdisc options (TCA_OPTIONS of "tc qdisc ... aoq"). */
enum {
	TCA_AOQ_UNSPEC,
	TCA_AOQ_PAD,
	TCA_AOQ_MODE,		/* u8: TC_AOQ_MODE_* */
	TCA_AOQ_STALL,		/* u64: give up a message without progress for this long, ns */
	TCA_AOQ_DEFAULT,	/* u32: minor of the lane for unclassified traffic, 0: drop */
	TCA_AOQ_SEGMENT,	/* u8: segment GSO packets at enqueue (1) or not (0) */
	TCA_AOQ_MESSAGE_LIMIT,	/* u32: frames after which a message counts as ended, 1..TC_AOQ_MAX_MESSAGE */
	TCA_AOQ_CREDITS,	/* u8: send only with the link's credits (fabric_hdr.h) */
	TCA_AOQ_CREDIT_UNIT,	/* u32: bytes per credit, 1..65535 (64) */
	__TCA_AOQ_MAX,
};
#define TCA_AOQ_MAX (__TCA_AOQ_MAX - 1)

/* Class options (TCA_OPTIONS of "tc class ... aoq"). */
enum {
	TCA_AOQ_CLASS_UNSPEC,
	TCA_AOQ_CLASS_WEIGHT,	/* u32: share of opportunities, 1..TC_AOQ_MAX_WEIGHT */
	__TCA_AOQ_CLASS_MAX,
};
#define TCA_AOQ_CLASS_MAX (__TCA_AOQ_CLASS_MAX - 1)

/* Per lane statistics (tc -s class show), via TCA_STATS_APP. */
struct tc_aoq_class_stats {
	__u64	offered;	/* opportunities offered (visits while active) */
	__u64	used;		/* opportunities that sent a frame */
	__u64	frames;		/* frames sent */
	__u64	messages;	/* message tails sent */
	__u64	bytes;		/* bytes sent */
	__u64	drops;		/* frames dropped at enqueue into the lane */
	__u64	abandoned;	/* messages given up after the stall time */
	__u64	count;		/* opportunity count now, weight-normalised */
	__u32	weight;
	__u32	active;		/* 1: busy or frames waiting */
	__u32	busy;		/* 1: a message is in progress */
	__u32	anchor;		/* 1: the anchor lane */
	__u64	forced_tails;	/* messages ended at message_limit frames */
	__u64	max_msg_opps;	/* most opportunities one of its messages took */
};

/* Qdisc statistics (tc -s qdisc show), via TCA_STATS_APP. */
struct tc_aoq_qd_stats {
	__u64	max_spread;	/* mode aoq: largest count difference of two lanes active together */
	__u64	busy_periods;	/* times every lane went idle (counts reset) */
	__u64	gso_segmented;	/* GSO packets split at enqueue */
	__u64	unclassified;	/* packets dropped for want of a lane, or by a filter */
	__u64	idle_dequeues;	/* dequeues that sent nothing with frames queued */
	__u64	abandoned;	/* messages given up, all lanes */
	__u64	tails_lost;	/* GSO messages whose last segment was dropped */
	__u32	active_lanes;
	__s32	anchor;		/* lane minor of the anchor, -1: none */
	__u64	forced_tails;	/* messages ended at message_limit frames, all lanes */
	__u64	max_msg_opps;	/* M: most opportunities one message took */
	struct tc_fabric_credit_xstats credits;	/* credits on */
};

#endif /* _UAPI_LINUX_PKT_SCHED_AOQ_H */
