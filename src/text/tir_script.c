/* Passage — the TVMScript container (a list of named PrimFuncs) and the
 * rules the printer and parser share. */
#include <string.h>
#include "text/tir_script_internal.h"

psg_status psg_tir_script_create(psg_ctx *ctx, bool is_module, psg_tir_script **out) {
  *out = NULL;
  psg_tir_script *s = psgi_calloc(ctx, sizeof *s);
  if (!s) return psgi_nomem(ctx);
  s->ctx = ctx;
  s->is_module = is_module;
  *out = s;
  return PSG_OK;
}

psg_status psg_tir_script_add(psg_tir_script *s, const char *name, psg_tir_prim_func *func) {
  if (!name || !*name || !func || func->kind != PSG_TIR_PRIM_FUNC)
    return psg_ctx_fail(s->ctx, PSG_ERR_INVALID_ARGUMENT, "psg_tir_script_add: need a name and a PrimFunc");
  for (size_t i = 0; i < s->names.len; i++)
    if (!strcmp(s->names.data[i], name))
      return psg_ctx_fail(s->ctx, PSG_ERR_INVALID_ARGUMENT, "psg_tir_script_add: function '%s' defined twice", name);
  const char *n = psgi_intern(s->ctx, name, strlen(name));
  if (!n || !PSGI_VEC_RESERVE(s->ctx, &s->names, s->names.len + 1) ||
      !PSGI_VEC_RESERVE(s->ctx, &s->funcs, s->funcs.len + 1))
    return psgi_nomem(s->ctx);
  s->names.data[s->names.len++] = n;
  psg_tir_retain(func);
  s->funcs.data[s->funcs.len++] = func;
  return PSG_OK;
}

void psg_tir_script_release(psg_tir_script *s) {
  if (!s) return;
  for (size_t i = 0; i < s->funcs.len; i++) psg_tir_release(s->funcs.data[i]);
  PSGI_VEC_FREE(s->ctx, &s->funcs);
  PSGI_VEC_FREE(s->ctx, &s->names);
  psgi_free(s->ctx, s);
}

bool psg_tir_script_is_module(const psg_tir_script *s) { return s->is_module; }
size_t psg_tir_script_count(const psg_tir_script *s) { return s->funcs.len; }
const char *psg_tir_script_name(const psg_tir_script *s, size_t i) {
  return i < s->names.len ? s->names.data[i] : NULL;
}
psg_tir_prim_func *psg_tir_script_get(const psg_tir_script *s, size_t i) {
  return i < s->funcs.len ? s->funcs.data[i] : NULL;
}

static bool starts_with(const char *p, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - p) >= n && !memcmp(p, word, n);
}

bool psg_tir_script_detect(const char *text, size_t len) {
  const char *p = text, *end = text + len;
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return starts_with(p, end, "# from tvm.script") || starts_with(p, end, "@T.prim_func") ||
         starts_with(p, end, "@I.ir_module");
}

psg_tir_dtype psgi_tir_script_dtype_word(const char *s, size_t n) {
  if (n == 6 && !memcmp(s, "handle", 6)) return psg_tir_dtype_handle();
  return psg_tir_dtype_parse(s, n);
}

psg_tir_dtype psgi_tir_script_call_dtype(const char *op, psg_tir_node *const *args, size_t n) {
  ptrdiff_t i = psg_tir_op_find(op);
  if (i < 0) return 0;
  switch (psgi_tir_ops[i].rule) {
  case PSGI_TIR_RULE_FLOAT_SAME:
  case PSGI_TIR_RULE_NUM_SAME:
  case PSGI_TIR_RULE_INT_SAME: return n ? args[0]->dtype : 0;
  case PSGI_TIR_RULE_IF_THEN_ELSE: return n == 3 ? args[1]->dtype : 0;
  case PSGI_TIR_RULE_BOOL_SAME: return n ? args[0]->dtype : psg_tir_dtype_bool();
  case PSGI_TIR_RULE_FLOAT_PRED:
    return n ? psg_tir_dtype_with_lanes(psg_tir_dtype_bool(), psg_tir_dtype_lanes(args[0]->dtype)) : 0;
  case PSGI_TIR_RULE_BOOL_ARG: return psg_tir_dtype_int32(); /* tir.assume */
  default: break;
  }
  if (!strcmp(op, "tir.address_of") || !strcmp(op, "tir.tvm_access_ptr")) return psg_tir_dtype_handle();
  if (!strcmp(op, "tir.isnullptr")) return psg_tir_dtype_bool();
  if (!strcmp(op, "tir.ret") && n) return args[0]->dtype;
  return 0;
}

psg_status psg_tir_script_to_module(const psg_tir_script *s, psg_module **out) {
  *out = NULL;
  psg_module *m = NULL;
  psg_status st = psg_module_create(s->ctx, &m);
  for (size_t i = 0; !st && i < s->funcs.len; i++) {
    psg_expr *gv = NULL;
    psg_module *next = NULL;
    st = psg_global_var_create(s->ctx, s->names.data[i], NULL, &gv);
    if (!st) st = psg_module_add_prim_func(m, gv, s->funcs.data[i], &next);
    psg_expr_release(gv);
    if (!st) {
      psg_module_release(m);
      m = next;
    }
  }
  if (st) {
    psg_module_release(m);
    return st;
  }
  *out = m;
  return PSG_OK;
}

psg_status psg_tir_script_from_module(const psg_module *m, psg_tir_script **out) {
  *out = NULL;
  psg_ctx *ctx = psg_module_get_ctx(m);
  psg_tir_script *s = NULL;
  psg_status st = psg_tir_script_create(ctx, true, &s);
  for (size_t i = 0; !st && i < psg_module_num_functions(m); i++) {
    psg_tir_prim_func *f = psg_module_get_prim_func(m, i);
    const char *name = psg_global_var_name(psg_module_get_global_var(m, i));
    if (!f) {
      st = psg_ctx_fail(ctx, PSG_ERR_UNSUPPORTED,
                        "@%s is a Relay function: TVMScript holds PrimFuncs only (print a mixed module as Relay text)",
                        name);
      break;
    }
    st = psg_tir_script_add(s, name, f);
  }
  if (st) {
    psg_tir_script_release(s);
    return st;
  }
  *out = s;
  return PSG_OK;
}
