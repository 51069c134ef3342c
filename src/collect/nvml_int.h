/*
 * nvml_int.h - internals shared by the files of the nvml source (nvml.c):
 * NVML's ABI as far as reveal declares it (no nvml.h), the GPUs found at
 * open, the base rows (nvml_rows.c) and the parts that add channels of
 * their own after the GPUs' base channels (GPM, NVLink, processes).
 *
 * Every call is looked up at run time (rv_nvml_sym); a driver without one
 * leaves out the channels that need it, noted with the reason
 * (rv_chanlist_note), never the source.
 */
#ifndef RV_COLLECT_NVML_INT_H
#define RV_COLLECT_NVML_INT_H

#include <stddef.h>
#include <stdint.h>

#include "collect/source.h"

enum { RV_NVML_ROW_MAXV = 4, RV_NVML_NAME_MAX = 96, RV_NVML_MAX_GPUS = 256, RV_NVML_COSTS = 8 };

/* nvmlReturn_t values used here; RV_NVML_NO_VALUE is ours: the call worked
 * but gave nothing to report (P-state unknown). */
enum {
	RV_NVML_SUCCESS = 0,
	RV_NVML_ERROR_UNINITIALIZED = 1,
	RV_NVML_ERROR_INVALID_ARGUMENT = 2,
	RV_NVML_ERROR_NOT_SUPPORTED = 3,
	RV_NVML_ERROR_NO_PERMISSION = 4,
	RV_NVML_ERROR_NOT_FOUND = 6,
	RV_NVML_ERROR_INSUFFICIENT_SIZE = 7,
	RV_NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	RV_NVML_ERROR_GPU_IS_LOST = 15,
	RV_NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	RV_NVML_NO_VALUE = -1,
};

struct nvml_dev;                        /* nvmlDevice_t is a pointer to it */
struct nvml_evset;                      /* nvmlEventSet_t */

struct nvml_utilization { unsigned int gpu, memory; };
struct nvml_memory { unsigned long long total, free, used; };
struct nvml_event_data {
	struct nvml_dev *device;
	unsigned long long type, data;
	unsigned int gpu_instance, compute_instance;
};

/* nvmlFieldValue_t of nvml.h (nvmlDeviceGetFieldValues): the caller sets
 * fieldId and scopeId (a link for the NVLink fields that take one), NVML
 * fills the rest; `ret` (nvmlReturn) is this value's own answer and
 * `value_type` (nvmlValueType_t) says which member of `value` it wrote. */
union nvml_value {
	double d;
	unsigned int ui;
	unsigned long ul;
	unsigned long long ull;
	long long sll;
	int si;
	unsigned short us;
};
struct nvml_field_value {
	unsigned int field_id, scope_id;
	long long timestamp_us, latency_us;
	int value_type;
	int ret;
	union nvml_value value;
};
_Static_assert(sizeof(struct nvml_field_value) == 40, "nvmlFieldValue_t is 40 bytes");

/* A field value as a double (nvml_rows.c): its own nvmlReturn when that
 * is not success, RV_NVML_NO_VALUE for a value type we do not know. */
int rv_nvml_field_double(const struct nvml_field_value *f, double *v);

/* The calls of the base rows and of the source's frame (nvml.c). */
struct nvml_api {
	int (*init)(void);
	int (*shutdown)(void);
	const char *(*error_string)(int ret);
	int (*count)(unsigned int *n);
	int (*handle)(unsigned int index, struct nvml_dev **dev);
	int (*name)(struct nvml_dev *d, char *buf, unsigned int len);
	int (*utilization)(struct nvml_dev *d, struct nvml_utilization *u);
	int (*memory)(struct nvml_dev *d, struct nvml_memory *m);
	int (*power)(struct nvml_dev *d, unsigned int *mw);
	int (*energy)(struct nvml_dev *d, unsigned long long *mj);
	int (*temperature)(struct nvml_dev *d, int sensor, unsigned int *c);
	int (*clock)(struct nvml_dev *d, int type, unsigned int *mhz);
	int (*pcie)(struct nvml_dev *d, int counter, unsigned int *kbs);
	int (*replays)(struct nvml_dev *d, unsigned int *n);
	int (*ecc)(struct nvml_dev *d, int type, int counter, unsigned long long *n);
	int (*throttle)(struct nvml_dev *d, unsigned long long *reasons);
	int (*pstate)(struct nvml_dev *d, int *p);
	int (*retired)(struct nvml_dev *d, int cause, unsigned int *n, unsigned long long *addr);
	int (*field_values)(struct nvml_dev *d, int n, struct nvml_field_value *v);
	int (*remapped_rows)(struct nvml_dev *d, unsigned int *corr, unsigned int *unc,
			     unsigned int *pending, unsigned int *failed);
	int (*fan)(struct nvml_dev *d, unsigned int *pct);
	int (*evset_create)(struct nvml_evset **set);
	int (*evset_free)(struct nvml_evset *set);
	int (*register_events)(struct nvml_dev *d, unsigned long long types, struct nvml_evset *set);
	int (*evset_wait)(struct nvml_evset *set, struct nvml_event_data *ev, unsigned int ms);
};

/* One NVML call and the channels it fills, v[0..n) in the order of type[];
 * `arg` is the call's argument where it takes one (clock type, PCIe
 * counter, ECC error type) or the api member to call (rd_uint). */
struct nvml_row {
	size_t fn;                      /* the api member it needs */
	int (*read)(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v);
	int arg;
	size_t n;
	const char *type[RV_NVML_ROW_MAXV];
	double scale[RV_NVML_ROW_MAXV];
};

/* The base rows of every GPU (nvml_rows.c), at most 32. */
extern const struct nvml_row rv_nvml_rows[];
extern const size_t rv_nvml_nrows;

struct nvml_gpu {
	struct nvml_dev *dev;           /* NULL: no handle at open, no channels */
	unsigned int index;
	char inst[16];                  /* "gpu<index>" */
	char name[RV_NVML_NAME_MAX];    /* "NVIDIA H100 80GB HBM3", or "" */
	uint32_t rows;                  /* bit r: rv_nvml_rows[r] has channels here */
	int xid;                        /* has the gpu.xid_errors channel */
	int lost;                       /* fell off the bus: invalid from now on */
	uint64_t xids;                  /* XID events counted so far */
	size_t first;                   /* its first base channel in this source */
};

struct nvml_src {
	void *dl;
	const char *lib;                /* as loaded, for messages */
	int inited;                     /* nvmlInit worked: shut down at close */
	struct nvml_api api;
	struct nvml_evset *evset;       /* NULL: no XID channels */
	struct nvml_gpu *gpu;
	size_t ngpu, nchan;
	void **part;                    /* each part's state (NULL: no channels) */
	size_t *part_first;             /* each part's first channel */
	uint64_t cost_ns[RV_NVML_COSTS];  /* time in sample(): base rows, then each part */
	uint64_t sweeps;
};

/*
 * A part of the source: channels of a group of calls, for every GPU,
 * appended after all the GPUs' base channels in the order of the parts
 * table (nvml.c).
 *
 * open() resolves its calls (rv_nvml_sym on st->dl), probes each GPU that
 * has a handle and is not lost, appends its channels (rv_nvml_add_chan, in
 * the order sample() fills them) and notes what it cannot give and why
 * (rv_chanlist_note with its name, naming the GPU: "gpu1 (NVIDIA A100-SXM4-
 * 80GB): GPM not supported"). It returns 0, with or without channels, or
 * -ENOMEM / -EINVAL (a catalog error) which fail the source; *state stays
 * NULL when it added no channel.
 *
 * sample() gets raw/valid at its first channel, valid all 0; it runs after
 * the base rows of the same sweep, so a GPU's `lost` is current, and it
 * sets `lost` on GPU_IS_LOST / NOT_FOUND itself. It allocates nothing and
 * never blocks. close(state) frees everything open() took.
 */
struct nvml_part {
	const char *name;               /* "nvml.gpm": the unavailable list's source */
	int (*open)(struct nvml_src *st, struct rv_chanlist *chans, void **state,
		    struct rv_err *err);
	void (*sample)(void *state, double *raw, uint8_t *valid);
	void (*close)(void *state);
};

extern const struct nvml_part rv_nvml_part_gpm;    /* nvml_gpm.c: GPM, MIG */
extern const struct nvml_part rv_nvml_part_link;   /* nvml_link.c: NVLink */
extern const struct nvml_part rv_nvml_part_proc;   /* nvml_proc.c: processes */

/* The first of `names` (newest first, NULL-terminated) the library has. */
void *rv_nvml_sym(void *dl, const char *const *names);

/* One call of a table of function pointers (an api struct): its names,
 * newest first, and where its pointer goes. */
struct rv_nvml_symdef {
	const char *names[3];           /* NULL ends */
	size_t off;                     /* offsetof(api struct, member) */
	int required;
};

/* Fills the api struct from defs[0..n) (NULL for a missing optional
 * call): NULL, or the newest name of the first required one missing. */
const char *rv_nvml_resolve(void *dl, const struct rv_nvml_symdef *defs, size_t n, void *api);

/* NVML's text for `ret` ("Not Supported"), or "NVML error". */
const char *rv_nvml_text(const struct nvml_src *st, int ret);

/* 1 for the codes of a GPU that fell off the bus. */
int rv_nvml_is_lost(int ret);

/* 1 for the codes that say "this GPU or driver cannot do that". */
int rv_nvml_unsupported(int ret);

/* Appends a channel of the source (counted in st->nchan); as
 * rv_chanlist_add. */
int rv_nvml_add_chan(struct nvml_src *st, struct rv_chanlist *chans, const char *type,
		     const char *inst, double scale, struct rv_err *err);

/* The sampling cost of the base rows ("nvml") and of each part with
 * channels, since open: for bench/nvml_bench.c and the GPU check. */
struct rv_nvml_cost {
	const char *name;
	size_t channels;
	uint64_t total_ns, sweeps;
};

/* Fills out[0..max) for the source state `state` (rv_src_nvml's); the count. */
size_t rv_nvml_costs(const void *state, struct rv_nvml_cost *out, size_t max);

/* "gpu1 (NVIDIA A100-SXM4-80GB)" or "gpu1" into buf. */
const char *rv_nvml_gpu_label(const struct nvml_gpu *g, char *buf, size_t len);

#endif
