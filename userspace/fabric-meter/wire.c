// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-meter: the probe header and the end mark (FIN) on the wire, to
 * and from their structs in fabric-meter.h.
 *
 * Wire header, network byte order, at the start of every datagram:
 *
 *    0  u32 magic     FM_MAGIC
 *    4  u8  version   1
 *    5  u8  type      FM_T_*
 *    6  u8  flow      flow of the class, 0 .. 255
 *    7  u8  class     class index 0 .. 63
 *    8  u32 seq       per flow, one per datagram, from 0
 *   12  u32 msg       per flow, one per message, from 0
 *   16  u16 part      0 .. parts-1
 *   18  u16 parts     datagrams of the message
 *   20  u32 size      message size, bytes
 *   24  u64 gen_ns    message generation time (the run's clock)
 *   32  u64 send_ns   this datagram's send time (the run's clock)
 *   40  u64 echo_ns   reflector: its receive time; else 0
 *   48  payload (zeros), or the body of a FIN / HELLO / ACK
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cli_util.h"
#include "fabric-meter.h"

#define FM_MAGIC		0xFAB3E7E5U
#define FM_VERSION		1

void hdr_put(uint8_t *p, const struct fm_hdr *h)
{
	put32(p, FM_MAGIC);
	p[4] = FM_VERSION;
	p[5] = h->type;
	p[6] = h->flow;
	p[7] = (uint8_t)h->cls;
	put32(p + 8, h->seq);
	put32(p + 12, h->msg);
	put16(p + 16, h->part);
	put16(p + 18, h->parts);
	put32(p + 20, h->size);
	put64(p + 24, h->gen_ns);
	put64(p + 32, h->send_ns);
	put64(p + 40, h->echo_ns);
}

bool hdr_get(const uint8_t *p, size_t len, struct fm_hdr *h)
{
	if (len < FM_HDR_LEN || get32(p) != FM_MAGIC || p[4] != FM_VERSION)
		return false;
	h->type = p[5];
	h->flow = p[6];
	h->cls = p[7];
	h->seq = get32(p + 8);
	h->msg = get32(p + 12);
	h->part = get16(p + 16);
	h->parts = get16(p + 18);
	h->size = get32(p + 20);
	h->gen_ns = get64(p + 24);
	h->send_ns = get64(p + 32);
	h->echo_ns = get64(p + 40);
	return h->cls < MAX_CLASSES;
}

void fin_put(uint8_t *p, const struct fm_fin *f)
{
	p += FM_HDR_LEN;
	put64(p, f->sent_pkts);
	put64(p + 8, f->sent_msgs);
	put64(p + 16, f->sent_bytes);
	put64(p + 24, f->src_drops);
	put64(p + 32, (uint64_t)f->target_ns);
	p[40] = f->kind;
	memcpy(p + 41, f->name, FM_NAME_LEN);
	put16(p + 57, f->nflows);
}

bool fin_get(const uint8_t *p, size_t len, struct fm_fin *f)
{
	if (len < FM_FIN_LEN)
		return false;
	p += FM_HDR_LEN;
	f->sent_pkts = get64(p);
	f->sent_msgs = get64(p + 8);
	f->sent_bytes = get64(p + 16);
	f->src_drops = get64(p + 24);
	f->target_ns = (int64_t)get64(p + 32);
	f->kind = p[40] < TM_KINDS ? p[40] : TM_CBR;
	memcpy(f->name, p + 41, FM_NAME_LEN);
	f->name[FM_NAME_LEN] = '\0';
	if (!fm_name_valid(f->name))
		f->name[0] = '\0';
	f->nflows = get16(p + 57);
	if (!f->nflows || f->nflows > MAX_FLOWS)
		f->nflows = 1;
	return true;
}

bool fm_name_valid(const char *name)
{
	size_t len = strlen(name);

	return len && len <= FM_NAME_LEN &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == len;
}
