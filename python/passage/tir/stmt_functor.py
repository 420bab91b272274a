"""Passage — tvm.tir.stmt_functor: post_order_visit(node, fvisit) calls
fvisit on every statement and expression below node (node included),
children first, each node once, as TVM's PostOrderVisit does. Buffers,
types and IterVars are not entered. Iterative."""

from ._api import lib, borrowed

__all__ = ["post_order_visit"]


def post_order_visit(stmt, fvisit):
    seen = set()
    stack = [(stmt, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            fvisit(node)
            continue
        ptr = node._ptr
        if ptr in seen:
            continue
        seen.add(ptr)
        stack.append((node, True))
        kids = []
        for i in range(lib.psg_tir_num_operands(ptr)):
            c = lib.psg_tir_get_operand(ptr, i)
            if c and (lib.psg_tir_is_expr(c) or lib.psg_tir_is_stmt(c)):
                kids.append(borrowed(c))
        stack.extend((k, False) for k in reversed(kids))
