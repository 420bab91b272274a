"""Config options that do something (issue 13, item 7): the listing marks as
reserved exactly the built-in options nothing in src/ reads, names the reader
of every other one, and takes its type keys from the library (no table of its
own in Python)."""

import os
import re

from passage import transform
from passage.transform import PassContext

_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
# A config read with a literal key: psg_pass_context_config_int/_bool/_float(pc, "KEY")
# or psg_pass_context_get_config(pc, "KEY").
_READ = re.compile(r'psg_pass_context_(?:config_int|config_bool|config_float|get_config)\s*\(\s*[^,()]+,\s*"([^"]+)"')


def _keys_read_in_src():
    keys = set()
    for root, _, files in os.walk(_SRC):
        for name in files:
            if name.endswith((".c", ".h")):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    keys.update(_READ.findall(f.read()))
    return keys


def test_reserved_marks_exactly_the_options_nothing_reads():
    configs = PassContext.list_configs()
    read = _keys_read_in_src()
    assert read, "the source scan found no config reads: is the pattern stale?"
    builtin = {k for k, v in configs.items() if v["reserved"] or v["read_by"]}
    assert read <= builtin, "read in src/ but not a listed built-in: %s" % sorted(read - builtin)
    marked_read = {k for k in builtin if not configs[k]["reserved"]}
    assert marked_read == read
    for k in builtin:
        assert (configs[k]["read_by"] is None) == configs[k]["reserved"], k
    assert configs["relay.FuseOps.max_depth"]["read_by"] == "FuseOps"
    assert configs["tir.noalias"]["reserved"] and configs["tir.noalias"]["read_by"] is None


def test_type_keys_come_from_the_library():
    configs = PassContext.list_configs()
    assert configs["tir.UnrollLoop"]["type"] == "Attrs"  # the Python table said "Dict"
    assert configs["tir.UnrollLoop"]["passage_type"] == "Dict"
    assert configs["relay.FuseOps.max_depth"]["type"] == "IntImm"
    assert configs["testing.immutable_module"]["type"] == "IntImm"
    assert not hasattr(transform, "_TVM_TYPE_KEYS")


def test_setting_a_reserved_option_is_still_validated():
    # TVM users set these; the values are checked though nothing reads them yet.
    ctx = PassContext(config={"relay.backend.use_auto_scheduler": True})
    assert ctx.config == {"relay.backend.use_auto_scheduler": True}
    try:
        PassContext(config={"relay.backend.use_auto_scheduler": "yes"})
    except AttributeError as e:
        assert "expects type Bool" in str(e)
    else:
        raise AssertionError("no error")
