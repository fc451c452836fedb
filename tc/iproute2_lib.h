/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of iproute2 6.1's private ABI that the stock tc and ip share:
 * both binaries are built on the same lib/ (libnetlink, utils, json_print,
 * color) and export these helpers, so our tc plugins (tc_abi.h) and ip
 * plugins (vcsw_ipdecl.h) declare them once, here.
 *
 * iproute2 installs no headers, hence our own declarations; they must
 * match 6.1 exactly, because the plugins resolve these symbols against
 * the running binary.  Add a prototype only if "nm -D --defined-only"
 * lists it in both /usr/sbin/tc and /usr/sbin/ip; what only one of them
 * exports belongs in that binary's header.
 */
#ifndef FQ_IPROUTE2_LIB_H
#define FQ_IPROUTE2_LIB_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* json_print.h: PRINT_ANY is 4, not PRINT_FP | PRINT_JSON. */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

/* color.h: COLOR_NONE is the last entry, not 0. */
enum color_attr {
	COLOR_IFNAME,
	COLOR_MAC,
	COLOR_INET,
	COLOR_INET6,
	COLOR_OPERSTATE_UP,
	COLOR_OPERSTATE_DOWN,
	COLOR_NONE
};

/* libnetlink.h */
int addattr8(struct nlmsghdr *n, int maxlen, int type, __u8 data);
int addattr16(struct nlmsghdr *n, int maxlen, int type, __u16 data);
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data);
int addattr64(struct nlmsghdr *n, int maxlen, int type, __u64 data);
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int parse_rtattr_flags(struct rtattr *tb[], int max, struct rtattr *rta,
		       int len, unsigned short flags);

/* utils.h: sprint_time64() fills a buffer of SPRINT_BSIZE bytes. */
#define SPRINT_BSIZE	64

int get_u32(__u32 *val, const char *arg, int base);
/* tc only (tc_util.c): bytes, with k, m, g (KiB...), kbit... suffixes */
int get_size(unsigned int *size, const char *str);
int get_time64(__s64 *time, const char *str);
char *sprint_time64(__s64 time, char *buf);

/*
 * json_print.h.  print_uint(), print_string() and the like are static
 * inline there, so neither binary exports them: call print_color_*()
 * with COLOR_NONE instead.
 */
void open_json_object(const char *str);
void close_json_object(void);
void open_json_array(enum output_type type, const char *str);
void close_json_array(enum output_type type, const char *str);
void print_nl(void);
int print_color_uint(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, unsigned int value);
int print_color_int(enum output_type t, enum color_attr color,
		    const char *key, const char *fmt, int value);
int print_color_u64(enum output_type t, enum color_attr color,
		    const char *key, const char *fmt, uint64_t value);
int print_color_string(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, const char *value);
int print_color_bool(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, bool value);
int print_color_on_off(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, bool value);

#endif
