// SPDX-License-Identifier: GPL-2.0
/*
 * GSO for frames that carry the fabric header.
 *
 * A qdisc that gives a GSO packet one deadline (edf's rate and control
 * classes) pushes one header onto the whole packet at dequeue.  The
 * packet is cut into wire frames later, on the device path
 * (validate_xmit_skb()) or where a receiver must see wire frames (a vcsw
 * port that got it whole from a veth), by the kernel's GSO, which finds
 * this offload by the fabric EtherType.  Like MPLS's, it steps over its
 * header, has the inner protocol's offload segment the packet, and puts
 * the Ethernet and fabric headers back in front of every segment; then
 * it makes each copied header say what its segment is
 * (fhc_segment_hdr(): sequence, first and last frame).
 *
 * No device segments this header in hardware: one that would copy it
 * unchanged into every segment must not be given such a packet.
 * fabric_hdr_gso_whole_ok() says which devices are safe.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "fabric_hdr.h"

/*
 * Undo what fabric_gso_segment() did before the inner segmentation, which
 * leaves skb->data at the inner packet: back where it was given to us.
 */
static void fabric_gso_unwind(struct sk_buff *skb, __be16 protocol,
			      u16 mac_header, u16 mac_len, bool at_header)
{
	skb->protocol = protocol;
	skb->mac_header = mac_header;
	skb->mac_len = mac_len;
	if (at_header)
		__skb_push(skb, FABRIC_HDR_LEN);
}

/*
 * A tunnel's GSO packet (VXLAN, GENEVE, GRE, IP in IP): its segmentation
 * places each segment's outer headers from SKB_GSO_CB()->mac_offset, the
 * Ethernet header, and the inner IP offload writes at the mac header,
 * both of which fabric_gso_segment() moves; the segments would come out
 * with their headers in the wrong places and 34 bytes of headroom that
 * nobody wrote in front.  Such a packet is cut before the header goes on.
 */
static bool fabric_gso_tunnelled(const struct sk_buff *skb)
{
	return skb->encapsulation ||
	       (skb_shinfo(skb)->gso_type &
		(SKB_GSO_GRE | SKB_GSO_GRE_CSUM | SKB_GSO_IPXIP4 | SKB_GSO_IPXIP6 |
		 SKB_GSO_UDP_TUNNEL | SKB_GSO_UDP_TUNNEL_CSUM | SKB_GSO_TUNNEL_REMCSUM));
}

/*
 * @skb->data is at the fabric header (a received frame, the network
 * header where the stack put it) or right past it (a frame a qdisc
 * pushed the header onto, the network header at the inner packet);
 * the Ethernet header is in front either way.
 */
static struct sk_buff *fabric_gso_segment(struct sk_buff *skb,
					  netdev_features_t features)
{
	u16 mac_header = skb->mac_header, mac_len = skb->mac_len;
	__be16 protocol = skb->protocol;
	struct sk_buff *segs, *seg;
	unsigned int past_eth;
	bool at_header;
	u32 index;
	u16 inner;

	if (!skb_mac_header_was_set(skb) || fabric_gso_tunnelled(skb))
		return ERR_PTR(-EINVAL);
	past_eth = skb->data - skb_mac_header(skb) - ETH_HLEN;
	if (past_eth != 0 && past_eth != FABRIC_HDR_LEN)
		return ERR_PTR(-EINVAL);
	at_header = past_eth == 0;
	if (!at_header)
		__skb_push(skb, FABRIC_HDR_LEN);
	/* only IP carries payload that GSO can cut */
	if (!pskb_may_pull(skb, FABRIC_HDR_LEN) ||
	    skb->data[0] >> FABRIC_HDR_VER_SHIFT != FABRIC_HDR_VERSION)
		inner = 0;
	else
		inner = fhc_get_be16(skb->data + 2);
	if (inner != FHC_ETH_P_IP && inner != FHC_ETH_P_IPV6) {
		if (!at_header)
			__skb_pull(skb, FABRIC_HDR_LEN);
		return ERR_PTR(-EINVAL);
	}

	__skb_pull(skb, FABRIC_HDR_LEN);
	skb->protocol = htons(inner);
	skb_reset_mac_header(skb);
	skb->mac_len = 0;
	segs = skb_mac_gso_segment(skb, features);
	if (IS_ERR_OR_NULL(segs)) {
		/* NULL: the packet stays whole, with its headers */
		fabric_gso_unwind(skb, protocol, mac_header, mac_len, at_header);
		return segs;
	}

	index = 0;
	for (seg = segs; seg; seg = seg->next, index++) {
		/* skb_segment() copied both headers in front of the data */
		__skb_push(seg, ETH_HLEN + FABRIC_HDR_LEN);
		skb_reset_mac_header(seg);
		seg->mac_len = ETH_HLEN;
		skb_set_network_header(seg, ETH_HLEN + FABRIC_HDR_LEN);
		seg->protocol = protocol;
		fhc_segment_hdr(seg->data + ETH_HLEN, index, !seg->next);
	}
	return segs;
}

static struct packet_offload fabric_offload __read_mostly = {
	.type = cpu_to_be16(ETH_P_FABRIC),
	.callbacks = {
		.gso_segment = fabric_gso_segment,
	},
};

/**
 * fabric_hdr_gso_whole_ok - may a GSO packet leave @dev whole with a header
 * @dev: the device the packet is sent on
 * @skb: the GSO packet
 *
 * True when the segments will be cut by fabric_gso_segment(): the stack
 * segments in software because @dev cannot checksum an unknown protocol
 * (no NETIF_F_HW_CSUM) or lacks the packet's GSO feature, or @dev is a
 * veth, which hands the packet to its peer whole, where fabric_hdr.ko or
 * a vcsw port reads it.  A device that would segment it in hardware
 * would copy the header unchanged into every segment, and a tunnel's
 * packet is one fabric_gso_segment() cannot cut: the caller must segment
 * first there.
 *
 * Return: whether @skb may be sent whole.
 */
bool fabric_hdr_gso_whole_ok(const struct net_device *dev,
			     const struct sk_buff *skb)
{
	netdev_features_t features = dev->features;

	if (fabric_gso_tunnelled(skb))
		return false;

	if (!(features & NETIF_F_HW_CSUM) ||
	    !net_gso_ok(features, skb_shinfo(skb)->gso_type))
		return true;
	return dev->rtnl_link_ops && !strcmp(dev->rtnl_link_ops->kind, "veth");
}
EXPORT_SYMBOL_GPL(fabric_hdr_gso_whole_ok);

void __init fabric_gso_init(void)
{
	dev_add_offload(&fabric_offload);
}

void fabric_gso_exit(void)
{
	/* includes synchronize_net(): no segmentation runs once it returns */
	dev_remove_offload(&fabric_offload);
}
