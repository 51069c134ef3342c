/*
 * pca_int.h - PCA internals shared by the exact fit (pca.c) and the
 * randomized fit (pca_rand.c). Not part of the module's contract.
 */
#ifndef RV_DETECT_PCA_INT_H
#define RV_DETECT_PCA_INT_H

#include <stddef.h>

#include "base/err.h"

struct rv_pca {
	size_t F, k;
	double *mu;        /* F column means */
	double *lambda;    /* k eigenvalues (ddof 1), descending */
	float *V;          /* F x k basis, row j = feature j */
};

/* A model with room for k components (mu, lambda, V uninitialised). */
struct rv_pca *rv_pca_alloc(size_t F, size_t k);

/* Fewest leading eigenvalues (w ascending, m of them, trace `total`) whose
 * share exceeds var_keep, at least 1, at most max_comp (0: no cap), never
 * one at or below the noise floor. */
size_t rv_pca_choose_k(const double *w, size_t m, double total, double var_keep,
		       size_t max_comp);

/* 1 when the randomized fit pays: a capped basis much smaller than both
 * sides of the data. */
int rv_pca_use_randomized(size_t n, size_t F, size_t max_comp);

/* Randomized range finder (Halko, Martinsson, Tropp 2011) for the top
 * components; mu holds the column means. Same contract as rv_pca_fit_ld. */
int rv_pca_fit_randomized(const float *x, size_t ld, size_t n, size_t F, double var_keep,
			  size_t max_comp, const double *mu, struct rv_pca **out,
			  struct rv_err *err);

#endif
