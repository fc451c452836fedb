// SPDX-License-Identifier: GPL-2.0
/*
 * nl_ack.c: the error and extack message of a netlink ack (nl_ack.h).
 */
#include <errno.h>
#include <stdio.h>

#include <linux/netlink.h>

#include "nl_ack.h"

struct ack_msg {
	char	*buf;
	size_t	len;
};

static int ack_attr_cb(const struct nlattr *attr, void *data)
{
	struct ack_msg *m = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		snprintf(m->buf, m->len, "%s", mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

int nl_ack_error(const struct nlmsghdr *nlh, char *msg, size_t len)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct ack_msg m = { msg, len };
	unsigned int off;

	if (len)
		msg[0] = '\0';
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return -1;
	if (e->error && len && (nlh->nlmsg_flags & NLM_F_ACK_TLVS)) {
		/* the TLVs follow the echoed request, cut to its header if capped */
		off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(e->msg);
		if (mnl_nlmsg_size(off) <= nlh->nlmsg_len)
			mnl_attr_parse(nlh, off, ack_attr_cb, &m);
	}
	return -e->error;
}

int nl_route_ask(const struct nlmsghdr *nlh, char *msg, size_t len)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	const struct nlmsghdr *ack = (const struct nlmsghdr *)buf;
	struct mnl_socket *nl;
	int one = 1, ret = -1, saved;
	ssize_t n;

	if (len)
		msg[0] = '\0';
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -1;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto out;
	/* without it the kernel keeps its reason to itself */
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		goto out;
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0)
		goto out;
	if (!mnl_nlmsg_ok(ack, (int)n) || ack->nlmsg_type != NLMSG_ERROR) {
		errno = EBADMSG;
		goto out;
	}
	ret = nl_ack_error(ack, msg, len);
	if (ret < 0) {
		ret = -1;
		errno = EBADMSG;
	}
out:
	saved = errno;
	mnl_socket_close(nl);
	errno = saved;
	return ret;
}
