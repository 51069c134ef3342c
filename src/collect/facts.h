/*
 * facts.h - static facts of a host (CPU model, kernel, NUMA layout, memory,
 * links, disks) as key = value strings, read once for reports and for
 * comparing hosts of a fleet. Not telemetry: nothing here is sampled or fed
 * to the detectors. The CLI prints them (`reveal metrics`).
 *
 * Keys are lower case [a-z0-9_.] ("cpu.model", "net.eno1.speed_mbps");
 * values are printable ASCII without leading or trailing blanks, numbers in
 * decimal. A fact whose file is missing or does not parse is absent, never
 * a made-up value.
 *
 * GPU model and driver (gpu.<i>.name, gpu.driver) come from the NVIDIA
 * management library when it loads (nvml_facts.c).
 */
#ifndef RV_COLLECT_FACTS_H
#define RV_COLLECT_FACTS_H

#include <stddef.h>

#include "base/err.h"
#include "collect/source.h"

enum { RV_FACT_KEY_MAX = 64, RV_FACT_VALUE_MAX = 192 };

struct rv_fact {
	char key[RV_FACT_KEY_MAX];
	char value[RV_FACT_VALUE_MAX];
};

/* A growing list; a zeroed struct is an empty one. */
struct rv_facts {
	struct rv_fact *v;
	size_t n, cap;
};

/*
 * Appends the facts of the host under cfg->root ("" or a fixture tree) to
 * *out (zeroed or holding earlier facts), in a fixed order: cpu, kernel,
 * numa, mem, net, ib, disk; devices sorted by name, numbered things by
 * number. Absent or malformed files only give fewer facts. 0, or -ENOMEM
 * (err set; *out keeps what was added and still needs rv_facts_fini).
 */
int rv_facts_collect(const struct rv_collect_cfg *cfg, struct rv_facts *out,
		     struct rv_err *err);

/*
 * Sets key to value (replacing an earlier value of the same key). The value
 * is copied trimmed, cut at RV_FACT_VALUE_MAX - 1 bytes, every byte outside
 * printable ASCII turned into '?'. -EINVAL for a key that is empty, too
 * long or outside [a-z0-9_.], or a value that is empty once trimmed;
 * -ENOMEM.
 */
int rv_facts_add(struct rv_facts *f, const char *key, const char *value);

/* The value of key, or NULL; borrowed from f until it changes. */
const char *rv_facts_get(const struct rv_facts *f, const char *key);

/* Frees the list and zeroes it; a zeroed one is a no-op. */
void rv_facts_fini(struct rv_facts *f);

#endif
