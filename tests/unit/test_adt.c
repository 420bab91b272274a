/* Unit tests for ADTs and references in the C API: TypeData in a module,
 * Constructor, Match with flat patterns (variables as children), the mutator
 * keeping pattern variables, structural equality, unmatched cases, the text
 * round trip, InferType and the interpreter on a list program. */
#include "pass_check.h"

typedef struct list_adt {
  const psg_type *list, *a;
  psg_expr *cons, *nil;
  psg_module *mod;
} list_adt;

static void make_list(psg_ctx *ctx, list_adt *l) {
  CHECK_OK(psg_type_global_var(ctx, "List", PSG_TYPE_KIND_ADT_HANDLE, &l->list));
  CHECK_OK(psg_type_var(ctx, "A", PSG_TYPE_KIND_TYPE, &l->a));
  const psg_type *la;
  CHECK_OK(psg_type_call(ctx, l->list, &l->a, 1, &la));
  CHECK_OK(psg_constructor_create(ctx, "Cons", (const psg_type *[]){l->a, la}, 2, l->list, NULL, &l->cons));
  CHECK_OK(psg_constructor_create(ctx, "Nil", NULL, 0, l->list, NULL, &l->nil));
  psg_type_data *td;
  CHECK_OK(psg_type_data_create(ctx, l->list, &l->a, 1, (psg_expr *[]){l->cons, l->nil}, 2, &td));
  /* Tags: consecutive within the ADT, under a non-zero prefix in the top
   * byte (TVM's scheme), so no tag is the bare index. */
  int tag = psg_constructor_tag(l->cons);
  CHECK(tag > 0 && (tag & 0xffffff) == 0 && (tag >> 24) >= 1 && (tag >> 24) <= 127);
  CHECK_EQ_INT(psg_constructor_tag(l->nil), tag + 1);
  psg_module *m0;
  CHECK_OK(psg_module_create(ctx, &m0));
  CHECK_OK(psg_module_add_type_def(m0, td, false, &l->mod));
  psg_module *dup = NULL;
  CHECK(psg_module_add_type_def(l->mod, td, false, &dup) == PSG_ERR_INVALID_ARGUMENT);
  psg_ctx_clear_diags(ctx);
  psg_module_release(m0);
  psg_type_data_release(td);
}

static void free_list(list_adt *l) {
  psg_expr_release(l->cons);
  psg_expr_release(l->nil);
  psg_module_release(l->mod);
}

/* match (%v) { Cons(%h, _) => %h, Nil => %d } over fresh variables. */
static psg_expr *head_or(psg_ctx *ctx, const list_adt *l, psg_expr *v, psg_expr *d) {
  psg_expr *h;
  CHECK_OK(psg_var_create(ctx, "h", NULL, NULL, &h));
  psg_pattern *ph, *w, *pc, *pn;
  CHECK_OK(psg_pattern_var(ctx, h, &ph));
  CHECK_OK(psg_pattern_wildcard(ctx, &w));
  CHECK_OK(psg_pattern_constructor(ctx, l->cons, (psg_pattern *[]){ph, w}, 2, &pc));
  CHECK_OK(psg_pattern_constructor(ctx, l->nil, NULL, 0, &pn));
  psg_expr *m;
  CHECK_OK(psg_match_create(ctx, v, (psg_pattern *[]){pc, pn}, (psg_expr *[]){h, d}, 2, true, NULL, &m));
  psg_pattern *pats[] = {ph, w, pc, pn};
  for (int i = 0; i < 4; i++) psg_pattern_release(pats[i]);
  psg_expr_release(h);
  return m;
}

static void test_match_layout(void) {
  psg_ctx *ctx = check_ctx();
  list_adt l;
  make_list(ctx, &l);
  psg_expr *v, *d;
  CHECK_OK(psg_var_create(ctx, "v", NULL, NULL, &v));
  CHECK_OK(psg_var_create(ctx, "d", NULL, NULL, &d));
  psg_expr *m = head_or(ctx, &l, v, d);
  /* children: data, %h, rhs 0 (%h), rhs 1 (%d) */
  CHECK_EQ_INT((int)psg_expr_num_children(m), 4);
  CHECK_EQ_INT((int)psg_match_num_clauses(m), 2);
  CHECK_EQ_INT((int)psg_match_clause_num_vars(m, 0), 1);
  CHECK(psg_match_clause_rhs(m, 0) == psg_match_clause_var(m, 0, 0));
  psg_pattern *p;
  CHECK_OK(psg_match_clause_pattern(m, 0, &p));
  CHECK_EQ_INT(psg_pattern_kind(p), PSG_PATTERN_CONSTRUCTOR);
  CHECK_EQ_INT(psg_pattern_num_fields(p), 2);
  psg_pattern *f1;
  CHECK_OK(psg_pattern_field(p, 0, &f1));
  CHECK(psg_pattern_get_var(f1) == psg_match_clause_var(m, 0, 0));
  psg_pattern_release(f1);
  psg_pattern_release(p);
  /* alpha-equivalent: another match over fresh pattern variables */
  psg_expr *m2 = head_or(ctx, &l, v, d);
  CHECK(psg_expr_structural_equal(m, m2));
  CHECK(psg_expr_structural_hash(m) == psg_expr_structural_hash(m2));
  /* the mutator rebuilds a match whose data changed, keeping its layout */
  psg_mutator mu;
  psg_mutator_init(&mu, ctx);
  psg_expr *w2, *out;
  CHECK_OK(psg_var_create(ctx, "w", NULL, NULL, &w2));
  CHECK_OK(psg_mutator_set_result(&mu, v, w2));
  CHECK_OK(psg_mutate(&mu, m, &out));
  psg_mutator_fini(&mu);
  CHECK(out != m && psg_match_get_data(out) == w2 && psg_match_num_clauses(out) == 2);
  CHECK(psg_expr_well_formed(out));
  psg_pattern *cases;
  CHECK_OK(psg_match_unmatched_cases(m, l.mod, &cases));
  CHECK_EQ_INT(psg_pattern_num_fields(cases), 0);
  psg_pattern_release(cases);
  psg_expr *objs[] = {v, d, m, m2, w2, out};
  for (int i = 0; i < 6; i++) psg_expr_release(objs[i]);
  free_list(&l);
  CHECK_CTX_CLEAN(ctx);
}

static const char LIST_TEXT[] = "#[version = \"0.0.5\"]\n"
                                "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n\n"
                                "def @sum(%xs: List[float32]) -> float32 {\n"
                                "  match (%xs) {\n"
                                "    Cons(%x, %rest) => {\n      %0 = @sum(%rest);\n      add(%x, %0)\n    },\n"
                                "    Nil => {\n      0f\n    },\n  }\n}\n\n"
                                "def @main() -> float32 {\n"
                                "  %1 = ref(2f);\n"
                                "  let %v = ref_write(%1, 5f);\n"
                                "  %2 = ref_read(%1);\n"
                                "  %3 = Nil;\n"
                                "  %4 = Cons(%2, %3);\n"
                                "  %5 = Cons(1f, %4);\n"
                                "  @sum(%5)\n}\n";

static void test_text_infer_eval(void) {
  psg_ctx *ctx = check_ctx();
  psg_module *m = parse(ctx, LIST_TEXT), *back, *typed;
  CHECK(m != NULL);
  char *text;
  CHECK_OK(psg_module_print(m, 0, &text, NULL));
  CHECK_OK(psg_module_parse(ctx, text, strlen(text), "back.relay", &back));
  CHECK(psg_module_structural_equal(m, back, NULL));
  psg_free(text);
  typed = run(ctx, "InferType", NULL, m);
  psg_tensor **outs;
  size_t n;
  CHECK_OK(psg_eval(ctx, typed, "main", NULL, 0, &outs, &n));
  CHECK_EQ_INT((int)n, 1);
  CHECK(*(const float *)psg_tensor_data(outs[0]) == 6.0f); /* 1 + 5: the write is seen */
  psg_tensor_release(outs[0]);
  psg_free(outs);
  psg_module_release(m);
  psg_module_release(back);
  psg_module_release(typed);
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  RUN_TEST(test_match_layout);
  RUN_TEST(test_text_infer_eval);
  return check_finish();
}
