/* Passage — FuseOps (tvm-behavior §7.1: F, opt 0, required InferType, option
 * fuse_opt_level, -1 = the context's opt_level): every fusion group that
 * fuse_partition.c finds becomes a call of a new function carrying
 * Primitive=1, whose parameters are the group's inputs from outside (typed,
 * in TVM's order: first use in a left-to-right walk from the group's root).
 * Scalar constants fuse like elementwise ops; other constants become
 * parameters unless relay.FuseOps.link_params. Nodes are rewritten in post-DFS
 * order, each group by an explicit-stack walk from its root. */
#include "ops/op_impl.h"
#include "transforms/fuse_graph.h"
#include "transforms/infer_type_internal.h"
#include "transforms/transforms.h"

/* A group with fewer outside values than this finds a value's parameter by
 * scanning its arguments (a one-op group of fuse level 0 has one to three);
 * a larger one moves them into the param_of map. */
enum { PARAM_SCAN = 16 };

/* The function types of recent groups: at fuse level 0 thousands of one-op
 * functions share a handful of signatures, and interning one hashes every
 * parameter type. Keyed by the exact interned types (pointers), so a hit is
 * the type psg_type_func_poly would return. */
enum { FN_TYPE_SLOTS = 64, FN_TYPE_MAX_PARAMS = 4 };
typedef struct fn_type_slot {
  int n;
  const psg_type *params[FN_TYPE_MAX_PARAMS], *ret, *type;
} fn_type_slot;

typedef struct fuser {
  psg_ctx *ctx;
  psgi_fuse_graph g;
  bool link_params;
  psg_attrs *primitive[2]; /* {Primitive=0}, {Primitive=1} */
  psg_expr **outer; /* per node: its value outside its group (roots only) */
  psg_expr **inner; /* per node: its expression inside its group's function */
  /* The group being built. */
  PSGI_VEC(psg_expr *) params;
  PSGI_VEC(psg_expr *) args;
  psgi_map param_of; /* outside value -> parameter, once a group has PARAM_SCAN of them */
  bool param_of_used;
  PSGI_VEC(uint32_t) stack;
  PSGI_VEC(const char *) pnames; /* "p0", "p1", ...: interned once, shared by every group */
  fn_type_slot fn_types[FN_TYPE_SLOTS];
} fuser;

/* The node's operands as the grouping sees them: a call's arguments (not its
 * callee), a tuple's fields, a projection's tuple. */
static uint32_t first_operand(const psg_expr *e) { return e->kind == PSG_EXPR_CALL ? 1 : 0; }

static uint32_t kid(fuser *f, uint32_t i, uint32_t k) { return psgi_fuse_kid(&f->g, i, k); }

/* The interned name of parameter k, "p" and k as "p%zu" writes it; NULL on
 * OOM. Every group names its parameters from p0: interning each name once
 * (psg_var_create finds an interned name without hashing it) saves a string
 * hash per parameter of the thousands of one-op functions of fuse level 0. */
static const char *param_name(fuser *f, size_t k) {
  while (f->pnames.len <= k) {
    char name[32];
    char digits[24];
    size_t nd = 0;
    for (size_t n = f->pnames.len; nd == 0 || n; n /= 10) digits[nd++] = (char)('0' + n % 10);
    name[0] = 'p';
    for (size_t i = 0; i < nd; i++) name[1 + i] = digits[nd - 1 - i];
    name[1 + nd] = '\0';
    const char *s = psgi_intern(f->ctx, name, 1 + nd);
    if (!s || !PSGI_VEC_PUSH(f->ctx, &f->pnames, s)) return NULL;
  }
  return f->pnames.data[k];
}

/* The value a group reads for operand `a` (node ai), which lives outside it:
 * a parameter (one per distinct value), or the constant itself when linked. */
static psg_status external(fuser *f, const psg_expr *a, uint32_t ai, psg_expr **out) {
  *out = NULL;
  psg_expr *v = ai == PSGI_FUSE_NONE ? NULL : f->outer[ai];
  if (!v) return psg_ctx_fail(f->ctx, PSG_ERR_INTERNAL, "FuseOps: a group reads a value from inside another group");
  if (f->link_params && v->kind == PSG_EXPR_CONSTANT) {
    *out = v;
    return PSG_OK;
  }
  psgi_map_entry *en = NULL;
  if (f->args.len < PARAM_SCAN) {
    for (size_t i = 0; i < f->args.len; i++)
      if (f->args.data[i] == v) {
        *out = f->params.data[i];
        return PSG_OK;
      }
  } else {
    if (!f->param_of_used) { /* the group has just outgrown the scan */
      f->param_of_used = true;
      for (size_t i = 0; i < f->args.len; i++) {
        psgi_map_entry *old = psgi_map_put_ptr(&f->param_of, f->args.data[i], NULL);
        if (!old) return psgi_nomem(f->ctx);
        old->value = f->params.data[i];
      }
    }
    bool is_new;
    if (!(en = psgi_map_put_ptr(&f->param_of, v, &is_new))) return psgi_nomem(f->ctx);
    if (!is_new) {
      *out = en->value;
      return PSG_OK;
    }
  }
  const char *name = param_name(f, f->params.len);
  if (!name) return psgi_nomem(f->ctx);
  const psg_type *t = a->checked_type;
  if (!t && a->kind == PSG_EXPR_VAR) t = a->u.var.type;
  psg_expr *p = NULL;
  psg_status st = psg_var_create(f->ctx, name, t, psgi_expr_span_ref(a), &p);
  if (st) return st;
  if (!PSGI_VEC_PUSH(f->ctx, &f->params, p)) {
    psg_expr_release(p);
    return psgi_nomem(f->ctx);
  }
  psg_expr_retain(v);
  if (!PSGI_VEC_PUSH(f->ctx, &f->args, v)) {
    psg_expr_release(v);
    return psgi_nomem(f->ctx);
  }
  if (en) en->value = p;
  *out = p;
  return PSG_OK;
}

/* Builds inner[i] once all of node i's in-group operands are built. */
static psg_status build_member(fuser *f, uint32_t i, uint32_t root) {
  const psg_expr *e = f->g.nodes.data[i].expr;
  if (e->kind == PSG_EXPR_CONSTANT) {
    psg_expr_retain((psg_expr *)e);
    f->inner[i] = (psg_expr *)e;
    return PSG_OK;
  }
  if (e->kind != PSG_EXPR_CALL && e->kind != PSG_EXPR_TUPLE && e->kind != PSG_EXPR_TUPLE_GET_ITEM)
    return psg_ctx_fail(f->ctx, PSG_ERR_INTERNAL, "FuseOps: a %s cannot be inside a fused group",
                        psgi_expr_kind_names[e->kind]);
  enum { SMALL = 8 };
  psg_expr *small[SMALL], **kids = small;
  if (e->nkids > SMALL && !(kids = psgi_alloc(f->ctx, (size_t)e->nkids * sizeof *kids))) return psgi_nomem(f->ctx);
  psg_status st = PSG_OK;
  uint32_t k0 = first_operand(e);
  for (uint32_t k = 0; k < k0; k++) kids[k] = e->kids[k];
  for (uint32_t k = k0; !st && k < e->nkids; k++) {
    uint32_t a = kid(f, i, k);
    if (a != PSGI_FUSE_NONE && psgi_fuse_group_of(&f->g, a) == root) kids[k] = f->inner[a];
    else st = external(f, e->kids[k], a, &kids[k]);
  }
  if (!st) st = psgi_expr_rebuild(e, kids, &f->inner[i]);
  if (kids != small) psgi_free(f->ctx, kids);
  return st;
}

/* TVM's FuseMutator for one group: walks from the root through the group's
 * members, operands left to right, allocating a parameter at the first use
 * of each outside value; members are built after their operands. */
static psg_status build_group_body(fuser *f, uint32_t root, bool *has_call) {
  psg_status st = PSG_OK;
  f->stack.len = 0;
  /* A frame is (node, next operand) packed into two slots. */
  if (!PSGI_VEC_PUSH(f->ctx, &f->stack, root) || !PSGI_VEC_PUSH(f->ctx, &f->stack, 0)) return psgi_nomem(f->ctx);
  while (!st && f->stack.len) {
    uint32_t i = f->stack.data[f->stack.len - 2];
    uint32_t *next = &f->stack.data[f->stack.len - 1];
    const psg_expr *e = f->g.nodes.data[i].expr;
    uint32_t k = *next + first_operand(e);
    if (k < e->nkids) {
      (*next)++;
      const psg_expr *a = e->kids[k];
      uint32_t ai = kid(f, i, k);
      if (ai == PSGI_FUSE_NONE) return psg_ctx_fail(f->ctx, PSG_ERR_INTERNAL, "FuseOps: operand outside the graph");
      if (psgi_fuse_group_of(&f->g, ai) != root) {
        psg_expr *ignored;
        st = external(f, a, ai, &ignored);
      } else if (!f->inner[ai]) {
        if (!PSGI_VEC_PUSH(f->ctx, &f->stack, ai) || !PSGI_VEC_PUSH(f->ctx, &f->stack, 0)) return psgi_nomem(f->ctx);
      }
      continue;
    }
    f->stack.len -= 2;
    if (e->kind == PSG_EXPR_CALL) *has_call = true;
    st = build_member(f, i, root);
  }
  return st;
}

static psg_status clear_group(fuser *f, psg_status st) {
  for (size_t i = 0; i < f->params.len; i++) psg_expr_release(f->params.data[i]);
  for (size_t i = 0; i < f->args.len; i++) psg_expr_release(f->args.data[i]);
  f->params.len = f->args.len = 0;
  if (f->param_of_used) psgi_map_clear(&f->param_of); /* keeps its table for the next group */
  f->param_of_used = false;
  return st;
}

/* fn(pt) -> ret, interned (psg_type_func_poly), through the fuser's cache;
 * NULL (and PSG_OK) when a type needs the unifier. A cached signature passed
 * that test when it was stored (a property of the types alone). */
static bool needs_unifier(const psg_type *const *pt, size_t n, const psg_type *ret) {
  for (size_t i = 0; i < n; i++)
    if (psgi_type_needs_unifier(pt[i])) return true;
  return psgi_type_needs_unifier(ret);
}

static psg_status fn_type(fuser *f, const psg_type *const *pt, size_t n, const psg_type *ret, const psg_type **out) {
  *out = NULL;
  if (n > FN_TYPE_MAX_PARAMS)
    return needs_unifier(pt, n, ret) ? PSG_OK : psg_type_func_poly(f->ctx, pt, (int)n, ret, NULL, 0, out);
  uintptr_t h = (uintptr_t)ret * 31u + n;
  for (size_t i = 0; i < n; i++) h = h * 31u + (uintptr_t)pt[i];
  fn_type_slot *slot = &f->fn_types[(h ^ h >> 7 ^ h >> 17) % FN_TYPE_SLOTS];
  if (slot->type && slot->n == (int)n && slot->ret == ret && (!n || !memcmp(slot->params, pt, n * sizeof *pt))) {
    *out = slot->type;
    return PSG_OK;
  }
  if (needs_unifier(pt, n, ret)) return PSG_OK;
  psg_status st = psg_type_func_poly(f->ctx, pt, (int)n, ret, NULL, 0, out);
  if (st) return st;
  slot->n = (int)n;
  slot->ret = ret;
  if (n) memcpy(slot->params, pt, n * sizeof *pt);
  slot->type = *out;
  return PSG_OK;
}

/* Gives the group's function and its call the final types InferType would
 * give them (its Function and Call cases), so the InferType the runner puts
 * after FuseOps does not walk the new functions again (at fuse level 0, one
 * per op). Only in the plain case: every parameter annotated with a concrete
 * type that its argument has exactly (final), and a body whose final type is
 * the function's return type; then the function's type is
 * fn(parameter types) -> return type and the call's is the return type.
 * Anything else is left to InferType. */
static psg_status type_group(fuser *f, psg_expr *fn, psg_expr *call) {
  const psg_type *ret = fn->u.fn.ret_type;
  size_t n = f->params.len;
  if (!ret || psgi_expr_final_type(psgi_fn_body(fn)) != ret) return PSG_OK;
  enum { SMALL = 8 };
  const psg_type *small[SMALL], **pt = small;
  if (n > SMALL && !(pt = psgi_alloc(f->ctx, n * sizeof *pt))) return psgi_nomem(f->ctx);
  bool plain = true;
  for (size_t i = 0; i < n && plain; i++) {
    pt[i] = f->params.data[i]->u.var.type;
    plain = pt[i] && psgi_expr_final_type(f->args.data[i]) == pt[i]; /* the unifier: fn_type */
  }
  const psg_type *ft = NULL;
  psg_status st = plain ? fn_type(f, pt, n, ret, &ft) : PSG_OK;
  if (!st && ft) {
    for (size_t i = 0; i < n; i++) psgi_expr_set_final_type(f->params.data[i], pt[i]);
    psgi_expr_set_final_type(fn, ft);
    psgi_expr_set_final_type(call, ret);
  }
  if (pt != small) psgi_free(f->ctx, pt);
  return st;
}

/* outer[root] = fn(params) { group body }(args). */
static psg_status make_group_function(fuser *f, uint32_t root) {
  const psg_expr *e = f->g.nodes.data[root].expr;
  bool has_call = false;
  psg_status st = build_group_body(f, root, &has_call);
  if (st) return clear_group(f, st);
  psg_expr *fn = NULL;
  /* TVM marks the function Primitive=has_call. */
  st = psg_function_create(f->ctx, f->params.data, f->params.len, f->inner[root], e->checked_type,
                           f->primitive[has_call], psgi_expr_span_ref(e), &fn);
  if (!st) st = psg_call_create(f->ctx, fn, f->args.data, f->args.len, NULL, psgi_expr_span_ref(e), &f->outer[root]);
  if (!st) st = type_group(f, fn, f->outer[root]);
  psg_expr_release(fn);
  return clear_group(f, st);
}

/* A node outside any fused function: rebuilt over its children's values. */
static psg_status rebuild_plain(fuser *f, uint32_t i) {
  const psg_expr *e = f->g.nodes.data[i].expr;
  if (psgi_fuse_is_leaf_fn(e) || e->nkids == 0) {
    psg_expr_retain((psg_expr *)e);
    f->outer[i] = (psg_expr *)e;
    return PSG_OK;
  }
  enum { SMALL = 8 };
  psg_expr *small[SMALL], **kids = small;
  if (e->nkids > SMALL && !(kids = psgi_alloc(f->ctx, (size_t)e->nkids * sizeof *kids))) return psgi_nomem(f->ctx);
  psg_status st = PSG_OK;
  bool changed = false;
  for (uint32_t k = 0; !st && k < e->nkids; k++) {
    uint32_t a = kid(f, i, k);
    kids[k] = a == PSGI_FUSE_NONE ? NULL : f->outer[a];
    if (!kids[k]) st = psg_ctx_fail(f->ctx, PSG_ERR_INTERNAL, "FuseOps: a value is used outside its group");
    else changed |= kids[k] != e->kids[k];
  }
  if (!st && changed) {
    st = psgi_expr_rebuild(e, kids, &f->outer[i]);
  } else if (!st) {
    psg_expr_retain((psg_expr *)e);
    f->outer[i] = (psg_expr *)e;
  }
  if (kids != small) psgi_free(f->ctx, kids);
  return st;
}

static psg_status rewrite_root(fuser *f, uint32_t i) {
  const psg_expr *e = f->g.nodes.data[i].expr;
  ptrdiff_t op = psgi_call_op_id(e); /* by op table index: no name compared per group */
  if (op == PSGI_OP_annotation_stop_fusion && e->nkids == 2) {
    /* The annotation has done its job: TVM drops it here. */
    uint32_t a = kid(f, i, 1);
    psg_expr *v = a == PSGI_FUSE_NONE ? NULL : f->outer[a];
    if (!v) return psg_ctx_fail(f->ctx, PSG_ERR_INTERNAL, "FuseOps: stop_fusion of a grouped value");
    psg_expr_retain(v);
    f->outer[i] = v;
    return PSG_OK;
  }
  if (op >= 0) return make_group_function(f, i);
  if (e->kind == PSG_EXPR_TUPLE_GET_ITEM && kid(f, i, 0) != PSGI_FUSE_NONE && psgi_fuse_group_of(&f->g, kid(f, i, 0)) == i)
    return make_group_function(f, i);
  /* Tuples rooting their group, projections of outside tuples, and every
   * other kind stay where they are. */
  return rebuild_plain(f, i);
}

static psg_status make_primitive_attrs(fuser *f) {
  static const char *const key[] = {"Primitive"};
  psg_status st = PSG_OK;
  for (int v = 0; !st && v < 2; v++) {
    psg_attr *a = NULL;
    st = psg_attr_int(f->ctx, v, &a);
    if (!st) st = psg_attrs_create(f->ctx, key, &a, 1, &f->primitive[v]);
    psg_attr_release(a);
  }
  return st;
}

static psg_status fuse(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  *out = NULL;
  psg_ctx *ctx = func->ctx;
  int64_t level = psg_attr_get_int(psg_attrs_get(user, "fuse_opt_level"));
  if (level < 0) level = psg_pass_context_opt_level(pc);
  int64_t max_depth = psg_pass_context_config_int(pc, "relay.FuseOps.max_depth");
  if (psgi_fuse_is_leaf_fn(func)) {
    psg_expr_retain(func);
    *out = func;
    return PSG_OK;
  }
  (void)mod; /* typed by the runner: the pass declares needs TYPED */
  psg_status st = psgi_check_typed(func, "FuseOps");
  if (st) return st;
  fuser f = {0};
  f.ctx = ctx;
  f.link_params = psg_pass_context_config_bool(pc, "relay.FuseOps.link_params");
  psgi_map_init(&f.param_of, ctx);
  st = psgi_fuse_graph_build(ctx, func, &f.g);
  if (!st) st = psgi_fuse_partition(&f.g, (int)level, max_depth);
  if (!st) st = make_primitive_attrs(&f);
  size_t n = f.g.nodes.len;
  if (!st && (!(f.outer = psgi_calloc(ctx, psgi_mul_size(n, sizeof *f.outer))) ||
              !(f.inner = psgi_calloc(ctx, psgi_mul_size(n, sizeof *f.inner)))))
    st = psgi_nomem(ctx);
  for (uint32_t i = 0; !st && i < n; i++)
    if (psgi_fuse_group_of(&f.g, i) == i) st = rewrite_root(&f, i);
  if (!st) {
    /* The function is the last node of its own post-order. */
    *out = f.outer[n - 1];
    psg_expr_retain(*out);
  }
  for (size_t i = 0; (f.outer || f.inner) && i < n; i++) {
    if (f.outer) psg_expr_release(f.outer[i]);
    if (f.inner) psg_expr_release(f.inner[i]);
  }
  psgi_free(ctx, f.outer);
  psgi_free(ctx, f.inner);
  psg_attrs_release(f.primitive[0]);
  psg_attrs_release(f.primitive[1]);
  clear_group(&f, PSG_OK);
  psgi_map_fini(&f.param_of);
  PSGI_VEC_FREE(ctx, &f.params);
  PSGI_VEC_FREE(ctx, &f.args);
  PSGI_VEC_FREE(ctx, &f.stack);
  PSGI_VEC_FREE(ctx, &f.pnames);
  psgi_fuse_graph_fini(&f.g);
  return st;
}

static const psg_pass_option options[] = {{"fuse_opt_level", PSG_CONFIG_INT, "-1"}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_fuse_ops = {
    .name = "FuseOps",
    .kind = PSG_PASS_FUNCTION,
    .required = psgi_required_infer_type,
    .options = options,
    .help = "fuse ops into Primitive functions (fuse_opt_level: -1 = the context's opt_level)",
    .needs = PSG_PROP_TYPED,
    .establishes = PSG_PROP_FUSED,
    .function = fuse,
    .cacheable = true,
};
