// SPDX-License-Identifier: GPL-2.0
/*
 * q_edf.c	tc plugin for the edf qdisc (kernel/sch_edf_*.c).
 *
 * Turns "tc qdisc ... edf ..." and "tc class ... edf ..." into the
 * netlink attributes of uapi/linux/pkt_sched_edf.h, and prints options
 * and statistics back, as plain text or, with "tc -j", as JSON.  The
 * parameters, their units, defaults and ranges are described in
 * Documentation/edf.rst in the same words as explain() below.
 *
 * The stock tc of iproute2 6.1 dlopen()s $TC_LIB_DIR/q_edf.so and looks
 * up edf_qdisc_util; tc_abi.h declares the part of tc we use and says
 * why we declare it ourselves.
 *
 * On the wire rates are bytes/s, times nanoseconds, limits packets.
 * Only the options the user gave are sent; the kernel checks ranges and
 * says why it refuses (extack), we refuse what cannot be parsed, and the
 * ranges its policy would refuse without naming the option (vcs, recn_*).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <linux/pkt_sched_edf.h>

#include "tc_abi.h"
#include "tc_credits.h"
#include "tc_parse.h"
#include "tc_recn.h"

/* ---- usage ------------------------------------------------------------- */

static void edf_explain(void)
{
	fprintf(stderr,
		"Usage: ... edf [ rate RATE ] [ eligibility TIME ] [ limit PACKETS ]\n"
		"               [ flow_limit PACKETS ] [ flows NUMBER ] [ ttd { on | off } ]\n"
		"               [ horizon TIME ] [ default MINOR ] [ priomap P0 P1 ... P15 ]\n"
		"               [ credits { on | off } ] [ credit_unit BYTES ] [ vcs { 2 | 3 | 4 } ]\n"
		"               [ recn { on | off } ] [ recn_saqs N ] [ recn_lease TIME ]\n"
		"               [ recn_idle TIME ]\n"
		"       class ... edf { rate RATE | control | frame LATENCY | txtime }\n"
		"               [ regulated | besteffort | vc N ] [ smooth | nosmooth ]\n"
		"               [ perflow { on | off } ] [ burst SIZE ]\n"
		"qdisc (default in parentheses):\n"
		"  rate         link rate; output is paced at it, 0: no pacing (none)\n"
		"  eligibility  a smooth class's packet waits until deadline - TIME (20us)\n"
		"  limit        packets queued in the qdisc (10000)\n"
		"  flow_limit   packets queued per flow (100)\n"
		"  flows        flows kept at once (65536)\n"
		"  ttd          push the fabric header at dequeue (off)\n"
		"  horizon      SO_TXTIME deadlines beyond now + TIME are clamped (2s)\n"
		"  default      class of unclassified traffic, 0: built-in (0)\n"
		"  priomap      classes of skb->priority 0..15, 0: default (all 0)\n"
		TC_CREDITS_USAGE
		"  vcs          VCs the classes and the credit link use, each strictly\n"
		"               before the next; 4: the paper's Traditional 4 VCs (2)\n"
		"  recn         hold back what the switch stops (RECN); needs credits on (off)\n"
		"  recn_saqs    recn on: set-aside queues (SAQs) per VC, 1 .. 16 (8)\n"
		"  recn_lease   recn on: a stop (Xoff) not repeated ends after TIME (200us)\n"
		"  recn_idle    recn on: a SAQ empty for TIME is freed, at least lease / 4 (1ms)\n"
		"class:\n"
		"  rate         deadlines at RATE; with besteffort: a weight\n"
		"  control      deadlines at the link rate\n"
		"  frame        each GSO send (a frame) is due LATENCY after it starts\n"
		"  txtime       deadline = the packet's SO_TXTIME\n"
		"  regulated    regulated classes go strictly before besteffort ones (regulated)\n"
		"  vc           the VC by number: 0 regulated, 1 besteffort, 2 and 3 below\n"
		"               those (the qdisc's vcs above N), clocked as besteffort\n"
		"  smooth       packets wait until deadline - eligibility (nosmooth)\n"
		"  perflow      deadlines per flow or per class (regulated: on, besteffort: off)\n"
		"  burst        rate classes: a token bucket of RATE and SIZE bytes, any VC\n"
		"               (none); SIZE: bytes, k, m suffixes\n"
		"RATE: 100mbit, 10gbit, 5%%.  TIME, LATENCY: 20us, 1.5ms, 2s (bare number: ns).\n"
		"MINOR, P0..P15: class minor in hex, \"3\" or \"1:3\".\n");
}

/* ---- parsing helpers ----------------------------------------------------- */

/*
 * RATE in tc's syntax, or a percentage of the device's speed.  get_rate64()
 * takes a sign, "inf" and out-of-range values without complaint and turns
 * the last into 0, which here would mean "no pacing": refuse those.  A
 * percentage too small to be a byte a second would become 0 as well.
 */
static int edf_get_rate(__u64 *rate, const char *arg, const char *dev)
{
	if (strchr(arg, '%')) {
		if (get_percent_rate64(rate, arg, dev))
			return -1;
	} else if (!tc_opt_starts_numeric(arg) || get_rate64(rate, arg)) {
		return -1;
	}
	if (*rate == 0 && strtod(arg, NULL) != 0)
		return -1;
	return 0;
}

/* A class, as tc writes class ids: hex minor "3", or "1:3", or ":3". */
static int edf_get_class_ref(__u16 *major, __u16 *minor, const char *arg)
{
	const char *colon = strchr(arg, ':');
	unsigned long maj = 0, min;
	char *end;

	if (colon) {
		if (colon != arg) {
			if (!isxdigit((unsigned char)arg[0]))
				return -1;
			maj = strtoul(arg, &end, 16);
			if (end != colon || maj > 0xffff)
				return -1;
		}
		arg = colon + 1;
	}
	if (!isxdigit((unsigned char)arg[0]))
		return -1;
	min = strtoul(arg, &end, 16);
	if (*end || min > 0xffff)
		return -1;
	*major = maj;
	*minor = min;
	return 0;
}

/*
 * A class of this qdisc for "default" and "priomap".  Only the minor is
 * sent; a major, if given, must be the qdisc's handle when tc knows it
 * ("handle 1:" before "edf").
 */
static int edf_class_minor(__u16 *minor, const char *arg, const char *key,
			   const struct nlmsghdr *n)
{
	const struct tcmsg *t = NLMSG_DATA(n);
	__u16 qmajor = TC_H_MAJ(t->tcm_handle) >> 16;
	__u16 major;

	if (edf_get_class_ref(&major, minor, arg))
		return tc_opt_illegal(key);
	if (major && qmajor && major != qmajor) {
		fprintf(stderr, "edf: %s: %s is not a class of qdisc %x:\n",
			key, arg, qmajor);
		return -1;
	}
	return 0;
}

/* ---- qdisc options ------------------------------------------------------ */

struct edf_qopt {
	unsigned int	given;		/* 1 << TCA_EDF_* */
	__u64		rate;
	__u64		eligibility;
	__u64		horizon;
	__u32		limit;
	__u32		flow_limit;
	__u32		max_flows;
	__u32		default_minor;
	__u8		ttd;
	__u8		vcs;
	__u8		recn;
	__u8		recn_saqs;
	__u64		recn_lease;
	__u64		recn_idle;
	__u16		priomap[TC_EDF_PRIO_BANDS];
	struct tc_credits_opt credits;
};

_Static_assert(TCA_EDF_MAX < 32, "edf_qopt.given has a bit per TCA_EDF_*");

/* TIME, within [@min, @max] ns as the kernel's policy takes it; @range says so. */
static int edf_get_time_in(__u64 *ns, const char *arg, const char *key,
			   __u64 min, __u64 max, const char *range)
{
	if (tc_opt_time(ns, arg) || *ns < min || *ns > max) {
		fprintf(stderr, "edf: Illegal \"%s\": %s\n", key, range);
		return -1;
	}
	return 0;
}

/* "priomap P0 P1 ...": up to 16 classes; the priorities left out get 0. */
static int edf_parse_priomap(struct edf_qopt *o, int *argc, char ***argv,
			     const struct nlmsghdr *n)
{
	__u16 major, minor;
	int nr = 0;

	while (*argc > 1 && edf_get_class_ref(&major, &minor, (*argv)[1]) == 0) {
		if (nr == TC_EDF_PRIO_BANDS) {
			fprintf(stderr,
				"edf: priomap maps %d priorities, \"%s\" is one too many\n",
				TC_EDF_PRIO_BANDS, (*argv)[1]);
			return -1;
		}
		tc_opt_next_arg(argc, argv);
		if (edf_class_minor(&o->priomap[nr], **argv, "priomap", n))
			return -1;
		nr++;
	}
	if (!nr)
		return tc_opt_illegal("priomap");
	return 0;
}

static int edf_put_qopt(struct nlmsghdr *n, const struct edf_qopt *o)
{
	unsigned int g = o->given;
	struct rtattr *nest;

	nest = addattr_nest(n, TCA_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (!nest)
		return -1;
	if (((g & (1U << TCA_EDF_RATE)) &&
	     addattr64(n, TCA_BUF_MAX, TCA_EDF_RATE, o->rate)) ||
	    ((g & (1U << TCA_EDF_ELIGIBILITY)) &&
	     addattr64(n, TCA_BUF_MAX, TCA_EDF_ELIGIBILITY, o->eligibility)) ||
	    ((g & (1U << TCA_EDF_LIMIT)) &&
	     addattr32(n, TCA_BUF_MAX, TCA_EDF_LIMIT, o->limit)) ||
	    ((g & (1U << TCA_EDF_FLOW_LIMIT)) &&
	     addattr32(n, TCA_BUF_MAX, TCA_EDF_FLOW_LIMIT, o->flow_limit)) ||
	    ((g & (1U << TCA_EDF_MAX_FLOWS)) &&
	     addattr32(n, TCA_BUF_MAX, TCA_EDF_MAX_FLOWS, o->max_flows)) ||
	    ((g & (1U << TCA_EDF_TTD)) &&
	     addattr8(n, TCA_BUF_MAX, TCA_EDF_TTD, o->ttd)) ||
	    ((g & (1U << TCA_EDF_HORIZON)) &&
	     addattr64(n, TCA_BUF_MAX, TCA_EDF_HORIZON, o->horizon)) ||
	    ((g & (1U << TCA_EDF_DEFAULT)) &&
	     addattr32(n, TCA_BUF_MAX, TCA_EDF_DEFAULT, o->default_minor)) ||
	    ((g & (1U << TCA_EDF_PRIOMAP)) &&
	     addattr_l(n, TCA_BUF_MAX, TCA_EDF_PRIOMAP, o->priomap,
		       sizeof(o->priomap))) ||
	    ((g & (1U << TCA_EDF_VCS)) &&
	     addattr8(n, TCA_BUF_MAX, TCA_EDF_VCS, o->vcs)) ||
	    tc_credits_put(n, &o->credits, TCA_EDF_CREDITS, TCA_EDF_CREDIT_UNIT) ||
	    ((g & (1U << TCA_EDF_RECN)) &&
	     addattr8(n, TCA_BUF_MAX, TCA_EDF_RECN, o->recn)) ||
	    ((g & (1U << TCA_EDF_RECN_SAQS)) &&
	     addattr8(n, TCA_BUF_MAX, TCA_EDF_RECN_SAQS, o->recn_saqs)) ||
	    ((g & (1U << TCA_EDF_RECN_LEASE)) &&
	     addattr64(n, TCA_BUF_MAX, TCA_EDF_RECN_LEASE, o->recn_lease)) ||
	    ((g & (1U << TCA_EDF_RECN_IDLE)) &&
	     addattr64(n, TCA_BUF_MAX, TCA_EDF_RECN_IDLE, o->recn_idle)))
		return -1;
	return addattr_nest_end(n, nest) < 0 ? -1 : 0;
}

/* A count of packets: "100", or "100p" as tc qdisc show prints it. */
static int edf_get_packets(__u32 *v, const char *arg)
{
	char buf[16];
	size_t len = strlen(arg);

	if (len > 1 && len < sizeof(buf) && arg[len - 1] == 'p') {
		memcpy(buf, arg, len - 1);
		buf[len - 1] = '\0';
		arg = buf;
	}
	return get_u32(v, arg, 10);
}

/* A count in @min .. @max, or the option's message with the range. */
static int edf_get_count_in(__u32 *v, const char *arg, const char *key, __u32 min,
			    __u32 max, bool packets)
{
	if ((packets ? edf_get_packets(v, arg) : get_u32(v, arg, 10)) ||
	    *v < min || *v > max) {
		fprintf(stderr, "edf: Illegal \"%s\": %u .. %u\n", key, min, max);
		return -1;
	}
	return 0;
}

static int edf_parse_qopt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct edf_qopt o = {};
	int err, v;

	while (argc > 0) {
		const char *key = *argv;

		if (strcmp(key, "rate") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_RATE, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (edf_get_rate(&o.rate, *argv, dev))
				return tc_opt_illegal(key);
		} else if (strcmp(key, "eligibility") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_ELIGIBILITY, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (edf_get_time_in(&o.eligibility, *argv, key, 0, TC_EDF_ELIG_MAX_NS,
					    "0 .. 1s"))
				return -1;
		} else if (strcmp(key, "limit") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_LIMIT, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (edf_get_count_in(&o.limit, *argv, key, 1, TC_EDF_LIMIT_MAX, true))
				return -1;
		} else if (strcmp(key, "flow_limit") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_FLOW_LIMIT, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (edf_get_count_in(&o.flow_limit, *argv, key, 1, TC_EDF_LIMIT_MAX, true))
				return -1;
		} else if (strcmp(key, "flows") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_MAX_FLOWS, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (edf_get_count_in(&o.max_flows, *argv, key, 1, TC_EDF_FLOWS_MAX, false))
				return -1;
		} else if (strcmp(key, "ttd") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_TTD, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			v = tc_opt_on_off(key, *argv);
			if (v < 0)
				return -1;
			o.ttd = v;
		} else if (strcmp(key, "horizon") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_HORIZON, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (edf_get_time_in(&o.horizon, *argv, key, TC_EDF_TIME_MIN_NS,
					    TC_EDF_TIME_MAX_NS, "1us .. 10s"))
				return -1;
		} else if (strcmp(key, "default") == 0) {
			__u16 minor;

			if (tc_opt_once("edf", &o.given, TCA_EDF_DEFAULT, key) ||
			    tc_opt_next_arg(&argc, &argv) ||
			    edf_class_minor(&minor, *argv, key, n))
				return -1;
			o.default_minor = minor;
		} else if (strcmp(key, "priomap") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_PRIOMAP, key) ||
			    edf_parse_priomap(&o, &argc, &argv, n))
				return -1;
		} else if (strcmp(key, "vcs") == 0) {
			__u32 vcs;

			if (tc_opt_once("edf", &o.given, TCA_EDF_VCS, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (get_u32(&vcs, *argv, 10) || vcs < 2 || vcs > __TC_EDF_VC_MAX) {
				fprintf(stderr, "edf: Illegal \"vcs\": 2, 3 or 4\n");
				return -1;
			}
			o.vcs = vcs;
		} else if (strcmp(key, "recn") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_RECN, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			v = tc_opt_on_off(key, *argv);
			if (v < 0)
				return -1;
			o.recn = v;
		} else if (strcmp(key, "recn_saqs") == 0) {
			__u32 saqs;

			if (tc_opt_once("edf", &o.given, TCA_EDF_RECN_SAQS, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (get_u32(&saqs, *argv, 10) || saqs < 1 ||
			    saqs > TC_RECN_SAQS_MAX) {
				fprintf(stderr, "edf: Illegal \"recn_saqs\": 1 .. %d\n",
					TC_RECN_SAQS_MAX);
				return -1;
			}
			o.recn_saqs = saqs;
		} else if (strcmp(key, "recn_lease") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_RECN_LEASE, key) ||
			    tc_opt_next_arg(&argc, &argv) ||
			    edf_get_time_in(&o.recn_lease, *argv, key, TC_RECN_LEASE_MIN,
					    TC_RECN_LEASE_MAX, "4us .. 10s"))
				return -1;
		} else if (strcmp(key, "recn_idle") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_RECN_IDLE, key) ||
			    tc_opt_next_arg(&argc, &argv) ||
			    edf_get_time_in(&o.recn_idle, *argv, key, TC_RECN_IDLE_MIN,
					    TC_RECN_IDLE_MAX, "1ms .. 60s"))
				return -1;
		} else if ((err = tc_credits_parse("edf", &o.credits, key,
						   &argc, &argv))) {
			if (err < 0)
				return -1;
		} else if (strcmp(key, "help") == 0) {
			edf_explain();
			return -1;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", key);
			edf_explain();
			return -1;
		}
		argc--;
		argv++;
	}
	return edf_put_qopt(n, &o);
}

/* ---- class options ------------------------------------------------------ */

struct edf_copt {
	unsigned int	given;		/* 1 << TCA_EDF_CLASS_* */
	__u8		mode;
	__u8		vc;
	__u8		smooth;
	__u8		perflow;
	__u32		burst;
	__u64		rate;
	__u64		latency;
};

static int edf_set_mode(struct edf_copt *o, __u8 mode)
{
	if (o->given & (1U << TCA_EDF_CLASS_MODE)) {
		fprintf(stderr, "edf: only one of rate, control, frame, txtime\n");
		return -1;
	}
	o->given |= 1U << TCA_EDF_CLASS_MODE;
	o->mode = mode;
	return 0;
}

static int edf_set_vc(struct edf_copt *o, __u8 vc)
{
	if (o->given & (1U << TCA_EDF_CLASS_VC)) {
		fprintf(stderr, "edf: only one of regulated, besteffort, vc\n");
		return -1;
	}
	o->given |= 1U << TCA_EDF_CLASS_VC;
	o->vc = vc;
	return 0;
}

static int edf_set_smooth(struct edf_copt *o, __u8 smooth)
{
	if (o->given & (1U << TCA_EDF_CLASS_SMOOTH)) {
		fprintf(stderr, "edf: only one of smooth, nosmooth\n");
		return -1;
	}
	o->given |= 1U << TCA_EDF_CLASS_SMOOTH;
	o->smooth = smooth;
	return 0;
}

static int edf_put_copt(struct nlmsghdr *n, const struct edf_copt *o)
{
	unsigned int g = o->given;
	struct rtattr *nest;

	nest = addattr_nest(n, TC_CLASS_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (!nest)
		return -1;
	if (((g & (1U << TCA_EDF_CLASS_MODE)) &&
	     addattr8(n, TC_CLASS_BUF_MAX, TCA_EDF_CLASS_MODE, o->mode)) ||
	    ((g & (1U << TCA_EDF_CLASS_RATE)) &&
	     addattr64(n, TC_CLASS_BUF_MAX, TCA_EDF_CLASS_RATE, o->rate)) ||
	    ((g & (1U << TCA_EDF_CLASS_LATENCY)) &&
	     addattr64(n, TC_CLASS_BUF_MAX, TCA_EDF_CLASS_LATENCY, o->latency)) ||
	    ((g & (1U << TCA_EDF_CLASS_VC)) &&
	     addattr8(n, TC_CLASS_BUF_MAX, TCA_EDF_CLASS_VC, o->vc)) ||
	    ((g & (1U << TCA_EDF_CLASS_SMOOTH)) &&
	     addattr8(n, TC_CLASS_BUF_MAX, TCA_EDF_CLASS_SMOOTH, o->smooth)) ||
	    ((g & (1U << TCA_EDF_CLASS_PERFLOW)) &&
	     addattr8(n, TC_CLASS_BUF_MAX, TCA_EDF_CLASS_PERFLOW, o->perflow)) ||
	    ((g & (1U << TCA_EDF_CLASS_BURST)) &&
	     addattr32(n, TC_CLASS_BUF_MAX, TCA_EDF_CLASS_BURST, o->burst)))
		return -1;
	return addattr_nest_end(n, nest) < 0 ? -1 : 0;
}

static int edf_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct edf_copt o = {};
	int v;

	while (argc > 0) {
		const char *key = *argv;

		if (strcmp(key, "rate") == 0) {
			if (edf_set_mode(&o, TC_EDF_MODE_RATE) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (edf_get_rate(&o.rate, *argv, dev))
				return tc_opt_illegal(key);
			o.given |= 1U << TCA_EDF_CLASS_RATE;
		} else if (strcmp(key, "control") == 0) {
			if (edf_set_mode(&o, TC_EDF_MODE_CONTROL))
				return -1;
		} else if (strcmp(key, "frame") == 0) {
			if (edf_set_mode(&o, TC_EDF_MODE_FRAME) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (edf_get_time_in(&o.latency, *argv, key, TC_EDF_TIME_MIN_NS,
					    TC_EDF_TIME_MAX_NS, "1us .. 10s"))
				return -1;
			o.given |= 1U << TCA_EDF_CLASS_LATENCY;
		} else if (strcmp(key, "txtime") == 0) {
			if (edf_set_mode(&o, TC_EDF_MODE_TXTIME))
				return -1;
		} else if (strcmp(key, "regulated") == 0) {
			if (edf_set_vc(&o, TC_EDF_VC_REGULATED))
				return -1;
		} else if (strcmp(key, "besteffort") == 0) {
			if (edf_set_vc(&o, TC_EDF_VC_BESTEFFORT))
				return -1;
		} else if (strcmp(key, "vc") == 0) {
			__u32 vc;

			if (tc_opt_next_arg(&argc, &argv))
				return -1;
			if (get_u32(&vc, *argv, 10) || vc > TC_EDF_VC_MAX) {
				fprintf(stderr, "edf: Illegal \"vc\": 0 .. %d\n", TC_EDF_VC_MAX);
				return -1;
			}
			if (edf_set_vc(&o, vc))
				return -1;
		} else if (strcmp(key, "burst") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_CLASS_BURST, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			if (get_size(&o.burst, *argv) || o.burst > TC_EDF_BURST_MAX) {
				fprintf(stderr, "edf: Illegal \"burst\": 0 .. 64m bytes\n");
				return -1;
			}
		} else if (strcmp(key, "smooth") == 0) {
			if (edf_set_smooth(&o, 1))
				return -1;
		} else if (strcmp(key, "nosmooth") == 0) {
			if (edf_set_smooth(&o, 0))
				return -1;
		} else if (strcmp(key, "perflow") == 0) {
			if (tc_opt_once("edf", &o.given, TCA_EDF_CLASS_PERFLOW, key) ||
			    tc_opt_next_arg(&argc, &argv))
				return -1;
			v = tc_opt_on_off(key, *argv);
			if (v < 0)
				return -1;
			o.perflow = v;
		} else if (strcmp(key, "help") == 0) {
			edf_explain();
			return -1;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", key);
			edf_explain();
			return -1;
		}
		argc--;
		argv++;
	}

	/* "tc class add" always makes a class; change and replace may not */
	if ((n->nlmsg_flags & NLM_F_EXCL) &&
	    !(o.given & (1U << TCA_EDF_CLASS_MODE))) {
		fprintf(stderr, "edf: a new class needs a mode: rate, control, frame or txtime\n");
		return -1;
	}
	return edf_put_copt(n, &o);
}

/* ---- printing helpers ---------------------------------------------------- */

/* Attribute payloads may be shorter than we expect (another kernel). */
static bool edf_attr_u8(const struct rtattr *rta, __u8 *v)
{
	if (!rta || RTA_PAYLOAD(rta) < sizeof(*v))
		return false;
	memcpy(v, RTA_DATA(rta), sizeof(*v));
	return true;
}

static bool edf_attr_u32(const struct rtattr *rta, __u32 *v)
{
	if (!rta || RTA_PAYLOAD(rta) < sizeof(*v))
		return false;
	memcpy(v, RTA_DATA(rta), sizeof(*v));
	return true;
}

static bool edf_attr_u64(const struct rtattr *rta, __u64 *v)
{
	if (!rta || RTA_PAYLOAD(rta) < sizeof(*v))
		return false;
	memcpy(v, RTA_DATA(rta), sizeof(*v));
	return true;
}

/* "KEY 20us" in text, "KEY": 20000 (ns) in JSON. */
static void edf_print_time(const char *key, const char *fmt, __u64 ns)
{
	char buf[SPRINT_BSIZE];

	print_color_u64(PRINT_JSON, COLOR_NONE, key, NULL, ns);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt,
			   sprint_time64((__s64)ns, buf));
}

/* " LABEL N" in text, "KEY": N in JSON. */
static void edf_print_counter(const char *key, const char *label, __u64 v)
{
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s ", label);
	print_color_u64(PRINT_ANY, COLOR_NONE, key, "%" PRIu64, v);
}

static const char *const edf_mode_names[] = {
	[TC_EDF_MODE_RATE]	= "rate",
	[TC_EDF_MODE_CONTROL]	= "control",
	[TC_EDF_MODE_FRAME]	= "frame",
	[TC_EDF_MODE_TXTIME]	= "txtime",
};

static const char *const edf_vc_names[] = {
	[TC_EDF_VC_REGULATED]	= "regulated",
	[TC_EDF_VC_BESTEFFORT]	= "besteffort",
	/* VCs 2 and 3 print as "vc 2": no name (edf_print_enum()) */
};

/* A name from @names, or the number if this plugin does not know it. */
static void edf_print_enum(const char *key, const char *fmt,
			   const char *fmt_unknown, const char *const *names,
			   unsigned int nr, unsigned int v)
{
	if (v < nr && names[v])
		print_color_string(PRINT_ANY, COLOR_NONE, key, fmt, names[v]);
	else
		print_color_uint(PRINT_ANY, COLOR_NONE, key, fmt_unknown, v);
}

/* ---- printing options ------------------------------------------------------ */

/* Whose options were printed last: see edf_xstats_are_class(). */
enum edf_object {
	EDF_OBJECT_UNKNOWN,
	EDF_OBJECT_QDISC,
	EDF_OBJECT_CLASS,
};

static enum edf_object edf_last_options;

static void edf_print_priomap(const struct rtattr *rta)
{
	__u16 map[TC_EDF_PRIO_BANDS] = {};
	size_t len = RTA_PAYLOAD(rta);
	int i;

	memcpy(map, RTA_DATA(rta), len < sizeof(map) ? len : sizeof(map));
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "priomap ", NULL);
	open_json_array(PRINT_JSON, "priomap");
	for (i = 0; i < TC_EDF_PRIO_BANDS; i++)
		print_color_uint(PRINT_ANY, COLOR_NONE, NULL, "%x ", map[i]);
	close_json_array(PRINT_JSON, NULL);
}

/*
 * "recn on recn_saqs 8 recn_lease 200us recn_idle 1ms " or "recn off ";
 * JSON "recn": true/false and, when on, the three others (times in ns).
 * As credit_unit, the kernel sends the settings only while RECN is on.
 */
static void edf_print_recn(struct rtattr **tb, bool on)
{
	__u64 v64;
	__u8 v8;

	print_color_on_off(PRINT_ANY, COLOR_NONE, "recn", "recn %s ", on);
	if (!on)
		return;
	if (edf_attr_u8(tb[TCA_EDF_RECN_SAQS], &v8))
		print_color_uint(PRINT_ANY, COLOR_NONE, "recn_saqs",
				 "recn_saqs %u ", v8);
	if (edf_attr_u64(tb[TCA_EDF_RECN_LEASE], &v64))
		edf_print_time("recn_lease", "recn_lease %s ", v64);
	if (edf_attr_u64(tb[TCA_EDF_RECN_IDLE], &v64))
		edf_print_time("recn_idle", "recn_idle %s ", v64);
}

static int edf_print_qopt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_EDF_MAX + 1];
	__u64 v64;
	__u32 v32;
	__u8 v8;

	edf_last_options = EDF_OBJECT_QDISC;
	if (!opt)
		return 0;
	parse_rtattr_flags(tb, TCA_EDF_MAX, RTA_DATA(opt), RTA_PAYLOAD(opt),
			   NLA_F_NESTED);

	if (edf_attr_u64(tb[TCA_EDF_RATE], &v64))
		tc_print_rate(PRINT_ANY, "rate", "rate %s ", v64);
	/* what control classes and the default class run at: with -d */
	if (edf_attr_u64(tb[TCA_EDF_LINK_RATE], &v64))
		tc_print_rate(show_details ? PRINT_ANY : PRINT_JSON, "link_rate",
			      "link_rate %s ", v64);
	if (edf_attr_u64(tb[TCA_EDF_ELIGIBILITY], &v64))
		edf_print_time("eligibility", "eligibility %s ", v64);
	if (edf_attr_u32(tb[TCA_EDF_LIMIT], &v32))
		print_color_uint(PRINT_ANY, COLOR_NONE, "limit", "limit %up ", v32);
	if (edf_attr_u32(tb[TCA_EDF_FLOW_LIMIT], &v32))
		print_color_uint(PRINT_ANY, COLOR_NONE, "flow_limit",
				 "flow_limit %up ", v32);
	if (edf_attr_u32(tb[TCA_EDF_MAX_FLOWS], &v32))
		print_color_uint(PRINT_ANY, COLOR_NONE, "flows", "flows %u ", v32);
	if (edf_attr_u8(tb[TCA_EDF_TTD], &v8))
		print_color_on_off(PRINT_ANY, COLOR_NONE, "ttd", "ttd %s ", v8);
	if (edf_attr_u64(tb[TCA_EDF_HORIZON], &v64))
		edf_print_time("horizon", "horizon %s ", v64);
	if (edf_attr_u32(tb[TCA_EDF_DEFAULT], &v32))
		print_color_uint(PRINT_ANY, COLOR_NONE, "default", "default %x ",
				 v32);
	if (tb[TCA_EDF_PRIOMAP])
		edf_print_priomap(tb[TCA_EDF_PRIOMAP]);
	tc_credits_print_opt(tb[TCA_EDF_CREDITS], tb[TCA_EDF_CREDIT_UNIT]);
	if (edf_attr_u8(tb[TCA_EDF_VCS], &v8))
		print_color_uint(PRINT_ANY, COLOR_NONE, "vcs", "vcs %u ", v8);
	if (edf_attr_u8(tb[TCA_EDF_RECN], &v8))
		edf_print_recn(tb, v8);
	return 0;
}

static int edf_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_EDF_CLASS_MAX + 1];
	__u64 v64;
	__u32 v32;
	__u8 v8;

	edf_last_options = EDF_OBJECT_CLASS;
	if (!opt)
		return 0;
	parse_rtattr_flags(tb, TCA_EDF_CLASS_MAX, RTA_DATA(opt),
			   RTA_PAYLOAD(opt), NLA_F_NESTED);

	/*
	 * tc (6.2 on; 6.1 prints classes as text only) does not put a
	 * class's options in an object of their own as it does a qdisc's:
	 * we do, so both read the same.
	 */
	open_json_object("options");

	/*
	 * The text says the mode as "tc class add" takes it, so that it can
	 * be given back: "rate R" and "frame T" (their values below),
	 * "control", "txtime".  JSON has "mode" and the values apart.
	 */
	if (edf_attr_u8(tb[TCA_EDF_CLASS_MODE], &v8)) {
		if (v8 > TC_EDF_MODE_MAX || !edf_mode_names[v8]) {
			print_color_uint(PRINT_ANY, COLOR_NONE, "mode",
					 "mode %u ", v8);
		} else {
			print_color_string(PRINT_JSON, COLOR_NONE, "mode", NULL,
					   edf_mode_names[v8]);
			if (v8 == TC_EDF_MODE_CONTROL || v8 == TC_EDF_MODE_TXTIME)
				print_color_string(PRINT_FP, COLOR_NONE, NULL,
						   "%s ", edf_mode_names[v8]);
		}
	}
	if (edf_attr_u64(tb[TCA_EDF_CLASS_RATE], &v64))
		tc_print_rate(PRINT_ANY, "rate", "rate %s ", v64);
	if (edf_attr_u64(tb[TCA_EDF_CLASS_LATENCY], &v64))
		edf_print_time("latency", "frame %s ", v64);
	if (edf_attr_u8(tb[TCA_EDF_CLASS_VC], &v8))
		edf_print_enum("vc", "%s ", "vc %u ", edf_vc_names,
			       sizeof(edf_vc_names) / sizeof(edf_vc_names[0]), v8);
	if (edf_attr_u8(tb[TCA_EDF_CLASS_SMOOTH], &v8)) {
		print_color_bool(PRINT_JSON, COLOR_NONE, "smooth", NULL, v8);
		if (v8)
			print_color_string(PRINT_FP, COLOR_NONE, NULL, "smooth ",
					   NULL);
	}
	if (edf_attr_u8(tb[TCA_EDF_CLASS_PERFLOW], &v8))
		print_color_on_off(PRINT_ANY, COLOR_NONE, "perflow",
				   "perflow %s ", v8);
	if (edf_attr_u32(tb[TCA_EDF_CLASS_BURST], &v32) && v32)
		print_color_uint(PRINT_ANY, COLOR_NONE, "burst", "burst %ub ", v32);
	close_json_object();
	return 0;
}

/* ---- printing statistics ----------------------------------------------------- */

/*
 * tc calls this one hook for the qdisc's and for each class's
 * TCA_STATS_APP; the kernel sends struct tc_edf_qd_stats for the first
 * and struct tc_edf_class_stats for the second.  Which one is it?
 *
 * tc prints an object's options before its statistics (print_qdisc()
 * and print_class(), 6.1 and later), and sch_edf always dumps options,
 * so the hook that printed options last tells us; print_xstats uses
 * that answer once.  Without it (no options in the message) the size
 * decides: a payload nearer to the class struct's size than to
 * EDF_QD_STATS_MIN is a class's, a tie going to the qdisc.  That is the
 * qdisc statistics up to txtime_late (136 bytes), the least a module
 * with today's class statistics (128 bytes) sends: the qdisc's grew
 * since to 264 bytes (credits, four VCs) and 400 (RECN), and measured
 * against 400 an older module's 216 or 256 would go to the class.
 * Either way at most sizeof the struct is copied into a zeroed one, so
 * a kernel with fewer or more fields still prints.
 */
#define EDF_QD_STATS_MIN	offsetof(struct tc_edf_qd_stats, credits)

_Static_assert(EDF_QD_STATS_MIN > sizeof(struct tc_edf_class_stats),
	       "without options, q_edf tells class from qdisc statistics by size");

static bool edf_xstats_are_class(size_t len)
{
	size_t cl = sizeof(struct tc_edf_class_stats);
	size_t qd = EDF_QD_STATS_MIN;
	size_t d_cl = len > cl ? len - cl : cl - len;
	size_t d_qd = len > qd ? len - qd : qd - len;

	switch (edf_last_options) {
	case EDF_OBJECT_QDISC:
		return false;
	case EDF_OBJECT_CLASS:
		return true;
	default:
		return d_cl < d_qd;
	}
}

static const char *const edf_drop_names[TC_EDF_DROP_REASONS] = {
	[TC_EDF_DROP_LIMIT]	= "limit",
	[TC_EDF_DROP_FLOW_LIMIT] = "flow_limit",
	[TC_EDF_DROP_FLOWS]	= "flows",
	[TC_EDF_DROP_OVERSIZE]	= "oversize",
	[TC_EDF_DROP_NOMEM]	= "nomem",
};

/* The lines qdisc and class statistics share: drops and deadlines. */
static void edf_print_drops_lateness(const __u64 *drops, __u64 misses,
				     __u64 max_lateness, __u64 held,
				     __u64 txtime_late)
{
	char buf[SPRINT_BSIZE];
	int i;

	print_color_string(PRINT_FP, COLOR_NONE, NULL, "  drops:", NULL);
	open_json_object("drop_reasons");
	for (i = 0; i < TC_EDF_DROP_REASONS; i++)
		edf_print_counter(edf_drop_names[i], edf_drop_names[i], drops[i]);
	close_json_object();
	print_nl();

	print_color_string(PRINT_FP, COLOR_NONE, NULL, " ", NULL);
	edf_print_counter("deadline_misses", "deadline_misses", misses);
	print_color_u64(PRINT_JSON, COLOR_NONE, "max_lateness", NULL,
			max_lateness);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " max_lateness %s",
			   sprint_time64((__s64)max_lateness, buf));
	edf_print_counter("held", "held", held);
	edf_print_counter("txtime_late", "txtime_late", txtime_late);
	print_nl();
}

/* @recn: the kernel sent RECN's figures (a module before them did not) */
static void edf_print_qd_stats(const struct tc_edf_qd_stats *st, bool recn)
{
	edf_print_drops_lateness(st->drops, st->deadline_misses,
				 st->max_lateness_ns, st->held, st->txtime_late);

	print_color_string(PRINT_FP, COLOR_NONE, NULL, " ", NULL);
	edf_print_counter("flows", "flows", st->flows);
	edf_print_counter("active_flows", "active", st->active_flows);
	edf_print_counter("eligible_wait", "eligible_wait", st->eligible_wait);
	edf_print_counter("flows_created", "created", st->flows_created);
	edf_print_counter("flows_collected", "collected", st->flows_collected);
	print_nl();

	print_color_string(PRINT_FP, COLOR_NONE, NULL, " ", NULL);
	edf_print_counter("throttled", "throttled", st->throttled);
	edf_print_counter("gso_segmented", "gso_segmented", st->gso_segmented);
	edf_print_counter("unclassified", "unclassified", st->unclassified);
	edf_print_counter("ttd_pushed", "ttd_pushed", st->ttd_pushed);
	edf_print_counter("ttd_skipped", "ttd_skipped", st->ttd_skipped);
	edf_print_counter("direct_spills", "direct_spills", st->direct_spills);
	tc_credits_print_xstats_vcs(&st->credits, st->credit_vcs,
				    st->credit_tx_credits_hi, st->credit_stalls_hi);
	if (recn)
		tc_recn_print_xstats(&st->recn, st->recn_held_flows, st->recn_held);
}

/*
 * tc prints the class's bytes, packets, backlog and qlen under those
 * JSON keys already; ours are named apart so one object holds both.
 */
static void edf_print_class_stats(const struct tc_edf_class_stats *st)
{
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " ", NULL);
	print_color_u64(PRINT_ANY, COLOR_NONE, "dequeued_bytes",
			" dequeued %" PRIu64 "b", st->bytes);
	print_color_u64(PRINT_ANY, COLOR_NONE, "dequeued_packets",
			" %" PRIu64 "p", st->packets);
	print_color_u64(PRINT_ANY, COLOR_NONE, "queued_bytes",
			" queued %" PRIu64 "b", st->backlog);
	print_color_uint(PRINT_ANY, COLOR_NONE, "queued_packets", " %up",
			 st->qlen);
	print_nl();

	edf_print_drops_lateness(st->drops, st->deadline_misses,
				 st->max_lateness_ns, st->held, st->txtime_late);

	print_color_string(PRINT_FP, COLOR_NONE, NULL, " ", NULL);
	edf_print_counter("flows", "flows", st->flows);
	edf_print_counter("active_flows", "active", st->active_flows);
	edf_print_counter("flows_created", "created", st->flows_created);
	edf_print_counter("flows_collected", "collected", st->flows_collected);
}

static int edf_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	bool is_class;
	size_t len;

	if (!xstats || !RTA_PAYLOAD(xstats)) {
		edf_last_options = EDF_OBJECT_UNKNOWN;
		return 0;
	}
	len = RTA_PAYLOAD(xstats);

	is_class = edf_xstats_are_class(len);
	edf_last_options = EDF_OBJECT_UNKNOWN;
	if (is_class) {
		struct tc_edf_class_stats st = {};

		memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
		edf_print_class_stats(&st);
	} else {
		struct tc_edf_qd_stats st = {};

		memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
		edf_print_qd_stats(&st, len >= sizeof(st));
	}
	return 0;
}

struct qdisc_util edf_qdisc_util = {
	.id		= "edf",
	.parse_qopt	= edf_parse_qopt,
	.print_qopt	= edf_print_qopt,
	.print_xstats	= edf_print_xstats,
	.parse_copt	= edf_parse_copt,
	.print_copt	= edf_print_copt,
};
