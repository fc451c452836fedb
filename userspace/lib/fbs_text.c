// SPDX-License-Identifier: GPL-2.0
/*
 * fbs_text: FBS schedules as text (fbs_text.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fbs_text.h"

#define FBS_LINE_MAX	4096

void fbs_names_default(struct fbs_names *names, unsigned int n)
{
	unsigned int i;

	names->n = n;
	for (i = 0; i < n; i++) {
		if (n <= 26)
			snprintf(names->name[i], FBS_NAME_MAX, "%c", 'A' + i);
		else
			snprintf(names->name[i], FBS_NAME_MAX, "n%u", i);
	}
}

int fbs_name_find(const struct fbs_names *names, const char *name)
{
	unsigned int i;

	for (i = 0; i < names->n; i++)
		if (!strcmp(names->name[i], name))
			return (int)i;
	return -1;
}

static int fail(char *err, size_t errlen, const char *fname, unsigned int line,
		const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, "%s:%u: ", fname, line);
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool name_ok(const char *w)
{
	size_t i, n = strlen(w);

	if (!n || n >= FBS_NAME_MAX || !strcmp(w, "-") || !strcmp(w, "empty"))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)w[i]) && !strchr("_.-", w[i]))
			return false;
	return true;
}

/* Split @line into at most @max words; returns their number, or max + 1 */
static unsigned int words(char *line, char **w, unsigned int max)
{
	unsigned int n = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(line, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return max + 1;
		w[n++] = tok;
	}
	return n;
}

int fbs_text_read(FILE *f, const char *fname, struct fbs_sched *s,
		  struct fbs_names *names, char *err, size_t errlen)
{
	char buf[FBS_LINE_MAX], *w[FBS_MAX_NODES + 1], *hash;
	unsigned int line = 0, n, i, cap = 0;
	fq_u32 slots = 0;
	fq_u16 *row;

	memset(s, 0, sizeof(*s));
	names->n = 0;
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		if (!strchr(buf, '\n') && !feof(f)) {
			fail(err, errlen, fname, line, "line longer than %d characters",
			     FBS_LINE_MAX - 1);
			goto bad;
		}
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		n = words(buf, w, FBS_MAX_NODES);
		if (!n)
			continue;
		if (!names->n) {	/* the header: the nodes */
			if (n > FBS_MAX_NODES) {
				fail(err, errlen, fname, line, "more than %d nodes", FBS_MAX_NODES);
				goto bad;
			}
			for (i = 0; i < n; i++) {
				if (!name_ok(w[i])) {
					fail(err, errlen, fname, line,
					     "\"%s\" is not a node name (letters, digits, _ . -, up to %d characters; not \"-\" or \"empty\")",
					     w[i], FBS_NAME_MAX - 1);
					goto bad;
				}
				if (fbs_name_find(names, w[i]) >= 0) {
					fail(err, errlen, fname, line, "node %s named twice", w[i]);
					goto bad;
				}
				snprintf(names->name[names->n++], FBS_NAME_MAX, "%s", w[i]);
			}
			if (!fbs_sched_alloc(s, names->n, 1)) {
				fail(err, errlen, fname, line, "out of memory");
				goto bad;
			}
			cap = 1;
			continue;
		}
		if (!strcmp(w[0], "empty")) {	/* a run of idle slots */
			unsigned long k;
			char *end;

			errno = 0;
			k = n == 2 && isdigit((unsigned char)w[1][0]) ? strtoul(w[1], &end, 10) : 0;
			/* !k first: @end is set only when strtoul() ran */
			if (n != 2 || !k || errno || *end || k > FBS_MAX_SLOTS) {
				fail(err, errlen, fname, line, "want \"empty N\", N from 1 to %u",
				     FBS_MAX_SLOTS);
				goto bad;
			}
			if (slots + k > FBS_MAX_SLOTS) {
				fail(err, errlen, fname, line, "more than %u slots", FBS_MAX_SLOTS);
				goto bad;
			}
			slots += (fq_u32)k;
			continue;
		}
		if (n != names->n) {
			fail(err, errlen, fname, line, "%u word%s for %u nodes (\"-\" for an idle node)",
			     n, n == 1 ? "" : "s", names->n);
			goto bad;
		}
		if (slots + 1 > FBS_MAX_SLOTS) {
			fail(err, errlen, fname, line, "more than %u slots", FBS_MAX_SLOTS);
			goto bad;
		}
		/* room for this slot: grow the period geometrically */
		if (slots + 1 > cap) {
			fq_u32 want = cap * 2 > slots + 1 ? cap * 2 : slots + 1;

			if (want > FBS_MAX_SLOTS)
				want = FBS_MAX_SLOTS;
			s->slots = cap;
			if (!fbs_sched_extend(s, want)) {
				fail(err, errlen, fname, line, "out of memory");
				goto bad;
			}
			cap = want;
		}
		row = fbs_dst_at(s, slots, 0);
		for (i = 0; i < n; i++) {
			int d;

			if (!strcmp(w[i], "-")) {
				row[i] = FBS_IDLE;
				continue;
			}
			d = fbs_name_find(names, w[i]);
			if (d < 0) {
				fail(err, errlen, fname, line, "%s (for node %s) is not a node",
				     w[i], names->name[i]);
				goto bad;
			}
			row[i] = (fq_u16)d;
		}
		slots++;
	}
	if (ferror(f)) {
		fail(err, errlen, fname, line, "read error");
		goto bad;
	}
	if (!names->n) {
		fail(err, errlen, fname, line, "no nodes: the first line names them");
		goto bad;
	}
	if (!slots) {
		fail(err, errlen, fname, line, "no slots");
		goto bad;
	}
	/* the period as read: trailing empty runs may lie beyond cap */
	if (slots > cap) {
		s->slots = cap;
		if (!fbs_sched_extend(s, slots)) {
			fail(err, errlen, fname, line, "out of memory");
			goto bad;
		}
	}
	s->slots = slots;
	return 0;
bad:
	fbs_sched_free(s);
	return -1;
}

void fbs_text_write(FILE *out, const struct fbs_sched *s, const struct fbs_names *names)
{
	fq_u32 t, i, idle = 0;

	for (i = 0; i < s->nodes; i++)
		fprintf(out, "%s%s", i ? " " : "", names->name[i]);
	fputc('\n', out);
	for (t = 0; t < s->slots; t++) {
		bool any = false;

		for (i = 0; i < s->nodes; i++)
			any |= fbs_dst(s, t, i) != FBS_IDLE;
		if (!any) {
			idle++;
			continue;
		}
		if (idle)
			fprintf(out, "empty %u\n", idle);
		idle = 0;
		for (i = 0; i < s->nodes; i++) {
			fq_u16 d = fbs_dst(s, t, i);

			fprintf(out, "%s%s", i ? " " : "", d == FBS_IDLE ? "-" : names->name[d]);
		}
		fputc('\n', out);
	}
	if (idle)
		fprintf(out, "empty %u\n", idle);
}
