/*
 * fuzz_model.c - libFuzzer target of the model file loader
 * (pipeline/model.h: rv_model_load, pipeline/modelfile.c, and the
 * detector ensemble's loader under it).
 *
 * A mutated file almost never passes the CRC-32C of the envelope, so an
 * input is the payload: the target wraps it in a valid header (magic,
 * format version, length) and trailer (its CRC) before loading. An input
 * that itself starts with the magic "RVLMODEL" is loaded as it is, which
 * covers the envelope checks. Seeds: the payload of a small fitted model
 * (gen_seeds.c, run by run.sh). Build and run: tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "base/crc32c.h"
#include "pipeline/model.h"

static void put_le(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[FUZZ_PATH_MAX];
	struct rv_model *m = NULL;
	struct rv_err err = { 0 };

	if (size >= 8 && memcmp(data, "RVLMODEL", 8) == 0) {
		fuzz_tree_write("/model", data, size);
	} else {
		uint8_t *f = malloc(size + 24);

		if (!f)
			abort();
		memcpy(f, "RVLMODEL", 8);
		put_le(f + 8, RV_MODEL_FORMAT_VERSION, 4);
		put_le(f + 12, size, 8);
		memcpy(f + 20, data, size);
		put_le(f + 20 + size, rv_crc32c(0, data, size), 4);
		fuzz_tree_write("/model", f, size + 24);
		free(f);
	}
	snprintf(path, sizeof(path), "%s/model", fuzz_tree_root());
	if (rv_model_load(path, &m, &err) == 0)
		rv_model_free(m);
	return 0;
}
