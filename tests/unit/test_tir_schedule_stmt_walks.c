/* Passage — the reduction check of vectorize / parallel on the statement
 * walk (src/tir/schedule/loops.c, design.md 245) against the visitor's walk
 * it replaced (kept here as the reference: every node visited, expressions
 * skipped, an Allocate under the loop making its buffer private, the first
 * store whose indices do not use the loop var refused), for every loop of
 * the TIR corpus (tests/tir_corpus/cases) and of 200 random nests: the
 * primitive refuses exactly when the reference finds a store, and names
 * that store's buffer; both answers must occur. */
#include "tir/schedule/schedule_internal.h"
#include "tir_equiv.h"
/* the corpus loader's model lowering is not used here (no ONNX in unit tests) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "corpus_load.h"

static size_t refused, accepted;

typedef struct ref_check {
  const psg_tir_node *var, *bad;
  const psg_tir_node *local[8];
  size_t nlocal;
} ref_check;

static bool uses(const psg_tir_node *e, const psg_tir_node *var) {
  bool u = false;
  CHECK_OK(psgi_sch_uses_var(TB.ctx, e, var, &u));
  return u;
}

static int ref_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  ref_check *rc = v->user;
  if (!psgi_tir_is_stmt_kind(n->kind)) return PSG_VISIT_SKIP_CHILDREN;
  if (n->kind == PSG_TIR_ALLOCATE && rc->nlocal < 8) rc->local[rc->nlocal++] = n->kids[0];
  if (n->kind != PSG_TIR_BUFFER_STORE) return PSG_VISIT_CONTINUE;
  for (size_t i = 0; i < rc->nlocal; i++)
    if (n->kids[0]->kids[0] == rc->local[i]) return PSG_VISIT_SKIP_CHILDREN;
  bool u = false;
  for (size_t i = 0; i < psgi_tir_num_indices(n) && !u; i++) u = uses(psgi_tir_indices(n)[i], rc->var);
  if (!u) rc->bad = n;
  return u ? PSG_VISIT_SKIP_CHILDREN : PSG_VISIT_ABORT;
}

typedef struct loop_list {
  PSGI_VEC(const psg_tir_node *) fors;
} loop_list;

static int collect(psg_tir_visitor *v, const psg_tir_node *n) {
  loop_list *l = v->user;
  if (n->kind == PSG_TIR_FOR) CHECK(PSGI_VEC_PUSH(TB.ctx, &l->fors, n));
  return PSG_VISIT_CONTINUE;
}

static void compare_func(const char *what, psg_tir_prim_func *f) {
  loop_list l = {0};
  psg_tir_visitor v = {.pre = collect, .user = &l};
  CHECK_OK(psg_tir_visit(TB.ctx, &v, ((psg_tir_node *)f)->kids[0]));
  for (size_t i = 0; i < l.fors.len; i++) {
    const psg_tir_node *loop = l.fors.data[i];
    ref_check rc = {.var = loop->kids[0]};
    psg_tir_visitor rv = {.pre = ref_pre, .user = &rc};
    CHECK_OK(psg_tir_visit(TB.ctx, &rv, loop->kids[3]));
    for (int par = 0; par < 2; par++) {
      psg_tir_schedule *s = NULL;
      CHECK_OK(psg_tir_schedule_create(f, &s));
      if (!s) return;
      s->unchecked = true; /* the check alone decides (no well-formedness check of the result) */
      size_t mark = psg_ctx_diag_count(TB.ctx);
      psg_tir_expr *var = loop->kids[0];
      psg_status st = par ? psg_tir_schedule_parallel(s, var) : psg_tir_schedule_vectorize(s, var);
      const psg_diag *d = psg_ctx_diag_count(TB.ctx) > mark ? psg_ctx_get_last_error(TB.ctx) : NULL;
      bool same = rc.bad ? st == PSG_ERR_INVALID_ARGUMENT && d && strstr(psg_diag_message(d), "reduction loop") &&
                               strstr(psg_diag_message(d), rc.bad->kids[0]->u.buf.name)
                         : st == PSG_OK || (d && !strstr(psg_diag_message(d), "reduction loop"));
      if (!same) printf("FAIL %s: loop '%s': the reference %s, the primitive says %d (%s)\n", what,
                        var->u.var.name, rc.bad ? rc.bad->kids[0]->u.buf.name : "accepts", (int)st,
                        d ? psg_diag_message(d) : "");
      CHECK(same);
      refused += rc.bad != NULL;
      accepted += rc.bad == NULL;
      psgi_diag_truncate(TB.ctx, mark);
      psg_tir_schedule_release(s);
    }
  }
  PSGI_VEC_FREE(TB.ctx, &l.fors);
}

static void test_corpus(void) {
  size_t nfuncs = 0;
  CHECK(corpus_each_func(TB.ctx, PASSAGE_SOURCE_DIR "/tests/tir_corpus/cases", compare_func, &nfuncs) == 0);
  CHECK(nfuncs >= 50);
}

static void test_random_nests(void) {
  uint64_t seed = 2450;
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
  printf("reduction checks: %zu refused, %zu accepted\n", refused, accepted);
  CHECK(refused > 20 && accepted > 100);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
