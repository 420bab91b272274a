/* Passage — psg_tir_script_env (include/passage/tvmscript_env.h): the
 * Python values a decorated TVMScript function reads from outside its text.
 *
 * Literals (ints, floats, strings, bools) and aliases (`op` for `T.Add`)
 * are replaced in the token stream, so they work wherever the text may hold
 * a literal (a dtype string, a loop extent, a slice bound). Nodes (PrimExprs,
 * Buffers) become symbols of the parser when a name is not defined by the
 * text itself (tir_parse_base.c, psgi_tirp_lookup). */
#include <math.h>
#include <stdio.h>
#include "text/tir_script_env.h"

enum { ENV_INT, ENV_FLOAT, ENV_STRING, ENV_BOOL, ENV_ALIAS, ENV_EXPR, ENV_BUFFER };

typedef struct env_entry {
  int kind;
  const char *text; /* the literal's token text (arena), or the alias's T.<name> */
  size_t len;
  psg_tir_node *node; /* ENV_EXPR / ENV_BUFFER, retained */
} env_entry;

struct psg_tir_script_env {
  psg_ctx *ctx;
  psgi_arena arena;
  psgi_map names; /* name (arena copy) -> env_entry* */
  PSGI_VEC(psg_tir_node *) nodes;
  /* The tokens still to come of an expansion, valid while the lexer stands
   * where it was made (a parser that backtracks drops them). */
  ttoken pending[2];
  int npending;
  const char *pending_at;
};

psg_status psg_tir_script_env_create(psg_ctx *ctx, psg_tir_script_env **out) {
  *out = NULL;
  psg_tir_script_env *env = psgi_calloc(ctx, sizeof *env);
  if (!env) return psgi_nomem(ctx);
  env->ctx = ctx;
  psgi_arena_init(&env->arena, ctx);
  psgi_map_init(&env->names, ctx);
  *out = env;
  return PSG_OK;
}

void psg_tir_script_env_release(psg_tir_script_env *env) {
  if (!env) return;
  for (size_t i = 0; i < env->nodes.len; i++) psg_tir_release(env->nodes.data[i]);
  PSGI_VEC_FREE(env->ctx, &env->nodes);
  psgi_map_fini(&env->names);
  psgi_arena_fini(&env->arena);
  psgi_free(env->ctx, env);
}

static bool is_identifier(const char *s) {
  if (!s || !*s || (*s >= '0' && *s <= '9')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

static char *arena_copy(psg_tir_script_env *env, const char *s, size_t n) {
  char *c = psgi_arena_alloc(&env->arena, n + 1);
  if (!c) return NULL;
  memcpy(c, s, n);
  c[n] = 0;
  return c;
}

/* Binds name to a new entry; NULL after a recorded failure. */
static env_entry *bind(psg_tir_script_env *env, const char *name) {
  if (!env) return NULL;
  if (!is_identifier(name)) {
    psg_ctx_fail(env->ctx, PSG_ERR_INVALID_ARGUMENT, "TVMScript environment: '%.60s' is not a name", name ? name : "");
    return NULL;
  }
  size_t n = strlen(name);
  env_entry *e = psgi_arena_alloc(&env->arena, sizeof *e);
  char *key = arena_copy(env, name, n);
  psgi_map_entry *m = e && key ? psgi_map_put_str(&env->names, key, n, NULL) : NULL;
  if (!m) {
    psgi_nomem(env->ctx);
    return NULL;
  }
  memset(e, 0, sizeof *e);
  m->value = e;
  return e;
}

static psg_status set_text(psg_tir_script_env *env, env_entry *e, int kind, const char *text, size_t n) {
  if (!e) return psg_ctx_is_oom(env->ctx) ? PSG_ERR_NOMEM : PSG_ERR_INVALID_ARGUMENT;
  e->kind = kind;
  e->len = n;
  if (!(e->text = arena_copy(env, text, n))) return psgi_nomem(env->ctx);
  return PSG_OK;
}

psg_status psg_tir_script_env_add_int(psg_tir_script_env *env, const char *name, int64_t value) {
  char buf[32];
  /* the digits; a negative value is '-' and the digits (two tokens) */
  uint64_t mag = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
  int n = snprintf(buf, sizeof buf, "%s%llu", value < 0 ? "-" : "", (unsigned long long)mag);
  return set_text(env, bind(env, name), ENV_INT, buf, (size_t)n);
}

psg_status psg_tir_script_env_add_float(psg_tir_script_env *env, const char *name, double value) {
  if (env && !isfinite(value))
    return psg_ctx_fail(env->ctx, PSG_ERR_UNSUPPORTED, "TVMScript environment: '%.60s' is not finite (%g)",
                        name ? name : "", value);
  char buf[40];
  int n = snprintf(buf, sizeof buf, "%.17g", fabs(value));
  if (!strpbrk(buf, ".e")) n = snprintf(buf, sizeof buf, "%.17g.0", fabs(value));
  char full[48];
  n = snprintf(full, sizeof full, "%s%s", signbit(value) ? "-" : "", buf);
  return set_text(env, bind(env, name), ENV_FLOAT, full, (size_t)n);
}

psg_status psg_tir_script_env_add_bool(psg_tir_script_env *env, const char *name, bool value) {
  return set_text(env, bind(env, name), ENV_BOOL, value ? "True" : "False", value ? 4 : 5);
}

psg_status psg_tir_script_env_add_string(psg_tir_script_env *env, const char *name, const char *value) {
  if (env && !value) return psg_ctx_fail(env->ctx, PSG_ERR_INVALID_ARGUMENT, "TVMScript environment: NULL string");
  env_entry *e = bind(env, name);
  if (!e) return env && psg_ctx_is_oom(env->ctx) ? PSG_ERR_NOMEM : PSG_ERR_INVALID_ARGUMENT;
  /* the token text of a string keeps its escapes (tir_lex.h): escape
   * backslashes, quotes and control bytes */
  psgi_buf b;
  psgi_buf_init(&b, env->ctx);
  for (const char *p = value; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '\\' || c == '"') psgi_buf_printf(&b, "\\%c", c);
    else if (c == '\n') psgi_buf_printf(&b, "\\n");
    else if (c == '\t') psgi_buf_printf(&b, "\\t");
    else if (c < 0x20 || c == 0x7f) psgi_buf_printf(&b, "\\x%02x", c);
    else psgi_buf_printf(&b, "%c", c);
  }
  psg_status st = psg_ctx_is_oom(env->ctx) ? psgi_nomem(env->ctx)
                                           : set_text(env, e, ENV_STRING, b.data ? b.data : "", b.len);
  psgi_buf_fini(&b);
  return st;
}

psg_status psg_tir_script_env_add_alias(psg_tir_script_env *env, const char *name, const char *t_name) {
  if (env && !is_identifier(t_name))
    return psg_ctx_fail(env->ctx, PSG_ERR_INVALID_ARGUMENT, "TVMScript environment: alias of '%.60s' is not a name",
                        t_name ? t_name : "");
  return set_text(env, bind(env, name), ENV_ALIAS, t_name ? t_name : "", t_name ? strlen(t_name) : 0);
}

static psg_status add_node(psg_tir_script_env *env, const char *name, psg_tir_node *node, int kind) {
  if (!env) return PSG_ERR_INVALID_ARGUMENT;
  bool ok = node && (kind == ENV_BUFFER ? node->kind == PSG_TIR_BUFFER
                                        : psg_tir_is_expr(node) || node->kind == PSG_TIR_ITER_VAR);
  if (!ok)
    return psg_ctx_fail(env->ctx, PSG_ERR_INVALID_ARGUMENT, "TVMScript environment: '%.60s' must be a %s",
                        name ? name : "", kind == ENV_BUFFER ? "Buffer" : "PrimExpr or IterVar");
  if (!PSGI_VEC_PUSH(env->ctx, &env->nodes, node)) return psgi_nomem(env->ctx);
  env_entry *e = bind(env, name);
  if (!e) {
    env->nodes.len--;
    return psg_ctx_is_oom(env->ctx) ? PSG_ERR_NOMEM : PSG_ERR_INVALID_ARGUMENT;
  }
  psg_tir_retain(node);
  e->kind = kind;
  e->node = node;
  return PSG_OK;
}

psg_status psg_tir_script_env_add_expr(psg_tir_script_env *env, const char *name, psg_tir_node *expr) {
  return add_node(env, name, expr, ENV_EXPR);
}

psg_status psg_tir_script_env_add_buffer(psg_tir_script_env *env, const char *name, psg_tir_node *buffer) {
  return add_node(env, name, buffer, ENV_BUFFER);
}

psg_tir_node *psgi_tir_script_env_node(const psg_tir_script_env *env, const char *name, size_t len, bool *is_buffer) {
  psgi_map_entry *m = env ? psgi_map_get_str(&env->names, name, len) : NULL;
  env_entry *e = m ? m->value : NULL;
  if (!e || (e->kind != ENV_EXPR && e->kind != ENV_BUFFER)) return NULL;
  *is_buffer = e->kind == ENV_BUFFER;
  return e->node;
}

static ttoken retoken(const ttoken *at, int kind, const char *text, size_t len) {
  ttoken t = *at;
  t.kind = kind;
  t.text = text;
  t.len = len;
  return t;
}

ttoken psgi_tir_script_env_next(psg_tir_script_env *env, tlexer *lx, const ttoken *prev) {
  if (env->npending && lx->s.p == env->pending_at) {
    ttoken t = env->pending[0];
    env->pending[0] = env->pending[1];
    env->npending--;
    return t;
  }
  env->npending = 0;
  ttoken t = tlex_next(lx);
  if (t.kind != TT_NAME || (prev && tt_is(prev, "."))) return t;
  psgi_map_entry *m = psgi_map_get_str(&env->names, t.text, t.len);
  env_entry *e = m ? m->value : NULL;
  if (!e || e->kind == ENV_EXPR || e->kind == ENV_BUFFER) return t;
  if (lx->s.nest > 0) {
    /* `name=` inside brackets is a keyword: peek (no indentation changes
     * inside brackets, so the lexer state can be put back) */
    tlex_pos save = lx->s;
    bool failed = lx->failed;
    const char *error = lx->error;
    ttoken nx = tlex_next(lx);
    lx->s = save;
    lx->failed = failed; /* a bad token after the name is reported when really read */
    lx->error = error;
    if (tt_is(&nx, "=")) return t;
  }
  bool neg = e->len > 1 && e->text[0] == '-' && (e->kind == ENV_INT || e->kind == ENV_FLOAT);
  switch (e->kind) {
  case ENV_INT:
  case ENV_FLOAT: {
    int kind = e->kind == ENV_INT ? TT_INT : TT_FLOAT;
    if (!neg) return retoken(&t, kind, e->text, e->len);
    env->pending[0] = retoken(&t, kind, e->text + 1, e->len - 1);
    env->npending = 1;
    env->pending_at = lx->s.p;
    return retoken(&t, TT_OP, "-", 1);
  }
  case ENV_STRING: return retoken(&t, TT_STRING, e->text, e->len);
  case ENV_BOOL: return retoken(&t, TT_NAME, e->text, e->len);
  default: /* ENV_ALIAS: T . name */
    env->pending[0] = retoken(&t, TT_OP, ".", 1);
    env->pending[1] = retoken(&t, TT_NAME, e->text, e->len);
    env->npending = 2;
    env->pending_at = lx->s.p;
    return retoken(&t, TT_NAME, "T", 1);
  }
}
