// SPDX-License-Identifier: GPL-2.0
/*
 * link_vcsw_slave.c	ip link plugin for the ports of a vcsw switch.
 *
 *	ip link set veth1 type vcsw_slave fdb_add 02:00:00:00:00:01
 *	ip link set veth1 type vcsw_slave trust off vc0_rate 10mbit
 *	ip link set veth1 type vcsw_slave credits on credit_unit 64 in_buffer 8k
 *	ip link set veth1 type vcsw_slave recn on  (the far end is an arch recn vcsw)
 *	ip -d link show veth1          (port statistics, per VC)
 *
 * iproute2 6.1 prints a port's IFLA_INFO_SLAVE_DATA with the plugin of
 * kind "<master kind>_slave": $IP_LIB_DIR/link_vcsw_slave.so, symbol
 * vcsw_slave_link_util.  Documentation/vcsw.rst lists every counter.
 */
#include <inttypes.h>

#include "vcsw_ipdecl.h"
#include <linux/vcsw.h>
#include "../kernel/core/vcsw_vc_attrs.h"

static const char *const vcsw_exceed_names[] = { "drop", "demote" };

static void vcsw_slave_explain(FILE *f)
{
	fprintf(f,
		"Usage: ... vcsw_slave [ fdb_add LLADDR ] [ fdb_del LLADDR ] [ fdb_flush ]\n"
		"                      [ trust { on | off } ] [ vc0_rate RATE ] [ vc0_burst SIZE ]\n"
		"                      [ vc0_exceed { drop | demote } ]\n"
		"                      [ ttd_min TIME ] [ ttd_max TIME ]\n"
		"                      [ credits { on | off } ] [ credit_unit BYTES ]\n"
		"                      [ in_buffer SIZE ] [ vcN_in_buffer SIZE ]\n"
		"                      [ recn { on | off } ]\n"
		"  fdb_add    a static entry: frames to LLADDR leave by this port\n"
		"  fdb_del    remove such a static entry\n"
		"  fdb_flush  forget the addresses learned on this port\n"
		"  trust      believe the VC and TTD of arriving frames (on)\n"
		"  untrusted (trust off) only:\n"
		"  vc0_rate   VC0 (regulated) bytes admitted, a rate as for vcsw (0: none)\n"
		"  vc0_burst  its burst tolerance, bytes, 2048 .. 64m (16k)\n"
		"  vc0_exceed VC0 frames over the rate: drop them, or demote them to VC1 (drop)\n"
		"  ttd_min, ttd_max  TTDs held to this range; TIME with ns, us, ms, s,\n"
		"             signed 32-bit nanoseconds (0, 100ms)\n"
		"  credits    per-VC credit flow control with the other end of the link (off)\n"
		"  credit_unit  bytes per credit, 1 .. 65535 (64)\n"
		"  in_buffer  every VC's input buffer advertised upstream, bytes (k, m), up\n"
		"             to 64m, at least a full-size frame; 0: the default, 8k or two\n"
		"             full-size frames if more\n"
		"  vcN_in_buffer   VC N's input buffer, N 0 .. 3 (2 and 3: a switch of vcs 4)\n"
		"  recn       the far end of the link runs RECN (another vcsw of arch recn):\n"
		"             tell it of congestion here, believe what it tells (off)\n");
}



static int vcsw_slave_parse_opt(struct link_util *lu, int argc, char **argv,
				struct nlmsghdr *n)
{
	uint64_t rate;
	int32_t ttd;
	uint32_t v;
	char mac[6];
	int i;

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
		} else if (!strcmp(*argv, "trust")) {
			if (argc < 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off"))) {
				fprintf(stderr, "vcsw_slave: Illegal \"trust\": on or off\n");
				return -1;
			}
			argc--, argv++;
			addattr8(n, VCSW_MSG_MAX, IFLA_VCSW_PORT_TRUST, !strcmp(*argv, "on"));
		} else if (!strcmp(*argv, "vc0_rate")) {
			if (argc < 2 || vcsw_parse_rate(&rate, argv[1])) {
				fprintf(stderr, "vcsw_slave: Illegal \"vc0_rate\"\n");
				return -1;
			}
			argc--, argv++;
			addattr64(n, VCSW_MSG_MAX, IFLA_VCSW_PORT_VC0_RATE, rate);
		} else if (!strcmp(*argv, "vc0_burst")) {
			if (argc < 2 || vcsw_parse_size(&v, argv[1])) {
				fprintf(stderr, "vcsw_slave: Illegal \"vc0_burst\"\n");
				return -1;
			}
			argc--, argv++;
			addattr32(n, VCSW_MSG_MAX, IFLA_VCSW_PORT_VC0_BURST, v);
		} else if (!strcmp(*argv, "vc0_exceed")) {
			if (argc < 2)
				i = VCSW_EXCEED_MAX + 1;
			else
				for (i = 0; i <= VCSW_EXCEED_MAX; i++)
					if (!strcmp(argv[1], vcsw_exceed_names[i]))
						break;
			if (i > VCSW_EXCEED_MAX) {
				fprintf(stderr, "vcsw_slave: Illegal \"vc0_exceed\": drop or demote\n");
				return -1;
			}
			argc--, argv++;
			addattr8(n, VCSW_MSG_MAX, IFLA_VCSW_PORT_VC0_EXCEED, (__u8)i);
		} else if (!strcmp(*argv, "ttd_min") || !strcmp(*argv, "ttd_max")) {
			const char *what = *argv;

			if (argc < 2 || vcsw_parse_ttd(&ttd, argv[1])) {
				fprintf(stderr, "vcsw_slave: Illegal \"%s\"\n", what);
				return -1;
			}
			argc--, argv++;
			addattr32(n, VCSW_MSG_MAX, !strcmp(what, "ttd_min") ?
				  IFLA_VCSW_PORT_TTD_MIN : IFLA_VCSW_PORT_TTD_MAX,
				  (__u32)ttd);
		} else if (!strcmp(*argv, "credits") || !strcmp(*argv, "recn")) {
			const char *what = *argv;

			if (argc < 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off"))) {
				fprintf(stderr, "vcsw_slave: Illegal \"%s\": on or off\n", what);
				return -1;
			}
			argc--, argv++;
			addattr8(n, VCSW_MSG_MAX,
				 !strcmp(what, "credits") ? IFLA_VCSW_PORT_CREDITS :
							    IFLA_VCSW_PORT_RECN,
				 !strcmp(*argv, "on"));
		} else if (!strcmp(*argv, "credit_unit")) {
			if (argc < 2 || get_u32(&v, argv[1], 10) || !v || v > 65535) {
				fprintf(stderr, "vcsw_slave: Illegal \"credit_unit\": 1 .. 65535 bytes\n");
				return -1;
			}
			argc--, argv++;
			addattr32(n, VCSW_MSG_MAX, IFLA_VCSW_PORT_CREDIT_UNIT, v);
		} else if ((i = vcsw_vc_option(*argv, "in_buffer")) >= -1) {
			const char *what = *argv;
			int vc;

			if (argc < 2 || vcsw_parse_size(&v, argv[1])) {
				fprintf(stderr, "vcsw_slave: Illegal \"%s\"\n", what);
				return -1;
			}
			argc--, argv++;
			for (vc = 0; vc < VCSW_MAX_VCS; vc++)
				if (i < 0 || i == vc)
					addattr32(n, VCSW_MSG_MAX, vcsw_in_buffer_attr[vc], v);
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

static void vcsw_slave_print_credit_vc(unsigned int vc,
				       const struct vcsw_credit_vc_stats *v)
{
	char name[16];

	snprintf(name, sizeof(name), "credits_vc%u", vc);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "\n    %s: ", name);
	open_json_object(name);
	vcsw_print_u64("stalls", v->stalls);
	vcsw_print_u64("violations", v->violations);
	vcsw_print_u64("lost_units", v->lost_units);
	vcsw_print_u64("twice_units", v->twice_units);
	vcsw_print_u64("late_units", v->late_units);
	vcsw_print_u64("tx_credits", v->tx_credits);
	vcsw_print_u64("rx_buffer", v->rx_buffer);
	vcsw_print_u64("rx_held", v->rx_held);
	close_json_object();
}

/*
 * The credit counters; per VC the counters and the books now (VCs 2 and
 * 3 from @vc_rta, when the switch has them).
 */
static void vcsw_slave_print_credits(struct rtattr *rta, struct rtattr *const *vc_rta)
{
	struct vcsw_credit_stats cs = { 0 };
	unsigned int vc;

	if (!rta)
		return;
	memcpy(&cs, RTA_DATA(rta), RTA_PAYLOAD(rta) < sizeof(cs) ?
	       RTA_PAYLOAD(rta) : sizeof(cs));
	/* in JSON not "credits": beside the option of that name */
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "\n    credits: ");
	open_json_object("credit_stats");
	vcsw_print_u64("msgs_sent", cs.msgs_sent);
	vcsw_print_u64("msgs_received", cs.msgs_received);
	vcsw_print_u64("msgs_malformed", cs.msgs_malformed);
	vcsw_print_u64("msgs_unit", cs.msgs_unit);
	vcsw_print_u64("msgs_stale", cs.msgs_stale);
	vcsw_print_u64("msgs_off", cs.msgs_off);
	vcsw_print_u64("msgs_tx_fail", cs.msgs_tx_fail);
	vcsw_print_u64("resyncs", cs.resyncs);
	vcsw_print_u64("peer_epochs", cs.peer_epochs);
	vcsw_print_u64("restarts", cs.restarts);
	close_json_object();
	/*
	 * Objects of their own, not "vc0" inside "credits": the tests find
	 * an object by its name in the whole dump, and "vc0" is the output's
	 */
	for (vc = 0; vc < VCSW_NUM_VCS; vc++) {
		struct vcsw_credit_vc_stats v = {
			.stalls = cs.stalls[vc], .violations = cs.violations[vc],
			.lost_units = cs.lost_units[vc], .twice_units = cs.twice_units[vc],
			.late_units = cs.late_units[vc], .tx_credits = cs.tx_credits[vc],
			.rx_buffer = cs.rx_buffer[vc], .rx_held = cs.rx_held[vc],
		};

		vcsw_slave_print_credit_vc(vc, &v);
	}
	for (; vc < VCSW_MAX_VCS; vc++) {
		struct vcsw_credit_vc_stats v = { 0 };
		struct rtattr *rta = vc_rta[vc - VCSW_NUM_VCS];

		if (!rta)
			continue;
		memcpy(&v, RTA_DATA(rta), RTA_PAYLOAD(rta) < sizeof(v) ?
		       RTA_PAYLOAD(rta) : sizeof(v));
		vcsw_slave_print_credit_vc(vc, &v);
	}
}

/*
 * The port's RECN counters (the kernel sends them in arch recn only):
 * both VCs and both sides of the port summed, and the link's RECN frames.
 */
static void vcsw_slave_print_recn(struct rtattr *rta)
{
	struct vcsw_recn_stats rs = { 0 };

	if (!rta)
		return;
	memcpy(&rs, RTA_DATA(rta), RTA_PAYLOAD(rta) < sizeof(rs) ?
	       RTA_PAYLOAD(rta) : sizeof(rs));
	/* in JSON not "recn": beside the option of that name */
	print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "\n    recn: ");
	open_json_object("recn_stats");
	vcsw_print_u64("notify_tx", rs.notify_tx);
	vcsw_print_u64("notify_rx", rs.notify_rx);
	vcsw_print_u64("xoff_tx", rs.xoff_tx);
	vcsw_print_u64("xoff_rx", rs.xoff_rx);
	vcsw_print_u64("xon_tx", rs.xon_tx);
	vcsw_print_u64("xon_rx", rs.xon_rx);
	vcsw_print_u64("release_tx", rs.release_tx);
	vcsw_print_u64("release_rx", rs.release_rx);
	vcsw_print_u64("full_tx", rs.full_tx);
	vcsw_print_u64("full_rx", rs.full_rx);
	vcsw_print_u64("saq_alloc", rs.saq_alloc);
	vcsw_print_u64("saq_free", rs.saq_free);
	vcsw_print_u64("saq_idle_free", rs.saq_idle_free);
	vcsw_print_u64("saq_full", rs.saq_full);
	vcsw_print_u64("saqs", rs.saqs);
	vcsw_print_u64("root_alloc", rs.root_alloc);
	vcsw_print_u64("root_full", rs.root_full);
	vcsw_print_u64("lease_expired", rs.lease_expired);
	vcsw_print_u64("stale_rx", rs.stale_rx);
	vcsw_print_u64("bad_rx", rs.bad_rx);
	vcsw_print_u64("frames_tx", rs.frames_tx);
	vcsw_print_u64("frames_rx", rs.frames_rx);
	vcsw_print_u64("frames_refused", rs.frames_refused);
	vcsw_print_u64("msgs_dropped", rs.msgs_dropped);
	close_json_object();
}

static void vcsw_slave_print_opt(struct link_util *lu, FILE *f,
				 struct rtattr *tb[])
{
	struct vcsw_port_stats ps = { 0 };
	const __u8 *trust, *exceed;
	const __s32 *ttd;
	const __u64 *rate;
	const __u32 *u32;
	struct rtattr *credit_vc[VCSW_MAX_VCS - VCSW_NUM_VCS];
	unsigned int vc;

	if (!tb)
		return;
	credit_vc[0] = tb[IFLA_VCSW_PORT_VC2_CREDIT_STATS];
	credit_vc[1] = tb[IFLA_VCSW_PORT_VC3_CREDIT_STATS];

	u32 = vcsw_rta_data(tb[IFLA_VCSW_PORT_INDEX], sizeof(*u32));
	if (u32)
		print_color_uint(PRINT_ANY, COLOR_NONE, "port_index", "port_index %u ", *u32);
	rate = vcsw_rta_data(tb[IFLA_VCSW_PORT_RATE], sizeof(*rate));
	if (rate)
		vcsw_print_u64("rate", *rate);
	trust = vcsw_rta_data(tb[IFLA_VCSW_PORT_TRUST], sizeof(*trust));
	if (trust)
		print_color_on_off(PRINT_ANY, COLOR_NONE, "trust", "trust %s ", *trust);
	rate = vcsw_rta_data(tb[IFLA_VCSW_PORT_VC0_RATE], sizeof(*rate));
	if (rate)
		vcsw_print_rate("vc0_rate", *rate);
	u32 = vcsw_rta_data(tb[IFLA_VCSW_PORT_VC0_BURST], sizeof(*u32));
	if (u32)
		print_color_uint(PRINT_ANY, COLOR_NONE, "vc0_burst", "vc0_burst %u ", *u32);
	exceed = vcsw_rta_data(tb[IFLA_VCSW_PORT_VC0_EXCEED], sizeof(*exceed));
	if (exceed)
		print_color_string(PRINT_ANY, COLOR_NONE, "vc0_exceed", "vc0_exceed %s ",
				   *exceed <= VCSW_EXCEED_MAX ? vcsw_exceed_names[*exceed] :
								"unknown");
	ttd = vcsw_rta_data(tb[IFLA_VCSW_PORT_TTD_MIN], sizeof(*ttd));
	if (ttd)
		print_color_int(PRINT_ANY, COLOR_NONE, "ttd_min", "ttd_min %dns ", *ttd);
	ttd = vcsw_rta_data(tb[IFLA_VCSW_PORT_TTD_MAX], sizeof(*ttd));
	if (ttd)
		print_color_int(PRINT_ANY, COLOR_NONE, "ttd_max", "ttd_max %dns ", *ttd);
	trust = vcsw_rta_data(tb[IFLA_VCSW_PORT_CREDITS], sizeof(*trust));
	if (trust)
		print_color_on_off(PRINT_ANY, COLOR_NONE, "credits", "credits %s ", *trust);
	u32 = vcsw_rta_data(tb[IFLA_VCSW_PORT_CREDIT_UNIT], sizeof(*u32));
	if (u32)
		print_color_uint(PRINT_ANY, COLOR_NONE, "credit_unit", "credit_unit %u ", *u32);
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		char name[16], fmt[24];

		/* VCs 2 and 3 only where the switch has them */
		if (vc >= VCSW_NUM_VCS && !tb[vcsw_out_stats_attr[vc]])
			continue;
		u32 = vcsw_rta_data(tb[vcsw_in_buffer_attr[vc]], sizeof(*u32));
		if (!u32)
			continue;
		snprintf(name, sizeof(name), "vc%u_in_buffer", vc);
		snprintf(fmt, sizeof(fmt), "%s %%u ", name);
		print_color_uint(PRINT_ANY, COLOR_NONE, name, fmt, *u32);
	}
	trust = vcsw_rta_data(tb[IFLA_VCSW_PORT_RECN], sizeof(*trust));
	if (trust)
		print_color_on_off(PRINT_ANY, COLOR_NONE, "recn", "recn %s ", *trust);
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
		vcsw_print_u64("police_drop", ps.police_drop);
		vcsw_print_u64("police_demote", ps.police_demote);
		vcsw_print_u64("ttd_clamped", ps.ttd_clamped);
		vcsw_print_u64("rx_routed", ps.rx_routed);
		vcsw_print_u64("drop_route", ps.drop_route);
		vcsw_print_u64("drop_unrouted", ps.drop_unrouted);
		vcsw_print_u64("drop_gso", ps.drop_gso);
		close_json_object();
	}
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		char name[8];

		snprintf(name, sizeof(name), "vc%u", vc);
		vcsw_slave_print_vc(name, tb[vcsw_out_stats_attr[vc]]);
	}
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		char name[8];

		snprintf(name, sizeof(name), "in_vc%u", vc);
		vcsw_slave_print_vc(name, tb[vcsw_in_stats_attr[vc]]);
	}
	vcsw_slave_print_credits(tb[IFLA_VCSW_PORT_CREDIT_STATS], credit_vc);
	vcsw_slave_print_recn(tb[IFLA_VCSW_PORT_RECN_STATS]);
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
