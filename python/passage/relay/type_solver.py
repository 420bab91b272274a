"""Passage — InferType's type solver from Python (include/passage/type_solver.h),
shaped as TVM's `relay.analysis._ffi_api._test_type_solver()`: the solver
object answers `solver("Solve")`, `("Unify")`, `("Resolve")` and
`("AddConstraint")` with the function of that name."""

import ctypes

from .. import _ffi
from .._ffi import lib, CTX, call
from ..ir import Type, EnvFunc, _wrap_type

__all__ = ["TypeRelation", "TypeSolver"]

_RELATION_PREFIX = "tvm.relay.type_relation."


class TypeRelation:
    """relay.ty.TypeRelation(func, args, num_inputs, attrs): the constraint
    that relation `func` holds over the types `args`, the first num_inputs of
    them inputs."""

    def __init__(self, func, args, num_inputs, attrs=None):
        self.func, self.args, self.num_inputs, self.attrs = func, list(args), int(num_inputs), attrs

    def __eq__(self, other):  # TVM's structural equality, as for types
        from ..ir import structural_equal
        return isinstance(other, TypeRelation) and structural_equal(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((_relation_name(self.func), self.num_inputs, len(self.args)))


def _relation_name(func):
    name = func.name if isinstance(func, EnvFunc) else str(func)
    return name[len(_RELATION_PREFIX):] if name.startswith(_RELATION_PREFIX) else name


class TypeSolver:
    def __init__(self):
        out = ctypes.c_void_p()
        call(lib.psg_type_solver_create, CTX, ctypes.byref(out), what="TypeSolver")
        self._ptr = out.value

    def __del__(self):
        if getattr(self, "_ptr", None):
            lib.psg_type_solver_free(self._ptr)
            self._ptr = None

    def __call__(self, name):
        return getattr(self, name)

    def Unify(self, a, b):
        out = ctypes.c_void_p()
        call(lib.psg_type_solver_unify, self._ptr, a._ptr, b._ptr, ctypes.byref(out), what="Unify")
        return _wrap_type(out.value)

    def Resolve(self, t):
        out = ctypes.c_void_p()
        call(lib.psg_type_solver_resolve, self._ptr, t._ptr, ctypes.byref(out), what="Resolve")
        return _wrap_type(out.value)

    def AddConstraint(self, rel):
        if isinstance(rel, Type):
            raise TypeError("AddConstraint takes a TypeRelation")
        ptrs = _ffi.ptr_array([t._ptr for t in rel.args])
        attrs = rel.attrs._ptr if getattr(rel.attrs, "_ptr", None) else None
        call(lib.psg_type_solver_add_relation, self._ptr, _ffi.enc(_relation_name(rel.func)), ptrs,
             len(rel.args), rel.num_inputs, attrs, what="AddConstraint")

    def Solve(self):
        done = ctypes.c_bool()
        call(lib.psg_type_solver_solve, self._ptr, ctypes.byref(done), what="Solve")
        return bool(done.value)
