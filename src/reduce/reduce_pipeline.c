/* Passage — the reducer's first stage (include/passage/reduce.h): shrink the
 * pipeline. Registered pipelines (O3, FoldScaleAxis) are written out first,
 * so that their passes can go one by one; then, level by level from the top,
 * the members of each group (a Sequential or a FixedPoint) are dropped by
 * delta debugging, a whole group being one member of its parent. */
#include <stdio.h>
#include <string.h>
#include "pass/pass_internal.h"
#include "reduce/reduce_internal.h"

enum { LEAF, SEQUENTIAL, FIXED_POINT };

/* One pass of the pipeline; groups list their members. */
typedef struct pnode {
  psg_pass *pass; /* borrowed from the parsed pipeline */
  int kind;
  struct pnode **kids;
  size_t nkids;
  bool dropped;
  bool trial;  /* dropped by the attempt under way */
  bool unwrap; /* a group of one member written as that member */
} pnode;

typedef struct pstage {
  psgi_reducer *r;
  psgi_arena arena;
  pnode *root;
  pnode *group; /* the group being reduced */
  psg_status st;
} pstage;

/* The tree of `p`. Pipelines nest at most 64 deep (the parser's cap), so
 * recursion is bounded. */
static pnode *tree(pstage *s, psg_pass *p) {
  pnode *n = psgi_arena_alloc(&s->arena, sizeof *n);
  if (!n) return NULL;
  memset(n, 0, sizeof *n);
  n->pass = p;
  psg_pass *members = NULL;
  if (psgi_pass_is_fixed_point(p)) n->kind = FIXED_POINT, members = p->children[0];
  else if (p->kind == PSG_PASS_SEQUENTIAL) n->kind = SEQUENTIAL, members = p;
  if (!members) return n;
  n->nkids = psg_pass_num_children(members);
  n->kids = psgi_arena_alloc(&s->arena, (n->nkids ? n->nkids : 1) * sizeof *n->kids);
  if (!n->kids) return NULL;
  for (size_t i = 0; i < n->nkids; i++)
    if (!(n->kids[i] = tree(s, psg_pass_get_child(members, i)))) return NULL;
  return n;
}

static size_t count_leaves(const pnode *n) {
  if (n->dropped) return 0;
  if (n->kind == LEAF) return 1;
  size_t k = 0;
  for (size_t i = 0; i < n->nkids; i++) k += count_leaves(n->kids[i]);
  return k;
}

/* The pass of `n` without its dropped members. */
static psg_status build(psg_ctx *ctx, const pnode *n, psg_pass **out) {
  *out = NULL;
  if (n->kind == LEAF) return psg_pass_retain(n->pass), *out = n->pass, PSG_OK;
  if (n->unwrap)
    for (size_t i = 0; i < n->nkids; i++)
      if (!n->kids[i]->dropped) return build(ctx, n->kids[i], out);
  psg_pass **kids = psgi_alloc(ctx, (n->nkids ? n->nkids : 1) * sizeof *kids);
  if (!kids) return psgi_nomem(ctx);
  size_t k = 0;
  psg_status st = PSG_OK;
  for (size_t i = 0; !st && i < n->nkids; i++)
    if (!n->kids[i]->dropped && !(st = build(ctx, n->kids[i], &kids[k]))) k++;
  /* A FixedPoint of nothing cannot be made: an empty Sequential does the
   * same (nothing). */
  if (!st && n->kind == FIXED_POINT && k > 0)
    st = psg_fixed_point(ctx, kids, k, psg_fixed_point_max_iterations(n->pass), out);
  else if (!st)
    st = psg_sequential(ctx, kids, k, n->kind == SEQUENTIAL ? psg_pass_get_info(n->pass) : NULL, out);
  for (size_t i = 0; i < k; i++) psg_pass_release(kids[i]);
  psgi_free(ctx, kids);
  return st;
}

/* The pipeline text of the tree as it stands: the root's members joined by
 * commas (the root itself is the list the user wrote). */
static psg_status text_of(pstage *s, char **out) {
  psg_ctx *ctx = s->r->ctx;
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  psg_status st = PSG_OK;
  size_t written = 0;
  for (size_t i = 0; !st && i < s->root->nkids; i++) {
    if (s->root->kids[i]->dropped) continue;
    psg_pass *p = NULL;
    st = build(ctx, s->root->kids[i], &p);
    char *t = st ? NULL : psg_pipeline_print(p);
    if (!st && !t) st = psgi_nomem(ctx);
    if (!st && ((written++ && !psgi_buf_putc(&b, ',')) || !psgi_buf_puts(&b, t))) st = psgi_nomem(ctx);
    psg_free(t);
    psg_pass_release(p);
  }
  /* No pass left: an empty Sequential, which parses. */
  if (!st && !written && !psgi_buf_puts(&b, "sequential()")) st = psgi_nomem(ctx);
  *out = st ? NULL : psgi_buf_detach_libc(&b, NULL);
  if (!st && !*out) st = psgi_nomem(ctx);
  if (st) psgi_buf_fini(&b);
  return st;
}

static size_t alive(const pnode *g) {
  size_t k = 0;
  for (size_t i = 0; i < g->nkids; i++) k += !g->kids[i]->dropped;
  return k;
}

static size_t group_length(void *user) { return alive(((pstage *)user)->group); }

/* Drops the alive members [from, from + count) of the group if the
 * predicate still holds without them. */
static int attempt(void *user, size_t from, size_t count) {
  pstage *s = user;
  pnode *g = s->group;
  size_t idx = 0, total = alive(g);
  for (size_t i = 0; i < g->nkids && idx < from + count; i++) {
    if (g->kids[i]->dropped) continue;
    if (idx++ >= from) g->kids[i]->dropped = g->kids[i]->trial = true;
  }
  char *text = NULL;
  psg_status st = text_of(s, &text);
  char what[160];
  snprintf(what, sizeof what, "pipeline: drop %zu of %zu members of %s", count, total,
           g == s->root ? "the top level" : g->pass->info->name);
  int v = st ? st : psgi_reduce_try_pipeline(s->r, text, count_leaves(s->root), what);
  psg_free(text);
  for (size_t i = 0; i < g->nkids; i++) {
    if (v <= 0 && g->kids[i]->trial) g->kids[i]->dropped = false; /* undo */
    g->kids[i]->trial = false;
  }
  return v;
}

psg_status psgi_reduce_pipeline(psgi_reducer *r) {
  if (!r->pipeline[strspn(r->pipeline, " \t\n")]) return PSG_OK; /* no pass to drop */
  pstage s = {.r = r};
  psgi_arena_init(&s.arena, r->ctx);
  psg_pass *parsed = NULL, *expanded = NULL;
  psg_status st = psg_pipeline_parse(r->ctx, r->pipeline, &parsed);
  char *full = st ? NULL : psg_pipeline_print_expanded(parsed);
  if (!st && !full) st = psgi_nomem(r->ctx);
  if (!st) st = psg_pipeline_parse(r->ctx, full, &expanded);
  psg_free(full);
  /* The root: the list written at the top level (a default Sequential's
   * members), or the one pass written. */
  pnode *top = st ? NULL : tree(&s, expanded);
  if (!st && !top) st = psgi_nomem(r->ctx);
  if (!st && top->kind == SEQUENTIAL && !strcmp(expanded->info->name, "sequential") && expanded->info->opt_level == 0) {
    s.root = top;
  } else if (!st) {
    s.root = psgi_arena_alloc(&s.arena, sizeof *s.root);
    pnode **kids = psgi_arena_alloc(&s.arena, sizeof *kids);
    if (!s.root || !kids) st = psgi_nomem(r->ctx);
    else memset(s.root, 0, sizeof *s.root), kids[0] = top, *s.root = (pnode){expanded, SEQUENTIAL, kids, 1, false, false, false};
  }
  /* Groups breadth-first: a group's members are tried before what is
   * inside them. The queue holds at most every node once. */
  PSGI_VEC(pnode *) queue = {0};
  if (!st && !PSGI_VEC_PUSH(r->ctx, &queue, s.root)) st = psgi_nomem(r->ctx);
  for (size_t q = 0; !st && q < queue.len; q++) {
    s.group = queue.data[q];
    int v = psgi_reduce_ddmin(&s, attempt, group_length);
    if (v < 0) st = v;
    for (size_t i = 0; !st && i < s.group->nkids; i++) {
      pnode *k = s.group->kids[i];
      if (!k->dropped && k->kind != LEAF && !PSGI_VEC_PUSH(r->ctx, &queue, k)) st = psgi_nomem(r->ctx);
    }
  }
  /* Groups left with one member: that member alone, when the predicate
   * agrees (a Sequential also filters by opt level; a FixedPoint repeats). */
  for (size_t q = 1; !st && q < queue.len; q++) {
    pnode *g = queue.data[q];
    if (alive(g) != 1 || g->dropped) continue;
    g->unwrap = true;
    char *t = NULL;
    st = text_of(&s, &t);
    int v = st ? 0 : psgi_reduce_try_pipeline(r, t, count_leaves(s.root), "pipeline: a group of one pass unwrapped");
    psg_free(t);
    if (v < 0) st = v;
    if (v <= 0) g->unwrap = false;
  }
  PSGI_VEC_FREE(r->ctx, &queue);
  psg_pass_release(parsed);
  psg_pass_release(expanded);
  psgi_arena_fini(&s.arena);
  return st;
}
