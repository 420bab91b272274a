/* Passage ONNX frontend — unique node names for an exported model (see
 * onnx_export_names.h). One set of names covers the model and its
 * subgraphs; each entry also remembers the next suffix to try after it, so a
 * name repeated n times costs O(n) probes in all, not O(n^2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "onnx_export_names.h"

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

static size_t hash(const char *s) {
  size_t h = 1469598103934665603ull;
  while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ull;
  return h;
}

/* The slot holding `name`, or the empty slot where it belongs. */
static entry *slot(names *t, const char *name) {
  size_t i = hash(name) & (t->cap - 1);
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
 * through GRAPH attributes (If branches); *out is malloc'd. */
static psg_status graphs_of(Onnx__GraphProto *g, Onnx__GraphProto ***out, size_t *n, size_t *nodes) {
  size_t cap = 8, len = 0, total = 0;
  Onnx__GraphProto **gs = malloc(cap * sizeof *gs);
  if (!gs) return PSG_ERR_NOMEM;
  gs[len++] = g;
  for (size_t k = 0; k < len; k++) {
    Onnx__GraphProto *h = gs[k];
    total += h->n_node;
    for (size_t i = 0; i < h->n_node; i++)
      for (size_t j = 0; j < h->node[i]->n_attribute; j++) {
        Onnx__GraphProto *sub = h->node[i]->attribute[j]->g;
        if (!sub) continue;
        if (len == cap) {
          Onnx__GraphProto **more = realloc(gs, 2 * cap * sizeof *more);
          if (!more) {
            free(gs);
            return PSG_ERR_NOMEM;
          }
          gs = more;
          cap *= 2;
        }
        gs[len++] = sub;
      }
  }
  *out = gs;
  *n = len;
  *nodes = total;
  return PSG_OK;
}

psg_status onnxi_export_names(Onnx__GraphProto *g, onnxi_name_fn name_of, void *(*alloc)(void *user, size_t n),
                              void *user) {
  Onnx__GraphProto **gs = NULL;
  size_t ng = 0, total = 0;
  psg_status st = graphs_of(g, &gs, &ng, &total);
  if (st) return st;
  names t = {NULL, 16, alloc, user};
  while (t.cap < 2 * total + 2) t.cap *= 2;
  t.slots = calloc(t.cap, sizeof *t.slots);
  bool *done = calloc(total + 1, sizeof *done);
  if (!t.slots || !done) st = PSG_ERR_NOMEM;
  /* Steps 1-4 of the header, each a sweep over all nodes in order. */
  for (int step = 1; step <= 4 && !st; step++) {
    size_t idx = 0;
    for (size_t k = 0; k < ng && !st; k++)
      for (size_t i = 0; i < gs[k]->n_node && !st; i++, idx++) {
        Onnx__NodeProto *n = gs[k]->node[i];
        if (done[idx]) continue;
        bool main = false;
        const char *kept = name_of(user, n, &main);
        if (step < 4 && (!kept || (step == 1 && !main))) continue;
        const char *want = kept ? kept : n->name ? n->name : "";
        if (step != 3 && take(&t, want)) {
          n->name = (char *)want;
        } else if (step >= 3) {
          char *s = take_suffixed(&t, want);
          if (!s) st = PSG_ERR_NOMEM;
          n->name = s;
        } else {
          continue;
        }
        done[idx] = true;
      }
  }
  free(done);
  free(t.slots);
  free(gs);
  return st;
}
