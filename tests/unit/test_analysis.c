/* Relay analyses and ObjectPath through their public API
 * (include/passage/analysis.h, object_path.h): kind checking of every type
 * kind and its errors, the call graph's counts, recursion and printed order,
 * ObjectPath steps, equality, prefixes and text, and the first mismatch of
 * TIR arrays and maps (what TVM's test_pass_check_kind, test_call_graph,
 * test_object_path and test_container_structural_equal check). */
#include <string.h>
#include "check.h"
#include "passage/passage.h"

static const psg_type *var(psg_ctx *ctx, const char *name, int kind) {
  const psg_type *t = NULL;
  CHECK_OK(psg_type_var(ctx, name, kind, &t));
  return t;
}

static const psg_type *tensor(psg_ctx *ctx) {
  const psg_type *t = NULL;
  int64_t dims[3] = {1, 2, 3};
  CHECK_OK(psg_type_tensor(ctx, dims, 3, PSG_DTYPE_FLOAT32, &t));
  return t;
}

static int kind_of(psg_ctx *ctx, const psg_type *t) {
  int k = -2;
  psg_status st = psg_type_check_kind(ctx, t, &k);
  return st == PSG_OK ? k : st;
}

static const char *last_message(psg_ctx *ctx) {
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  return d ? psg_diag_message(d) : "";
}

static void test_check_kind(void) {
  psg_ctx *ctx = check_ctx();
  const psg_type *tp = var(ctx, "tp", PSG_TYPE_KIND_TYPE), *sv = var(ctx, "sv", PSG_TYPE_KIND_SHAPE_VAR);
  const psg_type *cv = var(ctx, "cv", PSG_TYPE_KIND_CONSTRAINT), *tt = tensor(ctx), *t = NULL, *f = NULL;
  /* Variables carry their kind. */
  CHECK_EQ_INT(kind_of(ctx, tp), PSG_TYPE_KIND_TYPE);
  CHECK_EQ_INT(kind_of(ctx, sv), PSG_TYPE_KIND_SHAPE_VAR);
  CHECK_EQ_INT(kind_of(ctx, cv), PSG_TYPE_KIND_CONSTRAINT);
  const psg_type *gtv = NULL, *hole = NULL;
  CHECK_OK(psg_type_global_var(ctx, "gtv", PSG_TYPE_KIND_ADT_HANDLE, &gtv));
  CHECK_EQ_INT(kind_of(ctx, gtv), PSG_TYPE_KIND_ADT_HANDLE);
  CHECK_OK(psg_type_incomplete(ctx, PSG_TYPE_KIND_SHAPE_VAR, &hole));
  CHECK_EQ_INT(kind_of(ctx, hole), PSG_TYPE_KIND_SHAPE_VAR);
  /* Well-kinded composites are of kind Type. */
  CHECK_OK(psg_type_func_poly(ctx, (const psg_type *[]){tp, tt}, 2, tt, (const psg_type *[]){tp}, 1, &f));
  CHECK_OK(psg_type_tuple(ctx, (const psg_type *[]){tp, f, tt}, 3, &t));
  CHECK_EQ_INT(kind_of(ctx, t), PSG_TYPE_KIND_TYPE);
  CHECK_OK(psg_type_ref(ctx, t, &t));
  CHECK_EQ_INT(kind_of(ctx, t), PSG_TYPE_KIND_TYPE);
  /* A ShapeVar deep inside a tuple's function's result is found. */
  CHECK_OK(psg_type_func(ctx, NULL, 0, sv, &f));
  CHECK_OK(psg_type_tuple(ctx, (const psg_type *[]){tt, f}, 2, &t));
  CHECK_EQ_INT(kind_of(ctx, t), PSG_ERR_TYPE);
  CHECK(strstr(last_message(ctx), "function return type") != NULL);
  CHECK(strstr(last_message(ctx), "ShapeVar") != NULL);
  CHECK_OK(psg_type_func(ctx, (const psg_type *[]){cv}, 1, tt, &f));
  CHECK_EQ_INT(kind_of(ctx, f), PSG_ERR_TYPE);
  CHECK(strstr(last_message(ctx), "function type parameter") != NULL);
  CHECK_OK(psg_type_ref(ctx, sv, &t));
  CHECK_EQ_INT(kind_of(ctx, t), PSG_ERR_TYPE);
  CHECK(strstr(last_message(ctx), "ref contents") != NULL);
  /* A type call's callee must be an ADT handle; a well-kinded call names a
   * type no module defines. */
  const psg_type *not_adt = NULL;
  CHECK_OK(psg_type_global_var(ctx, "v1", PSG_TYPE_KIND_TYPE, &not_adt));
  CHECK_OK(psg_type_call(ctx, not_adt, NULL, 0, &t));
  CHECK_EQ_INT(kind_of(ctx, t), PSG_ERR_TYPE);
  CHECK(strstr(last_message(ctx), "type call function") != NULL);
  CHECK_OK(psg_type_call(ctx, gtv, (const psg_type *[]){sv}, 1, &t));
  CHECK_EQ_INT(kind_of(ctx, t), PSG_ERR_TYPE);
  CHECK(strstr(last_message(ctx), "type call argument") != NULL);
  CHECK_OK(psg_type_call(ctx, gtv, (const psg_type *[]){tt}, 1, &t));
  CHECK_EQ_INT(kind_of(ctx, t), PSG_ERR_TYPE);
  CHECK(strstr(last_message(ctx), "`gtv` is undefined") != NULL);
  /* Relations: arguments of kind Type make a Constraint. */
  int k = -2;
  CHECK_OK(psg_type_func(ctx, NULL, 0, tt, &f));
  CHECK_OK(psg_type_relation_check_kind(ctx, (const psg_type *[]){f, tt, tp}, 3, &k));
  CHECK_EQ_INT(k, PSG_TYPE_KIND_CONSTRAINT);
  CHECK_EQ_INT(psg_type_relation_check_kind(ctx, (const psg_type *[]){tt, sv}, 2, &k), PSG_ERR_TYPE);
  CHECK_EQ_INT(k, -1);
  CHECK(strstr(last_message(ctx), "argument to type relation") != NULL);
  CHECK_CTX_CLEAN(ctx);
}

static psg_module *parse(psg_ctx *ctx, const char *text) {
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "<test>", &m));
  return m;
}

/* A type call of an ADT the module defines is of kind Type when it gives as
 * many arguments as the definition has type variables. */
static void test_check_kind_adt(void) {
  psg_ctx *ctx = NULL;
  CHECK_OK(psg_ctx_create(NULL, &ctx));
  psg_module *m = parse(ctx, "#[version = \"0.0.5\"]\n"
                             "type List[A] { Cons(A, List[A]), Nil }\n"
                             "def @main() { () }\n");
  psg_type_data *td = m ? psg_module_find_type_def(m, "List") : NULL;
  CHECK(td != NULL);
  if (td) {
    const psg_type *list = psg_type_data_header(td), *tt = NULL, *t = NULL;
    int k = -2;
    CHECK_OK(psg_type_tuple(ctx, NULL, 0, &tt));
    CHECK_OK(psg_type_call(ctx, list, (const psg_type *[]){tt}, 1, &t));
    CHECK_OK(psg_type_check_kind_in(ctx, t, m, &k));
    CHECK_EQ_INT(k, PSG_TYPE_KIND_TYPE);
    CHECK_EQ_INT(psg_type_check_kind(ctx, t, &k), PSG_ERR_TYPE); /* no module: undefined */
    CHECK(strstr(last_message(ctx), "`List` is undefined") != NULL);
    CHECK_OK(psg_type_call(ctx, list, NULL, 0, &t));
    CHECK_EQ_INT(psg_type_check_kind_in(ctx, t, m, &k), PSG_ERR_TYPE);
    CHECK(strstr(last_message(ctx), "Expected 1 arguments") != NULL);
    CHECK_OK(psg_type_relation_check_kind_in(ctx, (const psg_type *[]){tt}, 1, m, &k));
    CHECK_EQ_INT(k, PSG_TYPE_KIND_CONSTRAINT);
  }
  psg_module_release(m);
  psg_ctx_release(ctx);
}

static ptrdiff_t entry(psg_call_graph *g, const char *name) {
  ptrdiff_t i = psg_call_graph_find(g, name);
  CHECK(i >= 0);
  return i < 0 ? 0 : i;
}

static void test_call_graph(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx,
                        "#[version = \"0.0.5\"]\n"
                        "def @g0(%x: Tensor[(2), float32]) { %x }\n"
                        "def @g1(%x: Tensor[(2), float32]) { @g0(%x) }\n"
                        "def @rec(%x: Tensor[(2), float32]) { @rec(@g0(%x)) }\n"
                        "def @main(%p: Tensor[(2), float32]) { multiply(@g0(%p), add(@g1(%p), @g1(%p))) }\n");
  psg_call_graph *g = NULL;
  CHECK_OK(psg_call_graph_create(m, &g));
  CHECK(psg_call_graph_get_module(g) == m);
  CHECK_EQ_INT(psg_call_graph_find(g, "nope"), -1);
  /* @g0 is referenced by @g1, @rec and @main (each function counts once). */
  CHECK_EQ_INT(psg_call_graph_ref_count(g, entry(g, "g0")), 3);
  CHECK_EQ_INT(psg_call_graph_ref_count(g, entry(g, "g1")), 1);
  CHECK_EQ_INT(psg_call_graph_ref_count(g, entry(g, "main")), 0);
  CHECK_EQ_INT(psg_call_graph_ref_count(g, entry(g, "rec")), 1);
  CHECK_EQ_INT(psg_call_graph_call_count(g, entry(g, "main")), 2);
  CHECK_EQ_INT(psg_call_graph_call_count(g, entry(g, "g0")), 0);
  CHECK(psg_call_graph_is_recursive(g, entry(g, "rec")));
  CHECK(!psg_call_graph_is_recursive(g, entry(g, "main")));
  char *text = NULL;
  CHECK_OK(psg_call_graph_print_entry(g, entry(g, "g1"), &text));
  CHECK(text && strstr(text, "Call graph node: g1 at: ") == text);
  CHECK(text && strstr(text, "#refs = 1\n  call site: <g1> calls g0\n") != NULL);
  psg_free(text);
  /* Whole graph: from each entry in module order (the recursive @rec, then
   * @main) breadth first over what is not yet printed, a later group going
   * in front: main, g1 | rec, g0. */
  CHECK_OK(psg_call_graph_print(g, &text));
  const char *rec = text ? strstr(text, "node: rec") : NULL, *main_ = text ? strstr(text, "node: main") : NULL;
  const char *g0 = text ? strstr(text, "node: g0") : NULL, *g1 = text ? strstr(text, "node: g1") : NULL;
  CHECK(rec && main_ && g0 && g1 && main_ < g1 && g1 < rec && rec < g0);
  psg_free(text);
  psg_call_graph_free(g);
  psg_module_release(m);
  /* A cycle no entry reaches cannot be ordered, as in TVM. */
  m = parse(ctx,
            "#[version = \"0.0.5\"]\n"
            "def @a(%x: Tensor[(2), float32]) { @b(%x) }\n"
            "def @b(%x: Tensor[(2), float32]) { @a(%x) }\n");
  CHECK_OK(psg_call_graph_create(m, &g));
  CHECK_EQ_INT(psg_call_graph_print(g, &text), PSG_ERR_INVALID_ARGUMENT);
  CHECK(text == NULL);
  psg_call_graph_free(g);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

static char *path_text(const psg_object_path *p) {
  char *s = NULL;
  CHECK_OK(psg_object_path_to_string(p, &s));
  return s;
}

#define CHECK_PATH(p, want)    \
  do {                         \
    char *s_ = path_text(p);   \
    CHECK_STR(s_, want);       \
    psg_free(s_);              \
  } while (0)

static void test_object_path(void) {
  psg_ctx *ctx = check_ctx();
  psg_object_path *root = NULL, *named = NULL, *foo = NULL, *idx = NULL, *p = NULL, *q = NULL;
  CHECK_OK(psg_object_path_root(ctx, NULL, &root));
  CHECK_OK(psg_object_path_root(ctx, "base", &named));
  CHECK_PATH(root, "<root>");
  CHECK_PATH(named, "base");
  CHECK(!psg_object_path_equal(root, named));
  CHECK_EQ_INT(psg_object_path_length(root), 1);
  CHECK(psg_object_path_get_parent(root) == NULL);
  CHECK_OK(psg_object_path_attr(root, "foo", &foo));
  CHECK_OK(psg_object_path_array_index(foo, 2, &idx));
  CHECK_PATH(idx, "<root>.foo[2]");
  CHECK_EQ_INT(psg_object_path_kind(idx), PSG_PATH_ARRAY_INDEX);
  CHECK_EQ_INT(psg_object_path_length(idx), 3);
  CHECK(psg_object_path_get_parent(idx) == foo);
  CHECK(psg_object_path_is_prefix_of(root, idx) && psg_object_path_is_prefix_of(foo, idx));
  CHECK(!psg_object_path_is_prefix_of(idx, foo));
  CHECK_OK(psg_object_path_get_prefix(idx, 2, &p));
  CHECK(p == foo);
  psg_object_path_release(p);
  CHECK_EQ_INT(psg_object_path_get_prefix(idx, 0, &p), PSG_ERR_INVALID_ARGUMENT);
  CHECK_STR(last_message(ctx), "Prefix length must be at least 1");
  CHECK_EQ_INT(psg_object_path_get_prefix(idx, 4, &p), PSG_ERR_INVALID_ARGUMENT);
  CHECK_STR(last_message(ctx), "Attempted to get a prefix longer than the path itself");
  CHECK(p == NULL);
  /* Every step's text, and equality step by step. */
  CHECK_OK(psg_object_path_attr(root, NULL, &p));
  CHECK_PATH(p, "<root>.<unknown attribute>");
  psg_object_path_release(p);
  CHECK_OK(psg_object_path_missing_array_element(root, 2, &p));
  CHECK_PATH(p, "<root>[<missing element #2>]");
  CHECK_OK(psg_object_path_array_index(root, 2, &q));
  CHECK(!psg_object_path_equal(p, q));
  psg_object_path_release(p);
  psg_object_path_release(q);
  CHECK_OK(psg_object_path_map_value(root, "foo", &p));
  CHECK_PATH(p, "<root>[\"foo\"]");
  psg_object_path_release(p);
  CHECK_OK(psg_object_path_missing_map_entry(foo, &p));
  CHECK_PATH(p, "<root>.foo[<missing entry>]");
  CHECK_OK(psg_object_path_root(ctx, NULL, &q));
  psg_object_path *q2 = NULL, *q3 = NULL;
  CHECK_OK(psg_object_path_attr(q, "foo", &q2));
  CHECK_OK(psg_object_path_missing_map_entry(q2, &q3));
  CHECK(psg_object_path_equal(p, q3)); /* separately built, equal */
  psg_object_path_release(q3);
  psg_object_path_release(q2);
  psg_object_path_release(q);
  psg_object_path_release(p);
  psg_object_path_release(idx);
  psg_object_path_release(foo);
  psg_object_path_release(named);
  psg_object_path_release(root);
  CHECK_CTX_CLEAN(ctx);
}

static psg_tir_expr *imm(psg_ctx *ctx, int64_t v) {
  psg_tir_expr *e = NULL;
  CHECK_OK(psg_tir_int_imm_create(ctx, psg_tir_dtype_make(PSG_TIR_CODE_INT, 32, 1), v, NULL, &e));
  return e;
}

static void test_container_mismatch(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_node *n[5];
  for (int i = 0; i < 5; i++) n[i] = imm(ctx, i);
  psg_object_path *ra = NULL, *rb = NULL, *pa = NULL, *pb = NULL;
  CHECK_OK(psg_object_path_root(ctx, NULL, &ra));
  CHECK_OK(psg_object_path_root(ctx, NULL, &rb));
  /* [1, 3, 4] vs [1, 2, 3, 4]: the first differing element wins over length. */
  const psg_tir_node *a[] = {n[1], n[3], n[4]}, *b[] = {n[1], n[2], n[3], n[4]};
  CHECK_OK(psg_tir_array_first_mismatch(ra, a, 3, rb, b, 4, &pa, &pb));
  CHECK_PATH(pa, "<root>[1]");
  CHECK_PATH(pb, "<root>[1]");
  psg_object_path_release(pa);
  psg_object_path_release(pb);
  /* [1, 2, 3] vs [1, 2, 3, 4]: the shorter side misses element 3. */
  const psg_tir_node *c[] = {n[1], n[2], n[3]};
  CHECK_OK(psg_tir_array_first_mismatch(ra, c, 3, rb, b + 0, 0, &pa, &pb));
  CHECK_PATH(pa, "<root>[0]");
  CHECK_PATH(pb, "<root>[<missing element #0>]");
  psg_object_path_release(pa);
  psg_object_path_release(pb);
  CHECK_OK(psg_tir_array_first_mismatch(ra, c, 3, rb, c, 3, &pa, &pb));
  CHECK(pa == NULL && pb == NULL);
  /* Maps: a differing value, then a key only b has. */
  const char *ka[] = {"a", "b"}, *kb[] = {"a", "b", "c"};
  const psg_tir_node *va[] = {n[3], n[4]}, *vb[] = {n[3], n[2], n[0]}, *vc[] = {n[3], n[4], n[0]};
  CHECK_OK(psg_tir_map_first_mismatch(ra, ka, va, 2, rb, kb, vb, 3, &pa, &pb));
  CHECK_PATH(pa, "<root>[\"b\"]");
  CHECK_PATH(pb, "<root>[\"b\"]");
  psg_object_path_release(pa);
  psg_object_path_release(pb);
  CHECK_OK(psg_tir_map_first_mismatch(ra, ka, va, 2, rb, kb, vc, 3, &pa, &pb));
  CHECK_PATH(pa, "<root>[<missing entry>]");
  CHECK_PATH(pb, "<root>[\"c\"]");
  psg_object_path_release(pa);
  psg_object_path_release(pb);
  CHECK_OK(psg_tir_map_first_mismatch(rb, kb, vc, 3, ra, ka, va, 2, &pa, &pb));
  CHECK_PATH(pa, "<root>[\"c\"]");
  CHECK_PATH(pb, "<root>[<missing entry>]");
  psg_object_path_release(pa);
  psg_object_path_release(pb);
  psg_object_path_release(ra);
  psg_object_path_release(rb);
  for (int i = 0; i < 5; i++) psg_tir_release(n[i]);
  CHECK_CTX_CLEAN(ctx);
}

static void test_expr_mismatch(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx,
                        "#[version = \"0.0.5\"]\n"
                        "def @a(%x: Tensor[(2), float32]) { add(%x, 1f) }\n"
                        "def @b(%y: Tensor[(2), float32]) { add(%y, 2f) }\n"
                        "def @c(%z: Tensor[(2), float32]) { add(%z, 1f) }\n");
  psg_expr *a = psg_module_lookup(m, "a"), *b = psg_module_lookup(m, "b"), *c = psg_module_lookup(m, "c");
  psg_object_path *ra = NULL, *rb = NULL, *pa = NULL, *pb = NULL;
  CHECK_OK(psg_object_path_root(ctx, NULL, &ra));
  CHECK_OK(psg_object_path_root(ctx, "rhs", &rb));
  CHECK_OK(psg_expr_first_mismatch(a, b, false, ra, rb, &pa, &pb));
  CHECK_PATH(pa, "<root>.body.args[1]");
  CHECK_PATH(pb, "rhs.body.args[1]");
  psg_object_path_release(pa);
  psg_object_path_release(pb);
  /* Alpha-equivalent functions: no mismatch. */
  CHECK_OK(psg_expr_first_mismatch(a, c, false, ra, rb, &pa, &pb));
  CHECK(pa == NULL && pb == NULL);
  psg_object_path_release(ra);
  psg_object_path_release(rb);
  psg_module_release(m);
  CHECK_CTX_CLEAN(ctx);
}

/* One run of every analysis in ctx; each step may fail with NOMEM only. */
static void analyses_once(psg_ctx *ctx) {
  static const char text[] = "#[version = \"0.0.5\"]\n"
                             "def @g(%x: Tensor[(2), float32]) { @g(%x) }\n"
                             "def @main(%p: Tensor[(2), float32]) { add(@g(%p), 1f) }\n";
  psg_module *m = NULL;
  if (psg_module_parse(ctx, text, strlen(text), "<oom>", &m) != PSG_OK) return;
  psg_call_graph *g = NULL;
  char *s = NULL;
  psg_status st = psg_call_graph_create(m, &g);
  CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
  if (st == PSG_OK) {
    st = psg_call_graph_print(g, &s);
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    psg_free(s);
    s = NULL;
    st = psg_call_graph_print_entry(g, 0, &s);
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    psg_free(s);
    s = NULL;
  }
  psg_call_graph_free(g);
  psg_object_path *ra = NULL, *rb = NULL, *pa = NULL, *pb = NULL;
  if (psg_object_path_root(ctx, NULL, &ra) == PSG_OK && psg_object_path_root(ctx, "b", &rb) == PSG_OK) {
    st = psg_expr_first_mismatch(psg_module_get_function(m, 0), psg_module_get_function(m, 1), false, ra, rb, &pa,
                                 &pb);
    CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
    if (pa) {
      st = psg_object_path_to_string(pa, &s);
      CHECK(st == PSG_OK || st == PSG_ERR_NOMEM);
      psg_free(s);
    }
  }
  psg_object_path_release(pa);
  psg_object_path_release(pb);
  psg_object_path_release(ra);
  psg_object_path_release(rb);
  const psg_type *t = NULL, *v = NULL;
  int k;
  if (psg_type_var(ctx, "v", PSG_TYPE_KIND_SHAPE_VAR, &v) == PSG_OK &&
      psg_type_tuple(ctx, (const psg_type *[]){v, v}, 2, &t) == PSG_OK) {
    st = psg_type_check_kind(ctx, t, &k);
    CHECK(st == PSG_ERR_TYPE || st == PSG_ERR_NOMEM);
  }
  psg_module_release(m);
}

/* Every allocation failure in turn: clean errors, no leak, no crash. */
static void test_oom(void) {
  check_alloc clean = {0, 0};
  psg_ctx *ctx = check_ctx_with(&clean);
  analyses_once(ctx);
  CHECK_CTX_CLEAN(ctx);
  for (long n = 1; n <= clean.calls; n++) {
    check_alloc a = {0, n};
    ctx = check_ctx_with(&a);
    if (!ctx) continue;
    analyses_once(ctx);
    CHECK_EQ_INT(psg_ctx_live_objects(ctx), 0);
    psg_ctx_release(ctx);
  }
}

int main(void) {
  RUN_TEST(test_check_kind);
  RUN_TEST(test_check_kind_adt);
  RUN_TEST(test_call_graph);
  RUN_TEST(test_object_path);
  RUN_TEST(test_container_mismatch);
  RUN_TEST(test_expr_mismatch);
  RUN_TEST(test_oom);
  return check_finish();
}
