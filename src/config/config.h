/*
 * config.h - the configuration of the live agent (`reveal agent`): one YAML
 * file, parsed with libyaml into a plain struct that starts from defaults.
 *
 * What: struct rv_config (no pointers, nothing to free), its defaults, the
 * YAML loader, dotted-key overrides for command-line flags, the writer of
 * the effective configuration and the cross-field checks. Every key is one
 * row of a table in config.c (type, field, range, description); the loader,
 * rv_config_set, rv_config_check and rv_config_write all walk that table,
 * and deploy/reveal.yaml is what rv_config_write prints for the defaults
 * (config_test.c compares them, so the example cannot drift). The one key
 * that is a list of mappings, actions (what runs when an incident opens or
 * closes), has a table of its own per entry (config_actions.c); it is set
 * in the file only.
 *
 * Order of use: rv_config_defaults, rv_config_load (a file overrides what
 * it names), rv_config_set per flag, then rv_config_check once.
 *
 * Errors name the place: "FILE:LINE:COL: http.max_connections: '0' is not
 * in 1..1024" (lines and columns 1-based); unknown and duplicate keys,
 * a mapping where a value belongs (and vice versa), anchors and aliases,
 * YAML syntax errors and more than one document are all errors.
 *
 * Non-goals: knowing which sources exist (collect.exclude is only checked
 * for the shape of a name), whether a model file exists (learn: 0 needs one;
 * the agent checks), or reading environment variables.
 */
#ifndef RV_CONFIG_CONFIG_H
#define RV_CONFIG_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "base/log.h"
#include "base/severity.h"

enum {
	RV_CFG_STR_MAX = 256,          /* host, http.listen (with the NUL) */
	RV_CFG_PATH_MAX = PATH_MAX,    /* paths (with the NUL) */
	RV_CFG_EXCLUDE_MAX = 32,       /* names in collect.exclude */
	RV_CFG_NAME_MAX = 32,          /* one excluded source name (with the NUL) */
	RV_CFG_SPAN_SAMPLES_MAX = 100000,
	RV_CFG_LIST_MAX = 32,          /* items of a list of strings */
	RV_CFG_ITEM_MAX = 256,         /* one item (with the NUL) */
	RV_CFG_ACTIONS_MAX = 16,       /* entries of actions: */
	RV_CFG_ACTION_NAME_MAX = 64,   /* an action's name (with the NUL) */
	RV_CFG_ARGV_MAX = 32,          /* items of an action's command */
	RV_CFG_ACTION_HEADERS_MAX = 8, /* an action's webhook headers */
	RV_CFG_ACTION_STR_MAX = 1024,  /* its webhook URL and file paths (with the NUL) */
	RV_CFG_EVENT_NAME_MAX = 8,     /* "open", "close" (with the NUL) */
	RV_CFG_SUBSYS_MAX = 6,         /* subsystems an action names */
	RV_CFG_SUBSYS_NAME_MAX = 8,    /* "storage" (with the NUL) */
};

/* A list of strings (remote_write.channels, .labels, .headers). */
struct rv_cfg_list {
	char item[RV_CFG_LIST_MAX][RV_CFG_ITEM_MAX];
	size_t n;
};

/* A window or step length: `value` samples, or `value` seconds when
 * `seconds` is set (the same meaning as pipeline's struct rv_span, which
 * this module does not include). */
struct rv_cfg_span {
	double value;
	int seconds;
};

enum rv_cfg_preset { RV_CFG_PRESET_DEFAULT, RV_CFG_PRESET_PAPER };
/* base/severity.h's, under the names the agent uses */
enum rv_cfg_severity {
	RV_CFG_SEV_MINOR = RV_SEV_MINOR,
	RV_CFG_SEV_MAJOR = RV_SEV_MAJOR,
	RV_CFG_SEV_CRITICAL = RV_SEV_CRITICAL,
};

/*
 * One entry of actions: what runs when an incident opens or closes
 * (docs/AGENT.md, "Actions"). Lists are items with their count right
 * after them, as rv_cfg_list's; none of them is a pointer. Exactly one
 * of command (argc > 0) and webhook ("" = none); the headers, credentials
 * and TLS files belong to a webhook.
 */
struct rv_cfg_action {
	char name[RV_CFG_ACTION_NAME_MAX];          /* letters, digits, '.', '_', '-' */
	char on[2][RV_CFG_EVENT_NAME_MAX];          /* "open", "close": default [open] */
	size_t n_on;
	char subsystems[RV_CFG_SUBSYS_MAX][RV_CFG_SUBSYS_NAME_MAX]; /* none = any */
	size_t n_subsystems;
	char command[RV_CFG_ARGV_MAX][RV_CFG_ITEM_MAX];  /* argv, no shell */
	size_t argc;
	char headers[RV_CFG_ACTION_HEADERS_MAX][RV_CFG_ITEM_MAX]; /* "Name: value" */
	size_t n_headers;
	char webhook[RV_CFG_ACTION_STR_MAX];        /* http(s) URL; "" = a command */
	char username[RV_CFG_STR_MAX];
	char password_file[RV_CFG_ACTION_STR_MAX];
	char bearer_token_file[RV_CFG_ACTION_STR_MAX];
	char tls_ca_file[RV_CFG_ACTION_STR_MAX];
	char tls_cert_file[RV_CFG_ACTION_STR_MAX];
	char tls_key_file[RV_CFG_ACTION_STR_MAX];
	double timeout_s;                           /* one run; default 10 s */
	enum rv_cfg_severity min_severity;          /* default minor: every incident */
	bool tls_insecure;
};

/* The names an action's subsystems may hold (catalog/catalog.h's, which
 * config/ does not include; the agent checks that they agree), then NULL. */
extern const char *const rv_cfg_subsystem_names[RV_CFG_SUBSYS_MAX + 1];
/* collect.perf_software's words in enum rv_perf_sw's order (collect/source.h:
 * auto, on, off), NULL-terminated; `reveal record --perf-software` takes the
 * same. */
extern const char *const rv_cfg_perf_sw_names[];

/* Durations are seconds (double), sizes bytes; 0 means "never" / "keep" /
 * "none" where the key's description says so. Strings are NUL-terminated
 * UTF-8; "" means "none" (or "the hostname" for host). */
struct rv_config {
	double interval_s;             /* sampling interval */
	double learn_s;                /* learning period before the first alert */
	double refit_s;                /* refit period; 0 = never */
	double reservoir_s;            /* span of normal windows kept for refits */
	char state_dir[RV_CFG_PATH_MAX];
	char host[RV_CFG_STR_MAX];
	enum rv_log_level log_level;
	struct {
		char root[RV_CFG_PATH_MAX];
		char nvml[RV_CFG_PATH_MAX];
		char exclude[RV_CFG_EXCLUDE_MAX][RV_CFG_NAME_MAX];
		size_t n_exclude;
		double rediscover_s;   /* 0 = never */
		double facts_s;        /* facts read again this often; 0 = at start only */
		double slow_s;         /* slow sources' interval; 0 = every sweep */
		int perf_software;     /* 0 auto, 1 on, 2 off (enum rv_perf_sw's order) */
		char metric_set[RV_CFG_PATH_MAX]; /* metric-set file; "" = every channel */
	} collect;
	struct {
		struct rv_cfg_span window, step;
		enum rv_cfg_preset preset;
		unsigned incident_gap;
		unsigned incident_min;
		enum rv_cfg_severity report_severity; /* reported at once from this one */
		unsigned minor_min;    /* flagged windows a weaker one needs; 0 = never */
		unsigned sustained_min; /* ... or with an excess worth a major one; 0 = off */
		unsigned burst_min;     /* windows one of short bursts only needs; 0 = off */
		double absorb_s;       /* 0 = never */
	} detect;
	struct {
		char listen[RV_CFG_STR_MAX];   /* HOST:PORT; "" = no HTTP server */
		unsigned max_connections;
		unsigned per_client_connections; /* <= max_connections */
		double idle_timeout_s;         /* whole seconds */
		bool raw_channels;
	} http;
	struct {
		char path[RV_CFG_PATH_MAX];    /* SQLite file; "" = none */
		double retention_s;            /* 0 = keep */
	} store;
	struct {
		char path[RV_CFG_PATH_MAX];    /* "" = none, "-" = stdout, else a file */
	} events;
	struct {
		char path[RV_CFG_PATH_MAX];    /* .rvl recording; "" = none */
		uint64_t max_size_bytes;
		double max_age_s;              /* 0 = no age limit */
	} record;
	struct rv_cfg_remote_write {
		char url[RV_CFG_PATH_MAX];     /* receiver; "" = no remote write */
		double interval_s;             /* summary interval */
		struct rv_cfg_list channels;   /* globs of channel names; none = all */
		struct rv_cfg_list labels;     /* "name=value": labels of every series */
		struct rv_cfg_list headers;    /* "Name: value": extra HTTP headers */
		char username[RV_CFG_STR_MAX]; /* basic auth; "" = none */
		char password_file[RV_CFG_PATH_MAX];
		char bearer_token_file[RV_CFG_PATH_MAX];
		char tls_ca_file[RV_CFG_PATH_MAX];
		char tls_cert_file[RV_CFG_PATH_MAX];
		char tls_key_file[RV_CFG_PATH_MAX];
		bool tls_insecure;
		double timeout_s;              /* one request */
		uint64_t queue_size_bytes;     /* requests waiting while the receiver is away */
		double time_offset_s;          /* added to every sample's time */
	} remote_write;
	struct {
		bool enabled;                  /* measure whose workload (agent/whose.c) */
		double every_s;                /* again while an incident is open; 0 = at open only */
		unsigned max_processes;        /* a scan reads at most this many */
	} attrib;
	struct {
		struct rv_cfg_action item[RV_CFG_ACTIONS_MAX];
		size_t n;                      /* 0 = none */
	} actions;
};

/* Fills c with the defaults (those deploy/reveal.yaml shows): no actions. */
void rv_config_defaults(struct rv_config *c);

/* Fills a with an action's defaults: no name, on [open], min_severity
 * minor, any subsystem, no command or webhook, timeout 10 s. */
void rv_cfg_action_defaults(struct rv_cfg_action *a);

/*
 * Reads the YAML file at path over *c: keys the file names replace the
 * values in *c, the rest stay (call rv_config_defaults first). An empty
 * file changes nothing. All or nothing: on error *c is unchanged. Does not
 * run rv_config_check (flags may still change the values). Returns 0, a
 * negative errno from opening or reading the file ("PATH: strerror"),
 * -EFBIG for a file over 1 MiB, -ENOMEM, or -EINVAL for bad content
 * ("PATH:LINE:COL: ..."). Allocates only while it runs.
 */
int rv_config_load(const char *path, struct rv_config *c, struct rv_err *err);

/* rv_config_load on len bytes of text (need not be NUL-terminated);
 * name_for_errors starts the messages (NULL: "<string>"). */
int rv_config_load_string(const char *text, size_t len, const char *name_for_errors,
			  struct rv_config *c, struct rv_err *err);

/*
 * Sets one key by its dotted name ("interval", "http.listen") from text,
 * with the same parsing and range checks as the file; errors name the key
 * ("http.max_connections: '0' is not in 1..1024", "unknown key 'http.foo'
 * (known in 'http': ...)"). A list key (collect.exclude, remote_write.
 * channels, .labels, .headers) takes comma-separated items, blanks around
 * them dropped ("perf,sys.thermal"; "" = none), and replaces the whole
 * list; an item that contains a comma needs a YAML list in the file.
 * actions, a list of mappings, is set in the file only. On error *c is
 * unchanged. Returns 0 or -EINVAL.
 */
int rv_config_set(struct rv_config *c, const char *key, const char *value, struct rv_err *err);

/* "100ms" "2s" "10m" "1min" "1h" "1d", fractions ("1.5s") and "0" (the only
 * number without a unit). Returns 0, -EINVAL (not a duration, negative,
 * nan/inf) or -ERANGE (too large for a double); *seconds is set only on 0. */
int rv_config_parse_duration(const char *s, double *seconds);

/* A whole number of bytes, or of B, kB/KB, MB, GB, TB, PB, EB (powers of
 * 1000) or KiB, MiB, GiB, TiB, PiB, EiB (powers of 1024): "512KiB", "1GB".
 * Returns 0, -EINVAL or -ERANGE (over 2^64 - 1); *bytes is set only on 0. */
int rv_config_parse_bytes(const char *s, uint64_t *bytes);

/* Writes *c as YAML that rv_config_load reads back to an equal struct: a
 * header, then every key with its description (and range) as comments.
 * Returns 0 or -EIO when the stream reports an error. */
int rv_config_write(FILE *f, const struct rv_config *c);

/*
 * Checks every value against its range (as the loader does: a struct
 * filled in C gets the same checks) and the rules between keys:
 * detect.step <= detect.window; a window of at least two samples; a step
 * given as a duration >= interval; reservoir >= window; learn 0 or
 * >= window; collect.rediscover 0 or >= interval; remote_write.interval
 * >= interval; remote_write.username and .bearer_token_file not both;
 * .password_file needs .username; .tls_key_file needs .tls_cert_file
 * (whether these files exist is the agent's to check); every action's
 * keys as the loader checks them, exactly one of command and webhook,
 * webhook keys only with a webhook, names unique. A span in samples counts
 * as samples x interval. Returns 0, -EINVAL with a message naming the keys
 * ("detect.step (4s) is longer than detect.window (3s)"), or -ENOMEM.
 */
int rv_config_check(const struct rv_config *c, struct rv_err *err);

#endif
