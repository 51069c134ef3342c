/*
 * fuzz_config.c - libFuzzer target of the agent's YAML configuration
 * (config/config.h): any input is loaded over the defaults with
 * rv_config_load_string; when it loads, the cross-key checks run and the
 * result is written and loaded again, which must give the same struct.
 * Bad input must be refused with an error, never crash, leak or hang.
 * Build and run: tests/fuzz/README.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rv_config c, back;
	struct rv_err err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	rv_config_defaults(&c);
	if (rv_config_load_string((const char *)data, size, "fuzz.yaml", &c, &err) != 0)
		return 0;
	(void)rv_config_check(&c, NULL);
	f = open_memstream(&text, &len);
	if (!f)
		return 0;
	if (rv_config_write(f, &c) != 0) {
		fclose(f);
		free(text);
		return 0;
	}
	fclose(f);
	rv_config_defaults(&back);
	if (rv_config_load_string(text, len, "written.yaml", &back, &err) != 0 ||
	    memcmp(&back, &c, sizeof(c)) != 0) {
		fprintf(stderr, "written configuration does not load back the same: %s\n%s\n",
			err.msg, text);
		abort();
	}
	free(text);
	return 0;
}
