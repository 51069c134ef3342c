/*
 * synth_cmd.c - placeholder until the generator lands.
 */
#include <stdio.h>

#include "cli/cli.h"

int rv_cmd_synth(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "reveal synth: not yet available\n");
	return RV_EXIT_FAIL;
}
