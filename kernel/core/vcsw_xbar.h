/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The combined input/output buffered switch of the EDF paper (sections
 * 3.2, 3.4 and 4.1, and the appendix): per port and VC an input buffer,
 * a crossbar, per port and VC an output buffer (vcsw_port.h).  Plain C
 * shared by the soft switch, the unit tests and qsim.
 *
 * A frame waits in the input buffer of the port it came in by until the
 * crossbar moves it to the output buffer of the port it leaves by, and
 * the crossbar moves it only when that output VC has room for it: the
 * switch never drops inside.  Each input buffer is one queue per VC, not
 * one per output, so a frame whose output is full holds up the frames
 * behind it: head-of-line blocking, the RECN paper's model (RECN later
 * removes it); the EDF paper's simulations used virtual output queues
 * instead, which are not built.
 *
 * The four architectures differ in how each buffer is kept and how the
 * crossbar chooses among the inputs whose heads want the same output:
 *
 *   trad      input and output VCs are FIFOs; the crossbar serves the
 *             inputs in turn (round robin): "Traditional 2 VCs";
 *   simple    FIFOs too, but the crossbar takes, among the input heads,
 *             the one with the smallest deadline: merging ordered chains
 *             by their heads, "analogous to a sorting algorithm" (3.2);
 *   advanced  VC0 is the ordered + take-over pair of the appendix, in
 *             the input and the output buffers, with the same crossbar;
 *   ideal     both VCs sorted by deadline everywhere (a heap): "Ideal";
 *   recn      every VC of every buffer a RECN set (vcsw_recn.h): FIFOs
 *             per detection queue and SAQ; an input asks each output for
 *             the next of its ready queues whose head goes there, and
 *             the output serves the inputs in turn, as trad.  So a frame
 *             for a full output holds up only its own queue: the RECN
 *             paper's switch.
 *
 * VC0 is served strictly before VC1 at the crossbar (per output) as at
 * the outputs; with four VCs (vcsw_xport_set_vcs()) each VC strictly
 * before the next.  VCs 1 to 3 are kept as VC1 (FIFOs, or sorted in
 * ideal).
 * Only the head the crossbar chose is checked for room (the appendix's
 * rule for credits): were a smaller frame behind it, or at another
 * input, allowed to go first because it fits, deadlines and flows would
 * be served out of order.
 */
#ifndef FQ_VCSW_XBAR_H
#define FQ_VCSW_XBAR_H

#include "vcsw_port.h"

/* VCSW_ARCH_TRAD .. VCSW_ARCH_IDEAL: uapi/linux/vcsw.h */
#define VCSW_ARCH_COUNT	(VCSW_ARCH_MAX + 1)

static inline const char *vcsw_arch_name(unsigned int arch)
{
	switch (arch) {
	case VCSW_ARCH_TRAD:
		return "trad";
	case VCSW_ARCH_SIMPLE:
		return "simple";
	case VCSW_ARCH_ADVANCED:
		return "advanced";
	case VCSW_ARCH_IDEAL:
		return "ideal";
	case VCSW_ARCH_RECN:
		return "recn";
	default:
		return "?";
	}
}

/* How an architecture keeps VC @vc's buffers (input and output alike). */
static inline fq_u8 vcsw_arch_vc_mode(unsigned int arch, unsigned int vc)
{
	if (arch == VCSW_ARCH_IDEAL)
		return VCSW_MODE_IDEAL;
	if (arch == VCSW_ARCH_RECN)
		return VCSW_MODE_RECN;
	if (arch == VCSW_ARCH_ADVANCED && vc == 0)
		return VCSW_MODE_TAKEOVER;
	return VCSW_MODE_FIFO;
}

/* Does the crossbar serve the inputs in turn, not by deadline? */
static inline bool vcsw_arch_round_robin(unsigned int arch)
{
	return arch == VCSW_ARCH_TRAD || arch == VCSW_ARCH_RECN;
}

/* One port of the switch: its input buffers and its output port. */
struct vcsw_xport {
	struct vcsw_vc		in[VCSW_MAX_VCS];
	struct vcsw_port	out;		/* out.vcs: the port's VCs */
	/* round robin: the input the crossbar looks at first, per VC */
	fq_u16			rr[VCSW_MAX_VCS];
	/*
	 * Wormhole: a frame crosses to this output only when the output
	 * is idle, nothing queued and its link free, so a frame behind a
	 * busy output holds its input (and its sender's credits) as a worm
	 * holds its path: what FBS's feedback needs
	 */
	bool			wormhole;
};

/* Two VCs until vcsw_xport_set_vcs(); every VC's buffers of the limits. */
static inline void vcsw_xport_init(struct vcsw_xport *x, unsigned int arch,
				   fq_u32 in_limit, fq_u32 out_limit,
				   fq_u64 rate)
{
	unsigned int vc;

	vcsw_port_init(&x->out, vcsw_arch_vc_mode(arch, 0), out_limit,
		       out_limit, rate);
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		vcsw_vc_init(&x->in[vc], vcsw_arch_vc_mode(arch, vc), in_limit);
		/* recn waits for its sets: vcsw_vc_attach_recn() */
		if (vc)
			vcsw_vc_init(&x->out.vc[vc], vcsw_arch_vc_mode(arch, vc), out_limit);
		x->rr[vc] = 0;
	}
	x->wormhole = false;
}

/*
 * The port's VCs, input and output: 2 or 4 (vcsw_port_set_vcs(); the VCs
 * it stops using must be empty).  Every port of a switch has the same.
 */
static inline void vcsw_xport_set_vcs(struct vcsw_xport *x, unsigned int vcs)
{
	vcsw_port_set_vcs(&x->out, vcs);
}

/*
 * A frame (@n: deadline, len, vc, out filled in) arrives at the input
 * buffer of port @in of the @nports in @ports at @now.  VCSW_ENQ_FULL
 * (counted as drops_full of the input VC; the caller frees it) when it
 * has no room there (on a link with credits, a sender that ignored them)
 * or could never cross: an output that is not another port of the
 * switch, or larger than that output's VC can ever hold.  Such a frame
 * at an input's head would hold up the input for good.
 */
static inline enum vcsw_enq_result vcsw_xbar_arrive(struct vcsw_xport *const *ports,
						    unsigned int nports,
						    unsigned int in,
						    struct vcsw_node *n,
						    fq_u64 now)
{
	struct vcsw_vc *v;

	n->vc = vcsw_vc_of(n->vc, ports[in]->out.vcs);
	v = &ports[in]->in[n->vc];
	if (n->out >= nports || n->out == in ||
	    n->len > ports[n->out]->out.vc[n->vc].limit) {
		v->st.drops_full++;
		return VCSW_ENQ_FULL;
	}
	return vcsw_vc_enqueue(v, n, now);
}

/* The crossbar's sets of ports are words of 64 bits. */
_Static_assert(VCSW_MAX_PORTS <= 64, "a set of ports is one 64-bit word");

/*
 * The set @m turned right by @by (below 64): ports @by and up first, from
 * the lowest bit, then the ports below @by (bits 64 - @by and up), which
 * is their order in turn from @by.  vcsw_xbar_port_at() gives the port of
 * a bit back.
 */
static inline fq_u64 vcsw_xbar_turn(fq_u64 m, unsigned int by)
{
	return by ? m >> by | m << (64 - by) : m;
}

/* The port of the lowest bit of a set turned by @by (not empty). */
static inline unsigned int vcsw_xbar_port_at(fq_u64 turned, unsigned int by)
{
	return ((unsigned int)__builtin_ctzll(turned) + by) % 64;
}

/* The set of every port of @n: the outputs a recn VC's heads may go to. */
static inline fq_u64 vcsw_xbar_all(unsigned int n)
{
	return n < 64 ? ((fq_u64)1 << n) - 1 : ~(fq_u64)0;
}

/*
 * The outputs the head of @v, an input VC with a frame, goes to: every
 * output (@all) in recn, whose head depends on the output asking.
 */
static inline fq_u64 vcsw_xbar_head_outs(const struct vcsw_vc *v,
					 unsigned int n, fq_u64 all)
{
	const struct vcsw_node *h;

	if (v->mode == VCSW_MODE_RECN)
		return all;
	h = vcsw_vc_pick(v);
	return h && h->out < n ? (fq_u64)1 << h->out : 0;
}

/*
 * The inputs with a frame in VC @vc (bit i for port i), and in *@outs the
 * outputs their heads go to.  The crossbar asks only those inputs, for
 * those outputs: an empty VC's ask finds nothing in any mode, nor does
 * an ask for another output than the head's.  At 8 ports and 4 VCs a
 * move could otherwise ask 256 times, nearly all in vain where few
 * inputs have frames (Documentation/benchmarks.rst, "The crossbar's
 * inputs").
 */
static inline fq_u64 vcsw_xbar_heads(struct vcsw_xport *const *ports,
				     unsigned int n, unsigned int vc,
				     fq_u64 *outs)
{
	fq_u64 m = 0, all = vcsw_xbar_all(n), o = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct vcsw_vc *v = &ports[i]->in[vc];

		if (pheap_is_empty(&v->waiting))
			continue;
		m |= (fq_u64)1 << i;
		o |= vcsw_xbar_head_outs(v, n, all);
	}
	*outs = o;
	return m;
}

/*
 * What a run of the crossbar (vcsw_xbar_run(), the soft switch's loop)
 * knows of its inputs, kept from one step to the next: per VC the inputs
 * with frames and the outputs their heads go to (vcsw_xbar_heads()).
 * Within a run, at one time and under the caller's lock, an input
 * changes only by the run's own moves, so after a move only that input's
 * VC needs a new look (vcsw_xbar_look_moved()) instead of a pass over
 * every input and VC at every step: the step that ends a run, which
 * finds nothing, then costs no pass at all.  A frame that arrives
 * starts a new run (vcsw_xbar_look_init()): the look would miss it.
 *
 * @outs may keep an output no head goes to any more (a moved head's): the
 * step asks for it in vain, as the plain rule asked every output, and
 * moves what it would have moved without it.
 */
struct vcsw_xbar_look {
	fq_u64	inputs[VCSW_MAX_VCS];
	fq_u64	outs[VCSW_MAX_VCS];
	bool	taken;		/* the sets were filled in this run */
};

static inline void vcsw_xbar_look_init(struct vcsw_xbar_look *look)
{
	look->taken = false;
}

/* Input @i's VC @vc lost its head to a move: the look there again. */
static inline void vcsw_xbar_look_moved(struct vcsw_xbar_look *look,
					struct vcsw_xport *const *ports,
					unsigned int n, unsigned int i,
					unsigned int vc)
{
	const struct vcsw_vc *v = &ports[i]->in[vc];

	if (pheap_is_empty(&v->waiting))
		look->inputs[vc] &= ~((fq_u64)1 << i);
	else
		look->outs[vc] |= vcsw_xbar_head_outs(v, n, vcsw_xbar_all(n));
}

/* vcsw_xbar_pick() asking only @inputs, in turn from the output's position. */
static inline int vcsw_xbar_pick_among(struct vcsw_xport *const *ports,
				       unsigned int n, unsigned int o,
				       unsigned int vc, unsigned int arch,
				       fq_u64 now, fq_u64 inputs)
{
	struct vcsw_xport *out = ports[o];
	struct vcsw_node *best = NULL;
	unsigned int i, first = out->rr[vc] % n;
	fq_u64 turn = vcsw_xbar_turn(inputs, first);
	int chosen = -1;

	for (; turn; turn &= turn - 1) {
		struct vcsw_node *h;

		i = vcsw_xbar_port_at(turn, first);
		h = vcsw_vc_pick_for(&ports[i]->in[vc], (fq_u16)o);
		if (!h || h->out != o)
			continue;
		/* round robin: the first in turn; else the smallest deadline,
		 * the first in turn on a tie */
		if (!best || (!vcsw_arch_round_robin(arch) &&
			      h->deadline < best->deadline)) {
			best = h;
			chosen = (int)i;
		}
		if (vcsw_arch_round_robin(arch))
			break;
	}
	if (!best || !vcsw_vc_has_room(&out->out.vc[vc], best->len))
		return -1;
	if (out->wormhole &&
	    (vcsw_port_qlen(&out->out) || !vcsw_port_link_ready(&out->out, now)))
		return -1;
	return chosen;
}

/*
 * The input whose head the crossbar sends to output @o on VC @vc next,
 * or -1: none wants @o, or the chosen head does not fit in @o's VC (in
 * wormhole mode: @o is not idle at @now).  @ports has @n ports, 64 at
 * most.
 */
static inline int vcsw_xbar_pick(struct vcsw_xport *const *ports,
				 unsigned int n, unsigned int o,
				 unsigned int vc, unsigned int arch, fq_u64 now)
{
	fq_u64 outs;

	return vcsw_xbar_pick_among(ports, n, o, vc, arch, now,
				    vcsw_xbar_heads(ports, n, vc, &outs));
}

/*
 * Move the head of input @i's VC @vc to output @o at @now (after
 * vcsw_xbar_pick() chose it, which checked that it fits in @o's VC: the
 * move itself cannot fail, so no frame can be left in neither queue).
 * The input's departure is counted in its VC's statistics, order errors
 * included; the output's arrival as vcsw_vc_add() counts it.
 */
static inline struct vcsw_node *vcsw_xbar_move(struct vcsw_xport *const *ports,
					       unsigned int n, unsigned int i,
					       unsigned int o, unsigned int vc,
					       fq_u64 now)
{
	struct vcsw_vc *v = &ports[i]->in[vc];
	struct vcsw_node *h = vcsw_vc_pick_for(v, (fq_u16)o);

	vcsw_vc_take(v, h, now);
	/* round robin goes on after the input just served */
	ports[o]->rr[vc] = (fq_u16)((i + 1) % n);
	vcsw_vc_add(&ports[o]->out.vc[vc], h, now);
	return h;
}

/*
 * Move one frame at @now: the outputs take turns from *@cursor on, and
 * the first that a frame can cross to takes one, a VC0 frame if one can
 * cross to it, else a VC1 frame (else VC2, VC3 with four VCs).  Returns
 * the frame moved (its input in *@from), or NULL when no output can take
 * one (every output some head goes to was looked at once).  *@cursor is
 * left at the output after the one served, or where it started when
 * nothing moved, so that successive calls serve the outputs in turn.
 * The caller sees each frame that leaves an input: a switch with credits
 * returns its room to the upstream sender then.  @look: the run's
 * (struct vcsw_xbar_look), vcsw_xbar_look_init() since the last arrival.
 * A free slot of @ports may be a port of none (all zero), but not the
 * last.
 */
static inline struct vcsw_node *vcsw_xbar_step(struct vcsw_xport *const *ports,
					       unsigned int n, unsigned int arch,
					       fq_u64 now, unsigned int *cursor,
					       unsigned int *from,
					       struct vcsw_xbar_look *look)
{
	unsigned int vc, o, start = n ? *cursor % n : 0;
	/*
	 * Every port of a switch has the same VCs (vcsw_xport_set_vcs()),
	 * but a free slot holds a port of none (out.vcs 0): the last of @n
	 * is a port, since the switch trims free slots off the end, while
	 * the first is free once its port left
	 */
	unsigned int vcs = n ? ports[n - 1]->out.vcs : 0;
	fq_u64 any = 0, turn;

	for (vc = 0; vc < vcs; vc++) {
		if (!look->taken)
			look->inputs[vc] = vcsw_xbar_heads(ports, n, vc,
							   &look->outs[vc]);
		any |= look->outs[vc];
	}
	look->taken = true;
	/* the outputs some head goes to, in turn from the cursor */
	for (turn = vcsw_xbar_turn(any, start); turn; turn &= turn - 1) {
		struct vcsw_node *h;
		int i = -1;

		o = vcsw_xbar_port_at(turn, start);
		for (vc = 0; vc < vcs; vc++) {
			if (!(look->outs[vc] >> o & 1))
				continue;
			i = vcsw_xbar_pick_among(ports, n, o, vc, arch, now,
						 look->inputs[vc]);
			if (i >= 0)
				break;
		}
		if (i >= 0) {
			*cursor = (o + 1) % n;
			*from = (unsigned int)i;
			h = vcsw_xbar_move(ports, n, (unsigned int)i, o, vc, now);
			vcsw_xbar_look_moved(look, ports, n, (unsigned int)i, vc);
			return h;
		}
	}
	*cursor = start;
	return NULL;
}

/*
 * Run the crossbar at @now until it can move nothing more, or @budget
 * frames: vcsw_xbar_step() until it moves nothing, with one look
 * (struct vcsw_xbar_look) for the run.  The outputs take
 * turns, one frame each, from *@cursor on (where the last call stopped,
 * so a small budget serves every output in time); each takes a VC0 frame
 * if one can cross to it, else a VC1 frame: VC0 first at every output,
 * and VC1 frames for an output that has no VC0 traffic are not held back
 * by another output's.  Returns the frames moved.
 */
static inline unsigned int vcsw_xbar_run(struct vcsw_xport *const *ports,
					 unsigned int n, unsigned int arch,
					 fq_u64 now, unsigned int budget,
					 unsigned int *cursor)
{
	unsigned int moved = 0, from;
	struct vcsw_xbar_look look;

	vcsw_xbar_look_init(&look);
	while (moved < budget &&
	       vcsw_xbar_step(ports, n, arch, now, cursor, &from, &look))
		moved++;
	return moved;
}

static inline bool vcsw_node_outgrows(const struct vcsw_node *n,
				      const void *ports)
{
	struct vcsw_xport *const *p = (struct vcsw_xport *const *)ports;

	return n->len > p[n->out]->out.vc[n->vc].limit;
}

/*
 * The output buffers of @ports were made smaller: the frames
 * waiting in VC @vc of input @in that their output's VC can no longer
 * hold would never cross, and would hold up the input behind them for
 * good.  They are taken out onto @gone (the caller frees them and gives
 * their credits back), counted as drops_full of the input VC, as such a
 * frame is refused on arrival.  Returns how many.
 */
static inline fq_u32 vcsw_xbar_remove_unfit(struct vcsw_xport *const *ports,
					    unsigned int in, unsigned int vc,
					    struct vcsw_list *gone, fq_u64 now)
{
	struct vcsw_vc *v = &ports[in]->in[vc];
	fq_u32 taken;

	taken = vcsw_vc_remove(v, vcsw_node_outgrows, ports, gone, now);
	v->st.drops_full += taken;
	return taken;
}

/*
 * Switch every buffer of @x to architecture @arch with frames waiting:
 * each VC is queued again in its old order (vcsw_vc_set_mode()).
 */
static inline void vcsw_xport_set_arch(struct vcsw_xport *x, unsigned int arch)
{
	unsigned int vc;

	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		vcsw_vc_set_mode(&x->in[vc], vcsw_arch_vc_mode(arch, vc));
		vcsw_vc_set_mode(&x->out.vc[vc], vcsw_arch_vc_mode(arch, vc));
	}
}

#endif /* FQ_VCSW_XBAR_H */
