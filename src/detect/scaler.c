/*
 * scaler.c - see scaler.h. Moments are accumulated in double with a
 * two-pass algorithm: float32 features of counters in the 1e9 range would
 * lose the variance to cancellation in a one-pass sum of squares.
 */
#include "detect/scaler.h"

#include "base/parallel.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SCALER_TAG = 0x4c435352u /* "RSCL" */, SCALER_VERSION = 1 };

static int scaler_alloc(struct rv_scaler *s, size_t nout)
{
	s->keep = calloc(nout ? nout : 1, sizeof(*s->keep));
	s->mean = calloc(nout ? nout : 1, sizeof(*s->mean));
	s->inv_sd = calloc(nout ? nout : 1, sizeof(*s->inv_sd));
	s->sd = calloc(nout ? nout : 1, sizeof(*s->sd));
	return s->keep && s->mean && s->inv_sd && s->sd ? 0 : -ENOMEM;
}

/* Column sums of one range of columns: each column keeps its summation
 * order whatever the split, so the result does not depend on threads. */
struct moments {
	const float *x;
	size_t n, nin;
	double *mean, *m2;
};

static int moments_slice(void *ctx, size_t j0, size_t j1, unsigned slot)
{
	struct moments *mo = ctx;

	(void)slot;
	for (size_t i = 0; i < mo->n; i++) {
		const float *row = mo->x + i * mo->nin;
		for (size_t j = j0; j < j1; j++)
			mo->mean[j] += row[j];
	}
	for (size_t j = j0; j < j1; j++)
		mo->mean[j] /= (double)mo->n;
	for (size_t i = 0; i < mo->n; i++) {
		const float *row = mo->x + i * mo->nin;
		for (size_t j = j0; j < j1; j++) {
			double d = row[j] - mo->mean[j];
			mo->m2[j] += d * d;
		}
	}
	return 0;
}

int rv_scaler_fit(struct rv_scaler *s, const float *x, size_t n, size_t nin, struct rv_err *err)
{
	return rv_scaler_fit_mt(s, x, n, nin, 1, err);
}

int rv_scaler_fit_mt(struct rv_scaler *s, const float *x, size_t n, size_t nin, unsigned threads,
		     struct rv_err *err)
{
	return rv_scaler_fit_floor(s, x, n, nin, threads, NULL, 0, err);
}

/* A column is kept when it moved in training or, with keep_constant, has a
 * floor to stand on. */
static int kept(double sd, const double *floor_in, int keep_constant, size_t j)
{
	return sd > RV_SCALER_MIN_SD || (keep_constant && floor_in && floor_in[j] > 0.0);
}

int rv_scaler_fit_floor(struct rv_scaler *s, const float *x, size_t n, size_t nin,
			unsigned threads, const double *floor_in, int keep_constant,
			struct rv_err *err)
{
	double *mean, *m2;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	if (n == 0 || nin == 0)
		return rv_err_set(err, -EINVAL, "no training rows to fit the scaler on");
	mean = calloc(nin, sizeof(*mean));
	m2 = calloc(nin, sizeof(*m2));
	if (!mean || !m2) {
		rc = -ENOMEM;
		goto out;
	}
	struct moments mo = { x, n, nin, mean, m2 };
	rv_parallel_for(nin, threads, moments_slice, &mo);
	s->nin = nin;
	for (size_t j = 0; j < nin; j++)
		if (kept(sqrt(m2[j] / (double)n), floor_in, keep_constant, j))
			s->nout++;
	if (s->nout == 0) {
		rc = rv_err_set(err, -EINVAL, "every feature is constant over the training windows");
		goto out;
	}
	rc = scaler_alloc(s, s->nout);
	if (rc)
		goto out;
	for (size_t j = 0, o = 0; j < nin; j++) {
		double sd = sqrt(m2[j] / (double)n);
		if (!kept(sd, floor_in, keep_constant, j))
			continue;
		if (floor_in && sd < floor_in[j])
			sd = floor_in[j];
		s->keep[o] = (uint32_t)j;
		s->mean[o] = mean[j];
		s->sd[o] = sd;
		s->inv_sd[o] = 1.0 / sd;
		o++;
	}
out:
	free(mean);
	free(m2);
	if (rc)
		rv_scaler_fini(s);
	return rc;
}

void rv_scaler_floor(struct rv_scaler *s, double rel)
{
	if (!(rel > 0.0))
		return;
	for (size_t o = 0; o < s->nout; o++) {
		double floor_sd = rel * fabs(s->mean[o]);

		if (s->sd[o] < floor_sd) {
			s->sd[o] = floor_sd;
			s->inv_sd[o] = 1.0 / floor_sd;
		}
	}
}

void rv_scaler_fini(struct rv_scaler *s)
{
	free(s->keep);
	free(s->mean);
	free(s->inv_sd);
	free(s->sd);
	memset(s, 0, sizeof(*s));
}

void rv_scaler_apply(const struct rv_scaler *s, const float *x, float *z)
{
	for (size_t o = 0; o < s->nout; o++)
		z[o] = (float)((x[s->keep[o]] - s->mean[o]) * s->inv_sd[o]);
}

void rv_scaler_save(const struct rv_scaler *s, struct rv_wbuf *b)
{
	rv_wbuf_u32(b, SCALER_TAG);
	rv_wbuf_u32(b, SCALER_VERSION);
	rv_wbuf_u64(b, s->nin);
	rv_wbuf_u64(b, s->nout);
	for (size_t o = 0; o < s->nout; o++)
		rv_wbuf_u32(b, s->keep[o]);
	rv_wbuf_f64s(b, s->mean, s->nout);
	rv_wbuf_f64s(b, s->sd, s->nout);
}

int rv_scaler_load(struct rv_scaler *s, struct rv_rbuf *b, struct rv_err *err)
{
	uint64_t nin, nout;

	memset(s, 0, sizeof(*s));
	if (rv_rbuf_u32(b) != SCALER_TAG || rv_rbuf_u32(b) != SCALER_VERSION)
		return rv_err_set(err, -EINVAL, "scaler section: bad tag or version");
	nin = rv_rbuf_u64(b);
	nout = rv_rbuf_u64(b);
	if (b->bad || nout == 0 || nout > nin || !rv_rbuf_has(b, nout, 4 + 8 + 8))
		return rv_err_set(err, -EINVAL, "scaler section: bad sizes");
	s->nin = nin;
	s->nout = nout;
	if (scaler_alloc(s, s->nout)) {
		rv_scaler_fini(s);
		return -ENOMEM;
	}
	for (size_t o = 0; o < s->nout; o++) {
		s->keep[o] = rv_rbuf_u32(b);
		if (s->keep[o] >= nin || (o > 0 && s->keep[o] <= s->keep[o - 1]))
			b->bad = 1;
	}
	rv_rbuf_f64s(b, s->mean, s->nout);
	rv_rbuf_f64s(b, s->sd, s->nout);
	for (size_t o = 0; o < s->nout && !b->bad; o++) {
		if (!isfinite(s->mean[o]) || !(s->sd[o] > RV_SCALER_MIN_SD) || !isfinite(s->sd[o]))
			b->bad = 1;
		else
			s->inv_sd[o] = 1.0 / s->sd[o];
	}
	if (b->bad) {
		rv_scaler_fini(s);
		return rv_err_set(err, -EINVAL, "scaler section: invalid values");
	}
	return 0;
}
