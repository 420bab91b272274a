"""Passage — passage.tir.ir_builder, TVM's imperative statement builder:

    ib = ir_builder.create()
    A = ib.buffer_ptr(buf)
    with ib.for_range(0, n, name="i") as i:
        with ib.if_scope(i % 2 == 0):
            A[i] = A[i] + 1
        with ib.else_scope():
            A[i] = 0
    stmt = ib.get()

Each open scope (loop, if, else, new_scope) collects statements in a list.
`let`, `scope_attr` and `allocate` put a wrapper in the list: a function of
the statements that follow it in the scope, which become its body when the
scope closes (LetStmt, AttrStmt and Allocate hold the rest of their scope)."""

from . import expr as _expr
from . import stmt as _stmt
from .buffer import decl_buffer
from .expr import PrimExpr, BufferLoad, Var, IntImm, const, convert

__all__ = ["create", "IRBuilder", "BufferVar", "WithScope"]


class WithScope:
    """A `with` block: enter returns `value`, exit calls `on_exit`."""

    def __init__(self, value, on_exit):
        self._value, self._on_exit = value, on_exit

    def __enter__(self):
        return self._value

    def __exit__(self, *exc):
        self._on_exit()


def _elem(dtype):
    return str(dtype).split("x", 1)[0]


class BufferVar:
    """A buffer as the builder indexes it: `A[i]` loads, `A[i] = v` stores.
    One index into a buffer of several dims is split into one per dim, row
    major."""

    def __init__(self, builder, buffer, content_type):
        self._builder, self._buffer, self._content_type = builder, buffer, content_type

    def asobject(self):
        return self._buffer

    @property
    def dtype(self):
        return self._content_type

    def _indices(self, index):
        idx = list(index) if isinstance(index, (list, tuple)) else [index]
        shape = list(self._buffer.shape)
        if len(idx) != 1 or len(shape) == 1:
            return idx
        # row-major strides, then index // stride and the remainder onwards (TVM's
        # unravel_index, so the expressions are the ones TVM builds)
        strides = [1]
        for dim in reversed(shape[1:]):
            strides.insert(0, dim * strides[0])
        flat, out = convert(idx[0]), []
        for stride in strides:
            out.append(flat // stride)
            flat = flat % stride
        return out

    def __getitem__(self, index):
        return BufferLoad(self._buffer, self._indices(index))

    def __setitem__(self, index, value):
        if isinstance(value, (bool, int, float)):
            value = const(value)
        value = convert(value)
        if _elem(value.dtype) != _elem(self._content_type):
            raise ValueError("data type does not match content type %s vs %s"
                             % (value.dtype, self._content_type))
        self._builder.emit(_stmt.BufferStore(self._buffer, value, self._indices(index)))


def _loop_dtype(x):
    if isinstance(x, PrimExpr):
        if not x.dtype.startswith("int"):
            raise NotImplementedError("Infer loop_var dtype failed: unsupported dtype in loop "
                                      "begin or end %s" % x.dtype)
        return x.dtype
    if isinstance(x, int):
        return "int32"
    raise NotImplementedError("Infer loop_var dtype failed: unsupported loop bound %r" % (x,))


_FOR_KINDS = {"serial": _stmt.ForKind.SERIAL, "parallel": _stmt.ForKind.PARALLEL,
              "vectorize": _stmt.ForKind.VECTORIZED, "unroll": _stmt.ForKind.UNROLLED}


class IRBuilder:
    """Builds a statement from nested `with` scopes; get() returns it."""

    def __init__(self):
        self._scopes = [[]]
        self.nidx = 0

    def _close(self):
        """The statement of the innermost scope (which is removed)."""
        items = self._scopes.pop()
        if not items or callable(items[-1]):
            items.append(_stmt.Evaluate(0))  # a wrapper needs a body
        tail = []  # the statements after the current position, in order
        for item in reversed(items):
            if callable(item):
                tail = [item(_seq(tail))]
            else:
                tail.insert(0, item)
        return _seq(tail)

    def emit(self, stmt):
        """Appends a statement (a Call becomes an Evaluate) or a wrapper."""
        if isinstance(stmt, _expr.Call):
            stmt = _stmt.Evaluate(stmt)
        if not (isinstance(stmt, _stmt.Stmt) or callable(stmt)):
            raise TypeError("emit takes a Stmt, a Call or a function of the body, got %r"
                            % type(stmt).__name__)
        self._scopes[-1].append(stmt)

    def scope_attr(self, node, attr_key, value):
        """An AttrStmt over the rest of the current scope."""
        if isinstance(node, str):
            node = _expr.StringImm(node)
        if isinstance(value, str):
            value = _expr.StringImm(value)
        if attr_key == "thread_extent":
            from .op import max as _max
            value = _max(1, value)
        self.emit(lambda body: _stmt.AttrStmt(node, attr_key, value, body))

    def for_range(self, begin, end, name="i", dtype=None, kind="serial"):
        """A loop scope; `with` gives the loop var. Default names i, j, k,
        then i_0, i_1, ..."""
        if name == "i":
            name = "ijk"[self.nidx] if self.nidx < 3 else "i_%d" % (self.nidx - 3)
            self.nidx += 1
        if dtype is None:
            dtype = "int64" if "int64" in (_loop_dtype(begin), _loop_dtype(end)) else "int32"
        if kind not in _FOR_KINDS:
            raise ValueError("Unknown kind")
        loop_var = Var(name, dtype)
        zero = isinstance(begin, int) and begin == 0 or isinstance(begin, IntImm) and begin.value == 0
        extent = end if zero else end - begin
        # constants take the loop var's dtype (TVM's For promotes narrower IntImms)
        begin, extent = _as_dtype(begin, dtype), _as_dtype(extent, dtype)
        self._scopes.append([])
        return WithScope(loop_var, lambda: self.emit(
            _stmt.For(loop_var, begin, extent, _FOR_KINDS[kind], self._close())))

    def while_loop(self, condition):
        self._scopes.append([])
        return WithScope(None, lambda: self.emit(_stmt.While(condition, self._close())))

    def if_scope(self, cond):
        self._scopes.append([])
        return WithScope(None, lambda: self.emit(_stmt.IfThenElse(cond, self._close(), None)))

    def else_scope(self):
        """The else branch of the if_scope just closed."""
        items = self._scopes[-1]
        prev = items[-1] if items else None
        if not isinstance(prev, _stmt.IfThenElse) or prev.else_case is not None:
            raise RuntimeError("else_scope can only follow an if_scope")
        items.pop()
        self._scopes.append([])
        return WithScope(None, lambda: self.emit(
            _stmt.IfThenElse(prev.condition, prev.then_case, self._close())))

    def new_scope(self):
        """A scope that bounds the let/attr/allocate made inside it."""
        self._scopes.append([])
        return WithScope(None, lambda: self.emit(self._close()))

    def let(self, var_name, value):
        """A LetStmt over the rest of the scope; returns the new var."""
        value = convert(value)
        var = Var(var_name, value.dtype)
        self.emit(lambda body: _stmt.LetStmt(var, value, body))
        return var

    def allocate(self, dtype, shape, name="buf", axis_separators=None, scope=""):
        """An Allocate over the rest of the scope; returns its BufferVar."""
        if not isinstance(shape, (list, tuple)):
            shape = [shape]
        buf = decl_buffer(shape, dtype, name, scope=scope, axis_separators=axis_separators)
        data = buf.data
        self.emit(lambda body: _stmt.Allocate(data, dtype, shape, const(1, "bool"), body))
        return BufferVar(self, buf, dtype)

    def pointer(self, content_type, name="ptr", scope=""):
        """A one-element buffer over a new pointer var."""
        return BufferVar(self, decl_buffer([1], content_type, name, scope=scope), content_type)

    def buffer_ptr(self, buf):
        return BufferVar(self, buf, buf.dtype)

    def likely(self, expr):
        from .op import likely
        return likely(expr)

    def get(self):
        """The statement built (all scopes must be closed)."""
        stmt = self._close()
        if self._scopes:
            raise RuntimeError("cannot call get inside construction scope")
        return stmt


def _as_dtype(x, dtype):
    if isinstance(x, int) and not isinstance(x, bool):
        return const(x, dtype)
    if isinstance(x, IntImm) and x.dtype != dtype:
        return const(x.value, dtype)
    return x


def _seq(stmts):
    return stmts[0] if len(stmts) == 1 else _stmt.SeqStmt(stmts)


def create():
    """A new IRBuilder."""
    return IRBuilder()
