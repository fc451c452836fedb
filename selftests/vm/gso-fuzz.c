// SPDX-License-Identifier: GPL-2.0
/*
 * gso-fuzz: send fabric frames that claim to be GSO packets, as any host
 * on a switch port or a veth can: a packet socket with PACKET_VNET_HDR
 * hands the kernel a virtio-net header with each frame, and the kernel
 * makes the skb a GSO packet of the type, segment size and checksum
 * offsets it names (marked SKB_GSO_DODGY: not to be trusted).  A fabric
 * frame so marked reaches fabric_hdr's receive path whole, or a vcsw port,
 * which cuts it with skb_gso_segment() and so with fabric_hdr's GSO
 * offload.  The frames: Ethernet, a fabric header (valid, or a bad
 * version or inner type now and then), IPv4 or IPv6, TCP or UDP, a
 * random payload; the virtio-net header random but often plausible.
 *
 *   gso-fuzz -i IFACE -d DST_MAC -n COUNT [-s SEED] [-g GSO_SIZE -p PAYLOAD [-r]]
 *
 * With -g and -p every frame is the same well-formed one instead: IPv4,
 * TCP, PAYLOAD bytes after the TCP header, and a virtio-net header that
 * asks for TCPv4 segments of GSO_SIZE bytes with the TCP checksum left to
 * the kernel, as a guest's TSO packet would; best effort, or with -r
 * regulated (VC0).
 *
 * Prints "sent=N refused=N einval=N emsgsize=N enobufs=N enomem=N":
 * frames the kernel took, and frames it refused at the socket (a
 * virtio-net header it would not build an skb from, EINVAL; too big;
 * dropped on the way out), by errno.  Exit 0 unless the socket could not
 * be set up or a send failed otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/fabric_hdr_core.h"

#define FRAME_MAX	65535
#define IP4_HLEN	20
#define IP6_HLEN	40
#define TCP_HLEN	20
#define UDP_HLEN	8

static uint64_t rnd_state;
/* -g: well-formed frames of this segment size; 0: fuzz */
static unsigned int fixed_gso;
/* -r: those frames are regulated (VC0) */
static bool fixed_regulated;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state >> 11);
}

/* one chance in @n */
static bool one_in(uint32_t n)
{
	return rnd() % n == 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: gso-fuzz -i IFACE -d DST_MAC -n COUNT [-s SEED] "
		"[-g GSO_SIZE -p PAYLOAD [-r]]\n");
	exit(2);
}

/* The inner packet after the fabric header; its length. */
static size_t build_inner(uint8_t *p, size_t payload, bool v6, bool tcp)
{
	size_t l4 = tcp ? TCP_HLEN : UDP_HLEN, ip = v6 ? IP6_HLEN : IP4_HLEN;
	size_t len = ip + l4 + payload, i;

	memset(p, 0, ip + l4);
	if (v6) {
		p[0] = 0x60;
		fhc_put_be16(p + 4, (uint16_t)(l4 + payload));
		p[6] = tcp ? 6 : 17;
		p[7] = 64;
		p[23] = 1;		/* fd00::1 -> fd00::2 */
		p[8] = 0xfd;
		p[24] = 0xfd;
		p[39] = 2;
	} else {
		p[0] = 0x45;
		fhc_put_be16(p + 2, (uint16_t)len);
		p[8] = 64;
		p[9] = tcp ? 6 : 17;
		p[12] = 10; p[15] = 1;
		p[16] = 10; p[19] = 2;
	}
	/* now and then the IP length lies */
	if (!fixed_gso && one_in(8))
		fhc_put_be16(p + (v6 ? 4 : 2), (uint16_t)rnd());
	fhc_put_be16(p + ip, 40000);		/* ports */
	fhc_put_be16(p + ip + 2, 9);
	if (tcp) {
		p[ip + 12] = !fixed_gso && one_in(8) ? (uint8_t)rnd() : 5 << 4;	/* data offset */
		p[ip + 13] = 0x18;
	} else {
		fhc_put_be16(p + ip + 4, (uint16_t)(l4 + payload));
	}
	for (i = ip + l4; i < len; i++)
		p[i] = (uint8_t)i;
	return len;
}

/* A virtio-net header for a frame whose inner packet starts at @inner. */
static void build_vnet(struct virtio_net_hdr *h, size_t inner, size_t frame,
		       bool v6, bool tcp)
{
	static const uint8_t types[] = {
		VIRTIO_NET_HDR_GSO_NONE, VIRTIO_NET_HDR_GSO_TCPV4,
		VIRTIO_NET_HDR_GSO_TCPV6, VIRTIO_NET_HDR_GSO_UDP,
		5 /* VIRTIO_NET_HDR_GSO_UDP_L4 */,
	};
	size_t l4 = inner + (v6 ? IP6_HLEN : IP4_HLEN);

	memset(h, 0, sizeof(*h));
	if (fixed_gso) {
		h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = (uint16_t)l4;
		h->csum_offset = 16;	/* struct tcphdr's check */
		h->gso_size = (uint16_t)fixed_gso;
		h->hdr_len = (uint16_t)(l4 + TCP_HLEN);
		return;
	}
	/* mostly the type the packet is, else any */
	if (one_in(3))
		h->gso_type = types[rnd() % sizeof(types)];
	else
		h->gso_type = tcp ? (v6 ? VIRTIO_NET_HDR_GSO_TCPV6 :
				     VIRTIO_NET_HDR_GSO_TCPV4) : 5;
	if (one_in(10))
		h->gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	if (!one_in(6)) {
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = (uint16_t)(one_in(6) ? rnd() % frame : l4);
		h->csum_offset = (uint16_t)(one_in(6) ? rnd() % 64 : tcp ? 16 : 6);
	}
	switch (rnd() % 4) {
	case 0:
		h->gso_size = (uint16_t)rnd();
		break;
	case 1:
		h->gso_size = (uint16_t)(1 + rnd() % 64);
		break;
	default:
		h->gso_size = 1400;
	}
	h->hdr_len = (uint16_t)(one_in(4) ? rnd() % frame :
				l4 + (tcp ? TCP_HLEN : UDP_HLEN));
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *dst = NULL;
	unsigned long count = 0, i, sent = 0, fixed_payload = 0;
	unsigned long einval = 0, emsgsize = 0, enobufs = 0, enomem = 0;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	static uint8_t buf[sizeof(struct virtio_net_hdr) + FRAME_MAX];
	unsigned int mac[ETH_ALEN];
	int opt, fd, on = 1;

	rnd_state = 0x9e3779b97f4a7c15ULL;
	while ((opt = getopt(argc, argv, "i:d:n:s:g:p:r")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'd': dst = optarg; break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 's': rnd_state ^= strtoull(optarg, NULL, 0) * 0x2545f4914f6cdd1dULL; break;
		case 'g': fixed_gso = strtoul(optarg, NULL, 0); break;
		case 'p': fixed_payload = strtoul(optarg, NULL, 0); break;
		case 'r': fixed_regulated = true; break;
		default: usage();
		}
	}
	if (!ifname || !dst || !count || !fixed_gso != !fixed_payload ||
	    (fixed_regulated && !fixed_gso) ||
	    fixed_gso > 65535 ||
	    fixed_payload > FRAME_MAX - ETH_HLEN - FABRIC_HDR_LEN - IP4_HLEN - TCP_HLEN ||
	    sscanf(dst, "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1], &mac[2],
		   &mac[3], &mac[4], &mac[5]) != 6)
		usage();
	if (!rnd_state)
		rnd_state = 1;

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &on, sizeof(on))) {
		perror("PACKET_VNET_HDR");
		return 1;
	}
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	sll.sll_protocol = htons(ETH_P_FABRIC);
	if (!sll.sll_ifindex) {
		perror(ifname);
		return 1;
	}

	for (i = 0; i < count; i++) {
		struct virtio_net_hdr *vh = (struct virtio_net_hdr *)buf;
		uint8_t *eth = buf + sizeof(*vh), *fab = eth + ETH_HLEN;
		struct fhc_fields f = {
			.version = !fixed_gso && one_in(50) ? 2 : FABRIC_HDR_VERSION,
			.vc = fixed_gso ? (fixed_regulated ? FABRIC_VC_REGULATED :
					   FABRIC_VC_BESTEFFORT) : rnd() % 2,
			.head = true,
			.tail = true,
			.sl = rnd() % 8,
			/* a second or more: never late where it arrives, so
			 * the test's late frames are told from these */
			.ttd_ns = (int32_t)(1000000000 + rnd() % 1000000),
			.flow_id = rnd(),
			.seq = rnd(),
		};
		bool v6 = !fixed_gso && rnd() % 2, tcp = fixed_gso || rnd() % 4 != 0;
		size_t payload, len;
		int k;

		f.inner_proto = !fixed_gso && one_in(50) ? 0x1234 :
				v6 ? FHC_ETH_P_IPV6 : FHC_ETH_P_IP;
		/* mostly several segments' worth, sometimes less than one */
		if (fixed_gso)
			payload = fixed_payload;
		else
			payload = one_in(5) ? rnd() % 1500 : 1500 + rnd() % 40000;
		for (k = 0; k < ETH_ALEN; k++)
			eth[k] = (uint8_t)mac[k];
		memcpy(eth + ETH_ALEN, "\x02\x00\x00\x00\x99\x01", ETH_ALEN);
		fhc_put_be16(eth + 12, ETH_P_FABRIC);
		fhc_encode(fab, &f);
		len = ETH_HLEN + FABRIC_HDR_LEN +
		      build_inner(fab + FABRIC_HDR_LEN, payload, v6, tcp);
		/* now and then cut short inside the headers */
		if (!fixed_gso && one_in(20))
			len = ETH_HLEN + rnd() % (FABRIC_HDR_LEN + IP6_HLEN + TCP_HLEN);
		build_vnet(vh, ETH_HLEN + FABRIC_HDR_LEN, len, v6, tcp);
		if (sendto(fd, buf, sizeof(*vh) + len, 0,
			   (struct sockaddr *)&sll, sizeof(sll)) >= 0) {
			sent++;
			continue;
		}
		switch (errno) {
		case EINVAL: einval++; break;
		case EMSGSIZE: emsgsize++; break;
		case ENOBUFS: enobufs++; break;
		case ENOMEM: enomem++; break;
		default:
			perror("sendto");
			return 1;
		}
	}
	printf("sent=%lu refused=%lu einval=%lu emsgsize=%lu enobufs=%lu enomem=%lu\n",
	       sent, einval + emsgsize + enobufs + enomem, einval, emsgsize,
	       enobufs, enomem);
	close(fd);
	return 0;
}
