/* Passage — the TVM field names of TIR operands that paths print. The
 * operand order the analyses see (definitions before the uses they scope
 * over, spec/tir.md §2: PrimFunc params and buffers, LetStmt/Let/For vars,
 * Allocate's buffer var, DeclBuffer's buffer, the fields of a Buffer) is
 * psgi_tir_visit_slot, inline in tir_internal.h. */
#include <stdio.h>
#include "tir/tir_internal.h"

static const char *fixed_label(int kind, uint32_t slot) {
  static const char *const let[] = {"var", "value", "body"};
  static const char *const loop[] = {"loop_var", "min", "extent", "body"};
  static const char *const ite[] = {"condition", "then_case", "else_case"};
  static const char *const sel[] = {"condition", "true_value", "false_value"};
  static const char *const alloc[] = {"buffer_var", "condition", "body"};
  static const char *const attr[] = {"value", "body", "node"};
  static const char *const as[] = {"condition", "message", "body"};
  static const char *const wh[] = {"condition", "body"};
  static const char *const bin[] = {"a", "b"};
  static const char *const ramp[] = {"base", "stride"};
  static const char *const decl[] = {"buffer", "body"};
  switch (kind) {
  case PSG_TIR_LET:
  case PSG_TIR_LET_STMT: return let[slot];
  case PSG_TIR_FOR: return loop[slot];
  case PSG_TIR_IF_THEN_ELSE: return ite[slot];
  case PSG_TIR_SELECT: return sel[slot];
  case PSG_TIR_ALLOCATE: return slot < 3 ? alloc[slot] : NULL;
  case PSG_TIR_ATTR_STMT: return attr[slot];
  case PSG_TIR_ASSERT_STMT: return as[slot];
  case PSG_TIR_WHILE: return wh[slot];
  case PSG_TIR_RAMP: return ramp[slot];
  case PSG_TIR_DECL_BUFFER: return decl[slot];
  case PSG_TIR_NOT: return "a";
  case PSG_TIR_CAST:
  case PSG_TIR_BROADCAST:
  case PSG_TIR_EVALUATE: return "value";
  case PSG_TIR_POINTER_TYPE: return "element_type";
  default:
    if (kind >= PSG_TIR_ADD && kind <= PSG_TIR_OR) return bin[slot];
    return NULL;
  }
}

void psgi_tir_field_label(const psg_tir_node *n, uint32_t slot, char *buf, size_t size) {
  const char *fixed = fixed_label(n->kind, slot);
  if (fixed) {
    snprintf(buf, size, "%s", fixed);
    return;
  }
  const char *name = "operand";
  uint32_t i = slot;
  switch (n->kind) {
  case PSG_TIR_PRIM_FUNC:
    if (slot == 0) {
      snprintf(buf, size, "body");
      return;
    }
    name = slot <= n->u.func.nparams ? "params" : "buffer_map";
    i = slot <= n->u.func.nparams ? slot - 1 : slot - 1 - n->u.func.nparams;
    break;
  case PSG_TIR_BUFFER:
    if (slot < 2) {
      snprintf(buf, size, slot ? "elem_offset" : "data");
      return;
    }
    name = slot - 2 < n->u.buf.ndim ? "shape" : "strides";
    i = slot - 2 < n->u.buf.ndim ? slot - 2 : slot - 2 - n->u.buf.ndim;
    break;
  case PSG_TIR_BUFFER_LOAD:
  case PSG_TIR_BUFFER_STORE: {
    uint32_t first = n->kind == PSG_TIR_BUFFER_STORE ? 2 : 1;
    if (slot == 0 || (n->kind == PSG_TIR_BUFFER_STORE && slot == 1)) {
      snprintf(buf, size, slot ? "value" : "buffer");
      return;
    }
    if ((n->flags & PSGI_TIR_HAS_PRED) && slot == n->nkids - 1) {
      snprintf(buf, size, "predicate");
      return;
    }
    name = "indices";
    i = slot - first;
    break;
  }
  case PSG_TIR_CALL: name = "args"; break;
  case PSG_TIR_SEQ_STMT: name = "seq"; break;
  case PSG_TIR_ALLOCATE:
    name = "extents";
    i = slot - 3;
    break;
  default: break;
  }
  snprintf(buf, size, "%s[%u]", name, i);
}
