/*
 * sys_rapl.c - source "sys.rapl": RAPL energy counters of the powercap
 * class, /sys/class/powercap/intel-rapl:X/energy_uj (a package) and
 * intel-rapl:X:Y/energy_uj (its dram, core, uncore subzones), as counters
 * cpu.power_w whose rate, scaled by 1e-6 (uJ/s), is in watts.
 *
 * Instances come from each zone's `name`: the package keeps it
 * ("package-0"), a subzone gets its package number ("dram-0"). The kernel
 * wraps energy_uj at max_energy_range_uj; the collector sees a counter go
 * backwards and leaves a gap. Since Linux 5.10 energy_uj is readable by
 * root only: open then fails with -EACCES, "not permitted".
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "collect/sysval.h"

enum { MAX_ZONES = 256, NAME_LEN = 40 };

#define UJ_TO_J 1e-6

/* Adds zone `zone` (a directory name under dir): a file not permitted is
 * told in *deny (first one only), a missing one skipped, other errors
 * returned. */
static int add_zone(struct rv_sysvals *sv, struct rv_chanlist *chans, const char *dir,
		    const char *zone, uint32_t pkg, int sub, struct rv_err *deny,
		    struct rv_err *err)
{
	char path[RV_SYSVAL_PATH_MAX], name[NAME_LEN], inst[2 * NAME_LEN];
	struct rv_err e = { 0 };
	int rc;

	if (rv_sysval_path(path, "%s/%s/name", dir, zone) ||
	    rv_sysval_text(path, name, sizeof(name), NULL))
		snprintf(name, sizeof(name), "%s", zone);
	if (sub)
		snprintf(inst, sizeof(inst), "%s-%u", name, pkg);
	else
		snprintf(inst, sizeof(inst), "%s", name);
	if (rv_sysvals_taken(sv, chans, "cpu.power_w", inst))
		snprintf(inst, sizeof(inst), "%s", zone);
	if (rv_sysval_path(path, "%s/%s/energy_uj", dir, zone))
		return 0;
	rc = rv_sysvals_add(sv, chans, path, RV_SYSVAL_U64, "cpu.power_w", inst, UJ_TO_J, &e);
	if (rc == -EACCES || rc == -EPERM) {
		rv_err_set(deny, -EACCES, "%s: not permitted (RAPL energy is readable by "
			   "root only)", path);
		return 0;
	}
	if (rc == -ENOENT || rc == -ENOTDIR)
		return 0;
	if (rc)
		rv_err_set(err, rc, "%s", e.msg);
	return rc;
}

static int rapl_open(const struct rv_collect_cfg *cfg, void **state,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	struct rv_sysvals *sv = NULL;
	uint32_t pkgs[MAX_ZONES], subs[MAX_ZONES];
	char dir[RV_SYSVAL_PATH_MAX], zone[NAME_LEN];
	size_t np = 0, ns = 0;
	struct rv_err deny = { 0 };
	int rc = 0;

	if (rv_sysvals_new(chans, &sv) != 0)
		return rv_err_set(err, -ENOMEM, "sys.rapl: out of memory");
	if (rv_sysval_path(dir, "%s/sys/class/powercap", cfg->root)) {
		rc = rv_err_set(err, -ENAMETOOLONG, "%s: path too long", cfg->root);
		goto fail;
	}
	rc = rv_sysval_scan_ids(dir, "intel-rapl:", "", pkgs, MAX_ZONES, &np);
	if (rc) {
		rv_err_set(err, rc, "%s: cannot list: %s", dir, rv_strerror(rc));
		goto fail;
	}
	for (size_t i = 0; !rc && i < np; i++) {
		char prefix[NAME_LEN];

		snprintf(zone, sizeof(zone), "intel-rapl:%u", pkgs[i]);
		rc = add_zone(sv, chans, dir, zone, pkgs[i], 0, &deny, err);
		snprintf(prefix, sizeof(prefix), "intel-rapl:%u:", pkgs[i]);
		if (rv_sysval_scan_ids(dir, prefix, "", subs, MAX_ZONES, &ns))
			ns = 0;
		for (size_t k = 0; !rc && k < ns; k++) {
			snprintf(zone, sizeof(zone), "intel-rapl:%u:%u", pkgs[i], subs[k]);
			rc = add_zone(sv, chans, dir, zone, pkgs[i], 1, &deny, err);
		}
	}
	if (rc)
		goto fail;
	if (sv->n == 0) {
		if (deny.code)
			rc = rv_err_set(err, deny.code, "%s", deny.msg);
		else
			rc = rv_err_set(err, -ENOENT, "%s/intel-rapl:*/energy_uj: not found", dir);
		goto fail;
	}
	*state = sv;
	return 0;
fail:
	rv_sysvals_free(sv);
	return rc;
}

const struct rv_source rv_src_sys_rapl = {
	.name = "sys.rapl",
	.open = rapl_open,
	.sample = rv_sysvals_sample_src,
	.close = rv_sysvals_free,
	.slow = 1,
};
