"""Passage — tvm.relay.prelude: the Relay prelude, TVM's names and types
(List, Option, Tree and the list functions) defined in our own text
(relay/std/prelude.rly), loaded into a module."""

from ..ir import IRModule

# The prelude's functions, each an attribute of Prelude (TVM's list).
GLOBAL_DEFS = ["id", "compose", "flip", "hd", "tl", "nth", "update", "length", "map", "foldl",
               "foldr", "foldr1", "concat", "filter", "zip", "rev", "sum", "tmap", "size", "iterate",
               "unfoldr", "unfoldl", "map_accuml", "map_accumr"]


class Prelude:
    """Prelude(mod=None): loads the prelude into `mod` (a new module when
    None) and names its parts: `p.l`, `p.cons`, `p.nil`, `p.optional`,
    `p.some`, `p.none`, `p.tree`, `p.rose`, and one GlobalVar per function
    (`p.map`, `p.foldl`, ...)."""

    def __init__(self, mod=None):
        self.mod = mod if mod is not None else IRModule()
        self.load_prelude()

    def load_prelude(self):
        self.mod.import_from_std("prelude.rly")
        self.l, self.cons, self.nil = self.mod.get_type("List")
        self.optional, self.some, self.none = self.mod.get_type("Option")
        self.tree, self.rose = self.mod.get_type("Tree")
        for name in GLOBAL_DEFS:
            setattr(self, name, self.mod.get_global_var(name))

    def get_global_var(self, canonical, dtype=None):
        if dtype is not None:
            raise NotImplementedError("passage's prelude has no tensor-array functions (%s of %s)"
                                      % (canonical, dtype))
        return self.mod.get_global_var(canonical)

    def get_type(self, canonical, dtype=None):
        if dtype is not None:
            raise NotImplementedError("passage's prelude has no tensor-array types (%s of %s)"
                                      % (canonical, dtype))
        return self.mod.get_global_type_var(canonical)

    def get_ctor(self, ty_name, canonical, dtype=None):
        if dtype is not None:
            raise NotImplementedError("passage's prelude has no tensor-array constructors")
        for ctor in self.mod[self.mod.get_global_type_var(ty_name)].constructors:
            if ctor.name_hint == canonical:
                return ctor
        raise Exception("could not find constructor %s of %s" % (canonical, ty_name))
