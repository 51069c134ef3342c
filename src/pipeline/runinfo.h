/*
 * runinfo.h - the facts of one offline run as JSON (`reveal detect
 * --info-json`): timings, windowing, the model's size. Read by bench/ and
 * eval/ scripts; the keys are a contract.
 */
#ifndef RV_PIPELINE_RUNINFO_H
#define RV_PIPELINE_RUNINFO_H

#include <stdio.h>

#include "base/err.h"
#include "pipeline/model.h"

/*
 * Writes the run facts of model m and the run's stats st to f as one JSON
 * object; train_feat_s is the part of st->features_s spent on the training
 * windows (0 with a loaded model). 0 or -EIO.
 */
int rv_runinfo_write(FILE *f, const struct rv_model *m, const struct rv_detect_stats *st,
		     double train_feat_s);

/* The same into the file path, written whole or not at all
 * (base/atomicfile.h). 0 or a negative errno with "PATH: reason" in err. */
int rv_runinfo_save(const char *path, const struct rv_model *m,
		    const struct rv_detect_stats *st, double train_feat_s, struct rv_err *err);

#endif
