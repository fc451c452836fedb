/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The soft switch's own state and the calls between its files:
 * vcsw_main.c (buffers, crossbar, sending, ports, the device), vcsw_rx.c
 * (the receive path), vcsw_credit.c (credit flow control), vcsw_fdb.c
 * (the forwarding table) and vcsw_netlink.c (configuration and dumps).
 */
#ifndef FQ_VCSW_PRIV_H
#define FQ_VCSW_PRIV_H

#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/rhashtable.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>

#include "include/uapi/linux/vcsw.h"
#include "core/vcsw_clock.h"
#include "core/fabric_credit.h"
#include "fabric_link.h"
#include "core/vcsw_port.h"
#include "core/vcsw_trust.h"
#include "core/vcsw_vc_attrs.h"
#include "core/vcsw_xbar.h"
#include "core/recn_wire.h"
#include "fabric_hdr.h"

#define VCSW_DEFAULT_ARCH	VCSW_ARCH_ADVANCED
#define VCSW_DEFAULT_BUFFER	65536
/*
 * Input buffer per VC of a port with credits: the paper's 8 KB, or two
 * full-size frames when that is more (one arriving while the credit for
 * the other travels back), so a jumbo MTU still streams.
 */
#define VCSW_DEFAULT_IN_BUFFER	8192
#define VCSW_IN_BUFFER_MAX	(64 << 20)	/* the most one may configure */
/*
 * Segments a port cuts, at most, from one GSO frame whose segment size its
 * sender chose (SKB_GSO_DODGY: a packet socket with PACKET_VNET_HDR, a tap
 * device, a guest).  A guest's TSO packet of 64 KB needs 46 at a 1500-byte
 * MTU and 131 at Linux's smallest path MTU (552, an MSS of 500); UDP GSO
 * sends 128 at most.  A claimed segment size of a few bytes would make
 * thousands of frames from one.
 */
#define VCSW_GSO_MAX_SEGS	256
/* frames one run of the crossbar moves before it leaves the rest to a timer */
#define VCSW_XBAR_BUDGET	64
#define VCSW_DEFAULT_FDB_MAX	1024
#define VCSW_DEFAULT_AGEING	300
/* entries the clock hand looks at, at most, to find one to evict */
#define VCSW_FDB_EVICT_SCAN	32
/* the collector runs again after the next expiry, within these bounds */
#define VCSW_GC_MIN_DELAY	(HZ / 10)
#define VCSW_GC_MAX_DELAY	(10 * HZ)

/* untrusted ports by default believe no regulated traffic, TTD 0 .. 100 ms */
#define VCSW_DEFAULT_VC0_BURST	16384
#define VCSW_DEFAULT_TTD_MIN	0
#define VCSW_DEFAULT_TTD_MAX	100000000

/* Port counters, in the order of struct vcsw_port_stats. */
enum vcsw_pstat {
	VCSW_PS_RX_PACKETS,
	VCSW_PS_RX_BYTES,
	VCSW_PS_RX_FABRIC,
	VCSW_PS_DROP_MALFORMED,
	VCSW_PS_DROP_NOMEM,
	VCSW_PS_DROP_DOWN,
	VCSW_PS_DROP_XMIT,
	VCSW_PS_DROP_REWRITE,
	VCSW_PS_DROP_LOOP,
	VCSW_PS_FLOODED,
	VCSW_PS_DROP_DISABLED,
	VCSW_PS_DROP_LINK_LOCAL,
	VCSW_PS_DROP_OVERSIZE,
	VCSW_PS_POLICE_DROP,
	VCSW_PS_POLICE_DEMOTE,
	VCSW_PS_TTD_CLAMPED,
	VCSW_PS_RX_ROUTED,
	VCSW_PS_DROP_ROUTE,
	VCSW_PS_DROP_UNROUTED,
	VCSW_PS_DROP_GSO,
	VCSW_PS_MAX,
};

/* Switch counters, in the order of struct vcsw_stats. */
enum vcsw_sstat {
	VCSW_SS_FDB_LEARNED,
	VCSW_SS_FDB_MOVED,
	VCSW_SS_FDB_AGED,
	VCSW_SS_FDB_EVICTED,
	VCSW_SS_FDB_LEARN_FAIL,
	VCSW_SS_MAX,
};

struct vcsw;

/*
 * A port's RECN state (arch recn, vcsw_recn.c): the sets of its input
 * and output buffers, VCs 0 and 1 (the switch's lock), and the messages
 * for the link's far end waiting to go in one FABRIC_CTRL_RECN frame
 * (the switch's lock), then built on @txq (its own lock).
 */
#define VCSW_RECN_VCS	VCSW_NUM_VCS
#define VCSW_RECN_TXQ_MAX	16
struct vcsw_recn_port {
	struct vcsw_rq		in[VCSW_RECN_VCS];
	struct vcsw_rq		out[VCSW_RECN_VCS];
	/* under the switch's lock: staged by vcsw_recn_deliver() */
	struct recn_wire_msg	tx[FABRIC_CTRL_RECN_MAX];
	u32			ntx;
	/* built, for the flush after the lock: at most VCSW_RECN_TXQ_MAX */
	struct sk_buff_head	txq;
	bool			sending;	/* one flush at a time: txq's lock */
	atomic64_t		frames_tx, frames_rx, frames_refused;
	atomic64_t		msgs_dropped;
};

struct vcsw_slave {
	struct list_head	list;		/* in vcsw->ports, RCU */
	struct vcsw		*sw;
	struct net_device	*dev;
	bool			enabled;	/* a member: learns, forwards */
	u16			idx;		/* slot in vcsw->slots */
	/* @dead, @txq, @sending and the credit state below */
	spinlock_t		lock;
	bool			dead;		/* leaving: refuse frames */
	/*
	 * The port's input buffers (credits only), output buffer and the
	 * crossbar's round robin: under the switch's lock.
	 */
	struct vcsw_xport	x;
	/*
	 * Frames the buffer released, in order, for the one context that
	 * is handing them to the device (@sending): see vcsw_slave_flush().
	 */
	struct sk_buff_head	txq;
	bool			sending;
	struct hrtimer		timer;		/* link free again */
	/*
	 * Wormhole (vcsw_xport.wormhole): the frame on this output's link
	 * still holds its input's credits, as a worm holds its path, until
	 * its last byte is out; under the switch's lock
	 */
	struct vcsw_slave	*wh_from;	/* NULL: none held */
	struct fcr_charge	wh_charge;
	/* trust: written under RTNL, read by the receive path */
	bool			trusted;
	u32			vc0_burst;
	/*
	 * @trust and @police, written under RTNL and this lock: the receive
	 * path sees a configuration change whole (never a new ttd_min with
	 * an old ttd_max).
	 */
	spinlock_t		police_lock;
	struct vcsw_trust	trust;
	struct vcsw_police	police;
	atomic64_t		st[VCSW_PS_MAX];

	/*
	 * Credits (Documentation/credits.rst): configuration written under
	 * RTNL and @lock (@credits also read without it, then again under
	 * it); the books (@cp: the link's, and the input buffer's across
	 * restarts, core/fabric_credit.h), @stalled and the counters under
	 * @lock.
	 */
	bool			credits;
	bool			link_up;	/* running with carrier, RTNL */
	u32			credit_unit;
	u32			in_cfg[VCSW_MAX_VCS];	/* bytes; 0: default */
	struct fcr_port		cp;
	bool			stalled[VCSW_MAX_VCS];
	u64			cst_stalls[VCSW_MAX_VCS];
	atomic64_t		cst_msgs_off;
	atomic64_t		cst_tx_fail;
	struct hrtimer		ctimer;		/* the periodic link message */

	/* RECN: @recn_peer written under RTNL, @rp allocated with the port */
	bool			recn_peer;	/* the far end speaks RECN */
	struct vcsw_recn_port	*rp;
};

struct vcsw_fdb {
	struct rhash_head	rhnode;		/* in vcsw->fdb, key @addr */
	struct list_head	list;		/* in vcsw->fdb_list, RCU */
	struct rcu_head		rcu;
	u8			addr[ETH_ALEN];
	bool			is_static;	/* READ_ONCE: fdb_add sets it */
	bool			gone;		/* deleted; under fdb_lock */
	bool			hit;		/* seen since the hand passed */
	struct vcsw_slave	*port;		/* READ_ONCE: learning moves it */
	unsigned long		updated;	/* jiffies */
};

struct vcsw {
	struct net_device	*dev;
	struct list_head	ports;		/* RTNL writes, RCU reads */
	spinlock_t		fdb_lock;	/* table, list, hand and count */
	struct rhashtable	fdb;
	struct list_head	fdb_list;	/* every entry: the clock's circle */
	struct list_head	*fdb_hand;	/* next entry the clock looks at */
	u32			fdb_count;
	struct delayed_work	fdb_gc;
	atomic64_t		st[VCSW_SS_MAX];
	/* configuration: written under RTNL, read by the data path */
	u32			fdb_max;
	u32			ageing;		/* s; 0: never */
	u16			group_fwd_mask;
	u8			arch;		/* VCSW_ARCH_*, also under @lock */
	bool			wormhole;	/* every port's vcsw_xport.wormhole */
	bool			flood;		/* flood what has no known way */
	u32			wh_held;	/* ports whose link holds a charge */
	u64			rate;
	u32			buffer[VCSW_MAX_VCS];
	/*
	 * VCs of every port and link: written under RTNL and @lock while
	 * the switch is down, read by the receive path
	 */
	u8			vcs;

	/*
	 * The crossbar, under @lock: every port's buffers (struct
	 * vcsw_xport), the slots, the cursor.  A port's slot is its index
	 * for the crossbar (vcsw_node.out); a free slot holds
	 * vcsw_xport_none, which no frame can reach.  Slots change under
	 * RTNL and @lock; @slot_port is also read under RCU.
	 */
	spinlock_t		lock;
	struct vcsw_xport	*slots[VCSW_MAX_PORTS];
	struct vcsw_slave	*slot_port[VCSW_MAX_PORTS];
	unsigned int		nslots;		/* highest slot in use + 1 */
	unsigned int		cursor;
	u32			in_frames;	/* frames in input buffers */
	struct hrtimer		xbar_timer;	/* the rest of a run */

	/*
	 * RECN (arch recn): @recn_cfg written under RTNL while the switch
	 * is down; the box, the tick under @lock
	 */
	struct recn_cfg		recn_cfg;
	struct vcsw_rq_box	recn_box;
	struct hrtimer		recn_timer;	/* recn_tick() of every set */
	bool			recn_ticking;
};


/* A queued frame: the core's node plus the frame. */
struct vcsw_ent {
	struct vcsw_node	node;
	struct sk_buff		*skb;
	struct fcr_charge	charge;		/* in its input's books */
};

/* What the receive path decided of a frame, for its entry. */
struct vcsw_fwd {
	u64	deadline;
	u32	route;		/* as this switch read it (RECN); 0: none */
	u8	vc;
	u8	sl;
	bool	timed;
};

/* Carried from dequeue to transmission, outside the port lock. */
struct vcsw_skb_cb {
	u64	deadline;
	bool	timed;
	u8	cvc;		/* the credits it took downstream: */
	u64	cgen;		/* the books' generation; 0: none */
	u32	clen;		/* its length on the wire */
	u32	cunits;		/* the units the books counted for it */
};

static inline struct vcsw_skb_cb *vcsw_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct vcsw_skb_cb) > sizeof(skb->cb));
	return (struct vcsw_skb_cb *)skb->cb;
}

static inline void vcsw_count(struct vcsw_slave *p, enum vcsw_pstat s)
{
	atomic64_inc(&p->st[s]);
}

static inline void vcsw_sw_count(struct vcsw *sw, enum vcsw_sstat s)
{
	atomic64_inc(&sw->st[s]);
}


/* vcsw_main.c: buffers, crossbar, sending, ports, the device */
struct vcsw_slave *vcsw_slave_of_rtnl(const struct net_device *dev);
void vcsw_wormhole_release(struct vcsw *sw, u64 now, bool force);
void vcsw_kick(struct vcsw *sw, struct vcsw_slave *p);
void vcsw_kick_bh(struct vcsw *sw, struct vcsw_slave *p);
void vcsw_kick_all(struct vcsw *sw, bool serve);
void vcsw_input_free(struct vcsw_slave *in, struct vcsw_list *gone,
		     struct vcsw_slave *down);
int vcsw_dev_stop(struct net_device *dev);
void vcsw_setup(struct net_device *dev);
void vcsw_forward_one(struct vcsw_slave *out, struct sk_buff *skb,
		      const struct vcsw_fwd *fw, u64 now);
void vcsw_input_one(struct vcsw_slave *in, struct vcsw_slave *out,
		    struct sk_buff *skb, const struct vcsw_fwd *fw,
		    u64 now, struct fcr_charge *c);

/* vcsw_recn.c: RECN in the switch (arch recn) */
#define VCSW_RECN_MTU	1536	/* the frame size the defaults assume */
void vcsw_recn_defaults(struct recn_cfg *c);
int vcsw_recn_port_alloc(struct vcsw *sw, struct vcsw_slave *p);
void vcsw_recn_port_free(struct vcsw_slave *p);
void vcsw_recn_reset(struct vcsw *sw);
void vcsw_recn_set_peer(struct vcsw_slave *p, bool on);
u32 vcsw_recn_deliver(struct vcsw *sw, u64 now, unsigned long *flush);

/* Ports whose frames wait on their txq, to flush once the switch's lock is let go. */
#define VCSW_FLUSH_BITS		VCSW_MAX_PORTS
void vcsw_flush_ports(struct vcsw *sw, unsigned long *flush);
void vcsw_recn_flush(struct vcsw_slave *p);
void vcsw_recn_rcv(struct vcsw_slave *p, struct sk_buff *skb);
void vcsw_recn_arm(struct vcsw *sw);
enum hrtimer_restart vcsw_recn_timer(struct hrtimer *t);
void vcsw_recn_read_stats(struct vcsw_slave *p, struct vcsw_recn_stats *st);

/* vcsw_rx.c: the receive path */
rx_handler_result_t vcsw_handle_frame(struct sk_buff **pskb);

/* vcsw_credit.c: credit flow control on a port's link */
bool vcsw_slave_up(const struct vcsw_slave *p);
u32 vcsw_in_bytes(u32 cfg, u32 unit, unsigned int mtu);
u32 vcsw_in_limit(const u32 *bytes, unsigned int vc);
void vcsw_credit_kick(struct vcsw_slave *p);
void vcsw_credit_restart(struct vcsw_slave *p);
bool vcsw_credit_arrive(struct vcsw_slave *p, struct fcr_charge *c, u32 len,
			u8 vc, u64 now);
void vcsw_credit_release(struct vcsw_slave *p, struct fcr_charge *c);
enum hrtimer_restart vcsw_credit_timer(struct hrtimer *t);
void vcsw_credit_link_change(struct vcsw_slave *p);
void vcsw_credit_mtu_change(struct vcsw_slave *p);
void vcsw_credit_configure(struct vcsw_slave *p, bool on, u32 unit,
			   const u32 *cfg);

/* vcsw_fdb.c: the forwarding table */
struct vcsw_fdb *vcsw_fdb_find_rcu(struct vcsw *sw, const u8 *addr);
bool vcsw_fdb_expired(const struct vcsw *sw, const struct vcsw_fdb *f,
		      unsigned long now);
void vcsw_fdb_learn(struct vcsw *sw, struct vcsw_slave *p, const u8 *addr);
void vcsw_fdb_flush_port(struct vcsw *sw, struct vcsw_slave *p,
			 bool with_static);
void vcsw_fdb_flush_all(struct vcsw *sw);
void vcsw_fdb_trim(struct vcsw *sw);
int vcsw_fdb_add_static(struct vcsw *sw, struct vcsw_slave *p, const u8 *addr,
			struct netlink_ext_ack *extack);
bool vcsw_fdb_has_static(struct vcsw *sw, struct vcsw_slave *p, const u8 *addr);
void vcsw_fdb_del_static(struct vcsw *sw, struct vcsw_slave *p, const u8 *addr);
void vcsw_fdb_gc(struct work_struct *work);
int vcsw_fdb_init(struct vcsw *sw);
void vcsw_fdb_destroy(struct vcsw *sw);

/* vcsw_netlink.c: configuration and dumps */
extern struct rtnl_link_ops vcsw_link_ops;

#endif /* FQ_VCSW_PRIV_H */
