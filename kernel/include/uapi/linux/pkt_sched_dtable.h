/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * dtable qdisc: netlink attributes and statistics shared by sch_dtable.ko
 * and tc/q_dtable.so.  Documented in Documentation/dtable.rst.
 *
 * Units on the wire: credit and MTUs in bytes, weights in credits (dtable)
 * or packets (sbt).
 */
#ifndef _UAPI_LINUX_PKT_SCHED_DTABLE_H
#define _UAPI_LINUX_PKT_SCHED_DTABLE_H

#include <linux/types.h>
#include <linux/fabric_hdr.h>

#define TC_DTABLE_PRIO_BANDS	16	/* skb->priority values the priomap maps */
#define TC_DTABLE_MAX_CLASSES	256
#define TC_DTABLE_MAX_ENTRIES	4096

enum {
	TC_DTABLE_MODE_DTABLE,	/* deficit table (Algorithm 2) */
	TC_DTABLE_MODE_SBT,	/* simple bandwidth table (Algorithm 1) */
	TC_DTABLE_MODE_RR,	/* round robin */
	__TC_DTABLE_MODE_MAX,
};
#define TC_DTABLE_MODE_MAX (__TC_DTABLE_MODE_MAX - 1)

/* One table entry. */
struct tc_dtable_entry {
	__u16	cls;		/* class number: classid MAJ:cls+1 */
	__u16	pad;		/* must be 0 */
	__u32	weight;		/* credits (dtable), packets (sbt), unused (rr) */
};

/* Qdisc options (TCA_OPTIONS of "tc qdisc ... dtable"). */
enum {
	TCA_DTABLE_UNSPEC,
	TCA_DTABLE_MODE,	/* u8: TC_DTABLE_MODE_* */
	TCA_DTABLE_CLASSES,	/* u16: number of classes, fixed at creation */
	TCA_DTABLE_CREDIT,	/* u32: bytes per weight unit */
	TCA_DTABLE_MTU,		/* binary: __u32[classes] packet size per class, bytes */
	TCA_DTABLE_PRIOMAP,	/* binary: __u8[TC_DTABLE_PRIO_BANDS] class numbers */
	TCA_DTABLE_TABLE,	/* binary: struct tc_dtable_entry[]; dumped when
				 * it fits in the message */
	TCA_DTABLE_ENTRIES,	/* u32: table entries; dump only */
	TCA_DTABLE_CREDITS,	/* u8: send only with the link's credits (fabric_hdr.h) */
	TCA_DTABLE_CREDIT_UNIT,	/* u32: bytes per link credit, 1..65535 (64) */
	__TCA_DTABLE_MAX,
};
#define TCA_DTABLE_MAX (__TCA_DTABLE_MAX - 1)

/* Class options dumped (TCA_OPTIONS of "tc class show"); read only. */
enum {
	TCA_DTABLE_CLASS_UNSPEC,
	TCA_DTABLE_CLASS_MTU,		/* u32 */
	TCA_DTABLE_CLASS_ENTRIES,	/* u32: table entries naming the class */
	TCA_DTABLE_CLASS_WEIGHT,	/* u64: sum of their weights */
	TCA_DTABLE_CLASS_PAD,		/* alignment padding of the u64 above */
	__TCA_DTABLE_CLASS_MAX,
};
#define TCA_DTABLE_CLASS_MAX (__TCA_DTABLE_CLASS_MAX - 1)

enum {
	TC_DTABLE_XSTATS_QDISC = 1,
	TC_DTABLE_XSTATS_CLASS = 2,
};

/* Qdisc statistics (tc -s qdisc show), via TCA_STATS_APP. */
struct tc_dtable_xstats {
	__u32	type;		/* TC_DTABLE_XSTATS_QDISC */
	__u32	pad;
	__u64	walks;		/* passes through the whole table */
	__u64	empty_scans;	/* dequeues that found nothing to send */
	__u64	resets;		/* sbt: weights restored */
	__u64	lone_sends;	/* sbt: packets of a lone class on zero weight */
	__u64	table_changes;	/* tables installed by change */
	struct tc_fabric_credit_xstats credits;	/* credits on */
};

/* Class statistics (tc -s class show), via TCA_STATS_APP. */
struct tc_dtable_class_xstats {
	__u32	type;		/* TC_DTABLE_XSTATS_CLASS */
	__u32	pad;
	__u64	deficit;	/* bytes owed (dtable), now */
	__u64	visited;	/* table entries of the class looked at */
	__u64	skipped;	/* ... passed over: nothing to send */
	__u64	packets;	/* sent */
	__u64	bytes;
	__u64	drops;		/* refused at enqueue: by the child, or GSO not cut */
	__u64	left;		/* sbt: packets left in this round */
};

#endif /* _UAPI_LINUX_PKT_SCHED_DTABLE_H */
