/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_parse.h	command-line helpers shared by our tc plugins.
 *
 * The plugins read "KEYWORD VALUE ..." the way tc's own qdiscs do, and
 * refuse what they cannot parse with tc's wording: "Illegal "KEY"" for a
 * bad value, a keyword given twice, a keyword with no value.  Static
 * inline so each plugin stays one self-contained .so.
 */
#ifndef FABRIC_QOS_TC_PARSE_H
#define FABRIC_QOS_TC_PARSE_H

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "tc_abi.h"

static inline int tc_opt_illegal(const char *key)
{
	fprintf(stderr, "Illegal \"%s\"\n", key);
	return -1;
}

/* Remember that @key (attribute @attr) was given; once is enough. */
static inline int tc_opt_once(const char *kind, unsigned int *given, int attr,
			      const char *key)
{
	if (*given & (1U << attr)) {
		fprintf(stderr, "%s: \"%s\" is given twice\n", kind, key);
		return -1;
	}
	*given |= 1U << attr;
	return 0;
}

/* "on" 1, "off" 0; anything else -1, with tc's message for @key. */
static inline int tc_opt_on_off(const char *key, const char *arg)
{
	if (strcmp(arg, "on") == 0)
		return 1;
	if (strcmp(arg, "off") == 0)
		return 0;
	return tc_opt_illegal(key);
}

/* Step from a keyword to its value. */
static inline int tc_opt_next_arg(int *argc, char ***argv)
{
	if (*argc < 2) {
		fprintf(stderr, "Command line is not complete. Try option \"help\"\n");
		return -1;
	}
	(*argc)--;
	(*argv)++;
	return 0;
}

/* get_rate64() and get_time64() take a sign or "inf": want a number. */
static inline int tc_opt_starts_numeric(const char *arg)
{
	return isdigit((unsigned char)arg[0]) || arg[0] == '.';
}

/* TIME in ns: "20us", "1.5ms", "2s"; a bare number is nanoseconds. */
static inline int tc_opt_time(__u64 *ns, const char *arg)
{
	__s64 t;

	/* too large a value comes back negative from get_time64() */
	if (!tc_opt_starts_numeric(arg) || get_time64(&t, arg) || t < 0)
		return -1;
	*ns = t;
	return 0;
}

#endif
