/*
 * csv.c - the CSV / CSV.gz reader behind `reveal detect` and the offline
 * pipeline. See csv.h for the format.
 *
 * The file is read through zlib in large chunks (gzread passes plain files
 * through unchanged, so one path serves both) and split into lines here, so
 * a line may be of any length. Rows are appended row-major to a buffer that
 * grows geometrically and are transposed once at the end into the
 * column-major struct rv_table.
 *
 * Choices the header leaves open:
 * - Column names are taken literally after trimming spaces; a name holding a
 *   double quote is refused ("quoted column names are not supported"): the
 *   reader does no CSV quoting at all.
 * - A row with the wrong number of fields is reported without a column:
 *   "PATH:LINE: row has N fields, header has M". A bad cell in a row that
 *   also has the wrong field count is reported as the field count error.
 * - A blank line (only spaces or "\r") before another non-blank line is an
 *   error "PATH:LINE: blank line"; blank lines at the end are ignored.
 * - A leading UTF-8 byte order mark is skipped.
 * - A finite number too large for float32 is an error, not an infinity.
 */
#include "record/csv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/bigmem.h"
#include "base/strparse.h"

enum {
	READ_CHUNK_BYTES = 256 * 1024,  /* one gzread, and the zlib buffer */
	INITIAL_ROWS = 1024,            /* row capacity before the first doubling */
	CELL_SHOW_MAX = 64,             /* characters of a bad cell quoted in messages */
	TS_TEXT_MAX = 64,               /* characters of the previous timestamp kept */
	TRANSPOSE_BLOCK_ROWS = 256,     /* rows per cache block while transposing */
};

static const char TS_COLUMN[] = "timestamp";
static const char UTF8_BOM[] = "\xef\xbb\xbf";

struct reader {
	const char *path;
	struct rv_err *err;
	size_t line;            /* 1-based number of the line being parsed */
	const char *line_s;     /* the line being parsed, for error paths */
	const char *line_e;
	size_t blank_line;      /* first of a run of blank lines, 0 if none */
	int have_header;
	size_t nfields;         /* fields per line, timestamp included */
	size_t ts_field;        /* field index of the timestamp, SIZE_MAX if none */
	size_t ncols;           /* channels */
	char **names;           /* ncols channel names */
	size_t nrows, cap;      /* rows stored, rows allocated */
	float *rows;            /* row-major cap * ncols */
	double *ts;             /* cap timestamps when ts_field is set */
	char prev_ts[TS_TEXT_MAX];
	struct rv_table_stats stats;
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void trim(const char **s, const char **e)
{
	while (*s < *e && is_blank(**s))
		(*s)++;
	while (*e > *s && is_blank((*e)[-1]))
		(*e)--;
}

static const char *field_end(const char *s, const char *e)
{
	const char *comma = memchr(s, ',', (size_t)(e - s));

	return comma ? comma : e;
}

static size_t count_fields(const char *s, const char *e)
{
	size_t n = 1;

	while ((s = memchr(s, ',', (size_t)(e - s))) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* Channel index of field f (the timestamp field is not a channel). */
static size_t field_col(const struct reader *r, size_t f)
{
	return f > r->ts_field ? f - 1 : f;
}

static int ragged_error(struct reader *r, size_t have)
{
	return rv_err_set(r->err, -EINVAL, "%s:%zu: row has %zu fields, header has %zu",
			  r->path, r->line, have, r->nfields);
}

/*
 * "PATH:LINE:COL: <what> '<cell>'<after> in column 'NAME'" about the cell
 * [s, e) in field f (no quoted cell when it is empty, no column name for
 * the timestamp). A field count error takes precedence, since a missing
 * comma shifts every later cell.
 */
static int cell_error(struct reader *r, size_t f, const char *what,
		      const char *after, const char *s, const char *e)
{
	size_t have = count_fields(r->line_s, r->line_e);
	int len = (int)(e - s < CELL_SHOW_MAX ? e - s : CELL_SHOW_MAX);
	const char *qo = s == e ? "" : " '", *qc = s == e ? "" : "'";

	if (have != r->nfields)
		return ragged_error(r, have);
	if (f == r->ts_field)
		return rv_err_set(r->err, -EINVAL, "%s:%zu:%zu: %s%s%.*s%s%s",
				  r->path, r->line, f + 1, what, qo, len, s, qc, after);
	return rv_err_set(r->err, -EINVAL, "%s:%zu:%zu: %s%s%.*s%s%s in column '%s'",
			  r->path, r->line, f + 1, what, qo, len, s, qc, after,
			  r->names[field_col(r, f)]);
}

/* Open-addressing set of column names, only to find duplicates in O(n). */
static int check_duplicates(struct reader *r, char **all, size_t n)
{
	size_t size = 2, *slot;
	int rc = 0;

	while (size < 2 * n)
		size *= 2;
	slot = malloc(size * sizeof(*slot));
	if (!slot)
		return rv_err_set(r->err, -ENOMEM, "%s: out of memory", r->path);
	memset(slot, 0xff, size * sizeof(*slot));
	for (size_t f = 0; f < n && rc == 0; f++) {
		uint64_t h = 14695981039346656037ULL;   /* FNV-1a offset basis */
		for (const char *c = all[f]; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;   /* FNV prime */
		size_t i = (size_t)h & (size - 1);
		while (slot[i] != SIZE_MAX && strcmp(all[slot[i]], all[f]) != 0)
			i = (i + 1) & (size - 1);
		if (slot[i] == SIZE_MAX)
			slot[i] = f;
		else
			rc = rv_err_set(r->err, -EINVAL,
					"%s:1:%zu: duplicate column name '%s' (also column %zu)",
					r->path, f + 1, all[f], slot[i] + 1);
	}
	free(slot);
	return rc;
}

/* Splits the header into all[0..n) (owned copies), checking each name. */
static int split_header(struct reader *r, const char *s, const char *e,
			char **all, size_t n)
{
	for (size_t f = 0; f < n; f++) {
		const char *fe = field_end(s, e), *ns = s, *ne = fe;

		trim(&ns, &ne);
		if (ns == ne)
			return rv_err_set(r->err, -EINVAL, "%s:1:%zu: empty column name",
					  r->path, f + 1);
		if (memchr(ns, '"', (size_t)(ne - ns)))
			return rv_err_set(r->err, -EINVAL,
					  "%s:1:%zu: quoted column names are not supported",
					  r->path, f + 1);
		all[f] = strndup(ns, (size_t)(ne - ns));
		if (!all[f])
			return rv_err_set(r->err, -ENOMEM, "%s: out of memory", r->path);
		s = fe + 1;
	}
	return 0;
}

/* Moves the channel names out of all[] into r->names; frees the rest. */
static int take_names(struct reader *r, char **all, size_t n)
{
	r->ts_field = SIZE_MAX;
	for (size_t f = 0; f < n; f++)
		if (strcmp(all[f], TS_COLUMN) == 0)
			r->ts_field = f;
	r->nfields = n;
	r->ncols = n - (r->ts_field != SIZE_MAX);
	if (r->ncols == 0)
		return rv_err_set(r->err, -EINVAL, "%s:1: no channel columns", r->path);
	r->names = calloc(r->ncols, sizeof(*r->names));
	if (!r->names)
		return rv_err_set(r->err, -ENOMEM, "%s: out of memory", r->path);
	for (size_t f = 0; f < n; f++) {
		if (f == r->ts_field)
			continue;
		r->names[field_col(r, f)] = all[f];
		all[f] = NULL;
	}
	return 0;
}

static int parse_header(struct reader *r, const char *s, const char *e)
{
	size_t n, bom = sizeof(UTF8_BOM) - 1;
	char **all;
	int rc;

	if ((size_t)(e - s) >= bom && memcmp(s, UTF8_BOM, bom) == 0)
		s += bom;
	n = count_fields(s, e);
	all = calloc(n, sizeof(*all));
	if (!all)
		return rv_err_set(r->err, -ENOMEM, "%s: out of memory", r->path);
	rc = split_header(r, s, e, all, n);
	if (rc == 0)
		rc = check_duplicates(r, all, n);
	if (rc == 0)
		rc = take_names(r, all, n);
	for (size_t f = 0; f < n; f++)
		free(all[f]);
	free(all);
	r->have_header = 1;
	return rc;
}

/* Doubles the row storage when it is full. */
static int reserve_row(struct reader *r)
{
	size_t cap = r->cap ? 2 * r->cap : INITIAL_ROWS;
	float *rows;

	if (r->nrows < r->cap)
		return 0;
	if (cap > SIZE_MAX / sizeof(float) / r->ncols)
		return rv_err_set(r->err, -ENOMEM, "%s: too many rows", r->path);
	rows = rv_big_realloc(r->rows, cap * r->ncols * sizeof(*rows));
	if (!rows)
		return rv_err_set(r->err, -ENOMEM, "%s: out of memory", r->path);
	r->rows = rows;
	if (r->ts_field != SIZE_MAX) {
		double *ts = realloc(r->ts, cap * sizeof(*ts));
		if (!ts)
			return rv_err_set(r->err, -ENOMEM, "%s: out of memory", r->path);
		r->ts = ts;
	}
	r->cap = cap;
	return 0;
}

static int parse_value(struct reader *r, size_t f, const char *s, const char *e,
		       float *out)
{
	const char *p;
	double v;
	int rc;

	trim(&s, &e);
	if (s == e) {
		r->stats.empty_cells++;
		*out = NAN;
		return 0;
	}
	p = s;
	rc = rv_str_double(&p, e, &v);
	if (rc == -ERANGE)
		return cell_error(r, f, "value", " out of float range", s, e);
	if (rc != 0 || p != e)
		return cell_error(r, f, "non-numeric value", "", s, e);
	if (isfinite(v)) {
		*out = (float)v;
		if (isinf(*out))
			return cell_error(r, f, "value", " out of float range", s, e);
		return 0;
	}
	if (isnan(v))
		r->stats.nan_cells++;
	else
		r->stats.inf_cells++;
	*out = NAN;
	return 0;
}

static int parse_stamp(struct reader *r, size_t f, const char *s, const char *e,
		       double *out)
{
	const char *p;
	size_t len;

	trim(&s, &e);
	if (s == e)
		return cell_error(r, f, "empty timestamp", "", s, e);
	p = s;
	if (rv_str_double(&p, e, out) == 0 && p == e) {
		if (!isfinite(*out))
			return cell_error(r, f, "non-finite timestamp", "", s, e);
	} else if (rv_csv_parse_time(s, e, out) != 0) {
		return cell_error(r, f, "unparsable timestamp", "", s, e);
	}
	len = (size_t)(e - s) < TS_TEXT_MAX - 1 ? (size_t)(e - s) : TS_TEXT_MAX - 1;
	if (r->nrows > 0 && *out < r->ts[r->nrows - 1]) {
		if (count_fields(r->line_s, r->line_e) != r->nfields)
			return ragged_error(r, count_fields(r->line_s, r->line_e));
		return rv_err_set(r->err, -EINVAL,
				  "%s:%zu:%zu: timestamp %.*s is earlier than the previous row's %s",
				  r->path, r->line, f + 1, (int)len, s, r->prev_ts);
	}
	memcpy(r->prev_ts, s, len);
	r->prev_ts[len] = '\0';
	return 0;
}

static int parse_row(struct reader *r, const char *s, const char *e)
{
	float *dst;
	const char *p = s;
	int rc = reserve_row(r);

	if (rc)
		return rc;
	dst = r->rows + r->nrows * r->ncols;
	for (size_t f = 0; f < r->nfields; f++) {
		const char *fe = field_end(p, e);

		if (fe == e && f + 1 < r->nfields)
			return ragged_error(r, f + 1);
		if (f == r->ts_field)
			rc = parse_stamp(r, f, p, fe, &r->ts[r->nrows]);
		else
			rc = parse_value(r, f, p, fe, dst++);
		if (rc)
			return rc;
		p = fe + 1;
	}
	if (p <= e)
		return ragged_error(r, count_fields(s, e));
	r->nrows++;
	return 0;
}

/* One line [s, e) without its '\n'. */
static int parse_line(struct reader *r, const char *s, const char *e)
{
	const char *ts = s, *te;

	r->line++;
	if (e > s && e[-1] == '\r')
		e--;
	te = e;
	trim(&ts, &te);
	if (ts == te) {
		if (!r->blank_line)
			r->blank_line = r->line;
		return 0;
	}
	if (r->blank_line)
		return rv_err_set(r->err, -EINVAL, "%s:%zu: blank line",
				  r->path, r->blank_line);
	r->line_s = s;
	r->line_e = e;
	return r->have_header ? parse_row(r, s, e) : parse_header(r, s, e);
}

static int gz_failed(struct reader *r, gzFile gz)
{
	int zerr;
	const char *msg = gzerror(gz, &zerr);
	const char *detail;

	if (zerr == Z_OK || zerr == Z_STREAM_END)
		return 0;
	/* zlib prefixes "<fd:N>: " when opened with gzdopen. */
	detail = msg[0] == '<' && strstr(msg, ": ") ? strstr(msg, ": ") + 2 : msg;
	return rv_err_set(r->err, zerr == Z_MEM_ERROR ? -ENOMEM : -EIO,
			  "%s: gzip read error: %s", r->path, detail);
}

/*
 * Parses the complete lines of buf[0..*len); the first *scanned bytes are
 * known to hold no '\n'. Moves the unfinished last line to the front and
 * leaves its length in *len and *scanned.
 */
static int parse_lines(struct reader *r, char *buf, size_t *len, size_t *scanned)
{
	char *p = buf, *end = buf + *len, *from = buf + *scanned, *nl;
	int rc = 0;

	while (rc == 0 && (nl = memchr(from, '\n', (size_t)(end - from))) != NULL) {
		rc = parse_line(r, p, nl);
		p = from = nl + 1;
	}
	*len = *scanned = (size_t)(end - p);
	memmove(buf, p, *len);
	return rc;
}

/* Doubles the line buffer when full, so a line may be of any length. */
static int grow_buffer(struct reader *r, char **buf, size_t *cap)
{
	char *grown = *cap <= SIZE_MAX / 2 ? realloc(*buf, 2 * *cap) : NULL;

	if (!grown)
		return rv_err_set(r->err, -ENOMEM, "%s: out of memory", r->path);
	*buf = grown;
	*cap *= 2;
	return 0;
}

/* Feeds every line of gz to parse_line, then checks the stream ended well. */
static int read_lines(struct reader *r, gzFile gz)
{
	size_t cap = READ_CHUNK_BYTES, len = 0, scanned = 0;
	char *buf = malloc(cap);
	int rc = buf ? 0 : rv_err_set(r->err, -ENOMEM, "%s: out of memory", r->path);
	int n;

	while (rc == 0) {
		if (len == cap && (rc = grow_buffer(r, &buf, &cap)) != 0)
			break;
		n = gzread(gz, buf + len, (unsigned)(cap - len < INT_MAX ? cap - len : INT_MAX));
		if (n <= 0) {
			rc = gz_failed(r, gz);
			if (rc == 0 && n < 0)
				rc = rv_err_set(r->err, -EIO, "%s: read error", r->path);
			break;
		}
		len += (size_t)n;
		rc = parse_lines(r, buf, &len, &scanned);
	}
	if (rc == 0 && len > 0)
		rc = parse_line(r, buf, buf + len);
	free(buf);
	return rc;
}

static int os_error(const char *path, int e, struct rv_err *err)
{
	return rv_err_set(err, -e, "%s: %s", path, strerror(e));
}

/* Opens path for gzread, keeping the OS errno for the message. */
static int open_gz(const char *path, gzFile *out, struct rv_err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0)
		return os_error(path, errno, err);
	e = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
	if (e) {
		close(fd);
		return os_error(path, e, err);
	}
	*out = gzdopen(fd, "rb");
	if (!*out) {
		close(fd);
		return rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	gzbuffer(*out, READ_CHUNK_BYTES);
	return 0;
}

/* Hands the rows of r over to a new column-major table. */
static int build_table(struct reader *r, struct rv_table **out)
{
	struct rv_table *t;
	size_t n = r->nrows, nc = r->ncols;
	int rc = rv_table_new(n, nc, r->ts_field != SIZE_MAX, r->path, &t);

	if (rc == 0)
		t->ts_field = r->ts_field;

	if (rc)
		return rv_err_set(r->err, rc, "%s: out of memory", r->path);
	for (size_t c = 0; c < nc; c++) {
		t->names[c] = r->names[c];
		r->names[c] = NULL;
	}
	if (t->ts)
		memcpy(t->ts, r->ts, n * sizeof(*t->ts));
	/* Row blocks keep both the rows read and the columns written in cache. */
	for (size_t r0 = 0; r0 < n; r0 += TRANSPOSE_BLOCK_ROWS) {
		size_t r1 = n - r0 < TRANSPOSE_BLOCK_ROWS ? n : r0 + TRANSPOSE_BLOCK_ROWS;
		for (size_t c = 0; c < nc; c++)
			for (size_t i = r0; i < r1; i++)
				t->values[c * n + i] = r->rows[i * nc + c];
	}
	t->stats = r->stats;
	*out = t;
	return 0;
}

static void reader_fini(struct reader *r)
{
	if (r->names) {
		for (size_t c = 0; c < r->ncols; c++)
			free(r->names[c]);
		free(r->names);
	}
	rv_big_free(r->rows);
	free(r->ts);
}

int rv_csv_read(const char *path, struct rv_table **out, struct rv_err *err)
{
	struct reader r = { .path = path, .err = err, .ts_field = SIZE_MAX };
	gzFile gz;
	int rc, zrc;

	*out = NULL;
	rc = open_gz(path, &gz, err);
	if (rc)
		return rc;
	rc = read_lines(&r, gz);
	zrc = gzclose_r(gz);
	/* A stream cut short shows only here when the last read ended cleanly. */
	if (rc == 0 && zrc != Z_OK)
		rc = rv_err_set(err, -EIO, "%s: gzip read error: %s", path,
				zrc == Z_BUF_ERROR ? "unexpected end of file" : zError(zrc));
	if (rc == 0 && !r.have_header)
		rc = rv_err_set(err, -EINVAL, "%s:1:1: empty file: a header line is expected", path);
	if (rc == 0 && r.nrows == 0)
		rc = rv_err_set(err, -EINVAL, "%s:2:1: no data rows after the header", path);
	if (rc == 0)
		rc = build_table(&r, out);
	reader_fini(&r);
	return rc;
}

/* ---- ISO-8601 ---------------------------------------------------------- */

enum {
	SECONDS_PER_DAY = 86400,
	SECONDS_PER_HOUR = 3600,
	SECONDS_PER_MINUTE = 60,
	DAYS_PER_ERA = 146097,          /* days in 400 Gregorian years */
	YEARS_PER_ERA = 400,
	CIVIL_EPOCH_SHIFT = 719468,     /* days from 0000-03-01 to 1970-01-01 */
	MAX_OFFSET_HOURS = 23,
};

/* Exactly n digits at *p. */
static int fixed_digits(const char **p, const char *end, int n, int64_t *out)
{
	const char *s = *p, *lim = end - s < n ? end : s + n;
	uint64_t v;

	if (lim - s != n || rv_str_u64(&s, lim, &v) != 0 || s != lim)
		return -EINVAL;
	*out = (int64_t)v;
	*p = s;
	return 0;
}

static int expect_char(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -EINVAL;
	(*p)++;
	return 0;
}

static int is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int64_t days_in_month(int64_t y, int64_t m)
{
	static const unsigned char days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return days[m - 1] + (m == 2 && is_leap(y));
}

/*
 * Days since 1970-01-01 of a proleptic Gregorian date: H. Hinnant's
 * days_from_civil, counting in 400-year eras that start on March 1st so
 * that the leap day is the last day of a year. Pure arithmetic: no
 * timegm/mktime, no locale, no time zone database.
 */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - (YEARS_PER_ERA - 1)) / YEARS_PER_ERA;
	yoe = y - era * YEARS_PER_ERA;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * DAYS_PER_ERA + doe - CIVIL_EPOCH_SHIFT;
}

/* YYYY-MM-DD, into days since the epoch. */
static int parse_date(const char **p, const char *end, int64_t *days)
{
	int64_t y, m, d;

	if (fixed_digits(p, end, 4, &y) || expect_char(p, end, '-') ||
	    fixed_digits(p, end, 2, &m) || expect_char(p, end, '-') ||
	    fixed_digits(p, end, 2, &d))
		return -EINVAL;
	if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
		return -EINVAL;
	*days = days_from_civil(y, m, d);
	return 0;
}

/* hh:mm:ss[.fraction], into seconds of the day. */
static int parse_clock(const char **p, const char *end, double *secs)
{
	int64_t h, m, s;
	double frac = 0;

	if (fixed_digits(p, end, 2, &h) || expect_char(p, end, ':') ||
	    fixed_digits(p, end, 2, &m) || expect_char(p, end, ':') ||
	    fixed_digits(p, end, 2, &s))
		return -EINVAL;
	if (h > 23 || m > 59 || s > 59)
		return -EINVAL;
	if (*p < end && **p == '.') {
		const char *q = *p + 1, *f = *p;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == *p + 1 || rv_str_double(&f, q, &frac) != 0 || f != q)
			return -EINVAL;
		*p = q;
	}
	*secs = (double)(h * SECONDS_PER_HOUR + m * SECONDS_PER_MINUTE + s) + frac;
	return 0;
}

/* Nothing (UTC), Z, or +hh:mm / -hh:mm / +hhmm, into seconds east of UTC. */
static int parse_zone(const char **p, const char *end, int64_t *east)
{
	int64_t h, m, sign;

	*east = 0;
	if (*p == end)
		return 0;
	if (**p == 'Z' || **p == 'z') {
		(*p)++;
		return 0;
	}
	if (**p != '+' && **p != '-')
		return -EINVAL;
	sign = **p == '-' ? -1 : 1;
	(*p)++;
	if (fixed_digits(p, end, 2, &h))
		return -EINVAL;
	if (*p < end && **p == ':')
		(*p)++;
	if (fixed_digits(p, end, 2, &m) || h > MAX_OFFSET_HOURS || m > 59)
		return -EINVAL;
	*east = sign * (h * SECONDS_PER_HOUR + m * SECONDS_PER_MINUTE);
	return 0;
}

int rv_csv_parse_time(const char *s, const char *end, double *out)
{
	const char *p = s;
	int64_t days, east;
	double secs;

	if (parse_date(&p, end, &days))
		return -EINVAL;
	if (p >= end || (*p != 'T' && *p != 't' && *p != ' '))
		return -EINVAL;
	p++;
	if (parse_clock(&p, end, &secs) || parse_zone(&p, end, &east) || p != end)
		return -EINVAL;
	*out = (double)(days * SECONDS_PER_DAY - east) + secs;
	return 0;
}
