/* Passage — the analyses under tir.CommonSubexprElimTIR (TVM's
 * common_subexpr_elim_tools.cc): which computations a statement or an
 * expression does and how often (its "computation table"), the eligibility
 * of a computation, its size and its legacy text (the sort keys TVM uses).
 * Every walk is iterative. */
#include <string.h>
#include "tir/transforms/cse.h"

/* What the pass asks of an expression node, memoized per node for the
 * whole pass (computed bottom up, so each node is walked once however often
 * its subtrees are asked about): TVM's ForbiddenComputation (a Call or a
 * BufferLoad anywhere in it), CalculateExprComplexity (its tree's nodes over
 * the visited slots) and a structural hash agreeing with
 * psg_arith_expr_equal (vars and non-expression operands by identity). */
/* One round of a 64-bit finalizer over h and v (one per operand). */
static inline uint64_t mix(uint64_t h, uint64_t v) {
  uint64_t x = h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* The hash of n's own fields: kind, flags, dtype, and the payload a
 * constant, var or call carries (vars by identity). The hashes only sort
 * nodes into buckets (equal ones are compared), so any function that
 * agrees with psg_arith_expr_equal will do: one mix per node. */
static inline uint64_t header_hash(const psg_tir_node *n) {
  uint64_t h = ((uint64_t)n->kind << 40 | (uint64_t)n->flags << 32 | n->dtype) * 0x9e3779b97f4a7c15ull;
  switch (n->kind) {
  case PSG_TIR_VAR:
  case PSG_TIR_SIZE_VAR: return mix(h, (uint64_t)(uintptr_t)n);
  case PSG_TIR_INT_IMM: return mix(h, (uint64_t)n->u.int_value);
  case PSG_TIR_FLOAT_IMM: {
    uint64_t bits;
    memcpy(&bits, &n->u.float_value, sizeof bits);
    return mix(h, bits);
  }
  case PSG_TIR_CALL: return mix(h, n->u.op);
  case PSG_TIR_STRING_IMM: return mix(h, psgi_hash_bytes(n->u.str.s, n->u.str.len));
  default: return h;
  }
}

/* What the pass asks of an expression node, memoized per node for the
 * whole pass (computed bottom up, so each node is walked once however often
 * its subtrees are asked about): TVM's ForbiddenComputation (a Call or a
 * BufferLoad anywhere in it), CalculateExprComplexity (its tree's nodes over
 * the visited slots) and a structural hash agreeing with
 * psg_arith_expr_equal (vars and non-expression operands by identity). */

/* Records e (not cached yet) as the owner of infos[index - 1], the last. */
static bool info_put(psgi_cse_tables *c, const psg_tir_node *e, size_t index) {
  if (2 * index > c->info_cap) {
    size_t ncap = c->info_cap ? 2 * c->info_cap : 256, ocap = c->info_cap;
    struct psgi_cse_info_slot *ns = psgi_calloc(c->ctx, psgi_mul_size(ncap, sizeof *ns)), *old = c->info_slots;
    if (!ns) return false;
    c->info_slots = ns;
    c->info_cap = ncap;
    for (size_t k = 0; k < ocap; k++) {
      if (!old[k].key) continue;
      size_t i = psgi_cse_info_home(c, old[k].key);
      while (ns[i].key) i = (i + 1) & (ncap - 1);
      ns[i] = old[k];
    }
    psgi_free(c->ctx, old);
  }
  size_t i = psgi_cse_info_home(c, e);
  while (c->info_slots[i].key) i = (i + 1) & (c->info_cap - 1);
  c->info_slots[i].key = e;
  c->info_slots[i].index = index;
  return true;
}

/* A constant or var without operands: its info is made on the spot (not
 * cached: it reads the node alone). */
static bool plain_leaf(const psg_tir_node *n) { return n->nkids == 0 && psgi_cse_is_leaf(n); }

/* An operand's part in its parent's info: its info, or (not an
 * expression) its identity's hash alone. */
typedef struct operand {
  psgi_cse_info info;
  bool expr;
} operand;

/* n's info from its operands' (`ops`, one per operand). */
static psgi_cse_info node_info(const psg_tir_node *n, const operand *ops) {
  psgi_cse_info r = {header_hash(n), 1, n->kind == PSG_TIR_CALL || n->kind == PSG_TIR_BUFFER_LOAD};
  for (uint32_t i = 0; i < n->nkids; i++) {
    r.hash = mix(r.hash, ops[i].info.hash);
    if (!ops[i].expr) continue;
    r.forbidden |= ops[i].info.forbidden;
    if (psgi_cse_visited_slot(n, i)) r.complexity += ops[i].info.complexity;
  }
  return r;
}

psg_status psgi_cse_info_compute(psgi_cse_tables *c, const psg_tir_node *e, psgi_cse_info *out) {
  if (plain_leaf(e)) {
    *out = (psgi_cse_info){header_hash(e), 1, false};
    return PSG_OK;
  }
  size_t have = psgi_cse_cached_index(c, e);
  if (have) {
    *out = c->infos.data[have - 1];
    return PSG_OK;
  }
  psg_ctx *ctx = c->ctx;
  /* A depth-first walk taking the operands in order: an operand that is a
   * leaf or has its info puts it on the value stack, any other is walked
   * first (and puts its own when done), so a node's operands' infos are the
   * top nkids values when its walk ends, and a node reached again (shared)
   * has its info by then. Both stacks on the C stack while they fit. */
  typedef struct {
    const psg_tir_node *n;
    uint32_t next;
  } fr;
  fr fsmall[32], *st = fsmall;
  operand vsmall[64], *val = vsmall;
  size_t len = 0, cap = sizeof fsmall / sizeof *fsmall, vlen = 0, vcap = sizeof vsmall / sizeof *vsmall;
  psg_status s = PSG_OK;
  st[len++] = (fr){e, 0};
  while (!s && len) {
    fr *f = &st[len - 1];
    const psg_tir_node *n = f->n;
    if (f->next < n->nkids) {
      const psg_tir_node *k = n->kids[f->next++];
      operand o = {{0, 1, false}, true};
      size_t ki = 0;
      if (!psgi_tir_is_expr_kind(k->kind)) {
        o.info.hash = mix(0, (uint64_t)(uintptr_t)k), o.expr = false;
      } else if (plain_leaf(k)) {
        o.info.hash = header_hash(k);
      } else if ((ki = psgi_cse_cached_index(c, k))) {
        o.info = c->infos.data[ki - 1];
      } else { /* walked first */
        if (len == cap) {
          fr *nd = psgi_cse_stack_grow(ctx, st, len, len + 1, sizeof *nd, fsmall, &cap);
          if (!nd) {
            s = psgi_nomem(ctx);
            break;
          }
          st = nd;
        }
        st[len++] = (fr){k, 0};
        continue;
      }
      if (vlen == vcap) {
        operand *nv = psgi_cse_stack_grow(ctx, val, vlen, vlen + 1, sizeof *nv, vsmall, &vcap);
        if (!nv) {
          s = psgi_nomem(ctx);
          break;
        }
        val = nv;
      }
      val[vlen++] = o;
      continue;
    }
    len--;
    vlen -= n->nkids;
    operand o = {node_info(n, val + vlen), true};
    if (!PSGI_VEC_PUSH(ctx, &c->infos, o.info)) {
      s = psgi_nomem(ctx);
      break;
    }
    if (!info_put(c, n, c->infos.len)) {
      c->infos.len--;
      s = psgi_nomem(ctx);
      break;
    }
    psg_tir_retain((psg_tir_node *)n); /* the key stays alive while cached */
    if (vlen == vcap) { /* n had no operands */
      operand *nv = psgi_cse_stack_grow(ctx, val, vlen, vlen + 1, sizeof *nv, vsmall, &vcap);
      if (!nv) {
        s = psgi_nomem(ctx);
        break;
      }
      val = nv;
    }
    val[vlen++] = o; /* its parent's operand */
  }
  if (!s) *out = val[0].info;
  if (st != fsmall) psgi_free(ctx, st);
  if (val != vsmall) psgi_free(ctx, val);
  return s;
}

void *psgi_cse_stack_grow(psg_ctx *ctx, void *data, size_t len, size_t need, size_t size, const void *small,
                          size_t *cap) {
  size_t ncap = 2 * need;
  void *nd = psgi_alloc(ctx, psgi_mul_size(ncap, size));
  if (!nd) return NULL;
  memcpy(nd, data, len * size);
  if (data != small) psgi_free(ctx, data);
  *cap = ncap;
  return nd;
}

bool psgi_cse_eligible(psgi_cse_tables *c, const psg_tir_node *e, bool *oom) {
  if (!psgi_tir_is_expr_kind(e->kind) || psgi_cse_is_leaf(e)) return false;
  if (e->kind == PSG_TIR_RAMP || e->kind == PSG_TIR_BROADCAST) return false;
  psgi_cse_info in;
  if (psgi_cse_info_of(c, e, &in)) {
    *oom = true;
    return false;
  }
  return !in.forbidden;
}

/* Legacy text (TVM's AsLegacyRepr) ---------------------------------------- */

typedef struct piece {
  const psg_tir_node *n; /* a node to print, or NULL: the literal s */
  const char *s;
} piece;

static const char *binary_op(int kind) {
  switch (kind) {
  case PSG_TIR_ADD: return " + ";
  case PSG_TIR_SUB: return " - ";
  case PSG_TIR_MUL: return "*";
  case PSG_TIR_DIV: return "/";
  case PSG_TIR_MOD: return " % ";
  case PSG_TIR_EQ: return " == ";
  case PSG_TIR_NE: return " != ";
  case PSG_TIR_LT: return " < ";
  case PSG_TIR_LE: return " <= ";
  case PSG_TIR_GT: return " > ";
  case PSG_TIR_GE: return " >= ";
  case PSG_TIR_AND: return " && ";
  case PSG_TIR_OR: return " || ";
  default: return NULL;
  }
}

static const char *call_form(int kind) {
  switch (kind) {
  case PSG_TIR_FLOOR_DIV: return "floordiv(";
  case PSG_TIR_FLOOR_MOD: return "floormod(";
  case PSG_TIR_MIN: return "min(";
  case PSG_TIR_MAX: return "max(";
  case PSG_TIR_SELECT: return "select(";
  case PSG_TIR_RAMP: return "ramp(";
  default: return NULL;
  }
}

/* v in decimal, as "%lld" prints it (without printf: the repr's most
 * frequent piece). */
static void put_int(psgi_buf *out, int64_t v) {
  char d[24], *p = d + sizeof d;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do *--p = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) *--p = '-';
  psgi_buf_append(out, p, (size_t)(d + sizeof d - p));
}

psg_status psgi_cse_repr(psg_ctx *ctx, const psg_tir_node *e, psgi_buf *out) {
  PSGI_VEC(piece) st = {0};
  bool ok = PSGI_VEC_PUSH(ctx, &st, ((piece){e, NULL}));
  while (ok && st.len) {
    piece p = st.data[--st.len];
    if (!p.n) {
      psgi_buf_puts(out, p.s);
      continue;
    }
    const psg_tir_node *n = p.n;
    psgi_tir_dtype_name_buf dn;
    const char *op = binary_op(n->kind), *form = call_form(n->kind);
    if (op) {
      ok = PSGI_VEC_PUSH(ctx, &st, ((piece){NULL, ")"})) && PSGI_VEC_PUSH(ctx, &st, ((piece){n->kids[1], NULL})) &&
           PSGI_VEC_PUSH(ctx, &st, ((piece){NULL, op})) && PSGI_VEC_PUSH(ctx, &st, ((piece){n->kids[0], NULL}));
      psgi_buf_putc(out, '(');
    } else if (form || n->kind == PSG_TIR_CALL) {
      if (form) psgi_buf_puts(out, form);
      else psgi_buf_printf(out, "%s(", psgi_tir_ops[n->u.op].name);
      ok = PSGI_VEC_PUSH(ctx, &st, ((piece){NULL, ")"}));
      for (uint32_t i = n->nkids; ok && i-- > 0;)
        ok = PSGI_VEC_PUSH(ctx, &st, ((piece){n->kids[i], NULL})) &&
             (i == 0 || PSGI_VEC_PUSH(ctx, &st, ((piece){NULL, ", "})));
    } else {
      switch (n->kind) {
      case PSG_TIR_VAR:
      case PSG_TIR_SIZE_VAR: psgi_buf_puts(out, n->u.var.name); break;
      case PSG_TIR_INT_IMM:
        if (n->dtype == psg_tir_dtype_int32()) put_int(out, n->u.int_value);
        else psgi_buf_printf(out, "(%s)%lld", psgi_tir_dtype_name(n->dtype, &dn), (long long)n->u.int_value);
        break;
      case PSG_TIR_FLOAT_IMM: {
        int bits = psg_tir_dtype_bits(n->dtype);
        psgi_buf_printf(out, "%g%s", n->u.float_value, bits == 32 ? "f" : bits == 16 ? "h" : "");
        break;
      }
      case PSG_TIR_STRING_IMM: psgi_buf_printf(out, "\"%.*s\"", (int)n->u.str.len, n->u.str.s); break;
      case PSG_TIR_CAST:
      case PSG_TIR_BROADCAST:
        if (n->kind == PSG_TIR_CAST) psgi_buf_printf(out, "%s(", psgi_tir_dtype_name(n->dtype, &dn));
        else psgi_buf_printf(out, "x%d(", psg_tir_dtype_lanes(n->dtype));
        ok = PSGI_VEC_PUSH(ctx, &st, ((piece){NULL, ")"})) && PSGI_VEC_PUSH(ctx, &st, ((piece){n->kids[0], NULL}));
        break;
      case PSG_TIR_NOT:
        psgi_buf_putc(out, '!');
        ok = PSGI_VEC_PUSH(ctx, &st, ((piece){n->kids[0], NULL}));
        break;
      case PSG_TIR_LET:
        psgi_buf_printf(out, "(let %s = ", n->kids[0]->u.var.name);
        ok = PSGI_VEC_PUSH(ctx, &st, ((piece){NULL, ")"})) && PSGI_VEC_PUSH(ctx, &st, ((piece){n->kids[2], NULL})) &&
             PSGI_VEC_PUSH(ctx, &st, ((piece){NULL, " in "})) && PSGI_VEC_PUSH(ctx, &st, ((piece){n->kids[1], NULL}));
        break;
      case PSG_TIR_BUFFER_LOAD:
        psgi_buf_printf(out, "%s[", n->kids[0]->u.buf.name);
        ok = PSGI_VEC_PUSH(ctx, &st, ((piece){NULL, "]"}));
        for (uint32_t i = n->nkids; ok && i-- > 1;)
          ok = PSGI_VEC_PUSH(ctx, &st, ((piece){n->kids[i], NULL})) &&
               (i == 1 || PSGI_VEC_PUSH(ctx, &st, ((piece){NULL, ", "})));
        break;
      default: psgi_buf_puts(out, psg_tir_kind_name(n->kind)); break;
      }
    }
  }
  PSGI_VEC_FREE(ctx, &st);
  return ok && !out->failed ? PSG_OK : psgi_nomem(ctx);
}

/* Computation tables --------------------------------------------------------- */

void psgi_cse_table_init(psgi_cse_table *t, psg_ctx *ctx) {
  memset(t, 0, sizeof *t);
  psgi_map_init(&t->index, ctx);
}

void psgi_cse_table_fini(psg_ctx *ctx, psgi_cse_table *t) {
  for (size_t i = 0; i < t->items.len; i++) psg_tir_release(t->items.data[i].e);
  PSGI_VEC_FREE(ctx, &t->items);
  psgi_map_fini(&t->index);
}

/* The entry of e in t, or NULL. */
static psgi_cse_comp *find(const psgi_cse_table *t, const psg_tir_node *e, uint64_t h) {
  psgi_map_entry *me = psgi_map_get_ptr(&t->index, (const void *)(uintptr_t)(h | 1));
  for (size_t i = me ? (size_t)(uintptr_t)me->value : 0; i; i = t->items.data[i - 1].next)
    if (psg_arith_expr_equal(t->items.data[i - 1].e, e)) return &t->items.data[i - 1];
  return NULL;
}

psg_status psgi_cse_table_add(psg_ctx *ctx, psgi_cse_table *t, psg_tir_node *e, uint64_t h, size_t count) {
  psgi_cse_comp *c = find(t, e, h);
  if (c) {
    c->count += count;
    return PSG_OK;
  }
  psgi_map_entry *me = psgi_map_put_ptr(&t->index, (const void *)(uintptr_t)(h | 1), NULL);
  if (!me) return psgi_nomem(ctx);
  psgi_cse_comp nc = {e, count, h, (size_t)(uintptr_t)me->value};
  if (!PSGI_VEC_PUSH(ctx, &t->items, nc)) return psgi_nomem(ctx);
  psg_tir_retain(e);
  me->value = (void *)(uintptr_t)t->items.len;
  return PSG_OK;
}

size_t psgi_cse_table_count(const psgi_cse_table *t, const psg_tir_node *e, uint64_t h) {
  psgi_cse_comp *c = find(t, e, h);
  return c ? c->count : 0;
}

psg_status psgi_cse_expr_table(psgi_cse_tables *c, const psg_tir_node *e, psgi_cse_table *t) {
  psg_ctx *ctx = c->ctx;
  psgi_cse_nodes st;
  psgi_cse_nodes_init(&st);
  psg_status s = PSG_OK;
  if (!psgi_cse_is_leaf(e)) st.data[st.len++] = e;
  while (!s && st.len) {
    const psg_tir_node *n = st.data[--st.len];
    /* psgi_cse_eligible, with the info read once */
    if (psgi_tir_is_expr_kind(n->kind) && n->kind != PSG_TIR_RAMP && n->kind != PSG_TIR_BROADCAST) {
      psgi_cse_info in;
      if ((s = psgi_cse_info_of(c, n, &in))) break;
      if (!in.forbidden) {
        s = psgi_cse_table_add(ctx, t, (psg_tir_node *)n, in.hash, 1);
        continue;
      }
    }
    for (uint32_t i = n->nkids; !s && i-- > 0;)
      if (psgi_cse_visited_slot(n, i) && !psgi_cse_is_leaf(n->kids[i]) && !psgi_cse_nodes_push(ctx, &st, n->kids[i]))
        s = psgi_nomem(ctx);
  }
  psgi_cse_nodes_fini(ctx, &st);
  return s;
}

static psg_status union_into(psg_ctx *ctx, psgi_cse_table *dst, const psgi_cse_table *src) {
  psg_status s = PSG_OK;
  for (size_t i = 0; !s && i < src->items.len; i++)
    s = psgi_cse_table_add(ctx, dst, src->items.data[i].e, src->items.data[i].hash, src->items.data[i].count);
  return s;
}

/* TVM's BuildTableForThreeChildrenNode: what at least two of the three do,
 * seen as often as all three see it (b3 may be NULL: empty). And, with
 * b3 == NULL and `two`, TVM's intersection of two tables (While). */
static psg_status three_children(psg_ctx *ctx, const psgi_cse_table *t[3], psgi_cse_table *out) {
  psg_status s = PSG_OK;
  /* what two tables do needs two non-empty tables (a loop with constant
   * bounds: only its body's) */
  if ((t[0]->items.len > 0) + (t[1]->items.len > 0) + (t[2]->items.len > 0) < 2) return PSG_OK;
  for (int k = 0; k < 3 && !s; k++) {
    for (size_t i = 0; !s && i < t[k]->items.len; i++) {
      const psgi_cse_comp *c = &t[k]->items.data[i];
      if (psgi_cse_table_count(out, c->e, c->hash)) continue;
      size_t seen = 0, total = 0;
      for (int j = 0; j < 3; j++) {
        size_t n = psgi_cse_table_count(t[j], c->e, c->hash);
        seen += n > 0;
        total += n;
      }
      if (seen >= 2) s = psgi_cse_table_add(ctx, out, c->e, c->hash, total);
    }
  }
  return s;
}

/* A loop whose min and extent are constants or vars: its table is empty
 * whatever its body does (see three_children). */
static bool leaf_bounds(const psg_tir_node *s) {
  return s->kind == PSG_TIR_FOR && psgi_cse_is_leaf(s->kids[1]) && psgi_cse_is_leaf(s->kids[2]);
}

/* The table of statement s's own children (cached tables of its child
 * statements must exist). */
static psg_status stmt_table_of(psgi_cse_tables *c, const psg_tir_node *s, psgi_cse_table *out) {
  psg_ctx *ctx = c->ctx;
  psg_status st = PSG_OK;
  if (s->kind != PSG_TIR_FOR && s->kind != PSG_TIR_IF_THEN_ELSE && s->kind != PSG_TIR_WHILE) {
    for (uint32_t i = 0; !st && i < s->nkids; i++) {
      if (!psgi_cse_visited_slot(s, i)) continue;
      const psg_tir_node *k = s->kids[i];
      if (psgi_tir_is_expr_kind(k->kind)) st = psgi_cse_expr_table(c, k, out);
      else st = union_into(ctx, out, psgi_cse_cached_table(c, k));
    }
    return st;
  }
  if (c->lazy_loops && leaf_bounds(s)) return PSG_OK; /* what two of min, extent, body do: nothing */
  psgi_cse_table parts[3], empty;
  psgi_cse_table_init(&empty, ctx);
  for (int k = 0; k < 3; k++) psgi_cse_table_init(&parts[k], ctx);
  const psgi_cse_table *t[3] = {&parts[0], &parts[1], &empty};
  if (s->kind == PSG_TIR_FOR) {
    st = psgi_cse_expr_table(c, s->kids[1], &parts[0]);
    if (!st) st = psgi_cse_expr_table(c, s->kids[2], &parts[1]);
    t[2] = psgi_cse_cached_table(c, s->kids[3]);
  } else if (s->kind == PSG_TIR_IF_THEN_ELSE) {
    st = psgi_cse_expr_table(c, s->kids[0], &parts[0]);
    t[1] = psgi_cse_cached_table(c, s->kids[1]);
    if (s->nkids > 2) t[2] = psgi_cse_cached_table(c, s->kids[2]);
  } else {
    st = psgi_cse_expr_table(c, s->kids[0], &parts[0]);
    t[1] = psgi_cse_cached_table(c, s->kids[1]);
  }
  if (!st) st = three_children(ctx, t, out);
  for (int k = 0; k < 3; k++) psgi_cse_table_fini(ctx, &parts[k]);
  psgi_cse_table_fini(ctx, &empty);
  return st;
}

const psgi_cse_table *psgi_cse_cached_table(psgi_cse_tables *c, const psg_tir_node *s) {
  psgi_map_entry *e = psgi_map_get_ptr(&c->cache, s);
  return e ? e->value : NULL;
}

static bool is_stmt(const psg_tir_node *n) { return n->kind >= PSG_TIR_FIRST_STMT && n->kind <= PSG_TIR_LAST_STMT; }

psg_status psgi_cse_stmt_table(psgi_cse_tables *c, const psg_tir_node *root, const psgi_cse_table **out) {
  psg_ctx *ctx = c->ctx;
  typedef struct { const psg_tir_node *n; uint32_t next; } fr;
  PSGI_VEC(fr) st = {0};
  psg_status s = PSG_OK;
  if (!psgi_cse_cached_table(c, root) && !PSGI_VEC_PUSH(ctx, &st, ((fr){root, 0}))) s = psgi_nomem(ctx);
  while (!s && st.len) {
    fr *f = &st.data[st.len - 1];
    bool pushed = false;
    if (c->lazy_loops && leaf_bounds(f->n)) f->next = f->n->nkids; /* its body's table is not needed */
    while (!pushed && f->next < f->n->nkids) { /* a push may move f: stop at once */
      const psg_tir_node *k = f->n->kids[f->next++];
      if (is_stmt(k) && !psgi_cse_cached_table(c, k)) {
        if (!PSGI_VEC_PUSH(ctx, &st, ((fr){k, 0}))) s = psgi_nomem(ctx);
        pushed = true;
      }
    }
    if (pushed || s) continue;
    const psg_tir_node *n = f->n; /* f is still valid: nothing was pushed */
    st.len--;
    if (psgi_cse_cached_table(c, n)) continue; /* shared statement */
    psgi_cse_table *t = psgi_alloc(ctx, sizeof *t);
    psgi_map_entry *me = t ? psgi_map_put_ptr(&c->cache, n, NULL) : NULL;
    if (!me) {
      psgi_free(ctx, t);
      s = psgi_nomem(ctx);
      break;
    }
    psgi_cse_table_init(t, ctx);
    me->value = t;
    psg_tir_retain((psg_tir_node *)n); /* the key stays alive while cached */
    s = stmt_table_of(c, n, t);
  }
  PSGI_VEC_FREE(ctx, &st);
  *out = s ? NULL : psgi_cse_cached_table(c, root);
  return s;
}

void psgi_cse_tables_init(psgi_cse_tables *c, psg_ctx *ctx) {
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  psgi_map_init(&c->cache, ctx);
}

void psgi_cse_tables_fini(psgi_cse_tables *c) {
  for (size_t i = 0; i < c->cache.len; i++) {
    psgi_cse_table *t = c->cache.entries[i].value;
    if (t) {
      psgi_cse_table_fini(c->ctx, t);
      psgi_free(c->ctx, t);
    }
    psg_tir_release((psg_tir_node *)c->cache.entries[i].key);
  }
  psgi_map_fini(&c->cache);
  for (size_t i = 0; i < c->info_cap; i++)
    if (c->info_slots[i].key) psg_tir_release((psg_tir_node *)c->info_slots[i].key);
  psgi_free(c->ctx, c->info_slots);
  PSGI_VEC_FREE(c->ctx, &c->infos);
}
