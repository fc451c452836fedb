// SPDX-License-Identifier: GPL-2.0
/*
 * traffic_model.c: message sizes and generation times of the measurement
 * tool's traffic classes; see traffic_model.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "traffic_model.h"

static const char *const tm_kind_names[TM_KINDS] = {
	[TM_CONTROL] = "control",
	[TM_MULTIMEDIA] = "multimedia",
	[TM_BESTEFFORT] = "besteffort",
	[TM_BACKGROUND] = "background",
	[TM_CBR] = "cbr",
};

/* Relative sizes of the synthetic group of pictures, I B B P B B ... */
static const char tm_gop[] = "IBBPBBPBBPBB";
#define TM_GOP_LEN	(sizeof(tm_gop) - 1)
#define TM_W_I		5.0
#define TM_W_P		2.0
#define TM_W_B		1.0
/* Each synthetic frame varies by up to this fraction around its type's size. */
#define TM_GOP_SPREAD	0.2
#define TM_BURST_ALPHA	1.5

const char *tm_kind_name(enum tm_kind kind)
{
	return kind < TM_KINDS ? tm_kind_names[kind] : "?";
}

int tm_kind_parse(const char *name)
{
	int k;

	for (k = 0; k < TM_KINDS; k++)
		if (!strcmp(name, tm_kind_names[k]))
			return k;
	return -1;
}

void tm_rng_seed(struct tm_rng *r, uint64_t seed)
{
	/* splitmix64 of the seed: any seed, 0 included, gives a good state */
	uint64_t z = seed + 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	r->s = z ? z : 1;
}

uint64_t tm_rng_next(struct tm_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

double tm_rng_unit(struct tm_rng *r)
{
	return ((tm_rng_next(r) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

double tm_exp(struct tm_rng *r, double mean)
{
	return -mean * log(tm_rng_unit(r));
}

double tm_pareto(struct tm_rng *r, double alpha, double lo, double hi)
{
	double u = 1.0 - tm_rng_unit(r);	/* [0, 1) */
	double k = 1.0 - pow(lo / hi, alpha);
	double x = lo / pow(1.0 - u * k, 1.0 / alpha);

	return x < lo ? lo : x > hi ? hi : x;
}

double tm_pareto_mean(double alpha, double lo, double hi)
{
	double k = 1.0 - pow(lo / hi, alpha);

	if (fabs(alpha - 1.0) < 1e-9)
		return hi * lo / (hi - lo) * log(hi / lo);
	return pow(lo, alpha) / k * alpha / (alpha - 1.0) *
	       (pow(lo, 1.0 - alpha) - pow(hi, 1.0 - alpha));
}

double tm_pareto_tail(double alpha, double lo, double hi, double x)
{
	if (x <= lo)
		return 1.0;
	if (x >= hi)
		return 0.0;
	return (pow(lo / x, alpha) - pow(lo / hi, alpha)) / (1.0 - pow(lo / hi, alpha));
}

/* ---- frame-size traces ------------------------------------------------------ */

static int trace_error(char *err, size_t errlen, const char *name,
		       unsigned long line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, "%s:%lu: ", name, line);
	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

void tm_trace_free(struct tm_trace *t)
{
	free(t->size);
	t->size = NULL;
	t->n = 0;
	t->mean = 0;
}

int tm_trace_parse(FILE *f, const char *name, struct tm_trace *t,
		   char *err, size_t errlen)
{
	char buf[256], *p, *end;
	unsigned long line = 0;
	unsigned long long v;
	size_t cap = 0;
	double sum = 0;
	uint32_t *ns;

	*t = (struct tm_trace){ 0 };
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		if (!strchr(buf, '\n') && !feof(f)) {
			tm_trace_free(t);
			return trace_error(err, errlen, name, line, "line too long");
		}
		p = buf;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		if (strchr("IPBipb", *p) && isspace((unsigned char)p[1])) {
			p++;
			while (isspace((unsigned char)*p))
				p++;
		}
		if (!isdigit((unsigned char)*p)) {
			tm_trace_free(t);
			return trace_error(err, errlen, name, line,
					   "want \"SIZE\" or \"I|P|B SIZE\", got \"%.*s\"",
					   (int)strcspn(buf, "\r\n"), buf);
		}
		errno = 0;
		v = strtoull(p, &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		if (errno || *end) {
			tm_trace_free(t);
			return trace_error(err, errlen, name, line,
					   "trailing text after the size: \"%.*s\"",
					   (int)strcspn(end, "\r\n"), end);
		}
		if (v < 1 || v > TM_TRACE_MAX_SIZE) {
			tm_trace_free(t);
			return trace_error(err, errlen, name, line,
					   "frame size %llu out of range 1 .. %u bytes",
					   v, TM_TRACE_MAX_SIZE);
		}
		if (t->n == TM_TRACE_MAX_FRAMES) {
			tm_trace_free(t);
			return trace_error(err, errlen, name, line,
					   "more than %d frames", TM_TRACE_MAX_FRAMES);
		}
		if (t->n == cap) {
			cap = cap ? cap * 2 : 256;
			ns = realloc(t->size, cap * sizeof(*ns));
			if (!ns) {
				tm_trace_free(t);
				return trace_error(err, errlen, name, line, "out of memory");
			}
			t->size = ns;
		}
		t->size[t->n++] = (uint32_t)v;
		sum += (double)v;
	}
	if (ferror(f)) {
		tm_trace_free(t);
		return trace_error(err, errlen, name, line, "read error");
	}
	if (!t->n)
		return trace_error(err, errlen, name, line, "no frame sizes in the trace");
	t->mean = sum / (double)t->n;
	return 0;
}

/* ---- models ------------------------------------------------------------------ */

void tm_params_default(struct tm_params *p, enum tm_kind kind)
{
	*p = (struct tm_params){ .kind = kind, .alpha = 1.2, .burst_mean = 8 };
	switch (kind) {
	case TM_CONTROL:
		p->min_size = 128;
		p->max_size = 2048;
		break;
	case TM_MULTIMEDIA:
		p->min_size = 1024;
		p->max_size = 120 * 1024;
		p->interval_ns = 40e6;
		break;
	case TM_BESTEFFORT:
	case TM_BACKGROUND:
		p->min_size = 128;
		p->max_size = 100 * 1024;
		break;
	case TM_CBR:
	default:
		p->min_size = p->max_size = 1000;
		break;
	}
}

static int model_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static double gop_weight(char type)
{
	return type == 'I' ? TM_W_I : type == 'P' ? TM_W_P : TM_W_B;
}

int tm_model_init(struct tm_model *m, const struct tm_params *p,
		  char *err, size_t errlen)
{
	double wsum = 0;
	size_t i;

	*m = (struct tm_model){ .p = *p };
	if (p->kind >= TM_KINDS)
		return model_error(err, errlen, "unknown traffic kind");
	if (!(p->rate_bps > 0) || !isfinite(p->rate_bps))
		return model_error(err, errlen, "rate must be > 0");
	if (p->min_size < 1 || p->min_size > p->max_size)
		return model_error(err, errlen, "sizes: want 1 <= min <= max, got %u .. %u",
				   p->min_size, p->max_size);
	tm_rng_seed(&m->rng, p->seed);

	switch (p->kind) {
	case TM_CONTROL:
		m->mean_size = (p->min_size + p->max_size) / 2.0;
		m->next_ns = tm_exp(&m->rng, m->mean_size * 8e9 / p->rate_bps);
		break;
	case TM_CBR:
		if (p->min_size != p->max_size)
			return model_error(err, errlen, "cbr: one size (min = max)");
		m->mean_size = p->min_size;
		m->gap_ns = m->mean_size * 8e9 / p->rate_bps;
		break;
	case TM_MULTIMEDIA:
		if (!(p->interval_ns > 0))
			return model_error(err, errlen, "multimedia: interval must be > 0");
		m->mean_size = p->rate_bps * p->interval_ns / 8e9;
		if (m->mean_size < p->min_size || m->mean_size > p->max_size)
			return model_error(err, errlen,
					   "multimedia: mean frame of %.0f bytes (rate x interval) is outside %u .. %u",
					   m->mean_size, p->min_size, p->max_size);
		if (p->trace) {
			if (!p->trace->n || !(p->trace->mean > 0))
				return model_error(err, errlen, "multimedia: empty trace");
			m->scale = m->mean_size / p->trace->mean;
			m->pos = p->phase % p->trace->n;
		} else {
			m->pos = p->phase % TM_GOP_LEN;
			for (i = 0; i < TM_GOP_LEN; i++)
				wsum += gop_weight(tm_gop[i]);
			m->scale = m->mean_size / (wsum / TM_GOP_LEN);
		}
		break;
	case TM_BESTEFFORT:
	case TM_BACKGROUND:
		if (!(p->alpha > 0) || p->alpha > 10)
			return model_error(err, errlen, "alpha must be in (0, 10]");
		if (!(p->burst_mean >= 1) || p->burst_mean > 1e6)
			return model_error(err, errlen, "burst must be 1 .. 1000000 messages");
		m->mean_size = p->min_size == p->max_size ? p->min_size :
			       tm_pareto_mean(p->alpha, p->min_size, p->max_size);
		m->burst_alpha = TM_BURST_ALPHA;
		break;
	default:
		break;
	}
	return 0;
}

static uint32_t clamp_size(const struct tm_model *m, double x)
{
	if (x < m->p.min_size)
		return m->p.min_size;
	if (x > m->p.max_size)
		return m->p.max_size;
	return (uint32_t)llround(x);
}

/* Messages in the next burst: bounded Pareto with mean about burst_mean. */
static uint32_t burst_length(struct tm_model *m)
{
	double a = m->burst_alpha;
	double lo = m->p.burst_mean * (a - 1.0) / a;
	double n;

	if (lo < 1.0)
		lo = 1.0;
	n = tm_pareto(&m->rng, a, lo, 100.0 * lo);
	return n < 1.5 ? 1 : (uint32_t)llround(n);
}

void tm_model_next(struct tm_model *m, struct tm_msg *msg)
{
	const struct tm_params *p = &m->p;
	double x;

	switch (p->kind) {
	case TM_CONTROL:
		msg->at_ns = m->next_ns;
		msg->size = p->min_size +
			    (uint32_t)(tm_rng_next(&m->rng) % (p->max_size - p->min_size + 1));
		m->next_ns += tm_exp(&m->rng, m->mean_size * 8e9 / p->rate_bps);
		return;
	case TM_CBR:
		msg->at_ns = m->next_ns;
		msg->size = p->min_size;
		m->next_ns += m->gap_ns;
		return;
	case TM_MULTIMEDIA:
		msg->at_ns = m->next_ns;
		if (p->trace) {
			x = p->trace->size[m->pos] * m->scale;
			m->pos = (m->pos + 1) % p->trace->n;
		} else {
			x = gop_weight(tm_gop[m->pos]) * m->scale;
			x *= 1.0 + TM_GOP_SPREAD * (2.0 * tm_rng_unit(&m->rng) - 1.0);
			m->pos = (m->pos + 1) % TM_GOP_LEN;
		}
		msg->size = clamp_size(m, x);
		m->next_ns += p->interval_ns;
		return;
	case TM_BESTEFFORT:
	case TM_BACKGROUND:
	default:
		if (!m->burst_left) {
			/* the previous burst's bytes at the mean rate, then the next */
			m->next_ns += m->burst_bytes * 8e9 / p->rate_bps;
			m->burst_bytes = 0;
			m->burst_left = burst_length(m);
		}
		msg->at_ns = m->next_ns;
		msg->size = p->min_size == p->max_size ? p->min_size :
			    clamp_size(m, tm_pareto(&m->rng, p->alpha, p->min_size, p->max_size));
		m->burst_bytes += msg->size;
		m->burst_left--;
		return;
	}
}
