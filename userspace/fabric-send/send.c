// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-send's packet socket (fabric-send.h): opened on DEV to send to
 * --dst-mac, the pause between frames, and the plain frames of --count
 * and --interval.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fabric-send.h"

/*
 * A packet socket on --dev (-i) whose @sll sends to --dst-mac; @src_mac
 * gets DEV's own address for the frames' source.  A device without an
 * Ethernet header (a GRE tunnel) sets o->no_eth: the plain frames go
 * without theirs, the fabric EtherType their packets' protocol, as such
 * a device would carry a fabric frame a host received on it.  -1 on
 * error, said.
 */
int fs_open(struct fs_opts *o, struct sockaddr_ll *sll, uint8_t *src_mac)
{
	struct ifreq ifr;
	int fd;

	/* protocol 0: send only, no copy of every received frame queued */
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		fprintf(stderr, PROG ": packet socket: %s%s\n", strerror(errno),
			errno == EPERM ? " (needs CAP_NET_RAW)" : "");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	if (strlen(o->dev) >= sizeof(ifr.ifr_name) ||
	    !(sll->sll_ifindex = (int)if_nametoindex(o->dev))) {
		fprintf(stderr, PROG ": %s: no such device\n", o->dev);
		goto err;
	}
	strcpy(ifr.ifr_name, o->dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		fprintf(stderr, PROG ": %s: reading MAC address: %s\n", o->dev,
			strerror(errno));
		goto err;
	}
	o->no_eth = ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER;
	if (o->no_eth && (o->fuzz || o->recn_fuzz || o->link_fuzz_unit)) {
		fprintf(stderr, PROG ": %s: not an Ethernet device\n", o->dev);
		goto err;
	}
	if (o->no_eth)
		memset(src_mac, 0, ETH_ALEN);
	else
		memcpy(src_mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);

	sll->sll_family = AF_PACKET;
	sll->sll_protocol = 0;
	if (bind(fd, (struct sockaddr *)sll, sizeof(*sll)) < 0) {
		fprintf(stderr, PROG ": bind to %s: %s\n", o->dev,
			strerror(errno));
		goto err;
	}
	sll->sll_protocol = htons(ETH_P_FABRIC);
	if (!o->no_eth) {
		sll->sll_halen = ETH_ALEN;
		memcpy(sll->sll_addr, o->dst_mac, ETH_ALEN);
	}
	return fd;
err:
	close(fd);
	return -1;
}

void fs_sleep_us(unsigned long us)
{
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000),
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* COUNT frames built by fs_build(), --interval apart; 1 if one failed */
int fs_send(const struct fs_opts *o, int fd, const struct sockaddr_ll *sll,
	    const uint8_t *src_mac)
{
	static uint8_t frame[FS_FRAME_MAX];
	size_t skip = o->no_eth ? ETH_HLEN : 0, len;
	unsigned long i;
	uint32_t seq;

	seq = o->hdr.seq;
	for (i = 0; i < o->count; i++, seq++) {
		if (i && o->interval_us)
			fs_sleep_us(o->interval_us);
		len = fs_build(o, src_mac, i, seq, frame) - skip;
		if (sendto(fd, frame + skip, len, 0, (const struct sockaddr *)sll,
			   sizeof(*sll)) != (ssize_t)len) {
			fprintf(stderr, PROG ": %s: sending frame %lu of %lu: %s\n",
				o->dev, i + 1, o->count, strerror(errno));
			return 1;
		}
	}
	return 0;
}
