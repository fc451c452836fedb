// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-meter: a --class SPEC, KIND[,key=value]..., into a class of the
 * sender (struct sclass): its traffic model, markings and flows.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_util.h"
#include "fabric-meter.h"

#define DEFAULT_SEG		1400

/* A number with an optional suffix from @units (name, factor); NULL-ended. */
struct unit { const char *name; double factor; };

static bool parse_with_unit(const char *s, const struct unit *units,
			    double def_factor, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (end == s || errno || !isfinite(x) || x < 0)
		return false;
	if (!*end) {
		*v = x * def_factor;
		return true;
	}
	for (; units->name; units++) {
		if (!strcasecmp(end, units->name)) {
			*v = x * units->factor;
			return true;
		}
	}
	return false;
}

static const struct unit rate_units[] = {
	{ "bit", 1 }, { "k", 1e3 }, { "kbit", 1e3 }, { "m", 1e6 }, { "mbit", 1e6 },
	{ "g", 1e9 }, { "gbit", 1e9 }, { NULL, 0 },
};

static const struct unit time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { NULL, 0 },
};

static const struct unit size_units[] = {
	{ "b", 1 }, { "k", 1024 }, { "kb", 1024 }, { "m", 1 << 20 }, { "mb", 1 << 20 },
	{ NULL, 0 },
};

/* Defaults by kind: Table 1 sizes; multimedia targets 10 ms. */
static void class_defaults(struct sclass *s, enum tm_kind kind)
{
	memset(s, 0, sizeof(*s));
	tm_params_default(&s->tp, kind);
	s->seg = DEFAULT_SEG;
	s->nflows = 1;
	s->dscp = -1;
	s->fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", tm_kind_name(kind));
}

static int class_error(const char *spec, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": --class '%s': ", spec);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	return EXIT_USAGE;
}

/* KIND[,key=value]...: see usage() and Documentation/fabric-meter.rst. */
int parse_class(const char *spec, struct sclass *s)
{
	char buf[512], *tok, *save = NULL, *val;
	double d;
	uint64_t v;
	int kind;
	FILE *f;
	char err[256];
	const char *trace = NULL;

	if (strlen(spec) >= sizeof(buf))
		return class_error(spec, "too long");
	strcpy(buf, spec);
	tok = strtok_r(buf, ",", &save);
	kind = tok ? tm_kind_parse(tok) : -1;
	if (kind < 0)
		return class_error(spec, "want KIND first: control, multimedia, besteffort, background or cbr");
	class_defaults(s, kind);
	if (kind == TM_MULTIMEDIA)
		s->target_ns = 10 * 1000000LL;
	while ((tok = strtok_r(NULL, ",", &save))) {
		val = strchr(tok, '=');
		if (!val)
			return class_error(spec, "want key=value, got '%s'", tok);
		*val++ = '\0';
		if (!strcmp(tok, "name")) {
			if (!fm_name_valid(val))
				return class_error(spec, "name: 1 .. 16 of [A-Za-z0-9_.-]");
			strcpy(s->name, val);
		} else if (!strcmp(tok, "rate")) {
			if (!parse_with_unit(val, rate_units, 1, &d) || d < 1000 || d > 400e9)
				return class_error(spec, "rate: want bit/s 1kbit .. 400gbit (suffixes k, m, g)");
			s->tp.rate_bps = d;
		} else if (!strcmp(tok, "min") || !strcmp(tok, "max") || !strcmp(tok, "size")) {
			if (!parse_with_unit(val, size_units, 1, &d) || d < FM_HDR_LEN || d > 16 << 20)
				return class_error(spec, "%s: want bytes 48 .. 16M", tok);
			if (strcmp(tok, "max"))		/* min, size */
				s->tp.min_size = (uint32_t)d;
			if (strcmp(tok, "min"))		/* max, size */
				s->tp.max_size = (uint32_t)d;
		} else if (!strcmp(tok, "interval")) {
			if (!parse_with_unit(val, time_units, 1e3, &d) || d < 1e3 || d > 10e9)
				return class_error(spec, "interval: want 1us .. 10s (bare number: us)");
			s->tp.interval_ns = d;
		} else if (!strcmp(tok, "trace")) {
			trace = val;
		} else if (!strcmp(tok, "alpha")) {
			if (!parse_double(val, 0.01, 10, &s->tp.alpha))
				return class_error(spec, "alpha: want 0.01 .. 10");
		} else if (!strcmp(tok, "burst")) {
			if (!parse_double(val, 1, 1e6, &s->tp.burst_mean))
				return class_error(spec, "burst: want 1 .. 1000000 messages");
		} else if (!strcmp(tok, "seg")) {
			if (!parse_u64(val, 10, MAX_SEG, &v) || v < FM_HDR_LEN)
				return class_error(spec, "seg: want 48 .. 65507 bytes");
			s->seg = (uint32_t)v;
		} else if (!strcmp(tok, "prio")) {
			if (!parse_prio(val, &v))
				return class_error(spec, "prio: want a 32-bit number or MAJ:MIN");
			s->prio = (uint32_t)v;
			s->have_prio = true;
		} else if (!strcmp(tok, "dscp")) {
			if (!parse_u64(val, 0, 63, &v))
				return class_error(spec, "dscp: want 0 .. 63");
			s->dscp = (int)v;
		} else if (!strcmp(tok, "pacing")) {
			if (!parse_with_unit(val, rate_units, 1, &d) || d < 8 || d > 400e9)
				return class_error(spec, "pacing: want bit/s 8 .. 400gbit");
			s->pacing = (uint64_t)(d / 8);
		} else if (!strcmp(tok, "target")) {
			if (!parse_with_unit(val, time_units, 1e3, &d) || d > 100e9)
				return class_error(spec, "target: want a time, 0 .. 100s (bare number: us)");
			s->target_ns = (int64_t)d;
		} else if (!strcmp(tok, "txtime")) {
			if (!parse_with_unit(val, time_units, 1e3, &d) || d < 1e3 || d > 10e9)
				return class_error(spec, "txtime: want a frame latency 1us .. 10s");
			s->txtime_ns = (int64_t)d;
		} else if (!strcmp(tok, "port")) {
			if (!parse_u64(val, 10, 65535, &v) || !v)
				return class_error(spec, "port: want 1 .. 65535");
			s->port = (uint16_t)v;
		} else if (!strcmp(tok, "dst")) {
			if (!*val || resolve(val, 0, &s->dst, &s->dst_len))
				return class_error(spec, "dst: want an IPv4 or IPv6 address");
			s->have_dst = true;
		} else if (!strcmp(tok, "id")) {
			if (!parse_u64(val, 10, MAX_CLASSES - 1, &v))
				return class_error(spec, "id: want 0 .. %d", MAX_CLASSES - 1);
			s->id = (uint8_t)v;
			s->have_id = true;
		} else if (!strcmp(tok, "flows")) {
			if (!parse_u64(val, 10, MAX_FLOWS, &v) || !v)
				return class_error(spec, "flows: want 1 .. 256");
			s->nflows = (uint16_t)v;
		} else if (!strcmp(tok, "flow")) {
			if (!parse_u64(val, 10, MAX_FLOWS - 1, &v))
				return class_error(spec, "flow: want 0 .. 255");
			s->first_flow = (uint16_t)v;
		} else if (!strcmp(tok, "allflows")) {
			if (!parse_u64(val, 10, MAX_FLOWS, &v) || !v)
				return class_error(spec, "allflows: want 1 .. 256");
			s->all_flows = (uint16_t)v;
		} else if (!strcmp(tok, "seed")) {
			if (!parse_u64(val, 0, UINT64_MAX, &v))
				return class_error(spec, "seed: want an unsigned number");
			s->tp.seed = v;
		} else {
			return class_error(spec, "unknown key '%s'", tok);
		}
	}
	if (!(s->tp.rate_bps > 0))
		return class_error(spec, "rate= is required");
	if (s->tp.min_size > s->tp.max_size)
		return class_error(spec, "min is above max");
	if (trace) {
		if (kind != TM_MULTIMEDIA)
			return class_error(spec, "trace= is for multimedia");
		f = fopen(trace, "r");
		if (!f)
			return class_error(spec, "trace %s: %s", trace, strerror(errno));
		if (tm_trace_parse(f, trace, &s->trace, err, sizeof(err))) {
			fclose(f);
			return class_error(spec, "%s", err);
		}
		fclose(f);
		s->tp.trace = &s->trace;
	}
	if (s->txtime_ns && kind != TM_MULTIMEDIA)
		return class_error(spec, "txtime= is for multimedia frames");
	/* flow ids are one byte on the wire */
	if (s->first_flow + s->nflows > MAX_FLOWS)
		return class_error(spec, "flow=%u with flows=%u: ids above 255",
				   s->first_flow, s->nflows);
	if (!s->all_flows)
		s->all_flows = (uint16_t)(s->first_flow + s->nflows);
	if (s->all_flows < s->first_flow + s->nflows)
		return class_error(spec, "allflows=%u is fewer than flow= + flows= (%u)",
				   s->all_flows, s->first_flow + s->nflows);
	return 0;
}
