// SPDX-License-Identifier: GPL-2.0
/*
 * fbs-boot: the bootstrap synchronisation of FM-QoS (paper: fm-qos-
 * feedback-based-synchronization, section 5.2.1, Fig. 11), between the
 * hosts of a ring, then slot 0 of the host's fbs qdisc begins
 * (Documentation/fbs.rst, "Bootstrap").
 *
 * Every round, each host sends a message to the host on its left, waits
 * for the message of the host on its right, and waits until its own
 * message was received (the paper's "send done", which Myrinet's
 * back-pressure gives and an acknowledgement gives here).  No host can
 * finish a round before its neighbours have begun it, so after the last
 * round all finish within a few message times of each other, and each
 * restarts its qdisc's slot clock at once, through rtnetlink (a tc
 * process would take far longer to start than the skew it would add).
 *
 * "A few message times" grows with the ring: the last round ends host
 * after host around it, and on one CPU (hosts in namespaces of one VM)
 * every message waits for its tool to be scheduled; eight hosts ended
 * 1.5 ms apart, more than a slot, and a slot number that differs
 * between hosts is something feedback cannot mend.  So one host may
 * lead (--leader): when its ring ends it broadcasts a start signal, and
 * the others (--follow) begin slot 0 when it arrived, by the kernel's
 * receive timestamp, however late they run after it.  The signal is
 * sent three times, each copy saying how long after the first it went,
 * so that a follower that missed the first still starts with the rest.
 *
 * The qdisc's schedule pauses while the ring runs ("pause on"), so that
 * its frames do not hold the ring's messages and the signal in the
 * switch; the restart ends the pause.
 *
 * Messages are Ethernet frames of their own type, resent every 10 ms
 * until acknowledged: hosts start the tool at different times, and a
 * message to a host that is not listening yet is lost.  The fbs qdisc
 * sends them at once, outside its schedule, as the paper's NIs run the
 * bootstrap before the schedule, in a fabric header (a fabric control
 * frame the switches forward by route), which the receiving host's
 * fabric_hdr takes off again; the ring's logic is
 * userspace/lib/fbs_ring.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <linux/fabric_hdr.h>
#include <linux/pkt_sched_fbs.h>

#include "cli_util.h"
#include "fbs_ring.h"
#include "nl_ack.h"
#include "nl_tc.h"

#define PROG		"fbs-boot"
#define BOOT_MAGIC	0x46425342u	/* "FBSB" */
#define RESEND_MS	10
#define BOOT_GO		3	/* the start signal; its round: ns after the first copy */
#define GO_COPIES	3

struct boot_msg {
	uint32_t magic;
	uint32_t type;		/* enum fbs_ring_type */
	uint32_t round;
} __attribute__((packed));

/* what a fabric header may carry as a bootstrap message (fabric_hdr.h) */
_Static_assert(sizeof(struct boot_msg) == FABRIC_FBS_BOOT_LEN &&
	       TC_FBS_BOOT_ETHERTYPE == FABRIC_INNER_FBS_BOOT,
	       "fbs-boot's message is the fabric's FBS bootstrap message");

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " --left MAC --rounds N [--leader | --follow [--leader-mac MAC]]\n"
"                [--dev DEV] [--handle MAJ:] [--timeout S] [--no-restart]\n"
"  --left     the Ethernet address of the next host of the ring\n"
"  --rounds   rounds of the ring, at least the number of hosts\n"
"  --leader   when the ring ends, broadcast the start signal; slot 0\n"
"             begins as it goes (one host of the ring)\n"
"  --follow   slot 0 begins when the leader's start signal arrived (every\n"
"             other host); without either, at the ring's end here\n"
"  --leader-mac  with --follow: take the start signal only from this\n"
"             address (any host can send one); a copy claiming to have\n"
"             gone more than 1 s after the first is never taken\n"
"  --dev      the device the ring runs on, whose fbs qdisc begins slot 0\n"
"             at the end (eth0)\n"
"  --handle   that qdisc's handle, root (1:)\n"
"  --timeout  give up after S seconds (60)\n"
"  --no-restart  only the ring (and the signal): the qdisc is left alone\n"
"The qdisc's schedule pauses for the ring (a failed ring resumes it).\n"
"Messages are Ethernet frames of type 0x%04x, which the fbs qdisc sends at\n"
"once, outside its schedule, in a fabric header.  Prints \"synchronised\n"
"after N rounds\", the time the last round took, and with a start signal\n"
"how long before the restart it came, and the copies not taken from other\n"
"addresses or claiming over 1 s.  Exit status: 0 done, 1 timeout or\n"
"a netlink error, 2 usage.\n", TC_FBS_BOOT_ETHERTYPE);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/*
 * A message of ours from the socket, with its sender and the kernel's
 * receive timestamp (CLOCK_REALTIME, SO_TIMESTAMPNS; the time of the read
 * when there is none).  False: nothing, or not one of ours.
 */
static bool recv_msg(int fd, struct boot_msg *m, struct sockaddr_ll *from, uint64_t *rx_real)
{
	char ctrl[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = {
		.msg_name = from, .msg_namelen = sizeof(*from),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl, .msg_controllen = sizeof(ctrl),
	};
	struct cmsghdr *c;
	uint32_t type;

	if (recvmsg(fd, &mh, 0) != sizeof(*m) || ntohl(m->magic) != BOOT_MAGIC ||
	    from->sll_halen != ETH_ALEN)
		return false;
	type = ntohl(m->type);
	if (type != FBS_RING_ROUND && type != FBS_RING_ACK && type != BOOT_GO)
		return false;
	*rx_real = 0;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			*rx_real = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
		}
	}
	if (!*rx_real)
		*rx_real = clock_ns(CLOCK_REALTIME);
	return true;
}

static void send_msg(int fd, int ifindex, const uint8_t *to, uint32_t type, uint32_t round)
{
	struct boot_msg m = { htonl(BOOT_MAGIC), htonl(type), htonl(round) };
	struct sockaddr_ll a = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(TC_FBS_BOOT_ETHERTYPE),
		.sll_ifindex = ifindex,
		.sll_halen = ETH_ALEN,
	};

	memcpy(a.sll_addr, to, ETH_ALEN);
	/* a loss is repaired by the resend */
	sendto(fd, &m, sizeof(m), 0, (const struct sockaddr *)&a, sizeof(a));
}

/* What fbs-boot asks of its qdisc. */
enum qdisc_op {
	QDISC_PAUSE,	/* "pause on": a quiet network for the ring */
	QDISC_RESUME,	/* "pause off": the ring failed, go on as before */
	QDISC_RESTART,	/* "restart [at AT_REAL]": slot 0, which ends the pause */
};
static const char *const qdisc_op_name[] = { "pausing", "resuming", "restarting" };

/*
 * "tc qdisc change dev DEV handle H fbs OP", as one netlink request
 * with its acknowledgement.  0, or -1 with a message.
 */
static int change_qdisc(const char *dev, uint32_t handle, enum qdisc_op op, uint64_t at_real)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], msg[256];
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	unsigned int ifindex = if_nametoindex(dev);
	int err;

	if (!ifindex) {
		fprintf(stderr, PROG ": %s: no such device\n", dev);
		return -1;
	}
	nlh = nl_tc_request(buf, RTM_NEWQDISC, 0, (int)ifindex, handle, TC_H_ROOT);
	nlh->nlmsg_seq = 1;
	mnl_attr_put_strz(nlh, TCA_KIND, "fbs");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	if (op == QDISC_RESTART) {
		mnl_attr_put(nlh, TCA_FBS_RESTART, 0, NULL);
		if (at_real)
			mnl_attr_put_u64(nlh, TCA_FBS_RESTART_REAL_NS, at_real);
	} else {
		mnl_attr_put_u8(nlh, TCA_FBS_PAUSE, op == QDISC_PAUSE);
	}
	mnl_attr_nest_end(nlh, opts);
	err = nl_route_ask(nlh, msg, sizeof(msg));
	if (err < 0) {
		fprintf(stderr, PROG ": %s the fbs qdisc of %s: no answer from netlink (%s)\n",
			qdisc_op_name[op], dev, strerror(errno));
		return -1;
	}
	if (err) {
		/* the kernel's reason (extack), e.g. a start signal too old */
		fprintf(stderr, PROG ": %s the fbs qdisc of %s: %s%s%s\n", qdisc_op_name[op],
			dev, strerror(err), msg[0] ? ": " : "", msg);
		return -1;
	}
	return 0;
}

/* SIGINT, SIGTERM: the ring stops, the qdisc's pause ends */
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* The start signal's state: a leader's copies to send, a follower's arrival. */
struct start_signal {
	bool leader, follow;
	bool have;		/* leader: the first copy went; follower: one came */
	uint64_t at_real;	/* when the first copy went (CLOCK_REALTIME) */
	unsigned int sent;	/* leader: copies sent */
	struct fbs_go_rule rule;	/* follower: which copies count */
	unsigned int strangers;	/* follower: copies from other addresses */
	unsigned int too_late;	/* ... claiming over FBS_GO_AFTER_MAX_NS */
};

static void send_go(int fd, int ifindex, struct start_signal *g)
{
	static const uint8_t all[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint64_t t = clock_ns(CLOCK_REALTIME);

	if (!g->sent)
		g->at_real = t;
	g->have = true;
	send_msg(fd, ifindex, all, BOOT_GO, (uint32_t)(t - g->at_real));
	g->sent++;
}

/*
 * A message that came outside the ring's logic: the right resending its
 * last round (our ack was lost: answer it), or the start signal, which
 * counts once our ring is in its last round (an earlier one is another
 * boot's), from the leader (fbs_go_check).
 */
static void serve(int fd, const struct boot_msg *m, const struct sockaddr_ll *from,
		  uint64_t rx_real, const struct fbs_ring *ring, struct start_signal *g)
{
	if (ntohl(m->type) == BOOT_GO) {
		if (!g->follow || g->have)
			return;
		switch (fbs_go_check(ring, &g->rule, from->sll_addr, ntohl(m->round))) {
		case FBS_GO_TAKE:
			g->at_real = rx_real - ntohl(m->round);
			g->have = true;
			break;
		case FBS_GO_STRANGER:
			g->strangers++;
			break;
		case FBS_GO_TOO_LATE:
			g->too_late++;
			break;
		case FBS_GO_EARLY:
			break;
		}
		return;
	}
	if (fbs_ring_done(ring) && ntohl(m->type) == FBS_RING_ROUND)
		send_msg(fd, from->sll_ifindex, from->sll_addr, FBS_RING_ACK, ntohl(m->round));
}

/*
 * For @ns: answer what comes (serve) and send the leader's copies of the
 * start signal as they fall due; with @until_sent, only until the last
 * copy went.
 */
static void linger(int fd, int ifindex, const struct fbs_ring *ring, struct start_signal *g,
		   uint64_t ns, bool until_sent)
{
	uint64_t end = now_ns() + ns, rx_real;

	while (now_ns() < end && !(until_sent && g->sent >= GO_COPIES)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		struct boot_msg m;

		if (g->leader && g->sent < GO_COPIES &&
		    clock_ns(CLOCK_REALTIME) >= g->at_real + g->sent * RESEND_MS * 1000000ULL)
			send_go(fd, ifindex, g);
		if (poll(&pfd, 1, 1) > 0 && recv_msg(fd, &m, &from, &rx_real))
			serve(fd, &m, &from, rx_real, ring, g);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "left", required_argument, NULL, 'l' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "leader", no_argument, NULL, 'L' },
		{ "follow", no_argument, NULL, 'F' },
		{ "leader-mac", required_argument, NULL, 'M' },
		{ "dev", required_argument, NULL, 'd' },
		{ "handle", required_argument, NULL, 'H' },
		{ "timeout", required_argument, NULL, 't' },
		{ "no-restart", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t rounds = 0, timeout = 60, major = 1, deadline, next_send = 0;
	uint64_t last_round_ns = 0, round_start, t, rx_real, lag = 0;
	const char *dev = "eth0";
	bool have_left = false, restart = true;
	struct sockaddr_ll me = { .sll_family = AF_PACKET };
	struct start_signal go = { 0 };
	uint8_t left[ETH_ALEN];
	struct fbs_ring ring;
	uint32_t round, last;
	int c, fd, ifindex, one = 1;
	uint32_t handle;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (!parse_unicast_mac(optarg, left)) {
				fprintf(stderr, PROG ": --left: \"%s\": want a unicast MAC\n", optarg);
				return 2;
			}
			have_left = true;
			break;
		case 'r':
			if (!parse_u64(optarg, 10, 100000, &rounds) || !rounds) {
				fprintf(stderr, PROG ": --rounds: \"%s\": want 1 to 100000\n", optarg);
				return 2;
			}
			break;
		case 'L': go.leader = true; break;
		case 'F': go.follow = true; break;
		case 'M':
			if (!parse_unicast_mac(optarg, go.rule.leader)) {
				fprintf(stderr, PROG ": --leader-mac: \"%s\": want a unicast MAC\n",
					optarg);
				return 2;
			}
			go.rule.have_leader = true;
			break;
		case 'd': dev = optarg; break;
		case 'H': {
			size_t n = strlen(optarg);
			char maj[16];

			if (n < 2 || n > sizeof(maj) || optarg[n - 1] != ':') {
				fprintf(stderr, PROG ": --handle: \"%s\": want MAJ: (hex)\n", optarg);
				return 2;
			}
			memcpy(maj, optarg, n - 1);
			maj[n - 1] = '\0';
			if (!parse_u64(maj, 16, 0xffff, &major) || !major) {
				fprintf(stderr, PROG ": --handle: \"%s\": want MAJ: (hex, 1 to ffff)\n", optarg);
				return 2;
			}
			break;
		}
		case 't':
			if (!parse_u64(optarg, 10, 86400, &timeout) || !timeout) {
				fprintf(stderr, PROG ": --timeout: \"%s\": want 1 to 86400 s\n", optarg);
				return 2;
			}
			break;
		case 'n': restart = false; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || !have_left || !rounds) {
		usage(stderr);
		return 2;
	}
	if (go.leader && go.follow) {
		fprintf(stderr, PROG ": --leader and --follow: a host is one or the other\n");
		return 2;
	}
	if (go.rule.have_leader && !go.follow) {
		fprintf(stderr, PROG ": --leader-mac: only with --follow\n");
		return 2;
	}
	handle = (uint32_t)major << 16;
	ifindex = (int)if_nametoindex(dev);
	if (!ifindex) {
		fprintf(stderr, PROG ": %s: no such device\n", dev);
		return 2;
	}
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(TC_FBS_BOOT_ETHERTYPE));
	me.sll_protocol = htons(TC_FBS_BOOT_ETHERTYPE);
	me.sll_ifindex = ifindex;
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0) {
		perror(PROG ": packet socket");
		return 1;
	}
	/*
	 * The schedule's frames would hold the ring's messages and the
	 * start signal in the switch, each for part of a slot and none as
	 * long as another: hosts would begin slot 0 up to a slot apart.  So
	 * the ring runs on a quiet network, as the paper's bootstrap runs
	 * before its schedule; the restart ends the pause, and a ring that
	 * fails or is stopped gives it back.
	 */
	if (restart) {
		struct sigaction sa = { .sa_handler = on_stop };

		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		if (change_qdisc(dev, handle, QDISC_PAUSE, 0))
			return 1;
	}
	fbs_ring_init(&ring, (uint32_t)rounds);
	deadline = now_ns() + timeout * 1000000000ULL;
	round_start = now_ns();
	while (!fbs_ring_done(&ring)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		struct boot_msg m;
		uint32_t ack;

		t = now_ns();
		if (stop) {
			fprintf(stderr, PROG ": stopped in round %u of %" PRIu64 "\n", ring.round, rounds);
			goto fail;
		}
		if (t >= deadline) {
			fprintf(stderr, PROG ": timeout in round %u of %" PRIu64 "%s%s\n", ring.round,
				rounds, ring.acked ? "" : " (the left has not acknowledged)",
				ring.right_seen > ring.round ? "" : " (nothing heard from the right)");
			goto fail;
		}
		if (fbs_ring_to_send(&ring, &round) && t >= next_send) {
			send_msg(fd, ifindex, left, FBS_RING_ROUND, round);
			next_send = t + RESEND_MS * 1000000ULL;
		}
		if (poll(&pfd, 1, RESEND_MS) <= 0 || !recv_msg(fd, &m, &from, &rx_real))
			continue;
		if (ntohl(m.type) == BOOT_GO) {
			serve(fd, &m, &from, rx_real, &ring, &go);
			continue;
		}
		last = ring.round;
		if (fbs_ring_receive(&ring, ntohl(m.type), ntohl(m.round), &ack))
			send_msg(fd, ifindex, from.sll_addr, FBS_RING_ACK, ack);
		if (ring.round != last) {
			t = now_ns();
			last_round_ns = t - round_start;
			round_start = t;
			next_send = 0;		/* the next round's message at once */
		}
	}
	/*
	 * Every copy of the signal before the restart: each says how long
	 * after the first it went, and a restart that took longer than a
	 * follower believes (FBS_GO_AFTER_MAX_NS) would make the later
	 * copies worthless.  The leader's slot 0 begins at the first copy
	 * all the same (restart at).
	 */
	if (go.leader) {
		send_go(fd, ifindex, &go);
		linger(fd, ifindex, &ring, &go, 1000000000ULL, true);
	}
	/* a follower waits for the signal, answering the right meanwhile */
	while (go.follow && !go.have) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		struct boot_msg m;

		if (stop) {
			fprintf(stderr, PROG ": stopped waiting for the start signal\n");
			goto fail;
		}
		if (now_ns() >= deadline) {
			fprintf(stderr, PROG ": timeout: the ring ended, no start signal came\n");
			goto fail;
		}
		if (poll(&pfd, 1, RESEND_MS) > 0 && recv_msg(fd, &m, &from, &rx_real))
			serve(fd, &m, &from, rx_real, &ring, &go);
	}
	if (go.have) {
		t = clock_ns(CLOCK_REALTIME);
		lag = t > go.at_real ? t - go.at_real : 0;
	}
	if (restart && change_qdisc(dev, handle, QDISC_RESTART, go.have ? go.at_real : 0))
		goto fail;
	printf("synchronised after %u rounds, the last took %.1f us", ring.round,
	       last_round_ns / 1e3);
	if (go.have)
		printf("; slot 0 began at the start signal, %.1f us before the restart",
		       lag / 1e3);
	if (go.strangers || go.too_late)
		printf("; start signals not taken: %u from other addresses, %u claiming over 1 s",
		       go.strangers, go.too_late);
	printf("\n");
	fflush(stdout);
	/* the right may resend its last message if our ack was lost: answer a while */
	linger(fd, ifindex, &ring, &go, 200000000ULL, false);
	close(fd);
	return 0;
fail:
	if (restart)
		change_qdisc(dev, handle, QDISC_RESUME, 0);
	return 1;
}
