// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the fabric header core: wire layout, round trips, validation. */
#include "unit.h"
#include "core/fabric_hdr_core.h"

static void make_ipv4(fq_u8 *p, fq_u16 tot_len)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	fhc_put_be16(p + 2, tot_len);
	p[8] = 64;
	p[9] = 17;
}

/* A frame body: fabric header then an IPv4 packet of ip_len bytes. */
static fq_u32 make_frame(fq_u8 *buf, fq_u16 inner, fq_u16 ip_len)
{
	struct fhc_fields f = {
		.version = FABRIC_HDR_VERSION, .vc = 0, .sl = 3,
		.inner_proto = inner, .ttd_ns = 1000,
	};

	fhc_encode(buf, &f);
	make_ipv4(buf + FABRIC_HDR_LEN, ip_len);
	return FABRIC_HDR_LEN + ip_len;
}

UNIT_TEST(wire_layout_matches_documentation)
{
	struct fhc_fields f = {
		.version = 1, .vc = 1, .head = true, .tail = false, .sl = 0xab,
		.inner_proto = 0x0800, .ttd_ns = -2, .flow_id = 0x01020304,
		.seq = 0x05060708, .route = 0x090a0b0c,
	};
	const fq_u8 want[FABRIC_HDR_LEN] = {
		0x16, 0xab, 0x08, 0x00, 0xff, 0xff, 0xff, 0xfe,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x09, 0x0a, 0x0b, 0x0c,
	};
	fq_u8 buf[FABRIC_HDR_LEN];

	EXPECT_EQ(sizeof(struct fabric_hdr), FABRIC_HDR_LEN);
	fhc_encode(buf, &f);
	EXPECT_MEM_EQ(buf, want, sizeof(want));
}

UNIT_TEST(encode_decode_round_trip)
{
	struct fhc_fields in = {
		.version = 1, .vc = 3, .head = false, .tail = true, .sl = 7,
		.inner_proto = 0x86dd, .ttd_ns = -2147483647 - 1,
		.flow_id = 0xffffffff, .seq = 42, .route = 0,
	}, out;
	fq_u8 buf[FABRIC_HDR_LEN];

	fhc_encode(buf, &in);
	fhc_decode(buf, &out);
	EXPECT_EQ(out.version, in.version);
	EXPECT_EQ(out.vc, in.vc);
	EXPECT_EQ(out.head, in.head);
	EXPECT_EQ(out.tail, in.tail);
	EXPECT_EQ(out.sl, in.sl);
	EXPECT_EQ(out.inner_proto, in.inner_proto);
	EXPECT_EQ(out.ttd_ns, in.ttd_ns);
	EXPECT_EQ(out.flow_id, in.flow_id);
	EXPECT_EQ(out.seq, in.seq);
	EXPECT_EQ(out.route, in.route);
}

UNIT_TEST(ttd_rewrite_touches_only_ttd)
{
	fq_u8 buf[64], before[64];

	make_frame(buf, FHC_ETH_P_IP, 28);
	memcpy(before, buf, sizeof(buf));
	fhc_set_ttd(buf, -5000000);
	EXPECT_EQ((fq_s32)fhc_get_be32(buf + FHC_TTD_OFFSET), -5000000);
	EXPECT_MEM_EQ(buf, before, FHC_TTD_OFFSET);
	EXPECT_MEM_EQ(buf + 8, before + 8, sizeof(buf) - 8);
}

/*
 * A GSO frame's header copied into its segments: every split of every
 * flag combination, with the sequence wrapping, decodes as the frames
 * segmenting at the sender would have carried.
 */
UNIT_TEST(segment_headers_number_and_flag_the_frames)
{
	static const fq_u32 seqs[] = { 0, 7, 0xfffffff0u, 0xffffffffu };
	unsigned int s, flags, n, i;

	for (s = 0; s < sizeof(seqs) / sizeof(seqs[0]); s++)
	for (flags = 0; flags < 4; flags++)
	for (n = 1; n <= 64; n++)
	for (i = 0; i < n; i++) {
		struct fhc_fields whole = {
			.version = 1, .vc = 1, .head = flags & 1, .tail = flags & 2,
			.sl = 9, .inner_proto = 0x86DD, .ttd_ns = -123456,
			.flow_id = 0xdeadbeef, .seq = seqs[s], .route = 0x80000043,
		}, got, want;
		fq_u8 buf[FABRIC_HDR_LEN];

		fhc_encode(buf, &whole);
		fhc_segment_hdr(buf, i, i == n - 1);
		fhc_decode(buf, &got);
		want = whole;
		want.seq = seqs[s] + i;
		want.head = whole.head && i == 0;
		want.tail = whole.tail && i == n - 1;
		EXPECT_EQ(got.version, want.version);
		EXPECT_EQ(got.vc, want.vc);
		EXPECT_EQ(got.head, want.head);
		EXPECT_EQ(got.tail, want.tail);
		EXPECT_EQ(got.sl, want.sl);
		EXPECT_EQ(got.inner_proto, want.inner_proto);
		EXPECT_EQ(got.ttd_ns, want.ttd_ns);
		EXPECT_EQ(got.flow_id, want.flow_id);
		EXPECT_EQ(got.seq, want.seq);
		EXPECT_EQ(got.route, want.route);
	}
}

UNIT_TEST(ttd_clamps_to_32_bits)
{
	EXPECT_EQ(fhc_clamp_ttd(0), 0);
	EXPECT_EQ(fhc_clamp_ttd(-1), -1);
	EXPECT_EQ(fhc_clamp_ttd(0x7fffffffLL), 0x7fffffff);
	EXPECT_EQ(fhc_clamp_ttd(0x80000000LL), 0x7fffffff);
	EXPECT_EQ(fhc_clamp_ttd(-0x80000000LL), -0x80000000LL);
	EXPECT_EQ(fhc_clamp_ttd(-0x80000001LL), -0x80000000LL);
	EXPECT_EQ(fhc_clamp_ttd(10000000000LL), 0x7fffffff);
}

UNIT_TEST(valid_ipv4_frame_passes)
{
	fq_u8 buf[128];
	fq_u32 len = make_frame(buf, FHC_ETH_P_IP, 28);

	EXPECT_EQ(fhc_validate(buf, len, len), FHC_OK);
	/* Ethernet padding after the inner packet is fine */
	EXPECT_EQ(fhc_validate(buf, len, len + 12), FHC_OK);
}

UNIT_TEST(short_frames_are_refused)
{
	fq_u8 buf[128];
	fq_u32 len = make_frame(buf, FHC_ETH_P_IP, 28);

	EXPECT_EQ(fhc_validate(buf, 0, 0), FHC_SHORT);
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN - 1, FABRIC_HDR_LEN - 1), FHC_SHORT);
	/* header there but not readable in one piece */
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN - 1, len), FHC_SHORT);
}

UNIT_TEST(unknown_version_is_refused)
{
	fq_u8 buf[128];
	fq_u32 len = make_frame(buf, FHC_ETH_P_IP, 28);

	buf[0] = (fq_u8)((buf[0] & 0x0f) | 2 << 4);
	EXPECT_EQ(fhc_validate(buf, len, len), FHC_BAD_VERSION);
	buf[0] &= 0x0f;
	EXPECT_EQ(fhc_validate(buf, len, len), FHC_BAD_VERSION);
}

UNIT_TEST(inner_types)
{
	fq_u8 buf[128];
	fq_u32 len = make_frame(buf, 0x1234, 28);

	EXPECT_EQ(fhc_validate(buf, len, len), FHC_BAD_INNER_TYPE);
	/* a fabric header inside a fabric header is not carried */
	len = make_frame(buf, ETH_P_FABRIC, 28);
	EXPECT_EQ(fhc_validate(buf, len, len), FHC_BAD_INNER_TYPE);
}

UNIT_TEST(truncated_ipv4_is_refused)
{
	fq_u8 buf[256];
	fq_u32 len = make_frame(buf, FHC_ETH_P_IP, 128);

	/* IPv4 total length beyond what arrived */
	EXPECT_EQ(fhc_validate(buf, len, len - 1), FHC_TRUNCATED);
	/* less than an IPv4 header */
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN + 10, FABRIC_HDR_LEN + 10), FHC_TRUNCATED);
	/* an IHL below 5 words is no IPv4 header */
	buf[FABRIC_HDR_LEN] = 0x44;
	EXPECT_EQ(fhc_validate(buf, len, len), FHC_TRUNCATED);
	/* total length shorter than the header it declares */
	make_frame(buf, FHC_ETH_P_IP, 128);
	fhc_put_be16(buf + FABRIC_HDR_LEN + 2, 12);
	EXPECT_EQ(fhc_validate(buf, len, len), FHC_TRUNCATED);
}

UNIT_TEST(ipv6_and_arp_lengths)
{
	fq_u8 buf[256] = { 0 };
	struct fhc_fields f = { .version = 1, .inner_proto = FHC_ETH_P_IPV6 };
	fq_u8 *in = buf + FABRIC_HDR_LEN;

	fhc_encode(buf, &f);
	in[0] = 0x60;
	fhc_put_be16(in + 4, 8);	/* 8 bytes of payload */
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN + 48, FABRIC_HDR_LEN + 48), FHC_OK);
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN + 48, FABRIC_HDR_LEN + 47), FHC_TRUNCATED);
	in[0] = 0x40;			/* says IPv6, is not */
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN + 48, FABRIC_HDR_LEN + 48), FHC_TRUNCATED);

	f.inner_proto = FHC_ETH_P_ARP;
	fhc_encode(buf, &f);
	memset(in, 0, 64);
	in[4] = 6;			/* Ethernet addresses */
	in[5] = 4;			/* IPv4 addresses */
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN + 28, FABRIC_HDR_LEN + 28), FHC_OK);
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN + 27, FABRIC_HDR_LEN + 27), FHC_TRUNCATED);

	/* an FBS bootstrap message: its 12 bytes at least, whatever they say */
	f.inner_proto = FABRIC_INNER_FBS_BOOT;
	fhc_encode(buf, &f);
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN + 12, FABRIC_HDR_LEN + 12), FHC_OK);
	/* Ethernet padding after it */
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN + 46, FABRIC_HDR_LEN + 46), FHC_OK);
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN + 11, FABRIC_HDR_LEN + 11), FHC_TRUNCATED);
	EXPECT_EQ(fhc_validate(buf, FABRIC_HDR_LEN + 11, FABRIC_HDR_LEN + 46), FHC_TRUNCATED);
}

UNIT_TEST(lateness_buckets)
{
	EXPECT_EQ(fhc_late_bucket(1), 0);
	EXPECT_EQ(fhc_late_bucket(999), 0);
	EXPECT_EQ(fhc_late_bucket(1000), 1);
	EXPECT_EQ(fhc_late_bucket(1999), 1);
	EXPECT_EQ(fhc_late_bucket(2000), 2);
	EXPECT_EQ(fhc_late_bucket(3999), 2);
	EXPECT_EQ(fhc_late_bucket(4000), 3);
	EXPECT_EQ(fhc_late_bucket(5000000), 13);	/* 5 ms in [4096, 8192) us */
	EXPECT_EQ(fhc_late_bucket(16383999), 14);
	EXPECT_EQ(fhc_late_bucket(16384000), 15);
	EXPECT_EQ(fhc_late_bucket(~0ULL), FABRIC_LATE_BUCKETS - 1);
}

/*
 * The hops of a route a host may send: every route fhc_route_build()
 * makes, at each length; none without the mark, with the reserved bit,
 * without a digit, or with a digit past a used-up one.
 */
UNIT_TEST(route_hops_counts_what_switches_follow)
{
	unsigned int ports[FHC_ROUTE_HOPS], n, i, k;
	fq_u32 route;

	for (k = 0; k < 2000; k++) {
		n = 1 + k % FHC_ROUTE_HOPS;
		for (i = 0; i < n; i++)
			ports[i] = (k * 7 + i * 13) % (FHC_ROUTE_MAX_PORT + 1);
		ASSERT_TRUE(fhc_route_build(ports, n, &route));
		EXPECT_EQ(fhc_route_hops(route), n);
		EXPECT_EQ(fhc_route_hops(route & ~FHC_ROUTE_ON), -1);
		EXPECT_EQ(fhc_route_hops(route | FHC_ROUTE_RESERVED), -1);
	}
	EXPECT_EQ(fhc_route_hops(0), -1);
	EXPECT_EQ(fhc_route_hops(FHC_ROUTE_ON), -1);
	/* digit 0 then 3: the switch would drop it at the first hop */
	EXPECT_EQ(fhc_route_hops(FHC_ROUTE_ON | 3u << FHC_ROUTE_DIGIT_BITS), -1);
	/* ports 2 then 0 then a gap then 5 */
	EXPECT_EQ(fhc_route_hops(FHC_ROUTE_ON | 3 | 1u << 6 | 6u << 18), -1);
	EXPECT_EQ(fhc_route_hops(FHC_ROUTE_ON | 3 | 1u << 6 | 6u << 12), 3);
	EXPECT_EQ(fhc_route_hops(FHC_ROUTE_ON | FHC_ROUTE_DIGITS), FHC_ROUTE_HOPS);
}

/* A route as each switch on it reads it: the ports in order, then none. */
UNIT_TEST(route_turnpool_round_trips_hop_by_hop)
{
	unsigned int ports[FHC_ROUTE_HOPS], n, i, trial;
	fq_u32 route, r;

	/* every length, ports at the extremes and at random */
	for (trial = 0; trial < 20000; trial++) {
		n = trial % (FHC_ROUTE_HOPS + 1);
		for (i = 0; i < n; i++) {
			ports[i] = (trial * 2654435761u >> (i * 5)) % 63;
			if (trial % 7 == 0)
				ports[i] = i % 2 ? FHC_ROUTE_MAX_PORT : 0;
		}
		ASSERT_TRUE(fhc_route_build(ports, n, &route));
		EXPECT_TRUE(route & FHC_ROUTE_ON);
		r = route;
		for (i = 0; i < n; i++) {
			EXPECT_EQ(fhc_route_port(r), ports[i]);
			r = fhc_route_next(r);
		}
		/* used up: still a route, naming no port, however far it goes */
		for (i = 0; i < 8; i++) {
			EXPECT_EQ(r, FHC_ROUTE_ON);
			EXPECT_EQ(fhc_route_port(r), -1);
			r = fhc_route_next(r);
		}
	}
	/* what cannot be said */
	ports[0] = 63;
	EXPECT_TRUE(!fhc_route_build(ports, 1, &route));
	for (i = 0; i < FHC_ROUTE_HOPS; i++)
		ports[i] = 1;
	EXPECT_TRUE(fhc_route_build(ports, FHC_ROUTE_HOPS, &route));
	EXPECT_TRUE(!fhc_route_build(ports, FHC_ROUTE_HOPS + 1, &route));
	/* on the wire: port 2, then port 0, then the host */
	ports[0] = 2;
	ports[1] = 0;
	ASSERT_TRUE(fhc_route_build(ports, 2, &route));
	EXPECT_EQ(route, 0x80000043);
	/* what names no port: unmarked, the reserved bit, a digit 0 */
	EXPECT_EQ(fhc_route_port(0x43), -1);
	EXPECT_EQ(fhc_route_port(0xc0000043), -1);
	EXPECT_EQ(fhc_route_port(0x80000040), -1);
	EXPECT_EQ(fhc_route_port(0x80000041), 0);
}

int main(void)
{
	return unit_run();
}
