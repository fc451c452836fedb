// SPDX-License-Identifier: GPL-2.0
/*
 * credits-race: turn "credits on" and off on a root qdisc many times a
 * second while GSO packets come in, for selftests/vm/credits_on_race.sh.
 *
 *   credits-race DEV KIND TURNS SECONDS FRAME_MAX
 *
 * KIND is edf, dtable or aoq, the root qdisc of DEV (handle 1:).  A turn
 * waits (up to a second) for the qdisc to be empty, asks for credits on,
 * and when that was accepted reads the queue: with credits on and no
 * peer granting nothing leaves, and packets are cut at enqueue to at
 * most FRAME_MAX bytes, so a backlog above FRAME_MAX bytes a packet
 * (once the queue has settled) is a whole GSO packet that got in.  Then
 * credits off.  At most TURNS turns, stopping after SECONDS.
 *
 * The race it looks for needs a GSO packet to come in within the few
 * microseconds between the qdisc's check of its queue and its taking up
 * the link, so it needs turns by the thousand; each turn here is a few
 * netlink requests on one socket, where tc costs a process start (a
 * tenth of a second and more under TCG) per request.
 *
 * Prints "whole TURN QLEN BACKLOG" for each turn that let a whole packet
 * in, then "turns T accepted A busy B refused R whole W held_whole H ms
 * MS" (H: turns that saw a whole packet wait while credits were off,
 * the premise that the qdisc keeps them whole), and the last refusal's
 * extack message as "refusal: MSG".  Exit 0 when it ran,
 * 1 when credits off or a queue read failed or credits on failed for
 * another reason than a queue that was not empty, 2 on bad usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "linux/pkt_sched_aoq.h"
#include "linux/pkt_sched_dtable.h"
#include "linux/pkt_sched_edf.h"
#include "nl_ack.h"
#include "nl_tc.h"

#define PROG "credits-race"
#define ROOT_HANDLE	0x10000U	/* 1: */
#define RACE_BUF	16384		/* a qdisc's dump with its statistics fits */

struct race {
	struct mnl_socket *nl;
	const char *kind;
	int credits_attr;
	int ifindex;
	unsigned int seq;
	char buf[RACE_BUF];
	char msg[256];		/* the last ack's extack message */
	unsigned int frame_max;
	unsigned long held_whole;	/* turns that saw a whole packet wait, credits off */
};

struct queue {
	unsigned int qlen;
	unsigned int backlog;
};

static void usage(void)
{
	fprintf(stderr, "Usage: " PROG " DEV edf|dtable|aoq TURNS SECONDS FRAME_MAX\n");
	exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int credits_attr_of(const char *kind)
{
	if (!strcmp(kind, "edf"))
		return TCA_EDF_CREDITS;
	if (!strcmp(kind, "dtable"))
		return TCA_DTABLE_CREDITS;
	if (!strcmp(kind, "aoq"))
		return TCA_AOQ_CREDITS;
	return -1;
}

/* The kernel's answer to request @nlh: the next message of its sequence. */
static const struct nlmsghdr *race_ask(struct race *r, struct nlmsghdr *nlh)
{
	const struct nlmsghdr *reply;
	ssize_t n;

	nlh->nlmsg_seq = ++r->seq;
	if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
		return NULL;
	for (;;) {
		n = mnl_socket_recvfrom(r->nl, r->buf, sizeof(r->buf));
		if (n < 0)
			return NULL;
		reply = (const struct nlmsghdr *)r->buf;
		if (!mnl_nlmsg_ok(reply, (int)n)) {
			errno = EBADMSG;
			return NULL;
		}
		/* an answer to an earlier request that was not waited for */
		if (reply->nlmsg_seq == r->seq)
			return reply;
	}
}

/* Credits on or off: 0, or the errno the kernel refused it with. */
static int race_credits(struct race *r, int on)
{
	char req[RACE_BUF];
	const struct nlmsghdr *ack;
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	int err;

	nlh = nl_tc_request(req, RTM_NEWQDISC, 0, r->ifindex, ROOT_HANDLE, TC_H_ROOT);
	mnl_attr_put_strz(nlh, TCA_KIND, r->kind);
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	opts->nla_type |= NLA_F_NESTED;		/* as tc sends it */
	mnl_attr_put_u8(nlh, (uint16_t)r->credits_attr, (uint8_t)on);
	mnl_attr_nest_end(nlh, opts);
	ack = race_ask(r, nlh);
	if (!ack || ack->nlmsg_type != NLMSG_ERROR)
		return EBADMSG;
	err = nl_ack_error(ack, r->msg, sizeof(r->msg));
	return err < 0 ? EBADMSG : err;
}

static int queue_attr_cb(const struct nlattr *attr, void *data)
{
	const struct gnet_stats_queue *s;
	struct queue *q = data;

	if (mnl_attr_get_type(attr) != TCA_STATS_QUEUE ||
	    mnl_attr_get_payload_len(attr) < sizeof(*s))
		return MNL_CB_OK;
	s = mnl_attr_get_payload(attr);
	q->qlen = s->qlen;
	q->backlog = s->backlog;
	return MNL_CB_STOP;
}

/* The root qdisc's queue length and backlog, as tc -s shows them: 0 or -1. */
static int race_queue(struct race *r, struct queue *q)
{
	char req[RACE_BUF];
	const struct nlmsghdr *reply;
	const struct nlattr *attr;
	struct nlmsghdr *nlh;

	/* the kernel sends a qdisc it was asked for only when told to echo */
	nlh = nl_tc_request(req, RTM_GETQDISC, NLM_F_ECHO, r->ifindex, ROOT_HANDLE,
			    TC_H_ROOT);
	nlh->nlmsg_flags &= (uint16_t)~NLM_F_ACK;	/* the answer is the qdisc */
	reply = race_ask(r, nlh);
	if (!reply || reply->nlmsg_type != RTM_NEWQDISC)
		return -1;
	q->qlen = ~0U;
	mnl_attr_for_each(attr, reply, sizeof(struct tcmsg)) {
		if (mnl_attr_get_type(attr) == TCA_STATS2) {
			mnl_attr_parse_nested(attr, queue_attr_cb, q);
			break;
		}
	}
	return q->qlen == ~0U ? -1 : 0;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * The queue once two reads 50 ms apart agree: a read takes the length
 * and the backlog at different moments, so only a queue that has
 * stopped changing gives a consistent pair (with credits on and no peer
 * it fills until the socket's buffer or the qdisc's limit stops it).
 * The last read after 4 s without.
 */
static int race_queue_settled(struct race *r, struct queue *q)
{
	struct queue b;
	int i;

	if (race_queue(r, q))
		return -1;
	for (i = 0; i < 80; i++) {
		sleep_us(50000);
		if (race_queue(r, &b))
			return -1;
		if (b.qlen == q->qlen && b.backlog == q->backlog)
			return 0;
		*q = b;
	}
	return 0;
}

static bool holds_whole(const struct race *r, const struct queue *q)
{
	return q->backlog > (unsigned long long)r->frame_max * q->qlen;
}

/*
 * Whether the queue emptied within a second: 1, 0, or -1 on a failed
 * read.  A turn that saw a whole packet wait meanwhile (credits are off
 * here) is counted: the qdisc keeps GSO packets whole without credits,
 * which the race needs.  Only by two reads in a row that agree: one read
 * may take the length before a segment came and the backlog after it.
 */
static int race_wait_empty(struct race *r)
{
	struct queue q, prev = { ~0U, ~0U };
	double until = now_s() + 1.0;
	bool whole = false;

	do {
		if (race_queue(r, &q))
			return -1;
		whole |= holds_whole(r, &q) && q.qlen == prev.qlen &&
			 q.backlog == prev.backlog;
		if (!q.qlen && !q.backlog)
			break;
		prev = q;
		sleep_us(200);
	} while (now_s() < until);
	r->held_whole += whole;
	return !q.qlen && !q.backlog;
}

int main(int argc, char **argv)
{
	unsigned long turns, accepted = 0, busy = 0, refused = 0, whole = 0, i;
	double start, budget;
	char refusal[256] = "";
	struct race *r;
	struct queue q;
	struct timeval answer_wait = { 5, 0 };
	int one = 1, err;

	if (argc != 6)
		usage();
	r = calloc(1, sizeof(*r));
	if (!r)
		return 2;
	r->kind = argv[2];
	r->credits_attr = credits_attr_of(r->kind);
	turns = strtoul(argv[3], NULL, 10);
	budget = strtod(argv[4], NULL);
	r->frame_max = (unsigned int)strtoul(argv[5], NULL, 10);
	if (r->credits_attr < 0 || !turns || budget <= 0 || !r->frame_max)
		usage();
	r->ifindex = (int)if_nametoindex(argv[1]);
	if (!r->ifindex) {
		fprintf(stderr, PROG ": no device %s\n", argv[1]);
		return 2;
	}
	r->nl = mnl_socket_open(NETLINK_ROUTE);
	if (!r->nl || mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror(PROG ": netlink");
		return 2;
	}
	mnl_socket_setsockopt(r->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	/* an answer that never comes is a failure, not a test's timeout */
	setsockopt(mnl_socket_get_fd(r->nl), SOL_SOCKET, SO_RCVTIMEO, &answer_wait,
		   sizeof(answer_wait));

	start = now_s();
	for (i = 0; i < turns && now_s() - start < budget; i++) {
		/* from an empty queue, so that the turn is not refused outright */
		err = race_wait_empty(r);
		if (err < 0)
			goto read_failed;
		if (!err) {
			busy++;
			continue;
		}
		err = race_credits(r, 1);
		if (err == EBUSY) {
			refused++;
			snprintf(refusal, sizeof(refusal), "%s", r->msg);
			continue;
		}
		if (err) {
			fprintf(stderr, PROG ": turn %lu: credits on: %s: %s\n", i,
				strerror(err), r->msg);
			return 1;
		}
		accepted++;
		/*
		 * A read that shows no whole packet is right: the backlog is
		 * read after the length, and a packet in stays in.
		 */
		if (race_queue(r, &q))
			goto read_failed;
		if (holds_whole(r, &q) && race_queue_settled(r, &q))
			goto read_failed;
		if (holds_whole(r, &q)) {
			whole++;
			printf("whole %lu %u %u\n", i, q.qlen, q.backlog);
		}
		err = race_credits(r, 0);
		if (err) {
			fprintf(stderr, PROG ": turn %lu: credits off: %s: %s\n", i,
				strerror(err), r->msg);
			return 1;
		}
	}
	printf("turns %lu accepted %lu busy %lu refused %lu whole %lu held_whole %lu ms %.0f\n",
	       i, accepted, busy, refused, whole, r->held_whole, (now_s() - start) * 1000);
	if (refusal[0])
		printf("refusal: %s\n", refusal);
	return 0;

read_failed:
	fprintf(stderr, PROG ": turn %lu: no queue length and backlog of %s: %s\n",
		i, r->kind, strerror(errno));
	return 1;
}
