/* Passage — the behaviour of the ops the host registers at run time
 * (include/passage/op_register.h): their argument count, support level,
 * fusion pattern, statefulness and type relation, kept in the row the IR
 * layer holds for them (src/ir/op_custom.c). psgi_op_impl_in gives passes a
 * psgi_op_impl for such an op as for a built-in one; its type relation is
 * custom_rel below, which checks the count and runs the library's relation
 * the op named or the host's. */
#include <string.h>
#include "ops/elemwise.h"
#include "passage/op_register.h"

typedef struct behaviour {
  psgi_op_impl impl; /* what passes see; impl.type_rel is custom_rel once a relation is set */
  int num_inputs;    /* -1: any */
  int support_level; /* -1: unset */
  bool pattern_set;  /* impl.pattern is opaque until the host sets one */
  const char *rel_name; /* interned; NULL until add_type_rel */
  psgi_type_rel_fn builtin; /* the library's relation, or NULL for the host's */
  psg_type_rel_fn host;
  void *user;
  void (*free_user)(void *user);
} behaviour;

static void behaviour_free(psg_ctx *ctx, void *p) {
  behaviour *b = p;
  if (b && b->free_user) {
    bool was = psgi_exclusive_begin(false); /* users' code (support.h) */
    b->free_user(b->user);
    psgi_exclusive_end(was);
  }
  psgi_free(ctx, b);
}

static psg_status custom_rel(psgi_op_call *call, const psg_type *const *args, size_t nargs, const psg_type **out) {
  *out = NULL;
  const behaviour *b = psgi_op_custom_ext(call->ctx, call->op, 0, NULL);
  const char *name = psgi_op_name_in(call->ctx, call->op);
  if (!b || !b->rel_name) return psgi_op_fail(call, PSG_ERR_TYPE, "%s: no type relation", name);
  if (b->num_inputs >= 0 && nargs != (size_t)b->num_inputs)
    return psgi_op_fail(call, PSG_ERR_TYPE, "'%s' takes %d argument%s, got %zu", name, b->num_inputs,
                        b->num_inputs == 1 ? "" : "s", nargs);
  if (b->builtin) return b->builtin(call, args, nargs, out);
  bool was = psgi_exclusive_begin(false); /* users' code (support.h) */
  psg_status st = b->host(call->ctx, args, nargs, call->attrs, b->user, out);
  psgi_exclusive_end(was);
  if (st) {
    *out = NULL;
    return st;
  }
  if (!*out)
    return psgi_op_fail(call, PSG_ERR_TYPE, "%s: type relation %s gave no type for these arguments", name,
                        b->rel_name);
  return PSG_OK;
}

/* The library's relations a registered op may name (TVM registers these
 * under tvm.relay.type_relation.NAME). */
static const struct {
  const char *name;
  psgi_type_rel_fn fn;
} builtin_rels[] = {
    {"Identity", psgi_rel_identity},
    {"Broadcast", psgi_rel_broadcast},
    {"BroadcastComp", psgi_rel_broadcast_cmp},
};

/* The behaviour block of registered op `name` (made on first use), or an
 * error naming why there is none. */
static psg_status behaviour_of(psg_ctx *ctx, const char *name, const char *what, behaviour **out) {
  *out = NULL;
  if (!ctx || !name) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "%s: NULL argument", what);
  ptrdiff_t op = psgi_op_lookup_in(ctx, name, strlen(name));
  if (op < 0) return psg_ctx_fail(ctx, PSG_ERR_NOT_FOUND, "%s: unknown op '%s'", what, name);
  if ((size_t)op < psgi_op_table_len)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "%s: op '%s' is built in; only ops registered at run time "
                        "(psg_op_register) can be changed", what, name);
  behaviour *b = psgi_op_custom_ext(ctx, (size_t)op, sizeof *b, behaviour_free);
  if (!b) return psgi_nomem(ctx);
  if (!b->impl.name) { /* first use: the defaults */
    b->impl.name = psgi_op_name_in(ctx, (size_t)op);
    b->impl.pattern = PSGI_PATTERN_OPAQUE;
    b->num_inputs = -1;
    b->support_level = -1;
  }
  *out = b;
  return PSG_OK;
}

psg_status psg_op_register(psg_ctx *ctx, const char *name, const char *doc) {
  if (!ctx || !name || !*name)
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_op_register: an op needs a name");
  size_t index;
  psg_status st = psgi_op_custom_add(ctx, name, doc, &index);
  behaviour *b;
  return st ? st : behaviour_of(ctx, name, "psg_op_register", &b);
}

psg_status psg_op_set_num_inputs(psg_ctx *ctx, const char *name, int num_inputs) {
  behaviour *b;
  psg_status st = behaviour_of(ctx, name, "set_num_inputs", &b);
  if (!st) b->num_inputs = num_inputs < 0 ? -1 : num_inputs;
  return st;
}

psg_status psg_op_set_support_level(psg_ctx *ctx, const char *name, int level) {
  behaviour *b;
  psg_status st = behaviour_of(ctx, name, "set_support_level", &b);
  if (!st) b->support_level = level;
  return st;
}

psg_status psg_op_set_pattern(psg_ctx *ctx, const char *name, int pattern) {
  behaviour *b;
  psg_status st = behaviour_of(ctx, name, "register_pattern", &b);
  if (st) return st;
  if (!psg_op_pattern_name(pattern))
    return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "register_pattern: %d is not an op pattern", pattern);
  b->impl.pattern = pattern;
  b->pattern_set = true;
  return PSG_OK;
}

psg_status psg_op_set_stateful(psg_ctx *ctx, const char *name, bool stateful) {
  behaviour *b;
  psg_status st = behaviour_of(ctx, name, "register_stateful", &b);
  if (!st) b->impl.stateful = stateful;
  return st;
}

psg_status psg_op_add_type_rel(psg_ctx *ctx, const char *name, const char *rel_name, psg_type_rel_fn fn, void *user,
                               void (*free_user)(void *user)) {
  behaviour *b = NULL;
  psg_status st = rel_name ? behaviour_of(ctx, name, "add_type_rel", &b)
                           : psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "add_type_rel: a relation needs a name");
  psgi_type_rel_fn builtin = NULL;
  if (!st && b->rel_name)
    st = psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "add_type_rel: op '%s' already has type relation %s", name,
                      b->rel_name);
  for (size_t i = 0; !st && !fn && i < sizeof builtin_rels / sizeof *builtin_rels; i++)
    if (!strcmp(builtin_rels[i].name, rel_name)) builtin = builtin_rels[i].fn;
  if (!st && !fn && !builtin)
    st = psg_ctx_fail(ctx, PSG_ERR_NOT_FOUND, "add_type_rel: no type relation named %s (the library's: Identity, "
                      "Broadcast, BroadcastComp; or give a function)", rel_name);
  const char *iname = st ? NULL : psgi_intern(ctx, rel_name, strlen(rel_name));
  if (!st && !iname) st = psgi_nomem(ctx);
  if (st) {
    if (free_user) {
      bool was = psgi_exclusive_begin(false); /* users' code (support.h) */
      free_user(user);
      psgi_exclusive_end(was);
    }
    return st;
  }
  *b = (behaviour){.impl = b->impl, .num_inputs = b->num_inputs, .support_level = b->support_level,
                   .pattern_set = b->pattern_set, .rel_name = iname, .builtin = builtin, .host = fn, .user = user, .free_user = free_user};
  b->impl.type_rel = custom_rel;
  return PSG_OK;
}

const psgi_op_impl *psgi_op_impl_in(psg_ctx *ctx, size_t op) {
  if (op < psgi_op_table_len) return psgi_op_impl_get(op);
  const behaviour *b = psgi_op_custom_ext(ctx, op, 0, NULL);
  return b ? &b->impl : NULL;
}

const char *psgi_op_call_name(const psgi_op_call *call) { return psgi_op_name_in(call->ctx, call->op); }

/* Queries through an Op node. */

static const behaviour *node_behaviour(const psg_expr *op) {
  return op && op->kind == PSG_EXPR_OP ? psgi_op_custom_ext(op->ctx, op->u.op, 0, NULL) : NULL;
}

int psg_op_node_num_inputs(const psg_expr *op) {
  if (!op || op->kind != PSG_EXPR_OP) return -1;
  if (op->u.op < psgi_op_table_len) {
    const psgi_op_info *info = &psgi_op_table[op->u.op];
    return info->min_args == info->max_args ? info->max_args : -1;
  }
  const behaviour *b = node_behaviour(op);
  return b ? b->num_inputs : -1;
}

int psg_op_node_support_level(const psg_expr *op) {
  const behaviour *b = node_behaviour(op);
  return b ? b->support_level : -1;
}

int psg_op_node_pattern(const psg_expr *op) {
  if (!op || op->kind != PSG_EXPR_OP) return -1;
  const behaviour *b = node_behaviour(op);
  if (b && !b->pattern_set) return -1;
  const psgi_op_impl *impl = psgi_op_impl_in(op->ctx, op->u.op);
  return impl ? impl->pattern : -1;
}

bool psg_op_node_is_stateful(const psg_expr *op) {
  if (!op || op->kind != PSG_EXPR_OP) return false;
  const psgi_op_impl *impl = psgi_op_impl_in(op->ctx, op->u.op);
  return impl && impl->stateful;
}

const char *psg_op_node_type_rel_name(const psg_expr *op) {
  const behaviour *b = node_behaviour(op);
  return b ? b->rel_name : NULL;
}

bool psg_op_node_is_registered(const psg_expr *op) {
  return op && op->kind == PSG_EXPR_OP && op->u.op >= psgi_op_table_len;
}
