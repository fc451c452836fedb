// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the soft switch's output port (kernel/core/vcsw_port.h),
 * with the frames any host on a port can send: any VC number, any
 * deadline (a TTD is the sender's word), any length, beside well-behaved
 * flows whose deadlines never go back; VC0's discipline switched (fifo,
 * takeover, ideal) with frames waiting, byte limits, two or four VCs, an
 * emulated link of any rate, departures by the port's strict order or
 * from one VC (as when credits hold the others back).
 *
 * What must hold after every operation:
 * - each VC holds exactly the frames put in it and not taken out, and
 *   its byte count is theirs;
 * - a departure is a waiting frame of the VC asked, and the port's own
 *   choice comes from the lowest VC with a frame;
 * - ideal leaves a smallest deadline first; an order error is counted
 *   exactly when a smaller deadline is left waiting;
 * - no flow whose deadlines grow is reordered, in any discipline and
 *   across switches of discipline (the paper's appendix for takeover;
 *   vcsw_vc_set_mode() keeps the order).
 */
#include "fuzz.h"

#include "core/vcsw_port.h"

#define FZ_NODES	128
#define FZ_FLOWS	8
#define FZ_NO_FLOW	0xff
#define FZ_MAX_OPS	3000

struct fz_frame {
	struct vcsw_node n;
	bool queued;
	fq_u8 flow;		/* FZ_NO_FLOW: a host's frame of any deadline */
	fq_u64 seq;		/* arrival order */
};

static struct vcsw_port P;
static struct fz_frame F[FZ_NODES];
static fq_u64 flow_deadline[FZ_FLOWS], arrivals, now;

static struct fz_frame *frame_of(struct vcsw_node *n)
{
	struct fz_frame *f = (struct fz_frame *)((char *)n - offsetof(struct fz_frame, n));

	FUZZ_CHECK(f >= F && f < F + FZ_NODES);
	return f;
}

/* The smallest deadline waiting in VC @vc, ~0 for none. */
static fq_u64 min_waiting(unsigned int vc)
{
	fq_u64 min = ~0ULL;
	unsigned int i;

	for (i = 0; i < FZ_NODES; i++)
		if (F[i].queued && F[i].n.vc == vc && F[i].n.deadline < min)
			min = F[i].n.deadline;
	return min;
}

/* Frame @f of VC @vc leaves: everything a departure must be. */
static void departed(struct vcsw_node *n, unsigned int vc, fq_u64 errors_before,
		     fq_u64 min_before)
{
	struct fz_frame *f = frame_of(n);
	unsigned int i;

	FUZZ_CHECK(f->queued && n->vc == vc);
	f->queued = false;
	/* ideal: a smallest deadline first */
	if (P.vc[vc].mode == VCSW_MODE_IDEAL)
		FUZZ_CHECK(n->deadline == min_before);
	/* an order error exactly when a smaller deadline stays behind */
	FUZZ_CHECK(P.vc[vc].st.order_errors - errors_before ==
		   (min_waiting(vc) < n->deadline));
	/* its flow's earlier frames have all gone */
	if (f->flow != FZ_NO_FLOW)
		for (i = 0; i < FZ_NODES; i++)
			FUZZ_CHECK(!(F[i].queued && F[i].flow == f->flow &&
				     F[i].seq < f->seq));
}

/* One departure: the port's choice, or VC @ask's (credits elsewhere). */
static void depart(struct fuzz_in *in)
{
	bool own = fuzz_u8(in) & 1;
	unsigned int vc, lowest = P.vcs;
	fq_u64 errors, min;
	struct vcsw_node *n;

	if (!vcsw_port_link_ready(&P, now))
		return;	/* the caller waits for the link */
	for (vc = P.vcs; vc-- > 0; )
		if (vcsw_vc_qlen(&P.vc[vc]))
			lowest = vc;
	vc = own ? lowest : fuzz_below(in, P.vcs);
	if (vc >= P.vcs) {
		FUZZ_CHECK(!vcsw_port_peek(&P));	/* the port is empty */
		return;
	}
	errors = P.vc[vc].st.order_errors;
	min = min_waiting(vc);
	n = own ? vcsw_port_dequeue(&P, now) : vcsw_port_dequeue_vc(&P, vc, now);
	if (!n) {
		FUZZ_CHECK(!vcsw_vc_qlen(&P.vc[vc]));
		return;
	}
	departed(n, vc, errors, min);
}

static void arrive(struct fuzz_in *in, unsigned int i)
{
	struct fz_frame *f = &F[i];
	fq_u8 flow = fuzz_u8(in);

	memset(&f->n, 0, sizeof(f->n));
	if (flow < FZ_FLOWS) {
		/* a flow's deadlines never go back; repeats allowed */
		flow_deadline[flow] += fuzz_u8(in) & 1 ? 0 : fuzz_u16(in);
		f->n.deadline = flow_deadline[flow];
		f->n.vc = flow % 4;
		f->flow = flow;
	} else {
		f->n.deadline = fuzz_u8(in) & 1 ? now + fuzz_u16(in) : fuzz_u64(in);
		f->n.vc = fuzz_u8(in);	/* any number a header can say */
		f->flow = FZ_NO_FLOW;
	}
	f->n.len = fuzz_u8(in) & 1 ? 1 + fuzz_below(in, 9000) : fuzz_u32(in);
	f->n.timed = fuzz_u8(in) & 1;
	f->seq = arrivals++;
	if (vcsw_port_enqueue(&P, &f->n, now) == VCSW_ENQ_OK) {
		/* the VC it took: its own, or VC1 when the port has no such */
		FUZZ_CHECK(f->n.vc < P.vcs);
		f->queued = true;
	}
}

static void check_port(void)
{
	fq_u64 bytes[VCSW_MAX_VCS] = { 0 };
	fq_u32 count[VCSW_MAX_VCS] = { 0 };
	unsigned int i, vc;

	for (i = 0; i < FZ_NODES; i++) {
		if (!F[i].queued)
			continue;
		FUZZ_CHECK(F[i].n.vc < P.vcs);
		bytes[F[i].n.vc] += F[i].n.len;
		count[F[i].n.vc]++;
	}
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		FUZZ_CHECK(P.vc[vc].backlog == bytes[vc]);
		FUZZ_CHECK(P.vc[vc].backlog <= P.vc[vc].limit);
		FUZZ_CHECK(vcsw_vc_qlen(&P.vc[vc]) == count[vc]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	fq_u32 op, i;

	memset(F, 0, sizeof(F));
	memset(flow_deadline, 0, sizeof(flow_deadline));
	arrivals = 0;
	now = fuzz_u32(&in);
	vcsw_port_init(&P, (fq_u8)fuzz_below(&in, VCSW_MODE_MAX + 1),
		       fuzz_u8(&in) & 1 ? fuzz_u32(&in) : 1 << 20,
		       fuzz_u8(&in) & 1 ? fuzz_u32(&in) : 1 << 20,
		       fuzz_u8(&in) & 1 ? fuzz_u64(&in) : 0);
	if (fuzz_u8(&in) & 1)
		vcsw_port_set_vcs(&P, fuzz_u8(&in));

	for (op = 0; op < FZ_MAX_OPS && fuzz_more(&in); op++) {
		i = fuzz_below(&in, FZ_NODES);
		switch (fuzz_below(&in, 8)) {
		case 0:
		case 1:
		case 2:
			if (!F[i].queued)
				arrive(&in, i);
			break;
		case 3:	/* VC0's discipline changes with frames waiting */
			vcsw_vc_set_mode(&P.vc[0], (fq_u8)fuzz_below(&in, VCSW_MODE_MAX + 1));
			break;
		case 4:	/* time goes on */
			now += fuzz_u8(&in) & 1 ? fuzz_u16(&in) : fuzz_u32(&in);
			break;
		case 5:	/* two or four VCs: the switch changes it only when empty */
			if (!vcsw_port_qlen(&P))
				vcsw_port_set_vcs(&P, fuzz_u8(&in));
			break;
		default:
			depart(&in);
			break;
		}
		check_port();
	}
	return 0;
}
