// SPDX-License-Identifier: GPL-2.0
/*
 * link_vcsw.c	ip link plugin for the vcsw soft switch (kernel/vcsw.c).
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

static const char *const vcsw_modes[] = { "fifo", "takeover", "ideal" };
static const char *const vcsw_archs[] = { "trad", "simple", "advanced", "ideal" };

static void vcsw_explain(FILE *f)
{
	fprintf(f,
		"Usage: ... vcsw [ arch { trad | simple | advanced | ideal } ] [ rate RATE ]\n"
		"                [ buffer SIZE ] [ vc0_buffer SIZE ] [ vc1_buffer SIZE ]\n"
		"                [ fdb_max ENTRIES ] [ ageing SECONDS ] [ group_fwd_mask MASK ]\n"
		"                [ wormhole { on | off } ] [ flood { on | off } ]\n"
		"  arch        the EDF paper's switch architecture (advanced): buffers and\n"
		"              crossbar; trad: FIFOs, round robin; simple: FIFOs, smallest\n"
		"              head deadline; advanced: VC0 ordered + take-over; ideal: sorted\n"
		"  vc0 { fifo | takeover | ideal }   old name: arch trad, advanced, ideal\n"
		"  rate        emulated link rate of every port, 0: the device's own (0)\n"
		"              RATE: a number with bit, kbit, mbit, gbit, bps, kbps, mbps, gbps\n"
		"  buffer      both VCs' buffer per port, bytes (k, m suffixes) (64k)\n"
		"  vc0_buffer, vc1_buffer   one VC's buffer, 2048 .. 64m\n"
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
		} else if (!strcmp(*argv, "buffer") || !strcmp(*argv, "vc0_buffer") ||
			   !strcmp(*argv, "vc1_buffer")) {
			const char *what = *argv;

			if (argc < 2 || vcsw_parse_size(&v, argv[1])) {
				fprintf(stderr, "vcsw: Illegal \"%s\"\n", what);
				return -1;
			}
			argc--, argv++;
			if (strcmp(what, "vc1_buffer"))
				addattr32(n, VCSW_MSG_MAX, IFLA_VCSW_VC0_BUFFER, v);
			if (strcmp(what, "vc0_buffer"))
				addattr32(n, VCSW_MSG_MAX, IFLA_VCSW_VC1_BUFFER, v);
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
	const __u8 *mode, *arch;
	const __u64 *rate;
	const __u16 *mask;
	const __u32 *v;

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
	v = vcsw_rta_data(tb[IFLA_VCSW_VC0_BUFFER], sizeof(*v));
	if (v)
		print_color_uint(PRINT_ANY, COLOR_NONE, "vc0_buffer", "vc0_buffer %u ", *v);
	v = vcsw_rta_data(tb[IFLA_VCSW_VC1_BUFFER], sizeof(*v));
	if (v)
		print_color_uint(PRINT_ANY, COLOR_NONE, "vc1_buffer", "vc1_buffer %u ", *v);
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
