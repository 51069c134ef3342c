/*
 * record_cmd.c - `reveal record -o FILE.rvl`: samples every source the
 * collector opens at a fixed interval and appends the raw samples to a
 * .rvl recording (record/rvl.h) until --duration has passed or SIGINT /
 * SIGTERM arrives. Deadlines are absolute (CLOCK_MONOTONIC), so the
 * interval does not drift; a deadline already passed is skipped, not
 * sampled late twice: a missed sample shows as a longer interval, never
 * as a made-up one. Blocks are written whole, so a run killed with
 * SIGKILL keeps every completed block.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/log.h"
#include "cli/cli.h"
#include "cli/record_prof.h"
#include "collect/collector.h"
#include "config/config.h"
#include "pipeline/model.h"
#include "record/rvl.h"

enum { PROGRESS_EVERY_S = 1 };

static const char record_help[] =
	"usage: reveal record -o FILE.rvl [--interval T] [--duration T] [--root DIR]\n"
	"                     [--nvml PATH] [--exclude SRC,...] [--slow-interval T]\n"
	"                     [--perf-software auto|on|off] [--block N] [--profile] [-q]\n"
	"\n"
	"Samples every source reveal can read on this host (see `reveal metrics`) at a\n"
	"fixed interval and appends the samples to a .rvl recording: counters are kept\n"
	"as the kernel's totals, so `reveal export` and `reveal detect` derive the rates\n"
	"exactly as the live collector does. Stops after --duration, or on SIGINT or\n"
	"SIGTERM (the open block is written first). Samples are written in blocks; a\n"
	"run killed outright keeps every completed block. A progress line is shown when\n"
	"stderr is a terminal; a summary is printed at the end.\n"
	"\n"
	"  -o, --output FILE  the recording to write (replaced if it exists)\n"
	"  --interval T       time between samples: 100ms (default), 1s, ...\n"
	"  --duration T       stop after this long (default: until interrupted)\n"
	"  --root DIR         read DIR/proc and DIR/sys instead of /proc and /sys\n"
	"  --exclude SRC      leave out these sources (comma-separated, as `reveal\n"
	"                     metrics` names them; repeatable), e.g. --exclude perf\n"
	"  --nvml PATH        NVIDIA management library to load (default\n"
	"                     libnvidia-ml.so.1)\n"
	"  --slow-interval T  read the sources whose values move slowly (kernel object\n"
	"                     counts, load averages, qdisc statistics, NUMA node memory\n"
	"                     and hugepages, link carrier, temperatures, CPU\n"
	"                     frequencies, energy counters, perf software events) this\n"
	"                     often, rounded to whole intervals; gaps in between, rates\n"
	"                     over the whole span. 1s (default); 0 reads them at every\n"
	"                     sample; at most 10s\n"
	"  --perf-software M  perf's software events (context switches, migrations,\n"
	"                     page faults per CPU): auto (default) counts them where\n"
	"                     hardware counters open, on everywhere, off nowhere\n"
	"  --block N          samples per block, 1..4096 (default 64): the most a crash\n"
	"                     can lose\n"
	"  --rediscover T     every T (e.g. 1m), open the sources again to pick up\n"
	"                     devices that appeared or went (a NIC, a disk, a GPU); when\n"
	"                     the channels change, the recording goes on in FILE.1.rvl,\n"
	"                     FILE.2.rvl, ... (FILE = -o less .rvl). Costs one full open\n"
	"                     each time (default: off)\n"
	"  --profile          at the end, where a sweep's time went: each source, the\n"
	"                     writing, the loop, the wake-up lateness and the process\n"
	"                     CPU per sweep (docs/PERFORMANCE.md)\n"
	"  -q, --quiet        no progress line, no summary, no notes on the sources\n"
	"  -h, --help         this text\n";

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

struct record_opts {
	const char *out, *root, *nvml;
	double interval_s, duration_s;      /* duration 0: until a signal */
	double rediscover_s;                /* 0: never */
	double slow_s;                      /* slow sources; 0: every sample */
	int perf_software;                  /* enum rv_perf_sw */
	unsigned long long block;
	int quiet, profile;
	struct rv_cli_exclude exclude;
};

enum { SEGMENT_PATH_MAX = 4096 };

/* The file being written: the first is -o's; after a change of channels,
 * NAME.1.rvl, NAME.2.rvl, ... (NAME = -o less its .rvl). */
struct segment {
	struct rv_rvl_writer *w;
	struct rv_rvl_chan *ch;
	char path[SEGMENT_PATH_MAX];
	unsigned index;
};

static int parse_span_s(const char *flag, const char *arg, double *out)
{
	struct rv_span sp;

	if (rv_cli_parse_span(arg, &sp) != 0 || !sp.seconds) {
		rv_cli_error("record", "%s %s: want a time such as 100ms, 1s, 10m", flag, arg);
		return -EINVAL;
	}
	*out = sp.value;
	return 0;
}

_Static_assert(RV_PERF_SW_AUTO == 0 && RV_PERF_SW_ON == 1 && RV_PERF_SW_OFF == 2,
	       "rv_cfg_perf_sw_names follows enum rv_perf_sw");

static int parse_perf_sw(const char *arg, int *out)
{
	for (int i = 0; rv_cfg_perf_sw_names[i]; i++)
		if (strcmp(arg, rv_cfg_perf_sw_names[i]) == 0) {
			*out = i;               /* enum rv_perf_sw's order */
			return 0;
		}
	rv_cli_error("record", "--perf-software %s: want auto, on or off", arg);
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "root", required_argument, NULL, 'r' },
		{ "nvml", required_argument, NULL, 'n' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "block", required_argument, NULL, 'b' },
		{ "rediscover", required_argument, NULL, 'R' },
		{ "slow-interval", required_argument, NULL, 'S' },
		{ "perf-software", required_argument, NULL, 'W' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "profile", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int id;

	optind = 1;
	while ((id = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (id) {
		case 'h':
			fputs(record_help, stdout);
			return 1;
		case 'o':
			o->out = optarg;
			break;
		case 'i':
			if (parse_span_s("--interval", optarg, &o->interval_s))
				return -EINVAL;
			break;
		case 'd':
			if (parse_span_s("--duration", optarg, &o->duration_s))
				return -EINVAL;
			break;
		case 'r':
			o->root = optarg;
			break;
		case 'R':
			if (parse_span_s("--rediscover", optarg, &o->rediscover_s))
				return -EINVAL;
			break;
		case 'S':
			if (strcmp(optarg, "0") != 0 &&
			    parse_span_s("--slow-interval", optarg, &o->slow_s))
				return -EINVAL;
			if (strcmp(optarg, "0") == 0)
				o->slow_s = 0.0;
			if (o->slow_s > 10.0) {
				rv_cli_error("record", "--slow-interval %s: at most 10s", optarg);
				return -EINVAL;
			}
			break;
		case 'W':
			if (parse_perf_sw(optarg, &o->perf_software))
				return -EINVAL;
			break;
		case 'n':
			o->nvml = optarg;
			break;
		case 'x':
			if (rv_cli_add_exclude(&o->exclude, optarg) != 0) {
				rv_cli_error("record", "--exclude '%s': empty name or too many",
					optarg);
				return -EINVAL;
			}
			break;
		case 'b':
			if (rv_cli_parse_size(optarg, 4096, &o->block) != 0 || o->block == 0) {
				rv_cli_error("record", "--block %s: want 1 to 4096", optarg);
				return -EINVAL;
			}
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'P':
			o->profile = 1;
			break;
		default:
			return -EINVAL;
		}
	}
	if (!o->out || optind < argc) {
		rv_cli_error("record", "-o FILE.rvl is required, and nothing else (see --help)");
		return -EINVAL;
	}
	if (o->interval_s < 0.001 || o->interval_s > 3600.0) {
		rv_cli_error("record", "--interval must lie between 1ms and 1h");
		return -EINVAL;
	}
	return 0;
}

/* rv_rvl_chan descriptors of the collector's channels (pointers into it). */
static struct rv_rvl_chan *describe(const struct rv_collector *c)
{
	size_t n = rv_collector_nraw(c);
	struct rv_rvl_chan *ch = calloc(n ? n : 1, sizeof(*ch));

	for (size_t i = 0; ch && i < n; i++) {
		const struct rv_chan *cc = rv_collector_chan(c, i);

		ch[i] = (struct rv_rvl_chan){ cc->name, cc->metric->unit,
					      (unsigned)cc->metric->kind, cc->scale };
	}
	return ch;
}

static void add_ns(struct timespec *t, rv_ns ns)
{
	t->tv_sec += (time_t)(ns / 1000000000ULL);
	t->tv_nsec += (long)(ns % 1000000000ULL);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static rv_ns ts_ns(const struct timespec *t)
{
	return (rv_ns)t->tv_sec * 1000000000ULL + (rv_ns)t->tv_nsec;
}

/* Path of segment `index` of the recording `out`. */
static void segment_path(const char *out, unsigned index, char *path, size_t cap)
{
	size_t len = strlen(out);

	if (index == 0) {
		snprintf(path, cap, "%s", out);
		return;
	}
	if (len > 4 && strcmp(out + len - 4, ".rvl") == 0)
		len -= 4;
	snprintf(path, cap, "%.*s.%u.rvl", (int)len, out, index);
}

static int segment_open(struct segment *sg, const struct record_opts *o,
			const struct rv_collector *c, struct rv_err *err)
{
	segment_path(o->out, sg->index, sg->path, sizeof(sg->path));
	free(sg->ch);
	sg->ch = describe(c);
	if (!sg->ch)
		return rv_err_set(err, -ENOMEM, "out of memory");
	return rv_rvl_writer_open(sg->path, sg->ch, rv_collector_nraw(c), (size_t)o->block,
				  &sg->w, err);
}

/* Closes the segment's file (its open block written). */
static int segment_close(struct segment *sg, struct rv_err *err)
{
	int rc = rv_rvl_writer_close(sg->w, 1, err);

	sg->w = NULL;
	return rc;
}

struct loop_stats {
	unsigned long long samples, skipped;
	unsigned long long values;          /* samples x channels, every segment */
	unsigned segments;
};

/* Rediscovery: on a change of channels, the next segment. */
static int rediscover(const struct record_opts *o, struct rv_collector *c, struct segment *sg,
		      struct loop_stats *ls, struct rv_err *err)
{
	size_t before = rv_collector_nraw(c);
	int rc = rv_collector_rediscover(c, err);

	if (rc <= 0)
		return rc;
	rc = segment_close(sg, err);
	sg->index++;
	if (!rc)
		rc = segment_open(sg, o, c, err);
	if (!rc) {
		ls->segments++;
		if (!o->quiet)
			fprintf(stderr, "reveal record: the channels changed (%zu -> %zu): "
				"continuing in %s\n", before, rv_collector_nraw(c), sg->path);
	}
	return rc;
}

/* The sampling loop; returns 0 or the writer's negative errno. */
static int sample_loop(const struct record_opts *o, struct rv_collector *c,
		       struct segment *sg, struct loop_stats *ls, struct rv_rec_prof *prof,
		       struct rv_err *err)
{
	rv_ns step = (rv_ns)(o->interval_s * 1e9), start = rv_clock_ns(), last_progress = start;
	rv_ns every = (rv_ns)(o->rediscover_s * 1e9), last_rediscover = start;
	rv_ns end = o->duration_s > 0.0 ? start + (rv_ns)(o->duration_s * 1e9) : 0;
	int tty = !o->quiet && isatty(STDERR_FILENO);
	struct timespec next;
	const double *raw;
	const uint8_t *raw_ok;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &next);
	rv_rec_prof_start(prof);
	while (!stop_flag) {
		if (every && rv_clock_ns() - last_rediscover >= every) {
			last_rediscover = rv_clock_ns();
			rc = rediscover(o, c, sg, ls, err);
			if (rc < 0)
				return rc;
		}
		/* Raw values are what a recording keeps: no rates, no ratios. */
		rv_rec_prof_mark(prof, RV_REC_LOOP);
		rv_collector_read(c);
		rv_rec_prof_mark(prof, RV_REC_READ);
		rv_collector_raw(c, &raw, &raw_ok);
		rc = rv_rvl_writer_append(sg->w, wall_ns(), raw, raw_ok, err);
		rv_rec_prof_mark(prof, RV_REC_WRITE);
		if (rc)
			return rc;
		ls->samples++;
		ls->values += rv_collector_nraw(c);
		add_ns(&next, step);
		/* Deadlines already passed are skipped: a gap, not a burst. */
		while (ts_ns(&next) + step < rv_clock_ns()) {
			add_ns(&next, step);
			ls->skipped++;
		}
		if (end && ts_ns(&next) >= end)
			break;
		if (tty && rv_clock_ns() - last_progress >= PROGRESS_EVERY_S * 1000000000ULL) {
			last_progress = rv_clock_ns();
			fprintf(stderr, "\rrecording %s: %llu samples, %.0f s", o->out, ls->samples,
				rv_clock_since_s(start));
		}
		rv_rec_prof_mark(prof, RV_REC_LOOP);
		while (!stop_flag && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		rv_rec_prof_woke(prof, ts_ns(&next));
	}
	if (tty)
		fputc('\n', stderr);
	return 0;
}

static long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long bytes = -1;

	if (f && fseek(f, 0, SEEK_END) == 0)
		bytes = ftell(f);
	if (f)
		fclose(f);
	return bytes;
}

/* The summary line: samples, bytes per value over every segment, CPU. */
static void summary(const struct record_opts *o, const struct segment *sg,
		    const struct loop_stats *ls, size_t nchan, double cpu)
{
	unsigned last = sg->index;
	long bytes = 0;

	for (unsigned i = 0; i <= last; i++) {
		char path[SEGMENT_PATH_MAX];
		long b;

		segment_path(o->out, i, path, sizeof(path));
		b = file_size(path);
		bytes += b > 0 ? b : 0;
	}
	fprintf(stderr, "reveal record: %s: %llu samples of %zu channels%s, %ld bytes (%.2f bytes "
		"per value), %llu deadlines missed, %.3f s CPU\n", o->out, ls->samples, nchan,
		last ? " (last segment)" : "", bytes,
		ls->values ? (double)bytes / (double)ls->values : 0.0, ls->skipped, cpu);
	if (last)
		fprintf(stderr, "reveal record: %u segments: %s and %u more up to %s\n", last + 1,
			o->out, last, sg->path);
}

/* The collector of o, its unavailable sources told unless quiet; 0 or the
 * exit status (the error printed). */
static int open_collector(const struct record_opts *o, struct rv_collector **c)
{
	struct rv_err err = { 0 };
	int rc = rv_collector_open(&(struct rv_collect_cfg){
		.root = o->root, .nvml_lib = o->nvml,
		.exclude = o->exclude.names, .nexclude = o->exclude.n,
		.slow_every = rv_collect_slow_every(o->interval_s, o->slow_s),
		.perf_software = o->perf_software }, c, &err);

	if (rc) {
		rv_cli_error("record", "%s", rv_err_text(&err, rc));
		return rc == -EINVAL ? RV_EXIT_USAGE : RV_EXIT_FAIL;
	}
	if (!o->quiet)
		for (size_t i = 0; i < rv_collector_nunavail(*c); i++)
			rv_cli_error("record", "source %s unavailable: %s",
				rv_collector_unavail_source(*c, i),
				rv_collector_unavail_reason(*c, i));
	return 0;
}

int rv_cmd_record(int argc, char **argv)
{
	struct record_opts o = { .root = "", .interval_s = 0.1, .slow_s = RV_COLLECT_SLOW_S,
				 .block = 0 };
	struct rv_collector *c = NULL;
	struct segment sg = { 0 };
	struct loop_stats ls = { 0 };
	struct rv_err err = { 0 };
	struct rv_rec_prof prof = { 0 };
	struct sigaction sa;
	double t0 = cpu_s();
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc > 0 ? RV_EXIT_OK : RV_EXIT_USAGE;
	if (o.quiet)
		rv_log_set_level(RV_LOG_WARN);      /* no notes on what sources found */
	rc = open_collector(&o, &c);
	if (rc)
		return rc;
	if (rv_collector_nraw(c) == 0) {
		rv_cli_error("record", "no source could be read: nothing to record");
		rc = -ENODATA;
		goto out;
	}
	rc = segment_open(&sg, &o, c, &err);
	if (rc) {
		rv_cli_error("record", "%s", rv_err_text(&err, rc));
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	prof.on = o.profile;
	rc = sample_loop(&o, c, &sg, &ls, &prof, &err);
	if (rc)
		rv_cli_error("record", "%s", rv_err_text(&err, rc));
	int crc = segment_close(&sg, &err);

	if (crc && !rc) {
		rv_cli_error("record", "%s", rv_err_text(&err, crc));
		rc = crc;
	}
	if (!o.quiet)
		summary(&o, &sg, &ls, rv_collector_nraw(c), cpu_s() - t0);
	rv_rec_prof_print(&prof, c);
out:
	if (sg.w)
		rv_rvl_writer_close(sg.w, 0, NULL);
	rv_collector_close(c);
	free(sg.ch);
	return rc ? RV_EXIT_FAIL : RV_EXIT_OK;
}
