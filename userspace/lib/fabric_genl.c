// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_genl.c: the fabric_hdr generic netlink family from userspace
 * (fabric_genl.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/fabric_hdr.h>

#include "fabric_genl.h"
#include "nl_ack.h"

static int fg_error_cb(const struct nlmsghdr *nlh, void *data)
{
	struct fg_sock *s = data;
	int err = nl_ack_error(nlh, s->errmsg, sizeof(s->errmsg));

	if (err < 0) {
		s->err = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!err)
		return MNL_CB_STOP;
	s->err = err;
	return MNL_CB_ERROR;
}

/* A dump ends with NLMSG_DONE, which carries the dump's error, if any. */
static int fg_done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct fg_sock *s = data;
	int err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(err))
		return MNL_CB_STOP;
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (!err)
		return MNL_CB_STOP;
	s->err = err < 0 ? -err : err;
	return MNL_CB_ERROR;
}

static int fg_socket(struct fg_sock *s, const char *prog)
{
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->prog = prog;
	s->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!s->nl) {
		fprintf(stderr, "%s: netlink socket: %s\n", s->prog, strerror(errno));
		return -1;
	}
	if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		fprintf(stderr, "%s: netlink bind: %s\n", s->prog, strerror(errno));
		mnl_socket_close(s->nl);
		return -1;
	}
	/* both only improve error reports; older kernels lack them */
	mnl_socket_setsockopt(s->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	s->portid = mnl_socket_get_portid(s->nl);
	s->seq = (unsigned int)time(NULL);
	return 0;
}

struct nlmsghdr *fg_msg(struct fg_sock *s, char *buf, uint16_t type,
			       uint16_t flags, uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++s->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

/* Whether @buf's @n bytes end the reply to @seq (its DONE or error). */
static bool fg_ends(const char *buf, size_t n, unsigned int seq)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	int len = (int)n;

	for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len))
		if (nlh->nlmsg_seq == seq &&
		    (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR))
			return true;
	return false;
}

/*
 * Send @nlh and feed the replies to @cb, which gets @s (libmnl hands the
 * same cookie to the error callback) with @priv in s->priv.
 * Return 0, or -1 with s->err set.  A dump the kernel marked interrupted
 * (NLM_F_DUMP_INTR: what it dumps changed meanwhile, so an entry may be
 * missing or twice) is read to its end, so that the socket can dump
 * again, and fails with EINTR.
 */
int fg_talk(struct fg_sock *s, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *priv)
{
	static char buf[FG_BUF_SIZE];
	/* given an array, libmnl runs no default for the types left NULL */
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR]	= fg_error_cb,
		[NLMSG_DONE]	= fg_done_cb,
	};
	ssize_t n;
	int ret;

	s->err = 0;
	s->errmsg[0] = '\0';
	s->priv = priv;
	if (mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0) {
		s->err = errno;
		return -1;
	}
	do {
		n = mnl_socket_recvfrom(s->nl, buf, sizeof(buf));
		if (n < 0) {
			s->err = errno;
			return -1;
		}
		errno = 0;
		ret = mnl_cb_run2(buf, (size_t)n, nlh->nlmsg_seq, s->portid,
				  cb, s, ctl, NLMSG_MIN_TYPE);
		if (ret == MNL_CB_ERROR && !s->err && errno == EINTR) {
			s->err = EINTR;	/* libmnl: NLM_F_DUMP_INTR */
			while (!fg_ends(buf, (size_t)n, nlh->nlmsg_seq)) {
				n = mnl_socket_recvfrom(s->nl, buf, sizeof(buf));
				if (n < 0)
					break;
			}
		}
		if (ret == MNL_CB_ERROR && !s->err)
			s->err = errno ? errno : EPROTO;
	} while (ret > MNL_CB_STOP);
	return ret == MNL_CB_ERROR ? -1 : 0;
}

/* ---- family lookup -------------------------------------------------------- */

static int fg_family_attr_cb(const struct nlattr *attr, void *data)
{
	uint16_t *id = data;

	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) == 0)
		*id = mnl_attr_get_u16(attr);
	return MNL_CB_OK;
}

static int fg_family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct fg_sock *s = data;

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), fg_family_attr_cb,
		       s->priv);
	return MNL_CB_OK;
}

static int fg_family_id(struct fg_sock *s, uint16_t *id)
{
	char buf[256];
	struct nlmsghdr *nlh;

	nlh = fg_msg(s, buf, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, FABRIC_GENL_NAME);
	*id = 0;
	if (fg_talk(s, nlh, fg_family_cb, id) < 0 && s->err != ENOENT) {
		fprintf(stderr, "%s: resolving generic netlink family %s: %s\n",
			s->prog, FABRIC_GENL_NAME, strerror(s->err));
		return -1;
	}
	if (!*id) {
		fprintf(stderr, "%s: fabric_hdr module not loaded (generic netlink family "
			FABRIC_GENL_NAME " not found)\n", s->prog);
		return -1;
	}
	return 0;
}

int fg_open(struct fg_sock *s, const char *prog)
{
	if (fg_socket(s, prog) < 0)
		return -1;
	if (fg_family_id(s, &s->family) < 0) {
		fg_close(s);
		return -1;
	}
	return 0;
}

void fg_close(struct fg_sock *s)
{
	if (s->nl)
		mnl_socket_close(s->nl);
	s->nl = NULL;
}

const char *fg_strerror(struct fg_sock *s)
{
	static char msg[512];

	if (!s->errmsg[0])
		return strerror(s->err);
	snprintf(msg, sizeof(msg), "%s - %s", s->errmsg, strerror(s->err));
	return msg;
}
