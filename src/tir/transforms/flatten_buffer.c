/* Passage — tir.FlattenBuffer (TVM's src/tir/transforms/flatten_buffer.cc):
 * every multi-dimensional buffer access becomes an access of the buffer's
 * flat form (buffer_flatten.c): one index per physical axis (one unless the
 * buffer has axis_separators), strides and elem_offset folded in, the index
 * simplified with the enclosing loop ranges and the buffer-map shapes known
 * non-negative. Predicates are kept. An Allocate of several extents gets
 * the flat extents of the DeclBuffer right inside it when that buffer
 * matches it (same data var, dtype and shape), else their product; bool
 * allocations become int8. DeclBuffer nodes are dropped (TVM strips them:
 * not every later pass knows them), so the flat buffers are declared by
 * their uses. The buffer map keeps the original buffers, which the flat ones
 * alias through their data var. A function with the attribute
 * from_legacy_te_schedule is left to tir.StorageFlatten. */
#include "passage/tir_op.h"
#include "tir/transforms/flatten_buffer_iter.h"
#include "tir/transforms/tir_transforms.h"

static bool deep_equal_shape(const psg_tir_node *alloc, const psg_tir_buffer *b) {
  size_t n = alloc->nkids - 3;
  if (n != b->u.buf.ndim) return false;
  for (size_t i = 0; i < n; i++)
    if (!psg_arith_expr_equal(alloc->kids[3 + i], b->kids[2 + i])) return false;
  return true;
}

/* Allocate: buffer_var, condition, body, extents... */
static psg_status visit_allocate(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psgi_tir_flattener *f = m->user;
  psg_ctx *ctx = f->ctx;
  *out = NULL;
  size_t next = n->nkids - 3;
  psg_tir_expr *small[8], **ext = small;
  psg_tir_expr *flat_ext = NULL;
  psg_status st = PSG_OK;
  if (next == 1) {
    ext[0] = psg_tir_mutator_get_result(m, n->kids[3]);
  } else {
    const psg_tir_node *body = n->kids[2];
    const psg_tir_buffer *decl = body->kind == PSG_TIR_DECL_BUFFER ? body->kids[0] : NULL;
    if (decl && decl->kids[0] == n->kids[0] && decl->dtype == n->dtype && deep_equal_shape(n, decl)) {
      psg_tir_buffer *flat;
      if ((st = psgi_tir_flattener_get(f, decl, &flat))) return st;
      next = flat->u.buf.ndim;
      if (next > 8 && !(ext = psgi_alloc(ctx, next * sizeof *ext))) return psgi_nomem(ctx);
      for (size_t i = 0; i < next; i++) ext[i] = flat->kids[2 + i];
    } else {
      if (decl && decl->u.buf.naxis)
        return psgi_tir_fail(ctx, PSG_ERR_INVALID_ARGUMENT, &n->span, n->kind,
                             "tir.FlattenBuffer: the DeclBuffer of '%s' does not match its allocation but has "
                             "axis_separators, so it cannot be flattened to 1-d memory",
                             decl->u.buf.name);
      st = psg_tir_make_const_int(ctx, n->kids[3]->dtype, 1, NULL, &flat_ext);
      for (size_t i = 0; !st && i < next; i++) {
        psg_tir_expr *r = NULL;
        st = psg_tir_op_binary(ctx, PSG_TIR_MUL, flat_ext, psg_tir_mutator_get_result(m, n->kids[3 + i]), NULL, &r);
        psg_tir_release(flat_ext);
        flat_ext = r;
      }
      next = 1;
      ext[0] = flat_ext;
    }
  }
  psg_tir_dtype dt = psg_tir_dtype_is_bool(n->dtype)
                         ? psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, psg_tir_dtype_lanes(n->dtype))
                         : n->dtype;
  if (!st)
    st = psg_tir_allocate_create(ctx, n->kids[0], dt, ext, next, psg_tir_mutator_get_result(m, n->kids[1]),
                                 psg_tir_mutator_get_result(m, n->kids[2]), n->u.annotations, &n->span, out);
  psg_tir_release(flat_ext);
  if (ext != small) psgi_free(ctx, ext);
  return st;
}

/* DeclBuffer: dropped, its body stays; but one that is the only definition
 * of its data var (no Allocate, parameter or LetStmt defines it) declares
 * its flat buffer instead, or the var would be left undefined. */
static psg_status visit_decl_buffer(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psgi_tir_flattener *f = m->user;
  psg_tir_node *body = psg_tir_mutator_get_result(m, n->kids[1]);
  if (psgi_map_get_ptr(&f->defined, n->kids[0]->kids[0])) {
    psg_tir_retain(*out = body);
    return PSG_OK;
  }
  psg_tir_buffer *flat;
  psg_status st = psgi_tir_flattener_get(f, n->kids[0], &flat);
  return st ? st : psg_tir_decl_buffer_create(f->ctx, flat, body, &n->span, out);
}

bool psgi_tir_is_legacy_te(const psg_tir_prim_func *f) {
  psg_attr *a = psg_attrs_get(psg_tir_prim_func_get_attrs(f), "from_legacy_te_schedule");
  return a && psg_attr_get_int(a) != 0;
}

/* TVM's MarkBufferMapShapes: symbolic buffer-map extents are >= 0. */
static psg_status mark_shapes(psgi_tir_flattener *f, const psg_tir_prim_func *fn) {
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < psg_tir_prim_func_buffer_map_size(fn); i++) {
    psg_tir_buffer *b = psg_tir_prim_func_buffer_map_value(fn, i);
    for (size_t k = 0; !st && k < b->u.buf.ndim; k++) {
      psg_tir_expr *e = b->kids[2 + k], *zero = NULL, *cond = NULL;
      if (e->kind == PSG_TIR_INT_IMM) continue;
      psg_arith_scope scope;
      st = psg_tir_make_const_int(f->ctx, e->dtype, 0, NULL, &zero);
      if (!st) st = psg_tir_op_binary(f->ctx, PSG_TIR_GE, e, zero, NULL, &cond);
      if (!st) st = psg_arith_enter_constraint(f->a, cond, &scope); /* for the whole walk */
      psg_tir_release(zero);
      psg_tir_release(cond);
    }
  }
  return st;
}

psg_status psgi_tir_flatten_buffer(psg_ctx *ctx, const psg_tir_prim_func *fn, psg_tir_prim_func **out) {
  *out = NULL;
  if (psgi_tir_is_legacy_te(fn)) {
    psg_tir_retain(*out = (psg_tir_prim_func *)fn);
    return PSG_OK;
  }
  psgi_tir_flattener f;
  psgi_tir_iter_scope iters;
  psg_status st = psgi_tir_flattener_init(&f, ctx);
  psgi_tir_iter_scope_init(&iters, ctx, f.a);
  f.iters = &iters;
  f.canonical_shapes = f.context_indices = true;
  f.pass_name = "tir.FlattenBuffer";
  if (!st) st = mark_shapes(&f, fn);
  for (size_t i = 0; !st && i < psg_tir_prim_func_num_params(fn); i++)
    if (!psgi_map_put_ptr(&f.defined, psg_tir_prim_func_get_param(fn, i), NULL)) st = psgi_nomem(ctx);
  for (size_t i = 0; !st && i < psg_tir_prim_func_buffer_map_size(fn); i++)
    if (!psgi_map_put_ptr(&f.defined, psg_tir_prim_func_buffer_map_value(fn, i)->kids[0], NULL)) st = psgi_nomem(ctx);
  if (!st) {
    psg_tir_mutator m;
    psg_tir_mutator_init(&m, ctx);
    m.user = &f;
    m.pre = psgi_tir_iter_scope_pre;
    m.before_child = psgi_tir_iter_scope_before_child;
    m.visit[PSG_TIR_IF_THEN_ELSE] = m.visit[PSG_TIR_CALL] = psgi_tir_iter_scope_visit_branch;
    m.visit[PSG_TIR_BUFFER_LOAD] = psgi_tir_flattener_load;
    m.visit[PSG_TIR_BUFFER_STORE] = psgi_tir_flattener_store;
    m.visit[PSG_TIR_ALLOCATE] = visit_allocate;
    m.visit[PSG_TIR_DECL_BUFFER] = visit_decl_buffer;
    st = psg_tir_mutate(&m, fn, out);
    psg_tir_mutator_fini(&m);
  }
  psgi_tir_iter_scope_fini(&iters);
  psgi_tir_flattener_fini(&f);
  return st;
}

static psg_status flatten_buffer(psg_tir_prim_func *fn, psg_module *mod, psg_pass_context *pc, void *user,
                                 psg_tir_prim_func **out) {
  (void)mod;
  (void)user;
  return psgi_tir_flatten_buffer(psg_pass_context_get_ctx(pc), fn, out);
}

const psg_pass_decl psgi_pass_tir_flatten_buffer = {
    .name = "tir.FlattenBuffer",
    .kind = PSG_PASS_PRIM_FUNC,
    .opt_level = 0,
    .help = "multi-dimensional buffer accesses to flat physical indices (strides, elem_offset, axis_separators)",
    .prim_func = flatten_buffer,
    .cacheable = true,
};
