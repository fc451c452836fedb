// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_link.c  A host's end of a credit link (part of fabric_hdr.ko).
 *
 * A qdisc with "credits on" (edf, aoq, dtable) sends a frame only when
 * the other end of its device's link, a vcsw port with credits on, has
 * room for it (Documentation/credits.rst).  The books of each device live
 * here once, whatever qdiscs share them (the children of mq take the same
 * link):
 *
 *  - as a sender, the host counts what its qdiscs send per VC and takes
 *    the peer's grants from its link messages; a qdisc asks
 *    fabric_link_take() for the frame its scheduler picked, and a refusal
 *    leaves the frame queued; the message that brings credits schedules
 *    the device's queues again, so nothing polls;
 *  - as a receiver, the host is a sink (core fcr_set_sink()): the stack
 *    takes every frame as it arrives, so it grants the peer a buffer
 *    beyond the sent totals the peer reports;
 *  - a timer sends our message every millisecond, and at once when the
 *    peer has not heard our epoch or reported more sent; messages go
 *    straight to the driver (dev_direct_xmit()), never behind the data
 *    they pay for.
 *
 * Locking: fabric_links_lock guards the table and the users count
 * (process context, RTNL); the receive path finds a link under RCU.
 * l->lock guards the books and the timer's state; it is taken with BHs
 * off (dequeue, softirq receive, soft hrtimer) or with spin_lock_bh().
 */

#include <linux/etherdevice.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "core/fabric_credit.h"
#include "fabric_link_priv.h"

/*
 * What a host grants beyond what its peer reported sent: the peer
 * reports every period (1 ms at 1 Gbit/s and faster, core
 * fcr_base_period()) and the host answers at once once the grant grew
 * by a quarter of this, so this is about what the peer may send in two
 * periods plus the way there and back; 256 KB carries 1 Gbit/s.
 */
#define FABRIC_LINK_SINK_BYTES	(256 * 1024)

#define FABRIC_LINK_HASH_BITS	6

const u8 fabric_link_group[ETH_ALEN] __aligned(2) = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e
};
EXPORT_SYMBOL_GPL(fabric_link_group);


static DEFINE_SPINLOCK(fabric_links_lock);
static DEFINE_HASHTABLE(fabric_links, FABRIC_LINK_HASH_BITS);

static struct fabric_link *fabric_link_find(const struct net_device *dev)
{
	struct fabric_link *l;

	hash_for_each_possible_rcu(fabric_links, l, node, (unsigned long)dev)
		if (l->dev == dev)
			return l;
	return NULL;
}

/* ---- messages on the wire ------------------------------------------------ */

/**
 * fabric_link_msg_skb - a link message for @dev's wire, not yet sent
 * @dev: the device
 * @msg: fabric header and payload (core fcr_msg_build(), recn_wire_build())
 * @len: their length
 *
 * For a caller that builds the frame under a lock it cannot send under
 * (the soft switch's RECN messages); fabric_link_xmit_msg() builds and
 * sends at once.  GFP_ATOMIC.
 *
 * Return: the frame, or NULL when no memory was to be had.
 */
struct sk_buff *fabric_link_msg_skb(struct net_device *dev, const u8 *msg, u32 len)
{
	struct sk_buff *skb;
	struct ethhdr *eth;

	skb = alloc_skb(LL_RESERVED_SPACE(dev) + ETH_HLEN + len +
			dev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	skb_reset_mac_header(skb);
	eth = skb_put(skb, ETH_HLEN);
	ether_addr_copy(eth->h_dest, fabric_link_group);
	ether_addr_copy(eth->h_source, dev->dev_addr);
	eth->h_proto = htons(ETH_P_FABRIC);
	skb_set_network_header(skb, ETH_HLEN);
	skb_put_data(skb, msg, len);
	skb->protocol = htons(ETH_P_FABRIC);
	skb->priority = TC_PRIO_CONTROL;
	skb->dev = dev;
	return skb;
}
EXPORT_SYMBOL_GPL(fabric_link_msg_skb);

/**
 * fabric_link_xmit_msg - put a link message on @dev's wire
 * @dev: the device, up
 * @msg: fabric header and payload (core fcr_msg_build())
 * @len: their length
 *
 * Straight to the driver: a qdisc on the device would hold the message
 * behind data, and credits that wait behind the data they pay for stall
 * the link.  Caller holds rcu_read_lock() with BHs off (a timer).
 *
 * Return: 0 or a negative errno.
 */
int fabric_link_xmit_msg(struct net_device *dev, const u8 *msg, u32 len)
{
	struct sk_buff *skb;
	int rc;

	if (!netif_running(dev) || !netif_carrier_ok(dev))
		return -ENETDOWN;
	skb = fabric_link_msg_skb(dev, msg, len);
	if (!skb)
		return -ENOMEM;
	/* net_xmit_eval() evaluates its argument twice: never pass a call */
	rc = dev_direct_xmit(skb, 0);
	return net_xmit_eval(rc) ? -ENOBUFS : 0;
}
EXPORT_SYMBOL_GPL(fabric_link_xmit_msg);

/* Send our message soon, from the timer.  l->lock held. */
static void fabric_link_kick(struct fabric_link *l)
{
	lockdep_assert_held(&l->lock);
	if (!l->dead)
		hrtimer_start(&l->timer, 0, HRTIMER_MODE_REL_SOFT);
}

/*
 * New books with a new epoch: the peer takes it for a restart and we
 * believe no grant until it has heard of it.  A qdisc that was waiting
 * for credits still is (@stalled stays): the first grant wakes it.
 * l->lock held.
 */
static void fabric_link_restart(struct fabric_link *l, u32 unit)
{
	struct fcr_stats st = l->books.st;	/* counters go on */
	u32 epoch = fcr_epoch_new(get_random_u32(), l->books.epoch, l->prev_epoch);

	l->prev_epoch = l->books.epoch;
	l->heard_ns = ktime_get_ns();
	fcr_restart(&l->books, epoch, unit, 0, FCR_DEFAULT_QUIET_NS);
	fcr_set_sink(&l->books, DIV_ROUND_UP(FABRIC_LINK_SINK_BYTES, unit));
	l->books.st = st;
}

/*
 * The periodic message, sooner when fabric_link_kick() asks, and less
 * often while the link is idle (the core's back-off, fcr_msg_period();
 * what ends it kicks).  Every start
 * of the timer is under l->lock, and so is the look at whether one armed
 * it again while this ran: then it stays as armed.
 */
static enum hrtimer_restart fabric_link_timer(struct hrtimer *t)
{
	struct fabric_link *l = container_of(t, struct fabric_link, timer);
	u8 msg[FCR_MSG_MAX];
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	u32 len;

	spin_lock(&l->lock);
	/* a link that is down sleeps: the way up restarts and kicks it */
	if (l->dead || !l->carrier) {
		spin_unlock(&l->lock);
		return HRTIMER_NORESTART;
	}
	len = fcr_msg_build(&l->books, msg, ktime_get_ns());
	if (!hrtimer_is_queued(t)) {
		hrtimer_forward_now(t, ns_to_ktime(fcr_msg_period(&l->books,
				fcr_base_period(FABRIC_LINK_SINK_BYTES, l->rate))));
		ret = HRTIMER_RESTART;
	}
	spin_unlock(&l->lock);
	rcu_read_lock();
	if (fabric_link_xmit_msg(l->dev, msg, len) < 0)
		atomic64_inc(&l->msgs_tx_fail);
	rcu_read_unlock();
	return ret;
}

/* ---- the receive path ------------------------------------------------------ */

/*
 * Whether @skb (data at the fabric header, EtherType ETH_P_FABRIC) is a
 * link message: for the link alone, never passed up or forwarded.
 */
bool fabric_link_is_msg(struct sk_buff *skb)
{
	return pskb_may_pull(skb, min_t(u32, skb->len, FABRIC_HDR_LEN)) &&
	       fcr_is_ctrl(skb->data, skb_headlen(skb));
}
EXPORT_SYMBOL_GPL(fabric_link_is_msg);

/*
 * A link message arrived on @dev; consumes @skb.  A device without a
 * link (no qdisc on it has credits on) ignores it: a switch port may
 * speak credits to a host that does not.  Returns false for a message
 * ignored so (the caller counts it), true for one the link's books took
 * or refused (they count it).
 */
bool fabric_link_rcv(struct net_device *dev, struct sk_buff *skb)
{
	u32 want = FCR_MSG_MAX;	/* the core checks the length it needs */
	struct fabric_link *l;
	unsigned int r = 0;
	bool wake = false, taken = false;

	l = fabric_link_find(dev);
	/* the other end of a link sends to the group: anything else is not it */
	if (!l || !ether_addr_equal_unaligned(eth_hdr(skb)->h_dest,
					      fabric_link_group))
		goto out;
	/* RECN's messages, for a link whose qdiscs run it (else malformed) */
	if (pskb_may_pull(skb, FABRIC_HDR_LEN + 1) &&
	    skb->data[FABRIC_HDR_LEN] == FABRIC_CTRL_RECN &&
	    fabric_link_recn_rcv(l, skb))
		return true;
	spin_lock(&l->lock);
	if (l->dead) {
		spin_unlock(&l->lock);
		goto out;
	}
	taken = true;
	/* a short one is refused by the core, and counted */
	if (!pskb_may_pull(skb, min_t(u32, skb->len, want))) {
		l->books.st.msgs_malformed++;
	} else {
		u64 now = ktime_get_ns(), taken = l->books.st.msgs_received;
		u32 before[FCR_MAX_VCS];
		unsigned int vc;

		for (vc = 0; vc < l->books.vcs; vc++)
			before[vc] = fcr_tx_credits(&l->books, vc);
		r = fcr_msg_receive(&l->books, skb->data,
				    min_t(u32, skb->len, skb_headlen(skb)), now);
		if (l->books.st.msgs_received != taken)
			l->heard_ns = now;
		/* when each VC's credits came back: FBS times its frames by it */
		for (vc = 0; vc < l->books.vcs; vc++)
			if (fcr_tx_credits(&l->books, vc) > before[vc])
				l->grew_ns[vc] = now;
	}
	/* or what we grant moved while our messages were backed off */
	if ((r & FCR_REPLY_NOW) || fcr_woke(&l->books))
		fabric_link_kick(l);
	if ((r & (FCR_CREDITS_GREW | FCR_BUFFER_SAID)) && l->waiting) {
		l->waiting = false;
		wake = true;
	}
	spin_unlock(&l->lock);
	/*
	 * A qdisc that refused its frame for want of credits waits for this:
	 * run the device's queues again.  After the books changed, under
	 * l->lock, so a dequeue either saw the credits or its NULL is
	 * followed by this.
	 */
	if (wake)
		netif_tx_schedule_all(dev);
out:
	consume_skb(skb);
	return taken;
}

/*
 * Link up again (or up for the first time): the other end may have
 * restarted, or lost what was on the wire; new books for both.
 */
void fabric_link_dev_event(struct net_device *dev, unsigned long event)
{
	struct fabric_link *l;
	bool carrier;

	if (event != NETDEV_UP && event != NETDEV_DOWN && event != NETDEV_CHANGE)
		return;
	rcu_read_lock();
	l = fabric_link_find(dev);
	if (l) {
		carrier = netif_running(dev) && netif_carrier_ok(dev);
		spin_lock_bh(&l->lock);
		if (carrier && !l->carrier && !l->dead) {
			fabric_link_restart(l, l->books.unit);
			l->restarts++;
			fabric_link_kick(l);
		}
		l->carrier = carrier;
		spin_unlock_bh(&l->lock);
	}
	rcu_read_unlock();
}

/* ---- the qdiscs' side ------------------------------------------------------ */

/* Whether @dev is a port of a vcsw switch.  Under RTNL. */
static bool fabric_link_dev_is_switch_port(struct net_device *dev)
{
	struct net_device *master = netdev_master_upper_dev_get(dev);

	return master && master->rtnl_link_ops &&
	       !strcmp(master->rtnl_link_ops->kind, "vcsw");
}

/**
 * fabric_link_dev_has_link - whether a qdisc on @dev sends under credits
 * @dev: the device
 *
 * For vcsw, which must not take such a device as a port.  Under RTNL,
 * which every qdisc change holds.
 *
 * Return: true if a qdisc on @dev has a credit link.
 */
bool fabric_link_dev_has_link(const struct net_device *dev)
{
	bool on;

	ASSERT_RTNL();
	rcu_read_lock();
	on = fabric_link_find(dev) != NULL;
	rcu_read_unlock();
	return on;
}
EXPORT_SYMBOL_GPL(fabric_link_dev_has_link);

/**
 * fabric_link_get - take @dev's end of its credit link
 * @dev: the qdisc's device
 * @unit: bytes per credit, 1 to 65535; the peer must count the same
 * @vcs: VCs the link carries, 2 to FCR_MAX_VCS; the peer must have the same
 * @extack: for the error
 *
 * Under RTNL.
 *
 * Return: the link, or an ERR_PTR().
 */
struct fabric_link *fabric_link_get(struct net_device *dev, u32 unit,
				    unsigned int vcs,
				    struct netlink_ext_ack *extack)
{
	struct fabric_link *l, *fresh;

	ASSERT_RTNL();
	if (!unit || unit > 0xffff) {
		NL_SET_ERR_MSG(extack, "credit unit must be 1 to 65535 bytes");
		return ERR_PTR(-EINVAL);
	}
	/*
	 * A vcsw port's switch is that end of the link already: it takes
	 * the peer's messages before we could see them, and a qdisc here
	 * would wait for credits forever.  vcsw refuses the converse.
	 */
	if (fabric_link_dev_is_switch_port(dev)) {
		NL_SET_ERR_MSG(extack,
			       "device is a vcsw port: the switch keeps its credits (use vcsw_slave credits)");
		return ERR_PTR(-EBUSY);
	}
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return ERR_PTR(-ENOMEM);

	spin_lock_bh(&fabric_links_lock);
	l = fabric_link_find(dev);
	if (l) {
		if (l->alone) {
			spin_unlock_bh(&fabric_links_lock);
			kfree(fresh);
			NL_SET_ERR_MSG(extack,
				       "an fbs qdisc has this device's credits and needs them alone (to replace it, turn its credits off first)");
			return ERR_PTR(-EBUSY);
		}
		if (l->books.unit != unit) {
			spin_unlock_bh(&fabric_links_lock);
			kfree(fresh);
			NL_SET_ERR_MSG(extack,
				       "credits on this device already count another unit");
			return ERR_PTR(-EBUSY);
		}
		if (l->books.vcs != vcs) {
			spin_unlock_bh(&fabric_links_lock);
			kfree(fresh);
			NL_SET_ERR_MSG(extack,
				       "credits on this device already carry another number of VCs");
			return ERR_PTR(-EBUSY);
		}
		l->users++;
		spin_unlock_bh(&fabric_links_lock);
		kfree(fresh);
		return l;
	}
	l = fresh;
	l->dev = dev;
	l->users = 1;
	spin_lock_init(&l->lock);
	fq_hrtimer_setup(&l->timer, fabric_link_timer, CLOCK_MONOTONIC,
			 HRTIMER_MODE_REL_SOFT);
	fcr_set_vcs(&l->books, vcs);	/* the restart keeps it */
	fabric_link_restart(l, unit);
	l->carrier = netif_running(dev) && netif_carrier_ok(dev);
	hash_add_rcu(fabric_links, &l->node, (unsigned long)dev);
	spin_unlock_bh(&fabric_links_lock);
	/* a NIC that filters multicast must let the peer's messages in */
	l->mc_joined = !dev_mc_add(dev, fabric_link_group);
	if (!l->mc_joined)
		netdev_warn(dev, "cannot join the credit link group: a multicast filter may drop the link's messages\n");

	/* say who we are at once: the peer grants nothing before that */
	spin_lock_bh(&l->lock);
	fabric_link_kick(l);
	spin_unlock_bh(&l->lock);
	return l;
}
EXPORT_SYMBOL_GPL(fabric_link_get);

/*
 * A new unit or VC count for @l, as for a vcsw port: new books with a
 * new epoch, so the peer (which must count the same unit and VCs: its
 * messages otherwise are refused) sees a restart.  Only for a link that
 * one qdisc alone uses: the books are the device's, and the other qdiscs
 * sharing them (the children of mq) asked for what they have.  Under
 * RTNL.
 */
static int fabric_link_set_books(struct fabric_link *l, u32 unit,
				 unsigned int vcs, const struct nlattr *attr,
				 struct netlink_ext_ack *extack)
{
	unsigned int users;

	if (!unit || unit > 0xffff) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "credit unit must be 1 to 65535 bytes");
		return -EINVAL;
	}
	spin_lock_bh(&fabric_links_lock);
	users = l->users;
	spin_unlock_bh(&fabric_links_lock);
	if (users > 1) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "other qdiscs of this device share its credits: turn credits off in all of them to change the unit or the VCs");
		return -EBUSY;
	}
	spin_lock_bh(&l->lock);
	fcr_set_vcs(&l->books, vcs);
	fabric_link_restart(l, unit);
	l->restarts++;
	fabric_link_kick(l);
	spin_unlock_bh(&l->lock);
	return 0;
}

/**
 * fabric_link_configure - "credits on|off" and "credit_unit" of a qdisc
 * @sch: the qdisc
 * @cur: its link now, or NULL (credits off)
 * @on: the credits attribute (u8), or NULL: unchanged
 * @unit: the credit_unit attribute (u32), or NULL: unchanged
 * @vcs: VCs the link carries, 2 to FCR_MAX_VCS (the peer's count)
 * @extack: for the error
 *
 * The link the qdisc should have, or an ERR_PTR() with nothing changed.
 * A new unit or count restarts @cur's books here, before the caller
 * commits: so callers call this last of what may fail.  The caller asks
 * fabric_link_may_start() under the tree lock, puts the link in place
 * and then, if it differs from @cur, fabric_link_put(@cur).  Under RTNL.
 *
 * Return: the link the qdisc should have (NULL: credits off), or an
 * ERR_PTR().
 */
struct fabric_link *fabric_link_configure(struct Qdisc *sch,
					  struct fabric_link *cur,
					  const struct nlattr *on,
					  const struct nlattr *unit,
					  unsigned int vcs,
					  struct netlink_ext_ack *extack)
{
	bool want = on ? nla_get_u8(on) : cur != NULL;
	u32 u = unit ? nla_get_u32(unit) :
		cur ? cur->books.unit : FCR_DEFAULT_UNIT;

	if (!want) {
		if (unit) {
			NL_SET_ERR_MSG_ATTR(extack, unit,
					    "credit_unit needs credits on");
			return ERR_PTR(-EINVAL);
		}
		return NULL;
	}
	if (cur) {
		int err;

		if (u == cur->books.unit && vcs == cur->books.vcs)
			return cur;
		err = fabric_link_set_books(cur, u, vcs, unit, extack);
		return err ? ERR_PTR(err) : cur;
	}
	if (qdisc_dev(sch)->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG(extack, "credits need an Ethernet device");
		return ERR_PTR(-EOPNOTSUPP);
	}
	/*
	 * What was queued without credits may be a GSO packet, which no
	 * grant ever covers (with credits on, they are queued as segments)
	 */
	if (sch->q.qlen) {
		NL_SET_ERR_MSG(extack, FABRIC_LINK_BUSY_MSG);
		return ERR_PTR(-EBUSY);
	}
	return fabric_link_get(qdisc_dev(sch), u, vcs, extack);
}
EXPORT_SYMBOL_GPL(fabric_link_configure);

/**
 * fabric_link_may_start - whether a qdisc may take up @link now
 * @sch: the qdisc, its tree locked
 * @cur: its link now, or NULL (credits off)
 * @link: what fabric_link_configure() gave
 * @extack: for the error
 *
 * fabric_link_configure() refuses credits on for a qdisc that holds
 * packets, but it runs without the tree lock, and so does what the
 * caller does after it: a whole GSO packet may come in before the
 * caller puts the link in place, and would then wait for a grant no
 * link gives.  So the caller asks again here, under the lock, before it
 * commits anything; on -EBUSY it unlocks and puts @link.
 *
 * Return: 0, or -EBUSY when the qdisc holds packets.
 */
int fabric_link_may_start(struct Qdisc *sch, const struct fabric_link *cur,
			  const struct fabric_link *link,
			  struct netlink_ext_ack *extack)
{
	if (!link || cur || !sch->q.qlen)
		return 0;
	NL_SET_ERR_MSG(extack, FABRIC_LINK_BUSY_MSG);
	return -EBUSY;
}
EXPORT_SYMBOL_GPL(fabric_link_may_start);

void fabric_link_set_rate(struct fabric_link *l, u64 rate)
{
	spin_lock_bh(&l->lock);
	l->rate = rate;
	spin_unlock_bh(&l->lock);
}
EXPORT_SYMBOL_GPL(fabric_link_set_rate);

/* The unit of @l, for a dump; 0 for none. */
u32 fabric_link_unit(const struct fabric_link *l)
{
	return l ? l->books.unit : 0;
}
EXPORT_SYMBOL_GPL(fabric_link_unit);

static void fabric_link_free(struct fabric_link *l)
{
	fabric_link_recn_free(l);
	spin_lock_bh(&l->lock);
	l->dead = true;
	spin_unlock_bh(&l->lock);
	/* waits for a running callback; it saw @dead and did not restart */
	hrtimer_cancel(&l->timer);
	kfree_rcu(l, rcu);
}

/**
 * fabric_link_claim_alone - no other qdisc may share @l
 * @l: from fabric_link_get(), the caller's
 * @extack: for the error
 *
 * A qdisc that times its slots by when its own frames' credits come back
 * (fbs) would take another's frames, sharing the books under mq, for
 * back-pressure on its own.  The claim ends with the link, when the
 * caller, its only user, puts it.  Under RTNL.
 *
 * Return: 0, or -EBUSY when another qdisc has @l; the caller puts it then.
 */
int fabric_link_claim_alone(struct fabric_link *l, struct netlink_ext_ack *extack)
{
	int err = 0;

	spin_lock_bh(&fabric_links_lock);
	if (l->users > 1) {
		NL_SET_ERR_MSG(extack,
			       "another qdisc of this device has credits on, one this replaces included: fbs needs the device's credits alone");
		err = -EBUSY;
	} else {
		l->alone = true;
	}
	spin_unlock_bh(&fabric_links_lock);
	return err;
}
EXPORT_SYMBOL_GPL(fabric_link_claim_alone);

/**
 * fabric_link_put - a qdisc is done with its link
 * @l: from fabric_link_get()
 *
 * The last one stops the link's timer and frees it after a grace period
 * (the receive path may still be looking at it).  Process context.
 */
void fabric_link_put(struct fabric_link *l)
{
	bool last;

	spin_lock_bh(&fabric_links_lock);
	last = !--l->users;
	if (last)
		hash_del_rcu(&l->node);
	spin_unlock_bh(&fabric_links_lock);
	if (last) {
		/*
		 * only our own join: the group is also LLDP's nearest-bridge
		 * address, which others (lldpd) may have joined
		 */
		if (l->mc_joined)
			dev_mc_del(l->dev, fabric_link_group);
		fabric_link_free(l);
	}
}
EXPORT_SYMBOL_GPL(fabric_link_put);

/**
 * fabric_link_skb_vc - the VC a frame travels on
 * @l: the link it goes on (NULL: credits off, a link of two VCs)
 * @skb: data at its Ethernet header (a qdisc's dequeue)
 *
 * The VC of its fabric header, best effort without one: what the
 * receiving port counts it on (core fcr_frame_vc()), with the link's VC
 * count, as the port counts with its own.  The header may be in a
 * fragment (a packet socket's TX ring puts only the Ethernet header in
 * the linear part): the port pulls it, so it is read wherever it is.
 *
 * Return: the VC, below the link's VC count.
 */
unsigned int fabric_link_skb_vc(const struct fabric_link *l,
				const struct sk_buff *skb)
{
	unsigned int vcs = l ? READ_ONCE(l->books.vcs) : FCR_DEFAULT_VCS;
	u8 buf[ETH_HLEN + 1];
	const u8 *h = skb_header_pointer(skb, 0, sizeof(buf), buf);

	if (!h)
		return FABRIC_VC_BESTEFFORT;
	return fcr_frame_vc(vcs, ((const struct ethhdr *)h)->h_proto == htons(ETH_P_FABRIC),
			    h + ETH_HLEN, 1);
}
EXPORT_SYMBOL_GPL(fabric_link_skb_vc);

/*
 * Whether the peer has room for a frame of @len bytes on @vc; when not,
 * the next credits wake the device's queues.  l->lock held.
 */
static bool fabric_link_may_send(struct fabric_link *l, unsigned int vc, u32 len)
{
	bool ok = fcr_tx_may_send(&l->books, vc, fcr_wire_len(len));

	if (!ok)
		l->waiting = true;	/* cleared only by the wake */
	return ok;
}

enum fabric_link_verdict fabric_link_take(struct fabric_link *l, unsigned int vc,
					  u32 len)
{
	enum fabric_link_verdict v = FABRIC_LINK_GO;
	u32 wire = fcr_wire_len(len);

	spin_lock(&l->lock);
	if (vc >= l->books.vcs)
		vc = FABRIC_VC_BESTEFFORT;
	if (fabric_link_may_send(l, vc, len)) {
		fcr_tx_sent(&l->books, vc, wire, ktime_get_ns());
		l->stalled[vc] = false;
		/* the first frame after an idle spell: speak again */
		if (unlikely(fcr_woke(&l->books)))
			fabric_link_kick(l);
	} else if (unlikely(fcr_tx_too_big(&l->books, vc, wire))) {
		/* no grant will cover it: not a wait */
		v = FABRIC_LINK_TOO_BIG;
	} else {
		v = FABRIC_LINK_WAIT;
		/*
		 * waiting is set by every refusal, cleared only by the wake:
		 * a qdisc's success must not hide another's wait (the
		 * children of mq share the link).  One stall per wait,
		 * however often the qdisc is run.
		 */
		if (!l->stalled[vc]) {
			l->stalled[vc] = true;
			l->stalls[vc]++;
		}
	}
	spin_unlock(&l->lock);
	return v;
}
EXPORT_SYMBOL_GPL(fabric_link_take);

void fabric_dequeue_drop(struct Qdisc *sch, struct sk_buff *skb)
{
	qdisc_qstats_drop(sch);
	qdisc_tree_reduce_backlog(sch, 1, qdisc_pkt_len(skb));
	kfree_skb(skb);
	if (!sch->q.qlen)
		__netif_schedule(qdisc_root_bh(sch));
}
EXPORT_SYMBOL_GPL(fabric_dequeue_drop);

bool fabric_link_room(struct fabric_link *l, unsigned int vc, u32 len, u64 *grew_ns)
{
	bool ok;

	spin_lock(&l->lock);
	if (vc >= l->books.vcs)
		vc = FABRIC_VC_BESTEFFORT;
	ok = fcr_tx_room_capped(&l->books, vc, fcr_wire_len(len));
	if (!ok)
		l->waiting = true;	/* cleared only by the wake */
	if (grew_ns)
		*grew_ns = l->grew_ns[vc];
	spin_unlock(&l->lock);
	return ok;
}
EXPORT_SYMBOL_GPL(fabric_link_room);

u64 fabric_link_books_gen(struct fabric_link *l)
{
	u64 gen;

	spin_lock(&l->lock);
	gen = l->restarts + l->books.st.peer_epochs;
	spin_unlock(&l->lock);
	return gen;
}
EXPORT_SYMBOL_GPL(fabric_link_books_gen);

void fabric_link_read_stats(struct fabric_link *l,
			    struct tc_fabric_credit_xstats *st)
{
	const struct fcr_stats *s = &l->books.st;
	unsigned int vc;

	memset(st, 0, sizeof(*st));
	spin_lock_bh(&l->lock);
	st->unit = l->books.unit;
	for (vc = 0; vc < l->books.vcs && vc < ARRAY_SIZE(st->tx_credits); vc++) {
		st->tx_credits[vc] = fcr_tx_credits(&l->books, vc);
		st->stalls[vc] = l->stalls[vc];
	}
	st->msgs_sent = s->msgs_sent;
	st->msgs_received = s->msgs_received;
	st->msgs_refused = s->msgs_malformed + s->msgs_unit + s->msgs_stale;
	st->peer_epochs = s->peer_epochs;
	st->restarts = l->restarts;
	st->peer_silent_ms = div_u64(ktime_get_ns() - l->heard_ns, NSEC_PER_MSEC);
	spin_unlock_bh(&l->lock);
	st->msgs_tx_fail = atomic64_read(&l->msgs_tx_fail);
}
EXPORT_SYMBOL_GPL(fabric_link_read_stats);

void fabric_link_read_vc(struct fabric_link *l, unsigned int vc,
			 u32 *tx_credits, u64 *stalls)
{
	*tx_credits = 0;
	*stalls = 0;
	if (vc >= FCR_MAX_VCS)
		return;
	spin_lock_bh(&l->lock);
	if (vc < l->books.vcs)
		*tx_credits = fcr_tx_credits(&l->books, vc);
	*stalls = l->stalls[vc];
	spin_unlock_bh(&l->lock);
}
EXPORT_SYMBOL_GPL(fabric_link_read_vc);

/* ---- the gate of single-VC schedulers ---------------------------------------- */

struct sk_buff *fabric_gate_dequeue_slow(struct Qdisc *sch,
					 struct fabric_credit_gate *g,
					 struct sk_buff *(*pick)(struct Qdisc *))
{
	struct sk_buff *skb = g->skb;
	enum fabric_link_verdict v;

again:
	if (!skb) {
		skb = pick(sch);
		if (!skb)
			return NULL;
	} else {
		/* it was counted in the queue while it waited */
		g->skb = NULL;
		sch->q.qlen--;
		qdisc_qstats_backlog_dec(sch, skb);
	}
	/*
	 * The scheduler counted it as sent by its class when it picked it;
	 * the qdisc counts it when it leaves.  Credits turned off while it
	 * waited: it goes first.
	 */
	v = g->link ? fabric_link_take(g->link, fabric_link_skb_vc(g->link, skb), skb->len) :
		      FABRIC_LINK_GO;
	if (v == FABRIC_LINK_GO) {
		qdisc_bstats_update(sch, skb);
		return skb;
	}
	if (unlikely(v == FABRIC_LINK_TOO_BIG)) {
		/* each turn drops a packet off the queue: as many as it held */
		fabric_dequeue_drop(sch, skb);
		skb = NULL;
		goto again;
	}
	/* the scheduler's choice stands: it waits, first in line */
	g->skb = skb;
	sch->q.qlen++;
	qdisc_qstats_backlog_inc(sch, skb);
	return NULL;
}
EXPORT_SYMBOL_GPL(fabric_gate_dequeue_slow);

void fabric_gate_purge(struct Qdisc *sch, struct fabric_credit_gate *g)
{
	struct sk_buff *skb = g->skb;

	if (!skb)
		return;
	g->skb = NULL;
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_qstats_drop(sch);
	rtnl_kfree_skbs(skb, skb);
}
EXPORT_SYMBOL_GPL(fabric_gate_purge);

/* Module exit: every qdisc is gone (they hold the module), so is every link. */
void fabric_link_exit(void)
{
	WARN_ON_ONCE(!hash_empty(fabric_links));
}
