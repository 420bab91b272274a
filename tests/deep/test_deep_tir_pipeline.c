/* tir.default_pipeline on a PrimFunc of PASSAGE_DEEP_N statements (issue 16:
 * the lowering list scales linearly), run with `ulimit -s 1024`.
 *
 * The function is bench/tir_pipeline.c's: a SeqStmt cycling through three
 * loop nests over two float32[64, 64] buffers, so the flattening, narrowing,
 * simplification, partitioning, hoisting and CSE passes all have work in
 * every statement. Checked, with no clock:
 *  - the result is well-formed, every access flat, and it computes what the
 *    input computes (the TIR interpreter on the same inputs, bit for bit);
 *  - the allocation work grows linearly: the bytes the pipeline allocates
 *    (an operation count, which other load on the machine does not change)
 *    for N statements against N / 8 stay within 1.5x of 8x, and so does the
 *    peak of the bytes live while it runs. A pass that goes quadratic in its
 *    copies again (a sequence rebuilt per statement, ever-longer vectors
 *    interned, a memo table per statement) makes them 8x more at least.
 *    A scan that allocates nothing is not seen here: tests/unit/
 *    test_arith_bound.c pins the analyzer's indexed facts, and
 *    bench_tir_pipeline measures the time.
 * Runs under a 1 MiB stack: no pass recurses over the 1e6-statement
 * sequence. */
#include "../unit/check.h"
#include "deep_size.h"
#include "passage/tir_interp.h"
#include "passage/tvmscript.h"

enum { N = PASSAGE_DEEP_N, SMALL = PASSAGE_DEEP_N / 8 };

/* Bytes allocated (every allocation and every growth), and live. */
typedef struct counting {
  uint64_t allocated;
  int64_t live, peak;
} counting;

static void *counting_realloc(void *user, void *p, size_t old, size_t n) {
  counting *c = user;
  if (n == 0) {
    free(p);
    c->live -= (int64_t)old;
    return NULL;
  }
  void *q = realloc(p, n);
  if (!q) return NULL;
  if (n > old) c->allocated += n - old;
  c->live += (int64_t)n - (int64_t)old;
  if (c->live > c->peak) c->peak = c->live;
  return q;
}

/* A growing text. */
typedef struct text {
  char *s;
  size_t len, cap;
} text;

static void put(text *t, const char *fmt, long a, long b) {
  for (;;) {
    int n = t->s ? snprintf(t->s + t->len, t->cap - t->len, fmt, a, b, b, a, b, a) : -1;
    if (n >= 0 && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    t->cap = t->cap ? t->cap * 2 : 1 << 16;
    t->s = realloc(t->s, t->cap);
    if (!t->s) {
      fprintf(stderr, "out of memory\n");
      exit(1);
    }
  }
}

/* bench/tir_pipeline.c's function of n statements (For, IfThenElse and
 * BufferStore each count one). */
static char *generate(long n) {
  text t = {0};
  put(&t,
      "# from tvm.script import tir as T\n\n@T.prim_func\n"
      "def main(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\")):\n",
      0, 0);
  long stmts = 0;
  for (long u = 0; stmts < n; u++) {
    long j = u % 64, k = (u * 7 + 3) % 64;
    switch (n - stmts < 3 ? 1 : u % 3) {
    case 0:
      put(&t, "    for i in range(4):\n        A[%ld, i] = B[%ld, i] * T.float32(2.0) + T.float32(0.0)\n", j, k);
      stmts += 2;
      break;
    case 1:
      put(&t, "    B[%ld, %ld] = A[%ld, %ld] + A[%ld, %ld]\n", j, k);
      stmts += 1;
      break;
    default:
      put(&t, "    for i in range(8):\n        if i < 4:\n            A[%ld, i] = A[%ld, i] + T.float32(1.0)\n", j, j);
      stmts += 3;
      break;
    }
  }
  return t.s;
}

/* Accesses that are not flat (more than one index). */
static psg_status count_multi(psg_tir_visitor *v, const psg_tir_node *n) {
  int k = psg_tir_kind(n);
  if ((k == PSG_TIR_BUFFER_LOAD || k == PSG_TIR_BUFFER_STORE) && psg_tir_num_indices(n) != 1)
    (*(long *)v->user)++;
  return PSG_OK;
}

/* A tensor of 64 x 64 float32 values, from seed. */
static psg_tensor *input(psg_ctx *ctx, uint32_t seed) {
  static float data[64 * 64];
  for (size_t i = 0; i < 64 * 64; i++) {
    seed = seed * 1664525u + 1013904223u;
    data[i] = (float)(seed >> 8) / (float)(1u << 24) * 4.0f - 2.0f;
  }
  psg_tensor *t = NULL;
  CHECK_OK(psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, (int64_t[]){64, 64}, 2, data, &t));
  return t;
}

/* Both functions on the same A and B: the same A and B after. */
static void check_same_results(psg_ctx *ctx, const psg_tir_prim_func *f, const psg_tir_prim_func *g) {
  psg_tensor *args[2] = {input(ctx, 1), input(ctx, 2)}, **of = NULL, **og = NULL;
  CHECK_OK(psg_tir_eval(ctx, f, args, 2, &of));
  CHECK_OK(psg_tir_eval(ctx, g, args, 2, &og));
  for (int i = 0; of && og && i < 2; i++) {
    CHECK(psg_tensor_nbytes(of[i]) == psg_tensor_nbytes(og[i]));
    const float *x = psg_tensor_data(of[i]), *y = psg_tensor_data(og[i]);
    size_t diff = 0;
    for (size_t k = 0; k < 64 * 64; k++) diff += x[k] != y[k];
    CHECK_EQ_INT(diff, 0);
  }
  for (int i = 0; i < 2; i++) {
    if (of) psg_tensor_release(of[i]);
    if (og) psg_tensor_release(og[i]);
    psg_tensor_release(args[i]);
  }
  psg_free(of);
  psg_free(og);
}

typedef struct measured {
  uint64_t allocated;
  int64_t peak; /* bytes live at most while the pipeline ran, above what was live before */
} measured;

/* Parses the function of n statements, runs tir.default_pipeline on it and
 * checks the result; what the run cost. */
static measured run(long n) {
  counting c = {0};
  psg_allocator al = {counting_realloc, &c};
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(&al, &ctx));
  char *src = generate(n);
  psg_tir_script *s = NULL;
  psg_module *m = NULL, *out = NULL;
  psg_pass *pipeline = NULL;
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_tir_script_parse(ctx, src, strlen(src), "deep.py", &s));
  free(src);
  CHECK_OK(psg_tir_script_to_module(s, &m));
  psg_tir_script_release(s);
  CHECK_OK(psg_pipeline_parse(ctx, "tir.default_pipeline", &pipeline));
  CHECK_OK(psg_pass_context_create(ctx, &pc));

  measured r = {0, 0};
  uint64_t allocated0 = c.allocated;
  int64_t live0 = c.live;
  c.peak = c.live;
  CHECK_OK(psg_pass_run(pipeline, m, pc, &out));
  r.allocated = c.allocated - allocated0;
  r.peak = c.peak - live0;

  psg_tir_prim_func *f = m ? psg_module_lookup_prim_func(m, "main") : NULL;
  psg_tir_prim_func *g = out ? psg_module_lookup_prim_func(out, "main") : NULL;
  CHECK(f && g && f != g);
  if (f && g) {
    CHECK_OK(psg_tir_verify_well_formed(g));
    long multi = 0;
    psg_tir_visitor v = {.post = count_multi, .user = &multi};
    CHECK_OK(psg_tir_visit(ctx, &v, psg_tir_get_body(g)));
    CHECK_EQ_INT(multi, 0);
    check_same_results(ctx, f, g);
  }
  psg_module_release(out);
  psg_module_release(m);
  psg_pass_release(pipeline);
  psg_pass_context_release(pc);
  CHECK_CTX_CLEAN(ctx);
  CHECK_EQ_INT(c.live, 0);
  return r;
}

static void test_pipeline_scales(void) {
  measured small = run(SMALL), big = run(N);
  printf("statements %d: %.3g bytes allocated, peak %.0f bytes live per statement\n", SMALL, (double)small.allocated,
         (double)small.peak / SMALL);
  printf("statements %d: %.3g bytes allocated, peak %.0f bytes live per statement\n", N, (double)big.allocated,
         (double)big.peak / N);
  double scale = (double)N / SMALL, limit = 1.5 * scale;
  CHECK(small.allocated > 0 && (double)big.allocated <= limit * (double)small.allocated);
  CHECK((double)big.peak <= limit * (double)small.peak);
}

int main(void) {
  RUN_TEST(test_pipeline_scales);
  return check_finish();
}
