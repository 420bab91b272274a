"""Passage — exceptions raised for failures reported by the C library.

Every failure of a C call becomes a `PassError` (or a subclass chosen by the
status code) carrying the library's diagnostic: message, location, the pass
that was running and the rendered text with notes. An exception raised by
Python code inside a pass or instrument is re-raised as itself instead, with
the pass name added (see `passage.transform`)."""

__all__ = ["PassageError", "TVMError", "DiagnosticError", "PassError", "ParseError", "PassTypeError", "InvalidArgumentError",
           "NotFoundError", "UnsupportedError", "InternalError", "ConfigError", "Diagnostic"]


class Diagnostic:
    """A snapshot of one library diagnostic."""

    def __init__(self, message, file=None, line=0, col=0, pass_name=None, rendered=None, code=0):
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.pass_name = pass_name
        self.rendered = rendered if rendered is not None else message
        self.code = code

    def __repr__(self):
        loc = "%s:%d:%d: " % (self.file, self.line, self.col) if self.file else ""
        return "Diagnostic(%r)" % (loc + self.message)

    def __str__(self):
        return self.rendered


class PassError(Exception):
    """A failure reported by libpassage. `diagnostic` is the library's error
    (None if it recorded none); `status` the C status code; `pass_name` the
    pass that was running, when known."""

    def __init__(self, message, status=None, diagnostic=None, pass_name=None):
        super().__init__(message)
        self.status = status
        self.diagnostic = diagnostic
        self.pass_name = pass_name

    @property
    def file(self):
        return self.diagnostic.file if self.diagnostic else None

    @property
    def line(self):
        return self.diagnostic.line if self.diagnostic else 0

    @property
    def col(self):
        return self.diagnostic.col if self.diagnostic else 0


PassageError = PassError
TVMError = PassError  # TVM's tvm.error.TVMError, base of every error


class DiagnosticError(PassError):
    """TVM's tvm.error.DiagnosticError: an error reported with located
    diagnostics, the base of ParseError and PassTypeError (TVM's parser and
    type checker raise it)."""


class ParseError(DiagnosticError):
    """Malformed Relay text or pipeline text (status PSG_ERR_PARSE)."""


class PassTypeError(DiagnosticError, TypeError):
    """A type error in the IR (status PSG_ERR_TYPE)."""


class InvalidArgumentError(PassError, ValueError):
    """The library rejected an argument (status PSG_ERR_INVALID_ARGUMENT)."""


class ConfigError(InvalidArgumentError, AttributeError):
    """An invalid PassContext config option or value (TVM raises AttributeError)."""


class NotFoundError(PassError, LookupError):
    """A name lookup failed: an op, a pass, a function (PSG_ERR_NOT_FOUND)."""


class UnsupportedError(PassError, NotImplementedError):
    """Valid input this version cannot handle (PSG_ERR_UNSUPPORTED)."""


class InternalError(PassError):
    """A broken internal invariant (PSG_ERR_INTERNAL)."""


_BY_STATUS = {-1: ParseError, -2: PassTypeError, -4: InvalidArgumentError, -8: UnsupportedError,
              -9: InternalError, -10: NotFoundError}


def make_error(status, diag_ptr, what=None, cls=None):
    """Builds the exception for `status` from a borrowed diagnostic pointer."""
    from . import _ffi
    lib = _ffi.lib
    diag = None
    if diag_ptr:
        diag = Diagnostic(_ffi.s(lib.psg_diag_message(diag_ptr)) or "",
                          _ffi.s(lib.psg_diag_file(diag_ptr)), lib.psg_diag_line(diag_ptr),
                          lib.psg_diag_col(diag_ptr), _ffi.s(lib.psg_diag_pass(diag_ptr)),
                          _ffi.s(lib.psg_diag_rendered(diag_ptr)), lib.psg_diag_code(diag_ptr))
    if status == -3:
        return MemoryError("passage: out of memory" + (" in %s" % what if what else ""))
    if diag is not None:
        message = diag.rendered.rstrip("\n")
        # The rendered form ends with notes such as "in pass 'X'": the
        # innermost pass is the first such note.
        pass_name = diag.pass_name
        if pass_name is None:
            for ln in diag.rendered.splitlines():
                ln = ln.strip()
                if ln.startswith("note: in pass '"):
                    pass_name = ln[len("note: in pass '"):].rstrip("'")
                    break
    else:
        message = "%s failed: %s" % (what or "passage call", _ffi.s(lib.psg_status_str(status)))
        pass_name = None
    cls = cls or _BY_STATUS.get(status, PassError)
    return cls(message, status, diag, pass_name)
