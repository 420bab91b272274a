/* Passage — CodeGenC's layout of register tiles: a small "local" array
 * (cache_write_at's tile) that is only ever read and written as vectors of
 * L lanes at a constant stride s (its size a multiple of s * L, each vector
 * starting at a constant whose remainder by s * L is below s) or as single
 * elements at constant indices is stored transposed by blocks of s * L:
 * element e = b * s * L + r at b * s * L + (r % s) * L + r / s. Its vectors become
 * contiguous: whole registers for the C compiler instead of L lane inserts
 * and extracts per access. This happens when the tile's vector axis is not
 * the output's last one (a matmul vectorized over i, rec's 40 x 6625 head).
 * Every element keeps its value: only where it lives in the array moves. */
#include "codegen/codegen_c.h"
#include "tir/tir_internal.h"
#include <string.h>

typedef struct tile_layout {
  const psg_tir_node *var; /* the Allocate's buffer var */
  int64_t size, stride, lanes;
  bool ok;
} tile_layout;

typedef struct layout_scan {
  PSGI_VEC(tile_layout) tiles;
  psg_ctx *ctx;
  bool nomem;
} layout_scan;

static tile_layout *tile_of(layout_scan *s, const psg_tir_node *var) {
  for (size_t i = 0; i < s->tiles.len; i++)
    if (s->tiles.data[i].var == var) return &s->tiles.data[i];
  return NULL;
}

static bool is_imm(const psg_tir_node *n, int64_t *v) {
  if (n->kind != PSG_TIR_INT_IMM) return false;
  *v = n->u.int_value;
  return true;
}

/* One access of a tile: a constant element or a constant-strided ramp. */
static void check_access(tile_layout *t, const psg_tir_node *n) {
  int64_t e, s;
  if (psgi_tir_num_indices(n) != 1 || (n->flags & PSGI_TIR_HAS_PRED)) {
    t->ok = false;
    return;
  }
  const psg_tir_node *ix = psgi_tir_indices(n)[0];
  if (is_imm(ix, &e)) {
    t->ok &= e >= 0 && e < t->size;
    return;
  }
  int64_t lanes = psg_tir_dtype_lanes(ix->dtype);
  if (ix->kind != PSG_TIR_RAMP || !is_imm(ix->kids[0], &e) || !is_imm(ix->kids[1], &s) || s <= 1) {
    t->ok = false;
    return;
  }
  if (!t->stride) t->stride = s, t->lanes = lanes;
  t->ok &= s == t->stride && lanes == t->lanes && t->size % (s * lanes) == 0 && e >= 0 && e % (s * lanes) < s &&
           e + s * (lanes - 1) < t->size;
}

static int scan_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  layout_scan *s = v->user;
  if (n->kind == PSG_TIR_ALLOCATE && psg_tir_allocate_num_extents(n) == 1 && psg_tir_dtype_lanes(n->dtype) == 1) {
    const psg_tir_node *var = psg_tir_allocate_get_buffer_var(n), *ext = psg_tir_allocate_get_extent(n, 0);
    const char *scope = psg_tir_pointer_type_scope(psg_tir_var_get_type(var));
    int64_t size;
    if (scope && !strcmp(scope, "local") && is_imm(ext, &size)) {
      tile_layout t = {var, size, 0, 0, true};
      if (!PSGI_VEC_PUSH(s->ctx, &s->tiles, t)) s->nomem = true;
    }
  } else if (n->kind == PSG_TIR_BUFFER_LOAD || n->kind == PSG_TIR_BUFFER_STORE) {
    tile_layout *t = tile_of(s, n->kids[0]->kids[0]);
    if (t) check_access(t, n);
  }
  return s->nomem ? PSG_VISIT_ABORT : PSG_VISIT_CONTINUE;
}

/* The access n of a transposed tile at its new index. */
static psg_status relocate(psg_tir_mutator *m, const psg_tir_node *n, psg_tir_node **out) {
  psg_status st = psg_tir_mutator_default(m, n, out);
  layout_scan *s = m->user;
  tile_layout *t = st ? NULL : tile_of(s, (*out)->kids[0]->kids[0]);
  if (!t || !t->ok || !t->stride) return st;
  psg_tir_node *r = *out, *ix = psgi_tir_indices(r)[0], *nix = NULL, *base = NULL, *one = NULL, *nn = NULL;
  psg_ctx *ctx = m->ctx;
  int64_t blk = t->stride * t->lanes;
  if (ix->kind == PSG_TIR_INT_IMM) {
    int64_t e = ix->u.int_value, r = e % blk;
    st = psg_tir_int_imm_create(ctx, ix->dtype, e - r + (r % t->stride) * t->lanes + r / t->stride, NULL, &nix);
  } else {
    int64_t e = ix->kids[0]->u.int_value, r = e % blk;
    st = psg_tir_int_imm_create(ctx, ix->kids[0]->dtype, e - r + r * t->lanes, NULL, &base);
    if (!st) st = psg_tir_int_imm_create(ctx, ix->kids[0]->dtype, 1, NULL, &one);
    if (!st) st = psg_tir_ramp_create(ctx, base, one, (int)t->lanes, NULL, &nix);
  }
  if (!st && r->kind == PSG_TIR_BUFFER_LOAD)
    st = psg_tir_buffer_load_create(ctx, r->kids[0], &nix, 1, NULL, NULL, &nn);
  else if (!st)
    st = psg_tir_buffer_store_create(ctx, r->kids[0], r->kids[1], &nix, 1, NULL, NULL, &nn);
  psg_tir_release(base);
  psg_tir_release(one);
  psg_tir_release(nix);
  if (st) return st;
  psg_tir_release(r);
  *out = nn;
  return PSG_OK;
}

psg_status psgi_cg_local_layout(psg_ctx *ctx, const psg_tir_prim_func *f, psg_tir_prim_func **out) {
  layout_scan s = {.ctx = ctx};
  psg_tir_visitor v = {.pre = scan_pre, .user = &s};
  psg_status st = psg_tir_visit(ctx, &v, f);
  if (!st && s.nomem) st = psgi_nomem(ctx);
  bool any = false;
  for (size_t i = 0; i < s.tiles.len; i++) any |= s.tiles.data[i].ok && s.tiles.data[i].stride;
  if (!st && !any) {
    psg_tir_retain((psg_tir_node *)f);
    *out = (psg_tir_prim_func *)f;
  } else if (!st) {
    psg_tir_mutator m;
    psg_tir_mutator_init(&m, ctx);
    m.visit[PSG_TIR_BUFFER_LOAD] = relocate;
    m.visit[PSG_TIR_BUFFER_STORE] = relocate;
    m.user = &s;
    st = psg_tir_mutate(&m, f, out);
    psg_tir_mutator_fini(&m);
  }
  PSGI_VEC_FREE(ctx, &s.tiles);
  return st;
}
