// SPDX-License-Identifier: GPL-2.0
/*
 * q_dtable.c	tc plugin for the dtable qdisc (kernel/sch_dtable.c).
 *
 * Turns "tc qdisc ... dtable ..." into the netlink attributes of
 * uapi/linux/pkt_sched_dtable.h and prints options and statistics back,
 * as text or, with "tc -j", as JSON.  Documentation/dtable.rst describes
 * every parameter in the words of explain() below.
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

#include <linux/pkt_sched_dtable.h>

#include "tc_abi.h"
#include "tc_credits.h"
#include "tc_parse.h"

/* ---- usage ------------------------------------------------------------- */

static void dtable_explain(void)
{
	fprintf(stderr,
		"Usage: ... dtable classes N [ mode { dtable | sbt | rr } ] [ credit BYTES ]\n"
		"                 [ mtu BYTES[,BYTES...] ] [ priomap C0 C1 ... C15 ]\n"
		"                 [ table CLASS:WEIGHT [ CLASS:WEIGHT ... ] ]\n"
		"                 [ credits { on | off } ] [ credit_unit BYTES ]\n"
		"  classes  number of classes 1..%d (classids MAJ:1 .. MAJ:N), fixed at creation\n"
		"  mode     dtable: deficit table; sbt: one entry per class, weights in\n"
		"           packets; rr: round robin (dtable)\n"
		"  credit   bytes per weight unit of a dtable entry, 1..65536 (1)\n"
		"  mtu      largest packet per class, one value or one per class (device MTU);\n"
		"           in dtable mode every entry must weigh at least its class's mtu\n"
		"  priomap  class number (0..N-1) for each skb priority 0..15 (all N-1)\n"
		"  table    entries in order; CLASS is 0..N-1, WEIGHT credits (dtable) or\n"
		"           packets (sbt); at most %d entries (one per class, weight mtu)\n"
		"  credits      send only what the link's credits allow (off); not the\n"
		"               same as credit above\n"
		"  credit_unit  bytes per link credit, as the switch port counts (64)\n"
		"Classes take no options: \"tc qdisc change\" replaces the whole table.\n",
		TC_DTABLE_MAX_CLASSES, TC_DTABLE_MAX_ENTRIES);
}

static const char *const dtable_mode_names[] = {
	[TC_DTABLE_MODE_DTABLE]	= "dtable",
	[TC_DTABLE_MODE_SBT]	= "sbt",
	[TC_DTABLE_MODE_RR]	= "rr",
};

/* ---- parsing ----------------------------------------------------------- */

/* a plain decimal in [lo, hi]; @end gets what follows it */
static int dtable_number(const char *s, unsigned long lo, unsigned long hi,
			 unsigned long *v, const char **end)
{
	char *e;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	*v = strtoul(s, &e, 10);
	if (*v < lo || *v > hi)
		return -1;
	if (end)
		*end = e;
	else if (*e)
		return -1;
	return 0;
}

struct dtable_qopt {
	int classes;		/* -1: not given */
	int mode;
	long credit;
	__u32 mtu[TC_DTABLE_MAX_CLASSES];
	int nmtu;
	__u8 prio[TC_DTABLE_PRIO_BANDS];
	bool has_prio;
	struct tc_dtable_entry *table;
	int nentries;
	struct tc_credits_opt credits;
	unsigned int given;	/* 1 << TCA_DTABLE_*: each word once */
};

static int dtable_parse_mtu(struct dtable_qopt *o, const char *arg)
{
	const char *p = arg;
	unsigned long v;

	o->nmtu = 0;
	for (;;) {
		if (o->nmtu >= TC_DTABLE_MAX_CLASSES ||
		    dtable_number(p, 1, 65536, &v, &p))
			return tc_opt_illegal("mtu");
		o->mtu[o->nmtu++] = v;
		if (!*p)
			return 0;
		if (*p++ != ',')
			return tc_opt_illegal("mtu");
	}
}

/* CLASS:WEIGHT words until one is not; leaves argv on the last used */
static int dtable_parse_table(struct dtable_qopt *o, int *argc, char ***argv)
{
	o->table = calloc(TC_DTABLE_MAX_ENTRIES + 1, sizeof(*o->table));
	if (!o->table)
		return -1;
	o->nentries = 0;
	while (*argc > 1 && isdigit((unsigned char)(*argv)[1][0])) {
		const char *p;
		unsigned long c, w;

		tc_opt_next_arg(argc, argv);
		if (dtable_number(**argv, 0, 65535, &c, &p) || *p != ':' ||
		    dtable_number(p + 1, 0, 0xffffffffUL, &w, NULL)) {
			fprintf(stderr, "dtable: table entry \"%s\" is not CLASS:WEIGHT\n",
				**argv);
			return -1;
		}
		/* one past the limit is sent: the kernel says why it refuses */
		if (o->nentries > TC_DTABLE_MAX_ENTRIES) {
			fprintf(stderr, "dtable: at most %d table entries\n",
				TC_DTABLE_MAX_ENTRIES);
			return -1;
		}
		o->table[o->nentries].cls = c;
		o->table[o->nentries].weight = w;
		o->nentries++;
	}
	if (!o->nentries) {
		fprintf(stderr, "dtable: \"table\" needs at least one CLASS:WEIGHT\n");
		return -1;
	}
	return 0;
}

static int dtable_parse_qopt(struct qdisc_util *qu, int argc, char **argv,
			     struct nlmsghdr *n, const char *dev)
{
	struct dtable_qopt o = { .classes = -1, .mode = -1, .credit = -1 };
	struct rtattr *tail;
	unsigned long v;
	int i, r, err = -1;

	while (argc > 0) {
		if ((r = tc_credits_parse("dtable", &o.credits, *argv, &argc, &argv))) {
			if (r < 0)
				goto out;
		} else if (!strcmp(*argv, "classes")) {
			if (tc_opt_once("dtable", &o.given, TCA_DTABLE_CLASSES, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv))
				goto out;
			if (dtable_number(*argv, 1, TC_DTABLE_MAX_CLASSES, &v, NULL)) {
				tc_opt_illegal("classes");
				goto out;
			}
			o.classes = v;
		} else if (!strcmp(*argv, "mode")) {
			if (tc_opt_once("dtable", &o.given, TCA_DTABLE_MODE, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv))
				goto out;
			for (i = 0; i <= TC_DTABLE_MODE_MAX; i++)
				if (!strcmp(*argv, dtable_mode_names[i]))
					break;
			if (i > TC_DTABLE_MODE_MAX) {
				tc_opt_illegal("mode");
				goto out;
			}
			o.mode = i;
		} else if (!strcmp(*argv, "credit")) {
			if (tc_opt_once("dtable", &o.given, TCA_DTABLE_CREDIT, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv))
				goto out;
			if (dtable_number(*argv, 1, 65536, &v, NULL)) {
				tc_opt_illegal("credit");
				goto out;
			}
			o.credit = v;
		} else if (!strcmp(*argv, "mtu")) {
			if (tc_opt_once("dtable", &o.given, TCA_DTABLE_MTU, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv) || dtable_parse_mtu(&o, *argv))
				goto out;
		} else if (!strcmp(*argv, "priomap")) {
			if (tc_opt_once("dtable", &o.given, TCA_DTABLE_PRIOMAP, *argv))
				goto out;
			for (i = 0; i < TC_DTABLE_PRIO_BANDS; i++) {
				if (tc_opt_next_arg(&argc, &argv))
					goto out;
				if (dtable_number(*argv, 0, TC_DTABLE_MAX_CLASSES - 1, &v, NULL)) {
					tc_opt_illegal("priomap");
					goto out;
				}
				o.prio[i] = v;
			}
			o.has_prio = true;
		} else if (!strcmp(*argv, "table")) {
			if (tc_opt_once("dtable", &o.given, TCA_DTABLE_TABLE, *argv))
				goto out;
			if (dtable_parse_table(&o, &argc, &argv))
				goto out;
		} else if (!strcmp(*argv, "help")) {
			dtable_explain();
			goto out;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", *argv);
			dtable_explain();
			goto out;
		}
		argc--;
		argv++;
	}

	tail = addattr_nest(n, TCA_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (o.classes >= 0)
		addattr16(n, TCA_BUF_MAX, TCA_DTABLE_CLASSES, o.classes);
	if (o.mode >= 0)
		addattr8(n, TCA_BUF_MAX, TCA_DTABLE_MODE, o.mode);
	if (o.credit >= 0)
		addattr32(n, TCA_BUF_MAX, TCA_DTABLE_CREDIT, o.credit);
	if (o.nmtu)
		addattr_l(n, TCA_BUF_MAX, TCA_DTABLE_MTU, o.mtu, o.nmtu * sizeof(__u32));
	if (o.has_prio)
		addattr_l(n, TCA_BUF_MAX, TCA_DTABLE_PRIOMAP, o.prio, sizeof(o.prio));
	if (o.nentries &&
	    addattr_l(n, TCA_BUF_MAX, TCA_DTABLE_TABLE, o.table,
		      o.nentries * sizeof(*o.table))) {
		fprintf(stderr, "dtable: the table does not fit in one message\n");
		goto out;
	}
	if (tc_credits_put(n, &o.credits, TCA_DTABLE_CREDITS, TCA_DTABLE_CREDIT_UNIT))
		goto out;
	addattr_nest_end(n, tail);
	err = 0;
out:
	free(o.table);
	return err;
}

static int dtable_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			     struct nlmsghdr *n, const char *dev)
{
	fprintf(stderr, "dtable: classes take no options; \"tc qdisc change\" replaces the table\n");
	return -1;
}

/* ---- printing ------------------------------------------------------------- */

static bool dtable_attr(const struct rtattr *rta, void *v, size_t len)
{
	if (!rta || RTA_PAYLOAD(rta) < len)
		return false;
	memcpy(v, RTA_DATA(rta), len);
	return true;
}

static int dtable_print_qopt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_DTABLE_MAX + 1];
	__u32 v32;
	__u16 v16;
	__u8 v8;
	size_t i, n;

	if (!opt)
		return 0;
	parse_rtattr_flags(tb, TCA_DTABLE_MAX, RTA_DATA(opt), RTA_PAYLOAD(opt),
			   NLA_F_NESTED);
	if (dtable_attr(tb[TCA_DTABLE_MODE], &v8, sizeof(v8)))
		print_color_string(PRINT_ANY, COLOR_NONE, "mode", "mode %s ",
				   v8 <= TC_DTABLE_MODE_MAX ? dtable_mode_names[v8] : "?");
	if (dtable_attr(tb[TCA_DTABLE_CLASSES], &v16, sizeof(v16)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "classes", "classes %u ", v16);
	if (dtable_attr(tb[TCA_DTABLE_CREDIT], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "credit", "credit %u ", v32);
	if (tb[TCA_DTABLE_MTU]) {
		const __u32 *m = RTA_DATA(tb[TCA_DTABLE_MTU]);

		n = RTA_PAYLOAD(tb[TCA_DTABLE_MTU]) / sizeof(__u32);
		open_json_array(PRINT_JSON, "mtu");
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "mtu ");
		for (i = 0; i < n; i++)
			print_color_uint(PRINT_ANY, COLOR_NONE, NULL,
					 i + 1 < n ? "%u," : "%u ", m[i]);
		close_json_array(PRINT_JSON, NULL);
	}
	if (tb[TCA_DTABLE_PRIOMAP]) {
		const __u8 *p = RTA_DATA(tb[TCA_DTABLE_PRIOMAP]);

		n = RTA_PAYLOAD(tb[TCA_DTABLE_PRIOMAP]);
		open_json_array(PRINT_JSON, "priomap");
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "priomap ");
		for (i = 0; i < n; i++)
			print_color_uint(PRINT_ANY, COLOR_NONE, NULL, "%u ", p[i]);
		close_json_array(PRINT_JSON, NULL);
	}
	if (dtable_attr(tb[TCA_DTABLE_ENTRIES], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "entries", "entries %u ", v32);
	if (tb[TCA_DTABLE_TABLE]) {
		const struct tc_dtable_entry *e = RTA_DATA(tb[TCA_DTABLE_TABLE]);

		n = RTA_PAYLOAD(tb[TCA_DTABLE_TABLE]) / sizeof(*e);
		open_json_array(PRINT_JSON, "table");
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "table");
		for (i = 0; i < n; i++) {
			open_json_object(NULL);
			print_color_uint(PRINT_ANY, COLOR_NONE, "class", " %u", e[i].cls);
			print_color_uint(PRINT_ANY, COLOR_NONE, "weight", ":%u", e[i].weight);
			close_json_object();
		}
		close_json_array(PRINT_JSON, NULL);
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", " ");
	}
	tc_credits_print_opt(tb[TCA_DTABLE_CREDITS], tb[TCA_DTABLE_CREDIT_UNIT]);
	return 0;
}

static int dtable_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_DTABLE_CLASS_MAX + 1];
	__u64 v64;
	__u32 v32;

	if (!opt)
		return 0;
	/* TCA_DTABLE_CLASS_PAD only aligns the u64 weight: nothing to print */
	parse_rtattr_flags(tb, TCA_DTABLE_CLASS_MAX, RTA_DATA(opt),
			   RTA_PAYLOAD(opt), NLA_F_NESTED);
	if (dtable_attr(tb[TCA_DTABLE_CLASS_MTU], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "mtu", "mtu %u ", v32);
	if (dtable_attr(tb[TCA_DTABLE_CLASS_ENTRIES], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "entries", "entries %u ", v32);
	if (dtable_attr(tb[TCA_DTABLE_CLASS_WEIGHT], &v64, sizeof(v64)))
		print_color_u64(PRINT_ANY, COLOR_NONE, "weight", "weight %" PRIu64 " ", v64);
	return 0;
}

static void dtable_counter_as(const char *key, const char *label, __u64 v)
{
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s ", label);
	print_color_u64(PRINT_ANY, COLOR_NONE, key, "%" PRIu64, v);
}

static void dtable_counter(const char *key, __u64 v)
{
	dtable_counter_as(key, key, v);
}

/*
 * The qdisc's and each class's TCA_STATS_APP come through this one hook;
 * both structs start with a type word.  At most sizeof the struct is
 * copied into a zeroed one, so another kernel's size still prints.
 */
static int dtable_print_xstats(struct qdisc_util *qu, FILE *f,
			       struct rtattr *xstats)
{
	size_t len;
	__u32 type;

	if (!xstats || RTA_PAYLOAD(xstats) < sizeof(type))
		return 0;
	len = RTA_PAYLOAD(xstats);
	memcpy(&type, RTA_DATA(xstats), sizeof(type));
	if (type == TC_DTABLE_XSTATS_CLASS) {
		struct tc_dtable_class_xstats st = {};

		memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
		/*
		 * newer tc (iproute2 6.2 on) prints these in the class's "stats"
		 * object, after its own "packets", "bytes" and "drops",
		 * which are the child's: JSON keys of their own
		 */
		dtable_counter_as("dequeued_packets", "packets", st.packets);
		dtable_counter_as("dequeued_bytes", "bytes", st.bytes);
		dtable_counter_as("enqueue_drops", "drops", st.drops);
		dtable_counter("deficit", st.deficit);
		dtable_counter("visited", st.visited);
		dtable_counter("skipped", st.skipped);
		dtable_counter("left", st.left);
	} else if (type == TC_DTABLE_XSTATS_QDISC) {
		struct tc_dtable_xstats st = {};

		memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
		dtable_counter("walks", st.walks);
		dtable_counter("empty_scans", st.empty_scans);
		dtable_counter("resets", st.resets);
		dtable_counter("lone_sends", st.lone_sends);
		dtable_counter("table_changes", st.table_changes);
		tc_credits_print_xstats(&st.credits);
	}
	return 0;
}

struct qdisc_util dtable_qdisc_util = {
	.id		= "dtable",
	.parse_qopt	= dtable_parse_qopt,
	.print_qopt	= dtable_print_qopt,
	.print_xstats	= dtable_print_xstats,
	.parse_copt	= dtable_parse_copt,
	.print_copt	= dtable_print_copt,
};
