/* Passage — types as InferType's messages write them: "Tensor[(1, 3),
 * float32]", a scalar as its dtype, tuples "(a, b)" and "(a,)", functions
 * "fn (a) -> b" or "fn [A](A) -> A", type variables by name, holes as "?",
 * TypeCall "List[A]", RefType "ref(a)". Types are shallow, so this recurses. */
#include "transforms/infer_type_internal.h"

static void list(psgi_buf *b, const psg_type *const *ts, int n) {
  for (int i = 0; i < n; i++) {
    if (i) psgi_buf_puts(b, ", ");
    psgi_type_format(b, ts[i]);
  }
}

void psgi_type_format(psgi_buf *b, const psg_type *t) {
  if (!t || t->kind == PSG_TYPE_INCOMPLETE) {
    psgi_buf_puts(b, "?");
    return;
  }
  switch (t->kind) {
  case PSG_TYPE_TENSOR:
    if (t->n == 0) {
      psgi_buf_puts(b, psg_dtype_name(t->dtype));
      return;
    }
    psgi_buf_puts(b, "Tensor[(");
    for (int i = 0; i < t->n; i++) {
      if (i) psgi_buf_puts(b, ", ");
      if (t->dims[i] < 0)
        psgi_buf_putc(b, '?');
      else
        psgi_buf_printf(b, "%lld", (long long)t->dims[i]);
    }
    psgi_buf_printf(b, "), %s]", psg_dtype_name(t->dtype));
    return;
  case PSG_TYPE_TUPLE:
    psgi_buf_puts(b, "(");
    list(b, t->fields, t->n);
    psgi_buf_puts(b, t->n == 1 ? ",)" : ")");
    return;
  case PSG_TYPE_FUNC:
    psgi_buf_puts(b, "fn ");
    if (t->ntparams) {
      psgi_buf_puts(b, "[");
      list(b, t->tparams, t->ntparams);
      psgi_buf_puts(b, "]");
    }
    psgi_buf_puts(b, "(");
    list(b, t->fields, t->n);
    psgi_buf_puts(b, ") -> ");
    psgi_type_format(b, t->ret);
    return;
  case PSG_TYPE_VAR:
  case PSG_TYPE_GLOBAL_VAR: psgi_buf_puts(b, t->name); return;
  case PSG_TYPE_CALL:
    psgi_type_format(b, t->ret);
    psgi_buf_puts(b, "[");
    list(b, t->fields, t->n);
    psgi_buf_puts(b, "]");
    return;
  case PSG_TYPE_REF:
    psgi_buf_puts(b, "ref(");
    psgi_type_format(b, t->ret);
    psgi_buf_puts(b, ")");
    return;
  }
}
