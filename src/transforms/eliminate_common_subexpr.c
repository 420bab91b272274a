/* Passage — EliminateCommonSubexpr (tvm-behavior §6.6, §7.1): a function pass
 * (opt 3, required InferType). A call of a non-stateful op with at least one
 * argument is replaced by an earlier call of the same op with equal attrs
 * and the same argument nodes (tuple arguments compared field by field);
 * TupleGetItems of the same tuple and index merge too.
 *
 * Beyond TVM: equal constants (dtype, shape and bytes) become one node, so
 * the calls that use them merge as well — real models carry dozens of
 * duplicate weights. Calls merge only within one scope region (a function
 * body or an If branch), so a merged node never escapes the scope it was
 * written in. Both walks are iterative. */
#include "ops/op_impl.h"
#include "transforms/rewrite_inner.h"
#include "transforms/transforms.h"

/* A candidate for reuse: chained per hash value. */
typedef struct cse_entry {
  psg_expr *node; /* borrowed: kept alive by the rewrite's memo */
  uint32_t region;
  size_t next; /* index + 1 of the next entry with the same hash, 0 at the end */
} cse_entry;

typedef struct cse {
  psg_ctx *ctx;
  bool scoped;                     /* the body has If, Let or Function nodes */
  psgi_map region_of;              /* original node -> region id + 1 */
  struct head {                    /* open addressing on the hash itself: hash -> entry index + 1 */
    uint64_t hash;
    size_t first; /* 0: an empty slot */
  } *heads;
  size_t nheads, used_heads; /* slots (a power of two, or 0), and those in use */
  psgi_map shapes;                 /* constants: dtype/shape hash -> the one constant not yet
                                      in `heads`, or FLUSHED */
  PSGI_VEC(cse_entry) entries;
  const psg_expr *pending_for; /* the node reuse() found no match for, about to be rebuilt */
  size_t pending_head;         /* its chain's slot in `heads` */
} cse;

/* Regions ------------------------------------------------------------------------- */

typedef struct region_frame {
  const psg_expr *e;
  uint32_t region;
} region_frame;

/* Gives every node the region it is first reached in: a function body and
 * each If branch open a new one. */
static psg_status assign_regions(cse *c, const psg_expr *root) {
  PSGI_VEC(region_frame) stack = {0};
  uint32_t next_region = 1;
  region_frame top = {root, 0};
  psg_status st = PSGI_VEC_PUSH(c->ctx, &stack, top) ? PSG_OK : psgi_nomem(c->ctx);
  while (!st && stack.len) {
    region_frame f = stack.data[--stack.len];
    bool is_new;
    psgi_map_entry *en = psgi_map_put_ptr(&c->region_of, f.e, &is_new);
    if (!en) {
      st = psgi_nomem(c->ctx);
      break;
    }
    if (!is_new) continue;
    en->value = (void *)(uintptr_t)(f.region + 1);
    if (psgi_is_composite_fn(f.e)) continue; /* the rewrite keeps it as it is */
    for (uint32_t i = 0; i < f.e->nkids && !st; i++) {
      bool opens = (f.e->kind == PSG_EXPR_FUNCTION && i + 1 == f.e->nkids) || (f.e->kind == PSG_EXPR_IF && i > 0);
      region_frame child = {f.e->kids[i], opens ? next_region++ : f.region};
      if (!PSGI_VEC_PUSH(c->ctx, &stack, child)) st = psgi_nomem(c->ctx);
    }
  }
  PSGI_VEC_FREE(c->ctx, &stack);
  return st;
}

/* Without If and nested Function nodes (ir_internal.h's HAS_SCOPES) every
 * call and projection is in the function body's region, 1: no map needed. */
static uint32_t region_of(const cse *c, const psg_expr *e) {
  if (!c->scoped) return 1;
  psgi_map_entry *en = psgi_map_get_ptr(&c->region_of, e);
  return en ? (uint32_t)((uintptr_t)en->value - 1) : 0;
}

/* Hashing and matching ------------------------------------------------------------ */

/* A constant's bytes are sampled only when another constant of the same
 * dtype and shape is met (most weights have a shape of their own): until
 * then it waits in `shapes`, and enters `heads` with the hash of dtype,
 * shape and sample. The sample is the first 128 and the last 64 bytes:
 * touching a weight is a cache miss (and on a virtual machine sometimes far
 * more) per piece, different weights of one shape differ in their first
 * values, and equal samples are confirmed by comparing all bytes. */
enum { SAMPLE_HEAD = 128, SAMPLE_TAIL = 64 };
static uint64_t tensor_shape_hash(const psg_tensor *t) {
  uint64_t h = psgi_hash_mix((uint64_t)t->dtype, (uint64_t)t->ndim);
  for (int i = 0; i < t->ndim; i++) h = psgi_hash_mix(h, (uint64_t)t->shape[i]);
  return h;
}

static uint64_t tensor_sample(const psg_tensor *t) {
  if (t->nbytes <= SAMPLE_HEAD + SAMPLE_TAIL) return psgi_hash_bytes(t->data, t->nbytes);
  const unsigned char *p = t->data;
  return psgi_hash_mix(psgi_hash_bytes(p, SAMPLE_HEAD), psgi_hash_bytes(p + t->nbytes - SAMPLE_TAIL, SAMPLE_TAIL));
}

/* An argument's identity: the node itself or a tuple's fields. Constants are
 * merged before the calls that use them (post-order, region 0), so equal
 * constants are one node by then. */
static uint64_t arg_hash(const psg_expr *a) {
  if (a->kind != PSG_EXPR_TUPLE) return psgi_hash_ptr(a);
  uint64_t h = 0x7475706c65; /* "tuple" */
  for (uint32_t i = 0; i < a->nkids; i++) h = psgi_hash_mix(h, psgi_hash_ptr(a->kids[i]));
  return h;
}

static bool same_arg(const psg_expr *a, const psg_expr *b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  if (a->kind != PSG_EXPR_TUPLE || a->nkids != b->nkids) return false;
  for (uint32_t i = 0; i < a->nkids; i++)
    if (a->kids[i] != b->kids[i]) return false;
  return true;
}

/* Whether `a` equals b, a node with b's kind and payload over children
 * `bkids` (b's own, or the rewrites of b's children before b is rebuilt
 * over them). */
static bool same_expr(const psg_expr *a, const psg_expr *b, psg_expr *const *bkids) {
  if (a->kind != b->kind || a->nkids != b->nkids) return false;
  switch (a->kind) {
  case PSG_EXPR_CONSTANT: return psg_tensor_equal(a->u.constant, b->u.constant);
  case PSG_EXPR_TUPLE_GET_ITEM: return a->kids[0] == bkids[0] && a->u.index == b->u.index;
  case PSG_EXPR_CALL:
    if (a->kids[0] != bkids[0] || !psg_attrs_equal(a->u.attrs, b->u.attrs)) return false;
    for (uint32_t i = 1; i < a->nkids; i++)
      if (!same_arg(a->kids[i], bkids[i])) return false;
    return true;
  default: return false;
  }
}

/* The hash of e's kind and payload over children `kids` (as same_expr). */
static uint64_t expr_hash(const psg_expr *e, psg_expr *const *kids) {
  switch (e->kind) {
  case PSG_EXPR_TUPLE_GET_ITEM: return psgi_hash_mix(psgi_hash_ptr(kids[0]), (uint64_t)e->u.index);
  default: {
    uint64_t h = psgi_hash_mix(psgi_hash_ptr(kids[0]), psg_attrs_count(e->u.attrs));
    for (uint32_t i = 1; i < e->nkids; i++) h = psgi_hash_mix(h, arg_hash(kids[i]));
    return h;
  }
  }
}

/* The slot of hash h (its chain's head, or the empty slot it takes), the
 * table grown first to keep it at most half full. NULL on OOM. */
static struct head *head_of(cse *c, uint64_t h) {
  if ((c->used_heads + 1) * 2 > c->nheads) {
    size_t n = c->nheads ? c->nheads * 4 : 64;
    struct head *t = psgi_calloc(c->ctx, n * sizeof *t);
    if (!t) return NULL;
    for (size_t i = 0; i < c->nheads; i++) {
      if (!c->heads[i].first) continue;
      size_t j = c->heads[i].hash & (n - 1);
      while (t[j].first) j = (j + 1) & (n - 1);
      t[j] = c->heads[i];
    }
    psgi_free(c->ctx, c->heads);
    c->heads = t;
    c->nheads = n;
  }
  size_t j = h & (c->nheads - 1);
  while (c->heads[j].first && c->heads[j].hash != h) j = (j + 1) & (c->nheads - 1);
  c->heads[j].hash = h;
  return &c->heads[j];
}

/* An earlier node of `region` (borrowed) hashed `h` equal to e over `kids`
 * (same_expr), or NULL; *head is h's chain. */
static psg_status find(cse *c, const psg_expr *e, psg_expr *const *kids, uint64_t h, uint32_t region,
                       struct head **head, psg_expr **match) {
  *match = NULL;
  if (!(*head = head_of(c, h))) return psgi_nomem(c->ctx);
  for (size_t i = (*head)->first; i; i = c->entries.data[i - 1].next) {
    const cse_entry *en = &c->entries.data[i - 1];
    if (en->region == region && same_expr(en->node, e, kids)) {
      *match = en->node;
      break;
    }
  }
  return PSG_OK;
}

/* Records e as the first node of its value in `region`, on chain `head`. */
static psg_status add(cse *c, psg_expr *e, uint32_t region, struct head *head) {
  cse_entry en = {e, region, head->first};
  if (!PSGI_VEC_PUSH(c->ctx, &c->entries, en)) return psgi_nomem(c->ctx);
  c->used_heads += !head->first;
  head->first = c->entries.len;
  return PSG_OK;
}

/* Returns an earlier equal node of `region` (borrowed) among those hashed
 * `h`, or records `e` as one. */
static psg_status find_or_add(cse *c, psg_expr *e, uint64_t h, uint32_t region, psg_expr **match) {
  struct head *head;
  psg_status st = find(c, e, e->kids, h, region, &head, match);
  return st || *match ? st : add(c, e, region, head);
}

static uint64_t constant_hash(const psg_expr *e, uint64_t shape_hash) {
  return psgi_hash_mix(shape_hash, tensor_sample(e->u.constant));
}

/* Constants (region 0): see tensor_sample. */
#define FLUSHED ((void *)(uintptr_t)1)
static psg_status find_or_add_constant(cse *c, psg_expr *e, psg_expr **match) {
  *match = NULL;
  uint64_t hs = tensor_shape_hash(e->u.constant);
  bool is_new;
  psgi_map_entry *en = psgi_map_put_ptr(&c->shapes, (const void *)(uintptr_t)hs, &is_new);
  if (!en) return psgi_nomem(c->ctx);
  if (is_new) {
    en->value = e;
    return PSG_OK;
  }
  if (en->value != FLUSHED) {
    psg_expr *first = en->value;
    en->value = FLUSHED;
    psg_expr *none;
    psg_status st = find_or_add(c, first, constant_hash(first, hs), 0, &none);
    if (st) return st;
  }
  return find_or_add(c, e, constant_hash(e, hs), 0, match);
}

/* Rewrites ------------------------------------------------------------------------- */

/* A call of a pure op with arguments, its callee being kids[0]. */
static bool is_candidate_call(const psg_expr *call, psg_expr *const *kids) {
  const psg_expr *callee = kids[0];
  if (callee->kind != PSG_EXPR_OP || call->nkids < 2) return false;
  const psgi_op_impl *impl = psgi_op_impl_in(callee->ctx, callee->u.op);
  return !(impl && impl->stateful);
}

/* Before a call or projection whose children changed is rebuilt: the
 * earlier equal node over the new children, if there is one (then nothing
 * is built, and merge is not called), else nothing; the lookup's chain is
 * kept for merge, which records the rebuilt node there without hashing it
 * again (nothing is added in between: the rewrite calls merge next). */
static psg_status reuse(psgi_rewriter *m, const psg_expr *e, psg_expr *const *kids, psg_expr **out) {
  cse *c = m->user;
  *out = NULL;
  c->pending_for = NULL;
  if (e->kind != PSG_EXPR_TUPLE_GET_ITEM && !(e->kind == PSG_EXPR_CALL && is_candidate_call(e, kids))) return PSG_OK;
  uint32_t region = region_of(c, e);
  struct head *head;
  psg_expr *match;
  psg_status st = find(c, e, kids, expr_hash(e, kids), region, &head, &match);
  if (st) return st;
  if (match) {
    psg_expr_retain(match);
    *out = match;
    return PSG_OK;
  }
  c->pending_for = e;
  c->pending_head = head - c->heads; /* an index: add() may grow the table later, not before */
  return PSG_OK;
}

/* Default rewrite, then reuse an earlier equal node when there is one.
 * Constants are printed inline, so they merge across regions (region 0). */
static psg_status merge(psgi_rewriter *m, const psg_expr *e, psg_expr **out) {
  cse *c = m->user;
  if (c->pending_for == e) {
    /* reuse() looked this value up and found none: record the node built. */
    c->pending_for = NULL;
    return add(c, *out, region_of(c, e), &c->heads[c->pending_head]);
  }
  if (e->kind == PSG_EXPR_CALL && !is_candidate_call(*out, (*out)->kids)) return PSG_OK;
  psg_expr *match;
  psg_status st = e->kind == PSG_EXPR_CONSTANT
                      ? find_or_add_constant(c, *out, &match)
                      : find_or_add(c, *out, expr_hash(*out, (*out)->kids), region_of(c, e), &match);
  if (st || !match || match == *out) return st;
  psg_expr_retain(match);
  psg_expr_release(*out);
  *out = match;
  return PSG_OK;
}

/* Ops and variables are never merged: the rewrite does not visit them. */
static psg_status run(cse *c, psg_expr *func, psg_expr **out) {
  psgi_rewriter m = {c->ctx, {0}, c, reuse};
  m.visit[PSG_EXPR_CALL] = merge;
  m.visit[PSG_EXPR_TUPLE_GET_ITEM] = merge;
  m.visit[PSG_EXPR_CONSTANT] = merge;
  return psgi_rewrite_inner(&m, func, out);
}

static psg_status eliminate(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user, psg_expr **out) {
  (void)mod;
  (void)pc;
  (void)user;
  *out = NULL;
  cse c;
  memset(&c, 0, sizeof c);
  c.ctx = func->ctx;
  psgi_map_init(&c.region_of, c.ctx);
  psgi_map_init(&c.shapes, c.ctx);
  c.scoped = psgi_fn_body(func)->flags & PSGI_EXPR_HAS_SCOPES;
  psg_status st = c.scoped ? assign_regions(&c, func) : PSG_OK;
  if (!st) st = run(&c, func, out);
  psgi_map_fini(&c.region_of);
  psgi_free(c.ctx, c.heads);
  psgi_map_fini(&c.shapes);
  PSGI_VEC_FREE(c.ctx, &c.entries);
  return st;
}

const psg_pass_decl psgi_pass_eliminate_common_subexpr = {
    .name = "EliminateCommonSubexpr",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = psgi_required_infer_type,
    .help = "merge equal pure calls, tuple projections and constants",
    .function = eliminate,
    .cacheable = true,
};
