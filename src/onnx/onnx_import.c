/* Passage ONNX frontend — the importer driver (issue 6): decode with
 * protobuf-c, check the opset, report every unsupported op and attribute at
 * once, bind graph inputs (with --input-shape bindings) and initializers,
 * order the nodes topologically (dangling names and cycles are diagnostics),
 * convert each node, and build @main. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h> /* strtoll */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "onnx_internal.h"

/* Support check: every unsupported op and attribute, all at once. -------- */

static psg_status check_support(onnx_imp *im, const Onnx__GraphProto *root) {
  /* Subgraphs with their nesting depth: If branches are converted by nested
   * calls (C recursion), so the depth is bounded here, before conversion. */
  typedef struct nested {
    const Onnx__GraphProto *g;
    size_t depth;
  } nested;
  PSGI_VEC(nested) stack = {0};
  psgi_buf keys; /* the "domain.op" of each unsupported op reported already, NUL-separated */
  psgi_buf_init(&keys, im->ctx);
  int bad = 0;
  psg_status st = PSGI_VEC_PUSH(im->ctx, &stack, ((nested){root, 0})) ? PSG_OK : PSG_ERR_NOMEM;
  PSGI_VEC(size_t) key_at = {0}; /* where each starts (the buffer moves as it grows) */
  while (!st && stack.len) {
    nested top = stack.data[--stack.len];
    const Onnx__GraphProto *g = top.g;
    for (size_t i = 0; i < g->n_node && !st; i++) {
      const Onnx__NodeProto *n = g->node[i];
      const char *op = n->op_type ? n->op_type : "";
      const char *dom = n->domain ? n->domain : "";
      const onnx_op_entry *e = dom[0] && strcmp(dom, "ai.onnx") ? NULL : onnxi_find_op(op);
      if (!e) {
        size_t at = keys.len;
        if (!psgi_buf_printf(&keys, "%s%s%s", dom, dom[0] ? "." : "", op) || !psgi_buf_putc(&keys, 0)) {
          st = PSG_ERR_NOMEM;
          break;
        }
        bool fresh = true;
        for (size_t k = 0; k < key_at.len && fresh; k++) fresh = strcmp(keys.data + key_at.data[k], keys.data + at) != 0;
        if (!fresh) {
          keys.len = at;
          continue;
        }
        if (!PSGI_VEC_PUSH(im->ctx, &key_at, at)) {
          st = PSG_ERR_NOMEM;
          break;
        }
        im->node = n;
        onnxi_fail(im, PSG_ERR_UNSUPPORTED, "unsupported operator %s%s%s", dom, dom[0] ? "." : "", op);
        bad++;
        continue;
      }
      for (size_t a = 0; a < n->n_attribute; a++) {
        const Onnx__AttributeProto *at = n->attribute[a];
        bool known = false;
        for (const char *const *k = e->attrs; k && *k && !known; k++) known = at->name && !strcmp(*k, at->name);
        if (!known) {
          im->node = n;
          onnxi_fail(im, PSG_ERR_UNSUPPORTED, "unsupported attribute '%s'", at->name ? at->name : "");
          bad++;
        }
        if (at->g && top.depth == ONNX_MAX_SUBGRAPH_DEPTH) {
          im->node = n;
          st = onnxi_fail(im, PSG_ERR_UNSUPPORTED, "subgraphs nested more than %d deep", ONNX_MAX_SUBGRAPH_DEPTH);
          break;
        }
        if (at->g && !PSGI_VEC_PUSH(im->ctx, &stack, ((nested){at->g, top.depth + 1}))) {
          st = PSG_ERR_NOMEM;
          break;
        }
      }
    }
  }
  im->node = NULL;
  PSGI_VEC_FREE(im->ctx, &stack);
  PSGI_VEC_FREE(im->ctx, &key_at);
  psgi_buf_fini(&keys);
  if (st) return st;
  return bad ? PSG_ERR_UNSUPPORTED : PSG_OK;
}

/* Topological order ---------------------------------------------------------
 * Per node, the producers of the names it reads (its subgraphs' reads
 * included: a branch reading an outer value must come after its producer). */
typedef PSGI_VEC(size_t) size_vec;
typedef struct order_state {
  psg_ctx *ctx;
  psgi_map prod;   /* output name -> producing node's index + 1 */
  size_t self;
  size_t *indeg;
  size_vec *users; /* per producer: its consumers */
  PSGI_VEC(const Onnx__GraphProto *) stack;
  bool oom;
} order_state;

static size_t producer_of(const order_state *s, const char *name) {
  psgi_map_entry *e = psgi_map_get_str(&s->prod, name, strlen(name));
  return e ? (size_t)(uintptr_t)e->value : 0;
}

static void read_name(order_state *s, const char *name) {
  size_t p = name[0] ? producer_of(s, name) : 0;
  if (!p--) return;
  if (p == s->self) { /* reading its own output: a cycle of one, left unordered below */
    s->indeg[s->self]++;
    return;
  }
  if (!PSGI_VEC_PUSH(s->ctx, &s->users[p], s->self)) {
    s->oom = true;
    return;
  }
  s->indeg[s->self]++;
}

/* The names node `n` reads, its subgraphs' reads included, as edges. */
static void node_reads(order_state *s, const Onnx__NodeProto *n) {
  for (size_t i = 0; i < n->n_input; i++) read_name(s, n->input[i]);
  s->stack.len = 0;
  for (size_t a = 0; a < n->n_attribute; a++)
    if (n->attribute[a]->g && !PSGI_VEC_PUSH(s->ctx, &s->stack, n->attribute[a]->g)) s->oom = true;
  while (s->stack.len && !s->oom) {
    const Onnx__GraphProto *g = s->stack.data[--s->stack.len];
    for (size_t i = 0; i < g->n_node; i++) {
      const Onnx__NodeProto *m = g->node[i];
      for (size_t k = 0; k < m->n_input; k++) read_name(s, m->input[k]);
      for (size_t a = 0; a < m->n_attribute; a++)
        if (m->attribute[a]->g && !PSGI_VEC_PUSH(s->ctx, &s->stack, m->attribute[a]->g)) s->oom = true;
    }
  }
}

/* Topological order of g's nodes into `order`; diagnostics for duplicate
 * outputs and cycles. */
static psg_status order_nodes(onnx_imp *im, const Onnx__GraphProto *g, size_t *order) {
  size_t n = g->n_node;
  order_state s = {.ctx = im->ctx};
  psgi_map_init(&s.prod, im->ctx);
  s.indeg = psgi_calloc(im->ctx, psgi_mul_size(n + 1, sizeof *s.indeg));
  s.users = psgi_calloc(im->ctx, psgi_mul_size(n + 1, sizeof *s.users));
  psg_status st = s.indeg && s.users ? PSG_OK : PSG_ERR_NOMEM;
  for (size_t i = 0; i < n && !st; i++) {
    const Onnx__NodeProto *nd = g->node[i];
    for (size_t k = 0; k < nd->n_output; k++) {
      const char *o = nd->output[k];
      if (!o[0]) continue;
      bool fresh = false;
      psgi_map_entry *e = psgi_map_put_str(&s.prod, o, strlen(o), &fresh);
      if (!e) {
        st = PSG_ERR_NOMEM;
        break;
      }
      if (!fresh || onnxi_map_get(&im->values, o)) {
        im->node = nd;
        st = onnxi_fail(im, PSG_ERR_PARSE, "output '%s' is already defined", o);
        break;
      }
      e->value = (void *)(uintptr_t)(i + 1);
    }
  }
  for (size_t i = 0; i < n && !st; i++) {
    s.self = i;
    node_reads(&s, g->node[i]);
    if (s.oom) st = PSG_ERR_NOMEM;
  }
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < n && !st; i++)
    if (s.indeg[i] == 0) order[tail++] = i;
  while (!st && head < tail) {
    size_t v = order[head++];
    for (size_t k = 0; k < s.users[v].len; k++)
      if (--s.indeg[s.users[v].data[k]] == 0) order[tail++] = s.users[v].data[k];
  }
  if (!st && tail < n) {
    for (size_t i = 0; i < n; i++)
      if (s.indeg[i]) {
        im->node = g->node[i];
        st = onnxi_fail(im, PSG_ERR_PARSE, "is part of a cycle: its inputs depend on its own outputs");
        break;
      }
  }
  im->node = NULL;
  for (size_t i = 0; s.users && i < n; i++) PSGI_VEC_FREE(im->ctx, &s.users[i]);
  psgi_free(im->ctx, s.indeg);
  psgi_free(im->ctx, s.users);
  PSGI_VEC_FREE(im->ctx, &s.stack);
  psgi_map_fini(&s.prod);
  return st;
}

static psg_status convert_node(onnx_imp *im, const Onnx__NodeProto *n) {
  const onnx_op_entry *e = onnxi_find_op(n->op_type);
  im->node = n;
  /* Converters may set a few outputs the node does not name (a node with no
   * outputs still gets outs[0]; LSTM sets its three): ONNX_MAX_OUTS slots at
   * least. */
  size_t nouts = n->n_output > ONNX_MAX_OUTS ? n->n_output : ONNX_MAX_OUTS;
  const oval **ins = psgi_calloc(im->ctx, psgi_mul_size(n->n_input + 1, sizeof *ins));
  oval *outs = psgi_calloc(im->ctx, psgi_mul_size(nouts, sizeof *outs));
  psg_status st = ins && outs ? PSG_OK : PSG_ERR_NOMEM;
  for (size_t i = 0; i < n->n_input && !st; i++) {
    if (!n->input[i][0]) continue;
    ins[i] = onnxi_map_get(&im->values, n->input[i]);
    if (!ins[i])
      st = onnxi_fail(im, PSG_ERR_PARSE, "input '%s' is not produced by any node, initializer or graph input",
                      n->input[i]);
  }
  size_t ndiag = psg_ctx_diag_count(im->ctx);
  if (!st) st = e->fn(im, n, ins, n->n_input, outs);
  /* A library call that failed without a word still gets one, naming the node. */
  if (st && st != PSG_ERR_NOMEM && !onnxi_error_since(im->ctx, ndiag)) st = onnxi_fail(im, st, "%s", psg_status_str(st));
  for (size_t k = 0; k < n->n_output && !st; k++) {
    if (!n->output[k][0]) continue;
    if (!outs[k].e) {
      st = onnxi_fail(im, PSG_ERR_UNSUPPORTED, "output %zu ('%s') is not supported", k, n->output[k]);
      break;
    }
    st = onnxi_map_put(&im->values, n->output[k], outs[k]);
    outs[k].e = NULL;
  }
  /* All slots: a converter may set outputs the node does not name (a node
   * with no outputs still gets outs[0]). */
  for (size_t k = 0; outs && k < nouts; k++) onnxi_val_release(&outs[k]);
  psgi_free(im->ctx, outs);
  psgi_free(im->ctx, ins);
  im->node = NULL;
  return st;
}

static psg_status add_initializers(onnx_imp *im, const Onnx__GraphProto *g) {
  for (size_t i = 0; i < g->n_initializer; i++) {
    const Onnx__TensorProto *tp = g->initializer[i];
    const char *name = tp->name ? tp->name : "";
    char what[300];
    snprintf(what, sizeof what, "initializer '%s'", name);
    if (!name[0]) return onnxi_fail(im, PSG_ERR_PARSE, "an initializer has no name");
    if (onnxi_map_get(&im->values, name)) return onnxi_fail(im, PSG_ERR_PARSE, "initializer '%s' is defined twice", name);
    psg_tensor *t = NULL;
    oval v = {0};
    psg_status st = onnxi_tensor_from_proto(im, tp, what, &t);
    if (!st) st = onnxi_const_val(im, t, &v);
    psg_tensor_release(t);
    if (!st) st = onnxi_map_put(&im->values, name, v);
    if (st) return st;
  }
  return PSG_OK;
}

psg_status onnxi_import_nodes(onnx_imp *im, const Onnx__GraphProto *g, oval *outs) {
  psg_status st = add_initializers(im, g);
  if (st) return st;
  size_t *order = psgi_alloc(im->ctx, psgi_mul_size(g->n_node + 1, sizeof *order));
  if (!order) return PSG_ERR_NOMEM;
  st = order_nodes(im, g, order);
  for (size_t i = 0; i < g->n_node && !st; i++) st = convert_node(im, g->node[order[i]]);
  psgi_free(im->ctx, order);
  for (size_t i = 0; i < g->n_output && !st; i++) {
    const char *name = g->output[i]->name ? g->output[i]->name : "";
    oval *v = onnxi_map_get(&im->values, name);
    if (!v) {
      st = onnxi_fail(im, PSG_ERR_PARSE, "graph output '%s' is not produced by any node, initializer or input", name);
      break;
    }
    outs[i] = *v;
    psg_expr_retain(outs[i].e);
  }
  return st;
}

/* Graph inputs ------------------------------------------------------------ */

/* The binding "name=d0,d1,..." for `name`, parsed into dims, and its index in
 * *which; -1 if none, -2 if malformed. */
static int find_binding(const psg_onnx_import_opts *o, const char *name, int64_t *dims, bool *used, size_t *which) {
  for (size_t i = 0; o && i < o->num_input_shapes; i++) {
    const char *b = o->input_shapes[i], *eq = strrchr(b, '=');
    if (!eq || (size_t)(eq - b) != strlen(name) || strncmp(b, name, (size_t)(eq - b))) continue;
    used[i] = true;
    *which = i;
    int n = 0;
    const char *p = eq + 1;
    while (*p) {
      char *end;
      long long v = strtoll(p, &end, 10);
      if (end == p || v < 0 || n == PSG_MAX_RANK) return -2;
      dims[n++] = v;
      p = end;
      if (*p == ',') p++;
      else if (*p) return -2;
    }
    return n;
  }
  return -1;
}

/* What binding i came from, for diagnostics: the caller's origin or "--input-shape". */
static const char *binding_origin(const psg_onnx_import_opts *o, size_t i) {
  return o->input_shape_origins && o->input_shape_origins[i] ? o->input_shape_origins[i] : "--input-shape";
}

/* "(1, 3, ?, ?)": dims as a diagnostic shows them. */
static const char *format_dims(char *buf, size_t cap, const int64_t *dims, int nd) {
  size_t n = (size_t)snprintf(buf, cap, "(");
  for (int i = 0; i < nd && n < cap; i++)
    n += dims[i] < 0 ? (size_t)snprintf(buf + n, cap - n, "%s?", i ? ", " : "")
                     : (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)dims[i]);
  if (n < cap) snprintf(buf + n, cap - n, ")");
  return buf;
}

static psg_status add_input(onnx_imp *im, const Onnx__ValueInfoProto *vi, bool *used, psg_expr **param) {
  const char *name = vi->name ? vi->name : "";
  *param = NULL;
  if (!name[0]) return onnxi_fail(im, PSG_ERR_PARSE, "a graph input has no name");
  if (onnxi_map_get(&im->values, name)) return PSG_OK; /* an initializer (IR < 4 lists them as inputs) */
  const Onnx__TypeProto *tp = vi->type;
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "graph input '%s' is not a tensor", name);
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  int dtype = onnxi_dtype_from_onnx(tt->has_elem_type ? tt->elem_type : 0);
  if (dtype == PSG_DTYPE_INVALID)
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "graph input '%s' has unsupported element type %s", name,
                      onnxi_onnx_type_name(tt->elem_type));
  int64_t dims[PSG_MAX_RANK], bound[PSG_MAX_RANK];
  int nd = -1;
  if (tt->shape) {
    if (tt->shape->n_dim > PSG_MAX_RANK) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "graph input '%s' has too many dims", name);
    nd = (int)tt->shape->n_dim;
    for (int i = 0; i < nd; i++) {
      const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
      dims[i] = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0
                    ? d->dim_value : PSG_DIM_UNKNOWN;
    }
  }
  size_t which = 0;
  int nb = find_binding(im->opts, name, bound, used, &which);
  if (nb == -2) return onnxi_fail(im, PSG_ERR_INVALID_ARGUMENT, "--input-shape for '%s' is malformed (want NAME=D0,D1,...)", name);
  if (nb >= 0) {
    char given[160], declared[160];
    format_dims(given, sizeof given, bound, nb);
    format_dims(declared, sizeof declared, dims, nd < 0 ? 0 : nd);
    if (nd >= 0 && nb != nd)
      return onnxi_fail(im, PSG_ERR_INVALID_ARGUMENT, "%s gives '%s' rank %d, but the model says %d: shape %s, the model's %s",
                        binding_origin(im->opts, which), name, nb, nd, given, declared);
    for (int i = 0; i < nb; i++) {
      if (nd >= 0 && dims[i] >= 0 && dims[i] != bound[i])
        return onnxi_fail(im, PSG_ERR_INVALID_ARGUMENT,
                          "%s gives '%s' dim %d = %lld, but the model says %lld: shape %s, the model's %s",
                          binding_origin(im->opts, which), name, i, (long long)bound[i], (long long)dims[i], given, declared);
      dims[i] = bound[i];
    }
    nd = nb;
  }
  if (nd < 0) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "graph input '%s' has no shape (bind it with --input-shape %s=...)", name, name);
  const psg_type *t = NULL;
  psg_status st = psg_type_tensor(im->ctx, dims, nd, dtype, &t);
  if (!st) st = psg_var_create(im->ctx, name, t, NULL, param);
  if (!st) st = psg_expr_infer_type(*param, NULL); /* its annotation, recorded */
  if (st) return st;
  oval v = {*param, t};
  psg_expr_retain(*param);
  return onnxi_map_put(&im->values, name, v);
}

/* After a node failed to convert: the graph inputs whose dims are still
 * dynamic, the usual cause (a Reshape or Resize sized from an input's shape),
 * and how to bind them. */
static void note_dynamic_inputs(onnx_imp *im, psg_status st, psg_expr *const *params, size_t np) {
  im->node = NULL;
  for (size_t i = 0; i < np; i++) {
    const psg_type *t = psg_var_type(params[i]);
    int64_t dims[PSG_MAX_RANK];
    int nd = psg_type_ndim(t);
    bool dynamic = false;
    for (int d = 0; d < nd; d++) dynamic |= (dims[d] = psg_type_dim(t, d)) < 0;
    char shown[160];
    if (dynamic)
      onnxi_fail(im, st, "graph input '%s' has dynamic dims %s: bind them (--input-shape %s=D0,D1,..., or in passage run "
                 "an --input %s=FILE.npy array)", psg_var_name(params[i]), format_dims(shown, sizeof shown, dims, nd),
                 psg_var_name(params[i]), psg_var_name(params[i]));
  }
}

/* The whole model ------------------------------------------------------------ */

/* `m` with the module attribute output_names: the graph's output names in
 * order, which the exporter gives the outputs back (parameters keep the
 * input names). */
static psg_status with_output_names(psg_ctx *ctx, const Onnx__GraphProto *g, psg_module *m, psg_module **out) {
  psg_attr **names = psgi_calloc(ctx, psgi_mul_size(g->n_output + 1, sizeof *names)), *list = NULL;
  psg_attrs *attrs = NULL;
  psg_status st = names ? PSG_OK : PSG_ERR_NOMEM;
  for (size_t i = 0; !st && i < g->n_output; i++) {
    const char *name = g->output[i]->name ? g->output[i]->name : "";
    st = psg_attr_string(ctx, name, strlen(name), &names[i]);
  }
  const char *key = ONNX_OUTPUT_NAMES;
  if (!st) st = psg_attr_list(ctx, names, g->n_output, &list);
  if (!st) st = psg_attrs_create(ctx, &key, &list, 1, &attrs);
  if (!st) st = psg_module_with_attrs(m, attrs, out);
  psg_attrs_release(attrs);
  psg_attr_release(list);
  for (size_t i = 0; names && i < g->n_output; i++) psg_attr_release(names[i]);
  psgi_free(ctx, names);
  return st;
}

static psg_status import_model(onnx_imp *im, psg_module **out) {
  Onnx__ModelProto *m = im->hold->model;
  psg_ctx *ctx = im->ctx;
  int64_t opset = -1;
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const char *d = m->opset_import[i]->domain ? m->opset_import[i]->domain : "";
    if ((!d[0] || !strcmp(d, "ai.onnx")) && m->opset_import[i]->has_version) opset = m->opset_import[i]->version;
  }
  if (opset < 0) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "the model imports no version of the default ONNX opset");
  if (opset < ONNX_MIN_OPSET || opset > ONNX_MAX_OPSET)
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "unknown opset %lld (supported: %d to %d)", (long long)opset, ONNX_MIN_OPSET,
                      ONNX_MAX_OPSET);
  im->opset = opset;
  const Onnx__GraphProto *g = m->graph;
  if (!g) return onnxi_fail(im, PSG_ERR_PARSE, "the model has no graph");
  if (g->n_output == 0) return onnxi_fail(im, PSG_ERR_PARSE, "the graph has no outputs");
  psg_status st = check_support(im, g);
  if (st) return st;
  st = add_initializers(im, g);
  if (st) return st;
  size_t nb = im->opts ? im->opts->num_input_shapes : 0;
  bool *used = psgi_calloc(ctx, nb + 1);
  psg_expr **params = psgi_calloc(ctx, psgi_mul_size(g->n_input + 1, sizeof *params));
  oval *outs = psgi_calloc(ctx, psgi_mul_size(g->n_output, sizeof *outs));
  psg_expr *body = NULL, *fn = NULL, *gv = NULL;
  psg_module *m0 = NULL, *m1 = NULL;
  size_t np = 0;
  if (!used || !params || !outs) st = PSG_ERR_NOMEM;
  for (size_t i = 0; i < g->n_input && !st; i++) {
    psg_expr *p = NULL;
    st = add_input(im, g->input[i], used, &p);
    if (p) params[np++] = p;
  }
  for (size_t i = 0; i < nb && !st; i++) {
    if (used[i]) continue;
    if (im->opts->input_shape_origins && im->opts->input_shape_origins[i])
      st = onnxi_fail(im, PSG_ERR_INVALID_ARGUMENT, "%s names no graph input", im->opts->input_shape_origins[i]);
    else
      st = onnxi_fail(im, PSG_ERR_INVALID_ARGUMENT, "--input-shape '%s' names no graph input", im->opts->input_shapes[i]);
  }
  /* The graph's nodes: a copy of the graph without its initializers (added above). */
  if (!st) {
    Onnx__GraphProto body_graph = *g;
    body_graph.n_initializer = 0;
    st = onnxi_import_nodes(im, &body_graph, outs);
    if (st && st != PSG_ERR_NOMEM) note_dynamic_inputs(im, st, params, np);
  }
  if (!st && g->n_output == 1) {
    body = outs[0].e;
    psg_expr_retain(body);
  } else if (!st) {
    psg_expr **fields = psgi_alloc(ctx, psgi_mul_size(g->n_output, sizeof *fields));
    if (!fields) st = PSG_ERR_NOMEM;
    for (size_t i = 0; !st && i < g->n_output; i++) fields[i] = outs[i].e;
    if (!st) st = psg_tuple_create(ctx, fields, g->n_output, NULL, &body);
    psgi_free(ctx, fields);
  }
  /* Typed when the whole graph is (psg_expr_infer_type on every node built),
   * with the return type InferType would write in: the first InferType then
   * has nothing to visit. */
  const psg_type *body_type = NULL;
  if (!st) st = psg_expr_infer_type(body, &body_type);
  if (!st) st = psg_function_create(ctx, params, np, body, body_type, NULL, NULL, &fn);
  if (!st) st = psg_expr_infer_type(fn, NULL);
  if (!st) st = psg_global_var_create(ctx, "main", NULL, &gv);
  if (!st) st = psg_module_create(ctx, &m0);
  if (!st) st = psg_module_add(m0, gv, fn, &m1);
  if (!st) st = with_output_names(ctx, g, m1, out);
  psg_module_release(m1);
  psg_module_release(m0);
  psg_expr_release(gv);
  psg_expr_release(fn);
  psg_expr_release(body);
  for (size_t i = 0; outs && i < g->n_output; i++) onnxi_val_release(&outs[i]);
  for (size_t i = 0; i < np; i++) psg_expr_release(params[i]);
  psgi_free(ctx, outs);
  psgi_free(ctx, params);
  psgi_free(ctx, used);
  return st;
}

psg_status psg_onnx_import(psg_ctx *ctx, const void *bytes, size_t len, const char *filename,
                           const psg_onnx_import_opts *opts, psg_module **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!ctx || (!bytes && len)) return PSG_ERR_INVALID_ARGUMENT;
  onnx_imp im;
  memset(&im, 0, sizeof im);
  im.ctx = ctx;
  im.filename = filename ? filename : "<onnx>";
  im.opts = opts;
  psg_pass_context *pc = psg_pass_context_current(ctx);
  im.max_constant_bytes = pc ? psg_pass_context_config_int(pc, "passage.max_constant_bytes") : (int64_t)256 << 20;
  size_t ndiag = psg_ctx_diag_count(ctx);
  if (len == 0) return onnxi_fail(&im, PSG_ERR_PARSE, "empty file: not an ONNX model");
  psg_status st = onnxi_holder_create(ctx, &im.hold);
  if (!st) {
    im.hold->model = onnx__model_proto__unpack(&im.hold->pb_alloc, len, bytes);
    /* protobuf-c cannot tell running out of memory from bad data */
    if (!im.hold->model) st = im.hold->pb_failed ? PSG_ERR_NOMEM : onnxi_fail(&im, PSG_ERR_PARSE, "not a valid ONNX ModelProto (truncated or corrupt protobuf data)");
  }
  onnxi_map_init(&im.values, ctx);
  if (!st) st = import_model(&im, out);
  onnxi_map_fini(&im.values);
  onnxi_holder_release(im.hold);
  if (!st && im.errors) st = PSG_ERR_PARSE;
  if (st) {
    psg_module_release(*out);
    *out = NULL;
  }
  if (st == PSG_ERR_NOMEM) psg_ctx_fail(ctx, st, "%s: ONNX import: out of memory", im.filename);
  else if (st && !onnxi_error_since(ctx, ndiag)) psg_ctx_fail(ctx, st, "%s: ONNX import failed: %s", im.filename, psg_status_str(st));
  return st;
}

/* The bytes of a regular file in memory from the context's allocator (with
 * the default allocator, a model's weights are then folded into memory the
 * file's bytes already touched, once they are freed); *buf is NULL for other
 * files (pipes, devices), read by the caller. */
static psg_status read_regular_file(psg_ctx *ctx, FILE *f, const char *path, char **buf, size_t *len) {
  struct stat sb;
  *buf = NULL;
  *len = 0;
  if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0) return PSG_OK;
  if ((uintmax_t)sb.st_size >= SIZE_MAX) return psg_ctx_fail(ctx, PSG_ERR_NOMEM, "%s: file too large", path);
  size_t n = (size_t)sb.st_size;
  char *b = psg_ctx_malloc(ctx, n);
  if (!b) return PSG_ERR_NOMEM;
  size_t got = fread(b, 1, n, f);
  if (got != n || ferror(f)) {
    psg_ctx_free(ctx, b);
    return psg_ctx_fail(ctx, PSG_ERR_IO, "%s: read error", path);
  }
  *buf = b;
  *len = n;
  return PSG_OK;
}

psg_status psg_onnx_import_file(psg_ctx *ctx, const char *path, const psg_onnx_import_opts *opts, psg_module **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!ctx || !path) return PSG_ERR_INVALID_ARGUMENT;
  FILE *f = fopen(path, "rb");
  if (!f) return psg_ctx_fail(ctx, PSG_ERR_IO, "%s: cannot open file: %s", path, strerror(errno));
  char *whole = NULL;
  size_t whole_len = 0;
  psg_status st = read_regular_file(ctx, f, path, &whole, &whole_len);
  if (st || whole) {
    fclose(f);
    if (!st) st = psg_onnx_import(ctx, whole, whole_len, path, opts, out);
    psg_ctx_free(ctx, whole);
    return st;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0, got;
  do {
    if (len == cap) {
      cap = cap ? cap * 2 : 1 << 16;
      char *nb = psgi_realloc(ctx, buf, cap);
      if (!nb) {
        st = PSG_ERR_NOMEM;
        break;
      }
      buf = nb;
    }
    got = fread(buf + len, 1, cap - len, f);
    len += got;
  } while (got > 0);
  if (!st && ferror(f)) st = psg_ctx_fail(ctx, PSG_ERR_IO, "%s: read error: %s", path, strerror(errno));
  fclose(f);
  if (!st) st = psg_onnx_import(ctx, buf, len, path, opts, out);
  psgi_free(ctx, buf);
  return st;
}
