/*
 * sysval.h - sysfs attributes of one number each (scaling_cur_freq,
 * temp1_input, energy_uj, carrier, IB port counters), kept open and reread
 * with pread into a small stack buffer, plus the directory helpers the
 * sysfs sources use at open.
 *
 * A struct rv_sysvals is a list of such files, each tied to one channel of
 * its source: open() adds them while it adds the channels, sample() reads
 * them all with rv_sysvals_sample. Directory scans (rv_sysval_scan_ids,
 * rv_sysval_scan_names) and rv_sysval_text are for open() only.
 */
#ifndef RV_COLLECT_SYSVAL_H
#define RV_COLLECT_SYSVAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "collect/source.h"

enum { RV_SYSVAL_PATH_MAX = 512, RV_SYSVAL_NAME_MAX = 64 };

/* How the text of an attribute becomes a value. Leading blanks and a
 * trailing newline are allowed; other text after the number is not,
 * except with RV_SYSVAL_LEAD. */
enum rv_sysval_fmt {
	RV_SYSVAL_U64,          /* unsigned decimal (counters) */
	RV_SYSVAL_I64,          /* signed decimal (temperatures) */
	RV_SYSVAL_NONNEG,       /* signed decimal; negative (-1: unknown) is invalid */
	RV_SYSVAL_LEAD,         /* a number, then any text ("100 Gb/sec (4X EDR)") */
	RV_SYSVAL_IBSTATE,      /* "4: ACTIVE" -> 1, any other "N: STATE" -> 0 */
};

struct rv_sysvals {
	int *fd;
	uint8_t *fmt;           /* enum rv_sysval_fmt */
	uint32_t *slot;         /* channel of the source (0 = its first) */
	size_t n, cap;
	size_t base;            /* chans->n when the source began to open */
};

/* Starts an empty list for a source whose first channel will be the next
 * one added to chans. Allocates nothing. */
void rv_sysvals_init(struct rv_sysvals *s, const struct rv_chanlist *chans);

/*
 * Opens `path` (absolute, root already in it) and appends channel
 * type:inst with `scale` to chans, read as `fmt`. The file is not read
 * here: a down link's speed fails with EINVAL now and may read later.
 * -ENOENT, -EACCES, ... (nothing added) or a chanlist error; err names
 * the path.
 */
int rv_sysvals_add(struct rv_sysvals *s, struct rv_chanlist *chans, const char *path,
		   enum rv_sysval_fmt fmt, const char *type, const char *inst, double scale,
		   struct rv_err *err);

/* Rereads every file into raw[slot]; valid[slot] = 1 only for a value
 * that parsed. Allocates nothing. */
void rv_sysvals_sample(const struct rv_sysvals *s, double *raw, uint8_t *valid);

/* Closes the files and frees the list; safe on a zeroed or finished one. */
void rv_sysvals_fini(struct rv_sysvals *s);

/*
 * The state of a source that is nothing but such files: new (in *out: 0,
 * or -ENOMEM with *out NULL), and sample and close with the source
 * signatures (close of NULL is a no-op).
 */
int rv_sysvals_new(const struct rv_chanlist *chans, struct rv_sysvals **out);
void rv_sysvals_sample_src(void *state, double *raw, uint8_t *valid);
void rv_sysvals_free(void *state);

/* 1 when channel type:inst is already among the source's channels (two
 * sensors that would get the same name). */
int rv_sysvals_taken(const struct rv_sysvals *s, const struct rv_chanlist *chans,
		     const char *type, const char *inst);

/*
 * Formats a path (root first) into buf of RV_SYSVAL_PATH_MAX bytes:
 * 0, or -ENAMETOOLONG.
 */
int rv_sysval_path(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One attribute file of a device directory and the channel it becomes. */
struct rv_sysattr {
	const char *file;       /* relative to the device directory */
	const char *type;
	enum rv_sysval_fmt fmt;
	double scale;
};

/*
 * Adds dir/attrs[a].file as channel type:inst for each a < n whose file
 * exists and can be opened (the others have no channel). 0, or the first
 * other error with err set.
 */
int rv_sysvals_add_attrs(struct rv_sysvals *s, struct rv_chanlist *chans, const char *dir,
			 const struct rv_sysattr *attrs, size_t n, const char *inst,
			 struct rv_err *err);

/*
 * Opens a source whose channels are files under each entry of
 * cfg->root + rel (/sys/class/net/<if>, /sys/class/infiniband/<dev>):
 * calls add(sv, chans, dir, name, err) per entry name, sorted, and sets
 * *state to the new list. -ENOENT when rel is absent or no entry adds a
 * channel (err: the path and `none`), or add's error.
 */
int rv_sysvals_open_each(const struct rv_collect_cfg *cfg, const char *rel, const char *none,
			 int (*add)(struct rv_sysvals *sv, struct rv_chanlist *chans,
				    const char *dir, const char *name, struct rv_err *err),
			 void **state, struct rv_chanlist *chans, struct rv_err *err);

/* Parses the text of one attribute as `fmt` (what sample does per file):
 * 0 with *out, or -EINVAL / -ERANGE. */
int rv_sysval_parse(const char *s, size_t len, enum rv_sysval_fmt fmt, double *out);

/*
 * Reads a short text attribute whole (a hwmon "name", a "type", a label)
 * into buf, without the trailing newline; -errno or -EINVAL for an empty
 * file, err names the path.
 */
int rv_sysval_text(const char *path, char *buf, size_t cap, struct rv_err *err);

/* Lowers s in place and turns every byte outside [a-z0-9_] into '_'. */
void rv_sysval_sanitize(char *s);

/*
 * Numbers N of the entries of `dir` named prefix + N + suffix (N decimal,
 * no sign), ascending, at most max of them, in ids; *n their count.
 * -errno when dir cannot be opened, -ENOMEM.
 */
int rv_sysval_scan_ids(const char *dir, const char *prefix, const char *suffix,
		       uint32_t *ids, size_t max, size_t *n);

/*
 * Names of the entries of `dir` (not "." and "..", none longer than
 * RV_SYSVAL_NAME_MAX - 1), sorted, at most max, in names; *n their count.
 * -errno when dir cannot be opened.
 */
int rv_sysval_scan_names(const char *dir, char (*names)[RV_SYSVAL_NAME_MAX], size_t max,
			 size_t *n);

#endif
