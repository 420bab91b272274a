"""Passage — tvm.relay.ExprVisitor / ExprMutator in Python: memoized walks
that dispatch on the node class (visit_call, visit_var, ...). Like TVM's
Python versions they recurse, so they suit the small graphs a Python pass
rewrites; C passes use the iterative psg_mutate engine."""

from ..ir import Var, GlobalVar, Constant, Tuple, TupleGetItem, Call, Let, If, Function, Op
from .adt import Constructor, Match, Clause, RefCreate, RefRead, RefWrite

__all__ = ["ExprFunctor", "ExprVisitor", "ExprMutator"]

_DISPATCH = {Var: "visit_var", GlobalVar: "visit_global_var", Constant: "visit_constant",
             Tuple: "visit_tuple", TupleGetItem: "visit_tuple_getitem", Call: "visit_call",
             Let: "visit_let", If: "visit_if", Function: "visit_function", Op: "visit_op",
             Constructor: "visit_constructor", Match: "visit_match", RefCreate: "visit_ref_create",
             RefRead: "visit_ref_read", RefWrite: "visit_ref_write"}


class ExprFunctor:
    """tvm.relay.ExprFunctor: `visit(expr)` calls the visit_<kind> method for
    the node's class once per node (results memoized); every visit_<kind> is
    left to the subclass and raises NotImplementedError here."""

    def __init__(self):
        self.memo_map = {}

    def visit(self, expr):
        if expr in self.memo_map:
            return self.memo_map[expr]
        kind = _DISPATCH.get(type(expr))
        if kind is None:
            raise TypeError("ExprFunctor: not a Relay expression: %r" % (type(expr).__name__,))
        res = getattr(self, kind)(expr)
        self.memo_map[expr] = res
        return res


def _unimplemented(kind):
    def method(self, node):
        raise NotImplementedError("%s does not define %s" % (type(self).__name__, kind))
    method.__name__ = kind
    return method


for _kind in _DISPATCH.values():
    setattr(ExprFunctor, _kind, _unimplemented(_kind))


class ExprVisitor(ExprFunctor):
    """Visits each node once; override visit_<kind> methods."""

    def visit_var(self, v):
        pass

    def visit_global_var(self, gv):
        pass

    def visit_constant(self, c):
        pass

    def visit_op(self, op):
        pass

    def visit_tuple(self, t):
        for f in t.fields:
            self.visit(f)

    def visit_tuple_getitem(self, t):
        self.visit(t.tuple_value)

    def visit_call(self, call):
        self.visit(call.op)
        for a in call.args:
            self.visit(a)

    def visit_let(self, let):
        self.visit(let.var)
        self.visit(let.value)
        self.visit(let.body)

    def visit_if(self, i):
        self.visit(i.cond)
        self.visit(i.true_branch)
        self.visit(i.false_branch)

    def visit_function(self, fn):
        for p in fn.params:
            self.visit(p)
        self.visit(fn.body)

    def visit_constructor(self, c):
        pass

    def visit_pattern(self, p):
        pass

    def visit_match(self, m):
        self.visit(m.data)
        for c in m.clauses:
            self.visit_pattern(c.lhs)
            self.visit(c.rhs)

    def visit_ref_create(self, r):
        self.visit(r.value)

    def visit_ref_read(self, r):
        self.visit(r.ref)

    def visit_ref_write(self, r):
        self.visit(r.ref)
        self.visit(r.value)


class ExprMutator(ExprVisitor):
    """Rebuilds each node from its visited children; a node whose children
    did not change is returned as is (functional update)."""

    def visit_var(self, v):
        return v

    visit_global_var = visit_constant = visit_op = visit_var

    def visit_tuple(self, t):
        fields = [self.visit(f) for f in t.fields]
        return t if all(a.same_as(b) for a, b in zip(fields, t.fields)) else Tuple(fields)

    def visit_tuple_getitem(self, t):
        tv = self.visit(t.tuple_value)
        return t if tv.same_as(t.tuple_value) else TupleGetItem(tv, t.index)

    def visit_call(self, call):
        op = self.visit(call.op)
        args = [self.visit(a) for a in call.args]
        if op.same_as(call.op) and all(a.same_as(b) for a, b in zip(args, call.args)):
            return call
        attrs = call.attrs
        return Call(op, args, dict(attrs.items()) if attrs else None)

    def visit_let(self, let):
        v, val, body = self.visit(let.var), self.visit(let.value), self.visit(let.body)
        if v.same_as(let.var) and val.same_as(let.value) and body.same_as(let.body):
            return let
        return Let(v, val, body)

    def visit_if(self, i):
        c, t, f = self.visit(i.cond), self.visit(i.true_branch), self.visit(i.false_branch)
        if c.same_as(i.cond) and t.same_as(i.true_branch) and f.same_as(i.false_branch):
            return i
        return If(c, t, f)

    def visit_function(self, fn):
        params = [self.visit(p) for p in fn.params]
        body = self.visit(fn.body)
        if body.same_as(fn.body) and all(a.same_as(b) for a, b in zip(params, fn.params)):
            return fn
        attrs = fn.attrs
        return Function(params, body, fn.ret_type, attrs=dict(attrs.items()) if attrs else None)

    visit_constructor = visit_var

    def visit_pattern(self, p):
        return p

    def visit_match(self, m):
        data = self.visit(m.data)
        clauses = m.clauses
        new = [Clause(self.visit_pattern(c.lhs), self.visit(c.rhs)) for c in clauses]
        if data.same_as(m.data) and all(a.rhs.same_as(b.rhs) and a.lhs is b.lhs for a, b in zip(new, clauses)):
            return m
        return Match(data, new, m.complete)

    def visit_ref_create(self, r):
        v = self.visit(r.value)
        return r if v.same_as(r.value) else RefCreate(v)

    def visit_ref_read(self, r):
        v = self.visit(r.ref)
        return r if v.same_as(r.ref) else RefRead(v)

    def visit_ref_write(self, r):
        ref, v = self.visit(r.ref), self.visit(r.value)
        return r if ref.same_as(r.ref) and v.same_as(r.value) else RefWrite(ref, v)
