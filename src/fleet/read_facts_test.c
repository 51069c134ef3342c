/*
 * read_facts_test.c - one node's facts as `reveal fleet` keeps them
 * (read.h rv_fleet_facts_newest): sorted by key, each key once, and of a
 * key whose value changed in the range (the agent sends the time it first
 * saw each value, `since`) the newest value; of values seen at the same
 * time, or sent by an agent that did not say (since 0), the smallest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "fleet/read.h"

static void test_newest(void **state)
{
	struct rv_fleet_fact f[] = {
		{ "net.eno1.mtu", "9000", 1000 }, { "kernel.release", "6.1", 900 },
		{ "net.eno1.mtu", "1500", 1500 }, { "mem.hugepages_2048kb", "1024", 0 },
		{ "mem.hugepages_2048kb", "0", 0 }, { "net.eno1.mtu", "4000", 1200 },
		{ "gpu.driver", "550", 700 }, { "gpu.driver", "560", 700 },
	};
	size_t n = rv_fleet_facts_newest(f, sizeof(f) / sizeof(f[0]));

	(void)state;
	assert_int_equal(n, 4);
	assert_string_equal(f[0].key, "gpu.driver");
	assert_string_equal(f[0].value, "550");           /* same time: the smallest */
	assert_string_equal(f[1].key, "kernel.release");
	assert_string_equal(f[2].key, "mem.hugepages_2048kb");
	assert_string_equal(f[2].value, "0");             /* no since: the smallest */
	assert_string_equal(f[3].key, "net.eno1.mtu");
	assert_string_equal(f[3].value, "1500");          /* the newest */
	assert_true(f[3].since == 1500);
	assert_int_equal(rv_fleet_facts_newest(f, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_newest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
