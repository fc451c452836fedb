/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fabric of qsim recn: hosts and switches of a two-level folded Clos
 * (leaves and spines; one leaf alone is a single switch), lossless links
 * with per-VC credits and a propagation delay, input/output buffered
 * switches with two VCs, VC0 strictly first, round robin inside a VC,
 * source routes, and at every place frames wait the RECN sets of
 * kernel/core/recn_core.h.  Three architectures share the code:
 *
 *   fifo   one queue per VC at every side: the lossless switch without
 *          RECN (head-of-line blocking inside switches and across links)
 *   voq    inputs split by output port (virtual output queues at switch
 *          level, the paper's "VOQ Switch" with two VCs); outputs FIFO
 *   recn   detection queues at every side, SAQs, notifications, Xon/Xoff
 *
 * Hosts keep one set per SL (the paper's network interface: a VC per SL),
 * served in SL order, each with its SAQs in the recn architecture.  With
 * vcs 8 the switches have a VC per SL too, each strictly before the next
 * (with voq: the paper's "VOQ Switch").
 */
#ifndef QSIM_RECN_NET_H
#define QSIM_RECN_NET_H

#include <stdint.h>

#include "core/recn_core.h"

#define RN_VCS_MAX	8	/* 2, or one per SL */
#define RN_SLS		8
#define RN_MAX_PORTS	64
#define RN_NQ		(RECN_DETQS + RECN_SAQ_MAX)

enum rn_arch { RN_FIFO, RN_VOQ, RN_RECN };

struct rn_frame {
	uint64_t offered, seq;
	uint32_t len, src, dst, route, flow;
	uint8_t sl;
	int32_t next;		/* the next frame in the same queue, or wire */
};

struct rn_fifo {
	int32_t head, tail;
};

/* The frames waiting at one place for one VC (or a host's SL). */
struct rn_qset {
	struct recn_set rs;
	struct rn_fifo q[RN_NQ];
	int32_t last;		/* round robin: the queue served last */
	uint32_t held;		/* bytes, against the buffer */
};

/* Something on its way over a link: a frame, a credit return, a message. */
struct rn_ctl {
	uint64_t at;
	uint8_t kind;		/* RN_CTL_* */
	uint8_t vc;
	uint32_t bytes;
	struct recn_msg m;
};

enum { RN_CTL_CREDIT, RN_CTL_RECN };

/* One direction of a link: frames, and control in its own FIFO. */
struct rn_wire {
	struct rn_fifo frames;	/* arrival time: frame's wire_at */
	struct rn_ctl *ctl;
	uint32_t nctl, ctl_head, ctl_cap;
};

/* A link end: host h (sw < 0), or port p of switch sw. */
struct rn_end {
	int sw, idx;
};

struct rn_port {
	struct rn_qset in[RN_VCS_MAX], out[RN_VCS_MAX];
	struct rn_end peer;
	struct rn_wire tx;		/* towards the peer */
	uint64_t link_free, xin_free, xout_free;
	unsigned int rr_in;		/* output: the input to ask first */
	int64_t credit[RN_VCS_MAX];	/* bytes the peer's input has room for */
};

struct rn_switch {
	unsigned int nports;
	struct rn_port port[RN_MAX_PORTS];
};

struct rn_host {
	struct rn_qset sl[RN_SLS];
	struct rn_end peer;
	struct rn_wire tx;
	uint64_t link_free;
	int64_t credit[RN_VCS_MAX];
};

struct rn_params {
	enum rn_arch arch;
	unsigned int leaves, hosts_per_leaf, spines, vc0_sls;
	unsigned int vcs;		/* 2, or 8: a VC per SL */
	uint64_t rate;			/* bytes per second, every link */
	unsigned int speedup;		/* the crossbar's rate over the links' */
	uint64_t latency_ns;		/* per link, frames and control */
	uint64_t step_ns;		/* the time step of rn_step() */
	uint32_t in_buffer, out_buffer;	/* bytes per VC */
	uint32_t loss_permille;		/* RECN messages lost on links */
	uint64_t seed;
	struct recn_cfg recn;
};

struct rn_net {
	struct rn_params p;
	unsigned int nsw, nhosts;
	struct rn_switch *sw;
	struct rn_host *host;
	struct rn_frame *fr;		/* the trace, owned by the caller */
	uint64_t *wire_at;		/* per frame: when it is across */
	uint64_t rng, lost_msgs;
	uint32_t saq_max_bytes;		/* the fullest a switch's SAQ has been */
	/* what reached a host: called once per frame */
	void (*deliver)(void *ctx, const struct rn_frame *f, uint64_t now);
	void *ctx;
};

/* Build the fabric; -1 with a message on stderr for impossible sizes. */
int rn_net_init(struct rn_net *n, const struct rn_params *p, struct rn_frame *fr,
		size_t nframes);
void rn_net_free(struct rn_net *n);
/* The route from host @src to host @dst, as on the wire leaving @src. */
uint32_t rn_route(const struct rn_net *n, unsigned int src, unsigned int dst);
static inline unsigned int rn_vc(const struct rn_net *n, unsigned int sl)
{
	if (n->p.vcs == RN_VCS_MAX)
		return sl < RN_VCS_MAX ? sl : RN_VCS_MAX - 1;
	return sl < n->p.vc0_sls ? 0 : 1;
}
/* Frame @i is offered at its host now. */
void rn_offer(struct rn_net *n, int32_t i, uint64_t now);
/* Everything that happens at time @now (call with a fixed step). */
void rn_step(struct rn_net *n, uint64_t now);
/* RECN's periodic work at every set. */
void rn_tick(struct rn_net *n, uint64_t now);
/* SAQs in use over the fabric (hosts included), and stats summed. */
unsigned int rn_saqs_in_use(const struct rn_net *n);
void rn_stats_sum(const struct rn_net *n, struct recn_stats *sum);

#endif
