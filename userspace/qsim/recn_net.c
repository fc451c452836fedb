// SPDX-License-Identifier: GPL-2.0
/*
 * qsim recn: the fabric model (recn_net.h).  Time advances in fixed steps;
 * at each step links deliver what is across, hosts and output ports start
 * a frame when their link is free and the receiver has credits for it,
 * and each switch's crossbar moves at most one frame per input and per
 * output at the links' rate.  Messages between the sides of one switch
 * arrive at once; on a link they take its delay, and may be lost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recn_net.h"

enum { RN_SIDE_IN, RN_SIDE_OUT, RN_SIDE_HOST };

/* Where a set is: the context of its messages. */
struct rn_where {
	struct rn_net *n;
	int sw, idx, side;
	unsigned int vc;
	uint64_t now;
};

static void rn_fifo_push(struct rn_frame *fr, struct rn_fifo *f, int32_t i)
{
	fr[i].next = -1;
	if (f->tail >= 0)
		fr[f->tail].next = i;
	else
		f->head = i;
	f->tail = i;
}

static int32_t rn_fifo_pop(struct rn_frame *fr, struct rn_fifo *f)
{
	int32_t i = f->head;

	f->head = fr[i].next;
	if (f->head < 0)
		f->tail = -1;
	return i;
}

static uint64_t rn_tx_ns(const struct rn_net *n, uint32_t len)
{
	return ((uint64_t)len * 1000000000ULL + n->p.rate - 1) / n->p.rate;
}

static int rn_wire_ctl(struct rn_wire *w, const struct rn_ctl *c)
{
	if (w->nctl == w->ctl_cap) {
		uint32_t cap = w->ctl_cap ? 2 * w->ctl_cap : 64, i;
		struct rn_ctl *nc = malloc(cap * sizeof(*nc));

		if (!nc)
			return -1;
		for (i = 0; i < w->nctl; i++)
			nc[i] = w->ctl[(w->ctl_head + i) % w->ctl_cap];
		free(w->ctl);
		w->ctl = nc;
		w->ctl_cap = cap;
		w->ctl_head = 0;
	}
	w->ctl[(w->ctl_head + w->nctl) % w->ctl_cap] = *c;
	w->nctl++;
	return 0;
}

static struct rn_wire *rn_tx_of(struct rn_net *n, int sw, int idx)
{
	return sw < 0 ? &n->host[idx].tx : &n->sw[sw].port[idx].tx;
}

static void rn_ctl_send(struct rn_net *n, int sw, int idx, const struct rn_ctl *c)
{
	if (rn_wire_ctl(rn_tx_of(n, sw, idx), c)) {
		fprintf(stderr, "qsim recn: out of memory\n");
		exit(1);
	}
}

static void rn_receive(struct rn_net *n, struct rn_qset *qs, const struct recn_msg *m,
		       unsigned int from, int sw, int idx, int side, uint64_t now);
static uint64_t rn_rand(struct rn_net *n);

/*
 * recn_send_fn: deliver a set's message where it goes, the point
 * rewritten for the other side of a switch.
 */
static void rn_send(void *ctx, fq_u32 to, const struct recn_msg *m)
{
	const struct rn_where *w = ctx;
	struct rn_net *n = w->n;
	struct recn_msg x = *m;
	struct rn_ctl c = { .at = w->now + n->p.latency_ns, .kind = RN_CTL_RECN, .m = x };
	fq_u32 o;

	if (w->side == RN_SIDE_OUT && to != RECN_DOWNSTREAM) {
		/* up to the input ports of this switch */
		if (to >= n->sw[w->sw].nports || !recn_point_up_from_output(&x.pt, (fq_u32)w->idx))
			return;
		rn_receive(n, &n->sw[w->sw].port[to].in[w->vc], &x, (unsigned int)w->idx,
			   w->sw, (int)to, RN_SIDE_IN, w->now);
		return;
	}
	if (w->side == RN_SIDE_IN && to == RECN_DOWNSTREAM) {
		/* down to the output the point names first */
		if (!recn_point_down_to_output(&x.pt, &o) || o >= n->sw[w->sw].nports)
			return;
		rn_receive(n, &n->sw[w->sw].port[o].out[w->vc], &x, (unsigned int)w->idx,
			   w->sw, (int)o, RN_SIDE_OUT, w->now);
		return;
	}
	/* over the link: an input side's upstream, a host's or an output's RELEASE */
	if (n->p.loss_permille && rn_rand(n) % 1000 < n->p.loss_permille) {
		n->lost_msgs++;
		return;
	}
	rn_ctl_send(n, w->side == RN_SIDE_HOST ? -1 : w->sw, w->idx, &c);
}

static void rn_receive(struct rn_net *n, struct rn_qset *qs, const struct recn_msg *m,
		       unsigned int from, int sw, int idx, int side, uint64_t now)
{
	struct rn_where w = { n, sw, idx, side, rn_vc(n, m->pt.sl), now };

	recn_receive(&qs->rs, m, from, now, rn_send, &w);
}

/* ---- topology ----------------------------------------------------------- */

static void rn_link(struct rn_net *n, struct rn_end a, struct rn_end b)
{
	struct rn_end *pa = a.sw < 0 ? &n->host[a.idx].peer : &n->sw[a.sw].port[a.idx].peer;
	struct rn_end *pb = b.sw < 0 ? &n->host[b.idx].peer : &n->sw[b.sw].port[b.idx].peer;

	*pa = b;
	*pb = a;
}

static void rn_qset_init(struct rn_qset *qs, const struct recn_cfg *cfg)
{
	unsigned int q;

	recn_init(&qs->rs, cfg);
	for (q = 0; q < RN_NQ; q++)
		qs->q[q] = (struct rn_fifo){ -1, -1 };
	qs->last = -1;
	qs->held = 0;
}

static void rn_wire_init(struct rn_wire *w)
{
	*w = (struct rn_wire){ .frames = { -1, -1 } };
}

int rn_net_init(struct rn_net *n, const struct rn_params *p, struct rn_frame *fr,
		size_t nframes)
{
	unsigned int H = p->hosts_per_leaf, L = p->leaves, S = p->spines, s, l, h, v, k;

	memset(n, 0, sizeof(*n));
	n->p = *p;
	if (!L || !H || (L == 1) != (S == 0) || H + S > RN_MAX_PORTS || L > RN_MAX_PORTS ||
	    L * H > 4096) {
		fprintf(stderr, "qsim recn: want 1 leaf and no spine, or 2..%d leaves and spines, and hosts + spines per leaf up to %d\n",
			RN_MAX_PORTS, RN_MAX_PORTS);
		return -1;
	}
	n->nsw = L + S;
	n->nhosts = L * H;
	n->sw = calloc(n->nsw, sizeof(*n->sw));
	n->host = calloc(n->nhosts, sizeof(*n->host));
	n->wire_at = calloc(nframes ? nframes : 1, sizeof(*n->wire_at));
	if (!n->sw || !n->host || !n->wire_at) {
		fprintf(stderr, "qsim recn: out of memory\n");
		return -1;
	}
	n->fr = fr;
	n->rng = p->seed | 1;
	for (s = 0; s < n->nsw; s++) {
		struct rn_switch *x = &n->sw[s];

		x->nports = s < L ? H + S : L;
		for (k = 0; k < x->nports; k++) {
			struct rn_port *pt = &x->port[k];

			for (v = 0; v < n->p.vcs; v++) {
				rn_qset_init(&pt->in[v], &p->recn);
				rn_qset_init(&pt->out[v], &p->recn);
				recn_set_output_side(&pt->out[v].rs);
				pt->credit[v] = s >= L || k >= H ? p->in_buffer : 0;
			}
			rn_wire_init(&pt->tx);
		}
	}
	for (h = 0; h < n->nhosts; h++) {
		for (v = 0; v < RN_SLS; v++) {
			rn_qset_init(&n->host[h].sl[v], &p->recn);
			/* as the kernel's hosts (recn_host_init): sources */
			n->host[h].sl[v].rs.source = true;
		}
		for (v = 0; v < n->p.vcs; v++)
			n->host[h].credit[v] = p->in_buffer;
		rn_wire_init(&n->host[h].tx);
		rn_link(n, (struct rn_end){ -1, (int)h }, (struct rn_end){ (int)(h / H), (int)(h % H) });
		/* a host takes what comes at once: its leaf never waits for it */
		for (v = 0; v < n->p.vcs; v++)
			n->sw[h / H].port[h % H].credit[v] = INT64_MAX / 2;
	}
	for (l = 0; l < L && S; l++)
		for (s = 0; s < S; s++)
			rn_link(n, (struct rn_end){ (int)l, (int)(H + s) },
				(struct rn_end){ (int)(L + s), (int)l });
	return 0;
}

void rn_net_free(struct rn_net *n)
{
	unsigned int s, k;

	for (s = 0; n->sw && s < n->nsw; s++)
		for (k = 0; k < n->sw[s].nports; k++)
			free(n->sw[s].port[k].tx.ctl);
	for (s = 0; n->host && s < n->nhosts; s++)
		free(n->host[s].tx.ctl);
	free(n->sw);
	free(n->host);
	free(n->wire_at);
}

uint32_t rn_route(const struct rn_net *n, unsigned int src, unsigned int dst)
{
	unsigned int H = n->p.hosts_per_leaf, ports[3];
	fq_u32 r = 0;

	if (src / H == dst / H) {
		ports[0] = dst % H;
		fhc_route_build(ports, 1, &r);
	} else {
		ports[0] = H + dst % n->p.spines;
		ports[1] = dst / H;
		ports[2] = dst % H;
		fhc_route_build(ports, 3, &r);
	}
	return r;
}

/* ---- frames ------------------------------------------------------------- */

/* Frame @i joins set @qs, where frames have @route and come from @from. */
static void rn_enqueue(struct rn_net *n, struct rn_qset *qs, int32_t i, fq_u32 route,
		       bool split, unsigned int from, const struct rn_where *w)
{
	struct rn_frame *f = &n->fr[i];
	bool recn = n->p.arch == RN_RECN;
	int saq = recn ? recn_classify(&qs->rs, route, f->sl) : -1;
	fq_u32 q = saq >= 0 ? RECN_Q_SAQ((fq_u32)saq) : split ? recn_detq_of(route) : 0;

	rn_fifo_push(n->fr, &qs->q[q], i);
	qs->held += f->len;
	/* outside recn no route is shown: nothing is detected */
	recn_arrive(&qs->rs, q, recn ? route : 0, f->sl, f->len, from, w->now, rn_send,
		    (void *)w);
	if (w->side != RN_SIDE_HOST && RECN_Q_IS_SAQ(q) &&
	    qs->rs.saq[q - RECN_DETQS].bytes > n->saq_max_bytes)
		n->saq_max_bytes = qs->rs.saq[q - RECN_DETQS].bytes;
}

static int32_t rn_dequeue(struct rn_net *n, struct rn_qset *qs, int q, const struct rn_where *w)
{
	int32_t i = rn_fifo_pop(n->fr, &qs->q[q]);

	qs->held -= n->fr[i].len;
	qs->last = q;
	recn_depart(&qs->rs, (fq_u32)q, n->fr[i].len, w->now, rn_send, (void *)w);
	return i;
}

void rn_offer(struct rn_net *n, int32_t i, uint64_t now)
{
	struct rn_frame *f = &n->fr[i];
	struct rn_where w = { n, -1, (int)f->src, RN_SIDE_HOST, rn_vc(n, f->sl), now };

	rn_enqueue(n, &n->host[f->src].sl[f->sl], i, f->route, n->p.arch == RN_RECN,
		   RECN_NO_UPSTREAM, &w);
}

struct rn_ok {
	struct rn_net *n;
	struct rn_qset *qs;
	int64_t credit;		/* the peer's room */
};

static bool rn_ok_link(void *ctx, fq_u32 q)
{
	const struct rn_ok *k = ctx;

	return k->credit >= (int64_t)k->n->fr[k->qs->q[q].head].len;
}

/*
 * A frame leaves on a link: it is across at the end of its transmission.
 * It starts when the link freed if that was within the last step (it was
 * waiting for it), so the steps cost the link no time.
 */
static void rn_transmit(struct rn_net *n, struct rn_wire *tx, uint64_t *link_free,
			int32_t i, uint64_t now)
{
	uint64_t start = *link_free + n->p.step_ns > now ? *link_free : now;

	*link_free = start + rn_tx_ns(n, n->fr[i].len);
	n->wire_at[i] = *link_free + n->p.latency_ns;
	rn_fifo_push(n->fr, &tx->frames, i);
}

/*
 * Send from @qs on a link (@tx, @link_free) if one of its queues has a
 * head the peer has room for (*@credit): true if a frame went.
 */
static bool rn_link_send(struct rn_net *n, struct rn_qset *qs, int64_t *credit,
			 struct rn_wire *tx, uint64_t *link_free, const struct rn_where *w)
{
	struct rn_ok k = { n, qs, *credit };
	int q = recn_next(&qs->rs, qs->last, rn_ok_link, &k);
	int32_t i;

	if (q < 0)
		return false;
	i = rn_dequeue(n, qs, q, w);
	*credit -= n->fr[i].len;
	rn_transmit(n, tx, link_free, i, w->now);
	return true;
}

/* A host's free link: its SLs in order. */
static void rn_host_send(struct rn_net *n, unsigned int h, uint64_t now)
{
	struct rn_host *ho = &n->host[h];
	unsigned int sl;

	for (sl = 0; sl < RN_SLS && ho->link_free <= now; sl++) {
		unsigned int vc = rn_vc(n, sl);
		struct rn_where w = { n, -1, (int)h, RN_SIDE_HOST, vc, now };

		if (rn_link_send(n, &ho->sl[sl], &ho->credit[vc], &ho->tx, &ho->link_free, &w))
			return;
	}
}

/* An output port's free link: its VCs in order. */
static void rn_port_send(struct rn_net *n, unsigned int s, unsigned int p, uint64_t now)
{
	struct rn_port *pt = &n->sw[s].port[p];
	unsigned int vc;

	for (vc = 0; vc < n->p.vcs && pt->link_free <= now; vc++) {
		struct rn_where w = { n, (int)s, (int)p, RN_SIDE_OUT, vc, now };

		if (rn_link_send(n, &pt->out[vc], &pt->credit[vc], &pt->tx, &pt->link_free, &w))
			return;
	}
}

struct rn_xok {
	struct rn_net *n;
	struct rn_qset *qs;
	unsigned int out;
};

/* Does the head of queue @q go to the output being filled? */
static bool rn_ok_xbar(void *ctx, fq_u32 q)
{
	const struct rn_xok *k = ctx;

	return fhc_route_port(k->n->fr[k->qs->q[q].head].route) == (int)k->out;
}

/* Frame @i of input @p, VC @vc, crosses to output @o. */
static void rn_cross(struct rn_net *n, unsigned int s, unsigned int p, unsigned int vc,
		     int q, unsigned int o, uint64_t now)
{
	struct rn_switch *x = &n->sw[s];
	struct rn_port *pt = &x->port[p];
	struct rn_where w = { n, (int)s, (int)p, RN_SIDE_IN, vc, now };
	struct rn_ctl c = { .at = now + n->p.latency_ns, .kind = RN_CTL_CREDIT, .vc = (uint8_t)vc };
	int32_t i = rn_dequeue(n, &pt->in[vc], q, &w);
	struct rn_frame *f = &n->fr[i];

	c.bytes = f->len;
	rn_ctl_send(n, (int)s, (int)p, &c);	/* its room goes back upstream */
	f->route = fhc_route_next(f->route);
	if (n->p.speedup) {
		pt->xin_free = now + (rn_tx_ns(n, f->len) + n->p.speedup - 1) / n->p.speedup;
		x->port[o].xout_free = pt->xin_free;
	}
	w.idx = (int)o;
	w.side = RN_SIDE_OUT;
	rn_enqueue(n, &x->port[o].out[vc], i, f->route, n->p.arch == RN_RECN, p, &w);
}

static uint64_t rn_rand(struct rn_net *n)
{
	n->rng ^= n->rng << 13;
	n->rng ^= n->rng >> 7;
	n->rng ^= n->rng << 17;
	return n->rng;
}

/*
 * The crossbar: each free output takes a frame from a free input, VC0
 * first, asking the inputs in round robin from its own pointer (so each
 * output shares itself fairly among its inputs); the outputs are visited
 * from a random one each step, so that no output always comes first for
 * an input that two want (with frames of one size, any fixed order would
 * hand the same output the same input every time).
 */
static void rn_crossbar(struct rn_net *n, unsigned int s, uint64_t now)
{
	struct rn_switch *x = &n->sw[s];
	unsigned int k, j, vc, start = (unsigned int)(rn_rand(n) % x->nports);

	for (k = 0; k < x->nports; k++) {
		unsigned int o = (start + k) % x->nports, tried = 0;
		struct rn_port *op = &x->port[o];

		if (op->xout_free > now)
			continue;
		/* instant crossing: as many frames as there is room for */
		for (vc = 0; vc < n->p.vcs; vc++) {
			for (j = op->rr_in; tried < x->nports; j = (j + 1) % x->nports) {
				struct rn_port *ip = &x->port[j];
				struct rn_xok ok = { n, &ip->in[vc], o };
				int q;

				tried++;
				if (ip->xin_free > now)
					continue;
				q = recn_next(&ip->in[vc].rs, ip->in[vc].last, rn_ok_xbar, &ok);
				if (q < 0 || op->out[vc].held +
				    n->fr[ip->in[vc].q[q].head].len > n->p.out_buffer)
					continue;
				rn_cross(n, s, j, vc, q, o, now);
				op->rr_in = (j + 1) % x->nports;
				if (n->p.speedup)
					goto next_output;
				tried = 0;	/* another round from the next input */
			}
			tried = 0;
		}
next_output:;
	}
}

/* What wire @tx of end (@sw, @idx) has brought across by now. */
static void rn_arrivals(struct rn_net *n, int sw, int idx, uint64_t now)
{
	struct rn_wire *tx = rn_tx_of(n, sw, idx);
	struct rn_end to = sw < 0 ? n->host[idx].peer : n->sw[sw].port[idx].peer;

	while (tx->frames.head >= 0 && n->wire_at[tx->frames.head] <= now) {
		int32_t i = rn_fifo_pop(n->fr, &tx->frames);
		struct rn_frame *f = &n->fr[i];
		unsigned int vc = rn_vc(n, f->sl);

		if (to.sw < 0) {
			n->deliver(n->ctx, f, now);
		} else {
			struct rn_where w = { n, to.sw, to.idx, RN_SIDE_IN, vc, now };

			rn_enqueue(n, &n->sw[to.sw].port[to.idx].in[vc], i, f->route,
				   n->p.arch != RN_FIFO, 0, &w);
		}
	}
	while (tx->nctl && tx->ctl[tx->ctl_head].at <= now) {
		struct rn_ctl c = tx->ctl[tx->ctl_head];

		tx->ctl_head = (tx->ctl_head + 1) % tx->ctl_cap;
		tx->nctl--;
		if (c.kind == RN_CTL_CREDIT) {
			if (to.sw < 0)
				n->host[to.idx].credit[c.vc] += c.bytes;
			else
				n->sw[to.sw].port[to.idx].credit[c.vc] += c.bytes;
		} else if (to.sw < 0) {
			if (c.m.pt.sl < RN_SLS)
				rn_receive(n, &n->host[to.idx].sl[c.m.pt.sl], &c.m, 0, -1, to.idx,
					   RN_SIDE_HOST, now);
		} else {
			/* RELEASE and FULL come down into an input, the rest up into an output */
			struct rn_port *pt = &n->sw[to.sw].port[to.idx];
			unsigned int vc = rn_vc(n, c.m.pt.sl);
			bool down = c.m.kind == RECN_MSG_RELEASE || c.m.kind == RECN_MSG_FULL;

			rn_receive(n, down ? &pt->in[vc] : &pt->out[vc], &c.m, 0, to.sw, to.idx,
				   down ? RN_SIDE_IN : RN_SIDE_OUT, now);
		}
	}
}

void rn_step(struct rn_net *n, uint64_t now)
{
	unsigned int s, p, h;

	for (h = 0; h < n->nhosts; h++)
		rn_arrivals(n, -1, (int)h, now);
	for (s = 0; s < n->nsw; s++)
		for (p = 0; p < n->sw[s].nports; p++)
			rn_arrivals(n, (int)s, (int)p, now);
	for (s = 0; s < n->nsw; s++)
		rn_crossbar(n, s, now);
	for (s = 0; s < n->nsw; s++)
		for (p = 0; p < n->sw[s].nports; p++)
			rn_port_send(n, s, p, now);
	for (h = 0; h < n->nhosts; h++)
		rn_host_send(n, h, now);
}

void rn_tick(struct rn_net *n, uint64_t now)
{
	unsigned int s, p, v;

	for (s = 0; s < n->nsw; s++) {
		for (p = 0; p < n->sw[s].nports; p++) {
			for (v = 0; v < n->p.vcs; v++) {
				struct rn_where wi = { n, (int)s, (int)p, RN_SIDE_IN, v, now };
				struct rn_where wo = { n, (int)s, (int)p, RN_SIDE_OUT, v, now };

				recn_tick(&n->sw[s].port[p].in[v].rs, now, rn_send, &wi);
				recn_tick(&n->sw[s].port[p].out[v].rs, now, rn_send, &wo);
			}
		}
	}
	for (s = 0; s < n->nhosts; s++) {
		for (v = 0; v < RN_SLS; v++) {
			struct rn_where w = { n, -1, (int)s, RN_SIDE_HOST, rn_vc(n, v), now };

			recn_tick(&n->host[s].sl[v].rs, now, rn_send, &w);
		}
	}
}

unsigned int rn_saqs_in_use(const struct rn_net *n)
{
	unsigned int s, p, v, k = 0;

	for (s = 0; s < n->nsw; s++)
		for (p = 0; p < n->sw[s].nports; p++)
			for (v = 0; v < n->p.vcs; v++)
				k += recn_saqs_used(&n->sw[s].port[p].in[v].rs) +
				     recn_saqs_used(&n->sw[s].port[p].out[v].rs);
	for (s = 0; s < n->nhosts; s++)
		for (v = 0; v < RN_SLS; v++)
			k += recn_saqs_used(&n->host[s].sl[v].rs);
	return k;
}

void rn_stats_sum(const struct rn_net *n, struct recn_stats *sum)
{
	unsigned int s, p, v;

	memset(sum, 0, sizeof(*sum));
	for (s = 0; s < n->nsw; s++)
		for (p = 0; p < n->sw[s].nports; p++)
			for (v = 0; v < n->p.vcs; v++) {
				recn_stats_add(sum, &n->sw[s].port[p].in[v].rs.st);
				recn_stats_add(sum, &n->sw[s].port[p].out[v].rs.st);
			}
	for (s = 0; s < n->nhosts; s++)
		for (v = 0; v < RN_SLS; v++)
			recn_stats_add(sum, &n->host[s].sl[v].rs.st);
}

