// SPDX-License-Identifier: GPL-2.0
/*
 * tc-fuzz: random configuration sequences for our qdiscs, seeded and
 * reproducible, for selftests/vm/tc_fuzz.sh.
 *
 *   tc-fuzz batch DEV SEED N   print N tc commands (for "tc -s -force -batch -"):
 *                              root qdiscs of edf, aoq or dtable added,
 *                              replaced, changed and deleted with random
 *                              but well-formed options; classes added,
 *                              changed and deleted; children (pfifo, tbf,
 *                              netem, codel, fq_codel, sfq, drr, hfsc,
 *                              qfq, and our own) grafted and removed.
 *                              Many are refused, as they should be.
 *   tc-fuzz raw DEV SEED N     send N rtnetlink requests that tc would never
 *                              build: our kinds with random attributes of
 *                              every type up to past the last one, of
 *                              wrong and right lengths, boundary values,
 *                              nested garbage; class and qdisc deletes and
 *                              dumps in between.  Prints how many the
 *                              kernel accepted and refused.
 *
 * The kernel must refuse what is malformed with an error (never crash,
 * warn or leak), and the qdisc must stay consistent: tc_fuzz.sh checks
 * that the idle tree reports qlen 0 and backlog 0 after each sequence.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "linux/pkt_sched_aoq.h"
#include "linux/pkt_sched_dtable.h"
#include "linux/pkt_sched_edf.h"
#include "nl_tc.h"

#define PROG "tc-fuzz"
#define ROOT_MAJOR	1
#define NCLASSES	10	/* class minors 1..NCLASSES get most of the ops */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned int below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static int chance(unsigned int pct)
{
	return below(100) < pct;
}

#define PICK(arr) ((arr)[below(sizeof(arr) / sizeof((arr)[0]))])

/* ---- batch: well-formed tc commands ------------------------------------------ */

static const char *const kinds[] = { "edf", "aoq", "dtable" };

static const char *any_time(void)
{
	static const char *const t[] = {
		"1us", "20us", "100us", "1ms", "5ms", "50ms", "1s", "2s", "10s",
	};
	return PICK(t);
}

static const char *any_rate(void)
{
	static const char *const r[] = {
		"8bit", "100kbit", "1mbit", "5mbit", "20mbit", "100mbit", "1gbit",
	};
	return PICK(r);
}

static void qdisc_options(const char *kind)
{
	int i, n;

	if (!strcmp(kind, "edf")) {
		if (chance(30)) printf(" rate %s", any_rate());
		if (chance(30)) printf(" eligibility %s", any_time());
		if (chance(30)) printf(" limit %u", 1 + below(2000));
		if (chance(30)) printf(" flow_limit %u", 1 + below(200));
		if (chance(30)) printf(" flows %u", 1 + below(5000));
		if (chance(30)) printf(" ttd %s", chance(50) ? "on" : "off");
		if (chance(20)) printf(" horizon %s", any_time());
		if (chance(50)) printf(" default %u", below(NCLASSES + 2));
		if (chance(20)) {
			printf(" priomap");
			for (i = 0; i < 16; i++)
				printf(" %u", below(NCLASSES + 1));
		}
	} else if (!strcmp(kind, "aoq")) {
		static const char *const modes[] = { "aoq", "fbrr", "arr", "pbrr" };

		if (chance(60)) printf(" mode %s", PICK(modes));
		if (chance(40)) printf(" stall %s", any_time());
		if (chance(60)) printf(" default %u", below(NCLASSES + 2));
		if (chance(30)) printf(" segment %s", chance(50) ? "on" : "off");
	} else {
		static const char *const modes[] = { "dtable", "sbt", "rr" };
		int classes = 1 + (int)below(NCLASSES);

		printf(" classes %d", classes);
		if (chance(60)) printf(" mode %s", PICK(modes));
		if (chance(40)) printf(" credit %u", 1 + below(128));
		if (chance(30)) printf(" mtu %u", 64 + below(9000));
		if (chance(60)) {
			printf(" table");
			n = 1 + (int)below(32);
			for (i = 0; i < n; i++)
				printf(" %d:%u", (int)below((unsigned int)classes + 1),
				       1 + below(20000));
		}
		if (chance(20)) {
			printf(" priomap");
			for (i = 0; i < 16; i++)
				printf(" %d", (int)below((unsigned int)classes));
		}
	}
}

static void class_options(const char *kind)
{
	if (!strcmp(kind, "edf")) {
		switch (below(4)) {
		case 0: printf(" rate %s", any_rate()); break;
		case 1: printf(" control"); break;
		case 2: printf(" frame %s", any_time()); break;
		default: printf(" txtime"); break;
		}
		if (chance(40)) printf(" %s", chance(50) ? "besteffort" : "regulated");
		if (chance(30)) printf(" %s", chance(50) ? "smooth" : "nosmooth");
		if (chance(30)) printf(" perflow %s", chance(50) ? "on" : "off");
	} else if (!strcmp(kind, "aoq")) {
		if (chance(70)) printf(" weight %u", 1 + below(300));
	}
	/* dtable classes take no options: the command is refused */
}

static void child_qdisc(void)
{
	switch (below(12)) {
	case 0: printf("pfifo limit %u", 1 + below(10)); break;
	case 1: printf("bfifo limit %u", 100 + below(20000)); break;
	case 2: printf("tbf rate %s burst %uk latency %s", any_rate(), 2 + below(30), any_time()); break;
	case 3: printf("netem delay %ums limit %u%s", below(20), 1 + below(100),
		       chance(30) ? " loss 10%" : ""); break;
	case 4: printf("codel limit %u", 1 + below(100)); break;
	case 5: printf("fq_codel limit %u", 1 + below(200)); break;
	case 6: printf("sfq limit %u", 2 + below(100)); break;
	case 7: printf("drr"); break;
	case 8: printf("hfsc default 1"); break;
	case 9: printf("qfq"); break;
	default:
		printf("%s", PICK(kinds));
		break;
	}
}

static void batch(const char *dev, unsigned long n)
{
	const char *kind = PICK(kinds);
	unsigned long i;
	unsigned int minor;

	for (i = 0; i < n; i++) {
		minor = chance(95) ? 1 + below(NCLASSES) : below(0x10000);
		switch (below(20)) {
		case 0: case 1:		/* a new root of any kind */
			kind = PICK(kinds);
			printf("qdisc replace dev %s root handle %x: %s", dev, ROOT_MAJOR, kind);
			qdisc_options(kind);
			break;
		case 2: case 3: case 4:	/* options of the root changed */
			printf("qdisc change dev %s root handle %x: %s", dev, ROOT_MAJOR,
			       chance(90) ? kind : PICK(kinds));
			qdisc_options(kind);
			break;
		case 5:
			printf("qdisc del dev %s root", dev);
			break;
		case 6: case 7: case 8: case 9:
			printf("class %s dev %s parent %x: classid %x:%x %s",
			       chance(50) ? "replace" : chance(50) ? "add" : "change",
			       dev, ROOT_MAJOR, ROOT_MAJOR, minor, kind);
			class_options(kind);
			break;
		case 10: case 11:
			printf("class del dev %s classid %x:%x", dev, ROOT_MAJOR, minor);
			break;
		case 12: case 13: case 14: case 15:
			printf("qdisc replace dev %s parent %x:%x handle %x: ", dev,
			       ROOT_MAJOR, minor, 0x100 + minor);
			child_qdisc();
			break;
		case 16: case 17:
			printf("qdisc del dev %s parent %x:%x", dev, ROOT_MAJOR, minor);
			break;
		default:	/* run with tc -s: statistics dumped under traffic */
			printf("%s show dev %s", chance(50) ? "qdisc" : "class", dev);
			break;
		}
		printf("\n");
	}
}

/* ---- raw: requests tc would not build ------------------------------------------- */

struct raw_stats {
	unsigned long sent, accepted, refused, dumps;
};

static struct mnl_socket *nl;
static unsigned int seq;

/* Send one request; 0 when the kernel accepted it, else -errno. */
static int raw_request(struct nlmsghdr *nlh)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int ret;

	nlh->nlmsg_seq = ++seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ret = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret < 0)
			return -errno;
		ret = mnl_cb_run(buf, (size_t)ret, seq, mnl_socket_get_portid(nl),
				 NULL, NULL);
		if (ret <= MNL_CB_STOP)
			return ret < 0 ? -errno : 0;
	}
}

/* A value at a boundary for a field of @len bytes, or random bytes. */
static void fill_value(unsigned char *p, unsigned int len)
{
	static const uint64_t edges[] = {
		0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff,
		0x80000000, 0xffffffff, 0x100000000ULL, 1000000000ULL,
		0x7fffffffffffffffULL, 0xffffffffffffffffULL,
	};
	uint64_t v;
	unsigned int i;

	if ((len == 1 || len == 2 || len == 4 || len == 8) && chance(70)) {
		v = PICK(edges);
		memcpy(p, &v, len);	/* little-endian: the low bytes */
		return;
	}
	for (i = 0; i < len; i++)
		p[i] = (unsigned char)rnd();
}

/* Random attributes of types 0 .. max + 2 into the open nest. */
static void random_attrs(struct nlmsghdr *nlh, unsigned int max, int depth)
{
	static const unsigned int lens[] = { 0, 1, 2, 3, 4, 8, 16, 32, 33, 64, 200 };
	unsigned char val[512];
	unsigned int i, n = below(7), type, len;
	struct nlattr *nest;

	for (i = 0; i < n; i++) {
		type = below(max + 3);
		if (depth < 2 && chance(10)) {
			nest = mnl_attr_nest_start(nlh, (uint16_t)type);
			random_attrs(nlh, max, depth + 1);
			mnl_attr_nest_end(nlh, nest);
			continue;
		}
		len = chance(80) ? PICK(lens) : below(sizeof(val));
		fill_value(val, len);
		mnl_attr_put(nlh, (uint16_t)type, len, val);
	}
}

static void count(struct raw_stats *st, int ret)
{
	st->sent++;
	if (ret == 0)
		st->accepted++;
	else
		st->refused++;
}

static void raw_dump(int ifindex, uint16_t type, struct raw_stats *st)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nl_tc_request(buf, type, NLM_F_DUMP, ifindex, 0, 0);
	int ret;

	nlh->nlmsg_flags &= (uint16_t)~NLM_F_ACK;
	nlh->nlmsg_seq = ++seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return;
	do {
		ret = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret <= 0)
			break;
		ret = mnl_cb_run(buf, (size_t)ret, seq, mnl_socket_get_portid(nl),
				 NULL, NULL);
	} while (ret > MNL_CB_STOP);
	st->dumps++;
}

static void raw(const char *dev, unsigned long n)
{
	static const struct { const char *kind; unsigned int qmax, cmax; } k[] = {
		{ "edf", TCA_EDF_MAX, TCA_EDF_CLASS_MAX },
		{ "aoq", TCA_AOQ_MAX, TCA_AOQ_CLASS_MAX },
		{ "dtable", TCA_DTABLE_MAX, TCA_DTABLE_CLASS_MAX },
	};
	static const uint16_t create_flags[] = {
		NLM_F_CREATE, NLM_F_CREATE | NLM_F_REPLACE, NLM_F_CREATE | NLM_F_EXCL, 0,
		NLM_F_REPLACE,
	};
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct raw_stats st = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	unsigned long i;
	unsigned int kidx = below(3), minor;
	int ifindex = (int)if_nametoindex(dev);

	if (!ifindex) {
		fprintf(stderr, PROG ": %s: no such device\n", dev);
		exit(1);
	}
	for (i = 0; i < n; i++) {
		minor = chance(95) ? 1 + below(NCLASSES) : below(0x10000);
		switch (below(10)) {
		case 0: case 1: case 2:		/* the root, our kind, random options */
			if (chance(30))
				kidx = below(3);
			nlh = nl_tc_request(buf, RTM_NEWQDISC, PICK(create_flags), ifindex,
					    TC_H_MAKE(ROOT_MAJOR << 16, 0), TC_H_ROOT);
			mnl_attr_put_strz(nlh, TCA_KIND, k[kidx].kind);
			if (chance(90)) {
				opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
				random_attrs(nlh, k[kidx].qmax, 0);
				mnl_attr_nest_end(nlh, opts);
			}
			count(&st, raw_request(nlh));
			break;
		case 3: case 4: case 5:		/* a class, random options */
			nlh = nl_tc_request(buf, RTM_NEWTCLASS, PICK(create_flags), ifindex,
					    TC_H_MAKE(ROOT_MAJOR << 16, minor),
					    TC_H_MAKE(ROOT_MAJOR << 16, 0));
			mnl_attr_put_strz(nlh, TCA_KIND, k[kidx].kind);
			if (chance(90)) {
				opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
				random_attrs(nlh, k[kidx].cmax, 0);
				mnl_attr_nest_end(nlh, opts);
			}
			count(&st, raw_request(nlh));
			break;
		case 6:
			nlh = nl_tc_request(buf, RTM_DELTCLASS, 0, ifindex,
					    TC_H_MAKE(ROOT_MAJOR << 16, minor), 0);
			count(&st, raw_request(nlh));
			break;
		case 7:
			if (chance(20)) {
				nlh = nl_tc_request(buf, RTM_DELQDISC, 0, ifindex, 0, TC_H_ROOT);
				count(&st, raw_request(nlh));
			}
			break;
		default:
			raw_dump(ifindex, chance(50) ? RTM_GETQDISC : RTM_GETTCLASS, &st);
			break;
		}
	}
	printf("raw sent=%lu accepted=%lu refused=%lu dumps=%lu\n",
	       st.sent, st.accepted, st.refused, st.dumps);
}

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc != 5 || (strcmp(argv[1], "batch") && strcmp(argv[1], "raw"))) {
		fprintf(stderr, "Usage: " PROG " { batch | raw } DEV SEED COUNT\n");
		return 1;
	}
	rng_state = strtoull(argv[3], NULL, 0) * 0x9e3779b97f4a7c15ULL + 1;
	n = strtoul(argv[4], NULL, 0);
	if (!strcmp(argv[1], "batch")) {
		batch(argv[2], n);
		return 0;
	}
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror(PROG ": netlink");
		return 1;
	}
	raw(argv[2], n);
	mnl_socket_close(nl);
	return 0;
}
