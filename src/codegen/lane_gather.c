/* Passage — CodeGenC: a gather whose lanes sit at constant distances from
 * one scalar index. The sub-pixel conv2d_transpose interleaves its parity
 * planes with an index like base + (l % 2) * plane + l / 2 over lanes l:
 * computed as int vectors lane by lane (a division per lane) and loaded lane
 * by lane. Split into a scalar base and constant per-lane offsets, the
 * index costs one scalar sum, and when the offsets fall in at most two
 * windows of a vector's width the lanes come from two contiguous loads and
 * one shuffle (the windows lie between the lowest and the highest element
 * the gather reads, so nothing outside what it reads anyway is touched). */
#include "codegen/codegen_c_internal.h"
#include "support/support.h"
#include <string.h>

enum { DEPTH = 24 };
#define LIMIT ((int64_t)1 << 31)

typedef struct task {
  const psg_tir_node *n;
  bool expanded;
} task;

typedef struct lstack {
  task tasks[DEPTH];
  size_t ntasks;
  psgi_cg_lanes vals[DEPTH];
  size_t nvals;
} lstack;

static bool in_range(int64_t v) { return v > -LIMIT && v < LIMIT; }

static bool add_term(psgi_cg_lanes *v, const psg_tir_node *t, int64_t coef) {
  for (int i = 0; i < v->nterms; i++)
    if (v->term[i] == t) return in_range(v->coef[i] += coef);
  if (v->nterms == PSGI_CG_LANE_TERMS) return false;
  v->term[v->nterms] = t, v->coef[v->nterms++] = coef;
  return in_range(coef);
}

/* A leaf: a scalar integer (a term, or a constant in every lane). */
static bool scalar_leaf(psgi_cg_lanes *v, const psg_tir_node *x, int64_t step, int lanes) {
  memset(v, 0, sizeof *v);
  v->lanes = lanes;
  int64_t b = 0;
  if (x->kind == PSG_TIR_INT_IMM) b = x->u.int_value;
  else if (!add_term(v, x, 1)) return false;
  for (int l = 0; l < lanes; l++)
    if (!in_range(v->off[l] = b + step * l)) return false;
  return true;
}

/* a op b into a (lane by lane; terms only where the op is linear in them). */
static bool combine(int kind, psgi_cg_lanes *a, const psgi_cg_lanes *b) {
  bool a_const = !a->nterms, b_const = !b->nterms;
  if (kind == PSG_TIR_ADD || kind == PSG_TIR_SUB) {
    int64_t sign = kind == PSG_TIR_ADD ? 1 : -1;
    for (int i = 0; i < b->nterms; i++)
      if (!add_term(a, b->term[i], sign * b->coef[i])) return false;
    for (int l = 0; l < a->lanes; l++)
      if (!in_range(a->off[l] += sign * b->off[l])) return false;
    return true;
  }
  if (kind == PSG_TIR_MUL) {
    const psgi_cg_lanes *k = b_const ? b : a_const ? a : NULL;
    if (!k) return false;
    for (int l = 1; l < a->lanes; l++)
      if (k->off[l] != k->off[0]) return false;
    int64_t f = k->off[0];
    psgi_cg_lanes r = k == b ? *a : *b;
    for (int i = 0; i < r.nterms; i++)
      if (!in_range(r.coef[i] *= f)) return false;
    for (int l = 0; l < r.lanes; l++)
      if (!in_range(r.off[l] *= f)) return false;
    *a = r;
    return true;
  }
  if (!a_const || !b_const) return false;
  for (int l = 0; l < a->lanes; l++) {
    int64_t x = a->off[l], y = b->off[l], q;
    switch (kind) {
      case PSG_TIR_MIN: a->off[l] = x < y ? x : y; continue;
      case PSG_TIR_MAX: a->off[l] = x > y ? x : y; continue;
      default: break;
    }
    if (y == 0) return false;
    q = x / y;
    if (kind == PSG_TIR_DIV) a->off[l] = q;
    else if (kind == PSG_TIR_MOD) a->off[l] = x % y;
    else if (kind == PSG_TIR_FLOOR_DIV) a->off[l] = q - ((x % y != 0) && ((x < 0) != (y < 0)));
    else if (kind == PSG_TIR_FLOOR_MOD) a->off[l] = x - y * (q - ((x % y != 0) && ((x < 0) != (y < 0))));
    else return false;
  }
  return true;
}

static bool is_binary(int kind) {
  return kind == PSG_TIR_ADD || kind == PSG_TIR_SUB || kind == PSG_TIR_MUL || kind == PSG_TIR_DIV ||
         kind == PSG_TIR_MOD || kind == PSG_TIR_FLOOR_DIV || kind == PSG_TIR_FLOOR_MOD || kind == PSG_TIR_MIN ||
         kind == PSG_TIR_MAX;
}

static bool split(lstack *s, const psg_tir_node *index, int lanes) {
  s->tasks[0] = (task){index, false};
  s->ntasks = 1, s->nvals = 0;
  while (s->ntasks) {
    task t = s->tasks[--s->ntasks];
    const psg_tir_node *n = t.n;
    if (psg_tir_dtype_lanes(n->dtype) != lanes || !psg_tir_dtype_is_int(n->dtype)) return false;
    if (n->kind == PSG_TIR_BROADCAST || n->kind == PSG_TIR_RAMP) {
      const psg_tir_node *step = n->kind == PSG_TIR_RAMP ? n->kids[1] : NULL;
      if (s->nvals == DEPTH || (step && step->kind != PSG_TIR_INT_IMM)) return false;
      if (psg_tir_dtype_lanes(n->kids[0]->dtype) != 1) return false;
      if (!scalar_leaf(&s->vals[s->nvals++], n->kids[0], step ? step->u.int_value : 0, lanes)) return false;
      continue;
    }
    if (!is_binary(n->kind)) return false;
    if (t.expanded) {
      if (s->nvals < 2) return false;
      s->nvals--;
      if (!combine(n->kind, &s->vals[s->nvals - 1], &s->vals[s->nvals])) return false;
      continue;
    }
    if (s->ntasks + 3 > DEPTH) return false;
    s->tasks[s->ntasks++] = (task){n, true};
    s->tasks[s->ntasks++] = (task){n->kids[1], false};
    s->tasks[s->ntasks++] = (task){n->kids[0], false};
  }
  return s->nvals == 1;
}

bool psgi_cg_lane_split(cg *c, const psg_tir_node *n, psgi_cg_lanes *out) {
  const psg_tir_node *b = n->kids[0];
  if (n->kind != PSG_TIR_BUFFER_LOAD || psgi_tir_num_indices(n) != 1 || psg_tir_dtype_lanes(b->dtype) != 1 ||
      psg_tir_dtype_is_bool(b->dtype) || (n->flags & PSGI_TIR_HAS_PRED) || b->u.buf.nstrides)
    return false;
  int lanes = psg_tir_dtype_lanes(n->dtype);
  if (lanes < 2 || lanes > 64) return false;
  lstack *s = psgi_alloc(c->ctx, sizeof *s);
  if (!s) return false;
  bool ok = split(s, psgi_tir_indices(n)[0], lanes) && s->vals[0].nterms > 0;
  for (int i = 0; ok && i < s->vals[0].nterms; i++) ok = psgi_cg_is_simple(c, s->vals[0].term[i]);
  if (ok) *out = s->vals[0];
  psgi_free(c->ctx, s);
  return ok;
}

/* The narrowest power-of-two window width h (>= 4, <= lanes) such that the
 * offsets fall in at most two windows [start[k], start[k] + h) within
 * [min, max]; 0 when there is none. */
static int windows(const psgi_cg_lanes *v, int64_t start[2], int *nwin) {
  int64_t lo = v->off[0], hi = v->off[0];
  for (int l = 1; l < v->lanes; l++) lo = v->off[l] < lo ? v->off[l] : lo, hi = v->off[l] > hi ? v->off[l] : hi;
  for (int h = 4; h <= v->lanes; h *= 2) {
    if (hi - lo + 1 < h) break;
    start[0] = lo, *nwin = 1;
    int64_t rest = INT64_MAX;
    for (int l = 0; l < v->lanes; l++)
      if (v->off[l] >= lo + h && v->off[l] < rest) rest = v->off[l];
    if (rest == INT64_MAX) return h;
    start[1] = rest < hi - h + 1 ? rest : hi - h + 1, *nwin = 2;
    bool fits = true;
    for (int l = 0; l < v->lanes; l++)
      fits &= v->off[l] < lo + h || (v->off[l] >= start[1] && v->off[l] < start[1] + h);
    if (fits) return h;
  }
  return 0;
}

const char *psgi_cg_offset_gather(cg *c, const psg_tir_node *n, const psgi_cg_lanes *v, const char *data, bool match,
                                  const char *r, int indent) {
  const psg_tir_node *b = n->kids[0];
  psg_tir_dtype t = n->dtype, se = psg_tir_dtype_with_lanes(b->dtype, 1);
  int lanes = v->lanes, esz = psg_tir_dtype_bits(se) / 8;
  psgi_buf sum;
  psgi_buf_init(&sum, c->ctx);
  for (int i = 0; i < v->nterms; i++) {
    const char *x = psgi_cg_expr(c, v->term[i]);
    if (!x) break;
    if (v->coef[i] == 1) psgi_buf_printf(&sum, "%s(ptrdiff_t)(%s)", i ? " + " : "", x);
    else psgi_buf_printf(&sum, "%s(ptrdiff_t)(%s) * %lld", i ? " + " : "", x, (long long)v->coef[i]);
  }
  const char *base = psgi_cg_strf(c, "_t%u", c->ntemp++);
  if (sum.failed && !c->st) c->st = psgi_nomem(c->ctx);
  if (!c->st && base) psgi_cg_line(c, indent, "const ptrdiff_t %s = %.*s;", base, (int)sum.len, sum.data ? sum.data : "");
  psgi_buf_fini(&sum);
  if (c->st || !base) return NULL;
  int64_t start[2];
  int nwin = 0, h = windows(v, start, &nwin);
  const char *wty = h ? psgi_cg_ctype(c, psg_tir_dtype_with_lanes(se, h), n) : NULL;
  if (h && !wty) return NULL;
  if (h) {
    const char *w[2] = {NULL, NULL};
    psgi_cg_line(c, 0, "#if PSG_SHUFFLE");
    for (int k = 0; k < nwin; k++) {
      w[k] = psgi_cg_strf(c, "_t%u", c->ntemp++);
      /* element base + start[k]: through the buffer's own type or by bytes */
      const char *at = match ? psgi_cg_strf(c, "%s + %s + %lld", data, base, (long long)start[k])
                             : psgi_cg_strf(c, "(const char *)%s + (%s + %lld) * %d", data, base, (long long)start[k], esz);
      if (!w[k] || !at) return NULL;
      psgi_cg_line(c, indent, "%s %s;", wty, w[k]);
      psgi_cg_line(c, indent, "memcpy(&%s, %s, sizeof %s);", w[k], at, w[k]);
    }
    psgi_buf idx;
    psgi_buf_init(&idx, c->ctx);
    for (int l = 0; l < lanes; l++) {
      bool first = v->off[l] < start[0] + h;
      psgi_buf_printf(&idx, ", %lld", (long long)(first ? v->off[l] - start[0] : h + v->off[l] - start[1]));
    }
    if (idx.failed && !c->st) c->st = psgi_nomem(c->ctx);
    psgi_cg_line(c, indent, "%s = __builtin_shufflevector(%s, %s%.*s);", r, w[0], w[nwin - 1], (int)idx.len,
                 idx.data ? idx.data : "");
    psgi_buf_fini(&idx);
    psgi_cg_line(c, 0, "#else");
  }
  /* lane by lane at the constant offsets */
  psgi_buf offs;
  psgi_buf_init(&offs, c->ctx);
  for (int l = 0; l < lanes; l++) psgi_buf_printf(&offs, "%s%lld", l ? ", " : "", (long long)v->off[l]);
  const char *tab = psgi_cg_strf(c, "_t%u", c->ntemp++);
  if (offs.failed && !c->st) c->st = psgi_nomem(c->ctx);
  if (!c->st && tab)
    psgi_cg_line(c, indent, "static const int32_t %s[%d] = {%.*s};", tab, lanes, (int)offs.len, offs.data ? offs.data : "");
  psgi_buf_fini(&offs);
  if (c->st || !tab) return NULL;
  psgi_cg_line(c, indent, "for (int psg_l = 0; psg_l < %d; ++psg_l) %s = psg_ld_%s(%s, %s + %s[psg_l]);", lanes,
               psgi_cg_lane(c, r, t, "psg_l"), psgi_cg_suffix(se), data, base, tab);
  if (h) psgi_cg_line(c, 0, "#endif");
  return c->st ? NULL : r;
}
