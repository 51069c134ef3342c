/*
 * main.c - `reveal <command> [options]`: dispatch to the commands.
 * Only cli/ owns main(), stdout and the exit status (STYLE.md).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "detect/ensemble.h"
#include "rv_commit.h"  /* REVEAL_COMMIT, generated in the build folder */

enum { HEAP_BLOCK_MAX = 256 << 20 };    /* bytes */

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "agent", rv_cmd_agent, "watch this host: learn, detect, serve /metrics, store incidents" },
	{ "demo", rv_cmd_demo, "a guided 2-minute run: a job, two injected faults, the incidents, a report" },
	{ "detect", rv_cmd_detect, "fit detectors on training telemetry and score test telemetry" },
	{ "metrics", rv_cmd_metrics, "list (and sample) the channels collected on this host" },
	{ "fleet", rv_cmd_fleet, "compare the nodes of a fleet: stragglers and configuration drift" },
	{ "report", rv_cmd_report, "write incident reports (text, markdown, JSON, HTML) with likely causes" },
	{ "compare", rv_cmd_compare, "compare two detection runs: IoU of anomalous windows, incident hit rates" },
	{ "prune", rv_cmd_prune, "choose the channels worth watching: correlation pruning into a metric set" },
	{ "record", rv_cmd_record, "record the collected telemetry to a .rvl file" },
	{ "export", rv_cmd_export, "write a .rvl recording as CSV" },
	{ "synth", rv_cmd_synth, "write a synthetic telemetry data set with planted anomalies" },
	{ "workload", rv_cmd_workload, "run a small training-like job (matrix steps, loopback all-reduce)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: reveal <command> [options]\n\n"
		   "Anomaly detection for AI/HPC hosts from hardware telemetry.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'reveal <command> --help' describes a command's options.\n"
		   "'reveal --version' prints the version and the commit.\n");
}

/*
 * The offline pipeline allocates and frees matrices of megabytes in turn;
 * served by mmap, each would come back as fresh pages to fault in again.
 * Keeping them on the heap lets the next matrix reuse the pages.
 */
static void keep_large_blocks(void)
{
	mallopt(M_MMAP_THRESHOLD, HEAP_BLOCK_MAX);
	mallopt(M_TRIM_THRESHOLD, HEAP_BLOCK_MAX);
}

int main(int argc, char **argv)
{
	keep_large_blocks();
	/* OpenBLAS starts a thread pool when it loads, and idle pool threads
	 * spin on sched_yield for a while: stop them before any command runs
	 * (detect raises BLAS threads itself for large fits). A collector
	 * recording for hours must not pay for a library it does not call. */
	rv_ens_blas_threads(1);
	rv_ens_blas_quiesce();
	if (argc < 2) {
		usage(stderr);
		return RV_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return RV_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("reveal %s (commit %s)\n", REVEAL_VERSION, REVEAL_COMMIT);
		return RV_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "reveal: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return RV_EXIT_USAGE;
}
