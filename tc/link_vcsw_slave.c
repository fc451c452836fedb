// SPDX-License-Identifier: GPL-2.0
/*
 * link_vcsw_slave.c	ip link plugin for the ports of a vcsw switch.
 *
 *	ip link set veth1 type vcsw_slave fdb_add 02:00:00:00:00:01
 *	ip -d link show veth1          (port statistics, per VC)
 *
 * iproute2 6.1 prints a port's IFLA_INFO_SLAVE_DATA with the plugin of
 * kind "<master kind>_slave": $IP_LIB_DIR/link_vcsw_slave.so, symbol
 * vcsw_slave_link_util.  Documentation/vcsw.rst lists every counter.
 */
#include <inttypes.h>

#include "vcsw_ipdecl.h"
#include <linux/vcsw.h>

static void vcsw_slave_explain(FILE *f)
{
	fprintf(f,
		"Usage: ... vcsw_slave [ fdb_add LLADDR ] [ fdb_del LLADDR ] [ fdb_flush ]\n"
		"  fdb_add    a static entry: frames to LLADDR leave by this port\n"
		"  fdb_del    remove such a static entry\n"
		"  fdb_flush  forget the addresses learned on this port\n");
}

static int vcsw_slave_parse_opt(struct link_util *lu, int argc, char **argv,
				struct nlmsghdr *n)
{
	char mac[6];

	while (argc > 0) {
		if (!strcmp(*argv, "fdb_add") || !strcmp(*argv, "fdb_del")) {
			const char *what = *argv;

			if (argc < 2 || ll_addr_a2n(mac, sizeof(mac), argv[1]) != 6) {
				fprintf(stderr, "vcsw_slave: Illegal \"%s\"\n", what);
				return -1;
			}
			argc--, argv++;
			addattr_l(n, VCSW_MSG_MAX, !strcmp(what, "fdb_add") ?
				  IFLA_VCSW_PORT_FDB_ADD : IFLA_VCSW_PORT_FDB_DEL,
				  mac, 6);
		} else if (!strcmp(*argv, "fdb_flush")) {
			addattr_l(n, VCSW_MSG_MAX, IFLA_VCSW_PORT_FDB_FLUSH, NULL, 0);
		} else if (!strcmp(*argv, "help")) {
			vcsw_slave_explain(stderr);
			return -1;
		} else {
			fprintf(stderr, "vcsw_slave: What is \"%s\"?\n", *argv);
			vcsw_slave_explain(stderr);
			return -1;
		}
		argc--, argv++;
	}
	return 0;
}

static void vcsw_slave_print_vc(const char *name, struct rtattr *rta)
{
	struct vcsw_vc_stats st = { 0 };
	unsigned int i;

	if (!rta)
		return;
	/* an older or newer kernel: take what both know */
	memcpy(&st, RTA_DATA(rta), RTA_PAYLOAD(rta) < sizeof(st) ?
	       RTA_PAYLOAD(rta) : sizeof(st));
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "\n    %s: ", name);
	open_json_object(name);
	vcsw_print_u64("packets", st.packets);
	vcsw_print_u64("bytes", st.bytes);
	vcsw_print_u64("drops_full", st.drops_full);
	vcsw_print_u64("backlog_bytes", st.backlog_bytes);
	vcsw_print_u64("backlog_packets", st.backlog_packets);
	vcsw_print_u64("max_backlog_bytes", st.max_backlog_bytes);
	vcsw_print_u64("max_backlog_packets", st.max_backlog_packets);
	vcsw_print_u64("takeovers", st.takeovers);
	vcsw_print_u64("order_errors", st.order_errors);
	vcsw_print_u64("deadline_misses", st.deadline_misses);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "sojourn_us_log2 ");
	open_json_array(PRINT_JSON, "sojourn_hist");
	for (i = 0; i < VCSW_SOJOURN_BUCKETS; i++)
		print_color_u64(PRINT_ANY, COLOR_NONE, NULL,
				i + 1 < VCSW_SOJOURN_BUCKETS ? "%" PRIu64 "," : "%" PRIu64 " ",
				st.sojourn_hist[i]);
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}

static void vcsw_slave_print_opt(struct link_util *lu, FILE *f,
				 struct rtattr *tb[])
{
	struct vcsw_port_stats ps = { 0 };
	const __u64 *rate;

	if (!tb)
		return;
	rate = vcsw_rta_data(tb[IFLA_VCSW_PORT_RATE], sizeof(*rate));
	if (rate)
		vcsw_print_u64("rate", *rate);
	if (tb[IFLA_VCSW_PORT_STATS]) {
		struct rtattr *rta = tb[IFLA_VCSW_PORT_STATS];

		memcpy(&ps, RTA_DATA(rta), RTA_PAYLOAD(rta) < sizeof(ps) ?
		       RTA_PAYLOAD(rta) : sizeof(ps));
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "\n    port: ");
		open_json_object("port");
		vcsw_print_u64("rx_packets", ps.rx_packets);
		vcsw_print_u64("rx_bytes", ps.rx_bytes);
		vcsw_print_u64("rx_fabric", ps.rx_fabric);
		vcsw_print_u64("flooded", ps.flooded);
		vcsw_print_u64("drop_malformed", ps.drop_malformed);
		vcsw_print_u64("drop_nomem", ps.drop_nomem);
		vcsw_print_u64("drop_down", ps.drop_down);
		vcsw_print_u64("drop_xmit", ps.drop_xmit);
		vcsw_print_u64("drop_rewrite", ps.drop_rewrite);
		vcsw_print_u64("drop_loop", ps.drop_loop);
		vcsw_print_u64("drop_disabled", ps.drop_disabled);
		vcsw_print_u64("drop_link_local", ps.drop_link_local);
		vcsw_print_u64("drop_oversize", ps.drop_oversize);
		close_json_object();
	}
	vcsw_slave_print_vc("vc0", tb[IFLA_VCSW_PORT_VC0_STATS]);
	vcsw_slave_print_vc("vc1", tb[IFLA_VCSW_PORT_VC1_STATS]);
}

static void vcsw_slave_print_help(struct link_util *lu, int argc, char **argv,
				  FILE *f)
{
	vcsw_slave_explain(f);
}

struct link_util vcsw_slave_link_util = {
	.id		= "vcsw_slave",
	.maxattr	= IFLA_VCSW_PORT_MAX,
	.parse_opt	= vcsw_slave_parse_opt,
	.print_opt	= vcsw_slave_print_opt,
	.print_help	= vcsw_slave_print_help,
};
