// SPDX-License-Identifier: GPL-2.0
/*
 * What the trace-driven subcommands share: per-flow sequence numbers to
 * tell whether a flow left in the order it arrived.
 */
#include <stdlib.h>
#include <string.h>

#include "qsim.h"

struct qsim_flow *qsim_flow_of(struct qsim_flow **flows, size_t *nflows,
			       uint32_t id)
{
	struct qsim_flow *f;
	size_t i;

	for (i = 0; i < *nflows; i++)
		if ((*flows)[i].id == id)
			return &(*flows)[i];
	f = realloc(*flows, (*nflows + 1) * sizeof(**flows));
	if (!f)
		return NULL;
	*flows = f;
	f = &f[(*nflows)++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	return f;
}

bool qsim_flow_departs(struct qsim_flow *f, uint64_t seq)
{
	bool in_order = f->last_dep_seq <= seq;

	f->last_dep_seq = seq + 1;
	return in_order;
}

int qsim_reserve(void **arr, size_t *cap, size_t n, size_t size)
{
	void *na;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 1024;
	na = realloc(*arr, ncap * size);
	if (!na)
		return -1;
	*arr = na;
	*cap = ncap;
	return 0;
}

char *qsim_trace_data(char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	return *line == '#' || *line == '\n' || !*line ? NULL : line;
}
