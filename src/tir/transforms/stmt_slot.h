/* Passage — the statement children of a TIR statement, for the passes that
 * walk statements with an explicit stack (UnrollLoop, VectorizeLoop,
 * InjectVirtualThread, LoopPartition): one table, so that every walker
 * descends into the same bodies (also a While's). */
#ifndef PSG_TIR_STMT_SLOT_H
#define PSG_TIR_STMT_SLOT_H

#include <stdint.h>

#include "tir/tir_internal.h"

/* The operand slot (psg_tir_get_operand index) of n's k-th statement child,
 * or -1 when n has no k-th one: For's body; IfThenElse's then and else (when
 * present); the body of LetStmt, Allocate, AssertStmt, DeclBuffer, AttrStmt
 * and While; every element of a SeqStmt. Expressions and leaf statements
 * have none. */
int psgi_tir_stmt_slot(const psg_tir_node *n, uint32_t k);

#endif
