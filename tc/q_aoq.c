// SPDX-License-Identifier: GPL-2.0
/*
 * q_aoq.c	tc plugin for the aoq qdisc (kernel/sch_aoq.c).
 *
 * Turns "tc qdisc ... aoq ..." and "tc class ... aoq ..." into the
 * netlink attributes of uapi/linux/pkt_sched_aoq.h and prints options and
 * statistics back, as plain text or, with "tc -j", as JSON.  Parameters,
 * units, defaults and ranges are in Documentation/aoq.rst in the same
 * words as explain() below.
 *
 * tc's side, iproute2 6.1's plugin ABI, is declared in tc_abi.h.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <linux/pkt_sched_aoq.h>

#include "tc_abi.h"
#include "tc_credits.h"
#include "tc_parse.h"

/* ---- usage ------------------------------------------------------------- */

static void aoq_explain(void)
{
	fprintf(stderr,
		"Usage: ... aoq [ mode { aoq | fbrr | arr | pbrr } ] [ stall TIME ]\n"
		"               [ default MINOR ] [ segment { on | off } ]\n"
		"               [ message_limit FRAMES ] [ credits { on | off } ]\n"
		"               [ credit_unit BYTES ]\n"
		"       class ... aoq [ weight WEIGHT ]\n"
		"qdisc (default in parentheses):\n"
		"  mode           aoq: anchored opportunity queueing; fbrr: frame by frame\n"
		"                 round robin; arr: anchored round robin; pbrr: message by\n"
		"                 message (aoq)\n"
		"  stall          give up a message that made no progress for TIME,\n"
		"                 1ms..60s (100ms)\n"
		"  default        lane of unclassified traffic, 0: drop it (0)\n"
		"  segment        split GSO packets into frames at enqueue (on)\n"
		"  message_limit  a message ends after FRAMES frames even without its tail\n"
		"                 (counted in forced_tails), 1..65535 (256)\n"
		TC_CREDITS_USAGE
		"class (lanes are classes MAJOR:1 .. MAJOR:40, hex):\n"
		"  weight         share of opportunities, 1..256, mode aoq only (1)\n"
		"TIME: 20us, 1.5ms, 2s (bare number: ns).  MINOR: hex, \"3\" or \"1:3\".\n");
}

static const char *const aoq_mode_names[] = {
	[TC_AOQ_MODE_AOQ]	= "aoq",
	[TC_AOQ_MODE_FBRR]	= "fbrr",
	[TC_AOQ_MODE_ARR]	= "arr",
	[TC_AOQ_MODE_PBRR]	= "pbrr",
};

/* ---- parsing ------------------------------------------------------------ */

/* "3", ":3" or "1:3" (hex); a major must be the qdisc's if tc knows it. */
static int aoq_get_minor(__u32 *minor, const char *arg, const struct nlmsghdr *n)
{
	const struct tcmsg *t = NLMSG_DATA(n);
	unsigned long qmajor = TC_H_MAJ(t->tcm_handle) >> 16, maj = 0, min;
	const char *colon = strchr(arg, ':'), *given = arg;
	char *end;

	if (colon) {
		if (colon != arg) {
			maj = strtoul(arg, &end, 16);
			if (end != colon || !isxdigit((unsigned char)arg[0]) ||
			    maj > 0xffff)
				return -1;
		}
		arg = colon + 1;
	}
	if (!isxdigit((unsigned char)arg[0]))
		return -1;
	min = strtoul(arg, &end, 16);
	if (*end || min > 0xffff)
		return -1;
	if (maj && qmajor && maj != qmajor) {
		fprintf(stderr, "aoq: %s is not a class of qdisc %lx:\n", given, qmajor);
		return -1;
	}
	if (maj && !qmajor)
		fprintf(stderr,
			"aoq: no handle given: the major of %s is not checked, lane %lx is taken\n",
			given, min);
	*minor = min;
	return 0;
}

static int aoq_parse_qopt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct tc_credits_opt credits = {};
	unsigned int given = 0;
	__u8 mode = 0, segment = 1;
	int err, v;
	__u32 def = 0, msg_limit = 0;
	__u64 stall = 0;
	struct rtattr *tail;
	unsigned int i;

	while (argc > 0) {
		const char *key = *argv;

		if (strcmp(key, "mode") == 0) {
			if (tc_opt_once("aoq", &given, TCA_AOQ_MODE, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			for (i = 0; i <= TC_AOQ_MODE_MAX; i++)
				if (strcmp(*argv, aoq_mode_names[i]) == 0)
					break;
			if (i > TC_AOQ_MODE_MAX)
				return tc_opt_illegal(key);
			mode = i;
		} else if (strcmp(key, "stall") == 0) {
			if (tc_opt_once("aoq", &given, TCA_AOQ_STALL, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (tc_opt_time(&stall, *argv) ||
			    stall < TC_AOQ_MIN_STALL_NS ||
			    stall > TC_AOQ_MAX_STALL_NS)
				return tc_opt_illegal(key);
		} else if (strcmp(key, "default") == 0) {
			if (tc_opt_once("aoq", &given, TCA_AOQ_DEFAULT, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (aoq_get_minor(&def, *argv, n) ||
			    def > TC_AOQ_MAX_LANES)
				return tc_opt_illegal(key);
		} else if (strcmp(key, "segment") == 0) {
			if (tc_opt_once("aoq", &given, TCA_AOQ_SEGMENT, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			v = tc_opt_on_off(key, *argv);
			if (v < 0)
				return -1;
			segment = v;
		} else if (strcmp(key, "message_limit") == 0) {
			if (tc_opt_once("aoq", &given, TCA_AOQ_MESSAGE_LIMIT, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (get_u32(&msg_limit, *argv, 10) || !msg_limit ||
			    msg_limit > TC_AOQ_MAX_MESSAGE)
				return tc_opt_illegal(key);
		} else if ((err = tc_credits_parse("aoq", &credits, key,
						   &argc, &argv))) {
			if (err < 0)
				return -1;
		} else if (strcmp(key, "help") == 0) {
			aoq_explain();
			return -1;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", key);
			aoq_explain();
			return -1;
		}
		argc--;
		argv++;
	}

	tail = addattr_nest(n, TCA_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if ((given & (1U << TCA_AOQ_MODE)) &&
	    addattr8(n, TCA_BUF_MAX, TCA_AOQ_MODE, mode))
		return -1;
	if ((given & (1U << TCA_AOQ_STALL)) &&
	    addattr64(n, TCA_BUF_MAX, TCA_AOQ_STALL, stall))
		return -1;
	if ((given & (1U << TCA_AOQ_DEFAULT)) &&
	    addattr32(n, TCA_BUF_MAX, TCA_AOQ_DEFAULT, def))
		return -1;
	if ((given & (1U << TCA_AOQ_SEGMENT)) &&
	    addattr8(n, TCA_BUF_MAX, TCA_AOQ_SEGMENT, segment))
		return -1;
	if ((given & (1U << TCA_AOQ_MESSAGE_LIMIT)) &&
	    addattr32(n, TCA_BUF_MAX, TCA_AOQ_MESSAGE_LIMIT, msg_limit))
		return -1;
	if (tc_credits_put(n, &credits, TCA_AOQ_CREDITS, TCA_AOQ_CREDIT_UNIT))
		return -1;
	addattr_nest_end(n, tail);
	return 0;
}

static int aoq_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	unsigned int given = 0;
	struct rtattr *tail;
	__u32 weight = 1;

	while (argc > 0) {
		const char *key = *argv;

		if (strcmp(key, "weight") == 0) {
			if (tc_opt_once("aoq", &given, TCA_AOQ_CLASS_WEIGHT, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (get_u32(&weight, *argv, 10) || !weight ||
			    weight > TC_AOQ_MAX_WEIGHT)
				return tc_opt_illegal(key);
		} else if (strcmp(key, "help") == 0) {
			aoq_explain();
			return -1;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", key);
			aoq_explain();
			return -1;
		}
		argc--;
		argv++;
	}
	tail = addattr_nest(n, TC_CLASS_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if ((given & (1U << TCA_AOQ_CLASS_WEIGHT)) &&
	    addattr32(n, TC_CLASS_BUF_MAX, TCA_AOQ_CLASS_WEIGHT, weight))
		return -1;
	addattr_nest_end(n, tail);
	return 0;
}

/* ---- printing ------------------------------------------------------------ */

static bool aoq_attr(const struct rtattr *rta, void *v, size_t len)
{
	if (!rta || RTA_PAYLOAD(rta) < len)
		return false;
	memcpy(v, RTA_DATA(rta), len);
	return true;
}

enum aoq_object {
	AOQ_OBJECT_UNKNOWN,
	AOQ_OBJECT_QDISC,
	AOQ_OBJECT_CLASS,
};

/* whose options were printed last: tells class from qdisc xstats */
static enum aoq_object aoq_last_options;

static int aoq_print_qopt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_AOQ_MAX + 1];
	char buf[SPRINT_BSIZE];
	__u64 v64;
	__u32 v32;
	__u8 v8;

	aoq_last_options = AOQ_OBJECT_QDISC;
	if (!opt)
		return 0;
	parse_rtattr_flags(tb, TCA_AOQ_MAX, RTA_DATA(opt), RTA_PAYLOAD(opt),
			   NLA_F_NESTED);
	if (aoq_attr(tb[TCA_AOQ_MODE], &v8, sizeof(v8))) {
		if (v8 <= TC_AOQ_MODE_MAX)
			print_color_string(PRINT_ANY, COLOR_NONE, "mode", "mode %s ",
					   aoq_mode_names[v8]);
		else
			print_color_uint(PRINT_ANY, COLOR_NONE, "mode", "mode %u ", v8);
	}
	if (aoq_attr(tb[TCA_AOQ_STALL], &v64, sizeof(v64))) {
		print_color_u64(PRINT_JSON, COLOR_NONE, "stall", NULL, v64);
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "stall %s ",
				   sprint_time64((__s64)v64, buf));
	}
	if (aoq_attr(tb[TCA_AOQ_DEFAULT], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "default", "default %x ", v32);
	if (aoq_attr(tb[TCA_AOQ_SEGMENT], &v8, sizeof(v8)))
		print_color_on_off(PRINT_ANY, COLOR_NONE, "segment", "segment %s ", v8);
	if (aoq_attr(tb[TCA_AOQ_MESSAGE_LIMIT], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "message_limit",
				 "message_limit %u ", v32);
	tc_credits_print_opt(tb[TCA_AOQ_CREDITS], tb[TCA_AOQ_CREDIT_UNIT]);
	return 0;
}

static int aoq_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_AOQ_CLASS_MAX + 1];
	__u32 v32;

	aoq_last_options = AOQ_OBJECT_CLASS;
	if (!opt)
		return 0;
	parse_rtattr_flags(tb, TCA_AOQ_CLASS_MAX, RTA_DATA(opt),
			   RTA_PAYLOAD(opt), NLA_F_NESTED);
	open_json_object("options");
	if (aoq_attr(tb[TCA_AOQ_CLASS_WEIGHT], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "weight", "weight %u ", v32);
	close_json_object();
	return 0;
}

static void aoq_counter(const char *key, const char *label, __u64 v)
{
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s ", label);
	print_color_u64(PRINT_ANY, COLOR_NONE, key, "%" PRIu64, v);
}

_Static_assert(sizeof(struct tc_aoq_class_stats) != sizeof(struct tc_aoq_qd_stats),
	       "without options, q_aoq tells class from qdisc statistics by size");

static bool aoq_xstats_are_class(size_t len)
{
	switch (aoq_last_options) {
	case AOQ_OBJECT_QDISC:
		return false;
	case AOQ_OBJECT_CLASS:
		return true;
	default:
		return len == sizeof(struct tc_aoq_class_stats);
	}
}

static void aoq_print_class_stats(const struct tc_aoq_class_stats *st)
{
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " ", NULL);
	aoq_counter("offered", "offered", st->offered);
	aoq_counter("used", "used", st->used);
	aoq_counter("frames", "frames", st->frames);
	aoq_counter("messages", "messages", st->messages);
	/* not tc's own keys in the class's "stats" object (6.2 on) */
	aoq_counter("dequeued_bytes", "bytes", st->bytes);
	aoq_counter("enqueue_drops", "drops", st->drops);
	aoq_counter("abandoned", "abandoned", st->abandoned);
	aoq_counter("forced_tails", "forced_tails", st->forced_tails);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "\n ", NULL);
	aoq_counter("max_msg_opps", "max_msg_opps", st->max_msg_opps);
	aoq_counter("count", "count", st->count);
	print_color_uint(PRINT_ANY, COLOR_NONE, "weight", " weight %u", st->weight);
	print_color_bool(PRINT_ANY, COLOR_NONE, "active", " active %s",
			 st->active);
	print_color_bool(PRINT_ANY, COLOR_NONE, "busy", " busy %s", st->busy);
	print_color_bool(PRINT_ANY, COLOR_NONE, "anchor", " anchor %s",
			 st->anchor);
}

static void aoq_print_qd_stats(const struct tc_aoq_qd_stats *st)
{
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " ", NULL);
	aoq_counter("max_spread", "max_spread", st->max_spread);
	aoq_counter("max_msg_opps", "max_msg_opps", st->max_msg_opps);
	aoq_counter("busy_periods", "busy_periods", st->busy_periods);
	aoq_counter("gso_segmented", "gso_segmented", st->gso_segmented);
	aoq_counter("unclassified", "unclassified", st->unclassified);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "\n ", NULL);
	aoq_counter("idle_dequeues", "idle_dequeues", st->idle_dequeues);
	aoq_counter("abandoned", "abandoned", st->abandoned);
	aoq_counter("forced_tails", "forced_tails", st->forced_tails);
	aoq_counter("tails_lost", "tails_lost", st->tails_lost);
	print_color_uint(PRINT_ANY, COLOR_NONE, "active_lanes",
			 " active_lanes %u", st->active_lanes);
	if (st->anchor >= 0)
		print_color_string(PRINT_FP, COLOR_NONE, NULL, " anchor :%s", "");
	if (st->anchor >= 0)
		print_color_uint(PRINT_FP, COLOR_NONE, NULL, "%x", st->anchor);
	else
		print_color_string(PRINT_FP, COLOR_NONE, NULL, " anchor %s", "none");
	print_color_int(PRINT_JSON, COLOR_NONE, "anchor", NULL, st->anchor);
	tc_credits_print_xstats(&st->credits);
}

static int aoq_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	size_t len;

	if (!xstats || !RTA_PAYLOAD(xstats)) {
		aoq_last_options = AOQ_OBJECT_UNKNOWN;
		return 0;
	}
	len = RTA_PAYLOAD(xstats);
	if (aoq_xstats_are_class(len)) {
		struct tc_aoq_class_stats st = {};

		memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
		aoq_print_class_stats(&st);
	} else {
		struct tc_aoq_qd_stats st = {};

		memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
		aoq_print_qd_stats(&st);
	}
	aoq_last_options = AOQ_OBJECT_UNKNOWN;
	return 0;
}

struct qdisc_util aoq_qdisc_util = {
	.id		= "aoq",
	.parse_qopt	= aoq_parse_qopt,
	.print_qopt	= aoq_print_qopt,
	.print_xstats	= aoq_print_xstats,
	.parse_copt	= aoq_parse_copt,
	.print_copt	= aoq_print_copt,
};
