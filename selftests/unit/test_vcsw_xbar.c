// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the input-buffered switch's crossbar
 * (kernel/core/vcsw_xbar.h): the choice among inputs in each
 * architecture on hand-made cases (merging ordered chains, round robin,
 * only the chosen head checked for room, head-of-line blocking, VC0
 * first), then random traffic through four ports: nothing lost, no
 * buffer overfilled, no flow reordered.
 */
#include "unit.h"
#include "core/vcsw_xbar.h"
#include "xbar_plain.h"

#define NPORTS	4
#define MAXF	20000

struct frame {
	struct vcsw_node node;
	fq_u32 flow;
	fq_u32 seq;
};

static struct frame frames[MAXF];
static unsigned int nframes;
static struct vcsw_xport xp[NPORTS];
static struct vcsw_xport *ports[NPORTS] = { &xp[0], &xp[1], &xp[2], &xp[3] };
static unsigned int cursor;
/* the deadline architectures; arch recn has sets: test_vcsw_recn.c */
#define NARCH	(VCSW_ARCH_IDEAL + 1)


static void setup_vcs(unsigned int arch, fq_u32 in_limit, fq_u32 out_limit,
		      unsigned int vcs)
{
	unsigned int p;

	nframes = 0;
	cursor = 0;
	for (p = 0; p < NPORTS; p++) {
		vcsw_xport_init(&xp[p], arch, in_limit, out_limit, 0);
		vcsw_xport_set_vcs(&xp[p], vcs);
	}
}

static void setup(unsigned int arch, fq_u32 in_limit, fq_u32 out_limit)
{
	setup_vcs(arch, in_limit, out_limit, VCSW_NUM_VCS);
}

static struct frame *mk(fq_u64 deadline, fq_u32 len, unsigned int vc,
			unsigned int out)
{
	struct frame *f = &frames[nframes++];

	memset(f, 0, sizeof(*f));
	f->node.deadline = deadline;
	f->node.len = len;
	f->node.vc = (fq_u8)vc;
	f->node.out = (fq_u16)out;
	return f;
}

static int arrive(unsigned int in, fq_u64 deadline, fq_u32 len,
		  unsigned int vc, unsigned int out)
{
	return vcsw_xbar_arrive(ports, NPORTS, in, &mk(deadline, len, vc, out)->node, 0);
}

static unsigned int xrun(unsigned int arch, fq_u64 now, unsigned int budget)
{
	return vcsw_xbar_run(ports, NPORTS, arch, now, budget, &cursor);
}

/* Deadlines of output @o's departures, in order, into @d; their count. */
static unsigned int drain(unsigned int o, fq_u64 *d, unsigned int max)
{
	struct vcsw_node *n;
	unsigned int k = 0;

	while (k < max && (n = vcsw_port_dequeue(&xp[o].out, 0)))
		d[k++] = n->deadline;
	return k;
}

UNIT_TEST(arch_buffers)
{
	EXPECT_EQ(vcsw_arch_vc_mode(VCSW_ARCH_TRAD, 0), VCSW_MODE_FIFO);
	EXPECT_EQ(vcsw_arch_vc_mode(VCSW_ARCH_SIMPLE, 0), VCSW_MODE_FIFO);
	EXPECT_EQ(vcsw_arch_vc_mode(VCSW_ARCH_ADVANCED, 0), VCSW_MODE_TAKEOVER);
	EXPECT_EQ(vcsw_arch_vc_mode(VCSW_ARCH_ADVANCED, 1), VCSW_MODE_FIFO);
	EXPECT_EQ(vcsw_arch_vc_mode(VCSW_ARCH_IDEAL, 1), VCSW_MODE_IDEAL);
	setup(VCSW_ARCH_IDEAL, 8192, 8192);
	EXPECT_EQ(xp[2].in[1].mode, VCSW_MODE_IDEAL);
	EXPECT_EQ(xp[2].out.vc[1].mode, VCSW_MODE_IDEAL);
	EXPECT_TRUE(!strcmp(vcsw_arch_name(VCSW_ARCH_ADVANCED), "advanced"));
}

/*
 * Three inputs with ordered chains (input i: deadlines i, i + 3, i + 6,
 * ...) all for output 3: the deadline arbiters merge them into one
 * ordered sequence; round robin does not, as soon as the chains are
 * not in step.
 */
UNIT_TEST(deadline_arbiters_merge_ordered_chains)
{
	unsigned int arch, i, k, n;
	fq_u64 d[64];

	for (arch = 0; arch < NARCH; arch++) {
		/* the output holds one frame: the crossbar's choice is the order */
		setup(arch, 1 << 20, 100);
		for (i = 0; i < 3; i++)
			for (k = 0; k < 10; k++)
				/* input 0's chain runs ahead: 0, 1, 2, ... */
				EXPECT_EQ(arrive(i, i == 0 ? k : 100 + 3 * k + i, 100, 0, 3),
					  VCSW_ENQ_OK);
		for (n = 0; n < 64 && xrun(arch, 0, ~0u); n++)
			EXPECT_EQ(drain(3, &d[n], 1), 1);
		EXPECT_EQ(n, 30);
		for (k = 1, i = 0; k < n; k++)
			i += d[k] < d[k - 1];
		if (arch == VCSW_ARCH_TRAD) {
			if (!i)
				UNIT_FAIL("round robin came out sorted");
		} else if (i) {
			UNIT_FAIL("%s: %u frames out of deadline order",
				  vcsw_arch_name(arch), i);
		}
	}
}

/* The input buffers keep their own order: ideal and advanced reorder. */
UNIT_TEST(input_buffers_sort_as_their_architecture)
{
	static const fq_u64 want[NARCH][4] = {
		[VCSW_ARCH_TRAD]	= { 30, 10, 20, 5 },
		[VCSW_ARCH_SIMPLE]	= { 30, 10, 20, 5 },
		/* 10, 20 and 5 go to the take-over FIFO behind 30's L */
		[VCSW_ARCH_ADVANCED]	= { 10, 20, 5, 30 },
		[VCSW_ARCH_IDEAL]	= { 5, 10, 20, 30 },
	};
	unsigned int arch, n;
	fq_u64 d[4];

	for (arch = 0; arch < NARCH; arch++) {
		setup(arch, 1 << 20, 100);
		arrive(0, 30, 100, 0, 1);
		arrive(0, 10, 100, 0, 1);
		arrive(0, 20, 100, 0, 1);
		arrive(0, 5, 100, 0, 1);
		for (n = 0; n < 4 && xrun(arch, 0, ~0u); n++)
			drain(1, &d[n], 1);
		EXPECT_EQ(n, 4);
		EXPECT_MEM_EQ(d, want[arch], sizeof(d));
	}
}

UNIT_TEST(round_robin_takes_inputs_in_turn)
{
	unsigned int k, count[NPORTS] = { 0 };

	setup(VCSW_ARCH_TRAD, 1 << 20, 1000);
	/* inputs 0, 1 and 2 each queue 300 frames for output 3 */
	for (k = 0; k < 300; k++) {
		arrive(0, 1000 + k, 100, 1, 3);
		arrive(1, 1, 100, 1, 3);		/* deadline no help */
		arrive(2, 5000 + k, 100, 1, 3);
	}
	/* output 3 takes ten at a time: 90 rounds */
	for (k = 0; k < 90; k++) {
		struct vcsw_node *n;

		EXPECT_EQ(xrun(VCSW_ARCH_TRAD, 0, ~0u), 10);
		while ((n = vcsw_port_dequeue(&xp[3].out, 0)))
			count[n->deadline == 1 ? 1 : n->deadline < 5000 ? 0 : 2]++;
		if (count[0] > count[1] + 1 || count[1] > count[0] + 1 ||
		    count[2] > count[0] + 1 || count[0] > count[2] + 1) {
			UNIT_FAIL("round %u: %u / %u / %u", k, count[0], count[1],
				  count[2]);
			return;
		}
	}
	EXPECT_EQ(count[0] + count[1] + count[2], 900);
}

UNIT_TEST(only_the_chosen_head_is_checked_for_room)
{
	unsigned int arch;

	for (arch = VCSW_ARCH_SIMPLE; arch < NARCH; arch++) {
		setup(arch, 1 << 20, 1600);
		/* 200 bytes already at output 2's VC0: room for 1400 */
		arrive(3, 1, 200, 0, 2);
		EXPECT_EQ(xrun(arch, 0, ~0u), 1);
		arrive(0, 5, 1500, 0, 2);		/* first, no room */
		arrive(1, 7, 60, 0, 2);			/* fits, but later */
		EXPECT_EQ(vcsw_xbar_pick(ports, NPORTS, 2, 0, arch, 0), -1);
		EXPECT_EQ(xrun(arch, 0, ~0u), 0);
		/* the 200 bytes leave: 5 goes, then 7 */
		vcsw_port_dequeue(&xp[2].out, 0);
		EXPECT_EQ(vcsw_xbar_pick(ports, NPORTS, 2, 0, arch, 0), 0);
		EXPECT_EQ(xrun(arch, 0, ~0u), 2);
		EXPECT_EQ(vcsw_port_dequeue(&xp[2].out, 0)->deadline, 5);
		EXPECT_EQ(vcsw_port_dequeue(&xp[2].out, 0)->deadline, 7);
	}
}

UNIT_TEST(a_full_output_blocks_the_frames_behind)
{
	unsigned int arch;

	for (arch = 0; arch < NARCH; arch++) {
		setup(arch, 1 << 20, 1000);
		/* output 1 full */
		arrive(3, 1, 1000, 1, 1);
		EXPECT_EQ(xrun(arch, 0, ~0u), 1);
		/* input 0: a frame for output 1, then one for idle output 2 */
		arrive(0, 10, 100, 1, 1);
		arrive(0, 20, 100, 1, 2);
		EXPECT_EQ(xrun(arch, 0, ~0u), 0);
		EXPECT_EQ(vcsw_port_qlen(&xp[2].out), 0);
		/* another input's frame for output 2 is not held up */
		arrive(3, 30, 100, 1, 2);
		EXPECT_EQ(xrun(arch, 0, ~0u), 1);
		/* output 1 drains: both of input 0's frames go */
		vcsw_port_dequeue(&xp[1].out, 0);
		EXPECT_EQ(xrun(arch, 0, ~0u), 2);
		EXPECT_EQ(vcsw_port_qlen(&xp[2].out), 2);
	}
}

UNIT_TEST(vc0_crosses_before_vc1)
{
	unsigned int arch;

	for (arch = 0; arch < NARCH; arch++) {
		setup(arch, 1 << 20, 1 << 20);
		arrive(0, 1, 100, 1, 3);	/* VC1, earlier deadline */
		arrive(1, 50, 100, 0, 3);
		arrive(1, 55, 100, 0, 3);	/* a second pass of VC0 */
		arrive(2, 60, 100, 0, 0);
		EXPECT_EQ(xrun(arch, 0, 3), 3);
		EXPECT_EQ(xp[3].out.vc[0].backlog, 200);
		EXPECT_EQ(xp[0].out.vc[0].backlog, 100);
		EXPECT_EQ(xp[3].out.vc[1].backlog, 0);
		EXPECT_EQ(xrun(arch, 0, 3), 1);
		EXPECT_EQ(xp[3].out.vc[1].backlog, 100);
	}
}

/*
 * Four VCs: the crossbar takes, for an output, the lowest VC that has a
 * frame for it, whatever the deadlines, in every architecture; a VC whose
 * output buffer is full holds only itself.  With two VCs, VC2 and VC3
 * frames are VC1's.
 */
UNIT_TEST(four_vcs_cross_in_vc_order)
{
	unsigned int arch, vc;
	struct vcsw_node *n;

	for (arch = 0; arch < NARCH; arch++) {
		setup_vcs(arch, 1 << 20, 1 << 20, 4);
		/* from three inputs to output 3: VC3 first in time, VC0 last */
		for (vc = 4; vc-- > 0;) {
			EXPECT_EQ(arrive(vc % 3, 10 - vc, 100, vc, 3), VCSW_ENQ_OK);
			EXPECT_EQ(arrive((vc + 1) % 3, 20 - vc, 100, vc, 3), VCSW_ENQ_OK);
		}
		for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
			EXPECT_EQ(xrun(arch, 0, 2), 2);
			EXPECT_EQ(xp[3].out.vc[vc].backlog, 200);
		}
		EXPECT_EQ(xrun(arch, 0, 10), 0);
		for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
			EXPECT_TRUE((n = vcsw_port_dequeue(&xp[3].out, 0)) && n->vc == vc);
			EXPECT_TRUE((n = vcsw_port_dequeue(&xp[3].out, 0)) && n->vc == vc);
		}
		/* VC1's output full: VC2 still crosses */
		setup_vcs(arch, 1 << 20, 1000, 4);
		xp[3].out.vc[1].limit = 100;
		EXPECT_EQ(arrive(0, 1, 100, 1, 3), VCSW_ENQ_OK);
		EXPECT_EQ(arrive(0, 2, 100, 1, 3), VCSW_ENQ_OK);
		EXPECT_EQ(arrive(1, 3, 100, 2, 3), VCSW_ENQ_OK);
		EXPECT_EQ(xrun(arch, 0, 10), 2);
		EXPECT_EQ(xp[3].out.vc[2].backlog, 100);
		EXPECT_EQ(vcsw_vc_qlen(&xp[0].in[1]), 1);

		/* two VCs: VC2 and VC3 wait and cross as VC1 */
		setup(arch, 1 << 20, 1 << 20);
		EXPECT_EQ(arrive(0, 1, 100, 3, 2), VCSW_ENQ_OK);
		EXPECT_EQ(arrive(0, 1, 100, 2, 2), VCSW_ENQ_OK);
		EXPECT_EQ(xp[0].in[1].backlog, 200);
		EXPECT_EQ(xrun(arch, 0, 10), 2);
		EXPECT_EQ(xp[2].out.vc[1].backlog, 200);
		EXPECT_EQ(xp[2].out.vc[2].backlog + xp[2].out.vc[3].backlog, 0);
	}
}

UNIT_TEST(frames_that_could_never_cross_are_refused)
{
	setup(VCSW_ARCH_SIMPLE, 1 << 20, 1500);
	EXPECT_EQ(arrive(0, 1, 100, 0, NPORTS), VCSW_ENQ_FULL);	/* no such port */
	EXPECT_EQ(arrive(0, 1, 100, 0, 0), VCSW_ENQ_FULL);	/* back out its own */
	EXPECT_EQ(arrive(0, 1, 2000, 1, 2), VCSW_ENQ_FULL);	/* output holds 1500 */
	EXPECT_EQ(xp[0].in[0].st.drops_full, 2);
	EXPECT_EQ(xp[0].in[1].st.drops_full, 1);
	EXPECT_EQ(vcsw_vc_qlen(&xp[0].in[0]) + vcsw_vc_qlen(&xp[0].in[1]), 0);
	/* what does fit still crosses */
	EXPECT_EQ(arrive(0, 1, 1500, 1, 2), VCSW_ENQ_OK);
	EXPECT_EQ(xrun(VCSW_ARCH_SIMPLE, 0, ~0u), 1);
}

/*
 * One frame per call: every output gets its turn, and VC1 frames for an
 * output without VC0 traffic cross while another output's VC0 is busy.
 */
UNIT_TEST(small_budgets_serve_every_output)
{
	unsigned int arch, k, got1 = 0, got3 = 0;

	for (arch = 0; arch < NARCH; arch++) {
		setup(arch, 1 << 20, 1 << 20);
		for (k = 0; k < 100; k++) {
			arrive(0, k, 100, 0, 1);	/* VC0 for output 1 */
			arrive(2, k, 100, 1, 3);	/* VC1 for output 3 */
		}
		got1 = got3 = 0;
		for (k = 0; k < 20; k++)
			EXPECT_EQ(xrun(arch, 0, 1), 1);
		got1 = vcsw_port_qlen(&xp[1].out);
		got3 = vcsw_port_qlen(&xp[3].out);
		if (got1 != 10 || got3 != 10)
			UNIT_FAIL("%s: 20 calls of one frame moved %u to output 1, %u to output 3",
				  vcsw_arch_name(arch), got1, got3);
	}
}

/*
 * Random traffic: 12 flows between random ports, each frame with a
 * deadline above its flow's last, arriving when its input buffer has
 * room (as credits would allow), outputs sending at random.  Every frame
 * must come out, no buffer may be refused a frame the crossbar moved,
 * no flow may be reordered.  Order errors at the outputs are summed per
 * architecture: the deadline arbiters must make fewer than round robin.
 */
#define NFLOWS	12

static void random_traffic(int *unit_failed, unsigned int vcs)
{
	fq_u64 out_errors[NARCH] = { 0 };
	unsigned int arch, trace;

	for (arch = 0; arch < NARCH; arch++) {
		unit_rnd_state = 0x5eed;
		for (trace = 0; trace < 200; trace++) {
			fq_u32 fin[NFLOWS], fout[NFLOWS], fvc[NFLOWS];
			fq_u64 fdl[NFLOWS], now = 0;
			fq_u32 next_seq[NFLOWS] = { 0 }, seen[NFLOWS] = { 0 };
			unsigned int f, p, vc, sent = 0, out = 0, want = 60 + unit_rnd() % 40;

			setup_vcs(arch, 2048 + unit_rnd() % 8192,
				  2048 + unit_rnd() % 8192, vcs);
			for (f = 0; f < NFLOWS; f++) {
				fin[f] = unit_rnd() % NPORTS;
				fout[f] = (fin[f] + 1 + unit_rnd() % (NPORTS - 1)) % NPORTS;
				fvc[f] = unit_rnd() % vcs;
				fdl[f] = unit_rnd() % 1000;
			}
			while (out < want * NFLOWS) {
				now += 100;
				for (f = 0; f < NFLOWS && sent < want * NFLOWS; f++) {
					struct frame *fr;
					fq_u32 len = 60 + unit_rnd() % 1455;

					if (next_seq[f] == want || unit_rnd() % 4 ||
					    !vcsw_vc_has_room(&xp[fin[f]].in[fvc[f]], len))
						continue;
					fdl[f] += unit_rnd() % 3000;
					fr = mk(fdl[f], len, fvc[f], fout[f]);
					fr->flow = f;
					fr->seq = next_seq[f]++;
					if (vcsw_xbar_arrive(ports, NPORTS, fin[f], &fr->node, now)) {
						UNIT_FAIL("input refused a frame with room");
						return;
					}
					sent++;
				}
				xrun(arch, now, ~0u);
				for (p = 0; p < NPORTS; p++) {
					struct frame *fr;

					if (unit_rnd() % 3)
						continue;
					fr = (struct frame *)vcsw_port_dequeue(&xp[p].out, now);
					if (!fr)
						continue;
					out++;
					/* strict priority: no lower VC was waiting */
					for (vc = 0; vc < fr->node.vc; vc++)
						if (vcsw_vc_qlen(&xp[p].out.vc[vc])) {
							UNIT_FAIL("%s: VC%u left before VC%u",
								  vcsw_arch_name(arch),
								  fr->node.vc, vc);
							return;
						}
					if (fr->seq != seen[fr->flow]++) {
						UNIT_FAIL("%s trace %u: flow %u frame %u after %u",
							  vcsw_arch_name(arch), trace, fr->flow,
							  fr->seq, seen[fr->flow] - 1);
						return;
					}
				}
				if (now > 100000000) {
					UNIT_FAIL("%s trace %u: stuck at %u of %u",
						  vcsw_arch_name(arch), trace, out,
						  want * NFLOWS);
					return;
				}
			}
			for (p = 0; p < NPORTS; p++) {
				for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
					out_errors[arch] += xp[p].out.vc[vc].st.order_errors;
					EXPECT_EQ(xp[p].out.vc[vc].st.drops_full, 0);
					EXPECT_EQ(vcsw_vc_qlen(&xp[p].in[vc]), 0);
				}
				/* nothing crossed on a VC the switch has not */
				for (vc = vcs; vc < VCSW_MAX_VCS; vc++)
					EXPECT_EQ(xp[p].out.vc[vc].st.packets, 0);
			}
		}
		printf("# %u VCs, %s: %" PRIu64 " order errors at the outputs\n",
		       vcs, vcsw_arch_name(arch), out_errors[arch]);
	}
	EXPECT_EQ(out_errors[VCSW_ARCH_IDEAL], 0);
	EXPECT_TRUE(out_errors[VCSW_ARCH_SIMPLE] < out_errors[VCSW_ARCH_TRAD]);
	EXPECT_TRUE(out_errors[VCSW_ARCH_ADVANCED] < out_errors[VCSW_ARCH_TRAD]);
}

UNIT_TEST(random_traffic_keeps_flows_whole)
{
	random_traffic(unit_failed, 2);
}

/* The same with four VCs, each strictly before the next at every output. */
UNIT_TEST(random_traffic_keeps_flows_whole_on_four_vcs)
{
	random_traffic(unit_failed, 4);
}

/*
 * A free slot holds a port of nothing, all zero (the module's
 * vcsw_xport_none, shared by every switch): no VCs, no frames.  When the
 * first slot is free (its port left, the others stay where they are),
 * the crossbar must still move the others' frames, in every
 * architecture, on both VCs.
 */
UNIT_TEST(a_free_first_slot_stops_nothing)
{
	static struct vcsw_xport none;
	struct vcsw_xport *slots[NPORTS] = { &none, &xp[1], &xp[2], &xp[3] };
	unsigned int arch, vc;

	for (arch = 0; arch < NARCH; arch++)
		for (vc = 0; vc < 2; vc++) {
			setup(arch, 8192, 8192);
			EXPECT_EQ(vcsw_xbar_arrive(slots, NPORTS, 1, &mk(5, 100, vc, 2)->node, 0),
				  VCSW_ENQ_OK);
			EXPECT_EQ(vcsw_xbar_arrive(slots, NPORTS, 3, &mk(6, 100, vc, 1)->node, 0),
				  VCSW_ENQ_OK);
			cursor = 0;
			EXPECT_EQ(vcsw_xbar_run(slots, NPORTS, arch, 0, 16, &cursor), 2);
			EXPECT_EQ(vcsw_port_qlen(&xp[2].out), 1);
			EXPECT_EQ(vcsw_port_qlen(&xp[1].out), 1);
		}
}

/*
 * vcsw_xbar_step() moves one frame and says from which input; the outputs
 * take turns, and a step that moves nothing leaves the cursor where it
 * was.  The frames of successive steps are those vcsw_xbar_run() moves.
 */
UNIT_TEST(step_reports_the_input_and_takes_turns)
{
	unsigned int from = 99, c;
	struct vcsw_xbar_look look;
	struct vcsw_node *n;

	setup(VCSW_ARCH_SIMPLE, 8192, 8192);
	EXPECT_EQ(arrive(0, 5, 100, 0, 2), VCSW_ENQ_OK);
	EXPECT_EQ(arrive(1, 3, 100, 0, 2), VCSW_ENQ_OK);
	EXPECT_EQ(arrive(1, 9, 100, 1, 3), VCSW_ENQ_OK);
	EXPECT_EQ(arrive(3, 7, 100, 0, 0), VCSW_ENQ_OK);
	cursor = 0;
	/* the steps of one run: one look, kept from step to step */
	vcsw_xbar_look_init(&look);
	/* output 0 first: input 3's frame */
	n = vcsw_xbar_step(ports, NPORTS, VCSW_ARCH_SIMPLE, 0, &cursor, &from, &look);
	EXPECT_TRUE(n && n->deadline == 7 && from == 3);
	EXPECT_EQ(cursor, 1);
	/* output 1 has nothing: output 2 takes the smaller deadline, input 1 */
	n = vcsw_xbar_step(ports, NPORTS, VCSW_ARCH_SIMPLE, 0, &cursor, &from, &look);
	EXPECT_TRUE(n && n->deadline == 3 && from == 1);
	EXPECT_EQ(cursor, 3);
	/* output 3: input 1's VC1 frame, now at its VC1 head */
	n = vcsw_xbar_step(ports, NPORTS, VCSW_ARCH_SIMPLE, 0, &cursor, &from, &look);
	EXPECT_TRUE(n && n->deadline == 9 && from == 1 && n->vc == 1);
	EXPECT_EQ(cursor, 0);
	n = vcsw_xbar_step(ports, NPORTS, VCSW_ARCH_SIMPLE, 0, &cursor, &from, &look);
	EXPECT_TRUE(n && n->deadline == 5 && from == 0);
	c = cursor;
	EXPECT_TRUE(!vcsw_xbar_step(ports, NPORTS, VCSW_ARCH_SIMPLE, 0, &cursor, &from, &look));
	EXPECT_EQ(cursor, c);
	EXPECT_EQ(vcsw_port_qlen(&xp[2].out), 2);
	EXPECT_EQ(vcsw_vc_qlen(&xp[1].in[0]) + vcsw_vc_qlen(&xp[1].in[1]), 0);
}

/*
 * Output buffers made smaller than frames already waiting for them: the
 * input's head could never cross and would hold up everything behind it.
 * Those frames are taken out (counted as drops_full of the input), the
 * rest keep their order and cross, in every architecture and in either
 * VC (VC0 is the take-over pair in advanced); frames for an output that
 * still holds them stay, and so do other inputs' and other VCs'.
 */
UNIT_TEST(remove_unfit_frees_an_input_behind_a_smaller_buffer)
{
	unsigned int arch, vc, k;
	fq_u64 d[16];

	for (arch = 0; arch < NARCH; arch++) {
		for (vc = 0; vc < VCSW_NUM_VCS; vc++) {
			struct vcsw_list gone;
			struct vcsw_node *n;

			setup(arch, 1 << 20, 9000);
			/*
			 * to output 2 on VC vc: 9000, 500, 9000, 500, ...
			 * deadlines 10, 20, ..., a large one out of order
			 */
			for (k = 0; k < 8; k++)
				EXPECT_EQ(arrive(1, k == 4 ? 35 : 10 * (k + 1),
						 k % 2 ? 500 : 9000, vc, 2), VCSW_ENQ_OK);
			/* 9000 bytes for output 3, and on the other VC */
			EXPECT_EQ(arrive(1, 100, 9000, vc, 3), VCSW_ENQ_OK);
			EXPECT_EQ(arrive(1, 100, 9000, !vc, 2), VCSW_ENQ_OK);
			EXPECT_EQ(arrive(0, 100, 9000, vc, 3), VCSW_ENQ_OK);
			/* keep them all in the inputs while the buffer shrinks */
			for (k = 2; k < 4; k++)
				xp[k].out.vc[0].limit = xp[k].out.vc[1].limit = 0;
			EXPECT_EQ(xrun(arch, 0, ~0u), 0);
			xp[2].out.vc[vc].limit = 4096;
			xp[2].out.vc[!vc].limit = 9000;
			xp[3].out.vc[0].limit = xp[3].out.vc[1].limit = 9000;
			vcsw_list_init(&gone);
			EXPECT_EQ(vcsw_xbar_remove_unfit(ports, 1, vc, &gone, 0), 4);
			EXPECT_EQ(gone.count, 4);
			for (n = gone.head; n; n = n->next)
				EXPECT_TRUE(n->len == 9000 && n->out == 2);
			EXPECT_EQ(xp[1].in[vc].st.drops_full, 4);
			EXPECT_EQ(xp[1].in[vc].backlog, 2000 + 9000);
			/* nothing else fits out of the other VC or input */
			EXPECT_EQ(vcsw_xbar_remove_unfit(ports, 1, !vc, &gone, 0), 0);
			EXPECT_EQ(vcsw_xbar_remove_unfit(ports, 0, vc, &gone, 0), 0);
			EXPECT_EQ(gone.count, 4);
			/* what stays crosses, output 2's in deadline order */
			while (xrun(arch, 0, 1))
				while (vcsw_port_dequeue(&xp[3].out, 0))
					;
			EXPECT_EQ(drain(2, d, 16), 5);
			for (k = 0; k < 4; k++)
				EXPECT_EQ(d[k + (vc == 1)], 20 * (k + 1));
			EXPECT_EQ(vcsw_vc_qlen(&xp[1].in[vc]) + vcsw_vc_qlen(&xp[1].in[!vc]) +
				  vcsw_vc_qlen(&xp[0].in[vc]), 0);
		}
	}
}

/*
 * An output that left the switch: the frames bound for it are taken out
 * of an input (any discipline), the others keep their order and backlog.
 */
UNIT_TEST(remove_out_keeps_the_rest_in_order)
{
	unsigned int arch, k;
	fq_u64 d[16];

	for (arch = 0; arch < NARCH; arch++) {
		struct vcsw_list gone;
		struct vcsw_node *n;
		fq_u32 taken;

		setup(arch, 1 << 20, 1 << 20);
		/* deadlines 10, 20, ... with one out of order, outputs 2, 3 in turn */
		for (k = 0; k < 8; k++)
			EXPECT_EQ(arrive(0, k == 5 ? 15 : 10 * (k + 1), 100, 0, 2 + k % 2),
				  VCSW_ENQ_OK);
		vcsw_list_init(&gone);
		taken = vcsw_vc_remove_out(&xp[0].in[0], 3, &gone, 0);
		EXPECT_EQ(taken, 4);
		EXPECT_EQ(gone.count, 4);
		EXPECT_EQ(xp[0].in[0].backlog, 400);
		EXPECT_EQ(vcsw_vc_qlen(&xp[0].in[0]), 4);
		for (n = gone.head; n; n = n->next)
			EXPECT_EQ(n->out, 3);
		/* what stays crosses to output 2 in the order it would have */
		while (xrun(arch, 0, ~0u))
			;
		EXPECT_EQ(drain(2, d, 16), 4);
		for (k = 0; k < 4; k++)
			EXPECT_EQ(d[k], 10 * (2 * k + 1));
		EXPECT_EQ(drain(3, d, 16), 0);
	}
}

/*
 * A new architecture with frames waiting: every input and output buffer
 * takes the new disciplines and keeps its frames and their order.
 */
UNIT_TEST(set_arch_requeues_in_order)
{
	fq_u64 d[16];
	unsigned int k;

	setup(VCSW_ARCH_TRAD, 1 << 20, 1 << 20);
	for (k = 0; k < 6; k++) {
		EXPECT_EQ(arrive(0, 100 - k, 100, 0, 1), VCSW_ENQ_OK);
		EXPECT_EQ(arrive(0, 200 - k, 100, 1, 1), VCSW_ENQ_OK);
	}
	vcsw_xport_set_arch(&xp[0], VCSW_ARCH_IDEAL);
	vcsw_xport_set_arch(&xp[1], VCSW_ARCH_IDEAL);
	EXPECT_EQ(xp[0].in[0].mode, VCSW_MODE_IDEAL);
	EXPECT_EQ(xp[0].in[1].mode, VCSW_MODE_IDEAL);
	EXPECT_EQ(xp[1].out.vc[1].mode, VCSW_MODE_IDEAL);
	EXPECT_EQ(xp[0].in[0].backlog, 600);
	while (xrun(VCSW_ARCH_IDEAL, 0, ~0u))
		;
	EXPECT_EQ(drain(1, d, 16), 12);
	/* sorted now: VC0 95 .. 100, then VC1 195 .. 200 */
	for (k = 0; k < 6; k++) {
		EXPECT_EQ(d[k], 95 + k);
		EXPECT_EQ(d[6 + k], 195 + k);
	}
	vcsw_xport_set_arch(&xp[1], VCSW_ARCH_ADVANCED);
	EXPECT_EQ(xp[1].out.vc[0].mode, VCSW_MODE_TAKEOVER);
	EXPECT_EQ(xp[1].out.vc[1].mode, VCSW_MODE_FIFO);
}

/*
 * Per-VC departure (a VC0 head without credits downstream, VC1 may go):
 * vcsw_port_dequeue_vc() takes VC1's head although VC0 waits, counts it
 * and occupies the link.
 */
UNIT_TEST(dequeue_vc_passes_a_waiting_vc0)
{
	struct vcsw_port p;
	struct vcsw_node a = { 0 }, b = { 0 }, *n;

	vcsw_port_init(&p, VCSW_MODE_FIFO, 8192, 8192, 1000000);
	a.deadline = 1;
	a.len = 1000;
	a.vc = 0;
	b.deadline = 2;
	b.len = 500;
	b.vc = 1;
	b.timed = true;
	EXPECT_EQ(vcsw_port_enqueue(&p, &a, 0), VCSW_ENQ_OK);
	EXPECT_EQ(vcsw_port_enqueue(&p, &b, 0), VCSW_ENQ_OK);
	n = vcsw_port_dequeue_vc(&p, 1, 10);
	EXPECT_TRUE(n == &b);
	EXPECT_EQ(p.vc[1].st.packets, 1);
	EXPECT_EQ(p.vc[1].st.deadline_misses, 1);
	EXPECT_EQ(p.vc[0].st.packets, 0);
	/* 500 bytes at 1 MB/s: 500 us */
	EXPECT_EQ(p.link_free, 10 + 500000);
	EXPECT_TRUE(!vcsw_port_dequeue_vc(&p, 1, 10));
	EXPECT_TRUE(vcsw_port_dequeue(&p, 600000) == &a);
}

/*
 * Wormhole: a frame crosses only to an idle output, nothing queued and
 * its link free; the one behind it keeps its input until then, whatever
 * room the output's buffer has.
 */
UNIT_TEST(wormhole_waits_for_an_idle_output)
{
	struct vcsw_node *n;
	unsigned int p;

	setup(VCSW_ARCH_ADVANCED, 10000, 10000);
	for (p = 0; p < NPORTS; p++) {
		/* 1000 bytes/s: a 100-byte frame holds the link 100 ms */
		xp[p].out.rate = 1000;
		xp[p].wormhole = true;
	}
	ASSERT_EQ(arrive(0, 1, 100, 0, 2), VCSW_ENQ_OK);
	ASSERT_EQ(arrive(1, 2, 100, 0, 2), VCSW_ENQ_OK);
	EXPECT_EQ(xrun(VCSW_ARCH_ADVANCED, 0, 10), 1);	/* the second waits */
	EXPECT_EQ(vcsw_vc_qlen(&xp[1].in[0]), 1);
	/* queued at the output: still not idle */
	EXPECT_EQ(xrun(VCSW_ARCH_ADVANCED, 0, 10), 0);
	n = vcsw_port_dequeue(&xp[2].out, 0);		/* on the wire until 100 ms */
	ASSERT_TRUE(n != NULL);
	EXPECT_EQ(xrun(VCSW_ARCH_ADVANCED, 99999999, 10), 0);
	EXPECT_EQ(vcsw_xbar_pick(ports, NPORTS, 2, 0, VCSW_ARCH_ADVANCED, 99999999), -1);
	EXPECT_EQ(xrun(VCSW_ARCH_ADVANCED, 100000000, 10), 1);
	EXPECT_EQ(vcsw_vc_qlen(&xp[1].in[0]), 0);
	/* another output stays free for the others meanwhile */
	ASSERT_EQ(arrive(3, 3, 100, 0, 0), VCSW_ENQ_OK);
	EXPECT_EQ(xrun(VCSW_ARCH_ADVANCED, 100000000, 10), 1);
	/* without wormhole the buffer's room alone decides */
	for (p = 0; p < NPORTS; p++)
		xp[p].wormhole = false;
	ASSERT_EQ(arrive(0, 4, 100, 0, 2), VCSW_ENQ_OK);
	EXPECT_EQ(xrun(VCSW_ARCH_ADVANCED, 100000000, 10), 1);
}

/*
 * The crossbar asks only the inputs that have frames, for the outputs
 * their heads go to (vcsw_xbar_heads()), in turn by words turned to the
 * cursor and to each output's round-robin position.  Against the plain
 * rule (xbar_plain.h), over random switches of 2 to 64 ports in
 * every deadline architecture, tens of thousands of steps: each step must
 * move the frame of the same input to the same output, and one that
 * moves nothing must agree.  Outputs of small buffers that send at random
 * make heads that do not fit; positions past the port count (a switch
 * that lost ports) are taken modulo it.  The steps between two arrivals
 * are one run with one look (struct vcsw_xbar_look), as in the switch:
 * the drains keep it for a hundred steps and more while the outputs
 * send, and it keeps outputs no head goes to any more.
 */
#define BIG_PORTS	64
#define BIG_FRAMES	4096

static struct vcsw_xport big_xp[BIG_PORTS];
static struct vcsw_xport *big_ports[BIG_PORTS];
static struct frame big_frames[BIG_FRAMES];

UNIT_TEST(inputs_asked_as_every_input_in_turn)
{
	unsigned int arch, trial, steps = 0, moved = 0, idle = 0;

	unit_rnd_state = 0xc0ffee;
	for (arch = 0; arch < NARCH; arch++) {
		for (trial = 0; trial < 60; trial++) {
			unsigned int n = 2 + unit_rnd() % (BIG_PORTS - 1);
			unsigned int vcs = unit_rnd() % 2 ? 4 : 2;
			unsigned int used = 0, free_top = 0, k, p, vc, cur;
			struct vcsw_node *free_list[BIG_FRAMES];
			struct vcsw_xbar_look look;

			if (trial % 10 == 0)
				n = BIG_PORTS;
			for (p = 0; p < n; p++) {
				vcsw_xport_init(&big_xp[p], arch, 1 << 16,
						1500 + unit_rnd() % 6000, 0);
				vcsw_xport_set_vcs(&big_xp[p], vcs);
				for (vc = 0; vc < VCSW_MAX_VCS; vc++)
					big_xp[p].rr[vc] = (fq_u16)(unit_rnd() % (2 * n));
				big_ports[p] = &big_xp[p];
			}
			cur = unit_rnd() % (2 * n);
			vcsw_xbar_look_init(&look);
			for (k = 0; k < 600; k++) {
				unsigned int in, a;
				struct vcsw_node *m;
				bool bad = false;

				/*
				 * a few arrivals at a few inputs, sparse or
				 * busy; none for a while, to drain
				 */
				a = k % 200 < 50 ? unit_rnd() % 4 == 0 :
				    k % 200 < 90 ? unit_rnd() % 6 : 0;
				if (a)	/* frames arrive: a new run */
					vcsw_xbar_look_init(&look);
				for (; a; a--) {
					struct vcsw_node *nd;

					if (free_top)
						nd = free_list[--free_top];
					else if (used < BIG_FRAMES)
						nd = &big_frames[used++].node;
					else
						break;
					in = unit_rnd() % n;
					memset(nd, 0, sizeof(*nd));
					nd->deadline = unit_rnd() % 100000;
					nd->len = 60 + unit_rnd() % 1455;
					nd->vc = (fq_u8)(unit_rnd() % vcs);
					nd->out = (fq_u16)((in + 1 + unit_rnd() % (n - 1)) % n);
					if (vcsw_xbar_arrive(big_ports, n, in, nd, 0) != VCSW_ENQ_OK)
						free_list[free_top++] = nd;
				}
				m = xbar_checked_step(big_ports, n, arch, 0, &cur, &look, &bad);
				steps++;
				if (bad) {
					UNIT_FAIL("%s, %u ports, %u VCs, step %u: not the plain rule's move",
						  vcsw_arch_name(arch), n, vcs, k);
					return;
				}
				if (m)
					moved++;
				else
					idle++;
				/* the outputs send at random */
				for (p = 0; p < n; p++) {
					struct vcsw_node *d;

					if (unit_rnd() % 3)
						continue;
					d = vcsw_port_dequeue(&big_xp[p].out, 0);
					if (d)
						free_list[free_top++] = d;
				}
			}
		}
	}
	printf("# %u steps against the plain rule: %u moved a frame, %u none\n",
	       steps, moved, idle);
	EXPECT_TRUE(moved > steps / 4);
	EXPECT_TRUE(idle > steps / 20);
}

int main(void)
{
	return unit_run();
}
