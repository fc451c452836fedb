/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue a GSO packet as its wire segments, for the qdiscs that must see
 * wire frames: edf's frame classes (a deadline per packet), aoq (a frame
 * per opportunity), edf with ttd on a device that would cut the segments
 * in hardware, and any of ours on a credit link, which counts wire
 * frames (Documentation/credits.rst, Hosts).
 */
#ifndef _FQ_QDISC_GSO_H
#define _FQ_QDISC_GSO_H

#include <linux/skbuff.h>
#include <net/sch_generic.h>

#include "include/uapi/linux/fabric_hdr.h"

/*
 * Queue one segment @seg of @parts; @flags: FABRIC_HDR_F_HEAD on the
 * first, FABRIC_HDR_F_TAIL on the last.  Returns NET_XMIT_*.
 */
typedef int (*fq_segment_enqueue_t)(struct sk_buff *seg, struct Qdisc *sch,
				    void *ctx, u32 parts, u8 flags,
				    struct sk_buff **to_free);

/*
 * Queue @segs, the segments of @skb (from skb_gso_segment()), through
 * @one, and consume @skb.  The parents counted one packet of @skb's
 * length: they are told what was queued instead.
 *
 * When no segment was queued, the answer is NET_XMIT_CN if a child took
 * any of them under congestion (fq_codel dropping older packets of the
 * same flow in exchange): they were not lost, so the sender (TCP) must
 * not take the data as unsent.  Otherwise NET_XMIT_DROP if any segment
 * was dropped; if a filter shot or took (stole) them all, what the kernel
 * answers for such a packet, which the root turns into success for the
 * sender: shot before stolen, as shot ones count as drops.
 */
static inline int fq_enqueue_segments(struct sk_buff *skb, struct sk_buff *segs,
				      struct Qdisc *sch, fq_segment_enqueue_t one,
				      void *ctx, struct sk_buff **to_free)
{
	unsigned int prev_len = qdisc_pkt_len(skb), len = 0, seg_len;
	struct sk_buff *seg, *next;
	u32 parts = 0, queued = 0;
	bool congested = false, dropped = false, shot = false;
	int ret;

	skb_list_walk_safe(segs, seg, next)
		parts++;
	skb_list_walk_safe(segs, seg, next) {
		u8 flags = 0;

		skb_mark_not_on_list(seg);
		if (seg == segs)
			flags |= FABRIC_HDR_F_HEAD;
		if (!next)
			flags |= FABRIC_HDR_F_TAIL;
		seg_len = seg->len;
		qdisc_skb_cb(seg)->pkt_len = seg_len;
		ret = one(seg, sch, ctx, parts, flags, to_free);
		if (ret == NET_XMIT_SUCCESS) {
			queued++;
			len += seg_len;
		} else if ((ret & NET_XMIT_MASK) == NET_XMIT_CN) {
			congested = true;
		} else if ((ret & NET_XMIT_MASK) != NET_XMIT_SUCCESS) {
			dropped = true;
		} else if (ret & __NET_XMIT_BYPASS) {
			shot = true;
		}
	}
	consume_skb(skb);
	if (queued) {
		qdisc_tree_reduce_backlog(sch, 1 - (int)queued, prev_len - len);
		return NET_XMIT_SUCCESS;
	}
	if (congested)
		return NET_XMIT_CN;
	if (dropped)
		return NET_XMIT_DROP;
	return NET_XMIT_SUCCESS | (shot ? __NET_XMIT_BYPASS : __NET_XMIT_STOLEN);
}

#endif /* _FQ_QDISC_GSO_H */
