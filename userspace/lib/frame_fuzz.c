// SPDX-License-Identifier: GPL-2.0
/*
 * Random and mutated frames for the fabric receive paths: mostly fabric
 * frames whose fields sit at and beyond every boundary (every VC, TTDs of
 * -2^31, -1, 0, 1, 2^31 - 1, random routes and flags), carrying IPv4,
 * IPv6, ARP, an FBS bootstrap message or some other inner type, then cut
 * short, padded past the MTU or bit-flipped; some frames of other
 * EtherTypes among them.  What
 * each frame is, the receiver decides with fhc_validate(), and so do we.
 */
#include <string.h>

#include "frame_fuzz.h"
#include "../../kernel/core/fabric_hdr_core.h"
#include "../../kernel/core/fabric_credit.h"

#define ETH_HDR		14
#define STD_FRAME_MAX	1514	/* a 1500-byte MTU */

const char *const ff_class_names[FF_NCLASSES] = {
	[FF_VALID]	= "valid",
	[FF_SHORT]	= "short",
	[FF_VERSION]	= "version",
	[FF_INNER_TYPE]	= "inner_type",
	[FF_TRUNCATED]	= "truncated",
	[FF_OTHER]	= "other",
	[FF_CTRL]	= "ctrl",
};

void ff_seed(struct ff_rng *r, uint64_t seed)
{
	/* any seed, 0 included, gives a non-zero state */
	r->s = seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	if (!r->s)
		r->s = 1;
}

uint64_t ff_next(struct ff_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* uniform in [0, n) (n > 0; the bias of % is irrelevant here) */
static uint32_t below(struct ff_rng *r, uint32_t n)
{
	return (uint32_t)(ff_next(r) % n);
}

/* true with probability pct / 100 */
static bool chance(struct ff_rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}

static void random_bytes(struct ff_rng *r, uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)ff_next(r);
}

/* A TTD at a boundary half of the time, anything otherwise. */
static int32_t pick_ttd(struct ff_rng *r)
{
	static const int32_t edges[] = {
		INT32_MIN, INT32_MIN + 1, -1000000, -1, 0, 1, 1000000,
		INT32_MAX - 1, INT32_MAX,
	};

	if (chance(r, 50))
		return edges[below(r, sizeof(edges) / sizeof(edges[0]))];
	return (int32_t)(uint32_t)ff_next(r);
}

static void pick_dst_mac(struct ff_rng *r, const struct ff_params *p,
			 uint8_t *mac)
{
	static const uint8_t link_local[6] = { 0x01, 0x80, 0xc2, 0, 0, 0 };

	if (!p->random_dst_mac || chance(r, 50)) {
		memcpy(mac, p->dst_mac, 6);
		return;
	}
	switch (below(r, 4)) {
	case 0:
		memset(mac, 0xff, 6);			/* broadcast */
		break;
	case 1:
		memcpy(mac, link_local, 6);		/* 802.1D groups */
		mac[5] = (uint8_t)below(r, 16);
		break;
	case 2:
		random_bytes(r, mac, 6);
		mac[0] |= 1;				/* multicast */
		break;
	default:
		random_bytes(r, mac, 6);
		mac[0] &= 0xfe;				/* unknown unicast */
		break;
	}
}

/* An inner packet of @proto in @buf (at most @cap bytes); its length. */
static size_t build_inner(struct ff_rng *r, const struct ff_params *p,
			  uint16_t proto, uint8_t *buf, size_t cap)
{
	size_t len;

	switch (proto) {
	case FHC_ETH_P_IP:
		len = 20 + below(r, (uint32_t)(cap - 20 + 1));
		random_bytes(r, buf, len);
		buf[0] = chance(r, 90) ? 0x45 : (uint8_t)ff_next(r);
		fhc_put_be16(buf + 2, chance(r, 80) ? (uint16_t)len : (uint16_t)ff_next(r));
		buf[8] = 64;
		buf[9] = chance(r, 80) ? 17 : (uint8_t)ff_next(r);	/* UDP */
		if (chance(r, 80)) {
			memcpy(buf + 12, p->src_ip, 4);
			memcpy(buf + 16, p->dst_ip, 4);
		}
		return len;
	case FHC_ETH_P_IPV6:
		len = 40 + below(r, (uint32_t)(cap - 40 + 1));
		random_bytes(r, buf, len);
		buf[0] = chance(r, 90) ? 0x60 : (uint8_t)ff_next(r);
		fhc_put_be16(buf + 4, chance(r, 80) ? (uint16_t)(len - 40) :
						      (uint16_t)ff_next(r));
		return len;
	case FHC_ETH_P_ARP:
		len = 28;
		random_bytes(r, buf, len);
		fhc_put_be16(buf, 1);			/* Ethernet */
		fhc_put_be16(buf + 2, FHC_ETH_P_IP);
		buf[4] = chance(r, 80) ? 6 : (uint8_t)ff_next(r);
		buf[5] = chance(r, 80) ? 4 : (uint8_t)ff_next(r);
		return len;
	default:
		len = below(r, (uint32_t)cap + 1);
		random_bytes(r, buf, len);
		return len;
	}
}

static enum ff_class classify(const uint8_t *frame, size_t len)
{
	if (len < ETH_HDR || fhc_get_be16(frame + 12) != ETH_P_FABRIC)
		return FF_OTHER;
	/* the receivers look for link messages first */
	if (fcr_is_ctrl(frame + ETH_HDR, (fq_u32)(len - ETH_HDR)))
		return FF_CTRL;
	switch (fhc_validate(frame + ETH_HDR, (fq_u32)(len - ETH_HDR),
			     (fq_u32)(len - ETH_HDR))) {
	case FHC_OK:
		return FF_VALID;
	case FHC_SHORT:
		return FF_SHORT;
	case FHC_BAD_VERSION:
		return FF_VERSION;
	case FHC_BAD_INNER_TYPE:
		return FF_INNER_TYPE;
	default:
		return FF_TRUNCATED;
	}
}

size_t ff_build(struct ff_rng *r, const struct ff_params *p, uint8_t *buf,
		enum ff_class *cls)
{
	static const uint16_t carried[] = {
		FHC_ETH_P_IP, FHC_ETH_P_IP, FHC_ETH_P_IPV6, FHC_ETH_P_ARP,
		FHC_ETH_P_FBS_BOOT,
	};
	struct fhc_fields h;
	uint16_t ethertype;
	size_t len, i;

	pick_dst_mac(r, p, buf);
	memcpy(buf + 6, p->src_mac, 6);

	if (chance(r, 10)) {
		/* another EtherType: anything but ours */
		do
			ethertype = (uint16_t)ff_next(r);
		while (ethertype == ETH_P_FABRIC);
		fhc_put_be16(buf + 12, ethertype);
		len = ETH_HDR + below(r, STD_FRAME_MAX - ETH_HDR + 1);
		random_bytes(r, buf + ETH_HDR, len - ETH_HDR);
		*cls = classify(buf, len);
		return len;
	}

	fhc_put_be16(buf + 12, ETH_P_FABRIC);
	memset(&h, 0, sizeof(h));
	h.version = chance(r, 90) ? FABRIC_HDR_VERSION : (uint8_t)below(r, 16);
	h.vc = (uint8_t)below(r, 4);
	h.head = chance(r, 50);
	h.tail = chance(r, 50);
	h.sl = (uint8_t)ff_next(r);
	h.inner_proto = chance(r, 85) ? carried[below(r, 5)] : (uint16_t)ff_next(r);
	h.ttd_ns = pick_ttd(r);
	h.flow_id = (uint32_t)ff_next(r);
	h.seq = (uint32_t)ff_next(r);
	h.route = chance(r, 50) ? 0 : (uint32_t)ff_next(r);
	fhc_encode(buf + ETH_HDR, &h);
	len = ETH_HDR + FABRIC_HDR_LEN;
	len += build_inner(r, p, h.inner_proto, buf + len, STD_FRAME_MAX - len);

	if (chance(r, 15)) {
		/* cut anywhere after the Ethernet header */
		len = ETH_HDR + below(r, (uint32_t)(len - ETH_HDR));
	} else if (chance(r, 3)) {
		/* past a 1500-byte MTU: the sender's socket may refuse it */
		size_t big = STD_FRAME_MAX + 1 + below(r, FF_FRAME_MAX - STD_FRAME_MAX);

		random_bytes(r, buf + len, big - len);
		len = big;
	}
	if (chance(r, 10)) {
		/* flip a few bits of the headers */
		for (i = 1 + below(r, 3); i > 0; i--) {
			size_t span = len - ETH_HDR < 60 ? len - ETH_HDR : 60;

			if (!span)
				break;
			buf[ETH_HDR + below(r, (uint32_t)span)] ^=
				(uint8_t)(1u << below(r, 8));
		}
	}
	*cls = classify(buf, len);
	return len;
}
