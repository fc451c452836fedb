// SPDX-License-Identifier: GPL-2.0
/*
 * qsim port: a switch output port with two VCs, driven by a trace.
 *
 * Input, one arrival per line (blank lines and '#' comments skipped),
 * in non-decreasing time:
 *
 *	time_ns flow len deadline_ns vc
 *
 * The port (kernel/core/vcsw_port.h, the same code as the vcsw module)
 * serves VC0 in the chosen discipline strictly before the VC1 FIFO on a
 * link of the given rate.  Output: one line per departure, then the
 * statistics per VC and the number of flows that were reordered.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "qsim.h"
#include "core/vcsw_port.h"

struct port_pkt {
	struct vcsw_node node;	/* first: the core hands it back */
	fq_u64 arrival;
	fq_u32 flow;
	fq_u64 seq;
};

static void port_usage(FILE *out)
{
	fprintf(out,
		"usage: qsim port [ --mode { fifo | takeover | ideal } ] [ --rate BYTES_PER_S ]\n"
		"                 [ --buffer0 BYTES ] [ --buffer1 BYTES ] [ --quiet ] [ FILE ]\n"
		"  reads arrivals \"time_ns flow len deadline_ns vc\" from FILE or stdin;\n"
		"  prints \"dep time_ns flow len deadline_ns vc sojourn_ns ttd_ns\" per departure\n"
		"  (--quiet: statistics only).  Times and deadlines at most 2^62 ns.\n"
		"  Defaults: takeover, 125000000 (1 Gbit/s), buffers 65536 bytes each.\n");
}

static void port_print_vc(int vc, const struct vcsw_vc *v)
{
	struct vcsw_vc_stats st;
	int b;

	vcsw_vc_read_stats(v, &st);
	printf("vc%d mode %s packets %" PRIu64 " bytes %" PRIu64 " drops_full %" PRIu64
	       " max_backlog_bytes %" PRIu64 " max_backlog_packets %" PRIu64
	       " takeovers %" PRIu64 " order_errors %" PRIu64
	       " deadline_misses %" PRIu64 "\n",
	       vc, vcsw_mode_name(v->mode), (uint64_t)st.packets,
	       (uint64_t)st.bytes, (uint64_t)st.drops_full,
	       (uint64_t)st.max_backlog_bytes,
	       (uint64_t)st.max_backlog_packets, (uint64_t)st.takeovers,
	       (uint64_t)st.order_errors, (uint64_t)st.deadline_misses);
	printf("vc%d sojourn_us", vc);
	for (b = 0; b < VCSW_SOJOURN_BUCKETS; b++)
		printf(" %" PRIu64, (uint64_t)st.sojourn_hist[b]);
	printf("\n");
}

static int port_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "rate", required_argument, NULL, 'r' },
		{ "buffer0", required_argument, NULL, '0' },
		{ "buffer1", required_argument, NULL, '1' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	fq_u64 rate = 125000000, buf[2] = { 65536, 65536 }, now = 0, v;
	struct qsim_flow *flows = NULL;
	struct port_pkt *pkts = NULL;
	size_t npkts = 0, cap = 0, nflows = 0, next = 0, i;
	int mode = VCSW_MODE_TAKEOVER, quiet = 0, c, reordered = 0;
	struct vcsw_port port;
	FILE *in = stdin;
	char line[512];
	unsigned long lineno = 0;
	int r;

	while ((c = getopt_long(argc, argv, "m:r:q0:1:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			for (mode = 0; mode <= VCSW_MODE_MAX; mode++)
				if (!strcmp(optarg, vcsw_mode_name(mode)))
					break;
			if (mode > VCSW_MODE_MAX) {
				fprintf(stderr, "qsim port: unknown mode \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'r':
			if (!parse_u64(optarg, 10, EDF_RATE_MAX, &rate)) {
				fprintf(stderr, "qsim port: bad rate \"%s\"\n", optarg);
				return 2;
			}
			break;
		case '0':
		case '1':
			if (!parse_u64(optarg, 10, UINT32_MAX, &v)) {
				fprintf(stderr, "qsim port: bad buffer \"%s\"\n", optarg);
				return 2;
			}
			buf[c - '0'] = v;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			port_usage(stdout);
			return 0;
		default:
			port_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		in = fopen(argv[optind], "r");
		if (!in) {
			perror(argv[optind]);
			return 1;
		}
	}

	while ((r = read_line(line, sizeof(line), in))) {
		uint64_t t, flow, len, dl, vc;
		struct qsim_flow *f;
		char *p, *w[5];

		lineno++;
		if (r < 0) {
			fprintf(stderr, "qsim port: line %lu: longer than %zu characters\n",
				lineno, sizeof(line) - 1);
			return 1;
		}
		p = qsim_trace_data(line);
		if (!p)
			continue;
		if (split_words(p, QSIM_BLANKS, w, 5) != 5 ||
		    !parse_u64(w[0], 10, UINT64_MAX, &t) ||
		    !parse_u64(w[1], 10, UINT32_MAX, &flow) ||
		    !parse_u64(w[2], 10, EDF_LEN_MAX, &len) || !len ||
		    !parse_u64(w[3], 10, UINT64_MAX, &dl) ||
		    !parse_u64(w[4], 10, VCSW_NUM_VCS - 1, &vc)) {
			fprintf(stderr, "qsim port: line %lu: want \"time_ns flow len(1..%u) deadline_ns vc(0|1)\"\n",
				lineno, EDF_LEN_MAX);
			return 1;
		}
		/* further on, the clock would run into 2^64 - 1, "no next event" */
		if (t > QSIM_TIME_MAX || dl > QSIM_TIME_MAX) {
			fprintf(stderr, "qsim port: line %lu: time_ns and deadline_ns at most 2^62\n",
				lineno);
			return 1;
		}
		if (npkts && t < pkts[npkts - 1].arrival) {
			fprintf(stderr, "qsim port: line %lu: time goes backwards\n", lineno);
			return 1;
		}
		if (qsim_reserve((void **)&pkts, &cap, npkts, sizeof(*pkts))) {
			fprintf(stderr, "qsim port: out of memory\n");
			return 1;
		}
		f = qsim_flow_of(&flows, &nflows, (uint32_t)flow);
		if (!f) {
			fprintf(stderr, "qsim port: out of memory\n");
			return 1;
		}
		memset(&pkts[npkts], 0, sizeof(pkts[npkts]));
		pkts[npkts].arrival = t;
		pkts[npkts].flow = (fq_u32)flow;
		pkts[npkts].seq = f->next_seq++;
		pkts[npkts].node.deadline = dl;
		pkts[npkts].node.len = (fq_u32)len;
		pkts[npkts].node.vc = (fq_u8)vc;
		pkts[npkts].node.timed = true;
		npkts++;
	}
	if (in != stdin)
		fclose(in);

	vcsw_port_init(&port, (fq_u8)mode, (fq_u32)buf[0], (fq_u32)buf[1], rate);
	while (next < npkts || vcsw_port_qlen(&port)) {
		fq_u64 td = edf_max(now, port.link_free);
		struct port_pkt *p;
		struct qsim_flow *f;

		if (next < npkts && (!vcsw_port_qlen(&port) ||
				     pkts[next].arrival <= td)) {
			p = &pkts[next++];
			now = edf_max(now, p->arrival);
			if (vcsw_port_enqueue(&port, &p->node, now) && !quiet)
				printf("drop %" PRIu64 " %u %u %" PRIu64 " %u\n",
				       (uint64_t)now, p->flow, p->node.len,
				       (uint64_t)p->node.deadline, p->node.vc);
			continue;
		}
		now = td;
		p = (struct port_pkt *)vcsw_port_dequeue(&port, now);
		f = qsim_flow_of(&flows, &nflows, p->flow);
		if (!qsim_flow_departs(f, p->seq))
			reordered++;
		if (!quiet)
			printf("dep %" PRIu64 " %u %u %" PRIu64 " %u %" PRIu64 " %" PRId64 "\n",
			       (uint64_t)now, p->flow, p->node.len,
			       (uint64_t)p->node.deadline, p->node.vc,
			       (uint64_t)(now - p->arrival),
			       (int64_t)(p->node.deadline - now));
	}

	for (i = 0; i < VCSW_NUM_VCS; i++)
		port_print_vc((int)i, &port.vc[i]);
	printf("packets %zu flows %zu reordered %d\n", npkts, nflows, reordered);
	free(pkts);
	free(flows);
	return reordered ? 3 : 0;
}

const struct qsim_cmd qsim_cmd_port = {
	.name = "port",
	.summary = "switch output port, two VCs (fifo / takeover / ideal)",
	.main = port_main,
};
