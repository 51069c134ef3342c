/*
 * kept.h - memory taken and kept, in the blame of a flagged window
 * (internal to pipeline/: the offline run and the live scorer apply it the
 * same way).
 *
 * Why: detection judges the amounts of memory (stocks, catalog.h) by how
 * they move inside a window, never by where they sit, so that a write
 * storm that leaves the page cache grown does not keep an incident open
 * for hours. A program that allocates a few hundred MiB and then works
 * through them (a memory-bandwidth hog, a job streaming over its arrays)
 * moves its memory in its first second only; after that a window sees one
 * busy core and nothing of the memory, and the incident was blamed on the
 * CPU. What it holds is still there: the anonymous memory of the host
 * (rv_catalog_kept) stands far above where it stood before.
 *
 * The statistic: for each kept channel c, its mean over the window, x_c,
 * against its value a lookback before the window's newest sample, ref_c
 * (RV_KEPT_LOOKBACK_S; the oldest sample the caller has when it has fewer):
 *   r_c = (x_c - ref_c) / max(ref_c, RV_KEPT_FLOOR_BYTES).
 * Growth relative to what was held, not to the training mean: a job that
 * started after learning holds more for hours, and every incident in those
 * hours would be blamed on memory; measured against the lookback, memory
 * counts only while its rise is recent (within RV_KEPT_LOOKBACK_S), which
 * covers an incident's onset, whose blame is what an incident keeps.
 *
 * A flagged window (anomaly or a detector's flag) with r = max r_c of at
 * least RV_KEPT_MIN_RATIO gets attribution in which the channels with
 * r_c >= RV_KEPT_MIN_RATIO carry at least min(RV_KEPT_SHARE, r / (1 + r))
 * of the weight, shared in proportion to r_c: half again as much memory
 * held as a moment ago gives a third; three times as much gives
 * the cap. It never flags a window nor changes a score.
 */
#ifndef RV_PIPELINE_KEPT_H
#define RV_PIPELINE_KEPT_H

#include <stddef.h>
#include <stdint.h>

struct rv_model;
struct rv_ens_result;

/* How far back the reference sample lies. */
#define RV_KEPT_LOOKBACK_S 30.0
/* Growth is judged against at least this much memory: 100 MiB more on a
 * host whose processes held 50 MiB is not a change an operator would
 * blame an incident on. */
#define RV_KEPT_FLOOR_BYTES (256.0 * 1048576.0)
/* Least r that counts. */
#define RV_KEPT_MIN_RATIO 0.5
/* Most of a window's attribution the kept channels get; more than half,
 * so that memory leads a window whose other weight sits in one subsystem. */
#define RV_KEPT_SHARE (2.0 / 3.0)

/* The kept-memory channels of a model (rv_catalog_kept of its names). */
struct rv_kept {
	size_t n;
	uint32_t *chan;              /* n channel indices, ascending */
	size_t lookback;             /* samples between the reference and the newest */
};

/* Fills h for m (n == 0 when m has no kept-memory channel); 0 or -ENOMEM. Free
 * with rv_kept_fini (a zeroed h is fine). */
int rv_kept_init(struct rv_kept *h, const struct rv_model *m);
void rv_kept_fini(struct rv_kept *h);

/*
 * Adds the kept share to weight (m->nchan doubles) of one window: tbl is
 * channel-major with nrows rows per channel, the window's rows first ..
 * first + m->window - 1; the reference sample of channel c is
 * ref[c * ref_stride] (a row of the live ring: stride 1; a row of a
 * channel-major table: stride nrows), or ref is NULL (nothing added).
 * Does nothing for a window neither anomalous nor flagged by a detector.
 * Returns the largest r_c (0 when none is positive).
 */
double rv_kept_attribute(const struct rv_kept *h, const struct rv_model *m, const float *tbl,
			 size_t nrows, size_t first, const float *ref, size_t ref_stride,
			 const struct rv_ens_result *res, double *weight);

#endif
