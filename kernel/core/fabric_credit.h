/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-VC credit flow control on one fabric link, both directions, in
 * plain C shared by the kernel (the soft switch's ports, the hosts'
 * qdiscs), the unit tests and the simulator.  Documentation/credits.rst
 * has the protocol; the wire format of the control message is in
 * include/uapi/linux/fabric_hdr.h.
 *
 * Each end of a link is a sender and a receiver.  Everything is counted
 * in credit units (64 bytes by default), in 32-bit counters that wrap:
 * only differences are ever compared.
 *
 *  - The receiver holds an input buffer of @buffer units per VC.  It
 *    counts the units it @received (a running total) and those it still
 *    @held, and grants the sender the limit
 *
 *	received + buffer - held
 *
 *    a running total of units the sender may have sent: what it sent
 *    already plus the free room.  A frame that arrives adds to received
 *    and held alike, so the limit stays; freeing it raises the limit.
 *  - The sender counts the units it @sent and sends a frame of u units
 *    only while limit - sent >= u.
 *
 * Both totals travel in one control message that each end sends to the
 * other, so losing one loses nothing: the next carries the same totals,
 * newer.  A lost data frame is the leak: the sender counted it, the
 * receiver never will, and limit - sent falls by its size for good.  So
 * the message also carries the sender's @sent, marked "quiet" when the
 * sender has sent nothing on the VC for @quiet_ns: everything it sent has
 * arrived by then or never will, and the receiver takes the difference
 * as lost (received catches up with sent, and the limit with it).  A
 * link that leaked enough to stall goes quiet, so a stall repairs
 * itself.  Only a quiet total is trusted because a link may reorder (a
 * veth peer takes frames into the backlog of the CPU that sent them): a
 * frame overtaken by the message would otherwise count twice.  A quiet
 * total that finds the receiver quiet too (nothing arrived for @quiet_ns)
 * sets the count exactly, down as well as up, so what was counted twice
 * all the same (a frame delayed beyond @quiet_ns, frames crossing a
 * restart) is taken back once the link is idle.  Until then the grant is
 * too large by what was counted twice, and the sender may use it: so the
 * receiver keeps what it found lost as @late room beyond its buffer (at
 * most one buffer more), and takes what arrives beyond the buffer into
 * it, uncounted, instead of refusing it: not counting it takes the
 * excess grant back.  "Quiet" is a guess about time (a frame stuck on the receive
 * backlog of a CPU the hypervisor does not run takes as long as it
 * likes), and a wrong guess must not cost a frame.  Where the sender
 * knows a frame is not on the link yet it does not guess: a frame counted
 * but still in its own queue (fcr_tx_queue()), or in a device queue that
 * its messages overtake and that it has not seen empty since
 * (fcr_tx_device_seen()), keeps its VC from being quiet; counted lost at
 * every quiet total while it waited, it would take more than the room
 * kept for it.
 *
 * Each end picks an @epoch, a random nonzero number, when it starts.  A
 * message carries the sender's epoch and echoes the peer's as last seen:
 *  - a message with a new epoch means the peer (re)started: the receiver
 *    takes its @sent totals as the new starting point, whatever it holds
 *    still (frames of the old incarnation) keeps its room until freed,
 *    and so does the @late room, which the old incarnation's frames on
 *    their way may need (a port's own new books carry theirs over too:
 *    struct fcr_port);
 *  - limits are believed only from a message that echoes our own epoch:
 *    after we restart, the peer's limits speak of a buffer state that we
 *    no longer share, and we send nothing until it has heard from us.
 * Messages are numbered, on across an end's restarts; one older than the
 * last taken is stale (a link that reorders) and ignored, so a limit
 * never goes back to an older, larger value after the buffer shrank, and
 * a late message of the peer's old life is not taken for a restart
 * (fcr_msg_stale()).
 *
 * What a receiver cannot hold (a peer that ignores credits, a buffer made
 * smaller than what was granted) it refuses and counts as a violation;
 * the units still count as received, so the credit books stay balanced.
 *
 * The caller serialises all calls on one link and supplies the time (ns,
 * one clock per end; the two ends never compare clocks).
 */
#ifndef FQ_FABRIC_CREDIT_H
#define FQ_FABRIC_CREDIT_H

#include "core_types.h"
#include "fabric_hdr_core.h"

/*
 * VCs a link carries: each end is given the count (fcr_set_vcs(); two,
 * the papers' QoS and best effort, unless set), and both ends of a link
 * must have the same, since a message carries one count's fields and a
 * message of another count is refused.  The fabric header's VC field has
 * two bits: at most four.
 */
#define FCR_MAX_VCS		4
#define FCR_DEFAULT_VCS		2
#define FCR_DEFAULT_UNIT	64		/* bytes per credit */
#define FCR_DEFAULT_QUIET_NS	10000000ULL	/* 10 ms */
/* an idle link's message period grows to the base one << this (64 ms) */
#define FCR_IDLE_SHIFT_MAX	6

/*
 * What a message says: its payload from the epochs to the last VC's
 * fields (fcr_said_len()), its number (12-15) left out, and its
 * acknowledgement after.
 */
#define FCR_SAID_OFF		4
#define FCR_SAID_MAX		(FABRIC_CTRL_LINK_ACK_OFF_VCS(FCR_MAX_VCS) - FCR_SAID_OFF)

struct fcr_tx_vc {
	fq_u32	sent;		/* units sent, running total */
	fq_u32	limit;		/* the peer's grant, running total */
	fq_u32	peer_buffer;	/* the peer's input buffer, units, as its
				 * last message said; 0: not said (a peer
				 * built before it said nothing there) */
	fq_u32	queued;		/* of @sent, units still in our own queue,
				 * not yet handed to the device
				 * (fcr_tx_queue(), fcr_tx_handed()) */
	bool	limit_ok;	/* a grant for our current epoch arrived */
	bool	ever_sent;
	bool	in_device;	/* handed to a device queue (@device_queue)
				 * not seen empty since */
	fq_u64	last_sent_ns;	/* the last frame handed to the device, or
				 * the look that first saw it gone from there */
};

struct fcr_rx_vc {
	fq_u32	buffer;		/* units of input buffer */
	fq_u32	said;		/* the buffer our messages state: its whole
				 * size, where a switch port advertises less
				 * while old frames hold some (fcr_port) */
	fq_u32	received;	/* units received (or known lost), total */
	fq_u32	held;		/* units in the buffer now */
	fq_u32	freed_unadvertised; /* freed since the last message */
	fq_u32	late;		/* units found lost that may come after all:
				 * room beyond @buffer, at most @buffer */
	bool	ever_received;
	fq_u64	last_arrival_ns;
};

struct fcr_vc_stats {
	fq_u64	violations;	/* frames refused: no room although sent */
	fq_u64	lost_units;	/* units sent that never arrived (resync) */
	fq_u64	twice_units;	/* units counted twice, taken back (resync) */
	fq_u64	late_units;	/* units taken beyond the buffer, into room
				 * kept for frames found lost (late ones) */
};

struct fcr_stats {
	fq_u64	msgs_sent;
	fq_u64	msgs_received;	/* taken */
	fq_u64	msgs_malformed;	/* refused: short, unknown type or layout */
	fq_u64	msgs_unit;	/* refused: the peer counts another unit */
	fq_u64	msgs_stale;	/* ignored: older than one already taken */
	fq_u64	resyncs;	/* quiet totals that corrected our count */
	fq_u64	peer_epochs;	/* first contact or a peer restart */
	struct fcr_vc_stats vc[FCR_MAX_VCS];
};

struct fcr_link {
	fq_u32			unit;		/* bytes per credit */
	fq_u8			vcs;		/* VCs the link carries */
	/*
	 * A sink (a host) consumes every frame as it arrives and counts
	 * none: it takes the peer's sent totals from each message as
	 * received, and grants @buffer beyond them (fcr_set_sink()).
	 */
	bool			sink;
	fq_u64			quiet_ns;
	fq_u32			epoch;		/* ours, nonzero */
	fq_u32			peer_epoch;	/* 0: not heard from */
	fq_u32			old_peer_epoch;	/* the one before: stale */
	fq_u32			tx_seq;		/* our last message */
	fq_u32			rx_seq;		/* the peer's last taken */
	fq_u32			doubt_epoch;	/* an epoch whose messages look stale */
	fq_u32			doubt_n;	/* its messages since one taken */
	/* the idle back-off (fcr_msg_build(), fcr_msg_period()) */
	fq_u32			acked_seq;	/* our last message the peer took */
	fq_u32			said_since;	/* ours that first said @said */
	fq_u8			said[FCR_SAID_MAX]; /* what our last one said */
	fq_u8			peer_said[FCR_SAID_MAX]; /* the peer's last taken */
	fq_u8			idle_shift;	/* period: the base one << this */
	bool			woke;		/* fcr_wake() ended a back-off */
	/*
	 * A device queue between us and the wire that our messages
	 * overtake (a port's frames go through the device's qdisc, the
	 * messages straight to its driver): a VC's quiet time runs from
	 * the first look that saw that queue empty after the VC's last
	 * frame went into it (fcr_tx_device_seen()).
	 */
	bool			device_queue;
	struct fcr_tx_vc	tx[FCR_MAX_VCS];
	struct fcr_rx_vc	rx[FCR_MAX_VCS];
	struct fcr_stats	st;
};

/* What a message taken by fcr_msg_receive() asks of the caller. */
#define FCR_CREDITS_GREW	0x1	/* a sender stalled on us may go on */
#define FCR_BUFFER_SAID		0x4	/* the peer stated another buffer: a
					 * wait for room capped at it may be
					 * over (fcr_tx_room_capped()) */
#define FCR_REPLY_NOW		0x2	/* the peer has not heard our epoch, or
					 * has news that it waits for us to
					 * acknowledge while we are backed off */

/*
 * An epoch for a new start, from @rnd (random): nonzero, and neither the
 * current one (@cur: the peer would not see a restart) nor the one
 * before it (@prev: the peer takes that for a stale message of our old
 * life and ignores every message until the next restart).
 */
static inline fq_u32 fcr_epoch_new(fq_u32 rnd, fq_u32 cur, fq_u32 prev)
{
	fq_u32 e = rnd | 1;	/* odd: never 0, also after a wrap */

	while (e == cur || e == prev)
		e += 2;
	return e;
}

/*
 * @epoch: nonzero, and new at every start (the caller draws it at
 * random); @buffer: units per VC, enough for the largest frame (a frame
 * larger than the peer's buffer can never be sent, and stalls its VC);
 * @unit: bytes per unit, 1 to 65535 (16 bits on the wire; the caller
 * validates the configuration, this only keeps the books sane).  The
 * link carries FCR_DEFAULT_VCS VCs until fcr_set_vcs().
 */
static inline void fcr_init(struct fcr_link *l, fq_u32 epoch, fq_u32 unit,
			    fq_u32 buffer, fq_u64 quiet_ns)
{
	struct fcr_link zero = { 0 };
	unsigned int vc;

	*l = zero;
	l->epoch = epoch ? epoch : 1;
	l->unit = unit ? (unit > 0xffff ? 0xffff : unit) : 1;
	l->vcs = FCR_DEFAULT_VCS;
	l->quiet_ns = quiet_ns;
	for (vc = 0; vc < FCR_MAX_VCS; vc++)
		l->rx[vc].buffer = l->rx[vc].said = buffer;
}

/*
 * The VCs the link carries, 2 to FCR_MAX_VCS (clamped); the peer must
 * have the same.  Set before the books are used, or restart them after
 * (fcr_restart() keeps the count): a change of count tells the peer
 * nothing it could take, and frames counted on a VC that goes are lost
 * to the books.
 */
static inline void fcr_set_vcs(struct fcr_link *l, unsigned int vcs)
{
	if (vcs < 2)
		vcs = 2;
	if (vcs > FCR_MAX_VCS)
		vcs = FCR_MAX_VCS;
	l->vcs = (fq_u8)vcs;
}

/*
 * New books for the same end (credits turned on again, a new unit, the
 * link back up): as fcr_init(), but the message numbers and the VC count
 * go on from where they were, so that the peer can tell this life's
 * messages from late ones of the life before (fcr_msg_receive()).  Also
 * the first start of books in zeroed memory: two VCs.
 */
static inline void fcr_restart(struct fcr_link *l, fq_u32 epoch, fq_u32 unit,
			       fq_u32 buffer, fq_u64 quiet_ns)
{
	fq_u32 seq = l->tx_seq;
	fq_u8 vcs = l->vcs;

	fcr_init(l, epoch, unit, buffer, quiet_ns);
	l->tx_seq = seq;
	fcr_set_vcs(l, vcs);	/* 0, never set: the default */
}

/*
 * The receiving end of a host's link: it never holds a frame (the
 * stack takes each one as it arrives, and what it cannot take it drops
 * itself), so it does not count arrivals at all.  Each message of the
 * peer says how much it has sent; the sink takes that as received and
 * grants @buffer units beyond it, so the peer may have at most @buffer
 * units on their way that its last message did not count.
 */
static inline void fcr_set_sink(struct fcr_link *l, fq_u32 buffer)
{
	unsigned int vc;

	l->sink = true;
	for (vc = 0; vc < FCR_MAX_VCS; vc++)
		l->rx[vc].buffer = l->rx[vc].said = buffer;
}

/*
 * The length a frame counts for, the same at both ends: from the
 * Ethernet header on (no FCS), at least the shortest Ethernet frame,
 * since a NIC pads to it and the receiver may see it padded.
 */
#define FCR_MIN_FRAME	60

static inline fq_u32 fcr_wire_len(fq_u32 len)
{
	return len > FCR_MIN_FRAME ? len : FCR_MIN_FRAME;
}

/*
 * The VC a frame travels on over a link of @vcs VCs, the same at both
 * ends: the VC of its fabric header when it has one (@is_fabric: its
 * EtherType is the fabric's; @hdr, @len: the header's first bytes), best
 * effort (VC1) without one or with a VC this link does not carry.
 */
static inline unsigned int fcr_frame_vc(unsigned int vcs, bool is_fabric,
					const fq_u8 *hdr, fq_u32 len)
{
	unsigned int vc;

	if (!is_fabric || len < 1)
		return FABRIC_VC_BESTEFFORT;
	vc = (hdr[0] >> FABRIC_HDR_VC_SHIFT) & FABRIC_HDR_VC_MASK;
	return vc < vcs ? vc : FABRIC_VC_BESTEFFORT;
}

/* Units a frame of @len bytes takes. */
static inline fq_u32 fcr_units(const struct fcr_link *l, fq_u32 len)
{
	return len / l->unit + (len % l->unit != 0);
}

/* ---- the message period ------------------------------------------------- */

/*
 * An idle link needs no message every period: once the peer has taken a
 * message that says what ours say now (the same totals, grants, flags and
 * epochs; its acknowledgement tells us), and we have sent nothing for
 * @quiet_ns, repeating it only costs both ends a wakeup and a frame.  So
 * the period doubles at each message while that holds, up to
 * FCR_IDLE_SHIFT_MAX (fcr_msg_build()), and comes back to the base at
 * once when anything changes what we would say (fcr_wake()): a frame
 * sent, room freed, a buffer resized, a count corrected.  What the peer
 * needs from us it so never waits for longer than before: until it has
 * our latest word we keep the base period (a message lost, however many,
 * keeps it), and news goes out at once.  A peer that falls silent is no
 * reason to speak more often; it restarts with a new epoch, which we
 * answer at once.
 */

/*
 * The base period itself: a link end's messages are worth sending about
 * as often as a quarter of its input buffer (@buffer_bytes) can cross
 * the link at its rate (@rate, bytes/s; 0: not known), which is also
 * when a draining buffer sends one anyway (fcr_rx_free()), and at least
 * every FCR_PERIOD_MAX_NS, well within the quiet time, so that a quiet
 * total, a lost grant or a restart is still heard within a few ms.  A
 * fixed millisecond sent a message per 625 bytes of data on a 5 Mbit/s
 * link, more messages than frames in a fabric of such links
 * (Documentation/credits.rst).
 */
#define FCR_PERIOD_MIN_NS	1000000ULL	/* 1 ms */
#define FCR_PERIOD_MAX_NS	4000000ULL	/* 4 ms */

static inline fq_u64 fcr_base_period(fq_u32 buffer_bytes, fq_u64 rate)
{
	fq_u64 ns;

	/* not known: the shortest */
	if (!rate)
		return FCR_PERIOD_MIN_NS;
	ns = fq_mul_div64(buffer_bytes / 4, 1000000000ULL, rate);
	if (ns < FCR_PERIOD_MIN_NS)
		return FCR_PERIOD_MIN_NS;
	return ns > FCR_PERIOD_MAX_NS ? FCR_PERIOD_MAX_NS : ns;
}

/*
 * The delay before our next periodic message, for a base @period_ns:
 * backed off on an idle link, to at most 64 ms (the shortest base period
 * backed off all the way), whatever the base, so that a peer hears from
 * an idle link as often as before the base followed the rate.
 */
static inline fq_u64 fcr_msg_period(const struct fcr_link *l,
				    fq_u64 period_ns)
{
	fq_u64 ns = period_ns << l->idle_shift;
	fq_u64 idle_max = FCR_PERIOD_MIN_NS << FCR_IDLE_SHIFT_MAX;

	if (ns > idle_max)
		ns = period_ns > idle_max ? period_ns : idle_max;
	return ns;
}

/* What we would say changed: back to the base period. */
static inline void fcr_wake(struct fcr_link *l)
{
	if (l->idle_shift) {
		l->idle_shift = 0;
		l->woke = true;
	}
}

/*
 * Whether a back-off ended since the last call: the caller's timer may be
 * far off, and should send soon.
 */
static inline bool fcr_woke(struct fcr_link *l)
{
	bool woke = l->woke;

	l->woke = false;
	return woke;
}

/* ---- sending ----------------------------------------------------------- */

/* Units the peer grants us on @vc now; 0 before a grant for our epoch. */
static inline fq_u32 fcr_tx_credits(const struct fcr_link *l, unsigned int vc)
{
	const struct fcr_tx_vc *t = &l->tx[vc];
	fq_s32 left;

	if (!t->limit_ok)
		return 0;
	left = (fq_s32)(t->limit - t->sent);
	return left > 0 ? (fq_u32)left : 0;
}

static inline bool fcr_tx_may_send(const struct fcr_link *l, unsigned int vc,
				   fq_u32 len)
{
	return fcr_tx_credits(l, vc) >= fcr_units(l, len);
}

/*
 * Whether a frame of @len bytes is larger than the input buffer the peer
 * states for @vc: no grant can ever cover it.  Only with a grant for our
 * epoch (the buffer is taken with it, so it is this life's of the peer's,
 * not one from before a restart); false while the peer has stated none
 * (not heard yet, or built before it said its buffer).
 */
static inline bool fcr_tx_too_big(const struct fcr_link *l, unsigned int vc,
				  fq_u32 len)
{
	const struct fcr_tx_vc *t = &l->tx[vc];

	return t->limit_ok && t->peer_buffer && fcr_units(l, len) > t->peer_buffer;
}

/*
 * Room on @vc for a frame of @len bytes, or, if the peer's input buffer
 * is smaller, for the whole buffer (all of it free): a frame that large
 * could never go, and waiting for its room would wait for good.
 */
static inline bool fcr_tx_room_capped(const struct fcr_link *l, unsigned int vc,
				      fq_u32 len)
{
	fq_u32 u = fcr_units(l, len), buffer = l->tx[vc].peer_buffer;

	if (buffer && u > buffer)
		u = buffer;
	return fcr_tx_credits(l, vc) >= u;
}

/*
 * @units of frames counted by fcr_tx_queue() were handed to the device on
 * @vc at @now (or refused there: fcr_tx_unsend() gives their units back).
 */
static inline void fcr_tx_handed(struct fcr_link *l, unsigned int vc,
				 fq_u32 units, fq_u64 now)
{
	struct fcr_tx_vc *t = &l->tx[vc];

	t->queued = units < t->queued ? t->queued - units : 0;
	t->last_sent_ns = now;
	t->ever_sent = true;
	t->in_device = l->device_queue;
}

/*
 * A frame of @len bytes on @vc, counted as sent now, waits in our own
 * queue for the device (a switch port's txq): until fcr_tx_handed() says
 * it went, no total of the VC is quiet, since our messages overtake it.
 * Returns the units counted, what fcr_tx_handed() is told of it later.
 */
static inline fq_u32 fcr_tx_queue(struct fcr_link *l, unsigned int vc,
				  fq_u32 len)
{
	fq_u32 u = fcr_units(l, len);

	l->tx[vc].sent += u;
	l->tx[vc].queued += u;
	fcr_wake(l);
	return u;
}

/* A frame of @len bytes went to the device on @vc at @now. */
static inline void fcr_tx_sent(struct fcr_link *l, unsigned int vc, fq_u32 len,
			       fq_u64 now)
{
	l->tx[vc].sent += fcr_units(l, len);
	fcr_tx_handed(l, vc, 0, now);
	fcr_wake(l);
}

/*
 * A frame counted by fcr_tx_sent() or handed after fcr_tx_queue() never
 * left (the device refused it): its units were not spent.
 */
static inline void fcr_tx_unsend(struct fcr_link *l, unsigned int vc,
				 fq_u32 len)
{
	l->tx[vc].sent -= fcr_units(l, len);
	fcr_wake(l);
}

/*
 * A frame counted by fcr_tx_queue() was dropped before it reached the
 * device: its units were not spent, and it waits no more.
 */
static inline void fcr_tx_unqueue(struct fcr_link *l, unsigned int vc,
				  fq_u32 len)
{
	struct fcr_tx_vc *t = &l->tx[vc];
	fq_u32 u = fcr_units(l, len);

	t->queued = u < t->queued ? t->queued - u : 0;
	fcr_tx_unsend(l, vc, len);
}

/*
 * The caller looked at the device queue at @now, for a link with
 * @device_queue: it @holds frames, or it was empty.  Empty, the frames
 * of every VC that went in before have left it, at some time since the
 * last look: their quiet time starts now, as if they had been sent now
 * (one that left just before may still be overtaken on the link).
 */
static inline void fcr_tx_device_seen(struct fcr_link *l, fq_u64 now,
				      bool holds)
{
	unsigned int vc;

	if (!l->device_queue || holds)
		return;
	for (vc = 0; vc < l->vcs; vc++) {
		struct fcr_tx_vc *t = &l->tx[vc];

		if (t->in_device) {
			t->in_device = false;
			t->last_sent_ns = now;
		}
	}
}

/*
 * Everything sent on @vc has left us for @quiet_ns: it has arrived, or is
 * lost, unless the link itself held it that long.
 */
static inline bool fcr_tx_quiet(const struct fcr_link *l, unsigned int vc,
				fq_u64 now)
{
	const struct fcr_tx_vc *t = &l->tx[vc];

	if (t->queued || t->in_device)
		return false;	/* counted, and not on the link yet */
	/* signed: a @now read before another CPU's send is not "quiet" */
	return !t->ever_sent ||
	       (fq_s64)(now - t->last_sent_ns) >= (fq_s64)l->quiet_ns;
}

/* ---- receiving --------------------------------------------------------- */

/* The grant: the running total of units the peer may have sent. */
static inline fq_u32 fcr_rx_limit(const struct fcr_link *l, unsigned int vc)
{
	const struct fcr_rx_vc *r = &l->rx[vc];

	return r->received + r->buffer - r->held;
}

/* Nothing arrived on @vc for @quiet_ns before @now. */
static inline bool fcr_rx_quiet(const struct fcr_link *l, unsigned int vc,
				fq_u64 now)
{
	const struct fcr_rx_vc *r = &l->rx[vc];

	return !r->ever_received ||
	       (fq_s64)(now - r->last_arrival_ns) >= (fq_s64)l->quiet_ns;
}

/* Units of @r's buffer not held now. */
static inline fq_u32 fcr_rx_room(const struct fcr_rx_vc *r)
{
	return r->held < r->buffer ? r->buffer - r->held : 0;
}

/*
 * Whether a frame of @u units has room: in the buffer, or beyond it in
 * the room kept for late frames, but never beyond twice the buffer,
 * whatever a peer claims.
 */
static inline bool fcr_rx_fits(const struct fcr_rx_vc *r, fq_u32 u)
{
	fq_u32 room = fcr_rx_room(r);

	return u <= room ||
	       (u - room <= r->late && (fq_u64)r->held + u <= 2 * (fq_u64)r->buffer);
}

/*
 * A data frame of @u units arrived on @vc at @now: true if it has room (the
 * caller keeps it and calls fcr_rx_free() when it leaves the buffer),
 * false if not (the caller drops it; counted as a violation).
 */
static inline bool fcr_rx_arrive_units(struct fcr_link *l, unsigned int vc,
				       fq_u32 u, fq_u64 now)
{
	struct fcr_rx_vc *r = &l->rx[vc];
	fq_u32 room = fcr_rx_room(r);

	r->received += u;
	r->ever_received = true;
	r->last_arrival_ns = now;
	if (u > room) {
		fq_u32 over = u - room;

		if (!fcr_rx_fits(r, u)) {
			/* not held: its units come back with the next message */
			r->freed_unadvertised += u;
			l->st.vc[vc].violations++;
			fcr_wake(l);	/* the grant moved */
			return false;
		}
		/*
		 * Beyond the buffer, into the room kept for frames found
		 * lost that came after all: what they (or what their double
		 * count let the sender send) take beyond the buffer is the
		 * grant the double count added, taken back here by not
		 * counting it again (counted, it would come back as soon as
		 * it left, and the sender would stay ahead of the buffer
		 * until the link idles)
		 */
		r->received -= over;
		r->late -= over;
		l->st.vc[vc].late_units += over;
		fcr_wake(l);	/* the grant moved */
	}
	r->held += u;
	return true;
}

/* A data frame of @len bytes arrived: fcr_rx_arrive_units(). */
static inline bool fcr_rx_arrive(struct fcr_link *l, unsigned int vc,
				 fq_u32 len, fq_u64 now)
{
	return fcr_rx_arrive_units(l, vc, fcr_units(l, len), now);
}

/*
 * A frame taken by fcr_rx_arrive() left the input buffer.  True when
 * enough was freed since the last message (a quarter of the buffer) that
 * the peer should hear of it now rather than at the next periodic one.
 */
static inline bool fcr_rx_free(struct fcr_link *l, unsigned int vc,
			       fq_u32 len)
{
	struct fcr_rx_vc *r = &l->rx[vc];
	fq_u32 u = fcr_units(l, len);

	r->held = u < r->held ? r->held - u : 0;
	r->freed_unadvertised += u;
	fcr_wake(l);
	return r->freed_unadvertised >= r->buffer / 4 + 1;
}

/* A new input buffer size for @vc, in units. */
static inline void fcr_rx_set_buffer(struct fcr_link *l, unsigned int vc,
				     fq_u32 buffer)
{
	if (l->rx[vc].buffer != buffer || l->rx[vc].said != buffer)
		fcr_wake(l);
	l->rx[vc].buffer = l->rx[vc].said = buffer;
	if (l->rx[vc].late > buffer)
		l->rx[vc].late = buffer;
}

/* ---- the control message ------------------------------------------------ */

/*
 * Payload layout after the fabric header (all fields network order),
 * FABRIC_CTRL_LINK_LEN_VCS(vcs) bytes:
 *   0 type (FABRIC_CTRL_LINK)   1 number of VCs   2-3 unit, bytes
 *   4-7 sender's epoch          8-11 echo of the receiver's epoch
 *  12-15 message number
 *  then per VC, 12 bytes: sent total, limit (grant) total, flags, the
 *  sender's input buffer (units, 3 bytes; 0 from a peer built before it)
 *  then 4 bytes: number of the receiver's last message taken (0: none)
 */
#define FCR_VC_OFF(vc)	(16 + 12 * (vc))
#define FCR_BUFFER_SAID_MAX	0xffffff	/* what 3 bytes say; beyond
						 * any frame's units anyway */

static inline void fcr_put_be24(fq_u8 *p, fq_u32 v)
{
	if (v > FCR_BUFFER_SAID_MAX)
		v = FCR_BUFFER_SAID_MAX;
	p[0] = (fq_u8)(v >> 16);
	p[1] = (fq_u8)(v >> 8);
	p[2] = (fq_u8)v;
}

static inline fq_u32 fcr_get_be24(const fq_u8 *p)
{
	return (fq_u32)p[0] << 16 | (fq_u32)p[1] << 8 | p[2];
}
/* the largest message, header and payload, of any VC count */
#define FCR_MSG_MAX	(FABRIC_HDR_LEN + FABRIC_CTRL_LINK_LEN_VCS(FCR_MAX_VCS))

/* Our message's length, the fabric header and the payload. */
static inline fq_u32 fcr_msg_len(const struct fcr_link *l)
{
	return FABRIC_HDR_LEN + FABRIC_CTRL_LINK_LEN_VCS(l->vcs);
}

static inline unsigned int fcr_said_len(const struct fcr_link *l)
{
	return FABRIC_CTRL_LINK_ACK_OFF_VCS(l->vcs) - FCR_SAID_OFF;
}

/* @said and the payload from FCR_SAID_OFF on say the same (numbers aside) */
static inline bool fcr_said_same(const struct fcr_link *l, const fq_u8 *said,
				 const fq_u8 *p)
{
	unsigned int i;

	for (i = 0; i < fcr_said_len(l); i++) {
		if (i + FCR_SAID_OFF >= 12 && i + FCR_SAID_OFF < 16)
			continue;	/* the message number */
		if (said[i] != p[i])
			return false;
	}
	return true;
}

static inline void fcr_said_copy(const struct fcr_link *l, fq_u8 *said,
				 const fq_u8 *p)
{
	unsigned int i;

	for (i = 0; i < fcr_said_len(l); i++)
		said[i] = p[i];
}

/*
 * Whether the back-off may grow: the peer took a message saying what
 * ours say now, for our epoch, and we have sent nothing lately.
 */
static inline bool fcr_idle(const struct fcr_link *l, fq_u64 now)
{
	unsigned int vc;

	/* acked_seq 0: the peer has taken none of ours */
	if (!l->peer_epoch || !l->acked_seq ||
	    (fq_s32)(l->acked_seq - l->said_since) < 0)
		return false;
	for (vc = 0; vc < l->vcs; vc++)
		if (!l->tx[vc].limit_ok || !fcr_tx_quiet(l, vc, now))
			return false;
	return true;
}

/*
 * Fill @buf (at least FCR_MSG_MAX bytes) with the fabric header and the
 * payload of our message at @now.  Returns its length, fcr_msg_len().
 */
static inline fq_u32 fcr_msg_build(struct fcr_link *l, fq_u8 *buf, fq_u64 now)
{
	struct fhc_fields f = { 0 };
	fq_u8 *p = buf + FABRIC_HDR_LEN;
	unsigned int vc;

	f.version = FABRIC_HDR_VERSION;
	f.vc = FABRIC_VC_REGULATED;
	f.inner_proto = ETH_P_FABRIC;
	fhc_encode(buf, &f);

	/* never 0, which in an acknowledgement means none */
	if (!++l->tx_seq)
		l->tx_seq = 1;
	p[0] = FABRIC_CTRL_LINK;
	p[1] = l->vcs;
	fhc_put_be16(p + 2, (fq_u16)l->unit);
	fhc_put_be32(p + 4, l->epoch);
	fhc_put_be32(p + 8, l->peer_epoch);
	fhc_put_be32(p + 12, l->tx_seq);
	for (vc = 0; vc < l->vcs; vc++) {
		fq_u8 *v = p + FCR_VC_OFF(vc);
		fq_u8 flags = FABRIC_CTRL_F_LIMIT;

		if (fcr_tx_quiet(l, vc, now))
			flags |= FABRIC_CTRL_F_QUIET;
		fhc_put_be32(v, l->tx[vc].sent);
		fhc_put_be32(v + 4, fcr_rx_limit(l, vc));
		v[8] = flags;
		fcr_put_be24(v + 9, l->rx[vc].said);
		l->rx[vc].freed_unadvertised = 0;
	}
	fhc_put_be32(p + FABRIC_CTRL_LINK_ACK_OFF_VCS(l->vcs), l->rx_seq);
	l->st.msgs_sent++;

	/* the back-off: what this one says, and whether the peer has it */
	if (!fcr_said_same(l, l->said, p + FCR_SAID_OFF)) {
		fcr_said_copy(l, l->said, p + FCR_SAID_OFF);
		l->said_since = l->tx_seq;
	}
	if (!fcr_idle(l, now)) {
		l->idle_shift = 0;
	} else {
		/* the peer has it: the same word since its acknowledgement
		 * (keeps the two numbers close however long the link idles) */
		l->said_since = l->acked_seq;
		if (l->idle_shift < FCR_IDLE_SHIFT_MAX)
			l->idle_shift++;
	}
	return fcr_msg_len(l);
}

/*
 * Whether the frame at @buf (@len bytes from the fabric header on) is a
 * link control message: to be handed to fcr_msg_receive(), never
 * forwarded or passed up.
 */
static inline bool fcr_is_ctrl(const fq_u8 *buf, fq_u32 len)
{
	return len >= FABRIC_HDR_LEN &&
	       buf[0] >> FABRIC_HDR_VER_SHIFT == FABRIC_HDR_VERSION &&
	       fhc_get_be16(buf + 2) == ETH_P_FABRIC;
}

/* Messages of one epoch found stale in a row after which the next is taken. */
#define FCR_DOUBT_MAX	8
/*
 * Of the epoch we know, a message no more than this many numbers behind
 * the last taken is a late one, ignored however many come: a link
 * reorders a few messages, never a thousand.
 */
#define FCR_LATE_MAX	1024

/*
 * Whether a message of the peer's (@epoch, number @seq) is stale: sent
 * before one already taken, arriving late on a link that reorders.
 *  - Of the epoch we know: older than the last one taken.
 *  - Of another epoch, which would make it a restart of the peer: from
 *    the life before the last restart we saw, or numbered before the last
 *    one taken (a peer's numbers go on across its restarts, fcr_restart();
 *    this is what tells an old life's message after we restarted
 *    ourselves and forgot the epochs).  Taken for a restart, it would
 *    make the current life's messages look stale in turn.
 * Only a few messages can be late (those sent within the link's
 * reordering), while a peer sends one every period: so once
 * FCR_DOUBT_MAX messages of one epoch in a row were found stale, with
 * none taken between, the next is the peer's whatever it looks like.
 * Of another epoch, that is a peer started from scratch (numbering from
 * 1 again); of the epoch we know, and more than FCR_LATE_MAX behind, a
 * number taken that the peer never sent (a message forged on a shared
 * segment, numbered far ahead), which would otherwise make every real
 * message look stale for 2^31 of them.  A late message of the epoch we
 * know is never taken, so a grant never goes back to an older value.
 * No wrong guess locks the link out for good.  Counts in @l for that.
 */
static inline bool fcr_msg_stale(struct fcr_link *l, fq_u32 epoch, fq_u32 seq,
				 bool restart)
{
	bool older = (fq_s32)(seq - l->rx_seq) <= 0;

	if (!restart && !older)
		return false;
	if (!restart && l->rx_seq - seq <= FCR_LATE_MAX)
		return true;
	if (restart && (!l->peer_epoch || (!older && epoch != l->old_peer_epoch)))
		return false;
	if (epoch != l->doubt_epoch) {
		l->doubt_epoch = epoch;
		l->doubt_n = 0;
	}
	return ++l->doubt_n <= FCR_DOUBT_MAX;
}

/*
 * Take the peer's message (@buf, @len bytes from the fabric header on)
 * at @now.
 * Returns FCR_* flags; 0 for a message refused or ignored (counted).
 */
static inline unsigned int fcr_msg_receive(struct fcr_link *l,
					   const fq_u8 *buf, fq_u32 len,
					   fq_u64 now)
{
	const fq_u8 *p = buf + FABRIC_HDR_LEN;
	fq_u32 epoch, echo, seq;
	unsigned int vc, ret = 0;
	bool restart;

	/*
	 * A message without the acknowledgement (the VCs' fields only, from
	 * a peer built before it) is taken as acknowledging nothing: we
	 * never back off toward such a peer.  One of another VC count is a
	 * peer configured otherwise: none of its fields is ours to take.
	 */
	if (!fcr_is_ctrl(buf, len) ||
	    len < (fq_u32)(FABRIC_HDR_LEN + FABRIC_CTRL_LINK_ACK_OFF_VCS(l->vcs)) ||
	    p[0] != FABRIC_CTRL_LINK || p[1] != l->vcs) {
		l->st.msgs_malformed++;
		return 0;
	}
	epoch = fhc_get_be32(p + 4);
	echo = fhc_get_be32(p + 8);
	seq = fhc_get_be32(p + 12);
	if (!epoch) {
		l->st.msgs_malformed++;
		return 0;
	}
	if (fhc_get_be16(p + 2) != l->unit) {
		l->st.msgs_unit++;
		return 0;
	}
	restart = epoch != l->peer_epoch;
	if (fcr_msg_stale(l, epoch, seq, restart)) {
		l->st.msgs_stale++;
		return 0;
	}
	l->rx_seq = seq;
	l->doubt_n = 0;
	l->acked_seq = len >= fcr_msg_len(l) ?
		       fhc_get_be32(p + FABRIC_CTRL_LINK_ACK_OFF_VCS(l->vcs)) : 0;
	/*
	 * News from a peer whose word we have not acknowledged: it keeps
	 * its base period until we do, so while our own period is long,
	 * answer now (one message) rather than at our next one
	 */
	if (!fcr_said_same(l, l->peer_said, p + FCR_SAID_OFF)) {
		fcr_said_copy(l, l->peer_said, p + FCR_SAID_OFF);
		if (l->idle_shift)
			ret |= FCR_REPLY_NOW;
	}
	l->st.msgs_received++;

	/* the peer as a sender: where our count of its units stands */
	if (restart) {
		l->old_peer_epoch = l->peer_epoch;
		l->peer_epoch = epoch;
		l->st.peer_epochs++;
		/*
		 * The room kept for late frames stays: frames the peer's
		 * old life sent on a grant it backed may still be on their
		 * way, and taken into it they are not counted, as the new
		 * life never sent them
		 */
		for (vc = 0; vc < l->vcs; vc++)
			l->rx[vc].received = fhc_get_be32(p + FCR_VC_OFF(vc));
	} else {
		/*
		 * A quiet total covers everything that has arrived or ever
		 * will of what was sent before it: what it has more than we
		 * counted was lost.  What it has less may be frames sent
		 * after it that overtook it, unless nothing has arrived for
		 * @quiet_ns either: then the link is empty, the total is
		 * exact, and the excess was counted twice (a frame delayed
		 * beyond @quiet_ns, frames crossing a restart): the grant
		 * comes down again.
		 */
		for (vc = 0; vc < l->vcs; vc++) {
			const fq_u8 *v = p + FCR_VC_OFF(vc);
			fq_s32 diff = (fq_s32)(fhc_get_be32(v) - l->rx[vc].received);

			/*
			 * A sink counts nothing itself: any newer total is
			 * what it received, and the grant grows by it.  As
			 * of room freed at a buffer (fcr_rx_free()), the
			 * peer hears at once when a quarter of the buffer
			 * has grown unheard, else with our next message: a
			 * reply to every message doubled the messages of a
			 * link that carries traffic toward a host
			 */
			if (l->sink) {
				struct fcr_rx_vc *r = &l->rx[vc];

				if (diff > 0) {
					r->received += (fq_u32)diff;
					r->freed_unadvertised += (fq_u32)diff;
					fcr_wake(l);
					if (r->freed_unadvertised >= r->buffer / 4 + 1)
						ret |= FCR_REPLY_NOW;
				}
				continue;
			}
			if (!(v[8] & FABRIC_CTRL_F_QUIET) || !diff ||
			    (diff < 0 && !fcr_rx_quiet(l, vc, now)))
				continue;
			struct fcr_rx_vc *r = &l->rx[vc];

			r->received += (fq_u32)diff;
			fcr_wake(l);	/* the grant moved */
			if (diff > 0) {
				l->st.vc[vc].lost_units += (fq_u32)diff;
				/* lost, unless it comes after all */
				r->late = r->late + (fq_u32)diff < r->buffer ?
					  r->late + (fq_u32)diff : r->buffer;
			} else {
				/*
				 * The room kept for late frames stays: a total
				 * older than frames that overtook it takes back
				 * more than came twice, and others may be on
				 * their way still.
				 */
				l->st.vc[vc].twice_units += 0U - (fq_u32)diff;
			}
			l->st.resyncs++;
		}
	}

	/* the peer as a receiver: its grant, if it speaks of us as we are */
	if (echo != l->epoch) {
		for (vc = 0; vc < l->vcs; vc++)
			l->tx[vc].limit_ok = false;
		return ret | FCR_REPLY_NOW;
	}
	for (vc = 0; vc < l->vcs; vc++) {
		const fq_u8 *v = p + FCR_VC_OFF(vc);
		struct fcr_tx_vc *t = &l->tx[vc];
		fq_u32 before = fcr_tx_credits(l, vc);

		if (fcr_get_be24(v + 9) != t->peer_buffer) {
			t->peer_buffer = fcr_get_be24(v + 9);
			ret |= FCR_BUFFER_SAID;
		}
		if (!(v[8] & FABRIC_CTRL_F_LIMIT))
			continue;
		t->limit = fhc_get_be32(v + 4);
		t->limit_ok = true;
		if (fcr_tx_credits(l, vc) > before)
			ret |= FCR_CREDITS_GREW;
	}
	/* a restarted peer has not heard our totals yet */
	if (restart)
		ret |= FCR_REPLY_NOW;
	return ret;
}

/* ---- an input across restarts ------------------------------------------ */

/*
 * The receiving end of a link as a switch port keeps it: an input buffer
 * of @in_bytes per VC, credits that can be turned on and off, and books
 * that start again (a new epoch) with frames of the old books still in
 * the buffer.  Those frames keep their room until they leave: the books
 * advertise the buffer less what they hold (@old_bytes), so nothing is
 * granted twice, and the room comes back as they go.  Each frame counted
 * carries a struct fcr_charge that says by which books; the caller gives
 * it back with fcr_port_release() wherever the frame ends.  Books are
 * told apart by a generation, one more at every start, not by the wire's
 * epoch: that is drawn at random and may come again while frames of the
 * books that had it last are still held.
 *
 * Books that found frames lost kept room beyond the buffer for them
 * (struct fcr_rx_vc's @late): the peer may hold a grant that only that
 * room backs, and frames sent on it may still be on their way when the
 * books start again.  The port carries that room over (@carried_bytes):
 * a frame the new books have no room for takes it for what their free
 * room does not hold, and is counted as of the earlier books (the peer's
 * totals, which the new books start from, have it already); one that
 * needs it and the current books' own room too takes both
 * (fcr_port_take_both()).  Like that
 * room, it lasts until used (or a smaller buffer cuts it); it is at most
 * one buffer, and the input never holds more than twice its buffer.
 */
struct fcr_charge {
	fq_u64	gen;		/* the books' generation; 0: not counted */
	fq_u32	len;		/* bytes as counted */
	fq_u8	vc;		/* the VC it was counted on */
};

struct fcr_port {
	struct fcr_link	l;
	bool		on;
	fq_u32		in_bytes[FCR_MAX_VCS];	 /* the input buffer */
	fq_u32		held_bytes[FCR_MAX_VCS]; /* counted by these books */
	fq_u32		old_bytes[FCR_MAX_VCS];	 /* by earlier books */
	fq_u32		carried_bytes[FCR_MAX_VCS]; /* earlier books' late room */
	struct fcr_stats base;			 /* earlier books' counters */
	fq_u64		restarts;
	fq_u64		gen;	/* of the current books, from 1; never reused */
	fq_u32		prev_epoch;	/* the books' before these */
};

static inline void fcr_stats_add(struct fcr_stats *to,
				 const struct fcr_stats *st)
{
	unsigned int vc;

	to->msgs_sent += st->msgs_sent;
	to->msgs_received += st->msgs_received;
	to->msgs_malformed += st->msgs_malformed;
	to->msgs_unit += st->msgs_unit;
	to->msgs_stale += st->msgs_stale;
	to->resyncs += st->resyncs;
	to->peer_epochs += st->peer_epochs;
	for (vc = 0; vc < FCR_MAX_VCS; vc++) {
		to->vc[vc].violations += st->vc[vc].violations;
		to->vc[vc].lost_units += st->vc[vc].lost_units;
		to->vc[vc].twice_units += st->vc[vc].twice_units;
		to->vc[vc].late_units += st->vc[vc].late_units;
	}
}

/* What the books advertise on @vc: the buffer less the old frames. */
static inline void fcr_port_advertise(struct fcr_port *p, unsigned int vc)
{
	fq_u32 room = p->in_bytes[vc] > p->old_bytes[vc] ?
		      p->in_bytes[vc] - p->old_bytes[vc] : 0;
	fq_u32 said = p->in_bytes[vc] / p->l.unit, was = p->l.rx[vc].said;

	fcr_rx_set_buffer(&p->l, vc, room / p->l.unit);
	/* what the peer's frames wait for room in is the whole buffer */
	p->l.rx[vc].said = said;
	if (said != was)
		fcr_wake(&p->l);
}

/* Off, empty, input buffers of @in_bytes per VC, @unit bytes a credit. */
static inline void fcr_port_init(struct fcr_port *p, fq_u32 unit,
				 fq_u32 in_bytes)
{
	struct fcr_port zero = { 0 };
	unsigned int vc;

	*p = zero;
	fcr_init(&p->l, 1, unit, 0, FCR_DEFAULT_QUIET_NS);
	for (vc = 0; vc < FCR_MAX_VCS; vc++)
		p->in_bytes[vc] = in_bytes;
}

/* A new input buffer size for @vc, in bytes; advertised at once if on. */
static inline void fcr_port_set_buffer(struct fcr_port *p, unsigned int vc,
				       fq_u32 bytes)
{
	p->in_bytes[vc] = bytes;
	/* the room carried for late frames: at most a buffer, as late is */
	if (p->carried_bytes[vc] > bytes)
		p->carried_bytes[vc] = bytes;
	if (p->on)
		fcr_port_advertise(p, vc);
}

/* What the current books counted is from now on of earlier books. */
static inline void fcr_port_close(struct fcr_port *p)
{
	unsigned int vc;

	for (vc = 0; vc < FCR_MAX_VCS; vc++) {
		p->old_bytes[vc] += p->held_bytes[vc];
		p->held_bytes[vc] = 0;
	}
}

/*
 * The room the current books keep for late frames goes to the next
 * books (see struct fcr_port), with what earlier books left unused, up to
 * one buffer.
 */
static inline void fcr_port_carry_late(struct fcr_port *p)
{
	unsigned int vc;

	for (vc = 0; vc < FCR_MAX_VCS; vc++) {
		fq_u64 room = p->carried_bytes[vc] +
			      (fq_u64)p->l.rx[vc].late * p->l.unit;

		p->carried_bytes[vc] = room < p->in_bytes[vc] ?
				       (fq_u32)room : p->in_bytes[vc];
	}
}

/*
 * A frame of @len bytes on @vc at @now that the current books have no
 * room for: true if earlier books' late room takes what the free room of
 * the current books does not (see struct fcr_port).  The whole frame is
 * then of the earlier books: the peer's totals the current books start
 * from have it.  Carried room exists only after a start with room kept
 * for late frames, so p->gen >= 2 and p->gen - 1 names earlier books.
 */
static inline bool fcr_port_take_carried(struct fcr_port *p, fq_u32 len,
					 fq_u8 vc, fq_u64 now)
{
	fq_u64 free = (fq_u64)fcr_rx_room(&p->l.rx[vc]) * p->l.unit;
	fq_u64 input = (fq_u64)p->old_bytes[vc] + p->held_bytes[vc] + len;
	fq_u32 over;

	if (p->gen < 2 || len <= free)
		return false;
	over = len - (fq_u32)free;
	if (over > p->carried_bytes[vc] || input > 2 * (fq_u64)p->in_bytes[vc])
		return false;
	/* an arrival all the same: the link is not empty */
	p->l.rx[vc].ever_received = true;
	p->l.rx[vc].last_arrival_ns = now;
	p->carried_bytes[vc] -= over;
	p->old_bytes[vc] += len;
	fcr_port_advertise(p, vc);
	p->l.st.vc[vc].late_units += fcr_units(&p->l, over);
	return true;
}

/*
 * A frame of @len bytes (@u units) on @vc at @now that neither room kept
 * for late frames takes alone: the current books' (@late, units) holds
 * part of what their free room does not, the room carried from earlier
 * books the rest.  Frames found lost before and after a start can both
 * still be counted twice (one of the earlier books' late frames taken
 * into the new books' free room is counted by them too), so the room for
 * them is split between the two, and a frame the two together hold must
 * not be refused.  Counted as of the current books, as a frame beyond
 * their buffer is (fcr_rx_arrive_units()): what goes beyond it is left
 * out of their count, which takes back the grant the double count added.
 */
static inline bool fcr_port_take_both(struct fcr_port *p, fq_u32 len, fq_u32 u,
				      fq_u8 vc, fq_u64 now)
{
	struct fcr_rx_vc *r = &p->l.rx[vc];
	fq_u32 room = fcr_rx_room(r);
	fq_u64 inner = ((fq_u64)room + r->late) * p->l.unit;
	fq_u64 input = (fq_u64)p->old_bytes[vc] + p->held_bytes[vc] + len;
	fq_u32 rest;

	if (p->gen < 2 || !r->late || len <= inner)
		return false;
	rest = len - (fq_u32)inner;
	if (rest > p->carried_bytes[vc] || input > 2 * (fq_u64)p->in_bytes[vc] ||
	    (fq_u64)r->held + u > 2 * (fq_u64)r->buffer)
		return false;
	r->received += room;
	r->ever_received = true;
	r->last_arrival_ns = now;
	p->l.st.vc[vc].late_units += u - room;
	r->late = 0;
	p->carried_bytes[vc] -= rest;
	r->held += u;
	fcr_wake(&p->l);	/* the grant moved */
	return true;
}

/*
 * Credits on, with new books: epoch @epoch (fcr_epoch_new() of the
 * current and previous ones), @unit bytes a credit.  Also for a restart while
 * on (a new unit, the link back up).
 */
static inline void fcr_port_start(struct fcr_port *p, fq_u32 epoch,
				  fq_u32 unit, fq_u64 quiet_ns)
{
	unsigned int vc;

	fcr_port_close(p);
	fcr_port_carry_late(p);
	fcr_stats_add(&p->base, &p->l.st);
	p->prev_epoch = p->l.epoch;
	fcr_restart(&p->l, epoch, unit, 0, quiet_ns);
	p->l.device_queue = true;	/* fcr_tx_device_seen() from the caller */
	p->on = true;
	p->restarts++;
	p->gen++;
	for (vc = 0; vc < FCR_MAX_VCS; vc++)
		fcr_port_advertise(p, vc);
}

/* Credits off: what the input holds drains, nothing more is counted. */
static inline void fcr_port_stop(struct fcr_port *p)
{
	fcr_port_close(p);
	p->on = false;
}

/*
 * A data frame of @len bytes arrived on @vc at @now.  With credits on it
 * is counted (@c says by which books); false if the sender had no credits
 * for it (a violation, counted): the caller drops it.  Off: true, and @c
 * says not counted.
 */
static inline bool fcr_port_arrive(struct fcr_port *p, struct fcr_charge *c,
				   fq_u32 len, fq_u8 vc, fq_u64 now)
{
	fq_u32 u;

	c->gen = 0;
	c->len = 0;
	c->vc = 0;
	if (!p->on)
		return true;
	if (vc >= p->l.vcs)	/* as fcr_frame_vc() */
		vc = FABRIC_VC_BESTEFFORT;
	u = fcr_units(&p->l, len);
	if (!fcr_rx_fits(&p->l.rx[vc], u)) {
		if (fcr_port_take_carried(p, len, vc, now)) {
			c->gen = p->gen - 1;
			c->len = len;
			c->vc = vc;
			return true;
		}
		if (!fcr_port_take_both(p, len, u, vc, now) &&
		    !fcr_rx_arrive_units(&p->l, vc, u, now))
			return false;	/* refused, counted by the books */
	} else if (!fcr_rx_arrive_units(&p->l, vc, u, now)) {
		return false;
	}
	c->gen = p->gen;
	c->len = len;
	c->vc = vc;
	p->held_bytes[vc] += len;
	return true;
}

/*
 * The frame counted in @c left the input (forwarded or dropped): its room
 * goes back to the books that counted it, or to what the current books
 * advertise.  True when the peer should hear of it now (fcr_rx_free()).
 * @c is cleared: a second call does nothing.
 */
static inline bool fcr_port_release(struct fcr_port *p, struct fcr_charge *c)
{
	bool tell = false;

	if (!c->gen)
		return false;
	if (p->on && c->gen == p->gen) {
		p->held_bytes[c->vc] -= c->len < p->held_bytes[c->vc] ?
					c->len : p->held_bytes[c->vc];
		tell = fcr_rx_free(&p->l, c->vc, c->len);
	} else {
		p->old_bytes[c->vc] -= c->len < p->old_bytes[c->vc] ?
				       c->len : p->old_bytes[c->vc];
		if (p->on)
			fcr_port_advertise(p, c->vc);
	}
	c->gen = 0;
	return tell;
}

/* Every counter, of these books and earlier ones. */
static inline void fcr_port_read_stats(const struct fcr_port *p,
				       struct fcr_stats *st)
{
	struct fcr_stats zero = { 0 };

	*st = zero;
	fcr_stats_add(st, &p->base);
	fcr_stats_add(st, &p->l.st);
}

#endif /* FQ_FABRIC_CREDIT_H */
