// SPDX-License-Identifier: GPL-2.0
/*
 * dtable-raw-table: change a dtable qdisc's table with entries tc would
 * never build, for selftests/vm/dtable_config.sh.
 *
 *   dtable-raw-table DEV HANDLE CLS:WEIGHT[:PAD] ...
 *
 * Sends one RTM_NEWQDISC (change) for the root qdisc HANDLE (e.g. 1:) of
 * DEV with a TCA_DTABLE_TABLE of the given entries, each with its pad
 * field as given (0 if left out; tc always sends 0).  Prints "accepted",
 * or "refused: ERROR: EXTACK MESSAGE" and exits 1.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "linux/pkt_sched_dtable.h"
#include "nl_ack.h"
#include "nl_tc.h"

#define PROG "dtable-raw-table"
#define MAX_ENTRIES 64

static void usage(void)
{
	fprintf(stderr, "Usage: " PROG " DEV HANDLE CLS:WEIGHT[:PAD] ... (at most %d)\n",
		MAX_ENTRIES);
	exit(2);
}

int main(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], msg[256];
	struct tc_dtable_entry table[MAX_ENTRIES];
	unsigned int maj, min, cls, weight, pad;
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	int i, n, ifindex, err;

	if (argc < 4 || argc - 3 > MAX_ENTRIES)
		usage();
	ifindex = (int)if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, PROG ": no device %s\n", argv[1]);
		return 2;
	}
	if (sscanf(argv[2], "%x:%x", &maj, &min) < 1)
		usage();
	n = argc - 3;
	memset(table, 0, sizeof(table));
	for (i = 0; i < n; i++) {
		pad = 0;
		if (sscanf(argv[3 + i], "%u:%u:%u", &cls, &weight, &pad) < 2 ||
		    cls > 0xffff || pad > 0xffff)
			usage();
		table[i].cls = (__u16)cls;
		table[i].weight = weight;
		table[i].pad = (__u16)pad;
	}

	nlh = nl_tc_request(buf, RTM_NEWQDISC, 0, ifindex, maj << 16, TC_H_ROOT);
	nlh->nlmsg_seq = 1;
	mnl_attr_put_strz(nlh, TCA_KIND, "dtable");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_DTABLE_TABLE, sizeof(table[0]) * (size_t)n, table);
	mnl_attr_nest_end(nlh, opts);

	/* the extended ack's message is what the test checks */
	err = nl_route_ask(nlh, msg, sizeof(msg));
	if (err < 0) {
		perror(PROG ": netlink");
		return 2;
	}
	if (err) {
		printf("refused: %s: %s\n", strerror(err), msg);
		return 1;
	}
	printf("accepted\n");
	return 0;
}
