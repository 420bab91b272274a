/* Passage — IR printing (tvm-behavior §3.7): the PrintIR pass and an
 * instrument that prints before/after named passes, before/after all, after
 * a change only (structural hash), and after a failure. Text goes to a sink;
 * the library itself never prints. */
#include <stdlib.h>
#include "pass/pass_internal.h"

typedef struct print_ir {
  psg_ctx *ctx;
  psgi_str_vec before, after;
  int flags;
  psg_text_sink sink;
  void *sink_user;
  PSGI_VEC(uint64_t) hashes; /* input hash per open pass, for after-change */
  pthread_mutex_t lock;
} print_ir;

static void emit(print_ir *pi, const char *header, const char *name, const psg_module *mod, bool info_form,
                 const psg_pass_info *info) {
  psgi_buf b;
  psgi_buf_init(&b, pi->ctx);
  if (info_form) {
    char *s = psg_pass_info_to_string(info);
    psgi_buf_printf(&b, "%s%s", header, s ? s : name);
    psg_free(s);
  } else {
    psgi_buf_printf(&b, "%s%s\n", header, name);
  }
  char *text = NULL;
  size_t len = 0;
  if (psg_module_print(mod, PSG_PRINT_DEFAULT, &text, &len) == PSG_OK) psgi_buf_append(&b, text, len);
  psg_free(text);
  psgi_buf_putc(&b, '\n');
  if (!b.failed) pi->sink(pi->sink_user, b.data, b.len);
  psgi_buf_fini(&b);
}

static psg_status before_pass(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)pc;
  print_ir *pi = user;
  if (pi->flags & PSG_PRINT_IR_BEFORE_ALL) emit(pi, "Before Running Pass: ", info->name, mod, true, info);
  if (psgi_str_vec_has(&pi->before, info->name)) emit(pi, "Print IR before: ", info->name, mod, false, info);
  if (pi->flags & PSG_PRINT_IR_AFTER_CHANGE) {
    uint64_t h = psg_module_structural_hash(mod);
    pthread_mutex_lock(&pi->lock);
    bool ok = PSGI_VEC_PUSH(pi->ctx, &pi->hashes, h);
    pthread_mutex_unlock(&pi->lock);
    if (!ok) return psgi_nomem(pi->ctx);
  }
  return PSG_OK;
}

static bool pop_changed(print_ir *pi, const psg_module *mod) {
  if (!(pi->flags & PSG_PRINT_IR_AFTER_CHANGE)) return false;
  pthread_mutex_lock(&pi->lock);
  uint64_t h0 = pi->hashes.len ? pi->hashes.data[--pi->hashes.len] : 0;
  pthread_mutex_unlock(&pi->lock);
  return mod && psg_module_structural_hash(mod) != h0;
}

static psg_status after_pass(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)pc;
  print_ir *pi = user;
  bool changed = pop_changed(pi, mod);
  if (pi->flags & PSG_PRINT_IR_AFTER_ALL) emit(pi, "After Running Pass: ", info->name, mod, true, info);
  else if (changed) emit(pi, "Print IR after change: ", info->name, mod, false, info);
  if (psgi_str_vec_has(&pi->after, info->name)) emit(pi, "Print IR after: ", info->name, mod, false, info);
  return PSG_OK;
}

static psg_status after_failed(void *user, psg_pass_context *pc, const psg_module *mod, const psg_pass_info *info) {
  (void)pc;
  print_ir *pi = user;
  pop_changed(pi, NULL);
  if (pi->flags & PSG_PRINT_IR_AFTER_FAILURE) emit(pi, "Print IR after failure: ", info->name, mod, false, info);
  return PSG_OK;
}

static void free_print_ir(void *user) {
  print_ir *pi = user;
  psgi_str_vec_free(pi->ctx, &pi->before);
  psgi_str_vec_free(pi->ctx, &pi->after);
  PSGI_VEC_FREE(pi->ctx, &pi->hashes);
  pthread_mutex_destroy(&pi->lock);
  psgi_free(pi->ctx, pi);
}

static psg_status copy_names(psg_ctx *ctx, psgi_str_vec *v, const char *const *names) {
  for (size_t i = 0; names && names[i]; i++) {
    char *c = psgi_strdup(ctx, names[i]);
    if (!c || !PSGI_VEC_PUSH(ctx, v, c)) {
      psgi_free(ctx, c);
      return psgi_nomem(ctx);
    }
  }
  return PSG_OK;
}

psg_status psg_print_ir_instrument_create(psg_ctx *ctx, const char *const *before_names, const char *const *after_names,
                                          int flags, psg_text_sink sink, void *sink_user, psg_instrument **out) {
  *out = NULL;
  if (!sink) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "an IR printing instrument needs a sink");
  print_ir *pi = psgi_calloc(ctx, sizeof *pi);
  if (!pi) return psgi_nomem(ctx);
  pi->ctx = ctx;
  pi->flags = flags;
  pi->sink = sink;
  pi->sink_user = sink_user;
  pthread_mutex_init(&pi->lock, NULL);
  psg_status st = copy_names(ctx, &pi->before, before_names);
  if (!st) st = copy_names(ctx, &pi->after, after_names);
  psg_instrument_callbacks cb = {NULL, NULL, NULL, before_pass, after_pass, after_failed};
  if (!st) st = psg_instrument_create(ctx, "PassPrintingInstrument", &cb, pi, free_print_ir, out);
  if (st) free_print_ir(pi);
  return st;
}

/* The PrintIR pass ------------------------------------------------------------ */

typedef struct print_ir_pass {
  psg_ctx *ctx;
  char *header;
  bool show_meta;
  psg_text_sink sink;
  void *sink_user;
} print_ir_pass;

static psg_status run_print_ir(psg_module *mod, psg_pass_context *pc, void *user, psg_module **out) {
  (void)pc;
  print_ir_pass *pp = user;
  char *text = NULL;
  size_t len = 0;
  psg_status st = psg_module_print(mod, pp->show_meta ? PSG_PRINT_DEFAULT : PSG_PRINT_NO_METADATA, &text, &len);
  if (st) return st;
  psgi_buf b;
  psgi_buf_init(&b, pp->ctx);
  psgi_buf_printf(&b, "PrintIR(%s):\n", pp->header);
  psgi_buf_append(&b, text, len);
  psg_free(text);
  if (!b.failed) pp->sink(pp->sink_user, b.data, b.len);
  psgi_buf_fini(&b);
  psg_module_retain(mod);
  *out = mod;
  return PSG_OK;
}

static void free_print_ir_pass(void *user) {
  print_ir_pass *pp = user;
  psgi_free(pp->ctx, pp->header);
  psgi_free(pp->ctx, pp);
}

psg_status psg_print_ir_pass_create(psg_ctx *ctx, const char *header, bool show_meta_data, psg_text_sink sink,
                                    void *sink_user, psg_pass **out) {
  *out = NULL;
  if (!sink) return psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "PrintIR needs a sink");
  print_ir_pass *pp = psgi_calloc(ctx, sizeof *pp);
  if (!pp || !(pp->header = psgi_strdup(ctx, header ? header : ""))) {
    psgi_free(ctx, pp);
    return psgi_nomem(ctx);
  }
  pp->ctx = ctx;
  pp->show_meta = show_meta_data;
  pp->sink = sink;
  pp->sink_user = sink_user;
  psg_pass_info *info;
  psg_status st = psg_pass_info_create(ctx, "PrintIR", 0, NULL, 0, &info);
  if (!st) st = psg_create_module_pass(ctx, info, run_print_ir, pp, free_print_ir_pass, out);
  else free_print_ir_pass(pp);
  psg_pass_info_release(info);
  return st;
}
