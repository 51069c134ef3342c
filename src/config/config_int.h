/*
 * config_int.h - what the files of config/ share: the key table and the
 * value parser behind it. Not API; include config.h instead.
 *
 *   config.c        the table, defaults, parsing one value, rv_config_set,
 *                   rv_config_check
 *   config_list.c   list keys: the rule of each one's items, comma text,
 *                   storing and checking a list
 *   config_units.c  durations, sizes and their text; UTF-8
 *   config_load.c   the YAML loader (libyaml events)
 *   config_actions.c  actions: the key table of one action, its YAML list
 *                   of mappings, the rules between an action's keys
 *   config_write.c  rv_config_write
 *
 * A key table row locates its field by offset in a struct: struct
 * rv_config for rv_cfg_keys[], struct rv_cfg_action for
 * rv_cfg_action_keys[]. The functions below that take `base` take that
 * struct.
 */
#ifndef RV_CONFIG_CONFIG_INT_H
#define RV_CONFIG_CONFIG_INT_H

#include "config/config.h"

enum {
	CFG_SHOW_MAX = 60,         /* bytes of a bad value quoted in a message */
	CFG_TEXT_MAX = 96,         /* a formatted number, range, key or shown value */
	CFG_LIST_TEXT_MAX = 512,   /* known keys, choices */
	CFG_WHERE_MAX = PATH_MAX + CFG_TEXT_MAX,  /* "FILE:LINE:COL: " */
};

enum rv_cfg_type { K_DUR, K_SIZE, K_UINT, K_BOOL, K_STR, K_ENUM, K_SPAN, K_LIST };

enum rv_cfg_flag {
	K_ZERO_OK = 1,   /* 0 is valid besides min..max ("never", "keep") */
	K_NONEMPTY = 2,  /* K_STR: "" is refused */
	K_ADDR = 4,      /* K_STR: "" or HOST:PORT */
	K_URL = 8,       /* K_STR: "" or http(s)://HOST[:PORT][/PATH] */
	/* K_LIST: the rule of its items (exactly one) */
	K_NAMES = 16,    /* source names (letters, digits, '.', '_', '-') */
	K_GLOBS = 32,    /* fnmatch patterns of channel names */
	K_LABELS = 64,   /* "name=value", a Prometheus label of the user's */
	K_HEADERS = 128, /* "Name: value", an HTTP header */
	K_EVENTS = 256,  /* "open", "close" (an action's on) */
	K_SUBSYS = 512,  /* rv_cfg_subsystem_names (an action's subsystems) */
	K_ARGS = 1024,   /* any text (an action's command) */
	K_WHEADERS = 2048, /* "Name: value", an HTTP header of a webhook */
	/* K_STR */
	K_IDENT = 4096,  /* letters, digits, '.', '_', '-' (an action's name) */
};

/* One row per key: the one place a key is defined. */
struct rv_cfg_key {
	const char *sect;            /* NULL: top level */
	const char *name;
	enum rv_cfg_type type;
	size_t off, size;            /* the field in struct rv_config; K_LIST: its
				      * char[max][size / max], the size_t count
				      * right after it (config_list.c asserts it) */
	double min, max;             /* K_DUR, K_SPAN: seconds; K_SIZE: bytes; K_UINT;
				      * K_LIST: max = most items */
	unsigned flags;              /* enum rv_cfg_flag */
	const char *const *choices;  /* K_ENUM: names by value, NULL-terminated */
	const char *doc;             /* one sentence or two, for rv_config_write */
};

struct rv_cfg_section {
	const char *name;
	const char *doc;
};

enum { RV_CFG_NKEYS = 54, RV_CFG_NSECT = 8, RV_CFG_ACTION_NKEYS = 15 };
extern const struct rv_cfg_key rv_cfg_keys[RV_CFG_NKEYS];
extern const struct rv_cfg_section rv_cfg_sections[RV_CFG_NSECT];
/* The keys of one action (sect "actions"), in the order written. */
extern const struct rv_cfg_key rv_cfg_action_keys[RV_CFG_ACTION_NKEYS];
#define RV_CFG_ACTIONS "actions"  /* the top-level key of the list */

/* Where a value came from ("FILE:LINE:COL: ", or "" for rv_config_set),
 * its key and its text as messages quote them. */
struct rv_cfg_origin {
	const char *where;
	char key[CFG_TEXT_MAX];
	char shown[CFG_TEXT_MAX];
};

/* config.c */

/* Parses s (len bytes, NUL at s[len]) as the value of k into c; c is
 * untouched on error; messages start with `where`. Returns 0 or -EINVAL. */
int rv_cfg_set_value(const struct rv_cfg_key *k, const char *s, size_t len, struct rv_config *c,
		     const char *where, struct rv_err *err);
/* The same into the struct base of k's table, messages naming the key
 * as `name` ("actions[2].timeout"). */
int rv_cfg_set_named(const struct rv_cfg_key *k, const char *name, const char *s, size_t len,
		     void *base, const char *where, struct rv_err *err);
/* Index of the section or key (in section sect, -1: top level) named by
 * len bytes of s, or -1. */
int rv_cfg_find_section(const char *s, size_t len);
int rv_cfg_find_key(int sect, const char *s, size_t len);
/* "listen, max_connections, raw_channels" into buf; the top level (-1)
 * lists its keys, then its sections. Returns buf. */
const char *rv_cfg_known_keys(int sect, char *buf, size_t n);
/* s as a message quotes it: CFG_SHOW_MAX bytes, control bytes as '?'. */
const char *rv_cfg_show(const char *s, size_t len, char *buf, size_t n);
/* "http.listen" */
void rv_cfg_full_name(const struct rv_cfg_key *k, char *buf, size_t n);

/* config_list.c: lists are read into a struct rv_cfg_list (every item
 * fits one of its items), stored when complete */

/* Appends len bytes of s to l as an item of the list key k after checking
 * it against k's rule and the items before it. Returns 0 or -EINVAL
 * ("WHERE KEY: 'ITEM' REASON", "WHERE KEY: more than 32 names"). */
int rv_cfg_add_item(const struct rv_cfg_key *k, struct rv_cfg_list *l, const char *s,
		    size_t len, const struct rv_cfg_origin *o, struct rv_err *err);
/* Replaces the list of k in base with l (whose items passed rv_cfg_add_item). */
void rv_cfg_store_list(const struct rv_cfg_key *k, const struct rv_cfg_list *l, void *base);
/* "a, b", "[a]", "" or "[]": comma-separated items of k (blanks around
 * them dropped) into base; base is untouched on error. Returns 0 or -EINVAL. */
int rv_cfg_set_list(const struct rv_cfg_key *k, const char *s, size_t len,
		    void *base, const struct rv_cfg_origin *o, struct rv_err *err);
/* The list of k in base as rv_cfg_add_item would take it ("NAME: label 2
 * REASON", name the key as messages show it). Returns 0 or -EINVAL. */
int rv_cfg_check_list(const struct rv_cfg_key *k, const char *name, const void *base,
		      struct rv_err *err);
/* The count stored for k in base (not clamped), and item i (< the row's max)
 * with its length (at most size / max: not NUL-terminated then). */
size_t rv_cfg_list_count(const struct rv_cfg_key *k, const void *base);
const char *rv_cfg_list_item(const struct rv_cfg_key *k, const void *base, size_t i,
			     size_t *len);
/* "a source name", "names": one item of k and several, for messages. */
const char *rv_cfg_list_one(const struct rv_cfg_key *k);
const char *rv_cfg_list_plural(const struct rv_cfg_key *k);

/* config_units.c */

/* Text that the parsers read back to the same value. */
void rv_cfg_fmt_duration(double v, char *buf, size_t n);
void rv_cfg_fmt_bytes(uint64_t v, char *buf, size_t n);
void rv_cfg_fmt_span(const struct rv_cfg_span *s, char *buf, size_t n);
/* The value of a non-string field of base ("100ms", "1GiB", "true", "info"). */
void rv_cfg_fmt_field(const struct rv_cfg_key *k, const void *base, char *buf, size_t n);
/* "10ms..10s", "0, or 1m..30d", "1..1024", "error | warn | info | debug";
 * "" for strings and booleans. */
void rv_cfg_range_text(const struct rv_cfg_key *k, char *buf, size_t n);
/* Length of the valid UTF-8 sequence at s (n bytes available), its code
 * point in *cp; 0 when invalid (overlong, surrogate, over U+10FFFF). */
size_t rv_cfg_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);
int rv_cfg_utf8_valid(const char *s, size_t n);

/* config_actions.c */

struct rv_yaml;
/* The value of the top-level key actions is y's current event: a list of
 * mappings (or null: none) replaces c's actions. Returns 0 or -EINVAL
 * with "FILE:LINE:COL: ..." in y's err. */
int rv_cfg_load_actions(struct rv_yaml *y, struct rv_config *c);
/* c's actions as rv_cfg_load_actions would take them ("actions[2] (page):
 * ..."). Returns 0 or -EINVAL. */
int rv_cfg_check_actions(const struct rv_config *c, struct rv_err *err);
/* The actions: section of rv_config_write: its description with an
 * example as comments, then c's actions ("actions: []" for none). */
void rv_cfg_write_actions(FILE *f, const struct rv_config *c);

/* config_write.c */

/* The value of k in base as YAML (a quoted string, a flow list, a number
 * with its unit). */
void rv_cfg_write_value(FILE *f, const struct rv_cfg_key *k, const void *base);
/* doc, then more, as comment lines at indent wrapped at 78 columns. */
void rv_cfg_write_doc(FILE *f, int indent, const char *doc, const char *more);

#endif
