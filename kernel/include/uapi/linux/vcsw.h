/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * fabric-qos soft switch "vcsw": netlink attributes of the switch device
 * (IFLA_INFO_DATA of kind "vcsw") and of its ports (IFLA_INFO_SLAVE_DATA
 * of kind "vcsw"), and the per-port, per-VC statistics.  Documented in
 * Documentation/vcsw.rst.
 */
#ifndef _UAPI_LINUX_VCSW_H
#define _UAPI_LINUX_VCSW_H

#include <linux/types.h>

/* VC0 (regulated) port buffer disciplines. */
enum {
	VCSW_MODE_FIFO,		/* one FIFO: the paper's Simple 2 VCs */
	VCSW_MODE_TAKEOVER,	/* ordered FIFO + take-over FIFO: Advanced */
	VCSW_MODE_IDEAL,	/* fully sorted by deadline: Ideal */
	__VCSW_MODE_MAX,
};
#define VCSW_MODE_MAX (__VCSW_MODE_MAX - 1)

/*
 * Switch architectures of the EDF paper (section 4.1): how the input and
 * output buffers are kept and how the crossbar chooses among the inputs
 * (kernel/core/vcsw_xbar.h).  IFLA_VCSW_VC0_MODE is the old name of the
 * choice: fifo is trad, takeover advanced, ideal ideal.
 */
enum {
	VCSW_ARCH_TRAD,		/* FIFOs, round robin: Traditional 2 VCs */
	VCSW_ARCH_SIMPLE,	/* FIFOs, smallest head deadline: Simple 2 VCs */
	VCSW_ARCH_ADVANCED,	/* VC0 ordered + take-over: Advanced 2 VCs */
	VCSW_ARCH_IDEAL,	/* both VCs sorted by deadline: Ideal */
	VCSW_ARCH_RECN,		/* FIFOs per detection queue and SAQ: RECN */
	__VCSW_ARCH_MAX,
};
#define VCSW_ARCH_MAX (__VCSW_ARCH_MAX - 1)

/* Ports of one switch, at most. */
#define VCSW_MAX_PORTS		64

/*
 * VCs of a switch: two (VC0 regulated, VC1 best effort) unless
 * IFLA_VCSW_VCS asks for four (the EDF paper's Traditional 4 VCs, one per
 * class), each strictly before the next.  The two-VC structures below
 * (struct vcsw_credit_stats) keep VCSW_NUM_VCS entries; VCs 2 and 3 have
 * their own attributes.
 */
#define VCSW_NUM_VCS		2
#define VCSW_MAX_VCS		4
/*
 * Sojourn-time histogram: bucket 0 counts departures that waited under
 * 1 us, bucket b (1 <= b < VCSW_SOJOURN_BUCKETS - 1) those that waited
 * [2^(b-1), 2^b) us, the last bucket everything longer.
 */
#define VCSW_SOJOURN_BUCKETS	16

/* Switch device attributes (IFLA_INFO_DATA). */
enum {
	IFLA_VCSW_UNSPEC,
	IFLA_VCSW_PAD,
	IFLA_VCSW_VC0_MODE,	/* u8: VCSW_MODE_*, old name of IFLA_VCSW_ARCH */
	IFLA_VCSW_RATE,		/* u64: emulated port link rate, bytes/s; 0: none */
	IFLA_VCSW_VC0_BUFFER,	/* u32: VC0 buffer per port, bytes */
	IFLA_VCSW_VC1_BUFFER,	/* u32: VC1 buffer per port, bytes */
	IFLA_VCSW_FDB_MAX,	/* u32: most forwarding entries */
	IFLA_VCSW_AGEING,	/* u32: learned entry lifetime, seconds */
	IFLA_VCSW_FDB_COUNT,	/* u32, read only: entries in use */
	IFLA_VCSW_STATS,	/* struct vcsw_stats, read only */
	IFLA_VCSW_GROUP_FWD_MASK, /* u16: link-local groups 01:80:C2:00:00:0x relayed */
	IFLA_VCSW_ARCH,		/* u8: VCSW_ARCH_* */
	IFLA_VCSW_WORMHOLE,	/* u8: 1: a frame leaves its input only for an
				 * idle output (FBS feedback), 0: off (default) */
	IFLA_VCSW_FLOOD,	/* u8: 1: frames with no route and no known
				 * destination (broadcasts too) are flooded
				 * (default), 0: dropped (drop_unrouted), as a
				 * multistage fabric with loops needs */
	IFLA_VCSW_VCS,		/* u8: VCs of every port and link, 2 (default)
				 * to 4; changed only while the switch is down */
	IFLA_VCSW_VC2_BUFFER,	/* u32: VC2 buffer per port, bytes */
	IFLA_VCSW_VC3_BUFFER,	/* u32: VC3 buffer per port, bytes */
	/*
	 * RECN (arch recn, Documentation/recn.rst): changed only while the
	 * switch is down; recn_cfg_check() must hold for them together
	 */
	IFLA_VCSW_RECN_SAQS,	/* u32: SAQs per set, 1 .. 16 (8) */
	IFLA_VCSW_RECN_DETECT,	/* u32 bytes: a queue this full is congested (3072) */
	IFLA_VCSW_RECN_XOFF,	/* u32 bytes: Xoff to the SAQs upstream (6144) */
	IFLA_VCSW_RECN_XON,	/* u32 bytes: Xon again, below xoff (3072) */
	IFLA_VCSW_RECN_LEASE,	/* u32 ns: an Xoff not repeated ends (200000) */
	IFLA_VCSW_RECN_REFRESH,	/* u32 ns: repeat Xoffs, notifications (50000) */
	IFLA_VCSW_RECN_IDLE,	/* u32 ns: free a line left idle (1000000) */
	__IFLA_VCSW_MAX,
};
#define IFLA_VCSW_MAX (__IFLA_VCSW_MAX - 1)

/* Port attributes (IFLA_INFO_SLAVE_DATA). */
enum {
	IFLA_VCSW_PORT_UNSPEC,
	IFLA_VCSW_PORT_PAD,
	IFLA_VCSW_PORT_FDB_ADD,		/* binary[6]: static entry to this port */
	IFLA_VCSW_PORT_FDB_DEL,		/* binary[6]: remove a static entry */
	IFLA_VCSW_PORT_RATE,		/* u64 bytes/s, read only: in effect */
	IFLA_VCSW_PORT_STATS,		/* struct vcsw_port_stats, read only */
	IFLA_VCSW_PORT_VC0_STATS,	/* struct vcsw_vc_stats, read only */
	IFLA_VCSW_PORT_VC1_STATS,	/* struct vcsw_vc_stats, read only */
	IFLA_VCSW_PORT_FDB_FLUSH,	/* flag: forget entries learned here */
	IFLA_VCSW_PORT_TRUST,		/* u8: 1 trusted (default), 0 untrusted */
	IFLA_VCSW_PORT_VC0_RATE,	/* u64 bytes/s: VC0 admitted when untrusted */
	IFLA_VCSW_PORT_VC0_BURST,	/* u32 bytes: its burst tolerance */
	IFLA_VCSW_PORT_VC0_EXCEED,	/* u8: VCSW_EXCEED_* for VC0 over the rate */
	IFLA_VCSW_PORT_TTD_MIN,		/* s32 ns: smallest TTD believed when untrusted */
	IFLA_VCSW_PORT_TTD_MAX,		/* s32 ns: largest TTD believed when untrusted */
	IFLA_VCSW_PORT_CREDITS,		/* u8: 1 credit flow control on the link, 0 off (default) */
	IFLA_VCSW_PORT_CREDIT_UNIT,	/* u32 bytes per credit, 1 .. 65535 (64) */
	IFLA_VCSW_PORT_VC0_IN_BUFFER,	/* u32 bytes: VC0 input buffer (credits on) */
	IFLA_VCSW_PORT_VC1_IN_BUFFER,	/* u32 bytes: VC1 input buffer (credits on) */
	IFLA_VCSW_PORT_CREDIT_STATS,	/* struct vcsw_credit_stats, read only */
	IFLA_VCSW_PORT_VC0_IN_STATS,	/* struct vcsw_vc_stats of the input, read only */
	IFLA_VCSW_PORT_VC1_IN_STATS,	/* struct vcsw_vc_stats of the input, read only */
	IFLA_VCSW_PORT_INDEX,		/* u32, read only: the port's number in routes */
	/* VCs 2 and 3, as their VC0 and VC1 namesakes; the statistics only
	 * while the switch has the VC (IFLA_VCSW_VCS) */
	IFLA_VCSW_PORT_VC2_STATS,	/* struct vcsw_vc_stats, read only */
	IFLA_VCSW_PORT_VC3_STATS,	/* struct vcsw_vc_stats, read only */
	IFLA_VCSW_PORT_VC2_IN_BUFFER,	/* u32 bytes: VC2 input buffer (credits on) */
	IFLA_VCSW_PORT_VC3_IN_BUFFER,	/* u32 bytes: VC3 input buffer (credits on) */
	IFLA_VCSW_PORT_VC2_IN_STATS,	/* struct vcsw_vc_stats of the input, read only */
	IFLA_VCSW_PORT_VC3_IN_STATS,	/* struct vcsw_vc_stats of the input, read only */
	IFLA_VCSW_PORT_VC2_CREDIT_STATS, /* struct vcsw_credit_vc_stats, read only */
	IFLA_VCSW_PORT_VC3_CREDIT_STATS, /* struct vcsw_credit_vc_stats, read only */
	IFLA_VCSW_PORT_RECN,		/* u8: 1 the link's far end runs RECN: tell it
					 * of congestion, take its messages; 0 (default) */
	IFLA_VCSW_PORT_RECN_STATS,	/* struct vcsw_recn_stats, read only */
	__IFLA_VCSW_PORT_MAX,
};
#define IFLA_VCSW_PORT_MAX (__IFLA_VCSW_PORT_MAX - 1)

/* Link-local groups a switch never relays: STP, PAUSE, LACP (bits 0-2). */
#define VCSW_GROUP_FWD_RESTRICTED	0x0007

/* What an untrusted port does with VC0 frames over its rate. */
enum {
	VCSW_EXCEED_DROP,	/* drop them (police_drop) */
	VCSW_EXCEED_DEMOTE,	/* carry them as best effort, VC1 (police_demote) */
	__VCSW_EXCEED_MAX,
};
#define VCSW_EXCEED_MAX (__VCSW_EXCEED_MAX - 1)

/*
 * RECN on one port (arch recn): its input and output sets of both VCs
 * summed (struct recn_stats of kernel/core/recn_core.h), and the link's
 * RECN frames.  Counters only grow, but @saqs, SAQs in use now.
 */
struct vcsw_recn_stats {
	__u64	notify_tx, notify_rx;	/* congestion notifications */
	__u64	xoff_tx, xoff_rx, xon_tx, xon_rx;
	__u64	release_tx, release_rx;	/* a SAQ freed, told downstream */
	__u64	full_tx, full_rx;	/* a notification found no SAQ free */
	__u64	saq_alloc, saq_free;
	__u64	saq_idle_free;		/* freed after idle, not by RELEASE */
	__u64	saq_full;		/* notifications with no SAQ free */
	__u64	root_alloc, root_full;
	__u64	lease_expired;		/* an Xoff ended without an Xon */
	__u64	stale_rx;		/* for a point with no line here */
	__u64	bad_rx;			/* naming no point a route can pass */
	__u64	saqs;			/* in use now, in the four sets */
	__u64	frames_tx, frames_rx;	/* FABRIC_CTRL_RECN frames */
	__u64	frames_refused;		/* malformed, or RECN off on the port */
	__u64	msgs_dropped;		/* not sent: no room, no memory, link down */
};

/* Per VC of an output port.  Counters only grow. */
struct vcsw_vc_stats {
	__u64	packets;		/* departed */
	__u64	bytes;
	__u64	drops_full;		/* refused: VC buffer full */
	__u64	max_backlog_bytes;	/* largest queue seen */
	__u64	max_backlog_packets;
	__u64	takeovers;		/* went to the take-over FIFO */
	__u64	order_errors;		/* left while a smaller deadline waited */
	__u64	deadline_misses;	/* left after their deadline (header frames) */
	__u64	backlog_bytes;		/* now */
	__u64	backlog_packets;	/* now */
	__u64	sojourn_hist[VCSW_SOJOURN_BUCKETS];
};

/* Per port, on the way in and out, by drop reason. */
struct vcsw_port_stats {
	__u64	rx_packets;		/* frames received on this port */
	__u64	rx_bytes;
	__u64	rx_fabric;		/* of those, with a fabric header */
	__u64	drop_malformed;		/* bad fabric header, in */
	__u64	drop_nomem;		/* out of memory, in or out */
	__u64	drop_down;		/* output port down or leaving */
	__u64	drop_xmit;		/* the device refused the frame */
	__u64	drop_rewrite;		/* TTD rewrite failed */
	__u64	drop_loop;		/* destination is the ingress port */
	__u64	flooded;		/* frames flooded out of this port */
	__u64	drop_disabled;		/* in while the switch was down or the port not a member */
	__u64	drop_link_local;	/* 01:80:C2:00:00:0x, not relayed: dropped */
	__u64	drop_oversize;		/* longer than this output port's MTU */
	__u64	police_drop;		/* untrusted: VC0 over the rate, dropped */
	__u64	police_demote;		/* untrusted: VC0 over the rate, sent as VC1 */
	__u64	ttd_clamped;		/* untrusted: TTD outside [ttd_min, ttd_max] */
	__u64	rx_routed;		/* fabric frames in, forwarded by their route */
	__u64	drop_route;		/* in: the route names no port, or this one */
	__u64	drop_unrouted;		/* in: no route, no known destination,
					 * flood off or no other port up */
	__u64	drop_gso;		/* in: a GSO frame its sender sized
					 * into too many segments */
};

/*
 * Per port: credit flow control on its link (Documentation/credits.rst).
 * Counters only grow; the last three pairs are the books now, in units.
 */
struct vcsw_credit_stats {
	__u64	msgs_sent;		/* link messages sent */
	__u64	msgs_received;		/* taken */
	__u64	msgs_malformed;		/* refused: short, unknown type or layout */
	__u64	msgs_unit;		/* refused: the peer counts another unit */
	__u64	msgs_stale;		/* ignored: older than one already taken */
	__u64	msgs_off;		/* received while credits were off, dropped */
	__u64	msgs_tx_fail;		/* built but not sent: down, no memory */
	__u64	resyncs;		/* quiet totals that corrected our count */
	__u64	peer_epochs;		/* first contact or a peer restart */
	__u64	restarts;		/* our books started again (new epoch) */
	__u64	stalls[VCSW_NUM_VCS];	/* a head waited for credits */
	__u64	violations[VCSW_NUM_VCS]; /* frames beyond the grant, dropped */
	__u64	lost_units[VCSW_NUM_VCS];  /* sent by the peer, never arrived */
	__u64	twice_units[VCSW_NUM_VCS]; /* counted twice, taken back */
	__u64	late_units[VCSW_NUM_VCS];  /* taken beyond the buffer: found
					    * lost, then came after all */
	__u64	tx_credits[VCSW_NUM_VCS];  /* units we may send now */
	__u64	rx_buffer[VCSW_NUM_VCS];   /* units we advertise */
	__u64	rx_held[VCSW_NUM_VCS];	   /* units of it in use */
};

/*
 * The per-VC part of struct vcsw_credit_stats, for VCs 2 and 3 (whose
 * message counters are the link's, in IFLA_VCSW_PORT_CREDIT_STATS).
 */
struct vcsw_credit_vc_stats {
	__u64	stalls;
	__u64	violations;
	__u64	lost_units;
	__u64	twice_units;
	__u64	late_units;
	__u64	tx_credits;
	__u64	rx_buffer;
	__u64	rx_held;
};

/* Per switch: the forwarding table.  Counters only grow. */
struct vcsw_stats {
	__u64	fdb_learned;		/* addresses learned */
	__u64	fdb_moved;		/* learned addresses seen on another port */
	__u64	fdb_aged;		/* learned entries collected after ageing */
	__u64	fdb_evicted;		/* learned entries dropped to learn another */
	__u64	fdb_learn_fail;		/* not learned: no room (all static) or memory */
};

#endif /* _UAPI_LINUX_VCSW_H */
