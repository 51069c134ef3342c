/*
 * metrics_cmd.c - `reveal metrics`: every channel the collector finds on
 * this host (or under --root), and every source that cannot run here with
 * its reason. --json for scripts; --sample takes two sweeps --interval
 * apart and prints the values.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/json.h"
#include "cli/cli.h"
#include "collect/collector.h"
#include "collect/facts.h"
#include "collect/nvml_who.h"

enum { INTERVAL_MS_MAX = 60000 };

static const char metrics_help[] =
	"usage: reveal metrics [--root DIR] [--nvml PATH] [--exclude SRC,...] [--json] [--sample]\n"
	"                      [--interval MS]\n"
	"       reveal metrics --gpu-processes [--nvml PATH] [--interval MS]\n"
	"\n"
	"Lists every channel reveal collects on this host: name, subsystem, unit, kind\n"
	"(gauge; counter and event: read as totals, reported as rates; static) and the\n"
	"source that reads it. Sources that cannot run here are listed after the\n"
	"channels with the reason (absent, not permitted, not supported); the rest\n"
	"works without them. Static facts (CPU model and topology, kernel, huge pages,\n"
	"NIC speed and MTU, disks) follow: kept for reports, not used for detection.\n"
	"\n"
	"  --root DIR     read DIR/proc and DIR/sys instead of /proc and /sys (a fixture\n"
	"                 tree)\n"
	"  --exclude SRC  leave out these sources (comma-separated names as listed\n"
	"                 here; repeatable), e.g. --exclude perf,sys.thermal\n"
	"  --nvml PATH    load this NVIDIA management library instead of\n"
	"                 libnvidia-ml.so.1 (a test double)\n"
	"  --json         one JSON object: {\"channels\": [...], \"unavailable\": [...],\n"
	"                 \"facts\": {...}}\n"
	"  --sample       also take two sweeps and print each channel's value (rates\n"
	"                 need the second); invalid values print as '-' (null in JSON)\n"
	"  --interval MS  time between the two sweeps of --sample (default 1000)\n"
	"  --gpu-processes  instead: the compute processes on each NVIDIA GPU with\n"
	"                 their GPU memory and SM / memory use over --interval (what\n"
	"                 the agent's whose-workload step reads for a GPU incident)\n"
	"  -h, --help     this text\n";

static void print_table(const struct rv_collector *c, const struct rv_facts *facts,
			const double *v, const uint8_t *ok)
{
	size_t n = rv_collector_nchan(c);

	printf("%-40s %-8s %-8s %-8s %-12s%s\n", "CHANNEL", "SUBSYS", "UNIT", "KIND", "SOURCE",
	       v ? " VALUE" : "");
	for (size_t i = 0; i < n; i++) {
		const struct rv_chan *ch = rv_collector_chan(c, i);

		printf("%-40s %-8s %-8s %-8s %-12s", ch->name,
		       rv_subsystem_name(rv_catalog_subsystem(ch->name)), ch->metric->unit,
		       rv_kind_name(ch->metric->kind), ch->source);
		if (v && ok[i])
			printf(" %.6g", v[i]);
		else if (v)
			printf(" -");
		putchar('\n');
	}
	printf("\n%zu channels\n", n);
	for (size_t i = 0; i < rv_collector_nunavail(c); i++)
		printf("unavailable: %s: %s\n", rv_collector_unavail_source(c, i),
		       rv_collector_unavail_reason(c, i));
	if (facts->n)
		printf("\nfacts (static, for reports; not detected on):\n");
	for (size_t i = 0; i < facts->n; i++)
		printf("  %-36s %s\n", facts->v[i].key, facts->v[i].value);
}

static void print_json(const struct rv_collector *c, const struct rv_facts *facts,
		       const double *v, const uint8_t *ok)
{
	size_t n = rv_collector_nchan(c);

	fputs("{\"channels\": [", stdout);
	for (size_t i = 0; i < n; i++) {
		const struct rv_chan *ch = rv_collector_chan(c, i);

		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", stdout);
		rv_json_fput_str(stdout, ch->name);
		printf(", \"subsystem\": \"%s\", \"unit\": ",
		       rv_subsystem_name(rv_catalog_subsystem(ch->name)));
		rv_json_fput_str(stdout, ch->metric->unit);
		printf(", \"kind\": \"%s\", \"source\": ", rv_kind_name(ch->metric->kind));
		rv_json_fput_str(stdout, ch->source);
		fputs(", \"help\": ", stdout);
		rv_json_fput_str(stdout, ch->metric->help);
		if (v && ok[i])
			printf(", \"value\": %.17g", v[i]);
		else if (v)
			fputs(", \"value\": null", stdout);
		fputc('}', stdout);
	}
	fputs("],\n \"unavailable\": [", stdout);
	for (size_t i = 0; i < rv_collector_nunavail(c); i++) {
		fputs(i ? ",\n  {\"source\": " : "\n  {\"source\": ", stdout);
		rv_json_fput_str(stdout, rv_collector_unavail_source(c, i));
		fputs(", \"reason\": ", stdout);
		rv_json_fput_str(stdout, rv_collector_unavail_reason(c, i));
		fputc('}', stdout);
	}
	fputs("],\n \"facts\": {", stdout);
	for (size_t i = 0; i < facts->n; i++) {
		fputs(i ? ",\n  " : "\n  ", stdout);
		rv_json_fput_str(stdout, facts->v[i].key);
		fputs(": ", stdout);
		rv_json_fput_str(stdout, facts->v[i].value);
	}
	fputs("}}\n", stdout);
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The command name of pid into buf ("?" when it is gone or hidden). */
static const char *comm_of(int pid, char *buf, size_t cap)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, (int)cap, f))
		snprintf(buf, cap, "?");
	else
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static void print_pct(double v)
{
	if (v == v)
		printf(" %6.1f", v);
	else
		printf(" %6s", "-");
}

/* --gpu-processes: two lists interval_ms apart; the second's use. */
static int gpu_processes(const char *lib, unsigned long interval_ms)
{
	enum { MAX_PROCS = 4096 };
	static struct rv_gpu_proc p[MAX_PROCS];
	struct rv_nvml_who *w = NULL;
	struct rv_err err = { 0 };
	char comm[64];
	size_t n;
	int rc = rv_nvml_who_open(lib, &w, &err);

	if (rc) {
		rv_cli_error("metrics", "%s", rv_err_text(&err, rc));
		return RV_EXIT_FAIL;
	}
	rv_nvml_who_list(w, p, MAX_PROCS);
	sleep_ms(interval_ms);
	n = rv_nvml_who_list(w, p, MAX_PROCS);
	printf("%-6s %8s %-16s %12s %6s %6s\n", "GPU", "PID", "COMMAND", "GPU_MEM_MIB", "SM%",
	       "MEM%");
	for (size_t i = 0; i < n; i++) {
		printf("gpu%-3u %8d %-16s", p[i].gpu, p[i].pid, comm_of(p[i].pid, comm, sizeof(comm)));
		if (p[i].mem_bytes == p[i].mem_bytes)
			printf(" %12.0f", p[i].mem_bytes / (1024.0 * 1024.0));
		else
			printf(" %12s", "-");
		print_pct(p[i].sm_pct);
		print_pct(p[i].mem_pct);
		putchar('\n');
	}
	printf("\n%zu processes on %zu GPUs\n", n, rv_nvml_who_gpus(w));
	rv_nvml_who_close(w);
	return RV_EXIT_OK;
}

int rv_cmd_metrics(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "nvml", required_argument, NULL, 'n' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "sample", no_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "gpu-processes", no_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = "", *nvml = NULL;
	static struct rv_cli_exclude excl;
	int json = 0, sample = 0, gpu_procs = 0, id, rc;
	unsigned long long interval_ms = 1000;
	struct rv_collector *c = NULL;
	struct rv_facts facts = { 0 };
	struct rv_err err = { 0 };
	double *v = NULL;
	uint8_t *ok = NULL;

	optind = 1;
	while ((id = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (id == 'h') {
			fputs(metrics_help, stdout);
			return RV_EXIT_OK;
		} else if (id == 'r') {
			root = optarg;
		} else if (id == 'n') {
			nvml = optarg;
		} else if (id == 'x') {
			if (rv_cli_add_exclude(&excl, optarg) != 0) {
				return rv_cli_fail("metrics", RV_EXIT_USAGE, "--exclude '%s': empty name or too many",
					optarg);
			}
		} else if (id == 'j') {
			json = 1;
		} else if (id == 's') {
			sample = 1;
		} else if (id == 'g') {
			gpu_procs = 1;
		} else if (id == 'i') {
			if (rv_cli_parse_size(optarg, INTERVAL_MS_MAX, &interval_ms) != 0 ||
			    interval_ms == 0) {
				return rv_cli_fail("metrics", RV_EXIT_USAGE, "--interval %s: want 1 to %d (ms)",
					optarg, INTERVAL_MS_MAX);
			}
		} else {
			return RV_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		return rv_cli_fail("metrics", RV_EXIT_USAGE, "unexpected argument '%s' (see --help)", argv[optind]);
	}
	if (gpu_procs)
		return gpu_processes(nvml, (unsigned long)interval_ms);
	rc = rv_collector_open(&(struct rv_collect_cfg){ .root = root, .nvml_lib = nvml,
						    .exclude = excl.names, .nexclude = excl.n },
			       &c, &err);
	if (rc) {
		rv_cli_error("metrics", "%s", rv_err_text(&err, rc));
		return rc == -EINVAL ? RV_EXIT_USAGE : RV_EXIT_FAIL;
	}
	if (sample) {
		size_t n = rv_collector_nchan(c) ? rv_collector_nchan(c) : 1;

		v = calloc(n, sizeof(*v));
		ok = calloc(n, 1);
		if (!v || !ok) {
			rv_cli_error("metrics", "out of memory");
			rv_collector_close(c);
			free(v);
			free(ok);
			return RV_EXIT_FAIL;
		}
		rv_collector_sample(c, rv_clock_ns(), v, ok);
		sleep_ms((unsigned long)interval_ms);
		rv_collector_sample(c, rv_clock_ns(), v, ok);
	}
	rc = rv_facts_collect(&(struct rv_collect_cfg){ .root = root, .nvml_lib = nvml }, &facts,
			      &err);
	if (rc)
		rv_cli_error("metrics", "facts: %s", rv_err_text(&err, rc));
	if (json)
		print_json(c, &facts, v, ok);
	else
		print_table(c, &facts, v, ok);
	rv_facts_fini(&facts);
	rv_collector_close(c);
	free(v);
	free(ok);
	return RV_EXIT_OK;
}
