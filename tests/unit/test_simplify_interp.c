/* Passage — tir.Simplify keeps what a PrimFunc computes: each case is a
 * TVMScript function run by the reference interpreter (psg_tir_eval) before
 * and after the pass, with the tir.Simplify switches the case names, on many
 * seeded inputs (buffers filled with small values, scalars drawn from a small
 * range so that boundaries are hit). An input the original rejects (a false
 * T.assume, an out-of-bounds access) is skipped: the pass may rely on it.
 * Each case also says whether the pass must change the function, so that a
 * rewrite that stops applying is noticed too. */
#include "check.h"
#include "passage/arith.h"
#include "passage/tir_interp.h"
#include "passage/tvmscript.h"

static psg_ctx *ctx;

typedef struct scase {
  const char *name;
  const char *switches; /* tir.Simplify fields set true, comma separated */
  bool changes;         /* the pass must rewrite something */
  const char *src;
} scase;

static psg_attrs *config(const char *switches) {
  const char *keys[8];
  psg_attr *vals[8];
  char names[8][64];
  size_t n = 0;
  for (const char *p = switches; p && *p && n < 8;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    snprintf(names[n], sizeof names[n], "%.*s", (int)len, p);
    keys[n] = names[n];
    psg_attr_bool(ctx, true, &vals[n]);
    n++;
    p = e ? e + 1 : p + len;
  }
  psg_attrs *d = NULL;
  psg_attrs_create(ctx, keys, vals, n, &d);
  for (size_t i = 0; i < n; i++) psg_attr_release(vals[i]);
  return d;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static int64_t draw(int64_t lo, int64_t hi) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return lo + (int64_t)(rng % (uint64_t)(hi - lo + 1));
}

static void store(int dt, void *p, size_t i, int64_t v) {
  switch (dt) {
  case PSG_DTYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
  case PSG_DTYPE_INT64: ((int64_t *)p)[i] = v; break;
  case PSG_DTYPE_FLOAT32: ((float *)p)[i] = (float)v; break;
  case PSG_DTYPE_FLOAT64: ((double *)p)[i] = (double)v; break;
  case PSG_DTYPE_BOOL: ((uint8_t *)p)[i] = (uint8_t)(v & 1); break;
  default: memset((char *)p + i * psg_dtype_size(dt), 0, psg_dtype_size(dt)); break;
  }
}

/* One tensor per parameter of f, drawn from the seed. */
static bool make_args(const psg_tir_prim_func *f, psg_tensor **args, size_t np) {
  for (size_t i = 0; i < np; i++) {
    psg_tir_expr *p = psg_tir_prim_func_get_param(f, i);
    psg_tir_buffer *buf = NULL;
    for (size_t j = 0; j < psg_tir_prim_func_buffer_map_size(f); j++)
      if (psg_tir_prim_func_buffer_map_key(f, j) == p) buf = psg_tir_prim_func_buffer_map_value(f, j);
    int64_t shape[8];
    int nd = 0;
    int dt;
    if (buf) {
      dt = psg_tir_dtype_to_tensor(psg_tir_dtype_of(buf));
      nd = (int)psg_tir_buffer_ndim(buf);
      for (int d = 0; d < nd; d++) {
        psg_tir_expr *s = psg_tir_buffer_get_shape(buf, (size_t)d);
        if (psg_tir_kind(s) != PSG_TIR_INT_IMM) return false;
        shape[d] = psg_tir_int_imm_value(s);
      }
    } else {
      dt = psg_tir_dtype_to_tensor(psg_tir_dtype_of(p));
    }
    if (dt == PSG_DTYPE_INVALID) return false;
    int64_t numel = 1;
    for (int d = 0; d < nd; d++) numel *= shape[d];
    char *data = calloc((size_t)numel + 1, psg_dtype_size(dt));
    if (!data) exit(2);
    for (int64_t k = 0; k < numel; k++) store(dt, data, (size_t)k, buf ? draw(-3, 3) : draw(-6, 20));
    psg_status st = psg_tensor_create(ctx, dt, shape, nd, data, &args[i]);
    free(data);
    if (st) return false;
  }
  return true;
}

static void run_case(const scase *c) {
  psg_tir_script *s = NULL;
  CHECK_OK(psg_tir_script_parse(ctx, c->src, strlen(c->src), c->name, &s));
  if (!s) {
    fprintf(stderr, "case %s does not parse\n", c->name);
    return;
  }
  psg_tir_prim_func *f = psg_tir_script_get(s, 0), *g = NULL;
  psg_attrs *cfg = config(c->switches);
  CHECK_OK(psg_tir_simplify_prim_func(f, cfg, &g));
  psg_attrs_release(cfg);
  if (!g) {
    psg_tir_script_release(s);
    return;
  }
  if (c->changes != !psg_tir_structural_equal(f, g)) {
    fprintf(stderr, "case %s: the pass %s the function\n", c->name, c->changes ? "did not change" : "changed");
    CHECK(false);
  }
  size_t np = psg_tir_prim_func_num_params(f);
  int ran = 0;
  for (int trial = 0; trial < 300; trial++) {
    psg_tensor *args[16] = {0}, **o1 = NULL, **o2 = NULL;
    if (np > 16 || !make_args(f, args, np)) {
      fprintf(stderr, "case %s: cannot make arguments\n", c->name);
      CHECK(false);
      break;
    }
    if (psg_tir_eval(ctx, f, args, np, &o1) == PSG_OK) {
      ran++;
      psg_status st = psg_tir_eval(ctx, g, args, np, &o2);
      CHECK_OK(st);
      for (size_t i = 0; o2 && i < np; i++)
        if (!psg_tensor_equal(o1[i], o2[i])) {
          fprintf(stderr, "case %s: output %zu differs (trial %d)\n", c->name, i, trial);
          CHECK(false);
          trial = 1 << 20;
          break;
        }
    }
    psg_ctx_clear_diags(ctx);
    for (size_t i = 0; i < np; i++) {
      psg_tensor_release(args[i]);
      if (o1) psg_tensor_release(o1[i]);
      if (o2) psg_tensor_release(o2[i]);
    }
    psg_free(o1);
    psg_free(o2);
  }
  if (!ran) {
    fprintf(stderr, "case %s: no input ran\n", c->name);
    CHECK(false);
  }
  psg_tir_release(g);
  psg_tir_script_release(s);
}

#define FN(params, body) "@T.prim_func\ndef main(" params "):\n" body

/* Comparisons narrowed by the facts in scope (TVM's most restrictive
 * conditional), x < y or x == y, known negated comparisons. */
static const scase compare_cases[] = {
    {"narrow", "", true,
     FN("F: T.Buffer((6,), \"bool\"), a: T.int32, b: T.int32",
        "    if a <= 5:\n        F[0] = 5 <= a\n        F[1] = a != 5\n"
        "    if a != b:\n        F[2] = b <= a\n"
        "    if b <= a:\n        F[3] = a <= b\n        F[4] = a != b\n"
        "    if a < 7 or a == 7:\n        F[5] = a <= 7\n")},
    {"transitive_ne", "transitively_prove_inequalities", true,
     FN("F: T.Buffer((1,), \"bool\"), a: T.int32, b: T.int32, c: T.int32",
        "    if a == b and b != c:\n        F[0] = a != c\n")},
    {"or_branch", "transitively_prove_inequalities,apply_constraints_to_boolean_branches", true,
     FN("F: T.Buffer((2,), \"bool\"), a: T.int32, b: T.int32",
        "    F[0] = a < b + 3 or a < b + 1\n    F[1] = a < b + 1 or a < b + 3\n")},
};

static void test_compare(void) {
  for (size_t i = 0; i < sizeof compare_cases / sizeof *compare_cases; i++) run_case(&compare_cases[i]);
}

/* LetStmt: an int value that reads no memory is substituted; a value that
 * reads memory is neither substituted nor used to prove a condition (the
 * memory may change between the let and the condition). */
static const scase let_cases[] = {
    {"inline_int", "", true,
     FN("A: T.Buffer((8,), \"int32\"), x: T.int32",
        "    m = x % 8\n    if m < 8:\n        A[m] = m * 2\n    k = x * 3 + 1\n    A[k % 8] = k\n")},
    {"load_let_kept", "", false,
     FN("A: T.Buffer((2,), \"int32\")",
        "    v = A[0]\n    A[0] = v + 1\n    if v + 1 == A[0]:\n        A[1] = 7\n")},
    {"float_let_kept", "", false,
     FN("A: T.Buffer((2,), \"float32\"), x: T.int32",
        "    v = T.Cast(\"float32\", x) * T.float32(0.5)\n    A[0] = v\n    A[1] = v + v\n")},
};

static void test_lets(void) {
  for (size_t i = 0; i < sizeof let_cases / sizeof *let_cases; i++) run_case(&let_cases[i]);
}

/* Float identities of TVM's constant folder, on finite values (0.0 * x is
 * 0.0 only when x is finite: TVM folds it regardless, see docs/tir-arith.md).
 * Written with node constructors: the parser's operators would fold first. */
static const scase float_cases[] = {
    {"float_identities", "", true,
     FN("A: T.Buffer((3,), \"float32\"), B: T.Buffer((3,), \"float32\")",
        "    A[0] = T.Add(T.Mul(B[0], T.float32(0)), T.Div(T.Mul(T.float32(1), B[1]), T.float32(1)))\n"
        "    A[1] = T.Add(T.Div(T.float32(0), B[2] * B[2] + T.float32(1)), T.Sub(B[0], T.float32(0)))\n"
        "    A[2] = T.Add(T.float32(0) - B[1], T.Mul(T.float32(0), T.float32(3)))\n")},
};

/* Bounds of shifts and of int(ceil(log2(x))) decide conditions; a shift of
 * a possibly negative value decides nothing. */
static const scase intrinsic_cases[] = {
    {"shift_bounds", "", true,
     FN("A: T.Buffer((16,), \"int32\")",
        "    for i in range(16):\n        if T.shift_left(3, i) >= 3:\n            A[i] = 1\n"
        "        if -64 <= T.shift_left(0 - i, 4):\n            A[i] = A[i] + 2\n"
        "        x = T.Cast(\"int32\", T.ceil(T.log2(T.Cast(\"float64\", i + 1000))))\n"
        "        if x == 10:\n            A[i] = A[i] + x\n")},
    {"ceil_log2_const", "", true,
     FN("A: T.Buffer((2,), \"int32\")",
        "    A[0] = T.Cast(\"int32\", T.ceil(T.log2(T.Cast(\"float64\", 33))))\n"
        "    A[1] = T.shift_left(5, 3) + T.shift_right(40, 2)\n")},
};

/* convert_boolean_to_and_of_ors: conditions distributed into an AND of ORs
 * and simplified within and between the groups, in stores, ifs, selects,
 * if_then_else and asserts; buffer reads as terms too. */
static const scase and_of_ors_cases[] = {
    {"and_of_ors", "convert_boolean_to_and_of_ors", true,
     FN("F: T.Buffer((6,), \"bool\"), B: T.Buffer((4,), \"int32\"), p: T.int32, q: T.int32, r: T.int32",
        "    F[0] = (p == 1 or q == 4 or r == 2) and (q == 4 or r != 9 or p == 1)\n"
        "    F[1] = r == 3 and ((p == 0 or q == 2) and r != 5)\n"
        "    F[2] = p == 7 or q < 3 or p != 11\n"
        "    F[3] = B[0] > 0 or (B[1] > 0 and B[2] > 0 and p < q)\n"
        "    if (p < 4 or q == 2) and (p < 4 or q != 2):\n"
        "        F[4] = T.Select(q == 5 or (r == 1 and p == 2), p < 6 or q < 6, r == p)\n"
        "    F[5] = T.if_then_else(p == 3 and (q == 1 or r == 1), r == 1 or (p == 3 and q == 1), q > r)\n")},
    {"and_of_ors_assert", "convert_boolean_to_and_of_ors,apply_constraints_to_boolean_branches", true,
     FN("A: T.Buffer((2,), \"int32\"), p: T.int32, q: T.int32",
        "    if (p == 2 or q != 3) and (p == 2 or q != 5):\n"
        "        A[0] = T.Select(p < 10 and q == 3 or p == 2, 1, 0)\n"
        "    A[1] = T.Select((p != 1 or q != 1) and (p != 1 or q == 2), p, q)\n")},
};

static void test_and_of_ors(void) {
  for (size_t i = 0; i < sizeof and_of_ors_cases / sizeof *and_of_ors_cases; i++) run_case(&and_of_ors_cases[i]);
}

static void test_intrinsics(void) {
  for (size_t i = 0; i < sizeof intrinsic_cases / sizeof *intrinsic_cases; i++) run_case(&intrinsic_cases[i]);
}

static void test_floats(void) {
  for (size_t i = 0; i < sizeof float_cases / sizeof *float_cases; i++) run_case(&float_cases[i]);
}

int main(void) {
  if (psg_ctx_create(NULL, &ctx)) return 2;
  RUN_TEST(test_compare);
  RUN_TEST(test_lets);
  RUN_TEST(test_floats);
  RUN_TEST(test_intrinsics);
  RUN_TEST(test_and_of_ors);
  psg_ctx_release(ctx);
  return check_finish();
}
