/* Passage — TVM's kind checker (relay.analysis.check_kind): every part of a
 * type that must be an ordinary type (a tuple field, a function's argument
 * or result, a reference's contents, a type call's argument) is of kind
 * Type, and a type call's callee is an ADT handle. A type's own kind is the
 * one its variable carries, else Type. Walks with an explicit stack. */
#include "passage/analysis.h"
#include "passage/adt.h"

#include "ir/ir_internal.h"

static const char *kind_name(int kind) {
  switch (kind) {
  case PSG_TYPE_KIND_TYPE: return "Type";
  case PSG_TYPE_KIND_SHAPE_VAR: return "ShapeVar";
  case PSG_TYPE_KIND_BASE_TYPE: return "BaseType";
  case PSG_TYPE_KIND_CONSTRAINT: return "Constraint";
  case PSG_TYPE_KIND_ADT_HANDLE: return "AdtHandle";
  case PSG_TYPE_KIND_TYPE_DATA: return "TypeData";
  default: return "?";
  }
}

static bool is_variable(const psg_type *t) {
  return t->kind == PSG_TYPE_VAR || t->kind == PSG_TYPE_GLOBAL_VAR || t->kind == PSG_TYPE_INCOMPLETE;
}

/* The kind a type has by itself: its variable's, else Type (its parts are
 * checked separately). */
static int own_kind(const psg_type *t) { return is_variable(t) ? t->tkind : PSG_TYPE_KIND_TYPE; }

/* A part to check: the type, the kind it must have, and what it is in the
 * type that holds it (for the message). */
typedef struct part {
  const psg_type *t;
  const char *role;
} part;
typedef PSGI_VEC(part) part_vec;

static const char *type_kind_name(const psg_type *t) {
  static const char *names[] = {"?", "TensorType", "TupleType", "FuncType", "TypeVar",
                                "IncompleteType", "TypeCall", "RefType", "GlobalTypeVar"};
  return t->kind > 0 && t->kind <= PSG_TYPE_GLOBAL_VAR ? names[t->kind] : "type";
}

static psg_status mismatch(psg_ctx *ctx, const part *p, int found, int expected) {
  const char *name = is_variable(p->t) && p->t->name ? p->t->name : "";
  return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_TYPE, NULL, 0, 0, NULL, 0, NULL,
                       "Incorrect kind for a %s: %s%s%s is of kind %s but was expected to be %s", p->role,
                       type_kind_name(p->t), *name ? " " : "", name, kind_name(found), kind_name(expected));
}

/* Pushes the parts of `t` that must be of kind Type (or, for a type call's
 * callee, checks it here). */
static psg_status push_parts(psg_ctx *ctx, const psg_module *mod, part_vec *stack, const psg_type *t) {
  const char *role = NULL;
  switch (t->kind) {
  case PSG_TYPE_TUPLE: role = "tuple member"; break;
  case PSG_TYPE_FUNC: role = "function type parameter"; break;
  case PSG_TYPE_CALL: role = "type call argument"; break;
  case PSG_TYPE_REF: {
    part p = {t->ret, "ref contents"};
    return PSGI_VEC_PUSH(ctx, stack, p) ? PSG_OK : psgi_nomem(ctx);
  }
  default: return PSG_OK;
  }
  if (t->kind == PSG_TYPE_CALL) {
    const psg_type *callee = t->ret;
    if (callee->kind != PSG_TYPE_GLOBAL_VAR)
      return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_TYPE, NULL, 0, 0, NULL, 0, NULL,
                           "The callee of a type call is not a global type var, but a %s",
                           type_kind_name(callee));
    part c = {callee, "type call function"};
    if (callee->tkind != PSG_TYPE_KIND_ADT_HANDLE) return mismatch(ctx, &c, callee->tkind, PSG_TYPE_KIND_ADT_HANDLE);
    for (int i = 0; i < t->n; i++) {
      part a = {t->fields[i], role};
      if (own_kind(a.t) != PSG_TYPE_KIND_TYPE) return mismatch(ctx, &a, own_kind(a.t), PSG_TYPE_KIND_TYPE);
    }
    /* The arity comes from the ADT's definition in the module. */
    const psg_type_data *td = mod ? psg_module_lookup_type_def(mod, callee) : NULL;
    if (!td)
      return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_TYPE, NULL, 0, 0, NULL, 0, NULL,
                           "the type variable `%s` is undefined", callee->name ? callee->name : "");
    if (psg_type_data_num_tvars(td) != t->n)
      return psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_TYPE, NULL, 0, 0, NULL, 0, NULL,
                           "Expected %d arguments for the type call of `%s`; got %d", psg_type_data_num_tvars(td),
                           callee->name ? callee->name : "", t->n);
    return PSG_OK;
  }
  if (t->kind == PSG_TYPE_FUNC) {
    part r = {t->ret, "function return type"};
    if (!PSGI_VEC_PUSH(ctx, stack, r)) return psgi_nomem(ctx);
  }
  /* Reversed, so the first field is checked first. */
  for (int i = t->n - 1; i >= 0; i--) {
    part p = {t->fields[i], role};
    if (!PSGI_VEC_PUSH(ctx, stack, p)) return psgi_nomem(ctx);
  }
  return PSG_OK;
}

/* Checks that every part of every type in `roots` is well kinded, each root
 * itself having to be of kind Type when `role` is given. */
static psg_status check_parts(psg_ctx *ctx, const psg_module *mod, const psg_type *const *roots, int n,
                              const char *role) {
  part_vec stack = {0};
  psg_status st = PSG_OK;
  for (int i = n - 1; i >= 0 && st == PSG_OK; i--) {
    part p = {roots[i], role};
    if (!roots[i]) st = psgi_diag_add(ctx, PSG_SEVERITY_ERROR, PSG_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, 0,
                                      NULL, "check_kind: a NULL type");
    else if (!PSGI_VEC_PUSH(ctx, &stack, p)) st = psgi_nomem(ctx);
  }
  while (st == PSG_OK && stack.len) {
    part p = stack.data[--stack.len];
    int k = own_kind(p.t);
    if (p.role && k != PSG_TYPE_KIND_TYPE) {
      st = mismatch(ctx, &p, k, PSG_TYPE_KIND_TYPE);
      break;
    }
    st = push_parts(ctx, mod, &stack, p.t);
  }
  PSGI_VEC_FREE(ctx, &stack);
  return st;
}

psg_status psg_type_check_kind(psg_ctx *ctx, const psg_type *t, int *kind) {
  return psg_type_check_kind_in(ctx, t, NULL, kind);
}

psg_status psg_type_check_kind_in(psg_ctx *ctx, const psg_type *t, const psg_module *mod, int *kind) {
  if (!ctx || !t || !kind) return PSG_ERR_INVALID_ARGUMENT;
  *kind = -1;
  psg_status st = check_parts(ctx, mod, &t, 1, NULL);
  if (st != PSG_OK) return st;
  *kind = own_kind(t);
  return PSG_OK;
}

psg_status psg_type_relation_check_kind(psg_ctx *ctx, const psg_type *const *args, int n, int *kind) {
  return psg_type_relation_check_kind_in(ctx, args, n, NULL, kind);
}

psg_status psg_type_relation_check_kind_in(psg_ctx *ctx, const psg_type *const *args, int n, const psg_module *mod,
                                           int *kind) {
  if (!ctx || !kind || n < 0 || (n && !args)) return PSG_ERR_INVALID_ARGUMENT;
  *kind = -1;
  psg_status st = check_parts(ctx, mod, args, n, "argument to type relation");
  if (st == PSG_OK) *kind = PSG_TYPE_KIND_CONSTRAINT;
  return st;
}
