/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * fbs qdisc: netlink attributes and statistics shared by sch_fbs.ko and
 * tc/q_fbs.so.  Documented in Documentation/fbs.rst.
 *
 * A host's column of an FBS slot schedule: per slot, the destination
 * (class) this host may send to, TC_FBS_UNRESERVED for a slot best
 * effort may use, or TC_FBS_SILENT for one in which this host sends
 * nothing (another host's reservation to some receiver is in it).
 */
#ifndef _UAPI_LINUX_PKT_SCHED_FBS_H
#define _UAPI_LINUX_PKT_SCHED_FBS_H

#include <linux/types.h>
#include <linux/fabric_hdr.h>

#define TC_FBS_MAX_DESTS	64	/* destination classes MAJ:1 .. MAJ:64 */
#define TC_FBS_MAX_SLOTS	32000	/* a period: 64000 bytes of table */
#define TC_FBS_UNRESERVED	0xffff	/* a table entry: best effort's slot */
#define TC_FBS_SILENT		0xfffe	/* a table entry: nothing is sent */
#define TC_FBS_MIN_SLOT_NS	1000
#define TC_FBS_MAX_SLOT_NS	1000000000
#define TC_FBS_MAX_DRIFT_PPB	100000000	/* 10 % */
/*
 * fbs-boot's ring messages (IEEE 802 local experimental EtherType 2):
 * the qdisc sends frames of this type at once, outside its schedule.
 */
#define TC_FBS_BOOT_ETHERTYPE	0x88B6
/*
 * verify on: the arrival latency histogram, TC_FBS_LAT_PER_SLOT buckets
 * per slot of this host's clock, the last one open-ended
 */
#define TC_FBS_LAT_BUCKETS	64
#define TC_FBS_LAT_PER_SLOT	4

/* Qdisc options (TCA_OPTIONS of "tc qdisc ... fbs"). */
enum {
	TCA_FBS_UNSPEC,
	TCA_FBS_DESTS,		/* u16: destination classes, fixed at creation */
	TCA_FBS_TABLE,		/* binary: __u16[slots], a destination 0..dests-1,
				 * TC_FBS_UNRESERVED or TC_FBS_SILENT per slot */
	TCA_FBS_SLOT_NS,	/* u32: a slot, ns */
	TCA_FBS_DRIFT_PPB,	/* s32: the slot clock's error, parts per 10^9,
				 * positive: fast */
	TCA_FBS_FRAME,		/* u32: the largest frame, bytes from the
				 * Ethernet header; larger ones are dropped */
	TCA_FBS_LIMIT,		/* u32: packets queued per class */
	TCA_FBS_CREDITS,	/* u8: send under the link's credits, and wait
				 * for them between slots: the feedback */
	TCA_FBS_CREDIT_UNIT,	/* u32: bytes per link credit, 1..65535 (64) */
	TCA_FBS_SLOTS,		/* u32: entries of the table; dump only */
	TCA_FBS_NODE,		/* u16: this host's node, 0..63: the sender
				 * its verified frames name (0) */
	TCA_FBS_VERIFY,		/* u8: mark frames with their slot and judge
				 * the marked frames that arrive (0) */
	TCA_FBS_DELAY_NS,	/* u32: how long after its slot began a frame
				 * is expected at its receiver; 0: one slot */
	TCA_FBS_RESTART,	/* flag: slot 0 begins now (after a bootstrap);
				 * change only */
	TCA_FBS_PAD,
	TCA_FBS_RATE,		/* u64: the link's rate, bytes/s, to time each
				 * frame on the wire; absent: a slot is one
				 * largest frame at the link's rate */
	TCA_FBS_RESTART_REAL_NS,	/* u64, with TCA_FBS_RESTART: when slot 0
				 * began, CLOCK_REALTIME ns (a frame's receive
				 * timestamp), within the last minute; absent:
				 * now.  fbs-boot's start signal */
	TCA_FBS_PAUSE,		/* u8: 1: the schedule stops, nothing but
				 * fbs-boot's frames leaves, until a restart
				 * or 0 (the clock then goes on where it
				 * is): fbs-boot's ring runs on a quiet
				 * network */
	__TCA_FBS_MAX,
};
#define TCA_FBS_MAX (__TCA_FBS_MAX - 1)

/* Class options: dump only. */
enum {
	TCA_FBS_CLASS_UNSPEC,
	TCA_FBS_CLASS_SLOTS,	/* u32: table entries naming the class */
	__TCA_FBS_CLASS_MAX,
};
#define TCA_FBS_CLASS_MAX (__TCA_FBS_CLASS_MAX - 1)

enum {
	TC_FBS_XSTATS_QDISC = 1,
	TC_FBS_XSTATS_CLASS = 2,
};

/* Qdisc statistics (tc -s qdisc show), via TCA_STATS_APP. */
struct tc_fbs_xstats {
	__u32	type;		/* TC_FBS_XSTATS_QDISC */
	__u32	slot;		/* the slot executing now */
	__u64	slots;		/* slots executed */
	__u64	stalls;		/* slots pushed back: the switch held their
				 * frame beyond the link's own round trip */
	__u64	stall_ns;	/* their total lateness */
	__u64	reserved_frames;	/* frames sent in a destination's slot */
	__u64	unreserved_frames;	/* best effort, in unreserved slots */
	__u64	idle_slots;	/* reserved slots with nothing queued for them */
	__u64	late_slots;	/* reserved slots that passed with a frame
				 * queued for them: we ran too late */
	__u64	oversize;	/* frames above "frame" bytes, dropped */
	__u64	no_slot;	/* frames for a class the table gives no
				 * slot, dropped */
	__u64	table_changes;	/* tables installed by change */
	/* verify on: frames sent with their slot, and those received */
	__u64	tagged;		/* frames sent with the fabric header */
	__u64	untagged;	/* ... without: an inner type it cannot carry */
	__u64	rx_frames;	/* slot-tagged frames that arrived here */
	__u64	rx_in_slot;	/* in the slot they were sent in, by our clock */
	__u64	rx_early;	/* before it */
	__u64	rx_late;	/* after it */
	__u64	rx_foreign;	/* naming a slot beyond our period */
	__u64	restarts;	/* slot 0 begun again on request */
	__u64	boot_frames;	/* fbs-boot's frames, sent outside the schedule */
	struct tc_fabric_credit_xstats credits;	/* credits on */
	__u64	link_trip_ns;	/* credits on: the least time from a frame's
				 * last byte on the wire to its credits back,
				 * over the last 64 to 128 frames; what the
				 * switch adds on top of it is feedback */
	__u64	slot_start_ns;	/* when the current slot began, CLOCK_MONOTONIC:
				 * hosts of one machine compare their phases */
	/*
	 * verify on: how long after its slot began at its sender each frame
	 * judged here was in (its last byte), read from its time to
	 * deadline; assumes the sender's slot and delay are ours
	 */
	__u64	rx_lat_sum_ns;
	__u64	rx_lat_max_ns;
	__u64	rx_lat_hist[TC_FBS_LAT_BUCKETS];	/* bucket i: from i to
				 * i + 1 quarter slots; the last: beyond */
	__u64	boot_refused;	/* frames of fbs-boot's type that are no
				 * message of its (another EtherType inside,
				 * shorter than one, longer than 60 bytes) or
				 * found 16 queued: dropped */
};

/* Class statistics (tc -s class show), via TCA_STATS_APP. */
struct tc_fbs_class_xstats {
	__u32	type;		/* TC_FBS_XSTATS_CLASS */
	__u32	pad;
	__u64	packets;	/* sent */
	__u64	bytes;
	__u64	drops;		/* over the limit, oversize, or trimmed by a change */
};

#endif /* _UAPI_LINUX_PKT_SCHED_FBS_H */
