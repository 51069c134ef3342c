/*
 * procirq_sources.h - the per-CPU interrupt sources of /proc:
 * proc.interrupts (proc_interrupts.c), proc.softirqs (proc_softirqs.c) and
 * proc.softnet (proc_softnet.c). Their metric types are in
 * catalog/metrics_irq.c. Listed in registry.c; tests call their
 * open/sample/close directly.
 */
#ifndef RV_COLLECT_PROCIRQ_SOURCES_H
#define RV_COLLECT_PROCIRQ_SOURCES_H

#include "collect/source.h"

extern const struct rv_source rv_src_proc_interrupts;
extern const struct rv_source rv_src_proc_softirqs;
extern const struct rv_source rv_src_proc_softnet;

#endif
