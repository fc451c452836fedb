// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: what a host on the link can put in a frame, as the
 * receive paths check it (kernel/core/fabric_hdr_core.h,
 * kernel/core/recn_wire.h).  The input's first bytes pick the check and
 * its numbers, the rest to the input's end is the frame from the fabric
 * header (or the control message) on.  Only the bytes the caller says
 * are readable may be read (AddressSanitizer sees to that: libFuzzer's
 * buffer ends there), and what is taken must say back exactly what was
 * on the wire.
 */
#include "fuzz.h"

#include "core/fabric_hdr_core.h"
#include "core/recn_wire.h"

/* fhc_validate(), then what a valid header decodes to. */
static void fuzz_fabric_header(struct fuzz_in *in)
{
	fq_u32 extra = fuzz_u16(in);	/* frame bytes past what is readable */
	fq_u32 index = fuzz_u8(in);
	bool last = fuzz_u8(in) & 1;
	size_t avail;
	const uint8_t *hdr = fuzz_rest(in, &avail);
	fq_u32 len = (fq_u32)avail + extra;
	struct fhc_fields f, g;
	uint8_t again[FABRIC_HDR_LEN];
	int hops;

	if (fhc_validate(hdr, (fq_u32)avail, len) != FHC_OK)
		return;
	FUZZ_CHECK(avail >= FABRIC_HDR_LEN && len >= FABRIC_HDR_LEN);
	fhc_decode(hdr, &f);
	FUZZ_CHECK(f.version == FABRIC_HDR_VERSION);
	FUZZ_CHECK(fhc_inner_probe_len(f.inner_proto) != 0);
	fhc_encode(again, &f);
	FUZZ_CHECK(!memcmp(again, hdr, FABRIC_HDR_LEN));

	/* a route a switch would follow: its digits, then nothing */
	hops = fhc_route_hops(f.route);
	if (hops > 0) {
		unsigned int ports[FHC_ROUTE_HOPS];
		fq_u32 r = f.route, built;
		int i;

		FUZZ_CHECK(hops <= FHC_ROUTE_HOPS);
		for (i = 0; i < hops; i++) {
			int p = fhc_route_port(r);

			FUZZ_CHECK(p >= 0 && p <= FHC_ROUTE_MAX_PORT);
			ports[i] = (unsigned int)p;
			r = fhc_route_next(r);
		}
		FUZZ_CHECK(fhc_route_port(r) == -1);
		FUZZ_CHECK(fhc_route_build(ports, (unsigned int)hops, &built));
		FUZZ_CHECK(built == f.route);
	} else {
		FUZZ_CHECK(hops == -1);
	}

	/* a segment of it says what that wire frame is, the rest kept */
	fhc_segment_hdr(again, index, last);
	fhc_decode(again, &g);
	FUZZ_CHECK(g.seq == f.seq + index);
	FUZZ_CHECK(g.head == (f.head && !index));
	FUZZ_CHECK(g.tail == (f.tail && last));
	FUZZ_CHECK(g.version == f.version && g.vc == f.vc && g.sl == f.sl &&
		   g.inner_proto == f.inner_proto && g.ttd_ns == f.ttd_ns &&
		   g.flow_id == f.flow_id && g.route == f.route);
}

/* recn_wire_len() and recn_wire_parse() as the receive path calls them */
static void fuzz_recn_message(struct fuzz_in *in)
{
	struct recn_wire_msg msg[FABRIC_CTRL_RECN_MAX];
	uint8_t again[FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX)];
	size_t avail;
	const uint8_t *buf = fuzz_rest(in, &avail);
	fq_u32 len = recn_wire_len(buf, (fq_u32)avail), n = 0, i;

	FUZZ_CHECK(len <= avail);
	if (recn_wire_parse(buf, len, msg, &n) != RECN_WIRE_OK)
		return;
	FUZZ_CHECK(n >= 1 && n <= FABRIC_CTRL_RECN_MAX);
	for (i = 0; i < n; i++)
		FUZZ_CHECK(recn_point_valid(&msg[i].m.pt));
	FUZZ_CHECK(recn_wire_build(again, msg, n) == len);
	FUZZ_CHECK(!memcmp(again, buf, len));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };

	switch (fuzz_u8(&in) % 2) {
	case 0:
		fuzz_fabric_header(&in);
		break;
	default:
		fuzz_recn_message(&in);
		break;
	}
	return 0;
}
