// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of per-VC credit flow control (kernel/core/fabric_credit.h):
 * message encoding and refusals on hand-made cases, then two ends
 * exchanging traffic both ways over a simulated link for hundreds of
 * thousands of microseconds: data frames lost, control messages lost
 * (some of the time all of them), frames reordered within a window, an
 * end restarting.  What must hold: no receiver ever gets more than its
 * buffer holds (no violation), every lost unit is found again, and once
 * the traffic stops and the link goes quiet each sender has exactly the
 * peer's whole buffer to send into, nothing leaked and nothing invented.
 */
#include "unit.h"
#include "core/fabric_credit.h"

#define MSG_LEN		(FABRIC_HDR_LEN + FABRIC_CTRL_LINK_LEN)
#define UNIT		64
#define BUFFER		128		/* units: the paper's 8 KB per VC */
#define QUIET_NS	1000000ULL	/* 1 ms */

/* true with probability @permille / 1000 */
static bool chance(unsigned int permille)
{
	return unit_rnd() % 1000 < permille;
}

UNIT_TEST(units_round_up)
{
	struct fcr_link l;

	fcr_init(&l, 7, UNIT, BUFFER, QUIET_NS);
	EXPECT_EQ(fcr_units(&l, 0), 0);
	EXPECT_EQ(fcr_units(&l, 1), 1);
	EXPECT_EQ(fcr_units(&l, 64), 1);
	EXPECT_EQ(fcr_units(&l, 65), 2);
	EXPECT_EQ(fcr_units(&l, 1514), 24);
	fcr_init(&l, 0, 0, BUFFER, QUIET_NS);
	EXPECT_EQ(l.epoch, 1);
	EXPECT_EQ(fcr_units(&l, 1514), 1514);
}

UNIT_TEST(nothing_sent_before_a_grant_for_our_epoch)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN];
	unsigned int r;

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, BUFFER, QUIET_NS);
	EXPECT_TRUE(!fcr_tx_may_send(&a, 0, 64));
	/* b speaks first: it has not heard of a, so its grant is not for a */
	fcr_msg_build(&b, m, 0);
	EXPECT_TRUE(fcr_is_ctrl(m, sizeof(m)));
	r = fcr_msg_receive(&a, m, sizeof(m), 0);
	EXPECT_EQ(r, FCR_REPLY_NOW);
	EXPECT_EQ(fcr_tx_credits(&a, 0), 0);
	/* a answers; b now echoes a's epoch and a may fill b's buffer */
	fcr_msg_build(&a, m, 0);
	r = fcr_msg_receive(&b, m, sizeof(m), 0);
	EXPECT_TRUE(r & FCR_REPLY_NOW);
	fcr_msg_build(&b, m, 0);
	r = fcr_msg_receive(&a, m, sizeof(m), 0);
	/* the first grant, with the first word of b's buffer */
	EXPECT_EQ(r, FCR_CREDITS_GREW | FCR_BUFFER_SAID);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER);
	EXPECT_EQ(fcr_tx_credits(&a, 1), BUFFER);
	EXPECT_TRUE(fcr_tx_may_send(&a, 0, BUFFER * UNIT));
	EXPECT_TRUE(!fcr_tx_may_send(&a, 0, BUFFER * UNIT + 1));
}

/* Bring @a and @b to the state where each has the other's grant. */
static void handshake(struct fcr_link *a, struct fcr_link *b)
{
	fq_u8 m[MSG_LEN];

	fcr_msg_build(a, m, 0);
	fcr_msg_receive(b, m, sizeof(m), 0);
	fcr_msg_build(b, m, 0);
	fcr_msg_receive(a, m, sizeof(m), 0);
	fcr_msg_build(a, m, 0);
	fcr_msg_receive(b, m, sizeof(m), 0);
}

/*
 * The room an FBS slot's end waits for: a largest frame, or the peer's
 * whole buffer when that is smaller (a frame above it never fits: waiting
 * for its room once waited for good).  Each message says the sender's
 * buffer per VC, so the cap follows a buffer resized in place and is the
 * buffer itself however much of it our frames hold.
 */
UNIT_TEST(room_capped_at_the_peers_buffer)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN];

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, 24, QUIET_NS);	/* 1536 bytes */
	EXPECT_TRUE(!fcr_tx_room_capped(&a, 0, 2100));	/* nothing granted */
	handshake(&a, &b);
	EXPECT_EQ(a.tx[0].peer_buffer, 24);
	EXPECT_EQ(b.tx[0].peer_buffer, BUFFER);
	EXPECT_TRUE(!fcr_tx_may_send(&a, 0, 2100));
	EXPECT_TRUE(fcr_tx_room_capped(&a, 0, 2100));
	EXPECT_TRUE(fcr_tx_room_capped(&a, 0, 1000));
	/* a frame of 17 units in b's buffer: no room until it leaves */
	fcr_tx_sent(&a, 0, 1062, 100);
	EXPECT_TRUE(fcr_rx_arrive(&b, 0, 1062, 100));
	EXPECT_TRUE(!fcr_tx_room_capped(&a, 0, 2100));
	EXPECT_TRUE(fcr_tx_room_capped(&a, 0, 400));	/* 7 units: 448 bytes */
	fcr_rx_free(&b, 0, 1062);
	fcr_msg_build(&b, m, 200);
	fcr_msg_receive(&a, m, sizeof(m), 200);
	EXPECT_EQ(fcr_tx_credits(&a, 0), 24);
	EXPECT_TRUE(fcr_tx_room_capped(&a, 0, 2100));
	/* b's buffer shrinks in place to 16 units: the cap follows, down,
	 * and a wait for room may be over though no credit came back */
	fcr_rx_set_buffer(&b, 0, 16);
	fcr_msg_build(&b, m, 300);
	EXPECT_TRUE(fcr_msg_receive(&a, m, sizeof(m), 300) & FCR_BUFFER_SAID);
	EXPECT_EQ(a.tx[0].peer_buffer, 16);
	EXPECT_EQ(fcr_tx_credits(&a, 0), 16);
	EXPECT_TRUE(fcr_tx_room_capped(&a, 0, 2100));
	/* b starts again, our frame still in it: the cap is the buffer */
	fcr_init(&b, 44, UNIT, 40, QUIET_NS);
	fcr_init(&a, 55, UNIT, BUFFER, QUIET_NS);
	handshake(&a, &b);
	fcr_tx_sent(&a, 0, 1062, 100);		/* 17 units */
	EXPECT_TRUE(fcr_rx_arrive(&b, 0, 1062, 100));
	fcr_restart(&b, 66, UNIT, 40, QUIET_NS);
	fcr_msg_build(&b, m, 300);
	fcr_msg_receive(&a, m, sizeof(m), 300);
	fcr_msg_build(&a, m, 300);
	fcr_msg_receive(&b, m, sizeof(m), 300);
	fcr_msg_build(&b, m, 300);
	fcr_msg_receive(&a, m, sizeof(m), 300);
	EXPECT_EQ(a.tx[0].peer_buffer, 40);
	/* a frame of 33 units fits the buffer of 40: its own room, as ever */
	fcr_tx_sent(&a, 0, 2100, 400);
	EXPECT_TRUE(!fcr_tx_room_capped(&a, 0, 2100));
	/* a peer that says no buffer (built before it): no cap */
	fcr_init(&b, 77, UNIT, 24, QUIET_NS);
	fcr_init(&a, 88, UNIT, BUFFER, QUIET_NS);
	handshake(&a, &b);
	fcr_msg_build(&b, m, 0);
	m[FABRIC_HDR_LEN + FCR_VC_OFF(0) + 9] = 0;
	m[FABRIC_HDR_LEN + FCR_VC_OFF(0) + 10] = 0;
	m[FABRIC_HDR_LEN + FCR_VC_OFF(0) + 11] = 0;
	fcr_msg_receive(&a, m, sizeof(m), 0);
	EXPECT_EQ(a.tx[0].peer_buffer, 0);
	EXPECT_TRUE(!fcr_tx_room_capped(&a, 0, 2100));
	EXPECT_TRUE(fcr_tx_room_capped(&a, 0, 1536));
}

/*
 * A frame above the whole buffer the peer states can never be granted:
 * the senders drop it (fabric_link_take(), vcsw_slave_next()) rather
 * than wait for good.  Not before the peer said its buffer, and not a
 * frame that fills the buffer exactly.
 */
UNIT_TEST(too_big_for_the_peers_buffer)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN];

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, 24, QUIET_NS);	/* 1536 bytes */
	EXPECT_TRUE(!fcr_tx_too_big(&a, 0, 2100));	/* not said yet */
	handshake(&a, &b);
	EXPECT_TRUE(fcr_tx_too_big(&a, 0, 2100));
	EXPECT_TRUE(fcr_tx_too_big(&a, 1, 1537));
	EXPECT_TRUE(!fcr_tx_too_big(&a, 0, 1536));
	EXPECT_TRUE(fcr_tx_may_send(&a, 0, 1536));
	/* the buffer grows in place: the frame fits now */
	fcr_rx_set_buffer(&b, 0, 40);
	fcr_msg_build(&b, m, 100);
	fcr_msg_receive(&a, m, sizeof(m), 100);
	EXPECT_TRUE(!fcr_tx_too_big(&a, 0, 2100));
	EXPECT_TRUE(fcr_tx_too_big(&a, 1, 2100));
	/*
	 * b starts again with 40 units on VC1: until it grants for our
	 * epoch, the 24 it stated before are not taken for its buffer (a
	 * frame they would refuse is not dropped, it waits)
	 */
	fcr_restart(&b, 33, UNIT, 40, QUIET_NS);
	fcr_msg_build(&b, m, 200);
	fcr_msg_receive(&a, m, sizeof(m), 200);
	EXPECT_TRUE(!fcr_tx_too_big(&a, 1, 2100));
	fcr_msg_build(&a, m, 200);
	fcr_msg_receive(&b, m, sizeof(m), 200);
	fcr_msg_build(&b, m, 200);
	fcr_msg_receive(&a, m, sizeof(m), 200);
	EXPECT_EQ(a.tx[1].peer_buffer, 40);
	EXPECT_TRUE(!fcr_tx_too_big(&a, 1, 2100));
	EXPECT_TRUE(fcr_tx_too_big(&a, 1, 2700));
}

UNIT_TEST(grant_follows_the_buffer)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN];
	int i;

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, BUFFER, QUIET_NS);
	handshake(&a, &b);
	/* fill b's VC1 with 1000-byte frames (16 units each): 8 fit */
	for (i = 0; fcr_tx_may_send(&a, 1, 1000); i++) {
		fcr_tx_sent(&a, 1, 1000, 100);
		EXPECT_TRUE(fcr_rx_arrive(&b, 1, 1000, 0));
	}
	EXPECT_EQ(i, 8);
	EXPECT_EQ(fcr_tx_credits(&a, 1), 0);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER);
	/* a ninth, from a sender that ignores credits, is refused */
	EXPECT_TRUE(!fcr_rx_arrive(&b, 1, 1000, 0));
	EXPECT_EQ(b.st.vc[1].violations, 1);
	EXPECT_EQ(b.rx[1].held, 128);
	/* three leave b's buffer: a hears of 48 units (and the refused 16) */
	for (i = 0; i < 3; i++)
		fcr_rx_free(&b, 1, 1000);
	fcr_msg_build(&b, m, 200);
	EXPECT_EQ(fcr_msg_receive(&a, m, sizeof(m), 0), FCR_CREDITS_GREW);
	/* the ninth counted as sent at a would not: a's books say 48 */
	EXPECT_EQ(fcr_tx_credits(&a, 1), 48 + 16);
}

UNIT_TEST(malformed_and_stale_messages_change_nothing)
{
	struct fcr_link a, b, c;
	fq_u8 m[MSG_LEN], old[MSG_LEN], bad[MSG_LEN];

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, BUFFER, QUIET_NS);
	handshake(&a, &b);
	fcr_msg_build(&b, old, 0);
	/* b takes 10 units in, then frees them: a newer, larger grant */
	fcr_tx_sent(&a, 0, 640, 1);
	fcr_rx_arrive(&b, 0, 640, 0);
	fcr_rx_free(&b, 0, 640);
	fcr_msg_build(&b, m, 2);
	EXPECT_EQ(fcr_msg_receive(&a, m, sizeof(m), 0), FCR_CREDITS_GREW);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER);
	/* the older message, late: ignored */
	EXPECT_EQ(fcr_msg_receive(&a, old, sizeof(old), 0), 0);
	EXPECT_EQ(a.st.msgs_stale, 1);
	/* and the same message twice */
	EXPECT_EQ(fcr_msg_receive(&a, m, sizeof(m), 0), 0);
	EXPECT_EQ(a.st.msgs_stale, 2);

	memcpy(bad, m, sizeof(m));
	/* short of even the acknowledgement-less length */
	EXPECT_EQ(fcr_msg_receive(&a, bad, FABRIC_HDR_LEN + FABRIC_CTRL_LINK_ACK_OFF - 1, 0), 0);
	bad[FABRIC_HDR_LEN] = 9;			/* unknown type */
	EXPECT_EQ(fcr_msg_receive(&a, bad, sizeof(bad), 0), 0);
	memcpy(bad, m, sizeof(m));
	bad[FABRIC_HDR_LEN + 1] = 4;			/* four VCs */
	EXPECT_EQ(fcr_msg_receive(&a, bad, sizeof(bad), 0), 0);
	memcpy(bad, m, sizeof(m));
	memset(bad + FABRIC_HDR_LEN + 4, 0, 4);		/* epoch 0 */
	EXPECT_EQ(fcr_msg_receive(&a, bad, sizeof(bad), 0), 0);
	memcpy(bad, m, sizeof(m));
	bad[0] = 2 << FABRIC_HDR_VER_SHIFT;		/* version 2 */
	EXPECT_EQ(fcr_msg_receive(&a, bad, sizeof(bad), 0), 0);
	EXPECT_EQ(a.st.msgs_malformed, 5);
	/* a peer counting 128-byte units */
	fcr_init(&c, 33, 128, BUFFER, QUIET_NS);
	fcr_msg_build(&c, bad, 0);
	EXPECT_EQ(fcr_msg_receive(&a, bad, sizeof(bad), 0), 0);
	EXPECT_EQ(a.st.msgs_unit, 1);
	EXPECT_EQ(a.peer_epoch, 22);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER);
	EXPECT_EQ(a.st.msgs_received, 2);
}

/*
 * A peer built before the acknowledgement sends 40-byte payloads: taken
 * as acknowledging nothing, so that we never back off toward it.
 */
UNIT_TEST(message_without_acknowledgement_is_taken)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN];
	unsigned int i;

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, BUFFER, QUIET_NS);
	handshake(&a, &b);
	EXPECT_TRUE(a.acked_seq != 0);
	for (i = 0; i < 3 * FCR_IDLE_SHIFT_MAX; i++) {
		fcr_msg_build(&b, m, QUIET_NS);
		EXPECT_EQ(fcr_msg_receive(&a, m, FABRIC_HDR_LEN + FABRIC_CTRL_LINK_ACK_OFF,
					  QUIET_NS), 0);
		fcr_msg_build(&a, m, QUIET_NS);
		fcr_msg_receive(&b, m, sizeof(m), QUIET_NS);
	}
	EXPECT_EQ(a.st.msgs_received, 1 + 3 * FCR_IDLE_SHIFT_MAX);	/* 1: the handshake */
	EXPECT_EQ(a.st.msgs_malformed, 0);
	EXPECT_EQ(a.acked_seq, 0);
	EXPECT_EQ(a.idle_shift, 0);
	/* b, whose messages a acknowledges, backs off */
	EXPECT_EQ(b.idle_shift, FCR_IDLE_SHIFT_MAX);
}

UNIT_TEST(quiet_total_finds_lost_frames)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN];

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, BUFFER, QUIET_NS);
	handshake(&a, &b);
	/* three frames of 24 units leave a; the second never arrives */
	fcr_tx_sent(&a, 0, 1514, 1000);
	fcr_rx_arrive(&b, 0, 1514, 0);
	fcr_tx_sent(&a, 0, 1514, 1000);
	fcr_tx_sent(&a, 0, 1514, 1000);
	fcr_rx_arrive(&b, 0, 1514, 0);
	fcr_rx_free(&b, 0, 1514);
	fcr_rx_free(&b, 0, 1514);
	/* a's total while it is still sending is not trusted */
	fcr_msg_build(&a, m, 1000 + QUIET_NS - 1);
	fcr_msg_receive(&b, m, sizeof(m), 0);
	EXPECT_EQ(b.st.vc[0].lost_units, 0);
	fcr_msg_build(&b, m, 0);
	fcr_msg_receive(&a, m, sizeof(m), 0);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER - 24);
	/* once quiet it is: the 24 units come back */
	fcr_msg_build(&a, m, 1000 + QUIET_NS);
	fcr_msg_receive(&b, m, sizeof(m), 0);
	EXPECT_EQ(b.st.vc[0].lost_units, 24);
	EXPECT_EQ(b.st.resyncs, 1);
	fcr_msg_build(&b, m, 0);
	fcr_msg_receive(&a, m, sizeof(m), 0);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER);
	/* a frame refused at the device is not spent */
	fcr_tx_sent(&a, 1, 1000, 5000);
	EXPECT_EQ(fcr_tx_credits(&a, 1), BUFFER - 16);
	fcr_tx_unsend(&a, 1, 1000);
	EXPECT_EQ(fcr_tx_credits(&a, 1), BUFFER);
}

/*
 * A peer that lies: its quiet totals claim a buffer's worth sent that
 * never comes, again and again, and it sends a buffer's worth of frames
 * each time that the receiver never frees.  The room kept for late frames
 * must not let the input hold more than twice its buffer.
 */
UNIT_TEST(lying_totals_never_hold_more_than_twice_the_buffer)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN];
	unsigned int i, j, taken = 0;
	fq_u64 t = 1000;

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, BUFFER, QUIET_NS);
	handshake(&a, &b);
	for (i = 0; i < 1000; i++) {
		a.tx[0].sent += BUFFER;
		t += QUIET_NS;
		fcr_msg_build(&a, m, t);
		fcr_msg_receive(&b, m, sizeof(m), t);
		for (j = 0; j < BUFFER / 24 + 1; j++)
			taken += fcr_rx_arrive(&b, 0, 1514, t);
		if (b.rx[0].held > 2 * BUFFER) {
			printf("#   round %u: holds %u units of a %u-unit buffer\n",
			       i, b.rx[0].held, BUFFER);
			UNIT_FAIL("held beyond twice the buffer");
			break;
		}
	}
	/* it filled both the buffer and the room beyond, then was refused */
	EXPECT_EQ(b.rx[0].held, 2 * BUFFER - 2 * BUFFER % 24);
	EXPECT_TRUE(b.st.vc[0].violations > 0);
	printf("# %u frames taken, %" PRIu64 " refused\n", taken,
	       (fq_u64)b.st.vc[0].violations);
}

UNIT_TEST(old_life_of_a_peer_and_early_clocks)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN], old[MSG_LEN];

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, BUFFER, QUIET_NS);
	handshake(&a, &b);
	fcr_msg_build(&b, old, 0);
	/* b restarts and is heard; then its old life's message arrives */
	fcr_restart(&b, 33, UNIT, BUFFER, QUIET_NS);
	fcr_msg_build(&b, m, 0);
	EXPECT_EQ(fcr_msg_receive(&a, m, sizeof(m), 0), FCR_REPLY_NOW);
	EXPECT_EQ(a.peer_epoch, 33);
	EXPECT_EQ(fcr_msg_receive(&a, old, sizeof(old), 0), 0);
	EXPECT_EQ(a.peer_epoch, 33);
	EXPECT_EQ(a.st.msgs_stale, 1);
	EXPECT_EQ(a.st.peer_epochs, 2);

	/* a time read before the last send (another CPU sent meanwhile) */
	fcr_tx_sent(&a, 0, 64, 5000000);
	fcr_msg_build(&a, m, 4999999);
	EXPECT_TRUE(!(m[FABRIC_HDR_LEN + FCR_VC_OFF(0) + 8] & FABRIC_CTRL_F_QUIET));
	EXPECT_TRUE(m[FABRIC_HDR_LEN + FCR_VC_OFF(1) + 8] & FABRIC_CTRL_F_QUIET);
	fcr_msg_build(&a, m, 5000000 + QUIET_NS);
	EXPECT_TRUE(m[FABRIC_HDR_LEN + FCR_VC_OFF(0) + 8] & FABRIC_CTRL_F_QUIET);
}

/*
 * @n messages each way between @a and @b from @now, a tenth of the quiet
 * time apart (as the kernel's, 1 ms and 10 ms); returns the time after.
 */
static fq_u64 talk(struct fcr_link *a, struct fcr_link *b, fq_u64 now,
		   unsigned int n)
{
	fq_u8 m[MSG_LEN];
	unsigned int i;

	for (i = 0; i < n; i++, now += QUIET_NS / 10) {
		fcr_msg_build(a, m, now);
		fcr_msg_receive(b, m, sizeof(m), now);
		fcr_msg_build(b, m, now);
		fcr_msg_receive(a, m, sizeof(m), now);
	}
	return now;
}

/*
 * Both ends restart close together (a switch-to-switch link coming up
 * with credits turned on at both ends), and a message of b's life before
 * its restart reaches a after b's new one: a has forgotten b's old epoch
 * in its own restart, so only the message number can tell it is old.
 * Taken for a restart, it made every later message of b's current life
 * "stale" for good: the link never sent again (seen in vm/meter_fabric).
 */
UNIT_TEST(old_message_after_both_ends_restarted)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN], old[MSG_LEN];
	fq_u64 now;

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, BUFFER, QUIET_NS);
	now = talk(&a, &b, 0, 5);
	fcr_msg_build(&b, old, now);
	fcr_restart(&b, 33, UNIT, BUFFER, QUIET_NS);
	fcr_restart(&a, 44, UNIT, BUFFER, QUIET_NS);
	fcr_msg_build(&b, m, now);
	EXPECT_TRUE(fcr_msg_receive(&a, m, sizeof(m), now) & FCR_REPLY_NOW);
	EXPECT_EQ(a.peer_epoch, 33);
	EXPECT_EQ(fcr_msg_receive(&a, old, sizeof(old), now + 1000), 0);
	EXPECT_EQ(a.st.msgs_stale, 1);
	EXPECT_EQ(a.peer_epoch, 33);
	talk(&a, &b, now + 2000, 50);
	EXPECT_EQ(a.peer_epoch, 33);
	EXPECT_EQ(b.peer_epoch, 44);
	EXPECT_EQ(a.st.msgs_stale, 1);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER);
	EXPECT_EQ(fcr_tx_credits(&b, 1), BUFFER);
}

/*
 * A peer that starts from scratch (its port deleted and added again, a
 * module reloaded) numbers its messages from 1 again, below what its old
 * life reached: they look old, but after FCR_DOUBT_MAX of them in a row
 * they are the peer's, and taken.  So are the current life's messages
 * after a burst of late ones of the old life was taken: no guess locks a
 * link out for good.
 */
UNIT_TEST(fresh_peer_is_heard_after_a_few_messages)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN], old[FCR_DOUBT_MAX + 1][MSG_LEN];
	fq_u64 now;
	unsigned int i;

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, BUFFER, QUIET_NS);
	now = talk(&a, &b, 0, 20);
	fcr_init(&b, 33, UNIT, BUFFER, QUIET_NS);
	for (i = 0; i < FCR_DOUBT_MAX; i++) {
		fcr_msg_build(&b, m, now);
		EXPECT_EQ(fcr_msg_receive(&a, m, sizeof(m), now), 0);
	}
	EXPECT_EQ(a.peer_epoch, 22);
	EXPECT_EQ(a.st.msgs_stale, FCR_DOUBT_MAX);
	talk(&b, &a, now, 5);
	EXPECT_EQ(a.peer_epoch, 33);
	EXPECT_EQ(b.peer_epoch, 11);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER);
	EXPECT_EQ(fcr_tx_credits(&b, 0), BUFFER);

	/*
	 * b restarts; more of its old life's messages than FCR_DOUBT_MAX
	 * come after the new one (a link reordering far more than it does)
	 * and the last is taken: b's current life must get back in all the
	 * same
	 */
	for (i = 0; i <= FCR_DOUBT_MAX; i++)
		fcr_msg_build(&b, old[i], now);
	fcr_restart(&b, 55, UNIT, BUFFER, QUIET_NS);
	fcr_msg_build(&b, m, now);
	EXPECT_TRUE(fcr_msg_receive(&a, m, sizeof(m), now) & FCR_REPLY_NOW);
	for (i = 0; i <= FCR_DOUBT_MAX; i++)
		fcr_msg_receive(&a, old[i], sizeof(old[i]), now);
	EXPECT_EQ(a.peer_epoch, 33);
	talk(&b, &a, now, 2 * FCR_DOUBT_MAX);
	EXPECT_EQ(a.peer_epoch, 55);
	EXPECT_EQ(fcr_tx_credits(&b, 1), BUFFER);
}

/* @a and @b after a handshake, b holding 10 units a sent on VC0. */
static void b_holds_ten_units_of_as(struct fcr_link *a, struct fcr_link *b)
{
	fcr_init(a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(b, 22, UNIT, BUFFER, QUIET_NS);
	handshake(a, b);
	fcr_tx_sent(a, 0, 640, 1);
	fcr_rx_arrive(b, 0, 640, 0);
}

/*
 * Late messages of the epoch we know, however many come in a row, are
 * ignored: a grant never goes back to an older value.  (The rule that
 * takes the next message after FCR_DOUBT_MAX stale ones applies only to
 * numbers further behind than any link reorders, FCR_LATE_MAX.)
 */
UNIT_TEST(late_messages_never_take_the_grant_back)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN], old[2 * FCR_DOUBT_MAX][MSG_LEN];
	unsigned int i;

	b_holds_ten_units_of_as(&a, &b);
	/* b's words while it holds them, then the newest */
	for (i = 0; i < 2 * FCR_DOUBT_MAX; i++)
		fcr_msg_build(&b, old[i], 1);
	fcr_rx_free(&b, 0, 640);
	fcr_msg_build(&b, m, 2);
	EXPECT_EQ(fcr_msg_receive(&a, m, sizeof(m), 2), FCR_CREDITS_GREW);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER);
	for (i = 0; i < 2 * FCR_DOUBT_MAX; i++)
		EXPECT_EQ(fcr_msg_receive(&a, old[i], sizeof(old[i]), 3), 0);
	EXPECT_EQ(a.st.msgs_stale, 2 * FCR_DOUBT_MAX);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER);
}

/*
 * A message of the peer's own epoch numbered far ahead of its real ones
 * (forged: a host believes any message to its link's group) makes the
 * real ones look stale.  After FCR_DOUBT_MAX of them in a row the next is
 * taken, and the grant it carries with it.  Until 2026-12-05 only
 * another epoch's messages were given that way back in, and the link
 * waited for the peer's numbers to catch up: 2^31 messages (found by
 * selftests/fuzz/fuzz_credit.c).
 */
UNIT_TEST(a_number_far_ahead_locks_nobody_out)
{
	struct fcr_link a, b;
	fq_u8 m[MSG_LEN], forged[MSG_LEN];
	fq_u32 seq;
	unsigned int i;

	b_holds_ten_units_of_as(&a, &b);
	/* b's word of them, forged 2^31 - 1 ahead */
	fcr_msg_build(&b, forged, 1);
	seq = a.rx_seq + 0x7fffffffU;	/* the newest a number can look */
	fhc_put_be32(forged + FABRIC_HDR_LEN + 12, seq);
	fcr_msg_receive(&a, forged, sizeof(forged), 1);
	EXPECT_EQ(a.rx_seq, seq);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER - 10);
	/* b frees the room: its real messages look stale, FCR_DOUBT_MAX of them */
	fcr_rx_free(&b, 0, 640);
	for (i = 0; i < FCR_DOUBT_MAX; i++) {
		fcr_msg_build(&b, m, 2 + i);
		EXPECT_EQ(fcr_msg_receive(&a, m, sizeof(m), 2 + i), 0);
	}
	EXPECT_EQ(a.st.msgs_stale, FCR_DOUBT_MAX);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER - 10);
	/* the next is taken, and the numbers after it */
	for (i = 0; i < 2; i++) {
		fcr_msg_build(&b, m, 20 + i);
		fcr_msg_receive(&a, m, sizeof(m), 20 + i);
		EXPECT_EQ(a.rx_seq, fhc_get_be32(m + FABRIC_HDR_LEN + 12));
	}
	EXPECT_EQ(a.st.msgs_stale, FCR_DOUBT_MAX);
	EXPECT_EQ(fcr_tx_credits(&a, 0), BUFFER);
}

/* ---- two ends on a simulated link ------------------------------------------ */

#define WIRE_MAX	8192
#define RXQ_MAX		4096

struct item {
	fq_u64 at;
	int dst;			/* end it arrives at */
	bool ctrl;
	unsigned int vc;
	fq_u32 len;			/* a message's too */
	fq_u8 msg[FCR_MSG_MAX];
};

struct end {
	struct fcr_link l;
	fq_u32 rxq[FCR_MAX_VCS][RXQ_MAX];	/* lengths held, FIFO */
	unsigned int rxq_head[FCR_MAX_VCS], rxq_n[FCR_MAX_VCS];
	fq_u64 lost_sent[FCR_MAX_VCS];		/* units the wire lost toward it */
	fq_u64 sent_frames;
	fq_u64 next_msg;			/* its periodic message is due */
	/* frames in its device's queue, FIFO, which its messages overtake */
	struct item dev[RXQ_MAX];
	unsigned int dev_head, dev_n;
};

struct sim {
	struct end e[2];
	struct item wire[WIRE_MAX];
	unsigned int nwire;
	fq_u64 now;
	/* knobs */
	unsigned int send_permille;	/* per VC and step */
	unsigned int drain_permille;	/* per VC and step */
	unsigned int data_loss_permille;
	unsigned int ctl_loss_permille;
	fq_u64 delay_min, delay_max;	/* ns; > min: frames reorder */
	fq_u64 ctl_period;
	bool blackout;			/* every control message lost */
	fq_u64 dev_hold;		/* ns end 0's device holds each frame */
};

static struct sim S;
/* VCs the simulated link carries (sim_start() gives it to both ends) */
static unsigned int sim_vcs = FCR_DEFAULT_VCS;

static void wire_put(struct sim *s, const struct item *it, bool ctrl)
{
	if (s->nwire == WIRE_MAX)
		abort();
	s->wire[s->nwire] = *it;
	s->wire[s->nwire].ctrl = ctrl;
	s->wire[s->nwire].at = s->now + s->delay_min +
		(s->delay_max > s->delay_min ? unit_rnd() % (s->delay_max - s->delay_min) : 0);
	s->nwire++;
}

/*
 * @from's message now, and its next one a period (as the core has it,
 * backed off on an idle link) later: the kernel's timer, which every
 * message sent sooner (a kick) starts again.
 */
static void send_msg(struct sim *s, int from)
{
	struct item it = { .dst = !from };
	struct fcr_link *l = &s->e[from].l;

	/* the port's look at its device before each message */
	fcr_tx_device_seen(l, s->now, s->e[from].dev_n != 0);
	it.len = fcr_msg_build(l, it.msg, s->now);
	s->e[from].next_msg = s->now + fcr_msg_period(l, s->ctl_period);
	if (s->blackout || chance(s->ctl_loss_permille))
		return;
	wire_put(s, &it, true);
}

static int *sim_failed;

static void deliver(struct sim *s, const struct item *it)
{
	struct end *d = &s->e[it->dst];

	if (it->ctrl) {
		if (fcr_msg_receive(&d->l, it->msg, it->len, s->now) & FCR_REPLY_NOW)
			send_msg(s, it->dst);
		return;
	}
	fq_u64 late0 = d->l.st.vc[it->vc].late_units;
	fq_u32 buffer = d->l.rx[it->vc].buffer;

	if (!fcr_rx_arrive(&d->l, it->vc, it->len, s->now))
		return;		/* counted as a violation, checked by the caller */
	/*
	 * taken only with room (after a shrink it may hold more, never take),
	 * or into the room kept for frames found lost: at most a buffer more
	 */
	if ((d->l.rx[it->vc].held > buffer &&
	     d->l.st.vc[it->vc].late_units == late0) ||
	    d->l.rx[it->vc].held > 2 * buffer) {
		printf("#   end %d VC%u took a frame: holds %u of %u units\n",
		       it->dst, it->vc, d->l.rx[it->vc].held,
		       d->l.rx[it->vc].buffer);
		*sim_failed = 1;
	}
	if (d->rxq_n[it->vc] == RXQ_MAX)
		abort();
	d->rxq[it->vc][(d->rxq_head[it->vc] + d->rxq_n[it->vc]++) % RXQ_MAX] = it->len;
}

/* Deliver what is due, in time order (equal times in wire order). */
static void wire_run(struct sim *s)
{
	for (;;) {
		unsigned int i, best = WIRE_MAX;

		for (i = 0; i < s->nwire; i++)
			if (s->wire[i].at <= s->now &&
			    (best == WIRE_MAX || s->wire[i].at < s->wire[best].at))
				best = i;
		if (best == WIRE_MAX)
			return;
		{
			struct item it = s->wire[best];

			memmove(&s->wire[best], &s->wire[best + 1],
				(s->nwire - best - 1) * sizeof(s->wire[0]));
			s->nwire--;
			deliver(s, &it);
		}
	}
}

/* One microsecond: send, deliver, drain, advertise. */
static void step(struct sim *s, bool sending)
{
	int i;
	unsigned int vc;

	s->now += 1000;
	for (i = 0; i < 2 && sending; i++) {
		for (vc = 0; vc < sim_vcs; vc++) {
			struct item it = { .dst = !i, .vc = vc };

			if (!chance(s->send_permille))
				continue;
			it.len = 60 + unit_rnd() % 1455;
			if (!fcr_tx_may_send(&s->e[i].l, vc, it.len))
				continue;
			fcr_tx_sent(&s->e[i].l, vc, it.len, s->now);
			s->e[i].sent_frames++;
			if (chance(s->data_loss_permille)) {
				s->e[!i].lost_sent[vc] += fcr_units(&s->e[i].l, it.len);
				continue;
			}
			if (i == 0 && s->dev_hold) {
				struct end *e = &s->e[0];

				if (e->dev_n == RXQ_MAX)
					abort();
				it.at = s->now + s->dev_hold;
				e->dev[(e->dev_head + e->dev_n++) % RXQ_MAX] = it;
				continue;
			}
			wire_put(s, &it, false);
		}
	}
	/* end 0's device lets its frames go, in order */
	while (s->e[0].dev_n && s->e[0].dev[s->e[0].dev_head].at <= s->now) {
		wire_put(s, &s->e[0].dev[s->e[0].dev_head], false);
		s->e[0].dev_head = (s->e[0].dev_head + 1) % RXQ_MAX;
		s->e[0].dev_n--;
	}
	wire_run(s);
	for (i = 0; i < 2; i++) {
		struct end *e = &s->e[i];
		bool due = false;

		for (vc = 0; vc < sim_vcs; vc++) {
			fq_u32 len;

			if (!e->rxq_n[vc] || !chance(s->drain_permille))
				continue;
			len = e->rxq[vc][e->rxq_head[vc]];
			e->rxq_head[vc] = (e->rxq_head[vc] + 1) % RXQ_MAX;
			e->rxq_n[vc]--;
			due |= fcr_rx_free(&e->l, vc, len);
		}
		/* a back-off that ended sends at once, as the kernel's kick */
		if (due || fcr_woke(&e->l) || s->now >= e->next_msg)
			send_msg(s, i);
	}
}

static void sim_start(struct sim *s, fq_u64 seed, fq_u32 sent0)
{
	int i;

	memset(s, 0, sizeof(*s));
	unit_rnd_state = seed;
	for (i = 0; i < 2; i++) {
		unsigned int vc;

		fcr_init(&s->e[i].l, (fq_u32)(unit_rnd() | 1), UNIT, BUFFER, QUIET_NS);
		fcr_set_vcs(&s->e[i].l, sim_vcs);
		/* counters that wrap within the run */
		for (vc = 0; vc < sim_vcs; vc++)
			s->e[i].l.tx[vc].sent = sent0 + 12345 * vc;
	}
	s->send_permille = 300;
	s->drain_permille = 250;
	s->delay_min = 2000;
	s->delay_max = 2000;
	s->ctl_period = 100000;
	s->e[1].next_msg = s->ctl_period / 2;
}

/*
 * Stop sending, drain every buffer, let the link go quiet and the
 * messages flow without loss: each sender must then have exactly the
 * peer's buffer.  @exact: and each receiver must have found every lost
 * unit, counted nothing twice and refused nothing.
 */
static void sim_settle(struct sim *s, int *unit_failed, bool exact)
{
	fq_u64 t;
	int i;
	unsigned int vc;

	s->data_loss_permille = 0;
	s->ctl_loss_permille = 0;
	s->blackout = false;
	s->drain_permille = 1000;
	for (t = 0; t < (3 * (QUIET_NS + s->delay_max) + s->dev_hold) / 1000; t++)
		step(s, false);
	for (i = 0; i < 2; i++) {
		for (vc = 0; vc < sim_vcs; vc++) {
			EXPECT_EQ(s->e[i].l.rx[vc].held, 0);
			EXPECT_EQ(fcr_tx_credits(&s->e[i].l, vc),
				  s->e[!i].l.rx[vc].buffer);
			/* what the peer's messages said of its buffer */
			EXPECT_EQ(s->e[i].l.tx[vc].peer_buffer,
				  s->e[!i].l.rx[vc].buffer);
			if (!exact)
				continue;
			EXPECT_EQ(s->e[i].l.st.vc[vc].violations, 0);
			EXPECT_EQ(s->e[i].l.st.vc[vc].lost_units, s->e[i].lost_sent[vc]);
			EXPECT_EQ(s->e[i].l.st.vc[vc].twice_units, 0);
		}
	}
}

static void run(struct sim *s, fq_u64 steps)
{
	fq_u64 t;

	for (t = 0; t < steps; t++)
		step(s, true);
}

UNIT_TEST(lossless_link_exchanges_everything_and_ends_full)
{
	sim_failed = unit_failed;
	sim_start(&S, 0x1234567, 0xfffff000u);
	run(&S, 200000);
	/* the link carried traffic and the books wrapped */
	EXPECT_TRUE(S.e[0].sent_frames > 20000);
	EXPECT_TRUE(S.e[1].sent_frames > 20000);
	EXPECT_TRUE(S.e[0].l.tx[0].sent < 0x1000000u);
	sim_settle(&S, unit_failed, true);
	EXPECT_EQ(S.e[1].l.st.resyncs, 0);
}

static void lossy_cases(int *unit_failed)
{
	static const struct {
		unsigned int data_loss, ctl_loss;
		fq_u64 delay_max;
	} cases[] = {
		{ 10, 0, 2000 }, { 0, 300, 2000 }, { 10, 300, 2000 },
		{ 0, 0, 50000 }, { 50, 500, 50000 }, { 200, 200, 20000 },
	};
	unsigned int c;

	sim_failed = unit_failed;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		sim_start(&S, 0xabcdef + c, 0xffff0000u + c);
		S.data_loss_permille = cases[c].data_loss;
		S.ctl_loss_permille = cases[c].ctl_loss;
		S.delay_max = cases[c].delay_max;
		run(&S, 150000);
		/* heavy loss stalls a sender until the link goes quiet,
		 * but it must not stop it */
		if (S.e[0].sent_frames < 1000 || S.e[1].sent_frames < 1000)
			UNIT_FAIL("case %u: %" PRIu64 " / %" PRIu64 " frames sent",
				  c, S.e[0].sent_frames, S.e[1].sent_frames);
		if (cases[c].data_loss && !S.e[1].l.st.resyncs)
			UNIT_FAIL("case %u: frames lost, no resync", c);
		sim_settle(&S, unit_failed, true);
	}
}

UNIT_TEST(lost_and_reordered_frames_and_messages)
{
	lossy_cases(unit_failed);
}

UNIT_TEST(control_blackout_stalls_then_recovers)
{
	fq_u64 before, left;

	sim_failed = unit_failed;
	sim_start(&S, 0x77, 0);
	run(&S, 20000);
	/* 50 ms without a single control message: the senders stall */
	S.blackout = true;
	run(&S, 45000);
	/* what is left is less than the largest frame, and only that goes */
	left = fcr_tx_credits(&S.e[0].l, 0) + fcr_tx_credits(&S.e[0].l, 1);
	EXPECT_TRUE(left < 2 * fcr_units(&S.e[0].l, 1514));
	before = S.e[0].sent_frames;
	run(&S, 5000);
	EXPECT_TRUE(S.e[0].sent_frames - before <= left);
	/* messages again: traffic resumes within a period or two */
	S.blackout = false;
	run(&S, 2 * S.ctl_period / 1000 + 100);
	EXPECT_TRUE(S.e[0].sent_frames > before + 50);
	run(&S, 20000);
	sim_settle(&S, unit_failed, true);
}

/*
 * A port's device holds each frame three quiet times (a shaping qdisc on
 * the port, a paused NIC) while its messages go straight to the driver
 * past them.  Were its totals marked quiet meanwhile, the receiver would
 * count the waiting frames lost at each one, the grant would grow by
 * them each time, and more would wait: once they come, more than the
 * room kept for late frames.  Quiet only the quiet time after the first
 * look that saw the device empty after the VC's last frame went in (a
 * frame that left just before may be overtaken on a link that reorders,
 * as here): nothing is found lost, nothing refused.
 */
UNIT_TEST(frames_held_in_the_device_are_not_found_lost)
{
	sim_failed = unit_failed;
	sim_start(&S, 0xde5, 0);
	S.e[0].l.device_queue = true;
	S.dev_hold = 3 * QUIET_NS;
	/* and a link that reorders frames and messages by up to half of it */
	S.delay_max = QUIET_NS / 2;
	run(&S, 60000);
	/* credits ran out while frames waited: the sender was quiet */
	EXPECT_TRUE(S.e[0].sent_frames > 200);
	EXPECT_EQ(S.e[1].l.st.vc[0].lost_units + S.e[1].l.st.vc[1].lost_units, 0);
	sim_settle(&S, unit_failed, true);
	EXPECT_EQ(S.e[1].l.st.vc[0].late_units + S.e[1].l.st.vc[1].late_units, 0);
}

/*
 * A frame counted as sent while it waits in our own queue keeps its VC
 * from being quiet, however long it waits; from the time it is handed to
 * the device, the quiet time runs.  With a device queue, quiet needs a
 * look that found it empty after the last frame went in.
 */
UNIT_TEST(quiet_waits_for_our_queue_and_the_device)
{
	struct fcr_link a;
	fq_u8 m[MSG_LEN];
	const fq_u8 *f0 = m + FABRIC_HDR_LEN + FCR_VC_OFF(0) + 8;
	const fq_u8 *f1 = m + FABRIC_HDR_LEN + FCR_VC_OFF(1) + 8;

	fcr_init(&a, 5, UNIT, BUFFER, QUIET_NS);
	fcr_tx_queue(&a, 0, 640);
	fcr_tx_queue(&a, 0, 64);
	EXPECT_EQ(a.tx[0].sent, 11);
	EXPECT_EQ(a.tx[0].queued, 11);
	fcr_msg_build(&a, m, 100 * QUIET_NS);
	EXPECT_TRUE(!(*f0 & FABRIC_CTRL_F_QUIET));
	EXPECT_TRUE(*f1 & FABRIC_CTRL_F_QUIET);
	/* the first went, the second was dropped before the device */
	fcr_tx_handed(&a, 0, 10, 100 * QUIET_NS);
	fcr_msg_build(&a, m, 101 * QUIET_NS - 1);
	EXPECT_TRUE(!(*f0 & FABRIC_CTRL_F_QUIET));
	fcr_tx_unqueue(&a, 0, 64);
	EXPECT_EQ(a.tx[0].sent, 10);
	EXPECT_EQ(a.tx[0].queued, 0);
	fcr_msg_build(&a, m, 101 * QUIET_NS - 1);
	EXPECT_TRUE(!(*f0 & FABRIC_CTRL_F_QUIET));
	fcr_msg_build(&a, m, 101 * QUIET_NS);
	EXPECT_TRUE(*f0 & FABRIC_CTRL_F_QUIET);

	/*
	 * a device queue: the quiet time runs from the first look that saw
	 * it empty after the frame went in (it left at some time before)
	 */
	a.device_queue = true;
	fcr_tx_sent(&a, 0, 64, 200 * QUIET_NS);
	fcr_msg_build(&a, m, 300 * QUIET_NS);
	EXPECT_TRUE(!(*f0 & FABRIC_CTRL_F_QUIET));
	EXPECT_TRUE(*f1 & FABRIC_CTRL_F_QUIET);	/* never sent */
	fcr_tx_device_seen(&a, 300 * QUIET_NS, true);
	fcr_msg_build(&a, m, 400 * QUIET_NS);
	EXPECT_TRUE(!(*f0 & FABRIC_CTRL_F_QUIET));
	fcr_tx_device_seen(&a, 400 * QUIET_NS, false);
	fcr_msg_build(&a, m, 401 * QUIET_NS - 1);
	EXPECT_TRUE(!(*f0 & FABRIC_CTRL_F_QUIET));
	fcr_msg_build(&a, m, 401 * QUIET_NS);
	EXPECT_TRUE(*f0 & FABRIC_CTRL_F_QUIET);
	/* seen busy once it was seen empty after its last: others' frames */
	fcr_tx_device_seen(&a, 500 * QUIET_NS, true);
	fcr_msg_build(&a, m, 500 * QUIET_NS);
	EXPECT_TRUE(*f0 & FABRIC_CTRL_F_QUIET);
	/* a look before the frame went in does not count for it */
	fcr_tx_device_seen(&a, 600 * QUIET_NS, false);
	fcr_tx_sent(&a, 1, 64, 600 * QUIET_NS);
	fcr_msg_build(&a, m, 700 * QUIET_NS);
	EXPECT_TRUE(!(*f1 & FABRIC_CTRL_F_QUIET));
	EXPECT_TRUE(*f0 & FABRIC_CTRL_F_QUIET);
	/* new books: nothing queued, nothing sent */
	fcr_tx_queue(&a, 1, 64);
	fcr_restart(&a, 7, UNIT, BUFFER, QUIET_NS);
	EXPECT_EQ(a.tx[1].queued, 0);
	fcr_msg_build(&a, m, 702 * QUIET_NS);
	EXPECT_TRUE(*f0 & FABRIC_CTRL_F_QUIET);
	EXPECT_TRUE(*f1 & FABRIC_CTRL_F_QUIET);
}

/* @steps microseconds without traffic (buffers drain, messages flow) */
static void idle(struct sim *s, fq_u64 steps)
{
	while (steps--)
		step(s, false);
}

/*
 * An idle link's messages back off to one every 64 periods once each end
 * has the other's last word, and come back to every period at once when
 * anything changes: traffic flows as from a fresh start, and news said
 * into a blackout is repeated every period until the peer has it.
 */
UNIT_TEST(idle_link_backs_off_until_anything_changes)
{
	fq_u64 m0[2], fresh, before, n, want;
	int i;

	sim_failed = unit_failed;
	sim_start(&S, 0x1d1e, 0);
	run(&S, 20000);
	fresh = S.e[0].sent_frames;
	/*
	 * The last frame as the traffic stops is lost: the sender must keep
	 * the base period until it is quiet (its peer acknowledges it within
	 * a period, which alone would let it back off), so that the quiet
	 * total that finds the loss leaves on time
	 */
	fcr_tx_sent(&S.e[0].l, 0, 100, S.now);
	S.e[1].lost_sent[0] += fcr_units(&S.e[0].l, 100);
	S.drain_permille = 1000;
	idle(&S, (QUIET_NS + 2 * S.ctl_period + 2 * S.delay_max) / 1000);
	EXPECT_EQ(fcr_tx_credits(&S.e[0].l, 0), BUFFER);
	sim_settle(&S, unit_failed, true);
	idle(&S, 100000);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(S.e[i].l.idle_shift, FCR_IDLE_SHIFT_MAX);
		m0[i] = S.e[i].l.st.msgs_sent;
	}
	idle(&S, 100000);
	/* 100 ms at the longest period, against 1000 at the base one */
	want = 100000000 / (S.ctl_period << FCR_IDLE_SHIFT_MAX);
	for (i = 0; i < 2; i++) {
		n = S.e[i].l.st.msgs_sent - m0[i];
		if (n < want - 1 || n > want + 1)
			UNIT_FAIL("end %d sent %" PRIu64 " messages in 100 idle ms, want %" PRIu64,
				  i, n, want);
	}

	/* one small frame: its room is back with the sender within two periods */
	{
		struct item it = { .dst = 1, .vc = 0, .len = 100 };

		fcr_tx_sent(&S.e[0].l, 0, it.len, S.now);
		wire_put(&S, &it, false);
		EXPECT_EQ(fcr_tx_credits(&S.e[0].l, 0), BUFFER - fcr_units(&S.e[0].l, 100));
		idle(&S, (2 * S.ctl_period + S.delay_max) / 1000);
		EXPECT_EQ(fcr_tx_credits(&S.e[0].l, 0), BUFFER);
	}
	idle(&S, 100000);
	EXPECT_EQ(S.e[1].l.idle_shift, FCR_IDLE_SHIFT_MAX);

	/*
	 * One frame lost: found by the quiet total that follows @quiet_ns
	 * after it, and its room back within two periods more (the sender
	 * keeps the base period until quiet, the receiver answers the
	 * correction at once)
	 */
	fcr_tx_sent(&S.e[0].l, 0, 100, S.now);
	S.e[1].lost_sent[0] += fcr_units(&S.e[0].l, 100);
	idle(&S, (QUIET_NS + 2 * S.ctl_period + 2 * S.delay_max) / 1000);
	EXPECT_EQ(fcr_tx_credits(&S.e[0].l, 0), BUFFER);
	idle(&S, 100000);
	EXPECT_EQ(S.e[1].l.idle_shift, FCR_IDLE_SHIFT_MAX);

	/* traffic again: the first frame each way ends the back-off */
	before = S.e[0].sent_frames;
	m0[1] = S.e[1].sent_frames;
	while (S.e[0].sent_frames == before || S.e[1].sent_frames == m0[1])
		step(&S, true);
	EXPECT_EQ(S.e[0].l.idle_shift, 0);
	EXPECT_EQ(S.e[1].l.idle_shift, 0);
	run(&S, 20000);
	n = S.e[0].sent_frames - before;
	if (n < fresh * 9 / 10)
		UNIT_FAIL("%" PRIu64 " frames in 20 ms after the back-off, %" PRIu64 " fresh",
			  n, fresh);
	sim_settle(&S, unit_failed, true);
	idle(&S, 100000);
	EXPECT_EQ(S.e[1].l.idle_shift, FCR_IDLE_SHIFT_MAX);

	/*
	 * A smaller buffer said into a blackout: said every period (not
	 * acknowledged) for the whole 50 ms, and heard within two periods
	 * once messages cross again
	 */
	S.blackout = true;
	m0[1] = S.e[1].l.st.msgs_sent;
	fcr_rx_set_buffer(&S.e[1].l, 0, BUFFER / 2);
	idle(&S, 50000);
	n = S.e[1].l.st.msgs_sent - m0[1];
	if (n < 50000000 / S.ctl_period - 1)
		UNIT_FAIL("%" PRIu64 " messages said into 50 ms of blackout", n);
	EXPECT_EQ(fcr_tx_credits(&S.e[0].l, 0), BUFFER);
	S.blackout = false;
	m0[1] = S.e[1].l.st.msgs_sent;
	idle(&S, 2 * S.ctl_period / 1000);
	EXPECT_EQ(fcr_tx_credits(&S.e[0].l, 0), BUFFER / 2);
	/*
	 * and end 0, backed off, acknowledges the news at once: end 1 backs
	 * off again after a message or two, rather than repeating its news
	 * every base period until end 0's next periodic message (up to 64)
	 */
	idle(&S, (S.ctl_period << FCR_IDLE_SHIFT_MAX) / 1000 - 2 * S.ctl_period / 1000);
	n = S.e[1].l.st.msgs_sent - m0[1];
	if (n > 2 * FCR_IDLE_SHIFT_MAX)
		UNIT_FAIL("end 1 sent %" PRIu64 " messages in the longest period after its news", n);
	idle(&S, 100000);
	EXPECT_EQ(S.e[1].l.idle_shift, FCR_IDLE_SHIFT_MAX);

	/*
	 * End 0 starts from scratch (a new epoch, numbers from 1 again)
	 * facing the backed-off end 1, whose last word it acknowledged
	 * with a far higher number before: end 1 must keep the base period
	 * until end 0 has its grant (the first eight messages of a peer
	 * starting from scratch are doubted, core fcr_msg_stale())
	 */
	fcr_init(&S.e[0].l, 0x5e5e5e5fu, UNIT, BUFFER, QUIET_NS);
	S.e[0].next_msg = S.now;
	/* and end 1's periodic message falls due just then: end 0 hears an
	 * acknowledgement of its old life, which must not let it back off */
	S.e[1].next_msg = S.now + 1000;
	idle(&S, (FCR_DOUBT_MAX + 8) * S.ctl_period / 1000);
	EXPECT_EQ(fcr_tx_credits(&S.e[0].l, 0), BUFFER / 2);
	EXPECT_EQ(fcr_tx_credits(&S.e[0].l, 1), BUFFER);
	sim_settle(&S, unit_failed, true);
}

UNIT_TEST(peer_restart_starts_the_books_again)
{
	struct end *b = &S.e[1];
	unsigned int vc, i;
	fq_u64 before;

	sim_failed = unit_failed;
	sim_start(&S, 0x4242, 0x7ffffff0u);
	for (i = 0; i < 50; i++) {
		run(&S, 3000 + unit_rnd() % 5000);
		/*
		 * b restarts, as after a link down and up: what was on the
		 * wire and in b's buffers is gone, b has a new epoch and
		 * forgets a's.  a learns it from b's next message.
		 */
		S.nwire = 0;
		fcr_restart(&b->l, (fq_u32)(unit_rnd() | 1), UNIT, BUFFER, QUIET_NS);
		b->next_msg = S.now;	/* the kernel's kick after a restart */
		for (vc = 0; vc < sim_vcs; vc++) {
			b->rxq_n[vc] = 0;
			b->lost_sent[vc] = 0;
			S.e[0].lost_sent[vc] = 0;
			S.e[0].l.st.vc[vc].lost_units = 0;
		}
		before = S.e[0].sent_frames;
		run(&S, 2 * S.ctl_period / 1000 + 100);
		if (S.e[0].sent_frames <= before)
			UNIT_FAIL("restart %u: a sent nothing to the new b", i);
		if (S.e[1].l.peer_epoch != S.e[0].l.epoch ||
		    S.e[0].l.peer_epoch != S.e[1].l.epoch)
			UNIT_FAIL("restart %u: the ends do not know each other", i);
	}
	EXPECT_EQ(S.e[0].l.st.peer_epochs, 51);
	sim_settle(&S, unit_failed, true);
}

/*
 * The same restarts on a link that reorders, with nothing cleared: frames
 * and messages of b's old life arrive after its new one began.  The old
 * messages must be ignored as stale; the frames count twice for a while
 * (the receiver refuses what that lets through), and the books must be
 * exact again once the link is idle.
 */
UNIT_TEST(restart_with_frames_and_messages_in_flight)
{
	struct end *b = &S.e[1];
	unsigned int vc, i;

	sim_failed = unit_failed;
	sim_start(&S, 0x5151, 0);
	S.delay_max = 40000;
	for (i = 0; i < 50; i++) {
		run(&S, 3000 + unit_rnd() % 5000);
		fcr_restart(&b->l, (fq_u32)(unit_rnd() | 1), UNIT, BUFFER, QUIET_NS);
		b->next_msg = S.now;	/* the kernel's kick after a restart */
		for (vc = 0; vc < sim_vcs; vc++)
			b->rxq_n[vc] = 0;
	}
	run(&S, 20000);
	EXPECT_TRUE(S.e[0].l.st.msgs_stale > 0);
	if (S.e[0].l.peer_epoch != b->l.epoch)
		UNIT_FAIL("a took an old epoch of b for the current one");
	sim_settle(&S, unit_failed, false);
}

/*
 * Both ends restart within a few microseconds of each other, hundreds of
 * times, on a link that reorders messages by up to 40 us, as a
 * switch-to-switch link does when both ports come up: after each, the
 * two must know each other's current epochs within two message periods
 * and the quiet time, and traffic must flow both ways.
 */
UNIT_TEST(both_ends_restart_together_on_a_reordering_link)
{
	unsigned int vc, i, j;
	fq_u64 before[2];

	sim_failed = unit_failed;
	sim_start(&S, 0xb0b0, 0);
	S.delay_max = 40000;
	for (i = 0; i < 400; i++) {
		run(&S, 500 + unit_rnd() % 3000);
		for (j = 0; j < 2; j++) {
			struct end *e = &S.e[(i + j) % 2];

			fcr_restart(&e->l, fcr_epoch_new(unit_rnd(), e->l.epoch, 0),
				    UNIT, BUFFER, QUIET_NS);
			e->next_msg = S.now;
			for (vc = 0; vc < sim_vcs; vc++)
				e->rxq_n[vc] = 0;
			run(&S, unit_rnd() % 30);
		}
		before[0] = S.e[0].sent_frames;
		before[1] = S.e[1].sent_frames;
		run(&S, (2 * S.ctl_period + QUIET_NS) / 1000 + 100);
		if (S.e[1].l.peer_epoch != S.e[0].l.epoch ||
		    S.e[0].l.peer_epoch != S.e[1].l.epoch) {
			UNIT_FAIL("restart %u: the ends do not know each other", i);
			break;
		}
		if (S.e[0].sent_frames <= before[0] ||
		    S.e[1].sent_frames <= before[1]) {
			UNIT_FAIL("restart %u: a link direction sends nothing", i);
			break;
		}
	}
	printf("# %" PRIu64 " / %" PRIu64 " messages ignored as stale\n",
	       (fq_u64)S.e[0].l.st.msgs_stale, (fq_u64)S.e[1].l.st.msgs_stale);
	sim_settle(&S, unit_failed, false);
}

/* Frames delayed up to 3 ms, three times the quiet time. */
UNIT_TEST(reordering_beyond_quiet_is_taken_back_when_idle)
{
	fq_u64 twice = 0;
	unsigned int i, vc;

	sim_failed = unit_failed;
	sim_start(&S, 0x3333, 0);
	S.delay_max = 3 * QUIET_NS;
	S.send_permille = 30;
	run(&S, 200000);
	sim_settle(&S, unit_failed, false);
	for (i = 0; i < 2; i++)
		for (vc = 0; vc < sim_vcs; vc++) {
			twice += S.e[i].l.st.vc[vc].twice_units;
			EXPECT_EQ(S.e[i].l.st.vc[vc].violations, 0);
		}
	printf("# %" PRIu64 " units counted twice and taken back\n", twice);
	EXPECT_TRUE(twice > 0);
}

/*
 * Frames delayed beyond the quiet time while the sender waits for
 * credits (a frame on the backlog of a vCPU the host does not run): the
 * quiet total counts them lost, the grant grows by them, the sender
 * sends on it, and then they arrive.  The receiver takes them into the
 * room it kept for frames found lost: nothing refused.
 */
UNIT_TEST(late_frames_on_a_full_link_are_not_refused)
{
	fq_u64 late = 0, lost = 0;
	unsigned int i, vc;

	sim_failed = unit_failed;
	sim_start(&S, 0x1a7e, 0);
	S.send_permille = 1000;
	S.drain_permille = 1;
	S.delay_max = 3 * QUIET_NS;
	run(&S, 300000);
	for (i = 0; i < 2; i++)
		for (vc = 0; vc < sim_vcs; vc++) {
			lost += S.e[i].l.st.vc[vc].lost_units;
			late += S.e[i].l.st.vc[vc].late_units;
			EXPECT_EQ(S.e[i].l.st.vc[vc].violations, 0);
		}
	printf("# %" PRIu64 " units found lost, %" PRIu64 " taken beyond the buffer\n",
	       lost, late);
	EXPECT_TRUE(late > 0);
	sim_settle(&S, unit_failed, false);
}

/* b's buffers shrink and grow under traffic. */
UNIT_TEST(buffer_resized_under_traffic)
{
	static const fq_u32 sizes[] = { 64, 200, 24, 128, 31, 512, 128 };
	unsigned int i, vc;

	sim_failed = unit_failed;
	sim_start(&S, 0x9191, 0);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		run(&S, 10000);
		for (vc = 0; vc < sim_vcs; vc++)
			fcr_rx_set_buffer(&S.e[1].l, vc, sizes[i]);
	}
	run(&S, 10000);
	sim_settle(&S, unit_failed, false);
	EXPECT_EQ(fcr_tx_credits(&S.e[0].l, 0), 128);
}

/* ---- links of four VCs ------------------------------------------------------ */

/*
 * A link of four VCs (Traditional 4 VCs: a VC per class): the message
 * carries four VCs' fields and the acknowledgement after them, each VC
 * has its own grant, and an end of another count is refused as
 * malformed, both ways, whatever it says.
 */
UNIT_TEST(four_vcs_message_and_grants)
{
	struct fcr_link a, b, c;
	fq_u8 m[FCR_MSG_MAX], two[MSG_LEN];
	fq_u32 len;
	unsigned int vc;
	int i;

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&b, 22, UNIT, BUFFER, QUIET_NS);
	fcr_set_vcs(&a, 4);
	fcr_set_vcs(&b, 4);
	len = fcr_msg_build(&b, m, 0);
	EXPECT_EQ(len, FABRIC_HDR_LEN + 16 + 4 * 12 + 4);
	EXPECT_EQ(len, FCR_MSG_MAX);
	EXPECT_EQ(m[FABRIC_HDR_LEN + 1], 4);
	EXPECT_EQ(fcr_msg_receive(&a, m, len, 0), FCR_REPLY_NOW);
	len = fcr_msg_build(&a, m, 0);
	EXPECT_TRUE(fcr_msg_receive(&b, m, len, 0) & FCR_REPLY_NOW);
	len = fcr_msg_build(&b, m, 0);
	/* b's acknowledgement of a's message, after the fourth VC */
	EXPECT_EQ(fhc_get_be32(m + FABRIC_HDR_LEN + 16 + 4 * 12), a.tx_seq);
	EXPECT_EQ(fcr_msg_receive(&a, m, len, 0), FCR_CREDITS_GREW | FCR_BUFFER_SAID);
	EXPECT_EQ(a.acked_seq, a.tx_seq);
	for (vc = 0; vc < 4; vc++)
		EXPECT_EQ(fcr_tx_credits(&a, vc), BUFFER);

	/* VC3 fills alone: 8 frames of 16 units */
	for (i = 0; fcr_tx_may_send(&a, 3, 1000); i++) {
		fcr_tx_sent(&a, 3, 1000, 100);
		EXPECT_TRUE(fcr_rx_arrive(&b, 3, 1000, 0));
	}
	EXPECT_EQ(i, 8);
	EXPECT_TRUE(!fcr_rx_arrive(&b, 3, 1000, 0));
	EXPECT_EQ(b.st.vc[3].violations, 1);
	EXPECT_EQ(fcr_tx_credits(&a, 2), BUFFER);
	fcr_rx_free(&b, 3, 1000);
	len = fcr_msg_build(&b, m, 200);
	EXPECT_EQ(fcr_msg_receive(&a, m, len, 0), FCR_CREDITS_GREW);
	EXPECT_EQ(fcr_tx_credits(&a, 3), 16 + 16);	/* one freed, one refused */
	for (vc = 0; vc < 3; vc++)
		EXPECT_EQ(fcr_tx_credits(&a, vc), BUFFER);

	/* without the acknowledgement: taken, acknowledging nothing */
	len = fcr_msg_build(&b, m, 300);
	EXPECT_EQ(fcr_msg_receive(&a, m, len - 4, 0), 0);
	EXPECT_EQ(a.acked_seq, 0);
	EXPECT_EQ(a.st.msgs_malformed, 0);
	/* shorter still: refused */
	len = fcr_msg_build(&b, m, 400);
	EXPECT_EQ(fcr_msg_receive(&a, m, len - 5, 0), 0);
	EXPECT_EQ(a.st.msgs_malformed, 1);

	/* an end of two VCs and one of four do not take each other's */
	fcr_init(&c, 33, UNIT, BUFFER, QUIET_NS);
	len = fcr_msg_build(&c, two, 0);
	EXPECT_EQ(len, MSG_LEN);
	EXPECT_EQ(fcr_msg_receive(&a, two, len, 0), 0);
	EXPECT_EQ(a.st.msgs_malformed, 2);
	EXPECT_EQ(a.peer_epoch, 22);
	len = fcr_msg_build(&a, m, 0);
	EXPECT_EQ(fcr_msg_receive(&c, m, len, 0), 0);
	EXPECT_EQ(c.st.msgs_malformed, 1);
	EXPECT_EQ(c.peer_epoch, 0);

	/*
	 * books in zeroed memory started by fcr_restart() alone (a host's
	 * link, kzalloc()ed) carry two VCs, not none: a count of 0 sent
	 * messages no peer took (a host's credits never started, seen in
	 * vm/vcsw_host_credits before this)
	 */
	memset(&c, 0, sizeof(c));
	fcr_restart(&c, 55, UNIT, 0, QUIET_NS);
	EXPECT_EQ(c.vcs, FCR_DEFAULT_VCS);
	EXPECT_EQ(fcr_msg_build(&c, two, 0), MSG_LEN);
	EXPECT_EQ(two[FABRIC_HDR_LEN + 1], 2);

	/* the count is clamped, and a restart keeps it */
	fcr_set_vcs(&c, 1);
	EXPECT_EQ(c.vcs, 2);
	fcr_set_vcs(&c, 9);
	EXPECT_EQ(c.vcs, FCR_MAX_VCS);
	fcr_restart(&a, 44, UNIT, BUFFER, QUIET_NS);
	EXPECT_EQ(a.vcs, 4);
}

/* A frame's VC: the header's if the link carries it, else best effort. */
UNIT_TEST(frame_vc_follows_the_link_count)
{
	fq_u8 h[1];
	unsigned int vc;

	for (vc = 0; vc < 4; vc++) {
		h[0] = (fq_u8)(FABRIC_HDR_VERSION << FABRIC_HDR_VER_SHIFT |
			       vc << FABRIC_HDR_VC_SHIFT | FABRIC_HDR_F_HEAD);
		EXPECT_EQ(fcr_frame_vc(4, true, h, 1), vc);
		EXPECT_EQ(fcr_frame_vc(2, true, h, 1), vc == 0 ? 0 : 1);
		EXPECT_EQ(fcr_frame_vc(4, false, h, 1), FABRIC_VC_BESTEFFORT);
		EXPECT_EQ(fcr_frame_vc(4, true, h, 0), FABRIC_VC_BESTEFFORT);
	}
}

/*
 * The simulated link's cases with four VCs: loss, reordering, blackouts
 * of messages, then restarts of one end, and an idle link backing off.
 */
UNIT_TEST(four_vcs_lossy_link_restarts_and_back_off)
{
	struct end *b = &S.e[1];
	fq_u64 msgs, t;
	unsigned int vc, i;

	sim_failed = unit_failed;
	sim_vcs = 4;
	lossy_cases(unit_failed);
	for (vc = 0; vc < 4; vc++)
		if (!S.e[0].l.st.vc[vc].lost_units && !S.e[1].l.st.vc[vc].lost_units)
			UNIT_FAIL("VC%u: the last case lost nothing on it", vc);

	sim_start(&S, 0x4444, 0xfffffff0u);
	S.data_loss_permille = 5;
	for (i = 0; i < 30; i++) {
		run(&S, 2000 + unit_rnd() % 3000);
		S.nwire = 0;
		fcr_restart(&b->l, fcr_epoch_new(unit_rnd(), b->l.epoch, 0),
			    UNIT, BUFFER, QUIET_NS);
		b->next_msg = S.now;
		for (vc = 0; vc < 4; vc++) {
			b->rxq_n[vc] = 0;
			b->lost_sent[vc] = 0;
			S.e[0].lost_sent[vc] = 0;
			S.e[0].l.st.vc[vc].lost_units = 0;
		}
	}
	run(&S, 20000);
	S.data_loss_permille = 0;
	for (vc = 0; vc < 4; vc++)
		S.e[0].l.st.vc[vc].lost_units = S.e[0].lost_sent[vc] = 0;
	sim_settle(&S, unit_failed, false);
	EXPECT_EQ(S.e[0].l.st.peer_epochs, 31);

	/* idle: 100 ms, 1000 base periods; backed off, a few dozen messages */
	msgs = S.e[0].l.st.msgs_sent;
	for (t = 0; t < 100000; t++)
		step(&S, false);
	msgs = S.e[0].l.st.msgs_sent - msgs;
	printf("# four VCs: %" PRIu64 " messages in 100 idle ms\n", msgs);
	EXPECT_TRUE(msgs < 50);
	EXPECT_EQ(S.e[0].l.idle_shift, FCR_IDLE_SHIFT_MAX);
	sim_vcs = FCR_DEFAULT_VCS;
}

/* ---- fcr_port: an input across restarts ---------------------------------- */

/* Off, nothing is counted; a charge that was not counted gives nothing back. */
UNIT_TEST(port_off_counts_nothing)
{
	struct fcr_port p;
	struct fcr_charge c;

	fcr_port_init(&p, UNIT, BUFFER * UNIT);
	EXPECT_TRUE(fcr_port_arrive(&p, &c, 1000, 0, 0));
	EXPECT_EQ(c.gen, 0);
	EXPECT_TRUE(!fcr_port_release(&p, &c));
	EXPECT_EQ(p.held_bytes[0], 0);
	EXPECT_EQ(p.l.rx[0].held, 0);
	EXPECT_EQ(p.l.st.vc[0].violations, 0);
}

/*
 * On: frames count and give back; the quarter rule asks for a message;
 * a frame beyond the grant is a violation; a release twice does nothing.
 */
/* A port of four VCs counts each on its own; one of two, VC2 and 3 on VC1. */
UNIT_TEST(port_counts_on_the_vcs_it_carries)
{
	struct fcr_port p;
	struct fcr_charge c;
	unsigned int vc;

	for (vc = 0; vc < 4; vc++) {
		fcr_port_init(&p, UNIT, BUFFER * UNIT);
		fcr_set_vcs(&p.l, 4);
		fcr_port_start(&p, 7, UNIT, QUIET_NS);
		EXPECT_EQ(p.l.rx[vc].buffer, BUFFER);
		EXPECT_TRUE(fcr_port_arrive(&p, &c, 1000, (fq_u8)vc, 0));
		EXPECT_EQ(c.vc, vc);
		EXPECT_EQ(p.l.rx[vc].held, 16);
		fcr_port_release(&p, &c);
		EXPECT_EQ(p.l.rx[vc].held, 0);

		fcr_port_init(&p, UNIT, BUFFER * UNIT);
		fcr_port_start(&p, 7, UNIT, QUIET_NS);
		EXPECT_TRUE(fcr_port_arrive(&p, &c, 1000, (fq_u8)vc, 0));
		EXPECT_EQ(c.vc, vc ? 1 : 0);
		EXPECT_EQ(p.l.rx[c.vc].held, 16);
	}
}

UNIT_TEST(port_on_counts_and_gives_back)
{
	struct fcr_port p;
	struct fcr_charge c[10];
	int i, told = 0;

	fcr_port_init(&p, UNIT, BUFFER * UNIT);
	fcr_port_start(&p, 7, UNIT, QUIET_NS);
	EXPECT_EQ(p.l.rx[1].buffer, BUFFER);
	for (i = 0; i < 8; i++)
		EXPECT_TRUE(fcr_port_arrive(&p, &c[i], 1000, 1, 0));
	EXPECT_EQ(p.held_bytes[1], 8000);
	EXPECT_EQ(p.gen, 1);
	EXPECT_EQ(c[3].gen, 1);
	EXPECT_TRUE(!fcr_port_arrive(&p, &c[8], 1000, 1, 0));
	EXPECT_EQ(p.l.st.vc[1].violations, 1);
	EXPECT_EQ(c[8].gen, 0);
	/*
	 * the refused frame's 16 units count as freed: the second release
	 * passes a quarter (33 units), and every one after it until a
	 * message goes
	 */
	for (i = 0; i < 8; i++) {
		told += fcr_port_release(&p, &c[i]);
		if (i == 3) {
			fq_u8 m[MSG_LEN];

			EXPECT_EQ(told, 3);
			fcr_msg_build(&p.l, m, 0);
			told = 0;
		}
	}
	/* 64 units since the message: the third and fourth after it */
	EXPECT_EQ(told, 2);
	EXPECT_TRUE(!fcr_port_release(&p, &c[0]));
	EXPECT_EQ(p.held_bytes[1], 0);
	EXPECT_EQ(p.l.rx[1].held, 0);
	EXPECT_EQ(fcr_rx_limit(&p.l, 1), p.l.rx[1].received + BUFFER);
}

/*
 * New books with frames of the old ones still in the buffer: they keep
 * their room out of the grant until they leave, whatever the new unit,
 * and the counters of the old books are kept.
 */
UNIT_TEST(port_restart_keeps_room_for_old_frames)
{
	struct fcr_port p;
	struct fcr_charge old[4], c;
	struct fcr_stats st;
	fq_u8 m[MSG_LEN];
	int i;

	fcr_port_init(&p, UNIT, BUFFER * UNIT);
	fcr_port_start(&p, 7, UNIT, QUIET_NS);
	for (i = 0; i < 4; i++)
		EXPECT_TRUE(fcr_port_arrive(&p, &old[i], 1000, 0, 0));
	EXPECT_TRUE(!fcr_port_arrive(&p, &c, 8192, 0, 0));	/* 1 violation */
	/* a new unit of 100 bytes: 8192 - 4000 bytes are 41 units */
	fcr_port_start(&p, 9, 100, QUIET_NS);
	EXPECT_EQ(p.restarts, 2);
	EXPECT_EQ(p.old_bytes[0], 4000);
	EXPECT_EQ(p.held_bytes[0], 0);
	EXPECT_EQ(p.l.rx[0].buffer, 41);
	EXPECT_EQ(p.l.rx[1].buffer, 81);
	/* its messages state the whole buffer all the same: what a frame
	 * waits for room in (an FBS slot's end, fcr_tx_room_capped()) */
	EXPECT_EQ(p.l.rx[0].said, 81);
	fcr_msg_build(&p.l, m, 0);
	EXPECT_EQ(fcr_get_be24(m + FABRIC_HDR_LEN + FCR_VC_OFF(0) + 9), 81);
	fcr_port_read_stats(&p, &st);
	EXPECT_EQ(st.vc[0].violations, 1);
	/* 41 units of 100 bytes: 4100 bytes, and no more */
	EXPECT_TRUE(fcr_port_arrive(&p, &c, 4100, 0, 0));
	EXPECT_EQ(p.gen, 2);
	EXPECT_EQ(c.gen, 2);
	EXPECT_EQ(p.l.rx[0].held, 41);
	/* the old frames leave: their room comes back to the new books */
	for (i = 0; i < 4; i++)
		EXPECT_TRUE(!fcr_port_release(&p, &old[i]));
	EXPECT_EQ(p.old_bytes[0], 0);
	EXPECT_EQ(p.l.rx[0].buffer, 81);
	EXPECT_EQ(p.l.rx[0].said, 81);
	EXPECT_TRUE(!fcr_port_release(&p, &old[0]));
	fcr_port_release(&p, &c);
	EXPECT_EQ(p.l.rx[0].held, 0);
	/* never more in the buffer than it has: 4000 + 4100 <= 8192 */
	fcr_port_read_stats(&p, &st);
	EXPECT_EQ(st.vc[0].violations, 1);
}

/*
 * Off with frames held, on again: the held frames are of earlier books
 * whichever way, and the buffer is whole again once they leave.  A new
 * size while they are there counts them against it.
 */
UNIT_TEST(port_off_and_on_with_frames_held)
{
	struct fcr_port p;
	struct fcr_charge c[3];
	int i;

	fcr_port_init(&p, UNIT, BUFFER * UNIT);
	fcr_port_start(&p, 7, UNIT, QUIET_NS);
	for (i = 0; i < 3; i++)
		EXPECT_TRUE(fcr_port_arrive(&p, &c[i], 640, 1, 0));
	fcr_port_stop(&p);
	EXPECT_TRUE(!p.on);
	EXPECT_EQ(p.old_bytes[1], 1920);
	/* one leaves while off: nothing advertised, the room still comes back */
	EXPECT_TRUE(!fcr_port_release(&p, &c[0]));
	EXPECT_EQ(p.old_bytes[1], 1280);
	fcr_port_start(&p, 11, UNIT, QUIET_NS);
	EXPECT_EQ(p.l.rx[1].buffer, BUFFER - 20);
	fcr_port_set_buffer(&p, 1, 4096);
	EXPECT_EQ(p.l.rx[1].buffer, 64 - 20);
	fcr_port_release(&p, &c[1]);
	fcr_port_release(&p, &c[2]);
	EXPECT_EQ(p.l.rx[1].buffer, 64);
	EXPECT_EQ(p.old_bytes[1], 0);
	/* off, a new size is remembered for the next start */
	fcr_port_stop(&p);
	fcr_port_set_buffer(&p, 1, 8192);
	EXPECT_EQ(p.l.rx[1].buffer, 64);
	fcr_port_start(&p, 13, UNIT, QUIET_NS);
	EXPECT_EQ(p.l.rx[1].buffer, BUFFER);
}

/*
 * A new epoch is never 0 and never the current or the previous one (the
 * peer would see no restart, or take every message for a stale one of
 * our old life), also where they are neighbours and at the wrap.
 */
UNIT_TEST(new_epoch_is_neither_current_nor_previous)
{
	fq_u32 cur, prev, r, e;

	EXPECT_EQ(fcr_epoch_new(6, 1, 3), 7);
	EXPECT_EQ(fcr_epoch_new(7, 7, 9), 11);
	EXPECT_EQ(fcr_epoch_new(9, 7, 9), 11);
	EXPECT_EQ(fcr_epoch_new(0, 1, 3), 5);
	EXPECT_EQ(fcr_epoch_new(0xffffffff, 0xffffffff, 1), 3);
	for (r = 0; r < 20000; r++) {
		cur = (fq_u32)unit_rnd() | 1;
		prev = cur + 2 * (fq_u32)(unit_rnd() % 3);
		e = fcr_epoch_new(r % 2 ? cur : prev, cur, prev);
		if (!e || e == cur || e == prev) {
			UNIT_FAIL("epoch %u from cur %u prev %u", e, cur, prev);
			return;
		}
	}
}

/*
 * The wire's epoch is drawn at random, so a later start may draw one an
 * earlier start had while frames it counted are still in the buffer.
 * Those frames are of earlier books all the same: their room goes back
 * to what is advertised, never into the new books' grant as if the new
 * books had counted them (that would grant room that is occupied).
 */
UNIT_TEST(port_repeated_epoch_keeps_old_frames_apart)
{
	struct fcr_port p;
	struct fcr_charge old[4], c;
	fq_u32 limit;
	int i;

	fcr_port_init(&p, UNIT, BUFFER * UNIT);
	fcr_port_start(&p, 7, UNIT, QUIET_NS);
	for (i = 0; i < 4; i++)
		EXPECT_TRUE(fcr_port_arrive(&p, &old[i], 1024, 0, 0));
	fcr_port_start(&p, 9, UNIT, QUIET_NS);
	fcr_port_start(&p, 7, UNIT, QUIET_NS);	/* 7 again */
	EXPECT_EQ(p.old_bytes[0], 4096);
	EXPECT_EQ(p.l.rx[0].buffer, BUFFER - 64);
	/* the new books take what they grant: the buffer less the old 64 */
	EXPECT_TRUE(fcr_port_arrive(&p, &c, 64 * UNIT, 0, 0));
	limit = fcr_rx_limit(&p.l, 0);
	for (i = 0; i < 4; i++)
		EXPECT_TRUE(!fcr_port_release(&p, &old[i]));
	/* the old room came back as buffer, the new frame still holds */
	EXPECT_EQ(p.old_bytes[0], 0);
	EXPECT_EQ(p.held_bytes[0], 64 * UNIT);
	EXPECT_EQ(p.l.rx[0].held, 64);
	EXPECT_EQ(p.l.rx[0].buffer, BUFFER);
	EXPECT_EQ(fcr_rx_limit(&p.l, 0), limit + 64);
	/* so what the sender may add never overfills: 64 held + 64 more */
	EXPECT_EQ(fcr_rx_limit(&p.l, 0) - p.l.rx[0].received, BUFFER - 64);
	fcr_port_release(&p, &c);
	EXPECT_EQ(p.l.rx[0].held, 0);
}

/*
 * A port and a sender over a link that restarts the port's books at
 * random moments with frames in its buffer (a flap, a new unit), its
 * epochs drawn from three (so each returns while frames of its earlier
 * books may be held): the buffer never holds more bytes than it has, and
 * once idle the sender's credits are the whole buffer again.
 */
UNIT_TEST(port_random_restarts_never_overfill)
{
	struct fcr_charge held[256];
	unsigned int nheld = 0, round, restarts = 0;
	struct fcr_port p;
	struct fcr_link s;
	fq_u64 now = 0;
	fq_u32 epoch = 100, bytes;
	fq_u8 m[MSG_LEN];

	fcr_port_init(&p, UNIT, BUFFER * UNIT);
	fcr_port_start(&p, epoch, UNIT, QUIET_NS);
	fcr_init(&s, 5, UNIT, BUFFER, QUIET_NS);
	for (round = 0; round < 200000; round++) {
		unsigned int k, vc;
		fq_u32 len = 60 + (fq_u32)(unit_rnd() % 1455);

		now += 1000;
		vc = (unsigned int)(unit_rnd() % 2);
		/* the sender sends what it may, the port holds it */
		if (round < 190000 && nheld < 256 && fcr_tx_may_send(&s, vc, len)) {
			fcr_tx_sent(&s, vc, len, now);
			if (!fcr_port_arrive(&p, &held[nheld], len, (fq_u8)vc, now)) {
				UNIT_FAIL("round %u: refused with credits", round);
				return;
			}
			nheld++;
		}
		/* frames leave in any order */
		if (nheld && chance(400)) {
			k = (unsigned int)(unit_rnd() % nheld);
			fcr_port_release(&p, &held[k]);
			held[k] = held[--nheld];
		}
		/* messages both ways, now and then */
		if (chance(50)) {
			fcr_msg_build(&p.l, m, now);
			fcr_msg_receive(&s, m, sizeof(m), now);
			fcr_msg_build(&s, m, now);
			fcr_msg_receive(&p.l, m, sizeof(m), now);
		}
		if (chance(1)) {
			/* three epochs only: each comes again every few starts */
			epoch = fcr_epoch_new(101 + 2 * (fq_u32)(unit_rnd() % 3),
					      p.l.epoch, p.prev_epoch);
			fcr_port_start(&p, epoch, UNIT, QUIET_NS);
			restarts++;
		}
		/* what is in the buffer, counted here, not by the port */
		for (vc = 0; vc < 2; vc++) {
			for (bytes = 0, k = 0; k < nheld; k++)
				bytes += held[k].vc == vc ? held[k].len : 0;
			if (bytes > BUFFER * UNIT) {
				UNIT_FAIL("round %u vc %u: %u bytes in a %u-byte buffer",
					  round, vc, bytes, BUFFER * UNIT);
				return;
			}
		}
	}
	while (nheld)
		fcr_port_release(&p, &held[--nheld]);
	for (round = 0; round < 4; round++) {
		now += 2 * QUIET_NS;
		fcr_msg_build(&p.l, m, now);
		fcr_msg_receive(&s, m, sizeof(m), now);
		fcr_msg_build(&s, m, now);
		fcr_msg_receive(&p.l, m, sizeof(m), now);
	}
	EXPECT_TRUE(restarts > 100);
	EXPECT_EQ(p.old_bytes[0] + p.old_bytes[1], 0);
	EXPECT_EQ(fcr_tx_credits(&s, 0), BUFFER);
	EXPECT_EQ(fcr_tx_credits(&s, 1), BUFFER);
	EXPECT_EQ(p.l.st.vc[0].violations + p.l.st.vc[1].violations, 0);
}

/* Messages both ways between a sender @s and a port @p at @now. */
static void port_talk(struct fcr_link *s, struct fcr_port *p, fq_u64 now)
{
	fq_u8 m[MSG_LEN];

	fcr_msg_build(s, m, now);
	fcr_msg_receive(&p->l, m, sizeof(m), now);
	fcr_msg_build(&p->l, m, now);
	fcr_msg_receive(s, m, sizeof(m), now);
}

/*
 * A port with credits on and a host that sends to it, past their
 * handshake (@p's books from epoch 7, @s's from 5).
 */
static void port_with_sender(struct fcr_port *p, struct fcr_link *s)
{
	fcr_port_init(p, UNIT, BUFFER * UNIT);
	fcr_port_start(p, 7, UNIT, QUIET_NS);
	fcr_init(s, 5, UNIT, BUFFER, QUIET_NS);
	handshake(s, &p->l);
	port_talk(s, p, 0);
}

/*
 * That sender fills the buffer, its last frame on its way past quiet (not
 * arrived): @held the BUFFER - 1 frames the port counted.  False if the
 * port refused one.
 */
static bool port_full_but_the_last(struct fcr_port *p, struct fcr_link *s,
				   struct fcr_charge *held)
{
	bool all = true;
	unsigned int i;

	port_with_sender(p, s);
	for (i = 0; i < BUFFER; i++) {
		fcr_tx_sent(s, 0, UNIT, 1);
		if (i < BUFFER - 1)
			all &= fcr_port_arrive(p, &held[i], UNIT, 0, 1);
	}
	return all;
}

/*
 * A frame delayed past the quiet time is found lost and granted again,
 * and the sender sends on that grant: the buffer holds all it has, and
 * the late frame has only the room the books kept for it.  When the
 * port's books start again before it arrives (the link flapped, a new
 * unit), the new books' buffer is full of the old frames, yet the late
 * frame was sent within every grant: it must be taken (the old books'
 * late room goes to the new ones), and once it and the rest leave the
 * books are whole again.  Before the room was carried over, it was
 * refused, a violation on a link where every end kept the rules.
 */
UNIT_TEST(port_restart_keeps_room_for_frames_found_lost)
{
	struct fcr_charge held[BUFFER + 1], late;
	struct fcr_stats st;
	struct fcr_port p;
	struct fcr_link s;
	unsigned int i;

	port_with_sender(&p, &s);
	EXPECT_EQ(fcr_tx_credits(&s, 0), BUFFER);
	/* the whole grant sent; the last frame waits on the link */
	for (i = 0; i < BUFFER; i++) {
		fcr_tx_sent(&s, 0, UNIT, 1);
		if (i < BUFFER - 1)
			EXPECT_TRUE(fcr_port_arrive(&p, &held[i], UNIT, 0, 1));
	}
	/* a quiet total finds it lost: one unit granted again, and sent */
	port_talk(&s, &p, 1 + 2 * QUIET_NS);
	EXPECT_EQ(p.l.st.vc[0].lost_units, 1);
	EXPECT_EQ(p.l.rx[0].late, 1);
	EXPECT_EQ(fcr_tx_credits(&s, 0), 1);
	fcr_tx_sent(&s, 0, UNIT, 2 + 2 * QUIET_NS);
	EXPECT_TRUE(fcr_port_arrive(&p, &held[BUFFER - 1], UNIT, 0, 2 + 2 * QUIET_NS));
	/*
	 * The books start again and hear the sender's totals, which count
	 * the late frame; then it comes, and is not counted again
	 */
	fcr_port_start(&p, 9, UNIT, QUIET_NS);
	EXPECT_EQ(p.carried_bytes[0], UNIT);
	port_talk(&s, &p, 3 + 2 * QUIET_NS);
	EXPECT_EQ(p.l.rx[0].received, BUFFER + 1);
	EXPECT_TRUE(fcr_port_arrive(&p, &late, UNIT, 0, 3 + 2 * QUIET_NS));
	EXPECT_EQ(p.l.rx[0].received, BUFFER + 1);
	EXPECT_EQ(late.gen, 1);
	EXPECT_EQ(p.old_bytes[0], (BUFFER + 1) * UNIT);
	EXPECT_EQ(p.l.rx[0].buffer, 0);
	EXPECT_EQ(p.carried_bytes[0], 0);
	fcr_port_read_stats(&p, &st);
	EXPECT_EQ(st.vc[0].violations, 0);
	EXPECT_EQ(st.vc[0].late_units, 1);
	/* everything leaves; once idle the sender has the whole buffer */
	fcr_port_release(&p, &late);
	for (i = 0; i < BUFFER; i++)
		fcr_port_release(&p, &held[i]);
	for (i = 0; i < 4; i++)
		port_talk(&s, &p, (4 + i) * 2 * QUIET_NS);
	EXPECT_EQ(p.old_bytes[0], 0);
	EXPECT_EQ(p.l.rx[0].buffer, BUFFER);
	EXPECT_EQ(fcr_tx_credits(&s, 0), BUFFER);
	fcr_port_read_stats(&p, &st);
	EXPECT_EQ(st.vc[0].violations, 0);
}

/*
 * A frame sent on a grant that the late room and room freed since both
 * backed: after the books start again it finds the new books' free room
 * too small for it alone and the carried room too small for it alone,
 * and takes both.  Before, it had to fit in the carried room whole and
 * was refused.
 */
UNIT_TEST(port_restart_late_frame_takes_free_and_carried_room)
{
	struct fcr_charge held[BUFFER], late, two;
	struct fcr_port p;
	struct fcr_link s;
	unsigned int i;

	EXPECT_TRUE(port_full_but_the_last(&p, &s, held));
	/* found lost, and one frame leaves: two units granted, one frame */
	fcr_port_release(&p, &held[0]);
	port_talk(&s, &p, 1 + 2 * QUIET_NS);
	EXPECT_EQ(p.l.rx[0].late, 1);
	EXPECT_EQ(fcr_tx_credits(&s, 0), 2);
	fcr_tx_sent(&s, 0, 2 * UNIT, 2 + 2 * QUIET_NS);
	/* new books: two units free, one carried; the late frame takes one */
	fcr_port_start(&p, 9, UNIT, QUIET_NS);
	EXPECT_EQ(p.l.rx[0].buffer, 2);
	EXPECT_EQ(p.carried_bytes[0], UNIT);
	EXPECT_TRUE(fcr_port_arrive(&p, &late, UNIT, 0, 3 + 2 * QUIET_NS));
	EXPECT_TRUE(fcr_port_arrive(&p, &two, 2 * UNIT, 0, 3 + 2 * QUIET_NS));
	EXPECT_EQ(two.gen, 1);
	EXPECT_EQ(p.carried_bytes[0], 0);
	EXPECT_EQ(p.l.st.vc[0].violations, 0);
	/* never more than the buffer and the room carried */
	EXPECT_EQ(p.old_bytes[0] + p.held_bytes[0], (BUFFER + 1) * UNIT);
	fcr_port_release(&p, &late);
	fcr_port_release(&p, &two);
	for (i = 1; i < BUFFER - 1; i++)
		fcr_port_release(&p, &held[i]);
	for (i = 0; i < 4; i++)
		port_talk(&s, &p, (4 + i) * 2 * QUIET_NS);
	EXPECT_EQ(p.old_bytes[0], 0);
	EXPECT_EQ(fcr_tx_credits(&s, 0), BUFFER);
	EXPECT_EQ(p.l.st.vc[0].violations, 0);
}

/*
 * Frames found lost before and after the port's books start again, both
 * late, both taken into the new books' free room and counted by them:
 * the sender's grant is two units too large, backed by one unit the old
 * books kept (carried) and one the new books keep.  A two-unit frame the
 * sender sends on that grant into a full buffer needs both.  Each room
 * used to take only a frame it held alone, and this one was refused
 * (fuzz_credit, a frame held on the wire past quiet).
 */
UNIT_TEST(port_late_frame_takes_both_rooms)
{
	struct fcr_charge held[BUFFER], late[2], two;
	struct fcr_port p;
	struct fcr_link s;
	unsigned int i, n = 0;

	port_with_sender(&p, &s);
	/* a frame on its way past quiet: found lost by the first books */
	fcr_tx_sent(&s, 0, UNIT, 1);
	port_talk(&s, &p, 1 + 2 * QUIET_NS);
	EXPECT_EQ(p.l.rx[0].late, 1);
	fcr_port_start(&p, 9, UNIT, QUIET_NS);
	EXPECT_EQ(p.carried_bytes[0], UNIT);
	port_talk(&s, &p, 2 + 2 * QUIET_NS);
	port_talk(&s, &p, 3 + 2 * QUIET_NS);
	EXPECT_EQ(fcr_tx_credits(&s, 0), BUFFER);
	/* and another, found lost by the new books */
	fcr_tx_sent(&s, 0, UNIT, 4 + 2 * QUIET_NS);
	port_talk(&s, &p, 4 + 4 * QUIET_NS);
	EXPECT_EQ(p.l.rx[0].late, 1);
	/* both come after all, into free room */
	EXPECT_TRUE(fcr_port_arrive(&p, &late[0], UNIT, 0, 5 + 4 * QUIET_NS));
	EXPECT_TRUE(fcr_port_arrive(&p, &late[1], UNIT, 0, 5 + 4 * QUIET_NS));
	port_talk(&s, &p, 6 + 4 * QUIET_NS);
	EXPECT_EQ(fcr_tx_credits(&s, 0), BUFFER);
	/* the sender fills its grant: the last frame, two units, beyond */
	while (fcr_tx_credits(&s, 0) > 2) {
		fcr_tx_sent(&s, 0, UNIT, 7 + 4 * QUIET_NS);
		EXPECT_TRUE(fcr_port_arrive(&p, &held[n++], UNIT, 0, 7 + 4 * QUIET_NS));
	}
	EXPECT_EQ(p.l.rx[0].held, p.l.rx[0].buffer);
	fcr_tx_sent(&s, 0, 2 * UNIT, 8 + 4 * QUIET_NS);
	EXPECT_TRUE(fcr_port_arrive(&p, &two, 2 * UNIT, 0, 8 + 4 * QUIET_NS));
	EXPECT_EQ(p.l.st.vc[0].violations, 0);
	EXPECT_EQ(p.l.rx[0].late, 0);
	EXPECT_EQ(p.carried_bytes[0], 0);
	/* never more than the buffer and the two rooms */
	EXPECT_EQ(p.old_bytes[0] + p.held_bytes[0], (BUFFER + 2) * UNIT);
	/* all leave: the sender has the buffer again, exactly */
	fcr_port_release(&p, &late[0]);
	fcr_port_release(&p, &late[1]);
	fcr_port_release(&p, &two);
	for (i = 0; i < n; i++)
		fcr_port_release(&p, &held[i]);
	/*
	 * before the link is idle, when a quiet total would set the count
	 * anew: the frame beyond the buffer took the excess grant back
	 */
	port_talk(&s, &p, 9 + 4 * QUIET_NS);
	port_talk(&s, &p, 10 + 4 * QUIET_NS);
	EXPECT_EQ(fcr_tx_credits(&s, 0), BUFFER);
	for (i = 0; i < 4; i++)
		port_talk(&s, &p, (6 + i) * 2 * QUIET_NS);
	EXPECT_EQ(p.old_bytes[0] + p.held_bytes[0], 0);
	EXPECT_EQ(fcr_tx_credits(&s, 0), BUFFER);
	EXPECT_EQ(p.l.st.vc[0].violations, 0);
}

/*
 * The same late frame, when the sender starts again instead (its link
 * came up, credits on): its old grant goes, but the frames it sent on it
 * are still on their way, one of them on the room kept for late frames.
 * The receiver takes the new life's totals as its count and must keep
 * that room: the late frame comes to a full buffer.  Before, the room
 * went with the old life, and the frame was refused.
 */
UNIT_TEST(peer_restart_keeps_room_for_frames_found_lost)
{
	struct fcr_charge held[BUFFER + 1], late;
	struct fcr_port p;
	struct fcr_link s;
	unsigned int i;

	EXPECT_TRUE(port_full_but_the_last(&p, &s, held));
	port_talk(&s, &p, 1 + 2 * QUIET_NS);
	EXPECT_EQ(fcr_tx_credits(&s, 0), 1);
	fcr_tx_sent(&s, 0, UNIT, 2 + 2 * QUIET_NS);
	EXPECT_TRUE(fcr_port_arrive(&p, &held[BUFFER - 1], UNIT, 0, 2 + 2 * QUIET_NS));
	/* the sender starts again and speaks; then the late frame comes */
	fcr_restart(&s, 9, UNIT, BUFFER, QUIET_NS);
	port_talk(&s, &p, 3 + 2 * QUIET_NS);
	EXPECT_EQ(p.l.st.peer_epochs, 2);
	EXPECT_EQ(p.l.rx[0].late, 1);
	EXPECT_TRUE(fcr_port_arrive(&p, &late, UNIT, 0, 4 + 2 * QUIET_NS));
	EXPECT_EQ(p.l.st.vc[0].violations, 0);
	EXPECT_EQ(p.l.st.vc[0].late_units, 1);
	/* not counted: the new life never sent it */
	EXPECT_EQ(p.l.rx[0].received, 0);
	fcr_port_release(&p, &late);
	for (i = 0; i < BUFFER; i++)
		fcr_port_release(&p, &held[i]);
	for (i = 0; i < 4; i++)
		port_talk(&s, &p, (4 + i) * 2 * QUIET_NS);
	EXPECT_EQ(fcr_tx_credits(&s, 0), BUFFER);
	EXPECT_EQ(p.l.st.vc[0].violations, 0);
}

/*
 * The carried room is no way around the buffer: a sender that claims
 * frames lost that it never sent gets late room at every start of the
 * port's books, and sends beyond every grant.  However often the books
 * start, the carried room stays within one buffer and the input never
 * holds more than twice its buffer; what goes beyond is refused.
 */
UNIT_TEST(port_carried_room_stays_within_the_buffer)
{
	struct fcr_charge held[3 * BUFFER];
	unsigned int nheld = 0, round, taken = 0, refused = 0;
	struct fcr_port p;
	struct fcr_link s;
	fq_u64 now = 0;
	fq_u32 epoch = 7;

	fcr_port_init(&p, UNIT, BUFFER * UNIT);
	fcr_port_start(&p, epoch, UNIT, QUIET_NS);
	fcr_init(&s, 5, UNIT, BUFFER, QUIET_NS);
	handshake(&s, &p.l);
	for (round = 0; round < 5000; round++) {
		fq_u32 k, n = (fq_u32)(unit_rnd() % (2 * BUFFER));

		now += 2 * QUIET_NS;
		/* totals that claim frames never sent: found lost */
		for (k = 0; k < n; k++)
			fcr_tx_sent(&s, 0, UNIT, now - QUIET_NS - 1);
		port_talk(&s, &p, now);
		if (chance(500)) {
			epoch = fcr_epoch_new((fq_u32)unit_rnd(), p.l.epoch, p.prev_epoch);
			fcr_port_start(&p, epoch, UNIT, QUIET_NS);
			port_talk(&s, &p, now);
		}
		/* the buffer resized now and then, as the port's start does */
		if (chance(100))
			fcr_port_set_buffer(&p, 0, (fq_u32)(1 + unit_rnd() % BUFFER) * UNIT);
		if (p.carried_bytes[0] > p.in_bytes[0]) {
			UNIT_FAIL("round %u: %u bytes carried, %u of buffer", round,
				  p.carried_bytes[0], p.in_bytes[0]);
			return;
		}
		/* frames beyond any grant */
		for (k = (fq_u32)(unit_rnd() % (3 * BUFFER)); k; k--) {
			if (nheld == 3 * BUFFER)
				break;
			if (fcr_port_arrive(&p, &held[nheld], UNIT, 0, now)) {
				nheld++;
				taken++;
			} else {
				refused++;
			}
		}
		if ((fq_u64)p.old_bytes[0] + p.held_bytes[0] > 2 * BUFFER * UNIT) {
			UNIT_FAIL("round %u: %u + %u bytes in a %u-byte input", round,
				  p.old_bytes[0], p.held_bytes[0], BUFFER * UNIT);
			return;
		}
		/* some leave, in any order */
		for (k = (fq_u32)(unit_rnd() % (BUFFER + 1)); k && nheld; k--) {
			fq_u32 i = (fq_u32)(unit_rnd() % nheld);

			fcr_port_release(&p, &held[i]);
			held[i] = held[--nheld];
		}
	}
	/* both ways happened, many times */
	EXPECT_TRUE(taken > 5000 * BUFFER / 4);
	EXPECT_TRUE(refused > 5000 * BUFFER / 4);
	while (nheld)
		fcr_port_release(&p, &held[--nheld]);
	EXPECT_EQ(p.old_bytes[0], 0);
	EXPECT_EQ(p.held_bytes[0], 0);
}

/*
 * A host's end (a sink: it counts no arrivals) and a sender streaming into
 * it for 300,000 simulated microseconds, one 1000-byte frame per
 * microsecond and VC while credits allow, messages every 100 us each way
 * (the sink answers a newer total at once), 10 % of them lost, each
 * delayed by 20 us, and the sender restarting half way.  The sender may
 * never have more than the sink's buffer sent beyond what the sink has
 * heard of, and must keep sending: a sink that granted nothing new would
 * stall it for good after one buffer.
 */
#define SINK_BUFFER	256
#define SINK_STEPS	300000
#define SINK_PERIOD	100
#define SINK_DELAY	20

struct sink_msg {
	fq_u8	m[MSG_LEN];
	fq_u64	at;
	bool	to_sink;
};

UNIT_TEST(sink_grants_beyond_what_the_sender_reported)
{
	struct sink_msg q[64];
	unsigned int nq = 0, i, vc;
	struct fcr_link a, h;
	fq_u64 now, frames = 0, frames_after_restart = 0;
	fq_s32 ahead, worst = 0;
	int bad = 0;

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&h, 22, UNIT, 0, QUIET_NS);
	fcr_set_sink(&h, SINK_BUFFER);
	for (now = 0; now < SINK_STEPS; now++) {
		if (now == SINK_STEPS / 2)
			fcr_restart(&a, 33, UNIT, BUFFER, QUIET_NS);
		for (vc = 0; vc < a.vcs; vc++) {
			if (!fcr_tx_may_send(&a, vc, 1000))
				continue;
			fcr_tx_sent(&a, vc, 1000, now);
			frames++;
			if (now >= SINK_STEPS / 2)
				frames_after_restart++;
			/* once the sink knows this life of the sender */
			if (h.peer_epoch != a.epoch)
				continue;
			ahead = (fq_s32)(a.tx[vc].sent - h.rx[vc].received);
			if (ahead > worst)
				worst = ahead;
			bad += ahead > SINK_BUFFER;
		}
		/* periodic messages, and the sink's replies, onto the wire */
		for (i = 0; i < 2; i++) {
			bool to_sink = i == 0;

			if (now % SINK_PERIOD != (to_sink ? 0 : SINK_PERIOD / 2) ||
			    nq == 64)
				continue;
			fcr_msg_build(to_sink ? &a : &h, q[nq].m, now);
			q[nq].at = now + SINK_DELAY;
			q[nq].to_sink = to_sink;
			nq++;
		}
		/* deliver what is due, in order; 10 % lost */
		for (i = 0; i < nq; ) {
			struct sink_msg it = q[i];
			unsigned int r;

			if (it.at > now) {
				i++;
				continue;
			}
			q[i] = q[--nq];
			if (chance(100))
				continue;
			r = fcr_msg_receive(it.to_sink ? &h : &a, it.m, MSG_LEN, now);
			if ((r & FCR_REPLY_NOW) && nq < 64) {
				fcr_msg_build(it.to_sink ? &h : &a, q[nq].m, now);
				q[nq].at = now + SINK_DELAY;
				q[nq].to_sink = !it.to_sink;
				nq++;
			}
		}
	}
	EXPECT_EQ(bad, 0);
	EXPECT_TRUE(worst <= SINK_BUFFER);
	EXPECT_TRUE(worst > SINK_BUFFER / 2);
	/* a buffer per VC every two periods at least, in both lives */
	EXPECT_TRUE(frames >= (fq_u64)SINK_STEPS / (2 * SINK_PERIOD) * 2 *
			      (SINK_BUFFER / 16));
	EXPECT_TRUE(frames_after_restart >= frames / 3);
	EXPECT_EQ(h.st.vc[0].violations + h.st.vc[1].violations, 0);
	EXPECT_EQ(h.st.vc[0].lost_units + h.st.vc[1].lost_units, 0);
	EXPECT_EQ(h.st.peer_epochs, 2);
}

/*
 * A sink answers a newer total at once only when a quarter of its buffer
 * has been granted since its last message; smaller steps wait for its
 * next one.  Before, every message with a newer total had an answer, and
 * a link carrying traffic toward a host sent twice the messages.
 */
UNIT_TEST(sink_answers_at_once_only_past_a_quarter)
{
	struct fcr_link a, h;
	fq_u8 m[MSG_LEN];
	unsigned int r;
	int i, now_replies = 0;

	fcr_init(&a, 11, UNIT, BUFFER, QUIET_NS);
	fcr_init(&h, 22, UNIT, 0, QUIET_NS);
	fcr_set_sink(&h, SINK_BUFFER);
	handshake(&a, &h);
	EXPECT_EQ(fcr_tx_credits(&a, 1), SINK_BUFFER);
	/* 16 messages, each after 4 units sent: a quarter (65) every 17 */
	for (i = 1; i <= 16 * 4; i++) {
		fcr_tx_sent(&a, 1, 4 * UNIT, 100 + (fq_u64)i);
		fcr_msg_build(&a, m, 100 + (fq_u64)i);
		r = fcr_msg_receive(&h, m, sizeof(m), 100 + (fq_u64)i);
		if (r & FCR_REPLY_NOW) {
			now_replies++;
			EXPECT_EQ(i % 17, 0);
			fcr_msg_build(&h, m, 100 + (fq_u64)i);
			EXPECT_TRUE(fcr_msg_receive(&a, m, sizeof(m), 100 + (fq_u64)i) &
				    FCR_CREDITS_GREW);
		}
	}
	EXPECT_EQ(now_replies, 3);
	/* the sink's next message grants all: the buffer beyond what a sent */
	fcr_msg_build(&h, m, 200);
	fcr_msg_receive(&a, m, sizeof(m), 200);
	EXPECT_EQ(fcr_tx_credits(&a, 1), SINK_BUFFER);
}

/* The base period: a quarter buffer at the link's rate, within 1 to 4 ms. */
UNIT_TEST(base_period_follows_the_link_rate)
{
	/* rate unknown */
	EXPECT_EQ(fcr_base_period(8192, 0), FCR_PERIOD_MIN_NS);
	/* 8 KB at 5 Mbit/s: 2048 bytes in 3.2768 ms */
	EXPECT_EQ(fcr_base_period(8192, 625000), 3276800);
	/* at 40 Mbit/s, 0.41 ms: the shortest */
	EXPECT_EQ(fcr_base_period(8192, 5000000), FCR_PERIOD_MIN_NS);
	/* at 1 Mbit/s, 16 ms: the longest, well within the quiet time */
	EXPECT_EQ(fcr_base_period(8192, 125000), FCR_PERIOD_MAX_NS);
	EXPECT_TRUE(FCR_PERIOD_MAX_NS < FCR_DEFAULT_QUIET_NS / 2);
	/* a host's 256 KB sink at 10 Gbit/s: 52 us, the shortest */
	EXPECT_EQ(fcr_base_period(256 * 1024, 1250000000ULL), FCR_PERIOD_MIN_NS);
	/* no overflow at the largest buffer and a slow link */
	EXPECT_EQ(fcr_base_period(0xffffffffu, 1), FCR_PERIOD_MAX_NS);
}

/*
 * Backed off, an idle link's period is at most 64 ms whatever its base:
 * a peer's silence past that means something (vm/vcsw_host_credits
 * reads peer_silent_ms under 100 ms on an idle link).
 */
UNIT_TEST(idle_period_at_most_64_ms_whatever_the_base)
{
	struct fcr_link l;
	unsigned int shift;

	fcr_init(&l, 7, UNIT, BUFFER, QUIET_NS);
	for (shift = 0; shift <= FCR_IDLE_SHIFT_MAX; shift++) {
		l.idle_shift = (fq_u8)shift;
		EXPECT_EQ(fcr_msg_period(&l, FCR_PERIOD_MIN_NS), FCR_PERIOD_MIN_NS << shift);
		EXPECT_TRUE(fcr_msg_period(&l, FCR_PERIOD_MAX_NS) <= 64000000ULL);
		EXPECT_TRUE(fcr_msg_period(&l, FCR_PERIOD_MAX_NS) >= FCR_PERIOD_MAX_NS);
	}
	EXPECT_EQ(fcr_msg_period(&l, FCR_PERIOD_MAX_NS), 64000000ULL);
	l.idle_shift = 2;
	EXPECT_EQ(fcr_msg_period(&l, 3276800), 4 * 3276800ULL);
	/* a base beyond the cap (the simulations' 100 us base: not) stays */
	l.idle_shift = 0;
	EXPECT_EQ(fcr_msg_period(&l, 100000000ULL), 100000000ULL);
}

int main(void)
{
	return unit_run();
}
