/*
 * nvml_testutil.h - what the nvml source's tests share (nvml_test.c and
 * the tests of its parts): the fake libraries' environment, opening the
 * source on a fake library in RV_FAKE_LIBDIR, a sample, channel lookup.
 * Include after cmocka.h; a test file includes it once.
 */
#ifndef RV_COLLECT_NVML_TESTUTIL_H
#define RV_COLLECT_NVML_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/sources.h"

enum { MAXCH = 4096 };

static const char *const fake_vars[] = {
	"FAKE_NVML_GPUS", "FAKE_NVML_INIT_ERROR", "FAKE_NVML_NOT_SUPPORTED", "FAKE_NVML_FAIL",
	"FAKE_NVML_LOST_AFTER", "FAKE_NVML_XIDS", "FAKE_NVML_MODEL", "FAKE_NVML_MIG",
	"FAKE_NVML_PROCS", "FAKE_NVML_GPM_FAIL", "FAKE_NVML_GPM_UNSUPPORTED",
	"FAKE_NVML_FIELD_FAIL", "FAKE_NVML_FIELD_NOT_SUPPORTED",
};

struct run {
	char lib[512];
	struct rv_chanlist l;
	struct rv_err err;
	void *st;
	double raw[MAXCH];
	uint8_t ok[MAXCH];
};

static const double GIB = 1024.0 * 1024.0 * 1024.0, MIB = 1024.0 * 1024.0;

/* The source a test left open when an assertion failed before
 * run_close: closed by the next test's reset, so the fake library is
 * unloaded and starts that test afresh (its channel list leaks). */
static void *leftover_state;

static int reset(void **state)
{
	(void)state;
	if (leftover_state)
		rv_src_nvml.close(leftover_state);
	leftover_state = NULL;
	for (size_t i = 0; i < sizeof(fake_vars) / sizeof(fake_vars[0]); i++)
		unsetenv(fake_vars[i]);
	return 0;
}

static void need_catalog(void)
{
	if (!rv_catalog_metric("gpu.util_pct"))
		skip();
}

static void lib_path(struct run *r, const char *name)
{
	const char *dir = getenv("RV_FAKE_LIBDIR");

	assert_non_null(dir);
	snprintf(r->lib, sizeof(r->lib), "%s/%s", dir, name);
}

static int run_open(struct run *r, const char *lib)
{
	int rc;

	memset(&r->l, 0, sizeof(r->l));
	r->l.source = "nvml";
	rv_err_clear(&r->err);
	r->st = NULL;
	rc = rv_src_nvml.open(&(struct rv_collect_cfg){ .root = "", .nvml_lib = lib }, &r->st, &r->l,
			      &r->err);
	if (rc == 0)
		leftover_state = r->st;
	return rc;
}

static void run_open_fake(struct run *r, const char *name)
{
	lib_path(r, name);
	assert_int_equal(run_open(r, r->lib), 0);
	assert_non_null(r->st);
	assert_true(r->l.n <= MAXCH);
}

static void run_sample(struct run *r)
{
	memset(r->ok, 0, sizeof(r->ok));
	for (size_t i = 0; i < MAXCH; i++)
		r->raw[i] = -1.0;
	rv_src_nvml.sample(r->st, r->raw, r->ok);
}

static void run_close(struct run *r)
{
	if (leftover_state == r->st)
		leftover_state = NULL;
	rv_src_nvml.close(r->st);
	rv_chanlist_fini(&r->l);
}

static void all_valid(const struct run *r)
{
	for (size_t i = 0; i < r->l.n; i++)
		if (r->ok[i] != 1)
			fail_msg("channel %s invalid", r->l.v[i].name);
}

/* Index of channel `name`, -1 when absent. */
static long chan(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->l.n; i++)
		if (strcmp(r->l.v[i].name, name) == 0)
			return (long)i;
	return -1;
}

static double val(const struct run *r, const char *type, unsigned gpu)
{
	char name[96];
	long i;

	snprintf(name, sizeof(name), "%s:gpu%u", type, gpu);
	i = chan(r, name);
	if (i < 0)
		fail_msg("no channel %s", name);
	if (!r->ok[i])
		fail_msg("channel %s invalid", name);
	return r->raw[i];
}

#endif
