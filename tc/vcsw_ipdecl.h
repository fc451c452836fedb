/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little of the stock ip's plugin ABI (iproute2 6.1, Debian bookworm)
 * that link_vcsw.so and link_vcsw_slave.so use, declared here because
 * iproute2 installs no headers: struct link_util (ip/ip_common.h), the
 * print helpers (include/json_print.h, color.h) and the parsers ip
 * exports (nm -D --defined-only /sbin/ip).  ip does not export
 * get_rate64() or get_size(), so rates and sizes are parsed here.
 */
#ifndef VCSW_IPDECL_H
#define VCSW_IPDECL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

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

enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

enum color_attr {
	COLOR_IFNAME,
	COLOR_MAC,
	COLOR_INET,
	COLOR_INET6,
	COLOR_OPERSTATE_UP,
	COLOR_OPERSTATE_DOWN,
	COLOR_NONE
};

/* ip's request buffer: struct iplink_req holds 1024 bytes of attributes */
#define VCSW_MSG_MAX	1024

int addattr8(struct nlmsghdr *n, int maxlen, int type, __u8 data);
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data);
int addattr64(struct nlmsghdr *n, int maxlen, int type, __u64 data);
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
int get_u32(__u32 *val, const char *arg, int base);
int ll_addr_a2n(char *lladdr, int len, const char *arg);
int matches(const char *prefix, const char *string);

void open_json_object(const char *str);
void close_json_object(void);
void open_json_array(enum output_type type, const char *str);
void close_json_array(enum output_type type, const char *str);
int print_color_uint(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, unsigned int value);
int print_color_u64(enum output_type t, enum color_attr color,
		    const char *key, const char *fmt, uint64_t value);
int print_color_string(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, const char *value);

/* The payload of an attribute of a parsed table, or NULL. */
static inline const void *vcsw_rta_data(struct rtattr *rta, size_t len)
{
	if (!rta || RTA_PAYLOAD(rta) < len)
		return NULL;
	return RTA_DATA(rta);
}

#endif
