/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Random and mutated Ethernet frames for fuzzing the fabric receive paths
 * (fabric-send --fuzz).  Each frame is classified the way the kernel will
 * classify it, by the same core validator (fhc_validate()), so a test can
 * account for every frame: passed up, or dropped with a reason.
 */
#ifndef FQ_FRAME_FUZZ_H
#define FQ_FRAME_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest frame built: a 9000-byte jumbo payload plus the Ethernet header. */
#define FF_FRAME_MAX	(14 + 9000)

enum ff_class {
	FF_VALID,		/* a fabric frame the receiver passes up */
	FF_SHORT,		/* fabric, dropped: shorter than the header */
	FF_VERSION,		/* fabric, dropped: unknown version */
	FF_INNER_TYPE,		/* fabric, dropped: inner EtherType not carried */
	FF_TRUNCATED,		/* fabric, dropped: inner packet not whole */
	FF_OTHER,		/* not a fabric frame (another EtherType) */
	/*
	 * fabric, a control frame (inner type the fabric's own): taken for
	 * a credit-link message, counted where the link's messages are
	 * (a host's drop_link_msg, a switch port's msgs_off) when nothing
	 * there speaks credits
	 */
	FF_CTRL,
	FF_NCLASSES,
};

extern const char *const ff_class_names[FF_NCLASSES];

struct ff_params {
	uint8_t	dst_mac[6];
	uint8_t	src_mac[6];
	bool	random_dst_mac;	/* also broadcast, multicast, 802.1D groups */
	uint8_t	src_ip[4];
	uint8_t	dst_ip[4];
};

/* xorshift64*: seeded, the same frames for the same seed everywhere */
struct ff_rng {
	uint64_t s;
};

void ff_seed(struct ff_rng *r, uint64_t seed);
uint64_t ff_next(struct ff_rng *r);

/*
 * Build the next frame into @buf (FF_FRAME_MAX bytes); return its length
 * and set *@cls to what the receiver will make of it.
 */
size_t ff_build(struct ff_rng *r, const struct ff_params *p, uint8_t *buf,
		enum ff_class *cls);

#endif /* FQ_FRAME_FUZZ_H */
