/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fabric-send: build Ethernet + fabric header + IPv4 + UDP frames by hand
 * and send them on a raw packet socket.  The kernel side only ever sees
 * fabric frames that our qdiscs or the soft switch made, so tests and users
 * need a way to inject frames with chosen header fields, including late
 * ones (negative TTD) and deliberately malformed ones, to exercise the
 * receive path's checks.  The header is encoded by the same core code the
 * kernel uses.
 *
 * Documentation/fabric-header.rst ("Tools") describes the options.
 *
 * One file a job, in userspace/fabric-send/; this header is what they
 * share:
 *
 *   main.c   the command line: the options, their checks, the usage text;
 *            picks the mode
 *   frame.c  one frame built by hand, checksums included, good or
 *            malformed as --malform asks
 *   send.c   the packet socket on DEV, the pause between frames, and the
 *            plain frames of --count and --interval
 *   fuzz.c   --fuzz, --link-fuzz and --recn-fuzz: the frames of the
 *            fuzzers in userspace/lib, sent and counted by what the
 *            receiver must make of them
 */
#ifndef FABRIC_SEND_H
#define FABRIC_SEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <netpacket/packet.h>

#include <linux/if_ether.h>

#include "../../kernel/core/fabric_hdr_core.h"

#define PROG "fabric-send"

#define FS_IP_HLEN	20
#define FS_UDP_HLEN	8
#define FS_MAX_PAYLOAD	8972	/* fills a 9000-byte IPv4 packet (jumbo frames);
				   the device's MTU decides what goes */
#define FS_FRAME_MAX	(ETH_HLEN + FABRIC_HDR_LEN + FS_IP_HLEN + FS_UDP_HLEN + \
			 FS_MAX_PAYLOAD)

/* The inner EtherType sent by --malform inner-type: carried by nobody. */
#define FS_BOGUS_ETHERTYPE	0x1234
/* How many header bytes --malform short keeps. */
#define FS_SHORT_HDR_BYTES	10
/* How much --malform truncated overstates the IPv4 total length. */
#define FS_TRUNCATE_BY		100

enum fs_malform {
	FS_OK,
	FS_SHORT,
	FS_VERSION,
	FS_INNER_TYPE,
	FS_TRUNCATED,
	FS_CTRL,	/* a control frame (a link message's type) nobody asked for */
};

struct fs_opts {
	const char	*dev;
	uint8_t		dst_mac[ETH_ALEN];
	bool		have_dst_mac;
	struct in_addr	src_ip;
	struct in_addr	dst_ip;
	bool		have_src_ip;
	bool		have_dst_ip;
	uint16_t	sport;
	uint16_t	dport;
	bool		have_dport;
	struct fhc_fields hdr;
	unsigned long	count;
	unsigned long	interval_us;
	unsigned long	message;	/* frames per message, 0: flags left clear */
	const char	*payload;
	enum fs_malform	malform;
	bool		fuzz;		/* random and mutated frames */
	bool		fuzz_macs;	/* ... to random destinations too */
	uint32_t	link_fuzz_unit;	/* forged link messages; 0: not */
	bool		recn_fuzz;	/* forged RECN link frames */
	unsigned long long seed;
	bool		no_eth;		/* DEV has no Ethernet header (fs_open()) */
};

/* ---- frame.c ------------------------------------------------------------- */

size_t fs_build(const struct fs_opts *o, const uint8_t *src_mac,
		unsigned long index, uint32_t seq, uint8_t *buf);

/* ---- send.c -------------------------------------------------------------- */

int fs_open(struct fs_opts *o, struct sockaddr_ll *sll, uint8_t *src_mac);
void fs_sleep_us(unsigned long us);
int fs_send(const struct fs_opts *o, int fd, const struct sockaddr_ll *sll,
	    const uint8_t *src_mac);

/* ---- fuzz.c -------------------------------------------------------------- */

int fs_fuzz(const struct fs_opts *o, int fd, const struct sockaddr_ll *sll,
	    const uint8_t *src_mac);
int fs_recn_fuzz(const struct fs_opts *o, int fd,
		 const struct sockaddr_ll *sll, const uint8_t *src_mac);
int fs_link_fuzz(const struct fs_opts *o, int fd,
		 const struct sockaddr_ll *sll, const uint8_t *src_mac);

#endif /* FABRIC_SEND_H */
