/* Passage — psgi_tir_stmt_slot (src/tir/transforms/stmt_slot.c), the one
 * table of statement children the explicit-stack TIR walkers share: the
 * slot of every statement kind's children (While's body included, an
 * absent else), none for leaves and expressions; and that VectorizeLoop,
 * which walks with it, now reaches a vectorized loop inside a While body. */
#include "tir/transforms/stmt_slot.h"
#include "tir/transforms/tir_transforms.h"
#include "tir_build.h"

/* The slots of n's statement children in order, -1 after the last; n_out
 * how many. */
static int slots(const psg_tir_node *n, int *out, int cap) {
  int k = 0;
  while (k < cap) {
    int s = psgi_tir_stmt_slot(n, (uint32_t)k);
    if (s < 0) break;
    out[k++] = s;
  }
  return k;
}

static void check_slots(const psg_tir_node *n, const int *want, int nwant, const char *label) {
  int got[8];
  int k = slots(n, got, 8);
  if (k != nwant) fprintf(stderr, "  %s: %d statement children, want %d\n", label, k, nwant);
  CHECK_EQ_INT(k, nwant);
  for (int i = 0; i < k && i < nwant; i++) {
    CHECK_EQ_INT(got[i], want[i]);
    CHECK(psg_tir_is_stmt(psg_tir_get_operand(n, (size_t)got[i]))); /* the slot holds a statement */
  }
}

static void test_every_kind(void) {
  tb_init(check_ctx());
  psg_tir_expr *i = tb_var("i", TB_I32), *x = tb_var("x", TB_I32), *c = tb_lt(i, tb_i32(3));
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 8);
  psg_tir_stmt *s1 = TB_STORE(A, i, i), *s2 = tb_eval(tb_i32(0));
  check_slots(tb_for(i, 8, s1), (int[]){3}, 1, "For");
  check_slots(tb_if(c, s1, s2), (int[]){1, 2}, 2, "IfThenElse with else");
  check_slots(tb_if(c, s1, NULL), (int[]){1}, 1, "IfThenElse without else");
  check_slots(tb_let_stmt(x, tb_i32(1), s1), (int[]){2}, 1, "LetStmt");
  check_slots(tb_alloc(TB_BUF("B", TB_I32, 4), s1), (int[]){2}, 1, "Allocate");
  check_slots(tb_assert(c, "m", s1), (int[]){2}, 1, "AssertStmt");
  check_slots(tb_decl(A, s1), (int[]){1}, 1, "DeclBuffer");
  check_slots(tb_attr("pragma_x", tb_i32(1), s1), (int[]){1}, 1, "AttrStmt");
  check_slots(tb_while(c, s1), (int[]){1}, 1, "While");
  check_slots(TB_SEQ(s1, s2, s1), (int[]){0, 1, 2}, 3, "SeqStmt");
  check_slots(s1, NULL, 0, "BufferStore");
  check_slots(s2, NULL, 0, "Evaluate");
  check_slots(c, NULL, 0, "an expression");
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

static int count_vectorized(psg_tir_visitor *v, const psg_tir_node *n) {
  int *count = v->user;
  if (psg_tir_kind(n) == PSG_TIR_FOR && psg_tir_for_kind(n) == PSG_TIR_FOR_VECTORIZED) (*count)++;
  return PSG_VISIT_CONTINUE;
}

/* Before the shared table, VectorizeLoop's walker did not enter While
 * bodies and left this loop vectorized-but-scalar. */
static void test_vectorize_inside_while(void) {
  tb_init(check_ctx());
  psg_tir_expr *i = tb_var("i", TB_I32), *n = tb_var("n", TB_I32);
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4);
  psg_tir_stmt *loop = tb_for_kind(i, tb_i32(0), tb_i32(4), PSG_TIR_FOR_VECTORIZED, TB_STORE(A, i, i));
  psg_tir_prim_func *f = tb_func(&A, 1, &n, 1, tb_while(tb_lt(n, tb_i32(0)), loop)), *g = NULL;
  CHECK_OK(psgi_tir_vectorize_loop(TB.ctx, f, true, false, &g));
  int before = 0, after = 0;
  psg_tir_visitor v = {.pre = count_vectorized, .user = &before};
  CHECK_OK(psg_tir_visit(TB.ctx, &v, f));
  v.user = &after;
  if (g) CHECK_OK(psg_tir_visit(TB.ctx, &v, g));
  CHECK_EQ_INT(before, 1);
  CHECK_EQ_INT(after, 0);
  psg_tir_release(g);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_every_kind);
  RUN_TEST(test_vectorize_inside_while);
  return check_finish();
}
