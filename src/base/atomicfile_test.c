/*
 * atomicfile_test.c - rv_atomicfile: a complete write replaces the file, a
 * failed one leaves the old file and no temporary file, a device is
 * written in place, an unopenable path is named in the error.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/atomicfile.h"

struct dir {
	char path[64];
	char file[96];
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	snprintf(d->path, sizeof(d->path), "/tmp/rv_atomicfile_XXXXXX");
	if (!mkdtemp(d->path))
		return -1;
	snprintf(d->file, sizeof(d->file), "%s/out.txt", d->path);
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;

	unlink(d->file);
	rmdir(d->path);
	free(d);
	return 0;
}

/* The number of entries of the folder besides . and .. */
static int entries(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	int n = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(dir);
	return n;
}

static void assert_content(const char *path, const char *want)
{
	char buf[64] = { 0 };
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) < sizeof(buf) - 1);
	fclose(f);
	assert_string_equal(buf, want);
}

static int write_text(const char *path, const char *text, int fail)
{
	struct rv_atomicfile af;
	struct rv_err err;
	int rc;

	rv_err_clear(&err);
	rc = rv_atomicfile_open(&af, path, "w", &err);
	assert_int_equal(rc, 0);
	fputs(text, af.f);
	return rv_atomicfile_close(&af, fail ? -EINVAL : 0, &err);
}

static void test_success_replaces(void **state)
{
	struct dir *d = *state;

	assert_int_equal(write_text(d->file, "old\n", 0), 0);
	assert_content(d->file, "old\n");
	assert_int_equal(write_text(d->file, "new\n", 0), 0);
	assert_content(d->file, "new\n");
	assert_int_equal(entries(d->path), 1);
}

static void test_failure_keeps_old(void **state)
{
	struct dir *d = *state;

	assert_int_equal(write_text(d->file, "old\n", 0), 0);
	assert_int_equal(write_text(d->file, "half", 1), -EINVAL);
	assert_content(d->file, "old\n");
	assert_int_equal(entries(d->path), 1);   /* no out.txt.tmp.PID left */
}

static void test_failure_creates_nothing(void **state)
{
	struct dir *d = *state;

	assert_int_equal(write_text(d->file, "half", 1), -EINVAL);
	assert_int_equal(entries(d->path), 0);
}

static void test_device_in_place(void **state)
{
	struct rv_atomicfile af;

	(void)state;
	assert_int_equal(rv_atomicfile_open(&af, "/dev/null", "w", NULL), 0);
	assert_null(af.tmp);
	fputs("x", af.f);
	assert_int_equal(rv_atomicfile_close(&af, 0, NULL), 0);
}

static void test_open_error_names_path(void **state)
{
	struct dir *d = *state;
	struct rv_atomicfile af;
	struct rv_err err;
	char bad[128];

	snprintf(bad, sizeof(bad), "%s/no/such/out.txt", d->path);
	rv_err_clear(&err);
	assert_int_equal(rv_atomicfile_open(&af, bad, "w", &err), -ENOENT);
	assert_null(af.f);
	assert_non_null(strstr(err.msg, bad));
	assert_int_equal(rv_atomicfile_close(&af, -ENOENT, NULL), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_success_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_keeps_old, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_creates_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_error_names_path, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
