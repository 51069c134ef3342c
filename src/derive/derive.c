/*
 * derive.c - see derive.h.
 */
#include "derive/derive.h"

int rv_derive_value(enum rv_kind kind, double scale, double raw, int raw_ok, double prev,
		    int prev_ok, double dt_s, double *out)
{
	int ok = raw_ok;

	*out = 0.0;
	if (kind == RV_KIND_COUNTER || kind == RV_KIND_EVENT) {
		ok = ok && prev_ok && dt_s > 0.0 && raw >= prev;
		if (ok)
			*out = (raw - prev) * scale / dt_s;
		return ok;
	}
	if (ok)
		*out = raw * scale;
	return ok;
}

int rv_derive_step(enum rv_kind kind, double scale, double raw, int raw_ok, int64_t t_ns,
		   struct rv_derive_prev *p, double *out)
{
	double dt = p->ok && t_ns > p->t_ns ? (double)(t_ns - p->t_ns) * 1e-9 : 0.0;
	int prev_ok = p->ok && dt > 0.0 && dt <= RV_DERIVE_MAX_GAP_S;
	int ok = rv_derive_value(kind, scale, raw, raw_ok, p->raw, prev_ok, dt, out);

	if (raw_ok) {
		p->raw = raw;
		p->t_ns = t_ns;
		p->ok = 1;
	}
	return ok;
}
