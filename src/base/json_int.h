/*
 * json_int.h - what json.c (the parser) and json_access.c (the document's
 * arena and the accessors) share; not part of the public API of json.h.
 */
#ifndef RV_BASE_JSON_INT_H
#define RV_BASE_JSON_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/json.h"

enum {
	RV_JSON_ARENA_FIRST_BYTES = 4096,
	RV_JSON_ARENA_BLOCK_MAX_BYTES = 1 << 20,  /* blocks double up to this size */
};

_Static_assert(RV_JSON_MAX_BYTES < UINT32_MAX, "lengths and counts are kept in 32 bits");

struct rv_json {
	const char *key;        /* member name in an object, else NULL */
	union {
		double num;
		int64_t i;          /* when is_int */
		const char *str;
		struct rv_json *items;
	} u;
	uint32_t len;           /* string bytes, or items of an array or object */
	uint32_t key_len;
	uint32_t line;
	uint8_t type;           /* enum rv_json_type */
	uint8_t is_int;         /* number kept exactly in u.i */
};

struct json_block {
	struct json_block *next;
	size_t cap, used;
	max_align_t data[];
};

struct rv_json_doc {
	struct json_block *blocks; /* the head is the one being filled */
	size_t next_cap;
	struct rv_json root;
};

/* size bytes from the document's arena, aligned for struct rv_json; NULL
 * when out of memory. */
void *rv_json_arena_alloc(struct rv_json_doc *d, size_t size);

#endif
