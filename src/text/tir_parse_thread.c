/* Passage — TVMScript's thread launches and IterVars (TVM v0.19's
 * ir_builder forms):
 *   v = T.env_thread("threadIdx.x")            a thread var (its symbol holds
 *                                               the IterVar, uses read its var)
 *   with T.launch_thread(v, n):                 AttrStmt "thread_extent" over
 *   with T.launch_thread("threadIdx.x", n) as v IterVar(v, [0, n), ThreadIndex,
 *   v = T.launch_thread("threadIdx.x", n)       tag); "virtual_thread" for a
 *                                               "vthread" tag
 *   T.attr(node, "key", value)                  node: None, a buffer, an IterVar
 *   T.iter_var(v, T.Range(a, b) or None, "ThreadIndex", "threadIdx.x")
 * T.attr and T.launch_thread scope over an indented block after `with`, or
 * over the rest of the block without it. */
#include <stdio.h>
#include "text/tir_parse_internal.h"

static bool at_t_word(tparser *ps, const char *word) {
  if (!tt_is(&ps->tok, "T") || !tt_is(&ps->next, ".")) return false;
  tlex_pos p0 = ps->lx.s;
  ttoken t0 = ps->tok, n0 = ps->next;
  psgi_tirp_advance(ps);
  psgi_tirp_advance(ps);
  bool yes = tt_is(&ps->tok, word) && tt_is(&ps->next, "(");
  if (yes) {
    psgi_tirp_advance(ps);
    psgi_tirp_advance(ps);
    return true;
  }
  ps->lx.s = p0;
  ps->tok = t0;
  ps->next = n0;
  return false;
}

/* A string literal into buf. */
static bool string_arg(tparser *ps, char *buf, size_t cap) {
  size_t n;
  if (ps->tok.kind != TT_STRING) return !psgi_tirp_expected(ps, "a string");
  bool ok = psgi_tirp_unescape(ps, &ps->tok, buf, cap, false, &n);
  psgi_tirp_advance(ps);
  return ok;
}

/* The symbol of an env_thread var or of an IterVar handed in, or NULL. */
static psg_tir_node *iter_var_symbol(tparser *ps) {
  if (!is_name(&ps->tok)) return NULL;
  tsym *s = psgi_tirp_lookup(ps, ps->tok.text, ps->tok.len);
  return s && s->kind == SYM_VAR && s->node && s->node->kind == PSG_TIR_ITER_VAR ? s->node : NULL;
}

static psg_tir_node *new_var(tparser *ps, const ttoken *at, const char *name, psg_tir_dtype dt) {
  psg_tir_node *v = NULL;
  BUILD(at, psg_tir_var_create(ps->ctx, name, dt, NULL, SP(at), &v));
  return v;
}

/* T.iter_var(v, T.Range(a, b) or None, "Kind", "tag") after its '('. */
static psg_tir_node *parse_iter_var_rest(tparser *ps, const ttoken *at) {
  psg_tir_node *var = NULL, *lo = NULL, *hi = NULL, *ext = NULL, *iv = NULL;
  psg_tir_node *sym = iter_var_symbol(ps);
  char kind[32], tag[128];
  if (sym) {
    psg_tir_retain(var = sym->kids[0]);
    psgi_tirp_advance(ps);
  } else {
    var = psgi_tirp_parse_expr(ps);
  }
  bool ok = var != NULL;
  if (ok && var->kind != PSG_TIR_VAR && var->kind != PSG_TIR_SIZE_VAR)
    ok = !psgi_tirp_error_at(ps, at, "T.iter_var needs a var first");
  ok = ok && !psgi_tirp_expect(ps, ",");
  if (ok && !psgi_tirp_accept(ps, "None")) {
    ok = at_t_word(ps, "Range") && (lo = psgi_tirp_parse_expr(ps)) && !psgi_tirp_expect(ps, ",") &&
         (hi = psgi_tirp_parse_expr(ps)) && !psgi_tirp_expect(ps, ")");
    if (!ok && !lo) psgi_tirp_expected(ps, "T.Range(begin, end) or None");
    if (ok) {
      psgi_tirp_match_types(ps, at, &lo, &hi);
      if (lo->kind == PSG_TIR_INT_IMM && hi->kind == PSG_TIR_INT_IMM) {
        ext = psgi_tirp_int_imm(ps, at, hi->dtype, hi->u.int_value - lo->u.int_value);
        psg_tir_release(hi);
      } else {
        psg_tir_retain(lo);
        ext = psgi_tirp_binary(ps, at, PSG_TIR_SUB, hi, lo);
      }
      hi = NULL;
      ok = ext != NULL;
    }
  }
  ok = ok && !psgi_tirp_expect(ps, ",") && string_arg(ps, kind, sizeof kind) && !psgi_tirp_expect(ps, ",") &&
       string_arg(ps, tag, sizeof tag) && !psgi_tirp_expect(ps, ")");
  int type = -1;
  for (int t = 0; ok && psg_tir_iter_type_name(t); t++)
    if (!strcmp(kind, psg_tir_iter_type_name(t))) type = t;
  if (ok && !strcmp(kind, "DimInfo")) type = PSG_TIR_ITER_ORDERED;
  if (ok && type < 0) ok = !psgi_tirp_error_at(ps, at, "unknown IterVar kind \"%s\"", kind);
  if (ok) BUILD(at, psg_tir_iter_var_create(ps->ctx, var, lo, ext, type, tag, SP(at), &iv));
  psg_tir_release(var);
  psg_tir_release(lo);
  psg_tir_release(hi);
  psg_tir_release(ext);
  return iv;
}

bool psgi_tirp_parse_attr_args(tparser *ps, tframe *f) {
  f->kind = F_ATTR;
  ttoken at = ps->tok;
  bool ok = true;
  psg_tir_node *iv = iter_var_symbol(ps);
  tsym *s = is_name(&ps->tok) ? psgi_tirp_lookup(ps, ps->tok.text, ps->tok.len) : NULL;
  if (psgi_tirp_accept(ps, "None")) {
  } else if (iv && !tt_is(&ps->next, ".")) {
    psg_tir_retain(f->c = iv);
    psgi_tirp_advance(ps);
  } else if (s && s->kind == SYM_BUFFER && !tt_is(&ps->next, "[") && !tt_is(&ps->next, ".")) {
    f->c = s->node;
    if (f->c) psg_tir_retain(f->c);
    ok = f->c != NULL;
    psgi_tirp_advance(ps);
  } else if (at_t_word(ps, "iter_var")) {
    ok = (f->c = parse_iter_var_rest(ps, &at)) != NULL;
  } else {
    ok = (f->c = psgi_tirp_parse_expr(ps)) != NULL;
  }
  ok = ok && !psgi_tirp_expect(ps, ",");
  if (ok && ps->tok.kind != TT_STRING) ok = !psgi_tirp_expected(ps, "an attribute key string");
  if (ok) {
    char key[256];
    size_t n;
    ok = psgi_tirp_unescape(ps, &ps->tok, key, sizeof key, false, &n) && (f->key = psgi_intern(ps->ctx, key, n)) != NULL;
    psgi_tirp_advance(ps);
    ok = ok && !psgi_tirp_expect(ps, ",") && (f->a = psgi_tirp_parse_expr(ps)) != NULL;
    if (ok) psgi_tirp_accept(ps, ","); /* a trailing comma, as Python allows */
    ok = ok && !psgi_tirp_expect(ps, ")");
  }
  return ok;
}

/* The launch of thread var `var` (tag `tag`) for `ext` threads into f. */
static bool make_launch(tparser *ps, const ttoken *at, tframe *f, psg_tir_node *var, const char *tag,
                        psg_tir_node *ext) {
  f->kind = F_ATTR;
  f->key = psgi_intern(ps->ctx, strncmp(tag, "vthread", 7) ? "thread_extent" : "virtual_thread",
                       strncmp(tag, "vthread", 7) ? 13 : 14);
  psg_tir_node *zero = psgi_tirp_int_imm(ps, at, ext->dtype, 0);
  if (zero && var->dtype == ext->dtype)
    BUILD(at, psg_tir_iter_var_create(ps->ctx, var, zero, ext, PSG_TIR_ITER_THREAD_INDEX, tag, SP(at), &f->c));
  else if (zero)
    psgi_tirp_error_at(ps, at, "the thread count and the thread var '%s' differ in dtype", var->u.var.name);
  psg_tir_release(zero);
  f->a = ext;
  return f->c != NULL && f->key != NULL;
}

bool psgi_tirp_parse_launch_args(tparser *ps, tframe *f, const ttoken *at, const ttoken *name) {
  psg_tir_node *iv = iter_var_symbol(ps);
  char tag[128];
  psg_tir_node *var = NULL;
  if (iv) {
    psg_tir_retain(var = iv->kids[0]);
    snprintf(tag, sizeof tag, "%s", psg_tir_iter_var_thread_tag(iv));
    psgi_tirp_advance(ps);
  } else if (ps->tok.kind == TT_STRING) {
    if (!string_arg(ps, tag, sizeof tag)) return false;
  } else {
    return !psgi_tirp_expected(ps, "a T.env_thread var or a thread tag string");
  }
  psg_tir_node *ext = NULL;
  bool ok = !psgi_tirp_expect(ps, ",") && (ext = psgi_tirp_parse_expr(ps)) && !psgi_tirp_expect(ps, ")");
  if (ok && !var) {
    char vname[128];
    if (name) psgi_tirp_name_of(name, vname, sizeof vname);
    ok = (var = new_var(ps, at, name ? vname : tag, ext->dtype)) != NULL;
  }
  if (ok) {
    ok = make_launch(ps, at, f, var, tag, ext);
    ext = NULL; /* f owns it */
  }
  psg_tir_release(ext);
  if (ok && name) ok = !psgi_tirp_define(ps, name, SYM_VAR, var);
  psg_tir_release(var);
  return ok;
}

/* with T.launch_thread("tag", n) as v: the name after the arguments. */
bool psgi_tirp_parse_with_launch(tparser *ps, tframe *f, const ttoken *at) {
  if (ps->tok.kind != TT_STRING) return psgi_tirp_parse_launch_args(ps, f, at, NULL);
  /* find `as NAME` after the closing parenthesis, then parse the call */
  tlex_pos p0 = ps->lx.s;
  ttoken t0 = ps->tok, n0 = ps->next;
  int nest = 1;
  while (ps->tok.kind != TT_EOF && nest > 0) {
    if (tt_is(&ps->tok, "(")) nest++;
    if (tt_is(&ps->tok, ")")) nest--;
    psgi_tirp_advance(ps);
  }
  if (!tt_is(&ps->tok, "as") || !is_name(&ps->next)) return !psgi_tirp_expected(ps, "'as' and a name");
  ttoken name = ps->next;
  ps->lx.s = p0;
  ps->tok = t0;
  ps->next = n0;
  /* the extent is read before the var is defined: it cannot use it */
  bool ok = psgi_tirp_parse_launch_args(ps, f, at, &name);
  if (ok) {
    psgi_tirp_advance(ps); /* as */
    psgi_tirp_advance(ps); /* name */
  }
  return ok;
}

bool psgi_tirp_parse_env_thread(tparser *ps, const ttoken *name) {
  char tag[128], vname[128];
  psg_tir_node *var = NULL, *iv = NULL;
  psgi_tirp_name_of(name, vname, sizeof vname);
  bool ok = string_arg(ps, tag, sizeof tag) && !psgi_tirp_expect(ps, ")") && psgi_tirp_end_line(ps);
  if (ok) ok = (var = new_var(ps, name, vname, psg_tir_dtype_int32())) != NULL;
  if (ok) ok = !BUILD(name, psg_tir_iter_var_create(ps->ctx, var, NULL, NULL, PSG_TIR_ITER_THREAD_INDEX, tag, SP(name), &iv));
  if (ok) ok = !psgi_tirp_define(ps, name, SYM_VAR, iv);
  psg_tir_release(var);
  psg_tir_release(iv);
  return ok;
}
