/* Passage — structural equality and hashing of TIR (TVM's StructuralEqual /
 * StructuralHash, spec/tir.md §2 "assert_structural_equal"): variables and
 * buffers are matched by where they are defined, not by name or identity.
 *
 * Definitions are the slots psgi_tir_visit_slot marks (PrimFunc params and
 * buffer-map buffers, Let/LetStmt/For vars, Allocate's buffer var,
 * DeclBuffer's buffer, every field of a Buffer). A var in a definition
 * position, or anywhere below one, binds to its counterpart (both must be
 * unbound, or bound to each other); elsewhere a bound var must meet its
 * partner and an unbound (free) var only itself. Buffers compare field-wise
 * (dtype, data, shape, strides, elem_offset, axis separators, alignment,
 * buffer type); name and offset_factor are ignored, scope is compared
 * through the data var's PointerType. Spans and var names are ignored.
 *
 * Both walks are iterative. Equality is a pre-order walk over pairs that
 * stops at the first difference, so a pair reached twice (a shared subtree)
 * is skipped once recorded: either its first comparison succeeded or the
 * walk has ended. */
#include <stdarg.h>
#include <stdio.h>
#include "tir/tir_internal.h"

/* Equality -------------------------------------------------------------------- */

typedef struct eq_task {
  const psg_tir_node *a, *b;
  bool bind;     /* a definition position, or below one */
  size_t parent; /* index in the log of the parent pair (SIZE_MAX: root) */
  uint32_t slot; /* operand slot in the parent */
} eq_task;

typedef struct equaler {
  psg_ctx *ctx;
  psgi_map fwd, rev; /* var bindings a -> b and b -> a; buffer and node pairs a -> b */
  psgi_map pairs;
  PSGI_VEC(eq_task) stack;
  PSGI_VEC(eq_task) log; /* popped tasks, only when a path is wanted */
  bool want_path, oom;
  bool map_free_vars; /* a free var may pair with another free var, once */
  char why[160];
  size_t fail_at; /* index in log of the failing pair */
} equaler;

static bool differ(equaler *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool differ(equaler *q, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(q->why, sizeof q->why, fmt, ap);
  va_end(ap);
  return false;
}

/* Binds or checks var a against var b. */
static bool match_var(equaler *q, const psg_tir_node *a, const psg_tir_node *b, bool bind) {
  psgi_tir_dtype_name_buf b1, b2;
  if (a->kind != b->kind) return differ(q, "%s vs %s", psg_tir_kind_name(a->kind), psg_tir_kind_name(b->kind));
  if (a->dtype != b->dtype)
    return differ(q, "var dtypes differ (%s vs %s)", psgi_tir_dtype_name(a->dtype, &b1), psgi_tir_dtype_name(b->dtype, &b2));
  if (!psg_tir_type_equal(a->u.var.type, b->u.var.type)) return differ(q, "var type annotations differ");
  psgi_map_entry *fa = psgi_map_get_ptr(&q->fwd, a), *rb = psgi_map_get_ptr(&q->rev, b);
  if (fa || rb) {
    if (fa && fa->value == b) return true;
    return differ(q, "var '%s' is bound to another var than '%s'", a->u.var.name, b->u.var.name);
  }
  if (!bind && !q->map_free_vars && a != b)
    return differ(q, "free vars '%s' and '%s' differ", a->u.var.name, b->u.var.name);
  psgi_map_entry *e1 = psgi_map_put_ptr(&q->fwd, a, NULL), *e2 = e1 ? psgi_map_put_ptr(&q->rev, b, NULL) : NULL;
  if (!e2) {
    q->oom = true;
    return false;
  }
  e1->value = (void *)b;
  e2->value = (void *)a;
  return true;
}

static bool same_int_array(const int64_t *a, const int64_t *b, size_t n) {
  return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

/* Compares what a and b hold apart from their operands. */
static bool shallow_equal(equaler *q, const psg_tir_node *a, const psg_tir_node *b) {
  psgi_tir_dtype_name_buf b1, b2;
  if (a->kind != b->kind) return differ(q, "%s vs %s", psg_tir_kind_name(a->kind), psg_tir_kind_name(b->kind));
  if (a->dtype != b->dtype)
    return differ(q, "dtypes differ (%s vs %s)", psgi_tir_dtype_name(a->dtype, &b1), psgi_tir_dtype_name(b->dtype, &b2));
  if (a->nkids != b->nkids || (a->flags & (PSGI_TIR_HAS_PRED | PSGI_TIR_HAS_NODE)) != (b->flags & (PSGI_TIR_HAS_PRED | PSGI_TIR_HAS_NODE)))
    return differ(q, "operand counts differ (%u vs %u)", a->nkids, b->nkids);
  switch (a->kind) {
  case PSG_TIR_INT_IMM:
    if (a->u.int_value != b->u.int_value)
      return differ(q, "IntImm values differ (%lld vs %lld)", (long long)a->u.int_value, (long long)b->u.int_value);
    return true;
  case PSG_TIR_FLOAT_IMM:
    /* bitwise, so NaN equals itself and -0.0 differs from 0.0 */
    if (memcmp(&a->u.float_value, &b->u.float_value, sizeof(double)) != 0)
      return differ(q, "FloatImm values differ (%g vs %g)", a->u.float_value, b->u.float_value);
    return true;
  case PSG_TIR_STRING_IMM:
    if (a->u.str.s != b->u.str.s) return differ(q, "StringImm values differ (\"%s\" vs \"%s\")", a->u.str.s, b->u.str.s);
    return true;
  case PSG_TIR_CALL:
    if (a->u.op != b->u.op)
      return differ(q, "ops differ (%s vs %s)", psgi_tir_ops[a->u.op].name, psgi_tir_ops[b->u.op].name);
    return true;
  case PSG_TIR_FOR:
    if (a->u.loop.kind != b->u.loop.kind)
      return differ(q, "loop kinds differ (%s vs %s)", psg_tir_for_kind_name(a->u.loop.kind), psg_tir_for_kind_name(b->u.loop.kind));
    if (!psg_attrs_equal(a->u.loop.annotations, b->u.loop.annotations)) return differ(q, "annotations differ");
    return true;
  case PSG_TIR_ALLOCATE:
    if (!psg_attrs_equal(a->u.annotations, b->u.annotations)) return differ(q, "annotations differ");
    return true;
  case PSG_TIR_ATTR_STMT:
    if (a->u.attr_key != b->u.attr_key) return differ(q, "attr keys differ (%s vs %s)", a->u.attr_key, b->u.attr_key);
    return true;
  case PSG_TIR_POINTER_TYPE:
    if (a->u.scope != b->u.scope) return differ(q, "storage scopes differ (%s vs %s)", a->u.scope, b->u.scope);
    return true;
  case PSG_TIR_ITER_VAR:
    if (a->u.iter.type != b->u.iter.type) return differ(q, "IterVar kinds differ");
    if (a->u.iter.tag != b->u.iter.tag)
      return differ(q, "thread tags differ (\"%s\" vs \"%s\")", a->u.iter.tag, b->u.iter.tag);
    return true;
  case PSG_TIR_BUFFER:
    if (a->u.buf.ndim != b->u.buf.ndim || a->u.buf.nstrides != b->u.buf.nstrides)
      return differ(q, "buffer ranks or strides differ");
    if (a->u.buf.data_alignment != b->u.buf.data_alignment) return differ(q, "data_alignment differs");
    if (a->u.buf.buffer_type != b->u.buf.buffer_type) return differ(q, "buffer_type differs");
    if (a->u.buf.naxis != b->u.buf.naxis ||
        !same_int_array(a->u.buf.axis_separators, b->u.buf.axis_separators, a->u.buf.naxis))
      return differ(q, "axis_separators differ");
    return true;
  case PSG_TIR_PRIM_FUNC:
    if (a->u.func.nparams != b->u.func.nparams) return differ(q, "param counts differ");
    for (uint32_t i = 0; i < a->u.func.nmap; i++)
      if (a->u.func.map_params[i] != b->u.func.map_params[i]) return differ(q, "buffer_map keys differ");
    if (!psg_tir_type_equal(a->u.func.ret_type, b->u.func.ret_type)) return differ(q, "ret_type differs");
    if (!psg_attrs_equal(a->u.func.attrs, b->u.func.attrs)) return differ(q, "attrs differ");
    return true;
  default:
    return true;
  }
}

static bool push(equaler *q, eq_task t) {
  if (!PSGI_VEC_PUSH(q->ctx, &q->stack, t)) q->oom = true;
  return !q->oom;
}

static bool run_equal(equaler *q, const psg_tir_node *a, const psg_tir_node *b) {
  if (!push(q, (eq_task){a, b, false, SIZE_MAX, 0})) return false;
  while (q->stack.len) {
    eq_task t = q->stack.data[--q->stack.len];
    size_t me = SIZE_MAX;
    if (q->want_path) {
      if (!PSGI_VEC_PUSH(q->ctx, &q->log, t)) return q->oom = true, false;
      me = q->log.len - 1;
    }
    q->fail_at = me;
    const psg_tir_node *x = t.a, *y = t.b;
    if (psgi_tir_is_var_kind(x->kind) || psgi_tir_is_var_kind(y->kind)) {
      if (!match_var(q, x, y, t.bind)) return false;
      continue;
    }
    psgi_map_entry *seen = psgi_map_get_ptr(&q->pairs, x);
    if (seen && seen->value == y) continue;
    if (!shallow_equal(q, x, y)) return false;
    psgi_map_entry *e = psgi_map_put_ptr(&q->pairs, x, NULL);
    if (!e) return q->oom = true, false;
    e->value = (void *)y;
    /* Push in reverse visit order: the first operand is compared first. */
    for (uint32_t k = x->nkids; k-- > 0;) {
      bool def;
      uint32_t slot = psgi_tir_visit_slot(x, k, &def);
      if (!push(q, (eq_task){x->kids[slot], y->kids[slot], t.bind || def, me, slot})) return false;
    }
  }
  return true;
}

/* "prefix.body.seq[3].value.b: IntImm values differ (1 vs 2)". */
static char *describe(equaler *q, const char *prefix) {
  psgi_buf b;
  psgi_buf_init(&b, q->ctx);
  PSGI_VEC(size_t) chain = {0};
  for (size_t i = q->fail_at; i != SIZE_MAX; i = q->log.data[i].parent)
    if (!PSGI_VEC_PUSH(q->ctx, &chain, i)) break;
  bool first = true;
  if (prefix && *prefix) {
    psgi_buf_puts(&b, prefix);
    first = false;
  }
  for (size_t k = chain.len; k-- > 0;) {
    const eq_task *t = &q->log.data[chain.data[k]];
    if (t->parent == SIZE_MAX) continue;
    char label[48];
    psgi_tir_field_label(q->log.data[t->parent].a, t->slot, label, sizeof label);
    if (!first) psgi_buf_putc(&b, '.');
    psgi_buf_puts(&b, label);
    first = false;
  }
  psgi_buf_printf(&b, "%s%s", first ? "" : ": ", q->why);
  PSGI_VEC_FREE(q->ctx, &chain);
  char *s = psgi_buf_detach_libc(&b, NULL);
  psgi_buf_fini(&b);
  return s;
}

static bool equal(const psg_tir_node *a, const psg_tir_node *b, bool map_free_vars, const char *prefix,
                  char **path) {
  if (path) *path = NULL;
  if (!a || !b) return a == b;
  equaler q;
  memset(&q, 0, sizeof q);
  q.ctx = a->ctx;
  q.want_path = path != NULL;
  q.map_free_vars = map_free_vars;
  psgi_map_init(&q.fwd, q.ctx);
  psgi_map_init(&q.rev, q.ctx);
  psgi_map_init(&q.pairs, q.ctx);
  bool eq = run_equal(&q, a, b);
  if (q.oom) {
    eq = false;
    snprintf(q.why, sizeof q.why, "out of memory while comparing");
    q.fail_at = SIZE_MAX;
  }
  if (!eq && path) *path = describe(&q, prefix);
  PSGI_VEC_FREE(q.ctx, &q.stack);
  PSGI_VEC_FREE(q.ctx, &q.log);
  psgi_map_fini(&q.fwd);
  psgi_map_fini(&q.rev);
  psgi_map_fini(&q.pairs);
  return eq;
}

bool psgi_tir_equal(const psg_tir_node *a, const psg_tir_node *b, const char *prefix, char **path) {
  return equal(a, b, false, prefix, path);
}

bool psg_tir_structural_equal(const psg_tir_node *a, const psg_tir_node *b) { return equal(a, b, false, NULL, NULL); }

bool psg_tir_structural_equal_explain(const psg_tir_node *a, const psg_tir_node *b, char **path) {
  return equal(a, b, false, NULL, path);
}

bool psg_tir_structural_equal_ex(const psg_tir_node *a, const psg_tir_node *b, bool map_free_vars, char **path) {
  return equal(a, b, map_free_vars, NULL, path);
}

/* Hashing --------------------------------------------------------------------- *
 * Post-order: a node's hash mixes its shallow fields with its operands'
 * hashes in visit order. A var hashes as the number of distinct vars met
 * before it (so equal structures number their vars alike) plus its dtype and
 * kind. Non-var nodes are memoized by identity. */

typedef struct hframe {
  const psg_tir_node *node;
  uint32_t next;
  uint64_t acc;
} hframe;

static uint64_t hash_str(const char *s) { return s ? psgi_hash_bytes(s, strlen(s)) : 0; }

static uint64_t type_hash(const psg_tir_node *t) {
  uint64_t h = 0x7e;
  for (; t; t = t->kind == PSG_TIR_POINTER_TYPE ? t->kids[0] : NULL) {
    h = psgi_hash_mix(h, (uint64_t)t->kind << 32 | t->dtype);
    if (t->kind == PSG_TIR_POINTER_TYPE) h = psgi_hash_mix(h, hash_str(t->u.scope));
  }
  return h;
}

static uint64_t attrs_hash(const psg_attrs *a) {
  /* Keys and count suffice: equal dicts hash alike. */
  size_t n = psg_attrs_count(a);
  uint64_t h = psgi_hash_mix(0xa7, n);
  for (size_t i = 0; i < n; i++) h = psgi_hash_mix(h, hash_str(psg_attrs_key(a, i)));
  return h;
}

static uint64_t shallow_hash(const psg_tir_node *n) {
  uint64_t h = psgi_hash_mix((uint64_t)n->kind * 0x9e3779b97f4a7c15ull, n->dtype);
  h = psgi_hash_mix(h, n->nkids);
  switch (n->kind) {
  case PSG_TIR_INT_IMM: return psgi_hash_mix(h, (uint64_t)n->u.int_value);
  case PSG_TIR_FLOAT_IMM: {
    uint64_t bits;
    memcpy(&bits, &n->u.float_value, sizeof bits);
    return psgi_hash_mix(h, bits);
  }
  case PSG_TIR_STRING_IMM: return psgi_hash_mix(h, psgi_hash_bytes(n->u.str.s, n->u.str.len));
  case PSG_TIR_CALL: return psgi_hash_mix(h, n->u.op);
  case PSG_TIR_FOR: return psgi_hash_mix(psgi_hash_mix(h, (uint64_t)n->u.loop.kind), attrs_hash(n->u.loop.annotations));
  case PSG_TIR_ALLOCATE: return psgi_hash_mix(h, attrs_hash(n->u.annotations));
  case PSG_TIR_ATTR_STMT: return psgi_hash_mix(h, hash_str(n->u.attr_key));
  case PSG_TIR_POINTER_TYPE: return psgi_hash_mix(h, hash_str(n->u.scope));
  case PSG_TIR_ITER_VAR: return psgi_hash_mix(psgi_hash_mix(h, (uint64_t)n->u.iter.type), hash_str(n->u.iter.tag));
  case PSG_TIR_BUFFER:
    h = psgi_hash_mix(h, (uint64_t)n->u.buf.ndim << 32 | n->u.buf.nstrides);
    h = psgi_hash_mix(h, (uint64_t)(uint32_t)n->u.buf.data_alignment << 8 | (uint32_t)n->u.buf.buffer_type);
    for (uint32_t i = 0; i < n->u.buf.naxis; i++) h = psgi_hash_mix(h, (uint64_t)n->u.buf.axis_separators[i]);
    return h;
  case PSG_TIR_PRIM_FUNC:
    h = psgi_hash_mix(h, n->u.func.nparams);
    for (uint32_t i = 0; i < n->u.func.nmap; i++) h = psgi_hash_mix(h, n->u.func.map_params[i]);
    return psgi_hash_mix(psgi_hash_mix(h, type_hash(n->u.func.ret_type)), attrs_hash(n->u.func.attrs));
  default: return h;
  }
}

uint64_t psg_tir_structural_hash(const psg_tir_node *root) {
  if (!root) return 0;
  psg_ctx *ctx = root->ctx;
  psgi_map vars, memo;
  psgi_map_init(&vars, ctx);
  psgi_map_init(&memo, ctx);
  PSGI_VEC(hframe) stack = {0};
  uint64_t result = 0;
  uint64_t nvars = 0;
  bool oom = false;
  /* The hash of a leaf-like node, or UINT64_MAX... never: leaves go through
   * the frame path too; vars are settled immediately. */
  if (!PSGI_VEC_PUSH(ctx, &stack, ((hframe){root, 0, shallow_hash(root)}))) oom = true;
  while (!oom && stack.len) {
    hframe *f = &stack.data[stack.len - 1];
    const psg_tir_node *n = f->node;
    if (f->next < n->nkids) {
      bool def;
      const psg_tir_node *k = n->kids[psgi_tir_visit_slot(n, f->next++, &def)];
      uint64_t kh;
      if (psgi_tir_is_var_kind(k->kind)) {
        bool is_new;
        psgi_map_entry *e = psgi_map_put_ptr(&vars, k, &is_new);
        if (!e) {
          oom = true;
          break;
        }
        if (is_new) e->value = (void *)(uintptr_t)++nvars;
        kh = psgi_hash_mix(psgi_hash_mix((uint64_t)k->kind << 32 | k->dtype, type_hash(k->u.var.type)),
                           (uintptr_t)e->value);
      } else {
        psgi_map_entry *m = psgi_map_get_ptr(&memo, k);
        if (!m) {
          if (!PSGI_VEC_PUSH(ctx, &stack, ((hframe){k, 0, shallow_hash(k)}))) oom = true;
          continue;
        }
        kh = (uint64_t)(uintptr_t)m->value;
      }
      f->acc = psgi_hash_mix(f->acc, kh);
      continue;
    }
    uint64_t h = f->acc;
    stack.len--;
    psgi_map_entry *m = psgi_map_put_ptr(&memo, n, NULL);
    if (!m) {
      oom = true;
      break;
    }
    m->value = (void *)(uintptr_t)h;
    if (stack.len) {
      hframe *p = &stack.data[stack.len - 1];
      p->acc = psgi_hash_mix(p->acc, h);
    } else {
      result = h;
    }
  }
  if (psgi_tir_is_var_kind(root->kind)) result = psgi_hash_mix((uint64_t)root->kind << 32 | root->dtype, type_hash(root->u.var.type));
  PSGI_VEC_FREE(ctx, &stack);
  psgi_map_fini(&vars);
  psgi_map_fini(&memo);
  return oom ? 0 : result;
}
