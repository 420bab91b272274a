/* Passage — LowerTE's function names, as TVM v0.19 makes them
 * (te_compiler_cache.cc LowerToTECompute: "fused" + "_" + each op's name,
 * truncated past 80 characters with a hash). */
#include <inttypes.h>
#include <stdio.h>
#include "ir/ir_internal.h"
#include "ir/op_table.h"
#include "lower/lower_te.h"

enum { MAX_NAME = 80 };

static uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

/* libstdc++'s 64-bit _Hash_bytes: 8-byte little-endian words, then the tail
 * bytes as one little-endian word. */
uint64_t psgi_lower_te_std_hash(const char *s, size_t len) {
  const uint64_t mul = ((uint64_t)0xc6a4a793u << 32) + 0x5bd1e995u;
  const unsigned char *p = (const unsigned char *)s;
  size_t aligned = len & ~(size_t)7;
  uint64_t hash = 0xc70f6907u ^ ((uint64_t)len * mul);
  for (size_t i = 0; i < aligned; i += 8) {
    uint64_t w = 0;
    for (int b = 7; b >= 0; b--) w = (w << 8) | p[i + (size_t)b];
    hash ^= shift_mix(w * mul) * mul;
    hash *= mul;
  }
  if (len & 7) {
    uint64_t w = 0;
    for (size_t b = len & 7; b-- > 0;) w = (w << 8) | p[aligned + b];
    hash ^= w;
    hash *= mul;
  }
  hash = shift_mix(hash) * mul;
  return shift_mix(hash);
}

typedef struct {
  psgi_buf *b;
} name_walk;

/* Post order, each node once: the op of every call, as TVM's memoized
 * translator meets them. */
static psg_status on_node(psg_visitor *v, const psg_expr *e) {
  name_walk *w = v->user;
  if (e->kind == PSG_EXPR_CALL && e->kids[0]->kind == PSG_EXPR_OP) {
    psgi_buf_putc(w->b, '_');
    psgi_buf_puts(w->b, psg_op_name(e->kids[0]));
  }
  return PSG_OK;
}

psg_status psgi_lower_te_candidate_name(psg_ctx *ctx, const psg_expr *fn, char **out) {
  *out = NULL;
  psgi_buf b;
  psgi_buf_init(&b, ctx);
  psgi_buf_puts(&b, "fused");
  name_walk w = {&b};
  psg_visitor v = {NULL, on_node, &w};
  psg_status st = psg_visit(ctx, &v, psgi_fn_body(fn));
  if (!st && b.len > MAX_NAME) {
    uint64_t h = psgi_lower_te_std_hash(b.data, b.len);
    b.len = MAX_NAME;
    psgi_buf_printf(&b, "_%" PRIx64 "_", h);
  }
  if (!st && (b.failed || !b.data)) st = psgi_nomem(ctx);
  if (!st) {
    *out = b.data;
    b.data = NULL;
  }
  psgi_buf_fini(&b);
  return st;
}
