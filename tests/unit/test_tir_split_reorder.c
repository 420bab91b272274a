/* Passage — psgi_sch_split_reorder (src/tir/schedule/split_reorder.c): the
 * splits and the reorder of a nest in one rewrite against the primitives
 * one after another (psg_tir_schedule_split, then _reorder), on 400 random
 * nests: 1 to 5 loops of constant extents (some of them a range that
 * depends on an outer loop, some of them under a statement before the
 * nest, some holding an init + update reduction), up to three of the loops
 * split (by a dividing factor, sometimes one that does not divide: a
 * guard), and the loops after the splits in a random order (sometimes with
 * a loop left out, given twice or not in the nest). Both ways must give
 * the same status, the same printed function and structurally equal
 * functions; the one rewrite must be taken in most of the cases and never
 * when the primitives fail. Also the default schedule's conv2d nest. */
#include "tir/schedule/schedule_internal.h"
#include "tir_equiv.h"

static size_t fast, slow_ok, both_failed;

typedef struct nest_case {
  char text[4096];
  int nloops;
  int64_t ext[8];
} nest_case;

static void make_nest(uint64_t *seed, nest_case *c) {
  c->nloops = 1 + (int)(eq_rand(seed) % 5);
  static const int64_t exts[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
  bool dep = eq_rand(seed) % 6 == 0, before = eq_rand(seed) % 3 == 0, reduce = eq_rand(seed) % 3 == 0 && c->nloops > 1;
  int nsp = reduce ? c->nloops - 1 : c->nloops; /* B's dimensions */
  char ashape[128] = "", bshape[128] = "", idx[128] = "", zeros[64] = "", all[128] = "";
  size_t al = 0, bl = 0, il = 0, zl = 0, ll = 0;
  for (int i = 0; i < c->nloops; i++) {
    c->ext[i] = exts[eq_rand(seed) % 10];
    al += (size_t)snprintf(ashape + al, sizeof ashape - al, "%s%lld", i ? ", " : "", (long long)(c->ext[i] + 1));
    ll += (size_t)snprintf(all + ll, sizeof all - ll, "%si%d", i ? ", " : "", i);
    if (i >= nsp) continue;
    bl += (size_t)snprintf(bshape + bl, sizeof bshape - bl, "%s%lld", i ? ", " : "", (long long)(c->ext[i] + 1));
    il += (size_t)snprintf(idx + il, sizeof idx - il, "%si%d", i ? ", " : "", i);
    zl += (size_t)snprintf(zeros + zl, sizeof zeros - zl, "%s0", i ? ", " : "");
  }
  size_t n = (size_t)snprintf(c->text, sizeof c->text,
                              "# from tvm.script import tir as T\n\n@T.prim_func\n"
                              "def main(A: T.Buffer((%s,), \"float32\"), B: T.Buffer((%s,), \"float32\")):\n",
                              ashape, bshape);
  if (before)
    n += (size_t)snprintf(c->text + n, sizeof c->text - n, "    for z in range(3):\n        B[%s] = T.float32(0)\n", zeros);
  char ind[64] = "    ";
  for (int i = 0; i < c->nloops; i++) {
    if (dep && i == c->nloops - 1 && i > 0)
      n += (size_t)snprintf(c->text + n, sizeof c->text - n, "%sfor i%d in range(i%d + 1):\n", ind, i, i - 1);
    else
      n += (size_t)snprintf(c->text + n, sizeof c->text - n, "%sfor i%d in range(%lld):\n", ind, i, (long long)c->ext[i]);
    strcat(ind, "    ");
  }
  if (reduce)
    snprintf(c->text + n, sizeof c->text - n, "%sB[%s] = B[%s] + A[%s] * T.float32(2)\n", ind, idx, idx, all);
  else
    snprintf(c->text + n, sizeof c->text - n, "%sB[%s] = A[%s] * T.float32(2) + T.Cast(\"float32\", i0)\n", ind, all, all);
}

/* The loop var named `name` in f (the first For in pre-order). */
typedef struct named {
  const char *name;
  psg_tir_expr *var;
} named;

static int named_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  named *f = v->user;
  if (!f->var && n->kind == PSG_TIR_FOR && !strcmp(n->kids[0]->u.var.name, f->name)) f->var = n->kids[0];
  return PSG_VISIT_CONTINUE;
}

static psg_tir_expr *loop_named(psg_tir_prim_func *f, const char *name) {
  named nf = {name, NULL};
  psg_tir_visitor v = {.pre = named_pre, .user = &nf};
  CHECK_OK(psg_tir_visit(TB.ctx, &v, (psg_tir_node *)f));
  return nf.var;
}

typedef struct plan_spec {
  int nsplit, which[3];
  int64_t factor[3];
  int perm[20], nperm;
  int mode; /* 0: all loops; 1: one left out; 2: one twice; 3: a loop of another nest */
} plan_spec;

/* Runs spec on a schedule of f, the one rewrite allowed or not; the status
 * and the printed result (malloc'd, NULL on failure). */
static psg_status run(psg_tir_prim_func *f, const nest_case *c, const plan_spec *sp, bool slow, char **text,
                      psg_tir_prim_func **out, bool *taken) {
  psg_tir_schedule *s = NULL;
  CHECK_OK(psg_tir_schedule_create(f, &s));
  s->unchecked = true;
  psgi_sch_split_plan plans[3];
  size_t np = 0;
  psg_status st = PSG_OK;
  psg_tir_expr *after[20];
  size_t na = 0;
  size_t mark = psg_ctx_diag_count(TB.ctx);
  for (int i = 0; i < c->nloops; i++) {
    char nm[16];
    snprintf(nm, sizeof nm, "i%d", i);
    psg_tir_expr *v = loop_named(f, nm);
    int j = -1;
    for (int k = 0; k < sp->nsplit; k++)
      if (sp->which[k] == i) j = k;
    if (j < 0) {
      after[na++] = v;
      continue;
    }
    int64_t factors[2] = {0, sp->factor[j]};
    if (!st) st = psgi_sch_split_prepare(s, v, factors, 2, &plans[np]);
    if (!st) {
      after[na++] = plans[np].vars[0];
      after[na++] = plans[np].vars[1];
      np++;
    }
  }
  psg_tir_expr *order[20];
  size_t no = 0;
  for (int k = 0; k < sp->nperm && (size_t)k < na; k++) order[no++] = after[sp->perm[k] % na];
  if (sp->mode == 1 && no > 1) no--;
  if (sp->mode == 2 && no > 0) order[no++] = order[0];
  psg_tir_expr *other = NULL;
  if (sp->mode == 3) {
    CHECK_OK(psg_tir_var_create(TB.ctx, "elsewhere", psg_tir_dtype_int32(), NULL, NULL, &other));
    order[no++] = other;
  }
  psgi_sch_split_reorder_slow = slow;
  if (!st) st = psgi_sch_split_reorder(s, plans, np, order, no);
  *taken = psgi_sch_split_reorder_fast_taken;
  psgi_sch_split_reorder_slow = false;
  psgi_diag_truncate(TB.ctx, mark);
  for (size_t i = 0; i < np; i++) psgi_sch_split_plan_fini(&plans[i]);
  psg_tir_release(other);
  *text = NULL;
  *out = NULL;
  if (!st) {
    *text = eq_print(psg_tir_schedule_get_func(s));
    psg_tir_retain(*out = psg_tir_schedule_get_func(s));
  }
  psg_tir_schedule_release(s);
  return st;
}

static void compare_case(const nest_case *c, const plan_spec *sp, const char *label) {
  psg_tir_prim_func *f = eq_parse(c->text);
  if (!f) return;
  char *t1 = NULL, *t2 = NULL;
  psg_tir_prim_func *f1 = NULL, *f2 = NULL;
  bool taken1 = false, taken2 = false;
  psg_status s1 = run(f, c, sp, false, &t1, &f1, &taken1);
  psg_status s2 = run(f, c, sp, true, &t2, &f2, &taken2);
  bool ok = s1 == s2 && !taken2 && (s1 ? !taken1 : t1 && t2 && !strcmp(t1, t2) && psg_tir_structural_equal(f1, f2));
  if (!ok) printf("FAIL %s: one rewrite (status %d, taken %d) and primitives (status %d) differ\n%s\n--\n%s\n--\n%s\n",
                  label, (int)s1, (int)taken1, (int)s2, c->text, t1 ? t1 : "", t2 ? t2 : "");
  CHECK(ok);
  fast += taken1;
  slow_ok += !s1 && !taken1;
  both_failed += s1 && s2;
  free(t1);
  free(t2);
  psg_tir_release(f1);
  psg_tir_release(f2);
}

static void test_random(void) {
  uint64_t seed = 4611;
  for (int t = 0; t < 400; t++) {
    nest_case c;
    make_nest(&seed, &c);
    plan_spec sp = {0};
    sp.nsplit = (int)(eq_rand(&seed) % 4);
    if (sp.nsplit > c.nloops) sp.nsplit = c.nloops;
    for (int k = 0; k < sp.nsplit; k++) {
      sp.which[k] = (k + (int)(eq_rand(&seed) % 2)) % c.nloops; /* sometimes the same loop twice */
      int64_t e = c.ext[sp.which[k]], f = 1 + (int64_t)(eq_rand(&seed) % 8);
      if (eq_rand(&seed) % 5 && e % f) f = e % 2 == 0 ? 2 : e; /* mostly a dividing factor */
      sp.factor[k] = f;
    }
    sp.nperm = c.nloops + sp.nsplit;
    for (int k = 0; k < sp.nperm; k++) sp.perm[k] = k;
    for (int k = sp.nperm - 1; k > 0; k--) { /* a random permutation */
      int j = (int)(eq_rand(&seed) % (uint64_t)(k + 1)), x = sp.perm[k];
      sp.perm[k] = sp.perm[j];
      sp.perm[j] = x;
    }
    int r = (int)(eq_rand(&seed) % 10);
    sp.mode = r < 7 ? 0 : r - 6;
    char label[32];
    snprintf(label, sizeof label, "case %d", t);
    compare_case(&c, &sp, label);
  }
}

/* The default schedule's conv2d tile on a small NCHW conv: the one rewrite
 * is what it uses (the lowered models' outputs check the rest). */
static void test_conv_nest(void) {
  nest_case c = {.nloops = 7, .ext = {1, 16, 6, 32, 4, 3, 3}};
  snprintf(c.text, sizeof c.text,
           "# from tvm.script import tir as T\n\n@T.prim_func\n"
           "def main(A: T.Buffer((1, 4, 8, 34), \"float32\"), W: T.Buffer((16, 4, 3, 3), \"float32\"),"
           " B: T.Buffer((1, 16, 6, 32), \"float32\")):\n"
           "    for i0, i1, i2, i3, i4, i5, i6 in T.grid(1, 16, 6, 32, 4, 3, 3):\n"
           "        B[i0, i1, i2, i3] = B[i0, i1, i2, i3] + A[i0, i4, i2 + i5, i3 + i6] * W[i1, i4, i5, i6]\n");
  /* channel by 8, width by 16, height by 2; then ax0, h outer, c outer, w outer, r..., c, h, w inner */
  plan_spec sp = {.nsplit = 3, .which = {1, 3, 2}, .factor = {8, 16, 2}, .nperm = 10,
                  .perm = {0, 3, 1, 5, 7, 8, 9, 2, 4, 6}};
  size_t before = fast;
  compare_case(&c, &sp, "conv2d nest");
  CHECK(fast == before + 1);
}

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_random);
  RUN_TEST(test_conv_nest);
  printf("one rewrite %zu, the primitives (conditions not met) %zu, both failed %zu\n", fast, slow_ok, both_failed);
  CHECK(fast > 100 && slow_ok > 50 && both_failed > 50);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
