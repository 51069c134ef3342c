/*
 * window_csv.h - the per-window CSV of `reveal detect` (its output
 * contract, DESIGN.md), driven by the detector table (detect/detector.h):
 *
 *   timestamp,anomaly,score,<paper flags>,top_metrics,subsystem,
 *   <later flags>,<name>_score...
 *
 * <paper flags>: a 0/1 column named after each of the paper's detectors
 * (descriptor `paper`: zscore,pca,iforest); <later flags>: the same for
 * every other detector of the table, in table order (spe, then registered
 * ones); then <name>_score = score / threshold of every detector in table
 * order (0 for a disabled one). With the built-in four:
 *   timestamp,anomaly,score,zscore,pca,iforest,top_metrics,subsystem,
 *   spe,zscore_score,pca_score,iforest_score,spe_score
 * The writer formats each row in a buffer and writes it with one call
 * (this runs once per window); the FILE and its buffering are the
 * caller's.
 */
#ifndef RV_PIPELINE_WINDOW_CSV_H
#define RV_PIPELINE_WINDOW_CSV_H

#include <stdio.h>

#include "base/err.h"
#include "pipeline/model.h"

struct rv_window_csv;

/* A writer of m's windows to f (m and f outlive it). Returns 0 and *out,
 * or -ENOMEM. */
int rv_window_csv_new(FILE *f, const struct rv_model *m, struct rv_window_csv **out);
void rv_window_csv_free(struct rv_window_csv *w);
/* Writes the header line. Returns 0 or -EIO. */
int rv_window_csv_header(struct rv_window_csv *w);
/* One row: an rv_sink window callback (ctx: the struct rv_window_csv).
 * Returns 0 or -EIO. */
int rv_window_csv_row(void *ctx, const struct rv_window_out *w);

#endif
