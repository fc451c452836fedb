/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Room for a qdisc's long option (fbs's and dtable's tables) in a dump.
 *
 * tc_fill_qdisc() writes, after the qdisc's options, its statistics:
 * TCA_STATS2 (basic, packets, rate estimate, queue and the qdisc's own
 * TCA_STATS_APP), then the compatibility copies TCA_STATS and TCA_XSTATS
 * (the own statistics a second time), and TCA_HW_OFFLOAD.  If they do not
 * fit, the whole message fails, and a message that fails in an empty
 * buffer ends the dump: the qdisc, and every one dumped after it, is
 * missing from "tc qdisc show" (and its notification is lost).  So a long
 * option goes in only if all of that still fits after it.
 */
#ifndef _FQ_QDISC_DUMP_H
#define _FQ_QDISC_DUMP_H

#include <linux/skbuff.h>
#include <net/netlink.h>

/*
 * What follows the options but for the own statistics, with each
 * attribute's header and 64-bit padding, added up from what
 * tc_fill_qdisc() puts (basic 20 + 8, packets 12 + 8, rate 12 and
 * 20 + 8, queue 24, tc_stats 40 + 8, offload 8, the nest 4: about 170
 * bytes), rounded up.  vm/fbs_config dumps tables at lengths around the
 * old, too small, room.
 */
#define FQ_QDISC_DUMP_STATS_FIXED	256

/*
 * Whether an attribute of @len bytes still leaves room in @skb, the dump
 * being filled, for the statistics with own statistics of @xstats_len
 * bytes (written twice).
 */
static inline bool fq_qdisc_dump_fits(const struct sk_buff *skb, size_t len,
				      size_t xstats_len)
{
	size_t after = 2 * nla_total_size(xstats_len) + FQ_QDISC_DUMP_STATS_FIXED;

	return nla_total_size(len) + after <= (size_t)skb_tailroom(skb);
}

#endif /* _FQ_QDISC_DUMP_H */
