/* Passage ONNX frontend — the exporter's last step (see onnx_export_tidy.h).
 * Values are SSA names, unique across the model and its subgraphs, so one
 * name table covers them all: for each name its producing node, its
 * initializer and how many readers it has (node inputs, graph outputs,
 * subgraph nodes reading outer values). */
#include <stdio.h>
#include <string.h>
#include "onnx_export_names.h"
#include "onnx_export_tidy.h"
#include "support/support.h"

typedef struct value {
  const char *name;
  Onnx__NodeProto *producer;
  size_t graph; /* the producer's graph */
  Onnx__TensorProto *init;
  size_t uses;
} value;

typedef struct tidy {
  value *slots;
  size_t cap;
  Onnx__GraphProto **graphs;
  size_t ngraphs;
  bool oom;
} tidy;

/* The entry of `name` (inserted when absent); NULL for "" (an absent input). */
static value *get(tidy *t, const char *name) {
  if (!name || !*name) return NULL;
  size_t i = onnxi_name_hash(name) & (t->cap - 1);
  while (t->slots[i].name && strcmp(t->slots[i].name, name)) i = (i + 1) & (t->cap - 1);
  t->slots[i].name = name;
  return &t->slots[i];
}

static void count_uses(tidy *t) {
  for (size_t i = 0; i < t->cap; i++) t->slots[i].uses = 0;
  for (size_t k = 0; k < t->ngraphs; k++) {
    Onnx__GraphProto *g = t->graphs[k];
    for (size_t i = 0; i < g->n_node; i++)
      for (size_t j = 0; j < g->node[i]->n_input; j++) {
        value *v = get(t, g->node[i]->input[j]);
        if (v) v->uses++;
      }
    for (size_t i = 0; i < g->n_output; i++) {
      value *v = get(t, g->output[i]->name);
      if (v) v->uses++;
    }
  }
}

/* A one-element float or double initializer equal to `want`. */
static bool init_is(tidy *t, const char *name, double want) {
  value *v = get(t, name);
  const Onnx__TensorProto *c = v ? v->init : NULL;
  if (!c || !c->has_raw_data) return false;
  int64_t numel = 1;
  for (size_t i = 0; i < c->n_dims; i++) numel *= c->dims[i];
  if (numel != 1) return false;
  double x;
  if (c->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT && c->raw_data.len == 4) {
    float f;
    memcpy(&f, c->raw_data.data, 4);
    x = f;
  } else if (c->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE && c->raw_data.len == 8) {
    memcpy(&x, c->raw_data.data, 8);
  } else {
    return false;
  }
  return x == want;
}

/* The node making `name` when it is an `op` read by nobody else. */
static Onnx__NodeProto *only_use_of(tidy *t, const char *name, const char *op) {
  value *v = get(t, name);
  return v && v->producer && v->uses == 1 && !strcmp(v->producer->op_type, op) ? v->producer : NULL;
}

/* Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6), Mul's and Add's operands in either order. */
static bool hard_swish(tidy *t, Onnx__NodeProto *div, void *(*alloc)(void *, size_t), void *user) {
  if (strcmp(div->op_type, "Div") || div->n_input != 2 || !init_is(t, div->input[1], 6)) return false;
  Onnx__NodeProto *mul = only_use_of(t, div->input[0], "Mul");
  if (!mul || mul->n_input != 2) return false;
  for (int side = 0; side < 2; side++) {
    const char *x = mul->input[side];
    Onnx__NodeProto *clip = only_use_of(t, mul->input[1 - side], "Clip");
    if (!clip || clip->n_input != 3 || !init_is(t, clip->input[1], 0) || !init_is(t, clip->input[2], 6)) continue;
    Onnx__NodeProto *add = only_use_of(t, clip->input[0], "Add");
    if (!add || add->n_input != 2) continue;
    bool ok = false;
    for (int k = 0; k < 2 && !ok; k++) ok = !strcmp(add->input[k], x) && init_is(t, add->input[1 - k], 3);
    if (!ok) continue;
    char *name = alloc(user, strlen(div->name ? div->name : "") + 16);
    if (!name) {
      t->oom = true;
      return false;
    }
    snprintf(name, strlen(div->name ? div->name : "") + 16, "HardSwish_%s", div->name ? div->name : "");
    div->op_type = "HardSwish";
    div->name = name;
    div->input[0] = (char *)x;
    div->n_input = 1;
    div->n_attribute = 0;
    return true;
  }
  return false;
}

/* Removes the nodes marked dropped (no outputs left). */
static void compact(Onnx__GraphProto *g) {
  size_t w = 0;
  for (size_t i = 0; i < g->n_node; i++)
    if (g->node[i]->n_output) g->node[w++] = g->node[i];
  g->n_node = w;
}

/* The exporter gives each graph output an Identity of its own (outputs must
 * not alias inputs, initializers or each other). Where the Identity's input
 * is made by a node of the same graph and read by nothing else, that node
 * writes the output itself. */
static void merge_output_identities(tidy *t) {
  for (size_t k = 0; k < t->ngraphs; k++) {
    Onnx__GraphProto *g = t->graphs[k];
    bool merged = false;
    for (size_t i = 0; i < g->n_output; i++) {
      value *o = get(t, g->output[i]->name);
      Onnx__NodeProto *id = o ? o->producer : NULL;
      if (!id || o->graph != k || strcmp(id->op_type, "Identity") || id->n_input != 1 || id->n_output != 1) continue;
      value *v = get(t, id->input[0]);
      if (!v || !v->producer || v->graph != k || v->uses != 1 || v->init) continue;
      for (size_t j = 0; j < v->producer->n_output; j++)
        if (v->producer->output[j] && !strcmp(v->producer->output[j], v->name)) v->producer->output[j] = (char *)o->name;
      o->producer = v->producer;
      v->producer = NULL;
      v->uses = 0;
      id->n_output = 0;
      merged = true;
    }
    if (merged) compact(g);
  }
}

/* Drops nodes whose outputs nobody reads, to a fixed point (a dropped node
 * may leave its producers unread, in this graph or an outer one). */
static void drop_dead(tidy *t) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < t->ngraphs; k++) {
      Onnx__GraphProto *g = t->graphs[k];
      size_t keep = g->n_node;
      for (size_t i = g->n_node; i-- > 0;) {
        Onnx__NodeProto *n = g->node[i];
        bool read = false;
        for (size_t j = 0; j < n->n_output && !read; j++) {
          value *v = get(t, n->output[j]);
          read = v && v->uses;
        }
        if (read) continue;
        for (size_t j = 0; j < n->n_input; j++) {
          value *v = get(t, n->input[j]);
          if (v && v->uses) v->uses--;
        }
        n->n_output = 0; /* marks it dropped */
        changed = true;
        keep--;
      }
      if (keep != g->n_node) compact(g);
    }
  }
}

psg_status onnxi_export_tidy(psg_ctx *ctx, Onnx__GraphProto *g, void *(*alloc)(void *user, size_t n), void *user) {
  tidy t = {0};
  size_t names = 0;
  PSGI_VEC(Onnx__GraphProto *) graphs = {0};
  if (!PSGI_VEC_PUSH(ctx, &graphs, g)) return PSG_ERR_NOMEM;
  /* Every graph, breadth first through the GRAPH attributes (If branches). */
  for (size_t k = 0; k < graphs.len; k++) {
    Onnx__GraphProto *h = graphs.data[k];
    names += h->n_initializer + h->n_output;
    for (size_t i = 0; i < h->n_node; i++) {
      names += h->node[i]->n_output + h->node[i]->n_input;
      for (size_t j = 0; j < h->node[i]->n_attribute; j++) {
        Onnx__GraphProto *sub = h->node[i]->attribute[j]->g;
        if (sub && !PSGI_VEC_PUSH(ctx, &graphs, sub)) {
          PSGI_VEC_FREE(ctx, &graphs);
          return PSG_ERR_NOMEM;
        }
      }
    }
  }
  t.graphs = graphs.data;
  t.ngraphs = graphs.len;
  t.cap = 16;
  while (t.cap < 2 * names + 2) t.cap *= 2;
  t.slots = psgi_calloc(ctx, psgi_mul_size(t.cap, sizeof *t.slots));
  if (!t.slots) {
    PSGI_VEC_FREE(ctx, &graphs);
    return PSG_ERR_NOMEM;
  }
  for (size_t k = 0; k < t.ngraphs; k++) {
    Onnx__GraphProto *h = t.graphs[k];
    for (size_t i = 0; i < h->n_initializer; i++) get(&t, h->initializer[i]->name)->init = h->initializer[i];
    for (size_t i = 0; i < h->n_node; i++)
      for (size_t j = 0; j < h->node[i]->n_output; j++) {
        value *v = get(&t, h->node[i]->output[j]);
        if (v) v->producer = h->node[i], v->graph = k;
      }
  }
  count_uses(&t);
  bool rewrote = false;
  for (size_t k = 0; k < t.ngraphs; k++)
    for (size_t i = 0; i < t.graphs[k]->n_node; i++) rewrote |= hard_swish(&t, t.graphs[k]->node[i], alloc, user);
  if (t.oom) {
    psgi_free(ctx, t.slots);
    PSGI_VEC_FREE(ctx, &graphs);
    return PSG_ERR_NOMEM;
  }
  if (rewrote) count_uses(&t);
  merge_output_identities(&t);
  count_uses(&t);
  drop_dead(&t);
  for (size_t k = 0; k < t.ngraphs; k++) {
    Onnx__GraphProto *h = t.graphs[k];
    size_t w = 0;
    for (size_t i = 0; i < h->n_initializer; i++) {
      value *v = get(&t, h->initializer[i]->name);
      if (v && v->uses) h->initializer[w++] = h->initializer[i];
    }
    h->n_initializer = w;
  }
  psgi_free(ctx, t.slots);
  PSGI_VEC_FREE(ctx, &graphs);
  return PSG_OK;
}
