/*
 * config_load.c - the YAML loader of the configuration. See config.h.
 *
 * It walks libyaml's event stream (yaml/yamlread.h) rather than its
 * document tree: the tree resolves aliases silently, and a key must be
 * refused, not shared. The grammar is small (a mapping of keys and
 * sections, each section a mapping of keys, list keys a sequence), so
 * one function per level reads it;
 * each value goes to rv_cfg_set_value() with its "FILE:LINE:COL: ". The
 * whole file is read into a copy of the configuration that replaces the
 * caller's only when every key was good.
 */
#include "config/config_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "yaml/yamlread.h"

enum { FILE_MAX_BYTES = 1 << 20 };  /* a configuration file larger than this is refused */

struct loader {
	struct rv_yaml y;             /* the event stream, name, err */
	struct rv_config *c;
	yaml_mark_t key_mark[RV_CFG_NKEYS], sect_mark[RV_CFG_NSECT], actions_mark;
	unsigned char key_seen[RV_CFG_NKEYS], sect_seen[RV_CFG_NSECT], actions_seen;
};

/* "FILE:LINE:COL: " for a libyaml mark (0-based) into buf. */
static const char *at(const struct loader *ld, yaml_mark_t m, char *buf, size_t n)
{
	return rv_yaml_at(&ld->y, m, buf, n);
}

/* Replaces the current event with the next one. */
static int next(struct loader *ld)
{
	return rv_yaml_next(&ld->y);
}

/* The items of a YAML sequence as the list key k. */
static int load_list(struct loader *ld, const struct rv_cfg_key *k)
{
	struct rv_cfg_list l = { .n = 0 };
	char where[CFG_WHERE_MAX];
	struct rv_cfg_origin o = { .where = where };
	int rc;

	rv_cfg_full_name(k, o.key, sizeof(o.key));
	while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_SEQUENCE_END_EVENT) {
		const yaml_event_t *e = &ld->y.ev;

		at(ld, e->start_mark, where, sizeof(where));
		if (e->type != YAML_SCALAR_EVENT)
			return rv_err_set(ld->y.err, -EINVAL, "%s%s: expected %s, not %s", where,
					  o.key, rv_cfg_list_one(k), rv_yaml_node_kind(e));
		rc = rv_cfg_add_item(k, &l, (const char *)e->data.scalar.value,
				     e->data.scalar.length, &o, ld->y.err);
		if (rc)
			return rc;
	}
	if (rc == 0)
		rv_cfg_store_list(k, &l, ld->c);
	return rc;
}

/* The value event of key k is current. */
static int load_value(struct loader *ld, const struct rv_cfg_key *k)
{
	const yaml_event_t *e = &ld->y.ev;
	char where[CFG_WHERE_MAX], name[CFG_TEXT_MAX];

	at(ld, e->start_mark, where, sizeof(where));
	if (k->type == K_LIST && e->type == YAML_SEQUENCE_START_EVENT)
		return load_list(ld, k);
	if (e->type != YAML_SCALAR_EVENT) {
		rv_cfg_full_name(k, name, sizeof(name));
		if (k->type == K_LIST)
			return rv_err_set(ld->y.err, -EINVAL, "%s%s: expected a list of %s, not %s",
					  where, name, rv_cfg_list_plural(k), rv_yaml_node_kind(e));
		return rv_err_set(ld->y.err, -EINVAL, "%s%s: expected a single value, not %s",
				  where, name, rv_yaml_node_kind(e));
	}
	if (rv_yaml_is_null(e) && (k->type == K_STR || k->type == K_LIST))
		return rv_cfg_set_value(k, "", 0, ld->c, where, ld->y.err);
	return rv_cfg_set_value(k, (const char *)e->data.scalar.value, e->data.scalar.length,
				ld->c, where, ld->y.err);
}

static int load_mapping(struct loader *ld, int sect);

/* The value event of section sect is current: a mapping, or null. */
static int load_section(struct loader *ld, int sect)
{
	char where[CFG_WHERE_MAX], known[CFG_LIST_TEXT_MAX];

	if (ld->y.ev.type == YAML_MAPPING_START_EVENT)
		return load_mapping(ld, sect);
	if (rv_yaml_is_null(&ld->y.ev))
		return 0;
	at(ld, ld->y.ev.start_mark, where, sizeof(where));
	return rv_err_set(ld->y.err, -EINVAL, "%s%s: expected a mapping of keys (%s), not %s",
			  where, rv_cfg_sections[sect].name,
			  rv_cfg_known_keys(sect, known, sizeof(known)),
			  rv_yaml_node_kind(&ld->y.ev));
}

static int key_error(struct loader *ld, int sect, int duplicate, yaml_mark_t first)
{
	const yaml_event_t *e = &ld->y.ev;
	char where[CFG_WHERE_MAX], shown[CFG_TEXT_MAX], in[CFG_TEXT_MAX] = "";
	char known[CFG_LIST_TEXT_MAX];

	at(ld, e->start_mark, where, sizeof(where));
	if (sect >= 0)
		snprintf(in, sizeof(in), " in '%s'", rv_cfg_sections[sect].name);
	rv_cfg_show((const char *)e->data.scalar.value, e->data.scalar.length, shown,
		    sizeof(shown));
	if (duplicate)
		return rv_err_set(ld->y.err, -EINVAL, "%sduplicate key '%s'%s (first at %zu:%zu)",
				  where, shown, in, first.line + 1, first.column + 1);
	return rv_err_set(ld->y.err, -EINVAL, "%sunknown key '%s'%s (known: %s)", where, shown, in,
			  rv_cfg_known_keys(sect, known, sizeof(known)));
}

/* The key actions (config_actions.c reads its list) is current. */
static int load_actions(struct loader *ld)
{
	int rc;

	if (ld->actions_seen)
		return key_error(ld, -1, 1, ld->actions_mark);
	ld->actions_seen = 1;
	ld->actions_mark = ld->y.ev.start_mark;
	rc = next(ld);
	return rc ? rc : rv_cfg_load_actions(&ld->y, ld->c);
}

/* The key event of one entry of section sect (-1: top level) is current. */
static int load_entry(struct loader *ld, int sect)
{
	const yaml_event_t *e = &ld->y.ev;
	char where[CFG_WHERE_MAX];
	const char *s;
	size_t len;
	int ki, si = -1, rc;
	yaml_mark_t *first;
	unsigned char *seen;

	if (e->type != YAML_SCALAR_EVENT)
		return rv_err_set(ld->y.err, -EINVAL, "%sa key must be a name, not %s",
				  at(ld, e->start_mark, where, sizeof(where)),
				  rv_yaml_node_kind(e));
	s = (const char *)e->data.scalar.value;
	len = e->data.scalar.length;
	if (sect < 0 && len == strlen(RV_CFG_ACTIONS) && memcmp(s, RV_CFG_ACTIONS, len) == 0)
		return load_actions(ld);
	ki = rv_cfg_find_key(sect, s, len);
	if (ki < 0 && sect < 0)
		si = rv_cfg_find_section(s, len);
	if (ki < 0 && si < 0)
		return key_error(ld, sect, 0, e->start_mark);
	first = ki >= 0 ? &ld->key_mark[ki] : &ld->sect_mark[si];
	seen = ki >= 0 ? &ld->key_seen[ki] : &ld->sect_seen[si];
	if (*seen)
		return key_error(ld, sect, 1, *first);
	*seen = 1;
	*first = e->start_mark;
	rc = next(ld);
	if (rc)
		return rc;
	return ki >= 0 ? load_value(ld, &rv_cfg_keys[ki]) : load_section(ld, si);
}

/* The MAPPING_START event is current; reads up to its MAPPING_END. */
static int load_mapping(struct loader *ld, int sect)
{
	int rc;

	while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_MAPPING_END_EVENT) {
		rc = load_entry(ld, sect);
		if (rc)
			return rc;
	}
	return rc;
}

/* Stream: nothing, or one document whose root is a mapping (or null). */
static int load_stream(struct loader *ld)
{
	char where[CFG_WHERE_MAX];
	int rc = rv_yaml_root(&ld->y);

	if (rc || ld->y.ev.type == YAML_STREAM_END_EVENT)
		return rc;
	if (ld->y.ev.type == YAML_MAPPING_START_EVENT)
		rc = load_mapping(ld, -1);
	else if (!rv_yaml_is_null(&ld->y.ev))
		rc = rv_err_set(ld->y.err, -EINVAL, "%sthe configuration must be a mapping of keys "
				"(like 'interval: 100ms'), not %s",
				at(ld, ld->y.ev.start_mark, where, sizeof(where)),
				rv_yaml_node_kind(&ld->y.ev));
	return rc ? rc : rv_yaml_end(&ld->y);
}

int rv_config_load_string(const char *text, size_t len, const char *name_for_errors,
			  struct rv_config *c, struct rv_err *err)
{
	struct loader *ld = calloc(1, sizeof(*ld));
	int rc;

	if (!ld || !(ld->c = malloc(sizeof(*ld->c)))) {
		free(ld);
		return rv_err_set(err, -ENOMEM, "%s: out of memory",
				  name_for_errors ? name_for_errors : "<string>");
	}
	*ld->c = *c;
	/* an anchor's whole name, as much as the message holds */
	rc = rv_yaml_init(&ld->y, name_for_errors ? name_for_errors : "<string>", text, len,
			  RV_ERR_MSG_MAX, err);
	if (rc == 0) {
		rc = load_stream(ld);
		rv_yaml_fini(&ld->y);
	}
	if (rc == 0)
		*c = *ld->c;
	free(ld->c);
	free(ld);
	return rc;
}

int rv_config_load(const char *path, struct rv_config *c, struct rv_err *err)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	int rc, e = errno;

	if (!f)
		return rv_err_set(err, -e, "%s: %s", path, strerror(e));
	buf = malloc(FILE_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	errno = 0;
	n = fread(buf, 1, FILE_MAX_BYTES + 1, f);
	e = errno ? errno : EIO;
	if (ferror(f))
		rc = rv_err_set(err, -e, "%s: %s", path, strerror(e));
	else if (n > FILE_MAX_BYTES)
		rc = rv_err_set(err, -EFBIG, "%s: larger than %d bytes; not a configuration file",
				path, FILE_MAX_BYTES);
	else
		rc = rv_config_load_string(buf, n, path, c, err);
	fclose(f);
	free(buf);
	return rc;
}

