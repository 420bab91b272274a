/* Passage — the CombineParallel* machinery (combine_parallel.h; TVM's
 * combine_parallel_op.cc): grouping, branches, follow-on levels, slices. */
#include "transforms/combine_parallel.h"

#include "ops/op_impl.h"

typedef psgi_combine_branch node_vec;

typedef struct combiner {
  psg_ctx *ctx;
  const psgi_combine_spec *spec;
  psgi_map users;  /* node -> number of references from parents */
  psgi_map parent; /* node -> its last parent (the only one when users is 1) */
  psgi_map roots;  /* data of a supported call -> index + 1 in root_convs */
  PSGI_VEC(node_vec) root_convs; /* per root, its supported calls in post order */
} combiner;

static size_t count_of(const psgi_map *m, const psg_expr *e) {
  psgi_map_entry *en = psgi_map_get_ptr(m, e);
  return en ? (size_t)(uintptr_t)en->value : 0;
}

static psg_status scan(psg_visitor *v, const psg_expr *e) {
  combiner *c = v->user;
  for (uint32_t i = 0; i < e->nkids; i++) {
    psgi_map_entry *u = psgi_map_put_ptr(&c->users, e->kids[i], NULL);
    psgi_map_entry *p = u ? psgi_map_put_ptr(&c->parent, e->kids[i], NULL) : NULL;
    if (!p) return psgi_nomem(c->ctx);
    u->value = (void *)((uintptr_t)u->value + 1);
    p->value = (void *)e;
  }
  const char *op = psgi_call_op_name(e);
  if (!op || strcmp(op, c->spec->op) || e->nkids != 3 || !psgi_tensor_type_of(e) ||
      !psgi_tensor_type_of(e->kids[2]) || !c->spec->supported(e))
    return PSG_OK;
  bool is_new = false;
  psgi_map_entry *r = psgi_map_put_ptr(&c->roots, e->kids[1], &is_new);
  if (!r || (is_new && !PSGI_VEC_PUSH(c->ctx, &c->root_convs, ((node_vec){0})))) return psgi_nomem(c->ctx);
  if (is_new) r->value = (void *)(uintptr_t)c->root_convs.len;
  node_vec *convs = &c->root_convs.data[(uintptr_t)r->value - 1];
  return PSGI_VEC_PUSH(c->ctx, convs, e) ? PSG_OK : psgi_nomem(c->ctx);
}

/* Branches ----------------------------------------------------------------------------- */

static bool is_elemwise_or_broadcast(const psg_expr *e) {
  if (e->kind != PSG_EXPR_CALL || e->kids[0]->kind != PSG_EXPR_OP) return false;
  const psgi_op_impl *impl = psgi_op_impl_get(e->kids[0]->u.op);
  return impl && impl->pattern <= PSGI_PATTERN_BROADCAST;
}

/* The call and the chain of single-use elementwise/broadcast calls after it
 * (TVM's CreateBranch; a node with any second user, a tuple field included,
 * ends the chain, so nothing outside the branch sees its inner nodes). */
static psg_status make_branch(const combiner *c, const psg_expr *head, node_vec *out) {
  out->len = 0;
  const psg_expr *e = head;
  for (;;) {
    if (!PSGI_VEC_PUSH(c->ctx, out, e)) return psgi_nomem(c->ctx);
    if (count_of(&c->users, e) != 1) return PSG_OK;
    psgi_map_entry *p = psgi_map_get_ptr(&c->parent, e);
    const psg_expr *next = p->value;
    if (!is_elemwise_or_broadcast(next) || !psgi_tensor_type_of(next) || next->kids[0] == e) return PSG_OK;
    e = next;
  }
}

/* The position of `prev` among the arguments of `call`, or -1. */
static int arg_index(const psg_expr *call, const psg_expr *prev) {
  for (uint32_t i = 1; i < call->nkids; i++)
    if (call->kids[i] == prev) return (int)i;
  return -1;
}

/* TVM's IsArgCompatible: operand `k` of a and b varies along the channel
 * axis with the branch's channel extent and agrees elsewhere. */
static bool args_compatible(const psg_expr *a, const psg_expr *b, uint32_t k, int channel_pos) {
  const psg_type *ta = psgi_tensor_type_of(a->kids[k]), *tb = psgi_tensor_type_of(b->kids[k]);
  const psg_type *oa = psgi_tensor_type_of(a), *ob = psgi_tensor_type_of(b);
  if (!ta || !tb || !oa || !ob || ta->dtype != tb->dtype || ta->n != tb->n) return false;
  int pos = channel_pos - oa->n + ta->n;
  if (pos < 0 || ta->dims[pos] != oa->dims[channel_pos] || tb->dims[pos] != ob->dims[channel_pos]) return false;
  for (int i = 0; i < ta->n; i++)
    if (i != pos && ta->dims[i] != tb->dims[i]) return false;
  return true;
}

/* TVM's CheckLevel at `depth` (every branch is longer than depth). */
static bool level_matches(const combiner *c, node_vec *branches, size_t n, size_t depth, int channel_pos) {
  const psg_expr *call = branches[0].data[depth];
  int parent = arg_index(call, branches[0].data[depth - 1]);
  if (parent < 0) return false;
  for (size_t j = 1; j < n; j++) {
    const psg_expr *other = branches[j].data[depth];
    if (other->kids[0] != call->kids[0] || other->nkids != call->nkids ||
        !psg_attrs_equal(other->u.attrs, call->u.attrs) || other->kids[parent] != branches[j].data[depth - 1])
      return false;
    for (uint32_t k = 1; k < call->nkids; k++)
      if ((int)k != parent && (c->spec->arg_compatible ? !c->spec->arg_compatible(call, other, k)
                                                      : !c->spec->follow_last_axis &&
                                                            !args_compatible(call, other, k, channel_pos)))
        return false;
  }
  return true;
}

/* Building ------------------------------------------------------------------------------ */

static psg_expr *own(psgi_built *b, psg_status st, psg_expr *e) {
  if (!st && !PSGI_VEC_PUSH(b->ctx, &b->exprs, e)) psg_expr_release(e), st = psgi_nomem(b->ctx);
  if (st && !b->status) b->status = st;
  return st ? NULL : e;
}

psg_expr *psgi_combine_rewritten(psgi_built *b, psg_mutator *m, const psg_expr *e) {
  psg_expr *r = NULL;
  psg_status st = b->status ? b->status : psg_mutate(m, e, &r);
  return own(b, st, r);
}

psg_expr *psgi_combine_tuple(psgi_built *b, psg_expr *const *fields, size_t n) {
  for (size_t j = 0; j < n; j++)
    if (!fields[j]) return NULL;
  psg_expr *tuple = NULL;
  psg_status st = psg_tuple_create(b->ctx, fields, n, b->span, &tuple); /* before own reads tuple */
  return own(b, st, tuple);
}

/* concatenate((operand k of every branch at depth, rewritten), axis). */
static psg_expr *concat_operands(psgi_built *b, psg_mutator *m, node_vec *branches, size_t n, size_t depth,
                                 uint32_t k, int axis) {
  psg_expr *small[16], **fields = n <= 16 ? small : psgi_alloc(b->ctx, n * sizeof *fields);
  if (!fields) return own(b, psgi_nomem(b->ctx), NULL);
  bool ok = true;
  for (size_t j = 0; j < n; j++) ok &= (fields[j] = psgi_combine_rewritten(b, m, branches[j].data[depth]->kids[k])) != NULL;
  psg_expr *tuple = ok ? psgi_combine_tuple(b, fields, n) : NULL;
  if (fields != small) psgi_free(b->ctx, fields);
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"axis"}, (psg_attr *[]){psgi_build_attr_int(b, axis)}, 1);
  return tuple && attrs ? psgi_build_call(b, "concatenate", &tuple, 1, attrs) : NULL;
}

psg_expr *psgi_combine_slice(psgi_built *b, psg_expr *data, int rank, int axis, int64_t start, int64_t size) {
  int64_t begin[PSG_MAX_RANK], end[PSG_MAX_RANK], strides[PSG_MAX_RANK];
  for (int i = 0; i < rank; i++) begin[i] = 0, end[i] = -1, strides[i] = 1;
  begin[axis] = start, end[axis] = size;
  size_t n = (size_t)rank;
  psg_attr *mode = NULL;
  psg_status st = psg_attr_string(b->ctx, "size", 4, &mode);
  if (st && !b->status) b->status = st;
  psg_attrs *attrs = psgi_build_attrs(b, (const char *[]){"begin", "end", "strides", "slice_mode"},
                                      (psg_attr *[]){psgi_build_attr_ints(b, begin, n), psgi_build_attr_ints(b, end, n),
                                                     psgi_build_attr_ints(b, strides, n), mode},
                                      4);
  return attrs ? psgi_build_call(b, "strided_slice", &data, 1, attrs) : NULL;
}

/* Combines one group (TVM's CombineBranches); the ends of the branches get
 * their slices as mutator results. */
static psg_status combine_group(combiner *c, psg_mutator *m, node_vec *branches, size_t n) {
  const psgi_combine_spec *spec = c->spec;
  const psg_expr *first = branches[0].data[0];
  int channel_pos = spec->channel_pos(first);
  psgi_built b;
  psgi_built_init(&b, c->ctx, psgi_expr_span_ref(first));
  int64_t channels = 0;
  for (size_t j = 0; j < n; j++) channels += psgi_tensor_type_of(branches[j].data[0])->dims[channel_pos];
  psg_expr *combined = NULL;
  if (spec->combined_call) {
    combined = spec->combined_call(&b, m, branches, n);
  } else {
    psg_expr *weight = concat_operands(&b, m, branches, n, 0, 2, spec->weight_axis(first));
    psg_expr *data = psgi_combine_rewritten(&b, m, first->kids[1]);
    /* the head's attrs may be NULL (all defaults) */
    psg_attrs *attrs = spec->combined_attrs ? spec->combined_attrs(&b, first, channels) : first->u.attrs;
    combined = weight && data && (attrs || !spec->combined_attrs)
                   ? psgi_build_call(&b, spec->op, (psg_expr *[]){data, weight}, 2, attrs)
                   : NULL;
  }
  size_t depth = branches[0].len;
  for (size_t j = 1; j < n; j++)
    if (branches[j].len < depth) depth = branches[j].len;
  size_t level = 1;
  for (; combined && level < depth && level_matches(c, branches, n, level, channel_pos); level++) {
    const psg_expr *call = branches[0].data[level];
    int parent = arg_index(call, branches[0].data[level - 1]);
    int out_rank = psgi_tensor_type_of(call)->n;
    psg_expr *args[16];
    if (call->nkids - 1 > 16) break;
    for (uint32_t k = 1; k < call->nkids; k++)
      args[k - 1] = (int)k == parent ? combined
                    : spec->follow_operand ? spec->follow_operand(&b, m, branches, n, level, k, (uint32_t)parent)
                    : concat_operands(&b, m, branches, n, level, k,
                                      spec->follow_last_axis
                                          ? -1
                                          : channel_pos - out_rank + psgi_tensor_type_of(call->kids[k])->n);
    psg_expr *next = NULL;
    psg_status st = b.status ? b.status : psg_call_create(c->ctx, call->kids[0], args, call->nkids - 1, call->u.attrs,
                                                          psgi_expr_span_ref(call), &next);
    combined = own(&b, st, next);
  }
  psg_expr *small[16], **parts = n <= 16 ? small : psgi_alloc(c->ctx, n * sizeof *parts);
  if (!parts && !b.status) b.status = psgi_nomem(c->ctx);
  if (spec->outputs && combined && !b.status) {
    if (!spec->outputs(&b, branches, n, level - 1, combined, parts) && !b.status) b.status = psgi_nomem(c->ctx);
  } else {
    int64_t start = 0;
    for (size_t j = 0; combined && !b.status && j < n; j++) {
      int64_t size = psgi_tensor_type_of(branches[j].data[0])->dims[channel_pos];
      parts[j] = psgi_combine_slice(&b, combined, channel_pos + 1, channel_pos, start, size);
      start += size;
    }
  }
  for (size_t j = 0; combined && !b.status && j < n; j++)
    if (parts[j]) b.status = psg_mutator_set_result(m, branches[j].data[level - 1], parts[j]);
  if (parts != small) psgi_free(c->ctx, parts);
  psg_status st = b.status;
  psgi_built_fini(&b);
  return st;
}

/* Groups each root's calls as TVM's BranchGroupFinder does (each call joins
 * the first group of its root whose head it can be combined with) and
 * combines the groups of at least `min_branches`. */
static psg_status combine_root(combiner *c, psg_mutator *m, node_vec *convs, int64_t min_branches) {
  psg_status st = PSG_OK;
  size_t n = convs->len;
  bool *taken = psgi_alloc(c->ctx, n * sizeof *taken);
  node_vec *branches = psgi_alloc(c->ctx, n * sizeof *branches);
  if (!taken || !branches) st = psgi_nomem(c->ctx);
  else memset(taken, 0, n * sizeof *taken), memset(branches, 0, n * sizeof *branches);
  for (size_t head = 0; !st && head < n; head++) {
    if (taken[head]) continue;
    size_t count = 0;
    for (size_t j = head; !st && j < n; j++) {
      if (taken[j] || !c->spec->can_combine(convs->data[head], convs->data[j])) continue;
      taken[j] = true;
      st = make_branch(c, convs->data[j], &branches[count++]);
    }
    if (!st && count >= 2 && (int64_t)count >= min_branches) st = combine_group(c, m, branches, count);
  }
  for (size_t j = 0; branches && j < n; j++) PSGI_VEC_FREE(c->ctx, &branches[j]);
  psgi_free(c->ctx, branches);
  psgi_free(c->ctx, taken);
  return st;
}

psg_status psgi_combine_parallel(const psgi_combine_spec *spec, psg_expr *func, int64_t min_branches,
                                 psg_expr **out) {
  *out = NULL;
  psg_status st = psgi_check_typed(func, spec->pass_name);
  if (st) return st;
  combiner c = {.ctx = func->ctx, .spec = spec};
  psgi_map_init(&c.users, c.ctx);
  psgi_map_init(&c.parent, c.ctx);
  psgi_map_init(&c.roots, c.ctx);
  psg_visitor v = {NULL, scan, &c};
  st = psg_visit(c.ctx, &v, func);
  psg_mutator m;
  psg_mutator_init(&m, c.ctx);
  /* Groups in the post order of their roots; a group's operands are
   * rewritten (with earlier groups combined) before its ends are replaced,
   * so a group never reads its own output. */
  for (size_t r = 0; !st && r < c.root_convs.len; r++) st = combine_root(&c, &m, &c.root_convs.data[r], min_branches);
  if (!st) st = psg_mutate(&m, func, out);
  psg_mutator_fini(&m);
  for (size_t r = 0; r < c.root_convs.len; r++) PSGI_VEC_FREE(c.ctx, &c.root_convs.data[r]);
  PSGI_VEC_FREE(c.ctx, &c.root_convs);
  psgi_map_fini(&c.roots);
  psgi_map_fini(&c.parent);
  psgi_map_fini(&c.users);
  return st;
}

