// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the input/output buffered switch's crossbar
 * (kernel/core/vcsw_xbar.h, Documentation/vcsw.rst, "The input-buffered
 * switch"), driven as vcsw_main.c drives it, with the frames any host on
 * a port may send.
 *
 * A switch of 2 to 6 ports in any architecture (trad, simple, advanced,
 * ideal, recn with its RECN sets, their messages delivered inside the
 * switch after each operation as vcsw_recn.c does, and messages that
 * parse from the far end of a port's link; what our sets send there is
 * dropped: the far end is fuzz_recn's), two or four VCs, byte limits of
 * any size at the inputs and outputs, outputs with an emulated link rate
 * or none, wormhole or not.  Frames arrive at any input from hostile
 * senders (any VC number, any deadline: far in the past or future,
 * behind the clock so that it wraps, any length from 0 to 4 GiB, any
 * output, the input's own and ports that do not exist) and from
 * well-behaved flows (fixed input, output, VC and route, whose deadlines
 * never go back).  The crossbar runs in steps with one look
 * per run (struct vcsw_xbar_look), outputs sending between steps as
 * vcsw_serve() does; outputs send by the port's strict order or by the
 * lowest VC that credits let go, and a VC's credits may be held back for
 * long; the architecture changes with frames waiting (recn only while the
 * switch is empty, as the module allows), the VC count grows with frames
 * waiting and shrinks when the VCs it drops are empty, byte limits
 * change (a smaller output buffer followed by vcsw_xbar_remove_unfit()),
 * time passes, RECN's timers tick.  At the end the outputs drain and
 * every frame must leave.
 *
 * A shadow switch keeps where each frame is and, for every discipline
 * but recn (whose order belongs to fuzz_recn), the order vcsw_port.h
 * documents: fifo in link order, ideal by deadline (ties in link order),
 * takeover an ordered and a take-over FIFO.  Re-queueing (a new
 * architecture, frames taken out) is the old discipline's order queued
 * again.  What must hold after every operation:
 * - nothing lost or duplicated: every frame taken is in exactly one
 *   buffer, the one the shadow says, or has left; a buffer's frame count
 *   and byte backlog are its frames', its head the discipline's;
 * - no buffer over its byte limit (but one whose limit was just made
 *   smaller, until it drains below it); a move only into room;
 * - arrival: a frame is refused exactly when its input VC has no room,
 *   its output is no other port of the switch, or it is larger than that
 *   output's VC; it takes its own VC, or VC1 if the switch has not that
 *   many; no input holds a frame its output's VC could never hold;
 * - each step moves exactly what the rule says: the outputs in turn from
 *   the cursor, the first one a frame can cross to; at it, the lowest
 *   VC whose chosen head fits (VC0 strictly before VC1, each VC before
 *   the next); among the inputs whose head goes there, in turn from the
 *   output's round-robin position, the first (trad, recn) or the one with
 *   the smallest deadline, the first in turn on a tie (simple, advanced,
 *   ideal); only that head checked for room; in wormhole mode only to an
 *   idle output; a step moves nothing only when no head anywhere can
 *   cross; the cursor and round-robin positions move as documented;
 *   vcsw_xbar_pick() gives the same input for every output and VC;
 * - round robin is fair: while an input keeps a head for an output, no
 *   more than ports - 1 frames of other inputs cross to it on that VC;
 * - no well-behaved flow is reordered on its VC, at the crossbar or at
 *   the output;
 * - the core's counters (packets, bytes, drops_full, takeovers,
 *   order_errors, deadline_misses, the largest backlogs) agree with the
 *   shadow's; an output never refuses (drops_full stays 0).
 */
#include "fuzz.h"

#include "core/vcsw_xbar_recn.h"

#define FZ_PORTS	6
#define FZ_NODES	128
#define FZ_FLOWS	6
#define FZ_NO_FLOW	0xff
#define FZ_MAX_OPS	1000	/* a bound on one input's work */
#define FZ_RUN_STEPS	(2 * FZ_NODES)	/* steps of one run at most */
#define FZ_DRAIN_ROUNDS	(4 * FZ_NODES)	/* wormhole: a frame a round */
#define FZ_MS		1000000ULL

enum { IN_SIDE, OUT_SIDE };
enum { AT_FREE, AT_IN, AT_OUT };

struct fz_frame {
	struct vcsw_node n;
	fq_u8 at;		/* AT_*: where the shadow has it */
	fq_u8 port, vc;		/* its buffer there */
	fq_u8 flow;		/* FZ_NO_FLOW: a hostile sender's */
	bool in_u;		/* takeover: in the take-over FIFO */
	fq_u32 seq;		/* its flow's numbering */
	fq_u32 seen;		/* walks of the core that found it */
};

/* The shadow of one buffer: an input VC or an output VC. */
struct sbuf {
	fq_u8 idx[FZ_NODES];	/* its frames in the order they were linked */
	fq_u32 count;
	fq_u64 bytes;
	fq_u8 mode;
	bool over;		/* its limit was made smaller than its backlog */
	struct vcsw_vc_stats st;
};

struct flow {
	fq_u8 in, out, vc, sl;
	fq_u32 route, next_seq;
	fq_u64 deadline;
};

static struct vcsw_xport X[FZ_PORTS];
static struct vcsw_xport *ports[FZ_PORTS];
static struct vcsw_rq rq_in[FZ_PORTS][VCSW_NUM_VCS], rq_out[FZ_PORTS][VCSW_NUM_VCS];
static struct vcsw_rq_box box;
static struct recn_cfg rcfg;
static struct fz_frame F[FZ_NODES];
static struct sbuf S[2][FZ_PORTS][VCSW_MAX_VCS];
static struct flow flows[FZ_FLOWS];
static unsigned int np, arch, vcs, cursor;
static fq_u16 rr[FZ_PORTS][VCSW_MAX_VCS];	/* the shadow's positions */
/* fairness: frames of other inputs that crossed while input i waited */
static unsigned int waited[FZ_PORTS][VCSW_MAX_VCS][FZ_PORTS];
static bool blocked[FZ_PORTS][VCSW_MAX_VCS];	/* credits hold the VC back */
static fq_u64 now;

#define NO_COVERAGE	__attribute__((no_sanitize("coverage"), noinline))

static bool rr_arch(void)
{
	return arch == VCSW_ARCH_TRAD || arch == VCSW_ARCH_RECN;
}

/* The discipline of VC @vc's buffers in @a (vcsw.rst's tables). */
static fq_u8 mode_of(unsigned int a, unsigned int vc)
{
	switch (a) {
	case VCSW_ARCH_ADVANCED:
		return vc ? VCSW_MODE_FIFO : VCSW_MODE_TAKEOVER;
	case VCSW_ARCH_IDEAL:
		return VCSW_MODE_IDEAL;
	case VCSW_ARCH_RECN:	/* the sets are VC0's and VC1's */
		return vc < VCSW_NUM_VCS ? VCSW_MODE_RECN : VCSW_MODE_FIFO;
	default:
		return VCSW_MODE_FIFO;
	}
}

static struct vcsw_vc *core_vc(unsigned int side, unsigned int p, unsigned int vc)
{
	return side == IN_SIDE ? &X[p].in[vc] : &X[p].out.vc[vc];
}

static struct fz_frame *frame_of(const struct vcsw_node *n)
{
	struct fz_frame *f = (struct fz_frame *)((char *)n - offsetof(struct fz_frame, n));

	FUZZ_CHECK(f >= F && f < F + FZ_NODES);
	return f;
}

/* ---- the shadow's disciplines ------------------------------------------- */

/* The frame the buffer sends next (-1: empty, or recn, not shadowed). */
static int sb_head(const struct sbuf *b)
{
	int best = -1, l = -1, u = -1;
	fq_u32 k;

	if (!b->count || b->mode == VCSW_MODE_RECN)
		return -1;
	if (b->mode == VCSW_MODE_FIFO)
		return b->idx[0];
	if (b->mode == VCSW_MODE_IDEAL) {
		for (k = 0; k < b->count; k++)
			if (best < 0 || F[b->idx[k]].n.deadline < F[best].n.deadline)
				best = b->idx[k];
		return best;
	}
	/* takeover: the smaller head deadline, the ordered FIFO's on a tie */
	for (k = 0; k < b->count; k++) {
		if (F[b->idx[k]].in_u) {
			if (u < 0)
				u = b->idx[k];
		} else if (l < 0) {
			l = b->idx[k];
		}
	}
	if (u < 0)
		return l;
	if (l < 0 || F[u].n.deadline < F[l].n.deadline)
		return u;
	return l;
}

/* Queue frame @i in @b, no accounting: the ordered FIFO unless below its tail. */
static void sb_link(struct sbuf *b, int i)
{
	int tail = -1;
	fq_u32 k;

	F[i].in_u = false;
	if (b->mode == VCSW_MODE_TAKEOVER) {
		for (k = 0; k < b->count; k++)
			if (!F[b->idx[k]].in_u)
				tail = b->idx[k];
		F[i].in_u = tail >= 0 && F[i].n.deadline < F[tail].n.deadline;
	}
	b->idx[b->count++] = (fq_u8)i;
}

static void sb_unlink(struct sbuf *b, int i)
{
	fq_u32 k;

	for (k = 0; k < b->count && b->idx[k] != i; k++)
		;
	FUZZ_CHECK(k < b->count);
	memmove(&b->idx[k], &b->idx[k + 1], b->count - k - 1);
	b->count--;
}

/* Everything in @b queued again in the order it would have left, under @mode. */
static void sb_requeue(struct sbuf *b, fq_u8 mode)
{
	fq_u8 order[FZ_NODES];
	fq_u32 k, c = b->count;
	int h;

	for (k = 0; k < c; k++) {
		h = sb_head(b);
		FUZZ_CHECK(h >= 0);
		order[k] = (fq_u8)h;
		sb_unlink(b, h);
	}
	b->mode = mode;
	for (k = 0; k < c; k++)
		sb_link(b, order[k]);
}

/* Frame @i joins buffer (@side, @p, @vc) and is counted there (vcsw_vc_add()). */
static void sb_add(unsigned int side, unsigned int p, unsigned int vc, int i)
{
	struct sbuf *b = &S[side][p][vc];

	sb_link(b, i);
	if (F[i].in_u)
		b->st.takeovers++;
	b->bytes += F[i].n.len;
	if (b->bytes > b->st.max_backlog_bytes)
		b->st.max_backlog_bytes = b->bytes;
	if (b->count > b->st.max_backlog_packets)
		b->st.max_backlog_packets = b->count;
	F[i].at = side == IN_SIDE ? AT_IN : AT_OUT;
	F[i].port = (fq_u8)p;
	F[i].vc = (fq_u8)vc;
}

static fq_u64 sb_min_deadline(const struct sbuf *b)
{
	fq_u64 min = ~0ULL;
	fq_u32 k;

	for (k = 0; k < b->count; k++)
		if (F[b->idx[k]].n.deadline < min)
			min = F[b->idx[k]].n.deadline;
	return min;
}

/* Frame @i leaves its buffer as a departure (vcsw_vc_take()). */
static void sb_take(int i)
{
	struct sbuf *b = &S[F[i].at == AT_IN ? IN_SIDE : OUT_SIDE][F[i].port][F[i].vc];

	sb_unlink(b, i);
	b->bytes -= F[i].n.len;
	if (b->count && sb_min_deadline(b) < F[i].n.deadline)
		b->st.order_errors++;
	b->st.packets++;
	b->st.bytes += F[i].n.len;
	if (b->over && b->bytes <= core_vc(F[i].at == AT_IN ? IN_SIDE : OUT_SIDE,
					   F[i].port, F[i].vc)->limit)
		b->over = false;
}

static bool room(unsigned int side, unsigned int p, unsigned int vc, fq_u32 len)
{
	fq_u32 limit = core_vc(side, p, vc)->limit;

	return len <= limit && S[side][p][vc].bytes <= limit - len;
}

static fq_u32 out_qlen(unsigned int p)
{
	fq_u32 n = 0, vc;

	for (vc = 0; vc < vcs; vc++)
		n += S[OUT_SIDE][p][vc].count;
	return n;
}

static bool switch_empty(void)
{
	unsigned int i;

	for (i = 0; i < FZ_NODES; i++)
		if (F[i].at != AT_FREE)
			return false;
	return true;
}

/* ---- the whole switch against the shadow -------------------------------- */

static NO_COVERAGE bool walk_one(const struct vcsw_node *n, const void *arg)
{
	const struct sbuf *b = arg;
	struct fz_frame *f = frame_of(n);

	/* in the buffer the shadow has it in, and found once */
	FUZZ_CHECK(f->at != AT_FREE);
	FUZZ_CHECK(&S[f->at == AT_IN ? IN_SIDE : OUT_SIDE][f->port][f->vc] == b);
	f->seen++;
	return false;
}

static NO_COVERAGE void check_buffer(unsigned int side, unsigned int p, unsigned int vc)
{
	struct vcsw_vc *v = core_vc(side, p, vc);
	struct sbuf *b = &S[side][p][vc];
	struct vcsw_node *h;
	fq_u32 k;

	FUZZ_CHECK(v->mode == b->mode);
	FUZZ_CHECK(vcsw_vc_qlen(v) == b->count);
	FUZZ_CHECK(v->backlog == b->bytes);
	/* no buffer over its limit, unless the limit was just made smaller */
	FUZZ_CHECK(b->over || v->backlog <= v->limit);
	FUZZ_CHECK(v->st.packets == b->st.packets);
	FUZZ_CHECK(v->st.bytes == b->st.bytes);
	FUZZ_CHECK(v->st.drops_full == b->st.drops_full);
	FUZZ_CHECK(v->st.takeovers == b->st.takeovers);
	FUZZ_CHECK(v->st.order_errors == b->st.order_errors);
	FUZZ_CHECK(v->st.deadline_misses == b->st.deadline_misses);
	FUZZ_CHECK(v->st.max_backlog_bytes == b->st.max_backlog_bytes);
	FUZZ_CHECK(v->st.max_backlog_packets == b->st.max_backlog_packets);
	vcsw_vc_any(v, walk_one, b);
	if (b->mode != VCSW_MODE_RECN) {
		h = vcsw_vc_pick(v);
		FUZZ_CHECK(h ? frame_of(h) - F == sb_head(b) : !b->count);
	}
	if (side == OUT_SIDE)
		/* the crossbar moves only into room: an output never refuses */
		FUZZ_CHECK(!v->st.drops_full);
	else
		/* nothing waits at an input that its output could never take */
		for (k = 0; k < b->count; k++) {
			struct fz_frame *f = &F[b->idx[k]];

			FUZZ_CHECK(f->n.out < np && f->n.out != p && f->n.vc == vc);
			FUZZ_CHECK(f->n.len <= X[f->n.out].out.vc[vc].limit);
		}
}

static NO_COVERAGE void check_switch(void)
{
	unsigned int i, p, vc, side;

	for (i = 0; i < FZ_NODES; i++)
		F[i].seen = 0;
	for (side = 0; side < 2; side++)
		for (p = 0; p < np; p++)
			for (vc = 0; vc < VCSW_MAX_VCS; vc++)
				check_buffer(side, p, vc);
	/* nothing lost, nothing twice */
	for (i = 0; i < FZ_NODES; i++)
		FUZZ_CHECK(F[i].seen == (F[i].at != AT_FREE));
	for (p = 0; p < np; p++) {
		FUZZ_CHECK(X[p].out.vcs == vcs);
		for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
			FUZZ_CHECK(X[p].rr[vc] == rr[p][vc]);
			/* nothing on a VC the switch has not */
			if (vc >= vcs)
				FUZZ_CHECK(!S[IN_SIDE][p][vc].count &&
					   !S[OUT_SIDE][p][vc].count);
		}
	}
}

/*
 * Every flow's frames on one VC in order: none of @f's earlier ones waits
 * in an input (@inputs_only: @f crosses), or anywhere (@f leaves).
 */
static NO_COVERAGE bool flow_first(const struct fz_frame *f, bool inputs_only)
{
	unsigned int i;

	if (f->flow == FZ_NO_FLOW)
		return true;
	for (i = 0; i < FZ_NODES; i++)
		if (F[i].at != AT_FREE && (!inputs_only || F[i].at == AT_IN) &&
		    F[i].flow == f->flow &&
		    F[i].n.vc == f->n.vc && F[i].seq < f->seq)
			return false;
	return true;
}

/* ---- the crossbar's rule, on the shadow ---------------------------------- */

struct expect {
	int head[FZ_PORTS][VCSW_MAX_VCS][FZ_PORTS];	/* [in][vc][out] */
	int cand[FZ_PORTS][VCSW_MAX_VCS];	/* [out][vc]: the input chosen */
	bool fits[FZ_PORTS][VCSW_MAX_VCS];	/* and its head can cross */
	fq_u64 min_deadline[FZ_PORTS][VCSW_MAX_VCS];
	int out, vc, in;			/* the move; out -1: none */
};

static NO_COVERAGE void expect_step(struct expect *e)
{
	unsigned int i, o, vc, k;

	for (i = 0; i < np; i++)
		for (vc = 0; vc < vcs; vc++) {
			const struct sbuf *b = &S[IN_SIDE][i][vc];
			int h = sb_head(b);

			for (o = 0; o < np; o++) {
				e->head[i][vc][o] = -1;
				if (b->mode == VCSW_MODE_RECN) {
					/* an input asks each output for its own */
					struct vcsw_node *n = vcsw_vc_pick_for(&X[i].in[vc],
									       (fq_u16)o);

					if (n && n->out == o)
						e->head[i][vc][o] = (int)(frame_of(n) - F);
				} else if (h >= 0 && F[h].n.out == o) {
					e->head[i][vc][o] = h;
				}
			}
		}
	e->out = -1;
	for (k = 0; k < np; k++) {
		o = (cursor + k) % np;
		for (vc = 0; vc < vcs; vc++) {
			int best = -1, bi = -1;

			e->min_deadline[o][vc] = ~0ULL;
			for (i = 0; i < np; i++) {
				unsigned int in = (rr[o][vc] % np + i) % np;
				int h = e->head[in][vc][o];

				if (h < 0)
					continue;
				if (F[h].n.deadline < e->min_deadline[o][vc])
					e->min_deadline[o][vc] = F[h].n.deadline;
				if (best < 0 || (!rr_arch() && F[h].n.deadline < F[best].n.deadline)) {
					best = h;
					bi = (int)in;
				}
				if (rr_arch())
					break;
			}
			e->cand[o][vc] = bi;
			e->fits[o][vc] = best >= 0 && room(OUT_SIDE, o, vc, F[best].n.len) &&
				!(X[o].wormhole && (out_qlen(o) ||
						    !vcsw_port_link_ready(&X[o].out, now)));
			/* the crossbar's own answer for one output and VC */
			FUZZ_CHECK(vcsw_xbar_pick(ports, np, o, vc, arch, now) ==
				   (e->fits[o][vc] ? bi : -1));
			if (e->fits[o][vc] && e->out < 0) {
				e->out = (int)o;
				e->vc = (int)vc;
				e->in = bi;
			}
		}
	}
}

/* The step moved @m from input @from (NULL: nothing): was it the rule's? */
static NO_COVERAGE void check_step(const struct expect *e, struct vcsw_node *m,
				   unsigned int from, unsigned int cursor_before)
{
	unsigned int k, o, vc, i;
	struct fz_frame *f;

	if (!m) {
		/* a step moves nothing only when no head anywhere can cross */
		FUZZ_CHECK(e->out < 0);
		FUZZ_CHECK(cursor == cursor_before);
		return;
	}
	FUZZ_CHECK(e->out >= 0);
	f = frame_of(m);
	o = m->out;
	vc = m->vc;
	FUZZ_CHECK(f->at == AT_IN && f->port == from && f->vc == vc && o < np);
	/* it was input @from's head for @o on its VC */
	FUZZ_CHECK(e->head[from][vc][o] == f - F);
	/* the outputs in turn from the cursor: none before @o could take one */
	for (k = 0; (cursor_before + k) % np != o; k++)
		for (i = 0; i < vcs; i++)
			FUZZ_CHECK(!e->fits[(cursor_before + k) % np][i]);
	/* VC0 strictly before VC1, each VC before the next, at that output */
	for (i = 0; i < vc; i++)
		FUZZ_CHECK(!e->fits[o][i]);
	/* among the inputs: the first in turn, or the smallest deadline */
	if (!rr_arch())
		FUZZ_CHECK(m->deadline == e->min_deadline[o][vc]);
	FUZZ_CHECK(e->cand[o][vc] == (int)from);
	/* only into room, and in wormhole mode only to an idle output */
	FUZZ_CHECK(room(OUT_SIDE, o, vc, m->len));
	FUZZ_CHECK(!X[o].wormhole || (!out_qlen(o) && vcsw_port_link_ready(&X[o].out, now)));
	FUZZ_CHECK((int)o == e->out && (int)vc == e->vc && (int)from == e->in);
	FUZZ_CHECK(flow_first(f, true));
	FUZZ_CHECK(cursor == (o + 1) % np);
	/* round robin is fair: the others waiting for @o got one more turn */
	if (rr_arch()) {
		for (i = 0; i < np; i++) {
			if (i == from || e->head[i][vc][o] < 0)
				continue;
			waited[o][vc][i]++;
			FUZZ_CHECK(waited[o][vc][i] <= np - 1);
		}
		waited[o][vc][from] = 0;
	}
	sb_take((int)(f - F));
	sb_add(OUT_SIDE, o, vc, (int)(f - F));
	rr[o][vc] = (fq_u16)((from + 1) % np);
}

/* An input that no longer has a head for an output waits afresh. */
static NO_COVERAGE void forget_waits(const struct expect *e)
{
	unsigned int i, o, vc;

	for (o = 0; o < np; o++)
		for (vc = 0; vc < vcs; vc++)
			for (i = 0; i < np; i++)
				if (!rr_arch() || e->head[i][vc][o] < 0)
					waited[o][vc][i] = 0;
}

/* ---- operations ---------------------------------------------------------- */

static void recn_link(void *ctx, fq_u32 port, fq_u8 vc, const struct recn_msg *m)
{
	/* the link's far end: not modelled (fuzz_recn's) */
}

static void deliver(void)
{
	if (box.count)
		vcsw_xbar_recn_deliver(ports, np, &box, now, recn_link, NULL);
}

static int free_frame(void)
{
	int i;

	for (i = 0; i < FZ_NODES; i++)
		if (F[i].at == AT_FREE)
			return i;
	return -1;
}

static fq_u32 any_len(struct fuzz_in *in)
{
	switch (fuzz_u8(in) & 3) {
	case 0:
		return fuzz_u8(in) & 1 ? 0 : ~0u - fuzz_u8(in);
	case 1:
		return fuzz_u32(in);
	default:
		return 60 + fuzz_below(in, 1500);
	}
}

static void arrive(struct fuzz_in *in)
{
	fq_u8 which = fuzz_u8(in);
	unsigned int port, mapped;
	struct fz_frame *f;
	bool want_ok;
	int i = free_frame();
	enum vcsw_enq_result r;

	if (i < 0)
		return;
	f = &F[i];
	memset(f, 0, sizeof(*f));
	if (which < 128) {
		struct flow *fl = &flows[which % FZ_FLOWS];

		/* deadlines never go back; repeats allowed */
		fl->deadline += fuzz_u8(in) & 1 ? 0 : fuzz_u16(in);
		port = fl->in;
		f->n.deadline = fl->deadline;
		f->n.vc = fl->vc;
		f->n.out = fl->out;
		f->n.route = fl->route;
		f->n.sl = fl->sl;
		f->n.len = 60 + fuzz_below(in, 1500);
		f->flow = (fq_u8)(which % FZ_FLOWS);
		f->seq = fl->next_seq++;
	} else {
		/* a hostile host: anything a header can say */
		port = fuzz_below(in, np);
		switch (fuzz_u8(in) & 3) {
		case 0:
			f->n.deadline = fuzz_u64(in);
			break;
		case 1:	/* behind the clock: wraps near 0 */
			f->n.deadline = now - fuzz_u32(in);
			break;
		default:
			f->n.deadline = now + fuzz_u16(in);
			break;
		}
		/* mostly a VC the switch may have, else any number */
		f->n.vc = fuzz_u8(in) & 1 ? fuzz_u8(in) : fuzz_below(in, VCSW_MAX_VCS);
		f->n.out = fuzz_u8(in) & 1 ? fuzz_u16(in) : fuzz_below(in, np);
		f->n.len = any_len(in);
		f->n.sl = fuzz_u8(in) & 3;
		if (fuzz_u8(in) & 1 && f->n.out < np) {
			unsigned int hops[2] = { f->n.out, fuzz_below(in, 8) };

			fhc_route_build(hops, 2, &f->n.route);
		}
		f->flow = FZ_NO_FLOW;
	}
	f->n.timed = fuzz_u8(in) & 1;
	f->n.from = (fq_u8)port;
	mapped = f->n.vc < vcs ? f->n.vc : 1;
	want_ok = f->n.out < np && f->n.out != port &&
		  f->n.len <= X[f->n.out].out.vc[mapped].limit &&
		  room(IN_SIDE, port, mapped, f->n.len);
	r = vcsw_xbar_arrive(ports, np, port, &f->n, now);
	/* refused exactly when it has no room or could never cross */
	FUZZ_CHECK((r == VCSW_ENQ_OK) == want_ok);
	FUZZ_CHECK(f->n.vc == mapped);
	if (r == VCSW_ENQ_OK)
		sb_add(IN_SIDE, port, mapped, i);
	else
		S[IN_SIDE][port][mapped].st.drops_full++;
}

/*
 * Whether VC @vc of output @p has a frame that may leave: any frame, but
 * in recn, whose set may hold its frames back (a SAQ waiting for older
 * frames of its point), one the set is ready to send.
 */
static bool out_ready(unsigned int p, unsigned int vc)
{
	if (S[OUT_SIDE][p][vc].mode == VCSW_MODE_RECN)
		return vcsw_vc_pick(&X[p].out.vc[vc]) != NULL;
	return S[OUT_SIDE][p][vc].count != 0;
}

/*
 * Output @p sends a frame: by the port's own order (@own), or from the
 * lowest VC whose credits let it go.  False when none left.
 */
static bool depart(unsigned int p, bool own)
{
	unsigned int vc, lowest = vcs, want = vcs;
	struct vcsw_node *n;
	struct fz_frame *f;
	int h;

	if (!vcsw_port_link_ready(&X[p].out, now))
		return false;
	for (vc = vcs; vc-- > 0;) {
		if (!out_ready(p, vc))
			continue;
		lowest = vc;
		if (!blocked[p][vc])
			want = vc;
	}
	if (own)
		want = lowest;
	if (want == vcs) {
		FUZZ_CHECK(!own || !vcsw_port_peek(&X[p].out));
		return false;
	}
	h = sb_head(&S[OUT_SIDE][p][want]);
	n = own ? vcsw_port_dequeue(&X[p].out, now) : vcsw_port_dequeue_vc(&X[p].out, want, now);
	FUZZ_CHECK(n);
	f = frame_of(n);
	/* from the VC asked, or the lowest with a frame: strict order */
	FUZZ_CHECK(f->at == AT_OUT && f->port == p && f->vc == want);
	FUZZ_CHECK(h < 0 || h == f - F);
	FUZZ_CHECK(flow_first(f, false));
	sb_take((int)(f - F));
	if (n->timed && n->deadline < now)
		S[OUT_SIDE][p][want].st.deadline_misses++;
	f->at = AT_FREE;
	return true;
}

/*
 * A run of the crossbar (vcsw_xbar_go()): steps with one look until one
 * moves nothing or the budget ends, outputs sending between the steps.
 */
static void run(struct fuzz_in *in, unsigned int budget, bool serve_all)
{
	struct vcsw_xbar_look look;
	unsigned int k, from;

	vcsw_xbar_look_init(&look);
	for (k = 0; k < budget; k++) {
		unsigned int before = cursor;
		struct vcsw_node *m;
		struct expect e;

		expect_step(&e);
		forget_waits(&e);
		from = ~0u;
		m = vcsw_xbar_step(ports, np, arch, now, &cursor, &from, &look);
		check_step(&e, m, from, before);
		if (!m)
			break;
		/* vcsw_serve(): the output it went to may send at once */
		if (serve_all || fuzz_u8(in) & 1)
			depart(m->out, serve_all || fuzz_u8(in) & 1);
	}
	deliver();
}

/* Output buffers made smaller: what can no longer cross is taken out. */
static void shrink_out(unsigned int o, unsigned int vc, fq_u32 limit)
{
	unsigned int i, w;

	if (limit >= X[o].out.vc[vc].limit)
		return;
	X[o].out.vc[vc].limit = limit;
	if (S[OUT_SIDE][o][vc].bytes > limit)
		S[OUT_SIDE][o][vc].over = true;
	for (i = 0; i < np; i++)
		for (w = 0; w < VCSW_MAX_VCS; w++) {
			struct sbuf *b = &S[IN_SIDE][i][w];
			struct vcsw_list gone;
			fq_u32 k, want = 0, taken;
			struct vcsw_node *n;

			for (k = 0; k < b->count; k++) {
				struct fz_frame *f = &F[b->idx[k]];

				want += f->n.len > X[f->n.out].out.vc[w].limit;
			}
			vcsw_list_init(&gone);
			taken = vcsw_xbar_remove_unfit(ports, i, w, &gone, now);
			FUZZ_CHECK(taken == want && gone.count == want);
			while ((n = gone.head)) {
				struct fz_frame *f = frame_of(n);

				vcsw_list_unlink(&gone, n);
				FUZZ_CHECK(f->at == AT_IN && f->port == i && f->vc == w);
				FUZZ_CHECK(n->len > X[n->out].out.vc[w].limit);
				sb_unlink(b, (int)(f - F));
				b->bytes -= n->len;
				b->st.drops_full++;
				f->at = AT_FREE;
			}
			/* the others queued again in the order they would leave */
			if (want && b->mode != VCSW_MODE_RECN)
				sb_requeue(b, b->mode);
		}
}

static void set_limit(struct fuzz_in *in)
{
	unsigned int side = fuzz_u8(in) & 1, p = fuzz_below(in, np);
	unsigned int vc = fuzz_below(in, VCSW_MAX_VCS);
	fq_u32 limit = fuzz_u8(in) & 1 ? fuzz_u32(in) : fuzz_u16(in);

	if (side == OUT_SIDE && limit < X[p].out.vc[vc].limit) {
		shrink_out(p, vc, limit);
		return;
	}
	core_vc(side, p, vc)->limit = limit;
	if (S[side][p][vc].bytes > limit)
		S[side][p][vc].over = true;
	else
		S[side][p][vc].over = false;
}

static void set_arch(unsigned int a)
{
	unsigned int p, vc, side;

	if (a == arch)
		return;
	/* recn is entered and left only while the switch is down (empty) */
	if ((a == VCSW_ARCH_RECN || arch == VCSW_ARCH_RECN) &&
	    (!switch_empty() || vcs != VCSW_NUM_VCS))
		return;
	for (p = 0; p < np; p++)
		vcsw_xport_set_arch(&X[p], a);
	arch = a;
	for (side = 0; side < 2; side++)
		for (p = 0; p < np; p++)
			for (vc = 0; vc < VCSW_MAX_VCS; vc++)
				sb_requeue(&S[side][p][vc], mode_of(a, vc));
}

static void set_vcs(unsigned int v)
{
	unsigned int p, vc;

	if (arch == VCSW_ARCH_RECN && v != VCSW_NUM_VCS)
		return;	/* recn runs two VCs */
	/* the VCs a port stops using must be empty */
	for (p = 0; p < np; p++)
		for (vc = v; vc < VCSW_MAX_VCS; vc++)
			if (S[IN_SIDE][p][vc].count || S[OUT_SIDE][p][vc].count)
				return;
	for (p = 0; p < np; p++)
		vcsw_xport_set_vcs(&X[p], v);
	vcs = v;
}

/*
 * A RECN message from the far end of port @p's link, one that
 * recn_wire_parse() takes, for a port with "recn on" (vcsw_recn_rcv()):
 * the far end may stop our outputs' SAQs, but only for a lease.
 */
static void link_msg(struct fuzz_in *in)
{
	unsigned int p = fuzz_below(in, np), k;
	struct recn_msg m;
	fq_u8 vc;

	memset(&m, 0, sizeof(m));
	m.kind = (fq_u8)(FABRIC_RECN_NOTIFY + fuzz_below(in, FABRIC_RECN_FULL - FABRIC_RECN_NOTIFY + 1));
	vc = fuzz_u8(in) & 1;
	m.pt.sl = fuzz_u8(in) & 3;
	m.pt.len = (fq_u8)(1 + fuzz_below(in, RECN_POINT_MAX_LEN));
	for (k = 0; k < m.pt.len; k++)
		m.pt.turns |= (fq_u64)fuzz_below(in, 9) << (6 * k);
	if (arch != VCSW_ARCH_RECN || !rq_in[p][0].tell_up || !recn_point_valid(&m.pt))
		return;
	vcsw_xbar_recn_receive(ports, np, p, vc, &m, now);
	deliver();
}

static void tick(void)
{
	bool woke = false;

	if (arch != VCSW_ARCH_RECN)
		return;
	vcsw_xbar_recn_tick(ports, np, &box, now, recn_link, NULL, &woke);
	deliver();
}

static fq_u32 any_limit(struct fuzz_in *in)
{
	switch (fuzz_u8(in) & 3) {
	case 0:
		return fuzz_u32(in);	/* 0 to 4 GiB */
	case 1:
		return 1500 + fuzz_below(in, 4096);	/* a frame or a few */
	default:
		return 8192 << (fuzz_u8(in) & 3);
	}
}

static void setup(struct fuzz_in *in)
{
	unsigned int p, vc, f;
	fq_u32 in_limit, out_limit;

	memset(F, 0, sizeof(F));
	memset(S, 0, sizeof(S));
	memset(rr, 0, sizeof(rr));
	memset(waited, 0, sizeof(waited));
	memset(blocked, 0, sizeof(blocked));
	memset(&box, 0, sizeof(box));
	np = 2 + fuzz_below(in, FZ_PORTS - 1);
	arch = fuzz_below(in, VCSW_ARCH_COUNT);
	vcs = arch != VCSW_ARCH_RECN && fuzz_u8(in) & 1 ? VCSW_MAX_VCS : VCSW_NUM_VCS;
	now = fuzz_u32(in);
	cursor = 0;
	in_limit = any_limit(in);
	out_limit = any_limit(in);
	recn_cfg_default(&rcfg, 256 + fuzz_below(in, 1500));
	for (p = 0; p < np; p++) {
		bool tell_up = fuzz_u8(in) & 1;
		fq_u8 shape = fuzz_u8(in);

		ports[p] = &X[p];
		vcsw_xport_init(&X[p], arch, in_limit, out_limit,
				shape & 1 ? 1000000 + fuzz_u32(in) : 0);
		X[p].wormhole = shape & 2;
		vcsw_xport_set_vcs(&X[p], vcs);
		for (vc = 0; vc < VCSW_NUM_VCS; vc++) {
			vcsw_rq_init(&rq_in[p][vc], &rcfg, &box, (fq_u16)p, VCSW_RQ_IN,
				     (fq_u8)vc, tell_up);
			vcsw_rq_init(&rq_out[p][vc], &rcfg, &box, (fq_u16)p, VCSW_RQ_OUT,
				     (fq_u8)vc, tell_up);
			vcsw_vc_attach_recn(&X[p].in[vc], &rq_in[p][vc], arch == VCSW_ARCH_RECN);
			vcsw_vc_attach_recn(&X[p].out.vc[vc], &rq_out[p][vc],
					    arch == VCSW_ARCH_RECN);
		}
		for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
			S[IN_SIDE][p][vc].mode = mode_of(arch, vc);
			S[OUT_SIDE][p][vc].mode = mode_of(arch, vc);
		}
	}
	for (f = 0; f < FZ_FLOWS; f++) {
		struct flow *fl = &flows[f];
		unsigned int hops[2];

		fl->in = (fq_u8)fuzz_below(in, np);
		fl->out = (fq_u8)((fl->in + 1 + fuzz_below(in, np - 1)) % np);
		fl->vc = (fq_u8)fuzz_below(in, VCSW_MAX_VCS);
		fl->sl = (fq_u8)(fuzz_u8(in) & 3);
		hops[0] = fl->out;
		hops[1] = fuzz_below(in, 8);
		fl->route = 0;
		if (fuzz_u8(in) & 1)
			fhc_route_build(hops, 2, &fl->route);
		fl->deadline = fuzz_u32(in);
		fl->next_seq = 0;
	}
}

/* No more input: credits let go, time passes, and every frame must leave. */
static void drain(struct fuzz_in *in)
{
	unsigned int round, p;

	memset(blocked, 0, sizeof(blocked));
	for (round = 0; round < FZ_DRAIN_ROUNDS && !switch_empty(); round++) {
		fq_u64 t = now + FZ_MS;

		for (p = 0; p < np; p++)
			t = edf_max(t, X[p].out.link_free);
		now = t;
		tick();
		run(in, FZ_RUN_STEPS, true);
		for (p = 0; p < np; p++)
			while (depart(p, true))
				;
		deliver();
		check_switch();
	}
	/* a frame that never left: lost inside, or an input held for good */
	FUZZ_CHECK(switch_empty());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	unsigned int op;

	setup(&in);
	check_switch();
	for (op = 0; op < FZ_MAX_OPS && fuzz_more(&in); op++) {
		switch (fuzz_below(&in, 16)) {
		case 0:
		case 1:
		case 2:
		case 3:
		case 4:
			arrive(&in);
			deliver();
			break;
		case 5:
		case 6:
		case 7:
			run(&in, fuzz_u8(&in) & 1 ? 1 + fuzz_below(&in, 8) : FZ_RUN_STEPS,
			    false);
			break;
		case 8:
		case 9:
			depart(fuzz_below(&in, np), fuzz_u8(&in) & 1);
			deliver();
			break;
		case 10:
			now += fuzz_u8(&in) & 1 ? fuzz_u16(&in) : fuzz_u32(&in);
			break;
		case 11: {	/* credits hold an output's VC back, or let it go */
			unsigned int p = fuzz_below(&in, np);

			blocked[p][fuzz_below(&in, VCSW_MAX_VCS)] ^= true;
			break;
		}
		case 12:
			set_limit(&in);
			deliver();
			break;
		case 13:
			set_arch(fuzz_below(&in, VCSW_ARCH_COUNT));
			break;
		case 14:
			set_vcs(fuzz_u8(&in) & 1 ? VCSW_MAX_VCS : VCSW_NUM_VCS);
			break;
		default:
			if (fuzz_u8(&in) & 1) {
				link_msg(&in);
				break;
			}
			now += fuzz_u16(&in) * 16ULL;
			tick();
			break;
		}
		check_switch();
	}
	drain(&in);
	return 0;
}
