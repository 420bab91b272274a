/* Passage — tir.StorageFlatten(cache_line_size, create_bound_attributes)
 * (TVM's src/tir/transforms/storage_flatten.cc): the older flattening pass,
 * applied only to functions with the attribute from_legacy_te_schedule=true
 * (others are returned unchanged, as TVM does).
 *
 * What it does on our (block-free, realize-free) TIR:
 *  - every access becomes an access of the buffer's flat form
 *    (buffer_flatten.c) at TVM's ElemOffset indices, simplified without the
 *    loop facts (TVM's ElemOffset uses a fresh analyzer); a predicated
 *    access is an error, as in TVM;
 *  - an Allocate of several extents gets one extent, their product (TVM
 *    v0.19 never finds axis separators for an Allocate here);
 *  - a DeclBuffer is kept, declaring the flat buffer;
 *  - bool buffers are backed by int8 (stores cast to int8, loads back);
 *  - an AssertStmt whose condition the analyzer proves true (with every
 *    loop range bound) is removed (TVM's AssertSimplifier);
 *  - create_bound_attributes=true wraps every store in
 *    AttrStmt(data, "buffer_bound", tir.tvm_tuple(extent)) for the buffers
 *    it reads and writes, as TVM does for the instrument_bound_checkers run.
 * TVM's sub-passes for BufferRealize, buffer_bind_scope, buffer_dim_align,
 * Prefetch and layout transforms work on TE constructs our TIR does not
 * have (docs/tir-passes.md); cache_line_size only sizes Prefetch in TVM, so
 * here it is checked (> 0) and otherwise unused. */
#include "passage/tir_op.h"
#include "tir/transforms/tir_transforms.h"

typedef struct sf {
  psgi_tir_flattener fl;
  bool bound_attrs;
  PSGI_VEC(const psg_tir_buffer *) touched; /* buffers a store's value reads (bound attrs) */
} sf;

/* Allocate: extents flattened to their product. */
static psg_status visit_allocate(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_ctx *ctx = m->ctx;
  *out = NULL;
  size_t next = n->nkids - 3;
  psg_tir_node *body = psg_tir_mutator_get_result(m, n->kids[2]), *cond = psg_tir_mutator_get_result(m, n->kids[1]);
  if (next == 1) return psg_tir_mutator_default(m, n, out);
  psg_tir_expr *prod = NULL;
  psg_status st = psg_tir_make_const_int(ctx, n->kids[3]->dtype, 1, NULL, &prod);
  for (size_t i = 0; !st && i < next; i++) {
    psg_tir_expr *r = NULL;
    st = psg_tir_op_binary(ctx, PSG_TIR_MUL, prod, psg_tir_mutator_get_result(m, n->kids[3 + i]), NULL, &r);
    psg_tir_release(prod);
    prod = r;
  }
  if (!st) st = psg_tir_allocate_create(ctx, n->kids[0], n->dtype, &prod, 1, cond, body, n->u.annotations, &n->span, out);
  psg_tir_release(prod);
  return st;
}

static psg_status visit_decl_buffer(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  sf *s = m->user;
  psg_tir_buffer *flat;
  psg_status st = psgi_tir_flattener_get(&s->fl, n->kids[0], &flat);
  if (st) return st;
  if (flat == n->kids[0]) return psg_tir_mutator_default(m, n, out);
  return psg_tir_decl_buffer_create(m->ctx, flat, psg_tir_mutator_get_result(m, n->kids[1]), &n->span, out);
}

static psg_status visit_assert(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  sf *s = m->user;
  psg_tir_expr *cond = psg_tir_mutator_get_result(m, n->kids[0]);
  if (psg_arith_can_prove(s->fl.a, cond)) {
    psg_tir_retain(*out = psg_tir_mutator_get_result(m, n->kids[2]));
    return PSG_OK;
  }
  return psg_tir_mutator_default(m, n, out);
}

/* TVM's MakeBound: tir.tvm_tuple(lanes * shape[0] * (lanes * shape[1]) ...),
 * lanes those of the stored buffer's dtype. */
static psg_status make_bound(psg_ctx *ctx, const psg_tir_buffer *b, int lanes, psg_tir_expr **out) {
  *out = NULL;
  psg_tir_expr *bound = NULL;
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < b->u.buf.ndim; i++) {
    psg_tir_expr *shape = b->kids[2 + i], *l = NULL, *term = NULL;
    st = psg_tir_int_imm_create(ctx, shape->dtype, lanes, NULL, &l);
    if (!st) st = psg_tir_binary_create(ctx, PSG_TIR_MUL, l, shape, NULL, &term);
    psg_tir_release(l);
    if (!st && bound) {
      psg_tir_expr *r = NULL;
      st = psg_tir_op_binary(ctx, PSG_TIR_MUL, bound, term, NULL, &r);
      psg_tir_release(term);
      term = r;
    }
    psg_tir_release(bound);
    bound = term;
  }
  if (!st) st = psg_tir_call_create(ctx, psg_tir_dtype_handle(), "tir.tvm_tuple", &bound, 1, NULL, out);
  psg_tir_release(bound);
  return st;
}

/* TVM's ShapeIsValid: a rank > 0 with scalar extents, none a negative constant. */
static bool shape_is_valid(const psg_tir_buffer *b) {
  if (b->u.buf.ndim == 0) return false;
  for (size_t i = 0; i < b->u.buf.ndim; i++) {
    const psg_tir_node *e = b->kids[2 + i];
    if (psg_tir_dtype_lanes(e->dtype) != 1 || (e->kind == PSG_TIR_INT_IMM && e->u.int_value < 0)) return false;
  }
  return true;
}

/* TVM collects the buffers of the loads a store reads (value, then indices)
 * in post-order; the original tree is read (the rewritten one reads the flat
 * buffers). psg_tir_visit is iterative. */
static psg_status collect_post(psg_tir_visitor *v, const psg_tir_node *n) {
  sf *s = v->user;
  if (n->kind == PSG_TIR_BUFFER_LOAD && shape_is_valid(n->kids[0]) && !PSGI_VEC_PUSH(s->fl.ctx, &s->touched, n->kids[0]))
    return psgi_nomem(s->fl.ctx);
  return PSG_OK;
}

static psg_status collect_loads(sf *s, const psg_tir_node *store) {
  psg_tir_visitor v = {.post = collect_post, .user = s};
  psg_status st = PSG_OK;
  for (size_t i = 1; !st && i < store->nkids; i++) st = psg_tir_visit(s->fl.ctx, &v, store->kids[i]);
  return st;
}

static psg_status visit_store(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  sf *s = m->user;
  psg_status st = psgi_tir_flattener_store(m, n, out);
  if (st || !s->bound_attrs) return st;
  s->touched.len = 0;
  if ((st = collect_loads(s, n))) return st;
  if (shape_is_valid(n->kids[0]) && !PSGI_VEC_PUSH(m->ctx, &s->touched, n->kids[0])) return psgi_nomem(m->ctx);
  for (size_t i = 0; !st && i < s->touched.len; i++) {
    const psg_tir_buffer *b = s->touched.data[i];
    psg_tir_expr *bound = NULL;
    psg_tir_stmt *wrapped = NULL;
    st = make_bound(m->ctx, b, psg_tir_dtype_lanes(n->kids[0]->dtype), &bound);
    if (!st) st = psg_tir_attr_stmt_create(m->ctx, b->kids[0], "buffer_bound", bound, *out, &n->span, &wrapped);
    psg_tir_release(bound);
    psg_tir_release(*out);
    *out = wrapped;
  }
  return st;
}

/* Whether a statement of the body is an AssertStmt (expressions hold none). */
static int find_assert(psg_tir_visitor *v, const psg_tir_node *n) {
  if (n->kind == PSG_TIR_ASSERT_STMT) {
    *(bool *)v->user = true;
    return PSG_VISIT_ABORT;
  }
  return psgi_tir_is_stmt_kind(n->kind) ? PSG_VISIT_CONTINUE : PSG_VISIT_SKIP_CHILDREN;
}

psg_status psgi_tir_storage_flatten(psg_ctx *ctx, const psg_tir_prim_func *fn, int64_t cache_line_size,
                                    bool create_bound_attributes, psg_tir_prim_func **out) {
  *out = NULL;
  if (cache_line_size <= 0)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "tir.StorageFlatten: cache_line_size must be > 0, not %lld",
                        (long long)cache_line_size);
  if (!psgi_tir_is_legacy_te(fn)) {
    psg_tir_retain(*out = (psg_tir_prim_func *)fn);
    return PSG_OK;
  }
  sf s = {.bound_attrs = create_bound_attributes};
  psg_status st = psgi_tir_flattener_init(&s.fl, ctx);
  s.fl.reject_predicates = true;
  s.fl.pass_name = "tir.StorageFlatten";
  /* Run over a module, the accesses of every function share one shape
   * table (design.md, departure "A PrimFunc pass's table across the
   * functions of a run"). */
  psgi_map *run_shapes = st ? NULL : psgi_flat_shapes_of_run(ctx);
  if (run_shapes) s.fl.shapes = run_shapes;
  /* The loop ranges and let values the walk binds are read only by
   * visit_assert (the flat indices use the analyzer without facts), so a
   * function without AssertStmt skips binding them (design.md, departure
   * "StorageFlatten binds loops only for an AssertStmt"). */
  bool has_assert = false;
  psg_tir_visitor scan = {.pre = find_assert, .user = &has_assert};
  if (!st) st = psg_tir_visit(ctx, &scan, psg_tir_get_body(fn));
  s.fl.unbound = !has_assert;
  if (!st) {
    psg_tir_mutator m;
    psg_tir_mutator_init(&m, ctx);
    m.user = &s; /* the flattener is its first member */
    m.pre = psgi_tir_flattener_pre;
    m.visit[PSG_TIR_BUFFER_LOAD] = psgi_tir_flattener_load;
    m.visit[PSG_TIR_BUFFER_STORE] = visit_store;
    m.visit[PSG_TIR_ALLOCATE] = visit_allocate;
    m.visit[PSG_TIR_DECL_BUFFER] = visit_decl_buffer;
    m.visit[PSG_TIR_ASSERT_STMT] = visit_assert;
    st = psg_tir_mutate(&m, fn, out);
    psg_tir_mutator_fini(&m);
  }
  PSGI_VEC_FREE(ctx, &s.touched);
  psgi_tir_flattener_fini(&s.fl);
  return st;
}

static psg_status storage_flatten(psg_tir_prim_func *fn, psg_module *mod, psg_pass_context *pc, void *user,
                                  psg_tir_prim_func **out) {
  (void)mod;
  psg_attrs *opts = user;
  return psgi_tir_storage_flatten(psg_pass_context_get_ctx(pc), fn,
                                  psg_attr_get_int(psg_attrs_get(opts, "cache_line_size")),
                                  psg_attr_get_bool(psg_attrs_get(opts, "create_bound_attributes")), out);
}

static const psg_pass_option options[] = {{"cache_line_size", PSG_CONFIG_INT, "64"},
                                          {"create_bound_attributes", PSG_CONFIG_BOOL, "false"},
                                          {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_tir_storage_flatten = {
    .name = "tir.StorageFlatten",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .options = options,
    .help = "flatten the buffers of legacy-TE functions (from_legacy_te_schedule) to 1-d physical memory",
    .prim_func = storage_flatten,
    .cacheable = true,
};
