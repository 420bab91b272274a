/* libFuzzer target for the ONNX importer (issue 6, STYLE rule 13): any bytes
 * must import or fail with a diagnostic, never crash or leak; a model that
 * imports must export, and the export must import again. Seeds are the node
 * models of Debian's libonnx-testdata, the real models up to 2 MiB and
 * tests/bad/onnx, copied in by the ctest (cmake/onnx.cmake). Mutation is
 * structure-aware: onnx_mutator.c, next to this file, edits the decoded
 * ModelProto (built without it under -DFUZZ_ONNX_BYTES_ONLY). */
#include <stdio.h>
#include <stdlib.h>
#include "passage/passage.h"
#include "passage/onnx.h"

enum { MAX_INPUT = 2 << 20 }; /* 2 MiB: the smaller real models are seeds too */

static void fail(const char *what) {
  fprintf(stderr, "fuzz_onnx: %s\n", what);
  abort(); /* test code: libFuzzer records the input as a crash */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT) return 0;
  psg_ctx *ctx = NULL;
  if (psg_ctx_create(NULL, &ctx)) fail("cannot create a context");
  psg_module *m = NULL, *m2 = NULL;
  psg_status st = psg_onnx_import(ctx, data, size, "fuzz.onnx", NULL, &m);
  if (st) {
    if (m) fail("a failed import returned a module");
    if (!psg_ctx_get_last_error(ctx) && st != PSG_ERR_NOMEM) fail("a failed import left no diagnostic");
  } else {
    void *bytes = NULL;
    size_t len = 0;
    if (psg_onnx_export(ctx, m, &bytes, &len) == PSG_OK) {
      if (psg_onnx_import(ctx, bytes, len, "fuzz-export.onnx", NULL, &m2)) fail("an exported model does not import");
      psg_free(bytes);
    }
  }
  psg_module_release(m2);
  psg_module_release(m);
  if (psg_ctx_live_objects(ctx) != 0) fail("objects leaked");
  psg_ctx_release(ctx);
  return 0;
}
