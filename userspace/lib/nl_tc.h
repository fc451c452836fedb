/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl_tc.h: the header of an rtnetlink traffic control request, as tc
 * builds one, for the tools and test helpers that send their own
 * (fbs-boot, selftests/vm/dtable-raw-table and tc-fuzz).  Header only,
 * static inline: a test helper needs no library object for it.
 */
#ifndef FQ_NL_TC_H
#define FQ_NL_TC_H

#include <stdint.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

/*
 * Start request @type (RTM_NEWQDISC, RTM_DELTCLASS, ...) in @buf for the
 * qdisc or class @handle under @parent of device @ifindex.  It asks for
 * an acknowledgement (NLM_F_ACK) besides @flags; TCA_KIND, TCA_OPTIONS
 * and the sequence number are the caller's.
 */
static inline struct nlmsghdr *nl_tc_request(void *buf, uint16_t type, uint16_t flags,
					     int ifindex, uint32_t handle, uint32_t parent)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *t;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	t->tcm_handle = handle;
	t->tcm_parent = parent;
	return nlh;
}

#endif
