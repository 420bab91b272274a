/* Passage — the planning half of tir.StorageRewrite (TVM v0.19's
 * LinearAccessPatternFinder, LivenessAnalysis, PlanMemory, FindAlloc and
 * the InplaceOpVerifier of storage_rewrite.cc).
 *
 * The body is read as a linear sequence: a leaf statement that touches
 * allocated buffers is one point, a scope (For, IfThenElse, While,
 * AssertStmt, LetStmt, the outermost thread_extent, virtual_thread and
 * extern_scope AttrStmts) two points, its entry and its exit. An access is
 * charged to the statement at the level of the Allocate: a buffer allocated
 * outside a loop and used inside it lives for the whole loop. A buffer is
 * born at its first point and dies at its last; its storage then goes to a
 * free list, and a later Allocate of the same scope and attach point takes
 * a free storage of close enough size (TVM's rules in find_alloc), or the
 * storage of a buffer that dies at the same statement when the statement
 * reads that buffer only at the index it writes (in place). Everything is
 * iterative: explicit stacks. */
#include <string.h>
#include "tir/transforms/storage_rewrite.h"

typedef PSGI_VEC(const psg_tir_node *) node_vec;

/* A point of the linear sequence (TVM's StmtEntry). offset > 0: a scope's
 * entry, whose exit is at index + offset; < 0: an exit; 0: a leaf. */
typedef struct point {
  const psg_tir_node *stmt;
  int64_t offset;
  node_vec touched;    /* the allocated buffers it touches (exits and leaves) */
  node_vec gen, kill;  /* born here (entries, leaves), dying here (exits, leaves) */
} point;

typedef struct alloc_info {
  size_t level;
  const psg_tir_node *alloc;
  bool pinned; /* its extents or condition use a loop or let var: it stays where it is */
} alloc_info;

typedef struct finder {
  psg_ctx *ctx;
  PSGI_VEC(point) seq;
  PSGI_VEC(alloc_info) infos;
  psgi_map info_of;             /* var -> index + 1 in infos */
  PSGI_VEC(node_vec) scopes;    /* TVM's scope_ stack: the touches charged to each level */
  psgi_map bound;               /* For / LetStmt vars in scope -> non-NULL while bound */
  bool in_thread_env;
} finder;

enum { ENTER, EXIT_LOAD, EXIT_LEAF, EXIT_SCOPE };
typedef struct frame {
  const psg_tir_node *n;
  int stage;
  size_t begin;     /* EXIT_SCOPE: index of the entry point */
  bool thread_env;  /* EXIT_SCOPE: this scope set in_thread_env */
} frame;
typedef PSGI_VEC(frame) frame_vec;

static bool push(psg_ctx *ctx, frame_vec *s, const psg_tir_node *n, int stage) {
  frame f = {n, stage, 0, false};
  return PSGI_VEC_PUSH(ctx, s, f);
}

static const char *attr_key(const psg_tir_node *n) { return psg_tir_attr_stmt_key(n); }

/* Charges an access of var v to the statement at its Allocate's level. */
static psg_status touch(finder *f, const psg_tir_node *v) {
  psgi_map_entry *e = psgi_map_get_ptr(&f->info_of, v);
  if (!e) return PSG_OK;
  size_t level = f->infos.data[(size_t)e->value - 1].level;
  if (level >= f->scopes.len)
    return psg_ctx_fail(f->ctx, PSG_ERR_UNSUPPORTED,
                        "tir.StorageRewrite: buffer var '%s' is used outside of any statement of its Allocate",
                        psg_tir_var_name(v));
  return PSGI_VEC_PUSH(f->ctx, &f->scopes.data[level], v) ? PSG_OK : psgi_nomem(f->ctx);
}

static bool push_scope(finder *f) {
  node_vec empty = {0};
  return PSGI_VEC_PUSH(f->ctx, &f->scopes, empty);
}

/* Whether statement n opens a scope of the linear sequence. */
static bool is_scope(finder *f, const psg_tir_node *n, bool *thread_env) {
  *thread_env = false;
  switch (n->kind) {
  case PSG_TIR_IF_THEN_ELSE:
  case PSG_TIR_FOR:
  case PSG_TIR_WHILE:
  case PSG_TIR_ASSERT_STMT:
  case PSG_TIR_LET_STMT: return true;
  case PSG_TIR_ATTR_STMT: {
    const char *k = attr_key(n);
    if (!strcmp(k, "thread_extent") && !f->in_thread_env) return *thread_env = true;
    return !strcmp(k, "extern_scope") || !strcmp(k, "virtual_thread");
  }
  default: return false;
  }
}

/* Pushes the operands TVM's StmtExprVisitor visits, so they pop in its order. */
static bool push_kids(psg_ctx *ctx, frame_vec *s, const psg_tir_node *n) {
  const psg_tir_node *k[8];
  size_t nk = 0;
  switch (n->kind) {
  case PSG_TIR_BUFFER_LOAD: /* indices */
  case PSG_TIR_BUFFER_STORE: { /* value, indices */
    size_t ni = psgi_tir_num_indices(n);
    psg_tir_node *const *idx = psgi_tir_indices(n);
    for (size_t i = ni; i-- > 0;)
      if (!push(ctx, s, idx[i], ENTER)) return false;
    return n->kind == PSG_TIR_BUFFER_LOAD || push(ctx, s, n->kids[1], ENTER);
  }
  case PSG_TIR_ALLOCATE: /* extents, body, condition */
    if (!push(ctx, s, n->kids[1], ENTER) || !push(ctx, s, n->kids[2], ENTER)) return false;
    for (size_t i = n->nkids; i-- > 3;)
      if (!push(ctx, s, n->kids[i], ENTER)) return false;
    return true;
  case PSG_TIR_DECL_BUFFER: return push(ctx, s, n->kids[1], ENTER);
  case PSG_TIR_ATTR_STMT: k[nk++] = n->kids[0], k[nk++] = n->kids[1]; break; /* not the node */
  case PSG_TIR_FOR: k[nk++] = n->kids[1], k[nk++] = n->kids[2], k[nk++] = n->kids[3]; break;
  case PSG_TIR_LET_STMT: k[nk++] = n->kids[1], k[nk++] = n->kids[2]; break;
  case PSG_TIR_BUFFER: return true;
  default:
    for (size_t i = n->nkids; i-- > 0;)
      if (!push(ctx, s, n->kids[i], ENTER)) return false;
    return true;
  }
  while (nk)
    if (!push(ctx, s, k[--nk], ENTER)) return false;
  return true;
}

/* Whether Allocate a's extents or condition use a var bound by an
 * enclosing loop or LetStmt (*pinned): moved to its attach point, it would
 * use the var outside its scope (TVM moves it anyway). */
static bool uses_bound(finder *f, const psg_tir_node *a, bool *pinned) {
  PSGI_VEC(const psg_tir_node *) s = {0};
  bool ok = true;
  *pinned = false;
  for (size_t i = 1; ok && i < a->nkids; i++)
    if (i != 2) ok = PSGI_VEC_PUSH(f->ctx, &s, a->kids[i]);
  while (ok && s.len && !*pinned) {
    const psg_tir_node *n = s.data[--s.len];
    if (psgi_tir_is_var_kind(n->kind)) {
      psgi_map_entry *b = psgi_map_get_ptr(&f->bound, n);
      *pinned = b && b->value;
      continue;
    }
    for (size_t i = 0; ok && i < n->nkids; i++)
      if (n->kids[i]->kind != PSG_TIR_BUFFER) ok = PSGI_VEC_PUSH(f->ctx, &s, n->kids[i]);
  }
  PSGI_VEC_FREE(f->ctx, &s);
  return ok;
}

static bool push_point(finder *f, const psg_tir_node *stmt, int64_t offset, node_vec touched) {
  point pt = {stmt, offset, touched, {0}, {0}};
  return PSGI_VEC_PUSH(f->ctx, &f->seq, pt);
}

/* TVM's LinearAccessPatternFinder over body. */
static psg_status find_pattern(finder *f, psgi_sr_plan *p, const psg_tir_node *body) {
  psg_ctx *ctx = f->ctx;
  frame_vec s = {0};
  psg_status st = push(ctx, &s, body, ENTER) ? PSG_OK : psgi_nomem(ctx);
  while (!st && s.len) {
    frame fr = s.data[--s.len];
    const psg_tir_node *n = fr.n;
    bool ok = true;
    if (fr.stage == EXIT_LOAD) {
      psgi_map_entry *e = psgi_map_put_ptr(&p->accessed, n->kids[0], NULL);
      if (!e) ok = false;
      else e->value = (void *)1;
      if (ok) st = touch(f, n->kids[0]->kids[0]);
    } else if (fr.stage == EXIT_LEAF) {
      if (n->kind == PSG_TIR_BUFFER_STORE) {
        psgi_map_entry *e = psgi_map_put_ptr(&p->accessed, n->kids[0], NULL);
        if (!e) ok = false;
        else e->value = (void *)1;
        if (ok) st = touch(f, n->kids[0]->kids[0]);
      }
      if (!st && ok) {
        node_vec t = f->scopes.data[--f->scopes.len];
        if (t.len) ok = push_point(f, n, 0, t);
        else PSGI_VEC_FREE(ctx, &t);
      }
    } else if (fr.stage == EXIT_SCOPE) {
      if (n->kind == PSG_TIR_FOR || n->kind == PSG_TIR_LET_STMT) psgi_map_get_ptr(&f->bound, n->kids[0])->value = NULL;
      node_vec t = f->scopes.data[--f->scopes.len];
      size_t end = f->seq.len;
      ok = push_point(f, n, (int64_t)fr.begin - (int64_t)end, t);
      if (!ok) PSGI_VEC_FREE(ctx, &t);
      else f->seq.data[fr.begin].offset = (int64_t)(end - fr.begin);
      if (fr.thread_env) f->in_thread_env = false;
    } else if (psgi_tir_is_var_kind(n->kind)) {
      st = touch(f, n);
    } else if (n->kind == PSG_TIR_BUFFER_LOAD) {
      ok = push(ctx, &s, n, EXIT_LOAD) && push_kids(ctx, &s, n);
    } else if (n->kind == PSG_TIR_BUFFER_STORE || n->kind == PSG_TIR_EVALUATE) {
      ok = push_scope(f) && push(ctx, &s, n, EXIT_LEAF) && push_kids(ctx, &s, n);
    } else {
      bool thread_env;
      if (n->kind == PSG_TIR_ALLOCATE) {
        alloc_info ai = {f->scopes.len, n, false};
        ok = uses_bound(f, n, &ai.pinned);
        psgi_map_entry *e = ok ? psgi_map_put_ptr(&f->info_of, n->kids[0], NULL) : NULL;
        ok = e && PSGI_VEC_PUSH(ctx, &f->infos, ai);
        if (ok) e->value = (void *)f->infos.len;
      } else if (psgi_tir_is_stmt_kind(n->kind) && is_scope(f, n, &thread_env)) {
        node_vec none = {0};
        frame ex = {n, EXIT_SCOPE, f->seq.len, thread_env};
        if (thread_env) f->in_thread_env = true;
        if (n->kind == PSG_TIR_FOR || n->kind == PSG_TIR_LET_STMT) {
          psgi_map_entry *b = psgi_map_put_ptr(&f->bound, n->kids[0], NULL);
          if (b) b->value = (void *)1;
          else ok = false;
        }
        ok = ok && push_scope(f) && push_point(f, n, 0, none) && PSGI_VEC_PUSH(ctx, &s, ex);
      }
      ok = ok && push_kids(ctx, &s, n);
    }
    if (!st && !ok) st = psgi_nomem(ctx);
  }
  PSGI_VEC_FREE(ctx, &s);
  return st;
}

/* TVM's LivenessAnalysis: a buffer dies at the last point touching it and
 * is born at the entry (or leaf) of the first. */
static psg_status liveness(finder *f) {
  psg_ctx *ctx = f->ctx;
  psgi_map seen;
  psgi_map_init(&seen, ctx);
  psg_status st = PSG_OK;
  for (size_t i = f->seq.len; i-- > 0 && !st;) {
    point *pt = &f->seq.data[i];
    for (size_t k = 0; k < pt->touched.len && !st; k++) {
      bool is_new;
      if (!psgi_map_put_ptr(&seen, pt->touched.data[k], &is_new)) st = psgi_nomem(ctx);
      else if (is_new && !PSGI_VEC_PUSH(ctx, &pt->kill, pt->touched.data[k])) st = psgi_nomem(ctx);
    }
  }
  psgi_map_fini(&seen);
  psgi_map_init(&seen, ctx);
  for (size_t i = 0; i < f->seq.len && !st; i++) {
    point *pt = &f->seq.data[i];
    if (pt->offset < 0) continue;
    const point *at = &f->seq.data[i + (size_t)pt->offset];
    for (size_t k = 0; k < at->touched.len && !st; k++) {
      bool is_new;
      if (!psgi_map_put_ptr(&seen, at->touched.data[k], &is_new)) st = psgi_nomem(ctx);
      else if (is_new && !PSGI_VEC_PUSH(ctx, &pt->gen, at->touched.data[k])) st = psgi_nomem(ctx);
    }
  }
  psgi_map_fini(&seen);
  return st;
}

/* TVM's InplaceOpVerifier: whether stmt, which gives birth to dst while src
 * dies, reads src only as `dst[idx] = f(src[idx])` with the same idx, never
 * reads dst, never reads memory inside an index, and touches neither var
 * opaquely. Walked with an explicit stack; the load nesting and the store
 * being checked travel with each item. */
typedef struct iitem {
  const psg_tir_node *n;
  int nest;
  const psg_tir_node *store;
} iitem;

static bool inplace_ok(psg_ctx *ctx, const psg_tir_node *stmt, const psg_tir_node *dst, const psg_tir_node *src,
                       bool *nomem) {
  switch (stmt->kind) {
  case PSG_TIR_ATTR_STMT:
  case PSG_TIR_FOR:
  case PSG_TIR_IF_THEN_ELSE:
  case PSG_TIR_WHILE:
  case PSG_TIR_BUFFER_STORE: break;
  default: return false;
  }
  PSGI_VEC(iitem) s = {0};
  iitem first = {stmt, 0, NULL};
  bool ok = PSGI_VEC_PUSH(ctx, &s, first), result = true;
  while (ok && result && s.len) {
    iitem it = s.data[--s.len];
    const psg_tir_node *n = it.n;
    switch (n->kind) {
    case PSG_TIR_VAR:
    case PSG_TIR_SIZE_VAR:
      if (n == dst || n == src) result = false;
      continue;
    case PSG_TIR_BUFFER: continue;
    case PSG_TIR_BUFFER_STORE: {
      size_t ni = psgi_tir_num_indices(n);
      psg_tir_node *const *idx = psgi_tir_indices(n);
      iitem v = {n->kids[1], it.nest, n->kids[0]->kids[0] == dst ? n : it.store};
      ok = PSGI_VEC_PUSH(ctx, &s, v);
      for (size_t i = 0; ok && i < ni; i++) {
        iitem x = {idx[i], it.nest + 1, it.store};
        ok = PSGI_VEC_PUSH(ctx, &s, x);
      }
      continue;
    }
    case PSG_TIR_BUFFER_LOAD: {
      const psg_tir_node *buf = n->kids[0]->kids[0];
      size_t ni = psgi_tir_num_indices(n);
      psg_tir_node *const *idx = psgi_tir_indices(n);
      if (buf == dst || it.nest != 0) {
        result = false;
        continue;
      }
      if (buf == src) {
        const psg_tir_node *st = it.store;
        if (!st || st->kids[1]->dtype != n->dtype || psgi_tir_num_indices(st) != ni) {
          result = false;
          continue;
        }
        psg_tir_node *const *sidx = psgi_tir_indices(st);
        for (size_t i = 0; i < ni && result; i++)
          if (!psg_arith_expr_equal(sidx[i], idx[i])) result = false;
        if (!result) continue;
      }
      for (size_t i = 0; ok && i < ni; i++) {
        iitem x = {idx[i], it.nest + 1, it.store};
        ok = PSGI_VEC_PUSH(ctx, &s, x);
      }
      continue;
    }
    case PSG_TIR_ATTR_STMT: {
      const char *k = attr_key(n);
      if (!strcmp(k, "extern_scope") || !strcmp(k, "volatile_scope")) {
        result = false;
        continue;
      }
      for (size_t i = 0; ok && i < 2; i++) {
        iitem x = {n->kids[i], it.nest, it.store};
        ok = PSGI_VEC_PUSH(ctx, &s, x);
      }
      continue;
    }
    case PSG_TIR_DECL_BUFFER: {
      iitem x = {n->kids[1], it.nest, it.store};
      ok = PSGI_VEC_PUSH(ctx, &s, x);
      continue;
    }
    default:
      for (size_t i = 0; ok && i < n->nkids; i++) {
        if (n->kind == PSG_TIR_ALLOCATE && i == 0) continue; /* its var is a definition */
        iitem x = {n->kids[i], it.nest, it.store};
        ok = PSGI_VEC_PUSH(ctx, &s, x);
      }
      continue;
    }
  }
  PSGI_VEC_FREE(ctx, &s);
  if (!ok) *nomem = true;
  return ok && result;
}

/* The memory planner (TVM's PlanMemory state). */
typedef struct free_slot {
  uint64_t nbits;
  psgi_sr_entry *e;
} free_slot;

typedef struct planner {
  psg_ctx *ctx;
  psgi_sr_plan *plan;
  const psg_tir_node *thread_scope;
  PSGI_VEC(free_slot) const_free; /* sorted by nbits; equal sizes in the order freed (a multimap) */
  PSGI_VEC(psgi_sr_entry *) sym_free;
  bool reuse;
} planner;

bool psgi_sr_is_special_tag(const char *tag) {
  return tag[0] && strcmp(tag, ".dyn") && strcmp(tag, ".workspace") && strcmp(tag, ".vtcm");
}

/* TVM's StorageScope::Create: the rank and the tag of a scope string. */
static bool parse_scope(const char *s, int *rank, const char **tag) {
  static const struct { const char *prefix; int rank; } ranks[] = {
      {"global", 0},          {"shared", 1},           {"warp", 2},
      {"local", 3},           {"wmma.matrix_a", 4},    {"wmma.matrix_b", 5},
      {"wmma.accumulator", 6}, {"texture", 7},          {"amx.tmm", 8},
      {"m16n8k8.matrixA", 9}, {"m16n8k8.matrixB", 10}, {"m16n8k8.matrixC", 11},
      {"metal.simdgroup", 12},
  };
  if (!s || !s[0]) {
    *rank = 0, *tag = "";
    return true;
  }
  for (size_t i = 0; i < sizeof ranks / sizeof *ranks; i++) {
    size_t len = strlen(ranks[i].prefix);
    if (!strncmp(s, ranks[i].prefix, len)) {
      *rank = ranks[i].rank, *tag = s + len;
      return true;
    }
  }
  return false;
}

/* Product of the constant extents of Allocate a (0 if one is symbolic). */
static uint64_t constant_size(const psg_tir_node *a) {
  uint64_t n = 1;
  for (size_t i = 3; i < a->nkids; i++) {
    if (a->kids[i]->kind != PSG_TIR_INT_IMM || a->kids[i]->u.int_value < 0) return 0;
    n *= (uint64_t)a->kids[i]->u.int_value;
  }
  return n;
}

static uint64_t elem_bits(psg_tir_dtype t) {
  return (uint64_t)psg_tir_dtype_bits(t) * (uint64_t)psg_tir_dtype_lanes(t);
}

static psgi_sr_entry *new_entry(planner *pl, const psg_tir_node *a, int rank, const char *tag,
                                uint64_t const_nbits) {
  psgi_sr_entry *e = psgi_calloc(pl->ctx, sizeof *e);
  if (!e) return NULL;
  if (!PSGI_VEC_PUSH(pl->ctx, &pl->plan->entries, e)) {
    psgi_free(pl->ctx, e);
    return NULL;
  }
  e->attach = pl->thread_scope;
  e->rank = rank;
  e->tag = tag;
  e->elem_type = psg_tir_dtype_with_lanes(a->dtype, 1);
  e->const_nbits = const_nbits;
  return e;
}

static void erase_const(planner *pl, size_t i) {
  memmove(pl->const_free.data + i, pl->const_free.data + i + 1,
          (pl->const_free.len - i - 1) * sizeof *pl->const_free.data);
  pl->const_free.len--;
}

/* First index whose size is >= nbits (lower_bound) or > nbits (upper). */
static size_t bound(const planner *pl, uint64_t nbits, bool upper) {
  size_t lo = 0, hi = pl->const_free.len;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    uint64_t v = pl->const_free.data[mid].nbits;
    if (v < nbits || (upper && v == nbits)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static bool same_scope(const psgi_sr_entry *e, const planner *pl, int rank, const char *tag) {
  return e->attach == pl->thread_scope && e->rank == rank && !strcmp(e->tag, tag);
}

/* TVM's FindAlloc: a free storage for Allocate a, else a new one. */
static psgi_sr_entry *find_alloc(planner *pl, const psg_tir_node *a, int rank, const char *tag) {
  const uint64_t match_range = 16;
  uint64_t op_bits = elem_bits(a->dtype), const_nbits = constant_size(a) * op_bits;
  bool flat = a->nkids - 3 == 1;
  bool small = !tag[0] && (rank >= PSGI_SR_WARP || psg_tir_dtype_is_handle(a->dtype) ||
                           (const_nbits && const_nbits <= 32));
  if (!pl->reuse || small || !flat) return new_entry(pl, a, rank, tag, const_nbits);
  psg_tir_dtype elem = psg_tir_dtype_with_lanes(a->dtype, 1);
  if (const_nbits) {
    size_t begin = bound(pl, const_nbits / match_range, false), mid = bound(pl, const_nbits, false);
    size_t end = bound(pl, const_nbits * match_range, true);
    for (size_t i = mid; i < end; i++) { /* a larger one first: any element type */
      psgi_sr_entry *e = pl->const_free.data[i].e;
      if (!same_scope(e, pl, rank, tag) || e->bits_offset % op_bits) continue;
      if (const_nbits > e->const_nbits) e->const_nbits = const_nbits;
      erase_const(pl, i);
      return e;
    }
    for (size_t i = mid; i-- > begin;) { /* then a smaller one of the same element type */
      psgi_sr_entry *e = pl->const_free.data[i].e;
      if (!same_scope(e, pl, rank, tag) || e->elem_type != elem) continue;
      if (const_nbits > e->const_nbits) e->const_nbits = const_nbits;
      erase_const(pl, i);
      return e;
    }
  } else {
    for (size_t i = 0; i < pl->sym_free.len; i++) {
      psgi_sr_entry *e = pl->sym_free.data[i];
      if (!same_scope(e, pl, rank, tag) || e->elem_type != elem) continue;
      memmove(pl->sym_free.data + i, pl->sym_free.data + i + 1, (pl->sym_free.len - i - 1) * sizeof e);
      pl->sym_free.len--;
      return e;
    }
  }
  return new_entry(pl, a, rank, tag, const_nbits);
}

/* TVM's Free: the storage of a dead buffer becomes reusable, except local
 * and handle storage of no tag and arrays of at most 32 bits. */
static bool release(planner *pl, psgi_sr_entry *e) {
  if (!e->tag[0]) {
    if (e->rank >= PSGI_SR_WARP || psg_tir_dtype_is_handle(e->allocs.data[0]->dtype)) return true;
    if (e->const_nbits > 0 && e->const_nbits <= 32) return true;
  }
  if (!e->const_nbits) return PSGI_VEC_PUSH(pl->ctx, &pl->sym_free, e);
  if (!PSGI_VEC_RESERVE(pl->ctx, &pl->const_free, pl->const_free.len + 1)) return false;
  size_t at = bound(pl, e->const_nbits, true);
  memmove(pl->const_free.data + at + 1, pl->const_free.data + at,
          (pl->const_free.len - at) * sizeof *pl->const_free.data);
  pl->const_free.data[at] = (free_slot){e->const_nbits, e};
  pl->const_free.len++;
  return true;
}

/* TVM's PlanNewScope: entering a thread scope, or leaving it (its free
 * storages can no longer be reused outside). */
static psg_status plan_new_scope(planner *pl, const psg_tir_node *op) {
  if (!pl->thread_scope) {
    pl->thread_scope = op;
    return PSG_OK;
  }
  if (pl->thread_scope != op)
    return psg_ctx_fail(pl->ctx, PSG_ERR_UNSUPPORTED,
                        "tir.StorageRewrite: a virtual_thread or pragma scope inside a thread scope (run "
                        "tir.InjectVirtualThread first)");
  size_t k = 0;
  for (size_t i = 0; i < pl->const_free.len; i++)
    if (pl->const_free.data[i].e->attach != op) pl->const_free.data[k++] = pl->const_free.data[i];
  pl->const_free.len = k;
  k = 0;
  for (size_t i = 0; i < pl->sym_free.len; i++)
    if (pl->sym_free.data[i]->attach != op) pl->sym_free.data[k++] = pl->sym_free.data[i];
  pl->sym_free.len = k;
  pl->thread_scope = NULL;
  return PSG_OK;
}

static psg_status scope_of_var(planner *pl, const psg_tir_node *v, int *rank, const char **tag) {
  const char *scope = psg_tir_pointer_type_scope(psg_tir_var_get_type(v));
  if (!parse_scope(scope, rank, tag))
    return psg_ctx_fail(pl->ctx, PSG_ERR_UNSUPPORTED, "tir.StorageRewrite: unknown storage scope '%s' of '%s'",
                        scope, psg_tir_var_name(v));
  return PSG_OK;
}

/* TVM's PlanMemory with detect_inplace. */
static psg_status plan_memory(planner *pl, finder *f) {
  psg_ctx *ctx = pl->ctx;
  psgi_sr_plan *p = pl->plan;
  psgi_map inplace;
  psgi_map_init(&inplace, ctx);
  psg_status st = PSG_OK;
  for (size_t i = 0; i < f->seq.len && !st; i++) {
    const point *pt = &f->seq.data[i];
    if (pt->offset >= 0 && pt->gen.len) {
      const node_vec *kill = &f->seq.data[i + (size_t)pt->offset].kill;
      bool detect = pt->gen.len <= 2;
      for (size_t g = 0; g < pt->gen.len && !st; g++) {
        const psg_tir_node *var = pt->gen.data[g];
        const alloc_info *ai = &f->infos.data[(size_t)psgi_map_get_ptr(&f->info_of, var)->value - 1];
        const psg_tir_node *a = ai->alloc;
        int rank = 0;
        const char *tag = "";
        if ((st = scope_of_var(pl, var, &rank, &tag))) break;
        psgi_sr_entry *dst = NULL;
        if (ai->pinned) {
          if (!(dst = new_entry(pl, a, rank, tag, constant_size(a) * elem_bits(a->dtype)))) st = psgi_nomem(ctx);
          else dst->pinned = true;
        }
        for (size_t k = 0; detect && !ai->pinned && k < kill->len && !dst; k++) {
          const psg_tir_node *src = kill->data[k];
          psgi_sr_entry *se = psgi_sr_entry_of(p, src);
          if (!se || se->pinned || psgi_map_get_ptr(&inplace, src)) continue;
          if (!same_scope(se, pl, rank, tag) || se->elem_type != psg_tir_dtype_with_lanes(a->dtype, 1)) continue;
          bool nomem = false;
          if (!inplace_ok(ctx, pt->stmt, var, src, &nomem)) {
            if (nomem) st = psgi_nomem(ctx);
            continue;
          }
          if (se->const_nbits != constant_size(a) * elem_bits(a->dtype)) continue;
          psgi_map_entry *me = psgi_map_put_ptr(&inplace, src, NULL);
          if (!me) st = psgi_nomem(ctx);
          else me->value = (void *)1, dst = se;
        }
        if (st) break;
        if (!dst && !(dst = find_alloc(pl, a, rank, tag))) st = psgi_nomem(ctx);
        psgi_map_entry *me = st ? NULL : psgi_map_put_ptr(&p->alloc_map, var, NULL);
        if (!st && (!me || !PSGI_VEC_PUSH(ctx, &dst->allocs, a))) st = psgi_nomem(ctx);
        if (!st) me->value = dst;
      }
    }
    if (st) break;
    const psg_tir_node *s = pt->stmt;
    if (s->kind == PSG_TIR_ATTR_STMT) {
      const char *k = attr_key(s);
      if (!strcmp(k, "thread_extent") || !strcmp(k, "virtual_thread") || !strncmp(k, "pragma_", 7))
        st = plan_new_scope(pl, s);
    } else if (s->kind == PSG_TIR_FOR && s->u.loop.kind == PSG_TIR_FOR_PARALLEL &&
               (!pl->thread_scope || pl->thread_scope == s)) {
      st = plan_new_scope(pl, s);
    }
    if (st || pt->offset > 0) continue;
    for (size_t k = 0; k < pt->kill.len && !st; k++) {
      const psg_tir_node *var = pt->kill.data[k];
      if (psgi_map_get_ptr(&inplace, var)) continue;
      psgi_sr_entry *e = psgi_sr_entry_of(p, var);
      if (e && !e->pinned && !release(pl, e)) st = psgi_nomem(ctx);
    }
  }
  psgi_map_fini(&inplace);
  return st;
}

psgi_sr_entry *psgi_sr_entry_of(const psgi_sr_plan *p, const psg_tir_node *v) {
  psgi_map_entry *e = psgi_map_get_ptr(&p->alloc_map, v);
  return e ? e->value : NULL;
}

psg_status psgi_sr_plan_build(psgi_sr_plan *p, const psg_tir_node *body, bool reuse) {
  psg_ctx *ctx = p->ctx;
  finder f = {.ctx = ctx};
  psgi_map_init(&f.info_of, ctx);
  psgi_map_init(&f.bound, ctx);
  planner pl = {.ctx = ctx, .plan = p, .reuse = reuse};
  psg_status st = find_pattern(&f, p, body);
  if (!st) st = liveness(&f);
  if (!st) st = plan_memory(&pl, &f);
  for (size_t i = 0; i < f.seq.len; i++) {
    PSGI_VEC_FREE(ctx, &f.seq.data[i].touched);
    PSGI_VEC_FREE(ctx, &f.seq.data[i].gen);
    PSGI_VEC_FREE(ctx, &f.seq.data[i].kill);
  }
  for (size_t i = 0; i < f.scopes.len; i++) PSGI_VEC_FREE(ctx, &f.scopes.data[i]);
  PSGI_VEC_FREE(ctx, &f.seq);
  PSGI_VEC_FREE(ctx, &f.scopes);
  PSGI_VEC_FREE(ctx, &f.infos);
  psgi_map_fini(&f.info_of);
  psgi_map_fini(&f.bound);
  PSGI_VEC_FREE(ctx, &pl.const_free);
  PSGI_VEC_FREE(ctx, &pl.sym_free);
  return st;
}

void psgi_sr_plan_fini(psgi_sr_plan *p) {
  for (size_t i = 0; i < p->entries.len; i++) {
    psgi_sr_entry *e = p->entries.data[i];
    PSGI_VEC_FREE(p->ctx, &e->allocs);
    PSGI_VEC_FREE(p->ctx, &e->merged);
    for (size_t k = 0; k < e->extents.len; k++) psg_tir_release(e->extents.data[k]);
    PSGI_VEC_FREE(p->ctx, &e->extents);
    psg_tir_release(e->condition);
    psg_tir_release(e->alloc_var);
    psgi_free(p->ctx, e);
  }
  PSGI_VEC_FREE(p->ctx, &p->entries);
  psgi_map_fini(&p->alloc_map);
  psgi_map_fini(&p->accessed);
}
