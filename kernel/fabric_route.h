/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A host's source routes, per namespace, device and destination
 * (fabric_route.c, part of fabric_hdr.ko).
 */
#ifndef _FABRIC_ROUTE_H
#define _FABRIC_ROUTE_H

#include <linux/netdevice.h>
#include <net/genetlink.h>

/* Routes a namespace may hold: 64 bytes each, 1 MiB at most. */
#define FABRIC_ROUTE_MAX	16384

u32 fabric_route_find(const struct net_device *dev, const u8 *dst);
void fabric_route_dev_gone(struct net_device *dev);

int fabric_route_genl_new(struct sk_buff *skb, struct genl_info *info);
int fabric_route_genl_del(struct sk_buff *skb, struct genl_info *info);
int fabric_route_genl_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct genl_family *family);

int fabric_route_init(void);
void fabric_route_exit(void);

#endif /* _FABRIC_ROUTE_H */
