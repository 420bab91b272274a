/* Passage ONNX frontend — neural-network converters: Conv, ConvTranspose,
 * Gemm, MatMul, BatchNormalization, MaxPool/AveragePool, GlobalAveragePool
 * (2-D, NCHW; auto_pad computed from static shapes as TVM's onnx.py does). */
#include <string.h>
#include "onnx_ops.h"

static psg_status finish_call(onnx_imp *im, const char *op, const oval *args, size_t nargs, onnx_ab *b, oval *out) {
  psg_attrs *a = NULL;
  psg_status st = onnxi_ab_finish(b, &a);
  if (!st) st = onnxi_call(im, op, args, nargs, a, out);
  psg_attrs_release(a);
  return st;
}

/* Spatial attributes shared by Conv, ConvTranspose and pooling. */
typedef struct spatial {
  int64_t kernel[2], strides[2], dil[2], pads[4];
} spatial;

/* (kernel - 1) * dilation + 1 of spatial axis i: the extent of the dilated
 * window (kernel and dilation are positive); false when it overflows int64. */
static bool window_extent(const spatial *s, int i, int64_t *out) {
  int64_t t;
  return psgi_checked_mul(s->kernel[i] - 1, s->dil[i], &t) && psgi_checked_add(t, 1, out);
}

/* Attribute values (kernel, strides, dilations, pads, output_shape) whose
 * output extent arithmetic leaves int64: found by fuzz_onnx, issue 14. */
static psg_status spatial_overflow(onnx_imp *im) {
  return onnxi_fail(im, PSG_ERR_TYPE, "the spatial attributes overflow int64 in the output extent");
}

/* Reads 2-D attributes, or 1-D ones (nsp == 1) lifted to 2-D with a unit
 * first spatial axis (1-D ops run as 2-D ones on (N, C, 1, L)). */
static int read_list(const Onnx__NodeProto *n, const char *name, int nsp, int64_t *v, int64_t unit) {
  int64_t tmp[8];
  int k = onnxi_attr_ints(n, name, tmp, 8);
  if (k < 0 || nsp == 2) {
    memcpy(v, tmp, sizeof tmp);
    return k;
  }
  int per = k / nsp; /* 1 for kernel/strides/dilations, 2 for pads */
  if (k != nsp * per || per < 1 || per > 2) return k == 0 ? 0 : -2;
  if (per == 1) v[0] = unit, v[1] = tmp[0];
  else v[0] = 0, v[1] = tmp[0], v[2] = 0, v[3] = tmp[1];
  return 2 * per;
}

static psg_status read_spatial(onnx_imp *im, const Onnx__NodeProto *n, const oval *x, const int64_t *kernel_from_w,
                               bool transpose, spatial *s) {
  int64_t v[8];
  int k, nsp = im->lift1d ? 1 : 2;
  s->strides[0] = s->strides[1] = 1;
  s->dil[0] = s->dil[1] = 1;
  memset(s->pads, 0, sizeof s->pads);
  if ((k = read_list(n, "kernel_shape", nsp, v, 1)) >= 0) {
    if (k != 2) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "kernel_shape of %d values is not supported (1-D or 2-D only)", k);
    s->kernel[0] = v[0], s->kernel[1] = v[1];
  } else if (kernel_from_w) {
    s->kernel[0] = kernel_from_w[0], s->kernel[1] = kernel_from_w[1];
  } else {
    return onnxi_fail(im, PSG_ERR_PARSE, "attribute 'kernel_shape' is required");
  }
  if ((k = read_list(n, "strides", nsp, v, 1)) >= 0) {
    if (k != 2) return onnxi_fail(im, PSG_ERR_PARSE, "'strides' must have 2 values");
    s->strides[0] = v[0], s->strides[1] = v[1];
  }
  if ((k = read_list(n, "dilations", nsp, v, 1)) >= 0) {
    if (k != 2) return onnxi_fail(im, PSG_ERR_PARSE, "'dilations' must have 2 values");
    s->dil[0] = v[0], s->dil[1] = v[1];
  }
  if ((k = read_list(n, "pads", nsp, v, 0)) >= 0) {
    if (k != 4) return onnxi_fail(im, PSG_ERR_PARSE, "'pads' must have 4 values");
    memcpy(s->pads, v, sizeof s->pads);
  }
  for (int i = 0; i < 2; i++)
    if (s->strides[i] <= 0 || s->dil[i] <= 0 || s->kernel[i] <= 0)
      return onnxi_fail(im, PSG_ERR_PARSE, "kernel, strides and dilations must be positive");
  for (int i = 0; i < 4; i++)
    if (s->pads[i] < 0) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "negative pads are not supported");
  char buf[32];
  const char *ap = onnxi_attr_str(n, "auto_pad", "NOTSET", buf, sizeof buf);
  if (!strcmp(ap, "VALID")) {
    memset(s->pads, 0, sizeof s->pads);
  } else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
    if (transpose) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "auto_pad %s is not supported for ConvTranspose", ap);
    for (int i = 0; i < 2; i++) {
      int64_t in = onnxi_dim(x, 2 + i);
      if (in < 0) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "auto_pad %s needs static spatial dims", ap);
      int64_t st = s->strides[i], out = in / st + (in % st != 0), ext;
      if (!window_extent(s, i, &ext)) return spatial_overflow(im);
      /* (out - 1) * st lies in [-st, in), so neither step below overflows. */
      int64_t total = (out - 1) * st - in + ext;
      if (total < 0) total = 0;
      int64_t small = total / 2, big = total - small;
      bool upper = !strcmp(ap, "SAME_UPPER");
      s->pads[i] = upper ? small : big;
      s->pads[i + 2] = upper ? big : small;
    }
  } else if (strcmp(ap, "NOTSET")) {
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "auto_pad '%s' is not supported", ap);
  }
  return PSG_OK;
}

static psg_status add_bias(onnx_imp *im, oval *y, const oval *bias) {
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_int(&b, "axis", 1);
  oval args[2] = {*y, *bias}, r;
  psg_status st = finish_call(im, "nn.bias_add", args, 2, &b, &r);
  onnxi_val_release(y);
  if (!st) *y = r;
  return st;
}

/* 2-D ops take rank 4; rank 3 (1-D) is lifted: expand_dims at axis 2 on the
 * way in and squeeze on the way out (lift/unlift). */
static psg_status lift(onnx_imp *im, const oval *x, oval *out) {
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_int(&b, "axis", 2);
  onnxi_ab_int(&b, "num_newaxis", 1);
  return finish_call(im, "expand_dims", x, 1, &b, out);
}

static psg_status unlift(onnx_imp *im, oval *y) {
  onnx_ab b;
  int64_t ax[1] = {2};
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_ints(&b, "axis", ax, 1);
  oval r = {0};
  psg_status st = finish_call(im, "squeeze", y, 1, &b, &r);
  onnxi_val_release(y);
  if (!st) *y = r;
  return st;
}

static psg_status need_4d(onnx_imp *im, const oval *x, const char *what) {
  if (onnxi_rank(x) != 4)
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "%s of rank %d is not supported (only 2-D, NCHW)", what, onnxi_rank(x));
  return PSG_OK;
}

static ONNX_CONV(conv2d) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = onnxi_need(im, ins, nin, 1);
  if (!st) st = need_4d(im, ins[0], "Conv");
  if (!st && onnxi_rank(ins[1]) != 4) st = onnxi_fail(im, PSG_ERR_TYPE, "weight must have rank 4");
  if (st) return st;
  int64_t kw[2] = {onnxi_dim(ins[1], 2), onnxi_dim(ins[1], 3)};
  spatial s;
  if ((st = read_spatial(im, n, ins[0], kw, false, &s))) return st;
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_ints(&b, "strides", s.strides, 2);
  onnxi_ab_ints(&b, "padding", s.pads, 4);
  onnxi_ab_ints(&b, "dilation", s.dil, 2);
  onnxi_ab_int(&b, "groups", onnxi_attr_int(n, "group", 1));
  if (onnxi_dim(ins[1], 0) >= 0) onnxi_ab_int(&b, "channels", onnxi_dim(ins[1], 0));
  onnxi_ab_ints(&b, "kernel_size", s.kernel, 2);
  oval args[2] = {*ins[0], *ins[1]};
  st = finish_call(im, "nn.conv2d", args, 2, &b, &outs[0]);
  if (!st && nin > 2 && ins[2]) st = add_bias(im, &outs[0], ins[2]);
  return st;
}

static ONNX_CONV(conv_transpose2d) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = onnxi_need(im, ins, nin, 1);
  if (!st) st = need_4d(im, ins[0], "ConvTranspose");
  if (!st && onnxi_rank(ins[1]) != 4) st = onnxi_fail(im, PSG_ERR_TYPE, "weight must have rank 4");
  if (st) return st;
  int64_t kw[2] = {onnxi_dim(ins[1], 2), onnxi_dim(ins[1], 3)};
  spatial s;
  if ((st = read_spatial(im, n, ins[0], kw, true, &s))) return st;
  int64_t groups = onnxi_attr_int(n, "group", 1), opad[2] = {0, 0}, v[8];
  int nsp = im->lift1d ? 1 : 2;
  int k = read_list(n, "output_padding", nsp, v, 0);
  if (k >= 0) {
    if (k != 2) return onnxi_fail(im, PSG_ERR_PARSE, "'output_padding' must have 2 values");
    opad[0] = v[0], opad[1] = v[1];
  }
  if ((k = read_list(n, "output_shape", nsp, v, 1)) >= 0) {
    /* Pads from the requested output shape (ONNX's formula, SAME_UPPER split). */
    if (k != 2 && k != 4) return onnxi_fail(im, PSG_ERR_PARSE, "'output_shape' must have 2 spatial values");
    for (int i = 0; i < 2; i++) {
      int64_t in = onnxi_dim(ins[0], 2 + i), want = v[k - 2 + i], ext, total;
      if (in < 0) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "output_shape needs static spatial dims");
      if (want < 0) return onnxi_fail(im, PSG_ERR_PARSE, "'output_shape' values must not be negative");
      if (!window_extent(&s, i, &ext) || !psgi_checked_mul(s.strides[i], in - 1, &total) ||
          !psgi_checked_add(total, opad[i], &total) || !psgi_checked_add(total, ext, &total) ||
          !psgi_checked_add(total, -want, &total))
        return spatial_overflow(im);
      if (total < 0) {
        if (total == INT64_MIN || !psgi_checked_add(opad[i], -total, &opad[i])) return spatial_overflow(im);
        total = 0;
      }
      s.pads[i] = total / 2;
      s.pads[i + 2] = total - total / 2;
    }
  }
  int64_t cout = onnxi_dim(ins[1], 1), channels = 0;
  if (cout >= 0 && !psgi_checked_mul(cout, groups, &channels))
    return onnxi_fail(im, PSG_ERR_TYPE, "%lld output channels per group times group %lld overflows int64",
                      (long long)cout, (long long)groups);
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  if (cout >= 0) onnxi_ab_int(&b, "channels", channels);
  onnxi_ab_ints(&b, "kernel_size", s.kernel, 2);
  onnxi_ab_ints(&b, "strides", s.strides, 2);
  onnxi_ab_ints(&b, "padding", s.pads, 4);
  onnxi_ab_ints(&b, "output_padding", opad, 2);
  onnxi_ab_ints(&b, "dilation", s.dil, 2);
  onnxi_ab_int(&b, "groups", groups);
  onnxi_ab_str(&b, "kernel_layout", "IOHW");
  oval args[2] = {*ins[0], *ins[1]};
  st = finish_call(im, "nn.conv2d_transpose", args, 2, &b, &outs[0]);
  if (!st && nin > 2 && ins[2]) st = add_bias(im, &outs[0], ins[2]);
  return st;
}

static psg_status scale(onnx_imp *im, oval *v, double f) {
  if (f == 1.0) return PSG_OK;
  oval c = {0}, r;
  psg_status st = onnxi_scalar(im, onnxi_dtype(v), f, &c);
  if (!st) st = onnxi_binary(im, "multiply", v, &c, &r);
  onnxi_val_release(&c);
  onnxi_val_release(v);
  if (!st) *v = r;
  return st;
}

static const int64_t PERM_T[2] = {1, 0};

ONNX_CONV(gemm) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = onnxi_need(im, ins, nin, 1);
  if (st) return st;
  if (onnxi_rank(ins[0]) != 2 || onnxi_rank(ins[1]) != 2) return onnxi_fail(im, PSG_ERR_TYPE, "A and B must be 2-D");
  double alpha = onnxi_attr_float(n, "alpha", 1.0f), beta = onnxi_attr_float(n, "beta", 1.0f);
  oval a = *ins[0], bm = *ins[1], y = {0};
  psg_expr_retain(a.e);
  psg_expr_retain(bm.e);
  if (onnxi_attr_int(n, "transA", 0)) {
    oval t = {0};
    st = onnxi_transpose(im, &a, PERM_T, 2, &t);
    onnxi_val_release(&a);
    a = t;
  }
  if (!st && !onnxi_attr_int(n, "transB", 0)) { /* dense wants B as (N, K) */
    oval t = {0};
    st = onnxi_transpose(im, &bm, PERM_T, 2, &t);
    onnxi_val_release(&bm);
    bm = t;
  }
  if (!st) st = onnxi_binary(im, "nn.dense", &a, &bm, &y);
  if (!st) st = scale(im, &y, alpha);
  if (!st && nin > 2 && ins[2] && beta != 0.0) {
    oval c = *ins[2], r;
    psg_expr_retain(c.e);
    st = scale(im, &c, beta);
    if (!st) st = onnxi_binary(im, "add", &y, &c, &r);
    onnxi_val_release(&c);
    onnxi_val_release(&y);
    if (!st) y = r;
  }
  onnxi_val_release(&a);
  onnxi_val_release(&bm);
  if (st) onnxi_val_release(&y);
  else outs[0] = y;
  return st;
}

ONNX_CONV(matmul) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = onnxi_need(im, ins, nin, 1);
  if (st) return st;
  (void)n;
  int ra = onnxi_rank(ins[0]), rb = onnxi_rank(ins[1]);
  if (ra < 1 || rb < 1) return onnxi_fail(im, PSG_ERR_TYPE, "MatMul inputs must have rank >= 1");
  if (ra == 2 && rb == 2) {
    oval bt = {0};
    st = onnxi_transpose(im, ins[1], PERM_T, 2, &bt);
    if (!st) st = onnxi_binary(im, "nn.dense", ins[0], &bt, &outs[0]);
    onnxi_val_release(&bt);
    return st;
  }
  if (ra > 2 && rb == 2) { /* (.., M, K) x (K, N): nn.matmul broadcasts the weight (one ONNX MatMul again) */
    onnx_ab b;
    onnxi_ab_init(&b, im->ctx);
    onnxi_ab_bool(&b, "transpose_a", false);
    onnxi_ab_bool(&b, "transpose_b", false);
    oval args[2] = {*ins[0], *ins[1]};
    return finish_call(im, "nn.matmul", args, 2, &b, &outs[0]);
  }
  /* General case: static shapes, numpy matmul broadcasting, batch_matmul on 3-D. */
  if (!onnxi_is_static(ins[0]) || !onnxi_is_static(ins[1]))
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "MatMul of rank %d and %d needs static shapes", ra, rb);
  int64_t sa[PSG_MAX_RANK + 1], sb[PSG_MAX_RANK + 1];
  int na = ra, nb = rb;
  for (int i = 0; i < ra; i++) sa[i] = onnxi_dim(ins[0], i);
  for (int i = 0; i < rb; i++) sb[i] = onnxi_dim(ins[1], i);
  bool va = ra == 1, vb = rb == 1;
  if (va) sa[1] = sa[0], sa[0] = 1, na = 2;
  if (vb) sb[1] = 1, nb = 2;
  int64_t M = sa[na - 2], K = sa[na - 1], N = sb[nb - 1];
  if (sb[nb - 2] != K) return onnxi_fail(im, PSG_ERR_TYPE, "inner dimensions differ (%lld and %lld)", (long long)K, (long long)sb[nb - 2]);
  int nbatch = (na > nb ? na : nb) - 2;
  int64_t batch[PSG_MAX_RANK], B = 1;
  for (int i = 0; i < nbatch; i++) {
    int ia = i - (nbatch - (na - 2)), ib = i - (nbatch - (nb - 2));
    int64_t da = ia >= 0 ? sa[ia] : 1, db = ib >= 0 ? sb[ib] : 1;
    if (da != db && da != 1 && db != 1) return onnxi_fail(im, PSG_ERR_TYPE, "batch dimensions do not broadcast");
    batch[i] = da > db ? da : db;
    B *= batch[i];
  }
  /* a -> (B, M, K), b -> (B, K, N) via broadcast_to + reshape; then batch_matmul(a, b^T). */
  oval a3 = {0}, b3 = {0}, bt = {0}, mm = {0}, tmp = {0};
  int64_t full[PSG_MAX_RANK + 2];
  for (int i = 0; i < nbatch; i++) full[i] = batch[i];
  int64_t s3a[3] = {B, M, K}, s3b[3] = {B, K, N}, perm3[3] = {0, 2, 1};
  /* a */
  full[nbatch] = M, full[nbatch + 1] = K;
  st = onnxi_reshape(im, ins[0], sa + 0, na, &tmp); /* makes vectors 2-D */
  if (!st) {
    onnx_ab b;
    onnxi_ab_init(&b, im->ctx);
    onnxi_ab_ints(&b, "shape", full, nbatch + 2);
    st = finish_call(im, "broadcast_to", &tmp, 1, &b, &a3);
    onnxi_val_release(&tmp);
  }
  if (!st) {
    st = onnxi_reshape(im, &a3, s3a, 3, &tmp);
    onnxi_val_release(&a3);
    a3 = tmp;
    tmp.e = NULL;
  }
  full[nbatch] = K, full[nbatch + 1] = N;
  if (!st) st = onnxi_reshape(im, ins[1], sb, nb, &tmp);
  if (!st) {
    onnx_ab b;
    onnxi_ab_init(&b, im->ctx);
    onnxi_ab_ints(&b, "shape", full, nbatch + 2);
    st = finish_call(im, "broadcast_to", &tmp, 1, &b, &b3);
    onnxi_val_release(&tmp);
  }
  if (!st) {
    st = onnxi_reshape(im, &b3, s3b, 3, &tmp);
    onnxi_val_release(&b3);
    b3 = tmp;
    tmp.e = NULL;
  }
  if (!st) st = onnxi_transpose(im, &b3, perm3, 3, &bt);
  if (!st) st = onnxi_binary(im, "nn.batch_matmul", &a3, &bt, &mm);
  /* back to the numpy result shape */
  int64_t res[PSG_MAX_RANK + 2];
  int nr = 0;
  for (int i = 0; i < nbatch; i++) res[nr++] = batch[i];
  if (!va) res[nr++] = M;
  if (!vb) res[nr++] = N;
  if (!st) st = onnxi_reshape(im, &mm, res, nr, &outs[0]);
  onnxi_val_release(&a3);
  onnxi_val_release(&b3);
  onnxi_val_release(&bt);
  onnxi_val_release(&mm);
  return st;
}

/* LayerNormalization with only Y over the last axis: nn.layer_norm (Relay's
 * normalizes over one axis). Otherwise the formula of the ONNX definition,
 * over the axes from `axis` on, with its Mean and InvStdDev outputs. */
static psg_status layer_norm_formula(onnx_imp *im, const Onnx__NodeProto *n, const oval *const *ins, size_t nin,
                                     int64_t axis, oval *outs) {
  int r = onnxi_rank(ins[0]), dt = onnxi_dtype(ins[0]);
  int64_t axes[PSG_MAX_RANK];
  for (int i = (int)axis; i < r; i++) axes[i - axis] = i;
  oval mean = {0}, d = {0}, sq = {0}, var = {0}, eps = {0}, ve = {0}, sd = {0}, one = {0}, inv = {0}, nrm = {0}, y = {0};
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_ints(&b, "axis", axes, r - (int)axis);
  onnxi_ab_bool(&b, "keepdims", true);
  psg_status st = finish_call(im, "mean", ins[0], 1, &b, &mean);
  if (!st) st = onnxi_binary(im, "subtract", ins[0], &mean, &d);
  if (!st) st = onnxi_binary(im, "multiply", &d, &d, &sq);
  if (!st) {
    onnxi_ab_init(&b, im->ctx);
    onnxi_ab_ints(&b, "axis", axes, r - (int)axis);
    onnxi_ab_bool(&b, "keepdims", true);
    st = finish_call(im, "mean", &sq, 1, &b, &var);
  }
  if (!st) st = onnxi_scalar(im, dt, onnxi_attr_float(n, "epsilon", 1e-5f), &eps);
  if (!st) st = onnxi_binary(im, "add", &var, &eps, &ve);
  if (!st) st = onnxi_unary(im, "sqrt", &ve, &sd);
  if (!st) st = onnxi_scalar(im, dt, 1, &one);
  if (!st) st = onnxi_binary(im, "divide", &one, &sd, &inv);
  if (!st) st = onnxi_binary(im, "multiply", &d, &inv, &nrm);
  if (!st) st = onnxi_binary(im, "multiply", &nrm, ins[1], &y);
  if (!st && nin > 2 && ins[2]) st = onnxi_binary(im, "add", &y, ins[2], &outs[0]);
  else if (!st) outs[0] = y, y.e = NULL;
  if (!st && n->n_output > 1) outs[1] = mean, mean.e = NULL;
  if (!st && n->n_output > 2) outs[2] = inv, inv.e = NULL;
  oval *tmp[] = {&mean, &d, &sq, &var, &eps, &ve, &sd, &one, &inv, &nrm, &y};
  for (size_t i = 0; i < sizeof tmp / sizeof tmp[0]; i++) onnxi_val_release(tmp[i]);
  return st;
}

ONNX_CONV(layer_norm) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = onnxi_need(im, ins, nin, 1);
  if (st) return st;
  int r = onnxi_rank(ins[0]);
  int64_t axis = onnxi_attr_int(n, "axis", -1);
  if (axis < 0) axis += r;
  if (r < 1 || axis < 0 || axis >= r) return onnxi_fail(im, PSG_ERR_TYPE, "axis %lld is out of range for rank %d", (long long)onnxi_attr_int(n, "axis", -1), r);
  if (onnxi_attr_int(n, "stash_type", 1) != 1) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "stash_type other than 1");
  if (!psg_dtype_is_float(onnxi_dtype(ins[0]))) return onnxi_fail(im, PSG_ERR_TYPE, "LayerNormalization of %s", psg_dtype_name(onnxi_dtype(ins[0])));
  bool more = false;
  for (size_t i = 1; i < n->n_output; i++) more |= n->output[i] && n->output[i][0];
  int64_t c = onnxi_dim(ins[0], r - 1);
  bool vec = c >= 0 && onnxi_rank(ins[1]) == 1 && onnxi_dim(ins[1], 0) == c &&
             (nin < 3 || !ins[2] || (onnxi_rank(ins[2]) == 1 && onnxi_dim(ins[2], 0) == c));
  if (more || axis != r - 1 || !vec) return layer_norm_formula(im, n, ins, nin, axis, outs);
  oval beta = {0};
  if (nin > 2 && ins[2]) {
    beta = *ins[2];
    psg_expr_retain(beta.e);
  } else {
    onnx_ab z;
    onnxi_ab_init(&z, im->ctx);
    onnxi_ab_ints(&z, "shape", &c, 1);
    onnxi_ab_dtype(&z, "dtype", onnxi_dtype(ins[0]));
    st = finish_call(im, "zeros", NULL, 0, &z, &beta);
  }
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_int(&b, "axis", -1);
  onnxi_ab_float(&b, "epsilon", onnxi_attr_float(n, "epsilon", 1e-5f));
  oval args[3] = {*ins[0], *ins[1], beta};
  if (!st) st = finish_call(im, "nn.layer_norm", args, 3, &b, &outs[0]);
  onnxi_val_release(&beta);
  return st;
}

ONNX_CONV(batch_norm) {
  for (size_t i = 0; i < 5; i++) {
    psg_status st = onnxi_need(im, ins, nin, i);
    if (st) return st;
  }
  if (onnxi_attr_int(n, "training_mode", 0)) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "training_mode=1 is not supported");
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_int(&b, "axis", 1);
  onnxi_ab_float(&b, "epsilon", onnxi_attr_float(n, "epsilon", 1e-5f));
  oval args[5] = {*ins[0], *ins[1], *ins[2], *ins[3], *ins[4]}, tup = {0};
  psg_status st = finish_call(im, "nn.batch_norm", args, 5, &b, &tup);
  if (!st) st = onnxi_get_item(im, &tup, 0, &outs[0]);
  onnxi_val_release(&tup);
  return st;
}

static ONNX_CONV(pool2d) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = need_4d(im, ins[0], n->op_type);
  if (st) return st;
  bool is_max = !strcmp(n->op_type, "MaxPool");
  if (is_max && onnxi_attr_int(n, "storage_order", 0)) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "storage_order=1 is not supported");
  spatial s;
  if ((st = read_spatial(im, n, ins[0], NULL, false, &s))) return st;
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_ints(&b, "pool_size", s.kernel, 2);
  onnxi_ab_ints(&b, "strides", s.strides, 2);
  onnxi_ab_ints(&b, "dilation", s.dil, 2);
  onnxi_ab_ints(&b, "padding", s.pads, 4);
  onnxi_ab_bool(&b, "ceil_mode", onnxi_attr_int(n, "ceil_mode", 0) != 0);
  if (!is_max) onnxi_ab_bool(&b, "count_include_pad", onnxi_attr_int(n, "count_include_pad", 0) != 0);
  return finish_call(im, is_max ? "nn.max_pool2d" : "nn.avg_pool2d", ins[0], 1, &b, &outs[0]);
}

ONNX_CONV(global_avg_pool) {
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = need_4d(im, ins[0], n->op_type);
  return st ? st : onnxi_unary(im, "nn.global_avg_pool2d", ins[0], &outs[0]);
}

/* 1-D forms: lift the first `nlift` inputs to rank 4, convert as 2-D, squeeze. */
static psg_status with_lift(onnx_imp *im, const Onnx__NodeProto *n, const oval *const *ins, size_t nin, oval *outs,
                            size_t nlift, onnx_conv_fn impl) {
  if (nin == 0 || !ins[0] || onnxi_rank(ins[0]) != 3) return impl(im, n, ins, nin, outs);
  oval lifted[2] = {{0}, {0}};
  const oval **args = psgi_alloc(im->ctx, psgi_mul_size(nin, sizeof *args));
  if (!args) return PSG_ERR_NOMEM;
  psg_status st = PSG_OK;
  for (size_t i = 0; i < nin; i++) args[i] = ins[i];
  for (size_t i = 0; i < nlift && i < nin && !st; i++) {
    if (!ins[i] || onnxi_rank(ins[i]) != 3) {
      st = onnxi_fail(im, PSG_ERR_TYPE, "input %zu must have rank 3 like X", i);
      break;
    }
    st = lift(im, ins[i], &lifted[i]);
    args[i] = &lifted[i];
  }
  im->lift1d = true;
  if (!st) st = impl(im, n, args, nin, outs);
  im->lift1d = false;
  if (!st) st = unlift(im, &outs[0]);
  for (size_t i = 0; i < 2; i++) onnxi_val_release(&lifted[i]);
  psgi_free(im->ctx, args);
  return st;
}

ONNX_CONV(conv) { return with_lift(im, n, ins, nin, outs, 2, onnxi_conv_conv2d); }
ONNX_CONV(conv_transpose) { return with_lift(im, n, ins, nin, outs, 2, onnxi_conv_conv_transpose2d); }
ONNX_CONV(pool) { return with_lift(im, n, ins, nin, outs, 1, onnxi_conv_pool2d); }
