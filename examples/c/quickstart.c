/* The README's example, compiled and run by CTest so it cannot rot: parse the
 * bundled model, run FoldConstant under opt level 3, print the result. */
#include <stdio.h>
#include <passage/passage.h>

int main(int argc, char **argv) {
  psg_ctx *ctx;             psg_ctx_create(NULL, &ctx);
  psg_module *m = NULL, *out = NULL;
  psg_pass *fold = NULL;    psg_pass_context *pc = NULL;
  char *text = NULL;
  psg_status st = psg_module_parse_file(ctx, argc > 1 ? argv[1] : "examples/models/small_cnn.relay", &m);
  if (!st) st = psg_pass_get(ctx, "FoldConstant", NULL, &fold);
  if (!st) st = psg_pass_context_create(ctx, &pc);
  if (!st) st = psg_pass_context_set_opt_level(pc, 3);
  if (!st) st = psg_pass_run(fold, m, pc, &out);
  if (!st) st = psg_module_print(out, PSG_PRINT_NO_METADATA, &text, NULL);
  if (st) for (size_t i = 0; i < psg_ctx_diag_count(ctx); i++) fputs(psg_diag_rendered(psg_ctx_get_diag(ctx, i)), stderr);
  else fputs(text, stdout);
  psg_free(text); psg_module_release(out); psg_module_release(m);
  psg_pass_release(fold); psg_pass_context_release(pc); psg_ctx_release(ctx);
  return st ? 1 : 0;
}
