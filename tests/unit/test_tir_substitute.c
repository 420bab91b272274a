/* Passage — psgi_tir_substitute_n (the rewrite walk, src/tir/transforms/
 * substitute.c) against the general mutator's substitution it replaced
 * (psgi_tir_substitute_n_mutator), on every PrimFunc of the TIR corpus
 * (tests/tir_corpus/cases) and 200 random loop nests: for each var of a
 * function, the body with that var replaced by `var + 1` (int vars) and by
 * a fresh var of its dtype, and all its int vars at once (the list with a
 * duplicate, whose first value wins, and a non-var entry, which matches
 * nothing: inline.c passes store indices as the vars). The two results
 * must be the same graph, not only structurally equal: walked side by side,
 * a node of the input (or the value) in one is that very node in the
 * other, and the nodes each made stand in a one-to-one correspondence, so
 * a subtree is shared in one exactly where it is in the other. Both must
 * fail alike where a rebuild is refused. */
#include "tir_equiv.h"
#include "tir/transforms/tir_transforms.h"
/* the corpus loader's model lowering is not used here (no ONNX in unit tests) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "corpus_load.h"

static size_t compared, changed, refused;

/* The nodes under root (each once). */
static int collect_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  psgi_map *seen = v->user;
  CHECK(psgi_map_put_ptr(seen, n, NULL) != NULL);
  return PSG_VISIT_CONTINUE;
}

/* a (the mutator's) and b (the rewrite walk's) side by side. */
static bool same_graph(const psgi_map *input, const psg_tir_node *a, const psg_tir_node *b) {
  psgi_map a2b, b2a;
  psgi_map_init(&a2b, TB.ctx);
  psgi_map_init(&b2a, TB.ctx);
  PSGI_VEC(const psg_tir_node *) st = {0};
  bool ok = PSGI_VEC_PUSH(TB.ctx, &st, a) && PSGI_VEC_PUSH(TB.ctx, &st, b);
  while (ok && st.len) {
    const psg_tir_node *y = st.data[--st.len], *x = st.data[--st.len];
    if (x == y) continue; /* the same node (of the input, the value, or a leaf) */
    /* two distinct nodes: both made by the substitution, never an input node */
    if (psgi_map_get_ptr(input, x) || psgi_map_get_ptr(input, y)) {
      ok = false;
      break;
    }
    psgi_map_entry *ex = psgi_map_get_ptr(&a2b, x), *ey = psgi_map_get_ptr(&b2a, y);
    if (ex || ey) { /* met before: the same partner both ways */
      ok = ex && ey && ex->value == y && ey->value == x;
      continue;
    }
    psgi_map_entry *nx = psgi_map_put_ptr(&a2b, x, NULL), *ny = psgi_map_put_ptr(&b2a, y, NULL);
    if (!nx || !ny) {
      ok = false;
      break;
    }
    nx->value = (void *)y;
    ny->value = (void *)x;
    ok = x->kind == y->kind && x->nkids == y->nkids && x->dtype == y->dtype && x->flags == y->flags &&
         x->refcount == y->refcount && psg_tir_structural_equal(x, y);
    for (uint32_t i = 0; ok && i < x->nkids; i++)
      ok = PSGI_VEC_PUSH(TB.ctx, &st, x->kids[i]) && PSGI_VEC_PUSH(TB.ctx, &st, y->kids[i]);
  }
  PSGI_VEC_FREE(TB.ctx, &st);
  psgi_map_fini(&a2b);
  psgi_map_fini(&b2a);
  return ok;
}

static void compare(const char *what, const psgi_map *input, const psg_tir_node *body, psg_tir_node *const *vars,
                    psg_tir_node *const *values, size_t n) {
  psg_tir_node *a = NULL, *b = NULL;
  size_t mark = psg_ctx_diag_count(TB.ctx);
  psg_status sa = psgi_tir_substitute_n_mutator(TB.ctx, body, vars, values, n, &a);
  psg_status sb = psgi_tir_substitute_n(TB.ctx, body, vars, values, n, &b);
  psgi_diag_truncate(TB.ctx, mark);
  bool ok = sa == sb && (sa ? !a && !b : a && b && same_graph(input, a, b));
  if (!ok) printf("FAIL %s: the substitution of %zu var(s), first '%s', differs (status %d / %d)\n", what, n,
                  vars[0]->u.var.name, (int)sa, (int)sb);
  CHECK(ok);
  compared++;
  refused += sa != PSG_OK;
  changed += !sa && a != body;
  psg_tir_release(a);
  psg_tir_release(b);
}

static void compare_func(const char *what, psg_tir_prim_func *f) {
  const psg_tir_node *body = ((psg_tir_node *)f)->kids[0];
  psgi_map input;
  psgi_map_init(&input, TB.ctx);
  psg_tir_visitor v = {.pre = collect_pre, .user = &input};
  CHECK_OK(psg_tir_visit(TB.ctx, &v, (psg_tir_node *)f)); /* the params' vars and buffers too */
  PSGI_VEC(psg_tir_node *) ints = {0}, plus1 = {0};
  for (size_t i = 0; i < input.len; i++) {
    psg_tir_node *var = (psg_tir_node *)input.entries[i].key, *fresh = NULL, *one = NULL, *sum = NULL;
    if (!psgi_tir_is_var_kind(var->kind)) continue;
    psg_tir_dtype dt = psg_tir_dtype_of(var);
    CHECK_OK(psg_tir_var_create(TB.ctx, "fresh", dt, NULL, NULL, &fresh));
    if (fresh) compare(what, &input, body, &var, &fresh, 1);
    psg_tir_release(fresh);
    if (!psg_tir_dtype_is_int(dt) || psg_tir_dtype_lanes(dt) != 1) continue;
    CHECK_OK(psg_tir_int_imm_create(TB.ctx, dt, 1, NULL, &one));
    if (one) CHECK_OK(psg_tir_binary_create(TB.ctx, PSG_TIR_ADD, var, one, NULL, &sum));
    psg_tir_release(one);
    if (!sum) continue;
    compare(what, &input, body, &var, &sum, 1);
    CHECK(PSGI_VEC_PUSH(TB.ctx, &ints, var) && PSGI_VEC_PUSH(TB.ctx, &plus1, sum));
  }
  if (ints.len) {
    compare(what, &input, body, ints.data, plus1.data, ints.len);
    /* a duplicate (its first value wins) and an entry that is no var */
    psg_tir_node *v2[3] = {plus1.data[0], ints.data[0], ints.data[0]}, *x2[3] = {ints.data[0], plus1.data[0], ints.data[0]};
    compare(what, &input, body, v2, x2, 3);
  }
  for (size_t i = 0; i < plus1.len; i++) psg_tir_release(plus1.data[i]);
  PSGI_VEC_FREE(TB.ctx, &ints);
  PSGI_VEC_FREE(TB.ctx, &plus1);
  psgi_map_fini(&input);
}

static void test_corpus(void) {
  size_t nfuncs = 0;
  CHECK(corpus_each_func(TB.ctx, PASSAGE_SOURCE_DIR "/tests/tir_corpus/cases", compare_func, &nfuncs) == 0);
  CHECK(nfuncs >= 50);
}

static void test_random_nests(void) {
  uint64_t seed = 2440;
  for (int i = 0; i < 200; i++) {
    psg_tir_prim_func *f = eq_random_func(&seed, i % 2 == 1);
    if (f) compare_func(i % 2 ? "random int64" : "random int32", f);
  }
}

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_corpus);
  RUN_TEST(test_random_nests);
  printf("compared %zu substitutions: %zu changed the body, %zu refused by both\n", compared, changed, refused);
  CHECK(compared > 1000 && changed > 500);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
