// SPDX-License-Identifier: GPL-2.0
/*
 * k-ary n-trees and their up*-down* routes (fabric_tree.h has the wiring).
 */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "fabric_tree.h"

int ft_init(struct ft_tree *t, unsigned int k, unsigned int n)
{
	unsigned int i;

	if (k < 2 || k > FT_MAX_K || n < 1 || n > FT_MAX_N)
		return -1;
	t->pow[0] = 1;
	for (i = 1; i <= n; i++) {
		if ((uint64_t)t->pow[i - 1] * k > FT_MAX_HOSTS)
			return -1;
		t->pow[i] = t->pow[i - 1] * k;
	}
	t->k = k;
	t->n = n;
	t->hosts = t->pow[n];
	t->per_stage = t->pow[n - 1];
	return 0;
}

unsigned int ft_switches(const struct ft_tree *t)
{
	return t->n * t->per_stage;
}

/*
 * At stage s there are k^(n-1-s) groups of k^s switches: (g, m) is the
 * g * k^s + m-th of its stage.
 */
unsigned int ft_switch_number(const struct ft_tree *t, unsigned int stage,
			      unsigned int g, unsigned int m)
{
	return stage * t->per_stage + g * t->pow[stage] + m;
}

unsigned int ft_turn_stage(const struct ft_tree *t, unsigned int a,
			   unsigned int b)
{
	unsigned int s = 0;

	while (s + 1 < t->n && a / t->pow[s + 1] != b / t->pow[s + 1])
		s++;
	return s;
}

unsigned int ft_route_count(const struct ft_tree *t, unsigned int a,
			    unsigned int b)
{
	return t->pow[ft_turn_stage(t, a, b)];
}

void ft_route(const struct ft_tree *t, unsigned int a, unsigned int b,
	      unsigned int choice, struct ft_route *r)
{
	unsigned int L = ft_turn_stage(t, a, b), s, m = 0, u;

	r->nhops = 0;
	/* up: from the leaf (a / k, 0), up port u to member m + u * k^s */
	for (s = 0; s < L; s++) {
		u = choice / t->pow[s] % t->k;
		r->hop[r->nhops].sw = ft_switch_number(t, s, a / t->pow[s + 1], m);
		r->hop[r->nhops].stage = s;
		r->hop[r->nhops].out_port = t->k + u;
		r->nhops++;
		m += u * t->pow[s];
	}
	/* down: at stage s, towards the subtree of b one stage lower */
	for (s = L + 1; s-- > 0;) {
		r->hop[r->nhops].sw = ft_switch_number(t, s, b / t->pow[s + 1],
						       m % t->pow[s]);
		r->hop[r->nhops].stage = s;
		r->hop[r->nhops].out_port = b / t->pow[s] % t->k;
		r->nhops++;
	}
}

unsigned int ft_links(const struct ft_tree *t)
{
	return t->hosts + ft_switches(t) * 2 * t->k;
}

unsigned int ft_port_link(const struct ft_tree *t, unsigned int sw,
			  unsigned int port)
{
	return t->hosts + sw * 2 * t->k + port;
}

bool ft_parse_mac_base(const struct ft_tree *t, const char *s, uint8_t *base)
{
	uint8_t b[6];

	if (!parse_unicast_mac(s, b) ||
	    ((uint32_t)b[3] << 16 | b[4] << 8 | b[5]) + t->hosts > 0x1000000)
		return false;
	memcpy(base, b, 6);
	return true;
}

void ft_host_mac(const uint8_t *base, unsigned int h, char *buf, size_t len)
{
	uint32_t low = ((uint32_t)base[3] << 16 | base[4] << 8 | base[5]) + h;

	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", base[0], base[1],
		 base[2], (low >> 16) & 0xff, (low >> 8) & 0xff, low & 0xff);
}
