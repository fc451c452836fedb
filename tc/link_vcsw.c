// SPDX-License-Identifier: GPL-2.0
/*
 * link_vcsw.c	ip link plugin for the vcsw soft switch (kernel/vcsw_netlink.c).
 *
 *	ip link add sw0 type vcsw arch advanced rate 1gbit buffer 64k
 *	ip link add sw1 type vcsw arch recn recn_xoff 8k recn_lease 300us
 *	ip -d link show sw0
 *
 * The stock ip of iproute2 6.1 dlopen()s $IP_LIB_DIR/link_vcsw.so and
 * looks up vcsw_link_util.  Rates go to the kernel in bytes/s, buffers in
 * bytes.  Only the options given are sent; the kernel checks ranges and
 * says why it refuses.  Documentation/vcsw.rst describes every option.
 */
#include <errno.h>
#include <inttypes.h>

#include "vcsw_ipdecl.h"
#include <linux/vcsw.h>
#include "../kernel/core/vcsw_vc_attrs.h"
#include "../kernel/core/recn_core.h"

static const char *const vcsw_modes[] = { "fifo", "takeover", "ideal" };
static const char *const vcsw_archs[] = { "trad", "simple", "advanced", "ideal", "recn" };

/*
 * The RECN options (arch recn, Documentation/recn.rst), with the ranges
 * of the kernel's policy, checked here too so that a bad value is named
 * with its option; how they hold together the kernel checks.
 */
enum vcsw_recn_kind {
	VCSW_RECN_COUNT,	/* a number */
	VCSW_RECN_BYTES,	/* SIZE: bytes, k and m suffixes */
	VCSW_RECN_TIME,		/* TIME: ns, us, ms, s; a bare number is ns */
};

static const struct {
	const char *name;
	int attr;
	enum vcsw_recn_kind kind;
	uint32_t min, max;
	const char *range;	/* for the error message */
} vcsw_recn_opts[] = {
	{ "recn_saqs", IFLA_VCSW_RECN_SAQS, VCSW_RECN_COUNT, 1, RECN_SAQ_MAX,
	  "1 .. 16 SAQs" },
	{ "recn_detect", IFLA_VCSW_RECN_DETECT, VCSW_RECN_BYTES, 1, 64 << 20,
	  "1 .. 64m bytes" },
	{ "recn_xoff", IFLA_VCSW_RECN_XOFF, VCSW_RECN_BYTES, 1, 64 << 20,
	  "1 .. 64m bytes" },
	{ "recn_xon", IFLA_VCSW_RECN_XON, VCSW_RECN_BYTES, 0, 64 << 20,
	  "0 .. 64m bytes, below recn_xoff" },
	{ "recn_lease", IFLA_VCSW_RECN_LEASE, VCSW_RECN_TIME, 1000, UINT32_MAX,
	  "1us .. 4294967295ns" },
	{ "recn_refresh", IFLA_VCSW_RECN_REFRESH, VCSW_RECN_TIME, 1000, UINT32_MAX,
	  "1us .. 4294967295ns, below recn_lease" },
	{ "recn_idle", IFLA_VCSW_RECN_IDLE, VCSW_RECN_TIME, 1000, UINT32_MAX,
	  "1us .. 4294967295ns, at least recn_refresh" },
};

#define VCSW_RECN_OPTS	(sizeof(vcsw_recn_opts) / sizeof(vcsw_recn_opts[0]))

static void vcsw_explain(FILE *f)
{
	fprintf(f,
		"Usage: ... vcsw [ arch { trad | simple | advanced | ideal | recn } ]\n"
		"                [ rate RATE ] [ vcs { 2 | 3 | 4 } ]\n"
		"                [ buffer SIZE ] [ vcN_buffer SIZE ]\n"
		"                [ fdb_max ENTRIES ] [ ageing SECONDS ] [ group_fwd_mask MASK ]\n"
		"                [ wormhole { on | off } ] [ flood { on | off } ]\n"
		"                [ recn_saqs N ] [ recn_detect SIZE ] [ recn_xoff SIZE ]\n"
		"                [ recn_xon SIZE ] [ recn_lease TIME ] [ recn_refresh TIME ]\n"
		"                [ recn_idle TIME ]\n"
		"  arch        the EDF paper's switch architecture (advanced): buffers and\n"
		"              crossbar; trad: FIFOs, round robin; simple: FIFOs, smallest\n"
		"              head deadline; advanced: VC0 ordered + take-over; ideal: sorted;\n"
		"              recn: RECN congestion isolation, FIFOs per detection queue and\n"
		"              SAQ, round robin, two VCs; entered and left only while down\n"
		"  vc0 { fifo | takeover | ideal }   old name: arch trad, advanced, ideal\n"
		"  rate        emulated link rate of every port, 0: the device's own (0)\n"
		"              RATE: a number with bit, kbit, mbit, gbit, bps, kbps, mbps, gbps\n"
		"  vcs         VCs of every port and credit link, each strictly before the\n"
		"              next: 2, regulated and best effort (2); 4, the paper's\n"
		"              Traditional 4 VCs; changed only while the switch is down\n"
		"  buffer      every VC's buffer per port, bytes (k, m suffixes) (64k)\n"
		"  vcN_buffer  VC N's buffer, N 0 .. 3, 2048 .. 64m\n"
		"  fdb_max     forwarding entries, 1 .. 65536 (1024)\n"
		"  ageing      learned entries live SECONDS, 0: for ever (300)\n"
		"  group_fwd_mask  link-local groups 01:80:C2:00:00:0X relayed: bit X;\n"
		"              bits 0-2 (STP, PAUSE, LACP) never (0)\n"
		"  wormhole    a frame leaves its input only for an idle output, nothing\n"
		"              queued and its link free: a busy output holds its senders\n"
		"              back through their credits, the feedback FBS needs (off)\n"
		"  flood       flood frames that have no route and no known destination,\n"
		"              broadcasts too (on); off: drop them, as a fabric whose\n"
		"              switches have several paths between them needs\n"
		"  recn_saqs   arch recn: set-aside queues of each buffer and VC, 1 .. 16 (8)\n"
		"  recn_detect bytes at which a queue is congested (3k)\n"
		"  recn_xoff   bytes at which the SAQs upstream are stopped (6k)\n"
		"  recn_xon    bytes at which they go again, below recn_xoff (3k)\n"
		"  recn_lease  an Xoff not repeated ends after TIME (200us)\n"
		"  recn_refresh  Xoffs and notifications repeated every TIME, below\n"
		"              recn_lease (50us)\n"
		"  recn_idle   an empty SAQ or root whose release was lost is freed after\n"
		"              TIME, at least recn_refresh (1ms)\n"
		"              SIZE: bytes, k, m suffixes; TIME with ns, us, ms, s (a bare\n"
		"              number is ns); recn_* change only while the switch is down\n"
		"Ports: ip link set DEV master SWITCH; see: ip link help vcsw_slave\n");
}

/* The RECN option @name, or -1. */
static int vcsw_recn_opt(const char *name)
{
	unsigned int i;

	for (i = 0; i < VCSW_RECN_OPTS; i++)
		if (!strcmp(name, vcsw_recn_opts[i].name))
			return i;
	return -1;
}

/* @arg as RECN option @i takes it, within its range. */
static int vcsw_parse_recn(uint32_t *v, unsigned int i, const char *arg)
{
	int err;

	switch (vcsw_recn_opts[i].kind) {
	case VCSW_RECN_COUNT:
		err = get_u32(v, arg, 10);
		break;
	case VCSW_RECN_BYTES:
		err = vcsw_parse_size(v, arg);
		break;
	default:
		err = vcsw_parse_time(v, arg);
		break;
	}
	if (err || *v < vcsw_recn_opts[i].min || *v > vcsw_recn_opts[i].max)
		return -1;
	return 0;
}

static int vcsw_parse_opt(struct link_util *lu, int argc, char **argv,
			  struct nlmsghdr *n)
{
	uint64_t rate;
	uint32_t v;
	int i;

	while (argc > 0) {
		if (!strcmp(*argv, "vc0")) {
			if (argc < 2) {
				fprintf(stderr, "vcsw: \"vc0\" needs a discipline\n");
				return -1;
			}
			argc--, argv++;
			for (i = 0; i <= VCSW_MODE_MAX; i++)
				if (!strcmp(*argv, vcsw_modes[i]))
					break;
			if (i > VCSW_MODE_MAX) {
				fprintf(stderr, "vcsw: Illegal \"vc0\" \"%s\": fifo, takeover or ideal\n",
					*argv);
				return -1;
			}
			addattr8(n, VCSW_MSG_MAX, IFLA_VCSW_VC0_MODE, (__u8)i);
		} else if (!strcmp(*argv, "arch")) {
			if (argc < 2) {
				fprintf(stderr, "vcsw: \"arch\" needs an architecture\n");
				return -1;
			}
			argc--, argv++;
			for (i = 0; i <= VCSW_ARCH_MAX; i++)
				if (!strcmp(*argv, vcsw_archs[i]))
					break;
			if (i > VCSW_ARCH_MAX) {
				fprintf(stderr,
					"vcsw: Illegal \"arch\" \"%s\": trad, simple, advanced, ideal or recn\n",
					*argv);
				return -1;
			}
			addattr8(n, VCSW_MSG_MAX, IFLA_VCSW_ARCH, (__u8)i);
		} else if (!strcmp(*argv, "wormhole") || !strcmp(*argv, "flood")) {
			const char *what = *argv;

			if (argc < 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off"))) {
				fprintf(stderr, "vcsw: Illegal \"%s\": on or off\n", what);
				return -1;
			}
			argc--, argv++;
			addattr8(n, VCSW_MSG_MAX, !strcmp(what, "wormhole") ? IFLA_VCSW_WORMHOLE :
				 IFLA_VCSW_FLOOD, !strcmp(*argv, "on"));
		} else if (!strcmp(*argv, "rate")) {
			if (argc < 2 || vcsw_parse_rate(&rate, argv[1])) {
				fprintf(stderr, "vcsw: Illegal \"rate\"\n");
				return -1;
			}
			argc--, argv++;
			addattr64(n, VCSW_MSG_MAX, IFLA_VCSW_RATE, rate);
		} else if (!strcmp(*argv, "vcs")) {
			if (argc < 2 || get_u32(&v, argv[1], 10) || v < VCSW_NUM_VCS ||
			    v > VCSW_MAX_VCS) {
				fprintf(stderr, "vcsw: Illegal \"vcs\": 2, 3 or 4\n");
				return -1;
			}
			argc--, argv++;
			addattr8(n, VCSW_MSG_MAX, IFLA_VCSW_VCS, (__u8)v);
		} else if ((i = vcsw_vc_option(*argv, "buffer")) >= -1) {
			const char *what = *argv;
			int vc;

			if (argc < 2 || vcsw_parse_size(&v, argv[1])) {
				fprintf(stderr, "vcsw: Illegal \"%s\"\n", what);
				return -1;
			}
			argc--, argv++;
			for (vc = 0; vc < VCSW_MAX_VCS; vc++)
				if (i < 0 || i == vc)
					addattr32(n, VCSW_MSG_MAX, vcsw_buffer_attr[vc], v);
		} else if (!strcmp(*argv, "fdb_max") || !strcmp(*argv, "ageing")) {
			const char *what = *argv;

			if (argc < 2 || get_u32(&v, argv[1], 10)) {
				fprintf(stderr, "vcsw: Illegal \"%s\"\n", what);
				return -1;
			}
			argc--, argv++;
			addattr32(n, VCSW_MSG_MAX, !strcmp(what, "fdb_max") ?
				  IFLA_VCSW_FDB_MAX : IFLA_VCSW_AGEING, v);
		} else if (!strcmp(*argv, "group_fwd_mask")) {
			/* a mask: 0x... as the bridge's; every other number decimal */
			if (argc < 2 || get_u32(&v, argv[1], 0) || v > 0xffff) {
				fprintf(stderr, "vcsw: Illegal \"group_fwd_mask\"\n");
				return -1;
			}
			argc--, argv++;
			addattr16(n, VCSW_MSG_MAX, IFLA_VCSW_GROUP_FWD_MASK, (__u16)v);
		} else if ((i = vcsw_recn_opt(*argv)) >= 0) {
			if (argc < 2 || vcsw_parse_recn(&v, i, argv[1])) {
				fprintf(stderr, "vcsw: Illegal \"%s\": %s\n",
					vcsw_recn_opts[i].name, vcsw_recn_opts[i].range);
				return -1;
			}
			argc--, argv++;
			addattr32(n, VCSW_MSG_MAX, vcsw_recn_opts[i].attr, v);
		} else if (!strcmp(*argv, "help")) {
			vcsw_explain(stderr);
			return -1;
		} else {
			fprintf(stderr, "vcsw: What is \"%s\"?\n", *argv);
			vcsw_explain(stderr);
			return -1;
		}
		argc--, argv++;
	}
	return 0;
}

static void vcsw_print_opt(struct link_util *lu, FILE *f, struct rtattr *tb[])
{
	const __u8 *mode, *arch, *vcs;
	const __u64 *rate;
	const __u16 *mask;
	const __u32 *v;
	unsigned int vc, i;

	if (!tb)
		return;
	arch = vcsw_rta_data(tb[IFLA_VCSW_ARCH], sizeof(*arch));
	if (arch)
		print_color_string(PRINT_ANY, COLOR_NONE, "arch", "arch %s ",
				   *arch <= VCSW_ARCH_MAX ? vcsw_archs[*arch] : "unknown");
	mode = vcsw_rta_data(tb[IFLA_VCSW_VC0_MODE], sizeof(*mode));
	if (mode)
		print_color_string(PRINT_ANY, COLOR_NONE, "vc0", "vc0 %s ",
				   *mode <= VCSW_MODE_MAX ? vcsw_modes[*mode] : "unknown");
	mode = vcsw_rta_data(tb[IFLA_VCSW_WORMHOLE], sizeof(*mode));
	if (mode)
		print_color_on_off(PRINT_ANY, COLOR_NONE, "wormhole", "wormhole %s ", *mode);
	mode = vcsw_rta_data(tb[IFLA_VCSW_FLOOD], sizeof(*mode));
	if (mode)
		print_color_on_off(PRINT_ANY, COLOR_NONE, "flood", "flood %s ",
				   *mode);
	rate = vcsw_rta_data(tb[IFLA_VCSW_RATE], sizeof(*rate));
	if (rate)
		vcsw_print_rate("rate", *rate);
	vcs = vcsw_rta_data(tb[IFLA_VCSW_VCS], sizeof(*vcs));
	if (vcs)
		print_color_uint(PRINT_ANY, COLOR_NONE, "vcs", "vcs %u ", *vcs);
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		char name[16], fmt[24];

		/* VCs 2 and 3 only where the switch has them */
		if (vc >= VCSW_NUM_VCS && (!vcs || vc >= *vcs))
			continue;
		v = vcsw_rta_data(tb[vcsw_buffer_attr[vc]], sizeof(*v));
		if (!v)
			continue;
		snprintf(name, sizeof(name), "vc%u_buffer", vc);
		snprintf(fmt, sizeof(fmt), "%s %%u ", name);
		print_color_uint(PRINT_ANY, COLOR_NONE, name, fmt, *v);
	}
	v = vcsw_rta_data(tb[IFLA_VCSW_FDB_MAX], sizeof(*v));
	if (v)
		print_color_uint(PRINT_ANY, COLOR_NONE, "fdb_max", "fdb_max %u ", *v);
	v = vcsw_rta_data(tb[IFLA_VCSW_AGEING], sizeof(*v));
	if (v)
		print_color_uint(PRINT_ANY, COLOR_NONE, "ageing", "ageing %u ", *v);
	v = vcsw_rta_data(tb[IFLA_VCSW_FDB_COUNT], sizeof(*v));
	if (v)
		print_color_uint(PRINT_ANY, COLOR_NONE, "fdb_count", "fdb_count %u ", *v);
	mask = vcsw_rta_data(tb[IFLA_VCSW_GROUP_FWD_MASK], sizeof(*mask));
	if (mask)
		print_color_uint(PRINT_ANY, COLOR_NONE, "group_fwd_mask",
				 "group_fwd_mask %#x ", *mask);
	/* the kernel always sends them; they matter only in arch recn */
	for (i = 0; arch && *arch == VCSW_ARCH_RECN && i < VCSW_RECN_OPTS; i++) {
		char fmt[32];

		v = vcsw_rta_data(tb[vcsw_recn_opts[i].attr], sizeof(*v));
		if (!v)
			continue;
		/* times in ns, as a port's ttd_min: ip -j gives the number */
		snprintf(fmt, sizeof(fmt), "%s %%u%s ", vcsw_recn_opts[i].name,
			 vcsw_recn_opts[i].kind == VCSW_RECN_TIME ? "ns" : "");
		print_color_uint(PRINT_ANY, COLOR_NONE, vcsw_recn_opts[i].name, fmt, *v);
	}
	if (tb[IFLA_VCSW_STATS]) {
		struct rtattr *rta = tb[IFLA_VCSW_STATS];
		struct vcsw_stats st = { 0 };

		/* an older or newer kernel: take what both know */
		memcpy(&st, RTA_DATA(rta), RTA_PAYLOAD(rta) < sizeof(st) ?
		       RTA_PAYLOAD(rta) : sizeof(st));
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "\n    fdb: ");
		open_json_object("fdb");
		vcsw_print_u64("learned", st.fdb_learned);
		vcsw_print_u64("moved", st.fdb_moved);
		vcsw_print_u64("aged", st.fdb_aged);
		vcsw_print_u64("evicted", st.fdb_evicted);
		vcsw_print_u64("learn_fail", st.fdb_learn_fail);
		close_json_object();
	}
}

static void vcsw_print_help(struct link_util *lu, int argc, char **argv, FILE *f)
{
	vcsw_explain(f);
}

struct link_util vcsw_link_util = {
	.id		= "vcsw",
	.maxattr	= IFLA_VCSW_MAX,
	.parse_opt	= vcsw_parse_opt,
	.print_opt	= vcsw_print_opt,
	.print_help	= vcsw_print_help,
};
