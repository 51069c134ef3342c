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
