/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forged and mutated credit-link messages (Documentation/credits.rst) for
 * fuzzing the receiving end of a link: a host's qdisc with credits on, or
 * a vcsw port (fabric-send --link-fuzz).  Each message is also handed to
 * a model receiver, the core's own fcr_msg_receive() on books as fresh
 * as the real receiver's, so a test knows how many the receiver must
 * take, refuse as malformed, refuse for their unit, or ignore as stale.
 */
#ifndef FQ_LINK_FUZZ_H
#define FQ_LINK_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "frame_fuzz.h"
#include "../../kernel/core/fabric_credit.h"

/* Longest message built: the 78 bytes of a real one and some trailer. */
#define LF_FRAME_MAX	200

enum lf_class {
	LF_RECEIVED,		/* taken */
	LF_MALFORMED,		/* refused: short, type, VC count, epoch 0 */
	LF_UNIT,		/* refused: another unit */
	LF_STALE,		/* ignored: older than one taken */
	/*
	 * another type that happens to be FABRIC_CTRL_RECN: a host's
	 * link refuses it as malformed, a vcsw port takes it for a RECN
	 * frame (and, with recn off, refuses it as one: frames_refused)
	 */
	LF_RECN,
	LF_NCLASSES,
};

extern const char *const lf_class_names[LF_NCLASSES];

struct lf_state {
	struct ff_rng	rng;
	uint8_t		src_mac[6];
	uint32_t	unit;		/* the receiver's */
	uint32_t	echo;		/* the receiver's epoch if heard, or 0 */
	uint32_t	epochs[3];	/* the lives the forger cycles through */
	uint32_t	seq;
	uint32_t	sent[FCR_DEFAULT_VCS];
	uint32_t	grant[FCR_DEFAULT_VCS];
	struct fcr_link	model;		/* the receiver as the core sees it */
};

/*
 * @unit: the receiver's credit unit; @echo: its epoch, if the caller
 * heard one of its messages (messages that echo it reach its grant),
 * else 0.
 */
void lf_init(struct lf_state *s, uint64_t seed, const uint8_t *src_mac,
	     uint32_t unit, uint32_t echo);

/*
 * Build the next message, an Ethernet frame to the link group, into @buf
 * (LF_FRAME_MAX bytes); return its length and set *@cls to what the
 * receiver will make of it.
 */
size_t lf_build(struct lf_state *s, uint8_t *buf, enum lf_class *cls);

#endif /* FQ_LINK_FUZZ_H */
