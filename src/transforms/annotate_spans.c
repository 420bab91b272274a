/* Passage — AnnotateSpans (TVM's parser::AnnotateSpans, parser.cc): a module
 * pass (opt 0) that prints the module as text with its metadata and parses
 * it back as "GeneratedSource", so every node of a module built by code gets
 * a span (a line and column of that text) for later diagnostics. The result
 * is structurally equal to the input (spans are not compared). */
#include "passage/text.h"
#include "transforms/transforms.h"

static psg_status annotate_spans(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  (void)user;
  *out = NULL;
  char *text = NULL;
  size_t len = 0;
  psg_status st = psg_module_print(mod, PSG_PRINT_DEFAULT, &text, &len);
  if (!st) st = psg_module_parse(mod->ctx, text, len, "GeneratedSource", out);
  psg_free(text);
  return st;
}

const psg_pass_decl psgi_pass_annotate_spans = {
    .name = "AnnotateSpans",
    .kind = PSG_PASS_MODULE,
    .opt_level = 0,
    .help = "print the module and parse it back, so every node has a span in that text (GeneratedSource)",
    .module = annotate_spans,
};
