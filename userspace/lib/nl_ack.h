/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's answer to a netlink request that asked for an ack
 * (NLM_F_ACK): an NLMSG_ERROR message with the error, 0 for success, and
 * with NETLINK_EXT_ACK set on the socket the extack message that says
 * why.  Shared by the tools that talk rtnetlink or generic netlink with
 * libmnl, so that each prints the kernel's reason, not only strerror.
 */
#ifndef FQ_NL_ACK_H
#define FQ_NL_ACK_H

#include <stddef.h>

#include <libmnl/libmnl.h>

/*
 * The errno an NLMSG_ERROR message @nlh carries (0: an ack), and its
 * extack message in @msg (@len bytes), "" when the kernel gave none.
 * -1 when @nlh is too short to be one.
 */
int nl_ack_error(const struct nlmsghdr *nlh, char *msg, size_t len);

/*
 * Send request @nlh, which asked for an ack, on a NETLINK_ROUTE socket of
 * its own that asks for extended acks, and wait for the answer.  The
 * errno the kernel answered (0: done) with its extack message in @msg
 * (@len bytes, "" when none), as nl_ack_error(); -1 with errno set when
 * no answer came (EBADMSG: something other than an ack did).
 */
int nl_route_ask(const struct nlmsghdr *nlh, char *msg, size_t len);

#endif
