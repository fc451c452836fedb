/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * fabric-qos fabric header: wire format and the generic netlink interface
 * of the fabric_hdr module.  Documented in Documentation/fabric-header.rst.
 *
 * The header sits right after the Ethernet header, announced by
 * EtherType ETH_P_FABRIC.  All fields are in network byte order.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------+---+-+-+---------------+-------------------------------+
 *  |version| VC|H|T|    SL/class   |       inner EtherType         |
 *  +-------+---+-+-+---------------+-------------------------------+
 *  |               TTD: time to deadline, ns, signed               |
 *  +---------------------------------------------------------------+
 *  |                            flow id                            |
 *  +---------------------------------------------------------------+
 *  |                           sequence                            |
 *  +---------------------------------------------------------------+
 *  |                  route / turnpool (0: by MAC)                 |
 *  +---------------------------------------------------------------+
 */
#ifndef _UAPI_LINUX_FABRIC_HDR_H
#define _UAPI_LINUX_FABRIC_HDR_H

#include <linux/types.h>

#define ETH_P_FABRIC		0x88B5	/* IEEE 802 local experimental 1 */
#define FABRIC_HDR_LEN		20
#define FABRIC_HDR_VERSION	1

/* First byte: version (high nibble), VC, message head and tail flags. */
#define FABRIC_HDR_VER_SHIFT	4
#define FABRIC_HDR_VC_SHIFT	2
#define FABRIC_HDR_VC_MASK	0x3
#define FABRIC_HDR_F_HEAD	0x2	/* first frame of a message */
#define FABRIC_HDR_F_TAIL	0x1	/* last frame of a message */

/* Virtual channels. */
#define FABRIC_VC_REGULATED	0
#define FABRIC_VC_BESTEFFORT	1

/*
 * Link control: a fabric frame whose inner EtherType is ETH_P_FABRIC
 * itself carries a message for the other end of the link, never
 * forwarded.  The one message type so far, FABRIC_CTRL_LINK, carries the
 * per-VC credit totals of both directions (Documentation/credits.rst),
 * for the n VCs the link carries (2 to 4; both ends the same):
 *
 *   0 type   1 VCs (n)   2-3 credit unit, bytes
 *   4-7 sender's epoch   8-11 receiver's epoch as last heard (0: none)
 *  12-15 message number
 *  16 + 12 * vc: units sent (total), units granted (total),
 *                flags (FABRIC_CTRL_F_*), the sender's input buffer
 *                on the VC in units, 3 bytes (0: not said)
 *  16 + 12 * n:  number of the receiver's last message taken (0: none),
 *                4 bytes
 */
#define FABRIC_CTRL_LINK	1
#define FABRIC_CTRL_LINK_ACK_OFF_VCS(n)	(16 + 12 * (n))
#define FABRIC_CTRL_LINK_LEN_VCS(n)	(FABRIC_CTRL_LINK_ACK_OFF_VCS(n) + 4)
/* with two VCs */
#define FABRIC_CTRL_LINK_LEN	FABRIC_CTRL_LINK_LEN_VCS(2)
#define FABRIC_CTRL_LINK_ACK_OFF FABRIC_CTRL_LINK_ACK_OFF_VCS(2)
#define FABRIC_CTRL_F_LIMIT	0x1	/* the grant is meaningful */
#define FABRIC_CTRL_F_QUIET	0x2	/* nothing sent on the VC lately */

/*
 * FABRIC_CTRL_RECN carries RECN messages (Documentation/recn.rst) to the
 * other end of the link, 1 to FABRIC_CTRL_RECN_MAX of them:
 *
 *   0 type   1 messages (n)   2-3 0
 *   4 + 12 * i: kind (FABRIC_RECN_*), VC, SL, digits (1 to 6),
 *               the route digits to the congested point, 8 bytes
 *
 * A frame with anything else (shorter than n messages, a nonzero reserved
 * byte, an unknown kind, a VC above 1, a point no route can pass) is
 * refused whole; bytes after the n messages are not read.  Receivers
 * that do not run RECN refuse every one.
 */
#define FABRIC_CTRL_RECN	2
#define FABRIC_CTRL_RECN_MAX	16
#define FABRIC_CTRL_RECN_ENTRY	12
#define FABRIC_CTRL_RECN_LEN(n)	(4 + FABRIC_CTRL_RECN_ENTRY * (n))
#define FABRIC_RECN_NOTIFY	1	/* upstream: give the point a SAQ */
#define FABRIC_RECN_XOFF	2	/* upstream: stop its SAQ */
#define FABRIC_RECN_XON		3	/* upstream: serve it again */
#define FABRIC_RECN_RELEASE	4	/* downstream: my SAQ for it is gone */
#define FABRIC_RECN_FULL	5	/* downstream: no SAQ free for it */

/*
 * Host-to-host control: a fabric frame whose inner EtherType is
 * FABRIC_INNER_FBS_BOOT carries a message of the FBS bootstrap ring
 * (Documentation/fbs.rst) from one host's fbs qdisc to another host,
 * forwarded as data is (by its route, or by MAC), on the regulated VC.
 * Its inner packet is at least FABRIC_FBS_BOOT_LEN bytes.  A receiving
 * host passes it up without the header, to fbs-boot's packet socket.
 */
#define FABRIC_INNER_FBS_BOOT	0x88B6	/* IEEE 802 local experimental 2 */
#define FABRIC_FBS_BOOT_LEN	12	/* magic, type, round */

/*
 * FBS slot frames (Documentation/fbs.rst): a host's fbs qdisc with
 * "verify on" marks each frame with the slot it was scheduled in and its
 * sender, and the receiving host's fbs qdisc judges whether it arrived in
 * that slot by its own clock.  flow id: FABRIC_SLOT_TAG | sender;
 * sequence: the slot, 0 .. period - 1.
 */
#define FABRIC_SLOT_TAG		0xfb5c0000
#define FABRIC_SLOT_TAG_MASK	0xffff0000

/*
 * A host qdisc's end of a credit link ("credits on"), as each of our
 * qdiscs reports it at the end of its xstats (tc -s); all zero when its
 * credits are off.  Per VC: [FABRIC_VC_REGULATED], [FABRIC_VC_BESTEFFORT].
 */
struct tc_fabric_credit_xstats {
	__u32	unit;		/* bytes per credit; 0: credits off */
	__u32	tx_credits[2];	/* units the peer grants now */
	__u32	pad;
	__u64	stalls[2];	/* a picked frame waited for credits */
	__u64	msgs_sent;	/* link messages sent */
	__u64	msgs_received;	/* taken */
	__u64	msgs_refused;	/* malformed, another unit, or stale */
	__u64	msgs_tx_fail;	/* could not be sent (no memory, queue stopped) */
	__u64	peer_epochs;	/* first contact or a restart of the peer */
	__u64	restarts;	/* our end started its books again (link up) */
	__u64	peer_silent_ms;	/* since the peer's last message taken, or
				 * since our books started if none since */
};

/*
 * RECN at a host's end of a credit link (edf "recn on"; Documentation/
 * recn.rst, "Hosts"), in the qdisc's xstats.  All zero with RECN off.
 */
struct tc_fabric_recn_xstats {
	__u32	nsaq;		/* SAQs per VC; 0: RECN off */
	__u32	saqs;		/* SAQs in use now, both VCs */
	__u64	frames_rx;	/* FABRIC_CTRL_RECN frames taken */
	__u64	frames_refused;	/* ... refused whole (malformed) */
	__u64	frames_tx;	/* sent (RELEASE, FULL) */
	__u64	msgs_dropped;	/* messages that could not be sent */
	__u64	notify_rx;	/* notifications (a SAQ made, or FULL said) */
	__u64	xoff_rx;
	__u64	xon_rx;
	__u64	release_tx;	/* SAQs freed: the switch was told */
	__u64	full_tx;	/* notifications with no SAQ free */
	__u64	saq_alloc;
	__u64	saq_idle_free;	/* freed after the idle time, never used */
	__u64	lease_expired;	/* Xoffs that ended without an Xon */
	__u64	stale_rx;	/* for a point without a SAQ, or not for a host */
	__u64	bad_rx;		/* naming no point */
};

struct fabric_hdr {
	__u8	ver_vc_flags;
	__u8	sl;
	__be16	inner_proto;
	__be32	ttd_ns;		/* two's complement, negative: late */
	__be32	flow_id;
	__be32	seq;
	__be32	route;
} __attribute__((packed));

/*
 * Lateness histogram: bucket 0 counts late arrivals under 1 us late,
 * bucket b (1 <= b < FABRIC_LATE_BUCKETS - 1) those in [2^(b-1), 2^b) us,
 * the last bucket everything from 2^(FABRIC_LATE_BUCKETS - 2) us up.
 */
#define FABRIC_LATE_BUCKETS	16

/*
 * Generic netlink family: per network namespace, per device receive
 * statistics, and the host's source routes (per device and destination
 * MAC address; Documentation/fabric-header.rst, "Routes on a host").
 */
#define FABRIC_GENL_NAME	"fabric_hdr"
#define FABRIC_GENL_VERSION	1

enum {
	FABRIC_CMD_UNSPEC,
	FABRIC_CMD_GET_STATS,	/* doit: FABRIC_A_IFINDEX; dump: all devices */
	FABRIC_CMD_ROUTE_NEW,	/* IFINDEX, ROUTE_DST, ROUTE [, ROUTE_REPLACE] */
	FABRIC_CMD_ROUTE_DEL,	/* IFINDEX, ROUTE_DST: one; IFINDEX: the
				 * device's; nothing: the namespace's;
				 * ROUTE or ROUTE_REPLACE: refused */
	FABRIC_CMD_ROUTE_GET,	/* dump: every route of the namespace */
	__FABRIC_CMD_MAX,
};
#define FABRIC_CMD_MAX (__FABRIC_CMD_MAX - 1)

enum {
	FABRIC_A_UNSPEC,
	FABRIC_A_PAD,
	FABRIC_A_IFINDEX,		/* u32 */
	FABRIC_A_IFNAME,		/* string */
	FABRIC_A_RX_FRAMES,		/* u64: valid frames passed up */
	FABRIC_A_RX_BYTES,		/* u64: their inner bytes */
	FABRIC_A_DROP_SHORT,		/* u64: shorter than the header */
	FABRIC_A_DROP_VERSION,		/* u64: unknown version */
	FABRIC_A_DROP_INNER_TYPE,	/* u64: inner EtherType not carried */
	FABRIC_A_DROP_TRUNCATED,	/* u64: inner packet shorter than it says */
	FABRIC_A_LATE,			/* u64: valid frames with TTD < 0 */
	FABRIC_A_LATE_MAX_NS,		/* u64: largest lateness seen, ns */
	FABRIC_A_LATE_HIST,		/* binary: __u64[FABRIC_LATE_BUCKETS] */
	FABRIC_A_DROP_NOMEM,		/* u64: dropped, out of memory */
	FABRIC_A_ROUTE_DST,		/* binary: destination MAC, 6 bytes */
	FABRIC_A_ROUTE,			/* u32: the turnpool (header's route) */
	FABRIC_A_ROUTE_REPLACE,		/* flag: ROUTE_NEW may replace a route */
	FABRIC_A_DROP_LINK_MSG,		/* u64: credit-link messages no qdisc here took */
	FABRIC_A_DROP_LINK_LAYER,	/* u64: not behind an Ethernet header */
	__FABRIC_A_MAX,
};
#define FABRIC_A_MAX (__FABRIC_A_MAX - 1)

#endif /* _UAPI_LINUX_FABRIC_HDR_H */
