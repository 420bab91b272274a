/* Passage — the builder of the tensor-expression layer (src/te/te.h):
 * expression helpers with a sticky status, placeholders and stages, and the
 * assembly of the PrimFunc in TVM v0.19's legacy-TE lowered form (spec
 * tir.md §5): one naive loop nest per stage, intermediates in Allocate'd
 * buffers, reductions as `out = init; for r: out = combine(out, body)`. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include "te/te.h"

void psgi_te_builder_init(psgi_te_builder *b, psg_ctx *ctx) {
  memset(b, 0, sizeof *b);
  b->ctx = ctx;
  psgi_arena_init(&b->arena, ctx);
  psgi_map_init(&b->names, ctx);
}

void psgi_te_builder_fini(psgi_te_builder *b) {
  for (size_t i = 0; i < b->pool.len; i++) psg_tir_release(b->pool.data[i]);
  PSGI_VEC_FREE(b->ctx, &b->pool);
  for (size_t i = 0; i < b->stages.len; i++) psg_tir_release((psg_tir_node *)b->stages.data[i].nest);
  PSGI_VEC_FREE(b->ctx, &b->stages);
  psgi_map_fini(&b->names);
  psgi_arena_fini(&b->arena);
}

psg_status psgi_te_fail(psgi_te_builder *b, psg_status st, const char *fmt, ...) {
  if (b->status) return b->status;
  b->status = st;
  if (st == PSG_ERR_NOMEM) return psgi_nomem(b->ctx);
  va_list ap;
  va_start(ap, fmt);
  psgi_diag_vadd(b->ctx, PSG_SEVERITY_ERROR, st, NULL, 0, 0, NULL, 0, NULL, fmt, ap);
  va_end(ap);
  return st;
}

/* Takes over a new node (or records the failure that left it NULL). */
static psg_tir_node *keep(psgi_te_builder *b, psg_status st, psg_tir_node *n) {
  if (st) {
    if (!b->status) b->status = st; /* the constructor left its diagnostic */
    return NULL;
  }
  if (!PSGI_VEC_PUSH(b->ctx, &b->pool, n)) {
    psg_tir_release(n);
    psgi_te_fail(b, PSG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  return n;
}
#define KEEP(st, n) ((psg_tir_expr *)keep(b, (st), (psg_tir_node *)(n)))
/* keep() of the node a constructor wrote to *out (read after the call, as
 * the argument order of keep(b, create(.., &x), x) is unspecified in C). */
static void *keep_out(psgi_te_builder *b, psg_status st, void *out) {
  return keep(b, st, *(psg_tir_node **)out);
}

psg_tir_dtype psgi_te_tir_dtype(int dtype) {
  const char *name = psg_dtype_name(dtype);
  return psg_tir_dtype_parse(name, strlen(name));
}

psg_tir_expr *psgi_te_int(psgi_te_builder *b, int64_t v) {
  if (b->status) return NULL;
  psg_tir_expr *e = NULL;
  psg_status st = psg_tir_int_imm_create(b->ctx, psg_tir_dtype_int32(), v, NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_const(psgi_te_builder *b, int dtype, double v) {
  if (b->status) return NULL;
  psg_tir_expr *e = NULL;
  psg_tir_dtype t = psgi_te_tir_dtype(dtype);
  psg_status st = psg_dtype_is_float(dtype) ? psg_tir_make_const_float(b->ctx, t, v, NULL, &e)
                  : dtype == PSG_DTYPE_BOOL  ? psg_tir_int_imm_create(b->ctx, t, v != 0, NULL, &e)
                                             : psg_tir_make_const_int(b->ctx, t, (int64_t)v, NULL, &e);
  return KEEP(st, e);
}

/* The extreme finite values TVM's min_value/max_value give. */
static double extreme(int dtype, bool max) {
  switch (dtype) {
  case PSG_DTYPE_FLOAT16: return max ? 65504.0 : -65504.0;
  case PSG_DTYPE_BFLOAT16: return max ? 3.38953139e38 : -3.38953139e38;
  case PSG_DTYPE_FLOAT32: return max ? FLT_MAX : -FLT_MAX;
  case PSG_DTYPE_FLOAT64: return max ? DBL_MAX : -DBL_MAX;
  case PSG_DTYPE_INT8: return max ? 127 : -128;
  case PSG_DTYPE_INT16: return max ? 32767 : -32768;
  case PSG_DTYPE_INT32: return max ? 2147483647.0 : -2147483648.0;
  case PSG_DTYPE_UINT8: return max ? 255 : 0;
  case PSG_DTYPE_UINT16: return max ? 65535 : 0;
  case PSG_DTYPE_UINT32: return max ? 4294967295.0 : 0;
  case PSG_DTYPE_BOOL: return max ? 1 : 0;
  default: return 0;
  }
}

static psg_tir_expr *int64_extreme(psgi_te_builder *b, int dtype, bool max) {
  psg_tir_expr *e = NULL;
  int64_t v = dtype == PSG_DTYPE_INT64 ? (max ? INT64_MAX : INT64_MIN) : (max ? -1 : 0); /* uint64: all ones */
  psg_status st = psg_tir_make_const_int(b->ctx, psgi_te_tir_dtype(dtype), v, NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_min_value(psgi_te_builder *b, int dtype) {
  if (b->status) return NULL;
  if (dtype == PSG_DTYPE_INT64 || dtype == PSG_DTYPE_UINT64) return int64_extreme(b, dtype, false);
  return psgi_te_const(b, dtype, extreme(dtype, false));
}

psg_tir_expr *psgi_te_max_value(psgi_te_builder *b, int dtype) {
  if (b->status) return NULL;
  if (dtype == PSG_DTYPE_INT64 || dtype == PSG_DTYPE_UINT64) return int64_extreme(b, dtype, true);
  return psgi_te_const(b, dtype, extreme(dtype, true));
}

psg_tir_expr *psgi_te_bin(psgi_te_builder *b, int kind, psg_tir_expr *x, psg_tir_expr *y) {
  if (b->status || !x || !y) return NULL;
  psg_tir_expr *e = NULL;
  psg_status st = psg_tir_op_binary(b->ctx, kind, x, y, NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_not(psgi_te_builder *b, psg_tir_expr *x) {
  if (b->status || !x) return NULL;
  psg_tir_expr *e = NULL;
  psg_status st = psg_tir_op_not(b->ctx, x, NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_neg(psgi_te_builder *b, psg_tir_expr *x) {
  if (b->status || !x) return NULL;
  psg_tir_expr *e = NULL;
  psg_status st = psg_tir_op_neg(b->ctx, x, NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_cast(psgi_te_builder *b, int dtype, psg_tir_expr *x) {
  if (b->status || !x) return NULL;
  psg_tir_expr *e = NULL;
  psg_status st = psg_tir_op_cast(b->ctx, psgi_te_tir_dtype(dtype), x, NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_select(psgi_te_builder *b, psg_tir_expr *c, psg_tir_expr *t, psg_tir_expr *f) {
  if (b->status || !c || !t || !f) return NULL;
  psg_tir_expr *e = NULL;
  psg_status st = psg_tir_select_create(b->ctx, c, t, f, NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_if(psgi_te_builder *b, psg_tir_expr *c, psg_tir_expr *t, psg_tir_expr *f) {
  if (b->status || !c || !t || !f) return NULL;
  psg_tir_expr *e = NULL, *args[3] = {c, t, f};
  psg_status st = psg_tir_call_create(b->ctx, psg_tir_dtype_of((psg_tir_node *)t), "tir.if_then_else", args, 3,
                                      NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_math(psgi_te_builder *b, const char *op, psg_tir_expr *x, psg_tir_expr *y) {
  if (b->status || !x) return NULL;
  psg_tir_expr *e = NULL, *args[2] = {x, y};
  psg_status st = psg_tir_call_create(b->ctx, psg_tir_dtype_of((psg_tir_node *)x), op, args, y ? 2 : 1, NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_math_pred(psgi_te_builder *b, const char *op, psg_tir_expr *x) {
  if (b->status || !x) return NULL;
  psg_tir_expr *e = NULL;
  psg_status st = psg_tir_call_create(b->ctx, psg_tir_dtype_bool(), op, &x, 1, NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_load(psgi_te_builder *b, const psgi_te_tensor *t, psg_tir_expr *const *idx) {
  if (b->status || !t) return NULL;
  if (!t->buf) return t->scalar;
  for (int i = 0; i < t->ndim; i++)
    if (!idx[i]) return NULL;
  psg_tir_expr *e = NULL;
  psg_status st = psg_tir_buffer_load_create(b->ctx, t->buf, idx, (size_t)t->ndim, NULL, NULL, &e);
  return KEEP(st, e);
}

psg_tir_expr *psgi_te_var(psgi_te_builder *b, const char *name) {
  if (b->status) return NULL;
  psg_tir_expr *e = NULL;
  psg_status st = psg_tir_var_create(b->ctx, name, psg_tir_dtype_int32(), NULL, NULL, &e);
  return KEEP(st, e);
}

void psgi_te_axes(psgi_te_builder *b, int n, psg_tir_expr **axes) {
  /* the names of the usual ranks written out (snprintf per axis was a
   * tenth of building the ops) */
  static const char *const names[] = {"ax0", "ax1", "ax2", "ax3", "ax4", "ax5", "ax6", "ax7"};
  char name[16];
  for (int i = 0; i < n; i++) {
    if (i < (int)(sizeof names / sizeof *names)) {
      axes[i] = psgi_te_var(b, names[i]);
      continue;
    }
    snprintf(name, sizeof name, "ax%d", i);
    axes[i] = psgi_te_var(b, name);
  }
}

psg_tir_expr *psgi_te_reduce_axis(psgi_te_builder *b, psgi_te_reduce *r, const char *name, int64_t extent) {
  if (r->naxes >= PSG_MAX_RANK) {
    psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: more than %d reduce axes", PSG_MAX_RANK);
    return NULL;
  }
  psg_tir_expr *v = psgi_te_var(b, name);
  r->axes[r->naxes] = v;
  r->extents[r->naxes++] = extent;
  return v;
}

/* A name not used by another buffer: `base`, else base_1, base_2, ... */
static const char *unique_name(psgi_te_builder *b, const char *base) {
  char buf[160];
  size_t len = strlen(base);
  if (len > sizeof buf - 1) len = sizeof buf - 1; /* as snprintf truncates */
  memcpy(buf, base, len);
  buf[len] = 0;
  for (int k = 1; psgi_map_get_str(&b->names, buf, strlen(buf)); k++) snprintf(buf, sizeof buf, "%s_%d", base, k);
  const char *s = psgi_intern(b->ctx, buf, strlen(buf));
  psgi_map_entry *e = s ? psgi_map_put_str(&b->names, s, strlen(s), NULL) : NULL;
  if (!e) {
    psgi_te_fail(b, PSG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  e->value = (void *)s;
  return s;
}

/* A new tensor with a fresh buffer of `dtype` and `shape`. */
static psgi_te_tensor *new_tensor(psgi_te_builder *b, const char *base, int dtype, int ndim, const int64_t *shape) {
  if (b->status) return NULL;
  if (ndim > PSG_MAX_RANK) {
    psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: rank %d is above the limit %d", ndim, PSG_MAX_RANK);
    return NULL;
  }
  psgi_te_tensor *t = psgi_arena_alloc(&b->arena, sizeof *t);
  const char *name = unique_name(b, base);
  if (!t || !name) {
    psgi_te_fail(b, PSG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  memset(t, 0, sizeof *t);
  t->ndim = ndim;
  t->dtype = dtype;
  t->tdtype = psgi_te_tir_dtype(dtype);
  t->stage = -1;
  psg_tir_expr *dims[PSG_MAX_RANK];
  for (int i = 0; i < ndim; i++) {
    t->shape[i] = shape[i];
    if (shape[i] < 0 || shape[i] > INT32_MAX) {
      psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: '%s' has a dynamic or too large dim (%lld)", name,
                   (long long)shape[i]);
      return NULL;
    }
    dims[i] = psgi_te_int(b, shape[i]);
  }
  if (b->status) return NULL;
  psg_tir_buffer *buf = NULL;
  if (!keep_out(b, psg_tir_buffer_decl(b->ctx, name, t->tdtype, dims, (size_t)ndim, "global", NULL, &buf), &buf))
    return NULL;
  t->buf = buf;
  return t;
}

psgi_te_tensor *psgi_te_placeholder(psgi_te_builder *b, const char *name, const psg_type *type) {
  if (b->status) return NULL;
  if (psg_type_kind(type) != PSG_TYPE_TENSOR || !psg_type_is_static(type)) {
    psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: parameter '%s' is not a tensor of static shape", name);
    return NULL;
  }
  int64_t dims[PSG_MAX_RANK];
  int nd = psg_type_ndim(type);
  for (int i = 0; i < nd && i < PSG_MAX_RANK; i++) dims[i] = psg_type_dim(type, i);
  return new_tensor(b, name, psg_type_dtype(type), nd, dims);
}

psgi_te_tensor *psgi_te_inline_scalar(psgi_te_builder *b, int dtype, psg_tir_expr *value) {
  if (b->status || !value) return NULL;
  psgi_te_tensor *t = psgi_arena_alloc(&b->arena, sizeof *t);
  if (!t) {
    psgi_te_fail(b, PSG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  memset(t, 0, sizeof *t);
  t->scalar = value;
  t->dtype = dtype;
  t->tdtype = psgi_te_tir_dtype(dtype);
  t->stage = -1;
  return t;
}

/* combine(acc, x) of a combiner. */
static psg_tir_expr *combine(psgi_te_builder *b, int combiner, psg_tir_expr *acc, psg_tir_expr *x) {
  switch (combiner) {
  case PSGI_TE_SUM: return psgi_te_bin(b, PSG_TIR_ADD, acc, x);
  case PSGI_TE_PROD: return psgi_te_bin(b, PSG_TIR_MUL, acc, x);
  case PSGI_TE_MAX: return psgi_te_bin(b, PSG_TIR_MAX, acc, x);
  case PSGI_TE_MIN: return psgi_te_bin(b, PSG_TIR_MIN, acc, x);
  default: return x;
  }
}

static psg_tir_expr *identity(psgi_te_builder *b, int combiner, int dtype) {
  switch (combiner) {
  case PSGI_TE_SUM: return psgi_te_const(b, dtype, 0);
  case PSGI_TE_PROD: return psgi_te_const(b, dtype, 1);
  case PSGI_TE_MAX: return psgi_te_min_value(b, dtype);
  case PSGI_TE_MIN: return psgi_te_max_value(b, dtype);
  default: return NULL;
  }
}

/* Wraps `body` in serial loops var in [0, extent) for vars[n-1] innermost. */
static psg_tir_stmt *loops(psgi_te_builder *b, int n, psg_tir_expr *const *vars, const int64_t *extents,
                           psg_tir_stmt *body) {
  for (int i = n - 1; i >= 0 && body; i--) {
    psg_tir_stmt *s = NULL;
    psg_tir_expr *zero = psgi_te_int(b, 0), *ext = psgi_te_int(b, extents[i]);
    if (!zero || !ext || !vars[i]) return NULL;
    body = (psg_tir_stmt *)keep_out(b, psg_tir_for_create(b->ctx, vars[i], zero, ext, PSG_TIR_FOR_SERIAL, body, NULL, NULL, &s), &s);
  }
  return body;
}

static psg_tir_stmt *store(psgi_te_builder *b, const psgi_te_tensor *t, psg_tir_expr *value,
                           psg_tir_expr *const *idx) {
  if (b->status || !value) return NULL;
  psg_tir_stmt *s = NULL;
  return (psg_tir_stmt *)keep_out(b, psg_tir_buffer_store_create(b->ctx, t->buf, value, idx, (size_t)t->ndim, NULL, NULL, &s), &s);
}

psgi_te_tensor *psgi_te_compute(psgi_te_builder *b, const char *name, int dtype, int ndim,
                                const int64_t *shape, psg_tir_expr *const *axes, psg_tir_expr *body,
                                const psgi_te_reduce *r) {
  if (b->status || !body) return NULL;
  psgi_te_tensor *t = new_tensor(b, name, dtype, ndim, shape);
  if (!t) return NULL;
  /* The body must have the stage's dtype; computes cast where TOPI does. */
  if (psg_tir_dtype_of((psg_tir_node *)body) != t->tdtype) {
    psgi_te_fail(b, PSG_ERR_INTERNAL, "te: the body of stage '%s' does not have its dtype", psg_tir_buffer_name(t->buf));
    return NULL;
  }
  psg_tir_stmt *nest;
  if (!r || r->combiner == PSGI_TE_NONE) {
    nest = loops(b, ndim, axes, shape, store(b, t, body, axes));
  } else {
    psg_tir_expr *init = r->init ? r->init : identity(b, r->combiner, dtype);
    psg_tir_stmt *first = store(b, t, init, axes);
    psg_tir_stmt *update = store(b, t, combine(b, r->combiner, psgi_te_load(b, t, axes), body), axes);
    psg_tir_stmt *rnest = loops(b, r->naxes, r->axes, r->extents, update), *seq = NULL;
    if (!first || !rnest) return NULL;
    psg_tir_stmt *two[2] = {first, rnest};
    seq = (psg_tir_stmt *)keep_out(b, psg_tir_seq_stmt_create(b->ctx, two, 2, NULL, &seq), &seq);
    nest = loops(b, ndim, axes, shape, seq);
  }
  if (!nest) return NULL;
  psgi_te_stage st = {t, b->op_name, b->pattern, (psg_tir_stmt *)nest};
  psg_tir_retain((psg_tir_node *)nest);
  if (!PSGI_VEC_PUSH(b->ctx, &b->stages, st)) {
    psg_tir_release((psg_tir_node *)nest);
    psgi_te_fail(b, PSG_ERR_NOMEM, "out of memory");
    return NULL;
  }
  t->stage = (int)b->stages.len - 1;
  return t;
}

/* The "passage.te_stages" attribute: per stage {buffer, op, pattern}. */
static psg_status stage_tags(psgi_te_builder *b, psg_attr **out) {
  psg_ctx *ctx = b->ctx;
  size_t n = b->stages.len;
  psg_attr **items = psgi_calloc(ctx, (n ? n : 1) * sizeof *items);
  psg_status st = items ? PSG_OK : psgi_nomem(ctx);
  for (size_t i = 0; i < n && !st; i++) {
    const psgi_te_stage *s = &b->stages.data[i];
    const char *bn = psg_tir_buffer_name(s->out->buf);
    psg_attr *v[3] = {NULL, NULL, NULL};
    static const char *const keys[3] = {"buffer", "op", "pattern"};
    psg_attrs *d = NULL;
    if (!(st = psg_attr_string(ctx, bn, strlen(bn), &v[0])) &&
        !(st = psg_attr_string(ctx, s->op_name, strlen(s->op_name), &v[1])) &&
        !(st = psg_attr_string(ctx, psg_op_pattern_name(s->pattern), strlen(psg_op_pattern_name(s->pattern)),
                               &v[2])) &&
        !(st = psg_attrs_create(ctx, keys, v, 3, &d)))
      st = psg_attr_dict(ctx, d, &items[i]);
    for (int k = 0; k < 3; k++) psg_attr_release(v[k]);
    psg_attrs_release(d);
  }
  if (!st) st = psg_attr_list(ctx, items, n, out);
  for (size_t i = 0; items && i < n; i++) psg_attr_release(items[i]);
  psgi_free(ctx, items);
  return st;
}

static psg_status func_attrs(psgi_te_builder *b, const char *name, psg_attrs **out) {
  psg_ctx *ctx = b->ctx;
  static const char *const keys[4] = {"from_legacy_te_schedule", "global_symbol", "tir.noalias",
                                      "passage.te_stages"};
  psg_attr *v[4] = {NULL, NULL, NULL, NULL};
  psg_status st;
  if (!(st = psg_attr_bool(ctx, true, &v[0])) && !(st = psg_attr_string(ctx, name, strlen(name), &v[1])) &&
      !(st = psg_attr_bool(ctx, true, &v[2])) && !(st = stage_tags(b, &v[3])))
    st = psg_attrs_create(ctx, keys, v, 4, out);
  for (int k = 0; k < 4; k++) psg_attr_release(v[k]);
  return st;
}

psg_status psgi_te_build_func(psgi_te_builder *b, psgi_te_tensor *const *inputs, size_t nin,
                              psgi_te_tensor *const *outputs, size_t nout, const char *name,
                              psg_tir_prim_func **out) {
  psg_ctx *ctx = b->ctx;
  *out = NULL;
  if (b->status) return b->status;
  size_t ns = b->stages.len, np = nin + nout;
  if (!ns) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: '%s' computes nothing", name);
  /* The body: every nest in order, then an Allocate per intermediate,
   * the first stage's outermost. */
  psg_tir_stmt **nests = psgi_alloc(ctx, ns * sizeof *nests);
  psg_tir_expr **params = psgi_calloc(ctx, (np ? np : 1) * sizeof *params);
  psg_tir_buffer **bufs = psgi_alloc(ctx, (np ? np : 1) * sizeof *bufs);
  size_t *map = psgi_alloc(ctx, (np ? np : 1) * sizeof *map);
  if (!nests || !params || !bufs || !map) {
    psgi_free(ctx, nests), psgi_free(ctx, params), psgi_free(ctx, bufs), psgi_free(ctx, map);
    return psgi_te_fail(b, PSG_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < ns; i++) nests[i] = b->stages.data[i].nest;
  psg_tir_stmt *body = NULL;
  if (ns == 1) body = nests[0];
  else
    body = (psg_tir_stmt *)keep_out(b, psg_tir_seq_stmt_create(ctx, nests, ns, NULL, &body), &body);
  for (size_t k = ns; k-- > 0 && body;) {
    psgi_te_tensor *t = b->stages.data[k].out;
    bool is_out = false;
    for (size_t j = 0; j < nout; j++) is_out |= outputs[j] == t;
    if (is_out) continue;
    psg_tir_expr *ext[PSG_MAX_RANK];
    size_t next = t->ndim ? (size_t)t->ndim : 1;
    for (size_t d = 0; d < next; d++) ext[d] = psgi_te_int(b, t->ndim ? t->shape[d] : 1);
    if (b->status) break;
    psg_tir_stmt *a = NULL;
    body = (psg_tir_stmt *)keep_out(b, psg_tir_allocate_create(ctx, psg_tir_buffer_get_data(t->buf), t->tdtype, ext, next,
                                                        NULL, body, NULL, NULL, &a), &a);
  }
  /* One handle param per input, then per output, each mapped to its buffer. */
  for (size_t i = 0; i < np && !b->status; i++) {
    psgi_te_tensor *t = i < nin ? inputs[i] : outputs[i - nin];
    psg_tir_expr *h = NULL;
    keep_out(b, psg_tir_var_create(ctx, psg_tir_buffer_name(t->buf), psg_tir_dtype_handle(), NULL, NULL, &h), &h);
    params[i] = h;
    bufs[i] = t->buf;
    map[i] = i;
  }
  psg_attrs *attrs = NULL;
  psg_status st = b->status;
  if (!st && !(st = func_attrs(b, name, &attrs)))
    st = psg_tir_prim_func_create(ctx, params, np, body, NULL, map, bufs, np, attrs, NULL, out);
  if (st && !b->status) b->status = st;
  psg_attrs_release(attrs);
  psgi_free(ctx, nests), psgi_free(ctx, params), psgi_free(ctx, bufs), psgi_free(ctx, map);
  return st;
}

int psgi_te_out_dims(const psgi_te_call *c, int64_t *dims, int *dtype) {
  int nd = psg_type_ndim(c->out_type);
  for (int i = 0; i < nd; i++) dims[i] = psg_type_dim(c->out_type, i);
  *dtype = psg_type_dtype(c->out_type);
  return nd;
}

psg_tir_expr *psgi_te_load_bcast(psgi_te_builder *b, const psgi_te_tensor *t, psg_tir_expr *const *idx,
                                 const int64_t *odims, int ondim) {
  if (!t) return NULL;
  psg_tir_expr *in[PSG_MAX_RANK];
  int off = ondim - t->ndim;
  for (int i = 0; i < t->ndim; i++) in[i] = t->shape[i] == 1 && odims[off + i] != 1 ? psgi_te_int(b, 0) : idx[off + i];
  return psgi_te_load(b, t, in);
}
