/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What our tc plugins (q_*.c) need of the stock tc of iproute2 6.1, as
 * Debian bookworm ships it.
 *
 * tc finds a plugin by dlopen()ing $TC_LIB_DIR/q_<kind>.so and looking up
 * the symbol <kind>_qdisc_util, a struct qdisc_util it then calls into.
 * Nothing of this is a public API: iproute2 installs no headers, so the
 * struct and the helpers we call are declared here, as 6.1 has them in
 * tc/tc_util.h, include/utils.h, libnetlink.h, json_print.h and color.h.
 * A mismatch does not fail the build, it breaks at run time, which is why
 * the plugins share one copy instead of each keeping its own.
 *
 * tc is linked with -rdynamic, so a loaded plugin resolves these helpers
 * against the tc binary itself.  Only symbols that
 * "nm -D --defined-only /usr/sbin/tc" lists may be used: tc dlopen()s
 * with RTLD_LAZY, so a call to anything else builds and loads fine and
 * then kills tc with a symbol lookup error.  In particular print_uint(),
 * print_string() and friends are static inline in tc and exported by no
 * one: we call the print_color_*() functions under them, with COLOR_NONE.
 *
 * The helpers ip exports as well are in iproute2_lib.h, shared with the
 * ip plugins; this file adds the ones only tc has.
 */
#ifndef FQ_TC_ABI_H
#define FQ_TC_ABI_H

#include <stdbool.h>
#include <stdio.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "iproute2_lib.h"

/* tc/tc_util.h: the table a plugin exports as <kind>_qdisc_util. */
struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/*
 * tc/tc_util.h: "tc qdisc" requests leave TCA_BUF_MAX (64 KiB) for
 * attributes; "tc class" requests (tc_class.c) only 4 KiB.  These are
 * the maxlen our qdisc and class parsers give addattr*(), so an option
 * that does not fit is refused rather than written past the buffer.
 */
#define TCA_BUF_MAX	(64 * 1024)
#define TC_CLASS_BUF_MAX	4096

/* Helpers tc exports and ip does not. */
int get_rate64(__u64 *rate, const char *str);
int get_percent_rate64(__u64 *rate, const char *str, const char *dev);
void tc_print_rate(enum output_type t, const char *key, const char *fmt,
		   unsigned long long rate);

/* tc.c: the count of -d (-details) options given */
extern int show_details;

#endif
