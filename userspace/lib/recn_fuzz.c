// SPDX-License-Identifier: GPL-2.0
/*
 * Forged RECN link frames: valid ones of 1 to 16 messages for random
 * points (what a neighbour may say: it takes and stops SAQs), the same
 * with the Ethernet padding of a short frame or a trailer, and ones with
 * one fault each: a byte changed anywhere, cut short, a count of 0 or
 * beyond the most, an unknown kind, a VC above 1, a point no route can
 * pass, a reserved byte set.  Whether the receiver takes each, the core
 * decides (recn_wire_len(), recn_wire_parse()), and so do we.
 */
#include <string.h>

#include "recn_fuzz.h"
#include "../../kernel/core/recn_wire.h"

#define ETH_HDR		14

static const uint8_t link_group[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };

const char *const rf_class_names[RF_NCLASSES] = {
	[RF_TAKEN]	= "taken",
	[RF_REFUSED]	= "refused",
	[RF_OTHER]	= "other",
};

void rf_init(struct rf_state *s, uint64_t seed, const uint8_t *src_mac)
{
	memset(s, 0, sizeof(*s));
	ff_seed(&s->rng, seed);
	memcpy(s->src_mac, src_mac, 6);
}

/* A point a route can pass, of 1 to 6 digits. */
static struct recn_point rf_point(struct ff_rng *r)
{
	struct recn_point pt = { 0, (fq_u8)(1 + ff_next(r) % RECN_POINT_MAX_LEN),
				 (fq_u8)(ff_next(r) % 16) };
	unsigned int i;

	/* digits 1 .. 8 mostly (ports that exist), the last one maybe 0 */
	for (i = 0; i < pt.len; i++) {
		fq_u64 d = 1 + ff_next(r) % 8;

		if (i + 1 == pt.len && ff_next(r) % 4 == 0)
			d = 0;
		pt.turns |= d << (6 * i);
	}
	return pt;
}

size_t rf_build(struct rf_state *s, uint8_t *buf, enum rf_class *cls)
{
	struct recn_wire_msg msg[FABRIC_CTRL_RECN_MAX], out[FABRIC_CTRL_RECN_MAX];
	struct ff_rng *r = &s->rng;
	struct fhc_fields f = { 0 };
	uint32_t n = 1 + (uint32_t)(ff_next(r) % FABRIC_CTRL_RECN_MAX), i, got;
	uint8_t *p = buf + ETH_HDR + FABRIC_HDR_LEN;
	size_t len;

	memcpy(buf, link_group, 6);
	memcpy(buf + 6, s->src_mac, 6);
	buf[12] = ETH_P_FABRIC >> 8;
	buf[13] = ETH_P_FABRIC & 0xff;
	f.version = FABRIC_HDR_VERSION;
	f.vc = FABRIC_VC_REGULATED;
	f.inner_proto = ETH_P_FABRIC;
	fhc_encode(buf + ETH_HDR, &f);
	for (i = 0; i < n; i++) {
		msg[i].m.kind = (fq_u8)(FABRIC_RECN_NOTIFY + ff_next(r) % 5);
		msg[i].vc = (fq_u8)(ff_next(r) % 2);
		msg[i].m.pt = rf_point(r);
	}
	len = recn_wire_build(p, msg, n);
	switch (ff_next(r) % 10) {
	case 0:		/* padded to the Ethernet minimum, or a trailer */
		memset(p + len, 0, 40);
		len += 1 + ff_next(r) % 40;
		break;
	case 1:		/* a byte changed */
		p[ff_next(r) % len] ^= (uint8_t)(1 + ff_next(r) % 255);
		break;
	case 2:		/* cut short */
		len = ff_next(r) % len;
		break;
	case 3:		/* another count */
		p[1] = (uint8_t)(ff_next(r) % 2 ? 0 : FABRIC_CTRL_RECN_MAX + 1 + ff_next(r) % 200);
		break;
	case 4:		/* a kind, a VC, the digits */
		p[4 + 12 * (ff_next(r) % n) + ff_next(r) % 4] = (uint8_t)ff_next(r);
		break;
	case 5:		/* a point no route can pass: a digit after a 0 */
		p[4 + 12 * (ff_next(r) % n) + 11] = 0;
		p[4 + 12 * (ff_next(r) % n) + 10] = (uint8_t)(1 + ff_next(r) % 255);
		break;
	case 6:		/* a reserved byte */
		p[2 + ff_next(r) % 2] = (uint8_t)(1 + ff_next(r) % 255);
		break;
	default:	/* as built */
		break;
	}
	/* no type byte, or another type: a credit message to the receiver */
	if (!len || p[0] != FABRIC_CTRL_RECN)
		*cls = RF_OTHER;
	else if (recn_wire_parse(p, recn_wire_len(p, (fq_u32)len), out, &got) == RECN_WIRE_OK)
		*cls = RF_TAKEN;
	else
		*cls = RF_REFUSED;
	return ETH_HDR + FABRIC_HDR_LEN + len;
}
