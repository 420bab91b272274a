/* Passage — structural equality and hashing of types (TVM's StructuralEqual
 * on types). Types are interned, so identical types are one pointer; what
 * pointers miss is alpha-equivalence: `fn [A](A) -> A` and `fn [B](B) -> B`
 * are equal, their TypeVars being bound at the same position. Types are
 * shallow (nested only as deeply as a program writes them), so the walk
 * recurses, with a depth limit like structural.c's. */
#include "ir/ir_internal.h"

enum { MAX_DEPTH = 64, MAX_PAIRS = 128 };

/* Variables paired so far: bound ones (a FuncType's parameters, innermost
 * last) and, with map_free_vars, free ones. */
typedef struct pairing {
  const psg_type *a[MAX_PAIRS], *b[MAX_PAIRS];
  int n;
  bool map_free;
} pairing;

static bool is_variable(const psg_type *t) {
  return t->kind == PSG_TYPE_VAR || t->kind == PSG_TYPE_INCOMPLETE || t->kind == PSG_TYPE_GLOBAL_VAR;
}

static bool vars_equal(pairing *p, const psg_type *a, const psg_type *b) {
  for (int i = p->n - 1; i >= 0; i--) {
    if (p->a[i] == a || p->b[i] == b) return p->a[i] == a && p->b[i] == b;
  }
  if (a == b) return true;
  /* GlobalTypeVars name ADTs as GlobalVars name functions: by name. */
  if (a->kind == PSG_TYPE_GLOBAL_VAR) return b->kind == PSG_TYPE_GLOBAL_VAR && strcmp(a->name, b->name) == 0;
  if (!p->map_free || a->kind != b->kind || a->tkind != b->tkind || p->n == MAX_PAIRS) return false;
  p->a[p->n] = a; /* a free pair, kept for the rest of the comparison */
  p->b[p->n++] = b;
  return true;
}

static bool equal(pairing *p, const psg_type *a, const psg_type *b, int depth) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || depth > MAX_DEPTH) return false;
  if (is_variable(a)) return vars_equal(p, a, b);
  if (a == b && p->n == 0) return true;
  if (a->n != b->n || a->ntparams != b->ntparams) return false;
  if (a->kind == PSG_TYPE_TENSOR) {
    if (a->dtype != b->dtype) return false;
    for (int i = 0; i < a->n; i++)
      if (a->dims[i] != b->dims[i]) return false;
    return true;
  }
  int mark = p->n;
  if (a->ntparams) {
    if (p->n + a->ntparams > MAX_PAIRS) return a == b;
    for (int i = 0; i < a->ntparams; i++) {
      if (a->tparams[i]->tkind != b->tparams[i]->tkind) return false;
      p->a[p->n] = a->tparams[i];
      p->b[p->n++] = b->tparams[i];
    }
  }
  bool ok = true;
  for (int i = 0; i < a->n && ok; i++) ok = equal(p, a->fields[i], b->fields[i], depth + 1);
  if (ok && a->ret) ok = equal(p, a->ret, b->ret, depth + 1);
  if (a->ntparams) {
    /* Unbind the parameters; free pairs found inside stay recorded. */
    int keep = mark;
    for (int i = mark + a->ntparams; i < p->n; i++, keep++) {
      p->a[keep] = p->a[i];
      p->b[keep] = p->b[i];
    }
    p->n = keep;
  }
  return ok;
}

bool psg_type_structural_equal(const psg_type *a, const psg_type *b, bool map_free_vars) {
  if (a == b) return true;
  pairing p;
  p.n = 0;
  p.map_free = map_free_vars;
  return equal(&p, a, b, 0);
}

bool psgi_type_equal_paired(const psg_type *a, const psg_type *b, const psg_type *const *pa,
                            const psg_type *const *pb, size_t n) {
  if (a == b && n == 0) return true;
  pairing p;
  p.n = 0;
  p.map_free = false;
  /* The innermost (latest) pairs matter most: keep the last MAX_PAIRS. */
  for (size_t i = n > MAX_PAIRS ? n - MAX_PAIRS : 0; i < n; i++) {
    p.a[p.n] = pa[i];
    p.b[p.n++] = pb[i];
  }
  return equal(&p, a, b, 0);
}

/* Bound variables hash by their binder's position, counted from the
 * outermost parameter. */
static uint64_t hash(const psg_type *t, const psg_type **bound, int nbound, int depth) {
  if (!t) return 0x51;
  uint64_t h = psgi_hash_mix((uint64_t)t->kind, (uint64_t)t->n);
  if (depth > MAX_DEPTH) return h;
  if (t->kind == PSG_TYPE_GLOBAL_VAR) return psgi_hash_mix(h, psgi_hash_bytes(t->name, strlen(t->name)));
  if (is_variable(t)) {
    for (int i = nbound - 1; i >= 0; i--)
      if (bound[i] == t) return psgi_hash_mix(h, 0x9e37u + (uint64_t)i);
    return psgi_hash_mix(h, (uint64_t)(uintptr_t)t);
  }
  if (t->kind == PSG_TYPE_TENSOR) {
    h = psgi_hash_mix(h, (uint64_t)t->dtype);
    for (int i = 0; i < t->n; i++) h = psgi_hash_mix(h, (uint64_t)t->dims[i]);
    return h;
  }
  int n = nbound;
  h = psgi_hash_mix(h, (uint64_t)t->ntparams);
  for (int i = 0; i < t->ntparams && n < MAX_PAIRS; i++) bound[n++] = t->tparams[i];
  for (int i = 0; i < t->n; i++) h = psgi_hash_mix(h, hash(t->fields[i], bound, n, depth + 1));
  if (t->ret) h = psgi_hash_mix(h, hash(t->ret, bound, n, depth + 1));
  return h;
}

uint64_t psg_type_structural_hash(const psg_type *t) {
  const psg_type *bound[MAX_PAIRS];
  return hash(t, bound, 0, 0);
}
