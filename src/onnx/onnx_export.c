/* Passage ONNX frontend — export (issue 6): @main of a typed module back to
 * an ONNX ModelProto (IR 8, opset 14) with protobuf-c. A post-order walk
 * gives every expression an ONNX value name and emits one or a few nodes per
 * call; parameters keep their names, constants become initializers, shapes
 * come from the checked types, and fused (Primitive) functions are inlined. Everything the walk allocates lives in one
 * arena freed after packing. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "onnx_export_rnn.h"
#include "onnx_export_names.h"
#include "onnx_export_tidy.h"
#include "onnx_internal.h"

typedef PSGI_VEC(void *) ptr_vec;

enum {
  MAX_IF_DEPTH = 63,
  MIN_ATTRS = 4,    /* a node's first attribute slots (onnx_export_rnn.c's LSTM uses 2) */
  MIN_ARG_NAMES = 8 /* see arg_names */
};

/* The ONNX value name(s) of an expression and the graph (scope) it was
 * written in. */
typedef struct written {
  char **names; /* tuples: one name per field */
  size_t count;
  unsigned scope;
} written;

typedef struct exporter {
  psg_ctx *ctx;
  psgi_arena arena; /* the protobuf structures and names, freed after packing */
  bool oom;
  int errors;
  psg_status aborted; /* why pre stopped a walk (a Let or If that failed) */
  ptr_vec nodes, inits, inputs; /* of the graph being written */
  psgi_map values; /* expr -> written (in the arena) */
  /* Scopes: 0 is the main graph, each If branch gets a new one. A value
   * written in an enclosing scope is read from there; one written in a
   * scope left behind (another branch) is written again where needed. */
  PSGI_VEC(unsigned) active; /* the enclosing scopes, the current last */
  unsigned nscopes;
  unsigned counter;
  psgi_map uses;  /* expr -> how many parents use it (counted before the walk) */
  psgi_map bound; /* parameter of an inlined function -> its argument */
  psgi_map made;  /* call -> the ONNX node it became */
  int opset;      /* 14, or 17 when a LayerNormalization needs it */
  const char *span_name; /* the name nodes made now keep (the call's source name), or NULL */
  psgi_map named;        /* node -> the name it keeps (see onnx_export_names.h) */
  psgi_map mains;        /* nodes computing a call's value (not helpers) */
  psgi_map convs;        /* op name -> its export_ops row (filled on first use) */
} exporter;

/* Zeroed arena memory; NULL (and x->oom) when out of memory. */
static void *ealloc(exporter *x, size_t n) {
  void *p = psgi_arena_alloc(&x->arena, n);
  if (!p) {
    x->oom = true;
    return NULL;
  }
  memset(p, 0, n);
  return p;
}

static char *estr(exporter *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *estr(exporter *x, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = n >= 0 ? ealloc(x, (size_t)n + 1) : NULL;
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

static void vpush(exporter *x, ptr_vec *v, void *item) {
  if (!item || !PSGI_VEC_PUSH(x->ctx, v, item)) x->oom = true;
}

/* The vector's items moved into the arena (where the graph keeps them until
 * packing); the vector is left empty. */
static void **settle(exporter *x, ptr_vec *v) {
  void **items = ealloc(x, (v->len + 1) * sizeof *items);
  if (items && v->len) memcpy(items, v->data, v->len * sizeof *items);
  PSGI_VEC_FREE(x->ctx, v);
  return items;
}

static unsigned current_scope(const exporter *x) { return x->active.data[x->active.len - 1]; }

static void set_names(exporter *x, const psg_expr *e, char **names, size_t n) {
  psgi_map_entry *en = psgi_map_put_ptr(&x->values, e, NULL);
  written *w = !en ? NULL : en->value ? en->value : ealloc(x, sizeof *w);
  if (!w) {
    x->oom = true;
    return;
  }
  en->value = w;
  w->names = names, w->count = n, w->scope = current_scope(x);
}

/* True if `e` was written in the current graph or one enclosing it. */
static bool visible(const exporter *x, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&x->values, e);
  if (!en) return false;
  const written *w = en->value;
  for (size_t d = x->active.len; d-- > 0;)
    if (x->active.data[d] == w->scope) return true;
  return false;
}

static char **get_names(const exporter *x, const psg_expr *e, size_t *n) {
  psgi_map_entry *en = psgi_map_get_ptr(&x->values, e);
  if (!en) return NULL;
  const written *w = en->value;
  *n = w->count;
  return w->names;
}

static void *pmap_get(const psgi_map *m, const void *k) {
  psgi_map_entry *e = psgi_map_get_ptr(m, k);
  return e ? e->value : NULL;
}

static void pmap_put(exporter *x, psgi_map *m, const void *k, void *v) {
  psgi_map_entry *e = psgi_map_put_ptr(m, k, NULL);
  if (e) e->value = v;
  else x->oom = true;
}

static size_t uses_of(const exporter *x, const psg_expr *e) { return (size_t)(uintptr_t)pmap_get(&x->uses, e); }

static void use(exporter *x, const psg_expr *e) {
  if (e) pmap_put(x, &x->uses, e, (void *)(uintptr_t)(uses_of(x, e) + 1));
}

/* Use counts: each node's parents (the visitor reaches each node once). */
static psg_status count_post(psg_visitor *v, const psg_expr *e) {
  exporter *x = v->user;
  switch (psg_expr_kind(e)) {
  case PSG_EXPR_CALL:
    use(x, psg_call_get_callee(e));
    for (size_t i = 0; i < psg_call_num_args(e); i++) use(x, psg_call_get_arg(e, i));
    break;
  case PSG_EXPR_TUPLE:
    for (size_t i = 0; i < psg_tuple_size(e); i++) use(x, psg_tuple_get_field(e, i));
    break;
  case PSG_EXPR_TUPLE_GET_ITEM: use(x, psg_tuple_get_item_get_tuple(e)); break;
  case PSG_EXPR_LET:
    use(x, psg_let_get_value(e));
    use(x, psg_let_get_body(e));
    break;
  case PSG_EXPR_IF:
    use(x, psg_if_get_cond(e));
    use(x, psg_if_get_then(e));
    use(x, psg_if_get_else(e));
    break;
  case PSG_EXPR_FUNCTION: use(x, psg_function_get_body(e)); break;
  default: break;
  }
  return x->oom ? PSG_ERR_NOMEM : PSG_OK;
}

/* A parameter of an inlined function stands for its argument. */
static const psg_expr *resolve(const exporter *x, const psg_expr *e) {
  const psg_expr *b;
  while (psg_expr_kind(e) == PSG_EXPR_VAR && (b = pmap_get(&x->bound, e))) e = b;
  return e;
}

/* The name the nodes written for `e` keep: its span's node name, as the
 * ONNX importer gives every expression it builds for a node (that node's
 * name); NULL when it has none. */
static const char *source_name(const psg_expr *e) {
  psg_span sp;
  psg_expr_span(e, &sp);
  return sp.name && sp.name[0] ? sp.name : NULL;
}

/* onnxi_name_fn for onnx_export_names.c. */
static const char *kept_name(void *user, const Onnx__NodeProto *n, bool *main) {
  exporter *x = user;
  *main = pmap_get(&x->mains, n) != NULL;
  return pmap_get(&x->named, n);
}

static bool is_op_call(const psg_expr *e, const char *name) {
  return psg_expr_kind(e) == PSG_EXPR_CALL && psg_expr_kind(psg_call_get_callee(e)) == PSG_EXPR_OP &&
         !strcmp(psg_op_name(psg_call_get_callee(e)), name);
}

static const char *init_raw(exporter *x, int dtype, const int64_t *shape, int nd, const void *data, size_t nbytes);

/* The op call whose value `e` is, seen through parameters of inlined
 * functions and calls of fused functions, when each step is read only
 * there (so its node may take over the reader's work); else NULL. */
static const psg_expr *sole_op_call(const exporter *x, const psg_expr *e) {
  for (int hop = 0; hop < 64; hop++) {
    if (uses_of(x, e) != 1) return NULL;
    const psg_expr *b = psg_expr_kind(e) == PSG_EXPR_VAR ? pmap_get(&x->bound, e) : NULL;
    if (b) {
      e = b;
      continue;
    }
    if (psg_expr_kind(e) != PSG_EXPR_CALL) return NULL;
    const psg_expr *callee = psg_call_get_callee(e);
    if (psg_expr_kind(callee) == PSG_EXPR_OP) return e;
    if (psg_expr_kind(callee) != PSG_EXPR_FUNCTION) return NULL;
    e = psg_function_get_body(callee);
  }
  return NULL;
}

/* add(conv, B) with B a constant along the output channels (C), (C, 1, 1) or
 * (1, C, 1, 1): the Conv's bias input (ONNX's Conv computes the same sum).
 * add(dense, B) exported as Gemm: Gemm's C input (broadcast to the result).
 * Only when the add is the conv's one use and does not widen its result.
 * Returns the node that now computes the add, or NULL. */
static Onnx__NodeProto *fold_bias(exporter *x, const psg_expr *e) {
  if (psg_call_num_args(e) != 2) return NULL;
  const psg_type *rt = psg_expr_checked_type(e);
  for (int side = 0; side < 2; side++) {
    const psg_expr *p = sole_op_call(x, psg_call_get_arg(e, (size_t)side)), *c = resolve(x, psg_call_get_arg(e, (size_t)(1 - side)));
    if (!p) continue;
    bool conv = is_op_call(p, "nn.conv2d") || is_op_call(p, "nn.conv2d_transpose"), gemm = is_op_call(p, "nn.dense") || is_op_call(p, "nn.matmul");
    Onnx__NodeProto *n = pmap_get(&x->made, p);
    if ((!conv && !gemm) || !n || n->n_input != 2 || psg_expr_checked_type(p) != rt ||
        psg_expr_kind(c) != PSG_EXPR_CONSTANT || !rt || psg_type_kind(rt) != PSG_TYPE_TENSOR)
      continue;
    psg_tensor *t = psg_constant_get_tensor(c);
    int nd = psg_tensor_ndim(t), r = psg_type_ndim(rt);
    if (psg_tensor_dtype(t) != psg_type_dtype(rt) || nd > r) continue;
    if (gemm && !strcmp(n->op_type, "Gemm")) {
      size_t k = 0;
      char **nm = get_names(x, psg_call_get_arg(e, (size_t)(1 - side)), &k);
      if (!nm || k != 1) continue;
      n->input[2] = nm[0];
      n->n_input = 3;
      return n;
    }
    if (!conv || r != 4) continue;
    int64_t ch = psg_type_dim(rt, 1);
    bool along = ch > 0 && psg_tensor_numel(t) == ch;
    for (int j = 0; j < nd && along; j++) along = psg_tensor_dim(t, j) == 1 || r - nd + j == 1;
    if (!along) continue;
    n->input[2] = (char *)init_raw(x, psg_tensor_dtype(t), &ch, 1, psg_tensor_data(t), psg_tensor_nbytes(t));
    n->n_input = 3;
    return n;
  }
  return NULL;
}

static void *tidy_alloc(void *user, size_t n) { return ealloc(user, n); }

static psg_status fail(exporter *x, psg_status code, const char *fmt, ...) {
  /* After an allocation failed, a missing value is its consequence. */
  if (x->oom) return PSG_ERR_NOMEM;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  x->errors++;
  return psg_ctx_fail(x->ctx, code, "ONNX export: %s", msg);
}

/* Protobuf builders ------------------------------------------------------------ */

static Onnx__NodeProto *node(exporter *x, const char *op, int nin, int nout) {
  Onnx__NodeProto *n = ealloc(x, sizeof *n);
  if (!n) return NULL;
  onnx__node_proto__init(n);
  n->op_type = (char *)op;
  n->name = estr(x, "%s_%u", op, x->counter++);
  if (x->span_name) pmap_put(x, &x->named, n, (void *)x->span_name);
  n->domain = "";
  n->input = ealloc(x, (size_t)(nin + 1) * sizeof(char *));
  n->output = ealloc(x, (size_t)(nout + 1) * sizeof(char *));
  n->attribute = ealloc(x, MIN_ATTRS * sizeof(Onnx__AttributeProto *)); /* grows in attr() */
  n->n_input = (size_t)nin;
  n->n_output = (size_t)nout;
  for (int i = 0; n->output && i < nout; i++) n->output[i] = estr(x, "psg_v%u", x->counter++);
  vpush(x, &x->nodes, n);
  return n->input && n->output && n->attribute ? n : NULL;
}

static Onnx__AttributeProto *attr(exporter *x, Onnx__NodeProto *n, const char *name, Onnx__AttributeProto__AttributeType t) {
  if (!n) return NULL;
  size_t k = n->n_attribute;
  if (k >= MIN_ATTRS && !(k & (k - 1))) { /* full at a power of two: double */
    Onnx__AttributeProto **more = ealloc(x, 2 * k * sizeof *more);
    if (!more) return NULL;
    memcpy(more, n->attribute, k * sizeof *more);
    n->attribute = more;
  }
  Onnx__AttributeProto *a = ealloc(x, sizeof *a);
  if (!a) return NULL;
  onnx__attribute_proto__init(a);
  a->name = (char *)name;
  a->has_type = 1;
  a->type = t;
  n->attribute[n->n_attribute++] = a;
  return a;
}
static void attr_int(exporter *x, Onnx__NodeProto *n, const char *name, int64_t v) {
  Onnx__AttributeProto *a = attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
  if (a) a->has_i = 1, a->i = v;
}
static void attr_float(exporter *x, Onnx__NodeProto *n, const char *name, float v) {
  Onnx__AttributeProto *a = attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
  if (a) a->has_f = 1, a->f = v;
}
static void attr_str(exporter *x, Onnx__NodeProto *n, const char *name, const char *v) {
  Onnx__AttributeProto *a = attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  if (a) a->has_s = 1, a->s.data = (uint8_t *)estr(x, "%s", v), a->s.len = strlen(v);
}
static void attr_ints(exporter *x, Onnx__NodeProto *n, const char *name, const int64_t *v, size_t k) {
  Onnx__AttributeProto *a = attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  if (!a) return;
  a->ints = ealloc(x, (k + 1) * sizeof(int64_t));
  if (a->ints && k) memcpy(a->ints, v, k * sizeof(int64_t));
  a->n_ints = k;
}

/* An initializer holding `nbytes` of `data`; returns its name. */
static const char *init_raw(exporter *x, int dtype, const int64_t *shape, int nd, const void *data, size_t nbytes) {
  Onnx__TensorProto *t = ealloc(x, sizeof *t);
  if (!t) return "";
  onnx__tensor_proto__init(t);
  t->name = estr(x, "psg_c%u", x->counter++);
  t->has_data_type = 1;
  t->data_type = onnxi_dtype_to_onnx(dtype);
  t->dims = ealloc(x, (size_t)(nd + 1) * sizeof(int64_t));
  if (t->dims && nd) memcpy(t->dims, shape, (size_t)nd * sizeof(int64_t));
  t->n_dims = (size_t)nd;
  t->has_raw_data = 1;
  t->raw_data.len = nbytes;
  t->raw_data.data = nbytes ? (uint8_t *)data : NULL; /* borrowed: the module outlives packing */
  vpush(x, &x->inits, t);
  return t->name ? t->name : "";
}

static const char *init_ints(exporter *x, const int64_t *v, size_t n) {
  int64_t *copy = ealloc(x, (n + 1) * sizeof *copy);
  if (!copy) return "";
  if (n) memcpy(copy, v, n * sizeof *v);
  int64_t shape[1] = {(int64_t)n};
  return init_raw(x, PSG_DTYPE_INT64, shape, 1, copy, n * sizeof *v);
}

static const char *init_scalar_f(exporter *x, int dtype, double v) {
  void *d = ealloc(x, 8);
  if (!d) return "";
  if (dtype == PSG_DTYPE_FLOAT64) *(double *)d = v;
  else *(float *)d = (float)v;
  return init_raw(x, dtype, NULL, 0, d, psg_dtype_size(dtype));
}

static Onnx__ValueInfoProto *value_info(exporter *x, const char *name, const psg_type *t) {
  Onnx__ValueInfoProto *vi = ealloc(x, sizeof *vi);
  Onnx__TypeProto *tp = ealloc(x, sizeof *tp);
  Onnx__TypeProto__Tensor *tt = ealloc(x, sizeof *tt);
  Onnx__TensorShapeProto *sp = ealloc(x, sizeof *sp);
  if (!vi || !tp || !tt || !sp) return NULL;
  onnx__value_info_proto__init(vi);
  onnx__type_proto__init(tp);
  onnx__type_proto__tensor__init(tt);
  onnx__tensor_shape_proto__init(sp);
  vi->name = (char *)name;
  vi->type = tp;
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  tt->has_elem_type = 1;
  tt->elem_type = onnxi_dtype_to_onnx(psg_type_dtype(t));
  tt->shape = sp;
  int nd = psg_type_ndim(t);
  sp->dim = ealloc(x, (size_t)(nd + 1) * sizeof *sp->dim);
  if (!sp->dim) return NULL;
  sp->n_dim = (size_t)nd;
  for (int i = 0; i < nd; i++) {
    Onnx__TensorShapeProto__Dimension *d = ealloc(x, sizeof *d);
    if (!d) return NULL;
    onnx__tensor_shape_proto__dimension__init(d);
    if (psg_type_dim(t, i) >= 0) {
      d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      d->dim_value = psg_type_dim(t, i);
    } else {
      d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
      d->dim_param = estr(x, "d%d", i);
    }
    sp->dim[i] = d;
  }
  return vi;
}

/* Calls -------------------------------------------------------------------------- */

static int64_t aint(const psg_attrs *a, const char *k, int64_t d) {
  psg_attr *v = psg_attrs_get(a, k);
  return v && (psg_attr_kind(v) == PSG_ATTR_INT || psg_attr_kind(v) == PSG_ATTR_BOOL) ? psg_attr_get_int(v) : d;
}
static double afloat(const psg_attrs *a, const char *k, double d) {
  psg_attr *v = psg_attrs_get(a, k);
  return v && (psg_attr_kind(v) == PSG_ATTR_FLOAT || psg_attr_kind(v) == PSG_ATTR_INT) ? psg_attr_get_float(v) : d;
}
static const char *astr(const psg_attrs *a, const char *k, const char *d) {
  psg_attr *v = psg_attrs_get(a, k);
  return v && psg_attr_kind(v) == PSG_ATTR_STRING ? psg_attr_get_string(v) : d;
}
/* An int list attribute; -1 if absent or None. */
static int alist(const psg_attrs *a, const char *k, int64_t *out, int cap) {
  psg_attr *v = psg_attrs_get(a, k);
  if (!v) return -1;
  if (psg_attr_kind(v) == PSG_ATTR_INT) {
    out[0] = psg_attr_get_int(v);
    return 1;
  }
  if (psg_attr_kind(v) != PSG_ATTR_LIST) return -1;
  int n = (int)psg_attr_list_len(v);
  if (n > cap) return -1;
  for (int i = 0; i < n; i++) out[i] = psg_attr_get_int(psg_attr_list_get(v, (size_t)i));
  return n;
}

static void pads4(const psg_attrs *a, int64_t *p) {
  int64_t v[4];
  int k = alist(a, "padding", v, 4);
  if (k == 1) p[0] = p[1] = p[2] = p[3] = v[0];
  else if (k == 2) p[0] = p[2] = v[0], p[1] = p[3] = v[1];
  else if (k == 4) memcpy(p, v, sizeof v);
  else memset(p, 0, 4 * sizeof *p);
}

/* `w` (the value `name`) with its last two axes swapped: a transposed
 * initializer when w is a constant (perm {1, 0} or {0, 2, 1}), else a
 * Transpose node. */
static const char *transposed_weight(exporter *x, const psg_expr *w, const char *name, const int64_t *perm, int r) {
  const psg_expr *c = resolve(x, w);
  psg_tensor *t = psg_expr_kind(c) == PSG_EXPR_CONSTANT ? psg_constant_get_tensor(c) : NULL;
  if (t && psg_tensor_ndim(t) == r && psg_tensor_numel(t) > 0) {
    int64_t b = r == 3 ? psg_tensor_dim(t, 0) : 1, rows = psg_tensor_dim(t, r - 2), cols = psg_tensor_dim(t, r - 1);
    size_t sz = (size_t)psg_dtype_size(psg_tensor_dtype(t));
    unsigned char *out = ealloc(x, psg_tensor_nbytes(t));
    const unsigned char *in = psg_tensor_data(t);
    if (!out || !in) return name;
    for (int64_t k = 0; k < b; k++)
      for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
          memcpy(out + ((k * cols + j) * rows + i) * sz, in + ((k * rows + i) * cols + j) * sz, sz);
    int64_t shape[3] = {b, cols, rows};
    return init_raw(x, psg_tensor_dtype(t), r == 3 ? shape : shape + 1, r, out, psg_tensor_nbytes(t));
  }
  Onnx__NodeProto *tn = node(x, "Transpose", 1, 1);
  if (!tn) return name;
  tn->input[0] = (char *)name;
  attr_ints(x, tn, "perm", perm, (size_t)r);
  return tn->output[0];
}

/* Emits the nodes of one call; its result names go to out_names and nout. */
static psg_status post(psg_visitor *v, const psg_expr *e);

static int pre(psg_visitor *v, const psg_expr *e);

static psg_status walk(exporter *x, const psg_expr *e) {
  psg_visitor v = {pre, post, x};
  psg_status st = psg_visit(x->ctx, &v, e);
  return st ? st : x->aborted; /* a visit stopped by pre returns OK */
}

/* A let chain, as a loop (never recursion on its length): each value is
 * walked and its names become the variable's; the chain's names are those of
 * its final body. */
static psg_status export_let(exporter *x, const psg_expr *e) {
  const psg_expr *cur = e;
  psg_status st = PSG_OK;
  while (!st && psg_expr_kind(cur) == PSG_EXPR_LET) {
    size_t k = 0;
    if ((st = walk(x, psg_let_get_value(cur)))) break;
    char **nm = get_names(x, psg_let_get_value(cur), &k);
    if (!nm) return fail(x, PSG_ERR_UNSUPPORTED, "a let-bound value without an ONNX value");
    set_names(x, psg_let_get_var(cur), nm, k);
    cur = psg_let_get_body(cur);
  }
  if (!st) st = walk(x, cur);
  size_t k = 0;
  char **nm = st ? NULL : get_names(x, cur, &k);
  if (!st && !nm) st = fail(x, PSG_ERR_UNSUPPORTED, "a let body without an ONNX value");
  if (!st) set_names(x, e, nm, k);
  return st;
}

/* If: the condition in the current graph, each branch a subgraph (ONNX
 * subgraphs may read outer values and initializers). */
static psg_status export_if(exporter *x, const psg_expr *e) {
  psg_status st = walk(x, psg_if_get_cond(e));
  if (st) return st;
  size_t k = 0;
  /* ONNX's If takes any one-element condition: a reshape of one element to
   * the scalar Relay needs is not written (the tidy step drops it). */
  const psg_expr *ce = resolve(x, psg_if_get_cond(e)), *body = ce, *in = NULL;
  if (psg_expr_kind(ce) == PSG_EXPR_CALL && psg_expr_kind(psg_call_get_callee(ce)) == PSG_EXPR_FUNCTION)
    body = psg_function_get_body(psg_call_get_callee(ce)); /* a fused reshape */
  if ((is_op_call(body, "reshape") || is_op_call(body, "squeeze")) && psg_call_num_args(body) == 1) {
    in = psg_call_get_arg(body, 0);
    const psg_expr *fn = body == ce ? NULL : psg_call_get_callee(ce);
    for (size_t i = 0; fn && i < psg_function_num_params(fn); i++) /* else a value of the inlined body */
      if (psg_function_get_param(fn, i) == in) in = psg_call_get_arg(ce, i), fn = NULL;
  }
  const psg_type *it = in ? psg_expr_checked_type(in) : NULL;
  bool one = it && psg_type_kind(it) == PSG_TYPE_TENSOR && psg_type_is_static(it);
  for (int i = 0; one && i < psg_type_ndim(it); i++) one = psg_type_dim(it, i) == 1;
  char **inner = one ? get_names(x, in, &k) : NULL;
  if (inner && k == 1) ce = in;
  else ce = psg_if_get_cond(e);
  char **cond = get_names(x, ce, &k);
  if (!cond || k != 1) return fail(x, PSG_ERR_UNSUPPORTED, "an If condition without an ONNX value");
  const psg_type *t = psg_expr_checked_type(e);
  size_t nout = t && psg_type_kind(t) == PSG_TYPE_TUPLE ? (size_t)psg_type_num_fields(t) : 1;
  Onnx__GraphProto *g[2];
  for (int b = 0; b < 2; b++) {
    const psg_expr *br = b ? psg_if_get_else(e) : psg_if_get_then(e);
    /* Nested Ifs are exported by nested walks (C recursion): bounded. */
    if (x->active.len == MAX_IF_DEPTH + 1)
      return fail(x, PSG_ERR_UNSUPPORTED, "Ifs nested more than %d deep", MAX_IF_DEPTH);
    if (!PSGI_VEC_PUSH(x->ctx, &x->active, ++x->nscopes)) return PSG_ERR_NOMEM;
    ptr_vec saved = x->nodes;
    memset(&x->nodes, 0, sizeof x->nodes);
    st = walk(x, br);
    size_t n = 0;
    char **res = st ? NULL : get_names(x, br, &n);
    if (!st && (!res || n != nout)) st = fail(x, PSG_ERR_UNSUPPORTED, "an If branch without ONNX values");
    g[b] = ealloc(x, sizeof *g[b]);
    Onnx__ValueInfoProto **outs = ealloc(x, (nout + 1) * sizeof *outs);
    if (!st && (!g[b] || !outs)) st = PSG_ERR_NOMEM;
    for (size_t i = 0; !st && i < nout; i++) {
      Onnx__NodeProto *id = node(x, "Identity", 1, 1);
      if (!id) st = PSG_ERR_NOMEM;
      else id->input[0] = res[i];
      const psg_type *ft = nout > 1 || (t && psg_type_kind(t) == PSG_TYPE_TUPLE) ? psg_type_field(t, (int)i) : t;
      if (!st && !(outs[i] = value_info(x, id->output[0], ft))) st = PSG_ERR_NOMEM;
    }
    if (!st) {
      onnx__graph_proto__init(g[b]);
      g[b]->name = estr(x, "%s_branch_%u", b ? "else" : "then", x->counter++);
      g[b]->n_node = x->nodes.len;
      g[b]->node = (Onnx__NodeProto **)settle(x, &x->nodes);
      g[b]->output = outs;
      g[b]->n_output = nout;
      if (!g[b]->node || !g[b]->name) st = PSG_ERR_NOMEM;
    }
    PSGI_VEC_FREE(x->ctx, &x->nodes);
    x->nodes = saved;
    x->active.len--;
    if (st) return st;
  }
  x->span_name = source_name(e);
  Onnx__NodeProto *n = node(x, "If", 1, (int)nout);
  x->span_name = NULL;
  if (!n) return PSG_ERR_NOMEM;
  pmap_put(x, &x->mains, n, n);
  n->input[0] = cond[0];
  for (int b = 0; b < 2; b++) {
    Onnx__AttributeProto *a = attr(x, n, b ? "else_branch" : "then_branch", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
    if (!a) return PSG_ERR_NOMEM;
    a->g = g[b];
  }
  set_names(x, e, n->output, nout);
  return x->oom ? PSG_ERR_NOMEM : PSG_OK;
}

/* Function bodies are not walked where they stand: a call of a Function
 * (FuseOps' Primitive functions) inlines its body at the call site. Lets and
 * Ifs are exported as a whole when first reached. */
static int pre(psg_visitor *v, const psg_expr *e) {
  exporter *x = v->user;
  if (psg_expr_kind(e) != PSG_EXPR_VAR && visible(x, e)) return PSG_VISIT_SKIP_CHILDREN; /* written already */
  switch (psg_expr_kind(e)) {
  case PSG_EXPR_FUNCTION: return PSG_VISIT_SKIP_CHILDREN;
  case PSG_EXPR_LET: return (x->aborted = export_let(x, e)) ? PSG_VISIT_ABORT : PSG_VISIT_SKIP_CHILDREN;
  case PSG_EXPR_IF: return (x->aborted = export_if(x, e)) ? PSG_VISIT_ABORT : PSG_VISIT_SKIP_CHILDREN;
  default: return PSG_VISIT_CONTINUE;
  }
}

static psg_status inline_call(exporter *x, const psg_expr *e, const psg_expr *fn, char ***out_names, size_t *nout) {
  size_t np = psg_function_num_params(fn), na = psg_call_num_args(e), k = 0;
  if (np != na) return fail(x, PSG_ERR_TYPE, "a function of %zu parameters called with %zu arguments", np, na);
  psg_expr *body = psg_function_get_body(fn);
  if (visible(x, body)) return fail(x, PSG_ERR_UNSUPPORTED, "a function called at several sites is not exported");
  for (size_t i = 0; i < np; i++) {
    char **nm = get_names(x, psg_call_get_arg(e, i), &k);
    if (!nm) return fail(x, PSG_ERR_INTERNAL, "argument %zu (%s) has no value", i, psg_expr_kind_name(psg_expr_kind(psg_call_get_arg(e, i))));
    set_names(x, psg_function_get_param(fn, i), nm, k);
    pmap_put(x, &x->bound, psg_function_get_param(fn, i), psg_call_get_arg(e, i));
  }
  psg_status st = walk(x, body);
  if (st) return st;
  *out_names = get_names(x, body, nout);
  return *out_names ? PSG_OK : fail(x, PSG_ERR_INTERNAL, "a function body has no value");
}

static Onnx__NodeProto *node_cb(void *x, const char *op, int nin, int nout) { return node(x, op, nin, nout); }

/* Room for the ONNX value names of a call's arguments: one per argument and
 * at least MIN_ARG_NAMES, NULL where absent (a converter reads in[i] of the
 * inputs its op may have: nn.batch_norm's five). */
static const char **arg_names(exporter *x, const psg_expr *call) {
  size_t na = psg_call_num_args(call);
  return ealloc(x, ((na > MIN_ARG_NAMES ? na : MIN_ARG_NAMES) + 1) * sizeof(const char *));
}

/* A Composite function (onnx.LSTM) is one node on its arguments (onnx_export_rnn.c). */
static psg_status composite_call(exporter *x, const psg_expr *e, char ***out_names, size_t *nout) {
  const char **in = arg_names(x, e);
  size_t k = 0;
  if (!in) return PSG_ERR_NOMEM;
  for (size_t i = 0; i < psg_call_num_args(e); i++) {
    char **nm = get_names(x, psg_call_get_arg(e, i), &k);
    in[i] = nm && k == 1 ? nm[0] : NULL;
  }
  onnxi_export_api api = {x, node_cb, tidy_alloc};
  psg_status st = onnxi_export_composite(x->ctx, &api, e, in, out_names, nout);
  if (st) x->errors++;
  return st;
}

/* nn.bias_add(conv, b) along the channels (axis 1 of NCHW), or along the
 * last axis of a 2-D dense exported as Gemm: b becomes the node's bias input
 * (one node, as the ONNX Conv or Gemm the importer read). Only when the
 * bias_add is the producer's one use (also across fused functions, as
 * -O0 leaves every op in one). Returns that node, or NULL. */
static Onnx__NodeProto *fold_bias_add(exporter *x, const psg_expr *e) {
  const psg_expr *p = sole_op_call(x, psg_call_get_arg(e, 0));
  const psg_type *rt = psg_expr_checked_type(e);
  Onnx__NodeProto *n = p ? pmap_get(&x->made, p) : NULL;
  size_t k = 0;
  char **b = get_names(x, psg_call_get_arg(e, 1), &k);
  const psg_expr *bv = resolve(x, psg_call_get_arg(e, 1)); /* defined before n: a constant or graph input */
  if (psg_expr_kind(bv) != PSG_EXPR_CONSTANT && psg_expr_kind(bv) != PSG_EXPR_VAR) return NULL;
  if (!n || n->n_input != 2 || !b || k != 1 || !rt || psg_type_kind(rt) != PSG_TYPE_TENSOR)
    return NULL;
  int r = psg_type_ndim(rt);
  int64_t axis = aint(psg_call_get_attrs(e), "axis", 1);
  if (axis < 0) axis += r;
  bool conv = (is_op_call(p, "nn.conv2d") || is_op_call(p, "nn.conv2d_transpose")) && r == 4 && axis == 1;
  bool gemm = !strcmp(n->op_type, "Gemm") && r == 2 && axis == 1;
  if (!conv && !gemm) return NULL;
  n->input[2] = b[0];
  n->n_input = 3;
  return n;
}

/* Calls of ops: one converter per Relay op (or family), found through
 * `convs`, a map from op name to its row of the table below, built once per
 * export. A converter makes the nodes of one call and leaves in c->n the node
 * whose output is the call's value; export_call then checks its inputs and
 * records it. */
typedef struct call_in {
  const psg_expr *e;   /* the call */
  const char *op;      /* its op's name */
  const char *onnx;    /* the ONNX op of the converter's row */
  const psg_attrs *a;  /* its attributes (may be NULL) */
  const char **in;     /* the ONNX value names of its arguments (NULL: not one tensor) */
  size_t na;
  const psg_type *rt;  /* its checked type */
  Onnx__NodeProto *n;  /* the result node (set by the converter) */
  char ***out_names;   /* set directly by a converter of a tuple-valued op */
  size_t *nout;
  bool named;          /* ... which then sets this */
} call_in;

typedef psg_status (*export_fn)(exporter *x, call_in *c);
typedef struct export_op {
  const char *relay, *onnx;
  export_fn fn;
} export_op;

/* One node of c->onnx on the call's arguments as they are. */
static psg_status conv_simple(exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = node(x, c->onnx, (int)c->na, 1);
  for (size_t k = 0; n && k < c->na; k++) n->input[k] = (char *)c->in[k];
  return PSG_OK;
}

/* add: a Conv's bias or Gemm's C when it can be (fold_bias), else Add. */
static psg_status conv_add(exporter *x, call_in *c) {
  if ((c->n = fold_bias(x, c->e))) return PSG_OK;
  return conv_simple(x, c);
}

static psg_status conv_clip(exporter *x, call_in *c) {
  int dt = psg_type_dtype(c->rt);
  Onnx__NodeProto *n = c->n = node(x, "Clip", 3, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_scalar_f(x, dt, afloat(c->a, "a_min", 0)),
         n->input[2] = (char *)init_scalar_f(x, dt, afloat(c->a, "a_max", 0));
  return PSG_OK;
}

static psg_status conv_leaky_relu(exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = node(x, "LeakyRelu", 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  attr_float(x, n, "alpha", (float)afloat(c->a, "alpha", 0.01));
  return PSG_OK;
}

static psg_status conv_cast(exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = node(x, "Cast", 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  attr_int(x, n, "to", onnxi_dtype_to_onnx(psg_type_dtype(c->rt)));
  return PSG_OK;
}

/* mean, max, min, sum: ReduceX (ReduceSum takes its axes as an input). */
static psg_status conv_reduce(exporter *x, call_in *c) {
  if (aint(c->a, "exclude", 0)) return fail(x, PSG_ERR_UNSUPPORTED, "%s with exclude=True", c->op);
  bool sum = !strcmp(c->onnx, "ReduceSum");
  int64_t v[PSG_MAX_RANK];
  int k = alist(c->a, "axis", v, PSG_MAX_RANK);
  Onnx__NodeProto *n = c->n = node(x, c->onnx, sum && k >= 0 ? 2 : 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  if (k >= 0 && sum && n) n->input[1] = (char *)init_ints(x, v, (size_t)k);
  else if (k >= 0) attr_ints(x, n, "axes", v, (size_t)k);
  attr_int(x, n, "keepdims", aint(c->a, "keepdims", 0));
  return PSG_OK;
}

static psg_status conv_softmax(exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = node(x, "Softmax", 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  attr_int(x, n, "axis", aint(c->a, "axis", -1));
  return PSG_OK;
}

/* nn.conv2d (Conv), nn.conv2d_transpose (ConvTranspose). */
static psg_status conv_conv(exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  bool tr = !strcmp(c->onnx, "ConvTranspose");
  if (strcmp(astr(a, "data_layout", "NCHW"), "NCHW") || strcmp(astr(a, "kernel_layout", tr ? "IOHW" : "OIHW"), tr ? "IOHW" : "OIHW"))
    return fail(x, PSG_ERR_UNSUPPORTED, "%s with layouts other than NCHW and %s", c->op, tr ? "IOHW" : "OIHW");
  Onnx__NodeProto *n = c->n = node(x, c->onnx, 2, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)c->in[1];
  int64_t p[4], one[2] = {1, 1}, v[2];
  pads4(a, p);
  attr_ints(x, n, "pads", p, 4);
  int k = alist(a, "strides", v, 2);
  attr_ints(x, n, "strides", k == 2 ? v : one, 2);
  k = alist(a, "dilation", v, 2);
  attr_ints(x, n, "dilations", k == 2 ? v : one, 2);
  attr_int(x, n, "group", aint(a, "groups", 1));
  if (tr && (k = alist(a, "output_padding", v, 2)) == 2) attr_ints(x, n, "output_padding", v, 2);
  /* kernel_shape from the attribute or the weight's type (unknown dims in the weight need it) */
  const psg_type *wt = psg_expr_checked_type(psg_call_get_arg(c->e, 1));
  if ((k = alist(a, "kernel_size", v, 2)) == 2 || (k = -1, wt && psg_type_ndim(wt) == 4 &&
      (v[0] = psg_type_dim(wt, 2)) > 0 && (v[1] = psg_type_dim(wt, 3)) > 0))
    attr_ints(x, n, "kernel_shape", v, 2);
  return PSG_OK;
}

/* nn.bias_add: the producer's bias input when it can be (fold_bias_add),
 * else Add of the bias reshaped to broadcast along `axis`. */
static psg_status conv_bias_add(exporter *x, call_in *c) {
  if ((c->n = fold_bias_add(x, c->e))) return PSG_OK;
  const psg_type *xt = psg_expr_checked_type(psg_call_get_arg(c->e, 0));
  int r = psg_type_ndim(xt), axis = (int)aint(c->a, "axis", 1);
  if (axis < 0) axis += r;
  int64_t shape[PSG_MAX_RANK];
  shape[0] = -1;
  for (int i = 1; i < r - axis; i++) shape[i] = 1;
  Onnx__NodeProto *rs = node(x, "Reshape", 2, 1);
  if (rs) rs->input[0] = (char *)c->in[1], rs->input[1] = (char *)init_ints(x, shape, (size_t)(r - axis));
  Onnx__NodeProto *n = c->n = node(x, "Add", 2, 1);
  if (n && rs) n->input[0] = (char *)c->in[0], n->input[1] = rs->output[0];
  return PSG_OK;
}

/* nn.dense: Gemm (transB) in 2-D, else MatMul on the transposed weight. */
static psg_status conv_dense(exporter *x, call_in *c) {
  const psg_type *xt = psg_expr_checked_type(psg_call_get_arg(c->e, 0));
  Onnx__NodeProto *n;
  if (psg_type_ndim(xt) == 2) {
    n = c->n = node(x, "Gemm", 2, 1);
    if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)c->in[1];
    attr_int(x, n, "transB", 1);
  } else {
    int64_t perm2[2] = {1, 0};
    const char *w = transposed_weight(x, psg_call_get_arg(c->e, 1), c->in[1], perm2, 2);
    n = c->n = node(x, "MatMul", 2, 1);
    if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)w;
  }
  return PSG_OK;
}

/* nn.batch_matmul, nn.matmul: MatMul with the transposes written out (one
 * Gemm for a 2-D nn.matmul). */
static psg_status conv_matmul(exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  bool b3 = !strcmp(c->op, "nn.batch_matmul");
  const char *ai = c->in[0], *bi = c->in[1];
  int64_t perm[PSG_MAX_RANK];
  int ra = psg_type_ndim(psg_expr_checked_type(psg_call_get_arg(c->e, 0)));
  for (int i = 0; i < ra; i++) perm[i] = i == ra - 2 ? ra - 1 : i == ra - 1 ? ra - 2 : i;
  Onnx__NodeProto *n;
  if (!b3 && ra == 2) { /* 2-D: one Gemm whatever the flags */
    n = c->n = node(x, "Gemm", 2, 1);
    if (n) n->input[0] = (char *)ai, n->input[1] = (char *)bi;
    if (aint(a, "transpose_a", 0)) attr_int(x, n, "transA", 1);
    if (aint(a, "transpose_b", 0)) attr_int(x, n, "transB", 1);
    return PSG_OK;
  }
  if (aint(a, "transpose_a", 0)) { /* the last two axes of a (N-D for nn.matmul) */
    Onnx__NodeProto *t = node(x, "Transpose", 1, 1);
    if (t) t->input[0] = (char *)ai, ai = t->output[0];
    attr_ints(x, t, "perm", perm, (size_t)ra);
  }
  if (aint(a, "transpose_b", b3 ? 1 : 0)) {
    int64_t p3[3] = {0, 2, 1}, p2[2] = {1, 0};
    bi = transposed_weight(x, psg_call_get_arg(c->e, 1), bi, b3 ? p3 : p2, b3 ? 3 : 2);
  }
  n = c->n = node(x, "MatMul", 2, 1);
  if (n) n->input[0] = (char *)ai, n->input[1] = (char *)bi;
  return PSG_OK;
}

/* nn.layer_norm: ONNX normalizes over the axes from `axis` on: the same as
 * Relay's one axis when it is the last; another axis is swapped with the
 * last around it. */
static psg_status conv_layer_norm(exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  const char *const *in = c->in;
  const psg_type *xt = psg_expr_checked_type(psg_call_get_arg(c->e, 0));
  int r = psg_type_ndim(xt);
  int64_t axis = aint(a, "axis", -1);
  if (axis < 0) axis += r;
  int64_t ch = axis >= 0 && axis < r ? psg_type_dim(xt, (int)axis) : -1;
  if (ch < 0) return fail(x, PSG_ERR_UNSUPPORTED, "nn.layer_norm over an axis of unknown length");
  if (!in[0] || !in[1] || (aint(a, "center", 1) && !in[2])) return fail(x, PSG_ERR_UNSUPPORTED, "nn.layer_norm of non-tensor values");
  const char *data = in[0];
  int64_t perm[PSG_MAX_RANK];
  for (int i = 0; i < r; i++) perm[i] = i == axis ? r - 1 : i == r - 1 ? axis : i;
  if (axis != r - 1) {
    Onnx__NodeProto *t = node(x, "Transpose", 1, 1);
    if (t) t->input[0] = (char *)data, data = t->output[0];
    attr_ints(x, t, "perm", perm, (size_t)r);
  }
  bool center = aint(a, "center", 1) != 0;
  Onnx__NodeProto *n = c->n = node(x, "LayerNormalization", center ? 3 : 2, 1);
  if (n) n->input[0] = (char *)data, n->input[1] = (char *)in[1], n->input[2] = center ? (char *)in[2] : NULL;
  if (n && !aint(a, "scale", 1)) { /* gamma ignored: ones */
    int dt = psg_type_dtype(xt);
    size_t sz = (size_t)psg_dtype_size(dt);
    unsigned char *ones = ealloc(x, (size_t)ch * sz + 1);
    if (!ones) return PSG_ERR_NOMEM;
    if (dt == PSG_DTYPE_FLOAT64) for (int64_t i = 0; i < ch; i++) ((double *)(void *)ones)[i] = 1;
    else if (dt == PSG_DTYPE_FLOAT32) for (int64_t i = 0; i < ch; i++) ((float *)(void *)ones)[i] = 1;
    else return fail(x, PSG_ERR_UNSUPPORTED, "nn.layer_norm with scale=False on %s", psg_dtype_name(dt));
    n->input[1] = (char *)init_raw(x, dt, &ch, 1, ones, (size_t)ch * sz);
  }
  attr_int(x, n, "axis", -1);
  attr_float(x, n, "epsilon", (float)afloat(a, "epsilon", 1e-5));
  x->opset = 17;
  if (n && axis != r - 1) {
    Onnx__NodeProto *t = node(x, "Transpose", 1, 1);
    if (t) t->input[0] = n->output[0];
    attr_ints(x, t, "perm", perm, (size_t)r);
    c->n = t;
  }
  return PSG_OK;
}

/* nn.batch_norm: BatchNormalization; the tuple's other fields (mean, var)
 * are the inputs themselves at inference. */
static psg_status conv_batch_norm(exporter *x, call_in *c) {
  Onnx__NodeProto *n = node(x, "BatchNormalization", 5, 1);
  for (int i = 0; n && i < 5; i++) n->input[i] = (char *)c->in[i];
  attr_float(x, n, "epsilon", (float)afloat(c->a, "epsilon", 1e-5));
  if (aint(c->a, "axis", 1) != 1) return fail(x, PSG_ERR_UNSUPPORTED, "nn.batch_norm with axis != 1");
  char **names = ealloc(x, 3 * sizeof *names);
  if (!names || !n) return PSG_ERR_NOMEM;
  names[0] = n->output[0], names[1] = (char *)c->in[3], names[2] = (char *)c->in[4];
  *c->out_names = names;
  *c->nout = 3;
  c->named = true;
  pmap_put(x, &x->mains, n, n);
  return x->oom ? PSG_ERR_NOMEM : PSG_OK;
}

/* nn.max_pool2d (MaxPool), nn.avg_pool2d (AveragePool). */
static psg_status conv_pool(exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  bool mx = !strcmp(c->onnx, "MaxPool");
  if (strcmp(astr(a, "layout", "NCHW"), "NCHW")) return fail(x, PSG_ERR_UNSUPPORTED, "%s with layout other than NCHW", c->op);
  Onnx__NodeProto *n = c->n = node(x, c->onnx, 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  int64_t p[4], one[2] = {1, 1}, v[2];
  pads4(a, p);
  int k = alist(a, "pool_size", v, 2);
  if (k == 1) v[1] = v[0];
  attr_ints(x, n, "kernel_shape", v, 2);
  attr_ints(x, n, "pads", p, 4);
  k = alist(a, "strides", v, 2);
  attr_ints(x, n, "strides", k == 2 ? v : one, 2);
  k = alist(a, "dilation", v, 2);
  if (k == 2 && (v[0] != 1 || v[1] != 1)) attr_ints(x, n, "dilations", v, 2);
  attr_int(x, n, "ceil_mode", aint(a, "ceil_mode", 0));
  if (!mx) attr_int(x, n, "count_include_pad", aint(a, "count_include_pad", 0));
  return PSG_OK;
}

/* reshape, nn.batch_flatten, squeeze, expand_dims (Reshape), broadcast_to
 * (Expand): the result shape is in the checked type, one node covers them. */
static psg_status conv_reshape(exporter *x, call_in *c) {
  if (!psg_type_is_static(c->rt)) return fail(x, PSG_ERR_UNSUPPORTED, "%s with a dynamic result shape", c->op);
  int64_t w[PSG_MAX_RANK];
  int r = psg_type_ndim(c->rt);
  for (int i = 0; i < r; i++) w[i] = psg_type_dim(c->rt, i);
  bool expand = !strcmp(c->onnx, "Expand");
  Onnx__NodeProto *n = c->n = node(x, c->onnx, 2, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_ints(x, w, (size_t)r);
  /* A literal 0 extent (empty tensors): without allowzero, Reshape would
   * copy the input's dim there (found by fuzz_onnx). */
  bool zero = false;
  for (int i = 0; i < r; i++) zero |= w[i] == 0;
  if (zero && !expand) attr_int(x, n, "allowzero", 1);
  return PSG_OK;
}

static psg_status conv_transpose(exporter *x, call_in *c) {
  int64_t v[PSG_MAX_RANK];
  int k;
  Onnx__NodeProto *n = c->n = node(x, "Transpose", 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  if ((k = alist(c->a, "axes", v, PSG_MAX_RANK)) >= 0) attr_ints(x, n, "perm", v, (size_t)k);
  return PSG_OK;
}

/* concatenate: Concat of the tuple argument's fields. */
static psg_status conv_concat(exporter *x, call_in *c) {
  psg_expr *tup = psg_call_get_arg(c->e, 0);
  size_t nf = 0;
  char **fields = get_names(x, tup, &nf);
  if (!fields) return fail(x, PSG_ERR_UNSUPPORTED, "concatenate of a non-tuple value");
  Onnx__NodeProto *n = c->n = node(x, "Concat", (int)nf, 1);
  for (size_t i = 0; n && i < nf; i++) n->input[i] = fields[i];
  attr_int(x, n, "axis", aint(c->a, "axis", 0));
  return PSG_OK;
}

static psg_status conv_strided_slice(exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  if (strcmp(astr(a, "slice_mode", "end"), "end")) return fail(x, PSG_ERR_UNSUPPORTED, "strided_slice with slice_mode=size");
  int64_t b[PSG_MAX_RANK], en[PSG_MAX_RANK], s[PSG_MAX_RANK], ax[PSG_MAX_RANK];
  int nb = alist(a, "begin", b, PSG_MAX_RANK), ne = alist(a, "end", en, PSG_MAX_RANK);
  int ns = alist(a, "strides", s, PSG_MAX_RANK), nx = alist(a, "axes", ax, PSG_MAX_RANK);
  if (nb < 0 || ne != nb) return fail(x, PSG_ERR_UNSUPPORTED, "strided_slice without begin/end");
  if (nx < 0) for (int i = 0; i < nb; i++) ax[i] = i;
  for (int i = 0; i < nb; i++) if (ns < 0 || i >= ns) s[i] = ns == 1 ? s[0] : 1;
  Onnx__NodeProto *n = c->n = node(x, "Slice", 5, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_ints(x, b, (size_t)nb),
         n->input[2] = (char *)init_ints(x, en, (size_t)nb), n->input[3] = (char *)init_ints(x, ax, (size_t)nb),
         n->input[4] = (char *)init_ints(x, s, (size_t)nb);
  return PSG_OK;
}

/* reverse: a Slice with step -1 along the axis. */
static psg_status conv_reverse(exporter *x, call_in *c) {
  int64_t st[1] = {-1}, en[1] = {INT64_MIN}, ax[1] = {aint(c->a, "axis", 0)}, sp[1] = {-1};
  Onnx__NodeProto *n = c->n = node(x, "Slice", 5, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_ints(x, st, 1), n->input[2] = (char *)init_ints(x, en, 1),
         n->input[3] = (char *)init_ints(x, ax, 1), n->input[4] = (char *)init_ints(x, sp, 1);
  return PSG_OK;
}

static psg_status conv_take(exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = node(x, "Gather", 2, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)c->in[1];
  attr_int(x, n, "axis", aint(c->a, "axis", 0));
  return PSG_OK;
}

/* shape_of: Shape, then a Cast when the result is not int64. */
static psg_status conv_shape_of(exporter *x, call_in *c) {
  Onnx__NodeProto *n = c->n = node(x, "Shape", 1, 1);
  if (n) n->input[0] = (char *)c->in[0];
  if (psg_type_dtype(c->rt) != PSG_DTYPE_INT64) {
    Onnx__NodeProto *cast = node(x, "Cast", 1, 1);
    if (cast && n) cast->input[0] = n->output[0];
    attr_int(x, cast, "to", onnxi_dtype_to_onnx(psg_type_dtype(c->rt)));
    c->n = cast;
  }
  return PSG_OK;
}

static psg_status conv_pad(exporter *x, call_in *c) {
  const psg_type *xt = psg_expr_checked_type(psg_call_get_arg(c->e, 0));
  int r = psg_type_ndim(xt);
  int64_t v[PSG_MAX_RANK * 2];
  psg_attr *pw = psg_attrs_get(c->a, "pad_width");
  if (!pw || psg_attr_kind(pw) != PSG_ATTR_LIST || (int)psg_attr_list_len(pw) != r)
    return fail(x, PSG_ERR_UNSUPPORTED, "nn.pad without a pad_width per axis");
  for (int i = 0; i < r; i++) {
    psg_attr *pair = psg_attr_list_get(pw, (size_t)i);
    if (psg_attr_kind(pair) != PSG_ATTR_LIST || psg_attr_list_len(pair) != 2) return fail(x, PSG_ERR_UNSUPPORTED, "nn.pad pad_width");
    v[i] = psg_attr_get_int(psg_attr_list_get(pair, 0));
    v[i + r] = psg_attr_get_int(psg_attr_list_get(pair, 1));
  }
  Onnx__NodeProto *n = c->n = node(x, "Pad", 3, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = (char *)init_ints(x, v, (size_t)(2 * r)), n->input[2] = (char *)c->in[1];
  attr_str(x, n, "mode", astr(c->a, "pad_mode", "constant"));
  return PSG_OK;
}

/* image.resize2d: Resize to the checked type's sizes. */
static psg_status conv_resize(exporter *x, call_in *c) {
  const psg_attrs *a = c->a;
  if (strcmp(astr(a, "layout", "NCHW"), "NCHW")) return fail(x, PSG_ERR_UNSUPPORTED, "image.resize2d with layout other than NCHW");
  if (!psg_type_is_static(c->rt)) return fail(x, PSG_ERR_UNSUPPORTED, "image.resize2d with a dynamic result shape");
  int64_t w[4];
  for (int i = 0; i < 4; i++) w[i] = psg_type_dim(c->rt, i);
  const char *m = astr(a, "method", "linear");
  Onnx__NodeProto *n = c->n = node(x, "Resize", 4, 1);
  if (n) n->input[0] = (char *)c->in[0], n->input[1] = "", n->input[2] = "", n->input[3] = (char *)init_ints(x, w, 4);
  attr_str(x, n, "mode", !strcmp(m, "nearest_neighbor") ? "nearest" : m);
  attr_str(x, n, "coordinate_transformation_mode", astr(a, "coordinate_transformation_mode", "half_pixel"));
  attr_str(x, n, "nearest_mode", astr(a, "rounding_method", "round_prefer_floor")[0] ? astr(a, "rounding_method", "round_prefer_floor") : "round_prefer_floor");
  attr_float(x, n, "cubic_coeff_a", (float)afloat(a, "cubic_alpha", -0.75));
  attr_int(x, n, "exclude_outside", aint(a, "cubic_exclude", 0));
  attr_float(x, n, "extrapolation_value", (float)afloat(a, "extrapolation_value", 0));
  return PSG_OK;
}

/* The converters, one row per Relay op: its name, the ONNX op the
 * converter writes (for the converters shared by a family) and the
 * converter. */
static const export_op export_ops[] = {
    {"nn.relu", "Relu", conv_simple},
    {"sigmoid", "Sigmoid", conv_simple},
    {"sqrt", "Sqrt", conv_simple},
    {"log", "Log", conv_simple},
    {"negative", "Neg", conv_simple},
    {"exp", "Exp", conv_simple},
    {"tanh", "Tanh", conv_simple},
    {"abs", "Abs", conv_simple},
    {"add", "Add", conv_add},
    {"subtract", "Sub", conv_simple},
    {"multiply", "Mul", conv_simple},
    {"divide", "Div", conv_simple},
    {"power", "Pow", conv_simple},
    {"maximum", "Max", conv_simple},
    {"minimum", "Min", conv_simple},
    {"equal", "Equal", conv_simple},
    {"greater", "Greater", conv_simple},
    {"greater_equal", "GreaterOrEqual", conv_simple},
    {"less", "Less", conv_simple},
    {"copy", "Identity", conv_simple},
    {"nn.global_avg_pool2d", "GlobalAveragePool", conv_simple},
    {"clip", "Clip", conv_clip},
    {"nn.leaky_relu", "LeakyRelu", conv_leaky_relu},
    {"cast", "Cast", conv_cast},
    {"mean", "ReduceMean", conv_reduce},
    {"max", "ReduceMax", conv_reduce},
    {"min", "ReduceMin", conv_reduce},
    {"sum", "ReduceSum", conv_reduce},
    {"nn.softmax", "Softmax", conv_softmax},
    {"nn.conv2d", "Conv", conv_conv},
    {"nn.conv2d_transpose", "ConvTranspose", conv_conv},
    {"nn.bias_add", "Add", conv_bias_add},
    {"nn.dense", "Gemm", conv_dense},
    {"nn.batch_matmul", "MatMul", conv_matmul},
    {"nn.matmul", "MatMul", conv_matmul},
    {"nn.layer_norm", "LayerNormalization", conv_layer_norm},
    {"nn.batch_norm", "BatchNormalization", conv_batch_norm},
    {"nn.max_pool2d", "MaxPool", conv_pool},
    {"nn.avg_pool2d", "AveragePool", conv_pool},
    {"reshape", "Reshape", conv_reshape},
    {"nn.batch_flatten", "Reshape", conv_reshape},
    {"squeeze", "Reshape", conv_reshape},
    {"expand_dims", "Reshape", conv_reshape},
    {"broadcast_to", "Expand", conv_reshape},
    {"transpose", "Transpose", conv_transpose},
    {"concatenate", "Concat", conv_concat},
    {"strided_slice", "Slice", conv_strided_slice},
    {"reverse", "Slice", conv_reverse},
    {"take", "Gather", conv_take},
    {"shape_of", "Shape", conv_shape_of},
    {"nn.pad", "Pad", conv_pad},
    {"image.resize2d", "Resize", conv_resize},
};

/* The row of `op`, from the map filled on first use in this export; NULL
 * (and x->oom when the map could not be filled) when there is none. */
static const export_op *find_export_op(exporter *x, const char *op) {
  if (!x->convs.len)
    for (size_t i = 0; i < sizeof export_ops / sizeof *export_ops; i++) {
      psgi_map_entry *en = psgi_map_put_str(&x->convs, export_ops[i].relay, strlen(export_ops[i].relay), NULL);
      if (!en) {
        x->oom = true;
        psgi_map_fini(&x->convs);
        return NULL;
      }
      en->value = (void *)&export_ops[i];
    }
  psgi_map_entry *en = psgi_map_get_str(&x->convs, op, strlen(op));
  return en ? en->value : NULL;
}

static psg_status export_call(exporter *x, const psg_expr *e, char ***out_names, size_t *nout) {
  psg_expr *callee = psg_call_get_callee(e);
  if (onnxi_export_is_composite(callee)) return composite_call(x, e, out_names, nout);
  if (psg_expr_kind(callee) == PSG_EXPR_FUNCTION) return inline_call(x, e, callee, out_names, nout);
  if (psg_expr_kind(callee) != PSG_EXPR_OP)
    return fail(x, PSG_ERR_UNSUPPORTED, "calls of %s are not exported (run inlining first)", psg_expr_kind_name(psg_expr_kind(callee)));
  call_in c = {.e = e, .op = psg_op_name(callee), .a = psg_call_get_attrs(e), .na = psg_call_num_args(e),
               .rt = psg_expr_checked_type(e), .out_names = out_names, .nout = nout};
  const export_op *row = find_export_op(x, c.op);
  if (!row) return x->oom ? PSG_ERR_NOMEM : fail(x, PSG_ERR_UNSUPPORTED, "operator %s has no ONNX form here", c.op);
  if (!(c.in = arg_names(x, e))) return PSG_ERR_NOMEM;
  for (size_t i = 0; i < c.na; i++) {
    size_t k = 0;
    char **nm = get_names(x, psg_call_get_arg(e, i), &k);
    c.in[i] = nm && k == 1 ? nm[0] : NULL;
  }
  c.onnx = row->onnx;
  *nout = 1;
  psg_status st = row->fn(x, &c);
  if (st || c.named) return st;
  Onnx__NodeProto *n = c.n;
  if (!n) return x->oom ? PSG_ERR_NOMEM : fail(x, PSG_ERR_INTERNAL, "building %s", c.op);
  for (size_t i = 0; i < n->n_input; i++)
    if (!n->input[i]) return fail(x, PSG_ERR_UNSUPPORTED, "%s: input %zu is not a tensor value", c.op, i);
  char **names = ealloc(x, sizeof *names);
  if (!names) return PSG_ERR_NOMEM;
  names[0] = n->output[0];
  *out_names = names;
  pmap_put(x, &x->made, e, n);
  pmap_put(x, &x->mains, n, n);
  return x->oom ? PSG_ERR_NOMEM : PSG_OK;
}

static psg_status post(psg_visitor *v, const psg_expr *e) {
  exporter *x = v->user;
  char **names = NULL;
  size_t n = 1;
  psg_status st = PSG_OK;
  if (psg_expr_kind(e) != PSG_EXPR_LET && psg_expr_kind(e) != PSG_EXPR_IF && visible(x, e)) return PSG_OK;
  switch (psg_expr_kind(e)) {
  case PSG_EXPR_OP:
  case PSG_EXPR_VAR: /* parameters are named before the walk */
    return PSG_OK;
  case PSG_EXPR_CONSTANT: {
    psg_tensor *t = psg_constant_get_tensor(e);
    int64_t shape[PSG_MAX_RANK];
    for (int i = 0; i < psg_tensor_ndim(t); i++) shape[i] = psg_tensor_dim(t, i);
    names = ealloc(x, sizeof *names);
    if (names) names[0] = (char *)init_raw(x, psg_tensor_dtype(t), shape, psg_tensor_ndim(t), psg_tensor_data(t), psg_tensor_nbytes(t));
    break;
  }
  case PSG_EXPR_TUPLE: {
    n = psg_tuple_size(e);
    names = ealloc(x, (n + 1) * sizeof *names);
    for (size_t i = 0; names && i < n; i++) {
      size_t k = 0;
      char **f = get_names(x, psg_tuple_get_field(e, i), &k);
      if (!f || k != 1) return fail(x, PSG_ERR_UNSUPPORTED, "nested tuples are not exported");
      names[i] = f[0];
    }
    break;
  }
  case PSG_EXPR_TUPLE_GET_ITEM: {
    size_t k = 0;
    char **f = get_names(x, psg_tuple_get_item_get_tuple(e), &k);
    int idx = psg_tuple_get_item_index(e);
    if (!f || (size_t)idx >= k) return fail(x, PSG_ERR_UNSUPPORTED, "TupleGetItem of an unexported tuple");
    names = ealloc(x, sizeof *names);
    if (names) names[0] = f[idx];
    break;
  }
  case PSG_EXPR_CALL: /* its nodes keep its name (an inlined body's calls keep theirs) */
    x->span_name = source_name(e);
    st = export_call(x, e, &names, &n);
    x->span_name = NULL;
    break;
  case PSG_EXPR_FUNCTION: /* inlined at its call (inline_call) */
  case PSG_EXPR_LET:      /* exported whole by pre (export_let) */
  case PSG_EXPR_IF:       /* exported whole by pre (export_if) */
    return x->errors ? PSG_ERR_UNSUPPORTED : PSG_OK;
  case PSG_EXPR_GLOBAL_VAR:
  case PSG_EXPR_KIND_COUNT:
    return fail(x, PSG_ERR_UNSUPPORTED, "%s expressions are not exported", psg_expr_kind_name(psg_expr_kind(e)));
  }
  if (st) return st;
  if (!names || x->oom) return PSG_ERR_NOMEM;
  set_names(x, e, names, n);
  return x->oom ? PSG_ERR_NOMEM : PSG_OK;
}

/* Graph input and output names -----------------------------------------------
 * Inputs keep their parameters' names, outputs the names the module's
 * output_names attribute lists (the ONNX graph's, recorded by the importer),
 * so an optimized model drops in where the original was used; a module
 * without them (Relay text) gets "output" (one result) or "output_I". A name
 * some other value of the model has already (an earlier input or output, an
 * initializer, a node's output) falls back to the generated one, and then
 * gets _1, _2, ... until free: ONNX names are unique across the model. */

/* Takes the first free of `want`, `fallback`, fallback_1, ... in `taken`. */
static char *take_name(exporter *x, psgi_map *taken, const char *want, const char *fallback) {
  char *name = !want[0] || psgi_map_get_str(taken, want, strlen(want)) ? NULL : estr(x, "%s", want);
  if (!name && !psgi_map_get_str(taken, fallback, strlen(fallback))) name = estr(x, "%s", fallback);
  for (unsigned k = 1; !name && !x->oom; k++) {
    char *s = estr(x, "%s_%u", fallback, k);
    if (s && !psgi_map_get_str(taken, s, strlen(s))) name = s;
  }
  if (name && !psgi_map_put_str(taken, name, strlen(name), NULL)) x->oom = true;
  return x->oom ? NULL : name;
}

/* Every value name written so far (initializers, node outputs, also inside
 * If branches) into `taken`. */
static void names_in_use(exporter *x, psgi_map *taken) {
  PSGI_VEC(const Onnx__GraphProto *) graphs = {0};
  Onnx__GraphProto top;
  onnx__graph_proto__init(&top);
  top.node = (Onnx__NodeProto **)x->nodes.data, top.n_node = x->nodes.len;
  top.initializer = (Onnx__TensorProto **)x->inits.data, top.n_initializer = x->inits.len;
  if (!PSGI_VEC_PUSH(x->ctx, &graphs, &top)) x->oom = true;
  while (graphs.len && !x->oom) {
    const Onnx__GraphProto *g = graphs.data[--graphs.len];
    for (size_t i = 0; i < g->n_initializer; i++)
      if (!psgi_map_put_str(taken, g->initializer[i]->name, strlen(g->initializer[i]->name), NULL)) x->oom = true;
    for (size_t i = 0; i < g->n_node; i++) {
      const Onnx__NodeProto *n = g->node[i];
      for (size_t k = 0; k < n->n_output; k++)
        if (n->output[k] && !psgi_map_put_str(taken, n->output[k], strlen(n->output[k]), NULL)) x->oom = true;
      for (size_t a = 0; a < n->n_attribute; a++)
        if (n->attribute[a]->g && !PSGI_VEC_PUSH(x->ctx, &graphs, n->attribute[a]->g)) x->oom = true;
    }
  }
  PSGI_VEC_FREE(x->ctx, &graphs);
}

/* The name output i of n wants: the module's output_names entry, when the
 * list has one string per output. */
static const char *listed_output_name(const psg_module *mod, size_t i, size_t n) {
  psg_attr *l = psg_attrs_get(psg_module_get_attrs(mod), ONNX_OUTPUT_NAMES);
  if (!l || psg_attr_kind(l) != PSG_ATTR_LIST || psg_attr_list_len(l) != n) return NULL;
  psg_attr *s = psg_attr_list_get(l, i);
  return psg_attr_kind(s) == PSG_ATTR_STRING && psg_attr_get_string(s)[0] ? psg_attr_get_string(s) : NULL;
}

static psg_status build_body(exporter *x, const psg_module *mod, const psg_expr *fn, Onnx__GraphProto *g,
                             ptr_vec *outputs, psgi_map *taken) {
  size_t np = psg_function_num_params(fn);
  for (size_t i = 0; i < np; i++) {
    psg_expr *p = psg_function_get_param(fn, i);
    const psg_type *t = psg_expr_checked_type(p);
    if (!t || psg_type_kind(t) != PSG_TYPE_TENSOR) return fail(x, PSG_ERR_UNSUPPORTED, "parameter %%%s is not a tensor", psg_var_name(p));
    char **names = ealloc(x, sizeof *names);
    if (!names) return PSG_ERR_NOMEM;
    char *fallback = estr(x, "input_%zu", i);
    if (!fallback || !(names[0] = take_name(x, taken, psg_var_name(p), fallback))) return PSG_ERR_NOMEM;
    set_names(x, p, names, 1);
    vpush(x, &x->inputs, value_info(x, names[0], t));
  }
  psg_expr *body = psg_function_get_body(fn);
  psg_visitor counter = {NULL, count_post, x};
  psg_status st = psg_visit(x->ctx, &counter, body);
  use(x, body); /* the graph's output */
  if (!st) st = walk(x, body);
  if (st) return st;
  if (x->errors) return PSG_ERR_UNSUPPORTED;
  size_t nb = 0;
  char **res = get_names(x, body, &nb);
  const psg_type *bt = psg_expr_checked_type(body);
  if (!res) return fail(x, PSG_ERR_INTERNAL, "the body has no value");
  names_in_use(x, taken);
  for (size_t i = 0; i < nb; i++) {
    const psg_type *t = psg_type_kind(bt) == PSG_TYPE_TUPLE ? psg_type_field(bt, (int)i) : bt;
    if (psg_type_kind(t) != PSG_TYPE_TENSOR) return fail(x, PSG_ERR_UNSUPPORTED, "nested tuple results are not exported");
    /* Every output gets its own Identity, so outputs never alias inputs,
     * initializers or each other. */
    Onnx__NodeProto *id = node(x, "Identity", 1, 1);
    if (!id) return PSG_ERR_NOMEM;
    id->input[0] = res[i];
    const char *want = listed_output_name(mod, i, nb);
    char *fallback = nb == 1 ? "output" : estr(x, "output_%zu", i);
    if (!fallback || !(id->output[0] = take_name(x, taken, want ? want : fallback, fallback))) return PSG_ERR_NOMEM;
    vpush(x, outputs, value_info(x, id->output[0], t));
  }
  if (x->oom) return PSG_ERR_NOMEM;
  g->name = "main";
  g->n_node = x->nodes.len;
  g->node = (Onnx__NodeProto **)settle(x, &x->nodes);
  g->n_initializer = x->inits.len;
  g->initializer = (Onnx__TensorProto **)settle(x, &x->inits);
  g->n_input = x->inputs.len;
  g->input = (Onnx__ValueInfoProto **)settle(x, &x->inputs);
  g->n_output = outputs->len;
  g->output = (Onnx__ValueInfoProto **)settle(x, outputs);
  return x->oom ? PSG_ERR_NOMEM : PSG_OK;
}

static psg_status build_graph(exporter *x, const psg_module *mod, const psg_expr *fn, Onnx__GraphProto *g,
                              ptr_vec *outputs) {
  psgi_map taken; /* the model's value names: inputs first, outputs last */
  psgi_map_init(&taken, x->ctx);
  psg_status st = build_body(x, mod, fn, g, outputs, &taken);
  psgi_map_fini(&taken);
  return st;
}

/* protobuf-c packs into a house string builder. */
psg_status psg_onnx_export(psg_ctx *ctx, const psg_module *mod, void **out_bytes, size_t *out_len) {
  if (!out_bytes || !out_len) return PSG_ERR_INVALID_ARGUMENT;
  *out_bytes = NULL;
  *out_len = 0;
  if (!ctx || !mod) return PSG_ERR_INVALID_ARGUMENT;
  const psg_expr *fn = psg_module_lookup(mod, "main");
  if (!fn || psg_expr_kind(fn) != PSG_EXPR_FUNCTION) return psg_ctx_fail(ctx, PSG_ERR_NOT_FOUND, "ONNX export: the module has no @main");
  psg_pass *infer = NULL;
  psg_module *typed = NULL;
  psg_status st = psg_pass_get(ctx, "InferType", NULL, &infer);
  if (!st) st = psg_pass_run(infer, (psg_module *)mod, NULL, &typed);
  psg_pass_release(infer);
  if (st) return st == PSG_ERR_NOMEM ? psg_ctx_fail(ctx, st, "ONNX export: out of memory") : PSG_ERR_TYPE;
  fn = psg_module_lookup(typed, "main");
  exporter x;
  memset(&x, 0, sizeof x);
  x.ctx = ctx;
  psgi_arena_init(&x.arena, ctx);
  psgi_map *maps[] = {&x.values, &x.uses, &x.bound, &x.made, &x.named, &x.mains, &x.convs};
  for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) psgi_map_init(maps[i], ctx);
  Onnx__ModelProto m;
  Onnx__GraphProto g;
  Onnx__OperatorSetIdProto ops;
  Onnx__OperatorSetIdProto *opsp = &ops;
  onnx__model_proto__init(&m);
  onnx__graph_proto__init(&g);
  onnx__operator_set_id_proto__init(&ops);
  ops.domain = "";
  ops.has_version = 1;
  ops.version = 14; /* 17 when a LayerNormalization was written (below) */
  m.has_ir_version = 1;
  m.ir_version = 8;
  m.producer_name = "passage";
  m.producer_version = (char *)psg_version();
  m.opset_import = &opsp;
  m.n_opset_import = 1;
  m.graph = &g;
  ptr_vec outputs = {0};
  x.opset = 14;
  st = PSGI_VEC_PUSH(ctx, &x.active, 0) ? PSG_OK : PSG_ERR_NOMEM; /* the main graph's scope */
  if (!st) st = build_graph(&x, typed, fn, &g, &outputs);
  if (!st && x.errors) st = PSG_ERR_UNSUPPORTED;
  if (!st) st = onnxi_export_tidy(ctx, &g, tidy_alloc, &x);
  if (!st) st = onnxi_export_names(ctx, &g, kept_name, tidy_alloc, &x);
  ops.version = x.opset;
  if (!st) {
    /* Packed once into a block of the exact size, which leaves through
     * psg_free (no growing buffer, no copy). */
    size_t len = onnx__model_proto__get_packed_size(&m);
    uint8_t *bytes = psgi_result_alloc(len);
    if (bytes) {
      *out_len = onnx__model_proto__pack(&m, bytes);
      *out_bytes = bytes;
    } else {
      st = PSG_ERR_NOMEM;
    }
  }
  PSGI_VEC_FREE(ctx, &outputs);
  PSGI_VEC_FREE(ctx, &x.nodes);
  PSGI_VEC_FREE(ctx, &x.inits);
  PSGI_VEC_FREE(ctx, &x.inputs);
  PSGI_VEC_FREE(ctx, &x.active);
  for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) psgi_map_fini(maps[i]);
  psgi_arena_fini(&x.arena);
  psg_module_release(typed);
  if (st == PSG_ERR_NOMEM) psg_ctx_fail(ctx, st, "ONNX export: out of memory");
  return st;
}

psg_status psg_onnx_export_file(psg_ctx *ctx, const psg_module *mod, const char *path) {
  void *bytes = NULL;
  size_t len = 0;
  if (!path) return PSG_ERR_INVALID_ARGUMENT;
  psg_status st = psg_onnx_export(ctx, mod, &bytes, &len);
  if (st) return st;
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(bytes, 1, len, f) != len) st = psg_ctx_fail(ctx, PSG_ERR_IO, "%s: cannot write", path);
  if (f && fclose(f) && !st) st = psg_ctx_fail(ctx, PSG_ERR_IO, "%s: cannot write", path);
  psg_free(bytes);
  return st;
}
