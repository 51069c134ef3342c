/*
 * main.c - `reveal <command> [options]`: dispatch to the commands.
 * Only cli/ owns main(), stdout and the exit status (STYLE.md).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "detect", rv_cmd_detect, "fit detectors on training telemetry and score test telemetry" },
	{ "synth", rv_cmd_synth, "write a synthetic telemetry data set with planted anomalies" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: reveal <command> [options]\n\n"
		   "Anomaly detection for AI/HPC hosts from hardware telemetry.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'reveal <command> --help' describes a command's options.\n"
		   "'reveal --version' prints the version.\n");
}

int main(int argc, char **argv)
{
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
		printf("reveal %s\n", REVEAL_VERSION);
		return RV_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "reveal: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return RV_EXIT_USAGE;
}
