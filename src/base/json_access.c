/*
 * json_access.c - the parsed document of base/json.h: its arena (blocks
 * that double in size up to a cap, freed all at once) and the accessors
 * on its values. The parser is json.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/json_int.h"

/* 2^53: integers written as fractions or exponents are exact below it. */
#define EXACT_INT_LIMIT 9007199254740992.0

/* ------------------------------------------------------------------ arena */

void *rv_json_arena_alloc(struct rv_json_doc *d, size_t size)
{
	const size_t align = _Alignof(struct rv_json);
	struct json_block *b = d->blocks;

	if (size > SIZE_MAX / 2)
		return NULL;
	size = (size + align - 1) & ~(align - 1);
	if (b && b->cap - b->used >= size) {
		void *p = (unsigned char *)b->data + b->used;
		b->used += size;
		return p;
	}
	size_t cap = size > d->next_cap ? size : d->next_cap;
	struct json_block *nb = malloc(sizeof(*nb) + cap);
	if (!nb)
		return NULL;
	nb->cap = cap;
	nb->used = size;
	if (size >= d->next_cap && b) {
		/* a request of a whole block or more: its own block, behind
		 * the current one, which stays the one being filled */
		nb->next = b->next;
		b->next = nb;
	} else {
		nb->next = b;
		d->blocks = nb;
		if (d->next_cap < RV_JSON_ARENA_BLOCK_MAX_BYTES)
			d->next_cap *= 2;
	}
	return nb->data;
}

void rv_json_doc_free(struct rv_json_doc *d)
{
	if (!d)
		return;
	for (struct json_block *b = d->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(d);
}

/* -------------------------------------------------------------- accessors */

const struct rv_json *rv_json_root(const struct rv_json_doc *d)
{
	return d ? &d->root : NULL;
}

enum rv_json_type rv_json_type(const struct rv_json *v)
{
	return v ? (enum rv_json_type)v->type : RV_JSON_NULL;
}

static int is_container(const struct rv_json *v)
{
	return v && (v->type == RV_JSON_ARRAY || v->type == RV_JSON_OBJECT);
}

size_t rv_json_len(const struct rv_json *v)
{
	return is_container(v) ? v->len : 0;
}

const struct rv_json *rv_json_at(const struct rv_json *v, size_t i)
{
	return is_container(v) && i < v->len ? &v->u.items[i] : NULL;
}

const char *rv_json_key(const struct rv_json *v, size_t i)
{
	return v && v->type == RV_JSON_OBJECT && i < v->len ? v->u.items[i].key : NULL;
}

size_t rv_json_key_len(const struct rv_json *v, size_t i)
{
	return v && v->type == RV_JSON_OBJECT && i < v->len ? v->u.items[i].key_len : 0;
}

const struct rv_json *rv_json_get(const struct rv_json *obj, const char *key)
{
	size_t n;

	if (!obj || obj->type != RV_JSON_OBJECT || !key)
		return NULL;
	n = strlen(key);
	for (size_t i = 0; i < obj->len; i++) {
		const struct rv_json *m = &obj->u.items[i];
		if (m->key_len == n && memcmp(m->key, key, n) == 0)
			return m;
	}
	return NULL;
}

double rv_json_num(const struct rv_json *v, double dflt)
{
	if (!v || v->type != RV_JSON_NUMBER)
		return dflt;
	return v->is_int ? (double)v->u.i : v->u.num;
}

int rv_json_i64(const struct rv_json *v, int64_t *out)
{
	double d;

	if (!v || v->type != RV_JSON_NUMBER)
		return -EINVAL;
	if (v->is_int) {
		*out = v->u.i;
		return 0;
	}
	d = v->u.num;
	if (d != floor(d))
		return -EINVAL;
	if (fabs(d) >= EXACT_INT_LIMIT)
		return -ERANGE;
	*out = (int64_t)d;
	return 0;
}

int rv_json_bool(const struct rv_json *v, int dflt)
{
	if (v && v->type == RV_JSON_TRUE)
		return 1;
	if (v && v->type == RV_JSON_FALSE)
		return 0;
	return dflt;
}

const char *rv_json_str(const struct rv_json *v, const char *dflt)
{
	return v && v->type == RV_JSON_STRING ? v->u.str : dflt;
}

size_t rv_json_str_len(const struct rv_json *v)
{
	return v && v->type == RV_JSON_STRING ? v->len : 0;
}

size_t rv_json_line(const struct rv_json *v)
{
	return v ? v->line : 0;
}
