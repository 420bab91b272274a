"""Passage — tvm.relay.ty: the Relay type classes."""

from ..ir import (Type, TensorType, TupleType, FuncType, TypeVar, GlobalTypeVar, IncompleteType,
                  TypeCall, RefType, TypeKind)
from ..tir import Any
from .type_solver import TypeRelation

__all__ = ["Type", "TensorType", "TupleType", "FuncType", "TypeVar", "GlobalTypeVar",
           "IncompleteType", "TypeCall", "RefType", "TypeKind", "Any", "TypeRelation"]
