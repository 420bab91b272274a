/* Passage — the unifier of InferType (TVM's TypeSolver::Unifier): finds the
 * most general type two types share, binding IncompleteTypes on the way.
 * Bindings form a union-find forest in a map (hole -> what it was unified
 * with). Tensor dims unify when equal, or to `?` when either is `?` (TVM's
 * UnifyDim: Any absorbs); a FuncType with type parameters unifies with one
 * having fewer after renaming them, the extra ones becoming holes. Types are
 * shallow (nested as deeply as a program writes them), so the walks recurse,
 * bounded by MAX_DEPTH. */
#include <stdio.h>
#include "transforms/infer_type_internal.h"

enum { MAX_DEPTH = 256 };

void psgi_unifier_init(psgi_unifier *u, psg_ctx *ctx) {
  memset(u, 0, sizeof *u);
  u->ctx = ctx;
  psgi_map_init(&u->bound, ctx);
}

void psgi_unifier_fini(psgi_unifier *u) { psgi_map_fini(&u->bound); }

/* The root a hole stands for (itself when unbound); other types as they are. */
static const psg_type *find(psgi_unifier *u, const psg_type *t) {
  while (t && t->kind == PSG_TYPE_INCOMPLETE) {
    psgi_map_entry *e = psgi_map_get_ptr(&u->bound, t);
    if (!e) break;
    t = e->value;
  }
  return t;
}

static psg_status bind(psgi_unifier *u, const psg_type *hole, const psg_type *to) {
  psgi_map_entry *e = psgi_map_put_ptr(&u->bound, hole, NULL);
  if (!e) return psgi_nomem(u->ctx);
  e->value = (void *)to;
  u->nbound++;
  return PSG_OK;
}

/* Whether hole occurs in t (after resolution): binding it there would make
 * an infinite type. */
static bool occurs(psgi_unifier *u, const psg_type *hole, const psg_type *t, int depth) {
  t = find(u, t);
  if (t == hole) return true;
  if (!t || depth > MAX_DEPTH || t->kind == PSG_TYPE_TENSOR) return false;
  for (int i = 0; t->fields && i < t->n; i++)
    if (occurs(u, hole, t->fields[i], depth + 1)) return true;
  return t->ret && occurs(u, hole, t->ret, depth + 1);
}

bool psgi_type_has_holes(const psg_type *t) {
  if (!t) return false;
  if (t->kind == PSG_TYPE_INCOMPLETE) return true;
  for (int i = 0; t->fields && i < t->n; i++)
    if (psgi_type_has_holes(t->fields[i])) return true;
  return t->ret && psgi_type_has_holes(t->ret);
}

/* Rebuilds t (a TUPLE, FUNC, CALL or REF) with new fields and ret. */
static psg_status rebuild(psg_ctx *ctx, const psg_type *t, const psg_type *const *fields,
                          const psg_type *ret, const psg_type *const *tparams, int ntparams,
                          const psg_type **out) {
  switch (t->kind) {
  case PSG_TYPE_TUPLE: return psg_type_tuple(ctx, fields, t->n, out);
  case PSG_TYPE_FUNC: return psg_type_func_poly(ctx, fields, t->n, ret, tparams, ntparams, out);
  case PSG_TYPE_CALL: return psg_type_call(ctx, ret, fields, t->n, out);
  case PSG_TYPE_REF: return psg_type_ref(ctx, ret, out);
  }
  *out = t;
  return PSG_OK;
}

/* Maps every field and ret of t through `map`; rebuilds only on a change. */
typedef psg_status (*map_fn)(void *env, const psg_type *t, const psg_type **out, int depth);

static psg_status map_children(psg_ctx *ctx, const psg_type *t, map_fn f, void *env, int depth,
                               const psg_type **out) {
  *out = t;
  if (!t->fields && !t->ret) return PSG_OK;
  const psg_type *small[16] = {0}, **fields = small;
  if (t->n > 16 && !(fields = psgi_alloc(ctx, (size_t)t->n * sizeof *fields))) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  bool changed = false;
  for (int i = 0; i < t->n && !st; i++) {
    st = f(env, t->fields[i], &fields[i], depth + 1);
    changed |= fields[i] != t->fields[i];
  }
  const psg_type *ret = t->ret;
  if (!st && t->ret) {
    st = f(env, t->ret, &ret, depth + 1);
    changed |= ret != t->ret;
  }
  if (!st && changed) st = rebuild(ctx, t, fields, ret, t->tparams, t->ntparams, out);
  if (fields != small) psgi_free(ctx, fields);
  return st;
}

static psg_status resolve_at(void *env, const psg_type *t, const psg_type **out, int depth) {
  psgi_unifier *u = env;
  t = find(u, t);
  if (!t || depth > MAX_DEPTH || t->kind == PSG_TYPE_TENSOR || t->kind == PSG_TYPE_INCOMPLETE) {
    *out = t;
    return PSG_OK;
  }
  return map_children(u->ctx, t, resolve_at, u, depth, out);
}

psg_status psgi_unifier_resolve(psgi_unifier *u, const psg_type *t, const psg_type **out) {
  return resolve_at(u, t, out, 0);
}

typedef struct subst_env {
  psg_ctx *ctx;
  const psg_type *const *from, *const *to;
  int n;
} subst_env;

static psg_status subst_at(void *env, const psg_type *t, const psg_type **out, int depth) {
  subst_env *s = env;
  *out = t;
  if (!t || depth > MAX_DEPTH) return PSG_OK;
  if (t->kind == PSG_TYPE_VAR) {
    for (int i = 0; i < s->n; i++)
      if (s->from[i] == t) *out = s->to[i];
    return PSG_OK;
  }
  for (int i = 0; i < t->ntparams; i++)
    for (int j = 0; j < s->n; j++)
      if (t->tparams[i] == s->from[j]) return PSG_OK; /* shadowed: leave the inner binder alone */
  return map_children(s->ctx, t, subst_at, s, depth, out);
}

psg_status psgi_type_subst(psg_ctx *ctx, const psg_type *t, const psg_type *const *from,
                           const psg_type *const *to, int n, const psg_type **out) {
  subst_env s = {ctx, from, to, n};
  return subst_at(&s, t, out, 0);
}

/* "expected `a`, found `b`" plus a detail: callers unify (expected, found). */
static psg_status mismatch(psgi_unifier *u, const psg_type *a, const psg_type *b, const char *detail) {
  psgi_buf buf;
  psgi_buf_init(&buf, u->ctx);
  psgi_buf_puts(&buf, "expected `");
  psgi_type_format(&buf, a);
  psgi_buf_puts(&buf, "`, found `");
  psgi_type_format(&buf, b);
  psgi_buf_puts(&buf, "`");
  if (detail && *detail) psgi_buf_printf(&buf, ": %s", detail);
  snprintf(u->msg, sizeof u->msg, "%s", buf.data ? buf.data : "unable to unify");
  psgi_buf_fini(&buf);
  return PSG_ERR_TYPE;
}

static psg_status unify_at(psgi_unifier *u, const psg_type *a, const psg_type *b, const psg_type **out, int depth);

static psg_status unify_tensors(psgi_unifier *u, const psg_type *a, const psg_type *b, const psg_type **out) {
  char detail[160];
  if (a->dtype != b->dtype) {
    snprintf(detail, sizeof detail, "dtype %s does not match %s", psg_dtype_name(a->dtype), psg_dtype_name(b->dtype));
    return mismatch(u, a, b, detail);
  }
  if (a->n != b->n) {
    snprintf(detail, sizeof detail, "%d dimensions vs %d", a->n, b->n);
    return mismatch(u, a, b, detail);
  }
  int64_t dims[PSG_MAX_RANK];
  for (int i = 0; i < a->n; i++) {
    if (a->dims[i] == b->dims[i] || a->dims[i] < 0 || b->dims[i] < 0) {
      dims[i] = a->dims[i] == b->dims[i] ? a->dims[i] : PSG_DIM_UNKNOWN;
      continue;
    }
    snprintf(detail, sizeof detail, "dimension %d conflicts: %lld does not match %lld", i, (long long)a->dims[i],
             (long long)b->dims[i]);
    return mismatch(u, a, b, detail);
  }
  return psg_type_tensor(u->ctx, dims, a->n, a->dtype, out);
}

/* Two FuncTypes; a has at least as many type parameters as b. */
static psg_status unify_funcs(psgi_unifier *u, const psg_type *a, const psg_type *b, const psg_type **out, int depth) {
  psg_ctx *ctx = u->ctx;
  int na = a->ntparams;
  const psg_type *small[16] = {0}, **to = small;
  if (na > 16 && !(to = psgi_alloc(ctx, (size_t)na * sizeof *to))) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  for (int i = 0; i < na && !st; i++) {
    if (i < b->ntparams)
      to[i] = b->tparams[i];
    else
      st = psg_type_incomplete(ctx, a->tparams[i]->tkind, &to[i]);
  }
  /* a without its own binders, renamed into b's. */
  const psg_type *bare = NULL;
  if (!st) st = psg_type_func(ctx, a->fields, a->n, a->ret, &bare);
  if (!st && na) st = psgi_type_subst(ctx, bare, a->tparams, to, na, &bare);
  if (to != small) psgi_free(ctx, to);
  if (st) return st;
  const psg_type *fsmall[16] = {0}, **fields = fsmall, *ret = NULL;
  if (a->n > 16 && !(fields = psgi_alloc(ctx, (size_t)a->n * sizeof *fields))) return psgi_nomem(ctx);
  st = unify_at(u, bare->ret, b->ret, &ret, depth + 1);
  for (int i = 0; i < a->n && !st; i++) st = unify_at(u, bare->fields[i], b->fields[i], &fields[i], depth + 1);
  if (!st) st = psg_type_func_poly(ctx, fields, a->n, ret, b->tparams, b->ntparams, out);
  if (fields != fsmall) psgi_free(ctx, fields);
  return st;
}

static psg_status unify_at(psgi_unifier *u, const psg_type *a, const psg_type *b, const psg_type **out, int depth) {
  psg_ctx *ctx = u->ctx;
  const psg_type *ra = find(u, a), *rb = find(u, b);
  *out = ra;
  if (ra == rb) return PSG_OK;
  if (depth > MAX_DEPTH) return mismatch(u, ra, rb, "types nested too deeply");
  if (ra->kind == PSG_TYPE_INCOMPLETE || rb->kind == PSG_TYPE_INCOMPLETE) {
    const psg_type *hole = ra->kind == PSG_TYPE_INCOMPLETE ? ra : rb, *other = hole == ra ? rb : ra;
    if (occurs(u, hole, other, 0)) return mismatch(u, ra, rb, "the type would contain itself");
    *out = other;
    return bind(u, hole, other);
  }
  if (ra->kind != rb->kind) return mismatch(u, ra, rb, NULL);
  switch (ra->kind) {
  case PSG_TYPE_TENSOR: return unify_tensors(u, ra, rb, out);
  case PSG_TYPE_VAR:
  case PSG_TYPE_GLOBAL_VAR: return mismatch(u, ra, rb, NULL); /* distinct variables */
  case PSG_TYPE_FUNC:
    if (ra->n != rb->n) return mismatch(u, ra, rb, "different numbers of arguments");
    /* As TVM: the side with more type parameters is renamed into the
     * other's; on a tie the left one, so the result keeps the left's names. */
    return rb->ntparams >= ra->ntparams ? unify_funcs(u, rb, ra, out, depth) : unify_funcs(u, ra, rb, out, depth);
  default: break;
  }
  if (ra->n != rb->n) return mismatch(u, ra, rb, "different numbers of fields");
  const psg_type *small[16] = {0}, **fields = small, *ret = NULL;
  if (ra->n > 16 && !(fields = psgi_alloc(ctx, (size_t)ra->n * sizeof *fields))) return psgi_nomem(ctx);
  psg_status st = PSG_OK;
  if (ra->ret) st = unify_at(u, ra->ret, rb->ret, &ret, depth + 1);
  for (int i = 0; i < ra->n && !st; i++) st = unify_at(u, ra->fields[i], rb->fields[i], &fields[i], depth + 1);
  if (!st) st = rebuild(ctx, ra, fields, ret, NULL, 0, out);
  if (fields != small) psgi_free(ctx, fields);
  return st;
}

psg_status psgi_unify(psgi_unifier *u, const psg_type *a, const psg_type *b, const psg_type **out) {
  const psg_type *dummy;
  psg_status st = unify_at(u, a, b, out ? out : &dummy, 0);
  if (st == PSG_OK && out) st = psgi_unifier_resolve(u, *out, out);
  return st;
}
