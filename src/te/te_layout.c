/* Passage — compute definitions of the layout ops (TOPI's layout_transform
 * through tir Layout index maps, nn/depth_to_space.py, space_to_depth.py),
 * as the reference kernels (src/ops/transform_layout.c, pool.c) read them:
 * each output element copies the input element its index maps back to. */
#include <ctype.h>
#include "te/te.h"

/* A layout string: per position an axis letter (upper case) and its block
 * factor (0 for a primal axis): "NCHW4c" = N C H W 4c. */
typedef struct layout {
  int n;
  char axis[PSG_MAX_RANK];
  int64_t factor[PSG_MAX_RANK];
} layout;

static bool parse_layout(const char *s, layout *l) {
  l->n = 0;
  for (const char *p = s; *p; p++) {
    int64_t f = 0;
    while (isdigit((unsigned char)*p) && f < 1000000000) f = f * 10 + (*p++ - '0');
    if (!isalpha((unsigned char)*p) || l->n >= PSG_MAX_RANK || (islower((unsigned char)*p) != 0) != (f != 0)) return false;
    l->axis[l->n] = (char)toupper((unsigned char)*p);
    l->factor[l->n++] = f;
  }
  return true;
}

/* Position of axis letter ch in l (a block axis when sub), or -1. */
static int find(const layout *l, char ch, bool sub) {
  for (int i = 0; i < l->n; i++)
    if (l->axis[i] == ch && (l->factor[i] != 0) == sub) return i;
  return -1;
}

/* layout_transform: per primal axis of the output, its full coordinate
 * (outer * block + inner), split again by the source's block factor. */
PSGI_TE_COMPUTE(layout_transform) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  const char *ss = psgi_attr_str(c->attrs, "src_layout", ""), *ds = psgi_attr_str(c->attrs, "dst_layout", "");
  layout src, dst;
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  if (!parse_layout(ss, &src) || !parse_layout(ds, &dst) || src.n != x->ndim || dst.n != nd)
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: layout_transform %s -> %s", ss, ds);
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK] = {0};
  psgi_te_axes(b, nd, ax);
  for (int i = 0; i < nd; i++) {
    if (dst.factor[i]) continue; /* folded in with its primal axis */
    char ch = dst.axis[i];
    int db = find(&dst, ch, true), sp = find(&src, ch, false), sb = find(&src, ch, true);
    if (sp < 0) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: layout_transform %s -> %s", ss, ds);
    psg_tir_expr *coord = ax[i];
    if (db >= 0) coord = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, ax[i], psgi_te_int(b, dst.factor[db])), ax[db]);
    if (sb < 0) {
      in[sp] = coord;
    } else {
      psg_tir_expr *f = psgi_te_int(b, src.factor[sb]);
      in[sp] = psgi_te_bin(b, PSG_TIR_FLOOR_DIV, coord, f);
      in[sb] = psgi_te_bin(b, PSG_TIR_FLOOR_MOD, coord, f);
    }
  }
  for (int i = 0; i < x->ndim; i++)
    if (!in[i] && !b->status) return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: layout_transform %s -> %s", ss, ds);
  c->outs[c->nouts++] = psgi_te_compute(b, "T_layout_trans", dtype, nd, dims, ax, psgi_te_load(b, x, in), NULL);
  return psgi_te_status(b);
}

/* depth_to_space (DCR or CRD) and space_to_depth on 4-D data in any
 * permutation of NCHW. */
PSGI_TE_COMPUTE(subpixel) {
  psgi_te_builder *b = c->b;
  psgi_te_tensor *x = c->args[0];
  int64_t dims[PSG_MAX_RANK];
  int dtype, nd = psgi_te_out_dims(c, dims, &dtype);
  const char *lay = psgi_attr_str(c->attrs, "layout", "NCHW");
  const char *pc = strchr(lay, 'C'), *ph = strchr(lay, 'H'), *pw = strchr(lay, 'W');
  int64_t bs = psgi_attr_int(c->attrs, "block_size", 1);
  if (nd != 4 || strlen(lay) != 4 || !pc || !ph || !pw || bs < 1)
    return psgi_te_fail(b, PSG_ERR_UNSUPPORTED, "te: %s in layout '%s'", c->op, lay);
  int ci = (int)(pc - lay), hi = (int)(ph - lay), wi = (int)(pw - lay);
  bool crd = !strcmp(psgi_attr_str(c->attrs, "mode", "DCR"), "CRD");
  psg_tir_expr *ax[PSG_MAX_RANK], *in[PSG_MAX_RANK];
  psgi_te_axes(b, nd, ax);
  memcpy(in, ax, sizeof in);
  psg_tir_expr *B = psgi_te_int(b, bs), *ch = ax[ci], *y = ax[hi], *xx = ax[wi];
  if (!strcmp(c->op, "nn.depth_to_space")) {
    psg_tir_expr *by = psgi_te_bin(b, PSG_TIR_FLOOR_MOD, y, B), *bx = psgi_te_bin(b, PSG_TIR_FLOOR_MOD, xx, B);
    psg_tir_expr *blk = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, by, B), bx);
    in[ci] = crd ? psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, ch, psgi_te_int(b, bs * bs)), blk)
                 : psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, blk, psgi_te_int(b, dims[ci])), ch);
    in[hi] = psgi_te_bin(b, PSG_TIR_FLOOR_DIV, y, B);
    in[wi] = psgi_te_bin(b, PSG_TIR_FLOOR_DIV, xx, B);
  } else {
    psg_tir_expr *ic = psgi_te_int(b, x->shape[ci]), *blk = psgi_te_bin(b, PSG_TIR_FLOOR_DIV, ch, ic);
    in[ci] = psgi_te_bin(b, PSG_TIR_FLOOR_MOD, ch, ic);
    in[hi] = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, y, B), psgi_te_bin(b, PSG_TIR_FLOOR_DIV, blk, B));
    in[wi] = psgi_te_bin(b, PSG_TIR_ADD, psgi_te_bin(b, PSG_TIR_MUL, xx, B), psgi_te_bin(b, PSG_TIR_FLOOR_MOD, blk, B));
  }
  char name[64];
  c->outs[c->nouts++] = psgi_te_compute(b, psgi_te_stage_name(c, name, sizeof name), dtype, nd, dims, ax, psgi_te_load(b, x, in), NULL);
  return psgi_te_status(b);
}
