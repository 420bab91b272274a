/* Passage — tir.StorageRewrite keeps what a PrimFunc computes while its
 * Allocates share storage: 300 random functions of several intermediate
 * buffers (scopes global, shared, local and the tagged local.L0A; dtypes
 * float32, int32, int16, int8; constant and symbolic sizes; in-place,
 * shifted, reducing and branching stages; at the top, inside a serial or a
 * parallel loop) run through the TIR interpreter before and after with
 * bit-identical outputs, every output well formed and never allocating more;
 * TVM's counting cases (test_tir_transform_storage_rewrite.py) as our own
 * functions; tir.merge_static_smem; a 10,000-deep nest and a
 * 100,000-statement SeqStmt under a 1 MiB stack. */
#include "tir_equiv.h"
#include "tir_loop_check.h"

typedef struct stage {
  char size[16];    /* "8", "n * 4" */
  int nconst;       /* its constant size, or 0 */
  const char *dtype;
} stage;

static const char *const SCOPES[] = {"global", "global", "global", "shared", "local", "local.L0A"};
static const char *const DTYPES[] = {"float32", "float32", "int32", "int16", "int8"};

/* A value of dtype `dt` read from an earlier stage or a param at i. */
static void source(lc_gen *g, const stage *st, int ns, const char *dt) {
  int k = lc_pick(g, ns + 2);
  if (k == ns) lc_put(g, "T.Cast(\"%s\", A[i %% 16])", dt);
  else if (k == ns + 1) lc_put(g, "T.Cast(\"%s\", B[i %% 16])", dt);
  else lc_put(g, "T.Cast(\"%s\", S%d[i %% (%s)])", dt, k, st[k].size);
}

/* The text of random function `seed`: K stages S0..S{K-1}, each allocated
 * and filled completely from params and earlier stages, then O and P
 * computed from some of them. */
static char *random_func(uint64_t seed) {
  lc_gen g = {.seed = seed * 7919 + 3};
  stage st[8];
  int ns = 3 + lc_pick(&g, 5), region = lc_pick(&g, 3);
  lc_put(&g, "@T.prim_func\ndef main(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"int32\"), "
             "O: T.Buffer((16,), \"float32\"), P: T.Buffer((16,), \"int32\"), n: T.int32):\n");
  const char *ind = "    ";
  if (region == 1) lc_put(&g, "    for r in range(2):\n"), ind = "        ";
  if (region == 2) lc_put(&g, "    for r in T.parallel(2):\n"), ind = "        ";
  for (int s = 0; s < ns; s++) {
    static const int sizes[] = {1, 4, 8, 16, 32, 16};
    stage *t = &st[s];
    t->dtype = DTYPES[lc_pick(&g, 5)];
    const char *scope = SCOPES[lc_pick(&g, 6)];
    int sz = lc_pick(&g, 8);
    bool same = s > 0 && lc_pick(&g, 3) == 0; /* like the previous one: in place candidates */
    if (same) *t = st[s - 1];
    else if (sz < 6) snprintf(t->size, sizeof t->size, "%d", t->nconst = sizes[sz]);
    else snprintf(t->size, sizeof t->size, sz == 6 ? "n" : "n * 4"), t->nconst = 0;
    if (!t->nconst && !strcmp(scope, "local.L0A")) scope = "global"; /* tagged memory has a constant size */
    if (lc_pick(&g, 2))
      lc_put(&g, "%sS%d = T.decl_buffer((%s,), \"%s\", scope=\"%s\")\n", ind, s, t->size, t->dtype, scope);
    else
      lc_put(&g, "%sD%d = T.allocate([%s], \"%s\", \"%s\")\n%sS%d = T.Buffer((%s,), \"%s\", data=D%d, scope=\"%s\")\n",
             ind, s, t->size, t->dtype, scope, ind, s, t->size, t->dtype, s, scope);
    int form = same ? 0 : 1 + lc_pick(&g, 3);
    lc_put(&g, "%sfor i in range(%s):\n", ind, t->size);
    if (form == 0) { /* S[i] = f(S_prev[i]): TVM's in-place pattern */
      lc_put(&g, "%s    S%d[i] = S%d[i] + T.Cast(\"%s\", %d)\n", ind, s, s - 1, t->dtype, lc_pick(&g, 5));
    } else if (form == 1) {
      lc_put(&g, "%s    S%d[i] = ", ind, s);
      source(&g, st, s, t->dtype);
      lc_put(&g, " - ");
      source(&g, st, s, t->dtype);
      lc_put(&g, "\n");
    } else if (form == 2) { /* a reduction over an earlier stage or A */
      int k = lc_pick(&g, s + 1);
      const char *over = k < s ? st[k].size : "16";
      lc_put(&g, "%s    S%d[i] = T.Cast(\"%s\", 1)\n%s    for k in range(%s):\n", ind, s, t->dtype, ind, over);
      if (k < s)
        lc_put(&g, "%s        S%d[i] = S%d[i] + T.Cast(\"%s\", S%d[k])\n", ind, s, s, t->dtype, k);
      else
        lc_put(&g, "%s        S%d[i] = S%d[i] + T.Cast(\"%s\", A[k])\n", ind, s, s, t->dtype);
    } else { /* both branches write */
      lc_put(&g, "%s    if n > %d:\n%s        S%d[i] = ", ind, 3 + lc_pick(&g, 3), ind, s);
      source(&g, st, s, t->dtype);
      lc_put(&g, "\n%s    else:\n%s        S%d[i] = ", ind, ind, s);
      source(&g, st, s, t->dtype);
      lc_put(&g, "\n");
    }
  }
  int a = lc_pick(&g, ns), b = lc_pick(&g, ns);
  lc_put(&g, "%sfor i in range(16):\n%s    O[i] = T.Cast(\"float32\", S%d[i %% (%s)]) + T.Cast(\"float32\", S%d[i %% (%s)])\n",
         ind, ind, ns - 1, st[ns - 1].size, a, st[a].size);
  lc_put(&g, "%s    P[i] = T.Cast(\"int32\", S%d[i %% (%s)])\n", ind, b, st[b].size);
  return g.s;
}

/* Allocates and their constant bytes in f (DeclBuffers are over Allocates). */
typedef struct alloc_count {
  int n;
  int64_t bytes;
} alloc_count;
static int count_pre(psg_tir_visitor *v, const psg_tir_node *n) {
  alloc_count *c = v->user;
  if (psg_tir_kind(n) != PSG_TIR_ALLOCATE) return PSG_VISIT_CONTINUE;
  int64_t e = psg_tir_dtype_bits(psg_tir_dtype_of(n)) / 8;
  for (size_t k = 0; k < psg_tir_allocate_num_extents(n); k++) {
    psg_tir_expr *x = psg_tir_allocate_get_extent(n, k);
    e *= psg_tir_kind(x) == PSG_TIR_INT_IMM ? psg_tir_int_imm_value(x) : 0;
  }
  c->n++;
  c->bytes += e;
  return PSG_VISIT_CONTINUE;
}
static alloc_count count_allocs(const psg_tir_node *f) {
  alloc_count c = {0, 0};
  psg_tir_visitor v = {.pre = count_pre, .user = &c};
  if (f) CHECK_OK(psg_tir_visit(TB.ctx, &v, f));
  return c;
}

static void test_random_functions(void) {
  int fewer = 0, merged = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    tb_init(check_ctx());
    char *text = random_func(seed);
    psg_tir_prim_func *f = lc_parse(text);
    psg_tir_prim_func *g = f ? eq_run_pass("tir.StorageRewrite", NULL, f, NULL) : NULL;
    char label[64];
    snprintf(label, sizeof label, "StorageRewrite seed %llu", (unsigned long long)seed);
    if (!lc_same(f, g, label)) fprintf(stderr, "%s\n", text);
    alloc_count before = count_allocs(f), after = count_allocs(g);
    CHECK(after.n <= before.n);
    fewer += after.n < before.n;
    merged += after.bytes < before.bytes;
    psg_tir_release(f);
    free(text);
    tb_fini();
  }
  CHECK(fewer > 100); /* many functions share some storage */
  CHECK(merged > 60);  /* ... and allocate fewer constant bytes */
  CHECK_CTX_CLEAN(TB.ctx);
}

/* TVM's counting cases, written as TVMScript: how many Allocates are left
 * and their first extent. */
typedef struct count_case {
  const char *name, *text;
  int allocs;
  int64_t extent; /* of every Allocate left, or -1: the total below */
  int64_t total;
} count_case;

#define HDR "@T.prim_func\ndef main(n: T.int32):\n"
static const count_case COUNT_CASES[] = {
    {"alloc_seq: two dead-in-turn buffers of a tagged scope share one", HDR
     "    for i in range(n):\n"
     "        for j in range(10):\n"
     "            A = T.decl_buffer((200,), \"float32\", scope=\"local.L0A\")\n"
     "            A[j] = T.float32(1.2)\n"
     "        for j in range(10):\n"
     "            B = T.decl_buffer((200,), \"float32\", scope=\"local.L0A\")\n"
     "            B[j] = T.float32(1.3)\n",
     1, 200, 0},
    {"alloc_seq_type: float32 and int16 storages of one tagged scope packed: 500 float32", HDR
     "    for i, j in T.grid(n, 10):\n"
     "        A = T.decl_buffer((200,), \"float32\", scope=\"local.L0A\")\n"
     "        A1 = T.decl_buffer((200,), \"float32\", scope=\"local.L0A\")\n"
     "        A[j] = T.float32(1.2)\n"
     "        A1[j] = T.float32(1.3)\n"
     "        B = T.decl_buffer((200,), \"int16\", scope=\"local.L0A\")\n"
     "        B[j] = T.int16(1)\n"
     "        C = T.decl_buffer((200,), \"int16\", scope=\"local.L0A\")\n"
     "        C[j] = T.int16(1)\n"
     "        D = T.decl_buffer((200,), \"int16\", scope=\"local.L0A\")\n"
     "        D[j] = B[j] + C[j]\n"
     "        A2 = T.decl_buffer((200,), \"float32\", scope=\"local.L0A\")\n"
     "        A2[j] = A[j]\n",
     1, 500, 0},
    {"alloc_seq_type2: an int16 buffer of the same bits reuses the float32 one", HDR
     "    for i in range(n):\n"
     "        for j in range(10):\n"
     "            A = T.decl_buffer((200,), \"float32\", scope=\"local.L0A2\")\n"
     "            A[j] = T.float32(1.2)\n"
     "        for j in range(20):\n"
     "            B = T.decl_buffer((400,), \"int16\", scope=\"local.L0A2\")\n"
     "            B[j] = T.int16(1)\n"
     "        for j in range(10):\n"
     "            C = T.decl_buffer((200,), \"float32\", scope=\"local.L0A2\")\n"
     "            C[j] = T.float32(1.2)\n",
     1, 200, 0},
    {"reuse_small_buffer: 200 and 400 int16 storages packed into 800", HDR
     "    for i, j in T.grid(n, 10):\n"
     "        A = T.decl_buffer((200,), \"int16\", scope=\"local.L0A\")\n"
     "        A[j] = T.int16(1)\n"
     "        B = T.decl_buffer((200,), \"int16\", scope=\"local.L0A\")\n"
     "        B[j] = T.int16(1)\n"
     "        B1 = T.decl_buffer((200,), \"int16\", scope=\"local.L0A\")\n"
     "        B1[j] = A[j] + B[j]\n"
     "        C = T.decl_buffer((400,), \"int16\", scope=\"local.L0A\")\n"
     "        C[j] = T.int16(1)\n"
     "        D = T.decl_buffer((400,), \"int16\", scope=\"local.L0A\")\n"
     "        D[j] = T.int16(1)\n"
     "        E = T.decl_buffer((400,), \"int16\", scope=\"local.L0A\")\n"
     "        E[j] = C[j]\n",
     1, 800, 0},
    {"address_of: B and D share, C (read at two indices while B dies) does not",
     "@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\"), E: T.Buffer((8,), \"float32\")):\n"
     "    B = T.decl_buffer((8,), \"float32\")\n"
     "    for i in range(8):\n"
     "        B[i] = T.call_extern(\"float32\", \"deref\", T.address_of(A[i])) + T.float32(1)\n"
     "    C = T.decl_buffer((8,), \"float32\")\n"
     "    for i in range(8):\n"
     "        C[i] = T.call_extern(\"float32\", \"deref\", T.address_of(B[i])) + "
     "T.call_extern(\"float32\", \"deref\", T.address_of(B[0]))\n"
     "    D = T.decl_buffer((8,), \"float32\")\n"
     "    for i in range(8):\n"
     "        D[i] = T.call_extern(\"float32\", \"deref\", T.address_of(C[i])) + "
     "T.call_extern(\"float32\", \"deref\", T.address_of(C[0]))\n"
     "    for i in range(8):\n"
     "        E[i] = T.call_extern(\"float32\", \"deref\", T.address_of(D[i])) + T.float32(3)\n",
     2, -1, 64},
    {"inplace: a chain of same-index stages keeps one storage",
     "@T.prim_func\ndef main(A: T.Buffer((10,), \"float32\"), B: T.Buffer((10,), \"float32\")):\n"
     "    A0 = T.decl_buffer((10,), \"float32\")\n"
     "    A1 = T.decl_buffer((10,), \"float32\")\n"
     "    A2 = T.decl_buffer((10,), \"float32\")\n"
     "    for i in range(10):\n"
     "        A0[i] = A[i] + T.float32(1)\n"
     "    for i in range(10):\n"
     "        A1[i] = A0[i] * T.float32(2)\n"
     "    for i in range(10):\n"
     "        A2[i] = A1[i] - T.float32(3)\n"
     "    for i in range(10):\n"
     "        B[i] = A2[i]\n",
     1, 10, 0},
    {"no inplace through an indirect read: A1[A0[i]]",
     "@T.prim_func\ndef main(A: T.Buffer((10,), \"int32\"), B: T.Buffer((10,), \"int32\")):\n"
     "    A0 = T.decl_buffer((10,), \"int32\")\n"
     "    A1 = T.decl_buffer((10,), \"int32\")\n"
     "    for i in range(10):\n"
     "        A0[i] = A[i] % 10\n"
     "    for i in range(10):\n"
     "        A1[i] = A0[A0[i]]\n"
     "    for i in range(10):\n"
     "        B[i] = A1[i]\n",
     2, 10, 0},
    {"local and small arrays are not reused once dead, only in place (S1 over S0)",
     "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
     "    L0 = T.decl_buffer((4,), \"float32\", scope=\"local\")\n"
     "    for i in range(4):\n"
     "        L0[i] = A[i]\n"
     "    L1 = T.decl_buffer((4,), \"float32\", scope=\"local\")\n"
     "    for i in range(4):\n"
     "        L1[i] = A[i] * L0[0]\n"
     "    S0 = T.decl_buffer((1,), \"float32\")\n"
     "    S0[0] = L1[1]\n"
     "    S1 = T.decl_buffer((1,), \"float32\")\n"
     "    S1[0] = S0[0] * T.float32(2)\n"
     "    for i in range(4):\n"
     "        B[i] = S1[0]\n",
     3, -1, 36},
    {"an Allocate whose extent uses a loop var stays in the loop, unshared",
     "@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
     "    for i in range(8):\n"
     "        X = T.decl_buffer((i + 1,), \"float32\")\n"
     "        for j in range(i + 1):\n"
     "            X[j] = A[j] * T.float32(2)\n"
     "        Y = T.decl_buffer((i + 1,), \"float32\")\n"
     "        for j in range(i + 1):\n"
     "            Y[j] = X[j] + T.float32(1)\n"
     "        B[i] = Y[i]\n",
     2, -1, 0},
};

static void test_count_cases(void) {
  for (size_t c = 0; c < sizeof COUNT_CASES / sizeof *COUNT_CASES; c++) {
    tb_init(check_ctx());
    const count_case *k = &COUNT_CASES[c];
    psg_tir_prim_func *f = lc_parse(k->text);
    psg_tir_prim_func *g = f ? eq_run_pass("tir.StorageRewrite", NULL, f, NULL) : NULL;
    alloc_count n = count_allocs(g);
    bool ok = g && n.n == k->allocs && (k->extent >= 0 || n.bytes == k->total);
    for (psg_tir_node *a = g ? psg_tir_get_body(g) : NULL; ok && k->extent >= 0 && a; a = psg_tir_get_body(a))
      if (psg_tir_kind(a) == PSG_TIR_ALLOCATE) ok = psg_tir_int_imm_value(psg_tir_allocate_get_extent(a, 0)) == k->extent;
    if (!ok) {
      fprintf(stderr, "  case '%s': %d allocates, %lld bytes\n", k->name, n.n, (long long)n.bytes);
      lc_print("after", g);
    }
    CHECK(ok);
    if (f && g && !strstr(k->text, "call_extern")) CHECK(lc_same(f, g, k->name));
    psg_tir_release(f);
    tb_fini();
  }
  CHECK_CTX_CLEAN(TB.ctx);
}

/* tir.merge_static_smem turns the reuse of dead storage off (TVM leaves it
 * to MergeSharedMemoryAllocations; in-place sharing stays). */
static void test_merge_static_smem(void) {
  tb_init(check_ctx());
  psg_tir_prim_func *f = lc_parse(HDR "    for i in range(n):\n"
                                      "        A = T.decl_buffer((200,), \"float32\")\n"
                                      "        A[i] = T.float32(1)\n"
                                      "        B = T.decl_buffer((200,), \"float32\")\n"
                                      "        B[i] = T.float32(2)\n");
  psg_pass_context *pc = NULL;
  CHECK_OK(psg_pass_context_create(TB.ctx, &pc));
  CHECK_OK(psg_pass_context_set_config_text(pc, "tir.merge_static_smem=true"));
  CHECK_OK(psg_pass_context_enter(pc));
  psg_tir_prim_func *g = f ? eq_run_pass("tir.StorageRewrite", NULL, f, NULL) : NULL;
  CHECK_OK(psg_pass_context_exit(pc));
  CHECK_EQ_INT(count_allocs(g).n, 2);
  CHECK(lc_same(f, g, "merge_static_smem"));
  psg_tir_prim_func *h = lc_parse(COUNT_CASES[5].text); /* the in-place chain still shares */
  CHECK_OK(psg_pass_context_enter(pc));
  g = h ? eq_run_pass("tir.StorageRewrite", NULL, h, NULL) : NULL;
  CHECK_OK(psg_pass_context_exit(pc));
  CHECK_EQ_INT(count_allocs(g).n, 1);
  psg_tir_release(h);
  psg_pass_context_release(pc);
  psg_tir_release(f);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

/* After tir.VectorizeLoop: a storage every access of which is one aligned
 * vector type takes it as its element type (TVM's PointerValueTypeRewrite);
 * one also read as scalars keeps float32. */
static void test_vector_types(void) {
  tb_init(check_ctx());
  psg_tir_prim_func *f = lc_parse(
      "@T.prim_func\ndef main(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
      "    X = T.decl_buffer((64,), \"float32\")\n"
      "    for io in range(16):\n"
      "        for ii in T.vectorized(4):\n"
      "            X[io * 4 + ii] = A[io * 4 + ii] * T.float32(2)\n"
      "    Y = T.decl_buffer((64,), \"float32\")\n"
      "    for io in range(16):\n"
      "        for ii in T.vectorized(4):\n"
      "            Y[io * 4 + ii] = X[io * 4 + ii] + T.float32(1)\n"
      "    Z = T.decl_buffer((64,), \"float32\")\n"
      "    for io in range(16):\n"
      "        for ii in T.vectorized(4):\n"
      "            Z[io * 4 + ii] = Y[(15 - io) * 4 + ii] - A[io]\n"
      "    for i in range(64):\n"
      "        B[i] = Z[i] + Z[63 - i]\n");
  psg_tir_prim_func *v = f ? eq_run_pass("tir.VectorizeLoop", NULL, f, NULL) : NULL;
  psg_tir_prim_func *g = v ? eq_run_pass("tir.StorageRewrite", NULL, v, NULL) : NULL;
  CHECK(lc_same(f, g, "vector types"));
  /* X and Y share one float32x4 storage (in place); Z, read as scalars, stays float32. */
  int vec = 0, scalar = 0;
  for (psg_tir_node *a = g ? psg_tir_get_body(g) : NULL; a && psg_tir_kind(a) != PSG_TIR_FOR; a = psg_tir_get_body(a)) {
    if (psg_tir_kind(a) != PSG_TIR_ALLOCATE) continue;
    int lanes = psg_tir_dtype_lanes(psg_tir_dtype_of(a));
    vec += lanes == 4 && psg_tir_int_imm_value(psg_tir_allocate_get_extent(a, 0)) == 16;
    scalar += lanes == 1 && psg_tir_int_imm_value(psg_tir_allocate_get_extent(a, 0)) == 64;
  }
  CHECK_EQ_INT(vec, 1);
  CHECK_EQ_INT(scalar, 1);
  psg_tir_release(f);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

enum { NEST = 10000, SEQ = 100000 };
static void *deep(void *arg) {
  (void)arg;
  psg_tir_prim_func *f = eq_deep_nest_func(NEST);
  psg_tir_prim_func *g = eq_run_pass("tir.StorageRewrite", NULL, f, NULL);
  CHECK(g && psg_tir_structural_equal(f, g));
  /* A SeqStmt of 100,000 Allocates, each dead after its two statements. */
  psg_tir_buffer *A = TB_BUF("A", TB_F32, 4);
  psg_tir_expr *zero = tb_i32(0), *one = tb_f32(1.0);
  psg_tir_stmt *body = NULL;
  psg_tir_stmt **s = malloc(SEQ * sizeof *s);
  CHECK(s != NULL);
  if (!s) return NULL;
  /* Allocate X_k[4]; X_k[0] = A[0] + 1; A[0] = X_k[0] */
  for (int k = 0; k < SEQ; k++) {
    psg_tir_buffer *X = NULL;
    psg_tir_expr *four = tb_i32(4), *ld = NULL, *sum = NULL, *ldx = NULL;
    psg_tir_stmt *w = NULL, *r = NULL, *seq = NULL, *decl = NULL, *al = NULL;
    CHECK_OK(psg_tir_buffer_decl(TB.ctx, "X", TB_F32, &four, 1, "global", NULL, &X));
    CHECK_OK(psg_tir_buffer_load_create(TB.ctx, A, &zero, 1, NULL, NULL, &ld));
    CHECK_OK(psg_tir_binary_create(TB.ctx, PSG_TIR_ADD, ld, one, NULL, &sum));
    CHECK_OK(psg_tir_buffer_store_create(TB.ctx, X, sum, &zero, 1, NULL, NULL, &w));
    CHECK_OK(psg_tir_buffer_load_create(TB.ctx, X, &zero, 1, NULL, NULL, &ldx));
    CHECK_OK(psg_tir_buffer_store_create(TB.ctx, A, ldx, &zero, 1, NULL, NULL, &r));
    CHECK_OK(psg_tir_seq_stmt_create(TB.ctx, (psg_tir_stmt *[]){w, r}, 2, NULL, &seq));
    CHECK_OK(psg_tir_decl_buffer_create(TB.ctx, X, seq, NULL, &decl));
    CHECK_OK(psg_tir_allocate_create(TB.ctx, psg_tir_buffer_get_data(X), TB_F32, &four, 1, NULL, decl, NULL, NULL,
                                     &al));
    s[k] = al;
    psg_tir_release(ld), psg_tir_release(sum), psg_tir_release(ldx), psg_tir_release(w), psg_tir_release(r);
    psg_tir_release(seq), psg_tir_release(decl), psg_tir_release(X);
  }
  CHECK_OK(psg_tir_seq_stmt_create(TB.ctx, s, SEQ, NULL, &body));
  for (int k = 0; k < SEQ; k++) psg_tir_release(s[k]);
  free(s);
  psg_tir_prim_func *big = tb_func(&A, 1, NULL, 0, tb_keep(PSG_OK, &body));
  psg_tir_prim_func *h = big ? eq_run_pass("tir.StorageRewrite", NULL, big, NULL) : NULL;
  CHECK_EQ_INT(count_allocs(h).n, 1); /* one storage for all, in linear time */
  eq_check_same(big, h, 1, 1, 9);
  return NULL;
}

static void test_deep(void) {
  tb_init(check_ctx());
  eq_small_stack(deep);
  tb_fini();
  CHECK_CTX_CLEAN(TB.ctx);
}

int main(void) {
  RUN_TEST(test_random_functions);
  RUN_TEST(test_count_cases);
  RUN_TEST(test_merge_static_smem);
  RUN_TEST(test_vector_types);
  RUN_TEST(test_deep);
  return check_finish();
}
