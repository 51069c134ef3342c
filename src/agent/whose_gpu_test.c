/*
 * whose_gpu_test.c - the GPUs in whose workload (whose_gpu.c, whose.c):
 * the GPUs an incident's signals name, the exact ranking of GPU processes
 * (named GPUs first, SM use, memory, pid) and their one-line texts; then,
 * against the fake NVIDIA management library (RV_FAKE_LIBDIR,
 * FAKE_NVML_PROCS) with real child processes (`sleep`) as the GPU's
 * processes: the consumers joined with the process scan (name, command
 * line, SM share), and the attribution worker itself (whose.c) naming
 * them for a gpu incident, or ranking CPU time as before when NVML lists
 * no GPU process, or when it is not there at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_int.h"
#include "agent/whose_gpu.h"

enum { NCHILD = 3, NO_SUCH_PID = 4194400 };   /* above the kernel's PID_MAX_LIMIT */

#define ID "3f2a9c1b0d7e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a"
#define UID "1f2e3d4c-5b6a-7980-a1b2-c3d4e5f6a7b8"
#define UID_ "1f2e3d4c_5b6a_7980_a1b2_c3d4e5f6a7b8"

static const double GIB = 1024.0 * 1024.0 * 1024.0, MIB = 1024.0 * 1024.0;

static const char *const vars[] = {
	"FAKE_NVML_GPUS", "FAKE_NVML_MODEL", "FAKE_NVML_PROCS", "FAKE_NVML_NOT_SUPPORTED",
};

static int reset(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	return 0;
}

static void set_sig(struct rv_store_incident *in, size_t i, const char *name)
{
	snprintf(in->sig[i].name, sizeof(in->sig[i].name), "%s", name);
	in->nsig = i + 1;
}

static void test_named(void **state)
{
	struct rv_store_incident in = { .id = 1 };
	struct agent_gpus g;

	(void)state;
	set_sig(&in, 0, "gpu.util_pct:gpu3");
	set_sig(&in, 1, "cpu.util");
	set_sig(&in, 2, "gpu.power_w:gpu1");
	set_sig(&in, 3, "gpu.temp_c:gpu3");
	set_sig(&in, 4, "gpu.x:gpux");
	set_sig(&in, 5, "net.rx_bytes:eth0");
	set_sig(&in, 6, "gpu.nvlink_tx_bytes:gpu12.link4");
	/* a name that fills its field, without a NUL */
	memset(in.sig[7].name, 'a', sizeof(in.sig[7].name));
	memcpy(in.sig[7].name + sizeof(in.sig[7].name) - 5, ":gpu5", 5);
	in.nsig = 8;
	rv_agent_gpu_named(&in, &g);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.idx[0], 3);
	assert_int_equal(g.idx[1], 1);
	assert_int_equal(g.idx[2], 12);
	assert_int_equal(g.idx[3], 5);
	in.nsig = 0;
	rv_agent_gpu_named(&in, &g);
	assert_int_equal(g.n, 0);
}

static const struct rv_gpu_proc procs[] = {
	{ .gpu = 0, .pid = 100, .mem_bytes = 40 * GIB, .sm_pct = 95, .mem_pct = 40 },
	{ .gpu = 3, .pid = 200, .mem_bytes = 2 * GIB, .sm_pct = 20, .mem_pct = 10 },
	{ .gpu = 3, .pid = 201, .mem_bytes = 8 * GIB, .sm_pct = 20, .mem_pct = 10 },
	{ .gpu = 3, .pid = 202, .mem_bytes = NAN, .sm_pct = NAN, .mem_pct = NAN },
	{ .gpu = 1, .pid = 300, .mem_bytes = 1 * GIB, .sm_pct = 0, .mem_pct = 0 },
	{ .gpu = 3, .pid = 150, .mem_bytes = 8 * GIB, .sm_pct = 20, .mem_pct = 10 },
	{ .gpu = 0, .pid = 150, .mem_bytes = 8 * GIB, .sm_pct = 20, .mem_pct = 10 },
};

static void check_order(const struct agent_gpus *named, size_t max, const size_t *want, size_t n)
{
	size_t top[8];

	assert_int_equal(rv_agent_gpu_rank(procs, 7, named, top, max), n);
	for (size_t i = 0; i < n; i++)
		if (top[i] != want[i])
			fail_msg("rank %zu: entry %zu, want %zu", i, top[i], want[i]);
}

static void test_rank(void **state)
{
	struct agent_gpus gpu3 = { .idx = { 3 }, .n = 1 }, none = { .n = 0 };
	/* gpu3 first (SM, then memory, then pid; unknown last), then the rest */
	static const size_t named[] = { 5, 2, 1, 3, 0, 6, 4 };
	/* no GPU named: SM, memory, pid, GPU */
	static const size_t plain[] = { 0, 6, 5, 2, 1, 4, 3 };

	(void)state;
	check_order(&gpu3, 8, named, 7);
	check_order(&gpu3, 3, named, 3);
	check_order(&none, 7, plain, 7);
	check_order(NULL, 2, plain, 2);
	check_order(&gpu3, 0, named, 0);
	assert_int_equal(rv_agent_gpu_rank(procs, 0, &gpu3, (size_t[1]){ 0 }, 1), 0);
}

static void who_in(struct rv_consumer *who, int pid, const char *comm, const char *cgroup)
{
	memset(who, 0, sizeof(*who));
	who->pid = pid;
	snprintf(who->comm, sizeof(who->comm), "%s", comm);
	snprintf(who->cgroup, sizeof(who->cgroup), "%s", cgroup);
	rv_cgname_parse(cgroup, &who->name);
}

static void text_is(const struct rv_gpu_proc *p, const struct rv_consumer *who, const char *want)
{
	char buf[384];
	int n = rv_agent_gpu_text(p, who, buf, sizeof(buf));

	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
}

static void test_text(void **state)
{
	const struct rv_gpu_proc p = { .gpu = 3, .pid = 4242, .mem_bytes = 40 * GIB, .sm_pct = 87 };
	const struct rv_gpu_proc q = { .gpu = 0, .pid = 7, .mem_bytes = 512 * MIB, .sm_pct = 3.4 };
	const struct rv_gpu_proc u = { .gpu = 1, .pid = 8, .mem_bytes = NAN, .sm_pct = NAN };
	struct rv_consumer who;
	char small[12];

	(void)state;
	who_in(&who, 4242, "python3",
	       "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	       ".slice/cri-containerd-" ID ".scope");
	text_is(&p, &who, "pid 4242 python3 (pod " UID ") on gpu3: 87 % SM, 40.0 GiB");
	who_in(&who, 4242, "python3", "/system.slice/docker-" ID ".scope");
	text_is(&p, &who, "pid 4242 python3 (docker 3f2a9c1b0d7e) on gpu3: 87 % SM, 40.0 GiB");
	who_in(&who, 4242, "python3", "/slurm/uid_1000/job_42/step_0/task_0");
	text_is(&p, &who, "pid 4242 python3 (slurm job 42 step 0) on gpu3: 87 % SM, 40.0 GiB");
	who_in(&who, 4242, "python3", "/system.slice/trainer.service");
	text_is(&p, &who, "pid 4242 python3 (trainer.service) on gpu3: 87 % SM, 40.0 GiB");
	who_in(&who, 4242, "python3", "/");
	text_is(&p, &who, "pid 4242 python3 on gpu3: 87 % SM, 40.0 GiB");
	text_is(&q, NULL, "pid 7 on gpu0: 3 % SM, 512 MiB");
	text_is(&u, &who, "pid 8 on gpu1: SM unknown, memory unknown");   /* who is another pid */
	assert_int_equal(rv_agent_gpu_text(&q, NULL, small, sizeof(small)), 30);
	assert_string_equal(small, "pid 7 on gp");
}

/* ---------------------------------------------- with the fake and /proc */

struct kids {
	pid_t pid[NCHILD];
};

/* NCHILD `sleep 30`, waited for until each runs sleep. */
static void spawn(struct kids *k)
{
	char path[64], comm[32];

	for (int i = 0; i < NCHILD; i++) {
		k->pid[i] = fork();
		assert_true(k->pid[i] >= 0);
		if (k->pid[i] == 0) {
			execlp("sleep", "sleep", "30", (char *)NULL);
			_exit(127);
		}
	}
	for (int i = 0; i < NCHILD; i++) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)k->pid[i]);
		for (int t = 0; t < 200; t++) {
			FILE *f = fopen(path, "r");
			int ok = f && fgets(comm, sizeof(comm), f) && strcmp(comm, "sleep\n") == 0;

			if (f)
				fclose(f);
			if (ok)
				break;
			nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
		}
	}
}

static void reap(struct kids *k)
{
	for (int i = 0; i < NCHILD; i++) {
		kill(k->pid[i], SIGKILL);
		waitpid(k->pid[i], NULL, 0);
	}
}

static void fake_path(char *buf, size_t cap)
{
	const char *dir = getenv("RV_FAKE_LIBDIR");

	assert_non_null(dir);
	snprintf(buf, cap, "%s/libnvidia_ml_fake.so", dir);
}

/* GPU 0 runs kid 0 (87 %, 40 GiB), GPU 3 kids 1 (20 %, 2 GiB) and 2
 * (60 %, 1 GiB), GPU 1 a pid that is no process here (50 %, 2 GiB); the
 * incident's signals name GPU 3. */
static void fake_procs(const struct kids *k)
{
	char v[256];

	snprintf(v, sizeof(v), "0:%d:40960:87,3:%d:2048:20,3:%d:1024:60,1:%d:2048:50",
		 (int)k->pid[0], (int)k->pid[1], (int)k->pid[2], NO_SUCH_PID);
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_GPUS", "4", 1);
	setenv("FAKE_NVML_PROCS", v, 1);
}

/* The where part of a GPU text, from the stored naming of a consumer. */
static void where_of(const struct rv_store_consumer *c, char *buf, size_t cap)
{
	if (c->pod_uid[0])
		snprintf(buf, cap, " (pod %s)", c->pod_uid);
	else if (c->container[0] || c->slurm_job[0])
		snprintf(buf, cap, " (%s)", c->label);
	else if (c->unit[0])
		snprintf(buf, cap, " (%s)", c->unit);
	else
		buf[0] = '\0';
}

/* A kid's consumer: joined with the scan (comm, command line, cgroup). */
static void check_kid(const struct rv_store_consumer *c, pid_t pid, const char *tail,
		      double sm, double sum)
{
	char where[200], want[400];

	assert_int_equal(c->pid, (int)pid);
	assert_int_equal(c->is_cgroup, 0);
	assert_string_equal(c->comm, "sleep");
	assert_string_equal(c->cmd, "sleep 30");
	assert_string_equal(c->resource, "gpu");
	assert_true(c->amount == sm);
	assert_true(fabs(c->share - sm / sum) < 1e-12);
	assert_true(isnan(c->before) && isnan(c->pressure));
	where_of(c, where, sizeof(where));
	snprintf(want, sizeof(want), "pid %d sleep%s %s", (int)pid, where, tail);
	assert_string_equal(c->text, want);
}

static void test_consumers(void **state)
{
	struct rv_store_incident in = { .id = 1 };
	struct rv_store_consumer out[RV_STORE_CONS_MAX];
	struct rv_attrib *at = NULL;
	struct rv_attrib_snap *snap = NULL;
	struct agent_gpus named;
	struct agent_gpu g;
	struct kids k;
	char lib[512];
	const double sum = 87 + 20 + 60 + 50;

	(void)state;
	spawn(&k);
	fake_procs(&k);
	fake_path(lib, sizeof(lib));
	assert_int_equal(rv_attrib_new("", NULL, &at, NULL), 0);
	assert_int_equal(rv_attrib_snap_new(at, &snap), 0);
	assert_int_equal(rv_attrib_scan_procs(at, snap, 1.0, NULL), 0);
	assert_int_equal(rv_agent_gpu_open(&g, lib), 0);
	assert_non_null(g.who);
	set_sig(&in, 0, "gpu.util_pct:gpu3");
	rv_agent_gpu_named(&in, &named);
	assert_int_equal(rv_agent_gpu_consumers(&g, at, snap, &named, 1234.5, out, 8), 4);
	check_kid(&out[0], k.pid[2], "on gpu3: 60 % SM, 1.0 GiB", 60, sum);
	check_kid(&out[1], k.pid[1], "on gpu3: 20 % SM, 2.0 GiB", 20, sum);
	check_kid(&out[2], k.pid[0], "on gpu0: 87 % SM, 40.0 GiB", 87, sum);
	assert_int_equal(out[3].pid, NO_SUCH_PID);
	assert_string_equal(out[3].comm, "");
	assert_string_equal(out[3].text, "pid 4194400 on gpu1: 50 % SM, 2.0 GiB");
	assert_true(out[0].measured_ts == 1234.5);
	/* the next list covers the fake's next tick: SM + 1; room for 2 */
	assert_int_equal(rv_agent_gpu_consumers(&g, at, snap, &named, 1.0, out, 2), 2);
	assert_true(out[0].amount == 61 && out[1].amount == 21);
	rv_agent_gpu_close(&g);
	rv_agent_gpu_close(&g);
	rv_attrib_snap_free(snap);
	rv_attrib_free(at);
	reap(&k);
}

static void test_no_nvml(void **state)
{
	struct rv_store_consumer out[RV_STORE_CONS_MAX];
	struct agent_gpu g;

	(void)state;
	assert_int_equal(rv_agent_gpu_open(&g, "libnvidia_ml_not_here.so"), 0);
	assert_null(g.who);
	assert_int_equal(rv_agent_gpu_consumers(&g, NULL, NULL, NULL, 0.0, out, 8), 0);
	rv_agent_gpu_close(&g);
}

/* ------------------------------------------------ the worker (whose.c) */

static struct agent *agent_on(const char *lib)
{
	struct agent *a = calloc(1, sizeof(*a));

	assert_non_null(a);
	rv_config_defaults(&a->cfg);
	snprintf(a->cfg.collect.nvml, sizeof(a->cfg.collect.nvml), "%s", lib);
	return a;
}

/* A gpu incident with the subsystems' shares `ranked` measured by the
 * worker: its consumers into c. */
static size_t measured(struct agent *a, const char *ranked, struct rv_store_consumer *c)
{
	struct rv_store_incident in = { .id = 7 };
	struct rv_err err = { 0 };
	size_t n = 0;

	snprintf(in.subsystem, sizeof(in.subsystem), "gpu");
	snprintf(in.subsystems, sizeof(in.subsystems), "%s", ranked);
	set_sig(&in, 0, "gpu.util_pct:gpu3");
	assert_int_equal(rv_agent_whose_start(a, &err), 0);
	assert_non_null(a->whose);
	rv_agent_whose_request(a, &in);
	/* two scans a second apart: well within 30 s even on a loaded host */
	for (int t = 0; t < 300 && n == 0; t++) {
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
		rv_agent_whose_poll(a);
		n = rv_agent_whose_get(a, in.id, c, RV_STORE_CONS_MAX);
	}
	rv_agent_whose_stop(a);
	assert_null(a->whose);
	free(a);
	return n;
}

/* NVML lists the kids: the GPU processes first (GPU 3's first), then the
 * CPU's cgroups; the GPU alone gets 5 processes and 3 cgroups, with a
 * second resource (cpu) 3 and 1 each. */
static void test_worker_gpu(void **state)
{
	struct rv_store_consumer c[RV_STORE_CONS_MAX], d[RV_STORE_CONS_MAX];
	struct kids k;
	char lib[512];
	size_t n, m;
	const double sum = 87 + 20 + 60 + 50;

	(void)state;
	spawn(&k);
	fake_procs(&k);
	fake_path(lib, sizeof(lib));
	n = measured(agent_on(lib), "gpu:1.000", c);
	m = measured(agent_on(lib), "gpu:0.700,cpu:0.300", d);
	reap(&k);
	assert_true(n >= 4 && n <= 4 + 3);
	check_kid(&c[0], k.pid[2], "on gpu3: 60 % SM, 1.0 GiB", 60, sum);
	check_kid(&c[1], k.pid[1], "on gpu3: 20 % SM, 2.0 GiB", 20, sum);
	check_kid(&c[2], k.pid[0], "on gpu0: 87 % SM, 40.0 GiB", 87, sum);
	assert_string_equal(c[3].text, "pid 4194400 on gpu1: 50 % SM, 2.0 GiB");
	for (size_t i = 4; i < n; i++) {
		assert_int_equal(c[i].is_cgroup, 1);
		assert_string_equal(c[i].resource, "cpu");
	}
	/* a new agent loads the fake anew: its first tick again */
	assert_true(m >= 3 && m <= 3 + 1 + 3 + 1);
	check_kid(&d[0], k.pid[2], "on gpu3: 60 % SM, 1.0 GiB", 60, sum);
	check_kid(&d[1], k.pid[1], "on gpu3: 20 % SM, 2.0 GiB", 20, sum);
	check_kid(&d[2], k.pid[0], "on gpu0: 87 % SM, 40.0 GiB", 87, sum);
	for (size_t i = 3; i < m; i++)
		assert_string_equal(d[i].resource, "cpu");
}

/* A child that spins until killed: the CPU's top consumer. */
static pid_t spinner(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		for (volatile unsigned long i = 0;; i++)
			;
	}
	return pid;
}

/* As without GPUs: CPU processes (the spinner among them: other helpers'
 * work on a shared host may outrank it) and cgroups only. */
static void check_as_before(const struct rv_store_consumer *c, size_t n, pid_t spin)
{
	int seen = 0;

	assert_true(n >= 1 && n <= 5 + 3);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(c[i].resource, "cpu");
		seen |= !c[i].is_cgroup && c[i].pid == (int)spin;
	}
	assert_true(seen);
}

static void without_gpus(const char *lib, const char *model, int exclude)
{
	struct rv_store_consumer c[RV_STORE_CONS_MAX];
	struct agent *a = agent_on(lib);
	struct kids k;
	pid_t spin;
	size_t n;

	spawn(&k);
	fake_procs(&k);
	setenv("FAKE_NVML_MODEL", model, 1);
	if (exclude) {
		snprintf(a->cfg.collect.exclude[0], sizeof(a->cfg.collect.exclude[0]), "nvml");
		a->cfg.collect.n_exclude = 1;
	}
	spin = spinner();
	n = measured(a, "gpu:0.700,cpu:0.300", c);
	kill(spin, SIGKILL);
	waitpid(spin, NULL, 0);
	reap(&k);
	check_as_before(c, n, spin);
}

/* NVML there but no process listed (the basic model has no process
 * calls); NVML not there; NVML there but its source excluded. */
static void test_worker_without_gpus(void **state)
{
	char lib[512];

	(void)state;
	fake_path(lib, sizeof(lib));
	without_gpus(lib, "basic", 0);
	without_gpus("libnvidia_ml_not_here.so", "h100", 0);
	without_gpus(lib, "h100", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_text),
		cmocka_unit_test_setup(test_consumers, reset),
		cmocka_unit_test_setup(test_no_nvml, reset),
		cmocka_unit_test_setup(test_worker_gpu, reset),
		cmocka_unit_test_setup(test_worker_without_gpus, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
