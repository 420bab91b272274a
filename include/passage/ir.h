/* Passage — Relay expressions (tvm-behavior §1.1), source spans, the
 * visitor/mutator engine (adding-a-pass.md "Traversers") and structural
 * equality and hashing.
 *
 * Ownership, in one sentence: arguments are borrowed; every returned object
 * is a new reference the caller must release, except functions named
 * `_get_`/`_borrow_`, which return a reference valid while the parent lives.
 *
 * Expressions are immutable once built and may be shared by many modules and
 * threads. A Var is identified by its node, not its name (two `%x` params are
 * different variables). Every traversal is iterative: graphs of millions of
 * nodes, let chains included, never recurse on the C stack. */
#ifndef PASSAGE_IR_H
#define PASSAGE_IR_H

#include "passage/attrs.h"
#include "passage/tensor.h"

PSG_BEGIN_DECLS

typedef struct psg_expr psg_expr;

/* Expression kinds; the values are part of the ABI. */
enum {
  PSG_EXPR_VAR = 0,
  PSG_EXPR_GLOBAL_VAR = 1,
  PSG_EXPR_CONSTANT = 2,
  PSG_EXPR_TUPLE = 3,
  PSG_EXPR_TUPLE_GET_ITEM = 4,
  PSG_EXPR_CALL = 5,
  PSG_EXPR_LET = 6,
  PSG_EXPR_IF = 7,
  PSG_EXPR_FUNCTION = 8,
  PSG_EXPR_OP = 9,
  PSG_EXPR_CONSTRUCTOR = 10, /* an ADT constructor (passage/adt.h) */
  PSG_EXPR_MATCH = 11,
  PSG_EXPR_REF_CREATE = 12,
  PSG_EXPR_REF_READ = 13,
  PSG_EXPR_REF_WRITE = 14,
  PSG_EXPR_KIND_COUNT = 15
};

/* A source range. `file` may be NULL; lines and columns count from 1, and 0
 * means unknown. `name` (may be NULL) names the source node the expression
 * was made for when there is one, as an ONNX node's name: frontends set it,
 * passes carry it over with the rest of the span, and the ONNX exporter
 * names the nodes it writes after it. Constructors copy the span (file and
 * name interned). */
typedef struct psg_span {
  const char *file;
  int32_t line, col, end_line, end_col;
  const char *name;
} psg_span;

/* Constructors. `span` may be NULL. Children are borrowed and retained.
 * Errors: PSG_ERR_INVALID_ARGUMENT (NULL child, a non-Var where a Var is
 * required, negative index), PSG_ERR_NOMEM. */
PSG_API psg_status psg_var_create(psg_ctx *ctx, const char *name, const psg_type *type,
                                  const psg_span *span, psg_expr **out);
PSG_API psg_status psg_global_var_create(psg_ctx *ctx, const char *name, const psg_span *span,
                                         psg_expr **out);
PSG_API psg_status psg_constant_create(psg_ctx *ctx, psg_tensor *data, const psg_span *span,
                                       psg_expr **out);
PSG_API psg_status psg_tuple_create(psg_ctx *ctx, psg_expr *const *fields, size_t n,
                                    const psg_span *span, psg_expr **out);
PSG_API psg_status psg_tuple_get_item_create(psg_ctx *ctx, psg_expr *tuple, int index,
                                             const psg_span *span, psg_expr **out);
/* `callee` is an Op, a Function, a GlobalVar or a Var; `attrs` may be NULL. */
PSG_API psg_status psg_call_create(psg_ctx *ctx, psg_expr *callee, psg_expr *const *args,
                                   size_t n, psg_attrs *attrs, const psg_span *span,
                                   psg_expr **out);
PSG_API psg_status psg_let_create(psg_ctx *ctx, psg_expr *var, psg_expr *value, psg_expr *body,
                                  const psg_span *span, psg_expr **out);
PSG_API psg_status psg_if_create(psg_ctx *ctx, psg_expr *cond, psg_expr *then_branch,
                                 psg_expr *else_branch, const psg_span *span, psg_expr **out);
/* `params` are Vars; `ret_type` and `attrs` may be NULL. */
PSG_API psg_status psg_function_create(psg_ctx *ctx, psg_expr *const *params, size_t n,
                                       psg_expr *body, const psg_type *ret_type,
                                       psg_attrs *attrs, const psg_span *span, psg_expr **out);
/* A polymorphic Function (`def @f[A](%x: A) -> A`): as psg_function_create,
 * quantified over `type_params` (distinct TypeVars; ntparams may be 0). */
PSG_API psg_status psg_function_create_poly(psg_ctx *ctx, psg_expr *const *params, size_t n,
                                            psg_expr *body, const psg_type *ret_type,
                                            const psg_type *const *type_params, int ntparams,
                                            psg_attrs *attrs, const psg_span *span, psg_expr **out);
/* The Op node named `name` (TVM's name, e.g. "nn.conv2d"). One node per op
 * and context. PSG_ERR_NOT_FOUND (with a diagnostic) for an unknown op. */
PSG_API psg_status psg_op_get(psg_ctx *ctx, const char *name, psg_expr **out);

PSG_API void psg_expr_retain(psg_expr *e);
PSG_API void psg_expr_release(psg_expr *e); /* NULL-safe; iterative */

PSG_API int psg_expr_kind(const psg_expr *e);
/* "Var", "Call", ... (the TVM node names). */
PSG_API const char *psg_expr_kind_name(int kind);
PSG_API psg_ctx *psg_expr_get_ctx(const psg_expr *e);
PSG_API void psg_expr_span(const psg_expr *e, psg_span *out);
/* The type InferType recorded, or NULL. */
PSG_API const psg_type *psg_expr_checked_type(const psg_expr *e);
/* InferType for one node, for frontends that build a graph bottom-up: when
 * the type of `e` follows from its children alone and each child already has
 * such a type (a constant: its tensor's; a Var: its annotation; a node typed
 * by this function; never a GlobalVar or an unannotated Var), computes it as
 * InferType would (a call: its op's type relation) and records it on `e`, so
 * InferType later keeps e's subtree without visiting it (children that are
 * constants or annotated Vars are typed on the way). *out (optional) gets
 * the type, or NULL when it does not follow from typed children (InferType
 * types such a node; nothing is recorded and the status is PSG_OK). A
 * Function without a return type gets its type recorded too, but InferType
 * still visits it to write the return type in (a frontend that knows it
 * passes it to psg_function_create). A type error is PSG_ERR_TYPE with a
 * diagnostic "op(...): reason" at e's span. */
PSG_API psg_status psg_expr_infer_type(psg_expr *e, const psg_type **out);

/* Generic children: Call: callee then args; Tuple: fields; TupleGetItem:
 * tuple; Let: var, value, body; If: cond, then, else; Function: params then
 * body; Match: data, then per clause its pattern's variables and its
 * right-hand side; RefCreate: value; RefRead: ref; RefWrite: ref, value;
 * leaves (Constructor among them): none. Borrowed. */
PSG_API size_t psg_expr_num_children(const psg_expr *e);
PSG_API psg_expr *psg_expr_get_child(const psg_expr *e, size_t i);

PSG_API const char *psg_var_name(const psg_expr *var);
PSG_API const psg_type *psg_var_type(const psg_expr *var); /* annotation or NULL */
PSG_API const char *psg_global_var_name(const psg_expr *gv);
PSG_API psg_tensor *psg_constant_get_tensor(const psg_expr *c);
PSG_API size_t psg_tuple_size(const psg_expr *t);
PSG_API psg_expr *psg_tuple_get_field(const psg_expr *t, size_t i);
PSG_API psg_expr *psg_tuple_get_item_get_tuple(const psg_expr *e);
PSG_API int psg_tuple_get_item_index(const psg_expr *e);
PSG_API psg_expr *psg_call_get_callee(const psg_expr *call);
PSG_API size_t psg_call_num_args(const psg_expr *call);
PSG_API psg_expr *psg_call_get_arg(const psg_expr *call, size_t i);
PSG_API psg_attrs *psg_call_get_attrs(const psg_expr *call); /* may be NULL */
PSG_API psg_expr *psg_let_get_var(const psg_expr *let);
PSG_API psg_expr *psg_let_get_value(const psg_expr *let);
PSG_API psg_expr *psg_let_get_body(const psg_expr *let);
PSG_API psg_expr *psg_if_get_cond(const psg_expr *e);
PSG_API psg_expr *psg_if_get_then(const psg_expr *e);
PSG_API psg_expr *psg_if_get_else(const psg_expr *e);
PSG_API size_t psg_function_num_params(const psg_expr *fn);
PSG_API psg_expr *psg_function_get_param(const psg_expr *fn, size_t i);
PSG_API psg_expr *psg_function_get_body(const psg_expr *fn);
PSG_API const psg_type *psg_function_ret_type(const psg_expr *fn);
/* A Function's type parameters (0 and NULL for a monomorphic one). */
PSG_API int psg_function_num_type_params(const psg_expr *fn);
PSG_API const psg_type *psg_function_type_param(const psg_expr *fn, int i);
PSG_API psg_attrs *psg_function_get_attrs(const psg_expr *fn); /* may be NULL */
PSG_API const char *psg_op_name(const psg_expr *op);

/* Visitor (STYLE rule 10): a post-order walk of the expression DAG, each node
 * once. `pre` (optional) runs when a node is first reached and may skip its
 * children or abort; `post` (optional) runs after all its children. A failing
 * `post` stops the walk and its status is returned. ------------------------- */

enum { PSG_VISIT_CONTINUE = 0, PSG_VISIT_SKIP_CHILDREN = 1, PSG_VISIT_ABORT = 2 };

typedef struct psg_visitor psg_visitor;
struct psg_visitor {
  int (*pre)(psg_visitor *v, const psg_expr *e);
  psg_status (*post)(psg_visitor *v, const psg_expr *e);
  void *user;
};
/* Returns PSG_OK (also when aborted by `pre`), the status of a failing
 * `post`, or PSG_ERR_NOMEM. */
PSG_API psg_status psg_visit(psg_ctx *ctx, psg_visitor *v, const psg_expr *root);

/* Mutator (the spec's ExprMutator): memoized, post-order, functional update.
 * For each node, once all its children are rewritten, `visit[kind]` runs if
 * set, else the default, which rebuilds the node from the rewritten children
 * and returns the very same node when no child changed.
 *
 *   psg_mutator m; psg_mutator_init(&m, ctx);
 *   m.visit[PSG_EXPR_CALL] = fold_call;   // like overriding VisitExpr_(CallNode)
 *   psg_status st = psg_mutate(&m, body, &out);
 *   psg_mutator_fini(&m);
 *
 * A callback calls psg_mutator_default first (the spec's base VisitExpr_),
 * then inspects its result. Callbacks never recurse into children: they read
 * rewritten children with psg_mutator_get_result. The memo keeps its entries
 * across psg_mutate calls until psg_mutator_fini. */
typedef struct psg_mutator psg_mutator;
/* Produces the rewrite of `e` in *out (a new reference). */
typedef psg_status (*psg_mutate_fn)(psg_mutator *m, const psg_expr *e, psg_expr **out);
struct psg_mutator {
  psg_ctx *ctx;
  psg_mutate_fn visit[PSG_EXPR_KIND_COUNT];
  /* Optional: runs when a node is first reached. Setting *replacement (a new
   * reference) makes that the node's result and skips its children. */
  psg_status (*pre)(psg_mutator *m, const psg_expr *e, psg_expr **replacement);
  /* Optional: runs just before child `index` of `parent` is rewritten (e.g.
   * FoldConstant binds a Let's var to its folded value before the body). */
  psg_status (*before_child)(psg_mutator *m, const psg_expr *parent, size_t index);
  void *user;
  void *state_; /* private: the memo */
};
PSG_API void psg_mutator_init(psg_mutator *m, psg_ctx *ctx);
PSG_API void psg_mutator_fini(psg_mutator *m);
PSG_API psg_status psg_mutate(psg_mutator *m, const psg_expr *e, psg_expr **out);
PSG_API psg_status psg_mutator_default(psg_mutator *m, const psg_expr *e, psg_expr **out);
/* The memoized rewrite of `e` (borrowed), or NULL if `e` was not reached. */
PSG_API psg_expr *psg_mutator_get_result(psg_mutator *m, const psg_expr *e);
/* Sets the memo entry of `e` to `result` (retained): later uses of `e` are
 * replaced by `result`. */
PSG_API psg_status psg_mutator_set_result(psg_mutator *m, const psg_expr *e, psg_expr *result);

/* Structural equality and hashing (TVM's StructuralEqual/StructuralHash):
 * bound variables (function params, let vars) are equal by position of
 * definition (alpha-equivalence); free variables only to themselves;
 * GlobalVars and Ops by name; constants by dtype, shape and bytes; spans are
 * ignored. Equal expressions hash equally. ------------------------------ */
PSG_API bool psg_expr_structural_equal(const psg_expr *a, const psg_expr *b);
PSG_API uint64_t psg_expr_structural_hash(const psg_expr *e);
/* Like psg_expr_structural_equal; on inequality, if `path` is not NULL, sets
 * *path to a description of the first difference in pre-order, e.g.
 * "@main.body.args[0].args[1]: Constant data differ" (free with psg_free). */
PSG_API bool psg_expr_structural_equal_explain(const psg_expr *a, const psg_expr *b, char **path);
/* TVM's structural_equal(a, b, map_free_vars): with map_free_vars a free
 * variable of `a` may pair with one of `b` (same annotation, a bijection, as
 * definitions pair); path as above (may be NULL). */
/* TVM's WellFormed: no variable is bound twice and none is used outside
 * its scope (free variables are allowed). */
PSG_API bool psg_expr_well_formed(const psg_expr *e);
PSG_API bool psg_expr_structural_equal_ex(const psg_expr *a, const psg_expr *b, bool map_free_vars, char **path);

PSG_END_DECLS
#endif
