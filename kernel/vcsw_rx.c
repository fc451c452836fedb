// SPDX-License-Identifier: GPL-2.0
/*
 * vcsw's receive path: the rx_handler of every port (softirq, RCU).
 *
 * A frame is counted against the port's credits (if on), its header
 * checked, its deadline and VC decided (trust, policing), its source
 * learned and its way found: by its source route, the forwarding table,
 * or flooding.  Then it goes into the port's input buffer (credits on:
 * vcsw_input_one()) or straight into the output's buffer
 * (vcsw_forward_one()), both in vcsw_main.c.  Link messages are consumed
 * here; GSO frames are cut into the frames the wire would carry.
 */
#include "vcsw_priv.h"

/*
 * May a port cut GSO frame @skb (skb->data at its Ethernet header)?  Its
 * segments are all allocated at once, in softirq, before any buffer limit
 * applies.  A sender whose segment size the kernel took from it
 * (SKB_GSO_DODGY) gets at most VCSW_GSO_MAX_SEGS of them.  Their number
 * is gso_segs where the sender's kernel counted them (a veth peer's
 * transmit path does, from the inner TCP or UDP header); where it did not
 * (0: a tap), it is counted here from the bytes after the Ethernet and
 * fabric headers, an upper bound (the inner headers are not payload
 * either).  Segment sizes the kernel chose itself (TCP and UDP here, GRO
 * on a NIC) make the frames the sender would have sent anyway.
 */
static bool vcsw_gso_segs_ok(const struct sk_buff *skb, bool is_fabric)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	unsigned int hdrs = ETH_HLEN + (is_fabric ? FABRIC_HDR_LEN : 0);

	if (!(sh->gso_type & SKB_GSO_DODGY))
		return true;
	if (sh->gso_segs)
		return sh->gso_segs <= VCSW_GSO_MAX_SEGS;
	if (skb->len <= hdrs)
		return true;	/* segmentation will refuse it: malformed */
	return DIV_ROUND_UP(skb->len - hdrs, sh->gso_size) <= VCSW_GSO_MAX_SEGS;
}

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
			 struct vcsw_slave *routed, const struct vcsw_fwd *fw,
			 u64 now, struct fcr_charge *c)
{
	struct vcsw_slave *out = routed, *p, *last = NULL;

	if (!out && !is_multicast_ether_addr(dst)) {
		struct vcsw_fdb *f = vcsw_fdb_find_rcu(sw, dst);

		if (f && !vcsw_fdb_expired(sw, f, jiffies))
			out = READ_ONCE(f->port);
	}
	if (out && out != in && c->gen) {
		vcsw_input_one(in, out, skb, fw, now, c);
		return;
	}
	vcsw_credit_release(in, c);
	if (out) {
		if (unlikely(out == in)) {
			vcsw_count(in, VCSW_PS_DROP_LOOP);
			consume_skb(skb);
			return;
		}
		vcsw_forward_one(out, skb, fw, now);
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
				vcsw_forward_one(last, c, fw, now);
			}
		}
		last = p;
	}
	if (last) {
		vcsw_count(last, VCSW_PS_FLOODED);
		vcsw_forward_one(last, skb, fw, now);
		return;
	}
	/* no other port is up: the frame has nowhere to go, as with flood off */
	vcsw_count(in, VCSW_PS_DROP_UNROUTED);
	kfree_skb(skb);
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

/*
 * One frame as it would be on the wire, skb->data past its Ethernet
 * header (at the fabric header of a fabric frame): counted, checked,
 * given its deadline and VC (trust, policing), its source learned, then
 * delivered (vcsw_deliver()).  A frame counted in @in's credits (@ch)
 * gives them back wherever it ends.
 */
static __always_inline void vcsw_rx_one(struct vcsw *sw, struct vcsw_slave *in,
					struct sk_buff *skb, bool is_fabric,
					u64 now, struct fcr_charge *ch)
{
	u8 dst[ETH_ALEN] __aligned(2), src[ETH_ALEN] __aligned(2);
	struct vcsw_slave *routed = NULL;
	bool timed = false, rewrite = false;
	struct vcsw_fwd fw = { 0 };
	struct fhc_fields f;
	u8 vc = FABRIC_VC_BESTEFFORT;

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

	fw.deadline = now;
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
			/* RECN reads the route as it came: this switch's digit first */
			fw.route = f.route;
			f.route = fhc_route_next(f.route);
			rewrite = true;
			vcsw_count(in, VCSW_PS_RX_ROUTED);
		}
		if (rewrite && unlikely(fabric_hdr_rewrite(skb, 0, &f))) {
			vcsw_count(in, VCSW_PS_DROP_REWRITE);
			goto drop;
		}
		fw.deadline = vcsw_ingress_deadline(now, ttd);
		fw.sl = f.sl;
		timed = true;
	}
	vcsw_fdb_learn(sw, in, src);

	/* transmit from the Ethernet header on */
	skb_push(skb, skb->data - skb_mac_header(skb));
	skb_forward_csum(skb);
	skb_clear_tstamp(skb);

	fw.vc = vc;
	fw.timed = timed;
	vcsw_deliver(sw, in, skb, dst, routed, &fw, now, ch);
	return;

malformed:
	vcsw_count(in, VCSW_PS_DROP_MALFORMED);
drop:
	vcsw_credit_release(in, ch);
	kfree_skb(skb);
}

/* A frame refused whole, before any of it went on: received, and dropped. */
static void vcsw_rx_refuse(struct vcsw_slave *in, struct sk_buff *skb,
			   u32 bytes, enum vcsw_pstat why)
{
	vcsw_count(in, VCSW_PS_RX_PACKETS);
	atomic64_add(bytes, &in->st[VCSW_PS_RX_BYTES]);
	vcsw_count(in, why);
	kfree_skb(skb);
}

/*
 * A GSO frame (veth passes TSO aggregates through; a packet socket or a
 * tap can hand over any) is cut first into the frames the wire would
 * carry, and each of them is then taken as if it had come alone
 * (vcsw_rx_one()): the counters, an untrusted port's policer, the
 * buffer limits and the link rate see real frame sizes.  A policer that
 * charged the whole once would let through free the headers that every
 * segment repeats (with segments of one byte, 55 times vc0_rate), and
 * would never pass a VC0 packet bigger than vc0_burst, however slowly
 * its frames came.  A fabric frame is GSO when a host's edf kept it
 * whole with one header: fabric_hdr.ko's offload cuts it, numbering the
 * segments' headers.  Not on a port with credits (refused before).
 */
static noinline void vcsw_rx_gso(struct vcsw *sw, struct vcsw_slave *in,
				 struct sk_buff *skb, bool is_fabric, u64 now)
{
	u32 bytes = skb->len + ETH_HLEN;
	struct sk_buff *segs, *next;
	struct fhc_fields f;

	/* our offload is given only a header the switch would take */
	if (is_fabric && unlikely(!vcsw_read_header(skb, &f))) {
		vcsw_rx_refuse(in, skb, bytes, VCSW_PS_DROP_MALFORMED);
		return;
	}
	skb_push(skb, skb->data - skb_mac_header(skb));
	if (unlikely(!vcsw_gso_segs_ok(skb, is_fabric))) {
		vcsw_rx_refuse(in, skb, bytes, VCSW_PS_DROP_GSO);
		return;
	}
	/*
	 * A frame that cannot be segmented (a type no GSO handler knows, a
	 * bad offload from a packet socket) is malformed.
	 */
	segs = skb_gso_segment(skb, 0);
	if (IS_ERR_OR_NULL(segs)) {
		vcsw_rx_refuse(in, skb, bytes, PTR_ERR(segs) == -ENOMEM ?
			       VCSW_PS_DROP_NOMEM : VCSW_PS_DROP_MALFORMED);
		return;
	}
	consume_skb(skb);
	/* each segment starts at its Ethernet header, which it has whole */
	skb_list_walk_safe(segs, skb, next) {
		struct fcr_charge none = { 0 };

		skb_mark_not_on_list(skb);
		skb_reset_mac_header(skb);
		__skb_pull(skb, ETH_HLEN);
		vcsw_rx_one(sw, in, skb, is_fabric, now, &none);
	}
}

rx_handler_result_t vcsw_handle_frame(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct fcr_charge ch = { 0 };
	struct vcsw_slave *in;
	struct vcsw *sw;
	bool is_fabric;
	u64 now;

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
		if (pskb_may_pull(skb, min_t(u32, skb->len, FABRIC_HDR_LEN + 1)) &&
		    skb->len > FABRIC_HDR_LEN && skb->data[FABRIC_HDR_LEN] == FABRIC_CTRL_RECN)
			vcsw_recn_rcv(in, skb);
		else
			vcsw_link_msg(in, skb);
		return RX_HANDLER_CONSUMED;
	}
	now = ktime_get_ns();
	/*
	 * On a credit link every data frame is counted at once, on the VC
	 * its sender counted it on (the header's, best effort without
	 * one), and gives its credits back wherever it ends: in the input
	 * buffer, forwarded, or dropped in vcsw_rx_one().
	 */
	if (READ_ONCE(in->credits)) {
		u8 cvc = FABRIC_VC_BESTEFFORT;

		/*
		 * An end that speaks credits segments first (its qdisc
		 * does): a GSO frame would take the room of one frame and
		 * go on as several, outside the books and the input buffer
		 */
		if (unlikely(skb_is_gso(skb))) {
			vcsw_count(in, VCSW_PS_DROP_GSO);
			kfree_skb(skb);
			return RX_HANDLER_CONSUMED;
		}
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
	if (unlikely(skb_is_gso(skb)))
		vcsw_rx_gso(sw, in, skb, is_fabric, now);
	else
		vcsw_rx_one(sw, in, skb, is_fabric, now, &ch);
	return RX_HANDLER_CONSUMED;
}
