/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little of the stock ip's plugin ABI (iproute2 6.1, Debian bookworm)
 * that link_vcsw.so and link_vcsw_slave.so use, declared here because
 * iproute2 installs no headers: struct link_util (ip/ip_common.h) and
 * two parsers ip exports (nm -D --defined-only /sbin/ip); the netlink and
 * print helpers our tc plugins use too are in iproute2_lib.h.  ip does
 * not export get_rate64() or get_size(), so rates and sizes are parsed
 * here.
 */
#ifndef VCSW_IPDECL_H
#define VCSW_IPDECL_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "iproute2_lib.h"

struct link_util {
	struct link_util *next;
	const char *id;
	int maxattr;
	int (*parse_opt)(struct link_util *lu, int argc, char **argv,
			 struct nlmsghdr *n);
	void (*print_opt)(struct link_util *lu, FILE *f, struct rtattr *tb[]);
	void (*print_xstats)(struct link_util *lu, FILE *f, struct rtattr *xstats);
	void (*print_help)(struct link_util *lu, int argc, char **argv, FILE *f);
	int (*parse_ifla_xstats)(struct link_util *lu, int argc, char **argv);
	int (*print_ifla_xstats)(struct nlmsghdr *n, void *arg);
};

/* ip's request buffer: struct iplink_req holds 1024 bytes of attributes */
#define VCSW_MSG_MAX	1024

int ll_addr_a2n(char *lladdr, int len, const char *arg);
int matches(const char *prefix, const char *string);

/* The payload of an attribute of a parsed table, or NULL. */
static inline const void *vcsw_rta_data(struct rtattr *rta, size_t len)
{
	if (!rta || RTA_PAYLOAD(rta) < len)
		return NULL;
	return RTA_DATA(rta);
}

/* "KEY N " in text, "KEY": N in JSON. */
static inline void vcsw_print_u64(const char *key, uint64_t v)
{
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "%s %%" PRIu64 " ", key);
	print_color_u64(PRINT_ANY, COLOR_NONE, key, fmt, v);
}

#endif
