/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RECN messages on the wire: the FABRIC_CTRL_RECN link control message
 * (include/uapi/linux/fabric_hdr.h), built and checked in plain C shared
 * by the kernel, the unit tests and the tools.  The bytes come from any
 * host on the link: a message is taken whole or refused whole.
 */
#ifndef FQ_RECN_WIRE_H
#define FQ_RECN_WIRE_H

#include "core_types.h"
#include "fabric_hdr_core.h"
#include "recn_core.h"

/* A message with the VC whose sets it is for. */
struct recn_wire_msg {
	struct recn_msg m;
	fq_u8 vc;
};

/* Why recn_wire_parse() refused a message. */
enum recn_wire_err {
	RECN_WIRE_OK,
	RECN_WIRE_TYPE,		/* not FABRIC_CTRL_RECN */
	RECN_WIRE_COUNT,	/* no message, or more than the most */
	RECN_WIRE_LEN,		/* not the length its count says */
	RECN_WIRE_RESERVED,	/* a reserved byte not 0 */
	RECN_WIRE_KIND,		/* an unknown kind */
	RECN_WIRE_VC,		/* a VC above 1 */
	RECN_WIRE_POINT,	/* a point no route can pass */
};

static inline void recn_wire_put_be64(fq_u8 *p, fq_u64 v)
{
	fhc_put_be32(p, (fq_u32)(v >> 32));
	fhc_put_be32(p + 4, (fq_u32)v);
}

static inline fq_u64 recn_wire_get_be64(const fq_u8 *p)
{
	return (fq_u64)fhc_get_be32(p) << 32 | fhc_get_be32(p + 4);
}

/*
 * Write @n messages (1 to FABRIC_CTRL_RECN_MAX) into @buf, which has
 * room for FABRIC_CTRL_RECN_LEN(@n) bytes; returns that length.
 */
static inline fq_u32 recn_wire_build(fq_u8 *buf, const struct recn_wire_msg *msg, fq_u32 n)
{
	fq_u32 i;

	buf[0] = FABRIC_CTRL_RECN;
	buf[1] = (fq_u8)n;
	buf[2] = 0;
	buf[3] = 0;
	for (i = 0; i < n; i++) {
		fq_u8 *e = buf + FABRIC_CTRL_RECN_LEN(i);

		e[0] = msg[i].m.kind;
		e[1] = msg[i].vc;
		e[2] = msg[i].m.pt.sl;
		e[3] = msg[i].m.pt.len;
		recn_wire_put_be64(e + 4, msg[i].m.pt.turns);
	}
	return FABRIC_CTRL_RECN_LEN(n);
}

/*
 * Check the @len bytes at @buf and, if they are a valid message, fill
 * @msg (room for FABRIC_CTRL_RECN_MAX) and *@n; else say why.
 */
static inline enum recn_wire_err recn_wire_parse(const fq_u8 *buf, fq_u32 len,
						 struct recn_wire_msg *msg, fq_u32 *n)
{
	fq_u32 i, count;

	if (len < 4 || buf[0] != FABRIC_CTRL_RECN)
		return RECN_WIRE_TYPE;
	count = buf[1];
	if (!count || count > FABRIC_CTRL_RECN_MAX)
		return RECN_WIRE_COUNT;
	if (len != FABRIC_CTRL_RECN_LEN(count))
		return RECN_WIRE_LEN;
	if (buf[2] || buf[3])
		return RECN_WIRE_RESERVED;
	for (i = 0; i < count; i++) {
		const fq_u8 *e = buf + FABRIC_CTRL_RECN_LEN(i);
		struct recn_wire_msg *w = &msg[i];

		if (e[0] < FABRIC_RECN_NOTIFY || e[0] > FABRIC_RECN_FULL)
			return RECN_WIRE_KIND;
		if (e[1] > FABRIC_VC_BESTEFFORT)
			return RECN_WIRE_VC;
		w->m.kind = e[0];
		w->vc = e[1];
		w->m.pt.sl = e[2];
		w->m.pt.len = e[3];
		w->m.pt.turns = recn_wire_get_be64(e + 4);
		if (!recn_point_valid(&w->m.pt))
			return RECN_WIRE_POINT;
	}
	*n = count;
	return RECN_WIRE_OK;
}

/*
 * How many of the @len bytes at @buf (after the fabric header) are the
 * message, for recn_wire_parse(): what its count says, when there are at
 * least that many (the rest is the Ethernet padding of a short frame,
 * never looked at), else all of them (too short: refused).
 */
static inline fq_u32 recn_wire_len(const fq_u8 *buf, fq_u32 len)
{
	fq_u32 want = len >= 2 ? (fq_u32)FABRIC_CTRL_RECN_LEN(buf[1]) : 0;

	if (len >= 2 && buf[1] <= FABRIC_CTRL_RECN_MAX && len > want)
		return want;
	return len;
}

#endif /* FQ_RECN_WIRE_H */
