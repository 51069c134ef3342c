/*
 * severity.h - the three severities of an incident and their names, in one
 * table: explain/ rates incidents (rv_incident_severity), config/ reads
 * detect.report_severity, cli/ parses --min-severity, the renderers name
 * CSS classes. In base/ because config/ and explain/ share nothing else
 * that could hold it (config/ may not depend on explain/).
 */
#ifndef RV_BASE_SEVERITY_H
#define RV_BASE_SEVERITY_H

enum rv_severity { RV_SEV_MINOR, RV_SEV_MAJOR, RV_SEV_CRITICAL, RV_SEV_COUNT };

/* "minor", "major", "critical", then NULL (a key table's enum list). */
extern const char *const rv_severity_names[RV_SEV_COUNT + 1];

/* The name of s; NULL when s is out of range. */
const char *rv_severity_name(enum rv_severity s);

/* The severity named s (exact match), or -EINVAL. */
int rv_severity_parse(const char *s);

#endif
