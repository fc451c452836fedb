/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RECN at a host (Documentation/recn.rst, "Hosts"): the network
 * interface's part of the paper's RECN (two-vcs-with-recn-congestion-
 * management, Section 4), for a host's egress on a credit link to a
 * vcsw port that runs RECN.  Plain C shared by fabric_link.c (which
 * keeps one per link, under the link's lock), the unit tests and qsim.
 *
 * The host keeps a RECN set (recn_core.h) for each of the VCs RECN runs
 * on, 0 and 1.  It is the first place a frame waits, so it has nobody
 * upstream to warn: it detects no congestion itself.  What it does is
 * what the switch's input behind the link asks of it:
 *  - a NOTIFY gives the point a SAQ (or the host answers FULL), and from
 *    then on the host's frames that pass the point count in that SAQ;
 *  - XOFF stops the SAQ (a lease, repeated by the switch while it holds)
 *    and XON lets it go: the qdisc holds back every frame counted in a
 *    stopped SAQ while the others go on;
 *  - a SAQ that empties is freed, and the host tells the switch (RELEASE).
 *
 * The frames stay where the qdisc keeps them (edf: in its flows, by
 * deadline): the host counts each frame in the queue it belongs to (its
 * detection queue by the route's first digit, or a SAQ) at enqueue and
 * out again when it leaves, and the qdisc asks which SAQs may go now.  A
 * SAQ is freed only when no frame is counted in it.
 *
 * Unlike a switch's buffer, a host's queue may hold far more than a
 * buffer's worth of frames of a congested point when the SAQ is made (a
 * sender's backlog in the qdisc).  Left where they were counted, they
 * would go on filling the switch's buffer until they had all gone.  So a
 * new SAQ takes them: it bumps @gen, and the qdisc counts its queued
 * frames again (recn_host_retag()).  That reorders nothing, because the
 * qdisc keeps each flow's frames in order itself; for the same reason a
 * host's SAQ never waits for frames of its point that came before it
 * (recn_saq_waiting() is for FIFO buffers).
 *
 * The messages the host sends are staged here; the caller builds them
 * into a FABRIC_CTRL_RECN frame (recn_wire_build()) after its lock.
 */
#ifndef FQ_RECN_HOST_H
#define FQ_RECN_HOST_H

#include "core_types.h"
#include "recn_core.h"
#include "recn_wire.h"

#define RECN_HOST_VCS		2	/* RECN's VCs: the wire's 0 and 1 */
#define RECN_HOST_NONE		0xffu	/* a frame no set counts */
#define RECN_HOST_OUT_MAX	FABRIC_CTRL_RECN_MAX	/* staged messages */

/* What a host is told to keep (edf's recn options). */
struct recn_host_cfg {
	fq_u32 nsaq;		/* SAQs per VC, 1 to RECN_SAQ_MAX */
	fq_u64 lease_ns;	/* an Xoff not repeated ends after this */
	fq_u64 idle_ns;		/* a SAQ left empty this long is freed */
};

struct recn_host {
	struct recn_set set[RECN_HOST_VCS];
	struct recn_wire_msg out[RECN_HOST_OUT_MAX];
	fq_u32 nout;
	fq_u64 out_dropped;	/* staged while the stage was full */
	fq_u32 gen;		/* bumped by every SAQ made */
};

/* Why recn_host_cfg_check() refused a configuration. */
enum recn_host_cfg_err {
	RECN_HOST_CFG_OK,
	RECN_HOST_CFG_NSAQ,	/* not 1 to RECN_SAQ_MAX */
	RECN_HOST_CFG_LEASE,	/* under 4 us: the tick could not keep it */
	RECN_HOST_CFG_IDLE,	/* shorter than the tick */
};

/* The host's tick runs four times a lease: a lease ends at most 25 % late. */
static inline fq_u64 recn_host_period(fq_u64 lease_ns)
{
	return lease_ns / 4;
}

static inline enum recn_host_cfg_err recn_host_cfg_check(const struct recn_host_cfg *c)
{
	if (c->nsaq < 1 || c->nsaq > RECN_SAQ_MAX)
		return RECN_HOST_CFG_NSAQ;
	if (c->lease_ns < 4000)
		return RECN_HOST_CFG_LEASE;
	if (c->idle_ns < recn_host_period(c->lease_ns))
		return RECN_HOST_CFG_IDLE;
	return RECN_HOST_CFG_OK;
}

static inline bool recn_host_cfg_eq(const struct recn_host_cfg *a, const struct recn_host_cfg *b)
{
	return a->nsaq == b->nsaq && a->lease_ns == b->lease_ns && a->idle_ns == b->idle_ns;
}

/* The set's configuration for a host: it detects nothing, stops nobody. */
static inline void recn_host_set_cfg(struct recn_cfg *s, const struct recn_host_cfg *c)
{
	s->nsaq = c->nsaq;
	s->detect = 0xffffffffu;
	s->xoff = 0xffffffffu;
	s->xon = 0xfffffffeu;
	s->lease_ns = c->lease_ns;
	s->refresh_ns = recn_host_period(c->lease_ns);
	s->idle_ns = c->idle_ns;
}

/* The defaults: eight SAQs a VC, a 200 us lease, freed after 1 ms empty. */
static inline void recn_host_cfg_default(struct recn_host_cfg *c)
{
	c->nsaq = RECN_SAQ_DEFAULT;
	c->lease_ns = 200000;
	c->idle_ns = 1000000;
}

static inline void recn_host_init(struct recn_host *h, const struct recn_host_cfg *c)
{
	struct recn_cfg cfg;
	fq_u32 vc;

	recn_host_set_cfg(&cfg, c);
	h->nout = 0;
	h->out_dropped = 0;
	h->gen = 0;
	for (vc = 0; vc < RECN_HOST_VCS; vc++) {
		recn_init(&h->set[vc], &cfg);
		h->set[vc].source = true;
	}
}

struct recn_host_ctx {
	struct recn_host *h;
	fq_u8 vc;
};

/* recn_send_fn: everything a host says goes downstream, to the switch. */
static inline void recn_host_post(void *ctx, fq_u32 to, const struct recn_msg *m)
{
	struct recn_host_ctx *k = (struct recn_host_ctx *)ctx;
	struct recn_host *h = k->h;

	(void)to;
	if (h->nout == RECN_HOST_OUT_MAX) {
		h->out_dropped++;
		return;
	}
	h->out[h->nout].m = *m;
	h->out[h->nout].vc = k->vc;
	h->nout++;
}

/*
 * A frame of @bytes on wire VC @vc with @route (0: none) and @sl is
 * queued: the queue it counts in (RECN_Q_SAQ(i) or its detection queue),
 * RECN_HOST_NONE for one on a VC RECN does not run on.  Hand the same
 * value to recn_host_depart() when it leaves.
 */
static inline fq_u32 recn_host_arrive(struct recn_host *h, fq_u32 vc, fq_u32 route, fq_u8 sl,
				      fq_u32 bytes, fq_u64 now)
{
	struct recn_host_ctx k = { h, (fq_u8)vc };
	struct recn_set *s;
	fq_u32 q;
	int i;

	if (vc >= RECN_HOST_VCS)
		return RECN_HOST_NONE;
	s = &h->set[vc];
	i = recn_classify(s, route, sl);
	q = i < 0 ? recn_detq_of(route) : (fq_u32)RECN_Q_SAQ(i);
	recn_arrive(s, q, route, sl, bytes, RECN_NO_UPSTREAM, now, recn_host_post, &k);
	return q;
}

/* The frame recn_host_arrive() counted in @q left (sent or dropped). */
static inline void recn_host_depart(struct recn_host *h, fq_u32 vc, fq_u32 q, fq_u32 bytes,
				    fq_u64 now)
{
	struct recn_host_ctx k = { h, (fq_u8)vc };

	if (vc >= RECN_HOST_VCS || q == RECN_HOST_NONE)
		return;
	recn_depart(&h->set[vc], q, bytes, now, recn_host_post, &k);
}

/* May the frames of SAQ @i go: in use and not stopped (no wait: see top). */
static inline bool recn_host_saq_ready(const struct recn_set *s, fq_u32 i)
{
	return s->saq[i].used && !s->saq[i].stopped;
}

/* May a frame counted in @q on @vc go now? */
static inline bool recn_host_may_go(const struct recn_host *h, fq_u32 vc, fq_u32 q)
{
	if (vc >= RECN_HOST_VCS || q == RECN_HOST_NONE || !RECN_Q_IS_SAQ(q))
		return true;
	return recn_host_saq_ready(&h->set[vc], q - RECN_DETQS);
}

/* The SAQs of @vc whose frames may go now: bit i for SAQ i. */
static inline fq_u32 recn_host_ready(const struct recn_host *h, fq_u32 vc)
{
	const struct recn_set *s;
	fq_u32 left, ready = 0;

	if (vc >= RECN_HOST_VCS)
		return 0;
	s = &h->set[vc];
	for (left = s->saq_used; left; left &= left - 1) {
		fq_u32 i = (fq_u32)__builtin_ctz(left);

		if (recn_host_saq_ready(s, i))
			ready |= 1u << i;
	}
	return ready;
}

/* SAQs in use, on both VCs. */
static inline fq_u32 recn_host_saqs(const struct recn_host *h)
{
	return recn_saqs_used(&h->set[0]) + recn_saqs_used(&h->set[1]);
}

/*
 * Count a queued frame again, after SAQs were made (@gen changed): the
 * queue it counts in now, moved there from @q.  A SAQ it leaves empty
 * may be freed (and say RELEASE), as when a frame leaves it.
 */
static inline fq_u32 recn_host_retag(struct recn_host *h, fq_u32 vc, fq_u32 q, fq_u32 route,
				     fq_u8 sl, fq_u32 bytes, fq_u64 now)
{
	struct recn_host_ctx k = { h, (fq_u8)vc };
	struct recn_set *s;
	fq_u32 to;
	int i;

	if (vc >= RECN_HOST_VCS || q == RECN_HOST_NONE)
		return q;
	s = &h->set[vc];
	i = recn_classify(s, route, sl);
	to = i < 0 ? recn_detq_of(route) : (fq_u32)RECN_Q_SAQ(i);
	if (to == q)
		return q;
	recn_arrive(s, to, route, sl, bytes, RECN_NO_UPSTREAM, now, recn_host_post, &k);
	recn_depart(s, q, bytes, now, recn_host_post, &k);
	return to;
}

/*
 * The messages of one FABRIC_CTRL_RECN frame from the switch (parsed by
 * recn_wire_parse()).  A host has nobody upstream, so a RELEASE or FULL
 * (which only an upstream port sends) is stale.  Returns whether the
 * caller must run the qdisc: a SAQ may go now that could not before (an
 * Xon), or SAQs were made (@gen), which take frames already queued.
 */
static inline bool recn_host_receive(struct recn_host *h, const struct recn_wire_msg *msg,
				     fq_u32 n, fq_u64 now)
{
	fq_u32 before[RECN_HOST_VCS], i, vc;
	fq_u64 made = h->set[0].st.saq_alloc + h->set[1].st.saq_alloc;
	bool woke = false;

	for (vc = 0; vc < RECN_HOST_VCS; vc++)
		before[vc] = recn_host_ready(h, vc);
	for (i = 0; i < n; i++) {
		struct recn_host_ctx k = { h, msg[i].vc };
		struct recn_set *s;

		if (msg[i].vc >= RECN_HOST_VCS)
			continue;	/* recn_wire_parse() refuses them */
		s = &h->set[msg[i].vc];
		if (msg[i].m.kind == RECN_MSG_RELEASE || msg[i].m.kind == RECN_MSG_FULL) {
			s->st.stale_rx++;
			continue;
		}
		recn_receive(s, &msg[i].m, RECN_NO_UPSTREAM, now, recn_host_post, &k);
	}
	for (vc = 0; vc < RECN_HOST_VCS; vc++)
		woke |= (recn_host_ready(h, vc) & ~before[vc]) != 0;
	/* new SAQs take the frames of their points already queued */
	if (h->set[0].st.saq_alloc + h->set[1].st.saq_alloc != made) {
		h->gen++;
		woke = true;
	}
	return woke;
}

/*
 * Call every recn_host_period(): ends leases, frees SAQs left empty
 * (their RELEASE is staged).  Returns whether a SAQ is still in use (the
 * tick must go on); *@woke: a SAQ with frames may go (a lease ended, or
 * its wait for older frames did, or the qdisc has not yet seen it go):
 * the caller runs the qdisc, which costs one look while nothing waits.
 */
static inline bool recn_host_tick(struct recn_host *h, fq_u64 now, bool *woke)
{
	fq_u32 vc;

	*woke = false;
	for (vc = 0; vc < RECN_HOST_VCS; vc++) {
		struct recn_host_ctx k = { h, (fq_u8)vc };

		fq_u32 ready, left;

		recn_tick(&h->set[vc], now, recn_host_post, &k);
		ready = recn_host_ready(h, vc);
		for (left = ready; left; left &= left - 1)
			*woke |= h->set[vc].saq[__builtin_ctz(left)].frames != 0;
	}
	return recn_host_saqs(h) != 0;
}

/* Take the staged messages into @out (room for RECN_HOST_OUT_MAX): how many. */
static inline fq_u32 recn_host_take_out(struct recn_host *h, struct recn_wire_msg *out)
{
	fq_u32 i, n = h->nout;

	for (i = 0; i < n; i++)
		out[i] = h->out[i];
	h->nout = 0;
	return n;
}

#endif /* FQ_RECN_HOST_H */
