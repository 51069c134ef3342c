/*
 * incident_write.c - incidents out: the JSON document and the table of
 * `reveal detect`, severity names and the subsystem ranking string.
 * Everything goes to a FILE* or buffer the caller owns.
 */
#include "explain/incident.h"

#include "base/json.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <string.h>

enum {
	TABLE_TOP_METRICS = 3,    /* metrics named per table row */
	TABLE_DET_WIDTH = 22,     /* detector column: fits "zscore,pca,iforest,spe" */
	ISO_TIME_LEN = 32,        /* "YYYY-MM-DDTHH:MM:SSZ" plus slack */
	PERCENT = 100,
};

static const char *chan_name(const struct rv_incmerge *m, uint32_t c)
{
	const char *s = rv_incmerge_chan_name(m, c);
	return s ? s : "";
}

/* JSON has no NaN or infinity: such a value is written as null. */
static void json_number(FILE *f, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("null", f);
}

/* Name of detector bit `bit`, or NULL when it has none (written "bit<n>"). */
static const char *det_name(unsigned bit, const char *const *det_names, size_t ndet)
{
	return det_names && bit < ndet ? det_names[bit] : NULL;
}

static void json_detectors(FILE *f, unsigned detectors, const char *const *det_names,
			   size_t ndet)
{
	int first = 1;
	fputc('[', f);
	for (unsigned b = 0; b < sizeof(detectors) * CHAR_BIT; b++) {
		if (!(detectors >> b & 1u))
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		const char *name = det_name(b, det_names, ndet);
		if (name)
			rv_json_fput_str(f, name);
		else
			fprintf(f, "\"bit%u\"", b);
	}
	fputc(']', f);
}

static void json_incident(FILE *f, const struct rv_incmerge *m, const struct rv_incident *in,
			  const char *const *det_names, size_t ndet)
{
	fprintf(f, "{\"id\":%" PRIu64 ",\"start\":", in->id);
	json_number(f, "%.3f", in->start_ts);
	fputs(",\"end\":", f);
	json_number(f, "%.3f", in->end_ts);
	fputs(",\"duration_s\":", f);
	json_number(f, "%.3f", in->end_ts - in->start_ts);
	fprintf(f, ",\"windows\":%zu,\"peak_score\":", in->flagged);
	json_number(f, "%.17g", in->peak_score);
	fputs(",\"mean_score\":", f);
	json_number(f, "%.17g", in->mean_score);
	fputs(",\"detectors\":", f);
	json_detectors(f, in->detectors, det_names, ndet);
	fputs(",\"subsystem\":", f);
	rv_json_fput_str(f, rv_subsystem_name(in->subsystem));
	fprintf(f, ",\"phase\":%u,\"follows\":", in->phase);
	if (in->follows)
		fprintf(f, "%" PRIu64, in->follows);
	else
		fputs("null", f);
	fputs(",\"top_metrics\":[", f);
	for (size_t i = 0; i < in->ntop; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		rv_json_fput_str(f, chan_name(m, in->top[i]));
		fputs(",\"share\":", f);
		json_number(f, "%.6f", in->top_weight[i]);
		fputc('}', f);
	}
	fputs("]}", f);
}

int rv_incident_write_json(FILE *f, const struct rv_incmerge *m, const char *const *det_names,
			   size_t ndet, size_t window)
{
	if (!f || !m)
		return -EINVAL;
	if (window)
		fprintf(f, "{\"window\":%zu,\"incidents\":[", window);
	else
		fputs("{\"incidents\":[", f);
	size_t n = rv_incmerge_count(m);

	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_incident(f, m, rv_incmerge_get(m, i), det_names, ndet);
	}
	fputs(n ? "\n]}\n" : "]}\n", f);
	return ferror(f) ? -EIO : 0;
}

/* "cpu:0.712,mem:0.204": subsystems with at least 1 % of the weight,
 * largest first. */
void rv_incident_rank_subsystems(const struct rv_incident *in, char *buf, size_t cap)
{
	int order[RV_SUB_COUNT], n = 0;
	size_t len = 0;

	for (int k = 0; k < RV_SUB_COUNT; k++) {
		int j = n++;

		for (; j > 0 && in->sub_share[order[j - 1]] < in->sub_share[k]; j--)
			order[j] = order[j - 1];
		order[j] = k;
	}
	buf[0] = '\0';
	for (int i = 0; i < n && len < cap; i++) {
		if (in->sub_share[order[i]] < 0.01)
			break;
		len += (size_t)snprintf(buf + len, cap - len, "%s%s:%.3f", i ? "," : "",
					rv_subsystem_name((enum rv_subsystem)order[i]),
					in->sub_share[order[i]]);
	}
	if (len >= cap)
		buf[0] = '\0';
}

const char *rv_incident_severity(double peak)
{
	return rv_severity_name(rv_incident_severity_of(peak));
}

enum rv_severity rv_incident_severity_of(double peak)
{
	return !(peak > RV_SEVERITY_MAJOR) ? RV_SEV_MINOR
	       : peak <= RV_SEVERITY_CRITICAL ? RV_SEV_MAJOR : RV_SEV_CRITICAL;
}

/*
 * Civil date from days since 1970-01-01 in the proleptic Gregorian calendar
 * (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"): shift the
 * epoch to 0000-03-01 so leap days fall at the end of the year, then split
 * into 400-year eras of 146097 days.
 */
enum {
	DAYS_0000_03_01_TO_EPOCH = 719468,
	DAYS_PER_ERA = 146097,
	YEARS_PER_ERA = 400,
	SECS_PER_DAY = 86400,
	SECS_PER_HOUR = 3600,
	SECS_PER_MIN = 60,
};
static const double ISO_MIN_TS = -62135596800.0;  /* 0001-01-01T00:00:00Z */
static const double ISO_MAX_TS = 253402300799.0;  /* 9999-12-31T23:59:59Z */

static void civil_from_days(int64_t days, int64_t *y, unsigned *mon, unsigned *d)
{
	int64_t z = days + DAYS_0000_03_01_TO_EPOCH;
	int64_t era = (z >= 0 ? z : z - (DAYS_PER_ERA - 1)) / DAYS_PER_ERA;
	int64_t doe = z - era * DAYS_PER_ERA;                                   /* [0, 146096] */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;    /* [0, 399] */
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                  /* [0, 365] */
	int64_t mp = (5 * doy + 2) / 153;                                       /* [0, 11], 0 = March */
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*mon = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * YEARS_PER_ERA + (*mon <= 2);
}

/* "2023-11-14T22:13:20Z" (seconds truncated towards the past), or the raw
 * number when ts is outside years 1..9999. */
static void format_iso_utc(double ts, char *buf, size_t len)
{
	if (!(ts >= ISO_MIN_TS && ts <= ISO_MAX_TS)) {
		snprintf(buf, len, "%.3f", ts);
		return;
	}
	int64_t secs = (int64_t)floor(ts);
	int64_t days = secs / SECS_PER_DAY;
	int64_t sod = secs % SECS_PER_DAY;
	if (sod < 0) {
		sod += SECS_PER_DAY;
		days--;
	}
	int64_t y;
	unsigned mon, d;
	civil_from_days(days, &y, &mon, &d);
	snprintf(buf, len, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02uZ", y, mon, d,
		 (unsigned)(sod / SECS_PER_HOUR), (unsigned)(sod % SECS_PER_HOUR / SECS_PER_MIN),
		 (unsigned)(sod % SECS_PER_MIN));
}

static void table_detectors(FILE *f, unsigned detectors, const char *const *det_names,
			    size_t ndet)
{
	int width = 0;
	for (unsigned b = 0; b < sizeof(detectors) * CHAR_BIT; b++) {
		if (!(detectors >> b & 1u))
			continue;
		if (width > 0)
			width += fprintf(f, ",");
		const char *name = det_name(b, det_names, ndet);
		int n = name ? fprintf(f, "%s", name) : fprintf(f, "bit%u", b);
		width += n > 0 ? n : 0;
	}
	if (width == 0)
		width = fprintf(f, "-");
	fprintf(f, "%*s", width < TABLE_DET_WIDTH ? TABLE_DET_WIDTH - width : 0, "");
}

static void table_row(FILE *f, const struct rv_incmerge *m, const struct rv_incident *in,
		      const char *const *det_names, size_t ndet)
{
	char start[ISO_TIME_LEN];
	format_iso_utc(in->start_ts, start, sizeof(start));
	fprintf(f, "%-4" PRIu64 " %-20s %9.1fs %7zu %10.3f  ", in->id, start,
		in->end_ts - in->start_ts, in->flagged, in->peak_score);
	table_detectors(f, in->detectors, det_names, ndet);
	fprintf(f, "  %-9s ", rv_subsystem_name(in->subsystem));
	size_t n = in->ntop < TABLE_TOP_METRICS ? in->ntop : TABLE_TOP_METRICS;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s (%.0f%%)", i ? ", " : "", chan_name(m, in->top[i]),
			in->top_weight[i] * PERCENT);
	fputs(n ? "\n" : "-\n", f);
}

int rv_incident_write_table(FILE *f, const struct rv_incmerge *m, const char *const *det_names,
			    size_t ndet)
{
	if (!f || !m)
		return -EINVAL;
	if (rv_incmerge_count(m) == 0) {
		fputs("no incidents\n", f);
		return ferror(f) ? -EIO : 0;
	}
	fprintf(f, "%-4s %-20s %10s %7s %10s  %-*s  %-9s %s\n", "id", "start", "duration",
		"windows", "peak", TABLE_DET_WIDTH, "detectors", "subsystem", "top metrics");
	for (size_t i = 0; i < rv_incmerge_count(m); i++)
		table_row(f, m, rv_incmerge_get(m, i), det_names, ndet);
	return ferror(f) ? -EIO : 0;
}
