/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_credits.h	"credits on|off" and "credit_unit BYTES", the options every
 * one of our qdiscs takes to send only with its link's credits
 * (Documentation/credits.rst), and the statistics they print under
 * "credits:" (struct tc_fabric_credit_xstats).  Static inline, as
 * tc_parse.h, so each plugin stays one .so.
 */
#ifndef FABRIC_QOS_TC_CREDITS_H
#define FABRIC_QOS_TC_CREDITS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/fabric_hdr.h>

#include "tc_parse.h"

#define TC_CREDITS_USAGE \
	"  credits      send only what the link's credits allow (off)\n" \
	"  credit_unit  bytes per credit, as the switch port counts (64)\n"

struct tc_credits_opt {
	bool	has_on, has_unit;
	__u8	on;
	__u32	unit;
};

/*
 * If @key is "credits" or "credit_unit", take it and its value (argv
 * left at the value, as the plugins' loops expect): 1, or -1 for a bad or
 * repeated one.  0: not ours.
 */
static inline int tc_credits_parse(const char *kind, struct tc_credits_opt *o,
				   const char *key, int *argc, char ***argv)
{
	char *end;
	unsigned long v;
	int on;

	if (strcmp(key, "credits") == 0) {
		if (o->has_on) {
			fprintf(stderr, "%s: \"%s\" is given twice\n", kind, key);
			return -1;
		}
		if (tc_opt_next_arg(argc, argv))
			return -1;
		on = tc_opt_on_off(key, **argv);
		if (on < 0)
			return -1;
		o->on = on;
		o->has_on = true;
		return 1;
	}
	if (strcmp(key, "credit_unit") == 0) {
		if (o->has_unit) {
			fprintf(stderr, "%s: \"%s\" is given twice\n", kind, key);
			return -1;
		}
		if (tc_opt_next_arg(argc, argv))
			return -1;
		if (!isdigit((unsigned char)(**argv)[0]))
			return tc_opt_illegal(key);
		v = strtoul(**argv, &end, 10);
		if (*end || v < 1 || v > 65535) {
			fprintf(stderr, "%s: credit_unit is 1 to 65535 bytes\n", kind);
			return -1;
		}
		o->unit = v;
		o->has_unit = true;
		return 1;
	}
	return 0;
}

static inline int tc_credits_put(struct nlmsghdr *n,
				 const struct tc_credits_opt *o,
				 int attr_on, int attr_unit)
{
	if (o->has_on && addattr8(n, TCA_BUF_MAX, attr_on, o->on))
		return -1;
	if (o->has_unit && addattr32(n, TCA_BUF_MAX, attr_unit, o->unit))
		return -1;
	return 0;
}

/* "credits on unit 64 " or nothing; JSON "credits": true, "credit_unit". */
static inline void tc_credits_print_opt(const struct rtattr *on,
					const struct rtattr *unit)
{
	__u32 u = 0;
	__u8 v = 0;

	if (!on || RTA_PAYLOAD(on) < sizeof(v))
		return;
	memcpy(&v, RTA_DATA(on), sizeof(v));
	print_color_bool(PRINT_JSON, COLOR_NONE, "credits", NULL, v);
	if (!v)
		return;
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "credits on ", NULL);
	if (unit && RTA_PAYLOAD(unit) >= sizeof(u)) {
		memcpy(&u, RTA_DATA(unit), sizeof(u));
		print_color_uint(PRINT_ANY, COLOR_NONE, "credit_unit",
				 "credit_unit %u ", u);
	}
}

/* " LABEL vc0 N vc1 N ...", and in JSON an array KEY, of @n VCs' @v. */
static inline void tc_credits_print_vcs(const char *key, const char *label,
					const __u64 *v, unsigned int n)
{
	char fmt[16];
	unsigned int vc;

	print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s", label);
	open_json_array(PRINT_JSON, key);
	for (vc = 0; vc < n; vc++) {
		snprintf(fmt, sizeof(fmt), " vc%u %%" PRIu64, vc);
		print_color_u64(PRINT_ANY, COLOR_NONE, NULL, fmt, v[vc]);
	}
	close_json_array(PRINT_JSON, NULL);
}

static inline void tc_credits_print_counter(const char *key, __u64 v)
{
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s ", key);
	print_color_u64(PRINT_ANY, COLOR_NONE, key, "%" PRIu64, v);
}

/*
 * A line " credits: ..." and a JSON object "credits", when on (a kernel
 * whose statistics end before them, or credits off, prints nothing); a
 * link of @vcs VCs (2 to 4) has VC2's and VC3's figures in @tx_hi and
 * @stalls_hi (tc_fabric_credit_xstats holds two).
 */
static inline void tc_credits_print_xstats_vcs(const struct tc_fabric_credit_xstats *st,
					       unsigned int vcs, const __u32 *tx_hi,
					       const __u64 *stalls_hi)
{
	__u64 tx[4], stalls[4];
	unsigned int vc;

	if (!st->unit)
		return;
	if (vcs < 2 || vcs > 4)
		vcs = 2;
	for (vc = 0; vc < vcs; vc++) {
		tx[vc] = vc < 2 ? st->tx_credits[vc] : tx_hi[vc - 2];
		stalls[vc] = vc < 2 ? st->stalls[vc] : stalls_hi[vc - 2];
	}
	print_nl();
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " credits:", NULL);
	open_json_object("credits");
	print_color_uint(PRINT_ANY, COLOR_NONE, "unit", " unit %u", st->unit);
	tc_credits_print_vcs("tx_credits", "tx_credits", tx, vcs);
	tc_credits_print_vcs("stalls", "stalls", stalls, vcs);
	tc_credits_print_counter("msgs_sent", st->msgs_sent);
	tc_credits_print_counter("msgs_received", st->msgs_received);
	tc_credits_print_counter("msgs_refused", st->msgs_refused);
	tc_credits_print_counter("msgs_tx_fail", st->msgs_tx_fail);
	tc_credits_print_counter("peer_epochs", st->peer_epochs);
	tc_credits_print_counter("restarts", st->restarts);
	tc_credits_print_counter("peer_silent_ms", st->peer_silent_ms);
	close_json_object();
}

static inline void tc_credits_print_xstats(const struct tc_fabric_credit_xstats *st)
{
	tc_credits_print_xstats_vcs(st, 2, NULL, NULL);
}

#endif
