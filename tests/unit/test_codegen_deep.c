/* Passage — CodeGenC at depth and length (issue 17 item 1, STYLE rule 9): a
 * million-statement body, a 100,000-deep expression chain, a 10,000-deep
 * Let chain inside a vector expression and a 10,000-deep loop nest are
 * generated on a 1 MiB stack (no recursion over the IR), with the output's
 * shape checked. */
#include "check.h"
#include "tir_equiv.h"
#include "passage/codegen.h"

/* Occurrences of `what` in the kernel of s (past the prelude). */
static size_t count(const char *s, const char *what) {
  size_t n = 0, l = strlen(what);
  s = strstr(s, "int32_t deep(");
  if (!s) return 0;
  for (const char *p = s; (p = strstr(p, what)) != NULL; p += l) n++;
  return n;
}

static char *gen(psg_tir_prim_func *f) {
  const char *names[1] = {"deep"};
  char *out = NULL;
  psg_status st = psg_codegen_c(TB.ctx, &f, names, 1, 0, &out, NULL);
  CHECK_OK(st);
  if (st) {
    const psg_diag *d = psg_ctx_get_last_error(TB.ctx);
    fprintf(stderr, "  %s\n", d ? psg_diag_message(d) : "?");
  }
  return out;
}

static void *long_body(void *arg) {
  (void)arg;
  enum { N = 1000000 };
  psg_tir_buffer *A = TB_BUF("A", TB_F32, 4);
  psg_tir_stmt *st = TB_STORE(A, tb_add(TB_LOAD(A, tb_i32(1)), tb_f32(1)), tb_i32(0));
  psg_tir_stmt **many = malloc(N * sizeof *many);
  for (size_t i = 0; i < N; i++) many[i] = st;
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, tb_seqv(many, N));
  free(many);
  char *out = gen(f);
  CHECK(out && count(out, "  A_handle[0] = (A_handle[1] + 1.0f);\n") == N);
  psg_free(out);
  return NULL;
}

static void *deep_expr(void *arg) {
  (void)arg;
  enum { N = 100000 };
  psg_tir_buffer *A = TB_BUF("A", TB_I32, 4);
  psg_tir_expr *e = TB_LOAD(A, tb_i32(1));
  for (int i = 0; i < N; i++) e = tb_add(e, tb_i32(1));
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, TB_STORE(A, e, tb_i32(0)));
  char *out = gen(f);
  CHECK(out && count(out, "(uint32_t)(1)") == N);
  psg_free(out);
  return NULL;
}

static void *deep_let(void *arg) {
  (void)arg;
  enum { N = 10000 };
  psg_tir_buffer *A = TB_BUF("A", TB_F32, 16);
  psg_tir_expr *e = tb_bcast(tb_f32(0), 4);
  for (int i = 0; i < N; i++) {
    char name[16];
    snprintf(name, sizeof name, "x%d", i);
    psg_tir_expr *x = tb_var(name, TB_F32);
    e = tb_let(x, tb_f32(i), tb_add(e, tb_bcast(x, 4)));
  }
  psg_tir_prim_func *f = tb_func(&A, 1, NULL, 0, TB_STORE(A, e, tb_ramp(tb_i32(0), tb_i32(1), 4)));
  char *out = gen(f);
  CHECK(out && count(out, "PSG_VOP(") == N);
  psg_free(out);
  return NULL;
}

static void *deep_loops(void *arg) {
  (void)arg;
  char *out = gen(eq_deep_nest_func(10000));
  CHECK(out && count(out, "for (int32_t ") == 10000);
  psg_free(out);
  return NULL;
}

int main(void) {
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  tb_init(ctx);
  eq_small_stack(long_body);
  eq_small_stack(deep_expr);
  eq_small_stack(deep_let);
  eq_small_stack(deep_loops);
  tb_fini();
  psg_ctx_release(ctx);
  return check_finish();
}
