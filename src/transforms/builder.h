/* Passage — building expressions inside passes: calls of ops by name, scalar
 * and tensor constants, attribute dictionaries, and the types InferType left
 * on nodes. Every builder takes a `psgi_built` scope that owns what it made,
 * so a pass releases everything at once on any exit path:
 *
 *   psgi_built b; psgi_built_init(&b, ctx, span);
 *   psg_expr *s = psgi_build_call(&b, "sqrt", (psg_expr *[]){v}, 1, NULL);
 *   psg_expr *out = psgi_build_call(&b, "divide", (psg_expr *[]){x, s}, 2, NULL);
 *   if (!out) ...error: b.status says why...
 *   *result = psgi_built_keep(&b, out);   // a new reference for the caller
 *   psgi_built_fini(&b);                  // releases the rest
 *
 * A builder given a NULL argument returns NULL without doing anything, so a
 * chain of builds needs one check at the end. */
#ifndef PSG_TRANSFORMS_BUILDER_H
#define PSG_TRANSFORMS_BUILDER_H

#include "ir/ir_internal.h"
#include "ir/op_table.h"

/* Type relation results a pass reuses across the calls it builds: the
 * same few calls over the same types again and again (SimplifyInference's
 * batch_norm expansion, per batch_norm). A relation is a function of the
 * op, its attrs and the argument types alone, and types live as long as
 * their context, so a result found for those is the result. Direct-mapped,
 * fixed size (a collision replaces); an entry holds a reference to its
 * attrs, so their address cannot be reused by other attrs while cached.
 * Zero-initialized; psgi_rel_cache_fini releases it. */
enum { PSGI_REL_CACHE_SLOTS = 64, PSGI_REL_CACHE_ARGS = 4 };
typedef struct psgi_rel_cache {
  struct psgi_rel_cache_entry {
    const psg_type *result; /* NULL: an empty slot */
    size_t op;
    psg_attrs *attrs;
    size_t n;
    const psg_type *args[PSGI_REL_CACHE_ARGS];
  } slot[PSGI_REL_CACHE_SLOTS];
} psgi_rel_cache;
void psgi_rel_cache_fini(psgi_rel_cache *c);

typedef struct psgi_built {
  psg_ctx *ctx;
  const psg_span *span; /* given to every node built: a live node's (psgi_expr_span_ref) or NULL */
  psg_status status; /* the first failure, PSG_OK while all went well */
  /* psgi_build_call gives a call a final type (ir_internal.h) when all its
   * arguments have one, so InferType after the pass need not visit it. Off by
   * default: a pass that matches on the types of what it built sees more. */
  bool final_types;
  psgi_rel_cache *rel_cache; /* NULL: every typed build runs the op's relation */
  PSGI_VEC(psg_expr *) exprs;
  PSGI_VEC(psg_attrs *) attrs;
} psgi_built;

void psgi_built_init(psgi_built *b, psg_ctx *ctx, const psg_span *span);
void psgi_built_fini(psgi_built *b);
/* A new reference to `e` (which stays owned by b until fini too). */
psg_expr *psgi_built_keep(psgi_built *b, psg_expr *e);

/* `op(args...)`; attrs may be NULL (TVM defaults). Borrowed result. With
 * b->final_types, when every argument's type is final and the op's relation
 * accepts them, the call gets its final type too; otherwise it is untyped. */
psg_expr *psgi_build_call(psgi_built *b, const char *op, psg_expr *const *args, size_t n, psg_attrs *attrs);
/* The same with the op given by its op table index (op_table.h: PSGI_OP_add,
 * ...): no name to hash, for passes that build known ops per node. */
psg_expr *psgi_build_op_call(psgi_built *b, size_t op, psg_expr *const *args, size_t n, psg_attrs *attrs);
/* Like psgi_build_call, and the call gets its checked type from the op's type
 * relation when every argument has one (so a pass can keep matching on the
 * types of what it built). An argument that does not fit fails the build
 * with PSG_ERR_TYPE: a pass should not make ill-typed calls. */
psg_expr *psgi_build_call_typed(psgi_built *b, const char *op, psg_expr *const *args, size_t n, psg_attrs *attrs);
psg_expr *psgi_build_op_call_typed(psgi_built *b, size_t op, psg_expr *const *args, size_t n, psg_attrs *attrs);
/* Gives `e` (untyped, just built or rebuilt) the type `t` when it has none. */
void psgi_give_type(psg_expr *e, const psg_type *t);
/* A rank-0 constant of `dtype` holding `value` (converted). */
psg_expr *psgi_build_scalar(psgi_built *b, int dtype, double value);
/* A constant over tensor `t` (retained). */
psg_expr *psgi_build_constant(psgi_built *b, psg_tensor *t);
psg_expr *psgi_build_tuple_get_item(psgi_built *b, psg_expr *tuple, int index);

/* Attribute dictionaries from parallel key/value arrays; values are built
 * with the helpers below (owned by the dictionary afterwards). NULL on OOM. */
psg_attrs *psgi_build_attrs(psgi_built *b, const char *const *keys, psg_attr *const *values, size_t n);
psg_attr *psgi_build_attr_int(psgi_built *b, int64_t v);
psg_attr *psgi_build_attr_bool(psgi_built *b, bool v);
psg_attr *psgi_build_attr_float(psgi_built *b, double v);
psg_attr *psgi_build_attr_ints(psgi_built *b, const int64_t *v, size_t n);
psg_attr *psgi_build_attr_dtype(psgi_built *b, int dtype);

/* `x` reshaped so that a 1-D per-channel vector broadcasts along `axis` of a
 * rank-`ndim` tensor: expand_dims(x, axis=1, num_newaxis=ndim-axis-1) as
 * TVM's ExpandBiasToMatchAxis (x itself when nothing is needed). */
psg_expr *psgi_build_expand_to_axis(psgi_built *b, psg_expr *x, int ndim, int axis);

/* The type InferType left on `e` (for parameters: their annotation), or NULL. */
const psg_type *psgi_type_of(const psg_expr *e);
/* The same, only when it is a tensor type. */
const psg_type *psgi_tensor_type_of(const psg_expr *e);
/* The op name of a call's callee, or NULL when the callee is not an op. */
const char *psgi_call_op_name(const psg_expr *call);

#endif
