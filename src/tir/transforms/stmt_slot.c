/* Passage — the statement children of a TIR statement (stmt_slot.h). */
#include "tir/transforms/stmt_slot.h"

int psgi_tir_stmt_slot(const psg_tir_node *n, uint32_t k) {
  switch (n->kind) {
  case PSG_TIR_FOR: return k == 0 ? 3 : -1;
  case PSG_TIR_IF_THEN_ELSE: return k + 1 < n->nkids && n->kids[k + 1] ? (int)k + 1 : -1;
  case PSG_TIR_LET_STMT:
  case PSG_TIR_ALLOCATE:
  case PSG_TIR_ASSERT_STMT: return k == 0 ? 2 : -1;
  case PSG_TIR_DECL_BUFFER:
  case PSG_TIR_ATTR_STMT:
  case PSG_TIR_WHILE: return k == 0 ? 1 : -1;
  case PSG_TIR_SEQ_STMT: return k < n->nkids ? (int)k : -1;
  default: return -1;
  }
}
