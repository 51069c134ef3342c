/*
 * cgname.c - what a cgroup path says (rv_cgname_parse, attrib.h): the
 * container runtimes' scopes and directories, the kubelet's pod and QoS
 * levels under both cgroup drivers, Slurm's job and step levels and
 * systemd's units, read component by component; then the one label an
 * operator reads. Every id is checked for its form (a container id is
 * 64 hex digits; a pod UID 36 characters 8-4-4-4-12 of hex, or the 32
 * hex digits of a static pod's hash): a component that looks like one of
 * these layouts but fails the check says nothing. No allocation.
 *
 * Layouts, with the fields each fills:
 *   /docker/<id>                         runtime docker, container
 *   .../docker-<id>.scope                runtime docker, container
 *   .../cri-containerd-<id>.scope        runtime containerd, container
 *   .../crio-<id>.scope                  runtime crio, container
 *   .../libpod-<id>.scope                runtime podman, container
 *   /kubepods.slice/[kubepods-<qos>.slice/]kubepods-[<qos>-]pod<uid>.slice/...
 *                                        pod_uid ('_' read as '-'), qos
 *   /kubepods/[<qos>/]pod<uid>/<id>      pod_uid, qos, container (runtime "")
 *   .../job_<N>/[step_<S>/]...           slurm_job, slurm_step
 *   .../<name>.service, .../<name>.scope unit (the last, not a container's)
 * The QoS class is guaranteed for a pod when no qos level is in the path.
 */
#include "attrib/attrib.h"

#include <stdio.h>
#include <string.h>

enum {
	CID_LEN = 64,             /* a container id: 64 hex digits */
	UID_LEN = 36,             /* a pod UID: 8-4-4-4-12 */
	UID_HASH_LEN = 32,        /* a static pod's UID: an md5 in hex */
	ID_SHORT = 12,            /* the id in a label */
};

/* A container runtime's systemd scope: prefix + id + ".scope". */
static const struct {
	const char *prefix;
	const char *runtime;
} scopes[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "crio" },
	{ "libpod-", "podman" },
};

/* What the components seen so far said. */
struct walk {
	int kube;                 /* a kubepods level was seen */
	int after_kubepods;       /* the previous component was "kubepods" */
	int after_docker;         /* the previous component was "docker" */
};

static int starts(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && memcmp(s, pre, k) == 0;
}

static int ends(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

static int is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && memcmp(s, word, n) == 0;
}

static int hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_cid(const char *s, size_t n)
{
	if (n != CID_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!hex(s[i]))
			return 0;
	return 1;
}

/* Copies [s, s + n) into dst of cap bytes when it fits; else leaves it. */
static void put(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		return;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* A pod UID [s, s + n), its separators '-' or '_': written to out with
 * '-' when it has the form; 1, else 0. */
static int pod_uid(const char *s, size_t n, struct rv_cgname *out)
{
	char uid[UID_LEN + 1];

	if (n != UID_LEN && n != UID_HASH_LEN)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int dash = n == UID_LEN && (i == 8 || i == 13 || i == 18 || i == 23);

		if (dash ? s[i] != '-' && s[i] != '_' : !hex(s[i]))
			return 0;
		uid[i] = dash ? '-' : s[i];
	}
	put(out->pod_uid, sizeof(out->pod_uid), uid, n);
	return 1;
}

static void set_qos(struct rv_cgname *out, const char *s, size_t n)
{
	if (is(s, n, "burstable") || is(s, n, "besteffort"))
		put(out->qos, sizeof(out->qos), s, n);
}

/* A container runtime's scope: 1 (runtime and container filled when its
 * id has the form), else 0. */
static int container_scope(const char *s, size_t n, struct rv_cgname *out)
{
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		size_t k = strlen(scopes[i].prefix);

		if (!starts(s, n, scopes[i].prefix) || !ends(s, n, ".scope"))
			continue;
		if (is_cid(s + k, n - k - strlen(".scope"))) {
			put(out->runtime, sizeof(out->runtime), scopes[i].runtime,
			    strlen(scopes[i].runtime));
			put(out->container, sizeof(out->container), s + k, CID_LEN);
		}
		return 1;
	}
	return 0;
}

/* A kubelet slice of the systemd driver: "kubepods-<qos>.slice",
 * "kubepods-[<qos>-]pod<uid>.slice". */
static void kube_slice(const char *s, size_t n, struct rv_cgname *out)
{
	static const char *const levels[] = { "burstable", "besteffort" };
	const char *in = s + strlen("kubepods-");
	size_t k = n - strlen("kubepods-") - strlen(".slice");

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		size_t q = strlen(levels[i]);

		if (!starts(in, k, levels[i]) || (k > q && in[q] != '-'))
			continue;
		set_qos(out, in, q);
		if (k == q)
			return;
		in += q + 1;
		k -= q + 1;
		break;
	}
	if (starts(in, k, "pod"))
		pod_uid(in + 3, k - 3, out);
}

/* Slurm's "job_<N>" and "step_<S>" levels. */
static void slurm_level(const char *s, size_t n, struct rv_cgname *out)
{
	if (starts(s, n, "job_") && n > 4) {
		for (size_t i = 4; i < n; i++)
			if (s[i] < '0' || s[i] > '9')
				return;
		put(out->slurm_job, sizeof(out->slurm_job), s + 4, n - 4);
	} else if (starts(s, n, "step_") && n > 5) {
		put(out->slurm_step, sizeof(out->slurm_step), s + 5, n - 5);
	}
}

/* One component [s, s + n) of the path. */
static void component(const char *s, size_t n, struct walk *w, struct rv_cgname *out)
{
	int after_kubepods = w->after_kubepods, after_docker = w->after_docker;

	w->after_kubepods = is(s, n, "kubepods");
	w->after_docker = is(s, n, "docker");
	if (w->after_kubepods || is(s, n, "kubepods.slice")) {
		w->kube = 1;
		return;
	}
	if (container_scope(s, n, out))
		return;
	if (starts(s, n, "kubepods-") && ends(s, n, ".slice") && n > strlen("kubepods-.slice")) {
		w->kube = 1;
		kube_slice(s, n, out);
	} else if ((after_docker || w->kube) && is_cid(s, n)) {
		if (after_docker)
			put(out->runtime, sizeof(out->runtime), "docker", strlen("docker"));
		put(out->container, sizeof(out->container), s, n);
	} else if (w->kube && after_kubepods && (is(s, n, "burstable") || is(s, n, "besteffort"))) {
		set_qos(out, s, n);
	} else if (w->kube && starts(s, n, "pod")) {
		pod_uid(s + 3, n - 3, out);
	} else if (starts(s, n, "job_") || starts(s, n, "step_")) {
		slurm_level(s, n, out);
	} else if ((ends(s, n, ".service") && n > strlen(".service")) ||
		   (ends(s, n, ".scope") && n > strlen(".scope"))) {
		put(out->unit, sizeof(out->unit), s, n);
	}
}

static void label(const char *path, struct rv_cgname *out)
{
	char *l = out->label;
	size_t cap = sizeof(out->label);

	if (out->pod_uid[0] && out->container[0])
		snprintf(l, cap, "pod %s (%s) container %.*s", out->pod_uid, out->qos, ID_SHORT,
			 out->container);
	else if (out->pod_uid[0])
		snprintf(l, cap, "pod %s (%s)", out->pod_uid, out->qos);
	else if (out->container[0])
		snprintf(l, cap, "%s %.*s", out->runtime[0] ? out->runtime : "container",
			 ID_SHORT, out->container);
	else if (out->slurm_job[0] && out->slurm_step[0])
		snprintf(l, cap, "slurm job %s step %s", out->slurm_job, out->slurm_step);
	else if (out->slurm_job[0])
		snprintf(l, cap, "slurm job %s", out->slurm_job);
	else if (out->unit[0])
		snprintf(l, cap, "%s", out->unit);
	else
		snprintf(l, cap, "%s", path);
}

void rv_cgname_parse(const char *path, struct rv_cgname *out)
{
	struct walk w = { 0 };
	const char *p;

	memset(out, 0, sizeof(*out));
	if (!path)
		path = "";
	for (p = path; *p;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n)
			component(p, n, &w, out);
		p += n + (e ? 1 : 0);
	}
	if (out->pod_uid[0] && !out->qos[0])
		put(out->qos, sizeof(out->qos), "guaranteed", strlen("guaranteed"));
	label(path, out);
}
