/* ONNX frontend API test (issue 6): export a Relay module, import it back and
 * compare the interpreter's outputs; every prefix of the exported bytes is
 * rejected with a diagnostic (never a crash); bad arguments and files give
 * their statuses; no object leaks (live-object count returns to zero). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "passage/passage.h"
#include "passage/onnx.h"

static int failures;
#define CHECK(c)                                                        \
  do {                                                                  \
    if (!(c)) {                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
      failures++;                                                       \
    }                                                                   \
  } while (0)

static const char *SRC =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 3, 3), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=3, kernel_size=[3, 3]);\n"
    "  %1 = nn.relu(%0);\n"
    "  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);\n"
    "  %3 = reshape(%2, newshape=[1, -1]);\n"
    "  nn.softmax(%3, axis=1)\n"
    "}\n";

static psg_tensor *filled(psg_ctx *ctx, const int64_t *shape, int nd, float seed) {
  psg_tensor *t = NULL;
  if (psg_tensor_create(ctx, PSG_DTYPE_FLOAT32, shape, nd, NULL, &t)) return NULL;
  float *d = (float *)psg_tensor_data(t);
  for (int64_t i = 0; i < psg_tensor_numel(t); i++) d[i] = (float)((i * 37 % 17) - 8) * seed;
  return t;
}

static psg_tensor *eval1(psg_ctx *ctx, psg_module *m, psg_tensor **in) {
  psg_tensor **outs = NULL;
  size_t n = 0;
  if (psg_eval(ctx, m, "main", in, 2, &outs, &n) || n != 1) return NULL;
  psg_tensor *r = outs[0];
  psg_free(outs);
  return r;
}

int main(void) {
  psg_ctx *ctx = NULL;
  CHECK(psg_ctx_create(NULL, &ctx) == PSG_OK);
  psg_module *m = NULL, *back = NULL;
  CHECK(psg_module_parse(ctx, SRC, strlen(SRC), "api.relay", &m) == PSG_OK);
  void *bytes = NULL;
  size_t len = 0;
  CHECK(psg_onnx_export(ctx, m, &bytes, &len) == PSG_OK && len > 0);
  CHECK(psg_onnx_import(ctx, bytes, len, "exported.onnx", NULL, &back) == PSG_OK && back);
  /* Same outputs before and after the round trip. */
  int64_t xs[4] = {1, 2, 4, 4}, ws[4] = {3, 2, 3, 3};
  psg_tensor *in[2] = {filled(ctx, xs, 4, 0.25f), filled(ctx, ws, 4, 0.125f)};
  psg_tensor *a = eval1(ctx, m, in), *b = back ? eval1(ctx, back, in) : NULL;
  CHECK(a && b && psg_tensor_equal(a, b));
  CHECK(a && psg_tensor_ndim(a) == 2 && psg_tensor_dim(a, 1) == 12);
  psg_tensor_release(a);
  psg_tensor_release(b);
  for (int i = 0; i < 2; i++) psg_tensor_release(in[i]);
  /* The imported expressions carry their ONNX node's name in the span's
   * name, not in its file (issue 13); a parsed one has a file and no name. */
  const psg_expr *bfn = back ? psg_module_lookup(back, "main") : NULL;
  psg_span sp;
  if (bfn) psg_expr_span(psg_function_get_body(bfn), &sp);
  CHECK(bfn && sp.name && !strncmp(sp.name, "Softmax", 7) && !sp.file && sp.line == 0);
  psg_expr_span(psg_function_get_body(psg_module_lookup(m, "main")), &sp);
  CHECK(sp.file && !strcmp(sp.file, "api.relay") && sp.line == 7 && !sp.name);
  /* The output names travel as the module attribute output_names. */
  psg_attr *on = back ? psg_attrs_get(psg_module_get_attrs(back), "output_names") : NULL;
  CHECK(on && psg_attr_kind(on) == PSG_ATTR_LIST && psg_attr_list_len(on) == 1 &&
        !strcmp(psg_attr_get_string(psg_attr_list_get(on, 0)), "output"));
  psg_module_release(back);
  /* Every proper prefix fails cleanly with a diagnostic. */
  int prefix_failures = 0;
  for (size_t k = 0; k < len; k++) {
    psg_module *p = NULL;
    psg_ctx_clear_diags(ctx);
    psg_status st = psg_onnx_import(ctx, bytes, k, "prefix.onnx", NULL, &p);
    if (st == PSG_OK || p || !psg_ctx_get_last_error(ctx)) prefix_failures++;
    psg_module_release(p);
  }
  CHECK(prefix_failures == 0);
  /* Bad arguments and files. */
  psg_module *p = (psg_module *)1;
  CHECK(psg_onnx_import(ctx, NULL, 4, "x", NULL, &p) == PSG_ERR_INVALID_ARGUMENT && p == NULL);
  CHECK(psg_onnx_import_file(ctx, "/nonexistent/model.onnx", NULL, &p) == PSG_ERR_IO && p == NULL);
  const char *bad_shape[] = {"x=1,2,oops"};
  psg_onnx_import_opts opts = {bad_shape, 1, NULL};
  CHECK(psg_onnx_import(ctx, bytes, len, "x.onnx", &opts, &p) == PSG_ERR_INVALID_ARGUMENT && p == NULL);
  psg_free(bytes);
  /* A module without @main is not exported. */
  psg_module *empty = NULL;
  CHECK(psg_module_create(ctx, &empty) == PSG_OK);
  bytes = (void *)1;
  CHECK(psg_onnx_export(ctx, empty, &bytes, &len) == PSG_ERR_NOT_FOUND && bytes == NULL);
  psg_module_release(empty);
  psg_module_release(m);
  CHECK(psg_ctx_live_objects(ctx) == 0);
  psg_ctx_release(ctx);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("ok\n");
  return failures ? 1 : 0;
}
