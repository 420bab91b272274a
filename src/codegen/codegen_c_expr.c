/* Passage — CodeGenC's expressions. A scalar expression without Let is
 * printed as one C expression (iteratively: a stack of template pieces);
 * anything else (vectors, Let, a lazy construct around one of those) is
 * computed by statements into temporaries `_tN`, vectors lane by lane in
 * loops over `psg_l` or, for float + - * / on vector-extension types, with
 * the vector operators. Each node kind has one C template (formula), used by
 * both ways, so a scalar and a vector lane compute the same thing. */
#include <stdio.h>
#include <math.h>
#include "codegen/codegen_c_internal.h"

typedef PSGI_VEC(cg_item) item_vec;

psg_status psgi_cg_fail(cg *c, const psg_tir_node *n, psg_status code, const char *fmt, ...) {
  if (c->st) return c->st;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  psg_span sp = {0};
  if (n) psg_tir_span(n, &sp);
  c->st = psgi_diag_add(c->ctx, PSG_SEVERITY_ERROR, code, sp.file, sp.line, sp.col, NULL, 0, "CodeGenC",
                        "CodeGenC: %s", msg);
  return c->st;
}

char *psgi_cg_strf(cg *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = n < 0 ? NULL : psgi_arena_alloc(&c->arena, (size_t)n + 1);
  c->arena_bytes += (size_t)n + 1;
  if (!s) {
    if (!c->st) c->st = psgi_nomem(c->ctx);
    return NULL;
  }
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* Types -------------------------------------------------------------------------- */

const char *psgi_cg_scalar_ctype(psg_tir_dtype t) {
  int bits = psg_tir_dtype_bits(t);
  switch (psg_tir_dtype_code(t)) {
    case PSG_TIR_CODE_INT: return bits == 8 ? "int8_t" : bits == 16 ? "int16_t" : bits == 32 ? "int32_t" : "int64_t";
    case PSG_TIR_CODE_UINT:
      return bits <= 8 ? "uint8_t" : bits == 16 ? "uint16_t" : bits == 32 ? "uint32_t" : "uint64_t";
    case PSG_TIR_CODE_FLOAT: return bits == 32 ? "float" : bits == 64 ? "double" : NULL;
    case PSG_TIR_CODE_HANDLE: return "void *";
    default: return NULL;
  }
}

const char *psgi_cg_suffix(psg_tir_dtype t) {
  static const char *const s[] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"};
  int bits = psg_tir_dtype_bits(t), k = bits <= 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
  switch (psg_tir_dtype_code(t)) {
    case PSG_TIR_CODE_INT: return s[k];
    case PSG_TIR_CODE_UINT: return s[4 + k];
    default: return bits == 64 ? s[9] : s[8];
  }
}

/* Vector types of power-of-two lanes over 8..64-bit numbers may use the
 * vector extensions; others are always arrays in structs. */
static bool is_ext_capable(psg_tir_dtype t) {
  int lanes = psg_tir_dtype_lanes(t);
  return lanes > 1 && (lanes & (lanes - 1)) == 0 && !psg_tir_dtype_is_bool(t) && !psg_tir_dtype_is_handle(t);
}

const char *psgi_cg_ctype(cg *c, psg_tir_dtype t, const psg_tir_node *n) {
  psg_tir_dtype s = psg_tir_dtype_with_lanes(t, 1);
  const char *sc = psgi_cg_scalar_ctype(s);
  psgi_tir_dtype_name_buf nb;
  if (!sc || (psg_tir_dtype_lanes(t) > 1 && psg_tir_dtype_is_handle(t))) {
    psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "%s values are not supported (in %s)", psgi_tir_dtype_name(t, &nb),
                 n ? psg_tir_kind_name(n->kind) : "?");
    return NULL;
  }
  if (psg_tir_dtype_lanes(t) == 1) return sc;
  bool seen = false;
  for (size_t i = 0; i < c->vtypes.len && !seen; i++) seen = c->vtypes.data[i] == t;
  if (!seen && !PSGI_VEC_PUSH(c->ctx, &c->vtypes, t)) {
    if (!c->st) c->st = psgi_nomem(c->ctx);
    return NULL;
  }
  return psgi_cg_strf(c, "psg_%s", psgi_tir_dtype_name(t, &nb));
}

const char *psgi_cg_lane(cg *c, const char *name, psg_tir_dtype t, const char *lane) {
  if (psg_tir_dtype_lanes(t) == 1) return name;
  return is_ext_capable(t) ? psgi_cg_strf(c, "PSG_LANE(%s, %s)", name, lane) : psgi_cg_strf(c, "%s.v[%s]", name, lane);
}

/* Names ----------------------------------------------------------------------- */

static const char *const RESERVED[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
    "workspace", "memcpy", "main", "exp", "exp2", "log", "log2", "log10", "log1p", "sqrt", "tanh", "erf", "pow",
    "fabs", "floor", "ceil", "round", "nearbyint", "trunc", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "asinh", "acosh", "atanh", "fmod", "copysign", "hypot", "ldexp", "nextafter", "isnan", "isinf",
    "isfinite", "floor", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "ptrdiff_t", "size_t", "NULL", "NAN", "INFINITY", "HUGE_VAL", "HUGE_VALF", "bool", "true", "false"};

const char *psgi_cg_unique(cg *c, const char *name) {
  char base[80];
  size_t k = 0;
  for (const char *p = name ? name : ""; *p && k < sizeof base - 8; p++)
    base[k++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_';
  base[k] = 0;
  bool bad = k == 0 || (base[0] >= '0' && base[0] <= '9') || base[0] == '_' || !strncmp(base, "psg", 3) ||
             !strncmp(base, "PSG", 3);
  for (size_t i = 0; i < sizeof RESERVED / sizeof *RESERVED && !bad; i++) bad = !strcmp(base, RESERVED[i]);
  char cand[96];
  snprintf(cand, sizeof cand, "%s%s", bad ? "v_" : "", base);
  size_t len = strlen(cand);
  for (int n = 1;; n++) {
    bool is_new = false;
    const char *interned = psgi_intern(c->ctx, cand, strlen(cand));
    psgi_map_entry *e = interned ? psgi_map_put_str(&c->used_names, interned, strlen(interned), &is_new) : NULL;
    if (!e) {
      if (!c->st) c->st = psgi_nomem(c->ctx);
      return NULL;
    }
    if (is_new) {
      e->value = (void *)1;
      return interned;
    }
    snprintf(cand + len, sizeof cand - len, "_%d", n);
  }
}

const char *psgi_cg_var_name(cg *c, const psg_tir_node *v) {
  psgi_map_entry *e = psgi_map_get_ptr(&c->cname, v);
  return e ? e->value : NULL;
}

bool psgi_cg_bind(cg *c, const psg_tir_node *v, const char *name) {
  psgi_map_entry *e = psgi_map_put_ptr(&c->cname, v, NULL);
  if (!e) {
    if (!c->st) c->st = psgi_nomem(c->ctx);
    return false;
  }
  e->value = (void *)name;
  return true;
}

/* Two spaces a level, at most 32 levels (a 10,000-deep nest stays linear in size). */
void psgi_cg_indent(cg *c, int indent) {
  static const char spaces[] = "                                                                ";
  psgi_buf_append(c->out, spaces, (size_t)(indent < 32 ? indent : 32) * 2);
}

/* Simplicity ------------------------------------------------------------------ */

static int simple_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  cg *c = v->user;
  if (!psg_tir_is_expr(n) && psg_tir_kind(n) != PSG_TIR_BUFFER) return PSG_VISIT_SKIP_CHILDREN;
  if (psg_tir_kind(n) == PSG_TIR_BUFFER) return PSG_VISIT_SKIP_CHILDREN;
  return psgi_map_get_ptr(&c->simple, n) ? PSG_VISIT_SKIP_CHILDREN : PSG_VISIT_CONTINUE;
}

static psg_status simple_post(psg_tir_visitor *v, const psg_tir_node *n) {
  cg *c = v->user;
  if (!psg_tir_is_expr(n) || psgi_map_get_ptr(&c->simple, n)) return PSG_OK;
  bool ok = n->kind != PSG_TIR_LET && psg_tir_dtype_lanes(n->dtype) == 1 && n->kind != PSG_TIR_RAMP &&
            n->kind != PSG_TIR_BROADCAST;
  for (size_t i = 0; ok && i < n->nkids; i++) {
    const psg_tir_node *k = n->kids[i];
    if (k->kind == PSG_TIR_BUFFER) continue;
    psgi_map_entry *e = psgi_map_get_ptr(&c->simple, k);
    ok = e && (uintptr_t)e->value == 1;
  }
  psgi_map_entry *e = psgi_map_put_ptr(&c->simple, n, NULL);
  if (!e) return psgi_nomem(c->ctx);
  e->value = (void *)(uintptr_t)(ok ? 1 : 2);
  return PSG_OK;
}

bool psgi_cg_is_simple(cg *c, const psg_tir_node *n) {
  psgi_map_entry *e = psgi_map_get_ptr(&c->simple, n);
  if (!e) {
    psg_tir_visitor v = {simple_pre, simple_post, c};
    psg_status st = psg_tir_visit(c->ctx, &v, n);
    if (st && !c->st) c->st = st;
    e = psgi_map_get_ptr(&c->simple, n);
  }
  return e && (uintptr_t)e->value == 1;
}

/* Templates ------------------------------------------------------------------------ */

static bool push_item(cg *c, item_vec *v, const char *s, int operand, const psg_tir_node *node) {
  cg_item it = {s, operand, node};
  if (PSGI_VEC_PUSH(c->ctx, v, it)) return true;
  if (!c->st) c->st = psgi_nomem(c->ctx);
  return false;
}
#define S(text) push_item(c, items, (text), -1, NULL)
#define OP(k) push_item(c, items, NULL, (k), NULL)

/* The index of n's first value operand (a BufferLoad's buffer and a
 * call_extern's name are none). */
static size_t first_value(const psg_tir_node *n) {
  if (n->kind == PSG_TIR_BUFFER_LOAD) return 1;
  if (n->kind == PSG_TIR_CALL && (n->u.op == PSGI_TIR_OP_call_extern || n->u.op == PSGI_TIR_OP_call_pure_extern))
    return 1;
  return 0;
}

static const char *int_literal(cg *c, psg_tir_dtype t, int64_t v) {
  int bits = psg_tir_dtype_bits(t);
  if (psg_tir_dtype_is_bool(t)) return v ? "1" : "0";
  if (psg_tir_dtype_code(t) == PSG_TIR_CODE_UINT) {
    if (bits == 64) return psgi_cg_strf(c, "UINT64_C(%llu)", (unsigned long long)v);
    if (bits == 32) return psgi_cg_strf(c, "%lluu", (unsigned long long)(uint32_t)v);
    return psgi_cg_strf(c, "((%s)%lld)", psgi_cg_scalar_ctype(t), (long long)v);
  }
  if (bits == 64)
    return v == INT64_MIN ? "(-INT64_C(9223372036854775807) - 1)" : psgi_cg_strf(c, "INT64_C(%lld)", (long long)v);
  if (bits == 32) return v == INT32_MIN ? "(-2147483647 - 1)" : psgi_cg_strf(c, v < 0 ? "(%lld)" : "%lld", (long long)v);
  return psgi_cg_strf(c, "((%s)%lld)", psgi_cg_scalar_ctype(t), (long long)v);
}

static const char *float_literal(cg *c, psg_tir_dtype t, double v) {
  bool f32 = psg_tir_dtype_bits(t) == 32;
  if (isnan(v)) return f32 ? "((float)NAN)" : "((double)NAN)";
  if (isinf(v)) return v > 0 ? (f32 ? "HUGE_VALF" : "HUGE_VAL") : (f32 ? "(-HUGE_VALF)" : "(-HUGE_VAL)");
  char b[64];
  if (f32)
    snprintf(b, sizeof b, "%.9g", (double)(float)v);
  else
    snprintf(b, sizeof b, "%.17g", v);
  bool has_point = strpbrk(b, ".e") != NULL;
  return psgi_cg_strf(c, "%s%s%s%s%s", v < 0 || signbit(v) ? "(" : "", b, has_point ? "" : ".0", f32 ? "f" : "",
                      v < 0 || signbit(v) ? ")" : "");
}

/* The libm function of intrinsic `name` for float type t, or NULL. */
static const char *math_name(cg *c, const char *name, psg_tir_dtype t) {
  static const char *const plain[] = {"exp", "exp2", "log", "log2", "log10", "log1p", "sqrt", "tanh", "erf",
                                      "pow", "fabs", "floor", "ceil", "nearbyint", "trunc", "sin", "cos", "tan",
                                      "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh",
                                      "fmod", "copysign", "hypot", "nextafter"};
  bool f32 = psg_tir_dtype_bits(t) == 32;
  if (!strcmp(name, "round")) return f32 ? "nearbyintf" : "nearbyint"; /* TVM's round: halfway cases to even */
  for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
    if (!strcmp(plain[i], name)) return f32 ? psgi_cg_strf(c, "%sf", name) : plain[i];
  return NULL;
}

/* A call_extern's libm name: the interpreter's table (float and double names). */
static bool extern_known(const char *name, bool *f32, const char **base) {
  static const char *const names[] = {"exp", "exp2", "log", "log2", "log10", "log1p", "sqrt", "tanh", "erf",
                                      "pow", "fabs", "floor", "ceil", "round", "nearbyint", "trunc", "sin", "cos",
                                      "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh",
                                      "atanh", "fmod", "copysign", "hypot", "ldexp", "nextafter"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    size_t l = strlen(names[i]);
    if (!strncmp(name, names[i], l) && (name[l] == 0 || (name[l] == 'f' && name[l + 1] == 0))) {
      *f32 = name[l] == 'f';
      *base = names[i];
      return true;
    }
  }
  return false;
}

/* Items of the flat element index of buffer b whose indices are value
 * operands first..first+ndim-1. */
static bool flat_items(cg *c, const psg_tir_node *b, int first, item_vec *items) {
  size_t ndim = b->u.buf.ndim;
  const psg_tir_node *eo = b->kids[1];
  bool eo_zero = eo->kind == PSG_TIR_INT_IMM && eo->u.int_value == 0;
  if (ndim == 1 && !b->u.buf.nstrides && eo_zero) return OP(first);
  if (!eo_zero) {
    const char *t = psgi_cg_is_simple(c, eo) ? psgi_cg_expr(c, eo) : NULL;
    if (!t) return psgi_cg_fail(c, eo, PSG_ERR_UNSUPPORTED, "the elem_offset of buffer '%s' is not a scalar expression",
                                b->u.buf.name), false;
    if (!S(psgi_cg_strf(c, "(ptrdiff_t)(%s) + ", t))) return false;
  }
  if (ndim == 0) return S("0");
  for (size_t k = 0; k < ndim; k++) {
    psgi_buf sb;
    psgi_buf_init(&sb, c->ctx);
    if (b->u.buf.nstrides) {
      const psg_tir_node *s = b->kids[2 + ndim + k];
      const char *t = psgi_cg_is_simple(c, s) ? psgi_cg_expr(c, s) : NULL;
      if (t) psgi_buf_printf(&sb, "(ptrdiff_t)(%s)", t);
    } else {
      for (size_t j = k + 1; j < ndim; j++) {
        const psg_tir_node *s = b->kids[2 + j];
        const char *t = psgi_cg_is_simple(c, s) ? psgi_cg_expr(c, s) : NULL;
        if (!t) break;
        psgi_buf_printf(&sb, "%s(ptrdiff_t)(%s)", sb.len ? " * " : "", t);
      }
    }
    char *stride = sb.failed ? NULL : psgi_cg_strf(c, "%.*s", (int)sb.len, sb.data ? sb.data : "");
    psgi_buf_fini(&sb);
    if (c->st || !stride) return false;
    if (!S(k ? " + (ptrdiff_t)(" : "(ptrdiff_t)(") || !OP(first + (int)k)) return false;
    if (!S(*stride ? psgi_cg_strf(c, ") * %s", stride) : ")")) return false;
  }
  return !c->st;
}

bool psgi_cg_buffer_matches(cg *c, const psg_tir_node *b) {
  psgi_map_entry *e = psgi_map_get_ptr(&c->ptype, b->kids[0]);
  return e && (psg_tir_dtype)((uintptr_t)e->value - 1) == b->dtype;
}

/* Items of a scalar-element load of b (flat index operands from `first`). */
static bool load_items(cg *c, const psg_tir_node *at, const psg_tir_node *b, int first, item_vec *items) {
  const char *data = psgi_cg_var_name(c, b->kids[0]);
  if (!data) return psgi_cg_fail(c, at, PSG_ERR_UNSUPPORTED, "the data of buffer '%s' is not defined", b->u.buf.name), false;
  bool is_bool = psg_tir_dtype_is_bool(b->dtype);
  if (psgi_cg_buffer_matches(c, b) && psg_tir_dtype_lanes(b->dtype) == 1) {
    if (!S(psgi_cg_strf(c, "%s%s[", is_bool ? "(" : "", data)) || !flat_items(c, b, first, items)) return false;
    return S(is_bool ? "] != 0)" : "]");
  }
  if (!psgi_cg_ctype(c, b->dtype, at)) return false;
  if (!S(psgi_cg_strf(c, "%spsg_ld_%s(%s, ", is_bool ? "(" : "", psgi_cg_suffix(b->dtype), data)) ||
      !flat_items(c, b, first, items))
    return false;
  return S(is_bool ? ") != 0)" : ")");
}

static psg_arith_bound bound_of(cg *c, const psg_tir_node *n) {
  psg_arith_bound b = {PSG_ARITH_NEG_INF, PSG_ARITH_POS_INF};
  if (c->an && psg_tir_dtype_lanes(n->dtype) == 1 && psg_arith_const_int_bound(c->an, (psg_tir_expr *)n, &b))
    b.min = PSG_ARITH_NEG_INF, b.max = PSG_ARITH_POS_INF;
  return b;
}

void psgi_cg_bound_var(cg *c, const psg_tir_node *v, const psg_tir_node *min, const psg_tir_node *extent) {
  if (min && !extent) {
    psgi_map_entry *le = psgi_map_put_ptr(&c->let_value, v, NULL);
    if (le) le->value = (void *)(uintptr_t)min;
    else if (!c->st) c->st = psgi_nomem(c->ctx);
  }
  if (!c->an || psg_tir_dtype_lanes(v->dtype) != 1 || !(psg_tir_dtype_is_int(v->dtype) || psg_tir_dtype_is_uint(v->dtype)))
    return;
  psg_arith_bound b = {0, 0};
  if (min) b = bound_of(c, min);
  if (extent) {
    psg_arith_bound e = bound_of(c, extent);
    if (e.max < 1) return; /* the body never runs */
    if (b.max == PSG_ARITH_POS_INF || e.max == PSG_ARITH_POS_INF || !psgi_checked_add(b.max, e.max - 1, &b.max))
      b.max = PSG_ARITH_POS_INF;
  }
  if (b.min > b.max) return;
  if (psg_arith_update_bound(c->an, (psg_tir_expr *)v, b)) {
    /* no bound known: the var's arithmetic wraps explicitly */
    if (psg_ctx_is_oom(c->ctx) && !c->st) c->st = psgi_nomem(c->ctx);
  }
}

/* Is the value of signed integer node n (int32/int64) known to fit its
 * type, so C's signed arithmetic gives it without overflow? */
static bool fits(cg *c, const psg_tir_node *n) {
  int bits = psg_tir_dtype_bits(n->dtype);
  if (!c->an || psg_tir_dtype_lanes(n->dtype) != 1 || bits < 32) return false;
  psg_arith_bound b = bound_of(c, n);
  int64_t lo = bits == 64 ? INT64_MIN : INT32_MIN, hi = bits == 64 ? INT64_MAX : INT32_MAX;
  return b.min > lo && b.max < hi;
}

/* Is n known to be >= 0? */
static bool non_negative(cg *c, const psg_tir_node *n) { return bound_of(c, n).min >= 0; }

static bool positive_const(const psg_tir_node *n) { return n->kind == PSG_TIR_INT_IMM && n->u.int_value > 0; }

/* The template of node n over its value operands, one lane of it. */
static bool formula(cg *c, const psg_tir_node *n, item_vec *items) {
  psg_tir_dtype t = n->dtype, st = psg_tir_dtype_with_lanes(t, 1);
  psg_tir_dtype ot = n->nkids > first_value(n) ? psg_tir_dtype_with_lanes(n->kids[first_value(n)]->dtype, 1) : st;
  psgi_tir_dtype_name_buf nb;
  bool is_float = psg_tir_dtype_is_float(ot);
  const char *T = psgi_cg_scalar_ctype(ot), *UT = psg_tir_dtype_bits(ot) == 64 ? "uint64_t" : "uint32_t";
  if (n->kind != PSG_TIR_VAR && n->kind != PSG_TIR_SIZE_VAR && n->kind != PSG_TIR_STRING_IMM &&
      n->kind != PSG_TIR_CALL && n->kind != PSG_TIR_BUFFER_LOAD && (!psgi_cg_scalar_ctype(st) || !T))
    return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "%s of %s is not supported", psg_tir_kind_name(n->kind),
                        psgi_tir_dtype_name(!T ? ot : t, &nb)), false;
  static const char *const cmp[] = {" == ", " != ", " < ", " <= ", " > ", " >= "};
  switch (n->kind) {
    case PSG_TIR_VAR:
    case PSG_TIR_SIZE_VAR: {
      const char *name = psgi_cg_var_name(c, n);
      if (!name)
        return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED,
                            "var '%s' has no C definition (a buffer shape var that is no parameter?)",
                            n->u.var.name), false;
      return S(name);
    }
    case PSG_TIR_INT_IMM: return S(int_literal(c, t, n->u.int_value));
    case PSG_TIR_FLOAT_IMM: return S(float_literal(c, t, n->u.float_value));
    case PSG_TIR_CAST: {
      const char *to = psgi_cg_scalar_ctype(st);
      if (psg_tir_dtype_is_bool(st)) return S("(") && OP(0) && S(" != 0)");
      if (psg_tir_dtype_is_float(st)) {
        if (!is_float) return S(psgi_cg_strf(c, "((%s)(double)(", to)) && OP(0) && S("))");
        return S(psgi_cg_strf(c, "((%s)(", to)) && OP(0) && S("))");
      }
      if (psg_tir_dtype_is_handle(st) || psg_tir_dtype_is_handle(ot))
        return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "Cast between handle and a number"), false;
      if (is_float) return S(psgi_cg_strf(c, "psg_f2i_%s(", psgi_cg_suffix(st))) && OP(0) && S(")");
      return S(psgi_cg_strf(c, "((%s)(", to)) && OP(0) && S("))");
    }
    case PSG_TIR_ADD:
    case PSG_TIR_SUB:
    case PSG_TIR_MUL: {
      const char *op = n->kind == PSG_TIR_ADD ? " + " : n->kind == PSG_TIR_SUB ? " - " : " * ";
      int bits = psg_tir_dtype_bits(ot);
      bool sgn = psg_tir_dtype_code(ot) == PSG_TIR_CODE_INT;
      if (is_float || (sgn ? fits(c, n) : bits >= 32)) return S("(") && OP(0) && S(op) && OP(1) && S(")");
      if (sgn && bits < 32) return S(psgi_cg_strf(c, "((%s)(", T)) && OP(0) && S(op) && OP(1) && S("))");
      return S(psgi_cg_strf(c, "((%s)((%s)(", T, UT)) && OP(0) && S(psgi_cg_strf(c, ")%s(%s)(", op, UT)) && OP(1) &&
             S(")))");
    }
    case PSG_TIR_DIV:
      if (is_float || (positive_const(n->kids[1]) && psg_tir_dtype_lanes(t) == 1))
        return S("(") && OP(0) && S(" / ") && OP(1) && S(")");
      return S(psgi_cg_strf(c, "psg_div_%s(", psgi_cg_suffix(ot))) && OP(0) && S(", ") && OP(1) && S(")");
    case PSG_TIR_MOD:
      if (is_float)
        return S(psg_tir_dtype_bits(ot) == 32 ? "fmodf(" : "fmod(") && OP(0) && S(", ") && OP(1) && S(")");
      if (positive_const(n->kids[1]) && psg_tir_dtype_lanes(t) == 1) return S("(") && OP(0) && S(" % ") && OP(1) && S(")");
      return S(psgi_cg_strf(c, "psg_mod_%s(", psgi_cg_suffix(ot))) && OP(0) && S(", ") && OP(1) && S(")");
    case PSG_TIR_FLOOR_DIV:
    case PSG_TIR_FLOOR_MOD: {
      bool div = n->kind == PSG_TIR_FLOOR_DIV;
      if (is_float)
        return S(psgi_cg_strf(c, "((%s)psg_floor%s_f(", T, div ? "div" : "mod")) && OP(0) && S(", ") && OP(1) &&
               S("))");
      bool u = psg_tir_dtype_code(ot) == PSG_TIR_CODE_UINT;
      if (positive_const(n->kids[1]) && psg_tir_dtype_lanes(t) == 1 && (u || non_negative(c, n->kids[0])))
        return S("(") && OP(0) && S(div ? " / " : " % ") && OP(1) && S(")");
      return S(psgi_cg_strf(c, "psg_%s_%s(", u ? (div ? "div" : "mod") : (div ? "floordiv" : "floormod"),
                            psgi_cg_suffix(ot))) &&
             OP(0) && S(", ") && OP(1) && S(")");
    }
    case PSG_TIR_MIN:
    case PSG_TIR_MAX:
      return S(psgi_cg_strf(c, "psg_%s_%s(", n->kind == PSG_TIR_MIN ? "min" : "max", psgi_cg_suffix(ot))) && OP(0) &&
             S(", ") && OP(1) && S(")");
    case PSG_TIR_EQ:
    case PSG_TIR_NE:
    case PSG_TIR_LT:
    case PSG_TIR_LE:
    case PSG_TIR_GT:
    case PSG_TIR_GE: return S("(") && OP(0) && S(cmp[n->kind - PSG_TIR_EQ]) && OP(1) && S(")");
    case PSG_TIR_AND: return S("(") && OP(0) && S(" && ") && OP(1) && S(")");
    case PSG_TIR_OR: return S("(") && OP(0) && S(" || ") && OP(1) && S(")");
    case PSG_TIR_NOT: return S("(!") && OP(0) && S(")");
    case PSG_TIR_SELECT: return S("(") && OP(0) && S(" ? ") && OP(1) && S(" : ") && OP(2) && S(")");
    case PSG_TIR_RAMP:
      if (is_float) return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "a float Ramp is not supported"), false;
      return S(psgi_cg_strf(c, "((%s)((%s)(", T, UT)) && OP(0) && S(psgi_cg_strf(c, ") + (%s)psg_l * (%s)(", UT, UT)) &&
             OP(1) && S(")))");
    case PSG_TIR_BROADCAST: return OP(0);
    case PSG_TIR_BUFFER_LOAD: return load_items(c, n, n->kids[0], 0, items);
    case PSG_TIR_CALL: break;
    default:
      return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "%s is not supported in an expression",
                          psg_tir_kind_name(n->kind)), false;
  }
  /* Calls. */
  const char *op = psgi_tir_ops[n->u.op].name;
  size_t nargs = n->nkids - first_value(n);
  switch (n->u.op) {
    case PSGI_TIR_OP_if_then_else: return S("(") && OP(0) && S(" ? ") && OP(1) && S(" : ") && OP(2) && S(")");
    case PSGI_TIR_OP_likely: return S("(") && OP(0) && S(")");
    case PSGI_TIR_OP_reinterpret: {
      int fb = psg_tir_dtype_bits(ot), tb = psg_tir_dtype_bits(st);
      bool ff = psg_tir_dtype_is_float(ot), tf = psg_tir_dtype_is_float(st);
      const char *to = psgi_cg_scalar_ctype(st);
      if (fb != tb || (fb != 32 && fb != 64 && (ff || tf)) || !to || psg_tir_dtype_is_handle(ot) ||
          psg_tir_dtype_is_handle(st))
        return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "tir.reinterpret from %s to %s is not supported",
                            psgi_tir_dtype_name(ot, &nb), "its result type"), false;
      if (ff && tf) return S("(") && OP(0) && S(")");
      if (ff) return S(psgi_cg_strf(c, "((%s)psg_bits_f%d(", to, fb)) && OP(0) && S("))");
      if (tf) return S(psgi_cg_strf(c, "psg_f%d_bits((uint%d_t)(", tb, tb)) && OP(0) && S("))");
      return S(psgi_cg_strf(c, "((%s)(", to)) && OP(0) && S("))");
    }
    case PSGI_TIR_OP_shift_left:
    case PSGI_TIR_OP_shift_right: {
      int bits = psg_tir_dtype_bits(ot);
      bool sgn = psg_tir_dtype_code(ot) == PSG_TIR_CODE_INT;
      const char *fn = n->u.op == PSGI_TIR_OP_shift_left ? "psg_shl((uint64_t)" : sgn ? "psg_shr_s((int64_t)" : "psg_shr_u((uint64_t)";
      return S(psgi_cg_strf(c, "((%s)%s(", T, fn)) && OP(0) && S("), (int64_t)(") && OP(1) &&
             S(psgi_cg_strf(c, "), %d))", bits));
    }
    case PSGI_TIR_OP_bitwise_and:
    case PSGI_TIR_OP_bitwise_or:
    case PSGI_TIR_OP_bitwise_xor: {
      const char *o = n->u.op == PSGI_TIR_OP_bitwise_and ? " & " : n->u.op == PSGI_TIR_OP_bitwise_or ? " | " : " ^ ";
      return S(psgi_cg_strf(c, "((%s)((%s)(", T, UT)) && OP(0) && S(psgi_cg_strf(c, ")%s(%s)(", o, UT)) && OP(1) &&
             S(")))");
    }
    case PSGI_TIR_OP_bitwise_not: return S(psgi_cg_strf(c, "((%s)~(%s)(", T, UT)) && OP(0) && S("))");
    case PSGI_TIR_OP_popcount:
      return S(psgi_cg_strf(c, "((%s)psg_popcount((uint64_t)(%s)(", T, UT)) && OP(0) && S(")))");
    case PSGI_TIR_OP_clz:
      return S(psgi_cg_strf(c, "((%s)psg_clz((uint64_t)(%s)(", T, UT)) && OP(0) &&
             S(psgi_cg_strf(c, "), %d))", psg_tir_dtype_bits(ot)));
    case PSGI_TIR_OP_call_extern:
    case PSGI_TIR_OP_call_pure_extern: {
      const psg_tir_node *fn = n->kids[0];
      bool f32;
      const char *base;
      if (fn->kind != PSG_TIR_STRING_IMM || !extern_known(fn->u.str.s, &f32, &base))
        return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "%s of '%s': only libm functions are supported", op,
                            fn->kind == PSG_TIR_STRING_IMM ? fn->u.str.s : "?"), false;
      for (size_t k = 0; k < nargs; k++)
        if (!psg_tir_dtype_is_float(n->kids[1 + k]->dtype))
          return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "%s of '%s' with a non-float argument", op, fn->u.str.s), false;
      const char *f = strcmp(base, "round") ? fn->u.str.s : f32 ? "roundf" : "round";
      if (!strcmp(base, "ldexp"))
        return S(psgi_cg_strf(c, "%s(", f)) && OP(0) && S(", psg_ldexp_exp(") && OP(1) && S("))");
      if (!S(psgi_cg_strf(c, "%s(", f))) return false;
      for (size_t k = 0; k < nargs; k++)
        if ((k && !S(", ")) || !OP((int)k)) return false;
      return S(")");
    }
    default: break;
  }
  if (psgi_tir_ops[n->u.op].rule == PSGI_TIR_RULE_FLOAT_SAME || psgi_tir_ops[n->u.op].rule == PSGI_TIR_RULE_FLOAT_PRED) {
    const char *name = op + 4;
    bool f32 = psg_tir_dtype_bits(ot) == 32;
    if (!is_float || (psg_tir_dtype_bits(ot) != 32 && psg_tir_dtype_bits(ot) != 64))
      return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "%s of %s is not supported", op, psgi_tir_dtype_name(ot, &nb)), false;
    if (psgi_tir_ops[n->u.op].rule == PSGI_TIR_RULE_FLOAT_PRED) return S(psgi_cg_strf(c, "(%s(", name)) && OP(0) && S(") != 0)");
    if (!strcmp(name, "rsqrt")) return S(f32 ? "(1.0f / sqrtf(" : "(1.0 / sqrt(") && OP(0) && S("))");
    if (!strcmp(name, "sigmoid")) return S(f32 ? "psg_sigmoid_f32(" : "psg_sigmoid_f64(") && OP(0) && S(")");
    if (!strcmp(name, "exp10")) return S(f32 ? "powf(10.0f, " : "pow(10.0, ") && OP(0) && S(")");
    if (!strcmp(name, "ldexp"))
      return S(f32 ? "ldexpf(" : "ldexp(") && OP(0) && S(", psg_ldexp_exp(") && OP(1) && S("))");
    const char *f = math_name(c, name, ot);
    if (!f) return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "intrinsic %s is not supported", op), false;
    if (!S(psgi_cg_strf(c, "%s(", f))) return false;
    for (size_t k = 0; k < nargs; k++)
      if ((k && !S(", ")) || !OP((int)k)) return false;
    return S(")");
  }
  return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "intrinsic %s is not supported", op), false;
}

/* Expression mode --------------------------------------------------------------- */

typedef struct etask {
  const char *s;
  const psg_tir_node *n;
} etask;

const char *psgi_cg_expr(cg *c, const psg_tir_node *root) {
  PSGI_VEC(etask) stack = {0};
  item_vec items = {0};
  psgi_buf b;
  psgi_buf_init(&b, c->ctx);
  etask first = {NULL, root};
  if (!PSGI_VEC_PUSH(c->ctx, &stack, first) && !c->st) c->st = psgi_nomem(c->ctx);
  while (!c->st && stack.len) {
    etask t = stack.data[--stack.len];
    if (t.s) {
      psgi_buf_puts(&b, t.s);
      continue;
    }
    items.len = 0;
    if (!formula(c, t.n, &items)) break;
    size_t fv = first_value(t.n);
    for (size_t i = items.len; i-- > 0;) {
      cg_item *it = &items.data[i];
      etask e = {it->s, it->operand >= 0 ? t.n->kids[fv + (size_t)it->operand] : it->node};
      if (!PSGI_VEC_PUSH(c->ctx, &stack, e)) {
        if (!c->st) c->st = psgi_nomem(c->ctx);
        break;
      }
    }
  }
  const char *r = NULL;
  if (b.failed && !c->st) c->st = psgi_nomem(c->ctx);
  if (!c->st) r = psgi_cg_strf(c, "%.*s", (int)b.len, b.data ? b.data : "");
  psgi_buf_fini(&b);
  PSGI_VEC_FREE(c->ctx, &stack);
  PSGI_VEC_FREE(c->ctx, &items);
  return r;
}

/* The text of items with operand k replaced by ops[k]. */
static const char *instantiate(cg *c, const item_vec *items, const char *const *ops) {
  psgi_buf b;
  psgi_buf_init(&b, c->ctx);
  for (size_t i = 0; i < items->len && !c->st; i++) {
    const cg_item *it = &items->data[i];
    if (it->s)
      psgi_buf_puts(&b, it->s);
    else if (it->operand >= 0)
      psgi_buf_puts(&b, ops[it->operand]);
    else {
      const char *t = psgi_cg_expr(c, it->node);
      if (t) psgi_buf_puts(&b, t);
    }
  }
  const char *r = NULL;
  if (b.failed && !c->st) c->st = psgi_nomem(c->ctx);
  if (!c->st) r = psgi_cg_strf(c, "%.*s", (int)b.len, b.data ? b.data : "");
  psgi_buf_fini(&b);
  return r;
}

const char *psgi_cg_flat_index(cg *c, const psg_tir_node *b, const char *const *idx) {
  item_vec items = {0};
  const char *r = NULL;
  if (flat_items(c, b, 0, &items)) r = instantiate(c, &items, idx);
  PSGI_VEC_FREE(c->ctx, &items);
  return r;
}

const psg_tir_node *psgi_cg_contiguous_base(const psg_tir_node *n) {
  const psg_tir_node *b = n->kids[0];
  if (psgi_tir_num_indices(n) != 1 || psg_tir_dtype_lanes(b->dtype) != 1 || psg_tir_dtype_is_bool(b->dtype) ||
      (n->flags & PSGI_TIR_HAS_PRED) || b->u.buf.nstrides)
    return NULL;
  const psg_tir_node *i = psgi_tir_indices(n)[0];
  if (i->kind != PSG_TIR_RAMP) return NULL;
  const psg_tir_node *s = i->kids[1];
  return s->kind == PSG_TIR_INT_IMM && s->u.int_value == 1 ? i->kids[0] : NULL;
}

const psg_tir_node *psgi_cg_stride2_base(const psg_tir_node *n) {
  const psg_tir_node *b = n->kids[0];
  if (n->kind != PSG_TIR_BUFFER_LOAD || psgi_tir_num_indices(n) != 1 || psg_tir_dtype_lanes(b->dtype) != 1 ||
      psg_tir_dtype_is_bool(b->dtype) || (n->flags & PSGI_TIR_HAS_PRED) || b->u.buf.nstrides)
    return NULL;
  const psg_tir_node *i = psgi_tir_indices(n)[0];
  int lanes = psg_tir_dtype_lanes(n->dtype);
  if (i->kind != PSG_TIR_RAMP || lanes < 4 || lanes > 64 || (lanes & (lanes - 1))) return NULL;
  const psg_tir_node *st = i->kids[1];
  return st->kind == PSG_TIR_INT_IMM && st->u.int_value == 2 ? i->kids[0] : NULL;
}

/* Statement mode ------------------------------------------------------------------ */

typedef struct vframe {
  const psg_tir_node *n;
  int state;
  size_t base; /* results.len when the node started */
  const char *r; /* a lazy construct's result variable */
} vframe;

typedef struct vstate {
  cg *c;
  int indent;
  PSGI_VEC(vframe) frames;
  PSGI_VEC(const char *) results;
} vstate;

/* One line of output at an indentation level. */
void psgi_cg_line(cg *c, int indent, const char *fmt, ...) {
  psgi_cg_indent(c, indent);
  va_list ap;
  va_start(ap, fmt);
  psgi_buf_vprintf(c->out, fmt, ap);
  va_end(ap);
  psgi_buf_putc(c->out, '\n');
}

static const char *new_temp(cg *c) { return psgi_cg_strf(c, "_t%u", c->ntemp++); }

/* Declares vector temp r of dtype t (zeroed, so every lane is defined). */
static const char *decl_vector(vstate *s, psg_tir_dtype t, const psg_tir_node *at) {
  cg *c = s->c;
  const char *ty = psgi_cg_ctype(c, t, at), *r = ty ? new_temp(c) : NULL;
  if (r) psgi_cg_line(c, s->indent, "%s %s = {0};", ty, r);
  return r;
}

/* Vector load (the node's operands evaluated: ops[]). */
static const char *vector_load(vstate *s, const psg_tir_node *n, const char *const *ops) {
  cg *c = s->c;
  const psg_tir_node *b = n->kids[0];
  const char *data = psgi_cg_var_name(c, b->kids[0]);
  if (!data) return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "the data of buffer '%s' is not defined", b->u.buf.name), NULL;
  size_t nidx = psgi_tir_num_indices(n);
  bool pred = n->flags & PSGI_TIR_HAS_PRED;
  psg_tir_dtype t = n->dtype;
  int blanes = psg_tir_dtype_lanes(b->dtype), lanes = psg_tir_dtype_lanes(t) / blanes;
  psg_tir_dtype se = psg_tir_dtype_with_lanes(b->dtype, 1);
  const char *r = decl_vector(s, t, n);
  if (!r || !psgi_cg_ctype(c, b->dtype, n)) return NULL;
  bool match = psgi_cg_buffer_matches(c, b);
  if (psgi_cg_contiguous_base(n)) {
    const char *f = psgi_cg_flat_index(c, b, ops);
    if (!f) return NULL;
    if (match)
      psgi_cg_line(c, s->indent, "memcpy(&%s, %s + %s, sizeof %s);", r, data, f, r);
    else
      psgi_cg_line(c, s->indent, "memcpy(&%s, (const char *)%s + (ptrdiff_t)(%s) * %d, sizeof %s);", r, data, f,
           psg_tir_dtype_bits(se) / 8, r);
    return r;
  }
  if (psgi_cg_stride2_base(n)) {
    /* A stride-2 Ramp of n lanes spans 2n - 1 elements: two contiguous loads,
     * [base, base + n) and [base + n - 1, base + 2n - 1), whose even and odd
     * lanes make the vector (no element outside the span is read). */
    const char *f = psgi_cg_flat_index(c, b, ops), *lo = decl_vector(s, t, n), *hi = decl_vector(s, t, n);
    if (!f || !lo || !hi) return NULL;
    int esz = psg_tir_dtype_bits(se) / 8;
    const char *f2 = psgi_cg_strf(c, "(%s) + %d", f, lanes - 1);
    const char *src[2] = {f, f2}, *dst[2] = {lo, hi};
    for (int h = 0; h < 2; h++) {
      if (match) psgi_cg_line(c, s->indent, "memcpy(&%s, %s + %s, sizeof %s);", dst[h], data, src[h], dst[h]);
      else
        psgi_cg_line(c, s->indent, "memcpy(&%s, (const char *)%s + (ptrdiff_t)(%s) * %d, sizeof %s);", dst[h], data,
                     src[h], esz, dst[h]);
    }
    psgi_buf idx;
    psgi_buf_init(&idx, c->ctx);
    for (int l = 0; l < lanes; l++) psgi_buf_printf(&idx, ", %d", l < lanes / 2 ? 2 * l : 2 * l + 1);
    if (idx.failed && !c->st) c->st = psgi_nomem(c->ctx);
    psgi_cg_line(c, 0, "#if PSG_SHUFFLE");
    psgi_cg_line(c, s->indent, "%s = __builtin_shufflevector(%s, %s%.*s);", r, lo, hi, (int)idx.len,
                 idx.data ? idx.data : "");
    psgi_buf_fini(&idx);
    psgi_cg_line(c, 0, "#else");
    psgi_cg_line(c, s->indent, "for (int psg_l = 0; psg_l < %d; ++psg_l) %s = psg_l < %d ? %s : %s;", lanes,
                 psgi_cg_lane(c, r, t, "psg_l"), lanes / 2, psgi_cg_lane(c, lo, t, "2 * psg_l"),
                 psgi_cg_lane(c, hi, t, psgi_cg_strf(c, "2 * psg_l - %d", lanes - 1)));
    psgi_cg_line(c, 0, "#endif");
    return r;
  }
  bool all_scalar = true;
  for (size_t k = 0; k < nidx; k++) all_scalar &= psg_tir_dtype_lanes(psgi_tir_indices(n)[k]->dtype) == 1;
  if (all_scalar && !pred && blanes > 1 && !psg_tir_dtype_is_bool(b->dtype)) {
    const char *f = psgi_cg_flat_index(c, b, ops);
    if (!f) return NULL;
    if (match)
      psgi_cg_line(c, s->indent, "%s = %s[%s];", r, data, f);
    else
      psgi_cg_line(c, s->indent, "memcpy(&%s, (const char *)%s + (ptrdiff_t)(%s) * (ptrdiff_t)sizeof %s, sizeof %s);", r, data,
           f, r, r);
    return r;
  }
  psgi_cg_lanes split;
  if (psgi_cg_lane_split(c, n, &split)) return psgi_cg_offset_gather(c, n, &split, data, match, r, s->indent);
  /* Gather: lane by lane. */
  const char *lidx[64];
  if (nidx > 64) return psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "a buffer of more than 64 dimensions"), NULL;
  for (size_t k = 0; k < nidx; k++) lidx[k] = psgi_cg_lane(c, ops[k], psgi_tir_indices(n)[k]->dtype, "psg_l");
  const char *f = psgi_cg_flat_index(c, b, lidx);
  if (!f) return NULL;
  const char *lane = psgi_cg_lane(c, r, t, blanes > 1 ? psgi_cg_strf(c, "psg_l * %d + psg_j", blanes) : "psg_l");
  const char *p = pred ? psgi_cg_lane(c, ops[nidx], n->kids[n->nkids - 1]->dtype,
                                      blanes > 1 ? psgi_cg_strf(c, "psg_l * %d + psg_j", blanes) : "psg_l")
                       : NULL;
  const char *ld = psgi_cg_strf(c, "psg_ld_%s(%s, (%s)%s)", psgi_cg_suffix(se), data, f,
                                blanes > 1 ? psgi_cg_strf(c, " * %d + psg_j", blanes) : "");
  if (psg_tir_dtype_is_bool(se)) ld = psgi_cg_strf(c, "(%s != 0)", ld);
  if (p) ld = psgi_cg_strf(c, "(%s ? %s : 0)", p, ld);
  if (blanes > 1)
    psgi_cg_line(c, s->indent, "for (int psg_l = 0; psg_l < %d; ++psg_l) for (int psg_j = 0; psg_j < %d; ++psg_j) %s = %s;", lanes,
         blanes, lane, ld);
  else
    psgi_cg_line(c, s->indent, "for (int psg_l = 0; psg_l < %d; ++psg_l) %s = %s;", lanes, lane, ld);
  return c->st ? NULL : r;
}

/* The result of node n, whose value operands are ops[]. */
static const char *compute(vstate *s, const psg_tir_node *n, const char *const *ops) {
  cg *c = s->c;
  psg_tir_dtype t = n->dtype;
  if (n->kind == PSG_TIR_BUFFER_LOAD && psg_tir_dtype_lanes(t) > 1) return vector_load(s, n, ops);
  item_vec items = {0};
  const char *r = NULL;
  if (!formula(c, n, &items)) goto done;
  if (psg_tir_dtype_lanes(t) == 1) {
    const char *text = instantiate(c, &items, ops), *ty = psgi_cg_ctype(c, t, n);
    r = text && ty ? new_temp(c) : NULL;
    if (r) psgi_cg_line(c, s->indent, "const %s %s = %s;", ty, r, text);
    goto done;
  }
  size_t fv = first_value(n), nops = n->nkids - fv;
  bool all_vec = nops == 2;
  for (size_t k = 0; k < nops; k++) all_vec &= psg_tir_dtype_lanes(n->kids[fv + k]->dtype) == psg_tir_dtype_lanes(t);
  int kind = n->kind;
  if (all_vec && is_ext_capable(t) && psg_tir_dtype_is_float(t) &&
      (kind == PSG_TIR_ADD || kind == PSG_TIR_SUB || kind == PSG_TIR_MUL || kind == PSG_TIR_DIV)) {
    const char *op = kind == PSG_TIR_ADD ? "+" : kind == PSG_TIR_SUB ? "-" : kind == PSG_TIR_MUL ? "*" : "/";
    r = decl_vector(s, t, n);
    if (r) psgi_cg_line(c, s->indent, "PSG_VOP(%s, %s, %s, %s, %d);", r, ops[0], op, ops[1], psg_tir_dtype_lanes(t));
    goto done;
  }
  /* a scalar broadcast as one vector operation (a lane loop is not always
   * recognized as one: GCC makes it a masked insert per lane) */
  if (kind == PSG_TIR_BROADCAST && nops == 1 && is_ext_capable(t) && psg_tir_dtype_is_float(t) &&
      psg_tir_dtype_lanes(n->kids[fv]->dtype) == 1) {
    r = decl_vector(s, t, n);
    if (r) psgi_cg_line(c, s->indent, "PSG_SPLAT(%s, %s, %d);", r, ops[0], psg_tir_dtype_lanes(t));
    goto done;
  }
  const char *lops[8];
  if (nops > 8) {
    psgi_cg_fail(c, n, PSG_ERR_UNSUPPORTED, "a vector %s with %zu operands", psg_tir_kind_name(kind), nops);
    goto done;
  }
  for (size_t k = 0; k < nops; k++) lops[k] = psgi_cg_lane(c, ops[k], n->kids[fv + k]->dtype, "psg_l");
  const char *text = instantiate(c, &items, lops);
  r = text ? decl_vector(s, t, n) : NULL;
  if (r)
    psgi_cg_line(c, s->indent, "for (int psg_l = 0; psg_l < %d; ++psg_l) %s = %s;", psg_tir_dtype_lanes(t),
         psgi_cg_lane(c, r, t, "psg_l"), text);
done:
  PSGI_VEC_FREE(c->ctx, &items);
  return c->st ? NULL : r;
}

static bool vpush(vstate *s, const psg_tir_node *n) {
  vframe f = {n, 0, s->results.len, NULL};
  if (PSGI_VEC_PUSH(s->c->ctx, &s->frames, f)) return true;
  if (!s->c->st) s->c->st = psgi_nomem(s->c->ctx);
  return false;
}

static bool result(vstate *s, const char *r) {
  if (!r) return false;
  if (PSGI_VEC_PUSH(s->c->ctx, &s->results, r)) return true;
  if (!s->c->st) s->c->st = psgi_nomem(s->c->ctx);
  return false;
}

static const char *pop_result(vstate *s) { return s->results.data[--s->results.len]; }

/* The operand node pushed k-th for n (a contiguous access evaluates its
 * Ramp's base only). */
static const psg_tir_node *operand_node(cg *c, const psg_tir_node *n, size_t k) {
  size_t fv = first_value(n);
  if (n->kind == PSG_TIR_BUFFER_LOAD && k == 0) {
    const psg_tir_node *base = psgi_cg_contiguous_base(n);
    if (!base) base = psgi_cg_stride2_base(n);
    if (base) return base;
    /* a gather at constant lane offsets prints its scalar terms itself: its
     * operand is one of them (simple: no statements) */
    psgi_cg_lanes split;
    if (psg_tir_dtype_lanes(n->dtype) > 1 && psgi_cg_lane_split(c, n, &split)) return split.term[0];
  }
  return n->kids[fv + k];
}

/* One step of the frame on top. */
static void vstep(vstate *s) {
  cg *c = s->c;
  vframe *f = &s->frames.data[s->frames.len - 1];
  const psg_tir_node *n = f->n;
  if (f->state == 0 && (psgi_cg_is_simple(c, n) || n->kind == PSG_TIR_VAR || n->kind == PSG_TIR_SIZE_VAR)) {
    s->frames.len--;
    result(s, psgi_cg_expr(c, n));
    return;
  }
  bool lazy_if = n->kind == PSG_TIR_CALL && n->u.op == PSGI_TIR_OP_if_then_else &&
                 psg_tir_dtype_lanes(n->kids[0]->dtype) == 1;
  bool lazy_logic = (n->kind == PSG_TIR_AND || n->kind == PSG_TIR_OR) && psg_tir_dtype_lanes(n->dtype) == 1;
  if (n->kind == PSG_TIR_LET) {
    if (f->state == 0) {
      f->state = 1;
      vpush(s, n->kids[1]);
      return;
    }
    if (f->state == 1) {
      const char *v = pop_result(s), *ty = psgi_cg_ctype(c, n->kids[0]->dtype, n);
      const char *name = ty ? psgi_cg_unique(c, n->kids[0]->u.var.name) : NULL;
      if (!name || !psgi_cg_bind(c, n->kids[0], name)) return;
      psgi_cg_bound_var(c, n->kids[0], n->kids[1], NULL);
      psgi_cg_line(c, s->indent, "%s%s PSG_UNUSED %s = %s;", psg_tir_dtype_lanes(n->kids[0]->dtype) == 1 ? "const " : "", ty,
           name, v);
      f->state = 2;
      vpush(s, n->kids[2]);
      return;
    }
    s->frames.len--; /* the body's result is the Let's */
    return;
  }
  if (lazy_if || lazy_logic) {
    const char *ty = psgi_cg_ctype(c, n->dtype, n);
    if (!ty) return;
    switch (f->state) {
      case 0:
        f->state = 1;
        vpush(s, n->kids[0]);
        return;
      case 1: {
        const char *cond = pop_result(s);
        f->r = new_temp(c);
        if (!f->r) return;
        if (lazy_if) {
          psgi_cg_line(c, s->indent, "%s %s%s;", ty, f->r, psg_tir_dtype_lanes(n->dtype) > 1 ? " = {0}" : " = 0");
          psgi_cg_line(c, s->indent, "if (%s) {", psgi_cg_cond(c, cond));
          f->state = 2;
          s->indent++;
          vpush(s, n->kids[1]);
        } else {
          psgi_cg_line(c, s->indent, "%s %s = %s;", ty, f->r, cond);
          psgi_cg_line(c, s->indent, "if (%s%s) {", n->kind == PSG_TIR_AND ? "" : "!", f->r);
          f->state = 4;
          s->indent++;
          vpush(s, n->kids[1]);
        }
        return;
      }
      case 2: {
        const char *v = pop_result(s);
        psgi_cg_line(c, s->indent, "%s = %s;", f->r, v);
        psgi_cg_line(c, s->indent - 1, "} else {");
        f->state = 3;
        vpush(s, n->kids[2]);
        return;
      }
      default: { /* 3, 4: the last branch's value */
        const char *v = pop_result(s);
        psgi_cg_line(c, s->indent, "%s = %s;", f->r, v);
        s->indent--;
        psgi_cg_line(c, s->indent, "}");
        const char *r = f->r;
        s->frames.len--;
        result(s, r);
        return;
      }
    }
  }
  size_t nops = n->nkids - first_value(n);
  if ((size_t)f->state < nops) {
    const psg_tir_node *k = operand_node(c, n, (size_t)f->state);
    f->state++;
    vpush(s, k);
    return;
  }
  size_t base = f->base;
  s->frames.len--;
  const char *r = compute(s, n, s->results.data + base);
  s->results.len = base;
  result(s, r);
}

const char *psgi_cg_cond(cg *c, const char *t) {
  size_t len = t ? strlen(t) : 0;
  if (len < 2 || t[0] != '(' || t[len - 1] != ')') return t;
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
    if (depth == 0 && i < len - 1) return t; /* "(a) + (b)": not one pair */
  }
  return psgi_cg_strf(c, "%.*s", (int)(len - 2), t + 1);
}

const char *psgi_cg_value(cg *c, const psg_tir_node *n, int indent) {
  if (psgi_cg_is_simple(c, n) || n->kind == PSG_TIR_VAR || n->kind == PSG_TIR_SIZE_VAR) return psgi_cg_expr(c, n);
  if (c->st) return NULL;
  vstate s = {c, indent, {0}, {0}};
  vpush(&s, n);
  while (!c->st && s.frames.len) vstep(&s);
  const char *r = !c->st && s.results.len == 1 ? s.results.data[0] : NULL;
  if (!r && !c->st) psgi_cg_fail(c, n, PSG_ERR_INTERNAL, "an expression left no value");
  PSGI_VEC_FREE(c->ctx, &s.frames);
  PSGI_VEC_FREE(c->ctx, &s.results);
  return r;
}
