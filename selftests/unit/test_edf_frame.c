// SPDX-License-Identifier: GPL-2.0
/* Unit tests of edf_frame.h: frame deadlines computed by the application. */
#include <netinet/in.h>
#include <netinet/udp.h>
#include <unistd.h>

#include "unit.h"
#include "edf_frame.h"

#define MS	1000000ULL

UNIT_TEST(ten_parts_spread_over_the_latency)
{
	struct edf_frame_clock clk = { 0 };
	fq_u64 t = 5000 * MS, d;
	fq_u32 i;

	/* sent back to back, each call a little later than the previous */
	for (i = 0; i < 10; i++) {
		d = edf_frame_next_deadline(&clk, t + i * 1000, 10 * MS, 10);
		EXPECT_EQ(d, t + (i + 1) * MS);
	}
	EXPECT_EQ(clk.last_deadline, t + 10 * MS);
}

UNIT_TEST(next_frame_continues_from_deadlines_still_ahead)
{
	struct edf_frame_clock clk = { 0 };
	fq_u64 t = 5000 * MS, d = 0;
	fq_u32 i;

	for (i = 0; i < 10; i++)
		edf_frame_next_deadline(&clk, t, 10 * MS, 10);
	/* the next frame starts at t + 4 ms, its parts follow t + 10 ms */
	for (i = 0; i < 10; i++) {
		d = edf_frame_next_deadline(&clk, t + 4 * MS, 10 * MS, 10);
		EXPECT_EQ(d, t + (11 + i) * MS);
	}
	/* one that starts after the last deadline starts from now */
	d = edf_frame_next_deadline(&clk, t + 30 * MS, 10 * MS, 5);
	EXPECT_EQ(d, t + 32 * MS);
}

UNIT_TEST(same_formula_as_the_qdisc)
{
	struct edf_frame_clock clk = { .last_deadline = 7 };
	fq_u64 prev = 7, now;
	fq_u32 parts;

	/* uneven latency / parts, parts 0 (taken as 1), a clock behind now */
	for (parts = 0, now = 3; parts < 40; parts++, now += parts * 997) {
		prev = edf_frame_deadline(prev, now, 10000003, parts);
		EXPECT_EQ(edf_frame_next_deadline(&clk, now, 10000003, parts), prev);
	}
	/* near the end of time deadlines saturate rather than wrap */
	clk.last_deadline = EDF_TIME_MAX - 1;
	EXPECT_TRUE(edf_frame_next_deadline(&clk, 0, 10 * MS, 1) == EDF_TIME_MAX);
}

UNIT_TEST(txtime_cmsg_after_another_message)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t)) + EDF_TXTIME_CMSG_SPACE];
		struct cmsghdr align;
	} ctrl;
	struct msghdr msg = { .msg_control = ctrl.buf };
	uint64_t t = 0x0123456789abcdefULL, got;
	uint16_t gso = 1000;
	struct cmsghdr *cm;

	memset(&ctrl, 0xaa, sizeof(ctrl));

	/* alone */
	edf_txtime_cmsg_append(&msg, t);
	EXPECT_EQ(msg.msg_controllen, EDF_TXTIME_CMSG_SPACE);
	cm = CMSG_FIRSTHDR(&msg);
	ASSERT_TRUE(cm != NULL);
	EXPECT_EQ(cm->cmsg_level, SOL_SOCKET);
	EXPECT_EQ(cm->cmsg_type, SCM_TXTIME);
	EXPECT_EQ(cm->cmsg_len, CMSG_LEN(sizeof(uint64_t)));
	memcpy(&got, CMSG_DATA(cm), sizeof(got));
	EXPECT_TRUE(got == t);
	EXPECT_TRUE(CMSG_NXTHDR(&msg, cm) == NULL);

	/* after a UDP_SEGMENT message */
	msg.msg_controllen = 0;
	cm = (struct cmsghdr *)ctrl.buf;
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(gso));
	memcpy(CMSG_DATA(cm), &gso, sizeof(gso));
	msg.msg_controllen = CMSG_SPACE(sizeof(gso));
	edf_txtime_cmsg_append(&msg, t + 1);
	EXPECT_EQ(msg.msg_controllen, sizeof(ctrl.buf));
	cm = CMSG_FIRSTHDR(&msg);
	ASSERT_TRUE(cm != NULL);
	EXPECT_EQ(cm->cmsg_type, UDP_SEGMENT);
	cm = CMSG_NXTHDR(&msg, cm);
	ASSERT_TRUE(cm != NULL);
	EXPECT_EQ(cm->cmsg_level, SOL_SOCKET);
	EXPECT_EQ(cm->cmsg_type, SCM_TXTIME);
	memcpy(&got, CMSG_DATA(cm), sizeof(got));
	EXPECT_TRUE(got == t + 1);
	EXPECT_TRUE(CMSG_NXTHDR(&msg, cm) == NULL);
}

/* A socket of our own: enabling SO_TXTIME changes nothing on the host. */
UNIT_TEST(txtime_enable_sets_monotonic_clock)
{
	struct sock_txtime cfg = { .clockid = -1, .flags = ~0U };
	socklen_t len = sizeof(cfg);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ASSERT_TRUE(fd >= 0);
	EXPECT_EQ(edf_txtime_enable(fd), 0);
	EXPECT_EQ(getsockopt(fd, SOL_SOCKET, SO_TXTIME, &cfg, &len), 0);
	EXPECT_EQ(len, sizeof(cfg));
	EXPECT_EQ(cfg.clockid, CLOCK_MONOTONIC);
	EXPECT_EQ(cfg.flags, 0);
	close(fd);
}

int main(void)
{
	return unit_run();
}
