/* Passage — the string attributes whose TVM default an absent attribute
 * stands for, in structural equality and hashing of calls. TVM's attribute
 * nodes hold every field, so `nn.conv2d(x, w)` and `nn.conv2d(x, w,
 * data_layout="NCHW")` are the same call there; Passage's sparse attribute
 * dicts would tell them apart. The layout passes write layouts explicitly,
 * and TVM's tests compare their results with graphs that leave the
 * defaults out (and sometimes spell them). */
#include "ir/ir_internal.h"
#include "ir/op_table.h"

static const struct {
  const char *op, *key, *value;
} defaults[] = {
    {"nn.conv2d", "data_layout", "NCHW"},
    {"nn.conv2d", "kernel_layout", "OIHW"},
    {"nn.conv2d", "out_layout", ""},
    {"nn.conv2d_transpose", "data_layout", "NCHW"},
    {"nn.conv2d_transpose", "kernel_layout", "IOHW"},
    {"nn.conv2d_transpose", "out_layout", ""},
    {"nn.max_pool2d", "layout", "NCHW"},
    {"nn.max_pool2d", "out_layout", ""},
    {"nn.avg_pool2d", "layout", "NCHW"},
    {"nn.avg_pool2d", "out_layout", ""},
    {"nn.global_max_pool2d", "layout", "NCHW"},
    {"nn.global_max_pool2d", "out_layout", ""},
    {"nn.global_avg_pool2d", "layout", "NCHW"},
    {"nn.global_avg_pool2d", "out_layout", ""},
    {"nn.adaptive_avg_pool2d", "layout", "NCHW"},
    {"nn.adaptive_avg_pool2d", "out_layout", ""},
    {"nn.upsampling", "layout", "NCHW"},
    {"nn.depth_to_space", "layout", "NCHW"},
    {"nn.space_to_depth", "layout", "NCHW"},
    {"image.resize2d", "layout", "NCHW"},
};
enum { NUM_DEFAULTS = sizeof defaults / sizeof defaults[0] };

/* The op index of a call's callee, or -1 for a call of a function. */
static ptrdiff_t callee_op(const psg_expr *call) {
  const psg_expr *f = call->kids[0];
  return f->kind == PSG_EXPR_OP ? (ptrdiff_t)f->u.op : -1;
}

/* The default of attribute `key` of op `op`, or NULL when it has none here. */
static const char *default_of(ptrdiff_t op, const char *key) {
  if (op < 0) return NULL;
  if ((size_t)op >= psgi_op_table_len) return NULL; /* a registered op (op_custom.c): no defaults */
  const char *name = psgi_op_table[op].name;
  for (size_t i = 0; i < NUM_DEFAULTS; i++)
    if (!strcmp(defaults[i].op, name) && !strcmp(defaults[i].key, key)) return defaults[i].value;
  return NULL;
}

bool psgi_call_attr_has_default(const psg_expr *call, const char *key) {
  return default_of(callee_op(call), key) != NULL;
}

/* An op attribute given as None is TVM's null default (`units=None` of
 * nn.dense: its printer writes every field, Python's helpers often omit it). */
bool psgi_call_attr_is_none(const psg_expr *call, const psg_attr *v) {
  return callee_op(call) >= 0 && v->kind == PSG_ATTR_NONE;
}

static bool is_default(ptrdiff_t op, const char *key, const psg_attr *v) {
  if (op >= 0 && v->kind == PSG_ATTR_NONE) return true;
  const char *d = default_of(op, key);
  return d && v->kind == PSG_ATTR_STRING && v->u.str.len == strlen(d) && !memcmp(v->u.str.s, d, v->u.str.len);
}

/* Every attribute of `a` is in `b` with an equal value, or absent from `b`
 * and at its default. */
static bool covered(ptrdiff_t op, const psg_attrs *a, const psg_attrs *b) {
  for (size_t i = 0; a && i < a->n; i++) {
    const psg_attr *w = b ? psg_attrs_get(b, a->e[i].key) : NULL;
    if (w ? !psg_attr_equal(a->e[i].value, w) : !is_default(op, a->e[i].key, a->e[i].value)) return false;
  }
  return true;
}

bool psgi_call_attrs_equal(const psg_expr *a, const psg_expr *b) {
  ptrdiff_t op = callee_op(a);
  if (op < 0 || op != callee_op(b)) return psg_attrs_equal(a->u.attrs, b->u.attrs);
  return covered(op, a->u.attrs, b->u.attrs) && covered(op, b->u.attrs, a->u.attrs);
}
