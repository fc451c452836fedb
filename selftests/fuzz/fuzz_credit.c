// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: per-VC credit flow control on a link
 * (kernel/core/fabric_credit.h, Documentation/credits.rst), driven the
 * way the kernel drives it, with a peer that does not play by the rules.
 *
 * Two ends back to back, as on a real link.  End 1 is a switch port
 * (struct fcr_port, as kernel/vcsw_credit.c keeps it); end 0 is another
 * port or a host (a sink, as kernel/fabric_link.c keeps it).  Each sends
 * data on its VCs as its credits allow, a port through a txq whose
 * frames the device may still refuse or hold in its queue (which the
 * link messages overtake), and its link message when the
 * input says (or at once where the kernel kicks its timer); the wire
 * carries both in order, but may hold data frames back while what
 * follows goes by, longer than the quiet time (struct wire), and may
 * lose any of them.  The local side's
 * part: frames leaving an input buffer in any order, time passing on
 * each end's own clock, restarts (a link flap, credits off and on, a
 * port deleted and added again), buffers resized as the configuration
 * path (vcsw_slave_changelink()) accepts them.  An input whose first
 * byte says it is hostile also gets what the other side of a link
 * controls: messages forged field by field from what the victim's books
 * hold (so that they get past the first checks: epochs, numbers, totals
 * and grants near the real ones), raw bytes, old messages replayed with
 * bytes changed, frames sent without credits, the wire's order broken,
 * and a new unit at one end.
 *
 * What must hold whatever the peer sends:
 *  - a message is taken only when well formed and not stale by the
 *    protocol's rules, and then moves the books only as the protocol
 *    says; one refused or ignored changes none of them, and counts once;
 *  - a grant is believed only from a message that echoes our own epoch;
 *  - an input takes no more than its buffer and the room it keeps for
 *    late frames (at most a buffer more), and a port's books account for
 *    every frame they counted across restarts.
 * While everybody sent within its credits and the wire kept its order
 * but for the frames it held, with nothing forged, replayed or
 * misconfigured: no frame is refused (the link is lossless), except
 * where credits.rst says a restart makes the grant too large (frames
 * counted in the total that new books start from, still behind it) and
 * in the loss its Limits name (the room for late frames forgotten by a
 * port made afresh).  This target found that
 * new books forgot that room on a port too (now carried over), that a
 * frame which needed both that carried room and the new books' own was
 * refused (now it takes both), and that
 * a total marked quiet could count frames still in the txq; now a VC is
 * never quiet while the txq or the device holds a frame its books
 * counted.  While no forged message was taken: once the
 * link is idle, each sender has exactly the peer's buffer again.
 */
#include "fuzz.h"

#include "core/fabric_credit.h"

#define MAX_OPS		2000	/* a bound on the work of one input */
#define HELD_MAX	64	/* frames an input holds at once */
#define WIRE_MAX	32	/* frames and messages on one way of the wire */
#define TXQ_MAX		8	/* a port's frames between dequeue and driver */
#define HIST_MAX	8	/* an end's last messages, for replays */
#define EPOCHS_MAX	256	/* an end's epochs remembered */
#define MSG_ROOM	(FCR_MSG_MAX + 16)	/* a message with a trailer */
#define QUIET		FCR_DEFAULT_QUIET_NS
#define ETH_HDR		14
#define SINK_BYTES	(256 * 1024)	/* fabric_link.c: FABRIC_LINK_SINK_BYTES */
#define PORT_IN_DEFAULT	8192		/* vcsw_priv.h: VCSW_DEFAULT_IN_BUFFER */
#define PORT_IN_MAX	(64U << 20)	/* vcsw_netlink.c: vcsw_in_buffer_range */
#define NO_VC		0xff
/*
 * The harness's own checks: no coverage feedback from them (their
 * comparisons cost more than the core's, and say nothing new)
 */
#define NO_COVERAGE	__attribute__((no_sanitize("coverage"), noinline))
/*
 * And coverage feedback for states an honest run reached (a code block of
 * its own at each use): the core's branches are the same whoever brought
 * the books there, and a hostile input reaches most of them sooner, so
 * without this libFuzzer keeps no honest input that reaches them too.
 */
#define DEEP()		do { static volatile unsigned int d_; d_++; } while (0)
/* messages each way that make two idle ends agree again: the eight a
 * peer that started from scratch needs, and a handshake */
#define SETTLE_ROUNDS	(FCR_DOUBT_MAX + 4)

/* A frame or a link message on its way. */
struct item {
	bool	msg;
	bool	behind;		/* message: frames it counts wait behind it */
	fq_u8	hdr;		/* data: the first byte of its fabric header */
	bool	fabric;		/* data: it has one */
	fq_u8	vc;		/* data: the VC its sender counted it on */
	fq_u32	len;		/* data: bytes as counted; message: length */
	/* data, held: a quiet total of its sender overtook it */
	bool	found;
	fq_u8	buf[FCR_MSG_MAX];
};

/*
 * One way of the wire, from e[i] to e[!i]: a FIFO, except that it may
 * hold data frames (@held, the first ones) while what came after them
 * goes by: a veth's receive backlog on a CPU the host does not run, a
 * NIC's ring paused by its peer.  A held frame may be overtaken by
 * quiet totals that count it, which credits.rst promises costs no frame
 * ("Counted twice"): the receiver finds it lost and keeps room beyond
 * its buffer for it.  That room is at most one buffer, so the wire holds
 * no more than a buffer of a VC's frames between two points where the
 * receiver's count is exact (@twice).  The first message new books
 * take (either end's restart) starts them from a total that counts the
 * frames it overtook: one that no quiet total found lost before has no
 * room kept for it ("frames that cross a restart"), and the link is not
 * lossless from there.  Held frames among themselves arrive in any
 * order: a count does not care about the order of arrivals.
 */
struct wire {
	struct item	it[WIRE_MAX];
	unsigned int	n;
	unsigned int	held;	/* it[0 .. held - 1] are held */
	/* units held on each VC since the receiver's count was last exact:
	 * at most what may be counted twice, never more than a buffer */
	fq_u32		twice[FCR_MAX_VCS];
};

/*
 * A port's frame that took credits and waits for the device (p->txq), or
 * in it (@in_dev: handed over, in the device's qdisc, which the port's
 * messages overtake).
 */
struct txq_ent {
	fq_u64	gen;		/* the books that counted it */
	fq_u32	len;
	fq_u8	vc, hdr;
	bool	fabric;
	bool	in_dev;
};

struct end {
	struct fcr_port	p;	/* a host keeps p.l alone */
	bool		host;
	fq_u32		unit;	/* configured */
	fq_u32		cfg[FCR_MAX_VCS];	/* input buffers, 0: default */
	fq_u32		host_prev_epoch;	/* fabric_link's prev_epoch */
	fq_u64		now;	/* this end's clock */
	struct fcr_charge held[HELD_MAX];	/* frames counted, still here */
	unsigned int	nheld;
	struct txq_ent	txq[TXQ_MAX];
	unsigned int	ntxq;
	bool		heard;	/* took a message echoing our epoch */
	bool		unsent;	/* fcr_tx_unsend() ever called */
	/* units given back (unsend, unqueue) since these books started */
	fq_u32		unsent_units[FCR_MAX_VCS];
	/* the doubt rule as we see it: stale messages of one epoch in a row */
	fq_u32		doubt_epoch, doubt_n;
	fq_u32		epochs[EPOCHS_MAX];
	unsigned int	nepochs;
	fq_u8		hist[HIST_MAX][FCR_MSG_MAX];
	fq_u32		hist_len[HIST_MAX];
	unsigned int	nhist;
	struct fcr_stats seen;	/* counters as last read */
};

struct world {
	struct end	e[2];
	struct wire	w[2];	/* w[i]: from e[i] to e[!i] */
	fq_u32		vcs, mtu;
	fq_u64		rate;
	bool		autokick;	/* a kick sends at once */
	bool		hostile;	/* the input may lie, reorder, misconfigure */
	/*
	 * Nothing forged, replayed or reordered, every frame sent within
	 * credits, no buffer made smaller, one unit, no epoch drawn twice:
	 * the link must be lossless
	 */
	bool		lossless;
	/* no forged or replayed message taken, no epoch drawn twice: idle
	 * books must come right */
	bool		honest;
};

static struct world W;

static fq_u32 roundup_u32(fq_u32 x, fq_u32 y)
{
	return (x + y - 1) / y * y;
}

/* vcsw_in_bytes(): the input buffer in effect for @cfg */
static fq_u32 port_in_bytes(fq_u32 cfg, fq_u32 unit, fq_u32 mtu)
{
	fq_u32 frame = roundup_u32(mtu + ETH_HDR, unit);

	if (cfg)
		return cfg;
	return frame * 2 > PORT_IN_DEFAULT ? frame * 2 : PORT_IN_DEFAULT;
}

/* what vcsw_slave_changelink() accepts: a full-size frame or more */
static bool port_cfg_ok(fq_u32 cfg, fq_u32 unit, fq_u32 mtu)
{
	return !cfg || (cfg >= roundup_u32(mtu + ETH_HDR, unit) &&
			cfg <= PORT_IN_MAX);
}

static fq_u32 pick_cfg(struct fuzz_in *in, fq_u32 unit, fq_u32 mtu)
{
	fq_u32 frame = roundup_u32(mtu + ETH_HDR, unit);
	fq_u8 s = fuzz_u8(in);

	switch (s & 3) {
	case 0:
		return 0;
	case 3:
		return frame + fuzz_u32(in) % (PORT_IN_MAX - frame + 1);
	default:
		/* a frame or a few, and not always whole units */
		return frame * (1 + (s >> 2 & 3)) +
		       (s & 0x10 ? fuzz_u16(in) % unit : 0);
	}
}

/* credit_unit: 1 to 65535, the policy's range */
static fq_u32 pick_unit(struct fuzz_in *in)
{
	static const fq_u32 units[] = { 64, 1, 100, 65535, 60, 128, 1514 };
	fq_u8 s = fuzz_u8(in) % 8;

	if (s < 7)
		return units[s];
	return 1 + fuzz_u16(in) % 65535;
}

/* ---- what each end's books must say after anything ---------------------- */

static void read_stats(const struct end *e, struct fcr_stats *st)
{
	if (e->host)
		*st = e->p.l.st;	/* fabric_link_restart() keeps them */
	else
		fcr_port_read_stats(&e->p, st);
}

/*
 * Counters only count up (the kernel reports them as totals), also where
 * a port's books start again and fold theirs into the earlier books'
 * (checked there, and at the end: summing them costs)
 */
NO_COVERAGE
static void check_stats(struct end *e)
{
	struct fcr_stats st;
	const struct fcr_stats *o = &e->seen;
	unsigned int vc;

	read_stats(e, &st);
	FUZZ_CHECK(st.msgs_sent >= o->msgs_sent);
	FUZZ_CHECK(st.msgs_received >= o->msgs_received);
	FUZZ_CHECK(st.msgs_malformed >= o->msgs_malformed);
	FUZZ_CHECK(st.msgs_unit >= o->msgs_unit);
	FUZZ_CHECK(st.msgs_stale >= o->msgs_stale);
	FUZZ_CHECK(st.resyncs >= o->resyncs);
	FUZZ_CHECK(st.peer_epochs >= o->peer_epochs);
	for (vc = 0; vc < FCR_MAX_VCS; vc++) {
		FUZZ_CHECK(st.vc[vc].violations >= o->vc[vc].violations);
		FUZZ_CHECK(st.vc[vc].lost_units >= o->vc[vc].lost_units);
		FUZZ_CHECK(st.vc[vc].twice_units >= o->vc[vc].twice_units);
		FUZZ_CHECK(st.vc[vc].late_units >= o->vc[vc].late_units);
	}
	e->seen = st;
}

NO_COVERAGE
static void check_end(struct world *w, struct end *e)
{
	const struct fcr_link *l = &e->p.l;
	unsigned int vc, k;

	/* a message carrying epoch 0 is refused: ours never is */
	FUZZ_CHECK(l->epoch != 0);
	/* nothing the peer says changes the VCs we carry */
	FUZZ_CHECK(l->vcs == w->vcs);
	for (vc = 0; vc < l->vcs; vc++) {
		const struct fcr_rx_vc *r = &l->rx[vc];

		/* the room kept for late frames: at most one buffer more */
		FUZZ_CHECK(r->late <= r->buffer);
		/* and what a port carried over from earlier books */
		FUZZ_CHECK(e->host || e->p.carried_bytes[vc] <= e->p.in_bytes[vc]);
		/* we send nothing until the peer has heard of our epoch */
		FUZZ_CHECK(e->heard || fcr_tx_credits(l, vc) == 0);
	}
	if (e->host) {
		for (vc = 0; vc < l->vcs; vc++) {
			/* a sink never holds a frame */
			FUZZ_CHECK(l->rx[vc].held == 0);
			FUZZ_CHECK(l->rx[vc].buffer ==
				   (SINK_BYTES + e->unit - 1) / e->unit);
		}
		return;
	}
	/*
	 * The port's books account for what its input holds: what the
	 * current books counted (held_bytes, and held in units), what
	 * earlier ones did (old_bytes, out of what is advertised until it
	 * leaves, so that a restart never grants occupied room and loses
	 * none)
	 */
	for (vc = 0; vc < FCR_MAX_VCS; vc++) {
		fq_u32 cur = 0, cur_units = 0, old = 0;

		for (k = 0; k < e->nheld; k++) {
			const struct fcr_charge *c = &e->held[k];

			if (c->vc != vc)
				continue;
			if (e->p.on && c->gen == e->p.gen) {
				cur += c->len;
				cur_units += fcr_units(l, c->len);
			} else {
				old += c->len;
			}
		}
		FUZZ_CHECK(e->p.held_bytes[vc] == cur);
		FUZZ_CHECK(e->p.old_bytes[vc] == old);
		if (!e->p.on)
			continue;
		FUZZ_CHECK(l->rx[vc].held == cur_units);
		FUZZ_CHECK(l->rx[vc].buffer ==
			   (e->p.in_bytes[vc] > old ? e->p.in_bytes[vc] - old : 0) / l->unit);
	}
}

/* ---- the kernel's side of each end ---------------------------------------- */

static bool wire_put(struct world *w, int from, const struct item *it)
{
	struct wire *q = &w->w[from];

	if (q->n == WIRE_MAX)
		return false;
	q->it[q->n++] = *it;
	return true;
}

static void wire_take(struct world *w, int from, unsigned int k, struct item *it)
{
	struct wire *q = &w->w[from];

	*it = q->it[k];
	if (k < q->held)
		q->held--;
	memmove(&q->it[k], &q->it[k + 1], (q->n - k - 1) * sizeof(q->it[0]));
	q->n--;
}

/* The VC data frame @it counts on at end @y. */
static unsigned int item_vc(const struct world *w, int y, const struct item *it)
{
	if (it->vc != NO_VC)
		return it->vc;
	return fcr_frame_vc(w->e[y].p.l.vcs, it->fabric, &it->hdr, 1);
}

/* Units of the frames held on the wire to @y on @vc, as @y counts them. */
static fq_u32 held_units(const struct world *w, int y, unsigned int vc)
{
	const struct wire *q = &w->w[!y];
	fq_u32 u = 0;
	unsigned int k;

	for (k = 0; k < q->held; k++)
		if (item_vc(w, y, &q->it[k]) == vc)
			u += fcr_units(&w->e[y].p.l, q->it[k].len);
	return u;
}

/*
 * A message from @y's peer, taken by @y (@before: its books until then),
 * overtook the frames the wire holds, all sent before it.  A quiet total
 * finds them lost; the first message of a restart counts them in the
 * total the new books start from, which leaves room for them only if
 * they were found lost before.  A quiet total that finds the receiver
 * quiet too, or a restart, makes its count exact: what may count twice
 * is then the frames still held.
 */
static void held_overtaken(struct world *w, int y, bool restart,
			   const fq_u8 *p, const struct fcr_link *before)
{
	struct end *e = &w->e[y];
	struct wire *q = &w->w[!y];
	unsigned int k, vc;

	if (e->host)
		return;		/* a sink counts no arrivals */
	for (k = 0; k < q->held; k++) {
		struct item *it = &q->it[k];
		const fq_u8 *v = p + FCR_VC_OFF(item_vc(w, y, it));

		if (restart && !it->found) {
			w->lossless = false;
		} else if (!restart && (v[8] & FABRIC_CTRL_F_QUIET)) {
			if (!it->found && w->lossless)
				DEEP();
			it->found = true;
		}
		if (restart && it->found && w->lossless)
			DEEP();
	}
	for (vc = 0; vc < e->p.l.vcs; vc++) {
		const fq_u8 *v = p + FCR_VC_OFF(vc);

		if (restart || ((v[8] & FABRIC_CTRL_F_QUIET) &&
				fcr_rx_quiet(before, vc, e->now)))
			q->twice[vc] = held_units(w, y, vc);
	}
}

NO_COVERAGE
static bool epoch_used(const struct end *e, fq_u32 epoch)
{
	unsigned int i;

	for (i = 0; i < e->nepochs; i++)
		if (e->epochs[i] == epoch)
			return true;
	return false;
}

/*
 * The epoch of a new start, from @rnd as the kernel draws it at random
 * (fcr_epoch_new() of the current and the previous one).
 */
static fq_u32 draw_epoch(struct world *w, struct end *e, fq_u32 rnd,
			 fq_u32 cur, fq_u32 prev)
{
	fq_u32 epoch = fcr_epoch_new(rnd, cur, prev);

	/*
	 * fcr_epoch_new() keeps clear of the current and the previous epoch
	 * only: one that comes back from longer ago (or after a start from
	 * scratch) meets a peer and late messages that speak of it, and the
	 * peer sees no restart.  A random draw of 32 bits does that once in
	 * four billion starts: an honest run draws again; in a hostile one
	 * the books must stay sane, nothing more
	 */
	while (epoch_used(e, epoch)) {
		if (w->hostile) {
			w->lossless = w->honest = false;
			break;
		}
		/* another draw: any number but this one */
		epoch = fcr_epoch_new(epoch * 2654435761u + 0x9e3779b9u, cur, prev);
	}
	if (e->nepochs == EPOCHS_MAX)
		w->lossless = w->honest = false;
	else
		e->epochs[e->nepochs++] = epoch;
	return epoch;
}

static void books_started(struct end *e)
{
	memset(e->unsent_units, 0, sizeof(e->unsent_units));
	e->heard = false;
	e->doubt_epoch = 0;
	e->doubt_n = 0;
}


/* Whether a frame of @e's waits in its device (any books'). */
static bool txq_in_dev(const struct end *e)
{
	unsigned int k;

	for (k = 0; k < e->ntxq; k++)
		if (e->txq[k].in_dev)
			return true;
	return false;
}

/* Units of the frames on @vc that @e's current books counted in its txq. */
static fq_u32 txq_units(const struct end *e, unsigned int vc)
{
	fq_u32 u = 0;
	unsigned int k;

	for (k = 0; k < e->ntxq; k++)
		if (!e->txq[k].in_dev && e->txq[k].gen == e->p.gen &&
		    e->txq[k].vc == vc)
			u += fcr_units(&e->p.l, e->txq[k].len);
	return u;
}

/* Whether a frame that @e's current books counted on @vc waits in it. */
static bool txq_holds(const struct end *e, unsigned int vc)
{
	unsigned int k;

	for (k = 0; k < e->ntxq; k++)
		if (e->txq[k].gen == e->p.gen && e->txq[k].vc == vc)
			return true;
	return false;
}
/* The end's periodic message, or the one a kick sends. */
static void build(struct world *w, int x)
{
	struct end *e = &w->e[x];
	struct fcr_link *l = &e->p.l;
	fq_u8 said[FCR_SAID_MAX];
	struct item it = { .msg = true };
	const fq_u8 *p = it.buf + FABRIC_HDR_LEN;
	fq_u64 base, period;
	unsigned int vc, said_len = fcr_said_len(l);
	fq_u32 in_min = SINK_BYTES;

	/* vcsw_credit_timer(): none while credits are off */
	if (!e->host && !e->p.on)
		return;
	/* ... and a look at the device first (vcsw_dev_holds_frames()) */
	if (!e->host)
		fcr_tx_device_seen(l, e->now, txq_in_dev(e));
	/* the books' queued units are what these books' frames in the txq hold */
	if (!e->host)
		for (vc = 0; vc < l->vcs; vc++)
			FUZZ_CHECK(l->tx[vc].queued == txq_units(e, vc));
	memcpy(said, l->said, sizeof(said));
	it.len = fcr_msg_build(l, it.buf, e->now);

	/* the message the peer will read: credits.rst's table */
	FUZZ_CHECK(it.len == fcr_msg_len(l) && it.len <= FCR_MSG_MAX);
	FUZZ_CHECK(it.len == FABRIC_HDR_LEN + FABRIC_CTRL_LINK_LEN_VCS(l->vcs));
	FUZZ_CHECK(fcr_is_ctrl(it.buf, it.len));
	FUZZ_CHECK(p[0] == FABRIC_CTRL_LINK && p[1] == l->vcs);
	FUZZ_CHECK(fhc_get_be16(p + 2) == l->unit);
	FUZZ_CHECK(fhc_get_be32(p + 4) == l->epoch);
	FUZZ_CHECK(fhc_get_be32(p + 8) == l->peer_epoch);
	/* numbered, never 0 (an acknowledgement of 0 means none) */
	FUZZ_CHECK(fhc_get_be32(p + 12) == l->tx_seq && l->tx_seq != 0);
	for (vc = 0; vc < l->vcs; vc++) {
		const fq_u8 *v = p + FCR_VC_OFF(vc);

		FUZZ_CHECK(fhc_get_be32(v) == l->tx[vc].sent);
		FUZZ_CHECK(fhc_get_be32(v + 4) == fcr_rx_limit(l, vc));
		FUZZ_CHECK(v[8] & FABRIC_CTRL_F_LIMIT);
		FUZZ_CHECK(!(v[8] & FABRIC_CTRL_F_QUIET) == !fcr_tx_quiet(l, vc, e->now));
		/*
		 * never quiet while a frame these books counted on the VC
		 * waits behind the message, in the txq or the device: the
		 * peer would count it lost, and again at each quiet total
		 * while it waits
		 */
		if (v[8] & FABRIC_CTRL_F_QUIET)
			FUZZ_CHECK(!txq_holds(e, vc));
	}
	FUZZ_CHECK(fhc_get_be32(p + FABRIC_CTRL_LINK_ACK_OFF_VCS(l->vcs)) == l->rx_seq);

	/*
	 * The back-off: at most 64 times the shortest base period whatever
	 * the base, never shorter than the base; and news ends it at once
	 * (while every message came from the peer itself: an
	 * acknowledgement of a message we have not sent yet is a lie that
	 * only slows our messages to the liar)
	 */
	FUZZ_CHECK(l->idle_shift <= FCR_IDLE_SHIFT_MAX);
	if (!e->host)
		for (vc = 0, in_min = ~0U; vc < l->vcs; vc++)
			if (e->p.in_bytes[vc] < in_min)
				in_min = e->p.in_bytes[vc];
	base = fcr_base_period(in_min, w->rate);
	period = fcr_msg_period(l, base);
	FUZZ_CHECK(base >= FCR_PERIOD_MIN_NS && base <= FCR_PERIOD_MAX_NS);
	FUZZ_CHECK(period >= base &&
		   period <= FCR_PERIOD_MIN_NS << FCR_IDLE_SHIFT_MAX);
	if (w->honest && memcmp(said, l->said, said_len))
		FUZZ_CHECK(l->idle_shift == 0);

	/* frames counted in its totals wait in the txq, behind it */
	it.behind = !e->host && e->ntxq;
	memcpy(e->hist[e->nhist % HIST_MAX], it.buf, it.len);
	e->hist_len[e->nhist % HIST_MAX] = it.len;
	e->nhist++;
	wire_put(w, x, &it);	/* a full wire loses it */
}

/* The kernel runs the end's timer at once (vcsw_credit_kick()). */
static void kick(struct world *w, int x)
{
	if (w->autokick)
		build(w, x);
}

/*
 * A known loss (credits.rst, Limits): a port made afresh forgets the room
 * the old port's books kept for late frames, and the peer may still hold
 * a grant that only that room backed (a frame counted twice after a quiet
 * total): a frame it sends on that grant can be refused.  Not lossless
 * from here.  (Books that start again on the same port carry the room
 * over: fcr_port_start().)
 */
static void late_room_forgotten(struct world *w, const struct end *e)
{
	unsigned int vc;

	for (vc = 0; vc < e->p.l.vcs; vc++)
		if (e->p.l.rx[vc].late || e->p.carried_bytes[vc])
			w->lossless = false;
}

/* vcsw_credit_restart() */
static void port_restart(struct world *w, int x, fq_u32 rnd)
{
	struct end *e = &w->e[x];
	fq_u32 epoch = draw_epoch(w, e, rnd, e->p.l.epoch, e->p.prev_epoch);
	fq_u64 carry[FCR_MAX_VCS];
	unsigned int vc;

	if (w->lossless && e->nheld)
		DEEP();
	/* the room kept for late frames goes to the new books, in bytes */
	for (vc = 0; vc < FCR_MAX_VCS; vc++) {
		carry[vc] = e->p.carried_bytes[vc] +
			    (fq_u64)e->p.l.rx[vc].late * e->p.l.unit;
		if (carry[vc] > e->p.in_bytes[vc])
			carry[vc] = e->p.in_bytes[vc];
		if (w->lossless && e->p.l.rx[vc].late)
			DEEP();
	}
	fcr_port_start(&e->p, epoch, e->unit, QUIET);
	for (vc = 0; vc < FCR_MAX_VCS; vc++)
		FUZZ_CHECK(e->p.carried_bytes[vc] == carry[vc]);
	books_started(e);
	check_stats(e);
}

/* fabric_link_restart() */
static void host_restart(struct world *w, int x, fq_u32 rnd)
{
	struct end *e = &w->e[x];
	struct fcr_link *l = &e->p.l;
	struct fcr_stats st = l->st;
	fq_u32 epoch = draw_epoch(w, e, rnd, l->epoch, e->host_prev_epoch);

	e->host_prev_epoch = l->epoch;
	fcr_restart(l, epoch, e->unit, 0, QUIET);
	fcr_set_sink(l, (SINK_BYTES + e->unit - 1) / e->unit);
	l->st = st;
	books_started(e);
	check_stats(e);
}

/*
 * vcsw_credit_configure(): credits on or off, the unit, the buffers.
 * @was: the buffers the peer may still hold a grant for.
 */
static void port_configure_was(struct world *w, int x, bool on, fq_u32 unit,
			       const fq_u32 *cfg, const fq_u32 *was, fq_u32 rnd)
{
	struct end *e = &w->e[x];
	bool restart = on && (!e->p.on || unit != e->unit);
	unsigned int vc;

	if (e->p.on && !on)
		fcr_port_stop(&e->p);
	e->unit = unit;
	if (restart)
		port_restart(w, x, rnd);
	for (vc = 0; vc < FCR_MAX_VCS; vc++) {
		fq_u32 bytes = port_in_bytes(cfg[vc], unit, w->mtu);

		/*
		 * a buffer made smaller than what was granted refuses what
		 * the grant let through (credits.rst): not lossless
		 */
		if (bytes < was[vc])
			w->lossless = false;
		e->cfg[vc] = cfg[vc];
		fcr_port_set_buffer(&e->p, vc, bytes);
	}
	if (fcr_woke(&e->p.l) || on)
		kick(w, x);
}

static void port_configure(struct world *w, int x, bool on, fq_u32 unit,
			   const fq_u32 *cfg, fq_u32 rnd)
{
	fq_u32 was[FCR_MAX_VCS];

	memcpy(was, w->e[x].p.in_bytes, sizeof(was));
	port_configure_was(w, x, on, unit, cfg, was, rnd);
}

/* A port as vcsw_slave_add() makes it, then its configuration. */
static void port_fresh(struct world *w, int x, fq_u32 rnd)
{
	struct end *e = &w->e[x];
	struct fcr_stats zero = { 0 };
	fq_u32 was[FCR_MAX_VCS];
	unsigned int k;

	/* what the peer may still have a grant for: the old port's buffers */
	memcpy(was, e->p.in_bytes, sizeof(was));
	late_room_forgotten(w, e);
	fcr_port_init(&e->p, e->unit, port_in_bytes(0, e->unit, w->mtu));
	fcr_set_vcs(&e->p.l, w->vcs);
	e->nheld = 0;
	/*
	 * the old port's txq is purged; what its device holds goes on,
	 * counted by no books of the new port (generation 0)
	 */
	for (k = 0; k < e->ntxq;) {
		if (!e->txq[k].in_dev) {
			e->txq[k] = e->txq[--e->ntxq];
			continue;
		}
		e->txq[k++].gen = 0;
	}
	e->seen = zero;
	books_started(e);
	port_configure_was(w, x, true, e->unit, e->cfg, was, rnd);
}

/* A host's books as fabric_link_get() makes them: zeroed memory. */
static void host_fresh(struct world *w, int x, fq_u32 rnd)
{
	struct end *e = &w->e[x];
	struct fcr_link zero = { 0 };
	struct fcr_stats none = { 0 };

	e->p.l = zero;
	e->host_prev_epoch = 0;
	e->seen = none;
	fcr_set_vcs(&e->p.l, w->vcs);
	host_restart(w, x, rnd);
	kick(w, x);
}

/* The frame @k of @x's input leaves it (forwarded or dropped). */
static void release(struct world *w, int x, unsigned int k)
{
	struct end *e = &w->e[x];
	struct fcr_charge c = e->held[k];
	static struct fcr_port before;
	bool tell;

	e->held[k] = e->held[--e->nheld];
	if (w->lossless && (!e->p.on || c.gen != e->p.gen))
		DEEP();
	tell = fcr_port_release(&e->p, &c);
	/* @c is cleared: a second call does nothing */
	FUZZ_CHECK(c.gen == 0);
	memcpy(&before, &e->p, sizeof(before));
	FUZZ_CHECK(!fcr_port_release(&e->p, &c));
	FUZZ_CHECK(!memcmp(&before, &e->p, sizeof(before)));
	if (fcr_woke(&e->p.l) || tell)
		kick(w, x);
}

/* A data frame reaches end @y (vcsw_handle_frame()). */
static void arrive(struct world *w, int y, const struct item *it)
{
	struct end *e = &w->e[y];
	struct fcr_link *l = &e->p.l;
	struct fcr_charge c;
	struct fcr_rx_vc r0;
	fq_u32 held0, late0, buffer, received0, u, bytes = 0, beyond, carried0;
	fq_u64 late_units0, violations0;
	unsigned int vc, k;
	bool ok;

	/* a host's stack takes it: a sink counts nothing */
	if (e->host)
		return;
	vc = fcr_frame_vc(l->vcs, it->fabric, &it->hdr, 1);
	/* the VC a frame counts on is the same at both ends */
	if (it->vc != NO_VC)
		FUZZ_CHECK(vc == it->vc);
	if (e->nheld == HELD_MAX)
		release(w, y, 0);
	r0 = l->rx[vc];
	carried0 = e->p.carried_bytes[vc];
	held0 = l->rx[vc].held;
	late0 = l->rx[vc].late;
	buffer = l->rx[vc].buffer;
	received0 = l->rx[vc].received;
	late_units0 = l->st.vc[vc].late_units;
	violations0 = l->st.vc[vc].violations;
	u = fcr_units(l, it->len);

	ok = fcr_port_arrive(&e->p, &c, it->len, (fq_u8)vc, e->now);
	if (!e->p.on) {
		/* credits off: taken, not counted */
		FUZZ_CHECK(ok && c.gen == 0);
		FUZZ_CHECK(l->rx[vc].held == held0);
		return;
	}
	if (!ok) {
		/* refused: counted as a violation, nothing held */
		FUZZ_CHECK(c.gen == 0);
		FUZZ_CHECK(l->st.vc[vc].violations == violations0 + 1);
		FUZZ_CHECK(l->rx[vc].held == held0);
		/* its units count as received: the books stay balanced */
		FUZZ_CHECK(l->rx[vc].received == received0 + u);
		/* nor had the room carried from earlier books space for it */
		{
			fq_u32 room0 = r0.held < r0.buffer ? r0.buffer - r0.held : 0;
			fq_u64 over = it->len - (fq_u64)room0 * l->unit;

			fq_u64 inner = ((fq_u64)room0 + r0.late) * l->unit;
			bool input_full = (fq_u64)e->p.old_bytes[vc] + e->p.held_bytes[vc] +
					  it->len > 2 * (fq_u64)e->p.in_bytes[vc];

			FUZZ_CHECK(e->p.carried_bytes[vc] == carried0);
			FUZZ_CHECK(e->p.gen < 2 || over > carried0 || input_full);
			/* nor the two rooms together */
			FUZZ_CHECK(e->p.gen < 2 || !r0.late || it->len <= inner ||
				   it->len - inner > carried0 || input_full ||
				   (fq_u64)held0 + u > 2 * (fq_u64)buffer);
		}
		/* a sender within its credits, on a wire that keeps order,
		 * is never refused: the link is lossless */
		FUZZ_CHECK(!w->lossless);
		if (w->honest)
			DEEP();
	} else if (c.gen != e->p.gen) {
		/*
		 * No room in the current books: taken into the room earlier
		 * books kept for late frames, as of those books, and left
		 * out of the current ones (the peer's totals they start from
		 * have it)
		 */
		fq_u32 room0 = r0.held < r0.buffer ? r0.buffer - r0.held : 0;
		fq_u32 over = it->len - room0 * l->unit;

		FUZZ_CHECK(u > room0 && (u - room0 > r0.late ||
					 (fq_u64)r0.held + u > 2 * (fq_u64)r0.buffer));
		FUZZ_CHECK(c.gen && c.gen < e->p.gen && c.len == it->len && c.vc == vc);
		/* what the free room does not hold, the carried room does */
		FUZZ_CHECK(over && carried0 >= over);
		FUZZ_CHECK(e->p.carried_bytes[vc] == carried0 - over);
		FUZZ_CHECK(l->rx[vc].held == held0);
		FUZZ_CHECK(l->rx[vc].received == received0);
		FUZZ_CHECK(l->st.vc[vc].late_units == late_units0 + fcr_units(l, over));
		for (k = 0; k < e->nheld; k++)
			if (e->held[k].vc == vc)
				bytes += e->held[k].len;
		FUZZ_CHECK((fq_u64)bytes + c.len <= 2 * (fq_u64)e->p.in_bytes[vc]);
		e->held[e->nheld++] = c;
		if (w->lossless)
			DEEP();
	} else {
		FUZZ_CHECK(c.gen == e->p.gen && c.len == it->len && c.vc == vc);
		FUZZ_CHECK(l->rx[vc].held == held0 + u);
		/* beyond twice the buffer whatever a peer claims: refused */
		FUZZ_CHECK(l->rx[vc].held <= 2 * buffer);
		/* what goes beyond the buffer goes into the room kept for
		 * late frames, which it uses up */
		beyond = held0 + u > buffer ? held0 + u - (held0 > buffer ? held0 : buffer) : 0;
		FUZZ_CHECK(l->st.vc[vc].late_units - late_units0 == beyond);
		if (beyond > late0) {
			/*
			 * More than that room: the rest from the room carried
			 * from earlier books, both used (fcr_port_take_both())
			 */
			fq_u32 room0 = held0 < buffer ? buffer - held0 : 0;
			fq_u64 inner = ((fq_u64)room0 + late0) * l->unit;

			FUZZ_CHECK(late0 && e->p.gen >= 2 && it->len > inner);
			FUZZ_CHECK(carried0 >= it->len - inner);
			/* and only when the carried room alone had too little
			 * (the bound on the input is the same for both) */
			FUZZ_CHECK(it->len - (fq_u64)room0 * l->unit > carried0);
			FUZZ_CHECK(e->p.carried_bytes[vc] == carried0 - (it->len - inner));
			FUZZ_CHECK(l->rx[vc].late == 0);
			if (w->lossless)
				DEEP();
		} else {
			FUZZ_CHECK(e->p.carried_bytes[vc] == carried0);
		}
		/* and uncounted, which takes back the excess grant it came by */
		FUZZ_CHECK(l->rx[vc].received == received0 + u - beyond);
		/*
		 * And so in bytes: what the books counted, the current ones
		 * and the earlier ones, at most twice the input buffer (the
		 * bound vcsw_in_limit() puts on memory, "never the reason for
		 * a drop")
		 */
		for (k = 0; k < e->nheld; k++)
			if (e->held[k].vc == vc)
				bytes += e->held[k].len;
		FUZZ_CHECK((fq_u64)bytes + c.len <= 2 * (fq_u64)e->p.in_bytes[vc]);
		e->held[e->nheld++] = c;
		if (w->lossless) {
			if (beyond)
				DEEP();
			if (e->p.old_bytes[vc])
				DEEP();
			if (l->rx[vc].held + fcr_units(l, FCR_MIN_FRAME) > buffer)
				DEEP();
		}
	}
	if (fcr_woke(l))
		kick(w, y);
}

/*
 * Whether @m (@len bytes) is a link message the layout of credits.rst
 * lets @l take: a fabric header of our version whose inner type is the
 * fabric's, type 1, our VC count, our unit, a nonzero epoch, and long
 * enough for the VCs' fields.
 */
static bool well_formed(const struct fcr_link *l, const fq_u8 *m, fq_u32 len)
{
	const fq_u8 *p = m + FABRIC_HDR_LEN;

	if (len < FABRIC_HDR_LEN + FABRIC_CTRL_LINK_ACK_OFF_VCS(l->vcs) ||
	    m[0] >> FABRIC_HDR_VER_SHIFT != FABRIC_HDR_VERSION ||
	    fhc_get_be16(m + 2) != ETH_P_FABRIC)
		return false;
	return p[0] == FABRIC_CTRL_LINK && p[1] == l->vcs &&
	       fhc_get_be16(p + 2) == l->unit && fhc_get_be32(p + 4) != 0;
}

/* The books a message may not touch when it is refused or ignored. */
NO_COVERAGE
static bool books_same(const struct fcr_link *a, const struct fcr_link *b)
{
	unsigned int vc;

	if (a->unit != b->unit || a->vcs != b->vcs || a->sink != b->sink ||
	    a->quiet_ns != b->quiet_ns || a->epoch != b->epoch ||
	    a->peer_epoch != b->peer_epoch ||
	    a->old_peer_epoch != b->old_peer_epoch || a->tx_seq != b->tx_seq ||
	    a->rx_seq != b->rx_seq || a->acked_seq != b->acked_seq ||
	    a->said_since != b->said_since || a->idle_shift != b->idle_shift ||
	    a->woke != b->woke ||
	    memcmp(a->said, b->said, sizeof(a->said)) ||
	    memcmp(a->peer_said, b->peer_said, sizeof(a->peer_said)))
		return false;
	for (vc = 0; vc < FCR_MAX_VCS; vc++) {
		const struct fcr_tx_vc *t = &a->tx[vc], *u = &b->tx[vc];
		const struct fcr_rx_vc *r = &a->rx[vc], *s = &b->rx[vc];

		if (t->sent != u->sent || t->limit != u->limit ||
		    t->limit_ok != u->limit_ok || t->ever_sent != u->ever_sent ||
		    t->last_sent_ns != u->last_sent_ns ||
		    t->in_device != u->in_device || t->queued != u->queued ||
		    r->buffer != s->buffer || r->received != s->received ||
		    r->held != s->held ||
		    r->freed_unadvertised != s->freed_unadvertised ||
		    r->late != s->late || r->ever_received != s->ever_received ||
		    r->last_arrival_ns != s->last_arrival_ns)
			return false;
	}
	return true;
}

/*
 * A link message of @len bytes reaches end @x (vcsw_link_msg(),
 * fabric_link_rcv()).  @real: as its real peer sent it, in order;
 * @behind: and frames it counts are still to come, or never will.
 */
static void receive(struct world *w, int x, const fq_u8 *src, fq_u32 len,
		    bool real, bool behind)
{
	struct end *e = &w->e[x];
	struct fcr_link *l = &e->p.l;
	static struct fcr_link before;
	fq_u32 credits0[FCR_MAX_VCS], epoch = 0, echo = 0, seq = 0;
	fq_u64 taken, refused, stale;
	const fq_u8 *p;
	fq_u8 *m;
	unsigned int r, vc;
	bool wf, restart, older, late, doubted, grew = false;

	/* credits off: dropped before the books (msgs_off) */
	if (!e->host && !e->p.on)
		return;
	/* exactly the bytes the caller says are there */
	m = malloc(len ? len : 1);
	if (!m)
		abort();
	memcpy(m, src, len);
	p = m + FABRIC_HDR_LEN;
	wf = well_formed(l, m, len);
	if (wf) {
		epoch = fhc_get_be32(p + 4);
		echo = fhc_get_be32(p + 8);
		seq = fhc_get_be32(p + 12);
	}
	before = *l;
	for (vc = 0; vc < l->vcs; vc++)
		credits0[vc] = fcr_tx_credits(l, vc);

	r = fcr_msg_receive(l, m, len, e->now);

	taken = l->st.msgs_received - before.st.msgs_received;
	refused = l->st.msgs_malformed - before.st.msgs_malformed +
		  l->st.msgs_unit - before.st.msgs_unit;
	stale = l->st.msgs_stale - before.st.msgs_stale;
	/* each message is taken, refused or ignored, and counted once */
	FUZZ_CHECK(taken + refused + stale == 1);
	FUZZ_CHECK(!(r & ~(unsigned int)(FCR_CREDITS_GREW | FCR_REPLY_NOW |
					 FCR_BUFFER_SAID)));
	/* the buffer the peer stated is new exactly when the answer says so */
	{
		bool said_new = false;
		unsigned int v;

		for (v = 0; v < FCR_MAX_VCS; v++)
			said_new |= l->tx[v].peer_buffer != before.tx[v].peer_buffer;
		FUZZ_CHECK(said_new == !!(r & FCR_BUFFER_SAID));
	}
	/* refused exactly when not well formed: short, unknown type, other
	 * VC count, epoch 0, other version, other unit */
	FUZZ_CHECK(wf == !refused);
	/* a link message is what fcr_is_ctrl() says the kernel hands over */
	FUZZ_CHECK(!wf || fcr_is_ctrl(m, len));
	if (!taken) {
		/* refused or ignored: nothing asked, nothing changed */
		FUZZ_CHECK(r == 0);
		FUZZ_CHECK(books_same(&before, l));
	}
	if (!wf)
		goto out;

	/*
	 * Stale (fcr_msg_stale()): of the epoch we know, not newer than the
	 * last taken; of another epoch (a restart), from the peer's life
	 * before or numbered before the last taken.  Either is taken all the
	 * same once FCR_DOUBT_MAX of that epoch in a row were found stale (no
	 * wrong guess, and no number forged far ahead, locks a link out for
	 * good), except a late one of the epoch we know, no more than
	 * FCR_LATE_MAX behind: never taken, and not counted.  A first contact
	 * is never stale.
	 */
	restart = epoch != before.peer_epoch;
	older = (fq_s32)(seq - before.rx_seq) <= 0;
	late = !restart && older && before.rx_seq - seq <= FCR_LATE_MAX;
	doubted = e->doubt_epoch == epoch && e->doubt_n >= FCR_DOUBT_MAX;
	if (!before.peer_epoch)
		FUZZ_CHECK(taken);
	else if (!restart)
		FUZZ_CHECK(!taken == (late || (older && !doubted)));
	else
		FUZZ_CHECK(!taken == ((older || epoch == before.old_peer_epoch) &&
				      !doubted));
	if (stale && before.peer_epoch && !late) {
		if (e->doubt_epoch != epoch) {
			e->doubt_epoch = epoch;
			e->doubt_n = 0;
		}
		e->doubt_n++;
	}
	if (!taken)
		goto out;
	e->doubt_n = 0;
	if (restart && before.peer_epoch && w->honest)
		DEEP();

	/* the peer is who the message says, as of its number */
	FUZZ_CHECK(l->peer_epoch == epoch && l->rx_seq == seq);
	FUZZ_CHECK(l->old_peer_epoch ==
		   (restart ? before.peer_epoch : before.old_peer_epoch));
	FUZZ_CHECK(l->st.peer_epochs == before.st.peer_epochs + restart);
	/* a message without the acknowledgement acknowledges nothing */
	FUZZ_CHECK(l->acked_seq ==
		   (len >= FABRIC_HDR_LEN + FABRIC_CTRL_LINK_LEN_VCS(l->vcs) ?
		    fhc_get_be32(p + FABRIC_CTRL_LINK_ACK_OFF_VCS(l->vcs)) : 0));
	for (vc = 0; vc < l->vcs; vc++) {
		const fq_u8 *v = p + FCR_VC_OFF(vc);
		const struct fcr_rx_vc *r0 = &before.rx[vc], *r1 = &l->rx[vc];
		const struct fcr_tx_vc *t0 = &before.tx[vc], *t1 = &l->tx[vc];
		fq_u32 sent = fhc_get_be32(v);
		fq_s32 diff = (fq_s32)(sent - r0->received);

		/* what we sent and what our buffer holds are ours to say */
		FUZZ_CHECK(t1->sent == t0->sent && t1->ever_sent == t0->ever_sent &&
			   t1->last_sent_ns == t0->last_sent_ns);
		FUZZ_CHECK(r1->held == r0->held && r1->buffer == r0->buffer &&
			   r1->ever_received == r0->ever_received &&
			   r1->last_arrival_ns == r0->last_arrival_ns);
		if (restart) {
			/* the peer's totals are the new starting point; the
			 * room for its old life's late frames stays */
			FUZZ_CHECK(r1->received == sent && r1->late == r0->late);
		} else if (l->sink) {
			/* a sink takes any newer total as received */
			FUZZ_CHECK(r1->received == (diff > 0 ? sent : r0->received));
		} else {
			/*
			 * a quiet total corrects our count, and only a quiet
			 * one: up (what it has more was lost), or down when
			 * nothing arrived for the quiet time either (the
			 * link is empty, the excess was counted twice)
			 */
			bool rx_quiet = !r0->ever_received ||
				(fq_s64)(e->now - r0->last_arrival_ns) >= (fq_s64)l->quiet_ns;
			bool corrects = (v[8] & FABRIC_CTRL_F_QUIET) && diff &&
					(diff > 0 || rx_quiet);

			FUZZ_CHECK(r1->received == (corrects ? sent : r0->received));
			if (corrects && w->lossless) {
				if (diff > 0)
					DEEP();
				else
					DEEP();
			}
		}
		/* what was found lost stays room for late frames */
		if (!restart)
			FUZZ_CHECK(r1->late >= r0->late);

		/* a grant only from a message that echoes our epoch */
		if (echo != l->epoch) {
			FUZZ_CHECK(!t1->limit_ok);
		} else if (v[8] & FABRIC_CTRL_F_LIMIT) {
			FUZZ_CHECK(t1->limit_ok && t1->limit == fhc_get_be32(v + 4));
		} else {
			FUZZ_CHECK(t1->limit_ok == t0->limit_ok && t1->limit == t0->limit);
		}
		grew |= fcr_tx_credits(l, vc) > credits0[vc];
	}
	/* a sender stalled on credits waits for this to go on */
	FUZZ_CHECK(!(r & FCR_CREDITS_GREW) == !grew);
	/* a peer that has not heard our epoch, or restarted, is answered */
	if (restart || echo != l->epoch)
		FUZZ_CHECK(r & FCR_REPLY_NOW);
	if (echo == l->epoch)
		e->heard = true;
	/*
	 * New books that start from a total counting frames still in the
	 * peer's txq count those again when they come (and a frame the
	 * device refuses after all was never sent): the grant is too large
	 * by them until the link is idle, and the receiver refuses what
	 * that lets through ("frames that cross a restart behind the first
	 * message of the new life", credits.rst)
	 */
	if (restart && behind)
		w->lossless = false;
	if (real)
		held_overtaken(w, x, restart, p, &before);
	if (!real) {
		w->lossless = false;
		w->honest = false;
	}
out:
	free(m);
	if ((r & FCR_REPLY_NOW) || fcr_woke(l))
		kick(w, x);
}

/* What waits on the wire from @x reaches the other end. */
static void deliver(struct world *w, int x, unsigned int k)
{
	struct item it;

	/* overtaken, and not held: the wire reordered */
	if (k > w->w[x].held)
		w->lossless = false;
	/* a frame found lost comes after all */
	if (k < w->w[x].held && w->w[x].it[k].found && w->lossless)
		DEEP();
	wire_take(w, x, k, &it);
	if (it.msg)
		receive(w, !x, it.buf, it.len, true, it.behind);
	else
		arrive(w, !x, &it);
}

/*
 * The wire from @x holds its next frame back (struct wire), or (@let)
 * lets one it holds arrive.  Only data: link messages keep their order
 * (a late one is ignored as stale: the hostile world's reordering).
 */
static void hold(struct world *w, int x, bool let, struct fuzz_in *in)
{
	struct wire *q = &w->w[x];
	const struct end *y = &w->e[!x];
	struct item *it = &q->it[q->held];
	unsigned int vc;
	fq_u32 u;

	if (let) {
		if (q->held)
			deliver(w, x, fuzz_below(in, q->held));
		return;
	}
	if (q->held == q->n || it->msg)
		return;
	vc = item_vc(w, !x, it);
	u = fcr_units(&y->p.l, it->len);
	/* what may count twice fits the room kept for late frames */
	if (!y->host && (fq_u64)q->twice[vc] + u > y->p.l.rx[vc].buffer)
		return;
	q->twice[vc] += u;
	it->found = false;
	q->held++;
}

/*
 * End @x sends a data frame: a host's qdisc (fabric_link_take()) or a
 * port's output (vcsw_slave_next(), vcsw_slave_service()), within its
 * credits; a port puts it on the wire or into its txq for the driver.
 */
static void send_data(struct world *w, int x, unsigned int frames,
		      struct fuzz_in *in)
{
	struct end *e = &w->e[x], *peer = &w->e[!x];
	struct fcr_link *l = &e->p.l;
	fq_u8 sel = fuzz_u8(in);
	fq_u32 len = fcr_wire_len(1 + fuzz_below(in, w->mtu + ETH_HDR));
	struct item it = { .hdr = sel, .fabric = sel & 1 };
	unsigned int vc = fcr_frame_vc(l->vcs, it.fabric, &it.hdr, 1);
	bool txq = !e->host && (sel & 2);

	it.len = len;
next:
	if (!frames-- || w->w[x].n == WIRE_MAX || (txq && e->ntxq == TXQ_MAX))
		return;
	if (!e->host && !e->p.on) {
		/* without credits a port sends as it likes (lossy) */
		it.vc = NO_VC;
		w->lossless = false;
		wire_put(w, x, &it);
		goto next;
	}
	if (!fcr_tx_may_send(l, vc, len))
		return;		/* it waits for credits */
	if (txq)
		fcr_tx_queue(l, vc, len);	/* vcsw_slave_service() */
	else
		fcr_tx_sent(l, vc, len, e->now);
	/* a sender that asks never goes past the grant */
	FUZZ_CHECK(l->tx[vc].limit_ok &&
		   (fq_s32)(l->tx[vc].limit - l->tx[vc].sent) >= 0);
	/*
	 * toward a sink: at most its buffer beyond the total it last took
	 * from us (fcr_set_sink()), once it knows this life of ours.  And
	 * what we gave back: a total that counted a frame the device then
	 * refused put the sink's count ahead of ours, and a grant from the
	 * sink's life before a restart, on its way still, is ahead by it
	 */
	if (w->lossless && peer->host && peer->p.l.peer_epoch == l->epoch)
		FUZZ_CHECK((fq_s32)(l->tx[vc].sent - peer->p.l.rx[vc].received) <=
			   (fq_s32)(peer->p.l.rx[vc].buffer + e->unsent_units[vc]));
	it.vc = (fq_u8)vc;
	if (txq) {
		struct txq_ent *t = &e->txq[e->ntxq++];

		t->gen = e->p.gen;
		t->len = len;
		t->vc = (fq_u8)vc;
		t->hdr = it.hdr;
		t->fabric = it.fabric;
		t->in_dev = false;
	} else {
		wire_put(w, x, &it);
	}
	if (fcr_woke(l))
		kick(w, x);
	goto next;
}

/*
 * A frame of @x's txq goes to the device (vcsw_slave_flush(), which
 * tells the books, vcsw_credit_handed()): onto the wire, into the
 * device's queue (@how 2), or refused (@how 1); or one in the device's
 * queue goes onto the wire.
 */
static void txq_out(struct world *w, int x, unsigned int k, unsigned int how)
{
	struct end *e = &w->e[x];
	struct txq_ent t = e->txq[k];
	struct item it = { .hdr = t.hdr, .fabric = t.fabric, .vc = t.vc,
			   .len = t.len };
	bool refused = how == 1 && !t.in_dev;

	if (!refused && (how != 2 || t.in_dev) && w->w[x].n == WIRE_MAX)
		return;
	if (!t.in_dev && e->p.on && e->p.gen == t.gen) {
		fq_u32 queued = e->p.l.tx[t.vc].queued;

		fcr_tx_handed(&e->p.l, t.vc, fcr_units(&e->p.l, t.len), e->now);
		FUZZ_CHECK(queued >= fcr_units(&e->p.l, t.len) &&
			   e->p.l.tx[t.vc].queued == queued - fcr_units(&e->p.l, t.len));
	}
	if (how == 2 && !t.in_dev) {
		e->txq[k].in_dev = true;
		return;
	}
	e->txq[k] = e->txq[--e->ntxq];
	if (!refused) {
		wire_put(w, x, &it);
		return;
	}
	/* vcsw_credit_unsend(): only into the books that counted it */
	if (e->p.on && e->p.gen == t.gen) {
		fq_u32 sent = e->p.l.tx[t.vc].sent;

		fcr_tx_unsend(&e->p.l, t.vc, t.len);
		e->unsent_units[t.vc] += fcr_units(&e->p.l, t.len);
		if (w->lossless)
			DEEP();
		/* its units were not spent */
		FUZZ_CHECK(e->p.l.tx[t.vc].sent == sent - fcr_units(&e->p.l, t.len));
		e->unsent = true;
		if (fcr_woke(&e->p.l))
			kick(w, x);
	}
}

/*
 * vcsw_slave_purge() (the link or the switch went down, the port goes):
 * what waits in @x's txq is dropped before the device, its units given
 * back to the books that counted it; the device keeps what it holds.
 */
static void txq_purge(struct world *w, int x)
{
	struct end *e = &w->e[x];
	unsigned int k = 0;

	while (k < e->ntxq) {
		struct txq_ent t = e->txq[k];

		if (t.in_dev) {
			k++;
			continue;
		}
		e->txq[k] = e->txq[--e->ntxq];
		if (e->p.on && e->p.gen == t.gen) {
			FUZZ_CHECK(e->p.l.tx[t.vc].queued >= fcr_units(&e->p.l, t.len));
			fcr_tx_unqueue(&e->p.l, t.vc, t.len);
			e->unsent_units[t.vc] += fcr_units(&e->p.l, t.len);
			e->unsent = true;
			if (w->lossless)
				DEEP();
		}
	}
	if (fcr_woke(&e->p.l))
		kick(w, x);
}

/* A frame that ignores credits: pktgen, a packet socket, a liar. */
static void send_rogue(struct world *w, int x, struct fuzz_in *in)
{
	struct end *e = &w->e[x];
	fq_u8 sel = fuzz_u8(in);
	/* what the receiving device lets in: up to the MTU and a VLAN tag */
	fq_u32 len = fcr_wire_len(1 + fuzz_below(in, w->mtu + ETH_HDR + 4));
	struct item it = { .hdr = fuzz_u8(in), .fabric = sel & 1, .vc = NO_VC,
			   .len = len };
	unsigned int vc = fcr_frame_vc(e->p.l.vcs, it.fabric, &it.hdr, 1);

	if (!wire_put(w, x, &it))
		return;
	w->lossless = false;
	/* counted as if sent, or not counted at all */
	if (sel & 2)
		fcr_tx_sent(&e->p.l, vc, len, e->now);
	fcr_woke(&e->p.l);
}

/* ---- messages the peer did not send as they are ---------------------------- */

static fq_u32 prev_epoch_of(const struct end *e)
{
	return e->host ? e->host_prev_epoch : e->p.prev_epoch;
}

/*
 * A message for end @x made up field by field, most fields near what the
 * books of @x and of its real peer hold, so that it gets past the checks
 * that a random one never would: the real epochs and a few others, the
 * next numbers or ones half the circle away, totals and grants a little
 * off the real ones, any flags, any length.
 */
static void forge(struct world *w, int x, struct fuzz_in *in)
{
	const struct end *t = &w->e[x], *r = &w->e[!x];
	const struct fcr_link *tl = &t->p.l, *rl = &r->p.l;
	fq_u8 m[MSG_ROOM] = { 0 };
	fq_u8 *p = m + FABRIC_HDR_LEN;
	struct fhc_fields f = { 0 };
	fq_u8 c0 = fuzz_u8(in), c1 = fuzz_u8(in), c2 = fuzz_u8(in);
	fq_u32 v32, len, full;
	unsigned int vc, nvcs;

	f.version = FABRIC_HDR_VERSION;
	f.vc = c0 >> 6;
	f.inner_proto = ETH_P_FABRIC;
	if ((c0 & 7) == 0) {
		f.version = fuzz_u8(in) & 0xf;
		f.inner_proto = fuzz_u16(in);
	}
	fhc_encode(m, &f);
	p[0] = FABRIC_CTRL_LINK;
	p[1] = tl->vcs;
	fhc_put_be16(p + 2, (fq_u16)tl->unit);
	if ((c0 & 0x38) == 0) {
		p[0] = fuzz_u8(in);
		p[1] = fuzz_u8(in) % (FCR_MAX_VCS + 2);
		fhc_put_be16(p + 2, fuzz_u16(in));
	}
	switch (c1 & 7) {
	case 0: v32 = rl->epoch; break;
	case 1: v32 = tl->peer_epoch; break;
	case 2: v32 = tl->old_peer_epoch; break;
	case 3: v32 = prev_epoch_of(r); break;
	case 4: v32 = tl->doubt_epoch; break;
	case 5: v32 = 0; break;
	case 6: v32 = fuzz_u8(in); break;
	default: v32 = fuzz_u32(in); break;
	}
	fhc_put_be32(p + 4, v32);
	switch (c1 >> 3 & 3) {
	case 0: v32 = tl->epoch; break;
	case 1: v32 = prev_epoch_of(t); break;
	case 2: v32 = 0; break;
	default: v32 = fuzz_u32(in); break;
	}
	fhc_put_be32(p + 8, v32);
	switch (c1 >> 5 & 3) {
	case 0: v32 = tl->rx_seq + (fq_u32)(fq_s32)(int8_t)fuzz_u8(in); break;
	case 1: v32 = rl->tx_seq + 1 + (fq_u32)(fq_s32)(int8_t)fuzz_u8(in); break;
	case 2: v32 = tl->rx_seq + 0x80000000u + (fq_u32)(fq_s32)(int8_t)fuzz_u8(in); break;
	default: v32 = fuzz_u32(in); break;
	}
	fhc_put_be32(p + 12, v32);

	nvcs = p[1] < FCR_MAX_VCS ? p[1] : FCR_MAX_VCS;
	for (vc = 0; vc < nvcs; vc++) {
		fq_u8 *v = p + FCR_VC_OFF(vc);
		fq_u8 cv = fuzz_u8(in);

		switch (cv & 3) {
		case 0: v32 = tl->rx[vc].received + (fq_u32)(fq_s32)(int16_t)fuzz_u16(in); break;
		case 1: v32 = rl->tx[vc].sent; break;
		case 2: v32 = tl->rx[vc].received + tl->rx[vc].buffer +
			      (fq_u32)(fq_s32)(int8_t)fuzz_u8(in); break;
		default: v32 = fuzz_u32(in); break;
		}
		fhc_put_be32(v, v32);
		switch (cv >> 2 & 3) {
		case 0: v32 = tl->tx[vc].sent + (fq_u32)(fq_s32)(int16_t)fuzz_u16(in); break;
		case 1: v32 = fcr_rx_limit(rl, vc); break;
		case 2: v32 = tl->tx[vc].limit + (fq_u32)(fq_s32)(int8_t)fuzz_u8(in); break;
		default: v32 = fuzz_u32(in); break;
		}
		fhc_put_be32(v + 4, v32);
		v[8] = cv >> 4 & 3;
		if (cv & 0x40)
			v[8] = fuzz_u8(in);
		if (cv & 0x80)
			v[9] = v[10] = v[11] = fuzz_u8(in);
	}
	full = FABRIC_HDR_LEN + FABRIC_CTRL_LINK_LEN_VCS(nvcs);
	fhc_put_be32(p + FABRIC_CTRL_LINK_ACK_OFF_VCS(nvcs),
		     c2 & 1 ? fuzz_u32(in) : tl->tx_seq - (c2 >> 1 & 3));
	switch (c2 >> 3 & 3) {
	case 0: len = full; break;
	case 1: len = full - 4; break;		/* no acknowledgement */
	case 2: len = full + fuzz_below(in, MSG_ROOM - full + 1); break;
	default: len = fuzz_below(in, MSG_ROOM + 1); break;
	}
	receive(w, x, m, len, false, false);
}

/* One of @x's peer's own messages again, some bytes changed or not. */
static void replay(struct world *w, int x, struct fuzz_in *in)
{
	const struct end *r = &w->e[!x];
	fq_u8 m[MSG_ROOM] = { 0 };
	fq_u8 sel = fuzz_u8(in);
	unsigned int k, i, n = r->nhist < HIST_MAX ? r->nhist : HIST_MAX;
	fq_u32 len;

	if (!n)
		return;
	k = fuzz_below(in, n);
	len = r->hist_len[k];
	memcpy(m, r->hist[k], len);
	for (i = 0; i < (sel & 3u); i++) {
		fq_u32 at = fuzz_below(in, len);

		m[at] = fuzz_u8(in);
	}
	if (sel & 4)
		len = fuzz_below(in, MSG_ROOM + 1);
	receive(w, x, m, len, false, false);
}

/* ---- restarts and configuration --------------------------------------------- */

static void restart(struct world *w, int x, unsigned int how, fq_u32 rnd)
{
	struct end *e = &w->e[x];

	if (e->host) {
		/* the link came up again (fabric_link_restart(), a kick) */
		host_restart(w, x, rnd);
		kick(w, x);
		return;
	}
	switch (how & 3) {
	case 0:
		/* vcsw_credit_link_change(): up again, new books if on */
		if (e->p.on) {
			port_restart(w, x, rnd);
			kick(w, x);
		}
		break;
	case 1:
		port_configure(w, x, false, e->unit, e->cfg, rnd);
		break;
	default:
		port_configure(w, x, true, e->unit, e->cfg, rnd);
		break;
	}
}

static void set_buffer(struct world *w, int x, struct fuzz_in *in)
{
	struct end *e = &w->e[x];
	fq_u32 cfg[FCR_MAX_VCS];
	unsigned int vc = fuzz_u8(in) % FCR_MAX_VCS;

	if (e->host)
		return;		/* a host's grant is fixed */
	memcpy(cfg, e->cfg, sizeof(cfg));
	cfg[vc] = pick_cfg(in, e->unit, w->mtu);
	/* an honest run only grows them: a smaller one is not lossless */
	if (!w->hostile && port_in_bytes(cfg[vc], e->unit, w->mtu) < e->p.in_bytes[vc])
		return;
	port_configure(w, x, e->p.on, e->unit, cfg, fuzz_u32(in));
}

static void set_unit(struct world *w, int x, struct fuzz_in *in)
{
	struct end *e = &w->e[x];
	fq_u32 unit = pick_unit(in), rnd = fuzz_u32(in);
	unsigned int vc;

	/* vcsw_slave_changelink() refuses buffers smaller than a frame */
	for (vc = 0; vc < FCR_MAX_VCS && !e->host; vc++)
		if (!port_cfg_ok(e->cfg[vc], unit, w->mtu))
			return;
	/* the other end counts another unit until told: its messages are
	 * refused, and frames counted in one unit fill the other's */
	if (unit != e->unit)
		w->lossless = false;
	if (e->host) {
		/* fabric_link_set_books(): always new books */
		e->unit = unit;
		host_restart(w, x, rnd);
		kick(w, x);
		return;
	}
	port_configure(w, x, e->p.on, unit, e->cfg, rnd);
}

/* The port deleted and added again, the module reloaded: from scratch. */
static void fresh(struct world *w, int x, fq_u32 rnd)
{
	struct end *e = &w->e[x];

	if (e->host) {
		host_fresh(w, x, rnd);
		return;
	}
	/* its frames go with it */
	while (e->nheld)
		release(w, x, e->nheld - 1);
	port_fresh(w, x, rnd);
}

static void advance(struct world *w, int x, struct fuzz_in *in)
{
	fq_u8 sel = fuzz_u8(in);
	fq_u64 dt;

	switch (sel & 3) {
	case 0: dt = (fq_u64)fuzz_u8(in) * 1000; break;
	/* around the quiet time, where the guesses change */
	case 1: dt = QUIET - 128000 + (fq_u64)fuzz_u8(in) * 1000; break;
	case 2: dt = (fq_u64)fuzz_u16(in) * 1000; break;
	default: dt = fuzz_u32(in); break;
	}
	w->e[x].now += dt;
	if (sel & 4)
		w->e[!x].now += dt;
}

/* ---- once idle, the books are right again ----------------------------------- */

/* Everything on the wire and in the txqs arrives, in order. */
static bool drain(struct world *w)
{
	unsigned int rounds, x;

	for (rounds = 0; rounds < 64; rounds++) {
		bool busy = false;

		for (x = 0; x < 2; x++) {
			struct end *e = &w->e[x];

			while (e->ntxq) {
				if (w->w[x].n == WIRE_MAX)
					deliver(w, (int)x, 0);
				txq_out(w, (int)x, e->ntxq - 1, 0);
			}
			while (w->w[x].n) {
				deliver(w, (int)x, 0);
				busy = true;
			}
		}
		if (!busy)
			return true;
	}
	return false;	/* the ends keep answering each other */
}

/*
 * Whether each sender has exactly the peer's buffer to send into.  A
 * sink grants its buffer beyond the last total it took, which never goes
 * back, so a sender that took units back (fcr_tx_unsend()) may find its
 * grant larger by them, never smaller.
 */
NO_COVERAGE
static bool books_full(const struct world *w)
{
	unsigned int x, vc;

	for (x = 0; x < 2; x++) {
		const struct end *e = &w->e[x], *peer = &w->e[!x];

		for (vc = 0; vc < w->vcs; vc++) {
			fq_u32 credits = fcr_tx_credits(&e->p.l, vc);
			fq_u32 buffer = peer->p.l.rx[vc].buffer;

			if (peer->host && e->unsent ? credits < buffer : credits != buffer)
				return false;
		}
	}
	return true;
}

/*
 * The traffic stops, every frame leaves its input, both ends are on and
 * count the same unit, and messages flow without loss while the link is
 * idle: within a few messages each sender must have exactly the peer's
 * buffer to send into (credits.rst: lost units are found again, what was
 * counted twice is taken back, a restarted peer is heard again, one that
 * started from scratch after FCR_DOUBT_MAX messages), nothing leaked and
 * nothing invented.
 */
static void settle(struct world *w)
{
	unsigned int x, i;

	if (w->e[0].unit != w->e[1].unit || !drain(w))
		return;
	for (x = 0; x < 2; x++)
		while (w->e[x].nheld)
			release(w, (int)x, w->e[x].nheld - 1);
	for (x = 0; x < 2; x++) {
		struct end *e = &w->e[x];

		if (!e->host && !e->p.on)
			port_configure(w, (int)x, true, e->unit, e->cfg, 0x5e771e + x);
	}
	for (i = 0; i < SETTLE_ROUNDS; i++) {
		for (x = 0; x < 2; x++) {
			w->e[0].now += QUIET + FCR_PERIOD_MAX_NS;
			w->e[1].now += QUIET + FCR_PERIOD_MAX_NS;
			build(w, (int)x);
			if (!drain(w))
				return;
		}
		for (x = 0; x < 2; x++) {
			check_end(w, &w->e[x]);
			while (w->e[x].nheld)
				release(w, (int)x, w->e[x].nheld - 1);
		}
		if (books_full(w)) {
			if (i > 2)
				DEEP();
			return;
		}
	}
	FUZZ_CHECK(books_full(w));
}

/* ---- the input ------------------------------------------------------------------ */

/*
 * What the input does, one byte each: bit 0 the end, bits 1-4 the
 * operation, bits 5-7 a count or a variant.  The first ones are what the
 * kernel and an honest link do; only a hostile input (bit 1 of its first
 * byte) gets the others, so that the fuzzer explores long honest runs
 * too, where the link must be lossless.
 */
enum op {
	OP_SEND, OP_DELIVER, OP_BUILD, OP_RELEASE, OP_TIME, OP_LOSE,
	OP_RESTART, OP_BUFFER, OP_TXQ, OP_FRESH, OP_HOLD,
	OP_HONEST,
	OP_FORGE = OP_HONEST, OP_RAW, OP_REPLAY, OP_ROGUE, OP_REORDER, OP_UNIT,
	OP_COUNT
};

static void setup(struct world *w, struct fuzz_in *in)
{
	static const fq_u32 mtus[] = { 1500, 68, 9000, 576 };
	fq_u8 c = fuzz_u8(in);
	fq_u32 unit = pick_unit(in);
	unsigned int x, vc;

	memset(w, 0, sizeof(*w));
	w->lossless = true;
	w->honest = true;
	w->e[0].host = c & 1;
	w->hostile = c & 2;
	w->autokick = c & 4;
	w->mtu = mtus[c >> 3 & 3];
	w->vcs = 2 + (c >> 5) % 3;
	w->rate = (fq_u64)fuzz_u8(in) * 125000;	/* 0: not known */
	for (x = 0; x < 2; x++) {
		struct end *e = &w->e[x];

		e->unit = unit;
		e->now = (fq_u64)fuzz_u16(in) * 1000000;
		if (!e->host)
			for (vc = 0; vc < FCR_MAX_VCS; vc++)
				e->cfg[vc] = pick_cfg(in, unit, w->mtu);
	}
	for (x = 0; x < 2; x++)
		fresh(w, (int)x, fuzz_u32(in));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct world *w = &W;
	unsigned int n;

	setup(w, &in);
	for (n = 0; n < MAX_OPS && fuzz_more(&in); n++) {
		fq_u8 op = fuzz_u8(&in);
		int x = op & 1;
		unsigned int arg = op >> 5, i;
		struct end *e = &w->e[x];

		switch ((op >> 1) % (w->hostile ? OP_COUNT : OP_HONEST)) {
		case OP_SEND:
			send_data(w, x, arg + 1, &in);
			break;
		case OP_DELIVER:
			/* the next that the wire does not hold */
			for (i = 0; i <= arg && w->w[x].n > w->w[x].held; i++)
				deliver(w, x, w->w[x].held);
			break;
		case OP_BUILD:
			build(w, x);
			break;
		case OP_RELEASE:
			for (i = 0; i <= arg && e->nheld; i++)
				release(w, x, fuzz_below(&in, e->nheld));
			break;
		case OP_TIME:
			advance(w, x, &in);
			break;
		case OP_LOSE:
			if (w->w[x].n) {
				struct item it;

				wire_take(w, x, fuzz_below(&in, w->w[x].n), &it);
			}
			break;
		case OP_RESTART:
			restart(w, x, arg, fuzz_u32(&in));
			break;
		case OP_FORGE:
			forge(w, x, &in);
			break;
		case OP_RAW: {
			size_t len;
			const uint8_t *bytes = fuzz_bytes(&in, MSG_ROOM, &len);

			receive(w, x, bytes, (fq_u32)len, false, false);
			break;
		}
		case OP_REPLAY:
			replay(w, x, &in);
			break;
		case OP_BUFFER:
			set_buffer(w, x, &in);
			break;
		case OP_TXQ:
			if (arg % 4 == 3)
				txq_purge(w, x);
			else if (e->ntxq)
				txq_out(w, x, fuzz_below(&in, e->ntxq), arg % 4);
			break;
		case OP_ROGUE:
			send_rogue(w, x, &in);
			break;
		case OP_REORDER:
			if (w->w[x].n)
				deliver(w, x, fuzz_below(&in, w->w[x].n));
			break;
		case OP_UNIT:
			set_unit(w, x, &in);
			break;
		case OP_HOLD:
			hold(w, x, arg & 1, &in);
			break;
		default:
			fresh(w, x, fuzz_u32(&in));
			break;
		}
		check_end(w, &w->e[0]);
		check_end(w, &w->e[1]);
	}
	check_stats(&w->e[0]);
	check_stats(&w->e[1]);
	if (w->honest)
		settle(w);
	return 0;
}
