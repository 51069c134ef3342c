/*
 * perf_sources.h - the source "perf" (perf.c): per-CPU hardware, software
 * and msr counters read with perf_event_open.
 */
#ifndef RV_COLLECT_PERF_SOURCES_H
#define RV_COLLECT_PERF_SOURCES_H

#include "collect/source.h"

extern const struct rv_source rv_src_perf;

#endif
