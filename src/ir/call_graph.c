/* Passage — TVM's CallGraph (relay.analysis.CallGraph): for each global
 * function of a module, the globals its body mentions (each once per
 * function, as TVM's memoized post-order visit sees one GlobalVar node per
 * name), how often each global is referenced, recursion, and TVM's printed
 * form in its topological order. */
#include "passage/analysis.h"

#include <stdio.h>

#include "ir/ir_internal.h"

typedef struct entry {
  const char *name;   /* the module's GlobalVar name (borrowed from it) */
  size_t *callees;    /* entry indices, in first-mention order */
  size_t ncallees;
  size_t refs;        /* how many call edges point here */
  bool recursive;
} entry;

struct psg_call_graph {
  psg_ctx *ctx;
  psg_module *mod;
  entry *entries; /* one per module function, in module order */
  size_t n;
};

/* Collects, once each, the global names `fn` mentions (post-order visit). */
typedef struct collect {
  const psg_call_graph *g;
  entry *e;
  bool *seen; /* per entry: already a callee of e */
} collect;

static psg_status on_node(psg_visitor *v, const psg_expr *x) {
  collect *c = v->user;
  if (psg_expr_kind(x) != PSG_EXPR_GLOBAL_VAR) return PSG_OK;
  ptrdiff_t j = psg_module_find(c->g->mod, psg_global_var_name(x));
  /* A reference to a global the module lacks is no edge (TVM would add an
   * entry with no function; nothing can ask about it here). */
  if (j < 0 || c->seen[j]) return PSG_OK;
  c->seen[j] = true;
  c->e->callees[c->e->ncallees++] = (size_t)j;
  return PSG_OK;
}

void psg_call_graph_free(psg_call_graph *g) {
  if (!g) return;
  for (size_t i = 0; g->entries && i < g->n; i++) psgi_free(g->ctx, g->entries[i].callees);
  psgi_free(g->ctx, g->entries);
  psg_module_release(g->mod);
  psgi_free(g->ctx, g);
}

psg_status psg_call_graph_create(const psg_module *m, psg_call_graph **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!m) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = psg_module_get_ctx(m);
  size_t n = psg_module_num_functions(m);
  psg_call_graph *g = psgi_calloc(ctx, sizeof *g);
  if (!g) return psgi_nomem(ctx);
  g->ctx = ctx;
  g->mod = (psg_module *)m;
  psg_module_retain(g->mod);
  g->n = n;
  g->entries = psgi_calloc(ctx, psgi_mul_size(n ? n : 1, sizeof *g->entries));
  bool *seen = psgi_calloc(ctx, n ? n : 1);
  psg_status st = g->entries && seen ? PSG_OK : psgi_nomem(ctx);
  for (size_t i = 0; st == PSG_OK && i < n; i++) {
    entry *e = &g->entries[i];
    e->name = psg_global_var_name(psg_module_get_global_var(m, i));
    e->callees = psgi_alloc(ctx, psgi_mul_size(n ? n : 1, sizeof *e->callees));
    if (!e->callees) {
      st = psgi_nomem(ctx);
      break;
    }
    /* A PrimFunc slot holds no Relay function: it calls nothing. */
    psg_expr *fn = psg_module_get_function(m, i);
    if (!fn) continue;
    memset(seen, 0, n);
    collect c = {g, e, seen};
    psg_visitor v = {NULL, on_node, &c};
    st = psg_visit(ctx, &v, fn);
  }
  psgi_free(ctx, seen);
  for (size_t i = 0; st == PSG_OK && i < n; i++) {
    entry *e = &g->entries[i];
    for (size_t k = 0; k < e->ncallees; k++) {
      g->entries[e->callees[k]].refs++;
      if (e->callees[k] == i) e->recursive = true;
    }
  }
  if (st != PSG_OK) {
    psg_call_graph_free(g);
    return st;
  }
  *out = g;
  return PSG_OK;
}

psg_module *psg_call_graph_get_module(const psg_call_graph *g) { return g ? g->mod : NULL; }

ptrdiff_t psg_call_graph_find(const psg_call_graph *g, const char *name) {
  if (!g || !name) return -1;
  for (size_t i = 0; i < g->n; i++)
    if (strcmp(g->entries[i].name, name) == 0) return (ptrdiff_t)i;
  return -1;
}

size_t psg_call_graph_ref_count(const psg_call_graph *g, size_t i) {
  return g && i < g->n ? g->entries[i].refs : 0;
}

size_t psg_call_graph_call_count(const psg_call_graph *g, size_t i) {
  return g && i < g->n ? g->entries[i].ncallees : 0;
}

bool psg_call_graph_is_recursive(const psg_call_graph *g, size_t i) {
  return g && i < g->n && g->entries[i].recursive;
}

static void print_entry(psgi_buf *b, const psg_call_graph *g, size_t i) {
  const entry *e = &g->entries[i];
  psgi_buf_printf(b, "Call graph node: %s at: %p,  #refs = %zu\n", e->name, (const void *)e, e->refs);
  for (size_t k = 0; k < e->ncallees; k++)
    psgi_buf_printf(b, "  call site: <%s> calls %s\n", e->name, g->entries[e->callees[k]].name);
  psgi_buf_putc(b, '\n');
}

static psg_status detach(psg_ctx *ctx, psgi_buf *b, char **out) {
  *out = b->failed ? NULL : psgi_buf_detach_libc(b, NULL);
  psgi_buf_fini(b);
  return *out ? PSG_OK : psgi_nomem(ctx);
}

psg_status psg_call_graph_print_entry(const psg_call_graph *g, size_t i, char **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!g || i >= g->n) return PSG_ERR_INVALID_ARGUMENT;
  psgi_buf b;
  psgi_buf_init(&b, g->ctx);
  print_entry(&b, g, i);
  return detach(g->ctx, &b, out);
}

/* TVM's order: for each entry global (no references, or recursive) in
 * entry order, its breadth-first reach not yet visited; each group goes in
 * front of the ones before it. */
psg_status psg_call_graph_print(const psg_call_graph *g, char **out) {
  if (!out) return PSG_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!g) return PSG_ERR_INVALID_ARGUMENT;
  psg_ctx *ctx = g->ctx;
  size_t n = g->n, len = 0;
  size_t *order = psgi_alloc(ctx, psgi_mul_size(n ? n : 1, sizeof *order));
  size_t *group = psgi_alloc(ctx, psgi_mul_size(n ? n : 1, sizeof *group));
  bool *visited = psgi_calloc(ctx, n ? n : 1);
  psg_status st = order && group && visited ? PSG_OK : psgi_nomem(ctx);
  for (size_t r = 0; st == PSG_OK && r < n; r++) {
    if ((g->entries[r].refs != 0 && !g->entries[r].recursive) || visited[r]) continue;
    size_t glen = 0;
    visited[r] = true;
    group[glen++] = r;
    for (size_t q = 0; q < glen; q++) { /* the group is its own BFS queue */
      const entry *e = &g->entries[group[q]];
      for (size_t k = 0; k < e->ncallees; k++)
        if (!visited[e->callees[k]]) {
          visited[e->callees[k]] = true;
          group[glen++] = e->callees[k];
        }
    }
    memmove(order + glen, order, len * sizeof *order);
    memcpy(order, group, glen * sizeof *order);
    len += glen;
  }
  if (st == PSG_OK && len != n)
    st = psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0, NULL,
                       "CallGraph: expected %zu globals in topological order, but reached %zu", n, len);
  if (st == PSG_OK) {
    psgi_buf b;
    psgi_buf_init(&b, ctx);
    for (size_t i = 0; i < n; i++) print_entry(&b, g, order[i]);
    st = detach(ctx, &b, out);
  }
  psgi_free(ctx, order);
  psgi_free(ctx, group);
  psgi_free(ctx, visited);
  return st;
}
