/* Passage — the copy template of tir.UnrollLoop (src/tir/transforms/
 * copy_template.c) against the substitution it replaces
 * (psgi_tir_substitute): for the body of every loop of 300 random loop
 * nests and several values, and on hand-built cases (the var as the root,
 * no use of the var, a shared subtree holding the var, a buffer holding
 * it), the copy is structurally equal to the substitution's result, shares
 * every subtree without the var with the body, and keeps a shared holder
 * shared. */
#include "tir/transforms/copy_template.h"
#include "tir_loop_check.h"

typedef struct loops {
  PSGI_VEC(const psg_tir_node *) fors;
} loops;

static int collect_for(psg_tir_visitor *v, const psg_tir_node *n) {
  loops *l = v->user;
  if (psg_tir_kind(n) == PSG_TIR_FOR && !PSGI_VEC_PUSH(TB.ctx, &l->fors, n)) return PSG_VISIT_ABORT;
  return PSG_VISIT_CONTINUE;
}

/* Whether `copy` reuses `body`'s nodes wherever the substitution kept them:
 * walked side by side with `subst` (structurally equal to copy), a node the
 * substitution left as the body's own must be the body's own in the copy. */
static bool same_sharing(const psg_tir_node *body, const psg_tir_node *subst, const psg_tir_node *copy) {
  const psg_tir_node *st[3 * 4096];
  size_t len = 0;
  st[len++] = body, st[len++] = subst, st[len++] = copy;
  while (len) {
    const psg_tir_node *c = st[--len], *s = st[--len], *b = st[--len];
    if ((s == b) != (c == b)) return false;
    if (s == b || s->nkids != c->nkids || b->nkids != s->nkids) continue;
    for (uint32_t i = 0; i < s->nkids && len + 3 <= sizeof st / sizeof *st; i++)
      st[len++] = b->kids[i], st[len++] = s->kids[i], st[len++] = c->kids[i];
  }
  return true;
}

/* The copy of `body` with `var` := value against psgi_tir_substitute's. */
static void check_copy(const psg_tir_node *body, const psg_tir_node *var, psg_tir_node *value, const char *label) {
  psgi_tir_copy_template t;
  psg_tir_node *copy = NULL, *subst = NULL;
  CHECK_OK(psgi_tir_copy_template_init(TB.ctx, body, var, &t));
  CHECK_OK(psgi_tir_copy_template_apply(&t, value, &copy));
  CHECK_OK(psgi_tir_substitute(TB.ctx, body, var, value, &subst));
  bool ok = copy && subst && psg_tir_structural_equal(copy, subst) && same_sharing(body, subst, copy);
  CHECK(ok);
  if (!ok) fprintf(stderr, "  copy differs from the substitution: %s\n", label);
  psg_tir_release(copy);
  psg_tir_release(subst);
  psgi_tir_copy_template_fini(&t);
}

static void test_random_bodies(void) {
  tb_init(check_ctx());
  static const char *const kinds[] = {"range", "T.serial", "T.unroll"};
  int checked = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    char *text = lc_random_func(seed, kinds, 3);
    psg_tir_prim_func *f = lc_parse(text);
    loops l = {0};
    psg_tir_visitor v = {.pre = collect_for, .user = &l};
    if (f) CHECK_OK(psg_tir_visit(TB.ctx, &v, psg_tir_get_body(f)));
    for (size_t i = 0; i < l.fors.len; i++) {
      const psg_tir_node *loop = l.fors.data[i];
      psg_tir_expr *var = psg_tir_get_var(loop);
      psg_tir_node *values[] = {tb_int(psg_tir_dtype_of(var), 0), tb_int(psg_tir_dtype_of(var), 3),
                                tb_add(tb_var("w", psg_tir_dtype_of(var)), tb_int(psg_tir_dtype_of(var), 1))};
      for (size_t k = 0; k < sizeof values / sizeof *values; k++) {
        char label[64];
        snprintf(label, sizeof label, "seed %llu loop %zu value %zu", (unsigned long long)seed, i, k);
        check_copy(psg_tir_get_body(loop), var, values[k], label);
        checked++;
      }
    }
    PSGI_VEC_FREE(TB.ctx, &l.fors);
    psg_tir_release(f);
    free(text);
    tb_fini();
  }
  CHECK(checked > 1000);
  CHECK_CTX_CLEAN(TB.ctx);
}

static void test_edge_cases(void) {
  tb_init(check_ctx());
  psg_tir_expr *i = tb_var("i", TB_I32), *j = tb_var("j", TB_I32), *seven = tb_int(TB_I32, 7);
  int64_t shape[] = {16};
  psg_tir_buffer *A = tb_buf("A", TB_I32, shape, 1);
  /* the var itself, and a tree without it */
  check_copy(i, i, seven, "the var as the root");
  psg_tir_node *no_use = TB_STORE(A, tb_add(j, seven), j);
  check_copy(no_use, i, seven, "no use of the var");
  psgi_tir_copy_template t;
  psg_tir_node *copy = NULL;
  CHECK_OK(psgi_tir_copy_template_init(TB.ctx, no_use, i, &t));
  CHECK_OK(psgi_tir_copy_template_apply(&t, seven, &copy));
  CHECK(copy == no_use); /* kept whole */
  psg_tir_release(copy);
  psgi_tir_copy_template_fini(&t);
  /* a holder shared by two statements stays one node in the copy */
  psg_tir_expr *shared = tb_mul(tb_add(i, j), tb_add(i, j));
  psg_tir_node *seq = TB_SEQ(TB_STORE(A, shared, j), TB_STORE(A, tb_add(shared, j), tb_add(j, seven)),
                             TB_STORE(A, seven, i));
  check_copy(seq, i, tb_add(j, seven), "a shared holder");
  CHECK_OK(psgi_tir_copy_template_init(TB.ctx, seq, i, &t));
  CHECK_OK(psgi_tir_copy_template_apply(&t, seven, &copy));
  if (copy) {
    const psg_tir_node *v0 = psg_tir_seq_get(copy, 0)->kids[1], *v1 = psg_tir_seq_get(copy, 1)->kids[1]->kids[0];
    CHECK(v0 == v1 && v0 != shared);
  }
  psg_tir_release(copy);
  psgi_tir_copy_template_fini(&t);
  /* a buffer whose shape holds the var is rebuilt, as the substitution does */
  psg_tir_buffer *B = NULL;
  psg_tir_expr *bshape[] = {tb_add(i, seven)};
  CHECK_OK(psg_tir_buffer_decl(TB.ctx, "B", TB_I32, bshape, 1, NULL, NULL, &B));
  if (B) {
    check_copy(TB_STORE(B, j, j), i, seven, "a buffer over the var");
    psg_tir_release(B);
  }
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_random_bodies);
  RUN_TEST(test_edge_cases);
  return check_finish();
}
