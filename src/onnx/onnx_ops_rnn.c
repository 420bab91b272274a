/* Passage ONNX frontend — LSTM, decomposed as TVM's onnx.py does: the
 * sequence is unrolled (static length) into dense products, the i/o/f/c gate
 * slices, sigmoid/tanh, and the cell update; directions forward, reverse and
 * bidirectional; optional bias, initial state and peepholes. The decomposition
 * is the body of a function literal marked Composite="onnx.LSTM" (TVM's BYOC
 * convention) with the node's hidden_size and direction, called on the node's
 * inputs and returning (Y, Y_h, Y_c): passes see Relay ops, and the exporter
 * (onnx_export_rnn.c) writes the call back as one LSTM node. The parameters
 * are the inputs present, in order, named after them (X, W, R, B, initial_h,
 * initial_c, P); the attribute onnx_inputs gives each one's ONNX input index,
 * since names do not survive printing (%X_1). */
#include <stdlib.h>
#include <string.h>
#include "onnx_ops.h"

static psg_status call1(onnx_imp *im, const char *op, const oval *x, onnx_ab *b, oval *out) {
  psg_attrs *a = NULL;
  psg_status st = onnxi_ab_finish(b, &a);
  if (!st) st = onnxi_call(im, op, x, 1, a, out);
  psg_attrs_release(a);
  return st;
}

/* x[..., begin:end, ...] along `axis`, optionally with that axis squeezed. */
/* The bytes of a (batch, H) state of `dtype`; INT64_MAX on overflow. */
static int64_t zero_bytes(int dtype, const int64_t *hshape) {
  int64_t b = (int64_t)psg_dtype_size(dtype);
  if (__builtin_mul_overflow(b, hshape[0], &b) || __builtin_mul_overflow(b, hshape[1], &b)) return INT64_MAX;
  return b;
}

static psg_status slice(onnx_imp *im, const oval *x, int64_t axis, int64_t begin, int64_t end, bool squeeze, oval *out) {
  onnx_ab b;
  int64_t bb[1] = {begin}, ee[1] = {end}, ss[1] = {1}, aa[1] = {axis};
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_ints(&b, "begin", bb, 1);
  onnxi_ab_ints(&b, "end", ee, 1);
  onnxi_ab_ints(&b, "strides", ss, 1);
  onnxi_ab_ints(&b, "axes", aa, 1);
  if (!squeeze) return call1(im, "strided_slice", x, &b, out);
  oval s = {0};
  psg_status st = call1(im, "strided_slice", x, &b, &s);
  if (!st) {
    onnxi_ab_init(&b, im->ctx);
    onnxi_ab_ints(&b, "axis", aa, 1);
    st = call1(im, "squeeze", &s, &b, out);
  }
  onnxi_val_release(&s);
  return st;
}

static psg_status expand0(onnx_imp *im, const oval *x, int64_t axis, oval *out) {
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_int(&b, "axis", axis);
  onnxi_ab_int(&b, "num_newaxis", 1);
  return call1(im, "expand_dims", x, &b, out);
}

static psg_status concat(onnx_imp *im, const oval *xs, size_t n, int64_t axis, oval *out) {
  onnx_ab b;
  onnxi_ab_init(&b, im->ctx);
  onnxi_ab_int(&b, "axis", axis);
  psg_attrs *a = NULL;
  psg_status st = onnxi_ab_finish(&b, &a);
  if (!st) st = onnxi_call_tuple(im, "concatenate", xs, n, a, out);
  psg_attrs_release(a);
  return st;
}

/* acc = op(acc, y), replacing acc. */
static psg_status acc_bin(onnx_imp *im, const char *op, oval *acc, const oval *y) {
  oval r = {0};
  psg_status st = onnxi_binary(im, op, acc, y, &r);
  onnxi_val_release(acc);
  if (!st) *acc = r;
  return st;
}

static psg_status act(onnx_imp *im, const char *op, oval *v) {
  oval r = {0};
  psg_status st = onnxi_unary(im, op, v, &r);
  onnxi_val_release(v);
  if (!st) *v = r;
  return st;
}

enum { MAX_SEQ = 4096 };

typedef struct dir_state {
  oval w, r, bias, p[3], h, c; /* p: peepholes i, o, f */
  bool has_bias, has_p;
} dir_state;

static void dir_release(dir_state *d) {
  onnxi_val_release(&d->w);
  onnxi_val_release(&d->r);
  onnxi_val_release(&d->bias);
  for (int i = 0; i < 3; i++) onnxi_val_release(&d->p[i]);
  onnxi_val_release(&d->h);
  onnxi_val_release(&d->c);
}

/* One time step: updates d->h and d->c. */
static psg_status step(onnx_imp *im, dir_state *d, const oval *xt, int64_t H) {
  oval g = {0}, hr = {0}, gate[4] = {{0}}, t = {0}, cn = {0};
  psg_status st = onnxi_binary(im, "nn.dense", xt, &d->w, &g);
  if (!st) st = onnxi_binary(im, "nn.dense", &d->h, &d->r, &hr);
  if (!st) st = acc_bin(im, "add", &g, &hr);
  if (!st && d->has_bias) st = acc_bin(im, "add", &g, &d->bias);
  for (int k = 0; k < 4 && !st; k++) st = slice(im, &g, 1, k * H, (k + 1) * H, false, &gate[k]);
  /* ONNX order: i, o, f, c */
  if (!st && d->has_p) {
    if (!(st = onnxi_binary(im, "multiply", &d->p[0], &d->c, &t))) st = acc_bin(im, "add", &gate[0], &t);
    onnxi_val_release(&t);
    if (!st && !(st = onnxi_binary(im, "multiply", &d->p[2], &d->c, &t))) st = acc_bin(im, "add", &gate[2], &t);
    onnxi_val_release(&t);
  }
  if (!st) st = act(im, "sigmoid", &gate[0]);
  if (!st) st = act(im, "sigmoid", &gate[2]);
  if (!st) st = act(im, "tanh", &gate[3]);
  if (!st) st = onnxi_binary(im, "multiply", &gate[2], &d->c, &cn);
  if (!st && !(st = onnxi_binary(im, "multiply", &gate[0], &gate[3], &t))) st = acc_bin(im, "add", &cn, &t);
  onnxi_val_release(&t);
  if (!st && d->has_p) {
    if (!(st = onnxi_binary(im, "multiply", &d->p[1], &cn, &t))) st = acc_bin(im, "add", &gate[1], &t);
    onnxi_val_release(&t);
  }
  if (!st) st = act(im, "sigmoid", &gate[1]);
  oval th = {0}, hn = {0};
  if (!st) st = onnxi_unary(im, "tanh", &cn, &th);
  if (!st) st = onnxi_binary(im, "multiply", &gate[1], &th, &hn);
  if (!st) {
    onnxi_val_release(&d->h);
    onnxi_val_release(&d->c);
    d->h = hn, d->c = cn;
    hn.e = cn.e = NULL;
  }
  onnxi_val_release(&th);
  onnxi_val_release(&hn);
  onnxi_val_release(&cn);
  onnxi_val_release(&g);
  onnxi_val_release(&hr);
  for (int k = 0; k < 4; k++) onnxi_val_release(&gate[k]);
  return st;
}

/* The unrolled LSTM over `in` (X, W, R, B, -, initial_h, initial_c, P; NULL
 * when absent): out[0..2] = Y, Y_h, Y_c. */
static psg_status decompose(onnx_imp *im, const oval *const *in, int ndir, bool reverse, int64_t H, oval *out) {
  const oval *X = in[0];
  int64_t seq = onnxi_dim(X, 0), batch = onnxi_dim(X, 1);
  dir_state d[2];
  memset(d, 0, sizeof d);
  oval *ys[2] = {NULL, NULL};
  oval hy[2] = {{0}}, cy[2] = {{0}}, ydir[2] = {{0}};
  int64_t hshape[2] = {batch, H};
  psg_status st = PSG_OK;
  for (int k = 0; k < ndir && !st; k++) {
    st = slice(im, in[1], 0, k, k + 1, true, &d[k].w);
    if (!st) st = slice(im, in[2], 0, k, k + 1, true, &d[k].r);
    if (!st && in[3]) {
      oval b = {0}, wb = {0}, rb = {0};
      st = slice(im, in[3], 0, k, k + 1, true, &b);
      if (!st) st = slice(im, &b, 0, 0, 4 * H, false, &wb);
      if (!st) st = slice(im, &b, 0, 4 * H, 8 * H, false, &rb);
      if (!st) st = onnxi_binary(im, "add", &wb, &rb, &d[k].bias);
      d[k].has_bias = !st;
      onnxi_val_release(&b);
      onnxi_val_release(&wb);
      onnxi_val_release(&rb);
    }
    /* Absent initial states are zeros (each its own: ONNX's initial_c does
     * not default to initial_h). */
    for (int j = 0; j < 2 && !st; j++) {
      oval *s0 = j ? &d[k].c : &d[k].h;
      if (in[5 + j]) {
        st = slice(im, in[5 + j], 0, k, k + 1, true, s0);
      } else if (zero_bytes(onnxi_dtype(X), hshape) > im->max_constant_bytes) {
        /* Too large for a constant (passage.max_constant_bytes): a lazy zeros. */
        onnx_ab z;
        onnxi_ab_init(&z, im->ctx);
        onnxi_ab_ints(&z, "shape", hshape, 2);
        onnxi_ab_dtype(&z, "dtype", onnxi_dtype(X));
        psg_attrs *a = NULL;
        st = onnxi_ab_finish(&z, &a);
        if (!st) st = onnxi_call(im, "zeros", NULL, 0, a, s0);
        psg_attrs_release(a);
      } else {
        psg_tensor *z = NULL;
        st = psg_tensor_create(im->ctx, onnxi_dtype(X), hshape, 2, NULL, &z);
        if (!st) st = onnxi_const_val(im, z, s0);
        psg_tensor_release(z);
      }
    }
    if (!st && in[7]) {
      oval p = {0};
      st = slice(im, in[7], 0, k, k + 1, true, &p);
      for (int j = 0; j < 3 && !st; j++) st = slice(im, &p, 0, j * H, (j + 1) * H, false, &d[k].p[j]);
      d[k].has_p = !st;
      onnxi_val_release(&p);
    }
    if (!st && !(ys[k] = psgi_calloc(im->ctx, psgi_mul_size((size_t)seq + 1, sizeof(oval))))) st = PSG_ERR_NOMEM;
    bool rev = reverse || k == 1;
    for (int64_t i = 0; i < seq && !st; i++) {
      int64_t t = rev ? seq - 1 - i : i;
      oval xt = {0};
      st = slice(im, X, 0, t, t + 1, true, &xt);
      if (!st) st = step(im, &d[k], &xt, H);
      if (!st) st = expand0(im, &d[k].h, 0, &ys[k][t]);
      onnxi_val_release(&xt);
    }
    if (!st) {
      oval yk = {0};
      st = concat(im, ys[k], (size_t)seq, 0, &yk); /* (seq, batch, H) */
      if (!st) st = expand0(im, &yk, 1, &ydir[k]);
      onnxi_val_release(&yk);
    }
    if (!st) st = expand0(im, &d[k].h, 0, &hy[k]);
    if (!st) st = expand0(im, &d[k].c, 0, &cy[k]);
  }
  if (!st) st = ndir == 1 ? (out[0] = ydir[0], psg_expr_retain(ydir[0].e), PSG_OK) : concat(im, ydir, 2, 1, &out[0]);
  if (!st) st = ndir == 1 ? (out[1] = hy[0], psg_expr_retain(hy[0].e), PSG_OK) : concat(im, hy, 2, 0, &out[1]);
  if (!st) st = ndir == 1 ? (out[2] = cy[0], psg_expr_retain(cy[0].e), PSG_OK) : concat(im, cy, 2, 0, &out[2]);
  for (int k = 0; k < 2; k++) {
    dir_release(&d[k]);
    for (int64_t i = 0; ys[k] && i < seq; i++) onnxi_val_release(&ys[k][i]);
    psgi_free(im->ctx, ys[k]);
    onnxi_val_release(&hy[k]);
    onnxi_val_release(&cy[k]);
    onnxi_val_release(&ydir[k]);
  }
  return st;
}

/* fn(params) { (Y, Y_h, Y_c) }, Composite="onnx.LSTM", called on the present
 * inputs: the call, typed, in *out. */
static psg_status composite(onnx_imp *im, const oval *const *ins, size_t nin, const char *dir, int ndir, bool reverse,
                            int64_t H, oval *out) {
  static const char *const pname[8] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
  psg_ctx *ctx = im->ctx;
  psg_expr *params[8] = {0}, *args[8] = {0}, *body = NULL, *fn = NULL;
  oval pv[8] = {{0}}, res[3] = {{0}};
  const oval *in[8] = {0};
  int64_t idx[8];
  size_t np = 0;
  psg_status st = PSG_OK;
  psg_span sb;
  const psg_span *sp = onnxi_span(im, &sb); /* the node's name, kept by the export */
  for (size_t i = 0; i < 8 && i < nin && !st; i++) {
    if (!ins[i]) continue;
    st = psg_var_create(ctx, pname[i], ins[i]->t, sp, &params[np]);
    if (!st) st = psg_expr_infer_type(params[np], NULL);
    if (st) break;
    pv[i].e = params[np], pv[i].t = ins[i]->t;
    in[i] = &pv[i];
    idx[np] = (int64_t)i;
    args[np++] = ins[i]->e;
  }
  if (!st) st = decompose(im, in, ndir, reverse, H, res);
  psg_expr *fields[3] = {res[0].e, res[1].e, res[2].e};
  if (!st) st = psg_tuple_create(ctx, fields, 3, sp, &body);
  const psg_type *body_type = NULL; /* the return type, as InferType writes it */
  if (!st) st = psg_expr_infer_type(body, &body_type);
  onnx_ab b;
  psg_attrs *attrs = NULL;
  onnxi_ab_init(&b, ctx);
  onnxi_ab_str(&b, "Composite", "onnx.LSTM");
  onnxi_ab_int(&b, "hidden_size", H);
  onnxi_ab_str(&b, "direction", dir);
  onnxi_ab_ints(&b, "onnx_inputs", idx, (int)np);
  psg_status sa = onnxi_ab_finish(&b, &attrs);
  if (!st) st = sa;
  if (!st) st = psg_function_create(ctx, params, np, body, body_type, attrs, sp, &fn);
  if (!st) st = psg_expr_infer_type(fn, NULL);
  if (!st) st = psg_call_create(ctx, fn, args, np, NULL, sp, &out->e);
  if (!st) st = psg_expr_infer_type(out->e, &out->t);
  if (!st && !out->t) st = onnxi_fail(im, PSG_ERR_INTERNAL, "the LSTM function has no type");
  psg_attrs_release(attrs);
  psg_expr_release(fn);
  psg_expr_release(body);
  for (int k = 0; k < 3; k++) onnxi_val_release(&res[k]);
  for (size_t i = 0; i < np; i++) psg_expr_release(params[i]);
  return st;
}

ONNX_CONV(lstm) {
  if (nin > 8) return onnxi_fail(im, PSG_ERR_PARSE, "LSTM takes at most 8 inputs, not %zu", nin);
  psg_status st = onnxi_need(im, ins, nin, 0);
  if (!st) st = onnxi_need(im, ins, nin, 1);
  if (!st) st = onnxi_need(im, ins, nin, 2);
  if (st) return st;
  char buf[32];
  const char *dir = onnxi_attr_str(n, "direction", "forward", buf, sizeof buf);
  int ndir = !strcmp(dir, "bidirectional") ? 2 : 1;
  bool reverse = !strcmp(dir, "reverse");
  if (ndir == 1 && !reverse && strcmp(dir, "forward")) return onnxi_fail(im, PSG_ERR_PARSE, "unknown direction '%s'", dir);
  if (onnxi_attr_int(n, "layout", 0)) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "layout=1 is not supported");
  if (onnxi_attr_int(n, "input_forget", 0)) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "input_forget=1 is not supported");
  if (onnxi_attr(n, "clip")) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "the 'clip' attribute is not supported");
  const Onnx__AttributeProto *acts = onnxi_attr(n, "activations");
  for (size_t i = 0; acts && i < acts->n_strings; i++) {
    static const char *const dflt[3] = {"Sigmoid", "Tanh", "Tanh"};
    if (acts->strings[i].len != strlen(dflt[i % 3]) || memcmp(acts->strings[i].data, dflt[i % 3], acts->strings[i].len))
      return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "activations other than Sigmoid, Tanh, Tanh are not supported");
  }
  if (nin > 4 && ins[4]) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "the sequence_lens input is not supported");
  const oval *X = ins[0];
  if (onnxi_rank(X) != 3 || !onnxi_is_static(X)) return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "X must be 3-D with a static shape");
  int64_t seq = onnxi_dim(X, 0), H = onnxi_dim(ins[2], 2);
  if (H <= 0 || seq <= 0 || seq > MAX_SEQ)
    return onnxi_fail(im, PSG_ERR_UNSUPPORTED, "sequence length %lld or hidden size is out of range", (long long)seq);
  int64_t hs = onnxi_attr_int(n, "hidden_size", H);
  if (hs != H) return onnxi_fail(im, PSG_ERR_TYPE, "hidden_size %lld differs from R's %lld", (long long)hs, (long long)H);
  oval call = {0};
  st = composite(im, ins, nin, dir, ndir, reverse, H, &call);
  for (int k = 0; k < 3 && !st; k++)
    if (n->n_output > (size_t)k && n->output[k][0]) st = onnxi_get_item(im, &call, k, &outs[k]);
  onnxi_val_release(&call);
  return st;
}
