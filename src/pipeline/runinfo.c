/*
 * runinfo.c - the run facts of `reveal detect --info-json`; see runinfo.h.
 */
#include <errno.h>

#include "base/atomicfile.h"
#include "detect/ensemble.h"
#include "pipeline/runinfo.h"

int rv_runinfo_write(FILE *f, const struct rv_model *m, const struct rv_detect_stats *st,
		     double train_feat_s)
{
	double test_s = st->features_s - train_feat_s + st->score_s;
	int n;

	n = fprintf(f, "{\"features_train_s\": %.6f, \"features_test_s\": %.6f, \"fit_s\": %.6f,\n"
		       " \"score_s\": %.6f, \"read_s\": %.6f, \"window\": %zu, \"step\": %zu,\n"
		       " \"interval_s\": %g, \"metrics\": %zu, \"features_kept\": %zu,\n"
		       " \"pca_components\": %zu, \"train_windows\": %zu, \"test_windows\": %zu,\n"
		       " \"anomalous_windows\": %zu, \"test_windows_per_s\": %.1f,\n"
		       " \"fuse_threshold\": %.9g}\n",
		    train_feat_s, st->features_s - train_feat_s, st->fit_s, st->score_s, st->read_s,
		    m->window, m->step, m->interval_s, m->nchan, rv_ens_features_kept(m->ens),
		    rv_ens_pca_ncomp(m->ens), m->train_windows, st->windows, st->flagged,
		    test_s > 0 ? (double)st->windows / test_s : 0.0, rv_ens_fuse_threshold(m->ens));
	return n < 0 ? -EIO : 0;
}

int rv_runinfo_save(const char *path, const struct rv_model *m,
		    const struct rv_detect_stats *st, double train_feat_s, struct rv_err *err)
{
	struct rv_atomicfile af;
	int rc = rv_atomicfile_open(&af, path, "w", err);

	if (rc)
		return rc;
	rc = rv_runinfo_write(af.f, m, st, train_feat_s);
	if (rc)
		rv_err_set(err, rc, "%s: write failed", path);
	return rv_atomicfile_close(&af, rc, err);
}
