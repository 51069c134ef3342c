/*
 * fuzz_csv.c - libFuzzer target of the CSV reader (record/csv.h): the
 * input is written to a file and read with rv_csv_read (plain text, or
 * gzip when it starts with the gzip magic bytes); the whole input also
 * goes through rv_csv_parse_time. The reader must refuse bad input with
 * an error, never crash, leak or hang. Build and run: tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "record/csv.h"
#include "record/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[FUZZ_PATH_MAX];
	struct rv_table *t = NULL;
	struct rv_err err = { 0 };
	double when;

	(void)rv_csv_parse_time((const char *)data, (const char *)data + size, &when);
	fuzz_tree_write("/in.csv", data, size);
	snprintf(path, sizeof(path), "%s/in.csv", fuzz_tree_root());
	if (rv_csv_read(path, &t, &err) == 0)
		rv_table_free(t);
	return 0;
}
