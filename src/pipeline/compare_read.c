/*
 * compare_read.c - a per-window CSV of `reveal detect` (window_csv.h) read
 * back as a run of `reveal compare` (compare.h): its windows, and its
 * incidents formed again by explain/incident.c's merger, the code that
 * formed them in detect. The file is read one line at a time into a
 * buffer capped at RV_COMPARE_LINE_MAX; what stays per window is its
 * timestamp, flag and score, and per anomalous window the indices of its
 * first RV_COMPARE_RANK_MAX channels.
 */
#include "pipeline/compare.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/strparse.h"
#include "explain/incident.h"

enum {
	WINDOWS_MAX = 1 << 25,     /* a year of 1 s windows */
	CHANNELS_MAX = 1 << 20,
	LINE_START_BYTES = 4096,
};
#define NO_COL SIZE_MAX
/* Window indices skipped over a gap in the timestamps, at most: keeps the
 * merger's indices far from overflow whatever the file says. */
#define GAP_STEPS_MAX 1e9

struct reader {
	const char *path;
	FILE *f;
	struct rv_err *err;
	struct rv_compare_run *run;
	size_t line, blank_line;    /* the line read; the first blank line (0: none) */
	char *buf;
	size_t len, cap;
	size_t ncol, col_ts, col_anomaly, col_score, col_top;
	char **names;               /* channels of top_metrics, in order of first mention */
	uint32_t *sorted;           /* their indices, by name */
	size_t nname, capname;
	double *score;              /* per window */
	size_t capwin;
	uint32_t *rank;             /* RV_COMPARE_RANK_MAX per anomalous window */
	unsigned char *nrank;       /* per anomalous window */
	size_t nflag, capflag;
};

/* One parsed row before it is taken. */
struct row {
	double ts, score;
	int anomaly;
	uint32_t rank[RV_COMPARE_RANK_MAX];
	size_t nrank;
	size_t fields;
};

static void reader_free(struct reader *rd)
{
	for (size_t i = 0; i < rd->nname; i++)
		free(rd->names[i]);
	free(rd->names);
	free(rd->sorted);
	free(rd->buf);
	free(rd->score);
	free(rd->rank);
	free(rd->nrank);
}

static int oom(struct reader *rd)
{
	return rv_err_set(rd->err, -ENOMEM, "%s:%zu: out of memory", rd->path, rd->line);
}

/* Makes room for need elements of size elem in *p (capacity *cap). */
static int grow(void *p, size_t *cap, size_t need, size_t elem)
{
	void **pp = p;
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*pp, n * elem);
	if (!q)
		return -ENOMEM;
	*pp = q;
	*cap = n;
	return 0;
}

/* ------------------------------------------------------------- lines */

/* Reads the next line into rd->buf (NUL-terminated, without \r\n): 1, 0
 * at the end of the file, or a negative errno. */
static int read_line(struct reader *rd)
{
	int c;

	rd->len = 0;
	if (!rd->buf && grow(&rd->buf, &rd->cap, LINE_START_BYTES, 1))
		return oom(rd);
	while ((c = getc_unlocked(rd->f)) != EOF && c != '\n') {
		if (rd->len + 1 >= rd->cap) {
			size_t cap = rd->cap;
			if (rd->cap >= RV_COMPARE_LINE_MAX)
				return rv_err_set(rd->err, -E2BIG, "%s:%zu: line longer than %d bytes",
						  rd->path, rd->line + 1, RV_COMPARE_LINE_MAX);
			if (grow(&rd->buf, &cap, rd->cap ? rd->cap * 2 : LINE_START_BYTES, 1))
				return oom(rd);
			rd->cap = cap;
		}
		rd->buf[rd->len++] = (char)c;
	}
	if (ferror(rd->f))
		return rv_err_set(rd->err, -EIO, "%s:%zu: read error", rd->path, rd->line + 1);
	if (c == EOF && rd->len == 0)
		return 0;
	rd->line++;
	if (rd->len && rd->buf[rd->len - 1] == '\r')
		rd->len--;
	if (memchr(rd->buf, '\0', rd->len))
		return rv_err_set(rd->err, -EILSEQ, "%s:%zu: a NUL byte: not a text file (a gzip"
				  " file? decompress it first)", rd->path, rd->line);
	rd->buf[rd->len] = '\0';
	return 1;
}

/* The next field of the line at *p (up to ',' or the end) as [*s, *e);
 * *p moves past its comma. Returns 0 when no field is left. */
static int next_field(const char **p, const char *end, const char **s, const char **e)
{
	const char *c;

	if (!*p)
		return 0;
	c = memchr(*p, ',', (size_t)(end - *p));
	*s = *p;
	*e = c ? c : end;
	*p = c ? c + 1 : NULL;
	return 1;
}

/* ------------------------------------------------------------ header */

static int set_col(struct reader *rd, size_t *col, size_t k, const char *name)
{
	if (*col != NO_COL)
		return rv_err_set(rd->err, -EINVAL, "%s:1:%zu: a second '%s' column", rd->path, k + 1,
				  name);
	*col = k;
	return 0;
}

static int parse_header(struct reader *rd)
{
	static const char *const want[] = { "timestamp", "anomaly", "score", "top_metrics" };
	size_t *col[] = { &rd->col_ts, &rd->col_anomaly, &rd->col_score, &rd->col_top };
	const char *p, *end, *s, *e;
	int rc = read_line(rd);

	if (rc <= 0)
		return rc ? rc : rv_err_set(rd->err, -EINVAL, "%s: empty file: not a per-window"
					    " CSV of reveal detect", rd->path);
	rc = 0;
	p = rd->buf;
	end = rd->buf + rd->len;
	rd->col_ts = rd->col_anomaly = rd->col_score = rd->col_top = NO_COL;
	for (size_t k = 0; rc == 0 && next_field(&p, end, &s, &e); k++, rd->ncol++) {
		rv_str_skip_blank(&s, e);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		for (size_t w = 0; rc == 0 && w < sizeof(want) / sizeof(want[0]); w++)
			if (rv_str_eq(s, e, want[w]))
				rc = set_col(rd, col[w], k, want[w]);
	}
	if (rc == 0 && (rd->col_ts == NO_COL || rd->col_anomaly == NO_COL))
		rc = rv_err_set(rd->err, -EINVAL, "%s:1: no '%s' column: not a per-window CSV of"
				" reveal detect", rd->path,
				rd->col_ts == NO_COL ? "timestamp" : "anomaly");
	return rc;
}

/* --------------------------------------------------------------- rows */

static int cmp_name(const char *name, const char *s, size_t len)
{
	int c = strncmp(name, s, len);

	return c ? c : name[len] != '\0';
}

/* The index of channel [s, s + len), added when new. */
static int intern(struct reader *rd, const char *s, size_t len, uint32_t *out)
{
	size_t lo = 0, hi = rd->nname, cap = rd->capname;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_name(rd->names[rd->sorted[mid]], s, len);
		if (c == 0) {
			*out = rd->sorted[mid];
			return 0;
		}
		*(c < 0 ? &lo : &hi) = c < 0 ? mid + 1 : mid;
	}
	if (rd->nname == CHANNELS_MAX)
		return rv_err_set(rd->err, -E2BIG, "%s:%zu: more than %d channels in top_metrics",
				  rd->path, rd->line, CHANNELS_MAX);
	if (grow(&rd->names, &cap, rd->nname + 1, sizeof(*rd->names)) ||
	    grow(&rd->sorted, &rd->capname, rd->nname + 1, sizeof(*rd->sorted)))
		return oom(rd);
	if (!(rd->names[rd->nname] = strndup(s, len)))
		return oom(rd);
	memmove(rd->sorted + lo + 1, rd->sorted + lo, (rd->nname - lo) * sizeof(*rd->sorted));
	rd->sorted[lo] = (uint32_t)rd->nname;
	*out = (uint32_t)rd->nname++;
	return 0;
}

/* top_metrics: channel names separated by ';', most responsible first. */
static int parse_top(struct reader *rd, const char *s, const char *e, size_t k, struct row *r)
{
	while (s < e && r->nrank < RV_COMPARE_RANK_MAX) {
		const char *c = memchr(s, ';', (size_t)(e - s)), *t = c ? c : e;
		if (t == s)
			return rv_err_set(rd->err, -EINVAL, "%s:%zu:%zu: an empty channel name in"
					  " top_metrics", rd->path, rd->line, k + 1);
		int rc = intern(rd, s, (size_t)(t - s), &r->rank[r->nrank++]);
		if (rc)
			return rc;
		s = c ? c + 1 : e;
	}
	return 0;
}

static int bad_cell(struct reader *rd, size_t k, const char *s, const char *e, const char *want)
{
	return rv_err_set(rd->err, -EINVAL, "%s:%zu:%zu: '%.*s': want %s", rd->path, rd->line,
			  k + 1, (int)(e - s > 40 ? 40 : e - s), s, want);
}

static int parse_cell(struct reader *rd, size_t k, const char *s, const char *e, struct row *r)
{
	const char *p = s;

	if (k == rd->col_ts) {
		if (rv_str_double(&p, e, &r->ts) || p != e || !isfinite(r->ts))
			return bad_cell(rd, k, s, e, "a timestamp in unix seconds");
	} else if (k == rd->col_anomaly) {
		if (e - s != 1 || (*s != '0' && *s != '1'))
			return bad_cell(rd, k, s, e, "an anomaly flag of 0 or 1");
		r->anomaly = *s == '1';
	} else if (k == rd->col_score && s < e) {
		if (rv_str_double(&p, e, &r->score) || p != e)
			return bad_cell(rd, k, s, e, "a score");
		if (isnan(r->score))
			r->score = 0;
	} else if (k == rd->col_top) {
		return parse_top(rd, s, e, k, r);
	}
	return 0;
}

/* Room for need windows in the per-window arrays (one capacity). */
static int grow_windows(struct reader *rd, size_t need)
{
	struct rv_compare_run *run = rd->run;
	size_t n = rd->capwin ? rd->capwin : 64;
	double *ts, *score;
	unsigned char *an;

	if (need <= rd->capwin)
		return 0;
	while (n < need)
		n *= 2;
	if (!(ts = realloc(run->ts, n * sizeof(*ts))))
		return -ENOMEM;
	run->ts = ts;
	if (!(an = realloc(run->anomaly, n)))
		return -ENOMEM;
	run->anomaly = an;
	if (!(score = realloc(rd->score, n * sizeof(*score))))
		return -ENOMEM;
	rd->score = score;
	rd->capwin = n;
	return 0;
}

/* Room for need anomalous windows' rankings (one capacity). */
static int grow_flags(struct reader *rd, size_t need)
{
	size_t n = rd->capflag ? rd->capflag : 64;
	uint32_t *rank;
	unsigned char *nr;

	if (need <= rd->capflag)
		return 0;
	while (n < need)
		n *= 2;
	if (!(rank = realloc(rd->rank, n * RV_COMPARE_RANK_MAX * sizeof(*rank))))
		return -ENOMEM;
	rd->rank = rank;
	if (!(nr = realloc(rd->nrank, n)))
		return -ENOMEM;
	rd->nrank = nr;
	rd->capflag = n;
	return 0;
}

/* Keeps row r as the run's next window. */
static int take_row(struct reader *rd, const struct row *r)
{
	struct rv_compare_run *run = rd->run;

	if (run->nwin && !(r->ts > run->ts[run->nwin - 1]))
		return rv_err_set(rd->err, -EINVAL, "%s:%zu: timestamp %.17g is not after the"
				  " previous window's (%.17g)", rd->path, rd->line, r->ts,
				  run->ts[run->nwin - 1]);
	if (run->nwin == WINDOWS_MAX)
		return rv_err_set(rd->err, -E2BIG, "%s:%zu: more than %d windows", rd->path,
				  rd->line, WINDOWS_MAX);
	if (grow_windows(rd, run->nwin + 1))
		return oom(rd);
	run->ts[run->nwin] = r->ts;
	run->anomaly[run->nwin] = (unsigned char)r->anomaly;
	rd->score[run->nwin++] = r->score;
	if (!r->anomaly)
		return 0;
	if (grow_flags(rd, rd->nflag + 1))
		return oom(rd);
	memcpy(rd->rank + rd->nflag * RV_COMPARE_RANK_MAX, r->rank, r->nrank * sizeof(*r->rank));
	rd->nrank[rd->nflag++] = (unsigned char)r->nrank;
	return 0;
}

static int parse_row(struct reader *rd)
{
	const char *p = rd->buf, *end = rd->buf + rd->len, *s, *e;
	struct row r = { .score = 0 };
	int rc = 0;

	if (rd->len == 0) {   /* blank: allowed at the end only */
		if (!rd->blank_line)
			rd->blank_line = rd->line;
		return 0;
	}
	if (rd->blank_line)
		return rv_err_set(rd->err, -EINVAL, "%s:%zu: a blank line before more rows",
				  rd->path, rd->blank_line);
	while (rc == 0 && next_field(&p, end, &s, &e))
		rc = r.fields < rd->ncol ? parse_cell(rd, r.fields++, s, e, &r) : (r.fields++, 0);
	if (rc == 0 && r.fields != rd->ncol)
		rc = rv_err_set(rd->err, -EINVAL, "%s:%zu: row has %zu fields, header has %zu",
				rd->path, rd->line, r.fields, rd->ncol);
	return rc ? rc : take_row(rd, &r);
}

/* ---------------------------------------------------------- incidents */

/* Window indices from one timestamp to the next: 1, or more over a gap
 * (the windows missing count as unflagged for the merger's gap rule). */
static size_t steps_between(double t0, double t1, double step)
{
	double k = round((t1 - t0) / step);

	return k < 1 ? 1 : k > GAP_STEPS_MAX ? (size_t)GAP_STEPS_MAX : (size_t)k;
}

static int by_start(const void *x, const void *y)
{
	const struct rv_compare_incident *a = x, *b = y;

	if (a->start_ts != b->start_ts)
		return a->start_ts < b->start_ts ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int keep_incidents(struct reader *rd, const struct rv_incmerge *mg)
{
	for (size_t i = 0; i < rv_incmerge_count(mg); i++) {
		const struct rv_incident *x = rv_incmerge_get(mg, i);
		struct rv_compare_incident in = {
			.id = x->id, .start_ts = x->start_ts, .end_ts = x->end_ts,
			.windows = x->flagged, .subsystem = x->subsystem, .attributed = x->ntop > 0,
			.phase = x->phase ? x->phase : 1,
		};
		int rc = rv_compare_run_add(rd->run, &in, rd->err);
		if (rc)
			return rc;
	}
	if (rd->run->ninc)
		qsort(rd->run->inc, rd->run->ninc, sizeof(*rd->run->inc), by_start);
	return 0;
}

/* Pushes the windows through the merger detect runs (explain/incident.h):
 * an anomalous window's attribution is its ranked channels weighing 1,
 * 1/2, 1/3, ... */
static int form_incidents(struct reader *rd, size_t max_gap, size_t min_windows)
{
	const struct rv_compare_run *run = rd->run;
	struct rv_incmerge *mg = NULL;
	double *w = calloc(rd->nname ? rd->nname : 1, sizeof(*w));
	size_t idx = 0, f = 0;
	int rc = w ? rv_incmerge_new(rd->nname, (const char *const *)rd->names, max_gap,
				     min_windows, &mg, rd->err)
		   : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < run->nwin; i++) {
		const uint32_t *rk = run->anomaly[i] ? rd->rank + f * RV_COMPARE_RANK_MAX : NULL;
		size_t nr = run->anomaly[i] ? rd->nrank[f++] : 0;
		if (i)
			idx += steps_between(run->ts[i - 1], run->ts[i], run->step);
		for (size_t r = 0; r < nr; r++)
			w[rk[r]] = 1.0 / (double)(r + 1);
		rc = rv_incmerge_push(mg, idx, run->ts[i], run->anomaly[i], rd->score[i], 0,
				      nr ? w : NULL);
		for (size_t r = 0; r < nr; r++)
			w[rk[r]] = 0;
	}
	if (rc == 0)
		rc = rv_incmerge_finish(mg);
	if (rc == 0)
		rc = keep_incidents(rd, mg);
	if (rc == -ENOMEM)
		rv_err_set(rd->err, rc, "%s: out of memory forming incidents", rd->path);
	rv_incmerge_free(mg);
	free(w);
	return rc;
}

/* -------------------------------------------------------------- entry */

int rv_compare_read_stream(FILE *f, const char *path, size_t max_gap, size_t min_windows,
			   double default_step, struct rv_compare_run *out, struct rv_err *err)
{
	struct reader rd = { .path = path, .f = f, .err = err, .run = out };
	int rc;

	rv_compare_run_init(out, path, "csv", default_step);
	rc = parse_header(&rd);
	while (rc == 0 && (rc = read_line(&rd)) > 0)
		rc = parse_row(&rd);
	if (rc == 0 && out->nwin == 0)
		rc = rv_err_set(err, -EINVAL, "%s: no windows, only a header", path);
	if (rc == 0 && out->nwin > 1) {
		out->step = rv_median_step(out->ts, out->nwin);
		if (isnan(out->step))
			rc = oom(&rd);
	}
	if (rc == 0)
		rc = form_incidents(&rd, max_gap, min_windows);
	reader_free(&rd);
	return rc;
}

int rv_compare_read_csv(const char *path, size_t max_gap, size_t min_windows,
			double default_step, struct rv_compare_run *out, struct rv_err *err)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		int e = errno;
		rv_compare_run_init(out, path, "csv", default_step);
		return rv_err_set(err, -e, "%s: %s", path, rv_strerror(-e));
	}
	rc = rv_compare_read_stream(f, path, max_gap, min_windows, default_step, out, err);
	fclose(f);
	return rc;
}
