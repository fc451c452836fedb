/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forged and mutated RECN link frames (FABRIC_CTRL_RECN, Documentation/
 * recn.rst) for fuzzing a vcsw port with "recn on" (fabric-send
 * --recn-fuzz).  Each frame is classed as the receiver must class it, by
 * the core's own recn_wire_len() and recn_wire_parse(): taken whole, or
 * refused whole.
 */
#ifndef FQ_RECN_FUZZ_H
#define FQ_RECN_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "frame_fuzz.h"

/* Ethernet, fabric header, the most messages, and a trailer. */
#define RF_FRAME_MAX	(14 + 20 + 4 + 12 * 16 + 40)

enum rf_class {
	RF_TAKEN,	/* taken whole: frames_rx */
	RF_REFUSED,	/* refused whole: frames_refused */
	RF_OTHER,	/* no RECN type byte: the credit path's to count */
	RF_NCLASSES,
};

extern const char *const rf_class_names[RF_NCLASSES];

struct rf_state {
	struct ff_rng	rng;
	uint8_t		src_mac[6];
};

void rf_init(struct rf_state *s, uint64_t seed, const uint8_t *src_mac);

/*
 * Build the next frame into @buf (RF_FRAME_MAX bytes); return its length
 * and set *@cls to what the receiver must make of it.
 */
size_t rf_build(struct rf_state *s, uint8_t *buf, enum rf_class *cls);

#endif /* FQ_RECN_FUZZ_H */
