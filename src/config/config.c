/*
 * config.c - the agent's configuration: the key table, defaults, parsing one
 * value, rv_config_set and rv_config_check. See config.h.
 *
 * One table, rv_cfg_keys[], describes every key: its section, type, field,
 * range and description. The YAML loader (config_load.c) and rv_config_set
 * hand each value to rv_cfg_set_value(); rv_config_check formats each field
 * and parses it again through that same function, so a value set in C gets
 * the checks and messages of one read from a file; rv_config_write
 * (config_write.c) prints the table with its descriptions, which is what
 * deploy/reveal.yaml is.
 */
#include "config/config_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strparse.h"

enum { PORT_MAX = 65535 };

/* Leniency when comparing lengths in seconds: a window of 30 samples at
 * 100 ms is 3.0000000000000004 s and must still fit a 3 s window. */
#define REL_SLACK 1e-9

#define FIELD(m) offsetof(struct rv_config, m), sizeof(((struct rv_config *)0)->m)
#define MINUTE 60.0
#define HOUR 3600.0
#define DAY 86400.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)
#define PIB (1024.0 * 1024.0 * GIB)
#define YEARS_100 (36525 * DAY)  /* of 365.25 days */

_Static_assert(sizeof(enum rv_log_level) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum rv_cfg_preset) == sizeof(int), "enums are stored as int");

static const char *const level_names[] = { "error", "warn", "info", "debug", NULL };
static const char *const preset_names[] = { "default", "paper", NULL };
const char *const rv_cfg_perf_sw_names[] = { "auto", "on", "off", NULL };
_Static_assert(RV_LOG_ERROR == 0 && RV_LOG_DEBUG == 3, "level_names follows enum rv_log_level");

const struct rv_cfg_section rv_cfg_sections[] = {
	{ "collect", "Telemetry sources." },
	{ "detect", "Windows, detectors and incidents." },
	{ "http", "The HTTP server (/metrics)." },
	{ "store", "The incident store." },
	{ "events", "Incidents as they close." },
	{ "record", "Continuous recording of the raw telemetry." },
	{ "remote_write", "Prometheus remote-write of per-interval summaries (channel means "
	  "and maxima, scores, incidents, static facts) to Prometheus, VictoriaMetrics, Mimir "
	  "or any receiver of the protocol, for `reveal fleet` and dashboards across nodes; "
	  "off while url is \"\"." },
	{ "attrib", "Whose workload: when an incident opens, the processes and cgroups "
	  "that took the resource that moved (two scans of /proc and the cgroup tree, "
	  "1 s apart, on a low-priority thread)." },
};

/* Sized by its initializer: a count that differs from RV_CFG_NKEYS is a
 * compile error (conflicting types). */
const struct rv_cfg_key rv_cfg_keys[] = {
	{ NULL, "interval", K_DUR, FIELD(interval_s), 0.01, 10.0, 0, NULL,
	  "Sampling interval." },
	{ NULL, "learn", K_DUR, FIELD(learn_s), 0.0, 7 * DAY, 0, NULL,
	  "Learning period before the first alert; 0 starts from the model saved "
	  "in state_dir, which must then exist." },
	{ NULL, "refit", K_DUR, FIELD(refit_s), MINUTE, 30 * DAY, K_ZERO_OK, NULL,
	  "Refit the model from the reservoir this often; 0 = never." },
	{ NULL, "reservoir", K_DUR, FIELD(reservoir_s), MINUTE, 7 * DAY, 0, NULL,
	  "Span of recent normal samples a refit learns from (the history is also "
	  "capped at 256 MiB)." },
	{ NULL, "state_dir", K_STR, FIELD(state_dir), 0, 0, K_NONEMPTY, NULL,
	  "The fitted model is saved here (reveal.model); created if missing." },
	{ NULL, "host", K_STR, FIELD(host), 0, 0, 0, NULL,
	  "Host name reported in /metrics, events and the store; \"\" = the "
	  "hostname." },
	{ NULL, "log_level", K_ENUM, FIELD(log_level), 0, 0, 0, level_names,
	  "Diagnostics of this level and more severe are logged." },
	{ "collect", "root", K_STR, FIELD(collect.root), 0, 0, 0, NULL,
	  "Read ROOT/proc and ROOT/sys instead of /proc and /sys: fixture trees, "
	  "or a container with the host mounted at /host; \"\" = /." },
	{ "collect", "nvml", K_STR, FIELD(collect.nvml), 0, 0, K_NONEMPTY, NULL,
	  "The NVML library for GPU metrics: a file name for the dynamic loader "
	  "to find, or a path." },
	{ "collect", "exclude", K_LIST, FIELD(collect.exclude), 0, RV_CFG_EXCLUDE_MAX, K_NAMES,
	  NULL,
	  "Sources to leave out, named as `reveal metrics` lists them, e.g. "
	  "[perf, sys.thermal]; at most 32." },
	{ "collect", "rediscover", K_DUR, FIELD(collect.rediscover_s), 1.0, DAY, K_ZERO_OK, NULL,
	  "Look for new or removed devices this often; 0 = never." },
	{ "collect", "facts_interval", K_DUR, FIELD(collect.facts_s), 1.0, DAY, K_ZERO_OK, NULL,
	  "Read the host's facts (kernel, memory and huge pages, MTU and speed of "
	  "each link, disks, GPUs) again this often: a change is logged, counted "
	  "on /metrics and sent with remote_write for `reveal fleet`; 0 = only at "
	  "start." },
	{ "collect", "slow_interval", K_DUR, FIELD(collect.slow_s), 0.0, 10.0, 0, NULL,
	  "Sources whose values move slowly, or count events a rate over a second "
	  "misses nothing of, are read this often instead of at every sample (a "
	  "whole number of intervals): kernel object counts, load averages, qdisc "
	  "statistics, NUMA node memory and hugepages, link carrier, temperatures, "
	  "CPU frequencies, energy counters and the perf software events; 0, or "
	  "not above interval, reads them at every sample." },
	{ "collect", "perf_software", K_ENUM, FIELD(collect.perf_software), 0, 0, 0, rv_cfg_perf_sw_names,
	  "perf's software events (context switches, migrations, page faults per "
	  "CPU): auto counts them where hardware counters open, on everywhere, off "
	  "nowhere. Without hardware counters (most VMs) each read of a CPU's "
	  "counts is an inter-processor call, costly to an idle virtual CPU, and "
	  "/proc/stat and /proc/vmstat count the same events for the host." },
	{ "collect", "metric_set", K_STR, FIELD(collect.metric_set), 0, 0, 0, NULL,
	  "A metric set written by `reveal prune` (also --metric-set): only its "
	  "channels are watched, sources none of whose channels it keeps are not "
	  "read, and the model is fitted on those channels; read at start; \"\" = "
	  "every channel." },
	{ "detect", "window", K_SPAN, FIELD(detect.window), 0.01, HOUR, 0, NULL,
	  "Window length: a duration, or a whole number of samples." },
	{ "detect", "step", K_SPAN, FIELD(detect.step), 0.01, HOUR, 0, NULL,
	  "Distance between the starts of consecutive windows: a duration, or a "
	  "whole number of samples; at most the window." },
	{ "detect", "preset", K_ENUM, FIELD(detect.preset), 0, 0, 0, preset_names,
	  "Detector configuration: default, or paper for the paper's exact "
	  "pipeline." },
	{ "detect", "incident_gap", K_UINT, FIELD(detect.incident_gap), 0, 1000, 0, NULL,
	  "Unflagged windows bridged inside one incident." },
	{ "detect", "incident_min", K_UINT, FIELD(detect.incident_min), 1, 1000, 0, NULL,
	  "Flagged windows an incident needs." },
	{ "detect", "report_severity", K_ENUM, FIELD(detect.report_severity), 0, 0, 0,
	  rv_severity_names,
	  "An incident is reported as soon as it has incident_min windows and "
	  "reaches this severity (peak score over 2x the threshold: major, over "
	  "5x: critical); a weaker one only after minor_min windows." },
	{ "detect", "minor_min", K_UINT, FIELD(detect.minor_min), 0, 100000, 0, NULL,
	  "Flagged windows an incident below report_severity needs to be "
	  "reported (a sustained weak anomaly); 0 = never." },
	{ "detect", "sustained_min", K_UINT, FIELD(detect.sustained_min), 0, 100000, 0, NULL,
	  "An incident below report_severity is also reported after this many "
	  "flagged windows whose evidence lasts when their excess over the "
	  "threshold adds up to a major one's (a sustained moderate anomaly); "
	  "0 = off." },
	{ "detect", "burst_min", K_UINT, FIELD(detect.burst_min), 0, 100000, 0, NULL,
	  "Flagged windows an incident needs when none of its windows' evidence "
	  "lasts (the channels behind a window moved for most of its newest two "
	  "steps): short bursts such as a program starting or files read back "
	  "from disk after reclaim; 0 = no such rule." },
	{ "detect", "absorb", K_DUR, FIELD(detect.absorb_s), MINUTE / 6, 30 * DAY, K_ZERO_OK, NULL,
	  "An incident still open after this long is a new normal: it is closed "
	  "and the model refitted on its samples and the newest normal ones "
	  "(0 = never)." },
	{ "http", "listen", K_STR, FIELD(http.listen), 0, 0, K_ADDR, NULL,
	  "Address to serve on, HOST:PORT ([::1]:9464 for IPv6); \"\" = no HTTP "
	  "server." },
	{ "http", "max_connections", K_UINT, FIELD(http.max_connections), 1, 1024, 0, NULL,
	  "Connections served at the same time; one more is closed at once (the "
	  "client sees a reset), not queued." },
	{ "http", "per_client_connections", K_UINT, FIELD(http.per_client_connections), 1, 1024,
	  0, NULL,
	  "Connections one client address may hold at once, at most "
	  "max_connections; more are closed at once. Below max_connections, one "
	  "client cannot take every slot (a browser opens up to 6, Prometheus 1 "
	  "or 2)." },
	{ "http", "idle_timeout", K_DUR, FIELD(http.idle_timeout_s), 1.0, HOUR, 0, NULL,
	  "A connection that sends nothing for this long is closed; a request "
	  "must also be complete and answered within twice this time of the "
	  "connection opening or of the previous answer on it (a client "
	  "trickling its headers). Whole seconds." },
	{ "http", "raw_channels", K_BOOL, FIELD(http.raw_channels), 0, 0, 0, NULL,
	  "Also export every channel's last value on /metrics." },
	{ "store", "path", K_STR, FIELD(store.path), 0, 0, 0, NULL,
	  "SQLite database of incidents; \"\" = none." },
	{ "store", "retention", K_DUR, FIELD(store.retention_s), HOUR, 3650 * DAY, K_ZERO_OK, NULL,
	  "Incidents older than this are pruned; 0 = keep them all." },
	{ "events", "path", K_STR, FIELD(events.path), 0, 0, 0, NULL,
	  "JSON lines of incidents: \"\" = none, \"-\" = stdout, else a file "
	  "(appended)." },
	{ "record", "path", K_STR, FIELD(record.path), 0, 0, 0, NULL,
	  "Continuous .rvl recording; \"\" = none." },
	{ "record", "max_size", K_SIZE, FIELD(record.max_size_bytes), MIB, PIB, 0, NULL,
	  "Total size of the recording segments kept." },
	{ "record", "max_age", K_DUR, FIELD(record.max_age_s), MINUTE, 3650 * DAY, K_ZERO_OK, NULL,
	  "Oldest segment kept; 0 = no age limit." },
	{ "remote_write", "url", K_STR, FIELD(remote_write.url), 0, 0, K_URL, NULL,
	  "The receiver's remote-write endpoint, http:// or https:// (Prometheus "
	  "started with --web.enable-remote-write-receiver: http://HOST:9090/api/v1/write; "
	  "VictoriaMetrics: http://HOST:8428/api/v1/write); no credentials in it; \"\" = "
	  "off." },
	{ "remote_write", "interval", K_DUR, FIELD(remote_write.interval_s), 1.0, 10 * MINUTE, 0,
	  NULL,
	  "Summary interval: every series gets one sample per interval (the mean of each "
	  "channel over it), at multiples of the interval since the epoch so that nodes "
	  "line up; at least the sampling interval." },
	{ "remote_write", "channels", K_LIST, FIELD(remote_write.channels.item), 0,
	  RV_CFG_LIST_MAX, K_GLOBS, NULL,
	  "Channels to send, as glob patterns of the names `reveal metrics` lists, e.g. "
	  "[gpu.*, mem.*_bytes]; [] = every channel; at most 32. With --set, "
	  "comma-separated (a pattern with a comma needs a YAML list)." },
	{ "remote_write", "labels", K_LIST, FIELD(remote_write.labels.item), 0, RV_CFG_LIST_MAX,
	  K_LABELS, NULL,
	  "Labels added to every series, name=value, e.g. [cluster=eu1, group=job42]; "
	  "instance=NAME replaces the default instance (the node name); node, channel, "
	  "subsystem, detector, fact, value and names starting with __ are the agent's; "
	  "at most 32. With --set, comma-separated (a value with a comma needs a YAML "
	  "list)." },
	{ "remote_write", "headers", K_LIST, FIELD(remote_write.headers.item), 0,
	  RV_CFG_LIST_MAX, K_HEADERS, NULL,
	  "HTTP headers sent with every request, \"Name: value\" (quoted in YAML), e.g. "
	  "[\"X-Scope-OrgID: tenant1\"] for Mimir; not Authorization (see username and "
	  "bearer_token_file) nor the protocol's own; at most 32. With --set, "
	  "comma-separated (a value with a comma needs a YAML list)." },
	{ "remote_write", "username", K_STR, FIELD(remote_write.username), 0, 0, 0, NULL,
	  "Basic authentication user; \"\" = none." },
	{ "remote_write", "password_file", K_STR, FIELD(remote_write.password_file), 0, 0, 0,
	  NULL,
	  "File whose first line is the basic authentication password, read when the agent "
	  "starts (the configuration holds no secret); needs username; \"\" = an empty "
	  "password." },
	{ "remote_write", "bearer_token_file", K_STR, FIELD(remote_write.bearer_token_file), 0,
	  0, 0, NULL,
	  "File whose first line is a bearer token (sent as Authorization: Bearer), read "
	  "when the agent starts; not with username; \"\" = none." },
	{ "remote_write", "tls_ca_file", K_STR, FIELD(remote_write.tls_ca_file), 0, 0, 0, NULL,
	  "CA certificates (PEM) that the receiver's certificate must chain to; \"\" = the "
	  "system's." },
	{ "remote_write", "tls_cert_file", K_STR, FIELD(remote_write.tls_cert_file), 0, 0, 0,
	  NULL,
	  "Client certificate (PEM) for mutual TLS; \"\" = none." },
	{ "remote_write", "tls_key_file", K_STR, FIELD(remote_write.tls_key_file), 0, 0, 0, NULL,
	  "Private key (PEM) of tls_cert_file, which it needs; \"\" = none (or in "
	  "tls_cert_file)." },
	{ "remote_write", "tls_insecure", K_BOOL, FIELD(remote_write.tls_insecure), 0, 0, 0, NULL,
	  "Do not verify the receiver's certificate (tests only)." },
	{ "remote_write", "timeout", K_DUR, FIELD(remote_write.timeout_s), 1.0, 5 * MINUTE, 0,
	  NULL,
	  "Time one request may take, connecting included." },
	{ "remote_write", "queue_size", K_SIZE, FIELD(remote_write.queue_size_bytes), 64 * 1024.0, 4 * GIB,
	  0, NULL,
	  "Requests kept while the receiver is unreachable or slow; past this the oldest "
	  "are dropped and counted on /metrics." },
	{ "remote_write", "time_offset", K_DUR, FIELD(remote_write.time_offset_s), 0.0,
	  YEARS_100, 0, NULL,
	  "Added to the time of every sample sent: 0 live; for the replay of an old "
	  "recording, how far to move it so that the receiver takes it (most refuse "
	  "samples more than an hour or two old)." },
	{ "attrib", "enabled", K_BOOL, FIELD(attrib.enabled), 0, 0, 0, NULL,
	  "Measure the consumers of every incident; false: no process or cgroup "
	  "is ever scanned." },
	{ "attrib", "every", K_DUR, FIELD(attrib.every_s), 10.0, DAY, K_ZERO_OK, NULL,
	  "Measure again this often while an incident stays open; 0 = when it "
	  "opens only." },
	{ "attrib", "max_processes", K_UINT, FIELD(attrib.max_processes), 100, 1000000, 0, NULL,
	  "Processes one scan reads at most (about 28 us each); the rest are "
	  "counted in reveal_attrib_skipped_total." },
};

/* ------------------------------------------------------------ defaults */

void rv_config_defaults(struct rv_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_s = 0.1;
	c->learn_s = 10 * MINUTE;
	c->refit_s = HOUR;
	c->reservoir_s = HOUR;
	snprintf(c->state_dir, sizeof(c->state_dir), "%s", ".");
	c->log_level = RV_LOG_INFO;
	snprintf(c->collect.nvml, sizeof(c->collect.nvml), "%s", "libnvidia-ml.so.1");
	c->collect.rediscover_s = MINUTE;
	c->collect.facts_s = 30.0;
	c->collect.slow_s = 1.0;
	c->detect.window = (struct rv_cfg_span){ 3.0, 1 };
	c->detect.step = (struct rv_cfg_span){ 1.0, 1 };
	c->detect.preset = RV_CFG_PRESET_DEFAULT;
	c->detect.incident_gap = 2;
	c->detect.incident_min = 2;
	c->detect.report_severity = RV_CFG_SEV_MAJOR;
	c->detect.minor_min = 8;
	c->detect.sustained_min = 3;
	c->detect.burst_min = 10;
	c->detect.absorb_s = 15 * MINUTE;
	snprintf(c->http.listen, sizeof(c->http.listen), "%s", "127.0.0.1:9464");
	c->http.max_connections = 32;
	c->http.per_client_connections = 8;
	c->http.idle_timeout_s = 10.0;
	snprintf(c->store.path, sizeof(c->store.path), "%s", "./reveal.db");
	c->store.retention_s = 30 * DAY;
	c->record.max_size_bytes = 1024 * 1024 * 1024;
	c->record.max_age_s = 24 * HOUR;
	c->remote_write.interval_s = 10.0;
	c->remote_write.timeout_s = 10.0;
	c->remote_write.queue_size_bytes = 32 * 1024 * 1024;
	c->attrib.enabled = true;
	c->attrib.every_s = MINUTE;
	c->attrib.max_processes = 20000;
}

/* ------------------------------------------------------------- strings */

const char *rv_cfg_show(const char *s, size_t len, char *buf, size_t n)
{
	size_t m = len > CFG_SHOW_MAX ? CFG_SHOW_MAX : len, i;

	for (i = 0; i < m && i + 4 < n; i++)
		buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	snprintf(buf + i, n - i, "%s", i < len ? "..." : "");
	return buf;
}

void rv_cfg_full_name(const struct rv_cfg_key *k, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s", k->sect ? k->sect : "", k->sect ? "." : "", k->name);
}

/* "HOST:PORT" with a port of 0..65535; an IPv6 host in brackets. */
static int addr_valid(const char *s, size_t len)
{
	const char *colon = memrchr(s, ':', len), *p;
	uint64_t port;

	if (!colon)
		return 0;
	p = colon + 1;
	if (rv_str_u64(&p, s + len, &port) != 0 || p != s + len || port > PORT_MAX)
		return 0;
	if (memchr(s, ':', (size_t)(colon - s)))  /* IPv6: "[::1]:9464" */
		return s[0] == '[' && colon[-1] == ']';
	return !memchr(s, '[', len) && !memchr(s, ']', len);
}

/* The authority of a URL: HOST, HOST:PORT, [IPv6] or [IPv6]:PORT. */
static int authority_valid(const char *a, size_t n)
{
	const char *colon = memrchr(a, ':', n), *rb = memrchr(a, ']', n);

	if (n == 0)
		return 0;
	if (a[0] == '[')
		return rb && rb > a + 1 && (rb == a + n - 1 || addr_valid(a, n));
	if (memchr(a, '[', n) || rb)
		return 0;
	return !colon || (colon > a && addr_valid(a, n));
}

/* Why s is not "http(s)://HOST[:PORT][/PATH...]", or NULL. */
static const char *url_problem(const char *s, size_t len)
{
	static const char *const schemes[] = { "http://", "https://" };
	size_t skip = 0, n;
	const char *a;

	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]) && !skip; i++)
		if (len >= strlen(schemes[i]) && strncasecmp(s, schemes[i], strlen(schemes[i])) == 0)
			skip = strlen(schemes[i]);
	if (!skip)
		return "is not an http:// or https:// URL (like http://127.0.0.1:9090/api/v1/write)";
	a = s + skip;
	n = strcspn(a, "/?#");
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return "contains a blank or control character";
	if (memchr(a, '@', n))
		return "holds credentials: use username and password_file";
	if (!authority_valid(a, n))
		return "has no valid HOST, HOST:PORT or [IPv6]:PORT after the scheme";
	return NULL;
}

/* Letters, digits, '.', '_', '-': a name for log lines and metric labels. */
static int ident_valid(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------ parsing one value */

/* "WHERE KEY: 'VALUE' " and then fmt. */
__attribute__((format(printf, 3, 4)))
static int bad(const struct rv_cfg_origin *o, struct rv_err *err, const char *fmt, ...)
{
	char msg[CFG_LIST_TEXT_MAX + CFG_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return rv_err_set(err, -EINVAL, "%s%s: '%s' %s", o->where, o->key, o->shown, msg);
}

static int out_of_range(const struct rv_cfg_key *k, const struct rv_cfg_origin *o,
			struct rv_err *err)
{
	char r[CFG_LIST_TEXT_MAX];

	rv_cfg_range_text(k, r, sizeof(r));
	return bad(o, err, (k->flags & K_ZERO_OK) ? "is not %s" : "is not in %s", r);
}

static int in_range(const struct rv_cfg_key *k, double v)
{
	return ((k->flags & K_ZERO_OK) && v == 0.0) || (v >= k->min && v <= k->max);
}

/* K_DUR or K_SIZE. */
static int set_amount(const struct rv_cfg_key *k, const char *s, void *field,
		      const struct rv_cfg_origin *o, struct rv_err *err)
{
	double d = 0.0;
	uint64_t u = 0;
	int rc = k->type == K_DUR ? rv_config_parse_duration(s, &d) : rv_config_parse_bytes(s, &u);

	if (rc == -ERANGE)
		return bad(o, err, "is too large");
	if (rc && k->type == K_DUR)
		return bad(o, err, "is not a duration (like 100ms, 2s, 10m)");
	if (rc)
		return bad(o, err, "is not a size (like 512KiB, 64MiB, 1GB or bytes)");
	if (!in_range(k, k->type == K_DUR ? d : (double)u))
		return out_of_range(k, o, err);
	if (k->type == K_DUR)
		*(double *)field = d;
	else
		*(uint64_t *)field = u;
	return 0;
}

static int set_count(const struct rv_cfg_key *k, const char *s, void *field,
		     const struct rv_cfg_origin *o, struct rv_err *err)
{
	const char *p = s;
	uint64_t u;

	if (rv_str_u64(&p, s + strlen(s), &u) != 0 || *p != '\0')
		return bad(o, err, "is not a whole number");
	if (!in_range(k, (double)u))
		return out_of_range(k, o, err);
	*(unsigned *)field = (unsigned)u;
	return 0;
}

/* A span: a whole number of samples, or a duration. */
static int set_span(const struct rv_cfg_key *k, const char *s, void *field,
		    const struct rv_cfg_origin *o, struct rv_err *err)
{
	const char *p = s, *end = s + strlen(s);
	struct rv_cfg_span span = { 0.0, 0 };
	uint64_t n;

	if (rv_str_u64(&p, end, &n) == 0 && p == end) {
		if (n < 1 || n > RV_CFG_SPAN_SAMPLES_MAX)
			return out_of_range(k, o, err);
		span.value = (double)n;
	} else {
		span.seconds = 1;
		if (rv_config_parse_duration(s, &span.value) != 0)
			return bad(o, err,
				   "is not a duration or a number of samples (like 3s or 30)");
		if (!in_range(k, span.value))
			return out_of_range(k, o, err);
	}
	*(struct rv_cfg_span *)field = span;
	return 0;
}

static int set_choice(const struct rv_cfg_key *k, const char *s, void *field,
		      const struct rv_cfg_origin *o, struct rv_err *err)
{
	char r[CFG_LIST_TEXT_MAX];

	if (k->type == K_BOOL) {
		if (strcasecmp(s, "true") != 0 && strcasecmp(s, "false") != 0)
			return bad(o, err, "is not true or false");
		*(bool *)field = strcasecmp(s, "true") == 0;
		return 0;
	}
	for (int i = 0; k->choices[i]; i++)
		if (strcmp(s, k->choices[i]) == 0) {
			*(int *)field = i;
			return 0;
		}
	rv_cfg_range_text(k, r, sizeof(r));
	return bad(o, err, "is not one of %s", r);
}

static int set_string(const struct rv_cfg_key *k, const char *s, size_t len, void *field,
		      const struct rv_cfg_origin *o, struct rv_err *err)
{
	const char *why = (k->flags & K_URL) && len > 0 ? url_problem(s, len) : NULL;

	if (len >= k->size)
		return rv_err_set(err, -EINVAL, "%s%s: '%s' is longer than %zu bytes", o->where,
				  o->key, o->shown, k->size - 1);
	if (!rv_cfg_utf8_valid(s, len))
		return bad(o, err, "is not valid UTF-8");
	if ((k->flags & K_NONEMPTY) && len == 0)
		return rv_err_set(err, -EINVAL, "%s%s: must not be empty", o->where, o->key);
	if ((k->flags & K_ADDR) && len > 0 && !addr_valid(s, len))
		return bad(o, err, "is not HOST:PORT (like 127.0.0.1:9464 or [::1]:9464)");
	if ((k->flags & K_IDENT) && !ident_valid(s, len))
		return bad(o, err, "is not a name (letters, digits, '.', '_', '-')");
	if (why)
		return bad(o, err, "%s", why);
	memcpy(field, s, len);
	((char *)field)[len] = '\0';
	return 0;
}

int rv_cfg_set_value(const struct rv_cfg_key *k, const char *s, size_t len,
		     struct rv_config *c, const char *where, struct rv_err *err)
{
	char name[CFG_TEXT_MAX];

	rv_cfg_full_name(k, name, sizeof(name));
	return rv_cfg_set_named(k, name, s, len, c, where, err);
}

int rv_cfg_set_named(const struct rv_cfg_key *k, const char *name, const char *s, size_t len,
		     void *base, const char *where, struct rv_err *err)
{
	struct rv_cfg_origin o = { .where = where };
	void *field = (char *)base + k->off;

	snprintf(o.key, sizeof(o.key), "%s", name);
	rv_cfg_show(s, len, o.shown, sizeof(o.shown));
	if (memchr(s, '\0', len))
		return rv_err_set(err, -EINVAL, "%s%s: the value contains a NUL byte", where,
				  o.key);
	switch (k->type) {
	case K_STR:
		return set_string(k, s, len, field, &o, err);
	case K_LIST:
		return rv_cfg_set_list(k, s, len, base, &o, err);
	case K_BOOL:
	case K_ENUM:
		return set_choice(k, s, field, &o, err);
	case K_UINT:
		return set_count(k, s, field, &o, err);
	case K_SPAN:
		return set_span(k, s, field, &o, err);
	default:
		return set_amount(k, s, field, &o, err);
	}
}

/* ---------------------------------------------------------- key lookup */

int rv_cfg_find_section(const char *s, size_t len)
{
	for (int i = 0; i < RV_CFG_NSECT; i++)
		if (strlen(rv_cfg_sections[i].name) == len &&
		    memcmp(rv_cfg_sections[i].name, s, len) == 0)
			return i;
	return -1;
}

/* 1 when k belongs to section sect (-1: the top level). */
static int in_section(const struct rv_cfg_key *k, int sect)
{
	if (sect < 0)
		return k->sect == NULL;
	return k->sect != NULL && strcmp(k->sect, rv_cfg_sections[sect].name) == 0;
}

int rv_cfg_find_key(int sect, const char *s, size_t len)
{
	for (int i = 0; i < RV_CFG_NKEYS; i++) {
		const struct rv_cfg_key *k = &rv_cfg_keys[i];
		int here = in_section(k, sect);

		if (here && strlen(k->name) == len && memcmp(k->name, s, len) == 0)
			return i;
	}
	return -1;
}

const char *rv_cfg_known_keys(int sect, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < RV_CFG_NKEYS; i++) {
		const struct rv_cfg_key *k = &rv_cfg_keys[i];
		int here = in_section(k, sect);

		if (here && used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
						 k->name);
	}
	for (int i = 0; sect < 0 && i < RV_CFG_NSECT && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, ", %s", rv_cfg_sections[i].name);
	if (sect < 0 && used < n)
		snprintf(buf + used, n - used, ", %s", RV_CFG_ACTIONS);
	return buf;
}

/* ------------------------------------------------- rv_config_set, check */

int rv_config_set(struct rv_config *c, const char *key, const char *value, struct rv_err *err)
{
	const char *dot = key ? strchr(key, '.') : NULL;
	char shown[CFG_TEXT_MAX], known[CFG_LIST_TEXT_MAX];
	int sect, ki;

	if (!key || !value)
		return rv_err_set(err, -EINVAL, "rv_config_set: %s is NULL", key ? "value" : "key");
	rv_cfg_show(key, strlen(key), shown, sizeof(shown));
	if (strncmp(key, RV_CFG_ACTIONS, strlen(RV_CFG_ACTIONS)) == 0 &&
	    strchr(".[", key[strlen(RV_CFG_ACTIONS)]))
		return rv_err_set(err, -EINVAL, "'%s': actions is a list of mappings: set it in the "
				  "configuration file (docs/AGENT.md, Actions)", shown);
	sect = rv_cfg_find_section(key, dot ? (size_t)(dot - key) : strlen(key));
	if (!dot && sect >= 0)
		return rv_err_set(err, -EINVAL, "'%s' is a section; name one of its keys (%s)",
				  shown, rv_cfg_known_keys(sect, known, sizeof(known)));
	if (dot)
		ki = sect < 0 ? -1 : rv_cfg_find_key(sect, dot + 1, strlen(dot + 1));
	else
		ki = rv_cfg_find_key(-1, key, strlen(key));
	if (ki < 0 && sect >= 0)
		return rv_err_set(err, -EINVAL, "unknown key '%s' (known in '%s': %s)", shown,
				  rv_cfg_sections[sect].name,
				  rv_cfg_known_keys(sect, known, sizeof(known)));
	if (ki < 0)
		return rv_err_set(err, -EINVAL, "unknown key '%s' (known: %s)", shown,
				  rv_cfg_known_keys(-1, known, sizeof(known)));
	return rv_cfg_set_value(&rv_cfg_keys[ki], value, strlen(value), c, "", err);
}

/* Reformats the field of k and parses it again: the loader's checks. */
static int check_field(const struct rv_cfg_key *k, const struct rv_config *c,
		       struct rv_config *scratch, struct rv_err *err)
{
	const char *field = (const char *)c + k->off;
	char text[CFG_TEXT_MAX], name[CFG_TEXT_MAX];

	rv_cfg_full_name(k, name, sizeof(name));
	if (k->type == K_STR) {
		if (!memchr(field, '\0', k->size))
			return rv_err_set(err, -EINVAL, "%s: not NUL-terminated", name);
		return rv_cfg_set_value(k, field, strlen(field), scratch, "", err);
	}
	if (k->type == K_LIST)
		return rv_cfg_check_list(k, name, c, err);
	rv_cfg_fmt_field(k, c, text, sizeof(text));
	return rv_cfg_set_value(k, text, strlen(text), scratch, "", err);
}

/* A span in seconds (samples x interval). */
static double span_s(const struct rv_cfg_span *s, double interval_s)
{
	return s->seconds ? s->value : s->value * interval_s;
}

static int longer(double a, double b)
{
	return a > b * (1.0 + REL_SLACK);
}

/* libmicrohttpd counts whole seconds; one client is held to a share. */
static int http_check(const struct rv_config *c, struct rv_err *err)
{
	char t[CFG_TEXT_MAX];

	rv_cfg_fmt_duration(c->http.idle_timeout_s, t, sizeof(t));
	if (c->http.idle_timeout_s != floor(c->http.idle_timeout_s))
		return rv_err_set(err, -EINVAL, "http.idle_timeout (%s) is not a whole number of "
				  "seconds", t);
	if (c->http.per_client_connections > c->http.max_connections)
		return rv_err_set(err, -EINVAL, "http.per_client_connections (%u) is above "
				  "http.max_connections (%u): lower it too",
				  c->http.per_client_connections, c->http.max_connections);
	return 0;
}

static int cross_check(const struct rv_config *c, struct rv_err *err)
{
	const struct rv_cfg_span *w = &c->detect.window, *st = &c->detect.step;
	double win = span_s(w, c->interval_s), step = span_s(st, c->interval_s);
	char a[CFG_TEXT_MAX], b[CFG_TEXT_MAX], iv[CFG_TEXT_MAX];

	rv_cfg_fmt_span(w, a, sizeof(a));
	rv_cfg_fmt_span(st, b, sizeof(b));
	rv_cfg_fmt_duration(c->interval_s, iv, sizeof(iv));
	if (longer(step, win))
		return rv_err_set(err, -EINVAL,
				  "detect.step (%s) is longer than detect.window (%s)", b, a);
	if (longer(2.0 * c->interval_s, win))
		return rv_err_set(err, -EINVAL, "detect.window (%s) holds fewer than 2 samples at "
				  "interval %s", a, iv);
	if (st->seconds && longer(c->interval_s, step))
		return rv_err_set(err, -EINVAL, "detect.step (%s) is shorter than interval (%s)",
				  b, iv);
	rv_cfg_fmt_duration(c->reservoir_s, b, sizeof(b));
	if (longer(win, c->reservoir_s))
		return rv_err_set(err, -EINVAL, "reservoir (%s) is shorter than detect.window (%s)",
				  b, a);
	rv_cfg_fmt_duration(c->learn_s, b, sizeof(b));
	if (c->learn_s != 0.0 && longer(win, c->learn_s))
		return rv_err_set(err, -EINVAL, "learn (%s) is shorter than detect.window (%s): "
				  "not one window to learn from", b, a);
	rv_cfg_fmt_duration(c->collect.rediscover_s, b, sizeof(b));
	if (c->collect.rediscover_s != 0.0 && longer(c->interval_s, c->collect.rediscover_s))
		return rv_err_set(err, -EINVAL, "collect.rediscover (%s) is shorter than interval "
				  "(%s)", b, iv);
	return http_check(c, err);
}

/* Authentication and TLS come in pairs; a summary holds samples. */
static int remote_write_check(const struct rv_config *c, struct rv_err *err)
{
	char a[CFG_TEXT_MAX], iv[CFG_TEXT_MAX];

	if (c->remote_write.username[0] && c->remote_write.bearer_token_file[0])
		return rv_err_set(err, -EINVAL, "remote_write.username and "
				  "remote_write.bearer_token_file are both set: basic or bearer "
				  "authentication, not both");
	if (c->remote_write.password_file[0] && !c->remote_write.username[0])
		return rv_err_set(err, -EINVAL, "remote_write.password_file needs "
				  "remote_write.username");
	if (c->remote_write.tls_key_file[0] && !c->remote_write.tls_cert_file[0])
		return rv_err_set(err, -EINVAL, "remote_write.tls_key_file needs "
				  "remote_write.tls_cert_file");
	rv_cfg_fmt_duration(c->remote_write.interval_s, a, sizeof(a));
	rv_cfg_fmt_duration(c->interval_s, iv, sizeof(iv));
	if (longer(c->interval_s, c->remote_write.interval_s))
		return rv_err_set(err, -EINVAL, "remote_write.interval (%s) is shorter than "
				  "interval (%s)", a, iv);
	return 0;
}

int rv_config_check(const struct rv_config *c, struct rv_err *err)
{
	struct rv_config *scratch = malloc(sizeof(*scratch));
	int rc = 0;

	if (!scratch)
		return rv_err_set(err, -ENOMEM, "configuration check: out of memory");
	for (int i = 0; i < RV_CFG_NKEYS && rc == 0; i++)
		rc = check_field(&rv_cfg_keys[i], c, scratch, err);
	free(scratch);
	if (rc == 0)
		rc = cross_check(c, err);
	if (rc == 0)
		rc = remote_write_check(c, err);
	return rc ? rc : rv_cfg_check_actions(c, err);
}

