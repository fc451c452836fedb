/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fabric header encoding, decoding and validation, shared by the kernel
 * (fabric_hdr.ko, later the qdiscs and the soft switch) and by userspace
 * (fabric-send, the unit tests).  Byte-wise and alignment-free: the
 * header starts at offset 14 of a frame, so its 32-bit fields are never
 * aligned.  The wire format is in include/uapi/linux/fabric_hdr.h.
 */
#ifndef FQ_FABRIC_HDR_CORE_H
#define FQ_FABRIC_HDR_CORE_H

#include "core_types.h"
#include "../include/uapi/linux/fabric_hdr.h"

/* Inner EtherTypes a fabric frame may carry (host byte order). */
#define FHC_ETH_P_IP	0x0800
#define FHC_ETH_P_ARP	0x0806
#define FHC_ETH_P_IPV6	0x86DD
#define FHC_ETH_P_FBS_BOOT FABRIC_INNER_FBS_BOOT	/* host-to-host control */

/* The header's fields in host byte order. */
struct fhc_fields {
	fq_u8	version;
	fq_u8	vc;
	bool	head;
	bool	tail;
	fq_u8	sl;
	fq_u16	inner_proto;
	fq_s32	ttd_ns;
	fq_u32	flow_id;
	fq_u32	seq;
	fq_u32	route;
};

/* Why a frame was refused; FHC_OK for a frame that may be passed up. */
enum fhc_verdict {
	FHC_OK,
	FHC_SHORT,		/* fewer bytes than the header */
	FHC_BAD_VERSION,
	FHC_BAD_INNER_TYPE,
	FHC_TRUNCATED,		/* inner packet shorter than its own header says */
};

static inline fq_u32 fhc_get_be32(const fq_u8 *p)
{
	return (fq_u32)p[0] << 24 | (fq_u32)p[1] << 16 |
	       (fq_u32)p[2] << 8 | p[3];
}

static inline fq_u16 fhc_get_be16(const fq_u8 *p)
{
	return (fq_u16)(p[0] << 8 | p[1]);
}

static inline void fhc_put_be32(fq_u8 *p, fq_u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline void fhc_put_be16(fq_u8 *p, fq_u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void fhc_encode(fq_u8 *hdr, const struct fhc_fields *f)
{
	hdr[0] = (fq_u8)((f->version & 0xf) << FABRIC_HDR_VER_SHIFT |
			 (f->vc & FABRIC_HDR_VC_MASK) << FABRIC_HDR_VC_SHIFT |
			 (f->head ? FABRIC_HDR_F_HEAD : 0) |
			 (f->tail ? FABRIC_HDR_F_TAIL : 0));
	hdr[1] = f->sl;
	fhc_put_be16(hdr + 2, f->inner_proto);
	fhc_put_be32(hdr + 4, (fq_u32)f->ttd_ns);
	fhc_put_be32(hdr + 8, f->flow_id);
	fhc_put_be32(hdr + 12, f->seq);
	fhc_put_be32(hdr + 16, f->route);
}

static inline void fhc_decode(const fq_u8 *hdr, struct fhc_fields *f)
{
	f->version = hdr[0] >> FABRIC_HDR_VER_SHIFT;
	f->vc = (hdr[0] >> FABRIC_HDR_VC_SHIFT) & FABRIC_HDR_VC_MASK;
	f->head = hdr[0] & FABRIC_HDR_F_HEAD;
	f->tail = hdr[0] & FABRIC_HDR_F_TAIL;
	f->sl = hdr[1];
	f->inner_proto = fhc_get_be16(hdr + 2);
	f->ttd_ns = (fq_s32)fhc_get_be32(hdr + 4);
	f->flow_id = fhc_get_be32(hdr + 8);
	f->seq = fhc_get_be32(hdr + 12);
	f->route = fhc_get_be32(hdr + 16);
}

/*
 * The route field as a turnpool (Documentation/fabric-header.rst): 0 is
 * no route (forward by MAC); else bit 31 marks a source route, bit 30 is
 * 0, and bits 0-29 hold 6-bit digits from the least significant up, one
 * per switch, each the output port plus one, 0 once the route is used
 * up.  A switch takes the lowest digit and passes the rest on shifted
 * down, the mark kept, so the next switch finds its own digit lowest:
 * no hop counter.  A marked route with no digit left names no port, so
 * a frame whose route ran out at a switch is dropped there, never
 * flooded: no routed frame crosses more than five switches, and none
 * can loop.
 */
#define FHC_ROUTE_ON		0x80000000u
#define FHC_ROUTE_RESERVED	0x40000000u
#define FHC_ROUTE_DIGITS	0x3fffffffu
#define FHC_ROUTE_DIGIT_BITS	6
#define FHC_ROUTE_MAX_PORT	62	/* digit 63 */
#define FHC_ROUTE_HOPS		5

/*
 * The output port a route names here, or -1 if it names none: used up,
 * no mark, or the reserved bit set.  @route must not be 0.
 */
static inline int fhc_route_port(fq_u32 route)
{
	if ((route & (FHC_ROUTE_ON | FHC_ROUTE_RESERVED)) != FHC_ROUTE_ON)
		return -1;
	return (int)(route & ((1u << FHC_ROUTE_DIGIT_BITS) - 1)) - 1;
}

/* What the route says to the switches after this one. */
static inline fq_u32 fhc_route_next(fq_u32 route)
{
	return FHC_ROUTE_ON | (route & FHC_ROUTE_DIGITS) >> FHC_ROUTE_DIGIT_BITS;
}

/*
 * How many switches a route a host sends takes: 1 to FHC_ROUTE_HOPS, or
 * -1 for one no switch would follow all the way: no mark, the reserved
 * bit set, no digit, or a digit after a used-up one (a 0 digit ends the
 * route, so what lies beyond it is never read).
 */
static inline int fhc_route_hops(fq_u32 route)
{
	fq_u32 d = route & FHC_ROUTE_DIGITS;
	int n = 0;

	if ((route & (FHC_ROUTE_ON | FHC_ROUTE_RESERVED)) != FHC_ROUTE_ON)
		return -1;
	while (d & ((1u << FHC_ROUTE_DIGIT_BITS) - 1)) {
		n++;
		d >>= FHC_ROUTE_DIGIT_BITS;
	}
	return n && !d ? n : -1;
}

/*
 * The route through @n switches leaving by @ports[0], @ports[1], ...:
 * false if it cannot be said (more than five hops, a port above 62).
 */
static inline bool fhc_route_build(const unsigned int *ports, unsigned int n,
				   fq_u32 *route)
{
	fq_u32 r = 0;
	unsigned int i = n;

	if (n > FHC_ROUTE_HOPS)
		return false;
	while (i--) {
		if (ports[i] > FHC_ROUTE_MAX_PORT)
			return false;
		r = r << FHC_ROUTE_DIGIT_BITS | (ports[i] + 1);
	}
	*route = FHC_ROUTE_ON | r;
	return true;
}

/* TTD field offset inside the header, for in-place rewrites. */
#define FHC_TTD_OFFSET	4

static inline void fhc_set_ttd(fq_u8 *hdr, fq_s32 ttd_ns)
{
	fhc_put_be32(hdr + FHC_TTD_OFFSET, (fq_u32)ttd_ns);
}

/* Sequence field offset inside the header. */
#define FHC_SEQ_OFFSET	12

/*
 * Make the header copied from a GSO frame's into its segment @index say
 * what that wire frame is (@last: the frame's last segment): sequence
 * numbers one per segment from the frame's, the message's first-frame
 * flag on segment 0 only, its last-frame flag on the last segment only.
 * The rest (VC, SL, TTD, flow, route) is the frame's: one deadline, one
 * route for all of it.
 */
static inline void fhc_segment_hdr(fq_u8 *hdr, fq_u32 index, bool last)
{
	fq_u8 keep = FABRIC_HDR_F_HEAD | FABRIC_HDR_F_TAIL;

	if (index)
		keep &= ~FABRIC_HDR_F_HEAD;
	if (!last)
		keep &= ~FABRIC_HDR_F_TAIL;
	hdr[0] &= ~(FABRIC_HDR_F_HEAD | FABRIC_HDR_F_TAIL) | keep;
	fhc_put_be32(hdr + FHC_SEQ_OFFSET,
		     fhc_get_be32(hdr + FHC_SEQ_OFFSET) + index);
}

/*
 * Clamp a 64-bit time-to-deadline to the header's signed 32 bits
 * (about +-2.1 s): a deadline further away than that is "far", a miss
 * older than that is "very late", and both stay on the right side of 0.
 */
static inline fq_s32 fhc_clamp_ttd(fq_s64 ttd_ns)
{
	if (ttd_ns > 0x7fffffffLL)
		return 0x7fffffff;
	if (ttd_ns < -0x80000000LL)
		return (fq_s32)-0x80000000LL;
	return (fq_s32)ttd_ns;
}

/*
 * How many bytes past the fabric header fhc_validate() needs to see in
 * one piece to check an inner packet of this type: enough for the
 * inner header's length fields.
 */
static inline fq_u32 fhc_inner_probe_len(fq_u16 inner_proto)
{
	switch (inner_proto) {
	case FHC_ETH_P_IP:
		return 20;
	case FHC_ETH_P_IPV6:
		return 40;
	case FHC_ETH_P_ARP:
		return 8;
	case FHC_ETH_P_FBS_BOOT:
		return FABRIC_FBS_BOOT_LEN;
	default:
		return 0;
	}
}

/* Smallest frame an inner packet of this type can be, from its header. */
static inline bool fhc_inner_is_whole(fq_u16 inner_proto, const fq_u8 *inner,
				      fq_u32 avail, fq_u32 inner_len)
{
	fq_u32 need;

	if (inner_len < fhc_inner_probe_len(inner_proto) ||
	    avail < fhc_inner_probe_len(inner_proto))
		return false;

	switch (inner_proto) {
	case FHC_ETH_P_IP:
		if ((inner[0] >> 4) != 4 || (inner[0] & 0xf) < 5)
			return false;
		need = fhc_get_be16(inner + 2);
		if (need < (fq_u32)(inner[0] & 0xf) * 4)
			return false;
		break;
	case FHC_ETH_P_IPV6:
		if ((inner[0] >> 4) != 6)
			return false;
		/* payload length 0 means a jumbogram: not carried here */
		need = 40 + fhc_get_be16(inner + 4);
		if (need == 40 && inner[6] == 0)
			return false;
		break;
	case FHC_ETH_P_ARP:
		/* fixed part plus two hardware and two protocol addresses */
		need = 8 + 2 * (fq_u32)inner[4] + 2 * (fq_u32)inner[5];
		break;
	case FHC_ETH_P_FBS_BOOT:
		need = FABRIC_FBS_BOOT_LEN;
		break;
	default:
		return false;
	}
	return inner_len >= need;
}

/*
 * Validate a received fabric frame.  @hdr points at the fabric header;
 * @avail bytes from there are readable in one piece, @len bytes are in
 * the frame from there on (header plus inner packet, Ethernet padding
 * included).  The caller makes FABRIC_HDR_LEN + fhc_inner_probe_len()
 * bytes readable when the frame has them.
 */
static inline enum fhc_verdict fhc_validate(const fq_u8 *hdr, fq_u32 avail,
					    fq_u32 len)
{
	fq_u16 inner_proto;

	if (len < FABRIC_HDR_LEN || avail < FABRIC_HDR_LEN)
		return FHC_SHORT;
	if (hdr[0] >> FABRIC_HDR_VER_SHIFT != FABRIC_HDR_VERSION)
		return FHC_BAD_VERSION;
	inner_proto = fhc_get_be16(hdr + 2);
	if (!fhc_inner_probe_len(inner_proto))
		return FHC_BAD_INNER_TYPE;
	if (!fhc_inner_is_whole(inner_proto, hdr + FABRIC_HDR_LEN,
				avail - FABRIC_HDR_LEN, len - FABRIC_HDR_LEN))
		return FHC_TRUNCATED;
	return FHC_OK;
}

/* Histogram bucket of a lateness (ns > 0), see FABRIC_LATE_BUCKETS. */
static inline unsigned int fhc_late_bucket(fq_u64 late_ns)
{
	fq_u64 us = fq_div64(late_ns, 1000);
	unsigned int b = 0;

	while (us && b < FABRIC_LATE_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	return b;
}

#endif /* FQ_FABRIC_HDR_CORE_H */
