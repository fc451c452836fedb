// SPDX-License-Identifier: GPL-2.0
/*
 * q_fbs.c	tc plugin for the fbs qdisc (kernel/sch_fbs.c).
 *
 * Turns "tc qdisc ... fbs ..." into the netlink attributes of
 * uapi/linux/pkt_sched_fbs.h and prints options and statistics back, as
 * text or, with "tc -j", as JSON.  Documentation/fbs.rst describes every
 * parameter in the words of explain() below.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <linux/pkt_sched_fbs.h>

#include "tc_abi.h"
#include "tc_credits.h"
#include "tc_parse.h"

static void fbs_explain(void)
{
	fprintf(stderr,
		"Usage: ... fbs dests N { slot TIME [ rate RATE ] | rate RATE frame BYTES }\n"
		"               [ table SLOT... ]\n"
		"               [ drift PPM ] [ frame BYTES ] [ limit PACKETS ]\n"
		"               [ credits { on | off } ] [ credit_unit BYTES ]\n"
		"               [ node I ] [ verify { on | off } ] [ delay TIME ]\n"
		"               [ pause { on | off } ] [ restart [ at REALTIME_NS ] ]\n"
		"  dests    destinations 1..%d: classes MAJ:1 .. MAJ:N, fixed at creation;\n"
		"           MAJ:N+1 is best effort (the default class)\n"
		"  slot     a slot's length: one largest frame at the link rate, and\n"
		"           with credits on the way back of its credits\n"
		"  rate     the link rate: it times each frame on the wire; with frame\n"
		"           and no slot it makes the slot: frame x 8 / rate; on change\n"
		"           alone, the slot stays\n"
		"  table    this host's column of the schedule, one word per slot: the\n"
		"           destination 0..N-1 it sends to, - (unreserved: best\n"
		"           effort's) or x (silent: nothing); W*K repeats word W K\n"
		"           times; at most %d slots (one slot per destination, then\n"
		"           one unreserved)\n"
		"  drift    the slot clock's error in ppm, positive fast, +-100000 (0)\n"
		"  frame    the largest frame in bytes, 60..65535: larger ones are\n"
		"           dropped (the device's MTU and link header)\n"
		"  limit    packets queued per class (1000)\n"
		"  credits      send under the link's credits and wait for them between\n"
		"               slots: the feedback (off)\n"
		"  credit_unit  bytes per link credit, as the switch port counts (64)\n"
		"  node     this host's index 0..63 in the schedule: the sender its\n"
		"           verified frames name (0)\n"
		"  verify   mark each frame with its slot and node (fabric header) and\n"
		"           judge the marked frames that arrive on this device (off)\n"
		"  delay    how long after its slot began a frame is expected at its\n"
		"           receiver, judged within half a slot (0: one slot)\n"
		"  pause    on: the schedule stops, nothing leaves but fbs-boot's frames,\n"
		"           until a restart; off: it goes on where its clock is (off)\n"
		"  restart  (change) slot 0 begins now, or at REALTIME_NS (CLOCK_REALTIME,\n"
		"           within the last minute): what fbs-boot does after its ring\n",
		TC_FBS_MAX_DESTS, TC_FBS_MAX_SLOTS);
}

struct fbs_qopt {
	long dests;		/* -1: not given */
	__u64 slot_ns;
	__u64 rate;		/* bytes/s, 0: not given */
	bool has_slot, has_drift;
	__s32 drift_ppb;
	long frame, limit, node;
	int verify;		/* -1: not given */
	int pause;		/* -1: not given */
	__u64 delay_ns;
	bool has_delay, restart;
	__u64 restart_real_ns;	/* 0: now */
	__u16 *table;
	unsigned int nslots;
	struct tc_credits_opt credits;
	unsigned int given;	/* 1 << TCA_FBS_*: each word once */
};

/* "-", "D", "W*K": one table word into @o; -1 if it is none */
static int fbs_table_word(struct fbs_qopt *o, const char *w)
{
	unsigned long d, k = 1;
	const char *star = strchr(w, '*');
	size_t len = star ? (size_t)(star - w) : strlen(w);
	char *end;

	if (star) {
		if (!isdigit((unsigned char)star[1]))
			return -1;
		k = strtoul(star + 1, &end, 10);
		if (*end || !k || k > TC_FBS_MAX_SLOTS + 1)
			return -1;
	}
	if (len == 1 && w[0] == '-') {
		d = TC_FBS_UNRESERVED;
	} else if (len == 1 && w[0] == 'x') {
		d = TC_FBS_SILENT;
	} else {
		if (!len || !isdigit((unsigned char)w[0]))
			return -1;
		d = strtoul(w, &end, 10);
		if ((size_t)(end - w) != len || d >= TC_FBS_MAX_DESTS)
			return -1;
	}
	/* one past the limit is sent: the kernel says why it refuses */
	if (o->nslots + k > TC_FBS_MAX_SLOTS + 1) {
		fprintf(stderr, "fbs: at most %d slots\n", TC_FBS_MAX_SLOTS);
		return -2;
	}
	while (k--)
		o->table[o->nslots++] = (__u16)d;
	return 0;
}

static bool fbs_is_table_word(const char *w)
{
	return w[0] == '-' || (w[0] == 'x' && (!w[1] || w[1] == '*')) ||
	       isdigit((unsigned char)w[0]);
}

/* table words until one is not; leaves argv on the last used */
static int fbs_parse_table(struct fbs_qopt *o, int *argc, char ***argv)
{
	o->table = calloc(TC_FBS_MAX_SLOTS + 1, sizeof(*o->table));
	if (!o->table)
		return -1;
	o->nslots = 0;
	while (*argc > 1 && fbs_is_table_word((*argv)[1])) {
		int r;

		tc_opt_next_arg(argc, argv);
		r = fbs_table_word(o, **argv);
		if (r == -1)
			fprintf(stderr, "fbs: table word \"%s\" is not a destination, \"-\", \"x\" or W*K\n",
				**argv);
		if (r)
			return -1;
	}
	if (!o->nslots) {
		fprintf(stderr, "fbs: \"table\" needs at least one slot\n");
		return -1;
	}
	return 0;
}

static int fbs_number(const char *key, const char *arg, long lo, long hi, long *v)
{
	char *end;

	if (!isdigit((unsigned char)arg[0]))
		return tc_opt_illegal(key);
	*v = strtol(arg, &end, 10);
	if (*end || *v < lo || *v > hi)
		return tc_opt_illegal(key);
	return 0;
}

/*
 * "300", "-12.5", "+0.001" ppm into parts per 10^9; "12.5ppm" too, as
 * tc qdisc show prints it
 */
static int fbs_drift(const char *arg, __s32 *ppb)
{
	char *end;
	double v = strtod(arg, &end);

	if (!strcmp(end, "ppm") && end != arg)
		end += 3;
	if (end == arg || *end || !(v >= -100000.0 && v <= 100000.0))
		return tc_opt_illegal("drift");
	*ppb = (__s32)(v * 1000.0 + (v < 0 ? -0.5 : 0.5));
	return 0;
}

static int fbs_parse_qopt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct fbs_qopt o = { .dests = -1, .frame = -1, .limit = -1, .node = -1, .verify = -1,
				.pause = -1 };
	struct rtattr *tail;
	int r, err = -1;

	while (argc > 0) {
		if ((r = tc_credits_parse("fbs", &o.credits, *argv, &argc, &argv))) {
			if (r < 0)
				goto out;
		} else if (!strcmp(*argv, "dests")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_DESTS, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv) ||
			    fbs_number("dests", *argv, 1, TC_FBS_MAX_DESTS, &o.dests))
				goto out;
		} else if (!strcmp(*argv, "slot")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_SLOT_NS, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv))
				goto out;
			if (tc_opt_time(&o.slot_ns, *argv) || o.slot_ns < TC_FBS_MIN_SLOT_NS ||
			    o.slot_ns > TC_FBS_MAX_SLOT_NS) {
				fprintf(stderr, "fbs: slot \"%s\": want 1us to 1s\n", *argv);
				goto out;
			}
			o.has_slot = true;
		} else if (!strcmp(*argv, "rate")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_RATE, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv))
				goto out;
			if (!tc_opt_starts_numeric(*argv) || get_rate64(&o.rate, *argv) || !o.rate) {
				tc_opt_illegal("rate");
				goto out;
			}
		} else if (!strcmp(*argv, "table")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_TABLE, *argv))
				goto out;
			if (fbs_parse_table(&o, &argc, &argv))
				goto out;
		} else if (!strcmp(*argv, "drift")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_DRIFT_PPB, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv) || fbs_drift(*argv, &o.drift_ppb))
				goto out;
			o.has_drift = true;
		} else if (!strcmp(*argv, "frame")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_FRAME, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv) ||
			    fbs_number("frame", *argv, 60, 65535, &o.frame))
				goto out;
		} else if (!strcmp(*argv, "limit")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_LIMIT, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv) ||
			    fbs_number("limit", *argv, 1, 1000000, &o.limit))
				goto out;
		} else if (!strcmp(*argv, "node")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_NODE, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv) ||
			    fbs_number("node", *argv, 0, TC_FBS_MAX_DESTS - 1, &o.node))
				goto out;
		} else if (!strcmp(*argv, "verify")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_VERIFY, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv) ||
			    (o.verify = tc_opt_on_off("verify", *argv)) < 0)
				goto out;
		} else if (!strcmp(*argv, "pause")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_PAUSE, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv) ||
			    (o.pause = tc_opt_on_off("pause", *argv)) < 0)
				goto out;
		} else if (!strcmp(*argv, "delay")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_DELAY_NS, *argv))
				goto out;
			if (tc_opt_next_arg(&argc, &argv))
				goto out;
			if (tc_opt_time(&o.delay_ns, *argv) || o.delay_ns > TC_FBS_MAX_SLOT_NS) {
				fprintf(stderr, "fbs: delay \"%s\": want 0 to 1s\n", *argv);
				goto out;
			}
			o.has_delay = true;
		} else if (!strcmp(*argv, "restart")) {
			if (tc_opt_once("fbs", &o.given, TCA_FBS_RESTART, *argv))
				goto out;
			o.restart = true;
			if (argc > 1 && !strcmp(argv[1], "at")) {
				char *end;

				/* over "at", to the time */
				if (tc_opt_next_arg(&argc, &argv) ||
				    tc_opt_next_arg(&argc, &argv))
					goto out;
				errno = 0;
				o.restart_real_ns = strtoull(*argv, &end, 10);
				if (!isdigit((unsigned char)**argv) || errno || *end || !o.restart_real_ns) {
					fprintf(stderr, "fbs: restart at \"%s\": want CLOCK_REALTIME in ns\n",
						*argv);
					goto out;
				}
			}
		} else if (!strcmp(*argv, "help")) {
			fbs_explain();
			goto out;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", *argv);
			fbs_explain();
			goto out;
		}
		argc--;
		argv++;
	}
	/*
	 * A rate with a frame and no slot makes the slot: one largest frame
	 * at the rate.  A rate alone makes one only where there is none yet
	 * (tc qdisc add); a change keeps the qdisc's slot and gives the link
	 * another rate (the kernel checks that a largest frame still fits).
	 */
	if (o.rate && !o.has_slot && o.frame < 0 && (n->nlmsg_flags & NLM_F_EXCL)) {
		fprintf(stderr, "fbs: \"rate\" needs \"frame\" to make a slot of, or a \"slot\"\n");
		goto out;
	}
	if (o.rate && !o.has_slot && o.frame >= 0) {
		o.slot_ns = ((__u64)o.frame * 1000000000ULL + o.rate - 1) / o.rate;
		if (o.slot_ns < TC_FBS_MIN_SLOT_NS || o.slot_ns > TC_FBS_MAX_SLOT_NS) {
			fprintf(stderr, "fbs: frame %ld at that rate makes a slot of %llu ns: want 1us to 1s\n",
				o.frame, (unsigned long long)o.slot_ns);
			goto out;
		}
		o.has_slot = true;
	}

	tail = addattr_nest(n, TCA_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (o.dests >= 0)
		addattr16(n, TCA_BUF_MAX, TCA_FBS_DESTS, o.dests);
	if (o.has_slot)
		addattr32(n, TCA_BUF_MAX, TCA_FBS_SLOT_NS, o.slot_ns);
	if (o.has_drift)
		addattr32(n, TCA_BUF_MAX, TCA_FBS_DRIFT_PPB, (__u32)o.drift_ppb);
	if (o.frame >= 0)
		addattr32(n, TCA_BUF_MAX, TCA_FBS_FRAME, o.frame);
	if (o.limit >= 0)
		addattr32(n, TCA_BUF_MAX, TCA_FBS_LIMIT, o.limit);
	if (o.nslots &&
	    addattr_l(n, TCA_BUF_MAX, TCA_FBS_TABLE, o.table, o.nslots * sizeof(*o.table))) {
		fprintf(stderr, "fbs: the table does not fit in one message\n");
		goto out;
	}
	if (o.node >= 0)
		addattr16(n, TCA_BUF_MAX, TCA_FBS_NODE, o.node);
	if (o.verify >= 0)
		addattr8(n, TCA_BUF_MAX, TCA_FBS_VERIFY, o.verify);
	if (o.has_delay)
		addattr32(n, TCA_BUF_MAX, TCA_FBS_DELAY_NS, o.delay_ns);
	if (o.rate)
		addattr64(n, TCA_BUF_MAX, TCA_FBS_RATE, o.rate);
	if (o.pause >= 0)
		addattr8(n, TCA_BUF_MAX, TCA_FBS_PAUSE, o.pause);
	if (o.restart)
		addattr_l(n, TCA_BUF_MAX, TCA_FBS_RESTART, NULL, 0);
	if (o.restart_real_ns)
		addattr64(n, TCA_BUF_MAX, TCA_FBS_RESTART_REAL_NS, o.restart_real_ns);
	if (tc_credits_put(n, &o.credits, TCA_FBS_CREDITS, TCA_FBS_CREDIT_UNIT))
		goto out;
	addattr_nest_end(n, tail);
	err = 0;
out:
	free(o.table);
	return err;
}

static int fbs_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	fprintf(stderr, "fbs: classes take no options; the table is the qdisc's\n");
	return -1;
}

/* ---- printing ------------------------------------------------------------- */

static bool fbs_attr(const struct rtattr *rta, void *v, size_t len)
{
	if (!rta || RTA_PAYLOAD(rta) < len)
		return false;
	memcpy(v, RTA_DATA(rta), len);
	return true;
}

/*
 * The table as tc reads it, runs as W*K; in JSON one number per slot,
 * -1 unreserved, -2 silent.
 */
static void fbs_print_table(const struct rtattr *rta)
{
	const __u16 *t = RTA_DATA(rta);
	size_t n = RTA_PAYLOAD(rta) / sizeof(*t), i, k;

	open_json_array(PRINT_JSON, "table");
	for (i = 0; i < n; i++)
		print_color_int(PRINT_JSON, COLOR_NONE, NULL, NULL,
				t[i] == TC_FBS_UNRESERVED ? -1 : t[i] == TC_FBS_SILENT ? -2 : t[i]);
	close_json_array(PRINT_JSON, NULL);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "table");
	for (i = 0; i < n; i += k) {
		char w[32];

		for (k = 1; i + k < n && t[i + k] == t[i]; k++)
			;
		if (t[i] == TC_FBS_UNRESERVED)
			snprintf(w, sizeof(w), "-");
		else if (t[i] == TC_FBS_SILENT)
			snprintf(w, sizeof(w), "x");
		else
			snprintf(w, sizeof(w), "%u", t[i]);
		if (k > 1)
			snprintf(w + strlen(w), sizeof(w) - strlen(w), "*%zu", k);
		print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s", w);
	}
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", " ");
}

static int fbs_print_qopt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_FBS_MAX + 1];
	char buf[SPRINT_BSIZE];
	__u64 v64;
	__u32 v32;
	__s32 s32;
	__u16 v16;
	__u8 v8;

	if (!opt)
		return 0;
	parse_rtattr_flags(tb, TCA_FBS_MAX, RTA_DATA(opt), RTA_PAYLOAD(opt), NLA_F_NESTED);
	if (fbs_attr(tb[TCA_FBS_DESTS], &v16, sizeof(v16)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "dests", "dests %u ", v16);
	if (fbs_attr(tb[TCA_FBS_SLOT_NS], &v32, sizeof(v32))) {
		print_color_u64(PRINT_JSON, COLOR_NONE, "slot", NULL, v32);
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "slot %s ",
				   sprint_time64((__s64)v32, buf));
	}
	if (fbs_attr(tb[TCA_FBS_DRIFT_PPB], &s32, sizeof(s32))) {
		print_color_int(PRINT_JSON, COLOR_NONE, "drift_ppb", NULL, s32);
		snprintf(buf, sizeof(buf), s32 % 1000 ? "%.3f" : "%.0f", s32 / 1000.0);
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "drift %sppm ", buf);
	}
	if (fbs_attr(tb[TCA_FBS_FRAME], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "frame", "frame %u ", v32);
	if (fbs_attr(tb[TCA_FBS_LIMIT], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "limit", "limit %u ", v32);
	if (fbs_attr(tb[TCA_FBS_SLOTS], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "slots", "slots %u ", v32);
	if (fbs_attr(tb[TCA_FBS_NODE], &v16, sizeof(v16)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "node", "node %u ", v16);
	if (fbs_attr(tb[TCA_FBS_VERIFY], &v8, sizeof(v8)))
		print_color_on_off(PRINT_ANY, COLOR_NONE, "verify", "verify %s ", v8);
	if (fbs_attr(tb[TCA_FBS_DELAY_NS], &v32, sizeof(v32))) {
		print_color_u64(PRINT_JSON, COLOR_NONE, "delay", NULL, v32);
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "delay %s ",
				   sprint_time64((__s64)v32, buf));
	}
	if (fbs_attr(tb[TCA_FBS_RATE], &v64, sizeof(v64)))
		tc_print_rate(PRINT_ANY, "rate", "rate %s ", v64);
	/* in text only while paused: the exception is what to see */
	if (fbs_attr(tb[TCA_FBS_PAUSE], &v8, sizeof(v8))) {
		print_color_bool(PRINT_JSON, COLOR_NONE, "pause", NULL, v8);
		if (v8)
			print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "pause on ");
	}
	if (tb[TCA_FBS_TABLE])
		fbs_print_table(tb[TCA_FBS_TABLE]);
	tc_credits_print_opt(tb[TCA_FBS_CREDITS], tb[TCA_FBS_CREDIT_UNIT]);
	return 0;
}

static int fbs_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_FBS_CLASS_MAX + 1];
	__u32 v32;

	if (!opt)
		return 0;
	parse_rtattr_flags(tb, TCA_FBS_CLASS_MAX, RTA_DATA(opt), RTA_PAYLOAD(opt),
			   NLA_F_NESTED);
	if (fbs_attr(tb[TCA_FBS_CLASS_SLOTS], &v32, sizeof(v32)))
		print_color_uint(PRINT_ANY, COLOR_NONE, "slots", "slots %u ", v32);
	return 0;
}

static void fbs_counter_as(const char *key, const char *label, __u64 v)
{
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s ", label);
	print_color_u64(PRINT_ANY, COLOR_NONE, key, "%" PRIu64, v);
}

static void fbs_counter(const char *key, __u64 v)
{
	fbs_counter_as(key, key, v);
}

/*
 * The arrival histogram: -j, every bucket; text, the buckets that counted
 * something, as "quarter:frames" (the last quarter is open-ended)
 */
static void fbs_print_lat_hist(const __u64 *hist)
{
	const char *sep = "";
	unsigned int i;

	print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", " rx_lat_quarter_slots ");
	open_json_array(PRINT_JSON, "rx_lat_hist");
	for (i = 0; i < TC_FBS_LAT_BUCKETS; i++) {
		char one[48];

		print_color_u64(PRINT_JSON, COLOR_NONE, NULL, "%" PRIu64, hist[i]);
		if (!hist[i])
			continue;
		snprintf(one, sizeof(one), "%s%u:%llu", sep, i, (unsigned long long)hist[i]);
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", one);
		sep = ",";
	}
	if (!*sep)
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "-");
	close_json_array(PRINT_JSON, NULL);
}

/*
 * The qdisc's and each class's TCA_STATS_APP come through this one hook;
 * both structs start with a type word.  At most sizeof the struct is
 * copied into a zeroed one, so another kernel's size still prints.
 */
static int fbs_print_xstats(struct qdisc_util *qu, FILE *f, struct rtattr *xstats)
{
	size_t len;
	__u32 type;

	if (!xstats || RTA_PAYLOAD(xstats) < sizeof(type))
		return 0;
	len = RTA_PAYLOAD(xstats);
	memcpy(&type, RTA_DATA(xstats), sizeof(type));
	if (type == TC_FBS_XSTATS_CLASS) {
		struct tc_fbs_class_xstats st = {};

		memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
		/*
		 * not tc's own keys in the class's "stats" object (6.2 on);
		 * the drops include frames a change left no place (trimmed)
		 */
		fbs_counter_as("dequeued_packets", "packets", st.packets);
		fbs_counter_as("dequeued_bytes", "bytes", st.bytes);
		fbs_counter_as("class_drops", "drops", st.drops);
	} else if (type == TC_FBS_XSTATS_QDISC) {
		struct tc_fbs_xstats st = {};

		memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
		fbs_counter("slot", st.slot);
		fbs_counter("slots", st.slots);
		fbs_counter("stalls", st.stalls);
		fbs_counter("stall_ns", st.stall_ns);
		fbs_counter("reserved_frames", st.reserved_frames);
		fbs_counter("unreserved_frames", st.unreserved_frames);
		fbs_counter("idle_slots", st.idle_slots);
		fbs_counter("late_slots", st.late_slots);
		fbs_counter("oversize", st.oversize);
		fbs_counter("no_slot", st.no_slot);
		fbs_counter("table_changes", st.table_changes);
		fbs_counter("restarts", st.restarts);
		fbs_counter("boot_frames", st.boot_frames);
		fbs_counter("boot_refused", st.boot_refused);
		fbs_counter("tagged", st.tagged);
		fbs_counter("untagged", st.untagged);
		fbs_counter("rx_frames", st.rx_frames);
		fbs_counter("rx_in_slot", st.rx_in_slot);
		fbs_counter("rx_early", st.rx_early);
		fbs_counter("rx_late", st.rx_late);
		fbs_counter("rx_foreign", st.rx_foreign);
		/* before the link's block, which -j nests */
		fbs_counter("link_trip_ns", st.link_trip_ns);
		fbs_counter("slot_start_ns", st.slot_start_ns);
		fbs_counter("rx_lat_sum_ns", st.rx_lat_sum_ns);
		fbs_counter("rx_lat_max_ns", st.rx_lat_max_ns);
		fbs_print_lat_hist(st.rx_lat_hist);
		tc_credits_print_xstats(&st.credits);
	}
	return 0;
}

struct qdisc_util fbs_qdisc_util = {
	.id		= "fbs",
	.parse_qopt	= fbs_parse_qopt,
	.print_qopt	= fbs_print_qopt,
	.print_xstats	= fbs_print_xstats,
	.parse_copt	= fbs_parse_copt,
	.print_copt	= fbs_print_copt,
};
