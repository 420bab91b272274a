/* Passage — the seeded generator of small typed Relay programs of
 * test_passes_random.c (its header comment says what the programs hold),
 * shared with the tests that compare a pass's fast path with its full
 * computation on the same programs. Header-only, like check.h:
 *   char *text = generate(seed, steps);   (malloc'd Relay text) */
#ifndef PSG_TEST_RANDOM_RELAY_H
#define PSG_TEST_RANDOM_RELAY_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_VALUES = 1024, MAX_CONSTS = 96 };

/* Text ---------------------------------------------------------------------------- */

typedef struct sb {
  char *s;
  size_t len, cap;
} sb;

static void sb_printf(sb *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->len + (size_t)n + 1 > b->cap) {
    b->cap = (b->len + (size_t)n + 1) * 2;
    b->s = realloc(b->s, b->cap);
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

static void sb_base64(sb *b, const unsigned char *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    char out[5] = {tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < n ? tab[v >> 6 & 63] : '=', i + 2 < n ? tab[v & 63] : '=', 0};
    sb_printf(b, "%s", out);
  }
}

/* Generator ---------------------------------------------------------------------- */

typedef struct value {
  char name[16]; /* "%3", "%v5" or "%p0" */
  int rank;
  int64_t shape[4];
  int uses;
} value;

typedef struct gen {
  uint64_t rng;
  sb body, meta;
  int nconsts, ntemps, nlets;
  value pool[MAX_VALUES]; /* the values later steps may use */
  int npool;
} gen;

static uint32_t next_u32(gen *g) {
  g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(g->rng >> 33);
}
static int pick(gen *g, int n) { return (int)(next_u32(g) % (uint32_t)n); }
static float unit(gen *g) { return (float)(next_u32(g) % 20001) / 10000.0f - 1.0f; } /* [-1, 1] */

static int64_t numel(const int64_t *shape, int rank) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= shape[i];
  return n;
}

/* A float32 metadata constant with elements uniform in [lo, hi]. */
static int constant(gen *g, const int64_t *shape, int rank, float lo, float hi) {
  int64_t n = numel(shape, rank);
  float *v = malloc((size_t)n * sizeof *v);
  for (int64_t i = 0; i < n; i++) v[i] = lo + (hi - lo) * (unit(g) + 1.0f) / 2.0f;
  sb_printf(&g->meta, "%s    {\"dtype\": \"float32\", \"shape\": [", g->nconsts ? ",\n" : "");
  for (int i = 0; i < rank; i++) sb_printf(&g->meta, "%s%lld", i ? ", " : "", (long long)shape[i]);
  sb_printf(&g->meta, "], \"data\": \"");
  sb_base64(&g->meta, (const unsigned char *)v, (size_t)n * sizeof *v);
  sb_printf(&g->meta, "\"}");
  free(v);
  return g->nconsts++;
}

/* Starts the binding of an intermediate value ("  %N = "); its name goes to
 * `name`. It is not offered to later steps. */
static void tmp(gen *g, char name[16]) {
  snprintf(name, 16, "%%%d", g->ntemps++);
  sb_printf(&g->body, "  %s = ", name);
}

/* Starts the binding of a step's result: a dataflow temp or a let; a dead
 * let is not offered to later steps (nothing uses it). */
static void result(gen *g, const int64_t *shape, int rank, bool as_let, bool dead) {
  value v;
  v.uses = 0;
  v.rank = rank;
  memcpy(v.shape, shape, (size_t)rank * sizeof *shape);
  if (as_let) {
    snprintf(v.name, sizeof v.name, "%%v%d", g->nlets++);
    sb_printf(&g->body, "  let %s = ", v.name);
  } else {
    tmp(g, v.name);
  }
  if (!dead && g->npool < MAX_VALUES) g->pool[g->npool++] = v;
}

/* A pool value of rank `rank` (any rank if 0), or NULL; recent values are
 * likelier, so programs get deep as well as wide. Marks it used. */
static const value *any_of_rank(gen *g, int rank) {
  int idx[MAX_VALUES], n = 0;
  for (int i = 0; i < g->npool; i++)
    if (!rank || g->pool[i].rank == rank) idx[n++] = i;
  if (!n) return NULL;
  int i = pick(g, 3) ? idx[n - 1 - pick(g, n < 3 ? n : 3)] : idx[pick(g, n)];
  g->pool[i].uses++;
  return &g->pool[i];
}

static value same_shape(gen *g, const value *a) {
  int idx[MAX_VALUES], n = 0;
  for (int i = 0; i < g->npool; i++)
    if (g->pool[i].rank == a->rank && !memcmp(g->pool[i].shape, a->shape, (size_t)a->rank * sizeof *a->shape))
      idx[n++] = i;
  int i = idx[pick(g, n)];
  g->pool[i].uses++;
  return g->pool[i];
}

static const char *const unary[] = {"nn.relu", "negative", "tanh", "sigmoid", "abs"};
static const char *const binary[] = {"add", "subtract", "multiply"};

/* conv2d over `in` with a random weight, then batch_norm, a per-channel
 * multiply + add, a bias_add or nothing, then maybe relu. */
static void conv_branch(gen *g, const char *src, const value *in, int64_t O, int64_t k, bool as_let) {
  int64_t ws[4] = {O, in->shape[1], k, k}, os[4] = {1, O, in->shape[2], in->shape[3]}, ch[1] = {O}, ch3[3] = {O, 1, 1};
  char conv[16], t[16], out[16];
  int w = constant(g, ws, 4, -1.0f, 1.0f);
  tmp(g, conv);
  long long p = (long long)(k / 2);
  sb_printf(&g->body, "nn.conv2d(%s, meta[relay.Constant][%d], padding=[%lld, %lld, %lld, %lld]);\n", src, w, p, p, p, p);
  bool relu = pick(g, 2);
  int form = pick(g, 4);
  switch (form) {
  case 0: {
    int ga = constant(g, ch, 1, 0.5f, 1.5f), be = constant(g, ch, 1, -0.5f, 0.5f);
    int mu = constant(g, ch, 1, -0.5f, 0.5f), va = constant(g, ch, 1, 0.5f, 1.5f);
    tmp(g, t);
    sb_printf(&g->body, "nn.batch_norm(%s, meta[relay.Constant][%d], meta[relay.Constant][%d], "
                        "meta[relay.Constant][%d], meta[relay.Constant][%d]);\n", conv, ga, be, mu, va);
    if (relu) tmp(g, out);
    else result(g, os, 4, as_let, false);
    sb_printf(&g->body, "%s.0;\n", t);
    break;
  }
  case 1: {
    int s = constant(g, ch3, 3, 0.5f, 1.5f), b = constant(g, ch3, 3, -0.5f, 0.5f);
    tmp(g, t);
    sb_printf(&g->body, "multiply(%s, meta[relay.Constant][%d]);\n", conv, s);
    if (relu) tmp(g, out);
    else result(g, os, 4, as_let, false);
    sb_printf(&g->body, "add(%s, meta[relay.Constant][%d]);\n", t, b);
    break;
  }
  case 2: {
    int b = constant(g, ch, 1, -0.5f, 0.5f);
    if (relu) tmp(g, out);
    else result(g, os, 4, as_let, false);
    sb_printf(&g->body, "nn.bias_add(%s, meta[relay.Constant][%d]);\n", conv, b);
    break;
  }
  default:
    if (!relu) { /* the conv alone: offer it */
      value v = {"", 4, {os[0], os[1], os[2], os[3]}, 0};
      snprintf(v.name, sizeof v.name, "%s", conv);
      if (g->npool < MAX_VALUES) g->pool[g->npool++] = v;
    }
    snprintf(out, sizeof out, "%s", conv);
  }
  if (relu) {
    result(g, os, 4, as_let, false);
    sb_printf(&g->body, "nn.relu(%s);\n", out);
  }
}

/* One random step: a binding or a small block. */
static void step(gen *g) {
  int kind = pick(g, 12);
  value x = {"", 0, {0}, 0};
  if (kind < 5 || kind > 7) x = *any_of_rank(g, 0); /* a copy: the pool grows while we emit */
  bool as_let = pick(g, 5) == 0, dead = as_let && pick(g, 3) == 0;
  char t[16];
  switch (kind) {
  case 0: /* unary */
    result(g, x.shape, x.rank, as_let, dead);
    sb_printf(&g->body, "%s(%s);\n", unary[pick(g, 5)], x.name);
    break;
  case 1: { /* binary with a value of the same shape */
    value y = same_shape(g, &x);
    result(g, x.shape, x.rank, as_let, dead);
    sb_printf(&g->body, "%s(%s, %s);\n", binary[pick(g, 3)], x.name, y.name);
    break;
  }
  case 2: { /* binary with a scalar or a broadcast constant */
    int op = pick(g, 4);
    const char *name = op == 3 ? "divide" : binary[op];
    if (pick(g, 2)) {
      float c = unit(g) * 1.5f;
      if (op == 3 && fabsf(c) < 0.5f) c = c < 0 ? -0.75f : 0.75f;
      result(g, x.shape, x.rank, as_let, dead);
      sb_printf(&g->body, "%s(%s, %gf);\n", name, x.name, (double)c);
    } else {
      int64_t cs[4] = {x.shape[0], x.shape[1], x.shape[2], x.shape[3]};
      int cr = x.rank;
      if (x.rank == 4 && pick(g, 2)) cs[0] = x.shape[1], cs[1] = cs[2] = 1, cr = 3; /* per channel */
      int k = constant(g, cs, cr, op == 3 ? 0.5f : -1.5f, 1.5f);
      result(g, x.shape, x.rank, as_let, dead);
      sb_printf(&g->body, "%s(%s, meta[relay.Constant][%d]);\n", name, x.name, k);
    }
    break;
  }
  case 3: { /* identity arithmetic */
    int form = pick(g, 8);
    result(g, x.shape, x.rank, as_let, dead);
    switch (form) {
    case 0: sb_printf(&g->body, "add(%s, 0f);\n", x.name); break;
    case 1: sb_printf(&g->body, "multiply(1f, %s);\n", x.name); break;
    case 2: sb_printf(&g->body, "subtract(%s, 0f);\n", x.name); break;
    case 3: sb_printf(&g->body, "divide(%s, 1f);\n", x.name); break;
    case 4: sb_printf(&g->body, "add(0f, %s);\n", x.name); break;
    case 5: sb_printf(&g->body, "multiply(%s, 1f);\n", x.name); break;
    case 6: sb_printf(&g->body, "add(%s, meta[relay.Constant][%d]);\n", x.name, constant(g, x.shape, x.rank, 0, 0)); break;
    default: sb_printf(&g->body, "multiply(%s, meta[relay.Constant][%d]);\n", x.name, constant(g, x.shape, x.rank, 1, 1));
    }
    break;
  }
  case 4: /* reshape / transpose / expand_dims chains */
    if (x.rank == 4) {
      long long C = (long long)x.shape[1], H = (long long)x.shape[2], W = (long long)x.shape[3];
      switch (pick(g, 3)) {
      case 0:
        tmp(g, t);
        sb_printf(&g->body, "reshape(%s, newshape=[%lld, %lld]);\n", x.name, C, H * W);
        result(g, x.shape, 4, as_let, dead);
        sb_printf(&g->body, "reshape(expand_dims(%s, axis=0), newshape=[1, %lld, %lld, %lld]);\n", t, C, H, W);
        break;
      case 1:
        tmp(g, t);
        sb_printf(&g->body, "transpose(%s, axes=[0, 2, 3, 1]);\n", x.name);
        result(g, x.shape, 4, as_let, dead);
        sb_printf(&g->body, "transpose(%s, axes=[0, 3, 1, 2]);\n", t);
        break;
      default:
        result(g, x.shape, 4, as_let, dead);
        sb_printf(&g->body, "squeeze(expand_dims(%s, axis=2), axis=[2]);\n", x.name);
      }
    } else if (pick(g, 2)) {
      int64_t tr[2] = {x.shape[1], x.shape[0]};
      result(g, tr, 2, as_let, dead); /* a new shape in the pool */
      sb_printf(&g->body, "transpose(%s);\n", x.name);
    } else {
      result(g, x.shape, 2, as_let, dead);
      sb_printf(&g->body, "reshape(reshape(%s, newshape=[%lld]), newshape=[%lld, %lld]);\n", x.name,
                (long long)(x.shape[0] * x.shape[1]), (long long)x.shape[0], (long long)x.shape[1]);
    }
    break;
  case 5:
  case 6: { /* conv2d blocks, sometimes after a per-channel scale, sometimes three in parallel */
    const value *c = any_of_rank(g, 4);
    if (!c) break;
    value in = *c;
    char src[16];
    snprintf(src, sizeof src, "%s", in.name);
    if (pick(g, 3) == 0) {
      int64_t ic[3] = {in.shape[1], 1, 1};
      int s = constant(g, ic, 3, 0.5f, 1.5f);
      tmp(g, src);
      sb_printf(&g->body, "multiply(%s, meta[relay.Constant][%d]);\n", in.name, s);
    }
    int64_t O = 2 + pick(g, 3), k = pick(g, 2) ? 3 : 1;
    int n = pick(g, 4) == 0 ? 3 : 1;
    for (int j = 0; j < n; j++) conv_branch(g, src, &in, O, k, as_let && j == n - 1);
    break;
  }
  case 7: { /* dense (+ a per-unit scale) + bias_add */
    const value *d = any_of_rank(g, 2);
    if (!d) break;
    value in = *d;
    int64_t U = 2 + pick(g, 3), ws[2] = {U, in.shape[1]}, os[2] = {in.shape[0], U}, us[1] = {U};
    int w = constant(g, ws, 2, -1.0f, 1.0f), b = constant(g, us, 1, -0.5f, 0.5f);
    tmp(g, t);
    sb_printf(&g->body, "nn.dense(%s, meta[relay.Constant][%d], units=%lld);\n", in.name, w, (long long)U);
    if (pick(g, 2)) {
      char s[16];
      snprintf(s, sizeof s, "%s", t);
      int k = constant(g, us, 1, 0.5f, 1.5f);
      tmp(g, t);
      sb_printf(&g->body, "multiply(%s, meta[relay.Constant][%d]);\n", s, k);
    }
    result(g, os, 2, as_let, dead);
    sb_printf(&g->body, "nn.bias_add(%s, meta[relay.Constant][%d], axis=1);\n", t, b);
    break;
  }
  case 8: /* casts to float64 and back, with float64 arithmetic between */
    tmp(g, t);
    sb_printf(&g->body, "cast(%s, dtype=\"float64\");\n", x.name);
    result(g, x.shape, x.rank, as_let, dead);
    switch (pick(g, 3)) {
    case 0: sb_printf(&g->body, "cast(%s, dtype=\"float32\");\n", t); break;
    case 1: sb_printf(&g->body, "cast(multiply(%s, 0.5f64), dtype=\"float32\");\n", t); break;
    default: sb_printf(&g->body, "cast(cast(%s, dtype=\"float64\"), dtype=\"float32\");\n", t);
    }
    break;
  case 9: { /* a shared subexpression written twice */
    const char *op = unary[pick(g, 5)];
    char u[16];
    tmp(g, t);
    sb_printf(&g->body, "%s(%s);\n", op, x.name);
    tmp(g, u);
    sb_printf(&g->body, "%s(%s);\n", op, x.name);
    result(g, x.shape, x.rank, as_let, dead);
    sb_printf(&g->body, "%s(%s, %s);\n", binary[pick(g, 3)], t, u);
    break;
  }
  case 10: /* dropout, layer_norm, exp of a bounded value, softmax */
    switch (pick(g, 4)) {
    case 0:
      tmp(g, t);
      sb_printf(&g->body, "nn.dropout(%s, rate=0.2f);\n", x.name);
      result(g, x.shape, x.rank, as_let, dead);
      sb_printf(&g->body, "%s.0;\n", t);
      break;
    case 1: {
      int64_t last[1] = {x.shape[x.rank - 1]};
      int ga = constant(g, last, 1, 0.5f, 1.5f), be = constant(g, last, 1, -0.5f, 0.5f);
      result(g, x.shape, x.rank, as_let, dead);
      sb_printf(&g->body, "nn.layer_norm(%s, meta[relay.Constant][%d], meta[relay.Constant][%d]);\n", x.name, ga, be);
      break;
    }
    case 2:
      result(g, x.shape, x.rank, as_let, dead);
      sb_printf(&g->body, "exp(tanh(%s));\n", x.name);
      break;
    default:
      result(g, x.shape, x.rank, as_let, dead);
      sb_printf(&g->body, "nn.softmax(%s);\n", x.name);
    }
    break;
  default: /* a projection of a tuple, or a let nobody uses */
    if (pick(g, 2)) {
      value y = same_shape(g, &x);
      result(g, x.shape, x.rank, as_let, dead);
      sb_printf(&g->body, "(%s, %s).%d;\n", x.name, y.name, pick(g, 2));
    } else {
      result(g, x.shape, x.rank, true, true);
      sb_printf(&g->body, "%s(%s);\n", unary[pick(g, 5)], x.name);
    }
  }
}

/* A program of `steps` steps; returns malloc'd text. */
static char *generate(uint64_t seed, int steps) {
  gen g;
  memset(&g, 0, sizeof g);
  g.rng = seed * 0x9e3779b97f4a7c15ull + 7;
  next_u32(&g);
  sb head = {0};
  int np = 1 + pick(&g, 3);
  sb_printf(&head, "#[version = \"0.0.5\"]\ndef @main(");
  for (int i = 0; i < np; i++) {
    value *p = &g.pool[g.npool++];
    snprintf(p->name, sizeof p->name, "%%p%d", i);
    if (pick(&g, 3)) {
      int64_t s[4] = {1, 2 + pick(&g, 3), 3 + pick(&g, 2), 3 + pick(&g, 2)};
      p->rank = 4;
      memcpy(p->shape, s, sizeof s);
      sb_printf(&head, "%s%s: Tensor[(1, %lld, %lld, %lld), float32]", i ? ", " : "", p->name, (long long)s[1],
                (long long)s[2], (long long)s[3]);
    } else {
      p->rank = 2;
      p->shape[0] = 1 + pick(&g, 3);
      p->shape[1] = 2 + 2 * pick(&g, 2);
      sb_printf(&head, "%s%s: Tensor[(%lld, %lld), float32]", i ? ", " : "", p->name, (long long)p->shape[0],
                (long long)p->shape[1]);
    }
  }
  sb_printf(&head, ") {\n");
  sb_printf(&g.body, "%s", "");
  sb_printf(&g.meta, "%s", "");
  for (int i = 0; i < steps; i++) step(&g);
  /* The result: the newest value and up to six values nothing uses yet, so
   * little of the program is dead (beyond the dead lets written as such). */
  sb_printf(&g.body, "  (%s", g.pool[g.npool - 1].name);
  for (int i = g.npool - 2, n = 0; i >= np && n < 6; i--)
    if (!g.pool[i].uses) sb_printf(&g.body, ", %s", g.pool[i].name), n++;
  sb_printf(&g.body, ")\n}\n");
  sb_printf(&head, "%s", g.body.s);
  if (g.nconsts) sb_printf(&head, "\n#[metadata]\n{\n  \"relay.Constant\": [\n%s\n  ]\n}\n", g.meta.s);
  free(g.body.s);
  free(g.meta.s);
  return head.s;
}

#endif
