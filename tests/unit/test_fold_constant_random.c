/* Semantic property test of FoldConstant (issue 5): for a few hundred seeded
 * random programs mixing constants and parameters through elementwise,
 * broadcasting, reshape, transpose and reduce ops, the interpreter's outputs
 * before and after FoldConstant are bit-identical (the folder and the
 * interpreter share the kernels), and folding does remove calls. */
#include "ops_check.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

enum { PROGRAMS = 300, MAX_NODES = 24, MAX_POOL = 64 };

typedef struct rng {
  uint64_t s;
} rng;

static uint32_t next(rng *r) {
  r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(r->s >> 33);
}
static int pick(rng *r, int n) { return (int)(next(r) % (uint32_t)n); }

/* An expression of the program with its static shape, and whether it is
 * built from constants only. */
typedef struct node {
  psg_expr *e;
  int nd;
  int64_t dims[3];
  bool constant;
} node;

typedef struct gen {
  psg_ctx *ctx;
  rng r;
  node pool[MAX_POOL];
  int n;
} gen;

static int64_t numel(const node *a) {
  int64_t k = 1;
  for (int i = 0; i < a->nd; i++) k *= a->dims[i];
  return k;
}

static psg_tensor *random_tensor(gen *g, int nd, const int64_t *dims) {
  psg_tensor *t = NULL;
  CHECK_OK(psg_tensor_create(g->ctx, PSG_DTYPE_FLOAT32, dims, nd, NULL, &t));
  float *d = (float *)psg_tensor_data(t);
  for (int64_t i = 0; i < psg_tensor_numel(t); i++) d[i] = (float)(pick(&g->r, 2001) - 1000) / 250.0f;
  return t;
}

static void random_shape(gen *g, node *a) {
  a->nd = pick(&g->r, 4);
  for (int i = 0; i < a->nd; i++) a->dims[i] = 1 + pick(&g->r, 3);
}

static void add_node(gen *g, psg_expr *e, int nd, const int64_t *dims, bool constant) {
  node *a = &g->pool[g->n++];
  a->e = e;
  a->nd = nd;
  if (nd) memcpy(a->dims, dims, (size_t)nd * sizeof *dims);
  a->constant = constant;
}

static void add_constant(gen *g) {
  node a;
  random_shape(g, &a);
  psg_tensor *t = random_tensor(g, a.nd, a.dims);
  psg_expr *c = NULL;
  CHECK_OK(psg_constant_create(g->ctx, t, NULL, &c));
  psg_tensor_release(t);
  add_node(g, c, a.nd, a.dims, true);
}

/* Operands favour constants half of the time, so constant subgraphs grow. */
static node *operand(gen *g) {
  if (pick(&g->r, 2)) {
    int idx[MAX_POOL], k = 0;
    for (int i = 0; i < g->n; i++)
      if (g->pool[i].constant) idx[k++] = i;
    if (k) return &g->pool[idx[pick(&g->r, k)]];
  }
  return &g->pool[pick(&g->r, g->n)];
}

static bool broadcast(const node *a, const node *b, int *nd, int64_t *dims) {
  *nd = a->nd > b->nd ? a->nd : b->nd;
  for (int i = 0; i < *nd; i++) {
    int ia = a->nd - *nd + i, ib = b->nd - *nd + i;
    int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    dims[i] = da > db ? da : db;
  }
  return true;
}

static psg_expr *call(gen *g, const char *op, psg_expr **args, size_t n, psg_attrs *attrs) {
  psg_expr *o = NULL, *e = NULL;
  CHECK_OK(psg_op_get(g->ctx, op, &o));
  CHECK_OK(psg_call_create(g->ctx, o, args, n, attrs, NULL, &e));
  psg_expr_release(o);
  psg_attrs_release(attrs);
  return e;
}

/* Adds one random op call over the pool. */
static void add_call(gen *g) {
  static const char *const unary[] = {"negative", "nn.relu", "tanh", "sigmoid", "exp", "abs", "copy"};
  static const char *const binary[] = {"add", "subtract", "multiply", "maximum", "minimum", "divide"};
  static const char *const reduce[] = {"sum", "mean", "max", "min"};
  node *a = operand(g);
  int nd = 0;
  int64_t dims[3] = {0};
  psg_expr *e = NULL;
  bool constant = a->constant;
  switch (pick(&g->r, 5)) {
  case 0:
    e = call(g, unary[pick(&g->r, COUNT(unary))], &a->e, 1, NULL);
    nd = a->nd;
    memcpy(dims, a->dims, sizeof dims);
    break;
  case 1: {
    node *b = NULL;
    for (int tries = 0; tries < 8 && !b; tries++) {
      node *c = operand(g);
      if (broadcast(a, c, &nd, dims)) b = c;
    }
    if (!b) b = a, nd = a->nd, memcpy(dims, a->dims, sizeof dims);
    psg_expr *args[2] = {a->e, b->e};
    e = call(g, binary[pick(&g->r, COUNT(binary))], args, 2, NULL);
    constant = a->constant && b->constant;
    break;
  }
  case 2: { /* reshape: flatten, or the dims reversed */
    ab b = ab_init(g->ctx);
    bool flat = pick(&g->r, 2) || a->nd < 2;
    nd = flat ? 1 : a->nd;
    if (flat) dims[0] = numel(a);
    else
      for (int i = 0; i < nd; i++) dims[i] = a->dims[nd - 1 - i];
    if (nd == 1) ab_ints(&b, "newshape", 1, (int)dims[0]);
    else if (nd == 2) ab_ints(&b, "newshape", 2, (int)dims[0], (int)dims[1]);
    else ab_ints(&b, "newshape", 3, (int)dims[0], (int)dims[1], (int)dims[2]);
    e = call(g, "reshape", &a->e, 1, ab_done(&b));
    break;
  }
  case 3: /* transpose with axes=None: the axes reversed */
    nd = a->nd;
    for (int i = 0; i < nd; i++) dims[i] = a->dims[nd - 1 - i];
    e = call(g, "transpose", &a->e, 1, NULL);
    break;
  case 4: {
    if (a->nd == 0) {
      e = call(g, "negative", &a->e, 1, NULL);
      break;
    }
    ab b = ab_init(g->ctx);
    int axis = pick(&g->r, a->nd);
    bool keep = pick(&g->r, 2);
    ab_ints(&b, "axis", 1, axis);
    ab_bool(&b, "keepdims", keep);
    for (int i = 0; i < a->nd; i++) {
      if (i == axis && !keep) continue;
      dims[nd++] = i == axis ? 1 : a->dims[i];
    }
    e = call(g, reduce[pick(&g->r, COUNT(reduce))], &a->e, 1, ab_done(&b));
    break;
  }
  }
  add_node(g, e, nd, dims, constant);
}

static psg_status count_call(psg_visitor *v, const psg_expr *e) {
  if (psg_expr_kind(e) == PSG_EXPR_CALL) (*(long *)v->user)++;
  return PSG_OK;
}

static long calls_in(psg_ctx *ctx, const psg_module *m) {
  long n = 0;
  psg_visitor v = {NULL, count_call, &n};
  CHECK_OK(psg_visit(ctx, &v, psg_module_lookup(m, "main")));
  return n;
}

static bool same_outputs(psg_tensor **a, size_t na, psg_tensor **b, size_t nb) {
  if (na != nb) return false;
  for (size_t i = 0; i < na; i++) {
    if (psg_tensor_dtype(a[i]) != psg_tensor_dtype(b[i]) || psg_tensor_ndim(a[i]) != psg_tensor_ndim(b[i]) ||
        psg_tensor_nbytes(a[i]) != psg_tensor_nbytes(b[i]))
      return false;
    for (int k = 0; k < psg_tensor_ndim(a[i]); k++)
      if (psg_tensor_dim(a[i], k) != psg_tensor_dim(b[i], k)) return false;
    if (memcmp(psg_tensor_data(a[i]), psg_tensor_data(b[i]), psg_tensor_nbytes(a[i])) != 0) return false;
  }
  return true;
}

static void release_outputs(psg_tensor **t, size_t n) {
  for (size_t i = 0; i < n; i++) psg_tensor_release(t[i]);
  psg_free(t);
}

/* One program: 1-3 parameters, 1-3 constants, then calls; the function
 * returns a tuple of the last few nodes (so dead constant chains matter
 * too). Returns whether folding removed calls. */
static bool run_program(psg_ctx *ctx, psg_pass *fold, uint64_t seed) {
  gen g;
  memset(&g, 0, sizeof g);
  g.ctx = ctx;
  g.r.s = seed * 0x9E3779B97F4A7C15ULL + 1;
  int nparams = 1 + pick(&g.r, 3);
  psg_expr *params[3] = {NULL, NULL, NULL};
  psg_tensor *inputs[3] = {NULL, NULL, NULL};
  for (int i = 0; i < nparams; i++) {
    node a;
    random_shape(&g, &a);
    const psg_type *t = NULL;
    CHECK_OK(psg_type_tensor(ctx, a.dims, a.nd, PSG_DTYPE_FLOAT32, &t));
    char name[8];
    snprintf(name, sizeof name, "p%d", i);
    CHECK_OK(psg_var_create(ctx, name, t, NULL, &params[i]));
    psg_expr_retain(params[i]);
    add_node(&g, params[i], a.nd, a.dims, false);
    inputs[i] = random_tensor(&g, a.nd, a.dims);
  }
  int nconst = 1 + pick(&g.r, 3);
  for (int i = 0; i < nconst; i++) add_constant(&g);
  int ncalls = 4 + pick(&g.r, MAX_NODES - 4);
  for (int i = 0; i < ncalls; i++) add_call(&g);
  int nout = 1 + pick(&g.r, 3);
  psg_expr *outs[3], *body = NULL, *fn = NULL, *gv = NULL;
  for (int i = 0; i < nout; i++) outs[i] = g.pool[g.n - 1 - i].e;
  CHECK_OK(psg_tuple_create(ctx, outs, (size_t)nout, NULL, &body));
  CHECK_OK(psg_function_create(ctx, params, (size_t)nparams, body, NULL, NULL, NULL, &fn));
  CHECK_OK(psg_global_var_create(ctx, "main", NULL, &gv));
  psg_module *empty = NULL, *m = NULL, *folded = NULL;
  CHECK_OK(psg_module_create(ctx, &empty));
  CHECK_OK(psg_module_add(empty, gv, fn, &m));
  psg_tensor **before = NULL, **after = NULL;
  size_t nb = 0, na = 0;
  bool removed = false;
  psg_status st = psg_eval(ctx, m, "main", inputs, (size_t)nparams, &before, &nb);
  CHECK_OK(st);
  if (!st) CHECK_OK(psg_pass_run(fold, m, NULL, &folded));
  if (folded) {
    CHECK_OK(psg_eval(ctx, folded, "main", inputs, (size_t)nparams, &after, &na));
    bool same = same_outputs(before, nb, after, na);
    CHECK(same);
    if (!same) fprintf(stderr, "  program %llu: outputs differ after FoldConstant\n", (unsigned long long)seed);
    removed = calls_in(ctx, folded) < calls_in(ctx, m);
  }
  if (psg_ctx_diag_count(ctx)) {
    for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
    CHECK(!"diagnostics from a well-formed program");
    psg_ctx_clear_diags(ctx);
  }
  release_outputs(before, nb);
  release_outputs(after, na);
  psg_module_release(folded);
  psg_module_release(m);
  psg_module_release(empty);
  psg_expr_release(gv);
  psg_expr_release(fn);
  psg_expr_release(body);
  for (int i = 0; i < g.n; i++) psg_expr_release(g.pool[i].e);
  for (int i = 0; i < nparams; i++) {
    psg_expr_release(params[i]);
    psg_tensor_release(inputs[i]);
  }
  return removed;
}

static void test_random_programs(void) {
  psg_ctx *ctx = check_ctx();
  psg_pass *fold = NULL;
  CHECK_OK(psg_pass_get(ctx, "FoldConstant", NULL, &fold));
  int folded = 0;
  for (uint64_t seed = 1; seed <= PROGRAMS; seed++) folded += run_program(ctx, fold, seed);
  /* Half the operands are constant: most programs have something to fold. */
  CHECK(folded > PROGRAMS / 2);
  printf("  %d of %d programs had calls folded\n", folded, PROGRAMS);
  psg_pass_release(fold);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_random_programs);
  return check_finish();
}
