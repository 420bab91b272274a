/* Passage ONNX frontend — export (issue 6): @main of a typed module back to
 * an ONNX ModelProto (IR 8, opset 14) with protobuf-c. A post-order walk
 * gives every expression an ONNX value name and emits one or a few nodes per
 * call (the per-op converters are in onnx_export_ops.c); parameters keep their
 * names, constants become initializers, shapes come from the checked types,
 * and fused (Primitive) functions are inlined. This file is the walk, the
 * graph it builds and the packing; everything the walk allocates lives in one
 * arena freed after packing. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "onnx_export_internal.h"
#include "onnx_export_rnn.h"
#include "onnx_export_names.h"
#include "onnx_export_tidy.h"

enum {
  MAX_IF_DEPTH = 63,
  MIN_ATTRS = 4,    /* a node's first attribute slots (onnx_export_rnn.c's LSTM uses 2) */
  MIN_ARG_NAMES = 8 /* see onnxi_ex_arg_names */
};

/* The ONNX value name(s) of an expression and the graph (scope) it was
 * written in. */
typedef struct written {
  char **names; /* tuples: one name per field */
  size_t count;
  unsigned scope;
} written;

/* Zeroed arena memory; NULL (and x->oom) when out of memory. */
void *onnxi_ex_alloc(onnxi_exporter *x, size_t n) {
  void *p = psgi_arena_alloc(&x->arena, n);
  if (!p) {
    x->oom = true;
    return NULL;
  }
  memset(p, 0, n);
  return p;
}

char *onnxi_ex_str(onnxi_exporter *x, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = n >= 0 ? onnxi_ex_alloc(x, (size_t)n + 1) : NULL;
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

static void vpush(onnxi_exporter *x, onnxi_ptr_vec *v, void *item) {
  if (!item || !PSGI_VEC_PUSH(x->ctx, v, item)) x->oom = true;
}

/* The vector's items moved into the arena (where the graph keeps them until
 * packing); the vector is left empty. */
static void **settle(onnxi_exporter *x, onnxi_ptr_vec *v) {
  void **items = onnxi_ex_alloc(x, (v->len + 1) * sizeof *items);
  if (items && v->len) memcpy(items, v->data, v->len * sizeof *items);
  PSGI_VEC_FREE(x->ctx, v);
  return items;
}

static unsigned current_scope(const onnxi_exporter *x) { return x->active.data[x->active.len - 1]; }

static void set_names(onnxi_exporter *x, const psg_expr *e, char **names, size_t n) {
  psgi_map_entry *en = psgi_map_put_ptr(&x->values, e, NULL);
  written *w = !en ? NULL : en->value ? en->value : onnxi_ex_alloc(x, sizeof *w);
  if (!w) {
    x->oom = true;
    return;
  }
  en->value = w;
  w->names = names, w->count = n, w->scope = current_scope(x);
}

/* True if `e` was written in the current graph or one enclosing it. */
static bool visible(const onnxi_exporter *x, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&x->values, e);
  if (!en) return false;
  const written *w = en->value;
  for (size_t d = x->active.len; d-- > 0;)
    if (x->active.data[d] == w->scope) return true;
  return false;
}

char **onnxi_ex_get_names(const onnxi_exporter *x, const psg_expr *e, size_t *n) {
  psgi_map_entry *en = psgi_map_get_ptr(&x->values, e);
  if (!en) return NULL;
  const written *w = en->value;
  *n = w->count;
  return w->names;
}

void *onnxi_ex_map_get(const psgi_map *m, const void *k) {
  psgi_map_entry *e = psgi_map_get_ptr(m, k);
  return e ? e->value : NULL;
}

void onnxi_ex_map_put(onnxi_exporter *x, psgi_map *m, const void *k, void *v) {
  psgi_map_entry *e = psgi_map_put_ptr(m, k, NULL);
  if (e) e->value = v;
  else x->oom = true;
}

size_t onnxi_ex_uses_of(const onnxi_exporter *x, const psg_expr *e) { return (size_t)(uintptr_t)onnxi_ex_map_get(&x->uses, e); }

static void use(onnxi_exporter *x, const psg_expr *e) {
  if (e) onnxi_ex_map_put(x, &x->uses, e, (void *)(uintptr_t)(onnxi_ex_uses_of(x, e) + 1));
}

/* Use counts: each node's parents (the visitor reaches each node once). */
static psg_status count_post(psg_visitor *v, const psg_expr *e) {
  onnxi_exporter *x = v->user;
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
const psg_expr *onnxi_ex_resolve(const onnxi_exporter *x, const psg_expr *e) {
  const psg_expr *b;
  while (psg_expr_kind(e) == PSG_EXPR_VAR && (b = onnxi_ex_map_get(&x->bound, e))) e = b;
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
  onnxi_exporter *x = user;
  *main = onnxi_ex_map_get(&x->mains, n) != NULL;
  return onnxi_ex_map_get(&x->named, n);
}

bool onnxi_ex_is_op_call(const psg_expr *e, const char *name) {
  return psg_expr_kind(e) == PSG_EXPR_CALL && psg_expr_kind(psg_call_get_callee(e)) == PSG_EXPR_OP &&
         !strcmp(psg_op_name(psg_call_get_callee(e)), name);
}

static void *tidy_alloc(void *user, size_t n) { return onnxi_ex_alloc(user, n); }

psg_status onnxi_ex_fail(onnxi_exporter *x, psg_status code, const char *fmt, ...) {
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

Onnx__NodeProto *onnxi_ex_node(onnxi_exporter *x, const char *op, int nin, int nout) {
  Onnx__NodeProto *n = onnxi_ex_alloc(x, sizeof *n);
  if (!n) return NULL;
  onnx__node_proto__init(n);
  n->op_type = (char *)op;
  n->name = onnxi_ex_str(x, "%s_%u", op, x->counter++);
  if (x->span_name) onnxi_ex_map_put(x, &x->named, n, (void *)x->span_name);
  n->domain = "";
  n->input = onnxi_ex_alloc(x, (size_t)(nin + 1) * sizeof(char *));
  n->output = onnxi_ex_alloc(x, (size_t)(nout + 1) * sizeof(char *));
  n->attribute = onnxi_ex_alloc(x, MIN_ATTRS * sizeof(Onnx__AttributeProto *)); /* grows in onnxi_ex_attr() */
  n->n_input = (size_t)nin;
  n->n_output = (size_t)nout;
  for (int i = 0; n->output && i < nout; i++) n->output[i] = onnxi_ex_str(x, "psg_v%u", x->counter++);
  vpush(x, &x->nodes, n);
  return n->input && n->output && n->attribute ? n : NULL;
}

Onnx__AttributeProto *onnxi_ex_attr(onnxi_exporter *x, Onnx__NodeProto *n, const char *name, Onnx__AttributeProto__AttributeType t) {
  if (!n) return NULL;
  size_t k = n->n_attribute;
  if (k >= MIN_ATTRS && !(k & (k - 1))) { /* full at a power of two: double */
    Onnx__AttributeProto **more = onnxi_ex_alloc(x, 2 * k * sizeof *more);
    if (!more) return NULL;
    memcpy(more, n->attribute, k * sizeof *more);
    n->attribute = more;
  }
  Onnx__AttributeProto *a = onnxi_ex_alloc(x, sizeof *a);
  if (!a) return NULL;
  onnx__attribute_proto__init(a);
  a->name = (char *)name;
  a->has_type = 1;
  a->type = t;
  n->attribute[n->n_attribute++] = a;
  return a;
}

/* An initializer holding `nbytes` of `data`; returns its name. */
const char *onnxi_ex_init_raw(onnxi_exporter *x, int dtype, const int64_t *shape, int nd, const void *data, size_t nbytes) {
  Onnx__TensorProto *t = onnxi_ex_alloc(x, sizeof *t);
  if (!t) return "";
  onnx__tensor_proto__init(t);
  t->name = onnxi_ex_str(x, "psg_c%u", x->counter++);
  t->has_data_type = 1;
  t->data_type = onnxi_dtype_to_onnx(dtype);
  t->dims = onnxi_ex_alloc(x, (size_t)(nd + 1) * sizeof(int64_t));
  if (t->dims && nd) memcpy(t->dims, shape, (size_t)nd * sizeof(int64_t));
  t->n_dims = (size_t)nd;
  t->has_raw_data = 1;
  t->raw_data.len = nbytes;
  t->raw_data.data = nbytes ? (uint8_t *)data : NULL; /* borrowed: the module outlives packing */
  vpush(x, &x->inits, t);
  return t->name ? t->name : "";
}

static Onnx__ValueInfoProto *value_info(onnxi_exporter *x, const char *name, const psg_type *t) {
  Onnx__ValueInfoProto *vi = onnxi_ex_alloc(x, sizeof *vi);
  Onnx__TypeProto *tp = onnxi_ex_alloc(x, sizeof *tp);
  Onnx__TypeProto__Tensor *tt = onnxi_ex_alloc(x, sizeof *tt);
  Onnx__TensorShapeProto *sp = onnxi_ex_alloc(x, sizeof *sp);
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
  sp->dim = onnxi_ex_alloc(x, (size_t)(nd + 1) * sizeof *sp->dim);
  if (!sp->dim) return NULL;
  sp->n_dim = (size_t)nd;
  for (int i = 0; i < nd; i++) {
    Onnx__TensorShapeProto__Dimension *d = onnxi_ex_alloc(x, sizeof *d);
    if (!d) return NULL;
    onnx__tensor_shape_proto__dimension__init(d);
    if (psg_type_dim(t, i) >= 0) {
      d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      d->dim_value = psg_type_dim(t, i);
    } else {
      d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
      d->dim_param = onnxi_ex_str(x, "d%d", i);
    }
    sp->dim[i] = d;
  }
  return vi;
}

/* The walk: lets, Ifs and calls -------------------------------------------------- */

/* Emits the nodes of one call; its result names go to out_names and nout. */
static psg_status post(psg_visitor *v, const psg_expr *e);

static int pre(psg_visitor *v, const psg_expr *e);

static psg_status walk(onnxi_exporter *x, const psg_expr *e) {
  psg_visitor v = {pre, post, x};
  psg_status st = psg_visit(x->ctx, &v, e);
  return st ? st : x->aborted; /* a visit stopped by pre returns OK */
}

/* A let chain, as a loop (never recursion on its length): each value is
 * walked and its names become the variable's; the chain's names are those of
 * its final body. */
static psg_status export_let(onnxi_exporter *x, const psg_expr *e) {
  const psg_expr *cur = e;
  psg_status st = PSG_OK;
  while (!st && psg_expr_kind(cur) == PSG_EXPR_LET) {
    size_t k = 0;
    if ((st = walk(x, psg_let_get_value(cur)))) break;
    char **nm = onnxi_ex_get_names(x, psg_let_get_value(cur), &k);
    if (!nm) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "a let-bound value without an ONNX value");
    set_names(x, psg_let_get_var(cur), nm, k);
    cur = psg_let_get_body(cur);
  }
  if (!st) st = walk(x, cur);
  size_t k = 0;
  char **nm = st ? NULL : onnxi_ex_get_names(x, cur, &k);
  if (!st && !nm) st = onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "a let body without an ONNX value");
  if (!st) set_names(x, e, nm, k);
  return st;
}

/* If: the condition in the current graph, each branch a subgraph (ONNX
 * subgraphs may read outer values and initializers). */
static psg_status export_if(onnxi_exporter *x, const psg_expr *e) {
  psg_status st = walk(x, psg_if_get_cond(e));
  if (st) return st;
  size_t k = 0;
  /* ONNX's If takes any one-element condition: a reshape of one element to
   * the scalar Relay needs is not written (the tidy step drops it). */
  const psg_expr *ce = onnxi_ex_resolve(x, psg_if_get_cond(e)), *body = ce, *in = NULL;
  if (psg_expr_kind(ce) == PSG_EXPR_CALL && psg_expr_kind(psg_call_get_callee(ce)) == PSG_EXPR_FUNCTION)
    body = psg_function_get_body(psg_call_get_callee(ce)); /* a fused reshape */
  if ((onnxi_ex_is_op_call(body, "reshape") || onnxi_ex_is_op_call(body, "squeeze")) && psg_call_num_args(body) == 1) {
    in = psg_call_get_arg(body, 0);
    const psg_expr *fn = body == ce ? NULL : psg_call_get_callee(ce);
    for (size_t i = 0; fn && i < psg_function_num_params(fn); i++) /* else a value of the inlined body */
      if (psg_function_get_param(fn, i) == in) in = psg_call_get_arg(ce, i), fn = NULL;
  }
  const psg_type *it = in ? psg_expr_checked_type(in) : NULL;
  bool one = it && psg_type_kind(it) == PSG_TYPE_TENSOR && psg_type_is_static(it);
  for (int i = 0; one && i < psg_type_ndim(it); i++) one = psg_type_dim(it, i) == 1;
  char **inner = one ? onnxi_ex_get_names(x, in, &k) : NULL;
  if (inner && k == 1) ce = in;
  else ce = psg_if_get_cond(e);
  char **cond = onnxi_ex_get_names(x, ce, &k);
  if (!cond || k != 1) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "an If condition without an ONNX value");
  const psg_type *t = psg_expr_checked_type(e);
  size_t nout = t && psg_type_kind(t) == PSG_TYPE_TUPLE ? (size_t)psg_type_num_fields(t) : 1;
  Onnx__GraphProto *g[2];
  for (int b = 0; b < 2; b++) {
    const psg_expr *br = b ? psg_if_get_else(e) : psg_if_get_then(e);
    /* Nested Ifs are exported by nested walks (C recursion): bounded. */
    if (x->active.len == MAX_IF_DEPTH + 1)
      return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "Ifs nested more than %d deep", MAX_IF_DEPTH);
    if (!PSGI_VEC_PUSH(x->ctx, &x->active, ++x->nscopes)) return PSG_ERR_NOMEM;
    onnxi_ptr_vec saved = x->nodes;
    memset(&x->nodes, 0, sizeof x->nodes);
    st = walk(x, br);
    size_t n = 0;
    char **res = st ? NULL : onnxi_ex_get_names(x, br, &n);
    if (!st && (!res || n != nout)) st = onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "an If branch without ONNX values");
    g[b] = onnxi_ex_alloc(x, sizeof *g[b]);
    Onnx__ValueInfoProto **outs = onnxi_ex_alloc(x, (nout + 1) * sizeof *outs);
    if (!st && (!g[b] || !outs)) st = PSG_ERR_NOMEM;
    for (size_t i = 0; !st && i < nout; i++) {
      Onnx__NodeProto *id = onnxi_ex_node(x, "Identity", 1, 1);
      if (!id) st = PSG_ERR_NOMEM;
      else id->input[0] = res[i];
      const psg_type *ft = nout > 1 || (t && psg_type_kind(t) == PSG_TYPE_TUPLE) ? psg_type_field(t, (int)i) : t;
      if (!st && !(outs[i] = value_info(x, id->output[0], ft))) st = PSG_ERR_NOMEM;
    }
    if (!st) {
      onnx__graph_proto__init(g[b]);
      g[b]->name = onnxi_ex_str(x, "%s_branch_%u", b ? "else" : "then", x->counter++);
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
  Onnx__NodeProto *n = onnxi_ex_node(x, "If", 1, (int)nout);
  x->span_name = NULL;
  if (!n) return PSG_ERR_NOMEM;
  onnxi_ex_map_put(x, &x->mains, n, n);
  n->input[0] = cond[0];
  for (int b = 0; b < 2; b++) {
    Onnx__AttributeProto *a = onnxi_ex_attr(x, n, b ? "else_branch" : "then_branch", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
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
  onnxi_exporter *x = v->user;
  if (psg_expr_kind(e) != PSG_EXPR_VAR && visible(x, e)) return PSG_VISIT_SKIP_CHILDREN; /* written already */
  switch (psg_expr_kind(e)) {
  case PSG_EXPR_FUNCTION: return PSG_VISIT_SKIP_CHILDREN;
  case PSG_EXPR_LET: return (x->aborted = export_let(x, e)) ? PSG_VISIT_ABORT : PSG_VISIT_SKIP_CHILDREN;
  case PSG_EXPR_IF: return (x->aborted = export_if(x, e)) ? PSG_VISIT_ABORT : PSG_VISIT_SKIP_CHILDREN;
  default: return PSG_VISIT_CONTINUE;
  }
}

static psg_status inline_call(onnxi_exporter *x, const psg_expr *e, const psg_expr *fn, char ***out_names, size_t *nout) {
  size_t np = psg_function_num_params(fn), na = psg_call_num_args(e), k = 0;
  if (np != na) return onnxi_ex_fail(x, PSG_ERR_TYPE, "a function of %zu parameters called with %zu arguments", np, na);
  psg_expr *body = psg_function_get_body(fn);
  if (visible(x, body)) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "a function called at several sites is not exported");
  for (size_t i = 0; i < np; i++) {
    char **nm = onnxi_ex_get_names(x, psg_call_get_arg(e, i), &k);
    if (!nm) return onnxi_ex_fail(x, PSG_ERR_INTERNAL, "argument %zu (%s) has no value", i, psg_expr_kind_name(psg_expr_kind(psg_call_get_arg(e, i))));
    set_names(x, psg_function_get_param(fn, i), nm, k);
    onnxi_ex_map_put(x, &x->bound, psg_function_get_param(fn, i), psg_call_get_arg(e, i));
  }
  psg_status st = walk(x, body);
  if (st) return st;
  *out_names = onnxi_ex_get_names(x, body, nout);
  return *out_names ? PSG_OK : onnxi_ex_fail(x, PSG_ERR_INTERNAL, "a function body has no value");
}

static Onnx__NodeProto *node_cb(void *x, const char *op, int nin, int nout) { return onnxi_ex_node(x, op, nin, nout); }

/* Room for the ONNX value names of a call's arguments: one per argument and
 * at least MIN_ARG_NAMES, NULL where absent (a converter reads in[i] of the
 * inputs its op may have: nn.batch_norm's five). */
const char **onnxi_ex_arg_names(onnxi_exporter *x, const psg_expr *call) {
  size_t na = psg_call_num_args(call);
  return onnxi_ex_alloc(x, ((na > MIN_ARG_NAMES ? na : MIN_ARG_NAMES) + 1) * sizeof(const char *));
}

/* A Composite function (onnx.LSTM) is one node on its arguments (onnx_export_rnn.c). */
static psg_status composite_call(onnxi_exporter *x, const psg_expr *e, char ***out_names, size_t *nout) {
  const char **in = onnxi_ex_arg_names(x, e);
  size_t k = 0;
  if (!in) return PSG_ERR_NOMEM;
  for (size_t i = 0; i < psg_call_num_args(e); i++) {
    char **nm = onnxi_ex_get_names(x, psg_call_get_arg(e, i), &k);
    in[i] = nm && k == 1 ? nm[0] : NULL;
  }
  onnxi_export_api api = {x, node_cb, tidy_alloc};
  psg_status st = onnxi_export_composite(x->ctx, &api, e, in, out_names, nout);
  if (st) x->errors++;
  return st;
}

static psg_status export_call(onnxi_exporter *x, const psg_expr *e, char ***out_names, size_t *nout) {
  psg_expr *callee = psg_call_get_callee(e);
  if (onnxi_export_is_composite(callee)) return composite_call(x, e, out_names, nout);
  if (psg_expr_kind(callee) == PSG_EXPR_FUNCTION) return inline_call(x, e, callee, out_names, nout);
  if (psg_expr_kind(callee) != PSG_EXPR_OP)
    return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "calls of %s are not exported (run inlining first)", psg_expr_kind_name(psg_expr_kind(callee)));
  return onnxi_ex_op_call(x, e, out_names, nout);
}

static psg_status post(psg_visitor *v, const psg_expr *e) {
  onnxi_exporter *x = v->user;
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
    names = onnxi_ex_alloc(x, sizeof *names);
    if (names) names[0] = (char *)onnxi_ex_init_raw(x, psg_tensor_dtype(t), shape, psg_tensor_ndim(t), psg_tensor_data(t), psg_tensor_nbytes(t));
    break;
  }
  case PSG_EXPR_TUPLE: {
    n = psg_tuple_size(e);
    names = onnxi_ex_alloc(x, (n + 1) * sizeof *names);
    for (size_t i = 0; names && i < n; i++) {
      size_t k = 0;
      char **f = onnxi_ex_get_names(x, psg_tuple_get_field(e, i), &k);
      if (!f || k != 1) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "nested tuples are not exported");
      names[i] = f[0];
    }
    break;
  }
  case PSG_EXPR_TUPLE_GET_ITEM: {
    size_t k = 0;
    char **f = onnxi_ex_get_names(x, psg_tuple_get_item_get_tuple(e), &k);
    int idx = psg_tuple_get_item_index(e);
    if (!f || (size_t)idx >= k) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "TupleGetItem of an unexported tuple");
    names = onnxi_ex_alloc(x, sizeof *names);
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
  case PSG_EXPR_CONSTRUCTOR:
  case PSG_EXPR_MATCH:
  case PSG_EXPR_REF_CREATE:
  case PSG_EXPR_REF_READ:
  case PSG_EXPR_REF_WRITE:
  case PSG_EXPR_KIND_COUNT:
    return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "%s expressions are not exported", psg_expr_kind_name(psg_expr_kind(e)));
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
static char *take_name(onnxi_exporter *x, psgi_map *taken, const char *want, const char *fallback) {
  char *name = !want[0] || psgi_map_get_str(taken, want, strlen(want)) ? NULL : onnxi_ex_str(x, "%s", want);
  if (!name && !psgi_map_get_str(taken, fallback, strlen(fallback))) name = onnxi_ex_str(x, "%s", fallback);
  for (unsigned k = 1; !name && !x->oom; k++) {
    char *s = onnxi_ex_str(x, "%s_%u", fallback, k);
    if (s && !psgi_map_get_str(taken, s, strlen(s))) name = s;
  }
  if (name && !psgi_map_put_str(taken, name, strlen(name), NULL)) x->oom = true;
  return x->oom ? NULL : name;
}

/* Every value name written so far (initializers, node outputs, also inside
 * If branches) into `taken`. */
static void names_in_use(onnxi_exporter *x, psgi_map *taken) {
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

static psg_status build_body(onnxi_exporter *x, const psg_module *mod, const psg_expr *fn, Onnx__GraphProto *g,
                             onnxi_ptr_vec *outputs, psgi_map *taken) {
  size_t np = psg_function_num_params(fn);
  for (size_t i = 0; i < np; i++) {
    psg_expr *p = psg_function_get_param(fn, i);
    const psg_type *t = psg_expr_checked_type(p);
    if (!t || psg_type_kind(t) != PSG_TYPE_TENSOR) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "parameter %%%s is not a tensor", psg_var_name(p));
    char **names = onnxi_ex_alloc(x, sizeof *names);
    if (!names) return PSG_ERR_NOMEM;
    char *fallback = onnxi_ex_str(x, "input_%zu", i);
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
  char **res = onnxi_ex_get_names(x, body, &nb);
  const psg_type *bt = psg_expr_checked_type(body);
  if (!res) return onnxi_ex_fail(x, PSG_ERR_INTERNAL, "the body has no value");
  names_in_use(x, taken);
  for (size_t i = 0; i < nb; i++) {
    const psg_type *t = psg_type_kind(bt) == PSG_TYPE_TUPLE ? psg_type_field(bt, (int)i) : bt;
    if (psg_type_kind(t) != PSG_TYPE_TENSOR) return onnxi_ex_fail(x, PSG_ERR_UNSUPPORTED, "nested tuple results are not exported");
    /* Every output gets its own Identity, so outputs never alias inputs,
     * initializers or each other. */
    Onnx__NodeProto *id = onnxi_ex_node(x, "Identity", 1, 1);
    if (!id) return PSG_ERR_NOMEM;
    id->input[0] = res[i];
    const char *want = listed_output_name(mod, i, nb);
    char *fallback = nb == 1 ? "output" : onnxi_ex_str(x, "output_%zu", i);
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

static psg_status build_graph(onnxi_exporter *x, const psg_module *mod, const psg_expr *fn, Onnx__GraphProto *g,
                              onnxi_ptr_vec *outputs) {
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
  /* A lowered module (LowerTE's): TIR has no ONNX form. */
  for (size_t i = 0; i < psg_module_num_functions(mod); i++)
    if (!psg_module_get_function(mod, i))
      return psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED,
                          "ONNX export: @%s is a PrimFunc, which ONNX cannot express (a lowered module: its call_lowered "
                          "calls run TIR); export the module before LowerTE",
                          psg_global_var_name(psg_module_get_global_var(mod, i)));
  psg_pass *infer = NULL;
  psg_module *typed = NULL;
  psg_status st = psg_pass_get(ctx, "InferType", NULL, &infer);
  if (!st) st = psg_pass_run(infer, (psg_module *)mod, NULL, &typed);
  psg_pass_release(infer);
  if (st) return st == PSG_ERR_NOMEM ? psg_ctx_fail(ctx, st, "ONNX export: out of memory") : PSG_ERR_TYPE;
  fn = psg_module_lookup(typed, "main");
  onnxi_exporter x;
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
  onnxi_ptr_vec outputs = {0};
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
