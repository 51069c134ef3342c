/*
 * sys_cpufreq.c - source "sys.cpufreq": the current frequency of each CPU,
 * /sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq (kHz), as the
 * gauge cpu.freq_mhz:cpuN.
 *
 * CPUs without a cpufreq directory (no driver, as in most VMs) have no
 * channel; when none has one the source does not open (-ENOENT). A CPU
 * that goes offline reads as an error: a gap in its channel only.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "collect/sysval.h"

enum { MAX_CPUS = 8192 };

#define KHZ_TO_MHZ 1e-3

static int cpufreq_open(const struct rv_collect_cfg *cfg, void **state,
			struct rv_chanlist *chans, struct rv_err *err)
{
	struct rv_sysvals *sv = NULL;
	uint32_t *ids = malloc(MAX_CPUS * sizeof(*ids));
	char dir[RV_SYSVAL_PATH_MAX], path[RV_SYSVAL_PATH_MAX], inst[32];
	size_t n = 0;
	int rc = 0, denied = 0;

	if (rv_sysvals_new(chans, &sv) != 0 || !ids) {
		rc = rv_err_set(err, -ENOMEM, "sys.cpufreq: out of memory");
		goto fail;
	}
	if (rv_sysval_path(dir, "%s/sys/devices/system/cpu", cfg->root)) {
		rc = rv_err_set(err, -ENAMETOOLONG, "%s: path too long", cfg->root);
		goto fail;
	}
	rc = rv_sysval_scan_ids(dir, "cpu", "", ids, MAX_CPUS, &n);
	if (rc) {
		rv_err_set(err, rc, "%s: cannot list: %s", dir, rv_strerror(rc));
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		struct rv_err e = { 0 };

		if (rv_sysval_path(path, "%s/cpu%u/cpufreq/scaling_cur_freq", dir, ids[i]))
			continue;
		snprintf(inst, sizeof(inst), "cpu%u", ids[i]);
		rc = rv_sysvals_add(sv, chans, path, RV_SYSVAL_U64, "cpu.freq_mhz", inst,
				    KHZ_TO_MHZ, &e);
		if (rc == -EACCES)
			denied = 1;
		else if (rc && rc != -ENOENT && rc != -ENOTDIR) {
			rv_err_set(err, rc, "%s", e.msg);
			goto fail;
		}
	}
	if (sv->n == 0) {
		rc = rv_err_set(err, denied ? -EACCES : -ENOENT,
				"%s/cpu*/cpufreq/scaling_cur_freq: %s", dir,
				denied ? "not permitted" : "not found (no cpufreq driver)");
		goto fail;
	}
	free(ids);
	*state = sv;
	return 0;
fail:
	free(ids);
	rv_sysvals_free(sv);
	return rc;
}

const struct rv_source rv_src_sys_cpufreq = {
	.name = "sys.cpufreq",
	.open = cpufreq_open,
	.sample = rv_sysvals_sample_src,
	.close = rv_sysvals_free,
	.slow = 1,
};
