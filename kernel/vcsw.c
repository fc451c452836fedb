// SPDX-License-Identifier: GPL-2.0
/*
 * vcsw: a soft switch with the two-VC buffers of edf-deadline-qos-two-vcs
 * (sections 3.2 to 3.4, the appendix), combined input/output buffered on
 * links with credit flow control.
 *
 *	ip link add sw0 type vcsw arch advanced rate 1gbit vc0_buffer 64k
 *	ip link set sw0 up
 *	ip link set veth-h1 master sw0
 *
 * A switch is a net_device of kind "vcsw"; any Ethernet device becomes a
 * port with "master sw0".  An rx_handler on each port takes every frame:
 * it learns the source MAC, finds the output port by destination MAC
 * (static entries, learned entries, else flooding: broadcast, multicast
 * and unknown unicast go to every other port), and queues the frame in the
 * output port's buffer.  As a bridge does, the switch forwards only while
 * it is up, never relays the IEEE 802.1D link-local groups
 * 01:80:C2:00:00:0x unless group_fwd_mask asks for one (it drops them),
 * and stays in its network namespace.  There is no loop protection: a loop of switches floods for
 * ever.
 *
 * The forwarding table is an rhashtable (a seeded hash, resized as it
 * grows, so crafted addresses cannot build long chains) with at most
 * fdb_max entries.  Learned entries age out, collected by delayed work;
 * at the bound a new address takes the place of an entry that was not
 * seen since the last time a clock hand passed it (second chance,
 * core/vcsw_clock.h), so learning never stops and active hosts keep their
 * entries.
 *
 * Ingress turns the fabric header's time to deadline into a local
 * deadline D = now + TTD; the header's VC picks the virtual channel.  A
 * frame without the header is best effort (VC1) in arrival order.  A
 * frame with a malformed header is dropped and counted.  A port can be
 * untrusted: its VC0 frames are then policed to a rate (the excess
 * dropped or demoted to VC1) and its TTDs held to a range, so a host
 * that lies cannot starve the others (Documentation/trust.rst,
 * core/vcsw_trust.h).
 *
 * Output port: the portable core (core/vcsw_port.h) holds VC0 in the
 * discipline of the switch's architecture strictly before VC1, each VC
 * within its byte limit.  With a rate the port emulates a link of that
 * speed: a frame may start only when the previous one has been "on the
 * wire" for len / rate, an hrtimer wakes the port then, so queues really
 * form on veth.  On departure the header's TTD becomes D - now.
 *
 * Credits (Documentation/credits.rst, core/fabric_credit.h): a port can
 * run per-VC credit flow control with the other end of its link.  Off
 * (the default), a frame that arrives there goes straight into its
 * output port's buffer and is dropped when that is full, as in an
 * output-queued switch.  On, every data frame that arrives is counted in
 * the port's books and waits in the port's input buffer (per VC, what
 * the port advertises upstream) until the crossbar (core/vcsw_xbar.h:
 * trad, simple, advanced, ideal) moves it to its output, when that
 * output VC has room; its credits go back upstream as it leaves the
 * input, in a link message that the port's timer sends periodically
 * (and sooner when a quarter of a buffer was freed).  So nothing is
 * dropped inside the switch for want of room on a path that starts at
 * a credit port.  A port with credits sends the frame its buffer picks
 * only when the downstream VC has credits for it (only that frame is
 * checked; VC1 may pass a VC0 head that waits), and is woken by the link
 * message that brings them.  Link messages go straight to the driver,
 * never behind data in a qdisc; those that arrive are consumed, never
 * forwarded.
 *
 * Locking: configuration and port membership change under RTNL.  The
 * port list and the forwarding table are read under RCU from the receive
 * path (softirq).  The switch's lock guards every port's buffers (input
 * and output, struct vcsw_xport), the crossbar's slots and cursor; it is
 * taken by the receive path of any port, the ports' and the switch's
 * hrtimers (softirq mode) and, with BHs off, by configuration.  Each
 * port's own lock guards its send queue (@txq, @sending), @dead and its
 * credit books; it nests inside the switch's lock, and is also taken
 * alone (link messages, the credit timer, sending).  Never two port
 * locks at once; frames and link messages are handed to the device with
 * no lock held.  The crossbar moves at most VCSW_XBAR_BUDGET frames per
 * run and leaves the rest to the switch's timer.  A port's trust
 * settings and policer have a lock of their own, taken on that port's
 * receive path and, with BHs off, by configuration.  The table's lock
 * nests in none.
 *
 * A port joins in the order of the bridge's br_add_if(): it is built,
 * its receive handler registered (frames it gets then are dropped, not
 * learned or forwarded), the upper-device link made, and only then is it
 * given its slot, listed and enabled; a failure undoes exactly the steps
 * taken, and the port was never reachable from the table, the slots or
 * the port list.  It leaves in the opposite order: marked dead (its
 * timers cancelled, neither re-armed), unhooked, its table entries
 * removed, then its slot given up (frames in other inputs bound for it
 * are dropped, their credits given back), and its buffers purged after
 * a grace period.
 */
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
#include "fabric_hdr.h"

#define VCSW_DEFAULT_ARCH	VCSW_ARCH_ADVANCED
#define VCSW_DEFAULT_BUFFER	65536
/*
 * Input buffer per VC of a port with credits: the paper's 8 KB, or two
 * full-size frames when that is more (one arriving while the credit for
 * the other travels back), so a jumbo MTU still streams.
 */
#define VCSW_DEFAULT_IN_BUFFER	8192
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
};

static const struct rhashtable_params vcsw_fdb_params = {
	.head_offset		= offsetof(struct vcsw_fdb, rhnode),
	.key_offset		= offsetof(struct vcsw_fdb, addr),
	.key_len		= ETH_ALEN,
	.automatic_shrinking	= true,
};

/* A queued frame: the core's node plus the frame. */
struct vcsw_ent {
	struct vcsw_node	node;
	struct sk_buff		*skb;
	struct fcr_charge	charge;		/* in its input's books */
};

/* Carried from dequeue to transmission, outside the port lock. */
struct vcsw_skb_cb {
	u64	deadline;
	bool	timed;
	u8	cvc;		/* the credits it took downstream: */
	u64	cgen;		/* the books' generation; 0: none */
	u32	clen;
};

/* What no frame reaches: the crossbar's free slots. */
static struct vcsw_xport vcsw_xport_none;

static struct kmem_cache *vcsw_ent_cache __read_mostly;
static const struct net_device_ops vcsw_netdev_ops;

static struct vcsw_skb_cb *vcsw_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct vcsw_skb_cb) > sizeof(skb->cb));
	return (struct vcsw_skb_cb *)skb->cb;
}

static void vcsw_count(struct vcsw_slave *p, enum vcsw_pstat s)
{
	atomic64_inc(&p->st[s]);
}

static void vcsw_sw_count(struct vcsw *sw, enum vcsw_sstat s)
{
	atomic64_inc(&sw->st[s]);
}

static rx_handler_result_t vcsw_handle_frame(struct sk_buff **pskb);

/* The port behind @dev, or NULL; caller holds RTNL. */
static struct vcsw_slave *vcsw_slave_of_rtnl(const struct net_device *dev)
{
	if (rcu_access_pointer(dev->rx_handler) != vcsw_handle_frame)
		return NULL;
	return rcu_dereference_rtnl(dev->rx_handler_data);
}

/* ---- forwarding table ---------------------------------------------------- */

/* Caller holds rcu_read_lock(). */
static struct vcsw_fdb *vcsw_fdb_find_rcu(struct vcsw *sw, const u8 *addr)
{
	return rhashtable_lookup(&sw->fdb, addr, vcsw_fdb_params);
}

/* Caller holds fdb_lock. */
static struct vcsw_fdb *vcsw_fdb_find_locked(struct vcsw *sw, const u8 *addr)
{
	lockdep_assert_held(&sw->fdb_lock);
	return rhashtable_lookup_fast(&sw->fdb, addr, vcsw_fdb_params);
}

static bool vcsw_fdb_expired(const struct vcsw *sw, const struct vcsw_fdb *f,
			     unsigned long now)
{
	u32 ageing = READ_ONCE(sw->ageing);

	return !READ_ONCE(f->is_static) && ageing &&
	       time_after(now, READ_ONCE(f->updated) + ageing * HZ);
}

static void vcsw_fdb_del(struct vcsw *sw, struct vcsw_fdb *f)
{
	lockdep_assert_held(&sw->fdb_lock);
	rhashtable_remove_fast(&sw->fdb, &f->rhnode, vcsw_fdb_params);
	if (sw->fdb_hand == &f->list)
		sw->fdb_hand = f->list.next;
	list_del_rcu(&f->list);
	f->gone = true;
	sw->fdb_count--;
	kfree_rcu(f, rcu);
}

/*
 * The table as the clock's circle (core/vcsw_clock.h): fdb_list in order,
 * the hand sw->fdb_hand, which steps over the list head.  Expiry is
 * judged at one @now for the whole walk.  fdb_lock held.
 */
struct vcsw_fdb_clock {
	struct vcsw	*sw;
	unsigned long	now;
};

static void *vcsw_fdb_clock_advance(void *circle)
{
	struct vcsw *sw = ((struct vcsw_fdb_clock *)circle)->sw;
	struct list_head *pos = sw->fdb_hand;

	if (pos == &sw->fdb_list)
		pos = pos->next;
	if (pos == &sw->fdb_list)
		return NULL;
	sw->fdb_hand = pos->next;
	return list_entry(pos, struct vcsw_fdb, list);
}

static bool vcsw_fdb_clock_is_static(void *circle, void *entry)
{
	return ((struct vcsw_fdb *)entry)->is_static;
}

/* hit is set by learning without the lock */
static bool vcsw_fdb_clock_hit(void *circle, void *entry)
{
	return READ_ONCE(((struct vcsw_fdb *)entry)->hit);
}

static void vcsw_fdb_clock_clear_hit(void *circle, void *entry)
{
	WRITE_ONCE(((struct vcsw_fdb *)entry)->hit, false);
}

static bool vcsw_fdb_clock_expired(void *circle, void *entry)
{
	struct vcsw_fdb_clock *c = circle;

	return vcsw_fdb_expired(c->sw, entry, c->now);
}

static const struct vcsw_clock_ops vcsw_fdb_clock_ops = {
	.advance	= vcsw_fdb_clock_advance,
	.is_static	= vcsw_fdb_clock_is_static,
	.hit		= vcsw_fdb_clock_hit,
	.clear_hit	= vcsw_fdb_clock_clear_hit,
	.expired	= vcsw_fdb_clock_expired,
};

/*
 * Make room for one entry: the learned entry the clock picks, looking at
 * @scan entries at most, static ones included.  False if it found only
 * static entries.  Caller holds fdb_lock.
 */
static bool vcsw_fdb_evict_one(struct vcsw *sw, unsigned int scan)
{
	struct vcsw_fdb_clock c = { .sw = sw, .now = jiffies };
	struct vcsw_fdb *victim;

	lockdep_assert_held(&sw->fdb_lock);
	victim = vcsw_clock_victim(&vcsw_fdb_clock_ops, &c, scan);
	if (!victim)
		return false;
	vcsw_fdb_del(sw, victim);
	vcsw_sw_count(sw, VCSW_SS_FDB_EVICTED);
	return true;
}

/*
 * Insert @f (filled in) for its address, evicting a learned entry if the
 * table is at its bound.  0, -EEXIST (the address has an entry), -ENOSPC
 * (only static entries) or the table's error.  Caller holds fdb_lock.
 */
static int vcsw_fdb_insert(struct vcsw *sw, struct vcsw_fdb *f)
{
	int err;

	lockdep_assert_held(&sw->fdb_lock);
	if (vcsw_fdb_find_locked(sw, f->addr))
		return -EEXIST;
	if (sw->fdb_count >= READ_ONCE(sw->fdb_max) &&
	    !vcsw_fdb_evict_one(sw, VCSW_FDB_EVICT_SCAN))
		return -ENOSPC;
	err = rhashtable_lookup_insert_fast(&sw->fdb, &f->rhnode, vcsw_fdb_params);
	if (err)
		return err;
	/* behind the hand: the last the clock looks at */
	list_add_tail_rcu(&f->list, sw->fdb_hand);
	sw->fdb_count++;
	return 0;
}

/* Receive path: remember that @addr lives behind @p. */
static void vcsw_fdb_learn(struct vcsw *sw, struct vcsw_slave *p,
			   const u8 *addr)
{
	struct vcsw_fdb *f;
	int err;

	f = vcsw_fdb_find_rcu(sw, addr);
	if (likely(f)) {
		if (READ_ONCE(f->is_static))
			return;
		if (unlikely(READ_ONCE(f->port) != p)) {
			WRITE_ONCE(f->port, p);
			vcsw_sw_count(sw, VCSW_SS_FDB_MOVED);
		}
		if (READ_ONCE(f->updated) != jiffies)
			WRITE_ONCE(f->updated, jiffies);
		if (!READ_ONCE(f->hit))
			WRITE_ONCE(f->hit, true);
		return;
	}

	f = kzalloc(sizeof(*f), GFP_ATOMIC);
	if (unlikely(!f)) {
		vcsw_sw_count(sw, VCSW_SS_FDB_LEARN_FAIL);
		return;
	}
	ether_addr_copy(f->addr, addr);
	f->port = p;
	f->updated = jiffies;
	spin_lock(&sw->fdb_lock);
	err = vcsw_fdb_insert(sw, f);
	spin_unlock(&sw->fdb_lock);
	if (likely(!err)) {
		vcsw_sw_count(sw, VCSW_SS_FDB_LEARNED);
		return;
	}
	/* -EEXIST: another CPU learned it first */
	if (err != -EEXIST)
		vcsw_sw_count(sw, VCSW_SS_FDB_LEARN_FAIL);
	kfree(f);
}

/* Forget @p's entries: learned only, or all (port leaving). */
static void vcsw_fdb_flush_port(struct vcsw *sw, struct vcsw_slave *p,
				bool with_static)
{
	struct vcsw_fdb *f, *tmp;

	spin_lock_bh(&sw->fdb_lock);
	list_for_each_entry_safe(f, tmp, &sw->fdb_list, list)
		if (f->port == p && (with_static || !f->is_static))
			vcsw_fdb_del(sw, f);
	spin_unlock_bh(&sw->fdb_lock);
}

static void vcsw_fdb_flush_all(struct vcsw *sw)
{
	struct vcsw_fdb *f, *tmp;

	spin_lock_bh(&sw->fdb_lock);
	list_for_each_entry_safe(f, tmp, &sw->fdb_list, list)
		vcsw_fdb_del(sw, f);
	spin_unlock_bh(&sw->fdb_lock);
}

/* entries trimmed per hold of fdb_lock when the bound is lowered */
#define VCSW_FDB_TRIM_BATCH	256

/*
 * Down to fdb_max entries after the bound was lowered, learned entries
 * only.  Each eviction may look at the whole circle: a run of static
 * entries ahead of the hand must not stop the trim while learned ones
 * remain behind it (the hand moves on, so the walk stays linear).  The
 * lock is let go between batches: from 65536 entries to 1 is too long
 * to keep bottom halves off.  RTNL held.
 */
static void vcsw_fdb_trim(struct vcsw *sw)
{
	bool more = true;
	unsigned int n;

	while (more) {
		spin_lock_bh(&sw->fdb_lock);
		for (n = 0; n < VCSW_FDB_TRIM_BATCH; n++) {
			more = sw->fdb_count > sw->fdb_max &&
			       vcsw_fdb_evict_one(sw, sw->fdb_count);
			if (!more)
				break;
		}
		spin_unlock_bh(&sw->fdb_lock);
		cond_resched();
	}
}

static int vcsw_fdb_add_static(struct vcsw *sw, struct vcsw_slave *p,
			       const u8 *addr, struct netlink_ext_ack *extack)
{
	struct vcsw_fdb *f, *n;
	int err = 0;

	if (!is_valid_ether_addr(addr)) {
		NL_SET_ERR_MSG_MOD(extack, "static entry needs a unicast address");
		return -EINVAL;
	}
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	ether_addr_copy(n->addr, addr);
	n->port = p;
	n->is_static = true;
	n->updated = jiffies;
	spin_lock_bh(&sw->fdb_lock);
	f = vcsw_fdb_find_locked(sw, addr);
	if (f) {
		/* a learned or static entry becomes static here */
		WRITE_ONCE(f->port, p);
		WRITE_ONCE(f->is_static, true);
		goto out;
	}
	err = vcsw_fdb_insert(sw, n);
	if (err == -ENOSPC)
		NL_SET_ERR_MSG_MOD(extack, "forwarding table full of static entries (fdb_max)");
	else if (err)
		NL_SET_ERR_MSG_MOD(extack, "cannot insert the entry");
	else
		n = NULL;
out:
	spin_unlock_bh(&sw->fdb_lock);
	kfree(n);
	return err;
}

/* Whether @addr has a static entry on @p.  RTNL held. */
static bool vcsw_fdb_has_static(struct vcsw *sw, struct vcsw_slave *p,
				const u8 *addr)
{
	struct vcsw_fdb *f;
	bool found;

	spin_lock_bh(&sw->fdb_lock);
	f = vcsw_fdb_find_locked(sw, addr);
	found = f && f->is_static && f->port == p;
	spin_unlock_bh(&sw->fdb_lock);
	return found;
}

/* Delete @addr's static entry on @p, if it has one.  RTNL held. */
static void vcsw_fdb_del_static(struct vcsw *sw, struct vcsw_slave *p,
				const u8 *addr)
{
	struct vcsw_fdb *f;

	spin_lock_bh(&sw->fdb_lock);
	f = vcsw_fdb_find_locked(sw, addr);
	if (f && f->is_static && f->port == p)
		vcsw_fdb_del(sw, f);
	spin_unlock_bh(&sw->fdb_lock);
}

/*
 * The collector: delete learned entries not seen for @ageing seconds, then
 * run again when the next one would expire (within VCSW_GC_MIN_DELAY and
 * VCSW_GC_MAX_DELAY).  The walk is under RCU, each deletion under the
 * table's lock, so learning goes on meanwhile; one pass is bounded by
 * fdb_max entries.  Runs while the switch is up.
 */
static void vcsw_fdb_gc(struct work_struct *work)
{
	struct vcsw *sw = container_of(to_delayed_work(work), struct vcsw, fdb_gc);
	unsigned long ageing = (unsigned long)READ_ONCE(sw->ageing) * HZ;
	unsigned long now = jiffies, next = VCSW_GC_MAX_DELAY;
	struct vcsw_fdb *f;

	if (ageing) {
		rcu_read_lock();
		list_for_each_entry_rcu(f, &sw->fdb_list, list) {
			unsigned long expires = READ_ONCE(f->updated) + ageing;

			if (READ_ONCE(f->is_static))
				continue;
			if (time_after(expires, now)) {
				next = min(next, expires - now);
				continue;
			}
			spin_lock_bh(&sw->fdb_lock);
			if (!f->gone && vcsw_fdb_expired(sw, f, now)) {
				vcsw_fdb_del(sw, f);
				vcsw_sw_count(sw, VCSW_SS_FDB_AGED);
			}
			spin_unlock_bh(&sw->fdb_lock);
		}
		rcu_read_unlock();
	}
	queue_delayed_work(system_long_wq, &sw->fdb_gc,
			   clamp_t(unsigned long, next, VCSW_GC_MIN_DELAY,
				   VCSW_GC_MAX_DELAY));
}

/* ---- credits ---------------------------------------------------------------- */

static bool vcsw_slave_up(const struct vcsw_slave *p)
{
	return netif_running(p->dev) && netif_carrier_ok(p->dev);
}

/* The input buffer of @vc in effect: configured, or the default. */
static u32 vcsw_in_bytes(u32 cfg, u32 unit, unsigned int mtu)
{
	u32 frame = roundup(mtu + ETH_HLEN, unit);

	return cfg ? cfg : max_t(u32, VCSW_DEFAULT_IN_BUFFER, 2 * frame);
}

/*
 * What input VC @vc of a port whose buffers are @bytes may hold in
 * frames: the credit books decide what is taken, and besides each buffer
 * they keep room for frames found lost that come after all (at most a
 * buffer more, core fabric_credit.h).  And a frame an untrusted port
 * demotes from VC0 waits in input VC1 while it holds the VC0 credits its
 * sender counted it on: VC1 holds both.  A bound on memory, never the
 * reason for a drop.
 */
static u32 vcsw_in_limit(const u32 *bytes, unsigned int vc)
{
	if (vc == 1)
		return 2 * (bytes[0] + bytes[1]);
	return 2 * bytes[vc];
}

/*
 * The base period of the port's link messages: a quarter of its smallest
 * input VC at the switch's link rate, 1 to 4 ms (core fcr_base_period());
 * an idle link's grows to 64 ms (fcr_msg_period()).  p->lock held.
 */
static u64 vcsw_credit_period(const struct vcsw_slave *p)
{
	u32 bytes = U32_MAX;
	unsigned int vc;

	for (vc = 0; vc < p->cp.l.vcs; vc++)
		bytes = min(bytes, p->cp.in_bytes[vc]);
	return fcr_base_period(bytes, READ_ONCE(p->sw->rate));
}

/* Send the link message soon, from the port's timer.  p->lock held. */
static void vcsw_credit_kick(struct vcsw_slave *p)
{
	lockdep_assert_held(&p->lock);
	if (!p->dead && p->credits)
		hrtimer_start(&p->ctimer, 0, HRTIMER_MODE_REL_SOFT);
}

/*
 * Start the books again with a new epoch (credits turned on, a new unit,
 * the link back up): the peer takes it for a restart, and we believe no
 * grant until it has heard of the new epoch.  What frames counted in the
 * old books still hold stays out of the advertised buffer until they
 * leave.  p->lock held.
 */
static void vcsw_credit_restart(struct vcsw_slave *p)
{
	u32 epoch;
	unsigned int vc;

	lockdep_assert_held(&p->lock);
	epoch = fcr_epoch_new(get_random_u32(), p->cp.l.epoch, p->cp.prev_epoch);
	fcr_port_start(&p->cp, epoch, p->credit_unit, FCR_DEFAULT_QUIET_NS);
	for (vc = 0; vc < VCSW_MAX_VCS; vc++)
		p->stalled[vc] = false;
}

/*
 * A data frame of @len bytes on @vc arrived on @p at @now: count it in
 * the books if the port has credits (@c says so; the frame now holds room
 * until vcsw_credit_release()).  False: the sender had no credits for it
 * (a violation, counted): drop it.
 */
static bool vcsw_credit_arrive(struct vcsw_slave *p, struct fcr_charge *c,
			       u32 len, u8 vc, u64 now)
{
	bool ok = true;

	c->gen = 0;
	spin_lock(&p->lock);
	if (!p->dead)
		ok = fcr_port_arrive(&p->cp, c, len, vc, now);
	/* a refusal moved the grant while our messages were backed off */
	if (unlikely(fcr_woke(&p->cp.l)))
		vcsw_credit_kick(p);
	spin_unlock(&p->lock);
	return ok;
}

/*
 * The frame counted in @c left @p's input, forwarded or dropped: its room
 * comes back, to these books or to what they advertise (counted by
 * earlier ones), and the peer hears of it soon if enough came back.
 */
static void vcsw_credit_release(struct vcsw_slave *p, struct fcr_charge *c)
{
	bool tell;

	if (!c->gen)
		return;
	spin_lock(&p->lock);
	tell = fcr_port_release(&p->cp, c);
	/* or what we say changed while our messages were backed off */
	if (fcr_woke(&p->cp.l) || tell)
		vcsw_credit_kick(p);
	spin_unlock(&p->lock);
}

/*
 * Put the link message @msg on @p's wire (straight to the driver, never
 * behind the data it pays for: fabric_link_xmit_msg()).
 */
static void vcsw_credit_send(struct vcsw_slave *p, const u8 *msg, u32 len)
{
	if (!vcsw_slave_up(p) || fabric_link_xmit_msg(p->dev, msg, len))
		atomic64_inc(&p->cst_tx_fail);
}

/*
 * The periodic link message, sooner when vcsw_credit_kick() asks, and
 * less often while the link is idle (the core's back-off,
 * fcr_msg_period(); what ends it kicks).  Every hrtimer_start() of this
 * timer is under p->lock, so is the look at whether one armed it again
 * while this ran: then it stays as armed (forwarding a queued timer is
 * not allowed).
 */
static enum hrtimer_restart vcsw_credit_timer(struct hrtimer *t)
{
	struct vcsw_slave *p = container_of(t, struct vcsw_slave, ctimer);
	u8 msg[FCR_MSG_MAX];
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	u32 len;

	spin_lock(&p->lock);
	if (p->dead || !p->credits) {
		spin_unlock(&p->lock);
		return HRTIMER_NORESTART;
	}
	len = fcr_msg_build(&p->cp.l, msg, ktime_get_ns());
	if (!hrtimer_is_queued(t)) {
		hrtimer_forward_now(t, ns_to_ktime(fcr_msg_period(&p->cp.l,
								 vcsw_credit_period(p))));
		ret = HRTIMER_RESTART;
	}
	spin_unlock(&p->lock);
	rcu_read_lock();
	vcsw_credit_send(p, msg, len);
	rcu_read_unlock();
	return ret;
}

/* ---- output ports ---------------------------------------------------------- */

static void vcsw_ent_free(struct vcsw_ent *e)
{
	kfree_skb(e->skb);
	kmem_cache_free(vcsw_ent_cache, e);
}

/*
 * The frame @p sends next, or NULL.  Without credits (or on a link that
 * is down, where frames are dropped anyway) the head, VC0 first.  With
 * credits the chosen head of each VC and only it is checked (the
 * appendix's rule): a VC0 head the downstream cannot take yet holds VC0,
 * while VC1 may go (and so on down the VCs, with four).  Caller holds
 * the switch's lock and p->lock.
 */
static struct vcsw_node *vcsw_slave_next(struct vcsw_slave *p)
{
	struct vcsw_port *q = &p->x.out;
	unsigned int vc;

	if (!p->credits || !vcsw_slave_up(p))
		return vcsw_port_peek(q);
	for (vc = 0; vc < q->vcs; vc++) {
		struct vcsw_node *h = vcsw_vc_pick(&q->vc[vc]);

		if (!h)
			continue;
		if (fcr_tx_may_send(&p->cp.l, vc, fcr_wire_len(h->len)))
			return h;
		if (!p->stalled[vc]) {
			p->stalled[vc] = true;
			p->cst_stalls[vc]++;
		}
	}
	return NULL;
}

/*
 * Take every frame that may leave by @now off the buffer into @out and
 * arm the timer for the next one when the emulated link is busy (a port
 * waiting for credits is woken by the link message that brings them).
 * Caller holds the switch's lock and p->lock.
 */
static void vcsw_slave_service(struct vcsw_slave *p, u64 now,
			       struct sk_buff_head *out)
{
	struct vcsw_port *q = &p->x.out;
	bool credits = p->credits && vcsw_slave_up(p);
	struct vcsw_node *n;

	lockdep_assert_held(&p->sw->lock);
	lockdep_assert_held(&p->lock);
	while (vcsw_port_qlen(q)) {
		struct vcsw_skb_cb *cb;
		struct vcsw_ent *e;
		struct sk_buff *skb;

		if (!vcsw_port_link_ready(q, now)) {
			if (!hrtimer_is_queued(&p->timer))
				hrtimer_start(&p->timer, ns_to_ktime(q->link_free),
					      HRTIMER_MODE_ABS_SOFT);
			break;
		}
		n = vcsw_slave_next(p);
		if (!n)
			break;
		n = vcsw_port_dequeue_vc(q, n->vc, now);
		e = container_of(n, struct vcsw_ent, node);
		skb = e->skb;
		cb = vcsw_cb(skb);
		cb->deadline = n->deadline;
		cb->timed = n->timed;
		cb->cgen = 0;
		if (credits) {
			cb->cvc = n->vc;
			cb->clen = fcr_wire_len(n->len);
			cb->cgen = p->cp.gen;
			fcr_tx_sent(&p->cp.l, n->vc, cb->clen, now);
			p->stalled[n->vc] = false;
			/* the first frame after an idle spell: speak again */
			if (unlikely(fcr_woke(&p->cp.l)))
				vcsw_credit_kick(p);
		}
		kmem_cache_free(vcsw_ent_cache, e);
		__skb_queue_tail(out, skb);
	}
	/*
	 * Wormhole: an input may hold a frame for this output until its
	 * link is free; nothing else would run the crossbar then
	 */
	if (p->x.wormhole && !vcsw_port_link_ready(q, now) && !hrtimer_is_queued(&p->timer))
		hrtimer_start(&p->timer, ns_to_ktime(q->link_free), HRTIMER_MODE_ABS_SOFT);
}

/*
 * A frame that took credits was not sent after all: they were not spent.
 * BHs off.
 */
static void vcsw_credit_unsend(struct vcsw_slave *p, const struct vcsw_skb_cb *cb)
{
	if (!cb->cgen)
		return;
	spin_lock(&p->lock);
	if (p->credits && p->cp.gen == cb->cgen) {
		fcr_tx_unsend(&p->cp.l, cb->cvc, cb->clen);
		if (fcr_woke(&p->cp.l))
			vcsw_credit_kick(p);
		/*
		 * A head that stalled for want of these credits would wait
		 * for a link message that never comes (the peer's grant did
		 * not change): serve the port again
		 */
		if (p->stalled[cb->cvc] && !p->dead)
			hrtimer_start(&p->timer, ns_to_ktime(ktime_get_ns()),
				      HRTIMER_MODE_ABS_SOFT);
	}
	spin_unlock(&p->lock);
}

/*
 * Hand frames to the device, outside the port lock, under RCU.  Returns
 * how many it took off @list.
 */
static unsigned int vcsw_slave_send(struct vcsw_slave *p, struct sk_buff_head *list)
{
	unsigned int n = 0;
	struct sk_buff *skb;
	int rc;

	while ((skb = __skb_dequeue(list))) {
		struct vcsw_skb_cb cb = *vcsw_cb(skb);

		n++;

		if (cb.timed) {
			s64 ttd = (s64)(cb.deadline - ktime_get_ns());

			if (unlikely(fabric_hdr_set_ttd(skb, ETH_HLEN, ttd))) {
				vcsw_count(p, VCSW_PS_DROP_REWRITE);
				vcsw_credit_unsend(p, &cb);
				kfree_skb(skb);
				continue;
			}
		}
		if (unlikely(!netif_running(p->dev) || !netif_carrier_ok(p->dev))) {
			vcsw_count(p, VCSW_PS_DROP_DOWN);
			vcsw_credit_unsend(p, &cb);
			kfree_skb(skb);
			continue;
		}
		memset(skb->cb, 0, sizeof(skb->cb));
		skb->dev = p->dev;
		/* net_xmit_eval() is a macro that evaluates its argument twice */
		rc = dev_queue_xmit(skb);
		if (unlikely(net_xmit_eval(rc))) {
			vcsw_count(p, VCSW_PS_DROP_XMIT);
			vcsw_credit_unsend(p, &cb);
		}
	}
	return n;
}

/*
 * The most frames one call of vcsw_slave_flush() sends.  While it sends,
 * the other CPUs may keep filling p->txq (a port with no rate releases
 * every frame at once); without a bound the sending context could stay in
 * softirq for as long as they do.
 */
#define VCSW_FLUSH_QUOTA	64

/*
 * Send what the buffer released onto p->txq, in that order.  The receive
 * path on every CPU, the timer and a configuration change all serve a
 * port; if each sent its own frames after dropping the lock, two of them
 * could hand frames to the device in the opposite order to the one the
 * buffer released them in (seen: UDP reordered through a virtio port).
 * So one context sends at a time: the one that finds nobody sending
 * takes the queue, and goes on until it finds it empty; the others
 * leave their frames to it.  After VCSW_FLUSH_QUOTA frames it leaves the
 * rest to the port's timer, armed to fire at once: a new softirq pass, so
 * softirq's own time limit (then ksoftirqd) applies.  Called with p->lock
 * held and bottom halves off, under RCU; returns with the lock released.
 */
static void vcsw_slave_flush(struct vcsw_slave *p)
	__releases(&p->lock)
{
	struct sk_buff_head list;
	unsigned int sent = 0;

	if (p->sending) {
		spin_unlock(&p->lock);
		return;
	}
	p->sending = true;
	__skb_queue_head_init(&list);
	while (!skb_queue_empty(&p->txq)) {
		unsigned int take = VCSW_FLUSH_QUOTA - sent;

		if (!take) {
			/*
			 * A dead port's frames are purged, not sent.  Pinned:
			 * unless another CPU's receive path takes the queue
			 * over first, the rest leaves from this CPU too, so a
			 * veth peer takes it into the same backlog, behind
			 * these.
			 */
			if (!p->dead)
				hrtimer_start(&p->timer, ktime_get(),
					      HRTIMER_MODE_ABS_PINNED_SOFT);
			break;
		}
		/* the whole queue when it fits, as it nearly always does */
		if (skb_queue_len(&p->txq) <= take)
			skb_queue_splice_tail_init(&p->txq, &list);
		else
			while (take--)
				__skb_queue_tail(&list, __skb_dequeue(&p->txq));
		spin_unlock(&p->lock);
		sent += vcsw_slave_send(p, &list);
		spin_lock(&p->lock);
	}
	p->sending = false;
	spin_unlock(&p->lock);
}

/* ---- the crossbar ------------------------------------------------------------ */

/* Ports whose frames wait on their txq, to flush once the switch's lock is let go. */
#define VCSW_FLUSH_BITS		VCSW_MAX_PORTS

/*
 * Serve @p's output at @now: released frames go on its txq; @flush notes
 * the port.  Caller holds the switch's lock.
 */
static void vcsw_serve(struct vcsw_slave *p, u64 now, unsigned long *flush)
{
	spin_lock(&p->lock);
	if (!p->dead)
		vcsw_slave_service(p, now, &p->txq);
	if (!skb_queue_empty(&p->txq))
		__set_bit(p->idx, flush);
	spin_unlock(&p->lock);
}

/*
 * Run the crossbar at @now: move frames from the input buffers to the
 * outputs, VCSW_XBAR_BUDGET at most (the rest from the switch's timer,
 * a new softirq pass), each leaving its input with its credits given
 * back upstream, each output served as a frame reaches it.  Caller holds
 * the switch's lock; two port locks are never held at once.
 */
/*
 * Wormhole: the frames whose last byte has left their output's link
 * (@force: all of them) give their inputs' credits back.  The switch's
 * lock held.
 */
static void vcsw_wormhole_release(struct vcsw *sw, u64 now, bool force)
{
	unsigned int i;

	lockdep_assert_held(&sw->lock);
	/* the crossbar's hot path: nothing to look at without wormhole */
	for (i = 0; sw->wh_held && i < sw->nslots; i++) {
		struct vcsw_slave *out = sw->slot_port[i];

		if (!out || !out->wh_from)
			continue;
		if (!force && (vcsw_port_qlen(&out->x.out) ||
			       !vcsw_port_link_ready(&out->x.out, now)))
			continue;
		vcsw_credit_release(out->wh_from, &out->wh_charge);
		out->wh_from = NULL;
		sw->wh_held--;
	}
}

static void vcsw_xbar_go(struct vcsw *sw, u64 now, unsigned long *flush)
{
	unsigned int moved = 0, from;
	struct vcsw_node *n;

	lockdep_assert_held(&sw->lock);
	vcsw_wormhole_release(sw, now, false);
	while (sw->in_frames) {
		struct vcsw_ent *e;

		if (moved == VCSW_XBAR_BUDGET) {
			hrtimer_start(&sw->xbar_timer, 0, HRTIMER_MODE_REL_PINNED_SOFT);
			return;
		}
		n = vcsw_xbar_step(sw->slots, sw->nslots, sw->arch, now,
				   &sw->cursor, &from);
		if (!n)
			return;
		moved++;
		sw->in_frames--;
		e = container_of(n, struct vcsw_ent, node);
		/* slots in use have their port: the frame was taken there */
		if (sw->slots[n->out]->wormhole) {
			/* its credits wait for its last byte on the output */
			struct vcsw_slave *out = sw->slot_port[n->out];

			/* an idle output holds nothing: never lose a charge */
			if (WARN_ON_ONCE(out->wh_from))
				vcsw_credit_release(out->wh_from, &out->wh_charge);
			else
				sw->wh_held++;
			out->wh_from = sw->slot_port[from];
			out->wh_charge = e->charge;
			e->charge.gen = 0;
		} else {
			vcsw_credit_release(sw->slot_port[from], &e->charge);
		}
		vcsw_serve(sw->slot_port[n->out], now, flush);
		/* an output without an emulated rate is free at once */
		vcsw_wormhole_release(sw, now, false);
	}
}

/* Flush the ports noted in @flush.  Under RCU, BHs off, no lock held. */
static void vcsw_flush_ports(struct vcsw *sw, unsigned long *flush)
{
	unsigned int i;

	for_each_set_bit(i, flush, VCSW_FLUSH_BITS) {
		/* a port that left is freed only after a grace period */
		struct vcsw_slave *p = READ_ONCE(sw->slot_port[i]);

		if (!p)
			continue;
		spin_lock(&p->lock);
		vcsw_slave_flush(p);
	}
}

/*
 * Serve @p (NULL: none) and run the crossbar: an output freed room, or
 * credits came.  Under RCU, BHs off.
 */
static void vcsw_kick(struct vcsw *sw, struct vcsw_slave *p)
{
	DECLARE_BITMAP(flush, VCSW_FLUSH_BITS);
	u64 now = ktime_get_ns();

	bitmap_zero(flush, VCSW_FLUSH_BITS);
	spin_lock(&sw->lock);
	if (p)
		vcsw_serve(p, now, flush);
	vcsw_xbar_go(sw, now, flush);
	spin_unlock(&sw->lock);
	vcsw_flush_ports(sw, flush);
}

/*
 * vcsw_kick() from process context: a port's buffers were emptied (link
 * down, port gone), and inputs that waited for room there, or behind
 * frames for it, may move now; nothing else would wake them.
 */
static void vcsw_kick_bh(struct vcsw *sw, struct vcsw_slave *p)
{
	rcu_read_lock();
	local_bh_disable();
	vcsw_kick(sw, p);
	local_bh_enable();
	rcu_read_unlock();
}

static enum hrtimer_restart vcsw_xbar_timer(struct hrtimer *t)
{
	rcu_read_lock();
	vcsw_kick(container_of(t, struct vcsw, xbar_timer), NULL);
	rcu_read_unlock();
	return HRTIMER_NORESTART;
}

/* The emulated link is free again, or the flush left frames to send. */
static enum hrtimer_restart vcsw_slave_timer(struct hrtimer *t)
{
	struct vcsw_slave *p = container_of(t, struct vcsw_slave, timer);

	rcu_read_lock();
	vcsw_kick(p->sw, p);
	rcu_read_unlock();
	return HRTIMER_NORESTART;
}

/*
 * Take every frame out of @p's input buffers, giving their credits back.
 * The switch's lock held.
 */
static void vcsw_input_purge(struct vcsw *sw, struct vcsw_slave *p, bool count)
{
	unsigned int vc;

	lockdep_assert_held(&sw->lock);
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		struct vcsw_vc *v = &p->x.in[vc];
		struct vcsw_node *n;

		while ((n = vcsw_vc_pick(v))) {
			struct vcsw_ent *e = container_of(n, struct vcsw_ent, node);

			vcsw_vc_unlink(v, n);
			v->backlog -= n->len;
			sw->in_frames--;
			vcsw_credit_release(p, &e->charge);
			if (count)
				vcsw_count(p, VCSW_PS_DROP_DOWN);
			vcsw_ent_free(e);
		}
	}
}

/*
 * Drop everything waiting on @p's output (and with @inputs, in its input
 * buffers).  BHs on, RTNL held.
 */
static void vcsw_slave_purge(struct vcsw_slave *p, bool count, bool inputs)
{
	struct vcsw *sw = p->sw;
	struct sk_buff *skb;
	struct vcsw_node *n;

	spin_lock_bh(&sw->lock);
	if (inputs)
		vcsw_input_purge(sw, p, count);
	spin_lock(&p->lock);
	while ((n = vcsw_port_pop(&p->x.out))) {
		if (count)
			vcsw_count(p, VCSW_PS_DROP_DOWN);
		vcsw_ent_free(container_of(n, struct vcsw_ent, node));
	}
	/* released but not yet taken by the sending context: they took
	 * credits (p->lock held, so straight to the books) */
	while ((skb = __skb_dequeue(&p->txq))) {
		const struct vcsw_skb_cb *cb = vcsw_cb(skb);

		if (count)
			vcsw_count(p, VCSW_PS_DROP_DOWN);
		if (cb->cgen && p->credits && p->cp.gen == cb->cgen)
			fcr_tx_unsend(&p->cp.l, cb->cvc, cb->clen);
		kfree_skb(skb);
	}
	if (fcr_woke(&p->cp.l))
		vcsw_credit_kick(p);
	spin_unlock(&p->lock);
	spin_unlock_bh(&sw->lock);
}

/* A new entry for @skb, or NULL (counted on @out). */
static struct vcsw_ent *vcsw_ent_new(struct vcsw_slave *out, struct sk_buff *skb,
				     u64 deadline, u8 vc, bool timed)
{
	struct vcsw_ent *e;

	if (unlikely(!netif_running(out->dev))) {
		vcsw_count(out, VCSW_PS_DROP_DOWN);
		return NULL;
	}
	/* as a bridge: nothing the output device's MTU cannot carry */
	if (unlikely(!is_skb_forwardable(out->dev, skb))) {
		vcsw_count(out, VCSW_PS_DROP_OVERSIZE);
		return NULL;
	}
	e = kmem_cache_alloc(vcsw_ent_cache, GFP_ATOMIC);
	if (unlikely(!e)) {
		vcsw_count(out, VCSW_PS_DROP_NOMEM);
		return NULL;
	}
	memset(&e->node, 0, sizeof(e->node));
	e->skb = skb;
	e->charge.gen = 0;
	e->node.deadline = deadline;
	e->node.len = skb->len;
	e->node.vc = vc;
	e->node.timed = timed;
	e->node.out = out->idx;
	return e;
}

/*
 * Receive path (softirq, RCU), a frame from a port without credits:
 * straight into @out's buffer (drop-tail), and send what may go.
 */
static void vcsw_forward_one(struct vcsw_slave *out, struct sk_buff *skb,
			     u64 deadline, u8 vc, bool timed, u64 now)
{
	DECLARE_BITMAP(flush, VCSW_FLUSH_BITS);
	struct vcsw *sw = out->sw;
	struct vcsw_ent *e;

	e = vcsw_ent_new(out, skb, deadline, vc, timed);
	if (unlikely(!e)) {
		kfree_skb(skb);
		return;
	}
	bitmap_zero(flush, VCSW_FLUSH_BITS);
	spin_lock(&sw->lock);
	if (unlikely(READ_ONCE(out->dead))) {
		spin_unlock(&sw->lock);
		vcsw_count(out, VCSW_PS_DROP_DOWN);
		vcsw_ent_free(e);
		return;
	}
	if (unlikely(vcsw_port_enqueue(&out->x.out, &e->node, now) != VCSW_ENQ_OK)) {
		/* counted by the core as drops_full of the VC */
		spin_unlock(&sw->lock);
		vcsw_ent_free(e);
		return;
	}
	vcsw_serve(out, now, flush);
	if (sw->in_frames)
		vcsw_xbar_go(sw, now, flush);
	spin_unlock(&sw->lock);
	vcsw_flush_ports(sw, flush);
}

/*
 * Receive path, a frame from @in, a port with credits, counted in @c:
 * into @in's input buffer, where it waits for the crossbar to move it to
 * @out's buffer when that has room.  Nothing is dropped for want of room
 * inside the switch; what is refused here (a sender beyond its credits
 * was refused before) gives its credits back.
 */
static void vcsw_input_one(struct vcsw_slave *in, struct vcsw_slave *out,
			   struct sk_buff *skb, u64 deadline, u8 vc, bool timed,
			   u64 now, struct fcr_charge *c)
{
	DECLARE_BITMAP(flush, VCSW_FLUSH_BITS);
	struct vcsw *sw = in->sw;
	struct vcsw_ent *e;

	e = vcsw_ent_new(out, skb, deadline, vc, timed);
	if (unlikely(!e)) {
		vcsw_credit_release(in, c);
		kfree_skb(skb);
		return;
	}
	e->charge = *c;
	c->gen = 0;
	bitmap_zero(flush, VCSW_FLUSH_BITS);
	spin_lock(&sw->lock);
	/* a port leaving gives up its slot first */
	if (unlikely(READ_ONCE(out->dead) || sw->slot_port[out->idx] != out)) {
		vcsw_count(out, VCSW_PS_DROP_DOWN);
		goto refuse;
	}
	/* counted as drops_full of the input VC */
	if (unlikely(vcsw_xbar_arrive(sw->slots, sw->nslots, in->idx, &e->node,
				      now) != VCSW_ENQ_OK))
		goto refuse;
	sw->in_frames++;
	vcsw_xbar_go(sw, now, flush);
	spin_unlock(&sw->lock);
	vcsw_flush_ports(sw, flush);
	return;

refuse:
	vcsw_credit_release(in, &e->charge);
	spin_unlock(&sw->lock);
	vcsw_ent_free(e);
}

/* ---- receive path ------------------------------------------------------------ */

/*
 * Check a frame carrying EtherType ETH_P_FABRIC (skb->data at the fabric
 * header) and read it.  False: malformed, drop it.
 */
static bool vcsw_read_header(struct sk_buff *skb, struct fhc_fields *f)
{
	u32 want;

	if (!pskb_may_pull(skb, min_t(u32, skb->len, FABRIC_HDR_LEN)))
		return false;
	if (skb->len >= FABRIC_HDR_LEN) {
		want = FABRIC_HDR_LEN + fhc_inner_probe_len(fhc_get_be16(skb->data + 2));
		if (!pskb_may_pull(skb, min_t(u32, skb->len, want)))
			return false;
	}
	if (fhc_validate(skb->data, skb_headlen(skb), skb->len) != FHC_OK)
		return false;
	fhc_decode(skb->data, f);
	return true;
}

/*
 * One frame, skb->data at its Ethernet header: to @routed, the port its
 * route names, else to the port its destination was learned on, or
 * flooded (never a routed frame).  A frame counted in @in's credits
 * (@c) waits in @in's input buffer; flooded copies go straight to the
 * outputs' buffers, as from a port without credits, and the frame gives
 * its credits back at once.
 */
static void vcsw_deliver(struct vcsw *sw, struct vcsw_slave *in,
			 struct sk_buff *skb, const u8 *dst,
			 struct vcsw_slave *routed, u64 deadline,
			 u8 vc, bool timed, u64 now, struct fcr_charge *c)
{
	struct vcsw_slave *out = routed, *p, *last = NULL;

	if (!out && !is_multicast_ether_addr(dst)) {
		struct vcsw_fdb *f = vcsw_fdb_find_rcu(sw, dst);

		if (f && !vcsw_fdb_expired(sw, f, jiffies))
			out = READ_ONCE(f->port);
	}
	if (out && out != in && c->gen) {
		vcsw_input_one(in, out, skb, deadline, vc, timed, now, c);
		return;
	}
	vcsw_credit_release(in, c);
	if (out) {
		if (unlikely(out == in)) {
			vcsw_count(in, VCSW_PS_DROP_LOOP);
			consume_skb(skb);
			return;
		}
		vcsw_forward_one(out, skb, deadline, vc, timed, now);
		return;
	}

	/*
	 * A frame with neither a route nor a known destination, broadcasts
	 * included, fabric or not: in a fabric with more than one path
	 * between switches (a folded butterfly), flooding would carry it
	 * round its loops for ever; flood off drops it instead.
	 */
	if (!READ_ONCE(sw->flood)) {
		vcsw_count(in, VCSW_PS_DROP_UNROUTED);
		kfree_skb(skb);
		return;
	}
	/* flood: a clone to every other port, the frame itself to the last */
	list_for_each_entry_rcu(p, &sw->ports, list) {
		struct sk_buff *c;

		if (p == in || !netif_running(p->dev))
			continue;
		if (last) {
			c = skb_clone(skb, GFP_ATOMIC);
			if (unlikely(!c)) {
				vcsw_count(last, VCSW_PS_DROP_NOMEM);
			} else {
				vcsw_count(last, VCSW_PS_FLOODED);
				vcsw_forward_one(last, c, deadline, vc, timed, now);
			}
		}
		last = p;
	}
	if (last) {
		vcsw_count(last, VCSW_PS_FLOODED);
		vcsw_forward_one(last, skb, deadline, vc, timed, now);
	} else {
		consume_skb(skb);
	}
}

/*
 * An untrusted port's claims (Documentation/trust.rst): the TTD held to
 * [ttd_min, ttd_max], VC0 policed to vc0_rate, as core/vcsw_trust.h
 * decides.  False: drop the frame.
 */
static bool vcsw_untrusted_ingress(struct vcsw_slave *in, u32 len, u64 now,
				   s64 *ttd, u8 *vc)
{
	unsigned int r;

	spin_lock(&in->police_lock);
	r = vcsw_trust_ingress(&in->trust, &in->police, len, now, ttd, vc);
	spin_unlock(&in->police_lock);
	if (r & VCSW_TRUST_CLAMPED)
		vcsw_count(in, VCSW_PS_TTD_CLAMPED);
	if (r & VCSW_TRUST_DEMOTED)
		vcsw_count(in, VCSW_PS_POLICE_DEMOTE);
	if (unlikely(r & VCSW_TRUST_DROP)) {
		vcsw_count(in, VCSW_PS_POLICE_DROP);
		return false;
	}
	return true;
}

/* A link message from the other end of @p's link: take it, and act. */
static void vcsw_link_msg(struct vcsw_slave *p, struct sk_buff *skb)
{
	u32 want = FCR_MSG_MAX;	/* the core checks the length it needs */
	unsigned int r = 0;

	spin_lock(&p->lock);
	if (!p->credits || p->dead || !READ_ONCE(p->enabled)) {
		spin_unlock(&p->lock);
		atomic64_inc(&p->cst_msgs_off);
		kfree_skb(skb);
		return;
	}
	/* a short one is refused by the core (and counted) */
	if (!pskb_may_pull(skb, min_t(u32, skb->len, want)))
		p->cp.l.st.msgs_malformed++;
	else
		r = fcr_msg_receive(&p->cp.l, skb->data,
				    min_t(u32, skb->len, skb_headlen(skb)),
				    ktime_get_ns());
	/* or a correction of our count moved the grant we advertise */
	if ((r & FCR_REPLY_NOW) || fcr_woke(&p->cp.l))
		vcsw_credit_kick(p);
	spin_unlock(&p->lock);
	consume_skb(skb);
	/* a sender stalled on these credits may go on */
	if (r & FCR_CREDITS_GREW)
		vcsw_kick(p->sw, p);
}

static rx_handler_result_t vcsw_handle_frame(struct sk_buff **pskb)
{
	u8 dst[ETH_ALEN] __aligned(2), src[ETH_ALEN] __aligned(2);
	struct sk_buff *skb = *pskb, *segs, *next;
	struct vcsw_slave *in, *routed = NULL;
	bool is_fabric, timed = false, rewrite = false;
	struct fcr_charge ch = { 0 };
	struct fhc_fields f;
	u64 now, deadline;
	struct vcsw *sw;
	u8 vc = FABRIC_VC_BESTEFFORT;

	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;
	in = rcu_dereference(skb->dev->rx_handler_data);
	sw = in->sw;

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (unlikely(!skb)) {
		vcsw_count(in, VCSW_PS_DROP_NOMEM);
		return RX_HANDLER_CONSUMED;
	}
	/*
	 * The frame has left its sender, as IP's receive path would say.  A
	 * veth peer in this host hands the skb over still charged to the
	 * sending socket: frames waiting in our port buffers would then fill
	 * that socket's send buffer and block the sender, a back-pressure
	 * no switch has (and per socket, not per link).
	 */
	skb_orphan(skb);
	is_fabric = eth_hdr(skb)->h_proto == htons(ETH_P_FABRIC);
	/* link messages are not data: consumed here, whoever sent them */
	if (is_fabric && fabric_link_is_msg(skb)) {
		vcsw_link_msg(in, skb);
		return RX_HANDLER_CONSUMED;
	}
	now = ktime_get_ns();
	/*
	 * On a credit link every data frame is counted at once, on the VC
	 * its sender counted it on (the header's, best effort without
	 * one), and gives its credits back wherever it ends: in the input
	 * buffer, forwarded, or dropped below.
	 */
	if (READ_ONCE(in->credits)) {
		u8 cvc = FABRIC_VC_BESTEFFORT;

		if (is_fabric && pskb_may_pull(skb, min_t(u32, skb->len, 1)))
			cvc = fcr_frame_vc(READ_ONCE(in->cp.l.vcs), true,
					   skb->data, skb->len);
		if (unlikely(!vcsw_credit_arrive(in, &ch, fcr_wire_len(skb->len + ETH_HLEN),
						 cvc, now))) {
			/* beyond the grant: counted as a violation */
			kfree_skb(skb);
			return RX_HANDLER_CONSUMED;
		}
	}
	vcsw_count(in, VCSW_PS_RX_PACKETS);
	atomic64_add(skb->len + ETH_HLEN, &in->st[VCSW_PS_RX_BYTES]);
	ether_addr_copy(dst, eth_hdr(skb)->h_dest);
	ether_addr_copy(src, eth_hdr(skb)->h_source);

	/* as a bridge: a frame from no valid source is not taken at all */
	if (unlikely(!is_valid_ether_addr(src)))
		goto malformed;
	/*
	 * The header is checked before the frame's fate is decided, so every
	 * fabric frame is counted alike (rx_fabric or drop_malformed),
	 * wherever it goes.
	 */
	if (is_fabric) {
		if (unlikely(!vcsw_read_header(skb, &f)))
			goto malformed;
		vcsw_count(in, VCSW_PS_RX_FABRIC);
	}
	/*
	 * IEEE 802.1D link-local groups are not relayed unless group_fwd_mask
	 * asks (never STP, PAUSE or LACP).  The switch runs none of their
	 * protocols and passes nothing to the port's own stack (where, for
	 * one, fabric_hdr would strip a header and hand the frame to the
	 * port again): they are dropped.
	 */
	if (unlikely(is_link_local_ether_addr(dst)) &&
	    !(READ_ONCE(sw->group_fwd_mask) & BIT(dst[5]))) {
		vcsw_count(in, VCSW_PS_DROP_LINK_LOCAL);
		goto drop;
	}
	/* a port still joining, or a switch that is down, forwards nothing */
	if (unlikely(!READ_ONCE(in->enabled) || !netif_running(sw->dev))) {
		vcsw_count(in, VCSW_PS_DROP_DISABLED);
		goto drop;
	}

	deadline = now;
	if (is_fabric) {
		s64 ttd = f.ttd_ns;

		/* as the credit books counted it (fcr_frame_vc()) */
		vc = vcsw_vc_of(f.vc, READ_ONCE(sw->vcs));
		if (unlikely(!READ_ONCE(in->trusted))) {
			if (!vcsw_untrusted_ingress(in, skb->len + ETH_HLEN, now, &ttd, &vc))
				goto drop;
			/*
			 * A demoted frame says best effort on the wire too, or
			 * the next hop (a trusted inter-switch port, the
			 * receiver) would put it back into VC0.
			 */
			if (vc == 1 && f.vc == FABRIC_VC_REGULATED) {
				f.vc = FABRIC_VC_BESTEFFORT;
				rewrite = true;
			}
		}
		/*
		 * A source route names the port here and is passed on
		 * without it (fhc_route_next()); a route to no port, or
		 * back where the frame came from, is dropped, never flooded
		 */
		if (f.route) {
			int port = fhc_route_port(f.route);

			if (port >= 0 && port < VCSW_MAX_PORTS)
				routed = READ_ONCE(sw->slot_port[port]);
			if (unlikely(!routed || routed == in)) {
				vcsw_count(in, VCSW_PS_DROP_ROUTE);
				goto drop;
			}
			f.route = fhc_route_next(f.route);
			rewrite = true;
			vcsw_count(in, VCSW_PS_RX_ROUTED);
		}
		if (rewrite && unlikely(fabric_hdr_rewrite(skb, 0, &f))) {
			vcsw_count(in, VCSW_PS_DROP_REWRITE);
			goto drop;
		}
		deadline = vcsw_ingress_deadline(now, ttd);
		timed = true;
	}
	vcsw_fdb_learn(sw, in, src);

	/* transmit from the Ethernet header on */
	skb_push(skb, skb->data - skb_mac_header(skb));
	skb_forward_csum(skb);
	skb_clear_tstamp(skb);

	if (likely(!skb_is_gso(skb))) {
		vcsw_deliver(sw, in, skb, dst, routed, deadline, vc, timed, now, &ch);
		return RX_HANDLER_CONSUMED;
	}
	/* no end that speaks credits sends GSO: its segments go as without */
	vcsw_credit_release(in, &ch);
	/*
	 * A GSO frame (veth passes TSO aggregates through) is queued as the
	 * frames that will be on the wire, so that buffer limits, the link
	 * rate and the counters see real frame sizes.  Fabric frames are
	 * never GSO: the hosts segment before pushing the header.  A frame
	 * that cannot be segmented (a type no GSO handler knows, a bad
	 * offload from a packet socket) is malformed.
	 */
	segs = skb_gso_segment(skb, 0);
	if (IS_ERR_OR_NULL(segs)) {
		vcsw_count(in, PTR_ERR(segs) == -ENOMEM ? VCSW_PS_DROP_NOMEM :
						       VCSW_PS_DROP_MALFORMED);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}
	consume_skb(skb);
	skb_list_walk_safe(segs, skb, next) {
		struct fcr_charge none = { 0 };

		skb_mark_not_on_list(skb);
		vcsw_deliver(sw, in, skb, dst, routed, deadline, vc, timed, now, &none);
	}
	return RX_HANDLER_CONSUMED;

malformed:
	vcsw_count(in, VCSW_PS_DROP_MALFORMED);
drop:
	vcsw_credit_release(in, &ch);
	kfree_skb(skb);
	return RX_HANDLER_CONSUMED;
}

/* ---- ports: add and remove ------------------------------------------------- */

static int vcsw_add_slave(struct net_device *dev, struct net_device *sdev,
			  struct netlink_ext_ack *extack)
{
	struct vcsw *sw = netdev_priv(dev);
	struct vcsw_slave *p;
	int err, i, slot;

	if (sdev->type != ARPHRD_ETHER || sdev->addr_len != ETH_ALEN ||
	    (sdev->flags & IFF_LOOPBACK)) {
		NL_SET_ERR_MSG_MOD(extack, "a port must be an Ethernet device");
		return -EINVAL;
	}
	if (sdev->netdev_ops == &vcsw_netdev_ops) {
		NL_SET_ERR_MSG_MOD(extack, "a switch cannot be a port of a switch");
		return -ELOOP;
	}
	if (!net_eq(dev_net(sdev), dev_net(dev))) {
		NL_SET_ERR_MSG_MOD(extack, "port and switch must be in one namespace");
		return -EINVAL;
	}
	if (netdev_master_upper_dev_get(sdev)) {
		NL_SET_ERR_MSG_MOD(extack, "device already has a master");
		return -EBUSY;
	}
	if (netdev_is_rx_handler_busy(sdev)) {
		NL_SET_ERR_MSG_MOD(extack, "device already has a receive handler (bridge, bond, ...)");
		return -EBUSY;
	}
	/* its qdisc would wait for credits the switch's port takes first */
	if (fabric_link_dev_has_link(sdev)) {
		NL_SET_ERR_MSG_MOD(extack, "a qdisc on the device sends under credits: turn its credits off first");
		return -EBUSY;
	}
	/* slots change under RTNL only */
	for (slot = 0; slot < VCSW_MAX_PORTS; slot++)
		if (!sw->slot_port[slot])
			break;
	if (slot == VCSW_MAX_PORTS) {
		NL_SET_ERR_MSG_MOD(extack, "the switch has its 64 ports already");
		return -ENOSPC;
	}

	/* built complete, but not enabled: it neither learns nor forwards */
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->sw = sw;
	p->dev = sdev;
	p->idx = slot;
	spin_lock_init(&p->lock);
	skb_queue_head_init(&p->txq);
	/* credits off: the input buffers take nothing until they are on */
	p->credit_unit = FCR_DEFAULT_UNIT;
	fcr_port_init(&p->cp, p->credit_unit,
		      vcsw_in_bytes(0, p->credit_unit, sdev->mtu));
	fcr_set_vcs(&p->cp.l, sw->vcs);
	vcsw_xport_init(&p->x, sw->arch, 0, sw->buffer[0], sw->rate);
	vcsw_xport_set_vcs(&p->x, sw->vcs);
	p->x.wormhole = sw->wormhole;
	for (i = 0; i < VCSW_MAX_VCS; i++) {
		p->x.in[i].limit = vcsw_in_limit(p->cp.in_bytes, i);
		p->x.out.vc[i].limit = sw->buffer[i];
	}
	atomic64_set(&p->cst_msgs_off, 0);
	atomic64_set(&p->cst_tx_fail, 0);
	fq_hrtimer_setup(&p->timer, vcsw_slave_timer, CLOCK_MONOTONIC,
			 HRTIMER_MODE_ABS_SOFT);
	fq_hrtimer_setup(&p->ctimer, vcsw_credit_timer, CLOCK_MONOTONIC,
			 HRTIMER_MODE_REL_SOFT);
	p->trusted = true;
	p->trust.exceed = VCSW_EXCEED_DROP;
	p->trust.ttd_min = VCSW_DEFAULT_TTD_MIN;
	p->trust.ttd_max = VCSW_DEFAULT_TTD_MAX;
	p->vc0_burst = VCSW_DEFAULT_VC0_BURST;
	spin_lock_init(&p->police_lock);
	vcsw_police_init(&p->police, 0, p->vc0_burst);
	for (i = 0; i < VCSW_PS_MAX; i++)
		atomic64_set(&p->st[i], 0);

	err = dev_set_promiscuity(sdev, 1);
	if (err)
		goto err_free;
	/* from here frames reach the handler, which drops them: !enabled */
	err = netdev_rx_handler_register(sdev, vcsw_handle_frame, p);
	if (err)
		goto err_promisc;
	err = netdev_master_upper_dev_link(sdev, dev, NULL, NULL, extack);
	if (err)
		goto err_handler;
	/* nothing fails from here on: make it a member */
	dev_hold(sdev);
	p->link_up = vcsw_slave_up(p);
	spin_lock_bh(&sw->lock);
	sw->slots[slot] = &p->x;
	sw->slot_port[slot] = p;
	sw->nslots = max_t(unsigned int, sw->nslots, slot + 1);
	spin_unlock_bh(&sw->lock);
	list_add_tail_rcu(&p->list, &sw->ports);
	WRITE_ONCE(p->enabled, true);
	return 0;

err_handler:
	/* waits for every handler that may have seen p: none kept it */
	netdev_rx_handler_unregister(sdev);
err_promisc:
	dev_set_promiscuity(sdev, -1);
err_free:
	kfree(p);
	return err;
}

/*
 * Free the frames taken out of @in's input buffer onto @gone, giving their
 * credits back; each counted as drop_down of @down if not NULL.  The
 * switch's lock held.
 */
static void vcsw_input_free(struct vcsw_slave *in, struct vcsw_list *gone,
			    struct vcsw_slave *down)
{
	struct vcsw_node *n;

	lockdep_assert_held(&in->sw->lock);
	while ((n = gone->head)) {
		struct vcsw_ent *e = container_of(n, struct vcsw_ent, node);

		vcsw_list_unlink(gone, n);
		vcsw_credit_release(in, &e->charge);
		if (down)
			vcsw_count(down, VCSW_PS_DROP_DOWN);
		vcsw_ent_free(e);
	}
}

/*
 * Give up @p's slot: the frames in other ports' inputs bound for it can
 * never cross now (their credits go back upstream), its own inputs are
 * emptied, and the crossbar no longer sees it.  RTNL held.
 */
static void vcsw_slot_release(struct vcsw *sw, struct vcsw_slave *p)
{
	unsigned int i, vc;

	spin_lock_bh(&sw->lock);
	vcsw_input_purge(sw, p, true);
	/* wormhole: what @p's link held goes back; what @p's books lent is gone */
	if (p->wh_from) {
		vcsw_credit_release(p->wh_from, &p->wh_charge);
		p->wh_from = NULL;
		sw->wh_held--;
	}
	for (i = 0; i < sw->nslots; i++) {
		struct vcsw_slave *q = sw->slot_port[i];

		if (q && q->wh_from == p) {
			q->wh_from = NULL;
			sw->wh_held--;
		}
		if (!q || q == p)
			continue;
		for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
			struct vcsw_list gone;

			vcsw_list_init(&gone);
			sw->in_frames -= vcsw_vc_remove_out(&q->x.in[vc], p->idx, &gone);
			vcsw_input_free(q, &gone, p);
		}
	}
	sw->slots[p->idx] = &vcsw_xport_none;
	WRITE_ONCE(sw->slot_port[p->idx], NULL);
	while (sw->nslots && !sw->slot_port[sw->nslots - 1])
		sw->nslots--;
	spin_unlock_bh(&sw->lock);
}

/* RTNL held. */
static void vcsw_slave_remove(struct vcsw *sw, struct vcsw_slave *p)
{
	WRITE_ONCE(p->enabled, false);
	spin_lock_bh(&sw->lock);
	spin_lock(&p->lock);
	p->dead = true;
	spin_unlock(&p->lock);
	spin_unlock_bh(&sw->lock);
	/* neither re-arms itself, or is armed by others, on a dead port */
	hrtimer_cancel(&p->timer);
	hrtimer_cancel(&p->ctimer);

	netdev_rx_handler_unregister(p->dev);
	list_del_rcu(&p->list);
	netdev_upper_dev_unlink(p->dev, sw->dev);
	dev_set_promiscuity(p->dev, -1);
	/* no receive handler of this port runs now, so nothing learns it */
	synchronize_net();
	vcsw_fdb_flush_port(sw, p, true);
	vcsw_slot_release(sw, p);
	vcsw_kick_bh(sw, NULL);
	/*
	 * and nobody still holds a table entry, list pointer or slot to it;
	 * the crossbar can no longer move frames to it
	 */
	synchronize_net();
	vcsw_slave_purge(p, true, false);
	dev_put(p->dev);
	kfree(p);
}

static int vcsw_del_slave(struct net_device *dev, struct net_device *sdev)
{
	struct vcsw_slave *p = vcsw_slave_of_rtnl(sdev);

	if (!p || p->sw != netdev_priv(dev))
		return -EINVAL;
	vcsw_slave_remove(p->sw, p);
	return 0;
}

/*
 * The port's link came up or went down (RTNL): on the way up, a port with
 * credits starts its books again, so whatever the link lost while down
 * (frames, messages, the peer's own restart) costs nothing.
 */
static void vcsw_credit_link_change(struct vcsw_slave *p)
{
	bool up = vcsw_slave_up(p);

	if (up == p->link_up)
		return;
	p->link_up = up;
	spin_lock_bh(&p->lock);
	if (up && p->credits) {
		vcsw_credit_restart(p);
		vcsw_credit_kick(p);
	}
	spin_unlock_bh(&p->lock);
}

/*
 * Input buffer sizes in effect for @cfg (0: the default), applied to the
 * buffers and the books.  The switch's lock and p->lock held.
 */
static void vcsw_credit_set_sizes(struct vcsw_slave *p, const u32 *cfg)
{
	unsigned int vc;

	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		p->in_cfg[vc] = cfg[vc];
		fcr_port_set_buffer(&p->cp, vc,
				    vcsw_in_bytes(cfg[vc], p->credit_unit, p->dev->mtu));
	}
	for (vc = 0; vc < VCSW_MAX_VCS; vc++)
		p->x.in[vc].limit = vcsw_in_limit(p->cp.in_bytes, vc);
	/* a new grant while our messages were backed off */
	if (fcr_woke(&p->cp.l))
		vcsw_credit_kick(p);
}

/* A new MTU changes the default input buffers.  RTNL held. */
static void vcsw_credit_mtu_change(struct vcsw_slave *p)
{
	u32 cfg[VCSW_MAX_VCS];

	spin_lock_bh(&p->sw->lock);
	spin_lock(&p->lock);
	memcpy(cfg, p->in_cfg, sizeof(cfg));
	vcsw_credit_set_sizes(p, cfg);
	spin_unlock(&p->lock);
	spin_unlock_bh(&p->sw->lock);
}

/*
 * Credits on or off, the unit, the input buffers (validated).  Turning
 * them on or changing the unit starts new books (a new epoch); turning
 * them off leaves what the input holds to drain, lossy from then on.
 * RTNL held.
 */
static void vcsw_credit_configure(struct vcsw_slave *p, bool on, u32 unit,
				  const u32 *cfg)
{
	struct vcsw *sw = p->sw;
	unsigned int vc;
	bool restart;

	spin_lock_bh(&sw->lock);
	spin_lock(&p->lock);
	restart = on && (!p->credits || unit != p->credit_unit);
	if (p->credits && !on) {
		/* what the input holds drains; counted by closed books */
		fcr_port_stop(&p->cp);
		for (vc = 0; vc < VCSW_MAX_VCS; vc++)
			p->stalled[vc] = false;
	}
	WRITE_ONCE(p->credits, on);
	p->credit_unit = unit;
	if (restart)
		vcsw_credit_restart(p);
	vcsw_credit_set_sizes(p, cfg);
	if (on)
		vcsw_credit_kick(p);
	spin_unlock(&p->lock);
	spin_unlock_bh(&sw->lock);
	/* without credits what waited for them goes; the crossbar may move */
	vcsw_kick_bh(sw, p);
}

static int vcsw_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct vcsw_slave *p = vcsw_slave_of_rtnl(dev);

	if (!p)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UNREGISTER:
		vcsw_slave_remove(p->sw, p);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		if (!vcsw_slave_up(p))
			vcsw_slave_purge(p, true, false);
		vcsw_credit_link_change(p);
		vcsw_kick_bh(p->sw, p);
		break;
	case NETDEV_CHANGEMTU:
		vcsw_credit_mtu_change(p);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block vcsw_notifier = {
	.notifier_call = vcsw_netdev_event,
};

/* ---- the switch device ------------------------------------------------------ */

static netdev_tx_t vcsw_dev_xmit(struct sk_buff *skb, struct net_device *dev)
{
	/* the switch has no local port: what the host sends to it is lost */
	DEV_STATS_INC(dev, tx_dropped);
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static int vcsw_dev_init(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);

	return rhashtable_init(&sw->fdb, &vcsw_fdb_params);
}

static void vcsw_dev_uninit(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);
	struct vcsw_slave *p, *tmp;

	cancel_delayed_work_sync(&sw->fdb_gc);
	list_for_each_entry_safe(p, tmp, &sw->ports, list)
		vcsw_slave_remove(sw, p);
	/* no port is left to arm it */
	hrtimer_cancel(&sw->xbar_timer);
	vcsw_fdb_flush_all(sw);
	/* no reader left: ports are gone, with a grace period each */
	rhashtable_destroy(&sw->fdb);
}

static int vcsw_dev_open(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);

	queue_delayed_work(system_long_wq, &sw->fdb_gc, VCSW_GC_MIN_DELAY);
	return 0;
}

/*
 * Down: forward nothing (the receive path checks netif_running(), which
 * is false before we are called), so drop what waits in the port
 * buffers and, as a bridge does, forget what was learned.
 */
static int vcsw_dev_stop(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);
	struct vcsw_slave *p;

	cancel_delayed_work_sync(&sw->fdb_gc);
	/* receive handlers that saw the switch up are done after this */
	synchronize_net();
	list_for_each_entry(p, &sw->ports, list) {
		vcsw_slave_purge(p, true, true);
		vcsw_fdb_flush_port(sw, p, false);
	}
	/* nothing is left in an input for it to move */
	hrtimer_cancel(&sw->xbar_timer);
	return 0;
}

static const struct net_device_ops vcsw_netdev_ops = {
	.ndo_init		= vcsw_dev_init,
	.ndo_uninit		= vcsw_dev_uninit,
	.ndo_open		= vcsw_dev_open,
	.ndo_stop		= vcsw_dev_stop,
	.ndo_start_xmit		= vcsw_dev_xmit,
	.ndo_add_slave		= vcsw_add_slave,
	.ndo_del_slave		= vcsw_del_slave,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

static void vcsw_setup(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);
	unsigned int i;

	ether_setup(dev);
	dev->netdev_ops = &vcsw_netdev_ops;
	dev->needs_free_netdev = true;
	dev->priv_flags |= IFF_NO_QUEUE;
	fq_netdev_set_lltx(dev);
	/* its ports cannot follow it to another namespace: it stays */
	fq_netdev_set_netns_local(dev);
	eth_hw_addr_random(dev);

	sw->dev = dev;
	INIT_LIST_HEAD(&sw->ports);
	spin_lock_init(&sw->fdb_lock);
	INIT_LIST_HEAD(&sw->fdb_list);
	sw->fdb_hand = &sw->fdb_list;
	INIT_DELAYED_WORK(&sw->fdb_gc, vcsw_fdb_gc);
	for (i = 0; i < VCSW_SS_MAX; i++)
		atomic64_set(&sw->st[i], 0);
	spin_lock_init(&sw->lock);
	for (i = 0; i < VCSW_MAX_PORTS; i++)
		sw->slots[i] = &vcsw_xport_none;
	fq_hrtimer_setup(&sw->xbar_timer, vcsw_xbar_timer, CLOCK_MONOTONIC,
			 HRTIMER_MODE_REL_PINNED_SOFT);
	sw->arch = VCSW_DEFAULT_ARCH;
	sw->rate = 0;
	for (i = 0; i < VCSW_MAX_VCS; i++)
		sw->buffer[i] = VCSW_DEFAULT_BUFFER;
	sw->vcs = VCSW_NUM_VCS;
	sw->fdb_max = VCSW_DEFAULT_FDB_MAX;
	sw->ageing = VCSW_DEFAULT_AGEING;
	sw->group_fwd_mask = 0;
	sw->flood = true;
}

/* ---- netlink ------------------------------------------------------------------ */

static struct netlink_range_validation vcsw_rate_range = {
	.min = 0,
	.max = EDF_RATE_MAX,
};

static struct netlink_range_validation vcsw_buffer_range = {
	.min = 2048,
	.max = 64 << 20,
};

static struct netlink_range_validation vcsw_fdb_max_range = {
	.min = 1,
	.max = 65536,
};

static struct netlink_range_validation vcsw_ageing_range = {
	.min = 0,
	.max = 1000000,
};

static const struct nla_policy vcsw_policy[IFLA_VCSW_MAX + 1] = {
	[IFLA_VCSW_VC0_MODE]	= NLA_POLICY_MAX(NLA_U8, VCSW_MODE_MAX),
	[IFLA_VCSW_RATE]	= NLA_POLICY_FULL_RANGE(NLA_U64, &vcsw_rate_range),
	[IFLA_VCSW_VC0_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_buffer_range),
	[IFLA_VCSW_VC1_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_buffer_range),
	[IFLA_VCSW_VC2_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_buffer_range),
	[IFLA_VCSW_VC3_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_buffer_range),
	[IFLA_VCSW_VCS]		= NLA_POLICY_RANGE(NLA_U8, VCSW_NUM_VCS, VCSW_MAX_VCS),
	[IFLA_VCSW_FDB_MAX]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_fdb_max_range),
	[IFLA_VCSW_AGEING]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_ageing_range),
	[IFLA_VCSW_FDB_COUNT]	= { .type = NLA_REJECT },
	[IFLA_VCSW_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_GROUP_FWD_MASK] = { .type = NLA_U16 },
	[IFLA_VCSW_ARCH]	= NLA_POLICY_MAX(NLA_U8, VCSW_ARCH_MAX),
	[IFLA_VCSW_WORMHOLE]	= NLA_POLICY_MAX(NLA_U8, 1),
	[IFLA_VCSW_FLOOD] = NLA_POLICY_MAX(NLA_U8, 1),
};

static struct netlink_range_validation vcsw_unit_range = {
	.min = 1,
	.max = 65535,
};

/* 0: the default (VCSW_DEFAULT_IN_BUFFER or two full-size frames) */
static struct netlink_range_validation vcsw_in_buffer_range = {
	.min = 0,
	.max = 64 << 20,
};

static const struct nla_policy vcsw_slave_policy[IFLA_VCSW_PORT_MAX + 1] = {
	[IFLA_VCSW_PORT_FDB_ADD]	= NLA_POLICY_ETH_ADDR,
	[IFLA_VCSW_PORT_FDB_DEL]	= NLA_POLICY_ETH_ADDR,
	[IFLA_VCSW_PORT_FDB_FLUSH]	= { .type = NLA_FLAG },
	[IFLA_VCSW_PORT_RATE]		= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_STATS]		= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC0_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC1_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_TRUST]		= NLA_POLICY_MAX(NLA_U8, 1),
	[IFLA_VCSW_PORT_VC0_RATE]	= NLA_POLICY_FULL_RANGE(NLA_U64, &vcsw_rate_range),
	[IFLA_VCSW_PORT_VC0_BURST]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_buffer_range),
	[IFLA_VCSW_PORT_VC0_EXCEED]	= NLA_POLICY_MAX(NLA_U8, VCSW_EXCEED_MAX),
	[IFLA_VCSW_PORT_TTD_MIN]	= { .type = NLA_S32 },
	[IFLA_VCSW_PORT_TTD_MAX]	= { .type = NLA_S32 },
	[IFLA_VCSW_PORT_CREDITS]	= NLA_POLICY_MAX(NLA_U8, 1),
	[IFLA_VCSW_PORT_CREDIT_UNIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_unit_range),
	[IFLA_VCSW_PORT_VC0_IN_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_in_buffer_range),
	[IFLA_VCSW_PORT_VC1_IN_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_in_buffer_range),
	[IFLA_VCSW_PORT_CREDIT_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC0_IN_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC1_IN_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_INDEX]		= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC2_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC3_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC2_IN_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_in_buffer_range),
	[IFLA_VCSW_PORT_VC3_IN_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_in_buffer_range),
	[IFLA_VCSW_PORT_VC2_IN_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC3_IN_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC2_CREDIT_STATS] = { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC3_CREDIT_STATS] = { .type = NLA_REJECT },
};

static int vcsw_validate(struct nlattr *tb[], struct nlattr *data[],
			 struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		if (nla_len(tb[IFLA_ADDRESS]) != ETH_ALEN ||
		    !is_valid_ether_addr(nla_data(tb[IFLA_ADDRESS]))) {
			NL_SET_ERR_MSG_MOD(extack, "invalid MAC address");
			return -EADDRNOTAVAIL;
		}
	}
	if (data && data[IFLA_VCSW_ARCH] && data[IFLA_VCSW_VC0_MODE]) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_VC0_MODE],
				    "vc0 is the old name of arch: give one of them");
		return -EINVAL;
	}
	if (data && data[IFLA_VCSW_GROUP_FWD_MASK] &&
	    nla_get_u16(data[IFLA_VCSW_GROUP_FWD_MASK]) & VCSW_GROUP_FWD_RESTRICTED) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_GROUP_FWD_MASK],
				    "STP, PAUSE and LACP groups (bits 0-2) are never relayed");
		return -EINVAL;
	}
	return 0;
}

/* The architecture the old VC0 discipline names. */
static u8 vcsw_arch_of_mode(u8 mode)
{
	switch (mode) {
	case VCSW_MODE_FIFO:
		return VCSW_ARCH_TRAD;
	case VCSW_MODE_IDEAL:
		return VCSW_ARCH_IDEAL;
	default:
		return VCSW_ARCH_ADVANCED;
	}
}

/*
 * The output buffers were made smaller: what waits in an input for an
 * output VC that can no longer hold it would never cross, and would hold
 * up its input for good.  It is dropped (drops_full of the input VC) and
 * its credits go back; the crossbar then moves what was behind it.
 * RTNL held.
 */
static void vcsw_inputs_drop_unfit(struct vcsw *sw)
{
	unsigned int i, vc;

	spin_lock_bh(&sw->lock);
	for (i = 0; i < sw->nslots; i++) {
		struct vcsw_slave *q = sw->slot_port[i];

		if (!q)
			continue;
		for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
			struct vcsw_list gone;

			vcsw_list_init(&gone);
			sw->in_frames -= vcsw_xbar_remove_unfit(sw->slots, i, vc, &gone);
			vcsw_input_free(q, &gone, NULL);
		}
	}
	spin_unlock_bh(&sw->lock);
	vcsw_kick_bh(sw, NULL);
}

/*
 * Every port and its link to @vcs VCs.  Only while the switch is down
 * (vcsw_changelink() refuses otherwise), so no frame waits in a VC that
 * goes: vcsw_dev_stop() dropped them all, and the receive path drops
 * while down.  A link's books start again (a new epoch): the peer hears
 * messages of the new count, and refuses them (msgs_malformed) until it
 * has the same.  RTNL held.
 */
static void vcsw_set_vcs(struct vcsw *sw, u8 vcs)
{
	struct vcsw_slave *p;

	if (vcs == sw->vcs)
		return;
	spin_lock_bh(&sw->lock);
	WRITE_ONCE(sw->vcs, vcs);
	list_for_each_entry(p, &sw->ports, list) {
		vcsw_xport_set_vcs(&p->x, vcs);
		spin_lock(&p->lock);
		fcr_set_vcs(&p->cp.l, vcs);
		if (p->credits)
			vcsw_credit_restart(p);
		vcsw_credit_kick(p);
		spin_unlock(&p->lock);
	}
	spin_unlock_bh(&sw->lock);
}

/* Validated by the policy: apply it all, under RTNL, to every port. */
static void vcsw_apply(struct vcsw *sw, struct nlattr *data[])
{
	struct vcsw_slave *p;
	u8 arch = sw->arch;
	bool shrunk = false;
	unsigned int vc;

	if (!data)
		return;
	if (data[IFLA_VCSW_VC0_MODE])
		arch = vcsw_arch_of_mode(nla_get_u8(data[IFLA_VCSW_VC0_MODE]));
	if (data[IFLA_VCSW_ARCH])
		arch = nla_get_u8(data[IFLA_VCSW_ARCH]);
	spin_lock_bh(&sw->lock);
	sw->arch = arch;
	if (data[IFLA_VCSW_WORMHOLE]) {
		sw->wormhole = nla_get_u8(data[IFLA_VCSW_WORMHOLE]);
		if (!sw->wormhole)
			vcsw_wormhole_release(sw, 0, true);
	}
	spin_unlock_bh(&sw->lock);
	if (data[IFLA_VCSW_RATE])
		WRITE_ONCE(sw->rate, nla_get_u64(data[IFLA_VCSW_RATE]));
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		struct nlattr *a = data[vcsw_buffer_attr[vc]];

		if (!a)
			continue;
		if (nla_get_u32(a) < sw->buffer[vc])
			shrunk = true;
		WRITE_ONCE(sw->buffer[vc], nla_get_u32(a));
	}
	if (data[IFLA_VCSW_FDB_MAX])
		WRITE_ONCE(sw->fdb_max, nla_get_u32(data[IFLA_VCSW_FDB_MAX]));
	if (data[IFLA_VCSW_AGEING]) {
		WRITE_ONCE(sw->ageing, nla_get_u32(data[IFLA_VCSW_AGEING]));
		/* the collector looks again with the new lifetime */
		if (netif_running(sw->dev))
			mod_delayed_work(system_long_wq, &sw->fdb_gc, 0);
	}
	if (data[IFLA_VCSW_GROUP_FWD_MASK])
		WRITE_ONCE(sw->group_fwd_mask,
			   nla_get_u16(data[IFLA_VCSW_GROUP_FWD_MASK]));
	if (data[IFLA_VCSW_FLOOD])
		WRITE_ONCE(sw->flood, nla_get_u8(data[IFLA_VCSW_FLOOD]));
	if (data[IFLA_VCSW_FDB_MAX])
		vcsw_fdb_trim(sw);
	if (data[IFLA_VCSW_VCS])
		vcsw_set_vcs(sw, nla_get_u8(data[IFLA_VCSW_VCS]));

	list_for_each_entry(p, &sw->ports, list) {
		rcu_read_lock();
		local_bh_disable();
		spin_lock(&sw->lock);
		vcsw_xport_set_arch(&p->x, sw->arch);
		p->x.wormhole = sw->wormhole;
		for (vc = 0; vc < VCSW_MAX_VCS; vc++)
			p->x.out.vc[vc].limit = sw->buffer[vc];
		if (p->x.out.rate != sw->rate) {
			p->x.out.rate = sw->rate;
			/* the new rate counts from now on */
			p->x.out.link_free = 0;
			hrtimer_try_to_cancel(&p->timer);
		}
		spin_unlock(&sw->lock);
		/* serve it, and let the crossbar see the new sizes */
		vcsw_kick(sw, p);
		local_bh_enable();
		rcu_read_unlock();
	}
	if (shrunk)
		vcsw_inputs_drop_unfit(sw);
}

static int vcsw_create(struct net *src_net, struct net_device *dev,
		       struct nlattr *tb[], struct nlattr *data[],
		       struct netlink_ext_ack *extack)
{
	vcsw_apply(netdev_priv(dev), data);
	return register_netdevice(dev);
}
FQ_RTNL_NEWLINK(vcsw_newlink, vcsw_create)

static int vcsw_changelink(struct net_device *dev, struct nlattr *tb[],
			   struct nlattr *data[], struct netlink_ext_ack *extack)
{
	struct vcsw *sw = netdev_priv(dev);

	if (data && data[IFLA_VCSW_VCS] &&
	    nla_get_u8(data[IFLA_VCSW_VCS]) != sw->vcs && netif_running(dev)) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_VCS],
				    "vcs changes only while the switch is down");
		return -EBUSY;
	}
	vcsw_apply(sw, data);
	return 0;
}

static size_t vcsw_get_size(const struct net_device *dev)
{
	return 5 * nla_total_size(sizeof(u8)) +	/* VC0_MODE, ARCH, WORMHOLE, FLOOD, VCS */
	       nla_total_size_64bit(sizeof(u64)) +	/* RATE */
	       /* VC0..VC3_BUFFER, FDB_MAX, AGEING, FDB_COUNT */
	       7 * nla_total_size(sizeof(u32)) +
	       nla_total_size_64bit(sizeof(struct vcsw_stats)) +	/* STATS */
	       nla_total_size(sizeof(u16));		/* GROUP_FWD_MASK */
}

static int vcsw_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);
	unsigned int start = skb->len;
	struct vcsw_stats st;
	u64 *ctr = (u64 *)&st;
	int i;

	BUILD_BUG_ON(sizeof(st) != VCSW_SS_MAX * sizeof(u64));
	for (i = 0; i < VCSW_SS_MAX; i++)
		ctr[i] = atomic64_read(&sw->st[i]);
	if (nla_put_u8(skb, IFLA_VCSW_VC0_MODE, vcsw_arch_vc_mode(sw->arch, 0)) ||
	    nla_put_u8(skb, IFLA_VCSW_ARCH, sw->arch) ||
	    nla_put_u8(skb, IFLA_VCSW_WORMHOLE, sw->wormhole) ||
	    nla_put_u8(skb, IFLA_VCSW_FLOOD, READ_ONCE(sw->flood)) ||
	    nla_put_u64_64bit(skb, IFLA_VCSW_RATE, sw->rate, IFLA_VCSW_PAD) ||
	    nla_put_u8(skb, IFLA_VCSW_VCS, sw->vcs) ||
	    nla_put_u32(skb, IFLA_VCSW_VC0_BUFFER, sw->buffer[0]) ||
	    nla_put_u32(skb, IFLA_VCSW_VC1_BUFFER, sw->buffer[1]) ||
	    nla_put_u32(skb, IFLA_VCSW_VC2_BUFFER, sw->buffer[2]) ||
	    nla_put_u32(skb, IFLA_VCSW_VC3_BUFFER, sw->buffer[3]) ||
	    nla_put_u32(skb, IFLA_VCSW_FDB_MAX, sw->fdb_max) ||
	    nla_put_u32(skb, IFLA_VCSW_AGEING, sw->ageing) ||
	    nla_put_u32(skb, IFLA_VCSW_FDB_COUNT, READ_ONCE(sw->fdb_count)) ||
	    nla_put_64bit(skb, IFLA_VCSW_STATS, sizeof(st), &st, IFLA_VCSW_PAD) ||
	    nla_put_u16(skb, IFLA_VCSW_GROUP_FWD_MASK, sw->group_fwd_mask))
		return -EMSGSIZE;
	/*
	 * The message was sized with vcsw_get_size(); slab rounding usually
	 * hides an attribute it forgot, until the day it does not.  Say so
	 * on every dump instead.
	 */
	WARN_ON_ONCE(skb->len - start > vcsw_get_size(dev));
	return 0;
}

static int vcsw_slave_changelink(struct net_device *dev,
				 struct net_device *sdev, struct nlattr *tb[],
				 struct nlattr *data[],
				 struct netlink_ext_ack *extack)
{
	const int *in_attr = vcsw_in_buffer_attr;
	struct vcsw_slave *p = vcsw_slave_of_rtnl(sdev);
	u32 unit, cfg[VCSW_MAX_VCS];
	bool sizes = false;
	const u8 *add, *del;
	unsigned int vc;
	bool credits;
	s32 lo, hi;
	int err;

	if (!p || !data)
		return 0;
	credits = data[IFLA_VCSW_PORT_CREDITS] ?
		  nla_get_u8(data[IFLA_VCSW_PORT_CREDITS]) : p->credits;
	unit = data[IFLA_VCSW_PORT_CREDIT_UNIT] ?
	       nla_get_u32(data[IFLA_VCSW_PORT_CREDIT_UNIT]) : p->credit_unit;
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		sizes |= !!data[in_attr[vc]];
		cfg[vc] = data[in_attr[vc]] ? nla_get_u32(data[in_attr[vc]]) :
					      p->in_cfg[vc];
		/* a frame larger than the buffer could never be sent to us */
		if (cfg[vc] && cfg[vc] < roundup(sdev->mtu + ETH_HLEN, unit)) {
			NL_SET_ERR_MSG_ATTR(extack, data[in_attr[vc]] ?: data[IFLA_VCSW_PORT_CREDIT_UNIT],
					    "input buffer smaller than a full-size frame (MTU + 14 bytes, in whole credit units)");
			return -EINVAL;
		}
	}
	lo = data[IFLA_VCSW_PORT_TTD_MIN] ?
	     nla_get_s32(data[IFLA_VCSW_PORT_TTD_MIN]) : p->trust.ttd_min;
	hi = data[IFLA_VCSW_PORT_TTD_MAX] ?
	     nla_get_s32(data[IFLA_VCSW_PORT_TTD_MAX]) : p->trust.ttd_max;
	if (lo > hi) {
		NL_SET_ERR_MSG_MOD(extack, "ttd_min is above ttd_max");
		return -EINVAL;
	}
	/*
	 * A refused request changes nothing: what can fail is checked or
	 * done first.  Static entries change only under RTNL, so the entry
	 * fdb_del found is still there when it is deleted, after fdb_add.
	 */
	add = data[IFLA_VCSW_PORT_FDB_ADD] ? nla_data(data[IFLA_VCSW_PORT_FDB_ADD]) : NULL;
	del = data[IFLA_VCSW_PORT_FDB_DEL] ? nla_data(data[IFLA_VCSW_PORT_FDB_DEL]) : NULL;
	if (add && del && ether_addr_equal(add, del)) {
		NL_SET_ERR_MSG_MOD(extack, "fdb_add and fdb_del name the same address");
		return -EINVAL;
	}
	if (del && !vcsw_fdb_has_static(p->sw, p, del)) {
		NL_SET_ERR_MSG_MOD(extack, "no static entry for this address on this port");
		return -ENOENT;
	}
	if (add) {
		err = vcsw_fdb_add_static(p->sw, p, add, extack);
		if (err)
			return err;
	}

	/* nothing can fail from here */
	if (del)
		vcsw_fdb_del_static(p->sw, p, del);
	if (data[IFLA_VCSW_PORT_FDB_FLUSH])
		vcsw_fdb_flush_port(p->sw, p, false);
	spin_lock_bh(&p->police_lock);
	p->trust.ttd_min = lo;
	p->trust.ttd_max = hi;
	if (data[IFLA_VCSW_PORT_VC0_EXCEED])
		p->trust.exceed = nla_get_u8(data[IFLA_VCSW_PORT_VC0_EXCEED]);
	if (data[IFLA_VCSW_PORT_VC0_RATE] || data[IFLA_VCSW_PORT_VC0_BURST]) {
		u64 rate = data[IFLA_VCSW_PORT_VC0_RATE] ?
			   nla_get_u64(data[IFLA_VCSW_PORT_VC0_RATE]) : p->police.rate;

		if (data[IFLA_VCSW_PORT_VC0_BURST])
			p->vc0_burst = nla_get_u32(data[IFLA_VCSW_PORT_VC0_BURST]);
		/* a new contract starts with a full bucket */
		vcsw_police_init(&p->police, rate, p->vc0_burst);
	}
	spin_unlock_bh(&p->police_lock);
	if (data[IFLA_VCSW_PORT_TRUST])
		WRITE_ONCE(p->trusted, nla_get_u8(data[IFLA_VCSW_PORT_TRUST]));
	if (data[IFLA_VCSW_PORT_CREDITS] || data[IFLA_VCSW_PORT_CREDIT_UNIT] || sizes)
		vcsw_credit_configure(p, credits, unit, cfg);
	return 0;
}

static size_t vcsw_get_slave_size(const struct net_device *dev,
				  const struct net_device *sdev)
{
	return nla_total_size_64bit(sizeof(u64)) +		/* RATE */
	       nla_total_size_64bit(sizeof(struct vcsw_port_stats)) +
	       /* VC0..VC3_STATS, VC0..VC3_IN_STATS */
	       2 * VCSW_MAX_VCS * nla_total_size_64bit(sizeof(struct vcsw_vc_stats)) +
	       nla_total_size(sizeof(u8)) +			/* TRUST */
	       nla_total_size_64bit(sizeof(u64)) +		/* VC0_RATE */
	       nla_total_size(sizeof(u32)) +			/* VC0_BURST */
	       nla_total_size(sizeof(u8)) +			/* VC0_EXCEED */
	       2 * nla_total_size(sizeof(s32)) +		/* TTD_MIN, TTD_MAX */
	       nla_total_size(sizeof(u8)) +			/* CREDITS */
	       5 * nla_total_size(sizeof(u32)) +	/* CREDIT_UNIT, VC0..VC3_IN_BUFFER */
	       nla_total_size_64bit(sizeof(struct vcsw_credit_stats)) +
	       /* VC2/3_CREDIT_STATS */
	       2 * nla_total_size_64bit(sizeof(struct vcsw_credit_vc_stats)) +
	       nla_total_size(sizeof(u32));			/* INDEX */
}

/*
 * The credit counters and books of @p, for a dump: the link's in @cs with
 * VCs 0 and 1, every VC's in @vcs.
 */
static void vcsw_credit_read_stats(struct vcsw_slave *p, struct vcsw_credit_stats *cs,
				   struct vcsw_credit_vc_stats *vcs)
{
	struct fcr_stats st;
	unsigned int vc;

	memset(cs, 0, sizeof(*cs));
	memset(vcs, 0, VCSW_MAX_VCS * sizeof(*vcs));
	spin_lock_bh(&p->lock);
	fcr_port_read_stats(&p->cp, &st);
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		vcs[vc].stalls = p->cst_stalls[vc];
		vcs[vc].violations = st.vc[vc].violations;
		vcs[vc].lost_units = st.vc[vc].lost_units;
		vcs[vc].twice_units = st.vc[vc].twice_units;
		vcs[vc].late_units = st.vc[vc].late_units;
		if (p->credits) {
			vcs[vc].tx_credits = fcr_tx_credits(&p->cp.l, vc);
			vcs[vc].rx_buffer = p->cp.l.rx[vc].buffer;
			vcs[vc].rx_held = p->cp.l.rx[vc].held;
		}
	}
	for (vc = 0; vc < VCSW_NUM_VCS; vc++) {
		cs->stalls[vc] = vcs[vc].stalls;
		cs->violations[vc] = vcs[vc].violations;
		cs->lost_units[vc] = vcs[vc].lost_units;
		cs->twice_units[vc] = vcs[vc].twice_units;
		cs->late_units[vc] = vcs[vc].late_units;
		cs->tx_credits[vc] = vcs[vc].tx_credits;
		cs->rx_buffer[vc] = vcs[vc].rx_buffer;
		cs->rx_held[vc] = vcs[vc].rx_held;
	}
	cs->restarts = p->cp.restarts;
	spin_unlock_bh(&p->lock);
	cs->msgs_sent = st.msgs_sent;
	cs->msgs_received = st.msgs_received;
	cs->msgs_malformed = st.msgs_malformed;
	cs->msgs_unit = st.msgs_unit;
	cs->msgs_stale = st.msgs_stale;
	cs->resyncs = st.resyncs;
	cs->peer_epochs = st.peer_epochs;
	cs->msgs_off = atomic64_read(&p->cst_msgs_off);
	cs->msgs_tx_fail = atomic64_read(&p->cst_tx_fail);
}

static int vcsw_fill_slave_info(struct sk_buff *skb,
				const struct net_device *dev,
				const struct net_device *sdev)
{
	struct vcsw_slave *p = vcsw_slave_of_rtnl(sdev);
	struct vcsw_credit_vc_stats cvs[VCSW_MAX_VCS];
	struct vcsw_vc_stats vst, ist;
	unsigned int start = skb->len, vcs;
	struct vcsw_credit_stats cs;
	struct vcsw_port_stats ps;
	u64 *ctr = (u64 *)&ps;
	u64 rate, vc0_rate;
	int i;

	BUILD_BUG_ON(sizeof(ps) != VCSW_PS_MAX * sizeof(u64));
	if (!p)
		return 0;
	for (i = 0; i < VCSW_PS_MAX; i++)
		ctr[i] = atomic64_read(&p->st[i]);
	spin_lock_bh(&p->sw->lock);
	rate = p->x.out.rate;
	vcs = p->x.out.vcs;
	spin_unlock_bh(&p->sw->lock);
	vcsw_credit_read_stats(p, &cs, cvs);
	spin_lock_bh(&p->police_lock);
	vc0_rate = p->police.rate;
	spin_unlock_bh(&p->police_lock);

	if (nla_put_u64_64bit(skb, IFLA_VCSW_PORT_RATE, rate, IFLA_VCSW_PORT_PAD) ||
	    nla_put_64bit(skb, IFLA_VCSW_PORT_STATS, sizeof(ps), &ps,
			  IFLA_VCSW_PORT_PAD) ||
	    nla_put_u8(skb, IFLA_VCSW_PORT_TRUST, p->trusted) ||
	    nla_put_u64_64bit(skb, IFLA_VCSW_PORT_VC0_RATE, vc0_rate,
			      IFLA_VCSW_PORT_PAD) ||
	    nla_put_u32(skb, IFLA_VCSW_PORT_VC0_BURST, p->vc0_burst) ||
	    nla_put_u8(skb, IFLA_VCSW_PORT_VC0_EXCEED, p->trust.exceed) ||
	    nla_put_s32(skb, IFLA_VCSW_PORT_TTD_MIN, p->trust.ttd_min) ||
	    nla_put_s32(skb, IFLA_VCSW_PORT_TTD_MAX, p->trust.ttd_max) ||
	    nla_put_u8(skb, IFLA_VCSW_PORT_CREDITS, p->credits) ||
	    nla_put_u32(skb, IFLA_VCSW_PORT_CREDIT_UNIT, p->credit_unit) ||
	    nla_put_64bit(skb, IFLA_VCSW_PORT_CREDIT_STATS, sizeof(cs), &cs,
			  IFLA_VCSW_PORT_PAD) ||
	    nla_put_u32(skb, IFLA_VCSW_PORT_INDEX, p->idx))
		return -EMSGSIZE;
	for (i = 0; i < VCSW_MAX_VCS; i++) {
		if (nla_put_u32(skb, vcsw_in_buffer_attr[i], p->cp.in_bytes[i]))
			return -EMSGSIZE;
		/*
		 * the statistics of the VCs the switch has, a VC at a time
		 * (all of them at once would not fit on the stack)
		 */
		if (i >= vcs)
			continue;
		spin_lock_bh(&p->sw->lock);
		vcsw_vc_read_stats(&p->x.out.vc[i], &vst);
		vcsw_vc_read_stats(&p->x.in[i], &ist);
		spin_unlock_bh(&p->sw->lock);
		if (nla_put_64bit(skb, vcsw_out_stats_attr[i], sizeof(vst), &vst,
				  IFLA_VCSW_PORT_PAD) ||
		    nla_put_64bit(skb, vcsw_in_stats_attr[i], sizeof(ist), &ist,
				  IFLA_VCSW_PORT_PAD))
			return -EMSGSIZE;
		if (i >= VCSW_NUM_VCS &&
		    nla_put_64bit(skb, i == 2 ? IFLA_VCSW_PORT_VC2_CREDIT_STATS :
						IFLA_VCSW_PORT_VC3_CREDIT_STATS,
				  sizeof(cvs[i]), &cvs[i], IFLA_VCSW_PORT_PAD))
			return -EMSGSIZE;
	}
	/* as in vcsw_fill_info(): a forgotten attribute shows at once */
	WARN_ON_ONCE(skb->len - start > vcsw_get_slave_size(dev, sdev));
	return 0;
}

static struct rtnl_link_ops vcsw_link_ops __read_mostly = {
	.kind			= "vcsw",
	.priv_size		= sizeof(struct vcsw),
	.setup			= vcsw_setup,
	.maxtype		= IFLA_VCSW_MAX,
	.policy			= vcsw_policy,
	.validate		= vcsw_validate,
	.newlink		= vcsw_newlink,
	.changelink		= vcsw_changelink,
	.get_size		= vcsw_get_size,
	.fill_info		= vcsw_fill_info,
	.slave_maxtype		= IFLA_VCSW_PORT_MAX,
	.slave_policy		= vcsw_slave_policy,
	.slave_changelink	= vcsw_slave_changelink,
	.get_slave_size		= vcsw_get_slave_size,
	.fill_slave_info	= vcsw_fill_slave_info,
};

/* ---- module ------------------------------------------------------------------- */

static int __init vcsw_module_init(void)
{
	int err;

	vcsw_ent_cache = KMEM_CACHE(vcsw_ent, 0);
	if (!vcsw_ent_cache)
		return -ENOMEM;
	err = register_netdevice_notifier(&vcsw_notifier);
	if (err)
		goto err_cache;
	err = rtnl_link_register(&vcsw_link_ops);
	if (err)
		goto err_notifier;
	return 0;

err_notifier:
	unregister_netdevice_notifier(&vcsw_notifier);
err_cache:
	kmem_cache_destroy(vcsw_ent_cache);
	return err;
}

static void __exit vcsw_module_exit(void)
{
	/* deletes every switch, and with them every port and queued frame */
	rtnl_link_unregister(&vcsw_link_ops);
	unregister_netdevice_notifier(&vcsw_notifier);
	/* table entries are freed after a grace period */
	rcu_barrier();
	kmem_cache_destroy(vcsw_ent_cache);
}

module_init(vcsw_module_init);
module_exit(vcsw_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Soft switch with two-VC deadline buffers, a crossbar and credit links (trad / simple / advanced / ideal)");
MODULE_ALIAS_RTNL_LINK("vcsw");
