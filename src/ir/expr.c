/* Passage — Relay expression nodes (tvm-behavior §1.1): constructors,
 * accessors, functional rebuild and iterative release. Nodes are immutable;
 * the one exception is checked_type, a write-once cache InferType fills. */
#include "ir/ir_internal.h"
#include "ir/op_table.h"

const char *const psgi_expr_kind_names[PSG_EXPR_KIND_COUNT] = {
#define X(kind, name) [PSG_EXPR_##kind] = name,
#include "ir/expr_kinds.def"
#undef X
};

/* The .def table and the public enum must list the same kinds in order. */
enum {
#define X(kind, name) DEF_##kind,
#include "ir/expr_kinds.def"
#undef X
  DEF_COUNT
};
_Static_assert((int)DEF_COUNT == (int)PSG_EXPR_KIND_COUNT, "expr_kinds.def out of sync with ir.h");
_Static_assert((int)DEF_CALL == (int)PSG_EXPR_CALL && (int)DEF_OP == (int)PSG_EXPR_OP, "expr_kinds.def order");

const char *psg_expr_kind_name(int kind) {
  return kind >= 0 && kind < PSG_EXPR_KIND_COUNT ? psgi_expr_kind_names[kind] : "?";
}

/* The span moved out of the node (departure 213): a call of an op on two
 * arguments is 80 bytes, not 112. */
_Static_assert(sizeof(psg_expr) == 56, "psg_expr's header grew");

/* A node's block, without psgi_alloc's header (the size follows from its
 * kind and nkids): a call of an op on two arguments is 80 bytes. */
static size_t node_size(int kind, size_t nkids) {
  return sizeof(psg_expr) + psgi_mul_size(nkids + psgi_expr_tail_words(kind), sizeof(psg_expr *));
}

/* A node of `kind` with room for `nkids` children (filled by the caller,
 * which retains them). */
static psg_status new_expr(psg_ctx *ctx, int kind, size_t nkids, const psg_span *span,
                           psg_expr **out) {
  *out = NULL;
  if (nkids > UINT32_MAX - 1) return PSG_ERR_INVALID_ARGUMENT;
  uint32_t sp;
  psg_status st = psgi_span_intern(ctx, span, &sp);
  if (st) return st;
  psg_expr *e = psgi_alloc_sized(ctx, node_size(kind, nkids));
  if (!e) return psgi_span_release(ctx, sp), psgi_nomem(ctx);
  memset(e, 0, sizeof *e);
  if (psgi_expr_tail_words(kind)) memset(&e->kids[nkids], 0, sizeof(psgi_expr_tail));
  e->kind = (uint16_t)kind;
  e->refcount = 1;
  e->ctx = ctx;
  e->span = sp;
  e->nkids = (uint32_t)nkids;
  psgi_ctx_object_born(ctx);
  *out = e;
  return PSG_OK;
}

/* HAS_SCOPES from the node's kind and its children (set once, at birth). A
 * Composite function literal has none: its body is a closed function the
 * built-in passes keep as it is (psgi_is_composite_fn). */
/* HAS_SCOPES for e from its kind and `kid_flags`, the OR of its children's
 * flags (a Composite function is kept whole: never marked). */
static void mark_scopes(psg_expr *e, uint16_t kid_flags) {
  bool scoped = e->kind == PSG_EXPR_IF || e->kind == PSG_EXPR_LET || e->kind == PSG_EXPR_FUNCTION ||
                e->kind == PSG_EXPR_MATCH || (kid_flags & PSGI_EXPR_HAS_SCOPES);
  if (scoped && !psgi_is_composite_fn(e)) e->flags |= PSGI_EXPR_HAS_SCOPES;
}

/* A new reference to child k: psg_expr_retain with the thread test hoisted
 * out of the caller's loop (`single`: psgi_single_threaded()). Returns k's
 * flags, for mark_scopes. */
static inline uint16_t retain_kid(psg_expr *k, bool single) {
  uint16_t kf = k->flags;
  if (!(kf & PSGI_EXPR_IMMORTAL)) {
    if (single) k->refcount++;
    else psgi_ref_inc(&k->refcount);
  }
  return kf;
}

/* Stores and retains n children from index `from`, in one pass that also
 * gathers their flags; returns the OR of those flags. */
static uint16_t store_kids(psg_expr *e, uint32_t from, psg_expr *const *kids, size_t n) {
  bool single = psgi_single_threaded();
  uint16_t kid_flags = 0;
  for (size_t i = 0; i < n; i++) {
    e->kids[from + i] = kids[i];
    kid_flags |= retain_kid(kids[i], single);
  }
  return kid_flags;
}

static void set_kids(psg_expr *e, psg_expr *const *kids) { mark_scopes(e, store_kids(e, 0, kids, e->nkids)); }

static bool all_present(psg_expr *const *kids, size_t n) {
  if (n && !kids) return false;
  for (size_t i = 0; i < n; i++)
    if (!kids[i]) return false;
  return true;
}

psg_status psgi_expr_new(psg_ctx *ctx, int kind, size_t nkids, const psg_span *span, psg_expr **out) {
  return new_expr(ctx, kind, nkids, span, out);
}
void psgi_expr_set_kids(psg_expr *e, psg_expr *const *kids) { set_kids(e, kids); }

static psg_status bad(psg_ctx *ctx, const char *what) {
  return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                       "%s", what);
}

psg_status psg_var_create(psg_ctx *ctx, const char *name, const psg_type *type,
                          const psg_span *span, psg_expr **out) {
  /* A name interned already (a rebuilt or generated parameter's) is found
   * without hashing it. */
  const char *n = name ? psgi_intern_again(ctx, name) : psgi_intern(ctx, "", 0);
  if (!n) return *out = NULL, psgi_nomem(ctx);
  psg_status st = new_expr(ctx, PSG_EXPR_VAR, 0, span, out);
  if (st) return st;
  (*out)->u.var.name = n;
  (*out)->u.var.type = type;
  return PSG_OK;
}

psg_status psg_global_var_create(psg_ctx *ctx, const char *name, const psg_span *span,
                                 psg_expr **out) {
  *out = NULL;
  if (!name || !*name) return bad(ctx, "a GlobalVar needs a name");
  const char *n = psgi_intern(ctx, name, strlen(name));
  if (!n) return psgi_nomem(ctx);
  psg_status st = new_expr(ctx, PSG_EXPR_GLOBAL_VAR, 0, span, out);
  if (st) return st;
  (*out)->u.gvar.name = n;
  return PSG_OK;
}

psg_status psg_constant_create(psg_ctx *ctx, psg_tensor *data, const psg_span *span,
                               psg_expr **out) {
  *out = NULL;
  if (!data) return bad(ctx, "a Constant needs a tensor");
  psg_status st = new_expr(ctx, PSG_EXPR_CONSTANT, 0, span, out);
  if (st) return st;
  (*out)->u.constant = data;
  psg_tensor_retain(data);
  return PSG_OK;
}

psg_status psg_tuple_create(psg_ctx *ctx, psg_expr *const *fields, size_t n, const psg_span *span,
                            psg_expr **out) {
  *out = NULL;
  if (!all_present(fields, n)) return bad(ctx, "a Tuple field is NULL");
  psg_status st = new_expr(ctx, PSG_EXPR_TUPLE, n, span, out);
  if (!st) set_kids(*out, fields);
  return st;
}

psg_status psg_tuple_get_item_create(psg_ctx *ctx, psg_expr *tuple, int index,
                                     const psg_span *span, psg_expr **out) {
  *out = NULL;
  if (!tuple || index < 0) return bad(ctx, "a TupleGetItem needs a tuple and an index >= 0");
  psg_status st = new_expr(ctx, PSG_EXPR_TUPLE_GET_ITEM, 1, span, out);
  if (st) return st;
  set_kids(*out, &tuple);
  (*out)->u.index = index;
  return PSG_OK;
}

psg_status psg_call_create(psg_ctx *ctx, psg_expr *callee, psg_expr *const *args, size_t n,
                           psg_attrs *attrs, const psg_span *span, psg_expr **out) {
  *out = NULL;
  if (!callee || !all_present(args, n)) return bad(ctx, "a Call needs a callee and non-NULL args");
  if (callee->kind == PSG_EXPR_CONSTANT || callee->kind == PSG_EXPR_TUPLE)
    return bad(ctx, "a Call's callee must be an Op, a Function or a function-valued expression");
  if (n >= UINT32_MAX - 1) return bad(ctx, "too many call arguments");
  psg_status st = new_expr(ctx, PSG_EXPR_CALL, n + 1, span, out);
  if (st) return st;
  psg_expr *e = *out;
  e->kids[0] = callee;
  uint16_t kid_flags = retain_kid(callee, psgi_single_threaded()) | store_kids(e, 1, args, n);
  e->u.attrs = attrs;
  psg_attrs_retain(attrs);
  mark_scopes(e, kid_flags);
  return PSG_OK;
}

psg_status psg_let_create(psg_ctx *ctx, psg_expr *var, psg_expr *value, psg_expr *body,
                          const psg_span *span, psg_expr **out) {
  *out = NULL;
  if (!var || !value || !body || var->kind != PSG_EXPR_VAR)
    return bad(ctx, "a Let needs a Var, a value and a body");
  psg_expr *kids[3] = {var, value, body};
  psg_status st = new_expr(ctx, PSG_EXPR_LET, 3, span, out);
  if (!st) set_kids(*out, kids);
  return st;
}

psg_status psg_if_create(psg_ctx *ctx, psg_expr *cond, psg_expr *then_branch,
                         psg_expr *else_branch, const psg_span *span, psg_expr **out) {
  *out = NULL;
  if (!cond || !then_branch || !else_branch) return bad(ctx, "an If needs a condition and two branches");
  psg_expr *kids[3] = {cond, then_branch, else_branch};
  psg_status st = new_expr(ctx, PSG_EXPR_IF, 3, span, out);
  if (!st) set_kids(*out, kids);
  return st;
}

psg_status psg_function_create(psg_ctx *ctx, psg_expr *const *params, size_t n, psg_expr *body,
                               const psg_type *ret_type, psg_attrs *attrs, const psg_span *span,
                               psg_expr **out) {
  return psg_function_create_poly(ctx, params, n, body, ret_type, NULL, 0, attrs, span, out);
}

psg_status psg_function_create_poly(psg_ctx *ctx, psg_expr *const *params, size_t n, psg_expr *body,
                                    const psg_type *ret_type, const psg_type *const *type_params, int ntparams,
                                    psg_attrs *attrs, const psg_span *span, psg_expr **out) {
  *out = NULL;
  const psg_type *tparams = NULL;
  if (ntparams < 0 || (ntparams && !type_params)) return bad(ctx, "bad Function type parameters");
  for (int i = 0; i < ntparams; i++) {
    if (!type_params[i] || psg_type_kind(type_params[i]) != PSG_TYPE_VAR)
      return bad(ctx, "a Function type parameter must be a TypeVar");
    for (int j = 0; j < i; j++)
      if (type_params[j] == type_params[i]) return bad(ctx, "a Function lists the same type parameter twice");
  }
  if (ntparams) {
    psg_status st = psg_type_tuple(ctx, type_params, ntparams, &tparams);
    if (st) return st == PSG_ERR_NOMEM ? psgi_nomem(ctx) : st;
  }
  if (!body || !all_present(params, n)) return bad(ctx, "a Function needs a body and non-NULL params");
  for (size_t i = 0; i < n; i++) {
    if (params[i]->kind != PSG_EXPR_VAR) return bad(ctx, "a Function parameter must be a Var");
    for (size_t j = 0; j < i; j++)
      if (params[j] == params[i]) return bad(ctx, "a Function lists the same parameter twice");
  }
  if (n >= UINT32_MAX - 1) return bad(ctx, "too many parameters");
  psg_status st = new_expr(ctx, PSG_EXPR_FUNCTION, n + 1, span, out);
  if (st) return st;
  psg_expr *e = *out;
  for (size_t i = 0; i < n; i++) {
    e->kids[i] = params[i];
    psg_expr_retain(params[i]);
  }
  e->kids[n] = body;
  psg_expr_retain(body);
  e->u.fn.attrs = attrs;
  e->u.fn.ret_type = ret_type;
  e->u.fn.tparams = tparams;
  psg_attrs_retain(attrs);
  mark_scopes(e, 0); /* a Function opens a scope whatever its children */
  return PSG_OK;
}

psg_status psg_op_get(psg_ctx *ctx, const char *name, psg_expr **out) {
  *out = NULL;
  if (!name) return bad(ctx, "psg_op_get needs a name");
  ptrdiff_t idx = psgi_op_lookup_in(ctx, name, strlen(name));
  if (idx < 0)
    return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_NOT_FOUND, NULL, 0, 0, NULL, 0, NULL,
                         "unknown operator '%s'", name);
  return psgi_op_node(ctx, (size_t)idx, out);
}

psg_status psgi_op_node(psg_ctx *ctx, size_t idx, psg_expr **out) {
  *out = NULL;
  psg_status st = PSG_OK;
  bool locked = !psgi_single_threaded(); /* no other thread to exclude (support.h) */
  if (locked) pthread_mutex_lock(&ctx->lock);
  if (idx >= ctx->num_op_nodes) {
    /* The built-in ops at first; room for the registered ones (op_custom.c)
     * when the first of them is asked for. */
    size_t n = idx < psgi_op_table_len ? psgi_op_table_len : psgi_op_table_len + PSGI_OP_CUSTOM_MAX;
    psg_expr **nodes = psgi_calloc(ctx, n * sizeof *nodes);
    if (nodes) {
      if (ctx->op_nodes) memcpy(nodes, ctx->op_nodes, ctx->num_op_nodes * sizeof *nodes);
      psgi_free(ctx, ctx->op_nodes);
      ctx->op_nodes = nodes;
      ctx->num_op_nodes = n;
    }
  }
  if (idx >= ctx->num_op_nodes) {
    st = PSG_ERR_NOMEM;
  } else if (!ctx->op_nodes[idx]) {
    /* Op nodes are immortal: owned by the context, never counted as live
     * objects and never holding a context reference (no cycle). */
    psg_expr *e = psgi_calloc(ctx, sizeof(psg_expr));
    if (!e) {
      st = PSG_ERR_NOMEM;
    } else {
      e->kind = PSG_EXPR_OP;
      e->flags = PSGI_EXPR_IMMORTAL;
      e->refcount = 1;
      e->ctx = ctx;
      e->u.op = (uint32_t)idx;
      ctx->op_nodes[idx] = e;
    }
  }
  if (!st) *out = ctx->op_nodes[idx];
  if (locked) pthread_mutex_unlock(&ctx->lock);
  if (st == PSG_ERR_NOMEM) psgi_nomem(ctx);
  return st;
}

/* Whether `now` has the final type `was` has. A constant (say, just folded)
 * has the type of its tensor and an annotated variable (a new parameter) its
 * annotation: given it here when that is was's type. */
static bool same_final_type(const psg_expr *was, psg_expr *now) {
  if (was == now) return true;
  const psg_type *t = was->kind == PSG_EXPR_OP ? NULL : psgi_expr_final_type(was);
  if (!t) return false;
  const psg_type *u = psgi_expr_final_type(now);
  if (!u && now->kind == PSG_EXPR_VAR && now->u.var.type == t) {
    psgi_expr_set_final_type(now, t);
    return true;
  }
  if (u || now->kind != PSG_EXPR_CONSTANT) return u == t;
  const psg_tensor *c = now->u.constant;
  if (t->kind != PSG_TYPE_TENSOR || c->dtype != t->dtype || c->ndim != t->n) return false;
  for (int i = 0; i < c->ndim; i++)
    if (c->shape[i] != t->dims[i]) return false;
  psgi_expr_set_final_type(now, t);
  return true;
}

psg_status psgi_expr_rebuild(const psg_expr *e, psg_expr *const *kids, psg_expr **out) {
  psg_ctx *ctx = e->ctx;
  *out = NULL;
  if (e->flags & PSGI_EXPR_IMMORTAL || e->nkids == 0) {
    *out = (psg_expr *)e;
    psg_expr_retain(*out);
    return PSG_OK;
  }
  psg_expr *n = psgi_alloc_sized(ctx, node_size(e->kind, e->nkids));
  if (!n) return psgi_nomem(ctx);
  memcpy(n, e, sizeof(psg_expr));
  if (psgi_expr_tail_words(e->kind)) *psgi_expr_tail_of(n) = *psgi_expr_tail_of(e); /* the size hint */
  n->refcount = 1;
  n->flags = 0; /* not IMMORTAL (returned above) */
  n->checked_type = NULL;
  /* One pass over the children (every node of a rewrite downstream of a
   * change comes through here): each is stored and retained, its flags
   * gathered for mark_scopes and, while the old type can stay final, its
   * type compared. A final type stays final when every
   * new child has the final type the old one had: the type follows from
   * the payload and those types alone. */
  bool same = psgi_expr_final_type(e) != NULL, single = psgi_single_threaded();
  uint16_t kid_flags = 0;
  for (uint32_t i = 0; i < n->nkids; i++) {
    n->kids[i] = kids[i];
    kid_flags |= retain_kid(kids[i], single);
    if (same) same = same_final_type(e->kids[i], kids[i]);
  }
  mark_scopes(n, kid_flags);
  if (same) {
    n->checked_type = e->checked_type;
    n->flags |= PSGI_EXPR_TYPE_FINAL;
  }
  if (n->kind == PSG_EXPR_CALL) psg_attrs_retain(n->u.attrs);
  if (n->kind == PSG_EXPR_FUNCTION) psg_attrs_retain(n->u.fn.attrs);
  if (n->kind == PSG_EXPR_MATCH) psgi_ref_inc(&n->u.match->refcount);
  psgi_span_retain(ctx, n->span); /* the rebuild shares the span */
  psgi_ctx_object_born(ctx);
  *out = n;
  return PSG_OK;
}

void psgi_expr_set_checked_type(psg_expr *e, const psg_type *t) {
  __atomic_store_n(&e->checked_type, t, __ATOMIC_RELEASE);
}

void psgi_expr_set_final_type(psg_expr *e, const psg_type *t) {
  if (e->flags & PSGI_EXPR_IMMORTAL) return; /* Ops have no type of their own */
  __atomic_store_n(&e->checked_type, t, __ATOMIC_RELEASE);
  if (psgi_single_threaded()) /* plain while no other thread exists (support.h) */
    e->flags |= (uint16_t)PSGI_EXPR_TYPE_FINAL;
  else
    __atomic_fetch_or(&e->flags, (uint16_t)PSGI_EXPR_TYPE_FINAL, __ATOMIC_RELEASE);
}

void psg_expr_retain(psg_expr *e) {
  if (e && !(e->flags & PSGI_EXPR_IMMORTAL)) psgi_ref_inc(&e->refcount);
}

/* Drops the payload's references; the node's children are handled by the
 * caller's loop. */
static void release_payload(psg_expr *e) {
  switch (e->kind) {
  case PSG_EXPR_CONSTANT: psg_tensor_release(e->u.constant); break;
  case PSG_EXPR_CALL: psg_attrs_release(e->u.attrs); break;
  case PSG_EXPR_FUNCTION: psg_attrs_release(e->u.fn.attrs); break;
  case PSG_EXPR_MATCH: psgi_match_info_release(e->ctx, e->u.match); break;
  case PSG_EXPR_CONSTRUCTOR:
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE:
  case PSG_EXPR_VAR:
  case PSG_EXPR_GLOBAL_VAR:
  case PSG_EXPR_TUPLE:
  case PSG_EXPR_TUPLE_GET_ITEM:
  case PSG_EXPR_LET:
  case PSG_EXPR_IF:
  case PSG_EXPR_OP: break;
  }
}

void psg_expr_release(psg_expr *e) {
  if (!e || (e->flags & PSGI_EXPR_IMMORTAL) || !psgi_ref_dec(&e->refcount)) return;
  /* Dead nodes are chained through their payload slot, so releasing a
   * million-node chain needs neither stack nor memory (jq's jv_free). */
  psg_ctx *ctx = e->ctx;
  psg_ctx_retain(ctx);
  release_payload(e);
  e->u.dead_next = NULL;
  psg_expr *dead = e;
  while (dead) {
    psg_expr *d = dead;
    dead = d->u.dead_next;
    for (uint32_t i = 0; i < d->nkids; i++) {
      psg_expr *k = d->kids[i];
      if (!(k->flags & PSGI_EXPR_IMMORTAL) && psgi_ref_dec(&k->refcount)) {
        release_payload(k);
        k->u.dead_next = dead;
        dead = k;
      }
    }
    psgi_span_release(ctx, d->span);
    psgi_free_sized(ctx, d, node_size(d->kind, d->nkids));
    psgi_ctx_object_died(ctx);
  }
  psg_ctx_release(ctx);
}

int psg_expr_kind(const psg_expr *e) { return e->kind; }
psg_ctx *psg_expr_get_ctx(const psg_expr *e) { return e->ctx; }
void psg_expr_span(const psg_expr *e, psg_span *out) { *out = *psgi_expr_span_ref(e); }
const psg_type *psg_expr_checked_type(const psg_expr *e) {
  return __atomic_load_n(&e->checked_type, __ATOMIC_ACQUIRE);
}
size_t psg_expr_num_children(const psg_expr *e) { return e->nkids; }
psg_expr *psg_expr_get_child(const psg_expr *e, size_t i) { return i < e->nkids ? e->kids[i] : NULL; }

#define KIND_OR(e, k, val, fallback) ((e)->kind == (k) ? (val) : (fallback))
const char *psg_var_name(const psg_expr *v) { return KIND_OR(v, PSG_EXPR_VAR, v->u.var.name, NULL); }
const psg_type *psg_var_type(const psg_expr *v) { return KIND_OR(v, PSG_EXPR_VAR, v->u.var.type, NULL); }
const char *psg_global_var_name(const psg_expr *g) {
  return KIND_OR(g, PSG_EXPR_GLOBAL_VAR, g->u.gvar.name, NULL);
}
psg_tensor *psg_constant_get_tensor(const psg_expr *c) {
  return KIND_OR(c, PSG_EXPR_CONSTANT, c->u.constant, NULL);
}
size_t psg_tuple_size(const psg_expr *t) { return KIND_OR(t, PSG_EXPR_TUPLE, t->nkids, 0); }
psg_expr *psg_tuple_get_field(const psg_expr *t, size_t i) {
  return t->kind == PSG_EXPR_TUPLE && i < t->nkids ? t->kids[i] : NULL;
}
psg_expr *psg_tuple_get_item_get_tuple(const psg_expr *e) {
  return KIND_OR(e, PSG_EXPR_TUPLE_GET_ITEM, e->kids[0], NULL);
}
int psg_tuple_get_item_index(const psg_expr *e) { return KIND_OR(e, PSG_EXPR_TUPLE_GET_ITEM, e->u.index, -1); }
psg_expr *psg_call_get_callee(const psg_expr *c) { return KIND_OR(c, PSG_EXPR_CALL, c->kids[0], NULL); }
size_t psg_call_num_args(const psg_expr *c) { return KIND_OR(c, PSG_EXPR_CALL, c->nkids - 1, 0); }
psg_expr *psg_call_get_arg(const psg_expr *c, size_t i) {
  return c->kind == PSG_EXPR_CALL && i + 1 < c->nkids ? c->kids[i + 1] : NULL;
}
psg_attrs *psg_call_get_attrs(const psg_expr *c) { return KIND_OR(c, PSG_EXPR_CALL, c->u.attrs, NULL); }
psg_expr *psg_let_get_var(const psg_expr *l) { return KIND_OR(l, PSG_EXPR_LET, l->kids[0], NULL); }
psg_expr *psg_let_get_value(const psg_expr *l) { return KIND_OR(l, PSG_EXPR_LET, l->kids[1], NULL); }
psg_expr *psg_let_get_body(const psg_expr *l) { return KIND_OR(l, PSG_EXPR_LET, l->kids[2], NULL); }
psg_expr *psg_if_get_cond(const psg_expr *e) { return KIND_OR(e, PSG_EXPR_IF, e->kids[0], NULL); }
psg_expr *psg_if_get_then(const psg_expr *e) { return KIND_OR(e, PSG_EXPR_IF, e->kids[1], NULL); }
psg_expr *psg_if_get_else(const psg_expr *e) { return KIND_OR(e, PSG_EXPR_IF, e->kids[2], NULL); }
size_t psg_function_num_params(const psg_expr *f) { return KIND_OR(f, PSG_EXPR_FUNCTION, f->nkids - 1, 0); }
psg_expr *psg_function_get_param(const psg_expr *f, size_t i) {
  return f->kind == PSG_EXPR_FUNCTION && i + 1 < f->nkids ? f->kids[i] : NULL;
}
psg_expr *psg_function_get_body(const psg_expr *f) { return KIND_OR(f, PSG_EXPR_FUNCTION, psgi_fn_body(f), NULL); }
const psg_type *psg_function_ret_type(const psg_expr *f) {
  return KIND_OR(f, PSG_EXPR_FUNCTION, f->u.fn.ret_type, NULL);
}
int psg_function_num_type_params(const psg_expr *f) {
  return f->kind == PSG_EXPR_FUNCTION && f->u.fn.tparams ? f->u.fn.tparams->n : 0;
}
const psg_type *psg_function_type_param(const psg_expr *f, int i) {
  return i >= 0 && i < psg_function_num_type_params(f) ? f->u.fn.tparams->fields[i] : NULL;
}
psg_attrs *psg_function_get_attrs(const psg_expr *f) { return KIND_OR(f, PSG_EXPR_FUNCTION, f->u.fn.attrs, NULL); }
const char *psg_op_name(const psg_expr *op) {
  return KIND_OR(op, PSG_EXPR_OP, psgi_op_name_in(op->ctx, op->u.op), NULL);
}
