/*
 * fuzz_rwrite.c - libFuzzer target of the remote-write encoder
 * (remote/rwrite.h): the input is read as series, each added to a request
 * of small limits; every refusal must carry its code (-EINVAL or -E2BIG)
 * and a message and leave the request as it was. The request is then
 * encoded, uncompressed with snappy and unpacked by protobuf-c, and must
 * hold exactly the accepted series, in order, each with its labels sorted,
 * unique, named as the specification wants and not empty, `__name__`
 * among them, and its samples in strictly increasing time with the same
 * timestamps and value bits as were given (-0 as 0). Build and run:
 * tests/fuzz/README.md.
 *
 * Input, repeated until it runs out: a byte whose low 3 bits are the
 * number of labels, each label a name and a value ended by a 0 byte (or
 * the input's end); a byte whose low 3 bits are the number of samples,
 * each 8 bytes of value bits then 1 byte of timestamp (so timestamps
 * collide); missing bytes read as 0.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "remote/rwrite.h"
#include "remote_write.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* TEXT holds the 2 * MAX_LABELS strings of one series, each at most
 * STRING_MAX bytes and its NUL (longer ones go on in the next string). */
enum { MAX_SERIES = 8, MAX_LABELS = 7, MAX_SAMPLES = 7, STRING_MAX = 255,
       TEXT = 2 * MAX_LABELS * (STRING_MAX + 1) };

struct cursor {
	const uint8_t *p;
	size_t n;
};

/* What an accepted series must come back as. */
struct want {
	size_t nsamples;
	uint64_t ts_sum, bits_xor;
};

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_rwrite: %s: %s\n", what, detail);
	abort();
}

static uint8_t byte(struct cursor *c)
{
	uint8_t b = 0;

	if (c->n > 0) {
		b = *c->p++;
		c->n--;
	}
	return b;
}

/* A NUL-terminated copy of the input up to its next 0 byte (at most
 * STRING_MAX bytes of it), in text. */
static const char *string(struct cursor *c, char *text, size_t *used)
{
	char *s = text + *used;
	size_t len = 0;

	while (c->n > 0 && *c->p != 0 && len++ < STRING_MAX)
		text[(*used)++] = (char)byte(c);
	byte(c);
	text[(*used)++] = '\0';
	return s;
}

static uint64_t bits_of(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof b);
	return b;
}

static int valid_name(const char *s, int metric)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		      (metric && c == ':') || (i > 0 && c >= '0' && c <= '9')))
			return 0;
	}
	return i > 0;
}

static void check_series(const Prometheus__TimeSeries *ts, const struct want *w)
{
	uint64_t sum = 0, x = 0;
	size_t i, metric = 0;

	for (i = 0; i < ts->n_labels; i++) {
		const Prometheus__Label *l = ts->labels[i];
		int is_metric = strcmp(l->name, "__name__") == 0;

		if (i > 0 && strcmp(ts->labels[i - 1]->name, l->name) >= 0)
			die("labels not sorted or not unique", l->name);
		if (l->value[0] == '\0')
			die("empty label value sent", l->name);
		if (!valid_name(is_metric ? l->value : l->name, is_metric) ||
		    (!is_metric && l->name[0] == '_' && l->name[1] == '_'))
			die("bad name sent", l->name);
		metric += is_metric;
	}
	if (metric != 1)
		die("series without exactly one __name__", "");
	if (ts->n_samples != w->nsamples)
		die("sample count differs", "");
	for (i = 0; i < ts->n_samples; i++) {
		if (i > 0 && ts->samples[i - 1]->timestamp >= ts->samples[i]->timestamp)
			die("samples not in strict time order", "");
		sum += (uint64_t)ts->samples[i]->timestamp;
		x ^= bits_of(ts->samples[i]->value);
	}
	if (sum != w->ts_sum || x != w->bits_xor)
		die("samples differ from those given", "");
}

static void check_encoded(struct rv_rw *w, const struct want *want, size_t n)
{
	size_t cap = rv_rw_out_max(w), len = 0, plain = 0, i;
	struct rv_err err = { 0 };
	char *out = malloc(cap), *pb;
	Prometheus__WriteRequest *req;

	if (out == NULL)
		die("out of memory", "");
	if (rv_rw_encode(w, out, cap, &len, &err) != 0)
		die("encode failed", err.msg);
	if (snappy_uncompressed_length(out, len, &plain) != SNAPPY_OK ||
	    (pb = malloc(plain + 1)) == NULL ||
	    snappy_uncompress(out, len, pb, &plain) != SNAPPY_OK)
		die("snappy refuses the body", "");
	req = prometheus__write_request__unpack(NULL, plain, (uint8_t *)pb);
	if (req == NULL)
		die("protobuf-c refuses the body", "");
	if (req->n_timeseries != n)
		die("series count differs", "");
	for (i = 0; i < n; i++)
		check_series(req->timeseries[i], &want[i]);
	prometheus__write_request__free_unpacked(req, NULL);
	free(pb);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct rv_rw_limits lim = { MAX_SERIES, 3 * MAX_SAMPLES, 3 * MAX_LABELS, 200 };
	struct cursor c = { data, size };
	struct want want[MAX_SERIES];
	static char text[TEXT];
	struct rv_rw *w = NULL;
	size_t used = 0, n = 0;

	if (rv_rw_new(&lim, &w, NULL) != 0)
		die("rv_rw_new failed", "");
	while (c.n > 0) {
		struct rv_rw_label l[MAX_LABELS];
		struct rv_rw_sample s[MAX_SAMPLES];
		struct rv_err err = { 0 };
		size_t nl = byte(&c) & 7, ns, i, before = rv_rw_nsamples(w);
		struct want cur = { 0 };
		int rc;

		used = 0;
		for (i = 0; i < nl && i < MAX_LABELS; i++) {
			l[i].name = string(&c, text, &used);
			l[i].value = string(&c, text, &used);
		}
		nl = i;
		ns = byte(&c) & 7;
		for (i = 0; i < ns && i < MAX_SAMPLES; i++) {
			uint64_t bits = 0;
			size_t k;

			for (k = 0; k < 8; k++)
				bits |= (uint64_t)byte(&c) << (8 * k);
			memcpy(&s[i].value, &bits, sizeof bits);
			s[i].ts_ms = byte(&c);
			cur.ts_sum += (uint64_t)s[i].ts_ms;
			cur.bits_xor ^= bits == UINT64_C(1) << 63 ? 0 : bits;   /* -0: 0 */
		}
		ns = cur.nsamples = i;
		rc = rv_rw_add(w, l, nl, s, ns, &err);
		if (rc == 0 && n < MAX_SERIES) {
			want[n++] = cur;
		} else if (rc == 0 || (rc != -EINVAL && rc != -E2BIG) ||
			   err.code != rc || err.msg[0] == '\0') {
			die("bad refusal", err.msg);
		} else if (rv_rw_nseries(w) != n || rv_rw_nsamples(w) != before) {
			die("a refused series changed the request", err.msg);
		}
	}
	check_encoded(w, want, n);
	rv_rw_free(w);
	return 0;
}
