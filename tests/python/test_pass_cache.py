"""The pass cache from Python (docs/pass-infra.md "Pass cache"): the config
"passage.pass_cache" names the directory, PassContext.pass_cache_stats gives
the counts, Pass.cacheable tells which passes it memoizes; a warm cache gives
the uncached result, and a Python pass is never cached. Consecutive cacheable
passes are one chain: one lookup per function for all of them."""

import os

from passage import relay, transform
from passage.instrument import pass_instrument
from passage.transform import PassContext

N = 8


def module(edit=-1):
    text = '#[version = "0.0.5"]\n'
    for i in range(N):
        c = 3 if i == edit else 2
        text += ("def @f%d(%%x: Tensor[(4), float32]) {\n  %%0 = add(1f, %df);\n"
                 "  multiply(add(%%x, %%0), %d.5f)\n}\n" % (i, c, i))
    return relay.fromtext(text)


def run(mod, cache_dir=None, passes=None):
    config = {"passage.pass_cache": str(cache_dir)} if cache_dir else {}
    passes = passes or [transform.InferType(), transform.FoldConstant(), transform.SimplifyExpr()]
    with PassContext(opt_level=3, config=config) as pc:
        out = transform.Sequential(passes)(module() if mod is None else mod)
        return out.astext(), pc.pass_cache_stats


def test_cold_warm_and_uncached_agree(tmp_path):
    ref, stats = run(module())
    assert stats == {"hits": 0, "misses": 0, "stored": 0, "unusable": 0, "bypassed": 0}
    cold, stats = run(module(), tmp_path)
    assert cold == ref and stats["misses"] == N and stats["stored"] == N and stats["hits"] == 0
    warm, stats = run(module(), tmp_path)
    assert warm == ref and stats["hits"] == N and stats["misses"] == 0
    assert any(name.endswith(".entry") for name in os.listdir(tmp_path))


def test_edit_recomputes_only_that_function(tmp_path):
    run(module(), tmp_path)
    edited, stats = run(module(edit=3), tmp_path)
    assert edited == run(module(edit=3))[0]
    assert stats["misses"] == 1 and stats["hits"] == N - 1


def test_a_module_pass_splits_the_chain_and_instruments_see_every_pass(tmp_path):
    split = [transform.InferType(), transform.FoldConstant(), transform.ToBasicBlockNormalForm(),
             transform.SimplifyExpr()]
    ref, _ = run(module(), None, split)
    cold, stats = run(module(), tmp_path, split)
    assert cold == ref and stats["misses"] == 2 * N and stats["hits"] == 0
    warm, stats = run(module(), tmp_path, split)
    assert warm == ref and stats["hits"] == 2 * N and stats["misses"] == 0
    # With an instrument each pass is looked up on its own (their entries
    # are not the chain's), and the instrument sees both passes run.
    seen = []

    @pass_instrument
    class Names:
        def run_before_pass(self, mod, info):
            seen.append(info.name)

    config = {"passage.pass_cache": str(tmp_path)}
    with PassContext(opt_level=3, config=config, instruments=[Names()]) as pc:
        out = transform.Sequential([transform.InferType(), transform.FoldConstant(), transform.SimplifyExpr()])(module())
        stats = pc.pass_cache_stats
    assert out.astext() == run(module())[0]
    assert "FoldConstant" in seen and "SimplifyExpr" in seen
    assert stats["misses"] == 2 * N and stats["hits"] == 0


def test_cacheable_passes_and_python_passes(tmp_path):
    assert transform.FoldConstant().cacheable
    assert not transform.InferType().cacheable  # a module pass
    calls = []

    @transform.function_pass(opt_level=0, name="PyCount")
    def py_count(func, mod, ctx):
        calls.append(1)
        return func

    assert not py_count.cacheable
    for _ in range(2):
        _, stats = run(module(), tmp_path, [transform.InferType(), py_count])
        assert stats["hits"] + stats["misses"] == 0
    assert len(calls) == 2 * N


def test_damaged_entry_warns_and_recomputes(tmp_path):
    ref, _ = run(module(), tmp_path)
    for name in os.listdir(tmp_path):
        with open(os.path.join(tmp_path, name), "r+b") as f:
            f.truncate(10)
    out, stats = run(module(), tmp_path)
    assert out == ref
    assert stats["unusable"] == N and stats["hits"] == 0
