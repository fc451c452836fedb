// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-send's frames (fabric-send.h): Ethernet, the fabric header as the
 * kernel's core code encodes it, IPv4 and UDP with their checksums, each
 * field as the options chose it, or broken as --malform asks.
 */
#include <string.h>

#include "fabric-send.h"

/* One's complement sum over @len bytes, folded later. */
static uint32_t fs_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	while (len > 1) {
		sum += (uint32_t)(p[0] << 8 | p[1]);
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t fs_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Build the frame with sequence number @seq into @buf; return its length. */
size_t fs_build(const struct fs_opts *o, const uint8_t *src_mac,
		unsigned long index, uint32_t seq, uint8_t *buf)
{
	size_t plen = strlen(o->payload);
	size_t ip_len = FS_IP_HLEN + FS_UDP_HLEN + plen;
	struct fhc_fields hdr = o->hdr;
	uint8_t *eth = buf;
	uint8_t *fh = eth + ETH_HLEN;
	uint8_t *ip = fh + FABRIC_HDR_LEN;
	uint8_t *udp = ip + FS_IP_HLEN;
	uint8_t pseudo[12];
	uint32_t sum;
	uint16_t csum;

	memcpy(eth, o->dst_mac, ETH_ALEN);
	memcpy(eth + ETH_ALEN, src_mac, ETH_ALEN);
	fhc_put_be16(eth + 2 * ETH_ALEN, ETH_P_FABRIC);

	hdr.version = o->malform == FS_VERSION ? 2 : FABRIC_HDR_VERSION;
	hdr.inner_proto = o->malform == FS_INNER_TYPE ? FS_BOGUS_ETHERTYPE :
			  o->malform == FS_CTRL ? ETH_P_FABRIC : FHC_ETH_P_IP;
	hdr.seq = seq;
	if (o->message) {
		hdr.head = index % o->message == 0;
		hdr.tail = index % o->message == o->message - 1;
	}
	fhc_encode(fh, &hdr);
	if (o->malform == FS_SHORT)
		return ETH_HLEN + FS_SHORT_HDR_BYTES;

	memset(ip, 0, FS_IP_HLEN);
	ip[0] = 0x45;
	fhc_put_be16(ip + 2, (uint16_t)(ip_len + (o->malform == FS_TRUNCATED ?
						  FS_TRUNCATE_BY : 0)));
	fhc_put_be16(ip + 4, (uint16_t)seq);		/* identification */
	fhc_put_be16(ip + 6, 0x4000);			/* don't fragment */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &o->src_ip, 4);
	memcpy(ip + 16, &o->dst_ip, 4);
	fhc_put_be16(ip + 10, fs_csum_fold(fs_csum_add(0, ip, FS_IP_HLEN)));

	fhc_put_be16(udp, o->sport);
	fhc_put_be16(udp + 2, o->dport);
	fhc_put_be16(udp + 4, (uint16_t)(FS_UDP_HLEN + plen));
	fhc_put_be16(udp + 6, 0);
	memcpy(udp + FS_UDP_HLEN, o->payload, plen);

	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = IPPROTO_UDP;
	fhc_put_be16(pseudo + 10, (uint16_t)(FS_UDP_HLEN + plen));
	sum = fs_csum_add(0, pseudo, sizeof(pseudo));
	csum = fs_csum_fold(fs_csum_add(sum, udp, FS_UDP_HLEN + plen));
	/* 0 means "no checksum" in UDP over IPv4 */
	fhc_put_be16(udp + 6, csum ? csum : 0xffff);

	return ETH_HLEN + FABRIC_HDR_LEN + ip_len;
}
