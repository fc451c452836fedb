/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fbs_text: FBS schedules as text, read and written by fbs-sched and
 * qsim fbs (Documentation/fbs.rst).
 *
 *   # the paper's Fig. 5
 *   A B C D          the nodes, in column order
 *   A - - -          slot 1: A sends to A, the others are idle
 *   - - - A          slot 2: D sends to A
 *   - - A -
 *   - A - -
 *   empty 832        832 slots in which nobody sends
 *
 * One line per slot with one word per node: the destination's name, or
 * "-" for an idle slot.  '#' starts a comment; blank lines are skipped.
 */
#ifndef FQ_FBS_TEXT_H
#define FQ_FBS_TEXT_H

#include <stdio.h>

#include "core/fbs_sched.h"

#define FBS_NAME_MAX	16

struct fbs_names {
	unsigned int n;
	char name[FBS_MAX_NODES][FBS_NAME_MAX];
};

/*
 * Read a schedule from @f (@fname for messages).  0 on success; else -1
 * with a "FILE:LINE: reason" message in @err.  @s is allocated on success
 * (fbs_sched_free()).
 */
int fbs_text_read(FILE *f, const char *fname, struct fbs_sched *s,
		  struct fbs_names *names, char *err, size_t errlen);

/* Write @s as text; runs of idle slots as "empty N". */
void fbs_text_write(FILE *out, const struct fbs_sched *s, const struct fbs_names *names);

/* A..Z for up to 26 nodes, else n0, n1, ... */
void fbs_names_default(struct fbs_names *names, unsigned int n);

/* The index of node @name, or -1. */
int fbs_name_find(const struct fbs_names *names, const char *name);

#endif
