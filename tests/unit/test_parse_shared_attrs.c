/* The Relay parser shares the attributes of calls written with the same
 * attribute text (docs/design.md departure 242): one psg_attrs for all of
 * them, but only when the values are equal (an op reading the same text as
 * other kinds keeps its own); the shared object outlives the parse exactly
 * as long as a call holds it; out of memory while sharing fails cleanly. */
#include "check.h"

static const char *const TEXT =
    "#[version = \"0.0.5\"]\n"
    "def @g(%y: Tensor[(2), float32]) -> Tensor[(2), float32] {\n  %y\n}\n\n"
    "def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {\n"
    "  %0 = clip(%x, a_min=0, a_max=6);\n"
    "  %1 = @g(%0, a_min=0, a_max=6);\n"
    "  %2 = clip(%1, a_min=0, a_max=6);\n"
    "  %3 = clip(%2, a_min=0,  a_max=6);\n"
    "  %4 = nn.leaky_relu(%3, alpha=0.5f);\n"
    "  nn.leaky_relu(%4, alpha=0.5f)\n"
    "}\n";

/* The calls of @main's body from the first (%0) to the last, by walking
 * the first argument from the result. */
static size_t main_calls(const psg_module *m, psg_expr **out, size_t cap) {
  psg_expr *main_fn = psg_module_lookup(m, "main");
  psg_expr *e = main_fn ? psg_function_get_body(main_fn) : NULL;
  size_t n = 0;
  while (e && psg_expr_kind(e) == PSG_EXPR_CALL && n < cap) {
    out[n++] = e;
    e = psg_call_num_args(e) ? psg_call_get_arg(e, 0) : NULL;
  }
  for (size_t i = 0; i < n / 2; i++) { /* source order */
    psg_expr *t = out[i];
    out[i] = out[n - 1 - i];
    out[n - 1 - i] = t;
  }
  return n;
}

static void test_shared_when_equal(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = NULL;
  CHECK_OK(psg_module_parse(ctx, TEXT, strlen(TEXT), "shared.relay", &m));
  psg_expr *calls[8];
  CHECK_EQ_INT(main_calls(m, calls, 8), 6);
  psg_attrs *clip0 = psg_call_get_attrs(calls[0]), *g1 = psg_call_get_attrs(calls[1]);
  CHECK(clip0 == psg_call_get_attrs(calls[2]));            /* same text, same values: one object */
  CHECK(clip0 != psg_call_get_attrs(calls[3]));            /* other text (a second space) */
  CHECK(psg_attrs_equal(clip0, psg_call_get_attrs(calls[3]))); /* ... equal all the same */
  CHECK(clip0 != g1 && !psg_attrs_equal(clip0, g1));       /* clip reads floats, @g's call ints */
  CHECK_EQ_INT(psg_attr_kind(psg_attrs_get(clip0, "a_min")), PSG_ATTR_FLOAT);
  CHECK_EQ_INT(psg_attr_kind(psg_attrs_get(g1, "a_min")), PSG_ATTR_INT);
  CHECK(psg_call_get_attrs(calls[4]) == psg_call_get_attrs(calls[5]));
  /* The text prints as before, with each call's own values. */
  char *s = NULL;
  size_t len = 0;
  CHECK_OK(psg_module_print(m, 0, &s, &len));
  CHECK(s && strstr(s, "%0 = clip(%x, a_min=0f, a_max=6f);"));
  CHECK(s && strstr(s, "%1 = @g(%0, a_min=0, a_max=6);"));
  psg_free(s);
  /* Shared attributes live as long as a call holding them. */
  psg_attrs_retain(clip0);
  psg_module_release(m);
  CHECK_EQ_INT(psg_ctx_live_objects(ctx), 3); /* the attributes and their two values */
  CHECK_EQ_INT(psg_attr_kind(psg_attrs_get(clip0, "a_max")), PSG_ATTR_FLOAT);
  psg_attrs_release(clip0);
  CHECK_CTX_CLEAN(ctx);
}

/* Every allocation of the parse fails in turn: an error or a whole module
 * (some allocations only speed things up), never a crash or a leak. */
static void test_out_of_memory(void) {
  for (long at = 1;; at++) {
    check_alloc a = {0, at};
    psg_ctx *ctx = check_ctx_with(&a);
    if (!ctx) continue;
    psg_module *m = NULL;
    psg_status st = psg_module_parse(ctx, TEXT, strlen(TEXT), "shared.relay", &m);
    bool failed = a.calls >= at;
    CHECK((st == PSG_OK) == (m != NULL));
    psg_module_release(m);
    CHECK_CTX_CLEAN(ctx);
    if (!failed) break;
  }
}

int main(void) {
  RUN_TEST(test_shared_when_equal);
  RUN_TEST(test_out_of_memory);
  return check_finish();
}
