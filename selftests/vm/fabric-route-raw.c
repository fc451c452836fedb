// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-route-raw: send the fabric_hdr family a route request that
 * fabric-route would never build, for selftests/vm/vcsw_route.sh.
 *
 *   fabric-route-raw new|del [dev DEV] [to MAC] [route N] [replace]
 *
 * Sends one FABRIC_CMD_ROUTE_NEW or _DEL with exactly the attributes
 * given (fabric-route sends a route only with add and replace).  Prints
 * "accepted", or "refused: ERROR: EXTACK MESSAGE" and exits 1.
 */
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/fabric_hdr.h>

#include "fabric_genl.h"

#define PROG "fabric-route-raw"

static void usage(void)
{
	fprintf(stderr, "Usage: " PROG " new|del [dev DEV] [to MAC] [route N] [replace]\n");
	exit(2);
}

static int none_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_OK;
}

int main(int argc, char **argv)
{
	char buf[256];
	struct nlmsghdr *nlh;
	struct fg_sock s;
	unsigned char mac[6];
	uint8_t cmd;
	int i;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "new"))
		cmd = FABRIC_CMD_ROUTE_NEW;
	else if (!strcmp(argv[1], "del"))
		cmd = FABRIC_CMD_ROUTE_DEL;
	else
		usage();
	if (fg_open(&s, PROG) < 0)
		return 2;
	nlh = fg_msg(&s, buf, s.family, NLM_F_ACK, cmd, FABRIC_GENL_VERSION);
	for (i = 2; i < argc; i++) {
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "replace")) {
			mnl_attr_put(nlh, FABRIC_A_ROUTE_REPLACE, 0, NULL);
			continue;
		}
		if (!val)
			usage();
		if (!strcmp(argv[i], "dev")) {
			unsigned int ifindex = if_nametoindex(val);

			if (!ifindex) {
				fprintf(stderr, PROG ": no device %s\n", val);
				return 2;
			}
			mnl_attr_put_u32(nlh, FABRIC_A_IFINDEX, ifindex);
		} else if (!strcmp(argv[i], "to")) {
			if (sscanf(val, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
				   &mac[2], &mac[3], &mac[4], &mac[5]) != 6)
				usage();
			mnl_attr_put(nlh, FABRIC_A_ROUTE_DST, sizeof(mac), mac);
		} else if (!strcmp(argv[i], "route")) {
			mnl_attr_put_u32(nlh, FABRIC_A_ROUTE, (uint32_t)strtoul(val, NULL, 0));
		} else {
			usage();
		}
		i++;
	}
	if (fg_talk(&s, nlh, none_cb, NULL) < 0) {
		printf("refused: %s\n", fg_strerror(&s));
		fg_close(&s);
		return 1;
	}
	printf("accepted\n");
	fg_close(&s);
	return 0;
}
