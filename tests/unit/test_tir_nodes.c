/* Passage — TIR nodes (include/passage/tir.h): dtypes, construction and
 * accessors of every node kind, and the located errors constructors give
 * for wrong dtypes and missing operands. */
#include "check.h"

static psg_tir_dtype I32, I64, F32, BOOL;

/* The newest error's message contains `frag`. */
static int last_error_has(psg_ctx *ctx, const char *frag) {
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  int ok = d && strstr(psg_diag_message(d), frag) != NULL;
  if (!ok) fprintf(stderr, "  last error: %s (wanted '%s')\n", d ? psg_diag_message(d) : "(none)", frag);
  return ok;
}

static psg_tir_expr *i32(psg_ctx *ctx, int64_t v) {
  psg_tir_expr *e;
  CHECK_OK(psg_tir_int_imm_create(ctx, I32, v, NULL, &e));
  return e;
}

static void test_dtypes(void) {
  char buf[32];
  CHECK_EQ_INT(psg_tir_dtype_str(F32, buf, sizeof buf), 7);
  CHECK_STR(buf, "float32");
  psg_tir_dtype v = psg_tir_dtype_parse("float32x8", 9);
  CHECK_EQ_INT(psg_tir_dtype_lanes(v), 8);
  CHECK(psg_tir_dtype_is_float(v));
  psg_tir_dtype_str(v, buf, sizeof buf);
  CHECK_STR(buf, "float32x8");
  const char *names[] = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                         "float16", "float32", "float64", "bfloat16", "bool", "handle", "int64x4", "boolx4"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    psg_tir_dtype t = psg_tir_dtype_parse(names[i], strlen(names[i]));
    CHECK(psg_tir_dtype_is_valid(t));
    psg_tir_dtype_str(t, buf, sizeof buf);
    CHECK_STR(buf, names[i]);
  }
  CHECK(psg_tir_dtype_is_bool(BOOL));
  CHECK(!psg_tir_dtype_is_uint(BOOL));
  CHECK(psg_tir_dtype_is_handle(psg_tir_dtype_handle()));
  CHECK_EQ_INT(psg_tir_dtype_parse("float8", 6), 0);
  CHECK_EQ_INT(psg_tir_dtype_parse("int32x", 6), 0);
  CHECK_EQ_INT(psg_tir_dtype_parse("int32x0", 7), 0);
  CHECK_EQ_INT(psg_tir_dtype_parse("int32x70000", 11), 0);
  CHECK_EQ_INT(psg_tir_dtype_make(PSG_TIR_CODE_INT, 7, 1), 0);
  CHECK_EQ_INT(psg_tir_dtype_str(psg_tir_dtype_make(PSG_TIR_CODE_FLOAT, 16, 1000), buf, 4), 12);
  CHECK_STR(buf, "flo"); /* truncated, NUL-terminated */
}

static void test_exprs(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n, *m, *one, *f, *s, *e;
  CHECK_OK(psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n));
  CHECK_OK(psg_tir_size_var_create(ctx, "m", I32, NULL, &m));
  CHECK_EQ_INT(psg_tir_kind(n), PSG_TIR_VAR);
  CHECK_EQ_INT(psg_tir_kind(m), PSG_TIR_SIZE_VAR);
  CHECK_STR(psg_tir_var_name(n), "n");
  CHECK_EQ_INT(psg_tir_kind(psg_tir_var_get_type(n)), PSG_TIR_PRIM_TYPE);
  CHECK_EQ_INT(psg_tir_dtype_of(psg_tir_var_get_type(n)), I32);
  one = i32(ctx, 1);
  CHECK_EQ_INT(psg_tir_int_imm_value(one), 1);
  CHECK_OK(psg_tir_float_imm_create(ctx, F32, 2.5, NULL, &f));
  CHECK(psg_tir_float_imm_value(f) == 2.5);
  size_t len;
  CHECK_OK(psg_tir_string_imm_create(ctx, "hi", 2, NULL, &s));
  CHECK_STR(psg_tir_string_imm_value(s, &len), "hi");
  CHECK_EQ_INT(len, 2);
  CHECK(psg_tir_dtype_is_handle(psg_tir_dtype_of(s)));

  /* every binary kind */
  for (int k = PSG_TIR_ADD; k <= PSG_TIR_GE; k++) {
    CHECK_OK(psg_tir_binary_create(ctx, k, n, one, NULL, &e));
    CHECK_EQ_INT(psg_tir_kind(e), k);
    CHECK(psg_tir_get_a(e) == n && psg_tir_get_b(e) == one);
    CHECK_EQ_INT(psg_tir_dtype_of(e), k <= PSG_TIR_MAX ? I32 : BOOL);
    CHECK_EQ_INT(psg_tir_num_operands(e), 2);
    psg_tir_release(e);
  }
  psg_tir_expr *lt, *and_, *not_, *sel, *cast, *ramp, *bc, *let, *x;
  CHECK_OK(psg_tir_binary_create(ctx, PSG_TIR_LT, n, one, NULL, &lt));
  CHECK_OK(psg_tir_binary_create(ctx, PSG_TIR_AND, lt, lt, NULL, &and_));
  CHECK_OK(psg_tir_not_create(ctx, and_, NULL, &not_));
  CHECK_EQ_INT(psg_tir_dtype_of(not_), BOOL);
  CHECK_OK(psg_tir_select_create(ctx, lt, n, one, NULL, &sel));
  CHECK(psg_tir_get_cond(sel) == lt && psg_tir_select_get_true(sel) == n && psg_tir_select_get_false(sel) == one);
  CHECK_OK(psg_tir_cast_create(ctx, F32, n, NULL, &cast));
  CHECK(psg_tir_get_value(cast) == n);
  CHECK_EQ_INT(psg_tir_dtype_of(cast), F32);
  CHECK_OK(psg_tir_ramp_create(ctx, n, one, 4, NULL, &ramp));
  CHECK_EQ_INT(psg_tir_get_lanes(ramp), 4);
  CHECK(psg_tir_ramp_get_base(ramp) == n && psg_tir_ramp_get_stride(ramp) == one);
  CHECK_OK(psg_tir_broadcast_create(ctx, f, 8, NULL, &bc));
  CHECK_EQ_INT(psg_tir_dtype_of(bc), psg_tir_dtype_with_lanes(F32, 8));
  CHECK_OK(psg_tir_var_create(ctx, "x", I32, NULL, NULL, &x));
  CHECK_OK(psg_tir_let_create(ctx, x, one, x, NULL, &let));
  CHECK(psg_tir_get_var(let) == x && psg_tir_let_get_value(let) == one && psg_tir_get_body(let) == x);

  /* calls */
  psg_tir_expr *exp_, *ite, *likely, *ext;
  CHECK_OK(psg_tir_call_create(ctx, F32, "tir.exp", &f, 1, NULL, &exp_));
  CHECK_STR(psg_tir_call_op(exp_), "tir.exp");
  CHECK_EQ_INT(psg_tir_call_num_args(exp_), 1);
  CHECK_OK(psg_tir_call_create(ctx, I32, "tir.if_then_else", (psg_tir_expr *[]){lt, n, one}, 3, NULL, &ite));
  CHECK_OK(psg_tir_call_create(ctx, BOOL, "tir.likely", &lt, 1, NULL, &likely));
  CHECK_OK(psg_tir_call_create(ctx, I32, "tir.call_extern", (psg_tir_expr *[]){s, n}, 2, NULL, &ext));
  CHECK(psg_tir_op_find("tir.sigmoid") >= 0 && psg_tir_op_find("tir.nope") < 0);
  CHECK_STR(psg_tir_op_name(psg_tir_op_find("tir.rsqrt")), "tir.rsqrt");

  psg_tir_expr *objs[] = {n, m, one, f, s, lt, and_, not_, sel, cast, ramp, bc, let, x, exp_, ite, likely, ext};
  for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) {
    CHECK(psg_tir_is_expr(objs[i]) && !psg_tir_is_stmt(objs[i]));
    psg_tir_release(objs[i]);
  }
  CHECK_CTX_CLEAN(ctx);
}

static void test_expr_errors(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n, *f, *e = (psg_tir_expr *)1, *one = i32(ctx, 1);
  psg_span sp = {"k.py", 3, 7, 3, 9, NULL};
  CHECK_OK(psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n));
  CHECK_OK(psg_tir_float_imm_create(ctx, F32, 1.0, NULL, &f));
  CHECK_EQ_INT(psg_tir_binary_create(ctx, PSG_TIR_ADD, n, f, &sp, &e), PSG_ERR_TYPE);
  CHECK(e == NULL);
  CHECK(last_error_has(ctx, "Add: operands have different dtypes int32 and float32"));
  const psg_diag *d = psg_ctx_get_last_error(ctx);
  CHECK_STR(psg_diag_file(d), "k.py");
  CHECK_EQ_INT(psg_diag_line(d), 3);
  CHECK_EQ_INT(psg_diag_col(d), 7);
  CHECK_EQ_INT(psg_tir_binary_create(ctx, PSG_TIR_AND, n, n, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "And: operands must be bool, not int32"));
  CHECK_EQ_INT(psg_tir_binary_create(ctx, PSG_TIR_ADD, n, NULL, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK(last_error_has(ctx, "operand b is NULL"));
  CHECK_EQ_INT(psg_tir_not_create(ctx, n, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_int_imm_create(ctx, psg_tir_dtype_make(PSG_TIR_CODE_INT, 8, 1), 300, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "IntImm: value 300 does not fit int8"));
  CHECK_EQ_INT(psg_tir_int_imm_create(ctx, BOOL, 2, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_int_imm_create(ctx, F32, 2, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_float_imm_create(ctx, I32, 2, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_float_imm_create(ctx, psg_tir_dtype_parse("float16", 7), 1e6, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "out of range for float16"));
  CHECK_EQ_INT(psg_tir_cast_create(ctx, psg_tir_dtype_with_lanes(F32, 4), n, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_select_create(ctx, n, n, n, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "Select: condition must be bool"));
  CHECK_EQ_INT(psg_tir_ramp_create(ctx, n, one, 1, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_ramp_create(ctx, f, f, 4, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_let_create(ctx, n, f, n, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "Let: var 'n' has dtype int32 but its value float32"));
  CHECK_EQ_INT(psg_tir_let_create(ctx, one, one, n, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_call_create(ctx, F32, "tir.exp", &n, 1, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "tir.exp: argument 0 has dtype int32, expected float32"));
  CHECK_EQ_INT(psg_tir_call_create(ctx, I32, "tir.exp", &n, 1, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_call_create(ctx, F32, "tir.exp", NULL, 0, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK(last_error_has(ctx, "tir.exp takes 1 arguments, got 0"));
  CHECK_EQ_INT(psg_tir_call_create(ctx, F32, "tir.nope", &f, 1, NULL, &e), PSG_ERR_NOT_FOUND);
  CHECK_EQ_INT(psg_tir_call_create(ctx, I32, "tir.call_extern", &n, 1, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_call_create(ctx, I32, "tir.if_then_else", (psg_tir_expr *[]){n, n, n}, 3, NULL, &e),
               PSG_ERR_TYPE);
  /* a statement where an expression belongs */
  psg_tir_stmt *ev;
  CHECK_OK(psg_tir_evaluate_create(ctx, n, NULL, &ev));
  CHECK_EQ_INT(psg_tir_binary_create(ctx, PSG_TIR_ADD, n, ev, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK(last_error_has(ctx, "operand b must be an expression, not Evaluate"));
  psg_tir_release(ev);
  psg_tir_release(n);
  psg_tir_release(f);
  psg_tir_release(one);
  CHECK_CTX_CLEAN(ctx);
}

/* A buffer A[16, n] of float32 in global memory. */
static psg_tir_buffer *make_buffer(psg_ctx *ctx, psg_tir_expr *n) {
  psg_tir_expr *s16 = i32(ctx, 16);
  psg_tir_buffer *b;
  CHECK_OK(psg_tir_buffer_decl(ctx, "A", F32, (psg_tir_expr *[]){s16, n}, 2, NULL, NULL, &b));
  psg_tir_release(s16);
  return b;
}

static void test_buffer_and_access(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n, *i, *zero = i32(ctx, 0), *one = i32(ctx, 1), *e = NULL;
  CHECK_OK(psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n));
  CHECK_OK(psg_tir_var_create(ctx, "i", I32, NULL, NULL, &i));
  psg_tir_buffer *A = make_buffer(ctx, n);
  CHECK_STR(psg_tir_buffer_name(A), "A");
  CHECK_EQ_INT(psg_tir_buffer_ndim(A), 2);
  CHECK_EQ_INT(psg_tir_int_imm_value(psg_tir_buffer_get_shape(A, 0)), 16);
  CHECK(psg_tir_buffer_get_shape(A, 1) == n);
  CHECK(psg_tir_buffer_get_shape(A, 2) == NULL);
  CHECK_STR(psg_tir_buffer_scope(A), "global");
  CHECK_EQ_INT(psg_tir_buffer_num_strides(A), 0);
  CHECK_EQ_INT(psg_tir_int_imm_value(psg_tir_buffer_get_elem_offset(A)), 0);
  CHECK_EQ_INT(psg_tir_buffer_data_alignment(A), 64);
  CHECK_EQ_INT(psg_tir_buffer_offset_factor(A), 1);
  CHECK_EQ_INT(psg_tir_buffer_type(A), PSG_TIR_BUFFER_DEFAULT);
  psg_tir_expr *data = psg_tir_buffer_get_data(A);
  CHECK(psg_tir_dtype_is_handle(psg_tir_dtype_of(data)));
  psg_tir_type *pt = psg_tir_var_get_type(data);
  CHECK_EQ_INT(psg_tir_kind(pt), PSG_TIR_POINTER_TYPE);
  CHECK_EQ_INT(psg_tir_dtype_of(psg_tir_pointer_type_get_element(pt)), F32);

  /* a strided alias with axis separators in shared memory */
  psg_tir_expr *sh;
  CHECK_OK(psg_tir_pointer_var_create(ctx, "S", F32, "shared", NULL, &sh));
  psg_tir_buffer *S;
  psg_tir_buffer_desc d = {.name = "S", .data = sh, .dtype = F32, .shape = (psg_tir_expr *[]){n, n}, .ndim = 2,
                           .strides = (psg_tir_expr *[]){n, one}, .nstrides = 2, .elem_offset = i,
                           .axis_separators = (int64_t[]){1}, .naxis_separators = 1, .data_alignment = 16};
  CHECK_OK(psg_tir_buffer_create(ctx, &d, NULL, &S));
  CHECK_STR(psg_tir_buffer_scope(S), "shared");
  CHECK(psg_tir_buffer_get_stride(S, 0) == n && psg_tir_buffer_get_stride(S, 1) == one);
  CHECK(psg_tir_buffer_get_elem_offset(S) == i);
  CHECK_EQ_INT(psg_tir_buffer_num_axis_separators(S), 1);
  CHECK_EQ_INT(psg_tir_buffer_axis_separator(S, 0), 1);
  CHECK_EQ_INT(psg_tir_buffer_data_alignment(S), 16);
  d.nstrides = 1;
  CHECK_EQ_INT(psg_tir_buffer_create(ctx, &d, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK(last_error_has(ctx, "Buffer: 'S' has 1 strides for rank 2"));
  d.nstrides = 2;
  d.data = n;
  CHECK_EQ_INT(psg_tir_buffer_create(ctx, &d, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "data var must be a Var of a PointerType"));
  d.data = sh;
  d.axis_separators = (int64_t[]){3};
  CHECK_EQ_INT(psg_tir_buffer_create(ctx, &d, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  psg_tir_release(sh);

  /* loads and stores, scalar and vector */
  psg_tir_expr *ld, *vld, *ramp, *pred, *t4, *f1;
  CHECK_OK(psg_tir_buffer_load_create(ctx, A, (psg_tir_expr *[]){i, zero}, 2, NULL, NULL, &ld));
  CHECK_EQ_INT(psg_tir_dtype_of(ld), F32);
  CHECK(psg_tir_get_buffer(ld) == A);
  CHECK_EQ_INT(psg_tir_num_indices(ld), 2);
  CHECK(psg_tir_get_index(ld, 0) == i && psg_tir_get_index(ld, 1) == zero);
  CHECK(psg_tir_get_predicate(ld) == NULL);
  CHECK_OK(psg_tir_ramp_create(ctx, zero, one, 4, NULL, &ramp));
  CHECK_OK(psg_tir_int_imm_create(ctx, BOOL, 1, NULL, &t4));
  CHECK_OK(psg_tir_broadcast_create(ctx, t4, 4, NULL, &pred));
  CHECK_OK(psg_tir_buffer_load_create(ctx, A, (psg_tir_expr *[]){i, ramp}, 2, pred, NULL, &vld));
  CHECK_EQ_INT(psg_tir_dtype_of(vld), psg_tir_dtype_with_lanes(F32, 4));
  CHECK(psg_tir_get_predicate(vld) == pred);
  CHECK_EQ_INT(psg_tir_num_indices(vld), 2);
  CHECK_EQ_INT(psg_tir_buffer_load_create(ctx, A, (psg_tir_expr *[]){ramp, i}, 2, NULL, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "only the last index of buffer 'A' may be a vector"));
  CHECK_EQ_INT(psg_tir_buffer_load_create(ctx, A, (psg_tir_expr *[]){i, zero}, 2, pred, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "predicate has dtype boolx4, expected bool"));
  CHECK_OK(psg_tir_float_imm_create(ctx, F32, 1.0, NULL, &f1));
  CHECK_EQ_INT(psg_tir_buffer_load_create(ctx, A, (psg_tir_expr *[]){f1, zero}, 2, NULL, NULL, &e), PSG_ERR_TYPE);

  psg_tir_stmt *st, *vst;
  CHECK_OK(psg_tir_buffer_store_create(ctx, A, f1, (psg_tir_expr *[]){i, zero}, 2, NULL, NULL, &st));
  CHECK(psg_tir_buffer_store_get_value(st) == f1 && psg_tir_get_value(st) == f1);
  CHECK(psg_tir_get_index(st, 1) == zero);
  CHECK_OK(psg_tir_buffer_store_create(ctx, A, vld, (psg_tir_expr *[]){i, ramp}, 2, pred, NULL, &vst));
  CHECK(psg_tir_get_predicate(vst) == pred);
  CHECK_EQ_INT(psg_tir_buffer_store_create(ctx, A, ld, (psg_tir_expr *[]){i, ramp}, 2, NULL, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "BufferStore: value stored to buffer 'A' has dtype float32, expected float32x4"));
  CHECK_EQ_INT(psg_tir_buffer_store_create(ctx, A, i, (psg_tir_expr *[]){i, zero}, 2, NULL, NULL, &e), PSG_ERR_TYPE);

  psg_tir_expr *objs[] = {n, i, zero, one, A, S, ld, vld, ramp, pred, t4, f1, st, vst};
  for (size_t k = 0; k < sizeof objs / sizeof *objs; k++) psg_tir_release(objs[k]);
  CHECK_CTX_CLEAN(ctx);
}

static void test_stmts_and_func(void) {
  psg_ctx *ctx = check_ctx();
  psg_tir_expr *n, *i, *x, *zero = i32(ctx, 0), *one = i32(ctx, 1), *e = NULL, *cond, *msg;
  CHECK_OK(psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n));
  CHECK_OK(psg_tir_var_create(ctx, "i", I32, NULL, NULL, &i));
  CHECK_OK(psg_tir_var_create(ctx, "x", I32, NULL, NULL, &x));
  CHECK_OK(psg_tir_binary_create(ctx, PSG_TIR_LT, i, n, NULL, &cond));
  CHECK_OK(psg_tir_string_imm_create(ctx, "oops", 4, NULL, &msg));
  psg_tir_buffer *A = make_buffer(ctx, n);
  psg_tir_stmt *ev, *store, *ite, *seq, *loop, *let, *alloc, *decl, *attr, *as, *wh;
  CHECK_OK(psg_tir_evaluate_create(ctx, zero, NULL, &ev));
  CHECK(psg_tir_get_value(ev) == zero);
  psg_tir_expr *fz;
  CHECK_OK(psg_tir_float_imm_create(ctx, F32, 0.0, NULL, &fz));
  CHECK_OK(psg_tir_buffer_store_create(ctx, A, fz, (psg_tir_expr *[]){i, x}, 2, NULL, NULL, &store));
  CHECK_OK(psg_tir_if_then_else_create(ctx, cond, store, NULL, NULL, &ite));
  CHECK(psg_tir_get_cond(ite) == cond && psg_tir_if_get_then(ite) == store && psg_tir_if_get_else(ite) == NULL);
  CHECK_EQ_INT(psg_tir_num_operands(ite), 2);
  CHECK_OK(psg_tir_seq_stmt_create(ctx, (psg_tir_stmt *[]){ite, ev}, 2, NULL, &seq));
  CHECK_EQ_INT(psg_tir_seq_size(seq), 2);
  CHECK(psg_tir_seq_get(seq, 1) == ev && psg_tir_seq_get(seq, 2) == NULL);
  CHECK_OK(psg_tir_let_stmt_create(ctx, x, one, seq, NULL, &let));
  CHECK(psg_tir_get_var(let) == x && psg_tir_get_body(let) == seq);
  psg_attr *v;
  psg_attrs *ann;
  CHECK_OK(psg_attr_int(ctx, 16, &v));
  CHECK_OK(psg_attrs_create(ctx, (const char *[]){"pragma_auto_unroll_max_step"}, &v, 1, &ann));
  CHECK_OK(psg_tir_for_create(ctx, i, zero, n, PSG_TIR_FOR_UNROLLED, let, ann, NULL, &loop));
  CHECK(psg_tir_get_var(loop) == i && psg_tir_for_get_min(loop) == zero && psg_tir_for_get_extent(loop) == n);
  CHECK_EQ_INT(psg_tir_for_kind(loop), PSG_TIR_FOR_UNROLLED);
  CHECK_STR(psg_tir_for_kind_name(psg_tir_for_kind(loop)), "unrolled");
  CHECK(psg_tir_get_annotations(loop) == ann);
  CHECK(psg_tir_get_body(loop) == let);
  psg_tir_expr *buf;
  CHECK_OK(psg_tir_pointer_var_create(ctx, "buf", F32, "local", NULL, &buf));
  CHECK_OK(psg_tir_allocate_create(ctx, buf, F32, (psg_tir_expr *[]){n}, 1, NULL, loop, ann, NULL, &alloc));
  CHECK(psg_tir_allocate_get_buffer_var(alloc) == buf);
  CHECK_EQ_INT(psg_tir_allocate_num_extents(alloc), 1);
  CHECK(psg_tir_allocate_get_extent(alloc, 0) == n);
  CHECK_EQ_INT(psg_tir_int_imm_value(psg_tir_allocate_get_condition(alloc)), 1);
  CHECK_EQ_INT(psg_tir_dtype_of(psg_tir_allocate_get_condition(alloc)), BOOL);
  CHECK_EQ_INT(psg_tir_dtype_of(alloc), F32);
  CHECK_OK(psg_tir_decl_buffer_create(ctx, A, alloc, NULL, &decl));
  CHECK(psg_tir_get_buffer(decl) == A && psg_tir_get_body(decl) == alloc);
  CHECK_OK(psg_tir_attr_stmt_create(ctx, buf, "pragma_x", one, decl, NULL, &attr));
  CHECK_STR(psg_tir_attr_stmt_key(attr), "pragma_x");
  CHECK(psg_tir_attr_stmt_get_node(attr) == buf && psg_tir_attr_stmt_get_value(attr) == one);
  CHECK_OK(psg_tir_assert_stmt_create(ctx, cond, msg, attr, NULL, &as));
  CHECK(psg_tir_assert_get_message(as) == msg && psg_tir_get_body(as) == attr);
  CHECK_OK(psg_tir_while_create(ctx, cond, as, NULL, &wh));
  CHECK(psg_tir_get_cond(wh) == cond && psg_tir_get_body(wh) == as);
  CHECK(psg_tir_is_stmt(wh) && !psg_tir_is_expr(wh));

  /* statement errors */
  CHECK_EQ_INT(psg_tir_if_then_else_create(ctx, n, ev, NULL, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "IfThenElse: the condition must be a scalar bool, not int32"));
  CHECK_EQ_INT(psg_tir_seq_stmt_create(ctx, NULL, 0, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_seq_stmt_create(ctx, (psg_tir_stmt *[]){ev, n}, 2, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK(last_error_has(ctx, "SeqStmt: an element must be a statement, not Var"));
  psg_tir_expr *i64;
  CHECK_OK(psg_tir_var_create(ctx, "j", I64, NULL, NULL, &i64));
  CHECK_EQ_INT(psg_tir_for_create(ctx, i64, zero, n, PSG_TIR_FOR_SERIAL, ev, NULL, NULL, &e), PSG_ERR_TYPE);
  CHECK(last_error_has(ctx, "For: loop var 'j' is int64 but min is int32 and extent int32"));
  CHECK_EQ_INT(psg_tir_for_create(ctx, zero, zero, n, PSG_TIR_FOR_SERIAL, ev, NULL, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_for_create(ctx, i, zero, n, 9, ev, NULL, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_let_stmt_create(ctx, i64, one, ev, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_allocate_create(ctx, n, F32, (psg_tir_expr *[]){n}, 1, NULL, ev, NULL, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_while_create(ctx, one, ev, NULL, &e), PSG_ERR_TYPE);
  CHECK_EQ_INT(psg_tir_assert_stmt_create(ctx, cond, msg, NULL, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_decl_buffer_create(ctx, n, ev, NULL, &e), PSG_ERR_INVALID_ARGUMENT);
  CHECK(e == NULL);

  /* a PrimFunc with a buffer-mapped handle param */
  psg_tir_expr *a_h;
  CHECK_OK(psg_tir_var_create(ctx, "a", psg_tir_dtype_handle(), NULL, NULL, &a_h));
  psg_attr *gs;
  psg_attrs *fattrs;
  CHECK_OK(psg_attr_string(ctx, "main", 4, &gs));
  CHECK_OK(psg_attrs_create(ctx, (const char *[]){"global_symbol"}, &gs, 1, &fattrs));
  psg_tir_prim_func *f, *g;
  CHECK_OK(psg_tir_prim_func_create(ctx, (psg_tir_expr *[]){a_h, n}, 2, wh, NULL, (size_t[]){0}, &A, 1, fattrs, NULL, &f));
  CHECK_EQ_INT(psg_tir_kind(f), PSG_TIR_PRIM_FUNC);
  CHECK_EQ_INT(psg_tir_prim_func_num_params(f), 2);
  CHECK(psg_tir_prim_func_get_param(f, 1) == n);
  CHECK_EQ_INT(psg_tir_prim_func_buffer_map_size(f), 1);
  CHECK(psg_tir_prim_func_buffer_map_key(f, 0) == a_h && psg_tir_prim_func_buffer_map_value(f, 0) == A);
  CHECK(psg_tir_prim_func_get_param_buffer(f, a_h) == A && psg_tir_prim_func_get_param_buffer(f, n) == NULL);
  CHECK(psg_tir_get_body(f) == wh);
  CHECK_EQ_INT(psg_tir_kind(psg_tir_prim_func_get_ret_type(f)), PSG_TIR_TUPLE_TYPE);
  CHECK_STR(psg_attr_get_string(psg_attrs_get(psg_tir_prim_func_get_attrs(f), "global_symbol")), "main");
  psg_attr *t;
  CHECK_OK(psg_attr_bool(ctx, true, &t));
  CHECK_OK(psg_tir_prim_func_with_attr(f, "tir.noalias", t, &g));
  CHECK_EQ_INT(psg_attrs_count(psg_tir_prim_func_get_attrs(g)), 2);
  CHECK_EQ_INT(psg_attrs_count(psg_tir_prim_func_get_attrs(f)), 1);
  CHECK(psg_tir_prim_func_buffer_map_value(g, 0) == A);
  CHECK_EQ_INT(psg_tir_prim_func_create(ctx, (psg_tir_expr *[]){n, n}, 2, wh, NULL, NULL, NULL, 0, NULL, NULL, &e),
               PSG_ERR_INVALID_ARGUMENT);
  CHECK(last_error_has(ctx, "PrimFunc: param 'n' appears twice"));
  CHECK_EQ_INT(psg_tir_prim_func_create(ctx, &n, 1, wh, NULL, (size_t[]){1}, &A, 1, NULL, NULL, &e),
               PSG_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(psg_tir_prim_func_create(ctx, &n, 1, n, NULL, NULL, NULL, 0, NULL, NULL, &e), PSG_ERR_INVALID_ARGUMENT);

  psg_attr_release(v);
  psg_attr_release(gs);
  psg_attr_release(t);
  psg_attrs_release(ann);
  psg_attrs_release(fattrs);
  psg_tir_node *objs[] = {n, i, x, zero, one, cond, msg, A, ev, fz, store, ite, seq, let, loop, buf,
                          alloc, decl, attr, as, i64, a_h, f, g};
  /* release the function first: the rest stays alive through our references */
  psg_tir_release(wh);
  for (size_t k = 0; k < sizeof objs / sizeof *objs; k++) psg_tir_release(objs[k]);
  CHECK_CTX_CLEAN(ctx);
}

/* Out of memory at every allocation of a small build: a clean status, no
 * leak. */
static void test_oom(void) {
  for (long fail_at = 1; fail_at < 200; fail_at++) {
    check_alloc a = {0, fail_at};
    psg_ctx *ctx = check_ctx_with(&a);
    if (!ctx) continue;
    psg_tir_expr *n = NULL, *one = NULL, *add = NULL;
    psg_tir_buffer *A = NULL;
    psg_tir_stmt *st = NULL;
    psg_status s = psg_tir_var_create(ctx, "n", I32, NULL, NULL, &n);
    if (!s) s = psg_tir_int_imm_create(ctx, I32, 1, NULL, &one);
    if (!s) s = psg_tir_binary_create(ctx, PSG_TIR_ADD, n, one, NULL, &add);
    if (!s) s = psg_tir_buffer_decl(ctx, "A", I32, &n, 1, NULL, NULL, &A);
    if (!s) s = psg_tir_buffer_store_create(ctx, A, add, &n, 1, NULL, NULL, &st);
    CHECK(s == PSG_OK || s == PSG_ERR_NOMEM);
    psg_tir_release(st);
    psg_tir_release(A);
    psg_tir_release(add);
    psg_tir_release(one);
    psg_tir_release(n);
    CHECK_CTX_CLEAN(ctx);
  }
}

/* IntImm's dtype check (expr.c reads the encoding) accepts exactly the
 * valid scalar int, uint and bool dtypes: every code and bits, lanes 0, 1,
 * 2 and the largest, against psg_tir_dtype_is_valid and the predicates. */
static void test_int_imm_dtypes(void) {
  psg_ctx *ctx = check_ctx();
  static const unsigned lanes[] = {0, 1, 2, PSG_TIR_MAX_LANES};
  size_t accepted = 0, wrong = 0;
  for (unsigned code = 0; code < 256; code++)
    for (unsigned bits = 0; bits < 256; bits++)
      for (size_t l = 0; l < sizeof lanes / sizeof *lanes; l++) {
        psg_tir_dtype t = code | bits << 8 | lanes[l] << 16;
        bool want = psg_tir_dtype_is_valid(t) && psg_tir_dtype_lanes(t) == 1 &&
                    (psg_tir_dtype_is_int(t) || psg_tir_dtype_code(t) == PSG_TIR_CODE_UINT);
        psg_tir_expr *e = NULL;
        psg_status st = psg_tir_int_imm_create(ctx, t, 0, NULL, &e); /* 0 fits every width */
        wrong += (st == PSG_OK) != want || (st != PSG_OK && st != PSG_ERR_TYPE);
        accepted += st == PSG_OK;
        psg_tir_release(e);
      }
  CHECK_EQ_INT((int)wrong, 0);
  CHECK_EQ_INT((int)accepted, 9); /* int 8/16/32/64, uint 8/16/32/64, bool */
  CHECK_CTX_CLEAN(ctx);
}

int main(void) {
  I32 = psg_tir_dtype_int32();
  I64 = psg_tir_dtype_int64();
  F32 = psg_tir_dtype_float32();
  BOOL = psg_tir_dtype_bool();
  RUN_TEST(test_dtypes);
  RUN_TEST(test_exprs);
  RUN_TEST(test_expr_errors);
  RUN_TEST(test_int_imm_dtypes);
  RUN_TEST(test_buffer_and_access);
  RUN_TEST(test_stmts_and_func);
  RUN_TEST(test_oom);
  return check_finish();
}
