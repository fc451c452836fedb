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

#include <errno.h>
#include <inttypes.h>
#include <math.h>
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

/* "1gbit", "100mbit", "125000000bps", "0": bytes per second. */
static inline int vcsw_parse_rate(uint64_t *bytes, const char *s)
{
	static const struct { const char *u; double mul; } units[] = {
		{ "bit", 1 / 8.0 }, { "kbit", 1e3 / 8 }, { "mbit", 1e6 / 8 },
		{ "gbit", 1e9 / 8 }, { "bps", 1 }, { "kbps", 1e3 },
		{ "mbps", 1e6 }, { "gbps", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	if (!*end) {
		if (v != 0)
			return -1;	/* a rate needs its unit, except 0 */
		*bytes = 0;
		return 0;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(end, units[i].u)) {
			v *= units[i].mul;
			if (v > 1e19)
				return -1;
			*bytes = (uint64_t)(v + 0.5);
			return 0;
		}
	return -1;
}

/* "65536", "64k", "1m": bytes, decimal, at most 32 bits. */
static inline int vcsw_parse_size(uint32_t *bytes, const char *s)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-' || *s == '+')
		return -1;
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	if ((*end == 'b' || *end == 'B') && !end[1])
		end++;
	/* checked before the shift: "18014398509482048k" is 2^64 + 64k */
	if (*end || v > (0xffffffffULL >> shift))
		return -1;
	*bytes = (uint32_t)(v << shift);
	return 0;
}

/* A rate in bytes/s: JSON as is, text as ip would write it. */
static inline void vcsw_print_rate(const char *key, uint64_t rate)
{
	char buf[64], fmt[32];

	print_color_u64(PRINT_JSON, COLOR_NONE, key, NULL, rate);
	if (!rate)
		snprintf(buf, sizeof(buf), "0");
	else if (rate * 8 % 1000000000 == 0)
		snprintf(buf, sizeof(buf), "%" PRIu64 "gbit", (uint64_t)(rate * 8 / 1000000000));
	else if (rate * 8 % 1000000 == 0)
		snprintf(buf, sizeof(buf), "%" PRIu64 "mbit", (uint64_t)(rate * 8 / 1000000));
	else if (rate * 8 % 1000 == 0)
		snprintf(buf, sizeof(buf), "%" PRIu64 "kbit", (uint64_t)(rate * 8 / 1000));
	else
		snprintf(buf, sizeof(buf), "%" PRIu64 "bps", rate);
	snprintf(fmt, sizeof(fmt), "%s %%s ", key);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, buf);
}

/* "KEY N " in text, "KEY": N in JSON. */
static inline void vcsw_print_u64(const char *key, uint64_t v)
{
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "%s %%" PRIu64 " ", key);
	print_color_u64(PRINT_ANY, COLOR_NONE, key, fmt, v);
}

/* "20us", "-1ms", "0": nanoseconds, signed, within 32 bits. */
static inline int vcsw_parse_ttd(int32_t *ns, const char *s)
{
	static const struct { const char *u; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	/* strtod() takes "nan", which no range check below would refuse */
	if (errno || end == s || !isfinite(v))
		return -1;
	for (i = 0; *end && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].u))
			break;
	if (*end) {
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		v *= units[i].mul;
	}
	if (v < -2147483648.0 || v > 2147483647.0)
		return -1;
	*ns = (int32_t)(v < 0 ? v - 0.5 : v + 0.5);
	return 0;
}

/*
 * TIME as ip's get_time64() reads it ("200us", "1.5ms", "2s"; a bare
 * number is ns), not negative, within 32 bits.
 */
static inline int vcsw_parse_time(uint32_t *ns, const char *s)
{
	__s64 t;

	/* get_time64() takes a sign, "inf" and "nan": want a number */
	if (!((*s >= '0' && *s <= '9') || *s == '.'))
		return -1;
	/* too large a value comes back negative from get_time64() */
	if (get_time64(&t, s) || t < 0 || t > UINT32_MAX)
		return -1;
	*ns = (uint32_t)t;
	return 0;
}

/*
 * Which VC an option names: @name itself ("buffer") is every VC, -1;
 * "vcN_" @name is VC N (0 .. 3); anything else -2.
 */
static inline int vcsw_vc_option(const char *arg, const char *name)
{
	if (!strcmp(arg, name))
		return -1;
	if (!strncmp(arg, "vc", 2) && arg[2] >= '0' && arg[2] <= '3' &&
	    arg[3] == '_' && !strcmp(arg + 4, name))
		return arg[2] - '0';
	return -2;
}

#endif

