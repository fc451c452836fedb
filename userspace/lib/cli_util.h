/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli_util.h: command-line number parsing and big-endian field access
 * shared by the traffic tools (fabric-meter, selftests/vm/udp-lat).
 * Header only, static inline: test helpers built without the library
 * objects can use it too.
 */
#ifndef FQ_CLI_UTIL_H
#define FQ_CLI_UTIL_H

#include <arpa/inet.h>
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Unsigned integer in @base (0: also 0x hex), no sign, at most @max. */
static inline bool parse_u64(const char *s, int base, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;

	/* a digit first: no sign, no blank (hex: "ff" too) */
	if (!(base == 16 ? isxdigit((unsigned char)*s) : isdigit((unsigned char)*s)))
		return false;
	errno = 0;
	x = strtoull(s, &end, base);
	if (errno || *end || x > max)
		return false;
	*v = x;
	return true;
}

/*
 * "A<sep>B" (--tree 4,2, --net 10.59): two numbers as parse_u64() takes
 * them, in base 10, A at most @max_a and B at most @max_b.  sscanf()'s
 * "%u,%u" wrapped numbers past 2^32 (4294967298,2 was 2,2) and took a
 * sign, blanks and, unless told, words after B.
 */
static inline bool parse_uint_pair(const char *s, char sep, unsigned int max_a,
				   unsigned int max_b, unsigned int *a, unsigned int *b)
{
	const char *at = strchr(s, sep);
	char num[32];
	uint64_t x, y;

	if (!at || (size_t)(at - s) >= sizeof(num))
		return false;
	memcpy(num, s, (size_t)(at - s));
	num[at - s] = '\0';
	if (!parse_u64(num, 10, max_a, &x) || !parse_u64(at + 1, 10, max_b, &y))
		return false;
	*a = (unsigned int)x;
	*b = (unsigned int)y;
	return true;
}

/*
 * @s split in place at the characters of @blanks into at most @max words
 * in @w; returns how many words @s has, @max + 1 if more.  The readers of
 * state and reserve files take a line word by word, each number through
 * parse_u64(): sscanf()'s %u and %lu wrap past their type (and take
 * "-18446744073709551615" for 1).
 */
static inline unsigned int split_words(char *s, const char *blanks, char **w,
				       unsigned int max)
{
	unsigned int n = 0;
	char *save, *t;

	for (t = strtok_r(s, blanks, &save); t; t = strtok_r(NULL, blanks, &save)) {
		if (n == max)
			return max + 1;
		w[n++] = t;
	}
	return n;
}

/*
 * The next line of @f into @buf (@size bytes), as fgets(): 1 a line, 0
 * the end, -1 one longer than @size - 1 characters, which the caller
 * refuses (read on, its rest would be taken for a line of its own).
 */
static inline int read_line(char *buf, int size, FILE *f)
{
	if (!fgets(buf, size, f))
		return 0;
	return strchr(buf, '\n') || feof(f) ? 1 : -1;
}

/*
 * "02:00:00:00:00:01" (or "2:0:0:0:0:1"): six bytes of one or two hex
 * digits each, any address; false if not.  Not sscanf()'s %x: it also
 * takes blanks, "0x" and a sign, and keeps the low bits of the negated
 * number ("-2:..." was fe:...) and, given no width, of one past 2^32
 * ("100000002:..." was 02:...).
 */
static inline bool parse_mac(const char *s, uint8_t *mac)
{
	unsigned int i, n;
	uint8_t m[6];

	for (i = 0; i < 6; i++, s += n + 1) {
		for (n = 0; n < 2 && isxdigit((unsigned char)s[n]); n++)
			;
		if (!n || s[n] != (i < 5 ? ':' : '\0'))
			return false;
		m[i] = (uint8_t)strtoul(s, NULL, 16);
	}
	memcpy(mac, m, 6);
	return true;
}

/*
 * The same, and an address a host can send from: the group bit clear,
 * and not all zero (no device takes 00:00:00:00:00:00; as a base of
 * host addresses it would give the first host that one).
 */
static inline bool parse_unicast_mac(const char *s, uint8_t *mac)
{
	static const uint8_t zero[6];
	uint8_t m[6];

	if (!parse_mac(s, m) || (m[0] & 1) || !memcmp(m, zero, 6))
		return false;
	memcpy(mac, m, 6);
	return true;
}

/* A finite number in [@min, @max], nothing after it. */
static inline bool parse_double(const char *s, double min, double max, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(x) || x < min || x > max)
		return false;
	*v = x;
	return true;
}

/*
 * A rate in bit/s: digits and an optional k, m or g, optionally followed
 * by "bit" (40mbit, 1g, 500000), 1 bit/s to 1 Tbit/s: loads of many such
 * rates add up in 64 bits.
 */
static inline bool parse_rate_bps(const char *s, uint64_t *bps)
{
	static const struct { const char *sfx; uint64_t mul; } u[] = {
		{ "", 1 }, { "bit", 1 }, { "k", 1000 }, { "kbit", 1000 },
		{ "m", 1000000 }, { "mbit", 1000000 }, { "g", 1000000000 },
		{ "gbit", 1000000000 },
	};
	size_t n = strspn(s, "0123456789");
	char num[32];
	unsigned int i;
	uint64_t v;

	if (!n || n >= sizeof(num))
		return false;
	memcpy(num, s, n);
	num[n] = '\0';
	if (!parse_u64(num, 10, UINT64_MAX, &v))
		return false;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (strcmp(s + n, u[i].sfx))
			continue;
		if (!v || v > 1000000000000ULL / u[i].mul)
			return false;
		*bps = v * u[i].mul;
		return true;
	}
	return false;
}

/*
 * A time in ns: digits and a unit, ns, us, ms or s (20ms, 1500us), @min ..
 * @max.  No bare numbers: tc reads those as us, our tools as ns.
 */
static inline bool parse_time_ns(const char *s, uint64_t min, uint64_t max,
				 uint64_t *ns)
{
	static const struct { const char *sfx; uint64_t mul; } u[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	size_t n = strspn(s, "0123456789");
	unsigned int i;
	char num[32];
	uint64_t v;

	if (!n || n >= sizeof(num))
		return false;
	memcpy(num, s, n);
	num[n] = '\0';
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (strcmp(s + n, u[i].sfx))
			continue;
		if (!parse_u64(num, 10, UINT64_MAX / u[i].mul, &v) ||
		    v * u[i].mul < min || v * u[i].mul > max)
			return false;
		*ns = v * u[i].mul;
		return true;
	}
	return false;
}

/* @ns in the largest of s, ms, us, ns that says it exactly ("20ms"). */
static inline const char *fmt_time_ns(uint64_t ns, char *buf, size_t len)
{
	static const struct { const char *sfx; uint64_t div; } u[] = {
		{ "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
	};
	unsigned int i = 0;

	while (ns && ns % u[i].div)
		i++;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ns / u[i].div), u[i].sfx);
	return buf;
}

/* A size in bytes: digits and an optional k or m (1024s), @min .. @max. */
static inline bool parse_size_bytes(const char *s, uint64_t min, uint64_t max,
				    uint64_t *bytes)
{
	size_t n = strspn(s, "0123456789");
	uint64_t v, mul = 1;
	char num[32];

	if (!n || n >= sizeof(num))
		return false;
	if (!strcmp(s + n, "k"))
		mul = 1024;
	else if (!strcmp(s + n, "m"))
		mul = 1024 * 1024;
	else if (s[n])
		return false;
	memcpy(num, s, n);
	num[n] = '\0';
	if (!parse_u64(num, 10, UINT64_MAX / mul, &v) || v * mul < min ||
	    v * mul > max)
		return false;
	*bytes = v * mul;
	return true;
}

/* SO_PRIORITY as a number or as a tc class handle MAJ:MIN (both hex). */
static inline bool parse_prio(const char *s, uint64_t *v)
{
	uint64_t maj, min;
	char buf[32], *colon;

	colon = strchr(s, ':');
	if (!colon)
		return parse_u64(s, 0, UINT32_MAX, v);
	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	buf[colon - s] = '\0';
	if (!parse_u64(buf, 16, 0xffff, &maj) ||
	    !parse_u64(buf + (colon - s) + 1, 16, 0xffff, &min))
		return false;
	*v = maj << 16 | min;
	return true;
}

static inline void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static inline uint16_t get_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static inline void put16(uint8_t *p, uint16_t v) { v = htobe16(v); memcpy(p, &v, 2); }
static inline void put32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static inline void put64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static inline uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return be16toh(v); }
static inline uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return be32toh(v); }
static inline uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return be64toh(v); }

#endif /* FQ_CLI_UTIL_H */
