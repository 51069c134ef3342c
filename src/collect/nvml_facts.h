/*
 * nvml_facts.h - the GPU facts (driver version, GPU names) read from the
 * NVIDIA management library for the host's facts (facts.c); nvml_facts.c
 * loads the library with dlopen, as the source nvml (nvml.c) does.
 */
#ifndef RV_COLLECT_NVML_FACTS_H
#define RV_COLLECT_NVML_FACTS_H

struct rv_facts;
/* Adds gpu.driver and gpu.<i>.name to f from the library lib (NULL:
 * "libnvidia-ml.so.1"); no library or no answer adds nothing. 0 or
 * -ENOMEM (nvml_facts.c). */
int rv_nvml_facts(const char *lib, struct rv_facts *f);

#endif
