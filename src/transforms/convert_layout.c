/* Passage — ConvertLayout (tvm-behavior §7.1, TVM's convert_layout.cc and
 * transform_layout.h): a function pass (opt 3, required InferType and
 * CanonicalizeOps; option desired_layouts = {op: [data layout, kernel layout
 * or "default"]}) that puts nn.conv2d, nn.conv2d_transpose, the 2-D pools
 * and image.resize2d in the desired layout and carries that layout through
 * the layout-agnostic ops after them, so a layout_transform is inserted only
 * where the layout must change. An op of desired_layouts with an
 * FTVMConvertOpLayout hook (include/passage/op_attr.h) is converted by the
 * hook instead. The same rewriter runs AlterOpLayout (alter_op_layout.c),
 * whose FTVMAlterOpLayout hooks may pick blocked layouts such as NCHW16c. */
#include <stdio.h>

#include "ops/layout_blocked.h"
#include "ops/op_attr.h"
#include "ops/op_impl.h"
#include "transforms/builder.h"
#include "transforms/layout_rewrite.h"
#include "transforms/transforms.h"

/* One entry of desired_layouts; strings interned. kernel NULL: "default". */
typedef struct desired {
  const char *op, *data, *kernel;
} desired;

typedef struct config {
  psg_ctx *ctx;
  /* The op hooks the pass calls (FTVMConvertOpLayout for the ops of d[],
   * FTVMAlterOpLayout for every op when `alter`), or NULL. */
  const char *hook;
  bool alter;
  size_t n;
  desired d[];
} config;

/* The new value of an original node is in layout `cur`, where the original
 * was in `orig` (same letters, interned): new = layout_transform(old, orig, cur). */
typedef struct tag {
  const char *orig, *cur;
} tag;

typedef struct memo_entry {
  const char *src, *dst;
  psg_expr *result;
  size_t next;
} memo_entry;

typedef struct converter {
  psg_ctx *ctx;
  const config *cfg;
  psgi_map tags; /* original node -> index + 1 in tag_list */
  PSGI_VEC(tag) tag_list;
  /* TVM's TransformMemorizer: (new value, src, dst) -> its transform (owned),
   * so a value read in the same new layout by several users is transformed
   * once. Chains of entries per value, linked through `next` (index + 1). */
  psgi_map memo; /* value -> index + 1 of its newest entry */
  PSGI_VEC(memo_entry) memos;
} converter;

static const char *const pool_ops[] = {"nn.max_pool2d", "nn.avg_pool2d", "nn.global_max_pool2d",
                                       "nn.global_avg_pool2d"};

/* Ops that follow their input's layout when a desired layout does not name
 * them: the pools, nn.upsampling and image.resize2d (a `layout` attribute,
 * unsplit H and W). */
static const char *const follow_ops[] = {"nn.max_pool2d", "nn.avg_pool2d", "nn.global_max_pool2d",
                                         "nn.global_avg_pool2d", "nn.upsampling", "image.resize2d"};

/* Broadcasting ops whose result does not depend on the layout (TVM's
 * BinaryBroadcastLayout ops, and where). */
static const char *const broadcast_ops[] = {"add", "subtract", "multiply", "divide", "power", "maximum",
                                            "minimum", "floor_divide", "floor_mod", "equal", "not_equal",
                                            "greater", "greater_equal", "less", "less_equal", "logical_and",
                                            "logical_or", "where"};

static bool in_list(const char *op, const char *const *list, size_t n) {
  for (size_t i = 0; op && i < n; i++)
    if (!strcmp(op, list[i])) return true;
  return false;
}

static const desired *desired_for(const config *cfg, const char *op) {
  for (size_t i = 0; op && i < cfg->n; i++)
    if (!strcmp(cfg->d[i].op, op)) return &cfg->d[i];
  return NULL;
}

static const tag *tag_of(const converter *c, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(&c->tags, e);
  return en ? &c->tag_list.data[(uintptr_t)en->value - 1] : NULL;
}

/* A tag whose new layout splits an axis (NCHW -> NCHW16c): only the rules
 * that never move an axis by its letter take it. */
static bool is_blocked(const tag *t) { return t && strlen(t->orig) != strlen(t->cur); }

static psg_status set_tag(converter *c, const psg_expr *e, const char *orig, const char *cur) {
  orig = psgi_intern(c->ctx, orig, strlen(orig));
  cur = psgi_intern(c->ctx, cur, strlen(cur));
  if (!orig || !cur) return psgi_nomem(c->ctx);
  if (orig == cur) return PSG_OK; /* interned: same layout, nothing to carry */
  psgi_map_entry *en = psgi_map_put_ptr(&c->tags, e, NULL);
  if (!en || !PSGI_VEC_PUSH(c->ctx, &c->tag_list, ((tag){orig, cur}))) return psgi_nomem(c->ctx);
  en->value = (void *)(uintptr_t)c->tag_list.len;
  return PSG_OK;
}

/* Building ------------------------------------------------------------------------------- */

static psg_attr *str_attr(psgi_built *b, const char *s) {
  psg_attr *a = NULL;
  psg_status st = psg_attr_string(b->ctx, s, strlen(s), &a);
  if (st && !b->status) b->status = st;
  return st ? NULL : a;
}

static bool is_transform(const psg_expr *e, const char *src, const char *dst) {
  const char *op = psgi_call_op_name(e);
  return op && !strcmp(op, "layout_transform") && !strcmp(psgi_attr_str(e->u.attrs, "src_layout", ""), src) &&
         !strcmp(psgi_attr_str(e->u.attrs, "dst_layout", ""), dst);
}

/* v (in layout src) in layout dst; a transform that undoes the one that made
 * v cancels it. Borrowed result. */
static psg_expr *transform(converter *c, psgi_built *b, psg_expr *v, const char *src, const char *dst) {
  if (!v || !strcmp(src, dst)) return v;
  if (is_transform(v, dst, src)) return v->kids[1];
  psgi_map_entry *en = psgi_map_put_ptr(&c->memo, v, NULL);
  if (!en) {
    if (!b->status) b->status = psgi_nomem(c->ctx);
    return NULL;
  }
  for (size_t i = (uintptr_t)en->value; i; i = c->memos.data[i - 1].next)
    if (!strcmp(c->memos.data[i - 1].src, src) && !strcmp(c->memos.data[i - 1].dst, dst))
      return c->memos.data[i - 1].result;
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"src_layout", "dst_layout"},
                                      (psg_attr *[]){str_attr(b, src), str_attr(b, dst)}, 2);
  psg_expr *r = attrs ? psgi_build_call(b, "layout_transform", &v, 1, attrs) : NULL;
  src = psgi_intern(c->ctx, src, strlen(src));
  dst = psgi_intern(c->ctx, dst, strlen(dst));
  if (!r) return NULL;
  if (!src || !dst || !PSGI_VEC_PUSH(c->ctx, &c->memos, ((memo_entry){src, dst, r, (uintptr_t)en->value}))) {
    if (!b->status) b->status = psgi_nomem(c->ctx);
    return NULL;
  }
  psg_expr_retain(r);
  en->value = (void *)(uintptr_t)c->memos.len;
  return r;
}

/* The new value of original node `e` (rewritten as `now`) in its original
 * layout: one layout_transform back per tagged node, shared by its users. */
static psg_expr *tuple_in_original(converter *c, psgi_built *b, const psg_expr *e, psg_expr *now, const tag *t);

/* Whether a field of a tagged tuple is a tensor of the tag's rank. */
static bool in_tagged_rank(const psg_type *field, const tag *t) {
  return field && field->kind == PSG_TYPE_TENSOR && field->n == (int)strlen(t->orig);
}

static psg_expr *original_layout(converter *c, psgi_built *b, const psg_expr *e, psg_expr *now) {
  const tag *t = tag_of(c, e);
  const psg_type *ty = t ? psgi_type_of(e) : NULL;
  if (ty && ty->kind == PSG_TYPE_TUPLE) return tuple_in_original(c, b, e, now, t);
  return t ? transform(c, b, now, t->cur, t->orig) : now;
}

/* A tagged tuple (a converted split) read as a whole: (transform(now.0),
 * transform(now.1), ...) in the original layout. */
static psg_expr *tuple_in_original(converter *c, psgi_built *b, const psg_expr *e, psg_expr *now, const tag *t) {
  const psg_type *ty = psgi_type_of(e);
  if (ty->n > 64) {
    if (!b->status) b->status = psg_ctx_fail(c->ctx, PSG_ERR_INTERNAL, "ConvertLayout: split into over 64 pieces");
    return NULL;
  }
  psg_expr *fields[64];
  for (int i = 0; i < ty->n; i++) {
    /* only the fields of the layout's rank are in it (batch_norm's mean and
     * variance are not) */
    psg_expr *f = psgi_build_tuple_get_item(b, now, i);
    if (!(fields[i] = in_tagged_rank(ty->fields[i], t) ? transform(c, b, f, t->cur, t->orig) : f)) return NULL;
  }
  psg_expr *tup = NULL;
  psg_status st = psg_tuple_create(c->ctx, fields, (size_t)ty->n, psgi_expr_span_ref(e), &tup);
  if (!st && !PSGI_VEC_PUSH(c->ctx, &b->exprs, tup)) psg_expr_release(tup), st = psgi_nomem(c->ctx);
  if (st && !b->status) b->status = st;
  return st ? NULL : tup;
}

/* The new value of original node `e`, whose original value is in layout
 * `base`, in layout `want`. */
static psg_expr *in_layout(converter *c, psgi_built *b, const psg_expr *e, psg_expr *now, const char *base,
                           const char *want) {
  const tag *t = tag_of(c, e);
  if (t && !strcmp(t->orig, base)) return transform(c, b, now, t->cur, want);
  return transform(c, b, original_layout(c, b, e, now), base, want);
}

/* A call like `like` (callee and span) with these args and attrs; owned by b. */
static psg_expr *remake(psgi_built *b, const psg_expr *like, psg_expr *const *args, size_t n, psg_attrs *attrs) {
  for (size_t i = 0; i < n; i++)
    if (!args[i]) return NULL;
  psg_expr *call = NULL;
  psg_status st = b->status ? b->status : psg_call_create(b->ctx, like->kids[0], args, n, attrs, psgi_expr_span_ref(like), &call);
  if (!st && !PSGI_VEC_PUSH(b->ctx, &b->exprs, call)) psg_expr_release(call), st = psgi_nomem(b->ctx);
  if (st && !b->status) b->status = st;
  return st ? NULL : call;
}

/* `attrs` with string attrs set (keys[i] = values[i]); owned by b. */
static psg_attrs *with_strings(psgi_built *b, const psg_attrs *attrs, const char *const *keys,
                               const char *const *values, size_t n) {
  psg_attrs *cur = (psg_attrs *)attrs;
  for (size_t i = 0; i < n && !b->status; i++) {
    psg_attr *v = str_attr(b, values[i]);
    psg_attrs *next = NULL;
    psg_status st = v ? psg_attrs_with(b->ctx, cur, keys[i], v, &next) : b->status;
    psg_attr_release(v);
    if (!st && !PSGI_VEC_PUSH(b->ctx, &b->attrs, next)) psg_attrs_release(next), st = psgi_nomem(b->ctx);
    if (st && !b->status) b->status = st;
    cur = next;
  }
  return b->status ? NULL : cur;
}

/* Rules ------------------------------------------------------------------------------------ */

static bool is_layout(const char *l, const char *letters) {
  if (strlen(l) != strlen(letters)) return false;
  for (const char *p = letters; *p; p++)
    if (!strchr(l, *p)) return false;
  return true;
}

/* TVM's default kernel layout for a data layout (convert_conv2d). */
static const char *default_kernel(const char *data, const psg_expr *conv) {
  if (!strcmp(psgi_call_op_name(conv), "nn.conv2d_transpose")) /* convert_conv2d_transpose */
    return !strcmp(data, "NCHW") ? "IOHW" : !strcmp(data, "NHWC") ? "HWIO" : NULL;
  if (!strcmp(data, "NCHW")) return "OIHW";
  if (!strcmp(data, "HWNC")) return "HWOI";
  if (strcmp(data, "NHWC")) return NULL;
  const psg_type *x = psgi_tensor_type_of(conv->kids[1]), *w = psgi_tensor_type_of(conv->kids[2]);
  const char *dl = psgi_attr_str(conv->u.attrs, "data_layout", "NCHW");
  const char *kl = psgi_attr_str(conv->u.attrs, "kernel_layout", "OIHW");
  int64_t groups = psgi_attr_int(conv->u.attrs, "groups", 1);
  bool depthwise = x && w && x->n == 4 && w->n == 4 && is_layout(dl, "NCHW") && is_layout(kl, "OIHW") &&
                   x->dims[strchr(dl, 'C') - dl] == groups && w->dims[strchr(kl, 'O') - kl] == groups;
  return depthwise ? "HWOI" : "HWIO";
}

/* nn.conv2d or nn.conv2d_transpose with a desired layout: data and weight
 * transformed in, the result tagged with the new layout. */
static psg_expr *convert_conv(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now, const desired *d) {
  const psg_attrs *a = e->u.attrs;
  bool transpose = !strcmp(psgi_call_op_name(e), "nn.conv2d_transpose");
  const char *dl = psgi_attr_str(a, "data_layout", "NCHW");
  const char *kl = psgi_attr_str(a, "kernel_layout", transpose ? "IOHW" : "OIHW");
  const char *ol = psgi_attr_str(a, "out_layout", "");
  const char *kernel = d->kernel ? d->kernel : default_kernel(d->data, e);
  if (!kernel || (ol[0] && strcmp(ol, dl)) || !is_layout(dl, "NCHW") || !is_layout(kl, "OIHW") ||
      (!strcmp(dl, d->data) && !strcmp(kl, kernel)) || !psgi_tensor_type_of(e))
    return NULL;
  psg_expr *args[2] = {in_layout(c, b, e->kids[1], now->kids[1], dl, d->data),
                       in_layout(c, b, e->kids[2], now->kids[2], kl, kernel)};
  const char *keys[3] = {"data_layout", "kernel_layout", "out_layout"}, *vals[3] = {d->data, kernel, d->data};
  psg_attrs *attrs = with_strings(b, a, keys, vals, ol[0] ? 3 : 2);
  psg_expr *call = attrs ? remake(b, e, args, 2, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, dl, d->data);
  return call;
}

/* A 2-D pool: in the desired layout when one is given, else in the layout
 * its input arrives in. */
static psg_expr *convert_pool(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now, const desired *d) {
  const psg_attrs *a = e->u.attrs;
  const char *l = psgi_attr_str(a, "layout", "NCHW"), *ol = psgi_attr_str(a, "out_layout", "");
  const tag *t = tag_of(c, e->kids[1]);
  const char *want = d ? d->data : t && !strcmp(t->orig, l) ? t->cur : NULL;
  /* Desired as it is: a pool whose input arrives converted still gets its
   * out_layout written (it is rebuilt anyway); one that nothing touches
   * stays the very same node. */
  if (!want || (!strcmp(want, l) && (!d || ol[0] || !t)) || (ol[0] && strcmp(ol, l)) || !is_layout(l, "NCHW") ||
      !psgi_tensor_type_of(e))
    return NULL;
  psg_expr *x = in_layout(c, b, e->kids[1], now->kids[1], l, want);
  const char *keys[2] = {"layout", "out_layout"}, *vals[2] = {want, want};
  /* A pool named in desired_layouts gets out_layout too, as TVM's pool
   * layout rule writes both; one that follows its input keeps its own. */
  bool has_out = psgi_op_attr_index(e->kids[0]->u.op, "out_layout", strlen("out_layout")) >= 0;
  psg_attrs *attrs = with_strings(b, a, keys, vals, ol[0] || (d && has_out) ? 2 : 1);
  psg_expr *call = attrs ? remake(b, e, &x, 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, l, want);
  return call;
}

/* An elementwise op of one tensor: it runs in whatever layout its input has. */
static psg_expr *convert_unary(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = tag_of(c, e->kids[1]);
  const psg_type *in = psgi_tensor_type_of(e->kids[1]), *out = psgi_tensor_type_of(e);
  if (!t || !in || !out || in->n != out->n) return NULL;
  if (!b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return (psg_expr *)now; /* the default rebuild already reads the new input */
}

/* A lower-rank operand of one element broadcasts alike in every layout. */
static bool is_single(const psg_type *t) {
  for (int i = 0; i < t->n; i++)
    if (t->dims[i] != 1) return false;
  return true;
}

/* A broadcasting op: when its tagged operands agree, the others follow them
 * (lower-rank operands are first expanded to full rank, as TVM does for
 * biases; scalars broadcast as they are). */
static psg_expr *convert_broadcast(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = NULL;
  for (uint32_t i = 1; i < e->nkids; i++) {
    const tag *ti = tag_of(c, e->kids[i]);
    if (ti && t && (ti->orig != t->orig || ti->cur != t->cur)) return NULL;
    if (ti) t = ti;
  }
  const psg_type *out = psgi_tensor_type_of(e);
  int rank = t ? (int)strlen(t->orig) : 0;
  if (!t || !out || out->n != rank || e->nkids - 1 > 3) return NULL;
  psg_expr *args[3];
  for (uint32_t i = 1; i < e->nkids; i++) {
    const psg_type *ti = psgi_tensor_type_of(e->kids[i]);
    psg_expr *v = now->kids[i];
    if (!ti || ti->n > rank) return NULL;
    if (!tag_of(c, e->kids[i]) && ti->n > 0 && !(ti->n < rank && is_single(ti))) {
      if (ti->n < rank) {
        psg_attrs *ex = psgi_build_attrs(b, (const char *[]){"axis", "num_newaxis"},
                                         (psg_attr *[]){psgi_build_attr_int(b, 0), psgi_build_attr_int(b, rank - ti->n)},
                                         2);
        v = ex ? psgi_build_call(b, "expand_dims", &v, 1, ex) : NULL;
      }
      v = transform(c, b, v, t->orig, t->cur);
    }
    args[i - 1] = v;
  }
  psg_expr *call = remake(b, e, args, e->nkids - 1, now->u.attrs);
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* nn.bias_add after a converted op (before CanonicalizeOps has run): the
 * same bias along the channel axis's new position. */
static psg_expr *convert_bias_add(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = tag_of(c, e->kids[1]);
  if (!t || tag_of(c, e->kids[2]) || e->nkids != 3) return NULL;
  int n = (int)strlen(t->orig);
  int64_t axis = psgi_attr_int(e->u.attrs, "axis", 1);
  if (axis < 0) axis += n;
  if (axis < 0 || axis >= n) return NULL;
  const char *pos = strchr(t->cur, t->orig[axis]);
  psg_attr *v = psgi_build_attr_int(b, pos - t->cur);
  psg_attrs *attrs = NULL;
  psg_status st = v ? psg_attrs_with(b->ctx, e->u.attrs, "axis", v, &attrs) : b->status;
  psg_attr_release(v);
  if (!st && !PSGI_VEC_PUSH(b->ctx, &b->attrs, attrs)) psg_attrs_release(attrs), st = psgi_nomem(b->ctx);
  if (st && !b->status) b->status = st;
  psg_expr *call = st ? NULL : remake(b, e, now->kids + 1, 2, attrs);
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* Axis ops (TVM's InferCorrectLayout for concatenate, softmax, reductions,
 * pad, strided_slice): the op runs in the layout its input arrives in with
 * its axes renamed; the result carries the layout on. ------------------------- */

/* Where axis `axis` (of the original layout, may be negative) is in t->cur;
 * -1 when out of range. */
static int moved_axis(const tag *t, int64_t axis) {
  int n = (int)strlen(t->orig);
  if (axis < 0) axis += n;
  if (axis < 0 || axis >= n) return -1;
  return (int)(strchr(t->cur, t->orig[axis]) - t->cur);
}

/* Marks the original-layout axes `axes` (may be negative) in `orig` and
 * where they are in t->cur in `moved` (both zeroed by the caller); false when
 * one is out of range or repeated. */
static bool mark_axes(const tag *t, const int64_t *axes, int na, bool *orig, bool *moved) {
  int n = (int)strlen(t->orig);
  for (int k = 0; k < na; k++) {
    int m = moved_axis(t, axes[k]);
    if (m < 0 || moved[m]) return false;
    moved[m] = true;
    orig[axes[k] < 0 ? axes[k] + n : axes[k]] = true;
  }
  return true;
}

/* `attrs` with `key` set to `v` (v released); owned by b. */
static psg_attrs *with_value(psgi_built *b, const psg_attrs *attrs, const char *key, psg_attr *v) {
  psg_attrs *next = NULL;
  psg_status st = v ? psg_attrs_with(b->ctx, attrs, key, v, &next) : b->status ? b->status : psgi_nomem(b->ctx);
  psg_attr_release(v);
  if (!st && !PSGI_VEC_PUSH(b->ctx, &b->attrs, next)) psg_attrs_release(next), st = psgi_nomem(b->ctx);
  if (st && !b->status) b->status = st;
  return st ? NULL : next;
}

/* The tag of e's only tensor input, when that input has the tag's rank. */
static const tag *input_tag(const converter *c, const psg_expr *e) {
  const tag *t = e->nkids >= 2 ? tag_of(c, e->kids[1]) : NULL;
  const psg_type *in = t ? psgi_tensor_type_of(e->kids[1]) : NULL;
  return in && in->n == (int)strlen(t->orig) && psgi_tensor_type_of(e) ? t : NULL;
}

/* nn.softmax / nn.log_softmax: the same axis, where it moved to. */
static psg_expr *convert_softmax(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = input_tag(c, e);
  int axis = t ? moved_axis(t, psgi_attr_int(e->u.attrs, "axis", -1)) : -1;
  if (axis < 0 || e->nkids != 2) return NULL;
  psg_attrs *attrs = with_value(b, e->u.attrs, "axis", psgi_build_attr_int(b, axis));
  psg_expr *call = attrs ? remake(b, e, now->kids + 1, 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* nn.batch_norm: the same channel axis where it moved to; the tuple is
 * tagged, its first field carries the layout on (mean and variance are
 * vectors, in no layout). */
static psg_expr *convert_batch_norm(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = e->nkids == 6 ? tag_of(c, e->kids[1]) : NULL;
  const psg_type *in = t ? psgi_tensor_type_of(e->kids[1]) : NULL;
  for (uint32_t i = 2; t && i < e->nkids; i++)
    if (tag_of(c, e->kids[i])) return NULL;
  int axis = in && in->n == (int)strlen(t->orig) && !is_blocked(t) ? moved_axis(t, psgi_attr_int(e->u.attrs, "axis", 1)) : -1;
  if (axis < 0) return NULL;
  psg_attrs *attrs = with_value(b, e->u.attrs, "axis", psgi_build_attr_int(b, axis));
  psg_expr *call = attrs ? remake(b, e, now->kids + 1, e->nkids - 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* nn.layer_norm / nn.instance_norm (TVM's NormalizationInferCorrectLayout):
 * the same axis where it moved to; gamma and beta are vectors in no layout. */
static psg_expr *convert_norm(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = e->nkids == 4 ? input_tag(c, e) : NULL;
  if (!t || is_blocked(t) || tag_of(c, e->kids[2]) || tag_of(c, e->kids[3])) return NULL;
  int64_t dflt = !strcmp(psgi_call_op_name(e), "nn.layer_norm") ? -1 : 1;
  int axis = moved_axis(t, psgi_attr_int(e->u.attrs, "axis", dflt));
  if (axis < 0) return NULL;
  psg_attrs *attrs = with_value(b, e->u.attrs, "axis", psgi_build_attr_int(b, axis));
  psg_expr *call = attrs ? remake(b, e, now->kids + 1, 3, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* e (one input) with the axes list `key` (axes[na], of the original layout)
 * where the axes moved to; the result carries t on. */
static psg_expr *with_moved_axes(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now, const tag *t,
                                 const char *key, int64_t *axes, int na) {
  for (int k = 0; k < na; k++)
    if ((axes[k] = moved_axis(t, axes[k])) < 0) return NULL;
  psg_attrs *attrs = with_value(b, e->u.attrs, key, psgi_build_attr_ints(b, axes, (size_t)na));
  psg_expr *call = attrs ? remake(b, e, now->kids + 1, 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* nn.l2_normalize: each listed axis where it moved to, in the listed order. */
static psg_expr *convert_l2_normalize(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = input_tag(c, e);
  int64_t axes[PSG_MAX_RANK];
  int na = t && e->nkids == 2 ? psgi_attr_ints(e->u.attrs, "axis", axes, PSG_MAX_RANK) : -1;
  return na > 0 ? with_moved_axes(c, b, e, now, t, "axis", axes, na) : NULL;
}

/* Tags `e` with t's layouts less the letters of the original axes dropped[]
 * (NCHW/NHWC without H and W: NC/NC, nothing left to carry). */
static psg_status set_tag_without(converter *c, const psg_expr *e, const tag *t, const bool *dropped) {
  int n = (int)strlen(t->orig), k = 0, j = 0;
  char orig[PSG_MAX_RANK + 1], cur[PSG_MAX_RANK + 1];
  for (int i = 0; i < n; i++)
    if (!dropped[i]) orig[k++] = t->orig[i];
  for (int i = 0; i < n; i++) /* the kept letters in the new order */
    if (memchr(orig, t->cur[i], (size_t)k)) cur[j++] = t->cur[i];
  orig[k] = cur[k] = '\0';
  return set_tag(c, e, orig, cur);
}

/* sum, mean, max, min, prod: the axes where they moved to, when the reduced
 * axes keep their relative order. With keepdims the result keeps the layout;
 * without, the reduced letters leave both layouts (NCHW -> NC and NHWC ->
 * NC: nothing left to carry). */
static psg_expr *convert_reduce(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = input_tag(c, e);
  if (!t || e->nkids != 2) return NULL;
  int n = (int)strlen(t->orig);
  psg_attr *a = psg_attrs_get(e->u.attrs, "axis");
  int64_t axes[PSG_MAX_RANK];
  int na = a && psg_attr_kind(a) != PSG_ATTR_NONE ? psgi_attr_ints(e->u.attrs, "axis", axes, PSG_MAX_RANK) : 0;
  if (na < 0) return NULL;
  bool listed[PSG_MAX_RANK] = {0}, moved[PSG_MAX_RANK] = {0};
  if (!mark_axes(t, axes, na, listed, moved)) return NULL;
  /* The reduced axes (extent > 1) must keep their order, so that sums add
   * in the same order and the result stays bit-exact. */
  bool exclude = psgi_attr_bool(e->u.attrs, "exclude", false);
  const psg_type *in = psgi_tensor_type_of(e->kids[1]);
  int last = -1;
  for (int i = 0; i < n; i++) {
    if (!(na == 0 || listed[i] != exclude) || in->dims[i] == 1) continue;
    if (moved_axis(t, i) < last) return NULL;
    last = moved_axis(t, i);
  }
  psg_attrs *attrs = (psg_attrs *)e->u.attrs;
  if (na) {
    int64_t v[PSG_MAX_RANK];
    int nv = 0;
    for (int i = 0; i < n; i++)
      if (moved[i]) v[nv++] = i;
    attrs = with_value(b, e->u.attrs, "axis", psgi_build_attr_ints(b, v, (size_t)nv));
    if (!attrs) return NULL;
  }
  psg_expr *call = remake(b, e, now->kids + 1, 1, attrs);
  if (!call || b->status) return call;
  bool dropped[PSG_MAX_RANK];
  for (int i = 0; i < n; i++)
    dropped[i] = (na == 0 || listed[i] != exclude) && !psgi_attr_bool(e->u.attrs, "keepdims", false);
  b->status = set_tag_without(c, e, t, dropped);
  return call;
}

/* A reduction in a blocked layout (TVM's ReduceInferCorrectLayout): a
 * reduced axis that is split is reduced in both its parts; with keepdims the
 * inner part stays with extent 1 (NCHW16c summed over C gives NCHW1c),
 * without it both parts leave. Only when the reduced axes keep their order
 * (outer part before inner, nothing reduced between), so that sums add in
 * the same order; exclude is left to the original layout. */
static psg_expr *convert_reduce_blocked(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = input_tag(c, e);
  psgi_blocked_layout cur;
  if (!t || e->nkids != 2 || psgi_attr_bool(e->u.attrs, "exclude", false) || !psgi_blocked_parse(t->cur, &cur))
    return NULL;
  int n = (int)strlen(t->orig);
  psg_attr *a = psg_attrs_get(e->u.attrs, "axis");
  int64_t axes[PSG_MAX_RANK];
  int na = a && psg_attr_kind(a) != PSG_ATTR_NONE ? psgi_attr_ints(e->u.attrs, "axis", axes, PSG_MAX_RANK) : 0;
  if (na < 0) return NULL;
  bool reduced[PSG_MAX_RANK] = {0};
  for (int k = 0; k < na; k++) {
    int64_t ax = axes[k] < 0 ? axes[k] + n : axes[k];
    if (ax < 0 || ax >= n) return NULL;
    reduced[ax] = true;
  }
  for (int i = 0; !na && i < n; i++) reduced[i] = true;
  bool keep = psgi_attr_bool(e->u.attrs, "keepdims", false);
  const psg_type *in = psgi_tensor_type_of(e->kids[1]);
  int64_t v[PSG_MAX_RANK];
  int nv = 0, last = -1, j = 0;
  char out[3 * PSG_MAX_RANK + 1] = "";
  for (int i = 0; i < cur.n; i++) {
    int o = (int)(strchr(t->orig, cur.axis[i]) - t->orig);
    size_t len = strlen(out);
    if (reduced[o]) {
      v[nv++] = i;
      if (in->dims[o] != 1) {
        if (o < last) return NULL;
        last = o;
      }
      if (keep && cur.factor[i] > 0) snprintf(out + len, sizeof out - len, "1%c", cur.axis[i] + 32);
      else if (keep) snprintf(out + len, sizeof out - len, "%c", cur.axis[i]);
    } else if (cur.factor[i] > 0) {
      snprintf(out + len, sizeof out - len, "%lld%c", (long long)cur.factor[i], cur.axis[i] + 32);
    } else {
      snprintf(out + len, sizeof out - len, "%c", cur.axis[i]);
    }
  }
  char orig[PSG_MAX_RANK + 1];
  for (int i = 0; i < n; i++)
    if (keep || !reduced[i]) orig[j++] = t->orig[i];
  orig[j] = '\0';
  psg_attrs *attrs = with_value(b, e->u.attrs, "axis", psgi_build_attr_ints(b, v, (size_t)nv));
  psg_expr *call = attrs ? remake(b, e, now->kids + 1, 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, orig, out);
  return call;
}

/* Whether attr `a` is a list of ints that are all 0. */
static bool all_zero(const psg_attr *a) {
  if (!a || psg_attr_kind(a) != PSG_ATTR_LIST) return false;
  for (size_t i = 0; i < psg_attr_list_len(a); i++) {
    const psg_attr *v = psg_attr_list_get(a, i);
    if (psg_attr_kind(v) != PSG_ATTR_INT || psg_attr_get_int(v) != 0) return false;
  }
  return true;
}

/* nn.pad (TVM's PadInferCorrectLayout): the [before, after] pair of each
 * axis goes where the axis went; in a blocked layout (NCHW16c) the inner
 * axis takes its primal axis's pair, which must be [0, 0]. */
static psg_expr *convert_pad(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = input_tag(c, e);
  psg_attr *pw = psg_attrs_get(e->u.attrs, "pad_width");
  int n = t ? (int)strlen(t->orig) : 0;
  psgi_blocked_layout cur;
  if (!t || tag_of(c, e->kids[e->nkids - 1]) || !pw || psg_attr_kind(pw) != PSG_ATTR_LIST ||
      psg_attr_list_len(pw) != (size_t)n || !psgi_blocked_parse(t->cur, &cur))
    return NULL;
  psg_attr *items[PSG_MAX_RANK];
  for (int i = 0; i < cur.n; i++) {
    const char *at = strchr(t->orig, cur.axis[i]);
    if (!at) return NULL;
    items[i] = psg_attr_list_get(pw, (size_t)(at - t->orig));
    if (cur.factor[i] > 0 && !all_zero(items[i])) return NULL; /* padding a split axis */
  }
  psg_attr *list = NULL;
  psg_status st = psg_attr_list(b->ctx, items, (size_t)cur.n, &list);
  if (st && !b->status) b->status = st;
  psg_attrs *attrs = st ? NULL : with_value(b, e->u.attrs, "pad_width", list);
  psg_expr *call = attrs ? remake(b, e, now->kids + 1, e->nkids - 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* strided_slice in a blocked layout that extends the original (NHWC ->
 * NHWC4c; TVM's StridedSliceInferCorrectLayout): the primal axes keep their
 * positions, and a slice of a split axis is taken in its outer part, with
 * begin and end divided by the factor; only with stride 1 and bounds the
 * factor divides, in slice_mode "end". */
static psg_expr *slice_blocked(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now, const tag *t,
                               int64_t *begin, int nb, int64_t *end, int ne, const int64_t *strides, int ns) {
  psgi_blocked_layout cur;
  int n = (int)strlen(t->orig);
  if (strncmp(t->cur, t->orig, (size_t)n) || !psgi_blocked_parse(t->cur, &cur) ||
      strcmp(psgi_attr_str(e->u.attrs, "slice_mode", "end"), "end"))
    return NULL;
  psg_attr *ax = psg_attrs_get(e->u.attrs, "axes");
  int64_t axes[PSG_MAX_RANK];
  int na = nb;
  if (ax && psg_attr_kind(ax) != PSG_ATTR_NONE) na = psgi_attr_ints(e->u.attrs, "axes", axes, PSG_MAX_RANK);
  else
    for (int k = 0; k < na; k++) axes[k] = k;
  if (na < 0 || nb != na || ne != na) return NULL;
  for (int k = 0; k < na; k++) {
    int64_t a = axes[k] < 0 ? axes[k] + n : axes[k];
    if (a < 0 || a >= n) return NULL;
    int64_t f = 0;
    for (int i = n; i < cur.n; i++)
      if (cur.axis[i] == t->orig[a]) f = cur.factor[i];
    if (!f) continue;
    if ((k < ns && strides[k] != 1) || begin[k] % f || end[k] % f) return NULL;
    begin[k] /= f;
    end[k] /= f;
  }
  psg_attrs *attrs = with_value(b, e->u.attrs, "begin", psgi_build_attr_ints(b, begin, (size_t)nb));
  if (attrs) attrs = with_value(b, attrs, "end", psgi_build_attr_ints(b, end, (size_t)ne));
  psg_expr *call = attrs ? remake(b, e, now->kids + 1, 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* strided_slice (TVM's StridedSliceInferCorrectLayout between layouts of one
 * rank): listed axes where they moved to, begin/end/strides as given;
 * without axes, begin/end/strides are filled to full rank (0, the extent,
 * 1) and put in the new layout's order. */
static psg_expr *convert_strided_slice(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = input_tag(c, e);
  if (!t || e->nkids != 2) return NULL;
  const psg_type *in = psgi_tensor_type_of(e->kids[1]);
  psg_attr *ax = psg_attrs_get(e->u.attrs, "axes");
  int64_t axes[PSG_MAX_RANK], begin[PSG_MAX_RANK], end[PSG_MAX_RANK], strides[PSG_MAX_RANK];
  int nb = psgi_attr_ints(e->u.attrs, "begin", begin, PSG_MAX_RANK);
  int ne = psgi_attr_ints(e->u.attrs, "end", end, PSG_MAX_RANK);
  int ns = psg_attrs_get(e->u.attrs, "strides") ? psgi_attr_ints(e->u.attrs, "strides", strides, PSG_MAX_RANK) : 0;
  if (nb < 0 || ne < 0 || ns < 0) return NULL;
  if (is_blocked(t)) return slice_blocked(c, b, e, now, t, begin, nb, end, ne, strides, ns);
  if (ax && psg_attr_kind(ax) != PSG_ATTR_NONE) {
    int na = psgi_attr_ints(e->u.attrs, "axes", axes, PSG_MAX_RANK);
    if (na < 0 || nb != na || ne != na || ns > na) return NULL;
    return with_moved_axes(c, b, e, now, t, "axes", axes, na);
  }
  int n = in->n;
  if (nb > n || ne > n || ns > n) return NULL;
  bool size_mode = !strcmp(psgi_attr_str(e->u.attrs, "slice_mode", "end"), "size");
  int64_t nbeg[PSG_MAX_RANK], nend[PSG_MAX_RANK], nstr[PSG_MAX_RANK];
  for (int i = 0; i < n; i++) {
    int k = (int)(strchr(t->orig, t->cur[i]) - t->orig);
    if (k >= ne && in->dims[k] == PSG_DIM_UNKNOWN) return NULL;
    nbeg[i] = k < nb ? begin[k] : 0;
    nend[i] = k < ne ? end[k] : in->dims[k];
    nstr[i] = size_mode || k >= ns ? 1 : strides[k];
  }
  psg_attrs *attrs = with_value(b, e->u.attrs, "begin", psgi_build_attr_ints(b, nbeg, (size_t)n));
  if (attrs) attrs = with_value(b, attrs, "end", psgi_build_attr_ints(b, nend, (size_t)n));
  if (attrs) attrs = with_value(b, attrs, "strides", psgi_build_attr_ints(b, nstr, (size_t)n));
  psg_expr *call = attrs ? remake(b, e, now->kids + 1, 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* concatenate of a tuple whose tagged fields agree: every field in that
 * layout (the others transformed in), the axis where it moved to. */
static psg_expr *convert_concatenate(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const psg_expr *tup = e->nkids == 2 ? e->kids[1] : NULL, *tnow = tup ? now->kids[1] : NULL;
  const tag *whole = tup ? tag_of(c, tup) : NULL; /* the tuple of a converted split */
  if (whole && psgi_type_of(tup)->kind == PSG_TYPE_TUPLE && psgi_tensor_type_of(e)) {
    int axis = moved_axis(whole, psgi_attr_int(e->u.attrs, "axis", 0));
    psg_attrs *attrs = axis < 0 ? NULL : with_value(b, e->u.attrs, "axis", psgi_build_attr_int(b, axis));
    psg_expr *call = attrs ? remake(b, e, now->kids + 1, 1, attrs) : NULL;
    if (call && !b->status) b->status = set_tag(c, e, whole->orig, whole->cur);
    return call;
  }
  if (!tup || tup->kind != PSG_EXPR_TUPLE || tnow->kind != PSG_EXPR_TUPLE || tup->nkids != tnow->nkids ||
      !tup->nkids || tup->nkids > 64 || !psgi_tensor_type_of(e))
    return NULL;
  const tag *t = NULL;
  for (uint32_t i = 0; i < tup->nkids; i++) {
    const tag *ti = tag_of(c, tup->kids[i]);
    if (ti && t && (ti->orig != t->orig || ti->cur != t->cur)) return NULL;
    if (ti) t = ti;
  }
  int rank = t ? (int)strlen(t->orig) : 0;
  int axis = t ? moved_axis(t, psgi_attr_int(e->u.attrs, "axis", 0)) : -1;
  if (axis < 0) return NULL;
  psg_expr *fields[64];
  for (uint32_t i = 0; i < tup->nkids; i++) {
    const psg_type *ti = psgi_tensor_type_of(tup->kids[i]);
    if (!ti || ti->n != rank) return NULL;
  }
  /* The tuple read its tagged fields back in the original layout; undoing
   * that transform (transform cancels it) gives the fields as converted. */
  for (uint32_t i = 0; i < tup->nkids; i++)
    if (!(fields[i] = transform(c, b, tnow->kids[i], t->orig, t->cur))) return NULL;
  psg_expr *ntup = NULL;
  psg_status st = psgi_expr_rebuild(tnow, fields, &ntup);
  if (!st && !PSGI_VEC_PUSH(b->ctx, &b->exprs, ntup)) psg_expr_release(ntup), st = psgi_nomem(b->ctx);
  if (st) {
    if (!b->status) b->status = st;
    return NULL;
  }
  psg_attrs *attrs = with_value(b, e->u.attrs, "axis", psgi_build_attr_int(b, axis));
  psg_expr *call = attrs ? remake(b, e, &ntup, 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* squeeze: the listed axes (or every extent-1 axis) where they moved to;
 * their letters leave both layouts. */
static psg_expr *convert_squeeze(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = input_tag(c, e);
  if (!t || e->nkids != 2) return NULL;
  const psg_type *in = psgi_tensor_type_of(e->kids[1]);
  int n = in->n;
  psg_attr *a = psg_attrs_get(e->u.attrs, "axis");
  int64_t axes[PSG_MAX_RANK];
  int na = 0;
  if (a && psg_attr_kind(a) != PSG_ATTR_NONE) {
    if ((na = psgi_attr_ints(e->u.attrs, "axis", axes, PSG_MAX_RANK)) < 0) return NULL;
  } else {
    for (int i = 0; i < n; i++) {
      if (in->dims[i] == PSG_DIM_UNKNOWN) return NULL; /* which axes go is not known */
      if (in->dims[i] == 1) axes[na++] = i;
    }
  }
  bool dropped[PSG_MAX_RANK] = {0}, moved[PSG_MAX_RANK] = {0};
  if (!mark_axes(t, axes, na, dropped, moved)) return NULL;
  int64_t v[PSG_MAX_RANK];
  int nv = 0;
  for (int i = 0; i < n; i++)
    if (moved[i]) v[nv++] = i;
  psg_attrs *attrs = with_value(b, e->u.attrs, "axis", psgi_build_attr_ints(b, v, (size_t)nv));
  psg_expr *call = attrs ? remake(b, e, now->kids + 1, 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag_without(c, e, t, dropped);
  return call;
}

/* split and topk: the same op along the axis where it moved to. A tuple
 * result is tagged: its TupleGetItems carry the layout on, any other user
 * reads it field by field in the original layout (tuple_in_original). */
static psg_expr *convert_split(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = e->nkids == 2 ? tag_of(c, e->kids[1]) : NULL;
  const psg_type *in = t ? psgi_tensor_type_of(e->kids[1]) : NULL, *out = psgi_type_of(e);
  bool topk = !strcmp(psgi_call_op_name(e), "topk");
  if (!in || in->n != (int)strlen(t->orig) || !out || (out->kind != PSG_TYPE_TUPLE && !topk) ||
      (topk && is_blocked(t)))
    return NULL;
  int axis = moved_axis(t, psgi_attr_int(e->u.attrs, "axis", topk ? -1 : 0));
  if (axis < 0) return NULL;
  psg_attrs *attrs = with_value(b, e->u.attrs, "axis", psgi_build_attr_int(b, axis));
  psg_expr *call = attrs ? remake(b, e, now->kids + 1, 1, attrs) : NULL;
  if (call && !b->status) b->status = set_tag(c, e, t->orig, t->cur);
  return call;
}

/* transpose (TVM's TransposeInferCorrectLayout): the same letters in the
 * same order out, read from where they moved to; the result is in the
 * layout the original transpose gave, so nothing is carried on. */
static psg_expr *convert_transpose(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now) {
  const tag *t = input_tag(c, e);
  if (!t || e->nkids != 2 || is_blocked(t)) return NULL;
  int n = (int)strlen(t->orig);
  psg_attr *a = psg_attrs_get(e->u.attrs, "axes");
  int64_t axes[PSG_MAX_RANK];
  int na = a && psg_attr_kind(a) != PSG_ATTR_NONE ? psgi_attr_ints(e->u.attrs, "axes", axes, PSG_MAX_RANK) : 0;
  if (na < 0 || (na && na != n)) return NULL;
  if (!na) /* no axes: reversed */
    for (int i = 0; i < n; i++) axes[na++] = n - 1 - i;
  for (int k = 0; k < n; k++)
    if ((axes[k] = moved_axis(t, axes[k])) < 0) return NULL;
  psg_attrs *attrs = with_value(b, e->u.attrs, "axes", psgi_build_attr_ints(b, axes, (size_t)n));
  return attrs ? remake(b, e, now->kids + 1, 1, attrs) : NULL;
}

static const char *const reduce_ops[] = {"sum", "mean", "max", "min", "prod", "argmax", "argmin"};

/* Any other node reads its operands in their original layouts. */
static psg_status restore_kids(converter *c, const psg_expr *e, psg_expr **out) {
  bool tagged = false;
  for (uint32_t i = 0; i < e->nkids && !tagged; i++) tagged = tag_of(c, e->kids[i]) != NULL;
  if (!tagged) return PSG_OK;
  psgi_built b;
  psgi_built_init(&b, c->ctx, psgi_expr_span_ref(e));
  psg_expr *small[8], **kids = e->nkids <= 8 ? small : psgi_alloc(c->ctx, e->nkids * sizeof *kids);
  psg_status st = kids ? PSG_OK : psgi_nomem(c->ctx);
  for (uint32_t i = 0; !st && i < e->nkids; i++)
    if (!(kids[i] = original_layout(c, &b, e->kids[i], (*out)->kids[i]))) st = b.status ? b.status : psgi_nomem(c->ctx);
  psg_expr *node = NULL;
  if (!st) st = psgi_expr_rebuild(*out, kids, &node);
  if (!st) {
    psg_expr_release(*out);
    *out = node;
  }
  if (kids && kids != small) psgi_free(c->ctx, kids);
  psgi_built_fini(&b);
  return st;
}

static bool is_conv(const char *op) { return op && (!strcmp(op, "nn.conv2d") || !strcmp(op, "nn.conv2d_transpose")); }

/* The data, kernel and output layouts of a conv call. */
static void conv_layouts(const psg_expr *e, const char *lay[3]) {
  const char *op = psgi_call_op_name(e);
  lay[0] = psgi_attr_str(e->u.attrs, "data_layout", "NCHW");
  lay[1] = psgi_attr_str(e->u.attrs, "kernel_layout", !strcmp(op, "nn.conv2d_transpose") ? "IOHW" : "OIHW");
  lay[2] = psgi_attr_str(e->u.attrs, "out_layout", "");
  if (!lay[2][0]) lay[2] = lay[0];
}

/* What the op's hook made of call `e` (rewritten as `now`), placed in the
 * layouts around it, as TVM's LayoutRewriter does with the call that
 * FTVMAlterOpLayout / FTVMConvertOpLayout return: the hook sees the inputs
 * in the layouts they now have; a conv it returns gets each input
 * transformed from that layout into the one its attributes name, and its
 * output is tagged (old out layout -> new); any other call reads its
 * inputs in their original layouts. NULL when the hook answers None. */
static psg_expr *hooked_call(converter *c, psgi_built *b, const psg_expr *e, const psg_expr *now, psgi_op_hook *h,
                             const desired *d) {
  size_t nargs = e->nkids - 1;
  if (nargs > 64) return NULL;
  const psg_type *types[65];
  for (size_t i = 0; i < nargs; i++) types[i] = psgi_type_of(e->kids[i + 1]);
  types[nargs] = psgi_type_of(e);
  const char *layouts[2] = {d ? d->data : NULL, d && d->kernel ? d->kernel : "default"};
  psg_expr *rep = NULL;
  psg_status st = psgi_op_hook_call(c->ctx, h, now->u.attrs, now->kids + 1, nargs, types, nargs + 1, layouts,
                                    d ? 2 : 0, &rep);
  if (st || !rep) {
    if (st && !b->status) b->status = st;
    return NULL;
  }
  if (!PSGI_VEC_PUSH(c->ctx, &b->exprs, rep)) { /* b owns it from here */
    psg_expr_release(rep);
    if (!b->status) b->status = psgi_nomem(c->ctx);
    return NULL;
  }
  const char *rop = rep->kind == PSG_EXPR_CALL ? psgi_call_op_name(rep) : NULL;
  psg_expr *args[64];
  if (is_conv(rop) && is_conv(psgi_call_op_name(e)) && rep->nkids == 3 && nargs == 2) {
    const char *old[3], *new[3];
    conv_layouts(e, old);
    conv_layouts(rep, new);
    for (int i = 0; i < 2; i++) args[i] = in_layout(c, b, e->kids[i + 1], rep->kids[i + 1], old[i], new[i]);
    psg_expr *call = remake(b, rep, args, 2, rep->u.attrs);
    if (call && !b->status) b->status = set_tag(c, e, old[2], new[2]);
    return call;
  }
  bool tagged = false;
  for (size_t i = 0; i < nargs && !tagged; i++) tagged = tag_of(c, e->kids[i + 1]) != NULL;
  if (!tagged) return rep;
  if (rep->kind != PSG_EXPR_CALL || rep->nkids != e->nkids) {
    if (!b->status)
      b->status = psg_ctx_fail(c->ctx, PSG_ERR_UNSUPPORTED,
                               "%s of op '%s' returned a %s with other inputs while an input's layout changed; "
                               "only a call with the same inputs can be put in place",
                               c->cfg->hook, psgi_call_op_name(e), psg_expr_kind_name(rep->kind));
    return NULL;
  }
  for (size_t i = 0; i < nargs; i++) args[i] = original_layout(c, b, e->kids[i + 1], rep->kids[i + 1]);
  return remake(b, rep, args, nargs, rep->u.attrs);
}

static psg_status convert_call(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  converter *c = m->user;
  psg_status st = psg_mutator_default(m, e, out);
  if (st) return st;
  const char *op = psgi_call_op_name(e);
  const desired *d = desired_for(c->cfg, op);
  bool any_tag = false;
  for (uint32_t i = 1; i < e->nkids && !any_tag; i++) {
    const psg_expr *k = e->kids[i];
    any_tag = tag_of(c, k) != NULL;
    /* concatenate reads tagged values through its tuple */
    for (uint32_t j = 0; k->kind == PSG_EXPR_TUPLE && j < k->nkids && !any_tag; j++)
      any_tag = tag_of(c, k->kids[j]) != NULL;
  }
  psgi_op_hook *h = op && c->cfg->hook && (c->cfg->alter || d)
                       ? psgi_op_hook_acquire(c->ctx, e->kids[0]->u.op, c->cfg->hook)
                       : NULL;
  if (!any_tag && !d && !h) return PSG_OK;
  bool blocked = false;
  for (uint32_t i = 1; i < e->nkids && !blocked; i++) blocked = is_blocked(tag_of(c, e->kids[i]));
  psgi_built b;
  psgi_built_init(&b, c->ctx, psgi_expr_span_ref(e));
  psg_expr *r = h ? hooked_call(c, &b, e, *out, h, d) : NULL;
  psgi_op_hook_release(c->ctx, h);
  const psgi_op_impl *impl = op ? psgi_op_impl_get(e->kids[0]->u.op) : NULL;
  if (r || b.status) {
    /* the hook's call is in place */
  } else if (blocked) {
    /* split axes: the rules that never move an axis by its letter */
    if (in_list(op, follow_ops, sizeof follow_ops / sizeof *follow_ops)) r = convert_pool(c, &b, e, *out, d);
    else if (impl && impl->pattern == PSGI_PATTERN_ELEMWISE && e->nkids == 2) r = convert_unary(c, &b, e, *out);
    else if (in_list(op, broadcast_ops, sizeof broadcast_ops / sizeof *broadcast_ops))
      r = convert_broadcast(c, &b, e, *out);
    else if (in_list(op, reduce_ops, sizeof reduce_ops / sizeof *reduce_ops) && strncmp(op, "arg", 3))
      r = convert_reduce_blocked(c, &b, e, *out);
    else if (op && !strcmp(op, "nn.pad")) r = convert_pad(c, &b, e, *out);
    else if (op && !strcmp(op, "strided_slice")) r = convert_strided_slice(c, &b, e, *out);
  } else if (is_conv(op) && d) r = convert_conv(c, &b, e, *out, d);
  else if (in_list(op, follow_ops, sizeof follow_ops / sizeof *follow_ops)) r = convert_pool(c, &b, e, *out, d);
  else if (impl && impl->pattern == PSGI_PATTERN_ELEMWISE && e->nkids == 2) r = convert_unary(c, &b, e, *out);
  else if (in_list(op, broadcast_ops, sizeof broadcast_ops / sizeof *broadcast_ops))
    r = convert_broadcast(c, &b, e, *out);
  else if (op && !strcmp(op, "nn.bias_add")) r = convert_bias_add(c, &b, e, *out);
  else if (op && (!strcmp(op, "nn.softmax") || !strcmp(op, "nn.log_softmax"))) r = convert_softmax(c, &b, e, *out);
  else if (op && !strcmp(op, "nn.l2_normalize")) r = convert_l2_normalize(c, &b, e, *out);
  else if (op && !strcmp(op, "nn.batch_norm")) r = convert_batch_norm(c, &b, e, *out);
  else if (op && (!strcmp(op, "nn.layer_norm") || !strcmp(op, "nn.instance_norm")))
    r = convert_norm(c, &b, e, *out);
  else if (in_list(op, reduce_ops, sizeof reduce_ops / sizeof *reduce_ops)) r = convert_reduce(c, &b, e, *out);
  else if (op && !strcmp(op, "nn.pad")) r = convert_pad(c, &b, e, *out);
  else if (op && !strcmp(op, "strided_slice")) r = convert_strided_slice(c, &b, e, *out);
  else if (op && !strcmp(op, "concatenate")) r = convert_concatenate(c, &b, e, *out);
  else if (op && !strcmp(op, "squeeze")) r = convert_squeeze(c, &b, e, *out);
  else if (op && (!strcmp(op, "split") || !strcmp(op, "topk"))) r = convert_split(c, &b, e, *out);
  else if (op && !strcmp(op, "transpose")) r = convert_transpose(c, &b, e, *out);
  st = b.status;
  if (!st && r && r != *out) {
    psg_expr_release(*out);
    *out = psgi_built_keep(&b, r);
  }
  psgi_built_fini(&b);
  if (!st && !r) st = restore_kids(c, e, out);
  if (st) { /* psg_mutate keeps no result of a failing callback */
    psg_expr_release(*out);
    *out = NULL;
  }
  return st;
}

static psg_status convert_other(psg_mutator *m, const psg_expr *e, psg_expr **out) {
  converter *c = m->user;
  psg_status st = psg_mutator_default(m, e, out);
  if (st) return st;
  /* A field of a converted split stays in the converted layout. */
  const tag *t = e->kind == PSG_EXPR_TUPLE_GET_ITEM ? tag_of(c, e->kids[0]) : NULL;
  const psg_type *ty = t ? psgi_type_of(e->kids[0]) : NULL;
  if (ty && ty->kind == PSG_TYPE_TUPLE)
    return in_tagged_rank(psgi_type_of(e), t) ? set_tag(c, e, t->orig, t->cur) : PSG_OK;
  return restore_kids(c, e, out);
}

static psg_status rewrite_layouts(psg_expr *func, const config *cfg, const char *pass, psg_expr **out) {
  *out = NULL;
  psg_status st = psgi_check_typed(func, pass);
  if (st) return st;
  converter c = {.ctx = func->ctx, .cfg = cfg};
  psgi_map_init(&c.tags, c.ctx);
  psgi_map_init(&c.memo, c.ctx);
  psg_mutator m;
  psg_mutator_init(&m, c.ctx);
  m.user = &c;
  m.visit[PSG_EXPR_CALL] = convert_call;
  m.visit[PSG_EXPR_TUPLE] = m.visit[PSG_EXPR_TUPLE_GET_ITEM] = convert_other;
  m.visit[PSG_EXPR_LET] = m.visit[PSG_EXPR_IF] = m.visit[PSG_EXPR_FUNCTION] = convert_other;
  st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  for (size_t i = 0; i < c.memos.len; i++) psg_expr_release(c.memos.data[i].result);
  PSGI_VEC_FREE(c.ctx, &c.memos);
  psgi_map_fini(&c.memo);
  psgi_map_fini(&c.tags);
  PSGI_VEC_FREE(c.ctx, &c.tag_list);
  return st;
}

static psg_status convert_layout(psg_expr *func, psg_module *mod, psg_pass_context *pc, void *user,
                                 psg_expr **out) {
  (void)pc;
  (void)mod; /* typed by the runner: the pass declares needs TYPED */
  return rewrite_layouts(func, user, "ConvertLayout", out);
}

psg_status psgi_alter_op_layouts(psg_expr *func, psg_expr **out) {
  static const config alter = {.hook = "FTVMAlterOpLayout", .alter = true};
  return rewrite_layouts(func, &alter, "AlterOpLayout", out);
}

/* Options ----------------------------------------------------------------------------------- */

static void free_config(void *user) {
  config *cfg = user;
  if (cfg) psgi_free(cfg->ctx, cfg);
}

static const char *intern_attr_string(psg_ctx *ctx, const psg_attr *a) {
  if (!a || psg_attr_kind(a) != PSG_ATTR_STRING) return NULL;
  const char *s = psg_attr_get_string(a);
  return psgi_intern(ctx, s, strlen(s));
}

/* What is wrong with one parsed entry, or NULL. */
static const char *desired_problem(const desired *d, bool conv, bool pool, size_t len, const psg_attr *second) {
  if (!conv && !pool)
    return "is not an op ConvertLayout converts (nn.conv2d, nn.conv2d_transpose, nn.max_pool2d, "
           "nn.avg_pool2d, nn.global_max_pool2d, nn.global_avg_pool2d, image.resize2d)";
  bool second_ok = !second || d->kernel || (psg_attr_kind(second) == PSG_ATTR_STRING &&
                                            !strcmp(psg_attr_get_string(second), "default"));
  if (len < 1 || len > (conv ? 2u : 1u) || !d->data || !second_ok)
    return conv ? "needs [data layout, kernel layout or \"default\"]" : "needs [layout]";
  if (!strcmp(d->data, "default")) return "cannot have the data layout \"default\"";
  if (!is_layout(d->data, "NCHW")) return "needs a data layout made of N, C, H and W";
  if (d->kernel && !is_layout(d->kernel, "OIHW")) return "needs a kernel layout made of O, I, H and W";
  return NULL;
}

/* desired_layouts: {op: [data layout, kernel layout or "default"]} for
 * nn.conv2d, {pool op: [layout]} for the pools; a bare string is a
 * one-element list. */
static psg_status parse_desired(psg_ctx *ctx, const psg_attr *opt, config **out) {
  *out = NULL;
  const psg_attrs *dict = opt && psg_attr_kind(opt) == PSG_ATTR_DICT ? psg_attr_get_dict(opt) : NULL;
  if (!dict)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT,
                        "ConvertLayout: the option desired_layouts is required, a dict such as "
                        "{nn.conv2d=[\"NHWC\",\"default\"]}");
  size_t n = psg_attrs_count(dict);
  config *cfg = psgi_alloc(ctx, sizeof *cfg + n * sizeof cfg->d[0]);
  if (!cfg) return psgi_nomem(ctx);
  cfg->ctx = ctx;
  cfg->hook = "FTVMConvertOpLayout";
  cfg->alter = false;
  cfg->n = n;
  for (size_t i = 0; i < n; i++) {
    const char *op = psg_attrs_key(dict, i);
    const psg_attr *v = psg_attrs_get_value(dict, i);
    size_t len = psg_attr_kind(v) == PSG_ATTR_LIST ? psg_attr_list_len(v) : 1;
    const psg_attr *first = psg_attr_kind(v) == PSG_ATTR_LIST ? (len ? psg_attr_list_get(v, 0) : NULL) : v;
    const psg_attr *second = psg_attr_kind(v) == PSG_ATTR_LIST && len > 1 ? psg_attr_list_get(v, 1) : NULL;
    bool conv = is_conv(op);
    bool pool = in_list(op, pool_ops, sizeof pool_ops / sizeof *pool_ops) || !strcmp(op, "image.resize2d");
    desired *d = &cfg->d[i];
    d->op = psgi_intern(ctx, op, strlen(op));
    d->data = intern_attr_string(ctx, first);
    d->kernel = intern_attr_string(ctx, second);
    if (d->kernel && !strcmp(d->kernel, "default")) d->kernel = NULL;
    const char *why = desired_problem(d, conv, pool, len, second);
    if (why) {
      psgi_free(ctx, cfg);
      return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "ConvertLayout: desired_layouts[%s] %s", op, why);
    }
  }
  *out = cfg;
  return PSG_OK;
}

/* The constructor checks desired_layouts once, when the pass is made (a bad
 * value is an error of the pipeline, not of a run), and gives the parsed
 * table to the declared body. */
static psg_status make_convert_layout(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out);

static const char *const required[] = {"InferType", "CanonicalizeOps", NULL};
static const psg_pass_option options[] = {{"desired_layouts", PSG_CONFIG_DICT, NULL}, {NULL, 0, NULL}};
const psg_pass_decl psgi_pass_convert_layout = {
    .name = "ConvertLayout",
    .kind = PSG_PASS_FUNCTION,
    .opt_level = 3,
    .required = required,
    .options = options,
    .help = "nn.conv2d, nn.conv2d_transpose, the 2-D pools and image.resize2d into the layouts of "
            "desired_layouts "
            "({nn.conv2d=[\"NHWC\",\"default\"]}), with layout_transform only where needed",
    .needs = PSG_PROP_TYPED,
    .function = convert_layout,
    .ctor = make_convert_layout,
    .flags = PSG_PASS_FLAG_REASSOCIATES, /* validate-each: a convolution in another layout sums in another order */
};

static psg_status make_convert_layout(psg_ctx *ctx, psg_attrs *options, void *user, psg_pass **out) {
  (void)user;
  *out = NULL;
  config *cfg = NULL;
  psg_status st = parse_desired(ctx, psg_attrs_get(options, "desired_layouts"), &cfg);
  if (st) return st;
  st = psgi_pass_build(ctx, &psgi_pass_convert_layout, cfg, free_config, out);
  if (st) free_config(cfg); /* not taken by a pass */
  return st;
}
