// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the RECN control message (kernel/core/recn_wire.h): what
 * is built is read back the same, every fault is named, and random bytes
 * are either refused or a message that builds back to the same bytes.
 */
#include "unit.h"
#include "core/recn_wire.h"

/* A random valid message: a point of 1 to 6 digits, its end included. */
static struct recn_wire_msg random_msg(void)
{
	struct recn_wire_msg w = { .vc = (fq_u8)unit_rnd_below(2) };
	fq_u32 i, len = 1 + unit_rnd_below(RECN_POINT_MAX_LEN), ends = unit_rnd_below(len + 1);

	w.m.kind = (fq_u8)(RECN_MSG_NOTIFY + unit_rnd_below(5));
	w.m.pt.sl = (fq_u8)unit_rnd_below(256);
	w.m.pt.len = (fq_u8)len;
	/* digits 1..63 up to @ends, 0 after (a route that ended) */
	for (i = 0; i < len; i++)
		if (i < ends)
			w.m.pt.turns |= (fq_u64)(1 + unit_rnd_below(63)) << (6 * i);
	return w;
}

static bool same(const struct recn_wire_msg *a, const struct recn_wire_msg *b)
{
	return a->vc == b->vc && a->m.kind == b->m.kind && recn_point_eq(&a->m.pt, &b->m.pt);
}

UNIT_TEST(kinds_are_the_wire_kinds)
{
	EXPECT_EQ(RECN_MSG_NOTIFY, FABRIC_RECN_NOTIFY);
	EXPECT_EQ(RECN_MSG_XOFF, FABRIC_RECN_XOFF);
	EXPECT_EQ(RECN_MSG_XON, FABRIC_RECN_XON);
	EXPECT_EQ(RECN_MSG_RELEASE, FABRIC_RECN_RELEASE);
	EXPECT_EQ(RECN_MSG_FULL, FABRIC_RECN_FULL);
}

UNIT_TEST(built_is_read_back_the_same)
{
	struct recn_wire_msg in[FABRIC_CTRL_RECN_MAX], out[FABRIC_CTRL_RECN_MAX];
	fq_u8 buf[FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX)];
	int round, bad = 0;

	for (round = 0; round < 5000; round++) {
		fq_u32 n = 1 + unit_rnd_below(FABRIC_CTRL_RECN_MAX), got = 0, i, len;

		for (i = 0; i < n; i++) {
			in[i] = random_msg();
			ASSERT_TRUE(recn_point_valid(&in[i].m.pt));
		}
		len = recn_wire_build(buf, in, n);
		EXPECT_EQ(len, FABRIC_CTRL_RECN_LEN(n));
		if (recn_wire_parse(buf, len, out, &got) != RECN_WIRE_OK || got != n) {
			bad++;
			continue;
		}
		for (i = 0; i < n; i++)
			bad += !same(&in[i], &out[i]);
	}
	EXPECT_EQ(bad, 0);
}

UNIT_TEST(each_fault_is_named)
{
	struct recn_wire_msg in[2] = { random_msg(), random_msg() }, out[FABRIC_CTRL_RECN_MAX];
	fq_u8 buf[FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX) + 1], b[sizeof(buf)];
	fq_u32 n = 0, len;

	in[1].m.pt = (struct recn_point){ .turns = 5 | 1 << 6, .len = 2, .sl = 3 };
	len = recn_wire_build(buf, in, 2);
#define TRY(edit, want)						\
	do {							\
		fq_u32 l = len;					\
		memcpy(b, buf, sizeof(b));			\
		edit;						\
		EXPECT_EQ(recn_wire_parse(b, l, out, &n), want);	\
	} while (0)
	TRY((void)0, RECN_WIRE_OK);
	TRY(b[0] = FABRIC_CTRL_LINK, RECN_WIRE_TYPE);
	TRY(l = 3, RECN_WIRE_TYPE);
	TRY(b[1] = 0, RECN_WIRE_COUNT);
	TRY(b[1] = FABRIC_CTRL_RECN_MAX + 1, RECN_WIRE_COUNT);
	TRY(l = len - 1, RECN_WIRE_LEN);
	TRY(l = len + 1, RECN_WIRE_LEN);
	TRY(b[1] = 1, RECN_WIRE_LEN);
	TRY(b[2] = 1, RECN_WIRE_RESERVED);
	TRY(b[3] = 0x80, RECN_WIRE_RESERVED);
	TRY(b[16] = 0, RECN_WIRE_KIND);
	TRY(b[16] = FABRIC_RECN_FULL + 1, RECN_WIRE_KIND);
	TRY(b[17] = 2, RECN_WIRE_VC);
	TRY(b[19] = 0, RECN_WIRE_POINT);			/* no digit */
	TRY(b[19] = RECN_POINT_MAX_LEN + 1, RECN_WIRE_POINT);
	TRY(b[19] = 1, RECN_WIRE_POINT);			/* a digit beyond it */
	TRY(b[27] = 0x40, RECN_WIRE_POINT);			/* a digit after the end */
	TRY(b[20] = 0x80, RECN_WIRE_POINT);			/* bits far beyond */
#undef TRY
}

/*
 * Random bytes, and random edits of valid messages: refused, or taken as
 * messages that build back to exactly those bytes (nothing is read from
 * the frame that is not in what it means).
 */
/*
 * Bytes after the messages (the padding of a short Ethernet frame) are
 * not the message: recn_wire_len() leaves them out, and never makes a
 * short frame long enough or a count beyond the most acceptable.
 */
UNIT_TEST(padding_is_left_out)
{
	struct recn_wire_msg m[FABRIC_CTRL_RECN_MAX], out[FABRIC_CTRL_RECN_MAX];
	fq_u8 buf[FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX) + 64] = { 0 };
	fq_u32 len, n;

	m[0] = (struct recn_wire_msg){ { FABRIC_RECN_XOFF, { 3 | 2 << 6, 2, 5 } }, 1 };
	len = recn_wire_build(buf, m, 1);
	EXPECT_EQ(recn_wire_len(buf, len), len);
	/* padded to 46 bytes after the Ethernet header, less the fabric header */
	EXPECT_EQ(recn_wire_len(buf, 26), len);
	EXPECT_EQ(recn_wire_parse(buf, recn_wire_len(buf, 26), out, &n), RECN_WIRE_OK);
	EXPECT_EQ(n, 1);
	/* cut short: all of it, refused */
	EXPECT_EQ(recn_wire_len(buf, len - 1), len - 1);
	EXPECT_EQ(recn_wire_parse(buf, len - 1, out, &n), RECN_WIRE_LEN);
	EXPECT_EQ(recn_wire_len(buf, 1), 1);
	/* a count beyond the most: all of it, refused for the count */
	buf[1] = FABRIC_CTRL_RECN_MAX + 1;
	EXPECT_EQ(recn_wire_len(buf, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(recn_wire_parse(buf, sizeof(buf), out, &n), RECN_WIRE_COUNT);
}

UNIT_TEST(random_bytes_are_refused_or_exact)
{
	struct recn_wire_msg in[FABRIC_CTRL_RECN_MAX], out[FABRIC_CTRL_RECN_MAX];
	fq_u8 buf[FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX)], back[sizeof(buf)];
	int round, taken = 0, inexact = 0;

	for (round = 0; round < 200000; round++) {
		fq_u32 len, n = 0, i, k;

		if (round % 2) {
			len = unit_rnd_below(sizeof(buf) + 1);
			for (i = 0; i < len; i++)
				buf[i] = (fq_u8)unit_rnd_below(256);
			if (len > 1 && unit_rnd_below(2)) {
				buf[0] = FABRIC_CTRL_RECN;	/* get further in */
				buf[1] = (fq_u8)(1 + unit_rnd_below(FABRIC_CTRL_RECN_MAX));
			}
		} else {
			n = 1 + unit_rnd_below(4);
			for (i = 0; i < n; i++)
				in[i] = random_msg();
			len = recn_wire_build(buf, in, n);
			for (k = unit_rnd_below(3); k; k--)
				buf[unit_rnd_below(len)] ^= (fq_u8)(1 << unit_rnd_below(8));
		}
		if (recn_wire_parse(buf, len, out, &n) != RECN_WIRE_OK)
			continue;
		taken++;
		if (recn_wire_build(back, out, n) != len || memcmp(back, buf, len))
			inexact++;
		for (i = 0; i < n; i++)
			inexact += !recn_point_valid(&out[i].m.pt);
	}
	EXPECT_EQ(inexact, 0);
	EXPECT_TRUE(taken > 1000);
}

int main(void)
{
	return unit_run();
}
