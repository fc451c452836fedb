/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-internal API of fabric_hdr.ko, for the qdiscs and the soft switch
 * that push, read and rewrite the fabric header.  The wire format is in
 * include/uapi/linux/fabric_hdr.h, the field encoding in
 * core/fabric_hdr_core.h.
 *
 * Offsets are relative to skb->data: ETH_HLEN on the transmit side (data at
 * the Ethernet header), 0 on the receive side (data past the Ethernet
 * header, as a packet_type handler or rx_handler sees it).
 */
#ifndef _FABRIC_HDR_H
#define _FABRIC_HDR_H

#include <linux/skbuff.h>

#include "core/fabric_hdr_core.h"

int fabric_hdr_make_room(struct sk_buff *skb);
int fabric_hdr_push(struct sk_buff *skb, const struct fhc_fields *f);
struct fabric_hdr *fabric_hdr_get(struct sk_buff *skb, unsigned int offset);
int fabric_hdr_read(const struct sk_buff *skb, unsigned int offset,
		    struct fhc_fields *f);
int fabric_hdr_set_ttd(struct sk_buff *skb, unsigned int offset, s64 ttd_ns);
int fabric_hdr_rewrite(struct sk_buff *skb, unsigned int offset,
		       const struct fhc_fields *f);
int fabric_hdr_pull(struct sk_buff *skb);
bool fabric_hdr_gso_whole_ok(const struct net_device *dev,
			     const struct sk_buff *skb);

/* fabric_hdr_gso.c, for fabric_hdr_main.c */
void fabric_gso_init(void);
void fabric_gso_exit(void);

#endif /* _FABRIC_HDR_H */
