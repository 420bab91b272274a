"""Passage — tvm.relay's algebraic data types and references: TypeData,
Constructor, Match with Clause and the pattern classes, RefCreate, RefRead
and RefWrite (include/passage/adt.h)."""

import ctypes

from .. import _ffi
from .._ffi import lib, s, enc, call, CTX, P, S, I, Z, B, PP
from .. import ir as _ir
from ..ir import Expr, _Owned, _wrap_expr, _wrap_type, _new, _expr_ptr, Call

_PROTOS = {
    "psg_constructor_create": (I, [P, S, PP, I, P, P, PP]),
    "psg_constructor_name": (S, [P]), "psg_constructor_num_inputs": (I, [P]),
    "psg_constructor_input": (P, [P, I]), "psg_constructor_belongs_to": (P, [P]),
    "psg_constructor_tag": (I, [P]),
    "psg_ref_create": (I, [P, P, P, PP]), "psg_ref_read": (I, [P, P, P, PP]),
    "psg_ref_write": (I, [P, P, P, P, PP]),
    "psg_pattern_wildcard": (I, [P, PP]), "psg_pattern_var": (I, [P, P, PP]),
    "psg_pattern_constructor": (I, [P, P, PP, I, PP]), "psg_pattern_tuple": (I, [P, PP, I, PP]),
    "psg_pattern_retain": (None, [P]), "psg_pattern_release": (None, [P]),
    "psg_pattern_kind": (I, [P]), "psg_pattern_get_var": (P, [P]),
    "psg_pattern_get_constructor": (P, [P]), "psg_pattern_num_fields": (I, [P]),
    "psg_pattern_field": (I, [P, I, PP]),
    "psg_match_create": (I, [P, P, PP, PP, Z, B, P, PP]), "psg_match_get_data": (P, [P]),
    "psg_match_num_clauses": (Z, [P]), "psg_match_complete": (B, [P]),
    "psg_match_clause_rhs": (P, [P, Z]), "psg_match_clause_pattern": (I, [P, Z, PP]),
    "psg_match_clause_num_vars": (Z, [P, Z]), "psg_match_clause_var": (P, [P, Z, Z]),
    "psg_match_unmatched_cases": (I, [P, P, PP]), "psg_expr_well_formed": (B, [P]),
    "psg_type_data_create": (I, [P, P, PP, I, PP, I, PP]),
    "psg_type_data_retain": (None, [P]), "psg_type_data_release": (None, [P]),
    "psg_type_data_header": (P, [P]), "psg_type_data_num_tvars": (I, [P]),
    "psg_type_data_tvar": (P, [P, I]), "psg_type_data_num_constructors": (I, [P]),
    "psg_type_data_constructor": (P, [P, I]),
    "psg_module_add_type_def": (I, [P, P, B, PP]), "psg_module_num_type_defs": (Z, [P]),
    "psg_module_get_type_def": (P, [P, Z]), "psg_module_find_type_def": (P, [P, S]),
    "psg_module_find_constructor": (P, [P, S]),
}
for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def _out(fn, *args, what):
    out = ctypes.c_void_p()
    call(fn, CTX, *args, ctypes.byref(out), what=what)
    return out.value


# Constructors and references -----------------------------------------------------------

class Constructor(Expr):
    """Constructor(name_hint, inputs, belongs_to): a constructor of the ADT
    `belongs_to` (a GlobalTypeVar) with fields of types `inputs`. Calling it
    builds the Call that constructs a value."""
    __slots__ = ()

    def __new__(cls, name_hint, inputs, belongs_to):
        inputs = list(inputs)
        return _new(cls, lib.psg_constructor_create, enc(name_hint),
                    _ffi.ptr_array([t._ptr for t in inputs]), len(inputs), belongs_to._ptr, None)

    def __init__(self, *a, **k):
        pass

    @property
    def name_hint(self):
        return s(lib.psg_constructor_name(self._ptr))

    @property
    def inputs(self):
        return [_wrap_type(lib.psg_constructor_input(self._ptr, i))
                for i in range(lib.psg_constructor_num_inputs(self._ptr))]

    @property
    def belongs_to(self):
        return _wrap_type(lib.psg_constructor_belongs_to(self._ptr))

    @property
    def tag(self):
        return lib.psg_constructor_tag(self._ptr)

    def __call__(self, *args):
        return Call(self, list(args))


class RefCreate(Expr):
    """RefCreate(value): a new mutable reference holding `value`."""
    __slots__ = ()

    def __new__(cls, value):
        return _new(cls, lib.psg_ref_create, _expr_ptr(value), None)

    def __init__(self, *a, **k):
        pass

    value = _ir._child(lambda p: lib.psg_expr_get_child(p, 0))


class RefRead(Expr):
    """RefRead(ref): the value a reference holds."""
    __slots__ = ()

    def __new__(cls, ref):
        return _new(cls, lib.psg_ref_read, _expr_ptr(ref), None)

    def __init__(self, *a, **k):
        pass

    ref = _ir._child(lambda p: lib.psg_expr_get_child(p, 0))


class RefWrite(Expr):
    """RefWrite(ref, value): stores `value` in `ref`; evaluates to ()."""
    __slots__ = ()

    def __new__(cls, ref, value):
        return _new(cls, lib.psg_ref_write, _expr_ptr(ref), _expr_ptr(value), None)

    def __init__(self, *a, **k):
        pass

    ref = _ir._child(lambda p: lib.psg_expr_get_child(p, 0))
    value = _ir._child(lambda p: lib.psg_expr_get_child(p, 1))


# Patterns -----------------------------------------------------------------------------

class Pattern(_Owned):
    """A match pattern (immutable)."""
    __slots__ = ()
    _retain = staticmethod(lambda p: lib.psg_pattern_retain(p))
    _release = staticmethod(lambda p: lib.psg_pattern_release(p))

    def _fields(self):
        out = []
        for i in range(lib.psg_pattern_num_fields(self._ptr)):
            out.append(_wrap_pattern(_out_pattern(lib.psg_pattern_field, self._ptr, i)))
        return out

    def __eq__(self, other):
        return isinstance(other, Pattern) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


def _out_pattern(fn, *args):
    out = ctypes.c_void_p()
    call(fn, *args, ctypes.byref(out), what="Pattern")
    return out.value


class PatternWildcard(Pattern):
    """_ : matches anything, binds nothing."""
    __slots__ = ()

    def __init__(self):
        self._ptr = _out(lib.psg_pattern_wildcard, what="PatternWildcard")

    def __str__(self):
        return "_"


class PatternVar(Pattern):
    """PatternVar(var): matches anything and binds it to `var`."""
    __slots__ = ()

    def __init__(self, var):
        self._ptr = _out(lib.psg_pattern_var, _expr_ptr(var), what="PatternVar")

    @property
    def var(self):
        return _wrap_expr(lib.psg_pattern_get_var(self._ptr), False)

    def __str__(self):
        return "%" + self.var.name_hint


class PatternConstructor(Pattern):
    """PatternConstructor(constructor, patterns=None): matches a value built
    by `constructor` whose fields match `patterns`."""
    __slots__ = ()

    def __init__(self, constructor, patterns=None):
        pats = list(patterns or [])
        self._ptr = _out(lib.psg_pattern_constructor, _expr_ptr(constructor),
                         _ffi.ptr_array([p._ptr for p in pats]), len(pats), what="PatternConstructor")

    @property
    def constructor(self):
        return _wrap_expr(lib.psg_pattern_get_constructor(self._ptr), False)

    @property
    def patterns(self):
        return self._fields()

    def __str__(self):
        pats = self.patterns
        name = self.constructor.name_hint
        return "%s(%s)" % (name, ", ".join(str(p) for p in pats)) if pats else name


class PatternTuple(Pattern):
    """PatternTuple(patterns=None): matches a tuple field by field."""
    __slots__ = ()

    def __init__(self, patterns=None):
        pats = list(patterns or [])
        self._ptr = _out(lib.psg_pattern_tuple, _ffi.ptr_array([p._ptr for p in pats]), len(pats),
                         what="PatternTuple")

    @property
    def patterns(self):
        return self._fields()

    def __str__(self):
        return "(%s)" % ", ".join(str(p) for p in self.patterns)


def _as_match(pattern):
    """A one-clause Match over `pattern`: the C comparison and hash of
    expressions see a pattern's variables as bindings (docs/design.md,
    departure "ADTs: a Match's pattern variables are its children"), so a
    pattern compares as the Match that holds it."""
    unit = _ir.Tuple([])
    return Match(unit, [Clause(pattern, unit)])


def pattern_structural_equal(lhs, rhs, map_free_vars=False):
    """TVM's StructuralEqual of two patterns: the same shape and
    constructors, variables paired as definitions (by annotation)."""
    a, b = _as_match(lhs), _as_match(rhs)  # held across the call
    return bool(lib.psg_expr_structural_equal_ex(a._ptr, b._ptr, bool(map_free_vars), None))


def pattern_structural_hash(pattern):
    """TVM's StructuralHash of a pattern, consistent with
    pattern_structural_equal."""
    m = _as_match(pattern)  # held across the call
    return lib.psg_expr_structural_hash(m._ptr)


def _module_of(type_data):
    mod = _ir.IRModule()
    set_type_def(mod, type_data.header, type_data)
    return mod


def type_data_structural_equal(lhs, rhs, map_free_vars=False):
    """TVM's StructuralEqual of two TypeData: compared as the type
    definitions of two modules are (header by name, type parameters paired
    by position, constructors by name and inputs)."""
    a, b = _module_of(lhs), _module_of(rhs)
    return bool(lib.psg_module_structural_equal_ex(a._ptr, b._ptr, bool(map_free_vars), None))


def type_data_structural_hash(type_data):
    mod = _module_of(type_data)  # held across the call
    return lib.psg_module_structural_hash(mod._ptr)


_PATTERN_CLASSES = {0: PatternWildcard, 1: PatternVar, 2: PatternConstructor, 3: PatternTuple}


def _wrap_pattern(ptr):
    return _PATTERN_CLASSES[lib.psg_pattern_kind(ptr)]._own(ptr)


class Clause:
    """Clause(lhs, rhs): a match arm, pattern `lhs` and expression `rhs`."""
    __slots__ = ("lhs", "rhs")

    def __init__(self, lhs, rhs):
        self.lhs = lhs
        self.rhs = rhs


class Match(Expr):
    """Match(data, clauses, complete=True): the first clause whose pattern
    matches `data` gives the value; `complete` is TVM's flag (`match` versus
    `match?` in the text format)."""
    __slots__ = ()

    def __new__(cls, data, clauses, complete=True):
        clauses = list(clauses)
        return _new(cls, lib.psg_match_create, _expr_ptr(data),
                    _ffi.ptr_array([c.lhs._ptr for c in clauses]),
                    _ffi.ptr_array([_expr_ptr(c.rhs) for c in clauses]), len(clauses),
                    bool(complete), None)

    def __init__(self, *a, **k):
        pass

    data = _ir._child(lib.psg_match_get_data)

    @property
    def complete(self):
        return bool(lib.psg_match_complete(self._ptr))

    @property
    def clauses(self):
        out = []
        for i in range(lib.psg_match_num_clauses(self._ptr)):
            pat = _wrap_pattern(_out_pattern(lib.psg_match_clause_pattern, self._ptr, i))
            out.append(Clause(pat, _wrap_expr(lib.psg_match_clause_rhs(self._ptr, i), False)))
        return out


# TypeData and module type definitions ----------------------------------------------------

class TypeData(_Owned):
    """TypeData(header, type_vars, constructors): an ADT's definition, added
    to a module with `mod[header] = type_data`."""
    __slots__ = ()
    _retain = staticmethod(lambda p: lib.psg_type_data_retain(p))
    _release = staticmethod(lambda p: lib.psg_type_data_release(p))

    def __init__(self, header, type_vars, constructors):
        tvs, ctors = list(type_vars), list(constructors)
        self._ptr = _out(lib.psg_type_data_create, header._ptr, _ffi.ptr_array([t._ptr for t in tvs]),
                         len(tvs), _ffi.ptr_array([_expr_ptr(c) for c in ctors]), len(ctors),
                         what="TypeData")

    @property
    def header(self):
        return _wrap_type(lib.psg_type_data_header(self._ptr))

    @property
    def type_vars(self):
        return [_wrap_type(lib.psg_type_data_tvar(self._ptr, i))
                for i in range(lib.psg_type_data_num_tvars(self._ptr))]

    @property
    def constructors(self):
        return [_wrap_expr(lib.psg_type_data_constructor(self._ptr, i), False)
                for i in range(lib.psg_type_data_num_constructors(self._ptr))]


def set_type_def(mod, header, data, update=True):
    """mod[header] = data."""
    if isinstance(header, str):
        header = data.header
    mod._replace(lambda o: lib.psg_module_add_type_def(mod._ptr, data._ptr, bool(update), o))


class _Map(dict):
    """A dict whose items() is a list, as TVM's Map.items() is."""

    def items(self):
        return list(super().items())


def type_definitions(mod):
    """A dict GlobalTypeVar -> TypeData, in module order."""
    out = _Map()
    for i in range(lib.psg_module_num_type_defs(mod._ptr)):
        td = TypeData._borrow(lib.psg_module_get_type_def(mod._ptr, i))
        out[td.header] = td
    return out


def get_type_def(mod, gtv):
    name = gtv if isinstance(gtv, str) else gtv.name_hint
    ptr = lib.psg_module_find_type_def(mod._ptr, enc(name))
    if not ptr:
        raise KeyError("no type named %r in the module" % name)
    return TypeData._borrow(ptr)


def get_global_type_var(mod, name):
    ptr = lib.psg_module_find_type_def(mod._ptr, enc(name))
    if not ptr:
        raise ValueError("Cannot find global type var \"%s\" in the Module" % name)
    return _wrap_type(lib.psg_type_data_header(ptr))


def get_constructor(mod, name):
    """The constructor named `name`, or (an int) whose tag is `name`, as
    TVM's IRModule.get_constructor(tag) looks it up."""
    if isinstance(name, int):
        for td in type_definitions(mod).values():
            for c in td.constructors:
                if c.tag == name:
                    return c
        raise ValueError("Cannot find constructor with tag %d in the Module" % name)
    ptr = lib.psg_module_find_constructor(mod._ptr, enc(name))
    if not ptr:
        raise ValueError("Cannot find constructor \"%s\" in the Module" % name)
    return _wrap_expr(ptr, False)


# A type each std file defines: its import is done when the module has it.
_STD_SENTINEL = {"prelude.rly": "List", "nat.rly": "nat", "gradient.rly": "GradCell"}


def import_from_std(mod, file_to_import):
    """mod.import_from_std(FILE): our std file's definitions added to mod."""
    import os
    from .. import parse as _parse
    sentinel = _STD_SENTINEL.get(file_to_import)
    if sentinel is not None and lib.psg_module_find_type_def(mod._ptr, enc(sentinel)):
        return
    if file_to_import == "nat.rly":
        import_from_std(mod, "prelude.rly")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "std", file_to_import)
    if not os.path.exists(path):
        raise FileNotFoundError("no std file %r in passage (relay/std has prelude.rly, nat.rly, gradient.rly)"
                                % file_to_import)
    with open(path) as f:
        out = _parse(f.read(), path, mod)
    lib.psg_module_retain(out._ptr)
    old, mod._ptr = mod._ptr, out._ptr
    lib.psg_module_release(old)


def unmatched_cases(match, mod=None):
    """TVM's relay.analysis.unmatched_cases: the patterns no clause of
    `match` handles (constructors expanded with `mod`'s type definitions)."""
    out = ctypes.c_void_p()
    call(lib.psg_match_unmatched_cases, match._ptr, mod._ptr if mod is not None else None,
         ctypes.byref(out), what="unmatched_cases")
    return _wrap_pattern(out.value).patterns


def well_formed(expr):
    """TVM's relay.analysis.well_formed: no variable bound twice, none used
    outside its scope."""
    return bool(lib.psg_expr_well_formed(_expr_ptr(expr)))


def match_vars(ptr):
    """The variables Match `ptr`'s patterns bind (C pointers)."""
    return [lib.psg_match_clause_var(ptr, c, j) for c in range(lib.psg_match_num_clauses(ptr))
            for j in range(lib.psg_match_clause_num_vars(ptr, c))]


_ir._EXPR_CLASSES.update({10: Constructor, 11: Match, 12: RefCreate, 13: RefRead, 14: RefWrite})
