/* Passage ONNX frontend — unique node names for an exported model (see
 * onnx_export_names.h). One set of names covers the model and its
 * subgraphs; each entry also remembers the next suffix to try after it, so a
 * name repeated n times costs O(n) probes in all, not O(n^2). */
#include <stdio.h>
#include <string.h>
#include "onnx_export_names.h"
#include "support/support.h"

typedef struct entry {
  const char *name;
  size_t next; /* the next suffix to try for NAME_k (0: start at 1) */
} entry;

typedef struct names {
  entry *slots;
  size_t cap;
  void *(*alloc)(void *user, size_t n);
  void *user;
} names;

size_t onnxi_name_hash(const char *s) {
  size_t h = 1469598103934665603ull;
  while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ull;
  return h;
}

/* The slot holding `name`, or the empty slot where it belongs. */
static entry *slot(names *t, const char *name) {
  size_t i = onnxi_name_hash(name) & (t->cap - 1);
  while (t->slots[i].name && strcmp(t->slots[i].name, name)) i = (i + 1) & (t->cap - 1);
  return &t->slots[i];
}

/* Takes `name` when it is free (true), else leaves the set as it is. */
static bool take(names *t, const char *name) {
  entry *e = slot(t, name);
  if (e->name) return false;
  e->name = name;
  return true;
}

/* The first free NAME_k (k >= 1), taken; NULL when out of memory. `base`
 * is in the set already (someone holds it), so its entry keeps the count. */
static char *take_suffixed(names *t, const char *base) {
  size_t len = strlen(base) + 24;
  char *buf = t->alloc(t->user, len);
  if (!buf) return NULL;
  entry *b = slot(t, base);
  for (size_t k = b->next ? b->next : 1;; k++) {
    snprintf(buf, len, "%s_%zu", base, k);
    if (take(t, buf)) {
      b->next = k + 1; /* the table never grows, so b still points at base's entry */
      return buf;
    }
  }
}

/* Every graph of the model, the main graph first, then breadth first
 * through GRAPH attributes (If branches), into *out (to free with
 * PSGI_VEC_FREE). Counts their nodes and node outputs. */
typedef PSGI_VEC(Onnx__GraphProto *) graph_vec;
static psg_status graphs_of(psg_ctx *ctx, Onnx__GraphProto *g, graph_vec *gs, size_t *nodes, size_t *values) {
  size_t total = 0, nv = 0;
  if (!PSGI_VEC_PUSH(ctx, gs, g)) return PSG_ERR_NOMEM;
  for (size_t k = 0; k < gs->len; k++) {
    Onnx__GraphProto *h = gs->data[k];
    total += h->n_node;
    for (size_t i = 0; i < h->n_node; i++) {
      nv += h->node[i]->n_output;
      for (size_t j = 0; j < h->node[i]->n_attribute; j++) {
        Onnx__GraphProto *sub = h->node[i]->attribute[j]->g;
        if (sub && !PSGI_VEC_PUSH(ctx, gs, sub)) return PSG_ERR_NOMEM;
      }
    }
  }
  *nodes = total;
  *values = nv;
  return PSG_OK;
}

/* Per node (in the order of the sweeps): the node, the name it keeps, and
 * what decides who gets that name bare. */
typedef struct info {
  Onnx__NodeProto *node;
  const char *kept;
  bool main, exit, glue, internal, done;
} info;

/* Value name -> its producer's index (open addressing; SSA names are
 * unique across subgraphs). */
typedef struct vslot {
  const char *name;
  size_t node;
} vslot;

static vslot *vfind(vslot *v, size_t cap, const char *name) {
  size_t i = onnxi_name_hash(name) & (cap - 1);
  while (v[i].name && strcmp(v[i].name, name)) i = (i + 1) & (cap - 1);
  return &v[i];
}

/* A named node is its name's exit when its value leaves the nodes of that
 * name: read by a node of another name (or none), or a graph output. For a
 * decomposed ONNX node, that is the node computing the original output. It
 * is internal when a node of its own name that is not layout glue reads it
 * (a 1-D Conv's input reshape, shared with another Conv, leaves its group
 * but is not the node's result; an Add computed in 4-D and reshaped back is). */
static void mark_exits(Onnx__GraphProto **gs, size_t ng, info *in, size_t total, vslot *v, size_t vcap) {
  size_t idx = 0;
  for (size_t k = 0; k < ng; k++)
    for (size_t i = 0; i < gs[k]->n_node; i++, idx++)
      for (size_t j = 0; j < in[idx].node->n_output; j++) {
        const char *o = in[idx].node->output[j];
        if (!o || !o[0]) continue;
        vslot *s = vfind(v, vcap, o);
        s->name = o, s->node = idx;
      }
  for (size_t m = 0; m < total; m++)
    for (size_t j = 0; j < in[m].node->n_input; j++) {
      const char *i = in[m].node->input[j];
      vslot *s = i && i[0] ? vfind(v, vcap, i) : NULL;
      if (!s || !s->name) continue;
      info *p = &in[s->node];
      if (!p->kept) continue;
      if (!in[m].kept || strcmp(p->kept, in[m].kept))
        p->exit = true;
      else if (&in[m] != p && !in[m].glue)
        p->internal = true;
    }
  for (size_t k = 0; k < ng; k++)
    for (size_t i = 0; i < gs[k]->n_output; i++) {
      const char *o = gs[k]->output[i]->name;
      vslot *s = o && o[0] ? vfind(v, vcap, o) : NULL;
      if (s && s->name) in[s->node].exit = true;
    }
}

/* Ops that only move or relabel data around a decomposed node's result. */
static bool is_glue(const char *op) {
  static const char *const glue[] = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Expand"};
  for (size_t i = 0; op && i < sizeof glue / sizeof *glue; i++)
    if (!strcmp(op, glue[i])) return true;
  return false;
}

psg_status onnxi_export_names(psg_ctx *ctx, Onnx__GraphProto *g, onnxi_name_fn name_of,
                              void *(*alloc)(void *user, size_t n), void *user) {
  graph_vec graphs = {0};
  size_t total = 0, nv = 0;
  psg_status st = graphs_of(ctx, g, &graphs, &total, &nv);
  Onnx__GraphProto **gs = graphs.data;
  size_t ng = graphs.len;
  names t = {NULL, 16, alloc, user};
  while (t.cap < 2 * total + 2) t.cap *= 2;
  size_t vcap = 16;
  while (vcap < 2 * nv + 2) vcap *= 2;
  info *in = NULL;
  vslot *v = NULL;
  if (!st) {
    t.slots = psgi_calloc(ctx, psgi_mul_size(t.cap, sizeof *t.slots));
    in = psgi_calloc(ctx, psgi_mul_size(total + 1, sizeof *in));
    v = psgi_calloc(ctx, psgi_mul_size(vcap, sizeof *v));
    if (!t.slots || !in || !v) st = PSG_ERR_NOMEM;
  }
  for (size_t k = 0, idx = 0; k < ng && !st; k++)
    for (size_t i = 0; i < gs[k]->n_node; i++, idx++) {
      in[idx].node = gs[k]->node[i];
      in[idx].kept = name_of(user, in[idx].node, &in[idx].main);
      in[idx].glue = is_glue(in[idx].node->op_type);
    }
  if (!st) mark_exits(gs, ng, in, total, v, vcap);
  /* The sweeps, in order: kept names bare for the node that computes its
   * name's result (not glue, read by no non-glue node of its name; exits
   * first), for the other exits, for the other nodes computing a call's
   * value, for helpers; kept names suffixed; generated names, bare when free. */
  for (int step = 1; step <= 7 && !st; step++)
    for (size_t idx = 0; idx < total && !st; idx++) {
      info *f = &in[idx];
      bool result = !f->glue && !f->internal;
      if (f->done || (step < 7 && !f->kept) || (step == 1 && !(result && f->exit)) || (step == 2 && !result) ||
          (step == 3 && !f->exit) || (step == 4 && !f->main))
        continue;
      const char *want = f->kept ? f->kept : f->node->name ? f->node->name : "";
      if (step != 6 && take(&t, want)) {
        f->node->name = (char *)want;
      } else if (step >= 6) {
        char *s = take_suffixed(&t, want);
        if (!s) st = PSG_ERR_NOMEM;
        f->node->name = s;
      } else {
        continue;
      }
      f->done = true;
    }
  psgi_free(ctx, v);
  psgi_free(ctx, in);
  psgi_free(ctx, t.slots);
  PSGI_VEC_FREE(ctx, &graphs);
  return st;
}
