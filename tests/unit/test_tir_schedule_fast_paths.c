/* Passage — the schedule primitives' fast paths against what they stand
 * for, on every statement of the hand-written TIR corpus
 * (tests/tir_corpus/cases) and of 200 random loop nests:
 *  - the path copy (psgi_sch_with_stmt_kid, src/tir/schedule/tree.c): a
 *    statement with one statement operand replaced must be what
 *    psgi_tir_rebuild (the checked constructors) makes of it — same kind,
 *    flags, dtype, span, payload and operands, the very operand nodes —
 *    each operand replaced by a fresh T.evaluate(0) and by itself. Every
 *    kind the copy handles must occur, so the comparison is not vacuous; a
 *    parent it does not handle, or an expression kid, must give nothing.
 *  - the stores after a statement from its path
 *    (psgi_sch_written_after_path, schedule.c) must be the first one the
 *    whole-function walk (psgi_sch_written_after) finds, for every
 *    statement that occurs once, over all the stored buffers and over each
 *    one alone; both answers (a store, none) must occur.
 *  - the range of a constant loop in the region analysis
 *    (psgi_sch_loop_range, region.c) must be the general interval
 *    evaluation's, for every loop, and for hand-made loops at the edges of
 *    the fast path (extent 1 and 2^30, a min of 3, int64, extent 0). */
#include "tir/schedule/schedule_internal.h"
#include "tir_equiv.h"
/* the corpus loader's model lowering is not used here (no ONNX in unit tests) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "corpus_load.h"

static size_t compared[PSG_TIR_KIND_COUNT];

static bool same_payload(const psg_tir_node *a, const psg_tir_node *b) {
  switch (a->kind) {
  case PSG_TIR_FOR: return a->u.loop.kind == b->u.loop.kind && a->u.loop.annotations == b->u.loop.annotations;
  case PSG_TIR_ALLOCATE: return a->u.annotations == b->u.annotations;
  case PSG_TIR_ATTR_STMT: return a->u.attr_key == b->u.attr_key;
  default: return true;
  }
}

static bool same_span(const psg_span *a, const psg_span *b) {
  return a->file == b->file && a->name == b->name && a->line == b->line && a->col == b->col;
}

/* The copy and the rebuild of parent with operand slot replaced by kid. */
static void compare_one(const char *what, const psg_tir_node *parent, uint32_t slot, psg_tir_node *kid) {
  psg_tir_node *copy = NULL, *built = NULL;
  CHECK_OK(psgi_sch_with_stmt_kid(TB.ctx, parent, slot, kid, &copy));
  if (!copy) {
    printf("FAIL %s: no copy of a %s's operand %u\n", what, psg_tir_kind_name(parent->kind), slot);
    CHECK(copy != NULL);
    return;
  }
  psg_tir_node **kids = malloc(parent->nkids * sizeof *kids);
  if (!kids) return;
  memcpy(kids, parent->kids, parent->nkids * sizeof *kids);
  kids[slot] = kid;
  CHECK_OK(psgi_tir_rebuild(parent, kids, &built));
  free(kids);
  bool same = built && copy->kind == built->kind && copy->flags == built->flags && copy->dtype == built->dtype &&
              copy->nkids == built->nkids && same_payload(copy, built) && same_span(&copy->span, &built->span) &&
              copy->refcount == 1;
  for (uint32_t i = 0; same && i < copy->nkids; i++) same = copy->kids[i] == built->kids[i];
  same = same && psg_tir_structural_equal(copy, built);
  if (!same) printf("FAIL %s: the copy of a %s with operand %u replaced differs from its rebuild\n", what,
                    psg_tir_kind_name(parent->kind), slot);
  CHECK(same);
  compared[parent->kind]++;
  psg_tir_release(copy);
  psg_tir_release(built);
}

/* Every statement reached by the walk, with its path (copied). */
typedef struct stmt_list {
  PSGI_VEC(psgi_sch_path) paths;
  PSGI_VEC(psg_tir_node *) datas; /* the data vars stored to, each once */
} stmt_list;

static size_t found_after, none_after;

static int list_visit(const psgi_sch_path *path, void *user) {
  stmt_list *l = user;
  psgi_sch_path c = {0};
  for (size_t i = 0; i < path->node.len; i++) CHECK(PSGI_VEC_PUSH(TB.ctx, &c.node, path->node.data[i]));
  for (size_t i = 0; i < path->slot.len; i++) CHECK(PSGI_VEC_PUSH(TB.ctx, &c.slot, path->slot.data[i]));
  CHECK(PSGI_VEC_PUSH(TB.ctx, &l->paths, c));
  psg_tir_node *n = psgi_sch_path_last(path);
  if (n->kind != PSG_TIR_BUFFER_STORE) return PSG_VISIT_CONTINUE;
  for (size_t i = 0; i < l->datas.len; i++)
    if (l->datas.data[i] == n->kids[0]->kids[0]) return PSG_VISIT_CONTINUE;
  CHECK(PSGI_VEC_PUSH(TB.ctx, &l->datas, n->kids[0]->kids[0]));
  return PSG_VISIT_CONTINUE;
}

static void compare_after(const char *what, psg_tir_node *body, const psgi_sch_path *p, psg_tir_node *const *datas,
                          size_t n) {
  const psg_tir_node *slow = NULL, *fast = (const psg_tir_node *)1;
  CHECK_OK(psgi_sch_written_after(TB.ctx, body, psgi_sch_path_last(p), datas, n, &slow));
  CHECK_OK(psgi_sch_written_after_path(TB.ctx, p, p->node.len - 1, datas, n, &fast));
  if (slow != fast) printf("FAIL %s: the stores after a %s differ (walk %p, path %p)\n", what,
                          psg_tir_kind_name(psgi_sch_path_last(p)->kind), (const void *)slow, (const void *)fast);
  CHECK(slow == fast);
  if (slow) found_after++;
  else none_after++;
}

static void compare_written_after(const char *what, psg_tir_node *body) {
  stmt_list l = {0};
  psgi_sch_path tmp = {0};
  CHECK_OK(psgi_sch_walk(TB.ctx, body, list_visit, &l, &tmp));
  psgi_sch_path_fini(TB.ctx, &tmp);
  for (size_t i = 0; i < l.paths.len; i++) {
    psgi_sch_path *p = &l.paths.data[i];
    size_t times = 0;
    for (size_t j = 0; j < l.paths.len; j++) times += psgi_sch_path_last(&l.paths.data[j]) == psgi_sch_path_last(p);
    if (times != 1) continue; /* the path form's condition */
    compare_after(what, body, p, l.datas.data, l.datas.len);
    for (size_t k = 0; k < l.datas.len; k++) compare_after(what, body, p, &l.datas.data[k], 1);
  }
  for (size_t i = 0; i < l.paths.len; i++) psgi_sch_path_fini(TB.ctx, &l.paths.data[i]);
  PSGI_VEC_FREE(TB.ctx, &l.paths);
  PSGI_VEC_FREE(TB.ctx, &l.datas);
}

typedef struct each_stmt {
  const char *what;
  psg_tir_node *eval0;
} each_stmt;

static int visit(const psgi_sch_path *path, void *user) {
  each_stmt *e = user;
  const psg_tir_node *n = psgi_sch_path_last(path);
  for (uint32_t k = 0; k < n->nkids; k++) {
    psg_tir_node *kid = n->kids[k];
    psg_tir_node *none = (psg_tir_node *)1;
    if (!psgi_tir_is_stmt_kind(kid->kind)) { /* an expression operand: no copy */
      CHECK_OK(psgi_sch_with_stmt_kid(TB.ctx, n, k, e->eval0, &none));
      CHECK(none == NULL);
      continue;
    }
    if (n->kind == PSG_TIR_PRIM_FUNC) continue;
    compare_one(e->what, n, k, e->eval0);
    compare_one(e->what, n, k, kid);
  }
  return PSG_VISIT_CONTINUE;
}

static size_t const_loops;

static bool same_or_null(const psg_tir_node *a, const psg_tir_node *b) {
  return a && b ? psg_tir_structural_equal(a, b) : a == b;
}

static void compare_range(const char *what, const psg_tir_node *f) {
  psg_tir_node *lo1 = NULL, *hi1 = NULL, *lo2 = NULL, *hi2 = NULL;
  bool u1 = false, u2 = false;
  CHECK_OK(psgi_sch_loop_range(TB.ctx, f, true, &lo1, &hi1, &u1));
  CHECK_OK(psgi_sch_loop_range(TB.ctx, f, false, &lo2, &hi2, &u2));
  bool same = u1 == u2 && same_or_null(lo1, lo2) && same_or_null(hi1, hi2);
  if (!same) printf("FAIL %s: the range of loop '%s' differs from the general one\n", what, f->kids[0]->u.var.name);
  CHECK(same);
  const_loops += f->kids[1]->kind == PSG_TIR_INT_IMM && f->kids[2]->kind == PSG_TIR_INT_IMM;
  psg_tir_release(lo1);
  psg_tir_release(hi1);
  psg_tir_release(lo2);
  psg_tir_release(hi2);
}

static int range_visit(const psgi_sch_path *path, void *user) {
  const psg_tir_node *n = psgi_sch_path_last(path);
  if (n->kind == PSG_TIR_FOR) compare_range(user, n);
  return PSG_VISIT_CONTINUE;
}

/* Loops at the edges of the fast path, and just outside it. */
static void test_loop_range_edges(void) {
  static const int64_t cases[][2] = {{0, 1}, {0, (int64_t)1 << 30}, {3, 5}, {(int64_t)1 << 30, 7}, {0, 0},
                                     {((int64_t)1 << 30) + 1, 2}, {0, ((int64_t)1 << 30) + 1}};
  for (int wide = 0; wide < 2; wide++)
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
      psg_tir_dtype dt = wide ? psg_tir_dtype_int64() : psg_tir_dtype_int32();
      psg_tir_node *v = NULL, *mn = NULL, *ex = NULL, *zero = NULL, *body = NULL, *f = NULL;
      CHECK_OK(psg_tir_var_create(TB.ctx, "i", dt, NULL, NULL, &v));
      CHECK_OK(psg_tir_int_imm_create(TB.ctx, dt, cases[i][0], NULL, &mn));
      CHECK_OK(psg_tir_int_imm_create(TB.ctx, dt, cases[i][1], NULL, &ex));
      CHECK_OK(psg_tir_int_imm_create(TB.ctx, psg_tir_dtype_int32(), 0, NULL, &zero));
      CHECK_OK(psg_tir_evaluate_create(TB.ctx, zero, NULL, &body));
      CHECK_OK(psg_tir_for_create(TB.ctx, v, mn, ex, PSG_TIR_FOR_SERIAL, body, NULL, NULL, &f));
      if (f) compare_range(wide ? "edge int64" : "edge int32", f);
      psg_tir_release(v);
      psg_tir_release(mn);
      psg_tir_release(ex);
      psg_tir_release(zero);
      psg_tir_release(body);
      psg_tir_release(f);
    }
}

static void compare_func(const char *what, psg_tir_prim_func *f) {
  psg_tir_node *zero = NULL;
  each_stmt e = {what, NULL};
  CHECK_OK(psg_tir_int_imm_create(TB.ctx, psg_tir_dtype_int32(), 0, NULL, &zero));
  CHECK_OK(psg_tir_evaluate_create(TB.ctx, zero, NULL, &e.eval0));
  psg_tir_release(zero);
  psgi_sch_path path = {0};
  if (e.eval0) CHECK_OK(psgi_sch_walk(TB.ctx, ((psg_tir_node *)f)->kids[0], visit, &e, &path));
  psgi_sch_path_fini(TB.ctx, &path);
  psg_tir_release(e.eval0);
  compare_written_after(what, ((psg_tir_node *)f)->kids[0]);
  psgi_sch_path rp = {0};
  CHECK_OK(psgi_sch_walk(TB.ctx, ((psg_tir_node *)f)->kids[0], range_visit, (void *)what, &rp));
  psgi_sch_path_fini(TB.ctx, &rp);
}

static void test_corpus(void) {
  size_t nfuncs = 0;
  CHECK(corpus_each_func(TB.ctx, PASSAGE_SOURCE_DIR "/tests/tir_corpus/cases", compare_func, &nfuncs) == 0);
  CHECK(nfuncs >= 50);
}

static void test_random_nests(void) {
  uint64_t seed = 3216;
  for (int i = 0; i < 200; i++) {
    psg_tir_prim_func *f = eq_random_func(&seed, i % 2 == 1);
    if (f) compare_func(i % 2 ? "random int64" : "random int32", f);
  }
}

/* A statement kind the copy does not handle (a BufferStore has no
 * statement operand; a kid that is not a statement) gives nothing. */
static void test_refusals(void) {
  psg_tir_prim_func *f = eq_parse("# from tvm.script import tir as T\n\n"
                                  "@T.prim_func\n"
                                  "def main(A: T.Buffer((4,), \"float32\")):\n"
                                  "    for i in range(4):\n"
                                  "        A[i] = T.float32(1)\n");
  if (!f) return;
  psg_tir_node *loop = ((psg_tir_node *)f)->kids[0], *store = loop->kids[3], *out = (psg_tir_node *)1;
  CHECK(loop->kind == PSG_TIR_FOR && store->kind == PSG_TIR_BUFFER_STORE);
  CHECK_OK(psgi_sch_with_stmt_kid(TB.ctx, store, 1, loop, &out)); /* not a handled parent */
  CHECK(out == NULL);
  out = (psg_tir_node *)1;
  CHECK_OK(psgi_sch_with_stmt_kid(TB.ctx, loop, 3, store->kids[1], &out)); /* an expression for the body */
  CHECK(out == NULL);
  out = (psg_tir_node *)1;
  CHECK_OK(psgi_sch_with_stmt_kid(TB.ctx, loop, 4, store, &out)); /* no such operand */
  CHECK(out == NULL);
}

int main(void) {
  psg_ctx *ctx = check_ctx();
  tb_init(ctx);
  RUN_TEST(test_corpus);
  RUN_TEST(test_random_nests);
  RUN_TEST(test_refusals);
  RUN_TEST(test_loop_range_edges);
  static const int kinds[] = {PSG_TIR_FOR, PSG_TIR_SEQ_STMT, PSG_TIR_ALLOCATE, PSG_TIR_DECL_BUFFER,
                              PSG_TIR_ATTR_STMT, PSG_TIR_LET_STMT, PSG_TIR_IF_THEN_ELSE};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    if (!compared[kinds[i]]) printf("FAIL no %s compared\n", psg_tir_kind_name(kinds[i]));
    CHECK(compared[kinds[i]] > 0);
  }
  printf("compared: For %zu, SeqStmt %zu, Allocate %zu, DeclBuffer %zu, AttrStmt %zu, LetStmt %zu, IfThenElse %zu, "
         "AssertStmt %zu, While %zu\n", compared[PSG_TIR_FOR], compared[PSG_TIR_SEQ_STMT], compared[PSG_TIR_ALLOCATE],
         compared[PSG_TIR_DECL_BUFFER], compared[PSG_TIR_ATTR_STMT], compared[PSG_TIR_LET_STMT],
         compared[PSG_TIR_IF_THEN_ELSE], compared[PSG_TIR_ASSERT_STMT], compared[PSG_TIR_WHILE]);
  printf("stores after a statement: %zu found, %zu none\n", found_after, none_after);
  CHECK(found_after > 100 && none_after > 100);
  printf("loop ranges: %zu constant loops compared\n", const_loops);
  CHECK(const_loops > 100);
  tb_fini();
  CHECK_CTX_CLEAN(ctx);
  return check_finish();
}
