/*
 * severity.c - the names of the incident severities; see severity.h.
 */
#include <errno.h>
#include <string.h>

#include "base/severity.h"

const char *const rv_severity_names[RV_SEV_COUNT + 1] = {
	[RV_SEV_MINOR] = "minor",
	[RV_SEV_MAJOR] = "major",
	[RV_SEV_CRITICAL] = "critical",
	[RV_SEV_COUNT] = NULL,
};

const char *rv_severity_name(enum rv_severity s)
{
	return (unsigned)s < RV_SEV_COUNT ? rv_severity_names[s] : NULL;
}

int rv_severity_parse(const char *s)
{
	for (int i = 0; s && i < RV_SEV_COUNT; i++)
		if (strcmp(s, rv_severity_names[i]) == 0)
			return i;
	return -EINVAL;
}
