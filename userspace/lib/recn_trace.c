// SPDX-License-Identifier: GPL-2.0
/* The RECN experiment's trace and probes: recn_trace.h. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "recn_trace.h"

enum rt_parse rt_parse_line(const char *line, struct rt_frame *f)
{
	unsigned long long t, src, dst, len, sl;
	const char *s = line, *c;
	int end = -1;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '\n' || *s == '#')
		return RT_BLANK;
	/* digits and blanks only: sscanf's %llu would take "-1" or "+1" */
	for (c = s; *c && *c != '\n'; c++)
		if ((*c < '0' || *c > '9') && *c != ' ' && *c != '\t')
			return RT_BAD;
	if (sscanf(s, "%llu %llu %llu %llu %llu %n", &t, &src, &dst, &len, &sl, &end) != 5 ||
	    end < 0 || (s[end] && s[end] != '\n') || t > RT_TIME_MAX || src > UINT32_MAX ||
	    dst > UINT32_MAX || src == dst || !len || len > UINT32_MAX || sl >= RT_SLS)
		return RT_BAD;
	*f = (struct rt_frame){ .t_ns = t, .src = (uint32_t)src, .dst = (uint32_t)dst,
				.len = (uint32_t)len, .sl = (uint8_t)sl };
	return RT_FRAME;
}

/* magic, src, seq, offered (8), len, sl, 3 bytes zero; big-endian */
void rt_probe_put(uint8_t *buf, const struct rt_probe *p)
{
	put32(buf, RT_PROBE_MAGIC);
	put32(buf + 4, p->src);
	put32(buf + 8, p->seq);
	put32(buf + 12, (uint32_t)(p->offered_ns >> 32));
	put32(buf + 16, (uint32_t)p->offered_ns);
	put32(buf + 20, p->len);
	buf[24] = p->sl;
	buf[25] = buf[26] = buf[27] = 0;
}

bool rt_probe_get(const uint8_t *buf, uint32_t len, struct rt_probe *p)
{
	if (len < RT_PROBE_LEN || get32(buf) != RT_PROBE_MAGIC || buf[24] >= RT_SLS ||
	    buf[25] || buf[26] || buf[27] || !get32(buf + 20))
		return false;
	p->src = get32(buf + 4);
	p->seq = get32(buf + 8);
	p->offered_ns = (uint64_t)get32(buf + 12) << 32 | get32(buf + 16);
	p->len = get32(buf + 20);
	p->sl = buf[24];
	return true;
}

uint32_t rt_payload_len(uint32_t len)
{
	return len < RT_FRAME_MIN ? RT_PROBE_LEN : len - RT_FRAME_OVERHEAD;
}

void rt_account(struct rt_window *w, const struct rt_probe *p, uint64_t rx_ns)
{
	struct rt_sl_stats *s = &w->sl[p->sl];
	uint64_t lat;

	if (p->offered_ns < w->start) {
		w->stale++;
		return;
	}
	if (rx_ns < w->lo || rx_ns >= w->hi) {
		s->outside++;
		return;
	}
	/* a clock that went back counts as no wait, not as 2^64 ns */
	lat = rx_ns > p->offered_ns ? rx_ns - p->offered_ns : 0;
	s->frames++;
	s->bytes += p->len;
	s->lat_sum_ns += lat;
	if (lat > s->lat_max_ns)
		s->lat_max_ns = lat;
}
