/*
 * detectors.c - the table of detectors (detector.h): the built-in ones in
 * their fixed order, then those registered at start-up.
 *
 * Adding a built-in detector: its det_<name>.c, defining the descriptor
 * rv_det_<name>, and its name appended to BUILTIN below (one line; the
 * table and the declarations follow from it). Never reorder: the order is
 * the bit order of rv_ens_config.enabled and the column order of the
 * window CSV.
 */
#include "detect/detector.h"

#include <errno.h>
#include <string.h>

#define BUILTIN(X) \
	X(zscore)  \
	X(pca)     \
	X(iforest) \
	X(spe)

#define DECLARE(name) extern const struct rv_detector_ops rv_det_##name;
#define ENTRY(name) &rv_det_##name,

BUILTIN(DECLARE)

static const struct rv_detector_ops *const builtin[] = { BUILTIN(ENTRY) };

#define NBUILTIN ((int)(sizeof(builtin) / sizeof(builtin[0])))

_Static_assert(NBUILTIN >= (int)RV_DET_FIXED && NBUILTIN <= (int)RV_DET_MAX,
	       "the built-in table holds the fixed four and fits RV_DET_MAX");

/* Registered detectors after the built-ins; names[] mirrors the table's
 * names (filled on demand). */
static const struct rv_detector_ops *extra[RV_DET_MAX];
static int nextra;
static const char *names[RV_DET_MAX];

int rv_det_count(void)
{
	return NBUILTIN + nextra;
}

const struct rv_detector_ops *rv_det_ops(int d)
{
	if (d < 0 || d >= rv_det_count())
		return NULL;
	return d < NBUILTIN ? builtin[d] : extra[d - NBUILTIN];
}

const char *rv_det_name(int d)
{
	const struct rv_detector_ops *o = rv_det_ops(d);

	return o ? o->name : "?";
}

const char *const *rv_det_names(void)
{
	for (int d = 0; d < rv_det_count(); d++)
		if (!names[d])
			names[d] = rv_det_name(d);
	return names;
}

int rv_det_parse(const char *name)
{
	for (int d = 0; d < rv_det_count(); d++)
		if (strcmp(name, rv_det_name(d)) == 0)
			return d;
	return -1;
}

unsigned rv_det_input_mask(enum rv_det_input in)
{
	unsigned m = 0;

	for (int d = 0; d < rv_det_count(); d++)
		if (rv_det_ops(d)->input == in)
			m |= RV_DET_BIT(d);
	return m;
}

int rv_detector_register(const struct rv_detector_ops *ops)
{
	int d = rv_det_count();

	if (!ops || !ops->name || !ops->name[0] || !ops->score_block || !ops->contrib)
		return -EINVAL;
	if (rv_det_parse(ops->name) >= 0)
		return -EEXIST;
	if (d >= RV_DET_MAX)
		return -ENOSPC;
	extra[nextra++] = ops;
	return d;
}
