/* Passage — psg_codegen_c (include/passage/codegen.h): a whole C file of
 * kernels, the public face of codegen_c.h. */
#include <stdio.h>
#include "passage/codegen.h"
#include "codegen/codegen_c.h"

/* names[i] as a C identifier not taken by an earlier kernel. */
static char *kernel_name(psg_ctx *ctx, const char *name, char **taken, size_t ntaken) {
  size_t len = strlen(name);
  char *s = psgi_alloc(ctx, len + 24);
  if (!s) return NULL;
  for (size_t i = 0; i < len; i++) {
    char c = name[i];
    s[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ? c : '_';
  }
  s[len] = 0;
  static const char *const taken_by_c[] = {"main", "int", "float", "double", "char", "void", "for", "if", "while",
                                          "do", "return", "static", "const", "struct", "union", "enum", "long",
                                          "short", "signed", "unsigned", "switch", "case", "default", "break",
                                          "continue", "goto", "sizeof", "typedef", "extern", "register", "auto",
                                          "volatile", "inline", "restrict", "else", "workspace"};
  bool bad = !len || (s[0] >= '0' && s[0] <= '9') || !strncmp(s, "psg", 3) || !strncmp(s, "PSG", 3);
  for (size_t i = 0; i < sizeof taken_by_c / sizeof *taken_by_c && !bad; i++) bad = !strcmp(s, taken_by_c[i]);
  if (bad) {
    memmove(s + 2, s, len + 1);
    memcpy(s, "k_", 2);
    len += 2;
  }
  for (int k = 1;; k++) {
    bool dup = false;
    for (size_t i = 0; i < ntaken && !dup; i++) dup = !strcmp(taken[i], s);
    if (!dup) return s;
    snprintf(s + len, 24, "_%d", k);
  }
}

psg_status psg_codegen_c(psg_ctx *ctx, psg_tir_prim_func *const *funcs, const char *const *names, size_t n,
                         int flags, char **out, size_t *len) {
  if (out) *out = NULL;
  if (len) *len = 0;
  if (!ctx || !out || (n && (!funcs || !names)))
    return ctx ? psg_ctx_fail(ctx, PSG_ERR_INVALID_ARGUMENT, "psg_codegen_c: NULL argument") : PSG_ERR_INVALID_ARGUMENT;
  psgi_codegen_opts o = {!(flags & PSG_CODEGEN_NO_VECTOR_EXT), (flags & PSG_CODEGEN_OPENMP) != 0};
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  char **taken = n ? psgi_calloc(ctx, n * sizeof *taken) : NULL;
  psg_status st = n && !taken ? psgi_nomem(ctx) : PSG_OK;
  if (!st && !psgi_codegen_c_prelude(&b, &o)) st = psgi_nomem(ctx);
  for (size_t i = 0; i < n && !st; i++) {
    taken[i] = kernel_name(ctx, names[i] ? names[i] : "kernel", taken, i);
    st = taken[i] ? psgi_codegen_c_kernel(ctx, funcs[i], taken[i], &o, &b) : psgi_nomem(ctx);
  }
  for (size_t i = 0; i < n && taken; i++) psgi_free(ctx, taken[i]);
  psgi_free(ctx, taken);
  if (!st) {
    *out = psgi_buf_detach_libc(&b, len);
    if (!*out) st = psgi_nomem(ctx);
  }
  psgi_buf_fini(&b);
  return st;
}

uint64_t psg_codegen_c_workspace(const psg_tir_prim_func *f) {
  return f && psg_tir_kind(f) == PSG_TIR_PRIM_FUNC ? psgi_codegen_c_kernel_workspace(f) : 0;
}
