// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_hdr_main.c  Fabric header: push and rewrite helpers, host receive path,
 *		per-device receive statistics.
 *
 * Deadline-based interconnect QoS needs every frame to carry its time to
 * deadline (TTD) from the sending host through the switches to the
 * receiving host.  We carry it in a 20-byte header right after the Ethernet
 * header (EtherType ETH_P_FABRIC, format in uapi/linux/fabric_hdr.h).
 *
 * This module is the one place that knows how that header sits in an skb:
 *
 *  - The egress qdiscs push it on dequeue and the soft switch rewrites the
 *    TTD per hop, through the exported fabric_hdr_*() helpers, so that
 *    checksum state, header offsets and cloned data are handled once.
 *
 *  - On hosts, a packet_type handler for ETH_P_FABRIC validates each frame,
 *    strips the header and hands the inner packet back to the stack with
 *    netif_rx(), as if it had arrived without the header.  A frame that
 *    fails validation is counted and dropped: the stack never sees a
 *    malformed inner packet.  A valid frame whose TTD is negative missed
 *    its deadline; how late it is goes into a log2 histogram.
 *
 *  - Statistics are per network namespace and per receiving device,
 *    created on the first fabric frame a device receives (so memory grows
 *    with devices that actually carry fabric traffic, not with all
 *    devices), updated with per-cpu counters and read through the generic
 *    netlink family "fabric_hdr".
 */


#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/hash.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/u64_stats_sync.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "include/uapi/linux/fabric_hdr.h"
#include "core/fabric_hdr_core.h"
#include "fabric_hdr.h"
#include "fabric_link.h"
#include "fabric_slot.h"
#include "fabric_route.h"

/* Why a frame was dropped; indexes the per-cpu drop counters. */
enum fabric_drop {
	FABRIC_DROP_SHORT,
	FABRIC_DROP_VERSION,
	FABRIC_DROP_INNER_TYPE,
	FABRIC_DROP_TRUNCATED,
	FABRIC_DROP_NOMEM,
	FABRIC_DROP_LINK_MSG,	/* a credit-link message no qdisc here takes */
	FABRIC_DROP_LINK_LAYER,	/* no Ethernet header in front to rebuild */
	FABRIC_DROP_MAX,
};

static const u8 fabric_verdict_drop[] = {
	[FHC_SHORT]		= FABRIC_DROP_SHORT,
	[FHC_BAD_VERSION]	= FABRIC_DROP_VERSION,
	[FHC_BAD_INNER_TYPE]	= FABRIC_DROP_INNER_TYPE,
	[FHC_TRUNCATED]		= FABRIC_DROP_TRUNCATED,
};

static const u16 fabric_drop_attr[FABRIC_DROP_MAX] = {
	[FABRIC_DROP_SHORT]	 = FABRIC_A_DROP_SHORT,
	[FABRIC_DROP_VERSION]	 = FABRIC_A_DROP_VERSION,
	[FABRIC_DROP_INNER_TYPE] = FABRIC_A_DROP_INNER_TYPE,
	[FABRIC_DROP_TRUNCATED]	 = FABRIC_A_DROP_TRUNCATED,
	[FABRIC_DROP_NOMEM]	 = FABRIC_A_DROP_NOMEM,
	[FABRIC_DROP_LINK_MSG]	 = FABRIC_A_DROP_LINK_MSG,
	[FABRIC_DROP_LINK_LAYER] = FABRIC_A_DROP_LINK_LAYER,
};

/* Written only by the receive handler of the owning cpu. */
struct fabric_pcpu_stats {
	u64_stats_t		rx_frames;
	u64_stats_t		rx_bytes;
	u64_stats_t		drops[FABRIC_DROP_MAX];
	u64_stats_t		late;
	u64_stats_t		late_max_ns;
	u64_stats_t		late_hist[FABRIC_LATE_BUCKETS];
	struct u64_stats_sync	syncp;
};

/* The per-cpu counters folded together, in the units of the netlink reply. */
struct fabric_stats_sum {
	u64	rx_frames;
	u64	rx_bytes;
	u64	drops[FABRIC_DROP_MAX];
	u64	late;
	u64	late_max_ns;
	u64	late_hist[FABRIC_LATE_BUCKETS];
};

struct fabric_dev_stats {
	struct hlist_node			node;
	struct rcu_head				rcu;
	int					ifindex;
	struct fabric_pcpu_stats __percpu	*pcpu;
};

#define FABRIC_DEV_HASH_BITS	6
#define FABRIC_DEV_HASH_SIZE	(1U << FABRIC_DEV_HASH_BITS)

struct fabric_net {
	spinlock_t		lock;		/* serialises changes of @devs */
	struct hlist_head	devs[FABRIC_DEV_HASH_SIZE];
	/*
	 * Counts frames of devices whose entry could not be allocated (atomic
	 * allocation failed, or the device is being unregistered).  Those
	 * frames are still validated and delivered: losing a counter entry is
	 * no reason to lose traffic, and FABRIC_A_DROP_NOMEM is reserved for
	 * frames that were really dropped.  Reported with ifindex 0.
	 */
	struct fabric_pcpu_stats __percpu *unattributed;
};

static unsigned int fabric_net_id __read_mostly;

/* ---- statistics ---------------------------------------------------------- */

static struct fabric_pcpu_stats __percpu *fabric_pcpu_alloc(gfp_t gfp)
{
	struct fabric_pcpu_stats __percpu *pcpu;
	int cpu;

	pcpu = alloc_percpu_gfp(struct fabric_pcpu_stats, gfp);
	if (!pcpu)
		return NULL;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(pcpu, cpu)->syncp);
	return pcpu;
}

static struct hlist_head *fabric_dev_bucket(struct fabric_net *fn, int ifindex)
{
	return &fn->devs[hash_32((u32)ifindex, FABRIC_DEV_HASH_BITS)];
}

/* Caller holds rcu_read_lock() or fn->lock. */
static struct fabric_dev_stats *fabric_dev_lookup(struct fabric_net *fn,
						  int ifindex)
{
	struct fabric_dev_stats *d;

	hlist_for_each_entry_rcu(d, fabric_dev_bucket(fn, ifindex), node,
				 lockdep_is_held(&fn->lock))
		if (d->ifindex == ifindex)
			return d;
	return NULL;
}

static void fabric_dev_free_rcu(struct rcu_head *head)
{
	struct fabric_dev_stats *d = container_of(head, struct fabric_dev_stats,
						  rcu);

	free_percpu(d->pcpu);
	kfree(d);
}

static void fabric_dev_unlink(struct fabric_net *fn, struct fabric_dev_stats *d)
{
	lockdep_assert_held(&fn->lock);
	hlist_del_rcu(&d->node);
	call_rcu(&d->rcu, fabric_dev_free_rcu);
}

/* First frame from @dev: called from the receive handler, so atomic. */
static struct fabric_dev_stats *fabric_dev_create(struct fabric_net *fn,
						  struct net_device *dev)
{
	struct fabric_dev_stats *d, *old;

	d = kzalloc(sizeof(*d), GFP_ATOMIC);
	if (!d)
		return NULL;
	d->pcpu = fabric_pcpu_alloc(GFP_ATOMIC);
	if (!d->pcpu) {
		kfree(d);
		return NULL;
	}
	d->ifindex = dev->ifindex;

	spin_lock_bh(&fn->lock);
	old = fabric_dev_lookup(fn, d->ifindex);
	/*
	 * The NETDEV_UNREGISTER notifier unlinks under the same lock after
	 * reg_state left NETREG_REGISTERED, so checking it here means an
	 * entry is never added behind the notifier's back and leaked until
	 * the namespace goes away.
	 */
	if (!old && READ_ONCE(dev->reg_state) == NETREG_REGISTERED) {
		hlist_add_head_rcu(&d->node, fabric_dev_bucket(fn, d->ifindex));
		old = d;
		d = NULL;
	}
	spin_unlock_bh(&fn->lock);

	if (d) {
		free_percpu(d->pcpu);
		kfree(d);
	}
	return old;
}

/* Caller holds rcu_read_lock(); the result stays valid until it drops it. */
static struct fabric_pcpu_stats __percpu *fabric_stats_of(struct net_device *dev)
{
	struct fabric_net *fn = net_generic(dev_net(dev), fabric_net_id);
	struct fabric_dev_stats *d;

	d = fabric_dev_lookup(fn, dev->ifindex);
	if (unlikely(!d))
		d = fabric_dev_create(fn, dev);
	return likely(d) ? d->pcpu : fn->unattributed;
}

static void fabric_count_drop(struct fabric_pcpu_stats __percpu *pcpu,
			      enum fabric_drop why)
{
	struct fabric_pcpu_stats *s = this_cpu_ptr(pcpu);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->drops[why]);
	u64_stats_update_end(&s->syncp);
}

static void fabric_count_late(struct fabric_pcpu_stats __percpu *pcpu,
			      u64 late_ns)
{
	struct fabric_pcpu_stats *s = this_cpu_ptr(pcpu);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->late);
	if (late_ns > u64_stats_read(&s->late_max_ns))
		u64_stats_set(&s->late_max_ns, late_ns);
	u64_stats_inc(&s->late_hist[fhc_late_bucket(late_ns)]);
	u64_stats_update_end(&s->syncp);
}

static void fabric_count_rx(struct fabric_pcpu_stats __percpu *pcpu,
			    unsigned int bytes)
{
	struct fabric_pcpu_stats *s = this_cpu_ptr(pcpu);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->rx_frames);
	u64_stats_add(&s->rx_bytes, bytes);
	u64_stats_update_end(&s->syncp);
}

static void fabric_stats_read(const struct fabric_pcpu_stats *s,
			      struct fabric_stats_sum *v)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		v->rx_frames = u64_stats_read(&s->rx_frames);
		v->rx_bytes = u64_stats_read(&s->rx_bytes);
		for (i = 0; i < FABRIC_DROP_MAX; i++)
			v->drops[i] = u64_stats_read(&s->drops[i]);
		v->late = u64_stats_read(&s->late);
		v->late_max_ns = u64_stats_read(&s->late_max_ns);
		for (i = 0; i < FABRIC_LATE_BUCKETS; i++)
			v->late_hist[i] = u64_stats_read(&s->late_hist[i]);
	} while (u64_stats_fetch_retry(&s->syncp, start));
}

static void fabric_stats_fold(struct fabric_stats_sum *sum,
			      struct fabric_pcpu_stats __percpu *pcpu)
{
	struct fabric_stats_sum one;
	unsigned int i;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		fabric_stats_read(per_cpu_ptr(pcpu, cpu), &one);
		sum->rx_frames += one.rx_frames;
		sum->rx_bytes += one.rx_bytes;
		for (i = 0; i < FABRIC_DROP_MAX; i++)
			sum->drops[i] += one.drops[i];
		sum->late += one.late;
		sum->late_max_ns = max(sum->late_max_ns, one.late_max_ns);
		for (i = 0; i < FABRIC_LATE_BUCKETS; i++)
			sum->late_hist[i] += one.late_hist[i];
	}
}

static bool fabric_stats_are_zero(const struct fabric_stats_sum *sum)
{
	unsigned int i;

	if (sum->rx_frames || sum->late)
		return false;
	for (i = 0; i < FABRIC_DROP_MAX; i++)
		if (sum->drops[i])
			return false;
	return true;
}

/* ---- skb helpers, exported ----------------------------------------------- */

/* A checksum over the frame as it was no longer matches the bytes we wrote. */
static void fabric_hdr_csum_invalidate(struct sk_buff *skb)
{
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		skb->ip_summed = CHECKSUM_NONE;
}

/**
 * fabric_hdr_make_room - make what fabric_hdr_push() needs of memory
 * @skb: frame to transmit, skb->data at the Ethernet header
 *
 * For a sender that takes a link's credits before the push (they depend
 * on whether the frame carries the header): once this has succeeded, a
 * push of @skb cannot fail for memory, as long as nothing clones it
 * meanwhile.  A failure here says the frame leaves without the header.
 *
 * Return: 0 or -ENOMEM.
 */
int fabric_hdr_make_room(struct sk_buff *skb)
{
	if (!pskb_may_pull(skb, ETH_HLEN))
		return -ENOMEM;
	return skb_cow_head(skb, FABRIC_HDR_LEN);
}
EXPORT_SYMBOL_GPL(fabric_hdr_make_room);

/**
 * fabric_hdr_push - insert a fabric header after the Ethernet header
 * @skb: frame to transmit, skb->data at the Ethernet header
 * @f: header fields; version and inner_proto are filled in here
 *
 * The inner EtherType is the frame's current one, which must be one a
 * receiver accepts (IPv4, IPv6, ARP, an FBS bootstrap message).  A GSO
 * frame gets one header, which fabric_hdr_gso.c copies into its segments
 * when they are cut; it is refused where they would be cut by hardware
 * (fabric_hdr_gso_whole_ok()): the caller must segment first there.
 *
 * Return: 0, -EINVAL (not an Ethernet frame, or a GSO frame @skb->dev
 * would segment in hardware), -EPROTONOSUPPORT (inner type not carried)
 * or -ENOMEM.
 */
int fabric_hdr_push(struct sk_buff *skb, const struct fhc_fields *f)
{
	struct fhc_fields hdr = *f;
	struct ethhdr *eth;
	int err;

	if (skb->len < ETH_HLEN)
		return -EINVAL;
	if (skb_is_gso(skb) &&
	    (!skb->dev || !fabric_hdr_gso_whole_ok(skb->dev, skb)))
		return -EINVAL;
	if (!pskb_may_pull(skb, ETH_HLEN))
		return -ENOMEM;
	hdr.inner_proto = ntohs(((struct ethhdr *)skb->data)->h_proto);
	if (!fhc_inner_probe_len(hdr.inner_proto))
		return -EPROTONOSUPPORT;
	/* the host's route to the destination, where the caller names none */
	if (!hdr.route && skb->dev)
		hdr.route = fabric_route_find(skb->dev,
					      ((struct ethhdr *)skb->data)->h_dest);
	hdr.version = FABRIC_HDR_VERSION;

	err = fabric_hdr_make_room(skb);
	if (err)
		return err;

	/*
	 * Grow into the headroom and slide only the two addresses: the inner
	 * packet stays where it is, so csum_start and the network and
	 * transport header offsets of a CHECKSUM_PARTIAL skb remain right.
	 */
	__skb_push(skb, FABRIC_HDR_LEN);
	memmove(skb->data, skb->data + FABRIC_HDR_LEN, 2 * ETH_ALEN);
	eth = (struct ethhdr *)skb->data;
	eth->h_proto = htons(ETH_P_FABRIC);
	fhc_encode(skb->data + ETH_HLEN, &hdr);

	skb_reset_mac_header(skb);
	/* a VLAN tag inserted later belongs in front of our EtherType */
	skb->mac_len = ETH_HLEN;
	skb_set_network_header(skb, ETH_HLEN + FABRIC_HDR_LEN);
	/*
	 * Devices offering only NETIF_F_IP_CSUM / IPV6_CSUM cannot checksum an
	 * unknown protocol; announcing ours makes validate_xmit_skb() finish a
	 * CHECKSUM_PARTIAL skb in software there, while NETIF_F_HW_CSUM
	 * devices still offload (csum_start is absolute, see above).
	 */
	skb->protocol = htons(ETH_P_FABRIC);
	/*
	 * A CHECKSUM_COMPLETE sum (a forwarded frame) would not cover our 20
	 * bytes; if the frame loops back through veth the receiver would trust
	 * it.  Drop it and let the receiver verify in software.
	 */
	fabric_hdr_csum_invalidate(skb);
	return 0;
}
EXPORT_SYMBOL_GPL(fabric_hdr_push);

/**
 * fabric_hdr_get - pointer to a fabric header for reading
 * @skb: frame
 * @offset: offset of the header from skb->data
 *
 * Pulls the header into the linear area.  The data may be shared with a
 * clone: do not write through the pointer, use fabric_hdr_set_ttd() or
 * fabric_hdr_rewrite().  Fields are unaligned big-endian; decode with
 * fhc_decode().
 *
 * Return: the header, or NULL if the frame is too short or memory is short.
 */
struct fabric_hdr *fabric_hdr_get(struct sk_buff *skb, unsigned int offset)
{
	if (offset > INT_MAX - FABRIC_HDR_LEN ||
	    !pskb_may_pull(skb, offset + FABRIC_HDR_LEN))
		return NULL;
	return (struct fabric_hdr *)(skb->data + offset);
}
EXPORT_SYMBOL_GPL(fabric_hdr_get);

/**
 * fabric_hdr_read - decode a fabric header without changing the skb
 * @skb: frame, may be nonlinear or shared
 * @offset: offset of the header from skb->data
 * @f: decoded fields
 *
 * Return: 0; -EINVAL if the frame is shorter than the header; -EPROTO if
 * the version is not ours (@f is filled in anyway).
 */
int fabric_hdr_read(const struct sk_buff *skb, unsigned int offset,
		    struct fhc_fields *f)
{
	u8 buf[FABRIC_HDR_LEN];
	const u8 *hdr;

	if (offset > INT_MAX - FABRIC_HDR_LEN)
		return -EINVAL;
	hdr = skb_header_pointer(skb, offset, FABRIC_HDR_LEN, buf);
	if (!hdr)
		return -EINVAL;
	fhc_decode(hdr, f);
	return f->version == FABRIC_HDR_VERSION ? 0 : -EPROTO;
}
EXPORT_SYMBOL_GPL(fabric_hdr_read);

static u8 *fabric_hdr_writable(struct sk_buff *skb, unsigned int offset)
{
	int err;

	if (offset > INT_MAX - FABRIC_HDR_LEN ||
	    skb->len < offset + FABRIC_HDR_LEN)
		return ERR_PTR(-EINVAL);
	err = skb_ensure_writable(skb, offset + FABRIC_HDR_LEN);
	if (err)
		return ERR_PTR(err);
	return skb->data + offset;
}

/**
 * fabric_hdr_set_ttd - rewrite the time to deadline of a frame
 * @skb: frame
 * @offset: offset of the header from skb->data
 * @ttd_ns: new time to deadline, clamped to the header's 32 bits
 *
 * Return: 0, -EINVAL (frame too short) or -ENOMEM.
 */
int fabric_hdr_set_ttd(struct sk_buff *skb, unsigned int offset, s64 ttd_ns)
{
	u8 *hdr = fabric_hdr_writable(skb, offset);

	if (IS_ERR(hdr))
		return PTR_ERR(hdr);
	fhc_set_ttd(hdr, fhc_clamp_ttd(ttd_ns));
	fabric_hdr_csum_invalidate(skb);
	return 0;
}
EXPORT_SYMBOL_GPL(fabric_hdr_set_ttd);

/**
 * fabric_hdr_rewrite - rewrite VC, flags, SL, TTD, flow id, sequence, route
 * @skb: frame
 * @offset: offset of the header from skb->data
 * @f: new fields; version and inner_proto are ignored, the header keeps
 *     its inner EtherType (it describes the payload, which is unchanged)
 *
 * Typical use: fabric_hdr_read(), change some fields, fabric_hdr_rewrite().
 *
 * Return: 0, -EINVAL (frame too short) or -ENOMEM.
 */
int fabric_hdr_rewrite(struct sk_buff *skb, unsigned int offset,
		       const struct fhc_fields *f)
{
	struct fhc_fields hdr = *f;
	u8 *p = fabric_hdr_writable(skb, offset);

	if (IS_ERR(p))
		return PTR_ERR(p);
	hdr.version = FABRIC_HDR_VERSION;
	hdr.inner_proto = fhc_get_be16(p + 2);
	fhc_encode(p, &hdr);
	fabric_hdr_csum_invalidate(skb);
	return 0;
}
EXPORT_SYMBOL_GPL(fabric_hdr_rewrite);

/*
 * The link-layer header in front of a received frame's fabric header
 * (skb->data), if we can rebuild it in front of the inner packet: an
 * Ethernet header, or one with its 802.1Q or 802.1ad tag still in it (a
 * VLAN device with reorder_hdr off puts the tag back before its frames
 * reach us).  0 for anything else (a GRE device's packet has none).
 */
static unsigned int fabric_hdr_mac_len(const struct sk_buff *skb)
{
	unsigned int len;

	if (!skb_mac_header_was_set(skb) || skb->data < skb_mac_header(skb))
		return 0;
	len = skb->data - skb_mac_header(skb);
	if (len == ETH_HLEN)
		return len;
	if (len == VLAN_ETH_HLEN &&
	    eth_type_vlan(((const struct ethhdr *)skb_mac_header(skb))->h_proto))
		return len;
	return 0;
}

/**
 * fabric_hdr_pull - strip the fabric header of a received frame
 * @skb: received frame, skb->data at the fabric header, its Ethernet header
 *       right in front; not shared (skb_share_check() done)
 *
 * Does not validate: the caller ran fhc_validate().  On return the frame
 * looks as if it had arrived without the header: skb->data at the inner
 * packet, a rebuilt Ethernet header in front of it carrying the inner
 * EtherType (with the VLAN tag the frame's had in it, if any:
 * fabric_hdr_mac_len()), skb->protocol set, mac, network and transport
 * headers reset.
 *
 * Return: 0, -EINVAL (not Ethernet framed or too short) or -ENOMEM.
 */
int fabric_hdr_pull(struct sk_buff *skb)
{
	unsigned int hlen = fabric_hdr_mac_len(skb);
	__be16 inner;
	u8 *mac;
	int err;

	if (!hlen || skb->len < FABRIC_HDR_LEN)
		return -EINVAL;
	if (!pskb_may_pull(skb, FABRIC_HDR_LEN))
		return -ENOMEM;
	/* we rewrite the Ethernet header, which a tap may still be reading */
	err = skb_cow(skb, 0);
	if (err)
		return err;

	inner = htons(fhc_get_be16(skb->data + 2));
	skb_pull_rcsum(skb, FABRIC_HDR_LEN);
	/* addresses (and tag) moved up to the inner packet, its type last */
	mac = skb->data - hlen;
	memmove(mac, skb_mac_header(skb), hlen - sizeof(__be16));
	memcpy(skb->data - sizeof(inner), &inner, sizeof(inner));

	skb->protocol = inner;
	skb_set_mac_header(skb, -(int)hlen);
	skb_reset_network_header(skb);
	skb_reset_transport_header(skb);
	skb_reset_mac_len(skb);
	/* the hash was of the outer frame; let RPS and friends rehash */
	skb_clear_hash(skb);
	return 0;
}
EXPORT_SYMBOL_GPL(fabric_hdr_pull);

/* ---- receive path -------------------------------------------------------- */

static int fabric_rcv(struct sk_buff *skb, struct net_device *dev,
		      struct packet_type *pt, struct net_device *orig_dev)
{
	struct fabric_pcpu_stats __percpu *stats;
	enum fhc_verdict verdict;
	struct fhc_fields f;
	unsigned int inner_len, probe;

	/* Frames for other hosts (promiscuous mode) are not ours, as in ip_rcv(). */
	if (unlikely(skb->pkt_type == PACKET_OTHERHOST))
		goto drop;

	stats = fabric_stats_of(dev);
	/*
	 * Without an Ethernet header in front (a GRE device's packet of this
	 * type) we could not rebuild one for the inner packet.
	 */
	if (unlikely(!fabric_hdr_mac_len(skb))) {
		fabric_count_drop(stats, FABRIC_DROP_LINK_LAYER);
		goto drop;
	}

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (unlikely(!skb)) {
		fabric_count_drop(stats, FABRIC_DROP_NOMEM);
		return NET_RX_DROP;
	}

	if (skb->len >= FABRIC_HDR_LEN) {
		if (unlikely(!pskb_may_pull(skb, FABRIC_HDR_LEN)))
			goto drop_nomem;
		probe = FABRIC_HDR_LEN +
			fhc_inner_probe_len(fhc_get_be16(skb->data + 2));
		if (skb->len >= probe && unlikely(!pskb_may_pull(skb, probe)))
			goto drop_nomem;
		/*
		 * credits for our qdiscs, never passed up (fabric_link.c);
		 * one that no qdisc here takes is dropped, and counted
		 */
		if (fabric_link_is_msg(skb)) {
			if (!fabric_link_rcv(dev, skb))
				fabric_count_drop(stats, FABRIC_DROP_LINK_MSG);
			return NET_RX_SUCCESS;
		}
	}
	verdict = fhc_validate(skb->data, skb_headlen(skb), skb->len);
	if (unlikely(verdict != FHC_OK)) {
		fabric_count_drop(stats, fabric_verdict_drop[verdict]);
		goto drop;
	}

	/* lateness describes the arrival, whatever happens to the frame next */
	fhc_decode(skb->data, &f);
	if (f.ttd_ns < 0)
		fabric_count_late(stats, -(s64)f.ttd_ns);
	/* an FBS frame: in its slot by this host's clock? (fabric_slot.c) */
	fabric_slot_rcv(dev, &f, skb->len + ETH_HLEN);

	inner_len = skb->len - FABRIC_HDR_LEN;
	if (unlikely(fabric_hdr_pull(skb)))
		goto drop_nomem;
	/*
	 * Back to the backlog rather than into the protocol handler directly:
	 * it keeps the stack depth bounded and lets taps and tc ingress see the
	 * inner frame like any other.  A full backlog is a resource drop;
	 * rx_frames counts only frames the stack took.
	 */
	if (unlikely(netif_rx(skb) != NET_RX_SUCCESS)) {
		fabric_count_drop(stats, FABRIC_DROP_NOMEM);
		return NET_RX_DROP;
	}
	fabric_count_rx(stats, inner_len);
	return NET_RX_SUCCESS;

drop_nomem:
	fabric_count_drop(stats, FABRIC_DROP_NOMEM);
drop:
	kfree_skb(skb);
	return NET_RX_DROP;
}

static struct packet_type fabric_packet_type __read_mostly = {
	.type	= cpu_to_be16(ETH_P_FABRIC),
	.func	= fabric_rcv,
};

/* ---- devices and namespaces ---------------------------------------------- */

static int fabric_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct fabric_net *fn;
	struct fabric_dev_stats *d;

	fabric_link_dev_event(dev, event);
	/* also sent when a device leaves for another namespace */
	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	fabric_route_dev_gone(dev);

	fn = net_generic(dev_net(dev), fabric_net_id);
	spin_lock_bh(&fn->lock);
	d = fabric_dev_lookup(fn, dev->ifindex);
	if (d)
		fabric_dev_unlink(fn, d);
	spin_unlock_bh(&fn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block fabric_netdev_notifier = {
	.notifier_call = fabric_netdev_event,
};

static int __net_init fabric_net_init(struct net *net)
{
	struct fabric_net *fn = net_generic(net, fabric_net_id);
	unsigned int i;

	spin_lock_init(&fn->lock);
	for (i = 0; i < FABRIC_DEV_HASH_SIZE; i++)
		INIT_HLIST_HEAD(&fn->devs[i]);
	fn->unattributed = fabric_pcpu_alloc(GFP_KERNEL);
	return fn->unattributed ? 0 : -ENOMEM;
}

/*
 * Runs after every device of @net is gone (pernet subsystems exit after
 * the device layer), or at module unload after the receive handler and the
 * netlink family are unregistered: nothing reads the table any more except
 * RCU readers that started before, hence call_rcu() for the entries.
 */
static void __net_exit fabric_net_exit(struct net *net)
{
	struct fabric_net *fn = net_generic(net, fabric_net_id);
	struct fabric_dev_stats *d;
	struct hlist_node *tmp;
	unsigned int i;

	spin_lock_bh(&fn->lock);
	for (i = 0; i < FABRIC_DEV_HASH_SIZE; i++)
		hlist_for_each_entry_safe(d, tmp, &fn->devs[i], node)
			fabric_dev_unlink(fn, d);
	spin_unlock_bh(&fn->lock);
	free_percpu(fn->unattributed);
}

static struct pernet_operations fabric_net_ops = {
	.init	= fabric_net_init,
	.exit	= fabric_net_exit,
	.id	= &fabric_net_id,
	.size	= sizeof(struct fabric_net),
};

/* ---- generic netlink ------------------------------------------------------ */

static struct genl_family fabric_genl_family;

static const struct nla_policy fabric_genl_policy[FABRIC_A_MAX + 1] = {
	[FABRIC_A_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[FABRIC_A_ROUTE_DST]	= NLA_POLICY_EXACT_LEN(ETH_ALEN),
	[FABRIC_A_ROUTE]	= { .type = NLA_U32 },
	[FABRIC_A_ROUTE_REPLACE] = { .type = NLA_FLAG },
};

static size_t fabric_genl_msg_size(void)
{
	return nla_total_size(sizeof(u32)) +			/* IFINDEX */
	       nla_total_size(IFNAMSIZ) +			/* IFNAME */
	       (4 + FABRIC_DROP_MAX) * nla_total_size_64bit(sizeof(u64)) +
	       nla_total_size(sizeof(u64) * FABRIC_LATE_BUCKETS);
}

/* @name NULL: the unattributed counters of the namespace, ifindex 0. */
static int fabric_genl_fill(struct sk_buff *msg, u32 portid, u32 seq,
			    int flags, int ifindex, const char *name,
			    const struct fabric_stats_sum *sum)
{
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &fabric_genl_family, flags,
			  FABRIC_CMD_GET_STATS);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(msg, FABRIC_A_IFINDEX, ifindex) ||
	    (name && nla_put_string(msg, FABRIC_A_IFNAME, name)) ||
	    nla_put_u64_64bit(msg, FABRIC_A_RX_FRAMES, sum->rx_frames,
			      FABRIC_A_PAD) ||
	    nla_put_u64_64bit(msg, FABRIC_A_RX_BYTES, sum->rx_bytes,
			      FABRIC_A_PAD) ||
	    nla_put_u64_64bit(msg, FABRIC_A_LATE, sum->late, FABRIC_A_PAD) ||
	    nla_put_u64_64bit(msg, FABRIC_A_LATE_MAX_NS, sum->late_max_ns,
			      FABRIC_A_PAD) ||
	    nla_put(msg, FABRIC_A_LATE_HIST, sizeof(sum->late_hist),
		    sum->late_hist))
		goto nla_put_failure;
	for (i = 0; i < FABRIC_DROP_MAX; i++)
		if (nla_put_u64_64bit(msg, fabric_drop_attr[i], sum->drops[i],
				      FABRIC_A_PAD))
			goto nla_put_failure;

	genlmsg_end(msg, hdr);
	return 0;

nla_put_failure:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

static int fabric_genl_get_stats(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct fabric_net *fn = net_generic(net, fabric_net_id);
	struct fabric_stats_sum sum;
	struct fabric_dev_stats *d;
	struct net_device *dev;
	char name[IFNAMSIZ];
	struct sk_buff *msg;
	int ifindex, err;

	if (GENL_REQ_ATTR_CHECK(info, FABRIC_A_IFINDEX)) {
		GENL_SET_ERR_MSG(info, "device ifindex is required");
		return -EINVAL;
	}
	ifindex = nla_get_u32(info->attrs[FABRIC_A_IFINDEX]);

	rcu_read_lock();
	dev = dev_get_by_index_rcu(net, ifindex);
	if (!dev) {
		rcu_read_unlock();
		GENL_SET_ERR_MSG(info, "no such device");
		NL_SET_BAD_ATTR(info->extack, info->attrs[FABRIC_A_IFINDEX]);
		return -ENODEV;
	}
	/* a concurrent rename may be seen half done; fine for statistics */
	strscpy(name, dev->name, sizeof(name));
	d = fabric_dev_lookup(fn, ifindex);
	if (!d) {
		rcu_read_unlock();
		GENL_SET_ERR_MSG(info, "no fabric statistics for this device");
		return -ENOENT;
	}
	fabric_stats_fold(&sum, d->pcpu);
	rcu_read_unlock();

	msg = genlmsg_new(fabric_genl_msg_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = fabric_genl_fill(msg, info->snd_portid, info->snd_seq, 0,
			       ifindex, name, &sum);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * cb->args[0]: hash bucket to continue with, FABRIC_DEV_HASH_SIZE for the
 * unattributed counters, past it when done; cb->args[1]: entries of that
 * bucket already sent.  Entries added or removed between two parts of a
 * dump may be missed or repeated, as in other netlink dumps.
 */
static int fabric_genl_dump_stats(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct fabric_net *fn = net_generic(net, fabric_net_id);
	u32 portid = NETLINK_CB(cb->skb).portid;
	u32 seq = cb->nlh->nlmsg_seq;
	unsigned long bucket = cb->args[0];
	unsigned long skip = cb->args[1];
	struct fabric_stats_sum sum;
	struct fabric_dev_stats *d;
	struct net_device *dev;
	char name[IFNAMSIZ];
	unsigned long idx = 0;

	rcu_read_lock();
	for (; bucket < FABRIC_DEV_HASH_SIZE; bucket++, skip = 0) {
		idx = 0;
		hlist_for_each_entry_rcu(d, &fn->devs[bucket], node) {
			if (idx < skip) {
				idx++;
				continue;
			}
			dev = dev_get_by_index_rcu(net, d->ifindex);
			if (dev) {
				strscpy(name, dev->name, sizeof(name));
				fabric_stats_fold(&sum, d->pcpu);
				if (fabric_genl_fill(skb, portid, seq,
						     NLM_F_MULTI, d->ifindex,
						     name, &sum))
					goto out;
			}
			idx++;
		}
	}
	if (bucket == FABRIC_DEV_HASH_SIZE) {
		fabric_stats_fold(&sum, fn->unattributed);
		if (!fabric_stats_are_zero(&sum) &&
		    fabric_genl_fill(skb, portid, seq, NLM_F_MULTI, 0, NULL,
				     &sum))
			goto out;
		bucket++;
	}
out:
	rcu_read_unlock();
	cb->args[0] = bucket;
	cb->args[1] = idx;
	return skb->len;
}

static int fabric_genl_dump_routes(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return fabric_route_genl_dump(skb, cb, &fabric_genl_family);
}

static const struct genl_small_ops fabric_genl_ops[] = {
	{
		/* no flags: reading statistics needs no privilege */
		.cmd	= FABRIC_CMD_GET_STATS,
		.doit	= fabric_genl_get_stats,
		.dumpit	= fabric_genl_dump_stats,
	},
	{
		/* CAP_NET_ADMIN in the namespace's user namespace */
		.cmd	= FABRIC_CMD_ROUTE_NEW,
		.doit	= fabric_route_genl_new,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= FABRIC_CMD_ROUTE_DEL,
		.doit	= fabric_route_genl_del,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		/* routes are no secret, as ip route's are not */
		.cmd	= FABRIC_CMD_ROUTE_GET,
		.dumpit	= fabric_genl_dump_routes,
	},
};

static struct genl_family fabric_genl_family __ro_after_init = {
	.name		= FABRIC_GENL_NAME,
	.version	= FABRIC_GENL_VERSION,
	.maxattr	= FABRIC_A_MAX,
	.policy		= fabric_genl_policy,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.small_ops	= fabric_genl_ops,
	.n_small_ops	= ARRAY_SIZE(fabric_genl_ops),
};

/* ---- module ---------------------------------------------------------------- */

static int __init fabric_init(void)
{
	int err;

	err = register_pernet_subsys(&fabric_net_ops);
	if (err)
		return err;
	err = fabric_route_init();
	if (err)
		goto err_pernet;
	err = register_netdevice_notifier(&fabric_netdev_notifier);
	if (err)
		goto err_route;
	err = genl_register_family(&fabric_genl_family);
	if (err)
		goto err_notifier;
	fabric_gso_init();
	/* last: the handler needs the namespaces' tables in place */
	dev_add_pack(&fabric_packet_type);
	return 0;

err_notifier:
	unregister_netdevice_notifier(&fabric_netdev_notifier);
err_route:
	fabric_route_exit();
err_pernet:
	unregister_pernet_subsys(&fabric_net_ops);
	return err;
}

static void __exit fabric_exit(void)
{
	/* includes synchronize_net(): no handler runs once this returns */
	dev_remove_pack(&fabric_packet_type);
	fabric_gso_exit();
	genl_unregister_family(&fabric_genl_family);
	/* replays NETDEV_UNREGISTER for every device: frees their entries */
	unregister_netdevice_notifier(&fabric_netdev_notifier);
	fabric_route_exit();
	unregister_pernet_subsys(&fabric_net_ops);
	fabric_link_exit();
	fabric_slot_exit();
	/* the entries' call_rcu() callbacks live in this module */
	rcu_barrier();
}

module_init(fabric_init);
module_exit(fabric_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fabric-qos fabric header: helpers, receive path, statistics, hosts' credit links");
