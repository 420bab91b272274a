/* Passage — typed, immutable attribute dictionaries for calls, functions and
 * modules: int, float, string, bool, dtype, None, lists of values, and nested
 * dictionaries. Keys keep their insertion order (printing is deterministic). */
#ifndef PASSAGE_ATTRS_H
#define PASSAGE_ATTRS_H

#include "passage/type.h"

PSG_BEGIN_DECLS

typedef struct psg_attr psg_attr;   /* one value */
typedef struct psg_attrs psg_attrs; /* a dictionary */

enum {
  PSG_ATTR_NONE = 0,
  PSG_ATTR_INT = 1,
  PSG_ATTR_FLOAT = 2,
  PSG_ATTR_STRING = 3,
  PSG_ATTR_BOOL = 4,
  PSG_ATTR_DTYPE = 5,
  PSG_ATTR_LIST = 6,
  PSG_ATTR_DICT = 7,
  /* A reference to a module function by name (`@name` in text): TVM's
   * GlobalVar in an attribute, e.g. call_lowered's all_prim_fn_vars. */
  PSG_ATTR_GLOBAL_VAR = 8
};

/* Value constructors; *out is a new reference. PSG_ERR_NOMEM on failure. */
PSG_API psg_status psg_attr_none(psg_ctx *ctx, psg_attr **out);
PSG_API psg_status psg_attr_int(psg_ctx *ctx, int64_t v, psg_attr **out);
PSG_API psg_status psg_attr_float(psg_ctx *ctx, double v, psg_attr **out);
PSG_API psg_status psg_attr_string(psg_ctx *ctx, const char *s, size_t len, psg_attr **out);
PSG_API psg_status psg_attr_bool(psg_ctx *ctx, bool v, psg_attr **out);
PSG_API psg_status psg_attr_dtype(psg_ctx *ctx, int dtype, psg_attr **out);
/* A list of borrowed items (each is retained). */
PSG_API psg_status psg_attr_list(psg_ctx *ctx, psg_attr *const *items, size_t n, psg_attr **out);
PSG_API psg_status psg_attr_dict(psg_ctx *ctx, psg_attrs *dict, psg_attr **out);
/* A GlobalVar reference: `name` is the function's name (non-empty). */
PSG_API psg_status psg_attr_global_var(psg_ctx *ctx, const char *name, psg_attr **out);
PSG_API void psg_attr_retain(psg_attr *a);
PSG_API void psg_attr_release(psg_attr *a);

PSG_API int psg_attr_kind(const psg_attr *a);
PSG_API int64_t psg_attr_get_int(const psg_attr *a);     /* INT (BOOL as 0/1) */
PSG_API double psg_attr_get_float(const psg_attr *a);    /* FLOAT (INT converted) */
PSG_API const char *psg_attr_get_string(const psg_attr *a); /* STRING, NUL-terminated */
PSG_API const char *psg_attr_get_global_var(const psg_attr *a); /* GLOBAL_VAR: the name */
PSG_API bool psg_attr_get_bool(const psg_attr *a);
PSG_API int psg_attr_get_dtype(const psg_attr *a);
PSG_API size_t psg_attr_list_len(const psg_attr *a);
PSG_API psg_attr *psg_attr_list_get(const psg_attr *a, size_t i); /* borrowed */
PSG_API psg_attrs *psg_attr_get_dict(const psg_attr *a);          /* borrowed */
PSG_API bool psg_attr_equal(const psg_attr *a, const psg_attr *b);

/* A dictionary from parallel arrays of keys and borrowed values. A repeated
 * key is PSG_ERR_INVALID_ARGUMENT. n may be 0. */
PSG_API psg_status psg_attrs_create(psg_ctx *ctx, const char *const *keys, psg_attr *const *values,
                                    size_t n, psg_attrs **out);
/* A copy of `base` (may be NULL) with `key` set to `value` (added last, or
 * replaced in place). */
PSG_API psg_status psg_attrs_with(psg_ctx *ctx, const psg_attrs *base, const char *key,
                                  psg_attr *value, psg_attrs **out);
PSG_API void psg_attrs_retain(psg_attrs *a);
PSG_API void psg_attrs_release(psg_attrs *a);
PSG_API size_t psg_attrs_count(const psg_attrs *a); /* 0 for NULL */
PSG_API const char *psg_attrs_key(const psg_attrs *a, size_t i);
PSG_API psg_attr *psg_attrs_get_value(const psg_attrs *a, size_t i); /* borrowed */
PSG_API psg_attr *psg_attrs_get(const psg_attrs *a, const char *key); /* borrowed or NULL */
/* Equal keys in equal order with equal values; NULL equals the empty dict. */
PSG_API bool psg_attrs_equal(const psg_attrs *a, const psg_attrs *b);

PSG_END_DECLS
#endif
