// SPDX-License-Identifier: GPL-2.0
/*
 * link_vcsw.c	ip link plugin for the vcsw soft switch (kernel/vcsw_netlink.c).
 *
 *	ip link add sw0 type vcsw arch advanced rate 1gbit buffer 64k
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

static const char *const vcsw_modes[] = { "fifo", "takeover", "ideal" };
static const char *const vcsw_archs[] = { "trad", "simple", "advanced", "ideal" };

static void vcsw_explain(FILE *f)
{
	fprintf(f,
		"Usage: ... vcsw [ arch { trad | simple | advanced | ideal } ] [ rate RATE ]\n"
		"                [ vcs { 2 | 3 | 4 } ] [ buffer SIZE ] [ vcN_buffer SIZE ]\n"
		"                [ fdb_max ENTRIES ] [ ageing SECONDS ] [ group_fwd_mask MASK ]\n"
		"                [ wormhole { on | off } ] [ flood { on | off } ]\n"
		"  arch        the EDF paper's switch architecture (advanced): buffers and\n"
		"              crossbar; trad: FIFOs, round robin; simple: FIFOs, smallest\n"
		"              head deadline; advanced: VC0 ordered + take-over; ideal: sorted\n"
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
		"Ports: ip link set DEV master SWITCH; see: ip link help vcsw_slave\n");
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
				fprintf(stderr, "vcsw: Illegal \"arch\" \"%s\": trad, simple, advanced or ideal\n",
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
			if (argc < 2 || get_u32(&v, argv[1], 0) || v < VCSW_NUM_VCS ||
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

			if (argc < 2 || get_u32(&v, argv[1], 0)) {
				fprintf(stderr, "vcsw: Illegal \"%s\"\n", what);
				return -1;
			}
			argc--, argv++;
			addattr32(n, VCSW_MSG_MAX, !strcmp(what, "fdb_max") ?
				  IFLA_VCSW_FDB_MAX : IFLA_VCSW_AGEING, v);
		} else if (!strcmp(*argv, "group_fwd_mask")) {
			if (argc < 2 || get_u32(&v, argv[1], 0) || v > 0xffff) {
				fprintf(stderr, "vcsw: Illegal \"group_fwd_mask\"\n");
				return -1;
			}
			argc--, argv++;
			addattr16(n, VCSW_MSG_MAX, IFLA_VCSW_GROUP_FWD_MASK, (__u16)v);
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
	unsigned int vc;

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
