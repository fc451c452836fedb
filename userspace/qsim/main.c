// SPDX-License-Identifier: GPL-2.0
/*
 * qsim entry point: dispatch to a subcommand (see qsim.h).
 */
#include <stdio.h>
#include <string.h>

#include "qsim.h"

/*
 * Subcommands link in only when their file exists; the weak references let
 * the tool build while a family is still being written.
 */
#pragma weak qsim_cmd_port
#pragma weak qsim_cmd_table
#pragma weak qsim_cmd_lanes
#pragma weak qsim_cmd_switch
#pragma weak qsim_cmd_fbs
#pragma weak qsim_cmd_recn

static const struct qsim_cmd *const qsim_cmds[] = {
	&qsim_cmd_port,
	&qsim_cmd_table,
	&qsim_cmd_lanes,
	&qsim_cmd_switch,
	&qsim_cmd_fbs,
	&qsim_cmd_recn,
};

static void qsim_usage(FILE *out)
{
	unsigned int i;

	fprintf(out, "usage: qsim COMMAND [options]   (qsim COMMAND --help)\n\ncommands:\n");
	for (i = 0; i < sizeof(qsim_cmds) / sizeof(qsim_cmds[0]); i++)
		if (qsim_cmds[i])
			fprintf(out, "  %-8s %s\n", qsim_cmds[i]->name,
				qsim_cmds[i]->summary);
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		qsim_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < sizeof(qsim_cmds) / sizeof(qsim_cmds[0]); i++)
		if (qsim_cmds[i] && !strcmp(argv[1], qsim_cmds[i]->name))
			return qsim_cmds[i]->main(argc - 1, argv + 1);
	fprintf(stderr, "qsim: unknown command '%s'\n", argv[1]);
	qsim_usage(stderr);
	return 2;
}
