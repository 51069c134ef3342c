/*
 * sys_thermal.c - source "sys.thermal": temperatures, as gauges
 * cpu.temp_c (degrees Celsius, the kernel reports millidegrees).
 *
 * hwmon sensors: /sys/class/hwmon/hwmonN/tempK_input, instance
 * "<name>_<label>" from the device's `name` and the sensor's tempK_label
 * ("coretemp_package_id_0", "coretemp_core_0"), or "<name>_tempK" without
 * a label; made of [a-z0-9_] only, and "_hwmonN" appended when two
 * devices give the same (two sockets' "coretemp_core_0").
 * Thermal zones: /sys/class/thermal/thermal_zoneN/temp, instance
 * "<type>N" ("acpitz0", "x86_pkg_temp1").
 *
 * Either tree alone is enough; -ENOENT when neither has a sensor. A
 * sensor that fails to read (a zone that is off, a removed device) is a
 * gap in its own channel.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/sysval.h"

enum { MAX_DEVS = 1024, MAX_SENSORS = 256, INST_MAX = 80 };

#define MILLI 1e-3

/* Adds one sensor; a file that cannot be opened is skipped (0). */
static int add_sensor(struct rv_sysvals *sv, struct rv_chanlist *chans, const char *path,
		      char *inst, uint32_t hwmon, struct rv_err *err)
{
	struct rv_err e = { 0 };
	int rc;

	rv_sysval_sanitize(inst);
	if (rv_sysvals_taken(sv, chans, "cpu.temp_c", inst)) {
		size_t len = strlen(inst);

		snprintf(inst + len, INST_MAX - len, "_hwmon%u", hwmon);
	}
	rc = rv_sysvals_add(sv, chans, path, RV_SYSVAL_I64, "cpu.temp_c", inst, MILLI, &e);
	if (rc == -ENOENT || rc == -EACCES || rc == -ENOTDIR)
		return 0;
	if (rc)
		rv_err_set(err, rc, "%s", e.msg);
	return rc;
}

static int add_hwmon(struct rv_sysvals *sv, struct rv_chanlist *chans, const char *dir,
		     uint32_t hw, uint32_t *ids, struct rv_err *err)
{
	char dev[RV_SYSVAL_PATH_MAX], path[RV_SYSVAL_PATH_MAX], name[40], label[40];
	char inst[INST_MAX];
	size_t n = 0;
	int rc = 0;

	if (rv_sysval_path(dev, "%s/hwmon%u", dir, hw) ||
	    rv_sysval_scan_ids(dev, "temp", "_input", ids, MAX_SENSORS, &n))
		return 0;
	if (rv_sysval_path(path, "%s/name", dev) ||
	    rv_sysval_text(path, name, sizeof(name), NULL))
		snprintf(name, sizeof(name), "hwmon%u", hw);
	for (size_t i = 0; !rc && i < n; i++) {
		if (rv_sysval_path(path, "%s/temp%u_label", dev, ids[i]) == 0 &&
		    rv_sysval_text(path, label, sizeof(label), NULL) == 0)
			snprintf(inst, sizeof(inst), "%s_%s", name, label);
		else
			snprintf(inst, sizeof(inst), "%s_temp%u", name, ids[i]);
		if (rv_sysval_path(path, "%s/temp%u_input", dev, ids[i]) == 0)
			rc = add_sensor(sv, chans, path, inst, hw, err);
	}
	return rc;
}

static int add_zone(struct rv_sysvals *sv, struct rv_chanlist *chans, const char *dir,
		    uint32_t z, struct rv_err *err)
{
	char path[RV_SYSVAL_PATH_MAX], type[40], inst[INST_MAX];

	if (rv_sysval_path(path, "%s/thermal_zone%u/type", dir, z) ||
	    rv_sysval_text(path, type, sizeof(type), NULL))
		snprintf(type, sizeof(type), "zone");
	snprintf(inst, sizeof(inst), "%s%u", type, z);
	if (rv_sysval_path(path, "%s/thermal_zone%u/temp", dir, z))
		return 0;
	return add_sensor(sv, chans, path, inst, z, err);
}

static int thermal_open(const struct rv_collect_cfg *cfg, void **state,
			struct rv_chanlist *chans, struct rv_err *err)
{
	struct rv_sysvals *sv = NULL;
	uint32_t *ids = malloc(MAX_DEVS * sizeof(*ids));
	uint32_t *sensors = malloc(MAX_SENSORS * sizeof(*sensors));
	char hwdir[RV_SYSVAL_PATH_MAX], tzdir[RV_SYSVAL_PATH_MAX];
	size_t n = 0;
	int rc = 0;

	if (rv_sysvals_new(chans, &sv) != 0 || !ids || !sensors) {
		rc = rv_err_set(err, -ENOMEM, "sys.thermal: out of memory");
		goto out;
	}
	if (rv_sysval_path(hwdir, "%s/sys/class/hwmon", cfg->root) ||
	    rv_sysval_path(tzdir, "%s/sys/class/thermal", cfg->root)) {
		rc = rv_err_set(err, -ENAMETOOLONG, "%s: path too long", cfg->root);
		goto out;
	}
	if (rv_sysval_scan_ids(hwdir, "hwmon", "", ids, MAX_DEVS, &n) == 0)
		for (size_t i = 0; !rc && i < n; i++)
			rc = add_hwmon(sv, chans, hwdir, ids[i], sensors, err);
	if (!rc && rv_sysval_scan_ids(tzdir, "thermal_zone", "", ids, MAX_DEVS, &n) == 0)
		for (size_t i = 0; !rc && i < n; i++)
			rc = add_zone(sv, chans, tzdir, ids[i], err);
	if (!rc && sv->n == 0)
		rc = rv_err_set(err, -ENOENT, "%s/hwmon*/temp*_input, %s/thermal_zone*/temp: "
				"no temperature sensor", hwdir, tzdir);
out:
	free(ids);
	free(sensors);
	if (rc) {
		rv_sysvals_free(sv);
		return rc;
	}
	*state = sv;
	return 0;
}

const struct rv_source rv_src_sys_thermal = {
	.name = "sys.thermal",
	.open = thermal_open,
	.sample = rv_sysvals_sample_src,
	.close = rv_sysvals_free,
	.slow = 1,
};
