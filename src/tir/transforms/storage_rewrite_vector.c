/* Passage — the last step of tir.StorageRewrite: TVM's
 * PointerValueTypeRewrite as StorageRewrite calls it (storage_rewrite.cc:
 * untyped pointers allowed; Allocates and pointers bound by LetStmt
 * rewritten, parameters and the buffer map left alone; no scalar-read
 * shuffles). A pointer every access of which uses one vector type through
 * an aligned unit-stride Ramp (`X[i*4:i*4+4]`) gets that vector element
 * type: `X = T.allocate([n], "float32")` accessed only as float32x4 becomes
 * `T.allocate([n / 4], "float32x4")`, its buffers' last dimension is
 * divided by 4 and its Ramp indices become their base / 4. A pointer read
 * or written as several base types, or at an unaligned or scalar index,
 * keeps its type. */
#include "tir/transforms/storage_rewrite.h"

enum { FROM_PARAM = 1, FROM_ALLOCATE = 2, FROM_LET = 4 };

/* What is known of one pointer var (TVM's BufferVarInfo). */
typedef struct var_info {
  const psg_tir_node *var;
  psg_tir_dtype elem;         /* element type (bool read as int8) */
  const psg_tir_node *extent; /* last extent, or NULL: unknown (0) */
  int from;
  int naccess;                /* accesses seen */
  psg_tir_dtype first;        /* the type of the first one */
  bool other_type, other_base; /* one of another type / another base type was seen */
  bool opaque;                /* used by tvm_access_ptr or a Let expression: left alone here */
  psg_tir_dtype preferred;    /* filled by plan */
  psg_tir_node *new_var;      /* owned, when rewritten */
} var_info;

typedef struct vec_rewriter {
  psg_ctx *ctx;
  psg_arith_analyzer *an;
  PSGI_VEC(var_info) infos;
  psgi_map info_of; /* var -> index + 1 */
} vec_rewriter;

static psg_tir_dtype int8_for_bool(psg_tir_dtype t) {
  if (psg_tir_dtype_code(t) == PSG_TIR_CODE_UINT && psg_tir_dtype_bits(t) == 1)
    return psg_tir_dtype_with_lanes(psg_tir_dtype_parse("int8", 4), psg_tir_dtype_lanes(t));
  return t;
}

static var_info *info_of(vec_rewriter *r, const psg_tir_node *v) {
  psgi_map_entry *e = psgi_map_get_ptr(&r->info_of, v);
  return e ? &r->infos.data[(size_t)e->value - 1] : NULL;
}

static psg_status declare(vec_rewriter *r, const psg_tir_node *var, psg_tir_dtype elem, const psg_tir_node *extent,
                          int from) {
  bool is_new;
  psgi_map_entry *e = psgi_map_put_ptr(&r->info_of, var, &is_new);
  if (!e) return psgi_nomem(r->ctx);
  if (!is_new) return PSG_OK;
  var_info vi = {var, int8_for_bool(elem), extent, from, 0, 0, false, false, false, 0, NULL};
  if (!PSGI_VEC_PUSH(r->ctx, &r->infos, vi)) return psgi_nomem(r->ctx);
  e->value = (void *)r->infos.len;
  return PSG_OK;
}

static bool is_unit_ramp(const psg_tir_node *idx) {
  return idx->kind == PSG_TIR_RAMP && idx->kids[1]->kind == PSG_TIR_INT_IMM && idx->kids[1]->u.int_value == 1;
}

static bool aligned(vec_rewriter *r, psg_tir_node *e, int64_t lanes, psg_status *st) {
  psg_arith_modset m = {1, 0};
  if (!e) return true; /* unknown extent: TVM's 0 */
  *st = psg_arith_modular_set(r->an, e, &m);
  return !*st && m.coeff % lanes == 0 && m.base % lanes == 0;
}

/* TVM's OnArrayAccess (no scalar-read detection). */
static psg_status on_access(vec_rewriter *r, psg_tir_dtype value, const psg_tir_node *var,
                            psg_tir_node *const *idx, size_t n) {
  var_info *vi = info_of(r, var);
  if (!vi) return PSG_OK;
  value = int8_for_bool(value);
  if (psg_tir_dtype_is_handle(vi->elem)) vi->elem = psg_tir_dtype_with_lanes(value, 1);
  int index_lanes = n ? psg_tir_dtype_lanes(idx[n - 1]->dtype) : 1;
  int lanes_used = psg_tir_dtype_lanes(vi->elem);
  if (index_lanes * psg_tir_dtype_lanes(vi->elem) != psg_tir_dtype_lanes(value)) {
    lanes_used = 1;
    vi->elem = psg_tir_dtype_with_lanes(vi->elem, 1);
  }
  psg_status st = PSG_OK;
  if (n && is_unit_ramp(idx[n - 1])) {
    int lanes = psg_tir_dtype_lanes(idx[n - 1]->dtype);
    if (aligned(r, idx[n - 1]->kids[0], lanes, &st)) lanes_used = lanes;
    if (st) return st;
  }
  psg_tir_dtype t = psg_tir_dtype_with_lanes(value, lanes_used);
  if (!vi->naccess++) vi->first = t;
  vi->other_type |= t != vi->first;
  vi->other_base |= psg_tir_dtype_with_lanes(t, 1) != psg_tir_dtype_with_lanes(vi->first, 1);
  return PSG_OK;
}

/* TVM's VectorTypeAccessChecker over body (declarations first: params). */
static psg_status check(vec_rewriter *r, const psg_tir_node *f) {
  psg_ctx *ctx = r->ctx;
  psg_status st = PSG_OK;
  size_t np = psg_tir_prim_func_num_params(f);
  for (size_t i = 0; i < np && !st; i++) { /* buffer-map buffers, then pointer params */
    psg_tir_expr *p = psg_tir_prim_func_get_param(f, i);
    psg_tir_buffer *b = psg_tir_prim_func_get_param_buffer(f, p);
    if (b) st = declare(r, b->kids[0], b->dtype, NULL, FROM_PARAM);
  }
  for (size_t i = 0; i < np && !st; i++) {
    psg_tir_expr *p = psg_tir_prim_func_get_param(f, i);
    psg_tir_type *el = psg_tir_pointer_type_get_element(psg_tir_var_get_type(p));
    if (el && !psg_tir_prim_func_get_param_buffer(f, p)) st = declare(r, p, psg_tir_dtype_of(el), NULL, FROM_PARAM);
  }
  PSGI_VEC(const psg_tir_node *) s = {0};
  if (!st && !PSGI_VEC_PUSH(ctx, &s, f->kids[0])) st = psgi_nomem(ctx);
  while (!st && s.len) { /* pre-order: a declaration comes before its uses */
    const psg_tir_node *n = s.data[--s.len];
    switch (n->kind) {
    case PSG_TIR_ALLOCATE: st = declare(r, n->kids[0], n->dtype, n->kids[n->nkids - 1], FROM_ALLOCATE); break;
    case PSG_TIR_LET_STMT:
    case PSG_TIR_LET:
      if (psg_tir_dtype_is_handle(n->kids[0]->dtype)) {
        psg_tir_type *el = psg_tir_pointer_type_get_element(psg_tir_var_get_type(n->kids[0]));
        st = declare(r, n->kids[0], el ? psg_tir_dtype_of(el) : n->kids[0]->dtype, NULL, FROM_LET);
        if (!st && n->kind == PSG_TIR_LET) info_of(r, n->kids[0])->opaque = true;
      }
      break;
    case PSG_TIR_BUFFER_LOAD:
      st = on_access(r, n->dtype, n->kids[0]->kids[0], psgi_tir_indices(n), psgi_tir_num_indices(n));
      break;
    case PSG_TIR_BUFFER_STORE:
      st = on_access(r, n->kids[1]->dtype, n->kids[0]->kids[0], psgi_tir_indices(n), psgi_tir_num_indices(n));
      break;
    case PSG_TIR_CALL:
      if (n->u.op == PSGI_TIR_OP_tvm_access_ptr && n->nkids == 5 && psgi_tir_is_var_kind(n->kids[1]->kind)) {
        var_info *vi = info_of(r, n->kids[1]);
        if (vi) vi->opaque = true;
      } else if (n->u.op == PSGI_TIR_OP_address_of && n->nkids == 1 && n->kids[0]->kind == PSG_TIR_BUFFER_LOAD) {
        const psg_tir_node *ld = n->kids[0];
        st = on_access(r, ld->dtype, ld->kids[0]->kids[0], psgi_tir_indices(ld), psgi_tir_num_indices(ld));
      }
      break;
    default: break;
    }
    for (size_t i = n->nkids; !st && i-- > 0;) {
      const psg_tir_node *k = n->kids[i];
      if (k->kind == PSG_TIR_BUFFER) continue;
      if (!PSGI_VEC_PUSH(ctx, &s, k)) st = psgi_nomem(ctx);
    }
  }
  PSGI_VEC_FREE(ctx, &s);
  return st;
}

/* TVM's get_preferred_dtype, and the new vars of what changes. */
static psg_status plan(vec_rewriter *r) {
  psg_status st = PSG_OK;
  for (size_t i = 0; i < r->infos.len && !st; i++) {
    var_info *vi = &r->infos.data[i];
    vi->preferred = vi->elem;
    if (!vi->naccess || vi->other_base || vi->opaque || !(vi->from & (FROM_ALLOCATE | FROM_LET))) continue;
    psg_tir_dtype base = psg_tir_dtype_with_lanes(vi->first, 1);
    int lanes = psg_tir_dtype_lanes(vi->elem);
    if (lanes == 1 && !vi->other_type) {
      int want = psg_tir_dtype_lanes(vi->first);
      if (aligned(r, (psg_tir_node *)vi->extent, want, &st)) lanes = want;
    }
    vi->preferred = psg_tir_dtype_with_lanes(base, lanes);
    if (st || vi->preferred == vi->elem) continue;
    if (psg_tir_dtype_lanes(vi->preferred) % psg_tir_dtype_lanes(vi->elem)) {
      vi->preferred = vi->elem;
      continue;
    }
    psg_tir_type *t = psg_tir_var_get_type(vi->var);
    st = psg_tir_pointer_var_create(r->ctx, psg_tir_var_name(vi->var), vi->preferred, psg_tir_pointer_type_scope(t),
                                    &vi->var->span, &vi->new_var);
  }
  return st;
}

static const var_info *rewritten(vec_rewriter *r, const psg_tir_node *v) {
  const var_info *vi = info_of(r, v);
  return vi && vi->new_var ? vi : NULL;
}

static int factor(const var_info *vi) { return psg_tir_dtype_lanes(vi->preferred) / psg_tir_dtype_lanes(vi->elem); }

/* a / c and a * c with TVM's constant folding of those operators. */
static psg_status div_const(psg_ctx *ctx, psg_tir_node *a, int64_t c, psg_tir_node **out) {
  if (c == 1) {
    psg_tir_retain(a);
    *out = a;
    return PSG_OK;
  }
  if (a->kind == PSG_TIR_INT_IMM) return psg_tir_int_imm_create(ctx, a->dtype, a->u.int_value / c, NULL, out);
  psg_tir_node *k = NULL;
  psg_status st = psg_tir_int_imm_create(ctx, a->dtype, c, NULL, &k);
  if (!st) st = psg_tir_binary_create(ctx, PSG_TIR_DIV, a, k, NULL, out);
  psg_tir_release(k);
  return st;
}
static psg_status mul_const(psg_ctx *ctx, psg_tir_node *a, int64_t c, psg_tir_node **out) {
  if (c == 1) {
    psg_tir_retain(a);
    *out = a;
    return PSG_OK;
  }
  if (a->kind == PSG_TIR_INT_IMM) return psg_tir_int_imm_create(ctx, a->dtype, a->u.int_value * c, NULL, out);
  psg_tir_node *k = NULL;
  psg_status st = psg_tir_int_imm_create(ctx, a->dtype, c, NULL, &k);
  if (!st) st = psg_tir_binary_create(ctx, PSG_TIR_MUL, a, k, NULL, out);
  psg_tir_release(k);
  return st;
}

static psg_status vm_var(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  const var_info *vi = rewritten(m->user, n);
  if (!vi) return psg_tir_mutator_default(m, n, out);
  psg_tir_retain(vi->new_var);
  *out = vi->new_var;
  return PSG_OK;
}

/* TVM's RemapBuffer: the new data var and element type, the last
 * dimension divided by the factor. */
static psg_status vm_buffer(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  vec_rewriter *r = m->user;
  const var_info *vi = rewritten(r, n->kids[0]);
  if (!vi) return psg_tir_mutator_default(m, n, out);
  uint32_t nd = n->u.buf.ndim;
  psg_tir_node *shape_small[8], **shape = shape_small, *last = NULL;
  if (nd > 8 && !(shape = psgi_alloc(m->ctx, nd * sizeof *shape))) return psgi_nomem(m->ctx);
  for (uint32_t i = 0; i < nd; i++) shape[i] = psg_tir_mutator_get_result(m, n->kids[2 + i]);
  psg_status st = nd ? div_const(m->ctx, shape[nd - 1], factor(vi), &last) : PSG_OK;
  if (nd) shape[nd - 1] = last;
  psg_tir_buffer_desc d = {
      .name = n->u.buf.name,
      .data = vi->new_var,
      .dtype = vi->preferred,
      .shape = shape,
      .ndim = nd,
      .strides = n->kids + 2 + nd,
      .nstrides = n->u.buf.nstrides,
      .elem_offset = n->kids[1],
      .axis_separators = n->u.buf.axis_separators,
      .naxis_separators = n->u.buf.naxis,
      .data_alignment = n->u.buf.data_alignment,
      .offset_factor = n->u.buf.offset_factor,
      .buffer_type = n->u.buf.buffer_type,
  };
  if (!st) st = psg_tir_buffer_create(m->ctx, &d, &n->span, out);
  psg_tir_release(last);
  if (shape != shape_small) psgi_free(m->ctx, shape);
  return st;
}

/* Loads and stores of a rewritten pointer: a unit Ramp index of `lanes`
 * becomes base / lanes (a Ramp of lanes / factor when the access is wider
 * than the new element). Rebuilt from the rewritten operands at once, as the
 * old index over the new buffer would not type-check. */
static psg_status vm_access(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  const var_info *vi = rewritten(m->user, n->kids[0]->kids[0]);
  if (!vi) return psg_tir_mutator_default(m, n, out);
  psg_tir_node **kids = psgi_alloc(m->ctx, n->nkids * sizeof *kids);
  if (!kids) return psgi_nomem(m->ctx);
  for (uint32_t i = 0; i < n->nkids; i++) kids[i] = psg_tir_mutator_get_result(m, n->kids[i]);
  size_t ni = psgi_tir_num_indices(n), slot = (n->kind == PSG_TIR_BUFFER_STORE ? 2 : 1) + ni - 1;
  psg_tir_node *idx = kids[slot], *base = NULL, *scaled = NULL, *ramp = NULL;
  psg_status st = PSG_OK;
  if (ni && is_unit_ramp(idx)) {
    int lanes = psg_tir_dtype_lanes(idx->dtype), f = factor(vi);
    st = div_const(m->ctx, idx->kids[0], lanes, &base);
    if (!st && lanes != f) {
      st = mul_const(m->ctx, base, lanes / f, &scaled);
      if (!st) st = psg_tir_ramp_create(m->ctx, scaled, idx->kids[1], lanes / f, NULL, &ramp);
      kids[slot] = ramp;
    } else {
      kids[slot] = base;
    }
  }
  if (!st) st = psgi_tir_rebuild(n, kids, out);
  psg_tir_release(base);
  psg_tir_release(scaled);
  psg_tir_release(ramp);
  psgi_free(m->ctx, kids);
  return st;
}

static psg_status vm_allocate(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  const var_info *vi = rewritten(m->user, n->kids[0]);
  if (!vi) return psg_tir_mutator_default(m, n, out);
  size_t ne = n->nkids - 3;
  psg_tir_node **ext = psgi_alloc(m->ctx, ne * sizeof *ext), *last = NULL;
  if (!ext) return psgi_nomem(m->ctx);
  for (size_t i = 0; i < ne; i++) ext[i] = psg_tir_mutator_get_result(m, n->kids[3 + i]);
  psg_status st = div_const(m->ctx, ext[ne - 1], factor(vi), &last);
  ext[ne - 1] = last;
  if (!st)
    st = psg_tir_allocate_create(m->ctx, vi->new_var, vi->preferred, ext, ne, psg_tir_mutator_get_result(m, n->kids[1]),
                                 psg_tir_mutator_get_result(m, n->kids[2]), n->u.annotations, &n->span, out);
  psg_tir_release(last);
  psgi_free(m->ctx, ext);
  return st;
}

psg_status psgi_sr_vector_types(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out) {
  *out = NULL;
  vec_rewriter r = {.ctx = ctx};
  psgi_map_init(&r.info_of, ctx);
  psg_status st = psg_arith_analyzer_create(ctx, &r.an);
  if (!st) st = check(&r, f);
  if (!st) st = plan(&r);
  bool any = false;
  for (size_t i = 0; i < r.infos.len; i++) any = any || r.infos.data[i].new_var;
  if (!st && !any) {
    psg_tir_retain((psg_tir_node *)f);
    *out = (psg_tir_node *)f;
  } else if (!st) {
    psg_tir_mutator m;
    psg_tir_mutator_init(&m, ctx);
    m.user = &r;
    m.visit[PSG_TIR_VAR] = vm_var;
    m.visit[PSG_TIR_BUFFER] = vm_buffer;
    m.visit[PSG_TIR_BUFFER_LOAD] = vm_access;
    m.visit[PSG_TIR_BUFFER_STORE] = vm_access;
    m.visit[PSG_TIR_ALLOCATE] = vm_allocate;
    psg_tir_node *body = NULL;
    st = psg_tir_mutate(&m, f->kids[0], &body);
    psg_tir_mutator_fini(&m);
    if (!st) st = psgi_tir_func_with_body(ctx, f, body, out);
    psg_tir_release(body);
  }
  for (size_t i = 0; i < r.infos.len; i++) psg_tir_release(r.infos.data[i].new_var);
  PSGI_VEC_FREE(ctx, &r.infos);
  psgi_map_fini(&r.info_of);
  psg_arith_analyzer_destroy(r.an);
  return st;
}
