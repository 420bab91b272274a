"""Passage — tvm.relay.TypeFunctor / TypeVisitor / TypeMutator: Python
visitors over Relay types, dispatching on the type's class to a
`visit_<kind>` method a subclass overrides. TypeFunctor leaves every kind
unimplemented; TypeVisitor walks into the parts of a type; TypeMutator
rebuilds it from its visited parts (type variables become new variables of
the same name and kind, as in TVM)."""

from ..ir import (TypeVar, IncompleteType, TensorType, FuncType, TupleType, RefType, GlobalTypeVar,
                  TypeCall)
from .type_solver import TypeRelation

__all__ = ["TypeFunctor", "TypeVisitor", "TypeMutator"]


def _type_data_class():
    """relay.adt.TypeData where the ADT layer provides it, else None."""
    try:
        from .adt import TypeData
    except ImportError:
        return None
    return TypeData


# (class, method) in dispatch order: TypeCall before GlobalTypeVar does not
# matter (they are unrelated classes), but the order is TVM's.
_DISPATCH = [(TypeVar, "visit_type_var"), (IncompleteType, "visit_incomplete_type"),
             (TensorType, "visit_tensor_type"), (FuncType, "visit_func_type"), (TupleType, "visit_tuple_type"),
             (TypeRelation, "visit_type_relation"), (RefType, "visit_ref_type"),
             (GlobalTypeVar, "visit_global_type_var"), (TypeCall, "visit_type_call")]


class TypeFunctor:
    """Dispatches `visit(t)` to the method for t's kind; every method raises
    NotImplementedError until a subclass defines it."""

    def visit(self, typ):
        for cls, method in _DISPATCH:
            if isinstance(typ, cls):
                return getattr(self, method)(typ)
        td = _type_data_class()
        if td is not None and isinstance(typ, td):
            return self.visit_type_data(typ)
        raise TypeError("TypeFunctor: unhandled case: %s" % type(typ).__name__)

    def visit_type_var(self, _):
        raise NotImplementedError()

    def visit_incomplete_type(self, _):
        raise NotImplementedError()

    def visit_tensor_type(self, _):
        raise NotImplementedError()

    def visit_func_type(self, _):
        raise NotImplementedError()

    def visit_tuple_type(self, _):
        raise NotImplementedError()

    def visit_type_relation(self, _):
        raise NotImplementedError()

    def visit_ref_type(self, _):
        raise NotImplementedError()

    def visit_global_type_var(self, _):
        raise NotImplementedError()

    def visit_type_call(self, _):
        raise NotImplementedError()

    def visit_type_data(self, _):
        raise NotImplementedError()


class TypeVisitor(TypeFunctor):
    """Visits every part of a type; leaves do nothing."""

    def visit_type_var(self, tv):
        pass

    def visit_incomplete_type(self, it):
        pass

    def visit_tensor_type(self, tt):
        pass

    def visit_global_type_var(self, gtv):
        pass

    def visit_func_type(self, ft):
        for t in list(ft.arg_types) + [ft.ret_type] + list(ft.type_params) + list(ft.type_constraints):
            self.visit(t)

    def visit_tuple_type(self, tt):
        for t in tt.fields:
            self.visit(t)

    def visit_type_relation(self, tr):
        for t in tr.args:
            self.visit(t)

    def visit_ref_type(self, rt):
        self.visit(rt.value)

    def visit_type_call(self, tc):
        self.visit(tc.func)
        for t in tc.args:
            self.visit(t)

    def visit_type_data(self, td):
        self.visit(td.header)
        for t in td.type_vars:
            self.visit(t)


class TypeMutator(TypeFunctor):
    """Rebuilds a type from its visited parts."""

    def visit_type_var(self, tv):
        return TypeVar(tv.name_hint, tv.kind)

    def visit_incomplete_type(self, it):
        return IncompleteType(it.kind)

    def visit_tensor_type(self, tt):
        return TensorType(tt.shape, tt.dtype)

    def visit_global_type_var(self, gtv):
        return GlobalTypeVar(gtv.name_hint, gtv.kind)

    def visit_func_type(self, ft):
        return FuncType([self.visit(t) for t in ft.arg_types], self.visit(ft.ret_type),
                        [self.visit(t) for t in ft.type_params], [self.visit(c) for c in ft.type_constraints])

    def visit_tuple_type(self, tt):
        return TupleType([self.visit(t) for t in tt.fields])

    def visit_type_relation(self, tr):
        return TypeRelation(tr.func, [self.visit(t) for t in tr.args], tr.num_inputs, tr.attrs)

    def visit_ref_type(self, rt):
        return RefType(self.visit(rt.value))

    def visit_type_call(self, tc):
        return TypeCall(self.visit(tc.func), [self.visit(t) for t in tc.args])

    def visit_type_data(self, td):
        return type(td)(self.visit(td.header), [self.visit(t) for t in td.type_vars], td.constructors)
