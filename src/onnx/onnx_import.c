/* Passage ONNX frontend — the importer driver (issue 6): decode with
 * protobuf-c, check the opset, report every unsupported op and attribute at
 * once, bind graph inputs (with --input-shape bindings) and initializers,
 * order the nodes topologically (dangling names and cycles are diagnostics),
 * convert each node, and build @main. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "onnx_internal.h"

/* Name -> node index (open addressing), per graph. */
typedef struct name_index {
  const char **names;
  size_t *idx;
  size_t cap;
} name_index;

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static bool ni_init(name_index *m, size_t n) {
  m->cap = 16;
  while (m->cap < n * 2 + 2) m->cap *= 2;
  m->names = calloc(m->cap, sizeof *m->names);
  m->idx = calloc(m->cap, sizeof *m->idx);
  return m->names && m->idx;
}
static void ni_fini(name_index *m) {
  free(m->names);
  free(m->idx);
}
/* Returns the slot of `name` (found, or the empty slot where it belongs). */
static size_t ni_slot(const name_index *m, const char *name) {
  size_t i = hash_str(name) & (m->cap - 1);
  while (m->names[i] && strcmp(m->names[i], name)) i = (i + 1) & (m->cap - 1);
  return i;
}

/* Support check: every unsupported op and attribute, all at once. -------- */

static psg_status check_support(onnx_imp *im, const Onnx__GraphProto *root) {
  const Onnx__GraphProto *stack[64];
  size_t sp = 0;
  stack[sp++] = root;
  char seen[2048] = "";
  int bad = 0;
  while (sp) {
    const Onnx__GraphProto *g = stack[--sp];
    for (size_t i = 0; i < g->n_node; i++) {
      const Onnx__NodeProto *n = g->node[i];
      const char *op = n->op_type ? n->op_type : "";
      const char *dom = n->domain ? n->domain : "";
      const onnx_op_entry *e = dom[0] && strcmp(dom, "ai.onnx") ? NULL : onnxi_find_op(op);
      if (!e) {
        char key[300];
        snprintf(key, sizeof key, "|%s%s%s|", dom, dom[0] ? "." : "", op);
        if (!strstr(seen, key)) {
          if (strlen(seen) + strlen(key) < sizeof seen) strcat(seen, key);
          im->node = n;
          onnxi_fail(im, PSG_ERR_UNSUPPORTED, "unsupported operator %s%s%s", dom, dom[0] ? "." : "", op);
          bad++;
        }
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
        if (at->g) {
          if (sp == 64) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "subgraphs nested too deeply");
          stack[sp++] = at->g;
        }
      }
    }
  }
  im->node = NULL;
  return bad ? PSG_ERR_UNSUPPORTED : PSG_OK;
}

/* Names a node reads, its subgraphs' reads included (for ordering). */
typedef void (*read_fn)(void *user, const char *name);
static void node_reads(const Onnx__NodeProto *n, read_fn fn, void *user) {
  for (size_t i = 0; i < n->n_input; i++)
    if (n->input[i][0]) fn(user, n->input[i]);
  const Onnx__GraphProto *stack[64];
  size_t sp = 0;
  for (size_t a = 0; a < n->n_attribute; a++)
    if (n->attribute[a]->g && sp < 64) stack[sp++] = n->attribute[a]->g;
  while (sp) {
    const Onnx__GraphProto *g = stack[--sp];
    for (size_t i = 0; i < g->n_node; i++) {
      const Onnx__NodeProto *m = g->node[i];
      for (size_t k = 0; k < m->n_input; k++)
        if (m->input[k][0]) fn(user, m->input[k]);
      for (size_t a = 0; a < m->n_attribute; a++)
        if (m->attribute[a]->g && sp < 64) stack[sp++] = m->attribute[a]->g;
    }
  }
}

typedef struct order_state {
  const name_index *prod;
  size_t self;
  size_t *indeg;
  size_t **users; /* per producer: consumer list */
  size_t *nusers, *capusers;
  bool oom;
} order_state;

static void add_edge(void *user, const char *name) {
  order_state *s = user;
  size_t slot = ni_slot(s->prod, name);
  if (!s->prod->names[slot]) return;
  size_t p = s->prod->idx[slot];
  if (p == s->self) return; /* reading its own output: a cycle of one, caught below */
  if (s->nusers[p] == s->capusers[p]) {
    size_t nc = s->capusers[p] ? s->capusers[p] * 2 : 4;
    size_t *nu = realloc(s->users[p], nc * sizeof *nu);
    if (!nu) {
      s->oom = true;
      return;
    }
    s->users[p] = nu;
    s->capusers[p] = nc;
  }
  s->users[p][s->nusers[p]++] = s->self;
  s->indeg[s->self]++;
}

static void self_read(void *user, const char *name) {
  order_state *s = user;
  size_t slot = ni_slot(s->prod, name);
  if (s->prod->names[slot] && s->prod->idx[slot] == s->self) s->indeg[s->self]++;
}

/* Topological order of g's nodes into `order`; diagnostics for duplicate
 * outputs and cycles. */
static psg_status order_nodes(onnx_imp *im, const Onnx__GraphProto *g, size_t *order) {
  size_t n = g->n_node;
  name_index prod = {0};
  order_state s = {&prod, 0, calloc(n + 1, sizeof(size_t)), calloc(n + 1, sizeof(size_t *)),
                   calloc(n + 1, sizeof(size_t)), calloc(n + 1, sizeof(size_t)), false};
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += g->node[i]->n_output;
  psg_status st = PSG_OK;
  if (!s.indeg || !s.users || !s.nusers || !s.capusers || !ni_init(&prod, total)) st = PSG_ERR_NOMEM;
  for (size_t i = 0; i < n && !st; i++) {
    const Onnx__NodeProto *nd = g->node[i];
    for (size_t k = 0; k < nd->n_output; k++) {
      const char *o = nd->output[k];
      if (!o[0]) continue;
      size_t slot = ni_slot(&prod, o);
      if (prod.names[slot] || onnxi_map_get(&im->values, o)) {
        im->node = nd;
        st = onnxi_fail(im, PSG_ERR_PARSE, "output '%s' is already defined", o);
        break;
      }
      prod.names[slot] = o;
      prod.idx[slot] = i;
    }
  }
  for (size_t i = 0; i < n && !st; i++) {
    s.self = i;
    node_reads(g->node[i], add_edge, &s);
    node_reads(g->node[i], self_read, &s);
    if (s.oom) st = PSG_ERR_NOMEM;
  }
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < n && !st; i++)
    if (s.indeg[i] == 0) order[tail++] = i;
  while (!st && head < tail) {
    size_t v = order[head++];
    for (size_t k = 0; k < s.nusers[v]; k++)
      if (--s.indeg[s.users[v][k]] == 0) order[tail++] = s.users[v][k];
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
  for (size_t i = 0; s.users && i < n; i++) free(s.users[i]);
  free(s.indeg);
  free(s.users);
  free(s.nusers);
  free(s.capusers);
  ni_fini(&prod);
  return st;
}

static psg_status convert_node(onnx_imp *im, const Onnx__NodeProto *n) {
  const onnx_op_entry *e = onnxi_find_op(n->op_type);
  im->node = n;
  if (n->n_input > 64 || n->n_output > 64) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "too many inputs or outputs");
  const oval *ins[64];
  for (size_t i = 0; i < n->n_input; i++) {
    ins[i] = NULL;
    if (!n->input[i][0]) continue;
    ins[i] = onnxi_map_get(&im->values, n->input[i]);
    if (!ins[i])
      return onnxi_fail(im, PSG_ERR_PARSE, "input '%s' is not produced by any node, initializer or graph input",
                        n->input[i]);
  }
  oval outs[64];
  memset(outs, 0, sizeof outs);
  psg_status st = e->fn(im, n, ins, n->n_input, outs);
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
  for (size_t k = 0; k < 64; k++) onnxi_val_release(&outs[k]);
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
  size_t *order = malloc((g->n_node + 1) * sizeof *order);
  if (!order) return PSG_ERR_NOMEM;
  st = order_nodes(im, g, order);
  for (size_t i = 0; i < g->n_node && !st; i++) st = convert_node(im, g->node[order[i]]);
  free(order);
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
  bool *used = calloc(nb + 1, 1);
  psg_expr **params = calloc(g->n_input + 1, sizeof *params);
  oval *outs = calloc(g->n_output, sizeof *outs);
  psg_expr *body = NULL, *fn = NULL, *gv = NULL;
  psg_module *m0 = NULL;
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
    psg_expr **fields = malloc(g->n_output * sizeof *fields);
    if (!fields) st = PSG_ERR_NOMEM;
    for (size_t i = 0; !st && i < g->n_output; i++) fields[i] = outs[i].e;
    if (!st) st = psg_tuple_create(ctx, fields, g->n_output, NULL, &body);
    free(fields);
  }
  if (!st) st = psg_function_create(ctx, params, np, body, NULL, NULL, NULL, &fn);
  /* Typed when the whole graph is (psg_expr_infer_type on every node built):
   * the first InferType then has nothing to visit. */
  if (!st) st = psg_expr_infer_type(body, NULL);
  if (!st) st = psg_expr_infer_type(fn, NULL);
  if (!st) st = psg_global_var_create(ctx, "main", NULL, &gv);
  if (!st) st = psg_module_create(ctx, &m0);
  if (!st) st = psg_module_add(m0, gv, fn, out);
  psg_module_release(m0);
  psg_expr_release(gv);
  psg_expr_release(fn);
  psg_expr_release(body);
  for (size_t i = 0; outs && i < g->n_output; i++) onnxi_val_release(&outs[i]);
  for (size_t i = 0; i < np; i++) psg_expr_release(params[i]);
  free(outs);
  free(params);
  free(used);
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
  if (len == 0) return onnxi_fail(&im, PSG_ERR_PARSE, "empty file: not an ONNX model");
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, bytes);
  if (!m) return onnxi_fail(&im, PSG_ERR_PARSE, "not a valid ONNX ModelProto (truncated or corrupt protobuf data)");
  im.hold = malloc(sizeof *im.hold);
  if (!im.hold) {
    onnx__model_proto__free_unpacked(m, NULL);
    return PSG_ERR_NOMEM;
  }
  atomic_init(&im.hold->refs, 1);
  im.hold->model = m;
  psg_status st = import_model(&im, out);
  onnxi_map_fini(&im.values);
  onnxi_holder_release(im.hold);
  if (!st && im.errors) st = PSG_ERR_PARSE;
  if (st) {
    psg_module_release(*out);
    *out = NULL;
  }
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
  if (!f) return psg_ctx_fail(ctx, PSG_ERR_IO, "%s: cannot open file", path);
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
      char *nb = realloc(buf, cap);
      if (!nb) {
        st = PSG_ERR_NOMEM;
        break;
      }
      buf = nb;
    }
    got = fread(buf + len, 1, cap - len, f);
    len += got;
  } while (got > 0);
  if (!st && ferror(f)) st = psg_ctx_fail(ctx, PSG_ERR_IO, "%s: read error", path);
  fclose(f);
  if (!st) st = psg_onnx_import(ctx, buf, len, path, opts, out);
  free(buf);
  return st;
}
