"""Passage — tvm.relay.testing.temp_op_attr.TempOpAttr: an op attribute set
for the length of a `with` block and restored after it (the attribute's
earlier value, or none), as TVM's tests of Legalize and AlterOpLayout use it:

    with TempOpAttr("nn.conv2d", "FTVMLegalize", legalize_conv2d):
        mod = relay.transform.Legalize()(mod)
"""

from .. import op as _op

__all__ = ["TempOpAttr"]


class TempOpAttr:
    """Sets attribute `attr_key` of op `op_name` to `attr_value` on entry
    (replacing whatever it had, at any level) and puts the old value back on
    exit."""

    def __init__(self, op_name, attr_key, attr_value):
        self.op = _op.get(op_name)
        self.attr_key = attr_key
        self.attr_value = attr_value
        self.older_attr = None

    def __enter__(self):
        self.older_attr = self.op.get_attr(self.attr_key)
        self.op.reset_attr(self.attr_key)
        self.op.set_attr(self.attr_key, self.attr_value)
        return self

    def __exit__(self, ptype, value, trace):
        self.op.reset_attr(self.attr_key)
        if self.older_attr:
            self.op.set_attr(self.attr_key, self.older_attr)
