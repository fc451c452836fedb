// SPDX-License-Identifier: GPL-2.0
/*
 * qsim switch: the combined input/output buffered switch of the EDF paper
 * (kernel/core/vcsw_xbar.h), lossless, driven by a trace.
 *
 * Input, one frame per line (blank lines and '#' comments skipped), in
 * non-decreasing time:
 *
 *	time_ns flow len deadline_ns vc in out
 *
 * A frame offered at time_ns waits at its host until the input buffer of
 * port @in has room for it on its VC (what credits would allow; a host's
 * frames of one VC enter in trace order), crosses to output @out when the
 * crossbar chooses it and @out's VC has room, and leaves on @out's link
 * at the given rate.  The host-to-switch links are not modelled (they
 * deliver at once).  Output: one line per departure, then the counters of
 * every port's input and output VCs and the number of reordered flows.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "qsim.h"
#include "core/vcsw_xbar.h"

#define SW_MAX_PORTS	64

struct sw_pkt {
	struct vcsw_node node;	/* first: the core hands it back */
	fq_u64 offered;
	fq_u32 flow;
	fq_u32 in;
	fq_u64 seq;		/* per flow, in trace order */
	size_t next_src;	/* next frame of the same host queue, or -1 */
};

/* Frames waiting at the host of one input port and VC: a FIFO of indices. */
struct sw_src {
	size_t head, tail;	/* (size_t)-1: empty */
};

static void sw_usage(FILE *out)
{
	fprintf(out,
		"usage: qsim switch [ --arch { trad | simple | advanced | ideal } ]\n"
		"                   [ --rate BYTES_PER_S ] [ --in-buffer BYTES ]\n"
		"                   [ --out-buffer BYTES ] [ --vcs { 2 | 3 | 4 } ] [ --quiet ] [ FILE ]\n"
		"  reads frames \"time_ns flow len deadline_ns vc in out\" from FILE or\n"
		"  stdin (ports 0..%d, vc below --vcs, each VC strictly before the next;\n"
		"  4: Traditional 4 VCs); prints \"dep time_ns flow len deadline_ns vc in out\n"
		"  sojourn_ns ttd_ns\" per departure (--quiet: counters only); times and\n"
		"  deadlines at most 2^62 ns.  Defaults: advanced, 125000000 (1 Gbit/s) per\n"
		"  output link, 8192-byte buffers per VC (the paper's 8 KB), 2 VCs.\n",
		SW_MAX_PORTS - 1);
}

static void sw_print_vc(unsigned int port, const char *side, unsigned int vc,
			const struct vcsw_vc *v)
{
	struct vcsw_vc_stats st;

	vcsw_vc_read_stats(v, &st);
	printf("port %u %s vc%u mode %s packets %" PRIu64 " bytes %" PRIu64
	       " drops_full %" PRIu64 " max_backlog_bytes %" PRIu64
	       " takeovers %" PRIu64 " order_errors %" PRIu64 "\n",
	       port, side, vc, vcsw_mode_name(v->mode), (uint64_t)st.packets,
	       (uint64_t)st.bytes, (uint64_t)st.drops_full,
	       (uint64_t)st.max_backlog_bytes, (uint64_t)st.takeovers,
	       (uint64_t)st.order_errors);
}

/* Let every host send what its input buffer has room for, in order. */
static void sw_admit(struct vcsw_xport *const *ports,
		     struct sw_src (*src)[VCSW_MAX_VCS], struct sw_pkt *pkts,
		     unsigned int nports, unsigned int vcs, fq_u64 now)
{
	unsigned int p, vc;

	for (p = 0; p < nports; p++) {
		for (vc = 0; vc < vcs; vc++) {
			struct sw_src *s = &src[p][vc];

			while (s->head != (size_t)-1) {
				struct sw_pkt *k = &pkts[s->head];

				if (!vcsw_vc_has_room(&ports[p]->in[vc], k->node.len))
					break;
				/* cannot be refused: the trace was checked */
				vcsw_xbar_arrive(ports, nports, p, &k->node, now);
				s->head = k->next_src;
				if (s->head == (size_t)-1)
					s->tail = (size_t)-1;
			}
		}
	}
}

static int sw_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "rate", required_argument, NULL, 'r' },
		{ "in-buffer", required_argument, NULL, 'i' },
		{ "out-buffer", required_argument, NULL, 'o' },
		{ "vcs", required_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct vcsw_xport xp[SW_MAX_PORTS];
	static struct sw_src src[SW_MAX_PORTS][VCSW_MAX_VCS];
	struct vcsw_xport *ports[SW_MAX_PORTS];
	fq_u64 rate = 125000000, inbuf = 8192, outbuf = 8192, now = 0, vcs = VCSW_NUM_VCS;
	unsigned int arch = VCSW_ARCH_ADVANCED, nports = 0, p, vc, cursor = 0;
	struct qsim_flow *flows = NULL;
	struct sw_pkt *pkts = NULL;
	size_t npkts = 0, cap = 0, nflows = 0, next = 0, done = 0;
	int quiet = 0, c, reordered = 0;
	unsigned long lineno = 0;
	FILE *in = stdin;
	char line[512];
	int r;

	while ((c = getopt_long(argc, argv, "a:r:i:o:v:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			/* recn is a fabric's: "qsim recn" */
			for (arch = 0; arch < VCSW_ARCH_RECN; arch++)
				if (!strcmp(optarg, vcsw_arch_name(arch)))
					break;
			if (arch == VCSW_ARCH_RECN) {
				fprintf(stderr, "qsim switch: unknown architecture \"%s\"\n",
					optarg);
				return 2;
			}
			break;
		case 'r':
			if (!parse_u64(optarg, 10, EDF_RATE_MAX, &rate) || !rate) {
				fprintf(stderr, "qsim switch: bad rate \"%s\" (1..%llu)\n",
					optarg, (unsigned long long)EDF_RATE_MAX);
				return 2;
			}
			break;
		case 'i':
		case 'o':
			if (!parse_u64(optarg, 10, UINT32_MAX, c == 'i' ? &inbuf : &outbuf)) {
				fprintf(stderr, "qsim switch: bad buffer \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'v':
			if (!parse_u64(optarg, 10, VCSW_MAX_VCS, &vcs) || vcs < VCSW_NUM_VCS) {
				fprintf(stderr, "qsim switch: bad --vcs \"%s\" (2..%d)\n",
					optarg, VCSW_MAX_VCS);
				return 2;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			sw_usage(stdout);
			return 0;
		default:
			sw_usage(stderr);
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
		uint64_t t, flow, len, dl, fvc, fin, fout;
		struct qsim_flow *f;
		struct sw_pkt *k;
		char *s, *w[7];

		lineno++;
		if (r < 0) {
			fprintf(stderr, "qsim switch: line %lu: longer than %zu characters\n",
				lineno, sizeof(line) - 1);
			return 1;
		}
		s = qsim_trace_data(line);
		if (!s)
			continue;
		if (split_words(s, QSIM_BLANKS, w, 7) != 7 ||
		    !parse_u64(w[0], 10, UINT64_MAX, &t) ||
		    !parse_u64(w[1], 10, UINT32_MAX, &flow) ||
		    !parse_u64(w[2], 10, EDF_LEN_MAX, &len) || !len ||
		    !parse_u64(w[3], 10, UINT64_MAX, &dl) ||
		    !parse_u64(w[4], 10, vcs - 1, &fvc) ||
		    !parse_u64(w[5], 10, SW_MAX_PORTS - 1, &fin) ||
		    !parse_u64(w[6], 10, SW_MAX_PORTS - 1, &fout) || fin == fout) {
			fprintf(stderr, "qsim switch: line %lu: want \"time_ns flow len(1..%u) deadline_ns vc(0..%u) in out\", in and out two ports of 0..%d\n",
				lineno, EDF_LEN_MAX, (unsigned int)vcs - 1, SW_MAX_PORTS - 1);
			return 1;
		}
		/* further on, the clock would run into 2^64 - 1, "no next event" */
		if (t > QSIM_TIME_MAX || dl > QSIM_TIME_MAX) {
			fprintf(stderr, "qsim switch: line %lu: time_ns and deadline_ns at most 2^62\n",
				lineno);
			return 1;
		}
		if (len > inbuf || len > outbuf) {
			fprintf(stderr, "qsim switch: line %lu: a %u-byte frame never fits a %llu-byte buffer\n",
				lineno, (unsigned int)len,
				(unsigned long long)(len > inbuf ? inbuf : outbuf));
			return 1;
		}
		if (npkts && t < pkts[npkts - 1].offered) {
			fprintf(stderr, "qsim switch: line %lu: time goes backwards\n", lineno);
			return 1;
		}
		if (qsim_reserve((void **)&pkts, &cap, npkts, sizeof(*pkts))) {
			fprintf(stderr, "qsim switch: out of memory\n");
			return 1;
		}
		f = qsim_flow_of(&flows, &nflows, (uint32_t)flow);
		if (!f) {
			fprintf(stderr, "qsim switch: out of memory\n");
			return 1;
		}
		k = &pkts[npkts++];
		memset(k, 0, sizeof(*k));
		k->offered = t;
		k->flow = (fq_u32)flow;
		k->in = (fq_u32)fin;
		k->seq = f->next_seq++;
		k->node.deadline = dl;
		k->node.len = (fq_u32)len;
		k->node.vc = (fq_u8)fvc;
		k->node.out = (fq_u16)fout;
		k->node.timed = true;
		if (fin >= nports)
			nports = (unsigned int)fin + 1;
		if (fout >= nports)
			nports = (unsigned int)fout + 1;
	}
	if (in != stdin)
		fclose(in);

	for (p = 0; p < nports; p++) {
		vcsw_xport_init(&xp[p], arch, (fq_u32)inbuf, (fq_u32)outbuf, rate);
		vcsw_xport_set_vcs(&xp[p], (unsigned int)vcs);
		ports[p] = &xp[p];
		for (vc = 0; vc < VCSW_MAX_VCS; vc++)
			src[p][vc].head = src[p][vc].tail = (size_t)-1;
	}

	while (done < npkts) {
		fq_u64 next_t = (fq_u64)-1;
		bool moved = true;

		/* the hosts offer what is due */
		while (next < npkts && pkts[next].offered <= now) {
			struct sw_pkt *k = &pkts[next];
			struct sw_src *s = &src[k->in][k->node.vc];

			k->next_src = (size_t)-1;
			if (s->tail == (size_t)-1)
				s->head = next;
			else
				pkts[s->tail].next_src = next;
			s->tail = next++;
		}
		/* hosts, crossbar and links until nothing moves at @now */
		while (moved) {
			moved = false;
			sw_admit(ports, src, pkts, nports, (unsigned int)vcs, now);
			if (vcsw_xbar_run(ports, nports, arch, now, ~0u, &cursor))
				moved = true;
			for (p = 0; p < nports; p++) {
				struct sw_pkt *k;
				struct qsim_flow *f;

				if (!vcsw_port_qlen(&xp[p].out) ||
				    !vcsw_port_link_ready(&xp[p].out, now))
					continue;
				k = (struct sw_pkt *)vcsw_port_dequeue(&xp[p].out, now);
				moved = true;
				done++;
				f = qsim_flow_of(&flows, &nflows, k->flow);
				if (!qsim_flow_departs(f, k->seq))
					reordered++;
				if (!quiet)
					printf("dep %" PRIu64 " %u %u %" PRIu64 " %u %u %u %" PRIu64 " %" PRId64 "\n",
					       (uint64_t)now, k->flow, k->node.len,
					       (uint64_t)k->node.deadline, k->node.vc,
					       k->in, k->node.out,
					       (uint64_t)(now - k->offered),
					       (int64_t)(k->node.deadline - now));
			}
		}
		/* the next thing to happen: an offer or a link coming free */
		if (next < npkts)
			next_t = pkts[next].offered;
		for (p = 0; p < nports; p++)
			if (vcsw_port_qlen(&xp[p].out) && xp[p].out.link_free > now &&
			    xp[p].out.link_free < next_t)
				next_t = xp[p].out.link_free;
		if (next_t == (fq_u64)-1) {
			if (done < npkts) {
				fprintf(stderr, "qsim switch: stuck with %zu of %zu frames out\n",
					done, npkts);
				return 1;
			}
			break;
		}
		now = next_t;
	}

	for (p = 0; p < nports; p++) {
		for (vc = 0; vc < vcs; vc++)
			sw_print_vc(p, "in", vc, &xp[p].in[vc]);
		for (vc = 0; vc < vcs; vc++)
			sw_print_vc(p, "out", vc, &xp[p].out.vc[vc]);
	}
	printf("arch %s packets %zu flows %zu reordered %d\n",
	       vcsw_arch_name(arch), npkts, nflows, reordered);
	free(pkts);
	free(flows);
	return reordered ? 3 : 0;
}

const struct qsim_cmd qsim_cmd_switch = {
	.name = "switch",
	.summary = "input/output buffered switch, lossless (trad / simple / advanced / ideal)",
	.main = sw_main,
};
