/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Talking to the fabric_hdr module's generic netlink family (libmnl):
 * open a socket, find the family, send a request and run a callback on
 * each reply, with the kernel's extack message kept for the error.
 * Shared by fabric-stat and fabric-route.
 */
#ifndef FQ_FABRIC_GENL_H
#define FQ_FABRIC_GENL_H

#include <stdint.h>

#include <libmnl/libmnl.h>

/* Kernel dumps fill up to about 32 KiB per read; a smaller buffer truncates. */
#define FG_BUF_SIZE	32768

struct fg_sock {
	struct mnl_socket	*nl;
	const char		*prog;		/* for messages */
	unsigned int		portid;
	unsigned int		seq;
	uint16_t		family;		/* fabric_hdr's, once found */
	int			err;		/* errno from an NLMSG_ERROR */
	char			errmsg[256];	/* its extack message, if any */
	void			*priv;		/* for the data callback */
};

/*
 * Open a generic netlink socket and find the fabric_hdr family; on
 * failure say why on stderr (as @prog) and return -1.
 */
int fg_open(struct fg_sock *s, const char *prog);
void fg_close(struct fg_sock *s);

/* A request of @cmd to the family (or, @type GENL_ID_CTRL, to the controller). */
struct nlmsghdr *fg_msg(struct fg_sock *s, char *buf, uint16_t type,
			uint16_t flags, uint8_t cmd, uint8_t version);

/*
 * Send @nlh and feed the replies to @cb, which gets @s (libmnl hands the
 * same cookie to the error callback) with @priv in s->priv.
 * Return 0, or -1 with s->err (and s->errmsg, if the kernel said) set;
 * EINTR: a dump that the kernel marked interrupted (what it dumped
 * changed meanwhile), read to its end: dump again.
 */
int fg_talk(struct fg_sock *s, struct nlmsghdr *nlh, mnl_cb_t cb, void *priv);

/* "extack message - strerror" or "strerror" of the last failed request. */
const char *fg_strerror(struct fg_sock *s);

#endif /* FQ_FABRIC_GENL_H */
