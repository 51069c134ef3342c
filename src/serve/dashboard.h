/*
 * dashboard.h - the agent's dashboard page (GET /): one self-contained
 * HTML page, under 20 KB, that polls the JSON API every 2 s.
 *
 * The page reads these shapes (any field may be missing or null):
 *
 * api/v1/status:
 *   {"host":"h","version":"0.2.0","state":"learning"|"detecting",
 *    "learn_progress":0.42,"learn_remaining_s":348,"uptime_s":12.3,
 *    "interval_s":0.1,"channels":371,"windows_scored":120,
 *    "fused_score":0.8,"fused_threshold":1.0,"anomaly":false,
 *    "detectors":[{"name":"zscore","score":1.2,"threshold":2.5,"fired":false}],
 *    "model":{"fitted_at":1733000000,"train_windows":600,"features":3000},
 *    "open_incidents":0,"incidents_total":3,
 *    "sources":[{"name":"proc.stat","channels":12,"last_us":35.0}],
 *    "unavailable":[{"source":"nvml","reason":"..."}]}
 * api/v1/incidents:
 *   {"incidents":[{"id":3,"start":1733000000,"end":1733000012 or null,
 *    "open":true,"duration_s":12.0,"windows":12,"peak_score":3.1,
 *    "mean_score":2.0,"subsystem":"cpu","detectors":["zscore","pca"],
 *    "top_metrics":[{"name":"cpu.busy_pct:cpu0","share":0.4,
 *                    "baseline":3.1,"value":98.7}]}]}
 *
 * Times are Unix seconds (fractions allowed). The page shows the incidents
 * in the order given (newest first reads best). It does not use
 * open_incidents, incidents_total, windows, peak_score or mean_score yet.
 */
#ifndef RV_SERVE_DASHBOARD_H
#define RV_SERVE_DASHBOARD_H

#include <stddef.h>

#define RV_DASHBOARD_CONTENT_TYPE "text/html; charset=utf-8"

/* The page, NUL-terminated, and its length without the NUL. */
extern const char rv_dashboard_html[];
extern const size_t rv_dashboard_html_len;

#endif
