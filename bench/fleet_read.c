/*
 * fleet_read.c - how fast an hour of a fleet's summaries goes into a
 * Prometheus-compatible store by remote-write and comes back out through
 * the HTTP API the way `reveal fleet` reads it (issue 16; numbers in
 * docs/PERFORMANCE.md and docs/SCALING.md). bench/fleet_read.sh runs it
 * against a VictoriaMetrics of its own.
 *
 *   fleet_read --url URL --load [options]   fill the store
 *   fleet_read --url URL --read [options]   read it back
 *
 * Options: --nodes N (1000), --channels C (400), --interval S (10),
 * --points P (360: one hour at 10 s), --end T (Unix seconds, a multiple of
 * S; default now rounded down; give the same to --load and --read),
 * --threads K (2: senders in --load, readers in --read), --gzip 0|1 (1:
 * ask for compressed answers).
 *
 * --load sends, for every node, one remote-write request holding its C
 * series `reveal_channel_mean{node, instance, group, cluster, channel,
 * subsystem}` with P samples each, the last at T (values: a per-series
 * level with 5 % noise, full doubles, as means are), K senders back to
 * back. Prints the samples, requests, bytes and seconds, and the rate.
 *
 * --read makes one query_range per channel (`reveal_channel_mean{channel=
 * "cN"}`, all nodes; start T - (P-1) S, end T, step S) through
 * rv_prom_query_range, the channels shared among K readers, each with its
 * own rv_prom; it checks that every answer holds N series of P points and
 * prints seconds, bytes (decoded and on the wire), points per second and
 * the peak RSS of this process.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <curl/curl.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/rng.h"
#include "remote/httpc.h"
#include "remote/promapi.h"
#include "remote/rwrite.h"

enum { LABELS = 7, NAME_MAX_BYTES = 64, SUBSYSTEMS = 4, NODES_PER_GROUP = 100 };

static const char *const subsystems[SUBSYSTEMS] = { "cpu", "mem", "net", "disk" };

struct cfg {
	const char *url;
	int load, read;
	long nodes, channels, points, threads;
	double interval, end;
	int gzip;
};

struct worker {
	const struct cfg *c;
	long id;
	/* results */
	uint64_t requests, bytes, samples, series, bad;
	struct rv_prom_stats st;
	int rc;
	char msg[RV_ERR_MSG_MAX];
};

static void usage(void)
{
	fprintf(stderr, "usage: fleet_read --url URL --load|--read [--nodes N] [--channels C]\n"
		"  [--interval S] [--points P] [--end T] [--threads K] [--gzip 0|1]\n");
	exit(2);
}

static void parse_args(int argc, char **argv, struct cfg *c)
{
	static const struct option opts[] = {
		{ "url", 1, 0, 'u' }, { "load", 0, 0, 'l' }, { "read", 0, 0, 'r' },
		{ "nodes", 1, 0, 'n' }, { "channels", 1, 0, 'c' }, { "interval", 1, 0, 'i' },
		{ "points", 1, 0, 'p' }, { "end", 1, 0, 'e' }, { "threads", 1, 0, 't' },
		{ "gzip", 1, 0, 'g' }, { 0, 0, 0, 0 },
	};
	int o;

	*c = (struct cfg){ .nodes = 1000, .channels = 400, .points = 360, .threads = 2,
			   .interval = 10, .gzip = 1 };
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'u': c->url = optarg; break;
		case 'l': c->load = 1; break;
		case 'r': c->read = 1; break;
		case 'n': c->nodes = strtol(optarg, NULL, 10); break;
		case 'c': c->channels = strtol(optarg, NULL, 10); break;
		case 'i': c->interval = strtod(optarg, NULL); break;
		case 'p': c->points = strtol(optarg, NULL, 10); break;
		case 'e': c->end = strtod(optarg, NULL); break;
		case 't': c->threads = strtol(optarg, NULL, 10); break;
		case 'g': c->gzip = (int)strtol(optarg, NULL, 10); break;
		default: usage();
		}
	}
	if (!c->url || c->load == c->read || c->nodes < 1 || c->channels < 1 || c->points < 1 ||
	    c->threads < 1 || !(c->interval >= 1))
		usage();
	if (c->end <= 0)
		c->end = floor((double)time(NULL) / c->interval) * c->interval;
}

/* ---------------------------------------------------------------- load */

/* The series `reveal fleet` finds the nodes by (reveal_node_learning, 0)
 * and one fact (reveal_fact_info{fact, value}, 1), with the node's labels
 * of l (channel and subsystem emptied: rwrite leaves empty labels out). */
static int add_node_state(struct rv_rw *w, const struct cfg *c, struct rv_rw_label *l,
			  struct rv_rw_sample *s, struct rv_err *err)
{
	struct rv_rw_label fact[LABELS + 2];
	int rc;

	l[5].value = l[6].value = "";
	l[0].value = "reveal_node_learning";
	for (long i = 0; i < c->points; i++)
		s[i].value = 0;
	if ((rc = rv_rw_add(w, l, LABELS, s, (size_t)c->points, err)) < 0)
		return rc;
	memcpy(fact, l, sizeof(*l) * LABELS);
	fact[0].value = "reveal_fact_info";
	fact[LABELS] = (struct rv_rw_label){ "fact", "mem.hugepages_2048kb" };
	fact[LABELS + 1] = (struct rv_rw_label){ "value", "1024" };
	for (long i = 0; i < c->points; i++)
		s[i].value = 1;
	return rv_rw_add(w, fact, LABELS + 2, s, (size_t)c->points, err);
}

/* One node's request: its C series of P samples, and add_node_state's. */
static int add_node(struct rv_rw *w, const struct cfg *c, long node, struct rv_rw_sample *s,
		    struct rv_err *err)
{
	char nodename[NAME_MAX_BYTES], inst[NAME_MAX_BYTES], group[NAME_MAX_BYTES], ch[NAME_MAX_BYTES];
	struct rv_rw_label l[LABELS] = {
		{ "__name__", "reveal_channel_mean" }, { "node", nodename }, { "instance", inst },
		{ "group", group }, { "cluster", "bench" }, { "channel", ch }, { "subsystem", "" },
	};
	struct rv_rng rng;
	int64_t t0 = (int64_t)llround((c->end - (double)(c->points - 1) * c->interval) * 1000);

	snprintf(nodename, sizeof(nodename), "node%05ld", node);
	snprintf(inst, sizeof(inst), "node%05ld:9464", node);
	snprintf(group, sizeof(group), "g%ld", node / NODES_PER_GROUP);
	rv_rng_seed(&rng, (uint64_t)node + 1);
	for (long k = 0; k < c->channels; k++) {
		double level = 1 + 1000 * rv_rng_uniform(&rng);
		int rc;

		snprintf(ch, sizeof(ch), "c%ld", k);
		l[6].value = subsystems[k % SUBSYSTEMS];
		for (long i = 0; i < c->points; i++) {
			s[i].ts_ms = t0 + (int64_t)llround((double)i * c->interval * 1000);
			s[i].value = level * (1 + 0.05 * (rv_rng_uniform(&rng) - 0.5));
		}
		rc = rv_rw_add(w, l, LABELS, s, (size_t)c->points, err);
		if (rc < 0)
			return rc;
	}
	return add_node_state(w, c, l, s, err);
}

static int post(CURL *h, const char *body, size_t len, struct worker *wk)
{
	long status = 0;
	CURLcode rc;

	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK || status / 100 != 2) {
		snprintf(wk->msg, sizeof(wk->msg), "remote write: %s, HTTP %ld",
			 curl_easy_strerror(rc), status);
		return -EIO;
	}
	return 0;
}

static CURL *writer_handle(const struct cfg *c, struct curl_slist **hdrs)
{
	char url[512];
	CURL *h = curl_easy_init();

	if (!h)
		return NULL;
	snprintf(url, sizeof(url), "%s/api/v1/write", c->url);
	*hdrs = curl_slist_append(NULL, "Content-Encoding: " RV_RW_CONTENT_ENCODING);
	*hdrs = curl_slist_append(*hdrs, "Content-Type: " RV_RW_CONTENT_TYPE);
	*hdrs = curl_slist_append(*hdrs, RV_RW_VERSION_HEADER ": " RV_RW_VERSION);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 300L);
	return h;
}

static void *load_worker(void *arg)
{
	struct worker *wk = arg;
	const struct cfg *c = wk->c;
	struct rv_rw_limits lim = { (size_t)c->channels + 2, (size_t)((c->channels + 2) * c->points),
				    (size_t)(c->channels + 2) * (LABELS + 2),
				    (size_t)(c->channels + 2) * 1024 };
	struct rv_rw_sample *s = calloc((size_t)c->points, sizeof(*s));
	struct curl_slist *hdrs = NULL;
	struct rv_err err = { 0 };
	struct rv_rw *w = NULL;
	CURL *h = writer_handle(c, &hdrs);
	char *out = NULL;
	size_t cap = 0, len;

	wk->rc = s && h && hdrs ? rv_rw_new(&lim, &w, &err) : -ENOMEM;
	if (wk->rc == 0 && !(out = malloc(cap = rv_rw_out_max(w))))
		wk->rc = -ENOMEM;
	for (long node = wk->id; wk->rc == 0 && node < c->nodes; node += c->threads) {
		rv_rw_reset(w);
		wk->rc = add_node(w, c, node, s, &err);
		if (wk->rc == 0)
			wk->rc = rv_rw_encode(w, out, cap, &len, &err);
		if (wk->rc == 0)
			wk->rc = post(h, out, len, wk);
		wk->requests++;
		wk->bytes += len;
		wk->samples += rv_rw_nsamples(w);
		wk->series += rv_rw_nseries(w);
	}
	if (wk->rc < 0 && !wk->msg[0])
		snprintf(wk->msg, sizeof(wk->msg), "%s", rv_err_text(&err, wk->rc));
	rv_rw_free(w);
	free(out);
	free(s);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	return NULL;
}

/* ---------------------------------------------------------------- read */

static void *read_worker(void *arg)
{
	struct worker *wk = arg;
	const struct cfg *c = wk->c;
	struct rv_httpc_opts o = { .url = c->url, .timeout_s = 300 };
	struct rv_prom_result r = { 0 };
	struct rv_err err = { 0 };
	struct rv_prom *p = NULL;
	double start = c->end - (double)(c->points - 1) * c->interval;
	char q[128];

	wk->rc = rv_prom_new(&o, NULL, &p, &err);
	if (wk->rc == 0)
		rv_prom_set_compression(p, c->gzip);
	for (long k = wk->id; wk->rc == 0 && k < c->channels; k += c->threads) {
		snprintf(q, sizeof(q), "reveal_channel_mean{channel=\"c%ld\"}", k);
		wk->rc = rv_prom_query_range(p, q, start, c->end, c->interval, &r, &err);
		if (wk->rc < 0)
			break;
		wk->series += r.nseries;
		wk->samples += r.npoints;
		wk->bad += r.nseries != (size_t)c->nodes || r.npoints != (size_t)(c->nodes * c->points);
	}
	if (wk->rc < 0)
		snprintf(wk->msg, sizeof(wk->msg), "%s", rv_err_text(&err, wk->rc));
	if (p)
		rv_prom_stats(p, &wk->st);
	rv_prom_result_fini(&r);
	rv_prom_free(p);
	return NULL;
}

/* ---------------------------------------------------------------- main */

static long peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int run(const struct cfg *c, struct worker *wk)
{
	pthread_t th[64];
	long n = c->threads > 64 ? 64 : c->threads;

	for (long i = 0; i < n; i++) {
		wk[i] = (struct worker){ .c = c, .id = i };
		if (pthread_create(&th[i], NULL, c->load ? load_worker : read_worker, &wk[i]))
			return -1;
	}
	for (long i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (long i = 0; i < n; i++)
		if (wk[i].rc < 0) {
			fprintf(stderr, "fleet_read: thread %ld: %s\n", i, wk[i].msg);
			return -1;
		}
	return 0;
}

static void report(const struct cfg *c, const struct worker *wk, double s)
{
	struct worker t = { 0 };

	for (long i = 0; i < c->threads && i < 64; i++) {
		t.requests += c->load ? wk[i].requests : wk[i].st.requests;
		t.bytes += wk[i].bytes;
		t.samples += wk[i].samples;
		t.series += wk[i].series;
		t.bad += wk[i].bad;
		t.st.body_bytes += wk[i].st.body_bytes;
		t.st.wire_bytes += wk[i].st.wire_bytes;
	}
	printf("%s: nodes %ld channels %ld points %ld interval %g s end %.0f threads %ld\n",
	       c->load ? "load" : "read", c->nodes, c->channels, c->points, c->interval, c->end,
	       c->threads);
	if (c->load)
		printf("load: requests %lu series %lu samples %lu body_bytes %lu seconds %.2f "
		       "samples_per_s %.0f\n", t.requests, t.series, t.samples, t.bytes, s,
		       (double)t.samples / s);
	else
		printf("read: queries %lu series %lu points %lu short_answers %lu gzip %d "
		       "body_bytes %lu wire_bytes %lu seconds %.2f points_per_s %.0f\n",
		       t.requests, t.series, t.samples, t.bad, c->gzip, t.st.body_bytes,
		       t.st.wire_bytes, s, (double)t.samples / s);
	printf("%s: peak_rss_kib %ld\n", c->load ? "load" : "read", peak_rss_kib());
}

int main(int argc, char **argv)
{
	struct worker wk[64];
	struct rv_err err = { 0 };
	struct cfg c;
	rv_ns t0;

	parse_args(argc, argv, &c);
	if (rv_httpc_global_init(&err) < 0) {
		fprintf(stderr, "fleet_read: %s\n", err.msg);
		return 1;
	}
	t0 = rv_clock_ns();
	if (run(&c, wk) < 0)
		return 1;
	report(&c, wk, rv_clock_since_s(t0));
	return 0;
}
