// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the edf deadline arithmetic (paper section 3.1). */
#include "unit.h"
#include "core/edf_core.h"

UNIT_TEST(vclock_formula)
{
	/* 1500 B at 1 Gbit/s (125e6 B/s) is 12 us */
	EXPECT_EQ(edf_tx_time(1500, 125000000), 12000);
	/* idle flow: starts from now */
	EXPECT_EQ(edf_vclock_deadline(0, 1000000, 1500, 125000000), 1012000);
	/* backlogged flow: starts from its previous deadline */
	EXPECT_EQ(edf_vclock_deadline(2000000, 1000000, 1500, 125000000), 2012000);
}

UNIT_TEST(tx_time_rounds_up)
{
	/* 1 byte at 3 B/s: 333333333.3 ns -> 333333334 */
	EXPECT_EQ(edf_tx_time(1, 3), 333333334);
	EXPECT_EQ(edf_tx_time(0, 1000), 0);
	EXPECT_EQ(edf_tx_time(1, 0), EDF_NSEC_PER_SEC);
}

UNIT_TEST(rate_and_length_extremes_do_not_overflow)
{
	/* 64 KB at 1 kbit/s: 524.288 s */
	EXPECT_EQ(edf_tx_time(EDF_LEN_MAX, EDF_RATE_MIN), 524288000000ULL);
	/* 64 B at 400 Gbit/s: 1.28 ns -> 2 */
	EXPECT_EQ(edf_tx_time(64, EDF_RATE_MAX), 2);
	/* 64 KB at 400 Gbit/s: 1310.72 ns -> 1311 */
	EXPECT_EQ(edf_tx_time(EDF_LEN_MAX, EDF_RATE_MAX), 1311);
	/* the largest 32-bit length at the lowest rate still fits */
	EXPECT_EQ(edf_tx_time(0xffffffffU, EDF_RATE_MIN), 34359738360000000ULL);
	/* near the end of time deadlines saturate rather than wrap */
	EXPECT_EQ(edf_vclock_deadline(EDF_TIME_MAX - 5, 0, 1500, EDF_RATE_MIN),
		  EDF_TIME_MAX);
	EXPECT_EQ(edf_frame_deadline(EDF_TIME_MAX - 1, 0, 10000000, 1), EDF_TIME_MAX);
}

UNIT_TEST(deadlines_never_go_backwards)
{
	fq_u64 d = 0, now = 0;
	fq_u32 len;

	for (len = 1; len <= EDF_LEN_MAX; len = len * 3 + 1) {
		fq_u64 next = edf_vclock_deadline(d, now, len, EDF_RATE_MAX);

		EXPECT_TRUE(next > d);
		d = next;
		now += 7;
	}
	EXPECT_EQ(edf_monotonic(100, 50), 100);
	EXPECT_EQ(edf_monotonic(100, 150), 150);
}

UNIT_TEST(frame_of_any_size_takes_the_latency)
{
	fq_u64 d = 0, now = 5000000, latency = 10000000;
	fq_u32 parts, i;

	for (parts = 1; parts <= 80; parts *= 3) {
		d = 0;
		for (i = 0; i < parts; i++)
			d = edf_frame_deadline(d, now, latency, parts);
		/* last packet due about LATENCY after the frame arrived */
		EXPECT_TRUE(d <= now + latency);
		EXPECT_TRUE(d + parts >= now + latency);
	}
	EXPECT_EQ(edf_frame_deadline(0, 7, 10, 0), 17);
}

UNIT_TEST(paper_fig1_eligibility)
{
	/* eligibility factor 3: a packet due at 7 may leave from time 4 */
	EXPECT_EQ(edf_eligible_time(7, 3), 4);
	EXPECT_TRUE(!edf_is_eligible(3, 7, 3));
	EXPECT_TRUE(edf_is_eligible(4, 7, 3));
	EXPECT_TRUE(edf_is_eligible(9, 7, 3));
	/* deadlines earlier than the eligibility are eligible at once */
	EXPECT_EQ(edf_eligible_time(2, 3), 0);
	/* 20 us default: due at 1 ms, eligible from 980 us */
	EXPECT_EQ(edf_eligible_time(1000000, 20000), 980000);
}

/* edf_txtime_deadline(txtime, floor, now, horizon) */
UNIT_TEST(txtime_horizon)
{
	EXPECT_EQ(edf_txtime_deadline(5000, 1000, 1000, 10000), 5000);
	EXPECT_EQ(edf_txtime_deadline(50000, 1000, 1000, 10000), 11000);
	EXPECT_EQ(edf_txtime_deadline(EDF_TIME_MAX, EDF_TIME_MAX - 2, EDF_TIME_MAX - 2, 10),
		  EDF_TIME_MAX);
}

/*
 * A txtime in the past is ordered at the floor (now; for best effort the
 * service frontier), never before it.  Taken as it was, tstamp 1 headed
 * its VC for as long as the socket kept sending.
 */
UNIT_TEST(txtime_in_the_past_is_ordered_at_now)
{
	fq_u64 now = 5000000000ULL, other = now + 100, prev = 0, t, d;
	int ahead = 0, off_clock = 0;

	EXPECT_EQ(edf_txtime_deadline(500, 1000, 1000, 10000), 1000);
	EXPECT_EQ(edf_txtime_deadline(1, now, now, 10000), now);
	EXPECT_TRUE(edf_txtime_is_late(1, now));
	EXPECT_TRUE(edf_txtime_is_late(now - 1, now));
	EXPECT_TRUE(!edf_txtime_is_late(now, now));
	/* best effort: the frontier ahead of now is the floor, even past
	 * the horizon (what a packet without a txtime would get) */
	EXPECT_EQ(edf_txtime_deadline(now + 10, now + 500, now, 10000), now + 500);
	EXPECT_EQ(edf_txtime_deadline(now + 1, now + 50000, now, 10000), now + 50000);
	/* a flow stamping 1 on every packet, one every 10 ns for 10 us,
	 * while another flow's packet is due at now + 100: only what the
	 * stamping flow sent before now + 100 goes first */
	for (t = now; t < now + 10000; t += 10) {
		d = edf_monotonic(prev, edf_txtime_deadline(1, t, t, 10000000));
		off_clock += d != t;
		ahead += d < other;
		prev = d;
	}
	EXPECT_EQ(off_clock, 0);
	EXPECT_EQ(ahead, 10);
}

/*
 * A class with a burst (sch_edf: eligible at D - edf_bucket_eligibility())
 * behind an infinitely fast link leaves exactly when a token bucket of the
 * same rate and depth, full at the start, lets each packet go: random
 * arrivals and sizes, 20,000 packets a trace, against a bucket kept in
 * continuous tokens.  The clock's rounding (up, under a ns a packet) may
 * only hold a packet back, by at most a ns a packet.
 */
UNIT_TEST(burst_is_a_token_bucket)
{
	unsigned int trace, k;
	fq_u64 worst = 0;

	unit_rnd_state = 0xb0c4e7;
	for (trace = 0; trace < 50; trace++) {
		fq_u64 rate = 12500 + unit_rnd() % 12500000;	/* 100 kbit/s .. 100 Mbit/s */
		fq_u32 burst = 1500 + unit_rnd() % 100000;
		fq_u64 elig = edf_bucket_eligibility(burst, rate);
		fq_u64 d = 0, t = 0, dep = 0, bdep = 0;
		double tokens = burst, tok_t = 0;

		for (k = 0; k < 20000; k++) {
			fq_u32 len = 64 + unit_rnd() % 1437;
			fq_u64 e, bt, diff;

			/* bursts and pauses: mostly back to back, now and then a gap */
			t += unit_rnd() % 8 ? unit_rnd() % 1000 : unit_rnd() % 200000000;
			d = edf_vclock_deadline(d, t, len, rate);
			e = edf_eligible_time(d, elig);
			dep = edf_max(edf_max(t, dep), e);

			/* the bucket: FIFO, each packet when it has len tokens */
			bt = edf_max(t, bdep);
			tokens += (double)(bt - tok_t) * rate / 1e9;
			if (tokens > burst)
				tokens = burst;
			if (tokens < len) {
				bt += (fq_u64)((len - tokens) * 1e9 / rate);
				tokens = len;
			}
			tokens -= len;
			tok_t = bt;
			bdep = bt;

			if (dep + 2 < bdep) {
				UNIT_FAIL("trace %u packet %u: left at %llu, the bucket's %llu",
					  trace, k, (unsigned long long)dep,
					  (unsigned long long)bdep);
				return;
			}
			diff = dep > bdep ? dep - bdep : 0;
			if (diff > worst)
				worst = diff;
			if (diff > k + 2) {
				UNIT_FAIL("trace %u packet %u: %llu ns after the bucket",
					  trace, k, (unsigned long long)diff);
				return;
			}
		}
	}
	printf("# at most %llu ns after the token bucket\n", (unsigned long long)worst);
	/* no burst: eligible at the deadline itself */
	EXPECT_EQ(edf_bucket_eligibility(0, 1000), 0);
	EXPECT_EQ(edf_bucket_eligibility(1000, 1000), EDF_NSEC_PER_SEC);
}

UNIT_TEST(lead_is_capped)
{
	fq_u64 now = 5000000000ULL, d = now;
	int i;

	EXPECT_EQ(edf_cap_lead(now + 10, now), now + 10);
	EXPECT_EQ(edf_cap_lead(now + EDF_MAX_LEAD_NS + 1, now), now + EDF_MAX_LEAD_NS);
	EXPECT_EQ(edf_cap_lead(EDF_TIME_MAX, EDF_TIME_MAX - 1), EDF_TIME_MAX);
	/* 1 kbit/s flow sending 64 KB packets forever stays within the cap */
	for (i = 0; i < 100000; i++)
		d = edf_cap_lead(edf_vclock_deadline(d, now, EDF_LEN_MAX, EDF_RATE_MIN), now);
	EXPECT_EQ(d, now + EDF_MAX_LEAD_NS);
}

/*
 * One best-effort VC as sch_edf runs it, on the core's clock alone: two
 * classes (one clock each, as perflow off), each with a FIFO of
 * deadlines, served earliest first on a link that sends one packet in
 * the time LINK_NS; a class's sender tops its FIFO up to QUEUED packets
 * after each departure, as a saturating socket does.
 */
#define BE_QUEUED	4
#define BE_LEN		1500U
#define BE_LINK_NS	12000ULL	/* 1500 B at 1 Gbit/s */

struct be_class {
	fq_u64 rate, last;
	fq_u32 epoch;
	fq_u64 fifo[BE_QUEUED];
	unsigned int n, sent;
	bool sending;
};

static void be_enqueue(struct edf_be_clock *vc, struct be_class *cl, fq_u64 now)
{
	fq_u64 start = edf_be_start(vc, now);
	fq_u64 prev = edf_be_prev(vc, cl->last, cl->epoch);

	cl->last = edf_cap_lead(edf_vclock_deadline(prev, start, BE_LEN, cl->rate),
				start);
	cl->epoch = vc->epoch;
	if (!cl->n)
		edf_be_wake(vc);
	cl->fifo[cl->n++] = cl->last;
}

/* Send one packet, or none with nothing queued; tops the senders up. */
static bool be_send(struct edf_be_clock *vc, struct be_class *cls, int ncls,
		    fq_u64 *now)
{
	struct be_class *best = NULL;
	fq_u64 d;
	int i;

	for (i = 0; i < ncls; i++)
		while (cls[i].sending && cls[i].n < BE_QUEUED)
			be_enqueue(vc, &cls[i], *now);
	for (i = 0; i < ncls; i++)
		if (cls[i].n && (!best || cls[i].fifo[0] < best->fifo[0]))
			best = &cls[i];
	if (!best)
		return false;
	d = best->fifo[0];
	memmove(best->fifo, best->fifo + 1, --best->n * sizeof(best->fifo[0]));
	if (!best->n)
		edf_be_drain(vc);
	edf_be_depart(vc, d);
	best->sent++;
	*now += BE_LINK_NS;
	return true;
}

/*
 * Rates are weights however far the frontier runs ahead of real time.
 * Classes of 1 and 3 kbit/s on a 1 Gbit/s link: alone, the first runs
 * the frontier 12 s ahead per packet, past EDF_MAX_LEAD_NS (73 min)
 * after 367 packets.  Capped from now, as it was, every deadline was
 * then now + 2^42, the two classes went in turn (50 / 50), and stayed
 * so until the VC had been idle for the lead.
 */
UNIT_TEST(besteffort_rates_stay_weights_past_the_lead_cap)
{
	struct be_class cls[2] = {
		{ .rate = 125, .sending = true },	/* 1 kbit/s */
		{ .rate = 375 },			/* 3 kbit/s */
	};
	struct edf_be_clock vc = { 0 };
	fq_u64 now = 1000000000ULL;
	int i;

	for (i = 0; i < 10000; i++)
		be_send(&vc, cls, 2, &now);
	EXPECT_TRUE(vc.frontier - now > 10 * EDF_MAX_LEAD_NS);
	cls[0].sent = 0;
	cls[1].sending = true;
	for (i = 0; i < 40000; i++)
		be_send(&vc, cls, 2, &now);
	printf("# 1 kbit/s %u, 3 kbit/s %u packets of 40000\n",
	       cls[0].sent, cls[1].sent);
	/* 10000 and 30000, give or take the queues' rounding */
	EXPECT_TRUE(cls[0].sent >= 9990 && cls[0].sent <= 10010);
	EXPECT_EQ(cls[0].sent + cls[1].sent, 40000);
}

/*
 * A VC with no best-effort packet left forgets its frontier and its
 * clocks: the next packet starts from now, whichever class sends it,
 * not from a frontier left hours of virtual time ahead, and the
 * frontier moves again with the next departures.
 */
UNIT_TEST(besteffort_clock_starts_again_when_the_vc_drains)
{
	struct be_class cls[2] = {
		{ .rate = 125, .sending = true },
		{ .rate = 375 },
	};
	struct edf_be_clock vc = { 0 };
	fq_u64 now = 1000000000ULL, lead = edf_tx_time(BE_LEN, 125);
	fq_u32 epoch;
	int i;

	for (i = 0; i < 1000; i++)
		be_send(&vc, cls, 2, &now);
	EXPECT_TRUE(vc.frontier > now + EDF_MAX_LEAD_NS);
	epoch = vc.epoch;
	cls[0].sending = false;
	while (be_send(&vc, cls, 2, &now))
		;
	EXPECT_EQ(vc.backlogged, 0);
	EXPECT_EQ(vc.frontier, 0);
	EXPECT_EQ(vc.epoch - epoch, 1);
	/* the class that ran ahead, and one that never sent: both from now */
	be_enqueue(&vc, &cls[0], now);
	EXPECT_EQ(cls[0].last, now + lead);
	be_enqueue(&vc, &cls[1], now);
	EXPECT_EQ(cls[1].last, now + edf_tx_time(BE_LEN, 375));
	/* the first departure moves the frontier, which the next start reads */
	cls[0].sending = cls[1].sending = true;
	be_send(&vc, cls, 2, &now);
	EXPECT_EQ(vc.frontier, now - BE_LINK_NS + edf_tx_time(BE_LEN, 375));
	/* a drain with nothing backlogged does not wrap the count */
	vc.backlogged = 0;
	edf_be_drain(&vc);
	EXPECT_EQ(vc.backlogged, 0);
}

/*
 * A flow keeps EDF_BE_EPOCH_BITS of its epoch: one idle time, or 2^16 of
 * them (a count that 16 bits, as first kept, read as current: a flow
 * that went idle with its clock hours ahead started from there again),
 * make its last deadline stale; 2^24 read as current (edf_core.h).
 */
UNIT_TEST(besteffort_epochs_of_a_flow)
{
	struct edf_be_clock vc = { .epoch = 7 };
	fq_u64 last = 123456789;
	fq_u32 kept = 7 & EDF_BE_EPOCH_MASK;

	EXPECT_EQ(edf_be_prev(&vc, last, kept), last);
	vc.epoch = 8;
	EXPECT_EQ(edf_be_prev(&vc, last, kept), 0);
	vc.epoch = 7 + (1U << 16);
	EXPECT_EQ(edf_be_prev(&vc, last, kept), 0);
	vc.epoch = 7 + (1U << 20);
	EXPECT_EQ(edf_be_prev(&vc, last, kept), 0);
	vc.epoch = 7 + (1U << EDF_BE_EPOCH_BITS);
	EXPECT_EQ(edf_be_prev(&vc, last, kept), last);
	/* the clock's own count wraps at 2^32, a multiple of 2^24 */
	vc.epoch = 0xffffffffU;
	kept = vc.epoch & EDF_BE_EPOCH_MASK;
	vc.backlogged = 1;
	edf_be_drain(&vc);
	EXPECT_EQ(vc.epoch, 0);
	EXPECT_EQ(edf_be_prev(&vc, last, kept), 0);
}

/* the pacer: on time, each packet its own length after the one before */
UNIT_TEST(pacer_on_time)
{
	/* 1500 bytes at 1 Gbit/s: 12 us */
	EXPECT_EQ(edf_pacer_next(1000000, 1000000, 1500, 125000000), 1012000);
	/* early (a dequeue before it was due cannot send; the clock holds) */
	EXPECT_EQ(edf_pacer_next(2000000, 1000000, 1500, 125000000), 2012000);
	/* late by 4 us: 4 us back; by 100 us: half of the 12 */
	EXPECT_EQ(edf_pacer_next(1000000, 1004000, 1500, 125000000), 1012000);
	EXPECT_EQ(edf_pacer_next(1000000, 1100000, 1500, 125000000), 1106000);
	EXPECT_EQ(edf_pacer_next(EDF_TIME_MAX - 5, 0, 1500, EDF_RATE_MIN), EDF_TIME_MAX);
	EXPECT_EQ(edf_pacer_next(0, EDF_TIME_MAX - 5, 1500, EDF_RATE_MIN), EDF_TIME_MAX);
}

/*
 * A backlogged pacer whose every wakeup comes @late after the packet was
 * due: the time 20000 packets take, against their time at the rate.
 */
static fq_u64 pacer_span(fq_u64 late, fq_u32 len, fq_u64 rate, unsigned int n)
{
	fq_u64 due = 0, sent = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		sent = due + late;
		due = edf_pacer_next(due, sent, len, rate);
	}
	return sent;
}

/*
 * Timers that fire late cost no rate while the lateness is under half a
 * packet's time: the virtual clock, which the pacer was, sent a packet
 * every tx + late (2 ms late at 1.8 ms a packet: about half the rate)
 */
UNIT_TEST(pacer_keeps_its_rate_when_woken_late)
{
	const fq_u64 rate = 6250000;		/* 50 Mbit/s */
	const fq_u32 len = 11536;		/* 1845.76 us */
	const unsigned int n = 20000;
	fq_u64 ideal = (n - 1) * edf_tx_time(len, rate), late;

	for (late = 0; late <= 900000; late += 50000) {
		fq_u64 span = pacer_span(late, len, rate, n);

		/* within one packet's time of the ideal over 20000 */
		EXPECT_TRUE(span >= ideal && span <= ideal + edf_tx_time(len, rate) + late);
	}
	/* later than half a packet's time: tx / 2 + late a packet, no less */
	EXPECT_EQ(pacer_span(3000000, len, rate, 3) - 3000000,
		  2 * (edf_tx_time(len, rate) - edf_tx_time(len, rate) / 2 + 3000000));
}

/*
 * Never faster than the rate, whatever the wakeups: the packets' due
 * times are each at least one packet's time after the one before, and
 * no send is before its due time, over many random latenesses and idle
 * spells.
 */
UNIT_TEST(pacer_never_faster_than_its_rate)
{
	fq_u64 due = 0, now = 0, bytes = 0, rate = 1250000;
	fq_u32 seed = 12345, len = 0;
	unsigned int i, n = 200000;

	for (i = 0; i < n; i++) {
		fq_u64 next;

		seed = seed * 1103515245 + 12345;
		/* a send at or after its due time: late by 0 .. 4 ms, or idle up to 0.1 s */
		now = due + ((seed >> 8) % 8 ? (seed >> 4) % 4000000 : (seed >> 4) % 100000000);
		len = 64 + (seed >> 16) % 9000;
		next = edf_pacer_next(due, now, len, rate);
		EXPECT_TRUE(next >= due + edf_tx_time(len, rate));
		EXPECT_TRUE(next >= now + edf_tx_time(len, rate) / 2);
		if (next < due + edf_tx_time(len, rate))
			break;
		bytes += len;
		due = next;
	}
	/* the bytes sent by the last due time at most that time at the rate */
	EXPECT_TRUE(bytes <= fq_div64(due * rate, EDF_NSEC_PER_SEC) + 1);
}

int main(void)
{
	return unit_run();
}
