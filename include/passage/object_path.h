/* Passage — TVM's ObjectPath: where, from a root object, a descendant sits
 * (attribute access, array index, map value, or an element or entry one
 * side of a comparison lacks), as tvm.ir.base.get_first_structural_mismatch
 * reports a difference. Paths are immutable and reference counted; a path
 * holds its parent. */
#ifndef PASSAGE_OBJECT_PATH_H
#define PASSAGE_OBJECT_PATH_H

#include "passage/ir.h"
#include "passage/tir.h"

PSG_BEGIN_DECLS

typedef struct psg_object_path psg_object_path;

/* The step a path ends with, named as TVM's classes. */
enum {
  PSG_PATH_ROOT = 0,                  /* RootPath: "<root>" or its name */
  PSG_PATH_ATTR = 1,                  /* AttributeAccessPath: ".name" */
  PSG_PATH_UNKNOWN_ATTR = 2,          /* UnknownAttributeAccessPath: ".<unknown attribute>" */
  PSG_PATH_ARRAY_INDEX = 3,           /* ArrayIndexPath: "[i]" */
  PSG_PATH_MISSING_ARRAY_ELEMENT = 4, /* MissingArrayElementPath: "[<missing element #i>]" */
  PSG_PATH_MAP_VALUE = 5,             /* MapValuePath: "[\"key\"]" (string keys) */
  PSG_PATH_MISSING_MAP_ENTRY = 6      /* MissingMapEntryPath: "[<missing entry>]" */
};

/* Constructors: *out is a new reference. `name` may be NULL (an unnamed
 * root; an unknown attribute); `key` may not. Errors:
 * PSG_ERR_INVALID_ARGUMENT (NULL parent or key), PSG_ERR_NOMEM. */
PSG_API psg_status psg_object_path_root(psg_ctx *ctx, const char *name, psg_object_path **out);
PSG_API psg_status psg_object_path_attr(psg_object_path *parent, const char *name, psg_object_path **out);
PSG_API psg_status psg_object_path_array_index(psg_object_path *parent, int64_t index, psg_object_path **out);
PSG_API psg_status psg_object_path_missing_array_element(psg_object_path *parent, int64_t index,
                                                         psg_object_path **out);
PSG_API psg_status psg_object_path_map_value(psg_object_path *parent, const char *key, psg_object_path **out);
PSG_API psg_status psg_object_path_missing_map_entry(psg_object_path *parent, psg_object_path **out);

PSG_API void psg_object_path_retain(psg_object_path *p);
PSG_API void psg_object_path_release(psg_object_path *p); /* NULL-safe; iterative */

PSG_API int psg_object_path_kind(const psg_object_path *p);
/* The number of steps, the root counting as one. */
PSG_API size_t psg_object_path_length(const psg_object_path *p);
/* The path one step shorter (borrowed), NULL for a root. */
PSG_API psg_object_path *psg_object_path_get_parent(const psg_object_path *p);
/* The first `length` steps (a new reference). PSG_ERR_INVALID_ARGUMENT with
 * TVM's message when length is 0 ("Prefix length must be at least 1") or
 * longer than the path ("Attempted to get a prefix longer than the path
 * itself"). */
PSG_API psg_status psg_object_path_get_prefix(psg_object_path *p, size_t length, psg_object_path **out);
/* Step by step equality (kinds, names, indices, keys). */
PSG_API bool psg_object_path_equal(const psg_object_path *a, const psg_object_path *b);
PSG_API bool psg_object_path_is_prefix_of(const psg_object_path *a, const psg_object_path *b);
/* TVM's text, e.g. `<root>.foo[2]` (*out for psg_free). */
PSG_API psg_status psg_object_path_to_string(const psg_object_path *p, char **out);

/* The first structural mismatch of two containers of TIR values, as TVM's
 * get_first_structural_mismatch reports it (*out_a and *out_b new references,
 * both NULL when equal). Arrays: the first index whose elements differ
 * (psg_tir_structural_equal), else, if one is longer, the shorter side's
 * missing element at that index against the longer side's element. Maps with
 * string keys: a key of `a` missing in `b` (its value against b's missing
 * entry), or with differing values (both values), in a's order; then a key
 * only `b` has. Paths extend root_a / root_b. */
PSG_API psg_status psg_tir_array_first_mismatch(psg_object_path *root_a, const psg_tir_node *const *a, size_t na,
                                                psg_object_path *root_b, const psg_tir_node *const *b, size_t nb,
                                                psg_object_path **out_a, psg_object_path **out_b);
PSG_API psg_status psg_tir_map_first_mismatch(psg_object_path *root_a, const char *const *keys_a,
                                              const psg_tir_node *const *a, size_t na, psg_object_path *root_b,
                                              const char *const *keys_b, const psg_tir_node *const *b, size_t nb,
                                              psg_object_path **out_a, psg_object_path **out_b);

/* The first structural mismatch of two Relay expressions (the comparison of
 * psg_expr_structural_equal_ex) as paths from root_a / root_b: the same
 * steps on both sides, one attribute per child edge named as the text path
 * names it ("body", "args"[i], "value", ...). Both NULL when equal. */
PSG_API psg_status psg_expr_first_mismatch(const psg_expr *a, const psg_expr *b, bool map_free_vars,
                                           psg_object_path *root_a, psg_object_path *root_b,
                                           psg_object_path **out_a, psg_object_path **out_b);

PSG_END_DECLS
#endif
