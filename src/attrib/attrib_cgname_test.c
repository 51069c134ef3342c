/*
 * attrib_cgname_test.c - what a cgroup path says (rv_cgname_parse,
 * cgname.c): the real layouts of docker, containerd and CRI-O under the
 * kubelet's two cgroup drivers, Slurm on v1 and v2, systemd units and the
 * root, each field checked; then garbage (empty, 600 characters, "pod"
 * without a UID, ids of the wrong length) that must give the path as the
 * label and nothing else. Last, the one-line text of a consumer
 * (rv_consumer_text, rank.c) and the resource names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attrib/attrib.h"

#define ID "3f2a9c1b0d7e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a"
#define ID12 "3f2a9c1b0d7e"
#define UID "1f2e3d4c-5b6a-7980-a1b2-c3d4e5f6a7b8"
#define UID_ "1f2e3d4c_5b6a_7980_a1b2_c3d4e5f6a7b8"
#define HASH "0123456789abcdef0123456789abcdef"

struct want {
	const char *path;
	const char *runtime, *container, *pod_uid, *qos, *job, *step, *unit, *label;
};

static const struct want layouts[] = {
	/* docker on v1 */
	{ "/docker/" ID, "docker", ID, "", "", "", "", "", "docker " ID12 },
	/* docker on v2, systemd driver */
	{ "/system.slice/docker-" ID ".scope", "docker", ID, "", "", "", "", "",
	  "docker " ID12 },
	/* kubernetes + containerd, systemd driver */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/cri-containerd-" ID ".scope",
	  "containerd", ID, UID, "burstable", "", "", "",
	  "pod " UID " (burstable) container " ID12 },
	/* kubernetes guaranteed, systemd driver, CRI-O */
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope", "crio", ID, UID,
	  "guaranteed", "", "", "", "pod " UID " (guaranteed) container " ID12 },
	/* kubernetes, cgroupfs driver */
	{ "/kubepods/besteffort/pod" UID "/" ID, "", ID, UID, "besteffort", "", "", "",
	  "pod " UID " (besteffort) container " ID12 },
	{ "/kubepods/pod" UID "/" ID, "", ID, UID, "guaranteed", "", "", "",
	  "pod " UID " (guaranteed) container " ID12 },
	/* a static pod (its UID an md5) and a pod without a container */
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" HASH ".slice", "",
	  "", HASH, "besteffort", "", "", "", "pod " HASH " (besteffort)" },
	/* a QoS level without a pod (or with "pod" but no UID) says its QoS only */
	{ "/kubepods.slice/kubepods-burstable.slice", "", "", "", "burstable", "", "", "",
	  "/kubepods.slice/kubepods-burstable.slice" },
	{ "/kubepods.slice/kubepods-burstable-pod.slice", "", "", "", "burstable", "", "", "",
	  "/kubepods.slice/kubepods-burstable-pod.slice" },
	/* slurm on v1 and v2 */
	{ "/slurm/uid_1000/job_42/step_0/task_0", "", "", "", "", "42", "0", "",
	  "slurm job 42 step 0" },
	{ "/system.slice/slurmstepd.scope/job_42/step_batch/user/task_0", "", "", "", "", "42",
	  "batch", "slurmstepd.scope", "slurm job 42 step batch" },
	{ "/slurm/uid_1000/job_7", "", "", "", "", "7", "", "", "slurm job 7" },
	/* systemd */
	{ "/system.slice/foo.service", "", "", "", "", "", "", "foo.service", "foo.service" },
	{ "/user.slice/user-1000.slice/session-3.scope", "", "", "", "", "", "", "session-3.scope",
	  "session-3.scope" },
	{ "/init.scope", "", "", "", "", "", "", "init.scope", "init.scope" },
	/* podman */
	{ "/machine.slice/libpod-" ID ".scope", "podman", ID, "", "", "", "", "", "podman " ID12 },
	/* the root */
	{ "/", "", "", "", "", "", "", "", "/" },
	/* nothing known */
	{ "/system.slice", "", "", "", "", "", "", "", "/system.slice" },
};

static void check(const struct want *w)
{
	struct rv_cgname n;

	rv_cgname_parse(w->path, &n);
	if (strcmp(n.runtime, w->runtime) || strcmp(n.container, w->container) ||
	    strcmp(n.pod_uid, w->pod_uid) || strcmp(n.qos, w->qos) || strcmp(n.slurm_job, w->job) ||
	    strcmp(n.slurm_step, w->step) || strcmp(n.unit, w->unit) || strcmp(n.label, w->label))
		fail_msg("%s: got runtime '%s' container '%s' pod '%s' qos '%s' job '%s' step '%s' "
			 "unit '%s' label '%s'", w->path, n.runtime, n.container, n.pod_uid, n.qos,
			 n.slurm_job, n.slurm_step, n.unit, n.label);
}

static void test_layouts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		check(&layouts[i]);
}

/* Only the label, and it is the path. */
static void expect_nothing(const char *path)
{
	struct want w = { path, "", "", "", "", "", "", "", path };

	check(&w);
}

static void test_garbage(void **state)
{
	static const char *const paths[] = {
		"",
		"/kubepods/pod",                              /* pod without a UID */
		"/kubepods/pod/" ID "x",
		"/kubepods.slice/kubepods-pod.slice",
		"/kubepods.slice/kubepods-pod" "1f2e3d4c_5b6a_7980_a1b2_c3d4e5f6a7b" ".slice",
		"/kubepods.slice/kubepods-pod" "1f2e3d4c-5b6a-7980-a1b2+c3d4e5f6a7b8" ".slice",
		"/kubepods-.slice",
		"/docker/3f2a9c1b0d7e",                       /* short ids */
		"/docker/" ID "0",
		"/docker/" "3f2a9c1b0d7e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9g",
		"/system.slice/docker-"
		"3f2a9c1b0d7e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9"
		".scope",
		"/system.slice/cri-containerd-.scope",
		"/system.slice/crio-conmon-" ID ".scope",
		"/" ID,                                       /* an id outside any layout */
		"//",
		"/job_/step_",
		"/job_4x2",
		"/.scope/.service",
		"no slash at all",
	};
	char longp[601];
	struct rv_cgname n;

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		expect_nothing(paths[i]);
	for (size_t i = 0; i < 600; i++)
		longp[i] = i % 7 == 0 ? '/' : (char)('a' + i % 26);
	longp[600] = '\0';
	rv_cgname_parse(longp, &n);
	assert_int_equal(strlen(n.label), sizeof(n.label) - 1);
	assert_memory_equal(n.label, longp, sizeof(n.label) - 1);
	assert_string_equal(n.unit, "");
	/* a unit name longer than the field is not cut: left out */
	memcpy(longp, "/x", 2);
	memcpy(longp + 500, ".service", sizeof(".service"));
	for (size_t i = 2; i < 500; i++)
		longp[i] = 'u';
	rv_cgname_parse(longp, &n);
	assert_string_equal(n.unit, "");
	rv_cgname_parse(NULL, &n);
	assert_string_equal(n.label, "");
}

/* ------------------------------------------------------------- text */

static struct rv_consumer consumer(int is_cgroup, const char *cgroup, enum rv_attrib_res res,
				   double amount, double share)
{
	struct rv_consumer c;

	memset(&c, 0, sizeof(c));
	c.is_cgroup = is_cgroup;
	c.pid = is_cgroup ? 0 : 4242;
	snprintf(c.comm, sizeof(c.comm), "%s", is_cgroup ? "" : "stress-ng");
	snprintf(c.cgroup, sizeof(c.cgroup), "%s", cgroup);
	rv_cgname_parse(cgroup, &c.name);
	c.res = res;
	c.amount = amount;
	c.before = NAN;
	c.share = share;
	c.pressure = NAN;
	return c;
}

static void expect_text(const struct rv_consumer *c, const char *want)
{
	char buf[384];
	int n = rv_consumer_text(c, buf, sizeof(buf));

	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
}

static void test_text(void **state)
{
	static const char full[] =
		"pid 4242 stress-ng in system.slice/foo.service took 1.90 cores (61 %)";
	struct rv_consumer c;
	char small[10];

	(void)state;
	c = consumer(0, "/system.slice/foo.service", RV_ATTRIB_CPU, 1.9, 0.61);
	expect_text(&c, full);
	c = consumer(1, "/docker/" ID, RV_ATTRIB_CPU, 1.9, 0.61);
	c.before = 0.1;
	expect_text(&c, "cgroup docker " ID12 " took 1.90 cores (61 %), 0.10 before");
	c = consumer(0, "/docker/" ID, RV_ATTRIB_MEM, 512.0 * 1048576.0, 0.5);
	expect_text(&c, "pid 4242 stress-ng in docker " ID12 " grew 512 MiB (50 %)");
	c = consumer(0, "/", RV_ATTRIB_MEM, -3.0 * 1048576.0, 0.0);
	expect_text(&c, "pid 4242 stress-ng shrank 3 MiB (0 %)");
	c = consumer(0, "", RV_ATTRIB_MEM, 1.5 * 1073741824.0, 1.0);
	expect_text(&c, "pid 4242 stress-ng grew 1.5 GiB (100 %)");
	c = consumer(1, "/system.slice/backup.service", RV_ATTRIB_IO, 12.5e6, 0.4);
	c.before = 0.5e6;
	c.pressure = 12.34;
	expect_text(&c, "cgroup backup.service took 12.5 MB/s of I/O (40 %), 0.5 MB/s before, "
			"io pressure 12.3 %");
	c = consumer(1, "/system.slice", RV_ATTRIB_MEM, 2048.0, 0.25);
	c.before = 1024.0;
	expect_text(&c, "cgroup /system.slice grew 2 KiB (25 %), 1 KiB before");
	/* snprintf's count when cut, and NULL/0 to size */
	c = consumer(0, "/system.slice/foo.service", RV_ATTRIB_CPU, 1.9, 0.61);
	assert_int_equal(rv_consumer_text(&c, small, sizeof(small)), (int)strlen(full));
	assert_string_equal(small, "pid 4242 ");
	assert_int_equal(rv_consumer_text(&c, NULL, 0), (int)strlen(full));
}

static void test_res_names(void **state)
{
	(void)state;
	assert_string_equal(rv_attrib_res_name(RV_ATTRIB_CPU), "cpu");
	assert_string_equal(rv_attrib_res_name(RV_ATTRIB_MEM), "memory");
	assert_string_equal(rv_attrib_res_name(RV_ATTRIB_IO), "io");
	assert_string_equal(rv_attrib_res_unit(RV_ATTRIB_CPU), "cores");
	assert_string_equal(rv_attrib_res_unit(RV_ATTRIB_MEM), "bytes");
	assert_string_equal(rv_attrib_res_unit(RV_ATTRIB_IO), "bytes/s");
	assert_string_equal(rv_attrib_res_name(RV_ATTRIB_RES_COUNT), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_res_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
