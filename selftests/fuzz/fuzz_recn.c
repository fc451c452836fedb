// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: RECN's congestion isolation (kernel/core/recn_core.h,
 * recn_host.h, recn_wire.h) as a hostile neighbour and hostile traffic
 * can drive it.  A host (struct recn_host, as fabric_link_recn.c keeps
 * it) sends on a link to the input side of a switch port; the switch's
 * four output sides (recn_set_output_side()) take what the input
 * forwards and frames of other inputs, and send on to a next switch that
 * is only a source of messages.  The harness carries frames and messages
 * between them as vcsw_recn.c and fabric_link_recn.c do: messages inside
 * the switch at once after each operation (vcsw_xbar_recn_deliver()),
 * messages on the link in FABRIC_CTRL_RECN frames, late or lost as the
 * input says.
 *
 * The input: a configuration for the switch and one for the host (one
 * recn_cfg_check() or recn_host_cfg_check() refuses ends it), then up to
 * OPS_MAX operations: frames queued, sent, dropped and counted again at
 * the host; frames served at the switch's input and outputs; frames of
 * other inputs; link messages carried or lost; messages made up (valid
 * or not) for the host, as wire bytes, and for the switch's sets; time,
 * a clock a little behind, ticks; the port's "recn on" and the host's
 * settings changed.  After each operation the sets touched are held to
 * what the code says of them.  At the end the made-up messages stop, the
 * real ones are all carried, and every frame must leave and every line
 * be freed in bounded time.
 */
#include "fuzz.h"

#include "core/recn_host.h"

#define OPS_MAX		2000	/* about 2 ms at most; most inputs take 50 us */
#define FRAMES_MAX	128	/* frames anywhere at once */
#define HOST_FLOWS	8	/* the host's qdisc: a FIFO per flow, as edf */
#define OUTS		4	/* the switch's output ports modelled: 0 to 3 */
#define IN_PORT		4	/* the port the host's link comes in at */
#define NQ		(RECN_DETQS + RECN_SAQ_MAX)
#define ORDER_FLOWS	16	/* (route, SL) pairs a set's order check follows */
#define LINK_MAX	64	/* messages on a link at once; more are lost */
#define BOX_MAX		64	/* the switch's box, smaller than VCSW_RQ_BOX: more lost */
#define DRAIN_ROUNDS	8	/* steps of idle + lease for the last frame to leave */

/* The sets: the host's two VCs, the input's two, each output's two. */
enum { SET_HOST, SET_IN, SET_OUT };
#define NSETS		(2 + 2 + 2 * OUTS)
#define ID_HOST(vc)	(vc)
#define ID_IN(vc)	(2 + (vc))
#define ID_OUT(o, vc)	(4 + 2 * (o) + (vc))

#define NONE		(-1)

struct order_flow {
	fq_u64 key;
	fq_u32 next, want;	/* sequence numbers given, and due next */
};

struct mset {
	struct recn_set *s;
	fq_u8 kind, vc, out;
	/* what the harness has put in each queue; the set must count the same */
	fq_u32 frames[NQ], bytes[NQ];
	fq_u32 total;		/* frames in all its queues */
	int head[NQ], tail[NQ];	/* FIFOs of the switch's sets */
	fq_u64 senders;		/* upstream ports that ever sent it a frame */
	fq_u64 base_alloc, base_free;	/* its counters when it was (re)made */
	fq_s32 last;		/* the queue served last: round robin */
	struct order_flow of[ORDER_FLOWS];
};

struct frame {
	bool used;
	int8_t set;		/* the set it is in; NONE: the host's qdisc */
	fq_u8 q;		/* its queue there */
	fq_u8 sl, vc, out;	/* out: the output it crosses to at the switch */
	int next;
	fq_u32 route;		/* as the place it is in reads it */
	fq_u32 bytes;
	fq_u32 tag;		/* at the host: the queue it counts in */
	int8_t of;		/* its order_flow at a set of the switch, or NONE */
	fq_u32 seq;
};

struct hflow {
	int head, tail;
	fq_u32 route;
	fq_u8 sl, vc, mac_out;
};

struct note {
	struct recn_msg m;
	fq_u8 vc;
	fq_u8 set;		/* the switch's box: the set it is for */
	fq_u32 from;
};

struct fifo {
	struct note n[LINK_MAX];
	fq_u32 head, count;
};

struct world {
	struct recn_host h;
	struct recn_set sw[NSETS - 2];
	struct mset ms[NSETS];
	struct recn_cfg cfg;
	struct recn_host_cfg hcfg;
	struct frame fr[FRAMES_MAX];
	int nframes;
	struct hflow hf[HOST_FLOWS];
	struct fifo to_host, to_switch, box;
	fq_u64 now, skew;
	bool tell_up;		/* the port's "recn on": the host hears RECN */
	bool recount;		/* the host's frames must be counted again */
	fq_u32 gen;		/* h.gen when they last were */
	fq_u32 dirty;		/* sets touched since the last check */
};

static struct world W;

/*
 * The harness's own checks are left out of the coverage the fuzzer
 * follows: their branches say nothing about the core, and tracing their
 * comparisons took most of the time of a run.
 */
#define FUZZ_HARNESS __attribute__((no_sanitize("coverage")))

static fq_u64 op_now(void)
{
	return W.now - W.skew;
}

/* ---- queues --------------------------------------------------------------- */

static int frame_new(void)
{
	int i;

	for (i = 0; i < FRAMES_MAX; i++) {
		if (!W.fr[i].used) {
			W.fr[i] = (struct frame){ .used = true, .set = NONE, .next = NONE,
						  .of = NONE };
			W.nframes++;
			return i;
		}
	}
	return NONE;
}

static void frame_free(int i)
{
	W.fr[i].used = false;
	W.nframes--;
}

static void list_push(int *head, int *tail, int i)
{
	W.fr[i].next = NONE;
	if (*tail != NONE)
		W.fr[*tail].next = i;
	else
		*head = i;
	*tail = i;
}

static int list_pop(int *head, int *tail)
{
	int i = *head;

	*head = W.fr[i].next;
	if (*head == NONE)
		*tail = NONE;
	return i;
}

static void touch(const struct mset *ms)
{
	W.dirty |= 1u << (ms - W.ms);
}

static void count_in(struct mset *ms, fq_u32 q, fq_u32 bytes)
{
	ms->frames[q]++;
	ms->bytes[q] += bytes;
	ms->total++;
	touch(ms);
}

static void count_out(struct mset *ms, fq_u32 q, fq_u32 bytes)
{
	FUZZ_CHECK(ms->frames[q] > 0);	/* the harness's own books */
	ms->frames[q]--;
	ms->bytes[q] -= bytes;
	ms->total--;
	touch(ms);
}

/* ---- messages ------------------------------------------------------------- */

static bool fifo_push(struct fifo *f, const struct note *n)
{
	if (f->count == LINK_MAX)
		return false;	/* lost, as on a full queue: RECN lives with it */
	f->n[(f->head + f->count) % LINK_MAX] = *n;
	f->count++;
	return true;
}

static struct note fifo_pop(struct fifo *f)
{
	struct note n = f->n[f->head];

	f->head = (f->head + 1) % LINK_MAX;
	f->count--;
	return n;
}

/*
 * Messages a place sends go in one FABRIC_CTRL_RECN frame; the other end
 * takes it only if recn_wire_parse() does, so what a set says must be
 * what the wire can carry, and come back as it was.
 */
static void wire_round_trip(const struct recn_wire_msg *msg, fq_u32 n)
{
	fq_u8 buf[FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX)];
	struct recn_wire_msg back[FABRIC_CTRL_RECN_MAX];
	fq_u32 len, got = 0, i;

	len = recn_wire_build(buf, msg, n);
	FUZZ_CHECK(recn_wire_len(buf, len) == len);
	FUZZ_CHECK(recn_wire_parse(buf, len, back, &got) == RECN_WIRE_OK);
	FUZZ_CHECK(got == n);
	for (i = 0; i < n; i++)
		FUZZ_CHECK(back[i].vc == msg[i].vc && back[i].m.kind == msg[i].m.kind &&
			   recn_point_eq(&back[i].m.pt, &msg[i].m.pt));
}

/*
 * recn_send_fn of the switch's sets: check what is said, then carry it
 * where vcsw_rq_dest_of() and vcsw_recn_link() would.
 */
static void sw_send(void *ctx, fq_u32 to, const struct recn_msg *m)
{
	struct mset *ms = ctx;
	struct note n = { .m = *m, .vc = ms->vc };
	fq_u32 out;

	/* a set only ever names the points of its lines (SAQs, roots) */
	FUZZ_CHECK(recn_point_valid(&m->pt));
	if (m->kind == RECN_MSG_RELEASE || m->kind == RECN_MSG_FULL) {
		/* RELEASE and FULL go to the place that notified the set */
		FUZZ_CHECK(to == RECN_DOWNSTREAM);
	} else {
		FUZZ_CHECK(m->kind == RECN_MSG_NOTIFY || m->kind == RECN_MSG_XOFF ||
			   m->kind == RECN_MSG_XON);
		/*
		 * Notify, Xoff and Xon go upstream, only to ports that sent
		 * the congested point a frame (recn_tell_arrival()'s @from,
		 * kept in @told and @fresh)
		 */
		FUZZ_CHECK(to < RECN_UPSTREAM_MAX && (ms->senders >> to & 1));
	}
	switch (ms->kind) {
	case SET_IN:
		if (to == RECN_DOWNSTREAM) {
			/* down to the output the point names first */
			if (!recn_point_down_to_output(&n.m.pt, &out) || out >= OUTS)
				return;
			n.set = (fq_u8)ID_OUT(out, ms->vc);
			n.from = IN_PORT;
			fifo_push(&W.box, &n);
		} else if (W.tell_up) {
			/* the link's far end: the host, which reads the same digits */
			fifo_push(&W.to_host, &n);
		}
		return;
	case SET_OUT:
		if (to == RECN_DOWNSTREAM) {
			struct recn_wire_msg w = { .m = *m, .vc = ms->vc };

			/* to the next switch, which the harness does not keep */
			wire_round_trip(&w, 1);
			return;
		}
		/*
		 * An output side tells only of points its inputs can name with
		 * its digit in front (recn_set_output_side())
		 */
		FUZZ_CHECK(recn_point_up_from_output(&n.m.pt, ms->out));
		if (to != IN_PORT)
			return;		/* an input the harness does not keep */
		n.set = (fq_u8)ID_IN(ms->vc);
		n.from = ms->out;
		fifo_push(&W.box, &n);
		return;
	}
	FUZZ_CHECK(0);	/* the host's sets post through recn_host_post() */
}

/*
 * What the host staged goes on the link to the switch: RELEASE and FULL
 * only, in a frame the switch takes.  The tick sends it
 * (fabric_link_recn_timer()), armed at once when something is staged
 * but run later: until then more may be staged, up to the stage's size.
 */
static void host_flush(void)
{
	struct recn_wire_msg out[RECN_HOST_OUT_MAX];
	fq_u32 n, i;

	/* the stage is bounded: what does not fit is counted, not written */
	FUZZ_CHECK(W.h.nout <= RECN_HOST_OUT_MAX);
	n = recn_host_take_out(&W.h, out);
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		struct note no = { .m = out[i].m, .vc = out[i].vc };

		/*
		 * A host is where frames come from: it has nobody upstream to
		 * notify or stop (recn_host.h), and speaks only of its own SAQs
		 */
		FUZZ_CHECK(out[i].m.kind == RECN_MSG_RELEASE || out[i].m.kind == RECN_MSG_FULL);
		fifo_push(&W.to_switch, &no);
	}
	wire_round_trip(out, n);
}

static void host_receive(const struct recn_wire_msg *msg, fq_u32 n)
{
	fq_u64 made = W.h.set[0].st.saq_alloc + W.h.set[1].st.saq_alloc;
	fq_u32 gen = W.h.gen;
	bool woke;

	woke = recn_host_receive(&W.h, msg, n, op_now());
	touch(&W.ms[0]);
	touch(&W.ms[1]);
	/* @gen moves with every SAQ made, so the qdisc counts its frames again */
	FUZZ_CHECK((W.h.gen != gen) ==
		   (W.h.set[0].st.saq_alloc + W.h.set[1].st.saq_alloc != made));
	/* ... and then the caller must run the qdisc (recn_host_receive()) */
	if (W.h.gen != gen)
		FUZZ_CHECK(woke);
}

/* A message from the link for the switch's port (vcsw_xbar_recn_receive()). */
static void switch_receive(const struct note *n)
{
	struct mset *ms = &W.ms[ID_IN(n->vc)];

	/* a port without "recn on" refuses the frame (vcsw_recn_rcv()) */
	if (!W.tell_up)
		return;
	/* NOTIFY, XOFF, XON are for the output side toward the host: not kept */
	if (n->m.kind != RECN_MSG_RELEASE && n->m.kind != RECN_MSG_FULL)
		return;
	recn_receive(ms->s, &n->m, 0, op_now(), sw_send, ms);
	touch(ms);
}

/* What the switch's sets posted, inside the switch, as after each operation. */
static void box_deliver(void)
{
	fq_u32 budget = 4 * BOX_MAX;

	while (W.box.count && budget--) {
		struct note n = fifo_pop(&W.box);
		struct mset *ms = &W.ms[n.set];

		recn_receive(ms->s, &n.m, n.from, op_now(), sw_send, ms);
		touch(ms);
	}
	/* the rest is dropped, as vcsw_xbar_recn_deliver() does past its budget */
	W.box.count = 0;
}

/* Up to @max messages on the link to the host, in one frame. */
static void deliver_to_host(fq_u32 max)
{
	struct recn_wire_msg msg[FABRIC_CTRL_RECN_MAX];
	fq_u32 n = 0;

	while (W.to_host.count && n < max && n < FABRIC_CTRL_RECN_MAX) {
		struct note no = fifo_pop(&W.to_host);

		msg[n].m = no.m;
		msg[n].vc = no.vc;
		n++;
	}
	if (!n)
		return;
	wire_round_trip(msg, n);
	host_receive(msg, n);
}

/* ---- the host ------------------------------------------------------------- */

static void host_tag(int i, fq_u32 tag)
{
	struct frame *f = &W.fr[i];

	f->tag = tag;
	if (tag == RECN_HOST_NONE)
		return;
	/* it counts in its detection queue or a SAQ of its VC (recn_host_arrive()) */
	FUZZ_CHECK(f->vc < RECN_HOST_VCS && tag < NQ);
	count_in(&W.ms[ID_HOST(f->vc)], tag, f->bytes);
}

static void host_untag(int i, fq_u32 vc)
{
	struct frame *f = &W.fr[i];

	if (f->tag == RECN_HOST_NONE)
		return;
	recn_host_depart(&W.h, vc, f->tag, f->bytes, op_now());
	count_out(&W.ms[ID_HOST(vc)], f->tag, f->bytes);
	f->tag = RECN_HOST_NONE;
}

/*
 * Count frame @i again where its route, SL and VC go now, as
 * fabric_link_recn_retag() does: off its old VC's count if the VC
 * changed, counted afresh if it was not, else moved (recn_host_retag()).
 */
static void host_retag(int i, fq_u32 old_vc)
{
	struct frame *f = &W.fr[i];
	fq_u64 now = op_now();
	fq_u32 was;

	if (f->tag != RECN_HOST_NONE && f->vc != old_vc)
		host_untag(i, old_vc);
	if (f->vc >= RECN_HOST_VCS)
		return;
	if (f->tag == RECN_HOST_NONE) {
		host_tag(i, recn_host_arrive(&W.h, f->vc, f->route, f->sl, f->bytes, now));
		return;
	}
	was = f->tag;
	count_out(&W.ms[ID_HOST(f->vc)], was, f->bytes);
	f->tag = RECN_HOST_NONE;
	host_tag(i, recn_host_retag(&W.h, f->vc, was, f->route, f->sl, f->bytes, now));
}

static fq_u32 gen_route(struct fuzz_in *in)
{
	fq_u8 b = fuzz_u8(in);
	fq_u32 r = 0, i, n;

	if (b >= 0xf8)
		return fuzz_u32(in);	/* whatever a header says */
	n = b % 6;			/* 0: no route, forwarded by MAC */
	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		r |= (1u + fuzz_u8(in) % 6) << (6 * i);
	return FHC_ROUTE_ON | r;
}

static struct hflow *host_flow(struct fuzz_in *in)
{
	return &W.hf[fuzz_u8(in) % HOST_FLOWS];
}

/* now and then a VC RECN does not run on (ttd's VC numbering, say) */
static fq_u8 gen_vc(fq_u8 b)
{
	return b % 8 ? b & 1 : 2;
}

static void flow_dest(struct fuzz_in *in, struct hflow *hf)
{
	fq_u8 b = fuzz_u8(in);

	hf->route = gen_route(in);
	hf->sl = (b & 3) | (b >> 7) << 2;
	hf->vc = gen_vc(b >> 2);
	hf->mac_out = (b >> 5) % OUTS;
}

static void op_host_enqueue(struct fuzz_in *in)
{
	struct hflow *hf = host_flow(in);
	fq_u32 bytes = 1 + 16u * fuzz_u8(in);
	int i;

	/* a new flow's destination; the frames of a flow share it */
	if (hf->head == NONE)
		flow_dest(in, hf);
	i = frame_new();
	if (i == NONE)
		return;		/* the qdisc's limit */
	W.fr[i].route = hf->route;
	W.fr[i].sl = hf->sl;
	W.fr[i].vc = hf->vc;
	W.fr[i].out = hf->mac_out;
	W.fr[i].bytes = bytes;
	W.fr[i].tag = RECN_HOST_NONE;
	list_push(&hf->head, &hf->tail, i);
	host_tag(i, recn_host_arrive(&W.h, hf->vc, hf->route, hf->sl, bytes, op_now()));
	if (hf->vc >= RECN_HOST_VCS)
		FUZZ_CHECK(W.fr[i].tag == RECN_HOST_NONE);	/* no set counts it */
}

/* ---- the switch ----------------------------------------------------------- */

static struct order_flow *order_get(struct mset *ms, fq_u64 key, int8_t *slot)
{
	int i, free = NONE;

	for (i = 0; i < ORDER_FLOWS; i++) {
		struct order_flow *o = &ms->of[i];

		if (o->next != o->want && o->key == key) {
			*slot = (int8_t)i;
			return o;
		}
		if (o->next == o->want && free == NONE)
			free = i;
	}
	*slot = (int8_t)free;
	if (free == NONE)
		return NULL;	/* too many at once: not followed */
	ms->of[free].key = key;
	return &ms->of[free];
}

/*
 * Frame @i joins switch set @ms from upstream port @from, its route as
 * the set reads it: its SAQ, else its detection queue (vcsw_rq_link()).
 */
static void sw_arrive(struct mset *ms, int i, fq_u32 from)
{
	struct frame *f = &W.fr[i];
	fq_u32 route = f->route & FHC_ROUTE_ON ? f->route : 0, q;
	struct order_flow *o;
	int saq = recn_classify(ms->s, route, f->sl);

	if (saq >= 0)
		q = RECN_Q_SAQ((fq_u32)saq);
	else if (ms->kind == SET_IN)
		q = f->out + 1u;
	else
		q = route ? recn_detq_of(route) : 0;
	/* the SAQ a frame goes to is in use and passes its route with its SL */
	if (saq >= 0)
		FUZZ_CHECK(ms->s->saq[saq].used && (fq_u32)saq < ms->s->cfg.nsaq &&
			   recn_point_covers(&ms->s->saq[saq].pt, route, f->sl));
	f->set = (int8_t)(ms - W.ms);
	f->q = (fq_u8)q;
	list_push(&ms->head[q], &ms->tail[q], i);
	count_in(ms, q, f->bytes);
	o = order_get(ms, (fq_u64)route << 16 | (fq_u64)f->sl << 8 | (route ? 0 : f->out),
		      &f->of);
	if (o)
		f->seq = o->next++;
	if (from < RECN_UPSTREAM_MAX)
		ms->senders |= 1ULL << from;
	recn_arrive(ms->s, q, route, f->sl, f->bytes, from, op_now(), sw_send, ms);
}

/* The head of queue @q leaves switch set @ms: which frame it was. */
static int sw_depart(struct mset *ms, fq_u32 q)
{
	int i = list_pop(&ms->head[q], &ms->tail[q]);
	struct frame *f = &W.fr[i];

	if (f->of != NONE) {
		struct order_flow *o = &ms->of[f->of];

		/*
		 * The frames of one route and SL leave a set in the order they
		 * came (recn_core.h: a new SAQ waits for its point's frames
		 * queued before it, "so a flow's frames stay in order")
		 */
		FUZZ_CHECK(f->seq == o->want);
		o->want++;
		f->of = NONE;
	}
	ms->last = (fq_s32)q;
	count_out(ms, q, f->bytes);
	recn_depart(ms->s, q, f->bytes, op_now(), sw_send, ms);
	return i;
}

/* recn_next_among() written plainly: one look at each queue after @last. */
static FUZZ_HARNESS int next_plain(const struct recn_set *s, fq_s32 last, fq_u64 detmask,
				   fq_u32 saqmask, recn_ok_fn ok, void *ctx)
{
	fq_u32 n = RECN_DETQS + s->cfg.nsaq, k, q;

	for (k = 1; k <= n; k++) {
		q = (fq_u32)(((fq_s64)last + k + n) % n);
		if (q < RECN_DETQS ? !(s->busy >> q & 1 && detmask >> q & 1) :
				     !(saqmask >> (q - RECN_DETQS) & 1 &&
				       recn_saq_ready(s, q - RECN_DETQS)))
			continue;
		if (!ok || ok(ctx, q))
			return (int)q;
	}
	return -1;
}

struct head_for {
	const struct mset *ms;
	fq_u32 out;
};

/* vcsw_rq_head_for(): does the head of @q cross to the output asked for? */
static bool head_for(void *ctx, fq_u32 q)
{
	const struct head_for *h = ctx;

	return h->ms->head[q] != NONE && W.fr[h->ms->head[q]].out == h->out;
}

/*
 * The queue a switch set serves next (vcsw_rq_pick()): for @out below
 * OUTS, at an input, among the queues that can hold its frames.
 */
static int sw_pick(struct mset *ms, fq_u32 out)
{
	struct head_for h = { ms, out };
	fq_u64 detmask = ~0ULL;
	fq_u32 saqmask = ~0u, left;
	int q;

	if (out < OUTS) {
		fq_u32 d = out + 1;

		detmask = 1ULL << d;
		saqmask = 0;
		for (left = ms->s->saq_used; left; left &= left - 1) {
			fq_u32 i = (fq_u32)__builtin_ctz(left);

			if ((ms->s->saq[i].pt.turns & 63) == d)
				saqmask |= 1u << i;
		}
	}
	q = recn_next_among(ms->s, ms->last, detmask, saqmask, out < OUTS ? head_for : NULL, &h);
	/*
	 * Round robin (recn_next()): the first queue after the last served,
	 * cyclically, that has frames and may go: a detection queue, or a
	 * SAQ not stopped and waiting for nothing
	 */
	FUZZ_CHECK(q == next_plain(ms->s, ms->last, detmask, saqmask,
				   out < OUTS ? head_for : NULL, &h));
	if (q >= 0)
		FUZZ_CHECK(ms->head[q] != NONE);	/* busy means frames */
	return q;
}

/* The switch's input serves one frame (to @out, or any): on to its output. */
static bool serve_in(fq_u32 vc, fq_u32 out)
{
	struct mset *ms = &W.ms[ID_IN(vc)];
	int q = sw_pick(ms, out), i;

	if (q < 0)
		return false;
	i = sw_depart(ms, (fq_u32)q);
	/* the route as the output reads it: the next switch's digit first */
	if (W.fr[i].route & FHC_ROUTE_ON)
		W.fr[i].route = fhc_route_next(W.fr[i].route);
	sw_arrive(&W.ms[ID_OUT(W.fr[i].out, vc)], i, IN_PORT);
	return true;
}

static bool serve_out(fq_u32 o, fq_u32 vc)
{
	struct mset *ms = &W.ms[ID_OUT(o, vc)];
	int q = sw_pick(ms, 0xffff);

	if (q < 0)
		return false;
	frame_free(sw_depart(ms, (fq_u32)q));	/* on the wire */
	return true;
}

/*
 * The host sends the head of flow @hf if it may go (or drops it): it
 * leaves the host's count and reaches the switch's input if the switch
 * takes it there (vcsw_rx.c: a route to one of its ports but the one it
 * came in at, or none).
 */
static bool host_send(struct hflow *hf, bool drop)
{
	int i = hf->head;
	struct frame *f;
	int port;

	if (i == NONE)
		return false;
	f = &W.fr[i];
	if (!drop && !recn_host_may_go(&W.h, f->vc, f->tag))
		return false;
	list_pop(&hf->head, &hf->tail);
	host_untag(i, f->vc);
	port = fhc_route_port(f->route);
	if (drop || f->vc >= RECN_HOST_VCS || (f->route && (port < 0 || port >= OUTS))) {
		frame_free(i);
		return true;
	}
	if (f->route)
		f->out = (fq_u8)port;
	sw_arrive(&W.ms[ID_IN(f->vc)], i, W.tell_up ? 0 : RECN_NO_UPSTREAM);
	return true;
}

/* ---- made-up messages ----------------------------------------------------- */

static struct recn_point gen_point(struct fuzz_in *in)
{
	struct recn_point pt = { 0 };
	fq_u8 b = fuzz_u8(in);
	fq_u32 i;

	if (b >= 0xf0) {
		/* anything at all */
		pt.turns = fuzz_u64(in);
		pt.len = fuzz_u8(in);
		pt.sl = fuzz_u8(in);
		return pt;
	}
	/* digits the routes use; a 0 amid them makes a point no route passes */
	pt.len = (fq_u8)(1 + b % 6);
	pt.sl = (b / 6) & 7;
	for (i = 0; i < pt.len; i++)
		pt.turns |= (fq_u64)(fuzz_u8(in) % 7) << (6 * i);
	return pt;
}

static fq_u8 gen_kind(struct fuzz_in *in)
{
	fq_u8 b = fuzz_u8(in);

	return b < 0xf0 ? (fq_u8)(RECN_MSG_NOTIFY + b % 5) : b;
}

/* A FABRIC_CTRL_RECN frame from the switch, made up: taken whole or refused. */
static void op_forge_host(struct fuzz_in *in)
{
	struct recn_wire_msg msg[FABRIC_CTRL_RECN_MAX], got[FABRIC_CTRL_RECN_MAX];
	fq_u8 buf[FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX) + 8];
	fq_u32 n = 1 + fuzz_u8(in) % FABRIC_CTRL_RECN_MAX, i, len, cnt = 0;
	fq_u8 flip;

	for (i = 0; i < n; i++) {
		fq_u8 v = fuzz_u8(in);

		msg[i].m.kind = gen_kind(in);
		msg[i].vc = v < 0xf0 ? v & 1 : v;
		msg[i].m.pt = gen_point(in);
	}
	len = recn_wire_build(buf, msg, n);
	/* and now and then a byte changed, or the length */
	flip = fuzz_u8(in);
	if (flip >= 0xe0) {
		fq_u8 at = fuzz_u8(in);

		buf[at % len] ^= fuzz_u8(in);
		len = recn_wire_len(buf, len + (flip & 7));
	}
	if (recn_wire_parse(buf, len, got, &cnt) != RECN_WIRE_OK)
		return;
	host_receive(got, cnt);
}

/*
 * A message for one of the switch's sets, made up: from the next switch
 * (NOTIFY, XOFF, XON for an output), from the host (RELEASE, FULL for the
 * input), or from a port inside; any kind, any point, any sender.
 */
static void op_forge_switch(struct fuzz_in *in)
{
	fq_u8 b = fuzz_u8(in), f = fuzz_u8(in);
	struct mset *ms = &W.ms[2 + b % (NSETS - 2)];
	struct recn_msg m;
	fq_u32 from;

	m.kind = gen_kind(in);
	m.pt = gen_point(in);
	from = f < 0xf0 ? f % 8u : (f & 1 ? RECN_NO_UPSTREAM : f & 0x7fu);
	recn_receive(ms->s, &m, from, op_now(), sw_send, ms);
	touch(ms);
}

/* ---- time ----------------------------------------------------------------- */

/* vcsw_recn_timer(): every set of the switch */
static void tick_switch(void)
{
	int id;

	for (id = 2; id < NSETS; id++) {
		recn_tick(W.ms[id].s, op_now(), sw_send, &W.ms[id]);
		touch(&W.ms[id]);
	}
}

static void tick_host(void)
{
	bool woke, busy, any = false;
	fq_u32 vc, left;

	busy = recn_host_tick(&W.h, op_now(), &woke);
	touch(&W.ms[0]);
	touch(&W.ms[1]);
	/* the tick goes on while a SAQ is in use, and only then */
	FUZZ_CHECK(busy == (recn_host_saqs(&W.h) != 0));
	/* @woke: a SAQ with frames may go */
	for (vc = 0; vc < RECN_HOST_VCS; vc++)
		for (left = recn_host_ready(&W.h, vc); left; left &= left - 1)
			any |= W.h.set[vc].saq[__builtin_ctz(left)].frames != 0;
	FUZZ_CHECK(woke == any);
	host_flush();
}

static void op_time(struct fuzz_in *in)
{
	fq_u8 b = fuzz_u8(in);
	fq_u64 dt;

	switch (b & 3) {
	case 0:
		dt = fuzz_u8(in);
		break;
	case 1:
		dt = 16u * fuzz_u16(in);
		break;
	case 2:
		dt = (1 + fuzz_u8(in) % 8) * W.cfg.refresh_ns;
		break;
	default:
		dt = (1 + fuzz_u8(in) % 8) * recn_host_period(W.hcfg.lease_ns);
		break;
	}
	W.now += dt;
	/* a clock read on another CPU a little before the caller's lock */
	W.skew = b & 4 ? fuzz_u8(in) * 8u : 0;
}

/* ---- configuration -------------------------------------------------------- */

static bool gen_cfg(struct fuzz_in *in)
{
	fq_u8 b = fuzz_u8(in);
	struct recn_cfg *c = &W.cfg;

	if (b & 1) {
		recn_cfg_default(c, 64 + 8u * fuzz_u8(in));
		c->nsaq = 1 + (b >> 1) % RECN_SAQ_MAX;
	} else {
		/* what the switch's netlink attributes can say (u32 each) */
		c->nsaq = (b >> 1) % (RECN_SAQ_MAX + 2);
		c->detect = fuzz_u16(in);
		c->xoff = fuzz_u16(in);
		c->xon = fuzz_u16(in);
		c->refresh_ns = 1000 + 16u * fuzz_u16(in);
		c->lease_ns = 1000 + 64u * fuzz_u16(in);
		c->idle_ns = 1000 + 256u * fuzz_u16(in);
	}
	return recn_cfg_check(c) == RECN_CFG_OK;
}

static bool gen_host_cfg(struct fuzz_in *in, struct recn_host_cfg *c)
{
	fq_u8 b = fuzz_u8(in);

	if (b & 1) {
		recn_host_cfg_default(c);
		c->nsaq = 1 + (b >> 1) % RECN_SAQ_MAX;
	} else {
		c->nsaq = (b >> 1) % (RECN_SAQ_MAX + 2);
		c->lease_ns = 3000 + 64u * fuzz_u16(in);
		c->idle_ns = 256u * fuzz_u16(in);
	}
	return recn_host_cfg_check(c) == RECN_HOST_CFG_OK;
}

static void mset_init(struct mset *ms, struct recn_set *s, fq_u8 kind, fq_u8 vc, fq_u8 out)
{
	fq_u32 q;

	*ms = (struct mset){ .s = s, .kind = kind, .vc = vc, .out = out, .last = -1 };
	for (q = 0; q < NQ; q++)
		ms->head[q] = ms->tail[q] = NONE;
}

/*
 * New settings for the host (fabric_link_recn_set(), by edf_recn_commit()):
 * the qdisc takes every frame out of the count first, the sets start anew
 * with the counters kept and what was staged still to go, and the qdisc
 * counts its frames in again.
 */
static bool op_host_cfg(struct fuzz_in *in)
{
	struct recn_wire_msg out[RECN_HOST_OUT_MAX];
	struct recn_stats st[RECN_HOST_VCS];
	struct recn_host_cfg c;
	fq_u32 n, vc;
	int i;

	if (!gen_host_cfg(in, &c))
		return false;
	if (recn_host_cfg_eq(&c, &W.hcfg))
		return true;
	for (i = 0; i < FRAMES_MAX; i++)
		if (W.fr[i].used && W.fr[i].set == NONE)
			host_untag(i, W.fr[i].vc);
	for (vc = 0; vc < RECN_HOST_VCS; vc++)
		st[vc] = W.h.set[vc].st;
	n = recn_host_take_out(&W.h, out);
	W.hcfg = c;
	recn_host_init(&W.h, &c);
	for (vc = 0; vc < RECN_HOST_VCS; vc++) {
		W.h.set[vc].st = st[vc];
		W.ms[vc].base_alloc = st[vc].saq_alloc;
		W.ms[vc].base_free = st[vc].saq_free;
		touch(&W.ms[vc]);
	}
	memcpy(W.h.out, out, n * sizeof(out[0]));
	W.h.nout = n;
	W.recount = true;
	return true;
}

/* edf_recn_recount(): every queued frame of the host counted where it goes now. */
static void host_recount(void)
{
	int i;

	for (i = 0; i < FRAMES_MAX; i++)
		if (W.fr[i].used && W.fr[i].set == NONE)
			host_retag(i, W.fr[i].vc);
	W.recount = false;
	W.gen = W.h.gen;
}

/*
 * A flow's destination changes (a route learned anew, ttd turned on or
 * off: another VC), or only its frames are counted again.
 */
static void op_host_retag(struct fuzz_in *in)
{
	struct hflow *hf = host_flow(in);
	fq_u8 b = fuzz_u8(in);
	fq_u8 old_vc = hf->vc;
	int i;

	if (b & 1) {
		host_recount();
		return;
	}
	if (b & 2) {
		hf->route = gen_route(in);
		hf->vc = gen_vc(b >> 2);
	}
	for (i = hf->head; i != NONE; i = W.fr[i].next) {
		W.fr[i].route = hf->route;
		W.fr[i].vc = hf->vc;
		host_retag(i, old_vc);
	}
}

/* ---- the checks ----------------------------------------------------------- */

static FUZZ_HARNESS void check_set(const struct mset *ms)
{
	const struct recn_set *s = ms->s;
	fq_u32 i, j, used = 0, roots = 0, linked = 0;
	fq_u64 busy = 0;

	for (i = 0; i < RECN_DETQS; i++) {
		busy |= (fq_u64)(ms->frames[i] != 0) << i;
		linked += (fq_u32)__builtin_popcount(s->detq[i].roots);
	}
	/* @busy: the detection queues with frames */
	FUZZ_CHECK(s->busy == busy);
	for (; busy; busy &= busy - 1) {
		i = (fq_u32)__builtin_ctzll(busy);
		/* a set counts what its caller put in and took out, no more */
		FUZZ_CHECK(s->detq[i].frames == ms->frames[i]);
		FUZZ_CHECK(s->detq[i].bytes == ms->bytes[i]);
	}
	/* @roots of a detection queue: bit i, root[i] is of this queue */
	for (i = 0; i < RECN_ROOT_MAX; i++) {
		if (!s->root[i].used)
			continue;
		roots++;
		FUZZ_CHECK(s->detq[s->root[i].detq].roots >> i & 1);
	}
	FUZZ_CHECK(linked == roots);
	for (i = 0; i < RECN_SAQ_MAX; i++) {
		const struct recn_saq *a = &s->saq[i];
		fq_u32 q = RECN_Q_SAQ(i);

		/* @saq_used: bit i, saq[i] is in use */
		FUZZ_CHECK((s->saq_used >> i & 1) == a->used);
		if (!a->used) {
			/*
			 * A SAQ is freed only when no frame counts in it: a frame
			 * left in a freed one would never be served
			 */
			FUZZ_CHECK(ms->frames[q] == 0);
			continue;
		}
		used++;
		/* a set has the SAQs it was configured with, no more */
		FUZZ_CHECK(i < s->cfg.nsaq);
		FUZZ_CHECK(a->frames == ms->frames[q] && a->bytes == ms->bytes[q]);
		/*
		 * Under Xoff it holds more than xon bytes: the departure that
		 * brings it to xon lets the told ports go, and a SAQ that
		 * takes over a root's Xoff starts empty and lets them go at
		 * once (recn_saq_alloc()); else nothing would ever say Xon to
		 * ports that, stopped, send it nothing
		 */
		FUZZ_CHECK(!a->t.xoff || a->bytes > s->cfg.xon);
		/* it was made by a notification, and those name valid points only */
		FUZZ_CHECK(recn_point_valid(&a->pt));
		/* one line a point: a repeated notification finds it */
		for (j = i + 1; j < RECN_SAQ_MAX; j++)
			if (s->saq[j].used)
				FUZZ_CHECK(!recn_point_eq(&a->pt, &s->saq[j].pt));
		/*
		 * It waits for the queue its point's frames went to before it:
		 * the detection queue of its first digit, or a shorter SAQ of
		 * its point still in use (a freed one ends the waits on it);
		 * a wait on anything else could never end
		 */
		if (a->wait_q >= 0 && RECN_Q_IS_SAQ(a->wait_q)) {
			const struct recn_saq *w;

			FUZZ_CHECK(a->wait_q < (fq_s32)NQ);
			w = &s->saq[a->wait_q - RECN_DETQS];
			FUZZ_CHECK(w->used && recn_point_prefix(&w->pt, &a->pt));
		} else if (a->wait_q >= 0) {
			FUZZ_CHECK((fq_u64)a->wait_q == (a->pt.turns & 63));
		} else {
			FUZZ_CHECK(a->wait_q == -1);
		}
	}
	FUZZ_CHECK(used == recn_saqs_used(s) && used <= s->cfg.nsaq);
	/* every SAQ made is counted, and every one freed */
	FUZZ_CHECK(s->st.saq_alloc - ms->base_alloc - (s->st.saq_free - ms->base_free) == used);
}

static FUZZ_HARNESS void check_dirty(void)
{
	fq_u32 d = W.dirty;

	for (; d; d &= d - 1)
		check_set(&W.ms[__builtin_ctz(d)]);
	W.dirty = 0;
}

/* ---- the end: the made-up input stops ------------------------------------- */

/* Everything that may move does, and every message is carried. */
static bool serve_all(void)
{
	bool moved = false, again = true;
	fq_u32 vc, o, k;
	int rounds = 0;

	while (again) {
		again = false;
		/* the tick armed at once for what the host staged */
		if (W.h.nout)
			tick_host();
		/* the qdisc counts its frames again once SAQs were made */
		if (W.recount || W.h.gen != W.gen)
			host_recount();
		for (k = 0; k < HOST_FLOWS; k++)
			while (host_send(&W.hf[k], false))
				again = true;
		for (vc = 0; vc < 2; vc++)
			while (W.ms[ID_IN(vc)].total && serve_in(vc, 0xffff)) {
				box_deliver();
				again = true;
			}
		for (o = 0; o < OUTS; o++)
			for (vc = 0; vc < 2; vc++)
				while (W.ms[ID_OUT(o, vc)].total && serve_out(o, vc)) {
					box_deliver();
					again = true;
				}
		box_deliver();
		/* the links lose nothing now */
		while (W.to_host.count || W.to_switch.count) {
			deliver_to_host(FABRIC_CTRL_RECN_MAX);
			while (W.to_switch.count) {
				struct note n = fifo_pop(&W.to_switch);

				switch_receive(&n);
				box_deliver();
			}
			FUZZ_CHECK(++rounds < 100000);	/* no message makes another forever */
		}
		moved |= again;
		check_dirty();
	}
	return moved;
}

static void drain(void)
{
	fq_u64 idle = W.cfg.idle_ns > W.hcfg.idle_ns ? W.cfg.idle_ns : W.hcfg.idle_ns;
	fq_u64 lease = W.cfg.lease_ns > W.hcfg.lease_ns ? W.cfg.lease_ns : W.hcfg.lease_ns;
	/*
	 * The longest anything may hold a frame once nothing is made up: an
	 * Xoff not repeated ends with its lease, and a line that repeats one
	 * is freed once it has been empty for idle_ns
	 */
	fq_u64 step = idle + lease + 1;
	int stuck = 0, r, id;

	W.skew = 0;
	box_deliver();
	for (;;) {
		if (serve_all())
			continue;
		if (!W.nframes)
			break;
		/*
		 * Liveness: a stopped SAQ goes again when its lease ends, a
		 * waiting one when the frames ahead of it have left, and those
		 * are served; so every frame leaves within a few such steps
		 */
		FUZZ_CHECK(++stuck <= DRAIN_ROUNDS);
		W.now += step;
		tick_switch();
		tick_host();
		box_deliver();
		check_dirty();
	}
	for (id = 0; id < NSETS; id++) {
		for (r = 0; r < RECN_ROOT_MAX; r++)
			if (W.ms[id].s->root[r].used)
				break;
		if (W.ms[id].s->saq_used || r < RECN_ROOT_MAX)
			break;
	}
	if (id == NSETS)
		return;		/* no line to free */
	/* nothing queued: every line is freed once idle (recn_tick()) */
	for (r = 0; r < 3; r++) {
		W.now += step;
		tick_switch();
		tick_host();
		box_deliver();
		serve_all();
	}
	check_dirty();
	for (id = 0; id < NSETS; id++) {
		const struct recn_set *s = W.ms[id].s;

		/* a SAQ or root whose RELEASE never comes is freed after idle_ns */
		FUZZ_CHECK(s->saq_used == 0 && recn_saqs_used(s) == 0);
		for (r = 0; r < RECN_ROOT_MAX; r++)
			FUZZ_CHECK(!s->root[r].used);
	}
}

/* ---- the operations ------------------------------------------------------- */

/* A frame from another input (not kept) at an output, its route as read there. */
static void op_other_input(struct fuzz_in *in)
{
	fq_u8 p = fuzz_u8(in), c = fuzz_u8(in);
	struct mset *ms = &W.ms[ID_OUT((p >> 1) % OUTS, p & 1)];
	fq_u32 from = (c >> 2) % 8;
	int i = frame_new();

	if (i == NONE)
		return;
	/* as an input passes it on: fhc_route_next() leaves no reserved bit */
	W.fr[i].route = gen_route(in);
	if (W.fr[i].route & FHC_ROUTE_ON)
		W.fr[i].route &= FHC_ROUTE_ON | FHC_ROUTE_DIGITS;
	else
		W.fr[i].route = 0;
	W.fr[i].sl = (c & 3) | (c >> 7) << 2;
	W.fr[i].vc = ms->vc;
	W.fr[i].out = ms->out;
	W.fr[i].bytes = 1 + 16u * fuzz_u8(in);
	sw_arrive(ms, i, from == IN_PORT ? 7 : from);
}

static void op_link(struct fuzz_in *in)
{
	fq_u8 b = fuzz_u8(in);
	struct note n;

	if (b & 1) {
		/* the link loses a message */
		if (b & 2 && W.to_host.count)
			fifo_pop(&W.to_host);
		else if (W.to_switch.count)
			fifo_pop(&W.to_switch);
	} else if (b & 2) {
		deliver_to_host(1 + (b >> 2) % FABRIC_CTRL_RECN_MAX);
	} else if (W.to_switch.count) {
		n = fifo_pop(&W.to_switch);
		switch_receive(&n);
	}
}

/* false: the input ends (a configuration refused) */
static bool run_op(struct fuzz_in *in)
{
	fq_u8 op = fuzz_u8(in), b;

	switch (op % 16) {
	case 0:
	case 1:
		op_host_enqueue(in);
		break;
	case 2:
	case 3:
		host_send(host_flow(in), false);
		break;
	case 4:
		host_send(host_flow(in), true);	/* dropped at the head (or purged) */
		break;
	case 5:
		op_host_retag(in);
		break;
	case 6:
	case 7:
		b = fuzz_u8(in);
		serve_in(b & 1, (b >> 1) % (OUTS + 1) == OUTS ? 0xffff : (b >> 1) % (OUTS + 1));
		break;
	case 8:
		b = fuzz_u8(in);
		serve_out((b >> 1) % OUTS, b & 1);
		break;
	case 9:
		op_other_input(in);
		break;
	case 10:
		op_link(in);
		break;
	case 11:
		if (fuzz_u8(in) & 1)
			op_forge_host(in);
		else
			op_forge_switch(in);
		break;
	case 12:
		op_time(in);
		break;
	case 13:
		if (fuzz_u8(in) & 1)
			tick_switch();
		else
			tick_host();
		break;
	case 14:
		b = fuzz_u8(in);
		if (b < 0x10) {
			/* IFLA_VCSW_PORT_RECN: the port stops or starts hearing the host */
			W.tell_up = !W.tell_up;
		} else if (b < 0x18 && !op_host_cfg(in)) {
			return false;
		}
		break;
	default:
		if (W.recount || W.h.gen != W.gen)
			host_recount();
		break;
	}
	box_deliver();
	check_dirty();
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	int id, ops = 0;

	/* the sets and their books are made anew below: the rest is zeroed */
	memset(&W.cfg, 0, sizeof(W) - offsetof(struct world, cfg));
	if (!gen_cfg(&in) || !gen_host_cfg(&in, &W.hcfg))
		return 0;	/* refused, as the netlink request would be */
	recn_host_init(&W.h, &W.hcfg);
	for (id = 0; id < NSETS; id++) {
		if (id < ID_IN(0)) {
			mset_init(&W.ms[id], &W.h.set[id], SET_HOST, (fq_u8)id, 0);
			continue;
		}
		recn_init(&W.sw[id - 2], &W.cfg);
		if (id >= ID_OUT(0, 0))
			recn_set_output_side(&W.sw[id - 2]);
		mset_init(&W.ms[id], &W.sw[id - 2], id < ID_OUT(0, 0) ? SET_IN : SET_OUT,
			  (fq_u8)(id & 1), id < ID_OUT(0, 0) ? 0 : (fq_u8)((id - ID_OUT(0, 0)) / 2));
	}
	for (id = 0; id < HOST_FLOWS; id++)
		W.hf[id].head = W.hf[id].tail = NONE;
	W.now = fuzz_u64(&in);
	W.tell_up = !(fuzz_u8(&in) & 0x80);
	while (fuzz_more(&in) && ops++ < OPS_MAX)
		if (!run_op(&in))
			return 0;
	drain();
	return 0;
}
