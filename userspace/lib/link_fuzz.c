// SPDX-License-Identifier: GPL-2.0
/*
 * Forged credit-link messages: a forger that plays a peer through three
 * lives (epochs), mostly in order, and breaks every rule the receiver
 * checks: messages cut short or with a trailer, another type, VC count
 * or unit, epoch 0, numbers repeated, going back or leaping, lives
 * revisited, and totals, grants and flags at random, near the wrap and
 * beyond any buffer.  What the receiver makes of each, the core decides
 * (fcr_msg_receive() on a model of the receiver's books), and so do we.
 */
#include <string.h>

#include "link_fuzz.h"
#include "../../kernel/core/fabric_hdr_core.h"

#define ETH_HDR		14
#define LINK_MSG_LEN	(FABRIC_HDR_LEN + FABRIC_CTRL_LINK_LEN)

const char *const lf_class_names[LF_NCLASSES] = {
	[LF_RECEIVED]	= "received",
	[LF_MALFORMED]	= "malformed",
	[LF_UNIT]	= "unit",
	[LF_STALE]	= "stale",
	[LF_RECN]	= "recn",
};

static const uint8_t link_group[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };

/* one chance in @n */
static int one_in(struct ff_rng *r, unsigned int n)
{
	return ff_next(r) % n == 0;
}

static uint32_t nonzero32(struct ff_rng *r)
{
	uint32_t v;

	do
		v = (uint32_t)ff_next(r);
	while (!v);
	return v;
}

void lf_init(struct lf_state *s, uint64_t seed, const uint8_t *src_mac,
	     uint32_t unit, uint32_t echo)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	ff_seed(&s->rng, seed);
	memcpy(s->src_mac, src_mac, 6);
	s->unit = unit;
	s->echo = echo;
	for (i = 0; i < 3; i++)
		s->epochs[i] = nonzero32(&s->rng);
	/* start near the wrap, as a long-lived peer would be */
	s->seq = 0xfffffff0u;
	for (i = 0; i < FCR_DEFAULT_VCS; i++) {
		s->sent[i] = 0xffffff00u;
		s->grant[i] = 0xffffff00u;
	}
	/* the receiver's books as they are before any message */
	fcr_init(&s->model, 1, unit, 0, FCR_DEFAULT_QUIET_NS);
}

/* The next message number: mostly one more, sometimes anything but. */
static uint32_t next_seq(struct lf_state *s)
{
	switch (ff_next(&s->rng) % 16) {
	case 0:
		return s->seq;			/* repeated */
	case 1:
		return s->seq - 1 - (uint32_t)(ff_next(&s->rng) % 100); /* back */
	case 2:
		return s->seq = (uint32_t)ff_next(&s->rng);	/* a leap */
	case 3:
		return s->seq += 0x80000000u;	/* exactly half the circle */
	default:
		return ++s->seq;
	}
}

static uint32_t pick_epoch(struct lf_state *s)
{
	switch (ff_next(&s->rng) % 32) {
	case 0:
		return 0;			/* never valid */
	case 1:
		return nonzero32(&s->rng);	/* a life seen once */
	case 2:
	case 3:
		return s->epochs[1 + ff_next(&s->rng) % 2]; /* another life */
	default:
		return s->epochs[0];
	}
}

static uint32_t pick_total(struct lf_state *s, uint32_t *total)
{
	switch (ff_next(&s->rng) % 8) {
	case 0:
		return (uint32_t)ff_next(&s->rng);	/* anything */
	case 1:
		return *total - (uint32_t)(ff_next(&s->rng) % 1000); /* back */
	default:
		return *total += (uint32_t)(ff_next(&s->rng) % 300);
	}
}

size_t lf_build(struct lf_state *s, uint8_t *buf, enum lf_class *cls)
{
	struct fhc_fields f = { 0 };
	uint8_t *h = buf + ETH_HDR, *p = h + FABRIC_HDR_LEN;
	struct fcr_stats before = s->model.st;
	size_t len = ETH_HDR + LINK_MSG_LEN;
	unsigned int vc;

	memset(buf, 0, LF_FRAME_MAX);
	memcpy(buf, link_group, 6);
	memcpy(buf + 6, s->src_mac, 6);
	buf[12] = ETH_P_FABRIC >> 8;
	buf[13] = ETH_P_FABRIC & 0xff;

	/* a header the receiver takes for a link message, otherwise random */
	f.version = FABRIC_HDR_VERSION;
	f.vc = (uint8_t)(ff_next(&s->rng) & FABRIC_HDR_VC_MASK);
	f.sl = (uint8_t)ff_next(&s->rng);
	f.ttd_ns = (int32_t)ff_next(&s->rng);
	f.flow_id = (uint32_t)ff_next(&s->rng);
	f.seq = (uint32_t)ff_next(&s->rng);
	f.inner_proto = ETH_P_FABRIC;
	fhc_encode(h, &f);

	p[0] = one_in(&s->rng, 24) ? (uint8_t)ff_next(&s->rng) : FABRIC_CTRL_LINK;
	p[1] = one_in(&s->rng, 24) ? (uint8_t)ff_next(&s->rng) : FCR_DEFAULT_VCS;
	fhc_put_be16(p + 2, one_in(&s->rng, 16) ? (uint16_t)ff_next(&s->rng) :
						  (uint16_t)s->unit);
	fhc_put_be32(p + 4, pick_epoch(s));
	fhc_put_be32(p + 8, s->echo && !one_in(&s->rng, 4) ? s->echo :
			    (uint32_t)ff_next(&s->rng));
	fhc_put_be32(p + 12, next_seq(s));
	for (vc = 0; vc < FCR_DEFAULT_VCS; vc++) {
		uint8_t *v = p + FCR_VC_OFF(vc);

		fhc_put_be32(v, pick_total(s, &s->sent[vc]));
		fhc_put_be32(v + 4, pick_total(s, &s->grant[vc]));
		v[8] = one_in(&s->rng, 8) ? (uint8_t)ff_next(&s->rng) :
		       (uint8_t)(FABRIC_CTRL_F_LIMIT |
				 (ff_next(&s->rng) & FABRIC_CTRL_F_QUIET));
		if (one_in(&s->rng, 16))
			memset(v + 9, 0xff, 3);	/* the largest buffer a message can state */
	}
	/* the acknowledgement: any number, or none */
	fhc_put_be32(p + FABRIC_CTRL_LINK_ACK_OFF,
		     one_in(&s->rng, 4) ? 0 : (uint32_t)ff_next(&s->rng));
	if (one_in(&s->rng, 16)) {
		/* cut short: still a fabric header; short of the
		 * acknowledgement it is taken all the same, shorter refused */
		len = ETH_HDR + FABRIC_HDR_LEN +
		      ff_next(&s->rng) % FABRIC_CTRL_LINK_LEN;
	} else if (one_in(&s->rng, 16)) {
		size_t extra = ff_next(&s->rng) % (LF_FRAME_MAX - len + 1);
		size_t i;

		for (i = 0; i < extra; i++)
			buf[len + i] = (uint8_t)ff_next(&s->rng);
		len += extra;
	}

	fcr_msg_receive(&s->model, h, (fq_u32)(len - ETH_HDR), 0);
	if (len > ETH_HDR + FABRIC_HDR_LEN && p[0] == FABRIC_CTRL_RECN)
		*cls = LF_RECN;		/* malformed to the model too */
	else if (s->model.st.msgs_received != before.msgs_received)
		*cls = LF_RECEIVED;
	else if (s->model.st.msgs_unit != before.msgs_unit)
		*cls = LF_UNIT;
	else if (s->model.st.msgs_stale != before.msgs_stale)
		*cls = LF_STALE;
	else
		*cls = LF_MALFORMED;
	return len;
}
